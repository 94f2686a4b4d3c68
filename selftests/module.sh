#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The module itself: it registers the "vrdma" generic netlink family, answers
# the version query with the version it was built with, and can be unloaded
# and loaded again many times without leaving anything behind (family,
# sysfs, kernel log, parent resources).  Runs in init_net only; no vdevice.
#
# Leaves vrdma.ko loaded for the scripts after it.

# shellcheck source=selftests/lib.sh
. "$(dirname "$0")/lib.sh"

CYCLES=${MODULE_CYCLES:-20}

ktap_plan module_loaded genl_family_registered sysfs_version_matches_ko \
	vrdmactl_version reload_cycles unload_removes_family \
	loaded_once_after_cycles genl_family_after_cycles \
	parent_untouched_by_cycles klog_clean_after_cycles

if ! require_cmd genl modinfo insmod rmmod; then
	ktap_skip_rest "tools missing"
	ktap_finish
fi

family_present() {
	genl ctrl get name vrdma 2>/dev/null | grep -q 'Name: vrdma'
}

# If a test below leaves the module out, put it back for the other scripts.
ensure_loaded() {
	[ -d /sys/module/vrdma ] || insmod "$VRDMA_KO"
}
cleanup_push ensure_loaded

if [ -d /sys/module/vrdma ] && lsmod | grep -q '^vrdma '; then
	ktap_ok module_loaded
else
	ktap_fail module_loaded "vrdma is not loaded (guest setup should have loaded $VRDMA_KO)"
fi

if out=$(in_init genl ctrl get name vrdma) && grep -q 'Name: vrdma' <<< "$out"; then
	ktap_ok genl_family_registered "$out"
else
	ktap_fail genl_family_registered "genl ctrl get name vrdma: $out"
fi

KO_VERSION=$(modinfo -F version "$VRDMA_KO")
SYS_VERSION=$(cat /sys/module/vrdma/version 2>/dev/null)
ktap_diag "version: $VRDMA_KO says '$KO_VERSION', /sys/module/vrdma/version says '$SYS_VERSION'"
if [ -n "$SYS_VERSION" ] && [ "$SYS_VERSION" = "$KO_VERSION" ]; then
	ktap_ok sysfs_version_matches_ko
else
	ktap_fail sysfs_version_matches_ko "loaded '$SYS_VERSION', built '$KO_VERSION'"
fi

# vrdmactl -V: the tool's own version and the loaded module's, the latter
# obtained over netlink (VRDMA_CMD_VERSION_GET).
if ! have_vrdmactl; then
	ktap_skip vrdmactl_version "vrdmactl not built yet"
elif ! out=$(in_init "$VRDMACTL" -V 2>&1); then
	ktap_fail vrdmactl_version "vrdmactl -V failed: $out"
else
	ktap_diag "vrdmactl -V: $out"
	# One line for the module (its version as a word), one for the tool.
	mod_line=$(grep -i 'module' <<< "$out" | grep -wF -- "$SYS_VERSION")
	tool_line=$(grep -iv 'module' <<< "$out" | grep -E '[0-9]+\.[0-9]+')
	if [ -z "$SYS_VERSION" ] || [ -z "$mod_line" ]; then
		ktap_fail vrdmactl_version "no module line with version '$SYS_VERSION'"
	elif [ -z "$tool_line" ]; then
		ktap_fail vrdmactl_version "no line with the tool's own version"
	else
		ktap_ok vrdmactl_version
	fi
fi

# Reload cycles.  After each rmmod the family and sysfs directory must be
# gone; after each insmod, back.
RES_BEFORE=$(parent_res)
MARK=$(klog_mark)
cycle_err=
gone_err=
ktap_diag "[init] $CYCLES x { rmmod vrdma; insmod $VRDMA_KO }"
for i in $(seq "$CYCLES"); do
	if ! rmmod vrdma 2>"/tmp/module.$$.err"; then
		cycle_err="rmmod failed in cycle $i: $(cat "/tmp/module.$$.err")"
		break
	fi
	if [ -z "$gone_err" ] && { [ -d /sys/module/vrdma ] || family_present; }; then
		gone_err="cycle $i: family or /sys/module/vrdma still there after rmmod"
	fi
	if ! insmod "$VRDMA_KO" 2>"/tmp/module.$$.err"; then
		cycle_err="insmod failed in cycle $i: $(cat "/tmp/module.$$.err")"
		break
	fi
	if ! family_present; then
		cycle_err="cycle $i: no genl family after insmod"
		break
	fi
done
rm -f "/tmp/module.$$.err"
if [ -z "$cycle_err" ]; then
	ktap_ok reload_cycles "$CYCLES rmmod/insmod cycles"
else
	ktap_fail reload_cycles "$cycle_err"
fi
if [ -z "$gone_err" ] && [ -z "$cycle_err" ]; then
	ktap_ok unload_removes_family
elif [ -n "$gone_err" ]; then
	ktap_fail unload_removes_family "$gone_err"
else
	ktap_fail unload_removes_family "cycles did not complete"
fi

n=$(lsmod | grep -c '^vrdma ')
if [ "$n" -eq 1 ] && [ -d /sys/module/vrdma ] &&
   [ "$(find /sys/module -maxdepth 1 -name 'vrdma*' | wc -l)" -eq 1 ]; then
	ktap_ok loaded_once_after_cycles
else
	ktap_fail loaded_once_after_cycles "lsmod lists vrdma $n times"
fi

ktap_check genl_family_after_cycles family_present

RES_AFTER=$(parent_res)
if [ "$RES_AFTER" = "$RES_BEFORE" ]; then
	ktap_ok parent_untouched_by_cycles
else
	ktap_fail parent_untouched_by_cycles "$PARENT before: $RES_BEFORE after: $RES_AFTER"
fi

ktap_check klog_clean_after_cycles klog_clean_since "$MARK"

ktap_finish
