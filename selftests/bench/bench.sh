#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vrdma benchmarks: a vdevice pair against a native pair on the same parent,
# in the same run (make bench; a tiny version runs in make check through
# bench_smoke.sh).
#
#   native:  server and client both on rxe0, init_net, OOB over 127.0.0.1
#   vdevice: netns A: vA ── oob veth 10.98.1.1 ─┐ (QP number exchange)
#            netns B: vB ── oob veth 10.98.1.2 ─┘  vA, vB on rxe0
#   RoCE for both goes through rxe0's loopback path, GID ::ffff:10.99.0.1.
#
# Every measurement is repeated BENCH_REPS times; within a repetition the
# native and the vdevice run of one case follow each other, in alternating
# order, so that load from outside the guest (the host is shared) hits both
# alike.  Reported: median and min..max over repetitions, and the ratio of
# the medians.
#
#   latency    ib_{send,write,read}_lat -s 2, and ib_write_lat over
#              BENCH_LAT_SIZES; the wall-clock window of N round trips / N
#              (as bandwidth, below), perftest's t_typical beside it: sane
#              on an idle host, wrong under load
#   bandwidth  ib_write_bw and ib_send_bw over BENCH_SIZES, iteration mode
#              with a fixed byte count per run; the figure is bytes / the
#              wall-clock window in which the parent's sent_pkts counter
#              moved (selftests/progs/pkt_window.c), not perftest's own
#              column, which
#              TCG makes unreliable (DESIGN.md).  perftest's figure is kept
#              beside it in the JSON as a cross-check.
#   msg rate   ib_write_bw -s 2 -q BENCH_QPS, messages / the same window
#   control    selftests/progs/ctlbench on rxe0 and on a vdevice
#   bypass     the data path of a hardware-like parent: rdmasim (sim0 on
#              veth1) and a vdevice on it, selftests/progs/sim_dp -r
#              posting to the mapped rings with no system call: 2-byte
#              SENDs and 64 KiB RDMA WRITEs, messages / sim_dp's own
#              CLOCK_MONOTONIC window; the process's wall-clock time and
#              the device's executed-WQE counter beside it as cross-checks.
#              The expected ratio is 1.00: same rings, same device thread
#   mlx5       stock libmlx5 on rdmasim's mlx5 personality (mlx0 on its own
#              veth) natively and between two vdevices of it: ib_send_lat
#              -s 2 (perftest's t_typical and t_avg) and ib_write_bw -s 64
#              KiB (perftest's BW average), -F; the WQEs the double ran
#              beside them.  Once per kind and tool, the client's system
#              calls (strace -f -c) with N and with 2N iterations: their
#              difference is the data phase's, expected 0 on both kinds.
#              The expected ratio is 1.00: the data path runs no vrdma code
#   cm         connection setup through the RDMA CM: rdma-core's ucmatose
#              -c BENCH_CM_CONNS -C 0 from a tenant's vdevice with "cm on"
#              (its own rxe parent on its macvlan) through vrdma's CM proxy,
#              and natively from init_net, to the same listener on a plain
#              host's rxe; connections per second of the client's wall
#              clock, and the connections the listener saw established.
#              Needs rxe with network namespace support (7.1): skipped,
#              with the reason, on older kernels
#   scale      create/delete 1..1000 vdevices (vrdmactl batches, timed per
#              batch of 100 to see whether the cost grows with the count);
#              kernel memory per vdevice (Slab + VmallocUsed + Percpu from
#              /proc/meminfo) against the same for an rxe device on a dummy
#              netdev (what any ib_device costs, plus rxe's own state);
#              `vrdmactl -j dev show` with the most vdevices
#
# This file sets the knobs and the topology and runs the parts; each part's
# functions are in a file of their own beside it: datapath.sh (latency,
# bandwidth, message rate), control.sh (control path, profile), bypass.sh,
# mlx5.sh, cm.sh, scale.sh.
#
# Output in BENCH_OUT (default $VM_RESULTS/bench, else /tmp/bench):
#   raw.tsv       one line per sample: section case kind size rep metric value
#   results.json  medians, spreads, ratios and targets (bench-report.py)
#   table.txt     the table printed at the end
#   bench.svg     latency and bandwidth against message size
#   bench.log     every command run, perftest output of failed runs
# Exit status non-zero when a measurement could not be taken (a target
# missed is a result, not a failure).
#
# Knobs (environment): BENCH_REPS BENCH_LAT_ITERS BENCH_LAT_SIZES
# BENCH_SIZES BENCH_BYTES BENCH_MAX_MSGS BENCH_QPS BENCH_RATE_MSGS
# BENCH_CTL_ITERS BENCH_MEM_OBJS BENCH_SCALE BENCH_SCALE_NS BENCH_RXE_REF
# BENCH_SETTLE BENCH_PROFILE_OPS BENCH_PROFILE_ITERS BENCH_PROFILE_HZ
# BENCH_BYPASS_MSGS BENCH_BYPASS_WRITE_MSGS BENCH_MLX5_LAT_ITERS
# BENCH_MLX5_BW_ITERS BENCH_CM_CONNS
# BENCH_OUT, and BENCH_PARTS (default "lat bw rate ctl bypass mlx5 cm scale";
# "profile" adds a perf profile of the control path) to run a subset.

# shellcheck source=selftests/lib/lib.sh
. "$(dirname "$0")/../lib/lib.sh"
# shellcheck source=selftests/lib/vdev.sh
. "$(dirname "$0")/../lib/vdev.sh"
# shellcheck source=selftests/lib/cm.sh
. "$(dirname "$0")/../lib/cm.sh"

REPS=${BENCH_REPS:-5}
PARTS=${BENCH_PARTS:-"lat bw rate ctl bypass mlx5 cm scale"}
LAT_ITERS=${BENCH_LAT_ITERS:-30000}
LAT_SIZES=${BENCH_LAT_SIZES:-"2 64 1024 16384 65536 1048576"}
SIZES=${BENCH_SIZES:-"64 1024 16384 65536 1048576"}
BYTES=${BENCH_BYTES:-$((64 << 20))}
MAX_MSGS=${BENCH_MAX_MSGS:-50000}
QPS=${BENCH_QPS:-4}
# Messages of the message-rate case, all QPs together: about 2 s at
# TCG's 50k messages per second, so that one stall of the guest (TCG
# stalls for up to 80 ms under host load) moves the figure by a few
# percent, not by the 30 % it did in a 0.2 s window.
RATE_MSGS=${BENCH_RATE_MSGS:-100000}
# Rounds per control-path run: its median moves by a few percent between
# runs of the same device (allocators and ID trees differ from run to
# run), far more than between rounds; 1000 rounds take about 2 s a run.
CTL_ITERS=${BENCH_CTL_ITERS:-1000}
MEM_OBJS=${BENCH_MEM_OBJS:-200}
SCALE=${BENCH_SCALE:-"1 100 1000"}
SCALE_NS=${BENCH_SCALE_NS:-4}
RXE_REF=${BENCH_RXE_REF:-16}
SETTLE=${BENCH_SETTLE:-1}
# Messages per bypass run: 2-byte SENDs, 64 KiB RDMA WRITEs
BYPASS_MSGS=${BENCH_BYPASS_MSGS:-20000}
BYPASS_WRITE_MSGS=${BENCH_BYPASS_WRITE_MSGS:-2000}
SIM_KO=$TOP/selftests/rdmasim/rdmasim.ko
SIM_DP=$TOP/selftests/progs/sim_dp
SIM_DPSTAT=/sys/kernel/debug/rdmasim/datapath
# Iterations per mlx5 run: the double's data path thread answers a
# ping-pong round trip in milliseconds (its idle back-off), so fewer
MLX5_LAT_ITERS=${BENCH_MLX5_LAT_ITERS:-500}
MLX5_BW_ITERS=${BENCH_MLX5_BW_ITERS:-2000}
MLX5DBG=/sys/kernel/debug/rdmasim/mlx5
# Connections per cm run, all set up at once: within the CM proxy's 64
# connections per vdevice (VRDMA_CM_CONN_MAX)
CM_CONNS=${BENCH_CM_CONNS:-50}
PROFILE_OPS=${BENCH_PROFILE_OPS:-"pd mr_4k"}
PROFILE_ITERS=${BENCH_PROFILE_ITERS:-20000}
PROFILE_HZ=${BENCH_PROFILE_HZ:-4000}
OUT=${BENCH_OUT:-${VM_RESULTS:-/tmp}/bench}
CTLBENCH=$TOP/selftests/progs/ctlbench
WINDOW=$TOP/selftests/progs/pkt_window
COUNTER=/sys/class/infiniband/$PARENT/ports/1/hw_counters/sent_pkts

mkdir -p "$OUT" || exit 1
RAW=$OUT/raw.tsv
LOG=$OUT/bench.log
: > "$RAW"
: > "$LOG"
# Command logs of lib.sh go to the log file; stdout keeps the progress.
exec {KTAP_FD}>>"$LOG"
FAILED=0

say() {
	printf 'bench: %s\n' "$*"
	printf '# %s %s\n' "$(date +%T)" "$*" >> "$LOG"
}

# sample SECTION CASE KIND SIZE REP METRIC VALUE
sample() {
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >> "$RAW"
}

fail() {
	say "FAILED: $*"
	FAILED=$((FAILED + 1))
}

# --- topology -------------------------------------------------------------

require_cmd ib_send_lat ib_write_bw python3 jq gnuplot || { fail "tools missing"; exit 1; }
have_vrdmactl || { fail "$VRDMACTL not built"; exit 1; }
if [ ! -x "$CTLBENCH" ] || [ ! -x "$WINDOW" ]; then
	fail "selftests/progs not built"
	exit 1
fi
[ -r "$COUNTER" ] || { fail "$COUNTER missing: no wall-clock window"; exit 1; }

part() { [[ " $PARTS " == *" $1 "* ]]; }

# mlx5's data phase is judged by the client's system calls
if part mlx5 && ! require_cmd strace; then
	fail "strace missing: the mlx5 part counts system calls with it (make deps)"
	exit 1
fi

# The vdevice pair, for the parts that compare on rxe0 (the others set up
# parents of their own)
A=
B=
if { part lat || part bw || part rate || part ctl || part profile; } &&
   ! { new_ns A a && new_ns B b && link_ns "$A" "$B" 1 &&
	vdev_add vA "$A" && vdev_add vB "$B"; }; then
	fail "vdevice pair setup"
	exit 1
fi

# Per kind: device and netns of server and client, and the server address.
declare -A DEV_S=([native]=$PARENT [vdev]=vA) DEV_C=([native]=$PARENT [vdev]=vB)
declare -A NS_S=([native]=init [vdev]=$A) NS_C=([native]=init [vdev]=$B)
declare -A ADDR=([native]=127.0.0.1 [vdev]=$OOB_NET.1.1)

# run_ctl NS CMD... - in_ns, but in the initial namespace CMD also gets a
# mount namespace of its own, set up the way "ip netns exec" sets up the
# vdevice side's (/ a slave, sysfs mounted afresh).  Opening a context walks
# /dev and /sys paths, which costs a few percent more in such a namespace:
# that is the container's cost, not the vdevice's, so both kinds pay it.
run_ctl() {
	local ns=$1
	shift
	if [ "$ns" = init ]; then
		in_init unshare -m sh -c 'mount --make-rslave / && umount -l /sys &&
			mount -t sysfs none /sys && exec "$@"' sh "$@"
	else
		in_ns "$ns" "$@"
	fi
}

# kinds_for REP - both kinds, the order alternating with the repetition.
kinds_for() {
	if [ $(($1 % 2)) -eq 0 ]; then echo native vdev; else echo vdev native; fi
}

PORT=19000
CLI_OUT=
WIN=
# A command the client runs under (strace), none by default
CLI_WRAP=()

# pair KIND TOOL ARGS... - pair_once, tried up to three times: under TCG
# perftest sometimes refuses to report ("Correlation coefficient r^2 < 0.9"
# from its CPU clock calibration) after a perfectly good transfer.
pair() {
	local try
	for try in 1 2 3; do
		pair_once "$@" && return 0
		echo "# attempt $try failed" >&"$KTAP_FD"
	done
	return 1
}

# pid_gone PID - PID has ended
pid_gone() {
	! kill -0 "$1" 2>/dev/null
}

# pair_once KIND TOOL ARGS... - one perftest server/client pair; the client's
# output is left in $CLI_OUT.  With WINDOW_ON=1 the parent's packet counter
# is watched meanwhile and its window ends up in $WIN ("window=.. pkts=..").
#
# Each side's "timeout --foreground" keeps it in the bench's process
# group: a harness that stops the whole bench (bench_runs' timeout) stops
# them too, before the bench's teardown deletes the parent under them.
pair_once() {
	local kind=$1 tool=$2 spid wpid src crc wfile wout t0=$EPOCHREALTIME
	shift 2
	PORT=$((PORT + 1))
	CLI_OUT=$OUT/tmp.cli
	WIN=
	: > "$CLI_OUT"
	if [ "${WINDOW_ON:-0}" = 1 ]; then
		wfile=$OUT/tmp.win
		: > "$wfile"
		"$WINDOW" "$COUNTER" 5000 > "$wfile" 2>&1 &
		wpid=$!
		wait_for 30 grep -q ready "$wfile" >/dev/null || { kill "$wpid"; return 1; }
	fi
	(
		echo "# [${NS_S[$kind]}] $tool -d ${DEV_S[$kind]} $* -p $PORT &" >&"$KTAP_FD"
		if [ "${NS_S[$kind]}" = init ]; then
			exec timeout --foreground 300 "$tool" -d "${DEV_S[$kind]}" -x "$GIDX" "$@" -p "$PORT"
		else
			exec ip netns exec "${NS_S[$kind]}" timeout --foreground 300 \
				"$tool" -d "${DEV_S[$kind]}" -x "$GIDX" "$@" -p "$PORT"
		fi
	) > "$OUT/tmp.srv" 2>&1 &
	spid=$!
	if ! wait_for 30 port_listening "${NS_S[$kind]}" "$PORT" >/dev/null; then
		kill "$spid" 2>/dev/null
		wait "$spid"
		[ -n "${wpid:-}" ] && kill "$wpid"
		return 1
	fi
	in_ns "${NS_C[$kind]}" timeout --foreground 300 "${CLI_WRAP[@]}" "$tool" -d "${DEV_C[$kind]}" \
		-x "$GIDX" "$@" -p "$PORT" "${ADDR[$kind]}" > "$CLI_OUT" 2>&1
	crc=$?
	# A client that failed before it reached the server leaves the server
	# waiting for it until its timeout (300 s): give it 10 s to end.
	if [ "$crc" -ne 0 ]; then
		wait_for 10 pid_gone "$spid" >/dev/null ||
			kill "$spid" 2>/dev/null
	fi
	wait "$spid"
	src=$?
	echo "# took $(elapsed "$t0") s" >&"$KTAP_FD"
	if [ -n "${wpid:-}" ]; then
		kill -TERM "$wpid"
		wait "$wpid"
		wout=$(grep '^window=' "$wfile")
		WIN=$wout
	fi
	# When one side gives up on its clock calibration it leaves without
	# the closing handshake, and the other side reports that: those lines
	# are no error of the traffic.
	if { [ "$src" -ne 0 ] || [ "$crc" -ne 0 ]; } &&
	   grep -q "Can't produce a report" "$OUT/tmp.srv" "$CLI_OUT" &&
	   ! cat "$OUT/tmp.srv" "$CLI_OUT" |
		grep -vE "Couldn't read remote address|Unable to read to socket/rdma_cm|Failed to close connection between server and client|Trying to close this side resources" |
		grep -qiE 'error|fail|timeout|unable|couldn'; then
		# The traffic ran to its end; only perftest's own clock
		# calibration gave up, so its figure is missing and ours is not.
		echo "# perftest could not calibrate its clock; using the window only" >&"$KTAP_FD"
		src=0
		crc=0
	fi
	if [ "$src" -ne 0 ] || [ "$crc" -ne 0 ]; then
		{ echo "# server status $src, client status $crc"; sed 's/^/#  srv: /' "$OUT/tmp.srv";
		  sed 's/^/#  cli: /' "$CLI_OUT"; } >> "$LOG"
		return 1
	fi
	return 0
}

# perf_row SIZE FIELD - FIELD of perftest's result row for SIZE.
perf_row() {
	awk -v s="$1" -v f="$2" '$1 == s && $2 ~ /^[0-9]+$/ { print $f; exit }' "$CLI_OUT"
}

# win_field NAME - a field of $WIN.
win_field() {
	tr ' ' '\n' <<< "$WIN" | awk -F= -v k="$1" '$1 == k { print $2 }'
}

now() { echo "$EPOCHREALTIME"; }
elapsed() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.6f", b - a }'; }

# The parts, each a file of functions
# shellcheck source=selftests/bench/datapath.sh
. "$(dirname "$0")/datapath.sh"
# shellcheck source=selftests/bench/control.sh
. "$(dirname "$0")/control.sh"
# shellcheck source=selftests/bench/bypass.sh
. "$(dirname "$0")/bypass.sh"
# shellcheck source=selftests/bench/mlx5.sh
. "$(dirname "$0")/mlx5.sh"
# shellcheck source=selftests/bench/cm.sh
. "$(dirname "$0")/cm.sh"
# shellcheck source=selftests/bench/scale.sh
. "$(dirname "$0")/scale.sh"

# --- the run -------------------------------------------------------------------

T_START=$(now)
say "$(uname -r), $(nproc) CPUs, reps $REPS; output in $OUT"

if part bypass; then
	bypass_setup
fi
if part mlx5; then
	mlx5_setup
fi
if part cm; then
	cm_setup
fi
for ((rep = 0; rep < REPS; rep++)); do
	if part lat; then
		say "repetition $((rep + 1))/$REPS: latency"
		latency "$rep" ib_send_lat 2 send_lat
		latency "$rep" ib_read_lat 2 read_lat
		for s in $LAT_SIZES; do
			latency "$rep" ib_write_lat "$s" write_lat
		done
	fi
	if part bw; then
		say "repetition $((rep + 1))/$REPS: bandwidth"
		for s in $SIZES; do
			bandwidth "$rep" ib_write_bw "$s" write_bw 1
			bandwidth "$rep" ib_send_bw "$s" send_bw 1
		done
	fi
	if part rate; then
		say "repetition $((rep + 1))/$REPS: message rate"
		bandwidth "$rep" ib_write_bw 2 msg_rate "$QPS" "$RATE_MSGS"
	fi
	if part ctl; then
		say "repetition $((rep + 1))/$REPS: control path"
		control "$rep"
	fi
	if part bypass && [ -n "$BYPASS" ]; then
		say "repetition $((rep + 1))/$REPS: bypass ($BYPASS)"
		bypass "$rep"
	fi
	if part mlx5 && [ -n "$MLX5" ]; then
		say "repetition $((rep + 1))/$REPS: mlx5 (stock libmlx5 on rdmasim)"
		mlx5 "$rep"
	fi
	if part cm && [ -n "$CM" ]; then
		say "repetition $((rep + 1))/$REPS: cm (connection setup, $CM_CONNS at once)"
		cm "$rep"
	fi
done
if part mlx5 && [ -n "$MLX5" ]; then
	say "mlx5: system calls of the data phase"
	mlx5_syscalls
fi
if part profile; then
	say "profile: $PROFILE_OPS"
	profile
fi
if part scale; then
	say "scale: $SCALE vdevices"
	rxe_reference
	scale
fi
sample meta total run "$REPS" 0 seconds "$(elapsed "$T_START")"
rm -f "$OUT"/tmp.*

say "report"
if ! python3 "$TOP/selftests/bench/report.py" "$OUT"; then
	fail "report"
fi
say "$FAILED failure(s); results in $OUT"
[ "$FAILED" -eq 0 ]
