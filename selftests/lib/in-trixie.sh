#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# in-trixie.sh CMD [ARG...] - run CMD in the Debian 13 chroot that
# scripts/deps-trixie.sh makes ($VRDMA_CACHE/trixie), in a mount namespace
# of its own that sees this one's /dev, /sys and /proc.  Under "ip netns
# exec" /sys is the network namespace's own, so libibverbs in the chroot
# finds that namespace's RDMA devices, as in a container whose image
# brings trixie's rdma-core.  The mounts end with CMD.  Exit status: CMD's,
# or 127 if the chroot has no CMD.

set -euo pipefail

ROOT=${VRDMA_CACHE:-/var/cache/vrdma}/trixie
if [ ! -x "$ROOT/usr/bin/$1" ]; then
	echo "in-trixie: no $1 in $ROOT (scripts/deps-trixie.sh installs it)" >&2
	exit 127
fi
# shellcheck disable=SC2016  # expanded by the inner shell
exec unshare --mount --propagation private -- sh -c '
	root=$1
	shift
	mount --rbind /dev "$root/dev" && mount --rbind /sys "$root/sys" &&
		mount -t proc proc "$root/proc" || exit 1
	exec chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"
' in-trixie "$ROOT" "$@"
