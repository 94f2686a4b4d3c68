// SPDX-License-Identifier: GPL-2.0
/*
 * rdmasim: a simulated hardware RDMA device, for the selftests only.
 *
 * "rdma link add sim0 type rdmasim netdev DEV" registers a RoCE device on
 * DEV.  It behaves like a hardware driver where vrdma cares: user rings and
 * doorbell pages are handed out as rdma_user_mmap_entry offsets, it has a
 * driver-namespace uverbs object (a UAR-like doorbell page, modelled on
 * mlx5's) that create_cq requires, a driver method on the core PD object,
 * and driver data in query_device's response.  It finds its ucontext as
 * hardware drivers do, through the attribute bundle around the udata.
 *
 * It is strict where real drivers are sloppy: every check that fails prints
 * a WARN starting with "rdmasim: strict:" and counts in debugfs
 * (rdmasim/strict), so that a selftest sees what a real driver would
 * silently get wrong.  Like mlx4, it tells user objects from kernel ones by
 * their uobject after creation; the kernel path reads a buffer only kernel
 * objects have, so a user object that lost its uobject is caught by KASAN
 * on a debug kernel (and by the WARN before it on a stock one).
 */
#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/netdevice.h>
#include <linux/dma-mapping.h>
#include <linux/platform_device.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_netlink.h>

#include "sim.h"

static struct dentry *sim_debugfs;

/* The personalities other than rdmasim's own, which link.c chooses from */
static const struct sim_personality *const sim_personalities[] = {
	&sim_mlx5_personality,
};

static int __init sim_init(void)
{
	size_t i;
	int ret;

	sim_dma_pdev = platform_device_register_simple("rdmasim",
						       PLATFORM_DEVID_NONE,
						       NULL, 0);
	if (IS_ERR(sim_dma_pdev))
		return PTR_ERR(sim_dma_pdev);
	ret = dma_coerce_mask_and_coherent(&sim_dma_pdev->dev,
					   DMA_BIT_MASK(64));
	if (ret)
		goto err_pdev;
	ret = sim_pci_dev_init();
	if (ret)
		goto err_pdev;
	ret = register_netdevice_notifier(&sim_netdev_nb);
	if (ret)
		goto err_pci;
	sim_debugfs = debugfs_create_dir("rdmasim", NULL);
	sim_debugfs_files(sim_debugfs);
	for (i = 0; i < ARRAY_SIZE(sim_personalities); i++) {
		sim_personality_add(sim_personalities[i]);
		sim_personalities[i]->debugfs_init(sim_debugfs);
	}
	ret = simdp_init(sim_debugfs);
	if (ret)
		goto err_debugfs;
	rdma_link_register(&sim_link_ops);
	return 0;

err_debugfs:
	debugfs_remove_recursive(sim_debugfs);
	unregister_netdevice_notifier(&sim_netdev_nb);
err_pci:
	sim_pci_dev_exit();
err_pdev:
	platform_device_unregister(sim_dma_pdev);
	return ret;
}

static void __exit sim_exit(void)
{
	rdma_link_unregister(&sim_link_ops);
	unregister_netdevice_notifier(&sim_netdev_nb);
	sim_unregister_all();
	simdp_exit();
	debugfs_remove_recursive(sim_debugfs);
	sim_pci_dev_exit();
	platform_device_unregister(sim_dma_pdev);
}

module_init(sim_init);
module_exit(sim_exit);

MODULE_DESCRIPTION("rdmasim: a simulated hardware RDMA device for vrdma's selftests");
MODULE_LICENSE("GPL");
MODULE_ALIAS_RDMA_LINK("rdmasim");
