// SPDX-License-Identifier: MIT
/*
 * Parents: the ib_devices vdevices can be created on.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/**
 * struct parent_list_priv - a parent list as the library allocates it
 * @pub: what the caller sees: @pub.parents is a copy of @own at the
 *	caller's sizeof(struct vrdma_parent), whose pointers are borrowed
 * @own: the records at this library's layout; they own what they point
 *	to, and only they are freed, so freeing never reads the caller's
 *	array (whose stride and contents the library cannot trust)
 * @nr_own: number of entries in @own
 */
struct parent_list_priv {
	struct vrdma_parent_list pub;
	struct vrdma_parent *own;
	size_t nr_own;
};

static int parse_parent_item(const struct nlmsghdr *nlh, void *item)
{
	return vrdma_parse_parent(nlh, item);
}

static void clear_parent_item(void *item)
{
	vrdma_parent_clear(item);
}

int vrdma_parent_list_sz(struct vrdma_handle *h,
			 struct vrdma_parent_list **listp, size_t parent_size)
{
	struct vrdma_collect c = VRDMA_COLLECT_INIT(struct vrdma_parent,
						    parse_parent_item,
						    clear_parent_item);
	struct parent_list_priv *list;
	int ret;

	*listp = NULL;
	ret = vrdma_collect_list(h, VRDMA_CMD_PARENT_GET, "vrdma_parent",
				 parent_size, VRDMA_PARENT_SIZE_1_0, &c);
	if (ret)
		return ret;
	list = malloc(sizeof(*list));
	if (!list)
		return vrdma_collect_nomem(h, &c);
	/*
	 * Always a separate array at the caller's stride: the names of the
	 * vdevices stay owned by the library's records.
	 */
	list->pub.parents = vrdma_collect_copy(&c, parent_size);
	if (!list->pub.parents) {
		free(list);
		return vrdma_collect_nomem(h, &c);
	}
	list->pub.count = c.count;
	list->own = c.items;
	list->nr_own = c.count;
	*listp = &list->pub;
	return vrdma_ok(h);
}

void vrdma_parent_list_free(struct vrdma_parent_list *pub)
{
	struct parent_list_priv *list;
	size_t i;

	if (!pub)
		return;
	list = (struct parent_list_priv *)((char *)pub -
					   offsetof(struct parent_list_priv, pub));
	/* The library's records at its own layout, never the caller's copy */
	for (i = 0; i < list->nr_own; i++)
		vrdma_parent_clear(&list->own[i]);
	free(list->own);
	free(pub->parents);
	free(list);
}
