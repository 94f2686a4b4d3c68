# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The bypass part of the benchmark: the mapped rings of rdmasim.
# Sourced by bench.sh, which sets the knobs, the topology and the helpers
# (pair, sample, fail, kinds_for) this part uses.

BYPASS=
BYPASS_NS=

# bypass_setup - rdmasim's sim0 on veth1 and the vdevice vP on it in a
# netns of its own; BYPASS=native or "native vdev"
bypass_setup() {
	local out
	if ! [ -x "$SIM_DP" ] || ! [ -r "$SIM_KO" ] ||
		! { [ -d /sys/module/rdmasim ] || in_init insmod "$SIM_KO"; } ||
		! in_init rdma link add sim0 type rdmasim netdev veth1; then
		fail "bypass: no rdmasim"
		return 1
	fi
	cleanup_push rmmod rdmasim
	cleanup_push rdma link del sim0
	# The strict checks that still fire through a vdevice (sim.sh's
	# KNOWN_STRICT) are sim.sh's business: plain lines here, not WARNs
	echo N >/sys/module/rdmasim/parameters/strict_warn
	cleanup_push sh -c 'echo Y >/sys/module/rdmasim/parameters/strict_warn'
	BYPASS=native
	if ! { new_ns BYPASS_NS p && PARENT=sim0 vdev_add vP "$BYPASS_NS"; }; then
		fail "bypass: vdevice on sim0"
		return 0
	fi
	# Without driver-method forwarding create_cq gets no doorbell page
	out=$(in_ns "$BYPASS_NS" "$SIM_DP" vP -n 1 2>&1)
	case $out in
	*"uar_alloc err"*)
		say "bypass: vdevice skipped: vrdma does not forward driver methods ($(grep -o 'uar_alloc err [A-Z]*' <<<"$out"))"
		;;
	*) BYPASS="native vdev" ;;
	esac
}

dp_wqes() {
	awk '$1 == "wqes" { print $2 }' "$SIM_DPSTAT"
}

# bypass REP - both cases, both kinds (those that work), alternating order
bypass() {
	local rep=$1 kind c op size n out w0 t0 wall wqes secs rate
	for kind in $(kinds_for "$rep"); do
		[[ " $BYPASS " == *" $kind "* ]] || continue
		for c in "send 2 $BYPASS_MSGS" "write 65536 $BYPASS_WRITE_MSGS"; do
			read -r op size n <<<"$c"
			w0=$(dp_wqes)
			t0=$(now)
			if [ "$kind" = native ]; then
				out=$(in_init "$SIM_DP" sim0 -r "$op" -z "$size" -n "$n" 2>&1)
			else
				out=$(in_ns "$BYPASS_NS" "$SIM_DP" vP -r "$op" -z "$size" -n "$n" 2>&1)
			fi
			wall=$(elapsed "$t0")
			wqes=$(($(dp_wqes) - w0))
			printf '%s
' "$out" >>"$LOG"
			# rate OP SIZE N SECONDS MSGS_PER_SEC
			read -r _ _ _ _ secs rate < <(grep '^rate ' <<<"$out")
			if [ -z "$rate" ] || [ "$wqes" -lt "$n" ]; then
				fail "bypass $op $kind rep $rep (device executed $wqes of $n)"
				continue
			fi
			sample bypass "$op" "$kind" "$size" "$rep" Mmsgps \
				"$(awk -v r="$rate" 'BEGIN { printf "%.6f", r / 1e6 }')"
			sample bypass "$op" "$kind" "$size" "$rep" window_s "$secs"
			sample bypass "$op" "$kind" "$size" "$rep" process_s "$wall"
			sample bypass "$op" "$kind" "$size" "$rep" device_wqes "$wqes"
		done
	done
}
