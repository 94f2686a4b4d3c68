/* SPDX-License-Identifier: GPL-2.0 */
/* Polling a CQ with a deadline, for the test programs that use libibverbs */
#ifndef VRDMA_PROGS_VERBS_POLL_H
#define VRDMA_PROGS_VERBS_POLL_H

#include <errno.h>
#include <time.h>
#include <infiniband/verbs.h>

/*
 * One completion from @cq into @wc, polled for up to @timeout_s seconds:
 * 0, EIO when polling failed, ETIMEDOUT.  The completion's status is the
 * caller's to judge (error and flush completions are what some tests want).
 */
static inline int poll_cq_one(struct ibv_cq *cq, struct ibv_wc *wc,
				  int timeout_s)
{
	time_t end = time(NULL) + timeout_s;
	int n;

	do {
		n = ibv_poll_cq(cq, 1, wc);
		if (n)
			return n < 0 ? EIO : 0;
	} while (time(NULL) < end);
	return ETIMEDOUT;
}

#endif /* VRDMA_PROGS_VERBS_POLL_H */
