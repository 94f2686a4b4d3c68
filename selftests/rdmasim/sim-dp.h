/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rdmasim's data path (datapath.c): what the verbs in sim_main.c tell the
 * simulated hardware.  Private to the module.
 */
#ifndef RDMASIM_DP_H
#define RDMASIM_DP_H

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

int simdp_init(struct dentry *debugfs);
void simdp_exit(void);

#endif /* RDMASIM_DP_H */
