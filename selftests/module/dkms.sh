#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Registering the module with DKMS, the way the README tells people to.
# The build is the host's half (selftests/vm/dkms-prebuild.sh, run by
# selftests/vm/run.sh before the boot): "make dkms-install KVER=<this
# kernel>" on a clean copy of the tree, at native speed, in a mount
# namespace of its own; the guest's root is the host's, so compiler,
# headers and dkms are the ones this guest has.  Here, on the guest's
# writable overlay root (changes vanish at power-off; the script still
# unregisters what it registered):
#
#   dkms      the host's "make dkms-install" exited 0 and dkms said
#             "installed" there
#   install   with dkms's tree as the host's build left it (source in
#             /usr/src, modules built), "dkms install" here installs them
#             for the running kernel and dkms status says "installed"
#   modprobe  with the harness's modules unloaded, "modprobe vrdma" loads
#             the DKMS-built vrdma_vma and vrdma, which answers on netlink
#   remove    "modprobe -r vrdma" removes both; scripts/dkms-install.sh
#             --remove leaves no trace in dkms, in /usr/src or in
#             /lib/modules
#
# The harness's modules are loaded again at the end.

# shellcheck source=selftests/lib/lib.sh
. "$(dirname "$0")/lib/lib.sh"
# shellcheck source=selftests/lib/build.sh
. "$(dirname "$0")/lib/build.sh"

ktap_plan conf_version_matches dkms_built_on_host dkms_install \
	dkms_status_installed modprobe_loads_dkms vrdmactl_talks \
	dkms_remove klog_clean

KVER=$(uname -r)
MARK=$(klog_mark)

if ! require_cmd tar dkms depmod modprobe modinfo; then
	ktap_skip_rest "tools missing"
	ktap_finish
fi

# A kernel whose headers scripts/deps.sh keeps in a Debian 13 chroot (7.x):
# its kbuild runs only there (scripts/kmake.sh), while dkms, the guest's
# Debian 12 one, runs plain make on /lib/modules/KVER/build.  On Debian 13
# itself dkms and that make are the distribution's; not tested here.
case $(readlink -f "/lib/modules/$KVER/build") in
"$(readlink -f "${VRDMA_CACHE:-/var/cache/vrdma}")"/*)
	ktap_skip_rest "$KVER's build tree is in the harness's Debian 13 chroot; dkms cannot build there"
	ktap_finish
	;;
esac

cleanup_push ensure_harness_module

tmpdir T
PRE=${VRDMA_DKMS_PREBUILT:-}

VERSION=$(cat "$TOP/VERSION")
conf=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$TOP/dkms.conf")
if [ -n "$VERSION" ] && [ "$conf" = "$VERSION" ]; then
	ktap_ok conf_version_matches
else
	ktap_fail conf_version_matches "dkms.conf '$conf', VERSION '$VERSION'"
fi

built_on_host() {
	if [ -z "$PRE" ] || [ ! -f "$PRE/rc" ]; then
		ktap_diag "no build from the host (VRDMA_DKMS_PREBUILT='$PRE'): run this test through selftests/vm/run.sh, as root"
		return 1
	fi
	ktap_diag "host: make dkms-install KVER=$KVER: exit $(cat "$PRE/rc")"
	ktap_diag "host: dkms status: $(cat "$PRE/status")"
	if [ "$(cat "$PRE/rc")" != 0 ]; then
		ktap_diag "$(tail -n 25 "$PRE/make.log")"
		return 1
	fi
	grep -q "^vrdma/$VERSION, $KVER, [^:]*: installed" "$PRE/status"
}
ktap_check dkms_built_on_host built_on_host

# Unregister at exit unless dkms_remove did: every dkms command costs
# seconds under TCG (its status alone about ten).
REMOVED=0
unregister() {
	[ "$REMOVED" = 1 ] || "$TOP/scripts/dkms-install.sh" --remove
}
cleanup_push unregister

# What "dkms add" and "dkms build" left on the host: the source under
# /usr/src and dkms's tree, with the built modules in it.
dkms_install_here() {
	[ -f "$PRE/dkms.tar" ] || return 1
	tar -C / -xpf "$PRE/dkms.tar" || return 1
	run_logged dkms-install dkms install -m vrdma -v "$VERSION" -k "$KVER"
}
ktap_check dkms_install dkms_install_here

dkms_installed() {
	local st
	st=$(dkms status -m vrdma -v "$VERSION" -k "$KVER" 2>&1)
	ktap_diag "dkms status: $st"
	grep -q "^vrdma/$VERSION, $KVER, [^:]*: installed" <<<"$st"
}
ktap_check dkms_status_installed dkms_installed

dkms_modprobe() {
	local path vpath
	if [ -d /sys/module/vrdma ]; then
		in_init rmmod vrdma || return 1
	fi
	if [ -d /sys/module/vrdma_vma ]; then
		in_init rmmod vrdma_vma || return 1
	fi
	in_init modprobe vrdma || return 1
	path=$(modinfo -n vrdma)
	vpath=$(modinfo -n vrdma_vma)
	ktap_diag "modinfo -n vrdma: $path, version $(cat /sys/module/vrdma/version)"
	ktap_diag "modinfo -n vrdma_vma: $vpath, version $(cat /sys/module/vrdma_vma/version)"
	ktap_diag "lsmod: $(lsmod | grep '^vrdma')"
	[[ $path == "/lib/modules/$KVER/updates/dkms/vrdma.ko"* ]] &&
		[[ $vpath == "/lib/modules/$KVER/updates/dkms/vrdma_vma.ko"* ]] &&
		[ "$(cat /sys/module/vrdma/version)" = "$VERSION" ] &&
		[ "$(cat /sys/module/vrdma_vma/version)" = "$VERSION" ] &&
		[ -e /sys/module/vrdma_vma/holders/vrdma ] &&
		wait_for 30 family_present
}
ktap_check modprobe_loads_dkms dkms_modprobe

talks() {
	local out
	out=$(in_init "$VRDMACTL" -V) || return 1
	ktap_diag "$out"
	grep -qx "vrdma module $VERSION" <<<"$out"
}
ktap_check vrdmactl_talks talks

dkms_removed() {
	local st
	in_init modprobe -r vrdma || return 1
	[ ! -d /sys/module/vrdma ] && [ ! -d /sys/module/vrdma_vma ] || return 1
	run_logged dkms-remove "$TOP/scripts/dkms-install.sh" --remove || return 1
	REMOVED=1
	st=$(dkms status -m vrdma 2>"$T/status.err")
	ktap_diag "dkms status after --remove: '$st' (stderr: '$(cat "$T/status.err")')"
	# dkms status may print warnings (the guest's /proc puzzles it): they
	# went to stderr
	! grep -q '^vrdma/' <<<"$st" &&
		[ ! -d "/usr/src/vrdma-$VERSION" ] &&
		! modinfo -n vrdma >/dev/null 2>&1 &&
		! modinfo -n vrdma_vma >/dev/null 2>&1
}
ktap_check dkms_remove dkms_removed

ensure_harness_module
ktap_check klog_clean klog_clean_since "$MARK"

ktap_finish
