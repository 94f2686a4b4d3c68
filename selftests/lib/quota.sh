# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers for the quota selftests (quota.sh, cgroup.sh).  Sourced after
# lib.sh and lib-vdev.sh.
#
# A "holder" is selftests/progs/quota_obj running in a container and
# holding verbs objects; the script drives it one command at a time through
# a pair of FIFOs:
#
#	holder_start h1 "$NS" vq || ...	# waits for "ready"
#	out=$(holder_cmd h1 alloc qp 5)	# "alloc ok=3 err=EDQUOT"
#	holder_eof h1			# it exits, leaving cleanup to the kernel
#
# HOLDER_CG, when set, is a cgroup directory the holder is moved into
# before it opens the device.

QUOTA_OBJ=$TOP/selftests/progs/quota_obj
# shellcheck disable=SC2034  # used by the scripts that source this
QUOTA_RACE=$TOP/selftests/progs/quota_race
QUOTA_TIMEOUT=${QUOTA_TIMEOUT:-120}

declare -A H_PID H_W H_R H_FIRST

# holder_start ID NS DEV [quota_obj options...] - start a holder; succeeds
# when it answered "ready".  Its first line is kept in H_FIRST[ID] (e.g.
# "error open err=EAGAIN"); on failure the holder is reaped.
holder_start() {
	local id=$1 ns=$2 dev=$3 dir line w r
	shift 3
	dir=$(mktemp -d "/tmp/${TEST_NAME}-$id.XXXXXX") || return 1
	cleanup_push rm -rf "$dir"
	mkfifo "$dir/in" "$dir/out" || return 1
	echo "# [$ns] quota_obj -d $dev -g $GIDX $* (holder $id${HOLDER_CG:+, cgroup $HOLDER_CG})" >&"$KTAP_FD"
	(
		# Other holders' FIFO ends must not stay open in this one, or
		# closing them would not reach their holders as end of input.
		for fd in "${H_W[@]}" "${H_R[@]}"; do
			[ -n "$fd" ] && exec {fd}>&-
		done
		if [ -n "${HOLDER_CG:-}" ]; then
			echo "$BASHPID" > "$HOLDER_CG/cgroup.procs" || exit 1
		fi
		exec ip netns exec "$ns" "$QUOTA_OBJ" -d "$dev" -g "$GIDX" "$@" \
			<"$dir/in" >"$dir/out" 2>"$dir/err"
	) &
	H_PID[$id]=$!
	cleanup_push kill -9 "${H_PID[$id]}"
	exec {w}>"$dir/in" {r}<"$dir/out"
	H_W[$id]=$w
	H_R[$id]=$r
	line=
	read -r -t "$QUOTA_TIMEOUT" -u "$r" line
	# shellcheck disable=SC2034  # read by the scripts
	H_FIRST[$id]=$line
	if [ "$line" != ready ]; then
		ktap_diag "holder $id did not start: '$line' $(cat "$dir/err")"
		exec {w}>&- {r}<&-
		H_W[$id]=
		H_R[$id]=
		wait "${H_PID[$id]}" 2>/dev/null
		return 1
	fi
}

# holder_cmd ID CMD... - send one command, print its reply line(s): three
# for "query", one for anything else.
holder_cmd() {
	local id=$1 n=1 i line
	shift
	[ "$1" = query ] && n=3
	echo "$*" >&"${H_W[$id]}" || return 1
	for ((i = 0; i < n; i++)); do
		if ! read -r -t "$QUOTA_TIMEOUT" -u "${H_R[$id]}" line; then
			ktap_diag "[$id] $* -> no answer"
			return 1
		fi
		ktap_diag "[$id] $* -> $line"
		echo "$line"
	done
}

# holder_gone ID - the holder process has exited.
holder_gone() {
	! kill -0 "${H_PID[$1]}" 2>/dev/null
}

# holder_eof ID - close the holder's input: it exits without destroying
# anything.  Succeeds once it is gone (bounded wait).
holder_eof() {
	local id=$1 w=${H_W[$1]} r=${H_R[$1]}
	[ -n "$w" ] && exec {w}>&- {r}<&-
	H_W[$id]=
	H_R[$id]=
	wait_for 60 holder_gone "$id" || return 1
	wait "${H_PID[$id]}" 2>/dev/null
	return 0
}

# holder_quit ID - destroy everything and exit; succeeds on "quit ok".
holder_quit() {
	local id=$1 out
	out=$(holder_cmd "$id" quit)
	holder_eof "$id"
	[ "$out" = "quit ok" ]
}

# holder_kill ID - kill -9 the holder and wait for it to be gone.
holder_kill() {
	local id=$1 w=${H_W[$1]} r=${H_R[$1]}
	kill -9 "${H_PID[$id]}"
	wait "${H_PID[$id]}" 2>/dev/null
	[ -n "$w" ] && exec {w}>&- {r}<&-
	H_W[$id]=
	H_R[$id]=
	holder_gone "$id"
}

# dev_json DEV - "vrdmactl -j dev show DEV", first element.
dev_json() {
	"$VRDMACTL" -j dev show "$1" | jq -c '.[0]'
}

# usage_of DEV RES / limit_of DEV RES - one value from dev show -j (RES as
# in JSON: ctx pd cq qp srq mr mw ah mr_bytes drv_obj).
usage_of() {
	"$VRDMACTL" -j dev show "$1" | jq -r ".[0].usage.$2"
}
limit_of() {
	"$VRDMACTL" -j dev show "$1" | jq -r ".[0].limits.$2"
}

# usage_zero DEV - every usage counter of DEV is 0 (for wait_for).
usage_zero() {
	[ "$("$VRDMACTL" -j dev show "$1" |
		jq -r '[.[0].usage[]] | all(. == 0)')" = true ]
}

# vrdma_objects_zero - no user context and no shadow object left in the
# module (wrapped parent mappings, and the shadow ucontext holders they
# keep, may outlive a deleted vdevice until their process unmaps them;
# vrdma_shadows_zero counts those too).
vrdma_objects_zero() {
	awk '$1 != "vdev" && $1 != "mmap" && $1 != "uctx_holder" && $2 != 0 { bad = 1 }
		END { exit bad }' \
		/sys/kernel/debug/vrdma/objects
}

# field LINE KEY - the value of KEY=VALUE in LINE.
field() {
	sed -n "s/.*\\b$2=\\([^ ]*\\).*/\\1/p" <<<"$1"
}
