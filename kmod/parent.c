// SPDX-License-Identifier: GPL-2.0
/*
 * Parents: every real ib_device is tracked through an ib_client, so that
 * its vdevices go away, synchronously, before it does, and so that its
 * async events (port up/down, GID changes) reach its vdevices.
 */
#include <linux/slab.h>

#include "vrdma.h"

/* Tracked parents (vrdma_parent.node); see vrdma_mutex. */
static LIST_HEAD(vrdma_parents);

static struct ib_client vrdma_client;

/**
 * vrdma_is_vdev() - whether an ib_device is one of ours
 * @ibdev: any ib_device
 *
 * Return: true for a vdevice.
 */
bool vrdma_is_vdev(const struct ib_device *ibdev)
{
	return ibdev->ops.owner == THIS_MODULE;
}

/**
 * vrdma_parent_get() - the state of a live parent
 * @ibdev: the parent ib_device
 *
 * Context: vrdma_mutex held; the result is valid until it is released.
 * Return: the parent, or NULL if it is not tracked or is being removed.
 */
struct vrdma_parent *vrdma_parent_get(struct ib_device *ibdev)
{
	struct vrdma_parent *parent;

	lockdep_assert_held(&vrdma_mutex);
	list_for_each_entry(parent, &vrdma_parents, node)
		if (parent->ibdev == ibdev && !parent->dying)
			return parent;
	return NULL;
}

/**
 * vrdma_parent_for_each() - call a function for every live parent
 * @fn: the function
 * @arg: its argument
 *
 * Context: vrdma_mutex held.
 */
void vrdma_parent_for_each(void (*fn)(struct vrdma_parent *parent, void *arg),
			   void *arg)
{
	struct vrdma_parent *parent;

	lockdep_assert_held(&vrdma_mutex);
	list_for_each_entry(parent, &vrdma_parents, node)
		if (!parent->dying)
			fn(parent, arg);
}

/*
 * Runs in ib_wq for the parent's events: re-dispatch each one on every
 * vdevice of the parent, which also refreshes the vdevice's port cache and
 * reaches its users as an async event.
 */
static void vrdma_parent_event(struct ib_event_handler *handler,
			       struct ib_event *event)
{
	struct vrdma_parent *parent =
		container_of(handler, struct vrdma_parent, event_handler);
	struct vrdma_dev *vdev;
	struct ib_event ev;

	switch (event->event) {
	case IB_EVENT_PORT_ACTIVE:
	case IB_EVENT_PORT_ERR:
	case IB_EVENT_LID_CHANGE:
	case IB_EVENT_PKEY_CHANGE:
	case IB_EVENT_GID_CHANGE:
	case IB_EVENT_CLIENT_REREGISTER:
	case IB_EVENT_SM_CHANGE:
	case IB_EVENT_DEVICE_FATAL:
		break;
	default:
		return;
	}

	spin_lock_bh(&parent->vdevs_lock);
	list_for_each_entry(vdev, &parent->vdevs, parent_node) {
		ev = *event;
		ev.device = &vdev->ibdev;
		ib_dispatch_event(&ev);
	}
	spin_unlock_bh(&parent->vdevs_lock);
}

static int vrdma_client_add(struct ib_device *ibdev)
{
	struct vrdma_parent *parent;

	if (vrdma_is_vdev(ibdev))
		return -EOPNOTSUPP;

	parent = kzalloc(sizeof(*parent), GFP_KERNEL);
	if (!parent)
		return -ENOMEM;
	parent->ibdev = ibdev;
	INIT_LIST_HEAD(&parent->vdevs);
	spin_lock_init(&parent->vdevs_lock);
	INIT_IB_EVENT_HANDLER(&parent->event_handler, ibdev,
			      vrdma_parent_event);
	ib_register_event_handler(&parent->event_handler);

	mutex_lock(&vrdma_mutex);
	list_add_tail(&parent->node, &vrdma_parents);
	vrdma_generation++;
	mutex_unlock(&vrdma_mutex);
	ib_set_client_data(ibdev, &vrdma_client, parent);
	return 0;
}

/*
 * Called by the RDMA core with no core lock held, before the parent waits
 * for its last reference.  Every vdevice of the parent is unregistered
 * here; each holds a registration reference on the parent until it is
 * freed, so the parent cannot finish going away under a vdevice that
 * another path (user deletion, netns death) is tearing down concurrently.
 */
static void vrdma_client_remove(struct ib_device *ibdev, void *data)
{
	struct vrdma_parent *parent = data;
	struct vrdma_dev *vdev;

	for (;;) {
		mutex_lock(&vrdma_mutex);
		parent->dying = true;
		vdev = list_first_entry_or_null(&parent->vdevs,
						struct vrdma_dev, parent_node);
		if (vdev)
			vrdma_dev_unlink(vdev);
		else
			list_del(&parent->node);
		vrdma_generation++;
		mutex_unlock(&vrdma_mutex);
		if (!vdev)
			break;
		vrdma_dev_destroy(vdev, VRDMA_DEL_PARENT);
	}

	ib_unregister_event_handler(&parent->event_handler);
	kfree(parent);
}

static struct ib_client vrdma_client = {
	.name = "vrdma",
	.add = vrdma_client_add,
	.remove = vrdma_client_remove,
};

/**
 * vrdma_parent_init() - start tracking parents
 *
 * Return: 0 or a negative errno.
 */
int vrdma_parent_init(void)
{
	return ib_register_client(&vrdma_client);
}

/**
 * vrdma_parent_exit() - stop tracking parents
 */
void vrdma_parent_exit(void)
{
	ib_unregister_client(&vrdma_client);
}
