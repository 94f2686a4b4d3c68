// SPDX-License-Identifier: GPL-2.0
/*
 * The mlx5 personality's SRQ verbs: create_srq with mlx5's driver data
 * (struct mlx5_ib_create_srq), modify_srq, query_srq and destroy_srq, as
 * mlx5_ib (6.1, srq.c) answers them for a basic SRQ; the hardware that
 * takes receive WQEs from it is mlx5_wqe.c.
 *
 * The SRQ buffer is the caller's memory: a power of two of WQEs, each a
 * link segment (next_wqe_index) and data segments, 1 << wqe_shift bytes
 * (at least 32), as many WQEs and data segments as mlx5_ib computes from
 * max_wr and max_sge (libmlx5 asks for twice its max_wr plus one, for a
 * wait queue of its own).  It is pinned read-only, as is the page of the
 * doorbell record, as mlx5_ib pins them: the hardware only reads them.
 * XRC and tag-matching SRQs, kernel SRQs, resizing and WQE signatures are
 * not modelled.
 */
#include <linux/log2.h>
#include <linux/mm.h>
#include <rdma/ib_verbs.h>
#include <rdma/mlx5-abi.h>

#include "sim.h"
#include "sim-mlx5.h"

/* An SRQ WQE: at least 32 bytes (mlx5_ib), at most the context's limit */
#define SIM_MLX5_SRQ_MIN_DESC	32

static void sim_mlx5_srq_release(struct sim_srq *srq)
{
	if (srq->mlx5_hw)
		sim_mlx5_hsrq_del(srq->mlx5_hw);
	srq->mlx5_hw = NULL;
	sim_mlx5_queue_put(&srq->mlx5_q);
}

/* What mlx5_ib checks of the request */
static int sim_mlx5_srq_ucmd(struct ib_udata *udata,
			     struct mlx5_ib_create_srq *ucmd)
{
	if (udata->inlen < offsetof(struct mlx5_ib_create_srq, uidx))
		return -EINVAL;
	if (ib_copy_from_udata(ucmd, udata, min(udata->inlen, sizeof(*ucmd))))
		return -EFAULT;
	if (ucmd->reserved0 || ucmd->reserved1)
		return -EINVAL;
	if (udata->inlen > sizeof(*ucmd) &&
	    !ib_is_udata_cleared(udata, sizeof(*ucmd),
				 udata->inlen - sizeof(*ucmd)))
		return -EINVAL;
	/* WQE signatures (MLX5_SRQ_FLAG_SIGNATURE) are not modelled */
	if (ucmd->flags)
		return -EOPNOTSUPP;
	return 0;
}

/**
 * sim_mlx5_create_srq() - create_srq with mlx5's driver data
 * @ibsrq: the SRQ the core allocated
 * @init: its type and sizes; max_wr is written back as mlx5_ib does
 * @udata: mlx5's driver data; kernel SRQs are not modelled
 *
 * Return: 0 or a negative errno.
 */
int sim_mlx5_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
			struct ib_udata *udata)
{
	struct sim_dev *sdev = to_sdev(ibsrq->device);
	struct sim_srq *srq = to_ssrq(ibsrq);
	struct mlx5_ib_create_srq_resp resp = {};
	struct mlx5_ib_create_srq ucmd = {};
	struct sim_ucontext *uctx;
	size_t desc, len;
	int ret;

	if (!udata)
		return -EOPNOTSUPP;
	if (init->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	/* mlx5_ib's sanity checks, against the context's limits */
	if (init->attr.max_wr >= SIM_MAX_ENTRIES ||
	    init->attr.max_sge > SIM_MLX5_MAX_DESC_SZ /
				 sizeof(struct sim_mlx5_data_seg))
		return -EINVAL;
	desc = sizeof(struct sim_mlx5_srq_next_seg) +
	       init->attr.max_sge * sizeof(struct sim_mlx5_data_seg);
	desc = max_t(size_t, SIM_MLX5_SRQ_MIN_DESC, roundup_pow_of_two(desc));
	if (desc > SIM_MLX5_MAX_DESC_SZ)
		return -EINVAL;
	srq->max = roundup_pow_of_two(init->attr.max_wr + 1);
	srq->max_gs = init->attr.max_sge;
	len = srq->max * desc;

	sim_check_user("create_srq", ibsrq->uobject, &ibsrq->res);
	uctx = sim_pd_udata_uctx(sdev, udata, ibsrq->pd, "create_srq");
	if (IS_ERR(uctx))
		return PTR_ERR(uctx);
	ret = sim_mlx5_srq_ucmd(udata, &ucmd);
	if (ret)
		return ret;

	ret = sim_mlx5_queue_get(&srq->mlx5_q, ibsrq->device, ucmd.buf_addr,
				 len, 0, ucmd.db_addr, 0);
	if (ret)
		return ret;
	srq->mlx5_hw = sim_mlx5_hsrq_new(ibsrq, &srq->mlx5_q, srq->max,
					 ilog2(desc));
	if (IS_ERR(srq->mlx5_hw)) {
		ret = PTR_ERR(srq->mlx5_hw);
		srq->mlx5_hw = NULL;
		goto err_release;
	}
	srq->srqn = atomic_inc_return(&sdev->next_srqn) & 0xffffff;
	resp.srqn = srq->srqn;
	ret = ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));
	if (ret)
		goto err_release;
	init->attr.max_wr = srq->max - 1;
	return 0;

err_release:
	sim_mlx5_srq_release(srq);
	return ret;
}

/**
 * sim_mlx5_modify_srq() - arm the limit event; no resize, as mlx5_ib
 * @ibsrq: the SRQ
 * @attr: the new limit
 * @mask: IB_SRQ_LIMIT; IB_SRQ_MAX_WR is refused
 * @udata: empty driver data (libmlx5 sends none)
 *
 * Return: 0 or a negative errno.
 */
int sim_mlx5_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
			enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct sim_srq *srq = to_ssrq(ibsrq);

	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EOPNOTSUPP;
	if (mask & IB_SRQ_MAX_WR)
		return -EINVAL;
	if (mask & IB_SRQ_LIMIT) {
		if (attr->srq_limit >= srq->max)
			return -EINVAL;
		sim_mlx5_hsrq_arm(srq->mlx5_hw, attr->srq_limit);
	}
	return 0;
}

/**
 * sim_mlx5_query_srq() - the armed limit (0 once it fired) and the sizes
 * @ibsrq: the SRQ
 * @attr: filled in
 *
 * Return: 0.
 */
int sim_mlx5_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct sim_srq *srq = to_ssrq(ibsrq);

	attr->srq_limit = sim_mlx5_hsrq_limit(srq->mlx5_hw);
	attr->max_wr = srq->max - 1;
	attr->max_sge = srq->max_gs;
	return 0;
}

/**
 * sim_mlx5_destroy_srq() - destroy an SRQ; no QP uses it any more
 * @ibsrq: the SRQ
 * @udata: the caller's driver data, unused
 *
 * Return: 0.
 */
int sim_mlx5_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	sim_mlx5_srq_release(to_ssrq(ibsrq));
	return 0;
}
