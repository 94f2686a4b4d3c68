#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Eight containers, a vdevice each on one parent, all running RDMA traffic
# at the same time: four RC pingpong pairs with payload checking.
#
#   c1 ─oob1─ c2   c3 ─oob2─ c4   c5 ─oob3─ c6   c7 ─oob4─ c8
#   v1..v8 on rxe0
#
# Then every shadow is released and the parent is back to its baseline.

# shellcheck source=selftests/lib/lib.sh
. "$(dirname "$0")/lib/lib.sh"
# shellcheck source=selftests/lib/vdev.sh
. "$(dirname "$0")/lib/vdev.sh"

N=${TRAFFIC_ITERS:-50}
ktap_plan setup_8_containers each_sees_only_its_own pair_1_2 pair_3_4 \
	pair_5_6 pair_7_8 shadows_released parent_res_baseline

baseline=$(parent_res)
tmpdir T
ok=1
for i in 1 2 3 4 5 6 7 8; do
	new_ns "NS$i" "c$i" && vdev_add "v$i" "$(eval echo "\$NS$i")" || ok=0
done
for p in 1 2 3 4; do
	a=$((2 * p - 1))
	b=$((2 * p))
	link_ns "$(eval echo "\$NS$a")" "$(eval echo "\$NS$b")" "$p" || ok=0
done
if [ "$ok" = 1 ]; then
	ktap_ok setup_8_containers
else
	ktap_fail setup_8_containers
	ktap_skip_rest "setup failed"
	ktap_finish
fi

ok=1
for i in 1 2 3 4 5 6 7 8; do
	seen=$(ns_devices "$(eval echo "\$NS$i")" | xargs)
	[ "$seen" = "v$i" ] || { ok=0; ktap_diag "c$i sees '$seen'"; }
done
ktap_check each_sees_only_its_own [ "$ok" = 1 ]

pids=()
for p in 1 2 3 4; do
	a=$((2 * p - 1))
	b=$((2 * p))
	rdma_pair "$T" "pair_${a}_${b}" "$(eval echo "\$NS$a")" "$(eval echo "\$NS$b")" \
		"$OOB_NET.$p.1" "$((18800 + p))" \
		"ibv_rc_pingpong -d v$a -g $GIDX -n $N -c" \
		"ibv_rc_pingpong -d v$b -g $GIDX -n $N -c" >"$T/pair$p.diag" 2>&1 &
	pids+=($!)
done
for p in 1 2 3 4; do
	a=$((2 * p - 1))
	b=$((2 * p))
	if wait "${pids[$((p - 1))]}"; then
		ktap_ok "pair_${a}_${b}" "$(grep -h 'iters in' "$T/pair_${a}_${b}.cli")"
	else
		cat "$T/pair$p.diag"
		ktap_fail "pair_${a}_${b}"
	fi
done

check_released "$baseline"

ktap_finish
