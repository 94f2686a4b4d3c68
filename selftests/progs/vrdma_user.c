// SPDX-License-Identifier: GPL-2.0
/*
 * vrdma_user: a verbs user for the lifecycle selftests.  It opens a device,
 * creates objects (the provider maps their queues), optionally runs traffic,
 * and reports on stdout, one line per fact, what happens to it when the
 * device goes away under it.
 *
 *   vrdma_user -d DEV [-g GIDX] [-t SECS] [-H [-F]] MODE
 *
 * MODE:
 *   idle     open a context and a PD only (no queue mapping), wait for
 *            IBV_EVENT_DEVICE_FATAL
 *   traffic  PD, CQ, MR and an RC QP connected to itself (its queues are
 *            mapped), RDMA writes in a loop until IBV_EVENT_DEVICE_FATAL
 *   objects  create a PD, CQ, QP, SRQ, MR, MW and AH in turn, report each,
 *            destroy them; exit 1 if one failed (fault injection)
 *
 * Lines: "ready" once set up (and, for traffic, once writes complete),
 * "event NAME" per async event, then after the fatal event "verb
 * alloc_pd errno=N", "verb post_send ret=N", "verb poll_cq ret=N" (the
 * last two touch the old queue mappings), "done".  With -H the process
 * then keeps its objects and mappings until it is killed; on every SIGUSR1
 * it touches the mappings again ("touch post_send ret=N", "touch poll_cq
 * ret=N"), forks a child that touches them too, then splits each of them
 * that spans several pages by unmapping its last page, and exits ("fork
 * child poll_cq ret=N", "fork child split N", "fork child status=N": fork
 * copies the mappings, a split makes a new VMA of the rest) and says
 * "touched".  With -F it also forks a child once "ready", which
 * inherits the mappings, says "child pid N", and on every SIGUSR1 (the
 * parent passes its own on) reads them ("child touch poll_cq ret=N",
 * "child touched"); it dies with the parent.  Exit status: 0 after the
 * fatal event was seen, 2 when none came within -t seconds (default 120),
 * 1 on a setup error.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <infiniband/verbs.h>

#include "rc_self.h"
#include "util.h"

#define BUF_SIZE 4096

static struct {
	const char *dev;
	int gidx;
	int timeout;
	bool hold;
	bool fork_child;
} opt = { .gidx = 1, .timeout = 120 };

/* Set by SIGUSR1: touch the mappings again (-H). */
static volatile sig_atomic_t touch_req;

struct res {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_srq *srq;
	struct ibv_mr *mr;
	struct ibv_mw *mw;
	struct ibv_ah *ah;
	char *buf;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static struct ibv_context *open_dev(const char *name)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	int i, n;

	list = ibv_get_device_list(&n);
	if (!list) {
		say("error ibv_get_device_list errno=%d", errno);
		return NULL;
	}
	for (i = 0; i < n; i++) {
		if (strcmp(ibv_get_device_name(list[i]), name))
			continue;
		ctx = ibv_open_device(list[i]);
		if (!ctx)
			say("create ucontext failed errno=%d", errno);
		break;
	}
	if (i == n)
		say("error no device %s", name);
	ibv_free_device_list(list);
	return ctx;
}

/*
 * Drain async events until the fatal one or the deadline; true if the
 * fatal event was seen.
 */
static bool wait_fatal(struct ibv_context *ctx, double deadline,
		       bool (*work)(struct res *r), struct res *r)
{
	struct ibv_async_event ev;
	struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };
	bool fatal = false;

	while (!fatal && now() < deadline) {
		if (poll(&pfd, 1, work ? 0 : 100) > 0) {
			if (ibv_get_async_event(ctx, &ev))
				break;
			fatal = ev.event_type == IBV_EVENT_DEVICE_FATAL;
			if (fatal)
				say("event DEVICE_FATAL");
			else
				say("event %s",
				    ibv_event_type_str(ev.event_type));
			ibv_ack_async_event(&ev);
			continue;
		}
		if (work && !work(r))
			work = NULL;	/* the device is failing: just wait */
	}
	return fatal;
}

static int connect_self(struct res *r)
{
	return rc_connect_self(r->qp, opt.gidx, IBV_ACCESS_REMOTE_WRITE |
			       IBV_ACCESS_LOCAL_WRITE, 1);
}

static int post_write(struct res *r)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)r->buf,
		.length = BUF_SIZE / 2,
		.lkey = r->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma.remote_addr = (uintptr_t)r->buf + BUF_SIZE / 2,
		.wr.rdma.rkey = r->mr->rkey,
	}, *bad;

	return ibv_post_send(r->qp, &wr, &bad);
}

/* One RDMA write, waited for; false once the device fails us. */
static bool one_write(struct res *r)
{
	struct ibv_wc wc;
	double deadline = now() + 10;
	int n;

	if (post_write(r))
		return false;
	while ((n = ibv_poll_cq(r->cq, 1, &wc)) == 0 && now() < deadline)
		;
	return n == 1 && wc.status == IBV_WC_SUCCESS;
}

static int setup_traffic(struct res *r)
{
	/* Larger than a page: its mapping can be split (fork_touch()). */
	r->cq = ibv_create_cq(r->ctx, 256, NULL, NULL, 0);
	r->buf = calloc(1, BUF_SIZE);
	if (!r->cq || !r->buf)
		return -1;
	r->mr = ibv_reg_mr(r->pd, r->buf, BUF_SIZE, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE);
	if (!r->mr)
		return -1;
	r->qp = ibv_create_qp(r->pd, &(struct ibv_qp_init_attr) {
		.send_cq = r->cq, .recv_cq = r->cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	});
	if (!r->qp || connect_self(r))
		return -1;
	return one_write(r) ? 0 : -1;
}

/* After the fatal event: what do verbs and the old mappings do? */
static void probe(struct res *r)
{
	struct ibv_pd *pd;
	struct ibv_wc wc;

	errno = 0;
	pd = ibv_alloc_pd(r->ctx);
	say("verb alloc_pd errno=%d", pd ? 0 : errno);
	if (pd)
		ibv_dealloc_pd(pd);
	if (r->qp)
		say("verb post_send ret=%d", post_write(r));
	if (r->cq)
		say("verb poll_cq ret=%d", ibv_poll_cq(r->cq, 1, &wc));
}

static void on_usr1(int sig)
{
	(void)sig;
	touch_req = 1;
}

/* Wait, with SIGUSR1 blocked otherwise, until it comes. */
static void wait_usr1(void)
{
	sigset_t mask;

	sigprocmask(SIG_BLOCK, NULL, &mask);
	sigdelset(&mask, SIGUSR1);
	while (!touch_req)
		sigsuspend(&mask);
	touch_req = 0;
}

/*
 * Unmap the last page of every parent queue mapping (a uverbs file) longer
 * than a page: the kernel splits the VMA, opening the piece that is
 * unmapped, and closes it.  Returns how many were split.
 */
static int split_mappings(void)
{
	unsigned long start[64], end[64], page = sysconf(_SC_PAGESIZE);
	char line[512];
	int i, n = 0, split = 0;
	FILE *f;

	f = fopen("/proc/self/maps", "r");
	if (!f)
		return -1;
	while (n < 64 && fgets(line, sizeof(line), f))
		if (strstr(line, "/dev/infiniband/uverbs") &&
		    sscanf(line, "%lx-%lx", &start[n], &end[n]) == 2 &&
		    end[n] - start[n] > page)
			n++;
	fclose(f);
	for (i = 0; i < n; i++)
		if (!munmap((void *)(end[i] - page), page))
			split++;
	return split;
}

/*
 * Read the old CQ mapping in a forked child, which then splits the
 * mappings and exits.
 */
static void fork_touch(struct res *r)
{
	struct ibv_wc wc;
	pid_t pid;
	int st;

	pid = fork();
	if (pid < 0) {
		say("error fork errno=%d", errno);
		return;
	}
	if (!pid) {
		say("fork child poll_cq ret=%d", ibv_poll_cq(r->cq, 1, &wc));
		say("fork child split %d", split_mappings());
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid)
		st = -1;
	say("fork child status=%d", st);
}

/* -H: keep everything; touch the mappings on every SIGUSR1. */
static void hold(struct res *r, pid_t child)
{
	struct ibv_wc wc;

	for (;;) {
		wait_usr1();
		if (r->qp)
			say("touch post_send ret=%d", post_write(r));
		if (r->cq) {
			say("touch poll_cq ret=%d", ibv_poll_cq(r->cq, 1, &wc));
			fork_touch(r);
		}
		if (child > 0)
			kill(child, SIGUSR1);
		say("touched");
	}
}

/* -F: a child that inherits the mappings and reads them on SIGUSR1. */
static pid_t spawn_holder(struct res *r)
{
	pid_t parent = getpid(), pid;
	struct ibv_wc wc;

	pid = fork();
	if (pid)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	say("child pid %d", (int)getpid());
	for (;;) {
		wait_usr1();
		say("child touch poll_cq ret=%d", ibv_poll_cq(r->cq, 1, &wc));
		say("child touched");
	}
}

static void destroy(struct res *r)
{
	if (r->ah)
		ibv_destroy_ah(r->ah);
	if (r->mw)
		ibv_dealloc_mw(r->mw);
	if (r->qp)
		ibv_destroy_qp(r->qp);
	if (r->srq)
		ibv_destroy_srq(r->srq);
	if (r->mr)
		ibv_dereg_mr(r->mr);
	if (r->cq)
		ibv_destroy_cq(r->cq);
	if (r->pd)
		ibv_dealloc_pd(r->pd);
	if (r->ctx)
		ibv_close_device(r->ctx);
	free(r->buf);
}

/* Report one creation; false if it failed. */
static bool created(const char *what, const void *obj)
{
	if (!obj) {
		say("create %s failed errno=%d", what, errno);
		return false;
	}
	say("create %s ok", what);
	return true;
}

static int objects(struct res *r)
{
	struct ibv_ah_attr ah = {
		.is_global = 1, .port_num = 1,
		.grh = { .sgid_index = opt.gidx, .hop_limit = 1 },
	};

	struct ibv_qp_init_attr qp = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_srq_init_attr srq = {
		.attr = { .max_wr = 4, .max_sge = 1 },
	};

	if (ibv_query_gid(r->ctx, 1, opt.gidx, &ah.grh.dgid))
		return 1;
	errno = 0;
	r->pd = ibv_alloc_pd(r->ctx);
	if (!created("pd", r->pd))
		return 1;
	r->cq = ibv_create_cq(r->ctx, 16, NULL, NULL, 0);
	if (!created("cq", r->cq))
		return 1;
	qp.send_cq = r->cq;
	qp.recv_cq = r->cq;
	r->qp = ibv_create_qp(r->pd, &qp);
	if (!created("qp", r->qp))
		return 1;
	r->srq = ibv_create_srq(r->pd, &srq);
	if (!created("srq", r->srq))
		return 1;
	r->buf = calloc(1, BUF_SIZE);
	if (!r->buf)
		return 1;
	r->mr = ibv_reg_mr(r->pd, r->buf, BUF_SIZE, IBV_ACCESS_LOCAL_WRITE);
	if (!created("mr", r->mr))
		return 1;
	r->mw = ibv_alloc_mw(r->pd, IBV_MW_TYPE_1);
	if (!created("mw", r->mw))
		return 1;
	r->ah = ibv_create_ah(r->pd, &ah);
	if (!created("ah", r->ah))
		return 1;
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
		"Usage: %s -d DEV [-g GIDX] [-t SECS] [-H [-F]] idle|traffic|objects\n",
		program_invocation_short_name);
	exit(1);
}

int main(int argc, char **argv)
{
	struct res r = { 0 };
	const char *mode;
	pid_t child = 0;
	sigset_t usr1;
	bool fatal;
	int c, ret;

	while ((c = getopt(argc, argv, "d:g:t:HF")) != -1) {
		switch (c) {
		case 'd':
			opt.dev = optarg;
			break;
		case 'g':
			opt.gidx = atoi(optarg);
			break;
		case 't':
			opt.timeout = atoi(optarg);
			break;
		case 'H':
			opt.hold = true;
			break;
		case 'F':
			opt.fork_child = true;
			break;
		default:
			usage();
		}
	}
	if (!opt.dev || optind != argc - 1 || (opt.fork_child && !opt.hold))
		usage();
	mode = argv[optind];

	/* Before anything a test could signal: SIGUSR1 would kill us. */
	if (opt.hold) {
		sigemptyset(&usr1);
		sigaddset(&usr1, SIGUSR1);
		sigprocmask(SIG_BLOCK, &usr1, NULL);
		signal(SIGUSR1, on_usr1);
	}

	r.ctx = open_dev(opt.dev);
	if (!r.ctx)
		return 1;

	if (!strcmp(mode, "objects")) {
		ret = objects(&r);
		destroy(&r);
		say("done");
		return ret;
	}

	r.pd = ibv_alloc_pd(r.ctx);
	if (!r.pd) {
		say("error alloc_pd errno=%d", errno);
		return 1;
	}
	if (!strcmp(mode, "traffic")) {
		if (setup_traffic(&r)) {
			say("error traffic setup errno=%d", errno);
			return 1;
		}
	} else if (strcmp(mode, "idle")) {
		usage();
	}
	say("ready");
	if (opt.fork_child && r.cq)
		child = spawn_holder(&r);
	if (child < 0) {
		say("error fork errno=%d", errno);
		return 1;
	}

	fatal = wait_fatal(r.ctx, now() + opt.timeout,
			   r.qp ? one_write : NULL, &r);
	if (fatal)
		probe(&r);
	say("done");
	if (opt.hold)
		hold(&r, child);
	destroy(&r);
	return fatal ? 0 : 2;
}
