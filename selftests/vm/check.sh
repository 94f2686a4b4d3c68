#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check's VM part: the selftests on one supported kernel or several,
# one boot and one verdict each (selftests/vm/run.sh), and a total.
#
#   selftests/vm/check.sh [--tests "NAME..."]
#
# Environment (from make check):
#   KERNEL=NAME  only that kernel (scripts/kernels.sh names: "6.12", a
#                release), the full suite or the NAMEs
#   KERNELS=all  the full suite (or the NAMEs) on every supported kernel
#   neither      the full suite (or the NAMEs) on the default kernel; then,
#                without NAMEs, on each other supported kernel the tests
#                that selftests/TESTS gives it: "all" ones, and "ends" ones
#                on the oldest and the newest
#   KDIR         the default kernel's tree, if set (make check-debug's)
#
# The tree's modules (vrdma.ko, vrdma_vma.ko, rdmasim.ko) are rebuilt for
# each kernel whose release their vermagic does not name, before its boot
# (kbuild's stamp, scripts/compat.mk, makes that a real rebuild; a 7.x
# kernel builds in its Debian 13 chroot, scripts/kmake.sh, as root), and
# at the end again for the release they were built for when check.sh
# started (else the first kernel's), so that the tree is left as "make"
# built it: KERNEL=6.12 alone boots 6.12 with modules built for 6.12.
# The last line is the total, "P passed, F failed, S skipped"; the exit
# status is non-zero if any boot failed.

set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
KERNELS_SH=$TOP/scripts/kernels.sh

MANIFEST=$TOP/selftests/TESTS

# manifest_tests SCOPE... - the tests selftests/TESTS gives one of SCOPEs
manifest_tests() {
	awk -v scopes=" $* " '!/^#/ && NF && index(scopes, " " $2 " ") { print $1 }' \
		"$MANIFEST" | tr '\n' ' '
}

# Every entry names a script and a known scope, and every script that
# prints a KTAP plan is an entry: a test left out would never run.
manifest_ok() {
	local name scope rest s bad=0
	while read -r name scope rest; do
		case $name in '#'* | '') continue ;; esac
		if [ ! -f "$TOP/selftests/$name.sh" ] || [ -n "$rest" ]; then
			echo "check: selftests/TESTS: bad entry '$name $scope $rest'" >&2
			bad=1
		fi
		case $scope in all | ends | default) ;; *)
			echo "check: selftests/TESTS: $name: unknown scope '$scope'" >&2
			bad=1 ;;
		esac
	done < "$MANIFEST"
	for s in "$TOP"/selftests/*.sh; do
		grep -qE '^[[:space:]]*ktap_(plan|skip_all)[[:space:]]' "$s" || continue
		name=$(basename "$s" .sh)
		if ! awk -v n="$name" '$1 == n { f = 1 } END { exit !f }' "$MANIFEST"; then
			echo "check: selftests/$name.sh is a test but not in selftests/TESTS" >&2
			bad=1
		fi
	done
	return "$bad"
}
manifest_ok || exit 2

TESTS=
case ${1:-} in
--tests) [ $# -eq 2 ] || { echo "usage: $0 [--tests NAMES]" >&2; exit 2; }; TESTS=$2 ;;
"") ;;
*) echo "usage: $0 [--tests NAMES]" >&2; exit 2 ;;
esac

name=${KERNEL:-default}
plan=()
if [ "$name" != default ]; then
	plan+=("$("$KERNELS_SH" release "$name")|$TESTS")
else
	if [ -n "${KDIR:-}" ]; then
		first=$(basename "$(dirname "$KDIR")")
	else
		first=$("$KERNELS_SH" release default)
	fi
	plan+=("$first|$TESTS")
	if [ "${KERNELS:-}" = all ] || [ -z "$TESTS" ]; then
		# every supported kernel or none (kernels.sh says which one
		# is missing): a boot left out would not show in the total
		others=$("$KERNELS_SH" others)
		# the oldest and the newest supported kernel
		ends=$(printf '%s\n' "$first" "$others" | grep . | sort -V |
			sed -n '1p;$p')
		while read -r rel; do
			if [ -z "$rel" ] || [ "$rel" = "$first" ]; then
				continue
			fi
			if [ "${KERNELS:-}" = all ]; then
				plan+=("$rel|$TESTS")
			elif grep -qxF "$rel" <<< "$ends"; then
				plan+=("$rel|$(manifest_tests all ends)")
			else
				plan+=("$rel|$(manifest_tests all)")
			fi
		done <<< "$others"
	fi
fi

build_for() {	# KVER: the modules and rdmasim.ko of the tree, for KVER
	echo "check: kernel $1: building the modules"
	make -s -C "$TOP" modules rdmasim KDIR="/lib/modules/$1/build" >/dev/null
}

# The release the tree's modules are all built for; empty if one is
# missing or they disagree.
tree_release() {
	local ko r rel=
	for ko in kmod/vrdma.ko kmod/vrdma_vma.ko selftests/rdmasim/rdmasim.ko; do
		r=$(modinfo -F vermagic "$TOP/$ko" 2>/dev/null) || r=
		r=${r%% *}
		if [ -z "$r" ] || { [ -n "$rel" ] && [ "$r" != "$rel" ]; }; then
			return 0
		fi
		rel=$r
	done
	echo "$rel"
}

LOG=$(mktemp)
trap 'rm -f "$LOG"' EXIT
P=0 F=0 S=0
status=0
summary=()
first_rel=${plan[0]%%|*}
found_rel=$(tree_release)
re='^([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped$'
for entry in "${plan[@]}"; do
	rel=${entry%%|*}
	tests=${entry#*|}
	start=$SECONDS
	[ "${#plan[@]}" -eq 1 ] || echo "check: kernel $rel: ${tests:-the full suite}"
	if [ "$(tree_release)" != "$rel" ] && ! build_for "$rel"; then
		echo "check: kernel $rel: the modules do not build"
		summary+=("$rel: does not build")
		F=$((F + 1))
		status=1
		continue
	fi
	rc=0
	KDIR=/lib/modules/$rel/build "$TOP/selftests/vm/run.sh" \
		${tests:+--tests "$tests"} | tee "$LOG" || rc=$?
	last=$(tail -n 1 "$LOG")
	if [[ $last =~ $re ]]; then
		P=$((P + BASH_REMATCH[1]))
		F=$((F + BASH_REMATCH[2]))
		S=$((S + BASH_REMATCH[3]))
	else
		F=$((F + 1))
		last="no verdict"
	fi
	[ "$rc" -eq 0 ] || status=1
	summary+=("$rel (${tests:-full suite}): $last, $((SECONDS - start)) s")
done

restore=${found_rel:-$first_rel}
if [ "$(tree_release)" != "$restore" ]; then
	build_for "$restore" || status=1
fi
if [ "${#plan[@]}" -gt 1 ]; then
	echo "check: per kernel:"
	printf 'check:   %s\n' "${summary[@]}"
	echo "$P passed, $F failed, $S skipped"
fi
exit "$status"
