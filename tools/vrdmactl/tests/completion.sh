#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The bash completion of vrdmactl, without the bash-completion package and
# without the kernel module: its two helpers (_init_completion, _filedir)
# are replaced by minimal stand-ins, and the tool it asks for vdevice and
# parent names is a stub printing canned JSON.
#
#   tests/completion.sh [PATH-TO-COMPLETION-FILE]

COMPLETION=${1:-completion/vrdmactl}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tools/vrdmactl/tests/lib.sh
. "$(dirname "$0")/lib.sh"

# The stub tool: "-j dev show" and "-j parent show", as vrdmactl prints them
cat >"$tmp/vrdmactl" <<'EOF'
#!/bin/sh
case "$*" in
*"-j dev show")
	echo '[{"index":3,"name":"vA","parent":"rxe0","netns":{"inode":1,"name":"a"}},{"index":4,"name":"vB","parent":"rxe0"}]' ;;
*"-j parent show")
	echo '[{"name":"rxe0","driver":"rxe","vdev_count":2,"vdevs":["vA","vB"]},{"name":"mlx5_0","vdev_count":0,"vdevs":[]}]' ;;
esac
EOF
chmod +x "$tmp/vrdmactl"

# Sets the variables _vrdmactl declares local and reads
# shellcheck disable=SC2034
_init_completion() {
	words=("${COMP_WORDS[@]}")
	cword=$COMP_CWORD
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD - 1]}
}
_filedir() {
	COMPREPLY=(FILES)
}
complete() { :; }

# shellcheck source=/dev/null
. "$COMPLETION"

# check "WORDS..." "EXPECTED" - complete the last word of WORDS (the line
# typed so far; a trailing space means a new, empty word).
check() {
	local line=$1 want=$2 got
	read -ra COMP_WORDS <<<"$line"
	COMP_WORDS[0]=$tmp/vrdmactl
	[[ $line == *" " ]] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_vrdmactl
	got=$(printf '%s\n' "${COMPREPLY[@]}" | sort | xargs)
	if [ "$got" = "$want" ]; then
		result "'$line'"
	else
		result "'$line'" "got '$got', want '$want'"
	fi
}

check "vrdmactl "                     "dev help monitor parent"
check "vrdmactl d"                    "dev"
check "vrdmactl --j"                  "--json"
check "vrdmactl -j "                  "dev help monitor parent"
check "vrdmactl dev "                 "add del help set show"
check "vrdmactl dev s"                "set show"
check "vrdmactl dev show "            "vA vB"
check "vrdmactl dev del v"            "vA vB"
check "vrdmactl dev set vA "          "ah cm-publish cq ctx drv-obj mr mr-bytes mw pd peer qp sgid srq"
check "vrdmactl dev set vA qp "       "max"
check "vrdmactl dev set vA cm-publish " "none"
check "vrdmactl dev add vC "          "ah cq ctx drv-obj gids mr mr-bytes mw netns netns-path netns-pid parent pd peer qp sgid srq"
check "vrdmactl dev add vC parent "   "mlx5_0 rxe0"
check "vrdmactl dev add vC parent r"  "rxe0"
check "vrdmactl dev add vC netns-path " "FILES"
check "vrdmactl parent "              "help show"
check "vrdmactl monitor "             "help"
check "vrdmactl -b "                  "FILES"

echo "vrdmactl completion: $passed passed, $failed failed"
[ "$failed" = 0 ]
