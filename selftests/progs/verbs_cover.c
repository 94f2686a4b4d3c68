// SPDX-License-Identifier: GPL-2.0
/*
 * verbs_cover: exercise the verbs a vdevice forwards, beyond what the
 * pingpong and perftest programs reach, on one device in one process.
 *
 *   verbs_cover DEVICE GID_INDEX
 *
 * Two RC QPs on the device are connected to each other (the parent's
 * loopback path); the second receives through an SRQ.  Checked, one output
 * line each: device, port, GID and P_Key queries; CQ resize; completion
 * channel events; SRQ query, modify and the SRQ limit async event; MR
 * registration with every access flag; RDMA write, read, fetch-and-add and
 * compare-and-swap with the data verified; a type 1 memory window bound and
 * used for an RDMA write; QP query; multicast attach and detach on a UD QP.
 *
 * Each line reads "NAME: ok", "NAME: unsupported (ERRNO)" when the device
 * refuses with EOPNOTSUPP/ENOSYS, or "NAME: FAIL ...".  Nothing in the
 * output depends on the run (no QP numbers, no keys), so a vdevice's output
 * can be compared with its parent's line by line.  Exit status: 0 when no
 * line says FAIL.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "rc_self.h"
#include "util.h"

#define BUF_SIZE	4096
#define TIMEOUT_MS	20000

static int failures;

static void report(const char *name, int err, const char *fmt, ...)
{
	va_list ap;

	if (!err) {
		printf("%s: ok\n", name);
		return;
	}
	if (err == EOPNOTSUPP || err == ENOSYS) {
		printf("%s: unsupported (%s)\n", name, strerror(err));
		return;
	}
	failures++;
	printf("%s: FAIL ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" (%s)\n", strerror(err));
}

/* errno of a failed verb, never 0 (some return a negative or positive one) */
static int verr(int ret)
{
	if (ret < 0)
		ret = -ret;
	if (!ret)
		ret = errno ? errno : EIO;
	return ret;
}

struct res {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *chan;
	struct ibv_cq *cq;
	struct ibv_srq *srq;
	struct ibv_qp *qa, *qb, *ud;
	struct ibv_mr *mra, *mrb;
	struct ibv_mw *mw;
	union ibv_gid gid;
	int gidx;
	char *bufa, *bufb;
};

static int wait_fd(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, TIMEOUT_MS) == 1 ? 0 : ETIMEDOUT;
}

/* Poll the CQ until one completion arrives; 0 when it succeeded. */
static int poll_one(struct ibv_cq *cq, struct ibv_wc *wc)
{
	int i, n;

	for (i = 0; i < TIMEOUT_MS * 10; i++) {
		n = ibv_poll_cq(cq, 1, wc);
		if (n < 0)
			return EIO;
		if (n == 1)
			return wc->status == IBV_WC_SUCCESS ? 0 : EREMOTEIO;
		usleep(100);
	}
	return ETIMEDOUT;
}

static int connect_qp(struct res *r, struct ibv_qp *qp, uint32_t dqpn)
{
	struct rc_path p = {
		.port = 1, .mtu = IBV_MTU_1024, .dqpn = dqpn, .dgid = r->gid,
		.sgidx = r->gidx, .rd_atomic = 4, .min_rnr_timer = 1,
		.hop_limit = 1,
	};

	if (rc_init(qp, 1, IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
		    IBV_ACCESS_REMOTE_ATOMIC) ||
	    rc_rtr(qp, &p) || rc_rts(qp, 0, 4))
		return verr(0);
	return 0;
}

/* Post one signalled request on qa and wait for its completion. */
static int run_wr(struct res *r, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad;
	struct ibv_wc wc;
	int ret;

	wr->send_flags |= IBV_SEND_SIGNALED;
	ret = ibv_post_send(r->qa, wr, &bad);
	if (ret)
		return verr(ret);
	return poll_one(r->cq, &wc);
}

static int post_srq_recvs(struct res *r, int n)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)r->bufb, .length = 64, .lkey = r->mrb->lkey,
	};
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;
	int i, ret;

	for (i = 0; i < n; i++) {
		wr.wr_id = 1000 + i;
		ret = ibv_post_srq_recv(r->srq, &wr, &bad);
		if (ret)
			return verr(ret);
	}
	return 0;
}

static int send_msg(struct res *r)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)r->bufa, .length = 64, .lkey = r->mra->lkey,
	};
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
	};
	struct ibv_wc wc;
	int ret;

	ret = run_wr(r, &wr);
	if (ret)
		return ret;
	/* and the receive completion of qb, on the same CQ */
	return poll_one(r->cq, &wc);
}

static void test_queries(struct res *r)
{
	struct ibv_device_attr dattr;
	struct ibv_port_attr pattr;
	uint16_t pkey;
	int ret;

	ret = ibv_query_device(r->ctx, &dattr);
	report("query_device", ret ? verr(ret) : 0, "");
	ret = ibv_query_port(r->ctx, 1, &pattr);
	report("query_port", ret ? verr(ret) :
	       pattr.state == IBV_PORT_ACTIVE ? 0 : EINVAL, "state %d",
	       pattr.state);
	ret = ibv_query_gid(r->ctx, 1, r->gidx, &r->gid);
	report("query_gid", ret ? verr(ret) : 0, "index %d", r->gidx);
	ret = ibv_query_pkey(r->ctx, 1, 0, &pkey);
	report("query_pkey", ret ? verr(ret) :
	       pkey == 0xffff ? 0 : EINVAL, "pkey 0x%x", pkey);
}

static void test_cq_resize(struct res *r)
{
	int ret = ibv_resize_cq(r->cq, 512);

	report("resize_cq", ret ? verr(ret) : r->cq->cqe >= 512 ? 0 : EINVAL,
	       "cqe %d", r->cq->cqe);
}

static void test_srq(struct res *r)
{
	struct ibv_srq_attr sa;
	struct ibv_async_event ev;
	int ret, flags, i, got = 0;

	ret = ibv_query_srq(r->srq, &sa);
	report("query_srq", ret ? verr(ret) : sa.max_wr >= 64 ? 0 : EINVAL,
	       "max_wr %u", sa.max_wr);

	/* 8 receives, limit 4: the 5th message consumed crosses the limit. */
	ret = post_srq_recvs(r, 8);
	if (!ret) {
		sa.srq_limit = 4;
		ret = ibv_modify_srq(r->srq, &sa, IBV_SRQ_LIMIT);
		ret = ret ? verr(ret) : 0;
	}
	report("modify_srq", ret, "limit 4");

	for (i = 0; i < 5 && !ret; i++)
		ret = send_msg(r);
	report("send_via_srq", ret, "message %d", i);

	flags = fcntl(r->ctx->async_fd, F_GETFL);
	fcntl(r->ctx->async_fd, F_SETFL, flags | O_NONBLOCK);
	while (!ret && !got) {
		ret = wait_fd(r->ctx->async_fd);
		if (ret || ibv_get_async_event(r->ctx, &ev))
			break;
		if (ev.event_type == IBV_EVENT_SRQ_LIMIT_REACHED &&
		    ev.element.srq == r->srq)
			got = 1;
		ibv_ack_async_event(&ev);
	}
	report("srq_limit_event", got ? 0 : ret ? ret : EINVAL, "no event");
	/* Drain the receives left on the SRQ with three more messages. */
	for (i = 0; i < 3 && got; i++)
		send_msg(r);
}

static void test_comp_channel(struct res *r)
{
	struct ibv_cq *ev_cq;
	void *ev_ctx;
	int ret;

	ret = ibv_req_notify_cq(r->cq, 0);
	if (!ret)
		ret = post_srq_recvs(r, 1);
	if (!ret)
		ret = send_msg(r);
	if (!ret)
		ret = wait_fd(r->chan->fd);
	if (!ret) {
		ret = ibv_get_cq_event(r->chan, &ev_cq, &ev_ctx);
		ret = ret ? verr(ret) : ev_cq == r->cq ? 0 : EINVAL;
		if (!ret)
			ibv_ack_cq_events(ev_cq, 1);
	}
	report("cq_event", ret ? verr(ret) : 0, "");
}

static void test_rdma(struct res *r)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)r->bufa, .length = 256, .lkey = r->mra->lkey,
	};
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1 };
	uint64_t *remote = (uint64_t *)(r->bufb + 2048);
	uint64_t *local = (uint64_t *)r->bufa;
	int ret;

	memset(r->bufa, 0xa5, 256);
	memset(r->bufb + 1024, 0, 256);
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.wr.rdma.remote_addr = (uintptr_t)r->bufb + 1024;
	wr.wr.rdma.rkey = r->mrb->rkey;
	ret = run_wr(r, &wr);
	report("rdma_write", ret ? ret :
	       memcmp(r->bufa, r->bufb + 1024, 256) ? EBADMSG : 0, "");

	memset(r->bufa, 0, 256);
	memset(r->bufb + 1024, 0x5a, 256);
	wr.opcode = IBV_WR_RDMA_READ;
	ret = run_wr(r, &wr);
	report("rdma_read", ret ? ret :
	       memcmp(r->bufa, r->bufb + 1024, 256) ? EBADMSG : 0, "");

	*remote = 40;
	sge.length = 8;
	memset(&wr.wr, 0, sizeof(wr.wr));
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr.wr.atomic.remote_addr = (uintptr_t)remote;
	wr.wr.atomic.rkey = r->mrb->rkey;
	wr.wr.atomic.compare_add = 2;
	ret = run_wr(r, &wr);
	report("atomic_fetch_add", ret ? ret :
	       (*local == 40 && *remote == 42) ? 0 : EBADMSG,
	       "old %llu new %llu", (unsigned long long)*local,
	       (unsigned long long)*remote);

	wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
	wr.wr.atomic.compare_add = 42;
	wr.wr.atomic.swap = 7;
	ret = run_wr(r, &wr);
	report("atomic_cmp_swap", ret ? ret :
	       (*local == 42 && *remote == 7) ? 0 : EBADMSG,
	       "old %llu new %llu", (unsigned long long)*local,
	       (unsigned long long)*remote);
}

static void test_mw(struct res *r)
{
	struct ibv_mw_bind bind = {
		.send_flags = IBV_SEND_SIGNALED,
		.bind_info = {
			.mr = r->mrb,
			.addr = (uintptr_t)r->bufb + 3072,
			.length = 512,
			.mw_access_flags = IBV_ACCESS_REMOTE_WRITE,
		},
	};
	struct ibv_sge sge = {
		.addr = (uintptr_t)r->bufa, .length = 128, .lkey = r->mra->lkey,
	};
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
	};
	struct ibv_wc wc;
	int ret;

	r->mw = ibv_alloc_mw(r->pd, IBV_MW_TYPE_1);
	report("alloc_mw", r->mw ? 0 : verr(0), "type 1");
	if (!r->mw)
		return;
	/* A type 1 window is bound through a QP of the same PD. */
	ret = ibv_bind_mw(r->qb, r->mw, &bind);
	if (!ret)
		ret = poll_one(r->cq, &wc);
	report("bind_mw", ret ? verr(ret) : 0, "");
	if (ret)
		return;

	memset(r->bufa, 0x3c, 128);
	memset(r->bufb + 3072, 0, 128);
	wr.wr.rdma.remote_addr = (uintptr_t)r->bufb + 3072;
	wr.wr.rdma.rkey = r->mw->rkey;
	ret = run_wr(r, &wr);
	report("rdma_write_via_mw", ret ? ret :
	       memcmp(r->bufa, r->bufb + 3072, 128) ? EBADMSG : 0, "");
}

static void test_query_qp(struct res *r)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;
	int ret;

	ret = ibv_query_qp(r->qa, &a, IBV_QP_STATE | IBV_QP_DEST_QPN |
			   IBV_QP_AV | IBV_QP_PATH_MTU, &init);
	report("query_qp", ret ? verr(ret) :
	       (a.qp_state == IBV_QPS_RTS && a.dest_qp_num == r->qb->qp_num &&
		a.path_mtu == IBV_MTU_1024 &&
		a.ah_attr.grh.sgid_index == r->gidx &&
		!memcmp(&a.ah_attr.grh.dgid, &r->gid, sizeof(r->gid))) ?
	       0 : EINVAL, "state %d sgid_index %d", a.qp_state,
	       a.ah_attr.grh.sgid_index);
}

static void test_mcast(struct res *r)
{
	struct ibv_qp_init_attr init = {
		.send_cq = r->cq, .recv_cq = r->cq, .qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	union ibv_gid mgid = {};
	int ret;

	/* An IPv4-mapped multicast group: ::ffff:239.1.1.1 */
	mgid.raw[10] = 0xff;
	mgid.raw[11] = 0xff;
	mgid.raw[12] = 239;
	mgid.raw[13] = 1;
	mgid.raw[14] = 1;
	mgid.raw[15] = 1;
	r->ud = ibv_create_qp(r->pd, &init);
	report("create_ud_qp", r->ud ? 0 : verr(0), "");
	if (!r->ud)
		return;
	ret = ibv_attach_mcast(r->ud, &mgid, 0);
	report("attach_mcast", ret ? verr(ret) : 0, "");
	if (ret)
		return;
	ret = ibv_detach_mcast(r->ud, &mgid, 0);
	report("detach_mcast", ret ? verr(ret) : 0, "");
}

static int setup(struct res *r, const char *name)
{
	const int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC |
			   IBV_ACCESS_MW_BIND;
	struct ibv_srq_init_attr sinit = {
		.attr = { .max_wr = 64, .max_sge = 1 },
	};
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	r->ctx = open_device_by_name(name);
	if (!r->ctx)
		return fprintf(stderr, "verbs_cover: cannot open %s\n", name), 1;
	test_queries(r);
	r->pd = ibv_alloc_pd(r->ctx);
	r->chan = ibv_create_comp_channel(r->ctx);
	if (!r->pd || !r->chan)
		return fprintf(stderr, "verbs_cover: pd/channel failed\n"), 1;
	r->cq = ibv_create_cq(r->ctx, 64, NULL, r->chan, 0);
	r->srq = ibv_create_srq(r->pd, &sinit);
	r->bufa = aligned_alloc(BUF_SIZE, BUF_SIZE);
	r->bufb = aligned_alloc(BUF_SIZE, BUF_SIZE);
	if (!r->cq || !r->srq || !r->bufa || !r->bufb)
		return fprintf(stderr, "verbs_cover: cq/srq failed\n"), 1;
	r->mra = ibv_reg_mr(r->pd, r->bufa, BUF_SIZE, access);
	r->mrb = ibv_reg_mr(r->pd, r->bufb, BUF_SIZE, access);
	report("reg_mr_all_access", r->mra && r->mrb ? 0 : verr(0), "");
	if (!r->mra || !r->mrb)
		return 1;
	init.send_cq = r->cq;
	init.recv_cq = r->cq;
	r->qa = ibv_create_qp(r->pd, &init);
	init.srq = r->srq;
	r->qb = ibv_create_qp(r->pd, &init);
	if (!r->qa || !r->qb)
		return fprintf(stderr, "verbs_cover: create qp failed\n"), 1;
	report("connect_rc_loopback", connect_qp(r, r->qa, r->qb->qp_num) ||
	       connect_qp(r, r->qb, r->qa->qp_num), "");
	return failures ? 1 : 0;
}

static int teardown(struct res *r)
{
	int ret = 0;

	if (r->ud)
		ret |= ibv_destroy_qp(r->ud);
	if (r->mw)
		ret |= ibv_dealloc_mw(r->mw);
	if (r->qa)
		ret |= ibv_destroy_qp(r->qa);
	if (r->qb)
		ret |= ibv_destroy_qp(r->qb);
	if (r->srq)
		ret |= ibv_destroy_srq(r->srq);
	if (r->mra)
		ret |= ibv_dereg_mr(r->mra);
	if (r->mrb)
		ret |= ibv_dereg_mr(r->mrb);
	if (r->cq)
		ret |= ibv_destroy_cq(r->cq);
	if (r->chan)
		ret |= ibv_destroy_comp_channel(r->chan);
	if (r->pd)
		ret |= ibv_dealloc_pd(r->pd);
	if (r->ctx)
		ret |= ibv_close_device(r->ctx);
	return ret;
}

int main(int argc, char **argv)
{
	struct res r = {};

	if (argc != 3) {
		fprintf(stderr, "usage: verbs_cover DEVICE GID_INDEX\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	r.gidx = atoi(argv[2]);
	if (!setup(&r, argv[1])) {
		test_cq_resize(&r);
		test_srq(&r);
		test_comp_channel(&r);
		test_rdma(&r);
		test_mw(&r);
		test_query_qp(&r);
		test_mcast(&r);
	}
	report("teardown", teardown(&r) ? EBUSY : 0, "");
	return failures ? 1 : 0;
}
