#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Builds a Go program of the tree with Debian 13's Go and packaged Go
# libraries (/usr/share/gocode, GOPATH mode: nothing is downloaded, no
# module proxy is asked) in the chroot scripts/deps-trixie.sh makes, as a
# static binary (CGO_ENABLED=0) that runs on the host and in the test VM.
#
#   scripts/gobuild.sh DIR OUTPUT [vet]
#   scripts/gobuild.sh DIR - test
#
# DIR and OUTPUT are paths in the tree; "vet" also runs gofmt -l and go vet
# on DIR and fails if either says anything; "test" runs its unit tests
# (go test) instead of building.  Needs root (chroot) and a
# private mount namespace for the bind mount of the tree, as kmake.sh.

set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
ROOT=${VRDMA_CACHE:-/var/cache/vrdma}/trixie
[ $# -ge 2 ] || { echo "usage: $0 DIR OUTPUT [vet] | $0 DIR - test" >&2; exit 2; }
dir=$(cd "$1" && pwd)
out=-
[ "$2" = - ] || out=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
vet=${3:-}
case $dir/ in "$TOP"/*) ;; *) echo "gobuild: $1 is not in $TOP" >&2; exit 2 ;; esac

if [ ! -x "$ROOT/usr/lib/go-1.24/bin/go" ] && [ ! -x "$ROOT/usr/bin/go" ]; then
	echo "gobuild: no Go in $ROOT: run scripts/deps.sh (as root)" >&2
	exit 1
fi
[ "$(id -u)" -eq 0 ] || { echo "gobuild: building in $ROOT needs root" >&2; exit 1; }
mountpoint -q / ||
	{ echo "gobuild: / is not a mount point: a private mount namespace needs it" >&2; exit 1; }

# shellcheck disable=SC2016
exec unshare -m --propagation private bash -c '
	set -e
	root=$1 top=$2 dir=$3 out=$4 vet=$5
	mkdir -p "$root$top"
	mount --bind "$top" "$root$top"
	mount -t proc proc "$root/proc"
	run() {
		chroot "$root" /usr/bin/env -i PATH=/usr/bin:/bin HOME=/tmp \
			GOCACHE=/tmp/vrdma-gocache GOPATH=/usr/share/gocode \
			GO111MODULE=off GOFLAGS= GOPROXY=off CGO_ENABLED=0 \
			/usr/bin/env -C "$dir" "$@"
	}
	if [ "$vet" = test ]; then
		run go test .
		exit
	fi
	if [ "$vet" = vet ]; then
		bad=$(run gofmt -l .)
		[ -z "$bad" ] || { echo "gofmt: not formatted: $bad" >&2; exit 1; }
		run go vet .
	fi
	run go build -trimpath -ldflags=-s -o "$out" .
' gobuild "$ROOT" "$TOP" "$dir" "$out" "$vet"
