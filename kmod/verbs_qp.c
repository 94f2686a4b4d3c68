// SPDX-License-Identifier: GPL-2.0
/*
 * Queue pairs: RC, UC and UD, forwarded to a shadow QP on the parent.
 * The QP number users see is the shadow's: peers talk to the parent.
 */
#include <linux/slab.h>
#include <rdma/ib_cache.h>

#include "vrdma.h"

static void vrdma_qp_event(struct ib_event *pev, void *ctx)
{
	struct ib_qp *ibqp = ctx;

	vrdma_shadow_event(VRDMA_KIND_QP, pev, ibqp, ibqp->device,
			   ibqp->event_handler, ibqp->qp_context);
}

static struct ib_cq *vrdma_shadow_cq_or_null(struct ib_cq *ibcq)
{
	return ibcq ? vrdma_shadow_cq(ibcq) : NULL;
}

static void *vrdma_qp_make(void *obj, void *init,
			   struct uverbs_attr_bundle *attrs)
{
	struct ib_qp *ibqp = obj;

	/*
	 * The shadow carries the caller's uobject: parents treat a QP
	 * without one as a kernel QP (mlx5 enables the reserved lkey and
	 * cleans its CQs as kernel buffers, hns too).
	 */
	return vrdma_parent_create_qp(to_vdev(ibqp->device)->parent_ibdev,
				      vrdma_shadow_pd(ibqp->pd), init, attrs,
				      ibqp->uobject);
}

/*
 * Creation flags a tenant's QP may carry to the parent.  Not granted:
 * SOURCE_QPN (a UD QP sending as another QP: QP1's MADs on mlx5, forged
 * management traffic), the cross-channel flags (their WQEs name other
 * queues by number, which vrdma does not confine to the tenant's), the
 * raw-packet ones (vrdma has no raw-packet QPs) and the kernel-only ones,
 * which uverbs never passes and vrdma refuses should it start to.
 */
#define VRDMA_QP_CREATE_ALLOWED (IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK | \
				 IB_QP_CREATE_SCATTER_FCS | \
				 IB_QP_CREATE_PCI_WRITE_END_PADDING)

/**
 * vrdma_create_qp() - create a QP and its shadow on the parent
 * @ibqp: the vdevice QP, allocated and partly set up by the core
 * @init: the requested type, CQs, SRQ and capabilities; the capabilities
 *	granted by the parent are written back
 * @udata: the provider's driver data (queue mmap info comes back in it)
 *
 * Return: 0 or a negative errno.
 */
int vrdma_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		    struct ib_udata *udata)
{
	struct vrdma_dev *vdev = to_vdev(ibqp->device);
	struct ib_qp_init_attr pinit = *init;
	struct ib_qp *shadow;
	int ret;

	/* The kernel has only the CM's QP1 (cm_gsi.c) */
	if (!udata)
		return vrdma_gsi_create(ibqp, init);
	to_vqp(ibqp)->gsi = NULL;
	/* XRC and RSS need objects vrdma does not proxy (XRCD, WQ). */
	if (init->qp_type != IB_QPT_RC && init->qp_type != IB_QPT_UC &&
	    init->qp_type != IB_QPT_UD)
		return -EOPNOTSUPP;
	if (init->rwq_ind_tbl || init->xrcd)
		return -EOPNOTSUPP;
	if (init->create_flags & ~VRDMA_QP_CREATE_ALLOWED)
		return -EOPNOTSUPP;
	/*
	 * A UD QP's address vectors reach the parent in user-written WQE
	 * memory (rxe takes one from any WQE, mlx5 and hns only so), past
	 * every check of the ACLs: a vdevice that has one gets no UD QP.
	 */
	if (init->qp_type == IB_QPT_UD && vrdma_acl_restricted(vdev))
		return -EACCES;
	/* and its source GID index must name the parent's same GID */
	if (init->qp_type == IB_QPT_UD) {
		ret = vrdma_gid_ud_get(vdev);
		if (ret)
			return ret;
	}

	pinit.send_cq = vrdma_shadow_cq_or_null(init->send_cq);
	pinit.recv_cq = vrdma_shadow_cq_or_null(init->recv_cq);
	pinit.srq = init->srq ? to_vsrq(init->srq)->shadow : NULL;
	pinit.event_handler = vrdma_qp_event;
	pinit.qp_context = ibqp;

	shadow = vrdma_shadow_make(vdev, VRDMA_KIND_QP, udata, vrdma_qp_make,
				   ibqp, &pinit);
	if (IS_ERR(shadow)) {
		ret = PTR_ERR(shadow);
		goto err_ud_put;
	}
	/* ib_create_qp_user() leaves this to its caller; destroy undoes it. */
	ib_qp_usecnt_inc(shadow);

	init->cap = pinit.cap;
	ibqp->qp_num = shadow->qp_num;
	to_vqp(ibqp)->shadow = shadow;
	return 0;

err_ud_put:
	if (init->qp_type == IB_QPT_UD)
		vrdma_gid_ud_put(vdev);
	return ret;
}

/*
 * The shadow's share of what _ib_modify_qp() keeps per QP: the held source
 * GID entry of its address vector, which destroying the QP puts.  uverbs
 * holds a QP shared for modify_qp, so two calls with an address vector
 * may both get here: the exchange hands each old entry to exactly one of
 * them to put.
 */
static void vrdma_shadow_set_av(struct ib_qp *shadow,
				const struct rdma_ah_attr *ah_attr)
{
	const struct ib_gid_attr *new = NULL, *old;

	if (rdma_ah_get_ah_flags(ah_attr) & IB_AH_GRH) {
		rdma_hold_gid_attr(ah_attr->grh.sgid_attr);
		new = ah_attr->grh.sgid_attr;
	}
	old = xchg(&shadow->av_sgid_attr, new);
	if (old)
		rdma_put_gid_attr(old);
}

/*
 * Before calling us the core has resolved the destination MAC of a RoCE
 * address vector for the vdevice QP, through the parent's netdev (the
 * vdevice's GID entries are the parent's), and chosen the LAG slave: both
 * are in @attr already.  ib_modify_qp_with_udata() on the shadow would
 * resolve again, a round trip through the core's address workqueue that
 * was most of what a vdevice added to connecting a QP ("make bench",
 * BENCH_PROFILE_OPS=qp).  On a RoCE port the shadow is therefore modified
 * through the parent's op, keeping the port and source GID bookkeeping of
 * _ib_modify_qp(); the parent's automatic counter binding is not applied
 * to shadows.  Anything else (IB ports, alternate paths, a QP not yet on a
 * port) takes the core's path.
 */
static int vrdma_modify_shadow_qp(struct ib_qp *shadow,
				  struct ib_qp_attr *attr, int mask,
				  struct ib_udata *udata)
{
	u32 port = mask & IB_QP_PORT ? attr->port_num : shadow->port;
	int ret;

	if (!rdma_is_port_valid(shadow->device, port) ||
	    !rdma_protocol_roce(shadow->device, port) ||
	    (mask & IB_QP_ALT_PATH))
		return ib_modify_qp_with_udata(shadow, attr, mask, udata);

	ret = shadow->device->ops.modify_qp(shadow, attr, mask, udata);
	if (ret)
		return ret;
	if (mask & IB_QP_PORT)
		shadow->port = attr->port_num;
	if (mask & IB_QP_AV)
		vrdma_shadow_set_av(shadow, &attr->ah_attr);
	return 0;
}

/*
 * Source GID indices, as query_qp must report them.  The parent reports
 * its own index; the vdevice's table may hold the same address at another
 * index, and translating through the parent's table fails once the
 * address is removed while the QP still uses it (its entries are held but
 * no longer valid).  So modify_qp keeps the pair of indices it passed, as
 * numbers: the core's av_sgid_attr, which holds the entry, may be replaced
 * and put by a concurrent modify_qp.
 */
static void vrdma_qp_keep_sgid(u64 *slot, const struct rdma_ah_attr *vattr,
			       const struct rdma_ah_attr *pattr)
{
	u64 v = 0;

	if (rdma_ah_get_ah_flags(vattr) & IB_AH_GRH)
		v = VRDMA_QP_SGID_SET | (u64)pattr->grh.sgid_index << 32 |
		    vattr->grh.sgid_index;
	WRITE_ONCE(*slot, v);
}

/*
 * A parent's address vector, in the vdevice's numbering, never the
 * parent's: the index modify_qp passed if the parent reports the one it
 * was given.  Else a concurrent modify_qp set the parent's address vector
 * after the one recorded here: its GID by value, and failing that (its
 * address removed since) the index recorded.  An address vector modify_qp
 * never set names no GID: 0, as a native QP reports it.
 */
static void vrdma_qp_sgid_from_parent(struct vrdma_dev *vdev, u64 *slot,
				      struct rdma_ah_attr *attr)
{
	u64 v = READ_ONCE(*slot);

	if (!(rdma_ah_get_ah_flags(attr) & IB_AH_GRH))
		return;
	if (!(v & VRDMA_QP_SGID_SET)) {
		attr->grh.sgid_index = 0;
		return;
	}
	if (attr->grh.sgid_index == (u32)((v & ~VRDMA_QP_SGID_SET) >> 32)) {
		attr->grh.sgid_index = (u32)v;
		return;
	}
	if (vrdma_ah_attr_from_parent(vdev, attr))
		attr->grh.sgid_index = (u32)v;
}

/* A QP's address vectors: the primary [0] and the alternate [1] */
static const int vrdma_qp_av_mask[2] = { IB_QP_AV, IB_QP_ALT_PATH };

static struct rdma_ah_attr *vrdma_qp_av(struct ib_qp_attr *attr, int i)
{
	return i ? &attr->alt_ah_attr : &attr->ah_attr;
}

/**
 * vrdma_modify_qp() - modify the shadow QP
 * @ibqp: the vdevice QP
 * @attr: the new attributes; address vectors name vdevice GIDs
 * @mask: which attributes
 * @udata: the provider's driver data
 *
 * Return: 0 or a negative errno.
 */
int vrdma_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_udata *udata)
{
	struct vrdma_dev *vdev = to_vdev(ibqp->device);
	struct uverbs_attr_bundle parent_bundle;
	struct ib_qp_attr *pattr;
	int i, n, ret;

	if (to_vqp(ibqp)->gsi)
		return vrdma_gsi_modify(ibqp, attr, mask);
	ret = vrdma_parent_udata(&parent_bundle, udata);
	for (i = 0; !ret && i < ARRAY_SIZE(vrdma_qp_av_mask); i++)
		if (mask & vrdma_qp_av_mask[i])
			ret = vrdma_acl_check_av(vdev, vrdma_qp_av(attr, i));
	if (ret)
		return ret;

	pattr = kmemdup(attr, sizeof(*attr), GFP_KERNEL);
	if (!pattr)
		return -ENOMEM;

	/* The first @n address vectors are translated, their GIDs held */
	for (n = 0; n < ARRAY_SIZE(vrdma_qp_av_mask); n++) {
		if (!(mask & vrdma_qp_av_mask[n]))
			continue;
		ret = vrdma_ah_attr_to_parent(vdev, vrdma_qp_av(pattr, n));
		if (ret)
			goto out_put_avs;
	}

	ret = vrdma_modify_shadow_qp(to_vqp(ibqp)->shadow, pattr, mask,
				     &parent_bundle.driver_udata);
	if (!ret && (mask & (IB_QP_AV | IB_QP_ALT_PATH)))
		vrdma_delay(VRDMA_DELAY_QP_AV);
	for (i = 0; !ret && i < ARRAY_SIZE(vrdma_qp_av_mask); i++)
		if (mask & vrdma_qp_av_mask[i])
			vrdma_qp_keep_sgid(&to_vqp(ibqp)->sgid[i],
					   vrdma_qp_av(attr, i),
					   vrdma_qp_av(pattr, i));

out_put_avs:
	while (n--)
		if (mask & vrdma_qp_av_mask[n])
			vrdma_ah_attr_put(vrdma_qp_av(pattr, n));
	kfree(pattr);
	return ret;
}

/**
 * vrdma_query_qp() - query the shadow QP
 * @ibqp: the vdevice QP
 * @attr: attributes out, with source GID indices in vdevice numbering
 * @mask: which attributes
 * @init: creation attributes out, naming the vdevice's objects
 *
 * Return: 0 or the parent's error.
 */
int vrdma_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_qp_init_attr *init)
{
	struct vrdma_dev *vdev = to_vdev(ibqp->device);
	struct ib_qp *shadow = to_vqp(ibqp)->shadow;
	int ret;

	if (to_vqp(ibqp)->gsi)
		return vrdma_gsi_query(ibqp, attr, init);

	ret = ib_query_qp(shadow, attr, mask, init);
	if (ret)
		return ret;

	vrdma_qp_sgid_from_parent(vdev, &to_vqp(ibqp)->sgid[0],
				  &attr->ah_attr);
	vrdma_qp_sgid_from_parent(vdev, &to_vqp(ibqp)->sgid[1],
				  &attr->alt_ah_attr);
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->srq = ibqp->srq;
	init->qp_context = ibqp->qp_context;
	init->event_handler = ibqp->event_handler;
	return 0;
}

static int vrdma_qp_unmake(void *shadow, struct ib_udata *parent_udata)
{
	return ib_destroy_qp_user(shadow, parent_udata);
}

/**
 * vrdma_destroy_qp() - destroy a QP and its shadow
 * @ibqp: the vdevice QP
 * @udata: the provider's driver data
 *
 * Return: 0 or the parent's error (the vdevice QP then stays intact, but
 * its shadow forwards no more async events).
 */
int vrdma_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct vrdma_dev *vdev = to_vdev(ibqp->device);
	struct ib_qp *shadow = to_vqp(ibqp)->shadow;
	int ret;

	if (to_vqp(ibqp)->gsi) {
		vrdma_gsi_destroy(ibqp);
		return 0;
	}
	/*
	 * The context comes from the QP's PD, not from the bundle around
	 * @udata: when the core unwinds a creation it passes a bare udata
	 * that is in no bundle.  A vdevice PD always has a user object.
	 */
	ret = vrdma_shadow_unmake(vdev, VRDMA_KIND_QP, udata,
				  ibqp->pd->uobject->context, vrdma_qp_unmake,
				  shadow);
	if (ret)
		goto err_detach;
	if (ibqp->qp_type == IB_QPT_UD)
		vrdma_gid_ud_put(vdev);
	return 0;

err_detach:
	/*
	 * Outside a user's DESTROY the core may abandon the vdevice QP
	 * after this (RDMA_REMOVE_DRIVER_FAILURE): its uobject goes, the
	 * vdevice is freed after unregistration, and the parent keeps the
	 * shadow.  Its events must not reach either; parents test the
	 * handler before each call.  A user's QP whose DESTROY the parent
	 * refused loses its async events with it.
	 */
	WRITE_ONCE(shadow->event_handler, NULL);
	return ret;
}

/* UD requests handed to the parent per call, bounded for the stack. */
#define VRDMA_UD_BATCH 16

/*
 * UD requests name vdevice AHs, and the parent needs its shadow AHs.
 * uverbs builds a private copy of the request list for every call, but
 * drops its reference on each request's AH uobject when the call returns,
 * so the vdevice AHs must be back in place by then.  The list is posted
 * in batches whose AHs are swapped, posted and restored; no allocation,
 * no lock, O(n).
 */
static int vrdma_post_send_ud(struct ib_qp *shadow,
			      const struct ib_send_wr *wr,
			      const struct ib_send_wr **bad_wr)
{
	struct ib_ah *vah[VRDMA_UD_BATCH];
	struct ib_send_wr *last, *next;
	const struct ib_send_wr *w;
	int i, n, ret = 0;

	while (wr && !ret) {
		n = 0;
		for (w = wr; w && n < VRDMA_UD_BATCH; w = w->next) {
			struct ib_ud_wr *ud = (struct ib_ud_wr *)ud_wr(w);

			vah[n++] = ud->ah;
			if (ud->ah)
				ud->ah = to_vah(ud->ah)->shadow;
			last = (struct ib_send_wr *)w;
		}
		next = last->next;
		last->next = NULL;
		ret = shadow->device->ops.post_send(shadow, wr, bad_wr);
		last->next = next;
		for (i = 0, w = wr; i < n; i++, w = w->next)
			((struct ib_ud_wr *)ud_wr(w))->ah = vah[i];
		wr = next;
	}
	return ret;
}

/**
 * vrdma_post_send() - forward a send doorbell or work requests
 * @ibqp: the vdevice QP
 * @wr: work requests, or NULL for a doorbell (rxe's zero-length POST_SEND)
 * @bad_wr: the first failed request out
 *
 * O(1) for a doorbell: no allocation, no lock.  On return the requests
 * name the vdevice's AHs again, as the caller expects.
 *
 * Context: process context from uverbs; does not sleep.
 * Return: what the parent returns.
 */
int vrdma_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr)
{
	struct ib_qp *shadow = to_vqp(ibqp)->shadow;

	if (unlikely(to_vqp(ibqp)->gsi))
		return vrdma_gsi_post_send(ibqp, wr, bad_wr);
	if (ibqp->qp_type == IB_QPT_UD && wr)
		return vrdma_post_send_ud(shadow, wr, bad_wr);
	return shadow->device->ops.post_send(shadow, wr, bad_wr);
}

/**
 * vrdma_post_recv() - forward receive work requests
 * @ibqp: the vdevice QP
 * @wr: work requests
 * @bad_wr: the first failed request out
 *
 * Return: what the parent returns.
 */
int vrdma_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr)
{
	struct ib_qp *shadow = to_vqp(ibqp)->shadow;

	if (unlikely(to_vqp(ibqp)->gsi))
		return vrdma_gsi_post_recv(ibqp, wr, bad_wr);
	return shadow->device->ops.post_recv(shadow, wr, bad_wr);
}

/**
 * vrdma_attach_mcast() - attach the shadow QP to a multicast group
 * @ibqp: the vdevice QP
 * @gid: the group
 * @lid: its LID
 *
 * Return: 0 or the parent's error.
 */
int vrdma_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	/* No ACL names groups; a UD QP made before the ACL gets none either */
	if (vrdma_acl_restricted(to_vdev(ibqp->device)))
		return -EACCES;
	return ib_attach_mcast(to_vqp(ibqp)->shadow, gid, lid);
}

/**
 * vrdma_detach_mcast() - detach the shadow QP from a multicast group
 * @ibqp: the vdevice QP
 * @gid: the group
 * @lid: its LID
 *
 * Return: 0 or the parent's error.
 */
int vrdma_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	return ib_detach_mcast(to_vqp(ibqp)->shadow, gid, lid);
}
