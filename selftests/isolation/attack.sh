#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A hostile tenant, with stock tools.  Root in a tenant's network namespace
# (CAP_NET_ADMIN in the initial user namespace, as in a pod granted
# NET_ADMIN) must not take its vdevice out of its tenancy through the RDMA
# core's own netlink, which never asks vrdma:
#
#   netns A (tenant):  vA, vA2 ── rxe0      netns S (another tenant)
#
#   rdma dev set vA netns S   the RDMA core moves it (exit 0); vrdma undoes
#                             that: the vdevice is destroyed, S keeps no
#                             RDMA device, A's monitor gets a "moved" event
#   rdma dev set vA2 name X   the same for a rename: no device keeps the
#                             name the tenant chose
#   nldev SET vA3 with netns S and name X in one request (nldev_set.py;
#                             7.3 moves and renames at once, earlier
#                             kernels act on one of the two): undone the
#                             same, no device named vA3 or X is left
#   the same rename while vrdma is still creating vW (registered with the
#                             core, not yet on vrdma's list: the window is
#                             held open by /sys/kernel/debug/vrdma/delay/
#                             registered): undone all the same
#   rdma dev set vM netns S   while the undo waits (delay/home): S's
#                             ibv_devinfo opens no context on vM, as it
#                             could not if the core's re-enable stopped
#                             before vrdma's client heard of the move
#
# Before the fix vA stayed usable in S and vA2 lived on as X; a rename in
# the creation window stayed until vrdma checked again after it; S opened
# a context on vM until the undo ran.

# shellcheck source=selftests/lib/lib.sh
. "$(dirname "$0")/lib/lib.sh"
# shellcheck source=selftests/lib/vdev.sh
. "$(dirname "$0")/lib/vdev.sh"

ktap_plan setup nldev_move_leaves_nothing_in_other_ns nldev_move_destroys \
	nldev_move_event nldev_rename_leaves_no_device nldev_rename_event \
	nldev_move_rename_leaves_nothing nldev_move_rename_event \
	rename_in_create_window_undone move_window_no_context \
	move_window_undone undo_logged klog_clean

mark=$(klog_mark)
tmpdir T || exit 1

# in_ns_devices NS NAME - NS's RDMA core lists NAME.
in_ns_devices() {
	ip netns exec "$1" rdma dev show "$2" >/dev/null 2>&1
}

# vdev_known NAME - vrdma lists NAME (from the host, which sees all).
vdev_known() {
	"$VRDMACTL" dev show "$1" >/dev/null 2>&1
}

# renamed_away NEW OLD - A's device OLD, renamed NEW from A, went away
# (within 10 s): A lists neither name and vrdma knows neither.
renamed_away() {
	wait_for 10 bash -c "! ip netns exec '$A' rdma dev show '$1' >/dev/null 2>&1" &&
		! vdev_known "$1" && ! vdev_known "$2" && ! in_ns_devices "$A" "$2"
}

# lists [NS] - for a failure: what A (and NS) lists and the vdevices vrdma
# knows.
lists() {
	printf 'A lists: %s; ' "$(ip netns exec "$A" rdma dev show)"
	[ -z "${1:-}" ] || printf 'S lists: %s; ' "$(ip netns exec "$1" rdma dev show)"
	printf 'vrdma: %s\n' "$("$VRDMACTL" dev show 2>&1)"
}

if new_ns A a && new_ns S s && vdev_add vA "$A" && vdev_add vA2 "$A" &&
   vdev_add vA3 "$A" && vdev_add vM "$A"; then
	spawn_monitor "$T/mona" -n "$A"
	mona=$!
	cleanup_push wait "$mona"
	cleanup_push kill "$mona"
fi
# The monitor must have joined its group before the events it must see
if [ -n "${mona:-}" ] && wait_for 30 monitor_listening "$T/mona"; then
	ktap_ok setup
else
	ktap_fail setup
	ktap_skip_rest "setup failed"
	exit 1
fi

# --- netns move through nldev --------------------------------------------------

in_ns "$A" rdma dev set vA netns "$S"
ktap_diag "rdma dev set vA netns: status $?"
# The core publishes the device in S before vrdma can act: allow for that.
if wait_for 10 bash -c "! ip netns exec '$S' rdma dev show vA >/dev/null 2>&1"; then
	ktap_ok nldev_move_leaves_nothing_in_other_ns
else
	ktap_fail nldev_move_leaves_nothing_in_other_ns \
		"S lists: $(ip netns exec "$S" rdma dev show)"
fi
if wait_for 10 bash -c "! '$VRDMACTL' dev show vA >/dev/null 2>&1" &&
   ! in_ns_devices "$A" vA && ! rdma dev show vA >/dev/null 2>&1; then
	ktap_ok nldev_move_destroys
else
	ktap_fail nldev_move_destroys "vrdma: $("$VRDMACTL" dev show 2>&1)"
fi
if wait_for 10 mon_has "$T/mona" del moved vA; then
	ktap_ok nldev_move_event
else
	ktap_fail nldev_move_event "monitor in A: $(cat "$T/mona" "$T/mona.err")"
fi

# --- rename through nldev ------------------------------------------------------

in_ns "$A" rdma dev set vA2 name hijacked
ktap_diag "rdma dev set vA2 name: status $?"
if renamed_away hijacked vA2; then
	ktap_ok nldev_rename_leaves_no_device
else
	ktap_fail nldev_rename_leaves_no_device "$(lists)"
	# Whatever it is called now, it must not outlive the test.
	"$VRDMACTL" dev del hijacked 2>/dev/null
fi
# The event names the device as vrdma made it, the name its creator knows
# (a rename frees the core's copy of the old name; vrdma keeps its own).
if wait_for 10 mon_has "$T/mona" del moved vA2; then
	ktap_ok nldev_rename_event
else
	ktap_fail nldev_rename_event "monitor in A: $(cat "$T/mona" "$T/mona.err")"
fi

# --- move and rename in one request ------------------------------------------

# iproute2 sends either attribute alone; the 7.3 form is built by hand.
idx=$(ip netns exec "$A" rdma -j dev show vA3 | jq '.[0].ifindex')
in_ns "$A" python3 "$TOP/selftests/lib/nldev_set.py" "$idx" netns="/run/netns/$S" name=hijack3
ktap_diag "nldev set vA3 netns S name hijack3: status $?"
# no_device_left NAME... - no namespace of the test lists one of them and
# vrdma knows none of them
no_device_left() {
	local n
	for n in "$@"; do
		in_ns_devices "$S" "$n" && return 1
		in_ns_devices "$A" "$n" && return 1
		rdma dev show "$n" >/dev/null 2>&1 && return 1
		vdev_known "$n" && return 1
	done
	return 0
}
if wait_for 10 no_device_left vA3 hijack3; then
	ktap_ok nldev_move_rename_leaves_nothing
else
	ktap_fail nldev_move_rename_leaves_nothing \
		"$(lists "$S")"
	"$VRDMACTL" dev del hijack3 2>/dev/null
fi
# likewise after a move and rename in one request
if wait_for 10 mon_has "$T/mona" del moved vA3; then
	ktap_ok nldev_move_rename_event
else
	ktap_fail nldev_move_rename_event "monitor in A: $(cat "$T/mona" "$T/mona.err")"
fi

# --- rename while vrdma is creating the vdevice --------------------------------

# The core lists vW in A once registered; vrdma links it 3 s later.
DELAY=/sys/kernel/debug/vrdma/delay/registered
echo 3000 >"$DELAY"
echo "# [init] $VRDMACTL dev add vW parent $PARENT netns $A &  (3 s window)" >&"$KTAP_FD"
"$VRDMACTL" dev add vW parent "$PARENT" netns "$A" {KTAP_FD}>&- &
addpid=$!
if wait_for 10 in_ns_devices "$A" vW; then
	in_ns "$A" rdma dev set vW name hijackw
	ktap_diag "rdma dev set vW name (in the window): status $?"
fi
wait "$addpid"
ktap_diag "vrdmactl dev add vW: status $?"
echo 0 >"$DELAY"
if renamed_away hijackw vW; then
	ktap_ok rename_in_create_window_undone
else
	ktap_fail rename_in_create_window_undone "$(lists)"
fi
"$VRDMACTL" dev del hijackw 2>/dev/null
"$VRDMACTL" dev del vW 2>/dev/null

# --- a context opened on a moved vdevice before the undo ----------------------

# The core has moved vM into S; vrdma's undo waits 3 s.
DELAY=/sys/kernel/debug/vrdma/delay/home
echo 3000 >"$DELAY"
echo "# [init] echo 3000 > $DELAY" >&"$KTAP_FD"
in_ns "$A" rdma dev set vM netns "$S"
ktap_diag "rdma dev set vM netns (3 s window): status $?"
if ! in_ns_devices "$S" vM; then
	ktap_fail move_window_no_context "S does not list vM: the window closed early"
elif in_ns "$S" ibv_devinfo -d vM >"$T/devinfo" 2>&1; then
	ktap_fail move_window_no_context "S opened vM: $(head -n 3 "$T/devinfo")"
else
	ktap_diag "ibv_devinfo in S: $(head -n 1 "$T/devinfo")"
	ktap_ok move_window_no_context
fi
echo 0 >"$DELAY"
if wait_for 10 no_device_left vM; then
	ktap_ok move_window_undone
else
	ktap_fail move_window_undone \
		"S lists: $(ip netns exec "$S" rdma dev show); vrdma: $("$VRDMACTL" dev show 2>&1)"
	"$VRDMACTL" dev del vM 2>/dev/null
fi

if dmesg | tail -n "+$((mark + 1))" | grep -q "vrdma: vA: moved to another network namespace" &&
   dmesg | tail -n "+$((mark + 1))" | grep -q "vrdma: hijacked: renamed"; then
	ktap_ok undo_logged
else
	ktap_fail undo_logged "$(dmesg | tail -n "+$((mark + 1))" | grep vrdma)"
fi

if klog_clean_since "$mark"; then
	ktap_ok klog_clean
else
	ktap_fail klog_clean
fi
ktap_finish
