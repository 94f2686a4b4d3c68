# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# What scripts/deps.sh and scripts/deps-trixie.sh share, sourced with their
# arguments: the one option, --quiet (QUIET=1: nothing but installs and
# errors), and say(), which prints unless quiet, prefixed with DEPS_NAME.

QUIET=0
case ${1:-} in
--quiet|-q) QUIET=1 ;;
"") ;;
*) echo "usage: $0 [--quiet]" >&2; exit 2 ;;
esac

say() {
	[ "$QUIET" = 1 ] || echo "$DEPS_NAME: $*"
}
