// SPDX-License-Identifier: GPL-2.0
/*
 * The vdevice's GID table, and GID translation.
 *
 * The RDMA core builds the vdevice's RoCE GID table from the same netdev
 * as the parent's: that netdev's addresses and those of its upper devices
 * (macvlan, ipvlan, VLAN) in every network namespace.  Every entry passes
 * through the vdevice's add_gid op first, which admits only the GIDs the
 * tenant may use (vrdma_acl_gid_allowed()); the others stay out of its table,
 * so its sysfs files and queries never show them and no verb can name
 * them by index.  What is admitted is a subset of the parent's GIDs, at
 * indices the core chooses; source GIDs of connects and AHs are therefore
 * translated by value: (GID, type, netdev).  UD work requests name theirs
 * by an index the parent reads unchanged: a vdevice has UD QPs only while
 * its indices are the parent's (vrdma_gid_ud_get()).
 */
#include <linux/netdevice.h>
#include <rdma/ib_cache.h>

#include "vrdma.h"

/* The context of an entry admitted at another index than the parent's */
static const char vrdma_gid_moved_mark;
#define VRDMA_GID_MOVED ((void *)&vrdma_gid_moved_mark)

/*
 * Does the parent hold the same GID (value, type, netdev) at the index
 * the core chose for this vdevice entry?
 */
static bool vrdma_gid_same_index(struct vrdma_dev *vdev,
				 const struct ib_gid_attr *attr)
{
	const struct ib_gid_attr *pattr;
	bool same;

	pattr = rdma_get_gid_attr(vdev->parent_ibdev, attr->port_num,
				  attr->index);
	if (IS_ERR(pattr))
		return false;
	/* The netdevs are compared, not used: no read-side section */
	same = pattr->gid_type == attr->gid_type &&
	       !memcmp(pattr->gid.raw, attr->gid.raw, sizeof(attr->gid.raw)) &&
	       rcu_access_pointer(pattr->ndev) == rcu_access_pointer(attr->ndev);
	rdma_put_gid_attr(pattr);
	return same;
}

/**
 * vrdma_add_gid() - the vdevice's add_gid op: admit a GID to its table
 * @attr: the entry the RDMA core is about to store, netdev held
 * @context: the entry's driver context, marked for an entry admitted at
 *	another index than the parent's
 *
 * A refusal keeps the entry out of the vdevice's table; the RDMA core logs
 * it ("add_roce_gid GID add failed") and goes on with the next.  The
 * parent's own table is not affected.  Refused are the GIDs the tenant may
 * not use, and, while the vdevice has UD QPs, a GID the core puts at
 * another index than the parent's: a UD work request names its source
 * GID by an index that reaches the parent unchanged.
 *
 * Context: process context, the core's GID table lock held.
 * Return: 0 to admit the GID, -EPERM or -EBUSY to keep it out.
 */
int vrdma_add_gid(const struct ib_gid_attr *attr, void **context)
{
	struct vrdma_dev *vdev = to_vdev(attr->device);

	if (!vrdma_acl_gid_allowed(vdev, attr))
		return -EPERM;
	if (vrdma_gid_same_index(vdev, attr))
		return 0;

	atomic_inc(&vdev->gid_moved);
	/* Pairs with vrdma_gid_ud_get(): one of the two sees the other. */
	smp_mb__after_atomic();
	if (atomic_read(&vdev->ud_qps)) {
		atomic_dec(&vdev->gid_moved);
		vrdma_dbg(vdev, "GID %pI6 at index %u, not the parent's: refused while UD QPs exist\n",
			  attr->gid.raw, attr->index);
		return -EBUSY;
	}
	*context = VRDMA_GID_MOVED;
	return 0;
}

/**
 * vrdma_del_gid() - the vdevice's del_gid op
 * @attr: the entry being removed
 * @context: its driver context, as vrdma_add_gid() set it
 *
 * Return: 0.
 */
int vrdma_del_gid(const struct ib_gid_attr *attr, void **context)
{
	if (*context == VRDMA_GID_MOVED) {
		atomic_dec(&to_vdev(attr->device)->gid_moved);
		*context = NULL;
	}
	return 0;
}

/**
 * vrdma_gid_ud_get() - account a new UD QP, if its GID indices are the
 *	parent's
 * @vdev: the vdevice
 *
 * A UD work request carries its source GID index into the parent (rxe's
 * address vector in the WQE, mlx5's and hns's built in user space): it
 * names the GID the application chose only if the vdevice's index of that
 * GID is the parent's.  A UD QP is therefore made only while every entry
 * of the vdevice's table sits at the parent's index of the same GID, and
 * keeps them there while it lives (vrdma_add_gid()).
 *
 * Context: any; does not sleep.
 * Return: 0 (undo with vrdma_gid_ud_put()), or -EBUSY while an entry of
 * the vdevice's table sits at another index than the parent's.
 */
int vrdma_gid_ud_get(struct vrdma_dev *vdev)
{
	atomic_inc(&vdev->ud_qps);
	/* Pairs with vrdma_add_gid(): one of the two sees the other. */
	smp_mb__after_atomic();
	if (atomic_read(&vdev->gid_moved)) {
		atomic_dec(&vdev->ud_qps);
		vrdma_dbg(vdev, "UD QP refused: GID indices differ from the parent's\n");
		return -EBUSY;
	}
	return 0;
}

/**
 * vrdma_gid_ud_put() - a UD QP of the vdevice is gone
 * @vdev: the vdevice
 */
void vrdma_gid_ud_put(struct vrdma_dev *vdev)
{
	atomic_dec(&vdev->ud_qps);
}

/*
 * The entry of @to with the GID, type and netdev of @from.  A reference
 * keeps @from's memory, not its entry: once the entry is deleted it has
 * no netdev, and a match on the GID alone could be another namespace's
 * link holding the same address.  Only a port without netdevs
 * (InfiniBand: -ENODEV) is matched without one.
 */
static const struct ib_gid_attr *
vrdma_gid_translate(struct ib_device *to, const struct ib_gid_attr *from)
{
	const struct ib_gid_attr *attr;
	struct net_device *ndev;

	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(from);
	if (IS_ERR(ndev)) {
		if (PTR_ERR(ndev) != -ENODEV) {
			rcu_read_unlock();
			return ERR_PTR(-ENOENT);
		}
		ndev = NULL;
	}
	attr = rdma_find_gid_by_port(to, &from->gid, from->gid_type,
				     from->port_num, ndev);
	rcu_read_unlock();
	return attr;
}

/**
 * vrdma_gid_to_parent() - the parent's GID entry matching a vdevice entry
 * @vdev: the vdevice
 * @vattr: an entry of the vdevice's GID table
 *
 * Return: the parent entry, held (rdma_put_gid_attr()), or an ERR_PTR.
 */
const struct ib_gid_attr *vrdma_gid_to_parent(struct vrdma_dev *vdev,
					      const struct ib_gid_attr *vattr)
{
	return vrdma_gid_translate(vdev->parent_ibdev, vattr);
}

/**
 * vrdma_ah_attr_to_parent() - rewrite an address vector for the parent
 * @vdev: the vdevice
 * @attr: a copy of a vdevice address vector; its source GID attribute is
 *	replaced by the parent's, held, which the caller must put with
 *	rdma_put_gid_attr() when it returns 0 and the attr has a GRH
 *
 * Return: 0, or -ENOENT when the parent no longer has the source GID.
 */
int vrdma_ah_attr_to_parent(struct vrdma_dev *vdev, struct rdma_ah_attr *attr)
{
	const struct ib_gid_attr *pattr;

	if (!(rdma_ah_get_ah_flags(attr) & IB_AH_GRH) || !attr->grh.sgid_attr)
		return 0;

	pattr = vrdma_gid_to_parent(vdev, attr->grh.sgid_attr);
	if (IS_ERR(pattr)) {
		vrdma_dbg(vdev, "source GID has no parent entry\n");
		return -ENOENT;
	}
	attr->grh.sgid_attr = pattr;
	attr->grh.sgid_index = pattr->index;
	return 0;
}

/**
 * vrdma_ah_attr_put() - release what vrdma_ah_attr_to_parent() took
 * @attr: the translated address vector
 */
void vrdma_ah_attr_put(struct rdma_ah_attr *attr)
{
	if ((rdma_ah_get_ah_flags(attr) & IB_AH_GRH) && attr->grh.sgid_attr)
		rdma_put_gid_attr(attr->grh.sgid_attr);
}

/**
 * vrdma_ah_attr_from_parent() - rewrite a parent address vector's source
 *	GID index into the vdevice's numbering
 * @vdev: the vdevice
 * @attr: an address vector returned by the parent (no sgid_attr)
 *
 * Return: 0, or -ENOENT when the vdevice's table has no entry for the
 * parent's (the parent's entry gone or never one the vdevice may see); the
 * index is then left as it was, which the caller must not report.
 */
int vrdma_ah_attr_from_parent(struct vrdma_dev *vdev, struct rdma_ah_attr *attr)
{
	const struct ib_gid_attr *pattr, *vattr;

	if (!(rdma_ah_get_ah_flags(attr) & IB_AH_GRH))
		return 0;

	pattr = rdma_get_gid_attr(vdev->parent_ibdev,
				  rdma_ah_get_port_num(attr),
				  attr->grh.sgid_index);
	if (IS_ERR(pattr))
		return -ENOENT;
	vattr = vrdma_gid_translate(&vdev->ibdev, pattr);
	rdma_put_gid_attr(pattr);
	if (IS_ERR(vattr))
		return -ENOENT;
	attr->grh.sgid_index = vattr->index;
	rdma_put_gid_attr(vattr);
	return 0;
}
