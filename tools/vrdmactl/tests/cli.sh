#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vrdmactl command-line tests that need no kernel module: every bad word
# fails with exit status 2 (a usage error) and a message naming it, a
# command the parser accepts fails with status 1 when the kernel (or the
# missing module) refuses it, help works at every level, a name that is a
# prefix of a keyword is a name, and batch mode stops at the first bad
# line with its number.
#
# Commands that pass the parser may reach the kernel; those use names that
# cannot exist and only change nothing (dev set/del of a missing device),
# so the script is safe with or without the module loaded.
#
#   tests/cli.sh [PATH-TO-VRDMACTL]

VRDMACTL=${1:-./vrdmactl}
NODEV=vrdmactl-test-no-such-dev
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tools/vrdmactl/tests/lib.sh
. "$(dirname "$0")/lib.sh"

# check DESCRIPTION WANT-STATUS WANT-TEXT -- ARGS...
# WANT-TEXT must appear in stdout+stderr ("" for anything); for a failure
# (1 or 2) the message must also start with "vrdmactl: " and nothing may go
# to stdout.
check() {
	local desc=$1 want_status=$2 want_text=$3 status
	shift 4
	"$VRDMACTL" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	status=$?
	local why=
	if [ "$status" != "$want_status" ]; then
		why="exit status $status, want $want_status"
	elif [ -n "$want_text" ] && ! grep -qF -- "$want_text" "$tmp/out" "$tmp/err"; then
		why="output lacks '$want_text'"
	else
		why=$(failure_why "$status" "$tmp")
	fi
	if ! result "$desc" "$why"; then
		echo "     command: vrdmactl $*"
		sed 's/^/     stdout: /' "$tmp/out"
		sed 's/^/     stderr: /' "$tmp/err"
	fi
}

# Help at every level, on stdout, exit 0
check "help"                    0 "Usage: vrdmactl"     -- help
check "-h"                      0 "Usage: vrdmactl"     -- -h
check "--help"                  0 "Usage: vrdmactl"     -- --help
check "help prefix"             0 "Usage: vrdmactl"     -- he
check "dev help"                0 "dev add NAME"        -- dev help
check "dev show help"           0 "dev add NAME"        -- dev show help
check "dev add help"            0 "LIMITS :="           -- dev add help
check "dev set help"            0 "LIMITS :="           -- dev set help
check "dev del help"            0 "dev del NAME"        -- dev del help
check "parent help"             0 "parent show"         -- parent help
check "parent show help"        0 "parent show"         -- parent show help
check "monitor help"            0 "monitor"             -- monitor help

# Unknown and ambiguous words, at every level
check "no object"               2 "Usage:"              --
check "unknown object"          2 'unknown object "bogus"; try "vrdmactl help"' -- bogus
check "empty object"            2 'unknown object ""'   -- ""
check "unknown dev command"     2 'unknown dev command "frob"' -- dev frob
check "ambiguous dev command"   2 'ambiguous dev command "s"' -- dev s
check "unknown parent command"  2 'unknown parent command "add"' -- parent add
check "help with extra word"    2 '"extra"'             -- help extra
check "dev help extra word"     2 '"extra"'             -- dev help extra
check "monitor extra word"      2 'unexpected word "now"' -- monitor now
check "parent show extra word"  2 'unexpected word "rxe0"' -- parent show rxe0
check "dev show two names"      2 'unexpected word "b"' -- dev show a b
check "dev del extra word"      2 'unexpected word "now"' -- dev del vr0 now
check "dev del without name"    2 "missing device NAME" -- dev del
check "dev add without name"    2 "missing device NAME" -- dev add
check "unknown option"          2 'unknown option "-x"' -- -x dev
check "unknown long option"     2 'unknown option "--bogus"' -- --bogus dev
check "option needs value"      2 'option "-n" needs a value' -- -n
check "-b with extra words"     2 'unexpected word "dev"' -- -b /dev/null dev

# dev add / dev set keywords and values
ADD=(dev add vr0 parent rxe0)
check "unknown keyword"         2 'unknown dev add keyword "colour"' -- "${ADD[@]}" netns-pid 1 colour red
check "ambiguous keyword"       2 'ambiguous dev add keyword "p"' -- dev add vr0 p rxe0
check "ambiguous limit keyword" 2 'ambiguous dev set keyword "m"' -- dev set vr0 m 1
check "keyword without value"   2 '"qp" needs a value'  -- "${ADD[@]}" netns-pid 1 qp
check "bad count"               2 'bad value "abc" for "qp"' -- "${ADD[@]}" netns-pid 1 qp abc
check "negative count"          2 'bad value "-1" for "cq"' -- dev set vr0 cq -1
check "count with suffix"       2 'bad value "4K" for "mr"' -- dev set vr0 mr 4K
check "count overflow"          2 'bad value "18446744073709551616" for "pd"' -- dev set vr0 pd 18446744073709551616
check "bad size suffix"         2 'bad value "1X" for "mr-bytes"' -- dev set vr0 mr-bytes 1X
check "size with two suffixes"  2 'bad value "1KB" for "mr-bytes"' -- dev set vr0 mr-bytes 1KB
check "size overflow"           2 'bad value "16777216T" for "mr-bytes"' -- dev set vr0 mr-bytes 16777216T
check "limit given twice"       2 '"qp" given twice'    -- dev set vr0 qp 1 qp 2
check "parent given twice"      2 '"parent" given twice' -- "${ADD[@]}" parent rxe1 netns-pid 1
check "two netns"               2 "only one of netns"   -- "${ADD[@]}" netns-pid 1 netns blue
check "missing parent"          2 '"parent PARENT" is required' -- dev add vr0 netns-pid 1
check "missing netns"           2 "one of netns, netns-pid, netns-path is required" -- "${ADD[@]}"
check "netns name with slash"   2 'bad value "a/b" for "netns"' -- "${ADD[@]}" netns a/b
check "netns name .."           2 'bad value ".." for "netns"' -- "${ADD[@]}" netns ..
check "netns-pid 0"             2 'bad value "0" for "netns-pid"' -- "${ADD[@]}" netns-pid 0
check "netns-pid word"          2 'bad value "self" for "netns-pid"' -- "${ADD[@]}" netns-pid self
check "dev set without limits"  2 "no limit given"      -- dev set vr0
check "dev set non-limit word"  2 'unknown dev set keyword "parent"' -- dev set vr0 parent rxe0
check "sgid with prefix"        2 'bad value "10.0.0.1/24" for "sgid"' -- dev set vr0 sgid 10.0.0.1/24
check "sgid not an address"     2 'bad value "host" for "sgid"' -- dev set vr0 sgid host
check "peer prefix too long"    2 'bad value "10.0.0.0/33" for "peer"' -- dev set vr0 peer 10.0.0.0/33
check "peer v6 prefix too long" 2 'bad value "fd00::/129" for "peer"' -- dev set vr0 peer fd00::/129
check "peer any mixed"          2 '"peer any" cannot be combined' -- dev set vr0 peer any peer 10.0.0.0/8
check "sgid any mixed"          2 '"sgid any" cannot be combined' -- dev set vr0 sgid 10.0.0.1 sgid any
mapfile -t PEERS17 < <(for i in $(seq 17); do printf 'peer\n10.0.%s.0/24\n' "$i"; done)
check "too many peers"          2 'too many "peer": at most 16' -- dev set vr0 "${PEERS17[@]}"
check "ambiguous s keyword"     2 'ambiguous dev set keyword "s"' -- dev set vr0 s 1

# A name that is a prefix of a keyword ("he" of "help") is a name: the
# command reaches the kernel (or finds the module missing), status 1
check "dev del he is a name"    1 "dev del: "           -- dev del he
check "dev show he is a name"   1 "dev show: "          -- dev show he
check "dev set he is a name"    1 "dev set: "           -- dev set he qp 1
check "dev add he is a name"    1 "dev add: "           -- dev add he parent rxe0 netns-pid 1
check "dev del -h"              0 "dev del NAME"        -- dev del -h

# Good grammar goes past the parser (to the kernel, or to "not loaded")
for args in "qp 1" "mr-bytes 4K" "mr-bytes 2g" "mr-bytes max" "ctx max pd 0" \
	"sgid 10.0.0.1 sgid fe80::1" "peer 10.0.0.0/8 peer fd00::/8" "peer any" \
	"sgid any qp 2"; do
	# shellcheck disable=SC2086
	"$VRDMACTL" dev set "$NODEV" $args >/dev/null 2>"$tmp/err" </dev/null
	status=$?
	why=
	if [ "$status" != 1 ]; then
		why="exit status $status, want 1"
	elif grep -q "bad value\|keyword\|given" "$tmp/err"; then
		why="refused by the parser"
	fi
	result "parser accepts: dev set NAME $args" "$why" ||
		sed 's/^/     stderr: /' "$tmp/err"
done
check "-n missing namespace"    1 'network namespace "/var/run/netns/vrdmactl-test-no-such-ns"' -- -n vrdmactl-test-no-such-ns dev show

# Version: the tool's line first, exit 0 with or without the module
check "-V"                      0 "vrdmactl "           -- -V
if head -n 1 "$tmp/out" | grep -q '^vrdmactl [^ ]\+$' &&
   sed -n 2p "$tmp/out" | grep -q '^vrdma module'; then
	passed=$((passed + 1)); echo "ok   -V output format"
else
	failed=$((failed + 1)); echo "FAIL -V output format"; cat "$tmp/out"
fi

# Batch mode
printf '# a comment\n\n  help   # trailing comment\ndev help\n' >"$tmp/good"
check "batch of help lines"     0 "dev add NAME"        -- -b "$tmp/good"
# Comments and blank lines count; nothing after the bad line runs (stdout
# stays empty)
printf '# comment\n\nbogus\ndev help\n' >"$tmp/bad"
check "batch stops at bad line" 2 "$tmp/bad:3: command failed" -- -b "$tmp/bad"
printf 'dev set "%s\n' x >"$tmp/quote"
check "batch unterminated quote" 2 "unterminated quote" -- -b "$tmp/quote"
check "batch missing file"      1 'cannot open batch file "/nonexistent/batch"' -- -b /nonexistent/batch
"$VRDMACTL" -b - >"$tmp/out" 2>"$tmp/err" <<<"parent help
dev frob"
if [ $? = 2 ] && grep -qF -- '-:2: command failed' "$tmp/err" &&
   grep -q 'unknown dev command "frob"' "$tmp/err"; then
	passed=$((passed + 1)); echo "ok   batch from stdin"
else
	failed=$((failed + 1)); echo "FAIL batch from stdin"; cat "$tmp/err"
fi

echo "vrdmactl cli: $passed passed, $failed failed"
[ "$failed" = 0 ]
