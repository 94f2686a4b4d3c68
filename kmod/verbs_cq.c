// SPDX-License-Identifier: GPL-2.0
/*
 * Completion queues.  The shadow CQ's handlers forward completion and
 * async events to the vdevice CQ, whose handlers belong to uverbs and
 * dereference the vdevice object.  rxe calls the completion handler from a
 * tasklet, so the forwarders never sleep.  A shadow whose destruction
 * failed forwards nothing (vrdma_cq_detach()).
 */
#include <linux/module.h>

#include "vrdma.h"

static void vrdma_cq_comp(struct ib_cq *shadow, void *ctx)
{
	struct ib_cq *ibcq = ctx;

	/* Detached: the vdevice CQ may be abandoned by the core */
	if (!ibcq)
		return;
	if (ibcq->comp_handler)
		ibcq->comp_handler(ibcq, ibcq->cq_context);
}

static void vrdma_cq_event(struct ib_event *pev, void *ctx)
{
	struct ib_cq *ibcq = ctx;

	/* Detached, as above */
	if (ibcq)
		vrdma_shadow_event(VRDMA_KIND_CQ, pev, ibcq, ibcq->device,
				   ibcq->event_handler, ibcq->cq_context);
}

static void *vrdma_cq_make(void *obj, void *init,
			   struct uverbs_attr_bundle *attrs)
{
	struct ib_cq *shadow = vrdma_shadow_cq(obj);
	int ret;

	ret = vrdma_parent_create_cq(shadow->device, shadow, init, attrs);
	return ret ? ERR_PTR(ret) : shadow;
}

/**
 * vrdma_create_cq() - create a CQ and its shadow on the parent
 * @ibcq: the vdevice CQ, allocated by the core
 * @attr: size, completion vector and flags
 * @arg: the provider's driver data (queue mmap info comes back in it), or
 *	 from 6.11 the attribute bundle around it (compat.h)
 *
 * Return: 0 or a negative errno.
 */
int vrdma_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    struct vrdma_cq_create_arg *arg)
{
	struct ib_udata *udata = vrdma_create_cq_udata(arg);
	struct vrdma_dev *vdev = to_vdev(ibcq->device);
	struct ib_cq *shadow = vrdma_shadow_cq(ibcq);
	int ret;

	if (!udata)
		return vrdma_kcq_create(ibcq, attr);
	vrdma_core_cq_init(shadow, vdev->parent_ibdev, ibcq->uobject);
	shadow->comp_handler = vrdma_cq_comp;
	shadow->event_handler = vrdma_cq_event;
	shadow->cq_context = ibcq;
	/* @attr only passes through, to a parent op that takes it const */
	ret = PTR_ERR_OR_ZERO(vrdma_shadow_make(vdev, VRDMA_KIND_CQ, udata,
						vrdma_cq_make, ibcq,
						(void *)attr));
	if (ret)
		goto err_restrack;
	rdma_restrack_add(&shadow->res);
	ibcq->cqe = shadow->cqe;
	return 0;

err_restrack:
	rdma_restrack_put(&shadow->res);
	return ret;
}

/*
 * Called when the shadow outlives a failed destroy.  Outside a user's
 * DESTROY the core retries while others make progress and then abandons
 * the vdevice CQ without telling the driver (__uverbs_cleanup_ufile() with
 * RDMA_REMOVE_DRIVER_FAILURE): its uobject and completion channel go, the
 * vdevice is freed after unregistration, and the parent still holds the
 * shadow.  From now on its handlers forward nothing; the completion
 * handler stays vrdma_cq_comp(), which takes a module reference for as
 * long as the shadow may call it (given back if a retry destroys it).
 * A user's CQ whose DESTROY the parent refused loses its completion and
 * async events with it.
 */
static void vrdma_cq_detach(struct ib_cq *shadow)
{
	if (!shadow->cq_context)
		return;
	__module_get(THIS_MODULE);
	WRITE_ONCE(shadow->event_handler, NULL);
	WRITE_ONCE(shadow->cq_context, NULL);
}

static int vrdma_cq_unmake(void *obj, struct ib_udata *parent_udata)
{
	struct ib_cq *shadow = obj;
	int ret;

	/* Shadow QPs hold it; the core checked the vdevice CQ already. */
	if (atomic_read(&shadow->usecnt))
		return -EBUSY;

	/*
	 * ib_destroy_cq_user() without its kfree(): the core frees the
	 * shadow with the vdevice CQ.  The entry leaves the parent's
	 * restrack before the parent's object goes, so that nldev never
	 * dumps a CQ being destroyed.  It does not come back if the parent
	 * refuses: nldev reads a user CQ's context through its uobject,
	 * which uverbs frees even when the CQ itself is leaked (a driver
	 * failure at cleanup), so the parent's dump no longer lists a CQ
	 * whose destruction failed.  A retry finds the entry already gone.
	 */
	rdma_restrack_del(&shadow->res);
	ret = shadow->device->ops.destroy_cq(shadow, parent_udata);
	if (ret)
		return ret;
	/* Destroyed after all: it calls vrdma_cq_comp() no more */
	if (!shadow->cq_context)
		module_put(THIS_MODULE);
	return 0;
}

/**
 * vrdma_destroy_cq() - destroy a CQ and its shadow
 * @ibcq: the vdevice CQ
 * @udata: the provider's driver data
 *
 * Return: 0 or the parent's error; the shadow then forwards no more
 * events (vrdma_cq_detach()).
 */
int vrdma_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct ib_cq *shadow = vrdma_shadow_cq(ibcq);
	int ret;

	if (rdma_is_kernel_res(&ibcq->res))
		return vrdma_kcq_destroy(ibcq);
	ret = vrdma_shadow_unmake(to_vdev(ibcq->device), VRDMA_KIND_CQ, udata,
				  vrdma_udata_vctx(udata), vrdma_cq_unmake,
				  shadow);
	if (ret)
		vrdma_cq_detach(shadow);
	return ret;
}

/**
 * vrdma_resize_cq() - resize the shadow CQ
 * @ibcq: the vdevice CQ
 * @cqe: the requested number of entries
 * @udata: the provider's driver data
 *
 * Return: 0 or the parent's error.
 */
int vrdma_resize_cq(struct ib_cq *ibcq, vrdma_resize_cqe cqe,
		    struct ib_udata *udata)
{
	struct ib_cq *shadow = vrdma_shadow_cq(ibcq);
	struct uverbs_attr_bundle parent_bundle;
	int ret;

	if (rdma_is_kernel_res(&ibcq->res))
		return -EOPNOTSUPP;
	ret = vrdma_parent_udata(&parent_bundle, udata) ?:
	      vrdma_parent_resize_cq(shadow, cqe, &parent_bundle.driver_udata);
	if (!ret)
		ibcq->cqe = shadow->cqe;
	return ret;
}

/**
 * vrdma_poll_cq() - poll the shadow CQ
 * @ibcq: the vdevice CQ
 * @num_entries: room in @wc
 * @wc: completions out
 *
 * Context: any; does not sleep.
 * Return: the number of completions or the parent's error.
 */
int vrdma_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct ib_cq *shadow = vrdma_shadow_cq(ibcq);
	int i, n;

	if (unlikely(rdma_is_kernel_res(&ibcq->res)))
		return vrdma_kcq_poll(ibcq, num_entries, wc);
	n = shadow->device->ops.poll_cq(shadow, num_entries, wc);
	/* Completions name the shadow QP; users must see the vdevice's. */
	for (i = 0; i < n; i++)
		if (wc[i].qp)
			wc[i].qp = wc[i].qp->qp_context;
	return n;
}

/**
 * vrdma_req_notify_cq() - arm the shadow CQ
 * @ibcq: the vdevice CQ
 * @flags: solicited or next completion, report missed events
 *
 * Context: any; does not sleep.
 * Return: what the parent returns.
 */
int vrdma_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct ib_cq *shadow = vrdma_shadow_cq(ibcq);

	if (unlikely(rdma_is_kernel_res(&ibcq->res)))
		return vrdma_kcq_notify(ibcq, flags);
	return shadow->device->ops.req_notify_cq(shadow, flags);
}
