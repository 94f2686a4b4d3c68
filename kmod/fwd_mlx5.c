// SPDX-License-Identifier: GPL-2.0
/*
 * What vrdma forwards to mlx5_ib, declared from its uapi headers: the UAR
 * object (stock libmlx5 asks for dynamic UARs and allocates each CQ's
 * doorbell page with MLX5_IB_METHOD_UAR_OBJ_ALLOC) and PD_QUERY on the
 * core PD.  Reviewed against mlx5_ib's handlers in 6.1 and 6.12
 * (drivers/infiniband/hw/mlx5/main.c, std_types.c): they read the
 * ucontext through ib_uverbs_get_ucontext(), the PD through its handle,
 * and insert mmap entries in the ucontext; nothing else of the bundle.
 * Not tested: there is no mlx5 hardware here.  DEVX, flow steering, DM,
 * VAR, QoS and the other mlx5 objects are not declared, so they are not
 * in a vdevice's uverbs tree.
 */
#include <rdma/mlx5_user_ioctl_cmds.h>
#include <rdma/mlx5_user_ioctl_verbs.h>

#include "vrdma.h"

#define UVERBS_MODULE_NAME vrdma_mlx5
#include <rdma/uverbs_named_ioctl.h>

static int vrdma_mlx5_uar_destroy(struct ib_uobject *uobj,
				  enum rdma_remove_reason why,
				  struct uverbs_attr_bundle *attrs)
{
	return vrdma_fwd_destroy(uobj, why, attrs, MLX5_IB_OBJECT_UAR);
}

static bool vrdma_mlx5_uar_supported(struct ib_device *ibdev)
{
	return vrdma_fwd_type_supported(ibdev, MLX5_IB_OBJECT_UAR);
}

static int UVERBS_HANDLER(MLX5_IB_METHOD_UAR_OBJ_ALLOC)(struct uverbs_attr_bundle *attrs)
{
	return vrdma_fwd_call(attrs, MLX5_IB_OBJECT_UAR, MLX5_IB_METHOD_UAR_OBJ_ALLOC);
}

static int UVERBS_HANDLER(MLX5_IB_METHOD_PD_QUERY)(struct uverbs_attr_bundle *attrs)
{
	return vrdma_fwd_call(attrs, UVERBS_OBJECT_PD, MLX5_IB_METHOD_PD_QUERY);
}

DECLARE_UVERBS_NAMED_METHOD(MLX5_IB_METHOD_UAR_OBJ_ALLOC,
			    UVERBS_ATTR_IDR(MLX5_IB_ATTR_UAR_OBJ_ALLOC_HANDLE,
					    MLX5_IB_OBJECT_UAR,
					    UVERBS_ACCESS_NEW,
					    UA_MANDATORY),
			    UVERBS_ATTR_CONST_IN(MLX5_IB_ATTR_UAR_OBJ_ALLOC_TYPE,
						 enum mlx5_ib_uapi_uar_alloc_type,
						 UA_MANDATORY),
			    UVERBS_ATTR_PTR_OUT(MLX5_IB_ATTR_UAR_OBJ_ALLOC_PAGE_ID,
						UVERBS_ATTR_TYPE(u32),
						UA_MANDATORY),
			    UVERBS_ATTR_PTR_OUT(MLX5_IB_ATTR_UAR_OBJ_ALLOC_MMAP_LENGTH,
						UVERBS_ATTR_TYPE(u32),
						UA_MANDATORY),
			    UVERBS_ATTR_PTR_OUT(MLX5_IB_ATTR_UAR_OBJ_ALLOC_MMAP_OFFSET,
						UVERBS_ATTR_TYPE(u64),
						UA_MANDATORY));

DECLARE_UVERBS_NAMED_METHOD_DESTROY(MLX5_IB_METHOD_UAR_OBJ_DESTROY,
				    UVERBS_ATTR_IDR(MLX5_IB_ATTR_UAR_OBJ_DESTROY_HANDLE,
						    MLX5_IB_OBJECT_UAR,
						    UVERBS_ACCESS_DESTROY,
						    UA_MANDATORY));

DECLARE_UVERBS_NAMED_OBJECT(MLX5_IB_OBJECT_UAR,
			    UVERBS_TYPE_ALLOC_IDR(vrdma_mlx5_uar_destroy),
			    &UVERBS_METHOD(MLX5_IB_METHOD_UAR_OBJ_ALLOC),
			    &UVERBS_METHOD(MLX5_IB_METHOD_UAR_OBJ_DESTROY));

DECLARE_UVERBS_NAMED_METHOD(MLX5_IB_METHOD_PD_QUERY,
			    UVERBS_ATTR_IDR(MLX5_IB_ATTR_QUERY_PD_HANDLE,
					    UVERBS_OBJECT_PD,
					    UVERBS_ACCESS_READ,
					    UA_MANDATORY),
			    UVERBS_ATTR_PTR_OUT(MLX5_IB_ATTR_QUERY_PD_RESP_PDN,
						UVERBS_ATTR_TYPE(u32),
						UA_MANDATORY));

ADD_UVERBS_METHODS(vrdma_mlx5_pd, UVERBS_OBJECT_PD,
		   &UVERBS_METHOD(MLX5_IB_METHOD_PD_QUERY));

static const struct uapi_definition vrdma_mlx5_defs[] = {
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(MLX5_IB_OBJECT_UAR,
				      UAPI_DEF_IS_OBJ_SUPPORTED(vrdma_mlx5_uar_supported)),
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_PD, &vrdma_mlx5_pd),
	{}
};

const struct vrdma_fwd_driver vrdma_fwd_mlx5 = {
	.driver_id = RDMA_DRIVER_MLX5,
	.name = "mlx5",
	.defs = vrdma_mlx5_defs,
};
