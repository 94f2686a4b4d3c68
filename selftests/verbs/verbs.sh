#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The verbs a vdevice forwards, beyond what the traffic tests reach: CQ
# resize and completion events, SRQ query/modify and its limit event, MRs
# with every access flag, RDMA write/read and both atomics with the data
# checked, a type 1 memory window, QP query, multicast attach/detach.
# selftests/progs/verbs_cover runs them on one device in one process over
# the parent's loopback path, first on the parent, then on a vdevice; the
# vdevice must answer exactly as its parent did, line by line.
#
#   netns A: vA (on rxe0)          init_net: rxe0

# shellcheck source=selftests/lib/lib.sh
. "$(dirname "$0")/lib/lib.sh"
# shellcheck source=selftests/lib/vdev.sh
. "$(dirname "$0")/lib/vdev.sh"

PROG=$TOP/selftests/progs/verbs_cover

ktap_plan setup native_verbs vdev_verbs same_answers_as_parent \
	shadows_released parent_res_baseline

baseline=$(parent_res)
tmpdir T
ktap_setup vdev_in_ns_a "$PROG"

if in_init timeout 120 "$PROG" "$PARENT" "$GIDX" >"$T/native" 2>&1; then
	ktap_ok native_verbs
else
	ktap_fail native_verbs "$(cat "$T/native")"
fi
if in_ns "$A" timeout 120 "$PROG" vA "$GIDX" >"$T/vdev" 2>&1; then
	ktap_ok vdev_verbs
else
	ktap_fail vdev_verbs "$(cat "$T/vdev")"
fi
ktap_diag "vdevice:" "$(tr '\n' ';' <"$T/vdev")"
if [ -s "$T/native" ] && diff -u "$T/native" "$T/vdev" >"$T/diff"; then
	ktap_ok same_answers_as_parent
else
	ktap_fail same_answers_as_parent "$(cat "$T/diff")"
fi
check_released "$baseline"
ktap_finish
