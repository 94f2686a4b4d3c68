#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make style`: the kernel's checkpatch.pl --strict over every C source and
# header of the tree (kmod/ uapi/ userlib/ tools/), and shellcheck over the
# shell scripts.  checkpatch.pl, spelling.txt and const_structs.checkpatch
# come from Debian's linux-source-6.1 tarball, extracted once into
# .cache/checkpatch/<package version>/ (git-ignored).  Exits non-zero on any
# error, warning or check, after a summary.
#
# Kernel code (kmod/, uapi/, selftests/rdmasim/) gets every check.  User-space code (userlib/,
# tools/) is exempt from three types that only make sense inside the kernel:
#   PREFER_KERNEL_TYPES             u32 & co. do not exist in user space;
#                                   <stdint.h> types are the right ones
#   PREFER_DEFINED_ATTRIBUTE_MACRO  __printf(), __packed, ... are kernel
#                                   macros (compiler_attributes.h)
#   CAMELCASE                       names fixed by others: C11 keywords
#                                   (_Alignas), <inttypes.h> (PRIu64),
#                                   libFuzzer's LLVMFuzzerTestOneInput

set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TARBALL=/usr/src/linux-source-6.1.tar.xz
cd "$TOP"

[ -r "$TARBALL" ] || { echo "style: $TARBALL missing; run 'make deps'" >&2; exit 1; }
ver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || echo unknown)
CACHE=$TOP/.cache/checkpatch/$ver
CHECKPATCH=$CACHE/scripts/checkpatch.pl

if [ ! -x "$CHECKPATCH" ]; then
	echo "style: extracting checkpatch.pl from $TARBALL ($ver)"
	rm -rf "$CACHE.tmp"
	mkdir -p "$CACHE.tmp"
	tar -xJf "$TARBALL" -C "$CACHE.tmp" --strip-components=1 --wildcards \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
		'*/scripts/const_structs.checkpatch'
	rm -rf "$CACHE"
	mv "$CACHE.tmp" "$CACHE"
fi

USER_IGNORE=PREFER_KERNEL_TYPES,PREFER_DEFINED_ATTRIBUTE_MACRO,CAMELCASE

sources() {
	find "$@" -type f \( -name '*.c' -o -name '*.h' \) ! -name '*.mod.c' \
		2>/dev/null | LC_ALL=C sort
}

status=0
nfiles=0
nerr=0
nwarn=0
nchk=0
# checkpatch DIRS [OPTION...]
checkpatch() {
	local dirs=$1 out problems files
	shift
	# shellcheck disable=SC2086  # DIRS is a word list
	mapfile -t files < <(sources $dirs)
	[ "${#files[@]}" -gt 0 ] || return 0
	nfiles=$((nfiles + ${#files[@]}))
	# From the cache directory, so that checkpatch's CamelCase cache file
	# (.checkpatch-camelcase.*, written to the current directory) lands
	# there and not in the work tree.
	out=$(cd "$CACHE" && "$CHECKPATCH" --strict --no-tree --terse --show-types \
		"$@" --file "${files[@]/#/$TOP/}" 2>&1) || status=1
	out=${out//"$TOP/"/}
	# --terse prints one line per problem.
	problems=$(grep -E ': (ERROR|WARNING|CHECK):' <<< "$out" || true)
	if [ -n "$problems" ]; then
		echo "$problems"
		nerr=$((nerr + $(grep -c ': ERROR:' <<< "$problems" || true)))
		nwarn=$((nwarn + $(grep -c ': WARNING:' <<< "$problems" || true)))
		nchk=$((nchk + $(grep -c ': CHECK:' <<< "$problems" || true)))
	elif [ "$status" -ne 0 ]; then
		echo "$out"
	fi
}

checkpatch "kmod uapi selftests/rdmasim"
checkpatch "userlib tools" --ignore "$USER_IGNORE"
echo "style: checkpatch --strict over $nfiles files: $nerr errors, $nwarn warnings, $nchk checks"

mapfile -t scripts < <( { find selftests scripts .ci -type f -name '*.sh';
	find .ci -type f -name run; echo selftests/vm/initramfs-init;
	echo tools/cni/vrdma; } 2>/dev/null |
	while read -r f; do [ -f "$f" ] && echo "$f"; done | LC_ALL=C sort -u)
if ! command -v shellcheck >/dev/null; then
	echo "style: shellcheck missing; run 'make deps'" >&2
	status=1
elif [ "${#scripts[@]}" -gt 0 ]; then
	if shellcheck -x -f gcc "${scripts[@]}"; then
		echo "style: shellcheck over ${#scripts[@]} scripts: clean"
	else
		echo "style: shellcheck over ${#scripts[@]} scripts: problems above"
		status=1
	fi
fi

exit "$status"
