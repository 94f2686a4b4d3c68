// SPDX-License-Identifier: GPL-2.0
/*
 * vrdma_vma: parent mappings that outlive vrdma.ko.
 *
 * The process maps the parent's queue buffers and doorbell pages directly,
 * through the vdevice's file.  Mappings made with rdma_user_mmap_io() are
 * tracked on the vdevice file and zapped by the core on disassociation,
 * so they need nothing from us.  Mappings of pages the parent inserted
 * with vm_insert_page() or remap_vmalloc_range() hold a reference on each
 * page, which therefore outlives the parent's use of it: harmless.  A
 * mapping of raw page frames made any other way (remap_pfn_range() from
 * the mmap op, as 6.1's bnxt_re, pvrdma and ocrdma do) is neither zapped
 * nor refcounted: a vdevice always disassociates, so the parent would free
 * or reissue the frame while the tenant still maps it.  Such mappings are
 * refused.  A parent that installs
 * its own vm_ops (rxe maps its vmalloc'ed queues with rxe_vm_ops)
 * dereferences its mmap info, the shadow ucontext and the parent device
 * when the mapping is closed, which may happen long after the vdevice is
 * gone, and after vrdma.ko is gone.  Such mappings are wrapped: the wrapper
 * holds the shadow ucontext holder (and with it the parent device and
 * driver module) until the last VMA sharing it is closed; each VMA pins
 * this module.
 *
 * This is a module of its own so that "rmmod vrdma" works under live
 * mappings: vrdma's exit disassociates every user (IBV_EVENT_DEVICE_FATAL),
 * and the mappings stay valid, still backed by the parent's queue memory,
 * until their owners unmap them or exit.  Rewriting the VMAs of other
 * processes at teardown instead (zap, drop vm_ops) would need each mm's
 * mmap lock and turn later touches into SIGBUS.  Nothing here may call
 * into vrdma.ko (modpost enforces it: vrdma.ko exports nothing).
 *
 * "rmmod vrdma_vma" is refused ("in use") while vrdma.ko is loaded (it uses
 * the symbols below) and while a VMA of a wrapped mapping exists: the
 * module's reference count is one per such VMA, plus one for vrdma.ko.
 */
#include <linux/atomic.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/refcount.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "vma.h"

/* Live objects by enum vrdma_vma_obj; lock-free (atomic). */
static atomic_t vrdma_vma_objs[VRDMA_VMA_NR_OBJ];

static const char * const vrdma_vma_obj_names[VRDMA_VMA_NR_OBJ] = {
	[VRDMA_VMA_OBJ_HOLDER] = "ucontext holder",
	[VRDMA_VMA_OBJ_MAPPING] = "mapping",
};

/**
 * vrdma_vma_obj_count() - how many objects of a kind are alive
 * @obj: the kind
 *
 * For vrdma's debugfs object counters (the leak audit of the tests).
 *
 * Context: any context.
 * Return: the number of live objects.
 */
int vrdma_vma_obj_count(enum vrdma_vma_obj obj)
{
	return atomic_read(&vrdma_vma_objs[obj]);
}
EXPORT_SYMBOL_GPL(vrdma_vma_obj_count);

static void vrdma_uctx_holder_release(struct kref *ref)
{
	struct vrdma_uctx_holder *holder =
		container_of(ref, struct vrdma_uctx_holder, ref);
	struct ib_device *parent_ibdev = holder->parent_ibdev;
	struct module *owner = parent_ibdev->ops.owner;

	kfree(holder->shadow);
	kfree(holder);
	atomic_dec(&vrdma_vma_objs[VRDMA_VMA_OBJ_HOLDER]);
	/*
	 * The device first: its last reference runs the RDMA core's release,
	 * which the parent driver's module (and with it ib_core) must still
	 * be loaded for.
	 */
	put_device(&parent_ibdev->dev);
	module_put(owner);
}

/**
 * vrdma_uctx_holder_create() - a holder for a shadow ucontext on a parent
 * @parent_ibdev: the parent device
 *
 * Pins @parent_ibdev and its driver module until the last reference is dropped;
 * the caller must hold a reference on that module already (a vdevice pins
 * its parent's driver).  The caller then sets ->shadow to the shadow
 * ucontext, kmalloc'ed (rdma_zalloc_drv_obj()), whose memory the last
 * reference frees.
 *
 * Context: process context.
 * Return: the holder, with one reference, or NULL when out of memory.
 */
struct vrdma_uctx_holder *
vrdma_uctx_holder_create(struct ib_device *parent_ibdev)
{
	struct vrdma_uctx_holder *holder;

	holder = kzalloc(sizeof(*holder), GFP_KERNEL);
	if (!holder)
		return NULL;
	kref_init(&holder->ref);
	holder->parent_ibdev = parent_ibdev;
	get_device(&parent_ibdev->dev);
	__module_get(parent_ibdev->ops.owner);
	atomic_inc(&vrdma_vma_objs[VRDMA_VMA_OBJ_HOLDER]);
	return holder;
}
EXPORT_SYMBOL_GPL(vrdma_uctx_holder_create);

/**
 * vrdma_uctx_holder_put() - drop a reference on a shadow ucontext holder
 * @holder: the holder
 *
 * The last reference frees the shadow ucontext memory and unpins the
 * parent device and its driver module.  The parent driver must have
 * released the shadow (its dealloc_ucontext op, or a failed
 * alloc_ucontext) before the last reference goes.
 *
 * Context: process context.
 */
void vrdma_uctx_holder_put(struct vrdma_uctx_holder *holder)
{
	kref_put(&holder->ref, vrdma_uctx_holder_release);
}
EXPORT_SYMBOL_GPL(vrdma_uctx_holder_put);

/**
 * struct vrdma_vma - what a wrapped parent mapping needs to be closed safely
 * @ref: one per VMA using the wrapper (VMAs split or copied share it)
 * @ops: the parent's vm_ops
 * @private: the parent's vm_private_data
 * @holder: keeps the shadow ucontext and the parent alive
 */
struct vrdma_vma {
	refcount_t ref;
	const struct vm_operations_struct *ops;
	void *private;
	struct vrdma_uctx_holder *holder;
};

static void vrdma_vma_put(struct vrdma_vma *vv)
{
	if (!refcount_dec_and_test(&vv->ref))
		return;
	vrdma_uctx_holder_put(vv->holder);
	kfree(vv);
	atomic_dec(&vrdma_vma_objs[VRDMA_VMA_OBJ_MAPPING]);
}

/* Runs a parent callback with the parent's private data in place. */
static void vrdma_vma_call(struct vm_area_struct *vma, struct vrdma_vma *vv,
			   void (*fn)(struct vm_area_struct *vma))
{
	if (!fn)
		return;
	vma->vm_private_data = vv->private;
	fn(vma);
	vma->vm_private_data = vv;
}

/*
 * A new VMA shares the wrapper: fork (dup_mmap), a split by a partial
 * munmap or mprotect (the new piece), mremap (the moved copy).  Every VMA
 * using the wrapper holds a reference on it and one on this module; the
 * VMA it was made from holds both already, so taking them cannot fail.
 */
static void vrdma_vma_open(struct vm_area_struct *vma)
{
	struct vrdma_vma *vv = vma->vm_private_data;

	refcount_inc(&vv->ref);
	__module_get(THIS_MODULE);
	vrdma_vma_call(vma, vv, vv->ops->open);
}

static void vrdma_vma_close(struct vm_area_struct *vma)
{
	struct vrdma_vma *vv = vma->vm_private_data;

	vrdma_vma_call(vma, vv, vv->ops->close);
	vrdma_vma_put(vv);
	/*
	 * Last, with nothing after it but the return: from here on
	 * "rmmod vrdma_vma" may proceed.  It still has to run the exit
	 * function and wait for an RCU grace period before this code is
	 * freed; the window is the one every module that drops its own
	 * reference has.
	 */
	module_put(THIS_MODULE);
}

/*
 * open and close only, the callbacks rxe_vm_ops has (it maps every page up
 * front with remap_vmalloc_range()).  Both run on a VMA no fault can reach:
 * a new one not yet in the tree (split, fork, mremap) or one already
 * detached, with the mm's mmap lock held for writing; so bracketing them
 * with the parent's private data is safe.  A fault, by contrast, runs
 * concurrently with other faults of the same VMA, which would see each
 * other's private data: parents with any callback but these two are not
 * wrapped but refused (vrdma_vma_wrappable()).
 */
static const struct vm_operations_struct vrdma_vm_ops = {
	.open = vrdma_vma_open,
	.close = vrdma_vma_close,
};

/* Whether @ops has no callback but open and close: all else is zero. */
static bool vrdma_vma_wrappable(const struct vm_operations_struct *ops)
{
	size_t open = offsetof(typeof(*ops), open);
	size_t close = offsetof(typeof(*ops), close);
	size_t lo = min(open, close), hi = max(open, close);
	size_t n = sizeof(ops->open);
	const u8 *p = (const u8 *)ops;

	return !memchr_inv(p, 0, lo) &&
	       !memchr_inv(p + lo + n, 0, hi - lo - n) &&
	       !memchr_inv(p + hi + n, 0, sizeof(*ops) - hi - n);
}

/*
 * Whether a mapping left under the core's vm_ops (or none) is safe once
 * the vdevice is gone: the core tracks it (rdma_user_mmap_io() sets
 * vm_private_data to its record, which links the VMA into the file's
 * list zapped on disassociation), or it maps only struct pages that hold
 * a reference each (vm_insert_page(), remap_vmalloc_range(): neither sets
 * VM_PFNMAP or VM_IO).  Raw page frames the core does not track stay
 * mapped, unreferenced, after the parent frees or reissues them.
 */
static bool vrdma_vma_revocable(const struct vm_area_struct *vma,
				const struct vm_operations_struct *core_ops)
{
	if (vma->vm_ops == core_ops && vma->vm_private_data)
		return true;
	return !(vma->vm_flags & (VM_PFNMAP | VM_IO));
}

/**
 * vrdma_vma_mmap() - map a parent queue or doorbell page with the shadow
 * @holder: the holder of the shadow ucontext the mapping belongs to
 * @vma: the new mapping; vm_ops is the core's rdma_umap_ops on entry
 *
 * Calls the parent driver's mmap op with the shadow ucontext.  If the
 * parent installs vm_ops of its own, wraps them so that the mapping holds
 * @holder until its last VMA is closed, and each of its VMAs this module.
 * Refuses a mapping of page frames that the core would not revoke when
 * the vdevice disassociates (vrdma_vma_revocable()).
 *
 * Context: process context, from the vdevice's mmap op, whose module
 * holds a reference on this one.
 * Return: 0, the parent's error, or -EOPNOTSUPP for a mapping vrdma
 * cannot let through.
 */
int vrdma_vma_mmap(struct vrdma_uctx_holder *holder,
		   struct vm_area_struct *vma)
{
	const struct vm_operations_struct *core_ops = vma->vm_ops;
	struct vrdma_vma *vv;
	int ret;

	/* Before the parent's mmap: nothing may fail after it succeeded. */
	vv = kzalloc(sizeof(*vv), GFP_KERNEL);
	if (!vv)
		return -ENOMEM;

	ret = holder->parent_ibdev->ops.mmap(holder->shadow, vma);
	if (ret) {
		kfree(vv);
		return ret;
	}
	/*
	 * Still the core's vm_ops, or none at all: nothing of the parent's
	 * runs when the mapping goes, so there is nothing to keep alive for
	 * it; but the core revokes it only if it tracks it.
	 */
	if (vma->vm_ops == core_ops || !vma->vm_ops) {
		kfree(vv);
		if (vrdma_vma_revocable(vma, core_ops))
			return 0;
		pr_debug("vrdma_vma: %s: parent mapped page frames the core cannot revoke\n",
			 holder->parent_ibdev->name);
		/* mmap_region() unmaps what the parent's mmap inserted */
		return -EOPNOTSUPP;
	}
	if (!vrdma_vma_wrappable(vma->vm_ops)) {
		/* The core does not close a VMA whose mmap failed. */
		if (vma->vm_ops->close)
			vma->vm_ops->close(vma);
		kfree(vv);
		pr_debug("vrdma_vma: %s: parent vm_ops %ps have callbacks vrdma cannot forward\n",
			 holder->parent_ibdev->name, vma->vm_ops);
		return -EOPNOTSUPP;
	}

	/*
	 * The parent's open/close must see their own private data, so each
	 * call is bracketed (vrdma_vma_call()).  A parent whose open changes
	 * vm_private_data per VMA would need one wrapper per VMA; rxe does
	 * not, and rdma_umap_ops users are not wrapped at all.
	 */
	refcount_set(&vv->ref, 1);
	vv->ops = vma->vm_ops;
	vv->private = vma->vm_private_data;
	vv->holder = holder;
	kref_get(&holder->ref);
	/*
	 * The VMA calls into this module until it is closed.  Our caller's
	 * module uses this one, so the count is not zero here.
	 */
	__module_get(THIS_MODULE);
	atomic_inc(&vrdma_vma_objs[VRDMA_VMA_OBJ_MAPPING]);

	vma->vm_ops = &vrdma_vm_ops;
	vma->vm_private_data = vv;
	return 0;
}
EXPORT_SYMBOL_GPL(vrdma_vma_mmap);

static int __init vrdma_vma_init(void)
{
	return 0;
}

/*
 * Only reached with no wrapped mapping left (each pins the module) and
 * vrdma.ko unloaded (it uses this module): a holder still counted now is a
 * leak, and so is the parent driver reference it carries.
 */
static void __exit vrdma_vma_exit(void)
{
	int i;

	for (i = 0; i < VRDMA_VMA_NR_OBJ; i++)
		WARN(atomic_read(&vrdma_vma_objs[i]),
		     "vrdma_vma: %d %s(s) leaked\n",
		     atomic_read(&vrdma_vma_objs[i]), vrdma_vma_obj_names[i]);
}

module_init(vrdma_vma_init);
module_exit(vrdma_vma_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("vrdma: parent RDMA queue mappings that outlive vrdma");
MODULE_AUTHOR("The vrdma developers");
MODULE_VERSION(VRDMA_VERSION);
