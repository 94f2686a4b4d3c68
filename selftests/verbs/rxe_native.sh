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

# shellcheck source=selftests/lib/lib.sh
. "$(dirname "$0")/lib/lib.sh"
# shellcheck source=selftests/lib/vdev.sh
. "$(dirname "$0")/lib/vdev.sh"

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

# pingpong NAME TOOL ARGS... - server and client on $PARENT in init_net
# (rdma_pair); both must exit 0 and report their iterations.
pingpong() {
	local name=$1 cmd="$2 -d $PARENT -g 1 ${*:3}"
	if ! rdma_pair "$DIR" "$name" init init 127.0.0.1 \
			$((20000 + RANDOM % 20000)) "$cmd" "$cmd"; then
		ktap_fail "$name"
	elif ! grep -q ' iters in ' "$DIR/$name.srv" ||
	     ! grep -q ' iters in ' "$DIR/$name.cli"; then
		ktap_fail "$name" "no iteration report"
	else
		ktap_ok "$name" "$(grep -h ' iters in ' "$DIR/$name.cli")"
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
