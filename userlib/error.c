// SPDX-License-Identifier: MIT
/*
 * The last error of a handle: what every call records, and what the
 * caller reads back (its errno, the kernel's or the library's message).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

/**
 * vrdma_set_error() - record a failure on a handle
 * @h: the handle
 * @err: negative errno
 * @fmt: printf format of the details, NULL or "" for none
 *
 * Return: @err, so that callers can "return vrdma_set_error(...)".
 */
int vrdma_set_error(struct vrdma_handle *h, int err, const char *fmt, ...)
{
	va_list ap;

	h->err = err;
	h->errmsg[0] = '\0';
	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(h->errmsg, sizeof(h->errmsg), fmt, ap);
		va_end(ap);
	}
	return err;
}

/**
 * vrdma_ok() - record a success on a handle
 * @h: the handle
 *
 * Return: 0.
 */
int vrdma_ok(struct vrdma_handle *h)
{
	h->err = 0;
	h->errmsg[0] = '\0';
	return 0;
}

int vrdma_errno(const struct vrdma_handle *h)
{
	return h->err;
}

const char *vrdma_error_message(const struct vrdma_handle *h)
{
	return h->err && h->errmsg[0] ? h->errmsg : NULL;
}

const char *vrdma_strerror(struct vrdma_handle *h)
{
	if (!h->err)
		return "Success";
	if (!h->errmsg[0])
		return strerror(-h->err);
	snprintf(h->errline, sizeof(h->errline), "%s (%s)", h->errmsg,
		 strerror(-h->err));
	return h->errline;
}
