#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# DMA-BUF memory regions (how NCCL and other GPU users register device
# memory now that peermem is deprecated), natively on rdmasim and through
# a vdevice on it.  The DMA-BUF comes from a real exporter: udmabuf where
# the kernel has it (Debian's 6.12), else simbuf, rdmasim's test double
# (selftests/rdmasim/simbuf.c; Debian's 6.1 has no udmabuf).
# selftests/progs/sim_dmabuf registers it with raw uverbs commands; bad
# input must fail with nothing left behind, the vdevice's mr-bytes quota
# must refuse past its limit with EDQUOT, and deregistration and kill -9
# must release every attachment (the kernel's dma_buf bufinfo and the
# exporter's and rdmasim's counters back to where they were).
#
#   netns D: vD (on sim0)           init_net: sim0 on veth1
#
# DMABUF_EXPORTER=simbuf forces the test double on a kernel with udmabuf.

# shellcheck source=selftests/lib/lib.sh
. "$(dirname "$0")/lib/lib.sh"
# shellcheck source=selftests/lib/vdev.sh
. "$(dirname "$0")/lib/vdev.sh"
# shellcheck source=selftests/lib/sim.sh
. "$(dirname "$0")/lib/sim.sh"
# shellcheck source=selftests/lib/quota.sh
. "$(dirname "$0")/lib/quota.sh"

SIMBUF_KO=$TOP/selftests/rdmasim/simbuf.ko
PROG=$TOP/selftests/progs/sim_dmabuf
BUFINFO=/sys/kernel/debug/dma_buf/bufinfo
PARENT=sim0
SIZE=$((256 * 1024))

ktap_plan setup native_reg native_released native_kill9_released \
	native_strict_clean vdev_reg vdev_bad_input_left_nothing \
	vdev_quota_edquot vdev_kill9_released vdev_strict_clean vdev_released \
	exporter_unload klog_clean

# dmabuf_state - every DMA-BUF in the system and its attachments, from
# the kernel's own list, plus the test double's counters when loaded:
# "objects=N attachments=N [simbuf: ...]".
dmabuf_state() {
	awk '/^Total [0-9]+ devices attached/ { a += $2 }
	     /^Total [0-9]+ objects/ { o = $2 }
	     END { printf "objects=%d attachments=%d", o, a }' "$BUFINFO"
	if [ -r /sys/kernel/debug/simbuf/objects ]; then
		printf ' simbuf:'
		awk '{ printf " %s=%s", $1, $2 }' /sys/kernel/debug/simbuf/objects
	fi
	echo
}

# state - what must come back after each step: DMA-BUFs and rdmasim's MRs.
state() {
	echo "$(dmabuf_state) sim_$(grep '^mr ' "$SIMDBG/objects" | tr ' ' =)"
}

state_is() {
	[ "$(state)" = "$1" ]
}

mark=$(klog_mark)
tmpdir T
exporter=${DMABUF_EXPORTER:-}
if [ -z "$exporter" ]; then
	# udmabuf is built in where it exists (CONFIG_UDMABUF=y)
	if [ -c /dev/udmabuf ]; then
		exporter=udmabuf
	else
		exporter=simbuf
	fi
fi
# simbuf_up - the exporter, if it is simbuf, loaded and unloaded at cleanup
simbuf_up() {
	[ "$exporter" != simbuf ] || [ -d /sys/module/simbuf ] && return 0
	in_init insmod "$SIMBUF_KO" || return 1
	cleanup_push rmmod simbuf
}
if [ -r "$BUFINFO" ] && simbuf_up && sim_up "$PROG"; then
	ktap_ok setup "exporter $exporter"
else
	ktap_fail setup
	ktap_skip_rest "setup failed"
	ktap_finish
fi

# result CHECK FILE - the status word sim_dmabuf printed for CHECK ("ok",
# "err"), then the errno name, or nothing if it never got there.
result() {
	awk -v c="$1" '$1 == c { print $2, $3; exit }' "$2"
}

base=$(state)
ktap_diag "at rest: $base"
m=$(klog_mark)

# Native: both registrations succeed, everything is released
if in_init "$PROG" sim0 "$exporter" "$SIZE" ok >"$T/native" 2>&1; then
	ktap_ok native_reg "$(tr '\n' ' ' <"$T/native")"
else
	ktap_fail native_reg "$(tr '\n' ' ' <"$T/native")"
fi
if wait_for 10 state_is "$base"; then
	ktap_ok native_released
else
	ktap_fail native_released "now: $(state), at rest: $base"
fi

# hold_and_kill NAME NS DEV SECOND - run sim_dmabuf holding its MRs, check
# what it holds with held_check, kill -9 it, wait for the baseline.
held=
hold_and_kill() {
	local name=$1 ns=$2 dev=$3 second=$4 pid
	(
		echo "# [$ns] $PROG $dev $exporter $SIZE $second 60 &" >&"$KTAP_FD"
		if [ "$ns" = init ]; then
			exec "$PROG" "$dev" "$exporter" "$SIZE" "$second" 60
		fi
		exec ip netns exec "$ns" "$PROG" "$dev" "$exporter" "$SIZE" \
			"$second" 60
	) >"$T/$name" 2>&1 &
	pid=$!
	held=
	if wait_for 20 grep -q '^holding' "$T/$name"; then
		held=$(state)
		# A vdevice is charged for the one registration it holds
		if [ "$ns" != init ] &&
			[ "$(usage_of "$dev" mr_bytes)" != "$SIZE" ]; then
			held="$held, charged $(usage_of "$dev" mr_bytes) bytes, not $SIZE"
			ktap_diag "$held"
			held=
		fi
	fi
	if [ -n "$held" ] && kill -9 "$pid" && wait_gone 10 "$pid" &&
		wait_for 10 state_is "$base"; then
		ktap_ok "$name" "while held: $held"
	else
		kill -9 "$pid" 2>/dev/null
		ktap_fail "$name" "now: $(state), at rest: $base, while held: $held; $(tr '\n' ' ' <"$T/$name")"
	fi
}

hold_and_kill native_kill9_released init sim0 ok
strict_report "$m" native_strict_clean

m=$(klog_mark)

# Through a vdevice with room for one registration of SIZE, not two
quota=$((SIZE * 3 / 2 / 1024))K
if new_ns D d && vdev_add vD "$D" mr-bytes "$quota"; then
	in_ns "$D" "$PROG" vD "$exporter" "$SIZE" EDQUOT >"$T/vdev" 2>&1
	ktap_diag "$(tr '\n' ' ' <"$T/vdev")"
else
	: >"$T/vdev"
fi
if [[ "$(result reg "$T/vdev")" == "ok "* ]] &&
	[ "$(result dereg "$T/vdev")" = "ok " ]; then
	ktap_ok vdev_reg
else
	ktap_fail vdev_reg "reg: $(result reg "$T/vdev"); $(grep ' err ' "$T/vdev")"
fi
# Every bad registration came before the good one: had one left a charge
# or an attachment, the good one or the baseline below would show it
if [ "$(result reg_bad_fd "$T/vdev")" = "ok EBADF" ] &&
	[ "$(result reg_not_dmabuf "$T/vdev")" = "ok EINVAL" ] &&
	[ "$(result reg_past_end "$T/vdev")" = "ok EINVAL" ] &&
	[ "$(result reg_offset_past_end "$T/vdev")" = "ok EINVAL" ] &&
	[ "$(usage_of vD mr_bytes)" = 0 ] && [ "$(usage_of vD mr)" = 0 ]; then
	ktap_ok vdev_bad_input_left_nothing
else
	ktap_fail vdev_bad_input_left_nothing "$(grep '^reg_' "$T/vdev" | tr '\n' ' ') usage: $(usage_of vD mr_bytes) bytes, $(usage_of vD mr) MRs"
fi
if [ "$(result reg_second "$T/vdev")" = "ok EDQUOT" ]; then
	ktap_ok vdev_quota_edquot "mr-bytes $quota, two of $SIZE bytes"
else
	ktap_fail vdev_quota_edquot "second registration: $(result reg_second "$T/vdev")"
fi

hold_and_kill vdev_kill9_released "$D" vD EDQUOT
strict_report "$m" vdev_strict_clean

in_init "$VRDMACTL" dev del vD >/dev/null 2>&1
check_back_to vdev_released "$base" state

in_init rdma link del sim0 >/dev/null 2>&1
in_init rmmod rdmasim >/dev/null 2>&1
if [ "$exporter" != simbuf ]; then
	ktap_skip exporter_unload "udmabuf is built in"
elif in_init rmmod simbuf; then
	ktap_ok exporter_unload "no buffer left"
else
	ktap_fail exporter_unload "simbuf still in use: $(dmabuf_state)"
fi
if klog_clean_since "$mark"; then
	ktap_ok klog_clean
else
	ktap_fail klog_clean
fi
ktap_finish
