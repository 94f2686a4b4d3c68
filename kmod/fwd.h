/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Forwarding of a parent driver's own uverbs methods (fwd.c).
 *
 * A vdevice declares, per parent driver, a whitelist of the parent's
 * driver-namespace methods in its own ib_device.driver_def (fwd_<driver>.c),
 * with the attribute specifications of the parent's uapi headers and a
 * vrdma handler per method.  When a vdevice is created, each declared
 * method is matched against the parent's driver_def; only a method found
 * there with the same attributes is forwarded, the others answer
 * EOPNOTSUPP (methods on core objects) or are left out of the vdevice's
 * uverbs tree (the parent's own object types, UAPI_DEF_IS_OBJ_SUPPORTED).
 *
 * The same whitelist declares the parent's driver attributes on core
 * methods (mlx5's UAR index on CQ create...), one group per
 * ADD_UVERBS_ATTRIBUTES_SIMPLE(); a group is in the vdevice's uverbs tree
 * only when the parent defines each of its attributes the same way, and
 * reaches the parent in the caller's bundle (udata.c).
 */
#ifndef _VRDMA_FWD_H
#define _VRDMA_FWD_H

#include <rdma/uverbs_ioctl.h>
#include <rdma/uverbs_types.h>

/* What one vdevice may forward; sized for the largest whitelist */
#define VRDMA_FWD_MAX_METHODS	8
#define VRDMA_FWD_MAX_TYPES	4
/* IDR attributes (object handles) of one forwarded method */
#define VRDMA_FWD_MAX_IDR	4
/* Driver attribute groups on core methods */
#define VRDMA_FWD_MAX_ATTR_GROUPS	8

typedef int (*vrdma_fwd_handler_t)(struct uverbs_attr_bundle *attrs);
typedef int (*vrdma_fwd_destroy_t)(struct ib_uobject *uobj,
				   enum rdma_remove_reason why,
				   struct uverbs_attr_bundle *attrs);

/**
 * struct vrdma_fwd_method - a declared method and the parent's handler
 * @object_id: the object the method belongs to
 * @mine: vrdma's declaration of it
 * @handler: the parent's handler, NULL when it is not forwarded
 */
struct vrdma_fwd_method {
	u16 object_id;
	const struct uverbs_method_def *mine;
	vrdma_fwd_handler_t handler;
};

/**
 * struct vrdma_fwd_type - a parent object type the vdevice offers
 * @object_id: its id, in the driver namespace
 * @destroy: the parent's destroy_object, NULL when it is not offered
 */
struct vrdma_fwd_type {
	u16 object_id;
	vrdma_fwd_destroy_t destroy;
};

struct vrdma_fwd_driver;

/**
 * struct vrdma_fwd - what a vdevice forwards to its parent's driver
 * @drv: the whitelist of the parent's driver, NULL if vrdma has none
 * @method: the declared methods, with their parent handlers
 * @nr_methods: entries in @method
 * @type: the declared object types, with the parent's cleanup
 * @nr_types: entries in @type
 * @defs: the vdevice's driver_def: the whitelist's methods and types, then
 *	the attribute groups the parent defines the same way, then the end
 *
 * Resolved once before the vdevice is registered, constant after.
 */
struct vrdma_fwd {
	const struct vrdma_fwd_driver *drv;
	struct vrdma_fwd_method method[VRDMA_FWD_MAX_METHODS];
	unsigned int nr_methods;
	struct vrdma_fwd_type type[VRDMA_FWD_MAX_TYPES];
	unsigned int nr_types;
	struct uapi_definition defs[VRDMA_FWD_MAX_ATTR_GROUPS + 2];
};

/**
 * struct vrdma_fwd_driver - the whitelist for one parent driver
 * @driver_id: the parent's ib_device_ops.driver_id
 * @name: the driver, for messages
 * @defs: its methods and object types
 * @attrs: its attribute groups on core methods: UAPI_DEF_CHAIN_OBJ_TREE()
 *	entries of one ADD_UVERBS_ATTRIBUTES_SIMPLE() each, of PTR_IN and
 *	PTR_OUT attributes only, or NULL
 * @check_uctx_req: vets the provider's alloc_ucontext request on the
 *	vdevice @ibdev before the parent sees it, and refuses one that would
 *	give the shadow context a capability vrdma does not forward; returns
 *	0 or the errno the vdevice answers.  NULL: nothing to vet.
 */
struct vrdma_fwd_driver {
	u32 driver_id;
	const char *name;
	const struct uapi_definition *defs;
	const struct uapi_definition *attrs;
	int (*check_uctx_req)(struct ib_device *ibdev, struct ib_udata *udata);
};

extern const struct vrdma_fwd_driver vrdma_fwd_rdmasim;
extern const struct vrdma_fwd_driver vrdma_fwd_mlx5;

int vrdma_fwd_call(struct uverbs_attr_bundle *attrs, u16 object_id,
		   u16 method_id);
int vrdma_fwd_destroy(struct ib_uobject *uobj, enum rdma_remove_reason why,
		      struct uverbs_attr_bundle *attrs, u16 object_id);
bool vrdma_fwd_type_supported(struct ib_device *ibdev, u16 object_id);

/*
 * A fwd_<driver>.c declares each method with DECLARE_UVERBS_NAMED_METHOD()
 * and a handler that calls vrdma_fwd_call() with its ids, and each parent
 * object type with UVERBS_TYPE_ALLOC_IDR() of a cleanup that calls
 * vrdma_fwd_destroy() and UAPI_DEF_IS_OBJ_SUPPORTED() of a test that calls
 * vrdma_fwd_type_supported(), each with the object's id.
 */

#endif /* _VRDMA_FWD_H */
