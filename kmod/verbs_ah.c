// SPDX-License-Identifier: GPL-2.0
/* Address handles: the source GID is translated to the parent's. */
#include "vrdma.h"

/**
 * vrdma_create_user_ah() - create an AH and its shadow on the parent
 * @ibah: the vdevice AH, allocated by the core
 * @init: the address vector, naming a vdevice source GID
 * @udata: the provider's driver data (rxe returns its AH index in it)
 *
 * Return: 0 or a negative errno.
 */
int vrdma_create_user_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
			 struct ib_udata *udata)
{
	struct vrdma_dev *vdev = to_vdev(ibah->device);
	struct rdma_ah_attr pattr = *init->ah_attr;
	struct uverbs_attr_bundle parent_bundle;
	struct ib_ah *shadow;
	int ret;

	ret = vrdma_parent_udata(&parent_bundle, udata) ?:
	      vrdma_acl_check_av(vdev, init->ah_attr) ?:
	      vrdma_shadow_charge(vdev, VRDMA_KIND_AH);
	if (ret)
		return ret;

	ret = vrdma_ah_attr_to_parent(vdev, &pattr);
	if (ret)
		return vrdma_shadow_done(vdev, VRDMA_KIND_AH, ret);
	ret = vrdma_shadow_fault(VRDMA_KIND_AH);
	shadow = ret ? ERR_PTR(ret) :
		 rdma_create_user_ah(vrdma_shadow_pd(ibah->pd), &pattr,
				     &parent_bundle.driver_udata);
	vrdma_ah_attr_put(&pattr);
	if (!IS_ERR(shadow))
		to_vah(ibah)->shadow = shadow;
	return vrdma_shadow_done(vdev, VRDMA_KIND_AH, PTR_ERR_OR_ZERO(shadow));
}

/**
 * vrdma_destroy_ah() - destroy an AH and its shadow
 * @ibah: the vdevice AH
 * @flags: RDMA_DESTROY_AH_SLEEPABLE or not
 *
 * Return: 0 or the parent's error.
 */
int vrdma_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	int ret;

	if (!to_vah(ibah)->shadow) {
		vrdma_kah_destroy(ibah);
		return 0;
	}
	ret = rdma_destroy_ah_user(to_vah(ibah)->shadow, flags, NULL);
	if (ret)
		return ret;
	vrdma_shadow_gone(to_vdev(ibah->device), VRDMA_KIND_AH);
	return 0;
}
