/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * rdmasim user ABI: the driver data of its verbs and its driver-namespace
 * uverbs objects, shared by the module and selftests/progs/sim_raw.c.
 * Test-only: no compatibility is promised between two trees.
 */
#ifndef RDMASIM_ABI_H
#define RDMASIM_ABI_H

#include <linux/types.h>
#include <rdma/ib_user_ioctl_cmds.h>

/* Not a value of enum rdma_driver_id: no rdma-core provider claims it */
#define RDMASIM_DRIVER_ID	0x5e
#define RDMASIM_ABI_VERSION	1
#define RDMASIM_MAGIC		0x53494d31	/* "SIM1" */

/* Driver-namespace object, methods and attributes, modelled on mlx5's UAR */
enum rdmasim_objects {
	RDMASIM_OBJECT_UAR = (1U << UVERBS_ID_NS_SHIFT),
};

enum rdmasim_uar_methods {
	RDMASIM_METHOD_UAR_ALLOC = (1U << UVERBS_ID_NS_SHIFT),
	RDMASIM_METHOD_UAR_DESTROY,
	/* vrdma does not forward it: the refusal is what is tested */
	RDMASIM_METHOD_UAR_QUERY,
};

enum rdmasim_uar_query_attrs {
	RDMASIM_ATTR_UAR_QUERY_HANDLE = (1U << UVERBS_ID_NS_SHIFT),
	RDMASIM_ATTR_UAR_QUERY_PAGE_ID,		/* out u32 */
};

enum rdmasim_uar_alloc_attrs {
	RDMASIM_ATTR_UAR_ALLOC_HANDLE = (1U << UVERBS_ID_NS_SHIFT),
	RDMASIM_ATTR_UAR_ALLOC_PAGE_ID,		/* out u32 */
	RDMASIM_ATTR_UAR_ALLOC_MMAP_LENGTH,	/* out u32 */
	RDMASIM_ATTR_UAR_ALLOC_MMAP_OFFSET,	/* out u64 */
};

enum rdmasim_uar_destroy_attrs {
	RDMASIM_ATTR_UAR_DESTROY_HANDLE = (1U << UVERBS_ID_NS_SHIFT),
};

/* A method added to the core PD object, as MLX5_IB_METHOD_PD_QUERY is */
enum rdmasim_pd_methods {
	RDMASIM_METHOD_PD_QUERY = (1U << UVERBS_ID_NS_SHIFT),
};

enum rdmasim_pd_query_attrs {
	RDMASIM_ATTR_PD_QUERY_HANDLE = (1U << UVERBS_ID_NS_SHIFT),
	RDMASIM_ATTR_PD_QUERY_PDN,		/* out u32 */
};

/* query_device's driver response */
struct rdmasim_query_device_resp {
	__u32 magic;
	__u32 abi_version;
	__u32 max_uars;
	__u32 reserved;
};

struct rdmasim_alloc_pd_resp {
	__u32 pdn;
	__u32 reserved;
};

/*
 * create_cq: like mlx5, the CQ needs a doorbell page allocated before, named
 * by its page id.  The ring is the kernel's, mapped at mmap_offset.
 */
struct rdmasim_create_cq {
	__u32 uar_page_id;
	__u32 reserved;
};

struct rdmasim_create_cq_resp {
	__aligned_u64 ring_mmap_offset;
	__u32 ring_length;
	__u32 cqn;
	__u32 cqe_size;
	__u32 nr_cqe;
};

struct rdmasim_create_qp {
	__u32 uar_page_id;
	__u32 reserved;
};

struct rdmasim_create_qp_resp {
	__aligned_u64 sq_mmap_offset;
	__aligned_u64 rq_mmap_offset;
	__u32 sq_length;
	__u32 rq_length;
	__u32 wqe_size;
	__u32 reserved;
};

#endif /* RDMASIM_ABI_H */
