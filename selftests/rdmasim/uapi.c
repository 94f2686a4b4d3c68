// SPDX-License-Identifier: GPL-2.0
/*
 * rdmasim: its driver uverbs objects and methods (the UAR object,
 * PD_QUERY), and the attributes it adds to core methods.
 */
#include <linux/module.h>
#include <linux/idr.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

#define UVERBS_MODULE_NAME rdmasim
#include <rdma/uverbs_named_ioctl.h>

#include <rdma/rdmasim-abi.h>
#include "sim.h"

/**
 * sim_uar_cleanup() - destroy a UAR object of any personality
 * @uobject: its uobject; the object is its sim_mmap
 * @why: unused: a UAR never refuses to go
 * @attrs: unused
 *
 * Return: 0.
 */
int sim_uar_cleanup(struct ib_uobject *uobject, enum rdma_remove_reason why,
		    struct uverbs_attr_bundle *attrs)
{
	struct sim_mmap *m = uobject->object;

	xa_erase(&to_suctx(uobject->context)->uars, m->page_id);
	rdma_user_mmap_entry_remove(&m->rdma_entry);
	atomic_long_dec(&sim_count[SIM_K_UAR]);
	return 0;
}

/**
 * sim_uar_new() - a doorbell page for a UAR object of any personality
 * @attrs: the method's bundle: the ucontext is found through its file
 * @uobj: the new object's uobject
 * @what: the method, for reports
 * @type: SIM_MMAP_UAR, or SIM_MMAP_UAR_WC for a write-combining page
 * @min_pgoff: the lowest mmap page offset its entry may have
 * @max_pgoff: the highest page offset it may start at
 *
 * A page id unique on the device, a zeroed page behind an mmap entry of
 * the context, and the id's entry in the context's table, which create_cq
 * and create_qp look up.  The caller makes it @uobj's object, or removes
 * its mmap entry on failure.
 *
 * Return: the page's entry, or an ERR_PTR().
 */
struct sim_mmap *sim_uar_new(struct uverbs_attr_bundle *attrs,
			     struct ib_uobject *uobj, const char *what,
			     enum sim_mmap_type type, u32 min_pgoff,
			     u32 max_pgoff)
{
	struct ib_ucontext *ibuc = ib_uverbs_get_ucontext(attrs);
	struct sim_ucontext *uctx;
	struct sim_dev *sdev;
	struct sim_mmap *m;
	int ret;

	if (IS_ERR(ibuc))
		return ERR_CAST(ibuc);
	if (!sim_is_ours(ibuc->device)) {
		sim_strict("%s: the ucontext is on %s, not a sim device", what,
			   dev_name(&ibuc->device->dev));
		return ERR_PTR(-EINVAL);
	}
	sdev = to_sdev(ibuc->device);
	uctx = sim_udata_uctx(sdev, &attrs->driver_udata, uobj->context, what);
	if (IS_ERR(uctx))
		return ERR_CAST(uctx);

	ret = ida_alloc_max(&sdev->uar_ida, SIM_MAX_UARS - 1, GFP_KERNEL);
	if (ret < 0)
		return ERR_PTR(ret);
	m = sim_mmap_new_range(sdev, &uctx->ibuc, PAGE_SIZE, type, min_pgoff,
			       max_pgoff);
	if (IS_ERR(m)) {
		ida_free(&sdev->uar_ida, ret);
		return m;
	}
	/* From here mmap_free gives the id back */
	m->page_id = ret;
	ret = xa_insert(&uctx->uars, m->page_id,
			xa_mk_value(m->rdma_entry.start_pgoff), GFP_KERNEL);
	if (ret) {
		rdma_user_mmap_entry_remove(&m->rdma_entry);
		return ERR_PTR(ret);
	}
	return m;
}

/**
 * sim_uar_reply() - answer a UAR alloc method: where the new page is
 * @attrs: the method's bundle
 * @m: the page, from sim_uar_new()
 * @offset: its mmap offset, as the personality's library expects it
 * @offset_attr: the personality's output attribute for @offset
 * @page_id_attr: ... for the page id
 * @length_attr: ... for the length to mmap
 *
 * Return: 0 or a negative errno.
 */
int sim_uar_reply(struct uverbs_attr_bundle *attrs, const struct sim_mmap *m,
		  u64 offset, size_t offset_attr, size_t page_id_attr,
		  size_t length_attr)
{
	u32 length = m->len;
	int ret;

	ret = uverbs_copy_to(attrs, offset_attr, &offset, sizeof(offset));
	if (ret)
		return ret;
	ret = uverbs_copy_to(attrs, page_id_attr, &m->page_id,
			     sizeof(m->page_id));
	if (ret)
		return ret;
	return uverbs_copy_to(attrs, length_attr, &length, sizeof(length));
}

static int UVERBS_HANDLER(RDMASIM_METHOD_UAR_ALLOC)(struct uverbs_attr_bundle *attrs)
{
	struct ib_uobject *uobj =
		uverbs_attr_get_uobject(attrs, RDMASIM_ATTR_UAR_ALLOC_HANDLE);
	struct sim_mmap *m;

	m = sim_uar_new(attrs, uobj, "UAR_ALLOC", SIM_MMAP_UAR, 0, U32_MAX);
	if (IS_ERR(m))
		return PTR_ERR(m);
	uobj->object = m;
	uverbs_finalize_uobj_create(attrs, RDMASIM_ATTR_UAR_ALLOC_HANDLE);
	atomic_long_inc(&sim_count[SIM_K_UAR]);

	return sim_uar_reply(attrs, m, rdma_user_mmap_get_offset(&m->rdma_entry),
			     RDMASIM_ATTR_UAR_ALLOC_MMAP_OFFSET,
			     RDMASIM_ATTR_UAR_ALLOC_PAGE_ID,
			     RDMASIM_ATTR_UAR_ALLOC_MMAP_LENGTH);
}

DECLARE_UVERBS_NAMED_METHOD(RDMASIM_METHOD_UAR_ALLOC,
			    UVERBS_ATTR_IDR(RDMASIM_ATTR_UAR_ALLOC_HANDLE, RDMASIM_OBJECT_UAR,
					    UVERBS_ACCESS_NEW, UA_MANDATORY),
			    UVERBS_ATTR_PTR_OUT(RDMASIM_ATTR_UAR_ALLOC_PAGE_ID,
						UVERBS_ATTR_TYPE(u32), UA_MANDATORY),
			    UVERBS_ATTR_PTR_OUT(RDMASIM_ATTR_UAR_ALLOC_MMAP_LENGTH,
						UVERBS_ATTR_TYPE(u32), UA_MANDATORY),
			    UVERBS_ATTR_PTR_OUT(RDMASIM_ATTR_UAR_ALLOC_MMAP_OFFSET,
						UVERBS_ATTR_TYPE(u64), UA_MANDATORY));

DECLARE_UVERBS_NAMED_METHOD_DESTROY(RDMASIM_METHOD_UAR_DESTROY,
				    UVERBS_ATTR_IDR(RDMASIM_ATTR_UAR_DESTROY_HANDLE,
						    RDMASIM_OBJECT_UAR,
						    UVERBS_ACCESS_DESTROY,
						    UA_MANDATORY));

/*
 * A method vrdma does not forward: through a vdevice it must be refused
 * before it gets here, so any call on an object that is not a sim
 * ucontext's is reported.
 */
static int UVERBS_HANDLER(RDMASIM_METHOD_UAR_QUERY)(struct uverbs_attr_bundle *attrs)
{
	struct ib_uobject *uobj =
		uverbs_attr_get_uobject(attrs, RDMASIM_ATTR_UAR_QUERY_HANDLE);
	struct sim_mmap *m;

	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	if (!sim_is_ours(uobj->context->device)) {
		sim_strict("UAR_QUERY: the UAR's ucontext is on %s, not a sim device",
			   dev_name(&uobj->context->device->dev));
		return -EINVAL;
	}
	m = uobj->object;
	return uverbs_copy_to(attrs, RDMASIM_ATTR_UAR_QUERY_PAGE_ID,
			      &m->page_id, sizeof(m->page_id));
}

DECLARE_UVERBS_NAMED_METHOD(RDMASIM_METHOD_UAR_QUERY,
			    UVERBS_ATTR_IDR(RDMASIM_ATTR_UAR_QUERY_HANDLE, RDMASIM_OBJECT_UAR,
					    UVERBS_ACCESS_READ, UA_MANDATORY),
			    UVERBS_ATTR_PTR_OUT(RDMASIM_ATTR_UAR_QUERY_PAGE_ID,
						UVERBS_ATTR_TYPE(u32), UA_MANDATORY));

DECLARE_UVERBS_NAMED_OBJECT(RDMASIM_OBJECT_UAR,
			    UVERBS_TYPE_ALLOC_IDR(sim_uar_cleanup),
			    &UVERBS_METHOD(RDMASIM_METHOD_UAR_ALLOC),
			    &UVERBS_METHOD(RDMASIM_METHOD_UAR_DESTROY),
			    &UVERBS_METHOD(RDMASIM_METHOD_UAR_QUERY));

static int UVERBS_HANDLER(RDMASIM_METHOD_PD_QUERY)(struct uverbs_attr_bundle *attrs)
{
	return sim_pd_query(attrs, RDMASIM_ATTR_PD_QUERY_HANDLE,
			    RDMASIM_ATTR_PD_QUERY_PDN);
}

DECLARE_UVERBS_NAMED_METHOD(RDMASIM_METHOD_PD_QUERY,
			    UVERBS_ATTR_IDR(RDMASIM_ATTR_PD_QUERY_HANDLE, UVERBS_OBJECT_PD,
					    UVERBS_ACCESS_READ, UA_MANDATORY),
			    UVERBS_ATTR_PTR_OUT(RDMASIM_ATTR_PD_QUERY_PDN,
						UVERBS_ATTR_TYPE(u32), UA_MANDATORY));

ADD_UVERBS_METHODS(sim_pd_methods, UVERBS_OBJECT_PD,
		   &UVERBS_METHOD(RDMASIM_METHOD_PD_QUERY));

ADD_UVERBS_ATTRIBUTES_SIMPLE(sim_cq_create_attrs, UVERBS_OBJECT_CQ,
			     UVERBS_METHOD_CQ_CREATE,
			     UVERBS_ATTR_PTR_IN(RDMASIM_ATTR_CREATE_CQ_UAR_INDEX,
						UVERBS_ATTR_TYPE(u32),
						UA_OPTIONAL));

ADD_UVERBS_ATTRIBUTES_SIMPLE(sim_query_context_attrs, UVERBS_OBJECT_DEVICE,
			     UVERBS_METHOD_QUERY_CONTEXT,
			     UVERBS_ATTR_PTR_OUT(RDMASIM_ATTR_QUERY_CONTEXT_RESP,
						 UVERBS_ATTR_TYPE(struct rdmasim_query_ctx_resp),
						 UA_MANDATORY));

const struct uapi_definition sim_uapi_defs[] = {
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(RDMASIM_OBJECT_UAR),
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_PD, &sim_pd_methods),
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_CQ, &sim_cq_create_attrs),
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_DEVICE, &sim_query_context_attrs),
	{}
};

/*
 * The pdquery2 variant's ABI: PD_QUERY takes one more mandatory attribute,
 * added by a tree of its own, as drivers grow the methods they add to core
 * objects (ADD_UVERBS_ATTRIBUTES_SIMPLE(), which cannot be used twice on
 * one method in one file).  The handler is the same; it ignores the value.
 */
static const struct uverbs_attr_def *const sim_pd_query2_attrs[] = {
	UVERBS_ATTR_PTR_IN(RDMASIM_ATTR_PD_QUERY_FLAGS, UVERBS_ATTR_TYPE(u32),
			   UA_MANDATORY),
};

static const struct uverbs_method_def sim_pd_query2 = {
	.id = RDMASIM_METHOD_PD_QUERY,
	.num_attrs = ARRAY_SIZE(sim_pd_query2_attrs),
	.attrs = &sim_pd_query2_attrs,
};

static const struct uverbs_method_def *const sim_pd_query2_methods[] = {
	&sim_pd_query2,
};

static const struct uverbs_object_def sim_pd_query2_tree = {
	.id = UVERBS_OBJECT_PD,
	.num_methods = ARRAY_SIZE(sim_pd_query2_methods),
	.methods = &sim_pd_query2_methods,
};

const struct uapi_definition sim_uapi_defs_pdquery2[] = {
	UAPI_DEF_CHAIN(sim_uapi_defs),
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_PD, &sim_pd_query2_tree),
	{}
};
