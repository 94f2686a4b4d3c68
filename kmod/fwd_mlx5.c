// SPDX-License-Identifier: GPL-2.0
/*
 * What vrdma forwards to mlx5_ib, declared from its uapi headers: the UAR
 * object (stock libmlx5 asks for dynamic UARs and allocates each CQ's
 * doorbell page with MLX5_IB_METHOD_UAR_OBJ_ALLOC) and PD_QUERY on the
 * core PD.  mlx5_ib's handlers (drivers/infiniband/hw/mlx5/main.c,
 * std_types.c) read the ucontext through ib_uverbs_get_ucontext(), the
 * PD through its handle, and insert mmap entries in the ucontext; nothing
 * else of the bundle.
 * Run by stock libmlx5 against rdmasim's mlx5 personality, which declares
 * them as mlx5_ib does (selftests/sim/sim_mlx5.sh); mlx5_ib's own handlers
 * are not run: there is no mlx5 hardware here.  DEVX, flow steering, DM,
 * VAR, QoS and the other mlx5 objects are not declared, so they are not
 * in a vdevice's uverbs tree, and a request for a DEVX context is
 * refused (vrdma_mlx5_check_uctx_req()).
 *
 * Its driver attributes on core methods, declared one per group so that
 * each is matched on its own (where the target's headers lack one,
 * compat.h names it VRDMA_ATTR_NONE and it never matches), reach mlx5 in
 * the caller's bundle (udata.c).  What mlx5_ib (cq.c, qp.c, srq.c, mr.c,
 * main.c) reads from the bundle: the UAR index of a CQ's doorbell
 * (libmlx5 with dynamic UARs passes it only so from 7.x; on 6.1 it is in
 * the driver data, MLX5_IB_CREATE_CQ_FLAGS_UAR_PAGE_INDEX), the doorbell
 * record as a UMEM (7.2), the DMA-BUF MR access flags (data
 * direct).  mlx5 reads them with uverbs_copy_from(), uverbs_get_flags32()
 * and ib_umem_get_attr_or_va(), which the lent bundle serves.  The same
 * goes for QUERY_CONTEXT's RESP_UCTX, which mlx5's query_ucontext fills
 * for the shadow ucontext (verbs_ctx.c) with what its alloc_ucontext
 * answered (ibv_import_device() reads it).
 */
#include <rdma/mlx5-abi.h>
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

ADD_UVERBS_ATTRIBUTES_SIMPLE(vrdma_mlx5_cq_uar_index, UVERBS_OBJECT_CQ,
			     UVERBS_METHOD_CQ_CREATE,
			     UVERBS_ATTR_PTR_IN(VRDMA_MLX5_ATTR_CQ_UAR_INDEX,
						UVERBS_ATTR_TYPE(u32),
						UA_OPTIONAL));

/*
 * A second group on CQ create, matched on its own (6.12 has the UAR index
 * but no doorbell UMEM): ADD_UVERBS_ATTRIBUTES_SIMPLE() names what it
 * defines after the method, so this one is spelled out.
 */
static const struct uverbs_attr_def *const vrdma_mlx5_cq_dbr_attrs[] = {
	VRDMA_ATTR_UMEM(VRDMA_MLX5_ATTR_CQ_DBR_BUF_UMEM, UA_OPTIONAL),
};

static const struct uverbs_method_def vrdma_mlx5_cq_dbr_method = {
	.id = UVERBS_METHOD_CQ_CREATE,
	.num_attrs = ARRAY_SIZE(vrdma_mlx5_cq_dbr_attrs),
	.attrs = &vrdma_mlx5_cq_dbr_attrs,
};

static const struct uverbs_method_def *const vrdma_mlx5_cq_dbr_methods[] = {
	&vrdma_mlx5_cq_dbr_method,
};

static const struct uverbs_object_def vrdma_mlx5_cq_dbr = {
	.id = UVERBS_OBJECT_CQ,
	.num_methods = ARRAY_SIZE(vrdma_mlx5_cq_dbr_methods),
	.methods = &vrdma_mlx5_cq_dbr_methods,
};

ADD_UVERBS_ATTRIBUTES_SIMPLE(vrdma_mlx5_qp_dbr, UVERBS_OBJECT_QP,
			     UVERBS_METHOD_QP_CREATE,
			     VRDMA_ATTR_UMEM(VRDMA_MLX5_ATTR_QP_DBR_BUF_UMEM,
					     UA_OPTIONAL));

ADD_UVERBS_ATTRIBUTES_SIMPLE(vrdma_mlx5_srq_dbr, UVERBS_OBJECT_SRQ,
			     UVERBS_METHOD_SRQ_CREATE,
			     VRDMA_ATTR_UMEM(VRDMA_MLX5_ATTR_SRQ_DBR_BUF_UMEM,
					     UA_OPTIONAL));

/* The flags' enum only names the type; its size is what is compared */
ADD_UVERBS_ATTRIBUTES_SIMPLE(vrdma_mlx5_dmabuf_mr, UVERBS_OBJECT_MR,
			     UVERBS_METHOD_REG_DMABUF_MR,
			     UVERBS_ATTR_FLAGS_IN(VRDMA_MLX5_ATTR_DMABUF_MR_FLAGS,
						  u32, UA_OPTIONAL));

/* RESP_UCTX's size, as mlx5_ib declares it */
#define VRDMA_MLX5_RESP_UCTX_SIZE \
	UVERBS_ATTR_STRUCT(struct mlx5_ib_alloc_ucontext_resp, dump_fill_mkey)

ADD_UVERBS_ATTRIBUTES_SIMPLE(vrdma_mlx5_query_context, UVERBS_OBJECT_DEVICE,
			     UVERBS_METHOD_QUERY_CONTEXT,
			     UVERBS_ATTR_PTR_OUT(MLX5_IB_ATTR_QUERY_CONTEXT_RESP_UCTX,
						 VRDMA_MLX5_RESP_UCTX_SIZE,
						 UA_MANDATORY));

static const struct uapi_definition vrdma_mlx5_attrs[] = {
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_CQ, &vrdma_mlx5_cq_uar_index),
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_CQ, &vrdma_mlx5_cq_dbr),
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_QP, &vrdma_mlx5_qp_dbr),
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_SRQ, &vrdma_mlx5_srq_dbr),
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_MR, &vrdma_mlx5_dmabuf_mr),
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_DEVICE, &vrdma_mlx5_query_context),
	{}
};

/*
 * libmlx5 asks for a DEVX context at every open, and opens without one
 * when refused (rdma-core 44, mlx5_alloc_context()).  Granted, it gives
 * the context a firmware uid under which DEVX commands run and the
 * context's objects are created.  No DEVX method is forwarded, so the
 * vdevice answers as mlx5_ib does on firmware without DEVX
 * (mlx5_ib_devx_create(): EINVAL), and the parent never sees the
 * request.  Refused rather than masked: the request is in user memory,
 * where vrdma cannot hand the parent an altered copy, and an explicit
 * mlx5dv_open_device(DEVX) must fail as it would on such a device, not
 * open a context that claims DEVX.  The parent reads the request again:
 * a thread rewriting it between the two reads is not stopped here.
 */
static int vrdma_mlx5_check_uctx_req(struct ib_device *ibdev,
				     struct ib_udata *udata)
{
	struct mlx5_ib_alloc_ucontext_req_v2 req = {};
	size_t len = offsetofend(typeof(req), flags);
	int ret;

	/* A v0 request (two counts) has no flags */
	if (udata->inlen < len)
		return 0;
	ret = ib_copy_from_udata(&req, udata, len);
	if (ret)
		return ret;
	if (req.flags & MLX5_IB_ALLOC_UCTX_DEVX) {
		ibdev_dbg(ibdev, "vrdma: no DEVX context through a vdevice\n");
		return -EINVAL;
	}
	return 0;
}

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
	.attrs = vrdma_mlx5_attrs,
	.check_uctx_req = vrdma_mlx5_check_uctx_req,
};
