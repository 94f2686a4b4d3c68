#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The in-guest runner, started by guest-init.sh after the guest setup.
# Prints one KTAP document on stdout:
#
#   KTAP version 1
#   1..N+1
#     KTAP version 1          <- output of selftests/<group>/<name>.sh, indented
#     1..3
#     ok 1 something
#     ...
#   ok 1 <name>               <- one top-level test per script
#   ...
#   ok N+1 kernel_log_clean   <- dmesg free of klog-patterns
#   # vrdma-vm-verdict: passed=P failed=F skipped=S tests=T
#
# P, F and S count leaf test cases (the scripts' own subtests, plus
# kernel_log_clean); T counts leaves other than kernel_log_clean.  A script
# that exits non-zero, prints no plan or runs a number of tests other than its
# plan adds one failure of its own.  Modes (VM_MODE): suite, demo, bench,
# shell; the last three run one command whose exit status is its result.
#
# Environment from guest-init.sh: TOP, VM_MODE, VM_TESTS, VM_SHELL_CMD,
# VM_TEST_TIMEOUT, SETUP_RC, SETUP_TIME, UPTIME, VM_RESULTS.

set -u

KLOG_PATTERNS=$TOP/selftests/vm/klog-patterns
# Lines that match a pattern but are not of concern, one extended regex a
# line and nothing else (grep -f reads it too; blank lines are dropped
# first, as an empty pattern would allow every line, and a missing file
# allows none): each a known bug of a test tool, which the test that runs
# the tool judges by its exit status.
# Now one: perftest's ib_send_bw crashes in librdmacm when it retries a
# connection that lost its own race (rdma_cm.sh, perf_cm_pair), and the
# kernel logs the user-space fault as "traps: ... general protection".
KLOG_ALLOWED=$TOP/selftests/vm/klog-allowed
RESULTS=${VM_RESULTS:-/tmp}
PASS=0
FAIL=0
SKIP=0
TESTS=0

# What runs between two scripts uses the shell's builtins where it can:
# under TCG each fork and exec costs about 0.1 s, and make check runs some
# 80 scripts.

# KLOG_MARK is how many lines the kernel log had when the last script
# ended: the next one's lines start there.  One dmesg a script, not two.
KLOG_MARK=$(dmesg | wc -l)

# klog_bad_since MARK - set KLOG_BAD to the kernel log's lines of concern
# after line MARK, and KLOG_MARK to its length now.  One awk reads the
# log: bash takes seconds to hold and slice a few thousand lines.
klog_bad_since() {
	local out

	out=$(dmesg | awk -v from="$1" -v pats="$KLOG_PATTERNS" -v oks="$KLOG_ALLOWED" '
		BEGIN {
			while ((getline p < pats) > 0) if (p != "") pat[++n] = p
			while ((getline p < oks) > 0) if (p != "") ok[++m] = p
		}
		function allowed(l,	j) {
			for (j = 1; j <= m; j++) if (l ~ ok[j]) return 1
			return 0
		}
		NR > from {
			for (i = 1; i <= n; i++)
				if (index($0, pat[i])) { if (!allowed($0)) print; break }
		}
		END { print NR }')
	KLOG_MARK=${out##*$'\n'}
	KLOG_BAD=${out%"$KLOG_MARK"}
	KLOG_BAD=${KLOG_BAD%$'\n'}
}

# objects_held - set HELD to the non-zero object counts of vrdma and
# rdmasim, those loaded ("vrdma/objects: vdev=1 ... rdmasim/objects: pd=1
# ..."): what a script must leave as it found it.
objects_held() {
	local f name count counts

	HELD=
	for f in /sys/kernel/debug/vrdma/objects /sys/kernel/debug/rdmasim/objects; do
		[ -r "$f" ] || continue
		counts=
		while read -r name count _; do
			[ "$count" = 0 ] || counts+=" $name=$count"
		done < "$f"
		[ -z "$counts" ] || HELD+="${f#/sys/kernel/debug/}:$counts "
	done
}

# seconds_since T0 - set SECONDS_SINCE to the time since EPOCHREALTIME was
# T0, "12.3"
seconds_since() {
	local us=$(( ${EPOCHREALTIME//[!0-9]/} - ${1//[!0-9]/} ))

	SECONDS_SINCE=$((us / 1000000)).$((us / 100000 % 10))
}

# mib_available - set MIB_AVAILABLE to MemAvailable of /proc/meminfo, in MiB
mib_available() {
	local key kib=0 _

	while read -r key kib _; do
		[ "$key" != MemAvailable: ] || break
	done < /proc/meminfo
	MIB_AVAILABLE=$((kib / 1024))
}

# objects_audit NAME BEFORE - a diagnostic when the objects held after NAME
# (waited for up to 10 s: teardown may lag its script) are not those held
# before it, so that a leak is pinned on the script that left it.  Not a
# verdict: each script's own checks and the final leak_audit are.
objects_audit() {
	local tries=20 HELD
	while [ "$tries" -gt 0 ]; do
		objects_held
		[ "$HELD" = "$2" ] && return 0
		tries=$((tries - 1))
		sleep 0.5
	done
	echo "# objects not at rest after $1: before: ${2:-none}; after: ${HELD:-none}"
}

# run_one INDEX NAME KTAP|RAW CMD...
run_one() {
	local idx=$1 name=$2 kind=$3 log rc mark plan=-1 n=0 np=0 nf=0 ns=0 t0
	local reason='' directive='' line HELD
	shift 3
	log=$RESULTS/$name.log
	mark=$KLOG_MARK
	objects_held
	t0=$EPOCHREALTIME

	if [ "$kind" = KTAP ]; then
		timeout -k 10 "$VM_TEST_TIMEOUT" "$@" < /dev/null 2>&1 | tee "$log" |
			awk '/^(KTAP version |[0-9]+\.\.[0-9]+|ok |not ok |#|  )/ {
				print "  " $0; fflush(); next }
			     { print "  # " $0; fflush() }'
		rc=${PIPESTATUS[0]}
	else
		# Raw output, but nothing in it may pass for the verdict line.
		timeout -k 10 "$VM_TEST_TIMEOUT" "$@" < /dev/null 2>&1 | tee "$log" |
			sed -u 's/^# vrdma-vm-verdict/ &/'
		rc=${PIPESTATUS[0]}
	fi

	if [ "$kind" = KTAP ]; then
		while IFS= read -r line; do
			case $line in
			[0-9]*..[0-9]*)
				[[ $line =~ ^1\.\.([0-9]+) ]] && plan=${BASH_REMATCH[1]} ;;
			"ok "*|"not ok "*)
				n=$((n + 1))
				if [[ $line =~ \#[[:space:]]*[Ss][Kk][Ii][Pp] ]]; then
					ns=$((ns + 1))
				elif [[ $line == "not ok "* ]]; then
					nf=$((nf + 1))
				else
					np=$((np + 1))
				fi ;;
			esac
		done < "$log"
		if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
			reason="timed out after $VM_TEST_TIMEOUT s"
		elif [ "$plan" -lt 0 ]; then
			reason="no KTAP plan (exit status $rc)"
		elif [ "$n" -ne "$plan" ]; then
			reason="planned $plan tests, reported $n (exit status $rc)"
		elif [ "$rc" -ne 0 ]; then
			reason="exit status $rc"
		fi
		PASS=$((PASS + np))
		FAIL=$((FAIL + nf))
		SKIP=$((SKIP + ns))
		TESTS=$((TESTS + n))
		if [ -n "$reason" ] && [ "$nf" -eq 0 ]; then
			FAIL=$((FAIL + 1))
			TESTS=$((TESTS + 1))
		fi
		[ "$nf" -gt 0 ] && reason="${reason:+$reason, }$nf of $n failed"
		if [ -z "$reason" ] && [ "$n" -eq 0 ]; then
			# "1..0 # SKIP why": a whole-script skip counts as one.
			SKIP=$((SKIP + 1))
			TESTS=$((TESTS + 1))
			directive=" # SKIP $(grep -m1 -oE '^1\.\.0 *# *SKIP.*' "$log" |
				sed -E 's/^1\.\.0 *# *SKIP *//')"
		elif [ -z "$reason" ] && [ "$ns" -eq "$n" ]; then
			directive=" # SKIP all subtests skipped"
		fi
	else
		TESTS=$((TESTS + 1))
		if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
			reason="timed out after $VM_TEST_TIMEOUT s"
		elif [ "$rc" -ne 0 ]; then
			reason="exit status $rc"
		fi
		if [ -n "$reason" ]; then
			FAIL=$((FAIL + 1))
		else
			PASS=$((PASS + 1))
		fi
	fi

	if [ -n "$reason" ]; then
		echo "not ok $idx $name # $reason"
	else
		echo "ok $idx $name$directive"
	fi
	# Time and free memory after each script: what a slow or starved
	# guest shows first
	seconds_since "$t0"
	mib_available
	echo "# $name took $SECONDS_SINCE s; $MIB_AVAILABLE MiB available"
	objects_audit "$name" "$HELD"
	local bad
	klog_bad_since "$mark"
	bad=$KLOG_BAD
	if [ -n "$bad" ]; then
		echo "# kernel log lines of concern during $name:"
		printf '%s\n' "$bad" | sed 's/^/#   /' | head -n 40
	fi
}

# script_timeout SCRIPT - set TIMEOUT to VM_TEST_TIMEOUT, or more when the
# script asks for it with a header line "# vm-test-timeout: SECONDS" in its
# first 40 (scripts that build the tree inside the guest, which TCG makes
# slow).
script_timeout() {
	local line n=0 re='^# vm-test-timeout: *([0-9]+)$'

	TIMEOUT=$VM_TEST_TIMEOUT
	while [ "$n" -lt 40 ] && IFS= read -r line; do
		n=$((n + 1))
		[[ $line =~ $re ]] || continue
		if [ "${BASH_REMATCH[1]}" -gt "$TIMEOUT" ]; then
			TIMEOUT=${BASH_REMATCH[1]}
		fi
		return 0
	done < "$1"
}

# --- what to run ------------------------------------------------------------

SCRIPTS=()
# script_name PATH - NAME of selftests/GROUP/NAME.sh, in NAME.  No command
# substitution: each fork and exec costs some 0.1 s under TCG, and the
# selection below compares every name asked for with every test.
script_name() {
	NAME=${1##*/}
	NAME=${NAME%.sh}
}

select_scripts() {
	local all=() w s hit NAME
	# The tests are those of the manifest, in its order
	while read -r s _; do
		case $s in '#'* | '') continue ;; esac
		all+=("$TOP/selftests/$s.sh")
	done < "$TOP/selftests/TESTS"
	if [ -z "${VM_TESTS// /}" ]; then
		SCRIPTS=("${all[@]}")
		return 0
	fi
	for w in $VM_TESTS; do
		w=${w%.sh}
		w=${w##*/}
		hit=0
		for s in "${all[@]}"; do
			script_name "$s"
			if [ "$NAME" = "$w" ]; then
				SCRIPTS+=("$s")
				hit=1
			fi
		done
		[ $hit = 1 ] && continue
		for s in "${all[@]}"; do
			script_name "$s"
			case $NAME in
			*"$w"*) SCRIPTS+=("$s"); hit=1 ;;
			esac
		done
		if [ $hit = 0 ]; then
			echo "# no selftest matches '$w'"
			BAD_SELECTION=1
		fi
	done
}

echo "KTAP version 1"
BAD_SELECTION=0
case $VM_MODE in
suite)
	select_scripts
	# A name given twice runs once.
	mapfile -t SCRIPTS < <(printf '%s\n' "${SCRIPTS[@]}" | awk 'NF && !seen[$0]++')
	N=${#SCRIPTS[@]}
	[ "$BAD_SELECTION" = 1 ] && N=$((N + 1))
	;;
*)	N=1 ;;
esac
[ "$SETUP_RC" -ne 0 ] && N=1
echo "1..$((N + 2))"
echo "# vm: kernel $(uname -r), booted in ${UPTIME} s, setup took ${SETUP_TIME} s"

idx=0
if [ "$SETUP_RC" -ne 0 ]; then
	echo "# vm: guest setup failed; its log (/results/setup.log):"
	tail -n 40 "$RESULTS/setup.log" | sed 's/^/#   /'
	echo "not ok 1 vm_setup # setup failed"
	FAIL=$((FAIL + 1))
	TESTS=$((TESTS + 1))
	idx=1
else
	case $VM_MODE in
	suite)
		if [ "$BAD_SELECTION" = 1 ]; then
			idx=$((idx + 1))
			echo "not ok $idx test_selection # no selftest matches some of: $VM_TESTS"
			FAIL=$((FAIL + 1))
			TESTS=$((TESTS + 1))
		fi
		for s in "${SCRIPTS[@]}"; do
			idx=$((idx + 1))
			script_name "$s"
			script_timeout "$s"
			VM_TEST_TIMEOUT=$TIMEOUT \
				run_one "$idx" "$NAME" KTAP bash "$s"
		done
		;;
	demo|bench)
		idx=1
		if [ -x "$TOP/selftests/$VM_MODE/$VM_MODE.sh" ]; then
			run_one 1 "$VM_MODE" RAW "$TOP/selftests/$VM_MODE/$VM_MODE.sh"
		else
			echo "# selftests/$VM_MODE.sh is not written yet.  The prepared guest has:"
			{ rdma dev; rdma link; lsmod | grep -E '^(vrdma|vrdma_vma|rdma_rxe|ib_uverbs|ib_core) ';
			  ls "$TOP/tools/vrdmactl/vrdmactl" "$TOP/kmod/vrdma.ko" \
			     "$TOP/kmod/vrdma_vma.ko"; } 2>&1 | sed 's/^/#   /'
			echo "ok 1 $VM_MODE # SKIP selftests/$VM_MODE.sh not written yet"
			SKIP=$((SKIP + 1))
			TESTS=$((TESTS + 1))
		fi
		;;
	shell)
		idx=1
		run_one 1 shell RAW bash -c "$VM_SHELL_CMD"
		;;
	esac
fi

idx=$((idx + 1))
dmesg > "$RESULTS/dmesg.txt"
bad=$(grep -aF -f "$KLOG_PATTERNS" "$RESULTS/dmesg.txt" |
      grep -avE -f <(sed '/^$/d' "$KLOG_ALLOWED"))
if [ -n "$bad" ]; then
	echo "# kernel log lines of concern:"
	printf '%s\n' "$bad" | sed 's/^/#   /' | head -n 60
	echo "not ok $idx kernel_log_clean # $(wc -l <<< "$bad") lines of concern in dmesg"
	FAIL=$((FAIL + 1))
else
	echo "ok $idx kernel_log_clean"
	PASS=$((PASS + 1))
fi

# Leak audit: every vdevice, shadow object, shadow ucontext holder and
# wrapped mapping the modules count (vrdma's debugfs; the last two lines
# are vrdma_vma's) must be gone once every test has cleaned up.
idx=$((idx + 1))
OBJECTS=/sys/kernel/debug/vrdma/objects
if [ ! -r "$OBJECTS" ]; then
	echo "ok $idx leak_audit # SKIP vrdma is not loaded"
	SKIP=$((SKIP + 1))
elif leaks=$(awk '$2 != 0 { printf "%s=%s ", $1, $2 }' "$OBJECTS") && [ -z "$leaks" ]; then
	echo "ok $idx leak_audit"
	PASS=$((PASS + 1))
else
	echo "not ok $idx leak_audit # still counted: $leaks"
	FAIL=$((FAIL + 1))
fi
echo "# vrdma-vm-verdict: passed=$PASS failed=$FAIL skipped=$SKIP tests=$TESTS"
