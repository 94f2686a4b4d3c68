#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# query_qp reports the source GID index in the vdevice's numbering (issue
# 16 finding 4f).  The parent reports its own index; the same address may
# sit at another index in the vdevice's table: the parent's table keeps
# the slots of addresses removed since it was made, the vdevice's is made
# afresh.  Translating the parent's index through the parent's table
# fails once the address is removed while the QP still uses it (the
# entries stay, held, but are no longer valid), and the parent's index
# was then reported as it was: an index the vdevice's table does not have
# for that address.
#
#   netns Q: vQ (on rxe0)           init_net: rxe0 on veth0, with two more
#                                   addresses, one removed before vQ exists

# shellcheck source=selftests/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=selftests/lib-vdev.sh
. "$(dirname "$0")/lib-vdev.sh"

PROG=$TOP/selftests/progs/qp_gid
ADDR_A=10.99.71.1
ADDR_B=10.99.72.1

ktap_plan setup query_matches_set query_after_address_removed klog_clean

# gid_hex ADDR - the IPv4-mapped GID of ADDR, as sysfs prints it.
gid_hex() {
	local IFS=.
	# shellcheck disable=SC2086  # split on dots
	set -- $1
	printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x\n' "$@"
}

# gid_index NS DEV ADDR - the index of ADDR's RoCE v2 GID on port 1 of DEV,
# read in netns NS ("init" for init_net); nothing if there is none.  One
# grep over the table: rxe's has 1024 entries.
gid_index() {
	local ns=$1 dev=$2 want
	want=$(gid_hex "$3")
	local cmd="cd /sys/class/infiniband/$dev/ports/1 || exit
		for f in \$(grep -lsx $want gids/*); do
			i=\${f#gids/}
			[ \"\$(cat gid_attrs/types/\$i 2>/dev/null)\" = 'RoCE v2' ] &&
			{ echo \$i; break; }
		done"
	if [ "$ns" = init ]; then
		bash -c "$cmd"
	else
		ip netns exec "$ns" bash -c "$cmd"
	fi
}

has_gid() {
	[ -n "$(gid_index "$@")" ]
}

no_gid() {
	! has_gid "$@"
}

mark=$(klog_mark)
tmpdir T
# The parent's table: A, then B after it; A goes before vQ is made, so that
# vQ's table has B where the parent's had A
if [ -x "$PROG" ] && load_modules &&
	in_init ip addr add "$ADDR_A/24" dev veth0 &&
	cleanup_push ip addr del "$ADDR_A/24" dev veth0 &&
	wait_for 10 has_gid init "$PARENT" "$ADDR_A" &&
	in_init ip addr add "$ADDR_B/24" dev veth0 &&
	cleanup_push ip addr del "$ADDR_B/24" dev veth0 &&
	wait_for 10 has_gid init "$PARENT" "$ADDR_B" &&
	in_init ip addr del "$ADDR_A/24" dev veth0 &&
	wait_for 10 no_gid init "$PARENT" "$ADDR_A" &&
	new_ns Q q && vdev_add vQ "$Q" &&
	wait_for 10 has_gid "$Q" vQ "$ADDR_B"; then
	pidx=$(gid_index init "$PARENT" "$ADDR_B")
	vidx=$(gid_index "$Q" vQ "$ADDR_B")
	ktap_ok setup "$ADDR_B: parent index $pidx, vdevice index $vidx"
	[ "$pidx" = "$vidx" ] &&
		ktap_diag "the indices are equal: this run does not tell them apart"
else
	ktap_fail setup
	ktap_skip_rest "setup failed"
	ktap_finish
fi

# nth_query N - the Nth "query=" answer of qp_gid, if there is one.
nth_query() {
	awk -F= -v n="$1" '$1 == "query" && ++i == n { print $2 }' "$T/out"
}

spawn_in_ns "$Q" "$PROG" vQ "$vidx" "$T/go" >"$T/out" 2>&1
pid=$!
cleanup_push kill -9 "$pid"
if wait_for 20 grep -q '^query=' "$T/out" && [ "$(nth_query 1)" = "$vidx" ]; then
	ktap_ok query_matches_set "set $vidx, query $(nth_query 1)"
else
	ktap_fail query_matches_set "set $vidx, got: $(tr '\n' ' ' <"$T/out")"
fi

# B goes while the QP uses it; the QP still reports the index it was given,
# as it does natively (the entry is held until the QP moves off it)
if in_init ip addr del "$ADDR_B/24" dev veth0 &&
	wait_for 10 no_gid init "$PARENT" "$ADDR_B" &&
	touch "$T/go" && wait_gone 20 "$pid" &&
	[ "$(nth_query 2)" = "$vidx" ]; then
	ktap_ok query_after_address_removed "query $(nth_query 2)"
else
	ktap_fail query_after_address_removed "set $vidx (parent's index $pidx), got: $(tr '\n' ' ' <"$T/out")"
fi

if klog_clean_since "$mark"; then
	ktap_ok klog_clean
else
	ktap_fail klog_clean
fi
ktap_finish
