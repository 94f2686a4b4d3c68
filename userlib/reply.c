// SPDX-License-Identifier: MIT
/*
 * Walking the datagrams that answer one request.
 *
 * An answer is some data messages followed by an end marker: an ACK or
 * error (NLMSG_ERROR) for a doit request, NLMSG_DONE for a dump.  The
 * walker keeps the first error a record callback reports but goes on to
 * the end marker, so the socket holds no rest of this answer when the next
 * request is sent.  Messages with another sequence number are leftovers of
 * an earlier answer that was abandoned; they are skipped.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <linux/netlink.h>

#include "internal.h"

/**
 * vrdma_reply_init() - prepare to walk the answer to one request
 * @r: the walker
 * @seq: sequence number of the request
 * @portid: our port id, 0 to accept any
 * @family: nlmsg_type of data messages
 * @cb: called for each data message, may be NULL
 * @data: passed to @cb
 */
void vrdma_reply_init(struct vrdma_reply *r, uint32_t seq, uint32_t portid,
		      uint16_t family,
		      int (*cb)(const struct nlmsghdr *nlh, void *data),
		      void *data)
{
	memset(r, 0, sizeof(*r));
	r->seq = seq;
	r->portid = portid;
	r->family = family;
	r->cb = cb;
	r->data = data;
}

/*
 * The extended ACK attributes that follow an error or DONE payload.  A
 * broken TLV area must not hide the error code itself, so it only costs
 * the message.
 */
static void parse_ext_ack(const struct nlmsghdr *nlh, size_t offset,
			  char *msg, size_t msglen)
{
	const char *payload = mnl_nlmsg_get_payload(nlh);
	size_t payload_len = nlh->nlmsg_len - MNL_NLMSG_HDRLEN;
	const struct nlattr *attr;
	const char *text = NULL;
	uint32_t missing = 0;
	int rem;

	offset = MNL_ALIGN(offset);
	if (offset >= payload_len)
		return;
	attr = (const struct nlattr *)(payload + offset);
	rem = (int)(payload_len - offset);
	for (; mnl_attr_ok(attr, rem);
	     rem -= MNL_ALIGN(attr->nla_len), attr = mnl_attr_next(attr)) {
		switch (mnl_attr_get_type(attr)) {
		case NLMSGERR_ATTR_MSG:
			if (mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) < 0)
				return;
			text = mnl_attr_get_str(attr);
			break;
		case NLMSGERR_ATTR_MISS_TYPE:
			if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
				return;
			missing = mnl_attr_get_u32(attr);
			break;
		}
	}
	/* Kernel messages end in no newline but a few do; keep one line */
	if (text)
		snprintf(msg, msglen, "%.*s", (int)strcspn(text, "\n"), text);
	else if (missing)
		snprintf(msg, msglen, "missing attribute %u", missing);
}

/**
 * vrdma_parse_error() - decode an NLMSG_ERROR message
 * @nlh: the message
 * @err: receives the error, 0 for an ACK
 * @msg: receives the extended ACK text, empty if none
 * @msglen: size of @msg
 *
 * Return: 0 or -EPROTO.
 */
int vrdma_parse_error(const struct nlmsghdr *nlh, int *err,
		      char *msg, size_t msglen)
{
	const struct nlmsgerr *e;
	size_t offset = sizeof(*e);

	if (msglen)
		msg[0] = '\0';
	if (nlh->nlmsg_len < MNL_NLMSG_HDRLEN + sizeof(*e))
		return -EPROTO;
	e = mnl_nlmsg_get_payload(nlh);
	/* The kernel sends -errno; anything else is not an error it sent */
	if (e->error > 0 || e->error < -4095)
		return -EPROTO;
	*err = e->error;
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return 0;
	/* Uncapped, the whole request is echoed before the TLVs */
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED)) {
		if (e->msg.nlmsg_len < sizeof(e->msg))
			return -EPROTO;
		offset += e->msg.nlmsg_len - sizeof(e->msg);
	}
	parse_ext_ack(nlh, offset, msg, msglen);
	return 0;
}

/* NLMSG_DONE carries the dump's final status and, maybe, extended ACK */
static int parse_done(const struct nlmsghdr *nlh, int *err,
		      char *msg, size_t msglen)
{
	int status;

	*err = 0;
	if (nlh->nlmsg_len < MNL_NLMSG_HDRLEN + sizeof(status))
		return 0;	/* no status: a plain end of dump */
	memcpy(&status, mnl_nlmsg_get_payload(nlh), sizeof(status));
	if (status > 0 || status < -4095)
		return -EPROTO;
	*err = status;
	if (nlh->nlmsg_flags & NLM_F_ACK_TLVS)
		parse_ext_ack(nlh, sizeof(status), msg, msglen);
	return 0;
}

/* The end marker: the answer's status, and with it its end */
static int parse_end(struct vrdma_reply *r, const struct nlmsghdr *nlh)
{
	int ret;

	if (nlh->nlmsg_type == NLMSG_ERROR)
		ret = vrdma_parse_error(nlh, &r->err, r->ext_msg,
					sizeof(r->ext_msg));
	else
		ret = parse_done(nlh, &r->err, r->ext_msg, sizeof(r->ext_msg));
	if (!ret)
		r->done = true;
	return ret;
}

/**
 * vrdma_reply_feed() - walk one received datagram
 * @r: the walker
 * @buf: the datagram
 * @len: its length
 *
 * Return: 1 when the answer is complete (see @r->err, @r->cb_err and
 * @r->dump_intr), 0 when more datagrams are needed, -EPROTO when the
 * datagram itself is malformed.
 */
int vrdma_reply_feed(struct vrdma_reply *r, const void *buf, size_t len)
{
	const struct nlmsghdr *nlh = buf;
	size_t rem = len;
	int ret;

	if (len > VRDMA_RECV_SIZE)
		return -EPROTO;
	for (; vrdma_nlmsg_ok(nlh, rem) && !r->done;
	     nlh = vrdma_nlmsg_next(nlh, &rem)) {
		if (nlh->nlmsg_seq != r->seq)
			continue;
		if (r->portid && nlh->nlmsg_pid && nlh->nlmsg_pid != r->portid)
			continue;
		if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
			r->dump_intr = true;

		switch (nlh->nlmsg_type) {
		case NLMSG_NOOP:
			continue;
		case NLMSG_OVERRUN:
			r->err = -ENOBUFS;
			r->done = true;
			continue;
		case NLMSG_ERROR:
		case NLMSG_DONE:
			ret = parse_end(r, nlh);
			if (ret)
				return ret;
			continue;
		}

		if (nlh->nlmsg_type != r->family) {
			if (!r->cb_err)
				r->cb_err = -EPROTO;
			continue;
		}
		if (r->cb && !r->cb_err)
			r->cb_err = r->cb(nlh, r->data);
	}
	/* Bytes that do not form a message: the datagram is corrupt */
	if (!r->done && rem)
		return -EPROTO;
	return r->done;
}
