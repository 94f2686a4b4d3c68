#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The container image of selftests/runtimes/runtimes.sh and cdi_podman.sh
# (selftests/lib/image.sh: a shell, a few coreutils, the ibverbs utilities,
# their libraries and the rxe provider), made here before the boot: the
# guest's root is the host's, so the binaries and libraries are the ones
# the guest would copy, and the host takes a second where the guest under
# TCG took about 50 s for each test.  The tests import it with podman
# import and docker import (image_get, lib/image.sh).
#
#   selftests/vm/image-prebuild.sh OUT
#
# writes OUT/image.tar, OUT/recipe (the commands and providers it holds,
# which the tests check against theirs) and OUT/secs (its wall time).

set -euo pipefail

[ $# -eq 1 ] || { echo "usage: $0 OUT" >&2; exit 2; }
OUT=$1

ktap_diag() {
	echo "image-prebuild: $*" >&2
}
# lib/image.sh's defaults, what the tests use
unset IMAGE_CMDS IMAGE_PROVIDERS
# shellcheck source=selftests/lib/image.sh
. "$(dirname "$0")/../lib/image.sh"

rm -rf "$OUT"
mkdir -p "$OUT"
t0=$EPOCHREALTIME
image_rootfs "$OUT/rootfs"
image_tar "$OUT/rootfs" "$OUT/image.tar.tmp"
mv "$OUT/image.tar.tmp" "$OUT/image.tar"
rm -rf "$OUT/rootfs"
echo "$IMAGE_CMDS;$IMAGE_PROVIDERS" > "$OUT/recipe"
awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f\n", b - a }' > "$OUT/secs"
