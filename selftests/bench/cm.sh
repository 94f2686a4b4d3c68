# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The cm part of the benchmark: how fast connections are set up through
# the RDMA connection manager from a tenant's vdevice (through vrdma's CM
# proxy) against natively, to the same listener on a plain host.
# Sourced by bench.sh, which sets the knobs and the helpers (sample,
# fail, kinds_for, now, elapsed) this part uses; the topology is
# selftests/lib/cm.sh's:
#
#   init_net: mvbh (on veth1) 10.72.9.1/24, rxe bh on it: the plain host,
#             where "ucmatose -c N -C 0" listens natively
#   netns CM: mvbt (on veth0) 10.72.9.2/24, rxe bt on it, vdevice vCM of
#             bt with "cm on": the tenant
#
#   native  ucmatose -s 10.72.9.1 -c N in init_net: the core's CM on the
#           host's own rxe (its loopback; a native device in another
#           namespace does not get ib_cm back after "rdma dev set netns")
#   vdev    ucmatose -s 10.72.9.1 -b 10.72.9.2 -c N in CM: ib_cm on vCM,
#           whose MADs the proxy carries on bt's ib_cm, over the veth
#
# The figure is N over the client's wall-clock time (process start,
# resolving, N connections set up at once, N torn down: -C 0 sends no
# data), connections per second.  Every run also counts the RTUs the
# host's ib_cm received (the connections established, from the
# listener's side) and, after a vdevice run, the proxy's connections left
# (debugfs, expected 0 at rest).
#
# rxe carries a tenant's own address only where it has network
# namespace support (7.1); elsewhere the part says so and runs nothing.
#
# It sets bench.sh's flag CM, read there.
# shellcheck disable=SC2034

CM=
CM_HOST=10.72.9.1
CM_TENANT=10.72.9.2
CM_NS=

# cm_setup - the plain host and the tenant; CM=1 when they are up
cm_setup() {
	if ! cm_rxe_carries_tenant; then
		say "cm: skipped: rxe of $(uname -r) has no network namespace support (7.1): it cannot carry a tenant's own address"
		return 0
	fi
	if ! require_cmd ucmatose >/dev/null 2>&1; then
		fail "cm: ucmatose missing (rdmacm-utils)"
		return 1
	fi
	if ! { in_init modprobe rdma_ucm && new_ns CM_NS cm &&
	       cm_plain_host bh "$CM_HOST" &&
	       cm_tenant "$CM_NS" bt vCM "$CM_TENANT"; }; then
		fail "cm: setup of the host and the tenant"
		return 1
	fi
	CM=1
}

# cm_run KIND REP - one listener for N connections on the host and one
# client of KIND; its samples
cm_run() {
	local kind=$1 rep=$2 spid src crc t0 t rtu0 est left=
	local -a cli=(ucmatose -s "$CM_HOST" -p)
	PORT=$((PORT + 1))
	cli+=("$PORT" -c "$CM_CONNS" -C 0)
	(
		echo "# [init] ucmatose -b $CM_HOST -p $PORT -c $CM_CONNS -C 0 &" >&"$KTAP_FD"
		exec timeout 300 ucmatose -b "$CM_HOST" -p "$PORT" -c "$CM_CONNS" -C 0
	) >"$OUT/tmp.cmsrv" 2>&1 &
	spid=$!
	if ! wait_for 30 cm_listening init "$CM_HOST" "$PORT" >/dev/null; then
		kill "$spid" 2>/dev/null
		wait "$spid"
		fail "cm $kind rep $rep: the host never listened"
		return
	fi
	rtu0=$(cm_rx bh rtu)
	t0=$(now)
	if [ "$kind" = native ]; then
		in_init timeout 300 "${cli[@]}" >"$OUT/tmp.cmcli" 2>&1
	else
		in_ns "$CM_NS" timeout 300 "${cli[@]}" -b "$CM_TENANT" >"$OUT/tmp.cmcli" 2>&1
	fi
	crc=$?
	t=$(elapsed "$t0")
	# a listener whose client gave up waits for connections forever
	[ "$crc" -eq 0 ] || kill "$spid" 2>/dev/null
	wait "$spid"
	src=$?
	est=$(($(cm_rx bh rtu) - rtu0))
	echo "# took $t s, $est connections established" >&"$KTAP_FD"
	if [ "$kind" = vdev ]; then
		wait_for 30 cm_conns_is 0 >/dev/null
		left=$(cm_conns)
	fi
	if [ "$src" -ne 0 ] || [ "$crc" -ne 0 ]; then
		{ echo "# listener status $src, client status $crc"
		  sed 's/^/#  srv: /' "$OUT/tmp.cmsrv"; sed 's/^/#  cli: /' "$OUT/tmp.cmcli"; } >>"$LOG"
		fail "cm $kind rep $rep: ucmatose (listener $src, client $crc): $(grep -m1 -iE 'error|fail|ret' "$OUT/tmp.cmcli")"
		return
	fi
	sample cm connect "$kind" "$CM_CONNS" "$rep" conn_per_s \
		"$(awk -v n="$CM_CONNS" -v t="$t" 'BEGIN { printf "%.3f", n / t }')"
	sample cm connect "$kind" "$CM_CONNS" "$rep" process_s "$t"
	sample cm connect "$kind" "$CM_CONNS" "$rep" established "$est"
	[ -z "$left" ] || sample cm connect "$kind" "$CM_CONNS" "$rep" proxy_conns_left "$left"
}

# cm REP - both kinds, alternating order
cm() {
	local kind
	for kind in $(kinds_for "$1"); do
		cm_run "$kind" "$1"
	done
}
