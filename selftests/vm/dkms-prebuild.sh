#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The host's half of selftests/module/dkms.sh: "make dkms-install KVER=KVER"
# on a clean copy of the tree, run here at native speed instead of in the guest
# under TCG (fourteen minutes there).  It runs in a private mount namespace
# where /usr/src, /var/lib/dkms and /lib/modules/KVER are overlays on
# throwaway directories, so the host's own dkms state is never touched.
# The guest's root is the host's root (selftests/vm/run.sh), so the
# compiler, the headers and dkms are the very ones the guest would use.
#
#   selftests/vm/dkms-prebuild.sh TOP KVER OUT
#
# writes OUT/rc (make's exit status), OUT/make.log (its output, then dkms's
# own make.log), OUT/status ("dkms status" afterwards) and OUT/dkms.tar
# (/usr/src/vrdma-VERSION and /var/lib/dkms/vrdma as "dkms build" left
# them: without the kernel-KVER-ARCH link by which "dkms install" marks the
# modules installed).  The guest unpacks that and goes on from "dkms
# install".
# Needs root (the mount namespace); exits non-zero only if it could not
# run make at all.

set -euo pipefail

[ $# -eq 3 ] || { echo "usage: $0 TOP KVER OUT" >&2; exit 2; }
TOP=$1
KVER=$2
OUT=$3

die() {
	echo "dkms-prebuild: $*" >&2
	exit 1
}

[ "$(id -u)" -eq 0 ] || die "needs root (a private mount namespace)"
command -v dkms >/dev/null || die "dkms is not installed; run 'make deps'"
[ -d "/lib/modules/$KVER/build" ] || die "no kernel build tree for $KVER"

rm -rf "$OUT"
mkdir -p "$OUT"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/vrdma-dkms.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# The source as a user's clone has it: tracked files and new ones, no
# build output.
mkdir "$WORK/src"
git -c safe.directory='*' -C "$TOP" ls-files -z -co --exclude-standard |
	(cd "$TOP" && cpio -0 -pdm --quiet "$WORK/src")
VERSION=$(cat "$WORK/src/VERSION")

# shellcheck disable=SC2016 # expanded by the inner shell
unshare -m --propagation private bash -c '
	set -u
	work=$1 kver=$2 out=$3 version=$4
	for dir in /usr/src /var/lib/dkms "/lib/modules/$kver"; do
		mkdir -p "$dir" "$work/upper$dir" "$work/ovl$dir"
		mount -t overlay overlay -o "lowerdir=$dir,upperdir=$work/upper$dir,workdir=$work/ovl$dir" "$dir" ||
			exit 1
	done
	rc=0
	make -C "$work/src" dkms-install KVER="$kver" > "$out/make.log" 2>&1 || rc=$?
	echo "$rc" > "$out/rc"
	if [ "$rc" -ne 0 ]; then
		echo "--- dkms make.log:" >> "$out/make.log"
		cat /var/lib/dkms/vrdma/*/build/make.log >> "$out/make.log" 2>&1
	fi
	dkms status -m vrdma > "$out/status" 2>&1
	tar -C / --exclude="var/lib/dkms/vrdma/kernel-*" -cf "$out/dkms.tar" \
		"usr/src/vrdma-$version" var/lib/dkms/vrdma 2>> "$out/make.log"
	exit 0
' dkms-prebuild "$WORK" "$KVER" "$OUT" "$VERSION" ||
	die "could not set up the mount namespace"
