// SPDX-License-Identifier: MIT
/*
 * Event subscription.  A monitor owns a private handle whose socket has
 * joined the "events" group, so requests on the caller's handle never
 * see notifications and notifications never see answers.
 */
#include <errno.h>
#include <stdlib.h>

#include <linux/netlink.h>

#include "internal.h"

/**
 * struct vrdma_monitor - an event subscription
 * @h: private handle owning the subscribed socket and receive buffer
 * @len: bytes of the last datagram in @h->rxbuf
 * @off: offset of the next message in it
 */
struct vrdma_monitor {
	struct vrdma_handle *h;
	size_t len;
	size_t off;
};

/**
 * vrdma_monitor_wrap() - make a monitor of a handle already subscribed
 * @h: the handle, owned by the monitor from now on; its family must be set
 *
 * Return: the monitor, or NULL when out of memory.
 */
struct vrdma_monitor *vrdma_monitor_wrap(struct vrdma_handle *h)
{
	struct vrdma_monitor *m = calloc(1, sizeof(*m));

	if (m)
		m->h = h;
	return m;
}

int vrdma_monitor_open(struct vrdma_handle *h, struct vrdma_monitor **mp)
{
	struct vrdma_handle *mh;
	struct mnl_socket *nl;
	unsigned int group;
	int ret;

	*mp = NULL;
	ret = vrdma_resolve_family(h);
	if (ret)
		return ret;
	if (!h->events_group)
		return vrdma_set_error(h, -ENOENT,
				       "the vrdma module has no \"%s\" multicast group",
				       VRDMA_GENL_MCGRP_EVENTS);
	ret = vrdma_mnl_socket_open(h, h->netns_fd, &nl);
	if (ret)
		return ret;
	group = h->events_group;
	if (mnl_socket_setsockopt(nl, NETLINK_ADD_MEMBERSHIP, &group,
				  sizeof(group)) < 0) {
		ret = vrdma_set_error(h, -errno,
				      "cannot join the \"%s\" multicast group",
				      VRDMA_GENL_MCGRP_EVENTS);
		goto err_close_socket;
	}
	mh = vrdma_handle_alloc(&vrdma_mnl_transport, nl);
	if (!mh) {
		ret = vrdma_set_error(h, -ENOMEM, NULL);
		goto err_close_socket;
	}
	mh->family = h->family;
	*mp = vrdma_monitor_wrap(mh);
	if (!*mp) {
		vrdma_close(mh);
		return vrdma_set_error(h, -ENOMEM, NULL);
	}
	return vrdma_ok(h);

err_close_socket:
	mnl_socket_close(nl);
	return ret;
}

int vrdma_monitor_fd(const struct vrdma_monitor *m)
{
	return mnl_socket_get_fd(m->h->tp_priv);
}

int vrdma_monitor_next_sz(struct vrdma_monitor *m, struct vrdma_event *out,
			  size_t ev_size)
{
	struct vrdma_handle *h = m->h;
	const struct nlmsghdr *nlh;
	struct vrdma_event evbuf, *ev = &evbuf;
	ssize_t n;
	int ret;

	if (ev_size < VRDMA_EVENT_SIZE_1_0)
		return -EINVAL;
	for (;;) {
		if (m->off >= m->len) {
			m->len = 0;
			m->off = 0;
			n = h->tp->recv(h, h->rxbuf, VRDMA_RECV_SIZE);
			if (n < 0)
				return (int)n;
			m->len = n;
		}
		nlh = (const struct nlmsghdr *)(h->rxbuf + m->off);
		if (!vrdma_nlmsg_ok(nlh, m->len - m->off)) {
			/* Not a whole message: drop the rest of the datagram */
			m->off = m->len;
			return -EPROTO;
		}
		m->off += MNL_ALIGN(nlh->nlmsg_len);
		if (nlh->nlmsg_type != h->family)
			continue;
		ret = vrdma_parse_event(nlh, ev);
		if (ret > 0)
			continue;
		if (ret < 0)
			return ret;
		vrdma_dev_add_hostinfo(&ev->dev, 1);
		vrdma_copy_sized(out, ev_size, ev, sizeof(*ev));
		return 0;
	}
}

void vrdma_monitor_close(struct vrdma_monitor *m)
{
	if (!m)
		return;
	vrdma_close(m->h);
	free(m);
}
