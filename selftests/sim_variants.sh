#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vrdma against the kinds of parent it must tell apart, simulated by
# rdmasim's variants (the module's "variant" parameter, read at "rdma link
# add"): an InfiniBand port (GIDs from query_gid, as mlx5 in IB mode), an
# iWARP port (irdma, siw, erdma), a device without kernel verbs and
# without an IB transport (EFA), and a RoCE device under a bus device with
# a PCI modalias (what PCI-matched providers such as libhns read).
#
# The first three are refused by vrdmactl dev add with the message that
# names the reason, leaving nothing behind; the one without kernel verbs
# is tracked all the same (vrdmactl parent show lists it: vrdma's client is
# no_kverbs_req).  A vdevice on the PCI-like parent is accepted and has no
# bus device of its own (Documentation/design.rst says why).
#
#   netns V: vV (on simpci)   init_net: simib, simiw, simnk, simpci on veths

# shellcheck source=selftests/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=selftests/lib-vdev.sh
. "$(dirname "$0")/lib-vdev.sh"

SIM_KO=$TOP/selftests/rdmasim/rdmasim.ko
SIMDBG=/sys/kernel/debug/rdmasim
VARIANT=/sys/module/rdmasim/parameters/variant

ktap_plan setup bad_variant_refused ib_link_layer ib_refused iwarp_refused \
	nokverbs_tracked nokverbs_refused pci_modalias pci_vdev_accepted \
	pci_vdev_no_bus_device refusals_left_nothing strict_clean \
	links_removed klog_clean

# sim_link NAME VARIANT N - a sim device NAME of VARIANT on a new veth pair
# (svNa, svNb).
sim_link() {
	local name=$1 variant=$2 n=$3
	in_init ip link add "sv${n}a" type veth peer name "sv${n}b" || return 1
	cleanup_push ip link del "sv${n}a"
	in_init ip link set "sv${n}a" up && in_init ip link set "sv${n}b" up &&
		echo "$variant" >"$VARIANT" &&
		in_init rdma link add "$name" type rdmasim netdev "sv${n}a" || return 1
	cleanup_push rdma link del "$name"
}

# refused NAME PARENT MESSAGE - vrdmactl dev add NAME on PARENT fails and
# says MESSAGE (an extended regular expression).
refused() {
	local out
	if out=$(in_init "$VRDMACTL" dev add "$1" parent "$2" netns "$V" 2>&1); then
		cleanup_push "$VRDMACTL" dev del "$1"
		ktap_diag "accepted: $out"
		return 1
	fi
	ktap_diag "$out"
	grep -qE -- "$3" <<<"$out"
}

mark=$(klog_mark)
tmpdir T
if [ -r "$SIM_KO" ] && load_modules &&
	{ [ -d /sys/module/rdmasim ] || in_init insmod "$SIM_KO"; } &&
	cleanup_push rmmod rdmasim && new_ns V v &&
	sim_link simib ib 1 && sim_link simiw iwarp 2 &&
	sim_link simnk nokverbs 3 && sim_link simpci pci 4; then
	ktap_ok setup
else
	ktap_fail setup "$(rdma dev 2>&1)"
	ktap_skip_rest "setup failed"
	ktap_finish
fi
echo roce >"$VARIANT"
strict0=$(cat "$SIMDBG/strict")

if ! echo nosuch >"$VARIANT" 2>/dev/null && [ "$(cat "$VARIANT")" = roce ]; then
	ktap_ok bad_variant_refused
else
	ktap_fail bad_variant_refused "now: $(cat "$VARIANT")"
	echo roce >"$VARIANT"
fi

ll=$(cat /sys/class/infiniband/simib/ports/1/link_layer 2>&1)
if [ "$ll" = InfiniBand ] &&
	[ "$(cat /sys/class/infiniband/simib/ports/1/gids/0)" != "0000:0000:0000:0000:0000:0000:0000:0000" ]; then
	ktap_ok ib_link_layer "GID 0 $(cat /sys/class/infiniband/simib/ports/1/gids/0)"
else
	ktap_fail ib_link_layer "link layer: $ll"
fi
if refused vIB simib 'InfiniBand link layer: vrdma supports RoCE parents only'; then
	ktap_ok ib_refused
else
	ktap_fail ib_refused
fi
if refused vIW simiw 'parent is iWARP: its connections need iw_cm'; then
	ktap_ok iwarp_refused
else
	ktap_fail iwarp_refused
fi

if in_init "$VRDMACTL" -j parent show | jq -e '[.. | strings] | index("simnk")' >/dev/null; then
	ktap_ok nokverbs_tracked "$("$VRDMACTL" parent show | tr '\n' ';')"
else
	ktap_fail nokverbs_tracked "$("$VRDMACTL" -j parent show)"
fi
if refused vNK simnk 'neither RoCE, InfiniBand nor iWARP'; then
	ktap_ok nokverbs_refused
else
	ktap_fail nokverbs_refused
fi

modalias=$(cat /sys/class/infiniband/simpci/device/modalias 2>/dev/null)
if [[ $modalias == pci:v00005153d00000001* ]]; then
	ktap_ok pci_modalias "$modalias"
else
	ktap_fail pci_modalias "modalias: '$modalias'"
fi
if vdev_add vV "$V" && [ "$(in_ns "$V" cat /sys/class/infiniband/vV/ports/1/link_layer)" = Ethernet ]; then
	ktap_ok pci_vdev_accepted
	# libibverbs matches a PCI provider by this file: the vdevice has none
	if in_ns "$V" test -e /sys/class/infiniband/vV/device; then
		ktap_fail pci_vdev_no_bus_device "$(in_ns "$V" ls -l /sys/class/infiniband/vV/device)"
	else
		ktap_ok pci_vdev_no_bus_device "PCI-matched providers (libhns) find no provider for it"
	fi
else
	ktap_fail pci_vdev_accepted
	ktap_skip pci_vdev_no_bus_device "no vdevice"
fi

left=$(in_init "$VRDMACTL" -j dev show | jq -r '.[].name' | grep -vx vV | tr '\n' ' ')
if [ -z "$left" ]; then
	ktap_ok refusals_left_nothing
else
	ktap_fail refusals_left_nothing "vdevices: $left"
fi
if [ "$(cat "$SIMDBG/strict")" = "$strict0" ]; then
	ktap_ok strict_clean
else
	ktap_fail strict_clean "$(dmesg | grep -a 'rdmasim: strict' | tail -5)"
fi

in_init "$VRDMACTL" dev del vV >/dev/null 2>&1
for d in simib simiw simnk simpci; do
	in_init rdma link del "$d"
done
if wait_for 10 grep -q '^dev 0$' "$SIMDBG/objects"; then
	ktap_ok links_removed
else
	ktap_fail links_removed "$(tr '\n' ' ' <"$SIMDBG/objects")"
fi
if klog_clean_since "$mark"; then
	ktap_ok klog_clean
else
	ktap_fail klog_clean
fi
ktap_finish
