#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vrdmactl's command line: an unknown word is an error that names the word
# and exits non-zero, at every level of the grammar (unlike iproute2's rdma,
# which prints and exits 0).  Runs in init_net; creates nothing.

# shellcheck source=selftests/lib/lib.sh
. "$(dirname "$0")/lib/lib.sh"

ktap_plan unknown_object_fails unknown_dev_command_fails

if ! have_vrdmactl; then
	ktap_skip_rest "vrdmactl not built yet"
	ktap_finish
fi

# rejects NAME WORD CMD... - CMD must exit non-zero and mention WORD.
rejects() {
	local name=$1 word=$2 out rc
	shift 2
	out=$(in_init "$@" 2>&1)
	rc=$?
	ktap_diag "exit $rc: $out"
	if [ "$rc" -eq 0 ]; then
		ktap_fail "$name" "'$*' exited 0"
	elif ! grep -qF -- "$word" <<< "$out"; then
		ktap_fail "$name" "the message does not name '$word'"
	else
		ktap_ok "$name"
	fi
}

rejects unknown_object_fails bogusword "$VRDMACTL" bogusword
rejects unknown_dev_command_fails frobnicate "$VRDMACTL" dev frobnicate

ktap_finish
