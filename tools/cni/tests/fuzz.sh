#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Bad input for the vrdma CNI plugin, the part that needs no module: a
# table of bad CNI_ variables and CNI_ARGS with the error each must get,
# then every key of a full configuration (and of its nested objects, and
# CNI_ARGS) replaced in turn by values of every JSON type and some hostile
# strings, under ADD, GC and DEL.  Whatever the input, the plugin
# must exit 0 or 1 (never die of a signal), print nothing or one CNI error
# object (cniVersion, a code, a non-empty msg) on stdout, and leave no
# state file, CDI spec or record behind.  With the module loaded the ADDs
# that pass fail at the kernel on "parent" "nosuchparent0".
#
#   tests/fuzz.sh [PATH-TO-PLUGIN]

CONTAINER_ID=f00d0123456789
RUN_ENV=(CNI_ARGS="IgnoreUnknown=1;K8S_POD_NAMESPACE=ns;K8S_POD_NAME=fuzz")
# shellcheck source=tools/cni/tests/common.sh
. "$(dirname "$0")/common.sh"

BASE=$(jq -cn --arg s "$STATE" --arg c "$CDI" '{
	cniVersion: "1.1.0", name: "fuzznet", type: "vrdma",
	parent: "nosuchparent0", stateDir: $s, cdiDir: $c, cdi: true,
	cdiVersion: "0.5.0", cgroupRoot: "/sys/fs/cgroup",
	limits: {qp: 16}, maxLimits: {qp: 64},
	acl: {sgids: ["10.0.0.1"], peers: ["10.0.0.0/24"]},
	rdmaMax: {hca_handle: 2},
	rdmaCm: {enabled: true, publish: [7471, 18515]},
	runtimeConfig: {vrdmaLimits: {qp: 32}},
	args: {cni: {vrdmaLimits: {qp: 8}}},
	prevResult: {cniVersion: "1.1.0", ips: [{address: "10.0.0.1/24"}]},
	"cni.dev/valid-attachments": [{containerID: "x", ifname: "net1"}]}')


# sane - the last run exited 0 or 1, printed nothing, a result or one
# CNI error, and left nothing; prints why not
sane() {
	local status=$1 left
	if [ "$status" != 0 ] && [ "$status" != 1 ]; then
		echo "exit status $status"
	elif [ "$status" = 1 ] &&
	     ! jq -se 'length == 1 and (.[0].code | type == "number") and
			(.[0].msg | type == "string" and length > 0) and
			(.[0].cniVersion | type == "string")' "$tmp/out" >/dev/null 2>&1; then
		echo "not one CNI error object"
	elif [ "$status" = 0 ] && [ -s "$tmp/out" ] &&
	     ! jq -se 'length == 1' "$tmp/out" >/dev/null 2>&1; then
		echo "not one JSON object"
	else
		left=$(find "$STATE" "$CDI" "$VRDMA_CNI_RECORDS" -type f ! -name .lock 2>/dev/null)
		[ -z "$left" ] || echo "left $left"
	fi
}

# sane_run LABEL CMD STDIN [VAR=VALUE...] - run the plugin and count it in
# runs; an answer that is not sane counts in insane, and the first five of
# a group are named by LABEL.  What the run left is removed.
runs=0
insane=0
sane_run() {
	local label=$1 why
	shift
	run "$@"
	why=$(sane $?)
	runs=$((runs + 1))
	if [ -n "$why" ]; then
		insane=$((insane + 1))
		[ "$insane" -le 5 ] && echo "     $label: $why"
	fi
	rm -rf "$STATE" "$CDI" "$VRDMA_CNI_RECORDS"
}

# sane_group OK-TEXT GROUP - report the runs since the last group: ok with
# OK-TEXT if every answer was sane, else FAIL naming GROUP; start a new one.
sane_group() {
	if [ "$insane" = 0 ]; then
		ok "$1"
	else
		failed=$((failed + 1)); echo "FAIL $2: $insane of $runs runs"
	fi
	runs=0
	insane=0
}

# error DESC CODE CMD STDIN [VAR=VALUE...]
error() {
	local desc=$1 code=$2 why
	shift 2
	run "$@"
	why=$(sane $?)
	if [ -n "$why" ]; then
		bad "$desc" "$why"
	elif ! jq -e --argjson c "$code" '.code == $c' "$tmp/out" >/dev/null 2>&1; then
		bad "$desc" "not error $code"
	else
		ok "$desc: code $code, $(jq -r '.msg + (if .details then " (" + .details + ")" else "" end)' "$tmp/out")"
	fi
}

# --- the table ---------------------------------------------------------------------

long=$(printf 'a%.0s' $(seq 300))
error "CNI_CONTAINERID with a slash"     4 ADD "$BASE" CNI_CONTAINERID=a/b
error "CNI_CONTAINERID starting with -"  4 ADD "$BASE" CNI_CONTAINERID=-ab
error "CNI_CONTAINERID of 300 bytes"     4 ADD "$BASE" CNI_CONTAINERID="$long"
error "CNI_IFNAME of 16 bytes"           4 ADD "$BASE" CNI_IFNAME=abcdefghijklmnop
error "CNI_IFNAME with a slash"          4 ADD "$BASE" CNI_IFNAME=a/b
error "CNI_IFNAME with a space"          4 ADD "$BASE" CNI_IFNAME="a b"
error "CNI_IFNAME .."                    4 ADD "$BASE" CNI_IFNAME=..
error "K8S_POD_NAME of 300 bytes"        4 ADD "$BASE" CNI_ARGS="K8S_POD_NAME=$long"
error "VRDMA_CDI_NAME of 300 bytes"      4 ADD "$BASE" CNI_ARGS="VRDMA_CDI_NAME=$long"
error "K8S_POD_UID not a UID"            4 ADD "$BASE" CNI_ARGS="K8S_POD_UID=../../x;K8S_POD_NAME=p"
error "relative stateDir"                7 ADD "$(jq -c '.stateDir = "state"' <<<"$BASE")"
error "relative cdiDir"                  7 ADD "$(jq -c '.cdiDir = "../cdi"' <<<"$BASE")"
error "relative cgroupRoot"              7 ADD "$(jq -c '.cgroupRoot = "cg"' <<<"$BASE")"
error "cdiVersion not a version"         7 ADD "$(jq -c '.cdiVersion = "0.5.0\"}"' <<<"$BASE")"
error "limit above 2^64"                 7 ADD "$(jq -c '.limits.qp = 18446744073709551616' <<<"$BASE")"

# --- every key, every type ------------------------------------------------------------

# the paths of BASE whose value is replaced, and the values
mapfile -t paths < <(jq -c 'paths' <<<"$BASE")
values=('null' 'true' '-1' '1.5' '18446744073709551615' '""' '"../../x"'
	"\"$long\"" '"\u0000"' '[null]' '{"x": {}}')
for p in "${paths[@]}"; do
	for v in "${values[@]}"; do
		conf=$(jq -c --argjson p "$p" --argjson v "$v" 'setpath($p; $v)' <<<"$BASE")
		for cmd in ADD GC DEL; do
			sane_run "$cmd with $p = ${v:0:40}" "$cmd" "$conf"
		done
	done
done
sane_group "${#paths[@]} keys x ${#values[@]} values x 3 verbs: $runs runs, every one a clean answer" \
	"keys x values"

# CNI_ARGS of every shape
for a in "" ";" "=" ";;=;" "K8S_POD_NAME" "K8S_POD_NAME=" "K8S_POD_NAME==" \
	 "=K8S_POD_NAME" "K8S_POD_NAME=a;K8S_POD_NAME=b" "K8S_POD_UID=;K8S_POD_NAME=p" \
	 "VRDMA_CDI_NAME=a b" "VRDMA_CDI_NAME=$long" "K8S_POD_NAMESPACE=$long;K8S_POD_NAME=x" \
	 "IgnoreUnknown=1;FOO=bar" $'K8S_POD_NAME=a\nb' "K8S_POD_NAME=.." "K8S_POD_NAME=a/b"; do
	for cmd in ADD CHECK DEL; do
		sane_run "$cmd with CNI_ARGS '${a:0:40}'" "$cmd" "$BASE" CNI_ARGS="$a"
	done
done
sane_group "CNI_ARGS of 17 shapes x 3 verbs: every one a clean answer" CNI_ARGS

# Not JSON at all, or not UTF-8, or huge
for in in '' '{' '{"cniVersion": "1.1.0",}' $'\xff\xfe' "$(head -c 100000 /dev/zero | tr '\0' '[')" \
	  "[$(seq -s, 1 10000)]"; do
	for cmd in ADD CHECK GC DEL STATUS VERSION; do
		sane_run "$cmd with '${in:0:20}...'" "$cmd" "$in"
	done
done
sane_group "6 inputs that are no configuration x 6 verbs: every one a clean answer" \
	"no configuration"

echo "vrdma CNI bad input (no module): $passed passed, $failed failed"
[ "$failed" = 0 ]
