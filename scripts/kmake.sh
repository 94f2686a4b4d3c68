#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs make on a kernel build tree in the environment that tree needs:
#
#   scripts/kmake.sh KDIR MAKE-ARGUMENT...    make -C KDIR MAKE-ARGUMENT...
#
# The kbuild tools of Debian 13's kernels (7.x from trixie-backports) are
# built against glibc 2.38 and gcc-14 and do not run on Debian 12.
# scripts/deps.sh installs such a kernel's headers in a Debian 13 chroot
# under the cache (VRDMA_CACHE, /var/cache/vrdma) and points
# /lib/modules/REL/build of the host at the tree inside it.  When KDIR
# resolves into a chroot there, make runs inside it, in a private mount
# namespace (nothing stays mounted) with the checkout bind-mounted at the
# same path, so M=, the probes' build/compat/ and the objects are the
# host's.  Any other KDIR: plain make.

set -euo pipefail

[ $# -ge 1 ] || { echo "usage: $0 KDIR MAKE-ARGUMENT..." >&2; exit 2; }
KDIR=$1
shift
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${VRDMA_CACHE:-/var/cache/vrdma}

die() {
	echo "kmake: $*" >&2
	exit 1
}

real=$(readlink -f "$KDIR" 2>/dev/null || true)
cache=$(readlink -f "$CACHE" 2>/dev/null || echo "$CACHE")
case $real in
"$cache"/*/*)
	rest=${real#"$cache"/}
	root=$cache/${rest%%/*}
	;;
*)
	exec make -C "$KDIR" "$@"
	;;
esac

[ -x "$root/usr/bin/make" ] || die "$root is not a build environment; run 'make deps'"
[ "$(id -u)" -eq 0 ] ||
	die "building for $(basename "$(dirname "$KDIR")") runs in the chroot $root: needs root"

# Where modules_install writes must be the host's: INSTALL_MOD_PATH if
# given, else the host's /lib/modules/REL (kbuild installs, then runs
# depmod, under INSTALL_MOD_PATH/lib/modules/REL).
install_to=''
installing=''
for arg in "$@"; do
	case $arg in
	INSTALL_MOD_PATH=?*) install_to=${arg#INSTALL_MOD_PATH=} ;;
	modules_install) installing=1 ;;
	esac
done
if [ -n "$installing" ] && [ -z "$install_to" ]; then
	rel=$(cat "$real/include/config/kernel.release") ||
		die "$real has no kernel release"
	install_to=/lib/modules/$rel
fi

# unshare makes every mount private from "/" down, which needs "/" to be
# a mount point: in a plain chroot it is not, and unshare's own message
# ("cannot change root filesystem propagation") would not say why
mountpoint -q / ||
	die "/ is not a mount point (a plain chroot?): building in $root needs a private mount namespace; bind-mount the root directory onto itself first"

# In the new mount namespace: the checkout at its own path, the install
# directory if any at its own path too, /dev and /proc for the compiler;
# then make as the chroot's, on the chroot's own path of the tree (its
# /lib/modules/REL/build may be hidden by the install directory).
# shellcheck disable=SC2016
exec unshare -m --propagation private bash -c '
	set -e
	root=$1 top=$2 kdir=$3 install_to=$4
	shift 4
	dirs=("$top")
	[ -z "$install_to" ] || dirs+=("$install_to")
	for dir in "${dirs[@]}"; do
		mkdir -p "$dir" "$root$dir"
		mount --bind "$dir" "$root$dir"
	done
	mount --rbind /dev "$root/dev"
	mount -t proc proc "$root/proc"
	# the sparse that parses 7.x headers (deps-trixie.sh), if there
	check=
	[ ! -x "$root/opt/vrdma-sparse/usr/bin/sparse" ] ||
		check=CHECK=/opt/vrdma-sparse/usr/bin/sparse
	exec chroot "$root" /usr/bin/env -C "$top" make -C "$kdir" $check "$@"
' kmake "$root" "$TOP" "${real#"$root"}" "$install_to" "$@"
