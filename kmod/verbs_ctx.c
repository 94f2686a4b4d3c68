// SPDX-License-Identifier: GPL-2.0
/*
 * User contexts: each vdevice ucontext owns a shadow ucontext on the
 * parent, held by a refcounted holder so that parent mappings may outlive
 * the vdevice context (see mmap.c).
 */
#include <linux/slab.h>

#include "vrdma.h"

static void vrdma_uctx_holder_release(struct kref *ref)
{
	struct vrdma_uctx_holder *holder =
		container_of(ref, struct vrdma_uctx_holder, ref);
	struct ib_device *pdev = holder->pdev;

	kfree(holder->shadow);
	kfree(holder);
	module_put(pdev->ops.owner);
	put_device(&pdev->dev);
}

/**
 * vrdma_uctx_holder_put() - drop a reference on a shadow ucontext holder
 * @holder: the holder
 *
 * The last reference frees the shadow ucontext memory and unpins the
 * parent device and its driver module.
 */
void vrdma_uctx_holder_put(struct vrdma_uctx_holder *holder)
{
	kref_put(&holder->ref, vrdma_uctx_holder_release);
}

/**
 * vrdma_shadow_uctx() - the parent-side ucontext of a vdevice ucontext
 * @ibuc: the vdevice ucontext
 *
 * Return: the shadow ucontext.
 */
struct ib_ucontext *vrdma_shadow_uctx(struct ib_ucontext *ibuc)
{
	return to_vuctx(ibuc)->holder->shadow;
}

/**
 * vrdma_alloc_ucontext() - open a vdevice context and its parent shadow
 * @ibuc: the vdevice ucontext, allocated by the core
 * @udata: the provider's request and response, passed to the parent
 *
 * Return: 0 or a negative errno (EDQUOT past the context limit).
 */
int vrdma_alloc_ucontext(struct ib_ucontext *ibuc, struct ib_udata *udata)
{
	struct vrdma_dev *vdev = to_vdev(ibuc->device);
	struct ib_device *pdev = vdev->pdev;
	struct vrdma_uctx_holder *holder;
	struct uverbs_attr_bundle sb;
	struct ib_ucontext *shadow;
	int ret;

	ret = vrdma_quota_charge(vdev, VRDMA_RES_CTX, 1);
	if (ret)
		return ret;

	holder = kzalloc(sizeof(*holder), GFP_KERNEL);
	if (!holder) {
		ret = -ENOMEM;
		goto err_uncharge;
	}
	shadow = rdma_zalloc_drv_obj(pdev, ib_ucontext);
	if (!shadow) {
		ret = -ENOMEM;
		goto err_free_holder;
	}
	/* What ib_alloc_ucontext() sets up, on the parent's side. */
	shadow->device = pdev;
	shadow->ufile = ibuc->ufile;
	xa_init_flags(&shadow->mmap_xa, XA_FLAGS_ALLOC);
	rdma_restrack_new(&shadow->res, RDMA_RESTRACK_CTX);
	rdma_restrack_set_name(&shadow->res, NULL);

	kref_init(&holder->ref);
	holder->shadow = shadow;
	holder->pdev = pdev;
	to_vuctx(ibuc)->holder = holder;

	memset(&sb, 0, sizeof(sb));
	sb.driver_udata = *udata;
	sb.ufile = ibuc->ufile;
	sb.context = shadow;
	ret = vrdma_fault(VRDMA_FAULT_UCTX) ?:
	      pdev->ops.alloc_ucontext(shadow, &sb.driver_udata);
	if (ret)
		goto err_free_shadow;
	rdma_restrack_add(&shadow->res);

	/* Pins for the holder, dropped by its last reference. */
	get_device(&pdev->dev);
	__module_get(pdev->ops.owner);
	vrdma_obj_inc(VRDMA_OBJ_UCTX);
	return 0;

err_free_shadow:
	rdma_restrack_put(&shadow->res);
	kfree(shadow);
err_free_holder:
	kfree(holder);
	to_vuctx(ibuc)->holder = NULL;
err_uncharge:
	vrdma_quota_uncharge(vdev, VRDMA_RES_CTX, 1);
	return ret;
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
	vdev->pdev->ops.dealloc_ucontext(shadow);
	vrdma_uctx_holder_put(holder);
	vrdma_quota_uncharge(vdev, VRDMA_RES_CTX, 1);
	vrdma_obj_dec(VRDMA_OBJ_UCTX);
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
