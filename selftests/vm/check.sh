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
#                without NAMEs, the core subset (CORE_TESTS) on each other
#                supported kernel
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

# What every other kernel runs: the module's life, what a tenant sees, the
# data path, the verbs, the quotas, object lifecycles, the hardware-like
# parent and the attributes it is handed, the ownership of shadows, every
# attack test (attack, acl, tenancy, qp_gid: security.rst's claims hold on
# every kernel) and the vdevice names (which the core keeps unique per
# kernel its way).
CORE_TESTS="module visibility traffic verbs quota lifecycle sim sim_attrs sim_drv_quota shadow_owner attack acl tenancy qp_gid names"

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
		while read -r rel; do
			if [ -z "$rel" ] || [ "$rel" = "$first" ]; then
				continue
			fi
			if [ "${KERNELS:-}" = all ]; then
				plan+=("$rel|$TESTS")
			else
				plan+=("$rel|$CORE_TESTS")
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
