#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# PID 1 of the vrdma test VM, exec'd by the initramfs after switch_root into
# the overlay of the host root.  The one place that prepares the guest: the
# suite, the demo, the benchmarks and --shell all run after the same setup:
#
#   mounts     proc, sysfs, devtmpfs, devpts, debugfs, cgroup2 (+rdma),
#              tmpfs on /run, /tmp, /dev/shm
#   network    lo up; veth0 10.99.0.1/24 <-> veth1 10.99.0.2/24 (guest only)
#   RDMA       ib_core netns_mode=0 (exclusive), ib_uverbs, ib_cm (whose
#              symbols vrdma.ko uses, for its CM proxy), rdma_rxe,
#              rxe0 on veth0 with port 1 ACTIVE
#   vrdma      insmod $TOP/kmod/vrdma_vma.ko, then $TOP/kmod/vrdma.ko (which
#              uses the former's symbols: insmod does not resolve that)
#
# Then selftests/vm/guest-run.sh prints KTAP and the verdict; all of it goes
# to ttyS1 (the verdict port) and /results/ktap.txt.  Setup output goes to
# /results/setup.log and, on failure, into the KTAP as diagnostics.  Finally
# the guest powers off; qemu runs with -no-reboot, so it exits.

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb LC_ALL=C.UTF-8 SHELL=/bin/bash

power_off() {
	sync
	echo o > /proc/sysrq-trigger
	# Power-off tears the 9p root down under us, after which no command
	# can be executed; if PID 1 then exited, the kernel would panic
	# ("Attempted to kill init").  Wait with builtins only, on a pipe
	# nobody writes to.
	while :; do
		read -r -t 60 -u "${NEVER_FD:-0}" _
	done
}
# Never let PID 1 exit: that would panic the kernel.
trap power_off EXIT

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mountpoint -q /dev || mount -t devtmpfs devtmpfs /dev
# devtmpfs has no /dev/fd, which bash's <(...) needs.
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
exec {NEVER_FD}<> <(:)
mkdir -p /dev/pts /dev/shm
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts /dev/pts
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
mount -t tmpfs -o mode=0755 tmpfs /run
# shellcheck source=/dev/null
. /results/config
# A tree under /tmp (a CI clone, say) must stay visible under the guest's
# own /tmp: carry it over the tmpfs mount.
if [[ $TOP == /tmp/* ]]; then
	mkdir -p /run/vrdma-top
	mount --bind "$TOP" /run/vrdma-top
fi
mount -t tmpfs -o mode=1777 tmpfs /tmp
if [ -d /run/vrdma-top ]; then
	mkdir -p "$TOP"
	mount --move /run/vrdma-top "$TOP"
fi
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t cgroup2 cgroup2 /sys/fs/cgroup
mkdir -p /run/netns /run/lock /var/tmp

export TOP KVER VM_MODE VM_TESTS VM_SHELL_CMD VM_TEST_TIMEOUT VM_NO_MODULE
export VRDMA_PARENT=rxe0 VRDMA_KO=$TOP/kmod/vrdma.ko
export VRDMA_VMA_KO=$TOP/kmod/vrdma_vma.ko
export VM_RESULTS=/results

# The verdict port: raw, so the host sees exactly what we write.
exec 3> /dev/ttyS1
stty -F /dev/ttyS1 raw -echo 2>/dev/null

setup() {
	PS4='+ ${EPOCHREALTIME} '
	set -x
	hostname vrdma-vm
	ip link set lo up
	# The kernel's default.  Under TCG on a busy host a container
	# runtime's first command takes minutes and has been seen blocked a
	# minute in mkdir; a real deadlock stays blocked and is still
	# reported, as the scripts' timeouts are 900 s and more.
	echo 120 > /proc/sys/kernel/hung_task_timeout_secs
	echo 0 > /proc/sys/kernel/hung_task_panic
	[ "$VM_PANIC_ON_WARN" = 1 ] && echo 1 > /proc/sys/kernel/panic_on_warn
	echo "+rdma" > /sys/fs/cgroup/cgroup.subtree_control || return 1
	grep -qw rdma /sys/fs/cgroup/cgroup.controllers || return 1

	modprobe ib_core netns_mode=0 || return 1
	[ "$(cat /sys/module/ib_core/parameters/netns_mode)" = N ] || return 1
	[ "$(rdma system show netns | awk '{print $2}')" = exclusive ] || return 1
	modprobe ib_uverbs || return 1
	modprobe ib_cm || return 1
	modprobe rdma_rxe || return 1
	modprobe veth || return 1

	ip link add veth0 type veth peer name veth1 || return 1
	ip addr add 10.99.0.1/24 dev veth0 || return 1
	ip addr add 10.99.0.2/24 dev veth1 || return 1
	ip link set veth0 up || return 1
	ip link set veth1 up || return 1
	rdma link add rxe0 type rxe netdev veth0 || return 1
	local _
	for _ in $(seq 100); do
		rdma link show rxe0/1 | grep -q 'state ACTIVE' && break
		sleep 0.1
	done
	rdma link show rxe0/1 | grep -q 'state ACTIVE' || return 1

	if [ "$VM_NO_MODULE" != 1 ]; then
		insmod "$VRDMA_VMA_KO" || return 1
		insmod "$VRDMA_KO" || return 1
	fi
	set +x
	uname -r
	rdma dev
	rdma link
	lsmod | grep -E '^(vrdma|vrdma_vma|rdma_rxe|ib_uverbs|ib_core) '
	return 0
}

t0=$EPOCHREALTIME
setup > /results/setup.log 2>&1
SETUP_RC=$?
SETUP_TIME=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
UPTIME=$(cut -d' ' -f1 /proc/uptime)
export SETUP_RC SETUP_TIME UPTIME
echo "vrdma-vm: setup finished (status $SETUP_RC) in $SETUP_TIME s" > /dev/kmsg

cd "$TOP" || exit
"$TOP/selftests/vm/guest-run.sh" 2> /results/guest-run.stderr |
	tee /results/ktap.txt >&3
exec 3>&-
# EXIT trap powers off.
