// SPDX-License-Identifier: GPL-2.0
/* rdmasim: mmap entries, the pages they hand out and their mappings */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/idr.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

#include <rdma/rdmasim-abi.h>
#include "sim.h"

/*
 * An entry's pages back to the page allocator, write-back again.  Pages
 * whose type cannot be restored are leaked rather than handed out
 * write-combining in the linear map.
 */
static void sim_mmap_free_pages(struct sim_mmap *m)
{
	if (m->type == SIM_MMAP_UAR_WC && sim_set_pages_wb(m->buf, m->len)) {
		pr_warn_once("rdmasim: write-combining pages leaked: their memory type stays\n");
		return;
	}
	free_pages_exact(m->buf, m->len);
}

/**
 * sim_mmap_new_range() - pages handed out through an mmap entry
 * @sdev: the device
 * @ibuc: the ucontext whose mmap entry it is
 * @len: its length, rounded up to whole pages
 * @type: what the pages are
 * @min_pgoff: the lowest page offset the entry may have
 * @max_pgoff: the highest page offset the entry may start at
 *
 * The memory is zeroed and lives until the last mapping of the entry is
 * gone (mmap_free).  A SIM_MMAP_UAR_WC entry's pages are made
 * write-combining, which the personality's mmap then asks for.  A
 * personality keeps its mmap offsets in the range its offset encoding
 * reserves for entries (mlx5.c).
 *
 * Return: the entry, or an ERR_PTR().
 */
struct sim_mmap *sim_mmap_new_range(struct sim_dev *sdev,
				    struct ib_ucontext *ibuc, size_t len,
				    enum sim_mmap_type type, u32 min_pgoff,
				    u32 max_pgoff)
{
	struct sim_mmap *m;
	int ret;

	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return ERR_PTR(-ENOMEM);
	m->len = PAGE_ALIGN(len);
	m->type = type;
	m->sdev = sdev;
	m->buf = alloc_pages_exact(m->len, GFP_KERNEL | __GFP_ZERO);
	if (!m->buf) {
		ret = -ENOMEM;
		goto err_free_m;
	}
	/* Before the entry exists: no mapping of another type can precede */
	if (type == SIM_MMAP_UAR_WC) {
		ret = sim_set_pages_wc(m->buf, m->len);
		if (ret)
			goto err_free_buf;
	}
	ret = rdma_user_mmap_entry_insert_range(ibuc, &m->rdma_entry, m->len,
						min_pgoff, max_pgoff);
	if (ret)
		goto err_free_pages;
	atomic_long_inc(&sim_count[SIM_K_MMAP]);
	return m;

err_free_pages:
	sim_mmap_free_pages(m);
	kfree(m);
	return ERR_PTR(ret);
err_free_buf:
	free_pages_exact(m->buf, m->len);
err_free_m:
	kfree(m);
	return ERR_PTR(ret);
}

/**
 * sim_mmap_new() - sim_mmap_new_range() anywhere the core puts an entry
 * @sdev: the device
 * @ibuc: the ucontext whose mmap entry it is
 * @len: its length, rounded up to whole pages
 * @type: what the pages are
 *
 * Return: the entry, or an ERR_PTR().
 */
struct sim_mmap *sim_mmap_new(struct sim_dev *sdev, struct ib_ucontext *ibuc,
			      size_t len, enum sim_mmap_type type)
{
	return sim_mmap_new_range(sdev, ibuc, len, type, 0, U32_MAX);
}

static void sim_mmap_free(struct rdma_user_mmap_entry *entry)
{
	struct sim_mmap *m = to_smmap(entry);

	if (m->type != SIM_MMAP_RING)
		ida_free(&m->sdev->uar_ida, m->page_id);
	sim_mmap_free_pages(m);
	kfree(m);
	atomic_long_dec(&sim_count[SIM_K_MMAP]);
}

/*
 * The vmops variant's mappings have vm_ops of rdmasim's own, with a fault
 * handler, as a parent driver that maps through its own vm_ops would: a
 * wrapper cannot forward a fault safely, so vrdma must refuse such a
 * mapping (kmod/vma.c).  Each callback chains to the core's
 * (rdma_umap_ops, which rdma_user_mmap_io() installed), so the core's
 * bookkeeping of the mapping stays whole, and every VMA pins this module,
 * whose code its callbacks are.  Live VMAs are counted ("vma").
 */
static const struct vm_operations_struct *sim_core_vm_ops;

static void sim_vma_open(struct vm_area_struct *vma)
{
	const struct vm_operations_struct *core = READ_ONCE(sim_core_vm_ops);

	__module_get(THIS_MODULE);
	atomic_long_inc(&sim_count[SIM_K_VMA]);
	if (core->open)
		core->open(vma);
}

static void sim_vma_close(struct vm_area_struct *vma)
{
	const struct vm_operations_struct *core = READ_ONCE(sim_core_vm_ops);

	if (core->close)
		core->close(vma);
	atomic_long_dec(&sim_count[SIM_K_VMA]);
	module_put(THIS_MODULE);
}

static vm_fault_t sim_vma_fault(struct vm_fault *vmf)
{
	const struct vm_operations_struct *core = READ_ONCE(sim_core_vm_ops);

	return core->fault ? core->fault(vmf) : VM_FAULT_SIGBUS;
}

static const struct vm_operations_struct sim_vm_ops = {
	.open = sim_vma_open,
	.close = sim_vma_close,
	.fault = sim_vma_fault,
};

/* Puts @vma, just mapped by rdma_user_mmap_io(), under sim_vm_ops */
static void sim_vma_own(struct vm_area_struct *vma)
{
	/* The core has one rdma_umap_ops: every mapping stores the same */
	WRITE_ONCE(sim_core_vm_ops, vma->vm_ops);
	vma->vm_ops = &sim_vm_ops;
	__module_get(THIS_MODULE);
	atomic_long_inc(&sim_count[SIM_K_VMA]);
}

/*
 * The rawmap variant's context page is mapped the way 6.1's bnxt_re maps
 * its shared page and pvrdma its UAR: remap_pfn_range() straight from the
 * mmap op, not rdma_user_mmap_io(), so the core neither tracks nor zaps the
 * mapping, and the page is freed with the context (sim_dealloc_ucontext()).
 * Natively that is safe only because the variant has no
 * disassociate_ucontext: the context outlives every mapping of its file.
 */
static int sim_mmap_ctx_page(struct sim_ucontext *uctx,
			     struct vm_area_struct *vma)
{
	if (vma->vm_end - vma->vm_start != PAGE_SIZE)
		return -EINVAL;
	return remap_pfn_range(vma, vma->vm_start, page_to_pfn(uctx->ctx_page),
			       PAGE_SIZE, vma->vm_page_prot);
}

static int sim_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *entry;
	struct sim_mmap *m;
	int ret;

	if (vma->vm_pgoff == RDMASIM_MMAP_CTX_PAGE_PGOFF &&
	    to_sdev(ibuc->device)->variant == SIM_VAR_RAWMAP)
		return sim_mmap_ctx_page(to_suctx(ibuc), vma);
	entry = rdma_user_mmap_entry_get(ibuc, vma);
	if (!entry)
		return -EINVAL;
	m = to_smmap(entry);
	/* Cached memory: the "hardware" is a CPU that polls it */
	ret = rdma_user_mmap_io(ibuc, vma, PHYS_PFN(virt_to_phys(m->buf)),
				m->len, vma->vm_page_prot, entry);
	rdma_user_mmap_entry_put(entry);
	if (!ret && to_sdev(ibuc->device)->variant == SIM_VAR_VMOPS)
		sim_vma_own(vma);
	return ret;
}

/**
 * sim_uar_get() - a reference on a doorbell page of a context
 * @uctx: the context
 * @page_id: the page's id, as its UAR object's allocation returned it
 *
 * create_cq and create_qp require one.
 *
 * Return: the page's mmap entry, referenced, or NULL if @uctx has no such
 * page.
 */
struct rdma_user_mmap_entry *sim_uar_get(struct sim_ucontext *uctx,
					 u32 page_id)
{
	void *v = xa_load(&uctx->uars, page_id);

	if (!v)
		return NULL;
	return rdma_user_mmap_entry_get_pgoff(&uctx->ibuc, xa_to_value(v));
}

/* The mappings' part of every personality's ops (link.c) */
const struct ib_device_ops sim_mmap_ops = {
	.mmap = sim_mmap,
	.mmap_free = sim_mmap_free,
};
