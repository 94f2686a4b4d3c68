// SPDX-License-Identifier: GPL-2.0
/* rdmasim: queue pairs */
#include <linux/slab.h>
#include <linux/idr.h>
#include <linux/string.h>
#include <rdma/ib_verbs.h>

#include <rdma/rdmasim-abi.h>
#include "sim.h"

static void sim_qp_unmap(struct sim_qp *qp)
{
	/* First: the data path stops reading the rings */
	if (qp->dp)
		simdp_qp_del(qp->dp);
	qp->dp = NULL;
	if (qp->sq)
		rdma_user_mmap_entry_remove(&qp->sq->rdma_entry);
	if (qp->rq)
		rdma_user_mmap_entry_remove(&qp->rq->rdma_entry);
	if (qp->uar)
		rdma_user_mmap_entry_put(qp->uar);
	qp->sq = NULL;
	qp->rq = NULL;
	qp->uar = NULL;
}

/* A ring of @nwqe WQEs, then its doorbell record (rdmasim-abi.h) */
static int sim_qp_ring_new(struct sim_dev *sdev, struct sim_ucontext *uctx,
			   u32 nwqe, struct sim_mmap **ring)
{
	struct sim_mmap *m = sim_mmap_new(sdev, &uctx->ibuc,
					  (nwqe + 1) * SIM_WQE_SIZE,
					  SIM_MMAP_RING);

	if (IS_ERR(m))
		return PTR_ERR(m);
	*ring = m;
	return 0;
}

static int sim_create_user_qp(struct sim_dev *sdev, struct sim_qp *qp,
			      struct ib_qp_init_attr *init,
			      struct ib_udata *udata)
{
	struct ib_qp *ibqp = &qp->ibqp;
	struct rdmasim_create_qp_resp resp = {};
	struct rdmasim_create_qp ucmd = {};
	struct sim_ucontext *uctx;
	u32 nsq, nrq;
	int ret;

	sim_check_user("create_qp", ibqp->uobject, &ibqp->res);
	/* ib_uqp_object is the core's own: compare with the PD's ucontext */
	uctx = sim_pd_udata_uctx(sdev, udata, ibqp->pd, "create_qp");
	if (IS_ERR(uctx))
		return PTR_ERR(uctx);
	if (init->qp_type != IB_QPT_RC || udata->inlen < sizeof(ucmd))
		return -EINVAL;
	ret = ib_copy_from_udata(&ucmd, udata, sizeof(ucmd));
	if (ret)
		return ret;
	qp->uar = sim_uar_get(uctx, ucmd.uar_page_id);
	if (!qp->uar)
		return -EINVAL;
	nsq = roundup_pow_of_two(max(init->cap.max_send_wr, 1U));
	nrq = roundup_pow_of_two(max(init->cap.max_recv_wr, 1U));
	ret = sim_qp_ring_new(sdev, uctx, nsq, &qp->sq) ?:
	      sim_qp_ring_new(sdev, uctx, nrq, &qp->rq);
	if (ret)
		goto err_unmap;
	resp.sq_mmap_offset = rdma_user_mmap_get_offset(&qp->sq->rdma_entry);
	resp.rq_mmap_offset = rdma_user_mmap_get_offset(&qp->rq->rdma_entry);
	resp.sq_length = qp->sq->len;
	resp.rq_length = qp->rq->len;
	resp.wqe_size = SIM_WQE_SIZE;
	ret = ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));
	if (ret)
		goto err_unmap;
	qp->dp = simdp_qp_add(&sdev->dp, ibqp, qp->sq->buf, nsq, qp->rq->buf,
			      nrq, container_of(init->send_cq, struct sim_cq,
						ibcq)->dp,
			      container_of(init->recv_cq, struct sim_cq,
					   ibcq)->dp);
	if (IS_ERR(qp->dp)) {
		ret = PTR_ERR(qp->dp);
		qp->dp = NULL;
		goto err_unmap;
	}
	init->cap.max_send_wr = nsq;
	init->cap.max_recv_wr = nrq;
	return 0;

err_unmap:
	sim_qp_unmap(qp);
	return ret;
}

/**
 * sim_create_qp() - create a QP with rdmasim's driver data
 * @ibqp: the QP the core allocated
 * @init: its attributes; the capabilities granted are written back
 * @udata: rdmasim's driver data, NULL for a kernel QP (the MAD layer's)
 *
 * A personality with its own ABI passes its kernel QPs here.
 *
 * Return: 0 or a negative errno.
 */
int sim_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		  struct ib_udata *udata)
{
	struct sim_dev *sdev = to_sdev(ibqp->device);
	struct sim_qp *qp = container_of(ibqp, struct sim_qp, ibqp);
	int ret;

	if (init->srq || init->create_flags ||
	    init->cap.max_send_wr > SIM_MAX_ENTRIES ||
	    init->cap.max_recv_wr > SIM_MAX_ENTRIES ||
	    init->cap.max_send_sge > SIM_MAX_SGE ||
	    init->cap.max_recv_sge > SIM_MAX_SGE ||
	    init->cap.max_inline_data)
		return -EINVAL;
	if (!sim_check_dev(sdev, ibqp->pd->device, "create_qp's PD") ||
	    !sim_check_dev(sdev, init->send_cq->device, "create_qp's send CQ") ||
	    !sim_check_dev(sdev, init->recv_cq->device, "create_qp's recv CQ"))
		return -EINVAL;
	if (init->qp_type != IB_QPT_RC && init->qp_type != IB_QPT_GSI &&
	    init->qp_type != IB_QPT_SMI)
		return -EOPNOTSUPP;
	if ((init->qp_type == IB_QPT_GSI || init->qp_type == IB_QPT_SMI) &&
	    udata)
		return -EINVAL;

	qp->created_user = !!udata;
	qp->state = IB_QPS_RESET;
	qp->kbuf = sim_kbuf_alloc(qp->created_user);
	if (!qp->kbuf)
		return -ENOMEM;
	if (init->qp_type == IB_QPT_GSI) {
		ibqp->qp_num = 1;
	} else if (init->qp_type == IB_QPT_SMI) {
		/* The InfiniBand variant's QP0 (the MAD layer's) */
		ibqp->qp_num = 0;
	} else {
		ret = ida_alloc_range(&sdev->qpn_ida, 2, 0xffffff, GFP_KERNEL);
		if (ret < 0)
			goto err_free_kbuf;
		ibqp->qp_num = ret;
	}
	if (udata) {
		ret = sim_create_user_qp(sdev, qp, init, udata);
		if (ret)
			goto err_free_qpn;
	}
	atomic_long_inc(&sim_count[SIM_K_QP]);
	return 0;

err_free_qpn:
	if (ibqp->qp_num > 1)
		ida_free(&sdev->qpn_ida, ibqp->qp_num);
err_free_kbuf:
	kfree(qp->kbuf);
	return ret;
}

/**
 * sim_qp_modify_common() - what modify_qp does on every sim QP kind:
 *	check the transition and the port, keep the destination QPN
 * @qp: the QP
 * @cur: the state it is in (the hardware's, on mlx5)
 * @attr: the new attributes
 * @mask: which
 * @next: set to the state the QP moves to
 *
 * Return: 0, or -EINVAL (and @qp untouched) when the core would refuse it.
 */
int sim_qp_modify_common(struct sim_qp *qp, enum ib_qp_state cur,
			 const struct ib_qp_attr *attr, int mask,
			 enum ib_qp_state *next)
{
	if (mask & IB_QP_CUR_STATE)
		cur = attr->cur_qp_state;
	*next = mask & IB_QP_STATE ? attr->qp_state : cur;
	if (!ib_modify_qp_is_ok(cur, *next, qp->ibqp.qp_type, mask))
		return -EINVAL;
	if ((mask & IB_QP_PORT) && attr->port_num != 1)
		return -EINVAL;
	if (mask & IB_QP_DEST_QPN)
		qp->dest_qpn = attr->dest_qp_num;
	return 0;
}

static int sim_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
			 int mask, struct ib_udata *udata)
{
	struct sim_qp *qp = container_of(ibqp, struct sim_qp, ibqp);
	enum ib_qp_state next;
	int ret;

	ret = sim_qp_modify_common(qp, qp->state, attr, mask, &next);
	if (ret)
		return ret;
	qp->state = next;
	if (qp->dp)
		simdp_qp_modify(qp->dp, next, qp->dest_qpn);
	return 0;
}

static int sim_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
			struct ib_qp_init_attr *init)
{
	struct sim_qp *qp = container_of(ibqp, struct sim_qp, ibqp);

	memset(attr, 0, sizeof(*attr));
	memset(init, 0, sizeof(*init));
	attr->qp_state = qp->state;
	attr->cur_qp_state = qp->state;
	attr->dest_qp_num = qp->dest_qpn;
	attr->port_num = 1;
	init->qp_type = ibqp->qp_type;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	return 0;
}

/**
 * sim_destroy_qp() - destroy a QP
 * @ibqp: the QP
 * @udata: the caller's driver data, unused
 *
 * A personality takes its QPs out of its hardware first.
 *
 * Return: 0.
 */
int sim_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct sim_dev *sdev = to_sdev(ibqp->device);
	struct sim_qp *qp = container_of(ibqp, struct sim_qp, ibqp);

	if (!ibqp->uobject)
		sim_kernel_touch("destroy_qp", qp->created_user, qp->kbuf);
	sim_qp_unmap(qp);
	if (ibqp->qp_num > 1)
		ida_free(&sdev->qpn_ida, ibqp->qp_num);
	kfree(qp->kbuf);
	atomic_long_dec(&sim_count[SIM_K_QP]);
	return 0;
}

/* What a kernel post does: a user QP's doorbell is a store into its UAR page */
static int sim_post_kernel(struct ib_qp *ibqp, const char *verb)
{
	struct sim_qp *qp = container_of(ibqp, struct sim_qp, ibqp);

	if (ibqp->uobject)
		return -EOPNOTSUPP;
	sim_kernel_touch(verb, qp->created_user, qp->kbuf);
	return 0;
}

/* The kernel path has no wire: the MAD layer's sends are dropped */
static int sim_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
			 const struct ib_send_wr **bad)
{
	int ret = sim_post_kernel(ibqp, "post_send");

	if (ret)
		*bad = wr;
	return ret;
}

static int sim_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
			 const struct ib_recv_wr **bad)
{
	int ret = sim_post_kernel(ibqp, "post_recv");

	if (ret)
		*bad = wr;
	return ret;
}

/* The QPs' part of every personality's ops (link.c) */
const struct ib_device_ops sim_qp_ops = {
	.create_qp = sim_create_qp,
	.destroy_qp = sim_destroy_qp,
	.modify_qp = sim_modify_qp,
	.post_recv = sim_post_recv,
	.post_send = sim_post_send,
	.query_qp = sim_query_qp,

	INIT_RDMA_OBJ_SIZE(ib_qp, sim_qp, ibqp),
};
