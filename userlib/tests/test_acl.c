// SPDX-License-Identifier: MIT
/*
 * Address ACLs: text parsing and formatting, the request nest, and the
 * ACL nests of a DEV_GET reply, valid and malformed.
 */
#include <errno.h>
#include <string.h>

#include <linux/genetlink.h>

#include "../internal.h"
#include "build.h"
#include "check.h"

static struct dgram dg;

static const char *fmt(const struct vrdma_acl_entry *e)
{
	static char buf[64];

	return vrdma_acl_entry_format(e, buf, sizeof(buf));
}

static void test_entry_parse(void)
{
	struct vrdma_acl_entry e;

	CHECK(vrdma_acl_entry_parse("10.1.2.3", &e) == 0);
	CHECK(e.prefix_len == 128 && e.addr[10] == 0xff && e.addr[11] == 0xff);
	CHECK(e.addr[12] == 10 && e.addr[15] == 3);
	CHECK(!strcmp(fmt(&e), "10.1.2.3"));

	CHECK(vrdma_acl_entry_parse("10.1.2.3/16", &e) == 0);
	CHECK(e.prefix_len == 112);
	CHECK(e.addr[13] == 1 && e.addr[14] == 0 && e.addr[15] == 0);
	CHECK(!strcmp(fmt(&e), "10.1.0.0/16"));

	CHECK(vrdma_acl_entry_parse("10.1.2.3/0", &e) == 0);
	CHECK(e.prefix_len == 96 && !strcmp(fmt(&e), "0.0.0.0/0"));

	CHECK(vrdma_acl_entry_parse("fd00:1::7/64", &e) == 0);
	CHECK(e.prefix_len == 64 && e.addr[15] == 0);
	CHECK(!strcmp(fmt(&e), "fd00:1::/64"));

	CHECK(vrdma_acl_entry_parse("fe80::1", &e) == 0);
	CHECK(e.prefix_len == 128 && !strcmp(fmt(&e), "fe80::1"));

	CHECK(vrdma_acl_entry_parse("10.1.2.3/33", &e) == -EINVAL);
	CHECK(vrdma_acl_entry_parse("fd00::/129", &e) == -EINVAL);
	CHECK(vrdma_acl_entry_parse("10.1.2.3/", &e) == -EINVAL);
	CHECK(vrdma_acl_entry_parse("10.1.2.3/-1", &e) == -EINVAL);
	CHECK(vrdma_acl_entry_parse("10.1.2.3/8x", &e) == -EINVAL);
	CHECK(vrdma_acl_entry_parse("10.1.2", &e) == -EINVAL);
	CHECK(vrdma_acl_entry_parse("host.example", &e) == -EINVAL);
	CHECK(vrdma_acl_entry_parse("", &e) == -EINVAL);
	CHECK(vrdma_acl_entry_parse("/8", &e) == -EINVAL);
	CHECK(vrdma_acl_entry_parse(NULL, &e) == -EINVAL);
}

static void put_entry(struct nlmsghdr *nlh, const char *text)
{
	struct vrdma_acl_entry e;
	struct nlattr *nest;

	vrdma_acl_entry_parse(text, &e);
	nest = mnl_attr_nest_start(nlh, VRDMA_ACL_ENTRY);
	mnl_attr_put(nlh, VRDMA_ACL_ADDR, sizeof(e.addr), e.addr);
	mnl_attr_put_u8(nlh, VRDMA_ACL_PREFIX_LEN, e.prefix_len);
	mnl_attr_nest_end(nlh, nest);
}

static struct nlmsghdr *dev_msg_with_acls(void)
{
	struct nlmsghdr *nlh;
	struct nlattr *nest;

	dg_init(&dg);
	nlh = dg_genl(&dg, TEST_FAMILY, 0, 1, VRDMA_CMD_DEV_GET);
	put_dev_attrs(nlh, "vr0");
	nest = mnl_attr_nest_start(nlh, VRDMA_ATTR_SGIDS);
	put_entry(nlh, "10.1.0.5");
	put_entry(nlh, "10.1.0.6");
	mnl_attr_nest_end(nlh, nest);
	nest = mnl_attr_nest_start(nlh, VRDMA_ATTR_PEERS);
	put_entry(nlh, "10.1.0.0/24");
	put_entry(nlh, "fd00::/8");
	mnl_attr_nest_end(nlh, nest);
	return nlh;
}

static void test_reply_acls(void)
{
	struct nlmsghdr *nlh = dev_msg_with_acls();
	struct vrdma_dev dev;

	dg_end(&dg, nlh);
	CHECK(vrdma_parse_dev(nlh, &dev) == 0);
	CHECK(dev.sgids.present && dev.sgids.count == 2);
	CHECK(!strcmp(fmt(&dev.sgids.entry[1]), "10.1.0.6"));
	CHECK(dev.peers.present && dev.peers.count == 2);
	CHECK(!strcmp(fmt(&dev.peers.entry[0]), "10.1.0.0/24"));
	CHECK(!strcmp(fmt(&dev.peers.entry[1]), "fd00::/8"));
}

static void test_reply_no_acls(void)
{
	struct vrdma_dev dev;

	dg_init(&dg);
	dg_dev(&dg, 1, 0, "vr0");
	CHECK(vrdma_parse_dev(&dg.first, &dev) == 0);
	CHECK(!dev.sgids.present && !dev.peers.present);
}

static void test_reply_empty_acl(void)
{
	struct nlmsghdr *nlh;
	struct vrdma_dev dev;

	dg_init(&dg);
	nlh = dg_genl(&dg, TEST_FAMILY, 0, 1, VRDMA_CMD_DEV_GET);
	put_dev_attrs(nlh, "vr0");
	mnl_attr_nest_end(nlh, mnl_attr_nest_start(nlh, VRDMA_ATTR_PEERS));
	dg_end(&dg, nlh);
	CHECK(vrdma_parse_dev(nlh, &dev) == 0);
	CHECK(dev.peers.present && dev.peers.count == 0);
}

/* Each breaks the ACL nest in another way; the whole record is refused. */
static void expect_bad_acl(void (*put)(struct nlmsghdr *nlh), int line)
{
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	struct vrdma_dev dev;

	dg_init(&dg);
	nlh = dg_genl(&dg, TEST_FAMILY, 0, 1, VRDMA_CMD_DEV_GET);
	put_dev_attrs(nlh, "vr0");
	nest = mnl_attr_nest_start(nlh, VRDMA_ATTR_SGIDS);
	put(nlh);
	mnl_attr_nest_end(nlh, nest);
	dg_end(&dg, nlh);
	check_report(vrdma_parse_dev(nlh, &dev) == -EPROTO, "refused",
		     __FILE__, line);
	check_report(dev.name[0] == '\0' && !dev.sgids.present, "cleared",
		     __FILE__, line);
}

/*
 * An entry nest of raw attributes: an address of @addr_len bytes and a
 * prefix length of @plen_len bytes (1 or 4), each left out when 0.
 */
static void put_raw_entry(struct nlmsghdr *nlh, size_t addr_len,
			  size_t plen_len, uint32_t plen)
{
	static const uint8_t addr[16] = { 10, 0, 0, 1 };
	struct nlattr *nest = mnl_attr_nest_start(nlh, VRDMA_ACL_ENTRY);

	if (addr_len)
		mnl_attr_put(nlh, VRDMA_ACL_ADDR, addr_len, addr);
	if (plen_len == 1)
		mnl_attr_put_u8(nlh, VRDMA_ACL_PREFIX_LEN, plen);
	else if (plen_len == 4)
		mnl_attr_put_u32(nlh, VRDMA_ACL_PREFIX_LEN, plen);
	mnl_attr_nest_end(nlh, nest);
}

static void bad_short_addr(struct nlmsghdr *nlh)
{
	put_raw_entry(nlh, 4, 0, 0);
}

static void bad_no_addr(struct nlmsghdr *nlh)
{
	put_raw_entry(nlh, 0, 1, 128);
}

static void bad_plen(struct nlmsghdr *nlh)
{
	put_raw_entry(nlh, 16, 1, 129);
}

static void bad_plen_type(struct nlmsghdr *nlh)
{
	put_raw_entry(nlh, 16, 4, 24);
}

static void bad_not_entry(struct nlmsghdr *nlh)
{
	mnl_attr_put_u32(nlh, VRDMA_ACL_ADDR, 1);
}

static void bad_too_many(struct nlmsghdr *nlh)
{
	int i;

	for (i = 0; i <= VRDMA_ACL_MAX_ENTRIES; i++)
		put_entry(nlh, "10.0.0.1");
}

static void bad_trailing(struct nlmsghdr *nlh)
{
	put_entry(nlh, "10.0.0.1");
	/* two stray bytes inside the nest, after the last entry */
	memset((char *)nlh + nlh->nlmsg_len, 0xaa, 4);
	((struct nlattr *)((char *)nlh + nlh->nlmsg_len))->nla_len = 2;
	nlh->nlmsg_len += 4;
}

static void test_reply_bad_acls(void)
{
	expect_bad_acl(bad_short_addr, __LINE__);
	expect_bad_acl(bad_no_addr, __LINE__);
	expect_bad_acl(bad_plen, __LINE__);
	expect_bad_acl(bad_plen_type, __LINE__);
	expect_bad_acl(bad_not_entry, __LINE__);
	expect_bad_acl(bad_too_many, __LINE__);
	expect_bad_acl(bad_trailing, __LINE__);
}

/* What the library sends is what it reads back */
static void test_request_round_trip(void)
{
	struct vrdma_acl in = { .present = true, .count = 3 }, out;
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	static const char *const texts[] = { "192.168.7.0/24", "fd00:7::/48", "10.0.0.9" };
	unsigned int i;

	for (i = 0; i < 3; i++)
		CHECK(vrdma_acl_entry_parse(texts[i], &in.entry[i]) == 0);
	dg_init(&dg);
	nlh = dg_genl(&dg, TEST_FAMILY, 0, 1, VRDMA_CMD_DEV_SET);
	CHECK(vrdma_put_acl(NULL, nlh, VRDMA_ATTR_PEERS, &in) == 0);
	nest = mnl_nlmsg_get_payload_offset(nlh, GENL_HDRLEN);
	CHECK(mnl_attr_get_type(nest) == VRDMA_ATTR_PEERS);
	CHECK(vrdma_parse_acl(nest, &out) == 0);
	CHECK(out.present && out.count == 3);
	for (i = 0; i < 3; i++)
		CHECK(!strcmp(fmt(&out.entry[i]), texts[i]));

	/* not present: nothing added */
	in.present = false;
	i = nlh->nlmsg_len;
	CHECK(vrdma_put_acl(NULL, nlh, VRDMA_ATTR_PEERS, &in) == 0);
	CHECK(nlh->nlmsg_len == i);
	CHECK(vrdma_put_acl(NULL, nlh, VRDMA_ATTR_PEERS, NULL) == 0);
	CHECK(nlh->nlmsg_len == i);
}

void suite_acl(void)
{
	RUN(test_entry_parse);
	RUN(test_reply_acls);
	RUN(test_reply_no_acls);
	RUN(test_reply_empty_acl);
	RUN(test_reply_bad_acls);
	RUN(test_request_round_trip);
}
