/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * rdmasim user ABI: the driver data of its verbs and its driver-namespace
 * uverbs objects, shared by the module (selftests/rdmasim), the selftests'
 * programs and vrdma.ko, which forwards the driver-namespace methods
 * (kmod/fwd_rdmasim.c): hence here, beside vrdma's own ABI, and not in the
 * test tree.  Test-only: never installed, and no compatibility is promised
 * between two trees.
 */
#ifndef RDMASIM_ABI_H
#define RDMASIM_ABI_H

#include <linux/types.h>
#include <rdma/ib_user_ioctl_cmds.h>

/* Not a value of enum rdma_driver_id: no rdma-core provider claims it */
#define RDMASIM_DRIVER_ID	0x5e
#define RDMASIM_ABI_VERSION	1
#define RDMASIM_MAGIC		0x53494d31	/* "SIM1" */

/*
 * The rawmap variant's context page: one page per context, mapped at this
 * offset with remap_pfn_range(), which the core does not track.  Far above
 * the offsets the core hands out for mmap entries.
 */
#define RDMASIM_MMAP_CTX_PAGE_PGOFF	0x10000000UL

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
	RDMASIM_ATTR_PD_QUERY_FLAGS,		/* in u32, pdquery2 variant */
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

/*
 * A driver attribute on the core UVERBS_METHOD_CQ_CREATE, as mlx5's
 * MLX5_IB_ATTR_CREATE_CQ_UAR_INDEX (7.x): the doorbell page's id, which
 * then takes precedence over uar_page_id above.  Driver attributes of a
 * core method with driver data come after UVERBS_ATTR_UHW_IN and _OUT.
 */
enum rdmasim_create_cq_attrs {
	RDMASIM_ATTR_CREATE_CQ_UAR_INDEX = UVERBS_ATTR_UHW_OUT + 1,	/* in u32 */
};

/*
 * A driver attribute on the core UVERBS_METHOD_QUERY_CONTEXT, as mlx5's
 * MLX5_IB_ATTR_QUERY_CONTEXT_RESP_UCTX: what rdmasim's query_ucontext
 * knows of the context the file opened.
 */
enum rdmasim_query_context_attrs {
	RDMASIM_ATTR_QUERY_CONTEXT_RESP = (1U << UVERBS_ID_NS_SHIFT),
};

struct rdmasim_query_ctx_resp {
	__u32 magic;			/* RDMASIM_MAGIC */
	__u32 nr_uars;			/* the context's live UAR objects */
};

/* flags of struct rdmasim_create_cq_resp */
#define RDMASIM_CQ_RESP_UAR_FROM_ATTR	0x1	/* RDMASIM_ATTR_CREATE_CQ_UAR_INDEX */
#define RDMASIM_CQ_RESP_UMEM_KNOWN	0x2	/* the kernel has UVERBS_ATTR_CREATE_CQ_BUF_UMEM */

/*
 * buf_length and buf_head: what rdmasim pinned of the CQ buffer the
 * caller passed as UVERBS_ATTR_CREATE_CQ_BUF_UMEM (or the legacy CQ
 * buffer attributes), its length and first bytes read through the umem;
 * 0 when none came.  The CQEs stay in the kernel's ring: only reported.
 */
struct rdmasim_create_cq_resp {
	__aligned_u64 ring_mmap_offset;
	__u32 ring_length;
	__u32 cqn;
	__u32 cqe_size;
	__u32 nr_cqe;
	__u32 uar_page_id;		/* the doorbell page the CQ uses */
	__u32 flags;			/* RDMASIM_CQ_RESP_* */
	__aligned_u64 buf_length;
	__u8 buf_head[8];
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

/*
 * The data path (datapath.c).  A work queue ring (SQ or RQ) holds the
 * max_send_wr (max_recv_wr) entries create_qp returned, wqe_size bytes
 * each, then a doorbell record: user space writes a WQE, then the record's
 * producer index (free-running, release order); the simulated hardware
 * polls the record, executes the WQE and writes the consumer index.  A CQ
 * ring holds nr_cqe entries of cqe_size bytes, then the user's consumer
 * index.  A CQE is valid when its gen is (index / nr_cqe) + 1, written
 * last.  The indices are free-running and survive modify_qp (unlike a
 * real HCA's, a reset does not empty the queues).
 */
enum rdmasim_wqe_opcode {
	RDMASIM_OP_SEND = 1,
	RDMASIM_OP_RDMA_WRITE,
	RDMASIM_OP_RDMA_READ,
	RDMASIM_OP_RECV,		/* in CQEs only */
};

#define RDMASIM_WQE_SIGNALED	0x1	/* a CQE even on success (SQ) */
#define RDMASIM_WQE_MAX_SGE	2

struct rdmasim_sge {
	__aligned_u64 addr;
	__u32 length;
	__u32 lkey;
};

struct rdmasim_wqe {
	__aligned_u64 wr_id;
	__u8 opcode;
	__u8 flags;
	__u8 num_sge;
	__u8 reserved0;
	__u32 reserved1;
	__aligned_u64 remote_addr;	/* RDMA WRITE and READ */
	__u32 rkey;
	__u32 reserved2;
	struct rdmasim_sge sge[RDMASIM_WQE_MAX_SGE];
};

struct rdmasim_wq_db {
	__u32 pi;			/* written by user space */
	__u32 ci;			/* written by the device */
};

enum rdmasim_wc_status {
	RDMASIM_WC_SUCCESS,
	RDMASIM_WC_LOC_LEN_ERR,		/* the receive buffers are too short */
	RDMASIM_WC_LOC_PROT_ERR,	/* bad lkey, bounds, PD or access */
	RDMASIM_WC_REM_ACCESS_ERR,	/* bad rkey, bounds, PD or access */
	RDMASIM_WC_REM_INV_REQ_ERR,	/* the peer's receive failed */
	RDMASIM_WC_RETRY_EXC_ERR,	/* no peer QP ready with that number */
	RDMASIM_WC_BAD_WQE,		/* unknown opcode, too many SGEs */
	RDMASIM_WC_WR_FLUSH_ERR,	/* the QP was in error */
};

struct rdmasim_cqe {
	__aligned_u64 wr_id;
	__u32 byte_len;
	__u32 qpn;
	__u8 opcode;			/* enum rdmasim_wqe_opcode */
	__u8 status;			/* enum rdmasim_wc_status */
	__u16 reserved0;
	__u32 gen;			/* written last */
	__aligned_u64 reserved1;
};

struct rdmasim_cq_db {
	__u32 ci;			/* written by user space */
	__u32 reserved;
};

#endif /* RDMASIM_ABI_H */
