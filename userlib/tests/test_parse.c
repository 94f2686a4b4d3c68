// SPDX-License-Identifier: MIT
/*
 * The message parser on canned messages: valid records, missing, extra
 * and unknown attributes, wrong types and lengths, truncation, nests.
 */
#include <errno.h>
#include <string.h>

#include <linux/genetlink.h>

#include "../internal.h"
#include "build.h"
#include "check.h"

static struct dgram dg;

static struct nlmsghdr *dev_msg(void)
{
	dg_init(&dg);
	return dg_genl(&dg, TEST_FAMILY, 0, 1, VRDMA_CMD_DEV_GET);
}

static void test_dev_valid(void)
{
	struct vrdma_dev dev;
	struct nlmsghdr *nlh = dev_msg();

	put_dev_attrs(nlh, "vr0");
	CHECK(vrdma_parse_dev(nlh, &dev) == 0);
	CHECK(!strcmp(dev.name, "vr0"));
	CHECK(dev.index == 7);
	CHECK(!strcmp(dev.parent, "rxe0"));
	CHECK(dev.driver_id == 14);
	CHECK(dev.netns_ino == 4026532301u);
	CHECK(dev.port_state == 4);
	CHECK(vrdma_res_has(&dev.limits, VRDMA_RES_CTX));
	CHECK(dev.limits.val[VRDMA_RES_CTX] == 16);
	CHECK(dev.limits.val[VRDMA_RES_QP] == 128);
	CHECK(dev.limits.val[VRDMA_RES_MR_BYTES] == 1ULL << 30);
	CHECK(!vrdma_res_has(&dev.limits, VRDMA_RES_PD));
	CHECK(dev.usage.val[VRDMA_RES_QP] == 2);
	CHECK(dev.usage.present == ((1u << VRDMA_RES_CTX) |
				    (1u << VRDMA_RES_QP) |
				    (1u << VRDMA_RES_MR_BYTES)));
	CHECK(dev.chardev[0] == '\0' && dev.netns_name[0] == '\0');
}

static void test_dev_minimal(void)
{
	struct vrdma_dev dev;
	struct nlmsghdr *nlh = dev_msg();

	mnl_attr_put_strz(nlh, VRDMA_ATTR_DEV_NAME, "vr1");
	mnl_attr_put_u32(nlh, VRDMA_ATTR_DEV_INDEX, 3);
	mnl_attr_put_strz(nlh, VRDMA_ATTR_PARENT_NAME, "mlx5_0");
	CHECK(vrdma_parse_dev(nlh, &dev) == 0);
	CHECK(dev.index == 3 && dev.driver_id == 0 && dev.netns_ino == 0);
	CHECK(dev.limits.present == 0 && dev.usage.present == 0);
}

static void test_dev_missing_required(void)
{
	static const int required[] = {
		VRDMA_ATTR_DEV_NAME, VRDMA_ATTR_DEV_INDEX,
		VRDMA_ATTR_PARENT_NAME,
	};
	struct vrdma_dev dev;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(required); i++) {
		struct nlmsghdr *nlh = dev_msg();

		if (required[i] != VRDMA_ATTR_DEV_NAME)
			mnl_attr_put_strz(nlh, VRDMA_ATTR_DEV_NAME, "vr0");
		if (required[i] != VRDMA_ATTR_DEV_INDEX)
			mnl_attr_put_u32(nlh, VRDMA_ATTR_DEV_INDEX, 1);
		if (required[i] != VRDMA_ATTR_PARENT_NAME)
			mnl_attr_put_strz(nlh, VRDMA_ATTR_PARENT_NAME, "rxe0");
		CHECK(vrdma_parse_dev(nlh, &dev) == -EPROTO);
		CHECK(dev.name[0] == '\0');
	}
}

static void test_dev_unknown_and_extra(void)
{
	struct vrdma_dev dev;
	struct nlmsghdr *nlh = dev_msg();
	struct nlattr *nest;

	/* Unknown types, of any size, and attributes of other commands */
	mnl_attr_put_u64(nlh, VRDMA_ATTR_MAX + 1, 99);
	mnl_attr_put(nlh, 1000, 3, "abc");
	mnl_attr_put_strz(nlh, VRDMA_ATTR_VERSION, "0.1");
	mnl_attr_put_u32(nlh, VRDMA_ATTR_VDEV_COUNT, 1);
	put_dev_attrs(nlh, "vr0");
	nest = mnl_attr_nest_start(nlh, VRDMA_ATTR_MAX + 2);
	mnl_attr_put_u8(nlh, 1, 1);
	mnl_attr_nest_end(nlh, nest);
	CHECK(vrdma_parse_dev(nlh, &dev) == 0);
	CHECK(!strcmp(dev.name, "vr0") && dev.index == 7);
}

static void test_dev_duplicate_last_wins(void)
{
	struct vrdma_dev dev;
	struct nlmsghdr *nlh = dev_msg();

	put_dev_attrs(nlh, "vr0");
	mnl_attr_put_u32(nlh, VRDMA_ATTR_DEV_INDEX, 9);
	CHECK(vrdma_parse_dev(nlh, &dev) == 0);
	CHECK(dev.index == 9);
}

/* A valid record plus one bad attribute must be rejected as a whole */
static void expect_bad_attr(void (*put)(struct nlmsghdr *nlh), int line)
{
	struct vrdma_dev dev;
	struct nlmsghdr *nlh = dev_msg();

	put_dev_attrs(nlh, "vr0");
	put(nlh);
	check_report(vrdma_parse_dev(nlh, &dev) == -EPROTO,
		     "bad attribute rejected", __FILE__, line);
	check_report(dev.name[0] == '\0', "record cleared", __FILE__, line);
}

static void put_index_u16(struct nlmsghdr *nlh)
{
	mnl_attr_put_u16(nlh, VRDMA_ATTR_DEV_INDEX, 1);
}

static void put_index_u64(struct nlmsghdr *nlh)
{
	mnl_attr_put_u64(nlh, VRDMA_ATTR_DEV_INDEX, 1);
}

static void put_state_u32(struct nlmsghdr *nlh)
{
	mnl_attr_put_u32(nlh, VRDMA_ATTR_PORT_STATE, 4);
}

static void put_name_unterminated(struct nlmsghdr *nlh)
{
	mnl_attr_put(nlh, VRDMA_ATTR_DEV_NAME, 3, "vr0");
}

static void put_name_empty(struct nlmsghdr *nlh)
{
	mnl_attr_put(nlh, VRDMA_ATTR_DEV_NAME, 0, NULL);
}

static void put_name_too_long(struct nlmsghdr *nlh)
{
	char name[VRDMA_NAME_SIZE + 1];

	memset(name, 'a', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	mnl_attr_put_strz(nlh, VRDMA_ATTR_DEV_NAME, name);
}

static void put_parent_too_long(struct nlmsghdr *nlh)
{
	char name[300];

	memset(name, 'p', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	mnl_attr_put_strz(nlh, VRDMA_ATTR_PARENT_NAME, name);
}

static void put_limits_not_nested(struct nlmsghdr *nlh)
{
	mnl_attr_put(nlh, VRDMA_ATTR_LIMITS, 2, "xy");
}

static void put_limit_u32(struct nlmsghdr *nlh)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, VRDMA_ATTR_LIMITS);

	mnl_attr_put_u32(nlh, VRDMA_RES_QP, 5);
	mnl_attr_nest_end(nlh, nest);
}

static void put_usage_garbage_tail(struct nlmsghdr *nlh)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, VRDMA_ATTR_USAGE);
	uint32_t junk = 0xffffffff;

	mnl_attr_put_u64(nlh, VRDMA_RES_QP, 5);
	/* Four bytes that are no attribute: less than a header */
	memcpy(mnl_nlmsg_get_payload_tail(nlh), &junk, sizeof(junk));
	nlh->nlmsg_len += sizeof(junk);
	mnl_attr_nest_end(nlh, nest);
}

static void test_dev_bad_attrs(void)
{
	char name[VRDMA_NAME_SIZE];
	struct vrdma_dev dev;
	struct nlmsghdr *nlh;

	expect_bad_attr(put_index_u16, __LINE__);
	expect_bad_attr(put_index_u64, __LINE__);
	expect_bad_attr(put_state_u32, __LINE__);
	expect_bad_attr(put_name_unterminated, __LINE__);
	expect_bad_attr(put_name_empty, __LINE__);
	expect_bad_attr(put_name_too_long, __LINE__);
	expect_bad_attr(put_parent_too_long, __LINE__);
	expect_bad_attr(put_limits_not_nested, __LINE__);
	expect_bad_attr(put_limit_u32, __LINE__);
	expect_bad_attr(put_usage_garbage_tail, __LINE__);

	/* The longest legal name fits exactly */
	memset(name, 'b', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	nlh = dev_msg();
	put_dev_attrs(nlh, name);
	CHECK(vrdma_parse_dev(nlh, &dev) == 0);
	CHECK(strlen(dev.name) == VRDMA_DEV_NAME_MAX);
}

static void test_dev_truncated(void)
{
	struct nlmsghdr *nlh = dev_msg();
	struct vrdma_dev dev;
	uint32_t full, len;
	int ok = 0, bad = 0;

	put_dev_attrs(nlh, "vr0");
	full = nlh->nlmsg_len;
	/*
	 * Every shorter length: parse or reject, never read past the end
	 * (valgrind and the fuzzer's ASan see to the "never").
	 */
	for (len = 0; len < full; len++) {
		int ret;

		nlh->nlmsg_len = len;
		ret = vrdma_parse_dev(nlh, &dev);
		if (ret == 0)
			ok++;
		else if (ret == -EPROTO)
			bad++;
		else
			CHECK(!"unexpected return value");
	}
	CHECK(ok + bad == (int)full);
	/* Shorter than the genetlink header */
	nlh->nlmsg_len = MNL_NLMSG_HDRLEN + 2;
	CHECK(vrdma_parse_dev(nlh, &dev) == -EPROTO);
	/* Cut inside the first attribute */
	nlh->nlmsg_len = MNL_NLMSG_HDRLEN + GENL_HDRLEN + 6;
	CHECK(vrdma_parse_dev(nlh, &dev) == -EPROTO);
	/* Cut after the USAGE nest's header: its length overruns the message */
	nlh->nlmsg_len = full - 4;
	CHECK(vrdma_parse_dev(nlh, &dev) == -EPROTO);
	nlh->nlmsg_len = full;
	CHECK(vrdma_parse_dev(nlh, &dev) == 0);
}

static void test_limits_nest(void)
{
	struct nlmsghdr *nlh = dev_msg();
	struct nlattr *nest;
	struct vrdma_dev dev;

	mnl_attr_put_strz(nlh, VRDMA_ATTR_DEV_NAME, "vr0");
	mnl_attr_put_u32(nlh, VRDMA_ATTR_DEV_INDEX, 1);
	mnl_attr_put_strz(nlh, VRDMA_ATTR_PARENT_NAME, "rxe0");
	nest = mnl_attr_nest_start(nlh, VRDMA_ATTR_LIMITS);
	mnl_attr_put(nlh, VRDMA_RES_PAD, 0, NULL);
	mnl_attr_put_u64(nlh, VRDMA_RES_PD, VRDMA_LIMIT_MAX);
	mnl_attr_put_u64(nlh, VRDMA_RES_AH, 0);
	mnl_attr_put_u64(nlh, VRDMA_RES_MAX + 5, 77);	/* newer resource */
	mnl_attr_put_u32(nlh, VRDMA_RES_UNSPEC, 1);
	mnl_attr_nest_end(nlh, nest);
	nest = mnl_attr_nest_start(nlh, VRDMA_ATTR_USAGE);
	mnl_attr_nest_end(nlh, nest);
	CHECK(vrdma_parse_dev(nlh, &dev) == 0);
	CHECK(dev.limits.present == ((1u << VRDMA_RES_PD) | (1u << VRDMA_RES_AH)));
	CHECK(dev.limits.val[VRDMA_RES_PD] == VRDMA_LIMIT_MAX);
	CHECK(dev.limits.val[VRDMA_RES_AH] == 0);
	CHECK(dev.usage.present == 0);
}

static void test_parent(void)
{
	struct nlmsghdr *nlh;
	struct vrdma_parent p;
	struct nlattr *nest;
	char longname[100];

	dg_init(&dg);
	nlh = dg_genl(&dg, TEST_FAMILY, 0, 1, VRDMA_CMD_PARENT_GET);
	mnl_attr_put_strz(nlh, VRDMA_ATTR_PARENT_NAME, "rxe0");
	mnl_attr_put_u32(nlh, VRDMA_ATTR_DRIVER_ID, 14);
	mnl_attr_put_u32(nlh, VRDMA_ATTR_VDEV_COUNT, 2);
	nest = mnl_attr_nest_start(nlh, VRDMA_ATTR_PARENT_VDEVS);
	mnl_attr_put_strz(nlh, VRDMA_ATTR_DEV_NAME, "vr0");
	mnl_attr_put_u32(nlh, VRDMA_ATTR_DEV_INDEX, 5);	/* ignored */
	mnl_attr_put_strz(nlh, VRDMA_ATTR_DEV_NAME, "vr1");
	mnl_attr_nest_end(nlh, nest);
	CHECK(vrdma_parse_parent(nlh, &p) == 0);
	CHECK(!strcmp(p.name, "rxe0") && p.driver_id == 14);
	CHECK(p.vdev_count == 2 && p.nr_vdevs == 2);
	CHECK(p.nr_vdevs == 2 && !strcmp(p.vdevs[0], "vr0") &&
	      !strcmp(p.vdevs[1], "vr1"));
	vrdma_parent_clear(&p);

	/* A vdevice name that does not fit */
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	nest = mnl_attr_nest_start(nlh, VRDMA_ATTR_PARENT_VDEVS);
	mnl_attr_put_strz(nlh, VRDMA_ATTR_DEV_NAME, longname);
	mnl_attr_nest_end(nlh, nest);
	CHECK(vrdma_parse_parent(nlh, &p) == -EPROTO);
	CHECK(!p.vdevs && p.nr_vdevs == 0);

	/* No vdevices, and no name */
	dg_init(&dg);
	nlh = dg_genl(&dg, TEST_FAMILY, 0, 1, VRDMA_CMD_PARENT_GET);
	mnl_attr_put_strz(nlh, VRDMA_ATTR_PARENT_NAME, "mlx5_0");
	CHECK(vrdma_parse_parent(nlh, &p) == 0);
	CHECK(p.nr_vdevs == 0 && !p.vdevs);
	vrdma_parent_clear(&p);
	dg_init(&dg);
	nlh = dg_genl(&dg, TEST_FAMILY, 0, 1, VRDMA_CMD_PARENT_GET);
	mnl_attr_put_u32(nlh, VRDMA_ATTR_DRIVER_ID, 1);
	CHECK(vrdma_parse_parent(nlh, &p) == -EPROTO);
}

static void test_parse_version(void)
{
	struct nlmsghdr *nlh;
	char small[3], buf[32];

	dg_init(&dg);
	nlh = dg_genl(&dg, TEST_FAMILY, 0, 1, VRDMA_CMD_VERSION_GET);
	mnl_attr_put_strz(nlh, VRDMA_ATTR_VERSION, "0.1.0+gabc");
	CHECK(vrdma_parse_version(nlh, buf, sizeof(buf)) == 0);
	CHECK(!strcmp(buf, "0.1.0+gabc"));
	CHECK(vrdma_parse_version(nlh, small, sizeof(small)) == -ENOSPC);

	dg_init(&dg);
	nlh = dg_genl(&dg, TEST_FAMILY, 0, 1, VRDMA_CMD_VERSION_GET);
	CHECK(vrdma_parse_version(nlh, buf, sizeof(buf)) == -EPROTO);
	mnl_attr_put(nlh, VRDMA_ATTR_VERSION, 2, "ab");	/* no NUL */
	CHECK(vrdma_parse_version(nlh, buf, sizeof(buf)) == -EPROTO);
}

static void test_family(void)
{
	uint32_t version, group;
	struct nlmsghdr *nlh;
	uint16_t family;

	dg_init(&dg);
	dg_family(&dg, 1, true);
	nlh = (struct nlmsghdr *)dg.buf;
	CHECK(vrdma_parse_family(nlh, &family, &version, &group) == 0);
	CHECK(family == TEST_FAMILY && version == VRDMA_GENL_VERSION);
	CHECK(group == TEST_EVENTS_GRP);

	dg_init(&dg);
	dg_family(&dg, 1, false);
	CHECK(vrdma_parse_family(nlh, &family, &version, &group) == 0);
	CHECK(group == 0);

	dg_init(&dg);
	nlh = dg_genl(&dg, GENL_ID_CTRL, 0, 1, CTRL_CMD_NEWFAMILY);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, VRDMA_GENL_NAME);
	CHECK(vrdma_parse_family(nlh, &family, &version, &group) == -EPROTO);
	mnl_attr_put_u32(nlh, CTRL_ATTR_FAMILY_ID, TEST_FAMILY);
	CHECK(vrdma_parse_family(nlh, &family, &version, &group) == -EPROTO);
}

static void test_event(void)
{
	struct vrdma_event ev;
	struct nlmsghdr *nlh;

	dg_init(&dg);
	nlh = dg_genl(&dg, TEST_FAMILY, 0, 0, VRDMA_CMD_DEV_NEW);
	put_dev_attrs(nlh, "vr0");
	CHECK(vrdma_parse_event(nlh, &ev) == 0);
	CHECK(ev.kind == VRDMA_EVENT_NEW && ev.reason == -1);
	CHECK(!strcmp(ev.dev.name, "vr0"));

	dg_init(&dg);
	nlh = dg_genl(&dg, TEST_FAMILY, 0, 0, VRDMA_CMD_DEV_DEL);
	put_dev_attrs(nlh, "vr1");
	mnl_attr_put_u8(nlh, VRDMA_ATTR_REASON, VRDMA_DEL_NETNS);
	CHECK(vrdma_parse_event(nlh, &ev) == 0);
	CHECK(ev.kind == VRDMA_EVENT_DEL && ev.reason == VRDMA_DEL_NETNS);
	CHECK(!strcmp(ev.dev.name, "vr1"));
	mnl_attr_put_u32(nlh, VRDMA_ATTR_REASON, VRDMA_DEL_USER);
	CHECK(vrdma_parse_event(nlh, &ev) == -EPROTO);

	dg_init(&dg);
	nlh = dg_genl(&dg, TEST_FAMILY, 0, 0, VRDMA_CMD_DEV_SET);
	put_dev_attrs(nlh, "vr1");
	CHECK(vrdma_parse_event(nlh, &ev) == 1);

	dg_init(&dg);
	nlh = dg_genl(&dg, TEST_FAMILY, 0, 0, VRDMA_CMD_DEV_NEW);
	CHECK(vrdma_parse_event(nlh, &ev) == -EPROTO);
	nlh->nlmsg_len = MNL_NLMSG_HDRLEN;
	CHECK(vrdma_parse_event(nlh, &ev) == -EPROTO);
}

static void test_names(void)
{
	CHECK(!strcmp(vrdma_res_name(VRDMA_RES_MR_BYTES), "mr_bytes"));
	CHECK(!vrdma_res_name(VRDMA_RES_PAD));
	CHECK(!vrdma_res_name(__VRDMA_RES_MAX));
	CHECK(!strcmp(vrdma_port_state_name(4), "ACTIVE"));
	CHECK(!vrdma_port_state_name(6));
	CHECK(!strcmp(vrdma_driver_name(14), "rxe"));
	CHECK(!strcmp(vrdma_driver_name(1), "mlx5"));
	CHECK(!vrdma_driver_name(0) && !vrdma_driver_name(999));
	CHECK(!strcmp(vrdma_del_reason_name(VRDMA_DEL_PARENT), "parent"));
	CHECK(!vrdma_del_reason_name(-1));
	CHECK(!strcmp(vrdma_del_reason_name(VRDMA_DEL_MOVED), "moved"));
	CHECK(!vrdma_del_reason_name(__VRDMA_DEL_MAX));
}

void suite_parse(void)
{
	RUN(test_dev_valid);
	RUN(test_dev_minimal);
	RUN(test_dev_missing_required);
	RUN(test_dev_unknown_and_extra);
	RUN(test_dev_duplicate_last_wins);
	RUN(test_dev_bad_attrs);
	RUN(test_dev_truncated);
	RUN(test_limits_nest);
	RUN(test_parent);
	RUN(test_parse_version);
	RUN(test_family);
	RUN(test_event);
	RUN(test_names);
}
