/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rdmasim's private header, the map of the driver: the structures every
 * file shares, what protects their fields, and the functions one file
 * offers the others.
 *
 *   main.c      module init and exit
 *   link.c      "rdma link add", the netdev notifier, the ops every
 *               personality shares
 *   dev.c       the devices: their list, identity and attributes
 *   variant.c   the kinds of real parent a device presents (enum sim_variant)
 *   check.c     the strict checks and their reports
 *   debugfs.c   the object and strict counters
 *   mmap.c      mmap entries and the mappings of their pages
 *   ctx.c, pd.c, cq.c, qp.c, mr.c   the generic verbs, one object family each
 *   uapi.c      rdmasim's driver uverbs objects and methods
 *   compat.c    entry points whose signature differs between kernels
 *   mlx5.c      the mlx5 personality: mlx5's user ABI over the same objects
 *   mlx5_qp.c   the mlx5 personality's QP verbs (sim-mlx5.h)
 *   mlx5_srq.c  the mlx5 personality's SRQ verbs (sim-mlx5.h)
 *   mlx5_wqe.c  the mlx5 personality's hardware: WQEs, CQEs, events
 *   datapath.c  the "hardware" that executes posted work (sim-dp.h)
 */
#ifndef RDMASIM_SIM_H
#define RDMASIM_SIM_H

#include <linux/atomic.h>
#include <linux/idr.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "sim-compat.h"
#include "sim-dp.h"

struct dentry;

#define SIM_MAX_QP	1024
#define SIM_MAX_CQ	1024
#define SIM_MAX_MR	4096
#define SIM_MAX_ENTRIES	4096
#define SIM_MAX_UARS	256
#define SIM_MAX_SGE	4
#define SIM_CQE_SIZE	32
#define SIM_WQE_SIZE	64
#define SIM_GID_TBL_LEN	32
/* What a kernel object's kernel-only buffer holds, and its size */
#define SIM_KBUF_LEN	64

/*
 * The kinds of real parent vrdma must tell apart.  Each device is one of
 * them, the one the "variant" parameter names when "rdma link add" runs.
 */
enum sim_variant {
	SIM_VAR_ROCE,		/* RoCE (the default): rxe, mlx5, irdma... */
	SIM_VAR_IB,		/* InfiniBand: GIDs from query_gid (mlx5, mlx4) */
	SIM_VAR_IWARP,		/* iWARP (irdma, siw, erdma) */
	SIM_VAR_NOKVERBS,	/* no kernel verbs, no IB transport (EFA) */
	SIM_VAR_PCI,		/* RoCE under a PCI-like bus device (hns v2) */
	SIM_VAR_PDQUERY2,	/* RoCE whose PD_QUERY has one more attribute */
	SIM_VAR_VMOPS,		/* RoCE whose mappings have vm_ops with fault */
	SIM_VAR_RAWMAP,		/* RoCE mapping a page the core cannot revoke */
	SIM_VAR_PVRDMA,		/* RoCE under vmw_pvrdma's driver id */
	SIM_VAR_MLX5,		/* RoCE speaking mlx5's user ABI (mlx5.c) */
	SIM_VAR_NR,
};

/* The object kinds debugfs counts, for the selftests' leak checks */
enum sim_kind {
	SIM_K_DEV,
	SIM_K_UCTX,
	SIM_K_PD,
	SIM_K_CQ,
	SIM_K_QP,
	SIM_K_MR,
	SIM_K_UAR,
	SIM_K_MMAP,
	SIM_K_VMA,
	SIM_K_AH,		/* the mlx5 personality's */
	SIM_K_NR,
};

/* debugfs.c: live objects by kind, failed strict checks; atomic, no lock */
extern atomic_long_t sim_count[SIM_K_NR];
extern atomic_long_t sim_strict_hits;
void sim_debugfs_files(struct dentry *dir);

struct sim_dev {
	struct ib_device ibdev;
	int variant;			/* enum sim_variant, fixed at link add */
	struct net_device *ndev;	/* the port's netdev, held by the core */
	struct list_head list_node;	/* in sim_devs, under sim_devs_lock */
	bool exiting;			/* module exit is unregistering it */
	struct ida qpn_ida;		/* QP numbers from 2; 1 is the GSI QP */
	struct ida uar_ida;		/* UAR page ids, device-wide like mlx5's */
	atomic_t next_key;		/* MR keys, never reused while loaded */
	atomic_t next_pdn;
	atomic_t next_cqn;
	atomic_t next_srqn;		/* mlx5 SRQ numbers */
	/* Protects uctxs, the list of live ucontexts */
	spinlock_t uctx_lock;
	struct list_head uctxs;
	struct simdp_dev dp;		/* the data path's tables */
	/* mlx5: QP number -> sim_mlx5_hqp; changed under simdp_hw_lock() */
	struct xarray mlx5_qps;
	/* mlx5: Mellanox's vendor and part ids (mlx5_ids), fixed at link add */
	bool mlx5_ids;
};

struct sim_ucontext {
	struct ib_ucontext ibuc;
	struct list_head node;		/* in sim_dev.uctxs, under uctx_lock */
	/* UAR page id -> mmap pgoff of its entry (xa_mk_value) */
	struct xarray uars;
	/* The rawmap variant's context page, freed with the context */
	struct page *ctx_page;
	/* mlx5: the CQE version agreed at alloc_ucontext, fixed after */
	u8 cqe_version;
};

enum sim_mmap_type {
	SIM_MMAP_UAR,
	SIM_MMAP_UAR_WC,	/* a UAR whose page is write-combining */
	SIM_MMAP_RING,
};

struct sim_mmap {
	struct rdma_user_mmap_entry rdma_entry;
	void *buf;			/* alloc_pages_exact() memory */
	size_t len;
	enum sim_mmap_type type;
	u32 page_id;			/* SIM_MMAP_UAR(_WC) only */
	struct sim_dev *sdev;
};

struct sim_pd {
	struct ib_pd ibpd;
	u32 pdn;
};

/*
 * An mlx5 user queue's memory (mlx5_wqe.c): its buffer and the page of its
 * doorbell record, pinned and mapped into the kernel for the hardware.
 * Fixed from sim_mlx5_queue_get() to sim_mlx5_queue_put(), which the
 * verbs call once the hardware no longer reads the queue.
 */
struct sim_mlx5_queue {
	struct ib_umem *buf_umem, *db_umem;
	void *buf_map, *db_map;		/* the vmap()s, for vunmap() */
	u8 *buf;			/* the buffer's first byte */
	__be32 *db;			/* the doorbell record */
};

struct sim_cq {
	struct ib_cq ibcq;
	u32 cqn;
	bool created_user;		/* create_cq had driver data */
	u8 *kbuf;			/* SIM_KBUF_LEN bytes for kernel CQs only */
	struct sim_mmap *ring;		/* user CQs: the mapped CQE ring */
	struct rdma_user_mmap_entry *uar; /* user CQs: ref on the doorbell */
	struct simdp_cq *dp;		/* user CQs: the data path's view */
	struct sim_mlx5_queue mlx5_q;	/* mlx5 user CQs: the CQE buffer */
	struct sim_mlx5_hcq *mlx5_hw;	/* mlx5 user CQs: the hardware's view */
};

struct sim_mlx5_hcq;
struct sim_mlx5_hqp;
struct sim_mlx5_hsrq;

/* An SRQ of the mlx5 personality (mlx5_srq.c); user SRQs only */
struct sim_srq {
	struct ib_srq ibsrq;
	u32 srqn;
	u32 max;			/* WQEs, a power of two */
	u32 max_gs;			/* scatter entries asked for */
	struct sim_mlx5_queue mlx5_q;	/* the WQE buffer */
	struct sim_mlx5_hsrq *mlx5_hw;	/* the hardware's view */
};

struct sim_qp {
	struct ib_qp ibqp;
	bool created_user;
	u8 *kbuf;			/* SIM_KBUF_LEN bytes for kernel QPs only */
	enum ib_qp_state state;
	u32 dest_qpn;
	struct sim_mmap *sq, *rq;	/* user QPs: the mapped work queues */
	struct rdma_user_mmap_entry *uar;
	struct simdp_qp *dp;		/* user QPs: the data path's view */
	struct sim_mlx5_queue mlx5_q;	/* mlx5 user QPs: RQ and SQ buffer */
	struct sim_mlx5_hqp *mlx5_hw;	/* mlx5 user QPs: the hardware's view */
	struct ib_qp_cap cap;		/* mlx5 user QPs: as created */
	u32 create_flags;		/* mlx5 user QPs: as created */
	u32 qkey;			/* mlx5 UD QPs */
	/*
	 * mlx5 user QPs: the attributes modify_qp set, for query_qp, as the
	 * firmware keeps them in the QP context (never an sgid_attr reference)
	 */
	struct ib_qp_attr mlx5_attr;
};

/* An AH of the mlx5 personality: nothing but the core's */
struct sim_ah {
	struct ib_ah ibah;
};

static inline struct sim_dev *to_sdev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct sim_dev, ibdev);
}

static inline struct sim_ucontext *to_suctx(struct ib_ucontext *ibuc)
{
	return container_of(ibuc, struct sim_ucontext, ibuc);
}

static inline struct sim_mmap *to_smmap(struct rdma_user_mmap_entry *e)
{
	return container_of(e, struct sim_mmap, rdma_entry);
}

static inline struct sim_pd *to_spd(struct ib_pd *ibpd)
{
	return container_of(ibpd, struct sim_pd, ibpd);
}

static inline struct sim_cq *to_scq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct sim_cq, ibcq);
}

static inline struct sim_srq *to_ssrq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct sim_srq, ibsrq);
}

/* dev.c: the devices */
struct platform_device;
/* The DMA device of every sim device (main.c registers it) */
extern struct platform_device *sim_dma_pdev;
/* Every registered sim device, for module exit; guarded by sim_devs_lock */
extern struct list_head sim_devs;
/* Protects sim_devs and each sim_dev's list_node and exiting flag */
extern struct mutex sim_devs_lock;
bool sim_is_ours(struct ib_device *ibdev);
int sim_get_port_immutable(struct ib_device *ibdev, u32 port,
			   struct ib_port_immutable *imm);
void sim_unregister_all(void);

/* link.c: how devices come and go */
extern struct rdma_link_ops sim_link_ops;
extern struct notifier_block sim_netdev_nb;

/* variant.c */
extern int sim_variant;		/* the next device's, a module parameter */
int sim_pci_dev_init(void);
void sim_pci_dev_exit(void);
void sim_variant_setup(struct sim_dev *sdev);

/* uapi.c: rdmasim's own driver uverbs definitions, and pdquery2's */
extern const struct uapi_definition sim_uapi_defs[];
extern const struct uapi_definition sim_uapi_defs_pdquery2[];

/* Each family's part of the ops every personality shares (link.c) */
extern const struct ib_device_ops sim_dev_ops;
extern const struct ib_device_ops sim_ctx_ops;
extern const struct ib_device_ops sim_pd_ops;
extern const struct ib_device_ops sim_cq_ops;
extern const struct ib_device_ops sim_qp_ops;
extern const struct ib_device_ops sim_mr_ops;
extern const struct ib_device_ops sim_compat_ops;
extern const struct ib_device_ops sim_mmap_ops;

/* check.c: checks and reports */
__printf(1, 2) void sim_strict(const char *fmt, ...);
bool sim_check_dev(struct sim_dev *sdev, struct ib_device *obj_dev,
		   const char *what);
bool sim_uctx_known(struct sim_dev *sdev, struct ib_ucontext *ibuc);
u8 sim_kernel_touch(const char *what, bool created_user, u8 *kbuf);
struct sim_ucontext *sim_udata_uctx(struct sim_dev *sdev,
				    struct ib_udata *udata,
				    struct ib_ucontext *objctx,
				    const char *what);
struct sim_ucontext *sim_pd_udata_uctx(struct sim_dev *sdev,
				       struct ib_udata *udata,
				       struct ib_pd *pd, const char *what);
void sim_check_user(const char *what, const void *uobject,
		    const struct rdma_restrack_entry *res);
int sim_query_ucontext_check(struct ib_ucontext *ibuc,
			     struct uverbs_attr_bundle *attrs);

/* The generic files: what a personality builds its verbs on */
struct sim_mmap *sim_mmap_new(struct sim_dev *sdev, struct ib_ucontext *ibuc,
			      size_t len, enum sim_mmap_type type);
struct sim_mmap *sim_mmap_new_range(struct sim_dev *sdev,
				    struct ib_ucontext *ibuc, size_t len,
				    enum sim_mmap_type type, u32 min_pgoff,
				    u32 max_pgoff);
int sim_query_device(struct ib_device *ibdev, struct ib_device_attr *attr,
		     struct ib_udata *udata);
int sim_alloc_ucontext(struct ib_ucontext *ibuc, struct ib_udata *udata);
void sim_dealloc_ucontext(struct ib_ucontext *ibuc);
int sim_pd_alloc(struct ib_pd *ibpd, struct ib_udata *udata, void *resp,
		 __u32 *resp_pdn, size_t resp_len);
int sim_pd_query(struct uverbs_attr_bundle *attrs, u16 handle, u16 pdn);
struct sim_mmap *sim_uar_new(struct uverbs_attr_bundle *attrs,
			     struct ib_uobject *uobj, const char *what,
			     enum sim_mmap_type type, u32 min_pgoff,
			     u32 max_pgoff);
int sim_uar_reply(struct uverbs_attr_bundle *attrs, const struct sim_mmap *m,
		  u64 offset, size_t offset_attr, size_t page_id_attr,
		  size_t length_attr);
int sim_uar_cleanup(struct ib_uobject *uobject, enum rdma_remove_reason why,
		    struct uverbs_attr_bundle *attrs);
struct rdma_user_mmap_entry *sim_uar_get(struct sim_ucontext *uctx,
					 u32 page_id);
u8 *sim_kbuf_alloc(bool user);
struct ib_mr *sim_reg_user_mr_udata(struct ib_pd *ibpd, u64 start, u64 length,
				    u64 virt, int access, struct ib_udata *udata);
struct ib_mr *sim_reg_user_mr_dmabuf_udata(struct ib_pd *ibpd, u64 offset,
					   u64 length, u64 virt, int fd,
					   int access, struct ib_udata *udata);
int sim_create_cq_udata(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
			struct ib_udata *udata);
int sim_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int sim_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		  struct ib_udata *udata);
int sim_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
int sim_qp_modify_common(struct sim_qp *qp, enum ib_qp_state cur,
			 const struct ib_qp_attr *attr, int mask,
			 enum ib_qp_state *next);

/*
 * A personality: a user ABI of its own over the generic objects, which a
 * variant's devices speak.  The generic files reach a personality only
 * through this table, which its file fills and main.c hands to link.c.
 */
struct sim_personality {
	enum sim_variant variant;	/* the variant whose devices speak it */
	/* A new device's ops and ABI, set before the common ops */
	void (*setup)(struct sim_dev *sdev);
	/* Its files in rdmasim's debugfs directory, at module init */
	void (*debugfs_init)(struct dentry *dir);
};

/* link.c */
void sim_personality_add(const struct sim_personality *pers);

/* mlx5.c: the mlx5 personality */
extern const struct sim_personality sim_mlx5_personality;

#endif /* RDMASIM_SIM_H */
