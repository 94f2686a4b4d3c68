#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The vrdma demo (make demo): two containers share one RDMA device.
#
#   container "blue"  (netns)  vblue ──┐
#                                      ├── rxe0 (host, veth0 10.99.0.1)
#   container "green" (netns)  vgreen ─┘
#
# Each container gets its own virtual RDMA device on the same parent, sees
# only that device, and runs unmodified rdma-core and perftest programs
# against it.  The two exchange QP numbers over a veth of their own and
# then talk RDMA through their vdevices.  Exits non-zero if any step fails.

# shellcheck source=selftests/lib/lib.sh
. "$(dirname "$0")/../lib/lib.sh"
# shellcheck source=selftests/lib/vdev.sh
. "$(dirname "$0")/../lib/vdev.sh"

STEPS_OK=0
STEPS_FAILED=0
SUMMARY=()

say() {
	printf '\n== %s\n' "$*"
}

# step WHAT CMD... - run CMD, remember whether WHAT worked.
step() {
	local what=$1
	shift
	if "$@"; then
		STEPS_OK=$((STEPS_OK + 1))
		SUMMARY+=("  ok    $what")
	else
		STEPS_FAILED=$((STEPS_FAILED + 1))
		SUMMARY+=("  FAIL  $what")
	fi
}

# show NS - what a container (or the host, NS "init") sees.
show() {
	local ns=$1 run=()

	[ "$ns" = init ] || run=(ip netns exec "$ns")
	echo "-- ibv_devices:"
	"${run[@]}" ibv_devices | sed 's/^/     /'
	echo "-- rdma dev:"
	"${run[@]}" rdma dev | sed 's/^/     /'
	echo "-- /sys/class/infiniband:"
	echo "     $("${run[@]}" ls /sys/class/infiniband | tr '\n' ' ')"
}

# sees_only NS DEV - NS ("init" for the host) lists exactly DEV.
sees_only() {
	local seen

	if [ "$1" = init ]; then
		seen=$(ibv_devices | awk 'NR > 2 { print $1 }')
	else
		seen=$(ns_devices "$1")
	fi
	[ "${seen//$'\n'/ }" = "$2" ]
}

# pingpong - ibv_rc_pingpong with payload checking, blue serves green.
pingpong() {
	rdma_pair "$T" pingpong "$BLUE" "$GREEN" "$OOB_NET.1.1" 18515 \
		"ibv_rc_pingpong -d vblue -g $GIDX -n 1000 -s 4096 -c" \
		"ibv_rc_pingpong -d vgreen -g $GIDX -n 1000 -s 4096 -c" || return 1
	sed 's/^/     /' "$T/pingpong.cli"
}

# write_bw - perftest RDMA WRITE bandwidth in duration mode.  Under TCG
# only duration mode gives believable figures (see DESIGN.md).
write_bw() {
	rdma_pair "$T" write_bw "$BLUE" "$GREEN" "$OOB_NET.1.1" 18516 \
		"ib_write_bw -F -d vblue -x $GIDX -s 65536 -D 5" \
		"ib_write_bw -F -d vgreen -x $GIDX -s 65536 -D 5" || return 1
	sed -n '/#bytes/,$p' "$T/write_bw.cli" | sed 's/^/     /'
	echo "     (a TCG guest: absolute figures mean little; 'make bench' compares"
	echo "      vdevices with the native parent, checked against wall-clock time)"
}

tmpdir T
baseline=$(parent_res)

say "The host has one RDMA device, the parent:"
show init

say "Create two containers (network namespaces) with a vdevice each on $PARENT"
step "create container blue" new_ns BLUE blue
step "create container green" new_ns GREEN green
# The applications exchange QP numbers over TCP: give the pair a link.
step "link the containers for the QP exchange" link_ns "$BLUE" "$GREEN" 1
step "vrdmactl dev add vblue" vdev_add vblue "$BLUE"
step "vrdmactl dev add vgreen" vdev_add vgreen "$GREEN"

say "vrdmactl dev show (on the host)"
"$VRDMACTL" dev show

say "Container blue sees:"
show "$BLUE"
say "Container green sees:"
show "$GREEN"
say "The host sees:"
show init

step "blue sees only vblue" sees_only "$BLUE" vblue
step "green sees only vgreen" sees_only "$GREEN" vgreen
step "the host sees only $PARENT" sees_only init "$PARENT"

say "RDMA traffic, blue <-> green: ibv_rc_pingpong, 1000 x 4 KiB, payload checked"
step "ibv_rc_pingpong blue <-> green" pingpong

say "RDMA WRITE bandwidth, blue <-> green: ib_write_bw -s 65536 -D 5"
step "ib_write_bw blue <-> green" write_bw

say "Every shadow object on the parent is gone again:"
echo "     before: $baseline"
echo "     now:    $(parent_res)"
step "parent resources back to baseline" wait_for 20 parent_res_is "$baseline"

say "Summary"
printf '%s\n' "${SUMMARY[@]}"
echo "  $STEPS_OK steps ok, $STEPS_FAILED failed"
[ "$STEPS_FAILED" -eq 0 ]
