#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# CNI conformance of the vrdma plugin, the part that needs no module:
# VERSION and version negotiation (0.4.0 .. 1.1.0), each bad configuration
# as a CNI error with its code, per-pod limits against their caps, DEL
# without state, module or readable configuration, GC of stale state and
# CDI specs, STATUS and CHECK without the module, and that a failed ADD
# leaves nothing behind.  selftests/runtimes/cni.sh runs the rest against the
# module in the test VM.  With the module loaded the ADD cases below fail at the
# same points (before or at the kernel), so the script runs anywhere.
#
#   tests/conformance.sh [PATH-TO-PLUGIN]

RUN_ENV=()
# shellcheck source=tools/cni/tests/common.sh
. "$(dirname "$0")/common.sh"

# conf [EXTRA-JSON] [VERSION] - a plugin configuration with test dirs
conf() {
	jq -cn --arg s "$STATE" --arg c "$CDI" --arg v "${2:-1.1.0}" \
		--argjson x "${1:-{\}}" \
		'{cniVersion: $v, name: "rdmanet", type: "vrdma", parent: "rxe0",
		  stateDir: $s, cdiDir: $c} + $x'
}


# error DESC CODE CMD STDIN [VAR=VALUE...] - fails with CNI error CODE:
# exit status 1, one JSON object with cniVersion, code, msg on stdout
error() {
	local desc=$1 code=$2 status
	shift 2
	run "$@"
	status=$?
	if [ "$status" != 1 ]; then
		bad "$desc" "exit status $status, want 1"
	elif ! jq -e --argjson c "$code" '.code == $c and (.msg | length > 0) and
			(.cniVersion | type == "string")' "$tmp/out" >/dev/null 2>&1; then
		bad "$desc" "not a CNI error with code $code"
	else
		ok "$desc: code $code, $(jq -r '.msg + (if .details then " (" + .details + ")" else "" end)' "$tmp/out")"
	fi
}

# succeeds DESC CMD STDIN [VAR=VALUE...] - exit 0 and nothing on stdout
succeeds() {
	local desc=$1 status
	shift
	run "$@"
	status=$?
	if [ "$status" = 0 ] && [ ! -s "$tmp/out" ]; then
		ok "$desc"
	else
		bad "$desc" "exit status $status, or output"
	fi
}

# nothing_left DESC - no state file and no CDI spec (the lock file stays)
nothing_left() {
	if [ -z "$(find "$STATE" "$CDI" "$VRDMA_CNI_RECORDS" -type f ! -path "$STATE/.lock" 2>/dev/null)" ]; then
		ok "$1"
	else
		failed=$((failed + 1)); echo "FAIL $1:"
		find "$STATE" "$CDI" "$VRDMA_CNI_RECORDS" -type f
	fi
}

# --- VERSION -------------------------------------------------------------------

run VERSION ""
if jq -e '.cniVersion == "1.1.0" and .supportedVersions == ["0.4.0","1.0.0","1.1.0"]' \
	"$tmp/out" >/dev/null; then
	ok "VERSION without configuration: $(cat "$tmp/out")"
else
	bad "VERSION without configuration" "wrong answer"
fi
for v in 0.4.0 1.0.0 1.1.0; do
	run VERSION "$(conf '{}' "$v")"
	if jq -e --arg v "$v" '.cniVersion == $v' "$tmp/out" >/dev/null; then
		ok "VERSION answers in $v"
	else
		bad "VERSION answers in $v" "wrong cniVersion"
	fi
done

# --- version negotiation on ADD --------------------------------------------------

for v in 0.3.1 0.2.0 2.0.0; do
	error "ADD refuses cniVersion $v" 1 ADD "$(conf '{}' "$v")"
done
# Accepted versions reach the kernel: without the module that is error 100
# (module missing), with it 3 never happens since the namespace is a file
for v in 0.4.0 1.0.0 1.1.0; do
	run ADD "$(conf '{}' "$v")"
	if jq -e --arg v "$v" '.cniVersion == $v and .code >= 100' "$tmp/out" >/dev/null; then
		ok "ADD accepts cniVersion $v (error in $v: $(jq -r .msg "$tmp/out"))"
	else
		bad "ADD accepts cniVersion $v" "refused before the kernel"
	fi
done
nothing_left "a failed ADD leaves no state and no CDI spec"

# --- bad configurations ------------------------------------------------------------

error "not JSON"                    6 ADD '{"cniVersion": '
error "not an object"               6 ADD '["rxe0"]'
error "no cniVersion"               7 ADD '{"name": "n", "type": "vrdma", "parent": "rxe0"}'
error "no name"                     7 ADD '{"cniVersion": "1.1.0", "type": "vrdma", "parent": "rxe0"}'
error "bad network name"            7 ADD "$(conf '{"name": "a/b"}')"
error "no parent"                   7 ADD "$(conf '{"parent": null}' | jq -c 'del(.parent)')"
error "parent not a string"         7 ADD "$(conf '{"parent": 3}')"
error "gids not tenant or shared"   7 ADD "$(conf '{"gids": "all"}')"
error "gids not a string"          7 ADD "$(conf '{"gids": 1}')"
error "unknown key"                 2 ADD "$(conf '{"colour": "red"}')"
error "limits not an object"        7 ADD "$(conf '{"limits": "qp 64"}')"
error "unknown resource"            2 ADD "$(conf '{"limits": {"frobs": 1}}')"
error "limit not a number"          7 ADD "$(conf '{"limits": {"qp": "many"}}')"
error "negative limit"              7 ADD "$(conf '{"limits": {"qp": -1}}')"
error "acl not an object"           7 ADD "$(conf '{"acl": ["10.0.0.1"]}')"
error "acl unknown key"             2 ADD "$(conf '{"acl": {"hosts": []}}')"
error "acl bad address"             7 ADD "$(conf '{"acl": {"sgids": ["10.0.0.300"]}}')"
error "acl bad prefix"              7 ADD "$(conf '{"acl": {"peers": ["10.0.0.0/33"]}}')"
error "acl from prevResult, no ips" 7 ADD "$(conf '{"acl": {"sgids": "prevResult"}}')"
error "acl prevResult ip no address" 6 ADD "$(conf '{"acl": {"sgids": "prevResult"}, "prevResult": {"ips": [{"gateway": "10.0.0.1"}]}}')"
error "rdmaMax unknown key"         2 ADD "$(conf '{"rdmaMax": {"hca_handles": 2}}')"
error "rdmaMax not a count"         7 ADD "$(conf '{"rdmaMax": {"hca_handle": "2"}}')"
error "rdmaMax empty"               7 ADD "$(conf '{"rdmaMax": {}}')"
error "cdi not a boolean"           7 ADD "$(conf '{"cdi": "yes"}')"
error "rdmaCm not an object"        7 ADD "$(conf '{"rdmaCm": true}')"
error "rdmaCm unknown key"          2 ADD "$(conf '{"rdmaCm": {"enabled": true, "ports": [7471]}}')"
error "rdmaCm enabled not a boolean" 7 ADD "$(conf '{"rdmaCm": {"enabled": "on"}}')"
error "rdmaCm publish not a list"   7 ADD "$(conf '{"rdmaCm": {"enabled": true, "publish": 7471}}')"
error "rdmaCm port a string"        7 ADD "$(conf '{"rdmaCm": {"enabled": true, "publish": ["7471"]}}')"
error "rdmaCm port not an integer"  7 ADD "$(conf '{"rdmaCm": {"enabled": true, "publish": [7471.5]}}')"
error "rdmaCm port 0"               7 ADD "$(conf '{"rdmaCm": {"enabled": true, "publish": [0]}}')"
error "rdmaCm port 65536"           7 ADD "$(conf '{"rdmaCm": {"enabled": true, "publish": [65536]}}')"
error "rdmaCm port negative"        7 ADD "$(conf '{"rdmaCm": {"enabled": true, "publish": [-1]}}')"
error "rdmaCm port 2^64"            7 ADD "$(conf '{"rdmaCm": {"enabled": true, "publish": [18446744073709551616]}}')"
error "rdmaCm port listed twice"    7 ADD "$(conf '{"rdmaCm": {"enabled": true, "publish": [7471, 18515, 7471]}}')"
error "rdmaCm 17 ports"             7 ADD "$(conf "$(jq -cn '{rdmaCm: {enabled: true, publish: [range(7500; 7517)]}}')")"
error "rdmaCm publish without enabled" 7 ADD "$(conf '{"rdmaCm": {"publish": [7471]}}')"
error "rdmaCm publish, enabled false" 7 ADD "$(conf '{"rdmaCm": {"enabled": false, "publish": [7471]}}')"
# What passes the configuration fails later here, for want of the module
for cm in '{"enabled": true, "publish": [1, 65535, 7471, 7472, 7473, 7474, 7475, 7476, 7477, 7478, 7479, 7480, 7481, 7482, 7483, 7484]}' \
	  '{"enabled": true}' '{"enabled": false, "publish": []}' '{}'; do
	run ADD "$(conf "{\"rdmaCm\": $cm}")"
	if jq -e '.code != 2 and .code != 7' "$tmp/out" >/dev/null 2>&1; then
		ok "rdmaCm $cm passes (then: $(jq -r .msg "$tmp/out"))"
	else
		bad "rdmaCm $cm passes" "refused"
	fi
done
nothing_left "bad configurations leave nothing"

# --- environment ---------------------------------------------------------------------

error "no CNI_COMMAND"              4 "" "$(conf)"
error "unknown CNI_COMMAND"         4 FROB "$(conf)"
error "ADD without CNI_CONTAINERID" 4 ADD "$(conf)" CNI_CONTAINERID=
error "ADD without CNI_IFNAME"      4 ADD "$(conf)" CNI_IFNAME=
error "ADD without CNI_NETNS"       4 ADD "$(conf)" CNI_NETNS=
error "ADD into a missing netns"    3 ADD "$(conf)" CNI_NETNS=/nonexistent/ns
error "bad VRDMA_CDI_NAME"          4 ADD "$(conf)" CNI_ARGS="IgnoreUnknown=1;VRDMA_CDI_NAME=a/b"
error "bad pod name for CDI"        4 ADD "$(conf)" CNI_ARGS="K8S_POD_NAMESPACE=ns;K8S_POD_NAME=-x-"
# Without CDI a pod's name is no device name: nothing to refuse it for
# (it fails later here, for want of the module, with another code)
run ADD "$(conf '{"cdi": false}')" CNI_ARGS="K8S_POD_NAMESPACE=ns;K8S_POD_NAME=-x-"
if jq -e '.code == 4' "$tmp/out" >/dev/null 2>&1; then
	bad "pod name unchecked without CDI" "refused: $(jq -r .msg "$tmp/out")"
else
	ok "pod name unchecked without CDI"
fi

# --- per-pod limits --------------------------------------------------------------------

CAPS='{"limits": {"qp": 16}, "maxLimits": {"qp": 64, "mr": null}}'
error "per-pod limit without a cap"  101 ADD "$(conf "$CAPS" | jq -c '. + {runtimeConfig: {vrdmaLimits: {cq: 8}}}')"
error "per-pod limit above the cap"  101 ADD "$(conf "$CAPS" | jq -c '. + {runtimeConfig: {vrdmaLimits: {qp: 65}}}')"
error "args.cni limit above the cap" 101 ADD "$(conf "$CAPS" | jq -c '. + {args: {cni: {vrdmaLimits: {qp: 100}}}}')"
error "per-pod limit not a count"    7   ADD "$(conf "$CAPS" | jq -c '. + {runtimeConfig: {vrdmaLimits: {qp: 1.5}}}')"
run ADD "$(conf "$CAPS" | jq -c '. + {runtimeConfig: {vrdmaLimits: {qp: 64, mr: null}}}')"
if jq -e '.code >= 100 and .code != 101' "$tmp/out" >/dev/null; then
	ok "per-pod limits within the caps pass (then: $(jq -r .msg "$tmp/out"))"
else
	bad "per-pod limits within the caps pass" "refused"
fi

# --- DEL -------------------------------------------------------------------------------

succeeds "DEL without state (and without module)" DEL "$(conf)"
succeeds "DEL with a configuration it cannot read" DEL '{"cniVersion": '
succeeds "DEL with an unsupported cniVersion" DEL "$(conf '{}' 0.1.0)"
succeeds "DEL without CNI_NETNS" DEL "$(conf)" CNI_NETNS=
error "DEL without CNI_CONTAINERID" 4 DEL "$(conf)" CNI_CONTAINERID=

# A state file and the CDI spec of a pod whose vdevice is gone
mkdir -p "$STATE/rdmanet" "$CDI"
state() {	# CONTAINERID IFNAME VDEV POD
	jq -cn --arg id "$1" --arg i "$2" --arg v "$3" --arg p "$4" \
		'{containerID: $id, network: "rdmanet", ifname: $i, vdevice: $v,
		  podKey: $p, netns: "/x", chardev: "uverbs9", major: 231, minor: 201,
		  cgroup: ""}' >"$STATE/rdmanet/$3.json"
	echo '{}' >"$CDI/vrdma.io-pod-$4.json"
}
state c0ffee0123456789 net1 vrc0ffee012345-000000000001 ns_pod1
succeeds "DEL removes its state" DEL "$(conf)"
nothing_left "DEL left no state and no CDI spec"

# A configuration DEL cannot read names no stateDir or cdiDir: the record
# ADD wrote in a fixed place does
state c0ffee0123456789 net1 vrc0ffee012345-000000000001 ns_pod1
mkdir -p "$VRDMA_CNI_RECORDS"
jq -cn --arg s "$STATE" --arg c "$CDI" '{containerID: "c0ffee0123456789",
	network: "rdmanet", ifname: "net1", vdevice: "vrc0ffee012345-000000000001",
	stateDir: $s, cdi: true, cdiDir: $c, cdiVersion: "0.5.0"}' \
	>"$VRDMA_CNI_RECORDS/vrc0ffee012345-000000000001.json"
succeeds "DEL with an unreadable configuration and a custom stateDir" DEL '{"cniVersion": '
nothing_left "DEL left no state, CDI spec or record in the recorded directories"

# --- GC --------------------------------------------------------------------------------

state keep0000 net1 vrkeep0000-000000000001 ns_keep
state keep0000 net2 vrkeep0000-000000000002 ns_keep
state gone0000 net1 vrgone0000-000000000003 ns_gone
error "GC without valid-attachments" 7 GC "$(conf)"
succeeds "GC" GC "$(conf '{"cni.dev/valid-attachments": [{"containerID": "keep0000", "ifname": "net1"}]}')"
left=$(find "$STATE/rdmanet" -type f -printf "%f\n" | sort | xargs)
if [ "$left" = "vrkeep0000-000000000001.json" ] && [ -e "$CDI/vrdma.io-pod-ns_keep.json" ] &&
   [ ! -e "$CDI/vrdma.io-pod-ns_gone.json" ] &&
   jq -e '.kind == "vrdma.io/pod" and ([.devices[].name] == ["ns_keep", "ns_keep-net1"]) and
	  .devices[0].containerEdits.deviceNodes[0] ==
	  {path: "/dev/infiniband/uverbs9", type: "c", major: 231, minor: 201, permissions: "rw",
	   fileMode: 438}' \
	"$CDI/vrdma.io-pod-ns_keep.json" >/dev/null; then
	ok "GC removed the stale attachments and rewrote the pod's CDI spec"
else
	failed=$((failed + 1)); echo "FAIL GC: state left: $left"; ls "$CDI"
	cat "$CDI"/* 2>/dev/null
fi
succeeds "GC with the old key cni.dev/attachments" GC "$(conf '{"cni.dev/attachments": []}')"
nothing_left "GC of an empty list leaves nothing"

# Records the state does not show: an ADD that died between its record and
# its state file (an orphan record: its vdevice may exist), and an
# attachment whose state is in another stateDir (the configuration
# changed since its ADD).  GC collects those of its network that are not
# valid, and keeps a valid attachment's and another network's.
record() {	# CONTAINERID IFNAME VDEV [NETWORK [STATEDIR]]
	mkdir -p "$VRDMA_CNI_RECORDS"
	jq -cn --arg id "$1" --arg i "$2" --arg v "$3" --arg n "${4:-rdmanet}" \
		--arg s "${5:-$STATE}" --arg c "$CDI" '{containerID: $id,
		network: $n, ifname: $i, vdevice: $v, stateDir: $s, cdi: true,
		cdiDir: $c, cdiVersion: "0.5.0"}' >"$VRDMA_CNI_RECORDS/$3.json"
}
record orph0000 net1 vrorph0000-000000000001
record keep0000 net1 vrkeep0000-000000000002
record othr0000 net1 vrothr0000-000000000003 othernet
state gone0000 net1 vrgone0000-000000000004 ns_gone
mkdir -p "$tmp/oldstate/rdmanet"
mv "$STATE/rdmanet/vrgone0000-000000000004.json" "$tmp/oldstate/rdmanet/"
record gone0000 net1 vrgone0000-000000000004 rdmanet "$tmp/oldstate"
succeeds "GC with orphan records" GC \
	"$(conf '{"cni.dev/valid-attachments": [{"containerID": "keep0000", "ifname": "net1"}]}')"
left=$(find "$VRDMA_CNI_RECORDS" "$tmp/oldstate" "$CDI" -type f ! -name .lock -printf "%f\n" | sort | xargs)
if [ "$left" = "vrkeep0000-000000000002.json vrothr0000-000000000003.json" ]; then
	ok "GC removed the orphan record and the state of another stateDir, kept the valid and the other network's"
else
	failed=$((failed + 1)); echo "FAIL GC of orphan records: left: $left"
fi
rm -rf "$VRDMA_CNI_RECORDS" "$tmp/oldstate"
nothing_left "GC with orphan records leaves nothing else"

# --- CDI device names are one pod's only -------------------------------------------------

# "KEY-IFNAME" is not injective: another pod's names are refused (103)
# before the kernel is asked; without the module an ADD that passes fails
# later with 100
mkdir -p "$STATE/rdmanet" "$CDI"
state a0000000 b-c vra0000000-000000000001 a
state a0000001 net1 vra0000001-000000000002 p
error "CDI name: pod a-b with c is pod a with b-c" 103 ADD "$(conf)" \
	CNI_ARGS="VRDMA_CDI_NAME=a-b" CNI_IFNAME=c
error "CDI name: pod a-b-c is pod a with b-c" 103 ADD "$(conf)" \
	CNI_ARGS="VRDMA_CDI_NAME=a-b-c"
error "CDI name: pod p-net1 is pod p with net1" 103 ADD "$(conf)" \
	CNI_ARGS="VRDMA_CDI_NAME=p-net1"
error "CDI name: ifname that no CDI name may hold" 4 ADD "$(conf)" \
	CNI_ARGS="VRDMA_CDI_NAME=q" CNI_IFNAME='net@1'
run ADD "$(conf)" CNI_ARGS="VRDMA_CDI_NAME=a-b" CNI_IFNAME=d
if jq -e '.code != 103' "$tmp/out" >/dev/null; then
	ok "CDI name: pod a-b with d is free (then: $(jq -r .msg "$tmp/out"))"
else
	bad "CDI name: pod a-b with d is free" "refused"
fi
run ADD "$(conf)" CNI_ARGS="VRDMA_CDI_NAME=a" CNI_IFNAME=net2 CNI_CONTAINERID=a0000000
if jq -e '.code != 103' "$tmp/out" >/dev/null; then
	ok "CDI name: a second attachment of pod a is no collision"
else
	bad "CDI name: a second attachment of pod a is no collision" "refused"
fi
rm -rf "$STATE" "$CDI"

# --- concurrent DELs and GC of one pod -------------------------------------------------

# Eight attachments of one pod go at once (seven DELs and a GC, each its
# own process) while a ninth stays: every one must succeed, and the pod's
# CDI spec must end up naming the one left, whoever writes it last.  Each
# writer rewrites the spec from the state it sees, so this needs the lock
# and a temporary file of its own.
race_round() {
	local i pids=() rc=0 names
	rm -rf "$STATE" "$CDI"
	mkdir -p "$STATE/rdmanet" "$CDI"
	for i in 0 1 2 3 4 5 6 7 8; do
		state "race000$i" net1 "vrrace000$i-00000000000$i" ns_race
	done
	for i in 0 1 2 3 4 5 6; do
		env CNI_COMMAND=DEL CNI_CONTAINERID="race000$i" CNI_IFNAME=net1 \
			CNI_NETNS="$NS" "$PLUGIN" <<<"$(conf)" >"$tmp/race$i" 2>&1 &
		pids+=($!)
	done
	env CNI_COMMAND=GC "$PLUGIN" <<<"$(conf '{"cni.dev/valid-attachments":
		[{"containerID": "race0000"}, {"containerID": "race0001"},
		 {"containerID": "race0002"}, {"containerID": "race0003"},
		 {"containerID": "race0004"}, {"containerID": "race0005"},
		 {"containerID": "race0006"}, {"containerID": "race0008"}]}')" \
		>"$tmp/race7" 2>&1 &
	pids+=($!)
	for i in "${pids[@]}"; do
		wait "$i" || rc=1
	done
	names=$(jq -c '[.devices[].name]' "$CDI/vrdma.io-pod-ns_race.json" 2>&1)
	if [ "$rc" != 0 ] || [ "$names" != '["ns_race","ns_race-net1"]' ] ||
	   [ "$(find "$STATE" "$CDI" -type f ! -path "$STATE/.lock" | wc -l)" != 2 ]; then
		echo "     round $1: status $rc, spec devices $names"
		cat "$tmp"/race[0-7] | sed 's/^/     /'
		find "$STATE" "$CDI" -type f | sed 's/^/     left: /'
		return 1
	fi
	# the one left is race0008's
	jq -e '.devices[0].containerEdits.deviceNodes | length == 1' \
		"$CDI/vrdma.io-pod-ns_race.json" >/dev/null
}
race_bad=0
for round in $(seq 20); do
	race_round "$round" || race_bad=$((race_bad + 1))
done
if [ "$race_bad" = 0 ]; then
	ok "7 DELs and a GC of one pod at once, 20 rounds: the CDI spec names what is left"
else
	failed=$((failed + 1)); echo "FAIL concurrent DELs and GC: $race_bad of 20 rounds wrong"
fi
rm -rf "$STATE" "$CDI"

# --- STATUS, CHECK ------------------------------------------------------------------------

if [ -d /sys/module/vrdma ]; then
	echo "skip STATUS without the module: vrdma is loaded"
else
	error "STATUS without the module" 50 STATUS "$(conf)"
fi
error "CHECK without state" 104 CHECK "$(conf)"

echo "vrdma CNI conformance (no module): $passed passed, $failed failed"
[ "$failed" = 0 ]
