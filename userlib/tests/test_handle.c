// SPDX-License-Identifier: MIT
/*
 * The request logic over a mock transport: family lookup, what requests
 * carry, errors with their extended ACK, dump restarts, monitors.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "../internal.h"
#include "abi/consumers.h"
#include "build.h"
#include "check.h"

#define MOCK_QUEUE	8

/*
 * The mock kernel: every request is recorded and handed to a script that
 * queues the datagrams to answer with.  The family lookup is answered
 * here unless a test wants it to fail.
 */
struct mock {
	void (*script)(struct mock *m, const struct nlmsghdr *req);
	int family_err;
	struct dgram queue[MOCK_QUEUE];
	int queued, next;
	int requests;		/* vrdma requests, lookups not counted */
	union vrdma_msgbuf last;
	int state;
};

static struct mock mock;

static struct dgram *mock_push(struct mock *m)
{
	struct dgram *dg = &m->queue[m->queued++ % MOCK_QUEUE];

	dg_init(dg);
	return dg;
}

static int mock_send(struct vrdma_handle *h, const void *buf, size_t len)
{
	const struct nlmsghdr *req = buf;
	struct mock *m = h->tp_priv;

	if (req->nlmsg_type == GENL_ID_CTRL) {
		struct dgram *dg = mock_push(m);

		if (m->family_err) {
			dg_error(dg, req->nlmsg_seq, m->family_err, NULL, true,
				 NULL);
			return 0;
		}
		dg_family(dg, req->nlmsg_seq, true);
		dg_error(dg, req->nlmsg_seq, 0, NULL, true, NULL);
		return 0;
	}
	memcpy(m->last.buf, buf, len);
	m->requests++;
	m->script(m, req);
	return 0;
}

static ssize_t mock_recv(struct vrdma_handle *h, void *buf, size_t len)
{
	struct mock *m = h->tp_priv;
	struct dgram *dg;

	if (m->next == m->queued)
		return -EAGAIN;	/* the real socket would block forever */
	dg = &m->queue[m->next++ % MOCK_QUEUE];
	if (dg->len > len)
		return -ENOSPC;
	memcpy(buf, dg->buf, dg->len);
	return dg->len;
}

static uint32_t mock_portid(struct vrdma_handle *h)
{
	(void)h;
	return TEST_PORTID;
}

static void mock_close(struct vrdma_handle *h)
{
	(void)h;
}

static const struct vrdma_transport mock_transport = {
	.send	= mock_send,
	.recv	= mock_recv,
	.portid	= mock_portid,
	.close	= mock_close,
};

static struct vrdma_handle *mock_open(void (*script)(struct mock *m,
						     const struct nlmsghdr *req))
{
	memset(&mock, 0, sizeof(mock));
	mock.script = script;
	return vrdma_handle_alloc(&mock_transport, &mock);
}

static uint8_t req_cmd(const struct nlmsghdr *req)
{
	const struct genlmsghdr *genl = mnl_nlmsg_get_payload(req);

	return genl->cmd;
}

static void script_ack(struct mock *m, const struct nlmsghdr *req)
{
	dg_error(mock_push(m), req->nlmsg_seq, 0, NULL, true, NULL);
}

static void script_noent(struct mock *m, const struct nlmsghdr *req)
{
	dg_error(mock_push(m), req->nlmsg_seq, -ENOENT, NULL, true, NULL);
}

static void test_module_not_loaded(void)
{
	struct vrdma_dev_list *list = (void *)1;
	struct vrdma_handle *h = mock_open(script_ack);

	mock.family_err = -ENOENT;
	CHECK(vrdma_dev_list(h, &list) == -ENOENT);
	CHECK(!list);
	CHECK(vrdma_errno(h) == -ENOENT);
	CHECK(strstr(vrdma_strerror(h), "not loaded"));
	CHECK(mock.requests == 0);

	/* Loading the module later makes the same handle work */
	mock.family_err = 0;
	CHECK(vrdma_dev_del(h, "vr0") == 0);
	CHECK(vrdma_errno(h) == 0 && !vrdma_error_message(h));
	CHECK(!strcmp(vrdma_strerror(h), "Success"));
	CHECK(h->family == TEST_FAMILY && h->events_group == TEST_EVENTS_GRP);

	/* An unknown family id (module reloaded) makes the handle look again */
	mock.script = script_noent;
	CHECK(vrdma_dev_del(h, "vr0") == -ENOENT);
	CHECK(h->family == 0);
	mock.script = script_ack;
	CHECK(vrdma_dev_del(h, "vr0") == 0);
	CHECK(h->family == TEST_FAMILY);
	vrdma_close(h);
}

/* Dump of two vdevices over two datagrams; mock.state dumps interrupted */
static void script_dev_dump(struct mock *m, const struct nlmsghdr *req)
{
	uint16_t intr = m->state-- > 0 ? NLM_F_DUMP_INTR : 0;
	struct dgram *dg;

	if (req_cmd(req) != VRDMA_CMD_DEV_GET ||
	    !(req->nlmsg_flags & NLM_F_DUMP)) {
		dg_error(mock_push(m), req->nlmsg_seq, -EOPNOTSUPP, NULL, true,
			 NULL);
		return;
	}
	dg = mock_push(m);
	dg_dev(dg, req->nlmsg_seq, NLM_F_MULTI, "vr0");
	dg = mock_push(m);
	dg_dev(dg, req->nlmsg_seq, NLM_F_MULTI | intr, "vr1");
	dg_done(dg, req->nlmsg_seq, 0, NULL);
}

static void test_dev_list(void)
{
	struct vrdma_handle *h = mock_open(script_dev_dump);
	struct vrdma_dev_list *list;

	CHECK(vrdma_dev_list(h, &list) == 0);
	CHECK(list && list->count == 2);
	if (list && list->count == 2) {
		CHECK(!strcmp(list->devs[0].name, "vr0"));
		CHECK(!strcmp(list->devs[1].name, "vr1"));
		CHECK(list->devs[1].limits.val[VRDMA_RES_QP] == 128);
	}
	CHECK(mock.requests == 1);
	vrdma_dev_list_free(list);
	vrdma_close(h);
}

static void test_dev_list_dump_intr(void)
{
	struct vrdma_handle *h = mock_open(script_dev_dump);
	struct vrdma_dev_list *list;

	mock.state = 2;		/* two interrupted dumps, then a clean one */
	CHECK(vrdma_dev_list(h, &list) == 0);
	CHECK(mock.requests == 3);
	/* Records of the interrupted attempts are not kept */
	CHECK(list && list->count == 2);
	vrdma_dev_list_free(list);

	mock.requests = 0;
	mock.state = 1000;	/* never settles */
	CHECK(vrdma_dev_list(h, &list) == -EAGAIN);
	CHECK(!list);
	CHECK(mock.requests == VRDMA_DUMP_ATTEMPTS);
	CHECK(vrdma_error_message(h));
	vrdma_close(h);
}

static void script_bad_then_good(struct mock *m, const struct nlmsghdr *req)
{
	struct nlmsghdr *nlh;
	struct dgram *dg;

	if (m->state++ == 0) {
		/* A record without a name */
		dg = mock_push(m);
		nlh = dg_genl(dg, TEST_FAMILY, NLM_F_MULTI, req->nlmsg_seq,
			      VRDMA_CMD_DEV_GET);
		mnl_attr_put_u32(nlh, VRDMA_ATTR_DEV_INDEX, 1);
		dg_end(dg, nlh);
		dg_done(dg, req->nlmsg_seq, 0, NULL);
		return;
	}
	dg = mock_push(m);
	dg_dev(dg, req->nlmsg_seq, NLM_F_MULTI, "vr0");
	dg_done(dg, req->nlmsg_seq, 0, NULL);
}

static void test_dev_list_malformed(void)
{
	struct vrdma_handle *h = mock_open(script_bad_then_good);
	struct vrdma_dev_list *list;

	CHECK(vrdma_dev_list(h, &list) == -EPROTO);
	CHECK(!list);
	CHECK(strstr(vrdma_strerror(h), "malformed"));
	CHECK(vrdma_dev_list(h, &list) == 0);
	CHECK(list && list->count == 1);
	vrdma_dev_list_free(list);
	vrdma_close(h);
}

static void script_dev_get(struct mock *m, const struct nlmsghdr *req)
{
	static const char *const names[] = { "vr0", "other" };
	struct dgram *dg = mock_push(m);
	struct nlmsghdr *nlh;

	nlh = dg_genl(dg, TEST_FAMILY, 0, req->nlmsg_seq, VRDMA_CMD_DEV_GET);
	put_dev_attrs(nlh, names[m->state++ % 2]);
	dg_end(dg, nlh);
	dg_error(dg, req->nlmsg_seq, 0, NULL, true, NULL);
}

static void test_dev_get(void)
{
	struct vrdma_handle *h = mock_open(script_dev_get);
	struct vrdma_dev dev;

	CHECK(vrdma_dev_get(h, "vr0", &dev) == 0);
	CHECK(!strcmp(dev.name, "vr0") && dev.index == 7);
	CHECK(!((&mock.last.nlh)->nlmsg_flags & NLM_F_DUMP));
	/* The kernel answering about another device is a protocol error */
	CHECK(vrdma_dev_get(h, "vr0", &dev) == -EPROTO);
	CHECK(dev.name[0] == '\0');
	CHECK(vrdma_dev_get(h, "", &dev) == -EINVAL);
	vrdma_close(h);
}

static void script_exists(struct mock *m, const struct nlmsghdr *req)
{
	dg_error(mock_push(m), req->nlmsg_seq, -EEXIST,
		 "a device with this name exists", true, NULL);
}

struct sent_add {
	const char *name, *parent;
	int64_t netns_fd, netns_pid;
	struct vrdma_res_values limits;
};

static int sent_attr(const struct nlattr *attr, void *data)
{
	struct sent_add *s = data;
	const struct nlattr *a;

	switch (mnl_attr_get_type(attr)) {
	case VRDMA_ATTR_DEV_NAME:
		s->name = mnl_attr_get_str(attr);
		break;
	case VRDMA_ATTR_PARENT_NAME:
		s->parent = mnl_attr_get_str(attr);
		break;
	case VRDMA_ATTR_NETNS_FD:
		s->netns_fd = (int32_t)mnl_attr_get_u32(attr);
		break;
	case VRDMA_ATTR_NETNS_PID:
		s->netns_pid = mnl_attr_get_u32(attr);
		break;
	case VRDMA_ATTR_LIMITS:
		mnl_attr_for_each_nested(a, attr)
			vrdma_res_set(&s->limits, mnl_attr_get_type(a),
				      mnl_attr_get_u64(a));
		break;
	}
	return MNL_CB_OK;
}

static void decode_sent(struct sent_add *s)
{
	memset(s, 0, sizeof(*s));
	s->netns_fd = -1;
	s->netns_pid = -1;
	mnl_attr_parse(&mock.last.nlh, GENL_HDRLEN,
		       sent_attr, s);
}

static void test_dev_add(void)
{
	struct vrdma_handle *h = mock_open(script_ack);
	struct vrdma_netns_spec ns = { .kind = VRDMA_NETNS_PID, .pid = 1234 };
	struct vrdma_res_values limits = { 0 };
	struct sent_add s;

	vrdma_res_set(&limits, VRDMA_RES_QP, 64);
	vrdma_res_set(&limits, VRDMA_RES_MR_BYTES, VRDMA_LIMIT_MAX);
	CHECK(vrdma_dev_add(h, "vr0", "rxe0", &ns, &limits) == 0);
	CHECK(req_cmd(&mock.last.nlh) == VRDMA_CMD_DEV_NEW);
	decode_sent(&s);
	CHECK(s.name && !strcmp(s.name, "vr0"));
	CHECK(s.parent && !strcmp(s.parent, "rxe0"));
	CHECK(s.netns_pid == 1234 && s.netns_fd == -1);
	CHECK(s.limits.present == ((1u << VRDMA_RES_QP) |
				   (1u << VRDMA_RES_MR_BYTES)));
	CHECK(s.limits.val[VRDMA_RES_MR_BYTES] == VRDMA_LIMIT_MAX);

	/* A path is opened and sent as a descriptor */
	ns.kind = VRDMA_NETNS_PATH;
	ns.path = "/proc/self/ns/net";
	CHECK(vrdma_dev_add(h, "vr1", "rxe0", &ns, NULL) == 0);
	decode_sent(&s);
	CHECK(s.netns_fd >= 0 && s.netns_pid == -1 && s.limits.present == 0);

	ns.path = "/nonexistent/netns";
	CHECK(vrdma_dev_add(h, "vr1", "rxe0", &ns, NULL) == -ENOENT);
	CHECK(strstr(vrdma_strerror(h), "/nonexistent/netns"));
	CHECK(vrdma_dev_add(h, "vr1", "rxe0", NULL, NULL) == -EINVAL);
	vrdma_close(h);

	h = mock_open(script_exists);
	ns.kind = VRDMA_NETNS_FD;
	ns.fd = 3;
	CHECK(vrdma_dev_add(h, "vr0", "rxe0", &ns, NULL) == -EEXIST);
	CHECK(!strcmp(vrdma_error_message(h), "a device with this name exists"));
	CHECK(!strcmp(vrdma_strerror(h),
		      "a device with this name exists (File exists)"));
	decode_sent(&s);
	CHECK(s.netns_fd == 3);
	vrdma_close(h);
}

static void test_dev_set_del(void)
{
	struct vrdma_handle *h = mock_open(script_ack);
	struct vrdma_res_values limits = { 0 };
	struct sent_add s;

	CHECK(vrdma_dev_set(h, "vr0", &limits) == -EINVAL);
	CHECK(mock.requests == 0);
	limits.present = 1u << VRDMA_RES_PAD;
	CHECK(vrdma_dev_set(h, "vr0", &limits) == -EINVAL);
	CHECK(mock.requests == 0);
	limits.present = 0;
	vrdma_res_set(&limits, VRDMA_RES_CQ, 0);
	CHECK(vrdma_dev_set(h, "vr0", &limits) == 0);
	CHECK(req_cmd(&mock.last.nlh) == VRDMA_CMD_DEV_SET);
	decode_sent(&s);
	CHECK(s.limits.present == 1u << VRDMA_RES_CQ);
	CHECK(vrdma_dev_del(h, "vr0") == 0);
	CHECK(req_cmd(&mock.last.nlh) == VRDMA_CMD_DEV_DEL);
	vrdma_close(h);
}

static void script_version(struct mock *m, const struct nlmsghdr *req)
{
	struct dgram *dg = mock_push(m);
	struct nlmsghdr *nlh;

	nlh = dg_genl(dg, TEST_FAMILY, 0, req->nlmsg_seq,
		      VRDMA_CMD_VERSION_GET);
	mnl_attr_put_strz(nlh, VRDMA_ATTR_VERSION, "0.1.0");
	dg_end(dg, nlh);
	dg_error(dg, req->nlmsg_seq, 0, NULL, true, NULL);
}

static void test_request_version(void)
{
	struct vrdma_handle *h = mock_open(script_version);
	char buf[16];

	CHECK(vrdma_version(h, buf, sizeof(buf)) == 0);
	CHECK(!strcmp(buf, "0.1.0"));
	CHECK(vrdma_version(h, buf, 3) == -ENOSPC);
	vrdma_close(h);
}

static void script_parents(struct mock *m, const struct nlmsghdr *req)
{
	struct dgram *dg = mock_push(m);
	struct nlmsghdr *nlh;
	struct nlattr *nest;

	nlh = dg_genl(dg, TEST_FAMILY, NLM_F_MULTI, req->nlmsg_seq,
		      VRDMA_CMD_PARENT_GET);
	mnl_attr_put_strz(nlh, VRDMA_ATTR_PARENT_NAME, "rxe0");
	mnl_attr_put_u32(nlh, VRDMA_ATTR_DRIVER_ID, 14);
	mnl_attr_put_u32(nlh, VRDMA_ATTR_VDEV_COUNT, 1);
	nest = mnl_attr_nest_start(nlh, VRDMA_ATTR_PARENT_VDEVS);
	mnl_attr_put_strz(nlh, VRDMA_ATTR_DEV_NAME, "vr0");
	mnl_attr_nest_end(nlh, nest);
	dg_end(dg, nlh);
	/* Interrupted once, to exercise the reset of collected parents */
	if (m->state++ == 0)
		nlh->nlmsg_flags |= NLM_F_DUMP_INTR;
	dg_done(dg, req->nlmsg_seq, 0, NULL);
}

static void test_parent_list(void)
{
	struct vrdma_handle *h = mock_open(script_parents);
	struct vrdma_parent_list *list;

	CHECK(vrdma_parent_list(h, &list) == 0);
	CHECK(list && list->count == 1);
	if (list && list->count == 1) {
		CHECK(!strcmp(list->parents[0].name, "rxe0"));
		CHECK(list->parents[0].nr_vdevs == 1);
		CHECK(!strcmp(list->parents[0].vdevs[0], "vr0"));
	}
	CHECK(mock.requests == 2);
	vrdma_parent_list_free(list);
	vrdma_close(h);
}

static void test_monitor(void)
{
	struct vrdma_handle *h = mock_open(script_ack);
	struct vrdma_monitor *m;
	struct vrdma_event ev;
	struct nlmsghdr *nlh;
	struct dgram *dg;

	h->family = TEST_FAMILY;
	m = vrdma_monitor_wrap(h);
	/* A notification of another kind, then two events in one datagram */
	dg = mock_push(&mock);
	nlh = dg_genl(dg, TEST_FAMILY, 0, 0, VRDMA_CMD_DEV_SET);
	put_dev_attrs(nlh, "vr0");
	dg_end(dg, nlh);
	nlh = dg_genl(dg, TEST_FAMILY, 0, 0, VRDMA_CMD_DEV_NEW);
	put_dev_attrs(nlh, "vr0");
	dg_end(dg, nlh);
	nlh = dg_genl(dg, TEST_FAMILY, 0, 0, VRDMA_CMD_DEV_DEL);
	put_dev_attrs(nlh, "vr0");
	mnl_attr_put_u8(nlh, VRDMA_ATTR_REASON, VRDMA_DEL_USER);
	dg_end(dg, nlh);
	/* A malformed event, then one of another family */
	dg = mock_push(&mock);
	nlh = dg_genl(dg, TEST_FAMILY, 0, 0, VRDMA_CMD_DEV_NEW);
	dg_end(dg, nlh);
	dg = mock_push(&mock);
	nlh = dg_genl(dg, TEST_FAMILY + 1, 0, 0, VRDMA_CMD_DEV_NEW);
	dg_end(dg, nlh);

	CHECK(vrdma_monitor_next(m, &ev) == 0);
	CHECK(ev.kind == VRDMA_EVENT_NEW && !strcmp(ev.dev.name, "vr0"));
	CHECK(vrdma_monitor_next(m, &ev) == 0);
	CHECK(ev.kind == VRDMA_EVENT_DEL && ev.reason == VRDMA_DEL_USER);
	CHECK(vrdma_monitor_next(m, &ev) == -EPROTO);
	/* Skips the foreign message; the mock then has nothing more */
	CHECK(vrdma_monitor_next(m, &ev) == -EAGAIN);
	vrdma_monitor_close(m);
}

void suite_handle(void)
{
	RUN(test_module_not_loaded);
	RUN(test_dev_list);
	RUN(test_dev_list_dump_intr);
	RUN(test_dev_list_malformed);
	RUN(test_dev_get);
	RUN(test_dev_add);
	RUN(test_dev_set_del);
	RUN(test_request_version);
	RUN(test_parent_list);
	RUN(test_monitor);
}

/*
 * The ABI promise of libvrdma.h: programs built against the frozen 1.0
 * header and against a header from the future (tests/abi/consumer.c) use
 * this library through the public calls, on the mock kernel.
 */
static void abi_run(int (*dev_get)(struct vrdma_handle *h),
		    int (*dev_list)(struct vrdma_handle *h),
		    int (*parent_list)(struct vrdma_handle *h),
		    int (*monitor)(struct vrdma_monitor *m))
{
	struct vrdma_monitor *m;
	struct vrdma_handle *h;
	struct nlmsghdr *nlh;
	struct dgram *dg;

	h = mock_open(script_dev_get);
	CHECK(dev_get(h) == 0);
	vrdma_close(h);
	h = mock_open(script_dev_dump);
	CHECK(dev_list(h) == 0);
	vrdma_close(h);
	h = mock_open(script_parents);
	CHECK(parent_list(h) == 0);
	vrdma_close(h);

	h = mock_open(script_ack);
	h->family = TEST_FAMILY;
	m = vrdma_monitor_wrap(h);
	dg = mock_push(&mock);
	nlh = dg_genl(dg, TEST_FAMILY, 0, 0, VRDMA_CMD_DEV_NEW);
	put_dev_attrs(nlh, "vr0");
	dg_end(dg, nlh);
	CHECK(monitor(m) == 0);
	vrdma_monitor_close(m);
}

static void test_abi_old_consumer(void)
{
	CHECK(abi_v1_0_dev_size() == VRDMA_DEV_SIZE_1_0);
	abi_run(abi_v1_0_dev_get, abi_v1_0_dev_list, abi_v1_0_parent_list,
		abi_v1_0_monitor);
}

static void test_abi_future_consumer(void)
{
	CHECK(abi_future_dev_size() > sizeof(struct vrdma_dev));
	abi_run(abi_future_dev_get, abi_future_dev_list,
		abi_future_parent_list, abi_future_monitor);
}

/* A caller with a struct smaller than the first release's is refused */
static void test_abi_too_small(void)
{
	struct vrdma_handle *h = mock_open(script_dev_get);
	struct vrdma_dev_list *list;
	struct vrdma_dev dev;

	CHECK(vrdma_dev_get_sz(h, "vr0", &dev, VRDMA_DEV_SIZE_1_0 - 1) ==
	      -EINVAL);
	CHECK(vrdma_dev_list_sz(h, &list, 8) == -EINVAL && !list);
	CHECK(mock.requests == 0);
	vrdma_close(h);
}

void suite_abi(void)
{
	RUN(test_abi_old_consumer);
	RUN(test_abi_future_consumer);
	RUN(test_abi_too_small);
}
