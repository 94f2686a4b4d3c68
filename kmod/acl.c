// SPDX-License-Identifier: GPL-2.0
/*
 * A vdevice's address policy: which GIDs it may see and send from (its
 * own namespace's, all of its parent's in the shared GID mode, or
 * exactly what its source ACL lists) and which destination GIDs it may
 * reach, the ACLs by IPv4/IPv6 prefix.  gid.c asks it for every entry of
 * the vdevice's GID table (vrdma_acl_gid_allowed()).
 *
 * The check runs on the control path only, when an address vector is
 * handed to the parent (a QP modified with IB_QP_AV or IB_QP_ALT_PATH, an
 * AH created); the data path is untouched.  An ACL is immutable once
 * published: DEV_SET builds a new one and swaps the pointer under
 * vrdma_mutex, readers hold rcu_read_lock() and the old list is freed
 * after a grace period.  A NULL ACL allows everything.
 */
#include <linux/slab.h>
#include <net/genetlink.h>
#include <net/ipv6.h>

#include "vrdma.h"

static const struct nla_policy vrdma_acl_entry_policy[VRDMA_ACL_ATTR_MAX + 1] = {
	[VRDMA_ACL_ADDR] = NLA_POLICY_EXACT_LEN(sizeof(struct in6_addr)),
	[VRDMA_ACL_PREFIX_LEN] = NLA_POLICY_MAX(NLA_U8, 128),
};

static int vrdma_acl_parse_entry(const struct nlattr *attr,
				 enum vrdma_acl_kind kind,
				 struct vrdma_acl_entry *e,
				 struct netlink_ext_ack *extack)
{
	struct nlattr *tb[VRDMA_ACL_ATTR_MAX + 1];
	struct in6_addr addr;
	int ret;

	if (nla_type(attr) != VRDMA_ACL_ENTRY) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "an address list holds only entries");
		return -EINVAL;
	}
	ret = nla_parse_nested(tb, VRDMA_ACL_ATTR_MAX, attr,
			       vrdma_acl_entry_policy, extack);
	if (ret)
		return ret;
	if (!tb[VRDMA_ACL_ADDR]) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "address list entry without address");
		return -EINVAL;
	}
	nla_memcpy(&addr, tb[VRDMA_ACL_ADDR], sizeof(addr));
	e->plen = tb[VRDMA_ACL_PREFIX_LEN] ?
		  nla_get_u8(tb[VRDMA_ACL_PREFIX_LEN]) : 128;
	if (kind == VRDMA_ACL_SGID && e->plen != 128) {
		NL_SET_ERR_MSG_ATTR(extack, tb[VRDMA_ACL_PREFIX_LEN],
				    "a source address is one address, not a prefix");
		return -EINVAL;
	}
	if (ipv6_addr_v4mapped(&addr) && e->plen < 96) {
		NL_SET_ERR_MSG_ATTR(extack, tb[VRDMA_ACL_PREFIX_LEN],
				    "an IPv4 prefix is at most 32 bits long");
		return -EINVAL;
	}
	/* Not in place: ipv6_addr_prefix() clears its output first. */
	ipv6_addr_prefix(&e->addr, &addr, e->plen);
	return 0;
}

/**
 * vrdma_acl_parse() - build an ACL from a VRDMA_ATTR_SGIDS/PEERS nest
 * @nest: the nest, already known to be of type NLA_NESTED
 * @kind: which ACL it is
 * @extack: where to report errors
 *
 * Return: the new ACL (kfree() it unless it is handed on), NULL for an
 * empty nest (everything allowed), or an ERR_PTR with a message in @extack.
 */
struct vrdma_acl *vrdma_acl_parse(const struct nlattr *nest,
				  enum vrdma_acl_kind kind,
				  struct netlink_ext_ack *extack)
{
	const struct nlattr *attr;
	struct vrdma_acl *acl;
	unsigned int n = 0;
	int rem, ret;

	nla_for_each_nested(attr, nest, rem)
		n++;
	if (rem) {
		NL_SET_ERR_MSG_ATTR(extack, nest, "malformed address list");
		return ERR_PTR(-EINVAL);
	}
	if (n > VRDMA_ACL_MAX_ENTRIES) {
		NL_SET_ERR_MSG_ATTR(extack, nest,
				    "too many addresses: at most 16");
		return ERR_PTR(-E2BIG);
	}
	if (!n)
		return NULL;

	acl = kzalloc(struct_size(acl, entry, n), GFP_KERNEL);
	if (!acl)
		return ERR_PTR(-ENOMEM);
	nla_for_each_nested(attr, nest, rem) {
		ret = vrdma_acl_parse_entry(attr, kind, &acl->entry[acl->n],
					    extack);
		if (ret)
			goto err_free;
		acl->n++;
	}
	return acl;

err_free:
	kfree(acl);
	return ERR_PTR(ret);
}

/**
 * vrdma_acl_init() - give a new vdevice copies of its initial ACLs
 * @vdev: the vdevice, not yet registered
 * @acl: one ACL per enum vrdma_acl_kind, NULL for "everything allowed";
 *	not consumed
 *
 * Whatever was copied is freed by vrdma_acl_free(), also on failure.
 *
 * Return: 0 or -ENOMEM.
 */
int vrdma_acl_init(struct vrdma_dev *vdev, struct vrdma_acl *const *acl)
{
	struct vrdma_acl *copy;
	int kind;

	for (kind = 0; kind < VRDMA_NR_ACL; kind++) {
		if (!acl[kind])
			continue;
		copy = kmemdup(acl[kind], struct_size(copy, entry, acl[kind]->n),
			       GFP_KERNEL);
		if (!copy)
			return -ENOMEM;
		RCU_INIT_POINTER(vdev->acl[kind], copy);
	}
	return 0;
}

/**
 * vrdma_acl_replace() - publish a new ACL and retire the old one
 * @vdev: the vdevice
 * @kind: which ACL
 * @acl: the new ACL, consumed; NULL allows everything
 *
 * Context: holds vrdma_mutex.  Readers that still see the old ACL finish
 * with it before it is freed.
 */
void vrdma_acl_replace(struct vrdma_dev *vdev, enum vrdma_acl_kind kind,
		       struct vrdma_acl *acl)
{
	struct vrdma_acl *old;

	lockdep_assert_held(&vrdma_mutex);
	old = rcu_replace_pointer(vdev->acl[kind], acl,
				  lockdep_is_held(&vrdma_mutex));
	if (old)
		kfree_rcu(old, rcu);
}

/**
 * vrdma_acl_free() - free a vdevice's ACLs
 * @vdev: the vdevice, unregistered (no verbs caller is left) or never
 *	registered
 */
void vrdma_acl_free(struct vrdma_dev *vdev)
{
	struct vrdma_acl *acl;
	int kind;

	for (kind = 0; kind < VRDMA_NR_ACL; kind++) {
		acl = rcu_replace_pointer(vdev->acl[kind], NULL, true);
		if (acl)
			kfree_rcu(acl, rcu);
	}
}

static int vrdma_acl_put(struct sk_buff *skb, int type,
			 const struct vrdma_acl *acl)
{
	struct nlattr *list, *entry;
	unsigned int i;

	if (!acl)
		return 0;
	list = nla_nest_start(skb, type);
	if (!list)
		return -EMSGSIZE;
	for (i = 0; i < acl->n; i++) {
		entry = nla_nest_start(skb, VRDMA_ACL_ENTRY);
		if (!entry ||
		    nla_put_in6_addr(skb, VRDMA_ACL_ADDR, &acl->entry[i].addr) ||
		    nla_put_u8(skb, VRDMA_ACL_PREFIX_LEN, acl->entry[i].plen))
			goto err_cancel;
		nla_nest_end(skb, entry);
	}
	nla_nest_end(skb, list);
	return 0;

err_cancel:
	nla_nest_cancel(skb, list);
	return -EMSGSIZE;
}

/**
 * vrdma_acl_fill() - put a vdevice's restricted ACLs into a message
 * @skb: the message
 * @vdev: the vdevice
 *
 * An ACL that allows everything is left out.
 *
 * Return: 0 or -EMSGSIZE.
 */
int vrdma_acl_fill(struct sk_buff *skb, struct vrdma_dev *vdev)
{
	int ret;

	rcu_read_lock();
	ret = vrdma_acl_put(skb, VRDMA_ATTR_SGIDS,
			    rcu_dereference(vdev->acl[VRDMA_ACL_SGID]));
	if (!ret)
		ret = vrdma_acl_put(skb, VRDMA_ATTR_PEERS,
				    rcu_dereference(vdev->acl[VRDMA_ACL_PEER]));
	rcu_read_unlock();
	return ret;
}

static bool vrdma_acl_match(const struct vrdma_acl *acl,
			    const union ib_gid *gid)
{
	const struct in6_addr *addr = (const struct in6_addr *)gid->raw;
	unsigned int i;

	if (!acl)
		return true;
	for (i = 0; i < acl->n; i++)
		if (ipv6_prefix_equal(addr, &acl->entry[i].addr,
				      acl->entry[i].plen))
			return true;
	return false;
}

/**
 * vrdma_acl_gid_allowed() - may a vdevice see and use this GID?
 * @vdev: the vdevice
 * @attr: a GID entry of the vdevice (being added, or held)
 *
 * With a source ACL, exactly the GIDs whose address it lists, whichever
 * namespace their netdev is in, the namespace's own included: a tenant
 * that may configure its own netdevs could otherwise put any address on
 * them and send from it.  Without one, the GIDs of netdevs in the
 * vdevice's own network namespace, and every GID in
 * VRDMA_GID_MODE_SHARED.
 *
 * Context: any; does not sleep.
 * Return: true if the vdevice may have the GID in its table and send from it.
 */
bool vrdma_acl_gid_allowed(struct vrdma_dev *vdev,
			   const struct ib_gid_attr *attr)
{
	const struct vrdma_acl *sgids;
	struct net_device *ndev;
	bool ret;

	rcu_read_lock();
	sgids = rcu_dereference(vdev->acl[VRDMA_ACL_SGID]);
	if (sgids) {
		ret = vrdma_acl_match(sgids, &attr->gid);
	} else {
		ndev = rcu_dereference(attr->ndev);
		ret = (ndev && net_eq(dev_net(ndev), vdev->home)) ||
		      vdev->gid_mode == VRDMA_GID_MODE_SHARED;
	}
	rcu_read_unlock();
	return ret;
}

/**
 * vrdma_acl_check_av() - may a vdevice use this address vector?
 * @vdev: the vdevice
 * @attr: the address vector, in vdevice terms, with its source GID
 *	attribute filled in by the core
 *
 * The source GID must be one the vdevice may use (vrdma_acl_gid_allowed():
 * its table holds no other, this catches a grant withdrawn since), the
 * destination GID in one of the peer prefixes.  Without a GRH nothing can
 * be checked, so a restricted vdevice refuses it.
 *
 * Context: any; does not sleep.
 * Return: 0, or -EACCES when an ACL refuses the address vector.
 */
int vrdma_acl_check_av(struct vrdma_dev *vdev,
		       const struct rdma_ah_attr *attr)
{
	const struct ib_global_route *grh;
	const struct vrdma_acl *peers;
	int ret = -EACCES;

	if (!vrdma_acl_restricted(vdev))
		return 0;
	if (!(rdma_ah_get_ah_flags(attr) & IB_AH_GRH)) {
		vrdma_dbg(vdev, "address vector without GRH refused\n");
		return -EACCES;
	}
	grh = rdma_ah_read_grh(attr);
	if (!grh->sgid_attr || !vrdma_acl_gid_allowed(vdev, grh->sgid_attr)) {
		vrdma_dbg(vdev, "source GID %pI6 not allowed\n",
			  grh->sgid_attr ? grh->sgid_attr->gid.raw : NULL);
		return -EACCES;
	}
	rcu_read_lock();
	peers = rcu_dereference(vdev->acl[VRDMA_ACL_PEER]);
	if (!vrdma_acl_match(peers, &grh->dgid)) {
		vrdma_dbg(vdev, "destination GID %pI6 not allowed\n",
			  grh->dgid.raw);
		goto out_unlock;
	}
	ret = 0;
out_unlock:
	rcu_read_unlock();
	return ret;
}

/**
 * vrdma_acl_restricted() - is a vdevice limited in the addresses it uses?
 * @vdev: the vdevice
 *
 * True for a vdevice with a source or peer ACL, and for one that does not
 * share its parent's GIDs (VRDMA_GID_MODE_TENANT).  What the ACLs cannot
 * check (UD QPs, multicast) is refused when this holds.  An ACL published
 * later does not reach UD QPs created before it: set ACLs when creating
 * the vdevice (Documentation/security.rst).
 *
 * Context: any; does not sleep.
 * Return: true if the vdevice's address vectors must be checked.
 */
bool vrdma_acl_restricted(struct vrdma_dev *vdev)
{
	/* Only whether there is one: no dereference, no read-side section */
	return vdev->gid_mode != VRDMA_GID_MODE_SHARED ||
	       rcu_access_pointer(vdev->acl[VRDMA_ACL_SGID]) ||
	       rcu_access_pointer(vdev->acl[VRDMA_ACL_PEER]);
}
