/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Creating and destroying one verbs object of each type vrdma puts a quota
 * on, for quota_obj and quota_race.  Every function returns 0 or the errno
 * the failing verb left, so that a test can tell EDQUOT from anything else.
 */
#ifndef QUOTA_OBJS_H
#define QUOTA_OBJS_H

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

#include "util.h"

enum qtype { Q_CTX, Q_PD, Q_CQ, Q_QP, Q_SRQ, Q_MR, Q_MW, Q_AH, Q_NTYPES };

static const struct obj_kind qtypes[Q_NTYPES] = {
	[Q_CTX]	= { "ctx",	obj_destroy_ctx },
	[Q_PD]	= { "pd",	obj_destroy_pd },
	[Q_CQ]	= { "cq",	obj_destroy_cq },
	[Q_QP]	= { "qp",	obj_destroy_qp },
	[Q_SRQ]	= { "srq",	obj_destroy_srq },
	[Q_MR]	= { "mr",	obj_destroy_mr },
	[Q_MW]	= { "mw",	obj_destroy_mw },
	[Q_AH]	= { "ah",	obj_destroy_ah },
};

/**
 * struct qbase - a device context and the objects others are made from
 * @dev: the device, for opening more contexts
 * @ctx: the main context
 * @pd: the PD QPs, SRQs, MRs, MWs and AHs are created on (made on demand)
 * @cq: the CQ of every QP (made on demand)
 * @gidx: the GID index AHs use, source and destination
 * @mr_size: bytes per MR buffer
 * @lock: serialises making @pd and @cq
 */
struct qbase {
	struct ibv_device *dev;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	int gidx;
	size_t mr_size;
	pthread_mutex_t lock;
};

/* One object: @p is the verbs object, @buf an MR's memory */
struct qobj {
	enum qtype type;
	void *p;
	void *buf;
};

static inline int qerr(void)
{
	return errno ? errno : EIO;
}

static inline const char *qerrname(int err)
{
	const char *n;

	if (!err)
		return "0";
	n = strerrorname_np(err);
	return n ? n : "unknown";
}

static inline int qtype_parse(const char *s, enum qtype *t)
{
	int i;

	for (i = 0; i < Q_NTYPES; i++) {
		if (!strcmp(s, qtypes[i].name)) {
			*t = i;
			return 0;
		}
	}
	return -1;
}

/* The options every quota program takes: -d DEV, -g GIDX, -s MR_BYTES */
#define QBASE_OPTS "d:g:s:"

/*
 * Take @opt (with @arg) if it is one of QBASE_OPTS: the device's name in
 * @dev, the rest in @b.  Return: 1 if taken, 0 if the caller's own.
 */
static inline int qbase_opt(struct qbase *b, const char **dev, int opt,
			    const char *arg)
{
	switch (opt) {
	case 'd':
		*dev = arg;
		return 1;
	case 'g':
		b->gidx = atoi(arg);
		return 1;
	case 's':
		b->mr_size = strtoull(arg, NULL, 0);
		return 1;
	}
	return 0;
}

/* Open device @name; Return: 0 or an errno. */
static inline int qbase_open(struct qbase *b, const char *name)
{
	struct ibv_device **list;
	int i, n;

	list = ibv_get_device_list(&n);
	if (!list)
		return qerr();
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			break;
	if (i == n) {
		ibv_free_device_list(list);
		return ENODEV;
	}
	b->dev = list[i];	/* the list stays allocated: @dev lives in it */
	b->ctx = ibv_open_device(b->dev);
	if (!b->ctx)
		return qerr();
	pthread_mutex_init(&b->lock, NULL);
	if (!b->mr_size)
		b->mr_size = 4096;
	return 0;
}

/* Make the PD and CQ that objects of type @t need. */
static inline int qbase_need(struct qbase *b, enum qtype t)
{
	int ret = 0;

	if (t == Q_CTX || t == Q_PD || t == Q_CQ)
		return 0;
	pthread_mutex_lock(&b->lock);
	if (!b->pd) {
		errno = 0;
		b->pd = ibv_alloc_pd(b->ctx);
		if (!b->pd)
			ret = qerr();
	}
	if (!ret && t == Q_QP && !b->cq) {
		errno = 0;
		b->cq = ibv_create_cq(b->ctx, 16, NULL, NULL, 0);
		if (!b->cq)
			ret = qerr();
	}
	pthread_mutex_unlock(&b->lock);
	return ret;
}

static inline int qobj_create(struct qbase *b, enum qtype t, struct qobj *o)
{
	int ret;

	memset(o, 0, sizeof(*o));
	o->type = t;
	ret = qbase_need(b, t);
	if (ret)
		return ret;
	errno = 0;
	switch (t) {
	case Q_CTX:
		o->p = ibv_open_device(b->dev);
		break;
	case Q_PD:
		o->p = ibv_alloc_pd(b->ctx);
		break;
	case Q_CQ:
		o->p = ibv_create_cq(b->ctx, 4, NULL, NULL, 0);
		break;
	case Q_QP: {
		struct ibv_qp_init_attr a = {
			.send_cq = b->cq,
			.recv_cq = b->cq,
			.cap = { .max_send_wr = 4, .max_recv_wr = 4,
				 .max_send_sge = 1, .max_recv_sge = 1 },
			.qp_type = IBV_QPT_RC,
		};

		o->p = ibv_create_qp(b->pd, &a);
		break;
	}
	case Q_SRQ: {
		struct ibv_srq_init_attr a = {
			.attr = { .max_wr = 4, .max_sge = 1 },
		};

		o->p = ibv_create_srq(b->pd, &a);
		break;
	}
	case Q_MR:
		if (posix_memalign(&o->buf, 4096, b->mr_size))
			return ENOMEM;
		memset(o->buf, 0, b->mr_size);
		errno = 0;
		o->p = ibv_reg_mr(b->pd, o->buf, b->mr_size,
				  IBV_ACCESS_LOCAL_WRITE);
		if (!o->p) {
			ret = qerr();
			free(o->buf);
			o->buf = NULL;
			return ret;
		}
		break;
	case Q_MW:
		o->p = ibv_alloc_mw(b->pd, IBV_MW_TYPE_1);
		break;
	case Q_AH: {
		struct ibv_ah_attr a = {
			.is_global = 1,
			.port_num = 1,
		};

		if (ibv_query_gid(b->ctx, 1, b->gidx, &a.grh.dgid))
			return qerr();
		a.grh.sgid_index = b->gidx;
		a.grh.hop_limit = 1;
		errno = 0;
		o->p = ibv_create_ah(b->pd, &a);
		break;
	}
	default:
		return EINVAL;
	}
	return o->p ? 0 : qerr();
}

/* Destroy @o; an MR's memory goes with it */
static inline int qobj_destroy(struct qobj *o)
{
	int ret;

	if ((unsigned int)o->type >= Q_NTYPES)
		return EINVAL;
	ret = qtypes[o->type].destroy(o->p);
	if (!ret) {
		o->p = NULL;
		free(o->buf);
		o->buf = NULL;
	}
	return ret;
}

#endif /* QUOTA_OBJS_H */
