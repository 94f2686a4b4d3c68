// SPDX-License-Identifier: MIT
/*
 * Builders for canned netlink messages.
 */
#include <string.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/vrdma.h>

#include "build.h"

void dg_init(struct dgram *dg)
{
	memset(dg, 0, sizeof(*dg));
}

struct nlmsghdr *dg_genl(struct dgram *dg, uint16_t type, uint16_t flags,
			 uint32_t seq, uint8_t cmd)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(dg->buf + dg->len);
	struct genlmsghdr *genl;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = flags;
	nlh->nlmsg_seq = seq;
	nlh->nlmsg_pid = TEST_PORTID;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = cmd;
	genl->version = VRDMA_GENL_VERSION;
	return nlh;
}

void dg_end(struct dgram *dg, struct nlmsghdr *nlh)
{
	dg->len += MNL_ALIGN(nlh->nlmsg_len);
}

void put_dev_attrs(struct nlmsghdr *nlh, const char *name)
{
	struct nlattr *nest;

	mnl_attr_put_strz(nlh, VRDMA_ATTR_DEV_NAME, name);
	mnl_attr_put_u32(nlh, VRDMA_ATTR_DEV_INDEX, 7);
	mnl_attr_put_strz(nlh, VRDMA_ATTR_PARENT_NAME, "rxe0");
	mnl_attr_put_u32(nlh, VRDMA_ATTR_DRIVER_ID, 14);
	mnl_attr_put_u32(nlh, VRDMA_ATTR_NETNS_INO, 4026532301u);
	mnl_attr_put_u8(nlh, VRDMA_ATTR_PORT_STATE, 4);
	nest = mnl_attr_nest_start(nlh, VRDMA_ATTR_LIMITS);
	mnl_attr_put_u64(nlh, VRDMA_RES_CTX, 16);
	mnl_attr_put_u64(nlh, VRDMA_RES_QP, 128);
	mnl_attr_put_u64(nlh, VRDMA_RES_MR_BYTES, 1ULL << 30);
	mnl_attr_nest_end(nlh, nest);
	nest = mnl_attr_nest_start(nlh, VRDMA_ATTR_USAGE);
	mnl_attr_put_u64(nlh, VRDMA_RES_CTX, 1);
	mnl_attr_put_u64(nlh, VRDMA_RES_QP, 2);
	mnl_attr_put_u64(nlh, VRDMA_RES_MR_BYTES, 4096);
	mnl_attr_nest_end(nlh, nest);
}

struct nlmsghdr *dg_dev(struct dgram *dg, uint32_t seq, uint16_t flags,
			const char *name)
{
	struct nlmsghdr *nlh = dg_genl(dg, TEST_FAMILY, flags, seq,
				       VRDMA_CMD_DEV_GET);

	put_dev_attrs(nlh, name);
	dg_end(dg, nlh);
	return nlh;
}

void dg_done(struct dgram *dg, uint32_t seq, int err, const char *extack)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(dg->buf + dg->len);
	int *status;

	nlh->nlmsg_type = NLMSG_DONE;
	nlh->nlmsg_flags = NLM_F_MULTI;
	nlh->nlmsg_seq = seq;
	nlh->nlmsg_pid = TEST_PORTID;
	status = mnl_nlmsg_put_extra_header(nlh, sizeof(*status));
	*status = err;
	if (extack) {
		nlh->nlmsg_flags |= NLM_F_ACK_TLVS;
		mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, extack);
	}
	dg_end(dg, nlh);
}

void dg_error(struct dgram *dg, uint32_t seq, int err, const char *extack,
	      bool capped, const struct nlmsghdr *orig)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(dg->buf + dg->len);
	struct nlmsgerr *e;

	nlh->nlmsg_type = NLMSG_ERROR;
	nlh->nlmsg_seq = seq;
	nlh->nlmsg_pid = TEST_PORTID;
	e = mnl_nlmsg_put_extra_header(nlh, sizeof(*e));
	e->error = err;
	if (orig)
		e->msg = *orig;
	if (capped) {
		nlh->nlmsg_flags |= NLM_F_CAPPED;
	} else if (orig) {
		size_t extra = orig->nlmsg_len - sizeof(*orig);
		void *p = mnl_nlmsg_put_extra_header(nlh, extra);

		memcpy(p, orig + 1, extra);
	}
	if (extack) {
		nlh->nlmsg_flags |= NLM_F_ACK_TLVS;
		mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, extack);
	}
	dg_end(dg, nlh);
}

void dg_family(struct dgram *dg, uint32_t seq, bool with_events)
{
	struct nlmsghdr *nlh = dg_genl(dg, GENL_ID_CTRL, 0, seq,
				       CTRL_CMD_NEWFAMILY);
	struct nlattr *groups, *grp;

	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, VRDMA_GENL_NAME);
	mnl_attr_put_u16(nlh, CTRL_ATTR_FAMILY_ID, TEST_FAMILY);
	mnl_attr_put_u32(nlh, CTRL_ATTR_VERSION, VRDMA_GENL_VERSION);
	mnl_attr_put_u32(nlh, CTRL_ATTR_HDRSIZE, 0);
	groups = mnl_attr_nest_start(nlh, CTRL_ATTR_MCAST_GROUPS);
	grp = mnl_attr_nest_start(nlh, 1);
	mnl_attr_put_strz(nlh, CTRL_ATTR_MCAST_GRP_NAME, "other");
	mnl_attr_put_u32(nlh, CTRL_ATTR_MCAST_GRP_ID, 3);
	mnl_attr_nest_end(nlh, grp);
	if (with_events) {
		grp = mnl_attr_nest_start(nlh, 2);
		mnl_attr_put_strz(nlh, CTRL_ATTR_MCAST_GRP_NAME,
				  VRDMA_GENL_MCGRP_EVENTS);
		mnl_attr_put_u32(nlh, CTRL_ATTR_MCAST_GRP_ID, TEST_EVENTS_GRP);
		mnl_attr_nest_end(nlh, grp);
	}
	mnl_attr_nest_end(nlh, groups);
	dg_end(dg, nlh);
}
