// SPDX-License-Identifier: GPL-2.0
/*
 * The mlx5 personality's QP verbs: create_qp with mlx5's driver data
 * (struct mlx5_ib_create_qp) for RC, UC and UD, with or without an SRQ
 * (then it has no receive queue, as mlx5_ib), modify_qp, query_qp and
 * destroy_qp, as mlx5_ib (6.1) answers them for a context with dynamic
 * UARs (mlx5.c); the hardware that runs the queues is mlx5_wqe.c.
 *
 * The QP buffer is the caller's memory, receive queue first
 * (rq_wqe_count WQEs of 1 << rq_wqe_shift bytes), then the send queue
 * (sq_wqe_count 64-byte basic blocks); both are pinned for write, and the
 * page of the doorbell record read-only, as mlx5_ib pins them.  The
 * doorbell (UAR) page is named by its page id, which must be one of the
 * context's.  With CQE version 1 the user index is mandatory.  Kernel QPs
 * (the MAD layer's) are rdmasim's own.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/mlx5-abi.h>

#include "sim.h"
#include "sim-mlx5.h"

/* mlx5_ib's resp.bfreg_index for a QP on a dynamic UAR (MLX5_IB_INVALID_BFREG) */
#define SIM_MLX5_INVALID_BFREG	BIT(31)
/* The user index that means "none" (MLX5_IB_DEFAULT_UIDX) */
#define SIM_MLX5_DEFAULT_UIDX	0xffffff
/* Receive WQEs: 16 bytes (one data segment) to SIM_MLX5_MAX_DESC_SZ */
#define SIM_MLX5_MIN_RQ_SHIFT	4
#define SIM_MLX5_MAX_RQ_SHIFT	9

/* What mlx5_ib checks of the request, in its order */
static int sim_mlx5_qp_ucmd(struct sim_ucontext *uctx,
			    struct ib_qp_init_attr *init,
			    struct ib_udata *udata,
			    struct mlx5_ib_create_qp *ucmd)
{
	size_t min_inlen = offsetof(struct mlx5_ib_create_qp, ece_options);

	if (udata->inlen < min_inlen)
		return -EINVAL;
	if (udata->inlen > sizeof(*ucmd) &&
	    !ib_is_udata_cleared(udata, sizeof(*ucmd),
				 udata->inlen - sizeof(*ucmd)))
		return -EINVAL;
	if (ib_copy_from_udata(ucmd, udata, min(udata->inlen, sizeof(*ucmd))))
		return -EFAULT;
	/* Scatter-to-CQE is dropped without the capability, as mlx5_ib does */
	if (ucmd->flags & ~(MLX5_QP_FLAG_SCATTER_CQE |
			    MLX5_QP_FLAG_UAR_PAGE_INDEX))
		return -EINVAL;
	/* A dynamic-UAR context names the doorbell page */
	if (!(ucmd->flags & MLX5_QP_FLAG_UAR_PAGE_INDEX))
		return -EINVAL;
	if (uctx->cqe_version && ucmd->uidx >= SIM_MLX5_DEFAULT_UIDX)
		return -EINVAL;
	if (ucmd->sq_wqe_count > SIM_MAX_ENTRIES ||
	    ucmd->rq_wqe_count > SIM_MAX_ENTRIES ||
	    (ucmd->sq_wqe_count && !is_power_of_2(ucmd->sq_wqe_count)) ||
	    (ucmd->rq_wqe_count && !is_power_of_2(ucmd->rq_wqe_count)))
		return -EINVAL;
	if (ucmd->rq_wqe_count &&
	    (ucmd->rq_wqe_shift < SIM_MLX5_MIN_RQ_SHIFT ||
	     ucmd->rq_wqe_shift > SIM_MLX5_MAX_RQ_SHIFT))
		return -EINVAL;
	if (init->cap.max_send_sge > SIM_MLX5_MAX_DESC_SZ / 16 ||
	    init->cap.max_inline_data > SIM_MLX5_MAX_DESC_SZ)
		return -EINVAL;
	return 0;
}

static void sim_mlx5_qp_release(struct sim_qp *qp)
{
	kfree(qp->mlx5_hw);
	qp->mlx5_hw = NULL;
	sim_mlx5_queue_put(&qp->mlx5_q);
}

/* Pin and map the buffer and doorbell record, describe them to the hardware */
static int sim_mlx5_qp_hw(struct sim_qp *qp, struct sim_ucontext *uctx,
			  const struct mlx5_ib_create_qp *ucmd)
{
	struct ib_qp *ibqp = &qp->ibqp;
	/* With an SRQ, no receive queue: the buffer is the send queue */
	u32 rq_cnt = ibqp->srq ? 0 : ucmd->rq_wqe_count;
	size_t rq_len = (size_t)rq_cnt << ucmd->rq_wqe_shift;
	size_t len = rq_len + (size_t)ucmd->sq_wqe_count * SIM_MLX5_SEND_WQE_BB;
	struct sim_mlx5_hqp *hw;
	int ret;

	if (!len)
		return -EINVAL;
	ret = sim_mlx5_queue_get(&qp->mlx5_q, ibqp->device, ucmd->buf_addr,
				 len, IB_ACCESS_LOCAL_WRITE, ucmd->db_addr, 0);
	if (ret)
		return ret;
	hw = kzalloc(sizeof(*hw), GFP_KERNEL);
	if (!hw)
		return -ENOMEM;
	qp->mlx5_hw = hw;
	hw->rq = qp->mlx5_q.buf;
	hw->sq = qp->mlx5_q.buf + rq_len;
	hw->db = qp->mlx5_q.db;
	hw->sdev = to_sdev(ibqp->device);
	hw->pd = ibqp->pd;
	hw->type = ibqp->qp_type;
	hw->qpn = ibqp->qp_num;
	hw->uidx = uctx->cqe_version ? ucmd->uidx : SIM_MLX5_DEFAULT_UIDX;
	hw->rq_cnt = rq_cnt;
	hw->srq = ibqp->srq ? to_ssrq(ibqp->srq)->mlx5_hw : NULL;
	hw->rq_shift = ucmd->rq_wqe_shift;
	hw->sq_cnt = ucmd->sq_wqe_count;
	hw->scq = to_scq(ibqp->send_cq)->mlx5_hw;
	hw->rcq = to_scq(ibqp->recv_cq)->mlx5_hw;
	if (!hw->scq || !hw->rcq)
		return -EINVAL;
	return 0;
}

static bool sim_mlx5_qp_same_dev(struct ib_qp *ibqp,
				 struct ib_qp_init_attr *init)
{
	struct ib_device *ibdev = ibqp->device;

	if (ibqp->pd->device == ibdev && init->send_cq->device == ibdev &&
	    init->recv_cq->device == ibdev)
		return true;
	sim_strict("create_qp: a PD or CQ of another device");
	return false;
}

/**
 * sim_mlx5_create_qp() - create_qp with mlx5's driver data
 * @ibqp: the QP the core allocated
 * @init: its attributes; the capabilities stay as libmlx5 computed them
 * @udata: mlx5's driver data, NULL for a kernel QP (rdmasim's own)
 *
 * Return: 0 or a negative errno.
 */
int sim_mlx5_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		       struct ib_udata *udata)
{
	struct sim_dev *sdev = to_sdev(ibqp->device);
	struct sim_qp *qp = container_of(ibqp, struct sim_qp, ibqp);
	struct mlx5_ib_create_qp_resp resp = {};
	struct mlx5_ib_create_qp ucmd = {};
	struct sim_ucontext *uctx;
	int ret;

	if (!udata)
		return sim_create_qp(ibqp, init, NULL);
	switch (init->qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_UD:
		break;
	case IB_QPT_GSI:
	case IB_QPT_SMI:
		return -EINVAL;
	default:
		return -EOPNOTSUPP;
	}
	/*
	 * Blocking multicast loopback, as mlx5_ib on a ConnectX (block_lb_mc),
	 * which pyverbs asks for at random on a UD QP of Mellanox's ids; the
	 * double delivers no multicast, so there is nothing to block.  No
	 * other creation flag: capabilities it does not have.
	 */
	if (init->create_flags & ~IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK)
		return -EOPNOTSUPP;
	if (init->srq && init->srq->device != ibqp->device) {
		sim_strict("create_qp: an SRQ of another device");
		return -EINVAL;
	}
	if (!sim_mlx5_qp_same_dev(ibqp, init))
		return -EINVAL;
	sim_check_user("create_qp", ibqp->uobject, &ibqp->res);
	/* ib_uqp_object is the core's own: compare with the PD's ucontext */
	uctx = sim_pd_udata_uctx(sdev, udata, ibqp->pd, "create_qp");
	if (IS_ERR(uctx))
		return PTR_ERR(uctx);
	ret = sim_mlx5_qp_ucmd(uctx, init, udata, &ucmd);
	if (ret)
		return ret;

	qp->created_user = true;
	qp->state = IB_QPS_RESET;
	qp->kbuf = sim_kbuf_alloc(true);
	if (!qp->kbuf)
		return -ENOMEM;
	ret = ida_alloc_range(&sdev->qpn_ida, 2, 0xffffff, GFP_KERNEL);
	if (ret < 0)
		goto err_free_kbuf;
	ibqp->qp_num = ret;
	/* The firmware refuses a UAR that is not the context's */
	qp->uar = sim_uar_get(uctx, ucmd.bfreg_index);
	if (!qp->uar) {
		ret = -EINVAL;
		goto err_free_qpn;
	}
	ret = sim_mlx5_qp_hw(qp, uctx, &ucmd);
	if (ret)
		goto err_release;
	/* A dynamic UAR: no BlueFlame register index */
	resp.bfreg_index = SIM_MLX5_INVALID_BFREG;
	ret = ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));
	if (ret)
		goto err_release;
	ret = sim_mlx5_hqp_start(qp->mlx5_hw);
	if (ret)
		goto err_release;
	qp->cap = init->cap;
	qp->create_flags = init->create_flags;
	atomic_long_inc(&sim_count[SIM_K_QP]);
	return 0;

err_release:
	sim_mlx5_qp_release(qp);
	rdma_user_mmap_entry_put(qp->uar);
	qp->uar = NULL;
err_free_qpn:
	ida_free(&sdev->qpn_ida, ibqp->qp_num);
err_free_kbuf:
	kfree(qp->kbuf);
	qp->kbuf = NULL;
	return ret;
}

/* The state the hardware knows, which a failed WQE may have moved to ERR */
static enum ib_qp_state sim_mlx5_qp_state(struct sim_qp *qp)
{
	return qp->mlx5_hw ? READ_ONCE(qp->mlx5_hw->state) : qp->state;
}

/* Keep what query_qp answers from the QP context on mlx5 */
static void sim_mlx5_qp_remember(struct ib_qp_attr *r,
				 const struct ib_qp_attr *a, int mask)
{
	if (mask & IB_QP_ACCESS_FLAGS)
		r->qp_access_flags = a->qp_access_flags;
	if (mask & IB_QP_PKEY_INDEX)
		r->pkey_index = a->pkey_index;
	if (mask & IB_QP_PATH_MTU)
		r->path_mtu = a->path_mtu;
	if (mask & IB_QP_TIMEOUT)
		r->timeout = a->timeout;
	if (mask & IB_QP_RETRY_CNT)
		r->retry_cnt = a->retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		r->rnr_retry = a->rnr_retry;
	if (mask & IB_QP_MIN_RNR_TIMER)
		r->min_rnr_timer = a->min_rnr_timer;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		r->max_rd_atomic = a->max_rd_atomic;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		r->max_dest_rd_atomic = a->max_dest_rd_atomic;
	if (mask & IB_QP_SQ_PSN)
		r->sq_psn = a->sq_psn & 0xffffff;
	if (mask & IB_QP_RQ_PSN)
		r->rq_psn = a->rq_psn & 0xffffff;
	if (mask & IB_QP_AV) {
		/* The address as values: the reference is the caller's */
		r->ah_attr = a->ah_attr;
		r->ah_attr.grh.sgid_attr = NULL;
	}
}

/*
 * How long a NIC retransmits an RC WQE nobody acknowledges: retry_cnt + 1
 * tries of 4.096 us << timeout each (IBTA 9.7.6.1.3).  A timeout of 0
 * (wait for ever) and budgets past two seconds are cut to two seconds, so
 * that a test whose peer is gone fails in bounded time.
 */
static unsigned int sim_mlx5_ack_ms(const struct ib_qp_attr *a)
{
	u64 us = (4096ULL << min_t(u8, a->timeout, 31)) / 1000 *
		 (a->retry_cnt + 1);

	return a->timeout ? min_t(u64, DIV_ROUND_UP_ULL(us, 1000), 2000) :
			    2000;
}

/*
 * The remote operations a QP takes as a responder, as mlx5_ib sets its
 * context's RRE, RWE and RAE bits (set_qpc_atomic_flags()): its access
 * flags, only RDMA WRITE without responder resources for READs and atomics
 * (max_dest_rd_atomic 0).  A requester's max_rd_atomic of 0 still lets it
 * issue one READ or atomic at a time on mlx5 (log_sra_max 0), so that one
 * gates nothing.
 */
static int sim_mlx5_remote_access(const struct ib_qp_attr *a)
{
	int access = a->qp_access_flags & (IB_ACCESS_REMOTE_READ |
					   IB_ACCESS_REMOTE_WRITE |
					   IB_ACCESS_REMOTE_ATOMIC);

	return a->max_dest_rd_atomic ? access :
				       access & IB_ACCESS_REMOTE_WRITE;
}

/**
 * sim_mlx5_modify_qp() - modify_qp; mlx5's driver data (ECE) not modelled
 * @ibqp: the QP
 * @attr: the new attributes
 * @mask: which
 * @udata: empty driver data (libmlx5 sends ECE options only when the
 *	context says ECE is supported, which it does not)
 *
 * Return: 0 or a negative errno.
 */
int sim_mlx5_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
		       int mask, struct ib_udata *udata)
{
	struct sim_qp *qp = container_of(ibqp, struct sim_qp, ibqp);
	enum ib_qp_state next;
	int ret;

	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EOPNOTSUPP;
	ret = sim_qp_modify_common(qp, sim_mlx5_qp_state(qp), attr, mask,
				   &next);
	if (ret)
		return ret;
	if (mask & IB_QP_QKEY)
		qp->qkey = attr->qkey;
	sim_mlx5_qp_remember(&qp->mlx5_attr, attr, mask);
	qp->state = next;
	if (qp->mlx5_hw)
		sim_mlx5_hqp_modify(qp->mlx5_hw, next, qp->dest_qpn, qp->qkey,
				    sim_mlx5_remote_access(&qp->mlx5_attr),
				    sim_mlx5_ack_ms(&qp->mlx5_attr));
	return 0;
}

/**
 * sim_mlx5_query_qp() - query_qp: the state (the hardware's), the
 *	attributes modify_qp set, and the capabilities
 * @ibqp: the QP
 * @attr: filled in
 * @mask: ignored: every attribute known is filled in
 * @init: filled in
 *
 * The capabilities are mlx5_ib's for a user QP: the receive queue as
 * created (its WQE count, and the scatter entries a WQE holds), the send
 * side 0, which libmlx5 fills in from what it computed.
 *
 * Return: 0.
 */
int sim_mlx5_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		      struct ib_qp_init_attr *init)
{
	struct sim_qp *qp = container_of(ibqp, struct sim_qp, ibqp);
	struct sim_mlx5_hqp *hw = qp->mlx5_hw;

	*attr = qp->mlx5_attr;
	memset(&attr->cap, 0, sizeof(attr->cap));
	memset(init, 0, sizeof(*init));
	attr->qp_state = sim_mlx5_qp_state(qp);
	attr->cur_qp_state = attr->qp_state;
	attr->dest_qp_num = qp->dest_qpn;
	attr->qkey = qp->qkey;
	attr->port_num = 1;
	if (!attr->path_mtu)
		attr->path_mtu = IB_MTU_1024;
	if (hw && hw->rq_cnt) {
		attr->cap.max_recv_wr = hw->rq_cnt;
		attr->cap.max_recv_sge = (1U << hw->rq_shift) /
					 sizeof(struct sim_mlx5_data_seg);
	}
	attr->cap.max_inline_data = qp->cap.max_inline_data;
	init->cap = attr->cap;
	init->create_flags = qp->create_flags;
	init->qp_type = ibqp->qp_type;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	return 0;
}

/**
 * sim_mlx5_destroy_qp() - destroy a QP: out of the hardware first
 * @ibqp: the QP
 * @udata: the caller's driver data, unused
 *
 * Return: 0.
 */
int sim_mlx5_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct sim_qp *qp = container_of(ibqp, struct sim_qp, ibqp);

	if (qp->mlx5_hw)
		sim_mlx5_hqp_stop(qp->mlx5_hw);
	sim_mlx5_qp_release(qp);
	return sim_destroy_qp(ibqp, udata);
}
