#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# librdmacm inside a container (issue 33): rping and ucmatose from a
# container's vdevice to a plain host's native device, through the RDMA CM.
#
#   init_net: rxe0 on veth0 10.99.0.1/24 (the guest's parent)
#             macvlan mvh (on veth0) 10.72.1.1/24, rxeH on it: the "plain
#             host", whose rping -s / ucmatose listen natively
#   netns N:  macvlan mvn 10.72.1.9/24, rxeN on it, moved into N: a native
#             device inside a container, what an SR-IOV VF gives (control)
#   netns A:  macvlan mva 10.72.1.2/24, rxeA on it (init_net), vAe on rxeA
#             in A: the tenant, as tenancy.sh sets it up
#
# Every check asserts success.  Until vrdma carries the RDMA CM (the
# back-to-back proxy of issue 33) the tenant's attempts fail: the vdevice
# offers no kernel verbs, so cma, ib_cm and ib_mad never attach to it, and
# binding or resolving A's address finds no device (ENODEV).  The client's
# error text is printed as a diagnostic, so the reason stays visible.
#
# rxe carries a tenant's own (macvlan) address only from 7.1 (rxe_ns.c);
# before that the traffic checks are skipped with the reason.

# shellcheck source=selftests/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=selftests/lib-vdev.sh
. "$(dirname "$0")/lib-vdev.sh"

HOST=10.72.1.1
IPA=10.72.1.2
IPN=10.72.1.9
TRAFFIC=(native_ns_rping vdev_rping_to_host vdev_ucmatose_to_host)

ktap_plan setup "${TRAFFIC[@]}" no_leak klog_clean

mark=$(klog_mark)
tmpdir T || exit 1

# in_net NS CMD... - CMD in netns NS, "init" for init_net.
in_net() {
	local ns=$1
	shift
	if [ "$ns" = init ]; then
		"$@"
	else
		ip netns exec "$ns" "$@"
	fi
}

# has_gid NS DEV ADDR - ADDR's RoCE GID is in DEV's port 1 table.
has_gid() {
	in_net "$1" sh -c "cat /sys/class/infiniband/$2/ports/1/gids/* 2>/dev/null" |
		grep -qx "$(gid_of "$3")"
}

# cm_listening NS ADDR PORT - an rdma_cm id listens on ADDR:PORT in NS.
cm_listening() {
	in_net "$1" rdma res show cm_id 2>/dev/null |
		grep -q "state LISTEN .*src-addr $2:$3 "
}

# cm_pair NAME SNS CNS "SERVER CMD" "CLIENT CMD" ADDR PORT - run a
# listener in SNS bound to ADDR:PORT, then its client in CNS; logs in
# T/NAME.{srv,cli}.  Succeeds when both end with status 0.
cm_pair() {
	local name=$1 sns=$2 cns=$3 scmd=$4 ccmd=$5 addr=$6 port=$7 spid src crc
	# shellcheck disable=SC2086  # commands are word lists
	(
		echo "# [$sns] $scmd &" >&"$KTAP_FD"
		if [ "$sns" = init ]; then
			exec timeout 60 $scmd
		fi
		exec ip netns exec "$sns" timeout 60 $scmd
	) >"$T/$name.srv" 2>&1 &
	spid=$!
	if ! wait_for 20 cm_listening "$sns" "$addr" "$port"; then
		kill "$spid" 2>/dev/null
		wait "$spid"
		ktap_diag "$name: the listener never listened: $(tail -n 5 "$T/$name.srv")"
		return 1
	fi
	echo "# [$cns] $ccmd" >&"$KTAP_FD"
	# shellcheck disable=SC2086
	in_net "$cns" timeout 40 $ccmd >"$T/$name.cli" 2>&1
	crc=$?
	# a listener whose client never came stays up: stop it
	[ "$crc" -eq 0 ] || kill "$spid" 2>/dev/null
	wait "$spid"
	src=$?
	[ "$src" -eq 0 ] && [ "$crc" -eq 0 ] && return 0
	ktap_diag "$name: listener status $src, client status $crc"
	ktap_diag "listener: $(tail -n 5 "$T/$name.srv" | tr '\n' ' ')"
	ktap_diag "client: $(tail -n 5 "$T/$name.cli" | tr '\n' ' ')"
	return 1
}

setup() {
	require_cmd rping ucmatose || return 1
	new_ns A a && new_ns N n || return 1
	in_init ip link add mvh link veth0 type macvlan mode bridge || return 1
	cleanup_push ip link del mvh
	in_init ip addr add "$HOST/24" dev mvh && in_init ip link set mvh up ||
		return 1
	in_init ip link add mva link veth0 type macvlan mode bridge || return 1
	in_init ip link set mva netns "$A" || { ip link del mva; return 1; }
	in_ns "$A" ip addr add "$IPA/24" dev mva && in_ns "$A" ip link set mva up ||
		return 1
	in_init ip link add mvn link veth0 type macvlan mode bridge || return 1
	in_init ip link set mvn netns "$N" || { ip link del mvn; return 1; }
	in_ns "$N" ip addr add "$IPN/24" dev mvn && in_ns "$N" ip link set mvn up ||
		return 1
	in_init rdma link add rxeH type rxe netdev mvh || return 1
	cleanup_push rdma link delete rxeH
	in_ns "$A" rdma link add rxeA type rxe netdev mva || return 1
	cleanup_push rdma link delete rxeA
	in_ns "$N" rdma link add rxeN type rxe netdev mvn || return 1
	cleanup_push rdma link delete rxeN
	wait_for 30 has_gid init rxeH "$HOST" && wait_for 30 has_gid init rxeA "$IPA" ||
		return 1
	# the control: a native device in a container's own namespace
	if ! has_gid "$N" rxeN "$IPN"; then
		in_init rdma dev set rxeN netns "$N" || return 1
	fi
	wait_for 30 has_gid "$N" rxeN "$IPN" || return 1
	in_init "$VRDMACTL" dev add vAe parent rxeA netns "$A" || return 1
	cleanup_push "$VRDMACTL" dev del vAe
	wait_for 30 has_gid "$A" vAe "$IPA"
}

if ! grep -qw rxe_ns_pernet_sk4 /proc/kallsyms; then
	ktap_skip setup "no traffic to set up"
	for t in "${TRAFFIC[@]}"; do
		ktap_skip "$t" "rxe of $(uname -r) has no network namespace support (7.1): it cannot carry a tenant's own address"
	done
elif ! setup; then
	ktap_fail setup
	for t in "${TRAFFIC[@]}"; do
		ktap_fail "$t" "setup failed"
	done
else
	ktap_ok setup "$(in_ns "$A" rdma dev 2>&1 | tr '\n' ' ')"
	# the listener: rping -s on the host's native rxeH
	srv="rping -s -a $HOST -p 7471 -C 3 -v"
	if cm_pair native_rping init "$N" "$srv" \
		"rping -c -a $HOST -I $IPN -p 7471 -C 3 -v" "$HOST" 7471; then
		ktap_ok native_ns_rping "$(grep -c 'ping data' "$T/native_rping.cli") pings"
	else
		ktap_fail native_ns_rping "a native device in a netns cannot reach the host: the topology is broken"
	fi
	srv="rping -s -a $HOST -p 7472 -C 3 -v"
	if cm_pair vdev_rping init "$A" "$srv" \
		"rping -c -a $HOST -I $IPA -p 7472 -C 3 -v" "$HOST" 7472; then
		ktap_ok vdev_rping_to_host "$(grep -c 'ping data' "$T/vdev_rping.cli") pings"
	else
		ktap_fail vdev_rping_to_host "$(grep -m1 -iE 'error|fail' "$T/vdev_rping.cli")"
	fi
	srv="ucmatose -b $HOST -p 7473 -c 1 -C 4"
	if cm_pair vdev_ucma init "$A" "$srv" \
		"ucmatose -s $HOST -b $IPA -p 7473 -c 1 -C 4" "$HOST" 7473; then
		ktap_ok vdev_ucmatose_to_host "$(tail -n 1 "$T/vdev_ucma.cli")"
	else
		ktap_fail vdev_ucmatose_to_host "$(grep -m1 -iE 'error|fail|ret' "$T/vdev_ucma.cli")"
	fi
fi

if wait_for 30 vrdma_shadows_zero; then
	ktap_ok no_leak "$(vrdma_objects)"
else
	ktap_fail no_leak "$(vrdma_objects)"
fi
ktap_check klog_clean klog_clean_since "$mark"
ktap_finish
