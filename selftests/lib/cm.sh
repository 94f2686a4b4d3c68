# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers for traffic through the RDMA connection manager: a tenant whose
# vdevice has "cm on" and a plain host with a native rxe, as
# selftests/cm/rdma_cm.sh sets them up, for the scripts that only need the
# topology (the cm part of the benchmark).  Sourced after lib.sh and
# vdev.sh.
#
#   init_net: macvlan HOSTDEV (on veth1) with the host's address, a native
#             rxe on it: where listeners bind
#   netns NS: macvlan (on veth0) with the tenant's address, an rxe on it
#             (the tenant's parent of its own), a vdevice of it with
#             "cm on" in NS
#
# One rxe per tenant on the tenant's own macvlan: rxe receives RoCE in the
# namespace of its netdev, so a reply to the tenant's address reaches no
# rxe unless one sits on that macvlan.  The host's macvlan is on veth1,
# not veth0: the core puts the addresses of veth0's upper devices into
# rxe0's GID table too, and a listener would bind to rxe0 while the
# requests arrive at the host's rxe.

CM_DBG_OBJECTS=/sys/kernel/debug/vrdma/objects

# cm_rxe_carries_tenant - rxe of this kernel sends from and receives on a
# tenant's own address: it has network namespace support (rxe_ns.c, from
# 7.1).  Before that rxe routes every packet in init_net, where the
# tenant's address is not local.  The answer is kept in the environment
# (VRDMA_RXE_NS, 1 or 0) for the scripts this one starts: reading
# /proc/kallsyms takes seconds under TCG.
cm_rxe_carries_tenant() {
	if [ -z "${VRDMA_RXE_NS:-}" ]; then
		VRDMA_RXE_NS=0
		grep -qw rxe_ns_pernet_sk4 /proc/kallsyms && VRDMA_RXE_NS=1
		export VRDMA_RXE_NS
	fi
	[ "$VRDMA_RXE_NS" = 1 ]
}

# cm_has_gid NS DEV ADDR - ADDR's RoCE GID is in DEV's port 1 table.
cm_has_gid() {
	ns_run "$1" sh -c "cat /sys/class/infiniband/$2/ports/1/gids/* 2>/dev/null" |
		grep -qx "$(gid_of "$3")"
}

# cm_listening NS ADDR PORT - an rdma_cm id listens on ADDR:PORT in NS.
cm_listening() {
	ns_run "$1" rdma res show cm_id 2>/dev/null |
		grep -q "state LISTEN .*src-addr $2:$3 "
}

# cm_conns - the connections vrdma's CM proxy carries now (its cm_ids on
# the parents).
cm_conns() {
	awk '$1 == "cmconn" { print $2 }' "$CM_DBG_OBJECTS"
}

# cm_conns_is N - for wait_for.
cm_conns_is() {
	[ "$(cm_conns)" = "$1" ]
}

# cm_rx DEV MSG - how many CM messages MSG (req, rep, rtu, dreq, ...)
# DEV's ib_cm has received on port 1 (init_net's devices).
cm_rx() {
	cat "/sys/class/infiniband/$1/ports/1/cm_rx_msgs/$2"
}

# cm_plain_host NAME ADDR - the plain host: macvlan mvNAME on veth1 in
# init_net with ADDR/24 and rxe NAME on it.  init_net stops answering ARP
# for its addresses on every interface (restored at exit): veth1 would
# answer a tenant's request for ADDR, and its RoCE would go to veth1,
# where no rxe listens.
cm_plain_host() {
	local name=$1 addr=$2 ai
	ai=$(sysctl -n net.ipv4.conf.all.arp_ignore) || return 1
	in_init sysctl -qw net.ipv4.conf.all.arp_ignore=1 || return 1
	cleanup_push sysctl -qw "net.ipv4.conf.all.arp_ignore=$ai"
	in_init ip link add "mv$name" link veth1 type macvlan mode bridge || return 1
	cleanup_push ip link del "mv$name"
	in_init ip addr add "$addr/24" dev "mv$name" &&
		in_init ip link set "mv$name" up || return 1
	in_init rdma link add "$name" type rxe netdev "mv$name" || return 1
	cleanup_push rdma link delete "$name"
	wait_for 30 cm_has_gid init "$name" "$addr"
}

# cm_tenant NS RXE VDEV ADDR [ARG...] - the tenant in NS: macvlan mvRXE on
# veth0 with ADDR/24, rxe RXE on it, and VDEV of RXE in NS made with
# "cm on" and the further dev add words ARG.
cm_tenant() {
	local ns=$1 rxe=$2 vdev=$3 addr=$4
	shift 4
	in_init ip link add "mv$rxe" link veth0 type macvlan mode bridge || return 1
	in_init ip link set "mv$rxe" netns "$ns" || { ip link del "mv$rxe"; return 1; }
	in_ns "$ns" ip addr add "$addr/24" dev "mv$rxe" &&
		in_ns "$ns" ip link set "mv$rxe" up || return 1
	in_ns "$ns" rdma link add "$rxe" type rxe netdev "mv$rxe" || return 1
	cleanup_push rdma link delete "$rxe"
	wait_for 30 cm_has_gid init "$rxe" "$addr" || return 1
	in_init "$VRDMACTL" dev add "$vdev" parent "$rxe" netns "$ns" cm on "$@" ||
		return 1
	cleanup_push "$VRDMACTL" dev del "$vdev"
	wait_for 30 cm_has_gid "$ns" "$vdev" "$addr"
}
