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
# The data path (doorbell thread, zero system calls) is not written yet.

# shellcheck source=selftests/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=selftests/lib-vdev.sh
. "$(dirname "$0")/lib-vdev.sh"

SIM_KO=$TOP/selftests/rdmasim/rdmasim.ko
PROG=$TOP/selftests/progs/sim_raw
SIMDBG=/sys/kernel/debug/rdmasim
PARENT=sim0

ktap_plan setup port_active gid_table native_raw native_unforwarded_answers \
	native_objects_released native_strict_clean native_kill9_released \
	vdev_query_device_data vdev_driver_methods vdev_raw vdev_unforwarded_refused \
	vdev_strict_clean vdev_objects_released vdev_kill9_released \
	vdev_kill9_strict_clean vdev_del_uar_alive \
	link_del_baseline module_unload klog_clean

# sim_objects - rdmasim's object counters on one line, "dev=1 pd=1 ...".
sim_objects() {
	awk '{ printf "%s=%s ", $1, $2 } END { print "" }' "$SIMDBG/objects"
}

# sim_objects_is EXPECTED - sim_objects equals EXPECTED (for wait_for).
sim_objects_is() {
	[ "$(sim_objects)" = "$1" ]
}

# sim_strict - how many strict checks have fired since the module loaded.
sim_strict() {
	cat "$SIMDBG/strict"
}

# The verbs' shadow bundles keep the vdevice's uverbs file (kmod/udata.c),
# so rdmasim's "ucontext by file" check still fires for verbs: reported
# with plain warning lines (strict_warn=N) and as a SKIP.
KNOWN_STRICT='ucontext by file'

# strict_report MARK NAME [KNOWN] - ok if no strict check fired since
# kernel log line MARK; a SKIP naming them if each that fired matches the
# extended regular expression KNOWN; otherwise not ok, with the messages.
strict_report() {
	local fired
	fired=$(dmesg | tail -n "+$(($1 + 1))" | grep -ao 'rdmasim: strict: .*' |
		sed 's/ [0-9a-f]\{8,\}\b/ ADDR/g; s/0x[0-9a-f]*/ADDR/g' | sort | uniq -c)
	if [ -z "$fired" ]; then
		ktap_ok "$2"
	elif [ -n "${3:-}" ] && ! grep -qvE -- "$3" <<<"$fired"; then
		ktap_diag "$fired"
		ktap_skip "$2" "known vrdma defect: $(grep -oE -- "$3" <<<"$fired" | sort -u | tr '\n' ';')"
	else
		ktap_fail "$2" "strict checks fired"
		ktap_diag "$fired"
	fi
}

mark=$(klog_mark)
tmpdir T
if [ -x "$PROG" ] && [ -r "$SIM_KO" ] && load_modules &&
	{ [ -d /sys/module/rdmasim ] || in_init insmod "$SIM_KO"; } &&
	in_init rdma link add sim0 type rdmasim netdev veth1; then
	cleanup_push rmmod rdmasim
	ktap_ok setup
else
	ktap_fail setup
	ktap_skip_rest "setup failed"
	ktap_finish
fi
cleanup_push rdma link del sim0

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

# passed CHECK FILE - sim_raw reported CHECK as ok.
passed() {
	grep -q "^$1 ok" "$2"
}

# result CHECK FILE - the status word sim_raw printed for CHECK ("ok",
# "err"), then the errno name, or nothing if it never got there.
result() {
	awk -v c="$1" '$1 == c { print $2, $3; exit }' "$2"
}

# Through a vdevice: driver methods are forwarded to rdmasim with the
# shadow objects (kmod/fwd.c); rdmasim's strict checks must stay silent
m=$(klog_mark)
echo N >/sys/module/rdmasim/parameters/strict_warn
if new_ns S s && vdev_add vS "$S"; then
	in_ns "$S" "$PROG" vS >"$T/vdev" 2>&1
	ktap_diag "$(cat "$T/vdev")"
else
	: >"$T/vdev"
fi
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
strict_report "$m" vdev_strict_clean "$KNOWN_STRICT"
if wait_for 10 sim_objects_is "$base"; then
	ktap_ok vdev_objects_released
else
	ktap_fail vdev_objects_released "now: $(sim_objects), at rest: $base"
fi

# kill -9 through the vdevice with the UAR object, CQ and QP alive and
# mapped: the core's cleanup reaches rdmasim's UAR cleanup through vrdma
m=$(klog_mark)
if [ -n "${S:-}" ]; then
	(
		echo "# [$S] $PROG vS 60 &" >&"$KTAP_FD"
		exec ip netns exec "$S" "$PROG" vS 60 >"$T/vhold" 2>&1
	) &
	pid=$!
	if wait_for 20 grep -q '^holding' "$T/vhold" &&
		grep -q '^uar_alloc ok' "$T/vhold" && kill -9 "$pid" &&
		wait_gone 10 "$pid" && wait_for 10 sim_objects_is "$base"; then
		ktap_ok vdev_kill9_released
	else
		kill -9 "$pid" 2>/dev/null
		ktap_fail vdev_kill9_released "now: $(sim_objects), at rest: $base; $(tr '\n' ' ' <"$T/vhold")"
	fi
	strict_report "$m" vdev_kill9_strict_clean "$KNOWN_STRICT"
else
	ktap_fail vdev_kill9_released "no vdevice"
	ktap_fail vdev_kill9_strict_clean "no vdevice"
fi

# The vdevice goes while a process holds a UAR object, CQ and QP on it:
# the core's disassociation destroys them through vrdma's cleanup; the
# pages go when the process does
if [ -n "${S:-}" ]; then
	(
		echo "# [$S] $PROG vS 60 &" >&"$KTAP_FD"
		exec ip netns exec "$S" "$PROG" vS 60 >"$T/vdel" 2>&1
	) &
	pid=$!
	if wait_for 20 grep -q '^holding' "$T/vdel" &&
		grep -q '^uar_alloc ok' "$T/vdel" &&
		in_init "$VRDMACTL" dev del vS >/dev/null &&
		wait_for 10 grep -q '^ucontext 0' "$SIMDBG/objects" &&
		wait_for 10 grep -q '^uar 0' "$SIMDBG/objects" &&
		kill -9 "$pid" && wait_gone 10 "$pid" &&
		wait_for 10 sim_objects_is "$base"; then
		ktap_ok vdev_del_uar_alive
	else
		kill -9 "$pid" 2>/dev/null
		ktap_fail vdev_del_uar_alive "now: $(sim_objects), at rest: $base; $(tr '\n' ' ' <"$T/vdel")"
	fi
else
	ktap_fail vdev_del_uar_alive "no vdevice"
fi
in_init "$VRDMACTL" dev del vS >/dev/null 2>&1
echo Y >/sys/module/rdmasim/parameters/strict_warn
if in_init rdma link del sim0 &&
	wait_for 10 sim_objects_is "dev=0 ucontext=0 pd=0 cq=0 qp=0 mr=0 uar=0 mmap=0 "; then
	ktap_ok link_del_baseline
else
	ktap_fail link_del_baseline "$(sim_objects)"
fi
if in_init rmmod rdmasim; then
	ktap_ok module_unload
else
	ktap_fail module_unload
fi
if klog_clean_since "$mark"; then
	ktap_ok klog_clean
else
	ktap_fail klog_clean
fi
ktap_finish
