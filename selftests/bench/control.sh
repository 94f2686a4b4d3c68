# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The control-path parts of the benchmark: ctlbench rounds, and the
# perf profile of BENCH_PARTS=profile.
# Sourced by bench.sh, which sets the knobs, the topology and the helpers
# (pair, sample, fail, kinds_for) this part uses.

control() {	# REP
	local rep=$1 kind out
	for kind in $(kinds_for "$rep"); do
		if out=$(run_ctl "${NS_C[$kind]}" "$CTLBENCH" -d "${DEV_C[$kind]}" -g "$GIDX" \
				-n "$CTL_ITERS" -m "$MEM_OBJS" 2>&1); then
			printf '%s\n' "$out" >> "$LOG"
			local w
			while read -ra w; do
				case ${w[0]} in
				op=*)	# op=NAME n=.. median_us=.. p10_us=.. p90_us=..
					sample ctl "${w[0]#op=}" "$kind" 0 "$rep" median_us "${w[2]#median_us=}"
					sample ctl "${w[0]#op=}" "$kind" 0 "$rep" p90_us "${w[4]#p90_us=}"
					;;
				mem=*)	# mem=NAME n=.. bytes_per_obj=..
					sample objmem "${w[0]#mem=}" "$kind" 0 "$rep" bytes "${w[2]#bytes_per_obj=}"
					;;
				esac
			done <<< "$out"
		else
			printf '%s\n' "$out" >> "$LOG"
			fail "ctlbench $kind rep $rep"
		fi
	done
}

# --- control path profile (BENCH_PARTS=profile, not in the default run) -------
#
# perf record (cpu-clock, PROFILE_HZ samples per second of the process's own
# CPU time, with call chains) of ctlbench running one operation PROFILE_ITERS
# times, native and on a vdevice.  profile-OP.txt lists kernel functions
# with the time spent in them and in what they call (perf's "children"),
# in microseconds per round for each kind, largest difference first: where
# a vdevice's extra time goes (report-OP-KIND.txt: perf's whole report).
# The process's start-up is in the samples too, but not under the verbs'
# entry points, which is what to read.  perf's sampling slows the process
# down: compare the two columns, not their values with ctlbench's.

profile() {
	local op kind data rec
	require_cmd perf || { fail "perf missing (linux-perf)"; return; }
	# perf writes its samples from its ring buffer's mapping, which 7.x's
	# 9p (the guest's results directory) refuses with EFAULT: record in
	# the guest's own /tmp, keep a copy.
	tmpdir rec || { fail "no scratch directory for perf"; return; }
	# -N -B: no build-id cache and no build-ids, which perf collects by
	# reading every DSO and copying kallsyms at the end of each record,
	# the longest part of a short record under TCG: the kernel is the
	# live one and report reads /proc/kallsyms.
	for op in $PROFILE_OPS; do
		rm -f "$OUT/report-$op-native.txt" "$OUT/report-$op-vdev.txt"
		for kind in native vdev; do
			data=$rec/perf-$op-$kind.data
			if ! run_ctl "${NS_C[$kind]}" perf record -q -N -B -F "$PROFILE_HZ" -g -o "$data" -- \
					"$CTLBENCH" -d "${DEV_C[$kind]}" -g "$GIDX" -o "$op" \
					-n "$PROFILE_ITERS" >> "$LOG" 2>&1; then
				fail "perf record $op $kind"
				continue
			fi
			perf report -i "$data" --stdio --children -g none --sort sym \
				2>> "$LOG" > "$OUT/report-$op-$kind.txt"
			cp "$data" "$OUT/"
		done
		if [ ! -s "$OUT/report-$op-native.txt" ] || [ ! -s "$OUT/report-$op-vdev.txt" ]; then
			continue
		fi
		# "# Event count (approx.): NS" and
		# "  CHILDREN%  SELF%  [k] symbol" -> inclusive us per round
		awk -v n="$PROFILE_ITERS" -v op="$op" '
			FNR == 1 { kind = (FILENAME ~ /native[.]txt$/) ? "n" : "v" }
			/^# Event count/ { ns[kind] = $NF }
			/^ +[0-9.]+% +[0-9.]+% +\[k\]/ {
				sym = $4; for (i = 5; i <= NF; i++) sym = sym " " $i
				pct = $1; sub(/%/, "", pct)
				u[kind, sym] = pct / 100 * ns[kind] / 1e3 / n; s[sym] = 1
			}
			END {
				printf "%s: CPU us per round (with start-up), native %.2f, vdevice %.2f\n",
					op, ns["n"] / 1e3 / n, ns["v"] / 1e3 / n
				printf "%9s %9s %9s  %s\n", "native", "vdevice", "delta", "kernel function (inclusive)"
				for (x in s) printf "%9.2f %9.2f %9.2f  %s\n", u["n", x], u["v", x], u["v", x] - u["n", x], x
			}' "$OUT/report-$op-native.txt" "$OUT/report-$op-vdev.txt" |
			{ IFS= read -r h1; IFS= read -r h2; printf '%s\n%s\n' "$h1" "$h2";
			  sort -k3,3gr | head -n 60; } > "$OUT/profile-$op.txt"
		say "$(head -n 1 "$OUT/profile-$op.txt") (profile-$op.txt)"
	done
}
