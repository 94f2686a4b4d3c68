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
# no_kverbs_req).
#
# The PCI-like parent presents an hns v2 function's PCI id, so Debian's
# stock libhns (which binds by PCI id alone) takes it natively.  A vdevice
# on it is accepted and gets a bus-less parent device of vrdma's carrying a
# copy of the parent's modalias (Documentation/design.rst): libhns binds to
# the vdevice in its netns; the vdevice has no MODALIAS uevent variable,
# udev's rdma_rename leaves it alone, another namespace does not see it,
# and the alias device goes with the vdevice; a second vdevice of its
# name, and failures injected before and after the alias is added, leave
# nothing behind.  Opening the device fails
# (rdmasim does not speak hns's ABI), the same way natively and on the
# vdevice.
#
# The pdquery2 parent declares its PD_QUERY driver method with one more
# mandatory attribute than vrdma's declaration (kmod/fwd_rdmasim.c): the
# method answers natively per that ABI, but a vdevice must not run it
# (EOPNOTSUPP), while its other driver methods are still forwarded.
#
# The vmops parent maps its pages with vm_ops of its own that have a
# fault handler (chained to the core's): natively every mapping works; a
# vdevice cannot forward a fault safely (kmod/vma.c), so its mmap() is
# refused with EOPNOTSUPP, after the parent's close undid the parent's
# mmap, and nothing stays mapped, counted or pinned.
#
# The rawmap parent maps a page of each context with remap_pfn_range(),
# which the RDMA core neither tracks nor zaps, and frees it with the
# context, as 6.1's bnxt_re (its shared page) and pvrdma (its UAR) do;
# like them it has no disassociate_ucontext, so natively the context
# outlives the mappings.  A vdevice always disassociates (dev del, netns
# death, parent removal): were such a mapping let through, the tenant
# would keep the freed page mapped after "dev del".  So a vdevice refuses
# it (EOPNOTSUPP), and nothing of the tenant's stays mapped after dev del.
# The pvrdma parent presents vmw_pvrdma's driver id, whose every mapping
# is of that kind: dev add refuses it and says why.
#
#   netns V: vV (on simpci), vQ (on simpq), vM (on simvm), vR (on simrm)
#   netns W: nothing
#   init_net: simib, simiw, simnk, simpci, simpq, simvm, simrm, then simpv,
#   on veths

# shellcheck source=selftests/lib/lib.sh
. "$(dirname "$0")/lib/lib.sh"
# shellcheck source=selftests/lib/vdev.sh
. "$(dirname "$0")/lib/vdev.sh"
# shellcheck source=selftests/lib/sim.sh
. "$(dirname "$0")/lib/sim.sh"

PDQ=$TOP/selftests/progs/sim_pdquery
RAW=$TOP/selftests/progs/sim_raw
VARIANT=/sys/module/rdmasim/parameters/variant
PARENT=simpci
# An hns v2 RoCE function (Huawei 19e5:a222), which libhns binds
HNS_MODALIAS=pci:v000019E5d0000A222sv000019E5sd00000000bc02sc00i00

ktap_plan setup bad_variant_refused ib_link_layer ib_refused iwarp_refused \
	nokverbs_tracked nokverbs_refused pci_modalias pci_native_provider \
	pci_vdev_accepted pci_vdev_modalias pci_vdev_provider \
	pci_vdev_no_modalias_uevent pci_vdev_rdma_rename_untouched \
	pci_vdev_open_fails_alike pci_other_ns_sees_nothing pci_dup_name_refused \
	pci_alias_fault_unwound pci_register_fault_unwound \
	pdquery2_native pdquery2_vdev_unmatched pdquery2_released \
	vmops_native vmops_vdev_refused vmops_released \
	rawmap_native rawmap_vdev_refused rawmap_nothing_mapped_after_del \
	rawmap_released pvrdma_refused \
	refusals_left_nothing strict_clean pci_alias_gone links_removed \
	klog_clean

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

# add_refused NAME PARENT MESSAGE - vrdmactl dev add NAME on PARENT fails and
# says MESSAGE (an extended regular expression).
add_refused() {
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
	cleanup_push rmmod rdmasim && new_ns V v && new_ns W w &&
	sim_link simib ib 1 && sim_link simiw iwarp 2 &&
	sim_link simnk nokverbs 3 && sim_link simpci pci 4 &&
	sim_link simpq pdquery2 5 && sim_link simvm vmops 6 &&
	sim_link simrm rawmap 7; then
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
if add_refused vIB simib 'InfiniBand link layer: vrdma supports RoCE parents only'; then
	ktap_ok ib_refused
else
	ktap_fail ib_refused
fi
if add_refused vIW simiw 'parent is iWARP: its connections need iw_cm'; then
	ktap_ok iwarp_refused
else
	ktap_fail iwarp_refused
fi

if in_init "$VRDMACTL" -j parent show | jq -e '[.. | strings] | index("simnk")' >/dev/null; then
	ktap_ok nokverbs_tracked "$("$VRDMACTL" parent show | tr '\n' ';')"
else
	ktap_fail nokverbs_tracked "$("$VRDMACTL" -j parent show)"
fi
if add_refused vNK simnk 'neither RoCE, InfiniBand nor iWARP'; then
	ktap_ok nokverbs_refused
else
	ktap_fail nokverbs_refused
fi

# ibv_list NS|init - the devices libibverbs binds a provider to, seen
# from netns NS or the initial one, one per line.
ibv_list() {
	if [ "$1" = init ]; then
		in_init ibv_devices
	else
		in_ns "$1" ibv_devices
	fi 2>&1 | awk 'NR > 2 { print $1 }'
}

# devinfo NS|init DEV - ibv_devinfo -d DEV's exit status and output, DEV
# spelled "DEV" in it.
devinfo() {
	local ns=$1 dev=$2 out rc
	if [ "$ns" = init ]; then
		out=$(in_init ibv_devinfo -d "$dev" 2>&1)
	else
		out=$(in_ns "$ns" ibv_devinfo -d "$dev" 2>&1)
	fi
	rc=$?
	echo "rc=$rc ${out//$dev/DEV}"
}

modalias=$(cat /sys/class/infiniband/simpci/device/modalias 2>/dev/null)
if [ "$modalias" = "$HNS_MODALIAS" ]; then
	ktap_ok pci_modalias "$modalias"
else
	ktap_fail pci_modalias "modalias: '$modalias'"
fi
if ibv_list init | grep -qx simpci; then
	ktap_ok pci_native_provider "libhns binds simpci"
else
	ktap_fail pci_native_provider "ibv_devices: $(ibv_list init | tr '\n' ' ')"
fi
if vdev_add vV "$V" && [ "$(in_ns "$V" cat /sys/class/infiniband/vV/ports/1/link_layer)" = Ethernet ]; then
	ktap_ok pci_vdev_accepted
	vdev_ok=1
	vmod=$(in_ns "$V" cat /sys/class/infiniband/vV/device/modalias 2>&1)
	ktap_diag "vV's device: $(in_ns "$V" readlink -f /sys/class/infiniband/vV/device): $(in_ns "$V" ls /sys/class/infiniband/vV/device/ | tr '\n' ' ')"
	if [ "$vmod" = "$modalias" ]; then
		ktap_ok pci_vdev_modalias "$vmod"
	else
		ktap_fail pci_vdev_modalias "vV's modalias: '$vmod'"
	fi
	if ibv_list "$V" | grep -qx vV; then
		ktap_ok pci_vdev_provider "libhns binds vV in its netns"
	else
		ktap_fail pci_vdev_provider "ibv_devices in V: '$(ibv_list "$V" | tr '\n' ' ')'"
	fi
	# A MODALIAS uevent variable would have udev load modules for it
	uev=$(in_ns "$V" cat /sys/class/infiniband/vV/uevent /sys/class/infiniband/vV/device/uevent 2>&1)
	if ! grep -q MODALIAS <<<"$uev" && in_ns "$V" test -e /sys/class/infiniband/vV/device; then
		ktap_ok pci_vdev_no_modalias_uevent "$(tr '\n' ' ' <<<"$uev")"
	else
		ktap_fail pci_vdev_no_modalias_uevent "$(tr '\n' ' ' <<<"$uev")"
	fi
	# As udev's 60-rdma-persistent-naming.rules would: it renames by the
	# device's onboard index (device/acpi_index, device/index) or PCI
	# address (device/subsystem is "pci"), which the alias has neither of
	in_ns "$V" /usr/lib/udev/rdma_rename vV NAME_FALLBACK
	rc=$?
	if [ "$rc" -ne 0 ] && in_ns "$V" test -e /sys/class/infiniband/vV &&
		in_init "$VRDMACTL" -j dev show | jq -e '.[] | select(.name == "vV")' >/dev/null; then
		ktap_ok pci_vdev_rdma_rename_untouched "rdma_rename exit $rc"
	else
		ktap_fail pci_vdev_rdma_rename_untouched "rdma_rename exit $rc; $(in_ns "$V" ls /sys/class/infiniband/ | tr '\n' ' ')"
	fi
	native=$(devinfo init simpci)
	virt=$(devinfo "$V" vV)
	ktap_diag "natively: $native"
	ktap_diag "vdevice:  $virt"
	if [[ $native != rc=0* ]] && [ "$native" = "$virt" ]; then
		ktap_ok pci_vdev_open_fails_alike
	else
		ktap_fail pci_vdev_open_fails_alike
	fi
	wsees="$(in_ns "$W" ls /sys/class/infiniband/ 2>&1) $(ibv_list "$W")"
	if ! grep -qw vV <<<"$wsees"; then
		ktap_ok pci_other_ns_sees_nothing "$(tr '\n' ' ' <<<"$wsees")"
	else
		ktap_fail pci_other_ns_sees_nothing "$(tr '\n' ' ' <<<"$wsees")"
	fi
else
	ktap_fail pci_vdev_accepted
	for t in pci_vdev_modalias pci_vdev_provider pci_vdev_no_modalias_uevent \
		pci_vdev_rdma_rename_untouched pci_vdev_open_fails_alike \
		pci_other_ns_sees_nothing pci_dup_name_refused; do
		ktap_skip "$t" "no vdevice"
	done
fi

FAIL=/sys/kernel/debug/vrdma/fail
# nr_alias - vrdma's count of alias devices
nr_alias() {
	awk '$1 == "alias" { print $2 }' /sys/kernel/debug/vrdma/objects
}

# pci_left NAME ALIASES - nothing of vdevice NAME is left and vrdma counts
# ALIASES alias devices.
pci_left() {
	[ "$(nr_alias)" = "$2" ] && [ ! -e "/sys/devices/virtual/vrdma/$1" ] &&
		! in_init "$VRDMACTL" -j dev show | jq -e --arg n "$1" '.[] | select(.name == $n)' >/dev/null
}

if [ -n "${vdev_ok:-}" ]; then
	n0=$(nr_alias)
	# The alias of the first is untouched, no second one, no sysfs warning
	if add_refused vV simpci 'an RDMA device with this name exists' &&
		[ "$(nr_alias)" = "$n0" ] &&
		[ "$(cat /sys/devices/virtual/vrdma/vV/modalias 2>&1)" = "$modalias" ]; then
		ktap_ok pci_dup_name_refused "aliases: $n0"
	else
		ktap_fail pci_dup_name_refused "aliases: $n0 -> $(nr_alias)"
	fi
fi
n0=$(nr_alias)
for point in alias register; do
	echo 1 >"$FAIL/$point"
	if add_refused vF simpci 'modalias failed|registering the RDMA device failed' &&
		pci_left vF "$n0" && [ "$(cat "$FAIL/$point")" = 0 ]; then
		ktap_ok "pci_${point}_fault_unwound" "aliases: $n0"
	else
		ktap_fail "pci_${point}_fault_unwound" "aliases: $n0 -> $(nr_alias), knob $(cat "$FAIL/$point")"
	fi
	echo 0 >"$FAIL/$point"
done

# pdq_is OUT EXPECTED... - sim_pdquery's OUT has each "CHECK STATUS" line
# of EXPECTED (STATUS "ok" or an errno name).
pdq_is() {
	local out=$1 want
	shift
	for want in "$@"; do
		grep -q "^$want\b" <<<"$out" || return 1
	done
}

out=$(in_init "$PDQ" simpq 2>&1)
ktap_diag "$out"
if pdq_is "$out" "pd_query_flags ok" "pd_query_plain err EINVAL" "uar_alloc ok"; then
	ktap_ok pdquery2_native
else
	ktap_fail pdquery2_native
fi
drv0=$(awk '$1 == "drvobj" { print $2 }' /sys/kernel/debug/vrdma/objects)
if in_init "$VRDMACTL" dev add vQ parent simpq netns "$V" >/dev/null; then
	cleanup_push "$VRDMACTL" dev del vQ
	out=$(in_ns "$V" "$PDQ" vQ 2>&1)
	ktap_diag "$out"
	if pdq_is "$out" "pd_query_flags err EOPNOTSUPP" \
		"pd_query_plain err EOPNOTSUPP" "uar_alloc ok"; then
		ktap_ok pdquery2_vdev_unmatched
	else
		ktap_fail pdquery2_vdev_unmatched
	fi
	in_init "$VRDMACTL" dev del vQ >/dev/null
	drv1=$(awk '$1 == "drvobj" { print $2 }' /sys/kernel/debug/vrdma/objects)
	if [ "$drv1" = "$drv0" ] && ! in_init "$VRDMACTL" -j dev show | jq -e '.[] | select(.name == "vQ")' >/dev/null; then
		ktap_ok pdquery2_released "drvobj $drv0 -> $drv1"
	else
		ktap_fail pdquery2_released "drvobj $drv0 -> $drv1"
	fi
else
	ktap_fail pdquery2_vdev_unmatched "vQ not created"
	ktap_skip pdquery2_released "no vdevice"
fi

base=$(sim_objects)
vma0=$(sim_count vma)
# (a subshell that execs it: $! must be sim_raw itself)
(
	echo "# [init] $RAW simvm 120 &" >&"$KTAP_FD"
	exec "$RAW" simvm 120 >"$T/vm_native" 2>&1
) &
pid=$!
held=
wait_for 30 grep -q '^holding' "$T/vm_native" && held=$(sim_count vma)
# Looked: let it tear down (sim_raw holds until SIGUSR1)
kill -USR1 "$pid" 2>/dev/null
wait "$pid"
rc=$?
ktap_diag "$(tr '\n' ' ' <"$T/vm_native")"
# The doorbell page, the CQ ring and the two work queues
if [ "$rc" = 0 ] && [ "$held" = "$((vma0 + 4))" ] &&
	wait_for 10 sim_objects_is "$base"; then
	ktap_ok vmops_native "VMAs under rdmasim's vm_ops: $vma0, $held held, $(sim_count vma) after"
else
	ktap_fail vmops_native "exit $rc, VMAs $vma0 -> $held while held; now $(sim_objects), at rest: $base"
fi
# check_vdev_released NAME VDEV - report NAME: ok once rdmasim's objects are
# back to $base, vrdma's to $vbase and vrdmactl no longer lists VDEV.
check_vdev_released() {
	if wait_for 10 sim_objects_is "$base" && wait_for 10 vrdma_objects_is "$vbase" &&
		! in_init "$VRDMACTL" -j dev show | jq -e ".[] | select(.name == \"$2\")" >/dev/null; then
		ktap_ok "$1" "rdmasim: $(sim_objects); vrdma: $(vrdma_objects)"
	else
		ktap_fail "$1" "rdmasim: $(sim_objects) (at rest: $base); vrdma: $(vrdma_objects) (before: $vbase)"
	fi
}
vbase=$(vrdma_objects)
if in_init "$VRDMACTL" dev add vM parent simvm netns "$V" >/dev/null; then
	cleanup_push "$VRDMACTL" dev del vM
	out=$(in_ns "$V" "$RAW" vM 2>&1)
	rc=$?
	ktap_diag "$out"
	if [ "$rc" != 0 ] && pdq_is "$out" "uar_alloc ok" "uar_mmap err EOPNOTSUPP"; then
		ktap_ok vmops_vdev_refused
	else
		ktap_fail vmops_vdev_refused "exit $rc"
	fi
	in_init "$VRDMACTL" dev del vM >/dev/null
	check_vdev_released vmops_released vM
else
	ktap_fail vmops_vdev_refused "vM not created"
	ktap_skip vmops_released "no vdevice"
fi

RAWMAP=$TOP/selftests/progs/sim_rawmap
base=$(sim_objects)
out=$(in_init "$RAWMAP" simrm 2>&1)
rc=$?
ktap_diag "$out"
if [ "$rc" = 0 ] && grep -q '^ctx_page_write ok' <<<"$out" &&
	wait_for 10 sim_objects_is "$base"; then
	ktap_ok rawmap_native
else
	ktap_fail rawmap_native "exit $rc; rdmasim: $(sim_objects) (at rest: $base)"
fi
# uverbs_maps PID - PID's mappings of a uverbs device file
uverbs_maps() {
	grep -a '/dev/infiniband/uverbs' "/proc/$1/maps" 2>/dev/null
}
vbase=$(vrdma_objects)
if in_init "$VRDMACTL" dev add vR parent simrm netns "$V" >/dev/null; then
	cleanup_push "$VRDMACTL" dev del vR
	(
		echo "# [$V] $RAWMAP vR 30 &" >&"$KTAP_FD"
		exec ip netns exec "$V" "$RAWMAP" vR 30 >"$T/rm_vdev" 2>&1
	) &
	pid=$!
	wait_for 30 grep -qE '^(holding|ctx_page_mmap err)' "$T/rm_vdev"
	ktap_diag "$(tr '\n' ' ' <"$T/rm_vdev")"
	if grep -q '^ctx_page_mmap err EOPNOTSUPP' "$T/rm_vdev"; then
		ktap_ok rawmap_vdev_refused
	else
		ktap_fail rawmap_vdev_refused "a page the parent frees at dev del is mapped: $(uverbs_maps "$pid" | tr '\n' ' ')"
	fi
	in_init "$VRDMACTL" dev del vR >/dev/null
	maps=$(uverbs_maps "$pid")
	if [ -z "$maps" ]; then
		ktap_ok rawmap_nothing_mapped_after_del
	else
		ktap_fail rawmap_nothing_mapped_after_del "after dev del the tenant still maps: $maps"
	fi
	kill "$pid" 2>/dev/null
	wait "$pid"
	check_vdev_released rawmap_released vR
else
	ktap_fail rawmap_vdev_refused "vR not created"
	ktap_skip rawmap_nothing_mapped_after_del "no vdevice"
	ktap_skip rawmap_released "no vdevice"
fi
# Made last: libibverbs would load libvmw_pvrdma for it and warn in the
# output the pci checks compare
if sim_link simpv pvrdma 8 && add_refused vP simpv "vmw_pvrdma.*revoke"; then
	ktap_ok pvrdma_refused
else
	ktap_fail pvrdma_refused
fi
echo roce >"$VARIANT"

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

alias=$(find /sys/devices/virtual/vrdma -maxdepth 1 -name vV 2>/dev/null)
in_init "$VRDMACTL" dev del vV >/dev/null 2>&1
if [ -n "$alias" ] &&
	[ -z "$(find /sys/devices/virtual/vrdma -maxdepth 1 -name vV 2>/dev/null)" ]; then
	ktap_ok pci_alias_gone "before: $alias"
else
	ktap_fail pci_alias_gone "before: '$alias', after: '$(ls /sys/devices/virtual/vrdma 2>&1)'"
fi
for d in simib simiw simnk simpci simpq simvm simrm simpv; do
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
