#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Objects of a parent driver's own methods under the drv-obj limit.
#
# A vdevice forwards some of its parent's driver methods; mlx5's
# UAR_OBJ_ALLOC takes a firmware UAR from a pool the parent bounds per
# device, not per context, so a tenant could drain it and every other
# tenant's context would fail.  rdmasim's UAR object is the forwarded
# stand-in: its page ids come from one device-wide pool of 256, as
# mlx5's UARs do.  Tenant A floods its vdevice with UAR allocations under
# "drv-obj 4": exactly 4 are made, the next fails with EDQUOT, tenant B
# on the same parent still gets one, dev show reports the use, the rdma
# cgroup of A's process charges the same number of objects, a destroyed
# one is uncharged, and everything is released when A exits.  (On the
# tree before the limit existed, "drv-obj" was an unknown word, A took
# the whole pool, and B's allocation failed.)
#
#   netns A: vA (drv-obj 4) ──┐
#   netns B: vB ───────────────┴── simdq (rdmasim, init_net, on a veth)
#   cgroup /sys/fs/cgroup/sim_drv_quota-PID: A's flooding process

# shellcheck source=selftests/lib/lib.sh
. "$(dirname "$0")/lib/lib.sh"
# shellcheck source=selftests/lib/vdev.sh
. "$(dirname "$0")/lib/vdev.sh"
# shellcheck source=selftests/lib/sim.sh
. "$(dirname "$0")/lib/sim.sh"

FLOOD=$TOP/selftests/progs/sim_uar_flood
LIMIT=4

ktap_plan setup drv_obj_limit_set flood_bounded other_tenant_unaffected \
	usage_reported cgroup_charged realloc_after_destroy released_on_exit \
	bad_limit_refused klog_clean

if ! have_vrdmactl || ! require_cmd jq || [ ! -x "$FLOOD" ]; then
	ktap_skip_rest "vrdmactl, jq or sim_uar_flood missing"
	exit 0
fi

mark=$(klog_mark)
tmpdir T
CG=/sys/fs/cgroup/$TEST_NAME-$$
if [ -r "$SIM_KO" ] && load_modules &&
	{ [ -d /sys/module/rdmasim ] || in_init insmod "$SIM_KO"; } &&
	cleanup_push rmmod rdmasim &&
	in_init mkdir "$CG" && cleanup_push rmdir "$CG" &&
	new_ns A a && new_ns B b &&
	in_init ip link add svdqa type veth peer name svdqb &&
	cleanup_push ip link del svdqa &&
	in_init ip link set svdqa up && in_init ip link set svdqb up &&
	echo roce >/sys/module/rdmasim/parameters/variant &&
	in_init rdma link add simdq type rdmasim netdev svdqa &&
	cleanup_push rdma link del simdq &&
	in_init "$VRDMACTL" dev add vA parent simdq netns "$A" &&
	cleanup_push "$VRDMACTL" dev del vA &&
	in_init "$VRDMACTL" dev add vB parent simdq netns "$B" &&
	cleanup_push "$VRDMACTL" dev del vB; then
	ktap_ok setup
else
	ktap_fail setup "$(rdma dev 2>&1)"
	ktap_skip_rest "setup failed"
	ktap_finish
fi
base=$(sim_objects)

out=$(in_init "$VRDMACTL" dev set vA drv-obj "$LIMIT" 2>&1)
rc=$?
if [ "$rc" = 0 ] && [ "$(in_init "$VRDMACTL" -j dev show vA | jq -r '.[0].limits.drv_obj')" = "$LIMIT" ]; then
	ktap_ok drv_obj_limit_set
else
	ktap_fail drv_obj_limit_set "exit $rc: $out"
fi

# A floods from a cgroup of its own, and holds what it got
(
	echo "# [$A] $FLOOD vA 300 60 & (in $CG)" >&"$KTAP_FD"
	echo "$BASHPID" >"$CG/cgroup.procs"
	exec ip netns exec "$A" "$FLOOD" vA 300 60 >"$T/flood" 2>&1
) &
pid=$!
wait_for 60 grep -q '^holding' "$T/flood"
ktap_diag "$(tr '\n' ' ' <"$T/flood")"
if grep -qx "uar_alloc_count $LIMIT" "$T/flood" &&
	grep -qx 'uar_alloc_stop EDQUOT' "$T/flood"; then
	ktap_ok flood_bounded "$LIMIT made, the next EDQUOT"
else
	ktap_fail flood_bounded "$(grep '^uar_alloc' "$T/flood" | tr '\n' ' ')"
fi

out=$(in_ns "$B" "$FLOOD" vB 1 2>&1)
ktap_diag "$(tr '\n' ' ' <<<"$out")"
if grep -qx 'uar_alloc_count 1' <<<"$out"; then
	ktap_ok other_tenant_unaffected
else
	ktap_fail other_tenant_unaffected "B: $(grep '^uar_alloc' <<<"$out" | tr '\n' ' ')"
fi

used=$(in_init "$VRDMACTL" -j dev show vA | jq -r '.[0].usage.drv_obj')
if [ "$used" = "$LIMIT" ] &&
	in_init "$VRDMACTL" dev show vA | grep -q " drv-obj $LIMIT/$LIMIT"; then
	ktap_ok usage_reported "drv_obj $used/$LIMIT"
else
	ktap_fail usage_reported "usage $used; $(in_init "$VRDMACTL" dev show vA | tr '\n' ' ')"
fi

# The core charges every uverbs object to the caller's cgroup
cg=$(awk '$1 == "vA" { $1 = $1; print }' "$CG/rdma.current")
if [ "$cg" = "vA hca_handle=1 hca_object=$used" ]; then
	ktap_ok cgroup_charged "$cg"
else
	ktap_fail cgroup_charged "rdma.current: '$cg', drv_obj usage $used"
fi

if grep -q '^realloc_after_destroy ok' "$T/flood"; then
	ktap_ok realloc_after_destroy
else
	ktap_fail realloc_after_destroy "$(grep '^realloc' "$T/flood")"
fi

kill "$pid" 2>/dev/null
wait "$pid"
if wait_for 10 sim_objects_is "$base" &&
	[ "$(in_init "$VRDMACTL" -j dev show vA | jq -r '.[0].usage.drv_obj')" = 0 ] &&
	[ "$(in_init "$VRDMACTL" -j dev show vB | jq -r '.[0].usage.drv_obj')" = 0 ]; then
	ktap_ok released_on_exit "rdmasim: $(sim_objects)"
else
	ktap_fail released_on_exit "rdmasim: $(sim_objects) (at rest: $base); $(in_init "$VRDMACTL" -j dev show | jq -c '[.[] | {name, usage}]')"
fi

refused bad_limit_refused 'bad value "-1" for "drv-obj"' \
	in_init "$VRDMACTL" dev set vA drv-obj -1

if klog_clean_since "$mark"; then
	ktap_ok klog_clean
else
	ktap_fail klog_clean
fi
ktap_finish
