// SPDX-License-Identifier: GPL-2.0
/*
 * What vrdma forwards to rdmasim, the selftests' simulated hardware parent
 * (selftests/rdmasim/): its UAR-like doorbell page object and its PD_QUERY
 * method on the core PD, declared with the attributes of its ABI header.
 * RDMASIM_METHOD_UAR_QUERY is left out on purpose: the selftests check
 * that a parent method vrdma does not declare never reaches the parent.
 * Its driver attribute on the core CQ create, the doorbell page's index
 * (as mlx5's MLX5_IB_ATTR_CREATE_CQ_UAR_INDEX), reaches it in the caller's
 * bundle (selftests/sim/sim_attrs.sh), and so does its attribute on the core
 * QUERY_CONTEXT (as mlx5's RESP_UCTX), which its query_ucontext fills.
 */
#include "vrdma.h"

#define UVERBS_MODULE_NAME vrdma_rdmasim
#include <rdma/uverbs_named_ioctl.h>

#include <rdma/rdmasim-abi.h>

static int vrdma_rdmasim_uar_destroy(struct ib_uobject *uobj,
				     enum rdma_remove_reason why,
				     struct uverbs_attr_bundle *attrs)
{
	return vrdma_fwd_destroy(uobj, why, attrs, RDMASIM_OBJECT_UAR);
}

static bool vrdma_rdmasim_uar_supported(struct ib_device *ibdev)
{
	return vrdma_fwd_type_supported(ibdev, RDMASIM_OBJECT_UAR);
}

static int UVERBS_HANDLER(RDMASIM_METHOD_UAR_ALLOC)(struct uverbs_attr_bundle *attrs)
{
	return vrdma_fwd_call(attrs, RDMASIM_OBJECT_UAR, RDMASIM_METHOD_UAR_ALLOC);
}

static int UVERBS_HANDLER(RDMASIM_METHOD_PD_QUERY)(struct uverbs_attr_bundle *attrs)
{
	return vrdma_fwd_call(attrs, UVERBS_OBJECT_PD, RDMASIM_METHOD_PD_QUERY);
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

DECLARE_UVERBS_NAMED_OBJECT(RDMASIM_OBJECT_UAR,
			    UVERBS_TYPE_ALLOC_IDR(vrdma_rdmasim_uar_destroy),
			    &UVERBS_METHOD(RDMASIM_METHOD_UAR_ALLOC),
			    &UVERBS_METHOD(RDMASIM_METHOD_UAR_DESTROY));

DECLARE_UVERBS_NAMED_METHOD(RDMASIM_METHOD_PD_QUERY,
			    UVERBS_ATTR_IDR(RDMASIM_ATTR_PD_QUERY_HANDLE, UVERBS_OBJECT_PD,
					    UVERBS_ACCESS_READ, UA_MANDATORY),
			    UVERBS_ATTR_PTR_OUT(RDMASIM_ATTR_PD_QUERY_PDN,
						UVERBS_ATTR_TYPE(u32), UA_MANDATORY));

ADD_UVERBS_METHODS(vrdma_rdmasim_pd, UVERBS_OBJECT_PD,
		   &UVERBS_METHOD(RDMASIM_METHOD_PD_QUERY));

ADD_UVERBS_ATTRIBUTES_SIMPLE(vrdma_rdmasim_cq_create, UVERBS_OBJECT_CQ,
			     UVERBS_METHOD_CQ_CREATE,
			     UVERBS_ATTR_PTR_IN(RDMASIM_ATTR_CREATE_CQ_UAR_INDEX,
						UVERBS_ATTR_TYPE(u32),
						UA_OPTIONAL));

ADD_UVERBS_ATTRIBUTES_SIMPLE(vrdma_rdmasim_query_context, UVERBS_OBJECT_DEVICE,
			     UVERBS_METHOD_QUERY_CONTEXT,
			     UVERBS_ATTR_PTR_OUT(RDMASIM_ATTR_QUERY_CONTEXT_RESP,
						 UVERBS_ATTR_TYPE(struct rdmasim_query_ctx_resp),
						 UA_MANDATORY));

static const struct uapi_definition vrdma_rdmasim_attrs[] = {
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_CQ, &vrdma_rdmasim_cq_create),
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_DEVICE, &vrdma_rdmasim_query_context),
	{}
};

static const struct uapi_definition vrdma_rdmasim_defs[] = {
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(RDMASIM_OBJECT_UAR,
				      UAPI_DEF_IS_OBJ_SUPPORTED(vrdma_rdmasim_uar_supported)),
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_PD, &vrdma_rdmasim_pd),
	{}
};

const struct vrdma_fwd_driver vrdma_fwd_rdmasim = {
	.driver_id = RDMASIM_DRIVER_ID,
	.name = "rdmasim",
	.defs = vrdma_rdmasim_defs,
	.attrs = vrdma_rdmasim_attrs,
};
