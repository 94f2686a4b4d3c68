#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# RDMA traffic between two containers, each with its own vdevice on one
# parent, using unmodified rdma-core and perftest applications and the
# stock librxe provider.
#
#   netns A: vA ── oob veth 10.98.1.1 ─┐ (TCP: QP number exchange only)
#   netns B: vB ── oob veth 10.98.1.2 ─┘
#   RoCE: vA, vB -> rxe0 (init_net, GID ::ffff:10.99.0.1), rxe loopback
#
# Payload is checked where the tool offers it (pingpong -c).  Afterwards
# every shadow object is gone and the parent's resources are back to their
# baseline.

# shellcheck source=selftests/lib/lib.sh
. "$(dirname "$0")/lib/lib.sh"
# shellcheck source=selftests/lib/vdev.sh
. "$(dirname "$0")/lib/vdev.sh"

N=${TRAFFIC_ITERS:-50}
# perftest's bandwidth tools calibrate the TSC against gettimeofday() when
# they print their report, and exit 1 ("Correlation coefficient r^2 < 0.9",
# "Can't produce a report") when the fit is poor, as it often is in a TCG
# guest on a busy host; the peer then fails its closing exchange
# ("ethernet_read_keys: Couldn't read remote address").  -F lets the report
# go without a figure: these cases check the traffic, not its rate.
BW=-F
CASES=(
	"rc_pingpong|ibv_rc_pingpong -d vA -g $GIDX -n $N -c|ibv_rc_pingpong -d vB -g $GIDX -n $N -c"
	"rc_pingpong_events|ibv_rc_pingpong -d vA -g $GIDX -n $N -c -e|ibv_rc_pingpong -d vB -g $GIDX -n $N -c -e"
	"uc_pingpong|ibv_uc_pingpong -d vA -g $GIDX -n $N -c|ibv_uc_pingpong -d vB -g $GIDX -n $N -c"
	"ud_pingpong|ibv_ud_pingpong -d vA -g $GIDX -n $N -s 512 -c|ibv_ud_pingpong -d vB -g $GIDX -n $N -s 512 -c"
	"srq_pingpong|ibv_srq_pingpong -d vA -g $GIDX -n $N -c|ibv_srq_pingpong -d vB -g $GIDX -n $N -c"
	"ib_write_bw|ib_write_bw $BW -d vA -x $GIDX -n 200|ib_write_bw $BW -d vB -x $GIDX -n 200"
	"ib_read_bw|ib_read_bw $BW -d vA -x $GIDX -n 200|ib_read_bw $BW -d vB -x $GIDX -n 200"
	"ib_send_bw|ib_send_bw $BW -d vA -x $GIDX -n 200|ib_send_bw $BW -d vB -x $GIDX -n 200"
	"ib_atomic_bw|ib_atomic_bw $BW -d vA -x $GIDX -n 200|ib_atomic_bw $BW -d vB -x $GIDX -n 200"
	"ib_write_lat|ib_write_lat -d vA -x $GIDX -n 200|ib_write_lat -d vB -x $GIDX -n 200"
	"ib_send_lat|ib_send_lat -d vA -x $GIDX -n 200|ib_send_lat -d vB -x $GIDX -n 200"
	"ib_send_bw_ud|ib_send_bw $BW -d vA -x $GIDX -n 200 -c UD -s 1024|ib_send_bw $BW -d vB -x $GIDX -n 200 -c UD -s 1024"
)

names=()
for c in "${CASES[@]}"; do
	names+=("${c%%|*}")
done
ktap_plan setup "${names[@]}" shadows_released parent_res_baseline

baseline=$(parent_res)
ktap_diag "parent baseline: $baseline"
tmpdir T
ktap_setup linked_vdev_pair

port=18700
for c in "${CASES[@]}"; do
	IFS='|' read -r name scmd ccmd <<<"$c"
	port=$((port + 1))
	if rdma_pair "$T" "$name" "$A" "$B" "$OOB_NET.1.1" "$port" "$scmd" "$ccmd"; then
		ktap_ok "$name" "$(grep -hE 'iters in|^ +[0-9]+ +[0-9]+ ' "$T/$name.cli" | tail -1)"
	else
		ktap_fail "$name"
	fi
done

check_released "$baseline"

ktap_finish
