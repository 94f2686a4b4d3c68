#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The hardware validation kit: runs vrdma's parent-independent selftests
# and rdma-core's own pyverbs tests on a vdevice of PARENT, the pyverbs
# tests on PARENT itself as well, and writes a report to attach to a bug.
#
#   selftests/hw/hwcheck.sh [-o REPORT] [-t "TESTS"] [-p all|quick|none|"MODULES"] PARENT
#   make hwcheck PARENT=mlx5_0 [HWCHECK_ARGS="-p quick"]
#
# Run it as root on a real host, from a built tree (make all): vrdma
# installed and loaded (modprobe vrdma), ib_core in exclusive netns mode,
# PARENT a RoCE port with an IPv4 address, python3-pyverbs installed for
# the pyverbs part.  It creates network namespaces and vdevices of its own
# and removes them; it does not touch other vdevices.  The selftests run
# here too, in the test VM, against rxe (selftests/sim/hwcheck.sh) and
# against rdmasim's mlx5 personality (selftests/sim/hwcheck_mlx5.sh), so
# the kit cannot rot.
#
# -t  the selftests to run (default: $DEFAULT_TESTS)
# -p  pyverbs tests: all, quick (device, PD, shared PD, CQ, MR, QP, mlx5
#     UAR), none, or the test modules named ("test_pd test_cq")
# -o  where to write the report (default: ./vrdma-hwcheck-PARENT.txt)
#
# Exit status: 0 when every selftest passed and every pyverbs test that
# passes on PARENT passes on the vdevice too; 1 otherwise; 2 on bad usage
# or a host that is not ready (the report says why).

set -uo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
DEFAULT_TESTS="visibility verbs traffic shadow_owner quota kill_mid_traffic ud_post"
TESTS=$DEFAULT_TESTS
PYVERBS=quick
REPORT=
PYVERBS_QUICK="test_device test_pd test_shared_pd test_cq test_mr test_qp test_mlx5_uar"
PYVERBS_DIR=/usr/share/doc/rdma-core/tests

usage() {
	sed -n '7,27p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

while getopts "o:t:p:h" opt; do
	case $opt in
	o) REPORT=$OPTARG ;;
	t) TESTS=$OPTARG ;;
	p) case $OPTARG in
	   all|quick|none) PYVERBS=$OPTARG ;;
	   test_*) [[ $OPTARG =~ ^test_[a-z0-9_]+( test_[a-z0-9_]+)*$ ]] || {
			echo "hwcheck: -p: '$OPTARG' is not a list of test modules" >&2; exit 2; }
		PYVERBS=$OPTARG ;;
	   *) echo "hwcheck: -p takes all, quick, none or test modules, not '$OPTARG'" >&2; exit 2 ;;
	   esac ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || usage
PARENT=$1
REPORT=${REPORT:-./vrdma-hwcheck-$PARENT.txt}

WORK=$(mktemp -d /tmp/vrdma-hwcheck.XXXXXX)
NS=
cleanup() {
	[ -n "$NS" ] && {
		"$TOP/tools/vrdmactl/vrdmactl" dev del "hwk$$" 2>/dev/null
		ip netns del "$NS" 2>/dev/null
	}
	rm -rf "$WORK"
}
trap cleanup EXIT

exec 3>"$REPORT" || exit 2
say() {		# to the report and the terminal
	echo "$*" >&3
	echo "$*"
}
section() {
	say ""
	say "== $* =="
}
not_ready() {
	say "hwcheck: host not ready: $*"
	say "verdict: not-ready"
	exit 2
}

section "vrdma hardware check of $PARENT"
say "date: $(date -u +%FT%TZ)"
say "kernel: $(uname -r) ($(uname -v))"
tree=$(git -C "$TOP" describe --always --dirty 2>/dev/null) || tree=$(cat "$TOP/VERSION")
say "vrdma: $(cat /sys/module/vrdma/version 2>/dev/null || echo 'not loaded'), tree $tree"
say "rdma-core: $(dpkg-query -W -f='${Version}' libibverbs1 2>/dev/null || rpm -q --qf '%{VERSION}' libibverbs 2>/dev/null || echo unknown)"
say "netns mode: $(rdma system show 2>/dev/null | grep -o 'netns [a-z]*' || echo unknown)"
say "parent: $(rdma dev show "$PARENT" 2>/dev/null || echo 'not found')"
say "parent link: $(rdma link show "$PARENT/1" 2>/dev/null)"
say "parent driver: $(basename "$(readlink -f "/sys/class/infiniband/$PARENT/device/driver" 2>/dev/null)" 2>/dev/null) fw $(cat "/sys/class/infiniband/$PARENT/fw_ver" 2>/dev/null)"

[ "$(id -u)" -eq 0 ] || not_ready "run as root"
[ -d /sys/module/vrdma ] || not_ready "vrdma is not loaded (modprobe vrdma)"
rdma system show 2>/dev/null | grep -q 'netns exclusive' ||
	not_ready "ib_core is not in exclusive netns mode (Documentation/admin-guide.rst)"
[ -e "/sys/class/infiniband/$PARENT" ] || not_ready "no RDMA device $PARENT"
if [ ! -x "$TOP/tools/vrdmactl/vrdmactl" ] || [ ! -x "$TOP/selftests/progs/exq_udata" ]; then
	not_ready "the tree is not built (make all)"
fi

# The first RoCE v2 GID of port 1 with an IPv4 address: what the selftests
# and pyverbs use to connect (rxe in the test VM: index 1).
GIDX=
for g in /sys/class/infiniband/"$PARENT"/ports/1/gids/*; do
	i=${g##*/}
	[ "$(cat "/sys/class/infiniband/$PARENT/ports/1/gid_attrs/types/$i" 2>/dev/null)" = "RoCE v2" ] || continue
	case $(cat "$g") in 0000:0000:0000:0000:0000:ffff:*) GIDX=$i; break ;; esac
done
[ -n "$GIDX" ] || not_ready "$PARENT port 1 has no RoCE v2 GID with an IPv4 address"
say "gid index: $GIDX ($(cat "/sys/class/infiniband/$PARENT/ports/1/gids/$GIDX"))"

klog_start=$(dmesg | wc -l)
failed=0

section "selftests ($TESTS)"
for t in $TESTS; do
	# a test's script is selftests/GROUP/NAME.sh (selftests/TESTS)
	script=$(awk -v n="$t" '!/^#/ && NF { s = $1; sub(/.*\//, "", s)
		if (s == n) print $1 }' "$TOP/selftests/TESTS")
	if [ -z "$script" ] || [ ! -r "$TOP/selftests/$script.sh" ]; then
		say "$t: no such selftest"
		failed=1
		continue
	fi
	VRDMA_PARENT=$PARENT GIDX=$GIDX TEST_NAME=$t \
		timeout 900 bash "$TOP/selftests/$script.sh" >"$WORK/$t.ktap" 2>&1
	rc=$?
	summary=$(grep -cE '^ok ' "$WORK/$t.ktap")/$(grep -cE '^(not )?ok ' "$WORK/$t.ktap")
	if [ $rc -eq 0 ]; then
		say "$t: pass ($summary ok)"
	else
		say "$t: FAIL (exit $rc, $summary ok)"
		# The failures with what they printed (a reason spans lines)
		grep -vE '^(ok |#|KTAP|1\.\.)' "$WORK/$t.ktap" | tail -n 80 | sed 's/^/    /' >&3
		failed=1
	fi
done

# run_pyverbs DEV NS OUT - rdma-core's tests on DEV (in netns NS, or "" for
# this one), verbose, into OUT.
run_pyverbs() {
	local dev=$1 ns=$2 out=$3 mods
	case $PYVERBS in
	all) mods= ;;
	quick) mods=$PYVERBS_QUICK ;;
	*) mods=$PYVERBS ;;
	esac
	# shellcheck disable=SC2086  # module names
	${ns:+ip netns exec "$ns"} timeout 1800 python3 "$WORK/tests/run_tests.py" \
		--dev "$dev" --port 1 --gid "$GIDX" -v $mods >"$out" 2>&1
}

# outcomes FILE DEV - "TEST|RESULT" lines of a unittest -v run on DEV,
# sorted.  A test with a docstring has its name on one line and the
# docstring's first line, ending in " ... RESULT", on the next.  A skip
# keeps its reason, with the device's name as DEV, so that a test skipped
# for another reason on the other side shows as a difference.
outcomes() {
	awk -v dev="$2" '
		/^test_[^ ]+ \([^)]*\)$/ { name = $0; next }
		/ \.\.\. / {
			res = $0; sub(/.* \.\.\. /, "", res)
			if (/^test_[^ ]+ \([^)]*\) \.\.\. /) { name = $0; sub(/ \.\.\. .*/, "", name) }
			if (name == "") next
			gsub(dev, "DEV", res)
			print name "|" res; name = ""
		}' "$1" | sort
}

section "pyverbs ($PYVERBS)"
if [ "$PYVERBS" = none ]; then
	say "not run (-p none)"
elif ! python3 -c 'import pyverbs' 2>/dev/null || [ ! -r "$PYVERBS_DIR/run_tests.py" ]; then
	say "not run: python3-pyverbs is not installed"
	failed=1
else
	cp -r "$PYVERBS_DIR" "$WORK/tests"
	find "$WORK/tests" -name '*.gz' -exec gunzip -q {} +
	NS=hwcheck-$$
	if ! ip netns add "$NS" || ! ip -n "$NS" link set lo up ||
	   ! "$TOP/tools/vrdmactl/vrdmactl" dev add "hwk$$" parent "$PARENT" gids shared netns "$NS" >"$WORK/add" 2>&1; then
		not_ready "cannot create a vdevice on $PARENT: $(cat "$WORK/add")"
	fi
	run_pyverbs "$PARENT" "" "$WORK/native.txt"
	run_pyverbs "hwk$$" "$NS" "$WORK/vdev.txt"
	outcomes "$WORK/native.txt" "$PARENT" >"$WORK/native.out"
	outcomes "$WORK/vdev.txt" "hwk$$" >"$WORK/vdev.out"
	for side in native vdev; do
		say "$side: $(cut -d'|' -f2 "$WORK/$side.out" | cut -d' ' -f1 | sort | uniq -c | awk '{ printf "%s %s, ", $1, $2 }')$(tail -n 1 "$WORK/$side.txt")"
	done
	# Test by test, "NAME|NATIVE|VDEVICE"; a test one side did not run
	# is "missing" there
	join -t'|' -a1 -a2 -e missing -o 0,1.2,2.2 "$WORK/native.out" \
		"$WORK/vdev.out" >"$WORK/both"
	# A test that passes on the parent must pass on the vdevice.
	awk -F'|' '$2 == "ok" && $3 != "ok"' "$WORK/both" >"$WORK/regressed"
	if [ -s "$WORK/regressed" ] || [ ! -s "$WORK/native.out" ]; then
		say "passes on $PARENT, not on the vdevice:"
		sed 's/^/    /; s/|/: /; s/|/ -> /' "$WORK/regressed" >&3
		cat "$WORK/regressed"
		failed=1
	else
		say "every test that passes on $PARENT passes on the vdevice"
	fi
	# Every other difference, for the reader to explain: a test that
	# fails natively and passes on the vdevice, or is skipped on one side
	awk -F'|' '$2 != $3 && $2 != "ok"' "$WORK/both" >"$WORK/differ"
	say "tests whose result differs otherwise: $(wc -l <"$WORK/differ")"
	sed 's/^/    /; s/|/: /; s/|/ -> /' "$WORK/differ" >&3
	echo "--- pyverbs test by test: on $PARENT -> on the vdevice ---" >&3
	sed 's/^/    /; s/|/: /; s/|/ -> /' "$WORK/both" >&3
	echo "--- pyverbs on the vdevice, failures ---" >&3
	grep -A15 -E '^(FAIL|ERROR):' "$WORK/vdev.txt" | head -n 200 >&3
	echo "--- pyverbs on $PARENT, failures ---" >&3
	grep -A15 -E '^(FAIL|ERROR):' "$WORK/native.txt" | head -n 200 >&3
fi

section "kernel log"
dmesg | tail -n +"$((klog_start + 1))" >"$WORK/klog"
if grep -qiE 'WARNING:|BUG:|Oops|general protection|KASAN|UBSAN|lockdep|circular locking' "$WORK/klog"; then
	say "kernel problems during the run:"
	failed=1
else
	say "no kernel warning during the run"
fi
tail -n 100 "$WORK/klog" >&3

section "verdict"
if [ $failed = 0 ]; then
	say "verdict: pass"
else
	say "verdict: FAIL"
fi
echo "report: $REPORT"
exit $failed
