# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The scale part of the benchmark: many vdevices, their time and memory.
# Sourced by bench.sh, which sets the knobs, the topology and the helpers
# (pair, sample, fail, kinds_for) this part uses.

# Kernel memory the benchmark attributes to devices, in bytes.
kmem() {
	awk '$1 == "Slab:" || $1 == "VmallocUsed:" || $1 == "Percpu:" { s += $2 }
	     END { print s * 1024 }' /proc/meminfo
}

# settle - let deferred frees (RCU, work items) finish before reading kmem.
settle() {
	sync
	sleep "$SETTLE"
}

# slab_snapshot FILE - bytes per slab cache (active objects x size).
slab_snapshot() {
	awk 'NR > 2 { print $1, $2 * $4 }' /proc/slabinfo | sort > "$1"
}

# slab_top BEFORE AFTER COUNT - the caches that grew most, per vdevice.
slab_top() {
	join "$1" "$2" | awk -v n="$3" '{ d = ($3 - $2) / n; if (d >= 256) print d, $1 }' |
		sort -rn | head -n 8
}

# tool_startup_ms - the smallest of three runs of a batch that creates
# nothing: process start, libvrdma and genetlink setup, which every batch
# pays once and which is not the cost of a create.
tool_startup_ms() {
	local i t0 best=
	echo "parent show" > "$OUT/tmp.noop"
	for i in 1 2 3; do
		t0=$(now)
		"$VRDMACTL" -b "$OUT/tmp.noop" > /dev/null 2>> "$LOG"
		best=$(awk -v t="$(elapsed "$t0")" -v b="$best" \
			'BEGIN { t *= 1e3; if (b == "" || t < b) b = t; printf "%.3f", b }')
	done
	echo "$best"
}


# vdevs_at_most N - no more than N vdevices exist (for wait_for).
vdevs_at_most() {
	[ "$(vdev_count)" -le "$1" ]
}

scale() {
	local count batch=100 i b t0 m0 nb ns_list=() n startup base
	# The other parts' vdevices (the bypass part's too) stay
	base=$(vdev_count)
	for ((i = 0; i < SCALE_NS; i++)); do
		new_ns "SNS$i" "s$i" || { fail "scale netns"; return 1; }
		ns_list+=("$(eval echo "\$SNS$i")")
	done
	startup=$(tool_startup_ms)
	sample scale tool_startup_ms vrdmactl 0 0 ms "$startup"
	for count in $SCALE; do
		nb=$(( (count + batch - 1) / batch ))
		settle
		slab_snapshot "$OUT/tmp.slab0"
		m0=$(kmem)
		# Create in batches of up to 100: the time of each batch says
		# whether a create costs more when more vdevices exist.
		for ((b = 0; b < nb; b++)); do
			: > "$OUT/tmp.batch"
			for ((i = b * batch; i < count && i < (b + 1) * batch; i++)); do
				echo "dev add sc$i parent $PARENT netns ${ns_list[$((i % SCALE_NS))]}"
			done >> "$OUT/tmp.batch"
			if ! batch_timed create_batch "$count" "$b"; then
				fail "scale: creating batch $b of $count"
				return 1
			fi
		done
		[ "$(vdev_count)" -ge "$count" ] || { fail "scale: only $(vdev_count) vdevices"; return 1; }
		mem_grown mem_per_vdev vdev "$count" "$m0"
		# Listing: the tool's JSON output with all of them.
		for ((i = 0; i < 3; i++)); do
			t0=$(now)
			"$VRDMACTL" -j dev show > "$OUT/tmp.show" 2>> "$LOG" ||
				fail "scale: dev show with $count"
			sample scale dev_show_ms vdev "$count" "$i" ms \
				"$(awk -v t="$(elapsed "$t0")" 'BEGIN { printf "%.3f", t * 1e3 }')"
		done
		n=$(jq length "$OUT/tmp.show" 2>/dev/null || echo 0)
		[ "$n" -ge "$count" ] || fail "scale: dev show -j listed $n of $count"
		for ((b = 0; b < nb; b++)); do
			: > "$OUT/tmp.batch"
			for ((i = b * batch; i < count && i < (b + 1) * batch; i++)); do
				echo "dev del sc$i"
			done >> "$OUT/tmp.batch"
			batch_timed delete_batch "$count" "$b" ||
				fail "scale: deleting batch $b of $count"
		done
		wait_for 30 vdevs_at_most "$base" > /dev/null ||
			fail "scale: $(vdev_count) vdevices left after deleting $count, $base before"
	done
}

# batch_timed NAME COUNT B - vrdmactl runs tmp.batch, batch B with COUNT
# vdevices; if it succeeds, sample NAME, its time per line less the tool's
# startup ($startup)
batch_timed() {
	local n t0 per
	n=$(wc -l < "$OUT/tmp.batch")
	t0=$(now)
	"$VRDMACTL" -b "$OUT/tmp.batch" >> "$LOG" 2>&1 || return 1
	per=$(awk -v t="$(elapsed "$t0")" -v n="$n" -v s="$startup" \
		'BEGIN { printf "%.3f", (t * 1e3 - s) / n }')
	sample scale "$1" vdev "$2" "$3" ms_per_op "$per"
}

# mem_grown NAME OBJ COUNT M0 - COUNT objects OBJ were made since kernel
# memory was M0 and the slab caches were snapshot in tmp.slab0: sample
# NAME, their kernel memory each, and where it goes, the slab caches that
# grew most, per object
mem_grown() {
	local name=$1 obj=$2 count=$3 m0=$4 m per cache
	settle
	m=$(kmem)
	slab_snapshot "$OUT/tmp.slab1"
	sample scale "$name" "$obj" "$count" 0 bytes $(( (m - m0) / count ))
	# (A file, not <(...): the guest's devtmpfs has no /dev/fd.)
	slab_top "$OUT/tmp.slab0" "$OUT/tmp.slab1" "$count" > "$OUT/tmp.slabtop"
	while read -r per cache; do
		sample slab "$cache" "$obj" "$count" 0 bytes "$per"
	done < "$OUT/tmp.slabtop"
}

# rxe_reference - kernel memory of one rxe device (beyond its netdev): what
# the RDMA core allocates for any ib_device, plus rxe's own state.  The
# vdevice figure is compared against it.
rxe_reference() {
	local i m0 m1
	settle
	m0=$(kmem)
	for ((i = 0; i < RXE_REF; i++)); do
		ip link add "bdum$i" type dummy || { fail "dummy netdev"; return 1; }
		cleanup_push ip link del "bdum$i"
	done
	settle
	m1=$(kmem)
	slab_snapshot "$OUT/tmp.slab0"
	for ((i = 0; i < RXE_REF; i++)); do
		rdma link add "brxe$i" type rxe netdev "bdum$i" >> "$LOG" 2>&1 ||
			{ fail "rxe reference device"; return 1; }
		cleanup_push rdma link del "brxe$i"
	done
	mem_grown mem_per_rxe rxe "$RXE_REF" "$m1"
	sample scale mem_per_dummy dummy "$RXE_REF" 0 bytes $(( (m1 - m0) / RXE_REF ))
	for ((i = 0; i < RXE_REF; i++)); do
		rdma link del "brxe$i" >> "$LOG" 2>&1
		ip link del "bdum$i"
	done
}
