#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# UD work requests posted through the kernel.  librxe never does this (it
# rings its doorbell with an empty POST_SEND), but any process can write()
# a POST_SEND carrying UD requests that name address handles.  vrdma swaps
# them for the parent's shadow AHs around the parent's call, in batches, and
# must put the vdevice AHs back before uverbs releases them.  The vdevice
# must answer exactly like its parent, in RESET (refused) and in RTS, for a
# list longer than one batch.
#
#   netns A: vA (on rxe0)          init_net: rxe0

# shellcheck source=selftests/lib/lib.sh
. "$(dirname "$0")/lib/lib.sh"
# shellcheck source=selftests/lib/vdev.sh
. "$(dirname "$0")/lib/vdev.sh"

PROG=$TOP/selftests/progs/ud_kpost
COUNT=40

ktap_plan setup native_posts vdev_posts same_answer_as_parent \
	shadows_released klog_clean

mark=$(klog_mark)
tmpdir T
ktap_setup vdev_in_ns_a "$PROG"

if in_init "$PROG" "$PARENT" "$GIDX" "$COUNT" >"$T/native" 2>&1; then
	ktap_ok native_posts "$(tr '\n' ' ' <"$T/native")"
else
	ktap_fail native_posts "$(cat "$T/native")"
fi
if in_ns "$A" "$PROG" vA "$GIDX" "$COUNT" >"$T/vdev" 2>&1; then
	ktap_ok vdev_posts "$(tr '\n' ' ' <"$T/vdev")"
else
	ktap_fail vdev_posts "$(cat "$T/vdev")"
fi
if [ -s "$T/native" ] && cmp -s "$T/native" "$T/vdev"; then
	ktap_ok same_answer_as_parent
else
	ktap_fail same_answer_as_parent "native: $(tr '\n' ' ' <"$T/native") vdev: $(tr '\n' ' ' <"$T/vdev")"
fi
check_shadows_released
ktap_check klog_clean klog_clean_since "$mark"
ktap_finish
