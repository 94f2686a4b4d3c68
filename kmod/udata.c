// SPDX-License-Identifier: GPL-2.0
/*
 * Shadow attribute bundles: how a vdevice verb passes the caller's driver
 * data (udata) to the parent driver unchanged.
 *
 * Parent drivers find their ucontext through the bundle that contains the
 * udata (rdma_udata_to_drv_context(), rxe's mmap info).  The bundle of a
 * vdevice call points at the vdevice ucontext, so each forwarded call gets
 * an on-stack bundle that carries the same user buffers but the parent-side
 * shadow ucontext, exactly as ib_uverbs_write() builds one for write().
 */
#include "vrdma.h"

/**
 * vrdma_udata_vctx() - the vdevice ucontext a udata belongs to
 * @udata: driver data of a vdevice verb, may be NULL
 *
 * A bundle names its context only once the command has looked up or
 * created an object; write() commands that touch none, such as
 * ex_query_device, leave it NULL and the context is the file's, which is
 * where the parent drivers' own ib_uverbs_get_ucontext() looks too.
 *
 * Return: the ucontext of the bundle around @udata, else its file's, or
 * NULL when there is none (no udata, or a context already disassociated).
 */
struct ib_ucontext *vrdma_udata_vctx(struct ib_udata *udata)
{
	struct uverbs_attr_bundle *attrs;
	struct ib_ucontext *ctx;

	if (!udata)
		return NULL;
	attrs = rdma_udata_to_uverbs_attr_bundle(udata);
	if (attrs->context)
		return attrs->context;
	ctx = ib_uverbs_get_ucontext(attrs);
	return IS_ERR(ctx) ? NULL : ctx;
}

/**
 * vrdma_shadow_udata() - wrap a vdevice udata for a call into the parent
 * @sb: the on-stack bundle to fill
 * @udata: driver data of the vdevice verb, or NULL for none
 * @vctx: the vdevice ucontext the call belongs to
 *
 * Only the fields every verbs op may use are valid in @sb; parent methods
 * that reach into the rest of an ioctl bundle are never forwarded.
 *
 * Return: the udata to pass to the parent, or ERR_PTR(-EIO) when @vctx is
 * missing (the context is already disassociated).
 */
struct ib_udata *vrdma_shadow_udata(struct uverbs_attr_bundle *sb,
				    struct ib_udata *udata,
				    struct ib_ucontext *vctx)
{
	if (!vctx)
		return ERR_PTR(-EIO);

	memset(sb, 0, sizeof(*sb));
	if (udata)
		sb->driver_udata = *udata;
	/* ib_uverbs_get_ucontext() of @sb names the shadow too (fwd.c) */
	sb->ufile = vrdma_fwd_ufile(vctx);
	sb->context = vrdma_shadow_uctx(vctx);
	return &sb->driver_udata;
}
