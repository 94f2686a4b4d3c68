#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Two container-like sandboxes, each with its own network namespace, its own
# mount namespace with a private /dev/infiniband (a tmpfs holding only its
# vdevice's uverbs node) and its own rdma cgroup, get a vdevice each the
# two ways Documentation/containers.rst describes, and talk RDMA:
#
#   sandbox A ("podman/CNI" flow)        sandbox B ("docker" flow)
#   1. ip netns add A                    1. start the sandbox (unshare -n -m),
#   2. dev add vA ... netns-path            it is PID B
#      /run/netns/A                      2. dev add vB ... netns-pid B
#   3. dev show -j vA: node, major:minor 3. dev show -j vB: node, major:minor
#   4. start the sandbox in A with       4. nsenter -t B -m mknod the node
#      the node made by mknod
#
#   A: /dev/infiniband = { uverbs(vA) }  B: /dev/infiniband = { uverbs(vB) }
#   cgroup A rdma.max "vA ..."           cgroup B rdma.max "vB ..."
#        └──── oob veth 10.98.7.1 <-> 10.98.7.2 (QP number exchange) ───┘
#        RoCE through the parent rxe0 in init_net
#
# Applications run in a sandbox the way "docker exec" runs them: joined to
# its cgroup, then nsenter into its network and mount namespaces.

# shellcheck source=selftests/lib/lib.sh
. "$(dirname "$0")/lib/lib.sh"
# shellcheck source=selftests/lib/vdev.sh
. "$(dirname "$0")/lib/vdev.sh"

ktap_plan vA_created_by_netns_path sandbox_a_started sandbox_b_started \
	vB_created_by_netns_pid node_needed node_made_in_b a_has_only_its_node \
	b_has_only_its_node a_sees_only_vA b_sees_only_vB rdma_max_refuses \
	rdma_max_allows pingpong_between_sandboxes rdma_current_charged \
	host_node_untouched

PORT=18700
LINK=7
tmpdir T

if ! require_cmd unshare nsenter mknod ibv_devices ibv_rc_pingpong jq; then
	ktap_skip_rest "tools missing"
	ktap_finish
fi

new_ns A a || exit 1

# cgroup_new VAR TAG - an rdma cgroup for a sandbox, removed at exit.
cgroup_new() {
	local cg=/sys/fs/cgroup/${TEST_NAME}-$$-$2
	in_init mkdir "$cg" || return 1
	cleanup_push rmdir "$cg"
	printf -v "$1" '%s' "$cg"
}
cgroup_new CGA a && cgroup_new CGB b || exit 1

# node_of DEV - "uverbsN MAJ MIN" of a vdevice, from dev show -j (the
# command Documentation/containers.rst shows).
node_of() {
	local node majmin out
	out=$(in_init "$VRDMACTL" -j dev show "$1" |
		jq -r '.[0] | .chardev + " " + .chardev_dev')
	read -r node majmin <<<"$out"
	echo "$node ${majmin%:*} ${majmin#*:}"
}

# ctr_exec PID CGROUP CMD... - run CMD inside the sandbox whose first
# process is PID, in the sandbox's cgroup.
ctr_exec() {
	local pid=$1 cg=$2
	shift 2
	echo "# [sandbox $pid] $*" >&"$KTAP_FD"
	sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec nsenter -t "$@"' \
		sh "$cg" "$pid" -n -m "$@"
}

# spawn_sandbox VAR CGROUP CMD... - start CMD (which sets up the sandbox and
# ends in "exec sleep") in CGROUP, store its pid in VAR, kill it at exit.
spawn_sandbox() {
	local var=$1 cg=$2 pid
	shift 2
	echo "# [init] $* &" >&"$KTAP_FD"
	sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' sh "$cg" "$@" &
	pid=$!
	cleanup_push wait_gone 10 "$pid"
	cleanup_push kill "$pid"
	printf -v "$var" '%s' "$pid"
	wait_for 30 sandbox_ready "$pid"
}

# add_shared NAME NETNS-OPTION VALUE - vdevice NAME on $PARENT, GIDs shared,
# in the network namespace the option names; deleted at exit.
add_shared() {
	in_init "$VRDMACTL" dev add "$1" parent "$PARENT" gids shared "$2" "$3" &&
		cleanup_push "$VRDMACTL" dev del "$1"
}

sandbox_ready() {
	[ "$(cat "/proc/$1/comm" 2>/dev/null)" = sleep ]
}

# --- sandbox A: named netns, vdevice first, then the sandbox ---------------

ktap_check vA_created_by_netns_path add_shared vA netns-path "/run/netns/$A"
read -r NODE_A MAJ_A MIN_A <<<"$(node_of vA)"
ktap_diag "vA: /dev/infiniband/$NODE_A is $MAJ_A:$MIN_A"

# The sandbox's own /dev/infiniband holds only the node of vA
# shellcheck disable=SC2016  # expanded by the sandbox's shell
SETUP_A='mount -t tmpfs -o mode=0755 tmpfs /dev/infiniband &&
	mknod -m 0666 "/dev/infiniband/$1" c "$2" "$3" && exec sleep 600'
if spawn_sandbox PID_A "$CGA" ip netns exec "$A" unshare -m \
	sh -c "$SETUP_A" sh "$NODE_A" "$MAJ_A" "$MIN_A"; then
	ktap_ok sandbox_a_started "pid $PID_A"
else
	ktap_fail sandbox_a_started
fi

# --- sandbox B: anonymous netns, sandbox first, then the vdevice -----------

# A fresh sysfs shows the namespace's own devices, as a container's does
SETUP_B='mount -t sysfs sysfs /sys &&
	mount -t tmpfs -o mode=0755 tmpfs /dev/infiniband && exec sleep 600'
if spawn_sandbox PID_B "$CGB" unshare -n -m sh -c "$SETUP_B"; then
	ktap_ok sandbox_b_started "pid $PID_B"
else
	ktap_fail sandbox_b_started
fi

ktap_check vB_created_by_netns_pid add_shared vB netns-pid "$PID_B"
read -r NODE_B MAJ_B MIN_B <<<"$(node_of vB)"
ktap_diag "vB: /dev/infiniband/$NODE_B is $MAJ_B:$MIN_B"
# Without its node the device is not there for libibverbs
if ctr_exec "$PID_B" "$CGB" ibv_devinfo -d vB >"$T/nonode" 2>&1; then
	ktap_fail node_needed "vB opened without a node in /dev/infiniband"
else
	ktap_ok node_needed "$(tail -n 2 "$T/nonode")"
fi
if in_init nsenter -t "$PID_B" -m mknod -m 0666 "/dev/infiniband/$NODE_B" c "$MAJ_B" "$MIN_B"; then
	ktap_ok node_made_in_b
else
	ktap_fail node_made_in_b
fi

# A name for B's netns, for the oob link (what "ip netns attach" is for)
B=${TEST_NAME}-$$-b
in_init ip netns attach "$B" "$PID_B" && cleanup_push ip netns del "$B"
link_ns "$A" "$B" "$LINK" || ktap_diag "oob link failed"

# --- what each sandbox has and sees -----------------------------------------

# only_node PID CG NODE - /dev/infiniband in the sandbox is exactly NODE,
# a character device.
only_node() {
	local list
	list=$(ctr_exec "$1" "$2" ls -A /dev/infiniband | xargs)
	ktap_diag "sandbox $1: /dev/infiniband: $list"
	[ -n "$3" ] && [ "$list" = "$3" ] &&
		ctr_exec "$1" "$2" test -c "/dev/infiniband/$3"
}
ktap_check a_has_only_its_node only_node "$PID_A" "$CGA" "$NODE_A"
ktap_check b_has_only_its_node only_node "$PID_B" "$CGB" "$NODE_B"

# sees_only PID CG DEV - ibv_devices lists DEV alone, and it opens.
sees_only() {
	local list
	list=$(ctr_exec "$1" "$2" ibv_devices | awk 'NR > 2 { print $1 }' | xargs)
	ktap_diag "sandbox $1: ibv_devices: $list"
	[ "$list" = "$3" ] &&
		ctr_exec "$1" "$2" ibv_devinfo -d "$3" | grep -q 'PORT_ACTIVE'
}
ktap_check a_sees_only_vA sees_only "$PID_A" "$CGA" vA
ktap_check b_sees_only_vB sees_only "$PID_B" "$CGB" vB

# --- rdma.max ----------------------------------------------------------------

# No device handle allowed: opening the device fails
echo "# [init] echo 'vB hca_handle=0' > $CGB/rdma.max" >&"$KTAP_FD"
echo "vB hca_handle=0" >"$CGB/rdma.max"
if ! ctr_exec "$PID_B" "$CGB" ibv_devinfo -d vB >"$T/refused" 2>&1 &&
   ! grep -q "wasn't found" "$T/refused"; then
	ktap_ok rdma_max_refuses "$(tail -n 2 "$T/refused")"
else
	ktap_fail rdma_max_refuses "ibv_devinfo opened vB with hca_handle=0"
fi

set_max() {	# CGROUP LINE
	echo "# [init] echo '$2' > $1/rdma.max" >&"$KTAP_FD"
	# rdma.max prints each line with a trailing blank
	echo "$2" >"$1/rdma.max" && grep -q "^$2 *\$" "$1/rdma.max"
}
if set_max "$CGA" "vA hca_handle=2 hca_object=64" &&
   set_max "$CGB" "vB hca_handle=2 hca_object=64"; then
	ktap_ok rdma_max_allows "$(cat "$CGA/rdma.max")"
else
	ktap_fail rdma_max_allows "$(cat "$CGA/rdma.max" "$CGB/rdma.max" 2>&1)"
fi

# --- traffic -------------------------------------------------------------------

charged() {	# CGROUP DEV - rdma.current shows one handle and some objects
	grep -qE "^$2 hca_handle=1 hca_object=[1-9]" "$1/rdma.current"
}

ctr_exec "$PID_A" "$CGA" timeout 120 ibv_rc_pingpong -d vA -g "$GIDX" -n "$PP_ITERS" -p "$PORT" \
	>"$T/srv" 2>&1 &
SRV=$!
current=
if wait_for 60 port_listening "$A" "$PORT" && wait_for 20 charged "$CGA" vA; then
	current=$(cat "$CGA/rdma.current")
fi
ctr_exec "$PID_B" "$CGB" timeout 120 ibv_rc_pingpong -d vB -g "$GIDX" -n "$PP_ITERS" -p "$PORT" \
	"$OOB_NET.$LINK.1" >"$T/cli" 2>&1
CRC=$?
wait "$SRV"
SRC_RC=$?
if [ "$CRC" -eq 0 ] && [ "$SRC_RC" -eq 0 ] && grep -q 'bytes in' "$T/cli"; then
	ktap_ok pingpong_between_sandboxes "$(grep 'bytes in' "$T/cli")"
else
	ktap_fail pingpong_between_sandboxes "server $SRC_RC, client $CRC"
	ktap_diag "server:" "$(tail -n 5 "$T/srv")" "client:" "$(tail -n 5 "$T/cli")"
fi
if [ -n "$current" ]; then
	ktap_ok rdma_current_charged "$CGA/rdma.current while serving: $current"
else
	ktap_fail rdma_current_charged "$(cat "$CGA/rdma.current")"
fi

# The host's devtmpfs still has both nodes: the sandboxes had copies
if [ -c "/dev/infiniband/$NODE_A" ] && [ -c "/dev/infiniband/$NODE_B" ]; then
	ktap_ok host_node_untouched
else
	ktap_fail host_node_untouched "$(ls /dev/infiniband)"
fi

ktap_finish
