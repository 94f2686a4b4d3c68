// SPDX-License-Identifier: GPL-2.0
/* rdmasim: user contexts */
#include <linux/mm.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include <rdma/rdmasim-abi.h>
#include "sim.h"

/**
 * sim_alloc_ucontext() - open a context: what every personality keeps
 * @ibuc: the new context
 * @udata: the caller's driver data; rdmasim's own ABI has none here
 *
 * A personality checks its request first, and undoes this with
 * sim_dealloc_ucontext() if its response cannot be written.
 *
 * Return: 0 or -ENOMEM.
 */
int sim_alloc_ucontext(struct ib_ucontext *ibuc, struct ib_udata *udata)
{
	struct sim_dev *sdev = to_sdev(ibuc->device);
	struct sim_ucontext *uctx = to_suctx(ibuc);

	if (sdev->variant == SIM_VAR_RAWMAP) {
		uctx->ctx_page = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!uctx->ctx_page)
			return -ENOMEM;
	}
	xa_init(&uctx->uars);
	spin_lock(&sdev->uctx_lock);
	list_add_tail(&uctx->node, &sdev->uctxs);
	spin_unlock(&sdev->uctx_lock);
	atomic_long_inc(&sim_count[SIM_K_UCTX]);
	return 0;
}

/**
 * sim_dealloc_ucontext() - close a context
 * @ibuc: the context; every object of it is gone
 */
void sim_dealloc_ucontext(struct ib_ucontext *ibuc)
{
	struct sim_dev *sdev = to_sdev(ibuc->device);
	struct sim_ucontext *uctx = to_suctx(ibuc);

	if (!xa_empty(&uctx->uars))
		sim_strict("dealloc_ucontext: UAR objects outlive their ucontext");
	xa_destroy(&uctx->uars);
	if (uctx->ctx_page)
		__free_page(uctx->ctx_page);
	spin_lock(&sdev->uctx_lock);
	list_del(&uctx->node);
	spin_unlock(&sdev->uctx_lock);
	atomic_long_dec(&sim_count[SIM_K_UCTX]);
}

/*
 * The core zaps every mapping made with rdma_user_mmap_io() and destroys
 * the objects; the pages stay until mmap_free.  Nothing else to stop.
 */
static void sim_disassociate_ucontext(struct ib_ucontext *ibuc)
{
}

/**
 * sim_query_ucontext_check() - QUERY_CONTEXT's driver part may answer
 * @ibuc: the context the core found through the bundle's file
 * @attrs: the core's bundle
 *
 * The file, the bundle and @ibuc must all name one live sim ucontext.
 *
 * Return: 0, or -EINVAL when @ibuc is not a live sim ucontext.
 */
int sim_query_ucontext_check(struct ib_ucontext *ibuc,
			     struct uverbs_attr_bundle *attrs)
{
	struct ib_ucontext *fctx = ib_uverbs_get_ucontext(attrs);

	if (!sim_is_ours(ibuc->device) ||
	    !sim_uctx_known(to_sdev(ibuc->device), ibuc)) {
		sim_strict("query_ucontext: ucontext %p is not a live sim one",
			   ibuc);
		return -EINVAL;
	}
	if (fctx != ibuc || (attrs->context && attrs->context != ibuc))
		sim_strict("query_ucontext: ucontext %p, by file %p, by bundle %p",
			   ibuc, IS_ERR(fctx) ? NULL : fctx, attrs->context);
	return 0;
}

/*
 * QUERY_CONTEXT's driver part, as mlx5's: it answers with how many UARs
 * the context holds.
 */
static int sim_query_ucontext(struct ib_ucontext *ibuc,
			      struct uverbs_attr_bundle *attrs)
{
	struct rdmasim_query_ctx_resp resp = { .magic = RDMASIM_MAGIC };
	struct sim_ucontext *uctx;
	unsigned long id;
	void *entry;
	int ret;

	ret = sim_query_ucontext_check(ibuc, attrs);
	if (ret)
		return ret;
	uctx = to_suctx(ibuc);
	xa_for_each(&uctx->uars, id, entry)
		resp.nr_uars++;
	return uverbs_copy_to(attrs, RDMASIM_ATTR_QUERY_CONTEXT_RESP, &resp,
			      sizeof(resp));
}

/* The contexts' part of every personality's ops (link.c) */
const struct ib_device_ops sim_ctx_ops = {
	.alloc_ucontext = sim_alloc_ucontext,
	.dealloc_ucontext = sim_dealloc_ucontext,
	.disassociate_ucontext = sim_disassociate_ucontext,
	.query_ucontext = sim_query_ucontext,

	INIT_RDMA_OBJ_SIZE(ib_ucontext, sim_ucontext, ibuc),
};
