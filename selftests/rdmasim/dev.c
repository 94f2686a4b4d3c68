// SPDX-License-Identifier: GPL-2.0
/*
 * rdmasim: the devices, their identity and their attributes.
 */
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/idr.h>
#include <linux/platform_device.h>
#include <linux/string.h>
#include <net/addrconf.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_addr.h>
#include <rdma/rdma_netlink.h>

#include <rdma/rdmasim-abi.h>
#include "sim.h"

/*
 * The DMA device of every sim device, as a NIC's PCI function is: the
 * exporter of a DMA-BUF maps it for this device (dma-direct, 64 bits).
 */
struct platform_device *sim_dma_pdev;

/* Every registered sim device, for module exit; guarded by sim_devs_lock */
LIST_HEAD(sim_devs);
/* Protects sim_devs and each sim_dev's list_node and exiting flag */
DEFINE_MUTEX(sim_devs_lock);

/**
 * sim_is_ours() - is a device a sim device?
 * @ibdev: the device, may be NULL
 *
 * Compared by an op every personality shares, never by a container_of on
 * a device that may be another driver's (vrdma's vdevices copy the
 * parent's driver_id, so that is not proof).
 *
 * Return: true for a sim device of any personality.
 */
bool sim_is_ours(struct ib_device *ibdev)
{
	return ibdev && ibdev->ops.dealloc_driver == sim_dev_ops.dealloc_driver;
}

/**
 * sim_query_device() - the device's attributes, and rdmasim's driver data
 * @ibdev: the device
 * @attr: filled in whole
 * @udata: the caller's driver data, or NULL (a personality asking for the
 *	attributes only)
 *
 * Return: 0 or the error of the copy to user space.
 */
int sim_query_device(struct ib_device *ibdev, struct ib_device_attr *attr,
		     struct ib_udata *udata)
{
	struct sim_dev *sdev = to_sdev(ibdev);
	struct rdmasim_query_device_resp resp = {
		.magic = RDMASIM_MAGIC,
		.abi_version = RDMASIM_ABI_VERSION,
		.max_uars = SIM_MAX_UARS,
	};

	memset(attr, 0, sizeof(*attr));
	attr->vendor_id = 0x5153;
	attr->vendor_part_id = 1;
	attr->hw_ver = 1;
	attr->fw_ver = 1;
	addrconf_addr_eui48((u8 *)&attr->sys_image_guid,
			    sdev->ndev->dev_addr);
	attr->max_mr_size = SZ_1G;
	attr->page_size_cap = PAGE_SIZE;
	attr->max_qp = SIM_MAX_QP;
	attr->max_qp_wr = SIM_MAX_ENTRIES;
	attr->max_send_sge = SIM_MAX_SGE;
	attr->max_recv_sge = SIM_MAX_SGE;
	attr->max_sge_rd = 1;
	attr->max_cq = SIM_MAX_CQ;
	attr->max_cqe = SIM_MAX_ENTRIES;
	attr->max_mr = SIM_MAX_MR;
	attr->max_pd = SIM_MAX_QP;
	attr->max_qp_rd_atom = 16;
	attr->max_qp_init_rd_atom = 16;
	attr->max_res_rd_atom = SIM_MAX_QP * 16;
	attr->max_pkeys = 1;
	attr->local_ca_ack_delay = 15;
	attr->kernel_cap_flags = IBK_LOCAL_DMA_LKEY | IBK_ALLOW_USER_UNREG;

	/* The core's own query at registration passes an empty udata */
	if (udata && udata->outlen)
		return ib_copy_to_udata(udata, &resp,
					min(udata->outlen, sizeof(resp)));
	return 0;
}

static int sim_query_port(struct ib_device *ibdev, u32 port,
			  struct ib_port_attr *attr)
{
	struct net_device *ndev = to_sdev(ibdev)->ndev;
	bool up = netif_running(ndev) && netif_carrier_ok(ndev);

	/* The core zeroed @attr */
	attr->state = up ? IB_PORT_ACTIVE : IB_PORT_DOWN;
	attr->phys_state = up ? IB_PORT_PHYS_STATE_LINK_UP :
				IB_PORT_PHYS_STATE_DISABLED;
	attr->max_mtu = IB_MTU_4096;
	attr->active_mtu = iboe_get_mtu(READ_ONCE(ndev->mtu));
	attr->gid_tbl_len = SIM_GID_TBL_LEN;
	attr->port_cap_flags = IB_PORT_CM_SUP;
	attr->max_msg_sz = SZ_1G;
	attr->pkey_tbl_len = 1;
	attr->active_width = IB_WIDTH_4X;
	attr->active_speed = IB_SPEED_EDR;
	return 0;
}

/**
 * sim_get_port_immutable() - a RoCE port's immutable attributes
 * @ibdev: the device
 * @port: the port, 1
 * @imm: filled in
 *
 * Return: 0 or the error of the port query.
 */
int sim_get_port_immutable(struct ib_device *ibdev, u32 port,
			   struct ib_port_immutable *imm)
{
	struct ib_port_attr attr;
	int ret;

	ret = ib_query_port(ibdev, port, &attr);
	if (ret)
		return ret;
	imm->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE |
			      RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	imm->pkey_tbl_len = attr.pkey_tbl_len;
	imm->gid_tbl_len = attr.gid_tbl_len;
	imm->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

static enum rdma_link_layer sim_get_link_layer(struct ib_device *ibdev,
					       u32 port)
{
	return IB_LINK_LAYER_ETHERNET;
}

static int sim_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
			  u16 *pkey)
{
	if (index)
		return -EINVAL;
	*pkey = IB_DEFAULT_PKEY_FULL;
	return 0;
}

static void sim_dealloc_driver(struct ib_device *ibdev)
{
	struct sim_dev *sdev = to_sdev(ibdev);

	mutex_lock(&sim_devs_lock);
	list_del(&sdev->list_node);
	mutex_unlock(&sim_devs_lock);
	simdp_dev_fini(&sdev->dp);
	ida_destroy(&sdev->qpn_ida);
	ida_destroy(&sdev->uar_ida);
	atomic_long_dec(&sim_count[SIM_K_DEV]);
}

/**
 * sim_unregister_all() - unregister every sim device, at module exit
 *
 * Not with ib_unregister_driver(), which would also take vrdma's vdevices
 * on a sim parent (they report its driver_id), but one by one from our
 * own list.
 */
void sim_unregister_all(void)
{
	struct sim_dev *sdev;

	for (;;) {
		mutex_lock(&sim_devs_lock);
		sdev = NULL;
		list_for_each_entry(sdev, &sim_devs, list_node) {
			if (!sdev->exiting)
				break;
		}
		if (list_entry_is_head(sdev, &sim_devs, list_node)) {
			mutex_unlock(&sim_devs_lock);
			break;
		}
		sdev->exiting = true;
		get_device(&sdev->ibdev.dev);
		mutex_unlock(&sim_devs_lock);
		ib_unregister_device(&sdev->ibdev);
		put_device(&sdev->ibdev.dev);
	}
}

/* The device's own part of every personality's ops (link.c) */
const struct ib_device_ops sim_dev_ops = {
	.owner = THIS_MODULE,

	.dealloc_driver = sim_dealloc_driver,
	.get_link_layer = sim_get_link_layer,
	.get_port_immutable = sim_get_port_immutable,
	.query_device = sim_query_device,
	.query_pkey = sim_query_pkey,
	.query_port = sim_query_port,
};
