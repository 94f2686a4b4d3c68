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
#                that selftests/TESTS gives it: "all" ones, "ends" ones
#                on the oldest and the newest, "newest" ones on the newest
#                (the default kernel's full suite leaves those out unless
#                it is the newest or KERNELS=all)
#   KDIR         the default kernel's tree, if set (make check-debug's)
#
# The first kernel boots from the tree, whose modules (vrdma.ko,
# vrdma_vma.ko, rdmasim.ko) are rebuilt first if their vermagic names
# another release.  The others boot alongside it, one after the other,
# each from a copy of the tree under build/kernels/REL whose modules are
# built for it (kbuild's stamp, scripts/compat.mk, makes that a real
# rebuild; a 7.x kernel builds in its Debian 13 chroot, scripts/kmake.sh,
# as root); their output follows the first kernel's.  CHECK_SERIAL=1
# boots them after it from the tree instead, rebuilding its modules for
# each, and at the end again for the release they were built for when
# check.sh started (else the first kernel's), so that the tree is left as
# "make" built it.
# The last line is the total, "P passed, F failed, S skipped"; the exit
# status is non-zero if any boot failed.

set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
KERNELS_SH=$TOP/scripts/kernels.sh

MANIFEST=$TOP/selftests/TESTS

# manifest_tests SCOPE... - the names of the tests selftests/TESTS gives one
# of SCOPEs
manifest_tests() {
	awk -v scopes=" $* " '!/^#/ && NF && index(scopes, " " $2 " ") {
		sub(/.*\//, "", $1); print $1 }' "$MANIFEST" | tr '\n' ' '
}

# Every entry is GROUP/NAME with a script selftests/GROUP/NAME.sh and a
# known scope, no two entries share a NAME (--tests picks by NAME), and
# every script that prints a KTAP plan is an entry: a test left out would
# never run.
manifest_ok() {
	local name scope rest s bad=0
	while read -r name scope rest; do
		case $name in '#'* | '') continue ;; esac
		if [[ ! $name =~ ^[a-z0-9_]+/[a-z0-9_]+$ ]] ||
		   [ ! -f "$TOP/selftests/$name.sh" ] || [ -n "$rest" ]; then
			echo "check: selftests/TESTS: bad entry '$name $scope $rest'" >&2
			bad=1
		fi
		case $scope in all | ends | newest | default | default2) ;; *)
			echo "check: selftests/TESTS: $name: unknown scope '$scope'" >&2
			bad=1 ;;
		esac
	done < "$MANIFEST"
	for name in $(awk '!/^#/ && NF { sub(/.*\//, "", $1); print $1 }' \
		      "$MANIFEST" | sort | uniq -d); do
		echo "check: selftests/TESTS: two tests are named $name" >&2
		bad=1
	done
	for s in "$TOP"/selftests/*/*.sh; do
		grep -qE '^[[:space:]]*ktap_(plan|skip_all)[[:space:]]' "$s" || continue
		name=${s#"$TOP"/selftests/}
		name=${name%.sh}
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
newest=
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
		newest=$(tail -n 1 <<< "$ends")
		while read -r rel; do
			if [ -z "$rel" ] || [ "$rel" = "$first" ]; then
				continue
			fi
			if [ "${KERNELS:-}" = all ]; then
				plan+=("$rel|$TESTS")
			elif [ "$rel" = "$newest" ]; then
				plan+=("$rel|$(manifest_tests all ends newest)")
			elif grep -qxF "$rel" <<< "$ends"; then
				plan+=("$rel|$(manifest_tests all ends)")
			else
				plan+=("$rel|$(manifest_tests all)")
			fi
		done <<< "$others"
	fi
fi

# The other line builds while the first kernel's guest keeps one core busy:
# -j still takes what the guest leaves (it waits on its disk and timers).
build_for() {	# TREE KVER: the modules and rdmasim.ko of TREE, for KVER
	echo "check: kernel $2: building the modules"
	make -s -j"$(nproc)" -C "$1" modules rdmasim KDIR="/lib/modules/$2/build" >/dev/null
}

# tree_release TREE - the release TREE's modules are all built for; empty
# if one is missing or they disagree.
tree_release() {
	local ko r rel=
	for ko in kmod/vrdma.ko kmod/vrdma_vma.ko selftests/rdmasim/rdmasim.ko; do
		r=$(modinfo -F vermagic "$1/$ko" 2>/dev/null) || r=
		r=${r%% *}
		if [ -z "$r" ] || { [ -n "$rel" ] && [ "$r" != "$rel" ]; }; then
			return 0
		fi
		rel=$r
	done
	echo "$rel"
}

# A copy of the tree for booting REL alongside the first kernel's boot:
# the modules are built in the tree, for one kernel at a time, and the
# guest loads them from there.  Everything else (tools, programs, the
# library) is the same for every kernel and comes over as "make" built it.
tree_copy() {	# REL
	local dst=$TOP/build/kernels/$1
	rm -rf "$dst"
	mkdir -p "$dst"
	tar -C "$TOP" --exclude=./build --exclude=./.cache -cf - . |
		tar -C "$dst" -xf -
	echo "$dst"
}

# boot TREE REL TESTS [WHAT] - build TREE's modules for REL if they are
# not, boot REL on TREE's selftests/vm/run.sh, and add a line to $RESULTS:
# "REL|WHAT|P F S|exit status|seconds" (WHAT: TESTS, or the full suite;
# P F S empty: no verdict).
boot() {
	local tree=$1 rel=$2 tests=$3 what=${4:-${3:-full suite}}
	local start=$SECONDS log rc=0 last pfs=
	log=$(mktemp)
	if [ "$(tree_release "$tree")" != "$rel" ] &&
	   ! build_for "$tree" "$rel"; then
		echo "check: kernel $rel: the modules do not build"
		echo "$rel|$what||build|$((SECONDS - start))" >> "$RESULTS"
		rm -f "$log"
		return
	fi
	KDIR=/lib/modules/$rel/build "$tree/selftests/vm/run.sh" \
		${tests:+--tests "$tests"} | tee "$log" || rc=$?
	last=$(tail -n 1 "$log")
	rm -f "$log"
	if [[ $last =~ $re ]]; then
		pfs="${BASH_REMATCH[1]} ${BASH_REMATCH[2]} ${BASH_REMATCH[3]}"
	fi
	echo "$rel|$what|$pfs|$rc|$((SECONDS - start))" >> "$RESULTS"
}

# kill_tree PID - PID and every process under it (run.sh, qemu)
kill_tree() {
	local child
	for child in $(pgrep -P "$1"); do
		kill_tree "$child"
	done
	kill "$1" 2>/dev/null || true
}

RESULTS=$(mktemp)
others_pid=
trap '[ -z "$others_pid" ] || kill_tree "$others_pid"; rm -f "$RESULTS"' EXIT
re='^([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped$'
first_rel=${plan[0]%%|*}
found_rel=$(tree_release "$TOP")

# The other kernels boot one after the other from copies of the tree
# (tree_copy), while the first one boots from the tree itself: a guest
# under TCG keeps about one host core busy (most tests run one process at
# a time), and the host has two.  Each guest then gets one vCPU (VM_SMP
# overrides it): a two-vCPU guest whose vCPU threads wait for a host core
# stalls in every TCG exclusive section and IPI, and two such guests at
# once ran each script 2.4 times slower, two one-vCPU guests 1.2 to 2.1
# times, two scripts at a time (Documentation/testing.rst, "How long make
# check takes").  The first kernel's "default2" tests (selftests/TESTS)
# boot second in the first line, so that both lines end at about the same
# time.  The other line's output is shown after the first's, from
# OTHERS_LOG.
# CHECK_SERIAL=1 boots every kernel from the tree, one after the other.
OTHERS_LOG=$TOP/build/check-others.log
first_what=
first_then=
several=$(( ${#plan[@]} > 1 ))
if [ "$several" = 1 ] && [ -z "${CHECK_SERIAL:-}" ]; then
	export VM_SMP=${VM_SMP:-1}
	if [ -z "${plan[0]#*|}" ]; then
		# the full suite, in two boots
		first_what="full suite but default2 tests"
		if [ "$first_rel" = "$newest" ] || [ "${KERNELS:-}" = all ]; then
			plan[0]="$first_rel|$(manifest_tests all ends newest default)"
		else
			plan[0]="$first_rel|$(manifest_tests all ends default)"
		fi
		first_then="$first_rel|$(manifest_tests default2)"
	fi
	mkdir -p "$TOP/build"
	echo "check: the other boots run alongside, one after the other (log: ${OTHERS_LOG#"$TOP"/})"
	(
		for entry in "${plan[@]:1}"; do
			rel=${entry%%|*}
			tests=${entry#*|}
			echo "check: kernel $rel: ${tests:-the full suite}"
			boot "$(tree_copy "$rel")" "$rel" "$tests"
		done
	) > "$OTHERS_LOG" 2>&1 < /dev/null &
	others_pid=$!
	plan=("${plan[0]}")
fi

for entry in "${plan[@]}"; do
	rel=${entry%%|*}
	tests=${entry#*|}
	what=${first_what:-${tests:-full suite}}
	[ "$several" = 0 ] || echo "check: kernel $rel: $what"
	boot "$TOP" "$rel" "$tests" "$what"
done
if [ -n "$first_then" ]; then
	echo "check: kernel $first_rel: the full suite's default2 tests"
	boot "$TOP" "$first_rel" "${first_then#*|}" "full suite, default2 tests"
fi
if [ -n "$others_pid" ]; then
	wait "$others_pid" || true
	others_pid=
	cat "$OTHERS_LOG"
fi

restore=${found_rel:-$first_rel}
status=0
if [ "$(tree_release "$TOP")" != "$restore" ]; then
	build_for "$TOP" "$restore" || status=1
fi

P=0 F=0 S=0
summary=()
while IFS='|' read -r rel what pfs rc secs; do
	if [ "$rc" = build ]; then
		summary+=("$rel: does not build")
		F=$((F + 1))
		status=1
		continue
	fi
	if [ -n "$pfs" ]; then
		read -r p f s <<< "$pfs"
		P=$((P + p)) F=$((F + f)) S=$((S + s))
		last="$p passed, $f failed, $s skipped"
	else
		F=$((F + 1))
		last="no verdict"
	fi
	[ "$rc" -eq 0 ] || status=1
	summary+=("$rel ($what): $last, $secs s")
done < "$RESULTS"
if [ "$several" = 1 ]; then
	echo "check: per kernel:"
	printf 'check:   %s\n' "${summary[@]}"
	echo "$P passed, $F failed, $S skipped"
fi
exit "$status"
