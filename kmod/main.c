// SPDX-License-Identifier: GPL-2.0
/*
 * vrdma: virtual RDMA devices, one per network namespace, on top of a real
 * RDMA device.  This file is the module's init ladder.
 */
#include <linux/module.h>
#include <net/genetlink.h>

#include "vrdma.h"

/* Serialises vdevice creation and teardown; see the lock map in vrdma.h. */
DEFINE_MUTEX(vrdma_mutex);

/* Every vdevice, in creation order (vrdma_mutex). */
LIST_HEAD(vrdma_devs);

/*
 * Bumped on every change of the vdevice or parent lists, so that dumps can
 * flag themselves inconsistent (vrdma_mutex).
 */
unsigned int vrdma_generation = 1;

static int __init vrdma_init(void)
{
	int ret;

	vrdma_debugfs_init();
	vrdma_cm_debugfs_init();
	vrdma_cm_publish_debugfs_init();

	ret = vrdma_cm_init();
	if (ret)
		goto err_debugfs;

	ret = vrdma_alias_init();
	if (ret)
		goto err_cm;

	ret = vrdma_parent_init();
	if (ret)
		goto err_alias;

	ret = vrdma_pernet_init();
	if (ret)
		goto err_parent;

	ret = vrdma_dev_init();
	if (ret)
		goto err_pernet;

	/* Last: user space must never reach a half-initialised module. */
	ret = vrdma_netlink_init();
	if (ret)
		goto err_dev;

	pr_info("vrdma: version %s loaded\n", VRDMA_VERSION);
	return 0;

err_dev:
	vrdma_dev_exit();
err_pernet:
	vrdma_pernet_exit();
err_parent:
	vrdma_parent_exit();
err_alias:
	vrdma_alias_exit();
err_cm:
	vrdma_cm_exit();
err_debugfs:
	vrdma_debugfs_exit();
	return ret;
}

static void __exit vrdma_exit(void)
{
	/*
	 * First: no new requests while the vdevices go away; deletions a
	 * request handed to vrdma_del_wq end before the family goes.
	 */
	vrdma_netlink_exit();
	/*
	 * Before the pernet hook goes: unregister_pernet_subsys() runs
	 * pre_exit for every namespace, live ones included, which would
	 * destroy the vdevices as if their namespaces had died, under
	 * pernet_ops_rwsem.  Until it is gone, a namespace dying meanwhile
	 * still takes its vdevices with it.
	 */
	vrdma_dev_destroy_all();
	vrdma_dev_exit();
	vrdma_pernet_exit();
	vrdma_parent_exit();
	/* No vdevice left to undo, but the work may still be running. */
	vrdma_dev_home_exit();
	vrdma_alias_exit();
	vrdma_cm_exit();
	vrdma_debugfs_exit();
	pr_info("vrdma: unloaded\n");
}

module_init(vrdma_init);
module_exit(vrdma_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Virtual RDMA devices for network namespaces");
MODULE_AUTHOR("The vrdma developers");
MODULE_VERSION(VRDMA_VERSION);
MODULE_ALIAS_GENL_FAMILY(VRDMA_GENL_NAME);
