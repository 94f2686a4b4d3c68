#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check's VM part: the selftests on one supported kernel or several,
# one boot and one verdict each (selftests/vm/run.sh), and a total.
#
#   selftests/vm/check.sh [--tests "NAME..."]
#   selftests/vm/check.sh --plan "RELEASE|NAME...[|SKIP...]" ...   (a lane)
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
#
# Two lanes: with more than one kernel to boot, the first kernel's tests
# run in this tree while the others run, one after another, in a copy of
# it (build/lane, its own modules; --plan), so that two guests run at
# once; the first kernel's full suite leaves LANE_TESTS to a boot of its
# own in the copy.  A guest under TCG keeps about one host core busy and the host has
# two.  The copy's output is shown once the first lane is done (it is in
# build/lane.log meanwhile).  VRDMA_CHECK_LANES=1 boots one at a time.

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

# The default kernel's scripts that boot in the second lane (below), so
# that both lanes take about as long: the core subsets of the other
# kernels took 1390 s together, the full suite 1790 s.
LANE_TESTS="runtimes"

usage() {
	echo "usage: $0 [--tests NAMES] | --plan RELEASE|NAMES[|SKIP]..." >&2
	exit 2
}

TESTS=
plan=()
lane_of=
case ${1:-} in
--tests) [ $# -eq 2 ] || usage; TESTS=$2 ;;
--plan) [ $# -ge 2 ] || usage; shift; plan=("$@"); lane_of=1 ;;
"") ;;
*) usage ;;
esac

name=${KERNEL:-default}
if [ -n "$lane_of" ]; then
	:
elif [ "$name" != default ]; then
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
LANE=$TOP/build/lane
lane_pid=
stop_lane() {
	# the lane runs in a process group of its own (setsid): its guests
	# go with it
	[ -z "$lane_pid" ] || kill -- "-$lane_pid" 2>/dev/null || true
}
trap 'stop_lane; rm -f "$LOG"' EXIT
P=0 F=0 S=0
status=0
summary=()
first_rel=${plan[0]%%|*}
found_rel=$(tree_release)
re='^([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped$'

# count LINE - add a boot's "P passed, F failed, S skipped" to the total;
# any other line is a boot without a verdict, a failure.
count() {
	if [[ $1 =~ $re ]]; then
		P=$((P + BASH_REMATCH[1]))
		F=$((F + BASH_REMATCH[2]))
		S=$((S + BASH_REMATCH[3]))
	else
		F=$((F + 1))
		return 1
	fi
}

# boot "RELEASE|NAMES[|SKIP]" - build the tree's modules for RELEASE if
# need be, boot it and run NAMES (all if empty) but SKIP; the verdict goes
# to summary.
boot() {
	local rel=${1%%|*} rest=${1#*|} tests skip='' what start=$SECONDS rc=0 last
	tests=${rest%%|*}
	[ "$rest" = "$tests" ] || skip=${rest#*|}
	what=${tests:-full suite}${skip:+ but $skip}
	[ "${#plan[@]}" -eq 1 ] || echo "check: kernel $rel: $what"
	if [ "$(tree_release)" != "$rel" ] && ! build_for "$rel"; then
		echo "check: kernel $rel: the modules do not build"
		summary+=("$rel: does not build")
		F=$((F + 1))
		status=1
		return
	fi
	KDIR=/lib/modules/$rel/build "$TOP/selftests/vm/run.sh" \
		${tests:+--tests "$tests"} ${skip:+--skip "$skip"} | tee "$LOG" || rc=$?
	last=$(tail -n 1 "$LOG")
	count "$last" || last="no verdict"
	[ "$rc" -eq 0 ] || status=1
	summary+=("$rel ($what): $last, $((SECONDS - start)) s")
}

# start_lane "RELEASE|NAMES"... - boot these in a copy of the tree, in the
# background: the sources and what "make" built, and the probed kernel
# features; not the guests' runs.
start_lane() {
	rm -rf "$LANE"
	mkdir -p "$LANE/build"
	tar -C "$TOP" --exclude=./.git --exclude=./build -cf - . |
		tar -C "$LANE" -xf -
	[ ! -d "$TOP/build/compat" ] || cp -a "$TOP/build/compat" "$LANE/build/"
	echo "check: a second lane boots ${*%%|*} in $LANE (log: build/lane.log)"
	setsid "$LANE/selftests/vm/check.sh" --plan "$@" \
		> "$TOP/build/lane.log" 2>&1 < /dev/null &
	lane_pid=$!
}

# join_lane - wait for the lane, show its output and add its kernels to
# the summary and the total.
join_lane() {
	local rc=0 line
	wait "$lane_pid" || rc=$?
	lane_pid=
	echo "check: the second lane's output:"
	cat "$TOP/build/lane.log"
	[ "$rc" -eq 0 ] || status=1
	while IFS= read -r line; do
		summary+=("${line#check:   }")
	done < <(grep '^check:   ' "$TOP/build/lane.log")
	count "$(tail -n 1 "$TOP/build/lane.log")" || {
		summary+=("second lane: no verdict")
		status=1
	}
}

if [ -z "$lane_of" ] && [ "${#plan[@]}" -gt 1 ] && [ "${VRDMA_CHECK_LANES:-2}" -ge 2 ]; then
	if [ -z "${plan[0]#*|}" ]; then
		start_lane "$first_rel|$LANE_TESTS" "${plan[@]:1}"
		boot "$first_rel||$LANE_TESTS"
	else
		start_lane "${plan[@]:1}"
		boot "${plan[0]}"
	fi
	join_lane
else
	for entry in "${plan[@]}"; do
		boot "$entry"
	done
fi

# A lane is a throwaway copy; this tree is left as "make" built it.
if [ -z "$lane_of" ]; then
	restore=${found_rel:-$first_rel}
	if [ "$(tree_release)" != "$restore" ]; then
		build_for "$restore" || status=1
	fi
fi
if [ "${#plan[@]}" -gt 1 ] || [ -n "$lane_of" ]; then
	echo "check: per kernel:"
	printf 'check:   %s\n' "${summary[@]}"
	echo "$P passed, $F failed, $S skipped"
fi
exit "$status"
