#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The mlx5 part of the benchmark (selftests/bench/mlx5.sh, "make bench"'s
# mlx5 rows) on the newest kernel (selftests/TESTS), at a size that only
# shows it runs: stock libmlx5's ib_send_lat (2 B) and ib_write_bw (64
# KiB) natively on rdmasim's mlx5 personality and between two vdevices of
# it, in one run.
# The figures mean nothing at this size, but two of them are facts, not
# measurements: the double ran the WQEs of both kinds, and the data phase
# made no system call per message, natively or through a vdevice (the data
# path runs no vrdma code).  The bench counts the client's system calls
# with 2N iterations less those with N; perftest's buffers grow with N, so
# a malloc may add one or two at this size (ib_write_bw: 20 and 40 per
# 1000 iterations at N 50, stop 44): the bound is one per 10 iterations,
# ten times below one per message.  selftests/verbs/bench_smoke.sh runs
# the other parts on the default kernel.

# shellcheck source=selftests/lib/lib.sh
. "$(dirname "$0")/lib/lib.sh"

# shellcheck source=selftests/lib/vdev.sh
. "$(dirname "$0")/lib/vdev.sh"

ktap_plan bench_runs bench_left_nothing mlx5_rows mlx5_wqes \
	mlx5_data_phase_without_syscalls

tmpdir T
# Kept in the results share, when there is one, for a post-mortem.
OUT=${VM_RESULTS:-$T}/bench_mlx5
rm -rf "$OUT"
export BENCH_OUT=$OUT BENCH_REPS=1 BENCH_PARTS=mlx5 \
	BENCH_MLX5_LAT_ITERS=50 BENCH_MLX5_BW_ITERS=50

BEFORE=$(vrdma_objects)
bench_runs 600 "$T/out"
# The bench's teardown took its vdevices and its mlx5 parent away
left_nothing() {
	wait_for 60 vrdma_objects_is "$BEFORE" || return 1
	! rdma dev show mlx0 >/dev/null 2>&1
}
ktap_check bench_left_nothing left_nothing

J=$OUT/results.json


bench_check mlx5_rows \
	'([.mlx5[].case] | sort) == ["send_lat", "write_bw"] and all(.mlx5[]; .native.median > 0 and .vdev.median > 0 and .ratio > 0)' \
	'[.mlx5[] | {case, ratio}]'
bench_check mlx5_wqes \
	'all(.mlx5[]; .device_wqes.native.median > 0 and .device_wqes.vdev.median > 0)' \
	'[.mlx5[] | {case, native: .device_wqes.native.median, vdev: .device_wqes.vdev.median}]'
bench_check mlx5_data_phase_without_syscalls \
	'all(.mlx5[]; .data_syscalls_per_kiter | all(.native.median, .vdev.median; type == "number" and . < 100))' \
	'[.mlx5[] | {case, native: .data_syscalls_per_kiter.native.median, vdev: .data_syscalls_per_kiter.vdev.median}]'

ktap_finish
