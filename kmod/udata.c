// SPDX-License-Identifier: GPL-2.0
/*
 * What the parent driver sees of a forwarded verb's attribute bundle.
 *
 * Parent drivers find their ucontext through the bundle that contains the
 * udata (rdma_udata_to_drv_context(), rxe's mmap info) or through its
 * uverbs file (ib_uverbs_get_ucontext()), and from 7.2 their queue buffers
 * and driver attributes in the bundle too (ib_umem_get_cq_buf(),
 * uverbs_copy_from()).  The bundle of a vdevice call names the vdevice
 * ucontext, so:
 *
 *  - the creation verbs (CQ, QP, SRQ, MR) and QUERY_CONTEXT lend the
 *    parent the caller's real bundle (vrdma_lend_bundle()), as fwd.c does
 *    for driver methods: for the length of the call its context is the
 *    shadow ucontext, its file the stand-in whose ucontext is the shadow,
 *    and its attribute bitmap shows only the driver namespace (the udata,
 *    and the parent's driver attributes vrdma declared for this parent,
 *    fwd.c) and the core's buffer attributes of the method; object
 *    handles, which name vdevice objects, are hidden.  Everything is
 *    restored before the verb returns.
 *  - the other verbs, which can be handed a bare udata that is in no
 *    bundle (the core's unwinding of a failed creation), and carry no
 *    attribute a parent reads, give the parent an on-stack bundle with the
 *    same user buffers and the shadow ucontext (vrdma_shadow_udata()),
 *    exactly as ib_uverbs_write() builds one for write().
 */
#include "vrdma.h"

/* The core's buffer attributes a parent pins from the bundle (compat.h) */
static const u16 vrdma_bufattrs_cq[] = {
	VRDMA_ATTR_CQ_BUFFER_VA, VRDMA_ATTR_CQ_BUFFER_LENGTH,
	VRDMA_ATTR_CQ_BUFFER_FD, VRDMA_ATTR_CQ_BUFFER_OFFSET,
	VRDMA_ATTR_CQ_BUF_UMEM,
};

static const u16 vrdma_bufattrs_qp[] = {
	VRDMA_ATTR_QP_BUF_UMEM, VRDMA_ATTR_QP_RQ_BUF_UMEM,
	VRDMA_ATTR_QP_SQ_BUF_UMEM,
};

static const u16 vrdma_bufattrs_srq[] = {
	VRDMA_ATTR_SRQ_BUF_UMEM,
};

static const struct {
	const u16 *ids;
	unsigned int nr;
} vrdma_bufattrs[] = {
	[VRDMA_BUNDLE_CREATE_CQ] = { vrdma_bufattrs_cq,
				     ARRAY_SIZE(vrdma_bufattrs_cq) },
	[VRDMA_BUNDLE_CREATE_QP] = { vrdma_bufattrs_qp,
				     ARRAY_SIZE(vrdma_bufattrs_qp) },
	[VRDMA_BUNDLE_CREATE_SRQ] = { vrdma_bufattrs_srq,
				      ARRAY_SIZE(vrdma_bufattrs_srq) },
	/* MRs: the driver namespace only */
	[VRDMA_BUNDLE_REG_MR] = { NULL, 0 },
	/* QUERY_CONTEXT: the core has written its own attributes already */
	[VRDMA_BUNDLE_QUERY_CONTEXT] = { NULL, 0 },
};

/* Show attribute @id of @from in @to, if @from has it */
static void vrdma_attr_show(unsigned long *to, const unsigned long *from,
			    u32 id)
{
	u32 key, bkey;

	if (id == VRDMA_ATTR_NONE)
		return;
	key = uapi_key_attr(id);
	if (key == UVERBS_API_KEY_ERR)
		return;
	bkey = uapi_bkey_attr(key);
	if (bkey < UVERBS_API_ATTR_BKEY_LEN && test_bit(bkey, from))
		__set_bit(bkey, to);
}

/**
 * vrdma_lend_bundle() - lend a bundle of a vdevice call to the parent
 * @l: on-stack state, for vrdma_lend_end()
 * @attrs: the core's bundle of the call
 * @vctx: the vdevice ucontext the call belongs to
 * @method: the core method, for the buffer attributes the parent may read
 *
 * Until vrdma_lend_end() the bundle names the shadow ucontext of @vctx
 * three ways (its context, its file's ucontext, rdma_udata_to_drv_context()
 * of its udata) and shows only what the parent may read (see the top of
 * this file).  Nothing of the vdevice may read the bundle meanwhile.
 */
void vrdma_lend_bundle(struct vrdma_lent_bundle *l,
		       struct uverbs_attr_bundle *attrs, struct ib_ucontext *vctx,
		       enum vrdma_bundle_method method)
{
	u32 i;

	l->attrs = attrs;
	l->context = attrs->context;
	l->ufile = attrs->ufile;
	bitmap_copy(l->present, attrs->attr_present, UVERBS_API_ATTR_BKEY_LEN);

	bitmap_zero(attrs->attr_present, UVERBS_API_ATTR_BKEY_LEN);
	/* The driver namespace holds only what the vdevice declared */
	for (i = 0; i < BIT(UVERBS_API_ATTR_KEY_BITS - 1); i++)
		vrdma_attr_show(attrs->attr_present, l->present,
				UVERBS_API_NS_FLAG | i);
	for (i = 0; i < vrdma_bufattrs[method].nr; i++)
		vrdma_attr_show(attrs->attr_present, l->present,
				vrdma_bufattrs[method].ids[i]);

	attrs->context = vrdma_shadow_uctx(vctx);
	attrs->ufile = vrdma_fwd_ufile(vctx);
}

/**
 * vrdma_lend() - lend the caller's bundle to the parent for one verb
 * @l: on-stack state, for vrdma_lend_end()
 * @udata: the driver data of a vdevice creation verb, inside the core's
 *	bundle (uverbs passes &attrs->driver_udata for write() and ioctl())
 * @method: the core method, for the buffer attributes the parent may read
 *
 * vrdma_lend_bundle() of the bundle around @udata.
 *
 * Return: 0, or -EIO when there is no bundle to lend (no udata: a kernel
 * caller; or the context is already disassociated); vrdma_lend_end() may
 * be called either way.
 */
int vrdma_lend(struct vrdma_lent_bundle *l, struct ib_udata *udata,
	       enum vrdma_bundle_method method)
{
	struct ib_ucontext *vctx = vrdma_udata_vctx(udata);

	l->attrs = NULL;
	if (!vctx)
		return -EIO;
	vrdma_lend_bundle(l, rdma_udata_to_uverbs_attr_bundle(udata), vctx,
			  method);
	return 0;
}

/**
 * vrdma_lend_end() - give the caller's bundle back
 * @l: what vrdma_lend() filled, whether it succeeded or not
 */
void vrdma_lend_end(struct vrdma_lent_bundle *l)
{
	struct uverbs_attr_bundle *attrs = l->attrs;

	if (!attrs)
		return;
	attrs->context = l->context;
	attrs->ufile = l->ufile;
	bitmap_copy(attrs->attr_present, l->present, UVERBS_API_ATTR_BKEY_LEN);
	l->attrs = NULL;
}

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
 * @parent_bundle: the on-stack bundle to fill
 * @udata: driver data of the vdevice verb, or NULL for none
 * @vctx: the vdevice ucontext the call belongs to
 *
 * Only the fields every verbs op may use are valid in @parent_bundle;
 * parent methods that reach into the rest of an ioctl bundle are never
 * forwarded.
 *
 * Return: the udata to pass to the parent, or ERR_PTR(-EIO) when @vctx is
 * missing (the context is already disassociated).
 */
struct ib_udata *vrdma_shadow_udata(struct uverbs_attr_bundle *parent_bundle,
				    struct ib_udata *udata,
				    struct ib_ucontext *vctx)
{
	if (!vctx)
		return ERR_PTR(-EIO);

	memset(parent_bundle, 0, sizeof(*parent_bundle));
	if (udata)
		parent_bundle->driver_udata = *udata;
	/* ib_uverbs_get_ucontext() of @parent_bundle names the shadow (fwd.c) */
	parent_bundle->ufile = vrdma_fwd_ufile(vctx);
	parent_bundle->context = vrdma_shadow_uctx(vctx);
	return &parent_bundle->driver_udata;
}

/**
 * vrdma_parent_udata() - wrap a vdevice udata for a verb of its own context
 * @parent_bundle: the on-stack bundle to fill; its driver_udata is what
 *	the parent gets
 * @udata: driver data of the vdevice verb, inside the core's bundle
 *
 * vrdma_shadow_udata() for the context of the bundle around @udata.
 *
 * Return: 0, or -EIO when that context is already disassociated.
 */
int vrdma_parent_udata(struct uverbs_attr_bundle *parent_bundle,
		       struct ib_udata *udata)
{
	return PTR_ERR_OR_ZERO(vrdma_shadow_udata(parent_bundle, udata,
						  vrdma_udata_vctx(udata)));
}
