// SPDX-License-Identifier: GPL-2.0
/*
 * ud_sgid DEVICE SGID_INDEX DST [WAITFILE] - one UD send from a named
 * source GID index.
 *
 * Creates a UD QP on port 1 of DEVICE and an AH from GID SGID_INDEX to the
 * IPv4-mapped GID of address DST (RoCE v2), posts one 64-byte SEND to QP 1
 * of DST and waits for its completion.  What the packet carries as its
 * source address is for the caller to capture.  Prints
 *
 *	qp=RESULT
 *	send=RESULT
 *
 * RESULT being "ok" or the errno name (send: the completion status), "-"
 * when the step could not run.  With WAITFILE, the QP is made, "qp=" is
 * printed, and the send waits (at most 60 s) for WAITFILE to exist.  Exit
 * status 0 when it ran, 2 for bad arguments, 1 for a setup failure.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "util.h"

static const char *errname(int err)
{
	switch (err) {
	case 0: return "ok";
	case EACCES: return "EACCES";
	case EBUSY: return "EBUSY";
	case EINVAL: return "EINVAL";
	case ENOENT: return "ENOENT";
	case EPERM: return "EPERM";
	}
	return "error";
}

static int wait_file(const char *path)
{
	int i;

	for (i = 0; i < 600; i++) {
		if (!access(path, F_OK))
			return 0;
		usleep(100000);
	}
	return -1;
}

int main(int argc, char **argv)
{
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_ah_attr av = { .is_global = 1, .port_num = 1 };
	struct ibv_qp_attr attr;
	struct ibv_send_wr wr, *bad;
	struct ibv_context *ctx;
	struct ibv_sge sge;
	struct ibv_wc wc;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	struct ibv_ah *ah;
	static char buf[64];
	char *end;
	long idx;
	int n, i;

	if (argc != 4 && argc != 5)
		goto usage;
	idx = strtol(argv[2], &end, 10);
	if (end == argv[2] || *end || idx < 0 || idx > 0xffff)
		goto usage;
	av.grh.dgid.raw[10] = 0xff;
	av.grh.dgid.raw[11] = 0xff;
	if (inet_pton(AF_INET, argv[3], av.grh.dgid.raw + 12) != 1)
		goto usage;
	av.grh.sgid_index = (uint8_t)idx;
	av.grh.hop_limit = 64;

	ctx = open_device_by_name(argv[1]);
	if (!ctx) {
		perror(argv[1]);
		return 1;
	}
	pd = ibv_alloc_pd(ctx);
	cq = pd ? ibv_create_cq(ctx, 2, NULL, NULL, 0) : NULL;
	mr = cq ? ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE) : NULL;
	if (!mr) {
		perror("ud_sgid: setup");
		return 1;
	}
	init.send_cq = cq;
	init.recv_cq = cq;
	qp = ibv_create_qp(pd, &init);
	printf("qp=%s\n", qp ? "ok" : errname(errno));
	fflush(stdout);
	if (!qp) {
		printf("send=-\n");
		return 0;
	}
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_INIT;
	attr.port_num = 1;
	attr.qkey = 0x11111111;
	if (ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_QKEY)) {
		perror("ud_sgid: INIT");
		return 1;
	}
	attr.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &attr, IBV_QP_STATE)) {
		perror("ud_sgid: RTR");
		return 1;
	}
	attr.qp_state = IBV_QPS_RTS;
	attr.sq_psn = 0;
	if (ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_SQ_PSN)) {
		perror("ud_sgid: RTS");
		return 1;
	}
	if (argc == 5 && wait_file(argv[4])) {
		fprintf(stderr, "ud_sgid: %s did not appear\n", argv[4]);
		return 1;
	}
	ah = ibv_create_ah(pd, &av);
	if (!ah) {
		printf("send=%s\n", errname(errno));
		return 0;
	}
	sge = (struct ibv_sge){ .addr = (uintptr_t)buf, .length = sizeof(buf),
				.lkey = mr->lkey };
	memset(&wr, 0, sizeof(wr));
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = 1;
	wr.wr.ud.remote_qkey = 0x80010000;
	if (ibv_post_send(qp, &wr, &bad)) {
		printf("send=%s\n", errname(errno));
		return 0;
	}
	for (i = 0, n = 0; i < 5000 && !n; i++) {
		n = ibv_poll_cq(cq, 1, &wc);
		if (!n)
			usleep(1000);
	}
	if (n == 1 && wc.status == IBV_WC_SUCCESS)
		printf("send=ok\n");
	else
		printf("send=%s\n", n == 1 ? ibv_wc_status_str(wc.status) : "-");
	ibv_destroy_ah(ah);
	ibv_destroy_qp(qp);
	ibv_dereg_mr(mr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return 0;

usage:
	fprintf(stderr, "usage: ud_sgid DEVICE SGID_INDEX DST_IPV4 [WAITFILE]\n");
	return 2;
}
