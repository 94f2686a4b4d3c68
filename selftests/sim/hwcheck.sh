#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The hardware validation kit (selftests/hw/hwcheck.sh), run here against
# rxe as an operator runs it against a real NIC, so that it cannot rot: it
# must pass on a healthy parent, with its pyverbs part comparing the same
# tests on both sides, fail when a selftest fails, and refuse a parent
# that is not there with "not ready".  Its rdma_cm part runs on a NIC
# only (a tenant's own address over rxe needs an rxe of the tenant's own):
# here it must skip with the reason, without a tenant address (-c) and
# with one on rxe, and refuse a -c that is no address.
#
#   init_net: rxe0; the kit makes its own namespaces and vdevices

# shellcheck source=selftests/lib/lib.sh
. "$(dirname "$0")/lib/lib.sh"

KIT=$TOP/selftests/hw/hwcheck.sh

ktap_plan kit_passes report_complete pyverbs_compared kit_fails_on_failure \
	kit_not_ready kit_cm_skipped klog_clean

mark=$(klog_mark)
tmpdir T
if in_init "$KIT" -t "verbs shadow_owner" -p quick -o "$T/pass.txt" "$PARENT" \
	>"$T/pass.out" 2>&1; then
	ktap_ok kit_passes
else
	ktap_fail kit_passes "exit $?: $(tail -n 20 "$T/pass.txt")"
fi
if grep -q '^kernel: ' "$T/pass.txt" && grep -q '^gid index: ' "$T/pass.txt" &&
   grep -q '^verbs: pass' "$T/pass.txt" && grep -q '^shadow_owner: pass' "$T/pass.txt" &&
   grep -q '^no kernel warning during the run' "$T/pass.txt" &&
   grep -q '^verdict: pass' "$T/pass.txt"; then
	ktap_ok report_complete
else
	ktap_fail report_complete "$(cat "$T/pass.txt")"
fi
# Both sides ran the same pyverbs tests, some passed on each, and every
# one that passed natively passed on the vdevice (the kit compares them one
# by one).  "native: [N FAIL, ]N ok, N skipped, ...": the counts come
# sorted by result.  A parent may fail a test natively that passes on the
# vdevice: rxe on 6.12 fails one now and then, not in every run.
ok_count() {
	sed -n "s/^$1: .*\<\([0-9][0-9]*\) ok,.*/\1/p" "$T/pass.txt"
}
native=$(ok_count native)
vdev=$(ok_count vdev)
if [ -n "$native" ] && [ "${native:-0}" -gt 0 ] && [ "${vdev:-0}" -ge "$native" ] &&
   grep -q '^every test that passes on .* passes on the vdevice$' "$T/pass.txt"; then
	ktap_ok pyverbs_compared "$(grep -E '^(native|vdev): ' "$T/pass.txt" | tr '\n' ' ')"
else
	ktap_fail pyverbs_compared "$(grep -E '^(native|vdev): ' "$T/pass.txt" | tr '\n' ' ')"
fi

in_init "$KIT" -t "no_such_test" -p none -o "$T/fail.txt" "$PARENT" >"$T/fail.out" 2>&1
rc=$?
if [ $rc = 1 ] && grep -q '^verdict: FAIL' "$T/fail.txt"; then
	ktap_ok kit_fails_on_failure
else
	ktap_fail kit_fails_on_failure "exit $rc: $(tail -n 5 "$T/fail.txt")"
fi

in_init "$KIT" -p none -o "$T/nr.txt" no_such_parent >"$T/nr.out" 2>&1
rc=$?
if [ $rc = 2 ] && grep -q '^verdict: not-ready' "$T/nr.txt"; then
	ktap_ok kit_not_ready "$(grep 'not ready' "$T/nr.txt")"
else
	ktap_fail kit_not_ready "exit $rc: $(tail -n 5 "$T/nr.txt")"
fi

in_init "$KIT" -t "" -p none -c 10.99.0.77/24 -o "$T/cm.txt" "$PARENT" \
	>"$T/cm.out" 2>&1
rc=$?
in_init "$KIT" -p none -c 10.99.0.77 -o "$T/cmbad.txt" "$PARENT" >"$T/cmbad.out" 2>&1
rcbad=$?
if grep -q '^rdma_cm: skipped: no tenant address given (-c ADDR/LEN)$' "$T/pass.txt" &&
   [ $rc = 0 ] && grep -q "^rdma_cm: skipped: $PARENT is a software device" "$T/cm.txt" &&
   grep -q '^verdict: pass' "$T/cm.txt" &&
   [ $rcbad = 2 ] && grep -q 'takes an IPv4 address and its prefix length' "$T/cmbad.out"; then
	ktap_ok kit_cm_skipped "$(grep '^rdma_cm: ' "$T/cm.txt")"
else
	ktap_fail kit_cm_skipped "without -c: $(grep '^rdma_cm' "$T/pass.txt"); -c on $PARENT: exit $rc, $(grep -E '^(rdma_cm|verdict)' "$T/cm.txt" | tr '\n' ' '); a bad -c: exit $rcbad, $(cat "$T/cmbad.out")"
fi

if klog_clean_since "$mark"; then
	ktap_ok klog_clean
else
	ktap_fail klog_clean
fi
ktap_finish
