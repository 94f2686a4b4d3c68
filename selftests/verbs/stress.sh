#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Bounded concurrency stress: for $STRESS_SECS seconds (default 60), all at
# once, on $PARENT:
#
#   churn1, churn2   create/delete loops: st_c1 in netns S1, st_c2 in S2
#   nschurn          netns churn: a fresh netns, st_n in it, the netns deleted
#   racer            a fresh netns, st_r in it, then "dev del st_r" and the
#                    netns deletion at the same time
#   dumper           "vrdmactl -j dev show" and "parent show" in a loop
#   traffic          RDMA writes on st_a (netns SA) the whole time
#   objects          create/destroy every object type on st_b (netns SB)
#
# Every successful dump must be a consistent snapshot: st_a and st_b, which
# live throughout, are in it, and no name or index appears twice (libvrdma
# retries a dump the kernel flags NLM_F_DUMP_INTR and gives up with an
# error, never with half a list).  At the end: no worker saw an error,
# only st_a and st_b are left, no shadow, the parent at its baseline, a
# clean kernel log.

# shellcheck source=selftests/lib/lib.sh
. "$(dirname "$0")/lib/lib.sh"
# shellcheck source=selftests/lib/vdev.sh
. "$(dirname "$0")/lib/vdev.sh"

USERPROG=$TOP/selftests/progs/vrdma_user
SECS=${STRESS_SECS:-60}

ktap_plan setup churn_ok nschurn_ok racer_ok dumps_consistent traffic_ok objects_ok \
	only_stable_left shadows_freed parent_res_baseline klog_clean

if ! require_cmd jq rdma || ! have_vrdmactl || [ ! -x "$USERPROG" ]; then
	ktap_skip_rest "tools missing"
	ktap_finish
fi

MARK=$(klog_mark)
tmpdir T
BASELINE=$(parent_res)
if new_ns S1 s1 && new_ns S2 s2 && new_ns SA sa && new_ns SB sb &&
   vdev_add st_a "$SA" && vdev_add st_b "$SB"; then
	ktap_ok setup
else
	ktap_fail setup
	ktap_skip_rest "setup failed"
	ktap_finish
fi
END=$((EPOCHSECONDS + SECS))

# Each worker appends one word per iteration to $T/NAME: "ok", or "err"
# followed by what failed.
churn() {	# NAME NS
	while [ "$EPOCHSECONDS" -lt "$END" ]; do
		if "$VRDMACTL" dev add "$1" parent "$PARENT" gids shared netns "$2" 2>>"$T/$1.log" &&
		   "$VRDMACTL" dev del "$1" 2>>"$T/$1.log"; then
			echo ok
		else
			echo "err $1"
		fi
	done >>"$T/$1"
}

gone_vdev() {
	! "$VRDMACTL" dev show "$1" >/dev/null 2>&1
}

nschurn() {
	local i=0 ns
	while [ "$EPOCHSECONDS" -lt "$END" ]; do
		ns="stress-$$-n$i"
		i=$((i + 1))
		if ip netns add "$ns" &&
		   "$VRDMACTL" dev add st_n parent "$PARENT" netns "$ns" 2>>"$T/nschurn.log" &&
		   ip netns del "$ns" && wait_for 60 gone_vdev st_n >/dev/null 2>&1; then
			echo ok
		else
			echo "err $ns"
			ip netns del "$ns" 2>/dev/null
		fi
	done >>"$T/nschurn"
}

# User deletion racing namespace death: one of them wins, the vdevice goes
# away exactly once, and never shows up in init_net.
racer() {
	local i=0 ns dpid
	while [ "$EPOCHSECONDS" -lt "$END" ]; do
		ns="stress-$$-r$i"
		i=$((i + 1))
		if ! ip netns add "$ns" ||
		   ! "$VRDMACTL" dev add st_r parent "$PARENT" netns "$ns" 2>>"$T/racer.log"; then
			echo "err setup $ns"
			ip netns del "$ns" 2>/dev/null
			continue
		fi
		"$VRDMACTL" dev del st_r 2>/dev/null &
		dpid=$!
		ip netns del "$ns"
		if rdma dev show st_r >/dev/null 2>&1; then
			echo "err st_r visible in init_net"
		fi
		wait "$dpid"
		if wait_for 60 gone_vdev st_r >/dev/null 2>&1; then
			echo ok
		else
			echo "err st_r left behind"
		fi
	done >>"$T/racer"
}

# A dump is consistent if the long-lived vdevices are in it and nothing
# appears twice.
dumper() {
	local out
	while [ "$EPOCHSECONDS" -lt "$END" ]; do
		if out=$("$VRDMACTL" -j dev show 2>"$T/dump.err"); then
			if jq -e '([.[].name] | index("st_a") != null and index("st_b") != null) and
				  ([.[].name] | length == (unique | length)) and
				  ([.[].index] | length == (unique | length))' \
				<<< "$out" >/dev/null; then
				echo ok
			else
				echo "err inconsistent: $out"
			fi
		elif grep -q 'kept changing' "$T/dump.err"; then
			echo giveup
		else
			echo "err dump: $(cat "$T/dump.err")"
		fi
		"$VRDMACTL" -j parent show >/dev/null 2>>"$T/dump.log" ||
			echo "err parent show"
	done >>"$T/dumper"
}

objects() {
	while [ "$EPOCHSECONDS" -lt "$END" ]; do
		if ip netns exec "$SB" "$USERPROG" -d st_b -g "$GIDX" objects \
			>"$T/objects.last" 2>&1; then
			echo ok
		else
			echo "err $(tr '\n' ' ' < "$T/objects.last")"
		fi
	done >>"$T/objects"
}

ktap_diag "[init] $SECS s of: churn st_c1, churn st_c2, netns churn, deletion racing netns death, dumps, traffic on st_a, objects on st_b"
spawn_in_ns "$SA" "$USERPROG" -d st_a -g "$GIDX" -t "$SECS" traffic >"$T/traffic" 2>&1
TPID=$!
cleanup_push kill -9 "$TPID"
churn st_c1 "$S1" &
W1=$!
churn st_c2 "$S2" &
W2=$!
nschurn &
W3=$!
racer &
W6=$!
dumper &
W4=$!
objects &
W5=$!
cleanup_push kill "$W1" "$W2" "$W3" "$W4" "$W5" "$W6"
wait "$W1" "$W2" "$W3" "$W4" "$W5" "$W6"
# The traffic user ends $SECS s after its setup: status 2, no fatal event.
wait "$TPID"
trc=$?

count() {	# FILE WORD
	grep -c "^$2" "$1" 2>/dev/null
}
report() {	# NAME FILE...
	local name=$1 f ok=0 err=0
	shift
	for f in "$@"; do
		ok=$((ok + $(count "$f" ok)))
		err=$((err + $(count "$f" err)))
	done
	if [ "$ok" -gt 0 ] && [ "$err" = 0 ]; then
		ktap_ok "$name" "$ok iterations"
	else
		ktap_fail "$name" "$ok ok, $err errors: $(grep -h '^err' "$@" | head -5)"
	fi
}
report churn_ok "$T/st_c1" "$T/st_c2"
report nschurn_ok "$T/nschurn"
report racer_ok "$T/racer"
ktap_diag "dumps: $(count "$T/dumper" ok) consistent, $(count "$T/dumper" giveup) given up after retries"
report dumps_consistent "$T/dumper"
if [ "$trc" = 2 ] && grep -q '^ready' "$T/traffic" && ! grep -q '^event' "$T/traffic"; then
	ktap_ok traffic_ok
else
	ktap_fail traffic_ok "status $trc: $(cat "$T/traffic")"
fi
report objects_ok "$T/objects"

names=$("$VRDMACTL" -j dev show | jq -r '[.[].name] | sort | join(" ")')
if [ "$names" = "st_a st_b" ] && [ "$(vdev_count)" = 2 ]; then
	ktap_ok only_stable_left
else
	ktap_fail only_stable_left "left: $names ($(vrdma_objects))"
fi
ktap_check shadows_freed wait_for 30 vrdma_shadows_zero
if wait_for 30 parent_res_is "$BASELINE"; then
	ktap_ok parent_res_baseline
else
	ktap_fail parent_res_baseline "now $(parent_res), baseline $BASELINE"
fi
ktap_check klog_clean klog_clean_since "$MARK"

ktap_finish
