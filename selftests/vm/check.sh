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
# The tree's modules are rebuilt for each kernel before its boot (kbuild's
# stamp, scripts/compat.mk, makes that a real rebuild) and for the first
# kernel again at the end, so that the tree is left as "make" built it.
# The last line is the total, "P passed, F failed, S skipped"; the exit
# status is non-zero if any boot failed.

set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
KERNELS_SH=$TOP/scripts/kernels.sh

# What every other kernel runs: the module's life, what a tenant sees, the
# data path, the verbs, the quotas, object lifecycles, the hardware-like
# parent, the ownership of shadows, the attacks and the tenants' addresses.
CORE_TESTS="module visibility traffic verbs quota lifecycle sim sim_attrs shadow_owner attack tenancy"

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
		while read -r rel; do
			[ "$rel" = "$first" ] && continue
			if [ "${KERNELS:-}" = all ]; then
				plan+=("$rel|$TESTS")
			else
				plan+=("$rel|$CORE_TESTS")
			fi
		done < <("$KERNELS_SH" others)
	fi
fi

build_for() {	# KVER: the modules and rdmasim.ko of the tree, for KVER
	make -s -C "$TOP" modules rdmasim KDIR="/lib/modules/$1/build" >/dev/null
}

LOG=$(mktemp)
trap 'rm -f "$LOG"' EXIT
P=0 F=0 S=0
status=0
summary=()
first_rel=${plan[0]%%|*}
re='^([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped$'
for entry in "${plan[@]}"; do
	rel=${entry%%|*}
	tests=${entry#*|}
	start=$SECONDS
	if [ "${#plan[@]}" -gt 1 ]; then
		echo "check: kernel $rel: ${tests:-the full suite}"
		if [ "$rel" != "$first_rel" ] && ! build_for "$rel"; then
			echo "check: kernel $rel: the modules do not build"
			summary+=("$rel: does not build")
			F=$((F + 1))
			status=1
			continue
		fi
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

if [ "${#plan[@]}" -gt 1 ]; then
	if [ "$(modinfo -F vermagic "$TOP/kmod/vrdma.ko" | cut -d' ' -f1)" != "$first_rel" ]; then
		build_for "$first_rel" || status=1
	fi
	echo "check: per kernel:"
	printf 'check:   %s\n' "${summary[@]}"
	echo "$P passed, $F failed, $S skipped"
fi
exit "$status"
