#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The rdma cgroup (v2) binds a container's processes on its vdevice.
#
#   cgroup /sys/fs/cgroup/cgroup-PID: rdma.max "vc hca_handle=2 hca_object=5"
#     holders h1 h2 h3 (progs/quota_obj) ─┐
#   root cgroup: holder hr ───────────────┼── vc in netns C, on rxe0
#
# The RDMA core charges every context (hca_handle) and every verbs object
# (hca_object) of a vdevice to the caller's cgroup under the vdevice's
# name: the limits bind the cgroup's processes only, rdma.current is exact,
# refusals are EAGAIN, and all of it is uncharged at exit, on kill -9, and
# when the vdevice goes away.  vrdma's per-type limits apply on top.

# shellcheck source=selftests/lib/lib.sh
. "$(dirname "$0")/lib/lib.sh"
# shellcheck source=selftests/lib/vdev.sh
. "$(dirname "$0")/lib/vdev.sh"
# shellcheck source=selftests/lib/quota.sh
. "$(dirname "$0")/lib/quota.sh"

ktap_plan setup vdev_listed_in_rdma_max rdma_max_set handle_limit_binds \
	object_limit_binds current_exact other_cgroup_unbound \
	uncharged_at_exit uncharged_on_kill9 vrdma_limit_on_top \
	uncharged_on_vdev_del kernel_log_clean

if ! have_vrdmactl || ! require_cmd jq || [ ! -x "$QUOTA_OBJ" ]; then
	ktap_skip_rest "vrdmactl, jq or quota_obj missing"
	exit 0
fi
if ! grep -qw rdma /sys/fs/cgroup/cgroup.subtree_control; then
	ktap_skip_rest "rdma controller not enabled on /sys/fs/cgroup"
	exit 0
fi

mark=$(klog_mark)
CG=/sys/fs/cgroup/$TEST_NAME-$$
new_ns C c || exit 1
# Pushed first, so it runs last: after every holder is gone.
if in_init mkdir "$CG" && cleanup_push rmdir "$CG" && vdev_add vc "$C"; then
	ktap_ok setup
else
	ktap_fail setup
	ktap_skip_rest "no cgroup or vdevice"
	exit 1
fi

# cg_line FILE - the line of rdma.FILE for vc, without the trailing blank.
cg_line() {
	awk '$1 == "vc" { $1 = $1; print }' "$CG/rdma.$1"
}
# current_is EXPECTED - rdma.current for vc is "vc EXPECTED" (for wait_for).
current_is() {
	[ "$(cg_line current)" = "vc $1" ]
}

if [ "$(cg_line max)" = "vc hca_handle=max hca_object=max" ] &&
   current_is "hca_handle=0 hca_object=0"; then
	ktap_ok vdev_listed_in_rdma_max
else
	ktap_fail vdev_listed_in_rdma_max "max '$(cg_line max)', current '$(cg_line current)'"
fi

# What a container runtime does: a limit per device name.
in_init sh -c "echo 'vc hca_handle=2 hca_object=5' > '$CG/rdma.max'"
ktap_check rdma_max_set test "$(cg_line max)" = "vc hca_handle=2 hca_object=5"

# Two contexts fit, a third is refused.
HOLDER_CG=$CG
ok=0
if holder_start h1 "$C" vc && holder_start h2 "$C" vc &&
   current_is "hca_handle=2 hca_object=0"; then
	if holder_start h3 "$C" vc; then
		ktap_diag "a third context was allowed"
	elif [ "${H_FIRST[h3]}" = "error open err=EAGAIN" ]; then
		ok=1
	fi
fi
if [ "$ok" = 1 ]; then
	ktap_ok handle_limit_binds
else
	ktap_fail handle_limit_binds "current '$(cg_line current)'"
fi

# Five objects of any types, across both holders; the sixth is refused
# with EAGAIN (the cgroup's errno; vrdma's own limits say EDQUOT).
out1=$(holder_cmd h1 alloc pd 3)
out2=$(holder_cmd h2 alloc mr 5)	# its PD first, then one MR fits
if [ "$out1" = "alloc ok=3 err=0" ] && [ "$out2" = "alloc ok=1 err=EAGAIN" ] &&
   [ "$(holder_cmd h1 alloc cq 1)" = "alloc ok=0 err=EAGAIN" ]; then
	ktap_ok object_limit_binds
else
	ktap_fail object_limit_binds
fi
ktap_check current_exact current_is "hca_handle=2 hca_object=5"

# A process of another cgroup is not bound by this one's limits.
HOLDER_CG=
if holder_start hr "$C" vc && [ "$(holder_cmd hr alloc pd 8)" = "alloc ok=8 err=0" ] &&
   current_is "hca_handle=2 hca_object=5" && holder_quit hr; then
	ktap_ok other_cgroup_unbound
else
	ktap_fail other_cgroup_unbound
fi
HOLDER_CG=$CG

# Exit without destroying anything: the kernel uncharges.
ok=0
if holder_eof h1 && wait_for 60 current_is "hca_handle=1 hca_object=2"; then
	# room again: the freed handle and objects can be used
	holder_start h3 "$C" vc && [ "$(holder_cmd h3 alloc qp 1)" = "alloc ok=1 err=0" ] &&
		current_is "hca_handle=2 hca_object=5" && ok=1
fi
ktap_check uncharged_at_exit test "$ok" = 1

holder_kill h2
holder_kill h3
ktap_check uncharged_on_kill9 wait_for 60 current_is "hca_handle=0 hca_object=0"

# Both layers: the cgroup allows 100 objects, vrdma 1 QP.  The refused QP
# leaves no cgroup charge behind.
ok=0
in_init sh -c "echo 'vc hca_object=100' > '$CG/rdma.max'"
if in_init "$VRDMACTL" dev set vc qp 1 && holder_start h4 "$C" vc; then
	out=$(holder_cmd h4 alloc qp 3)
	# PD + CQ + one QP
	[ "$out" = "alloc ok=1 err=EDQUOT" ] && current_is "hca_handle=1 hca_object=3" &&
		[ "$(usage_of vc qp)" = 1 ] && holder_quit h4 &&
		current_is "hca_handle=0 hca_object=0" && ok=1
fi
ktap_check vrdma_limit_on_top test "$ok" = 1

# Deleting the vdevice under a user uncharges everything and drops its
# line from the cgroup files.
ok=0
if holder_start h5 "$C" vc && [ "$(holder_cmd h5 alloc pd 2)" = "alloc ok=2 err=0" ] &&
   current_is "hca_handle=1 hca_object=2"; then
	in_init "$VRDMACTL" dev del vc
	if wait_for 60 vrdma_objects_zero && [ -z "$(cg_line current)" ] &&
	   [ -z "$(cg_line max)" ]; then
		ok=1
	fi
	holder_eof h5 && wait_for 60 vrdma_shadows_zero || ok=0
fi
ktap_check uncharged_on_vdev_del test "$ok" = 1

ktap_diag "cgroup.sh took $SECONDS s"
ktap_check kernel_log_clean klog_clean_since "$mark"
ktap_finish
