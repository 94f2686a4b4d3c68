// SPDX-License-Identifier: GPL-2.0
/*
 * sim_mlx5_qp IBDEV GIDX - the error paths of the mlx5 double's hardware,
 * driven by stock libmlx5: one RC QP on IBDEV connected to itself (GID
 * index GIDX for its address vector).  One line per step, "NAME ok ..." or
 * "NAME err ERRNO_NAME ...":
 *
 *   connect    the QP to INIT, RTR (to its own number) and RTS
 *   send       a signalled SEND of 64 bytes into a posted receive: a
 *              requester and a responder completion (in either order),
 *              the payload arrived
 *   read       an RDMA READ of 64 bytes of the QP's own MR: the data came
 *   fetch_add  a fetch and add of 3 on 5 in an MR with remote atomic access:
 *              5 comes back in host order, 8 is left
 *   cmp_swap   a compare and swap of 8 for 42, then of 7 for 1: 8 and 42
 *              come back, 42 is left
 *   bad_lkey   a SEND whose lkey names no MR completes with
 *              IBV_WC_LOC_PROT_ERR, and the QP is in the error state
 *   flush      a receive posted before, and a SEND posted after, each
 *              complete with IBV_WC_WR_FLUSH_ERR
 *   atomic_no_access  on a second QP so connected, a fetch and add on the
 *              MR without remote atomic access completes with
 *              IBV_WC_REM_ACCESS_ERR and leaves its target as it was
 *
 * sim_mlx5_qp IBDEV GIDX access - instead, what a responder QP takes: on
 * each of five RC QPs so connected, an operation its access flags and
 * responder resources (max_dest_rd_atomic) allow completes, its data
 * moved, then one they refuse completes with IBV_WC_REM_INV_REQ_ERR (the
 * responder NAKs it as an invalid request, as the IBTA has it: rxe and the
 * rdmavt drivers answer so) and leaves its target as it was; mlx5_ib
 * programs what the QP takes into its context, without READs and atomics
 * when it has no responder resources:
 *
 *   no_remote_read     REMOTE_WRITE only: a WRITE, then a READ refused
 *   no_remote_atomic   REMOTE_READ only: a READ, then a fetch and add
 *   no_remote_write    REMOTE_ATOMIC only: a fetch and add, then a WRITE
 *   no_rd_res_read     every access, no responder resources: a WRITE
 *                      (WRITEs need none), then a READ refused
 *   no_rd_res_atomic   the same: a WRITE, then a compare and swap refused
 *
 * Exit status 0 if every step is ok.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <infiniband/verbs.h>

#include "rc_self.h"
#include "util.h"
#include "report.h"
#include "verbs_poll.h"

#define MSG	64
#define TIMEOUT_S	20

static int post_send(struct ibv_qp *qp, enum ibv_wr_opcode op, uint64_t id,
		     void *buf, uint32_t lkey, struct ibv_mr *remote)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)buf, .length = MSG, .lkey = lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = id, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	if (remote) {
		wr.wr.rdma.remote_addr = (uintptr_t)remote->addr;
		wr.wr.rdma.rkey = remote->rkey;
	}
	return ibv_post_send(qp, &wr, &bad);
}

/* An atomic on the 8 bytes at @target, the original value into @res */
static int post_atomic(struct ibv_qp *qp, enum ibv_wr_opcode op, uint64_t id,
		       uint64_t *res, struct ibv_mr *lmr, uint64_t *target,
		       struct ibv_mr *rmr, uint64_t cmp_add, uint64_t swap)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)res, .length = sizeof(*res),
		.lkey = lmr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = id, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	wr.wr.atomic.remote_addr = (uintptr_t)target;
	wr.wr.atomic.rkey = rmr->rkey;
	wr.wr.atomic.compare_add = cmp_add;
	wr.wr.atomic.swap = swap;
	return ibv_post_send(qp, &wr, &bad);
}

static int post_recv(struct ibv_qp *qp, uint64_t id, void *buf,
		     struct ibv_mr *mr)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)buf, .length = MSG, .lkey = mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 },
		*bad;

	return ibv_post_recv(qp, &wr, &bad);
}

/* A completion with @id and @status, or the error and what came */
static int expect(struct ibv_cq *cq, uint64_t id, enum ibv_wc_status status,
		  char *what, size_t len)
{
	struct ibv_wc wc;
	int ret = poll_cq_one(cq, &wc, TIMEOUT_S);

	if (ret) {
		snprintf(what, len, "no completion for wr %llu",
			 (unsigned long long)id);
		return ret;
	}
	snprintf(what, len, "wr %llu: %s", (unsigned long long)wc.wr_id,
		 ibv_wc_status_str(wc.status));
	return wc.wr_id == id && wc.status == status ? 0 : EPROTO;
}

/*
 * Two successful completions, @a and @b, in either order: a SEND to the
 * QP itself completes on both sides of one CQ, in no order a NIC promises
 */
static int expect_pair(struct ibv_cq *cq, uint64_t a, uint64_t b, char *what,
		       size_t len)
{
	struct ibv_wc wc[2];
	int ret, i;

	for (i = 0; i < 2; i++) {
		ret = poll_cq_one(cq, &wc[i], TIMEOUT_S);
		if (ret) {
			snprintf(what, len, "%d completions", i);
			return ret;
		}
	}
	snprintf(what, len, "wr %llu: %s, wr %llu: %s",
		 (unsigned long long)wc[0].wr_id, ibv_wc_status_str(wc[0].status),
		 (unsigned long long)wc[1].wr_id, ibv_wc_status_str(wc[1].status));
	if (wc[0].status != IBV_WC_SUCCESS || wc[1].status != IBV_WC_SUCCESS)
		return EPROTO;
	return (wc[0].wr_id == a && wc[1].wr_id == b) ||
	       (wc[0].wr_id == b && wc[1].wr_id == a) ? 0 : EPROTO;
}

/* What the access checks work on: one CQ, the MRs and their memory */
struct access_env {
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr, *amr;	/* buf (no atomics), abuf (atomics only) */
	uint8_t *buf;
	uint64_t *abuf;
	struct ibv_qp_init_attr *init;
	int gidx;
};

/*
 * @op on @qp with the buffers of @e, to complete with @status: its data
 * moved on success, its target untouched on an error.  0 or the error,
 * what came in @what.
 */
static int access_op(struct access_env *e, struct ibv_qp *qp,
		     enum ibv_wr_opcode op, uint64_t id,
		     enum ibv_wc_status status, char *what, size_t len)
{
	uint8_t *blk0 = e->buf, *blk1 = e->buf + MSG, *blk2 = e->buf + 2 * MSG;
	uint8_t *local, *from, *to;
	int ok = status == IBV_WC_SUCCESS, ret;
	uint8_t zero[MSG] = {};

	memset(e->buf, 0, 3 * MSG);
	e->abuf[0] = 5;
	e->abuf[1] = 0;
	switch (op) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_READ:
		/*
		 * The remote side is the first block, the MR's start: a write
		 * copies the second block there, a read copies it to the third.
		 */
		local = op == IBV_WR_RDMA_WRITE ? blk1 : blk2;
		from = op == IBV_WR_RDMA_WRITE ? blk1 : blk0;
		to = op == IBV_WR_RDMA_WRITE ? blk0 : blk2;
		memset(from, op == IBV_WR_RDMA_WRITE ? 0xa5 : 0x5a, MSG);
		ret = post_send(qp, op, id, local, e->mr->lkey, e->mr) ?:
		      expect(e->cq, id, status, what, len);
		if (!ret && memcmp(to, ok ? from : zero, MSG))
			ret = EBADMSG;
		return ret;
	default:
		/* Fetch and add 3, or compare with 5 and swap for 42 */
		ret = post_atomic(qp, op, id, &e->abuf[1], e->amr, &e->abuf[0],
				  e->amr, op == IBV_WR_ATOMIC_FETCH_AND_ADD ?
				  3 : 5, 42) ?:
		      expect(e->cq, id, status, what, len);
		if (!ret && ok && e->abuf[1] != 5)
			ret = EBADMSG;
		if (!ret && e->abuf[0] != (!ok ? 5 :
		    op == IBV_WR_ATOMIC_FETCH_AND_ADD ? 8 : 42))
			ret = EBADMSG;
		return ret;
	}
}

/* One responder check: the QP's remote access and responder resources */
struct access_case {
	const char *name;
	unsigned int access;
	uint8_t rd_res;			/* max_dest_rd_atomic */
	enum ibv_wr_opcode ok_op;	/* an operation the QP takes */
	enum ibv_wr_opcode bad_op;	/* one it refuses */
};

#define ACCESS_ALL	(IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_ATOMIC)

static const struct access_case access_cases[] = {
	{ "no_remote_read", IBV_ACCESS_REMOTE_WRITE, 1,
	  IBV_WR_RDMA_WRITE, IBV_WR_RDMA_READ },
	{ "no_remote_atomic", IBV_ACCESS_REMOTE_READ, 1,
	  IBV_WR_RDMA_READ, IBV_WR_ATOMIC_FETCH_AND_ADD },
	{ "no_remote_write", IBV_ACCESS_REMOTE_ATOMIC, 1,
	  IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_WR_RDMA_WRITE },
	{ "no_rd_res_read", ACCESS_ALL, 0, IBV_WR_RDMA_WRITE, IBV_WR_RDMA_READ },
	{ "no_rd_res_atomic", ACCESS_ALL, 0,
	  IBV_WR_RDMA_WRITE, IBV_WR_ATOMIC_CMP_AND_SWP },
};

/*
 * The case @c on a fresh QP connected to itself, which sends with one
 * READ or atomic outstanding whatever it takes as a responder
 */
static void access_check(struct access_env *e, const struct access_case *c,
			 uint64_t id)
{
	struct ibv_qp *qp = ibv_create_qp(e->pd, e->init);
	char what[2][128] = { "", "" };
	union ibv_gid gid;
	int ret;

	ret = !qp ? (errno ?: EIO) :
	      ibv_query_gid(e->pd->context, 1, e->gidx, &gid) ?:
	      rc_init(qp, 1, c->access) ?:
	      rc_self_rtr(qp, e->gidx, &gid, c->rd_res) ?:
	      rc_rts(qp, 0, 1);
	ret = ret ?: access_op(e, qp, c->ok_op, id, IBV_WC_SUCCESS, what[0],
			       sizeof(what[0])) ?:
	      access_op(e, qp, c->bad_op, id + 1, IBV_WC_REM_INV_REQ_ERR,
			what[1], sizeof(what[1]));
	report(c->name, ret, "access %#x, max_dest_rd_atomic %u: %s; %s",
	       c->access, c->rd_res, what[0], what[1]);
	if (qp)
		ibv_destroy_qp(qp);
}

int main(int argc, char **argv)
{
	struct ibv_context *ctx = NULL;
	struct ibv_qp_attr attr = {};
	struct ibv_qp_init_attr init = {};
	struct ibv_qp *qp, *qp2;
	struct ibv_cq *cq;
	struct ibv_pd *pd;
	struct ibv_mr *mr, *amr;
	char what[2][128];
	uint64_t *abuf;
	uint8_t *buf;
	int ret;

	if (argc != 3 && (argc != 4 || strcmp(argv[3], "access"))) {
		fprintf(stderr, "usage: %s IBDEV GIDX [access]\n", argv[0]);
		return 2;
	}
	ctx = open_device_by_name(argv[1]);
	buf = calloc(4, MSG);
	/* Target, then results: naturally aligned */
	abuf = calloc(4, sizeof(*abuf));
	if (!ctx || !buf || !abuf) {
		report("connect", ENODEV, "cannot open %s", argv[1]);
		return 1;
	}
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 15, NULL, NULL, 0);
	mr = pd ? ibv_reg_mr(pd, buf, 4 * MSG, IBV_ACCESS_LOCAL_WRITE |
			     IBV_ACCESS_REMOTE_READ |
			     IBV_ACCESS_REMOTE_WRITE) : NULL;
	amr = pd ? ibv_reg_mr(pd, abuf, 4 * sizeof(*abuf),
			      IBV_ACCESS_LOCAL_WRITE |
			      IBV_ACCESS_REMOTE_ATOMIC) : NULL;
	init.send_cq = cq;
	init.recv_cq = cq;
	init.qp_type = IBV_QPT_RC;
	init.cap.max_send_wr = 8;
	init.cap.max_recv_wr = 8;
	init.cap.max_send_sge = 1;
	init.cap.max_recv_sge = 1;
	if (argc == 4 && pd && cq && mr && amr) {
		struct access_env e = {
			.pd = pd, .cq = cq, .mr = mr, .amr = amr, .buf = buf,
			.abuf = abuf, .init = &init, .gidx = atoi(argv[2]),
		};
		size_t i;

		for (i = 0; i < sizeof(access_cases) / sizeof(access_cases[0]);
		     i++)
			access_check(&e, &access_cases[i], 2 * i + 1);
		goto out;
	}
	qp = pd && cq && mr && amr ? ibv_create_qp(pd, &init) : NULL;
	if (!qp) {
		report("connect", errno ?: EIO, "PD, CQ, MRs or QP");
		return 1;
	}
	ret = rc_connect_self(qp, atoi(argv[2]), IBV_ACCESS_REMOTE_READ |
			      IBV_ACCESS_REMOTE_WRITE |
			      IBV_ACCESS_REMOTE_ATOMIC, 1);
	report("connect", ret, "QP %#x to itself", qp->qp_num);
	if (ret)
		return 1;

	/* SEND: 64 bytes of 0x5a from the first block into the second */
	memset(buf, 0x5a, MSG);
	ret = post_recv(qp, 1, buf + MSG, mr) ?:
	      post_send(qp, IBV_WR_SEND, 2, buf, mr->lkey, NULL) ?:
	      expect_pair(cq, 1, 2, what[0], sizeof(what[0]));
	if (!ret && memcmp(buf, buf + MSG, MSG))
		ret = EBADMSG;
	report("send", ret, "%s", what[0]);

	/* READ: the first block into the third */
	ret = post_send(qp, IBV_WR_RDMA_READ, 3, buf + 2 * MSG, mr->lkey, mr) ?:
	      expect(cq, 3, IBV_WC_SUCCESS, what[0], sizeof(what[0]));
	if (!ret && memcmp(buf, buf + 2 * MSG, MSG))
		ret = EBADMSG;
	report("read", ret, "%s", what[0]);

	/* Fetch and add: the old value back in host order, as mlx5 does */
	abuf[0] = 5;
	ret = post_atomic(qp, IBV_WR_ATOMIC_FETCH_AND_ADD, 7, &abuf[1], amr,
			  &abuf[0], amr, 3, 0) ?:
	      expect(cq, 7, IBV_WC_SUCCESS, what[0], sizeof(what[0]));
	if (!ret && (abuf[1] != 5 || abuf[0] != 8))
		ret = EBADMSG;
	report("fetch_add", ret, "%s; got %#llx, left %#llx", what[0],
	       (unsigned long long)abuf[1], (unsigned long long)abuf[0]);

	/* Compare and swap: one that swaps, one that does not */
	ret = post_atomic(qp, IBV_WR_ATOMIC_CMP_AND_SWP, 8, &abuf[2], amr,
			  &abuf[0], amr, 8, 42) ?:
	      expect(cq, 8, IBV_WC_SUCCESS, what[0], sizeof(what[0])) ?:
	      post_atomic(qp, IBV_WR_ATOMIC_CMP_AND_SWP, 9, &abuf[3], amr,
			  &abuf[0], amr, 7, 1) ?:
	      expect(cq, 9, IBV_WC_SUCCESS, what[1], sizeof(what[1]));
	if (!ret && (abuf[2] != 8 || abuf[3] != 42 || abuf[0] != 42))
		ret = EBADMSG;
	report("cmp_swap", ret, "%s, %s; got %#llx, %#llx, left %#llx",
	       what[0], what[1], (unsigned long long)abuf[2],
	       (unsigned long long)abuf[3], (unsigned long long)abuf[0]);

	/* A receive waits; a SEND with an lkey of no MR fails locally */
	ret = post_recv(qp, 4, buf + 3 * MSG, mr) ?:
	      post_send(qp, IBV_WR_SEND, 5, buf, mr->lkey + 0x100000, NULL) ?:
	      expect(cq, 5, IBV_WC_LOC_PROT_ERR, what[0], sizeof(what[0]));
	if (!ret && (ibv_query_qp(qp, &attr, IBV_QP_STATE, &init) ||
		     attr.qp_state != IBV_QPS_ERR))
		ret = EPROTO;
	report("bad_lkey", ret, "%s; QP state %d", what[0], attr.qp_state);

	/* In error: the waiting receive and a new SEND are flushed */
	ret = expect(cq, 4, IBV_WC_WR_FLUSH_ERR, what[0], sizeof(what[0])) ?:
	      post_send(qp, IBV_WR_SEND, 6, buf, mr->lkey, NULL) ?:
	      expect(cq, 6, IBV_WC_WR_FLUSH_ERR, what[1], sizeof(what[1]));
	report("flush", ret, "%s; %s", what[0], what[1]);

	/* An atomic on an MR without remote atomic access: a remote error */
	qp2 = ibv_create_qp(pd, &init);
	ret = qp2 ? rc_connect_self(qp2, atoi(argv[2]), IBV_ACCESS_REMOTE_READ |
				    IBV_ACCESS_REMOTE_WRITE |
				    IBV_ACCESS_REMOTE_ATOMIC, 1) : errno ?: EIO;
	memset(buf, 0, 8);
	ret = ret ?: post_atomic(qp2, IBV_WR_ATOMIC_FETCH_AND_ADD, 10, &abuf[1],
				 amr, (uint64_t *)buf, mr, 1, 0) ?:
	      expect(cq, 10, IBV_WC_REM_ACCESS_ERR, what[0], sizeof(what[0]));
	if (!ret && *(uint64_t *)buf)
		ret = EBADMSG;
	report("atomic_no_access", ret, "%s", what[0]);

	if (qp2)
		ibv_destroy_qp(qp2);
	ibv_destroy_qp(qp);
out:
	ibv_dereg_mr(amr);
	ibv_dereg_mr(mr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	free(abuf);
	free(buf);
	return failed;
}
