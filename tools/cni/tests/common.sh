# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# What tests/conformance.sh and tests/fuzz.sh share: the plugin under
# test, a scratch directory for its state, CDI specs and records, the
# tally, and one way to run the plugin.  Sourced; the sourcing script
# sets RUN_ENV (extra VAR=VALUE words for every run) and CONTAINER_ID
# first if it wants others than the defaults.

PLUGIN=${1:-./vrdma}
passed=0
failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck disable=SC2034  # the sourcing scripts use them
STATE=$tmp/state CDI=$tmp/cdi
NS=$tmp/netns		# stands for a namespace file: only stat(2) reads it
touch "$NS"
# Where ADD records its directories for a DEL without configuration
export VRDMA_CNI_RECORDS=$tmp/records
CONTAINER_ID=${CONTAINER_ID:-c0ffee0123456789}

ok() { passed=$((passed + 1)); echo "ok   $1"; }
bad() {
	failed=$((failed + 1)); echo "FAIL $1: $2"
	sed 's/^/     stdout: /' "$tmp/out" | head -n 20
}

# run CMD STDIN [VAR=VALUE...] - the plugin with the usual CNI_ variables
run() {
	local cmd=$1 in=$2
	shift 2
	env CNI_COMMAND="$cmd" CNI_CONTAINERID="$CONTAINER_ID" \
		CNI_NETNS="$NS" CNI_IFNAME=net1 CNI_PATH=/nonexistent \
		"${RUN_ENV[@]}" "$@" "$PLUGIN" <<<"$in" >"$tmp/out" 2>"$tmp/err"
}
