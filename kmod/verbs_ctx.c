// SPDX-License-Identifier: GPL-2.0
/*
 * User contexts and their mappings: each vdevice ucontext owns a shadow
 * ucontext on the parent, kept by a refcounted holder in vrdma_vma.ko so
 * that parent mappings may outlive the vdevice context and this module
 * (see vma.c).
 */
#include <linux/slab.h>

#include "vrdma.h"

/**
 * vrdma_alloc_ucontext() - open a vdevice context and its parent shadow
 * @ibuc: the vdevice ucontext, allocated by the core
 * @udata: the provider's request and response, passed to the parent
 *
 * Return: 0 or a negative errno (EDQUOT past the context limit, ENODEV on
 * a vdevice the RDMA core moved or renamed, the parent driver's refusal of
 * a request for what vrdma does not forward, vrdma_fwd_check_uctx_req()).
 */
int vrdma_alloc_ucontext(struct ib_ucontext *ibuc, struct ib_udata *udata)
{
	struct vrdma_dev *vdev = to_vdev(ibuc->device);
	struct ib_device *parent_ibdev = vdev->parent_ibdev;
	struct vrdma_uctx_holder *holder;
	struct uverbs_attr_bundle parent_bundle;
	struct ib_ucontext *shadow;
	int ret;

	/*
	 * Moved by the core: no context in the new namespace until the
	 * undo, nor ever if the core's re-enable stopped before vrdma's
	 * client heard of the move (enable_device_and_get() failing).
	 */
	if (vrdma_dev_check_home(ibuc->device)) {
		vrdma_dbg(vdev, "moved or renamed by the RDMA core; no new context\n");
		return -ENODEV;
	}
	/* Nothing charged yet: a refused request leaves nothing behind */
	ret = vrdma_fwd_check_uctx_req(vdev, udata);
	if (ret)
		return ret;

	ret = vrdma_shadow_charge(vdev, VRDMA_KIND_UCTX);
	if (ret)
		return ret;

	holder = vrdma_uctx_holder_create(parent_ibdev);
	if (!holder) {
		ret = -ENOMEM;
		goto err_uncharge;
	}
	shadow = vrdma_core_uctx_alloc(parent_ibdev, ibuc->ufile);
	if (!shadow) {
		ret = -ENOMEM;
		goto err_put_holder;
	}
	/* The holder frees the shadow's memory with its last reference. */
	holder->shadow = shadow;
	to_vuctx(ibuc)->holder = holder;

	memset(&parent_bundle, 0, sizeof(parent_bundle));
	parent_bundle.driver_udata = *udata;
	parent_bundle.ufile = ibuc->ufile;
	parent_bundle.context = shadow;
	ret = vrdma_shadow_fault(VRDMA_KIND_UCTX) ?:
	      parent_ibdev->ops.alloc_ucontext(shadow,
					       &parent_bundle.driver_udata);
	if (ret)
		goto err_put_restrack;
	rdma_restrack_add(&shadow->res);
	vrdma_fwd_ufile_init(ibuc);
	return vrdma_shadow_done(vdev, VRDMA_KIND_UCTX, 0);

err_put_restrack:
	rdma_restrack_put(&shadow->res);
	to_vuctx(ibuc)->holder = NULL;
err_put_holder:
	vrdma_uctx_holder_put(holder);
err_uncharge:
	return vrdma_shadow_done(vdev, VRDMA_KIND_UCTX, ret);
}

/**
 * vrdma_dealloc_ucontext() - close a vdevice context
 * @ibuc: the vdevice ucontext
 *
 * The shadow is released by the parent driver now; its memory stays until
 * the last parent mapping that may refer to it is gone.
 */
void vrdma_dealloc_ucontext(struct ib_ucontext *ibuc)
{
	struct vrdma_uctx_holder *holder = to_vuctx(ibuc)->holder;
	struct vrdma_dev *vdev = to_vdev(ibuc->device);
	struct ib_ucontext *shadow = holder->shadow;

	rdma_restrack_del(&shadow->res);
	vdev->parent_ibdev->ops.dealloc_ucontext(shadow);
	vrdma_uctx_holder_put(holder);
	vrdma_shadow_gone(vdev, VRDMA_KIND_UCTX);
}

/**
 * vrdma_query_ucontext() - the parent's part of QUERY_CONTEXT
 * @ibuc: the vdevice ucontext
 * @attrs: the core's bundle; the core has written its own attributes
 *
 * Offered only when the parent has the op (device.c).  The parent answers
 * for the shadow ucontext in its driver attributes (mlx5's RESP_UCTX: what
 * its alloc_ucontext answered, which the vdevice passed on then), which
 * reach it in the lent bundle when vrdma declared them for this parent
 * (fwd.c); libibverbs' ibv_import_device() and libmlx5's import read them.
 *
 * Return: the parent's answer.
 */
int vrdma_query_ucontext(struct ib_ucontext *ibuc,
			 struct uverbs_attr_bundle *attrs)
{
	struct ib_device *parent_ibdev = to_vdev(ibuc->device)->parent_ibdev;
	struct vrdma_lent_bundle lent;
	int ret;

	vrdma_lend_bundle(&lent, attrs, ibuc, VRDMA_BUNDLE_QUERY_CONTEXT);
	ret = parent_ibdev->ops.query_ucontext(vrdma_shadow_uctx(ibuc), attrs);
	vrdma_lend_end(&lent);
	return ret;
}

/**
 * vrdma_disassociate_ucontext() - the vdevice is going away under a context
 * @ibuc: the vdevice ucontext
 *
 * Mappings made through the core's rdma_umap_ops were zapped by the core
 * already.  Mappings with the parent's own vm_ops (rxe) keep pointing at
 * memory the parent driver frees only when they are closed; the holder
 * keeps everything they need alive, so there is nothing to do here.  The
 * op must exist: without it the core would wait for every user to close
 * its file before a vdevice could go away.
 */
void vrdma_disassociate_ucontext(struct ib_ucontext *ibuc)
{
}

/**
 * vrdma_mmap() - map a parent queue or doorbell page through the vdevice
 * @ibuc: the vdevice ucontext
 * @vma: the new mapping; vm_ops is the core's rdma_umap_ops on entry
 *
 * The parent's mmap op maps it with the shadow ucontext; vrdma_vma.ko
 * wraps the mapping when the parent installs vm_ops of its own.
 *
 * Return: 0 or the parent's error.
 */
int vrdma_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma)
{
	return vrdma_vma_mmap(to_vuctx(ibuc)->holder, vma);
}
