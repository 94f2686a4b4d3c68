// SPDX-License-Identifier: GPL-2.0
/* Shared receive queues, including the SRQ limit event. */
#include "vrdma.h"

static void vrdma_srq_event(struct ib_event *pev, void *ctx)
{
	struct ib_srq *ibsrq = ctx;

	vrdma_shadow_event(VRDMA_KIND_SRQ, pev, ibsrq, ibsrq->device,
			   ibsrq->event_handler, ibsrq->srq_context);
}

static void *vrdma_srq_make(void *obj, void *init,
			    struct uverbs_attr_bundle *attrs)
{
	struct ib_srq *ibsrq = obj;

	return ib_create_srq_user(vrdma_shadow_pd(ibsrq->pd), init,
				  ibsrq->uobject, &attrs->driver_udata);
}

/**
 * vrdma_create_srq() - create an SRQ and its shadow on the parent
 * @ibsrq: the vdevice SRQ, allocated by the core
 * @init: type and sizes; the sizes granted by the parent are written back
 * @udata: the provider's driver data (queue mmap info comes back in it)
 *
 * Return: 0 or a negative errno.
 */
int vrdma_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		     struct ib_udata *udata)
{
	struct ib_srq_init_attr pinit = *init;
	struct ib_srq *shadow;

	/* XRC and tag-matching SRQs need objects vrdma does not proxy. */
	if (init->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;

	pinit.event_handler = vrdma_srq_event;
	pinit.srq_context = ibsrq;

	shadow = vrdma_shadow_make(to_vdev(ibsrq->device), VRDMA_KIND_SRQ,
				   udata, vrdma_srq_make, ibsrq, &pinit);
	if (IS_ERR(shadow))
		return PTR_ERR(shadow);
	init->attr = pinit.attr;
	to_vsrq(ibsrq)->shadow = shadow;
	return 0;
}

/**
 * vrdma_modify_srq() - resize or arm the shadow SRQ
 * @ibsrq: the vdevice SRQ
 * @attr: the new attributes
 * @mask: which attributes
 * @udata: the provider's driver data (a resize returns mmap info in it)
 *
 * Return: 0 or the parent's error.
 */
int vrdma_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct ib_srq *shadow = to_vsrq(ibsrq)->shadow;
	struct uverbs_attr_bundle parent_bundle;

	return vrdma_parent_udata(&parent_bundle, udata) ?:
	       shadow->device->ops.modify_srq(shadow, attr, mask,
					      &parent_bundle.driver_udata);
}

/**
 * vrdma_query_srq() - query the shadow SRQ
 * @ibsrq: the vdevice SRQ
 * @attr: attributes out
 *
 * Return: 0 or the parent's error.
 */
int vrdma_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	return ib_query_srq(to_vsrq(ibsrq)->shadow, attr);
}

static int vrdma_srq_unmake(void *shadow, struct ib_udata *parent_udata)
{
	return ib_destroy_srq_user(shadow, parent_udata);
}

/**
 * vrdma_destroy_srq() - destroy an SRQ and its shadow
 * @ibsrq: the vdevice SRQ
 * @udata: the provider's driver data
 *
 * Return: 0 or the parent's error; the shadow then forwards no more
 * async events.
 */
int vrdma_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct ib_srq *shadow = to_vsrq(ibsrq)->shadow;
	int ret;

	ret = vrdma_shadow_unmake(to_vdev(ibsrq->device), VRDMA_KIND_SRQ,
				  udata, vrdma_udata_vctx(udata),
				  vrdma_srq_unmake, shadow);
	/* The core may abandon the vdevice SRQ now: see vrdma_destroy_qp() */
	if (ret)
		WRITE_ONCE(shadow->event_handler, NULL);
	return ret;
}

/**
 * vrdma_post_srq_recv() - forward receive work requests to the shadow SRQ
 * @ibsrq: the vdevice SRQ
 * @wr: work requests
 * @bad_wr: the first failed request out
 *
 * Return: what the parent returns.
 */
int vrdma_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr)
{
	struct ib_srq *shadow = to_vsrq(ibsrq)->shadow;

	return shadow->device->ops.post_srq_recv(shadow, wr, bad_wr);
}
