// SPDX-License-Identifier: GPL-2.0
/* rdmasim: protection domains */
#include <rdma/ib_verbs.h>

#include <rdma/rdmasim-abi.h>
#include "sim.h"

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
	uctx = sim_pd_udata_uctx(sdev, udata, ibpd, "alloc_pd");
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

/* The PDs' part of every personality's ops (link.c) */
const struct ib_device_ops sim_pd_ops = {
	.alloc_pd = sim_alloc_pd,
	.dealloc_pd = sim_dealloc_pd,

	INIT_RDMA_OBJ_SIZE(ib_pd, sim_pd, ibpd),
};
