// SPDX-License-Identifier: MIT
/*
 * A program using libvrdma through its public header only, built several
 * times against different headers to check the ABI promise of libvrdma.h:
 *
 *   ABI_NAME=abi_v1_0    tests/abi/1.0/libvrdma.h, the header of the first
 *                        libvrdma.so.1, frozen: an old program on this
 *                        library.  Never edit that copy.
 *   ABI_NAME=abi_future  the current header with members added at the end
 *                        of every growing struct (ABI_FUTURE): a program
 *                        built for a later library, run on this one.
 *
 * Each check fills its structs with a pattern and a guard behind them:
 * the library must write exactly the caller's size, fill what it knows,
 * zero what it does not, and leave the guard alone.  Returns the number of
 * failed checks.
 */
#include <stdio.h>
#include <string.h>

#include <libvrdma.h>

#include "consumers.h"

#ifndef ABI_NAME
#error "ABI_NAME names this build of the consumer"
#endif
#define ABI_CAT2(a, b)	a##b
#define ABI_CAT(a, b)	ABI_CAT2(a, b)
#define ABI_FN(x)	ABI_CAT(ABI_NAME, x)

#define GUARD_BYTE	0xa5
#define FAIL_IF(cond)							\
	do {								\
		if (cond) {						\
			fails++;					\
			printf("    %s:%d: %s\n", __FILE__, __LINE__,	\
			       #cond);					\
		}							\
	} while (0)

static int guard_bad(const unsigned char *g, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (g[i] != GUARD_BYTE)
			return 1;
	return 0;
}

#ifdef ABI_FUTURE
static int future_bad(const uint64_t *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i])
			return 1;
	return 0;
}
#endif

size_t ABI_FN(_dev_size)(void)
{
	return sizeof(struct vrdma_dev);
}

int ABI_FN(_dev_get)(struct vrdma_handle *h)
{
	struct {
		struct vrdma_dev dev;
		unsigned char guard[64];
	} g;
	int fails = 0;

	memset(&g, GUARD_BYTE, sizeof(g));
	FAIL_IF(vrdma_dev_get(h, "vr0", &g.dev) != 0);
	FAIL_IF(strcmp(g.dev.name, "vr0") || g.dev.index != 7);
	FAIL_IF(strcmp(g.dev.parent, "rxe0"));
	FAIL_IF(!vrdma_res_has(&g.dev.limits, VRDMA_RES_QP));
	FAIL_IF(guard_bad(g.guard, sizeof(g.guard)));
#ifdef ABI_FUTURE
	FAIL_IF(future_bad(g.dev.abi_test_future, 3));
#endif
	return fails;
}

int ABI_FN(_dev_list)(struct vrdma_handle *h)
{
	struct vrdma_dev_list *list;
	int fails = 0;

	FAIL_IF(vrdma_dev_list(h, &list) != 0);
	if (!list)
		return fails + 1;
	FAIL_IF(list->count != 2);
	if (list->count == 2) {
		FAIL_IF(strcmp(list->devs[0].name, "vr0"));
		FAIL_IF(strcmp(list->devs[1].name, "vr1"));
		FAIL_IF(list->devs[1].limits.val[VRDMA_RES_QP] != 128);
#ifdef ABI_FUTURE
		FAIL_IF(future_bad(list->devs[0].abi_test_future, 3));
		FAIL_IF(future_bad(list->devs[1].abi_test_future, 3));
#endif
	}
	vrdma_dev_list_free(list);
	return fails;
}

int ABI_FN(_parent_list)(struct vrdma_handle *h)
{
	struct vrdma_parent_list *list;
	int fails = 0;

	FAIL_IF(vrdma_parent_list(h, &list) != 0);
	if (!list)
		return fails + 1;
	FAIL_IF(list->count != 1);
	if (list->count == 1) {
		FAIL_IF(strcmp(list->parents[0].name, "rxe0"));
		FAIL_IF(list->parents[0].nr_vdevs != 1);
		FAIL_IF(strcmp(list->parents[0].vdevs[0], "vr0"));
#ifdef ABI_FUTURE
		FAIL_IF(future_bad(list->parents[0].abi_test_future, 3));
#endif
	}
	/*
	 * The array is the caller's, at the caller's struct size, which need
	 * not be the library's: free must not read it.  Scribbling over it
	 * stands for a caller whose entries are shorter than the library's.
	 */
	memset(list->parents, GUARD_BYTE, list->count * sizeof(*list->parents));
	vrdma_parent_list_free(list);
	return fails;
}

int ABI_FN(_monitor)(struct vrdma_monitor *m)
{
	struct {
		struct vrdma_event ev;
		unsigned char guard[64];
	} g;
	int fails = 0;

	memset(&g, GUARD_BYTE, sizeof(g));
	FAIL_IF(vrdma_monitor_next(m, &g.ev) != 0);
	FAIL_IF(g.ev.kind != VRDMA_EVENT_NEW || strcmp(g.ev.dev.name, "vr0"));
	FAIL_IF(guard_bad(g.guard, sizeof(g.guard)));
#ifdef ABI_FUTURE
	FAIL_IF(future_bad(g.ev.dev.abi_test_future, 3));
#endif
	return fails;
}
