// SPDX-License-Identifier: GPL-2.0
/* rdmasim: protection domains */
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include <rdma/rdmasim-abi.h>
#include "sim.h"

/* A new PD's number, and the checks of a user PD */
static int sim_pd_init(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct sim_dev *sdev = to_sdev(ibpd->device);
	struct sim_ucontext *uctx;

	to_spd(ibpd)->pdn = atomic_inc_return(&sdev->next_pdn);
	if (!udata)
		return 0;
	sim_check_user("alloc_pd", ibpd->uobject, &ibpd->res);
	uctx = sim_pd_udata_uctx(sdev, udata, ibpd, "alloc_pd");
	return PTR_ERR_OR_ZERO(uctx);
}

/**
 * sim_pd_alloc() - alloc_pd, in every personality's response
 * @ibpd: the PD the core allocated
 * @udata: the caller's driver data, NULL for a kernel PD
 * @resp: the personality's zeroed response, written to a user PD's caller
 * @resp_pdn: the field of @resp that takes the PD number
 * @resp_len: how many bytes of @resp the caller gets
 *
 * Return: 0, -EINVAL when the udata's ucontext is not the device's, or
 * -EFAULT when the response cannot be written.
 */
int sim_pd_alloc(struct ib_pd *ibpd, struct ib_udata *udata, void *resp,
		 __u32 *resp_pdn, size_t resp_len)
{
	int ret;

	ret = sim_pd_init(ibpd, udata);
	if (ret)
		return ret;
	if (udata) {
		*resp_pdn = to_spd(ibpd)->pdn;
		ret = ib_copy_to_udata(udata, resp, resp_len);
		if (ret)
			return ret;
	}
	atomic_long_inc(&sim_count[SIM_K_PD]);
	return 0;
}

/* A caller whose response is shorter than rdmasim's gets what fits */
static int sim_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct rdmasim_alloc_pd_resp resp = {};

	return sim_pd_alloc(ibpd, udata, &resp, &resp.pdn,
			    udata ? min(udata->outlen, sizeof(resp)) : 0);
}

/**
 * sim_pd_query() - PD_QUERY of every personality: a PD's number
 * @attrs: the method's attributes
 * @handle: the attribute of the PD's handle
 * @pdn: the attribute that takes its number (a u32)
 *
 * The core found the PD by handle, on whatever device: it must be a sim PD.
 *
 * Return: 0, or a negative errno.
 */
int sim_pd_query(struct uverbs_attr_bundle *attrs, u16 handle, u16 pdn)
{
	struct ib_pd *ibpd = uverbs_attr_get_obj(attrs, handle);

	if (IS_ERR(ibpd))
		return PTR_ERR(ibpd);
	if (!sim_is_ours(ibpd->device)) {
		sim_strict("PD_QUERY: the PD is on %s, not a sim device",
			   dev_name(&ibpd->device->dev));
		return -EINVAL;
	}
	return uverbs_copy_to(attrs, pdn, &to_spd(ibpd)->pdn, sizeof(u32));
}

static int sim_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	atomic_long_dec(&sim_count[SIM_K_PD]);
	return 0;
}

/* The PDs' part of every personality's ops (link.c) */
const struct ib_device_ops sim_pd_ops = {
	.alloc_pd = sim_alloc_pd,
	.dealloc_pd = sim_dealloc_pd,

	INIT_RDMA_OBJ_SIZE(ib_pd, sim_pd, ibpd),
};
