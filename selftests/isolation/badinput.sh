#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Bad requests to create a vdevice each fail with a clear error and leave
# nothing behind: no vdevice, no RDMA device, no kernel log line of concern.
# Requests vrdmactl would refuse to send are built by nlraw.py.
#
#   netns B: the target of every request (plus vB, a valid vdevice there)
#
# Last: shared netns mode (switched at run time with "rdma system set"),
# where creation must fail naming the fix.

# shellcheck source=selftests/lib/lib.sh
. "$(dirname "$0")/lib/lib.sh"
# shellcheck source=selftests/lib/vdev.sh
. "$(dirname "$0")/lib/vdev.sh"

NLRAW=(python3 "$TOP/selftests/lib/nlraw.py")

ktap_plan unknown_parent vdevice_as_parent duplicate_name name_too_long \
	name_malformed name_format_chars missing_name missing_parent \
	missing_netns both_netns_fd_and_pid netns_name_unknown netns_pid_unknown \
	netns_fd_not_a_netns netns_being_torn_down del_unknown set_unknown \
	unprivileged_refused nothing_left_behind shared_mode_refused

new_ns B b || exit 1
vdev_add vB "$B" || exit 1
mark=$(klog_mark)
before_devs=$(rdma dev show | wc -l)

add() {		# NAME [WORDS...] - vrdmactl dev add NAME ... in B by default
	local name=$1
	shift
	in_init "$VRDMACTL" dev add "$name" "$@"
}

refused unknown_parent "parent device not found" add v1 parent nosuch netns "$B"
refused vdevice_as_parent "cannot be a parent" add v1 parent vB netns "$B"
refused duplicate_name "exists" add vB parent "$PARENT" netns "$B"
refused name_too_long "name|long" add "$(printf 'x%.0s' {1..64})" parent "$PARENT" netns "$B"
refused name_malformed "invalid device name|name" add "a/b" parent "$PARENT" netns "$B"
refused name_format_chars "invalid device name" \
	in_init "${NLRAW[@]}" DEV_NEW dev_name=str:v%d parent_name=str:"$PARENT" netns_fd=fd:"/run/netns/$B"
refused missing_name "errno=22" \
	in_init "${NLRAW[@]}" DEV_NEW parent_name=str:"$PARENT" netns_fd=fd:"/run/netns/$B"
refused missing_parent "errno=22" \
	in_init "${NLRAW[@]}" DEV_NEW dev_name=str:v1 netns_fd=fd:"/run/netns/$B"
refused missing_netns "exactly one of netns fd and netns pid" \
	in_init "${NLRAW[@]}" DEV_NEW dev_name=str:v1 parent_name=str:"$PARENT"
refused both_netns_fd_and_pid "exactly one of netns fd and netns pid" \
	in_init "${NLRAW[@]}" DEV_NEW dev_name=str:v1 parent_name=str:"$PARENT" \
	netns_fd=fd:"/run/netns/$B" netns_pid=u32:1
refused netns_name_unknown "nosuch" add v1 parent "$PARENT" netns nosuch
refused netns_pid_unknown "no such process" add v1 parent "$PARENT" netns-pid 999999
refused netns_fd_not_a_netns "not a network namespace" \
	in_init "${NLRAW[@]}" DEV_NEW dev_name=str:v1 parent_name=str:"$PARENT" netns_fd=fd:/etc/hostname

# A namespace whose last process is exiting: the request either fails or
# creates a vdevice that dies with the namespace at once.  Either way
# nothing may remain.
# (The sleep is the namespace's lifetime, not a synchronisation.)
unshare -n sleep 0.3 &
dying=$!
# Only once it is in its own namespace (or already gone): a loaded machine
# may not have run unshare yet, and the device would land in init_net.
wait_for 10 bash -c "! [ /proc/$dying/ns/net -ef /proc/self/ns/net ]"
out=$(in_init "$VRDMACTL" dev add vdying parent "$PARENT" netns-pid "$dying" 2>&1)
ktap_diag "add into a dying netns: status $?, $out"
wait "$dying"
if wait_for 60 bash -c "! '$VRDMACTL' dev show vdying >/dev/null 2>&1"; then
	ktap_ok netns_being_torn_down
else
	ktap_fail netns_being_torn_down "vdying still exists"
fi

refused del_unknown "no such vrdma device" in_init "$VRDMACTL" dev del nosuch
refused set_unknown "no such vrdma device" in_init "$VRDMACTL" dev set nosuch qp 1

# Without CAP_NET_ADMIN in the initial user namespace: EPERM.
refused unprivileged_refused "not permitted|EPERM|errno=1$" \
	in_init unshare -Urn "$VRDMACTL" dev add v1 parent "$PARENT" netns-pid 1

devs=$(rdma dev show | wc -l)
if [ "$(vdev_count)" = 1 ] && [ "$devs" = "$before_devs" ] &&
   klog_clean_since "$mark"; then
	ktap_ok nothing_left_behind
else
	ktap_fail nothing_left_behind "vdevices: $(vdev_count), rdma devices $devs (was $before_devs)"
fi

# Shared mode: every netns but init_net must be gone to switch (ib_core
# refuses otherwise), so drop ours first.
in_init "$VRDMACTL" dev del vB
in_init ip netns del "$B"
if wait_for 30 rdma system set netns shared; then
	refused shared_mode_refused "netns_mode=0" \
		in_init "$VRDMACTL" dev add v1 parent "$PARENT" netns-pid 1
	wait_for 30 rdma system set netns exclusive ||
		ktap_diag "could not switch back to exclusive mode"
	in_init rdma system show
else
	ktap_skip shared_mode_refused "other namespaces exist; cannot switch modes"
fi

ktap_finish
