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
 * @pub: what the caller sees
 * @stride: the caller's sizeof(struct vrdma_parent), the distance between
 *	entries of @pub.parents
 */
struct parent_list_priv {
	struct vrdma_parent_list pub;
	size_t stride;
};

static struct vrdma_parent *parent_at(struct vrdma_parent *parents,
				      size_t stride, size_t i)
{
	return (struct vrdma_parent *)((char *)parents + i * stride);
}

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
 * The entries at the caller's stride.  The names of the vdevices move to
 * the new array: only the library's own structs are freed here.
 */
static int parent_array_resize(struct parent_collect *c, size_t stride)
{
	char *out;
	size_t i;

	if (stride == sizeof(struct vrdma_parent))
		return 0;
	out = calloc(c->count ? c->count : 1, stride);
	if (!out)
		return -ENOMEM;
	for (i = 0; i < c->count; i++)
		vrdma_copy_sized(out + i * stride, stride, &c->parents[i],
				 sizeof(c->parents[i]));
	free(c->parents);
	c->parents = (struct vrdma_parent *)out;
	return 0;
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
	if (parent_array_resize(&c, parent_size)) {
		free(list);
		ret = vrdma_set_error(h, -ENOMEM, NULL);
		goto err_free;
	}
	list->pub.parents = c.parents;
	list->pub.count = c.count;
	list->stride = parent_size;
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
	for (i = 0; i < pub->count; i++)
		vrdma_parent_clear(parent_at(pub->parents, list->stride, i));
	free(pub->parents);
	free(list);
}
