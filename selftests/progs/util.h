/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers shared by the guest's test programs. */
#ifndef VRDMA_PROGS_UTIL_H
#define VRDMA_PROGS_UTIL_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <infiniband/verbs.h>

/* Open the RDMA device called @name: NULL, with errno set, if there is none. */
static inline struct ibv_context *open_device_by_name(const char *name)
{
	struct ibv_context *ctx = NULL;
	struct ibv_device **list;
	int i, n;

	list = ibv_get_device_list(&n);
	if (!list)
		return NULL;
	for (i = 0; i < n && !ctx; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!ctx && !errno)
		errno = ENODEV;
	return ctx;
}

/*
 * A PD, a CQ of @cqe entries and a QP of @init on them, on @ctx (@init's
 * CQs are set here): the QP, or NULL with errno as the step that failed
 * left it.
 */
static inline struct ibv_qp *qp_with_pd_cq(struct ibv_context *ctx, int cqe,
					   struct ibv_qp_init_attr *init,
					   struct ibv_pd **pd,
					   struct ibv_cq **cq)
{
	*pd = ibv_alloc_pd(ctx);
	*cq = *pd ? ibv_create_cq(ctx, cqe, NULL, NULL, 0) : NULL;
	if (!*cq)
		return NULL;
	init->send_cq = *cq;
	init->recv_cq = *cq;
	return ibv_create_qp(*pd, init);
}

/*
 * A kind of verbs object and its destroy verb, called with the object as a
 * void pointer.  A table of these, indexed by kind, lets a program destroy
 * what it made without a case per kind.  The verbs themselves take their
 * own object types, so each is called through a wrapper of the table's
 * type (OBJ_DESTROY), never through a cast function pointer.
 */
typedef int (*destroy_fn)(void *obj);

#define OBJ_DESTROY(name, type, verb)				\
	static inline int obj_destroy_##name(void *obj)		\
	{							\
		return verb((type *)obj);			\
	}

OBJ_DESTROY(ctx, struct ibv_context, ibv_close_device)
OBJ_DESTROY(pd, struct ibv_pd, ibv_dealloc_pd)
OBJ_DESTROY(cq, struct ibv_cq, ibv_destroy_cq)
OBJ_DESTROY(qp, struct ibv_qp, ibv_destroy_qp)
OBJ_DESTROY(srq, struct ibv_srq, ibv_destroy_srq)
OBJ_DESTROY(mr, struct ibv_mr, ibv_dereg_mr)
OBJ_DESTROY(mw, struct ibv_mw, ibv_dealloc_mw)
OBJ_DESTROY(ah, struct ibv_ah, ibv_destroy_ah)

struct obj_kind {
	const char *name;
	destroy_fn destroy;
};

/* "ok", or the name of @err ("EPERM"): the verdicts the tests compare */
static inline const char *verdict(int err)
{
	return err ? strerrorname_np(err) ?: "?" : "ok";
}

/* Print one line, at once: a test reads it while the program runs on */
static inline void __attribute__((format(printf, 1, 2)))
say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

#endif /* VRDMA_PROGS_UTIL_H */
