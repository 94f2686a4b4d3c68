// SPDX-License-Identifier: GPL-2.0
/*
 * sim_uar_flood - allocate rdmasim UAR objects (the forwarded stand-in for
 * mlx5's MLX5_IB_METHOD_UAR_OBJ_ALLOC) on IBDEV until MAX are held or an
 * allocation fails, as a tenant draining its parent's pool would.
 *
 *   sim_uar_flood IBDEV MAX [HOLD_SECONDS]
 *
 * Prints "uar_alloc_count N", then "uar_alloc_stop ERRNO_NAME" for the
 * failure that stopped it (or "uar_alloc_stop none"); if it holds any,
 * destroys the last and allocates again ("realloc_after_destroy ok" or
 * "... err ERRNO_NAME"), so that an uncharge on destroy is seen.  With
 * HOLD_SECONDS it then prints "holding" and sleeps with every object
 * held; they go with the process.
 * Exit status: 0 once the device was opened, 1 if it could not be.
 */
#include <stdlib.h>

#include "sim_uverbs.h"

static int uar_destroy(int fd, uint32_t handle)
{
	struct ioctl_buf b;

	ioctl_init(&b, RDMASIM_OBJECT_UAR, RDMASIM_METHOD_UAR_DESTROY);
	ioctl_attr(&b, RDMASIM_ATTR_UAR_DESTROY_HANDLE, 0, handle);
	return ioctl_cmd(fd, &b);
}

int main(int argc, char **argv)
{
	int max = argc > 2 ? atoi(argv[2]) : 0;
	int hold = argc > 3 ? atoi(argv[3]) : 0;
	struct sim_uar u, last = {};
	int fd, n = 0, err = 0;

	if (argc < 3 || max <= 0) {
		fprintf(stderr, "usage: %s IBDEV MAX [HOLD_SECONDS]\n", argv[0]);
		return 2;
	}
	fd = open_context(argv[1]);
	if (fd < 0)
		return 1;

	while (n < max) {
		err = uar_alloc(fd, &u);
		if (err)
			break;
		last = u;
		n++;
	}
	printf("uar_alloc_count %d\n", n);
	printf("uar_alloc_stop %s\n", err ? strerrorname_np(err) ?: "?" :
	       "none");
	fflush(stdout);

	if (n) {
		err = uar_destroy(fd, last.handle);
		if (!err)
			err = uar_alloc(fd, &u);
		report("realloc_after_destroy", err, NULL);
	}
	if (hold) {
		printf("holding\n");
		fflush(stdout);
		sleep(hold);
	}
	return 0;
}
