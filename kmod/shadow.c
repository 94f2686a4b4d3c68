// SPDX-License-Identifier: GPL-2.0
/*
 * The shadow core: what every kind of shadow object shares.
 *
 * vrdma_kinds[] has one row per kind: the quota resource it is charged
 * to, its name in debugfs (its live counter and, for the kinds before
 * VRDMA_NR_FAULT_KIND, its fault point) and the core method of the
 * bundle its creation lends the parent.  Every kind lives the same life:
 *
 *   vrdma_shadow_charge()  the quota, before the parent is asked
 *   vrdma_shadow_fault()   the kind's fault point, just before the parent's
 *                          op, so that an injected failure runs the same
 *                          unwinding as the parent refusing
 *   vrdma_shadow_done()    the end of a creation: count the new object, or
 *                          give the charge back
 *   vrdma_shadow_gone()    the parent destroyed it: uncharge and uncount
 *
 * vrdma_shadow_make() is the first three and the fourth in one, for the
 * creations that lend the parent the caller's bundle (CQ, QP, SRQ, MR).
 * vrdma_shadow_unmake() is the one destroy path of the kinds whose parent
 * destructor takes driver data (PD, CQ, QP, SRQ, MR): the data rewrapped
 * for the shadow's context, the destructor, then vrdma_shadow_gone().
 *
 * Adding a kind is a value of enum vrdma_kind, its row here, and the verbs
 * that differ; a kind with a limit of its own also needs a VRDMA_RES_*
 * value, appended to the uapi enum, whose numbering is ABI.
 *
 * Below the table are the RDMA core's setup of an object that vrdma
 * creates through a parent driver's op itself, where the core has no
 * exported constructor to call; each names the core function it copies,
 * to be compared with it on every kernel the module supports.
 */
#include "vrdma.h"

const struct vrdma_kind_info vrdma_kinds[VRDMA_NR_KIND] = {
	[VRDMA_KIND_UCTX] = { "ucontext", VRDMA_RES_CTX },
	[VRDMA_KIND_PD] = { "pd", VRDMA_RES_PD },
	[VRDMA_KIND_CQ] = { "cq", VRDMA_RES_CQ, VRDMA_BUNDLE_CREATE_CQ },
	[VRDMA_KIND_QP] = { "qp", VRDMA_RES_QP, VRDMA_BUNDLE_CREATE_QP },
	[VRDMA_KIND_SRQ] = { "srq", VRDMA_RES_SRQ, VRDMA_BUNDLE_CREATE_SRQ },
	[VRDMA_KIND_MR] = { "mr", VRDMA_RES_MR, VRDMA_BUNDLE_REG_MR },
	[VRDMA_KIND_MW] = { "mw", VRDMA_RES_MW },
	[VRDMA_KIND_AH] = { "ah", VRDMA_RES_AH },
	[VRDMA_KIND_DRV] = { "drvobj", VRDMA_RES_DRV_OBJ },
};

/**
 * vrdma_shadow_charge() - charge a new object to the vdevice quota
 * @vdev: the vdevice
 * @kind: the object's kind
 *
 * Context: any.
 * Return: 0, or -EDQUOT past the kind's limit.
 */
int vrdma_shadow_charge(struct vrdma_dev *vdev, enum vrdma_kind kind)
{
	return vrdma_quota_charge(vdev, vrdma_kinds[kind].res, 1);
}

/**
 * vrdma_shadow_fault() - pass through the fault point of a kind
 * @kind: a kind before VRDMA_NR_FAULT_KIND
 *
 * Return: -ENOMEM when a test injected a failure, else 0.
 */
int vrdma_shadow_fault(enum vrdma_kind kind)
{
	return vrdma_fault(VRDMA_FAULT_OF(kind));
}

/**
 * vrdma_shadow_make() - charge, create and count a shadow, with the
 *	caller's bundle lent to the parent
 * @vdev: the vdevice
 * @kind: the kind, whose row names the core method of the bundle
 * @udata: the driver data of the vdevice verb, inside the core's bundle
 * @make: the parent's constructor
 * @obj: the vdevice object, for @make
 * @init: the creation attributes, for @make
 *
 * The bundle is lent (vrdma_lend()) for the fault point and @make, and
 * given back before this returns.  What the caller does with a new shadow
 * must not fail: it is counted already.
 *
 * Return: what @make returned, or an ERR_PTR (-EDQUOT past the limit,
 * -EIO when the bundle cannot be lent, an injected failure); on error
 * nothing stays charged.
 */
void *vrdma_shadow_make(struct vrdma_dev *vdev, enum vrdma_kind kind,
			struct ib_udata *udata, vrdma_make_fn make, void *obj,
			void *init)
{
	struct vrdma_lent_bundle lent;
	void *shadow;
	int ret;

	ret = vrdma_shadow_charge(vdev, kind);
	if (ret)
		return ERR_PTR(ret);
	ret = vrdma_lend(&lent, udata, vrdma_kinds[kind].method) ?:
	      vrdma_shadow_fault(kind);
	shadow = ret ? ERR_PTR(ret) : make(obj, init, lent.attrs);
	vrdma_lend_end(&lent);
	vrdma_shadow_done(vdev, kind, PTR_ERR_OR_ZERO(shadow));
	return shadow;
}

/**
 * vrdma_shadow_done() - end the creation of a charged object
 * @vdev: the vdevice
 * @kind: the object's kind
 * @ret: 0 when the object exists now, else the error of its creation
 *
 * Return: @ret.
 */
int vrdma_shadow_done(struct vrdma_dev *vdev, enum vrdma_kind kind, int ret)
{
	if (ret)
		vrdma_quota_uncharge(vdev, vrdma_kinds[kind].res, 1);
	else
		vrdma_obj_inc(VRDMA_OBJ_OF(kind));
	return ret;
}

/**
 * vrdma_shadow_gone() - account for a destroyed object
 * @vdev: the vdevice
 * @kind: the object's kind
 */
void vrdma_shadow_gone(struct vrdma_dev *vdev, enum vrdma_kind kind)
{
	vrdma_quota_uncharge(vdev, vrdma_kinds[kind].res, 1);
	vrdma_obj_dec(VRDMA_OBJ_OF(kind));
}

/**
 * vrdma_shadow_unmake() - destroy a shadow through its parent and account
 *	for it
 * @vdev: the vdevice
 * @kind: the shadow's kind
 * @udata: driver data of the vdevice verb, or NULL for none
 * @vctx: the vdevice ucontext the object belongs to
 * @unmake: the parent's destructor, with what undoes the creation's own
 *	setup once the parent succeeded
 * @shadow: the shadow, for @unmake
 *
 * Return: 0, -EIO when @vctx is missing (already disassociated), or what
 * @unmake returned; on error the shadow stays, and stays charged.
 */
int vrdma_shadow_unmake(struct vrdma_dev *vdev, enum vrdma_kind kind,
			struct ib_udata *udata, struct ib_ucontext *vctx,
			vrdma_unmake_fn unmake, void *shadow)
{
	struct uverbs_attr_bundle parent_bundle;
	struct ib_udata *parent_udata;
	int ret;

	parent_udata = vrdma_shadow_udata(&parent_bundle, udata, vctx);
	if (IS_ERR(parent_udata))
		return PTR_ERR(parent_udata);
	ret = unmake(shadow, parent_udata);
	if (!ret)
		vrdma_shadow_gone(vdev, kind);
	return ret;
}

/**
 * vrdma_shadow_event() - forward a shadow's async event to its vdevice object
 * @kind: the kind of both, VRDMA_KIND_CQ, _QP or _SRQ
 * @pev: the parent's event, naming the shadow
 * @obj: the vdevice object
 * @ibdev: its device
 * @handler: its event handler, which belongs to uverbs, or NULL
 * @context: the handler's context
 *
 * The handler sees the same event, naming the vdevice object.  Parents
 * call this from any context (rxe from a tasklet): it never sleeps.
 */
void vrdma_shadow_event(enum vrdma_kind kind, const struct ib_event *pev,
			void *obj, struct ib_device *ibdev,
			void (*handler)(struct ib_event *ev, void *context),
			void *context)
{
	struct ib_event ev = *pev;

	if (!handler)
		return;
	ev.device = ibdev;
	if (kind == VRDMA_KIND_CQ)
		ev.element.cq = obj;
	else if (kind == VRDMA_KIND_QP)
		ev.element.qp = obj;
	else
		ev.element.srq = obj;
	handler(&ev, context);
}

/* --- the core's setup of objects, for shadows ---------------------------- */

/**
 * vrdma_core_pd_init() - set up a shadow PD as ib_uverbs_alloc_pd() does
 * @shadow: the shadow, zeroed, in the vdevice PD's allocation
 * @parent_ibdev: the parent
 *
 * rdma_zalloc_drv_obj() and ib_uverbs_alloc_pd() without the entry in the
 * parent's restrack (verbs_pd.c).  The entry still needs its owner: a
 * shadow SRQ inherits it (rdma_restrack_parent_name()), and must be the
 * calling task's user SRQ, as the vdevice SRQ is, never a kernel one.  The
 * entry holds the task until rdma_restrack_del().
 */
void vrdma_core_pd_init(struct ib_pd *shadow, struct ib_device *parent_ibdev)
{
	shadow->device = parent_ibdev;
	atomic_set(&shadow->usecnt, 0);
	rdma_restrack_set_name(&shadow->res, NULL);
}

/**
 * vrdma_core_cq_init() - set up a shadow CQ as __ib_create_cq() does
 * @shadow: the shadow, zeroed, in the vdevice CQ's allocation
 * @parent_ibdev: the parent
 * @uobject: the vdevice CQ's user object
 *
 * The handlers are the caller's.  The restrack entry makes the shadow a
 * user CQ of the calling task, as the vdevice CQ is.  Parent drivers tell
 * user CQs from kernel ones by that entry (siw, erdma) or by the uobject
 * (mlx4, hns), and treat a kernel CQ's queue as a kernel buffer: a shadow
 * must never look like one.  nldev reports a user CQ's context through its
 * uobject, the vdevice CQ's, so the parent's dump names the vdevice
 * context.  The caller adds the entry once the parent made the CQ, or puts
 * it.
 */
void vrdma_core_cq_init(struct ib_cq *shadow, struct ib_device *parent_ibdev,
			struct ib_ucq_object *uobject)
{
	shadow->device = parent_ibdev;
	shadow->uobject = uobject;
	atomic_set(&shadow->usecnt, 0);
	rdma_restrack_new(&shadow->res, RDMA_RESTRACK_CQ);
	rdma_restrack_set_name(&shadow->res, NULL);
}

/**
 * vrdma_core_uctx_alloc() - a shadow ucontext as ib_alloc_ucontext() makes
 * @parent_ibdev: the parent
 * @ufile: the vdevice context's uverbs file
 *
 * The caller adds the restrack entry once the parent set the context up,
 * or puts it.
 *
 * Return: the zeroed, set-up shadow, or NULL.
 */
struct ib_ucontext *vrdma_core_uctx_alloc(struct ib_device *parent_ibdev,
					  struct ib_uverbs_file *ufile)
{
	struct ib_ucontext *shadow;

	shadow = rdma_zalloc_drv_obj(parent_ibdev, ib_ucontext);
	if (!shadow)
		return NULL;
	shadow->device = parent_ibdev;
	shadow->ufile = ufile;
	xa_init_flags(&shadow->mmap_xa, XA_FLAGS_ALLOC);
	rdma_restrack_new(&shadow->res, RDMA_RESTRACK_CTX);
	rdma_restrack_set_name(&shadow->res, NULL);
	return shadow;
}

/**
 * vrdma_core_mr_init() - set up a new shadow MR as ib_uverbs_reg_mr() does
 * @shadow: what the parent's reg_user_mr or reg_user_mr_dmabuf returned
 * @parent_pd: the shadow PD it was registered on
 * @iova: the address the region is accessed by
 * @length: its length in bytes
 *
 * What ib_uverbs_reg_mr() and the core's reg_dmabuf_mr handler set up
 * after the driver's op, except that the shadow is kept out of the
 * parent's "rdma res", as shadow PDs are (verbs_pd.c).
 */
void vrdma_core_mr_init(struct ib_mr *shadow, struct ib_pd *parent_pd,
			u64 iova, u64 length)
{
	shadow->device = parent_pd->device;
	shadow->pd = parent_pd;
	shadow->type = IB_MR_TYPE_USER;
	shadow->uobject = NULL;
	shadow->dm = NULL;
	shadow->sig_attrs = NULL;
	shadow->iova = iova;
	shadow->length = length;
	atomic_inc(&parent_pd->usecnt);
	rdma_restrack_new(&shadow->res, RDMA_RESTRACK_MR);
	rdma_restrack_no_track(&shadow->res);
	rdma_restrack_add(&shadow->res);
}

/**
 * vrdma_core_mw_alloc() - a shadow MW as ib_uverbs_alloc_mw() makes it
 * @parent_pd: the shadow PD of the window
 * @type: its type
 *
 * The caller takes the PD's use count once the parent allocated the MW.
 *
 * Return: the zeroed, set-up shadow, or NULL.
 */
struct ib_mw *vrdma_core_mw_alloc(struct ib_pd *parent_pd,
				  enum ib_mw_type type)
{
	struct ib_mw *shadow;

	shadow = rdma_zalloc_drv_obj(parent_pd->device, ib_mw);
	if (!shadow)
		return NULL;
	shadow->device = parent_pd->device;
	shadow->pd = parent_pd;
	shadow->type = type;
	return shadow;
}
