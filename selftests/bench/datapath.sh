# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The data-path parts of the benchmark: latency, bandwidth, message rate.
# Sourced by bench.sh, which sets the knobs, the topology and the helpers
# (pair, sample, fail, kinds_for) this part uses.

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
