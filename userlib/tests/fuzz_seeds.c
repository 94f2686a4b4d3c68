// SPDX-License-Identifier: MIT
/*
 * Writes valid datagrams into a directory as the fuzzer's starting corpus,
 * so that it mutates real vrdma messages instead of finding their shape
 * from nothing.
 *
 *   fuzz_seeds DIR
 */
#include <errno.h>
#include <stdio.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/vrdma.h>

#include "build.h"

static int write_seed(const char *dir, const char *name, const struct dgram *dg)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/seed-%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(dg->buf, 1, dg->len, f) != dg->len) {
		perror(path);
		if (f)
			fclose(f);
		return 1;
	}
	return fclose(f) ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	struct dgram dg;
	int fails = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}

	dg_init(&dg);
	dg_dev(&dg, 1, NLM_F_MULTI, "vr0");
	dg_dev(&dg, 1, NLM_F_MULTI | NLM_F_DUMP_INTR, "vr1");
	dg_done(&dg, 1, 0, NULL);
	fails += write_seed(argv[1], "dev-dump", &dg);

	dg_init(&dg);
	nlh = dg_genl(&dg, TEST_FAMILY, NLM_F_MULTI, 1, VRDMA_CMD_PARENT_GET);
	mnl_attr_put_strz(nlh, VRDMA_ATTR_PARENT_NAME, "rxe0");
	mnl_attr_put_u32(nlh, VRDMA_ATTR_DRIVER_ID, 14);
	mnl_attr_put_u32(nlh, VRDMA_ATTR_VDEV_COUNT, 2);
	nest = mnl_attr_nest_start(nlh, VRDMA_ATTR_PARENT_VDEVS);
	mnl_attr_put_strz(nlh, VRDMA_ATTR_DEV_NAME, "vr0");
	mnl_attr_put_strz(nlh, VRDMA_ATTR_DEV_NAME, "vr1");
	mnl_attr_nest_end(nlh, nest);
	dg_end(&dg, nlh);
	dg_done(&dg, 1, -EINTR, "dump failed");
	fails += write_seed(argv[1], "parent-dump", &dg);

	dg_init(&dg);
	nlh = dg_genl(&dg, TEST_FAMILY, 0, 0, VRDMA_CMD_DEV_DEL);
	put_dev_attrs(nlh, "vr0");
	mnl_attr_put_u8(nlh, VRDMA_ATTR_REASON, VRDMA_DEL_NETNS);
	dg_end(&dg, nlh);
	fails += write_seed(argv[1], "event", &dg);

	dg_init(&dg);
	nlh = dg_genl(&dg, TEST_FAMILY, 0, 1, VRDMA_CMD_VERSION_GET);
	mnl_attr_put_strz(nlh, VRDMA_ATTR_VERSION, "0.1.0");
	dg_end(&dg, nlh);
	dg_error(&dg, 1, 0, NULL, true, NULL);
	fails += write_seed(argv[1], "version", &dg);

	dg_init(&dg);
	dg_family(&dg, 1, true);
	dg_error(&dg, 1, -ENOENT, "no such family", false,
		 (struct nlmsghdr *)dg.buf);
	fails += write_seed(argv[1], "family-error", &dg);

	return fails ? 1 : 0;
}
