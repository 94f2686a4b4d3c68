// SPDX-License-Identifier: GPL-2.0
/*
 * Per-vdevice, per-type object limits.  The rdma cgroup charges every
 * uverbs object of a vdevice under the vdevice's name but cannot tell a QP
 * from an MR; these limits can.  Charging is a compare-and-exchange loop,
 * so racing allocations never overshoot a limit.
 */
#include "vrdma.h"

/* For debug messages */
static const char *const vrdma_res_names[VRDMA_NR_RES] = VRDMA_RES_NAMES;

/* The parent's capacity per resource, as its device attributes state it. */
static u64 vrdma_parent_cap(struct vrdma_dev *vdev, enum vrdma_res res)
{
	const struct ib_device_attr *a = &vdev->parent_ibdev->attrs;

	switch (res) {
	case VRDMA_RES_PD:
		return a->max_pd;
	case VRDMA_RES_CQ:
		return a->max_cq;
	case VRDMA_RES_QP:
		return a->max_qp;
	case VRDMA_RES_SRQ:
		return a->max_srq;
	case VRDMA_RES_MR:
		return a->max_mr;
	case VRDMA_RES_MW:
		return a->max_mw;
	case VRDMA_RES_AH:
		return a->max_ah;
	default:
		return VRDMA_LIMIT_MAX;
	}
}

/**
 * vrdma_quota_init() - set the initial limits of a new vdevice
 * @vdev: the vdevice, not yet registered
 * @limit: a limit per resource (VRDMA_LIMIT_MAX: the parent's capacity)
 */
void vrdma_quota_init(struct vrdma_dev *vdev, const u64 *limit)
{
	int res;

	for (res = 0; res < VRDMA_NR_RES; res++) {
		vdev->quota.limit[res] = limit[res];
		atomic64_set(&vdev->quota.used[res], 0);
	}
	vrdma_quota_clamp_attrs(vdev, &vdev->ibdev.attrs);
}

/**
 * vrdma_quota_set() - change limits of a live vdevice
 * @vdev: the vdevice
 * @limit: the new limit per resource
 *
 * A limit below the current use keeps existing objects and refuses new
 * ones until the use falls below it.
 *
 * Context: vrdma_mutex held.
 */
void vrdma_quota_set(struct vrdma_dev *vdev, const u64 *limit)
{
	int res;

	lockdep_assert_held(&vrdma_mutex);
	for (res = 0; res < VRDMA_NR_RES; res++)
		WRITE_ONCE(vdev->quota.limit[res], limit[res]);
	/* The legacy query_device command answers from the cached attrs. */
	vrdma_quota_clamp_attrs(vdev, &vdev->ibdev.attrs);
}

/**
 * vrdma_quota_effective() - the limit that applies to a resource
 * @vdev: the vdevice
 * @res: the resource
 *
 * Return: the smaller of the vdevice limit and the parent's capacity.
 */
u64 vrdma_quota_effective(struct vrdma_dev *vdev, enum vrdma_res res)
{
	return min(READ_ONCE(vdev->quota.limit[res]),
		   vrdma_parent_cap(vdev, res));
}

/**
 * vrdma_quota_charge() - account for new objects
 * @vdev: the vdevice
 * @res: the resource
 * @n: how many objects (bytes for VRDMA_RES_MR_BYTES)
 *
 * Only the vdevice limit is checked here; the parent enforces its own
 * capacity with its own error.
 *
 * Context: any.
 * Return: 0, or -EDQUOT when the allocation would pass the limit.
 */
int vrdma_quota_charge(struct vrdma_dev *vdev, enum vrdma_res res, u64 n)
{
	atomic64_t *used = &vdev->quota.used[res];
	u64 limit = READ_ONCE(vdev->quota.limit[res]);
	s64 cur = atomic64_read(used);

	do {
		if ((u64)cur > limit || n > limit - (u64)cur) {
			vrdma_dbg(vdev, "%s: %lld used + %llu would pass the limit %llu\n",
				  vrdma_res_names[res], cur, n, limit);
			return -EDQUOT;
		}
	} while (!atomic64_try_cmpxchg(used, &cur, cur + n));
	return 0;
}

/**
 * vrdma_quota_uncharge() - account for freed objects
 * @vdev: the vdevice
 * @res: the resource
 * @n: how many objects (bytes for VRDMA_RES_MR_BYTES)
 */
void vrdma_quota_uncharge(struct vrdma_dev *vdev, enum vrdma_res res, u64 n)
{
	atomic64_sub(n, &vdev->quota.used[res]);
}

/* The smaller of a parent capability and the vdevice limit. */
static u64 vrdma_clamp(struct vrdma_dev *vdev, u64 parent, enum vrdma_res res)
{
	return min(parent, READ_ONCE(vdev->quota.limit[res]));
}

/**
 * vrdma_quota_clamp_attrs() - report the limits as device capabilities
 * @vdev: the vdevice
 * @attr: device attributes to rewrite from the parent's and the limits
 *
 * Each max_* becomes the smaller of the parent's value and the vdevice
 * limit; max_mr_size is capped by the pinned-bytes limit.
 */
void vrdma_quota_clamp_attrs(struct vrdma_dev *vdev,
			     struct ib_device_attr *attr)
{
	const struct ib_device_attr *p = &vdev->parent_ibdev->attrs;

	attr->max_pd = vrdma_clamp(vdev, p->max_pd, VRDMA_RES_PD);
	attr->max_cq = vrdma_clamp(vdev, p->max_cq, VRDMA_RES_CQ);
	attr->max_qp = vrdma_clamp(vdev, p->max_qp, VRDMA_RES_QP);
	attr->max_srq = vrdma_clamp(vdev, p->max_srq, VRDMA_RES_SRQ);
	attr->max_mr = vrdma_clamp(vdev, p->max_mr, VRDMA_RES_MR);
	attr->max_mw = vrdma_clamp(vdev, p->max_mw, VRDMA_RES_MW);
	attr->max_ah = vrdma_clamp(vdev, p->max_ah, VRDMA_RES_AH);
	/* No single MR can pin more than all of them together may. */
	attr->max_mr_size = vrdma_clamp(vdev, p->max_mr_size,
					VRDMA_RES_MR_BYTES);
}
