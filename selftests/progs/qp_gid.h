/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What qp_gid and qp_gid_race print: both report a failed step the same
 * way and the source GID index query_qp gives back, which the qp_gid test
 * reads the same way for either program.
 */
#ifndef VRDMA_PROGS_QP_GID_H
#define VRDMA_PROGS_QP_GID_H

#include <stdio.h>
#include <string.h>
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

#endif /* VRDMA_PROGS_QP_GID_H */
