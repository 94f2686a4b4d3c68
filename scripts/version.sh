#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Prints the vrdma version: VERSION plus the git commit when built from git.
top=$(dirname "$0")/..
base=$(cat "$top/VERSION")
if desc=$(git -C "$top" describe --always --dirty --abbrev=10 2>/dev/null); then
	echo "$base+g$desc"
else
	echo "$base"
fi
