// SPDX-License-Identifier: GPL-2.0
/*
 * RDMA CM ports the operator publishes on a vdevice (VRDMA_ATTR_CM_PORTS),
 * like a container's published TCP port.  A vdevice's ib_cm cannot tell
 * vrdma what it listens on (there is no driver hook), so incoming
 * connections need the operator's word on which ports to take.
 *
 * Each published port is a pair of listeners of vrdma's on the parent's
 * ib_cm, for the service IDs cma forms for the TCP port space (connected
 * QPs: REQ) and the UDP one (UD QPs: SIDR_REQ); one pair per (parent,
 * port), shared by every vdevice that publishes the port there.
 * ib_cm keeps one listener per service ID and device: ib_cm_insert_listen()
 * refuses (EINVAL) a service ID that another handler, such as the host's
 * cma, already listens on, which is how a port the host uses is found and
 * refused.
 *
 * A request that reaches a listener goes to the one vdevice that
 * publishes its port on that parent and holds the GID it is addressed to
 * (the publishing refuses two such vdevices), through the CM proxy
 * (vrdma_cm_proxy_accept(), vrdma_cm_proxy_sidr_accept()), which checks
 * the vdevice's ACLs and quota.
 * Any other is rejected on the parent and counted.
 *
 * Everything here runs under vrdma_mutex: the listener list, each
 * vdevice's published set, the search of a request's vdevice.  But a
 * listener is not destroyed under it: ib_cm holds the listener while the
 * handler of a request to it runs (cm_req_handler() drops its reference
 * only after the handler returned), and ib_destroy_cm_id() waits for that
 * reference, so a destruction under the mutex would wait for a handler
 * that waits for the mutex.  A listener no vdevice publishes any more
 * leaves the list under the mutex, for vrdma_cm_listens_gone, and is
 * destroyed by vrdma_cm_listens_reap() once the caller dropped the mutex.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_cm.h>
#include <rdma/rdma_cm.h>

#include "vrdma.h"

/**
 * struct vrdma_cm_listen - vrdma's listener on one parent for one port
 * @node: entry in vrdma_cm_listens
 * @parent: the parent ib_device
 * @port: the RDMA CM port
 * @id: the listening cm_id on @parent, TCP port space
 * @uid: the one for the UDP port space, or NULL when its creation failed
 *	(the listener is then on its way to vrdma_cm_listens_gone)
 * @users: the vdevices that publish @port on @parent
 */
struct vrdma_cm_listen {
	struct list_head node;
	struct ib_device *parent;
	u16 port;
	struct ib_cm_id *id;
	struct ib_cm_id *uid;
	unsigned int users;
};

static LIST_HEAD(vrdma_cm_listens);

/* Unpublished listeners not yet destroyed; under vrdma_mutex */
static LIST_HEAD(vrdma_cm_listens_gone);

/*
 * Serialises vrdma_cm_listens_reap(), so that a reaper returns only once
 * every listener that was gone when it started is destroyed, even those a
 * concurrent reaper took.  Taken before vrdma_mutex, never under it.
 */
static DEFINE_MUTEX(vrdma_cm_reap_mutex);

/* Incoming requests rejected on a listener, for debugfs */
static atomic_t vrdma_cm_in_rejected = ATOMIC_INIT(0);

static __be64 vrdma_cm_port_sid(u64 ps, u16 port)
{
	return cpu_to_be64(ps | port);
}

static bool vrdma_cm_port_in(const u16 *ports, unsigned int n, u16 port);

/*
 * The linked vdevice of @parent that publishes @port and holds @gid, the
 * destination of a request.  A vdevice that is going has left vrdma_devs
 * before its QP1 went, and withdraws its ports (vrdma_cm_publish_stop())
 * before it ends its connections.
 */
static struct vrdma_dev *vrdma_cm_port_owner(struct ib_device *parent,
					     u16 port, const union ib_gid *gid)
{
	const struct ib_gid_attr *attr;
	struct vrdma_dev *vdev;

	lockdep_assert_held(&vrdma_mutex);
	list_for_each_entry(vdev, &vrdma_devs, list) {
		if (vdev->parent_ibdev != parent || vdev->cm.publish_closed ||
		    !vrdma_cm_port_in(vdev->cm.ports, vdev->cm.nports, port))
			continue;
		attr = rdma_find_gid_by_port(&vdev->ibdev, gid,
					     IB_GID_TYPE_ROCE_UDP_ENCAP, 1, NULL);
		if (IS_ERR(attr))
			continue;
		rdma_put_gid_attr(attr);
		return vdev;
	}
	return NULL;
}

/*
 * A request on a published port, for the vdevice it is addressed to (the
 * receiver's primary path: its source GID is the local one; for a SIDR
 * request, the GID it came to).  A non-zero return makes ib_cm send a REJ
 * (a SIDR_REP "rejected") and destroy the new cm_id.  A delivered request
 * has the proxy's handler from then on; any other event on a listener's
 * request cannot come.
 */
static int vrdma_cm_listen_handler(struct ib_cm_id *id,
				   const struct ib_cm_event *ev)
{
	u64 sid = be64_to_cpu(id->service_id);
	struct vrdma_dev *vdev;
	int ret = -ECONNREFUSED;

	const struct ib_gid_attr *to;

	if (ev->event != IB_CM_REQ_RECEIVED &&
	    ev->event != IB_CM_SIDR_REQ_RECEIVED)
		return ret;
	vrdma_delay(VRDMA_DELAY_CM_LISTEN);
	mutex_lock(&vrdma_mutex);
	if (ev->event == IB_CM_REQ_RECEIVED &&
	    (sid & ~0xffffULL) == RDMA_IB_IP_PS_TCP) {
		vdev = vrdma_cm_port_owner(id->device, sid & 0xffff,
					   &ev->param.req_rcvd.primary_path->sgid);
		if (vdev)
			ret = vrdma_cm_proxy_accept(vdev, id, ev);
	} else if (ev->event == IB_CM_SIDR_REQ_RECEIVED &&
		   (sid & ~0xffffULL) == RDMA_IB_IP_PS_UDP) {
		to = ev->param.sidr_req_rcvd.sgid_attr;
		vdev = to ? vrdma_cm_port_owner(id->device, sid & 0xffff,
						&to->gid) : NULL;
		if (vdev)
			ret = vrdma_cm_proxy_sidr_accept(vdev, id, ev);
	}
	mutex_unlock(&vrdma_mutex);
	if (ret)
		atomic_inc(&vrdma_cm_in_rejected);
	return ret;
}

static struct vrdma_cm_listen *vrdma_cm_listen_find(struct ib_device *parent,
						    u16 port)
{
	struct vrdma_cm_listen *l;

	lockdep_assert_held(&vrdma_mutex);
	list_for_each_entry(l, &vrdma_cm_listens, node)
		if (l->parent == parent && l->port == port)
			return l;
	return NULL;
}

static int vrdma_cm_listen_get(struct ib_device *parent, u16 port,
			       struct netlink_ext_ack *extack)
{
	struct vrdma_cm_listen *l;
	struct ib_cm_id *id;

	l = vrdma_cm_listen_find(parent, port);
	if (l) {
		l->users++;
		return 0;
	}
	l = kzalloc(sizeof(*l), GFP_KERNEL);
	if (!l)
		return -ENOMEM;
	id = ib_cm_insert_listen(parent, vrdma_cm_listen_handler,
				 vrdma_cm_port_sid(RDMA_IB_IP_PS_TCP, port));
	if (IS_ERR(id))
		goto err_free;
	l->parent = parent;
	l->port = port;
	l->id = id;
	id = ib_cm_insert_listen(parent, vrdma_cm_listen_handler,
				 vrdma_cm_port_sid(RDMA_IB_IP_PS_UDP, port));
	if (IS_ERR(id)) {
		/*
		 * The TCP listener may hold a request already: it is
		 * destroyed without vrdma_mutex, by the caller's reaping.
		 */
		list_add_tail(&l->node, &vrdma_cm_listens_gone);
		goto err_refused;
	}
	l->uid = id;
	l->users = 1;
	list_add_tail(&l->node, &vrdma_cm_listens);
	return 0;

err_free:
	kfree(l);
err_refused:
	if (PTR_ERR(id) != -EINVAL)
		return PTR_ERR(id);
	NL_SET_ERR_MSG(extack,
		       "the host already listens on an RDMA CM port to publish, on the parent");
	return -EADDRINUSE;
}

static void vrdma_cm_listen_put(struct ib_device *parent, u16 port)
{
	struct vrdma_cm_listen *l = vrdma_cm_listen_find(parent, port);

	if (WARN_ON_ONCE(!l) || --l->users)
		return;
	list_move_tail(&l->node, &vrdma_cm_listens_gone);
}

/**
 * vrdma_cm_listens_reap() - destroy the listeners no vdevice publishes
 *
 * After vrdma_cm_publish() or vrdma_cm_publish_stop() gave up ports: their
 * listeners are destroyed here, without vrdma_mutex, once the handlers of
 * the requests they hold are done (those take the mutex, find no vdevice
 * for the port and reject the request).
 *
 * Context: process context, vrdma_mutex not held.
 */
void vrdma_cm_listens_reap(void)
{
	struct vrdma_cm_listen *l, *next;
	LIST_HEAD(gone);

	mutex_lock(&vrdma_cm_reap_mutex);
	mutex_lock(&vrdma_mutex);
	list_splice_init(&vrdma_cm_listens_gone, &gone);
	mutex_unlock(&vrdma_mutex);
	list_for_each_entry_safe(l, next, &gone, node) {
		if (l->uid)
			ib_destroy_cm_id(l->uid);
		ib_destroy_cm_id(l->id);
		kfree(l);
	}
	mutex_unlock(&vrdma_cm_reap_mutex);
}

static bool vrdma_cm_port_in(const u16 *ports, unsigned int n, u16 port)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (ports[i] == port)
			return true;
	return false;
}

/* Some GID of @a is in @b's table too. */
static bool vrdma_cm_gids_meet(struct vrdma_dev *a, struct vrdma_dev *b)
{
	const struct ib_gid_attr *attr, *other;
	unsigned int i, len = a->ibdev.port_data[1].immutable.gid_tbl_len;
	bool meet = false;

	for (i = 0; i < len && !meet; i++) {
		attr = rdma_get_gid_attr(&a->ibdev, 1, i);
		if (IS_ERR(attr))
			continue;
		other = rdma_find_gid_by_port(&b->ibdev, &attr->gid,
					      attr->gid_type, 1, NULL);
		if (!IS_ERR(other)) {
			rdma_put_gid_attr(other);
			meet = true;
		}
		rdma_put_gid_attr(attr);
	}
	return meet;
}

/*
 * Another vdevice of the parent publishes @port and shares a GID with
 * @vdev: a request naming that GID would have two recipients.
 */
static struct vrdma_dev *vrdma_cm_port_rival(struct vrdma_dev *vdev, u16 port)
{
	struct vrdma_dev *other;

	list_for_each_entry(other, &vdev->parent->vdevs, parent_node) {
		if (other == vdev ||
		    !vrdma_cm_port_in(other->cm.ports, other->cm.nports, port))
			continue;
		if (vrdma_cm_gids_meet(vdev, other))
			return other;
	}
	return NULL;
}

/**
 * vrdma_cm_publish() - replace the RDMA CM ports a vdevice publishes
 * @vdev: the vdevice, registered and linked
 * @ports: the new set, checked by the caller: no 0, no duplicates
 * @n: its length, at most VRDMA_CM_PORTS_MAX
 * @extack: for the reason of a refusal
 *
 * Listens on the ports new to the set and stops listening on those it
 * loses, or changes nothing on failure.  Either way the caller calls
 * vrdma_cm_listens_reap() once it dropped vrdma_mutex.
 *
 * Context: process context, vrdma_mutex held.
 * Return: 0, -EINVAL without VRDMA_DEV_F_CM, -EADDRINUSE for a port the
 * host or a vdevice sharing a GID with @vdev holds, or another negative
 * errno.
 */
int vrdma_cm_publish(struct vrdma_dev *vdev, const u16 *ports, unsigned int n,
		     struct netlink_ext_ack *extack)
{
	struct ib_device *parent = vdev->parent_ibdev;
	struct vrdma_dev_cm *cm = &vdev->cm;
	unsigned int i, got;
	int ret = 0;

	lockdep_assert_held(&vrdma_mutex);
	if (!(vdev->flags & VRDMA_DEV_F_CM)) {
		NL_SET_ERR_MSG(extack,
			       "publishing RDMA CM ports needs a vdevice with cm on");
		return -EINVAL;
	}
	if (cm->publish_closed)
		return -ENODEV;

	for (got = 0; got < n; got++) {
		if (vrdma_cm_port_in(cm->ports, cm->nports, ports[got]))
			continue;
		if (vrdma_cm_port_rival(vdev, ports[got])) {
			NL_SET_ERR_MSG(extack,
				       "an RDMA CM port to publish is published by a vdevice that shares an address with this one");
			ret = -EADDRINUSE;
			break;
		}
		ret = vrdma_cm_listen_get(parent, ports[got], extack);
		if (ret)
			break;
	}
	if (ret) {
		for (i = 0; i < got; i++)
			if (!vrdma_cm_port_in(cm->ports, cm->nports, ports[i]))
				vrdma_cm_listen_put(parent, ports[i]);
		return ret;
	}

	for (i = 0; i < cm->nports; i++)
		if (!vrdma_cm_port_in(ports, n, cm->ports[i]))
			vrdma_cm_listen_put(parent, cm->ports[i]);
	memcpy(cm->ports, ports, n * sizeof(*ports));
	cm->nports = n;
	return 0;
}

/**
 * vrdma_cm_publish_stop() - withdraw every port a vdevice publishes, for good
 * @vdev: the vdevice, unregistered
 *
 * Before the parent's ib_cm can leave the parent: no listener of vrdma's
 * outlives the last vdevice that publishes its port.
 *
 * Context: process context, vrdma_mutex not held.
 */
void vrdma_cm_publish_stop(struct vrdma_dev *vdev)
{
	mutex_lock(&vrdma_mutex);
	vdev->cm.publish_closed = true;
	while (vdev->cm.nports)
		vrdma_cm_listen_put(vdev->parent_ibdev,
				    vdev->cm.ports[--vdev->cm.nports]);
	mutex_unlock(&vrdma_mutex);
	vrdma_cm_listens_reap();
}

/*
 * vrdma_cm_publish_show() - vrdma's listeners, for debugfs
 * @m: the seq_file
 * @unused: the file's private data, none
 *
 * "rejected N": the requests rejected on a listener.  Then one line per
 * listener: "listen PARENT PORT USERS".
 * Context: process context.
 */
static int vrdma_cm_publish_show(struct seq_file *m, void *unused)
{
	struct vrdma_cm_listen *l;

	seq_printf(m, "rejected %d\n", atomic_read(&vrdma_cm_in_rejected));
	mutex_lock(&vrdma_mutex);
	list_for_each_entry(l, &vrdma_cm_listens, node)
		seq_printf(m, "listen %s %u %u\n", dev_name(&l->parent->dev),
			   l->port, l->users);
	mutex_unlock(&vrdma_mutex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(vrdma_cm_publish);

/**
 * vrdma_cm_publish_debugfs_init() - create /sys/kernel/debug/vrdma/cm_listen
 *
 * After vrdma_debugfs_init(), whose removal of the directory removes it.
 */
void vrdma_cm_publish_debugfs_init(void)
{
	debugfs_create_file("cm_listen", 0400, vrdma_debugfs_root, NULL,
			    &vrdma_cm_publish_fops);
}
