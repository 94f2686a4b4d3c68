#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A tiny run of the benchmark (selftests/bench/bench.sh, the code behind
# `make bench`), so that it cannot rot: one repetition, one size, few
# iterations, 1 and 10 vdevices.  The figures mean nothing at this size;
# the test checks that every part ran (but mlx5, which
# selftests/sim/bench_mlx5.sh runs on the newest kernel) and that the JSON, the table and the
# plot are well formed, with positive figures where figures belong (a
# create time with vrdmactl's start-up subtracted may come out negative
# for so few vdevices, so only its presence is checked).

# shellcheck source=selftests/lib/lib.sh
. "$(dirname "$0")/lib/lib.sh"

ktap_plan bench_runs results_json latency bandwidth msg_rate control \
	bypass object_memory scale table plot profile

tmpdir T
# Kept in the results share, when there is one, for a post-mortem.
OUT=${VM_RESULTS:-$T}/bench_smoke
rm -rf "$OUT"
# Small, but the 2-byte message-rate run must still span several 5 ms polls
# of the packet counter, or its window cannot be measured; so must the
# fastest latency run (ib_read_lat, 0.2 ms a round trip under TCG on a
# loaded host: 250 of them, some 10 polls).  The round trips are most of
# the latency part's time: in make check's one-vCPU guest both ends of
# ib_send_lat busy-poll on the one CPU, some 20 ms a round trip, and 500 of
# them took 12 s a run.
export BENCH_OUT=$OUT BENCH_REPS=1 BENCH_LAT_ITERS=250 BENCH_LAT_SIZES=2 \
	BENCH_SIZES=4096 BENCH_BYTES=$((1 << 20)) BENCH_MAX_MSGS=5000 BENCH_QPS=2 \
	BENCH_RATE_MSGS=5000 \
	BENCH_CTL_ITERS=5 BENCH_MEM_OBJS=8 BENCH_SCALE="1 10" BENCH_SCALE_NS=2 \
	BENCH_RXE_REF=1 BENCH_SETTLE=0.2 \
	BENCH_PARTS="lat bw rate ctl bypass profile scale" \
	BENCH_PROFILE_OPS=pd BENCH_PROFILE_ITERS=2000 \
	BENCH_BYPASS_MSGS=500 BENCH_BYPASS_WRITE_MSGS=50

# Bounded below the harness's 900 s per script: 300 s ran out at a load
# average of 7 (five guests on two cores).
bench_runs 800 "$T/out"

J=$OUT/results.json
ktap_check results_json jq -e . "$J" > /dev/null


# A compared row: both medians positive, a ratio, a target verdict.
ROW='(.native.median > 0 and .vdev.median > 0 and .ratio > 0 and (.met | type) == "boolean")'
bench_check latency "(.latency | length) == 3 and all(.latency[]; $ROW)"
bench_check bandwidth "(.bandwidth | length) == 2 and all(.bandwidth[]; $ROW)"
bench_check msg_rate "(.msg_rate | length) == 1 and all(.msg_rate[]; $ROW)"
bench_check control "([.control[].case] | sort) == [\"cq\",\"ctx\",\"db\",\"mr_1m\",\"mr_4k\",\"pd\",\"qp\"] and all(.control[]; $ROW)"
# The vdevice column stays empty until vrdma forwards driver methods
bench_check bypass "([.bypass[].case] | sort) == [\"send\",\"write\"] and all(.bypass[]; .native.median > 0 and (.vdev == null or .vdev.median > 0) and .device_wqes.native.median > 0)"
bench_check object_memory "([.object_memory[].case] | sort) == [\"cq\",\"mr\",\"pd\",\"qp\"]"
# One vdevice's kernel memory is within a page of the noise (MemAvailable
# moves by pages), and one delete can take less than the tool's start-up
# that is subtracted: only the last count's memory must be positive.
bench_check scale "([.scale.counts[].count]) == [1, 10] and all(.scale.counts[]; (.create_ms_per_op | type) == \"number\" and (.delete_ms_per_op | type) == \"number\" and (.mem_per_vdev_bytes | type) == \"number\" and .dev_show_ms.median > 0) and .scale.counts[-1].mem_per_vdev_bytes > 0 and (.scale.slab_top_per_vdev | length) > 0 and .scale.mem_per_rxe_bytes != null and (.scale.mem_met | type) == \"boolean\""
if grep -q '^what ' "$OUT/table.txt" 2>/dev/null && grep -q '^scale' "$OUT/table.txt"; then
	ktap_ok table
else
	ktap_fail table "no table in $OUT/table.txt"
fi
if grep -q '<svg' "$OUT/bench.svg" 2>/dev/null && grep -q 'vdevice' "$OUT/bench.svg"; then
	ktap_ok plot
else
	ktap_fail plot "no plot in $OUT/bench.svg"
fi

# The profile: its header, and functions under the verbs' entry point.
P=$OUT/profile-pd.txt
if grep -q '^pd: CPU us per round' "$P" 2>/dev/null &&
   [ "$(grep -c '  [a-z_]' "$P")" -ge 5 ]; then
	ktap_ok profile
else
	ktap_fail profile "$(head -n 5 "$P" 2>&1)"
fi

ktap_finish
