#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The image of selftests/runtimes/k8s_nri.sh, made on the host at build time
# (the test VM boots the host's root, so the same binaries and libraries): a
# "docker save" archive (selftests/lib/image.sh) named IMAGE whose default
# command is "sleep infinity", for "ctr images import".  Under TCG the
# guest takes a minute to make it; the host a few seconds.
#
#   selftests/cri/mkimage.sh TAR IMAGE

set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 TAR IMAGE" >&2; exit 2; }
ktap_diag() {
	echo "mkimage: $*" >&2
}
IMAGE_CMDS="sh ls cat sleep id ibv_devices ibv_devinfo ibv_rc_pingpong"
# shellcheck source=selftests/lib/image.sh
. "$(dirname "$0")/../lib/image.sh"
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
image_rootfs "$d/rootfs"
image_archive "$d/rootfs" "$1.tmp" "$2" sleep infinity
mv "$1.tmp" "$1"
