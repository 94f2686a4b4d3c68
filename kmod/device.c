// SPDX-License-Identifier: GPL-2.0
/*
 * The vdevice's ib_device_ops: the index of every entry point, plus the
 * device and port queries, which mirror the parent.
 */
#include <linux/netdevice.h>
#include <rdma/ib_cache.h>

#include "vrdma.h"

static int vrdma_query_device(struct ib_device *ibdev,
			      struct ib_device_attr *attr,
			      struct ib_udata *udata)
{
	struct vrdma_dev *vdev = to_vdev(ibdev);
	struct ib_device *parent_ibdev = vdev->parent_ibdev;
	struct uverbs_attr_bundle parent_bundle;
	struct ib_udata *parent_udata;
	int ret;

	/*
	 * At registration the core passes a bare, empty udata that is not
	 * inside a bundle; so does ex_query_device without driver data.
	 */
	if (!udata || (!udata->inlen && !udata->outlen)) {
		struct ib_udata empty = {};

		ret = parent_ibdev->ops.query_device(parent_ibdev, attr,
						     &empty);
	} else {
		parent_udata = vrdma_shadow_udata(&parent_bundle, udata,
						  vrdma_udata_vctx(udata));
		if (IS_ERR(parent_udata))
			return PTR_ERR(parent_udata);
		ret = parent_ibdev->ops.query_device(parent_ibdev, attr,
						     parent_udata);
	}
	if (ret)
		return ret;

	/* "rdma link del" must not unregister a vdevice behind our back. */
	attr->kernel_cap_flags &= ~IBK_ALLOW_USER_UNREG;
	/*
	 * The kernel verbs of the CM (cm_gsi.c) need no MR: with a local
	 * DMA lkey, ib_alloc_pd() never calls get_dma_mr.
	 */
	if (vdev->flags & VRDMA_DEV_F_CM)
		attr->kernel_cap_flags |= IBK_LOCAL_DMA_LKEY;
	vrdma_quota_clamp_attrs(vdev, attr);
	return 0;
}

/*
 * The length of the vdevice's GID table.  The RDMA core gives every entry
 * three sysfs files (gids/N, gid_attrs/ndevs/N, gid_attrs/types/N), about
 * 390 bytes of kernel memory, present or not; rxe declares 1024 entries,
 * which made those files most of a vdevice's memory.  One netdev needs two
 * entries per IP address (RoCE v1 and v2) plus the two defaults, so 128
 * leaves room for 63 addresses; entries past it are not seen by the
 * vdevice (Documentation/design.rst).
 */
#define VRDMA_GID_TBL_LEN 128

static int vrdma_query_port(struct ib_device *ibdev, u32 port,
			    struct ib_port_attr *attr)
{
	int ret;

	ret = ib_query_port(to_vdev(ibdev)->parent_ibdev, port, attr);
	if (ret)
		return ret;
	attr->gid_tbl_len = min(attr->gid_tbl_len, VRDMA_GID_TBL_LEN);
	return 0;
}

static int vrdma_get_port_immutable(struct ib_device *ibdev, u32 port,
				    struct ib_port_immutable *immutable)
{
	*immutable =
		*ib_port_immutable_read(to_vdev(ibdev)->parent_ibdev, port);
	immutable->gid_tbl_len = min(immutable->gid_tbl_len,
				     VRDMA_GID_TBL_LEN);
	return 0;
}

static enum rdma_link_layer vrdma_get_link_layer(struct ib_device *ibdev,
						 u32 port)
{
	return rdma_port_get_link_layer(to_vdev(ibdev)->parent_ibdev, port);
}

/*
 * The RoCE GID table of the vdevice is filled by the RDMA core from this
 * netdev and its upper devices in every namespace, as the parent's; the
 * vdevice's add_gid op (gid.c) keeps out what the tenant may not see.
 * ib_device_set_netdev() must never be used: rxe looks its devices up by
 * netdev and driver id, which the vdevice shares, and would take the
 * vdevice for an rxe device.
 */
static struct net_device *vrdma_get_netdev(struct ib_device *ibdev, u32 port)
{
	struct ib_device *parent_ibdev = to_vdev(ibdev)->parent_ibdev;
	struct net_device *ndev;

	if (parent_ibdev->ops.get_netdev)
		return parent_ibdev->ops.get_netdev(parent_ibdev, port);

	if (!rdma_is_port_valid(parent_ibdev, port))
		return NULL;
	rcu_read_lock();
	ndev = rcu_dereference(parent_ibdev->port_data[port].netdev);
	if (ndev && ndev->reg_state >= NETREG_UNREGISTERING)
		ndev = NULL;
	dev_hold(ndev);
	rcu_read_unlock();
	return ndev;
}

static int vrdma_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
			    u16 *pkey)
{
	struct ib_device *parent_ibdev = to_vdev(ibdev)->parent_ibdev;

	return parent_ibdev->ops.query_pkey(parent_ibdev, port, index, pkey);
}

static void vrdma_get_dev_fw_str(struct ib_device *ibdev, char *str)
{
	struct ib_device *parent_ibdev = to_vdev(ibdev)->parent_ibdev;

	parent_ibdev->ops.get_dev_fw_str(parent_ibdev, str);
}

static const struct ib_device_ops vrdma_dev_ops = {
	.owner = THIS_MODULE,

	.alloc_mw = vrdma_alloc_mw,
	.alloc_pd = vrdma_alloc_pd,
	.alloc_ucontext = vrdma_alloc_ucontext,
	.attach_mcast = vrdma_attach_mcast,
	.create_cq = vrdma_create_cq,
	VRDMA_CREATE_USER_CQ_OP(vrdma_create_cq)
	.create_qp = vrdma_create_qp,
	.create_srq = vrdma_create_srq,
	.add_gid = vrdma_add_gid,
	.create_user_ah = vrdma_create_user_ah,
	.dealloc_driver = vrdma_dealloc_driver,
	.dealloc_mw = vrdma_dealloc_mw,
	.dealloc_pd = vrdma_dealloc_pd,
	.dealloc_ucontext = vrdma_dealloc_ucontext,
	.del_gid = vrdma_del_gid,
	.dereg_mr = vrdma_dereg_mr,
	.destroy_ah = vrdma_destroy_ah,
	.destroy_cq = vrdma_destroy_cq,
	.destroy_qp = vrdma_destroy_qp,
	.destroy_srq = vrdma_destroy_srq,
	.detach_mcast = vrdma_detach_mcast,
	.disassociate_ucontext = vrdma_disassociate_ucontext,
	.get_dev_fw_str = vrdma_get_dev_fw_str,
	.get_link_layer = vrdma_get_link_layer,
	.get_netdev = vrdma_get_netdev,
	.get_port_immutable = vrdma_get_port_immutable,
	.mmap = vrdma_mmap,
	.modify_qp = vrdma_modify_qp,
	.modify_srq = vrdma_modify_srq,
	.poll_cq = vrdma_poll_cq,
	.post_recv = vrdma_post_recv,
	.post_send = vrdma_post_send,
	.post_srq_recv = vrdma_post_srq_recv,
	.query_device = vrdma_query_device,
	.query_pkey = vrdma_query_pkey,
	.query_port = vrdma_query_port,
	.query_qp = vrdma_query_qp,
	.query_srq = vrdma_query_srq,
	.query_ucontext = vrdma_query_ucontext,
	.reg_user_mr = vrdma_reg_user_mr,
	.reg_user_mr_dmabuf = vrdma_reg_user_mr_dmabuf,
	.req_notify_cq = vrdma_req_notify_cq,
	.VRDMA_OP_RESIZE_CQ = vrdma_resize_cq,

	INIT_RDMA_OBJ_SIZE(ib_ah, vrdma_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_mw, vrdma_mw, ibmw),
	INIT_RDMA_OBJ_SIZE(ib_qp, vrdma_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_srq, vrdma_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, vrdma_ucontext, ibuc),
};

/*
 * Ops the vdevice offers only when its parent has them, so that user space
 * sees the parent's own answer (EOPNOTSUPP, or the method hidden by the
 * uverbs uapi) for what the parent cannot do.
 */
#define VRDMA_OP_OFFSET(op) offsetof(typeof(vrdma_dev_ops), op)

static const size_t vrdma_optional_ops[] = {
	VRDMA_OP_OFFSET(alloc_mw),
	VRDMA_OP_OFFSET(attach_mcast),
	VRDMA_OP_OFFSET(create_srq),
	VRDMA_OP_OFFSET(create_user_ah),
	VRDMA_OP_OFFSET(dealloc_mw),
	VRDMA_OP_OFFSET(destroy_srq),
	VRDMA_OP_OFFSET(detach_mcast),
	VRDMA_OP_OFFSET(get_dev_fw_str),
	VRDMA_OP_OFFSET(modify_srq),
	VRDMA_OP_OFFSET(poll_cq),
	VRDMA_OP_OFFSET(post_recv),
	VRDMA_OP_OFFSET(post_send),
	VRDMA_OP_OFFSET(post_srq_recv),
	VRDMA_OP_OFFSET(query_pkey),
	VRDMA_OP_OFFSET(query_qp),
	VRDMA_OP_OFFSET(query_srq),
	VRDMA_OP_OFFSET(query_ucontext),
	VRDMA_OP_OFFSET(reg_user_mr_dmabuf),
	VRDMA_OP_OFFSET(req_notify_cq),
	VRDMA_OP_OFFSET(VRDMA_OP_RESIZE_CQ),
};

/**
 * vrdma_dev_set_ops() - install the vdevice ops, shaped after the parent
 * @vdev: the vdevice, not yet registered
 *
 * The vdevice speaks its parent's user ABI: same driver id and uverbs ABI
 * version, so the parent's stock rdma-core provider binds to it and the
 * driver id carried in every ioctl matches.
 */
void vrdma_dev_set_ops(struct vrdma_dev *vdev)
{
	const void *pops = &vdev->parent_ibdev->ops;
	void *ops = &vdev->ibdev.ops;
	void (*fn)(void);
	size_t i, off;

	ib_set_device_ops(&vdev->ibdev, &vrdma_dev_ops);
	/* PDs and CQs carry their shadow: see VRDMA_SHADOW_OFFSET(). */
	vdev->ibdev.ops.size_ib_pd =
		VRDMA_SHADOW_OFFSET(ib_pd) + vdev->parent_ibdev->ops.size_ib_pd;
	vdev->ibdev.ops.size_ib_cq =
		VRDMA_SHADOW_OFFSET(ib_cq) + vdev->parent_ibdev->ops.size_ib_cq;
	vdev->ibdev.ops.driver_id = vdev->parent_ibdev->ops.driver_id;
	vdev->ibdev.ops.uverbs_abi_ver = vdev->parent_ibdev->ops.uverbs_abi_ver;
	vdev->ibdev.ops.uverbs_no_driver_id_binding =
		vdev->parent_ibdev->ops.uverbs_no_driver_id_binding;
	vrdma_fwd_init(vdev);

	for (i = 0; i < ARRAY_SIZE(vrdma_optional_ops); i++) {
		off = vrdma_optional_ops[i];
		memcpy(&fn, pops + off, sizeof(fn));
		if (!fn)
			memset(ops + off, 0, sizeof(fn));
	}
	vrdma_cm_set_ops(vdev);
	vrdma_cm_proxy_init(vdev);
}
