// SPDX-License-Identifier: MIT
/*
 * Decoding of single netlink messages into library records.  No I/O here:
 * the tests and the fuzzer feed these functions messages built in memory.
 *
 * Every attribute the library knows is checked against its type and
 * length before it is read; attributes it does not know are skipped, so a
 * newer module can add some.  A message that breaks the rules (a known
 * attribute of the wrong size, a missing required attribute, bytes left
 * over after the last attribute) is rejected with -EPROTO as a whole: a
 * half-parsed record is never returned.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/genetlink.h>

#include "internal.h"

/*
 * Policies: attribute type -> expected data type, MNL_TYPE_UNSPEC (0) for
 * types to skip.
 */
static const enum mnl_attr_data_type dev_policy[VRDMA_ATTR_MAX + 1] = {
	[VRDMA_ATTR_DEV_NAME]		= MNL_TYPE_NUL_STRING,
	[VRDMA_ATTR_DEV_INDEX]		= MNL_TYPE_U32,
	[VRDMA_ATTR_PARENT_NAME]	= MNL_TYPE_NUL_STRING,
	[VRDMA_ATTR_DRIVER_ID]		= MNL_TYPE_U32,
	[VRDMA_ATTR_NETNS_INO]		= MNL_TYPE_U32,
	[VRDMA_ATTR_PORT_STATE]		= MNL_TYPE_U8,
	[VRDMA_ATTR_LIMITS]		= MNL_TYPE_NESTED,
	[VRDMA_ATTR_USAGE]		= MNL_TYPE_NESTED,
	[VRDMA_ATTR_REASON]		= MNL_TYPE_U8,
	[VRDMA_ATTR_SGIDS]		= MNL_TYPE_NESTED,
	[VRDMA_ATTR_PEERS]		= MNL_TYPE_NESTED,
	[VRDMA_ATTR_GID_MODE]		= MNL_TYPE_U8,
	[VRDMA_ATTR_DEV_FLAGS]		= MNL_TYPE_U32,
	[VRDMA_ATTR_CM_PORTS]		= MNL_TYPE_NESTED,
};

static const enum mnl_attr_data_type parent_policy[VRDMA_ATTR_MAX + 1] = {
	[VRDMA_ATTR_PARENT_NAME]	= MNL_TYPE_NUL_STRING,
	[VRDMA_ATTR_DRIVER_ID]		= MNL_TYPE_U32,
	[VRDMA_ATTR_VDEV_COUNT]		= MNL_TYPE_U32,
	[VRDMA_ATTR_PARENT_VDEVS]	= MNL_TYPE_NESTED,
};

static const enum mnl_attr_data_type version_policy[VRDMA_ATTR_MAX + 1] = {
	[VRDMA_ATTR_VERSION]		= MNL_TYPE_NUL_STRING,
};

static const enum mnl_attr_data_type res_policy[VRDMA_RES_MAX + 1] = {
	[VRDMA_RES_CTX]			= MNL_TYPE_U64,
	[VRDMA_RES_PD]			= MNL_TYPE_U64,
	[VRDMA_RES_CQ]			= MNL_TYPE_U64,
	[VRDMA_RES_QP]			= MNL_TYPE_U64,
	[VRDMA_RES_SRQ]			= MNL_TYPE_U64,
	[VRDMA_RES_MR]			= MNL_TYPE_U64,
	[VRDMA_RES_MW]			= MNL_TYPE_U64,
	[VRDMA_RES_AH]			= MNL_TYPE_U64,
	[VRDMA_RES_MR_BYTES]		= MNL_TYPE_U64,
	[VRDMA_RES_DRV_OBJ]		= MNL_TYPE_U64,
};

static const enum mnl_attr_data_type ctrl_policy[CTRL_ATTR_MAX + 1] = {
	[CTRL_ATTR_FAMILY_ID]		= MNL_TYPE_U16,
	[CTRL_ATTR_FAMILY_NAME]		= MNL_TYPE_NUL_STRING,
	[CTRL_ATTR_VERSION]		= MNL_TYPE_U32,
	[CTRL_ATTR_MCAST_GROUPS]	= MNL_TYPE_NESTED,
};

static const enum mnl_attr_data_type mcgrp_policy[CTRL_ATTR_MCAST_GRP_MAX + 1] = {
	[CTRL_ATTR_MCAST_GRP_NAME]	= MNL_TYPE_NUL_STRING,
	[CTRL_ATTR_MCAST_GRP_ID]	= MNL_TYPE_U32,
};

/*
 * Walk the attributes in [start, start + len) and call @fn on each.  The
 * walk must end exactly at the end of the area (give or take the padding
 * of the last attribute): leftover bytes mean a truncated or corrupt
 * message.
 */
static int walk_attrs(const void *start, size_t len,
		      int (*fn)(const struct nlattr *attr, void *data),
		      void *data)
{
	const struct nlattr *attr = start;
	const char *end = (const char *)start + len;
	int ret;

	while (mnl_attr_ok(attr, (int)(end - (const char *)attr))) {
		ret = fn(attr, data);
		if (ret)
			return ret;
		attr = mnl_attr_next(attr);
	}
	if ((const char *)attr < end)
		return -EPROTO;
	return 0;
}

struct table_walk {
	const enum mnl_attr_data_type *policy;
	unsigned int maxtype;
	const struct nlattr **tb;
};

static int table_attr(const struct nlattr *attr, void *data)
{
	struct table_walk *w = data;
	uint16_t type = mnl_attr_get_type(attr);

	if (type > w->maxtype || w->policy[type] == MNL_TYPE_UNSPEC)
		return 0;
	if (mnl_attr_validate(attr, w->policy[type]) < 0)
		return -EPROTO;
	w->tb[type] = attr;
	return 0;
}

/* Validate the attributes in an area and index them by type into @tb */
static int parse_attrs(const void *start, size_t len,
		       const enum mnl_attr_data_type *policy, unsigned int maxtype,
		       const struct nlattr **tb)
{
	struct table_walk w = { policy, maxtype, tb };

	memset(tb, 0, (maxtype + 1) * sizeof(*tb));
	return walk_attrs(start, len, table_attr, &w);
}

static int parse_nested(const struct nlattr *nest,
			const enum mnl_attr_data_type *policy, unsigned int maxtype,
			const struct nlattr **tb)
{
	return parse_attrs(mnl_attr_get_payload(nest),
			   mnl_attr_get_payload_len(nest), policy, maxtype, tb);
}

/* The attributes of a generic netlink message, after its genlmsghdr */
static int parse_genl(const struct nlmsghdr *nlh,
		      const enum mnl_attr_data_type *policy, unsigned int maxtype,
		      const struct nlattr **tb)
{
	if (nlh->nlmsg_len < MNL_NLMSG_HDRLEN + GENL_HDRLEN)
		return -EPROTO;
	return parse_attrs(mnl_nlmsg_get_payload_offset(nlh, GENL_HDRLEN),
			   nlh->nlmsg_len - MNL_NLMSG_HDRLEN - GENL_HDRLEN,
			   policy, maxtype, tb);
}

/* Copy a validated NUL-terminated string attribute that must fit @size */
static int copy_string(const struct nlattr *attr, char *dst, size_t size)
{
	const char *src = mnl_attr_get_str(attr);
	size_t len = strnlen(src, mnl_attr_get_payload_len(attr));

	if (len >= size)
		return -EPROTO;
	memcpy(dst, src, len);
	dst[len] = '\0';
	return 0;
}

static int parse_res(const struct nlattr *nest, struct vrdma_res_values *v)
{
	const struct nlattr *tb[VRDMA_RES_MAX + 1];
	int res, ret;

	memset(v, 0, sizeof(*v));
	ret = parse_nested(nest, res_policy, VRDMA_RES_MAX, tb);
	if (ret)
		return ret;
	for (res = VRDMA_RES_CTX; res <= VRDMA_RES_MAX; res++)
		if (tb[res])
			vrdma_res_set(v, res, mnl_attr_get_u64(tb[res]));
	return 0;
}

static int parse_cm_ports(const struct nlattr *nest, struct vrdma_dev *dev)
{
	const struct nlattr *a;

	mnl_attr_for_each_nested(a, nest) {
		if (mnl_attr_get_type(a) != VRDMA_CM_PORT ||
		    mnl_attr_validate(a, MNL_TYPE_U16) < 0 ||
		    dev->ncm_ports == VRDMA_CM_PORT_SLOTS)
			return -EPROTO;
		dev->cm_ports[dev->ncm_ports++] = mnl_attr_get_u16(a);
	}
	return 0;
}

/* Fill a device record from attributes already indexed by parse_genl() */
static int dev_from_attrs(const struct nlattr **tb, struct vrdma_dev *dev)
{
	int ret;

	memset(dev, 0, sizeof(*dev));
	/* A record without identity is of no use; the rest may be absent */
	if (!tb[VRDMA_ATTR_DEV_NAME] || !tb[VRDMA_ATTR_DEV_INDEX] ||
	    !tb[VRDMA_ATTR_PARENT_NAME])
		return -EPROTO;
	ret = copy_string(tb[VRDMA_ATTR_DEV_NAME], dev->name, sizeof(dev->name));
	if (ret)
		return ret;
	ret = copy_string(tb[VRDMA_ATTR_PARENT_NAME], dev->parent,
			  sizeof(dev->parent));
	if (ret)
		return ret;
	dev->index = mnl_attr_get_u32(tb[VRDMA_ATTR_DEV_INDEX]);
	dev->gid_mode = tb[VRDMA_ATTR_GID_MODE] ?
			mnl_attr_get_u8(tb[VRDMA_ATTR_GID_MODE]) : -1;
	dev->flags = tb[VRDMA_ATTR_DEV_FLAGS] ?
		     mnl_attr_get_u32(tb[VRDMA_ATTR_DEV_FLAGS]) : 0;
	if (tb[VRDMA_ATTR_CM_PORTS]) {
		ret = parse_cm_ports(tb[VRDMA_ATTR_CM_PORTS], dev);
		if (ret)
			return ret;
	}
	if (tb[VRDMA_ATTR_DRIVER_ID])
		dev->driver_id = mnl_attr_get_u32(tb[VRDMA_ATTR_DRIVER_ID]);
	if (tb[VRDMA_ATTR_NETNS_INO])
		dev->netns_ino = mnl_attr_get_u32(tb[VRDMA_ATTR_NETNS_INO]);
	if (tb[VRDMA_ATTR_PORT_STATE])
		dev->port_state = mnl_attr_get_u8(tb[VRDMA_ATTR_PORT_STATE]);
	if (tb[VRDMA_ATTR_LIMITS]) {
		ret = parse_res(tb[VRDMA_ATTR_LIMITS], &dev->limits);
		if (ret)
			return ret;
	}
	if (tb[VRDMA_ATTR_USAGE]) {
		ret = parse_res(tb[VRDMA_ATTR_USAGE], &dev->usage);
		if (ret)
			return ret;
	}
	if (tb[VRDMA_ATTR_SGIDS]) {
		ret = vrdma_parse_acl(tb[VRDMA_ATTR_SGIDS], &dev->sgids);
		if (ret)
			return ret;
	}
	if (tb[VRDMA_ATTR_PEERS]) {
		ret = vrdma_parse_acl(tb[VRDMA_ATTR_PEERS], &dev->peers);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * vrdma_parse_dev() - decode a DEV_GET reply (or event) into a record
 * @nlh: the message
 * @dev: receives the record; zeroed on failure
 *
 * DEV_NAME, DEV_INDEX and PARENT_NAME are required; the other attributes
 * leave their fields zero (limits and usage: nothing present) when absent.
 * The user-space fields (chardev, netns name) are left empty.
 *
 * Return: 0 or -EPROTO.
 */
int vrdma_parse_dev(const struct nlmsghdr *nlh, struct vrdma_dev *dev)
{
	const struct nlattr *tb[VRDMA_ATTR_MAX + 1];
	int ret;

	ret = parse_genl(nlh, dev_policy, VRDMA_ATTR_MAX, tb);
	if (!ret)
		ret = dev_from_attrs(tb, dev);
	if (ret)
		memset(dev, 0, sizeof(*dev));
	return ret;
}

/**
 * vrdma_parse_event() - decode a message of the "events" group
 * @nlh: the message
 * @ev: receives the event
 *
 * Return: 0 for an event, 1 for a message that is not an event the
 * library knows (to be skipped), -EPROTO for a malformed event.
 */
int vrdma_parse_event(const struct nlmsghdr *nlh, struct vrdma_event *ev)
{
	const struct nlattr *tb[VRDMA_ATTR_MAX + 1];
	const struct genlmsghdr *genl;
	int ret;

	memset(ev, 0, sizeof(*ev));
	if (nlh->nlmsg_len < MNL_NLMSG_HDRLEN + GENL_HDRLEN)
		return -EPROTO;
	genl = mnl_nlmsg_get_payload(nlh);
	switch (genl->cmd) {
	case VRDMA_CMD_DEV_NEW:
		ev->kind = VRDMA_EVENT_NEW;
		break;
	case VRDMA_CMD_DEV_DEL:
		ev->kind = VRDMA_EVENT_DEL;
		break;
	default:
		return 1;
	}
	ret = parse_genl(nlh, dev_policy, VRDMA_ATTR_MAX, tb);
	if (!ret)
		ret = dev_from_attrs(tb, &ev->dev);
	if (ret) {
		memset(ev, 0, sizeof(*ev));
		return ret;
	}
	ev->reason = tb[VRDMA_ATTR_REASON] ?
		     mnl_attr_get_u8(tb[VRDMA_ATTR_REASON]) : -1;
	return 0;
}

struct vdev_names {
	size_t count;
	char (*names)[VRDMA_NAME_SIZE];	/* NULL while counting */
};

static int vdev_name_attr(const struct nlattr *attr, void *data)
{
	struct vdev_names *v = data;

	if (mnl_attr_get_type(attr) != VRDMA_ATTR_DEV_NAME)
		return 0;
	if (mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) < 0)
		return -EPROTO;
	if (v->names) {
		int ret = copy_string(attr, v->names[v->count],
				      sizeof(v->names[0]));
		if (ret)
			return ret;
	}
	v->count++;
	return 0;
}

/* PARENT_VDEVS: a nest of repeated DEV_NAME attributes; count, then copy */
static int parse_vdev_names(const struct nlattr *nest, struct vrdma_parent *p)
{
	struct vdev_names v = { 0, NULL };
	const void *start = mnl_attr_get_payload(nest);
	size_t len = mnl_attr_get_payload_len(nest);
	int ret;

	ret = walk_attrs(start, len, vdev_name_attr, &v);
	if (ret || !v.count)
		return ret;
	v.names = calloc(v.count, sizeof(v.names[0]));
	if (!v.names)
		return -ENOMEM;
	v.count = 0;
	ret = walk_attrs(start, len, vdev_name_attr, &v);
	if (ret) {
		free(v.names);
		return ret;
	}
	p->vdevs = v.names;
	p->nr_vdevs = v.count;
	return 0;
}

/**
 * vrdma_parent_clear() - free what a parent record owns and zero it
 * @p: the record
 */
void vrdma_parent_clear(struct vrdma_parent *p)
{
	free(p->vdevs);
	memset(p, 0, sizeof(*p));
}

/**
 * vrdma_parse_parent() - decode a PARENT_GET reply
 * @nlh: the message
 * @p: receives the record; release with vrdma_parent_clear()
 *
 * PARENT_NAME is required.
 *
 * Return: 0, -EPROTO or -ENOMEM; @p is zeroed on failure.
 */
int vrdma_parse_parent(const struct nlmsghdr *nlh, struct vrdma_parent *p)
{
	const struct nlattr *tb[VRDMA_ATTR_MAX + 1];
	int ret;

	memset(p, 0, sizeof(*p));
	ret = parse_genl(nlh, parent_policy, VRDMA_ATTR_MAX, tb);
	if (ret)
		return ret;
	if (!tb[VRDMA_ATTR_PARENT_NAME])
		return -EPROTO;
	ret = copy_string(tb[VRDMA_ATTR_PARENT_NAME], p->name, sizeof(p->name));
	if (ret)
		return ret;
	if (tb[VRDMA_ATTR_DRIVER_ID])
		p->driver_id = mnl_attr_get_u32(tb[VRDMA_ATTR_DRIVER_ID]);
	if (tb[VRDMA_ATTR_VDEV_COUNT])
		p->vdev_count = mnl_attr_get_u32(tb[VRDMA_ATTR_VDEV_COUNT]);
	if (tb[VRDMA_ATTR_PARENT_VDEVS]) {
		ret = parse_vdev_names(tb[VRDMA_ATTR_PARENT_VDEVS], p);
		if (ret) {
			vrdma_parent_clear(p);
			return ret;
		}
	}
	return 0;
}

/**
 * vrdma_parse_version() - decode a VERSION_GET reply
 * @nlh: the message
 * @buf: receives the version string
 * @len: size of @buf
 *
 * Return: 0, -EPROTO, or -ENOSPC when @buf is too small.
 */
int vrdma_parse_version(const struct nlmsghdr *nlh, char *buf, size_t len)
{
	const struct nlattr *tb[VRDMA_ATTR_MAX + 1];
	const char *version;
	int ret;

	ret = parse_genl(nlh, version_policy, VRDMA_ATTR_MAX, tb);
	if (ret)
		return ret;
	if (!tb[VRDMA_ATTR_VERSION])
		return -EPROTO;
	version = mnl_attr_get_str(tb[VRDMA_ATTR_VERSION]);
	if (strlen(version) >= len)
		return -ENOSPC;
	strcpy(buf, version);
	return 0;
}

struct mcgrp_walk {
	uint32_t events_group;
	int err;
};

static int mcgrp_attr(const struct nlattr *attr, void *data)
{
	const struct nlattr *tb[CTRL_ATTR_MCAST_GRP_MAX + 1];
	struct mcgrp_walk *w = data;
	int ret;

	if (mnl_attr_validate(attr, MNL_TYPE_NESTED) < 0)
		return -EPROTO;
	ret = parse_nested(attr, mcgrp_policy, CTRL_ATTR_MCAST_GRP_MAX, tb);
	if (ret)
		return ret;
	if (tb[CTRL_ATTR_MCAST_GRP_NAME] && tb[CTRL_ATTR_MCAST_GRP_ID] &&
	    !strcmp(mnl_attr_get_str(tb[CTRL_ATTR_MCAST_GRP_NAME]),
		    VRDMA_GENL_MCGRP_EVENTS))
		w->events_group = mnl_attr_get_u32(tb[CTRL_ATTR_MCAST_GRP_ID]);
	return 0;
}

/**
 * vrdma_parse_family() - decode a CTRL_CMD_GETFAMILY reply
 * @nlh: the message
 * @family: receives the family id
 * @version: receives the family's protocol version, 0 if not reported
 * @events_group: receives the id of the "events" group, 0 if there is none
 *
 * Return: 0 or -EPROTO.
 */
int vrdma_parse_family(const struct nlmsghdr *nlh, uint16_t *family,
		       uint32_t *version, uint32_t *events_group)
{
	const struct nlattr *tb[CTRL_ATTR_MAX + 1];
	struct mcgrp_walk w = { 0, 0 };
	int ret;

	ret = parse_genl(nlh, ctrl_policy, CTRL_ATTR_MAX, tb);
	if (ret)
		return ret;
	if (!tb[CTRL_ATTR_FAMILY_ID] || !mnl_attr_get_u16(tb[CTRL_ATTR_FAMILY_ID]))
		return -EPROTO;
	if (tb[CTRL_ATTR_MCAST_GROUPS]) {
		const struct nlattr *groups = tb[CTRL_ATTR_MCAST_GROUPS];

		ret = walk_attrs(mnl_attr_get_payload(groups),
				 mnl_attr_get_payload_len(groups), mcgrp_attr, &w);
		if (ret)
			return ret;
	}
	*family = mnl_attr_get_u16(tb[CTRL_ATTR_FAMILY_ID]);
	*version = tb[CTRL_ATTR_VERSION] ?
		   mnl_attr_get_u32(tb[CTRL_ATTR_VERSION]) : 0;
	*events_group = w.events_group;
	return 0;
}
