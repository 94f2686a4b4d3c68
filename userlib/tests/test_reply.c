// SPDX-License-Identifier: MIT
/*
 * The reply walker: ACKs, errors with extended ACK (capped or echoing the
 * request), dump ends, interrupted dumps, stale and corrupt messages.
 */
#include <errno.h>
#include <string.h>

#include <linux/netlink.h>

#include "../internal.h"
#include "build.h"
#include "check.h"

static struct dgram dg;
static struct vrdma_reply r;
static int records;

static int count_cb(const struct nlmsghdr *nlh, void *data)
{
	struct vrdma_dev dev;

	(void)data;
	records++;
	return vrdma_parse_dev(nlh, &dev);
}

static void start(uint32_t seq)
{
	dg_init(&dg);
	records = 0;
	vrdma_reply_init(&r, seq, TEST_PORTID, TEST_FAMILY, count_cb, NULL);
}

/* The datagram leaves the reply open after @n records; build the next */
static void check_more(int n)
{
	CHECK(vrdma_reply_feed(&r, dg.buf, dg.len) == 0);
	CHECK(records == n && !r.done);
	dg_init(&dg);
}

/* The datagram ends the reply with error @err and extended ACK @msg */
static void check_error(int err, const char *msg)
{
	CHECK(vrdma_reply_feed(&r, dg.buf, dg.len) == 1);
	CHECK(r.err == err);
	CHECK(!strcmp(r.ext_msg, msg));
}

static void test_ack(void)
{
	start(5);
	dg_error(&dg, 5, 0, NULL, true, NULL);
	CHECK(vrdma_reply_feed(&r, dg.buf, dg.len) == 1);
	CHECK(r.err == 0 && r.ext_msg[0] == '\0' && r.cb_err == 0);
}

static void test_error_extack_capped(void)
{
	start(5);
	dg_error(&dg, 5, -EEXIST, "vdevice name is taken", true, NULL);
	check_error(-EEXIST, "vdevice name is taken");
}

static void test_error_extack_uncapped(void)
{
	struct dgram req;
	struct nlmsghdr *orig;

	/* The request is echoed whole; the TLVs come after it */
	dg_init(&req);
	orig = dg_genl(&req, TEST_FAMILY, NLM_F_REQUEST | NLM_F_ACK, 5,
		       VRDMA_CMD_DEV_NEW);
	mnl_attr_put_strz(orig, VRDMA_ATTR_DEV_NAME, "vr0");
	mnl_attr_put_strz(orig, VRDMA_ATTR_PARENT_NAME, "nosuchdev");
	start(5);
	dg_error(&dg, 5, -ENODEV, "parent not found", false, orig);
	check_error(-ENODEV, "parent not found");
}

static void test_error_missing_attr(void)
{
	struct nlmsghdr *nlh;
	struct nlmsgerr *e;

	start(5);
	nlh = mnl_nlmsg_put_header(dg.buf);
	nlh->nlmsg_type = NLMSG_ERROR;
	nlh->nlmsg_flags = NLM_F_CAPPED | NLM_F_ACK_TLVS;
	nlh->nlmsg_seq = 5;
	e = mnl_nlmsg_put_extra_header(nlh, sizeof(*e));
	e->error = -EINVAL;
	mnl_attr_put_u32(nlh, NLMSGERR_ATTR_MISS_TYPE, VRDMA_ATTR_DEV_NAME);
	dg_end(&dg, nlh);
	check_error(-EINVAL, "missing attribute 3");
}

static void test_error_without_tlvs(void)
{
	start(5);
	dg_error(&dg, 5, -EPERM, NULL, true, NULL);
	check_error(-EPERM, "");
}

static void test_error_malformed(void)
{
	struct nlmsghdr *nlh;
	char msg[64];
	int err = 0;

	/* Positive "errno" is not something the kernel sends */
	start(5);
	dg_error(&dg, 5, 12, NULL, true, NULL);
	CHECK(vrdma_reply_feed(&r, dg.buf, dg.len) == -EPROTO);

	/* Too short for struct nlmsgerr */
	start(5);
	dg_error(&dg, 5, -EPERM, NULL, true, NULL);
	nlh = (struct nlmsghdr *)dg.buf;
	nlh->nlmsg_len = MNL_NLMSG_HDRLEN + 4;
	CHECK(vrdma_parse_error(nlh, &err, msg, sizeof(msg)) == -EPROTO);

	/* Broken TLVs cost the message, not the error code */
	start(5);
	dg_error(&dg, 5, -EBUSY, "busy", true, NULL);
	nlh = (struct nlmsghdr *)dg.buf;
	nlh->nlmsg_len -= 4;	/* cuts the string's NUL and padding */
	dg.len = nlh->nlmsg_len;
	check_error(-EBUSY, "");
}

static void test_dump(void)
{
	start(9);
	dg_dev(&dg, 9, NLM_F_MULTI, "vr0");
	dg_dev(&dg, 9, NLM_F_MULTI, "vr1");
	check_more(2);
	dg_dev(&dg, 9, NLM_F_MULTI, "vr2");
	dg_done(&dg, 9, 0, NULL);
	CHECK(vrdma_reply_feed(&r, dg.buf, dg.len) == 1);
	CHECK(records == 3 && r.err == 0 && !r.dump_intr && r.cb_err == 0);
}

static void test_dump_intr(void)
{
	start(9);
	dg_dev(&dg, 9, NLM_F_MULTI, "vr0");
	dg_dev(&dg, 9, NLM_F_MULTI | NLM_F_DUMP_INTR, "vr1");
	dg_done(&dg, 9, 0, NULL);
	CHECK(vrdma_reply_feed(&r, dg.buf, dg.len) == 1);
	CHECK(r.dump_intr);
}

static void test_dump_done_error(void)
{
	start(9);
	dg_dev(&dg, 9, NLM_F_MULTI, "vr0");
	dg_done(&dg, 9, -EMSGSIZE, "record too big");
	check_error(-EMSGSIZE, "record too big");
}

static void test_stale_and_foreign(void)
{
	/* Leftovers of an abandoned request, then our answer */
	start(9);
	dg_dev(&dg, 8, NLM_F_MULTI, "old");
	dg_done(&dg, 8, 0, NULL);
	check_more(0);
	dg_dev(&dg, 9, NLM_F_MULTI, "vr0");
	dg_done(&dg, 9, 0, NULL);
	CHECK(vrdma_reply_feed(&r, dg.buf, dg.len) == 1);
	CHECK(records == 1);

	/* A message of another family inside our answer */
	start(9);
	dg_genl(&dg, TEST_FAMILY + 1, NLM_F_MULTI, 9, 1);
	dg_end(&dg, (struct nlmsghdr *)dg.buf);
	dg_done(&dg, 9, 0, NULL);
	CHECK(vrdma_reply_feed(&r, dg.buf, dg.len) == 1);
	CHECK(r.cb_err == -EPROTO && records == 0);
}

static void test_bad_record_keeps_walking(void)
{
	struct nlmsghdr *nlh;

	start(9);
	nlh = dg_genl(&dg, TEST_FAMILY, NLM_F_MULTI, 9, VRDMA_CMD_DEV_GET);
	mnl_attr_put_u32(nlh, VRDMA_ATTR_DEV_INDEX, 1);	/* no name */
	dg_end(&dg, nlh);
	dg_dev(&dg, 9, NLM_F_MULTI, "vr1");
	dg_done(&dg, 9, 0, NULL);
	CHECK(vrdma_reply_feed(&r, dg.buf, dg.len) == 1);
	/* The first failure is kept and the walk reached the end marker */
	CHECK(r.cb_err == -EPROTO && records == 1 && r.done);
}

static void test_truncated_datagram(void)
{
	size_t cut;

	start(9);
	dg_dev(&dg, 9, NLM_F_MULTI, "vr0");
	dg_done(&dg, 9, 0, NULL);
	CHECK(vrdma_reply_feed(&r, dg.buf, dg.len - 8) == -EPROTO);
	for (cut = 1; cut < dg.len; cut++) {
		int ret;

		start(9);
		dg_dev(&dg, 9, NLM_F_MULTI, "vr0");
		dg_done(&dg, 9, 0, NULL);
		ret = vrdma_reply_feed(&r, dg.buf, cut);
		CHECK(ret == -EPROTO || ret == 0);
	}
	CHECK(vrdma_reply_feed(&r, dg.buf, VRDMA_RECV_SIZE + 1) == -EPROTO);
}

void suite_reply(void)
{
	RUN(test_ack);
	RUN(test_error_extack_capped);
	RUN(test_error_extack_uncapped);
	RUN(test_error_missing_attr);
	RUN(test_error_without_tlvs);
	RUN(test_error_malformed);
	RUN(test_dump);
	RUN(test_dump_intr);
	RUN(test_dump_done_error);
	RUN(test_stale_and_foreign);
	RUN(test_bad_record_keeps_walking);
	RUN(test_truncated_datagram);
}
