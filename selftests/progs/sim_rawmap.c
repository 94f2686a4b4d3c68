// SPDX-License-Identifier: GPL-2.0
/*
 * sim_rawmap - map the context page of an rdmasim "rawmap" device (or of a
 * vdevice on one): a page its driver maps with remap_pfn_range(), which
 * the RDMA core neither tracks nor revokes, as 6.1's bnxt_re maps its
 * shared page and pvrdma its UAR.
 *
 *   sim_rawmap IBDEV [HOLD_SECONDS]
 *
 * Prints "CHECK ok" or "CHECK err ERRNO_NAME" per step (sim_uverbs.h).
 * With HOLD_SECONDS, once the page is mapped and written it prints
 * "holding", then sleeps with the mapping in place and exits without
 * touching the page again: on a vdevice that let the mapping through, the
 * page may be freed under it (the test reads /proc/PID/maps instead).
 * Exit status: 0 if every step passed, 1 otherwise.
 */
#include <stdlib.h>

#include "sim_uverbs.h"

#define CTX_PAGE_LEN	4096

int main(int argc, char **argv)
{
	int hold = argc > 2 ? atoi(argv[2]) : 0;
	volatile uint32_t *page;
	int fd;

	if (argc < 2) {
		fprintf(stderr, "usage: %s IBDEV [HOLD_SECONDS]\n", argv[0]);
		return 2;
	}
	fd = open_context(argv[1]);
	if (fd < 0)
		return 1;

	page = map_report("ctx_page_mmap", fd,
			  RDMASIM_MMAP_CTX_PAGE_PGOFF * CTX_PAGE_LEN,
			  CTX_PAGE_LEN);
	if (!page)
		return 1;
	page[0] = RDMASIM_MAGIC;
	report("ctx_page_write", page[0] == RDMASIM_MAGIC ? 0 : EIO, NULL);

	if (hold) {
		printf("holding\n");
		fflush(stdout);
		sleep(hold);
	}
	return failed;
}
