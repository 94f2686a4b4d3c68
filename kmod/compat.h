/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one place that knows how kernels differ.  vrdma_config.h, generated
 * per kernel release by scripts/conftest.sh (compile probes against the
 * target tree, never version numbers), says which features the target has;
 * the shims below are named after those features.
 *
 * Some RDMA core symbols are exported by ib_core but declared only in its
 * private headers (drivers/infiniband/core/core_priv.h and restrack.h).
 * Their prototypes below are declared only when conftest.sh found exactly
 * that prototype in the BTF of the target's ib_core.ko; the build stops
 * before reaching this header otherwise.
 */
#ifndef _VRDMA_COMPAT_H
#define _VRDMA_COMPAT_H

#include <net/genetlink.h>
#include <rdma/ib_verbs.h>
#include <rdma/restrack.h>
#include <rdma/uverbs_ioctl.h>

#include "vrdma_config.h"

#ifndef VRDMA_HAVE_IB_CREATE_QP_USER_UDATA
#error "ib_create_qp_user() prototype not checked against the target kernel"
#endif

/*
 * The two fields of the private struct ib_uverbs_file that
 * ib_uverbs_get_ucontext() reads, at the offsets conftest.sh found in the
 * BTF of the target's ib_uverbs.ko (a stand-in file for forwarded driver
 * methods, fwd.c); VRDMA_UFILE_SPAN covers both.
 */
#if !defined(VRDMA_UFILE_OFF_DEVICE) || !defined(VRDMA_UFILE_OFF_UCONTEXT) || \
	!defined(VRDMA_UFILE_SPAN)
#error "struct ib_uverbs_file layout not checked against the target kernel"
#endif

struct ib_uqp_object;

struct ib_qp *ib_create_qp_user(struct ib_device *dev, struct ib_pd *pd,
				struct ib_qp_init_attr *attr,
				struct ib_udata *udata,
				struct ib_uqp_object *uobj, const char *caller);
void ib_qp_usecnt_inc(struct ib_qp *qp);
void ib_qp_usecnt_dec(struct ib_qp *qp);

void rdma_restrack_new(struct rdma_restrack_entry *res,
		       enum rdma_restrack_type type);
void rdma_restrack_set_name(struct rdma_restrack_entry *res,
			    const char *caller);
void rdma_restrack_add(struct rdma_restrack_entry *res);
void rdma_restrack_del(struct rdma_restrack_entry *res);

/*
 * Generic netlink: from 6.2 pre_doit/post_doit see the split ops of the
 * command; both have the flags vrdma looks at.
 */
#ifdef VRDMA_HAVE_GENL_SPLIT_OPS
#define vrdma_genl_doit_ops genl_split_ops
#else
#define vrdma_genl_doit_ops genl_ops
#endif

/*
 * create_cq: from 6.11 the core passes the whole attribute bundle; the
 * driver data is its driver_udata.  vrdma_cq_create_arg is the type of the
 * op's third argument; the parent is called with the shadow bundle that
 * vrdma_shadow_udata() filled, so that it finds its own ucontext there.
 */
#ifdef VRDMA_HAVE_CREATE_CQ_ATTRS
#define vrdma_cq_create_arg uverbs_attr_bundle

static inline struct ib_udata *
vrdma_create_cq_udata(struct uverbs_attr_bundle *attrs)
{
	return attrs ? &attrs->driver_udata : NULL;
}

static inline int vrdma_parent_create_cq(struct ib_device *pdev,
					 struct ib_cq *cq,
					 const struct ib_cq_init_attr *attr,
					 struct uverbs_attr_bundle *sb)
{
	return pdev->ops.create_cq(cq, attr, sb);
}
#else
#define vrdma_cq_create_arg ib_udata

static inline struct ib_udata *vrdma_create_cq_udata(struct ib_udata *udata)
{
	return udata;
}

static inline int vrdma_parent_create_cq(struct ib_device *pdev,
					 struct ib_cq *cq,
					 const struct ib_cq_init_attr *attr,
					 struct uverbs_attr_bundle *sb)
{
	return pdev->ops.create_cq(cq, attr, &sb->driver_udata);
}
#endif

/*
 * reg_user_mr_dmabuf: from 6.11 the core passes the whole attribute bundle
 * (mlx5 reads driver attributes there); the driver data is its
 * driver_udata.  vrdma_dmabuf_mr_arg is the type of the op's last argument.
 * The parent is called with the shadow bundle, which carries the caller's
 * driver data and the shadow ucontext but none of the method's attributes.
 */
#ifdef VRDMA_HAVE_REG_DMABUF_MR_ATTRS
#define vrdma_dmabuf_mr_arg uverbs_attr_bundle

static inline struct ib_udata *
vrdma_reg_dmabuf_mr_udata(struct uverbs_attr_bundle *attrs)
{
	return attrs ? &attrs->driver_udata : NULL;
}

static inline struct ib_mr *
vrdma_parent_reg_dmabuf_mr(struct ib_pd *spd, u64 offset, u64 length,
			   u64 iova, int fd, int access,
			   struct uverbs_attr_bundle *sb)
{
	return spd->device->ops.reg_user_mr_dmabuf(spd, offset, length, iova,
						   fd, access, sb);
}
#else
#define vrdma_dmabuf_mr_arg ib_udata

static inline struct ib_udata *vrdma_reg_dmabuf_mr_udata(struct ib_udata *udata)
{
	return udata;
}

static inline struct ib_mr *
vrdma_parent_reg_dmabuf_mr(struct ib_pd *spd, u64 offset, u64 length,
			   u64 iova, int fd, int access,
			   struct uverbs_attr_bundle *sb)
{
	return spd->device->ops.reg_user_mr_dmabuf(spd, offset, length, iova,
						   fd, access,
						   &sb->driver_udata);
}
#endif

#endif /* _VRDMA_COMPAT_H */
