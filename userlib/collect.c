// SPDX-License-Identifier: MIT
/*
 * The records of a dump, gathered into one growing array and handed to
 * the caller at the size of struct the caller was built with.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static int collect_cb(const struct nlmsghdr *nlh, void *data)
{
	struct vrdma_collect *c = data;
	int ret;

	if (c->count == c->size) {
		size_t size = c->size ? 2 * c->size : 8;
		void *items = realloc(c->items, size * c->elem);

		if (!items)
			return -ENOMEM;
		c->items = items;
		c->size = size;
	}
	ret = c->parse(nlh, (char *)c->items + c->count * c->elem);
	if (ret)
		return ret;
	c->count++;
	return 0;
}

/* Before a dump restarts: drop what the interrupted one gathered */
static void collect_reset(void *data)
{
	struct vrdma_collect *c = data;

	while (c->count) {
		c->count--;
		if (c->clear)
			c->clear((char *)c->items + c->count * c->elem);
	}
}

/**
 * vrdma_collect_dump() - gather every record of a dump into @c
 * @h: the handle, whose family must be resolved
 * @cmd: enum vrdma_cmd
 * @c: an empty collection, as VRDMA_COLLECT_INIT() makes it
 *
 * Return: 0, or a negative errno recorded on @h; on error @c may hold
 * records, which vrdma_collect_free() releases.
 */
int vrdma_collect_dump(struct vrdma_handle *h, uint8_t cmd,
		       struct vrdma_collect *c)
{
	return vrdma_dump(h, cmd, collect_cb, collect_reset, c);
}

/**
 * vrdma_collect_list() - gather a dump for a caller's list of @type
 * @h: the handle
 * @cmd: enum vrdma_cmd
 * @type: the struct's name, for the message
 * @size: sizeof the struct as the caller was built with
 * @min: its size in version 1.0 of the library
 * @c: an empty collection, as VRDMA_COLLECT_INIT() makes it
 *
 * Return: 0, or a negative errno recorded on @h, @c then released.
 */
int vrdma_collect_list(struct vrdma_handle *h, uint8_t cmd, const char *type,
		       size_t size, size_t min, struct vrdma_collect *c)
{
	int ret;

	ret = vrdma_check_struct_size(h, type, size, min);
	if (!ret)
		ret = vrdma_resolve_family(h);
	if (!ret)
		ret = vrdma_collect_dump(h, cmd, c);
	if (ret)
		vrdma_collect_free(c);
	return ret;
}

/**
 * vrdma_collect_nomem() - release @c and record that memory ran out
 * @h: the handle
 * @c: the collection
 *
 * Return: -ENOMEM.
 */
int vrdma_collect_nomem(struct vrdma_handle *h, struct vrdma_collect *c)
{
	vrdma_collect_free(c);
	return vrdma_set_error(h, -ENOMEM, NULL);
}

/**
 * vrdma_collect_free() - release the records and the array of @c
 * @c: the collection
 */
void vrdma_collect_free(struct vrdma_collect *c)
{
	collect_reset(c);
	free(c->items);
	c->items = NULL;
	c->size = 0;
}

/**
 * vrdma_collect_copy() - the records of @c at the caller's stride
 * @c: the collection
 * @stride: sizeof the struct as the caller knows it
 *
 * Pointers inside the records are copied, not duplicated: they stay owned
 * by @c's records.
 *
 * Return: a new array of @c->count entries (at least one zeroed entry's
 * worth), or NULL when out of memory.
 */
void *vrdma_collect_copy(const struct vrdma_collect *c, size_t stride)
{
	char *out;
	size_t i;

	out = calloc(c->count ? c->count : 1, stride);
	if (!out)
		return NULL;
	for (i = 0; i < c->count; i++)
		vrdma_copy_sized(out + i * stride, stride,
				 (char *)c->items + i * c->elem, c->elem);
	return out;
}

/**
 * vrdma_check_struct_size() - refuse a caller's struct older than 1.0's
 * @h: the handle the error is recorded on
 * @type: the struct's name, for the message
 * @size: sizeof the struct as the caller was built with
 * @min: its size in version 1.0 of the library
 *
 * Return: 0 or -EINVAL.
 */
int vrdma_check_struct_size(struct vrdma_handle *h, const char *type,
			    size_t size, size_t min)
{
	if (size < min)
		return vrdma_set_error(h, -EINVAL,
				       "struct %s of %zu bytes is too small",
				       type, size);
	return 0;
}
