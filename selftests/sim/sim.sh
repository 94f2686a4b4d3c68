#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rdmasim, the simulated hardware parent (selftests/rdmasim/): a RoCE
# device on veth1 whose rings and doorbell pages are mmap entries, with a
# driver-namespace UAR object that create_cq requires and strict checks
# that WARN ("rdmasim: strict:") where vrdma hands a hardware driver what
# it would misread.  selftests/progs/sim_raw drives it with raw uverbs
# commands (no rdma-core provider exists for it), natively on sim0 and
# through a vdevice on sim0, where vrdma forwards rdmasim's driver methods
# (kmod/fwd_rdmasim.c) but for one left out on purpose (UAR_QUERY).
#
#   netns S: vS (on sim0)           init_net: sim0 on veth1, rxe0 on veth0
#
# selftests/progs/sim_dp drives the data path (datapath.c: a kernel thread
# polls the doorbell records and executes SEND, RDMA WRITE and READ between
# two connected QPs, completions in the mapped CQ ring), natively and
# through the vdevice; its data phase is traced (raw_syscalls:sys_enter,
# sim_dp's picked out, and the function tracer on vrdma's functions)
# between two markers it writes, to show zero system calls and zero calls
# into vrdma.

# shellcheck source=selftests/lib/lib.sh
. "$(dirname "$0")/lib/lib.sh"
# shellcheck source=selftests/lib/vdev.sh
. "$(dirname "$0")/lib/vdev.sh"
# shellcheck source=selftests/lib/sim.sh
. "$(dirname "$0")/lib/sim.sh"

PROG=$TOP/selftests/progs/sim_raw
DP=$TOP/selftests/progs/sim_dp
# Work requests per operation in sim_dp's checks, and their size
DP_N=${SIM_DP_N:-64}
DP_SIZE=4096
PARENT=sim0
ktap_plan setup port_active gid_table native_raw native_unforwarded_answers \
	native_objects_released native_strict_clean native_kill9_released \
	native_datapath native_bad_wqes native_zero_syscalls \
	native_syscall_count_can_fail native_kill9_busy_released \
	vdev_query_device_data vdev_driver_methods vdev_raw vdev_unforwarded_refused \
	vdev_datapath vdev_zero_syscalls vdev_zero_vrdma_calls \
	vdev_counts_can_fail vdev_strict_clean vdev_objects_released \
	vdev_kill9_released vdev_kill9_strict_clean vdev_del_uar_alive \
	vdev_del_busy_released netns_death_vdev_kept netns_death_destroyed \
	netns_death_event netns_death_released netns_death_klog_clean \
	netns_death_parent_works link_del_busy link_del_baseline module_unload \
	klog_clean

# sim_strict - how many strict checks have fired since the module loaded.
sim_strict() {
	cat "$SIMDBG/strict"
}

# --- tracing the data phase ---------------------------------------------

# trace_init - tracefs mounted at $T/tr (outside /sys, which "ip netns exec"
# remounts), with the function tracer and the raw_syscalls events.
trace_init() {
	TR=$T/tr
	mkdir -p "$TR" && mount -t tracefs nodev "$TR" || return 1
	cleanup_push umount "$TR"
	grep -qw function "$TR/available_tracers" &&
		[ -d "$TR/events/raw_syscalls/sys_enter" ]
}

# dp_traced OUT NS ARGS... - run sim_dp ARGS in netns NS (init_net if
# NS is "-") with marks around its data phase, tracing every task's
# system calls and every vrdma function any task calls.  sim_dp's output
# in OUT, the trace between the marks in OUT.window; both marks must be in
# the trace (the opening one names sim_dp's pid).
dp_traced() {
	local out=$1 ns=$2 rc
	shift 2
	echo 0 >"$TR/tracing_on"
	echo nop >"$TR/current_tracer"
	: >"$TR/trace"
	echo ':mod:vrdma' >"$TR/set_ftrace_filter" &&
		echo ':mod:vrdma_vma' >>"$TR/set_ftrace_filter" || return 1
	echo function >"$TR/current_tracer"
	echo 1 >"$TR/events/raw_syscalls/sys_enter/enable"
	echo 1 >"$TR/tracing_on"
	# Every task's system calls are traced and sim_dp's picked out later
	# (window_syscalls): following one pid (set_event_pid) hooks
	# sched_switch, and patching that static branch in __schedule() under
	# TCG once killed the guest (Documentation/testing.rst).
	if [ "$ns" = - ]; then
		in_init "$DP" "$@" -m "$TR/trace_marker" >"$out" 2>&1
	else
		in_ns "$ns" "$DP" "$@" -m "$TR/trace_marker" >"$out" 2>&1
	fi
	rc=$?
	echo 0 >"$TR/tracing_on"
	cat "$TR/trace" >"$out.trace"
	echo 0 >"$TR/events/raw_syscalls/sys_enter/enable"
	echo nop >"$TR/current_tracer"
	: >"$TR/set_ftrace_filter"
	: >"$TR/trace"
	awk '/tracing_mark_write: sim_dp data begin/ { w = 1; next }
	     /tracing_mark_write: sim_dp data end/ { w = 0 } w' \
		"$out.trace" >"$out.window"
	grep -q 'sim_dp data begin' "$out.trace" &&
		grep -q 'sim_dp data end' "$out.trace" || rc=1
	return $rc
}

# dp_sys_enter OUT - sim_dp's sys_enter events between the marks: those
# of the task that wrote the opening mark (a trace line's task field is
# COMM-PID; the PID, as COMM may show as "<...>")
dp_sys_enter() {
	local pid
	pid=$(awk '/tracing_mark_write: sim_dp data begin/ {
		sub(/.*-/, "", $1); print $1; exit }' "$1.trace")
	[ -n "$pid" ] || return 0
	awk -v t="-$pid" 'substr($1, length($1) - length(t) + 1) == t &&
		/ sys_enter: /' "$1.window"
}

# window_syscalls OUT - system calls sim_dp made in its data phase, less
# the last one if it is the write(2) of the closing mark itself (NR 1).
window_syscalls() {
	local n
	n=$(dp_sys_enter "$1" | grep -c .)
	if dp_sys_enter "$1" | tail -n 1 | grep -q 'NR 1 '; then
		n=$((n - 1))
	fi
	echo "$n"
}

# window_vrdma OUT - calls of vrdma functions between the marks (any task)
window_vrdma() {
	grep -v -e '^#' -e 'sys_enter:' -e 'tracing_mark_write:' "$1.window" |
		grep -c .
}

# zero_syscalls NAME OUT - ok if sim_dp made no system call in the data
# phase of OUT; sc and vc are set to its system and vrdma calls
zero_syscalls() {
	sc=$(window_syscalls "$2")
	vc=$(window_vrdma "$2")
	if [ "$sc" = 0 ]; then
		ktap_ok "$1" "data phase: 0 system calls, $vc vrdma calls"
	else
		ktap_fail "$1" "data phase: $sc system calls"
		ktap_diag "$(dp_sys_enter "$2" | head -n 5)"
	fi
}

# dp_ok CHECK FILE - sim_dp printed "CHECK ok"
dp_ok() {
	awk -v c="$1" '$1 == c && $2 == "ok" { f = 1 } END { exit !f }' "$2"
}

# dp_wqes - WQEs the device's thread has executed since the module loaded
dp_wqes() {
	awk '$1 == "wqes" { print $2 }' "$SIMDBG/datapath"
}

# dp_wqes_above N - the thread has executed more than N WQEs
dp_wqes_above() {
	[ "$(dp_wqes)" -gt "$1" ]
}

# dp_busy OUT - sim_dp -k printed "busy" to OUT and the thread executes
dp_busy() {
	local w
	wait_for 30 grep -q '^busy' "$1" || return 1
	w=$(dp_wqes)
	wait_for 20 dp_wqes_above "$((w + 16))"
}

mark=$(klog_mark)
tmpdir T

# passed CHECK FILE - sim_raw reported CHECK as ok.
passed() {
	grep -q "^$1 ok" "$2"
}

# result CHECK FILE - the status word sim_raw printed for CHECK ("ok",
# "err"), then the errno name, or nothing if it never got there.
result() {
	awk -v c="$1" '$1 == c { print $2, $3; exit }' "$2"
}
ktap_setup sim_up "$PROG"

if wait_for 10 grep -q ACTIVE <(rdma link show sim0/1); then
	ktap_ok port_active "$(rdma link show sim0/1)"
else
	ktap_fail port_active "$(rdma link show sim0/1)"
fi
# veth1's IPv4 address, as an IPv4-mapped GID
if wait_for 10 grep -qs '0000:0000:0000:0000:0000:ffff:0a63:0002' \
	/sys/class/infiniband/sim0/ports/1/gids/*; then
	ktap_ok gid_table
else
	ktap_fail gid_table "no GID for 10.99.0.2"
fi

base=$(sim_objects)
ktap_diag "rdmasim objects at rest: $base"
m=$(klog_mark)
if in_init "$PROG" sim0 >"$T/native" 2>&1; then
	ktap_ok native_raw "$(cat "$T/native")"
else
	ktap_fail native_raw "$(tr '\n' ' ' <"$T/native")"
fi
# The parent method vrdma does not forward works natively
if grep -qx 'uar_query_method answered page [0-9]*' "$T/native"; then
	ktap_ok native_unforwarded_answers
else
	ktap_fail native_unforwarded_answers "$(grep uar_query_method "$T/native")"
fi
if wait_for 10 sim_objects_is "$base"; then
	ktap_ok native_objects_released
else
	ktap_fail native_objects_released "now: $(sim_objects), at rest: $base"
fi
strict_report "$m" native_strict_clean

# kill -9 while the doorbell page and rings are mapped: the core destroys
# the objects, the pages go when the mappings do
# (a subshell that execs it: $! must be sim_raw itself)
(
	echo "# [init] $PROG sim0 60 &" >&"$KTAP_FD"
	exec "$PROG" sim0 60 >"$T/hold" 2>&1
) &
pid=$!
if wait_for 20 grep -q '^holding' "$T/hold" && kill -9 "$pid" &&
	wait_gone 10 "$pid" && wait_for 10 sim_objects_is "$base"; then
	ktap_ok native_kill9_released
else
	kill -9 "$pid" 2>/dev/null
	ktap_fail native_kill9_released "now: $(sim_objects), at rest: $base; $(tr '\n' ' ' <"$T/hold")"
fi

# The data path natively: payloads, bad WQEs, then the traced data phase
m=$(klog_mark)
in_init "$DP" sim0 -n "$DP_N" -z "$DP_SIZE" -b >"$T/dp" 2>&1
ktap_diag "$(cat "$T/dp")"
if dp_ok send "$T/dp" && dp_ok write "$T/dp" && dp_ok read "$T/dp" &&
	dp_ok teardown "$T/dp"; then
	ktap_ok native_datapath "$DP_N each of SEND, RDMA WRITE, RDMA READ x $DP_SIZE bytes verified"
else
	ktap_fail native_datapath "$(grep ' err ' "$T/dp")"
fi
bad=$(grep -cE '^(bad_lkey|rkey_out_of_bounds|rkey_no_remote_write|rkey_no_remote_read|bad_opcode|too_many_sges|bad_doorbell) ok' "$T/dp")
if [ "$bad" = 7 ] && wait_for 10 sim_objects_is "$base"; then
	ktap_ok native_bad_wqes "7 bad WQEs, 7 error completions"
else
	ktap_fail native_bad_wqes "$bad of 7; now: $(sim_objects), at rest: $base"
fi

TRACE_OK=
if trace_init; then
	TRACE_OK=y
else
	ktap_diag "no tracefs function tracer or raw_syscalls events"
fi
if [ -n "$TRACE_OK" ] && dp_traced "$T/dpn" - sim0 -n "$DP_N" -z "$DP_SIZE" &&
	dp_ok read "$T/dpn"; then
	zero_syscalls native_zero_syscalls "$T/dpn"
else
	ktap_fail native_zero_syscalls "$(grep ' err ' "$T/dpn" 2>/dev/null)"
	ktap_diag "$(cat "$T/dpn" 2>/dev/null); trace: $(wc -l <"$T/dpn.trace" 2>/dev/null) lines, $(grep -c 'sim_dp data' "$T/dpn.trace" 2>/dev/null) marks"
fi
# The same count with one system call in the data phase must see it
if [ -n "$TRACE_OK" ] && dp_traced "$T/dps" - sim0 -n 8 -s &&
	sc=$(window_syscalls "$T/dps") && [ "$sc" -ge 1 ]; then
	ktap_ok native_syscall_count_can_fail "with -s: $sc system call(s) seen"
else
	ktap_fail native_syscall_count_can_fail "with -s: ${sc:-?} system calls seen"
fi

# kill -9 while the device's thread executes the process's WQEs
(
	echo "# [init] $DP sim0 -k &" >&"$KTAP_FD"
	exec "$DP" sim0 -k >"$T/busy" 2>&1
) &
pid=$!
if dp_busy "$T/busy" && kill -9 "$pid" && wait_gone 10 "$pid" &&
	wait_for 10 sim_objects_is "$base"; then
	ktap_ok native_kill9_busy_released "$(tr '\n' ' ' <"$SIMDBG/datapath")"
else
	kill -9 "$pid" 2>/dev/null
	ktap_fail native_kill9_busy_released "now: $(sim_objects), at rest: $base; $(tr '\n' ' ' <"$T/busy")"
fi


# Through a vdevice: driver methods are forwarded to rdmasim with the
# shadow objects (kmod/fwd.c); rdmasim's strict checks must stay silent
m=$(klog_mark)
sim_vdev_run S s vS "$T/vdev" "$PROG"
case $(result query_device_driver_data "$T/vdev") in
"ok "*) ktap_ok vdev_query_device_data ;;
*) ktap_fail vdev_query_device_data "$(result query_device_driver_data "$T/vdev")" ;;
esac
if passed pd_query_method "$T/vdev" &&
	passed uar_alloc "$T/vdev"; then
	ktap_ok vdev_driver_methods
else
	ktap_fail vdev_driver_methods "$(grep ' err ' "$T/vdev")"
fi
# UAR alloc, its mmap, create_cq with its page id, QP, destroy all
if passed uar_mmap "$T/vdev" &&
	passed create_cq "$T/vdev" &&
	passed uar_destroy "$T/vdev" &&
	passed dealloc_pd "$T/vdev" &&
	! grep -q ' err ' "$T/vdev"; then
	ktap_ok vdev_raw
else
	ktap_fail vdev_raw "$(grep ' err ' "$T/vdev")"
fi
# Not whitelisted: refused, never run with the vdevice's objects
if grep -qxE 'uar_query_method refused (EOPNOTSUPP|EPROTONOSUPPORT)' "$T/vdev"; then
	ktap_ok vdev_unforwarded_refused "$(grep uar_query_method "$T/vdev")"
else
	ktap_fail vdev_unforwarded_refused "$(grep uar_query_method "$T/vdev" || echo "not reached")"
fi

# The data path through the vdevice: the same rings, the same thread;
# vrdma is out of the way once the objects exist
VDEV_DP=
passed uar_alloc "$T/vdev" && VDEV_DP=y
if [ -z "$VDEV_DP" ]; then
	for t in vdev_datapath vdev_zero_syscalls vdev_zero_vrdma_calls \
		vdev_counts_can_fail; do
		ktap_fail "$t" "no UAR: see vdev_driver_methods"
	done
elif [ -z "$TRACE_OK" ]; then
	ktap_fail vdev_datapath "no tracing"
	ktap_skip vdev_zero_syscalls "no tracefs function tracer"
	ktap_skip vdev_zero_vrdma_calls "no tracefs function tracer"
	ktap_skip vdev_counts_can_fail "no tracefs function tracer"
else
	dp_traced "$T/dpv" "$S" vS -n "$DP_N" -z "$DP_SIZE"
	ktap_diag "$(cat "$T/dpv")"
	if dp_ok send "$T/dpv" && dp_ok write "$T/dpv" &&
		dp_ok read "$T/dpv" && dp_ok teardown "$T/dpv"; then
		ktap_ok vdev_datapath "$DP_N each of SEND, RDMA WRITE, RDMA READ x $DP_SIZE bytes verified"
		zero_syscalls vdev_zero_syscalls "$T/dpv"
		if [ "$vc" = 0 ]; then
			ktap_ok vdev_zero_vrdma_calls "data phase: 0 vrdma calls; whole run: $(grep -v -e '^#' -e 'sys_enter:' -e 'tracing_mark_write:' "$T/dpv.trace" | grep -c .)"
		else
			ktap_fail vdev_zero_vrdma_calls "data phase: $vc vrdma calls"
			ktap_diag "$(grep -v -e '^#' -e 'sys_enter:' -e 'tracing_mark_write:' "$T/dpv.window" | head -n 5)"
		fi
	else
		ktap_fail vdev_datapath "$(grep ' err ' "$T/dpv")"
		ktap_fail vdev_zero_syscalls "see vdev_datapath"
		ktap_fail vdev_zero_vrdma_calls "see vdev_datapath"
	fi
	# One QUERY_PORT in the data phase: both counts must see it
	dp_traced "$T/dpvs" "$S" vS -n 8 -s
	sc=$(window_syscalls "$T/dpvs")
	vc=$(window_vrdma "$T/dpvs")
	if [ "$sc" -ge 1 ] && [ "$vc" -ge 1 ]; then
		ktap_ok vdev_counts_can_fail "with -s: $sc system call(s), $vc vrdma call(s) seen"
	else
		ktap_fail vdev_counts_can_fail "with -s: $sc system calls, $vc vrdma calls seen"
	fi
fi
strict_report "$m" vdev_strict_clean
if wait_for 10 sim_objects_is "$base"; then
	ktap_ok vdev_objects_released
else
	ktap_fail vdev_objects_released "now: $(sim_objects), at rest: $base"
fi

# hold_uar OUT - start $PROG on vS in S in the background, its output in
# OUT and its pid in pid; succeed once it holds its objects, a UAR among
# them.
hold_uar() {
	(
		echo "# [$S] $PROG vS 60 &" >&"$KTAP_FD"
		exec ip netns exec "$S" "$PROG" vS 60 >"$1" 2>&1
	) &
	pid=$!
	wait_for 20 grep -q '^holding' "$1" && grep -q '^uar_alloc ok' "$1"
}

# released NAME OUT CHECK... - ok NAME if CHECK, which ends the process
# $pid, succeeds; if not, $pid is killed, rdmasim's objects and OUT shown
released() {
	local name=$1 out=$2
	shift 2
	if "$@"; then
		ktap_ok "$name"
	else
		kill -9 "$pid" 2>/dev/null
		ktap_fail "$name" "now: $(sim_objects), at rest: $base; $(tr '\n' ' ' <"$out")"
	fi
}

# kill -9 through the vdevice with the UAR object, CQ and QP alive and
# mapped: the core's cleanup reaches rdmasim's UAR cleanup through vrdma
kill9_released() {
	hold_uar "$T/vhold" && kill -9 "$pid" &&
		wait_gone 10 "$pid" && wait_for 10 sim_objects_is "$base"
}

m=$(klog_mark)
if [ -n "${S:-}" ]; then
	released vdev_kill9_released "$T/vhold" kill9_released
	strict_report "$m" vdev_kill9_strict_clean
else
	ktap_fail vdev_kill9_released "no vdevice"
	ktap_fail vdev_kill9_strict_clean "no vdevice"
fi

# The vdevice goes while a process holds a UAR object, CQ and QP on it:
# the core's disassociation destroys them through vrdma's cleanup; the
# pages go when the process does
del_uar_alive() {
	hold_uar "$T/vdel" &&
		in_init "$VRDMACTL" dev del vS >/dev/null &&
		wait_for 10 grep -q '^ucontext 0' "$SIMDBG/objects" &&
		wait_for 10 grep -q '^uar 0' "$SIMDBG/objects" &&
		kill -9 "$pid" && wait_gone 10 "$pid" &&
		wait_for 10 sim_objects_is "$base"
}

if [ -n "${S:-}" ]; then
	released vdev_del_uar_alive "$T/vdel" del_uar_alive
else
	ktap_fail vdev_del_uar_alive "no vdevice"
fi
# vdevice delete while the thread executes the process's WQEs: the
# process keeps its (now zapped) mappings until killed (a vdevice of its
# own: vdev_del_uar_alive deleted vS)
del_busy_released() {
	dp_busy "$T/vbusy" && in_init "$VRDMACTL" dev del vS2 &&
		wait_for 20 sim_objects_is "$base" && kill -9 "$pid" &&
		wait_gone 10 "$pid"
}

if [ -n "$VDEV_DP" ] && vdev_add vS2 "$S"; then
	spawn_in_ns "$S" "$DP" vS2 -k >"$T/vbusy" 2>&1
	pid=$!
	released vdev_del_busy_released "$T/vbusy" del_busy_released
else
	ktap_fail vdev_del_busy_released "no UAR or no vdevice: see vdev_driver_methods"
fi

in_init "$VRDMACTL" dev del vS >/dev/null 2>&1

# --- the tenant's namespace dies under a busy data path ------------------

# A netns lives as long as a process in it, so the realistic death is the
# container's last process killed mid-stream, with its vdevice open, the
# rings and doorbell mapped and the device's thread executing its WQEs:
#   del-kill  "ip netns del" first (the process alone holds the netns:
#             the vdevice must stay), then kill -9;
#   kill-del  kill -9, then "ip netns del" at once: the exit and the
#             unmount race to drop the last reference;
#   unnamed   a netns that never had a name ("unshare -n -m", the
#             vdevice added by pid), its only process killed.
# The last reference queues the netns's cleanup, whose pre_exit
# (kmod/pernet.c) destroys the vdevice while the process's exit (its
# uverbs file released from task work, after its namespaces) may still
# run.  Rounds of the three orders in one boot, for ordering races.
NSD_ROUNDS=${SIM_NSDEATH_ROUNDS:-6}
NSD_MODES=(del-kill kill-del unnamed)

# vdev_known NAME - vrdma lists NAME
vdev_known() {
	"$VRDMACTL" dev show "$1" >/dev/null 2>&1
}

# mon_del FILE REASON NAME - the monitor printed the deletion of NAME
mon_del() {
	jq -c --arg r "$2" --arg n "$3" \
		'select(.event == "del" and .reason == $r and .dev.name == $n)' \
		"$1" 2>/dev/null | grep -q .
}

# other_netns PID - PID runs in a network namespace not ours
other_netns() {
	! [ "/proc/$1/ns/net" -ef /proc/self/ns/net ]
}

# nsd_start HOW NAME OUT - a vdevice NAME in a fresh netns, sim_dp -k on
# it in that netns, output in OUT; sets NSD_PID (sim_dp's pid) and NSD_NS
# (the netns's name, empty for "unnamed")
nsd_start() {
	local how=$1 name=$2 out=$3 go
	NSD_PID='' NSD_NS='' NSD_GO=''
	if [ "$how" != unnamed ]; then
		NSD_NS="${TEST_NAME}-$$-$name"
		in_init ip netns add "$NSD_NS" || return 1
		cleanup_push ip netns del "$NSD_NS"
		vdev_add "$name" "$NSD_NS" || return 1
		spawn_in_ns "$NSD_NS" "$DP" "$name" -k >"$out" 2>&1
		NSD_PID=$!
		return 0
	fi
	# unshare execs sh, which waits for the vdevice, mounts the
	# namespace's own sysfs (where sim_dp finds it) and execs sim_dp:
	# one pid throughout.  The FIFO stays open here until the round
	# ends (nsd_go_close): a FIFO drops what was written to it when its
	# last opener closes it, and under load sh may open it only after
	# "go" was written, then wait for a writer for ever
	go=$T/go.$name
	mkfifo "$go" || return 1
	exec {NSD_GO}<>"$go"
	(
		exec {NSD_GO}>&-
		echo "# [init] unshare -n -m $DP $name -k &" >&"$KTAP_FD"
		# shellcheck disable=SC2016 # expanded by that shell
		exec unshare -n -m --propagation private sh -c \
			'read -r _ <"$1" && mount -t sysfs sysfs /sys && exec "$2" "$3" -k' \
			sh "$go" "$DP" "$name"
	) >"$out" 2>&1 &
	NSD_PID=$!
	if wait_for 10 other_netns "$NSD_PID" &&
		in_init "$VRDMACTL" dev add "$name" parent "$PARENT" \
			netns-pid "$NSD_PID" gids shared; then
		cleanup_push "$VRDMACTL" dev del "$name"
		# into the pipe held open: never blocks, whenever sh reads
		echo go >&"$NSD_GO"
		return 0
	fi
	kill -9 "$NSD_PID"
	return 1
}

# nsd_go_close - close the FIFO nsd_start holds open, if any
nsd_go_close() {
	[ -n "$NSD_GO" ] || return 0
	exec {NSD_GO}>&-
	NSD_GO=''
}

# nsd_round N - one round; prints what went wrong, fails then
nsd_round() {
	local how=${NSD_MODES[$(($1 % ${#NSD_MODES[@]}))]} name=vX$1
	local out=$T/nsd.$1 w
	ktap_diag "netns death round $1: $how"
	if ! nsd_start "$how" "$name" "$out" || ! dp_busy "$out"; then
		nsd_go_close
		kill -9 "$NSD_PID" 2>/dev/null
		echo "round $1 ($how): never busy: $(tr '\n' ' ' <"$out")"
		return 1
	fi
	nsd_go_close
	w=$(dp_wqes)
	case $how in
	del-kill)
		in_init ip netns del "$NSD_NS"
		# The process holds the netns: nothing may go yet
		if ! wait_for 10 dp_wqes_above "$w" || ! vdev_known "$name"; then
			NSD_KEPT_BAD="$NSD_KEPT_BAD $1"
		fi
		kill -9 "$NSD_PID"
		;;
	kill-del)
		kill -9 "$NSD_PID"
		in_init ip netns del "$NSD_NS"
		;;
	unnamed)
		kill -9 "$NSD_PID"
		;;
	esac
	if ! wait_gone 20 "$NSD_PID"; then
		echo "round $1 ($how): sim_dp did not exit"
		return 1
	fi
	if ! wait_for 30 eval "! vdev_known $name"; then
		NSD_GONE_BAD="$NSD_GONE_BAD $1"
		echo "round $1 ($how): $name outlived its netns"
	fi
	if ! wait_for 10 mon_del "$T/nsdmon" netns "$name"; then
		NSD_EVENT_BAD="$NSD_EVENT_BAD $1"
		echo "round $1 ($how): no del netns event for $name"
	fi
	if ! wait_for 20 sim_objects_is "$base" ||
		! wait_for 20 vrdma_objects_is "$NSD_VBASE"; then
		NSD_REL_BAD="$NSD_REL_BAD $1"
		echo "round $1 ($how): rdmasim $(sim_objects), vrdma $(vrdma_objects)"
	fi
}

m=$(klog_mark)
NSD_KEPT_BAD='' NSD_GONE_BAD='' NSD_EVENT_BAD='' NSD_REL_BAD='' NSD_BAD=''
wait_for 20 vrdma_shadows_zero
NSD_VBASE=$(vrdma_objects)
ktap_diag "vrdma objects at rest: $NSD_VBASE"
ktap_diag "[init] $VRDMACTL -j monitor &"
"$VRDMACTL" -j monitor >"$T/nsdmon" 2>"$T/nsdmon.err" {KTAP_FD}>&- &
nsdmon=$!
cleanup_push kill "$nsdmon"
if [ -z "$VDEV_DP" ] || ! wait_for 30 monitor_listening "$T/nsdmon"; then
	NSD_BAD="no UAR (see vdev_driver_methods) or no monitor: $(cat "$T/nsdmon.err")"
else
	for ((i = 0; i < NSD_ROUNDS; i++)); do
		nsd_round "$i" >"$T/nsd.diag" || NSD_BAD="$NSD_BAD round $i failed;"
		[ -s "$T/nsd.diag" ] && ktap_diag "$(cat "$T/nsd.diag")"
	done
fi
kill "$nsdmon" 2>/dev/null
wait "$nsdmon" 2>/dev/null
ktap_diag "rdmasim: $(tr '\n' ' ' <"$SIMDBG/datapath")"
# rounds_ok NAME BAD MSG - ok NAME with MSG if BAD names no round, else
# not ok with the rounds that went wrong
rounds_ok() {
	if [ -z "$2" ]; then
		ktap_ok "$1" "$3"
	else
		ktap_fail "$1" "rounds$2"
	fi
}

if [ -n "$NSD_BAD" ]; then
	for t in netns_death_vdev_kept netns_death_destroyed netns_death_event \
		netns_death_released; do
		ktap_fail "$t" "$NSD_BAD"
	done
else
	rounds_ok netns_death_vdev_kept "$NSD_KEPT_BAD" \
		"netns name deleted, its busy process alive: vdevice and data path kept"
	rounds_ok netns_death_destroyed "$NSD_GONE_BAD" \
		"$NSD_ROUNDS rounds: vdevice gone with its netns"
	rounds_ok netns_death_event "$NSD_EVENT_BAD" \
		"$NSD_ROUNDS del events, reason netns"
	rounds_ok netns_death_released "$NSD_REL_BAD" \
		"rdmasim and vrdma counts back to rest each round"
fi
ktap_check netns_death_klog_clean klog_clean_since "$m"
# The parent serves a fresh process as before
in_init "$DP" sim0 -n "$DP_N" -z "$DP_SIZE" >"$T/dpafter" 2>&1
if dp_ok send "$T/dpafter" && dp_ok write "$T/dpafter" &&
	dp_ok read "$T/dpafter" && dp_ok teardown "$T/dpafter" &&
	wait_for 10 sim_objects_is "$base"; then
	ktap_ok netns_death_parent_works "native sim_dp on sim0 after the rounds"
else
	ktap_fail netns_death_parent_works "$(tr '\n' ' ' <"$T/dpafter")"
fi

# The parent goes while the thread executes a process's WQEs
(
	echo "# [init] $DP sim0 -k &" >&"$KTAP_FD"
	exec "$DP" sim0 -k >"$T/lbusy" 2>&1
) &
pid=$!
if dp_busy "$T/lbusy"; then
	ktap_ok link_del_busy "$(tr '\n' ' ' <"$SIMDBG/datapath")"
else
	ktap_fail link_del_busy "$(tr '\n' ' ' <"$T/lbusy")"
fi
# (the core zaps the process's mappings: it spins on a zero page until killed)
if in_init rdma link del sim0 &&
	wait_for 20 sim_objects_is "dev=0 ucontext=0 pd=0 cq=0 qp=0 mr=0 uar=0 mmap=0 vma=0 ah=0 " &&
	kill -9 "$pid" && wait_gone 10 "$pid"; then
	ktap_ok link_del_baseline
else
	kill -9 "$pid" 2>/dev/null
	ktap_fail link_del_baseline "$(sim_objects)"
fi
if in_init rmmod rdmasim; then
	ktap_ok module_unload
else
	ktap_fail module_unload
fi
ktap_check klog_clean klog_clean_since "$mark"
ktap_finish
