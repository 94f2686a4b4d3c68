// SPDX-License-Identifier: MIT
/*
 * The handle: opening and closing, the lookup of the "vrdma" family, and
 * the two exchanges every object builds on: a request answered by an ACK,
 * and a dump.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

/**
 * vrdma_handle_alloc() - allocate a handle over a transport
 * @tp: the transport
 * @tp_priv: its state; the handle owns it from now on
 *
 * Return: the handle, or NULL when out of memory.
 */
struct vrdma_handle *vrdma_handle_alloc(const struct vrdma_transport *tp,
					void *tp_priv)
{
	struct vrdma_handle *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->rxbuf = malloc(VRDMA_RECV_SIZE);
	if (!h->rxbuf) {
		free(h);
		return NULL;
	}
	h->tp = tp;
	h->tp_priv = tp_priv;
	h->netns_fd = -1;
	return h;
}

int vrdma_open(struct vrdma_handle **hp)
{
	return vrdma_open_netns(hp, NULL);
}

int vrdma_open_netns(struct vrdma_handle **hp, const char *path)
{
	struct vrdma_handle *h;
	struct mnl_socket *nl;
	int netns_fd = -1;
	int ret;

	*hp = NULL;
	if (path) {
		netns_fd = open(path, O_RDONLY | O_CLOEXEC);
		if (netns_fd < 0)
			return -errno;
	}
	ret = vrdma_mnl_socket_open(NULL, netns_fd, &nl);
	if (ret)
		goto err_close_netns;
	h = vrdma_handle_alloc(&vrdma_mnl_transport, nl);
	if (!h) {
		ret = -ENOMEM;
		goto err_close_socket;
	}
	/* Kept so that monitors can open their socket in the same place */
	h->netns_fd = netns_fd;
	*hp = h;
	return 0;

err_close_socket:
	mnl_socket_close(nl);
err_close_netns:
	if (netns_fd >= 0)
		close(netns_fd);
	return ret;
}

void vrdma_close(struct vrdma_handle *h)
{
	if (!h)
		return;
	h->tp->close(h);
	if (h->netns_fd >= 0)
		close(h->netns_fd);
	free(h->rxbuf);
	free(h);
}

static uint32_t next_seq(struct vrdma_handle *h)
{
	/* 0 is what unsolicited messages carry; never use it */
	if (++h->seq == 0)
		h->seq = 1;
	return h->seq;
}

/* Send one request and walk its answer to the end */
static int exchange(struct vrdma_handle *h, struct nlmsghdr *nlh,
		    struct vrdma_reply *r,
		    int (*cb)(const struct nlmsghdr *nlh, void *data),
		    void *data)
{
	ssize_t n;
	int ret;

	vrdma_reply_init(r, nlh->nlmsg_seq, h->tp->portid(h), nlh->nlmsg_type,
			 cb, data);
	ret = h->tp->send(h, nlh, nlh->nlmsg_len);
	if (ret)
		return vrdma_set_error(h, ret, "cannot send to the kernel");
	do {
		n = h->tp->recv(h, h->rxbuf, VRDMA_RECV_SIZE);
		if (n < 0)
			return vrdma_set_error(h, (int)n,
					       "cannot receive from the kernel");
		ret = vrdma_reply_feed(r, h->rxbuf, n);
		if (ret < 0)
			return vrdma_set_error(h, ret,
					       "malformed netlink message from the kernel");
	} while (!ret);

	/*
	 * The family went away (module unloaded, maybe reloaded under another
	 * id): forget it, so that the next call looks it up again.
	 */
	if (r->err == -ENOENT && nlh->nlmsg_type == h->family) {
		h->family = 0;
		h->events_group = 0;
	}
	if (r->err)
		return vrdma_set_error(h, r->err, "%s", r->ext_msg);
	if (r->cb_err == -EPROTO)
		return vrdma_set_error(h, r->cb_err,
				       "malformed vrdma message from the kernel");
	if (r->cb_err)
		return vrdma_set_error(h, r->cb_err, NULL);
	return 0;
}

struct family_info {
	bool found;
	uint16_t family;
	uint32_t version;
	uint32_t events_group;
};

static int family_cb(const struct nlmsghdr *nlh, void *data)
{
	struct family_info *fi = data;
	int ret;

	ret = vrdma_parse_family(nlh, &fi->family, &fi->version,
				 &fi->events_group);
	if (!ret)
		fi->found = true;
	return ret;
}

/**
 * vrdma_resolve_family() - look up the "vrdma" family once per handle
 * @h: the handle
 *
 * Tried again on every call until it succeeds, so a long-lived handle
 * starts working when the module is loaded.
 *
 * Return: 0, -ENOENT when the module is not loaded, or another negative
 * errno.
 */
int vrdma_resolve_family(struct vrdma_handle *h)
{
	union vrdma_msgbuf req;
	struct family_info fi = { 0 };
	struct genlmsghdr *genl;
	struct vrdma_reply r;
	struct nlmsghdr *nlh;
	int ret;

	if (h->family)
		return 0;
	/* libmnl leaves attribute padding as it finds it */
	memset(&req, 0, sizeof(req));
	nlh = mnl_nlmsg_put_header(req.buf);
	nlh->nlmsg_type = GENL_ID_CTRL;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = next_seq(h);
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = CTRL_CMD_GETFAMILY;
	genl->version = 1;
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, VRDMA_GENL_NAME);

	ret = exchange(h, nlh, &r, family_cb, &fi);
	if (ret == -ENOENT)
		return vrdma_set_error(h, ret,
				       "vrdma module not loaded: no generic netlink family \"%s\"",
				       VRDMA_GENL_NAME);
	if (ret)
		return ret;
	if (!fi.found)
		return vrdma_set_error(h, -EPROTO,
				       "no answer to the netlink family lookup");
	h->family = fi.family;
	h->family_version = fi.version;
	h->events_group = fi.events_group;
	return 0;
}

/**
 * vrdma_msg_start() - begin a vrdma request in a buffer
 * @h: the handle, whose family must be resolved
 * @buf: VRDMA_SEND_SIZE bytes
 * @cmd: enum vrdma_cmd
 * @flags: NLM_F_* beyond NLM_F_REQUEST
 *
 * Return: the message, ready for attributes.
 */
struct nlmsghdr *vrdma_msg_start(struct vrdma_handle *h, void *buf,
				 uint8_t cmd, uint16_t flags)
{
	struct nlmsghdr *nlh;
	struct genlmsghdr *genl;

	/* libmnl leaves attribute padding as it finds it */
	memset(buf, 0, VRDMA_SEND_SIZE);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = h->family;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = next_seq(h);
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = cmd;
	genl->version = VRDMA_GENL_VERSION;
	return nlh;
}

/**
 * vrdma_request() - send a doit request and wait for its ACK
 * @h: the handle
 * @nlh: the request, from vrdma_msg_start() with NLM_F_ACK
 * @cb: called for each reply message before the ACK, may be NULL
 * @data: passed to @cb
 *
 * Return: 0 or a negative errno, recorded on @h.
 */
int vrdma_request(struct vrdma_handle *h, struct nlmsghdr *nlh,
		  int (*cb)(const struct nlmsghdr *nlh, void *data),
		  void *data)
{
	struct vrdma_reply r;

	return exchange(h, nlh, &r, cb, data);
}

/**
 * vrdma_dump() - run a dump to completion, restarting it when interrupted
 * @h: the handle, whose family must be resolved
 * @cmd: enum vrdma_cmd
 * @cb: called for each record
 * @reset: called before a restart to drop what @cb collected
 * @data: passed to @cb and @reset
 *
 * Return: 0, -EAGAIN if every attempt was interrupted, or another negative
 * errno, recorded on @h.
 */
int vrdma_dump(struct vrdma_handle *h, uint8_t cmd,
	       int (*cb)(const struct nlmsghdr *nlh, void *data),
	       void (*reset)(void *data), void *data)
{
	union vrdma_msgbuf req;
	struct vrdma_reply r;
	struct nlmsghdr *nlh;
	int attempt, ret;

	for (attempt = 0; attempt < VRDMA_DUMP_ATTEMPTS; attempt++) {
		if (attempt)
			reset(data);
		nlh = vrdma_msg_start(h, req.buf, cmd, NLM_F_DUMP);
		ret = exchange(h, nlh, &r, cb, data);
		if (ret)
			return ret;
		if (!r.dump_intr)
			return 0;
	}
	return vrdma_set_error(h, -EAGAIN,
			       "the list kept changing during %d dumps; giving up",
			       VRDMA_DUMP_ATTEMPTS);
}

/**
 * vrdma_copy_sized() - hand a struct to a caller who may know another size
 * @dst: the caller's struct
 * @dst_size: its size as the caller was built with
 * @src: the library's struct
 * @src_size: its size in this library
 *
 * Structs only grow at their end, so the common prefix means the same on
 * both sides; what only the caller knows is zeroed, what only the library
 * knows is left out.
 */
void vrdma_copy_sized(void *dst, size_t dst_size, const void *src,
		      size_t src_size)
{
	if (dst_size <= src_size) {
		memcpy(dst, src, dst_size);
		return;
	}
	memcpy(dst, src, src_size);
	memset((char *)dst + src_size, 0, dst_size - src_size);
}
