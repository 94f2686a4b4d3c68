#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A tenant that holds a verb in flight must not freeze the host's generic
# netlink (security.rst, "A verb held in flight").  The tenant, in netns
# A, registers as an MR a private mapping of a file served by its own
# FUSE daemon (progs/fuse_mr), which does not answer the read that
# pinning the pages needs until it is sent SIGUSR1.  "vrdmactl dev del" of
# its vdevice then cannot finish: the RDMA core waits for that verb before
# it destroys the tenant's objects.
#
#   netns A: gs_vd, fuse_mr (REG_MR stalled in its own FUSE read)
#   netns B: gs_other, added and deleted while gs_vd's deletion waits
#   init:    "vrdmactl dev del gs_vd" in the background, then, each within
#            $BOUND s: "genl ctrl list" (nlctrl, a family that takes
#            genl_mutex), "vrdmactl dev show", a re-add of gs_vd (refused:
#            its name is reserved until it is freed), add and del of
#            gs_other; the del itself returns within $DEL_BOUND s,
#            the tenant cut off (its next verb fails) but still stalled
#
# Then SIGUSR1: the read is answered, the vdevice is freed and announced
# (DEV_DEL event, reason user), no object is left, the name is free again.
#
# Each request runs in the background and is waited for with a deadline:
# before the fix a request blocked on genl_mutex is in uninterruptible
# sleep, which no timeout(1) can end; it is reaped after the release.

# shellcheck source=selftests/lib/lib.sh
. "$(dirname "$0")/lib/lib.sh"
# shellcheck source=selftests/lib/vdev.sh
. "$(dirname "$0")/lib/vdev.sh"

PROG=$TOP/selftests/progs/fuse_mr
BOUND=10	# s, for a request that must not wait for the tenant
DEL_BOUND=30	# s, for the del: the module waits up to 10 s, then returns

ktap_plan setup tenant_stalls_reg_mr del_cuts_off \
	other_family_answers vrdma_dump_answers vrdma_dump_unlisted \
	name_still_reserved unrelated_add unrelated_del \
	del_returns tenant_still_stalled \
	released vdev_freed del_event shadows_released parent_res_baseline \
	name_reusable klog_clean

if ! require_cmd genl jq || ! have_vrdmactl || [ ! -x "$PROG" ]; then
	ktap_skip_rest "tools missing"
	ktap_finish
fi

MARK=$(klog_mark)
tmpdir T
STRAYS=()
# Requests a broken module left blocked; they end once the tenant lets go.
reap_strays() {
	local p
	for p in "${STRAYS[@]}"; do
		wait "$p" 2>/dev/null
	done
}

# vdev_count_is N - vrdma holds N vdevices.
vdev_count_is() {
	[ "$(vdev_count)" = "$1" ]
}

# since T0 - seconds elapsed since $EPOCHREALTIME was T0, 0.1 s precision.
since() {
	awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'
}

# answered NAME SECS LINES CMD... - run CMD in the background, logged, its
# output in $T/NAME.out; if it ends within SECS s, log how long it took,
# its status and the first LINES lines of its output, leave the status in
# ANSWER_RC and succeed.  A CMD still running is reported NAME not ok and
# left to reap_strays.
answered() {
	local name=$1 secs=$2 lines=$3 t0 pid
	shift 3
	ktap_diag "[init] $* (within $secs s)"
	t0=$EPOCHREALTIME
	"$@" >"$T/$name.out" 2>&1 &
	pid=$!
	if ! wait_for "$secs" gone "$pid"; then
		STRAYS+=("$pid")
		ktap_fail "$name" "still blocked after $(since "$t0") s"
		return 1
	fi
	wait "$pid"
	ANSWER_RC=$?
	ktap_diag "answered in $(since "$t0") s, status $ANSWER_RC:" \
		"$(head -n "$lines" "$T/$name.out")"
}

# bounded NAME SECS CMD... - run CMD as answered does; report NAME ok if it
# ends within SECS s with status 0, and return its verdict.
bounded() {
	local name=$1
	answered "$name" "$2" 3 "${@:3}" || return 1
	if [ "$ANSWER_RC" -eq 0 ]; then
		ktap_ok "$name"
	else
		ktap_fail "$name" "status $ANSWER_RC"
		return 1
	fi
}

# refused_within NAME SECS PATTERN CMD... - as bounded, but CMD must fail
# with output matching PATTERN (all of which is logged).
refused_within() {
	local name=$1 pattern=$3
	answered "$name" "$2" 1000 "${@:4}" || return
	if [ "$ANSWER_RC" -ne 0 ] && grep -qiE -- "$pattern" "$T/$name.out"; then
		ktap_ok "$name"
	else
		ktap_fail "$name" "status $ANSWER_RC"
	fi
}

ktap_diag "[init] $VRDMACTL -j monitor &"
(exec "$VRDMACTL" -j monitor >"$T/mon" 2>"$T/mon.err") &
MONPID=$!
cleanup_push kill "$MONPID"

mkdir "$T/mnt"
VDEVS=$(vdev_count)
# A request the old module blocked may add it after the release.
cleanup_push "$VRDMACTL" dev del gs_other
# setup - fuse, namespaces A and B, the monitor listening, vdevice gs_vd in A.
setup() {
	in_init modprobe fuse && new_ns A a && new_ns B b &&
		wait_for 30 monitor_listening "$T/mon" && vdev_add gs_vd "$A"
}
ktap_setup setup
BASELINE=$(parent_res)
ktap_diag "parent baseline: $BASELINE"

spawn_in_ns "$A" "$PROG" gs_vd "$T/mnt" >"$T/fuse" 2>&1
TENANT=$!
# Whatever fails, the tenant lets go at exit, so nothing stays blocked.
cleanup_push kill -9 "$TENANT"
cleanup_push kill -USR1 "$TENANT"
if wait_for 60 out_has "$T/fuse" '^stalled'; then
	ktap_ok tenant_stalls_reg_mr
else
	ktap_fail tenant_stalls_reg_mr "$(cat "$T/fuse")"
	ktap_skip_rest "the tenant could not hold REG_MR"
	ktap_finish
fi

ktap_diag "[init] $VRDMACTL dev del gs_vd &"
DEL_T0=$EPOCHREALTIME
# The del logs how long it took itself: it is looked at only later.
(
	"$VRDMACTL" dev del gs_vd
	rc=$?
	echo "returned after $(since "$DEL_T0") s, status $rc"
	exit "$rc"
) >"$T/del.out" 2>&1 &
DELPID=$!
if wait_for 30 out_has "$T/fuse" '^cut off'; then
	ktap_ok del_cuts_off "tenant: $(grep '^cut off' "$T/fuse")"
else
	ktap_fail del_cuts_off "$(cat "$T/fuse")"
fi

bounded other_family_answers "$BOUND" genl ctrl list
# gs_vd is unlisted from the start of its deletion (empty output: none left)
if bounded vrdma_dump_answers "$BOUND" "$VRDMACTL" dev show; then
	if ! grep -qw gs_vd "$T/vrdma_dump_answers.out"; then
		ktap_ok vrdma_dump_unlisted
	else
		ktap_fail vrdma_dump_unlisted "$(cat "$T/vrdma_dump_answers.out")"
	fi
else
	ktap_fail vrdma_dump_unlisted "no answer"
fi
refused_within name_still_reserved "$BOUND" 'exists' \
	"$VRDMACTL" dev add gs_vd parent "$PARENT" netns "$B"
bounded unrelated_add "$BOUND" \
	"$VRDMACTL" dev add gs_other parent "$PARENT" netns "$B"
bounded unrelated_del "$BOUND" "$VRDMACTL" dev del gs_other

if wait_for "$DEL_BOUND" gone "$DELPID"; then
	wait "$DELPID"
	rc=$?
	if [ "$rc" -eq 0 ]; then
		ktap_ok del_returns "$(cat "$T/del.out")"
	else
		ktap_fail del_returns "status $rc: $(cat "$T/del.out")"
	fi
else
	STRAYS+=("$DELPID")
	ktap_fail del_returns "still blocked after $(since "$DEL_T0") s"
fi
if ! out_has "$T/fuse" '^(released|reg_mr)' && ! gone "$TENANT"; then
	ktap_ok tenant_still_stalled
else
	ktap_fail tenant_still_stalled "$(cat "$T/fuse")"
fi

# tenant_threads - where the tenant's threads are, for a failure.
tenant_threads() {
	local t
	for t in /proc/"$TENANT"/task/*; do
		ktap_diag "thread ${t##*/}: state $(awk '{ print $3 }' "$t/stat" 2>/dev/null), wchan $(cat "$t/wchan" 2>/dev/null)" \
			"$(cat "$t/stack" 2>/dev/null)"
	done
}

in_init kill -USR1 "$TENANT"
if wait_for 60 out_has "$T/fuse" '^reg_mr' && wait_for 60 gone "$TENANT"; then
	ktap_ok released "$(cat "$T/fuse")"
else
	ktap_fail released "$(cat "$T/fuse")"
	tenant_threads
fi
reap_strays
ktap_diag "del: $(cat "$T/del.out")"

# gs_other is gone already: every vdevice of this script is freed.
if wait_for 60 vdev_count_is "$VDEVS"; then
	ktap_ok vdev_freed "$(vrdma_objects)"
else
	ktap_fail vdev_freed "$(vrdma_objects)"
fi
if wait_for 30 mon_has "$T/mon" del user gs_vd; then
	ktap_ok del_event
else
	ktap_fail del_event "$(cat "$T/mon")"
fi
check_released "$BASELINE"

if in_init "$VRDMACTL" dev add gs_vd parent "$PARENT" netns "$A" &&
   in_init "$VRDMACTL" dev del gs_vd; then
	ktap_ok name_reusable
else
	ktap_fail name_reusable
fi

if klog_clean_since "$MARK"; then
	ktap_ok klog_clean
else
	ktap_fail klog_clean
fi
ktap_finish
