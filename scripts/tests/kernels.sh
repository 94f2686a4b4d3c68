#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host unit tests of scripts/kernels.sh and of the Makefile's use of it,
# on made-up machines: a root with no build tree at all (a fresh machine
# before scripts/deps.sh), then trees and images added one at a time.
# Every subcommand that cannot name what it is asked for must print
# nothing on stdout and exit non-zero: its callers take stdout as the
# answer ("/lib/modules//build" once passed for a tree).  And a plain
# "make" with no tree says in one line what to run.
#
#   scripts/tests/kernels.sh        (make check runs it on the host)
#
# VRDMA_KERNELS_ROOT points kernels.sh at the made-up root.  The releases
# are ones no real machine has, so neither the running kernel nor
# linux-headers-amd64's dependency can be among them.

set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
K=$TOP/scripts/kernels.sh
R=$(mktemp -d)
trap 'rm -rf "$R" "$R.out" "$R.err" "$R.fresh" "$R.mk"' EXIT
export VRDMA_KERNELS_ROOT=$R

V61=6.1.0-990-amd64
V612=6.12.990+deb12-amd64
V73=7.3.990+deb13-amd64
DEBUG=6.1.0-990-vrdma-debug

passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok   $1"; }
bad() {
	failed=$((failed + 1)); echo "FAIL $1: $2"
	sed 's/^/     stdout: /' "$R.out"
	sed 's/^/     stderr: /' "$R.err"
}

# fails DESC ARG... - kernels.sh ARG... exits 1, prints nothing on stdout
# and says why on stderr
fails() {
	local desc=$1 status=0
	shift
	"$K" "$@" > "$R.out" 2> "$R.err" || status=$?
	if [ "$status" != 1 ]; then
		bad "$desc" "exit status $status, want 1"
	elif [ -s "$R.out" ]; then
		bad "$desc" "output on stdout"
	elif ! grep -q '^kernels: ' "$R.err"; then
		bad "$desc" "no reason on stderr"
	else
		ok "$desc: $(head -n 1 "$R.err")"
	fi
}

# prints DESC WANT ARG... - kernels.sh ARG... exits 0 and prints WANT
prints() {
	local desc=$1 want=$2 status=0
	shift 2
	"$K" "$@" > "$R.out" 2> "$R.err" || status=$?
	if [ "$status" != 0 ]; then
		bad "$desc" "exit status $status"
	elif [ "$(cat "$R.out")" != "$want" ]; then
		bad "$desc" "want '$want'"
	else
		ok "$desc"
	fi
}

tree() {	# REL: a build tree, as linux-headers-REL installs it
	mkdir -p "$R/lib/modules/$1/build"
}

# --- a machine with no build tree ------------------------------------------

fails "kdir, no tree" kdir
fails "kdir default, no tree" kdir default
fails "kdir 6.12, no tree" kdir 6.12
fails "release, no tree" release
fails "release 7.3, no tree" release 7.3
fails "image default, no tree" image default
fails "image of a release, no tree" image "$V61"
fails "others, no tree" others
fails "image without a name" image

status=0
"$K" bogus > "$R.out" 2> "$R.err" || status=$?
if [ "$status" = 2 ] && [ ! -s "$R.out" ]; then
	ok "an unknown subcommand: usage on stderr, exit status 2"
else
	bad "an unknown subcommand" "exit status $status or output"
fi
prints "packages, no tree: they are what to install" \
	"$(printf '%s\n' linux-headers-6.12-amd64 linux-image-6.12-amd64)" packages

# The Makefile: one line, what to run; kbuild is not reached.  Run as a
# new make (not one of make check's sub-makes, whose variables would
# reach it).
status=0
env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS -u KDIR -u KERNEL \
	make -s -C "$TOP" modules > "$R.out" 2> "$R.err" || status=$?
lines=$(grep -cv '^make\(\[[0-9]*\]\)\{0,1\}: ' "$R.err" || true)
if [ "$status" != 0 ] && [ "$lines" = 1 ] && [ ! -s "$R.out" ] &&
   grep -q "run 'make deps'" "$R.err"; then
	ok "make with no tree: $(head -n 1 "$R.err")"
else
	bad "make with no tree" "exit status $status, $lines lines of its own"
fi

# make demo, check and bench: deps.sh installs the headers, then a sub-make
# builds.  A KDIR the parent resolved before (here: at its recipe's
# expansion, on a machine with only 6.12's tree) must not reach the
# sub-make, which must build for Debian 12's own once it is there.  A
# recipe line that makes its tree stands for deps.sh.
mkdir -p "$R.fresh/lib/modules/$V612/build"
cat > "$R.mk" <<'EOF'
fresh:
	@echo "before: $(KDIR)"
	@mkdir -p $(VRDMA_KERNELS_ROOT)/lib/modules/$(V)/build
	@$(MAKE) -f Makefile -f $(FRESH_MK) --no-print-directory fresh-kdir
fresh-kdir:
	@echo "after: $(KDIR)"
EOF
status=0
env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS -u KDIR -u KERNEL \
	VRDMA_KERNELS_ROOT="$R.fresh" make -s -C "$TOP" -f Makefile -f "$R.mk" \
	FRESH_MK="$R.mk" V="$V61" fresh > "$R.out" 2> "$R.err" || status=$?
if [ "$status" = 0 ] && [ "$(cat "$R.out")" = "$(printf 'before: %s\nafter: %s' \
		"$R.fresh/lib/modules/$V612/build" "$R.fresh/lib/modules/$V61/build")" ]; then
	ok "a sub-make resolves KDIR again, after the headers are installed"
else
	bad "a sub-make resolves KDIR again" "exit status $status"
fi

# --- the debug kernel only: used only when named in full -------------------

tree "$DEBUG"
fails "kdir default, only the debug tree" kdir
fails "kdir 6.1, only the debug tree" kdir 6.1
prints "kdir of the debug kernel named in full" \
	"$R/lib/modules/$DEBUG/build" kdir "$DEBUG"

# --- Debian 12's tree, no image yet ----------------------------------------

tree "$V61"
prints "kdir: the tree" "$R/lib/modules/$V61/build" kdir
prints "release" "$V61" release default
prints "release 6.1" "$V61" release 6.1
fails "release 6.12 is not 6.1's" release 6.12
fails "image default, tree without image" image default
fails "others, without 6.12 and 7.3" others

status=0
# shellcheck disable=SC2016 # make expands it
env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS -u KDIR -u KERNEL \
	make -s -C "$TOP" --eval 'kdir-test: ; @echo "$(KDIR)"' kdir-test \
	> "$R.out" 2> "$R.err" || status=$?
if [ "$status" = 0 ] && [ "$(cat "$R.out")" = "$R/lib/modules/$V61/build" ]; then
	ok "make resolves KDIR by the same rule"
else
	bad "make resolves KDIR by the same rule" "exit status $status"
fi

mkdir -p "$R/boot"
touch "$R/boot/vmlinuz-$V61"
prints "image default" "$R/boot/vmlinuz-$V61" image default

# --- 6.12, then 7.3 --------------------------------------------------------

tree "$V612"
touch "$R/boot/vmlinuz-$V612"
prints "kdir default still the first tree, not the newest" "$R/lib/modules/$V61/build" kdir
prints "kdir 6.12" "$R/lib/modules/$V612/build" kdir 6.12
fails "others, without 7.3: not 6.12 alone" others

tree "$V73"
fails "image 7.3, tree without image" image 7.3
mkdir -p "$R/usr/lib/modules/$V73"
touch "$R/usr/lib/modules/$V73/vmlinuz"
prints "image 7.3, in /usr/lib/modules" "$R/usr/lib/modules/$V73/vmlinuz" image 7.3
prints "others" "$(printf '%s\n' "$V612" "$V73")" others
fails "kdir of a kernel after 7.3" kdir 7.4

echo "kernels.sh: $passed passed, $failed failed"
[ "$failed" = 0 ]
