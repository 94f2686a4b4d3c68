#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check-debug`: the selftest suite on a debug build of a supported
# kernel (Debian's 6.1 by default, or 7.3, the one kernel whose rxe
# carries a tenant's own address and so the RDMA CM proxy's traffic),
# with KASAN, lockdep (PROVE_LOCKING), DEBUG_LIST, UBSAN and kmemleak,
# ending with a kmemleak scan (selftests/module/kmemleak.sh).
#
#   scripts/check-debug.sh [--kernel 6.1|7.3] [--config-only] [--build-only]
#                          [--tests "NAMES"]
#
# Steps, each cached under .cache/debug-kernel/ (6.1) or
# .cache/debug-kernel-7.3/ (git-ignored) and skipped when its result is
# there:
#   1. unpack the kernel's Debian source into src/: 6.1 from this host's
#      /usr/src/linux-source-6.1.tar.xz (package linux-source-6.1; 'make
#      deps' installs it); 7.3 from linux-source-7.3 of trixie-backports,
#      downloaded with the apt of the Debian 13 chroot ('make deps' makes
#      it) and unpacked here, not installed anywhere
#   2. config: Debian's config of that kernel (/boot/config-* for 6.1,
#      /lib/modules/7.3.*/config for 7.3) plus scripts/debug-kernel.config,
#      `make olddefconfig`, then `make localmodconfig` with
#      scripts/debug-kernel.modules as the lsmod output (only the modules
#      the test guest loads are built), then every line of the fragment
#      must have survived (a dependency the fragment misses would silently
#      drop an option: that is an error here)
#   3. build bzImage and modules (see Documentation/security.rst for how
#      long), keyed by the hash of the .config.  Both are built by this
#      host's compiler: Debian 12's gcc 12 for 7.3 too, where Debian builds
#      7.3 with gcc 14 (its source allows gcc 8 and up).  vrdma.ko is
#      built the same way, so the module and its kernel always match.
#   4. install, as the harness expects them for KVER (6.1.x-vrdma-debug,
#      7.3.x-vrdma-debug): /lib/modules/KVER/ (modules_install; 'build'
#      points at the tree) and /boot/vmlinuz-KVER.  The guest shares the
#      host's root, so this is also how it finds the modules.  Needs root.
#   5. build vrdma.ko against the debug tree and run the suite with
#      KDIR=/lib/modules/KVER/build, longer VM_TIMEOUT and
#      VM_TEST_TIMEOUT, and VM_WAIT_SCALE 4 (every wait_for of the tests
#      four times as long): the debug kernel under TCG is several times
#      slower.  VM_PANIC_ON_WARN defaults to 0 here: any report fails
#      the run anyway (selftests/vm/klog-patterns), and a run this long
#      should go on and show every report, not just the first.
#
# --config-only stops after step 2, --build-only after step 4.
# Environment: JOBS (make -j, default nproc), VM_MEM (default 3G),
# VRDMA_CACHE (where the Debian 13 chroot is, default /var/cache/vrdma).

set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
FRAGMENT=$TOP/scripts/debug-kernel.config
MODULES=$TOP/scripts/debug-kernel.modules
TRIXIE=${VRDMA_CACHE:-/var/cache/vrdma}/trixie
JOBS=${JOBS:-$(nproc)}
SERIES=6.1
STOP=
TESTS=

die() { echo "check-debug: $*" >&2; exit 1; }
log() { echo "check-debug: $*"; }

while [ $# -gt 0 ]; do
	case $1 in
	--kernel) [ $# -ge 2 ] || die "--kernel needs a value"; SERIES=$2; shift ;;
	--config-only) STOP=config ;;
	--build-only) STOP=build ;;
	--tests) [ $# -ge 2 ] || die "--tests needs a value"; TESTS=$2; shift ;;
	*) die "unknown argument '$1'" ;;
	esac
	shift
done

case $SERIES in
6.1)
	CACHE=$TOP/.cache/debug-kernel
	TARBALL=/usr/src/linux-source-6.1.tar.xz
	[ -r "$TARBALL" ] || die "$TARBALL missing: apt-get install linux-source-6.1 ('make deps')"
	BASE_CONFIG=/boot/config-$(uname -r)
	[ -r "$BASE_CONFIG" ] ||
		BASE_CONFIG=$(find /boot -maxdepth 1 -name 'config-6.1.*' | sort -V | tail -n 1)
	;;
7.3)
	CACHE=$TOP/.cache/debug-kernel-$SERIES
	TARBALL=$CACHE/deb/usr/src/linux-source-$SERIES.tar.xz
	BASE_CONFIG=$(find /lib/modules -maxdepth 2 -path "/lib/modules/$SERIES.*-amd64/config" |
		      sort -V | tail -n 1)
	;;
*)
	die "no debug kernel for '$SERIES' (6.1 or 7.3)"
	;;
esac
SRC=$CACHE/src
if [ -z "$BASE_CONFIG" ] || [ ! -r "$BASE_CONFIG" ]; then
	die "no Debian config of $SERIES to start from ('make deps' installs the kernel)"
fi

# --- 0. 7.3's source, from the Debian 13 chroot's apt ----------------------
if [ "$SERIES" != 6.1 ] && [ ! -r "$TARBALL" ]; then
	[ -x "$TRIXIE/usr/bin/apt-get" ] || die "no Debian 13 chroot at $TRIXIE ('make deps' makes it)"
	[ "$(id -u)" = 0 ] || die "downloading linux-source-$SERIES in $TRIXIE needs root"
	log "downloading linux-source-$SERIES from trixie-backports"
	rm -rf "$CACHE/deb" "$TRIXIE/var/cache/vrdma-src"
	mkdir -p "$CACHE/deb" "$TRIXIE/var/cache/vrdma-src"
	chroot "$TRIXIE" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8 \
		/usr/bin/env -C /var/cache/vrdma-src apt-get -q \
		-o APT::Sandbox::User=root download "linux-source-$SERIES" \
		> "$CACHE/apt.log" 2>&1 < /dev/null ||
		die "downloading linux-source-$SERIES failed (see $CACHE/apt.log)"
	dpkg-deb -x "$TRIXIE"/var/cache/vrdma-src/linux-source-"$SERIES"_*.deb "$CACHE/deb"
	rm -rf "$TRIXIE/var/cache/vrdma-src"
	[ -r "$TARBALL" ] || die "linux-source-$SERIES has no ${TARBALL#"$CACHE/deb"}"
fi

# --- 1. sources ------------------------------------------------------------
stamp=$CACHE/src.stamp
want=$(stat -c '%s %Y' "$TARBALL")
if [ ! -f "$SRC/Makefile" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
	log "unpacking $TARBALL"
	rm -rf "$SRC" "$stamp"
	mkdir -p "$SRC"
	tar -xaf "$TARBALL" -C "$SRC" --strip-components=1
	echo "$want" > "$stamp"
fi

# --- 2. configuration ------------------------------------------------------
# Merge: the fragment's lines replace Debian's, then olddefconfig resolves.
log "config: $BASE_CONFIG + ${FRAGMENT#"$TOP"/}"
cfg=$(mktemp)
trap 'rm -f "$cfg" "$cfg".*' EXIT
grep -v '^#' "$FRAGMENT" | grep . | sed -E 's/^(CONFIG_[A-Za-z0-9_]+)=.*/\1/' > "$cfg.keys"
grep -vwF -f "$cfg.keys" "$BASE_CONFIG" > "$cfg"
grep -v '^#' "$FRAGMENT" | grep . | sed -E 's/^(CONFIG_[A-Za-z0-9_]+)=n$/# \1 is not set/' >> "$cfg"
rm -f "$cfg.keys"
cp "$cfg" "$SRC/.config"
make -s -C "$SRC" olddefconfig
# Only the modules the guest loads (scripts/debug-kernel.modules): Debian's
# thousands of others would take hours to build and are never used.
grep -v '^#' "$MODULES" | grep . > "$cfg.lsmod"
make -s -C "$SRC" LSMOD="$cfg.lsmod" localmodconfig > "$cfg.err" 2>&1 ||
	{ cat "$cfg.err" >&2; die "make localmodconfig failed"; }
rm -f "$cfg.lsmod" "$cfg.err"

# Every option of the fragment must be what it asked for.
missing=0
while IFS= read -r line; do
	case $line in '#'* | '') continue ;; esac
	key=${line%%=*}
	val=${line#*=}
	if [ "$val" = n ]; then
		if grep -q "^$key=" "$SRC/.config"; then
			echo "check-debug: $key should be off, is $(grep "^$key=" "$SRC/.config")" >&2
			missing=$((missing + 1))
		fi
	elif ! grep -qxF "$key=$val" "$SRC/.config"; then
		echo "check-debug: $key=$val did not survive olddefconfig (now: $(grep "^$key=\|^# $key " "$SRC/.config" || echo absent))" >&2
		missing=$((missing + 1))
	fi
done < "$FRAGMENT"
[ "$missing" = 0 ] || die "$missing option(s) of the fragment lost; fix scripts/debug-kernel.config"
KVER=$(make -s -C "$SRC" kernelrelease)
log "config ok: kernel $KVER"
[ "$STOP" = config ] && exit 0

# --- 3. build ---------------------------------------------------------------
hash=$(sha256sum "$SRC/.config" | cut -c1-16)
if [ "$(cat "$CACHE/build.stamp" 2>/dev/null)" != "$hash" ]; then
	log "building $KVER with $JOBS jobs (this takes hours on a small machine)"
	start=$(date +%s)
	make -C "$SRC" -j"$JOBS" bzImage modules
	echo "$hash" > "$CACHE/build.stamp"
	log "build took $(( $(date +%s) - start )) s" | tee "$CACHE/build.time"
fi

# --- 4. install where the harness looks ----------------------------------
[ "$(id -u)" = 0 ] || die "installing /lib/modules/$KVER and /boot/vmlinuz-$KVER needs root"
if [ "$(cat "/lib/modules/$KVER/.vrdma-debug" 2>/dev/null)" != "$hash" ]; then
	log "installing /lib/modules/$KVER and /boot/vmlinuz-$KVER"
	make -s -C "$SRC" modules_install INSTALL_MOD_STRIP=1
	install -m 0644 "$SRC/arch/x86/boot/bzImage" "/boot/vmlinuz-$KVER"
	install -m 0644 "$SRC/System.map" "/boot/System.map-$KVER"
	echo "$hash" > "/lib/modules/$KVER/.vrdma-debug"
fi
[ "$STOP" = build ] && exit 0

# --- 5. the suite -----------------------------------------------------------
KDIR=/lib/modules/$KVER/build
export KDIR
export VM_MEM=${VM_MEM:-3G}
export VM_TIMEOUT=${VM_TIMEOUT:-14400}
# rdma_cm alone ran past 3600 s on the 7.3 debug kernel
export VM_TEST_TIMEOUT=${VM_TEST_TIMEOUT:-7200}
# every wait_for of the tests (selftests/lib/lib.sh): at make check's
# bounds, 7.3's rdma_cm tests timed out waiting for their listeners
export VM_WAIT_SCALE=${VM_WAIT_SCALE:-4}
export VM_PANIC_ON_WARN=${VM_PANIC_ON_WARN:-0}
make -C "$TOP" modules KDIR="$KDIR"
make -C "$TOP" userlib tools progs
if [ -z "$TESTS" ]; then
	# Every selftest of the manifest, kmemleak's scan last
	TESTS=$(awk '!/^#/ && NF { sub(/.*\//, "", $1)
		if ($1 != "kmemleak") print $1 }' \
		"$TOP/selftests/TESTS" | xargs)
	TESTS="$TESTS kmemleak"
fi
start=$(date +%s)
"$TOP/selftests/vm/run.sh" --tests "$TESTS"
log "suite on $KVER took $(( $(date +%s) - start )) s"
