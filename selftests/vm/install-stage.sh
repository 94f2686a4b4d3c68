#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The host's half of selftests/module/install.sh: its staged "make install",
#
#   make -C TOP -j2 install DESTDIR=OUT/stage PREFIX=/usr KDIR=...
#
# run here at native speed on the tree "make check" built, instead of in
# the guest under TCG, where kbuild's walk over the tree took more than a
# minute.  DESTDIR keeps every file it installs under OUT/stage; the
# guest's root is the host's, so the tree, the toolchain and the kernel's
# build tree are the ones the guest would use.  The guest checks what it
# left (install.sh) and runs the real "make install" itself.
#
#   selftests/vm/install-stage.sh TOP KVER OUT
#
# writes OUT/rc (make's exit status), OUT/make.log (its output) and
# OUT/secs (its wall time).  Exits non-zero only if it could not run make.

set -euo pipefail

[ $# -eq 3 ] || { echo "usage: $0 TOP KVER OUT" >&2; exit 2; }
TOP=$1
KVER=$2
OUT=$3

[ -d "/lib/modules/$KVER/build" ] ||
	{ echo "install-stage: no kernel build tree for $KVER" >&2; exit 1; }

rm -rf "$OUT"
mkdir -p "$OUT"
t0=$EPOCHREALTIME
rc=0
make -C "$TOP" -j2 install DESTDIR="$OUT/stage" PREFIX=/usr \
	KDIR="/lib/modules/$KVER/build" > "$OUT/make.log" 2>&1 || rc=$?
echo "$rc" > "$OUT/rc"
awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f\n", b - a }' > "$OUT/secs"
