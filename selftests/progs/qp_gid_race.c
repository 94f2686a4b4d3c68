// SPDX-License-Identifier: GPL-2.0
/*
 * qp_gid_race DEVICE IDX1 IDX2 WAITFILE - what query_qp reports for a QP
 * whose last two address vectors were set by concurrent modify_qp calls.
 *
 * Moves an RC QP to INIT, then, in a thread, to RTR with a global address
 * vector from source GID IDX1; a test has armed vrdma's delay point
 * qp_av, so that call sleeps after the parent's QP was modified and before
 * vrdma records the indices.  Meanwhile the main thread takes the QP
 * through RESET and INIT to RTR again, from IDX2, and the thread's call
 * finishes last: the parent's QP has IDX2's GID, vrdma's record IDX1's.
 * Each address vector's destination is its own source GID and the QP
 * itself (nothing is sent).  Then it queries the QP, waits (at most 60 s)
 * for WAITFILE to exist, so that a test can remove IDX2's address, and
 * queries again.  Prints
 *
 *	set=IDX1,IDX2
 *	query=N
 *	query=N
 *
 * Exit status 0 when it ran, 2 for bad arguments, 1 for a failure (with
 * "error STEP errno=NAME").
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "qp_gid.h"
#include "rc_self.h"
#include "util.h"

struct rtr {
	struct ibv_qp *qp;
	int sgid;
	union ibv_gid gid;
	int ret;
};

static void *to_rtr(void *arg)
{
	struct rtr *r = arg;

	r->ret = rc_self_rtr(r->qp, r->sgid, &r->gid, 0);
	return NULL;
}

int main(int argc, char **argv)
{
	struct rtr first = {}, second = {};
	struct ibv_qp_attr attr;
	struct ibv_context *ctx;
	struct ibv_pd *pd = NULL;
	struct ibv_cq *cq = NULL;
	struct ibv_qp *qp = NULL;
	pthread_t thread;
	int ret;

	if (argc != 5) {
		fprintf(stderr, "usage: %s DEVICE IDX1 IDX2 WAITFILE\n", argv[0]);
		return 2;
	}
	first.sgid = atoi(argv[2]);
	second.sgid = atoi(argv[3]);
	ctx = open_device_by_name(argv[1]);
	if (!ctx)
		return fail("open", errno);
	if (ibv_query_gid(ctx, 1, first.sgid, &first.gid) ||
	    ibv_query_gid(ctx, 1, second.sgid, &second.gid))
		return fail("query_gid", errno);
	if (qp_gid_objects(ctx, &pd, &cq, &qp))
		return 1;
	first.qp = qp;
	second.qp = qp;
	ret = rc_init(qp, 1, 0);
	if (ret)
		return fail("modify_init", ret);

	/* The first RTR sleeps in vrdma, the parent's QP already modified */
	ret = pthread_create(&thread, NULL, to_rtr, &first);
	if (ret)
		return fail("pthread_create", ret);
	sleep(1);
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_RESET;
	ret = ibv_modify_qp(qp, &attr, IBV_QP_STATE);
	if (ret)
		return fail("modify_reset", ret);
	ret = rc_init(qp, 1, 0);
	if (ret)
		return fail("modify_init2", ret);
	to_rtr(&second);
	if (second.ret)
		return fail("modify_rtr2", second.ret);
	pthread_join(thread, NULL);
	if (first.ret)
		return fail("modify_rtr1", first.ret);
	printf("set=%d,%d\n", first.sgid, second.sgid);
	if (print_qp_sgid(qp))
		return 1;

	if (print_qp_sgid_after(qp, argv[4]))
		return 1;
	return qp_gid_done(ctx, pd, cq, qp);
}
