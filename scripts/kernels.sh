#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Which kernels vrdma builds for and the VM boots: one place for the rule
# the Makefile, scripts/deps.sh and selftests/vm/run.sh share.
#
#   scripts/kernels.sh kdir [NAME]     the build tree of NAME
#   scripts/kernels.sh release [NAME]  the release (directory name) of NAME
#   scripts/kernels.sh image NAME      the kernel image the VM boots for NAME
#   scripts/kernels.sh others          the releases of the supported kernels
#                                      other than the default, one a line
#   scripts/kernels.sh packages        the Debian packages of those kernels
#
# NAME is "default" (the default), a release ("6.12.117+deb12-amd64") or
# the start of one ("6.12", "7.3"): the newest installed build tree whose
# release starts with NAME followed by "." or "-" or "+".
#
# The default is the running kernel when its build tree is installed (a
# real host building for itself), else Debian 12's own kernel: the one
# linux-headers-amd64 depends on.  Never "the newest tree": installing
# 6.12's headers for the multi-kernel suite must not change what a plain
# "make" builds for.  The debug kernel of make check-debug
# (*-vrdma-debug) is used only when named in full.
#
# A subcommand that cannot name every tree or image it is asked for prints
# nothing on stdout, says why on stderr and exits 1: its callers assign
# its output, and a partial or made-up path (once "/lib/modules//build",
# from a failure inside an echo's argument) would pass for an answer.
#
# VRDMA_KERNELS_ROOT, for scripts/tests/kernels.sh only: a directory read
# in place of "/" for lib/modules, usr/lib/modules and boot, so that the
# tests can offer a machine with no trees, or with made-up ones.

set -euo pipefail
# and inside $(...) too: release_of's die must end image_of there
shopt -s inherit_errexit

R=${VRDMA_KERNELS_ROOT:-}

# The supported kernels besides the default, by Debian package: 6.12 from
# bookworm-security (the API level of Debian 13, RHEL 10 and SLES 16).
# And 7.3 from Debian 13's trixie-backports, which scripts/deps-trixie.sh
# installs in its Debian 13 chroot, not from a package of this host.
OTHER_PACKAGES=(linux-headers-6.12-amd64 linux-image-6.12-amd64)
OTHER_NAMES=(6.12 7.3)

die() {
	echo "kernels: $*" >&2
	exit 1
}

trees() {	# every installed build tree's release, oldest first
	local d
	for d in "$R"/lib/modules/*/build; do
		[ -d "$d" ] || continue
		d=${d%/build}
		echo "${d##*/}"
	done | sort -V
}

default_release() {
	local dep
	if [ -d "$R/lib/modules/$(uname -r)/build" ]; then
		uname -r
		return
	fi
	# "linux-headers-6.1.0-56-amd64 (= 6.1.0-56)"
	dep=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 2>/dev/null || true)
	dep=${dep%% *}
	dep=${dep#linux-headers-}
	if [ -n "$dep" ] && [ -d "$R/lib/modules/$dep/build" ]; then
		echo "$dep"
		return
	fi
	trees | grep -v -- '-vrdma-debug$' | head -n 1 || true
}

release_of() {
	local name=${1:-default} rel
	case $name in
	default)
		rel=$(default_release)
		;;
	*)
		if [ -d "$R/lib/modules/$name/build" ]; then
			rel=$name
		else
			rel=$(trees | grep -v -- '-vrdma-debug$' |
			      grep -E "^${name//./\\.}[-.+]" | tail -n 1 || true)
		fi
		;;
	esac
	[ -n "$rel" ] || die "no build tree for kernel '$name' (make deps installs the supported ones)"
	echo "$rel"
}

image_of() {
	local rel f
	rel=$(release_of "$1")
	# Debian 12's and 13's packages: /boot; 7.x: /usr/lib/modules/REL/vmlinuz
	for f in "$R/boot/vmlinuz-$rel" "$R/usr/lib/modules/$rel/vmlinuz"; do
		if [ -r "$f" ]; then
			echo "$f"
			return
		fi
	done
	die "no kernel image of $rel (install linux-image-$rel)"
}

# Each answer is assigned before it is printed: set -e stops the script at
# a failed assignment, not at a failure inside an argument of echo.
case ${1:-} in
kdir)
	rel=$(release_of "${2:-default}")
	echo "$R/lib/modules/$rel/build"
	;;
release)
	rel=$(release_of "${2:-default}")
	echo "$rel"
	;;
image)
	[ $# -eq 2 ] || die "usage: $0 image NAME"
	img=$(image_of "$2")
	echo "$img"
	;;
others)
	# all of them or nothing: a list missing a kernel would silently
	# drop its boot from make check
	def=$(release_of default)
	out=()
	for n in "${OTHER_NAMES[@]}"; do
		rel=$(release_of "$n")
		[ "$rel" = "$def" ] || out+=("$rel")
	done
	[ "${#out[@]}" -eq 0 ] || printf '%s\n' "${out[@]}"
	;;
packages)
	printf '%s\n' "${OTHER_PACKAGES[@]}"
	;;
*)
	sed -n '5,16p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
	exit 2
	;;
esac
