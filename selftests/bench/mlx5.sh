# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The mlx5 part of the benchmark: stock libmlx5 on rdmasim's mlx5
# personality, natively and between two vdevices of it.
# Sourced by bench.sh, which sets the knobs, the topology and the helpers
# (pair, sample, fail, kinds_for) this part uses.
#
# It fills in bench.sh's per-kind tables (DEV_S, NS_S, ...: associative
# arrays shellcheck cannot see from here) and flags.
# shellcheck disable=SC2034,SC2154

MLX5=

# mlx5_setup - rdmasim's mlx5 personality as mlx0 on a veth of its own
# (10.97.1.1), and the vdevices vM1, vM2 of it in two namespaces linked out
# of band (10.98.2.0/24): the kinds mlx5_native and mlx5_vdev; MLX5=1
mlx5_setup() {
	local variant=/sys/module/rdmasim/parameters/variant m1 m2 ok
	if ! [ -r "$SIM_KO" ] ||
	   ! { [ -d /sys/module/rdmasim ] ||
		{ in_init insmod "$SIM_KO" && cleanup_push rmmod rdmasim; }; }; then
		fail "mlx5: no rdmasim"
		return 1
	fi
	in_init ip link add svb0a type veth peer name svb0b &&
		cleanup_push ip link del svb0a &&
		in_init ip link set svb0a up && in_init ip link set svb0b up &&
		in_init ip addr add 10.97.1.1/24 dev svb0a &&
		echo mlx5 >"$variant" &&
		in_init rdma link add mlx0 type rdmasim netdev svb0a
	ok=$?
	echo roce >"$variant"
	if [ "$ok" != 0 ]; then
		fail "mlx5: no mlx5 personality (rdma link add mlx0)"
		return 1
	fi
	cleanup_push rdma link del mlx0
	if ! { new_ns m1 m1 && new_ns m2 m2 && link_ns "$m1" "$m2" 2 &&
	       PARENT=mlx0 vdev_add vM1 "$m1" && PARENT=mlx0 vdev_add vM2 "$m2"; }; then
		fail "mlx5: vdevices on mlx0"
		return 1
	fi
	DEV_S[mlx5_native]=mlx0 DEV_C[mlx5_native]=mlx0
	NS_S[mlx5_native]=init NS_C[mlx5_native]=init ADDR[mlx5_native]=127.0.0.1
	DEV_S[mlx5_vdev]=vM1 DEV_C[mlx5_vdev]=vM2
	NS_S[mlx5_vdev]=$m1 NS_C[mlx5_vdev]=$m2 ADDR[mlx5_vdev]=$OOB_NET.2.1
	MLX5=1
}

mlx5_wqes() {
	awk '$1 == "wqes" { print $2 }' "$MLX5DBG"
}

# mlx5_run KIND REP CASE SIZE TOOL ARGS... - one perftest pair on KIND
# (native, vdev); its figures and the WQEs the double ran as samples.
# ib_send_lat under TCG now and then prints its times as "inf" (its
# cycle count to microseconds): such a run is made again, up to three
# times in all, rather than give a median of inf.
mlx5_run() {
	local kind=$1 rep=$2 case=$3 size=$4 w0 t0 f try
	shift 4
	for try in 1 2 3; do
		w0=$(mlx5_wqes)
		t0=$(now)
		if ! pair "mlx5_$kind" "$@" -s "$size" -F; then
			fail "mlx5 $case $kind rep $rep"
			return
		fi
		[ "$case" = send_lat ] || break
		f=$(perf_row "$size" 5)
		[[ $f =~ ^[0-9]+(\.[0-9]+)?$ ]] && break
		say "mlx5 $case $kind rep $rep: ib_send_lat's time was '$f' (try $try of 3)"
	done
	sample mlx5 "$case" "$kind" "$size" "$rep" process_s "$(elapsed "$t0")"
	sample mlx5 "$case" "$kind" "$size" "$rep" device_wqes $(($(mlx5_wqes) - w0))
	if [ "$case" = send_lat ]; then
		f=$(perf_row "$size" 5)
		[ -n "$f" ] && sample mlx5 "$case" "$kind" "$size" "$rep" t_typical_us "$f"
		f=$(perf_row "$size" 6)
		[ -n "$f" ] && sample mlx5 "$case" "$kind" "$size" "$rep" t_avg_us "$f"
	else
		f=$(perf_row "$size" 4)
		[ -n "$f" ] && sample mlx5 "$case" "$kind" "$size" "$rep" MBps "$f"
	fi
}

# mlx5 REP - both cases, both kinds, alternating order
mlx5() {
	local rep=$1 kind
	for kind in $(kinds_for "$rep"); do
		mlx5_run "$kind" "$rep" send_lat 2 ib_send_lat -n "$MLX5_LAT_ITERS"
		mlx5_run "$kind" "$rep" write_bw 65536 ib_write_bw -n "$MLX5_BW_ITERS"
	done
}

# client_syscalls KIND TOOL SIZE N - the system calls of TOOL's client
# running N iterations on KIND (strace -f -c's total), or nothing
client_syscalls() {
	local out=$OUT/tmp.strace
	rm -f "$out"
	CLI_WRAP=(strace -f -c -o "$out")
	pair "mlx5_$1" "$2" -s "$3" -n "$4" -F >/dev/null || { CLI_WRAP=(); return 1; }
	CLI_WRAP=()
	awk '$NF == "total" { print $4 }' "$out"
}

# mlx5_syscalls - per kind and tool, the client's system calls with 2N
# iterations less those with N: the data phase's, per 1000 iterations
mlx5_syscalls() {
	local kind c case size tool n s1 s2
	for kind in native vdev; do
		for c in "send_lat 2 ib_send_lat $MLX5_LAT_ITERS" \
			 "write_bw 65536 ib_write_bw $MLX5_BW_ITERS"; do
			read -r case size tool n <<<"$c"
			if s1=$(client_syscalls "$kind" "$tool" "$size" "$n") &&
			   s2=$(client_syscalls "$kind" "$tool" "$size" $((2 * n))) &&
			   [ -n "$s1" ] && [ -n "$s2" ]; then
				sample mlx5 "$case" "$kind" "$size" 0 data_syscalls_per_kiter \
					"$(awk -v a="$s1" -v b="$s2" -v n="$n" 'BEGIN { printf "%.3f", (b - a) * 1000 / n }')"
				sample mlx5 "$case" "$kind" "$size" 0 client_syscalls "$s1"
			else
				fail "mlx5 $case $kind: system calls not counted"
			fi
		done
	done
}
