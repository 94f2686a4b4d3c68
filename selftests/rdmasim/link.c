// SPDX-License-Identifier: GPL-2.0
/*
 * rdmasim: "rdma link add" makes a device on a netdev, whose removal
 * removes it.
 */
#include <linux/netdevice.h>
#include <linux/idr.h>
#include <linux/platform_device.h>
#include <linux/string.h>
#include <net/addrconf.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_netlink.h>
#include <rdma/uverbs_ioctl.h>

#include <rdma/rdmasim-abi.h>
#include "sim.h"

/* rdmasim's own ABI: the identity libibverbs binds no provider to */
static const struct ib_device_ops sim_abi_ops = {
	.driver_id = RDMASIM_DRIVER_ID,
	.uverbs_abi_ver = RDMASIM_ABI_VERSION,
};

/*
 * Every personality's, where it sets nothing of its own (mlx5.c): each
 * object family's file has its part, in the order ib_set_device_ops()
 * gets them.
 */
static const struct ib_device_ops *const sim_common_ops[] = {
	&sim_dev_ops,
	&sim_ctx_ops,
	&sim_pd_ops,
	&sim_cq_ops,
	&sim_qp_ops,
	&sim_mr_ops,
	&sim_compat_ops,
	&sim_mmap_ops,
};

/*
 * The personalities by variant, NULL for the variants that speak
 * rdmasim's own ABI.  Filled at module init, before the link type is
 * registered; read-only after.
 */
static const struct sim_personality *sim_personalities[SIM_VAR_NR];

/**
 * sim_personality_add() - let a personality's variant make devices
 * @pers: the personality, static
 *
 * Called at module init, before the link type is registered.
 */
void sim_personality_add(const struct sim_personality *pers)
{
	sim_personalities[pers->variant] = pers;
}

/* Is there a sim device on @ndev?  Called under sim_devs_lock */
static bool sim_ndev_taken(struct net_device *ndev)
{
	struct sim_dev *sdev;

	list_for_each_entry(sdev, &sim_devs, list_node)
		if (sdev->ndev == ndev)
			return true;
	return false;
}

static int sim_newlink(const char *ibdev_name, struct net_device *ndev)
{
	const struct sim_personality *pers;
	struct sim_dev *sdev;
	size_t i;
	int ret;

	if (ndev->type != ARPHRD_ETHER)
		return -EINVAL;
	sdev = ib_alloc_device(sim_dev, ibdev);
	if (!sdev)
		return -ENOMEM;
	/* From here ib_dealloc_device() calls dealloc_driver, which undoes */
	atomic_long_inc(&sim_count[SIM_K_DEV]);
	sdev->ndev = ndev;
	ida_init(&sdev->qpn_ida);
	ida_init(&sdev->uar_ida);
	spin_lock_init(&sdev->uctx_lock);
	INIT_LIST_HEAD(&sdev->uctxs);
	INIT_LIST_HEAD(&sdev->list_node);
	simdp_dev_init(&sdev->dp);

	sdev->variant = READ_ONCE(sim_variant);
	sdev->ibdev.node_type = RDMA_NODE_IB_CA;
	sdev->ibdev.phys_port_cnt = 1;
	sdev->ibdev.num_comp_vectors = 1;
	addrconf_addr_eui48((u8 *)&sdev->ibdev.node_guid, ndev->dev_addr);
	strscpy(sdev->ibdev.node_desc, "rdmasim",
		sizeof(sdev->ibdev.node_desc));
	/*
	 * The personality's ops first: ib_set_device_ops() fills only what
	 * is still unset, so they win over the common ones.
	 */
	pers = sim_personalities[sdev->variant];
	if (pers) {
		pers->setup(sdev);
	} else {
		ib_set_device_ops(&sdev->ibdev, &sim_abi_ops);
		sdev->ibdev.driver_def = sim_uapi_defs;
		/* A user POST_SEND reaches sim_post_send(); mlx5 keeps it off */
		sdev->ibdev.uverbs_cmd_mask |=
			BIT_ULL(IB_USER_VERBS_CMD_POST_SEND);
	}
	for (i = 0; i < ARRAY_SIZE(sim_common_ops); i++)
		ib_set_device_ops(&sdev->ibdev, sim_common_ops[i]);
	sim_variant_setup(sdev);

	ret = ib_device_set_netdev(&sdev->ibdev, ndev, 1);
	if (ret)
		goto err_dealloc;

	mutex_lock(&sim_devs_lock);
	if (sim_ndev_taken(ndev)) {
		mutex_unlock(&sim_devs_lock);
		ret = -EEXIST;
		goto err_dealloc;
	}
	list_add_tail(&sdev->list_node, &sim_devs);
	mutex_unlock(&sim_devs_lock);

	ret = ib_register_device(&sdev->ibdev, ibdev_name, &sim_dma_pdev->dev);
	if (ret)
		goto err_dealloc;
	return 0;

err_dealloc:
	ib_dealloc_device(&sdev->ibdev);
	return ret;
}

struct rdma_link_ops sim_link_ops = {
	.type = "rdmasim",
	.newlink = sim_newlink,
};

/* The netdev goes: the device goes, as a NIC's does on hot unplug */
static int sim_netdev_event(struct notifier_block *nb, unsigned long event,
			    void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	struct sim_dev *sdev;

	if (event != NETDEV_UNREGISTER)
		return NOTIFY_DONE;
	mutex_lock(&sim_devs_lock);
	list_for_each_entry(sdev, &sim_devs, list_node) {
		/* A failed get: it is being unregistered already */
		if (sdev->ndev == ndev && ib_device_try_get(&sdev->ibdev)) {
			ib_unregister_device_queued(&sdev->ibdev);
			ib_device_put(&sdev->ibdev);
		}
	}
	mutex_unlock(&sim_devs_lock);
	return NOTIFY_DONE;
}

struct notifier_block sim_netdev_nb = {
	.notifier_call = sim_netdev_event,
};
