// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness for the message parser: the input is one datagram as
 * the kernel could send it.  It goes through the reply walker and every
 * record parser; none may crash, read out of bounds or leak.
 *
 *   make -C userlib fuzz [FUZZ_RUNS=N]
 */
#include <stdlib.h>
#include <string.h>

#include "../internal.h"

static int parse_all(const struct nlmsghdr *nlh, void *data)
{
	struct vrdma_parent parent;
	struct vrdma_event ev;
	struct vrdma_dev dev;
	uint32_t version, group;
	uint16_t family;
	char buf[64];

	(void)data;
	vrdma_parse_dev(nlh, &dev);
	vrdma_parse_event(nlh, &ev);
	if (!vrdma_parse_parent(nlh, &parent))
		vrdma_parent_clear(&parent);
	vrdma_parse_version(nlh, buf, sizeof(buf));
	vrdma_parse_family(nlh, &family, &version, &group);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct nlmsghdr *nlh;
	struct vrdma_reply r;
	char msg[128];
	void *buf;
	size_t rem;
	int err;

	if (size < sizeof(*nlh) || size > VRDMA_RECV_SIZE)
		return 0;
	/* Exactly @size bytes, aligned as a received datagram is */
	buf = malloc(size);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	nlh = buf;

	/* Answer to the request the first message claims to answer */
	vrdma_reply_init(&r, nlh->nlmsg_seq, 0, nlh->nlmsg_type, parse_all,
			 NULL);
	vrdma_reply_feed(&r, buf, size);

	/* And every message on its own, as monitors and errors see them */
	rem = size;
	for (; vrdma_nlmsg_ok(nlh, rem); nlh = vrdma_nlmsg_next(nlh, &rem)) {
		parse_all(nlh, NULL);
		vrdma_parse_error(nlh, &err, msg, sizeof(msg));
	}
	free(buf);
	return 0;
}
