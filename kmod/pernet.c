// SPDX-License-Identifier: GPL-2.0
/*
 * Network namespace death.  On its own the RDMA core would move a device
 * of a dying namespace back to init_net, handing a container's device to
 * the host.  A vdevice dies with its namespace instead: pre_exit runs
 * before any pernet exit, ib_core's included.
 */
#include "vrdma.h"

static bool vrdma_pernet_match(struct vrdma_dev *vdev, void *net)
{
	return vrdma_dev_in_net(vdev, net);
}

static void vrdma_pernet_pre_exit(struct net *net)
{
	struct vrdma_dev *vdev;

	while ((vdev = vrdma_dev_unlink_next(vrdma_pernet_match, net)))
		vrdma_dev_destroy(vdev, VRDMA_DEL_NETNS);
	/* Those other paths are tearing down must not outlive the netns. */
	vrdma_dev_wait_dying(net);
}

static struct pernet_operations vrdma_pernet_ops = {
	.pre_exit = vrdma_pernet_pre_exit,
};

/**
 * vrdma_pernet_init() - destroy vdevices together with their namespace
 *
 * Return: 0 or a negative errno.
 */
int vrdma_pernet_init(void)
{
	return register_pernet_subsys(&vrdma_pernet_ops);
}

/**
 * vrdma_pernet_exit() - stop watching namespaces
 */
void vrdma_pernet_exit(void)
{
	unregister_pernet_subsys(&vrdma_pernet_ops);
}
