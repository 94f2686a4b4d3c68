// SPDX-License-Identifier: GPL-2.0
/*
 * rdmasim: a simulated hardware RDMA device, for the selftests only.
 *
 * "rdma link add sim0 type rdmasim netdev DEV" registers a RoCE device on
 * DEV.  It behaves like a hardware driver where vrdma cares: user rings and
 * doorbell pages are handed out as rdma_user_mmap_entry offsets, it has a
 * driver-namespace uverbs object (a UAR-like doorbell page, modelled on
 * mlx5's) that create_cq requires, a driver method on the core PD object,
 * and driver data in query_device's response.  It finds its ucontext as
 * hardware drivers do, through the attribute bundle around the udata.
 *
 * It is strict where real drivers are sloppy: every check that fails prints
 * a WARN starting with "rdmasim: strict:" and counts in debugfs
 * (rdmasim/strict), so that a selftest sees what a real driver would
 * silently get wrong.  Like mlx4, it tells user objects from kernel ones by
 * their uobject after creation; the kernel path reads a buffer only kernel
 * objects have, so a user object that lost its uobject is caught by KASAN
 * on a debug kernel (and by the WARN before it on a stock one).
 */
#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/netdevice.h>
#include <linux/etherdevice.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/idr.h>
#include <linux/xarray.h>
#include <linux/dma-mapping.h>
#include <linux/platform_device.h>
#include <linux/string.h>
#include <net/addrconf.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>
#include <rdma/rdma_netlink.h>
#include <rdma/uverbs_ioctl.h>
#include <rdma/restrack.h>

#define UVERBS_MODULE_NAME rdmasim
#include <rdma/uverbs_named_ioctl.h>

#include <rdma/rdmasim-abi.h>
#include "sim.h"

/* What a kernel object's kernel-only buffer holds, and its size */
#define SIM_KBUF_LEN	64

struct sim_mr {
	struct ib_mr ibmr;
	struct ib_umem *umem;		/* NULL for the kernel's DMA MR */
	struct simdp_mr *dp;		/* user MRs: the data path's view */
};

static const char * const sim_kind_name[SIM_K_NR] = {
	[SIM_K_DEV] = "dev",
	[SIM_K_UCTX] = "ucontext",
	[SIM_K_PD] = "pd",
	[SIM_K_CQ] = "cq",
	[SIM_K_QP] = "qp",
	[SIM_K_MR] = "mr",
	[SIM_K_UAR] = "uar",
	[SIM_K_MMAP] = "mmap",
	[SIM_K_VMA] = "vma",
	[SIM_K_AH] = "ah",
};

atomic_long_t sim_count[SIM_K_NR];
static atomic_long_t sim_strict_hits;
static struct dentry *sim_debugfs;
/*
 * The DMA device of every sim device, as a NIC's PCI function is: the
 * exporter of a DMA-BUF maps it for this device (dma-direct, 64 bits).
 */
static struct platform_device *sim_dma_pdev;

/* Every registered sim device, for module exit; guarded by sim_devs_lock */
static LIST_HEAD(sim_devs);
/* Protects sim_devs and each sim_dev's list_node and exiting flag */
static DEFINE_MUTEX(sim_devs_lock);

static bool strict_warn = true;
module_param(strict_warn, bool, 0644);
MODULE_PARM_DESC(strict_warn,
		 "report a failed strict check with WARN (default) or a warning line only, for a test that expects known ones");

/**
 * sim_strict() - report a broken expectation
 * @fmt: what was expected and what came, printf-style
 *
 * A WARN (or, with strict_warn off, a plain warning line) with a fixed
 * prefix the selftests grep for, and a count in debugfs.
 */
void sim_strict(const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	atomic_long_inc(&sim_strict_hits);
	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	if (READ_ONCE(strict_warn))
		WARN(1, "rdmasim: strict: %pV\n", &vaf);
	else
		pr_warn("rdmasim: strict: %pV\n", &vaf);
	va_end(args);
}

static const struct ib_device_ops sim_dev_ops;

/**
 * sim_is_ours() - is a device a sim device?
 * @ibdev: the device, may be NULL
 *
 * Compared by an op every personality shares, never by a container_of on
 * a device that may be another driver's (vrdma's vdevices copy the
 * parent's driver_id, so that is not proof).
 *
 * Return: true for a sim device of any personality.
 */
bool sim_is_ours(struct ib_device *ibdev)
{
	return ibdev && ibdev->ops.dealloc_driver == sim_dev_ops.dealloc_driver;
}

/*
 * sim_check_dev - @obj_dev (the device an object the core passed claims to
 * be on) must be @sdev's.  Detected by comparison, not dereferenced.
 */
static bool sim_check_dev(struct sim_dev *sdev, struct ib_device *obj_dev,
			  const char *what)
{
	if (obj_dev == &sdev->ibdev)
		return true;
	sim_strict("%s: %s is on device %s, not on %s", __func__, what,
		   obj_dev && sim_is_ours(obj_dev) ? dev_name(&obj_dev->dev) :
		   "(not a sim device)", dev_name(&sdev->ibdev.dev));
	return false;
}

/* Is @ibuc one of @sdev's live ucontexts?  Looked up, not dereferenced */
static bool sim_uctx_known(struct sim_dev *sdev, struct ib_ucontext *ibuc)
{
	struct sim_ucontext *uctx;
	bool found = false;

	spin_lock(&sdev->uctx_lock);
	list_for_each_entry(uctx, &sdev->uctxs, node) {
		if (&uctx->ibuc == ibuc) {
			found = true;
			break;
		}
	}
	spin_unlock(&sdev->uctx_lock);
	return found;
}

/**
 * sim_udata_uctx() - the ucontext a user verb belongs to, found the ways
 * hardware drivers find it, and checked
 * @sdev: the device the verb was called on
 * @udata: the verb's driver data, not NULL
 * @objctx: the ucontext of the object's uobject, or NULL if it has none
 * @what: the verb, for the report
 *
 * rdma_udata_to_drv_context() takes the ucontext from the bundle around
 * @udata; ib_uverbs_get_ucontext() from the bundle's uverbs file (mlx5's
 * driver methods use it).  Both must be a live ucontext of @sdev and agree
 * with each other and with the object's uobject.
 *
 * Return: the sim ucontext, or ERR_PTR(-EINVAL) if the udata's is not one
 * of @sdev's.
 */
struct sim_ucontext *sim_udata_uctx(struct sim_dev *sdev,
				    struct ib_udata *udata,
				    struct ib_ucontext *objctx,
				    const char *what)
{
	struct uverbs_attr_bundle *attrs = rdma_udata_to_uverbs_attr_bundle(udata);
	struct ib_ucontext *ctx = attrs->context;
	struct ib_ucontext *fctx;

	if (!sim_uctx_known(sdev, ctx)) {
		sim_strict("%s: the udata's ucontext %p is not one of %s's",
			   what, ctx, dev_name(&sdev->ibdev.dev));
		return ERR_PTR(-EINVAL);
	}
	if (!attrs->ufile) {
		sim_strict("%s: the udata's bundle has no uverbs file", what);
	} else {
		fctx = ib_uverbs_get_ucontext(attrs);
		if (fctx != ctx)
			sim_strict("%s: ucontext by file %p, by udata %p",
				   what, IS_ERR(fctx) ? NULL : fctx, ctx);
	}
	if (objctx && objctx != ctx)
		sim_strict("%s: ucontext by uobject %p, by udata %p",
			   what, objctx, ctx);
	return rdma_udata_to_drv_context(udata, struct sim_ucontext, ibuc);
}

/**
 * sim_check_user() - an object created with driver data is a user object
 * @what: the verb, for the report
 * @uobject: the object's uobject field
 * @res: its restrack entry, or NULL if the core has none for it
 *
 * It must arrive with its uobject and as a user restrack entry.
 */
void sim_check_user(const char *what, const void *uobject,
		    const struct rdma_restrack_entry *res)
{
	if (!uobject)
		sim_strict("%s: created with driver data but has no uobject",
			   what);
	if (res && rdma_is_kernel_res(res))
		sim_strict("%s: created with driver data, restrack says kernel",
			   what);
}

/*
 * sim_kernel_touch - what the kernel path of an object does first: read the
 * kernel-only buffer.  A user object has only a 1-byte one, so reading its
 * last kernel byte is a KASAN report; the WARN comes first on any kernel.
 */
static u8 sim_kernel_touch(const char *what, bool created_user, u8 *kbuf)
{
	if (created_user)
		sim_strict("%s: kernel path taken for an object created by user space",
			   what);
	return READ_ONCE(kbuf[SIM_KBUF_LEN - 1]);
}

/**
 * sim_kbuf_alloc() - an object's kernel-only buffer
 * @user: the object is a user one
 *
 * Full size for kernel objects only: a user object's is one byte, so that
 * its kernel path reading the buffer is a KASAN report.
 *
 * Return: the buffer, or NULL when out of memory.
 */
u8 *sim_kbuf_alloc(bool user)
{
	return kzalloc(user ? 1 : SIM_KBUF_LEN, GFP_KERNEL);
}

/* --- mmap entries ------------------------------------------------------- */

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

/* An entry anywhere the core puts one (rdma_user_mmap_entry_insert()) */
static struct sim_mmap *sim_mmap_new(struct sim_dev *sdev,
				     struct ib_ucontext *ibuc, size_t len,
				     enum sim_mmap_type type)
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

/* --- device, port ------------------------------------------------------- */

/**
 * sim_query_device() - the device's attributes, and rdmasim's driver data
 * @ibdev: the device
 * @attr: filled in whole
 * @udata: the caller's driver data, or NULL (a personality asking for the
 *	attributes only)
 *
 * Return: 0 or the error of the copy to user space.
 */
int sim_query_device(struct ib_device *ibdev, struct ib_device_attr *attr,
		     struct ib_udata *udata)
{
	struct sim_dev *sdev = to_sdev(ibdev);
	struct rdmasim_query_device_resp resp = {
		.magic = RDMASIM_MAGIC,
		.abi_version = RDMASIM_ABI_VERSION,
		.max_uars = SIM_MAX_UARS,
	};

	memset(attr, 0, sizeof(*attr));
	attr->vendor_id = 0x5153;
	attr->vendor_part_id = 1;
	attr->hw_ver = 1;
	attr->fw_ver = 1;
	addrconf_addr_eui48((u8 *)&attr->sys_image_guid,
			    sdev->ndev->dev_addr);
	attr->max_mr_size = SZ_1G;
	attr->page_size_cap = PAGE_SIZE;
	attr->max_qp = SIM_MAX_QP;
	attr->max_qp_wr = SIM_MAX_ENTRIES;
	attr->max_send_sge = SIM_MAX_SGE;
	attr->max_recv_sge = SIM_MAX_SGE;
	attr->max_sge_rd = 1;
	attr->max_cq = SIM_MAX_CQ;
	attr->max_cqe = SIM_MAX_ENTRIES;
	attr->max_mr = SIM_MAX_MR;
	attr->max_pd = SIM_MAX_QP;
	attr->max_qp_rd_atom = 16;
	attr->max_qp_init_rd_atom = 16;
	attr->max_res_rd_atom = SIM_MAX_QP * 16;
	attr->max_pkeys = 1;
	attr->local_ca_ack_delay = 15;
	attr->kernel_cap_flags = IBK_LOCAL_DMA_LKEY | IBK_ALLOW_USER_UNREG;

	/* The core's own query at registration passes an empty udata */
	if (udata && udata->outlen)
		return ib_copy_to_udata(udata, &resp,
					min(udata->outlen, sizeof(resp)));
	return 0;
}

static int sim_query_port(struct ib_device *ibdev, u32 port,
			  struct ib_port_attr *attr)
{
	struct net_device *ndev = to_sdev(ibdev)->ndev;
	bool up = netif_running(ndev) && netif_carrier_ok(ndev);

	/* The core zeroed @attr */
	attr->state = up ? IB_PORT_ACTIVE : IB_PORT_DOWN;
	attr->phys_state = up ? IB_PORT_PHYS_STATE_LINK_UP :
				IB_PORT_PHYS_STATE_DISABLED;
	attr->max_mtu = IB_MTU_4096;
	attr->active_mtu = iboe_get_mtu(READ_ONCE(ndev->mtu));
	attr->gid_tbl_len = SIM_GID_TBL_LEN;
	attr->port_cap_flags = IB_PORT_CM_SUP;
	attr->max_msg_sz = SZ_1G;
	attr->pkey_tbl_len = 1;
	attr->active_width = IB_WIDTH_4X;
	attr->active_speed = IB_SPEED_EDR;
	return 0;
}

static int sim_get_port_immutable(struct ib_device *ibdev, u32 port,
				  struct ib_port_immutable *imm)
{
	struct ib_port_attr attr;
	int ret;

	ret = ib_query_port(ibdev, port, &attr);
	if (ret)
		return ret;
	imm->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE |
			      RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	imm->pkey_tbl_len = attr.pkey_tbl_len;
	imm->gid_tbl_len = attr.gid_tbl_len;
	imm->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

static enum rdma_link_layer sim_get_link_layer(struct ib_device *ibdev,
					       u32 port)
{
	return IB_LINK_LAYER_ETHERNET;
}

static int sim_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
			  u16 *pkey)
{
	if (index)
		return -EINVAL;
	*pkey = IB_DEFAULT_PKEY_FULL;
	return 0;
}

/* --- ucontext ----------------------------------------------------------- */

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

/* --- PD ----------------------------------------------------------------- */

/**
 * sim_pd_init() - a new PD's number, and the checks of a user PD
 * @ibpd: the PD the core allocated
 * @udata: the caller's driver data, NULL for a kernel PD
 *
 * The personality then writes its response and counts the PD.
 *
 * Return: 0, or -EINVAL when the udata's ucontext is not the device's.
 */
int sim_pd_init(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct sim_dev *sdev = to_sdev(ibpd->device);
	struct sim_ucontext *uctx;

	to_spd(ibpd)->pdn = atomic_inc_return(&sdev->next_pdn);
	if (!udata)
		return 0;
	sim_check_user("alloc_pd", ibpd->uobject, &ibpd->res);
	uctx = sim_udata_uctx(sdev, udata,
			      ibpd->uobject ? ibpd->uobject->context : NULL,
			      "alloc_pd");
	return PTR_ERR_OR_ZERO(uctx);
}

static int sim_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct rdmasim_alloc_pd_resp resp = {};
	int ret;

	ret = sim_pd_init(ibpd, udata);
	if (ret)
		return ret;
	if (udata) {
		resp.pdn = to_spd(ibpd)->pdn;
		ret = ib_copy_to_udata(udata, &resp,
				       min(udata->outlen, sizeof(resp)));
		if (ret)
			return ret;
	}
	atomic_long_inc(&sim_count[SIM_K_PD]);
	return 0;
}

static int sim_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	atomic_long_dec(&sim_count[SIM_K_PD]);
	return 0;
}

/* --- CQ ----------------------------------------------------------------- */

/*
 * From 7.2 the CQ buffer may come as a UMEM attribute (or the legacy CQ
 * buffer attributes): pin it as a driver would, report its length and
 * first bytes, and let it go (the CQEs stay in the kernel's ring).
 */
static int sim_create_cq_buf(struct sim_dev *sdev,
			     struct uverbs_attr_bundle *attrs,
			     struct rdmasim_create_cq_resp *resp)
{
	struct ib_umem *umem;
	int ret;

	if (!SIM_CQ_BUF_UMEM)
		return 0;
	resp->flags |= RDMASIM_CQ_RESP_UMEM_KNOWN;
	umem = sim_umem_get_cq_buf(&sdev->ibdev, attrs, SIM_CQE_SIZE);
	if (IS_ERR_OR_NULL(umem))
		return PTR_ERR_OR_ZERO(umem);
	resp->buf_length = umem->length;
	ret = ib_umem_copy_from(resp->buf_head, umem, 0,
				min_t(size_t, sizeof(resp->buf_head),
				      umem->length));
	ib_umem_release(umem);
	return ret;
}

/*
 * sim_create_cq_attrs - what create_cq reads of the attribute bundle
 * around @udata: its own RDMASIM_ATTR_CREATE_CQ_UAR_INDEX, which names the
 * doorbell page instead of @ucmd (as mlx5's UAR index attribute), and the
 * core's CQ buffer attributes.  What it found goes to @resp.
 */
static int sim_create_cq_attrs(struct sim_dev *sdev, struct ib_udata *udata,
			       const struct rdmasim_create_cq *ucmd,
			       struct rdmasim_create_cq_resp *resp)
{
	struct uverbs_attr_bundle *attrs = rdma_udata_to_uverbs_attr_bundle(udata);
	int ret;

	resp->uar_page_id = ucmd->uar_page_id;
	if (uverbs_attr_is_valid(attrs, RDMASIM_ATTR_CREATE_CQ_UAR_INDEX)) {
		ret = uverbs_copy_from(&resp->uar_page_id, attrs,
				       RDMASIM_ATTR_CREATE_CQ_UAR_INDEX);
		if (ret)
			return ret;
		resp->flags |= RDMASIM_CQ_RESP_UAR_FROM_ATTR;
	}
	return sim_create_cq_buf(sdev, attrs, resp);
}

/**
 * sim_create_cq_udata() - create a CQ with rdmasim's driver data
 * @ibcq: the CQ the core allocated
 * @attr: its size and flags
 * @udata: rdmasim's driver data, NULL for a kernel CQ
 *
 * A personality with its own ABI passes its kernel CQs here.
 *
 * Return: 0 or a negative errno.
 */
int sim_create_cq_udata(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
			struct ib_udata *udata)
{
	struct sim_dev *sdev = to_sdev(ibcq->device);
	struct sim_cq *cq = container_of(ibcq, struct sim_cq, ibcq);
	struct rdmasim_create_cq_resp resp = {};
	struct rdmasim_create_cq ucmd = {};
	struct sim_ucontext *uctx;
	u32 nr;
	int ret;

	if (attr->flags || !attr->cqe || attr->cqe > SIM_MAX_ENTRIES)
		return -EINVAL;
	nr = roundup_pow_of_two(attr->cqe);
	cq->created_user = !!udata;
	cq->cqn = atomic_inc_return(&sdev->next_cqn);
	cq->kbuf = sim_kbuf_alloc(cq->created_user);
	if (!cq->kbuf)
		return -ENOMEM;
	if (!udata)
		goto done;

	sim_check_user("create_cq", ibcq->uobject, &ibcq->res);
	/* ib_ucq_object is the core's own: the CQ's ucontext is not ours */
	uctx = sim_udata_uctx(sdev, udata, NULL, "create_cq");
	if (IS_ERR(uctx)) {
		ret = PTR_ERR(uctx);
		goto err_free_kbuf;
	}
	if (udata->inlen < sizeof(ucmd)) {
		ret = -EINVAL;
		goto err_free_kbuf;
	}
	ret = ib_copy_from_udata(&ucmd, udata, sizeof(ucmd));
	if (ret)
		goto err_free_kbuf;
	ret = sim_create_cq_attrs(sdev, udata, &ucmd, &resp);
	if (ret)
		goto err_free_kbuf;
	/* As mlx5 needs a UAR page for the CQ's doorbell */
	cq->uar = sim_uar_get(uctx, resp.uar_page_id);
	if (!cq->uar) {
		ret = -EINVAL;
		goto err_free_kbuf;
	}
	/* The CQEs, then the consumer index record (rdmasim-abi.h) */
	cq->ring = sim_mmap_new(sdev, &uctx->ibuc, (nr + 1) * SIM_CQE_SIZE,
				SIM_MMAP_RING);
	if (IS_ERR(cq->ring)) {
		ret = PTR_ERR(cq->ring);
		goto err_put_uar;
	}
	cq->dp = simdp_cq_add(cq->ring->buf, nr, cq->cqn);
	if (IS_ERR(cq->dp)) {
		ret = PTR_ERR(cq->dp);
		cq->dp = NULL;
		goto err_remove_ring;
	}
	resp.ring_mmap_offset = rdma_user_mmap_get_offset(&cq->ring->rdma_entry);
	resp.ring_length = cq->ring->len;
	resp.cqn = cq->cqn;
	resp.cqe_size = SIM_CQE_SIZE;
	resp.nr_cqe = nr;
	ret = ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));
	if (ret)
		goto err_remove_ring;
done:
	ibcq->cqe = nr;
	atomic_long_inc(&sim_count[SIM_K_CQ]);
	return 0;

err_remove_ring:
	if (cq->dp)
		simdp_cq_del(cq->dp);
	rdma_user_mmap_entry_remove(&cq->ring->rdma_entry);
err_put_uar:
	rdma_user_mmap_entry_put(cq->uar);
err_free_kbuf:
	kfree(cq->kbuf);
	return ret;
}

/*
 * Where the kernel splits them (SIM_USER_CQ_SPLIT), as mlx5_ib: user CQs
 * come through create_user_cq, create_cq makes kernel CQs only, and a
 * user CQ arriving there is a caller's mistake.
 */
static int __maybe_unused sim_create_user_cq(struct ib_cq *ibcq,
					     const struct ib_cq_init_attr *attr,
					     struct uverbs_attr_bundle *attrs)
{
	if (!attrs) {
		sim_strict("create_user_cq: called without a bundle");
		return -EINVAL;
	}
	return sim_create_cq_udata(ibcq, attr, &attrs->driver_udata);
}

static int sim_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
			 struct sim_create_cq_arg *arg)
{
	struct ib_udata *udata = sim_cq_udata(arg);

	if (SIM_USER_CQ_SPLIT && udata) {
		sim_strict("create_cq: a user CQ, not through create_user_cq");
		return -EINVAL;
	}
	return sim_create_cq_udata(ibcq, attr, udata);
}

/**
 * sim_destroy_cq() - destroy a CQ of any personality
 * @ibcq: the CQ
 * @udata: the caller's driver data, unused
 *
 * A personality releases what it pinned first.
 *
 * Return: 0.
 */
int sim_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct sim_cq *cq = container_of(ibcq, struct sim_cq, ibcq);

	/* Decided by the uobject, as mlx4 does */
	if (!ibcq->uobject)
		sim_kernel_touch("destroy_cq", cq->created_user, cq->kbuf);
	if (cq->dp)
		simdp_cq_del(cq->dp);
	if (cq->ring)
		rdma_user_mmap_entry_remove(&cq->ring->rdma_entry);
	if (cq->uar)
		rdma_user_mmap_entry_put(cq->uar);
	kfree(cq->kbuf);
	atomic_long_dec(&sim_count[SIM_K_CQ]);
	return 0;
}

static int sim_poll_cq(struct ib_cq *ibcq, int num, struct ib_wc *wc)
{
	struct sim_cq *cq = container_of(ibcq, struct sim_cq, ibcq);

	/* User CQs are polled in their mapped ring, never through here */
	if (ibcq->uobject)
		return -EOPNOTSUPP;
	sim_kernel_touch("poll_cq", cq->created_user, cq->kbuf);
	return 0;
}

static int sim_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	return 0;
}

/* --- QP ----------------------------------------------------------------- */

static void sim_qp_unmap(struct sim_qp *qp)
{
	/* First: the data path stops reading the rings */
	if (qp->dp)
		simdp_qp_del(qp->dp);
	qp->dp = NULL;
	if (qp->sq)
		rdma_user_mmap_entry_remove(&qp->sq->rdma_entry);
	if (qp->rq)
		rdma_user_mmap_entry_remove(&qp->rq->rdma_entry);
	if (qp->uar)
		rdma_user_mmap_entry_put(qp->uar);
	qp->sq = NULL;
	qp->rq = NULL;
	qp->uar = NULL;
}

static int sim_create_user_qp(struct sim_dev *sdev, struct sim_qp *qp,
			      struct ib_qp_init_attr *init,
			      struct ib_udata *udata)
{
	struct ib_qp *ibqp = &qp->ibqp;
	struct rdmasim_create_qp_resp resp = {};
	struct rdmasim_create_qp ucmd = {};
	struct sim_ucontext *uctx;
	u32 nsq, nrq;
	int ret;

	sim_check_user("create_qp", ibqp->uobject, &ibqp->res);
	/* ib_uqp_object is the core's own: compare with the PD's ucontext */
	uctx = sim_udata_uctx(sdev, udata,
			      ibqp->pd->uobject ? ibqp->pd->uobject->context :
			      NULL, "create_qp");
	if (IS_ERR(uctx))
		return PTR_ERR(uctx);
	if (init->qp_type != IB_QPT_RC || udata->inlen < sizeof(ucmd))
		return -EINVAL;
	ret = ib_copy_from_udata(&ucmd, udata, sizeof(ucmd));
	if (ret)
		return ret;
	qp->uar = sim_uar_get(uctx, ucmd.uar_page_id);
	if (!qp->uar)
		return -EINVAL;
	nsq = roundup_pow_of_two(max(init->cap.max_send_wr, 1U));
	nrq = roundup_pow_of_two(max(init->cap.max_recv_wr, 1U));
	/* Each ring: the WQEs, then the doorbell record (rdmasim-abi.h) */
	qp->sq = sim_mmap_new(sdev, &uctx->ibuc, (nsq + 1) * SIM_WQE_SIZE,
			      SIM_MMAP_RING);
	if (IS_ERR(qp->sq)) {
		ret = PTR_ERR(qp->sq);
		qp->sq = NULL;
		goto err_unmap;
	}
	qp->rq = sim_mmap_new(sdev, &uctx->ibuc, (nrq + 1) * SIM_WQE_SIZE,
			      SIM_MMAP_RING);
	if (IS_ERR(qp->rq)) {
		ret = PTR_ERR(qp->rq);
		qp->rq = NULL;
		goto err_unmap;
	}
	resp.sq_mmap_offset = rdma_user_mmap_get_offset(&qp->sq->rdma_entry);
	resp.rq_mmap_offset = rdma_user_mmap_get_offset(&qp->rq->rdma_entry);
	resp.sq_length = qp->sq->len;
	resp.rq_length = qp->rq->len;
	resp.wqe_size = SIM_WQE_SIZE;
	ret = ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));
	if (ret)
		goto err_unmap;
	qp->dp = simdp_qp_add(&sdev->dp, ibqp, qp->sq->buf, nsq, qp->rq->buf,
			      nrq, container_of(init->send_cq, struct sim_cq,
						ibcq)->dp,
			      container_of(init->recv_cq, struct sim_cq,
					   ibcq)->dp);
	if (IS_ERR(qp->dp)) {
		ret = PTR_ERR(qp->dp);
		qp->dp = NULL;
		goto err_unmap;
	}
	init->cap.max_send_wr = nsq;
	init->cap.max_recv_wr = nrq;
	return 0;

err_unmap:
	sim_qp_unmap(qp);
	return ret;
}

/**
 * sim_create_qp() - create a QP with rdmasim's driver data
 * @ibqp: the QP the core allocated
 * @init: its attributes; the capabilities granted are written back
 * @udata: rdmasim's driver data, NULL for a kernel QP (the MAD layer's)
 *
 * A personality with its own ABI passes its kernel QPs here.
 *
 * Return: 0 or a negative errno.
 */
int sim_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		  struct ib_udata *udata)
{
	struct sim_dev *sdev = to_sdev(ibqp->device);
	struct sim_qp *qp = container_of(ibqp, struct sim_qp, ibqp);
	int ret;

	if (init->srq || init->create_flags ||
	    init->cap.max_send_wr > SIM_MAX_ENTRIES ||
	    init->cap.max_recv_wr > SIM_MAX_ENTRIES ||
	    init->cap.max_send_sge > SIM_MAX_SGE ||
	    init->cap.max_recv_sge > SIM_MAX_SGE ||
	    init->cap.max_inline_data)
		return -EINVAL;
	if (!sim_check_dev(sdev, ibqp->pd->device, "create_qp's PD") ||
	    !sim_check_dev(sdev, init->send_cq->device, "create_qp's send CQ") ||
	    !sim_check_dev(sdev, init->recv_cq->device, "create_qp's recv CQ"))
		return -EINVAL;
	if (init->qp_type != IB_QPT_RC && init->qp_type != IB_QPT_GSI &&
	    init->qp_type != IB_QPT_SMI)
		return -EOPNOTSUPP;
	if ((init->qp_type == IB_QPT_GSI || init->qp_type == IB_QPT_SMI) &&
	    udata)
		return -EINVAL;

	qp->created_user = !!udata;
	qp->state = IB_QPS_RESET;
	qp->kbuf = sim_kbuf_alloc(qp->created_user);
	if (!qp->kbuf)
		return -ENOMEM;
	if (init->qp_type == IB_QPT_GSI) {
		ibqp->qp_num = 1;
	} else if (init->qp_type == IB_QPT_SMI) {
		/* The InfiniBand variant's QP0 (the MAD layer's) */
		ibqp->qp_num = 0;
	} else {
		ret = ida_alloc_range(&sdev->qpn_ida, 2, 0xffffff, GFP_KERNEL);
		if (ret < 0)
			goto err_free_kbuf;
		ibqp->qp_num = ret;
	}
	if (udata) {
		ret = sim_create_user_qp(sdev, qp, init, udata);
		if (ret)
			goto err_free_qpn;
	}
	atomic_long_inc(&sim_count[SIM_K_QP]);
	return 0;

err_free_qpn:
	if (ibqp->qp_num > 1)
		ida_free(&sdev->qpn_ida, ibqp->qp_num);
err_free_kbuf:
	kfree(qp->kbuf);
	return ret;
}

static int sim_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
			 int mask, struct ib_udata *udata)
{
	struct sim_qp *qp = container_of(ibqp, struct sim_qp, ibqp);
	enum ib_qp_state cur = qp->state, next;

	if (mask & IB_QP_CUR_STATE)
		cur = attr->cur_qp_state;
	next = mask & IB_QP_STATE ? attr->qp_state : cur;
	if (!ib_modify_qp_is_ok(cur, next, ibqp->qp_type, mask))
		return -EINVAL;
	if ((mask & IB_QP_PORT) && attr->port_num != 1)
		return -EINVAL;
	if (mask & IB_QP_DEST_QPN)
		qp->dest_qpn = attr->dest_qp_num;
	qp->state = next;
	if (qp->dp)
		simdp_qp_modify(qp->dp, next, qp->dest_qpn);
	return 0;
}

static int sim_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
			struct ib_qp_init_attr *init)
{
	struct sim_qp *qp = container_of(ibqp, struct sim_qp, ibqp);

	memset(attr, 0, sizeof(*attr));
	memset(init, 0, sizeof(*init));
	attr->qp_state = qp->state;
	attr->cur_qp_state = qp->state;
	attr->dest_qp_num = qp->dest_qpn;
	attr->port_num = 1;
	init->qp_type = ibqp->qp_type;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	return 0;
}

/**
 * sim_destroy_qp() - destroy a QP
 * @ibqp: the QP
 * @udata: the caller's driver data, unused
 *
 * A personality takes its QPs out of its hardware first.
 *
 * Return: 0.
 */
int sim_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct sim_dev *sdev = to_sdev(ibqp->device);
	struct sim_qp *qp = container_of(ibqp, struct sim_qp, ibqp);

	if (!ibqp->uobject)
		sim_kernel_touch("destroy_qp", qp->created_user, qp->kbuf);
	sim_qp_unmap(qp);
	if (ibqp->qp_num > 1)
		ida_free(&sdev->qpn_ida, ibqp->qp_num);
	kfree(qp->kbuf);
	atomic_long_dec(&sim_count[SIM_K_QP]);
	return 0;
}

static int sim_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
			 const struct ib_send_wr **bad)
{
	struct sim_qp *qp = container_of(ibqp, struct sim_qp, ibqp);

	/* A user QP's doorbell is a store into its UAR page */
	if (ibqp->uobject) {
		*bad = wr;
		return -EOPNOTSUPP;
	}
	sim_kernel_touch("post_send", qp->created_user, qp->kbuf);
	/* The kernel path has no wire: the MAD layer's sends are dropped */
	return 0;
}

static int sim_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
			 const struct ib_recv_wr **bad)
{
	struct sim_qp *qp = container_of(ibqp, struct sim_qp, ibqp);

	if (ibqp->uobject) {
		*bad = wr;
		return -EOPNOTSUPP;
	}
	sim_kernel_touch("post_recv", qp->created_user, qp->kbuf);
	return 0;
}

/* --- MR ----------------------------------------------------------------- */

static struct ib_mr *sim_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct sim_dev *sdev = to_sdev(ibpd->device);
	struct sim_mr *mr;

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->ibmr.lkey = atomic_inc_return(&sdev->next_key) << 8;
	mr->ibmr.rkey = mr->ibmr.lkey;
	atomic_long_inc(&sim_count[SIM_K_MR]);
	return &mr->ibmr;
}

/**
 * sim_reg_user_mr_udata() - reg_user_mr, whatever the kernel's signature
 *	(compat.c)
 * @ibpd: the PD
 * @start: the user address
 * @length: its length
 * @virt: the I/O virtual address
 * @access: IB_ACCESS_* flags
 * @udata: rdmasim's driver data (required)
 *
 * Return: the MR, or an ERR_PTR().
 */
struct ib_mr *sim_reg_user_mr_udata(struct ib_pd *ibpd, u64 start, u64 length,
				    u64 virt, int access, struct ib_udata *udata)
{
	struct sim_dev *sdev = to_sdev(ibpd->device);
	struct sim_ucontext *uctx;
	struct sim_mr *mr;
	int ret;

	if (!sim_check_dev(sdev, ibpd->device, "reg_user_mr's PD"))
		return ERR_PTR(-EINVAL);
	if (!udata) {
		sim_strict("reg_user_mr: called without driver data");
		return ERR_PTR(-EINVAL);
	}
	/* The MR's uobject is set only after this returns: check its PD's */
	sim_check_user("reg_user_mr's PD", ibpd->uobject, &ibpd->res);
	uctx = sim_udata_uctx(sdev, udata,
			      ibpd->uobject ? ibpd->uobject->context : NULL,
			      "reg_user_mr");
	if (IS_ERR(uctx))
		return ERR_CAST(uctx);
	if (!length || length > SZ_1G)
		return ERR_PTR(-EINVAL);

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->umem = sim_umem_get(ibpd->device, start, length, access);
	if (IS_ERR(mr->umem)) {
		ret = PTR_ERR(mr->umem);
		goto err_free_mr;
	}
	mr->ibmr.lkey = atomic_inc_return(&sdev->next_key) << 8;
	mr->ibmr.rkey = mr->ibmr.lkey;
	mr->ibmr.iova = virt;
	mr->ibmr.length = length;
	mr->dp = simdp_mr_add(&sdev->dp, mr->ibmr.lkey, mr->umem, virt, length,
			      access, ibpd);
	if (IS_ERR(mr->dp)) {
		ret = PTR_ERR(mr->dp);
		goto err_release_umem;
	}
	atomic_long_inc(&sim_count[SIM_K_MR]);
	return &mr->ibmr;

err_release_umem:
	ib_umem_release(mr->umem);
err_free_mr:
	kfree(mr);
	return ERR_PTR(ret);
}

static int sim_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct sim_mr *mr = container_of(ibmr, struct sim_mr, ibmr);

	if (mr->dp)
		simdp_mr_del(mr->dp);
	if (mr->umem)
		ib_umem_release(mr->umem);
	kfree(mr);
	atomic_long_dec(&sim_count[SIM_K_MR]);
	return 0;
}

/**
 * sim_reg_user_mr_dmabuf_udata() - reg_user_mr_dmabuf, whatever the
 *	kernel's signature (compat.c)
 * @ibpd: the PD
 * @offset: the offset into the DMA-BUF
 * @length: the length registered
 * @virt: the I/O virtual address
 * @fd: the DMA-BUF
 * @access: IB_ACCESS_* flags
 * @udata: rdmasim's driver data (required)
 *
 * A DMA-BUF MR, as efa (and later irdma and bnxt_re) register one:
 * attached with the device's DMA device and pinned, so that no
 * move_notify is ever needed.  mlx5 attaches dynamically, with ODP.
 *
 * Return: the MR, or an ERR_PTR().
 */
struct ib_mr *sim_reg_user_mr_dmabuf_udata(struct ib_pd *ibpd, u64 offset,
					   u64 length, u64 virt, int fd,
					   int access, struct ib_udata *udata)
{
	struct sim_dev *sdev = to_sdev(ibpd->device);
	struct ib_umem_dmabuf *umem_dmabuf;
	struct sim_ucontext *uctx;
	struct sim_mr *mr;

	if (!sim_check_dev(sdev, ibpd->device, "reg_user_mr_dmabuf's PD"))
		return ERR_PTR(-EINVAL);
	if (!udata) {
		sim_strict("reg_user_mr_dmabuf: called without driver data");
		return ERR_PTR(-EINVAL);
	}
	sim_check_user("reg_user_mr_dmabuf's PD", ibpd->uobject, &ibpd->res);
	uctx = sim_udata_uctx(sdev, udata,
			      ibpd->uobject ? ibpd->uobject->context : NULL,
			      "reg_user_mr_dmabuf");
	if (IS_ERR(uctx))
		return ERR_CAST(uctx);
	if (!length || length > SZ_1G)
		return ERR_PTR(-EINVAL);

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	umem_dmabuf = ib_umem_dmabuf_get_pinned(ibpd->device, offset, length,
						fd, access);
	if (IS_ERR(umem_dmabuf)) {
		kfree(mr);
		return ERR_CAST(umem_dmabuf);
	}
	mr->umem = &umem_dmabuf->umem;
	mr->ibmr.lkey = atomic_inc_return(&sdev->next_key) << 8;
	mr->ibmr.rkey = mr->ibmr.lkey;
	mr->ibmr.iova = virt;
	mr->ibmr.length = length;
	atomic_long_inc(&sim_count[SIM_K_MR]);
	return &mr->ibmr;
}

/* --- driver uverbs objects and methods ----------------------------------- */

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

static int UVERBS_HANDLER(RDMASIM_METHOD_UAR_ALLOC)(struct uverbs_attr_bundle *attrs)
{
	struct ib_uobject *uobj =
		uverbs_attr_get_uobject(attrs, RDMASIM_ATTR_UAR_ALLOC_HANDLE);
	struct sim_mmap *m;
	u64 offset;
	u32 length;
	int ret;

	m = sim_uar_new(attrs, uobj, "UAR_ALLOC", SIM_MMAP_UAR, 0, U32_MAX);
	if (IS_ERR(m))
		return PTR_ERR(m);
	uobj->object = m;
	uverbs_finalize_uobj_create(attrs, RDMASIM_ATTR_UAR_ALLOC_HANDLE);
	atomic_long_inc(&sim_count[SIM_K_UAR]);

	offset = rdma_user_mmap_get_offset(&m->rdma_entry);
	length = m->len;
	ret = uverbs_copy_to(attrs, RDMASIM_ATTR_UAR_ALLOC_MMAP_OFFSET,
			     &offset, sizeof(offset));
	if (ret)
		return ret;
	ret = uverbs_copy_to(attrs, RDMASIM_ATTR_UAR_ALLOC_PAGE_ID,
			     &m->page_id, sizeof(m->page_id));
	if (ret)
		return ret;
	return uverbs_copy_to(attrs, RDMASIM_ATTR_UAR_ALLOC_MMAP_LENGTH,
			      &length, sizeof(length));
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
	struct ib_pd *ibpd = uverbs_attr_get_obj(attrs,
						 RDMASIM_ATTR_PD_QUERY_HANDLE);
	struct sim_pd *pd;

	if (IS_ERR(ibpd))
		return PTR_ERR(ibpd);
	/* The core found the PD by handle: it must be a sim PD */
	if (!sim_is_ours(ibpd->device)) {
		sim_strict("PD_QUERY: the PD is on %s, not a sim device",
			   dev_name(&ibpd->device->dev));
		return -EINVAL;
	}
	pd = container_of(ibpd, struct sim_pd, ibpd);
	return uverbs_copy_to(attrs, RDMASIM_ATTR_PD_QUERY_PDN, &pd->pdn,
			      sizeof(pd->pdn));
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

static const struct uapi_definition sim_uapi_defs[] = {
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

static const struct uapi_definition sim_uapi_defs_pdquery2[] = {
	UAPI_DEF_CHAIN(sim_uapi_defs),
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_PD, &sim_pd_query2_tree),
	{}
};

/* --- hardware variants ------------------------------------------------- */

static const char * const sim_variant_name[] = {
	[SIM_VAR_ROCE] = "roce",
	[SIM_VAR_IB] = "ib",
	[SIM_VAR_IWARP] = "iwarp",
	[SIM_VAR_NOKVERBS] = "nokverbs",
	[SIM_VAR_PCI] = "pci",
	[SIM_VAR_PDQUERY2] = "pdquery2",
	[SIM_VAR_VMOPS] = "vmops",
	[SIM_VAR_RAWMAP] = "rawmap",
	[SIM_VAR_PVRDMA] = "pvrdma",
	[SIM_VAR_MLX5] = "mlx5",
};

static int sim_variant = SIM_VAR_ROCE;

static int sim_variant_set(const char *val, const struct kernel_param *kp)
{
	int i = sysfs_match_string(sim_variant_name, val);

	if (i < 0)
		return -EINVAL;
	WRITE_ONCE(*(int *)kp->arg, i);
	return 0;
}

static int sim_variant_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n",
			  sim_variant_name[READ_ONCE(*(int *)kp->arg)]);
}

static const struct kernel_param_ops sim_variant_ops = {
	.set = sim_variant_set,
	.get = sim_variant_get,
};
module_param_cb(variant, &sim_variant_ops, &sim_variant, 0644);
MODULE_PARM_DESC(variant,
		 "what the next \"rdma link add\" makes: roce (default), ib, iwarp, nokverbs (EFA-like), pci (RoCE under a PCI-like device: an hns v2 function), pdquery2 (RoCE whose PD_QUERY takes a mandatory FLAGS attribute), vmops (RoCE whose mappings have vm_ops of its own, with a fault handler), rawmap (RoCE mapping a context page with remap_pfn_range(), untracked by the core, as 6.1's bnxt_re and pvrdma do), pvrdma (RoCE under vmw_pvrdma's driver id), mlx5 (RoCE speaking mlx5's user ABI: stock libmlx5 binds it)");

/*
 * The pci variant's bus device stands for an hns v2 RoCE function (Huawei
 * 19e5:a222), so that Debian's stock libhns, which binds by PCI id alone,
 * takes the device: libibverbs reads /sys/class/infiniband/DEV/device/
 * modalias.  As a PCI device's, its bus adds MODALIAS to its uevent, which
 * is where vrdma takes a parent's modalias from.  The bus is not "pci", so
 * udev's rdma_rename leaves the sim device's name alone, and it has no
 * driver to probe the device.
 */
#define SIM_PCI_MODALIAS "pci:v000019E5d0000A222sv000019E5sd00000000bc02sc00i00"

static int sim_pci_uevent(sim_uevent_dev *dev, struct kobj_uevent_env *env)
{
	return add_uevent_var(env, "MODALIAS=" SIM_PCI_MODALIAS);
}

static struct bus_type sim_pci_bus = {
	.name = "rdmasim_pci",
	.uevent = sim_pci_uevent,
};

static struct device *sim_pci_dev;

static ssize_t modalias_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	return sysfs_emit(buf, "%s\n", SIM_PCI_MODALIAS);
}
static DEVICE_ATTR_RO(modalias);

static struct attribute *sim_pci_attrs[] = {
	&dev_attr_modalias.attr,
	NULL,
};
ATTRIBUTE_GROUPS(sim_pci);

static void sim_pci_release(struct device *dev)
{
	kfree(dev);
}

static int sim_pci_dev_init(void)
{
	int ret;

	ret = bus_register(&sim_pci_bus);
	if (ret)
		return ret;
	sim_pci_dev = kzalloc(sizeof(*sim_pci_dev), GFP_KERNEL);
	if (!sim_pci_dev) {
		ret = -ENOMEM;
		goto err_bus;
	}
	device_initialize(sim_pci_dev);
	sim_pci_dev->release = sim_pci_release;
	sim_pci_dev->groups = sim_pci_groups;
	sim_pci_dev->bus = &sim_pci_bus;
	ret = dev_set_name(sim_pci_dev, "rdmasim-pci");
	if (!ret)
		ret = device_add(sim_pci_dev);
	if (ret)
		goto err_put;
	return 0;

err_put:
	put_device(sim_pci_dev);
	sim_pci_dev = NULL;
err_bus:
	bus_unregister(&sim_pci_bus);
	return ret;
}

static void sim_pci_dev_exit(void)
{
	device_unregister(sim_pci_dev);
	bus_unregister(&sim_pci_bus);
}

/* GID 0 is the port GID (link-local prefix, node GUID); the rest empty */
static int sim_query_gid(struct ib_device *ibdev, u32 port, int index,
			 union ib_gid *gid)
{
	memset(gid, 0, sizeof(*gid));
	if (index < 0 || index >= SIM_GID_TBL_LEN)
		return -EINVAL;
	if (!index) {
		gid->global.subnet_prefix = cpu_to_be64(0xfe80000000000000ULL);
		gid->global.interface_id = ibdev->node_guid;
	}
	return 0;
}

static int sim_variant_port_immutable(struct ib_device *ibdev, u32 port,
				      struct ib_port_immutable *imm)
{
	int ret;

	ret = sim_get_port_immutable(ibdev, port, imm);
	if (ret)
		return ret;
	switch (to_sdev(ibdev)->variant) {
	case SIM_VAR_IB:
		imm->core_cap_flags = RDMA_CORE_PORT_IBA_IB;
		break;
	case SIM_VAR_IWARP:
		imm->core_cap_flags = RDMA_CORE_PORT_IWARP;
		imm->max_mad_size = 0;
		break;
	case SIM_VAR_NOKVERBS:
		/* As EFA: no core capability at all */
		imm->core_cap_flags = 0;
		imm->max_mad_size = 0;
		break;
	}
	return 0;
}

static enum rdma_link_layer sim_variant_link_layer(struct ib_device *ibdev,
						   u32 port)
{
	switch (to_sdev(ibdev)->variant) {
	case SIM_VAR_IB:
		return IB_LINK_LAYER_INFINIBAND;
	case SIM_VAR_NOKVERBS:
		return IB_LINK_LAYER_UNSPECIFIED;
	default:
		return IB_LINK_LAYER_ETHERNET;
	}
}

/* Shape a new device after its variant; its ops are set */
static void sim_variant_setup(struct sim_dev *sdev)
{
	struct ib_device *ibdev = &sdev->ibdev;

	/*
	 * vmops differs in its mappings only (sim_mmap()), mlx5 in the
	 * ops and driver_def it set (mlx5.c)
	 */
	if (sdev->variant == SIM_VAR_ROCE || sdev->variant == SIM_VAR_VMOPS ||
	    sdev->variant == SIM_VAR_MLX5)
		return;
	/*
	 * As bnxt_re and pvrdma: no disassociate_ucontext, so natively the
	 * core waits for the file to close before the context goes.
	 */
	if (sdev->variant == SIM_VAR_RAWMAP) {
		ibdev->ops.disassociate_ucontext = NULL;
		return;
	}
	/* Its user ABI stays rdmasim's: only the identity differs */
	if (sdev->variant == SIM_VAR_PVRDMA) {
		ibdev->ops.driver_id = RDMA_DRIVER_VMW_PVRDMA;
		return;
	}
	if (sdev->variant == SIM_VAR_PCI) {
		ibdev->dev.parent = sim_pci_dev;
		return;
	}
	if (sdev->variant == SIM_VAR_PDQUERY2) {
		ibdev->driver_def = sim_uapi_defs_pdquery2;
		return;
	}
	/* The device's own copy of the ops */
	ibdev->ops.get_port_immutable = sim_variant_port_immutable;
	ibdev->ops.get_link_layer = sim_variant_link_layer;
	/* Every port that is not RoCE has its GIDs from the driver */
	ibdev->ops.query_gid = sim_query_gid;
	if (sdev->variant == SIM_VAR_IWARP)
		ibdev->node_type = RDMA_NODE_RNIC;
	if (sdev->variant == SIM_VAR_NOKVERBS) {
		/* Without these the core sees no kernel verbs provider */
		ibdev->node_type = RDMA_NODE_UNSPECIFIED;
		ibdev->ops.get_dma_mr = NULL;
		ibdev->ops.poll_cq = NULL;
		ibdev->ops.post_recv = NULL;
		ibdev->ops.post_send = NULL;
		ibdev->ops.req_notify_cq = NULL;
	}
}

/* --- registration ------------------------------------------------------- */

static void sim_dealloc_driver(struct ib_device *ibdev)
{
	struct sim_dev *sdev = to_sdev(ibdev);

	mutex_lock(&sim_devs_lock);
	list_del(&sdev->list_node);
	mutex_unlock(&sim_devs_lock);
	simdp_dev_fini(&sdev->dp);
	ida_destroy(&sdev->qpn_ida);
	ida_destroy(&sdev->uar_ida);
	atomic_long_dec(&sim_count[SIM_K_DEV]);
}

/* rdmasim's own ABI: the identity libibverbs binds no provider to */
static const struct ib_device_ops sim_abi_ops = {
	.driver_id = RDMASIM_DRIVER_ID,
	.uverbs_abi_ver = RDMASIM_ABI_VERSION,
};

/* Every personality's, where it sets nothing of its own (mlx5.c) */
static const struct ib_device_ops sim_dev_ops = {
	.owner = THIS_MODULE,

	.alloc_pd = sim_alloc_pd,
	.alloc_ucontext = sim_alloc_ucontext,
	.create_cq = sim_create_cq,
	SIM_USER_CQ_OP(sim_create_user_cq)
	.create_qp = sim_create_qp,
	.dealloc_driver = sim_dealloc_driver,
	.dealloc_pd = sim_dealloc_pd,
	.dealloc_ucontext = sim_dealloc_ucontext,
	.dereg_mr = sim_dereg_mr,
	.destroy_cq = sim_destroy_cq,
	.destroy_qp = sim_destroy_qp,
	.disassociate_ucontext = sim_disassociate_ucontext,
	.get_dma_mr = sim_get_dma_mr,
	.get_link_layer = sim_get_link_layer,
	.get_port_immutable = sim_get_port_immutable,
	.mmap = sim_mmap,
	.mmap_free = sim_mmap_free,
	.modify_qp = sim_modify_qp,
	.poll_cq = sim_poll_cq,
	.post_recv = sim_post_recv,
	.post_send = sim_post_send,
	.query_device = sim_query_device,
	.query_pkey = sim_query_pkey,
	.query_port = sim_query_port,
	.query_qp = sim_query_qp,
	.query_ucontext = sim_query_ucontext,
	.reg_user_mr = sim_reg_user_mr,
	.reg_user_mr_dmabuf = sim_reg_user_mr_dmabuf,
	.req_notify_cq = sim_req_notify_cq,

	INIT_RDMA_OBJ_SIZE(ib_cq, sim_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_pd, sim_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, sim_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, sim_ucontext, ibuc),
};

/* Is there a sim device on @ndev?  Called under sim_devs_lock */
static bool sim_ndev_taken(struct net_device *ndev)
{
	struct sim_dev *sdev;

	list_for_each_entry(sdev, &sim_devs, list_node)
		if (sdev->ndev == ndev)
			return true;
	return false;
}

static int sim_newlink(const char *ibdev_name, struct net_device *ndev)
{
	struct sim_dev *sdev;
	int ret;

	if (ndev->type != ARPHRD_ETHER)
		return -EINVAL;
	sdev = ib_alloc_device(sim_dev, ibdev);
	if (!sdev)
		return -ENOMEM;
	/* From here ib_dealloc_device() calls dealloc_driver, which undoes */
	atomic_long_inc(&sim_count[SIM_K_DEV]);
	sdev->ndev = ndev;
	ida_init(&sdev->qpn_ida);
	ida_init(&sdev->uar_ida);
	spin_lock_init(&sdev->uctx_lock);
	INIT_LIST_HEAD(&sdev->uctxs);
	INIT_LIST_HEAD(&sdev->list_node);
	simdp_dev_init(&sdev->dp);

	sdev->variant = READ_ONCE(sim_variant);
	sdev->ibdev.node_type = RDMA_NODE_IB_CA;
	sdev->ibdev.phys_port_cnt = 1;
	sdev->ibdev.num_comp_vectors = 1;
	addrconf_addr_eui48((u8 *)&sdev->ibdev.node_guid, ndev->dev_addr);
	strscpy(sdev->ibdev.node_desc, "rdmasim",
		sizeof(sdev->ibdev.node_desc));
	/*
	 * The personality's ops first: ib_set_device_ops() fills only what
	 * is still unset, so they win over the common ones.
	 */
	if (sdev->variant == SIM_VAR_MLX5) {
		sim_mlx5_setup(sdev);
	} else {
		ib_set_device_ops(&sdev->ibdev, &sim_abi_ops);
		sdev->ibdev.driver_def = sim_uapi_defs;
		/* A user POST_SEND reaches sim_post_send(); mlx5 keeps it off */
		sdev->ibdev.uverbs_cmd_mask |=
			BIT_ULL(IB_USER_VERBS_CMD_POST_SEND);
	}
	ib_set_device_ops(&sdev->ibdev, &sim_dev_ops);
	sim_variant_setup(sdev);

	ret = ib_device_set_netdev(&sdev->ibdev, ndev, 1);
	if (ret)
		goto err_dealloc;

	mutex_lock(&sim_devs_lock);
	if (sim_ndev_taken(ndev)) {
		mutex_unlock(&sim_devs_lock);
		ret = -EEXIST;
		goto err_dealloc;
	}
	list_add_tail(&sdev->list_node, &sim_devs);
	mutex_unlock(&sim_devs_lock);

	ret = ib_register_device(&sdev->ibdev, ibdev_name, &sim_dma_pdev->dev);
	if (ret)
		goto err_dealloc;
	return 0;

err_dealloc:
	ib_dealloc_device(&sdev->ibdev);
	return ret;
}

static struct rdma_link_ops sim_link_ops = {
	.type = "rdmasim",
	.newlink = sim_newlink,
};

/* The netdev goes: the device goes, as a NIC's does on hot unplug */
static int sim_netdev_event(struct notifier_block *nb, unsigned long event,
			    void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	struct sim_dev *sdev;

	if (event != NETDEV_UNREGISTER)
		return NOTIFY_DONE;
	mutex_lock(&sim_devs_lock);
	list_for_each_entry(sdev, &sim_devs, list_node) {
		/* A failed get: it is being unregistered already */
		if (sdev->ndev == ndev && ib_device_try_get(&sdev->ibdev)) {
			ib_unregister_device_queued(&sdev->ibdev);
			ib_device_put(&sdev->ibdev);
		}
	}
	mutex_unlock(&sim_devs_lock);
	return NOTIFY_DONE;
}

static struct notifier_block sim_netdev_nb = {
	.notifier_call = sim_netdev_event,
};

static int sim_objects_show(struct seq_file *s, void *unused)
{
	int i;

	for (i = 0; i < SIM_K_NR; i++)
		seq_printf(s, "%s %ld\n", sim_kind_name[i],
			   atomic_long_read(&sim_count[i]));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sim_objects);

static int sim_strict_show(struct seq_file *s, void *unused)
{
	seq_printf(s, "%ld\n", atomic_long_read(&sim_strict_hits));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sim_strict);

static int __init sim_init(void)
{
	int ret;

	sim_dma_pdev = platform_device_register_simple("rdmasim",
						       PLATFORM_DEVID_NONE,
						       NULL, 0);
	if (IS_ERR(sim_dma_pdev))
		return PTR_ERR(sim_dma_pdev);
	ret = dma_coerce_mask_and_coherent(&sim_dma_pdev->dev,
					   DMA_BIT_MASK(64));
	if (ret)
		goto err_pdev;
	ret = sim_pci_dev_init();
	if (ret)
		goto err_pdev;
	ret = register_netdevice_notifier(&sim_netdev_nb);
	if (ret)
		goto err_pci;
	sim_debugfs = debugfs_create_dir("rdmasim", NULL);
	debugfs_create_file("objects", 0444, sim_debugfs, NULL,
			    &sim_objects_fops);
	debugfs_create_file("strict", 0444, sim_debugfs, NULL,
			    &sim_strict_fops);
	sim_mlx5_debugfs_init(sim_debugfs);
	ret = simdp_init(sim_debugfs);
	if (ret)
		goto err_debugfs;
	rdma_link_register(&sim_link_ops);
	return 0;

err_debugfs:
	debugfs_remove_recursive(sim_debugfs);
	unregister_netdevice_notifier(&sim_netdev_nb);
err_pci:
	sim_pci_dev_exit();
err_pdev:
	platform_device_unregister(sim_dma_pdev);
	return ret;
}

/*
 * Unregister every sim device: not with ib_unregister_driver(), which
 * would also take vrdma's vdevices on a sim parent (they report its
 * driver_id), but one by one from our own list.
 */
static void sim_unregister_all(void)
{
	struct sim_dev *sdev;

	for (;;) {
		mutex_lock(&sim_devs_lock);
		sdev = NULL;
		list_for_each_entry(sdev, &sim_devs, list_node) {
			if (!sdev->exiting)
				break;
		}
		if (list_entry_is_head(sdev, &sim_devs, list_node)) {
			mutex_unlock(&sim_devs_lock);
			break;
		}
		sdev->exiting = true;
		get_device(&sdev->ibdev.dev);
		mutex_unlock(&sim_devs_lock);
		ib_unregister_device(&sdev->ibdev);
		put_device(&sdev->ibdev.dev);
	}
}

static void __exit sim_exit(void)
{
	rdma_link_unregister(&sim_link_ops);
	unregister_netdevice_notifier(&sim_netdev_nb);
	sim_unregister_all();
	simdp_exit();
	debugfs_remove_recursive(sim_debugfs);
	sim_pci_dev_exit();
	platform_device_unregister(sim_dma_pdev);
}

module_init(sim_init);
module_exit(sim_exit);

MODULE_DESCRIPTION("rdmasim: a simulated hardware RDMA device for vrdma's selftests");
MODULE_LICENSE("GPL");
MODULE_ALIAS_RDMA_LINK("rdmasim");
