/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vrdma_vma: parent mappings that outlive vrdma.ko.
 *
 * A parent driver that installs its own vm_ops on a queue mapping (rxe)
 * dereferences the shadow ucontext and the parent device when the mapping
 * is finally closed, which can be long after the vdevice, its ucontexts and
 * even vrdma.ko are gone.  This small module owns what such a close needs:
 * the holder of the shadow ucontext (its memory, the parent device and the
 * parent driver module) and the vm_ops wrapper.  Nothing in it calls into
 * vrdma.ko, so vrdma.ko can be unloaded under live mappings; each VMA of a
 * wrapped mapping pins this module instead.
 *
 * Locking: none.  The holder and the wrappers are reference counted
 * (kref, refcount_t); the object counters are atomics.
 */
#ifndef _VRDMA_VMA_H
#define _VRDMA_VMA_H

#include <linux/kref.h>
#include <linux/mm_types.h>
#include <rdma/ib_verbs.h>

/**
 * struct vrdma_uctx_holder - keeps a shadow ucontext alive
 * @ref: one for the vdevice ucontext, one per wrapped parent mapping
 * @shadow: the parent-side ucontext, or NULL before the caller set it; its
 *	memory belongs to the holder
 * @parent_ibdev: the parent device, whose memory and driver module stay
 *	pinned as long as a mapping may still call into the parent driver
 */
struct vrdma_uctx_holder {
	struct kref ref;
	struct ib_ucontext *shadow;
	struct ib_device *parent_ibdev;
};

/* What vrdma_vma_obj_count() counts, for vrdma's leak audit */
enum vrdma_vma_obj {
	VRDMA_VMA_OBJ_HOLDER,	/* live shadow ucontext holders */
	VRDMA_VMA_OBJ_MAPPING,	/* live wrapped parent mappings */
	VRDMA_VMA_NR_OBJ
};

struct vrdma_uctx_holder *
vrdma_uctx_holder_create(struct ib_device *parent_ibdev);
void vrdma_uctx_holder_put(struct vrdma_uctx_holder *holder);
int vrdma_vma_mmap(struct vrdma_uctx_holder *holder,
		   struct vm_area_struct *vma);
int vrdma_vma_obj_count(enum vrdma_vma_obj obj);

#endif /* _VRDMA_VMA_H */
