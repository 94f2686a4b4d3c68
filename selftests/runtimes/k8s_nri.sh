#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Kubernetes' route on containerd (Documentation/kubernetes.rst): the vrdma
# NRI plugin (tools/nri, vrdma-nri(8)) gives each container the device
# nodes of its pod's network namespace.  Debian 13's containerd 1.7 (run
# from the trixie chroot scripts/deps-trixie.sh makes: it needs glibc 2.34,
# which the guest has; runc is Debian 12's) with NRI and CDI on, driven
# through its CRI API as kubelet drives it (selftests/cri, a gRPC client
# of runtime v1): RunPodSandbox runs the CNI chain, CreateContainer and
# StartContainer a container as uid 1000 without capabilities.
#
#   containerd (own root, state and socket) ── NRI socket ── vrdma-nri
#     runtime handler "runc":  net.d/        bridge cni-nri0 + vrdma
#     runtime handler "plain": net.d-plain/  bridge cni-nri1 only
#
#   pod A [a1, a2] ── bridge 10.92.0.0/24 ── pod B [b1]     RoCE via rxe0
#   pod C [c1] (handler "plain")
#
#   containerd_started    containerd 1.7, the plugin registered, the image
#   sees_only_its_vdev    a1: uid 1000, /dev/infiniband has A's uverbs node
#                         (its device number sysfs gives A's vdevice) and
#                         rdma_cm only, the OCI spec's device rules allow
#                         both, ibv_devices lists A's vdevice
#   pingpong              ibv_rc_pingpong between a1 and b1
#   no_rdma_no_node       c1 in pod C (no vrdma in its chain): no node
#   plugin_killed         the plugin killed: a1 still opens its device; a
#                         container made meanwhile runs and has no node
#   plugin_restarted      the plugin again: the next container of pod A,
#                         a2, has the node and sees A's vdevice alone
#   two_containers        a1 and a2 both open A's vdevice
#   pod_rm_cleans         StopPodSandbox + RemovePodSandbox of A and B:
#                         vdevices (seen by vrdmactl before), CNI state,
#                         records, CDI specs and the pods' cgroups (the
#                         device rules; there before) gone
#   kernel_log_clean
#
# vm-test-timeout: 600

# shellcheck source=selftests/lib/lib.sh
. "$(dirname "$0")/lib/lib.sh"
# shellcheck source=selftests/lib/vdev.sh
. "$(dirname "$0")/lib/vdev.sh"
IMAGE_CMDS="sh ls cat sleep id ibv_devices ibv_devinfo ibv_rc_pingpong"
# shellcheck source=selftests/lib/image.sh
. "$(dirname "$0")/lib/image.sh"

ktap_plan containerd_started sees_only_its_vdev pingpong no_rdma_no_node \
	plugin_killed plugin_restarted two_containers pod_rm_cleans \
	kernel_log_clean

START=$EPOCHREALTIME
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
TRIXIE=${VRDMA_CACHE:-/var/cache/vrdma}/trixie
CNI_DIR=/usr/lib/cni
PLUGIN=$TOP/tools/cni/vrdma
NRI=$TOP/tools/nri/vrdma-nri
CRI_BIN=$TOP/selftests/cri/cri
IMAGE=docker.io/library/vrdma-nri-test:latest
STATE=/run/vrdma/cni/rdmanet-nri
RECORDS=/run/vrdma/cni/.records
if ! require_cmd jq runc ldd tar ss "$CNI_DIR/bridge" "$CNI_DIR/host-local" \
	"$CNI_DIR/loopback" "$TRIXIE/usr/bin/containerd" \
	"$TRIXIE/usr/bin/containerd-shim-runc-v2" "$TRIXIE/usr/bin/ctr" ||
   [ ! -x "$PLUGIN" ] || [ ! -x "$NRI" ] || [ ! -x "$CRI_BIN" ]; then
	ktap_skip_rest "containerd 1.7 (scripts/deps-trixie.sh), the CNI plugins, tools/cni/vrdma, tools/nri/vrdma-nri or selftests/cri missing"
	ktap_finish
fi

mark=$(klog_mark)
tmpdir T

elapsed() {
	awk -v a="$START" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }'
}

SOCK=$T/containerd.sock
cri() {
	"$CRI_BIN" -s "$SOCK" "$@"
}

# --- containerd 1.7 with NRI and CDI, and its CNI networks ----------------------------------

# containerd's binaries from the chroot, runc from the guest
mkdir -p "$T/bin" "$T/cni-bin" "$T/net.d" "$T/net.d-plain" "$T/nri-plugins" \
	"$T/nri-conf" "$T/root" "$T/state" /var/run/cdi
ln -s "$TRIXIE"/usr/bin/containerd "$TRIXIE"/usr/bin/containerd-shim-runc-v2 \
	"$TRIXIE"/usr/bin/ctr "$T/bin/"
ln -s "$PLUGIN" "$T/cni-bin/vrdma"
ln -s "$CNI_DIR/bridge" "$CNI_DIR/host-local" "$CNI_DIR/loopback" "$T/cni-bin/"
mount -t tmpfs -o mode=0711 tmpfs "$T/root" && cleanup_push umount -R -l "$T/root"
conflist() {	# DIR NAME SUBNET BRIDGE [VRDMA-PLUGIN-JSON]
	jq -n --arg n "$2" --arg s "$3" --arg b "$4" --argjson v "${5:-null}" '
	{cniVersion: "1.0.0", name: $n, plugins: ([
	  {type: "bridge", bridge: $b, ipam: {type: "host-local", ranges: [[{subnet: $s}]]}}] +
	  (if $v then [$v] else [] end))}' >"$1/10-$2.conflist"
}
conflist "$T/net.d" rdmanet-nri 10.92.0.0/24 cni-nri0 \
	"$(jq -cn --arg p "$PARENT" '{type: "vrdma", parent: $p, gids: "shared", limits: {qp: 64}}')"
conflist "$T/net.d-plain" plain-nri 10.91.0.0/24 cni-nri1
cleanup_push ip link del cni-nri0
cleanup_push ip link del cni-nri1
cat >"$T/config.toml" <<EOF2
version = 2
disabled_plugins = ["io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs",
  "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.aufs"]
root = "$T/root"
state = "$T/state"
[grpc]
  address = "$SOCK"
[plugins."io.containerd.nri.v1.nri"]
  disable = false
  socket_path = "$T/nri.sock"
  plugin_path = "$T/nri-plugins"
  plugin_config_path = "$T/nri-conf"
  plugin_registration_timeout = "5s"
  plugin_request_timeout = "5s"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$IMAGE"
  enable_cdi = true
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "$T/cni-bin"
    conf_dir = "$T/net.d"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        BinaryName = "$(command -v runc)"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.plain]
      runtime_type = "io.containerd.runc.v2"
      cni_conf_dir = "$T/net.d-plain"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.plain.options]
        BinaryName = "$(command -v runc)"
EOF2

# pstart PID - when PID started (field 22 of its stat); nothing if gone
pstart() {
	awk '{ print $22 }' "/proc/$1/stat" 2>/dev/null
}

# stop PID START - kill PID and wait for it, if it is still the process
# that started at START (not a later one given the same PID)
stop() {
	[ -n "$2" ] && [ "$(pstart "$1")" = "$2" ] || return 0
	kill "$1" && wait_gone 30 "$1"
}

# daemon VAR LOG CMD... - start a daemon, stop it at exit
daemon() {
	local var=$1 log=$2 pid
	shift 2
	echo "# [init] $* &" >&"$KTAP_FD"
	"$@" >>"$log" 2>&1 &
	pid=$!
	cleanup_push stop "$pid" "$(pstart "$pid")"
	printf -v "$var" '%s' "$pid"
}

# plugin_registered N - the plugin has registered N times
plugin_registered() {
	[ "$(grep -c 'Started plugin' "$T/nri.log" 2>/dev/null)" -ge "$1" ]
}

# The image: made on the host by "make nri" (selftests/cri/mkimage.sh, a
# second there, a minute here), else here while containerd starts
start_containerd() {
	local v img tar=$TOP/selftests/cri/image.tar
	daemon CONTAINERD "$T/containerd.log" env PATH="$T/bin:$(dirname "$VRDMACTL"):$PATH" \
		containerd --config "$T/config.toml" || return 1
	if [ -s "$tar" ]; then
		ln -s "$tar" "$T/image.tar" &
	else
		{ image_rootfs "$T/rootfs" &&
			image_archive "$T/rootfs" "$T/image.tar" "$IMAGE" sleep infinity; } &
	fi
	img=$!
	wait_for 120 test -S "$SOCK" || return 1
	v=$("$T/bin/ctr" --address "$SOCK" version 2>&1 | awk '/Server:/ { s = 1 } s && /Version:/ { print $2; exit }')
	ktap_diag "containerd $v up after $(elapsed) s"
	[[ $v == 1.7.* ]] || return 1
	wait "$img" || return 1
	ktap_diag "image ready after $(elapsed) s"
	run_shown "$T/bin/ctr" --address "$SOCK" -n k8s.io images import "$T/image.tar" || return 1
	ktap_diag "image imported after $(elapsed) s"
	daemon NRI_PID "$T/nri.log" "$NRI" -socket "$T/nri.sock" || return 1
	wait_for 30 plugin_registered 1
}
if start_containerd; then
	ktap_ok containerd_started "after $(elapsed) s"
else
	ktap_fail containerd_started
	tail -n 20 "$T/containerd.log" "$T/nri.log" | sed 's/^/#   /' >&"$KTAP_FD"
	ktap_skip_rest "no containerd"
	ktap_finish
fi

# --- pods and containers, through CRI -----------------------------------------------------

# pod VAR NAME [HANDLER] - RunPodSandbox; its ID in VAR, removed at exit
# unless rmpod removed it
PODS=()
pod() {
	local id
	echo "# [cri] runp $2 ${3:-}" >&"$KTAP_FD"
	id=$(cri runp "$2" "${3:-}" 2>"$T/err") || { sed 's/^/#   /' "$T/err" >&"$KTAP_FD"; return 1; }
	PODS+=("$id")
	printf -v "$1" '%s' "$id"
}

# rmpod POD-ID - StopPodSandbox, RemovePodSandbox
rmpod() {
	echo "# [cri] stopp, rmp ${1:0:12}" >&"$KTAP_FD"
	cri stopp "$1" && cri rmp "$1" || return 1
	PODS=("${PODS[@]/$1/}")
}
rm_pods() {
	local p
	for p in "${PODS[@]}"; do
		[ -z "$p" ] || rmpod "$p"
	done
}
cleanup_push rmdir /sys/fs/cgroup/vrdma-cri
cleanup_push eval 'rmdir /sys/fs/cgroup/vrdma-cri/*'
cleanup_push rm_pods

# ctr VAR POD-ID POD NAME - CreateContainer + StartContainer (sleep infinity)
ctr() {
	local id
	echo "# [cri] create+start $4 in pod $3" >&"$KTAP_FD"
	if ! id=$(cri create "$2" "$3" "$4" "$IMAGE" sleep infinity 2>"$T/err") ||
	   ! cri start "$id" 2>"$T/err"; then
		sed 's/^/#   /' "$T/err" >&"$KTAP_FD"
		return 1
	fi
	printf -v "$1" '%s' "$id"
}

# cexec CTR-ID CMD... - ExecSync with the output in $T/out
cexec() {
	local id=$1
	shift
	echo "# [cri] exec ${id:0:12} $*" >&"$KTAP_FD"
	cri exec "$id" 120 "$@" >"$T/out" 2>&1
	local rc=$?
	[ -s "$T/out" ] && sed 's/^/#   /' "$T/out" | head -n 30 >&"$KTAP_FD"
	return "$rc"
}

# listening NETNS-PATH PORT - something listens on TCP PORT there
listening() {
	nsenter --net="$1" ss -Hltn "sport = :$2" 2>/dev/null | grep -q .
}

# vdev_of POD-ID - the vdevice the CNI plugin made for the pod
vdev_of() {
	cat "$STATE"/*.json 2>/dev/null | jq -r --arg id "$1" 'select(.containerID == $id) | .vdevice'
}

# sysdev CLASS NAME - the device number, M:m, of /sys/class/CLASS/NAME
sysdev() {
	cat "/sys/class/$1/$2/dev" 2>/dev/null
}

# sees CTR-ID VDEV - the container runs as uid 1000, its /dev/infiniband
# holds one uverbs node and rdma_cm and nothing else, the uverbs node is
# VDEV's (its device number is the one the host's sysfs gives VDEV's
# uverbs device), rdma_cm is the host's, the container's device rules
# allow both, and ibv_devices lists VDEV alone
sees() {
	local uv name dev n
	cexec "$1" sh -c 'id -u; ls -l /dev/infiniband; ibv_devices' || return 1
	[ "$(head -n 1 "$T/out")" = 1000 ] || return 1
	# ls -l: "crw-rw-rw- 1 root root M, m DATE NAME"
	n=0
	while read -r name dev; do
		n=$((n + 1))
		case $name in
		uverbs*)
			[ -z "$uv" ] || { ktap_diag "two uverbs nodes"; return 1; }
			uv=$name
			if [ "$(cat "/sys/class/infiniband_verbs/$name/ibdev" 2>/dev/null)" != "$2" ] ||
			   [ "$(sysdev infiniband_verbs "$name")" != "$dev" ]; then
				ktap_diag "$name $dev is not $2's uverbs node"; return 1
			fi
			;;
		rdma_cm)
			[ "$(sysdev misc rdma_cm)" = "$dev" ] ||
				{ ktap_diag "rdma_cm $dev is not the host's"; return 1; }
			;;
		*)
			ktap_diag "unexpected /dev/infiniband/$name"; return 1
			;;
		esac
	done < <(awk '/^[cb-]/ && NF >= 10 { sub(",", "", $5); print $NF, $5 ":" $6 }' "$T/out")
	if [ -z "$uv" ] || [ "$n" != 2 ]; then
		ktap_diag "want one uverbs node and rdma_cm"; return 1
	fi
	[ "$(awk '$2 ~ /^[0-9a-f]+$/ && length($2) == 16 { print $1 }' "$T/out" | xargs)" = "$2" ] ||
		return 1
	rules "$1" "$(sysdev infiniband_verbs "$uv")" "$(sysdev misc rdma_cm)"
}

# rules CTR-ID M:m... - the container's OCI spec allows each char device
# M:m for read and write
rules() {
	local id=$1 d
	shift
	"$T/bin/ctr" --address "$SOCK" -n k8s.io c info "$id" >"$T/info" 2>&1 || return 1
	for d in "$@"; do
		jq -e --argjson M "${d%:*}" --argjson m "${d#*:}" '
			[.Spec.linux.resources.devices[] | select(.allow and .type == "c" and
			 .major == $M and .minor == $m and (.access | test("r")) and
			 (.access | test("w")))] | length > 0' "$T/info" >/dev/null ||
			{ ktap_diag "no device rule allows c $d rw"; return 1; }
	done
}

A=nri-a-$$
B=nri-b-$$
C=nri-c-$$
POD_A='' POD_B='' VA='' VB='' A1=''
only_its() {
	pod POD_A "$A" && VA=$(vdev_of "$POD_A") && [ -n "$VA" ] || return 1
	ktap_diag "pod $A: $POD_A, vdevice $VA"
	ctr A1 "$POD_A" "$A" a1 && sees "$A1" "$VA"
}
ktap_check sees_only_its_vdev only_its
ktap_diag "after $(elapsed) s"

pingpong() {
	local b1 ip srv rc
	pod POD_B "$B" && VB=$(vdev_of "$POD_B") && [ -n "$VB" ] &&
		ctr b1 "$POD_B" "$B" b1 || return 1
	ip=$(cri podip "$POD_A") && [ -n "$ip" ] || return 1
	ktap_diag "pod $A at $ip with $VA, pod $B with $VB"
	echo "# [cri] exec ${A1:0:12} ibv_rc_pingpong -d $VA -g 1 -n $PP_ITERS &" >&"$KTAP_FD"
	cri exec "$A1" 60 ibv_rc_pingpong -d "$VA" -g 1 -n "$PP_ITERS" >"$T/srv" 2>&1 &
	srv=$!
	wait_for 30 listening "$(cat "$STATE"/*.json | jq -r --arg id "$POD_A" \
		'select(.containerID == $id) | .netns')" 18515 ||
		{ kill "$srv"; return 1; }
	cexec "$b1" ibv_rc_pingpong -d "$VB" -g 1 -n "$PP_ITERS" "$ip" && grep -q 'bytes in' "$T/out" || return 1
	wait "$srv"
	rc=$?
	sed 's/^/#   server: /' "$T/srv" >&"$KTAP_FD"
	[ "$rc" = 0 ] && grep -q 'bytes in' "$T/srv"
}
ktap_check pingpong pingpong
ktap_diag "after $(elapsed) s"

no_rdma() {
	local pod_c c1
	pod pod_c "$C" plain && [ -z "$(vdev_of "$pod_c")" ] &&
		ctr c1 "$pod_c" "$C" c1 || return 1
	cexec "$c1" sh -c 'ls /dev/infiniband; ibv_devices'
	! grep -q '^uverbs\|^rdma_cm' "$T/out" && grep -q "pod vrdma-test/$C container c1: no RDMA device in" "$T/nri.log"
}
ktap_check no_rdma_no_node no_rdma
ktap_diag "after $(elapsed) s"

# The plugin dies: what runs keeps its device; the runtime creates
# containers without it meanwhile
killed() {
	local a3
	run_shown kill "$NRI_PID" && wait_for 10 gone "$NRI_PID" || return 1
	cexec "$A1" ibv_devinfo -d "$VA" && grep -q PORT_ACTIVE "$T/out" || return 1
	ctr a3 "$POD_A" "$A" a3 || return 1
	# ls fails (no /dev/infiniband) or lists no uverbs node
	cexec "$a3" sh -c 'ls /dev/infiniband; echo "ls: $?"' &&
		grep -q '^ls: [0-9]' "$T/out" || return 1
	ktap_diag "a container created while the plugin is down has no node: $(xargs <"$T/out")"
	grep -qx 'ls: 0' "$T/out" || return 0
	! grep -q '^uverbs' "$T/out"
}
ktap_check plugin_killed killed
ktap_diag "after $(elapsed) s"

A2=''
restarted() {
	daemon NRI_PID "$T/nri.log" "$NRI" -socket "$T/nri.sock" &&
		wait_for 30 plugin_registered 2 &&
		ctr A2 "$POD_A" "$A" a2 && sees "$A2" "$VA"
}
ktap_check plugin_restarted restarted

# The second container of pod A (made after the restart) opens the device
# while the first, which opened it in plugin_killed, still runs
two() {
	[ -n "$A2" ] && cexec "$A2" ibv_devinfo -d "$VA" && grep -q PORT_ACTIVE "$T/out" &&
		cexec "$A1" ls /dev/infiniband && grep -q '^uverbs' "$T/out"
}
ktap_check two_containers two
ktap_diag "after $(elapsed) s"

rm_cleans() {
	local p v left
	# Both at once, as kubelet removes pods
	[ -n "$POD_A" ] && [ -n "$POD_B" ] || return 1
	# What must go is there: the vdevices (vrdmactl sees them) and the
	# containers' cgroups
	for v in "$VA" "$VB"; do
		"$VRDMACTL" dev show "$v" >/dev/null || { ktap_diag "vrdmactl does not see $v"; return 1; }
	done
	left=$(find "/sys/fs/cgroup/vrdma-cri/$A" "/sys/fs/cgroup/vrdma-cri/$B" -mindepth 1 -type d 2>/dev/null)
	[ -n "$left" ] || { ktap_diag "no container cgroup under /sys/fs/cgroup/vrdma-cri"; return 1; }
	rmpod "$POD_A" &
	p=$!
	rmpod "$POD_B" || return 1
	wait "$p" || return 1
	PODS=("${PODS[@]/$POD_A/}")
	for v in "$VA" "$VB"; do
		if "$VRDMACTL" dev show "$v" >/dev/null 2>&1; then
			ktap_diag "$v still there"; return 1
		fi
	done
	left=$(grep -ls "$VA\|$VB" "$STATE"/*.json "$RECORDS"/*.json \
		/var/run/cdi/vrdma.io-pod-vrdma-test_"$A".json /var/run/cdi/vrdma.io-pod-vrdma-test_"$B".json 2>/dev/null)
	[ -z "$left" ] || { ktap_diag "left: $left"; return 1; }
	# The containers' cgroups, with their device programs, are gone
	left=$(find "/sys/fs/cgroup/vrdma-cri/$A" "/sys/fs/cgroup/vrdma-cri/$B" -mindepth 1 -type d 2>/dev/null)
	[ -z "$left" ] || { ktap_diag "cgroups left: $left"; return 1; }
}
ktap_check pod_rm_cleans rm_cleans

ktap_check kernel_log_clean klog_clean_since "$mark"
sed 's/^/# nri: /' "$T/nri.log" >&"$KTAP_FD"
ktap_diag "k8s_nri: $(elapsed) s in all"
ktap_finish
