// SPDX-License-Identifier: GPL-2.0
/*
 * The "vrdma" generic netlink family; uapi/linux/vrdma.h documents it.
 */
#include <linux/pid_namespace.h>
#include <net/genetlink.h>
#include <net/netns/generic.h>

#include "vrdma.h"

static struct genl_family vrdma_family;

/* Events are dropped once the family is gone (module unload). */
static bool vrdma_nl_registered;

enum vrdma_mcgrp {
	VRDMA_MCGRP_EVENTS,
};

static const struct genl_multicast_group vrdma_mcgrps[] = {
	[VRDMA_MCGRP_EVENTS] = { .name = VRDMA_GENL_MCGRP_EVENTS },
};

static const struct nla_policy vrdma_res_policy[VRDMA_RES_MAX + 1] = {
	[VRDMA_RES_CTX] = { .type = NLA_U64 },
	[VRDMA_RES_PD] = { .type = NLA_U64 },
	[VRDMA_RES_CQ] = { .type = NLA_U64 },
	[VRDMA_RES_QP] = { .type = NLA_U64 },
	[VRDMA_RES_SRQ] = { .type = NLA_U64 },
	[VRDMA_RES_MR] = { .type = NLA_U64 },
	[VRDMA_RES_MW] = { .type = NLA_U64 },
	[VRDMA_RES_AH] = { .type = NLA_U64 },
	[VRDMA_RES_MR_BYTES] = { .type = NLA_U64 },
	[VRDMA_RES_DRV_OBJ] = { .type = NLA_U64 },
};

static const struct nla_policy vrdma_policy[VRDMA_ATTR_MAX + 1] = {
	/* Longer names get a clearer message from vrdma_dev_create(). */
	[VRDMA_ATTR_DEV_NAME] = { .type = NLA_NUL_STRING,
				  .len = 4 * VRDMA_DEV_NAME_MAX },
	[VRDMA_ATTR_PARENT_NAME] = { .type = NLA_NUL_STRING,
				     .len = IB_DEVICE_NAME_MAX - 1 },
	[VRDMA_ATTR_NETNS_FD] = { .type = NLA_S32 },
	[VRDMA_ATTR_NETNS_PID] = { .type = NLA_U32 },
	[VRDMA_ATTR_LIMITS] = NLA_POLICY_NESTED(vrdma_res_policy),
	/* Lists of VRDMA_ACL_ENTRY: vrdma_acl_parse() checks each entry. */
	[VRDMA_ATTR_SGIDS] = { .type = NLA_NESTED },
	[VRDMA_ATTR_PEERS] = { .type = NLA_NESTED },
	[VRDMA_ATTR_GID_MODE] = NLA_POLICY_MAX(NLA_U8, VRDMA_GID_MODE_MAX),
	[VRDMA_ATTR_DEV_FLAGS] = { .type = NLA_U32 },
	/* A list of VRDMA_CM_PORT: vrdma_nl_parse_ports() checks each. */
	[VRDMA_ATTR_CM_PORTS] = { .type = NLA_NESTED },
};

/*
 * The ports of a VRDMA_ATTR_CM_PORTS nest, into @ports (at least
 * VRDMA_CM_PORTS_MAX long); their number in @n.
 */
static int vrdma_nl_parse_ports(struct nlattr *nest, u16 *ports,
				unsigned int *n, struct netlink_ext_ack *extack)
{
	struct nlattr *a;
	unsigned int i;
	int rem;
	u16 port;

	*n = 0;
	nla_for_each_nested(a, nest, rem) {
		if (nla_type(a) != VRDMA_CM_PORT || nla_len(a) != sizeof(u16)) {
			NL_SET_ERR_MSG_ATTR(extack, a, "not an RDMA CM port");
			return -EINVAL;
		}
		if (*n == VRDMA_CM_PORTS_MAX) {
			NL_SET_ERR_MSG_ATTR(extack, a,
					    "too many RDMA CM ports (at most 16)");
			return -EINVAL;
		}
		port = nla_get_u16(a);
		if (!port) {
			NL_SET_ERR_MSG_ATTR(extack, a, "RDMA CM port 0");
			return -EINVAL;
		}
		for (i = 0; i < *n; i++) {
			if (ports[i] == port) {
				NL_SET_ERR_MSG_ATTR(extack, a,
						    "RDMA CM port listed twice");
				return -EINVAL;
			}
		}
		ports[(*n)++] = port;
	}
	return 0;
}

static int vrdma_nl_put_ports(struct sk_buff *skb, struct vrdma_dev *vdev)
{
	struct nlattr *nest;
	unsigned int i;

	if (!vdev->cm.nports)
		return 0;
	nest = nla_nest_start(skb, VRDMA_ATTR_CM_PORTS);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < vdev->cm.nports; i++) {
		if (nla_put_u16(skb, VRDMA_CM_PORT, vdev->cm.ports[i])) {
			nla_nest_cancel(skb, nest);
			return -EMSGSIZE;
		}
	}
	nla_nest_end(skb, nest);
	return 0;
}

static const int vrdma_acl_attr[VRDMA_NR_ACL] = {
	[VRDMA_ACL_SGID] = VRDMA_ATTR_SGIDS,
	[VRDMA_ACL_PEER] = VRDMA_ATTR_PEERS,
};

static void vrdma_nl_free_acls(struct vrdma_acl **acl)
{
	int kind;

	for (kind = 0; kind < VRDMA_NR_ACL; kind++)
		kfree(acl[kind]);
}

/* Parse the ACL nests present in a request into @acl (NULL: absent or empty). */
static int vrdma_nl_parse_acls(struct genl_info *info,
			       struct vrdma_acl **acl)
{
	struct vrdma_acl *parsed;
	struct nlattr *nest;
	int kind;

	memset(acl, 0, VRDMA_NR_ACL * sizeof(*acl));
	for (kind = 0; kind < VRDMA_NR_ACL; kind++) {
		nest = info->attrs[vrdma_acl_attr[kind]];
		if (!nest)
			continue;
		parsed = vrdma_acl_parse(nest, kind, info->extack);
		if (IS_ERR(parsed)) {
			vrdma_nl_free_acls(acl);
			return PTR_ERR(parsed);
		}
		acl[kind] = parsed;
	}
	return 0;
}

static bool vrdma_nl_visible(struct vrdma_dev *vdev, struct net *net)
{
	return net_eq(net, &init_net) || net_eq(vrdma_dev_net(vdev), net);
}

static int vrdma_put_res(struct sk_buff *skb, int type,
			 u64 (*get)(struct vrdma_dev *, int),
			 struct vrdma_dev *vdev)
{
	struct nlattr *nest;
	int res;

	nest = nla_nest_start(skb, type);
	if (!nest)
		return -EMSGSIZE;
	for (res = VRDMA_RES_CTX; res <= VRDMA_RES_MAX; res++)
		if (nla_put_u64_64bit(skb, res, get(vdev, res), VRDMA_RES_PAD))
			goto err_cancel;
	nla_nest_end(skb, nest);
	return 0;

err_cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

static u64 vrdma_get_limit(struct vrdma_dev *vdev, int res)
{
	return vrdma_quota_effective(vdev, res);
}

static u64 vrdma_get_usage(struct vrdma_dev *vdev, int res)
{
	return atomic64_read(&vdev->quota.used[res]);
}

/* @reason: a enum vrdma_del_reason for deletion events, else negative */
static int vrdma_fill_dev(struct sk_buff *skb, struct vrdma_dev *vdev,
			  u32 portid, u32 seq, int flags, u8 cmd,
			  struct netlink_callback *cb, int reason)
{
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &vrdma_family, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;
	if (cb)
		genl_dump_check_consistent(cb, hdr);

	if (nla_put_string(skb, VRDMA_ATTR_DEV_NAME, vdev->home_name) ||
	    nla_put_u32(skb, VRDMA_ATTR_DEV_INDEX, vdev->ibdev.index) ||
	    nla_put_string(skb, VRDMA_ATTR_PARENT_NAME,
			   vdev->parent_ibdev->name) ||
	    nla_put_u32(skb, VRDMA_ATTR_DRIVER_ID, vdev->ibdev.ops.driver_id) ||
	    nla_put_u32(skb, VRDMA_ATTR_NETNS_INO,
			vrdma_dev_net(vdev)->ns.inum) ||
	    nla_put_u8(skb, VRDMA_ATTR_PORT_STATE,
		       vrdma_dev_port_state(vdev)) ||
	    vrdma_put_res(skb, VRDMA_ATTR_LIMITS, vrdma_get_limit, vdev) ||
	    vrdma_put_res(skb, VRDMA_ATTR_USAGE, vrdma_get_usage, vdev) ||
	    vrdma_acl_fill(skb, vdev) ||
	    nla_put_u8(skb, VRDMA_ATTR_GID_MODE, vdev->gid_mode) ||
	    nla_put_u32(skb, VRDMA_ATTR_DEV_FLAGS, vdev->flags) ||
	    vrdma_nl_put_ports(skb, vdev) ||
	    (reason >= 0 && nla_put_u8(skb, VRDMA_ATTR_REASON, reason)))
		goto err_cancel;

	genlmsg_end(skb, hdr);
	return 0;

err_cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

/**
 * vrdma_nl_event_prepare() - build a creation or deletion event
 * @ev: the event to fill
 * @vdev: the vdevice, still registered
 * @cmd: VRDMA_CMD_DEV_NEW or VRDMA_CMD_DEV_DEL
 * @reason: why, for VRDMA_CMD_DEV_DEL
 *
 * An event that cannot be allocated is dropped, like any multicast
 * message under memory pressure.
 */
void vrdma_nl_event_prepare(struct vrdma_event *ev, struct vrdma_dev *vdev,
			    u8 cmd, enum vrdma_del_reason reason)
{
	struct sk_buff *skb;
	struct net *net;

	ev->skb = NULL;
	ev->net = NULL;
	if (!READ_ONCE(vrdma_nl_registered))
		return;

	skb = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!skb)
		return;
	if (vrdma_fill_dev(skb, vdev, 0, 0, 0, cmd, NULL,
			   cmd == VRDMA_CMD_DEV_DEL ? reason : -1))
		goto err_free;

	/*
	 * The tenant vrdma made the vdevice for is told, even when the RDMA
	 * core moved it away (VRDMA_DEL_MOVED).  A dying namespace has no
	 * listeners left to tell.
	 */
	net = vdev->home;
	if (!net_eq(net, &init_net))
		ev->net = maybe_get_net(net);
	ev->skb = skb;
	return;

err_free:
	nlmsg_free(skb);
}

/**
 * vrdma_nl_event_send() - multicast a prepared event
 * @ev: the event; consumed
 *
 * The host (init_net) hears about every vdevice, a container only about
 * its own.
 */
void vrdma_nl_event_send(struct vrdma_event *ev)
{
	struct sk_buff *copy;

	if (!ev->skb)
		return;
	if (ev->net) {
		copy = skb_clone(ev->skb, GFP_KERNEL);
		if (copy)
			genlmsg_multicast_netns(&vrdma_family, ev->net, copy, 0,
						VRDMA_MCGRP_EVENTS, GFP_KERNEL);
		put_net(ev->net);
	}
	genlmsg_multicast_netns(&vrdma_family, &init_net, ev->skb, 0,
				VRDMA_MCGRP_EVENTS, GFP_KERNEL);
}

static int vrdma_nl_version_get(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *msg;
	void *hdr;

	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &vrdma_family, 0,
				VRDMA_CMD_VERSION_GET);
	if (!hdr || nla_put_string(msg, VRDMA_ATTR_VERSION, VRDMA_VERSION)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

static int vrdma_nl_parse_limits(struct nlattr *nest, u64 *limit,
				 struct netlink_ext_ack *extack)
{
	struct nlattr *tb[VRDMA_RES_MAX + 1];
	int res, ret;

	if (!nest)
		return 0;
	ret = nla_parse_nested(tb, VRDMA_RES_MAX, nest, vrdma_res_policy,
			       extack);
	if (ret)
		return ret;
	for (res = VRDMA_RES_CTX; res <= VRDMA_RES_MAX; res++)
		if (tb[res])
			limit[res] = nla_get_u64(tb[res]);
	return 0;
}

static struct net *vrdma_nl_get_net(struct genl_info *info)
{
	struct nlattr *fd = info->attrs[VRDMA_ATTR_NETNS_FD];
	struct nlattr *pid = info->attrs[VRDMA_ATTR_NETNS_PID];
	struct net *net;

	if (!!fd == !!pid) {
		NL_SET_ERR_MSG(info->extack,
			       "exactly one of netns fd and netns pid is required");
		return ERR_PTR(-EINVAL);
	}
	if (fd) {
		net = get_net_ns_by_fd(nla_get_s32(fd));
		if (IS_ERR(net))
			NL_SET_ERR_MSG_ATTR(info->extack, fd,
					    "not a network namespace file");
	} else {
		net = get_net_ns_by_pid(nla_get_u32(pid));
		if (IS_ERR(net))
			NL_SET_ERR_MSG_ATTR(info->extack, pid,
					    "no such process");
	}
	return net;
}

static int vrdma_nl_dev_new(struct sk_buff *skb, struct genl_info *info)
{
	struct vrdma_dev_params params = {};
	int res, ret;

	if (GENL_REQ_ATTR_CHECK(info, VRDMA_ATTR_DEV_NAME) ||
	    GENL_REQ_ATTR_CHECK(info, VRDMA_ATTR_PARENT_NAME))
		return -EINVAL;

	params.name = nla_data(info->attrs[VRDMA_ATTR_DEV_NAME]);
	params.parent = nla_data(info->attrs[VRDMA_ATTR_PARENT_NAME]);
	for (res = 0; res < VRDMA_NR_RES; res++)
		params.limit[res] = VRDMA_LIMIT_MAX;
	ret = vrdma_nl_parse_limits(info->attrs[VRDMA_ATTR_LIMITS],
				    params.limit, info->extack);
	if (ret)
		return ret;
	ret = vrdma_nl_parse_acls(info, params.acl);
	if (ret)
		return ret;
	if (info->attrs[VRDMA_ATTR_GID_MODE])
		params.gid_mode = nla_get_u8(info->attrs[VRDMA_ATTR_GID_MODE]);
	if (info->attrs[VRDMA_ATTR_DEV_FLAGS])
		params.flags = nla_get_u32(info->attrs[VRDMA_ATTR_DEV_FLAGS]);
	if (info->attrs[VRDMA_ATTR_CM_PORTS]) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    info->attrs[VRDMA_ATTR_CM_PORTS],
				    "RDMA CM ports are published once the vdevice exists");
		ret = -EINVAL;
		goto out_free_acls;
	}
	if (params.flags & ~__VRDMA_DEV_F_ALL) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    info->attrs[VRDMA_ATTR_DEV_FLAGS],
				    "unknown device flags");
		ret = -EOPNOTSUPP;
		goto out_free_acls;
	}

	params.net = vrdma_nl_get_net(info);
	if (IS_ERR(params.net)) {
		ret = PTR_ERR(params.net);
		goto out_free_acls;
	}

	ret = vrdma_dev_create(&params, info->extack);
	put_net(params.net);
out_free_acls:
	vrdma_nl_free_acls(params.acl);
	return ret;
}

static struct vrdma_dev *vrdma_nl_find(struct genl_info *info)
{
	struct nlattr *name = info->attrs[VRDMA_ATTR_DEV_NAME];
	struct vrdma_dev *vdev;

	vdev = vrdma_dev_find(nla_data(name));
	if (!vdev || !vrdma_nl_visible(vdev, genl_info_net(info))) {
		NL_SET_ERR_MSG_ATTR(info->extack, name, "no such vrdma device");
		return NULL;
	}
	return vdev;
}

/*
 * How long DEV_DEL waits for the vdevice to be freed before it answers
 * anyway: see vrdma_dev_destroy_bounded().
 */
#define VRDMA_DEL_WAIT	(10 * HZ)

static int vrdma_nl_dev_del(struct sk_buff *skb, struct genl_info *info)
{
	struct vrdma_dev_del *del;
	struct vrdma_dev *vdev;

	if (GENL_REQ_ATTR_CHECK(info, VRDMA_ATTR_DEV_NAME))
		return -EINVAL;

	del = vrdma_dev_del_alloc();
	if (!del)
		return -ENOMEM;
	mutex_lock(&vrdma_mutex);
	vdev = vrdma_nl_find(info);
	if (vdev)
		vrdma_dev_unlink(vdev);
	mutex_unlock(&vrdma_mutex);
	if (!vdev) {
		vrdma_dev_del_free(del);
		return -ENODEV;
	}

	if (!vrdma_dev_destroy_bounded(vdev, VRDMA_DEL_USER, del,
				       VRDMA_DEL_WAIT))
		NL_SET_ERR_MSG(info->extack,
			       "deleted and cut off; freed, with a deletion event, once a verb in progress ends");
	return 0;
}

static int vrdma_nl_dev_set(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *cm_ports = info->attrs[VRDMA_ATTR_CM_PORTS];
	u16 ports[VRDMA_CM_PORTS_MAX];
	struct vrdma_acl *acl[VRDMA_NR_ACL];
	u64 limit[VRDMA_NR_RES];
	struct vrdma_dev *vdev;
	unsigned int nports = 0;
	bool rescan = false;
	int kind, ret;

	if (GENL_REQ_ATTR_CHECK(info, VRDMA_ATTR_DEV_NAME))
		return -EINVAL;
	if (info->attrs[VRDMA_ATTR_GID_MODE]) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[VRDMA_ATTR_GID_MODE],
				    "the GID mode is chosen when the vdevice is created");
		return -EINVAL;
	}
	if (info->attrs[VRDMA_ATTR_DEV_FLAGS]) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[VRDMA_ATTR_DEV_FLAGS],
				    "device flags are chosen when the vdevice is created");
		return -EINVAL;
	}
	if (!info->attrs[VRDMA_ATTR_LIMITS] && !cm_ports &&
	    !info->attrs[VRDMA_ATTR_SGIDS] && !info->attrs[VRDMA_ATTR_PEERS]) {
		NL_SET_ERR_MSG(info->extack, "nothing to change");
		return -EINVAL;
	}
	if (cm_ports) {
		ret = vrdma_nl_parse_ports(cm_ports, ports, &nports,
					   info->extack);
		if (ret)
			return ret;
	}
	ret = vrdma_nl_parse_acls(info, acl);
	if (ret)
		return ret;

	mutex_lock(&vrdma_mutex);
	vdev = vrdma_nl_find(info);
	if (!vdev) {
		ret = -ENODEV;
		goto out_unlock;
	}
	memcpy(limit, vdev->quota.limit, sizeof(limit));
	ret = vrdma_nl_parse_limits(info->attrs[VRDMA_ATTR_LIMITS], limit,
				    info->extack);
	if (ret)
		goto out_unlock;
	/* The one change that can fail, before any other is made */
	if (cm_ports) {
		ret = vrdma_cm_publish(vdev, ports, nports, info->extack);
		if (ret)
			goto out_unlock;
	}
	if (info->attrs[VRDMA_ATTR_LIMITS])
		vrdma_quota_set(vdev, limit);
	for (kind = 0; kind < VRDMA_NR_ACL; kind++) {
		if (!info->attrs[vrdma_acl_attr[kind]])
			continue;
		vrdma_acl_replace(vdev, kind, acl[kind]);
		acl[kind] = NULL;
	}
	/* Addresses SGIDS now grants enter the GID table (gid.c). */
	if (info->attrs[VRDMA_ATTR_SGIDS])
		rescan = ib_device_try_get(&vdev->ibdev);
out_unlock:
	mutex_unlock(&vrdma_mutex);
	vrdma_nl_free_acls(acl);
	if (cm_ports)
		vrdma_cm_listens_reap();
	if (rescan) {
		/* Takes RTNL and the GID table locks: not under vrdma_mutex */
		rdma_roce_rescan_device(&vdev->ibdev);
		ib_device_put(&vdev->ibdev);
	}
	return ret;
}

static int vrdma_nl_dev_get(struct sk_buff *skb, struct genl_info *info)
{
	struct vrdma_dev *vdev;
	struct sk_buff *msg;
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, VRDMA_ATTR_DEV_NAME))
		return -EINVAL;

	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;

	mutex_lock(&vrdma_mutex);
	vdev = vrdma_nl_find(info);
	ret = vdev ? vrdma_fill_dev(msg, vdev, info->snd_portid,
				    info->snd_seq, 0, VRDMA_CMD_DEV_GET, NULL,
				    -1) :
		     -ENODEV;
	mutex_unlock(&vrdma_mutex);
	if (ret) {
		nlmsg_free(msg);
		return ret;
	}
	return genlmsg_reply(msg, info);
}

/* cb->args[0]: how many visible vdevices earlier passes dumped. */
static int vrdma_nl_dev_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct net *net = sock_net(skb->sk);
	struct vrdma_dev *vdev;
	long idx = 0;

	mutex_lock(&vrdma_mutex);
	cb->seq = vrdma_generation;
	list_for_each_entry(vdev, &vrdma_devs, list) {
		if (!vrdma_nl_visible(vdev, net))
			continue;
		if (idx++ < cb->args[0])
			continue;
		if (vrdma_fill_dev(skb, vdev, NETLINK_CB(cb->skb).portid,
				   cb->nlh->nlmsg_seq, NLM_F_MULTI,
				   VRDMA_CMD_DEV_GET, cb, -1)) {
			idx--;
			break;
		}
	}
	mutex_unlock(&vrdma_mutex);
	cb->args[0] = idx;
	return skb->len;
}

struct vrdma_parent_dump {
	struct sk_buff *skb;
	struct netlink_callback *cb;
	struct net *net;
	long idx;
	bool full;
};

static int vrdma_fill_parent(struct vrdma_parent_dump *pd,
			     struct vrdma_parent *parent)
{
	struct sk_buff *skb = pd->skb;
	struct vrdma_dev *vdev;
	struct nlattr *nest;
	unsigned int count = 0;
	void *hdr;

	hdr = genlmsg_put(skb, NETLINK_CB(pd->cb->skb).portid,
			  pd->cb->nlh->nlmsg_seq, &vrdma_family, NLM_F_MULTI,
			  VRDMA_CMD_PARENT_GET);
	if (!hdr)
		return -EMSGSIZE;
	genl_dump_check_consistent(pd->cb, hdr);

	list_for_each_entry(vdev, &parent->vdevs, parent_node)
		if (vrdma_nl_visible(vdev, pd->net))
			count++;
	if (nla_put_string(skb, VRDMA_ATTR_PARENT_NAME,
			   parent->ibdev->name) ||
	    nla_put_u32(skb, VRDMA_ATTR_DRIVER_ID, parent->ibdev->ops.driver_id) ||
	    nla_put_u32(skb, VRDMA_ATTR_VDEV_COUNT, count))
		goto err_cancel;

	/* The names are a convenience: left out when they do not fit. */
	nest = nla_nest_start(skb, VRDMA_ATTR_PARENT_VDEVS);
	if (nest) {
		list_for_each_entry(vdev, &parent->vdevs, parent_node) {
			if (!vrdma_nl_visible(vdev, pd->net))
				continue;
			if (nla_put_string(skb, VRDMA_ATTR_DEV_NAME,
					   vdev->home_name)) {
				nla_nest_cancel(skb, nest);
				nest = NULL;
				break;
			}
		}
		if (nest)
			nla_nest_end(skb, nest);
	}
	genlmsg_end(skb, hdr);
	return 0;

err_cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

/*
 * Whether a parent is listed to a dump from @net: every parent to the
 * host, and to another namespace only the parents of its own vdevices.
 * Which RDMA devices the host has, and which it placed in other tenants'
 * namespaces, is not a tenant's business; the parent of its own vdevice
 * it can read from DEV_GET anyway.
 */
static bool vrdma_nl_parent_visible(struct vrdma_parent *parent,
				    struct net *net)
{
	struct vrdma_dev *vdev;

	lockdep_assert_held(&vrdma_mutex);
	if (net_eq(net, &init_net))
		return true;
	list_for_each_entry(vdev, &parent->vdevs, parent_node)
		if (vrdma_nl_visible(vdev, net))
			return true;
	return false;
}

static void vrdma_nl_parent_one(struct vrdma_parent *parent, void *arg)
{
	struct vrdma_parent_dump *pd = arg;

	if (pd->full || !vrdma_nl_parent_visible(parent, pd->net))
		return;
	if (pd->idx++ < pd->cb->args[0])
		return;
	if (vrdma_fill_parent(pd, parent)) {
		pd->idx--;
		pd->full = true;
	}
}

/* cb->args[0]: how many visible parents earlier passes dumped. */
static int vrdma_nl_parent_dump(struct sk_buff *skb,
				struct netlink_callback *cb)
{
	struct vrdma_parent_dump pd = {
		.skb = skb,
		.cb = cb,
		.net = sock_net(skb->sk),
	};

	mutex_lock(&vrdma_mutex);
	cb->seq = vrdma_generation;
	vrdma_parent_for_each(vrdma_nl_parent_one, &pd);
	mutex_unlock(&vrdma_mutex);
	cb->args[0] = pd.idx;
	return skb->len;
}

static const struct genl_ops vrdma_ops[] = {
	{
		.cmd = VRDMA_CMD_VERSION_GET,
		.doit = vrdma_nl_version_get,
	},
	{
		.cmd = VRDMA_CMD_DEV_NEW,
		.doit = vrdma_nl_dev_new,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = VRDMA_CMD_DEV_DEL,
		.doit = vrdma_nl_dev_del,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = VRDMA_CMD_DEV_SET,
		.doit = vrdma_nl_dev_set,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = VRDMA_CMD_DEV_GET,
		.doit = vrdma_nl_dev_get,
		.dumpit = vrdma_nl_dev_dump,
	},
	{
		.cmd = VRDMA_CMD_PARENT_GET,
		.dumpit = vrdma_nl_parent_dump,
	},
};

/*
 * Commands that change vdevices come from the host only.  GENL_ADMIN_PERM
 * already asks for CAP_NET_ADMIN in the initial user namespace; a
 * container granted that capability without a user namespace of its own
 * (common for pods with NET_ADMIN) must still not raise its own limits,
 * lift its own address ACLs or create devices in other namespaces.
 */
static int vrdma_nl_pre_doit(const struct vrdma_genl_doit_ops *ops,
			     struct sk_buff *skb, struct genl_info *info)
{
	if ((ops->flags & GENL_ADMIN_PERM) &&
	    !net_eq(genl_info_net(info), &init_net)) {
		NL_SET_ERR_MSG(info->extack,
			       "vdevices are managed from the initial network namespace");
		return -EPERM;
	}
	return 0;
}

static struct genl_family vrdma_family __ro_after_init = {
	.name = VRDMA_GENL_NAME,
	.version = VRDMA_GENL_VERSION,
	.maxattr = VRDMA_ATTR_MAX,
	.policy = vrdma_policy,
	.pre_doit = vrdma_nl_pre_doit,
	.netnsok = true,
	/*
	 * Not under genl_mutex, which every family without parallel_ops
	 * shares: a deletion waits for its tenant's verbs (up to
	 * VRDMA_DEL_WAIT).  Every handler takes vrdma_mutex for what it
	 * reads or changes, and dumps read vrdma_generation under it.
	 */
	.parallel_ops = true,
	.module = THIS_MODULE,
	.ops = vrdma_ops,
	.n_ops = ARRAY_SIZE(vrdma_ops),
	.resv_start_op = VRDMA_CMD_PARENT_GET + 1,
	.mcgrps = vrdma_mcgrps,
	.n_mcgrps = ARRAY_SIZE(vrdma_mcgrps),
};

/**
 * vrdma_netlink_init() - register the generic netlink family
 *
 * Return: 0 or a negative errno.
 */
int vrdma_netlink_init(void)
{
	int ret;

	ret = genl_register_family(&vrdma_family);
	if (!ret)
		WRITE_ONCE(vrdma_nl_registered, true);
	return ret;
}

/**
 * vrdma_netlink_exit() - unregister the generic netlink family
 *
 * Deletions handed to the teardown workqueue finish first.
 */
void vrdma_netlink_exit(void)
{
	/* Their deletion events need the family. */
	vrdma_dev_del_close();
	WRITE_ONCE(vrdma_nl_registered, false);
	genl_unregister_family(&vrdma_family);
}
