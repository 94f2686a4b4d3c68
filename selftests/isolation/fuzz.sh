#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fuzzing the two ways user space reaches vrdma, bounded in count and time
# and seedable, with a leak and kernel log audit at the end.
#
#   netlink: selftests/lib/nlfuzz.py sends NLFUZZ_COUNT (50000) randomised
#            and malformed requests to the vrdma family; vdevices it
#            manages to create land in netns F and are removed after.
#   verbs:   selftests/progs/verbs_fuzz runs VERBS_FUZZ_COUNT (10000)
#            random verbs sequences with malformed driver data sizes
#            through uverbs write() against vdevice vF in netns F, and
#            VERBS_FUZZ_COMPARE (1000) of the same sequences against both
#            vF and the parent: the outcome tallies must be equal.
#
# FUZZ_SEED (default 1) seeds both; a failure prints the seed to replay.

# shellcheck source=selftests/lib/lib.sh
. "$(dirname "$0")/lib/lib.sh"
# shellcheck source=selftests/lib/vdev.sh
. "$(dirname "$0")/lib/vdev.sh"

NLFUZZ_COUNT=${NLFUZZ_COUNT:-50000}
VERBS_FUZZ_COUNT=${VERBS_FUZZ_COUNT:-10000}
VERBS_FUZZ_COMPARE=${VERBS_FUZZ_COMPARE:-1000}
FUZZ_SEED=${FUZZ_SEED:-1}
FUZZ_TIME_LIMIT=${FUZZ_TIME_LIMIT:-420}
VFUZZ=$TOP/selftests/progs/verbs_fuzz

ktap_plan netlink_fuzz family_still_works netlink_fuzz_left_nothing \
	verbs_fuzz_vdevice verbs_matches_parent verbs_fuzz_no_leak \
	parent_objects_back klog_clean

mark=$(klog_mark)
new_ns F f || exit 1
# A process in F for NETNS_PID
spawn_in_ns "$F" sleep 3600 >/dev/null 2>&1
FPID=$!
cleanup_push kill "$FPID"
before_devs=$("$VRDMACTL" -j dev show | jq -r '.[].name' | sort | xargs)
parent_before=$(parent_res)

ktap_diag "seed $FUZZ_SEED, $NLFUZZ_COUNT netlink messages, $VERBS_FUZZ_COUNT verbs sequences"
out=$(in_init timeout $((FUZZ_TIME_LIMIT + 60)) python3 "$TOP/selftests/lib/nlfuzz.py" \
	--count "$NLFUZZ_COUNT" --seed "$FUZZ_SEED" \
	--time-limit "$FUZZ_TIME_LIMIT" --netns-pid "$FPID" --parent "$PARENT" 2>&1)
rc=$?
ktap_diag "$(tail -n 3 <<<"$out")"
if [ "$rc" = 0 ]; then
	ktap_ok netlink_fuzz
else
	ktap_fail netlink_fuzz "status $rc (seed $FUZZ_SEED)"
fi

# Whatever the fuzzer created goes; then the family must still work.
for d in $("$VRDMACTL" -j dev show | jq -r '.[].name'); do
	grep -qw -- "$d" <<<"$before_devs" || "$VRDMACTL" dev del "$d"
done
if in_init "$VRDMACTL" -V >/dev/null &&
   vdev_add vF "$F" && in_init "$VRDMACTL" dev set vF qp 64 peer any &&
   in_init "$VRDMACTL" dev show vF >/dev/null; then
	ktap_ok family_still_works
else
	ktap_fail family_still_works
fi
left=$("$VRDMACTL" -j dev show | jq -r '.[].name' | sort | xargs)
if [ "$left" = "$(echo "$before_devs" vF | xargs -n1 | sort | xargs)" ] &&
   [ "$(vdev_count)" = 1 ]; then
	ktap_ok netlink_fuzz_left_nothing "$(vrdma_objects)"
else
	ktap_fail netlink_fuzz_left_nothing "vdevices: '$left'; $(vrdma_objects)"
fi

# verbs_fuzz NS DEV COUNT OUTFILE [OPTION...] - run the verbs fuzzer.
verbs_fuzz() {
	local ns=$1 dev=$2 count=$3 file=$4
	shift 4
	local cmd=(timeout $((FUZZ_TIME_LIMIT + 60)) "$VFUZZ" -s "$FUZZ_SEED"
		-n "$count" -t "$FUZZ_TIME_LIMIT" "$@" "$dev")
	in_ns "$ns" "${cmd[@]}" >"$file" 2>&1
}

tmpdir T || exit 1
if verbs_fuzz "$F" vF "$VERBS_FUZZ_COUNT" "$T/vdev"; then
	ktap_ok verbs_fuzz_vdevice "$(cat "$T/vdev")"
else
	ktap_fail verbs_fuzz_vdevice "$(tail -n 5 "$T/vdev")"
fi

# Same sequences, vdevice and parent: the same outcomes.  -p keeps to the
# QP types vrdma proxies; the vdevice refuses the others with EOPNOTSUPP
# before the parent could give its own error.
if verbs_fuzz "$F" vF "$VERBS_FUZZ_COMPARE" "$T/cmp.vdev" -p &&
   verbs_fuzz init "$PARENT" "$VERBS_FUZZ_COMPARE" "$T/cmp.parent" -p; then
	if diff -u "$T/cmp.parent" "$T/cmp.vdev" >"$T/diff"; then
		ktap_ok verbs_matches_parent "$(head -n 40 "$T/cmp.vdev")"
	else
		ktap_fail verbs_matches_parent "$(cat "$T/diff")"
	fi
else
	ktap_fail verbs_matches_parent "$(tail -n 3 "$T/cmp.vdev" "$T/cmp.parent")"
fi

if wait_for 60 vrdma_shadows_zero; then
	ktap_ok verbs_fuzz_no_leak "$(vrdma_objects)"
else
	ktap_fail verbs_fuzz_no_leak "$(vrdma_objects)"
fi
if wait_for 60 parent_res_is "$parent_before"; then
	ktap_ok parent_objects_back "$(parent_res)"
else
	ktap_fail parent_objects_back "before: $parent_before, now: $(parent_res)"
fi
ktap_check klog_clean klog_clean_since "$mark"
ktap_finish
