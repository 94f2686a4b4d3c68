#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A podman "pod" gets its vdevice through the CNI plugin and CDI, with no
# privilege and no step by hand (Documentation/containers.rst, "Pods
# through CNI and CDI").  The pod is a sandbox container that owns the
# network namespace (what a pod's infra container is; podman's own infra
# container needs a pause image the test VM's runc does not start), and the
# pod's other containers join its network.
#
#   podman (CNI backend, containers.conf of this test) runs the conflist
#   "rdmanet-cdi": bridge + host-local, then tools/cni/vrdma
#
#   sandbox "vcA-PID-infra"                sandbox "vcB-PID-infra"
#     CNI ADD: vdevice in A's netns,         the same for B
#     /var/run/cdi/vrdma.io-pod-vcA-PID-infra.json
#     ctr --device vrdma.io/pod=vcA-PID-infra --user 1000
#       --cap-drop all: ibv_rc_pingpong ◄── bridge ──  ctr in B, client
#
#   cdi_spec_published   sandbox start: the CDI spec names the node
#   sees_only_its_device a container as uid 1000 without capabilities sees
#                        exactly its pod's vdevice and node
#   no_device_no_open    without --device the vdevice cannot be used
#   pingpong             RC ping-pong between the two pods' containers
#   two_attachments      a sandbox on two vrdma networks (eth0, eth1): two
#                        vdevices; device vrdma.io/pod=NAME gives both,
#                        NAME-eth1 only the second
#   pod_rm_cleans        sandbox rm: vdevice, state and CDI spec gone
#   start_time           sandbox start with and without vrdma in the chain
#   kernel_log_clean
#
# vm-test-timeout: 900

# shellcheck source=selftests/lib/lib.sh
. "$(dirname "$0")/lib/lib.sh"
# shellcheck source=selftests/lib/vdev.sh
. "$(dirname "$0")/lib/vdev.sh"
# shellcheck source=selftests/lib/image.sh
. "$(dirname "$0")/lib/image.sh"

ktap_plan image_imported cdi_spec_published sees_only_its_device \
	no_device_no_open pingpong two_attachments pod_rm_cleans start_time \
	kernel_log_clean

export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
CNI_DIR=/usr/lib/cni
PLUGIN=$TOP/tools/cni/vrdma
IMAGE=vrdma-cdi-test
if ! require_cmd podman jq ibv_rc_pingpong ldd tar "$CNI_DIR/bridge" \
	"$CNI_DIR/host-local" || [ ! -x "$PLUGIN" ]; then
	ktap_skip_rest "podman, the CNI plugins or tools/cni/vrdma missing"
	ktap_finish
fi

mark=$(klog_mark)
tmpdir T

# podman with the CNI backend, this test's plugin directory and networks
mkdir -p "$T/cni-bin" "$T/net.d" /var/run/cdi
ln -s "$PLUGIN" "$T/cni-bin/vrdma"
ln -s "$CNI_DIR/bridge" "$CNI_DIR/host-local" "$CNI_DIR/loopback" "$T/cni-bin/"
cat >"$T/containers.conf" <<EOF
[network]
network_backend = "cni"
cni_plugin_dirs = ["$T/cni-bin"]
network_config_dir = "$T/net.d"
EOF
export CONTAINERS_CONF=$T/containers.conf
STATE=/run/vrdma/cni/rdmanet-cdi
# The network of the test and, to time pod starts against, one without vrdma
conflist() {	# NAME SUBNET BRIDGE [VRDMA-PLUGIN-JSON]
	jq -n --arg n "$1" --arg s "$2" --arg b "$3" --argjson v "${4:-null}" '
	{cniVersion: "1.0.0", name: $n, plugins: ([
	  {type: "bridge", bridge: $b, isGateway: true,
	   ipam: {type: "host-local", ranges: [[{subnet: $s}]]}}] +
	  (if $v then [$v] else [] end))}' >"$T/net.d/$1.conflist"
}
conflist rdmanet-cdi 10.95.0.0/24 cni-vcdi0 \
	"$(jq -cn --arg p "$PARENT" '{type: "vrdma", parent: $p, gids: "shared", limits: {qp: 64}}')"
conflist rail2-cdi 10.93.0.0/24 cni-vcdi2 \
	"$(jq -cn --arg p "$PARENT" '{type: "vrdma", parent: $p}')"
conflist plain-cdi 10.94.0.0/24 cni-vcdi1
cleanup_push ip link del cni-vcdi0
cleanup_push ip link del cni-vcdi1
cleanup_push ip link del cni-vcdi2

# The image of selftests/runtimes/runtimes.sh (lib/image.sh), made on the host
# before the boot or else here
if image_get "$T" && tmpfs_at /var/lib/containers && tmpfs_at /var/lib/cni &&
   run_shown podman import "$IMAGE_TAR" "$IMAGE"; then
	ktap_ok image_imported "$IMAGE_FROM"
else
	ktap_fail image_imported
	ktap_skip_rest "no image"
	ktap_finish
fi

# pod NAME NETWORK - the sandbox NAME-infra, owner of the pod's network
pod() {
	run_shown podman run -d --name "$1-infra" --network "$2" "$IMAGE" sleep infinity &&
		cleanup_push podman rm -f -t 0 "$1-infra"
}

A=vcA-$$
B=vcB-$$
SPEC_A=/var/run/cdi/vrdma.io-pod-$A-infra.json
VDEV_A=
spec_published() {
	local node dev
	pod "$A" rdmanet-cdi && pod "$B" rdmanet-cdi || return 1
	ktap_diag "$SPEC_A: $(jq -c . "$SPEC_A")"
	node=$(jq -r '.devices[0].containerEdits.deviceNodes[0].path' "$SPEC_A")
	dev=$(jq -r '.[0].vdevice' <<<"[$(cat "$STATE"/*.json | jq -s -c \
		--arg id "$(podman inspect -f '{{.Id}}' "$A-infra")" \
		'.[] | select(.containerID == $id)')]")
	VDEV_A=$dev
	ktap_diag "pod $A: vdevice $dev, node $node"
	[ -n "$dev" ] && [ "$("$VRDMACTL" -j dev show "$dev" | jq -r '"/dev/infiniband/" + .[0].chardev')" = "$node" ] &&
		jq -e --arg a "$A-infra" '.kind == "vrdma.io/pod" and .devices[0].name == $a' "$SPEC_A" >/dev/null
}
ktap_check cdi_spec_published spec_published

# An unprivileged container of pod A: uid 1000, no capabilities
UNPRIV=(--user 1000:1000 --cap-drop all --security-opt no-new-privileges)
only_its_device() {
	run_shown podman run --rm --network "container:$A-infra" --device "vrdma.io/pod=$A-infra" "${UNPRIV[@]}" \
		"$IMAGE" sh -c 'id -u; ls /dev/infiniband; ibv_devices; ibv_devinfo -d '"$VDEV_A" ||
		return 1
	# uid 1000; the node (and rdma_cm); only its vdevice, which opens
	[ "$(head -n 1 "$T/out")" = 1000 ] &&
		[ "$(awk '$1 ~ /^uverbs/' "$T/out" | wc -l)" = 1 ] &&
		[ "$(awk '$2 ~ /^[0-9a-f]+$/ && length($2) == 16 { print $1 }' "$T/out" | xargs)" = "$VDEV_A" ] &&
		grep -q 'PORT_ACTIVE' "$T/out"
}
ktap_check sees_only_its_device only_its_device

no_device() {
	[ -n "$VDEV_A" ] || return 1
	! run_shown podman run --rm --network "container:$A-infra" "${UNPRIV[@]}" "$IMAGE" ibv_devinfo -d "$VDEV_A" &&
		grep -q "Failed to open\|wasn't found" "$T/out"
}
ktap_check no_device_no_open no_device

# server_listening CONTAINER - ibv_rc_pingpong's server in CONTAINER has
# opened its out-of-band port (18515, its default)
server_listening() {
	local pid
	pid=$(podman inspect -f '{{.State.Pid}}' "$1" 2>/dev/null) || return 1
	[ "${pid:-0}" -gt 0 ] &&
		nsenter -t "$pid" -n ss -Hltn 'sport = :18515' 2>/dev/null | grep -q .
}
pingpong() {
	local ip_a vdev_b rc
	ip_a=$(podman inspect -f '{{(index .NetworkSettings.Networks "rdmanet-cdi").IPAddress}}' "$A-infra")
	vdev_b=$(run_shown podman run --rm --network "container:$B-infra" --device "vrdma.io/pod=$B-infra" "${UNPRIV[@]}" \
		"$IMAGE" ibv_devices && awk '$2 ~ /^[0-9a-f]+$/ && length($2) == 16 { print $1 }' "$T/out")
	ktap_diag "pod A at $ip_a with $VDEV_A, pod B with $vdev_b"
	run_shown podman run -d --name "pp-$$" --network "container:$A-infra" --device "vrdma.io/pod=$A-infra" "${UNPRIV[@]}" \
		"$IMAGE" ibv_rc_pingpong -d "$VDEV_A" -g 1 -n "$PP_ITERS" || return 1
	cleanup_push podman rm -f "pp-$$"
	wait_for 30 server_listening "pp-$$" || return 1
	run_shown podman run --rm --network "container:$B-infra" --device "vrdma.io/pod=$B-infra" "${UNPRIV[@]}" \
		"$IMAGE" ibv_rc_pingpong -d "$vdev_b" -g 1 -n "$PP_ITERS" "$ip_a" || return 1
	grep -q 'bytes in' "$T/out" || return 1
	rc=$(podman wait "pp-$$")
	run_shown podman logs "pp-$$"
	[ "$rc" = 0 ] && grep -q 'bytes in' "$T/out"
}
ktap_check pingpong pingpong

# devices_seen SANDBOX CDI-DEVICE - the vdevices a container given
# CDI-DEVICE lists, sorted
devices_seen() {
	run_shown podman run --rm --network "container:$1" --device "vrdma.io/pod=$2" \
		"${UNPRIV[@]}" "$IMAGE" ibv_devices || return 1
	awk '$2 ~ /^[0-9a-f]+$/ && length($2) == 16 { print $1 }' "$T/out" | sort | xargs
}
two_attachments() {
	local c=vcC-$$ both one spec
	run_shown podman run -d --name "$c-infra" --network rdmanet-cdi --network rail2-cdi \
		"$IMAGE" sleep infinity || return 1
	cleanup_push podman rm -f -t 0 "$c-infra"
	spec=/var/run/cdi/vrdma.io-pod-$c-infra.json
	ktap_diag "$spec devices: $(jq -c '[.devices[] | {name, nodes: [.containerEdits.deviceNodes[].path]}]' "$spec")"
	both=$(devices_seen "$c-infra" "$c-infra") || return 1
	one=$(devices_seen "$c-infra" "$c-infra-eth1") || return 1
	ktap_diag "vrdma.io/pod=$c-infra: $both; vrdma.io/pod=$c-infra-eth1: $one"
	[ "$(wc -w <<<"$both")" = 2 ] && [ "$(wc -w <<<"$one")" = 1 ] &&
		grep -qw -- "$one" <<<"$both" &&
		jq -e --arg c "$c-infra" '[.devices[].name] == [$c, $c + "-eth0", $c + "-eth1"]' \
			"$spec" >/dev/null
}
ktap_check two_attachments two_attachments

pod_rm() {
	[ -n "$VDEV_A" ] && [ -e "$SPEC_A" ] || return 1
	# The containers that joined its network go first
	run_shown podman rm -f -t 0 "pp-$$"
	run_shown podman rm -f -t 0 "$A-infra" || return 1
	! "$VRDMACTL" dev show "$VDEV_A" >/dev/null 2>&1 && [ ! -e "$SPEC_A" ] &&
		! grep -ls "\"vdevice\":\"$VDEV_A\"" "$STATE"/*.json
}
ktap_check pod_rm_cleans pod_rm

# pod start with and without vrdma in the chain: what the ADD adds.  One
# start each, not the median of three: the figure is a diagnostic that no
# check reads, and each create, start and rm takes some 20 s under TCG.
start_time() {
	local net t0 t1 with without
	for net in rdmanet-cdi plain-cdi; do
		run_shown podman create --name "t-$net-$$" --network "$net" "$IMAGE" \
			sleep infinity || return 1
		t0=$EPOCHREALTIME
		run_shown podman start "t-$net-$$" || return 1
		t1=$EPOCHREALTIME
		run_shown podman rm -f -t 0 "t-$net-$$" || return 1
		t0=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", (b - a) * 1000 }')
		if [ "$net" = rdmanet-cdi ]; then with=$t0; else without=$t0; fi
	done
	ktap_diag "podman start of a sandbox, ms, with vrdma: $with; without: $without (TCG guest)"
}
ktap_check start_time start_time

ktap_check kernel_log_clean klog_clean_since "$mark"
ktap_finish
