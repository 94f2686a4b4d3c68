#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Installing vrdma with "make install", the way the README tells people to,
# on the guest's writable overlay root (changes vanish at power-off; the
# script still removes what it installed).  selftests/module/dkms.sh does
# the same for "make dkms-install".
#
#   staged    "make && make install", as the README has it: the harness
#             built the tree on the host ("make check" runs "make" there,
#             with this kernel's headers and the same toolchain), and
#             make install DESTDIR=STAGE PREFIX=/usr, run on the host too
#             before the boot (selftests/vm/install-stage.sh; here when
#             the script runs alone, or for a 7.x kernel), must
#             compile nothing (root must not rebuild a user's tree) and
#             install the module, library (shared, static, soname),
#             headers, pkg-config file, tool, man pages, completion, the
#             modprobe.d example and the CNI plugin, and nothing under /etc.
#             The guest's writes to the tree land in its tmpfs overlay,
#             never in the host's checkout
#   install   make install (PREFIX=/usr/local), all but its "modules"
#             step (make -o modules: that step is kbuild's up-to-date
#             check, which "staged" already ran on this tree for this
#             kernel and found nothing to compile; under TCG it takes
#             about 100 s, most of it kbuild's compiler probes): the
#             modules_install, depmod and user-space installs run as root
#             on the guest's system; with the harness's modules unloaded, "modprobe vrdma" loads the installed module and,
#             through depmod, vrdma_vma first; the installed vrdmactl and a
#             program built with "pkg-config --cflags --libs vrdma" talk
#             to it
#   modprobe -r  under a process holding parent queue mappings (netns R,
#             vdevice in_r): "modprobe -r vrdma" removes vrdma, exits 0 and
#             silently leaves vrdma_vma, which the mappings pin; once the
#             process is gone "modprobe -r vrdma_vma" removes it
#   removed   "modprobe -r vrdma" removes both modules; with the files
#             gone, vrdmactl says the module is not loaded
#
# The harness's modules are loaded again at the end.  A build from a
# source copy takes minutes under TCG (dkms.sh has the host do its one).
# Each make's time is printed as a diagnostic.

# shellcheck source=selftests/lib/lib.sh
. "$(dirname "$0")/lib/lib.sh"
# shellcheck source=selftests/lib/build.sh
. "$(dirname "$0")/lib/build.sh"
# shellcheck source=selftests/lib/vdev.sh
. "$(dirname "$0")/lib/vdev.sh"

USERPROG=$TOP/selftests/progs/vrdma_user

ktap_plan staged_install staged_compiles_nothing staged_files_complete \
	staged_nothing_in_etc modprobe_example_parses make_install \
	modprobe_loads_installed installed_vrdmactl_talks pkgconfig_program \
	modprobe_r_in_use installed_files_removed not_loaded_message klog_clean

KVER=$(uname -r)
MARK=$(klog_mark)

if ! require_cmd make cc git depmod modprobe modinfo pkg-config ldconfig jq; then
	ktap_skip_rest "tools missing"
	ktap_finish
fi

cleanup_push ensure_harness_module

tmpdir T
STAGE=$T/stage

# --- staged install --------------------------------------------------------

# The harness runs it on the host before the boot (selftests/vm/
# install-stage.sh, VRDMA_INSTALL_STAGED); run alone, here.
staged_on_host() {
	local rc
	STAGE=$VRDMA_INSTALL_STAGED/stage
	cp "$VRDMA_INSTALL_STAGED/make.log" "$T/staged.log" 2>/dev/null
	rc=$(cat "$VRDMA_INSTALL_STAGED/rc" 2>/dev/null) || rc=missing
	ktap_diag "staged on the host: exit $rc after $(cat "$VRDMA_INSTALL_STAGED/secs" 2>/dev/null) s"
	[ "$rc" = 0 ] || ktap_diag "$(tail -n 25 "$T/staged.log" 2>/dev/null)"
	[ "$rc" = 0 ]
}
if [ -n "${VRDMA_INSTALL_STAGED:-}" ]; then
	ktap_check staged_install staged_on_host
elif run_logged staged make -C "$TOP" -j2 install DESTDIR="$STAGE" PREFIX=/usr; then
	ktap_ok staged_install
else
	ktap_fail staged_install
fi

# compiled LOG - the compile and link lines (kbuild's and ours: "  CC ...")
# of a make's log.
compiled() {
	grep -E '^  (CC|LD|AR)( \[M\])? ' "$1"
}
compiles_nothing() {
	local built
	built=$(compiled "$T/staged.log")
	[ -z "$built" ] && return 0
	ktap_diag "make install rebuilt:" "$built"
	return 1
}
ktap_check staged_compiles_nothing compiles_nothing

# ko_file DIR NAME - the module file NAME in DIR: modules_install
# compresses modules as the kernel's own are (6.12: NAME.ko.xz)
ko_file() {
	local f
	for f in "$1/$2.ko" "$1/$2.ko.xz" "$1/$2.ko.zst" "$1/$2.ko.gz"; do
		if [ -e "$f" ]; then
			echo "$f"
			return 0
		fi
	done
	return 1
}

EXPECTED=(
	usr/lib/libvrdma.so.1.0.0 usr/lib/libvrdma.so.1 usr/lib/libvrdma.so
	usr/lib/libvrdma.a usr/lib/pkgconfig/vrdma.pc
	usr/include/libvrdma.h usr/include/linux/vrdma.h
	usr/sbin/vrdmactl
	usr/share/man/man8/vrdmactl.8 usr/share/man/man8/vrdmactl-dev.8
	usr/share/man/man8/vrdmactl-parent.8 usr/share/man/man8/vrdmactl-monitor.8
	usr/share/bash-completion/completions/vrdmactl
	usr/share/doc/vrdma/vrdma-modprobe.conf.example
	usr/lib/cni/vrdma usr/share/man/man8/vrdma-cni.8
)

staged_complete() {
	local f missing=
	for f in "${EXPECTED[@]}"; do
		[ -e "$STAGE/$f" ] || missing="$missing $f"
	done
	for f in vrdma vrdma_vma; do
		ko_file "$STAGE/lib/modules/$KVER/updates/kmod" "$f" >/dev/null ||
			missing="$missing lib/modules/$KVER/updates/kmod/$f.ko"
	done
	ktap_diag "staged files:" "$(cd "$STAGE" && find . ! -type d | sort)"
	if [ -n "$missing" ]; then
		ktap_diag "missing:$missing"
		return 1
	fi
	# The soname, the links, and a .pc file that carries PREFIX
	objdump -p "$STAGE/usr/lib/libvrdma.so.1.0.0" | grep -q 'SONAME *libvrdma.so.1$' &&
		[ "$(readlink "$STAGE/usr/lib/libvrdma.so.1")" = libvrdma.so.1.0.0 ] &&
		[ "$(readlink "$STAGE/usr/lib/libvrdma.so")" = libvrdma.so.1 ] &&
		grep -qx 'prefix=/usr' "$STAGE/usr/lib/pkgconfig/vrdma.pc" &&
		modinfo -F vermagic "$(ko_file "$STAGE/lib/modules/$KVER/updates/kmod" vrdma)" |
		grep -q "^$KVER "
}
ktap_check staged_files_complete staged_complete

if [ -d "$STAGE" ] && [ ! -e "$STAGE/etc" ]; then
	ktap_ok staged_nothing_in_etc
else
	ktap_fail staged_nothing_in_etc "$(find "$STAGE/etc" 2>&1 | head -5)"
fi

# The example, once copied to /etc/modprobe.d, sets exclusive mode.
example_parses() {
	local ex=$STAGE/usr/share/doc/vrdma/vrdma-modprobe.conf.example
	modprobe -c -C "$ex" | grep -qx 'options ib_core netns_mode=0'
}
ktap_check modprobe_example_parses example_parses

# --- make install, modprobe ------------------------------------------------

# The installed files, as the staged list with PREFIX=/usr/local
INSTALLED=()
for f in "${EXPECTED[@]}"; do
	INSTALLED+=("/${f/#usr\//usr/local/}")
done
for f in vrdma vrdma_vma; do
	for z in "" .xz .zst .gz; do
		INSTALLED+=("/lib/modules/$KVER/updates/kmod/$f.ko$z")
	done
done

remove_installed() {
	rm -f "${INSTALLED[@]}"
	rmdir /usr/local/share/doc/vrdma /usr/local/lib/cni 2>/dev/null
	depmod -a "$KVER"
	ldconfig
}
cleanup_push remove_installed

# "modules" is the step staged_compiles_nothing proved a no-op
if run_logged install make -C "$TOP" -j2 -o modules install; then
	ktap_ok make_install
else
	ktap_fail make_install
fi

# swap_to_modprobe DIR - unload vrdma and vrdma_vma, modprobe vrdma, and
# check that modprobe picks the module files in DIR and loads vrdma_vma
# too (depmod recorded the dependency).
swap_to_modprobe() {
	local path vpath
	path=$(modinfo -n vrdma 2>&1)
	vpath=$(modinfo -n vrdma_vma 2>&1)
	ktap_diag "modinfo -n vrdma: $path; vrdma_vma: $vpath"
	[ "$path" = "$(ko_file "$1" vrdma)" ] &&
		[ "$vpath" = "$(ko_file "$1" vrdma_vma)" ] || return 1
	in_init rmmod vrdma vrdma_vma || return 1
	in_init modprobe vrdma || return 1
	ktap_diag "lsmod: $(lsmod | grep '^vrdma')"
	[ -d /sys/module/vrdma ] && [ -e /sys/module/vrdma_vma/holders/vrdma ] &&
		wait_for 30 sh -c 'genl ctrl get name vrdma 2>/dev/null | grep -q "Name: vrdma"'
}
ktap_check modprobe_loads_installed \
	swap_to_modprobe "/lib/modules/$KVER/updates/kmod"

installed_tool() {
	local out
	out=$(in_init /usr/local/sbin/vrdmactl -V) || return 1
	ktap_diag "$out"
	grep -q "^vrdma module $(cat /sys/module/vrdma/version)\$" <<<"$out" &&
		in_init /usr/local/sbin/vrdmactl -j parent show | jq -e \
			--arg p "$PARENT" 'map(.name) | index($p) != null' >/dev/null
}
ktap_check installed_vrdmactl_talks installed_tool

# A user of the library, built the documented way
pkgconfig_program() {
	local out flags
	cat >"$T/ver.c" <<-'EOF'
	#include <stdio.h>
	#include <libvrdma.h>

	int main(void)
	{
		struct vrdma_handle *h;
		char v[128];

		if (vrdma_open(&h) || vrdma_version(h, v, sizeof(v)))
			return 1;
		printf("%s\n", v);
		vrdma_close(h);
		return 0;
	}
	EOF
	in_init ldconfig
	flags=$(PKG_CONFIG_PATH=/usr/local/lib/pkgconfig pkg-config --cflags --libs vrdma) ||
		return 1
	ktap_diag "pkg-config --cflags --libs vrdma: $flags"
	# shellcheck disable=SC2086  # flags are words
	in_init cc -Wall -Wextra -Werror -o "$T/ver" "$T/ver.c" $flags || return 1
	ldd "$T/ver" | grep -q 'libvrdma.so.1 => /usr/local/lib/libvrdma.so.1' ||
		{ ktap_diag "$(ldd "$T/ver")"; return 1; }
	out=$(in_init "$T/ver") || return 1
	ktap_diag "program says: $out"
	[ "$out" = "$(cat /sys/module/vrdma/version)" ]
}
ktap_check pkgconfig_program pkgconfig_program

# modprobe -r under live mappings: kmod removes vrdma, then each of its
# dependencies whose reference count is 0, silently skipping the others.
modprobe_r_in_use() {
	local ns pid out rc
	new_ns ns r || return 1
	vdev_add in_r "$ns" || return 1
	spawn_in_ns "$ns" "$USERPROG" -d in_r -g "$GIDX" -H traffic >"$T/r.user" 2>&1
	pid=$!
	cleanup_push kill -9 "$pid"
	if ! wait_for 60 grep -q '^ready' "$T/r.user"; then
		ktap_diag "user: $(cat "$T/r.user")"
		kill -9 "$pid"
		return 1
	fi
	out=$(in_init modprobe -r vrdma 2>&1)
	rc=$?
	ktap_diag "modprobe -r vrdma: exit $rc, output '$out'; lsmod: $(lsmod | grep '^vrdma')"
	[ "$rc" = 0 ] && [ -z "$out" ] && [ ! -d /sys/module/vrdma ] || rc=1
	if parent_vm_ops; then
		# The wrapped parent mappings pin vrdma_vma: kmod leaves it
		[ -d /sys/module/vrdma_vma ] &&
			[ "$(cat /sys/module/vrdma_vma/refcnt)" -gt 0 ] || rc=1
	else
		# Nothing is wrapped (7.3's rxe), nothing pins it: kmod removes it
		[ ! -d /sys/module/vrdma_vma ] || rc=1
	fi
	wait_for 60 grep -q '^event DEVICE_FATAL' "$T/r.user" || rc=1
	kill -9 "$pid"
	wait "$pid" 2>/dev/null
	if [ -d /sys/module/vrdma_vma ]; then
		wait_for 30 grep -qx 0 /sys/module/vrdma_vma/refcnt &&
			in_init modprobe -r vrdma_vma || rc=1
	fi
	[ ! -d /sys/module/vrdma_vma ] && in_init modprobe vrdma && [ "$rc" = 0 ]
}
ktap_check modprobe_r_in_use modprobe_r_in_use

installed_removed() {
	in_init modprobe -r vrdma || return 1
	[ ! -d /sys/module/vrdma ] && [ ! -d /sys/module/vrdma_vma ] || return 1
	remove_installed
	! modinfo -n vrdma >/dev/null 2>&1 && ! modinfo -n vrdma_vma >/dev/null 2>&1 &&
		! ldconfig -p | grep -q libvrdma
}
ktap_check installed_files_removed installed_removed

# The message of the troubleshooting guide, word for word
not_loaded() {
	local out
	out=$(in_init "$VRDMACTL" dev show 2>&1)
	ktap_diag "$out"
	[ "$out" = 'vrdmactl: dev show: vrdma module not loaded: no generic netlink family "vrdma" (No such file or directory)' ]
}
ktap_check not_loaded_message not_loaded

# Back to the harness's module before the log check
ensure_harness_module
ktap_check klog_clean klog_clean_since "$MARK"

ktap_finish
