#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host unit tests of selftests/vm/check.sh's plan and two lanes, with the
# boots made up: a copy of check.sh in a scratch tree whose
# selftests/vm/run.sh only records how it was called (its tree, KDIR and
# arguments) and prints a verdict the test chose, and whose
# scripts/kernels.sh names three made-up kernels.  What is checked: which
# boots run in which tree (the default kernel's full suite here, less
# LANE_TESTS; the lane copy boots LANE_TESTS and the other kernels' core
# subsets), that the per-kernel lines and the total add up, that a failed
# or verdict-less boot in either lane fails make check, that
# VRDMA_CHECK_LANES=1 boots the same plan in one tree, and that stopping
# check.sh stops the lane's boot too.
#
#   scripts/tests/check-lanes.sh        (make check runs it on the host)

set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
S=$(mktemp -d)
trap 'rm -rf "$S"' EXIT

passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok   $1"; }
bad() {
	failed=$((failed + 1)); echo "FAIL $1: $2"
	sed 's/^/     out: /' "$S/out"
}

# The scratch tree: check.sh as it is, the rest made up.  The modules are
# never "built" (no .ko), so check.sh asks make to build before each boot:
# the stub Makefile records that.
mkdir -p "$S/t/selftests/vm" "$S/t/scripts" "$S/t/kmod" "$S/t/.git"
cp "$TOP/selftests/vm/check.sh" "$S/t/selftests/vm/"
cat > "$S/t/scripts/kernels.sh" <<'EOF'
#!/bin/bash
case $1 in
release) [ "$2" = default ] && echo 6.1.0-990-amd64 || echo "$2" ;;
others) printf '%s\n' 6.1.0-990-amd64 6.12.990+deb12-amd64 7.3.990+deb13-amd64 ;;
*) exit 1 ;;
esac
EOF
cat > "$S/t/selftests/vm/run.sh" <<'EOF'
#!/bin/bash
# record: TREE|RELEASE|ARGS; the verdict comes from $VERDICT_<release's
# first two digits> (P F S), "none" for no verdict
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
rel=$(basename "$(dirname "$KDIR")")
echo "$top|$rel|$*" >> "$LANES_RECORD"
v=VERDICT_${rel%%.*}_$(echo "$rel" | cut -d. -f2)
read -r p f s <<< "${!v:-1 0 0}"
echo "some KTAP of $rel"
# a guest that takes its time: SLEEP_<digits>=SECONDS
w=SLEEP_${v#VERDICT_}
[ -z "${!w:-}" ] || sleep "${!w}"
if [ "$p" = none ]; then
	exit 1
fi
echo "$p passed, $f failed, $s skipped"
[ "$f" -eq 0 ]
EOF
# shellcheck disable=SC2016 # make expands them
printf 'modules rdmasim:\n\t@echo "$(KDIR)" >> "$(LANES_BUILT)"\n' > "$S/t/Makefile"
chmod +x "$S/t/scripts/kernels.sh" "$S/t/selftests/vm/run.sh"
T=$S/t
L=$T/build/lane
CORE=$(sed -n 's/^CORE_TESTS="\(.*\)"$/\1/p' "$TOP/selftests/vm/check.sh")
LANE_TESTS=$(sed -n 's/^LANE_TESTS="\(.*\)"$/\1/p' "$TOP/selftests/vm/check.sh")
export LANES_RECORD=$S/record LANES_BUILT=$S/built

# run_check ENV... - check.sh in the scratch tree; rc in $rc, output in
# $S/out, the boots in $S/record
run_check() {
	: > "$LANES_RECORD"
	: > "$LANES_BUILT"
	rc=0
	env "$@" "$T/selftests/vm/check.sh" > "$S/out" 2>&1 || rc=$?
}

last_line() { tail -n 1 "$S/out"; }

# per_kernel - the lines of the last per-kernel block (the lane's own
# block is part of its output, shown before)
per_kernel() {
	awk '/^check: per kernel:$/ { n = 0; next } /^check:   / { n++ } END { print n }' "$S/out"
}

run_check
want="$T|6.1.0-990-amd64|--skip $LANE_TESTS
$L|6.1.0-990-amd64|--tests $LANE_TESTS
$L|6.12.990+deb12-amd64|--tests $CORE
$L|7.3.990+deb13-amd64|--tests $CORE"
if [ "$(sort "$LANES_RECORD")" = "$(sort <<< "$want")" ]; then
	ok "default plan: the full suite here less '$LANE_TESTS', the rest in the lane"
else
	bad "default plan" "boots: $(cat "$LANES_RECORD")"
fi
if [ "$rc" -eq 0 ] && [ "$(last_line)" = "4 passed, 0 failed, 0 skipped" ] &&
   [ "$(per_kernel)" -eq 4 ]; then
	ok "four boots, four per-kernel lines, the total adds up, exit 0"
else
	bad "total" "exit $rc, last line '$(last_line)'"
fi
if grep -q '^some KTAP of 7.3.990+deb13-amd64$' "$S/out"; then
	ok "the lane's output is shown"
else
	bad "lane output" "no KTAP of the lane's 7.3 boot"
fi

run_check VERDICT_7_3="5 1 2"
if [ "$rc" -ne 0 ] && [ "$(last_line)" = "8 passed, 1 failed, 2 skipped" ]; then
	ok "a failure in the lane fails make check and counts"
else
	bad "lane failure" "exit $rc, last line '$(last_line)'"
fi

run_check VERDICT_6_1="none"
if [ "$rc" -ne 0 ] && [ "$(last_line)" = "2 passed, 2 failed, 0 skipped" ] &&
   grep -q '(full suite but runtimes): no verdict' "$S/out" &&
   grep -q '(runtimes): no verdict' "$S/out"; then
	ok "a boot without a verdict, in either lane, is a failure"
else
	bad "no verdict" "exit $rc, last line '$(last_line)'"
fi

run_check VRDMA_CHECK_LANES=1
want="$T|6.1.0-990-amd64|
$T|6.12.990+deb12-amd64|--tests $CORE
$T|7.3.990+deb13-amd64|--tests $CORE"
if [ "$(cat "$LANES_RECORD")" = "$want" ] && [ "$rc" -eq 0 ] &&
   [ "$(last_line)" = "3 passed, 0 failed, 0 skipped" ]; then
	ok "VRDMA_CHECK_LANES=1: one tree, one boot after another"
else
	bad "one lane" "exit $rc, boots: $(cat "$LANES_RECORD")"
fi

run_check KERNEL=6.12.990+deb12-amd64
if [ "$(cat "$LANES_RECORD")" = "$T|6.12.990+deb12-amd64|" ] && [ "$rc" -eq 0 ]; then
	ok "KERNEL=: one boot, no lane"
else
	bad "KERNEL=" "exit $rc, boots: $(cat "$LANES_RECORD")"
fi

# Interrupted while the lane still boots: nothing of the lane survives.
: > "$LANES_RECORD"
: > "$LANES_BUILT"
SLEEP_7_3=313 "$T/selftests/vm/check.sh" > "$S/out" 2>&1 &
pid=$!
for _ in $(seq 100); do
	grep -q 7.3.990 "$LANES_RECORD" && break
	sleep 0.1
done
kill -TERM "$pid"
wait "$pid" || true
sleep 0.5
if grep -q 7.3.990 "$LANES_RECORD" && ! pgrep -f "^sleep 313$" > /dev/null; then
	ok "check.sh interrupted: the lane's boot is stopped with it"
else
	bad "interrupted" "lane boot started: $(grep -c 7.3.990 "$LANES_RECORD"), left running: $(pgrep -fa "^sleep 313$")"
	pkill -f "^sleep 313$" || true
fi

echo "check.sh lanes: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
