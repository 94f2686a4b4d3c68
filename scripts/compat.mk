# SPDX-License-Identifier: GPL-2.0
#
# Kbuild fragment shared by kmod/Kbuild and selftests/rdmasim/Kbuild, the
# two module directories whose code follows the kernel's API: it makes the
# probed VRDMA_HAVE_* header of the target kernel (scripts/conftest.sh) and
# keeps objects of one kernel release out of a build for another.
#
# In: VRDMA_TOP (the checkout) and VRDMA_COMPAT_OBJS (the objects, with
# their $(obj)/ prefix).

VRDMA_CFGDIR := $(VRDMA_TOP)/build/compat/$(KERNELRELEASE)
ccflags-y += -I$(VRDMA_CFGDIR)

# kbuild rebuilds an object when its command line or a header it read
# changed; an external module's command line names the kernel's headers by
# relative paths, so building the same tree for another release (make
# check on several kernels) changes neither.  The stamp does: filechk
# rewrites it only when the release differs, and every object depends on it.
$(VRDMA_COMPAT_OBJS): $(VRDMA_CFGDIR)/vrdma_config.h $(obj)/kernelrelease

filechk_vrdma_kernelrelease = echo $(KERNELRELEASE)
$(obj)/kernelrelease: FORCE
	$(call filechk,vrdma_kernelrelease)
clean-files += kernelrelease

# Once per release, before any object; a kernel the probes refuse stops
# the build here, with one line.
$(VRDMA_CFGDIR)/vrdma_config.h: $(VRDMA_TOP)/scripts/conftest.sh $(VRDMA_TOP)/scripts/btf-proto.sh
	$(Q)echo "  PROBE   $(KERNELRELEASE)"
	$(Q)bash $< $(abspath $(objtree)) $(KERNELRELEASE) $(@D)
