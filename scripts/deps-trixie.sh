#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The build environment of the 7.x kernel (scripts/deps.sh runs this):
#
#   scripts/deps-trixie.sh [--quiet]
#
# 1. A Debian 13 (trixie) chroot, $VRDMA_CACHE/trixie (default
#    /var/cache/vrdma/trixie), made by debootstrap once and reused: gcc-14,
#    make, libelf, sparse, bpftool, kmod, python3, xz, zstd.
# 2. In it, from trixie-backports, the newest 7.3.x amd64 kernel: headers
#    (with linux-kbuild), image (linux-binary) and modules; apt in the
#    chroot checks the archive's signatures.
# 3. sparse for "make sparse": 7.x headers use __typeof_unqual__, which
#    trixie's sparse 0.6.4 cannot parse and unstable's 0.6.5 can; its
#    binary (checked by apt from sid, never installed as a package: it
#    would pull gcc-16) is unpacked to /opt/vrdma-sparse in the chroot,
#    and scripts/kmake.sh passes it as CHECK.  The kernel's Makefile asks
#    scripts/checker-valid.sh whether the checker is fit; Debian's
#    linux-kbuild lacks that script, so one that asks the same question
#    is added.
# 4. Go and the NRI and CRI libraries (GOPATH /usr/share/gocode), for
#    tools/nri and selftests/cri (scripts/gobuild.sh builds them here,
#    static), and containerd 1.7 with NRI and CDI for
#    selftests/runtimes/k8s_nri.sh, which runs it from the chroot's files
#    (it needs glibc 2.34 only).  perftest 25.01 with trixie's rdma-core,
#    for selftests/cm/rdma_cm.sh, which runs it in the chroot: its
#    ib_send_bw -R server binds to an address (--bind_source_ip), where
#    bookworm's 4.5 always listens on every address.
# 5. On the host, whose root the test VM boots: a copy of the chroot's
#    /usr/lib/modules/REL (vmlinuz, config, modules, modules.dep) and
#    /lib/modules/REL/build pointing at the headers inside the chroot,
#    so that scripts/kernels.sh finds the kernel like any other and
#    scripts/kmake.sh builds for it in the chroot.
#
# Idempotent and silent (with --quiet) when everything is in place.  Needs
# root and the Debian archive (deb.debian.org, or $VRDMA_MIRROR).

set -euo pipefail

DEPS_NAME=deps-trixie
# shellcheck source=scripts/deps-args.sh
. "$(dirname "$0")/deps-args.sh" "$@"

CACHE=${VRDMA_CACHE:-/var/cache/vrdma}
ROOT=$CACHE/trixie
MIRROR=${VRDMA_MIRROR:-http://deb.debian.org/debian}
# The kernel series to follow (the newest release of it in backports)
SERIES=7.3
FLAVOUR=amd64
TOOLS=build-essential,libelf-dev,bpftool,kmod,sparse,python3,xz-utils,zstd,ca-certificates
# Step 4's packages, and what shows that they are in
STEP4_PKGS="golang-go golang-github-containerd-nri-dev golang-github-kubernetes-cri-api-dev"
STEP4_PKGS+=" containerd perftest"
STEP4_READY="usr/bin/go usr/share/gocode/src/github.com/containerd/nri/pkg/stub
usr/share/gocode/src/k8s.io/cri-api/pkg/apis/runtime/v1 usr/bin/containerd usr/bin/ib_send_bw"

die() {
	echo "deps-trixie: $*" >&2
	exit 1
}

in_root() {
	chroot "$ROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 "$@" < /dev/null
}

apt_root() {
	in_root apt-get -q -o Dpkg::Use-Pty=0 -o APT::Sandbox::User=root "$@"
}

# The release of the newest installed SERIES kernel with headers, image
# and modules in the chroot, or nothing
installed_release() {
	local d rel
	for d in "$ROOT"/usr/lib/modules/"$SERIES".*-"$FLAVOUR"; do
		[ -d "$d" ] || continue
		rel=${d##*/}
		[ -r "$d/vmlinuz" ] && [ -r "$d/modules.dep" ] &&
			[ -d "$ROOT/usr/src/linux-headers-$rel" ] &&
			echo "$rel"
	done | sort -V | tail -n 1
}

step4_ready() {
	local p
	for p in $STEP4_READY; do
		[ -e "$ROOT/$p" ] || return 1
	done
}

SPARSE=/opt/vrdma-sparse/usr/bin/sparse
rel=$(installed_release)
if [ -n "$rel" ] && [ -x "$ROOT$SPARSE" ] && step4_ready &&
   [ -r "/usr/lib/modules/$rel/modules.dep" ] &&
   [ -r "/usr/lib/modules/$rel/vmlinuz" ] &&
   [ "$(readlink "/usr/lib/modules/$rel/build")" = "$ROOT/usr/src/linux-headers-$rel" ]; then
	say "kernel $rel ready ($ROOT)"
	exit 0
fi

[ "$(id -u)" -eq 0 ] || die "the $SERIES kernel's build environment is missing; run as root: $0"
command -v debootstrap >/dev/null || die "debootstrap is not installed"

# 1. The chroot: made aside and renamed, so that an interrupted run leaves
# nothing that looks complete
if [ ! -x "$ROOT/usr/bin/make" ]; then
	say "debootstrap Debian 13 into $ROOT"
	mkdir -p "$CACHE"
	rm -rf "$ROOT.tmp"
	debootstrap --variant=minbase --include="$TOOLS" --components=main \
		trixie "$ROOT.tmp" "$MIRROR" > "$CACHE/debootstrap.log" 2>&1 ||
		die "debootstrap failed (see $CACHE/debootstrap.log)"
	rm -rf "$ROOT"
	mv "$ROOT.tmp" "$ROOT"
fi

# 2. The kernel from trixie-backports
cat > "$ROOT/etc/apt/sources.list.d/vrdma.sources" <<EOF
Types: deb
URIs: $MIRROR
Suites: trixie trixie-updates trixie-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

# sid: for sparse only (step 3), never a candidate; its Release file
# may be older than apt's validity window on a frozen mirror
Types: deb
URIs: $MIRROR
Suites: sid
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
Check-Valid-Until: no
EOF
printf 'Package: *\nPin: release n=sid\nPin-Priority: -1\n' \
	> "$ROOT/etc/apt/preferences.d/vrdma-sid"
rm -f "$ROOT/etc/apt/sources.list"
say "apt-get update in $ROOT"
apt_root update > /dev/null
rel=$(in_root apt-cache search --names-only \
	"^linux-headers-${SERIES//./\\.}\\.[0-9]+\\+deb13-$FLAVOUR\$" |
	sed 's/^linux-headers-\([^ ]*\) .*/\1/' | sort -V | tail -n 1)
[ -n "$rel" ] || die "no linux-headers-$SERIES.*-$FLAVOUR in trixie-backports"
say "installing kernel $rel in $ROOT"
apt_root install -y --no-install-recommends -t trixie-backports \
	"linux-headers-$rel" "linux-binary-$rel" "linux-modules-$rel" > "$CACHE/apt.log" 2>&1 ||
	die "installing the $rel packages failed (see $CACHE/apt.log)"
[ "$(installed_release)" = "$rel" ] || die "kernel $rel incomplete in $ROOT"

# 3. sparse from sid, and the checker test Debian's kbuild lacks
if [ ! -x "$ROOT$SPARSE" ]; then
	say "sparse from sid into $ROOT/opt/vrdma-sparse"
	rm -rf "$ROOT/var/cache/vrdma-dl" "$ROOT/opt/vrdma-sparse"
	mkdir -p "$ROOT/var/cache/vrdma-dl"
	in_root /usr/bin/env -C /var/cache/vrdma-dl apt-get -q \
		-o APT::Sandbox::User=root download sparse/sid > "$CACHE/apt.log" 2>&1 ||
		die "downloading sparse from sid failed (see $CACHE/apt.log)"
	in_root sh -c 'dpkg -x /var/cache/vrdma-dl/sparse_*.deb /opt/vrdma-sparse'
	rm -rf "$ROOT/var/cache/vrdma-dl"
fi
[ -x "$ROOT$SPARSE" ] || die "no sparse in $ROOT/opt/vrdma-sparse"
valid=$ROOT/usr/lib/linux-kbuild-${rel%-"$FLAVOUR"}/scripts/checker-valid.sh
if [ -d "${valid%/*}" ] && [ ! -e "$valid" ]; then
	cat > "$valid" <<'VALID'
#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Added by vrdma's scripts/deps-trixie.sh: Debian's linux-kbuild lacks the
# kernel's own.  Prints 1 if the checker ("$@") parses __typeof_unqual__,
# which the kernel's headers use, else 0.
t=$(mktemp --suffix=.c) || exit 1
trap 'rm -f "$t"' EXIT
echo 'int f(void); int f(void) { const int x = 1; __typeof_unqual__(x) y = x; return y; }' > "$t"
if "$@" "$t" 2>&1 | grep -q 'error:'; then echo 0; else echo 1; fi
VALID
	chmod 0755 "$valid"
fi

# 4. Go, the NRI and CRI libraries, containerd, perftest
if ! step4_ready; then
	say "installing $STEP4_PKGS in $ROOT"
	# shellcheck disable=SC2086  # a list of names
	apt_root install -y --no-install-recommends $STEP4_PKGS > "$CACHE/apt.log" 2>&1 ||
		die "installing $STEP4_PKGS failed (see $CACHE/apt.log)"
	step4_ready || die "$STEP4_PKGS incomplete in $ROOT"
fi

# 5. The host's copy, for the VM; the build tree stays in the chroot.
# Replaced only when it differs: a VM may be reading it.
if [ -r "/usr/lib/modules/$rel/modules.dep" ] &&
   cmp -s "$ROOT/usr/lib/modules/$rel/vmlinuz" "/usr/lib/modules/$rel/vmlinuz" &&
   cmp -s "$ROOT/usr/lib/modules/$rel/modules.dep" "/usr/lib/modules/$rel/modules.dep" &&
   [ "$(readlink "/usr/lib/modules/$rel/build")" = "$ROOT/usr/src/linux-headers-$rel" ]; then
	say "kernel $rel ready ($ROOT)"
	exit 0
fi
say "copying /usr/lib/modules/$rel to the host"
rm -rf "/usr/lib/modules/$rel.tmp"
mkdir -p "/usr/lib/modules/$rel.tmp"
(cd "$ROOT/usr/lib/modules/$rel" && tar --exclude=./build -cf - .) |
	tar -C "/usr/lib/modules/$rel.tmp" -xf -
ln -sfn "$ROOT/usr/src/linux-headers-$rel" "/usr/lib/modules/$rel.tmp/build"
rm -rf "/usr/lib/modules/$rel"
mv "/usr/lib/modules/$rel.tmp" "/usr/lib/modules/$rel"
say "kernel $rel ready ($ROOT)"
