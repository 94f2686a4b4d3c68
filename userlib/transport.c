// SPDX-License-Identifier: MIT
/*
 * The netlink socket: the only code in the library that talks to the
 * kernel.  Everything above it goes through struct vrdma_transport, which
 * the tests replace with a mock.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/netlink.h>

#include "internal.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

/*
 * Create the socket inside @netns_fd, if given, and come back: a netlink
 * socket keeps the namespace it was created in for its whole life.  Only
 * the calling thread switches, and only for the duration of this call.
 */
static int socket_in_netns(int netns_fd, struct mnl_socket **nlp)
{
	struct mnl_socket *nl;
	int self = -1;
	int ret = 0;

	if (netns_fd >= 0) {
		self = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
		if (self < 0)
			return -errno;
		if (setns(netns_fd, CLONE_NEWNET) < 0) {
			ret = -errno;
			close(self);
			return ret;
		}
	}

	nl = mnl_socket_open2(NETLINK_GENERIC, SOCK_CLOEXEC);
	if (!nl)
		ret = -errno;

	if (self >= 0) {
		/* Staying in the other namespace would be worse than failing */
		if (setns(self, CLONE_NEWNET) < 0 && !ret)
			ret = -errno;
		close(self);
	}
	if (ret) {
		if (nl)
			mnl_socket_close(nl);
		return ret;
	}
	*nlp = nl;
	return 0;
}

/**
 * vrdma_mnl_socket_open() - open a bound generic netlink socket
 * @h: handle whose error to set on failure, may be NULL
 * @netns_fd: namespace to create the socket in, -1 for the current one
 * @nlp: receives the socket
 *
 * Asks for extended ACK messages and capped ACKs (no echo of the request).
 *
 * Return: 0 or a negative errno.
 */
int vrdma_mnl_socket_open(struct vrdma_handle *h, int netns_fd,
			  struct mnl_socket **nlp)
{
	struct mnl_socket *nl = NULL;
	int one = 1;
	int ret;

	ret = socket_in_netns(netns_fd, &nl);
	if (ret)
		goto err;
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		ret = -errno;
		mnl_socket_close(nl);
		goto err;
	}
	/* Both are optional: an old kernel just gives less detail */
	mnl_socket_setsockopt(nl, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(nl, NETLINK_CAP_ACK, &one, sizeof(one));
	*nlp = nl;
	return 0;

err:
	if (h)
		vrdma_set_error(h, ret, netns_fd >= 0 ?
				"cannot open a netlink socket in the network namespace" :
				"cannot open a netlink socket");
	return ret;
}

static int mnl_send(struct vrdma_handle *h, const void *buf, size_t len)
{
	ssize_t n = mnl_socket_sendto(h->tp_priv, buf, len);

	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

static ssize_t mnl_recv(struct vrdma_handle *h, void *buf, size_t len)
{
	ssize_t n;

	do {
		n = mnl_socket_recvfrom(h->tp_priv, buf, len);
	} while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

static uint32_t mnl_portid(struct vrdma_handle *h)
{
	return mnl_socket_get_portid(h->tp_priv);
}

static void mnl_close(struct vrdma_handle *h)
{
	mnl_socket_close(h->tp_priv);
}

const struct vrdma_transport vrdma_mnl_transport = {
	.send	= mnl_send,
	.recv	= mnl_recv,
	.portid	= mnl_portid,
	.close	= mnl_close,
};
