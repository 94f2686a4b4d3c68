#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The cm part of the benchmark (selftests/bench/cm.sh, "make bench"'s
# connection setup rows) at a size that only shows it runs: ucmatose -c N
# to a plain host's rxe, from a tenant's vdevice with "cm on" through
# vrdma's CM proxy and natively, in one run.  The rate means nothing at
# this size, but three figures are facts, not measurements: both kinds
# give a rate, so there is a ratio; the listener saw every one of the N
# connections of each kind established (its ib_cm's RTU counter); and the
# proxy holds no connection after the vdevice's run.  A vdevice without
# "cm on" fails the first two (its client finds no device: ENODEV).
#
# Needs rxe with network namespace support (7.1), as the traffic of
# selftests/cm/rdma_cm.sh does; skipped with the reason before that.

# shellcheck source=selftests/lib/lib.sh
. "$(dirname "$0")/lib/lib.sh"
# shellcheck source=selftests/lib/vdev.sh
. "$(dirname "$0")/lib/vdev.sh"
# shellcheck source=selftests/lib/cm.sh
. "$(dirname "$0")/lib/cm.sh"

ktap_plan bench_runs cm_rate_ratio cm_all_established cm_proxy_at_rest

if ! cm_rxe_carries_tenant; then
	ktap_skip_rest "rxe of $(uname -r) has no network namespace support (7.1): it cannot carry a tenant's own address"
	ktap_finish
fi

tmpdir T
# Kept in the results share, when there is one, for a post-mortem.
OUT=${VM_RESULTS:-$T}/bench_cm
rm -rf "$OUT"
N=8
export BENCH_OUT=$OUT BENCH_REPS=1 BENCH_PARTS=cm BENCH_CM_CONNS=$N

bench_runs 300 "$T/out"

J=$OUT/results.json


bench_check cm_rate_ratio \
	'(.cm | length) == 1 and .cm[0].native.median > 0 and .cm[0].vdev.median > 0 and .cm[0].ratio > 0' \
	'.cm[] | {conns: .size, native: .native.median, vdev: .vdev.median, ratio}'
bench_check cm_all_established \
	".cm[0].established.native.median == $N and .cm[0].established.vdev.median == $N" \
	'.cm[] | {native: .established.native.median, vdev: .established.vdev.median}'
# the proxy's connections: none left after the run, and none now that the
# tenant is gone
if jq -e '.cm[0].proxy_conns_left.vdev.median == 0' "$J" >/dev/null 2>&1 &&
   wait_for 10 cm_conns_is 0; then
	ktap_ok cm_proxy_at_rest "$(vrdma_objects)"
else
	ktap_fail cm_proxy_at_rest "after the run: $(jq -c '.cm[0].proxy_conns_left' "$J" 2>&1); now: $(vrdma_objects)"
fi

ktap_finish
