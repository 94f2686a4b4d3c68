#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Error paths, exercised: the fault injection knobs
# /sys/kernel/debug/vrdma/fail/<point> make the next creation of a shadow
# object (ucontext, pd, cq, qp, srq, mr, mw, ah), the next vdevice
# registration or the next netns placement fail.  Each failure must reach
# the caller as an error and unwind completely: the module's object
# counters, the vdevice's quota usage and the parent's `rdma res` counts
# are back where they were, and the same operation then succeeds.
#
#   netns A: lc_f on $PARENT, used by selftests/progs/vrdma_user objects

# shellcheck source=selftests/lib/lib.sh
. "$(dirname "$0")/lib/lib.sh"
# shellcheck source=selftests/lib/vdev.sh
. "$(dirname "$0")/lib/vdev.sh"

USERPROG=$TOP/selftests/progs/vrdma_user
FAIL_DIR=/sys/kernel/debug/vrdma/fail
SHADOWS="ucontext pd cq qp srq mr mw ah"

plan=(setup objects_work)
for p in $SHADOWS register netns; do
	plan+=("${p}_fails" "${p}_unwound")
done
plan+=(knobs_consumed klog_clean)
ktap_plan "${plan[@]}"

if ! require_cmd jq rdma || ! have_vrdmactl || [ ! -x "$USERPROG" ] ||
   [ ! -d "$FAIL_DIR" ]; then
	ktap_skip_rest "tools or fault knobs missing"
	ktap_finish
fi

MARK=$(klog_mark)
tmpdir T
# No knob may stay armed for the scripts that follow.
disarm() {
	local f
	for f in "$FAIL_DIR"/*; do
		echo 0 >"$f"
	done
}
cleanup_push disarm

# usage_zero NAME - the vdevice's quota usage is zero for every resource.
usage_zero() {
	[ "$("$VRDMACTL" -j dev show "$1" |
		jq '[.[0].usage | to_entries[] | .value] | add')" = 0 ]
}

# unwound - no shadow left, usage zero, the parent back at its baseline.
unwound() {
	vrdma_shadows_zero && usage_zero lc_f && parent_res_is "$BASELINE"
}

# arm POINT - fail the next pass through POINT.
arm() {
	echo "# [init] echo 1 > $FAIL_DIR/$1" >&"$KTAP_FD"
	echo 1 >"$FAIL_DIR/$1"
}

# setup - namespace A with the vdevice lc_f.
setup() {
	new_ns A a && vdev_add lc_f "$A"
}
ktap_setup setup
BASELINE=$(parent_res)
VDEVS=$(vdev_count)

if in_ns "$A" "$USERPROG" -d lc_f -g "$GIDX" objects >"$T/ok" 2>&1 &&
   wait_for 20 unwound; then
	ktap_ok objects_work
else
	ktap_fail objects_work "$(cat "$T/ok")"
fi

for p in $SHADOWS; do
	arm "$p"
	in_ns "$A" "$USERPROG" -d lc_f -g "$GIDX" objects >"$T/$p" 2>&1
	rc=$?
	if [ "$rc" = 1 ] && grep -q "^create $p failed errno=[1-9]" "$T/$p"; then
		ktap_ok "${p}_fails" "$(grep '^create' "$T/$p" | tr '\n' ' ')"
	else
		ktap_fail "${p}_fails" "status $rc: $(cat "$T/$p")"
	fi
	if wait_for 20 unwound &&
	   in_ns "$A" "$USERPROG" -d lc_f -g "$GIDX" objects >"$T/$p.after" 2>&1 &&
	   wait_for 20 unwound; then
		ktap_ok "${p}_unwound"
	else
		ktap_fail "${p}_unwound" "$(vrdma_objects) usage $("$VRDMACTL" -j dev show lc_f | jq -c '.[0].usage') parent $(parent_res) baseline $BASELINE"
	fi
done

for p in register netns; do
	arm "$p"
	if out=$(in_init "$VRDMACTL" dev add "lc_f_$p" parent "$PARENT" netns "$A" 2>&1); then
		cleanup_push "$VRDMACTL" dev del "lc_f_$p"
		ktap_fail "${p}_fails" "dev add succeeded: $out"
	else
		ktap_ok "${p}_fails" "$out"
	fi
	if [ "$(vdev_count)" = "$VDEVS" ] && ! rdma dev show "lc_f_$p" >/dev/null 2>&1 &&
	   ! ns_devices "$A" | grep -qx "lc_f_$p" &&
	   ! "$VRDMACTL" dev show "lc_f_$p" >/dev/null 2>&1 &&
	   vdev_add "lc_f_$p" "$A" && [ "$(vdev_count)" = $((VDEVS + 1)) ] &&
	   in_init "$VRDMACTL" dev del "lc_f_$p" && [ "$(vdev_count)" = "$VDEVS" ]; then
		ktap_ok "${p}_unwound"
	else
		ktap_fail "${p}_unwound" "$(vrdma_objects); $(rdma dev)"
	fi
done

if ! grep -hvq '^0$' "$FAIL_DIR"/*; then
	ktap_ok knobs_consumed
else
	ktap_fail knobs_consumed "$(grep . "$FAIL_DIR"/*)"
fi

ktap_check klog_clean klog_clean_since "$MARK"

ktap_finish
