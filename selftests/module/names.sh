#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vdevice names are unique host-wide, on every kernel.  vrdma addresses a
# vdevice by its name alone (vrdmactl, events, CNI records, the rdma
# cgroup's rdma.max lines); from 7.3 the RDMA core keeps names unique only
# within a network namespace, so vrdma refuses the duplicates itself:
#
#   netns A: nA, nW ── $PARENT ── netns B: (nothing, then nA again)
#
#   dev add nA ... netns B        refused, EEXIST, "a vdevice of this name"
#   dev add nA ... netns A        the same
#   dev add $PARENT ... netns B   refused, EEXIST, "an RDMA device ... has
#                                 this name"
#   dev add nW netns B while nW for A is registered with the core but not
#                                 yet on vrdma's list (the creation window,
#                                 /sys/kernel/debug/vrdma/delay/registered):
#                                 refused all the same; one nW, in A
#   rdma.max "nA hca_handle=3"    accepted: the name is one device
#   the name is free again once its vdevice is deleted, and after a
#   creation that failed (/sys/kernel/debug/vrdma/fail/register)
#
# Before the fix, on 7.3 each duplicate was created (B listed nA, nW and
# $PARENT) and rdma.max refused "nA ..." (ENOTUNIQ); on 6.1 and 6.12 the
# core refused them with vrdma's "an RDMA device with this name exists",
# which did not say what holds the name.

# shellcheck source=selftests/lib/lib.sh
. "$(dirname "$0")/lib/lib.sh"
# shellcheck source=selftests/lib/vdev.sh
. "$(dirname "$0")/lib/vdev.sh"

ktap_plan setup dup_other_ns_refused dup_other_ns_nothing_left \
	dup_same_ns_refused parent_name_refused parent_name_nothing_left \
	window_dup_refused window_one_left rdma_max_by_name \
	name_free_after_del name_free_after_failed_create klog_clean

if ! have_vrdmactl || ! require_cmd jq rdma; then
	ktap_skip_rest "vrdmactl, jq or rdma missing"
	exit 0
fi

mark=$(klog_mark)
if new_ns A a && new_ns B b && vdev_add nA "$A"; then
	ktap_ok setup
else
	ktap_fail setup
	ktap_skip_rest "setup failed"
	exit 1
fi

VDEV_MSG="a vdevice of this name exists.*File exists"
HOST_MSG="an RDMA device of the host has this name.*File exists"

# ns_dev_names NS - the RDMA devices NS lists, on one line.
ns_dev_names() {
	ip netns exec "$1" rdma dev show 2>/dev/null |
		awk '{ sub(":$", "", $2); printf "%s ", $2 }'
}

# named_vdevs NAME - how many vdevices of that name vrdma lists.
named_vdevs() {
	"$VRDMACTL" -j dev show | jq --arg n "$1" '[.[] | select(.name == $n)] | length'
}

# vdev_in NAME NS - vrdma lists exactly one NAME, and it is in NS.
vdev_in() {
	local ino
	ino=$(stat -L -c %i "/run/netns/$2") || return 1
	[ "$("$VRDMACTL" -j dev show |
	     jq -c --arg n "$1" '[.[] | select(.name == $n) | .netns.inode]')" = "[$ino]" ]
}

# lists - for a failure: what B lists and the vdevices vrdma knows.
lists() {
	echo "B lists: $(ns_dev_names "$B"); vrdma: $("$VRDMACTL" dev show 2>&1)"
}

add() {		# NAME NS - vrdmactl dev add NAME on $PARENT in NS
	in_init "$VRDMACTL" dev add "$1" parent "$PARENT" netns "$2"
}

# --- the same name in another namespace, and in the same one -----------------

refused dup_other_ns_refused "$VDEV_MSG" add nA "$B"
if [ -z "$(ns_dev_names "$B")" ] && vdev_in nA "$A"; then
	ktap_ok dup_other_ns_nothing_left
else
	ktap_fail dup_other_ns_nothing_left "$(lists)"
fi
refused dup_same_ns_refused "$VDEV_MSG" add nA "$A"

# --- the name of a device of the host ------------------------------------------

refused parent_name_refused "$HOST_MSG" add "$PARENT" "$B"
if [ -z "$(ns_dev_names "$B")" ] && [ "$(named_vdevs "$PARENT")" = 0 ]; then
	ktap_ok parent_name_nothing_left
else
	ktap_fail parent_name_nothing_left "$(lists)"
fi

# --- a second creation while the first is in its window ------------------------

# The core lists nW in A once registered; vrdma links it 3 s later.
DELAY=/sys/kernel/debug/vrdma/delay/registered
echo 3000 >"$DELAY"
echo "# [init] $VRDMACTL dev add nW parent $PARENT netns $A &  (3 s window)" >&"$KTAP_FD"
"$VRDMACTL" dev add nW parent "$PARENT" netns "$A" {KTAP_FD}>&- &
addpid=$!
cleanup_push "$VRDMACTL" dev del nW
if wait_for 10 bash -c "ip netns exec '$A' rdma dev show nW >/dev/null 2>&1"; then
	refused window_dup_refused "$VDEV_MSG" add nW "$B"
else
	ktap_fail window_dup_refused "nW never appeared in A"
fi
wait "$addpid"
addrc=$?
echo 0 >"$DELAY"
if [ "$addrc" -eq 0 ] && [ -z "$(ns_dev_names "$B")" ] && vdev_in nW "$A"; then
	ktap_ok window_one_left
else
	ktap_fail window_one_left "first add: status $addrc; $(lists)"
fi

# --- the rdma cgroup names devices by name -------------------------------------

if grep -qw rdma /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null; then
	CG=/sys/fs/cgroup/$TEST_NAME-$$
	in_init mkdir "$CG" && cleanup_push rmdir "$CG"
	in_init sh -c "echo 'nA hca_handle=3' > '$CG/rdma.max'"
	line=$(awk '$1 == "nA" { $1 = $1; print }' "$CG/rdma.max")
	ktap_check rdma_max_by_name test "$line" = "nA hca_handle=3 hca_object=max"
else
	ktap_skip rdma_max_by_name "rdma controller not enabled on /sys/fs/cgroup"
fi

# --- the name is free again ----------------------------------------------------

in_init "$VRDMACTL" dev del nA
if add nA "$B" && cleanup_push "$VRDMACTL" dev del nA &&
   vdev_in nA "$B" && [ "$(ns_dev_names "$B")" = "nA " ]; then
	ktap_ok name_free_after_del
else
	ktap_fail name_free_after_del "$(lists)"
fi

FAIL=/sys/kernel/debug/vrdma/fail/register
echo 1 >"$FAIL"
add nF "$A"
ktap_diag "dev add nF with a failing registration: status $?"
echo 0 >"$FAIL"
if add nF "$B" && cleanup_push "$VRDMACTL" dev del nF && vdev_in nF "$B"; then
	ktap_ok name_free_after_failed_create
else
	ktap_fail name_free_after_failed_create "vrdma: $("$VRDMACTL" dev show 2>&1)"
fi

if klog_clean_since "$mark"; then
	ktap_ok klog_clean
else
	ktap_fail klog_clean
fi
ktap_finish
