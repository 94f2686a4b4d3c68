#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The hardware validation kit: runs vrdma's parent-independent selftests
# and rdma-core's own pyverbs tests on a vdevice of PARENT, the pyverbs
# tests on PARENT itself as well, librdmacm's rping and ucmatose from a
# vdevice with "cm on" to a listener on PARENT, and writes a report to
# attach to a bug.
#
#   selftests/hw/hwcheck.sh [-o REPORT] [-t "TESTS"] [-p all|quick|none|"MODULES"] [-c ADDR/LEN] PARENT
#   make hwcheck PARENT=mlx5_0 [HWCHECK_ARGS="-p quick -c 192.0.2.77/24"]
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
# -c  rdma_cm: a free IPv4 address (with its prefix length) in the subnet
#     of PARENT's RoCE address, for a tenant on a macvlan of PARENT's
#     netdev; without it the rdma_cm part is skipped
#
# Exit status: 0 when every selftest passed, every pyverbs test that
# passes on PARENT passes on the vdevice too and the rdma_cm part passed
# or was skipped; 1 otherwise; 2 on bad usage
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
	sed -n '10,33p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

CM_ADDR=
while getopts "o:t:p:c:h" opt; do
	case $opt in
	o) REPORT=$OPTARG ;;
	c) [[ $OPTARG =~ ^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+/[0-9]+$ ]] || {
		echo "hwcheck: -c takes an IPv4 address and its prefix length, not '$OPTARG'" >&2; exit 2; }
	   CM_ADDR=$OPTARG ;;
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
CM_NS=
# the rdma_cm part's static neighbour in this namespace: "ADDR dev NETDEV"
CM_NEIGH=
cleanup() {
	[ -n "$NS" ] && {
		"$TOP/tools/vrdmactl/vrdmactl" dev del "hwk$$" 2>/dev/null
		ip netns del "$NS" 2>/dev/null
	}
	[ -n "$CM_NS" ] && {
		"$TOP/tools/vrdmactl/vrdmactl" dev del "hwc$$" 2>/dev/null
		ip netns del "$CM_NS" 2>/dev/null
		ip link del "hwc$$" 2>/dev/null
	}
	# shellcheck disable=SC2086  # address and device
	[ -n "$CM_NEIGH" ] && ip neigh del $CM_NEIGH 2>/dev/null
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

# --- rdma_cm --------------------------------------------------------------
#
# A tenant in netns CM_NS: a macvlan of PARENT's netdev with the -c
# address, a vdevice of PARENT with "cm on"; the listener natively on
# PARENT's RoCE address in this namespace.  A macvlan does not reach its
# lower device's own addresses by ARP (its frames leave by the wire), so
# each side gets the other's MAC as a static neighbour; the RoCE packets
# themselves go from the port to its own MAC, which the NIC loops back.

CM_DBG=/sys/kernel/debug/vrdma/objects
CM_RUNS=${HWCHECK_CM_RUNS:-10}

# cm_objects NAME - vrdma's debugfs count NAME (kobj, cmconn), or nothing
cm_objects() {
	awk -v k="$1" '$1 == k { print $2 }' "$CM_DBG" 2>/dev/null
}

# cm_listening ADDR PORT - an rdma_cm id listens on ADDR:PORT here
cm_listening() {
	rdma res show cm_id 2>/dev/null | grep -q "state LISTEN .*src-addr $1:$2 "
}

# cm_wait SECONDS CMD... - poll CMD every 0.2 s for up to SECONDS
cm_wait() {
	local i
	for ((i = 0; i < $1 * 5; i++)); do
		"${@:2}" && return 0
		sleep 0.2
	done
	return 1
}

# cm_skip_reason - why the rdma_cm part cannot run on PARENT, or nothing
cm_skip_reason() {
	local ll sys=/sys/class/infiniband/$PARENT
	ll=$(cat "$sys/ports/1/link_layer" 2>/dev/null)
	if [ -z "$CM_ADDR" ]; then
		echo "no tenant address given (-c ADDR/LEN)"
	elif [ "$ll" != Ethernet ]; then
		echo "$PARENT port 1 is not a RoCE port (link layer ${ll:-unknown})"
	elif [ ! -e "$sys/device" ]; then
		# rxe receives RoCE in its netdev's namespace only: a tenant's
		# own address needs an rxe on the tenant's macvlan, a parent per
		# tenant, which selftests/cm/rdma_cm.sh sets up
		echo "$PARENT is a software device (no bus device): rxe carries a tenant's own address only with an rxe of its own (selftests/cm/rdma_cm.sh)"
	elif [ ! -d "$sys/ports/1/cm_rx_msgs" ]; then
		echo "the kernel's CM (ib_cm) is not attached to $PARENT (modprobe rdma_ucm)"
	fi
}

# cm_pair NAME SERVER CLIENT - the listener (SERVER, a command line) here
# on HOST_IP:PORT, then CLIENT in CM_NS; outputs in WORK/NAME.{srv,cli}.
# PORT is the last word of neither: both take -p.
cm_pair() {
	local name=$1 spid src crc
	# shellcheck disable=SC2086  # command lines
	timeout 60 $2 >"$WORK/$name.srv" 2>&1 &
	spid=$!
	if ! cm_wait 20 cm_listening "$HOST_IP" "$CM_PORT"; then
		kill "$spid" 2>/dev/null
		wait "$spid"
		say "$name: FAIL: the listener never listened: $(tail -n 3 "$WORK/$name.srv" | tr '\n' ' ')"
		return 1
	fi
	# shellcheck disable=SC2086
	ip netns exec "$CM_NS" timeout 60 $3 >"$WORK/$name.cli" 2>&1
	crc=$?
	[ "$crc" -eq 0 ] || kill "$spid" 2>/dev/null
	wait "$spid"
	src=$?
	[ "$src" -eq 0 ] && [ "$crc" -eq 0 ] && return 0
	say "$name: FAIL: listener status $src, client status $crc"
	sed 's/^/    listener: /' "$WORK/$name.srv" | tail -n 10 >&3
	sed 's/^/    client: /' "$WORK/$name.cli" | tail -n 10 >&3
	return 1
}

# cm_check - the rdma_cm part; 1 on a failure
cm_check() {
	local ndev pmac tmac kobj0 out pings vd=hwc$$ mv=hwc$$ ip=${CM_ADDR%/*} rc=0
	local gid
	gid=$(cat "/sys/class/infiniband/$PARENT/ports/1/gids/$GIDX")
	HOST_IP=$(printf '%d.%d.%d.%d' "0x${gid:30:2}" "0x${gid:32:2}" \
		"0x${gid:35:2}" "0x${gid:37:2}")
	ndev=$(cat "/sys/class/infiniband/$PARENT/ports/1/gid_attrs/ndevs/$GIDX")
	pmac=$(cat "/sys/class/net/$ndev/address")
	say "listener: $HOST_IP on $PARENT ($ndev); tenant: $CM_ADDR on a macvlan of $ndev"
	kobj0=$(cm_objects kobj)
	CM_NS=hwcheck-cm-$$
	if ! ip netns add "$CM_NS" || ! ip -n "$CM_NS" link set lo up ||
	   ! ip link add "$mv" link "$ndev" type macvlan mode bridge ||
	   ! ip link set "$mv" netns "$CM_NS" ||
	   ! ip -n "$CM_NS" addr add "$CM_ADDR" dev "$mv" ||
	   ! ip -n "$CM_NS" link set "$mv" up; then
		say "rdma_cm: FAIL: cannot make the tenant's macvlan on $ndev"
		return 1
	fi
	tmac=$(ip netns exec "$CM_NS" cat "/sys/class/net/$mv/address")
	if ! ip -n "$CM_NS" neigh replace "$HOST_IP" lladdr "$pmac" dev "$mv" nud permanent ||
	   ! ip neigh replace "$ip" lladdr "$tmac" dev "$ndev" nud permanent; then
		say "rdma_cm: FAIL: static neighbours"
		return 1
	fi
	CM_NEIGH="$ip dev $ndev"
	if ! out=$("$TOP/tools/vrdmactl/vrdmactl" dev add "$vd" parent "$PARENT" \
		netns "$CM_NS" cm on 2>&1); then
		if grep -qiE 'not supported|unsupported' <<<"$out"; then
			say "rdma_cm: skipped: vrdma cannot offer the CM here: $out"
			return 0
		fi
		say "rdma_cm: FAIL: vrdmactl dev add $vd ... cm on: $out"
		return 1
	fi
	CM_PORT=18471
	if cm_pair rping "rping -s -a $HOST_IP -p $CM_PORT -C $CM_RUNS -v" \
		"rping -c -a $HOST_IP -I $ip -p $CM_PORT -C $CM_RUNS -v"; then
		pings=$(grep -c 'ping data' "$WORK/rping.cli")
		if [ "$pings" -eq "$CM_RUNS" ]; then
			say "rping: pass ($pings pings)"
		else
			say "rping: FAIL: $pings pings of $CM_RUNS"
			rc=1
		fi
	else
		rc=1
	fi
	CM_PORT=18472
	if cm_pair ucmatose "ucmatose -b $HOST_IP -p $CM_PORT -c 4 -C $CM_RUNS" \
		"ucmatose -s $HOST_IP -b $ip -p $CM_PORT -c 4 -C $CM_RUNS"; then
		say "ucmatose: pass ($(tail -n 1 "$WORK/ucmatose.cli"))"
	else
		rc=1
	fi
	# at rest: no connection left in the proxy, and the vdevice's kernel
	# objects (the MAD layer's PD, CQ and QP1) gone with it
	"$TOP/tools/vrdmactl/vrdmactl" dev del "$vd"
	if [ ! -r "$CM_DBG" ]; then
		say "at rest: not checked (no $CM_DBG: debugfs not mounted)"
	elif cm_wait 30 test "$(cm_objects cmconn)" = 0 &&
	     cm_wait 30 test "$(cm_objects kobj)" = "$kobj0"; then
		say "at rest: pass (proxy connections 0, kernel objects $kobj0)"
	else
		say "at rest: FAIL: proxy connections $(cm_objects cmconn), kernel objects $(cm_objects kobj) (before: $kobj0)"
		rc=1
	fi
	return $rc
}

section "rdma_cm (-c)"
why=$(cm_skip_reason)
if [ -n "$why" ]; then
	say "rdma_cm: skipped: $why"
elif ! command -v rping >/dev/null || ! command -v ucmatose >/dev/null; then
	say "rdma_cm: not run: rping and ucmatose (rdmacm-utils) are not installed"
	failed=1
elif ! cm_check; then
	failed=1
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
