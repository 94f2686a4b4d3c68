#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Stock libmlx5 on rdmasim's mlx5 personality (selftests/rdmasim/mlx5.c:
# driver id MLX5, mlx5's user ABI), natively and through a vdevice of it,
# so that vrdma's mlx5 path (kmod/fwd_mlx5.c) runs with no ConnectX.
#
#   netns V: vM (on simmlx)            init_net: simmlx on svm0a (veth)
#
# Natively, Debian 12's unmodified libmlx5 (rdma-core 44) binds the
# device by its driver id and opens it: ibv_devinfo and ibv_devinfo -v
# work, and selftests/progs/sim_mlx5 checks what it opened (the CQE
# version, mlx5's firmware version encoding, the NC UAR libmlx5
# allocated and mapped at an offset in mlx5's encoding, a BlueFlame UAR
# and mappings at offsets never handed out refused as mlx5_ib refuses
# them without write-combining, a PD's pdn, an imported context and PD
# (RESP_UCTX and PD_QUERY), a CQ with mlx5's driver data, sized
# entries - 1 exactly, and one past max_cqe refused).  libmlx5 asks for
# a DEVX context first; the personality refuses it as mlx5_ib does on
# firmware without DEVX, and counts it (debugfs rdmasim/mlx5:
# devx_asked), and libmlx5 opens without it.
#
# Through the vdevice the same checks pass, and the parent is never asked
# for a DEVX context (devx_asked does not move) while libmlx5 opens
# normally: a tenant's shadow context must not get a DEVX uid, a firmware
# privilege vrdma does not forward.  An explicit DEVX open
# (mlx5dv_open_device) is refused through the vdevice as natively.  Then
# rdmasim's and vrdma's counts come back to rest, no strict check fires,
# and the kernel log is clean.

# shellcheck source=selftests/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=selftests/lib-vdev.sh
. "$(dirname "$0")/lib-vdev.sh"
# shellcheck source=selftests/lib-sim.sh
. "$(dirname "$0")/lib-sim.sh"

PROG=$TOP/selftests/progs/sim_mlx5
VARIANT=/sys/module/rdmasim/parameters/variant
MLX5DBG=$SIMDBG/mlx5
PARENT=simmlx

ktap_plan setup native_devinfo native_devinfo_verbose native_libmlx5 \
	native_devx_refused_counted native_devx_open_refused native_released \
	vdev_devinfo vdev_devinfo_alike vdev_libmlx5 vdev_no_devx_to_parent \
	vdev_devx_open_refused vdev_released strict_clean klog_clean

# mlx5_count NAME - the personality's counter NAME (debugfs rdmasim/mlx5)
mlx5_count() {
	awk -v n="$1" '$1 == n { print $2 }' "$MLX5DBG"
}

# devinfo NS|init DEV [ARG...] - ibv_devinfo -d DEV ARGs in NS; its exit
# status on the first line, then its output
devinfo() {
	local ns=$1 dev=$2 out rc
	shift 2
	if [ "$ns" = init ]; then
		out=$(in_init ibv_devinfo -d "$dev" "$@" 2>&1)
	else
		out=$(in_ns "$ns" ibv_devinfo -d "$dev" "$@" 2>&1)
	fi
	rc=$?
	printf 'rc=%s\n%s\n' "$rc" "$out"
}

# devinfo_ok OUT - an ibv_devinfo output of a libmlx5 device (libmlx5
# prints the firmware version from mlx5's encoding, 1.0.0001), opened
devinfo_ok() {
	[ "$(head -n 1 <<<"$1")" = rc=0 ] &&
		grep -qE '^[[:space:]]*fw_ver:[[:space:]]+1\.0\.0001$' <<<"$1" &&
		grep -qE '^[[:space:]]*state:[[:space:]]+PORT_ACTIVE' <<<"$1"
}

# devinfo_masked OUT - OUT without what differs between a device and its
# vdevice by design: the name, the GUIDs, the limits vrdma reports
devinfo_masked() {
	grep -vE 'hca_id:|node_guid:|sys_image_guid:|max_(qp|cq|mr|pd|srq|ah|mw)[[:space:]]*:' <<<"$1"
}

# prog_ok OUT - every step of sim_mlx5 passed
prog_ok() {
	local step
	for step in provider open dv_query query_device nc_uar bf_uar \
		mmap_refused alloc_pd import_device import_pd create_cq \
		cq_too_big; do
		grep -q "^$step ok" <<<"$1" || return 1
	done
	! grep -q ' err ' <<<"$1"
}

mark=$(klog_mark)
if [ -x "$PROG" ] && [ -r "$SIM_KO" ] && load_modules &&
	{ [ -d /sys/module/rdmasim ] || in_init insmod "$SIM_KO"; } &&
	cleanup_push rmmod rdmasim && new_ns V v &&
	in_init ip link add svm0a type veth peer name svm0b &&
	cleanup_push ip link del svm0a &&
	in_init ip link set svm0a up && in_init ip link set svm0b up &&
	echo mlx5 >"$VARIANT" &&
	in_init rdma link add "$PARENT" type rdmasim netdev svm0a; then
	echo roce >"$VARIANT"
	cleanup_push rdma link del "$PARENT"
	ktap_ok setup
else
	echo roce >"$VARIANT" 2>/dev/null
	ktap_fail setup "$(rdma dev 2>&1)"
	ktap_skip_rest "setup failed"
	ktap_finish
fi
strict0=$(cat "$SIMDBG/strict")
base=$(sim_objects)
ktap_diag "rdmasim at rest: $base"

# --- natively ---------------------------------------------------------------

devx0=$(mlx5_count devx_asked)
uctx0=$(mlx5_count ucontexts)
out=$(devinfo init "$PARENT")
devx1=$(mlx5_count devx_asked)
uctx1=$(mlx5_count ucontexts)
ktap_diag "$out"
if devinfo_ok "$out"; then
	ktap_ok native_devinfo
else
	ktap_fail native_devinfo
fi
out=$(devinfo init "$PARENT" -v)
native_info_v=$out
if devinfo_ok "$out" && grep -qE '^[[:space:]]*max_qp:[[:space:]]+[1-9]' <<<"$out"; then
	ktap_ok native_devinfo_verbose "$(wc -l <<<"$out") lines"
else
	ktap_fail native_devinfo_verbose "$out"
fi

out=$(in_init "$PROG" "$PARENT" 2>&1)
rc=$?
ktap_diag "$out"
if [ "$rc" = 0 ] && prog_ok "$out"; then
	ktap_ok native_libmlx5
else
	ktap_fail native_libmlx5 "exit $rc"
fi
native_devx=$(grep '^devx_open' <<<"$out")

# One ibv_devinfo: libmlx5 asked for DEVX (with each request length it
# retries), was refused, and opened one context without it
if [ "$((devx1 - devx0))" -gt 0 ] && [ "$((uctx1 - uctx0))" = 1 ]; then
	ktap_ok native_devx_refused_counted "one open: $((devx1 - devx0)) DEVX requests refused, $((uctx1 - uctx0)) context opened"
else
	ktap_fail native_devx_refused_counted "one open: devx_asked $devx0 -> $devx1, ucontexts $uctx0 -> $uctx1"
fi
if [[ $native_devx == "devx_open refused "* ]]; then
	ktap_ok native_devx_open_refused "$native_devx"
else
	ktap_fail native_devx_open_refused "$native_devx"
fi
if wait_for 10 sim_objects_is "$base"; then
	ktap_ok native_released
else
	ktap_fail native_released "now: $(sim_objects), at rest: $base"
fi

# --- through a vdevice ------------------------------------------------------

vbase=$(vrdma_objects)
if vdev_add vM "$V"; then
	devx0=$(mlx5_count devx_asked)
	uctx0=$(mlx5_count ucontexts)
	out=$(devinfo "$V" vM)
	ktap_diag "$out"
	if devinfo_ok "$out"; then
		ktap_ok vdev_devinfo
	else
		ktap_fail vdev_devinfo
	fi
	vout=$(devinfo "$V" vM -v)
	diffs=$(diff <(devinfo_masked "$native_info_v") <(devinfo_masked "$vout"))
	if devinfo_ok "$vout" && [ -z "$diffs" ]; then
		ktap_ok vdev_devinfo_alike "ibv_devinfo -v as natively, but for names, GUIDs and limits"
	else
		ktap_fail vdev_devinfo_alike "$diffs"
	fi
	out=$(in_ns "$V" "$PROG" vM 2>&1)
	rc=$?
	devx1=$(mlx5_count devx_asked)
	uctx1=$(mlx5_count ucontexts)
	ktap_diag "$out"
	if [ "$rc" = 0 ] && prog_ok "$out"; then
		ktap_ok vdev_libmlx5
	else
		ktap_fail vdev_libmlx5 "exit $rc"
	fi
	# ibv_devinfo twice and sim_mlx5's open: three shadow contexts
	if [ "$devx1" = "$devx0" ] && [ "$((uctx1 - uctx0))" -ge 3 ]; then
		ktap_ok vdev_no_devx_to_parent "parent: 0 DEVX requests, $((uctx1 - uctx0)) contexts opened"
	else
		ktap_fail vdev_no_devx_to_parent "parent: $((devx1 - devx0)) DEVX requests, $((uctx1 - uctx0)) contexts opened"
	fi
	vdevx=$(grep '^devx_open' <<<"$out")
	if [[ $vdevx == "devx_open refused "* ]] && [ "$vdevx" = "$native_devx" ]; then
		ktap_ok vdev_devx_open_refused "$vdevx"
	else
		ktap_fail vdev_devx_open_refused "vdevice: '$vdevx', natively: '$native_devx'"
	fi
	in_init "$VRDMACTL" dev del vM >/dev/null
	if wait_for 10 sim_objects_is "$base" && wait_for 10 vrdma_objects_is "$vbase"; then
		ktap_ok vdev_released "rdmasim: $(sim_objects); vrdma: $(vrdma_objects)"
	else
		ktap_fail vdev_released "rdmasim: $(sim_objects) (at rest: $base); vrdma: $(vrdma_objects) (before: $vbase)"
	fi
else
	ktap_fail vdev_devinfo "vM not created"
	for t in vdev_devinfo_alike vdev_libmlx5 vdev_no_devx_to_parent \
		vdev_devx_open_refused vdev_released; do
		ktap_skip "$t" "no vdevice"
	done
fi

ktap_diag "strict checks: $strict0 -> $(cat "$SIMDBG/strict")"
strict_report "$mark" strict_clean
if klog_clean_since "$mark"; then
	ktap_ok klog_clean
else
	ktap_fail klog_clean
fi
ktap_finish
