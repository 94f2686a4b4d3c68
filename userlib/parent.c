// SPDX-License-Identifier: MIT
/*
 * Parents: the ib_devices vdevices can be created on.
 */
#include <errno.h>
#include <stdlib.h>

#include "internal.h"

struct parent_collect {
	struct vrdma_parent *parents;
	size_t count;
	size_t size;
};

static int parent_collect_cb(const struct nlmsghdr *nlh, void *data)
{
	struct parent_collect *c = data;
	int ret;

	if (c->count == c->size) {
		size_t size = c->size ? 2 * c->size : 8;
		struct vrdma_parent *p = realloc(c->parents, size * sizeof(*p));

		if (!p)
			return -ENOMEM;
		c->parents = p;
		c->size = size;
	}
	ret = vrdma_parse_parent(nlh, &c->parents[c->count]);
	if (ret)
		return ret;
	c->count++;
	return 0;
}

static void parent_collect_reset(void *data)
{
	struct parent_collect *c = data;

	while (c->count)
		vrdma_parent_clear(&c->parents[--c->count]);
}

int vrdma_parent_list(struct vrdma_handle *h,
		      struct vrdma_parent_list **listp)
{
	struct parent_collect c = { NULL, 0, 0 };
	struct vrdma_parent_list *list;
	int ret;

	*listp = NULL;
	ret = vrdma_resolve_family(h);
	if (ret)
		return ret;
	ret = vrdma_dump(h, VRDMA_CMD_PARENT_GET, parent_collect_cb,
			 parent_collect_reset, &c);
	if (ret)
		goto err_free;
	list = malloc(sizeof(*list));
	if (!list) {
		ret = vrdma_set_error(h, -ENOMEM, NULL);
		goto err_free;
	}
	list->parents = c.parents;
	list->count = c.count;
	*listp = list;
	return vrdma_ok(h);

err_free:
	parent_collect_reset(&c);
	free(c.parents);
	return ret;
}

void vrdma_parent_list_free(struct vrdma_parent_list *list)
{
	size_t i;

	if (!list)
		return;
	for (i = 0; i < list->count; i++)
		vrdma_parent_clear(&list->parents[i]);
	free(list->parents);
	free(list);
}
