/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An RC QP's steps from RESET to RTS, for the test programs that use
 * libibverbs, and an RC QP connected to itself (all on port 1): a loopback
 * QP lets one program send to itself, or look at what a device records for
 * an address vector, without a peer.
 */
#ifndef VRDMA_PROGS_RC_SELF_H
#define VRDMA_PROGS_RC_SELF_H

#include <stdint.h>
#include <string.h>
#include <infiniband/verbs.h>

/* RESET to INIT on @port, with remote access @access: 0 or the error */
static inline int rc_init(struct ibv_qp *qp, uint8_t port, unsigned int access)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = port;
	a.qp_access_flags = access;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			     IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}

/* Where rc_rtr() points an RC QP, over a global address vector */
struct rc_path {
	uint8_t port;
	enum ibv_mtu mtu;
	uint32_t dqpn;		/* the destination QP */
	union ibv_gid dgid;	/* the destination GID */
	int sgidx;		/* the source GID index */
	uint32_t rq_psn;
	uint8_t rd_atomic;	/* incoming RDMA reads at most */
	uint8_t min_rnr_timer;
	uint8_t hop_limit;
};

/* INIT to RTR along @p: 0 or ibv_modify_qp's error */
static inline int rc_rtr(struct ibv_qp *qp, const struct rc_path *p)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = p->mtu;
	a.dest_qp_num = p->dqpn;
	a.rq_psn = p->rq_psn;
	a.max_dest_rd_atomic = p->rd_atomic;
	a.min_rnr_timer = p->min_rnr_timer;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = p->dgid;
	a.ah_attr.grh.sgid_index = p->sgidx;
	a.ah_attr.grh.hop_limit = p->hop_limit;
	a.ah_attr.port_num = p->port;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV |
			     IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			     IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			     IBV_QP_MIN_RNR_TIMER);
}

/*
 * INIT to RTR, with @qp itself as the destination QP and @gid (the GID at
 * @gidx) as both source and destination GID; @rd_atomic incoming RDMA
 * reads at most.  0 or ibv_modify_qp's error.
 */
static inline int rc_self_rtr(struct ibv_qp *qp, int gidx,
			      const union ibv_gid *gid, uint8_t rd_atomic)
{
	struct rc_path p = {
		.port = 1, .mtu = IBV_MTU_1024, .dqpn = qp->qp_num,
		.dgid = *gid, .sgidx = gidx, .rd_atomic = rd_atomic,
		.min_rnr_timer = 12, .hop_limit = 1,
	};

	return rc_rtr(qp, &p);
}

/*
 * RTR to RTS, sending from @sq_psn, @rd_atomic outgoing RDMA reads at
 * most: 0 or ibv_modify_qp's error
 */
static inline int rc_rts(struct ibv_qp *qp, uint32_t sq_psn, uint8_t rd_atomic)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = sq_psn;
	a.max_rd_atomic = rd_atomic;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			     IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

/*
 * A fresh RC QP @qp through INIT and RTR to RTS, connected to itself over
 * the GID at @gidx: 0, or the error of the step that failed.  @access and
 * @rd_atomic as for rc_init() and rc_self_rtr() (0 for none).
 */
static inline int rc_connect_self(struct ibv_qp *qp, int gidx,
				  unsigned int access, uint8_t rd_atomic)
{
	union ibv_gid gid;

	return ibv_query_gid(qp->context, 1, gidx, &gid) ?:
	       rc_init(qp, 1, access) ?:
	       rc_self_rtr(qp, gidx, &gid, rd_atomic) ?:
	       rc_rts(qp, 0, rd_atomic);
}

#endif /* VRDMA_PROGS_RC_SELF_H */
