#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The vrdma CNI plugin (tools/cni) against the module: what
# tools/cni/tests/conformance.sh cannot test without it.
#
#   netns P  ── attachment net1 (chained: prevResult 10.96.0.5/24)
#            ── attachment net2 (alone, cniVersion 0.4.0)
#   netns Q  ── attachment net1 of another container, "crashed" (no DEL)
#
#   status            STATUS with the module; error 50 for a missing parent
#   add_chained       ADD net1: the result is prevResult in the config's
#                     version; the vdevice is in P with the limits of the
#                     config and the pod (runtimeConfig), the ACL from
#                     prevResult; state and CDI spec name its node
#   add_second        ADD net2 in the same pod (0.4.0, not chained): its own
#                     vdevice; the CDI spec lists both, one device each and
#                     one for the pod
#   add_again_fails   ADD of an attachment that exists: error 100, the
#                     first one intact
#   check             CHECK of both; CHECK after the vdevice vanished: 104
#   rdma_max          ADD with rdmaMax and K8S_POD_UID: the pod cgroup's
#                     rdma.max has the vdevice's line
#   rdma_max_netns    ADD with rdmaMax, no K8S_POD_UID: processes of two
#                     cgroups in the namespace are refused (102, nothing
#                     left); with one cgroup left, its rdma.max has the line
#   add_fails_clean   ADD on a parent that does not exist: error 100,
#                     nothing left
#   cm_publish        ADD with "rdmaCm" (enabled, two ports): the vdevice
#                     has cm on and those ports, vrdma listens on them on
#                     the parent; CHECK passes, and fails (104) for another
#                     port list
#   cm_publish_host_port_refused
#                     ADD publishing a port the host's rping -s listens on
#                     over the parent: error 100 with the kernel's message,
#                     no vdevice, state or record left
#   cm_del_withdraws  DEL of the cm_publish attachment: vrdma listens on
#                     neither port any more (debugfs cm_listen)
#   concurrent        six ADDs of one pod at once, with a GC of the pod's
#                     stale attachment: all succeed and the CDI spec names
#                     the six; then six DELs at once leave nothing
#   del_unreadable    DEL with a configuration it cannot parse, of an
#                     attachment in a custom stateDir and cdiDir: its
#                     vdevice, state, CDI spec and record are gone
#   del               DEL net1: its vdevice, state and CDI device gone, net2
#                     intact; DEL again succeeds
#   gc_after_crash    GC with only net2 valid removes Q's attachment
#   gc_orphan_record  an attachment with a record and a vdevice but no state
#                     (an ADD that died): GC keeps it while valid, then
#                     deletes its vdevice and record
#   add_time          the time an ADD adds, median of 10 ADD/DEL pairs
#   kernel_log_clean
#
# vm-test-timeout: 300

# shellcheck source=selftests/lib/lib.sh
. "$(dirname "$0")/lib/lib.sh"
# shellcheck source=selftests/lib/vdev.sh
. "$(dirname "$0")/lib/vdev.sh"
# shellcheck source=selftests/lib/cm.sh
. "$(dirname "$0")/lib/cm.sh"

ktap_plan status add_chained add_second add_again_fails check rdma_max \
	rdma_max_netns add_fails_clean cm_publish cm_publish_host_port_refused \
	cm_del_withdraws concurrent del_unreadable del \
	gc_after_crash gc_orphan_record add_time kernel_log_clean

PLUGIN=$TOP/tools/cni/vrdma
if ! have_vrdmactl || ! require_cmd jq || [ ! -x "$PLUGIN" ]; then
	ktap_skip_rest "vrdmactl, jq or the CNI plugin missing"
	exit 0
fi

mark=$(klog_mark)
tmpdir T
STATE=$T/state
CDI=$T/cdi
new_ns P p && new_ns Q q && new_ns R r || exit 1
PNS=/run/netns/$P
QNS=/run/netns/$Q
RNS=/run/netns/$R
ID=$(printf 'cni-%s-%s' "$$" "$RANDOM" | sha256sum | cut -c1-64)
ID2=$(printf 'cni2-%s-%s' "$$" "$RANDOM" | sha256sum | cut -c1-64)
POD=ns_pod-$$

# conf NETWORK [EXTRA-JSON] [VERSION] - the plugin's configuration
conf() {
	jq -cn --arg n "$1" --arg s "$STATE" --arg c "$CDI" --arg p "$PARENT" \
		--arg v "${3:-1.1.0}" --argjson x "${2:-{\}}" \
		'{cniVersion: $v, name: $n, type: "vrdma", parent: $p,
		  stateDir: $s, cdiDir: $c} + $x'
}

# cni CMD ID NETNS IFNAME CONF [VAR=VALUE...] - run the plugin, output in
# $T/out; the command goes to the log
cni() {
	local cmd=$1 id=$2 ns=$3 ifn=$4 in=$5 rc
	shift 5
	echo "# [init] CNI_COMMAND=$cmd CNI_CONTAINERID=${id:0:12}... CNI_NETNS=$ns CNI_IFNAME=$ifn $* vrdma <<< '$in'" >&"$KTAP_FD"
	env CNI_COMMAND="$cmd" CNI_CONTAINERID="$id" CNI_NETNS="$ns" \
		CNI_IFNAME="$ifn" CNI_PATH=/nonexistent \
		CNI_ARGS="IgnoreUnknown=1;K8S_POD_NAMESPACE=ns;K8S_POD_NAME=pod-$$" \
		"$@" "$PLUGIN" <<<"$in" >"$T/out" 2>"$T/err"
	rc=$?
	[ -s "$T/out" ] && ktap_diag "  -> $(head -c 600 "$T/out")"
	return "$rc"
}

# state_of NETWORK IFNAME ID - the state file of an attachment, by content
state_of() {
	grep -l "\"containerID\":\"$3\"" "$STATE/$1"/*.json 2>/dev/null |
		xargs -r grep -l "\"ifname\":\"$2\"" | head -n 1
}

# vdev_of NETWORK IFNAME ID - the vdevice an attachment's state names
vdev_of() {
	local f
	f=$(state_of "$@") && [ -n "$f" ] && jq -r .vdevice "$f"
}

dev_json() {
	"$VRDMACTL" -j dev show "$1" 2>/dev/null | jq -c '.[0]'
}

# --- STATUS ---------------------------------------------------------------------

if cni STATUS "" "" "" "$(conf rdmanet)" && [ ! -s "$T/out" ] &&
   ! cni STATUS "" "" "" "$(conf rdmanet '{"parent": "nosuchdev0"}')" &&
   jq -e '.code == 50' "$T/out" >/dev/null; then
	ktap_ok status
else
	ktap_fail status
fi

# --- ADD, chained -------------------------------------------------------------------

PREV='{"cniVersion":"1.1.0","interfaces":[{"name":"net1","sandbox":"'$PNS'"}],
 "ips":[{"address":"10.96.0.5/24","gateway":"10.96.0.1","interface":0}],"dns":{}}'
CONF1=$(conf rdmanet "$(jq -cn --argjson p "$PREV" '{
	limits: {qp: 16, mr: 64, mr_bytes: null}, maxLimits: {qp: 128},
	acl: {sgids: "prevResult", peers: "prevResult"},
	runtimeConfig: {vrdmaLimits: {qp: 100}}, prevResult: $p}')")
add_chained() {
	local v dj node f
	cni ADD "$ID" "$PNS" net1 "$CONF1" || return 1
	# The result: prevResult, in the configuration's version
	[ "$(jq -cS . "$T/out")" = "$(jq -cS '. + {cniVersion: "1.1.0"}' <<<"$PREV")" ] ||
		{ ktap_diag "the result is not prevResult"; return 1; }
	v=$(vdev_of rdmanet net1 "$ID") && [ -n "$v" ] || return 1
	dj=$(dev_json "$v")
	ktap_diag "vdevice $v: $dj" "state: $(cat "$(state_of rdmanet net1 "$ID")")"
	# "vr" + 12 characters of the ID + "-" + 12 hex digits
	[[ $v =~ ^vr${ID:0:12}-[0-9a-f]{12}$ ]] || { ktap_diag "name $v"; return 1; }
	jq -e --argjson ino "$(stat -L -c %i "$PNS")" '
		.netns.inode == $ino and .limits.qp == 100 and .limits.mr == 64 and
		.limits.mr_bytes == null and .sgids == ["10.96.0.5"] and
		.peers == ["10.96.0.0/24"]' <<<"$dj" >/dev/null || return 1
	node=$(jq -r .chardev <<<"$dj")
	f=$CDI/vrdma.io-pod-$POD.json
	ktap_diag "CDI spec $f: $(jq -c . "$f")"
	jq -e --arg n "/dev/infiniband/$node" --arg pod "$POD" \
		--argjson maj "$(jq -r '.chardev_dev | split(":")[0]' <<<"$dj")" \
		--argjson min "$(jq -r '.chardev_dev | split(":")[1]' <<<"$dj")" '
		.kind == "vrdma.io/pod" and
		([.devices[].name] == [$pod, $pod + "-net1"]) and
		(.devices[0].containerEdits.deviceNodes[0] ==
		 {path: $n, type: "c", major: $maj, minor: $min, permissions: "rw",
		  fileMode: 438})' \
		"$f" >/dev/null
}
ktap_check add_chained add_chained
V1=$(vdev_of rdmanet net1 "$ID")

# --- a second attachment in the same pod, 0.4.0, not chained ----------------------------

add_second() {
	local v2
	cni ADD "$ID" "$PNS" net2 "$(conf rail2 '{}' 0.4.0)" || return 1
	jq -e '.cniVersion == "0.4.0"' "$T/out" >/dev/null || return 1
	v2=$(vdev_of rail2 net2 "$ID") && [ -n "$v2" ] && [ "$v2" != "$V1" ] || return 1
	ktap_diag "net1: $V1, net2: $v2"
	[ "$(dev_json "$v2" | jq -r .netns.inode)" = "$(stat -L -c %i "$PNS")" ] || return 1
	jq -e --arg pod "$POD" '[.devices[].name] == [$pod, $pod + "-net1", $pod + "-net2"] and
		(.devices[0].containerEdits.deviceNodes | map(select(.path | test("uverbs"))) | length) == 2' \
		"$CDI/vrdma.io-pod-$POD.json" >/dev/null
}
ktap_check add_second add_second
V2=$(vdev_of rail2 net2 "$ID")

add_again() {
	! cni ADD "$ID" "$PNS" net1 "$CONF1" && jq -e '.code == 100' "$T/out" >/dev/null &&
		[ -n "$(dev_json "$V1")" ] && [ -n "$(state_of rdmanet net1 "$ID")" ]
}
ktap_check add_again_fails add_again

# --- CHECK -------------------------------------------------------------------------------

check() {
	cni CHECK "$ID" "$PNS" net1 "$CONF1" || return 1
	cni CHECK "$ID" "$PNS" net2 "$(conf rail2 '{}' 0.4.0)" || return 1
	# CHECK against another namespace
	! cni CHECK "$ID" "$QNS" net1 "$CONF1" && jq -e '.code == 104' "$T/out" >/dev/null
}
ktap_check check check

# --- rdma.max ----------------------------------------------------------------------------

# A pod cgroup the way kubelet's cgroupfs driver names it; the root has the
# rdma controller enabled for its children in the guest
rdma_max() {
	local uid=1234abcd-0000-4000-8000-$$ cg root v line
	root=/sys/fs/cgroup/vrdma-cni-$$
	cg=$root/kubepods/besteffort/pod$uid
	grep -qw rdma /sys/fs/cgroup/cgroup.subtree_control || { ktap_diag "no rdma controller"; return 1; }
	in_init mkdir -p "$cg" || return 1
	cleanup_push rmdir "$cg" "$root/kubepods/besteffort" "$root/kubepods" "$root"
	echo "+rdma" >"$root/cgroup.subtree_control" &&
		echo "+rdma" >"$root/kubepods/cgroup.subtree_control" &&
		echo "+rdma" >"$root/kubepods/besteffort/cgroup.subtree_control" || return 1
	cni ADD "$ID2" "$QNS" eth9 "$(conf cgnet '{"rdmaMax": {"hca_handle": 2, "hca_object": 100}}')" \
		CNI_ARGS="K8S_POD_UID=$uid;K8S_POD_NAMESPACE=ns;K8S_POD_NAME=cg-$$" || return 1
	v=$(vdev_of cgnet eth9 "$ID2")
	line=$(awk -v d="$v" '$1 == d { $1 = $1; print }' "$cg/rdma.max")
	ktap_diag "rdma.max of $cg: $line"
	cni DEL "$ID2" "$QNS" eth9 "$(conf cgnet)" || return 1
	[ "$line" = "$v hca_handle=2 hca_object=100" ]
}
ktap_check rdma_max rdma_max

# in_cgroup_ns VAR CGROUP NETNS - a process (sleep) in the namespace
# NETNS, moved into CGROUP (from outside: "ip netns exec" remounts /sys),
# the PID to wait for in VAR
in_cgroup_ns() {
	local fifo pid
	fifo=$T/fifo.$RANDOM
	mkfifo "$fifo" || return 1
	# shellcheck disable=SC2016  # the inner shell expands it
	ip netns exec "$3" sh -c 'echo $$ >"$1" && exec sleep 600' sh "$fifo" &
	cleanup_push kill "$!"
	printf -v "$1" '%s' "$!"	# our child, to wait for: ip execs sh
	read -r pid <"$fifo" && echo "$pid" >"$2/cgroup.procs"
}

# No K8S_POD_UID: the processes in the namespace name the cgroup, when
# they agree on one
rdma_max_netns() {
	local root=/sys/fs/cgroup/vrdma-cni-ns-$$ pa pb v line before after
	in_init mkdir -p "$root/a" "$root/b" || return 1
	cleanup_push rmdir "$root/a" "$root/b" "$root"
	echo "+rdma" >"$root/cgroup.subtree_control" || return 1
	in_cgroup_ns pa "$root/a" "$R" && in_cgroup_ns pb "$root/b" "$R" || return 1
	before=$(find "$STATE" "$CDI" -type f ! -name .lock | sort; vdev_count)
	if cni ADD "$ID2" "$RNS" eth8 "$(conf nsnet '{"rdmaMax": {"hca_handle": 1}}')" CNI_ARGS= ||
	   ! jq -e '.code == 102 and (.msg | test("ambiguous"))' "$T/out" >/dev/null; then
		ktap_diag "two cgroups in one namespace not refused"
		return 1
	fi
	after=$(find "$STATE" "$CDI" -type f ! -name .lock | sort; vdev_count)
	[ "$before" = "$after" ] || { ktap_diag "left: $after"; return 1; }
	kill "$pb" && wait "$pb" 2>/dev/null
	cni ADD "$ID2" "$RNS" eth8 "$(conf nsnet '{"rdmaMax": {"hca_handle": 1}}')" CNI_ARGS= ||
		return 1
	v=$(vdev_of nsnet eth8 "$ID2")
	line=$(awk -v d="$v" '$1 == d { $1 = $1; print }' "$root/a/rdma.max")
	ktap_diag "rdma.max of $root/a: $line"
	cni DEL "$ID2" "$RNS" eth8 "$(conf nsnet)" || return 1
	kill "$pa" && wait "$pa" 2>/dev/null
	[ "$line" = "$v hca_handle=1 hca_object=max" ]
}
ktap_check rdma_max_netns rdma_max_netns

add_fails_clean() {
	local before after
	before=$(find "$STATE" "$CDI" -type f | sort; vdev_count)
	! cni ADD "$ID2" "$QNS" eth0 "$(conf badnet '{"parent": "nosuchdev0"}')" &&
		jq -e '.code == 100' "$T/out" >/dev/null || return 1
	# rdmaMax without a cgroup to find: refused, the vdevice taken back
	! cni ADD "$ID2" "$QNS" eth0 "$(conf badnet '{"rdmaMax": {"hca_handle": 1}}')" \
		CNI_ARGS= && jq -e '.code == 102' "$T/out" >/dev/null || return 1
	after=$(find "$STATE" "$CDI" -type f | sort; vdev_count)
	[ "$before" = "$after" ]
}
ktap_check add_fails_clean add_fails_clean

# --- the RDMA CM ------------------------------------------------------------------------------

# The host's address on the parent's netdev, the one its rping -s takes
GUEST=10.99.0.1
CMLISTEN=/sys/kernel/debug/vrdma/cm_listen
CMCONF=$(conf cmnet '{"rdmaCm": {"enabled": true, "publish": [7471, 18515]}}')

cm_publish() {
	local v dj
	require_cmd rping || return 1
	# the core's CM clients, which a vdevice with cm on attaches to
	in_init modprobe rdma_ucm && in_init modprobe ib_umad || return 1
	cni ADD "$ID2" "$QNS" cm0 "$CMCONF" || return 1
	v=$(vdev_of cmnet cm0 "$ID2") && [ -n "$v" ] || return 1
	dj=$(dev_json "$v")
	ktap_diag "vdevice $v: $dj" "cm_listen: $(tr '\n' ' ' <"$CMLISTEN")"
	jq -e '.cm == "on" and .cm_ports == [7471, 18515]' <<<"$dj" >/dev/null &&
		grep -qx "listen $PARENT 7471 1" "$CMLISTEN" &&
		grep -qx "listen $PARENT 18515 1" "$CMLISTEN" || return 1
	cni CHECK "$ID2" "$QNS" cm0 "$CMCONF" || return 1
	! cni CHECK "$ID2" "$QNS" cm0 \
		"$(conf cmnet '{"rdmaCm": {"enabled": true, "publish": [7471]}}')" &&
		jq -e '.code == 104' "$T/out" >/dev/null
}
ktap_check cm_publish cm_publish

cm_publish_host_port_refused() {
	local before after hl rc=1
	require_cmd rping || return 1
	spawn_in_ns init timeout 60 rping -s -a "$GUEST" -p 7472 >"$T/hl" 2>&1
	hl=$!
	if wait_for 15 cm_listening init "$GUEST" 7472; then
		before=$(find "$STATE" "$CDI" /run/vrdma/cni/.records -type f | sort; vdev_count)
		if ! cni ADD "$ID2" "$QNS" cm1 \
			"$(conf cmnet '{"rdmaCm": {"enabled": true, "publish": [7473, 7472]}}')" &&
		   jq -e '.code == 100 and (.details | test("already listens"))' "$T/out" >/dev/null; then
			after=$(find "$STATE" "$CDI" /run/vrdma/cni/.records -type f | sort; vdev_count)
			[ "$before" = "$after" ] && ! grep -q "^listen $PARENT 7473 " "$CMLISTEN" &&
				rc=0
			[ "$rc" = 0 ] || ktap_diag "left: $after" "cm_listen: $(tr '\n' ' ' <"$CMLISTEN")"
		fi
	else
		ktap_diag "the host's rping never listened: $(cat "$T/hl")"
	fi
	kill "$hl" 2>/dev/null
	wait "$hl"
	return "$rc"
}
ktap_check cm_publish_host_port_refused cm_publish_host_port_refused

cm_del_withdraws() {
	local v
	v=$(vdev_of cmnet cm0 "$ID2") && [ -n "$v" ] || return 1
	cni DEL "$ID2" "$QNS" cm0 "$CMCONF" || return 1
	ktap_diag "cm_listen after DEL: $(tr '\n' ' ' <"$CMLISTEN")"
	[ -z "$(dev_json "$v")" ] && ! grep -Eq "^listen $PARENT (7471|18515) " "$CMLISTEN"
}
ktap_check cm_del_withdraws cm_del_withdraws

# --- concurrency ------------------------------------------------------------------------------

# Six ADDs of one pod at once, and a GC that removes the pod's attachment
# of an earlier sandbox (ID2): every writer rewrites the pod's CDI spec
# from the state it sees, so without the state lock the last one drops
# what the others added
concurrent() {
	local id3 i pids=() rc=0 names want valid
	id3=$(printf 'cni3-%s' "$$" | sha256sum | cut -c1-64)
	cni ADD "$ID2" "$QNS" old0 "$(conf race)" CNI_ARGS="K8S_POD_NAMESPACE=ns;K8S_POD_NAME=race-$$" ||
		return 1
	valid=$(jq -cn --arg id "$id3" '{"cni.dev/valid-attachments": [{containerID: $id}]}')
	for i in 0 1 2 3 4 5; do
		env CNI_COMMAND=ADD CNI_CONTAINERID="$id3" CNI_NETNS="$QNS" CNI_IFNAME="c$i" \
			CNI_ARGS="K8S_POD_NAMESPACE=ns;K8S_POD_NAME=race-$$" \
			"$PLUGIN" <<<"$(conf race)" >"$T/race$i" 2>&1 &
		pids+=($!)
	done
	env CNI_COMMAND=GC "$PLUGIN" <<<"$(conf race "$valid")" >"$T/race6" 2>&1 &
	pids+=($!)
	for i in "${pids[@]}"; do
		wait "$i" || rc=1
	done
	names=$(jq -c '[.devices[].name]' "$CDI/vrdma.io-pod-ns_race-$$.json")
	want=$(jq -cn --arg p "ns_race-$$" '[$p] + [range(6) | "\($p)-c\(.)"]')
	ktap_diag "after 6 ADDs and a GC: status $rc, devices $names"
	if [ "$rc" != 0 ] || [ "$names" != "$want" ] || [ -n "$(state_of race old0 "$ID2")" ]; then
		sed 's/^/# /' "$T"/race[0-6] >&"$KTAP_FD"
		return 1
	fi
	pids=()
	for i in 0 1 2 3 4 5; do
		env CNI_COMMAND=DEL CNI_CONTAINERID="$id3" CNI_NETNS="$QNS" CNI_IFNAME="c$i" \
			"$PLUGIN" <<<"$(conf race)" >"$T/race$i" 2>&1 &
		pids+=($!)
	done
	for i in "${pids[@]}"; do
		wait "$i" || rc=1
	done
	[ "$rc" = 0 ] && [ ! -e "$CDI/vrdma.io-pod-ns_race-$$.json" ] &&
		[ -z "$(find "$STATE/race" -type f)" ] &&
		! "$VRDMACTL" -j dev show | jq -r '.[].name' | grep -q "^vr${id3:0:12}-"
}
ktap_check concurrent concurrent

# DEL cannot read its configuration: the record of ADD names the custom
# stateDir and cdiDir
del_unreadable() {
	local v
	cni ADD "$ID2" "$QNS" eth7 "$(conf unread)" CNI_ARGS="K8S_POD_NAMESPACE=ns;K8S_POD_NAME=unread-$$" ||
		return 1
	v=$(vdev_of unread eth7 "$ID2")
	ktap_diag "record: $(cat "/run/vrdma/cni/.records/$v.json")"
	[ -n "$(dev_json "$v")" ] && [ -e "$CDI/vrdma.io-pod-ns_unread-$$.json" ] || return 1
	cni DEL "$ID2" "$QNS" eth7 '{"cniVersion": ' && [ ! -s "$T/out" ] || return 1
	[ -z "$(dev_json "$v")" ] && [ -z "$(state_of unread eth7 "$ID2")" ] &&
		[ ! -e "$CDI/vrdma.io-pod-ns_unread-$$.json" ] &&
		[ ! -e "/run/vrdma/cni/.records/$v.json" ]
}
ktap_check del_unreadable del_unreadable

# --- DEL ------------------------------------------------------------------------------------

del() {
	cni DEL "$ID" "$PNS" net1 "$CONF1" && [ ! -s "$T/out" ] || return 1
	[ -z "$(dev_json "$V1")" ] && [ -z "$(state_of rdmanet net1 "$ID")" ] || return 1
	[ -n "$(dev_json "$V2")" ] || return 1
	jq -e --arg pod "$POD" '[.devices[].name] == [$pod, $pod + "-net2"]' \
		"$CDI/vrdma.io-pod-$POD.json" >/dev/null || return 1
	# Again: nothing left to delete, still success
	cni DEL "$ID" "$PNS" net1 "$CONF1" && [ ! -s "$T/out" ]
}
ktap_check del del

# --- GC after a crash ------------------------------------------------------------------------

gc() {
	local vq
	cni ADD "$ID2" "$QNS" net2 "$(conf rail2)" CNI_ARGS="K8S_POD_NAMESPACE=ns;K8S_POD_NAME=crashed-$$" || return 1
	vq=$(vdev_of rail2 net2 "$ID2")
	ktap_diag "crashed attachment: $vq"
	[ -e "$CDI/vrdma.io-pod-ns_crashed-$$.json" ] || return 1
	cni GC "" "" "" "$(conf rail2 "$(jq -cn --arg id "$ID" \
		'{"cni.dev/valid-attachments": [{containerID: $id, ifname: "net2"}]}')")" || return 1
	[ -z "$(dev_json "$vq")" ] && [ -n "$(dev_json "$V2")" ] &&
		[ ! -e "$CDI/vrdma.io-pod-ns_crashed-$$.json" ] &&
		[ -e "$CDI/vrdma.io-pod-$POD.json" ] && [ -z "$(state_of rail2 net2 "$ID2")" ]
}
ktap_check gc_after_crash gc
cni DEL "$ID" "$PNS" net2 "$(conf rail2)"

# An ADD that died between its vdevice and its state file leaves the
# vdevice and the record alone: GC finds them by the record, keeps them
# while the attachment is valid, and deletes the vdevice and the record
# once it is not
gc_orphan() {
	local v rec
	cni ADD "$ID2" "$QNS" eth5 "$(conf orphan)" CNI_ARGS="K8S_POD_NAMESPACE=ns;K8S_POD_NAME=orphan-$$" ||
		return 1
	v=$(vdev_of orphan eth5 "$ID2")
	rec=/run/vrdma/cni/.records/$v.json
	[ -n "$v" ] && [ -n "$(dev_json "$v")" ] && [ -e "$rec" ] || return 1
	rm -f "$(state_of orphan eth5 "$ID2")" "$CDI/vrdma.io-pod-ns_orphan-$$.json"
	ktap_diag "orphan: $v, record only"
	cni GC "" "" "" "$(conf orphan "$(jq -cn --arg id "$ID2" \
		'{"cni.dev/valid-attachments": [{containerID: $id, ifname: "eth5"}]}')")" || return 1
	[ -n "$(dev_json "$v")" ] && [ -e "$rec" ] || return 1
	cni GC "" "" "" "$(conf orphan '{"cni.dev/valid-attachments": []}')" || return 1
	[ -z "$(dev_json "$v")" ] && [ ! -e "$rec" ]
}
ktap_check gc_orphan_record gc_orphan

# --- the time of an ADD ----------------------------------------------------------------------

add_time() {
	local i t0 t1 times=() med
	for i in $(seq 10); do
		t0=$EPOCHREALTIME
		CNI_COMMAND=ADD CNI_CONTAINERID="$ID2" CNI_NETNS="$QNS" CNI_IFNAME=eth0 \
			"$PLUGIN" <<<"$(conf timing)" >/dev/null || return 1
		t1=$EPOCHREALTIME
		CNI_COMMAND=DEL CNI_CONTAINERID="$ID2" CNI_NETNS="$QNS" CNI_IFNAME=eth0 \
			"$PLUGIN" <<<"$(conf timing)" >/dev/null || return 1
		times+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", (b - a) * 1000 }')")
	done
	med=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 5p)
	ktap_diag "ADD (vdevice, state, CDI spec) in ms: ${times[*]}; median $med (TCG guest)"
	[ -z "$(find "$STATE/timing" -type f)" ]
}
ktap_check add_time add_time

ktap_check kernel_log_clean klog_clean_since "$mark"
ktap_finish
