// SPDX-License-Identifier: GPL-2.0
/*
 * qp_gid DEVICE SGID_INDEX [WAITFILE] - which source GID index a device's
 * query_qp reports for an RC QP connected from SGID_INDEX.
 *
 * Creates an RC QP, moves it to RTR with a global address vector whose
 * source is SGID_INDEX (and whose destination is that same GID and the QP
 * itself: nothing is sent), then queries it.  With WAITFILE, it prints the
 * first answer, then waits (at most 60 s) for WAITFILE to exist and
 * queries again, so that a test can change the GID table in between.
 * Prints
 *
 *	set=N
 *	query=N			(once, or twice with WAITFILE)
 *
 * Exit status 0 when it ran, 2 for bad arguments, 1 for a failure (with
 * "error STEP errno=NAME").
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "qp_gid.h"
#include "rc_self.h"
#include "util.h"

int main(int argc, char **argv)
{
	struct ibv_context *ctx;
	struct ibv_pd *pd = NULL;
	struct ibv_cq *cq = NULL;
	struct ibv_qp *qp = NULL;
	union ibv_gid gid;
	int sgid, ret;

	if (argc < 3) {
		fprintf(stderr, "usage: %s DEVICE SGID_INDEX [WAITFILE]\n",
			argv[0]);
		return 2;
	}
	sgid = atoi(argv[2]);
	ctx = open_device_by_name(argv[1]);
	if (!ctx)
		return fail("open", errno);
	if (ibv_query_gid(ctx, 1, sgid, &gid))
		return fail("query_gid", errno);
	if (qp_gid_objects(ctx, &pd, &cq, &qp))
		return 1;

	ret = rc_init(qp, 1, 0);
	if (ret)
		return fail("modify_init", ret);
	ret = rc_self_rtr(qp, sgid, &gid, 0);
	if (ret)
		return fail("modify_rtr", ret);
	printf("set=%d\n", sgid);
	if (print_qp_sgid(qp))
		return 1;

	if (argc > 3 && print_qp_sgid_after(qp, argv[3]))
		return 1;
	return qp_gid_done(ctx, pd, cq, qp);
}
