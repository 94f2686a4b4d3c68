/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Prototypes of RDMA core symbols that ib_core exports but declares only in
 * its private headers (drivers/infiniband/core/core_priv.h and restrack.h
 * in Linux 6.1).  They are checked against Module.symvers at build time.
 */
#ifndef _VRDMA_COMPAT_H
#define _VRDMA_COMPAT_H

#include <rdma/ib_verbs.h>
#include <rdma/restrack.h>

struct ib_uqp_object;

struct ib_qp *ib_create_qp_user(struct ib_device *dev, struct ib_pd *pd,
				struct ib_qp_init_attr *attr,
				struct ib_udata *udata,
				struct ib_uqp_object *uobj, const char *caller);
void ib_qp_usecnt_inc(struct ib_qp *qp);
void ib_qp_usecnt_dec(struct ib_qp *qp);

void rdma_restrack_new(struct rdma_restrack_entry *res,
		       enum rdma_restrack_type type);
void rdma_restrack_set_name(struct rdma_restrack_entry *res,
			    const char *caller);
void rdma_restrack_add(struct rdma_restrack_entry *res);
void rdma_restrack_del(struct rdma_restrack_entry *res);

#endif /* _VRDMA_COMPAT_H */
