#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The last test of `make check-debug`: a kmemleak scan after the suite.
# Any unreferenced object allocated by vrdma, or by the RDMA core, rxe or
# uverbs on vrdma's behalf, is a failure.  Skipped on kernels without
# kmemleak (the stock Debian kernel of `make check`).

# shellcheck source=selftests/lib/lib.sh
. "$(dirname "$0")/lib/lib.sh"

KML=/sys/kernel/debug/kmemleak
[ -w "$KML" ] || ktap_skip_all "kernel without kmemleak ($KML)"

ktap_plan kmemleak_clean

# Objects freed by RCU or workqueues need a moment; kmemleak also only
# reports objects that stayed unreferenced over two scans, and none
# younger than 5 s (its minimum age): these sleeps are a time by nature,
# nothing to poll for.
sleep 5
echo scan > "$KML"
sleep 5
echo scan > "$KML"
report=$(cat "$KML")
ours=$(awk -v RS='unreferenced object' \
	'/vrdma|ib_core|ib_uverbs|rdma_rxe|ib_|rxe_/ { print "unreferenced object" $0 }' <<<"$report")
total=$(grep -c '^unreferenced object' <<<"$report" || true)
ktap_diag "kmemleak: $total unreferenced object(s) in all"
# The others, by task and allocating function, so that a growing count
# can be told apart from the kernel's known one-off allocations.
[ "$total" -gt 0 ] && awk '
	/^unreferenced object/ { if (comm != "") print comm, fn; comm = ""; fn = "?"; next }
	/^  comm / { comm = $2; sub(/,$/, "", comm); next }
	/^    \[<[0-9a-f]*>\] / && fn == "?" {
		f = $2; sub(/\+.*/, "", f)
		if (f !~ /kmalloc|kmem_cache|slab|kmemleak|alloc_node|kzalloc|kcalloc|krealloc|kvmalloc|kstrdup|kmemdup|__alloc|vmalloc/)
			fn = f
	}
	END { if (comm != "") print comm, fn }' <<<"$report" |
	sort | uniq -c | sort -rn | head -n 20 | while read -r n comm fn; do
		ktap_diag "  $n from $comm in $fn"
	done
if [ -z "$ours" ]; then
	ktap_ok kmemleak_clean
else
	ktap_diag "$ours"
	ktap_fail kmemleak_clean "leaks in the RDMA stack"
fi
ktap_finish
