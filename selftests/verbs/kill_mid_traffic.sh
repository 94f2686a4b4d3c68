#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Resource hygiene.  While traffic runs, the host sees the shadow objects on
# the parent, attributed to the container's process; when the processes
# are killed with SIGKILL in the middle of traffic, every shadow goes away,
# the parent's resource counts return exactly to their baseline, the
# vdevice usage counters return to zero, and the vdevices still work.
#
#   netns A: vA ── oob 10.98.1.0/24 ── netns B: vB      (both on rxe0)

# shellcheck source=selftests/lib/lib.sh
. "$(dirname "$0")/lib/lib.sh"
# shellcheck source=selftests/lib/vdev.sh
. "$(dirname "$0")/lib/vdev.sh"

ktap_plan setup host_sees_shadows host_res_dumps kill9_mid_traffic shadows_released \
	parent_res_baseline usage_zero vdevs_still_work

baseline=$(parent_res)
tmpdir T
ktap_setup linked_vdev_pair

# A bandwidth test that never ends and reports every second: its client's
# report lines are the proof that traffic flows, on any parent (neither a
# ConnectX nor rdmasim has rxe's packet counter, and rxe and rdmasim have
# no port counters).  Line-buffered, so that each report reaches the file
# when it is printed; -F as in traffic.sh (a TCG guest's clock fit).
spawn_in_ns "$A" stdbuf -oL ib_write_bw -d vA -x "$GIDX" -F -D 1 --run_infinitely \
	-p 18901 >"$T/srv" 2>&1
spid=$!
wait_for 30 port_listening "$A" 18901
spawn_in_ns "$B" stdbuf -oL ib_write_bw -d vB -x "$GIDX" -F -D 1 --run_infinitely \
	-p 18901 "$OOB_NET.1.1" >"$T/cli" 2>&1
cpid=$!

# qp_owned_by PID - the host's rdma res lists a shadow QP on the parent
# owned by PID.
qp_owned_by() {
	rdma -j res show qp | jq -e --arg dev "$PARENT" --argjson pid "$1" \
		'[.[] | select(.ifname == $dev and .pid == $pid)] | length > 0' >/dev/null
}
if wait_for 30 qp_owned_by "$spid" && wait_for 30 qp_owned_by "$cpid"; then
	ktap_ok host_sees_shadows "$(rdma res show qp | grep "$PARENT" | grep -v 'pid 0\|qp-type GSI')"
else
	ktap_fail host_sees_shadows "$(rdma res show qp)"
fi

# Every resource dump of the parent works while shadows exist: anyone on
# the host may run these, and each type has its own nldev fill function.
# A pingpong server holds an SRQ while it waits for its client; a shadow
# SRQ takes its owner from its shadow PD, and must be listed as the
# server's (selftests/verbs/shadow_owner.sh says why).
spawn_in_ns "$A" ibv_srq_pingpong -d vA -g "$GIDX" -p 18902 >"$T/srq" 2>&1
srqpid=$!
wait_for 30 port_listening "$A" 18902
dumps_ok=1
for t in ctx pd cq mr qp srq; do
	if ! in_init rdma res show "$t" >"$T/res.$t" 2>&1; then
		dumps_ok=0
		ktap_diag "rdma res show $t:" "$(cat "$T/res.$t")"
	fi
done
kill "$srqpid"
wait "$srqpid" 2>/dev/null
if [ $dumps_ok = 1 ] && grep -q "$PARENT" "$T/res.pd" "$T/res.cq" &&
   grep -q "$PARENT.*pid $srqpid " "$T/res.srq"; then
	ktap_ok host_res_dumps
else
	ktap_diag "rdma res show srq: $(cat "$T/res.srq")"
	ktap_fail host_res_dumps
fi

# reports - the client's reports of a second in which messages completed
# (size 65536, then a non-zero count of iterations)
reports() {
	awk '$1 == 65536 && $2 ~ /^[0-9]+$/ && $2 > 0 { n++ } END { print n + 0 }' "$T/cli"
}
# reports_above N - more than N of them
reports_above() {
	[ "$(reports)" -gt "$1" ]
}
# Mid-traffic: two more seconds of completed messages since now, not
# merely some seconds later, which a loaded machine may not have used to
# start the transfer
seen=$(reports)
flowing=
wait_for 60 reports_above "$((seen + 1))" && flowing=y
ktap_diag "during traffic: $(vrdma_objects); client reports $seen -> $(reports): $(tail -n 1 "$T/cli")"
kill -9 "$spid" "$cpid"
wait "$spid" "$cpid" 2>/dev/null
if [ -z "$flowing" ]; then
	ktap_fail kill9_mid_traffic "no traffic flowing: $(tail -n 3 "$T/cli")"
elif ! kill -0 "$spid" 2>/dev/null && ! kill -0 "$cpid" 2>/dev/null; then
	ktap_ok kill9_mid_traffic
else
	ktap_fail kill9_mid_traffic "processes still alive"
fi

check_released "$baseline"

usage=$("$VRDMACTL" -j dev show | jq -c '[.[] | .usage | to_entries[] | .value] | add')
if [ "$usage" = 0 ]; then
	ktap_ok usage_zero
else
	ktap_fail usage_zero "$("$VRDMACTL" -j dev show | jq -c '.[].usage')"
fi

if rdma_pair "$T" again "$A" "$B" "$OOB_NET.1.1" 18902 \
	"ibv_rc_pingpong -d vA -g $GIDX -n 20 -c" "ibv_rc_pingpong -d vB -g $GIDX -n 20 -c"; then
	ktap_ok vdevs_still_work
else
	ktap_fail vdevs_still_work
fi

ktap_finish
