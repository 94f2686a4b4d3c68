// SPDX-License-Identifier: MIT
/*
 * The version of the loaded module.
 */
#include <errno.h>

#include "internal.h"

struct version_buf {
	char *buf;
	size_t len;
	bool found;
};

static int version_cb(const struct nlmsghdr *nlh, void *data)
{
	struct version_buf *v = data;
	int ret;

	ret = vrdma_parse_version(nlh, v->buf, v->len);
	if (!ret)
		v->found = true;
	return ret;
}

int vrdma_version(struct vrdma_handle *h, char *buf, size_t len)
{
	union vrdma_msgbuf req;
	struct version_buf v = { buf, len, false };
	struct nlmsghdr *nlh;
	int ret;

	if (!len)
		return vrdma_set_error(h, -ENOSPC, NULL);
	buf[0] = '\0';
	ret = vrdma_resolve_family(h);
	if (ret)
		return ret;
	nlh = vrdma_msg_start(h, req.buf, VRDMA_CMD_VERSION_GET, NLM_F_ACK);
	ret = vrdma_request(h, nlh, version_cb, &v);
	if (ret)
		return ret;
	if (!v.found)
		return vrdma_set_error(h, -EPROTO,
				       "the kernel sent no version");
	return vrdma_ok(h);
}
