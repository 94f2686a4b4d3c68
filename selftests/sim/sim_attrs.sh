#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What a parent driver sees of the caller's ioctl attributes on a core
# method, natively on rdmasim and through a vdevice on it: the vdevice
# must hand the parent the caller's real bundle (kmod/udata.c), so that
#
#   - a driver attribute on a core method (rdmasim's
#     RDMASIM_ATTR_CREATE_CQ_UAR_INDEX on UVERBS_METHOD_CQ_CREATE, modelled
#     on mlx5's UAR index) reaches the parent, which vrdma declares for
#     rdmasim's vdevices (kmod/fwd_rdmasim.c) when rdmasim defines it the
#     same way;
#   - the core's UVERBS_ATTR_CREATE_CQ_BUF_UMEM (7.2+) reaches the parent,
#     which pins the buffer from the bundle (ib_umem_get_cq_buf());
#   - QUERY_CONTEXT reaches the parent's query_ucontext with the shadow
#     ucontext, and its driver attribute (rdmasim's, as mlx5's RESP_UCTX)
#     with it (kmod/verbs_ctx.c).
#
# selftests/progs/sim_attrs prints what rdmasim reported, in words that do
# not depend on the device; each vdevice line must equal the native one.
#
#   netns A: vA (on sim0)           init_net: sim0 on veth1

# shellcheck source=selftests/lib/lib.sh
. "$(dirname "$0")/lib/lib.sh"
# shellcheck source=selftests/lib/vdev.sh
. "$(dirname "$0")/lib/vdev.sh"
# shellcheck source=selftests/lib/sim.sh
. "$(dirname "$0")/lib/sim.sh"

PROG=$TOP/selftests/progs/sim_attrs
PARENT=sim0

ktap_plan setup native_driver_attr native_umem native_mandatory \
	native_bad_input native_query_context native_query_no_resp \
	vdev_driver_attr vdev_umem vdev_mandatory vdev_bad_input \
	vdev_query_context vdev_query_no_resp vdev_strict_clean \
	vdev_released klog_clean

# line CHECK FILE - what sim_attrs printed for CHECK, or "not reached".
line() {
	grep -m1 "^$1 " "$2" || echo "$1 not reached"
}

# expect NAME CHECK WANT - ok if the native line for CHECK is "CHECK WANT"
# (WANT may end in a "*" glob).
expect() {
	local l
	l=$(line "$2" "$T/native")
	# shellcheck disable=SC2254 # WANT is a pattern
	case $l in
	"$2 "$3) ktap_ok "$1" ;;
	*) ktap_fail "$1" "$l" ;;
	esac
}

# same NAME CHECK - ok if the vdevice's line for CHECK is the native one.
same() {
	local n v
	n=$(line "$2" "$T/native")
	v=$(line "$2" "$T/vdev")
	if [ "$n" = "$v" ]; then
		ktap_ok "$1" "$v"
	else
		ktap_fail "$1" "vdevice: '$v', native: '$n'"
	fi
}

mark=$(klog_mark)
tmpdir T
ktap_setup sim_up "$PROG"
base=$(sim_objects)
ktap_diag "rdmasim objects at rest: $base"

# Native: what the driver makes of each attribute
in_init "$PROG" sim0 >"$T/native" 2>&1
ktap_diag "$(cat "$T/native")"
expect native_driver_attr create_cq_uar_attr 'ok uar=attr'
case $(line create_cq_umem "$T/native") in
"create_cq_umem ok umem=unknown")
	ktap_skip native_umem "this kernel has no UVERBS_ATTR_CREATE_CQ_BUF_UMEM" ;;
"create_cq_umem ok umem=4096:SIMUMEM!")
	ktap_ok native_umem "$(line create_cq_umem "$T/native")" ;;
*)
	ktap_fail native_umem "$(line create_cq_umem "$T/native")" ;;
esac
expect native_mandatory create_cq_mandatory 'ok uar=attr'
expect native_bad_input create_cq_bad_uar 'ok *'
expect native_query_context query_context 'ok uars=2 magic=ok'
expect native_query_no_resp query_context_no_resp 'ok *'

# Through a vdevice: the same answers, rdmasim's strict checks silent
m=$(klog_mark)
sim_vdev_run A a vA "$T/vdev" "$PROG"
same vdev_driver_attr create_cq_uar_attr
if grep -q '^create_cq_umem ok umem=unknown' "$T/native"; then
	ktap_skip vdev_umem "this kernel has no UVERBS_ATTR_CREATE_CQ_BUF_UMEM"
else
	same vdev_umem create_cq_umem
fi
same vdev_mandatory create_cq_mandatory
same vdev_bad_input create_cq_bad_uar
same vdev_query_context query_context
same vdev_query_no_resp query_context_no_resp
strict_report "$m" vdev_strict_clean

# Bad input and every CQ gone: nothing left on the parent
in_init "$VRDMACTL" dev del vA >/dev/null 2>&1
check_back_to vdev_released "$base" sim_objects

ktap_check klog_clean klog_clean_since "$mark"
ktap_finish
