// SPDX-License-Identifier: GPL-2.0
/*
 * rdmasim's mlx5 personality: a sim device that speaks mlx5's user ABI
 * (include/uapi/rdma/mlx5-abi.h, mlx5_user_ioctl_*.h) well enough that
 * stock, unmodified libmlx5 binds to it and opens it, so that vrdma's
 * mlx5 path (kmod/fwd_mlx5.c) runs with no ConnectX here.
 * "echo mlx5 > /sys/module/rdmasim/parameters/variant" before
 * "rdma link add" makes one; with the parameter mlx5_ids set as well it
 * reports Mellanox's vendor id and ConnectX-5's part id, else rdmasim's.
 *
 * What it answers as mlx5_ib (6.1) does for a device without DEVX, with
 * write-combining (as a ConnectX in an x86 host), on the objects and
 * strict checks of the generic files:
 *
 *  - driver id RDMA_DRIVER_MLX5, uverbs ABI version 1: libibverbs binds
 *    libmlx5 by the driver id alone;
 *  - alloc_ucontext: mlx5's request (v0 or v2) and response.  A request
 *    for a DEVX context is refused with EINVAL, as mlx5_ib refuses it
 *    when the firmware has no user contexts, and counted (debugfs
 *    rdmasim/mlx5, "devx_asked"); libmlx5 then asks again without it.
 *    Only dynamic UARs (MLX5_LIB_CAP_DYN_UAR, which libmlx5 has asked
 *    for since rdma-core 29) are modelled: tot_bfregs is 0 and a
 *    request without the capability is refused;
 *  - the UAR object (MLX5_IB_METHOD_UAR_OBJ_ALLOC/DESTROY): NC pages,
 *    mapped as ever (cached: the double never reads them), and BlueFlame
 *    pages, mapped write-combining as mlx5_ib maps them
 *    (MLX5_IB_MMAP_TYPE_UAR_WC), both at offsets in mlx5's encoding
 *    (command byte and extended index, mlx5_ib_mmap()); counted
 *    ("wc_uars", "wc_mmaps").  bf_reg_size stays 0, so libmlx5 rings
 *    every QP's doorbell on the NC UAR and never copies a WQE into a
 *    BlueFlame register; the hardware reads doorbell records, never a
 *    UAR page, either way.  The legacy mmap commands answer as mlx5_ib
 *    does on a dynamic-UAR context;
 *  - alloc_pd with mlx5's response (pdn), MLX5_IB_METHOD_PD_QUERY;
 *  - query_device with mlx5's driver response (every capability 0) and
 *    the RC atomics (IB_ATOMIC_HCA), and
 *    QUERY_CONTEXT's MLX5_IB_ATTR_QUERY_CONTEXT_RESP_UCTX;
 *  - create_cq with mlx5's driver data: the CQE buffer (64 or 128-byte
 *    CQEs) pinned for write, the doorbell (UAR) page named by its index,
 *    which must be one of the context's, and the CQ number in the
 *    response.  The CQ's size is entries - 1 exactly, entries being a
 *    power of two.  Unlike mlx5_ib it pins the doorbell record's page for
 *    write too: its hardware marks the arm record (mlx5_wqe.c);
 *  - create_ah with mlx5's response (the destination MAC);
 *  - QPs (RC, UC, UD) with mlx5's driver data: mlx5_qp.c;
 *  - basic SRQs with mlx5's driver data: mlx5_srq.c;
 *  - the hardware that runs them, writes CQEs and raises completion
 *    events: mlx5_wqe.c.
 *
 * Not modelled yet: XRC, atomics, memory windows.
 */
#include <linux/debugfs.h>
#include <linux/mm.h>
#include <linux/seq_file.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>
#include <rdma/mlx5-abi.h>
#include <rdma/mlx5_user_ioctl_cmds.h>
#include <rdma/mlx5_user_ioctl_verbs.h>

#include "sim.h"
#include "sim-mlx5.h"

#define UVERBS_MODULE_NAME rdmasim_mlx5
#include <rdma/uverbs_named_ioctl.h>

/*
 * mlx5_ib's mmap offset encoding (drivers/infiniband/hw/mlx5/mlx5_ib.h,
 * not uapi): page offset bits 8-15 are a command; commands from
 * SIM_MLX5_MMAP_OFFSET_START name an mmap entry, whose index is bits 0-7
 * and 16-23.  The entry's own page offset in the context is
 * command << 16 | index.
 */
#define SIM_MLX5_MMAP_OFFSET_START	9
#define SIM_MLX5_MMAP_OFFSET_END	255
#define SIM_MLX5_MMAP_CMD_SHIFT		8
#define SIM_MLX5_MMAP_CMD_MASK		0xff
#define SIM_MLX5_ENTRY_MIN	(SIM_MLX5_MMAP_OFFSET_START << 16)
#define SIM_MLX5_ENTRY_MAX	((SIM_MLX5_MMAP_OFFSET_END << 16) + 0xffff)

/* The log2 of a UAR's size libmlx5 is told: 4 KiB, as uar_4k hardware */
#define SIM_MLX5_LOG_UAR_SIZE	12
/* The firmware version query_device reports: major 1, minor 0, sub 1 */
#define SIM_MLX5_FW_VER		((1ULL << 32) | 1)
/* Non-fast-path BlueFlame registers per UAR (include/linux/mlx5/device.h) */
#define SIM_MLX5_NON_FP_BFREGS_PER_UAR	2
/* With mlx5_ids: Mellanox's PCI vendor id and ConnectX-5's device id */
#define SIM_MLX5_MELLANOX_VENDOR_ID	0x02c9
#define SIM_MLX5_CX5_PART_ID		0x1017

/*
 * Whether the next mlx5 device answers query_device with Mellanox's vendor
 * id and a ConnectX part id, as mlx5_ib does from the PCI function.  Off,
 * it keeps rdmasim's own, so that nothing that keys on the ids (pyverbs'
 * mlx5-only tests, is_mlx5_dev()) takes the double for a ConnectX unless a
 * test asks.  Read at "rdma link add", as the variant.
 */
static bool mlx5_ids;
module_param(mlx5_ids, bool, 0644);
MODULE_PARM_DESC(mlx5_ids,
		 "the next mlx5 device reports Mellanox's vendor id and a ConnectX-5 part id (default: rdmasim's own)");

/* What debugfs rdmasim/mlx5 counts since the module loaded; atomic */
static atomic_long_t sim_mlx5_devx_asked;	/* DEVX requests, refused */
static atomic_long_t sim_mlx5_uctx_opened;	/* contexts opened */
static atomic_long_t sim_mlx5_wc_uars;		/* BlueFlame UARs allocated */
static atomic_long_t sim_mlx5_wc_mmaps;		/* mapped write-combining */

/* --- ucontext ----------------------------------------------------------- */

/* What alloc_ucontext and QUERY_CONTEXT answer for @uctx */
static void sim_mlx5_uctx_resp(struct sim_ucontext *uctx,
			       struct mlx5_ib_alloc_ucontext_resp *resp)
{
	memset(resp, 0, sizeof(*resp));
	resp->qp_tab_size = SIM_MAX_QP;
	/*
	 * bf_reg_size 0: libmlx5 gives every QP the NC UAR and posts without
	 * BlueFlame copies (mlx5_get_qp_uar()); BlueFlame UARs are still
	 * allocated on request (MLX5_IB_METHOD_UAR_OBJ_ALLOC)
	 */
	resp->bf_reg_size = 0;
	/* Dynamic UARs only: no static UAR is mapped at open */
	resp->tot_bfregs = 0;
	resp->cache_line_size = cache_line_size();
	resp->max_sq_desc_sz = SIM_MLX5_MAX_DESC_SZ;
	resp->max_rq_desc_sz = SIM_MLX5_MAX_DESC_SZ;
	/* libmlx5 counts WQEs in 16 bits: at most 2^15 */
	resp->max_send_wqebb = SIM_MAX_ENTRIES;
	resp->max_recv_wr = SIM_MAX_ENTRIES;
	resp->max_srq_recv_wr = SIM_MAX_ENTRIES;
	resp->num_ports = 1;
	resp->cqe_version = uctx->cqe_version;
	resp->cmds_supp_uhw = MLX5_USER_CMDS_SUPP_UHW_QUERY_DEVICE |
			      MLX5_USER_CMDS_SUPP_UHW_CREATE_AH;
	/* RoCE, and no minimum inline header */
	resp->eth_min_inline = MLX5_USER_INLINE_MODE_NONE;
	/* No clock page, no dump-and-fill mkey: comp_mask 0 */
	resp->log_uar_size = SIM_MLX5_LOG_UAR_SIZE;
	resp->num_uars_per_page = 1;
}

static int sim_mlx5_alloc_ucontext(struct ib_ucontext *ibuc,
				   struct ib_udata *udata)
{
	struct mlx5_ib_alloc_ucontext_req_v2 req = {};
	struct mlx5_ib_alloc_ucontext_resp resp;
	size_t min_v2 = offsetof(typeof(req), max_cqe_version);
	struct sim_ucontext *uctx = to_suctx(ibuc);
	int ret;

	/* mlx5_ib_alloc_ucontext()'s checks, in its order */
	if (udata->inlen != sizeof(struct mlx5_ib_alloc_ucontext_req) &&
	    udata->inlen < min_v2)
		return -EINVAL;
	ret = ib_copy_from_udata(&req, udata, min(udata->inlen, sizeof(req)));
	if (ret)
		return ret;
	if (req.flags & MLX5_IB_ALLOC_UCTX_DEVX)
		atomic_long_inc(&sim_mlx5_devx_asked);
	if (req.flags & ~MLX5_IB_ALLOC_UCTX_DEVX)
		return -EOPNOTSUPP;
	if (req.comp_mask || req.reserved0 || req.reserved1 || req.reserved2)
		return -EOPNOTSUPP;
	if (req.num_low_latency_bfregs >
	    ALIGN(req.total_num_bfregs, SIM_MLX5_NON_FP_BFREGS_PER_UAR) - 1)
		return -EINVAL;
	/* As mlx5_ib_devx_create() on firmware without user contexts */
	if (req.flags & MLX5_IB_ALLOC_UCTX_DEVX)
		return -EINVAL;
	if (!(req.lib_caps & MLX5_LIB_CAP_DYN_UAR)) {
		dev_dbg(&ibuc->device->dev,
			"rdmasim: mlx5: static UARs are not modelled: a context needs MLX5_LIB_CAP_DYN_UAR\n");
		return -EOPNOTSUPP;
	}

	ret = sim_alloc_ucontext(ibuc, udata);
	if (ret)
		return ret;
	uctx->cqe_version = min_t(u8, 1, req.max_cqe_version);
	sim_mlx5_uctx_resp(uctx, &resp);
	resp.response_length = min(udata->outlen, sizeof(resp));
	ret = ib_copy_to_udata(udata, &resp, resp.response_length);
	if (ret) {
		sim_dealloc_ucontext(ibuc);
		return ret;
	}
	atomic_long_inc(&sim_mlx5_uctx_opened);
	return 0;
}

/* QUERY_CONTEXT's RESP_UCTX: what alloc_ucontext answered (import) */
static int sim_mlx5_query_ucontext(struct ib_ucontext *ibuc,
				   struct uverbs_attr_bundle *attrs)
{
	struct mlx5_ib_alloc_ucontext_resp resp;
	int ret;

	ret = sim_query_ucontext_check(ibuc, attrs);
	if (ret)
		return ret;
	sim_mlx5_uctx_resp(to_suctx(ibuc), &resp);
	resp.response_length =
		min_t(size_t,
		      uverbs_attr_get_len(attrs,
					  MLX5_IB_ATTR_QUERY_CONTEXT_RESP_UCTX),
		      sizeof(resp));
	return uverbs_copy_to_struct_or_zero(attrs,
					     MLX5_IB_ATTR_QUERY_CONTEXT_RESP_UCTX,
					     &resp, sizeof(resp));
}

/* --- mmap --------------------------------------------------------------- */

/* The offset user space maps an entry at, in mlx5's encoding */
static u64 sim_mlx5_mmap_offset(struct sim_mmap *m)
{
	u64 cmd = (m->rdma_entry.start_pgoff >> 16) & 0xffff;
	u64 index = m->rdma_entry.start_pgoff & 0xffff;

	return (((index >> 8) << 16) | (cmd << SIM_MLX5_MMAP_CMD_SHIFT) |
		(index & 0xff)) << PAGE_SHIFT;
}

static int sim_mlx5_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma)
{
	unsigned long cmd, pgoff;
	struct rdma_user_mmap_entry *entry;
	struct sim_mmap *m;
	pgprot_t prot;
	int ret;

	cmd = (vma->vm_pgoff >> SIM_MLX5_MMAP_CMD_SHIFT) &
	      SIM_MLX5_MMAP_CMD_MASK;
	switch (cmd) {
	case MLX5_IB_MMAP_WC_PAGE:
	case MLX5_IB_MMAP_ALLOC_WC:
	case MLX5_IB_MMAP_REGULAR_PAGE:
	case MLX5_IB_MMAP_NC_PAGE:
		/*
		 * Legacy UAR pages: a dynamic-UAR context has none (with
		 * write-combining mlx5_ib's uar_mmap() says so for all four)
		 */
		return -EINVAL;
	case MLX5_IB_MMAP_GET_CONTIGUOUS_PAGES:
	case MLX5_IB_MMAP_CORE_CLOCK:
	case MLX5_IB_MMAP_CLOCK_INFO:
		/* Not advertised in the context's response */
		return -EOPNOTSUPP;
	}
	pgoff = cmd << 16 | (vma->vm_pgoff & 0xff) |
		((vma->vm_pgoff >> 16) & 0xff) << 8;
	entry = rdma_user_mmap_entry_get_pgoff(ibuc, pgoff);
	if (!entry)
		return -EINVAL;
	m = to_smmap(entry);
	/* As mlx5_ib maps a BlueFlame UAR; the rest is the CPU's memory */
	prot = vma->vm_page_prot;
	if (m->type == SIM_MMAP_UAR_WC)
		prot = pgprot_writecombine(prot);
	ret = rdma_user_mmap_io(ibuc, vma, PHYS_PFN(virt_to_phys(m->buf)),
				entry->npages * PAGE_SIZE, prot, entry);
	if (!ret && m->type == SIM_MMAP_UAR_WC)
		atomic_long_inc(&sim_mlx5_wc_mmaps);
	rdma_user_mmap_entry_put(entry);
	return ret;
}

/* --- device, PD --------------------------------------------------------- */

/* The whole fields of mlx5's query_device response after the header */
static const size_t sim_mlx5_qd_ends[] = {
	offsetofend(struct mlx5_ib_query_device_resp, tso_caps),
	offsetofend(struct mlx5_ib_query_device_resp, rss_caps),
	offsetofend(struct mlx5_ib_query_device_resp, cqe_comp_caps),
	offsetofend(struct mlx5_ib_query_device_resp, packet_pacing_caps),
	offsetofend(struct mlx5_ib_query_device_resp,
		    mlx5_ib_support_multi_pkt_send_wqes),
	offsetofend(struct mlx5_ib_query_device_resp, flags),
	offsetofend(struct mlx5_ib_query_device_resp, sw_parsing_caps),
	offsetofend(struct mlx5_ib_query_device_resp, striding_rq_caps),
	offsetofend(struct mlx5_ib_query_device_resp, tunnel_offloads_caps),
	offsetofend(struct mlx5_ib_query_device_resp, dci_streams_caps),
};

static int sim_mlx5_query_device(struct ib_device *ibdev,
				 struct ib_device_attr *attr,
				 struct ib_udata *uhw)
{
	struct mlx5_ib_query_device_resp resp = {};
	size_t outlen = uhw ? uhw->outlen : 0;
	unsigned int i;
	int ret;

	/* As mlx5_ib_query_device(): a header, then every field that fits */
	resp.response_length = offsetofend(typeof(resp), response_length);
	if (outlen && outlen < resp.response_length)
		return -EINVAL;
	if (uhw && uhw->inlen && !ib_is_udata_cleared(uhw, 0, uhw->inlen))
		return -EINVAL;
	ret = sim_query_device(ibdev, attr, NULL);
	if (ret)
		return ret;
	/* mlx5's encoding: major, minor, sub-minor (libmlx5 prints it) */
	attr->fw_ver = SIM_MLX5_FW_VER;
	if (to_sdev(ibdev)->mlx5_ids) {
		attr->vendor_id = SIM_MLX5_MELLANOX_VENDOR_ID;
		attr->vendor_part_id = SIM_MLX5_CX5_PART_ID;
	}
	/*
	 * Compare and swap and fetch and add on RC, atomic among the
	 * device's own accesses (mlx5_wqe.c), as mlx5_ib says IB_ATOMIC_HCA
	 * when the firmware replies in host order; 16 outstanding READs and
	 * atomics each way (sim_query_device())
	 */
	attr->atomic_cap = IB_ATOMIC_HCA;
	/* AHs are not a resource of the hardware: as many as mlx5_ib says */
	attr->max_ah = INT_MAX;
	/* A CQ holds a power of two of entries, one fewer usable */
	attr->max_cqe = SIM_MAX_ENTRIES - 1;
	/* Basic SRQs (mlx5_srq.c): WQEs and scatter entries as mlx5_ib */
	attr->max_srq = SIM_MAX_QP;
	attr->max_srq_wr = SIM_MAX_ENTRIES - 1;
	attr->max_srq_sge = SIM_MLX5_MAX_DESC_SZ /
			    sizeof(struct sim_mlx5_data_seg) - 1;
	if (!outlen)
		return 0;
	for (i = 0; i < ARRAY_SIZE(sim_mlx5_qd_ends); i++)
		if (sim_mlx5_qd_ends[i] <= outlen)
			resp.response_length = sim_mlx5_qd_ends[i];
	return ib_copy_to_udata(uhw, &resp, resp.response_length);
}

static int sim_mlx5_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct mlx5_ib_alloc_pd_resp resp = {};

	return sim_pd_alloc(ibpd, udata, &resp, &resp.pdn, sizeof(resp));
}

/* --- AH --------------------------------------------------------------- */

/*
 * As mlx5_ib_create_ah(): RoCE needs a GRH; a user AH gets the
 * destination MAC the core resolved (libmlx5 builds the address vector
 * itself, cmds_supp_uhw CREATE_AH).  The hardware never reads the AH: a
 * UD WQE carries its own copy.
 */
static int sim_mlx5_create_ah(struct ib_ah *ibah,
			      struct rdma_ah_init_attr *init_attr,
			      struct ib_udata *udata)
{
	struct rdma_ah_attr *ah_attr = init_attr->ah_attr;
	struct mlx5_ib_create_ah_resp resp = {};
	u32 min_len = offsetofend(struct mlx5_ib_create_ah_resp, dmac);
	int ret;

	if (ah_attr->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    !(rdma_ah_get_ah_flags(ah_attr) & IB_AH_GRH))
		return -EINVAL;
	if (udata) {
		if (udata->outlen < min_len)
			return -EINVAL;
		resp.response_length = min_len;
		memcpy(resp.dmac, ah_attr->roce.dmac, ETH_ALEN);
		ret = ib_copy_to_udata(udata, &resp, resp.response_length);
		if (ret)
			return ret;
	}
	atomic_long_inc(&sim_count[SIM_K_AH]);
	return 0;
}

static int sim_mlx5_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	atomic_long_dec(&sim_count[SIM_K_AH]);
	return 0;
}

/* --- CQ ----------------------------------------------------------------- */

/* What mlx5_ib_create_cq() and create_cq_user() check, in their order */
static int sim_mlx5_create_cq_udata(struct ib_cq *ibcq,
				    const struct ib_cq_init_attr *attr,
				    struct ib_udata *udata)
{
	struct sim_dev *sdev = to_sdev(ibcq->device);
	struct sim_cq *cq = to_scq(ibcq);
	struct mlx5_ib_create_cq ucmd = {};
	struct sim_ucontext *uctx;
	size_t ucmdlen;
	u32 entries;
	int ret;

	if (!udata)
		return sim_create_cq_udata(ibcq, attr, NULL);
	if (attr->cqe > SIM_MAX_ENTRIES)
		return -EINVAL;
	if (attr->flags & ~(IB_UVERBS_CQ_FLAGS_IGNORE_OVERRUN |
			    IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION))
		return -EOPNOTSUPP;
	entries = roundup_pow_of_two(attr->cqe + 1);
	if (entries > SIM_MAX_ENTRIES)
		return -EINVAL;

	sim_check_user("create_cq", ibcq->uobject, &ibcq->res);
	/* ib_ucq_object is the core's own: the CQ's ucontext is not ours */
	uctx = sim_udata_uctx(sdev, udata, NULL, "create_cq");
	if (IS_ERR(uctx))
		return PTR_ERR(uctx);
	ucmdlen = min(udata->inlen, sizeof(ucmd));
	if (ucmdlen < offsetof(struct mlx5_ib_create_cq, flags))
		return -EINVAL;
	if (ib_copy_from_udata(&ucmd, udata, ucmdlen))
		return -EFAULT;
	if (ucmd.flags & ~(MLX5_IB_CREATE_CQ_FLAGS_CQE_128B_PAD |
			   MLX5_IB_CREATE_CQ_FLAGS_UAR_PAGE_INDEX |
			   MLX5_IB_CREATE_CQ_FLAGS_REAL_TIME_TS))
		return -EINVAL;
	if ((ucmd.cqe_size != 64 && ucmd.cqe_size != 128) ||
	    ucmd.reserved0 || ucmd.reserved1)
		return -EINVAL;
	/* A dynamic-UAR context must name the doorbell page */
	if (!(ucmd.flags & MLX5_IB_CREATE_CQ_FLAGS_UAR_PAGE_INDEX))
		return -EINVAL;
	/* CQE compression and padding: capabilities it does not have */
	if (ucmd.cqe_comp_en || (ucmd.flags & MLX5_IB_CREATE_CQ_FLAGS_CQE_128B_PAD))
		return -EOPNOTSUPP;

	cq->created_user = true;
	cq->cqn = atomic_inc_return(&sdev->next_cqn);
	cq->kbuf = sim_kbuf_alloc(true);
	if (!cq->kbuf)
		return -ENOMEM;
	ret = sim_mlx5_queue_get(&cq->mlx5_q, ibcq->device, ucmd.buf_addr,
				 (size_t)entries * ucmd.cqe_size,
				 IB_ACCESS_LOCAL_WRITE, ucmd.db_addr,
				 IB_ACCESS_LOCAL_WRITE);
	if (ret)
		goto err_free_kbuf;
	/* The firmware refuses a UAR that is not the context's */
	cq->uar = sim_uar_get(uctx, ucmd.uar_page_index);
	if (!cq->uar) {
		ret = -EINVAL;
		goto err_put_queue;
	}
	/* mlx5_ib answers with the CQ number alone */
	ret = ib_copy_to_udata(udata, &cq->cqn, sizeof(u32));
	if (ret)
		goto err_put_uar;
	ibcq->cqe = entries - 1;
	cq->mlx5_hw = sim_mlx5_hcq_new(ibcq, &cq->mlx5_q, entries,
				       ucmd.cqe_size);
	if (IS_ERR(cq->mlx5_hw)) {
		ret = PTR_ERR(cq->mlx5_hw);
		cq->mlx5_hw = NULL;
		goto err_put_uar;
	}
	atomic_long_inc(&sim_count[SIM_K_CQ]);
	return 0;

err_put_uar:
	rdma_user_mmap_entry_put(cq->uar);
	cq->uar = NULL;
err_put_queue:
	sim_mlx5_queue_put(&cq->mlx5_q);
err_free_kbuf:
	kfree(cq->kbuf);
	cq->kbuf = NULL;
	return ret;
}

/*
 * Where the kernel splits them (SIM_USER_CQ_SPLIT) user CQs only, and
 * kernel CQs take sim_dev_ops' create_cq; else every CQ
 */
static int __maybe_unused
sim_mlx5_create_user_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
			struct uverbs_attr_bundle *attrs)
{
	if (!attrs) {
		sim_strict("create_user_cq: called without a bundle");
		return -EINVAL;
	}
	return sim_mlx5_create_cq_udata(ibcq, attr, &attrs->driver_udata);
}

static int __maybe_unused
sim_mlx5_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		   struct sim_create_cq_arg *arg)
{
	return sim_mlx5_create_cq_udata(ibcq, attr, sim_cq_udata(arg));
}

static int sim_mlx5_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct sim_cq *cq = to_scq(ibcq);

	/* First: the hardware stops writing CQEs */
	if (cq->mlx5_hw)
		sim_mlx5_hcq_del(cq->mlx5_hw);
	cq->mlx5_hw = NULL;
	sim_mlx5_queue_put(&cq->mlx5_q);
	return sim_destroy_cq(ibcq, udata);
}

/* --- driver uverbs objects and methods ----------------------------------- */

static int UVERBS_HANDLER(MLX5_IB_METHOD_UAR_OBJ_ALLOC)(struct uverbs_attr_bundle *attrs)
{
	struct ib_uobject *uobj =
		uverbs_attr_get_uobject(attrs, MLX5_IB_ATTR_UAR_OBJ_ALLOC_HANDLE);
	enum mlx5_ib_uapi_uar_alloc_type alloc_type;
	enum sim_mmap_type type;
	struct sim_mmap *m;
	int ret;

	ret = uverbs_get_const(&alloc_type, attrs,
			       MLX5_IB_ATTR_UAR_OBJ_ALLOC_TYPE);
	if (ret)
		return ret;
	/* A device with write-combining: mlx5_ib grants both types */
	switch (alloc_type) {
	case MLX5_IB_UAPI_UAR_ALLOC_TYPE_BF:
		type = SIM_MMAP_UAR_WC;
		break;
	case MLX5_IB_UAPI_UAR_ALLOC_TYPE_NC:
		type = SIM_MMAP_UAR;
		break;
	default:
		return -EOPNOTSUPP;
	}
	m = sim_uar_new(attrs, uobj, "UAR_OBJ_ALLOC", type, SIM_MLX5_ENTRY_MIN,
			SIM_MLX5_ENTRY_MAX);
	if (IS_ERR(m))
		return PTR_ERR(m);
	uobj->object = m;
	uverbs_finalize_uobj_create(attrs, MLX5_IB_ATTR_UAR_OBJ_ALLOC_HANDLE);
	atomic_long_inc(&sim_count[SIM_K_UAR]);
	if (type == SIM_MMAP_UAR_WC)
		atomic_long_inc(&sim_mlx5_wc_uars);

	return sim_uar_reply(attrs, m, sim_mlx5_mmap_offset(m),
			     MLX5_IB_ATTR_UAR_OBJ_ALLOC_MMAP_OFFSET,
			     MLX5_IB_ATTR_UAR_OBJ_ALLOC_PAGE_ID,
			     MLX5_IB_ATTR_UAR_OBJ_ALLOC_MMAP_LENGTH);
}

/* Declared exactly as mlx5_ib declares them: vrdma matches the specs */
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
			    UVERBS_TYPE_ALLOC_IDR(sim_uar_cleanup),
			    &UVERBS_METHOD(MLX5_IB_METHOD_UAR_OBJ_ALLOC),
			    &UVERBS_METHOD(MLX5_IB_METHOD_UAR_OBJ_DESTROY));

static int UVERBS_HANDLER(MLX5_IB_METHOD_PD_QUERY)(struct uverbs_attr_bundle *attrs)
{
	return sim_pd_query(attrs, MLX5_IB_ATTR_QUERY_PD_HANDLE,
			    MLX5_IB_ATTR_QUERY_PD_RESP_PDN);
}

DECLARE_UVERBS_NAMED_METHOD(MLX5_IB_METHOD_PD_QUERY,
			    UVERBS_ATTR_IDR(MLX5_IB_ATTR_QUERY_PD_HANDLE,
					    UVERBS_OBJECT_PD,
					    UVERBS_ACCESS_READ,
					    UA_MANDATORY),
			    UVERBS_ATTR_PTR_OUT(MLX5_IB_ATTR_QUERY_PD_RESP_PDN,
						UVERBS_ATTR_TYPE(u32),
						UA_MANDATORY));

ADD_UVERBS_METHODS(sim_mlx5_pd, UVERBS_OBJECT_PD,
		   &UVERBS_METHOD(MLX5_IB_METHOD_PD_QUERY));

/* RESP_UCTX's size, as mlx5_ib declares it */
#define SIM_MLX5_RESP_UCTX_SIZE \
	UVERBS_ATTR_STRUCT(struct mlx5_ib_alloc_ucontext_resp, dump_fill_mkey)

ADD_UVERBS_ATTRIBUTES_SIMPLE(sim_mlx5_query_context, UVERBS_OBJECT_DEVICE,
			     UVERBS_METHOD_QUERY_CONTEXT,
			     UVERBS_ATTR_PTR_OUT(MLX5_IB_ATTR_QUERY_CONTEXT_RESP_UCTX,
						 SIM_MLX5_RESP_UCTX_SIZE,
						 UA_MANDATORY));

/* No DEVX, flow, DM, VAR or QoS object: as mlx5_ib on such firmware */
static const struct uapi_definition sim_mlx5_uapi_defs[] = {
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(MLX5_IB_OBJECT_UAR),
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_PD, &sim_mlx5_pd),
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_DEVICE, &sim_mlx5_query_context),
	{}
};

/* --- setup -------------------------------------------------------------- */

/* What differs from rdmasim's own ABI; sim_dev_ops fills in the rest */
static const struct ib_device_ops sim_mlx5_ops = {
	.driver_id = RDMA_DRIVER_MLX5,
	.uverbs_abi_ver = MLX5_IB_UVERBS_ABI_VERSION,

	.alloc_pd = sim_mlx5_alloc_pd,
	.alloc_ucontext = sim_mlx5_alloc_ucontext,
	.create_ah = sim_mlx5_create_ah,
	.create_user_ah = sim_mlx5_create_ah,
	SIM_CQ_OPS(sim_mlx5_create_user_cq, sim_mlx5_create_cq),
	.create_qp = sim_mlx5_create_qp,
	.create_srq = sim_mlx5_create_srq,
	.destroy_ah = sim_mlx5_destroy_ah,
	.destroy_cq = sim_mlx5_destroy_cq,
	.destroy_qp = sim_mlx5_destroy_qp,
	.destroy_srq = sim_mlx5_destroy_srq,
	.mmap = sim_mlx5_mmap,
	.modify_qp = sim_mlx5_modify_qp,
	.modify_srq = sim_mlx5_modify_srq,
	.query_device = sim_mlx5_query_device,
	.query_qp = sim_mlx5_query_qp,
	.query_srq = sim_mlx5_query_srq,
	.query_ucontext = sim_mlx5_query_ucontext,

	INIT_RDMA_OBJ_SIZE(ib_ah, sim_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_srq, sim_srq, ibsrq),
};

/**
 * sim_mlx5_setup() - give a new sim device the mlx5 personality
 * @sdev: the device, before any other ops are set
 *
 * ib_set_device_ops() fills only the ops still unset, so the ones set
 * here win over the common ones, which the caller sets next (link.c).
 */
static void sim_mlx5_setup(struct sim_dev *sdev)
{
	ib_set_device_ops(&sdev->ibdev, &sim_mlx5_ops);
	sdev->ibdev.driver_def = sim_mlx5_uapi_defs;
	sdev->mlx5_ids = READ_ONCE(mlx5_ids);
	xa_init(&sdev->mlx5_qps);
	/*
	 * MR keys are next_key << 8: never hand out 0x100, which libmlx5
	 * takes for MLX5_INVALID_LKEY (the end of a scatter list)
	 */
	atomic_set(&sdev->next_key, 1);
}

static int sim_mlx5_show(struct seq_file *s, void *unused)
{
	seq_printf(s, "devx_asked %ld\n", atomic_long_read(&sim_mlx5_devx_asked));
	seq_printf(s, "ucontexts %ld\n", atomic_long_read(&sim_mlx5_uctx_opened));
	seq_printf(s, "wc_uars %ld\n", atomic_long_read(&sim_mlx5_wc_uars));
	seq_printf(s, "wc_mmaps %ld\n", atomic_long_read(&sim_mlx5_wc_mmaps));
	sim_mlx5_wqe_debugfs_show(s);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sim_mlx5);

/**
 * sim_mlx5_debugfs_init() - the personality's counters in debugfs
 * @dir: rdmasim's debugfs directory
 *
 * "mlx5": how many alloc_ucontext requests asked for a DEVX context (each
 * refused), how many contexts the personality opened, how many BlueFlame
 * UARs it allocated and how many mappings it made write-combining, since
 * the module loaded; then the hardware's counters (mlx5_wqe.c): WQEs
 * executed, WQEs libmlx5 never writes (bad_wqes), error and flush CQEs,
 * completion events and UD messages nobody took.
 */
static void sim_mlx5_debugfs_init(struct dentry *dir)
{
	debugfs_create_file("mlx5", 0444, dir, NULL, &sim_mlx5_fops);
}

/* What link.c knows of the personality (sim.h) */
const struct sim_personality sim_mlx5_personality = {
	.variant = SIM_VAR_MLX5,
	.setup = sim_mlx5_setup,
	.debugfs_init = sim_mlx5_debugfs_init,
};
