// SPDX-License-Identifier: MIT
/*
 * vdevices: list, look up, create, remove, change limits.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

static int parse_dev_item(const struct nlmsghdr *nlh, void *item)
{
	return vrdma_parse_dev(nlh, item) ? -EPROTO : 0;
}

int vrdma_dev_list_sz(struct vrdma_handle *h, struct vrdma_dev_list **listp,
		      size_t dev_size)
{
	struct vrdma_collect c = VRDMA_COLLECT_INIT(struct vrdma_dev,
						    parse_dev_item, NULL);
	struct vrdma_dev_list *list;
	void *devs;
	int ret;

	*listp = NULL;
	ret = vrdma_collect_list(h, VRDMA_CMD_DEV_GET, "vrdma_dev", dev_size,
				 VRDMA_DEV_SIZE_1_0, &c);
	if (ret)
		return ret;
	vrdma_dev_add_hostinfo(c.items, c.count);
	/* The library's own array when the caller's stride is the same */
	if (dev_size != sizeof(struct vrdma_dev)) {
		devs = vrdma_collect_copy(&c, dev_size);
		if (!devs)
			return vrdma_collect_nomem(h, &c);
		free(c.items);
		c.items = devs;
	}
	list = malloc(sizeof(*list));
	if (!list)
		return vrdma_collect_nomem(h, &c);
	list->devs = c.items;
	list->count = c.count;
	*listp = list;
	return vrdma_ok(h);
}

void vrdma_dev_list_free(struct vrdma_dev_list *list)
{
	if (!list)
		return;
	free(list->devs);
	free(list);
}

struct dev_one {
	struct vrdma_dev *dev;
	int count;
};

static int dev_one_cb(const struct nlmsghdr *nlh, void *data)
{
	struct dev_one *one = data;

	/* A doit answers with exactly one record */
	if (one->count++)
		return -EPROTO;
	return vrdma_parse_dev(nlh, one->dev);
}

/* Names go into a fixed-size request; the kernel enforces the real rules */
static int check_name(struct vrdma_handle *h, const char *what,
		      const char *name)
{
	if (!name || !*name)
		return vrdma_set_error(h, -EINVAL, "%s name is missing", what);
	if (strlen(name) > VRDMA_REQ_NAME_MAX)
		return vrdma_set_error(h, -ENAMETOOLONG, "%s name is too long",
				       what);
	return 0;
}

/*
 * Start in @req the request @cmd on the vdevice @name; 0 with the message
 * in *@nlhp, or the error also left in the handle (a bad name, no family).
 */
static int dev_msg_start(struct vrdma_handle *h, union vrdma_msgbuf *req,
			 uint8_t cmd, const char *name,
			 struct nlmsghdr **nlhp)
{
	int ret;

	ret = check_name(h, "device", name);
	if (!ret)
		ret = vrdma_resolve_family(h);
	if (ret)
		return ret;
	*nlhp = vrdma_msg_start(h, req->buf, cmd, NLM_F_ACK);
	mnl_attr_put_strz(*nlhp, VRDMA_ATTR_DEV_NAME, name);
	return 0;
}

int vrdma_dev_get_sz(struct vrdma_handle *h, const char *name,
		     struct vrdma_dev *out, size_t dev_size)
{
	union vrdma_msgbuf req;
	struct vrdma_dev devbuf, *dev = &devbuf;
	struct dev_one one = { dev, 0 };
	struct nlmsghdr *nlh;
	int ret;

	ret = vrdma_check_struct_size(h, "vrdma_dev", dev_size,
				      VRDMA_DEV_SIZE_1_0);
	if (ret)
		return ret;
	memset(out, 0, dev_size);
	memset(dev, 0, sizeof(*dev));
	ret = dev_msg_start(h, &req, VRDMA_CMD_DEV_GET, name, &nlh);
	if (ret)
		return ret;
	ret = vrdma_request(h, nlh, dev_one_cb, &one);
	if (ret)
		return ret;
	if (one.count != 1 || strcmp(dev->name, name))
		return vrdma_set_error(h, -EPROTO,
				       "the kernel answered with another device");
	vrdma_dev_add_hostinfo(dev, 1);
	vrdma_copy_sized(out, dev_size, dev, sizeof(*dev));
	return vrdma_ok(h);
}

/* Only resources marked present go into the nest */
static int put_limits(struct vrdma_handle *h, struct nlmsghdr *nlh,
		      const struct vrdma_res_values *limits)
{
	struct nlattr *nest;
	int res;

	if (limits->present & ~(((1u << __VRDMA_RES_MAX) - 1) &
				~((1u << VRDMA_RES_CTX) - 1)))
		return vrdma_set_error(h, -EINVAL, "unknown resource in limits");
	nest = mnl_attr_nest_start(nlh, VRDMA_ATTR_LIMITS);
	for (res = VRDMA_RES_CTX; res <= VRDMA_RES_MAX; res++)
		if (vrdma_res_has(limits, res))
			mnl_attr_put_u64(nlh, res, limits->val[res]);
	mnl_attr_nest_end(nlh, nest);
	return 0;
}

/*
 * A path is opened here and passed as a file descriptor, which the caller
 * closes once the kernel has answered (*fd_to_close, -1 if none).
 */
static int put_netns(struct vrdma_handle *h, struct nlmsghdr *nlh,
		     const struct vrdma_netns_spec *ns, int *fd_to_close)
{
	int fd;

	*fd_to_close = -1;
	if (!ns)
		return vrdma_set_error(h, -EINVAL, "no network namespace given");
	switch (ns->kind) {
	case VRDMA_NETNS_FD:
		mnl_attr_put_u32(nlh, VRDMA_ATTR_NETNS_FD, (uint32_t)ns->fd);
		return 0;
	case VRDMA_NETNS_PID:
		mnl_attr_put_u32(nlh, VRDMA_ATTR_NETNS_PID, (uint32_t)ns->pid);
		return 0;
	case VRDMA_NETNS_PATH:
		if (!ns->path)
			break;
		fd = open(ns->path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return vrdma_set_error(h, -errno, "%s", ns->path);
		mnl_attr_put_u32(nlh, VRDMA_ATTR_NETNS_FD, (uint32_t)fd);
		*fd_to_close = fd;
		return 0;
	}
	return vrdma_set_error(h, -EINVAL, "bad network namespace");
}

int vrdma_dev_add(struct vrdma_handle *h, const char *name, const char *parent,
		  const struct vrdma_netns_spec *netns,
		  const struct vrdma_res_values *limits)
{
	return vrdma_dev_add_acl(h, name, parent, netns, limits, NULL, NULL);
}

int vrdma_dev_add_acl(struct vrdma_handle *h, const char *name,
		      const char *parent, const struct vrdma_netns_spec *netns,
		      const struct vrdma_res_values *limits,
		      const struct vrdma_acl *sgids,
		      const struct vrdma_acl *peers)
{
	return vrdma_dev_add_gids(h, name, parent, netns, limits, sgids, peers,
				  VRDMA_GID_MODE_DEFAULT);
}

int vrdma_dev_add_gids(struct vrdma_handle *h, const char *name,
		       const char *parent, const struct vrdma_netns_spec *netns,
		       const struct vrdma_res_values *limits,
		       const struct vrdma_acl *sgids,
		       const struct vrdma_acl *peers, int gid_mode)
{
	return vrdma_dev_add_flags(h, name, parent, netns, limits, sgids,
				   peers, gid_mode, 0);
}

int vrdma_dev_add_flags(struct vrdma_handle *h, const char *name,
			const char *parent,
			const struct vrdma_netns_spec *netns,
			const struct vrdma_res_values *limits,
			const struct vrdma_acl *sgids,
			const struct vrdma_acl *peers, int gid_mode,
			uint32_t flags)
{
	union vrdma_msgbuf req;
	struct nlmsghdr *nlh;
	int fd, ret;

	if (gid_mode != VRDMA_GID_MODE_DEFAULT &&
	    (gid_mode < 0 || gid_mode > VRDMA_GID_MODE_MAX))
		return vrdma_set_error(h, -EINVAL, "bad GID mode %d", gid_mode);
	ret = check_name(h, "device", name);
	if (!ret)
		ret = check_name(h, "parent", parent);
	if (!ret)
		ret = vrdma_resolve_family(h);
	if (ret)
		return ret;
	nlh = vrdma_msg_start(h, req.buf, VRDMA_CMD_DEV_NEW, NLM_F_ACK);
	if (gid_mode != VRDMA_GID_MODE_DEFAULT)
		mnl_attr_put_u8(nlh, VRDMA_ATTR_GID_MODE, (uint8_t)gid_mode);
	if (flags)
		mnl_attr_put_u32(nlh, VRDMA_ATTR_DEV_FLAGS, flags);
	mnl_attr_put_strz(nlh, VRDMA_ATTR_DEV_NAME, name);
	mnl_attr_put_strz(nlh, VRDMA_ATTR_PARENT_NAME, parent);
	if (limits) {
		ret = put_limits(h, nlh, limits);
		if (ret)
			return ret;
	}
	ret = vrdma_put_acl(h, nlh, VRDMA_ATTR_SGIDS, sgids);
	if (!ret)
		ret = vrdma_put_acl(h, nlh, VRDMA_ATTR_PEERS, peers);
	if (ret)
		return ret;
	ret = put_netns(h, nlh, netns, &fd);
	if (ret)
		return ret;
	ret = vrdma_request(h, nlh, NULL, NULL);
	if (fd >= 0)
		close(fd);
	return ret ? ret : vrdma_ok(h);
}

int vrdma_dev_del(struct vrdma_handle *h, const char *name)
{
	union vrdma_msgbuf req;
	struct nlmsghdr *nlh;
	int ret;

	ret = dev_msg_start(h, &req, VRDMA_CMD_DEV_DEL, name, &nlh);
	if (!ret)
		ret = vrdma_request(h, nlh, NULL, NULL);
	return ret ? ret : vrdma_ok(h);
}

int vrdma_dev_set(struct vrdma_handle *h, const char *name,
		  const struct vrdma_res_values *limits)
{
	int ret;

	ret = check_name(h, "device", name);
	if (ret)
		return ret;
	if (!limits || !limits->present)
		return vrdma_set_error(h, -EINVAL, "no limit to change");
	return vrdma_dev_set_acl(h, name, limits, NULL, NULL);
}

int vrdma_dev_set_cm_ports(struct vrdma_handle *h, const char *name,
			   const uint16_t *ports, size_t n)
{
	union vrdma_msgbuf req;
	struct nlattr *nest;
	struct nlmsghdr *nlh;
	size_t i;
	int ret;

	ret = check_name(h, "device", name);
	if (ret)
		return ret;
	if (n > VRDMA_CM_PORT_SLOTS || (n && !ports))
		return vrdma_set_error(h, -EINVAL, "bad list of ports");
	ret = dev_msg_start(h, &req, VRDMA_CMD_DEV_SET, name, &nlh);
	if (ret)
		return ret;
	nest = mnl_attr_nest_start(nlh, VRDMA_ATTR_CM_PORTS);
	for (i = 0; i < n; i++)
		mnl_attr_put_u16(nlh, VRDMA_CM_PORT, ports[i]);
	mnl_attr_nest_end(nlh, nest);
	ret = vrdma_request(h, nlh, NULL, NULL);
	return ret ? ret : vrdma_ok(h);
}

int vrdma_dev_set_acl(struct vrdma_handle *h, const char *name,
		      const struct vrdma_res_values *limits,
		      const struct vrdma_acl *sgids,
		      const struct vrdma_acl *peers)
{
	bool have_limits = limits && limits->present;
	union vrdma_msgbuf req;
	struct nlmsghdr *nlh;
	int ret;

	ret = check_name(h, "device", name);
	if (ret)
		return ret;
	if (!have_limits && !(sgids && sgids->present) &&
	    !(peers && peers->present))
		return vrdma_set_error(h, -EINVAL, "nothing to change");
	ret = dev_msg_start(h, &req, VRDMA_CMD_DEV_SET, name, &nlh);
	if (ret)
		return ret;
	ret = have_limits ? put_limits(h, nlh, limits) : 0;
	if (!ret)
		ret = vrdma_put_acl(h, nlh, VRDMA_ATTR_SGIDS, sgids);
	if (!ret)
		ret = vrdma_put_acl(h, nlh, VRDMA_ATTR_PEERS, peers);
	if (!ret)
		ret = vrdma_request(h, nlh, NULL, NULL);
	return ret ? ret : vrdma_ok(h);
}
