#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The hardware validation kit (selftests/hw/hwcheck.sh, what "make hwcheck
# PARENT=DEV" runs) against rdmasim's mlx5 personality as it would run
# against a ConnectX: stock libmlx5 on the double, which reports
# Mellanox's vendor and part ids (rdmasim's mlx5_ids), so that pyverbs
# runs its mlx5 tests too.  Five of the kit's default selftests (below) must pass on
# vdevices of the double, and every pyverbs test of rdma-core run (all of
# them, or the quick set: below) must give the same result natively and
# through a vdevice, test by test (a pass, the same skip for the same
# reason, the same failure), with no
# difference left for the reader to explain; some of the mlx5-only tests
# must pass on both sides, among them the UAR test (test_mlx5_uar: a
# BlueFlame and an NC UAR, which the double's write-combining grants), and
# so must the test that imports a context, a PD and an MR
# (test_imported_rc_ex_rdma_write: RDMA WRITEs the double runs).  On the
# newest kernel only (selftests/TESTS): the user space is the same on
# every kernel, and the kernel's mlx5 paths are sim_mlx5's, which runs
# everywhere.
#
#   init_net: simmlx on svk0a (veth, 10.95.0.1/24); the kit makes its own
#   namespaces and vdevices
#
# What the double does not model fails the same way on both sides
# (Documentation/testing.rst lists those tests and why).  traffic runs
# ib_atomic_bw on the double's atomics.  Five of the kit's seven default
# selftests: not quota, which took 164 of the kit's 500 s in a loaded run
# and tests vrdma's accounting, the same on every parent (quota.sh runs
# it on rxe on the oldest and the newest kernel, sim_drv_quota the
# double's own limits on every kernel), and not kill_mid_traffic (44 s),
# whose SIGKILL and delete in mid-traffic on the double sim_mlx5 runs on
# every kernel (kill9_released, del_busy_*); "make hwcheck" on a NIC runs
# both.
# All of
# pyverbs, not the kit's quick set (what "make hwcheck"
# runs by default): HWCHECK_MLX5_PYVERBS=quick runs that instead, for a
# shorter run by hand.

# shellcheck source=selftests/lib/lib.sh
. "$(dirname "$0")/lib/lib.sh"
# shellcheck source=selftests/lib/sim.sh
. "$(dirname "$0")/lib/sim.sh"

KIT=$TOP/selftests/hw/hwcheck.sh
SIM=simmlx
KIT_TESTS="visibility verbs traffic shadow_owner ud_post"
PYVERBS=${HWCHECK_MLX5_PYVERBS:-all}
PARAMS=/sys/module/rdmasim/parameters

ktap_plan setup kit_passes report_complete pyverbs_same_results \
	pyverbs_mlx5_tests_ran pyverbs_mlx5_compared strict_clean klog_clean

mark=$(klog_mark)
tmpdir T
if [ -r "$SIM_KO" ] && load_modules &&
	{ [ -d /sys/module/rdmasim ] || in_init insmod "$SIM_KO"; } &&
	cleanup_push rmmod rdmasim &&
	in_init ip link add svk0a type veth peer name svk0b &&
	cleanup_push ip link del svk0a &&
	in_init ip link set svk0a up && in_init ip link set svk0b up &&
	in_init ip addr add 10.95.0.1/24 dev svk0a &&
	echo mlx5 >"$PARAMS/variant" && echo Y >"$PARAMS/mlx5_ids" &&
	in_init rdma link add "$SIM" type rdmasim netdev svk0a; then
	cleanup_push rdma link del "$SIM"
	ktap_ok setup
else
	ktap_fail setup "$(rdma dev 2>&1)"
	echo roce >"$PARAMS/variant" 2>/dev/null
	echo N >"$PARAMS/mlx5_ids" 2>/dev/null
	ktap_skip_rest "setup failed"
	ktap_finish
fi
echo roce >"$PARAMS/variant"
echo N >"$PARAMS/mlx5_ids"
base=$(sim_objects)

# mlx5_wqes - the WQEs the double's mlx5 data path has run
mlx5_wqes() {
	awk '$1 == "wqes" { print $2 }' /sys/kernel/debug/rdmasim/mlx5
}

R=$T/report.txt
w0=$(mlx5_wqes)
ktap_diag "pyverbs: $PYVERBS"
in_init "$KIT" -t "$KIT_TESTS" -p "$PYVERBS" -o "$R" "$SIM" >"$T/kit.out" 2>&1
rc=$?
w1=$(mlx5_wqes)
if [ $rc = 0 ] && grep -q '^verdict: pass' "$R"; then
	ktap_ok kit_passes
else
	ktap_fail kit_passes "exit $rc: $(grep -vE '^ {4}' "$R" | tail -n 30)"
	ktap_diag "$(cat "$R")"
fi
# Every selftest named ran and passed, on the double's vdevices
missing=
for t in $KIT_TESTS; do
	grep -q "^$t: pass" "$R" || missing="$missing $t"
done
if [ -z "$missing" ] &&
	grep -q '^no kernel warning during the run' "$R"; then
	ktap_ok report_complete "$(grep -cE '^[a-z_]+: pass \(' "$R") selftests passed"
else
	ktap_fail report_complete "not passed:$missing"
fi

# Test by test: the same result on both sides, none missing on one
ktap_diag "$(grep -E '^(native|vdev): ' "$R")"
if grep -q '^every test that passes on .* passes on the vdevice$' "$R" &&
	grep -q '^tests whose result differs otherwise: 0$' "$R" &&
	grep -qE '^native: .*\<[1-9][0-9]* ok,' "$R"; then
	ktap_ok pyverbs_same_results
else
	ktap_fail pyverbs_same_results "$(sed -n '/^passes on\|^tests whose/,/^---/p' "$R")"
fi
# What fails on both sides: the double's infidelities, for the reader
ktap_diag "failing on both sides: $(grep -E '^ {4}test_.*: (FAIL|ERROR) -> ' "$R" | sed 's/ (.*//' | tr -s ' \n' ' ')"

# The ids made pyverbs run its mlx5-only tests: some passed on both
# sides, the UAR test among them
mlx5_ok=$(grep -cE '^ {4}test_[^ ]+ \(tests\.test_mlx5_[^)]*\): ok -> ok$' "$R")
if [ "$mlx5_ok" -gt 0 ] &&
	grep -qE '^ {4}test_alloc_uar \(tests\.test_mlx5_uar\.[^)]*\): ok -> ok$' "$R"; then
	ktap_ok pyverbs_mlx5_tests_ran "$mlx5_ok mlx5 tests passed on both sides"
else
	ktap_fail pyverbs_mlx5_tests_ran "$(grep -E '^ {4}test_[^ ]+ \(tests\.test_mlx5_' "$R" | head -n 20)"
fi

# rdma-core's mlx5 UAR test (a BlueFlame and an NC UAR, which the
# double's write-combining grants) and its test that imports a context, a
# PD and an MR and runs RDMA WRITEs on them, run by the double: both pass
# on both sides
uar=$(grep -E '^ {4}test_alloc_uar ' "$R")
imp=$(grep -E '^ {4}test_imported_rc_ex_rdma_write ' "$R")
ktap_diag "$uar"
ktap_diag "$imp"
if [[ $uar == *": ok -> ok" ]] && [[ $imp == *": ok -> ok" ]] &&
	[ "$((w1 - w0))" -ge 20 ]; then
	ktap_ok pyverbs_mlx5_compared "$((w1 - w0)) WQEs run by the double"
else
	ktap_fail pyverbs_mlx5_compared "$((w1 - w0)) WQEs; $uar; $imp"
fi

wait_for 20 sim_objects_is "$base" ||
	ktap_diag "rdmasim not at rest: $(sim_objects) (before: $base)"
strict_report "$mark" strict_clean
ktap_check klog_clean klog_clean_since "$mark"
ktap_finish
