/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An RC QP connected to itself, for the test programs that use libibverbs:
 * a loopback QP lets one program send to itself, or look at what a device
 * records for an address vector, without a peer.  All on port 1.
 */
#ifndef VRDMA_PROGS_RC_SELF_H
#define VRDMA_PROGS_RC_SELF_H

#include <stdint.h>
#include <string.h>
#include <infiniband/verbs.h>

/* RESET to INIT, with remote access @access: 0 or ibv_modify_qp's error */
static inline int rc_self_init(struct ibv_qp *qp, unsigned int access)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = access;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			     IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}

/*
 * INIT to RTR, with @qp itself as the destination QP and @gid (the GID at
 * @gidx) as both source and destination GID; @rd_atomic incoming RDMA
 * reads at most.  0 or ibv_modify_qp's error.
 */
static inline int rc_self_rtr(struct ibv_qp *qp, int gidx,
			      const union ibv_gid *gid, uint8_t rd_atomic)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = qp->qp_num;
	a.max_dest_rd_atomic = rd_atomic;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = *gid;
	a.ah_attr.grh.sgid_index = gidx;
	a.ah_attr.grh.hop_limit = 1;
	a.ah_attr.port_num = 1;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV |
			     IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			     IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			     IBV_QP_MIN_RNR_TIMER);
}

/* RTR to RTS, @rd_atomic outgoing RDMA reads at most: 0 or the error */
static inline int rc_self_rts(struct ibv_qp *qp, uint8_t rd_atomic)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = rd_atomic;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			     IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

/*
 * A fresh RC QP @qp through INIT and RTR to RTS, connected to itself over
 * the GID at @gidx: 0, or the error of the step that failed.  @access and
 * @rd_atomic as for rc_self_init() and rc_self_rtr() (0 for none).
 */
static inline int rc_connect_self(struct ibv_qp *qp, int gidx,
				  unsigned int access, uint8_t rd_atomic)
{
	union ibv_gid gid;

	return ibv_query_gid(qp->context, 1, gidx, &gid) ?:
	       rc_self_init(qp, access) ?:
	       rc_self_rtr(qp, gidx, &gid, rd_atomic) ?:
	       rc_self_rts(qp, rd_atomic);
}

#endif /* VRDMA_PROGS_RC_SELF_H */
