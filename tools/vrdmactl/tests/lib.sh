# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# What vrdmactl's command-line tests share (cli.sh, completion.sh,
# fuzz.sh): the tally of results and the rules every failure of the tool
# keeps.  Sourced.

passed=0
failed=0

# result DESCRIPTION [WHY] - count and print one result: ok without WHY,
# FAIL with it.  Returns 1 on FAIL, so that the caller can add details.
result() {
	if [ -z "${2:-}" ]; then
		passed=$((passed + 1))
		echo "ok   $1"
	else
		failed=$((failed + 1))
		echo "FAIL $1: $2"
		return 1
	fi
}

# failure_why STATUS DIR - what is wrong with how vrdmactl failed with
# STATUS, its output in DIR/out and DIR/err: a failure prints a "vrdmactl: "
# message on stderr and nothing on stdout.  Prints nothing when all is
# well, and for STATUS 0.
failure_why() {
	if [ "$1" = 0 ]; then
		return
	elif ! grep -q '^vrdmactl: ' "$2/err"; then
		echo "no 'vrdmactl: ' error message"
	elif [ -s "$2/out" ]; then
		echo "printed to stdout on failure"
	fi
}
