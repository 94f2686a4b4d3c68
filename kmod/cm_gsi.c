// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel verbs of a vdevice that carries the RDMA CM (VRDMA_DEV_F_CM):
 * exactly what the core's MAD layer needs to run QP1 on it, so
 * that ib_mad, ib_cm and cma attach to the vdevice like to any device.
 *
 *   PD   a kernel PD has no shadow: nothing of the parent is used
 *   CQ   a software CQ: a ring of work completions in vrdma
 *   QP   only a GSI QP on port 1, one per vdevice, in software: its sends
 *        are copied, completed at once and handed from a work item to
 *        the layer above, through the hooks it installed (vdev->cm.ops:
 *        the CM proxy, cm_proxy.c), which delivers MADs into the posted
 *        receive buffers (vrdma_gsi_deliver())
 *   AH   a kernel AH keeps its destination GID for the proxy
 *   MR   get_dma_mr exists only so that the core counts the vdevice as a
 *        kernel verbs provider; it fails.  With IBK_LOCAL_DMA_LKEY the
 *        core never calls it for a PD.
 *
 * Every other kernel object is refused (RC/UC/UD QPs, a second GSI QP, MRs),
 * so that RDS, SMC, NFS over RDMA and ib_srp, which attach to every kernel
 * verbs provider, fail cleanly on a vdevice.  A kernel object is one the
 * core created without user data; rdma_is_kernel_res() tells them apart on
 * the way out, set by the core before the driver is called.
 *
 * The vdevice registers without a DMA device, so the core's DMA mapping
 * is the identity (ib_uses_virt_dma()): the MAD layer's scatter entries
 * hold kernel virtual addresses, which vrdma copies to and from.
 */
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <rdma/ib_mad.h>

#include "vrdma.h"

/*
 * At most this many kernel PDs, CQs and AHs at once per vdevice: ib_mad's
 * PD and CQ, and an AH per MAD its ib_cm has in flight, one (the REQ, the
 * DREQ, retried until answered) for each connection the proxy may carry,
 * with room for the one-shot ones (REJ, RTU, DREP) between.
 */
#define VRDMA_KOBJ_MAX		(2 * VRDMA_CM_CONN_MAX)
/* Largest kernel CQ and GSI queue, in entries (ib_mad asks for 640, 512) */
#define VRDMA_KCQ_MAX		4096
#define VRDMA_GSI_WR_MAX	1024
/* MADs copied from QP1 and not yet taken by the proxy, per vdevice */
#define VRDMA_GSI_TX_MAX	256

/**
 * struct vrdma_kcq - the software CQ behind a kernel CQ of a vdevice
 * @lock: protects @wc, @head, @count and @armed
 * @size: entries in @wc
 * @head: index of the oldest completion
 * @count: completions queued
 * @armed: the consumer asked for a completion event (req_notify_cq)
 * @wc: the ring
 */
struct vrdma_kcq {
	spinlock_t lock;	/* @wc, @head, @count, @armed */
	unsigned int size;
	unsigned int head;
	unsigned int count;
	bool armed;
	struct ib_wc wc[];
};

/**
 * struct vrdma_gsi_rwr - a posted receive of the software QP1
 * @wr_id: the consumer's identifier
 * @addr: kernel virtual address of the buffer (identity DMA mapping)
 * @length: its length
 */
struct vrdma_gsi_rwr {
	u64 wr_id;
	u64 addr;
	u32 length;
};

/**
 * struct vrdma_gsi - the software GSI QP (QP1) of a vdevice
 * @ibqp: the vdevice QP
 * @vdev: its vdevice
 * @lock: protects @state, @rq, @rq_head, @rq_count, @tx and @tx_count
 * @state: the QP state as modify_qp set it
 * @tx: MADs copied from sends, for the proxy (struct vrdma_gsi_mad)
 * @tx_count: entries on @tx
 * @tx_work: hands @tx to the proxy in process context
 * @rq_size: entries in @rq
 * @rq_head: index of the oldest posted receive
 * @rq_count: receives posted
 * @rq: the receive ring
 */
struct vrdma_gsi {
	struct ib_qp *ibqp;
	struct vrdma_dev *vdev;
	spinlock_t lock;	/* @state, the receive ring, @tx */
	enum ib_qp_state state;
	struct list_head tx;
	unsigned int tx_count;
	struct work_struct tx_work;
	unsigned int rq_size;
	unsigned int rq_head;
	unsigned int rq_count;
	struct vrdma_gsi_rwr rq[];
};

/* Runs vrdma_gsi_tx_work() of every software QP1; may block above */
static struct workqueue_struct *vrdma_gsi_wq;

static bool vrdma_cm_on(struct vrdma_dev *vdev)
{
	return vdev->flags & VRDMA_DEV_F_CM;
}

static int vrdma_kobj_get(struct vrdma_dev *vdev)
{
	if (!vrdma_cm_on(vdev))
		return -EOPNOTSUPP;
	if (atomic_inc_return(&vdev->cm.kobjs) > VRDMA_KOBJ_MAX) {
		atomic_dec(&vdev->cm.kobjs);
		return -ENOMEM;
	}
	vrdma_obj_inc(VRDMA_OBJ_KOBJ);
	return 0;
}

static void vrdma_kobj_put(struct vrdma_dev *vdev)
{
	atomic_dec(&vdev->cm.kobjs);
	vrdma_obj_dec(VRDMA_OBJ_KOBJ);
}

/* --- PD ---------------------------------------------------------------- */

/**
 * vrdma_kpd_alloc() - a kernel PD: no shadow
 * @ibpd: the vdevice PD
 *
 * Return: 0, or -EOPNOTSUPP when the vdevice does not carry the CM.
 */
int vrdma_kpd_alloc(struct ib_pd *ibpd)
{
	return vrdma_kobj_get(to_vdev(ibpd->device));
}

/**
 * vrdma_kpd_dealloc() - free a kernel PD
 * @ibpd: the vdevice PD
 *
 * Return: 0, for dealloc_pd.
 */
int vrdma_kpd_dealloc(struct ib_pd *ibpd)
{
	vrdma_kobj_put(to_vdev(ibpd->device));
	return 0;
}

/* --- CQ ---------------------------------------------------------------- */

/* A kernel CQ's shadow area holds the pointer to its software CQ. */
static struct vrdma_kcq **vrdma_kcq_slot(struct ib_cq *ibcq)
{
	return (struct vrdma_kcq **)vrdma_shadow_cq(ibcq);
}

static struct vrdma_kcq *to_kcq(struct ib_cq *ibcq)
{
	return *vrdma_kcq_slot(ibcq);
}

/**
 * vrdma_kcq_create() - a kernel CQ: a software ring
 * @ibcq: the vdevice CQ
 * @attr: its size; no flags
 *
 * Return: 0 or a negative errno.
 */
int vrdma_kcq_create(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr)
{
	struct vrdma_dev *vdev = to_vdev(ibcq->device);
	struct vrdma_kcq *kcq;
	int ret;

	if (!attr->cqe || attr->cqe > VRDMA_KCQ_MAX || attr->flags)
		return -EINVAL;
	ret = vrdma_kobj_get(vdev);
	if (ret)
		return ret;
	kcq = kvzalloc(struct_size(kcq, wc, attr->cqe), GFP_KERNEL);
	if (!kcq) {
		vrdma_kobj_put(vdev);
		return -ENOMEM;
	}
	spin_lock_init(&kcq->lock);
	kcq->size = attr->cqe;
	*vrdma_kcq_slot(ibcq) = kcq;
	ibcq->cqe = attr->cqe;
	return 0;
}

/**
 * vrdma_kcq_destroy() - free a kernel CQ
 * @ibcq: the vdevice CQ, which no QP uses any more
 *
 * Return: 0, for destroy_cq.
 */
int vrdma_kcq_destroy(struct ib_cq *ibcq)
{
	kvfree(to_kcq(ibcq));
	*vrdma_kcq_slot(ibcq) = NULL;
	vrdma_kobj_put(to_vdev(ibcq->device));
	return 0;
}

/*
 * Queues one completion and, if the consumer armed the CQ, calls its
 * completion handler (outside the lock: it may poll at once).
 */
static int vrdma_kcq_push(struct ib_cq *ibcq, const struct ib_wc *wc)
{
	struct vrdma_kcq *kcq = to_kcq(ibcq);
	bool notify = false;
	unsigned long flags;

	spin_lock_irqsave(&kcq->lock, flags);
	if (kcq->count == kcq->size) {
		spin_unlock_irqrestore(&kcq->lock, flags);
		vrdma_dbg(to_vdev(ibcq->device), "kernel CQ overflow\n");
		return -ENOSPC;
	}
	kcq->wc[(kcq->head + kcq->count) % kcq->size] = *wc;
	kcq->count++;
	if (kcq->armed) {
		kcq->armed = false;
		notify = true;
	}
	spin_unlock_irqrestore(&kcq->lock, flags);
	if (notify && ibcq->comp_handler)
		ibcq->comp_handler(ibcq, ibcq->cq_context);
	return 0;
}

/**
 * vrdma_kcq_poll() - take completions from a kernel CQ
 * @ibcq: the vdevice CQ
 * @num_entries: room in @wc
 * @wc: completions out
 *
 * Context: any; does not sleep.
 * Return: the number of completions.
 */
int vrdma_kcq_poll(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct vrdma_kcq *kcq = to_kcq(ibcq);
	unsigned long flags;
	int n = 0;

	spin_lock_irqsave(&kcq->lock, flags);
	while (n < num_entries && kcq->count) {
		wc[n++] = kcq->wc[kcq->head];
		kcq->head = (kcq->head + 1) % kcq->size;
		kcq->count--;
	}
	spin_unlock_irqrestore(&kcq->lock, flags);
	return n;
}

/**
 * vrdma_kcq_notify() - arm a kernel CQ
 * @ibcq: the vdevice CQ
 * @flags: IB_CQ_SOLICITED or IB_CQ_NEXT_COMP, IB_CQ_REPORT_MISSED_EVENTS
 *
 * Every completion of QP1 counts as solicited.
 *
 * Context: any; does not sleep.
 * Return: 1 if asked to report missed events and some are queued, else 0.
 */
int vrdma_kcq_notify(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct vrdma_kcq *kcq = to_kcq(ibcq);
	unsigned long irqflags;
	int ret = 0;

	spin_lock_irqsave(&kcq->lock, irqflags);
	kcq->armed = true;
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) && kcq->count)
		ret = 1;
	spin_unlock_irqrestore(&kcq->lock, irqflags);
	return ret;
}

/* --- AH ---------------------------------------------------------------- */

/**
 * vrdma_create_ah() - a kernel AH, for the software QP1
 * @ibah: the vdevice AH
 * @init: its address; must carry a GRH (RoCE)
 * @udata: NULL: the core creates user AHs with create_user_ah
 *
 * Context: may be atomic (no RDMA_CREATE_AH_SLEEPABLE); does not sleep.
 * Return: 0 or a negative errno.
 */
int vrdma_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		    struct ib_udata *udata)
{
	struct vrdma_dev *vdev = to_vdev(ibah->device);
	const struct rdma_ah_attr *attr = init->ah_attr;
	struct vrdma_ah *vah = to_vah(ibah);
	const struct ib_global_route *grh;
	int ret;

	if (udata)
		return -EINVAL;
	if (!(rdma_ah_get_ah_flags(attr) & IB_AH_GRH) ||
	    attr->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    !rdma_ah_read_grh(attr)->sgid_attr)
		return -EINVAL;
	ret = vrdma_kobj_get(vdev);
	if (ret)
		return ret;
	grh = rdma_ah_read_grh(attr);
	vah->shadow = NULL;
	vah->kdgid = grh->dgid;
	vah->ksgid = grh->sgid_attr->gid;
	vah->ksgid_index = grh->sgid_attr->index;
	memcpy(vah->kdmac, attr->roce.dmac, ETH_ALEN);
	vah->kflow_label = grh->flow_label;
	vah->khop_limit = grh->hop_limit;
	vah->ktclass = grh->traffic_class;
	return 0;
}

/**
 * vrdma_kah_destroy() - free a kernel AH
 * @ibah: the vdevice AH
 */
void vrdma_kah_destroy(struct ib_ah *ibah)
{
	vrdma_kobj_put(to_vdev(ibah->device));
}

/* --- QP1 --------------------------------------------------------------- */

static struct vrdma_gsi *to_gsi(struct ib_qp *ibqp)
{
	return to_vqp(ibqp)->gsi;
}

static bool vrdma_is_kcq_of(struct ib_cq *ibcq, struct vrdma_dev *vdev)
{
	return ibcq && ibcq->device == &vdev->ibdev &&
	       rdma_is_kernel_res(&ibcq->res);
}

static void vrdma_gsi_tx_work(struct work_struct *work)
{
	struct vrdma_gsi *gsi = container_of(work, struct vrdma_gsi, tx_work);
	struct vrdma_gsi_mad *mad, *next;
	LIST_HEAD(batch);

	spin_lock_irq(&gsi->lock);
	list_splice_init(&gsi->tx, &batch);
	gsi->tx_count = 0;
	spin_unlock_irq(&gsi->lock);

	list_for_each_entry_safe(mad, next, &batch, node) {
		list_del(&mad->node);
		gsi->vdev->cm.ops->send(gsi->vdev, mad);
		kfree(mad);
	}
}

/**
 * vrdma_gsi_create() - the vdevice's software GSI QP
 * @ibqp: the vdevice QP
 * @init: type, port, CQs and capabilities; capabilities granted come back
 *
 * Return: 0 or a negative errno: -EOPNOTSUPP for every kernel QP that is
 * not the one GSI QP of port 1 of a vdevice that carries the CM.
 */
int vrdma_gsi_create(struct ib_qp *ibqp, struct ib_qp_init_attr *init)
{
	struct vrdma_dev *vdev = to_vdev(ibqp->device);
	struct vrdma_gsi *gsi;
	int ret;

	if (!vrdma_cm_on(vdev) || init->qp_type != IB_QPT_GSI ||
	    init->port_num != 1)
		return -EOPNOTSUPP;
	if (init->srq || init->xrcd || init->rwq_ind_tbl || init->create_flags ||
	    !vrdma_is_kcq_of(init->send_cq, vdev) ||
	    !vrdma_is_kcq_of(init->recv_cq, vdev))
		return -EINVAL;
	if (!init->cap.max_recv_wr || init->cap.max_recv_wr > VRDMA_GSI_WR_MAX ||
	    init->cap.max_send_wr > VRDMA_GSI_WR_MAX ||
	    init->cap.max_send_sge > 2 || init->cap.max_recv_sge > 1 ||
	    init->cap.max_inline_data)
		return -EINVAL;

	gsi = kzalloc(struct_size(gsi, rq, init->cap.max_recv_wr), GFP_KERNEL);
	if (!gsi)
		return -ENOMEM;
	gsi->ibqp = ibqp;
	gsi->vdev = vdev;
	spin_lock_init(&gsi->lock);
	gsi->state = IB_QPS_RESET;
	INIT_LIST_HEAD(&gsi->tx);
	INIT_WORK(&gsi->tx_work, vrdma_gsi_tx_work);
	gsi->rq_size = init->cap.max_recv_wr;

	spin_lock_irq(&vdev->cm.lock);
	if (vdev->cm.gsi) {
		ret = -EBUSY;
		goto err_unlock;
	}
	vdev->cm.gsi = gsi;
	spin_unlock_irq(&vdev->cm.lock);

	to_vqp(ibqp)->shadow = NULL;
	to_vqp(ibqp)->gsi = gsi;
	ibqp->qp_num = 1;
	vrdma_obj_inc(VRDMA_OBJ_KOBJ);
	return 0;

err_unlock:
	spin_unlock_irq(&vdev->cm.lock);
	kfree(gsi);
	return ret;
}

/**
 * vrdma_gsi_destroy() - destroy the software QP1
 * @ibqp: the vdevice QP
 *
 * Posted receives are dropped: the MAD layer frees their buffers itself.
 * Context: process context; waits for the proxy's current batch.
 */
void vrdma_gsi_destroy(struct ib_qp *ibqp)
{
	struct vrdma_gsi *gsi = to_gsi(ibqp);
	struct vrdma_dev *vdev = gsi->vdev;
	struct vrdma_gsi_mad *mad, *next;

	spin_lock_irq(&vdev->cm.lock);
	vdev->cm.gsi = NULL;
	spin_unlock_irq(&vdev->cm.lock);
	cancel_work_sync(&gsi->tx_work);
	list_for_each_entry_safe(mad, next, &gsi->tx, node)
		kfree(mad);
	to_vqp(ibqp)->gsi = NULL;
	kfree(gsi);
	vrdma_obj_dec(VRDMA_OBJ_KOBJ);
}

/**
 * vrdma_gsi_modify() - move the software QP1 between states
 * @ibqp: the vdevice QP
 * @attr: the attributes
 * @mask: which; only the state, P_Key index, Q_Key and SQ PSN, which
 *	the MAD layer sets, are accepted
 *
 * Return: 0 or -EINVAL.
 */
int vrdma_gsi_modify(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask)
{
	struct vrdma_gsi *gsi = to_gsi(ibqp);

	if (mask & ~(IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_QKEY |
		     IB_QP_SQ_PSN | IB_QP_PORT))
		return -EINVAL;
	if ((mask & IB_QP_PORT) && attr->port_num != 1)
		return -EINVAL;
	if (mask & IB_QP_STATE) {
		if (attr->qp_state > IB_QPS_ERR)
			return -EINVAL;
		spin_lock_irq(&gsi->lock);
		gsi->state = attr->qp_state;
		if (attr->qp_state == IB_QPS_RESET)
			gsi->rq_count = 0;
		spin_unlock_irq(&gsi->lock);
	}
	return 0;
}

/**
 * vrdma_gsi_query() - what the software QP1 is
 * @ibqp: the vdevice QP
 * @attr: attributes out
 * @init: creation attributes out
 *
 * Return: 0.
 */
int vrdma_gsi_query(struct ib_qp *ibqp, struct ib_qp_attr *attr,
		    struct ib_qp_init_attr *init)
{
	struct vrdma_gsi *gsi = to_gsi(ibqp);

	memset(attr, 0, sizeof(*attr));
	spin_lock_irq(&gsi->lock);
	attr->qp_state = gsi->state;
	spin_unlock_irq(&gsi->lock);
	attr->cur_qp_state = attr->qp_state;
	attr->qkey = IB_QP1_QKEY;
	attr->port_num = 1;
	attr->cap.max_recv_wr = gsi->rq_size;
	memset(init, 0, sizeof(*init));
	init->qp_type = IB_QPT_GSI;
	init->port_num = 1;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->cap = attr->cap;
	return 0;
}

/**
 * vrdma_gsi_post_recv() - post receive buffers on the software QP1
 * @ibqp: the vdevice QP
 * @wr: one scatter entry each, large enough for a GRH and a MAD
 * @bad_wr: the first refused request out
 *
 * Context: any; does not sleep.
 * Return: 0 or a negative errno.
 */
int vrdma_gsi_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr)
{
	struct vrdma_gsi *gsi = to_gsi(ibqp);
	struct vrdma_gsi_rwr *r;
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&gsi->lock, flags);
	for (; wr; wr = wr->next) {
		if (gsi->state == IB_QPS_RESET || gsi->state == IB_QPS_ERR) {
			ret = -EINVAL;
			break;
		}
		if (wr->num_sge != 1 ||
		    wr->sg_list[0].length < sizeof(struct ib_grh) + IB_MGMT_MAD_SIZE) {
			ret = -EINVAL;
			break;
		}
		if (gsi->rq_count == gsi->rq_size) {
			ret = -ENOMEM;
			break;
		}
		r = &gsi->rq[(gsi->rq_head + gsi->rq_count) % gsi->rq_size];
		r->wr_id = wr->wr_id;
		r->addr = wr->sg_list[0].addr;
		r->length = wr->sg_list[0].length;
		gsi->rq_count++;
	}
	spin_unlock_irqrestore(&gsi->lock, flags);
	if (ret)
		*bad_wr = wr;
	return ret;
}

/* Copies one send's MAD, bounded; NULL if it is not one vrdma carries. */
static struct vrdma_gsi_mad *vrdma_gsi_copy(struct vrdma_gsi *gsi,
					    const struct ib_send_wr *wr)
{
	const struct ib_ud_wr *ud = ud_wr(wr);
	const struct vrdma_ah *vah;
	struct vrdma_gsi_mad *mad;
	u32 len = 0;
	int i;

	if (wr->opcode != IB_WR_SEND || !ud->ah ||
	    ud->ah->device != gsi->ibqp->device || to_vah(ud->ah)->shadow ||
	    ud->remote_qpn != 1 || wr->num_sge < 1 || wr->num_sge > 2)
		return NULL;
	for (i = 0; i < wr->num_sge; i++) {
		if (wr->sg_list[i].length > IB_MGMT_MAD_SIZE - len)
			return NULL;
		len += wr->sg_list[i].length;
	}
	mad = kzalloc(sizeof(*mad), GFP_ATOMIC);
	if (!mad)
		return NULL;
	vah = to_vah(ud->ah);
	mad->dgid = vah->kdgid;
	mad->sgid = vah->ksgid;
	mad->sgid_index = vah->ksgid_index;
	memcpy(mad->dmac, vah->kdmac, ETH_ALEN);
	mad->flow_label = vah->kflow_label;
	mad->hop_limit = vah->khop_limit;
	mad->tclass = vah->ktclass;
	mad->len = len;
	for (len = 0, i = 0; i < wr->num_sge; i++) {
		memcpy(mad->data + len,
		       (void *)(uintptr_t)wr->sg_list[i].addr,
		       wr->sg_list[i].length);
		len += wr->sg_list[i].length;
	}
	return mad;
}

/**
 * vrdma_gsi_post_send() - send MADs from the software QP1
 * @ibqp: the vdevice QP
 * @wr: UD sends to QP1 through a kernel AH of this vdevice
 * @bad_wr: the first refused request out
 *
 * Each MAD is copied and its send completes at once: the proxy carries it
 * on the parent later, or drops it (a request the proxy refuses ends like
 * a request lost on the wire, in the sender's retries and timeout).
 *
 * Context: any (the MAD layer posts under a spinlock); does not sleep.
 * Return: 0 or a negative errno.
 */
int vrdma_gsi_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
			const struct ib_send_wr **bad_wr)
{
	struct vrdma_gsi *gsi = to_gsi(ibqp);
	struct vrdma_gsi_mad *mad;
	unsigned long flags;
	struct ib_wc wc;
	bool queue;
	int ret = 0;

	for (; wr; wr = wr->next) {
		if (READ_ONCE(gsi->state) != IB_QPS_RTS) {
			ret = -EINVAL;
			break;
		}
		mad = vrdma_gsi_copy(gsi, wr);
		/* the layer above may keep a MAD from going further */
		if (mad && gsi->vdev->cm.ops->sent(gsi->vdev, mad)) {
			kfree(mad);
			mad = NULL;
		}
		memset(&wc, 0, sizeof(wc));
		wc.wr_id = wr->wr_id;
		wc.opcode = IB_WC_SEND;
		wc.qp = ibqp;
		wc.port_num = 1;
		/*
		 * A MAD that cannot be copied or queued is dropped, as on a
		 * lossy wire, and its send still succeeds: ib_mad answers a
		 * failed send by moving the QP from SQE to RTS, which this QP
		 * does not model, and then never completes that send again.
		 */
		wc.status = IB_WC_SUCCESS;
		queue = false;
		if (mad) {
			spin_lock_irqsave(&gsi->lock, flags);
			if (gsi->tx_count < VRDMA_GSI_TX_MAX) {
				list_add_tail(&mad->node, &gsi->tx);
				gsi->tx_count++;
				queue = true;
			}
			spin_unlock_irqrestore(&gsi->lock, flags);
			if (!queue) {
				kfree(mad);
				vrdma_dbg(gsi->vdev, "QP1 send dropped: queue full\n");
			}
		}
		if (queue)
			queue_work(vrdma_gsi_wq, &gsi->tx_work);
		vrdma_kcq_push(ibqp->send_cq, &wc);
	}
	if (ret)
		*bad_wr = wr;
	return ret;
}

/**
 * vrdma_gsi_deliver() - receive a MAD on a vdevice's QP1
 * @vdev: the vdevice
 * @grh: the GRH (or, for RoCE v2 over IPv4, the IPv4 header in its last
 *	20 bytes) the receive buffer starts with
 * @mad: the MAD, @len bytes, at most IB_MGMT_MAD_SIZE
 * @len: its length
 * @net_type: enum rdma_network_type of @grh
 *
 * Context: any; does not sleep.
 * Return: 0, -ENODEV without a QP1 ready to receive, -ENOBUFS without a
 * posted receive (the MAD is dropped, as on the wire).
 */
int vrdma_gsi_deliver(struct vrdma_dev *vdev, const struct ib_grh *grh,
		      const void *mad, size_t len, u8 net_type)
{
	struct vrdma_gsi_rwr r;
	struct vrdma_gsi *gsi;
	unsigned long flags;
	struct ib_wc wc;
	int ret = 0;

	if (len > IB_MGMT_MAD_SIZE)
		return -EINVAL;
	spin_lock_irqsave(&vdev->cm.lock, flags);
	gsi = vdev->cm.gsi;
	if (!gsi) {
		ret = -ENODEV;
		goto out_unlock;
	}
	spin_lock(&gsi->lock);
	if (gsi->state != IB_QPS_RTR && gsi->state != IB_QPS_RTS)
		ret = -ENODEV;
	else if (!gsi->rq_count)
		ret = -ENOBUFS;
	if (ret) {
		spin_unlock(&gsi->lock);
		goto out_unlock;
	}
	r = gsi->rq[gsi->rq_head];
	gsi->rq_head = (gsi->rq_head + 1) % gsi->rq_size;
	gsi->rq_count--;
	spin_unlock(&gsi->lock);

	memcpy((void *)(uintptr_t)r.addr, grh, sizeof(*grh));
	memcpy((void *)(uintptr_t)r.addr + sizeof(*grh), mad, len);
	memset(&wc, 0, sizeof(wc));
	wc.wr_id = r.wr_id;
	wc.status = IB_WC_SUCCESS;
	wc.opcode = IB_WC_RECV;
	wc.byte_len = sizeof(*grh) + len;
	wc.qp = gsi->ibqp;
	wc.src_qp = 1;
	wc.wc_flags = IB_WC_GRH | IB_WC_WITH_NETWORK_HDR_TYPE;
	wc.network_hdr_type = net_type;
	wc.pkey_index = 0;
	wc.port_num = 1;
	vrdma_kcq_push(gsi->ibqp->recv_cq, &wc);
out_unlock:
	spin_unlock_irqrestore(&vdev->cm.lock, flags);
	return ret;
}

/* --- the device -------------------------------------------------------- */

static struct ib_mr *vrdma_get_dma_mr(struct ib_pd *ibpd, int access)
{
	return ERR_PTR(-EOPNOTSUPP);
}

/**
 * vrdma_cm_init() - allocate the work queue of the software QP1s
 *
 * Return: 0 or -ENOMEM.
 */
int vrdma_cm_init(void)
{
	vrdma_gsi_wq = alloc_workqueue("vrdma_gsi", WQ_UNBOUND, 0);
	return vrdma_gsi_wq ? 0 : -ENOMEM;
}

/**
 * vrdma_cm_exit() - free the work queue; no vdevice is left
 */
void vrdma_cm_exit(void)
{
	destroy_workqueue(vrdma_gsi_wq);
}

/**
 * vrdma_cm_check_parent() - whether a parent can carry a vdevice's CM
 * @parent_ibdev: the parent
 *
 * A vdevice that carries the CM offers post_send, post_recv, poll_cq and
 * req_notify_cq for its software objects, and forwards them for users'
 * objects: the parent must have them.
 *
 * Return: 0 or -EOPNOTSUPP.
 */
int vrdma_cm_check_parent(struct ib_device *parent_ibdev)
{
	if (!parent_ibdev->ops.post_send || !parent_ibdev->ops.post_recv ||
	    !parent_ibdev->ops.poll_cq || !parent_ibdev->ops.req_notify_cq)
		return -EOPNOTSUPP;
	if (rdma_end_port(parent_ibdev) != 1 ||
	    !rdma_protocol_roce(parent_ibdev, 1))
		return -EOPNOTSUPP;
	return 0;
}

/**
 * vrdma_cm_set_ops() - add the kernel verbs of a vdevice that carries the CM
 * @vdev: the vdevice, not yet registered, with VRDMA_DEV_F_CM
 *
 * The core decides at registration whether a device provides kernel verbs
 * (ib_device_check_mandatory()): the flag cannot change later.
 */
void vrdma_cm_set_ops(struct vrdma_dev *vdev)
{
	struct ib_device *ibdev = &vdev->ibdev;

	spin_lock_init(&vdev->cm.lock);
	atomic_set(&vdev->cm.kobjs, 0);
	if (!vrdma_cm_on(vdev))
		return;
	ibdev->ops.get_dma_mr = vrdma_get_dma_mr;
	ibdev->ops.create_ah = vrdma_create_ah;
	ibdev->ops.post_send = vrdma_post_send;
	ibdev->ops.post_recv = vrdma_post_recv;
	ibdev->ops.poll_cq = vrdma_poll_cq;
	ibdev->ops.req_notify_cq = vrdma_req_notify_cq;
}
