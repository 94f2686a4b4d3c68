#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What a parent driver sees of a vdevice user's objects.  Hardware drivers
# decide how to treat a CQ, QP or SRQ by whether it is a user object (its
# uobject, its restrack entry): mlx5 cleans a "kernel" QP's CQs as kernel
# buffers on a move to RESET and gives it the reserved lkey, mlx4 resizes a
# "kernel" CQ in kernel memory, siw writes kernel pointers into a "kernel"
# CQ's ring, erdma returns no driver data for one.  So every shadow must be
# the calling process's user object on the parent, exactly like the
# vdevice object it backs: the host's `rdma res show` lists it under that
# process, never as vrdma's.  rxe does not branch on it, so the listing is
# what this test reads; rdmasim's strict checks read the uobject itself.
#
# Also: an extended QUERY_DEVICE with driver data (libmlx5 and libefa read
# their capabilities that way) gets the parent's own answer through a
# vdevice.  That write() command names no object, so its bundle has no
# context and vrdma must take the one of the file.
#
#   netns A: vA (on rxe0)          init_net: rxe0

# shellcheck source=selftests/lib/lib.sh
. "$(dirname "$0")/lib/lib.sh"
# shellcheck source=selftests/lib/vdev.sh
. "$(dirname "$0")/lib/vdev.sh"

EXQ=$TOP/selftests/progs/exq_udata

ktap_plan setup qp_is_users cq_is_users srq_is_users no_vrdma_owned \
	exq_udata_as_parent shadows_released klog_clean

mark=$(klog_mark)
tmpdir T
ktap_setup vdev_in_ns_a "$EXQ"

# owned_by TYPE PID - the parent's `rdma res show TYPE` has an entry of
# process PID.
owned_by() {
	rdma -j res show "$1" | jq -e --arg dev "$PARENT" --argjson pid "$2" \
		'[.[] | select(.ifname == $dev and .pid == $pid)] | length > 0' \
		>/dev/null
}

# Pingpong servers hold their objects while they wait for a client that
# never comes: rc_pingpong a QP and a CQ, srq_pingpong an SRQ as well.
spawn_in_ns "$A" ibv_rc_pingpong -d vA -g "$GIDX" -p 18931 >"$T/rc" 2>&1
rcpid=$!
spawn_in_ns "$A" ibv_srq_pingpong -d vA -g "$GIDX" -p 18932 >"$T/srq" 2>&1
srqpid=$!
wait_for 30 port_listening "$A" 18931
wait_for 30 port_listening "$A" 18932

for t in qp cq srq; do
	in_init rdma res show "$t" >"$T/res.$t" 2>&1
done
if owned_by qp "$rcpid" && owned_by qp "$srqpid"; then
	ktap_ok qp_is_users
else
	ktap_fail qp_is_users "$(grep "$PARENT" "$T/res.qp")"
fi
if owned_by cq "$rcpid" && owned_by cq "$srqpid"; then
	ktap_ok cq_is_users
else
	ktap_fail cq_is_users "$(grep "$PARENT" "$T/res.cq")"
fi
if owned_by srq "$srqpid"; then
	ktap_ok srq_is_users
else
	ktap_fail srq_is_users "$(grep "$PARENT" "$T/res.srq")"
fi
if ! grep -h "$PARENT" "$T"/res.* | grep -q 'vrdma'; then
	ktap_ok no_vrdma_owned
else
	ktap_fail no_vrdma_owned "$(grep -h "$PARENT.*vrdma" "$T"/res.*)"
fi
kill "$rcpid" "$srqpid"
wait "$rcpid" "$srqpid" 2>/dev/null

if in_init "$EXQ" "$PARENT" >"$T/exq.native" 2>&1 &&
   in_ns "$A" "$EXQ" vA >"$T/exq.vdev" 2>&1 &&
   cmp -s "$T/exq.native" "$T/exq.vdev"; then
	ktap_ok exq_udata_as_parent "$(tr '\n' ' ' <"$T/exq.vdev")"
else
	ktap_fail exq_udata_as_parent \
		"native: $(tr '\n' ' ' <"$T/exq.native") vdev: $(tr '\n' ' ' <"$T/exq.vdev")"
fi

check_shadows_released
ktap_check klog_clean klog_clean_since "$mark"
ktap_finish
