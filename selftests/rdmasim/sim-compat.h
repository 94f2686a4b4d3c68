/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rdmasim's one view of how kernels differ, and its only reader of
 * vrdma_config.h (VRDMA_HAVE_*: scripts/conftest.sh's compile probes of
 * the target tree).  The personalities write each verb once, against the
 * driver data (struct ib_udata) and the newest core; what an older
 * kernel's ib_device_ops take instead is adapted here.
 */
#ifndef _SIM_COMPAT_H
#define _SIM_COMPAT_H

#include <linux/device.h>
#include <linux/module.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "vrdma_config.h"

/* The driver data of a verb's attribute bundle: NULL for a kernel caller */
static inline struct ib_udata *
sim_bundle_udata(struct uverbs_attr_bundle *attrs)
{
	return attrs ? &attrs->driver_udata : NULL;
}

/*
 * create_cq's last argument: the driver data up to 6.10, the whole
 * attribute bundle from 6.11 (NULL for a kernel CQ).  sim_cq_udata()
 * gives the driver data either way.
 */
#if defined(VRDMA_HAVE_CREATE_USER_CQ) || defined(VRDMA_HAVE_CREATE_CQ_ATTRS)
#define sim_create_cq_arg uverbs_attr_bundle

static inline struct ib_udata *sim_cq_udata(struct uverbs_attr_bundle *attrs)
{
	return sim_bundle_udata(attrs);
}
#else
#define sim_create_cq_arg ib_udata

static inline struct ib_udata *sim_cq_udata(struct ib_udata *udata)
{
	return udata;
}
#endif

/*
 * From 7.1, as mlx5_ib, user CQs come through create_user_cq (always with
 * a bundle) and create_cq makes kernel CQs only.  SIM_USER_CQ_SPLIT says
 * whether the target splits them.  A create_user_cq function is written
 * on every kernel (__maybe_unused), so that each compiles everywhere, and
 * set in an ib_device_ops by one of:
 *
 * SIM_USER_CQ_OP(user) - @user as create_user_cq where the kernel has it,
 *	beside the ops' own create_cq
 * SIM_CQ_OPS(user, any) - @user as create_user_cq where the kernel has it
 *	(and no create_cq: kernel CQs are another ops' business), else @any
 *	as create_cq for every CQ
 */
#ifdef VRDMA_HAVE_CREATE_USER_CQ
#define SIM_USER_CQ_SPLIT	true
#define SIM_USER_CQ_OP(user)	.create_user_cq = (user),
#define SIM_CQ_OPS(user, any)	.create_user_cq = (user)
#else
#define SIM_USER_CQ_SPLIT	false
#define SIM_USER_CQ_OP(user)
#define SIM_CQ_OPS(user, any)	.create_cq = (any)
#endif

/*
 * The MR registrations' entry points as the target's ib_device_ops take
 * them (compat.c), around the udata-taking verbs of mr.c: from 6.11
 * reg_user_mr_dmabuf takes the whole bundle, and from 6.17 both take a
 * DMA handle (which rdmasim does not use) before the driver data.
 */
#ifdef VRDMA_HAVE_REG_USER_MR_DMAH
struct ib_mr *sim_reg_user_mr(struct ib_pd *pd, u64 start, u64 length,
			      u64 virt, int access, struct ib_dmah *dmah,
			      struct ib_udata *udata);
#else
struct ib_mr *sim_reg_user_mr(struct ib_pd *pd, u64 start, u64 length,
			      u64 virt, int access, struct ib_udata *udata);
#endif

#if defined(VRDMA_HAVE_REG_DMABUF_MR_DMAH) || \
	defined(VRDMA_HAVE_REG_DMABUF_MR_ATTRS)
#define sim_dmabuf_mr_arg uverbs_attr_bundle
#else
#define sim_dmabuf_mr_arg ib_udata
#endif

#ifdef VRDMA_HAVE_REG_DMABUF_MR_DMAH
struct ib_mr *sim_reg_user_mr_dmabuf(struct ib_pd *pd, u64 offset,
				     u64 length, u64 virt, int fd, int access,
				     struct ib_dmah *dmah,
				     struct sim_dmabuf_mr_arg *arg);
#else
struct ib_mr *sim_reg_user_mr_dmabuf(struct ib_pd *pd, u64 offset,
				     u64 length, u64 virt, int fd, int access,
				     struct sim_dmabuf_mr_arg *arg);
#endif

/* ib_umem_get() of every kernel: ib_umem_get_va() from 7.2 */
static inline struct ib_umem *sim_umem_get(struct ib_device *ibdev,
					   unsigned long addr, size_t len,
					   int access)
{
#ifdef VRDMA_HAVE_IB_UMEM_GET_VA
	return ib_umem_get_va(ibdev, addr, len, access);
#else
	return ib_umem_get(ibdev, addr, len, access);
#endif
}

/*
 * From 7.2 a CQ's buffer may come as a UMEM attribute (or the legacy CQ
 * buffer attributes) of the bundle; before, no CQ has one.
 * sim_umem_get_cq_buf() pins it: NULL when there is none.
 */
#ifdef VRDMA_HAVE_UVERBS_BUF_UMEM
#define SIM_CQ_BUF_UMEM	true

static inline struct ib_umem *
sim_umem_get_cq_buf(struct ib_device *ibdev, struct uverbs_attr_bundle *attrs,
		    size_t cqe_size)
{
	return ib_umem_get_cq_buf(ibdev, attrs, cqe_size, 0);
}
#else
#define SIM_CQ_BUF_UMEM	false

static inline struct ib_umem *
sim_umem_get_cq_buf(struct ib_device *ibdev, struct uverbs_attr_bundle *attrs,
		    size_t cqe_size)
{
	return NULL;
}
#endif

/* struct bus_type's uevent takes a const device from 6.3 */
#ifdef VRDMA_HAVE_BUS_UEVENT_CONST
#define sim_uevent_dev const struct device
#else
#define sim_uevent_dev struct device
#endif

/* MODULE_IMPORT_NS() takes a string from 6.13, a bare token before */
#ifdef VRDMA_HAVE_IMPORT_NS_TOKEN
#define SIM_IMPORT_NS_DMA_BUF() MODULE_IMPORT_NS(DMA_BUF)
#else
#define SIM_IMPORT_NS_DMA_BUF() MODULE_IMPORT_NS("DMA_BUF")
#endif

/*
 * The memory type of pages of RAM the double maps write-combining.  x86's
 * PAT keeps one type per page for the kernel's linear map and every user
 * mapping of it: a write-combining user mapping of a write-back page is
 * made write-back, with a warning.  Elsewhere no type is kept.
 */
#ifdef CONFIG_X86
#include <asm/set_memory.h>

static inline int sim_set_pages_wc(void *buf, size_t len)
{
	return set_memory_wc((unsigned long)buf, len >> PAGE_SHIFT);
}

static inline int sim_set_pages_wb(void *buf, size_t len)
{
	return set_memory_wb((unsigned long)buf, len >> PAGE_SHIFT);
}
#else
static inline int sim_set_pages_wc(void *buf, size_t len)
{
	return 0;
}

static inline int sim_set_pages_wb(void *buf, size_t len)
{
	return 0;
}
#endif

#endif /* _SIM_COMPAT_H */
