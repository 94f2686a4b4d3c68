// SPDX-License-Identifier: GPL-2.0
/*
 * quota_obj - hold verbs objects on a device, driven line by line from
 * stdin, so that a test can fill a quota, look at it from outside, change
 * it and try again.
 *
 *   quota_obj -d DEV [-g GIDX] [-s MR_BYTES]
 *
 * Prints "ready" once the device is open, then one reply line per command:
 *
 *   alloc TYPE N   create up to N objects of TYPE (ctx pd cq qp srq mr mw
 *                  ah), stopping at the first failure
 *                  -> "alloc ok=K err=ERRNAME" (err=0: all N made)
 *   free TYPE N    destroy the N newest objects of TYPE
 *                  -> "free ok=K err=ERRNAME"
 *   use            exercise every object held: query and move each QP from
 *                  RESET to INIT, poll each CQ, query each SRQ and context
 *                  -> "use ok" or "use fail=TYPE err=ERRNAME"
 *   query          the device's max_* as three paths report them: the
 *                  library's ibv_query_device, ibv_query_device_ex, and the
 *                  legacy QUERY_DEVICE command written to the command fd
 *                  -> "query legacy|ex|raw max_pd=N ... max_mr_size=N"
 *   quit           destroy everything, close the device and exit
 *                  -> "quit ok" or "quit err=ERRNAME"
 *
 * End of input exits without destroying anything: the kernel must clean
 * up after the process.  QPs, SRQs, MRs, MWs and AHs share one PD, and QPs
 * one CQ, made when first needed and counted like any other object.
 */
#include <getopt.h>
#include <unistd.h>
#include <rdma/ib_user_verbs.h>

#include "quota_objs.h"

#define MAX_OBJS 4096

static struct qbase base;
static struct qobj objs[Q_NTYPES][MAX_OBJS];
static int nobjs[Q_NTYPES];

static void cmd_alloc(enum qtype t, int n)
{
	int ok = 0, err = 0;

	while (ok < n && nobjs[t] < MAX_OBJS) {
		err = qobj_create(&base, t, &objs[t][nobjs[t]]);
		if (err)
			break;
		nobjs[t]++;
		ok++;
	}
	printf("alloc ok=%d err=%s\n", ok, qerrname(err));
}

static void cmd_free(enum qtype t, int n)
{
	int ok = 0, err = 0;

	while (ok < n && nobjs[t] > 0) {
		err = qobj_destroy(&objs[t][nobjs[t] - 1]);
		if (err)
			break;
		nobjs[t]--;
		ok++;
	}
	printf("free ok=%d err=%s\n", ok, qerrname(err));
}

static int use_qp(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &init))
		return qerr();
	if (a.qp_state != IBV_QPS_RESET)
		return 0;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE;
	errno = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			      IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	return errno;
}

static void cmd_use(void)
{
	struct ibv_device_attr da;
	struct ibv_srq_attr sa;
	struct ibv_wc wc;
	int i, err = 0;
	enum qtype t = Q_CTX;

	for (i = 0; !err && i < nobjs[Q_CTX]; i++)
		err = ibv_query_device(objs[Q_CTX][i].p, &da);
	for (t = Q_CQ, i = 0; !err && i < nobjs[Q_CQ]; i++)
		err = ibv_poll_cq(objs[Q_CQ][i].p, 1, &wc) < 0 ? EIO : 0;
	for (t = Q_QP, i = 0; !err && i < nobjs[Q_QP]; i++)
		err = use_qp(objs[Q_QP][i].p);
	for (t = Q_SRQ, i = 0; !err && i < nobjs[Q_SRQ]; i++)
		err = ibv_query_srq(objs[Q_SRQ][i].p, &sa);
	if (err)
		printf("use fail=%s err=%s\n", qtypes[t].name, qerrname(err));
	else
		printf("use ok\n");
}

static void print_caps(const char *path, uint64_t pd, uint64_t cq,
		       uint64_t qp, uint64_t srq, uint64_t mr, uint64_t mw,
		       uint64_t ah, uint64_t mr_size)
{
	printf("query %s max_pd=%llu max_cq=%llu max_qp=%llu max_srq=%llu",
	       path, (unsigned long long)pd, (unsigned long long)cq,
	       (unsigned long long)qp, (unsigned long long)srq);
	printf(" max_mr=%llu max_mw=%llu max_ah=%llu max_mr_size=%llu\n",
	       (unsigned long long)mr, (unsigned long long)mw,
	       (unsigned long long)ah, (unsigned long long)mr_size);
}

/* The legacy write() command, answered by the kernel from its cache. */
static int query_raw(struct ib_uverbs_query_device_resp *resp)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_query_device cmd;
	} req;

	memset(&req, 0, sizeof(req));
	memset(resp, 0, sizeof(*resp));
	req.hdr.command = IB_USER_VERBS_CMD_QUERY_DEVICE;
	req.hdr.in_words = sizeof(req) / 4;
	req.hdr.out_words = sizeof(*resp) / 4;
	req.cmd.response = (uintptr_t)resp;
	if (write(base.ctx->cmd_fd, &req, sizeof(req)) != sizeof(req))
		return qerr();
	return 0;
}

static void cmd_query(void)
{
	struct ib_uverbs_query_device_resp r;
	struct ibv_device_attr_ex x;
	struct ibv_device_attr a;
	int err;

	err = ibv_query_device(base.ctx, &a);
	if (err)
		printf("query legacy err=%s\n", qerrname(err));
	else
		print_caps("legacy", a.max_pd, a.max_cq, a.max_qp, a.max_srq,
			   a.max_mr, a.max_mw, a.max_ah, a.max_mr_size);

	err = ibv_query_device_ex(base.ctx, NULL, &x);
	if (err)
		printf("query ex err=%s\n", qerrname(err));
	else
		print_caps("ex", x.orig_attr.max_pd, x.orig_attr.max_cq,
			   x.orig_attr.max_qp, x.orig_attr.max_srq,
			   x.orig_attr.max_mr, x.orig_attr.max_mw,
			   x.orig_attr.max_ah, x.orig_attr.max_mr_size);

	err = query_raw(&r);
	if (err)
		printf("query raw err=%s\n", qerrname(err));
	else
		print_caps("raw", r.max_pd, r.max_cq, r.max_qp, r.max_srq,
			   r.max_mr, r.max_mw, r.max_ah, r.max_mr_size);
}

static int destroy_all(void)
{
	/* Dependents first: QPs before their CQ, everything before the PD */
	static const enum qtype order[] = {
		Q_QP, Q_SRQ, Q_MR, Q_MW, Q_AH, Q_CQ, Q_PD, Q_CTX,
	};
	unsigned int i;
	int err;

	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		enum qtype t = order[i];

		while (nobjs[t] > 0) {
			err = qobj_destroy(&objs[t][nobjs[t] - 1]);
			if (err)
				return err;
			nobjs[t]--;
		}
	}
	if (base.cq) {
		err = ibv_destroy_cq(base.cq);
		if (err)
			return err;
	}
	if (base.pd) {
		err = ibv_dealloc_pd(base.pd);
		if (err)
			return err;
	}
	return ibv_close_device(base.ctx) ? qerr() : 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: quota_obj -d DEV [-g GIDX] [-s MR_BYTES]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *dev = NULL;
	char line[256], cmd[16], type[16];
	enum qtype t;
	int opt, n, err;

	while ((opt = getopt(argc, argv, QBASE_OPTS)) != -1)
		if (!qbase_opt(&base, &dev, opt, optarg))
			usage();
	if (!dev)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);

	err = qbase_open(&base, dev);
	if (err) {
		printf("error open err=%s\n", qerrname(err));
		return 1;
	}
	printf("ready\n");

	while (fgets(line, sizeof(line), stdin)) {
		n = sscanf(line, "%15s %15s %d", cmd, type, &err);
		if (n < 1)
			continue;
		if (n == 3 && !qtype_parse(type, &t) &&
		    (!strcmp(cmd, "alloc") || !strcmp(cmd, "free"))) {
			if (cmd[0] == 'a')
				cmd_alloc(t, err);
			else
				cmd_free(t, err);
		} else if (!strcmp(cmd, "use")) {
			cmd_use();
		} else if (!strcmp(cmd, "query")) {
			cmd_query();
		} else if (!strcmp(cmd, "quit")) {
			err = destroy_all();
			if (err)
				printf("quit err=%s\n", qerrname(err));
			else
				printf("quit ok\n");
			return err ? 1 : 0;
		} else {
			printf("error bad command: %s", line);
		}
	}
	/* EOF: leave everything to the kernel */
	return 0;
}
