#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The vrdma VM harness (host side).  Boots Debian's own kernel under qemu TCG
# (no KVM, no module loading and no RDMA on the host), runs the selftests, the
# demo, the benchmarks or one command inside it, and reports.
#
#   selftests/vm/run.sh [--tests "NAME..."]   the suite (selftests/TESTS)
#   selftests/vm/run.sh --demo                selftests/demo/demo.sh
#   selftests/vm/run.sh --bench               selftests/bench/bench.sh
#   selftests/vm/run.sh --shell 'CMD'         one command, e.g. 'rdma dev'
#
# A NAME selects selftests/GROUP/NAME.sh, or else every script whose name
# contains NAME.  Environment: VM_TIMEOUT (seconds, default 4500) kills a
# hung guest, VM_TEST_TIMEOUT (default 900) bounds each script,
# VM_PANIC_ON_WARN=1 turns a WARN into a panic, VM_NO_MODULE=1 boots without
# the modules (harness development only: the module tests then fail),
# VM_MEM, VM_SMP, KERNEL (scripts/kernels.sh: "6.12", a release) or KDIR;
# BENCH_* variables are passed to the benchmark (see selftests/bench/bench.sh);
# the knobs of the tests (NLFUZZ_COUNT, VERBS_FUZZ_COUNT, VERBS_FUZZ_COMPARE,
# FUZZ_SEED, FUZZ_TIME_LIMIT, MODULE_CYCLES, STRESS_SECS, TRAFFIC_ITERS,
# PP_ITERS) too,
# VM_STEP_TIMES=1 (each result preceded by its step's seconds, lib.sh), and
# VM_WAIT_SCALE=N (a whole number: every wait_for of the tests N times as
# long; make check-debug's 4).
#
# Guest topology (one boot runs everything):
#
#   qemu -accel tcg -cpu max -smp 2 (6.12: 1) -m 4G, kernel /boot/vmlinuz-$KVER (or
#   /usr/lib/modules/$KVER/vmlinuz)
#   ├─ ttyS0  kernel console         -> build/vm/run.*/console.log
#   ├─ ttyS1  KTAP + verdict only    -> build/vm/run.*/ktap.log (read here)
#   ├─ 9p "hostroot" = host /, read-only, under a tmpfs overlay = guest /
#   └─ 9p "results"  = build/vm/run.*/results, writable, at /results
#
#   init_net of the guest
#   ├─ lo up
#   ├─ veth0 10.99.0.1/24 <-> veth1 10.99.0.2/24  (never leaves the guest:
#   │                                             qemu has no network card)
#   ├─ rxe0: rdma_rxe on veth0, port 1 ACTIVE     (the parent)
#   ├─ ib_core netns_mode=0 (exclusive), ib_uverbs, cgroup2 with +rdma
#   └─ vrdma_vma.ko, then vrdma.ko, from kmod/ (built for $KVER)
#
# Verdict: the guest writes KTAP and one final line
#   # vrdma-vm-verdict: passed=P failed=F skipped=S tests=T
# to ttyS1, which the kernel console never uses, so console noise cannot
# read as a pass.  The host shows that KTAP, scans the console for kernel
# problems too (klog-patterns) and ends with the plain line
#   P passed, F failed, S skipped
# exiting non-zero on any failure, a timeout, a missing verdict or no test.

set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
VMDIR=$TOP/build/vm
HERE=$TOP/selftests/vm

MODE=suite
TESTS=
SHELL_CMD=
VM_TIMEOUT=${VM_TIMEOUT:-4500}
VM_TEST_TIMEOUT=${VM_TEST_TIMEOUT:-900}
VM_MEM=${VM_MEM:-4G}
VM_PANIC_ON_WARN=${VM_PANIC_ON_WARN:-0}
VM_NO_MODULE=${VM_NO_MODULE:-0}

# Modules the initramfs needs to reach the host root; their dependencies
# (virtio, 9pnet, netfs, and fscache before 6.8) come from modules.dep, and
# a kernel that builds one in (6.12: virtio) needs none of it.
INITRAMFS_MODULES="virtio_pci 9pnet_virtio 9p overlay"

die() {
	echo "vm: $*" >&2
	exit 1
}

usage() {
	sed -n '7,25p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case $1 in
	--tests) [ $# -ge 2 ] || usage; TESTS=$2; shift ;;
	--tests=*) TESTS=${1#--tests=} ;;
	--demo) MODE=demo ;;
	--bench) MODE=bench ;;
	--shell) [ $# -ge 2 ] || usage; MODE=shell; SHELL_CMD=$2; shift ;;
	-h|--help) usage ;;
	*) echo "vm: unknown argument '$1'" >&2; usage ;;
	esac
	shift
done

# lib.sh's wait_for multiplies by it in shell arithmetic, whole numbers only
case ${VM_WAIT_SCALE:-1} in
"" | *[!0-9]* | 0*) die "VM_WAIT_SCALE must be a whole number, 1 or more: '${VM_WAIT_SCALE}'" ;;
esac

# The full benchmark runs for up to ~20 minutes: more than a selftest may.
if [ "$MODE" = bench ] && [ "$VM_TEST_TIMEOUT" = 900 ]; then
	VM_TEST_TIMEOUT=2100
fi

# Same kernel selection as the Makefile (scripts/kernels.sh): KDIR if set,
# else the kernel KERNEL names, else the default.
if [ -z "${KDIR:-}" ]; then
	KDIR=$("$TOP/scripts/kernels.sh" kdir "${KERNEL:-default}") || die "no kernel build tree; run 'make deps'"
fi
if [ -z "$KDIR" ] || [ ! -d "$KDIR" ]; then
	die "no kernel build tree; run 'make deps'"
fi
KVER=$(basename "$(dirname "$KDIR")")
KERNEL=$("$TOP/scripts/kernels.sh" image "$KVER") || die "no kernel image of $KVER; install linux-image-$KVER ('make deps')"
MODDIR=/lib/modules/$KVER
# Two vCPUs, but one for 6.12: its guests died of an int3 Oops three times
# (in sched_clock_cpu(), in __schedule() and at boot in enqueue_timer()),
# each at a static branch just patched with text_poke_bp(), which one
# vCPU executed after the patch had ended.  That reads as multi-threaded
# TCG's cross-modifying code, which one vCPU does not have
# (Documentation/testing.rst, "The guest").
case $KVER in
6.12.*) VM_SMP=${VM_SMP:-1} ;;
*) VM_SMP=${VM_SMP:-2} ;;
esac
[ -f "$MODDIR/modules.dep" ] || die "$MODDIR/modules.dep missing"

for cmd in qemu-system-x86_64 cpio gzip modinfo timeout; do
	command -v "$cmd" >/dev/null || die "$cmd not found; run 'make deps'"
done
BUSYBOX=/bin/busybox
[ -x "$BUSYBOX" ] || die "$BUSYBOX missing; install busybox-static"
if LC_ALL=C readelf -l "$BUSYBOX" 2>/dev/null | grep -q 'program interpreter'; then
	die "$BUSYBOX is dynamically linked; install busybox-static"
fi

if [ "$VM_NO_MODULE" != 1 ]; then
	for KO in "$TOP/kmod/vrdma_vma.ko" "$TOP/kmod/vrdma.ko" \
		  "$TOP/selftests/rdmasim/rdmasim.ko"; do
		# rdmasim.ko is optional: the tests that need it skip without it
		[ -f "$KO" ] || [ "${KO##*/}" = rdmasim.ko ] ||
			die "$KO not built; run 'make modules'"
		[ -f "$KO" ] || continue
		vermagic=$(modinfo -F vermagic "$KO")
		[ "${vermagic%% *}" = "$KVER" ] ||
			die "$KO was built for '${vermagic%% *}', the VM boots $KVER; rebuild"
	done
fi

mkdir -p "$VMDIR"

# --- initramfs, cached by kernel version and content ------------------------

mod_path() {	# module name -> path relative to $MODDIR, from modules.dep
	local alt=${1//_/[-_]}
	# Nothing when it is not a module (6.12 builds virtio in)
	{ grep -E "(^|/)${alt}\.ko(\.xz|\.zst|\.gz)?:" "$MODDIR/modules.dep" || true; } |
		head -n 1 | cut -d: -f1
}

declare -A SEEN=()
ORDER=()
add_module() {	# depth-first: dependencies first
	local path=$1 dep deps
	[ -n "${SEEN[$path]:-}" ] && return 0
	SEEN[$path]=1
	read -ra deps < <(grep -E "^${path//./\\.}:" "$MODDIR/modules.dep" | cut -d: -f2)
	for dep in "${deps[@]}"; do
		add_module "$dep"
	done
	ORDER+=("$path")
}

builtin() {	# module name -> true when built into the kernel
	local alt=${1//_/[-_]}
	grep -qE "(^|/)${alt}\.ko\$" "$MODDIR/modules.builtin" 2>/dev/null
}

# A kernel of its own (make check-debug) may have some of them built in:
# the initramfs then loads only the others.
for m in $INITRAMFS_MODULES; do
	p=$(mod_path "$m")
	if [ -z "$p" ]; then
		builtin "$m" && continue
		die "module $m not found in $MODDIR"
	fi
	add_module "$p"
done

# Keyed on the modules' contents too: a rebuilt kernel of the same release
# (make check-debug's, after a configuration change) has new symbol CRCs.
key=$( { cat "$HERE/initramfs-init"; (cd "$MODDIR" && sha256sum "${ORDER[@]}");
	 sha256sum "$BUSYBOX"; } | sha256sum | cut -c1-16)
INITRD=$VMDIR/initramfs-$KVER-$key.cpio.gz
if [ ! -f "$INITRD" ]; then
	echo "vm: building $INITRD"
	stage=$(mktemp -d "$VMDIR/initramfs.XXXXXX")
	mkdir -p "$stage/bin" "$stage/lib/modules" "$stage/proc" "$stage/sys" "$stage/dev"
	cp "$BUSYBOX" "$stage/bin/busybox"
	install -m 0755 "$HERE/initramfs-init" "$stage/init"
	: > "$stage/modules.order"
	for p in "${ORDER[@]}"; do
		base=$(basename "$p")
		case $base in
		*.ko.xz)  xz -dc "$MODDIR/$p" > "$stage/lib/modules/${base%.xz}" ;;
		*.ko.zst) zstd -qdc "$MODDIR/$p" > "$stage/lib/modules/${base%.zst}" ;;
		*.ko.gz)  gzip -dc "$MODDIR/$p" > "$stage/lib/modules/${base%.gz}" ;;
		*)        cp "$MODDIR/$p" "$stage/lib/modules/$base" ;;
		esac
		echo "${base%.ko*}.ko" >> "$stage/modules.order"
	done
	(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc --quiet | gzip -1) \
		> "$INITRD.tmp"
	mv "$INITRD.tmp" "$INITRD"
	rm -rf "$stage"
	# Keep only this one per kernel version.
	find "$VMDIR" -maxdepth 1 -name "initramfs-$KVER-*.cpio.gz" ! -name "${INITRD##*/}" -delete
fi

# --- one run -----------------------------------------------------------------

# Keep the last few runs for post-mortems.
find "$VMDIR" -maxdepth 1 -name 'run.*' -type d | sort | head -n -4 |
	while read -r old; do rm -rf "$old"; done 2>/dev/null || true

RUN=$(mktemp -d "$VMDIR/run.$(date +%Y%m%d-%H%M%S).XXXX")
mkdir "$RUN/results"
CONSOLE=$RUN/console.log
KTAP=$RUN/ktap.log
: > "$CONSOLE"
: > "$KTAP"
ln -sfn "$(basename "$RUN")" "$VMDIR/last"
ln -sfn "last/console.log" "$VMDIR/console.log"

# wants_test NAME - the run includes selftests/GROUP/NAME.sh, selected as
# guest-run.sh selects scripts: by its whole name or a part of it.
wants_test() {
	local w
	[ "$MODE" = suite ] || return 1
	[ -n "${TESTS// /}" ] || return 0
	for w in $TESTS; do
		w=${w%.sh}
		w=${w##*/}
		[[ $1 != *"$w"* ]] || return 0
	done
	return 1
}

# A 7.x tree builds only in the Debian 13 chroot: its kbuild tools do not
# run here, so the guest does (install.sh) or skips (dkms.sh) that work.
on_host_kdir() {
	case $(readlink -f "$KDIR") in
	"$(readlink -f "${VRDMA_CACHE:-/var/cache/vrdma}")"/*) return 1 ;;
	esac
}

# host_stage VAR TEST SCRIPT DOING WORK - selftests/module/TEST.sh's WORK,
# which the guest would do far more slowly under TCG, is done here by
# selftests/vm/SCRIPT in $RUN/TEST, whose path VAR passes to the guest.  It
# runs only when the run includes TEST and KVER's tree builds on this host;
# when it fails the guest's TEST fails, saying so.
host_stage() {
	local -n dir=$1

	dir=
	wants_test "$2" && on_host_kdir || return 0
	echo "vm: $4 for $KVER on the host (selftests/vm/$3)"
	dir=$RUN/$2
	"$HERE/$3" "$TOP" "$KVER" "$dir" ||
		echo "vm: $5 did not run; module/$2.sh fails"
}

# Under TCG dkms.sh's build took fourteen minutes.
host_stage DKMS_PREBUILT dkms dkms-prebuild.sh "building with dkms" \
	"the dkms build"
host_stage INSTALL_STAGED install install-stage.sh "staging make install" \
	"the staged make install"

# The container image of selftests/runtimes/runtimes.sh and cdi_podman.sh
# is made here too (image-prebuild.sh): under TCG each test took about 50 s to make
# it.  Without it they make it in the guest.
IMAGE_PREBUILT=
if wants_test runtimes || wants_test cdi_podman; then
	echo "vm: making the container image on the host (selftests/vm/image-prebuild.sh)"
	if "$HERE/image-prebuild.sh" "$RUN/image"; then
		IMAGE_PREBUILT=$RUN/image
	else
		echo "vm: the image was not made; the tests make it in the guest"
	fi
fi

{
	printf 'VM_MODE=%q\n' "$MODE"
	printf 'VM_TESTS=%q\n' "$TESTS"
	printf 'VM_SHELL_CMD=%q\n' "$SHELL_CMD"
	printf 'VM_TEST_TIMEOUT=%q\n' "$VM_TEST_TIMEOUT"
	printf 'VM_PANIC_ON_WARN=%q\n' "$VM_PANIC_ON_WARN"
	printf 'VM_NO_MODULE=%q\n' "$VM_NO_MODULE"
	printf 'TOP=%q\n' "$TOP"
	printf 'KVER=%q\n' "$KVER"
	printf 'export VRDMA_DKMS_PREBUILT=%q\n' "$DKMS_PREBUILT"
	printf 'export VRDMA_INSTALL_STAGED=%q\n' "$INSTALL_STAGED"
	printf 'export VRDMA_IMAGE_PREBUILT=%q\n' "$IMAGE_PREBUILT"
	# Bounds of selftests/isolation/fuzz.sh and of the other repeated tests
	# (module.sh, stress.sh, traffic.sh and many_tenants.sh, the containers'
	# pingpongs), and lib.sh's step timer, passed on when set
	for v in NLFUZZ_COUNT VERBS_FUZZ_COUNT VERBS_FUZZ_COMPARE FUZZ_SEED \
		FUZZ_TIME_LIMIT MODULE_CYCLES STRESS_SECS TRAFFIC_ITERS PP_ITERS \
		VM_STEP_TIMES VM_WAIT_SCALE HWCHECK_MLX5_PYVERBS; do
		if [ -n "${!v:-}" ]; then
			printf 'export %s=%q\n' "$v" "${!v}"
		fi
	done
	# Benchmark knobs (selftests/bench/bench.sh) reach the guest as they are.
	for v in ${!BENCH_@}; do
		printf 'export %s=%q\n' "$v" "${!v}"
	done
} > "$RUN/results/config"

# An Oops ends the guest at once (oops=panic, and panic=-1 reboots, which
# -no-reboot turns into an exit): a crashed kernel would otherwise sit out
# the per-test timeout with a hung test process.
CMDLINE="console=ttyS0,115200 oops=panic panic=-1 loglevel=5 printk.time=1 log_buf_len=8M"
# tsc=reliable: under TCG on a busy host the clocksource watchdog finds the
# TSC "unstable" now and then and switches sched_clock off while the guest
# runs; 6.12 once died of that (an int3 Oops in sched_clock_cpu() hit
# while text_poke patched the static key, during the core subset).  Guest
# time stamps need not be exact; the guest must not change its clock
# under the tests.
CMDLINE+=" tsc=reliable"
CMDLINE+=" rdinit=/init vrdma_init=$HERE/guest-init.sh"

QEMU=(qemu-system-x86_64 -accel tcg -cpu max -smp "$VM_SMP" -m "$VM_MEM"
	-nographic -no-reboot -monitor none -vga none -nic none
	-kernel "$KERNEL" -initrd "$INITRD" -append "$CMDLINE"
	-serial "file:$CONSOLE" -serial "file:$KTAP"
	-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap"
	-virtfs "local,path=$RUN/results,mount_tag=results,security_model=none,multidevs=remap")

QPID=
stop_qemu() {
	if [ -n "$QPID" ] && kill -0 "$QPID" 2>/dev/null; then
		kill "$QPID" 2>/dev/null || true
	fi
}
trap stop_qemu EXIT
trap 'stop_qemu; exit 130' INT TERM

case $MODE in
suite) what="the selftests${TESTS:+ ($TESTS)}" ;;
shell) what="'$SHELL_CMD'" ;;
*) what="the $MODE" ;;
esac
echo "vm: booting $KVER under TCG to run $what (log: ${RUN#"$TOP"/})"
start=$EPOCHREALTIME
timeout -k 10 "$VM_TIMEOUT" "${QEMU[@]}" < /dev/null > "$RUN/qemu.log" 2>&1 &
QPID=$!

# Live view of the verdict port; ends when qemu does.
tail -n +1 -f --pid="$QPID" "$KTAP" 2>/dev/null | tr -d '\r' |
	grep --line-buffered -v '^# vrdma-vm-verdict:' || true
rc=0
wait "$QPID" || rc=$?
QPID=
elapsed=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
echo "vm: guest ran for $elapsed s (qemu exit $rc)"

show_console() {
	echo "vm: last lines of the console ($CONSOLE):"
	tail -n "${1:-60}" "$CONSOLE" | tr -d '\r' | sed 's/^/  | /'
}

trouble=
if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
	echo "vm: guest timed out after $VM_TIMEOUT s"
	trouble=timeout
elif [ "$rc" -ne 0 ]; then
	echo "vm: qemu failed (exit $rc):"
	sed 's/^/  | /' "$RUN/qemu.log"
	trouble=qemu
fi

# The verdict is the last line on ttyS1.
verdict=$(tr -d '\r' < "$KTAP" | grep -v '^$' | tail -n 1 || true)
re='^# vrdma-vm-verdict: passed=([0-9]+) failed=([0-9]+) skipped=([0-9]+) tests=([0-9]+)$'
if [[ $verdict =~ $re ]]; then
	passed=${BASH_REMATCH[1]}
	failed=${BASH_REMATCH[2]}
	skipped=${BASH_REMATCH[3]}
	tests=${BASH_REMATCH[4]}
else
	[ -n "$trouble" ] || echo "vm: no verdict from the guest (it crashed or stopped early)"
	trouble=${trouble:-noverdict}
	# Count what did complete, plus one failure for the run itself.
	leaves=$(tr -d '\r' < "$KTAP" | grep -E '^  (ok|not ok) [0-9]+' || true)
	passed=$(grep -Evc '^  not ok|# [Ss][Kk][Ii][Pp]' <<< "$leaves" || true)
	skipped=$(grep -Ec '^  ok .*# [Ss][Kk][Ii][Pp]' <<< "$leaves" || true)
	failed=$(( $(grep -Ec '^  not ok' <<< "$leaves" || true) + 1 ))
	[ -n "$leaves" ] || passed=0
	tests=0
fi

# The console may show what the guest's own dmesg scan could not (a problem
# during power-off, or a guest that died).  Only kernel lines carry a
# printk timestamp; user space output on the console is not scanned.
bad=$(tr -d '\r' < "$CONSOLE" | grep -aE '^\[ *[0-9]+\.[0-9]+\] ' |
	grep -aF -f "$HERE/klog-patterns" |
	grep -avE -f <(sed '/^$/d' "$HERE/klog-allowed") || true)
if [ -n "$bad" ]; then
	echo "# host: the kernel console shows problems:"
	printf '%s\n' "$bad" | sed 's/^/#   /' | head -n 40
	if [ -z "$trouble" ] && grep -q '^ok [0-9]* kernel_log_clean' < <(tr -d '\r' < "$KTAP"); then
		echo "# host: counting kernel_log_clean as failed"
		passed=$((passed - 1))
		failed=$((failed + 1))
	fi
fi

# The benchmark's results leave the run directory for a stable place.
if [ "$MODE" = bench ] && [ -d "$RUN/results/bench" ]; then
	rm -rf "$TOP/build/bench"
	cp -r "$RUN/results/bench" "$TOP/build/bench"
	echo "vm: benchmark results in build/bench/ (results.json, table.txt, bench.svg)"
fi

status=0
if [ -n "$trouble" ]; then
	show_console 80
	status=1
elif [ "$failed" -gt 0 ]; then
	show_console 40
	status=1
elif [ "$MODE" = suite ] && [ "$tests" -eq 0 ]; then
	echo "vm: no test ran"
	status=1
elif [ "$MODE" = suite ] && [ "$passed" -le 1 ]; then
	echo "vm: every test was skipped"
	status=1
fi
echo "$passed passed, $failed failed, $skipped skipped"
exit "$status"
