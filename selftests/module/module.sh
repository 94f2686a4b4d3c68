#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The modules themselves: vrdma.ko registers the "vrdma" generic netlink
# family and answers the version query with the version it was built with;
# it uses vrdma_vma.ko (parent mappings that outlive vrdma.ko), which can
# therefore neither be missing when vrdma.ko loads nor go while vrdma.ko is
# loaded.  Both can be unloaded and loaded again many times without leaving
# anything behind (family, sysfs, kernel log, parent resources).  Runs in
# init_net only; no vdevice (lifecycle.sh unloads under live mappings).
#
# Leaves vrdma_vma.ko and vrdma.ko loaded for the scripts after it.

# shellcheck source=selftests/lib/lib.sh
. "$(dirname "$0")/lib/lib.sh"

CYCLES=${MODULE_CYCLES:-20}

ktap_plan module_loaded helper_used_by_vrdma helper_unload_refused \
	genl_family_registered sysfs_version_matches_ko \
	vrdmactl_version reload_cycles unload_removes_family \
	loaded_once_after_cycles genl_family_after_cycles \
	vrdma_needs_helper parent_untouched_by_cycles klog_clean_after_cycles

if ! require_cmd genl modinfo insmod rmmod; then
	ktap_skip_rest "tools missing"
	ktap_finish
fi

# If a test below leaves a module out, put it back for the other scripts.
cleanup_push load_modules

if [ -d /sys/module/vrdma ] && lsmod | grep -q '^vrdma ' &&
   [ -d /sys/module/vrdma_vma ]; then
	ktap_ok module_loaded
else
	ktap_fail module_loaded "vrdma or vrdma_vma is not loaded (guest setup should have loaded $VRDMA_VMA_KO and $VRDMA_KO)"
fi

# vrdma.ko resolved vrdma_vma.ko's symbols: the kernel records the use,
# which holds a reference on vrdma_vma.
ktap_diag "lsmod: $(lsmod | grep '^vrdma')"
if [ -e /sys/module/vrdma_vma/holders/vrdma ] &&
   [ "$(cat /sys/module/vrdma_vma/refcnt)" -ge 1 ] &&
   modinfo -F depends "$VRDMA_KO" | tr ',' '\n' | grep -qx vrdma_vma; then
	ktap_ok helper_used_by_vrdma
else
	ktap_fail helper_used_by_vrdma "holders: $(ls /sys/module/vrdma_vma/holders 2>&1), depends: $(modinfo -F depends "$VRDMA_KO")"
fi

refused helper_unload_refused 'in use' in_init rmmod vrdma_vma

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
# gone; after each insmod, back.  Odd cycles unload vrdma_vma too.
RES_BEFORE=$(parent_res)
MARK=$(klog_mark)
cycle_err=
gone_err=
ktap_diag "[init] $CYCLES x { rmmod vrdma [vrdma_vma]; [insmod $VRDMA_VMA_KO;] insmod $VRDMA_KO }"
for i in $(seq "$CYCLES"); do
	both=$((i % 2))
	if ! rmmod vrdma 2>"/tmp/module.$$.err" ||
	   { [ "$both" = 1 ] && ! rmmod vrdma_vma 2>"/tmp/module.$$.err"; }; then
		cycle_err="rmmod failed in cycle $i: $(cat "/tmp/module.$$.err")"
		break
	fi
	if [ -z "$gone_err" ] && { [ -d /sys/module/vrdma ] || family_present ||
	   { [ "$both" = 1 ] && [ -d /sys/module/vrdma_vma ]; }; }; then
		gone_err="cycle $i: family, /sys/module/vrdma or /sys/module/vrdma_vma still there after rmmod"
	fi
	if { [ "$both" = 1 ] && ! insmod "$VRDMA_VMA_KO" 2>"/tmp/module.$$.err"; } ||
	   ! insmod "$VRDMA_KO" 2>"/tmp/module.$$.err"; then
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
if [ "$n" -eq 1 ] && [ -d /sys/module/vrdma ] && [ -d /sys/module/vrdma_vma ] &&
   [ "$(find /sys/module -maxdepth 1 -name 'vrdma*' | wc -l)" -eq 2 ] &&
   [ "$(cat /sys/module/vrdma_vma/refcnt)" = 1 ]; then
	ktap_ok loaded_once_after_cycles
else
	ktap_fail loaded_once_after_cycles "lsmod lists vrdma $n times; $(find /sys/module -maxdepth 1 -name 'vrdma*'); vrdma_vma refcnt $(cat /sys/module/vrdma_vma/refcnt 2>&1)"
fi

ktap_check genl_family_after_cycles family_present

# Without vrdma_vma.ko, vrdma.ko cannot load: insmod does not resolve
# dependencies (modprobe does, through depmod; see install.sh and dkms.sh).
needs_helper() {
	in_init rmmod vrdma vrdma_vma || return 1
	if out=$(in_init insmod "$VRDMA_KO" 2>&1); then
		ktap_diag "insmod without vrdma_vma succeeded"
		return 1
	fi
	ktap_diag "$out"
	[ ! -d /sys/module/vrdma ] && load_modules && family_present
}
ktap_check vrdma_needs_helper needs_helper

RES_AFTER=$(parent_res)
if [ "$RES_AFTER" = "$RES_BEFORE" ]; then
	ktap_ok parent_untouched_by_cycles
else
	ktap_fail parent_untouched_by_cycles "$PARENT before: $RES_BEFORE after: $RES_AFTER"
fi

ktap_check klog_clean_after_cycles klog_clean_since "$MARK"

ktap_finish
