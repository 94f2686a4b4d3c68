// SPDX-License-Identifier: GPL-2.0
/*
 * sim_mlx5_srq IBDEV GIDX - an SRQ of the mlx5 double driven by stock
 * libmlx5: its verbs, and the hardware taking receive WQEs from it, on one
 * RC QP of IBDEV attached to it and connected to itself (GID index GIDX).
 * One line per step, "NAME ok ..." or "NAME err ERRNO_NAME ...":
 *
 *   create     ibv_create_srq (16 WQEs, 1 SGE)
 *   query      ibv_query_srq: at least 16 WQEs, 1 SGE, no limit armed
 *   resize     ibv_modify_srq(IBV_SRQ_MAX_WR) refused, as mlx5_ib does
 *   connect    the QP, created with the SRQ, to INIT, RTR (itself), RTS
 *   arm        ibv_modify_srq(IBV_SRQ_LIMIT = 4), which query reads back
 *   recv       6 receives posted to the SRQ, 3 SENDs of distinct bytes:
 *              3 send and 3 receive completions, each receive's buffer
 *              holding its SEND (the SRQ's WQEs in posting order)
 *   limit      the async event IBV_EVENT_SRQ_LIMIT_REACHED for the SRQ
 *              (3 WQEs left, fewer than 4), and query reads 0 after it
 *   cycle      ROUNDS more SENDs, each receive reposted once polled, so
 *              that libmlx5 relinks every WQE and the wait queue's: every
 *              payload checked
 *
 * Exit status 0 if every step is ok.
 */
#include <errno.h>
#include <poll.h>
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

#define MSG		64
#define NBUF		8
#define ROUNDS		200
#define TIMEOUT_S	20
#define RECV_ID		1000

/* Receive buffer @i of @buf: after the send buffer */
static uint8_t *rbuf(uint8_t *buf, int i)
{
	return buf + (1 + i) * MSG;
}

static int post_srq(struct ibv_srq *srq, struct ibv_mr *mr, uint8_t *buf,
		    int i)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)rbuf(buf, i), .length = MSG,
		.lkey = mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = RECV_ID + i, .sg_list = &sge, .num_sge = 1,
	}, *bad;

	memset(rbuf(buf, i), 0, MSG);
	return ibv_post_srq_recv(srq, &wr, &bad);
}

/* A signalled SEND of MSG bytes of @fill from the send buffer */
static int send_fill(struct ibv_qp *qp, struct ibv_mr *mr, uint8_t *buf,
		     uint8_t fill)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)buf, .length = MSG, .lkey = mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = fill, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	memset(buf, fill, MSG);
	return ibv_post_send(qp, &wr, &bad);
}

/* Whether MSG bytes at @p are all @fill */
static int all(const uint8_t *p, uint8_t fill)
{
	int i;

	for (i = 0; i < MSG; i++)
		if (p[i] != fill)
			return 0;
	return 1;
}

/*
 * The completions of @n SENDs, the k-th of @fill0 + k: each SEND's, and a
 * receive's per SEND, in SRQ order from receive buffer @first (modulo
 * NBUF), each holding its SEND's bytes.  The receives' indices go to @got.
 */
static int expect_sends(struct ibv_cq *cq, uint8_t *buf, int n, int first,
			uint8_t fill0, int *got, char *what, size_t len)
{
	int sends = 0, recvs = 0, ret, i;
	struct ibv_wc wc;

	for (i = 0; i < 2 * n; i++) {
		ret = poll_cq_one(cq, &wc, TIMEOUT_S);
		if (ret) {
			snprintf(what, len, "%d sends, %d receives", sends,
				 recvs);
			return ret;
		}
		if (wc.status != IBV_WC_SUCCESS) {
			snprintf(what, len, "wr %llu: %s",
				 (unsigned long long)wc.wr_id,
				 ibv_wc_status_str(wc.status));
			return EPROTO;
		}
		if (wc.opcode == IBV_WC_SEND) {
			sends++;
			continue;
		}
		if (wc.opcode != IBV_WC_RECV || wc.byte_len != MSG ||
		    wc.wr_id != (uint64_t)RECV_ID + (first + recvs) % NBUF ||
		    !all(rbuf(buf, wc.wr_id - RECV_ID),
			 (uint8_t)(fill0 + recvs))) {
			snprintf(what, len,
				 "receive %d: wr %llu opcode %d len %u, expected wr %d with 0x%02x",
				 recvs, (unsigned long long)wc.wr_id,
				 wc.opcode, wc.byte_len,
				 RECV_ID + (first + recvs) % NBUF,
				 (uint8_t)(fill0 + recvs));
			return EBADMSG;
		}
		got[recvs++] = wc.wr_id - RECV_ID;
	}
	snprintf(what, len, "%d sends, %d receives", sends, recvs);
	return sends == n && recvs == n ? 0 : EPROTO;
}

/* The async event @type for @srq within TIMEOUT_S */
static int expect_event(struct ibv_context *ctx, struct ibv_srq *srq,
			enum ibv_event_type type, char *what, size_t len)
{
	struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;
	int ret;

	ret = poll(&pfd, 1, TIMEOUT_S * 1000);
	if (ret <= 0) {
		snprintf(what, len, "no async event in %d s", TIMEOUT_S);
		return ret ? errno : ETIMEDOUT;
	}
	if (ibv_get_async_event(ctx, &ev))
		return errno;
	snprintf(what, len, "%s", ibv_event_type_str(ev.event_type));
	ret = ev.event_type == type && ev.element.srq == srq ? 0 : EPROTO;
	ibv_ack_async_event(&ev);
	return ret;
}

int main(int argc, char **argv)
{
	struct ibv_srq_init_attr sinit = { .attr = { .max_wr = 16, .max_sge = 1 } };
	struct ibv_qp_init_attr init = {};
	struct ibv_context *ctx = NULL;
	struct ibv_srq_attr sattr;
	struct ibv_srq *srq;
	struct ibv_qp *qp;
	struct ibv_cq *cq;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	int order[NBUF] = { 3, 4, 5, 0, 1, 2, 6, 7 };
	int got[NBUF], i, ret;
	char what[256];
	uint8_t *buf;

	if (argc != 3) {
		fprintf(stderr, "usage: %s IBDEV GIDX\n", argv[0]);
		return 2;
	}
	ctx = open_device_by_name(argv[1]);
	buf = calloc(1 + NBUF, MSG);
	if (!ctx || !buf) {
		report("create", ENODEV, "cannot open %s", argv[1]);
		return 1;
	}
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 63, NULL, NULL, 0);
	mr = pd ? ibv_reg_mr(pd, buf, (1 + NBUF) * MSG,
			     IBV_ACCESS_LOCAL_WRITE) : NULL;
	srq = pd && cq && mr ? ibv_create_srq(pd, &sinit) : NULL;
	report("create", srq ? 0 : errno ?: EIO, "max_wr %u max_sge %u",
	       sinit.attr.max_wr, sinit.attr.max_sge);
	if (!srq)
		return 1;

	ret = ibv_query_srq(srq, &sattr);
	if (!ret && (sattr.max_wr < 16 || sattr.max_sge < 1 || sattr.srq_limit))
		ret = EPROTO;
	report("query", ret, "max_wr %u max_sge %u srq_limit %u",
	       sattr.max_wr, sattr.max_sge, sattr.srq_limit);

	sattr.max_wr = 32;
	ret = ibv_modify_srq(srq, &sattr, IBV_SRQ_MAX_WR);
	report("resize", ret ? 0 : EPROTO, "%s", ret ? "refused" : "accepted");

	init.send_cq = cq;
	init.recv_cq = cq;
	init.srq = srq;
	init.qp_type = IBV_QPT_RC;
	init.cap.max_send_wr = 8;
	init.cap.max_send_sge = 1;
	qp = ibv_create_qp(pd, &init);
	ret = qp ? rc_connect_self(qp, atoi(argv[2]), 0, 0) : errno ?: EIO;
	report("connect", ret, "QP %#x with the SRQ", qp ? qp->qp_num : 0);
	if (ret)
		return 1;

	sattr.srq_limit = 4;
	ret = ibv_modify_srq(srq, &sattr, IBV_SRQ_LIMIT) ?:
	      ibv_query_srq(srq, &sattr);
	if (!ret && sattr.srq_limit != 4)
		ret = EPROTO;
	report("arm", ret, "srq_limit %u", sattr.srq_limit);

	/* 6 receives, 3 SENDs: 3 WQEs left, under the limit of 4 */
	ret = 0;
	for (i = 0; i < 6 && !ret; i++)
		ret = post_srq(srq, mr, buf, i);
	for (i = 0; i < 3 && !ret; i++)
		ret = send_fill(qp, mr, buf, 0x10 + i) ?:
		      expect_sends(cq, buf, 1, i, 0x10 + i, &got[i], what,
				   sizeof(what));
	report("recv", ret, "%s", ret ? what : "3 sends, 3 receives into 0..2");

	ret = expect_event(ctx, srq, IBV_EVENT_SRQ_LIMIT_REACHED, what,
			   sizeof(what)) ?: ibv_query_srq(srq, &sattr);
	if (!ret && sattr.srq_limit)
		ret = EPROTO;
	report("limit", ret, "%s; srq_limit then %u", what, sattr.srq_limit);

	/*
	 * Buffers 3..5 are posted; repost 0..2 and 6..7, then each buffer
	 * again as soon as its receive completed: SRQ order is posting order
	 */
	ret = post_srq(srq, mr, buf, 0) ?: post_srq(srq, mr, buf, 1) ?:
	      post_srq(srq, mr, buf, 2) ?: post_srq(srq, mr, buf, 6) ?:
	      post_srq(srq, mr, buf, 7);
	for (i = 0; i < ROUNDS && !ret; i++) {
		ret = send_fill(qp, mr, buf, 0x40 + i) ?:
		      expect_sends(cq, buf, 1, order[0], 0x40 + i, &got[0],
				   what, sizeof(what)) ?:
		      post_srq(srq, mr, buf, got[0]);
		/* The reposted buffer goes to the queue's end */
		memmove(order, order + 1, (NBUF - 1) * sizeof(order[0]));
		order[NBUF - 1] = got[0];
	}
	report("cycle", ret, "%s", ret ? what : "200 SENDs through the SRQ");

	ibv_destroy_qp(qp);
	ibv_destroy_srq(srq);
	ibv_dereg_mr(mr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	free(buf);
	return failed;
}
