/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What qp_gid and qp_gid_race share: both report a failed step the same
 * way and the source GID index query_qp gives back, which the qp_gid test
 * reads the same way for either program.
 */
#ifndef VRDMA_PROGS_QP_GID_H
#define VRDMA_PROGS_QP_GID_H

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/verbs.h>

/* Print "error STEP errno=NAME" for @step failing with @err: exit status 1 */
static inline int fail(const char *step, int err)
{
	printf("error %s errno=%s\n", step, strerrorname_np(err) ?: "?");
	return 1;
}

/*
 * Print "query=N" for the source GID index query_qp reports for @qp, or
 * "query=none" when its address vector is not global: 0, or 1 (from fail())
 * when query_qp fails.
 */
static inline int print_qp_sgid(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;
	int ret;

	memset(&attr, 0, sizeof(attr));
	ret = ibv_query_qp(qp, &attr, IBV_QP_AV | IBV_QP_STATE, &init);
	if (ret)
		return fail("query_qp", ret);
	if (!attr.ah_attr.is_global)
		printf("query=none\n");
	else
		printf("query=%u\n", attr.ah_attr.grh.sgid_index);
	fflush(stdout);
	return 0;
}

/*
 * A PD @pd, a CQ @cq and on them an RC QP @qp of one work request each way,
 * on @ctx: 0, or 1 (from fail()) at the step that failed.
 */
static inline int qp_gid_objects(struct ibv_context *ctx, struct ibv_pd **pd,
				 struct ibv_cq **cq, struct ibv_qp **qp)
{
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	*pd = ibv_alloc_pd(ctx);
	if (!*pd)
		return fail("alloc_pd", errno);
	*cq = ibv_create_cq(ctx, 2, NULL, NULL, 0);
	if (!*cq)
		return fail("create_cq", errno);
	init.send_cq = *cq;
	init.recv_cq = *cq;
	*qp = ibv_create_qp(*pd, &init);
	if (!*qp)
		return fail("create_qp", errno);
	return 0;
}

/* Wait (at most 60 s) for @waitfile to exist, then print_qp_sgid(@qp) */
static inline int print_qp_sgid_after(struct ibv_qp *qp, const char *waitfile)
{
	int i;

	for (i = 0; i < 600 && access(waitfile, F_OK); i++)
		usleep(100000);
	return print_qp_sgid(qp);
}

/* Free what qp_gid_objects() made and close @ctx: exit status 0 */
static inline int qp_gid_done(struct ibv_context *ctx, struct ibv_pd *pd,
			      struct ibv_cq *cq, struct ibv_qp *qp)
{
	ibv_destroy_qp(qp);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return 0;
}

#endif /* VRDMA_PROGS_QP_GID_H */
