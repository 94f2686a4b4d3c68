/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * simbuf user ABI: a test-only DMA-BUF exporter (selftests/rdmasim/simbuf.c)
 * for kernels without udmabuf.  Shared with selftests/progs/sim_dmabuf.c.
 */
#ifndef SIMBUF_ABI_H
#define SIMBUF_ABI_H

#include <linux/ioctl.h>
#include <linux/types.h>

struct simbuf_create {
	__u64 size;		/* in: bytes, a multiple of the page size */
	__u32 flags;		/* in: 0 */
	__u32 reserved;		/* in: 0 */
};

/* Returns a new DMA-BUF file descriptor (O_CLOEXEC, O_RDWR) */
#define SIMBUF_IOCTL_CREATE	_IOW('S', 0x51, struct simbuf_create)

#endif /* SIMBUF_ABI_H */
