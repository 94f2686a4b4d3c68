# SPDX-License-Identifier: GPL-2.0
#
# What a program linked with libvrdma statically needs from make
# (tools/vrdmactl, tools/cni): the flags of libvrdma and libmnl, the
# warnings every user-space file is built with, the quiet output (V=1
# shows the full commands) and the rule that brings libvrdma.a up to
# date.  Include it after setting TOP; it defines a rule, so the includer
# names its own default goal.

USERLIB := $(TOP)/userlib
LIBVRDMA := $(USERLIB)/libvrdma.a

CC ?= cc
CFLAGS ?= -O2 -g
MNL_CFLAGS := $(shell pkg-config --cflags libmnl 2>/dev/null)
MNL_LIBS := $(shell pkg-config --libs libmnl 2>/dev/null || echo -lmnl)
WARNINGS := -Wall -Wextra -Werror
LIBVRDMA_CFLAGS := -D_GNU_SOURCE -I$(USERLIB) -I$(TOP)/uapi $(MNL_CFLAGS) \
	$(WARNINGS)

ifneq ($(V),1)
Q := @
msg = @printf '  %-7s %s\n' '$(1)' '$(2)'
MAKEFLAGS += --no-print-directory
endif

HAVE_GROFF := $(shell command -v groff >/dev/null 2>&1 && echo y)

.PHONY: FORCE

$(LIBVRDMA): FORCE
	$(Q)$(MAKE) $(if $(Q),-s) -C $(USERLIB) libvrdma.a
