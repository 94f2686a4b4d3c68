#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Random command lines for vrdmactl, from its own words and hostile ones,
# the same ones at every run (a fixed seed): whatever the words, vrdmactl
# exits 0, 1 (refused by the kernel or the missing module) or 2 (a usage
# error), never dies of a signal, and a failure prints one or more
# "vrdmactl: " lines on stderr and nothing on stdout.  Then the same lines
# as a batch file (-b).  Names are ones that cannot exist and "monitor" is
# left out, so the script changes nothing and ends with or without the
# module.
#
#   tests/fuzz.sh [PATH-TO-VRDMACTL] [RUNS]

VRDMACTL=${1:-./vrdmactl}
RUNS=${2:-1500}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tools/vrdmactl/tests/lib.sh
. "$(dirname "$0")/lib.sh"
RANDOM=4242

long=$(printf 'x%.0s' $(seq 5000))
words=(dev parent help show add set del -j -p -n -b -V -json -pretty
	vrdmactl-fuzz-nodev nosuchparent0 netns netns-pid netns-path nosuchns
	/nonexistent/ns 0 1 -1 max 4294967296 18446744073709551615
	18446744073709551616 1K 1T 16385T 1.5 1e3 0x10 "" - -- "a b" "$long"
	ctx pd cq qp srq mr mw ah mr-bytes sgid peer any 10.0.0.1 10.0.0.0/24
	10.0.0.1/33 ::1 fe80::/10 1.2.3 ::: 300.1.1.1 "$(printf '\001')" "%s%n")

bad=0
counts=(0 0 0)
: >"$tmp/batch"
for ((run = 0; run < RUNS; run++)); do
	n=$((RANDOM % 8 + 1))
	argv=()
	# start with an object most of the time, or the parser stops at once
	if ((RANDOM % 4)); then
		argv+=(dev)
		((RANDOM % 2)) && argv+=("${words[RANDOM % 7 + 2]}")
	fi
	for ((i = 0; i < n; i++)); do
		argv+=("${words[RANDOM % ${#words[@]}]}")
	done
	"$VRDMACTL" "${argv[@]}" >"$tmp/out" 2>"$tmp/err" </dev/null
	status=$?
	[ "$status" -le 2 ] && counts[status]=$((counts[status] + 1))
	if [ "$status" -gt 2 ]; then
		why="exit status $status"
	else
		why=$(failure_why "$status" "$tmp")
	fi
	if [ -n "$why" ]; then
		bad=$((bad + 1))
		[ "$bad" -le 10 ] && printf 'FAIL %s: vrdmactl%s\n' "$why" \
			"$(printf ' %q' "${argv[@]}" | cut -c1-200)"
	fi
	# the lines without options, for batch mode
	[ "${argv[0]}" = dev ] && [ ${#argv[@]} -gt 1 ] && [ "${argv[1]}" != help ] &&
		printf '%s\n' "${argv[*]}" | tr -d '\001' | cut -c1-2000 >>"$tmp/batch"
done
# Batch mode: the first bad line stops it, by number
"$VRDMACTL" -b "$tmp/batch" >"$tmp/out" 2>"$tmp/err" </dev/null
status=$?
if [ "$status" -gt 2 ] || { [ "$status" != 0 ] && ! grep -q '^vrdmactl: ' "$tmp/err"; }; then
	bad=$((bad + 1)); echo "FAIL batch of $(wc -l <"$tmp/batch") lines: exit status $status"
fi
echo "vrdmactl fuzz: $RUNS command lines (exit 0: ${counts[0]}, 1: ${counts[1]}, 2: ${counts[2]}) and a batch file, $bad bad answers"
[ "$bad" = 0 ]
