// SPDX-License-Identifier: GPL-2.0
/*
 * rdmasim: the strict checks, where rdmasim is stricter than real drivers,
 * and what they report.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>
#include <rdma/restrack.h>

#include "sim.h"

static bool strict_warn = true;
module_param(strict_warn, bool, 0644);
MODULE_PARM_DESC(strict_warn,
		 "report a failed strict check with WARN (default) or a warning line only, for a test that expects known ones");

/**
 * sim_strict() - report a broken expectation
 * @fmt: what was expected and what came, printf-style
 *
 * A WARN (or, with strict_warn off, a plain warning line) with a fixed
 * prefix the selftests grep for, and a count in debugfs.
 */
void sim_strict(const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	atomic_long_inc(&sim_strict_hits);
	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	if (READ_ONCE(strict_warn))
		WARN(1, "rdmasim: strict: %pV\n", &vaf);
	else
		pr_warn("rdmasim: strict: %pV\n", &vaf);
	va_end(args);
}

/**
 * sim_check_dev() - an object the core passed is on the device
 * @sdev: the device the verb was called on
 * @obj_dev: the device the object claims to be on
 * @what: the object, for the report
 *
 * Detected by comparison, not dereferenced.
 *
 * Return: true if @obj_dev is @sdev's.
 */
bool sim_check_dev(struct sim_dev *sdev, struct ib_device *obj_dev,
		   const char *what)
{
	if (obj_dev == &sdev->ibdev)
		return true;
	sim_strict("%s: %s is on device %s, not on %s", __func__, what,
		   obj_dev && sim_is_ours(obj_dev) ? dev_name(&obj_dev->dev) :
		   "(not a sim device)", dev_name(&sdev->ibdev.dev));
	return false;
}

/**
 * sim_uctx_known() - is a ucontext one of a device's live ones?
 * @sdev: the device
 * @ibuc: the ucontext, looked up, not dereferenced
 *
 * Return: true if @ibuc is one of @sdev's live ucontexts.
 */
bool sim_uctx_known(struct sim_dev *sdev, struct ib_ucontext *ibuc)
{
	struct sim_ucontext *uctx;
	bool found = false;

	spin_lock(&sdev->uctx_lock);
	list_for_each_entry(uctx, &sdev->uctxs, node) {
		if (&uctx->ibuc == ibuc) {
			found = true;
			break;
		}
	}
	spin_unlock(&sdev->uctx_lock);
	return found;
}

/**
 * sim_udata_uctx() - the ucontext a user verb belongs to, found the ways
 * hardware drivers find it, and checked
 * @sdev: the device the verb was called on
 * @udata: the verb's driver data, not NULL
 * @objctx: the ucontext of the object's uobject, or NULL if it has none
 * @what: the verb, for the report
 *
 * rdma_udata_to_drv_context() takes the ucontext from the bundle around
 * @udata; ib_uverbs_get_ucontext() from the bundle's uverbs file (mlx5's
 * driver methods use it).  Both must be a live ucontext of @sdev and agree
 * with each other and with the object's uobject.
 *
 * Return: the sim ucontext, or ERR_PTR(-EINVAL) if the udata's is not one
 * of @sdev's.
 */
struct sim_ucontext *sim_udata_uctx(struct sim_dev *sdev,
				    struct ib_udata *udata,
				    struct ib_ucontext *objctx,
				    const char *what)
{
	struct uverbs_attr_bundle *attrs = rdma_udata_to_uverbs_attr_bundle(udata);
	struct ib_ucontext *ctx = attrs->context;
	struct ib_ucontext *fctx;

	if (!sim_uctx_known(sdev, ctx)) {
		sim_strict("%s: the udata's ucontext %p is not one of %s's",
			   what, ctx, dev_name(&sdev->ibdev.dev));
		return ERR_PTR(-EINVAL);
	}
	if (!attrs->ufile) {
		sim_strict("%s: the udata's bundle has no uverbs file", what);
	} else {
		fctx = ib_uverbs_get_ucontext(attrs);
		if (fctx != ctx)
			sim_strict("%s: ucontext by file %p, by udata %p",
				   what, IS_ERR(fctx) ? NULL : fctx, ctx);
	}
	if (objctx && objctx != ctx)
		sim_strict("%s: ucontext by uobject %p, by udata %p",
			   what, objctx, ctx);
	return rdma_udata_to_drv_context(udata, struct sim_ucontext, ibuc);
}

/**
 * sim_pd_udata_uctx() - sim_udata_uctx() for a verb on @pd, whose object
 *	belongs to the PD's ucontext: the core sets the object's own uobject
 *	only after the driver returns, or the uobject is the core's
 * @sdev: the device the verb was called on
 * @udata: the verb's driver data, not NULL
 * @pd: the PD (for alloc_pd, the new PD itself)
 * @what: the verb, for the report
 *
 * Return: as sim_udata_uctx().
 */
struct sim_ucontext *sim_pd_udata_uctx(struct sim_dev *sdev,
				       struct ib_udata *udata,
				       struct ib_pd *pd, const char *what)
{
	return sim_udata_uctx(sdev, udata,
			      pd->uobject ? pd->uobject->context : NULL, what);
}

/**
 * sim_check_user() - an object created with driver data is a user object
 * @what: the verb, for the report
 * @uobject: the object's uobject field
 * @res: its restrack entry, or NULL if the core has none for it
 *
 * It must arrive with its uobject and as a user restrack entry.
 */
void sim_check_user(const char *what, const void *uobject,
		    const struct rdma_restrack_entry *res)
{
	if (!uobject)
		sim_strict("%s: created with driver data but has no uobject",
			   what);
	if (res && rdma_is_kernel_res(res))
		sim_strict("%s: created with driver data, restrack says kernel",
			   what);
}

/**
 * sim_kernel_touch() - what the kernel path of an object does first
 * @what: the verb, for the report
 * @created_user: the object was created with driver data
 * @kbuf: its kernel-only buffer
 *
 * Read the kernel-only buffer.  A user object has only a 1-byte one, so
 * reading its last kernel byte is a KASAN report; the WARN comes first on
 * any kernel.
 *
 * Return: the buffer's last byte.
 */
u8 sim_kernel_touch(const char *what, bool created_user, u8 *kbuf)
{
	if (created_user)
		sim_strict("%s: kernel path taken for an object created by user space",
			   what);
	return READ_ONCE(kbuf[SIM_KBUF_LEN - 1]);
}

/**
 * sim_kbuf_alloc() - an object's kernel-only buffer
 * @user: the object is a user one
 *
 * Full size for kernel objects only: a user object's is one byte, so that
 * its kernel path reading the buffer is a KASAN report.
 *
 * Return: the buffer, or NULL when out of memory.
 */
u8 *sim_kbuf_alloc(bool user)
{
	return kzalloc(user ? 1 : SIM_KBUF_LEN, GFP_KERNEL);
}
