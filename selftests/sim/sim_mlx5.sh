#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Stock libmlx5 on rdmasim's mlx5 personality (selftests/rdmasim/mlx5.c:
# driver id MLX5, mlx5's user ABI), natively and through a vdevice of it,
# so that vrdma's mlx5 path (kmod/fwd_mlx5.c) runs with no ConnectX.
#
#   netns V: vM (on simmlx)            init_net: simmlx on svm0a (veth)
#
# Natively, Debian 12's unmodified libmlx5 (rdma-core 44) binds the
# device by its driver id and opens it: ibv_devinfo and ibv_devinfo -v
# work, and selftests/progs/sim_mlx5 checks what it opened (the CQE
# version, mlx5's firmware version encoding, the NC UAR libmlx5
# allocated and mapped at an offset in mlx5's encoding, a BlueFlame UAR
# granted, as by mlx5_ib on a device with write-combining, and mapped
# write-combining (the double counts it: wc_mmaps), both UAR pages
# written and read back, mappings at offsets never handed out refused
# as mlx5_ib refuses them, a PD's pdn, an imported context and PD
# (RESP_UCTX and PD_QUERY), a CQ with mlx5's driver data, sized
# entries - 1 exactly, and one past max_cqe refused).  libmlx5 asks for
# a DEVX context first; the personality refuses it as mlx5_ib does on
# firmware without DEVX, and counts it (debugfs rdmasim/mlx5:
# devx_asked), and libmlx5 opens without it.
#
# The error paths (selftests/progs/sim_mlx5_qp, natively and on a
# vdevice): an RC QP connected to itself sends, reads, fetches and adds
# and compares and swaps (the original values back in host order), then a
# SEND with an lkey of no MR completes with a local protection error, the
# QP is in the error state, and a receive posted before and a SEND posted
# after are flushed; on a second QP a fetch and add on an MR without
# remote atomic access completes with a remote access error; the double
# counts two error CQEs and two flushes.  Its access mode: on five QPs, an
# operation the responder QP takes (access flags; no READ or atomic without
# responder resources, as mlx5_ib) completes, one it refuses completes
# with a remote invalid request; the double counts five error CQEs.
#
# SRQs (selftests/progs/sim_mlx5_srq, natively and on a vdevice;
# selftests/rdmasim/mlx5_srq.c): create, query, a resize refused as
# mlx5_ib refuses it, the limit armed and read back, an RC QP attached to
# the SRQ and connected to itself taking its receives from it in posting
# order (payloads checked), the SRQ limit event once fewer WQEs than the
# limit remain, then 200 SENDs with each receive reposted, so that
# libmlx5 relinks every WQE; the double counts one limit event and no SRQ
# left.
#
# Traffic (selftests/rdmasim/mlx5_qp.c, mlx5_wqe.c: QPs with mlx5's driver
# data, the double's "hardware" running libmlx5's WQEs and writing mlx5
# CQEs): stock ibv_rc_pingpong (also -e, completion events),
# ibv_ud_pingpong, ibv_srq_pingpong (16 QPs on one SRQ), ib_send_lat and
# ib_write_bw, ib_read_lat and ib_read_bw (RDMA READ, several outstanding
# at a time), ib_atomic_bw (fetch and add) and ib_atomic_lat (compare and
# swap), each with its payload or
# completion checks, natively and between vdevices of the double in two
# netns (vA in A, vB in B, an out-of-band veth between them).  After each:
# the double's objects at rest, no WQE libmlx5 never writes and no error
# CQE, the WQE count moved (and the event count for -e); through the
# vdevices the double saw no DEVX request.  Then ibv_rc_pingpong killed
# with SIGKILL in mid-traffic leaves the double's and vrdma's objects at
# rest.  Then vA is deleted (vrdmactl dev del) while ib_write_bw from vB
# writes into it: ibv_asyncwatch on vA gets IBV_EVENT_DEVICE_FATAL, the
# peer's WRITEs complete in error (retry exceeded: the QP is
# gone), and the double's objects and vrdma's shadows come back to rest.
#
#   netns A: vA ── oob veth 10.98.1.0/24 ── netns B: vB
#              \__________ simmlx (init_net) _______/
#
# Then as a ConnectX: rdmasim's ids by default (vendor 0x5153), the double
# made again with mlx5_ids shows Mellanox's vendor id and ConnectX-5's part
# id natively and through a vdevice, and pyverbs opens an Mlx5Context on
# both with the same answers.  rdma-core's pyverbs tests on the double, the
# mlx5 UAR test and the test that imports a context, a PD and an MR among
# them, are compared natively and through a vdevice by the hardware kit:
# sim/hwcheck_mlx5.sh.
#
# Through the vdevice the same checks pass, the BlueFlame UAR mapped
# write-combining by the parent into the tenant's VMA, and once the
# vdevice is deleted under a process that wrote both UAR pages, both
# mappings are revoked: they read the core's zero page.  The parent is
# never asked
# for a DEVX context (devx_asked does not move) while libmlx5 opens
# normally: a tenant's shadow context must not get a DEVX uid, a firmware
# privilege vrdma does not forward.  An explicit DEVX open
# (mlx5dv_open_device) is refused through the vdevice as natively.  Then
# rdmasim's and vrdma's counts come back to rest, no strict check fires,
# and the kernel log is clean.

# shellcheck source=selftests/lib/lib.sh
. "$(dirname "$0")/lib/lib.sh"
# shellcheck source=selftests/lib/vdev.sh
. "$(dirname "$0")/lib/vdev.sh"
# shellcheck source=selftests/lib/sim.sh
. "$(dirname "$0")/lib/sim.sh"

PROG=$TOP/selftests/progs/sim_mlx5
QP_PROG=$TOP/selftests/progs/sim_mlx5_qp
SRQ_PROG=$TOP/selftests/progs/sim_mlx5_srq
VARIANT=/sys/module/rdmasim/parameters/variant
MLX5_IDS=/sys/module/rdmasim/parameters/mlx5_ids
MLX5DBG=$SIMDBG/mlx5
PARENT=simmlx
# The double's address: its GID at index $GIDX (lib/vdev.sh), IPv4-mapped
SIM_ADDR=10.97.0.1
PORT=18515

TRAFFIC=(rc_pingpong rc_pingpong_events ud_pingpong srq_pingpong send_lat
	write_bw read_lat read_bw atomic_bw atomic_lat)

ktap_plan setup native_devinfo native_devinfo_verbose ids_rdmasim_by_default \
	native_libmlx5 native_bf_uar_wc \
	native_devx_refused_counted native_devx_open_refused native_released \
	vdev_devinfo vdev_devinfo_alike vdev_libmlx5 vdev_bf_uar_wc \
	vdev_no_devx_to_parent vdev_devx_open_refused vdev_uars_revoked \
	vdev_released \
	"${TRAFFIC[@]/#/native_}" native_qp_errors native_qp_access native_srq \
	traffic_setup \
	"${TRAFFIC[@]/#/vdev_}" vdev_qp_errors vdev_qp_access vdev_srq \
	vdev_traffic_no_devx \
	kill9_released del_busy_fatal del_busy_peer_error del_busy_released \
	ids_mellanox_when_asked mlx5_context \
	strict_clean klog_clean

# mlx5_count NAME - the personality's counter NAME (debugfs rdmasim/mlx5)
mlx5_count() {
	awk -v n="$1" '$1 == n { print $2 }' "$MLX5DBG"
}

# devinfo NS|init DEV [ARG...] - ibv_devinfo -d DEV ARGs in NS; its exit
# status on the first line, then its output
devinfo() {
	local ns=$1 dev=$2 out rc
	shift 2
	out=$(in_ns "$ns" ibv_devinfo -d "$dev" "$@" 2>&1)
	rc=$?
	printf 'rc=%s\n%s\n' "$rc" "$out"
}

# devinfo_ok OUT - an ibv_devinfo output of a libmlx5 device (libmlx5
# prints the firmware version from mlx5's encoding, 1.0.0001), opened
devinfo_ok() {
	[ "$(head -n 1 <<<"$1")" = rc=0 ] &&
		grep -qE '^[[:space:]]*fw_ver:[[:space:]]+1\.0\.0001$' <<<"$1" &&
		grep -qE '^[[:space:]]*state:[[:space:]]+PORT_ACTIVE' <<<"$1"
}

# devinfo_masked OUT - OUT without what differs between a device and its
# vdevice by design: the name, the GUIDs, the limits vrdma reports
devinfo_masked() {
	grep -vE 'hca_id:|node_guid:|sys_image_guid:|max_(qp|cq|mr|pd|srq|ah|mw)[[:space:]]*:' <<<"$1"
}

# ids_are OUT VENDOR PART - ibv_devinfo's OUT shows vendor id VENDOR (hex)
# and part id PART (decimal)
ids_are() {
	grep -qE "^[[:space:]]*vendor_id:[[:space:]]+$2\$" <<<"$1" &&
		grep -qE "^[[:space:]]*vendor_part_id:[[:space:]]+$3\$" <<<"$1"
}

# prog_ok OUT - every step of sim_mlx5 passed
prog_ok() {
	local step
	for step in provider open dv_query query_device nc_uar bf_uar \
		uar_write mmap_refused alloc_pd import_device import_pd create_cq \
		cq_too_big; do
		grep -q "^$step ok" <<<"$1" || return 1
	done
	! grep -q ' err ' <<<"$1"
}

# libmlx5_run WHERE NS DEV - sim_mlx5 on DEV in NS (init for init_net):
# WHERE_libmlx5, every step passed; WHERE_bf_uar_wc, the BlueFlame UAR's
# page, and only it, mapped write-combining (through a vdevice, by the
# parent's mmap).  The program's output is left in out.
libmlx5_run() {
	local rc wc0 wc1
	wc0=$(mlx5_count wc_mmaps)
	out=$(in_ns "$2" "$PROG" "$3" 2>&1)
	rc=$?
	wc1=$(mlx5_count wc_mmaps)
	ktap_diag "$out"
	if [ "$rc" = 0 ] && prog_ok "$out"; then
		ktap_ok "$1_libmlx5"
	else
		ktap_fail "$1_libmlx5" "exit $rc"
	fi
	if [ "$((wc1 - wc0))" = 1 ]; then
		ktap_ok "$1_bf_uar_wc" "$(grep '^bf_uar' <<<"$out")"
	else
		ktap_fail "$1_bf_uar_wc" "wc_mmaps $wc0 -> $wc1"
	fi
}

# no_devx NAME MIN - since devx0 and uctx0 were read, no DEVX request
# reached the parent and it opened at least MIN contexts
no_devx() {
	local devx uctx
	devx=$(($(mlx5_count devx_asked) - devx0))
	uctx=$(($(mlx5_count ucontexts) - uctx0))
	if [ "$devx" = 0 ] && [ "$uctx" -ge "$2" ]; then
		ktap_ok "$1" "parent: 0 DEVX requests, $uctx contexts opened"
	else
		ktap_fail "$1" "parent: $devx DEVX requests, $uctx contexts opened"
	fi
}

# none_alive PID... - none of the PIDs runs (for wait_for)
none_alive() {
	local p
	for p; do
		kill -0 "$p" 2>/dev/null && return 1
	done
	return 0
}

mark=$(klog_mark)
tmpdir T
if [ -x "$PROG" ] && [ -x "$QP_PROG" ] && [ -x "$SRQ_PROG" ] &&
	[ -r "$SIM_KO" ] && load_modules &&
	{ [ -d /sys/module/rdmasim ] || in_init insmod "$SIM_KO"; } &&
	cleanup_push rmmod rdmasim && new_ns V v &&
	in_init ip link add svm0a type veth peer name svm0b &&
	cleanup_push ip link del svm0a &&
	in_init ip link set svm0a up && in_init ip link set svm0b up &&
	in_init ip addr add "$SIM_ADDR/24" dev svm0a &&
	echo mlx5 >"$VARIANT" &&
	in_init rdma link add "$PARENT" type rdmasim netdev svm0a; then
	echo roce >"$VARIANT"
	cleanup_push rdma link del "$PARENT"
	ktap_ok setup
else
	echo roce >"$VARIANT" 2>/dev/null
	ktap_fail setup "$(rdma dev 2>&1)"
	ktap_skip_rest "setup failed"
	ktap_finish
fi
strict0=$(cat "$SIMDBG/strict")
base=$(sim_objects)
ktap_diag "rdmasim at rest: $base"

# --- natively ---------------------------------------------------------------

devx0=$(mlx5_count devx_asked)
uctx0=$(mlx5_count ucontexts)
out=$(devinfo init "$PARENT")
devx1=$(mlx5_count devx_asked)
uctx1=$(mlx5_count ucontexts)
ktap_diag "$out"
if devinfo_ok "$out"; then
	ktap_ok native_devinfo
else
	ktap_fail native_devinfo
fi
out=$(devinfo init "$PARENT" -v)
native_info_v=$out
if devinfo_ok "$out" && grep -qE '^[[:space:]]*max_qp:[[:space:]]+[1-9]' <<<"$out"; then
	ktap_ok native_devinfo_verbose "$(wc -l <<<"$out") lines"
else
	ktap_fail native_devinfo_verbose "$out"
fi
# Unless mlx5_ids asks, rdmasim's own ids: nothing that keys on them
# (pyverbs' mlx5-only tests) takes the double for a ConnectX
if [ "$(cat "$MLX5_IDS")" = N ] && ids_are "$out" 0x5153 1; then
	ktap_ok ids_rdmasim_by_default "$(grep -E 'vendor_(part_)?id:' <<<"$out" | tr -s ' \t\n' ' ')"
else
	ktap_fail ids_rdmasim_by_default "mlx5_ids $(cat "$MLX5_IDS"): $(grep -E 'vendor_(part_)?id:' <<<"$out")"
fi

libmlx5_run native init "$PARENT"
native_devx=$(grep '^devx_open' <<<"$out")

# One ibv_devinfo: libmlx5 asked for DEVX (with each request length it
# retries), was refused, and opened one context without it
if [ "$((devx1 - devx0))" -gt 0 ] && [ "$((uctx1 - uctx0))" = 1 ]; then
	ktap_ok native_devx_refused_counted "one open: $((devx1 - devx0)) DEVX requests refused, $((uctx1 - uctx0)) context opened"
else
	ktap_fail native_devx_refused_counted "one open: devx_asked $devx0 -> $devx1, ucontexts $uctx0 -> $uctx1"
fi
if [[ $native_devx == "devx_open refused "* ]]; then
	ktap_ok native_devx_open_refused "$native_devx"
else
	ktap_fail native_devx_open_refused "$native_devx"
fi
if wait_for 10 sim_objects_is "$base"; then
	ktap_ok native_released
else
	ktap_fail native_released "now: $(sim_objects), at rest: $base"
fi

# --- through a vdevice ------------------------------------------------------

vbase=$(vrdma_objects)
if vdev_add vM "$V"; then
	devx0=$(mlx5_count devx_asked)
	uctx0=$(mlx5_count ucontexts)
	out=$(devinfo "$V" vM)
	ktap_diag "$out"
	if devinfo_ok "$out"; then
		ktap_ok vdev_devinfo
	else
		ktap_fail vdev_devinfo
	fi
	vout=$(devinfo "$V" vM -v)
	diffs=$(diff <(devinfo_masked "$native_info_v") <(devinfo_masked "$vout"))
	if devinfo_ok "$vout" && [ -z "$diffs" ]; then
		ktap_ok vdev_devinfo_alike "ibv_devinfo -v as natively, but for names, GUIDs and limits"
	else
		ktap_fail vdev_devinfo_alike "$diffs"
	fi
	libmlx5_run vdev "$V" vM
	# Both UAR pages written by a process that outlives the vdevice
	spawn_in_ns "$V" "$PROG" vM revoke >"$T/revoke.out" 2>&1
	rpid=$!
	wait_for 20 grep -q '^uar_mapped ' "$T/revoke.out"
	# ibv_devinfo twice and sim_mlx5's open: three shadow contexts
	no_devx vdev_no_devx_to_parent 3
	vdevx=$(grep '^devx_open' <<<"$out")
	if [[ $vdevx == "devx_open refused "* ]] && [ "$vdevx" = "$native_devx" ]; then
		ktap_ok vdev_devx_open_refused "$vdevx"
	else
		ktap_fail vdev_devx_open_refused "vdevice: '$vdevx', natively: '$native_devx'"
	fi
	in_init "$VRDMACTL" dev del vM >/dev/null
	# Deleted under the writer: both its UAR mappings revoked
	wait_for 20 none_alive "$rpid"
	kill -9 "$rpid" 2>/dev/null
	wait "$rpid"
	rc=$?
	ktap_diag "$(cat "$T/revoke.out")"
	if [ "$rc" = 0 ] && grep -q '^uar_mapped ok' "$T/revoke.out" &&
		grep -q '^uar_revoked ok' "$T/revoke.out"; then
		ktap_ok vdev_uars_revoked "$(grep '^uar_revoked' "$T/revoke.out")"
	else
		ktap_fail vdev_uars_revoked "exit $rc"
	fi
	if wait_for 10 sim_objects_is "$base" && wait_for 10 vrdma_objects_is "$vbase"; then
		ktap_ok vdev_released "rdmasim: $(sim_objects); vrdma: $(vrdma_objects)"
	else
		ktap_fail vdev_released "rdmasim: $(sim_objects) (at rest: $base); vrdma: $(vrdma_objects) (before: $vbase)"
	fi
else
	ktap_fail vdev_devinfo "vM not created"
	for t in vdev_devinfo_alike vdev_libmlx5 vdev_bf_uar_wc \
		vdev_no_devx_to_parent vdev_devx_open_refused \
		vdev_uars_revoked vdev_released; do
		ktap_skip "$t" "no vdevice"
	done
fi

# --- traffic ----------------------------------------------------------------

# pair DIR NAME SNS CNS ADDR "SERVER CMD" "CLIENT CMD" - rdma_pair
# (lib/vdev.sh; init for init_net) on the next port; both must exit 0.
pair() {
	PORT=$((PORT + 1))
	rdma_pair "$1" "$2" "$3" "$4" "$5" "$PORT" "$6" "$7"
}

# err_cqes_above E - the double wrote more than E error CQEs
err_cqes_above() {
	[ "$(mlx5_count err_cqes)" -gt "$1" ]
}

# wqes_since W0 N - the double executed N WQEs since its count was W0
wqes_since() {
	[ "$(($(mlx5_count wqes) - $1))" -ge "$2" ]
}

# traffic_cmd KIND DEV - the server's command line for KIND on DEV (the
# client's is the same, for DEV's peer)
traffic_cmd() {
	case $1 in
	rc_pingpong) echo "ibv_rc_pingpong -d $2 -g $GIDX -n 200 -s 4096 -c" ;;
	rc_pingpong_events) echo "ibv_rc_pingpong -d $2 -g $GIDX -n 200 -s 1024 -c -e" ;;
	ud_pingpong) echo "ibv_ud_pingpong -d $2 -g $GIDX -n 200 -s 1024 -c" ;;
	srq_pingpong) echo "ibv_srq_pingpong -d $2 -g $GIDX -n 200 -s 1024 -c" ;;
	send_lat) echo "ib_send_lat -d $2 -x $GIDX -n 200 -s 2 -F" ;;
	write_bw) echo "ib_write_bw -d $2 -x $GIDX -n 200 -s 65536 -F" ;;
	read_lat) echo "ib_read_lat -d $2 -x $GIDX -n 200 -s 64 -F" ;;
	read_bw) echo "ib_read_bw -d $2 -x $GIDX -n 200 -s 65536 -F" ;;
	atomic_bw) echo "ib_atomic_bw -d $2 -x $GIDX -n 200 -F" ;;
	atomic_lat) echo "ib_atomic_lat -d $2 -x $GIDX -n 200 -A CMP_AND_SWAP -F" ;;
	esac
}

# traffic NAME KIND SNS SDEV CNS CDEV ADDR - run KIND between SDEV in SNS
# and CDEV in CNS; then the double at rest, and its hardware clean
traffic() {
	local name=$1 kind=$2 sns=$3 sdev=$4 cns=$5 cdev=$6 addr=$7
	local w0 w1 e0 e1 bad err
	w0=$(mlx5_count wqes)
	e0=$(mlx5_count events)
	bad=$(mlx5_count bad_wqes)
	err=$(mlx5_count err_cqes)
	if ! pair "$T" "$name" "$sns" "$cns" "$addr" "$(traffic_cmd "$kind" "$sdev")" \
		"$(traffic_cmd "$kind" "$cdev")"; then
		ktap_fail "$name" "$(tr '\n' ' ' <"$MLX5DBG")"
		return
	fi
	w1=$(mlx5_count wqes)
	e1=$(mlx5_count events)
	ktap_diag "$name: $(tail -n 3 "$T/$name.cli" | tr '\n' ' ')"
	if ! wait_for 10 sim_objects_is "$base" || [ "$(mlx5_count srqs)" != 0 ]; then
		ktap_fail "$name" "objects now: $(sim_objects) srqs=$(mlx5_count srqs), at rest: $base"
	elif [ "$(mlx5_count bad_wqes)" != "$bad" ] || [ "$(mlx5_count err_cqes)" != "$err" ]; then
		ktap_fail "$name" "bad_wqes $bad -> $(mlx5_count bad_wqes), err_cqes $err -> $(mlx5_count err_cqes)"
	elif [ "$((w1 - w0))" -lt 200 ]; then
		ktap_fail "$name" "the double executed $((w1 - w0)) WQEs"
	elif [[ $kind == *events ]] && [ "$((e1 - e0))" -lt 200 ]; then
		ktap_fail "$name" "$((e1 - e0)) completion events"
	else
		ktap_ok "$name" "$((w1 - w0)) WQEs, $((e1 - e0)) events"
	fi
}

# qp_case NAME NS DEV OKS ERRS FLUSHES [MODE] - sim_mlx5_qp (in MODE) on
# DEV in NS (init for init_net): OKS steps ok, ERRS error CQEs and FLUSHES
# flushes, no bad WQE
qp_case() {
	local name=$1 ns=$2 dev=$3 oks=$4 want_e=$5 want_f=$6 out rc e0 f0 b0 e f
	shift 6
	e0=$(mlx5_count err_cqes)
	f0=$(mlx5_count flush_cqes)
	b0=$(mlx5_count bad_wqes)
	out=$(in_ns "$ns" "$QP_PROG" "$dev" "$GIDX" "$@" 2>&1)
	rc=$?
	ktap_diag "$out"
	e=$(($(mlx5_count err_cqes) - e0))
	f=$(($(mlx5_count flush_cqes) - f0))
	if [ "$rc" = 0 ] && [ "$(grep -c ' ok ' <<<"$out")" = "$oks" ] &&
		[ "$e" = "$want_e" ] && [ "$f" = "$want_f" ] &&
		[ "$(mlx5_count bad_wqes)" = "$b0" ] &&
		wait_for 10 sim_objects_is "$base"; then
		ktap_ok "$name" "$e error CQEs, $f flush CQEs"
	else
		ktap_fail "$name" "exit $rc, $e error CQEs, $f flush CQEs, objects $(sim_objects)"
	fi
}

# qp_errors NAME NS DEV - every step ok, two error CQEs (a local and a
# remote one) and two flushes
qp_errors() {
	qp_case "$@" 8 2 2
}

# qp_access NAME NS DEV - the access mode: every case ok, five error CQEs
# (one refused operation each), no flush
qp_access() {
	qp_case "$@" 5 5 0 access
}

# srq NAME NS DEV - sim_mlx5_srq on DEV in NS (init for init_net): every
# step ok, one SRQ limit event, no error CQE or bad WQE, no SRQ left
srq() {
	local name=$1 ns=$2 dev=$3 out rc l0 e0 b0 l
	l0=$(mlx5_count srq_limit_events)
	e0=$(mlx5_count err_cqes)
	b0=$(mlx5_count bad_wqes)
	out=$(in_ns "$ns" "$SRQ_PROG" "$dev" "$GIDX" 2>&1)
	rc=$?
	ktap_diag "$out"
	l=$(($(mlx5_count srq_limit_events) - l0))
	if [ "$rc" = 0 ] && [ "$(grep -c ' ok ' <<<"$out")" = 8 ] &&
		[ "$l" = 1 ] && [ "$(mlx5_count err_cqes)" = "$e0" ] &&
		[ "$(mlx5_count bad_wqes)" = "$b0" ] &&
		wait_for 10 sim_objects_is "$base" && [ "$(mlx5_count srqs)" = 0 ]; then
		ktap_ok "$name" "$l limit event"
	else
		ktap_fail "$name" "exit $rc, $l limit events, srqs $(mlx5_count srqs), objects $(sim_objects)"
	fi
}

for kind in "${TRAFFIC[@]}"; do
	traffic "native_$kind" "$kind" init "$PARENT" init "$PARENT" 127.0.0.1
done
qp_errors native_qp_errors init "$PARENT"
qp_access native_qp_access init "$PARENT"
srq native_srq init "$PARENT"

# Two containers, a vdevice each, an out-of-band link between them
if new_ns A a && new_ns B b && link_ns "$A" "$B" 1 && vdev_add vA "$A" &&
	vdev_add vB "$B"; then
	ktap_ok traffic_setup
	devx0=$(mlx5_count devx_asked)
	uctx0=$(mlx5_count ucontexts)
	for kind in "${TRAFFIC[@]}"; do
		traffic "vdev_$kind" "$kind" "$A" vA "$B" vB "$OOB_NET.1.1"
	done
	qp_errors vdev_qp_errors "$A" vA
	qp_access vdev_qp_access "$A" vA
	srq vdev_srq "$A" vA
	no_devx vdev_traffic_no_devx 10

	# SIGKILL in mid-traffic: the server and the client, while WQEs run
	spawn_in_ns "$A" ibv_rc_pingpong -d vA -g "$GIDX" -n 100000000 -p 18600 \
		>"$T/kill.srv" 2>&1
	spid=$!
	wait_for 30 port_listening "$A" 18600
	spawn_in_ns "$B" ibv_rc_pingpong -d vB -g "$GIDX" -n 100000000 -p 18600 \
		"$OOB_NET.1.1" >"$T/kill.cli" 2>&1
	cpid=$!
	w0=$(mlx5_count wqes)
	wait_for 30 wqes_since "$w0" 500
	w1=$(mlx5_count wqes)
	kill -9 "$spid" "$cpid"
	wait "$spid" "$cpid" 2>/dev/null
	if [ "$((w1 - w0))" -ge 500 ] && wait_for 20 sim_objects_is "$base" &&
		wait_for 20 vrdma_shadows_zero; then
		ktap_ok kill9_released "killed after $((w1 - w0)) WQEs; rdmasim: $(sim_objects)"
	else
		ktap_fail kill9_released "$((w1 - w0)) WQEs; rdmasim: $(sim_objects) (at rest: $base); vrdma: $(vrdma_objects)"
	fi

	# vA deleted under ib_write_bw from vB into it, ibv_asyncwatch on vA
	spawn_in_ns "$A" stdbuf -oL ibv_asyncwatch -d vA >"$T/del.async" 2>&1
	apid=$!
	spawn_in_ns "$A" ib_write_bw -d vA -x "$GIDX" -n 100000000 -s 4096 -F \
		-p 18601 >"$T/del.srv" 2>&1
	spid=$!
	wait_for 30 port_listening "$A" 18601
	spawn_in_ns "$B" ib_write_bw -d vB -x "$GIDX" -n 100000000 -s 4096 -F \
		-p 18601 "$OOB_NET.1.1" >"$T/del.cli" 2>&1
	cpid=$!
	w0=$(mlx5_count wqes)
	err=$(mlx5_count err_cqes)
	wait_for 30 wqes_since "$w0" 1000
	w1=$(mlx5_count wqes)
	in_init "$VRDMACTL" dev del vA
	# The tenant's process learns it: the core ends the async event
	# stream with the fatal event (the fd then stays open, quiet, until
	# the process closes it)
	if [ "$((w1 - w0))" -ge 1000 ] &&
		wait_for 20 grep -q 'IBV_EVENT_DEVICE_FATAL' "$T/del.async"; then
		ktap_ok del_busy_fatal "vA deleted after $((w1 - w0)) WQEs: $(grep -m1 event_type "$T/del.async")"
	else
		ktap_fail del_busy_fatal "$((w1 - w0)) WQEs; asyncwatch: $(tr '\n' ' ' <"$T/del.async")"
	fi
	# Its peer's WRITEs reach no QP: retry exceeded, the rest flushed
	if wait_for 30 err_cqes_above "$err"; then
		ktap_ok del_busy_peer_error "err_cqes $err -> $(mlx5_count err_cqes)"
	else
		ktap_fail del_busy_peer_error "err_cqes $err -> $(mlx5_count err_cqes)"
	fi
	# perftest's own ending after an error is not the double's: whatever
	# still runs after 30 s is reported and killed (ibv_asyncwatch waits
	# for events for ever)
	wait_for 30 none_alive "$spid" "$cpid"
	ktap_diag "still running: $(ps -o pid=,args= -p "$spid,$cpid,$apid" | tr '\n' ' ')"
	ktap_diag "server: $(tail -n 4 "$T/del.srv" | tr '\n' ' ')"
	ktap_diag "client: $(tail -n 4 "$T/del.cli" | tr '\n' ' ')"
	kill -9 "$spid" "$cpid" "$apid" 2>/dev/null
	wait "$spid" "$cpid" "$apid" 2>/dev/null
	if wait_for 20 sim_objects_is "$base" && [ "$(mlx5_count srqs)" = 0 ] &&
		wait_for 20 vrdma_shadows_zero; then
		ktap_ok del_busy_released "rdmasim: $(sim_objects); vrdma: $(vrdma_objects)"
	else
		ktap_fail del_busy_released "rdmasim: $(sim_objects) (at rest: $base); vrdma: $(vrdma_objects)"
	fi
else
	ktap_fail traffic_setup
	for t in "${TRAFFIC[@]/#/vdev_}" vdev_qp_errors vdev_qp_access vdev_srq \
		vdev_traffic_no_devx kill9_released del_busy_fatal \
		del_busy_peer_error del_busy_released; do
		ktap_skip "$t" "no vdevices"
	done
fi
# --- as a ConnectX: pyverbs ------------------------------------------------

# mlx5_context NS DEV - pyverbs opens an Mlx5Context (mlx5dv_open_device)
# on DEV in NS and prints what mlx5dv_query_device and query_device say
MLX5CTX_PY='
import sys
from pyverbs.providers.mlx5.mlx5dv import Mlx5Context, Mlx5DVContextAttr
ctx = Mlx5Context(Mlx5DVContextAttr(), name=sys.argv[1])
dv = ctx.query_mlx5_device()
attr = ctx.query_device()
print("Mlx5Context: version %d flags 0x%x max_dynamic_bfregs %d vendor 0x%x part %d"
      % (dv.version, dv.flags, dv.max_dynamic_bfregs, attr.vendor_id,
         attr.vendor_part_id))
ctx.close()
'
mlx5_context() {
	in_ns "$1" python3 -c "$MLX5CTX_PY" "$2" 2>&1
}

# The double again, with mlx5_ids: Mellanox's vendor id and ConnectX-5's
# part id, which pyverbs' mlx5-only tests ask for
if in_init rdma link del "$PARENT" && echo Y >"$MLX5_IDS" &&
	echo mlx5 >"$VARIANT" &&
	in_init rdma link add "$PARENT" type rdmasim netdev svm0a &&
	wait_for 10 sim_objects_is "$base"; then
	echo roce >"$VARIANT"
	echo N >"$MLX5_IDS"
	out=$(devinfo init "$PARENT")
	if vdev_add vP "$V"; then
		vout=$(devinfo "$V" vP)
	else
		vout="vP not created"
	fi
	if devinfo_ok "$out" && ids_are "$out" 0x02c9 4119 &&
		devinfo_ok "$vout" && ids_are "$vout" 0x02c9 4119; then
		ktap_ok ids_mellanox_when_asked "natively and through the vdevice: $(grep -E 'vendor_(part_)?id:' <<<"$out" | tr -s ' \t\n' ' ')"
	else
		ktap_fail ids_mellanox_when_asked "natively: $out; vdevice: $vout"
	fi

	# pyverbs' Mlx5Context, the same natively and through the vdevice
	out=$(mlx5_context init "$PARENT")
	vout=$(mlx5_context "$V" vP)
	if [[ $out == "Mlx5Context: version "*" vendor 0x2c9 part 4119" ]] &&
		[ "$vout" = "$out" ]; then
		ktap_ok mlx5_context "natively and through the vdevice: $out"
	else
		ktap_fail mlx5_context "natively: $out; vdevice: $vout"
	fi
	in_init "$VRDMACTL" dev del vP >/dev/null
else
	echo roce >"$VARIANT"
	echo N >"$MLX5_IDS"
	ktap_fail ids_mellanox_when_asked "simmlx not made again: $(rdma dev 2>&1)"
	ktap_skip mlx5_context "no device"
fi
if ! wait_for 20 sim_objects_is "$base"; then
	ktap_diag "rdmasim not at rest: $(sim_objects) (at rest: $base)"
fi

ktap_diag "the double's hardware: $(tr '\n' ' ' <"$MLX5DBG")"

ktap_diag "strict checks: $strict0 -> $(cat "$SIMDBG/strict")"
strict_report "$mark" strict_clean
ktap_check klog_clean klog_clean_since "$mark"
ktap_finish
