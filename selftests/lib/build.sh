# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers for the selftests that install the module inside the guest
# (install.sh, dkms.sh).  Sourced after lib.sh, with $T a scratch directory.

# ensure_harness_module - put the harness's own vrdma_vma.ko and vrdma.ko
# back, whatever the test left loaded, so that the next scripts find them.
# "modprobe -r vrdma" also removes vrdma_vma when nothing else uses it.
ensure_harness_module() {
	modprobe -r vrdma 2>/dev/null
	[ -d /sys/module/vrdma ] || rmmod vrdma_vma 2>/dev/null
	load_modules
}

# elapsed SINCE - seconds since $EPOCHREALTIME was SINCE, one decimal.
elapsed() {
	awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'
}

# run_logged NAME CMD... - run CMD with its output in $T/NAME.log; on
# failure show the log's tail.
run_logged() {
	local name=$1 t0=$EPOCHREALTIME rc
	shift
	echo "# [init] $*" >&"$KTAP_FD"
	"$@" >"$T/$name.log" 2>&1
	rc=$?
	ktap_diag "$name: exit $rc after $(elapsed "$t0") s"
	[ "$rc" -eq 0 ] || ktap_diag "$(tail -n 25 "$T/$name.log")"
	return "$rc"
}
