// SPDX-License-Identifier: GPL-2.0
/*
 * The entry points whose ib_device_ops signature differs between kernels
 * (sim-compat.h), around the generic verbs (mr.c), which take the driver data.
 */
#include "sim.h"

#ifdef VRDMA_HAVE_REG_USER_MR_DMAH
struct ib_mr *sim_reg_user_mr(struct ib_pd *pd, u64 start, u64 length,
			      u64 virt, int access, struct ib_dmah *dmah,
			      struct ib_udata *udata)
#else
struct ib_mr *sim_reg_user_mr(struct ib_pd *pd, u64 start, u64 length,
			      u64 virt, int access, struct ib_udata *udata)
#endif
{
	return sim_reg_user_mr_udata(pd, start, length, virt, access, udata);
}

#if defined(VRDMA_HAVE_REG_DMABUF_MR_DMAH) || \
	defined(VRDMA_HAVE_REG_DMABUF_MR_ATTRS)
#define sim_dmabuf_mr_udata(attrs)	sim_bundle_udata(attrs)
#else
#define sim_dmabuf_mr_udata(udata)	(udata)
#endif

#ifdef VRDMA_HAVE_REG_DMABUF_MR_DMAH
struct ib_mr *sim_reg_user_mr_dmabuf(struct ib_pd *pd, u64 offset,
				     u64 length, u64 virt, int fd, int access,
				     struct ib_dmah *dmah,
				     struct sim_dmabuf_mr_arg *arg)
#else
struct ib_mr *sim_reg_user_mr_dmabuf(struct ib_pd *pd, u64 offset,
				     u64 length, u64 virt, int fd, int access,
				     struct sim_dmabuf_mr_arg *arg)
#endif
{
	return sim_reg_user_mr_dmabuf_udata(pd, offset, length, virt, fd,
					    access, sim_dmabuf_mr_udata(arg));
}

/* The MR registrations' part of every personality's ops (link.c) */
const struct ib_device_ops sim_compat_ops = {
	.reg_user_mr = sim_reg_user_mr,
	.reg_user_mr_dmabuf = sim_reg_user_mr_dmabuf,
};
