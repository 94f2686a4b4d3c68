# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Shared helpers for the vrdma selftests; every selftests/<group>/<test>.sh
# sources it, through its group's "lib" link to this directory.  The scripts
# run inside the test VM (selftests/vm/run.sh), as root, in a guest prepared
# by selftests/vm/guest-init.sh: parent $VRDMA_PARENT (rxe0) on veth0,
# ib_core in exclusive netns mode, vrdma_vma.ko and vrdma.ko loaded.
#
# A test script looks like this:
#
#	#!/bin/bash
#	# SPDX-License-Identifier: GPL-2.0
#	# What it tests, and its topology.
#	. "$(dirname "$0")/lib.sh"
#	ktap_plan first_thing second_thing     # names, or a number
#	if in_init genl ctrl get name vrdma; then
#		ktap_ok first_thing
#	else
#		ktap_fail first_thing "no genl family"
#	fi
#	ktap_check second_thing in_init true   # ok iff the command succeeds
#	ktap_finish
#
# Output is KTAP: "KTAP version 1", "1..N", "ok I NAME", "not ok I NAME #
# why", "ok I NAME # SKIP why"; everything else is a "# " diagnostic (the
# runner prefixes stray output with "# ").  Commands run through in_ns or
# in_init are logged with their network namespace first.  All of this goes
# to the script's original stdout ($KTAP_FD), so $(in_ns NS cmd 2>&1)
# captures the command's output only, never the log line.  The script's exit status
# is non-zero when a test failed or fewer/more tests ran than planned; the
# runner counts that too.

# -P: reached through a group's lib link, ".." is the link's target's parent
TOP=${TOP:-$(cd -P "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
VRDMACTL=${VRDMACTL:-$TOP/tools/vrdmactl/vrdmactl}
VRDMA_KO=${VRDMA_KO:-$TOP/kmod/vrdma.ko}
VRDMA_VMA_KO=${VRDMA_VMA_KO:-$TOP/kmod/vrdma_vma.ko}
PARENT=${VRDMA_PARENT:-rxe0}
TEST_NAME=${TEST_NAME:-$(basename "$0" .sh)}
KLOG_PATTERNS=$TOP/selftests/vm/klog-patterns
KLOG_ALLOWED=$TOP/selftests/vm/klog-allowed

# The KTAP stream, whatever a caller redirects stdout/stderr to.
exec {KTAP_FD}>&1

KTAP_PLAN=-1
KTAP_N=0
KTAP_FAILED=0
KTAP_NAMES=()
CLEANUPS=()
# VM_STEP_TIMES=1 (make check passes it on): each result is preceded by
# the seconds since the previous one, to find where a script's time goes.
KTAP_STEP_START=$EPOCHREALTIME

# --- KTAP --------------------------------------------------------------------

# ktap_plan N | ktap_plan NAME...  - print the header and the plan.  Given
# names, ktap_skip_rest can name the tests it skips.
ktap_plan() {
	if [ $# -eq 1 ] && [[ $1 =~ ^[0-9]+$ ]]; then
		KTAP_PLAN=$1
	else
		KTAP_PLAN=$#
		KTAP_NAMES=("$@")
	fi
	echo "KTAP version 1" >&"$KTAP_FD"
	echo "1..$KTAP_PLAN" >&"$KTAP_FD"
}

# The helpers a script calls often use the shell's builtins, not sed or
# awk: under TCG each fork and exec costs about 0.1 s.

# usecs SECONDS - set USECS to SECONDS ("2", "0.5", or EPOCHREALTIME) in
# microseconds
usecs() {
	local int=${1%%.*} frac=

	[[ $1 != *.* ]] || frac=${1#*.}
	frac=${frac}000000
	USECS=$((10#${int:-0} * 1000000 + 10#${frac:0:6}))
}

# ktap_diag TEXT... - one "# " line per line of TEXT.
ktap_diag() {
	local line

	while IFS= read -r line; do
		printf '# %s\n' "$line"
	done <<< "$*" >&"$KTAP_FD"
}

_ktap_result() {	# ok|"not ok" NAME [DIRECTIVE]
	local USECS t0

	KTAP_N=$((KTAP_N + 1))
	if [ -n "${VM_STEP_TIMES:-}" ]; then
		usecs "$KTAP_STEP_START"
		t0=$USECS
		usecs "$EPOCHREALTIME"
		printf '# step took %d.%d s\n' $(((USECS - t0) / 1000000)) \
			$(((USECS - t0) / 100000 % 10)) >&"$KTAP_FD"
		KTAP_STEP_START=$EPOCHREALTIME
	fi
	echo "$1 $KTAP_N $2${3:+ # $3}" >&"$KTAP_FD"
}

ktap_ok() {		# NAME [MSG]
	[ -n "${2:-}" ] && ktap_diag "$2"
	_ktap_result ok "$1"
}

ktap_fail() {		# NAME [REASON]
	KTAP_FAILED=$((KTAP_FAILED + 1))
	_ktap_result "not ok" "$1" "${2:-}"
}

ktap_skip() {		# NAME REASON
	_ktap_result ok "$1" "SKIP ${2:-}"
}

# run_shown CMD... - log CMD, run it with its output in $T/out (tmpdir T
# first), show the output as diagnostics, return its status.
run_shown() {
	local rc
	echo "# [init] $*" >&"$KTAP_FD"
	"$@" >"$T/out" 2>&1
	rc=$?
	[ -s "$T/out" ] && sed 's/^/#   /' "$T/out" | head -n 30 >&"$KTAP_FD"
	return "$rc"
}

# ktap_check NAME CMD... - ok if CMD succeeds, else not ok.
ktap_check() {
	local name=$1
	shift
	if "$@"; then
		ktap_ok "$name"
	else
		ktap_fail "$name" "failed: $*"
	fi
}

# bench_runs SECONDS OUT - the check bench_runs: selftests/bench/bench.sh,
# its knobs and BENCH_OUT from the environment, ends well within SECONDS;
# its output goes to OUT, and the tails of it and of its log are shown
# when it does not.
bench_runs() {
	if in_init timeout "$1" "$TOP/selftests/bench/bench.sh" >"$2" 2>&1; then
		ktap_ok bench_runs
	else
		ktap_fail bench_runs "exit status $?"
		ktap_diag "$(tail -n 20 "$2")"
		[ -f "$BENCH_OUT/bench.log" ] &&
			ktap_diag "$(grep -v '^# \[' "$BENCH_OUT/bench.log" | tail -n 20)"
	fi
}

# bench_check NAME FILTER [SHOW] - the check NAME: jq FILTER holds on a
# benchmark's results, the file $J; SHOW, a jq filter on them, is shown
# beside the verdict.
bench_check() {
	if jq -e "$2" "$J" >/dev/null 2>&1; then
		ktap_ok "$1" "${3:+$(jq -c "$3" "$J" 2>/dev/null)}"
	else
		ktap_fail "$1" "not true of $J: $2"
		[ -z "${3:-}" ] || ktap_diag "$(jq -c "$3" "$J" 2>&1 | head -c 2000)"
	fi
}

# ktap_setup CMD... - report the test "setup": ok if CMD succeeds; if not,
# not ok, every other planned test skipped and the script ends (ktap_finish).
# CMD runs in this shell, so the variables it sets (new_ns A a) stay set.
ktap_setup() {
	if "$@"; then
		ktap_ok setup
	else
		ktap_fail setup
		ktap_skip_rest "setup failed"
		ktap_finish
	fi
}

# ktap_skip_rest REASON - skip every planned test not reported yet.
ktap_skip_rest() {
	local name
	while [ "$KTAP_N" -lt "$KTAP_PLAN" ]; do
		name=${KTAP_NAMES[$KTAP_N]:-${TEST_NAME}_$((KTAP_N + 1))}
		ktap_skip "$name" "$1"
	done
}

# ktap_skip_all REASON - whole script skipped (call instead of ktap_plan).
ktap_skip_all() {
	echo "KTAP version 1" >&"$KTAP_FD"
	echo "1..0 # SKIP $1" >&"$KTAP_FD"
	KTAP_PLAN=0
	exit 0
}

# ktap_finish - end of the script: exit 0 only if all planned tests ran and
# none failed.
ktap_finish() {
	exit 0	# the EXIT trap decides the status
}

_lib_exit() {
	local rc=$? i
	for ((i = ${#CLEANUPS[@]} - 1; i >= 0; i--)); do
		echo "# [cleanup] ${CLEANUPS[$i]}" >&"$KTAP_FD"
		eval "${CLEANUPS[$i]}" >/dev/null 2>&1 || true
	done
	if [ "$KTAP_PLAN" -ge 0 ] && [ "$KTAP_N" -ne "$KTAP_PLAN" ]; then
		echo "# $TEST_NAME: planned $KTAP_PLAN tests, reported $KTAP_N (exit status $rc)" >&"$KTAP_FD"
		rc=1
	fi
	[ "$KTAP_FAILED" -gt 0 ] && rc=1
	exit "$rc"
}
trap _lib_exit EXIT

# cleanup_push CMD [ARG...] - run CMD at exit, last pushed runs first.
cleanup_push() {
	CLEANUPS+=("$(printf '%q ' "$@")")
}

# refused NAME PATTERN CMD... - report NAME ok when CMD fails and its
# output matches the extended regular expression PATTERN (any case).
refused() {
	local name=$1 pattern=$2 out rc
	shift 2
	out=$("$@" 2>&1)
	rc=$?
	if [ "$rc" -ne 0 ] && grep -qiE -- "$pattern" <<<"$out"; then
		ktap_ok "$name" "$out"
	else
		ktap_fail "$name" "status $rc, output: $out"
	fi
}

# --- modules -----------------------------------------------------------------

# load_modules - insmod the harness's vrdma_vma.ko and vrdma.ko, each unless
# a module of that name is loaded.  vrdma.ko uses vrdma_vma.ko's and ib_cm's
# symbols, and insmod, unlike modprobe, does not load them first.
load_modules() {
	modprobe ib_cm || return 1
	if [ ! -d /sys/module/vrdma_vma ]; then
		in_init insmod "$VRDMA_VMA_KO" || return 1
	fi
	if [ ! -d /sys/module/vrdma ]; then
		in_init insmod "$VRDMA_KO" || return 1
	fi
}

# --- commands, namespaces ----------------------------------------------------

# ns_run NS CMD... - run CMD in netns NS, or where the test runs when NS
# is "init" (the initial namespace; no test names a namespace so).
ns_run() {
	local ns=$1
	shift
	if [ "$ns" = init ]; then
		"$@"
	else
		ip netns exec "$ns" "$@"
	fi
}

# in_ns NS CMD... - log "# [NS] CMD...", then ns_run it.
in_ns() {
	echo "# [$1] ${*:2}" >&"$KTAP_FD"
	ns_run "$@"
}

# in_init CMD... - the same for the initial network namespace.
in_init() {
	echo "# [init] $*" >&"$KTAP_FD"
	"$@"
}

# new_ns VAR [TAG] - create a network namespace with a name unique to this
# test run (TEST_NAME-PID-TAG), store its name in VAR, delete it at exit.
new_ns() {
	local name="${TEST_NAME}-$$-${2:-$RANDOM}"
	in_init ip netns add "$name" || return 1
	cleanup_push ip netns del "$name"
	in_ns "$name" ip link set lo up || return 1
	printf -v "$1" '%s' "$name"
}

# require_cmd CMD... - fails (with a diagnostic) if a command is missing.
require_cmd() {
	local c missing=
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || missing="$missing $c"
	done
	[ -z "$missing" ] && return 0
	ktap_diag "missing command(s):$missing"
	return 1
}

# have_vrdmactl - the tool is built (it is written in parallel: tests that
# need it skip until it exists).
have_vrdmactl() {
	[ -x "$VRDMACTL" ]
}

# wait_for TIMEOUT CMD... - poll CMD every 0.1 s until it succeeds (0) or
# TIMEOUT seconds (may be fractional) pass (1).  VM_WAIT_SCALE (a whole
# number, make check-debug's) multiplies every TIMEOUT: a debug kernel
# under TCG starts a process in seconds, and a listener that a test waits
# 10 s for never came up in time there.
wait_for() {
	local deadline USECS

	usecs "$1"
	deadline=$((USECS * ${VM_WAIT_SCALE:-1}))
	usecs "$EPOCHREALTIME"
	deadline=$((deadline + USECS))
	shift
	while :; do
		"$@" && return 0
		usecs "$EPOCHREALTIME"
		[ "$USECS" -lt "$deadline" ] || break
		sleep 0.1
	done
	ktap_diag "timed out waiting for: $*"
	return 1
}

# prints TEXT CMD... - CMD's output is TEXT (for wait_for).
prints() {
	local text=$1
	shift
	[ "$("$@")" = "$text" ]
}

# check_back_to NAME AT_REST CMD... - report NAME: ok once CMD prints
# AT_REST again (polled for up to 10 s), with what it prints; else not ok
# with both.
check_back_to() {
	local name=$1 at_rest=$2
	shift 2
	if wait_for 10 prints "$at_rest" "$@"; then
		ktap_ok "$name" "$("$@")"
	else
		ktap_fail "$name" "now: $("$@"), at rest: $at_rest"
	fi
}

# gone PID - process PID has exited (for wait_for).
gone() {
	! kill -0 "$1" 2>/dev/null
}

# wait_gone SECS PID... - wait for processes to exit, kill them otherwise;
# fails if one had to be killed.
wait_gone() {
	local secs=$1 p rc=0
	shift
	for p in "$@"; do
		wait_for "$secs" gone "$p" || { kill -9 "$p"; rc=1; }
		wait "$p" 2>/dev/null
	done
	return $rc
}

# --- RDMA ---------------------------------------------------------------------

# parent_res [DEV] - one line summing up the parent's objects from `rdma res
# show`, e.g. "pd=0 cq=0 qp=1 cm_id=0 mr=0 ctx=0 srq=0", for before/after
# comparisons.
parent_res() {
	rdma res show | awk -v dev="${1:-$PARENT}:" '
		$2 == dev { for (i = 3; i < NF; i += 2) printf "%s=%s ", $i, $(i + 1) }
		END { print "" }'
}

# parent_res_is EXPECTED [DEV] - parent_res equals EXPECTED (for wait_for).
parent_res_is() {
	[ "$(parent_res "${2:-$PARENT}")" = "$1" ]
}

# --- kernel log --------------------------------------------------------------

# klog_mark - print the current number of kernel log lines.
klog_mark() {
	dmesg | wc -l
}

# klog_clean_since MARK - succeed if no line after MARK matches
# selftests/vm/klog-patterns (but for those selftests/vm/klog-allowed
# allows); otherwise print them as diagnostics.
klog_clean_since() {
	local bad
	bad=$(dmesg | tail -n "+$(($1 + 1))" | grep -aF -f "$KLOG_PATTERNS" |
	      grep -avE -f <(sed '/^$/d' "$KLOG_ALLOWED"))
	[ -z "$bad" ] && return 0
	ktap_diag "kernel log lines of concern:"
	ktap_diag "$bad"
	return 1
}

# tmpdir VAR - a scratch directory removed at exit.
tmpdir() {
	local d
	d=$(mktemp -d "/tmp/${TEST_NAME}.XXXXXX") || return 1
	cleanup_push rm -rf "$d"
	printf -v "$1" '%s' "$d"
}

# out_has FILE REGEX - a line of FILE matches.
out_has() {
	grep -qE "$2" "$1" 2>/dev/null
}

# family_present - the vrdma generic netlink family is registered.
family_present() {
	genl ctrl get name vrdma 2>/dev/null | grep -q 'Name: vrdma'
}

# tmpfs_at DIR - container storage on a tmpfs of its own, unmounted at exit.
tmpfs_at() {
	mkdir -p "$1" && mount -t tmpfs -o mode=0711 tmpfs "$1" || return 1
	cleanup_push umount -R -l "$1"
}
