// SPDX-License-Identifier: GPL-2.0
/*
 * qp_probe DEVICE [WAITFILE] - what a device grants a tenant's QPs beyond
 * RC: a UD QP, QP creation flags, and a multicast attach.  Prints
 *
 *	ud=RESULT
 *	block_mcast_lb=RESULT source_qpn=RESULT mcast=RESULT
 *
 * where RESULT is "ok", the errno name (EACCES, EOPNOTSUPP, ...), or "-"
 * when the step could not run (no UD QP).  block_mcast_lb and source_qpn
 * create a UD QP with IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK and with
 * IB_QP_CREATE_SOURCE_QPN (as QP 1); mcast attaches the first UD QP to
 * ff0e::db8:1.  The QPs and the attach are raw uverbs write() commands
 * (<rdma/ib_user_verbs.h>), not libibverbs calls: a provider may refuse
 * creation flags in user space (librxe does), and what is tested is what
 * the kernel grants any process that writes the command itself.  With WAITFILE, the program prints the first line, then
 * waits (at most 60 s) for WAITFILE to exist before the rest, so that a
 * test can change the device in between.  Exit status 0 when it ran, 2 for
 * bad arguments, 1 for a setup failure.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "ex_cmd.h"
#include "util.h"
#include <rdma/ib_user_verbs.h>

/* IBV_QP_CREATE_SOURCE_QPN has the kernel's value; uapi names no such flag */

/* Room for any provider's create_qp response (librxe's: 32 bytes) */
#define DRV_OUT_WORDS 16

/*
 * A UD QP on @pd with @flags (and QP number 1 when SOURCE_QPN), by the
 * extended CREATE_QP command.  Return: its handle, or -1 with *err set.
 */
static int ud_qp(struct ibv_context *ctx, struct ibv_pd *pd,
		 struct ibv_cq *cq, unsigned int flags, int *err)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_ex_cmd_hdr ex;
		struct ib_uverbs_ex_create_qp cmd;
	} req = {};
	struct {
		struct ib_uverbs_ex_create_qp_resp resp;
		__u64 drv[DRV_OUT_WORDS];
	} out = {};

	ex_cmd_hdr(&req.hdr, &req.ex, IB_USER_VERBS_EX_CMD_CREATE_QP,
		   sizeof(req.cmd), sizeof(out.resp), &out, 0, DRV_OUT_WORDS);
	req.cmd.pd_handle = pd->handle;
	req.cmd.send_cq_handle = cq->handle;
	req.cmd.recv_cq_handle = cq->handle;
	req.cmd.max_send_wr = 1;
	req.cmd.max_recv_wr = 1;
	req.cmd.max_send_sge = 1;
	req.cmd.max_recv_sge = 1;
	req.cmd.qp_type = IB_UVERBS_QPT_UD;
	req.cmd.create_flags = flags;
	if (flags & IBV_QP_CREATE_SOURCE_QPN)
		req.cmd.source_qpn = 1;
	if (write(ctx->cmd_fd, &req, sizeof(req)) != sizeof(req)) {
		*err = errno;
		return -1;
	}
	*err = 0;
	return out.resp.base.qp_handle;
}

static void destroy_qp(struct ibv_context *ctx, int handle)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_destroy_qp cmd;
	} req = {};
	struct ib_uverbs_destroy_qp_resp resp;

	req.hdr.command = IB_USER_VERBS_CMD_DESTROY_QP;
	req.hdr.in_words = sizeof(req) / 4;
	req.hdr.out_words = sizeof(resp) / 4;
	req.cmd.response = (uintptr_t)&resp;
	req.cmd.qp_handle = handle;
	if (write(ctx->cmd_fd, &req, sizeof(req)) != sizeof(req))
		perror("qp_probe: destroy QP");
}

/* ATTACH_MCAST (or DETACH_MCAST) of QP @handle to @gid: 0 or the errno */
static int mcast(struct ibv_context *ctx, int handle, const union ibv_gid *gid,
		 bool attach)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_attach_mcast cmd;
	} req = {};

	req.hdr.command = attach ? IB_USER_VERBS_CMD_ATTACH_MCAST :
				   IB_USER_VERBS_CMD_DETACH_MCAST;
	req.hdr.in_words = sizeof(req) / 4;
	memcpy(req.cmd.gid, gid->raw, sizeof(req.cmd.gid));
	req.cmd.qp_handle = handle;
	if (write(ctx->cmd_fd, &req, sizeof(req)) != sizeof(req))
		return errno;
	return 0;
}

int main(int argc, char **argv)
{
	union ibv_gid group = { .raw = { 0xff, 0x0e, [12] = 0x0d, 0xb8, 0, 1 } };
	struct ibv_context *ctx;
	int qp, other;
	int ud, lb, sq, mc = -1;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	int i;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: qp_probe DEVICE [WAITFILE]\n");
		return 2;
	}
	ctx = open_device_by_name(argv[1]);
	pd = ctx ? ibv_alloc_pd(ctx) : NULL;
	cq = pd ? ibv_create_cq(ctx, 4, NULL, NULL, 0) : NULL;
	if (!cq) {
		fprintf(stderr, "qp_probe: cannot set up on %s\n", argv[1]);
		return 1;
	}

	qp = ud_qp(ctx, pd, cq, 0, &ud);
	printf("ud=%s\n", verdict(ud));
	fflush(stdout);
	if (argc == 3)
		for (i = 0; i < 600 && access(argv[2], F_OK); i++)
			usleep(100000);

	other = ud_qp(ctx, pd, cq, IB_UVERBS_QP_CREATE_BLOCK_MULTICAST_LOOPBACK, &lb);
	if (other >= 0)
		destroy_qp(ctx, other);
	other = ud_qp(ctx, pd, cq, IBV_QP_CREATE_SOURCE_QPN, &sq);
	if (other >= 0)
		destroy_qp(ctx, other);
	if (qp >= 0) {
		mc = mcast(ctx, qp, &group, true);
		if (!mc)
			mcast(ctx, qp, &group, false);
	}
	printf("block_mcast_lb=%s source_qpn=%s mcast=%s\n", verdict(lb),
	       verdict(sq), mc < 0 ? "-" : verdict(mc));

	if (qp >= 0)
		destroy_qp(ctx, qp);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return 0;
}
