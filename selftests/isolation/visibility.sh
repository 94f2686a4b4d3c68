#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Each container sees exactly its own vdevice, and nothing else does.
#
#   netns A: vA ─┐                     init_net: rxe0 (parent) on veth0
#   netns B: vB ─┴── both on rxe0      (the host sees rxe0, not vA or vB)
#
# Checked through every way user space finds RDMA devices: libibverbs
# (ibv_devices), rdma netlink (rdma dev, rdma res), sysfs, and opening the
# uverbs character device of the other container.  Also: the vdevice
# mirrors its parent's port and GID table, binds the parent's provider, and
# "vrdmactl dev show -j" describes it.

# shellcheck source=selftests/lib/lib.sh
. "$(dirname "$0")/lib/lib.sh"
# shellcheck source=selftests/lib/vdev.sh
. "$(dirname "$0")/lib/vdev.sh"

ktap_plan create_vA_vB a_sees_only_vA b_sees_only_vB host_sees_neither \
	cross_open_refused own_open_works provider_binds port_mirrors_parent \
	gids_mirror_parent gid_table_bounded dev_show_json rdma_res_scoped

new_ns A a && new_ns B b || exit 1

if vdev_add vA "$A" && vdev_add vB "$B"; then
	ktap_ok create_vA_vB
else
	ktap_fail create_vA_vB
fi

# sees NS EXPECTED - ibv_devices, rdma dev and sysfs in NS all list exactly
# EXPECTED.
sees() {
	local ns=$1 want=$2 verbs nl sys
	verbs=$(in_ns "$ns" ibv_devices | awk 'NR > 2 { print $1 }' | xargs)
	nl=$(in_ns "$ns" rdma -j dev show | jq -r '.[].ifname' | xargs)
	sys=$(in_ns "$ns" ls /sys/class/infiniband | xargs)
	ktap_diag "[$ns] ibv_devices: '$verbs', rdma dev: '$nl', sysfs: '$sys'"
	[ "$verbs" = "$want" ] && [ "$nl" = "$want" ] && [ "$sys" = "$want" ]
}

# ip netns exec remounts /sys, so sysfs is seen as the namespace sees it.
ktap_check a_sees_only_vA sees "$A" vA
ktap_check b_sees_only_vB sees "$B" vB

host_verbs=$(in_init ibv_devices | awk 'NR > 2 { print $1 }' | xargs)
host_nl=$(in_init rdma -j dev show | jq -r '.[].ifname' | xargs)
host_sys=$(cd /sys/class/infiniband && echo *)
ktap_diag "[init] ibv_devices: '$host_verbs', rdma dev: '$host_nl', sysfs: '$host_sys'"
# The host lists the parent, but neither vdevice, on every path (it may
# list other devices of its own: the test VM has rxe0 beside rdmasim's,
# a host may have several NICs)
# listed WORDS NAME - NAME is one of the space-separated WORDS
listed() {
	[[ " $1 " == *" $2 "* ]]
}
seen=
for l in "$host_verbs" "$host_nl" "$host_sys"; do
	listed "$l" "$PARENT" || seen="$seen no-$PARENT"
	listed "$l" vA && seen="$seen vA"
	listed "$l" vB && seen="$seen vB"
done
if [ -z "$seen" ]; then
	ktap_ok host_sees_neither
else
	ktap_fail host_sees_neither "host listings:$seen"
fi

# try_open NS NODE - open a uverbs node from NS; prints the error name.
try_open() {
	in_ns "$1" python3 -c '
import sys
try:
    open(sys.argv[1], "rb").close()
    print("opened")
except OSError as e:
    print(e.__class__.__name__, e.errno)
' "$2"
}

b_chardev=$("$VRDMACTL" -j dev show vB | jq -r '.[0].chardev')
a_chardev=$("$VRDMACTL" -j dev show vA | jq -r '.[0].chardev')
res=$(try_open "$A" "/dev/infiniband/$b_chardev")
ktap_diag "open of vB's /dev/infiniband/$b_chardev from A: $res"
if [[ $b_chardev == uverbs* ]] && [[ $res == PermissionError* ]]; then
	ktap_ok cross_open_refused
else
	ktap_fail cross_open_refused "expected EPERM, got '$res'"
fi
res=$(try_open "$A" "/dev/infiniband/$a_chardev")
if [ "$res" = opened ]; then
	ktap_ok own_open_works
else
	ktap_fail own_open_works "open of $a_chardev from A: $res"
fi

# The stock librxe provider binds: ibv_devinfo opens a context and queries.
if out=$(in_ns "$A" ibv_devinfo -d vA) && grep -q 'transport:.*InfiniBand' <<<"$out" &&
   grep -q 'state:.*PORT_ACTIVE' <<<"$out"; then
	ktap_ok provider_binds
else
	ktap_fail provider_binds "ibv_devinfo -d vA: $out"
fi

# devinfo DEV [NS] [OPTION...] - ibv_devinfo OPTION... -d DEV, in NS or
# else in the initial namespace.
devinfo() {
	local dev=$1 ns=${2:-}
	shift 2 || shift
	if [ -n "$ns" ]; then
		in_ns "$ns" ibv_devinfo "$@" -d "$dev"
	else
		in_init ibv_devinfo "$@" -d "$dev"
	fi
}

# mirrors TEST WHAT FN - report TEST: ok when FN DEV [NS] gives the same
# WHAT, not empty, for the parent and for vA in A.
mirrors() {
	local p v
	p=$("$3" "$PARENT")
	v=$("$3" vA "$A")
	ktap_diag "parent $2: $p"
	ktap_diag "vA $2:     $v"
	if [ -n "$p" ] && [ "$p" = "$v" ]; then
		ktap_ok "$1"
	else
		ktap_fail "$1"
	fi
}

# port_fields DEV [NS] - state, MTU, link layer of port 1.
port_fields() {
	devinfo "$@" |
		awk '/state:|max_mtu:|active_mtu:|link_layer:/ { print $1, $2 }' | xargs
}
mirrors port_mirrors_parent port port_fields

# gids DEV [NS] - the set of GIDs with their types, sorted (by value: the
# indices need not match).
gids() {
	devinfo "$1" "${2:-}" -v | awk '/GID\[/ { print $3, $4, $5 }' | sort | xargs
}
mirrors gids_mirror_parent GIDs gids

# The vdevice declares at most 128 GID entries (kmod/device.c), and the
# core gives it that many sysfs entries; the parent keeps its own length.
tbl_len() {	# DEV [NS] - gid_tbl_len as ibv_devinfo -v reports it
	local dev=$1 ns=${2:-}
	if [ -n "$ns" ]; then
		in_ns "$ns" ibv_devinfo -v -d "$dev"
	else
		in_init ibv_devinfo -v -d "$dev"
	fi | awk '/gid_tbl_len:/ { print $2; exit }'
}
plen=$(tbl_len "$PARENT")
vlen=$(tbl_len vA "$A")
vfiles=$(in_ns "$A" sh -c 'ls /sys/class/infiniband/vA/ports/1/gids | wc -l')
want=$(( plen < 128 ? plen : 128 ))
ktap_diag "gid_tbl_len: parent $plen, vA $vlen ($vfiles sysfs entries)"
if [ -n "$plen" ] && [ "$vlen" = "$want" ] && [ "$vfiles" = "$want" ]; then
	ktap_ok gid_table_bounded
else
	ktap_fail gid_table_bounded "want $want"
fi

json=$(in_init "$VRDMACTL" -j dev show vA)
ktap_diag "dev show -j vA: $json"
a_ino=$(stat -L -c %i "/run/netns/$A")
chk=$(jq -r --arg ino "$a_ino" --arg ns "$A" --arg p "$PARENT" '.[0] |
	[.name == "vA", .parent == $p, (.netns.inode | tostring) == $ino,
	 .netns.name == $ns, (.chardev | startswith("uverbs")),
	 (.chardev_dev | test("^[0-9]+:[0-9]+$")), .state == "ACTIVE",
	 (.usage.qp == 0), (.limits.qp != null)] | all' <<<"$json")
IFS=: read -r hmaj hmin <<<"$(stat -c "%t:%T" "/dev/infiniband/$(jq -r ".[0].chardev" <<<"$json")")"
major_minor=$((16#${hmaj:-0})):$((16#${hmin:-0}))
if [ "$chk" = true ] && [ "$(jq -r '.[0].chardev_dev' <<<"$json")" = "$major_minor" ]; then
	ktap_ok dev_show_json
else
	ktap_fail dev_show_json "fields wrong (node $major_minor)"
fi

# rdma res: each side counts only its own objects while a context is open.
tmpdir T
spawn_in_ns "$A" timeout 60 ibv_rc_pingpong -d vA -g "$GIDX" -p 18600 >"$T/srv" 2>&1
spid=$!
wait_for 20 port_listening "$A" 18600
res_a=$(in_ns "$A" rdma res show)
res_b=$(in_ns "$B" rdma res show)
kill "$spid" 2>/dev/null
wait "$spid" 2>/dev/null
ktap_diag "[A] $res_a" "[B] $res_b"
if grep -q '^[0-9]*: vA: pd 1 cq 1 qp 1 .*ctx 1' <<<"$res_a" &&
   ! grep -q "vB\|$PARENT" <<<"$res_a" &&
   grep -q '^[0-9]*: vB: pd 0 cq 0 qp 0 .*ctx 0' <<<"$res_b"; then
	ktap_ok rdma_res_scoped
else
	ktap_fail rdma_res_scoped
fi

ktap_finish
