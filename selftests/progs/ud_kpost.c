// SPDX-License-Identifier: GPL-2.0
/*
 * ud_kpost: post UD send work requests through the kernel.
 *
 * Providers with user-space queues never hand work requests to the kernel;
 * librxe only rings its doorbell with an empty POST_SEND.  Any process may
 * still write() a POST_SEND command carrying work requests, and on a UD QP
 * each one names an address handle by its uverbs handle.  This program does
 * exactly that, with COUNT requests, once while the QP is still in RESET
 * (the parent refuses) and once in RTS, and prints what the kernel answered
 * so that a vdevice can be compared with its parent.
 *
 *   ud_kpost DEVICE GID_INDEX COUNT
 *
 * Output, one line per attempt: "reset: ret=R errno=E bad_wr=B" and
 * "rts: ...".  Exit status 0 when every step up to the posts worked.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "util.h"
#include <rdma/ib_user_verbs.h>

#define QKEY 0x11111111

static int die(const char *what)
{
	fprintf(stderr, "ud_kpost: %s: %s\n", what, strerror(errno));
	return 1;
}

/* write() a POST_SEND with @count UD sends of one SGE each. */
static void post(const char *tag, struct ibv_context *ctx, struct ibv_qp *qp,
		 struct ibv_ah *ah, struct ibv_mr *mr, unsigned int count)
{
	struct ib_uverbs_post_send_resp resp = { .bad_wr = ~0u };
	struct ib_uverbs_post_send *cmd;
	struct ib_uverbs_send_wr *wr;
	struct ib_uverbs_cmd_hdr *hdr;
	struct ib_uverbs_sge *sge;
	size_t len;
	ssize_t ret;
	unsigned int i;
	char *buf;

	len = sizeof(*hdr) + sizeof(*cmd) + count * (sizeof(*wr) + sizeof(*sge));
	buf = calloc(1, len);
	if (!buf) {
		printf("%s: ret=-1 errno=%d bad_wr=-\n", tag, ENOMEM);
		return;
	}
	hdr = (struct ib_uverbs_cmd_hdr *)buf;
	cmd = (struct ib_uverbs_post_send *)(hdr + 1);
	wr = (struct ib_uverbs_send_wr *)(cmd + 1);
	sge = (struct ib_uverbs_sge *)(wr + count);

	hdr->command = IB_USER_VERBS_CMD_POST_SEND;
	hdr->in_words = len / 4;
	hdr->out_words = sizeof(resp) / 4;
	cmd->response = (uintptr_t)&resp;
	cmd->qp_handle = qp->handle;
	cmd->wr_count = count;
	cmd->sge_count = count;
	cmd->wqe_size = sizeof(*wr);
	for (i = 0; i < count; i++) {
		wr[i].wr_id = i;
		wr[i].num_sge = 1;
		wr[i].opcode = IB_UVERBS_WR_SEND;
		wr[i].wr.ud.ah = ah->handle;
		wr[i].wr.ud.remote_qpn = qp->qp_num;
		wr[i].wr.ud.remote_qkey = QKEY;
		sge[i].addr = (uintptr_t)mr->addr;
		sge[i].length = 64;
		sge[i].lkey = mr->lkey;
	}

	errno = 0;
	ret = write(ctx->cmd_fd, buf, len);
	if (ret < 0)
		printf("%s: ret=-1 errno=%d bad_wr=%u\n", tag, errno, resp.bad_wr);
	else
		printf("%s: ret=%zd errno=0 bad_wr=%u\n", tag,
		       ret == (ssize_t)len ? 0 : ret, resp.bad_wr);
	free(buf);
}

int main(int argc, char **argv)
{
	struct ibv_qp_init_attr init = {
		.cap = { .max_send_wr = 256, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_UD,
	};
	struct ibv_qp_attr attr = {};
	struct ibv_ah_attr ah_attr = {};
	struct ibv_context *ctx;
	union ibv_gid gid;
	struct ibv_mr *mr;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_ah *ah;
	unsigned int count;
	int gidx;
	static char payload[4096];

	if (argc != 4) {
		fprintf(stderr, "usage: ud_kpost DEVICE GID_INDEX COUNT\n");
		return 2;
	}
	gidx = atoi(argv[2]);
	count = strtoul(argv[3], NULL, 0);
	if (!count || count > 256) {
		fprintf(stderr, "ud_kpost: COUNT must be 1..256\n");
		return 2;
	}

	ctx = open_device_by_name(argv[1]);
	if (!ctx)
		return die("open device");
	pd = ibv_alloc_pd(ctx);
	if (!pd)
		return die("alloc pd");
	mr = ibv_reg_mr(pd, payload, sizeof(payload), IBV_ACCESS_LOCAL_WRITE);
	if (!mr)
		return die("reg mr");
	cq = ibv_create_cq(ctx, 512, NULL, NULL, 0);
	if (!cq)
		return die("create cq");
	init.send_cq = cq;
	init.recv_cq = cq;
	qp = ibv_create_qp(pd, &init);
	if (!qp)
		return die("create qp");
	if (ibv_query_gid(ctx, 1, gidx, &gid))
		return die("query gid");
	ah_attr.is_global = 1;
	ah_attr.grh.dgid = gid;
	ah_attr.grh.sgid_index = gidx;
	ah_attr.grh.hop_limit = 1;
	ah_attr.port_num = 1;
	ah = ibv_create_ah(pd, &ah_attr);
	if (!ah)
		return die("create ah");

	post("reset", ctx, qp, ah, mr, count);

	attr.qp_state = IBV_QPS_INIT;
	attr.pkey_index = 0;
	attr.port_num = 1;
	attr.qkey = QKEY;
	if (ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_QKEY))
		return die("modify to INIT");
	attr.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &attr, IBV_QP_STATE))
		return die("modify to RTR");
	attr.qp_state = IBV_QPS_RTS;
	attr.sq_psn = 0;
	if (ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_SQ_PSN))
		return die("modify to RTS");

	post("rts", ctx, qp, ah, mr, count);

	/* Let the parent finish the sends before tearing down. */
	usleep(200000);
	if (ibv_destroy_qp(qp) || ibv_destroy_ah(ah) || ibv_destroy_cq(cq) ||
	    ibv_dereg_mr(mr) || ibv_dealloc_pd(pd) || ibv_close_device(ctx))
		return die("teardown");
	return 0;
}
