// SPDX-License-Identifier: GPL-2.0
/*
 * exq_udata DEVICE - an extended QUERY_DEVICE that carries driver data.
 *
 * libmlx5 and libefa ask for their driver's capabilities in the driver
 * part of ex_query_device, a region the core hands to the driver's
 * query_device op as its udata.  librxe never does, so this program writes
 * the command itself through the context's command file, once with no
 * driver data and once with DRIVER_WORDS words of it each way, and prints
 * what the kernel answered to each ("ok" or the errno's name), one line
 * each.  A vdevice must answer exactly as its parent: rxe refuses driver
 * data with EINVAL, a driver with capabilities to report fills them in.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <rdma/ib_user_verbs.h>

#include "ex_cmd.h"
#include "util.h"

#define DRIVER_WORDS 2

struct exq_req {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_ex_cmd_hdr ex;
	struct ib_uverbs_ex_query_device cmd;
	__u64 driver_in[DRIVER_WORDS];
};

struct exq_resp {
	struct ib_uverbs_ex_query_device_resp core;
	__u64 driver_out[DRIVER_WORDS];
};

/* One ex_query_device with @words words of driver data each way. */
static const char *exq(struct ibv_context *ctx, unsigned int words)
{
	struct exq_resp resp;
	struct exq_req req;
	size_t in_len = sizeof(req) - (DRIVER_WORDS - words) * 8;

	memset(&req, 0, sizeof(req));
	memset(&resp, 0, sizeof(resp));
	ex_cmd_hdr(&req.hdr, &req.ex, IB_USER_VERBS_EX_CMD_QUERY_DEVICE,
		   sizeof(req.cmd), sizeof(resp.core), &resp, words, words);

	if (write(ctx->cmd_fd, &req, in_len) != (ssize_t)in_len)
		return strerrorname_np(errno) ?: "unknown errno";
	return "ok";
}

int main(int argc, char **argv)
{
	struct ibv_context *ctx;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DEVICE\n", argv[0]);
		return 2;
	}
	ctx = open_device_by_name(argv[1]);
	if (!ctx) {
		fprintf(stderr, "%s: cannot open: %s\n", argv[1], strerror(errno));
		return 1;
	}
	printf("no_driver_data %s\n", exq(ctx, 0));
	printf("driver_data %s\n", exq(ctx, DRIVER_WORDS));
	ibv_close_device(ctx);
	return 0;
}
