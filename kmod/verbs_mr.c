// SPDX-License-Identifier: GPL-2.0
/*
 * Memory regions and windows.  The parent driver pins and maps user memory,
 * or attaches to a DMA-BUF, with its own DMA device; the bytes a region
 * spans are charged to the vdevice quota.
 */
#include <linux/overflow.h>
#include <linux/slab.h>

#include "vrdma.h"

/*
 * A vdevice MR for @pinned bytes from offset @start, its bytes charged to
 * the quota (the MR itself is charged as every shadow is).  Undone by
 * vrdma_mr_free().
 */
static struct vrdma_mr *vrdma_mr_alloc(struct vrdma_dev *vdev, u64 start,
				       u64 length)
{
	struct vrdma_mr *vmr;
	u64 end;
	int ret;

	if (!length || check_add_overflow(start, length, &end) ||
	    end > U64_MAX - PAGE_SIZE)
		return ERR_PTR(-EINVAL);

	vmr = kzalloc(sizeof(*vmr), GFP_KERNEL);
	if (!vmr)
		return ERR_PTR(-ENOMEM);
	vmr->pinned = PAGE_ALIGN(end) - ALIGN_DOWN(start, PAGE_SIZE);

	ret = vrdma_quota_charge(vdev, VRDMA_RES_MR_BYTES, vmr->pinned);
	if (ret) {
		kfree(vmr);
		return ERR_PTR(ret);
	}
	return vmr;
}

static void vrdma_mr_free(struct vrdma_dev *vdev, struct vrdma_mr *vmr)
{
	vrdma_quota_uncharge(vdev, VRDMA_RES_MR_BYTES, vmr->pinned);
	kfree(vmr);
}

/* A registration as the core asked for it */
struct vrdma_reg {
	u64 start;	/* user address, or offset in the DMA-BUF */
	u64 length;
	u64 iova;
	int fd;		/* the DMA-BUF, or -1 */
	int access;
};

/* The parent's registration ops, on the shadow PD with the lent bundle */
static void *vrdma_reg_va(void *parent_pd, void *init,
			  struct uverbs_attr_bundle *attrs)
{
	const struct vrdma_reg *reg = init;

	return vrdma_parent_reg_user_mr(parent_pd, reg->start, reg->length,
					reg->iova, reg->access,
					&attrs->driver_udata);
}

static void *vrdma_reg_dmabuf(void *parent_pd, void *init,
			      struct uverbs_attr_bundle *attrs)
{
	const struct vrdma_reg *reg = init;

	return vrdma_parent_reg_dmabuf_mr(parent_pd, reg->start, reg->length,
					  reg->iova, reg->fd, reg->access,
					  attrs);
}

/*
 * vrdma_reg_mr - the steps both registrations share: charge the quota,
 * call the parent's @fn with the caller's bundle lent, set the shadow up
 * as the core would, take its keys; on failure nothing is left behind.
 */
static struct ib_mr *vrdma_reg_mr(struct ib_pd *ibpd,
				  const struct vrdma_reg *reg,
				  struct ib_udata *udata, vrdma_make_fn fn)
{
	struct vrdma_dev *vdev = to_vdev(ibpd->device);
	struct ib_pd *parent_pd = vrdma_shadow_pd(ibpd);
	struct vrdma_mr *vmr;
	struct ib_mr *shadow;

	vmr = vrdma_mr_alloc(vdev, reg->start, reg->length);
	if (IS_ERR(vmr))
		return ERR_CAST(vmr);

	/* @reg only passes through, to @fn, which reads it only */
	shadow = vrdma_shadow_make(vdev, VRDMA_KIND_MR, udata, fn, parent_pd,
				   (void *)reg);
	if (IS_ERR(shadow)) {
		vrdma_mr_free(vdev, vmr);
		return shadow;
	}
	vrdma_core_mr_init(shadow, parent_pd, reg->iova, reg->length);
	vmr->shadow = shadow;
	vmr->ibmr.lkey = shadow->lkey;
	vmr->ibmr.rkey = shadow->rkey;
	return &vmr->ibmr;
}

/**
 * vrdma_reg_user_mr() - register user memory through a shadow MR
 * @ibpd: the vdevice PD
 * @start: user virtual address
 * @length: length in bytes
 * @iova: the address the region is accessed by
 * @access: IB_ACCESS_* flags, passed to the parent as they are
 * @udata: the provider's driver data
 *
 * Return: the vdevice MR carrying the shadow's keys, or an ERR_PTR.
 */
struct ib_mr *vrdma_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				u64 iova, int access,
				VRDMA_REG_USER_MR_DMAH
				struct ib_udata *udata)
{
	struct vrdma_reg reg = {
		.start = start, .length = length, .iova = iova,
		.fd = -1, .access = access,
	};

	return vrdma_reg_mr(ibpd, &reg, udata, vrdma_reg_va);
}

/**
 * vrdma_reg_user_mr_dmabuf() - register a DMA-BUF through a shadow MR
 * @ibpd: the vdevice PD
 * @offset: where the region starts in the DMA-BUF
 * @length: length in bytes
 * @iova: the address the region is accessed by
 * @fd: the DMA-BUF's file descriptor, in the caller's file table
 * @access: IB_ACCESS_* flags, passed to the parent as they are
 * @arg: the provider's driver data (udata, or from 6.11 the bundle)
 *
 * The parent attaches to the DMA-BUF with its own DMA device and pins it
 * (ib_umem_dmabuf_get_pinned() in every driver that offers the op); the
 * bytes the region spans are charged as a user MR's are, before the
 * parent sees the fd.  Offered only when the parent has the op.
 *
 * Return: the vdevice MR carrying the shadow's keys, or an ERR_PTR.
 */
struct ib_mr *vrdma_reg_user_mr_dmabuf(struct ib_pd *ibpd, u64 offset,
				       u64 length, u64 iova, int fd,
				       int access,
				       VRDMA_REG_DMABUF_MR_DMAH
				       struct vrdma_dmabuf_mr_arg *arg)
{
	struct vrdma_reg reg = {
		.start = offset, .length = length, .iova = iova,
		.fd = fd, .access = access,
	};

	return vrdma_reg_mr(ibpd, &reg, vrdma_reg_dmabuf_mr_udata(arg),
			    vrdma_reg_dmabuf);
}

static int vrdma_mr_unmake(void *shadow, struct ib_udata *parent_udata)
{
	return ib_dereg_mr_user(shadow, parent_udata);
}

/**
 * vrdma_dereg_mr() - deregister a vdevice MR and its shadow
 * @ibmr: the vdevice MR
 * @udata: the provider's driver data
 *
 * Return: 0 or the parent's error (the MR then stays intact).
 */
int vrdma_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct vrdma_dev *vdev = to_vdev(ibmr->device);
	struct vrdma_mr *vmr = to_vmr(ibmr);
	int ret;

	ret = vrdma_shadow_unmake(vdev, VRDMA_KIND_MR, udata,
				  vrdma_udata_vctx(udata), vrdma_mr_unmake,
				  vmr->shadow);
	if (ret)
		return ret;
	vrdma_mr_free(vdev, vmr);
	return 0;
}

/**
 * vrdma_alloc_mw() - allocate a memory window and its shadow
 * @ibmw: the vdevice MW, allocated and set up by the core
 * @udata: the provider's driver data
 *
 * Return: 0 or a negative errno.
 */
int vrdma_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct vrdma_dev *vdev = to_vdev(ibmw->device);
	struct ib_pd *parent_pd = vrdma_shadow_pd(ibmw->pd);
	struct uverbs_attr_bundle parent_bundle;
	struct ib_mw *shadow;
	int ret;

	ret = vrdma_parent_udata(&parent_bundle, udata) ?:
	      vrdma_shadow_charge(vdev, VRDMA_KIND_MW);
	if (ret)
		return ret;

	shadow = vrdma_core_mw_alloc(parent_pd, ibmw->type);
	if (!shadow)
		return vrdma_shadow_done(vdev, VRDMA_KIND_MW, -ENOMEM);
	ret = vrdma_shadow_fault(VRDMA_KIND_MW) ?:
	      parent_pd->device->ops.alloc_mw(shadow,
					      &parent_bundle.driver_udata);
	if (ret)
		goto err_free;
	atomic_inc(&parent_pd->usecnt);

	ibmw->rkey = shadow->rkey;
	to_vmw(ibmw)->shadow = shadow;
	return vrdma_shadow_done(vdev, VRDMA_KIND_MW, 0);

err_free:
	kfree(shadow);
	return vrdma_shadow_done(vdev, VRDMA_KIND_MW, ret);
}

/**
 * vrdma_dealloc_mw() - free a memory window and its shadow
 * @ibmw: the vdevice MW
 *
 * Return: 0 or the parent's error (the MW then stays intact).
 */
int vrdma_dealloc_mw(struct ib_mw *ibmw)
{
	struct ib_mw *shadow = to_vmw(ibmw)->shadow;
	struct ib_pd *parent_pd = shadow->pd;
	int ret;

	ret = shadow->device->ops.dealloc_mw(shadow);
	if (ret)
		return ret;
	atomic_dec(&parent_pd->usecnt);
	kfree(shadow);
	vrdma_shadow_gone(to_vdev(ibmw->device), VRDMA_KIND_MW);
	return 0;
}
