#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The container runtimes of Documentation/containers.rst ("Container
# runtimes"), for real: podman, docker (dockerd and containerd started here
# for the test) and a CNI chain with tools/cni/vrdma (the CNI plugin; its
# own tests are tools/cni/tests/conformance.sh, selftests/runtimes/cni.sh
# and, for podman with CDI, selftests/runtimes/cdi_podman.sh), each running
# the commands the document shows, with this test's names.
#
#   podman   ip netns add P1, P2; dev add vr-pod1/2 ... netns P1/P2;
#            podman run --network ns:/run/netns/P1 --device NODE IMAGE ...
#              P1 [ctr: ibv_rc_pingpong server] ── oob veth 10.98.1.0/24 ──
#              P2 [ctr: ibv_rc_pingpong client]     RoCE through rxe0
#   docker   docker run -d --device-cgroup-rule 'c 231:* rw' (netns D);
#            dev add vr-dock1 ... netns-pid PID; mknod through docker exec;
#            rdma.max in the container's cgroup; docker stop: vdevice gone;
#            without --device-cgroup-rule the node does not open
#   CNI      ip netns add C; the conflist "bridge" + "vrdma" run the way
#            libcni runs it (env + stdin, prevResult chained); then
#            ctr run --with-ns network:/run/netns/C --device NODE IMAGE
#
# The image: no registry is reachable, so it is built offline
# (selftests/lib/image.sh: a shell, coreutils, the ibverbs utilities, their
# libraries and the rxe provider), by the VM harness on the host before the
# boot (selftests/vm/image-prebuild.sh) or else here, and imported with
# podman/docker import.
# Container storage lives on tmpfs mounts (overlayfs does not stack on the
# guest's overlay root).  dockerd runs without systemd (cgroupfs driver) and
# without its bridge and iptables rules (--bridge=none --iptables=false), so
# the guest's network is left as it was.
#
# vm-test-timeout: 1200

# shellcheck source=selftests/lib/lib.sh
. "$(dirname "$0")/lib/lib.sh"
# shellcheck source=selftests/lib/vdev.sh
. "$(dirname "$0")/lib/vdev.sh"
# shellcheck source=selftests/lib/image.sh
. "$(dirname "$0")/lib/image.sh"

ktap_plan image_built \
	podman_image_imported podman_vdev_added podman_sees_only_its_vdev \
	podman_pingpong \
	dockerd_started docker_image_imported docker_vdev_added_by_pid \
	docker_node_made docker_sees_only_its_vdev docker_rdma_max_refuses \
	docker_rdma_max_allows docker_cgroup_lists_all_names \
	docker_vdev_gone_with_container docker_no_rule_no_open \
	cni_version cni_add_chained cni_check ctr_sees_only_its_vdev \
	cni_del cni_add_error

START=$EPOCHREALTIME
# Debian's clients (a docker CLI elsewhere in PATH may be another version)
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
IMAGE=vrdma-test
CNI_DIR=/usr/lib/cni
PLUGIN=$TOP/tools/cni/vrdma
MAJOR=231

if ! require_cmd podman docker dockerd containerd ctr runc conmon jq \
	ibv_devices ibv_rc_pingpong ldd tar "$CNI_DIR/bridge" "$CNI_DIR/host-local"; then
	ktap_skip_rest "container runtimes missing (scripts/deps.sh installs them)"
	ktap_finish
fi

tmpdir T

elapsed() {
	awk -v a="$START" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }'
}

# only_dev FILE NAME - the ibv_devices output in FILE lists exactly NAME.
only_dev() {
	local list
	list=$(awk 'NR > 2 { print $1 }' "$1" | xargs)
	ktap_diag "ibv_devices lists: '$list'"
	[ "$list" = "$2" ]
}

vdev_gone() {
	! "$VRDMACTL" dev show "$1" >/dev/null 2>&1
}

# --- the image ------------------------------------------------------------------

if image_get "$T"; then
	ktap_ok image_built "$IMAGE_FROM: $(du -shL "$IMAGE_TAR" | cut -f1) image with: $IMAGE_CMDS"
else
	ktap_fail image_built
fi
tmpfs_at /var/lib/containers && tmpfs_at /var/lib/docker &&
	tmpfs_at /var/lib/containerd && tmpfs_at /var/lib/cni || exit 1

# --- podman -------------------------------------------------------------------

if run_shown podman import "$IMAGE_TAR" "$IMAGE"; then
	ktap_ok podman_image_imported "after $(elapsed) s"
else
	ktap_fail podman_image_imported
fi

new_ns P1 pod1 && new_ns P2 pod2 || exit 1
if vdev_add vr-pod1 "$P1" && vdev_add vr-pod2 "$P2"; then
	ktap_ok podman_vdev_added
else
	ktap_fail podman_vdev_added
fi
node1=$("$VRDMACTL" -j dev show vr-pod1 | jq -r '.[0].chardev')
node2=$("$VRDMACTL" -j dev show vr-pod2 | jq -r '.[0].chardev')
ktap_diag "vr-pod1: /dev/infiniband/$node1, vr-pod2: /dev/infiniband/$node2"

if run_shown podman run --rm --network "ns:/run/netns/$P1" --device "/dev/infiniband/$node1" \
	"$IMAGE" ibv_devices && only_dev "$T/out" vr-pod1; then
	ktap_ok podman_sees_only_its_vdev "after $(elapsed) s"
else
	ktap_fail podman_sees_only_its_vdev
fi

# Two containers talk RDMA: the QP numbers go over a veth pair between
# their namespaces, the RoCE traffic through the parent
pingpong_podman() {
	local rc
	run_shown ip link add oob1 netns "$P1" type veth peer name oob2 netns "$P2" &&
		run_shown ip -n "$P1" addr add 10.98.1.1/24 dev oob1 &&
		run_shown ip -n "$P1" link set oob1 up &&
		run_shown ip -n "$P2" addr add 10.98.1.2/24 dev oob2 &&
		run_shown ip -n "$P2" link set oob2 up || return 1
	run_shown podman run -d --name "pp-$$" --network "ns:/run/netns/$P1" \
		--device "/dev/infiniband/$node1" "$IMAGE" \
		ibv_rc_pingpong -d vr-pod1 -g 1 -n "$PP_ITERS" || return 1
	cleanup_push podman rm -f "pp-$$"
	wait_for 60 port_listening "$P1" 18515 || return 1
	run_shown podman run --rm --network "ns:/run/netns/$P2" --device "/dev/infiniband/$node2" \
		"$IMAGE" ibv_rc_pingpong -d vr-pod2 -g 1 -n "$PP_ITERS" 10.98.1.1 || return 1
	grep -q 'bytes in' "$T/out" || return 1
	rc=$(podman wait "pp-$$")
	run_shown podman logs "pp-$$"
	ktap_diag "server exit status $rc"
	[ "$rc" = 0 ] && grep -q 'bytes in' "$T/out"
}
if pingpong_podman; then
	ktap_ok podman_pingpong "after $(elapsed) s"
else
	ktap_fail podman_pingpong
fi

# --- docker -------------------------------------------------------------------

# daemon VAR LOG CMD... - start a daemon, kill it (and wait) at exit.
daemon() {
	local var=$1 log=$2 pid
	shift 2
	echo "# [init] $* &" >&"$KTAP_FD"
	"$@" >"$log" 2>&1 &
	pid=$!
	cleanup_push wait_gone 30 "$pid"
	cleanup_push kill "$pid"
	printf -v "$var" '%s' "$pid"
}

t0=$EPOCHREALTIME
daemon CONTAINERD "$T/containerd.log" containerd
if wait_for 120 ctr version >/dev/null 2>&1; then
	daemon DOCKERD "$T/dockerd.log" dockerd \
		--containerd=/run/containerd/containerd.sock \
		--bridge=none --iptables=false
fi
if [ -n "${DOCKERD:-}" ] && wait_for 180 docker info >/dev/null 2>&1; then
	ktap_ok dockerd_started "$(awk -v a="$t0" -v b="$EPOCHREALTIME" \
		'BEGIN { printf "%.0f", b - a }') s; cgroup driver $(docker info -f '{{.CgroupDriver}}')"
else
	ktap_fail dockerd_started
	tail -n 20 "$T/containerd.log" "$T/dockerd.log" | sed 's/^/#   /' >&"$KTAP_FD"
fi

if run_shown docker import "$IMAGE_TAR" "$IMAGE"; then
	ktap_ok docker_image_imported
else
	ktap_fail docker_image_imported
fi

# The documented commands, with this test's names
CTR=dock-$$
docker_vdev() {
	run_shown docker run -d --name "$CTR" --device-cgroup-rule "c $MAJOR:* rw" \
		"$IMAGE" sleep infinity || return 1
	cleanup_push docker rm -f "$CTR"
	pid=$(docker inspect -f '{{.State.Pid}}' "$CTR")
	run_shown "$VRDMACTL" dev add vr-dock1 parent "$PARENT" gids shared netns-pid "$pid" || return 1
	cleanup_push "$VRDMACTL" dev del vr-dock1
	# In the container's network namespace
	local want have
	want=$(stat -L -c %i "/proc/$pid/ns/net")
	have=$("$VRDMACTL" -j dev show vr-dock1 | jq -r '.[0].netns.inode')
	ktap_diag "container pid $pid, netns inode $want; vr-dock1 in netns $have"
	[ "$want" = "$have" ]
}
ktap_check docker_vdev_added_by_pid docker_vdev

read -r node majmin <<<"$("$VRDMACTL" -j dev show vr-dock1 | jq -r '.[0] | .chardev + " " + .chardev_dev')"
ktap_diag "vr-dock1: /dev/infiniband/$node is $majmin"
if run_shown docker exec "$CTR" mkdir -p /dev/infiniband &&
   run_shown docker exec "$CTR" mknod -m 0666 "/dev/infiniband/$node" c "${majmin%:*}" "${majmin#*:}" &&
   run_shown docker exec "$CTR" ls /dev/infiniband && [ "$(xargs <"$T/out")" = "$node" ]; then
	ktap_ok docker_node_made
else
	ktap_fail docker_node_made
fi

if run_shown docker exec "$CTR" ibv_devices && only_dev "$T/out" vr-dock1; then
	ktap_ok docker_sees_only_its_vdev "after $(elapsed) s"
else
	ktap_fail docker_sees_only_its_vdev
fi

# rdma.max: dockerd without systemd uses the cgroupfs driver, the
# container's cgroup is /sys/fs/cgroup/docker/ID
CG=/sys/fs/cgroup/docker/$(docker inspect -f '{{.Id}}' "$CTR")
ktap_diag "$CG; docker/cgroup.subtree_control: $(cat /sys/fs/cgroup/docker/cgroup.subtree_control 2>&1)"
# set_max LINE - write LINE to rdma.max; it reads back with the limits
# not given as "max"
set_max() {
	echo "# [init] echo '$1' > $CG/rdma.max" >&"$KTAP_FD"
	echo "$1" >"$CG/rdma.max" || return 1
	ktap_diag "rdma.max: $(cat "$CG/rdma.max")"
	grep -q "^$1" "$CG/rdma.max"
}
if set_max "vr-dock1 hca_handle=0" &&
   ! run_shown docker exec "$CTR" ibv_devinfo -d vr-dock1 &&
   grep -q 'Failed to open' "$T/out"; then
	ktap_ok docker_rdma_max_refuses
else
	ktap_fail docker_rdma_max_refuses
fi
if set_max "vr-dock1 hca_handle=2 hca_object=256" &&
   run_shown docker exec "$CTR" ibv_devinfo -d vr-dock1 && grep -q PORT_ACTIVE "$T/out"; then
	ktap_ok docker_rdma_max_allows "$(cat "$CG/rdma.max")"
else
	ktap_fail docker_rdma_max_allows
fi

# The container sees its own cgroup's files (cgroup namespace), and they
# list every RDMA device of the host by name, other containers' included
own_cgroup_lists_all() {
	run_shown docker exec "$CTR" cat /sys/fs/cgroup/rdma.max || return 1
	grep -q '^vr-dock1 hca_handle=2 hca_object=256' "$T/out" &&
		grep -q "^$PARENT " "$T/out" && grep -q '^vr-pod1 ' "$T/out"
}
ktap_check docker_cgroup_lists_all_names own_cgroup_lists_all

if run_shown docker stop "$CTR" && wait_for 60 vdev_gone vr-dock1; then
	ktap_ok docker_vdev_gone_with_container "after $(elapsed) s"
else
	ktap_fail docker_vdev_gone_with_container "$("$VRDMACTL" dev show 2>&1)"
fi

# Without --device-cgroup-rule the node can be made (docker's default rules
# allow mknod of any device) but not opened
no_rule() {
	local pid node majmin
	run_shown docker run -d --name "$CTR-norule" "$IMAGE" sleep infinity || return 1
	cleanup_push docker rm -f "$CTR-norule"
	pid=$(docker inspect -f '{{.State.Pid}}' "$CTR-norule")
	run_shown "$VRDMACTL" dev add vr-dock2 parent "$PARENT" gids shared netns-pid "$pid" || return 1
	cleanup_push "$VRDMACTL" dev del vr-dock2
	read -r node majmin <<<"$("$VRDMACTL" -j dev show vr-dock2 | jq -r '.[0] | .chardev + " " + .chardev_dev')"
	run_shown docker exec "$CTR-norule" mkdir -p /dev/infiniband &&
		run_shown docker exec "$CTR-norule" mknod -m 0666 "/dev/infiniband/$node" c "${majmin%:*}" "${majmin#*:}" ||
		return 1
	if run_shown docker exec "$CTR-norule" ibv_devinfo -d vr-dock2 ||
	   ! grep -q 'Failed to open' "$T/out"; then
		return 1
	fi
	# What the device cgroup says
	! run_shown docker exec "$CTR-norule" cat "/dev/infiniband/$node" &&
		grep -q 'Operation not permitted' "$T/out"
}
ktap_check docker_no_rule_no_open no_rule
run_shown docker rm -f "$CTR-norule"

# --- CNI and containerd ---------------------------------------------------------

CNI_ID=$(printf '%s' "cni-$$-$RANDOM" | sha256sum | cut -c1-64)
# The plugin names the vdevice vr<12 of the ID>-<hash>; the state says which
CNI_STATE=/run/vrdma/cni/rdmanet
CNI_NAME=unknown
cni_state() {
	grep -l "\"containerID\":\"$CNI_ID\"" "$CNI_STATE"/*.json 2>/dev/null | head -n 1
}
new_ns C cni || exit 1
CNI_NS=/run/netns/$C
cat >"$T/rdmanet.conflist" <<EOF
{
  "cniVersion": "1.0.0",
  "name": "rdmanet",
  "plugins": [
    { "type": "bridge", "bridge": "cni-vrdma0",
      "ipam": { "type": "host-local", "subnet": "10.97.0.0/24" } },
    { "type": "vrdma", "parent": "$PARENT", "gids": "shared",
      "limits": { "qp": 64, "mr": 256 } }
  ]
}
EOF
cleanup_push ip link del cni-vrdma0

# cni CMD CONFLIST - run the list's plugins the way libcni does: each with
# the CNI_ variables and its configuration on stdin (name and cniVersion
# from the list; on ADD the previous plugin's result as prevResult, on
# CHECK and DEL the list's cached result; DEL in reverse order).  Prints the
# result of ADD; $T/cni-prev keeps the one before the last plugin's.
cni() {
	local cmd=$1 list=$2 n i order conf type prev='' out
	n=$(jq '.plugins | length' "$list")
	if [ "$cmd" = DEL ]; then
		order=$(seq $((n - 1)) -1 0)
	else
		order=$(seq 0 $((n - 1)))
	fi
	[ "$cmd" != ADD ] && [ -s "$T/cni-result" ] && prev=$(cat "$T/cni-result")
	for i in $order; do
		conf=$(jq -c --argjson i "$i" --arg prev "$prev" \
			'.plugins[$i] + {name, cniVersion} +
			 (if $prev != "" then {prevResult: ($prev | fromjson)} else {} end)' "$list")
		type=$(jq -r .type <<<"$conf")
		echo "# [init] CNI_COMMAND=$cmd CNI_CONTAINERID=$CNI_ID CNI_NETNS=$CNI_NS CNI_IFNAME=eth0 CNI_PATH=$CNI_PATH $type <<< '$conf'" >&"$KTAP_FD"
		if ! out=$(CNI_COMMAND=$cmd CNI_CONTAINERID=$CNI_ID CNI_NETNS=$CNI_NS \
			   CNI_IFNAME=eth0 CNI_PATH=$CNI_PATH "$(cni_plugin "$type")" <<<"$conf"); then
			ktap_diag "plugin $type: $cmd failed: $out"
			return 1
		fi
		if [ "$cmd" = ADD ]; then
			[ "$i" -eq $((n - 2)) ] && echo "$out" >"$T/cni-prev"
			prev=$out
		fi
	done
	case $cmd in
	ADD) echo "$prev" >"$T/cni-result"; echo "$prev" ;;
	DEL) rm -f "$T/cni-result" ;;
	esac
}

# The vrdma plugin is installed next to the others (make install puts it
# in PREFIX/lib/cni); here it runs from the tree, with vrdmactl in PATH.
CNI_BIN=$T/cni-bin
mkdir -p "$CNI_BIN" && ln -s "$PLUGIN" "$CNI_BIN/vrdma"
CNI_PATH=$CNI_BIN:$CNI_DIR
PATH=$(dirname "$VRDMACTL"):$PATH
cni_plugin() {
	local d
	for d in ${CNI_PATH//:/ }; do
		[ -x "$d/$1" ] && { echo "$d/$1"; return 0; }
	done
	echo "/nonexistent/$1"
}

out=$(CNI_COMMAND=VERSION "$PLUGIN" </dev/null)
ktap_diag "VERSION: $out"
if jq -e '.supportedVersions == ["0.4.0", "1.0.0", "1.1.0"]' <<<"$out" >/dev/null; then
	ktap_ok cni_version
else
	ktap_fail cni_version
fi

cni_add() {
	local result want have
	result=$(cni ADD "$T/rdmanet.conflist") || return 1
	cleanup_push cni DEL "$T/rdmanet.conflist"
	ktap_diag "result: $result" "prevResult: $(cat "$T/cni-prev")"
	# The bridge plugin's result, passed through
	[ "$(jq -S . <<<"$result")" = "$(jq -S . "$T/cni-prev")" ] ||
		{ ktap_diag "the result is not the bridge's"; return 1; }
	CNI_NAME=$(jq -r .vdevice "$(cni_state)") || return 1
	want=$(stat -L -c %i "$CNI_NS")
	have=$("$VRDMACTL" -j dev show "$CNI_NAME" | jq -r '.[0].netns.inode')
	ktap_diag "$CNI_NAME in netns $have, $CNI_NS is $want"
	[ "$want" = "$have" ] || return 1
	ktap_diag "state: $(cat "$(cni_state)")"
	jq -e '.chardev != ""' "$(cni_state)" >/dev/null &&
		[ "$("$VRDMACTL" -j dev show "$CNI_NAME" | jq -r '.[0].limits.qp')" = 64 ]
}
ktap_check cni_add_chained cni_add

ktap_check cni_check cni CHECK "$T/rdmanet.conflist"

# containerd runs a container in that namespace with the vdevice's node
ctr_run() {
	local node
	node=$(jq -r .chardev "$(cni_state)")
	run_shown sh -c "docker save $IMAGE | ctr images import -" || return 1
	run_shown ctr run --rm --with-ns "network:$CNI_NS" --device "/dev/infiniband/$node" \
		"docker.io/library/$IMAGE:latest" "ctr-$$" ibv_devices &&
		only_dev "$T/out" "$CNI_NAME"
}
if ctr_run; then
	ktap_ok ctr_sees_only_its_vdev "after $(elapsed) s"
else
	ktap_fail ctr_sees_only_its_vdev
fi

cni_del() {
	cni DEL "$T/rdmanet.conflist" >/dev/null || return 1
	vdev_gone "$CNI_NAME" && [ -z "$(cni_state)" ] || return 1
	# Again: DEL of what is gone succeeds
	cni DEL "$T/rdmanet.conflist" >/dev/null
}
ktap_check cni_del cni_del

# An error is a CNI error object: a parent that does not exist
cni_error() {
	local out rc
	echo "# [init] CNI_COMMAND=ADD ... vrdma <<< '{\"parent\": \"nosuchdev\"}'" >&"$KTAP_FD"
	out=$(CNI_COMMAND=ADD CNI_CONTAINERID=$CNI_ID CNI_NETNS=$CNI_NS CNI_IFNAME=eth0 \
		"$PLUGIN" <<<'{"cniVersion": "1.0.0", "name": "x", "type": "vrdma", "parent": "nosuchdev"}')
	rc=$?
	ktap_diag "exit status $rc: $out"
	[ "$rc" -eq 1 ] && jq -e '.code == 100 and (.msg | length > 0)' <<<"$out" >/dev/null &&
		vdev_gone "$CNI_NAME"
}
ktap_check cni_add_error cni_error

ktap_diag "runtimes: $(elapsed) s in all"
ktap_finish
