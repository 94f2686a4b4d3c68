// SPDX-License-Identifier: GPL-2.0
/* rdmasim: completion queues */
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_umem.h>
#include <rdma/uverbs_ioctl.h>

#include <rdma/rdmasim-abi.h>
#include "sim.h"

/*
 * From 7.2 the CQ buffer may come as a UMEM attribute (or the legacy CQ
 * buffer attributes): pin it as a driver would, report its length and
 * first bytes, and let it go (the CQEs stay in the kernel's ring).
 */
static int sim_create_cq_buf(struct sim_dev *sdev,
			     struct uverbs_attr_bundle *attrs,
			     struct rdmasim_create_cq_resp *resp)
{
	struct ib_umem *umem;
	int ret;

	if (!SIM_CQ_BUF_UMEM)
		return 0;
	resp->flags |= RDMASIM_CQ_RESP_UMEM_KNOWN;
	umem = sim_umem_get_cq_buf(&sdev->ibdev, attrs, SIM_CQE_SIZE);
	if (IS_ERR_OR_NULL(umem))
		return PTR_ERR_OR_ZERO(umem);
	resp->buf_length = umem->length;
	ret = ib_umem_copy_from(resp->buf_head, umem, 0,
				min_t(size_t, sizeof(resp->buf_head),
				      umem->length));
	ib_umem_release(umem);
	return ret;
}

/*
 * sim_create_cq_attrs - what create_cq reads of the attribute bundle
 * around @udata: its own RDMASIM_ATTR_CREATE_CQ_UAR_INDEX, which names the
 * doorbell page instead of @ucmd (as mlx5's UAR index attribute), and the
 * core's CQ buffer attributes.  What it found goes to @resp.
 */
static int sim_create_cq_attrs(struct sim_dev *sdev, struct ib_udata *udata,
			       const struct rdmasim_create_cq *ucmd,
			       struct rdmasim_create_cq_resp *resp)
{
	struct uverbs_attr_bundle *attrs = rdma_udata_to_uverbs_attr_bundle(udata);
	int ret;

	resp->uar_page_id = ucmd->uar_page_id;
	if (uverbs_attr_is_valid(attrs, RDMASIM_ATTR_CREATE_CQ_UAR_INDEX)) {
		ret = uverbs_copy_from(&resp->uar_page_id, attrs,
				       RDMASIM_ATTR_CREATE_CQ_UAR_INDEX);
		if (ret)
			return ret;
		resp->flags |= RDMASIM_CQ_RESP_UAR_FROM_ATTR;
	}
	return sim_create_cq_buf(sdev, attrs, resp);
}

/**
 * sim_create_cq_udata() - create a CQ with rdmasim's driver data
 * @ibcq: the CQ the core allocated
 * @attr: its size and flags
 * @udata: rdmasim's driver data, NULL for a kernel CQ
 *
 * A personality with its own ABI passes its kernel CQs here.
 *
 * Return: 0 or a negative errno.
 */
int sim_create_cq_udata(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
			struct ib_udata *udata)
{
	struct sim_dev *sdev = to_sdev(ibcq->device);
	struct sim_cq *cq = container_of(ibcq, struct sim_cq, ibcq);
	struct rdmasim_create_cq_resp resp = {};
	struct rdmasim_create_cq ucmd = {};
	struct sim_ucontext *uctx;
	u32 nr;
	int ret;

	if (attr->flags || !attr->cqe || attr->cqe > SIM_MAX_ENTRIES)
		return -EINVAL;
	nr = roundup_pow_of_two(attr->cqe);
	cq->created_user = !!udata;
	cq->cqn = atomic_inc_return(&sdev->next_cqn);
	cq->kbuf = sim_kbuf_alloc(cq->created_user);
	if (!cq->kbuf)
		return -ENOMEM;
	if (!udata)
		goto done;

	sim_check_user("create_cq", ibcq->uobject, &ibcq->res);
	/* ib_ucq_object is the core's own: the CQ's ucontext is not ours */
	uctx = sim_udata_uctx(sdev, udata, NULL, "create_cq");
	if (IS_ERR(uctx)) {
		ret = PTR_ERR(uctx);
		goto err_free_kbuf;
	}
	if (udata->inlen < sizeof(ucmd)) {
		ret = -EINVAL;
		goto err_free_kbuf;
	}
	ret = ib_copy_from_udata(&ucmd, udata, sizeof(ucmd));
	if (ret)
		goto err_free_kbuf;
	ret = sim_create_cq_attrs(sdev, udata, &ucmd, &resp);
	if (ret)
		goto err_free_kbuf;
	/* As mlx5 needs a UAR page for the CQ's doorbell */
	cq->uar = sim_uar_get(uctx, resp.uar_page_id);
	if (!cq->uar) {
		ret = -EINVAL;
		goto err_free_kbuf;
	}
	/* The CQEs, then the consumer index record (rdmasim-abi.h) */
	cq->ring = sim_mmap_new(sdev, &uctx->ibuc, (nr + 1) * SIM_CQE_SIZE,
				SIM_MMAP_RING);
	if (IS_ERR(cq->ring)) {
		ret = PTR_ERR(cq->ring);
		goto err_put_uar;
	}
	cq->dp = simdp_cq_add(cq->ring->buf, nr, cq->cqn);
	if (IS_ERR(cq->dp)) {
		ret = PTR_ERR(cq->dp);
		cq->dp = NULL;
		goto err_remove_ring;
	}
	resp.ring_mmap_offset = rdma_user_mmap_get_offset(&cq->ring->rdma_entry);
	resp.ring_length = cq->ring->len;
	resp.cqn = cq->cqn;
	resp.cqe_size = SIM_CQE_SIZE;
	resp.nr_cqe = nr;
	ret = ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));
	if (ret)
		goto err_remove_ring;
done:
	ibcq->cqe = nr;
	atomic_long_inc(&sim_count[SIM_K_CQ]);
	return 0;

err_remove_ring:
	if (cq->dp)
		simdp_cq_del(cq->dp);
	rdma_user_mmap_entry_remove(&cq->ring->rdma_entry);
err_put_uar:
	rdma_user_mmap_entry_put(cq->uar);
err_free_kbuf:
	kfree(cq->kbuf);
	return ret;
}

/*
 * Where the kernel splits them (SIM_USER_CQ_SPLIT), as mlx5_ib: user CQs
 * come through create_user_cq, create_cq makes kernel CQs only, and a
 * user CQ arriving there is a caller's mistake.
 */
static int __maybe_unused sim_create_user_cq(struct ib_cq *ibcq,
					     const struct ib_cq_init_attr *attr,
					     struct uverbs_attr_bundle *attrs)
{
	if (!attrs) {
		sim_strict("create_user_cq: called without a bundle");
		return -EINVAL;
	}
	return sim_create_cq_udata(ibcq, attr, &attrs->driver_udata);
}

static int sim_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
			 struct sim_create_cq_arg *arg)
{
	struct ib_udata *udata = sim_cq_udata(arg);

	if (SIM_USER_CQ_SPLIT && udata) {
		sim_strict("create_cq: a user CQ, not through create_user_cq");
		return -EINVAL;
	}
	return sim_create_cq_udata(ibcq, attr, udata);
}

/**
 * sim_destroy_cq() - destroy a CQ of any personality
 * @ibcq: the CQ
 * @udata: the caller's driver data, unused
 *
 * A personality releases what it pinned first.
 *
 * Return: 0.
 */
int sim_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct sim_cq *cq = container_of(ibcq, struct sim_cq, ibcq);

	/* Decided by the uobject, as mlx4 does */
	if (!ibcq->uobject)
		sim_kernel_touch("destroy_cq", cq->created_user, cq->kbuf);
	if (cq->dp)
		simdp_cq_del(cq->dp);
	if (cq->ring)
		rdma_user_mmap_entry_remove(&cq->ring->rdma_entry);
	if (cq->uar)
		rdma_user_mmap_entry_put(cq->uar);
	kfree(cq->kbuf);
	atomic_long_dec(&sim_count[SIM_K_CQ]);
	return 0;
}

static int sim_poll_cq(struct ib_cq *ibcq, int num, struct ib_wc *wc)
{
	struct sim_cq *cq = container_of(ibcq, struct sim_cq, ibcq);

	/* User CQs are polled in their mapped ring, never through here */
	if (ibcq->uobject)
		return -EOPNOTSUPP;
	sim_kernel_touch("poll_cq", cq->created_user, cq->kbuf);
	return 0;
}

static int sim_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	return 0;
}

/* The CQs' part of every personality's ops (link.c) */
const struct ib_device_ops sim_cq_ops = {
	.create_cq = sim_create_cq,
	SIM_USER_CQ_OP(sim_create_user_cq)
	.destroy_cq = sim_destroy_cq,
	.poll_cq = sim_poll_cq,
	.req_notify_cq = sim_req_notify_cq,

	INIT_RDMA_OBJ_SIZE(ib_cq, sim_cq, ibcq),
};
