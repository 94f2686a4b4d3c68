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
#   scale      create/delete 1..1000 vdevices (vrdmactl batches, timed per
#              batch of 100 to see whether the cost grows with the count);
#              kernel memory per vdevice (Slab + VmallocUsed + Percpu from
#              /proc/meminfo) against the same for an rxe device on a dummy
#              netdev (what any ib_device costs, plus rxe's own state);
#              `vrdmactl -j dev show` with the most vdevices
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
# BENCH_MLX5_BW_ITERS
# BENCH_OUT, and BENCH_PARTS (default "lat bw rate ctl bypass mlx5 scale";
# "profile" adds a perf profile of the control path) to run a subset.

# shellcheck source=selftests/lib/lib.sh
. "$(dirname "$0")/../lib/lib.sh"
# shellcheck source=selftests/lib/vdev.sh
. "$(dirname "$0")/../lib/vdev.sh"

REPS=${BENCH_REPS:-5}
PARTS=${BENCH_PARTS:-"lat bw rate ctl bypass mlx5 scale"}
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

if ! { new_ns A a && new_ns B b && link_ns "$A" "$B" 1 &&
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

# pair_once KIND TOOL ARGS... - one perftest server/client pair; the client's
# output is left in $CLI_OUT.  With WINDOW_ON=1 the parent's packet counter
# is watched meanwhile and its window ends up in $WIN ("window=.. pkts=..").
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
			exec timeout 300 "$tool" -d "${DEV_S[$kind]}" -x "$GIDX" "$@" -p "$PORT"
		else
			exec ip netns exec "${NS_S[$kind]}" timeout 300 \
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
	in_ns "${NS_C[$kind]}" timeout 300 "${CLI_WRAP[@]}" "$tool" -d "${DEV_C[$kind]}" \
		-x "$GIDX" "$@" -p "$PORT" "${ADDR[$kind]}" > "$CLI_OUT" 2>&1
	crc=$?
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

# --- data path: latency -----------------------------------------------------

lat_iters() {	# SIZE - about 8 MiB per direction, 20..LAT_ITERS round trips:
	# a window of 0.4 to 1 s at every size, which the 5 ms polling of
	# selftests/progs/pkt_window resolves to about a percent, and in which
	# one stall of the TCG guest no longer decides the figure (with 5000
	# round trips, 0.15 s at 2 bytes, the spread was twice as wide)
	local n=$(( (8 << 20) / $1 ))
	[ "$n" -gt "$LAT_ITERS" ] && n=$LAT_ITERS
	[ "$n" -lt 20 ] && n=20
	echo "$n"
}

# enough_pkts MIN - the window saw at least MIN packets (the traffic the
# command line asked for really moved).
enough_pkts() {
	[ "$(win_field pkts)" -ge "$1" ] 2>/dev/null
}

# pkts_per_msg SIZE - request packets of one message at the 1024-byte MTU
# perftest picks on rxe over a 1500-byte netdev.
pkts_per_msg() {
	echo $(( ($1 + 1023) / 1024 ))
}

# latency REP TOOL SIZE CASE - the figure is ours: the wall-clock window of
# N round trips / N, halved for send and write, which perftest reports as
# half a round trip (read latency is a full one in perftest too): a mean,
# which host scheduling stalls inflate.  perftest's t_typical (median) and
# t_avg are kept: their ratio does not depend on perftest's clock rate, so
# the report also gives wall mean x t_typical / t_avg, a median on our
# clock.  Under a loaded host
# perftest's cycle-counter calibration goes wrong (r^2 < 0.9, or figures
# off by 100x were seen), which is why its figure is not the primary one.
latency() {
	local rep=$1 tool=$2 size=$3 case=$4 kind v n w div=2
	n=$(lat_iters "$size")
	[ "$case" = read_lat ] && div=1
	for kind in $(kinds_for "$rep"); do
		if WINDOW_ON=1 pair "$kind" "$tool" -s "$size" -n "$n" -u 18 &&
		   enough_pkts $((n * $(pkts_per_msg "$size"))) && w=$(win_field window); then
			sample lat "$case" "$kind" "$size" "$rep" wall_us \
				"$(awk -v w="$w" -v n="$n" -v d="$div" 'BEGIN { printf "%.3f", w / n / d * 1e6 }')"
			v=$(perf_row "$size" 5)
			[ -n "$v" ] && sample lat "$case" "$kind" "$size" "$rep" t_typical_us "$v"
			v=$(perf_row "$size" 6)
			[ -n "$v" ] && sample lat "$case" "$kind" "$size" "$rep" t_avg_us "$v"
		else
			fail "$case $kind size $size rep $rep ($WIN)"
		fi
	done
}

# --- data path: bandwidth and message rate -----------------------------------

bw_iters() {	# SIZE - messages moving about BYTES, at most MAX_MSGS:
	# 1 to 2 s at every size under TCG, for the same reason
	local n=$((BYTES / $1))
	[ "$n" -gt "$MAX_MSGS" ] && n=$MAX_MSGS
	[ "$n" -lt 20 ] && n=20
	echo "$n"
}

tx_depth() {	# SIZE - at most ~4 MiB in flight: rxe under TCG retransmits
	# (and stalls for the retry timeout) when the responder lags further
	local d=$(( (4 << 20) / $1 ))
	[ "$d" -gt 128 ] && d=128
	[ "$d" -lt 2 ] && d=2
	echo "$d"
}

bandwidth() {	# REP TOOL SIZE CASE QPS [MESSAGES]
	local rep=$1 tool=$2 size=$3 case=$4 qps=$5 kind n w pkts perf d
	n=${6:-$(bw_iters "$size")}
	[ "$qps" -gt 1 ] && n=$((n / qps))
	d=$(tx_depth "$size")
	[ "$d" -gt "$n" ] && d=$n
	for kind in $(kinds_for "$rep"); do
		if WINDOW_ON=1 pair "$kind" "$tool" -s "$size" -n "$n" -q "$qps" -t "$d" -u 18 &&
		   enough_pkts $((n * qps * $(pkts_per_msg "$size"))) &&
		   w=$(win_field window) && pkts=$(win_field pkts) &&
		   awk -v w="$w" 'BEGIN { exit !(w > 0) }'; then
			perf=$(perf_row "$size" 4)
			# Bytes and messages are fixed by the command line; the
			# time is ours.
			sample bw "$case" "$kind" "$size" "$rep" wall_MBps \
				"$(awk -v n="$n" -v q="$qps" -v s="$size" -v w="$w" \
					'BEGIN { printf "%.3f", n * q * s / w / 1e6 }')"
			sample bw "$case" "$kind" "$size" "$rep" wall_Mmsgps \
				"$(awk -v n="$n" -v q="$qps" -v w="$w" \
					'BEGIN { printf "%.6f", n * q / w / 1e6 }')"
			sample bw "$case" "$kind" "$size" "$rep" window_s "$w"
			sample bw "$case" "$kind" "$size" "$rep" pkts "$pkts"
			[ -n "$perf" ] &&
				sample bw "$case" "$kind" "$size" "$rep" perftest_MBps "$perf"
		else
			fail "$case $kind size $size rep $rep ($WIN)"
		fi
	done
}

# --- control path --------------------------------------------------------------

control() {	# REP
	local rep=$1 kind out
	for kind in $(kinds_for "$rep"); do
		if out=$(run_ctl "${NS_C[$kind]}" "$CTLBENCH" -d "${DEV_C[$kind]}" -g "$GIDX" \
				-n "$CTL_ITERS" -m "$MEM_OBJS" 2>&1); then
			printf '%s\n' "$out" >> "$LOG"
			local w
			while read -ra w; do
				case ${w[0]} in
				op=*)	# op=NAME n=.. median_us=.. p10_us=.. p90_us=..
					sample ctl "${w[0]#op=}" "$kind" 0 "$rep" median_us "${w[2]#median_us=}"
					sample ctl "${w[0]#op=}" "$kind" 0 "$rep" p90_us "${w[4]#p90_us=}"
					;;
				mem=*)	# mem=NAME n=.. bytes_per_obj=..
					sample objmem "${w[0]#mem=}" "$kind" 0 "$rep" bytes "${w[2]#bytes_per_obj=}"
					;;
				esac
			done <<< "$out"
		else
			printf '%s\n' "$out" >> "$LOG"
			fail "ctlbench $kind rep $rep"
		fi
	done
}

# --- bypass: the mapped rings of a hardware-like parent --------------------------

BYPASS=
BYPASS_NS=

# bypass_setup - rdmasim's sim0 on veth1 and the vdevice vP on it in a
# netns of its own; BYPASS=native or "native vdev"
bypass_setup() {
	local out
	if ! [ -x "$SIM_DP" ] || ! [ -r "$SIM_KO" ] ||
		! { [ -d /sys/module/rdmasim ] || in_init insmod "$SIM_KO"; } ||
		! in_init rdma link add sim0 type rdmasim netdev veth1; then
		fail "bypass: no rdmasim"
		return 1
	fi
	cleanup_push rmmod rdmasim
	cleanup_push rdma link del sim0
	# The strict checks that still fire through a vdevice (sim.sh's
	# KNOWN_STRICT) are sim.sh's business: plain lines here, not WARNs
	echo N >/sys/module/rdmasim/parameters/strict_warn
	cleanup_push sh -c 'echo Y >/sys/module/rdmasim/parameters/strict_warn'
	BYPASS=native
	if ! { new_ns BYPASS_NS p && PARENT=sim0 vdev_add vP "$BYPASS_NS"; }; then
		fail "bypass: vdevice on sim0"
		return 0
	fi
	# Without driver-method forwarding create_cq gets no doorbell page
	out=$(in_ns "$BYPASS_NS" "$SIM_DP" vP -n 1 2>&1)
	case $out in
	*"uar_alloc err"*)
		say "bypass: vdevice skipped: vrdma does not forward driver methods ($(grep -o 'uar_alloc err [A-Z]*' <<<"$out"))"
		;;
	*) BYPASS="native vdev" ;;
	esac
}

dp_wqes() {
	awk '$1 == "wqes" { print $2 }' "$SIM_DPSTAT"
}

# bypass REP - both cases, both kinds (those that work), alternating order
bypass() {
	local rep=$1 kind c op size n out w0 t0 wall wqes secs rate
	for kind in $(kinds_for "$rep"); do
		[[ " $BYPASS " == *" $kind "* ]] || continue
		for c in "send 2 $BYPASS_MSGS" "write 65536 $BYPASS_WRITE_MSGS"; do
			read -r op size n <<<"$c"
			w0=$(dp_wqes)
			t0=$(now)
			if [ "$kind" = native ]; then
				out=$(in_init "$SIM_DP" sim0 -r "$op" -z "$size" -n "$n" 2>&1)
			else
				out=$(in_ns "$BYPASS_NS" "$SIM_DP" vP -r "$op" -z "$size" -n "$n" 2>&1)
			fi
			wall=$(elapsed "$t0")
			wqes=$(($(dp_wqes) - w0))
			printf '%s
' "$out" >>"$LOG"
			# rate OP SIZE N SECONDS MSGS_PER_SEC
			read -r _ _ _ _ secs rate < <(grep '^rate ' <<<"$out")
			if [ -z "$rate" ] || [ "$wqes" -lt "$n" ]; then
				fail "bypass $op $kind rep $rep (device executed $wqes of $n)"
				continue
			fi
			sample bypass "$op" "$kind" "$size" "$rep" Mmsgps \
				"$(awk -v r="$rate" 'BEGIN { printf "%.6f", r / 1e6 }')"
			sample bypass "$op" "$kind" "$size" "$rep" window_s "$secs"
			sample bypass "$op" "$kind" "$size" "$rep" process_s "$wall"
			sample bypass "$op" "$kind" "$size" "$rep" device_wqes "$wqes"
		done
	done
}

# --- mlx5: stock libmlx5 on rdmasim's mlx5 personality --------------------------

MLX5=

# mlx5_setup - rdmasim's mlx5 personality as mlx0 on a veth of its own
# (10.97.1.1), and the vdevices vM1, vM2 of it in two namespaces linked out
# of band (10.98.2.0/24): the kinds mlx5_native and mlx5_vdev; MLX5=1
mlx5_setup() {
	local variant=/sys/module/rdmasim/parameters/variant m1 m2 ok
	if ! [ -r "$SIM_KO" ] ||
	   ! { [ -d /sys/module/rdmasim ] ||
		{ in_init insmod "$SIM_KO" && cleanup_push rmmod rdmasim; }; }; then
		fail "mlx5: no rdmasim"
		return 1
	fi
	in_init ip link add svb0a type veth peer name svb0b &&
		cleanup_push ip link del svb0a &&
		in_init ip link set svb0a up && in_init ip link set svb0b up &&
		in_init ip addr add 10.97.1.1/24 dev svb0a &&
		echo mlx5 >"$variant" &&
		in_init rdma link add mlx0 type rdmasim netdev svb0a
	ok=$?
	echo roce >"$variant"
	if [ "$ok" != 0 ]; then
		fail "mlx5: no mlx5 personality (rdma link add mlx0)"
		return 1
	fi
	cleanup_push rdma link del mlx0
	if ! { new_ns m1 m1 && new_ns m2 m2 && link_ns "$m1" "$m2" 2 &&
	       PARENT=mlx0 vdev_add vM1 "$m1" && PARENT=mlx0 vdev_add vM2 "$m2"; }; then
		fail "mlx5: vdevices on mlx0"
		return 1
	fi
	DEV_S[mlx5_native]=mlx0 DEV_C[mlx5_native]=mlx0
	NS_S[mlx5_native]=init NS_C[mlx5_native]=init ADDR[mlx5_native]=127.0.0.1
	DEV_S[mlx5_vdev]=vM1 DEV_C[mlx5_vdev]=vM2
	NS_S[mlx5_vdev]=$m1 NS_C[mlx5_vdev]=$m2 ADDR[mlx5_vdev]=$OOB_NET.2.1
	MLX5=1
}

mlx5_wqes() {
	awk '$1 == "wqes" { print $2 }' "$MLX5DBG"
}

# mlx5_run KIND REP CASE SIZE TOOL ARGS... - one perftest pair on KIND
# (native, vdev); its figures and the WQEs the double ran as samples
mlx5_run() {
	local kind=$1 rep=$2 case=$3 size=$4 w0 t0 f
	shift 4
	w0=$(mlx5_wqes)
	t0=$(now)
	if ! pair "mlx5_$kind" "$@" -s "$size" -F; then
		fail "mlx5 $case $kind rep $rep"
		return
	fi
	sample mlx5 "$case" "$kind" "$size" "$rep" process_s "$(elapsed "$t0")"
	sample mlx5 "$case" "$kind" "$size" "$rep" device_wqes $(($(mlx5_wqes) - w0))
	if [ "$case" = send_lat ]; then
		f=$(perf_row "$size" 5)
		[ -n "$f" ] && sample mlx5 "$case" "$kind" "$size" "$rep" t_typical_us "$f"
		f=$(perf_row "$size" 6)
		[ -n "$f" ] && sample mlx5 "$case" "$kind" "$size" "$rep" t_avg_us "$f"
	else
		f=$(perf_row "$size" 4)
		[ -n "$f" ] && sample mlx5 "$case" "$kind" "$size" "$rep" MBps "$f"
	fi
}

# mlx5 REP - both cases, both kinds, alternating order
mlx5() {
	local rep=$1 kind
	for kind in $(kinds_for "$rep"); do
		mlx5_run "$kind" "$rep" send_lat 2 ib_send_lat -n "$MLX5_LAT_ITERS"
		mlx5_run "$kind" "$rep" write_bw 65536 ib_write_bw -n "$MLX5_BW_ITERS"
	done
}

# client_syscalls KIND TOOL SIZE N - the system calls of TOOL's client
# running N iterations on KIND (strace -f -c's total), or nothing
client_syscalls() {
	local out=$OUT/tmp.strace
	rm -f "$out"
	CLI_WRAP=(strace -f -c -o "$out")
	pair "mlx5_$1" "$2" -s "$3" -n "$4" -F >/dev/null || { CLI_WRAP=(); return 1; }
	CLI_WRAP=()
	awk '$NF == "total" { print $4 }' "$out"
}

# mlx5_syscalls - per kind and tool, the client's system calls with 2N
# iterations less those with N: the data phase's, per 1000 iterations
mlx5_syscalls() {
	local kind c case size tool n s1 s2
	for kind in native vdev; do
		for c in "send_lat 2 ib_send_lat $MLX5_LAT_ITERS" \
			 "write_bw 65536 ib_write_bw $MLX5_BW_ITERS"; do
			read -r case size tool n <<<"$c"
			if s1=$(client_syscalls "$kind" "$tool" "$size" "$n") &&
			   s2=$(client_syscalls "$kind" "$tool" "$size" $((2 * n))) &&
			   [ -n "$s1" ] && [ -n "$s2" ]; then
				sample mlx5 "$case" "$kind" "$size" 0 data_syscalls_per_kiter \
					"$(awk -v a="$s1" -v b="$s2" -v n="$n" 'BEGIN { printf "%.3f", (b - a) * 1000 / n }')"
				sample mlx5 "$case" "$kind" "$size" 0 client_syscalls "$s1"
			else
				fail "mlx5 $case $kind: system calls not counted"
			fi
		done
	done
}

# --- control path profile (BENCH_PARTS=profile, not in the default run) -------
#
# perf record (cpu-clock, PROFILE_HZ samples per second of the process's own
# CPU time, with call chains) of ctlbench running one operation PROFILE_ITERS
# times, native and on a vdevice.  profile-OP.txt lists kernel functions
# with the time spent in them and in what they call (perf's "children"),
# in microseconds per round for each kind, largest difference first: where
# a vdevice's extra time goes (report-OP-KIND.txt: perf's whole report).
# The process's start-up is in the samples too, but not under the verbs'
# entry points, which is what to read.  perf's sampling slows the process
# down: compare the two columns, not their values with ctlbench's.

profile() {
	local op kind data rec
	require_cmd perf || { fail "perf missing (linux-perf)"; return; }
	# perf writes its samples from its ring buffer's mapping, which 7.x's
	# 9p (the guest's results directory) refuses with EFAULT: record in
	# the guest's own /tmp, keep a copy.
	tmpdir rec || { fail "no scratch directory for perf"; return; }
	# -N -B: no build-id cache and no build-ids, which perf collects by
	# reading every DSO and copying kallsyms at the end of each record,
	# the longest part of a short record under TCG: the kernel is the
	# live one and report reads /proc/kallsyms.
	for op in $PROFILE_OPS; do
		rm -f "$OUT/report-$op-native.txt" "$OUT/report-$op-vdev.txt"
		for kind in native vdev; do
			data=$rec/perf-$op-$kind.data
			if ! run_ctl "${NS_C[$kind]}" perf record -q -N -B -F "$PROFILE_HZ" -g -o "$data" -- \
					"$CTLBENCH" -d "${DEV_C[$kind]}" -g "$GIDX" -o "$op" \
					-n "$PROFILE_ITERS" >> "$LOG" 2>&1; then
				fail "perf record $op $kind"
				continue
			fi
			perf report -i "$data" --stdio --children -g none --sort sym \
				2>> "$LOG" > "$OUT/report-$op-$kind.txt"
			cp "$data" "$OUT/"
		done
		if [ ! -s "$OUT/report-$op-native.txt" ] || [ ! -s "$OUT/report-$op-vdev.txt" ]; then
			continue
		fi
		# "# Event count (approx.): NS" and
		# "  CHILDREN%  SELF%  [k] symbol" -> inclusive us per round
		awk -v n="$PROFILE_ITERS" -v op="$op" '
			FNR == 1 { kind = (FILENAME ~ /native[.]txt$/) ? "n" : "v" }
			/^# Event count/ { ns[kind] = $NF }
			/^ +[0-9.]+% +[0-9.]+% +\[k\]/ {
				sym = $4; for (i = 5; i <= NF; i++) sym = sym " " $i
				pct = $1; sub(/%/, "", pct)
				u[kind, sym] = pct / 100 * ns[kind] / 1e3 / n; s[sym] = 1
			}
			END {
				printf "%s: CPU us per round (with start-up), native %.2f, vdevice %.2f\n",
					op, ns["n"] / 1e3 / n, ns["v"] / 1e3 / n
				printf "%9s %9s %9s  %s\n", "native", "vdevice", "delta", "kernel function (inclusive)"
				for (x in s) printf "%9.2f %9.2f %9.2f  %s\n", u["n", x], u["v", x], u["v", x] - u["n", x], x
			}' "$OUT/report-$op-native.txt" "$OUT/report-$op-vdev.txt" |
			{ IFS= read -r h1; IFS= read -r h2; printf '%s\n%s\n' "$h1" "$h2";
			  sort -k3,3gr | head -n 60; } > "$OUT/profile-$op.txt"
		say "$(head -n 1 "$OUT/profile-$op.txt") (profile-$op.txt)"
	done
}

# --- scale ---------------------------------------------------------------------

# Kernel memory the benchmark attributes to devices, in bytes.
kmem() {
	awk '$1 == "Slab:" || $1 == "VmallocUsed:" || $1 == "Percpu:" { s += $2 }
	     END { print s * 1024 }' /proc/meminfo
}

# settle - let deferred frees (RCU, work items) finish before reading kmem.
settle() {
	sync
	sleep "$SETTLE"
}

# slab_snapshot FILE - bytes per slab cache (active objects x size).
slab_snapshot() {
	awk 'NR > 2 { print $1, $2 * $4 }' /proc/slabinfo | sort > "$1"
}

# slab_top BEFORE AFTER COUNT - the caches that grew most, per vdevice.
slab_top() {
	join "$1" "$2" | awk -v n="$3" '{ d = ($3 - $2) / n; if (d >= 256) print d, $1 }' |
		sort -rn | head -n 8
}

# tool_startup_ms - the smallest of three runs of a batch that creates
# nothing: process start, libvrdma and genetlink setup, which every batch
# pays once and which is not the cost of a create.
tool_startup_ms() {
	local i t0 best=
	echo "parent show" > "$OUT/tmp.noop"
	for i in 1 2 3; do
		t0=$(now)
		"$VRDMACTL" -b "$OUT/tmp.noop" > /dev/null 2>> "$LOG"
		best=$(awk -v t="$(elapsed "$t0")" -v b="$best" \
			'BEGIN { t *= 1e3; if (b == "" || t < b) b = t; printf "%.3f", b }')
	done
	echo "$best"
}

now() { echo "$EPOCHREALTIME"; }
elapsed() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.6f", b - a }'; }

# vdevs_at_most N - no more than N vdevices exist (for wait_for).
vdevs_at_most() {
	[ "$(vdev_count)" -le "$1" ]
}

scale() {
	local count batch=100 i b t0 m0 m1 nb ns_list=() n per startup base
	# The other parts' vdevices (the bypass part's too) stay
	base=$(vdev_count)
	for ((i = 0; i < SCALE_NS; i++)); do
		new_ns "SNS$i" "s$i" || { fail "scale netns"; return 1; }
		ns_list+=("$(eval echo "\$SNS$i")")
	done
	startup=$(tool_startup_ms)
	sample scale tool_startup_ms vrdmactl 0 0 ms "$startup"
	for count in $SCALE; do
		nb=$(( (count + batch - 1) / batch ))
		settle
		slab_snapshot "$OUT/tmp.slab0"
		m0=$(kmem)
		# Create in batches of up to 100: the time of each batch says
		# whether a create costs more when more vdevices exist.
		for ((b = 0; b < nb; b++)); do
			: > "$OUT/tmp.batch"
			for ((i = b * batch; i < count && i < (b + 1) * batch; i++)); do
				echo "dev add sc$i parent $PARENT netns ${ns_list[$((i % SCALE_NS))]}"
			done >> "$OUT/tmp.batch"
			n=$(wc -l < "$OUT/tmp.batch")
			t0=$(now)
			if ! "$VRDMACTL" -b "$OUT/tmp.batch" >> "$LOG" 2>&1; then
				fail "scale: creating batch $b of $count"
				return 1
			fi
			per=$(awk -v t="$(elapsed "$t0")" -v n="$n" -v s="$startup" \
				'BEGIN { printf "%.3f", (t * 1e3 - s) / n }')
			sample scale "create_batch" vdev "$count" "$b" ms_per_op "$per"
		done
		[ "$(vdev_count)" -ge "$count" ] || { fail "scale: only $(vdev_count) vdevices"; return 1; }
		settle
		m1=$(kmem)
		slab_snapshot "$OUT/tmp.slab1"
		sample scale mem_per_vdev vdev "$count" 0 bytes $(( (m1 - m0) / count ))
		# Where it goes: the slab caches that grew most, per vdevice.
		# (A file, not <(...): the guest's devtmpfs has no /dev/fd.)
		slab_top "$OUT/tmp.slab0" "$OUT/tmp.slab1" "$count" > "$OUT/tmp.slabtop"
		while read -r per name; do
			sample slab "$name" vdev "$count" 0 bytes "$per"
		done < "$OUT/tmp.slabtop"
		# Listing: the tool's JSON output with all of them.
		for ((i = 0; i < 3; i++)); do
			t0=$(now)
			"$VRDMACTL" -j dev show > "$OUT/tmp.show" 2>> "$LOG" ||
				fail "scale: dev show with $count"
			sample scale dev_show_ms vdev "$count" "$i" ms \
				"$(awk -v t="$(elapsed "$t0")" 'BEGIN { printf "%.3f", t * 1e3 }')"
		done
		n=$(jq length "$OUT/tmp.show" 2>/dev/null || echo 0)
		[ "$n" -ge "$count" ] || fail "scale: dev show -j listed $n of $count"
		for ((b = 0; b < nb; b++)); do
			: > "$OUT/tmp.batch"
			for ((i = b * batch; i < count && i < (b + 1) * batch; i++)); do
				echo "dev del sc$i"
			done >> "$OUT/tmp.batch"
			n=$(wc -l < "$OUT/tmp.batch")
			t0=$(now)
			"$VRDMACTL" -b "$OUT/tmp.batch" >> "$LOG" 2>&1 ||
				fail "scale: deleting batch $b of $count"
			per=$(awk -v t="$(elapsed "$t0")" -v n="$n" -v s="$startup" \
				'BEGIN { printf "%.3f", (t * 1e3 - s) / n }')
			sample scale "delete_batch" vdev "$count" "$b" ms_per_op "$per"
		done
		wait_for 30 vdevs_at_most "$base" > /dev/null ||
			fail "scale: $(vdev_count) vdevices left after deleting $count, $base before"
	done
}

# rxe_reference - kernel memory of one rxe device (beyond its netdev): what
# the RDMA core allocates for any ib_device, plus rxe's own state.  The
# vdevice figure is compared against it.
rxe_reference() {
	local i m0 m1 m2
	settle
	m0=$(kmem)
	for ((i = 0; i < RXE_REF; i++)); do
		ip link add "bdum$i" type dummy || { fail "dummy netdev"; return 1; }
		cleanup_push ip link del "bdum$i"
	done
	settle
	m1=$(kmem)
	slab_snapshot "$OUT/tmp.slab0"
	for ((i = 0; i < RXE_REF; i++)); do
		rdma link add "brxe$i" type rxe netdev "bdum$i" >> "$LOG" 2>&1 ||
			{ fail "rxe reference device"; return 1; }
		cleanup_push rdma link del "brxe$i"
	done
	settle
	m2=$(kmem)
	slab_snapshot "$OUT/tmp.slab1"
	sample scale mem_per_rxe rxe "$RXE_REF" 0 bytes $(( (m2 - m1) / RXE_REF ))
	slab_top "$OUT/tmp.slab0" "$OUT/tmp.slab1" "$RXE_REF" > "$OUT/tmp.slabtop"
	while read -r per name; do
		sample slab "$name" rxe "$RXE_REF" 0 bytes "$per"
	done < "$OUT/tmp.slabtop"
	sample scale mem_per_dummy dummy "$RXE_REF" 0 bytes $(( (m1 - m0) / RXE_REF ))
	for ((i = 0; i < RXE_REF; i++)); do
		rdma link del "brxe$i" >> "$LOG" 2>&1
		ip link del "bdum$i"
	done
}

# --- the run -------------------------------------------------------------------

T_START=$(now)
say "$(uname -r), $(nproc) CPUs, reps $REPS; output in $OUT"
part() { [[ " $PARTS " == *" $1 "* ]]; }

if part bypass; then
	bypass_setup
fi
if part mlx5; then
	mlx5_setup
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
