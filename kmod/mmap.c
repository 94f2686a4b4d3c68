// SPDX-License-Identifier: GPL-2.0
/*
 * mmap: the process maps the parent's queue buffers and doorbell pages
 * directly, through the vdevice's file.
 *
 * Mappings made with the core's rdma_umap_ops are tracked on the vdevice
 * file and zapped by the core on disassociation, so they need nothing from
 * us.  A parent that installs its own vm_ops (rxe maps its vmalloc'ed
 * queues with rxe_vm_ops) dereferences its mmap info, the shadow ucontext
 * and the parent device when the mapping is closed, which may happen long
 * after the vdevice is gone.  Such mappings are wrapped: the wrapper holds
 * the shadow ucontext holder (and with it the parent device and module) and
 * this module until the last VMA sharing it is closed.
 *
 * So "rmmod vrdma" is refused ("in use") while such a mapping exists, even
 * after every vdevice is gone: the VMA's close runs vrdma code and the
 * parent's close needs the shadow ucontext that only vrdma frees.  The
 * refusal resolves by itself: deleting a vdevice (or unloading with no
 * mapping left) sends its users IBV_EVENT_DEVICE_FATAL, and once they
 * unmap or exit the count drops ("mmap" in debugfs objects).  Rewriting
 * the VMAs of other processes at teardown instead (zap, drop vm_ops) would
 * need each mm's mmap lock and turn later touches into SIGBUS.
 */
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "vrdma.h"

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
	vrdma_obj_dec(VRDMA_OBJ_MMAP);
	module_put(THIS_MODULE);
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

static void vrdma_vma_open(struct vm_area_struct *vma)
{
	struct vrdma_vma *vv = vma->vm_private_data;

	refcount_inc(&vv->ref);
	vrdma_vma_call(vma, vv, vv->ops->open);
}

static void vrdma_vma_close(struct vm_area_struct *vma)
{
	struct vrdma_vma *vv = vma->vm_private_data;

	vrdma_vma_call(vma, vv, vv->ops->close);
	vrdma_vma_put(vv);
}

static vm_fault_t vrdma_vma_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct vrdma_vma *vv = vma->vm_private_data;
	vm_fault_t ret;

	if (!vv->ops->fault)
		return VM_FAULT_SIGBUS;
	vma->vm_private_data = vv->private;
	ret = vv->ops->fault(vmf);
	vma->vm_private_data = vv;
	return ret;
}

static const struct vm_operations_struct vrdma_vm_ops = {
	.open = vrdma_vma_open,
	.close = vrdma_vma_close,
	.fault = vrdma_vma_fault,
};

/**
 * vrdma_mmap() - map a parent queue or doorbell page through the vdevice
 * @ibuc: the vdevice ucontext
 * @vma: the new mapping; vm_ops is the core's rdma_umap_ops on entry
 *
 * Return: 0 or the parent's error.
 */
int vrdma_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma)
{
	struct vrdma_uctx_holder *holder = to_vuctx(ibuc)->holder;
	const struct vm_operations_struct *core_ops = vma->vm_ops;
	struct ib_device *pdev = to_vdev(ibuc->device)->pdev;
	struct vrdma_vma *vv;
	int ret;

	vv = kzalloc(sizeof(*vv), GFP_KERNEL);
	if (!vv)
		return -ENOMEM;

	ret = pdev->ops.mmap(holder->shadow, vma);
	if (ret || vma->vm_ops == core_ops) {
		kfree(vv);
		return ret;
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
	/* The VMA calls into this module until it is closed. */
	__module_get(THIS_MODULE);
	vrdma_obj_inc(VRDMA_OBJ_MMAP);

	vma->vm_ops = &vrdma_vm_ops;
	vma->vm_private_data = vv;
	return 0;
}
