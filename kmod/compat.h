/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one place that knows how kernels differ.  vrdma_config.h, generated
 * per kernel release by scripts/conftest.sh (compile probes against the
 * target tree, never version numbers), says which features the target has;
 * the shims below are named after those features.
 *
 * Some RDMA core symbols are exported by ib_core but declared only in its
 * private headers (drivers/infiniband/core/core_priv.h and restrack.h):
 * ib_create_qp_user(), ib_qp_usecnt_inc/dec() and rdma_restrack_new(),
 * _set_name(), _add() and _del().  Their prototypes are written once, in
 * conftest.sh, which declares in vrdma_config.h the one it found in the
 * target's ib_core (VRDMA_PRIVATE_PROTOS asks for them); the build stops
 * before reaching this header when a function has none vrdma knows.
 */
#ifndef _VRDMA_COMPAT_H
#define _VRDMA_COMPAT_H

#include <net/genetlink.h>
#include <rdma/ib_verbs.h>
#include <rdma/restrack.h>
#include <rdma/uverbs_ioctl.h>

struct ib_uqp_object;

#define VRDMA_PRIVATE_PROTOS
#include "vrdma_config.h"

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

/*
 * ib_create_qp_user(): its fourth argument is the driver data up to 7.1,
 * the whole attribute bundle from 7.2 (queue buffers may come as UMEM
 * attributes).  vrdma_parent_create_qp() passes the lent bundle either
 * way; VRDMA_CREATE_QP_USER_ARG is what of the bundle it takes.
 */
#if defined(VRDMA_HAVE_IB_CREATE_QP_USER_BUNDLE)
#define VRDMA_CREATE_QP_USER_ARG(attrs) (attrs)
#elif defined(VRDMA_HAVE_IB_CREATE_QP_USER_UDATA)
#define VRDMA_CREATE_QP_USER_ARG(attrs) (&(attrs)->driver_udata)
#else
#error "ib_create_qp_user() prototype not checked against the target kernel"
#endif

static inline struct ib_qp *
vrdma_parent_create_qp(struct ib_device *parent_ibdev, struct ib_pd *parent_pd,
		       struct ib_qp_init_attr *init,
		       struct uverbs_attr_bundle *attrs,
		       struct ib_uqp_object *uobj)
{
	return ib_create_qp_user(parent_ibdev, parent_pd, init,
				 VRDMA_CREATE_QP_USER_ARG(attrs), uobj, NULL);
}

/*
 * The core's buffer attributes of the creation methods, which parents pin
 * from the bundle (udata.c shows them to the parent): the CQ buffer as a
 * VA or DMA-BUF range, and from 7.2 CQ, QP and SRQ buffers as UMEM
 * attributes.  VRDMA_ATTR_NONE stands for one the kernel does not have.
 */
#define VRDMA_ATTR_NONE	U16_MAX
#ifdef VRDMA_HAVE_CQ_BUFFER_ATTRS
#define VRDMA_ATTR_CQ_BUFFER_VA		UVERBS_ATTR_CREATE_CQ_BUFFER_VA
#define VRDMA_ATTR_CQ_BUFFER_LENGTH	UVERBS_ATTR_CREATE_CQ_BUFFER_LENGTH
#define VRDMA_ATTR_CQ_BUFFER_FD		UVERBS_ATTR_CREATE_CQ_BUFFER_FD
#define VRDMA_ATTR_CQ_BUFFER_OFFSET	UVERBS_ATTR_CREATE_CQ_BUFFER_OFFSET
#else
#define VRDMA_ATTR_CQ_BUFFER_VA		VRDMA_ATTR_NONE
#define VRDMA_ATTR_CQ_BUFFER_LENGTH	VRDMA_ATTR_NONE
#define VRDMA_ATTR_CQ_BUFFER_FD		VRDMA_ATTR_NONE
#define VRDMA_ATTR_CQ_BUFFER_OFFSET	VRDMA_ATTR_NONE
#endif
#ifdef VRDMA_HAVE_UVERBS_BUF_UMEM
#define VRDMA_ATTR_CQ_BUF_UMEM		UVERBS_ATTR_CREATE_CQ_BUF_UMEM
#define VRDMA_ATTR_QP_BUF_UMEM		UVERBS_ATTR_CREATE_QP_BUF_UMEM
#define VRDMA_ATTR_QP_RQ_BUF_UMEM	UVERBS_ATTR_CREATE_QP_RQ_BUF_UMEM
#define VRDMA_ATTR_QP_SQ_BUF_UMEM	UVERBS_ATTR_CREATE_QP_SQ_BUF_UMEM
#define VRDMA_ATTR_SRQ_BUF_UMEM		UVERBS_ATTR_CREATE_SRQ_BUF_UMEM
#else
#define VRDMA_ATTR_CQ_BUF_UMEM		VRDMA_ATTR_NONE
#define VRDMA_ATTR_QP_BUF_UMEM		VRDMA_ATTR_NONE
#define VRDMA_ATTR_QP_RQ_BUF_UMEM	VRDMA_ATTR_NONE
#define VRDMA_ATTR_QP_SQ_BUF_UMEM	VRDMA_ATTR_NONE
#define VRDMA_ATTR_SRQ_BUF_UMEM		VRDMA_ATTR_NONE
#endif

/*
 * mlx5's driver attributes on core methods (fwd_mlx5.c), where the
 * target's uapi headers have them; VRDMA_ATTR_NONE otherwise, which no
 * parent defines, so that their group never matches and is never
 * declared.  VRDMA_ATTR_UMEM() is a UMEM attribute's specification (a
 * buffer descriptor) from 7.2, and one that matches nothing before.
 */
#ifdef VRDMA_HAVE_MLX5_CQ_UAR_INDEX
#define VRDMA_MLX5_ATTR_CQ_UAR_INDEX	MLX5_IB_ATTR_CREATE_CQ_UAR_INDEX
#else
#define VRDMA_MLX5_ATTR_CQ_UAR_INDEX	VRDMA_ATTR_NONE
#endif
#ifdef VRDMA_HAVE_MLX5_DMABUF_MR_FLAGS
#define VRDMA_MLX5_ATTR_DMABUF_MR_FLAGS	MLX5_IB_ATTR_REG_DMABUF_MR_ACCESS_FLAGS
#else
#define VRDMA_MLX5_ATTR_DMABUF_MR_FLAGS	VRDMA_ATTR_NONE
#endif
#ifdef VRDMA_HAVE_MLX5_DBR_BUF_UMEM
#define VRDMA_MLX5_ATTR_CQ_DBR_BUF_UMEM	MLX5_IB_ATTR_CREATE_CQ_DBR_BUF_UMEM
#define VRDMA_MLX5_ATTR_QP_DBR_BUF_UMEM	MLX5_IB_ATTR_CREATE_QP_DBR_BUF_UMEM
#define VRDMA_MLX5_ATTR_SRQ_DBR_BUF_UMEM	MLX5_IB_ATTR_CREATE_SRQ_DBR_BUF_UMEM
#else
#define VRDMA_MLX5_ATTR_CQ_DBR_BUF_UMEM	VRDMA_ATTR_NONE
#define VRDMA_MLX5_ATTR_QP_DBR_BUF_UMEM	VRDMA_ATTR_NONE
#define VRDMA_MLX5_ATTR_SRQ_DBR_BUF_UMEM	VRDMA_ATTR_NONE
#endif
#ifdef VRDMA_HAVE_UVERBS_BUF_UMEM
#define VRDMA_ATTR_UMEM(id, access)	UVERBS_ATTR_UMEM(id, access)
#else
#define VRDMA_ATTR_UMEM(id, access) \
	UVERBS_ATTR_PTR_IN(id, UVERBS_ATTR_TYPE(u64), access)
#endif

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
 * op's third argument; the parent is called with the bundle vrdma_lend()
 * lent it (or, up to 6.10, the udata inside it), which names the shadow
 * ucontext and carries the caller's attributes.
 */
#ifdef VRDMA_HAVE_CREATE_CQ_ATTRS
#define vrdma_cq_create_arg uverbs_attr_bundle

static inline struct ib_udata *
vrdma_create_cq_udata(struct uverbs_attr_bundle *attrs)
{
	return attrs ? &attrs->driver_udata : NULL;
}

static inline int
vrdma_parent_create_cq(struct ib_device *parent_ibdev, struct ib_cq *cq,
		       const struct ib_cq_init_attr *attr,
		       struct uverbs_attr_bundle *parent_bundle)
{
#ifdef VRDMA_HAVE_CREATE_USER_CQ
	/* 7.1: mlx5's create_cq makes kernel CQs only */
	if (parent_ibdev->ops.create_user_cq)
		return parent_ibdev->ops.create_user_cq(cq, attr,
							parent_bundle);
#endif
	return parent_ibdev->ops.create_cq(cq, attr, parent_bundle);
}
#else
#define vrdma_cq_create_arg ib_udata

static inline struct ib_udata *vrdma_create_cq_udata(struct ib_udata *udata)
{
	return udata;
}

static inline int
vrdma_parent_create_cq(struct ib_device *parent_ibdev, struct ib_cq *cq,
		       const struct ib_cq_init_attr *attr,
		       struct uverbs_attr_bundle *parent_bundle)
{
	return parent_ibdev->ops.create_cq(cq, attr,
					   &parent_bundle->driver_udata);
}
#endif

/*
 * reg_user_mr_dmabuf: from 6.11 the core passes the whole attribute bundle
 * (mlx5 reads driver attributes there); the driver data is its
 * driver_udata.  vrdma_dmabuf_mr_arg is the type of the op's last argument.
 * The parent is called with the bundle vrdma_lend() lent it, or up to
 * 6.10 the udata inside it.
 */
#if defined(VRDMA_HAVE_REG_DMABUF_MR_DMAH) || \
	defined(VRDMA_HAVE_REG_DMABUF_MR_ATTRS)
#define vrdma_dmabuf_mr_arg uverbs_attr_bundle

static inline struct ib_udata *
vrdma_reg_dmabuf_mr_udata(struct uverbs_attr_bundle *attrs)
{
	return attrs ? &attrs->driver_udata : NULL;
}

/*
 * 6.17: a DMA handle before the bundle; a vdevice offers no alloc_dmah,
 * so the core never passes one and the parent gets none.
 */
#ifdef VRDMA_HAVE_REG_DMABUF_MR_DMAH
#define VRDMA_REG_DMABUF_MR_DMAH struct ib_dmah *dmah __always_unused,
#define VRDMA_PARENT_DMABUF_DMAH NULL,
#else
#define VRDMA_REG_DMABUF_MR_DMAH
#define VRDMA_PARENT_DMABUF_DMAH
#endif

static inline struct ib_mr *
vrdma_parent_reg_dmabuf_mr(struct ib_pd *parent_pd, u64 offset, u64 length,
			   u64 iova, int fd, int access,
			   struct uverbs_attr_bundle *parent_bundle)
{
	struct ib_device *parent_ibdev = parent_pd->device;

	return parent_ibdev->ops.reg_user_mr_dmabuf(parent_pd, offset, length,
						    iova, fd, access,
						    VRDMA_PARENT_DMABUF_DMAH
						    parent_bundle);
}
#else
#define vrdma_dmabuf_mr_arg ib_udata
#define VRDMA_REG_DMABUF_MR_DMAH

static inline struct ib_udata *vrdma_reg_dmabuf_mr_udata(struct ib_udata *udata)
{
	return udata;
}

static inline struct ib_mr *
vrdma_parent_reg_dmabuf_mr(struct ib_pd *parent_pd, u64 offset, u64 length,
			   u64 iova, int fd, int access,
			   struct uverbs_attr_bundle *parent_bundle)
{
	struct ib_device *parent_ibdev = parent_pd->device;
	struct ib_udata *udata = &parent_bundle->driver_udata;

	return parent_ibdev->ops.reg_user_mr_dmabuf(parent_pd, offset, length,
						    iova, fd, access, udata);
}
#endif

/*
 * 7.1: the core creates user CQs through create_user_cq, where a driver
 * has it, and create_cq only for kernel ones; a vdevice has only user
 * CQs, so it offers both (vrdma_create_cq()), and forwards to the
 * parent's create_user_cq when the parent has one.
 */
#ifdef VRDMA_HAVE_CREATE_USER_CQ
#define VRDMA_CREATE_USER_CQ_OP(fn) .create_user_cq = (fn),
#else
#define VRDMA_CREATE_USER_CQ_OP(fn)
#endif

/*
 * 7.1: resize_cq(cq, int cqe, udata) became resize_user_cq(cq, unsigned
 * int cqe, udata).  VRDMA_OP_RESIZE_CQ names the op in struct
 * ib_device_ops, vrdma_resize_cqe the type of its size.
 */
#ifdef VRDMA_HAVE_RESIZE_USER_CQ
#define VRDMA_OP_RESIZE_CQ resize_user_cq
#define vrdma_resize_cqe unsigned int
#else
#define VRDMA_OP_RESIZE_CQ resize_cq
#define vrdma_resize_cqe int
#endif

static inline int vrdma_parent_resize_cq(struct ib_cq *shadow,
					 vrdma_resize_cqe cqe,
					 struct ib_udata *udata)
{
	return shadow->device->ops.VRDMA_OP_RESIZE_CQ(shadow, cqe, udata);
}

/*
 * 6.17: reg_user_mr gets the DMA handle (struct ib_dmah) the MR is to be
 * registered with.  A vdevice offers no alloc_dmah, so the core never
 * passes one; the parent is called without.  VRDMA_REG_USER_MR_DMAH is
 * the op's extra parameter, declared and unused.
 */
#ifdef VRDMA_HAVE_REG_USER_MR_DMAH
#define VRDMA_REG_USER_MR_DMAH struct ib_dmah *dmah __always_unused,

static inline struct ib_mr *vrdma_parent_reg_user_mr(struct ib_pd *parent_pd,
						     u64 start, u64 length,
						     u64 iova, int access,
						     struct ib_udata *udata)
{
	return parent_pd->device->ops.reg_user_mr(parent_pd, start, length,
						  iova, access, NULL, udata);
}
#else
#define VRDMA_REG_USER_MR_DMAH

static inline struct ib_mr *vrdma_parent_reg_user_mr(struct ib_pd *parent_pd,
						     u64 start, u64 length,
						     u64 iova, int access,
						     struct ib_udata *udata)
{
	return parent_pd->device->ops.reg_user_mr(parent_pd, start, length,
						  iova, access, udata);
}
#endif

#endif /* _VRDMA_COMPAT_H */
