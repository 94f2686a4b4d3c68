#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Per-vdevice, per-type limits (vrdmactl dev add/set LIMITS).
#
#   netns Q: vq (limits changed live) ─┐
#   netns Q: vq2 (deleted under users) ┴── on rxe0 (init_net)
#
# For every type (ctx pd cq qp srq mr mw ah) and for mr-bytes: a holder
# (progs/quota_obj) allocates past the limit: exactly the limit is made,
# the next fails with EDQUOT, dev show reports use == limit; then the limit
# is lowered below the use: existing objects keep working, new ones fail
# until the use falls below the limit.  Then: racing threads
# (progs/quota_race) never exceed a limit; the limits are the device's
# max_* through every query path, live; usage returns to zero on destroy,
# exit, kill -9 and deletion of the vdevice under its users.
#
# A parent without memory windows (max_mw 0: efa, rdmasim's mlx5
# personality) is legitimate: the memory window checks are then skipped
# with that reason, the max_* checks expect max_mw 0 (the smaller of the
# limit and the parent's), and the release checks make no window.

# shellcheck source=selftests/lib/lib.sh
. "$(dirname "$0")/lib/lib.sh"
# shellcheck source=selftests/lib/vdev.sh
. "$(dirname "$0")/lib/vdev.sh"
# shellcheck source=selftests/lib/quota.sh
. "$(dirname "$0")/lib/quota.sh"

TYPES="ctx pd cq qp srq mr mw ah"
names=(setup defaults_are_parent_caps add_with_limits)
for t in $TYPES; do
	names+=("${t}_at_and_over_limit" "${t}_lowered_below_use")
done
names+=(mr_bytes_at_and_over_limit mr_bytes_lowered_below_use
	mr_bytes_suffixes max_attrs_clamped max_attrs_live ibv_devinfo_shows_caps
	max_restores_parent_caps)
for t in $TYPES mr_bytes; do
	names+=("race_$t")
done
names+=(release_destroy release_exit release_kill9 release_vdev_del
	bad_limits_refused kernel_log_clean)
ktap_plan "${names[@]}"

if ! have_vrdmactl || ! require_cmd jq ibv_devinfo ||
   [ ! -x "$QUOTA_OBJ" ] || [ ! -x "$QUOTA_RACE" ]; then
	ktap_skip_rest "vrdmactl, jq, ibv_devinfo or the quota programs missing"
	exit 0
fi

mark=$(klog_mark)
new_ns Q q || exit 1
if vdev_add vq "$Q"; then
	ktap_ok setup
else
	ktap_fail setup
	ktap_skip_rest "no vdevice"
	exit 1
fi

# The parent's max_* as ibv_devinfo -v reports them.
declare -A CAP
pinfo=$(ibv_devinfo -v -d "$PARENT")
for t in pd cq qp srq mr mw ah mr_size; do
	CAP[$t]=$(awk -v f="max_$t:" '$1 == f { print $2; exit }' <<<"$pinfo")
done
ktap_diag "parent caps: $(for t in "${!CAP[@]}"; do printf '%s=%s ' "$t" "${CAP[$t]}"; done)"
# The types the parent can make: no memory window on a parent without
OBJ_TYPES=$TYPES
NO_MW=
if [ "${CAP[mw]}" = 0 ]; then
	OBJ_TYPES=${TYPES/ mw/}
	NO_MW="$PARENT has no memory windows (max_mw 0)"
fi
# mw_cap LIMIT - max_mw as a vdevice limited to LIMIT reports it
mw_cap() {
	if [ -n "$NO_MW" ]; then echo 0; else echo "$1"; fi
}

# --- defaults ------------------------------------------------------------------

# Without limits every type reports the parent's capacity (null where the
# parent states none) and no use.
json=$(dev_json vq)
ktap_diag "vq: $json"
chk=$(jq -r --argjson pd "${CAP[pd]}" --argjson cq "${CAP[cq]}" \
	--argjson qp "${CAP[qp]}" --argjson srq "${CAP[srq]}" \
	--argjson mr "${CAP[mr]}" --argjson mw "${CAP[mw]}" \
	--argjson ah "${CAP[ah]}" '
	[.limits.ctx == null, .limits.mr_bytes == null,
	 .limits.drv_obj == null, .limits.pd == $pd,
	 .limits.cq == $cq, .limits.qp == $qp, .limits.srq == $srq,
	 .limits.mr == $mr, .limits.mw == $mw, .limits.ah == $ah,
	 ([.usage[]] | all(. == 0)), (.usage | length) == 10] | all' <<<"$json")
if [ "$chk" = true ]; then
	ktap_ok defaults_are_parent_caps
else
	ktap_fail defaults_are_parent_caps "limits or usage wrong"
fi

# Limits given at creation, with a size suffix.
if vdev_add vq2 "$Q" qp 64 cq 128 mr 256 mr-bytes 1G &&
   [ "$(dev_json vq2 | jq -c '[.limits.qp, .limits.cq, .limits.mr, .limits.mr_bytes, .limits.pd]')" = \
     "[64,128,256,1073741824,${CAP[pd]}]" ] &&
   in_init "$VRDMACTL" dev show vq2 | grep -q ' qp 0/64 .* mr-bytes 0/1G'; then
	ktap_ok add_with_limits
else
	ktap_fail add_with_limits "$("$VRDMACTL" dev show vq2 2>&1)"
fi

# --- each type: at, over, lowered below use -----------------------------------

L=3
for t in $TYPES; do
	if [ "$t" = mw ] && [ -n "$NO_MW" ]; then
		ktap_skip "${t}_at_and_over_limit" "$NO_MW"
		ktap_skip "${t}_lowered_below_use" "$NO_MW"
		continue
	fi
	base=0
	[ "$t" = ctx ] && base=1	# the holder's own context
	if ! in_init "$VRDMACTL" dev set vq "$t" "$L" ||
	   ! holder_start "h$t" "$Q" vq; then
		ktap_fail "${t}_at_and_over_limit" "setup failed"
		ktap_fail "${t}_lowered_below_use" "setup failed"
		continue
	fi
	# Up to the limit, then EDQUOT; use == limit.
	out=$(holder_cmd "h$t" alloc "$t" 10)
	use=$(usage_of vq "$t")
	text=$(in_init "$VRDMACTL" dev show vq)
	ktap_diag "$text"
	if [ "$(field "$out" ok)" = $((L - base)) ] &&
	   [ "$(field "$out" err)" = EDQUOT ] && [ "$use" = "$L" ] &&
	   grep -q " $t $L/$L\\b" <<<"$text"; then
		ktap_ok "${t}_at_and_over_limit"
	else
		ktap_fail "${t}_at_and_over_limit" "'$out', use $use"
	fi

	# Lowered to L-1 under a use of L: what exists keeps working, new
	# objects fail until the use is below the limit.
	ok=1
	in_init "$VRDMACTL" dev set vq "$t" $((L - 1)) || ok=0
	[ "$(limit_of vq "$t")" = $((L - 1)) ] || ok=0
	[ "$(holder_cmd "h$t" use)" = "use ok" ] || ok=0
	[ "$(holder_cmd "h$t" alloc "$t" 1)" = "alloc ok=0 err=EDQUOT" ] || ok=0
	[ "$(usage_of vq "$t")" = "$L" ] || ok=0
	[ "$(holder_cmd "h$t" free "$t" 1)" = "free ok=1 err=0" ] || ok=0
	# use == limit: still refused
	[ "$(holder_cmd "h$t" alloc "$t" 1)" = "alloc ok=0 err=EDQUOT" ] || ok=0
	[ "$(holder_cmd "h$t" free "$t" 1)" = "free ok=1 err=0" ] || ok=0
	# use below the limit: one more fits, and no more
	[ "$(holder_cmd "h$t" alloc "$t" 2)" = "alloc ok=1 err=EDQUOT" ] || ok=0
	[ "$(usage_of vq "$t")" = $((L - 1)) ] || ok=0
	[ "$(holder_cmd "h$t" use)" = "use ok" ] || ok=0
	holder_quit "h$t" || ok=0
	in_init "$VRDMACTL" dev set vq "$t" max || ok=0
	usage_zero vq || ok=0
	if [ "$ok" = 1 ]; then
		ktap_ok "${t}_lowered_below_use"
	else
		ktap_fail "${t}_lowered_below_use"
	fi
done

ktap_diag "at ${SECONDS}s"
# --- pinned MR bytes ------------------------------------------------------------

# 16 KiB per MR against 64K: four fit.
ok=0
if in_init "$VRDMACTL" dev set vq mr-bytes 64K && holder_start hb "$Q" vq -s 16384; then
	out=$(holder_cmd hb alloc mr 10)
	text=$(in_init "$VRDMACTL" dev show vq)
	ktap_diag "$text"
	[ "$out" = "alloc ok=4 err=EDQUOT" ] && [ "$(usage_of vq mr_bytes)" = 65536 ] &&
		grep -q ' mr-bytes 64K/64K' <<<"$text" && ok=1
fi
if [ "$ok" = 1 ]; then
	ktap_ok mr_bytes_at_and_over_limit
else
	ktap_fail mr_bytes_at_and_over_limit
fi
ok=1
in_init "$VRDMACTL" dev set vq mr-bytes 32K || ok=0
[ "$(holder_cmd hb use)" = "use ok" ] || ok=0
[ "$(holder_cmd hb alloc mr 1)" = "alloc ok=0 err=EDQUOT" ] || ok=0
[ "$(holder_cmd hb free mr 2)" = "free ok=2 err=0" ] || ok=0
[ "$(holder_cmd hb alloc mr 1)" = "alloc ok=0 err=EDQUOT" ] || ok=0
[ "$(holder_cmd hb free mr 1)" = "free ok=1 err=0" ] || ok=0
[ "$(holder_cmd hb alloc mr 2)" = "alloc ok=1 err=EDQUOT" ] || ok=0
[ "$(usage_of vq mr_bytes)" = 32768 ] || ok=0
holder_quit hb || ok=0
# One MR larger than the whole limit
if holder_start hb2 "$Q" vq -s 65536; then
	[ "$(holder_cmd hb2 alloc mr 1)" = "alloc ok=0 err=EDQUOT" ] || ok=0
	holder_quit hb2 || ok=0
else
	ok=0
fi
usage_zero vq || ok=0
if [ "$ok" = 1 ]; then
	ktap_ok mr_bytes_lowered_below_use
else
	ktap_fail mr_bytes_lowered_below_use
fi

ok=1
for s in 1K:1024 3M:3145728 2G:2147483648 4096:4096 max:null; do
	in_init "$VRDMACTL" dev set vq mr-bytes "${s%%:*}" || ok=0
	v=$(limit_of vq mr_bytes)
	[ "$v" = "${s#*:}" ] || { ok=0; ktap_diag "mr-bytes ${s%%:*}: limit $v"; }
done
if [ "$ok" = 1 ]; then
	ktap_ok mr_bytes_suffixes
else
	ktap_fail mr_bytes_suffixes
fi

ktap_diag "at ${SECONDS}s"
# --- max_* --------------------------------------------------------------------

# caps_are LINES EXPECTED - each of the three query lines carries EXPECTED
# (a "max_pd=.. ... max_mr_size=.." string).
caps_are() {
	local want=$2 path line
	for path in legacy ex raw; do
		line=$(grep "^query $path " <<<"$1")
		[ "${line#query "$path" }" = "$want" ] || {
			ktap_diag "$path: '${line#query "$path" }', want '$want'"
			return 1
		}
	done
}

in_init "$VRDMACTL" dev set vq pd 7 cq 8 qp 9 srq 10 mr 11 mw 12 ah 13 mr-bytes 1M
if holder_start hq "$Q" vq; then
	out=$(holder_cmd hq query)
	if caps_are "$out" "max_pd=7 max_cq=8 max_qp=9 max_srq=10 max_mr=11 max_mw=$(mw_cap 12) max_ah=13 max_mr_size=1048576"; then
		ktap_ok max_attrs_clamped
	else
		ktap_fail max_attrs_clamped
	fi
	# Changed live: the open context sees the new values on every path.
	in_init "$VRDMACTL" dev set vq pd 17 cq 18 qp 19 srq 20 mr 21 mw 22 ah 23 mr-bytes 2M
	out=$(holder_cmd hq query)
	if caps_are "$out" "max_pd=17 max_cq=18 max_qp=19 max_srq=20 max_mr=21 max_mw=$(mw_cap 22) max_ah=23 max_mr_size=2097152"; then
		ktap_ok max_attrs_live
	else
		ktap_fail max_attrs_live
	fi
	devinfo=$(in_ns "$Q" ibv_devinfo -v -d vq)
	got=$(awk '$1 ~ /^max_(pd|cq|qp|srq|mr|mw|ah|mr_size):$/ { print $1 $2 }' <<<"$devinfo" |
		sort | xargs)
	ktap_diag "ibv_devinfo -v: $got"
	if [ "$got" = "max_ah:23 max_cq:18 max_mr:21 max_mr_size:0x200000 max_mw:$(mw_cap 22) max_pd:17 max_qp:19 max_srq:20" ]; then
		ktap_ok ibv_devinfo_shows_caps
	else
		ktap_fail ibv_devinfo_shows_caps
	fi
	in_init "$VRDMACTL" dev set vq pd max cq max qp max srq max mr max mw max ah max mr-bytes max
	out=$(holder_cmd hq query)
	if caps_are "$out" "max_pd=${CAP[pd]} max_cq=${CAP[cq]} max_qp=${CAP[qp]} max_srq=${CAP[srq]} max_mr=${CAP[mr]} max_mw=${CAP[mw]} max_ah=${CAP[ah]} max_mr_size=$(printf %u "${CAP[mr_size]}")"; then
		ktap_ok max_restores_parent_caps
	else
		ktap_fail max_restores_parent_caps
	fi
	holder_quit hq
else
	ktap_fail max_attrs_clamped "holder did not start"
	ktap_fail max_attrs_live "holder did not start"
	ktap_fail ibv_devinfo_shows_caps "holder did not start"
	ktap_fail max_restores_parent_caps "holder did not start"
fi

ktap_diag "at ${SECONDS}s"
# --- races ----------------------------------------------------------------------

# race TYPE LIMIT EXPECTED [quota_race options] - THREADS threads, one
# object each, 3 rounds: exactly EXPECTED made and THREADS - EXPECTED
# EDQUOT every round, and no use left.
THREADS=24
race() {
	local t=$1 want=$3 out r bad=0
	shift 3
	out=$(in_ns "$Q" timeout 300 "$QUOTA_RACE" -d vq -t "$t" -n "$THREADS" -k 1 \
		-r 3 -g "$GIDX" "$@")
	ktap_diag "$out"
	[ "$(grep -c '^round ' <<<"$out")" = 3 ] || bad=1
	for r in 1 2 3; do
		grep -qx "round $r ok=$want edquot=$((THREADS - want)) other=0" <<<"$out" ||
			bad=1
	done
	wait_for 30 usage_zero vq || bad=1
	return "$bad"
}
for t in $TYPES; do
	if [ "$t" = mw ] && [ -n "$NO_MW" ]; then
		ktap_skip "race_$t" "$NO_MW"
		continue
	fi
	in_init "$VRDMACTL" dev set vq "$t" 9
	want=9
	[ "$t" = ctx ] && want=8	# quota_race's own context counts
	ktap_check "race_$t" race "$t" 9 "$want"
	in_init "$VRDMACTL" dev set vq "$t" max
done
in_init "$VRDMACTL" dev set vq mr-bytes 72K
ktap_check race_mr_bytes race mr 72K 9 -s 8192
in_init "$VRDMACTL" dev set vq mr-bytes max

ktap_diag "at ${SECONDS}s"
# --- release paths --------------------------------------------------------------

# fill ID - one or more objects of every type the parent makes.
fill() {
	local t
	for t in $OBJ_TYPES; do
		[ "$(holder_cmd "$1" alloc "$t" 2)" = "alloc ok=2 err=0" ] || return 1
	done
}

# all_used DEV - every type the holder allocates has use > 0 (so that
# "back to zero" means something); drv_obj stays 0: rxe has no driver
# methods; mw stays 0 on a parent without memory windows.
all_used() {
	[ "$("$VRDMACTL" -j dev show "$1" |
		jq -r --argjson mw "$([ -n "$NO_MW" ] && echo true || echo false)" \
		'[.[0].usage | del(.drv_obj) | if $mw then del(.mw) else . end | .[]] |
		 all(. > 0)')" = true ]
}

ok=0
if holder_start hd "$Q" vq && fill hd && all_used vq && holder_quit hd &&
   usage_zero vq; then
	ok=1
fi
ktap_check release_destroy test "$ok" = 1

ok=0
if holder_start he "$Q" vq && fill he && all_used vq; then
	holder_eof he
	wait_for 60 usage_zero vq && ok=1
fi
ktap_check release_exit test "$ok" = 1

ok=0
if holder_start hk "$Q" vq && fill hk && all_used vq && holder_kill hk; then
	wait_for 60 usage_zero vq && ok=1
fi
ktap_check release_kill9 test "$ok" = 1

# Deleting a vdevice under its users destroys their objects: the module's
# object counters and the parent's resources return to where they were, and
# the holder's next verb fails instead of crashing.  Its mappings of parent
# queues stay valid until it exits.
ok=0
before=$(parent_res)
if in_init "$VRDMACTL" dev set vq2 qp max cq max mr max mr-bytes max &&
   holder_start hv "$Q" vq2 && fill hv && all_used vq2; then
	in_init "$VRDMACTL" dev del vq2
	if wait_for 60 vrdma_objects_zero && wait_for 60 parent_res_is "$before"; then
		out=$(holder_cmd hv use)
		[[ $out == "use fail="* ]] && ok=1
	fi
	ktap_diag "objects: $(vrdma_objects)"
	holder_eof hv && wait_for 60 vrdma_shadows_zero || ok=0
fi
ktap_check release_vdev_del test "$ok" = 1

ktap_diag "at ${SECONDS}s"
# --- bad input ------------------------------------------------------------------

before=$(dev_json vq | jq -c .limits)
ok=1
for args in "qp -1" "qp 1x" "mr-bytes 12X" "mr-bytes 1.5G" "qp" "bogus 1" "qp 1 qp 2"; do
	# shellcheck disable=SC2086  # word lists
	if in_init "$VRDMACTL" dev set vq $args 2>/dev/null; then
		ok=0
		ktap_diag "dev set vq $args: accepted"
	fi
done
in_init "$VRDMACTL" dev set vq 2>/dev/null && ok=0
in_init "$VRDMACTL" dev set nosuchdev qp 1 2>/dev/null && ok=0
[ "$(dev_json vq | jq -c .limits)" = "$before" ] || ok=0
ktap_check bad_limits_refused test "$ok" = 1

ktap_diag "quota.sh took $SECONDS s"
ktap_check kernel_log_clean klog_clean_since "$mark"
ktap_finish
