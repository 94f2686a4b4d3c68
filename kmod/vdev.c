// SPDX-License-Identifier: GPL-2.0
/*
 * vdevice life cycle: creation directly inside the target network
 * namespace, lookup, and teardown.
 *
 * Whoever takes a vdevice off vrdma_devs (under vrdma_mutex) owns its
 * teardown: user deletion, namespace death, parent removal and module
 * unload all unlink first and then unregister without the mutex held, so
 * a vdevice is unregistered exactly once.  Between its unlinking and the
 * end of its unregistration a vdevice sits on vrdma_dying, so that a dying
 * namespace can wait for it (see vrdma_dev_wait_dying()).  User deletion
 * unregisters in vrdma_del_wq and waits for it a bounded time only: a
 * tenant can delay an unregistration at will (vrdma_dev_destroy_bounded()).
 */
#include <linux/completion.h>
#include <linux/ctype.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/refcount.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include <rdma/ib_cache.h>

#include "vrdma.h"

/* Vdevices unlinked and not yet released (vrdma_dev.list; vrdma_mutex). */
static LIST_HEAD(vrdma_dying);

/* Bumped, under vrdma_mutex, whenever a vdevice leaves vrdma_dying. */
static unsigned int vrdma_dying_seq;

/* Waits for vrdma_dying_seq to change. */
static DECLARE_WAIT_QUEUE_HEAD(vrdma_dying_wq);

static bool vrdma_name_valid(const char *name)
{
	size_t len = strnlen(name, VRDMA_DEV_NAME_MAX + 1);
	size_t i;

	if (!len || len > VRDMA_DEV_NAME_MAX)
		return false;
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return false;
	for (i = 0; i < len; i++) {
		char c = name[i];

		if (!isalnum(c) && c != '_' && c != '-' && c != '.')
			return false;
	}
	return true;
}

/*
 * ib_core has no exported way to ask for its netns mode, but
 * rdma_dev_access_netns() answers "true" for any namespace in shared mode
 * and only for the device's own in exclusive mode.  Ask it about a
 * namespace the (not yet registered) device cannot be in.
 */
static bool vrdma_netns_exclusive(struct ib_device *unregistered)
{
	write_pnet(&unregistered->coredev.rdma_net, NULL);
	return !rdma_dev_access_netns(unregistered, &init_net);
}

/**
 * vrdma_dev_net() - the network namespace a vdevice lives in
 * @vdev: the vdevice
 *
 * Read from the RDMA core rather than cached: the RDMA core's netlink may
 * have moved the device ("rdma dev set NAME netns NS") until
 * vrdma_dev_check_home() has it destroyed.
 *
 * Return: the namespace; not referenced.
 */
struct net *vrdma_dev_net(struct vrdma_dev *vdev)
{
	return read_pnet(&vdev->ibdev.coredev.rdma_net);
}

/**
 * vrdma_dev_in_net() - whether a vdevice lives, or was created, in a netns
 * @vdev: the vdevice
 * @net: the namespace
 *
 * Return: true if @net is where the vdevice is now or where vrdma put it;
 * either must outlive it.
 */
bool vrdma_dev_in_net(struct vrdma_dev *vdev, struct net *net)
{
	return net_eq(vrdma_dev_net(vdev), net) || net_eq(vdev->home, net);
}

/* Whether the RDMA core moved or renamed the vdevice since vrdma made it. */
static bool vrdma_dev_away(struct vrdma_dev *vdev)
{
	return !net_eq(vrdma_dev_net(vdev), vdev->home) ||
	       strcmp(vdev->ibdev.name, vdev->home_name);
}

/**
 * vrdma_dev_unlink_next() - take the first vdevice a predicate picks
 * @match: the predicate, called with vrdma_mutex held
 * @arg: its argument
 *
 * Callers loop until NULL, destroying each vdevice returned
 * (vrdma_dev_destroy()): unregistration cannot run under vrdma_mutex.
 *
 * Context: process context; takes vrdma_mutex.
 * Return: the vdevice, unlinked, or NULL if none matches.
 */
struct vrdma_dev *vrdma_dev_unlink_next(bool (*match)(struct vrdma_dev *vdev,
						      void *arg),
					void *arg)
{
	struct vrdma_dev *vdev, *found = NULL;

	mutex_lock(&vrdma_mutex);
	list_for_each_entry(vdev, &vrdma_devs, list) {
		if (match(vdev, arg)) {
			found = vdev;
			vrdma_dev_unlink(vdev);
			break;
		}
	}
	mutex_unlock(&vrdma_mutex);
	return found;
}

/*
 * Destroys every vdevice that is no longer where and what vrdma made it.
 * The RDMA core calls vrdma_dev_check_home() with its locks held, from
 * which no device can be unregistered: it queues this instead.
 */
static bool vrdma_dev_away_match(struct vrdma_dev *vdev, void *unused)
{
	return vrdma_dev_away(vdev);
}

static void vrdma_dev_home_work(struct work_struct *work)
{
	struct vrdma_dev *vdev;

	vrdma_delay(VRDMA_DELAY_HOME);
	while ((vdev = vrdma_dev_unlink_next(vrdma_dev_away_match, NULL))) {
		if (!net_eq(vrdma_dev_net(vdev), vdev->home))
			pr_info("vrdma: %s: moved to another network namespace by the RDMA core; destroying it\n",
				vdev->ibdev.name);
		else
			pr_info("vrdma: %s: renamed from %s by the RDMA core; destroying it\n",
				vdev->ibdev.name, vdev->home_name);
		vrdma_dev_destroy(vdev, VRDMA_DEL_MOVED);
	}
}

static DECLARE_WORK(vrdma_dev_home, vrdma_dev_home_work);

/**
 * vrdma_dev_check_home() - undo a move or rename vrdma did not ask for
 * @ibdev: a vdevice the RDMA core has just (re-)enabled or renamed, or
 *	one a context is being opened on
 *
 * "rdma dev set NAME netns NS" and "rdma dev set NAME name NEW" need
 * CAP_NET_ADMIN in the initial user namespace only, which root in a
 * tenant's netns may hold, and never ask the driver: the core's netns move
 * cannot be refused by a driver that supports disassociation, which
 * vrdma's own deletion needs, nor can a rename.  Such a vdevice left its
 * tenancy and is destroyed, with a VRDMA_DEL_MOVED event, shortly after.
 *
 * Context: the RDMA core's client add or rename callback, or
 * alloc_ucontext.
 * Return: true if the vdevice left its tenancy (its undo is queued).
 */
bool vrdma_dev_check_home(struct ib_device *ibdev)
{
	if (!vrdma_dev_away(to_vdev(ibdev)))
		return false;
	schedule_work(&vrdma_dev_home);
	return true;
}

/**
 * vrdma_dev_home_exit() - wait for pending undos (module unload)
 *
 * Context: after vrdma's ib_client is unregistered, so no new one comes.
 */
void vrdma_dev_home_exit(void)
{
	flush_work(&vrdma_dev_home);
}

/**
 * vrdma_dev_port_state() - the cached state of the vdevice's first port
 * @vdev: the vdevice
 *
 * Return: an enum ib_port_state value, IB_PORT_NOP when unknown.
 */
u32 vrdma_dev_port_state(struct vrdma_dev *vdev)
{
	enum ib_port_state state;

	if (ib_get_cached_port_state(&vdev->ibdev, 1, &state))
		return IB_PORT_NOP;
	return state;
}

/**
 * vrdma_dev_find() - look a vdevice up by name
 * @name: the device name
 *
 * Context: vrdma_mutex held; the result is valid until it is released.
 * Return: the vdevice or NULL.
 */
struct vrdma_dev *vrdma_dev_find(const char *name)
{
	struct vrdma_dev *vdev;

	lockdep_assert_held(&vrdma_mutex);
	list_for_each_entry(vdev, &vrdma_devs, list)
		if (!strcmp(vdev->home_name, name))
			return vdev;
	return NULL;
}

static void vrdma_dev_link(struct vrdma_dev *vdev)
{
	struct vrdma_parent *parent = vdev->parent;

	lockdep_assert_held(&vrdma_mutex);
	list_add_tail(&vdev->list, &vrdma_devs);
	spin_lock_bh(&parent->vdevs_lock);
	list_add_tail(&vdev->parent_node, &parent->vdevs);
	parent->nr_vdevs++;
	spin_unlock_bh(&parent->vdevs_lock);
	vrdma_generation++;
}

/**
 * vrdma_dev_unlink() - take a vdevice off every list, claiming its teardown
 * @vdev: the vdevice
 *
 * Context: vrdma_mutex held.  The caller must call vrdma_dev_destroy()
 * after releasing the mutex.
 */
void vrdma_dev_unlink(struct vrdma_dev *vdev)
{
	struct vrdma_parent *parent = vdev->parent;

	lockdep_assert_held(&vrdma_mutex);
	list_move_tail(&vdev->list, &vrdma_dying);
	spin_lock_bh(&parent->vdevs_lock);
	list_del_init(&vdev->parent_node);
	parent->nr_vdevs--;
	spin_unlock_bh(&parent->vdevs_lock);
	vrdma_generation++;
}

/**
 * vrdma_dev_destroy() - unregister an unlinked vdevice and announce it
 * @vdev: the vdevice, unlinked with vrdma_dev_unlink()
 * @reason: why it goes away, for the deletion event
 *
 * Users of the device are disassociated: they get a fatal device event and
 * every further verb fails.  The vdevice is freed on return.
 *
 * Context: process context, vrdma_mutex not held.
 */
void vrdma_dev_destroy(struct vrdma_dev *vdev, enum vrdma_del_reason reason)
{
	struct vrdma_event ev;

	vrdma_nl_event_prepare(&ev, vdev, VRDMA_CMD_DEV_DEL, reason);
	/* Frees vdev through vrdma_dealloc_driver(). */
	ib_unregister_device(&vdev->ibdev);
	vrdma_nl_event_send(&ev);
}

/*
 * Teardowns handed over by the netlink handler (vrdma_dev_destroy_bounded()).
 * Unbound and with no limit of its own: a teardown blocked by one tenant
 * must not hold up another's.  Allocated by vrdma_dev_init().
 */
static struct workqueue_struct *vrdma_del_wq;

/* No more teardowns for vrdma_del_wq: the module is going (vrdma_mutex). */
static bool vrdma_del_closed;

/**
 * struct vrdma_dev_del - one vdevice teardown run in vrdma_del_wq
 * @work: runs vrdma_dev_destroy()
 * @vdev: the vdevice, unlinked
 * @reason: why it goes away
 * @done: completed once the vdevice is freed and announced
 * @ref: one reference for the work, one for the waiting handler; the last
 *	frees the struct, since either may finish first
 */
struct vrdma_dev_del {
	struct work_struct work;
	struct vrdma_dev *vdev;
	enum vrdma_del_reason reason;
	struct completion done;
	refcount_t ref;
};

static void vrdma_dev_del_put(struct vrdma_dev_del *del)
{
	if (refcount_dec_and_test(&del->ref))
		kfree(del);
}

static void vrdma_dev_del_work(struct work_struct *work)
{
	struct vrdma_dev_del *del = container_of(work, struct vrdma_dev_del,
						 work);

	vrdma_dev_destroy(del->vdev, del->reason);
	complete(&del->done);
	vrdma_dev_del_put(del);
}

/**
 * vrdma_dev_del_alloc() - prepare a bounded teardown, before the vdevice
 *	is unlinked, so that an unlinked vdevice always has its teardown
 *
 * Return: the teardown, for vrdma_dev_destroy_bounded() or
 * vrdma_dev_del_free(); NULL when out of memory.
 */
struct vrdma_dev_del *vrdma_dev_del_alloc(void)
{
	struct vrdma_dev_del *del = kzalloc(sizeof(*del), GFP_KERNEL);

	if (!del)
		return NULL;
	INIT_WORK(&del->work, vrdma_dev_del_work);
	init_completion(&del->done);
	refcount_set(&del->ref, 2);
	return del;
}

/**
 * vrdma_dev_del_free() - drop a teardown vrdma_dev_destroy_bounded() did
 *	not take
 * @del: from vrdma_dev_del_alloc()
 */
void vrdma_dev_del_free(struct vrdma_dev_del *del)
{
	kfree(del);
}

/**
 * vrdma_dev_destroy_bounded() - destroy an unlinked vdevice, waiting for
 *	it a bounded time
 * @vdev: the vdevice, unlinked with vrdma_dev_unlink()
 * @reason: why it goes away, for the deletion event
 * @del: from vrdma_dev_del_alloc(); consumed
 * @timeout: how long to wait, in jiffies
 *
 * Unregistration waits for every verb in flight on the vdevice, which its
 * tenant can keep in flight as long as it likes (a REG_MR whose pages are
 * faulted in by the tenant's own FUSE daemon).  A netlink handler must not
 * wait for that: while it runs it holds generic netlink's cb_lock, which
 * every family's registration needs.  So the unregistration runs in
 * vrdma_del_wq and the caller waits for it at most @timeout, or until it is
 * killed; the vdevice stays unlisted and its name reserved until it is
 * freed, and the deletion event marks the end.  During module unload the
 * teardown runs in the caller, which the unload waits for anyway.
 *
 * Context: process context, vrdma_mutex not held.
 * Return: true if the vdevice is freed, false if its teardown goes on.
 */
bool vrdma_dev_destroy_bounded(struct vrdma_dev *vdev,
			       enum vrdma_del_reason reason,
			       struct vrdma_dev_del *del, unsigned long timeout)
{
	bool queued;
	long ret;

	del->vdev = vdev;
	del->reason = reason;
	mutex_lock(&vrdma_mutex);
	queued = !vrdma_del_closed && queue_work(vrdma_del_wq, &del->work);
	mutex_unlock(&vrdma_mutex);
	if (!queued) {
		vrdma_dev_del_free(del);
		vrdma_dev_destroy(vdev, reason);
		return true;
	}

	ret = wait_for_completion_killable_timeout(&del->done, timeout);
	vrdma_dev_del_put(del);
	return ret > 0;
}

/**
 * vrdma_dev_del_close() - wait for the queued teardowns (module unload);
 *	later ones run in their caller
 *
 * Context: process context, vrdma_mutex not held; before the netlink
 * family goes, so that the teardowns' deletion events still find it.
 */
void vrdma_dev_del_close(void)
{
	mutex_lock(&vrdma_mutex);
	vrdma_del_closed = true;
	mutex_unlock(&vrdma_mutex);
	flush_workqueue(vrdma_del_wq);
}

/* Whether an unlinked, not yet released vdevice matches @net or @parent. */
static bool vrdma_dev_dying_match(struct net *net, struct vrdma_parent *parent)
{
	struct vrdma_dev *vdev;

	lockdep_assert_held(&vrdma_mutex);
	list_for_each_entry(vdev, &vrdma_dying, list)
		if ((net && vrdma_dev_in_net(vdev, net)) ||
		    (parent && vdev->parent == parent))
			return true;
	return false;
}

static void vrdma_dev_wait_released(struct net *net,
				    struct vrdma_parent *parent)
{
	unsigned int seq;
	bool busy;

	for (;;) {
		mutex_lock(&vrdma_mutex);
		busy = vrdma_dev_dying_match(net, parent);
		seq = vrdma_dying_seq;
		mutex_unlock(&vrdma_mutex);
		if (!busy)
			return;
		wait_event(vrdma_dying_wq, READ_ONCE(vrdma_dying_seq) != seq);
	}
}

/**
 * vrdma_dev_wait_dying() - wait for the teardown of a namespace's vdevices
 * @net: the namespace
 *
 * A vdevice another path (user deletion, parent removal) has unlinked but
 * not yet unregistered still lives in @net.  If @net finished dying first,
 * the RDMA core would move that vdevice to init_net, handing it to the
 * host for the rest of its teardown.  Returns once no such vdevice is
 * left; the RDMA core skips a device whose unregistration has begun.
 *
 * Context: process context, vrdma_mutex not held.
 */
void vrdma_dev_wait_dying(struct net *net)
{
	vrdma_dev_wait_released(net, NULL);
}

/**
 * vrdma_dev_wait_parent() - wait until every vdevice of a parent is freed
 * @parent: the parent, already marked dying and without linked vdevices
 *
 * Context: process context, vrdma_mutex not held.
 */
void vrdma_dev_wait_parent(struct vrdma_parent *parent)
{
	vrdma_dev_wait_released(NULL, parent);
}

/**
 * vrdma_dev_init() - set up the teardown workqueue
 *
 * Return: 0 or -ENOMEM.
 */
int vrdma_dev_init(void)
{
	vrdma_del_wq = alloc_workqueue("vrdma_del", WQ_UNBOUND, 0);
	return vrdma_del_wq ? 0 : -ENOMEM;
}

/**
 * vrdma_dev_exit() - free the teardown workqueue, once nothing can queue
 */
void vrdma_dev_exit(void)
{
	destroy_workqueue(vrdma_del_wq);
}

/**
 * vrdma_dev_destroy_all() - remove every vdevice (module unload)
 */
void vrdma_dev_destroy_all(void)
{
	struct vrdma_dev *vdev;

	for (;;) {
		mutex_lock(&vrdma_mutex);
		vdev = list_first_entry_or_null(&vrdma_devs, struct vrdma_dev,
						list);
		if (vdev)
			vrdma_dev_unlink(vdev);
		mutex_unlock(&vrdma_mutex);
		if (!vdev)
			break;
		vrdma_dev_destroy(vdev, VRDMA_DEL_UNLOAD);
	}
}

static void vrdma_dev_init_attrs(struct vrdma_dev *vdev)
{
	struct ib_device *ibdev = &vdev->ibdev,
			 *parent_ibdev = vdev->parent_ibdev;
	u64 guid;

	ibdev->node_type = parent_ibdev->node_type;
	ibdev->phys_port_cnt = parent_ibdev->phys_port_cnt;
	ibdev->num_comp_vectors = parent_ibdev->num_comp_vectors;
	ibdev->local_dma_lkey = parent_ibdev->local_dma_lkey;
	/* Commands the parent's provider issues through write(), e.g. rxe's
	 * doorbell POST_SEND, must be enabled on the vdevice too.
	 */
	ibdev->uverbs_cmd_mask |= parent_ibdev->uverbs_cmd_mask;
	strscpy(ibdev->node_desc, parent_ibdev->node_desc,
		sizeof(ibdev->node_desc));

	/* A locally administered EUI-64, distinct from the parent's. */
	get_random_bytes(&guid, sizeof(guid));
	guid = (guid & ~(1ULL << 56)) | (1ULL << 57);
	ibdev->node_guid = cpu_to_be64(guid);
}

static void vrdma_dev_put_parent(struct ib_device *parent_ibdev)
{
	module_put(parent_ibdev->ops.owner);
	ib_device_put(parent_ibdev);
}

/**
 * vrdma_dealloc_driver() - release what a vdevice holds, after unregistration
 * @ibdev: the vdevice
 *
 * Called by the RDMA core once every client is gone and every user context
 * is destroyed, right before it frees the device, and by ib_dealloc_device()
 * when creation fails.
 *
 * Context: process context, vrdma_mutex not held.
 */
void vrdma_dealloc_driver(struct ib_device *ibdev)
{
	struct vrdma_dev *vdev = to_vdev(ibdev);

	/*
	 * First, while the vdevice is whole and still on vrdma_dying: the
	 * CM's clients left with unregistration, so nothing new comes from
	 * its QP1, and ending the connections waits for every parent ib_cm
	 * handler that uses the vdevice.  Leaving vrdma_dying lets the
	 * parent's removal (vrdma_client_remove()) go on to ib_cm's, which
	 * comes after vrdma's (ib_cm registered first): a parent cm_id must
	 * not outlive ib_cm on the parent, where destroying an established
	 * one never leaves its state and spins.  The parent itself stays
	 * referenced until the end.
	 */
	vrdma_cm_publish_stop(vdev);
	vrdma_cm_proxy_stop(vdev);
	/* Gone before its name is free: a new vdevice of it adds its own */
	vrdma_alias_del(vdev);
	mutex_lock(&vrdma_mutex);
	/*
	 * Still linked: the core unregistered the device on its own (a
	 * failed "rdma dev set NAME netns NS"); it must not stay listed.
	 */
	if (!list_empty(&vdev->parent_node))
		vrdma_dev_unlink(vdev);
	list_del_init(&vdev->list);
	vrdma_name_release(vdev);
	WRITE_ONCE(vrdma_dying_seq, vrdma_dying_seq + 1);
	mutex_unlock(&vrdma_mutex);
	wake_up_all(&vrdma_dying_wq);
	vrdma_delay(VRDMA_DELAY_RELEASED);

	vrdma_acl_free(vdev);
	vrdma_dev_put_parent(vdev->parent_ibdev);
	vrdma_obj_dec(VRDMA_OBJ_VDEV);
}

/* Ends a creation's pin on its parent, from outside vrdma_mutex. */
static void vrdma_dev_unpin(struct vrdma_parent *parent)
{
	mutex_lock(&vrdma_mutex);
	vrdma_parent_unpin(parent);
	mutex_unlock(&vrdma_mutex);
}

/**
 * vrdma_dev_create() - create a vdevice and register it inside a netns
 * @params: name, parent name, target namespace, limits and ACLs (copied)
 * @extack: where to report errors
 *
 * Context: process context, may sleep; takes vrdma_mutex.
 * Return: 0 or a negative errno, with a message in @extack.
 */
int vrdma_dev_create(const struct vrdma_dev_params *params,
		     struct netlink_ext_ack *extack)
{
	struct vrdma_parent *parent;
	struct ib_device *parent_ibdev;
	struct vrdma_dev *vdev;
	struct vrdma_event ev;
	bool away;
	int ret;

	if (strlen(params->name) > VRDMA_DEV_NAME_MAX) {
		NL_SET_ERR_MSG(extack,
			       "device name too long: at most 63 characters");
		return -ENAMETOOLONG;
	}
	if (!vrdma_name_valid(params->name)) {
		NL_SET_ERR_MSG(extack,
			       "invalid device name: use 1-63 characters of A-Z a-z 0-9 _ - .");
		return -EINVAL;
	}

	parent_ibdev = vrdma_parent_find(params->parent);
	if (IS_ERR(parent_ibdev)) {
		if (PTR_ERR(parent_ibdev) == -EINVAL)
			NL_SET_ERR_MSG(extack, "a vrdma device cannot be a parent");
		else if (PTR_ERR(parent_ibdev) == -ENOTUNIQ)
			NL_SET_ERR_MSG(extack,
				       "parent name is used in several network namespaces");
		else
			NL_SET_ERR_MSG(extack, "parent device not found");
		return PTR_ERR(parent_ibdev);
	}
	ret = vrdma_parent_check(parent_ibdev, extack);
	if (ret)
		goto err_put_pdev;
	if ((params->flags & VRDMA_DEV_F_CM) &&
	    vrdma_cm_check_parent(parent_ibdev)) {
		NL_SET_ERR_MSG(extack,
			       "the parent cannot carry the RDMA CM: one RoCE port and the kernel verbs post_send, post_recv, poll_cq and req_notify_cq are needed");
		ret = -EOPNOTSUPP;
		goto err_put_pdev;
	}
	if (!try_module_get(parent_ibdev->ops.owner)) {
		NL_SET_ERR_MSG(extack, "parent driver is being unloaded");
		ret = -ENODEV;
		goto err_put_pdev;
	}

	/*
	 * vrdma_mutex is not held across the RDMA core's registration, which
	 * takes devices_rwsem: a parent being registered meanwhile holds it
	 * while vrdma_client_add() waits for vrdma_mutex.  The parent state
	 * is pinned instead; its removal waits for the pin to go.
	 */
	mutex_lock(&vrdma_mutex);
	parent = vrdma_parent_get(parent_ibdev);
	if (parent)
		vrdma_parent_pin(parent);
	mutex_unlock(&vrdma_mutex);
	if (!parent) {
		NL_SET_ERR_MSG(extack, "parent device is going away");
		ret = -ENODEV;
		goto err_put_module;
	}

	vdev = ib_alloc_device(vrdma_dev, ibdev);
	if (!vdev) {
		ret = -ENOMEM;
		goto err_unpin;
	}
	/*
	 * From here on the vdevice owns the parent references: every path
	 * through ib_dealloc_device() or unregistration releases them in
	 * vrdma_dealloc_driver().
	 */
	vdev->parent = parent;
	vdev->parent_ibdev = parent_ibdev;
	vrdma_obj_inc(VRDMA_OBJ_VDEV);
	INIT_LIST_HEAD(&vdev->list);
	INIT_LIST_HEAD(&vdev->name_node);
	INIT_LIST_HEAD(&vdev->parent_node);
	vrdma_dev_init_attrs(vdev);
	vdev->flags = params->flags;
	vrdma_dev_set_ops(vdev);
	vrdma_quota_init(vdev, params->limit);
	vdev->gid_mode = params->gid_mode;
	ret = vrdma_acl_init(vdev, params->acl);
	if (ret)
		goto err_dealloc;
	/* PCI-matched providers (libhns) read the modalias of dev.parent. */
	ret = vrdma_alias_add(vdev, params->name, extack);
	if (ret) {
		if (ret != -EEXIST)
			NL_SET_ERR_MSG(extack,
				       "copying the parent's modalias failed");
		goto err_dealloc;
	}

	if (!vrdma_netns_exclusive(&vdev->ibdev)) {
		NL_SET_ERR_MSG(extack,
			       "RDMA netns mode is shared; vrdma needs exclusive mode: set 'options ib_core netns_mode=0'");
		ret = -EOPNOTSUPP;
		goto err_dealloc;
	}
	/*
	 * Born in its namespace: sysfs, nldev and uverbs open all read
	 * coredev.rdma_net, so no other namespace ever sees the device.  The
	 * caller holds a reference on the namespace until we are on
	 * vrdma_devs, where the pernet pre_exit hook finds us.
	 */
	ret = vrdma_fault(VRDMA_FAULT_NETNS);
	if (ret) {
		NL_SET_ERR_MSG(extack,
			       "placing the device in its namespace failed");
		goto err_dealloc;
	}
	write_pnet(&vdev->ibdev.coredev.rdma_net, params->net);
	vdev->home = params->net;
	strscpy(vdev->home_name, params->name, sizeof(vdev->home_name));

	/* Unique on the host among vdevices and parents, on every kernel */
	mutex_lock(&vrdma_mutex);
	ret = vrdma_name_reserve(vdev, extack);
	mutex_unlock(&vrdma_mutex);
	if (ret)
		goto err_dealloc;

	/*
	 * The core still refuses a name in use in the target namespace (in
	 * any, before 7.3) under devices_rwsem (ENFILE): a device vrdma does
	 * not track, such as a parent being removed or being registered.
	 */
	ret = vrdma_fault(VRDMA_FAULT_REGISTER) ?:
	      ib_register_device(&vdev->ibdev, params->name, NULL);
	if (ret) {
		if (ret == -ENFILE) {
			NL_SET_ERR_MSG(extack,
				       "an RDMA device with this name exists");
			ret = -EEXIST;
		} else {
			NL_SET_ERR_MSG(extack,
				       "registering the RDMA device failed");
		}
		goto err_dealloc;
	}

	vrdma_delay(VRDMA_DELAY_REGISTERED);
	mutex_lock(&vrdma_mutex);
	if (parent->dying) {
		/* The parent's removal ran meanwhile and cannot see us. */
		vrdma_parent_unpin(parent);
		mutex_unlock(&vrdma_mutex);
		NL_SET_ERR_MSG(extack, "parent device is going away");
		ib_unregister_device(&vdev->ibdev);
		return -ENODEV;
	}
	vrdma_dev_link(vdev);
	/*
	 * A move or rename by the core since ib_register_device() found no
	 * vdevice on vrdma_devs to undo: look again now that it is there.
	 * The undo is queued after the "new" event, so that listeners see
	 * the two in order.
	 */
	away = vrdma_dev_away(vdev);
	vrdma_nl_event_prepare(&ev, vdev, VRDMA_CMD_DEV_NEW, VRDMA_DEL_USER);
	vrdma_parent_unpin(parent);
	mutex_unlock(&vrdma_mutex);

	vrdma_nl_event_send(&ev);
	if (away)
		schedule_work(&vrdma_dev_home);
	return 0;

err_dealloc:
	/* Releases the parent references too (vrdma_dealloc_driver()). */
	ib_dealloc_device(&vdev->ibdev);
	vrdma_dev_unpin(parent);
	return ret;
err_unpin:
	vrdma_dev_unpin(parent);
err_put_module:
	module_put(parent_ibdev->ops.owner);
err_put_pdev:
	ib_device_put(parent_ibdev);
	return ret;
}
