#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Lifecycle: every order in which the things a vdevice depends on go away
# ends cleanly.  Each phase has its own namespaces and vdevices on $PARENT:
#
#   del      netns A: lc_del, a traffic user (queues mapped) and an idle
#            user; "vrdmactl dev del" under them
#   netns    netns B (named): lc_ns, "ip netns del B";
#            unnamed netns of a lone process: lc_un, the process exits
#   port     netns C: lc_p1, netns D: lc_p2, ibv_asyncwatch on each;
#            the parent's netdev (veth0) goes down and up
#   parent   netns E: lc_par with a traffic user that keeps its mappings;
#            "rdma link del" of the parent, then it is added back
#   rxe      netns E: lc_rxe; "rmmod rdma_rxe" is refused while a vdevice
#            exists and works once it is gone (then rxe0 comes back)
#   unload   netns F: lc_m1 with an idle user and a traffic user holding
#            its mappings, with a child that inherited them (fork);
#            "rmmod vrdma" succeeds under them: both users get
#            DEVICE_FATAL, the traffic user, its child and a child forked
#            after the unload touch the old mappings, the last one splits
#            them (partial munmap) before it exits; vrdma_vma.ko stays
#            pinned (refcnt, rmmod refused) until the users exit, then the
#            parent's objects are back, vrdma_vma unloads, and both modules
#            load again and serve a vdevice
#
# "vrdmactl -j monitor" in init_net records the deletion events.  The
# unload phase runs last.

# shellcheck source=selftests/lib/lib.sh
. "$(dirname "$0")/lib/lib.sh"
# shellcheck source=selftests/lib/vdev.sh
. "$(dirname "$0")/lib/vdev.sh"

USERPROG=$TOP/selftests/progs/vrdma_user

ktap_plan setup \
	del_in_use_returns del_in_use_fatal_event del_in_use_verbs_fail \
	del_in_use_mappings_survive del_in_use_shadows_freed \
	del_in_use_parent_res del_in_use_event \
	netns_named_destroys netns_named_not_moved netns_named_event \
	netns_unnamed_destroys netns_unnamed_event \
	port_down_events port_down_state port_up_events port_up_state \
	parent_del_returns parent_del_fatal parent_del_vdev_gone \
	parent_del_event parent_del_shadows_freed parent_readded \
	rxe_unload_refused rxe_unload_vdev_intact rxe_unload_after_del \
	unload_with_mappings unload_users_fatal unload_mappings_survive \
	unload_helper_pinned unload_helper_refused unload_helper_released \
	unload_parent_clean unload_helper_unloads reload_works \
	klog_clean

if ! require_cmd jq rdma stdbuf ibv_asyncwatch ibv_devinfo unshare ||
   ! have_vrdmactl || [ ! -x "$USERPROG" ]; then
	ktap_skip_rest "tools missing"
	ktap_finish
fi

MARK=$(klog_mark)
tmpdir T

# The parent and the module must be back for the scripts that follow,
# whatever happened here.
restore_world() {
	ip link set veth0 up
	if [ ! -d /sys/module/rdma_rxe ]; then
		modprobe rdma_rxe
	fi
	rdma link show "$PARENT/1" >/dev/null 2>&1 ||
		rdma link add "$PARENT" type rxe netdev veth0
	load_modules
}
cleanup_push restore_world

# vdev_exists NAME - the vdevice is known to vrdma.
vdev_exists() {
	"$VRDMACTL" dev show "$1" >/dev/null 2>&1
}

# rdma_dev_in_init NAME - init_net's RDMA core lists the device.
rdma_dev_in_init() {
	rdma dev show "$1" >/dev/null 2>&1
}

parent_active() {
	rdma link show "$PARENT/1" 2>/dev/null | grep -q 'state ACTIVE'
}

# vrdma_parent_listed - vrdma tracks $PARENT again.
vrdma_parent_listed() {
	"$VRDMACTL" -j parent show 2>/dev/null | grep -q "\"$PARENT\""
}

# exec: $! must be the monitor itself, which would otherwise outlive the
# script and keep its output open.
ktap_diag "[init] $VRDMACTL -j monitor &"
(exec "$VRDMACTL" -j monitor >"$T/mon" 2>"$T/mon.err") &
MONPID=$!
cleanup_push kill "$MONPID"

# setup - namespaces A to F and the monitor listening.
setup() {
	new_ns A a && new_ns B b && new_ns C c && new_ns D d && new_ns E e &&
		new_ns F f && wait_for 30 monitor_listening "$T/mon"
}
ktap_setup setup
BASELINE=$(parent_res)
ktap_diag "parent baseline: $BASELINE"

# --- delete in use ------------------------------------------------------------

vdev_add lc_del "$A"
spawn_in_ns "$A" "$USERPROG" -d lc_del -g "$GIDX" traffic >"$T/del.traffic" 2>&1
P1=$!
spawn_in_ns "$A" "$USERPROG" -d lc_del idle >"$T/del.idle" 2>&1
P2=$!
cleanup_push kill -9 "$P1" "$P2"
if wait_for 60 out_has "$T/del.traffic" '^ready' &&
   wait_for 60 out_has "$T/del.idle" '^ready'; then
	ktap_diag "users ready: $(vrdma_objects)"
	if in_init timeout 60 "$VRDMACTL" dev del lc_del; then
		ktap_ok del_in_use_returns
	else
		ktap_fail del_in_use_returns "dev del failed or hung"
	fi
else
	ktap_fail del_in_use_returns "users never got ready: $(cat "$T/del.traffic" "$T/del.idle")"
fi
wait_gone 60 "$P1" "$P2"
ktap_diag "traffic user:" "$(cat "$T/del.traffic")" "idle user:" "$(cat "$T/del.idle")"
if out_has "$T/del.traffic" '^event DEVICE_FATAL' &&
   out_has "$T/del.idle" '^event DEVICE_FATAL'; then
	ktap_ok del_in_use_fatal_event
else
	ktap_fail del_in_use_fatal_event
fi
if out_has "$T/del.traffic" '^verb alloc_pd errno=[1-9]' &&
   out_has "$T/del.idle" '^verb alloc_pd errno=[1-9]' &&
   out_has "$T/del.traffic" '^verb post_send ret=-?[1-9]'; then
	ktap_ok del_in_use_verbs_fail
else
	ktap_fail del_in_use_verbs_fail
fi
# poll_cq reads the old CQ mapping, post_send writes the old SQ mapping.
if out_has "$T/del.traffic" '^verb poll_cq ret=' &&
   out_has "$T/del.traffic" '^done'; then
	ktap_ok del_in_use_mappings_survive
else
	ktap_fail del_in_use_mappings_survive
fi
if wait_for 30 vrdma_shadows_zero && [ "$(vdev_count)" = 0 ]; then
	ktap_ok del_in_use_shadows_freed
else
	ktap_fail del_in_use_shadows_freed "$(vrdma_objects)"
fi
if wait_for 30 parent_res_is "$BASELINE"; then
	ktap_ok del_in_use_parent_res
else
	ktap_fail del_in_use_parent_res "now $(parent_res), baseline $BASELINE"
fi
ktap_check del_in_use_event wait_for 10 mon_has "$T/mon" del user lc_del

# --- namespace death ------------------------------------------------------------

vdev_add lc_ns "$B"
if vdev_exists lc_ns && in_init ip netns del "$B" &&
   wait_for 60 eval '! vdev_exists lc_ns'; then
	ktap_ok netns_named_destroys
else
	ktap_fail netns_named_destroys "$("$VRDMACTL" dev show 2>&1)"
fi
# Moved back to the host, it would show up in init_net's RDMA core.
if ! rdma_dev_in_init lc_ns && [ "$(vdev_count)" = 0 ]; then
	ktap_ok netns_named_not_moved
else
	ktap_fail netns_named_not_moved "$(rdma dev)"
fi
ktap_check netns_named_event wait_for 10 mon_has "$T/mon" del netns lc_ns

unshare -n sleep 600 &
UPID=$!
cleanup_push kill -9 "$UPID"
if wait_for 10 eval "[ \"\$(readlink /proc/$UPID/ns/net)\" != \"\$(readlink /proc/self/ns/net)\" ]" &&
   in_init "$VRDMACTL" dev add lc_un parent "$PARENT" netns-pid "$UPID" &&
   vdev_exists lc_un && kill -9 "$UPID" && wait_gone 10 "$UPID" &&
   wait_for 60 eval '! vdev_exists lc_un' && ! rdma_dev_in_init lc_un; then
	ktap_ok netns_unnamed_destroys
else
	ktap_fail netns_unnamed_destroys "$("$VRDMACTL" dev show 2>&1)"
fi
ktap_check netns_unnamed_event wait_for 10 mon_has "$T/mon" del netns lc_un

# --- port events ----------------------------------------------------------------

vdev_add lc_p1 "$C"
vdev_add lc_p2 "$D"
spawn_in_ns "$C" stdbuf -oL ibv_asyncwatch -d lc_p1 >"$T/aw1" 2>&1
W1=$!
spawn_in_ns "$D" stdbuf -oL ibv_asyncwatch -d lc_p2 >"$T/aw2" 2>&1
W2=$!
cleanup_push kill "$W1" "$W2"
cleanup_push ip link set veth0 up

# port_state NS DEV STATE - ibv_devinfo in NS and vrdmactl agree on STATE.
port_state() {
	ip netns exec "$1" ibv_devinfo -d "$2" 2>/dev/null |
		grep -q "state:.*PORT_$3" &&
	[ "$("$VRDMACTL" -j dev show "$2" | jq -r '.[0].state')" = "$3" ]
}
# An event that comes before ibv_asyncwatch has its context is lost to
# it: wait for its "async event FD" line, not for a time (a fixed 2 s was
# not always enough in a TCG guest on a busy host)
wait_for 60 out_has "$T/aw1" 'async event FD' &&
	wait_for 60 out_has "$T/aw2" 'async event FD'
# port_follows UPDOWN EVENT STATE - set veth0 UPDOWN; report port_UPDOWN_events
# (both watchers saw EVENT) and port_UPDOWN_state (both ports in STATE).
port_follows() {
	in_init ip link set veth0 "$1"
	if wait_for 30 out_has "$T/aw1" "$2" && wait_for 30 out_has "$T/aw2" "$2"; then
		ktap_ok "port_$1_events"
	else
		ktap_fail "port_$1_events" "$(cat "$T/aw1" "$T/aw2")"
	fi
	if wait_for 30 port_state "$C" lc_p1 "$3" && wait_for 30 port_state "$D" lc_p2 "$3"; then
		ktap_ok "port_$1_state"
	else
		ktap_fail "port_$1_state" "$("$VRDMACTL" dev show)"
	fi
}
port_follows down PORT_ERR DOWN
port_follows up PORT_ACTIVE ACTIVE
kill "$W1" "$W2"
wait_gone 10 "$W1" "$W2"
in_init "$VRDMACTL" dev del lc_p1
in_init "$VRDMACTL" dev del lc_p2
wait_for 30 parent_active

# --- parent removal -------------------------------------------------------------

vdev_add lc_par "$E"
spawn_in_ns "$E" "$USERPROG" -d lc_par -g "$GIDX" -H traffic >"$T/par" 2>&1
P3=$!
cleanup_push kill -9 "$P3"
if wait_for 60 out_has "$T/par" '^ready' &&
   in_init timeout 120 rdma link del "$PARENT"; then
	ktap_ok parent_del_returns
else
	ktap_fail parent_del_returns "$(cat "$T/par")"
fi
if wait_for 30 out_has "$T/par" '^done' && out_has "$T/par" '^event DEVICE_FATAL'; then
	ktap_ok parent_del_fatal
else
	ktap_fail parent_del_fatal "$(cat "$T/par")"
fi
ktap_check parent_del_vdev_gone wait_for 30 eval '! vdev_exists lc_par'
ktap_check parent_del_event wait_for 10 mon_has "$T/mon" del parent lc_par
ktap_diag "user holds its mappings: $(vrdma_objects)"
kill -9 "$P3"
wait_gone 10 "$P3"
ktap_check parent_del_shadows_freed wait_for 30 vrdma_shadows_zero
if in_init rdma link add "$PARENT" type rxe netdev veth0 && wait_for 30 parent_active; then
	ktap_ok parent_readded
else
	ktap_fail parent_readded "$(rdma link)"
fi
BASELINE=$(parent_res)

# --- unloading the parent's driver ------------------------------------------------

# Each vdevice pins the parent's driver module: unloading it would tear
# the vdevice down under its users with no say from the operator.
vdev_add lc_rxe "$E"
if out=$(in_init rmmod rdma_rxe 2>&1); then
	ktap_fail rxe_unload_refused "rmmod rdma_rxe succeeded with a vdevice on it"
else
	ktap_ok rxe_unload_refused "$out"
fi
if vdev_exists lc_rxe && parent_active; then
	ktap_ok rxe_unload_vdev_intact
else
	ktap_fail rxe_unload_vdev_intact
fi
in_init "$VRDMACTL" dev del lc_rxe
if in_init rmmod rdma_rxe && in_init modprobe rdma_rxe &&
   in_init rdma link add "$PARENT" type rxe netdev veth0 &&
   wait_for 30 parent_active && wait_for 10 vrdma_parent_listed; then
	ktap_ok rxe_unload_after_del
else
	ktap_fail rxe_unload_after_del "$(rdma link; lsmod | grep rxe)"
fi

# --- unloading vrdma --------------------------------------------------------------

# vma_refcnt - vrdma_vma's module reference count: one per VMA of a wrapped
# mapping (in every process), plus one while vrdma is loaded.
vma_refcnt() {
	cat /sys/module/vrdma_vma/refcnt 2>/dev/null || echo none
}

vma_unpinned() {
	[ "$(vma_refcnt)" = 0 ]
}

# has_maps PID - the process maps a uverbs file (the parent's queues).
has_maps() {
	grep -q '/dev/infiniband/uverbs' "/proc/$1/maps" 2>/dev/null
}

vdev_add lc_m1 "$F"
spawn_in_ns "$F" "$USERPROG" -d lc_m1 -g "$GIDX" -H -F traffic >"$T/m.traffic" 2>&1
P4=$!
spawn_in_ns "$F" "$USERPROG" -d lc_m1 idle >"$T/m.idle" 2>&1
P5=$!
cleanup_push kill -9 "$P4" "$P5"
wait_for 60 out_has "$T/m.traffic" '^ready'
wait_for 60 out_has "$T/m.traffic" '^child pid '
wait_for 60 out_has "$T/m.idle" '^ready'
CHILD=$(sed -n 's/^child pid \([0-9]*\)$/\1/p' "$T/m.traffic")
NMAPS=$(awk '$1 == "mmap" { print $2 }' /sys/kernel/debug/vrdma/objects)
ktap_diag "before rmmod: $(vrdma_objects), vrdma_vma refcnt $(vma_refcnt), child ${CHILD:-none}"
# The closing of the parent's queue mappings (rxe's vm_ops, wrapped) runs
# only vrdma_vma.ko code: vrdma can go under them.  Without vm_ops of
# rxe's own none is wrapped, and vrdma goes under its plain mappings.
WRAPS=1
parent_vm_ops || WRAPS=0
if [ "$WRAPS" = 1 ] && [ "${NMAPS:-0}" -lt 1 ]; then
	ktap_fail unload_with_mappings "rxe has vm_ops but no mapping is wrapped"
elif [ "$WRAPS" = 0 ] && [ "${NMAPS:-0}" -ne 0 ]; then
	ktap_fail unload_with_mappings "rxe has no vm_ops, yet $NMAPS mapping(s) wrapped"
elif [ -z "$CHILD" ] || ! has_maps "$CHILD"; then
	ktap_fail unload_with_mappings "no child holding a mapping to unload under"
elif ! out=$(in_init rmmod vrdma 2>&1); then
	ktap_fail unload_with_mappings "rmmod vrdma refused: $out"
elif [ -d /sys/module/vrdma ] || rdma_dev_in_init lc_m1 ||
     [ -d /sys/kernel/debug/vrdma ]; then
	ktap_fail unload_with_mappings "vrdma or lc_m1 still there: $(lsmod | grep vrdma)"
else
	ktap_ok unload_with_mappings
fi
if wait_for 60 out_has "$T/m.traffic" '^done' && out_has "$T/m.traffic" '^event DEVICE_FATAL' &&
   wait_gone 60 "$P5" && out_has "$T/m.idle" '^event DEVICE_FATAL' &&
   out_has "$T/m.idle" '^verb alloc_pd errno=[1-9]'; then
	ktap_ok unload_users_fatal
else
	ktap_fail unload_users_fatal "traffic: $(cat "$T/m.traffic"); idle: $(cat "$T/m.idle")"
fi
# With vrdma gone for sure: the user, its child and a child forked now
# (vm_ops->open, then close, in vrdma_vma only) read the old mappings; the
# last one splits the multi-page ones (open on a new piece, close).
kill -USR1 "$P4"
if wait_for 60 out_has "$T/m.traffic" '^touched' &&
   wait_for 60 out_has "$T/m.traffic" '^child touched' &&
   out_has "$T/m.traffic" '^touch poll_cq ret=' &&
   out_has "$T/m.traffic" '^fork child poll_cq ret=' &&
   out_has "$T/m.traffic" '^fork child split [1-9]' &&
   out_has "$T/m.traffic" '^fork child status=0$' &&
   kill -0 "$P4" && kill -0 "$CHILD"; then
	ktap_ok unload_mappings_survive
else
	ktap_fail unload_mappings_survive "$(cat "$T/m.traffic")"
fi
ktap_diag "traffic user:" "$(cat "$T/m.traffic")"
ktap_diag "after rmmod: vrdma_vma refcnt $(vma_refcnt)"
# The user's VMAs and its child's, copied by fork (vm_ops->open), each pin
# the module: at least two per wrapped mapping counted before.
rc=$(vma_refcnt)
NOWRAP="rxe maps its queues without vm_ops (7.3): none wrapped, vrdma_vma not pinned"
if [ "$WRAPS" = 0 ]; then
	ktap_skip unload_helper_pinned "$NOWRAP"
elif [ "$rc" != none ] && [ "$rc" -ge $((2 * ${NMAPS:-1})) ] && has_maps "$P4"; then
	ktap_ok unload_helper_pinned "refcnt $rc, $NMAPS wrapped mapping(s)"
else
	ktap_fail unload_helper_pinned "vrdma_vma refcnt '$rc', $NMAPS wrapped mapping(s)"
fi
if [ "$WRAPS" = 0 ]; then
	ktap_skip unload_helper_refused "$NOWRAP"
elif out=$(in_init rmmod vrdma_vma 2>&1); then
	ktap_fail unload_helper_refused "rmmod vrdma_vma succeeded under mappings"
elif [ -d /sys/module/vrdma_vma ] && grep -qi 'in use' <<<"$out"; then
	ktap_ok unload_helper_refused "$out"
else
	ktap_fail unload_helper_refused "$out"
fi
# The child dies with its parent (PR_SET_PDEATHSIG).
kill -9 "$P4"
wait_gone 10 "$P4"
if wait_for 30 gone "$CHILD" && wait_for 30 vma_unpinned; then
	ktap_ok unload_helper_released
else
	ktap_fail unload_helper_released "vrdma_vma refcnt $(vma_refcnt)"
fi
if ! rdma_dev_in_init lc_m1 && wait_for 30 parent_res_is "$BASELINE"; then
	ktap_ok unload_parent_clean
else
	ktap_fail unload_parent_clean "$(rdma dev) now $(parent_res), baseline $BASELINE"
fi
if in_init rmmod vrdma_vma && [ ! -d /sys/module/vrdma_vma ]; then
	ktap_ok unload_helper_unloads
else
	ktap_fail unload_helper_unloads "$(lsmod | grep vrdma)"
fi
if load_modules && vdev_add lc_again "$F" && [ "$(vdev_count)" = 1 ] &&
   in_ns "$F" "$USERPROG" -d lc_again -g "$GIDX" objects >"$T/again" 2>&1 &&
   in_init "$VRDMACTL" dev del lc_again && [ "$(vdev_count)" = 0 ] &&
   wait_for 30 vrdma_shadows_zero; then
	ktap_ok reload_works
else
	ktap_fail reload_works "$(cat "$T/again" 2>&1) $(vrdma_objects 2>&1)"
fi

ktap_check klog_clean klog_clean_since "$MARK"

ktap_finish
