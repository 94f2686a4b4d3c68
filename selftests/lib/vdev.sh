# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers for selftests that create vdevices and run RDMA traffic between
# containers.  Sourced after lib.sh.
#
# A "container" here is a network namespace.  Two containers that talk
# RDMA also need a TCP path for the applications' out-of-band exchange of
# QP numbers (perftest and ibv_*_pingpong without rdma_cm); link_ns gives
# them a veth pair of their own.  The RoCE traffic itself always uses the
# parent's GIDs in init_net (rxe in 6.1 works only there; see DESIGN.md),
# which the vdevices see because vdev_add asks for "gids shared".

# GID index of the parent's IPv4-mapped address, the same on every vdevice
# (translated by value, but the tables mirror each other).
GIDX=${GIDX:-1}
OOB_NET=10.98
# Round trips of a container's ibv_rc_pingpong (its own default is 1000):
# a polling pingpong over rxe takes 9 to 15 ms a round trip in a
# one-vCPU TCG guest, where the poller and rxe's work share the CPU (-e,
# with completion events, takes 1.4 ms), and 100 prove the path as well.
PP_ITERS=${PP_ITERS:-100}

# vdev_add NAME NS [ARG...] - create vdevice NAME in netns NS on $PARENT,
# delete it at exit.  ARGs are more dev add words (limits, ACLs).  The
# vdevice shares the host's addresses ("gids shared"), which the RoCE
# traffic between test containers needs with rxe before 7.1, unless an
# ARG says "gids" itself ("gids tenant": the default of vrdma).
vdev_add() {
	local name=$1 ns=$2 mode=(gids shared)
	shift 2
	[[ " $* " == *" gids "* ]] && mode=()
	in_init "$VRDMACTL" dev add "$name" parent "$PARENT" netns "$ns" \
		"${mode[@]}" "$@" || return 1
	cleanup_push "$VRDMACTL" dev del "$name"
}

# monitor_listening OUT - "vrdmactl -j monitor >OUT" has joined the event
# group (its first line says so): every event from now on reaches it.  For
# wait_for, between starting a monitor and causing the events it must see.
monitor_listening() {
	[ "$(head -n 1 "$1" 2>/dev/null)" = '{"event":"listening"}' ]
}

# gid_of IPV4 - the sysfs spelling of the address's RoCE GID (IPv4-mapped).
gid_of() {
	local IFS=.
	# shellcheck disable=SC2086  # split on the dots
	set -- $1
	printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x\n' "$1" "$2" "$3" "$4"
}

# link_ns NS1 NS2 N - veth pair between NS1 (10.98.N.1) and NS2 (10.98.N.2).
link_ns() {
	local a=$1 b=$2 n=$3
	in_init ip link add "oob${n}a" type veth peer name "oob${n}b" || return 1
	in_init ip link set "oob${n}a" netns "$a" || return 1
	in_init ip link set "oob${n}b" netns "$b" || return 1
	in_ns "$a" ip addr add "$OOB_NET.$n.1/24" dev "oob${n}a" || return 1
	in_ns "$b" ip addr add "$OOB_NET.$n.2/24" dev "oob${n}b" || return 1
	in_ns "$a" ip link set "oob${n}a" up || return 1
	in_ns "$b" ip link set "oob${n}b" up
}

# spawn_in_ns NS CMD... - like in_ns, in the background; $! is CMD's own
# pid (the subshell execs it), so that killing $! stops CMD itself.
spawn_in_ns() {
	local ns=$1
	shift
	(
		echo "# [$ns] $* &" >&2
		[ "$ns" = init ] || exec ip netns exec "$ns" "$@"
		exec "$@"
	) &
}

# port_listening NS PORT - something listens on TCP PORT in NS.
port_listening() {
	ns_run "$1" ss -Hltn "sport = :$2" 2>/dev/null | grep -q .
}

# rdma_pair DIR NAME SNS CNS ADDR PORT "SERVER CMD" "CLIENT CMD" - run a
# server in SNS and its client in CNS (either may be "init"; ADDR appended
# to the client command, -p PORT to both), logging to DIR/NAME.{srv,cli}.  Succeeds when both end
# with status 0; prints their output tails as diagnostics otherwise.
rdma_pair() {
	local dir=$1 name=$2 sns=$3 cns=$4 addr=$5 port=$6 scmd=$7 ccmd=$8
	local spid src crc
	# shellcheck disable=SC2086  # commands are word lists
	spawn_in_ns "$sns" timeout 180 $scmd -p "$port" >"$dir/$name.srv" 2>&1
	spid=$!
	if ! wait_for 30 port_listening "$sns" "$port"; then
		kill "$spid" 2>/dev/null
		wait "$spid"
		ktap_diag "$name: server never listened:" "$(tail -5 "$dir/$name.srv")"
		return 1
	fi
	# shellcheck disable=SC2086
	in_ns "$cns" timeout 180 $ccmd -p "$port" "$addr" >"$dir/$name.cli" 2>&1
	crc=$?
	wait "$spid"
	src=$?
	[ "$src" -eq 0 ] && [ "$crc" -eq 0 ] && return 0
	ktap_diag "$name: server status $src, client status $crc"
	ktap_diag "server:" "$(tail -5 "$dir/$name.srv")"
	ktap_diag "client:" "$(tail -5 "$dir/$name.cli")"
	# stderr is unbuffered and stdout to a file is not, so perftest's
	# error lines land above its last report lines, out of the tails
	ktap_diag "errors:" "$(grep -hiE 'error|fail|unable|couldn|timeout|report|correlation' \
		"$dir/$name.srv" "$dir/$name.cli" | head -n 10)"
	return 1
}

# vrdma_objects - the module's live object counters on one line,
# e.g. "vdev=2 ucontext=0 pd=0 ...".
vrdma_objects() {
	awk '{ printf "%s=%s ", $1, $2 } END { print "" }' \
		/sys/kernel/debug/vrdma/objects
}

# vrdma_objects_is EXPECTED - vrdma_objects is EXPECTED (for wait_for).
vrdma_objects_is() {
	[ "$(vrdma_objects)" = "$1" ]
}

# vrdma_shadows_zero - no user context, shadow object, shadow ucontext
# holder or wrapped mapping (the last two counted by vrdma_vma.ko).
vrdma_shadows_zero() {
	awk '$1 != "vdev" && $2 != 0 { bad = 1 } END { exit bad }' \
		/sys/kernel/debug/vrdma/objects
}

# check_shadows_released - report shadows_released: ok once no user context,
# shadow object or wrapped mapping is left (polled for up to 20 s), else not
# ok with the objects file.
check_shadows_released() {
	if wait_for 20 vrdma_shadows_zero; then
		ktap_ok shadows_released
	else
		ktap_fail shadows_released "$(vrdma_objects)"
	fi
}

# check_no_leak - report no_leak: ok once no user context, shadow object or
# wrapped mapping is left (polled for up to 30 s); the objects file either way.
check_no_leak() {
	if wait_for 30 vrdma_shadows_zero; then
		ktap_ok no_leak "$(vrdma_objects)"
	else
		ktap_fail no_leak "$(vrdma_objects)"
	fi
}

# vdev_in_ns_a PROG - PROG is executable, and the new namespace A (new_ns A a)
# holds the new vdevice vA.
vdev_in_ns_a() {
	[ -x "$1" ] && new_ns A a && vdev_add vA "$A"
}

# linked_vdev_pair - new namespaces A and B (new_ns A a, new_ns B b), linked
# (link_ns, link 1), with the vdevices vA in A and vB in B.
linked_vdev_pair() {
	new_ns A a && new_ns B b && link_ns "$A" "$B" 1 &&
		vdev_add vA "$A" && vdev_add vB "$B"
}

# check_released BASELINE - report two results: shadows_released (no user
# context, shadow object or wrapped mapping left) and parent_res_baseline
# (the parent's objects back to BASELINE, a parent_res line), each polled
# for up to 20 s, since the last process may still be exiting.
check_released() {
	check_shadows_released
	if wait_for 20 parent_res_is "$1"; then
		ktap_ok parent_res_baseline
	else
		ktap_fail parent_res_baseline "now: $(parent_res), baseline: $1"
	fi
}

# vdev_count - how many vdevices exist.
vdev_count() {
	awk '$1 == "vdev" { print $2 }' /sys/kernel/debug/vrdma/objects
}

# ns_devices NS - the RDMA devices NS sees, via libibverbs, one per line.
ns_devices() {
	ip netns exec "$1" ibv_devices | awk 'NR > 2 { print $1 }'
}

# parent_vm_ops - rxe has vm_ops of its own on its queue mappings, which
# vrdma_vma wraps: up to 7.2 (rxe_vm_ops).  From 7.3 it maps them with
# remap_vmalloc_range() alone: nothing of rxe's runs when they go, so
# vrdma wraps nothing and nothing pins vrdma_vma (kmod/vma.c).
parent_vm_ops() {
	grep -qE '[[:space:]]rxe_vm_ops[[:space:]]+\[rdma_rxe\]' /proc/kallsyms
}

# spawn_monitor OUT [OPTION...] - vrdmactl OPTION... -j monitor in the
# background, output in OUT and OUT.err; $! is vrdmactl itself, and it does
# not hold the KTAP stream open (the runner waits for that to close).
spawn_monitor() {
	local out=$1
	shift
	echo "# [init] $VRDMACTL $* -j monitor &" >&"$KTAP_FD"
	"$VRDMACTL" "$@" -j monitor >"$out" 2>"$out.err" {KTAP_FD}>&- &
}

# mon_has FILE EVENT REASON NAME - the monitor output in FILE has that
# event ("" for no reason) of the vdevice NAME.
mon_has() {
	jq -c --arg e "$2" --arg r "$3" --arg n "$4" \
		'select(.event == $e and (.reason // "") == $r and .dev.name == $n)' \
		"$1" 2>/dev/null | grep -q .
}
