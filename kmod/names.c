// SPDX-License-Identifier: GPL-2.0
/*
 * vdevice names: unique on the host, on every kernel.
 *
 * vrdma addresses a vdevice by its name alone: vrdmactl's commands, the
 * events, the CNI plugin's records and the rdma cgroup's rdma.max lines.
 * Up to 7.2 the RDMA core keeps every device name unique on the host; from
 * 7.3 only within a network namespace, so that the core would register a
 * second "vA" in another namespace, or a vdevice named like the parent.
 * vrdma keeps the old rule for the names it gives: a vdevice's name is
 * reserved under vrdma_mutex before its registration, refused while
 * another vdevice holds it (being created, live or being torn down) or a
 * device vrdma tracks as a possible parent has it, in any namespace, and
 * released when the vdevice is freed.
 *
 * Not covered: a device of the host registered, renamed or moved into
 * init_net later may take a vdevice's name on 7.3 (the core checks only
 * init_net); vrdma's own commands reach vdevices only and stay exact.
 */
#include <linux/string.h>

#include "vrdma.h"

/*
 * The vdevices holding a name, from vrdma_name_reserve() to their release
 * in vrdma_dealloc_driver() (vrdma_dev.name_node); protected by vrdma_mutex.
 */
static LIST_HEAD(vrdma_names);

struct vrdma_name_probe {
	const char *name;
	bool found;
};

/*
 * ib_device.name, not dev_name(): the core renames under devices_rwsem,
 * which vrdma does not hold, and frees a struct device's old name, while
 * ib_device.name is an array it copies over.
 */
static void vrdma_name_parent_match(struct vrdma_parent *parent, void *arg)
{
	struct vrdma_name_probe *probe = arg;

	if (!strncmp(parent->ibdev->name, probe->name, IB_DEVICE_NAME_MAX))
		probe->found = true;
}

/**
 * vrdma_name_reserve() - claim a vdevice's name before its registration
 * @vdev: the vdevice, not registered, with @vdev->home_name set
 * @extack: where to say what holds the name
 *
 * Context: vrdma_mutex held.
 * Return: 0, or -EEXIST if another vdevice or a tracked RDMA device has
 * the name, in any network namespace.
 */
int vrdma_name_reserve(struct vrdma_dev *vdev, struct netlink_ext_ack *extack)
{
	struct vrdma_name_probe probe = { .name = vdev->home_name };
	struct vrdma_dev *other;

	lockdep_assert_held(&vrdma_mutex);
	list_for_each_entry(other, &vrdma_names, name_node) {
		if (!strcmp(other->home_name, vdev->home_name)) {
			NL_SET_ERR_MSG(extack,
				       "a vdevice of this name exists, in this or another network namespace");
			return -EEXIST;
		}
	}
	vrdma_parent_for_each(vrdma_name_parent_match, &probe);
	if (probe.found) {
		NL_SET_ERR_MSG(extack,
			       "an RDMA device of the host has this name, in this or another network namespace");
		return -EEXIST;
	}
	list_add_tail(&vdev->name_node, &vrdma_names);
	return 0;
}

/**
 * vrdma_name_release() - give a vdevice's name back
 * @vdev: the vdevice, being freed; its name may not have been reserved
 *
 * Context: vrdma_mutex held.
 */
void vrdma_name_release(struct vrdma_dev *vdev)
{
	lockdep_assert_held(&vrdma_mutex);
	list_del_init(&vdev->name_node);
}
