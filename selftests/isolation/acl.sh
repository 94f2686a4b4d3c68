#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Source address (sgid) and peer ACLs: two tenants on one parent, each
# allowed to send only from its own address and to reach only its own
# subnet; a third vdevice without ACLs may do anything.
#
#   init_net: rxe0 on veth0 10.99.0.1/24, aliases 10.71.1.1/24 (tenant A)
#             and 10.71.2.1/24 (tenant B)
#   netns A: vA  sgid 10.71.1.1  peer 10.71.1.0/24
#   netns B: vB  sgid 10.71.2.1  peer 10.71.2.0/24
#   netns U: vU  (defaults: every source GID, every peer)
#   later, in A: macvlan mvacl (on veth0) 10.99.0.1/24 10.71.3.1/24,
#             VLAN mvacl.9 on it 10.71.9.9/24, all put there by A's root
#
# selftests/progs/acl_probe moves an RC QP to RTR and creates an AH with an
# address vector from a source address to a destination, and prints
# "rtr=ok|EACCES|... ah=ok|EACCES|...".  Destinations are the parent's own
# addresses, so that the core can resolve them (rxe loops back).
#
# What an ACL cannot bind is refused on a vdevice that has one
# (selftests/progs/qp_probe): UD QPs, whose address vectors providers
# write into user memory (rxe, mlx5, hns), and multicast attach; and
# IB_QP_CREATE_SOURCE_QPN (sending as another QP, QP1's MADs on mlx5) on
# every vdevice.

# shellcheck source=selftests/lib/lib.sh
. "$(dirname "$0")/lib/lib.sh"
# shellcheck source=selftests/lib/vdev.sh
. "$(dirname "$0")/lib/vdev.sh"

PROBE=$TOP/selftests/progs/acl_probe
NLRAW=(python3 "$TOP/selftests/lib/nlraw.py")
IPA=10.71.1.1
IPB=10.71.2.1

ktap_plan setup probe_works_on_parent default_allows_all a_own_subnet \
	a_other_peer_refused a_other_sgid_hidden a_host_sgid_hidden \
	a_other_sgid_refused \
	b_own_subnet b_other_peer_refused show_text show_json \
	ud_refused_with_acl ud_and_mcast_without_acl source_qpn_never_granted \
	mcast_refused_once_restricted \
	set_replaces_peers set_any_lifts set_sgids_only kernel_rejects_bad_acls \
	bad_acl_left_nothing concurrent_set_and_connect own_netdev_sgid_hidden \
	own_netdev_sgid_granted no_leak klog_clean

mark=$(klog_mark)
tmpdir T || exit 1
[ -x "$PROBE" ] || { ktap_diag "missing $PROBE"; exit 1; }

setup() {
	in_init ip addr add "$IPA/24" dev veth0 || return 1
	cleanup_push ip addr del "$IPA/24" dev veth0
	in_init ip addr add "$IPB/24" dev veth0 || return 1
	cleanup_push ip addr del "$IPB/24" dev veth0
	new_ns A a && new_ns B b && new_ns U u || return 1
	vdev_add vA "$A" sgid "$IPA" peer 10.71.1.0/24 || return 1
	vdev_add vB "$B" sgid "$IPB" peer 10.71.2.0/24 || return 1
	vdev_add vU "$U" || return 1
	# The GID tables follow the new addresses asynchronously.
	wait_for 30 in_ns "$A" "$PROBE" vA "$IPA" "$IPA" >/dev/null &&
		wait_for 30 in_ns "$B" "$PROBE" vB "$IPB" "$IPB" >/dev/null &&
		wait_for 30 in_init "$PROBE" "$PARENT" "$IPB" "$IPB" >/dev/null &&
		wait_for 30 in_ns "$U" "$PROBE" vU "$IPA" "$IPB" >/dev/null
}

ktap_setup setup

# probe NAME NS DEV SRC DST WANT - acl_probe's verdict is WANT.
probe() {
	local name=$1 ns=$2 dev=$3 src=$4 dst=$5 want=$6 out
	out=$(in_ns "$ns" "$PROBE" "$dev" "$src" "$dst" 2>&1)
	if [[ $out == *"$want"* ]]; then
		ktap_ok "$name" "$out"
	else
		ktap_fail "$name" "got '$out', expected '$want'"
	fi
}

OK="rtr=ok ah=ok"
NO="rtr=EACCES ah=EACCES"

probe probe_works_on_parent init "$PARENT" "$IPA" "$IPB" "$OK"
probe default_allows_all "$U" vU "$IPA" "$IPB" "$OK"
probe a_own_subnet "$A" vA "$IPA" "$IPA" "$OK"
probe a_other_peer_refused "$A" vA "$IPA" "$IPB" "$NO"
# Addresses outside the sgid list are not even in vA's table (gid.c)...
probe a_other_sgid_hidden "$A" vA "$IPB" "$IPA" "not in the GID table"
probe a_host_sgid_hidden "$A" vA 10.99.0.1 "$IPA" "not in the GID table"
# ...and naming them by the parent's index does not reach them either.
pidx=$(in_init "$PROBE" "$PARENT" "$IPB" "$IPB" | sed -n 's/^gid=\([0-9]*\).*/\1/p')
own=$(in_ns "$A" cat "/sys/class/infiniband/vA/ports/1/gids/$pidx" 2>/dev/null)
if [ -z "$pidx" ]; then
	ktap_fail a_other_sgid_refused "no index of $IPB on $PARENT"
elif [ "$own" = "$(gid_of "$IPA")" ]; then
	ktap_skip a_other_sgid_refused "vA's own $IPA sits at index $pidx"
else
	out=$(in_ns "$A" "$PROBE" vA "@$pidx" "$IPA" 2>&1)
	if [[ $out == *"rtr="* && $out != *"rtr=ok"* && $out != *"ah=ok"* ]]; then
		ktap_ok a_other_sgid_refused "index $pidx: $out"
	else
		ktap_fail a_other_sgid_refused "index $pidx: $out"
	fi
fi
probe b_own_subnet "$B" vB "$IPB" "$IPB" "$OK"
probe b_other_peer_refused "$B" vB "$IPB" "$IPA" "$NO"

out=$(in_init "$VRDMACTL" dev show vA)
if grep -qx "    sgid $IPA peer 10.71.1.0/24" <<<"$out" &&
   ! grep -q "sgid\|peer" <<<"$(in_init "$VRDMACTL" dev show vU)"; then
	ktap_ok show_text "$out"
else
	ktap_fail show_text "$out"
fi

json=$(in_init "$VRDMACTL" -j dev show | jq -c \
	'[.[] | select(.name | test("^v[ABU]$")) | {name, sgids, peers}] | sort_by(.name)')
want='[{"name":"vA","sgids":["10.71.1.1"],"peers":["10.71.1.0/24"]},{"name":"vB","sgids":["10.71.2.1"],"peers":["10.71.2.0/24"]},{"name":"vU","sgids":null,"peers":null}]'
if [ "$json" = "$want" ]; then
	ktap_ok show_json "$json"
else
	ktap_fail show_json "got $json"
fi

# --- what the ACL cannot bind -------------------------------------------------

QP_PROBE=$TOP/selftests/progs/qp_probe
native=$(in_init "$QP_PROBE" "$PARENT" 2>&1 | tr '\n' ' ')
ktap_diag "on $PARENT itself: $native"
out=$(in_ns "$A" "$QP_PROBE" vA 2>&1 | tr '\n' ' ')
if [[ $out == "ud=EACCES block_mcast_lb=EACCES source_qpn=EOPNOTSUPP mcast=- " ]]; then
	ktap_ok ud_refused_with_acl
else
	ktap_fail ud_refused_with_acl "vA (sgid and peer ACLs): $out"
fi
# A vdevice without ACLs grants what the parent grants (rxe: UD QPs and
# multicast, no creation flags at all).  A shared vdevice gets UD QPs only
# while its GID indices are its parent's (gid.c), and rxe0's table has
# the holes and the order of every test before this one in the boot: the
# UD checks use vUD, made on a parent whose table holds only its default
# GIDs (a dummy netdev without IPv6) and so mirrors it.
ud_parent() {
	in_init ip link add uddum0 type dummy || return 1
	cleanup_push ip link del uddum0
	in_init sysctl -qw net.ipv6.conf.uddum0.disable_ipv6=1 &&
		in_init ip link set uddum0 up &&
		in_init rdma link add rxeud type rxe netdev uddum0 || return 1
	cleanup_push rdma link del rxeud
	PARENT=rxeud vdev_add vUD "$U"
}
if ud_parent; then
	native=$(in_init "$QP_PROBE" rxeud 2>&1 | tr '\n' ' ')
	ktap_diag "on rxeud itself: $native"
	out=$(in_ns "$U" "$QP_PROBE" vUD 2>&1 | tr '\n' ' ')
else
	out="no vUD on a fresh rxe parent"
fi
if [[ $native == "ud=ok block_mcast_lb="*" mcast=ok " &&
      ${out%% source_qpn=*} == "${native%% source_qpn=*}" &&
      ${out##* mcast=} == "${native##* mcast=}" ]]; then
	ktap_ok ud_and_mcast_without_acl "$out"
else
	ktap_fail ud_and_mcast_without_acl "rxeud: $native; vUD: $out"
fi
# rxe refuses every creation flag itself, so whether vrdma refuses
# SOURCE_QPN before the parent sees it shows with the QP fault knob
# (debugfs fail/qp: the next N shadow QP creations fail with ENOMEM):
# armed with 3, the plain UD QP and the one with an allowed flag reach it,
# the SOURCE_QPN one must not, and leave one failure pending.
KNOB=/sys/kernel/debug/vrdma/fail/qp
echo 3 >"$KNOB"
out=$(in_ns "$U" "$QP_PROBE" vUD 2>&1 | tr '\n' ' ')
left=$(cat "$KNOB")
echo 0 >"$KNOB"
if [[ $out == "ud=ENOMEM block_mcast_lb=ENOMEM source_qpn=EOPNOTSUPP mcast=- " &&
      $left == 1 ]]; then
	ktap_ok source_qpn_never_granted
else
	ktap_fail source_qpn_never_granted "vUD with fail/qp=3: $out, fail/qp left at $left"
fi
# An ACL set after a UD QP exists still stops its multicast attach.
rm -f "$T/go"
in_ns "$U" "$QP_PROBE" vUD "$T/go" >"$T/late" 2>&1 &
late=$!
if wait_for 30 grep -q '^ud=ok' "$T/late" &&
   in_init "$VRDMACTL" dev set vUD sgid 10.99.0.1; then
	touch "$T/go"
	wait "$late"
	out=$(tr '\n' ' ' <"$T/late")
	if [[ $out == *" mcast=EACCES "* ]]; then
		ktap_ok mcast_refused_once_restricted
	else
		ktap_fail mcast_refused_once_restricted "vUD: $out"
	fi
else
	touch "$T/go"
	wait "$late"
	ktap_fail mcast_refused_once_restricted "setup: $(cat "$T/late")"
fi
in_init "$VRDMACTL" dev set vUD sgid any

# A new peer list replaces the old one; the sgid list stays.
if in_init "$VRDMACTL" dev set vA peer 10.71.2.0/24 peer fd00::/8; then
	probe set_replaces_peers "$A" vA "$IPA" "$IPB" "$OK"
	out=$(in_ns "$A" "$PROBE" vA "$IPA" "$IPA" 2>&1)
	[[ $out == *"$NO"* ]] || ktap_diag "old peer still allowed: $out"
else
	ktap_fail set_replaces_peers "dev set failed"
fi

if in_init "$VRDMACTL" dev set vA peer any &&
   [ "$(in_init "$VRDMACTL" -j dev show vA | jq -c '.[0].peers')" = null ]; then
	probe set_any_lifts "$A" vA "$IPA" 10.99.0.1 "$OK"
else
	ktap_fail set_any_lifts "dev set peer any failed or peers still shown"
fi

# sgid only: peers stay open, other source addresses stay refused.
if in_init "$VRDMACTL" dev set vA sgid "$IPB" qp max; then
	out1=$(in_ns "$A" "$PROBE" vA "$IPB" "$IPA" 2>&1)
	out2=$(in_ns "$A" "$PROBE" vA "$IPA" "$IPA" 2>&1)
	if [[ $out1 == *"$OK"* && $out2 == *"$NO"* ]]; then
		ktap_ok set_sgids_only "$out1 / $out2"
	else
		ktap_fail set_sgids_only "$IPB: $out1, $IPA: $out2"
	fi
else
	ktap_fail set_sgids_only "dev set failed"
fi

# The kernel's own checks, with requests vrdmactl would not send.
before=$(in_init "$VRDMACTL" -j dev show vB | jq -c '.[0] | {sgids, peers}')
bad=0
# kernel_refuses PATTERN ATTRS... - DEV_SET vB with ATTRS fails with PATTERN.
kernel_refuses() {
	local pattern=$1 out
	shift
	if ! out=$(in_init "${NLRAW[@]}" DEV_SET dev_name=str:vB "$@" 2>&1) &&
	   grep -qiE -- "$pattern" <<<"$out"; then
		ktap_diag "refused as expected: $* -> $out"
	else
		ktap_diag "NOT refused as expected ($pattern): $* -> $out"
		bad=$((bad + 1))
	fi
}
many=$(for i in $(seq 17); do printf '10.0.%d.0/120,' "$i"; done)
kernel_refuses "too many addresses" peers=acl:"$many"
kernel_refuses "one address, not a prefix" sgids=acl:10.71.2.1/120
kernel_refuses "IPv4 prefix" peers=acl:10.71.2.0/95
kernel_refuses "errno=34" peers=acl:10.71.2.0/129
kernel_refuses "only entries" peers=hex:08000200aabbccdd
kernel_refuses "without address" peers=hex:0c0001800500030080000000
kernel_refuses "size out of range" peers=hex:0c0001800800020001020304
kernel_refuses "nothing to change" dev_name=str:vB
if [ "$bad" = 0 ]; then
	ktap_ok kernel_rejects_bad_acls
else
	ktap_fail kernel_rejects_bad_acls "$bad request(s) not refused as expected"
fi
after=$(in_init "$VRDMACTL" -j dev show vB | jq -c '.[0] | {sgids, peers}')
if [ "$before" = "$after" ]; then
	ktap_ok bad_acl_left_nothing "$after"
else
	ktap_fail bad_acl_left_nothing "before $before, after $after"
fi

# Replace vB's peer list over and over while its QPs connect: RCU readers
# see the old or the new list, never a freed one.
(
	for i in $(seq 200); do
		"$VRDMACTL" dev set vB peer "10.71.$((i % 3)).0/24" peer 10.71.2.0/24 ||
			exit 1
	done
) &
setter=$!
fails=0
for i in $(seq 20); do
	out=$(ip netns exec "$B" "$PROBE" vB "$IPB" "$IPB" 2>&1)
	[[ $out == *"$OK"* ]] || fails=$((fails + 1))
done
wait "$setter"
src=$?
if [ "$src" = 0 ] && [ "$fails" = 0 ]; then
	ktap_ok concurrent_set_and_connect
else
	ktap_fail concurrent_set_and_connect "setter status $src, $fails probe(s) refused"
fi

# --- the tenant's own netdevs -------------------------------------------------

# Root in a tenant's namespace may put any address on the netdevs there:
# on a macvlan of the parent's netdev (which the operator gives it, as CNI
# plugins do) the host's address, another tenant's, or one on a VLAN it
# makes on top.  Their GIDs are GIDs of the tenant's own namespace; with
# an sgid list they are still not the tenant's to send from (vA's list is
# $IPB since set_sgids_only): not in vA's table, until the list names one.
# 10.71.3.1 stands for another tenant's address; not $IPA, which vA's
# table has held since vA was made with it (refused since set_sgids_only).
MV_HOST=10.99.0.1
MV_OTHER=10.71.3.1
MV_VLAN=10.71.9.9
own_netdevs() {
	in_init ip link add mvacl link veth0 type macvlan mode bridge || return 1
	in_init ip link set mvacl netns "$A" || { ip link del mvacl; return 1; }
	cleanup_push ip -n "$A" link del mvacl
	in_ns "$A" ip addr add "$MV_HOST/24" dev mvacl &&
		in_ns "$A" ip addr add "$MV_OTHER/24" dev mvacl &&
		in_ns "$A" ip link set mvacl up &&
		in_ns "$A" ip link add link mvacl name mvacl.9 type vlan id 9 &&
		in_ns "$A" ip addr add "$MV_VLAN/24" dev mvacl.9 &&
		in_ns "$A" ip link set mvacl.9 up || return 1
	# The parent's table takes every namespace's addresses; then a
	# rescan of vA (DEV_SET with SGIDS, synchronous) offers vA every
	# address there is, so what it admitted is in its table now.
	wait_for 30 in_init "$PROBE" "$PARENT" "$MV_VLAN" "$MV_VLAN" >/dev/null &&
		in_init "$VRDMACTL" dev set vA sgid "$IPB"
}
if own_netdevs; then
	bad=
	for a in "$MV_HOST" "$MV_OTHER" "$MV_VLAN"; do
		out=$(in_ns "$A" "$PROBE" vA "$a" "$a" 2>&1)
		[[ $out == *"not in the GID table"* ]] || bad="$bad [$a: $out]"
	done
	if [ -z "$bad" ]; then
		ktap_ok own_netdev_sgid_hidden
	else
		ktap_fail own_netdev_sgid_hidden "usable by vA (sgid $IPB):$bad"
	fi
	if in_init "$VRDMACTL" dev set vA sgid "$IPB" sgid "$MV_VLAN"; then
		probe own_netdev_sgid_granted "$A" vA "$MV_VLAN" "$MV_VLAN" "$OK"
	else
		ktap_fail own_netdev_sgid_granted "dev set failed"
	fi
else
	ktap_fail own_netdev_sgid_hidden "setup of A's macvlan failed"
	ktap_fail own_netdev_sgid_granted "setup of A's macvlan failed"
fi

check_no_leak
ktap_check klog_clean klog_clean_since "$mark"
ktap_finish
