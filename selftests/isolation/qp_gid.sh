#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# query_qp reports the source GID index in the vdevice's numbering (issue
# 16 finding 4f).  The parent reports its own index; the same address may
# sit at another index in the vdevice's table: the parent's table keeps
# the slots of addresses removed since it was made, the vdevice's is made
# afresh.  Translating the parent's index through the parent's table
# fails once the address is removed while the QP still uses it (the
# entries stay, held, but are no longer valid), and the parent's index
# was then reported as it was: an index the vdevice's table does not have
# for that address.
#
#   netns Q: vQ (on rxe0)           init_net: rxe0 on veth0, with two more
#                                   addresses, one removed before vQ exists
#
# Then the indices of the shared GID mode, where UD is allowed: a UD work
# request names its source GID by an index the parent reads unchanged
# (rxe's address vector in the WQE, mlx5's built in user space), so a UD
# send names the GID the application chose only where the vdevice's index
# of that GID is the parent's.  vP, made before any churn, keeps the
# parent's indices through addresses removed and re-added, a VLAN and a
# macvlan coming and going; vR, made while the parent's table has a hole,
# does not.  A UD send from each names address D by the vdevice's index:
# vP's packet must leave from D (tcpdump on veth0, to a macvlan of veth1
# in netns X), vR must get no UD QP.
#
#   netns P: vP (shared, early)     netns R: vR (shared, made after a hole)
#   netns X: macvlan on veth1 10.99.0.77, the UD destination
#
# Last, two concurrent modify_qp calls with address vectors on one QP: the
# parent's QP keeps the GID of one, vrdma's record of the indices names the
# other's; query_qp must still answer in the vdevice's numbering, never
# with the parent's index.
#
#   netns W: vW (tenant) on macvlan mvw (on veth0) 10.99.81.1, 10.99.82.1

# shellcheck source=selftests/lib/lib.sh
. "$(dirname "$0")/lib/lib.sh"
# shellcheck source=selftests/lib/vdev.sh
. "$(dirname "$0")/lib/vdev.sh"

PROG=$TOP/selftests/progs/qp_gid
ADDR_A=10.99.71.1
ADDR_B=10.99.72.1
ADDR_C=10.99.73.1
ADDR_D=10.99.74.1
ADDR_V=10.99.75.1
ADDR_M=10.99.76.1
ADDR_E=10.99.77.1
ADDR_F=10.99.78.1
UD_DST=10.99.0.77
UD=$TOP/selftests/progs/ud_sgid
RACE=$TOP/selftests/progs/qp_gid_race
ADDR_X=10.99.81.1
ADDR_Y=10.99.82.1
ZERO=0000:0000:0000:0000:0000:0000:0000:0000

ktap_plan setup query_matches_set query_after_address_removed \
	shared_churn shared_early_keeps_indices shared_ud_names_its_gid \
	shared_moved_refuses_ud shared_ud_qp_keeps_indices \
	concurrent_av_never_parent_index klog_clean

# gid_hex ADDR - the IPv4-mapped GID of ADDR, as sysfs prints it.
gid_hex() {
	local IFS=.
	# shellcheck disable=SC2086  # split on dots
	set -- $1
	printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x\n' "$@"
}

# gid_index NS DEV ADDR - the index of ADDR's RoCE v2 GID on port 1 of DEV,
# read in netns NS ("init" for init_net); nothing if there is none.  One
# grep over the table: rxe's has 1024 entries.
gid_index() {
	local ns=$1 dev=$2 want
	want=$(gid_hex "$3")
	local cmd="cd /sys/class/infiniband/$dev/ports/1 || exit
		for f in \$(grep -lsx $want gids/*); do
			i=\${f#gids/}
			[ \"\$(cat gid_attrs/types/\$i 2>/dev/null)\" = 'RoCE v2' ] &&
			{ echo \$i; break; }
		done"
	if [ "$ns" = init ]; then
		bash -c "$cmd"
	else
		ip netns exec "$ns" bash -c "$cmd"
	fi
}

has_gid() {
	[ -n "$(gid_index "$@")" ]
}

no_gid() {
	! has_gid "$@"
}

mark=$(klog_mark)
tmpdir T
# The parent's table: A, then B after it; A goes before vQ is made, so that
# vQ's table has B where the parent's had A
# (and vP before anything changes it)
if [ -x "$PROG" ] && [ -x "$UD" ] && load_modules &&
	new_ns P p && vdev_add vP "$P" gids shared &&
	in_init ip addr add "$ADDR_A/24" dev veth0 &&
	cleanup_push ip addr del "$ADDR_A/24" dev veth0 &&
	wait_for 10 has_gid init "$PARENT" "$ADDR_A" &&
	in_init ip addr add "$ADDR_B/24" dev veth0 &&
	cleanup_push ip addr del "$ADDR_B/24" dev veth0 &&
	wait_for 10 has_gid init "$PARENT" "$ADDR_B" &&
	in_init ip addr del "$ADDR_A/24" dev veth0 &&
	wait_for 10 no_gid init "$PARENT" "$ADDR_A" &&
	new_ns Q q && vdev_add vQ "$Q" &&
	wait_for 10 has_gid "$Q" vQ "$ADDR_B"; then
	pidx=$(gid_index init "$PARENT" "$ADDR_B")
	vidx=$(gid_index "$Q" vQ "$ADDR_B")
	ktap_ok setup "$ADDR_B: parent index $pidx, vdevice index $vidx"
	# vP's entries not at the parent's index when it was made (none
	# unless an earlier test left a hole in the parent's table)
	[ "$pidx" = "$vidx" ] &&
		ktap_diag "the indices are equal: this run does not tell them apart"
else
	ktap_fail setup
	ktap_skip_rest "setup failed"
	ktap_finish
fi

# nth_query N - the Nth "query=" answer of qp_gid, if there is one.
nth_query() {
	awk -F= -v n="$1" '$1 == "query" && ++i == n { print $2 }' "$T/out"
}

spawn_in_ns "$Q" "$PROG" vQ "$vidx" "$T/go" >"$T/out" 2>&1
pid=$!
cleanup_push kill -9 "$pid"
if wait_for 20 grep -q '^query=' "$T/out" && [ "$(nth_query 1)" = "$vidx" ]; then
	ktap_ok query_matches_set "set $vidx, query $(nth_query 1)"
else
	ktap_fail query_matches_set "set $vidx, got: $(tr '\n' ' ' <"$T/out")"
fi

# B goes while the QP uses it; the QP still reports the index it was given,
# as it does natively (the entry is held until the QP moves off it)
if in_init ip addr del "$ADDR_B/24" dev veth0 &&
	wait_for 10 no_gid init "$PARENT" "$ADDR_B" &&
	touch "$T/go" && wait_gone 20 "$pid" &&
	[ "$(nth_query 2)" = "$vidx" ]; then
	ktap_ok query_after_address_removed "query $(nth_query 2)"
else
	ktap_fail query_after_address_removed "set $vidx (parent's index $pidx), got: $(tr '\n' ' ' <"$T/out")"
fi

# --- the shared mode's indices after churn ---------------------------------

# table NS DEV - "INDEX GID TYPE" for every GID DEV shows in NS.
table() {
	local cmd="cd /sys/class/infiniband/$2/ports/1 || exit
		grep -H -v -x $ZERO gids/* 2>/dev/null | while IFS=: read -r f g; do
			i=\${f#gids/}
			echo \"\$i \$g \$(cat gid_attrs/types/\$i 2>/dev/null)\"
		done | sort"
	if [ "$1" = init ]; then
		bash -c "$cmd"
	else
		ip netns exec "$1" bash -c "$cmd"
	fi
}

# moved NS DEV - the entries of DEV at an index where the parent has
# another GID (or none).
moved() {
	comm -23 <(table "$1" "$2") <(table init "$PARENT")
}

addr() {	# add|del ADDR
	in_init ip addr "$1" "$2/24" dev veth0
}

# C and D; C goes (a hole below D), vR is made; C comes back into the
# parent's hole, which vR has filled with D.  Then a VLAN and a macvlan of
# veth0 with addresses come and go.
churn() {
	addr add "$ADDR_C" && cleanup_push ip addr del "$ADDR_C/24" dev veth0 &&
		wait_for 10 has_gid init "$PARENT" "$ADDR_C" &&
		addr add "$ADDR_D" && cleanup_push ip addr del "$ADDR_D/24" dev veth0 &&
		wait_for 10 has_gid init "$PARENT" "$ADDR_D" &&
		addr del "$ADDR_C" && wait_for 10 no_gid init "$PARENT" "$ADDR_C" &&
		new_ns R r && vdev_add vR "$R" gids shared &&
		wait_for 10 has_gid "$R" vR "$ADDR_D" &&
		addr add "$ADDR_C" && wait_for 10 has_gid "$R" vR "$ADDR_C" || return 1
	in_init ip link add link veth0 name veth0.75 type vlan id 75 &&
		in_init ip addr add "$ADDR_V/24" dev veth0.75 &&
		in_init ip link set veth0.75 up &&
		wait_for 10 has_gid "$P" vP "$ADDR_V" &&
		in_init ip link add mvp link veth0 type macvlan mode bridge &&
		in_init ip link set mvp netns "$P" &&
		in_ns "$P" ip addr add "$ADDR_M/24" dev mvp &&
		in_ns "$P" ip link set mvp up &&
		wait_for 10 has_gid "$P" vP "$ADDR_M" || return 1
	in_init ip link del veth0.75 && in_ns "$P" ip link del mvp &&
		wait_for 10 no_gid "$P" vP "$ADDR_V" &&
		wait_for 10 no_gid "$P" vP "$ADDR_M" &&
		wait_for 10 no_gid init "$PARENT" "$ADDR_M"
}

if churn; then
	ktap_ok shared_churn "D: parent $(gid_index init "$PARENT" "$ADDR_D"), vP $(gid_index "$P" vP "$ADDR_D"), vR $(gid_index "$R" vR "$ADDR_D")"
else
	ktap_fail shared_churn
fi

mv=$(moved "$P" vP | tr '\n' ';')
n=$(table "$P" vP | wc -l)
if [ -z "$mv" ] && [ "$n" -gt 2 ]; then
	ktap_ok shared_early_keeps_indices "all $n entries of vP at the parent's index"
else
	ktap_fail shared_early_keeps_indices "vP's entries not at the parent's index: $mv"
fi
ktap_diag "vR's entries not at the parent's index: $(moved "$R" vR | tr '\n' ';')"

# ud_send NAME NS DEV IDX - ud_sgid from DEV's GID IDX to UD_DST, tcpdump
# on veth0 recording it in T/NAME.cap; the program's output in T/NAME.out.
ud_send() {
	local cap
	(exec timeout 30 tcpdump -l -n -i veth0 udp port 4791) >"$T/$1.cap" 2>"$T/$1.caperr" &
	cap=$!
	wait_for 10 grep -q "listening on" "$T/$1.caperr"
	ip netns exec "$2" "$UD" "$3" "$4" "$UD_DST" >"$T/$1.out" 2>&1
	sleep 1	# tcpdump prints what it has seen
	kill "$cap" 2>/dev/null
	wait "$cap" 2>/dev/null
}

# The destination: a macvlan of veth1 (veth0's peer) in netns X
if new_ns X x && in_init ip link add mvx link veth1 type macvlan mode bridge &&
   in_init ip link set mvx netns "$X" && in_ns "$X" ip addr add "$UD_DST/24" dev mvx &&
   in_ns "$X" ip link set mvx up; then
	iP=$(gid_index "$P" vP "$ADDR_D")
	ud_send early "$P" vP "$iP"
	src=$(sed -n "s/.* IP \([0-9.]*\)\.[0-9]* > $UD_DST\.4791: UDP.*/\1/p" "$T/early.cap" | sort -u | xargs)
	if grep -q '^send=ok' "$T/early.out" && [ "$src" = "$ADDR_D" ]; then
		ktap_ok shared_ud_names_its_gid "vP index $iP ($ADDR_D): packet from $src"
	else
		ktap_fail shared_ud_names_its_gid "vP index $iP ($ADDR_D): $(tr '\n' ' ' <"$T/early.out"), packets from '$src'"
	fi
	iR=$(gid_index "$R" vR "$ADDR_D")
	ud_send moved "$R" vR "$iR"
	src=$(sed -n "s/.* IP \([0-9.]*\)\.[0-9]* > $UD_DST\.4791: UDP.*/\1/p" "$T/moved.cap" | sort -u | xargs)
	out=$(tr '\n' ' ' <"$T/moved.out")
	if [ -n "$(moved "$R" vR)" ] && [[ $out == "qp=EBUSY send=- " ]] && [ -z "$src" ]; then
		ktap_ok shared_moved_refuses_ud "vR index $iR ($ADDR_D, parent's $(gid_index init "$PARENT" "$ADDR_D")): $out"
	else
		ktap_fail shared_moved_refuses_ud "vR index $iR ($ADDR_D, parent's $(gid_index init "$PARENT" "$ADDR_D")): $out, packets from '$src'"
	fi
else
	ktap_fail shared_ud_names_its_gid "no UD destination"
	ktap_fail shared_moved_refuses_ud "no UD destination"
fi

# An address removed while something on the parent still uses its GID
# (here an RC QP of rxe0's own; a shadow QP of another vdevice is the
# same) keeps its slot on the parent but not on vP: the next address, F,
# would go to that slot on vP and to another on the parent.  While vP has a
# UD QP, vrdma keeps F out of vP's table instead.
held() {
	addr add "$ADDR_E" && cleanup_push ip addr del "$ADDR_E/24" dev veth0 &&
		wait_for 10 has_gid "$P" vP "$ADDR_E" || return 1
	iE=$(gid_index init "$PARENT" "$ADDR_E")
	(exec "$PROG" "$PARENT" "$iE" "$T/go_e") >"$T/hold_e" 2>&1 &
	hold=$!
	cleanup_push kill -9 "$hold"
	wait_for 20 grep -q '^query=' "$T/hold_e" || return 1
	(exec ip netns exec "$P" "$UD" vP "$(gid_index "$P" vP "$ADDR_D")" \
		"$UD_DST" "$T/go_ud") >"$T/ud_hold" 2>&1 &
	udq=$!
	cleanup_push kill -9 "$udq"
	wait_for 20 grep -q '^qp=' "$T/ud_hold" || return 1
	addr del "$ADDR_E" && wait_for 10 no_gid "$P" vP "$ADDR_E" &&
		addr add "$ADDR_F" && cleanup_push ip addr del "$ADDR_F/24" dev veth0 &&
		wait_for 10 has_gid init "$PARENT" "$ADDR_F" &&
		wait_for 10 has_gid "$R" vR "$ADDR_F"	# vR comes after vP
}
if held; then
	mv=$(moved "$P" vP | tr '\n' ';')
	udout=$(head -n 1 "$T/ud_hold")
	touch "$T/go_ud" "$T/go_e"
	wait_gone 20 "$udq" "$hold"
	if [ "$udout" = qp=ok ] && [ -z "$mv" ]; then
		ktap_ok shared_ud_qp_keeps_indices "E held at rxe0 index $iE; F: rxe0 $(gid_index init "$PARENT" "$ADDR_F"), vP '$(gid_index "$P" vP "$ADDR_F")'; UD send $(tail -n 1 "$T/ud_hold")"
	else
		ktap_fail shared_ud_qp_keeps_indices "UD QP: $udout; E held at rxe0 index $iE; vP's entries not at the parent's index: $mv"
	fi
else
	ktap_fail shared_ud_qp_keeps_indices "setup: $(cat "$T/hold_e" "$T/ud_hold" 2>/dev/null | tr '\n' ' ')"
fi

# Concurrent address vectors.  uverbs holds a QP
# shared for modify_qp, so two calls can overlap: qp_gid_race's first RTR,
# from X, sleeps at vrdma's delay point qp_av (after the parent's QP was
# modified, before vrdma records the indices) while the second, from Y,
# runs to the end.  The parent's QP has Y's GID at the parent's index,
# vrdma's record X's pair.  query_qp translates the parent's index by
# value; once Y is removed the parent's entry is held but invalid and that
# fails.  vW is in the tenant mode, on a macvlan of its own, so that its
# indices are far from the parent's.
QP_AV_DELAY=/sys/kernel/debug/vrdma/delay/qp_av
race_setup() {
	[ -x "$RACE" ] && [ -e "$QP_AV_DELAY" ] && new_ns W w || return 1
	in_init ip link add mvw link veth0 type macvlan mode bridge || return 1
	in_init ip link set mvw netns "$W" || { ip link del mvw; return 1; }
	in_ns "$W" ip addr add "$ADDR_X/24" dev mvw &&
		in_ns "$W" ip addr add "$ADDR_Y/24" dev mvw &&
		in_ns "$W" ip link set mvw up &&
		vdev_add vW "$W" gids tenant &&
		wait_for 10 has_gid "$W" vW "$ADDR_X" &&
		wait_for 10 has_gid "$W" vW "$ADDR_Y" &&
		wait_for 10 has_gid init "$PARENT" "$ADDR_Y"
}
if race_setup; then
	vx=$(gid_index "$W" vW "$ADDR_X")
	vy=$(gid_index "$W" vW "$ADDR_Y")
	py=$(gid_index init "$PARENT" "$ADDR_Y")
	cleanup_push sh -c "echo 0 >$QP_AV_DELAY"
	echo 3000 >"$QP_AV_DELAY"
	spawn_in_ns "$W" "$RACE" vW "$vx" "$vy" "$T/go_race" >"$T/race" 2>&1
	rpid=$!
	cleanup_push kill -9 "$rpid"
	if wait_for 30 grep -q '^query=' "$T/race" &&
	   in_ns "$W" ip addr del "$ADDR_Y/24" dev mvw &&
	   wait_for 10 no_gid init "$PARENT" "$ADDR_Y" &&
	   touch "$T/go_race" && wait_gone 20 "$rpid"; then
		q=$(awk -F= '$1 == "query" { v = $2 } END { print v }' "$T/race")
		msg="vW set $vx ($ADDR_X) then $vy ($ADDR_Y), rxe0 has $ADDR_Y at $py: $(tr '\n' ' ' <"$T/race")"
		[ "$py" = "$vx" ] || [ "$py" = "$vy" ] &&
			ktap_diag "the indices are equal: this run does not tell them apart"
		if [ "$q" = "$vx" ] || [ "$q" = "$vy" ]; then
			ktap_ok concurrent_av_never_parent_index "$msg"
		else
			ktap_fail concurrent_av_never_parent_index "$msg"
		fi
	else
		ktap_fail concurrent_av_never_parent_index "$(tr '\n' ' ' <"$T/race")"
	fi
else
	ktap_fail concurrent_av_never_parent_index "setup failed"
fi

if klog_clean_since "$mark"; then
	ktap_ok klog_clean
else
	ktap_fail klog_clean
fi
ktap_finish
