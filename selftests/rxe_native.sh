#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The parent works on its own: verbs over rxe0's loopback path in init_net,
# with no vdevice involved.  If this fails, every vdevice test is moot.
#
#   init_net:  ibv_*_pingpong server ──rxe0 (veth0, GID 1 = 10.99.0.1)──
#              ibv_*_pingpong client ──┘   out-of-band exchange: TCP 127.0.0.1
#
# Checks: the port is ACTIVE, libibverbs lists the parent, an RC and a UD
# ping-pong complete on both sides, and the parent's resource counts return
# to where they were (no objects leaked by a finished process).

# shellcheck source=selftests/lib.sh
. "$(dirname "$0")/lib.sh"

ktap_plan parent_port_active ibv_devices_lists_parent rc_pingpong \
	ud_pingpong parent_resources_released

if ! require_cmd rdma ibv_devices ibv_rc_pingpong ibv_ud_pingpong ss; then
	ktap_skip_rest "tools missing"
	ktap_finish
fi

tmpdir DIR

if in_init rdma link show "$PARENT/1" | grep -q 'state ACTIVE'; then
	ktap_ok parent_port_active
else
	ktap_fail parent_port_active "$PARENT/1 is not ACTIVE"
fi

if in_init ibv_devices | awk '{print $1}' | grep -qx "$PARENT"; then
	ktap_ok ibv_devices_lists_parent
else
	ktap_fail ibv_devices_lists_parent "ibv_devices does not list $PARENT"
fi

BASE=$(parent_res)
ktap_diag "$PARENT resources before: $BASE"

port_listening() {
	ss -Htln "sport = :$1" | grep -q .
}

# pingpong NAME TOOL ARGS... - server and client on $PARENT; both must exit 0
# and report their iterations.
pingpong() {
	local name=$1 tool=$2 port srv_rc cli_rc spid
	shift 2
	port=$((20000 + RANDOM % 20000))
	in_init timeout 120 "$tool" -d "$PARENT" -g 1 -p "$port" "$@" \
		> "$DIR/$name.server" 2>&1 &
	spid=$!
	if ! wait_for 30 port_listening "$port"; then
		kill "$spid" 2>/dev/null
		wait "$spid"
		ktap_diag "$(cat "$DIR/$name.server")"
		ktap_fail "$name" "server did not listen on port $port"
		return
	fi
	in_init timeout 120 "$tool" -d "$PARENT" -g 1 -p "$port" "$@" 127.0.0.1 \
		> "$DIR/$name.client" 2>&1
	cli_rc=$?
	wait "$spid"
	srv_rc=$?
	ktap_diag "server: $(tr '\n' ' ' < "$DIR/$name.server")"
	ktap_diag "client: $(tr '\n' ' ' < "$DIR/$name.client")"
	if [ "$srv_rc" -ne 0 ] || [ "$cli_rc" -ne 0 ]; then
		ktap_fail "$name" "server exit $srv_rc, client exit $cli_rc"
	elif ! grep -q ' iters in ' "$DIR/$name.server" ||
	     ! grep -q ' iters in ' "$DIR/$name.client"; then
		ktap_fail "$name" "no iteration report"
	else
		ktap_ok "$name"
	fi
}

pingpong rc_pingpong ibv_rc_pingpong -n 200
pingpong ud_pingpong ibv_ud_pingpong -n 200 -s 1024

if wait_for 10 parent_res_is "$BASE"; then
	ktap_ok parent_resources_released
else
	ktap_fail parent_resources_released "before: $BASE, after: $(parent_res)"
fi

ktap_finish
