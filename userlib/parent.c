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

/*
 * The entries at the caller's stride, always a separate array: the names
 * of the vdevices stay owned by the library's records in @c.
 */
static struct vrdma_parent *parent_array_copy(const struct parent_collect *c,
					      size_t stride)
{
	char *out;
	size_t i;

	out = calloc(c->count ? c->count : 1, stride);
	if (!out)
		return NULL;
	for (i = 0; i < c->count; i++)
		vrdma_copy_sized(out + i * stride, stride, &c->parents[i],
				 sizeof(c->parents[i]));
	return (struct vrdma_parent *)out;
}

int vrdma_parent_list_sz(struct vrdma_handle *h,
			 struct vrdma_parent_list **listp, size_t parent_size)
{
	struct parent_collect c = { NULL, 0, 0 };
	struct parent_list_priv *list;
	int ret;

	*listp = NULL;
	if (parent_size < VRDMA_PARENT_SIZE_1_0)
		return vrdma_set_error(h, -EINVAL,
				       "struct vrdma_parent of %zu bytes is too small",
				       parent_size);
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
	list->pub.parents = parent_array_copy(&c, parent_size);
	if (!list->pub.parents) {
		free(list);
		ret = vrdma_set_error(h, -ENOMEM, NULL);
		goto err_free;
	}
	list->pub.count = c.count;
	list->own = c.parents;
	list->nr_own = c.count;
	*listp = &list->pub;
	return vrdma_ok(h);

err_free:
	parent_collect_reset(&c);
	free(c.parents);
	return ret;
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
