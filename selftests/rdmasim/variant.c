// SPDX-License-Identifier: GPL-2.0
/* rdmasim: the kinds of real parent a device presents (enum sim_variant) */
#include <linux/device.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/string.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_netlink.h>

#include <rdma/rdmasim-abi.h>
#include "sim.h"

static const char * const sim_variant_name[] = {
	[SIM_VAR_ROCE] = "roce",
	[SIM_VAR_IB] = "ib",
	[SIM_VAR_IWARP] = "iwarp",
	[SIM_VAR_NOKVERBS] = "nokverbs",
	[SIM_VAR_PCI] = "pci",
	[SIM_VAR_PDQUERY2] = "pdquery2",
	[SIM_VAR_VMOPS] = "vmops",
	[SIM_VAR_RAWMAP] = "rawmap",
	[SIM_VAR_PVRDMA] = "pvrdma",
	[SIM_VAR_MLX5] = "mlx5",
};

int sim_variant = SIM_VAR_ROCE;

static int sim_variant_set(const char *val, const struct kernel_param *kp)
{
	int i = sysfs_match_string(sim_variant_name, val);

	if (i < 0)
		return -EINVAL;
	WRITE_ONCE(*(int *)kp->arg, i);
	return 0;
}

static int sim_variant_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n",
			  sim_variant_name[READ_ONCE(*(int *)kp->arg)]);
}

static const struct kernel_param_ops sim_variant_ops = {
	.set = sim_variant_set,
	.get = sim_variant_get,
};
module_param_cb(variant, &sim_variant_ops, &sim_variant, 0644);
MODULE_PARM_DESC(variant,
		 "what the next \"rdma link add\" makes: roce (default), ib, iwarp, nokverbs (EFA-like), pci (RoCE under a PCI-like device: an hns v2 function), pdquery2 (RoCE whose PD_QUERY takes a mandatory FLAGS attribute), vmops (RoCE whose mappings have vm_ops of its own, with a fault handler), rawmap (RoCE mapping a context page with remap_pfn_range(), untracked by the core, as 6.1's bnxt_re and pvrdma do), pvrdma (RoCE under vmw_pvrdma's driver id), mlx5 (RoCE speaking mlx5's user ABI: stock libmlx5 binds it)");

/*
 * The pci variant's bus device stands for an hns v2 RoCE function (Huawei
 * 19e5:a222), so that Debian's stock libhns, which binds by PCI id alone,
 * takes the device: libibverbs reads /sys/class/infiniband/DEV/device/
 * modalias.  As a PCI device's, its bus adds MODALIAS to its uevent, which
 * is where vrdma takes a parent's modalias from.  The bus is not "pci", so
 * udev's rdma_rename leaves the sim device's name alone, and it has no
 * driver to probe the device.
 */
#define SIM_PCI_MODALIAS "pci:v000019E5d0000A222sv000019E5sd00000000bc02sc00i00"

static int sim_pci_uevent(sim_uevent_dev *dev, struct kobj_uevent_env *env)
{
	return add_uevent_var(env, "MODALIAS=" SIM_PCI_MODALIAS);
}

static struct bus_type sim_pci_bus = {
	.name = "rdmasim_pci",
	.uevent = sim_pci_uevent,
};

static struct device *sim_pci_dev;

static ssize_t modalias_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	return sysfs_emit(buf, "%s\n", SIM_PCI_MODALIAS);
}
static DEVICE_ATTR_RO(modalias);

static struct attribute *sim_pci_attrs[] = {
	&dev_attr_modalias.attr,
	NULL,
};
ATTRIBUTE_GROUPS(sim_pci);

static void sim_pci_release(struct device *dev)
{
	kfree(dev);
}

/**
 * sim_pci_dev_init() - register the pci variant's bus and its device
 *
 * Return: 0 or the error of the registration.
 */
int sim_pci_dev_init(void)
{
	int ret;

	ret = bus_register(&sim_pci_bus);
	if (ret)
		return ret;
	sim_pci_dev = kzalloc(sizeof(*sim_pci_dev), GFP_KERNEL);
	if (!sim_pci_dev) {
		ret = -ENOMEM;
		goto err_bus;
	}
	device_initialize(sim_pci_dev);
	sim_pci_dev->release = sim_pci_release;
	sim_pci_dev->groups = sim_pci_groups;
	sim_pci_dev->bus = &sim_pci_bus;
	ret = dev_set_name(sim_pci_dev, "rdmasim-pci");
	if (!ret)
		ret = device_add(sim_pci_dev);
	if (ret)
		goto err_put;
	return 0;

err_put:
	put_device(sim_pci_dev);
	sim_pci_dev = NULL;
err_bus:
	bus_unregister(&sim_pci_bus);
	return ret;
}

/**
 * sim_pci_dev_exit() - unregister what sim_pci_dev_init() registered
 */
void sim_pci_dev_exit(void)
{
	device_unregister(sim_pci_dev);
	bus_unregister(&sim_pci_bus);
}

/* GID 0 is the port GID (link-local prefix, node GUID); the rest empty */
static int sim_query_gid(struct ib_device *ibdev, u32 port, int index,
			 union ib_gid *gid)
{
	memset(gid, 0, sizeof(*gid));
	if (index < 0 || index >= SIM_GID_TBL_LEN)
		return -EINVAL;
	if (!index) {
		gid->global.subnet_prefix = cpu_to_be64(0xfe80000000000000ULL);
		gid->global.interface_id = ibdev->node_guid;
	}
	return 0;
}

static int sim_variant_port_immutable(struct ib_device *ibdev, u32 port,
				      struct ib_port_immutable *imm)
{
	int ret;

	ret = sim_get_port_immutable(ibdev, port, imm);
	if (ret)
		return ret;
	switch (to_sdev(ibdev)->variant) {
	case SIM_VAR_IB:
		imm->core_cap_flags = RDMA_CORE_PORT_IBA_IB;
		break;
	case SIM_VAR_IWARP:
		imm->core_cap_flags = RDMA_CORE_PORT_IWARP;
		imm->max_mad_size = 0;
		break;
	case SIM_VAR_NOKVERBS:
		/* As EFA: no core capability at all */
		imm->core_cap_flags = 0;
		imm->max_mad_size = 0;
		break;
	}
	return 0;
}

static enum rdma_link_layer sim_variant_link_layer(struct ib_device *ibdev,
						   u32 port)
{
	switch (to_sdev(ibdev)->variant) {
	case SIM_VAR_IB:
		return IB_LINK_LAYER_INFINIBAND;
	case SIM_VAR_NOKVERBS:
		return IB_LINK_LAYER_UNSPECIFIED;
	default:
		return IB_LINK_LAYER_ETHERNET;
	}
}

/**
 * sim_variant_setup() - shape a new device after its variant
 * @sdev: the device, whose ops are set
 */
void sim_variant_setup(struct sim_dev *sdev)
{
	struct ib_device *ibdev = &sdev->ibdev;

	/*
	 * vmops differs in its mappings only (sim_mmap()), mlx5 in the
	 * ops and driver_def it set (mlx5.c)
	 */
	if (sdev->variant == SIM_VAR_ROCE || sdev->variant == SIM_VAR_VMOPS ||
	    sdev->variant == SIM_VAR_MLX5)
		return;
	/*
	 * As bnxt_re and pvrdma: no disassociate_ucontext, so natively the
	 * core waits for the file to close before the context goes.
	 */
	if (sdev->variant == SIM_VAR_RAWMAP) {
		ibdev->ops.disassociate_ucontext = NULL;
		return;
	}
	/* Its user ABI stays rdmasim's: only the identity differs */
	if (sdev->variant == SIM_VAR_PVRDMA) {
		ibdev->ops.driver_id = RDMA_DRIVER_VMW_PVRDMA;
		return;
	}
	if (sdev->variant == SIM_VAR_PCI) {
		ibdev->dev.parent = sim_pci_dev;
		return;
	}
	if (sdev->variant == SIM_VAR_PDQUERY2) {
		ibdev->driver_def = sim_uapi_defs_pdquery2;
		return;
	}
	/* The device's own copy of the ops */
	ibdev->ops.get_port_immutable = sim_variant_port_immutable;
	ibdev->ops.get_link_layer = sim_variant_link_layer;
	/* Every port that is not RoCE has its GIDs from the driver */
	ibdev->ops.query_gid = sim_query_gid;
	if (sdev->variant == SIM_VAR_IWARP)
		ibdev->node_type = RDMA_NODE_RNIC;
	if (sdev->variant == SIM_VAR_NOKVERBS) {
		/* Without these the core sees no kernel verbs provider */
		ibdev->node_type = RDMA_NODE_UNSPECIFIED;
		ibdev->ops.get_dma_mr = NULL;
		ibdev->ops.poll_cq = NULL;
		ibdev->ops.post_recv = NULL;
		ibdev->ops.post_send = NULL;
		ibdev->ops.req_notify_cq = NULL;
	}
}
