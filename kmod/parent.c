// SPDX-License-Identifier: GPL-2.0
/*
 * Parents: every real ib_device is tracked through an ib_client, so that
 * its vdevices go away, synchronously, before it does, and so that its
 * async events (port up/down, errors) reach its vdevices.
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
 * vrdma_parent_find() - look a parent up by name, with a reference
 * @name: the parent's device name
 *
 * Parents are found in vrdma's own list of the devices its ib_client was
 * given, not through ib_device_get_by_name(), which ib_core no longer
 * exports from 7.0.  From 7.3 device names are unique per network
 * namespace only: a name that two parents share is refused rather than
 * guessed.
 *
 * Context: process context; takes vrdma_mutex.
 * Return: the parent ib_device with a registration reference (release it
 * with ib_device_put()); ERR_PTR(-EINVAL) if @name is a vdevice,
 * ERR_PTR(-ENOTUNIQ) if several parents have it, ERR_PTR(-ENODEV) if
 * none has it or it is going away.
 */
struct ib_device *vrdma_parent_find(const char *name)
{
	struct ib_device *parent_ibdev = ERR_PTR(-ENODEV);
	struct vrdma_parent *parent;

	mutex_lock(&vrdma_mutex);
	list_for_each_entry(parent, &vrdma_parents, node) {
		if (parent->dying || strcmp(parent->ibdev->name, name))
			continue;
		if (!IS_ERR(parent_ibdev)) {
			ib_device_put(parent_ibdev);
			parent_ibdev = ERR_PTR(-ENOTUNIQ);
			break;
		}
		if (ib_device_try_get(parent->ibdev))
			parent_ibdev = parent->ibdev;
	}
	if (PTR_ERR(parent_ibdev) == -ENODEV && vrdma_dev_find(name))
		parent_ibdev = ERR_PTR(-EINVAL);
	mutex_unlock(&vrdma_mutex);
	return parent_ibdev;
}

/*
 * The parent ops vrdma calls without a check of its own: a parent without
 * one of them has no user verbs to forward.  The ops it may lack are
 * hidden on the vdevice instead (vrdma_dev_set_ops()).
 */
#define VRDMA_PARENT_OP(op) { offsetof(struct ib_device, ops.op), #op }

static const struct {
	size_t offset;
	const char *name;
} vrdma_parent_ops[] = {
	VRDMA_PARENT_OP(alloc_pd),
	VRDMA_PARENT_OP(alloc_ucontext),
	VRDMA_PARENT_OP(create_cq),
	VRDMA_PARENT_OP(create_qp),
	VRDMA_PARENT_OP(dealloc_pd),
	VRDMA_PARENT_OP(dealloc_ucontext),
	VRDMA_PARENT_OP(dereg_mr),
	VRDMA_PARENT_OP(destroy_cq),
	VRDMA_PARENT_OP(destroy_qp),
	VRDMA_PARENT_OP(get_port_immutable),
	VRDMA_PARENT_OP(mmap),
	VRDMA_PARENT_OP(modify_qp),
	VRDMA_PARENT_OP(query_device),
	VRDMA_PARENT_OP(query_port),
	VRDMA_PARENT_OP(reg_user_mr),
};

/*
 * Parents whose every user context maps page frames with remap_pfn_range()
 * straight from the driver's mmap op, which the core neither tracks nor
 * zaps: a vdevice disassociates while the tenant still maps them, so
 * vrdma refuses such mappings (kmod/vma.c) and with them every context of
 * these drivers.  Read in 6.1's sources: bnxt_re (its shared page, and its
 * doorbell page at a raw PFN taken from the offset), vmw_pvrdma (its UAR),
 * ocrdma (doorbell, DPP and queue pages).  Refused here so that the
 * operator learns it at dev add, not from every tenant's failing open.
 */
static int vrdma_parent_check_mappings(struct ib_device *parent_ibdev,
				       struct netlink_ext_ack *extack)
{
	switch (parent_ibdev->ops.driver_id) {
	case RDMA_DRIVER_BNXT_RE:
		NL_SET_ERR_MSG(extack,
			       "parent is bnxt_re: it maps pages with remap_pfn_range(), which vrdma cannot revoke when a vdevice goes");
		break;
	case RDMA_DRIVER_VMW_PVRDMA:
		NL_SET_ERR_MSG(extack,
			       "parent is vmw_pvrdma: it maps its UAR with remap_pfn_range(), which vrdma cannot revoke when a vdevice goes");
		break;
	case RDMA_DRIVER_OCRDMA:
		NL_SET_ERR_MSG(extack,
			       "parent is ocrdma: it maps pages with remap_pfn_range(), which vrdma cannot revoke when a vdevice goes");
		break;
	default:
		return 0;
	}
	ibdev_dbg(parent_ibdev,
		  "vrdma: parent maps pages vrdma cannot revoke\n");
	return -EOPNOTSUPP;
}

/**
 * vrdma_parent_check() - whether vrdma can serve vdevices on a device
 * @parent_ibdev: the would-be parent, not a vdevice
 * @extack: where to say why not
 *
 * vrdma forwards user verbs to a RoCE port: the vdevice's GID table is
 * built by the core from the parent's netdev, and QPs connect out of band.
 * An InfiniBand port's GIDs come from the driver's query_gid and its
 * addressing from the subnet manager; an iWARP port connects only through
 * iw_cm; neither is forwarded, so a vdevice on them would register with an
 * empty GID table and fail every connection.  They are refused, as are
 * other transports (EFA, usNIC) and parents without user verbs, and
 * drivers whose mappings vrdma cannot revoke.
 *
 * Return: 0, or -EOPNOTSUPP with a message in @extack.
 */
int vrdma_parent_check(struct ib_device *parent_ibdev,
		       struct netlink_ext_ack *extack)
{
	const void *base = parent_ibdev;
	void (*fn)(void);
	unsigned int i;
	u32 port;

	for (i = 0; i < ARRAY_SIZE(vrdma_parent_ops); i++) {
		memcpy(&fn, base + vrdma_parent_ops[i].offset, sizeof(fn));
		if (!fn) {
			ibdev_dbg(parent_ibdev, "vrdma: parent has no %s op\n",
				  vrdma_parent_ops[i].name);
			NL_SET_ERR_MSG(extack,
				       "parent has no user verbs that vrdma can forward (context, mmap, PD, CQ, QP, MR)");
			return -EOPNOTSUPP;
		}
	}

	rdma_for_each_port(parent_ibdev, port) {
		if (rdma_protocol_roce(parent_ibdev, port))
			continue;
		if (rdma_protocol_iwarp(parent_ibdev, port))
			NL_SET_ERR_MSG(extack,
				       "parent is iWARP: its connections need iw_cm, which vdevices do not offer");
		else if (rdma_protocol_ib(parent_ibdev, port))
			NL_SET_ERR_MSG(extack,
				       "parent has an InfiniBand link layer: vrdma supports RoCE parents only");
		else
			NL_SET_ERR_MSG(extack,
				       "parent is neither RoCE, InfiniBand nor iWARP (EFA, usNIC): vrdma supports RoCE parents only");
		return -EOPNOTSUPP;
	}
	return vrdma_parent_check_mappings(parent_ibdev, extack);
}

/* Woken when a parent's last pin goes (vrdma_parent_unpin()). */
static DECLARE_WAIT_QUEUE_HEAD(vrdma_parent_wq);

/**
 * vrdma_parent_pin() - keep a parent's state while a vdevice is created
 * @parent: a live parent, from vrdma_parent_get()
 *
 * Creation registers the vdevice without vrdma_mutex; the pin keeps
 * @parent allocated meanwhile, and vrdma_parent_unpin() ends it.
 *
 * Context: vrdma_mutex held.
 */
void vrdma_parent_pin(struct vrdma_parent *parent)
{
	lockdep_assert_held(&vrdma_mutex);
	parent->pins++;
}

/**
 * vrdma_parent_unpin() - end a pin taken by vrdma_parent_pin()
 * @parent: the parent
 *
 * Context: vrdma_mutex held.
 */
void vrdma_parent_unpin(struct vrdma_parent *parent)
{
	lockdep_assert_held(&vrdma_mutex);
	if (!--parent->pins)
		wake_up_all(&vrdma_parent_wq);
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
 *
 * Not IB_EVENT_GID_CHANGE: a RoCE vdevice's GID table is the core's own,
 * and the core raises the event on the vdevice for each entry it adds to
 * or removes from that table (dispatch_gid_change_event()), so a tenant
 * hears of its own addresses.  The parent's event, for any entry of its
 * table, another tenant's included, would only make every vdevice query
 * its port again: ib_dispatch_event() of a GID change refreshes the port
 * cache and never reaches users (ib_cache_event_task()).
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

	/*
	 * Vdevices stay clients, without data, so that their rename and
	 * re-enabling after a netns move are seen.
	 */
	if (vrdma_is_vdev(ibdev)) {
		vrdma_dev_check_home(ibdev);
		return 0;
	}
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
 * Called by the RDMA core before the parent waits for its last reference,
 * with the parent's unregistration_lock held.  Every vdevice of the parent
 * goes away before this returns: each holds a registration reference on
 * the parent until it is freed.  They are unregistered from ib_core's
 * unregistration workqueue rather than here: their unregistration_lock is
 * of the same lock class as the parent's, which lockdep would take for
 * recursive locking.
 */
static void vrdma_client_remove(struct ib_device *ibdev, void *data)
{
	struct vrdma_parent *parent = data;
	struct vrdma_event *ev;
	struct vrdma_dev *vdev;
	unsigned int i, n = 0, max;

	if (vrdma_is_vdev(ibdev))
		return;
	/* Dying: no vdevice is linked to the parent from now on. */
	mutex_lock(&vrdma_mutex);
	parent->dying = true;
	max = parent->nr_vdevs;
	mutex_unlock(&vrdma_mutex);
	/* Events that cannot be allocated are dropped, as usual. */
	ev = kcalloc(max, sizeof(*ev), GFP_KERNEL);

	for (;;) {
		mutex_lock(&vrdma_mutex);
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
		if (ev && n < max)
			vrdma_nl_event_prepare(&ev[n++], vdev, VRDMA_CMD_DEV_DEL,
					       VRDMA_DEL_PARENT);
		ib_unregister_device_queued(&vdev->ibdev);
	}

	/* Creations under way see the parent dying and undo themselves. */
	wait_event(vrdma_parent_wq, !READ_ONCE(parent->pins));
	vrdma_dev_wait_parent(parent);

	for (i = 0; i < n; i++)
		vrdma_nl_event_send(&ev[i]);
	kfree(ev);
	ib_unregister_event_handler(&parent->event_handler);
	kfree(parent);
}

static void vrdma_client_rename(struct ib_device *ibdev, void *data)
{
	if (vrdma_is_vdev(ibdev))
		vrdma_dev_check_home(ibdev);
}

/*
 * no_kverbs_req: vdevices, which have no kernel verbs, stay clients (see
 * vrdma_client_add()), and so do parents without them (EFA, mana_ib before
 * 6.13), so that a vdevice on one is refused for what it is
 * (vrdma_parent_check()), not as a device vrdma does not know.
 */
static struct ib_client vrdma_client = {
	.name = "vrdma",
	.add = vrdma_client_add,
	.remove = vrdma_client_remove,
	.rename = vrdma_client_rename,
	.no_kverbs_req = true,
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
