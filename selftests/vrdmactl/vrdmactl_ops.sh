#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vrdmactl against the module: the options and objects that need the
# kernel (the parser alone is tested by tools/vrdmactl/tests/cli.sh).
#
#   netns A: vA        netns B: vB        both on $PARENT (rxe0)
#
#   -n NETNS     dev show / parent show / monitor as seen inside a netns
#   -j, -p       one-line JSON, pretty JSON; parent show -j
#   dev set      limits change, "max" means the parent's capacity
#   prefixes     "d sh", "p s" do what "dev show", "parent show" do
#   -b FILE      a batch that adds, sets and deletes; stops at the first
#                failing line
#   monitor -j   one JSON object per line: listening once joined, then new,
#                then del with its reason
#   errors       the kernel's message reaches the user: dev del of an
#                unknown device

# shellcheck source=selftests/lib/lib.sh
. "$(dirname "$0")/lib/lib.sh"
# shellcheck source=selftests/lib/vdev.sh
. "$(dirname "$0")/lib/vdev.sh"

ktap_plan netns_option_scopes_show netns_option_scopes_parent \
	json_one_line pretty_json parent_show_json dev_set_limits \
	dev_set_max unique_prefixes batch_runs batch_stops_at_failure \
	monitor_json_lines monitor_netns_scoped kernel_message_shown \
	keyword_prefix_is_a_name exit_status_kinds

new_ns A a && new_ns B b || exit 1
vdev_add vA "$A" && vdev_add vB "$B" || exit 1
tmpdir T

names() {	# vrdmactl args... - the names "dev show -j" lists, sorted
	"$VRDMACTL" "$@" -j dev show | jq -r '.[].name' | sort | xargs
}

# -n: the netns's view (like "ip -n"); the host sees everything
a_view=$(in_init "$VRDMACTL" -n "$A" dev show)
ktap_diag "vrdmactl -n $A dev show:" "$a_view"
if [ "$(names -n "$A")" = vA ] && [ "$(names -n "/run/netns/$B")" = vB ] &&
   [ "$(names)" = "vA vB" ] && grep -q '^[0-9]*: vA: parent' <<<"$a_view"; then
	ktap_ok netns_option_scopes_show
else
	ktap_fail netns_option_scopes_show "A: $(names -n "$A"), B: $(names -n "/run/netns/$B"), host: $(names)"
fi

pj=$(in_init "$VRDMACTL" -n "$A" -j parent show)
ktap_diag "$pj"
if jq -e --arg p "$PARENT" '.[] | select(.name == $p) |
	.vdev_count == 1 and .vdevs == ["vA"]' <<<"$pj" >/dev/null; then
	ktap_ok netns_option_scopes_parent
else
	ktap_fail netns_option_scopes_parent
fi

# -j: one line, an array; -p: indented, the same data
j=$(in_init "$VRDMACTL" -j dev show vA)
p=$(in_init "$VRDMACTL" -j -p dev show vA)
ktap_diag "-j -p:" "$p"
if [ "$(wc -l <<<"$j")" -eq 1 ] && jq -e 'type == "array" and length == 1' <<<"$j" >/dev/null; then
	ktap_ok json_one_line
else
	ktap_fail json_one_line "$j"
fi
if [ "$(wc -l <<<"$p")" -gt 5 ] && [ "$(jq -cS . <<<"$p")" = "$(jq -cS . <<<"$j")" ]; then
	ktap_ok pretty_json
else
	ktap_fail pretty_json
fi

pj=$(in_init "$VRDMACTL" -j parent show)
ktap_diag "$pj"
if jq -e --arg p "$PARENT" '.[] | select(.name == $p) |
	.vdev_count == 2 and (.vdevs | sort) == ["vA", "vB"] and
	.driver == "rxe" and (.driver_id | type) == "number"' <<<"$pj" >/dev/null; then
	ktap_ok parent_show_json
else
	ktap_fail parent_show_json
fi

limit() {	# DEV RES - the limit dev show -j reports
	"$VRDMACTL" -j dev show "$1" | jq -r ".[0].limits.\"$2\""
}
in_init "$VRDMACTL" dev set vA qp 5 mr-bytes 1M
if [ "$(limit vA qp)" = 5 ] && [ "$(limit vA mr_bytes)" = 1048576 ]; then
	ktap_ok dev_set_limits "$(in_init "$VRDMACTL" dev show vA)"
else
	ktap_fail dev_set_limits "$("$VRDMACTL" -j dev show vA)"
fi
# "max": the parent's capacity, reported as a number
in_init "$VRDMACTL" dev set vA qp max
qp=$(limit vA qp)
pmax=$(ibv_devinfo -v -d "$PARENT" | awk '$1 == "max_qp:" { print $2 }')
ktap_diag "qp limit after 'qp max': $qp, $PARENT max_qp: $pmax"
if [[ $qp =~ ^[0-9]+$ ]] && [ "$qp" -gt 5 ] && { [ -z "$pmax" ] || [ "$qp" -le "$pmax" ]; }; then
	ktap_ok dev_set_max
else
	ktap_fail dev_set_max
fi

if [ "$(in_init "$VRDMACTL" -j d sh vA | jq -r '.[0].name')" = vA ] &&
   in_init "$VRDMACTL" p s >/dev/null && in_init "$VRDMACTL" d se vA q 7 &&
   [ "$(limit vA qp)" = 7 ]; then
	ktap_ok unique_prefixes
else
	ktap_fail unique_prefixes
fi

# A vdevice called "he" (a prefix of "help") is shown and deleted by name
if in_init "$VRDMACTL" dev add he parent "$PARENT" netns "$A" &&
   [ "$(in_init "$VRDMACTL" -j dev show he | jq -r '.[0].name')" = he ] &&
   in_init "$VRDMACTL" dev del he && ! "$VRDMACTL" dev show he >/dev/null 2>&1; then
	ktap_ok keyword_prefix_is_a_name
else
	ktap_fail keyword_prefix_is_a_name "$(in_init "$VRDMACTL" dev show 2>&1)"
	"$VRDMACTL" dev del he 2>/dev/null
fi

# Exit status: 2 for a command line not understood, 1 for a refusal
in_init "$VRDMACTL" dev frob 2>/dev/null; s_usage=$?
in_init "$VRDMACTL" dev set vA qp abc 2>/dev/null; s_value=$?
in_init "$VRDMACTL" dev del vrdmactl-no-such-dev 2>/dev/null; s_kernel=$?
in_init "$VRDMACTL" dev add vA parent "$PARENT" netns "$A" 2>/dev/null; s_exists=$?
ktap_diag "exit status: unknown word $s_usage, bad value $s_value," \
	"missing vdevice $s_kernel, name taken $s_exists"
if [ "$s_usage" = 2 ] && [ "$s_value" = 2 ] && [ "$s_kernel" = 1 ] &&
   [ "$s_exists" = 1 ]; then
	ktap_ok exit_status_kinds
else
	ktap_fail exit_status_kinds
fi

cat >"$T/batch" <<EOF
# a vdevice for netns $A, changed, shown and removed
dev add vbatch parent $PARENT netns $A qp 4
dev set vbatch qp 6
dev show vbatch
dev del vbatch
EOF
out=$(in_init "$VRDMACTL" -b "$T/batch" 2>&1)
rc=$?
ktap_diag "exit $rc:" "$out"
if [ "$rc" -eq 0 ] && grep -q 'vbatch: parent' <<<"$out" && grep -q 'qp 0/6' <<<"$out" &&
   ! "$VRDMACTL" dev show vbatch >/dev/null 2>&1; then
	ktap_ok batch_runs
else
	ktap_fail batch_runs
fi

printf 'dev add vbatch2 parent %s netns %s\ndev del nosuch\ndev del vbatch2\n' \
	"$PARENT" "$A" >"$T/batch2"
out=$(in_init "$VRDMACTL" -b "$T/batch2" 2>&1)
rc=$?
ktap_diag "exit $rc:" "$out"
if [ "$rc" -eq 1 ] && grep -qF "$T/batch2:2: command failed" <<<"$out" &&
   "$VRDMACTL" dev show vbatch2 >/dev/null 2>&1; then
	ktap_ok batch_stops_at_failure
else
	ktap_fail batch_stops_at_failure
fi
in_init "$VRDMACTL" dev del vbatch2

# monitor -j on the host and inside A; events for a vdevice in B and in A

t0=$EPOCHREALTIME
spawn_monitor "$T/mon"
mon=$!
spawn_monitor "$T/mona" -n "$A"
mona=$!
cleanup_push wait "$mon" "$mona"
cleanup_push kill "$mon" "$mona"
# Each says when it has joined the group: from then on it misses nothing
wait_for 30 monitor_listening "$T/mon"
wait_for 30 monitor_listening "$T/mona"
# (how long joining took here, for what a fixed wait would have needed)
ktap_diag "both monitors listening after $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }') s"
in_init "$VRDMACTL" dev add vmonB parent "$PARENT" netns "$B"
in_init "$VRDMACTL" dev add vmonA parent "$PARENT" netns "$A"
in_init "$VRDMACTL" dev del vmonB
in_init "$VRDMACTL" dev del vmonA
# A last vdevice in A, which both see: a socket receives the events in the
# order they were sent, so once its deletion is in, so is everything the
# lines above caused (a duplicate or stray event included)
in_init "$VRDMACTL" dev add vmonZ parent "$PARENT" netns "$A"
in_init "$VRDMACTL" dev del vmonZ
wait_for 30 grep -q '"event":"del".*"name":"vmonZ"' "$T/mon"
wait_for 30 grep -q '"event":"del".*"name":"vmonZ"' "$T/mona"
kill "$mon" "$mona" 2>/dev/null
wait "$mon" "$mona"
ktap_diag "host monitor:" "$(cat "$T/mon" "$T/mon.err")"
ktap_diag "monitor in $A:" "$(cat "$T/mona" "$T/mona.err")"
# The first line says the monitor listens; every line alone is one JSON
# object
summary() {
	local line
	{
		IFS= read -r line && [ "$line" = '{"event":"listening"}' ] &&
			echo listening || return 1
		while IFS= read -r line; do
			jq -cej '[.event, .dev.name, (.reason // "-")] | join(" ")' <<<"$line" || return 1
			echo
		done
	} <"$1"
}
got=$(summary "$T/mon" | xargs)
want="listening new vmonB - new vmonA - del vmonB user del vmonA user new vmonZ - del vmonZ user"
if [ "$got" = "$want" ]; then
	ktap_ok monitor_json_lines
else
	ktap_fail monitor_json_lines "got '$got', want '$want'"
fi
got=$(summary "$T/mona" | xargs)
if [ "$got" = "listening new vmonA - del vmonA user new vmonZ - del vmonZ user" ]; then
	ktap_ok monitor_netns_scoped
else
	ktap_fail monitor_netns_scoped "got '$got'"
fi

out=$(in_init "$VRDMACTL" dev del nosuch 2>&1)
ktap_diag "$out"
if [ "$out" = "vrdmactl: dev del: no such vrdma device (No such device)" ]; then
	ktap_ok kernel_message_shown
else
	ktap_fail kernel_message_shown "'$out'"
fi

ktap_finish
