/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rdmasim's data path (datapath.c): what the generic verbs tell the
 * simulated hardware.  Private to the module.
 */
#ifndef RDMASIM_DP_H
#define RDMASIM_DP_H

#include <linux/list.h>
#include <linux/types.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

struct ib_umem;
struct simdp_cq;
struct simdp_qp;
struct simdp_mr;

/* Per sim device: its QPs by number and its MRs by key index */
struct simdp_dev {
	struct xarray qps;		/* under simdp_lock */
	struct xarray mrs;		/* under simdp_lock */
};

/* A checked piece of an MR: @len bytes at @off from its start */
struct simdp_seg {
	struct simdp_mr *mr;
	u64 off;
	u32 len;
};

/*
 * An object of a personality's hardware that the thread polls in each
 * pass (mlx5_wqe.c's QPs and CQs); node and the list under simdp_lock
 */
struct simdp_poller {
	struct list_head node;
	bool (*poll)(struct simdp_poller *p);
};

void simdp_dev_init(struct simdp_dev *dp);
void simdp_dev_fini(struct simdp_dev *dp);

struct simdp_cq *simdp_cq_add(void *ring, u32 nr, u32 cqn);
void simdp_cq_del(struct simdp_cq *cq);

struct simdp_qp *simdp_qp_add(struct simdp_dev *dp, struct ib_qp *ibqp,
			      void *sq, u32 nsq, void *rq, u32 nrq,
			      struct simdp_cq *scq, struct simdp_cq *rcq);
void simdp_qp_modify(struct simdp_qp *qp, enum ib_qp_state state,
		     u32 dest_qpn);
void simdp_qp_del(struct simdp_qp *qp);

struct simdp_mr *simdp_mr_add(struct simdp_dev *dp, u32 key,
			      struct ib_umem *umem, u64 iova, u64 length,
			      int access, struct ib_pd *pd);
void simdp_mr_del(struct simdp_mr *mr);

void simdp_poller_add(struct simdp_poller *p);
void simdp_poller_del(struct simdp_poller *p);
void simdp_hw_lock(void);
void simdp_hw_unlock(void);
void simdp_assert_locked(void);
bool simdp_seg_get(struct simdp_dev *dev, struct ib_pd *pd, u32 key,
		   u64 addr, u64 len, int access, struct simdp_seg *seg);
void simdp_copy(const struct simdp_seg *dst, int nd,
		const struct simdp_seg *src, int ns, u64 len);
void simdp_copy_from_buf(const struct simdp_seg *dst, int nd,
			 const void *buf, u64 len);
void simdp_copy_to_buf(void *buf, const struct simdp_seg *src, u64 len);

int simdp_init(struct dentry *debugfs);
void simdp_exit(void);

#endif /* RDMASIM_DP_H */
