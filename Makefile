# SPDX-License-Identifier: GPL-2.0
#
# vrdma top-level build.
#
#   make                 module, libvrdma and vrdmactl
#   make check [T=name]  the selftest suite in a qemu guest (installs deps)
#                        on the default kernel, then its core subset on every
#                        other supported kernel (KERNELS=all: the full suite
#                        on each; KERNEL=6.12: the full suite on that one only)
#   make check-debug     the suite on a KASAN/lockdep/kmemleak debug kernel
#                        of 6.1 (KERNEL=7.3: of 7.3, whose rxe carries the
#                        RDMA CM proxy's traffic)
#   make demo            two containers talking RDMA through vdevices
#   make bench           benchmarks, vdevice against the native parent
#   make style           checkpatch.pl --strict over the tree
#   make hwcheck PARENT=DEV  on a real host: the validation kit on a vdevice
#                        of DEV against DEV itself (selftests/hw/hwcheck.sh)
#   make install         modules, library, headers, pkg-config, tool, man pages,
#                        CNI plugin
#   make dkms-install    register the module with DKMS, build and install it
#                        (KVER=RELEASE: for that kernel, not the running one)
#
# KERNEL or KDIR select the kernel; V=1 shows the full commands.

SHELL := /bin/bash
TOP := $(CURDIR)

# KERNEL names the kernel to build for and boot (scripts/kernels.sh: a
# release or its start, "6.12"); without it the default, which is the
# running kernel's tree if installed, else Debian 12's own.  KDIR, if given,
# wins.  The debug kernel of "make check-debug" only when named in full.
#
# Otherwise KDIR is resolved when a recipe first uses it, not when make
# reads this file: "make demo", "make check" and "make bench" install the
# headers (scripts/deps.sh) before they build, in a sub-make, and a KDIR
# resolved before that names no tree, or another kernel's.  A resolved
# KDIR is not exported either, so that no stale one reaches that
# sub-make: it, selftests/vm/run.sh and check.sh resolve it again, by the
# same rule.
KERNEL ?= default
KDIR_GIVEN := $(strip $(KDIR))
ifeq ($(KDIR_GIVEN),)
unexport KDIR
override KDIR = $(eval override KDIR := $(shell ./scripts/kernels.sh kdir $(KERNEL) 2>/dev/null))$(KDIR)
else
export KDIR
endif

# Before anything is built against KDIR: one line saying what to run
define need-kdir
@test -n "$(KDIR)" -a -d "$(KDIR)" || { echo "vrdma: $(if $(KDIR_GIVEN),KDIR=$(KDIR) is not a kernel build tree,no kernel build tree$(if $(filter-out default,$(KERNEL)), for KERNEL=$(KERNEL)); run 'make deps' (as root) first, or set KDIR)" >&2; exit 1; }
endef

# make on the kernel's tree: directly, or inside the Debian 13 chroot a 7.x
# kernel's kbuild needs (scripts/kmake.sh, set up by scripts/deps.sh)
KMAKE = +$(TOP)/scripts/kmake.sh $(KDIR)

VRDMA_VERSION := $(shell ./scripts/version.sh 2>/dev/null || cat VERSION)
export VRDMA_VERSION

PREFIX ?= /usr/local
DESTDIR ?=
export PREFIX DESTDIR
# The CNI plugin (tools/cni, built as tools/cni/vrdma); podman looks in
# PREFIX/lib/cni, set
# CNIDIR=/opt/cni/bin for containerd's default
CNIDIR ?= $(PREFIX)/lib/cni

.PHONY: all modules userlib tools progs clean check demo bench deps style \
	install modules_install dkms-install sparse help check-debug hwcheck \
	rdmasim nri

all: modules userlib tools progs

modules:
	$(need-kdir)
	$(KMAKE) M=$(TOP) VRDMA_VERSION=$(VRDMA_VERSION) modules

sparse:
	$(need-kdir)
	$(KMAKE) M=$(TOP) VRDMA_VERSION=$(VRDMA_VERSION) C=2 W=1 modules
	$(KMAKE) M=$(TOP)/selftests/rdmasim C=2 W=1 modules

userlib:
	$(MAKE) -C userlib

tools: userlib
	$(MAKE) -C tools/vrdmactl
	$(MAKE) -C tools/cni

# The selftests' helper programs and rdmasim.ko, the simulated device some
# of them drive: a test-only module, outside the top-level Kbuild, so that
# modules_install never installs it
progs: rdmasim
	$(MAKE) -C selftests/progs

# The NRI plugin and the selftests' CRI client: Go, built in the Debian 13
# chroot (scripts/gobuild.sh), so as root, as "make check" runs
nri:
	$(MAKE) -C tools/nri
	$(MAKE) -C selftests/cri

# After the modules: both builds write the probed header of the target
# kernel (scripts/compat.mk) when it is missing, and under make -j a second
# writer would leave it newer than the objects the first compiled with it
rdmasim: modules
	$(need-kdir)
	$(KMAKE) M=$(TOP)/selftests/rdmasim modules

clean:
	-$(KMAKE) M=$(TOP) clean
	-$(KMAKE) M=$(TOP)/selftests/rdmasim clean
	$(MAKE) -C userlib clean
	$(MAKE) -C tools/vrdmactl clean
	$(MAKE) -C tools/cni clean
	$(MAKE) -C tools/nri clean
	$(MAKE) -C selftests/cri clean
	$(MAKE) -C selftests/progs clean
	rm -rf build

deps:
	./scripts/deps.sh

# The tests that need no kernel: each directory's "make test"
HOST_TESTS := userlib tools/vrdmactl tools/cni tools/nri
.PHONY: host-tests $(HOST_TESTS:%=host-test-%)
host-tests: $(HOST_TESTS:%=host-test-%)
$(HOST_TESTS:%=host-test-%): host-test-%:
	$(MAKE) -C $* test

# The build and the host's tests come before the first guest boots, on the
# critical path of the whole run: they use every core, each test
# directory's output kept together (-O)
check:
	@./scripts/deps.sh --quiet
	$(MAKE) -j$$(nproc) all nri
	$(MAKE) -j$$(nproc) -O host-tests
	./scripts/check-manifests.sh
	@out=$$(./scripts/tests/kernels.sh) || { echo "$$out"; exit 1; }; \
		echo "$$out" | tail -n 1
	KERNEL=$(KERNEL) KERNELS=$(KERNELS) ./selftests/vm/check.sh $(if $(T),--tests "$(T)")

check-debug:
	@./scripts/deps.sh --quiet
	./scripts/check-debug.sh $(if $(filter-out default,$(KERNEL)),--kernel $(KERNEL)) \
		$(if $(T),--tests "$(T)")

demo:
	@./scripts/deps.sh --quiet
	$(MAKE) all
	./selftests/vm/run.sh --demo

bench:
	@./scripts/deps.sh --quiet
	$(MAKE) all
	./selftests/vm/run.sh --bench

style:
	./scripts/checkpatch.sh

# Needs no VM: it runs on the host it is started on, a real one
hwcheck: all
	@test -n "$(PARENT)" || { echo "usage: make hwcheck PARENT=DEV" >&2; exit 2; }
	./selftests/hw/hwcheck.sh $(HWCHECK_ARGS) $(PARENT)

# Both modules (vrdma_vma.ko, vrdma.ko) go to updates/kmod/; depmod, for
# the release they were built for, records that vrdma uses vrdma_vma, so
# that "modprobe vrdma" loads both.  That release is the vermagic (Debian's
# headers answer "make kernelrelease" with 6.1.N, not the directory name).
# Without the kernel's signing key (distribution headers never have it)
# kbuild's attempt to sign only prints errors: do not try
modules_install: modules
	$(KMAKE) M=$(TOP) INSTALL_MOD_DIR=updates \
		$(if $(DESTDIR),INSTALL_MOD_PATH=$(DESTDIR)) \
		$(if $(wildcard $(KDIR)/certs/signing_key.pem),,CONFIG_MODULE_SIG_ALL=) \
		modules_install
	$(if $(DESTDIR),,depmod -a $$(modinfo -F vermagic kmod/vrdma.ko | cut -d' ' -f1))

# What a user installs; the test programs (progs) are not built for it
install: modules userlib tools modules_install
	$(MAKE) -C userlib install
	$(MAKE) -C tools/vrdmactl install
	install -D -m 0644 scripts/vrdma-modprobe.conf.example \
		$(DESTDIR)$(PREFIX)/share/doc/vrdma/vrdma-modprobe.conf.example
	$(MAKE) -C tools/cni install CNIDIR=$(CNIDIR)

dkms-install:
	./scripts/dkms-install.sh $(if $(KVER),-k $(KVER))

help:
	@sed -n '3,/^# KERNEL or KDIR/p' Makefile | sed 's/^# \{0,1\}//'
