#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Installs every Debian 12 package that building vrdma, its selftests (in a
# qemu guest), the demo, the benchmarks and `make style` need.  Idempotent:
# only missing packages are installed, after one `apt-get update`.
#
#   scripts/deps.sh           install what is missing, say what it does
#   scripts/deps.sh --quiet   silent when everything is present
#
# The test VM boots /boot/vmlinuz-$KVER for the kernel the module is built
# against (the default of scripts/kernels.sh: the running kernel's build tree
# if present, else Debian 12's own), so the kernel image of exactly that
# version is installed too; and the other supported kernels' headers and
# images (kernels.sh packages).  Runs as root, without a terminal
# (CI=true, no stdin).
#
# The 7.x kernel (Debian 13's trixie-backports) cannot be built for on
# Debian 12: its kbuild tools need glibc 2.38 and gcc-14.  deps.sh makes
# (once; reused when present) a Debian 13 chroot with that kernel's
# headers, toolchain, sparse and bpftool under $VRDMA_CACHE
# (/var/cache/vrdma/trixie), where scripts/kmake.sh builds; and copies the
# kernel's image and modules (/usr/lib/modules/REL) to the host, whose root
# the test VM boots, with /lib/modules/REL/build pointing into the chroot.

set -euo pipefail

DEPS_NAME=deps
# shellcheck source=scripts/deps-args.sh
. "$(dirname "$0")/deps-args.sh" "$@"

PACKAGES=(
	# build
	build-essential pkg-config clang libclang-rt-14-dev sparse dkms kmod
	linux-headers-amd64 libibverbs-dev libmnl-dev
	# the CNI plugin (tools/cni) parses and writes JSON with json-c
	libjson-c-dev
	# kernel probes: private ib_core prototypes from BTF (conftest.sh)
	bpftool
	# the selftests copy the tree as a clone has it (git ls-files:
	# dkms-prebuild.sh, install.sh); a tree fresh-host.sh cloned from
	# outside has no git of its own
	git
	# the Debian 13 build environment of the 7.x kernel
	debootstrap
	# the test VM and its guest tools (the guest runs the host's root)
	linux-image-amd64 qemu-system-x86 busybox-static cpio xz-utils zstd
	rdma-core ibverbs-utils ibverbs-providers perftest rdmacm-utils
	python3-pyverbs
	iproute2 jq util-linux
	# tenancy.sh: which addresses RoCE packets carry
	tcpdump
	# container runtimes for selftests/runtimes/runtimes.sh (they run
	# only in the guest; the host's services are never started)
	podman docker.io containerd runc containernetworking-plugins
	# style, benchmarks; python3-yaml for scripts/check-manifests.sh;
	# groff-base for the man pages' lint of tools/vrdmactl's make test
	# (which skips it without groff; a minimal Debian has none)
	linux-source-6.1 shellcheck gnuplot-nox python3 linux-perf python3-yaml
	groff-base
	# the mlx5 benchmark counts the client's system calls
	strace
	# make check-debug: building the debug kernel from linux-source-6.1
	flex bison bc libelf-dev libssl-dev
)

# missing PACKAGE... - those not installed, asked of dpkg at once: one
# dpkg-query a package took 10 of the 13 s this script took when nothing
# was missing, on the path of every make check
missing() {
	local have p
	# dpkg-query fails when it knows one of them not at all
	have=$({ dpkg-query -W -f='${db:Status-Status} ${Package}\n' "$@" 2>/dev/null || true; } |
		awk '$1 == "installed" { print $2 }')
	for p in "$@"; do
		grep -qxF "$p" <<< "$have" || echo "$p"
	done
}

UPDATED=0
apt_install() {
	if [ "$(id -u)" -ne 0 ]; then
		echo "deps: missing packages: $*; run as root: $0" >&2
		exit 1
	fi
	echo "deps: installing: $*"
	export DEBIAN_FRONTEND=noninteractive
	local apt=(apt-get -q -o DPkg::Lock::Timeout=1200 -o Dpkg::Use-Pty=0)
	if [ "$UPDATED" = 0 ]; then
		"${apt[@]}" update < /dev/null
		UPDATED=1
	fi
	"${apt[@]}" install -y --no-install-recommends "$@" < /dev/null
}

# The kernel the Makefile builds against by default, and whose image the
# VM boots (scripts/kernels.sh).
kver() {
	"$(dirname "$0")/kernels.sh" release default 2>/dev/null
}

# The other supported kernels (make check runs a core subset on each):
# headers and image, from Debian 12's own archive.
mapfile -t OTHER_KERNELS < <("$(dirname "$0")/kernels.sh" packages)
PACKAGES+=("${OTHER_KERNELS[@]}")

mapfile -t need < <(missing "${PACKAGES[@]}")
if [ "${#need[@]}" -gt 0 ]; then
	apt_install "${need[@]}"
fi

# scripts/check-manifests.sh validates the Kubernetes manifests with two
# npm packages, pinned, under .cache/manifests (git-ignored).  Node.js and
# npm from Debian unless some node is installed already.
if ! command -v npm >/dev/null 2>&1; then
	apt_install nodejs npm
fi
MANIFEST_PKGS=(kubernetes-models@4.5.1 @kubernetes/client-node@0.20.0)
MANIFEST_DIR=$(cd "$(dirname "$0")/.." && pwd)/.cache/manifests
if [ ! -d "$MANIFEST_DIR/node_modules/kubernetes-models" ] ||
   [ ! -d "$MANIFEST_DIR/node_modules/@kubernetes/client-node" ]; then
	say "npm packages for check-manifests: ${MANIFEST_PKGS[*]}"
	mkdir -p "$MANIFEST_DIR"
	npm install --no-save --no-audit --no-fund --loglevel=error \
		--prefix "$MANIFEST_DIR" "${MANIFEST_PKGS[@]}" </dev/null >/dev/null
fi

# The image matching the headers (linux-image-amd64 may lag or lead
# linux-headers-amd64 on a partly upgraded machine).
KVER=$(kver || true)
if [ -z "$KVER" ]; then
	echo "deps: no /lib/modules/*/build after installing linux-headers-amd64" >&2
	exit 1
fi
if [ ! -r "/boot/vmlinuz-$KVER" ]; then
	apt_install "linux-image-$KVER"
fi
if [ ! -r "/boot/vmlinuz-$KVER" ]; then
	echo "deps: /boot/vmlinuz-$KVER still missing" >&2
	exit 1
fi

"$(dirname "$0")/deps-trixie.sh" "$@"

say "all packages present (kernel $KVER)"
