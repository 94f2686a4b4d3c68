#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Who may do what on the control path.  Changing vdevices needs
# CAP_NET_ADMIN in the initial user namespace; a container root (root of
# its own user namespace, owning its network namespace) is refused with
# EPERM even for the vdevice in its own netns.  Listing is open to all but
# shows only the caller's netns's vdevices; the host sees all.
#
#   netns A (init userns):  vA ─┐
#   netns B (init userns):  vB ─┼── all on rxe0
#   container C (own userns + netns, "unshare -Urn"): vC ─┘
#   netns B:                vP2 on rxepv (on a dummy netdev); netns N: none
#
# (badinput.sh already checks that "unshare -Urn vrdmactl dev add" fails.)

# shellcheck source=selftests/lib/lib.sh
. "$(dirname "$0")/lib/lib.sh"
# shellcheck source=selftests/lib/vdev.sh
. "$(dirname "$0")/lib/vdev.sh"

ktap_plan setup container_add_own_netns_refused container_set_own_refused \
	container_del_own_refused container_lists_only_own \
	container_cannot_see_other userns_set_refused userns_del_refused \
	unprivileged_user_refused unprivileged_user_may_list \
	netns_lists_only_own netns_parent_counts_own netns_set_other_refused \
	netns_root_set_own_refused host_lists_all refusals_changed_nothing \
	netns_parents_only_own netns_without_vdevice_no_parent \
	host_lists_all_parents klog_clean

mark=$(klog_mark)
new_ns A a && new_ns B b || exit 1

# The container: a process in its own user and network namespace.
unshare -Urn sleep 600 &
CPID=$!
cleanup_push kill "$CPID"
wait_for 10 bash -c "[ \"\$(readlink /proc/$CPID/ns/user)\" != \"\$(readlink /proc/self/ns/user)\" ]" ||
	exit 1

if vdev_add vA "$A" qp 7 && vdev_add vB "$B" &&
   in_init "$VRDMACTL" dev add vC parent "$PARENT" netns-pid "$CPID"; then
	cleanup_push "$VRDMACTL" dev del vC
	ktap_ok setup
else
	ktap_fail setup
	ktap_skip_rest "setup failed"
	exit 1
fi
before=$("$VRDMACTL" -j dev show | jq -c '[.[] | {name, limits}]')

# in_container CMD... - run CMD as the container's root, in its namespaces.
in_container() {
	echo "# [container $CPID] $*" >&"$KTAP_FD"
	nsenter -t "$CPID" -U -n "$@"
}

# names CMD... - the vdevice names "CMD -j dev show" lists, sorted, on a line.
names() {
	"$@" -j dev show | jq -r '.[].name' | sort | xargs
}

# matches NAME WANT CMD... - ok if "CMD -j dev show" lists exactly WANT.
matches() {
	local name=$1 want=$2 got
	shift 2
	got=$(names "$@")
	if [ "$got" = "$want" ]; then
		ktap_ok "$name" "lists: $got"
	else
		ktap_fail "$name" "lists '$got', expected '$want'"
	fi
}

EPERM="not permitted|EPERM"

refused container_add_own_netns_refused "$EPERM" \
	in_container "$VRDMACTL" dev add vX parent "$PARENT" netns-pid 1
refused container_set_own_refused "$EPERM" \
	in_container "$VRDMACTL" dev set vC qp 1
refused container_del_own_refused "$EPERM" \
	in_container "$VRDMACTL" dev del vC
matches container_lists_only_own vC in_container "$VRDMACTL"
refused container_cannot_see_other "no such vrdma device" \
	in_container "$VRDMACTL" dev show vA

# A fresh user namespace in init_net: sees everything, may change nothing.
refused userns_set_refused "$EPERM" \
	in_init unshare -Ur "$VRDMACTL" dev set vA qp 1
refused userns_del_refused "$EPERM" \
	in_init unshare -Ur "$VRDMACTL" dev del vA

# An ordinary user of the host.
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)
refused unprivileged_user_refused "$EPERM" \
	in_init "${NOBODY[@]}" "$VRDMACTL" dev set vA qp 1
matches unprivileged_user_may_list "vA vB vC" "${NOBODY[@]}" "$VRDMACTL"

# Real root, but inside netns A: only vA is in sight, so only vA can change.
matches netns_lists_only_own vA in_ns "$A" "$VRDMACTL"
count=$(in_ns "$A" "$VRDMACTL" -j parent show |
	jq -r --arg p "$PARENT" '.[] | select(.name == $p) | .vdev_count')
if [ "$count" = 1 ]; then
	ktap_ok netns_parent_counts_own
else
	ktap_fail netns_parent_counts_own "vdev_count '$count' in A"
	in_ns "$A" "$VRDMACTL" -j parent show | sed 's/^/# /' >&"$KTAP_FD"
fi
refused netns_set_other_refused "$EPERM" \
	in_ns "$A" "$VRDMACTL" dev set vB qp 1
# Even for its own vdevice: a container granted CAP_NET_ADMIN without a
# user namespace must not raise its own limits.
refused netns_root_set_own_refused "$EPERM" \
	in_ns "$A" "$VRDMACTL" dev set vA qp 7

matches host_lists_all "vA vB vC" in_init "$VRDMACTL"

after=$("$VRDMACTL" -j dev show | jq -c '[.[] | {name, limits}]')
if [ "$before" = "$after" ]; then
	ktap_ok refusals_changed_nothing
else
	ktap_fail refusals_changed_nothing "before: $before, after: $after"
fi

# Parents: a namespace sees only those of its own vdevices.  rxepv, a
# second parent on a dummy netdev, carries only vP2, in B; netns N has no
# vdevice.
parents() {	# CMD... - the parent names "CMD -j parent show" lists, sorted
	"$@" -j parent show | jq -r '.[].name' | sort | xargs
}
if in_init ip link add pvdum0 type dummy &&
   cleanup_push ip link del pvdum0 &&
   in_init ip link set pvdum0 up &&
   in_init rdma link add rxepv type rxe netdev pvdum0 &&
   cleanup_push rdma link del rxepv &&
   PARENT=rxepv vdev_add vP2 "$B" && new_ns N n; then
	got=$(parents in_ns "$A" "$VRDMACTL")
	if [ "$got" = "$PARENT" ]; then
		ktap_ok netns_parents_only_own "A: $got"
	else
		ktap_fail netns_parents_only_own "A lists '$got', expected '$PARENT'"
	fi
	got=$(parents in_ns "$N" "$VRDMACTL")
	if [ -z "$got" ]; then
		ktap_ok netns_without_vdevice_no_parent
	else
		ktap_fail netns_without_vdevice_no_parent "N lists '$got'"
	fi
	got=$(parents in_init "$VRDMACTL")
	if [[ " $got " == *" $PARENT "* && " $got " == *" rxepv "* ]]; then
		ktap_ok host_lists_all_parents "$got"
	else
		ktap_fail host_lists_all_parents "host lists '$got'"
	fi
else
	ktap_fail netns_parents_only_own "no rxepv with vP2 in B"
	ktap_fail netns_without_vdevice_no_parent "setup failed"
	ktap_fail host_lists_all_parents "setup failed"
fi
ktap_check klog_clean klog_clean_since "$mark"
ktap_finish
