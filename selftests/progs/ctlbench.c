// SPDX-License-Identifier: GPL-2.0
/*
 * ctlbench - time the verbs control path, one operation at a time.
 *
 *   ctlbench [-d DEV] [-g GIDX] [-n ITERS] [-m OBJS] [-o OP]
 *
 * For each operation pair below it runs ITERS rounds, times every round on
 * CLOCK_MONOTONIC and prints one line per operation:
 *
 *   op=NAME n=ITERS median_us=M p10_us=A p90_us=B min_us=C
 *
 *   ctx       ibv_open_device + ibv_close_device
 *   pd        ibv_alloc_pd + ibv_dealloc_pd
 *   cq        ibv_create_cq (depth 64) + ibv_destroy_cq
 *   qp        ibv_create_qp (RC) + INIT + RTR + RTS (looped back to itself
 *             through GID GIDX) + ibv_destroy_qp
 *   mr_4k     ibv_reg_mr + ibv_dereg_mr of 4 KiB
 *   mr_1m     the same for 1 MiB
 *   db        one send doorbell on an RTS QP, as librxe rings it: the
 *             write() every ibv_post_send() costs on rxe, the only system
 *             call of its data path
 *
 * -o OP runs only that operation (for profiling one of them with perf).
 *
 * A round is "create + destroy", because each half alone cannot be repeated
 * without the other; the same pair on a native device and on a vdevice gives
 * the ratio the benchmark reports.  The median of one run is what the
 * benchmark takes; it repeats runs to see the spread between them.
 *
 * With -m OBJS it also measures kernel memory per object: it reads Slab,
 * VmallocUsed and Percpu from /proc/meminfo, creates OBJS objects of each
 * kind and holds them, reads again and prints
 *
 *   mem=NAME n=OBJS bytes_per_obj=B
 *
 * (global counters: run it on an otherwise idle machine, as the benchmark
 * does; the native figure is the baseline the vdevice one is compared to).
 * Exit status 0 only if every operation succeeded.
 */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>

#include "rc_self.h"
#include "util.h"

static const char *dev_name;
static int gid_index = 1;
static int iters = 200;
static int mem_objs;
static const char *only_op;

static struct ibv_device *dev;
static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static union ibv_gid gid;
static uint8_t port = 1;
static enum ibv_mtu mtu = IBV_MTU_1024;

static void die(const char *what)
{
	fprintf(stderr, "ctlbench: %s: %s\n", what, strerror(errno));
	exit(1);
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Nearest-rank percentile of a sorted array. */
static double pct(const double *v, int n, double p)
{
	int i = (int)(p / 100.0 * (n - 1) + 0.5);

	return v[i < 0 ? 0 : (i >= n ? n - 1 : i)];
}

static void report(const char *name, double *t, int n)
{
	qsort(t, n, sizeof(*t), cmp_double);
	printf("op=%s n=%d median_us=%.2f p10_us=%.2f p90_us=%.2f min_us=%.2f\n",
	       name, n, pct(t, n, 50), pct(t, n, 10), pct(t, n, 90), t[0]);
	fflush(stdout);
}

/* @obj, just made by @verb: NULL ends the run */
static void *made(void *obj, const char *verb)
{
	if (!obj)
		die(verb);
	return obj;
}

static void round_ctx(void)
{
	if (ibv_close_device(made(ibv_open_device(dev), "ibv_open_device")))
		die("ibv_close_device");
}

static void round_pd(void)
{
	if (ibv_dealloc_pd(made(ibv_alloc_pd(ctx), "ibv_alloc_pd")))
		die("ibv_dealloc_pd");
}

static struct ibv_cq *make_cq(void)
{
	struct ibv_cq *c = ibv_create_cq(ctx, 64, NULL, NULL, 0);

	if (!c)
		die("ibv_create_cq");
	return c;
}

static void round_cq(void)
{
	if (ibv_destroy_cq(make_cq()))
		die("ibv_destroy_cq");
}

/* An RC QP brought to RTS, connected to itself. */
static struct ibv_qp *make_qp(int connect)
{
	struct ibv_qp_init_attr init = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct rc_path p = {
		.port = port, .mtu = mtu, .dgid = gid, .sgidx = gid_index,
		.rq_psn = 1, .rd_atomic = 1, .min_rnr_timer = 12,
		.hop_limit = 1,
	};
	struct ibv_qp *q = ibv_create_qp(pd, &init);

	if (!q)
		die("ibv_create_qp");
	if (!connect)
		return q;

	if (rc_init(q, port, IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ))
		die("modify to INIT");
	p.dqpn = q->qp_num;
	if (rc_rtr(q, &p))
		die("modify to RTR");
	if (rc_rts(q, 1, 1))
		die("modify to RTS");
	return q;
}

static void round_qp(void)
{
	if (ibv_destroy_qp(make_qp(1)))
		die("ibv_destroy_qp");
}

static char *mr_buf;

static struct ibv_mr *make_mr(size_t len)
{
	struct ibv_mr *m = ibv_reg_mr(pd, mr_buf, len, IBV_ACCESS_LOCAL_WRITE |
				      IBV_ACCESS_REMOTE_WRITE |
				      IBV_ACCESS_REMOTE_READ);

	if (!m)
		die("ibv_reg_mr");
	return m;
}

static void round_mr_4k(void)
{
	if (ibv_dereg_mr(make_mr(4096)))
		die("ibv_dereg_mr");
}

static void round_mr_1m(void)
{
	if (ibv_dereg_mr(make_mr(1 << 20)))
		die("ibv_dereg_mr");
}

static struct ibv_qp *db_qp;

/*
 * What librxe's post_send_db() writes after queueing work requests itself:
 * a POST_SEND of no work request.  ibv_post_send() cannot be used, it
 * refuses an empty list.
 */
static void round_db(void)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_post_send cmd;
	} req = {
		.hdr.command = IB_USER_VERBS_CMD_POST_SEND,
		.hdr.in_words = sizeof(req) / 4,
	};
	struct ib_uverbs_post_send_resp resp;

	req.hdr.out_words = sizeof(resp) / 4;
	req.cmd.response = (uintptr_t)&resp;
	req.cmd.qp_handle = db_qp->handle;
	/* Checked even when there is no request */
	req.cmd.wqe_size = sizeof(struct ib_uverbs_send_wr);
	if (write(ctx->cmd_fd, &req, sizeof(req)) != sizeof(req))
		die("POST_SEND doorbell");
}

static void time_op(const char *name, void (*round)(void), double *t)
{
	int i;

	if (only_op && strcmp(only_op, name))
		return;
	/* Two untimed rounds: first-touch faults are not the control path. */
	round();
	round();
	for (i = 0; i < iters; i++) {
		double t0 = now_us();

		round();
		t[i] = now_us() - t0;
	}
	report(name, t, iters);
}

/* Kernel memory the counters below track, in bytes. */
static long long kmem_bytes(void)
{
	static const char * const keys[] = { "Slab:", "VmallocUsed:", "Percpu:" };
	char line[256];
	long long sum = 0, kb;
	unsigned int k;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		die("/proc/meminfo");
	while (fgets(line, sizeof(line), f)) {
		for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
			size_t l = strlen(keys[k]);

			if (!strncmp(line, keys[k], l) &&
			    sscanf(line + l, "%lld", &kb) == 1)
				sum += kb * 1024;
		}
	}
	fclose(f);
	return sum;
}

/* The kinds -m measures */
enum { M_PD, M_CQ, M_QP, M_MR, NR_MEM_KINDS };

static const struct obj_kind mem_kinds[NR_MEM_KINDS] = {
	[M_PD]	= { "pd",	obj_destroy_pd },
	[M_CQ]	= { "cq",	obj_destroy_cq },
	[M_QP]	= { "qp",	obj_destroy_qp },
	[M_MR]	= { "mr",	obj_destroy_mr },
};

static void mem_one(int kind)
{
	void **objs = calloc(mem_objs, sizeof(*objs));
	long long before, after;
	int i;

	if (!objs)
		die("calloc");
	/* Let deferred frees from the previous kind settle. */
	usleep(200000);
	before = kmem_bytes();
	for (i = 0; i < mem_objs; i++) {
		switch (kind) {
		case M_PD:
			objs[i] = made(ibv_alloc_pd(ctx), "ibv_alloc_pd");
			break;
		case M_CQ:
			objs[i] = make_cq();
			break;
		case M_QP:
			objs[i] = make_qp(0);
			break;
		case M_MR:
			objs[i] = make_mr(4096);
			break;
		}
	}
	after = kmem_bytes();
	printf("mem=%s n=%d bytes_per_obj=%lld\n", mem_kinds[kind].name, mem_objs,
	       (after - before) / mem_objs);
	fflush(stdout);
	for (i = mem_objs - 1; i >= 0; i--) {
		int ret = mem_kinds[kind].destroy(objs[i]);

		if (ret) {
			errno = ret;
			die("destroy");
		}
	}
	free(objs);
}

static void usage(void)
{
	fprintf(stderr, "usage: ctlbench [-d DEV] [-g GIDX] [-n ITERS] [-m OBJS] [-o OP]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct ibv_device **list;
	struct ibv_port_attr pattr;
	double *t;
	int opt, i, num;

	while ((opt = getopt(argc, argv, "d:g:n:m:o:h")) != -1) {
		switch (opt) {
		case 'd':
			dev_name = optarg;
			break;
		case 'g':
			gid_index = atoi(optarg);
			break;
		case 'n':
			iters = atoi(optarg);
			break;
		case 'm':
			mem_objs = atoi(optarg);
			break;
		case 'o':
			only_op = optarg;
			break;
		default:
			usage();
		}
	}
	if (optind != argc || iters < 1 || mem_objs < 0)
		usage();
	if (only_op) {
		char word[32];

		snprintf(word, sizeof(word), " %s ", only_op);
		if (!strstr(" ctx pd cq qp mr_4k mr_1m db ", word))
			usage();
	}

	list = ibv_get_device_list(&num);
	if (!list)
		die("ibv_get_device_list");
	for (i = 0; i < num && !dev; i++)
		if (!dev_name || !strcmp(ibv_get_device_name(list[i]), dev_name))
			dev = list[i];
	if (!dev) {
		fprintf(stderr, "ctlbench: no device %s\n", dev_name ? dev_name : "");
		return 1;
	}

	ctx = made(ibv_open_device(dev), "ibv_open_device");
	pd = made(ibv_alloc_pd(ctx), "ibv_alloc_pd");
	cq = make_cq();
	if (ibv_query_port(ctx, port, &pattr))
		die("ibv_query_port");
	mtu = pattr.active_mtu;
	if (ibv_query_gid(ctx, port, gid_index, &gid))
		die("ibv_query_gid");
	mr_buf = aligned_alloc(4096, 1 << 20);
	t = calloc(iters, sizeof(*t));
	if (!mr_buf || !t)
		die("alloc");
	memset(mr_buf, 0, 1 << 20);

	printf("device=%s iters=%d\n", ibv_get_device_name(dev), iters);
	time_op("ctx", round_ctx, t);
	time_op("pd", round_pd, t);
	time_op("cq", round_cq, t);
	time_op("qp", round_qp, t);
	time_op("mr_4k", round_mr_4k, t);
	time_op("mr_1m", round_mr_1m, t);
	if (!only_op || !strcmp(only_op, "db")) {
		db_qp = make_qp(1);
		time_op("db", round_db, t);
		if (ibv_destroy_qp(db_qp))
			die("ibv_destroy_qp");
	}

	for (i = 0; mem_objs && i < NR_MEM_KINDS; i++)
		mem_one(i);

	free(t);
	free(mr_buf);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	return 0;
}
