#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Registers the vrdma module source with DKMS and builds and installs it, so
# that the module is rebuilt for every kernel installed later.  Run as root
# from the source tree ("make dkms-install" runs it):
#
#   scripts/dkms-install.sh [-k KERNELRELEASE]   add, build, install
#   scripts/dkms-install.sh --remove             unregister every kernel's copy
#
# The module source (Kbuild, kmod/, uapi/, rdmasim's ABI header, the probe
# scripts, VERSION, dkms.conf) is copied to
# /usr/src/vrdma-VERSION; a previous registration of the same version is
# removed first, so the script can be run again after an update.
# KERNELRELEASE defaults to the running kernel.

set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
NAME=vrdma
VERSION=$(cat "$TOP/VERSION")
SRC=/usr/src/$NAME-$VERSION
KVER=$(uname -r)
REMOVE=0

die() {
	echo "dkms-install: $*" >&2
	exit 1
}

while [ $# -gt 0 ]; do
	case $1 in
	-k) [ $# -ge 2 ] || die "-k needs a kernel release"; KVER=$2; shift ;;
	--remove) REMOVE=1 ;;
	*) die "unknown argument '$1' (usage: $0 [-k KERNELRELEASE] | --remove)" ;;
	esac
	shift
done

command -v dkms >/dev/null || die "dkms is not installed (apt-get install dkms)"
[ "$(id -u)" -eq 0 ] || die "must run as root"
conf_version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$TOP/dkms.conf")
[ "$conf_version" = "$VERSION" ] ||
	die "dkms.conf says version '$conf_version', VERSION says '$VERSION'"

# dkms status may also print warnings: look for the module's own line
registered() {
	# grep -c reads to the end: with -q, dkms could die of SIGPIPE and
	# pipefail would read that as "not registered"
	[ "$(dkms status -m "$NAME" -v "$VERSION" 2>/dev/null | grep -c "^$NAME/$VERSION")" -gt 0 ]
}

if registered; then
	echo "dkms-install: removing the registered $NAME/$VERSION first"
	dkms remove -m "$NAME" -v "$VERSION" --all
fi
rm -rf "$SRC"
[ "$REMOVE" = 1 ] && exit 0

[ -d "/lib/modules/$KVER/build" ] ||
	die "no kernel headers for $KVER (apt-get install linux-headers-$KVER)"

mkdir -p "$SRC/kmod" "$SRC/uapi/linux" "$SRC/uapi/rdma" "$SRC/scripts"
install -m 0644 "$TOP/Kbuild" "$TOP/VERSION" "$TOP/dkms.conf" "$SRC/"
install -m 0644 "$TOP/uapi/linux/vrdma.h" "$SRC/uapi/linux/"
# rdmasim's ABI: the methods vrdma forwards to it (kmod/fwd_rdmasim.c)
install -m 0644 "$TOP/uapi/rdma/rdmasim-abi.h" "$SRC/uapi/rdma/"
install -m 0644 "$TOP/kmod/Kbuild" "$SRC/kmod/"
# The kernel feature probes kmod/Kbuild runs before compiling, and the
# Kbuild fragment that runs them
install -m 0755 "$TOP/scripts/conftest.sh" "$TOP/scripts/btf-proto.sh" "$SRC/scripts/"
install -m 0644 "$TOP/scripts/compat.mk" "$SRC/scripts/"
# Sources only: never a build product of the tree (*.mod.c is generated)
find "$TOP/kmod" -maxdepth 1 -type f \( -name '*.h' -o \
	\( -name '*.c' ! -name '*.mod.c' \) \) -exec install -m 0644 {} "$SRC/kmod/" \;

dkms add -m "$NAME" -v "$VERSION"
dkms build -m "$NAME" -v "$VERSION" -k "$KVER"
dkms install -m "$NAME" -v "$VERSION" -k "$KVER"
echo "dkms-install: $NAME/$VERSION installed for $KVER; load it with: modprobe $NAME"
