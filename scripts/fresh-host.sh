#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The README's quick start on a fresh Debian 12 machine, as a new user
# would run it: a throwaway Debian 12 (bookworm) root made by debootstrap,
# this tree's current commit cloned into it, then the README's quick-start
# commands exactly as written there ("make demo", "make check"), as root
# in a chroot of it, each with its exit status and wall time.
#
#   scripts/fresh-host.sh [--keep] [--dir DIR] [--mirror URL] [--run CMD]...
#
#   --keep        leave the root in place for debugging (its mounts go
#                 with this script's mount namespace; the last lines say
#                 how to enter it again)
#   --dir DIR     make the root under DIR (default /var/tmp); it needs
#                 about 15 GB: packages, three kernels, a Debian 13 chroot
#   --mirror URL  the Debian archive (default: the one the host's apt uses)
#   --run CMD     run CMD in the clone instead of the quick start (each
#                 --run adds one, e.g. --run "make bench": the other first
#                 commands a user may type)
#
# Run it before resolving anything that touches the build, the
# dependencies or the README (Documentation/testing.rst): a machine that
# has run deps.sh once can no longer show what a fresh one lacks.  It
# tests what is committed, not the work tree.  Needs root, debootstrap
# (installed with apt when missing) and the Debian archive; about an hour
# on a 2-core host, most of it make check's guests.
#
# The root is what debootstrap makes of Debian 12 (its base system, what
# the installer leaves without tasks) plus make, which the README asks
# for.  The script runs in a mount namespace of its own, so none of its
# mounts reach the host even if it is killed; on any exit it stops what
# still runs in the root, unmounts it and removes it (unless --keep).

set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KEEP=0
DIR=/var/tmp
MIRROR=
RUN_CMDS=()

die() {
	echo "fresh-host: $*" >&2
	exit 1
}

say() {
	echo "fresh-host: $(date -u +%T) $*"
}

usage() {
	sed -n '10,20p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

args=("$@")
while [ $# -gt 0 ]; do
	case $1 in
	--keep) KEEP=1 ;;
	--dir) [ $# -ge 2 ] || usage; DIR=$2; shift ;;
	--mirror) [ $# -ge 2 ] || usage; MIRROR=$2; shift ;;
	--run) { [ $# -ge 2 ] && [ -n "$2" ]; } || usage; RUN_CMDS+=("$2"); shift ;;
	-h|--help) usage ;;
	*) echo "fresh-host: unknown argument '$1'" >&2; usage ;;
	esac
	shift
done

[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap, chroot, mounts)"

# Every mount below is made in a private mount namespace: a kill -9 or a
# crash cannot leave the root's /dev or /proc mounted on the host, and
# unmounting the root cannot propagate to the host's own /dev.
if [ "${VRDMA_FRESH_HOST_NS:-}" != "$$" ]; then
	# the mark is bash's pid, which becomes ours: it is ours only
	# shellcheck disable=SC2016 # the inner shell expands it
	exec unshare -m --propagation private \
		/bin/bash -c 'VRDMA_FRESH_HOST_NS=$$ exec "$0" "$@"' \
		"${BASH_SOURCE[0]}" "${args[@]}"
fi
unset VRDMA_FRESH_HOST_NS

COMMIT=$(git -C "$TOP" rev-parse HEAD)
if [ -n "$(git -C "$TOP" status --porcelain --untracked-files=no)" ]; then
	say "the work tree has uncommitted changes: they are not tested"
fi

# The README's quick start, as committed: the indented lines of the first
# block under "## Quick start"; or what --run gave
WHAT="the README's quick start"
if [ "${#RUN_CMDS[@]}" -gt 0 ]; then
	COMMANDS=("${RUN_CMDS[@]}")
	WHAT="first commands"
else
	mapfile -t COMMANDS < <(git -C "$TOP" show "$COMMIT:README.md" | awk '
		/^## / { if (in_qs) exit; in_qs = ($0 == "## Quick start"); next }
		in_qs && /^    [^ ]/ { sub(/^    /, ""); print; block = 1; next }
		in_qs && block { exit }
	')
	[ "${#COMMANDS[@]}" -gt 0 ] || die "no commands under README.md's \"## Quick start\""
fi

# The host's Debian archive for a suite, as apt knows it (the same mirror
# the host's /etc/apt sources name; it may be the only one reachable)
host_repo() {
	# shellcheck disable=SC2016 # apt expands it
	apt-get indextargets --format '$(RELEASE) $(REPO_URI)' 2>/dev/null |
		awk -v s="$1" '$1 == s { print $2; exit }'
}
if [ -z "$MIRROR" ]; then
	MIRROR=$(host_repo bookworm)
	MIRROR=${MIRROR:-http://deb.debian.org/debian/}
fi
SECURITY=$(host_repo bookworm-security)
SECURITY=${SECURITY:-http://security.debian.org/debian-security/}

if ! command -v debootstrap >/dev/null; then
	say "installing debootstrap"
	DEBIAN_FRONTEND=noninteractive apt-get -q -o Dpkg::Use-Pty=0 \
		install -y --no-install-recommends debootstrap < /dev/null
fi

mkdir -p "$DIR"
# physical, as the kernel gives a process's root (root_pids compares it)
WORK=$(cd "$(mktemp -d "$DIR/vrdma-fresh.XXXXXX")" && pwd -P)
ROOT=$WORK/root

# Processes whose root is the chroot or a chroot in it (kmake.sh's):
# whatever a command left running (a guest, a daemon a package started),
# all started by this script
root_pids() {
	local p r
	for p in /proc/[0-9]*; do
		r=$(readlink "$p/root" 2>/dev/null) || continue
		[ -z "$(printf '%s\n' "$r" | under_root)" ] || echo "${p#/proc/}"
	done
}

under_root() {	# the lines of stdin that are the root or a path in it
	awk -v r="$ROOT" '$0 == r || index($0, r "/") == 1'
}

mounted() {
	[ -n "$(findmnt -rn -o TARGET | under_root)" ]
}

cleanup() {
	local status=$? pids
	trap - EXIT INT TERM
	mapfile -t pids < <(root_pids)
	if [ "${#pids[@]}" -gt 0 ]; then
		say "stopping what still runs in the root: ${pids[*]}"
		kill -TERM "${pids[@]}" 2>/dev/null || true
		sleep 5
		mapfile -t pids < <(root_pids)
		[ "${#pids[@]}" -eq 0 ] || kill -KILL "${pids[@]}" 2>/dev/null || true
	fi
	# deepest first, the root's bind mount of itself last
	if mounted; then
		umount -R "$ROOT" 2>/dev/null || umount -R -l "$ROOT" || true
	fi
	if [ "$KEEP" = 1 ]; then
		say "kept: $ROOT; to enter it: unshare -m --propagation private bash -c 'mount --bind $ROOT $ROOT && mount -t proc proc $ROOT/proc && mount --rbind /sys $ROOT/sys && mount --rbind /dev $ROOT/dev && chroot $ROOT bash -l'"
	elif mounted; then
		say "$ROOT is still mounted: not removed"
	else
		rm -rf --one-file-system "$WORK"
	fi
	exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

say "commit $(git -C "$TOP" log -1 --format='%h %s' "$COMMIT")"
say "debootstrap bookworm from $MIRROR into $ROOT"
start=$(date +%s)
# make: the README's quick start runs it, and says to install it
debootstrap --include=make bookworm "$ROOT" "$MIRROR" > "$WORK/debootstrap.log" 2>&1 || {
	tail -n 20 "$WORK/debootstrap.log" >&2
	die "debootstrap failed (above, the end of $WORK/debootstrap.log)"
}
say "debootstrap took $(($(date +%s) - start)) s"

# What the Debian installer sets up and debootstrap does not: the three
# suites of a Debian 12 system, from the host's mirrors; the host's DNS
rm -f "$ROOT/etc/apt/sources.list"
cat > "$ROOT/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $MIRROR
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: $SECURITY
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
cp -L /etc/resolv.conf "$ROOT/etc/resolv.conf"
# And what a site gives each of its machines: its own CA certificates (a
# proxy that intercepts TLS; ca-certificates, which deps.sh installs with
# nodejs, adds them to the system's bundle) and NODE_EXTRA_CA_CERTS (node
# trusts only its own list, so npm could not reach its registry)
if [ -d /usr/local/share/ca-certificates ]; then
	mkdir -p "$ROOT/usr/local/share/ca-certificates"
	cp -a /usr/local/share/ca-certificates/. "$ROOT/usr/local/share/ca-certificates/"
fi
# Not like a real machine, where systemd runs the services packages
# enable: in a chroot, invoke-rc.d would start docker's or containerd's
# daemon on the host's kernel, outside any unit, and nothing would stop
# it.  The guests never use the host's services.
printf '#!/bin/sh\nexit 101\n' > "$ROOT/usr/sbin/policy-rc.d"
chmod 0755 "$ROOT/usr/sbin/policy-rc.d"

# "/" a mount point, as on a machine (scripts/kmake.sh's private mount
# namespace needs it), then what a running system has mounted: /proc,
# /sys with its cgroup2, /dev with /dev/pts, and a /dev/shm of its own
mount --bind "$ROOT" "$ROOT"
mount -t proc proc "$ROOT/proc"
mount --rbind /sys "$ROOT/sys"
mount --rbind /dev "$ROOT/dev"
mount -t tmpfs -o nosuid,nodev,mode=1777 shm "$ROOT/dev/shm"

say "cloning $COMMIT into /root/vrdma"
git clone -q --no-hardlinks --no-checkout "$TOP" "$ROOT/root/vrdma"
git -C "$ROOT/root/vrdma" checkout -q --detach "$COMMIT"

# A root login's environment, no terminal (deps.sh is made for that)
site_env=()
[ -z "${NODE_EXTRA_CA_CERTS:-}" ] ||
	site_env+=("NODE_EXTRA_CA_CERTS=$NODE_EXTRA_CA_CERTS")
in_root() {
	chroot "$ROOT" /usr/bin/env -i HOME=/root LOGNAME=root USER=root \
		SHELL=/bin/bash LANG=C.UTF-8 TERM=dumb \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		"${site_env[@]}" "$@" < /dev/null
}

results=()
failed=0
for cmd in "${COMMANDS[@]}"; do
	say "running: $cmd"
	start=$(date +%s)
	rc=0
	# shellcheck disable=SC2016 # the chroot's shell expands it
	in_root /bin/bash -c 'cd /root/vrdma && eval "$1"' fresh-host "$cmd" || rc=$?
	secs=$(($(date +%s) - start))
	results+=("$cmd: exit $rc, $secs s ($((secs / 60)) min $((secs % 60)) s)")
	say "${results[-1]}"
	[ "$rc" -eq 0 ] || failed=1
done

say "commit $(git -C "$TOP" rev-parse --short "$COMMIT"), $WHAT on a fresh Debian 12:"
printf 'fresh-host:   %s\n' "${results[@]}"
exit "$failed"
