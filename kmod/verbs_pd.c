// SPDX-License-Identifier: GPL-2.0
/*
 * Protection domains.
 *
 * Shadow PDs and MRs are kept out of the parent's resource tracking: each
 * tracked object costs an insertion into and a removal from a cyclically
 * indexed xarray, which under a create/destroy loop allocates and
 * RCU-frees its nodes every time.  Measured with "make bench"
 * (BENCH_PARTS=profile), that was most of what a vdevice added to a PD
 * allocation or a 4 KiB MR registration.  A shadow MR is marked
 * rdma_restrack_no_track(), as drivers mark objects of their own; a shadow
 * PD has no entry at all.  What the parent's "rdma res" does not list is
 * per vdevice in "vrdmactl dev show" (usage) and in total in debugfs
 * (objects).  Shadow contexts, CQs and QPs stay tracked: the host sees who
 * holds the parent's queues and QP numbers.
 */
#include "vrdma.h"

/**
 * vrdma_alloc_pd() - allocate a PD and its shadow on the parent
 * @ibpd: the vdevice PD, allocated by the core
 * @udata: the provider's driver data
 *
 * Return: 0 or a negative errno.
 */
int vrdma_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct vrdma_dev *vdev = to_vdev(ibpd->device);
	struct ib_pd *shadow = vrdma_shadow_pd(ibpd);
	struct uverbs_attr_bundle parent_bundle;
	int ret;

	if (!udata)
		return vrdma_kpd_alloc(ibpd);
	ret = vrdma_parent_udata(&parent_bundle, udata) ?:
	      vrdma_shadow_charge(vdev, VRDMA_KIND_PD);
	if (ret)
		return ret;
	vrdma_core_pd_init(shadow, vdev->parent_ibdev);
	/*
	 * A user PD's shadow has a uobject of its own, naming the shadow
	 * ucontext: parents reach the ucontext through it (rdmasim checks).
	 */
	shadow->uobject = NULL;
	if (ibpd->uobject) {
		shadow->uobject = vrdma_shadow_uobject_new(ibpd->uobject,
							   shadow);
		if (!shadow->uobject) {
			ret = -ENOMEM;
			goto err_put_task;
		}
	}

	ret = vrdma_shadow_fault(VRDMA_KIND_PD) ?:
	      shadow->device->ops.alloc_pd(shadow, &parent_bundle.driver_udata);
	if (ret)
		goto err_free_uobject;
	return vrdma_shadow_done(vdev, VRDMA_KIND_PD, 0);

err_free_uobject:
	kfree(shadow->uobject);
err_put_task:
	rdma_restrack_del(&shadow->res);
	return vrdma_shadow_done(vdev, VRDMA_KIND_PD, ret);
}

/* ib_dealloc_pd_user() without its kfree(): the core frees the shadow. */
static int vrdma_pd_unmake(void *obj, struct ib_udata *parent_udata)
{
	struct ib_pd *shadow = obj;
	int ret;

	ret = shadow->device->ops.dealloc_pd(shadow, parent_udata);
	if (ret)
		return ret;
	rdma_restrack_del(&shadow->res);
	kfree(shadow->uobject);
	return 0;
}

/**
 * vrdma_dealloc_pd() - free a PD and its shadow
 * @ibpd: the vdevice PD
 * @udata: the provider's driver data
 *
 * Return: 0 or the parent's error.
 */
int vrdma_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	if (rdma_is_kernel_res(&ibpd->res))
		return vrdma_kpd_dealloc(ibpd);
	return vrdma_shadow_unmake(to_vdev(ibpd->device), VRDMA_KIND_PD, udata,
				   vrdma_udata_vctx(udata), vrdma_pd_unmake,
				   vrdma_shadow_pd(ibpd));
}
