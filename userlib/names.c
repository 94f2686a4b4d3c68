// SPDX-License-Identifier: MIT
/*
 * Names of the numbers the protocol carries, and value-set helpers.
 */
#include <stddef.h>

#include "internal.h"

void vrdma_res_set(struct vrdma_res_values *v, enum vrdma_res res,
		   uint64_t val)
{
	if (res < VRDMA_RES_CTX || res > VRDMA_RES_MAX)
		return;
	v->val[res] = val;
	v->present |= 1u << res;
}

bool vrdma_res_has(const struct vrdma_res_values *v, enum vrdma_res res)
{
	if (res < VRDMA_RES_CTX || res > VRDMA_RES_MAX)
		return false;
	return v->present & (1u << res);
}

static const char *const res_names[__VRDMA_RES_MAX] = VRDMA_RES_NAMES;

const char *vrdma_res_name(enum vrdma_res res)
{
	if (res < VRDMA_RES_CTX || res > VRDMA_RES_MAX)
		return NULL;
	return res_names[res];
}

/* enum ib_port_state, <rdma/ib_verbs.h> (kernel-internal, values are ABI) */
static const char *const port_states[] = {
	"NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER",
};

const char *vrdma_port_state_name(uint8_t state)
{
	if (state >= ARRAY_SIZE(port_states))
		return NULL;
	return port_states[state];
}

/* enum rdma_driver_id, <rdma/ib_user_ioctl_verbs.h>; names as in rdma(8) */
static const char *const driver_names[] = {
	[0]	= NULL,		/* RDMA_DRIVER_UNKNOWN */
	[1]	= "mlx5",
	[2]	= "mlx4",
	[3]	= "cxgb3",
	[4]	= "cxgb4",
	[5]	= "mthca",
	[6]	= "bnxt_re",
	[7]	= "ocrdma",
	[8]	= "nes",
	[9]	= "irdma",	/* was i40iw */
	[10]	= "vmw_pvrdma",
	[11]	= "qedr",
	[12]	= "hns",
	[13]	= "usnic",
	[14]	= "rxe",
	[15]	= "hfi1",
	[16]	= "qib",
	[17]	= "efa",
	[18]	= "siw",
	[19]	= "erdma",
	[20]	= "mana",
};

const char *vrdma_driver_name(uint32_t driver_id)
{
	if (driver_id >= ARRAY_SIZE(driver_names))
		return NULL;
	return driver_names[driver_id];
}

static const char *const del_reasons[] = {
	[VRDMA_DEL_USER]	= "user",
	[VRDMA_DEL_NETNS]	= "netns",
	[VRDMA_DEL_PARENT]	= "parent",
	[VRDMA_DEL_UNLOAD]	= "unload",
	[VRDMA_DEL_MOVED]	= "moved",
};

const char *vrdma_del_reason_name(int reason)
{
	if (reason < 0 ||
	    (size_t)reason >= ARRAY_SIZE(del_reasons))
		return NULL;
	return del_reasons[reason];
}

static const char *const gid_modes[] = {
	[VRDMA_GID_MODE_TENANT]	= "tenant",
	[VRDMA_GID_MODE_SHARED]	= "shared",
};

const char *vrdma_gid_mode_name(int mode)
{
	if (mode < 0 || (size_t)mode >= ARRAY_SIZE(gid_modes))
		return NULL;
	return gid_modes[mode];
}
