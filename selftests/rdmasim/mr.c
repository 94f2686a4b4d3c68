// SPDX-License-Identifier: GPL-2.0
/* rdmasim: memory regions */
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_umem.h>

#include "sim.h"

struct sim_mr {
	struct ib_mr ibmr;
	struct ib_umem *umem;		/* NULL for the kernel's DMA MR */
	struct simdp_mr *dp;		/* user MRs: the data path's view */
};

/*
 * A new MR's key, the same for local and remote access and never reused,
 * and the range it covers (none for the DMA MR)
 */
static void sim_mr_init(struct sim_dev *sdev, struct sim_mr *mr, u64 iova,
			u64 length)
{
	mr->ibmr.lkey = atomic_inc_return(&sdev->next_key) << 8;
	mr->ibmr.rkey = mr->ibmr.lkey;
	mr->ibmr.iova = iova;
	mr->ibmr.length = length;
}

static struct ib_mr *sim_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct sim_dev *sdev = to_sdev(ibpd->device);
	struct sim_mr *mr;

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	sim_mr_init(sdev, mr, 0, 0);
	atomic_long_inc(&sim_count[SIM_K_MR]);
	return &mr->ibmr;
}

/*
 * A user registration's MR, once it checked a PD of the device, driver
 * data whose ucontext is the device's, a length the device takes.  @verb
 * names the verb in reports, @pd_what its PD.  Return: the MR, or an
 * ERR_PTR().
 */
static struct sim_mr *sim_mr_user_new(struct ib_pd *ibpd, u64 length,
				      struct ib_udata *udata, const char *verb,
				      const char *pd_what)
{
	struct sim_dev *sdev = to_sdev(ibpd->device);
	struct sim_ucontext *uctx;
	struct sim_mr *mr;

	if (!sim_check_dev(sdev, ibpd->device, pd_what))
		return ERR_PTR(-EINVAL);
	if (!udata) {
		sim_strict("%s: called without driver data", verb);
		return ERR_PTR(-EINVAL);
	}
	/* The MR's uobject is set only after this returns: check its PD's */
	sim_check_user(pd_what, ibpd->uobject, &ibpd->res);
	uctx = sim_pd_udata_uctx(sdev, udata, ibpd, verb);
	if (IS_ERR(uctx))
		return ERR_CAST(uctx);
	if (!length || length > SZ_1G)
		return ERR_PTR(-EINVAL);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	return mr ?: ERR_PTR(-ENOMEM);
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
	struct sim_mr *mr;
	int ret;

	mr = sim_mr_user_new(ibpd, length, udata, "reg_user_mr",
			     "reg_user_mr's PD");
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->umem = sim_umem_get(ibpd->device, start, length, access);
	if (IS_ERR(mr->umem)) {
		ret = PTR_ERR(mr->umem);
		goto err_free_mr;
	}
	sim_mr_init(sdev, mr, virt, length);
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
	struct sim_mr *mr;

	mr = sim_mr_user_new(ibpd, length, udata, "reg_user_mr_dmabuf",
			     "reg_user_mr_dmabuf's PD");
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	umem_dmabuf = ib_umem_dmabuf_get_pinned(ibpd->device, offset, length,
						fd, access);
	if (IS_ERR(umem_dmabuf)) {
		kfree(mr);
		return ERR_CAST(umem_dmabuf);
	}
	mr->umem = &umem_dmabuf->umem;
	sim_mr_init(sdev, mr, virt, length);
	atomic_long_inc(&sim_count[SIM_K_MR]);
	return &mr->ibmr;
}

/* The MRs' part of every personality's ops (link.c); compat.c has reg_* */
const struct ib_device_ops sim_mr_ops = {
	.dereg_mr = sim_dereg_mr,
	.get_dma_mr = sim_get_dma_mr,
};
