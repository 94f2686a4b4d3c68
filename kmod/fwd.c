// SPDX-License-Identifier: GPL-2.0
/*
 * Forwarding of a parent driver's own uverbs methods.
 *
 * A parent's driver-namespace methods (mlx5's UAR_OBJ_ALLOC, PD_QUERY...)
 * cannot simply be copied into a vdevice: their handlers find the ucontext
 * through the uverbs file, the objects through the attribute bundle, and
 * both would be the vdevice's.  So the vdevice declares its own methods
 * (fwd_<driver>.c) and each vrdma handler calls the parent's with the real
 * bundle, the core's, after substituting for the duration of the call:
 *
 *   attrs->context   the shadow ucontext (rdma_udata_to_drv_context())
 *   attrs->ufile     a stand-in uverbs file whose ucontext is the shadow
 *                    (ib_uverbs_get_ucontext()); see vrdma_fwd_ufile_init()
 *   object handles   a stand-in uobject per IDR attribute, whose object is
 *                    the shadow PD/CQ/QP (core types) or the parent's own
 *                    object (parent types), and whose context is the shadow
 *
 * and restoring them before it returns, so that the core finalizes the
 * bundle with its own uobjects.  The parent's bundle helpers
 * (uverbs_copy_to(), uverbs_finalize_uobj_create(), uverbs_zalloc()) work
 * on the real bundle as they do natively.  A new object of a parent type
 * stays in the vdevice file's IDR under a vrdma type whose cleanup calls
 * the parent's destroy_object with a stand-in again (vrdma_fwd_destroy()).
 * mmap entries the parent inserts land in the shadow ucontext, which the
 * vdevice's mmap forwards to already.
 *
 * Safety: a declared method is forwarded only when the parent's tree has
 * a method of the same object and id whose attributes, handler kind and
 * flags are exactly vrdma's declaration (so the handler reads only what
 * vrdma substitutes), and whose object handles are of a kind vrdma can
 * stand in for; its object types must be IDR types of plain uobject size.
 * Anything else answers EOPNOTSUPP.  What a whitelisted handler may touch
 * beyond that (only ib_uverbs_get_ucontext() of the file) is reviewed per
 * method: see Documentation/design.rst.
 */
#include "vrdma.h"
#include "fwd.h"

static const struct vrdma_fwd_driver *const vrdma_fwd_drivers[] = {
	&vrdma_fwd_rdmasim,
	&vrdma_fwd_mlx5,
};

/* --- the stand-in uverbs file -------------------------------------------- */

/*
 * struct ib_uverbs_file is private to ib_uverbs; ib_uverbs_get_ucontext()
 * reads two of its fields: ucontext, and device (for the disassociation
 * check, through the real uverbs device, whose SRCU the caller holds).
 * scripts/conftest.sh reads their offsets from the BTF of the target's
 * ib_uverbs.ko and refuses to build when it cannot; the stand-in is only
 * the bytes up to the later of the two.
 */
static void vrdma_ufile_set(u8 *ufile, size_t off, void *val)
{
	memcpy(ufile + off, &val, sizeof(val));
}

/**
 * vrdma_fwd_ufile_init() - set up the stand-in uverbs file of a context
 * @ibuc: the vdevice ucontext, its shadow already allocated by the parent
 */
void vrdma_fwd_ufile_init(struct ib_ucontext *ibuc)
{
	struct vrdma_ucontext *vuc = to_vuctx(ibuc);
	void *dev;

	memcpy(&dev, (u8 *)ibuc->ufile + VRDMA_UFILE_OFF_DEVICE, sizeof(dev));
	memset(vuc->stand_ufile, 0, sizeof(vuc->stand_ufile));
	vrdma_ufile_set(vuc->stand_ufile, VRDMA_UFILE_OFF_DEVICE, dev);
	vrdma_ufile_set(vuc->stand_ufile, VRDMA_UFILE_OFF_UCONTEXT,
			vuc->holder->shadow);
}

/* --- resolution against the parent's tree ------------------------------- */

/* Is object @id disabled in @defs for @parent_ibdev, as the core decides? */
static bool vrdma_fwd_disabled(struct ib_device *parent_ibdev,
			       const struct uapi_definition *defs, u16 id)
{
	const struct uapi_definition *def;
	bool cur = false;
	void **fn;

	for (def = defs; def && def->kind != UAPI_DEF_END; def++) {
		switch (def->kind) {
		case UAPI_DEF_CHAIN:
			if (vrdma_fwd_disabled(parent_ibdev, def->chain, id))
				return true;
			break;
		case UAPI_DEF_CHAIN_OBJ_TREE:
		case UAPI_DEF_OBJECT_START:
			cur = def->object_start.object_id == id;
			break;
		case UAPI_DEF_IS_SUPPORTED_FUNC:
			if (cur && def->scope == UAPI_SCOPE_OBJECT &&
			    !def->func_is_supported(parent_ibdev))
				return true;
			break;
		case UAPI_DEF_IS_SUPPORTED_DEV_FN:
			fn = (void *)&parent_ibdev->ops + def->needs_fn_offset;
			if (cur && def->scope == UAPI_SCOPE_OBJECT && !*fn)
				return true;
			break;
		default:
			/* write() methods keep the object they follow */
			break;
		}
	}
	return false;
}

/*
 * vrdma_fwd_each_tree - call @fn on every object tree of @defs chained for
 * object @id, until it returns true.
 */
static bool vrdma_fwd_each_tree(const struct uapi_definition *defs, u16 id,
				bool (*fn)(const struct uverbs_object_def *tree,
					   void *arg),
				void *arg)
{
	const struct uapi_definition *def;

	for (def = defs; def && def->kind != UAPI_DEF_END; def++) {
		if (def->kind == UAPI_DEF_CHAIN &&
		    vrdma_fwd_each_tree(def->chain, id, fn, arg))
			return true;
		/* NULL without CONFIG_INFINIBAND_USER_ACCESS (6.12) */
		if (def->kind == UAPI_DEF_CHAIN_OBJ_TREE &&
		    def->object_start.object_id == id && def->chain_obj_tree &&
		    fn(def->chain_obj_tree, arg))
			return true;
	}
	return false;
}

static bool vrdma_fwd_spec_same(const struct uverbs_attr_spec *a,
				const struct uverbs_attr_spec *b)
{
	if (a->type != b->type || a->zero_trailing != b->zero_trailing ||
	    a->alloc_and_copy != b->alloc_and_copy ||
	    a->mandatory != b->mandatory || a->is_udata != b->is_udata)
		return false;
	switch (a->type) {
	case UVERBS_ATTR_TYPE_PTR_IN:
	case UVERBS_ATTR_TYPE_PTR_OUT:
		return a->u.ptr.len == b->u.ptr.len &&
		       a->u.ptr.min_len == b->u.ptr.min_len;
	case UVERBS_ATTR_TYPE_IDR:
		return a->u.obj.obj_type == b->u.obj.obj_type &&
		       a->u.obj.access == b->u.obj.access;
	default:
		/* FD, enum, arrays of handles: nothing vrdma stands in for */
		return false;
	}
}

/* The parent's view of one method, gathered over all its trees */
struct vrdma_fwd_match {
	const struct uverbs_method_def *mine;
	vrdma_fwd_handler_t handler;
	size_t nr_attrs;	/* the parent's attributes, over all trees */
	size_t nr_same;		/* of which vrdma declares the same */
	bool bad;		/* two handlers, or different flags */
	bool differs;		/* one of vrdma's the parent defines otherwise */
};

static bool vrdma_fwd_match_method(const struct uverbs_object_def *tree,
				   void *arg)
{
	struct vrdma_fwd_match *m = arg;
	const struct uverbs_method_def *pm, *mine = m->mine;
	const struct uverbs_attr_def *pa, *ma;
	size_t i, j, k;

	for (i = 0; tree->methods && i < tree->num_methods; i++) {
		pm = (*tree->methods)[i];
		if (!pm || pm->id != mine->id)
			continue;
		if (pm->handler) {
			if (m->handler || pm->flags != mine->flags)
				m->bad = true;
			m->handler = pm->handler;
		}
		for (j = 0; j < pm->num_attrs; j++) {
			pa = (*pm->attrs)[j];
			m->nr_attrs++;
			for (k = 0; k < mine->num_attrs; k++) {
				ma = (*mine->attrs)[k];
				if (ma->id != pa->id)
					continue;
				if (vrdma_fwd_spec_same(&ma->attr, &pa->attr))
					m->nr_same++;
				else
					m->differs = true;
			}
		}
	}
	return false;
}

/* The parent's cleanup of its own object type */
static bool vrdma_fwd_match_type(const struct uverbs_object_def *tree,
				 void *arg)
{
	const struct uverbs_obj_idr_type *idr;
	vrdma_fwd_destroy_t *destroy = arg;

	if (!tree->type_attrs)
		return false;
	/* Plain IDR uobjects only: the stand-in is a bare ib_uobject */
	if (tree->type_attrs->type_class != &uverbs_idr_class ||
	    tree->type_attrs->obj_size != sizeof(struct ib_uobject))
		return true;
	idr = container_of(tree->type_attrs, struct uverbs_obj_idr_type, type);
	*destroy = idr->destroy_object;
	return true;
}

static struct vrdma_fwd_type *vrdma_fwd_find_type(struct vrdma_fwd *fwd,
						  u16 object_id)
{
	unsigned int i;

	for (i = 0; i < fwd->nr_types; i++)
		if (fwd->type[i].object_id == object_id)
			return &fwd->type[i];
	return NULL;
}

/* Can vrdma stand in for the object handles of @mine? */
static bool vrdma_fwd_handles_ok(struct vrdma_fwd *fwd,
				 const struct uverbs_method_def *mine)
{
	const struct uverbs_attr_spec *spec;
	struct vrdma_fwd_type *t;
	size_t i, nr_idr = 0;

	for (i = 0; i < mine->num_attrs; i++) {
		spec = &(*mine->attrs)[i]->attr;
		if (spec->type != UVERBS_ATTR_TYPE_IDR)
			continue;
		if (++nr_idr > VRDMA_FWD_MAX_IDR)
			return false;
		switch (spec->u.obj.obj_type) {
		case UVERBS_OBJECT_PD:
		case UVERBS_OBJECT_CQ:
		case UVERBS_OBJECT_QP:
			/* The shadow is read, never created or destroyed */
			if (spec->u.obj.access != UVERBS_ACCESS_READ)
				return false;
			break;
		default:
			t = vrdma_fwd_find_type(fwd, spec->u.obj.obj_type);
			if (!t || !t->destroy)
				return false;
		}
	}
	return true;
}

static void vrdma_fwd_add_types(struct vrdma_dev *vdev,
				const struct uapi_definition *defs)
{
	const struct uapi_definition *pdefs = vdev->parent_ibdev->driver_def;
	struct vrdma_fwd *fwd = &vdev->fwd;
	struct vrdma_fwd_type *t;
	const struct uapi_definition *def;

	for (def = defs; def->kind != UAPI_DEF_END; def++) {
		if (def->kind != UAPI_DEF_CHAIN_OBJ_TREE ||
		    !def->chain_obj_tree->type_attrs ||
		    WARN_ON(fwd->nr_types == VRDMA_FWD_MAX_TYPES))
			continue;
		t = &fwd->type[fwd->nr_types++];
		t->object_id = def->object_start.object_id;
		t->destroy = NULL;
		if (!vrdma_fwd_disabled(vdev->parent_ibdev, pdefs,
					t->object_id))
			vrdma_fwd_each_tree(pdefs, t->object_id,
					    vrdma_fwd_match_type, &t->destroy);
		if (!t->destroy)
			dev_dbg(&vdev->parent_ibdev->dev,
				"vrdma: %s has no object 0x%x vrdma can offer\n",
				vdev->parent_ibdev->name, t->object_id);
	}
}

static void vrdma_fwd_add_methods(struct vrdma_dev *vdev,
				  const struct uapi_definition *defs)
{
	const struct uapi_definition *pdefs = vdev->parent_ibdev->driver_def;
	const struct uverbs_object_def *tree;
	struct vrdma_fwd *fwd = &vdev->fwd;
	const struct uapi_definition *def;
	struct vrdma_fwd_match m;
	struct vrdma_fwd_method *slot;
	bool p_destroy, v_destroy;
	size_t i;

	for (def = defs; def->kind != UAPI_DEF_END; def++) {
		if (def->kind != UAPI_DEF_CHAIN_OBJ_TREE)
			continue;
		tree = def->chain_obj_tree;
		for (i = 0; i < tree->num_methods; i++) {
			if (WARN_ON(fwd->nr_methods == VRDMA_FWD_MAX_METHODS))
				return;
			slot = &fwd->method[fwd->nr_methods++];
			slot->object_id = tree->id;
			slot->mine = (*tree->methods)[i];
			slot->handler = NULL;

			memset(&m, 0, sizeof(m));
			m.mine = slot->mine;
			if (vrdma_fwd_disabled(vdev->parent_ibdev, pdefs,
					       tree->id))
				continue;
			vrdma_fwd_each_tree(pdefs, tree->id,
					    vrdma_fwd_match_method, &m);
			if (m.bad || !m.handler ||
			    m.nr_attrs != slot->mine->num_attrs ||
			    m.nr_same != slot->mine->num_attrs ||
			    !vrdma_fwd_handles_ok(fwd, slot->mine))
				continue;
			/* Destroy methods run the core's handler, not this */
			p_destroy = m.handler == uverbs_destroy_def_handler;
			v_destroy = slot->mine->handler == uverbs_destroy_def_handler;
			if (p_destroy != v_destroy)
				continue;
			slot->handler = m.handler;
		}
	}
}

/* Does the parent define every attribute of group @group the same way? */
static bool vrdma_fwd_attrs_match(struct vrdma_dev *vdev,
				  const struct uapi_definition *group)
{
	const struct uapi_definition *pdefs = vdev->parent_ibdev->driver_def;
	const struct uverbs_object_def *tree = group->chain_obj_tree;
	const struct uverbs_method_def *mine;
	struct vrdma_fwd_match m;
	size_t i, j;
	u8 type;

	if (vrdma_fwd_disabled(vdev->parent_ibdev, pdefs, tree->id))
		return false;
	for (i = 0; i < tree->num_methods; i++) {
		mine = (*tree->methods)[i];
		/* Attributes only: the core's handler runs */
		if (mine->handler)
			return false;
		for (j = 0; j < mine->num_attrs; j++) {
			/* Nothing vrdma would have to stand in for */
			type = (*mine->attrs)[j]->attr.type;
			if (type != UVERBS_ATTR_TYPE_PTR_IN &&
			    type != UVERBS_ATTR_TYPE_PTR_OUT)
				return false;
		}
		memset(&m, 0, sizeof(m));
		m.mine = mine;
		/* The parent may have more attributes; vrdma's must be its */
		vrdma_fwd_each_tree(pdefs, tree->id, vrdma_fwd_match_method,
				    &m);
		if (m.differs || m.nr_same != mine->num_attrs)
			return false;
	}
	return true;
}

/*
 * The vdevice's driver_def: the whitelist, and each attribute group the
 * parent defines the same way.  The others are left out, so the core
 * treats their attributes as unknown, as on a parent without them.
 */
static void vrdma_fwd_add_attrs(struct vrdma_dev *vdev,
				const struct vrdma_fwd_driver *drv)
{
	struct uapi_definition *defs = vdev->fwd.defs;
	const struct uapi_definition *group;
	unsigned int n = 0;

	defs[n].kind = UAPI_DEF_CHAIN;
	defs[n++].chain = drv->defs;
	for (group = drv->attrs; group && group->kind != UAPI_DEF_END;
	     group++) {
		if (WARN_ON(group->kind != UAPI_DEF_CHAIN_OBJ_TREE ||
			    n > VRDMA_FWD_MAX_ATTR_GROUPS))
			break;
		if (vrdma_fwd_attrs_match(vdev, group))
			defs[n++] = *group;
		else
			dev_dbg(&vdev->parent_ibdev->dev,
				"vrdma: %s defines attributes on object 0x%x otherwise\n",
				vdev->parent_ibdev->name,
				group->object_start.object_id);
	}
	defs[n].kind = UAPI_DEF_END;
}

/**
 * vrdma_fwd_init() - decide what a new vdevice forwards to its parent
 * @vdev: the vdevice, not yet registered
 *
 * A parent driver vrdma has a whitelist for gets it as the vdevice's
 * driver_def; each declared method is matched against the parent's own
 * definitions (see the top of this file).  Other parents' vdevices have
 * no driver methods at all.
 */
void vrdma_fwd_init(struct vrdma_dev *vdev)
{
	const struct vrdma_fwd_driver *drv = NULL;
	unsigned int i;

	memset(&vdev->fwd, 0, sizeof(vdev->fwd));
	for (i = 0; i < ARRAY_SIZE(vrdma_fwd_drivers); i++)
		if (vrdma_fwd_drivers[i]->driver_id ==
		    vdev->parent_ibdev->ops.driver_id)
			drv = vrdma_fwd_drivers[i];
	vdev->fwd.drv = drv;
	if (!drv || !vdev->parent_ibdev->driver_def)
		return;
	vrdma_fwd_add_types(vdev, drv->defs);
	vrdma_fwd_add_methods(vdev, drv->defs);
	vrdma_fwd_add_attrs(vdev, drv);
	vdev->ibdev.driver_def = vdev->fwd.defs;
}

/**
 * vrdma_fwd_check_uctx_req() - may the parent see this context request?
 * @vdev: the vdevice a context is being opened on
 * @udata: the provider's alloc_ucontext request, in user memory
 *
 * Driver data passes to the parent unchanged, but a request for a
 * capability vrdma does not forward is refused before the parent sees
 * it (the whitelist's check_uctx_req, fwd_<driver>.c).
 *
 * Return: 0, or the errno the vdevice answers without asking the parent.
 */
int vrdma_fwd_check_uctx_req(struct vrdma_dev *vdev, struct ib_udata *udata)
{
	const struct vrdma_fwd_driver *drv = vdev->fwd.drv;

	if (!drv || !drv->check_uctx_req)
		return 0;
	return drv->check_uctx_req(&vdev->ibdev, udata);
}

/**
 * vrdma_fwd_type_supported() - does a vdevice offer a parent object type
 * @ibdev: the vdevice (the core asks while building its uverbs tree)
 * @object_id: the type
 *
 * Return: true if the parent has it and vrdma can clean it up.
 */
bool vrdma_fwd_type_supported(struct ib_device *ibdev, u16 object_id)
{
	struct vrdma_fwd_type *t;

	t = vrdma_fwd_find_type(&to_vdev(ibdev)->fwd, object_id);
	return t && t->destroy;
}

/* --- calls --------------------------------------------------------------- */

/* The parent-side object behind a vdevice uobject of type @obj_type */
static void *vrdma_fwd_parent_obj(u16 obj_type, struct ib_uobject *uobj)
{
	switch (obj_type) {
	case UVERBS_OBJECT_PD:
		return vrdma_shadow_pd(uobj->object);
	case UVERBS_OBJECT_CQ:
		return vrdma_shadow_cq(uobj->object);
	case UVERBS_OBJECT_QP:
		return to_vqp((struct ib_qp *)uobj->object)->shadow;
	default:
		/* The parent's own types hold the parent's object */
		return uobj->object;
	}
}

/* A uobject as the parent would have made it, for the length of a call */
static void vrdma_fwd_stand_in(struct ib_uobject *stand,
			       struct ib_uobject *uobj, void *object)
{
	struct ib_ucontext *vctx = uobj->context;

	memset(stand, 0, sizeof(*stand));
	stand->user_handle = uobj->user_handle;
	stand->ufile = vrdma_fwd_ufile(vctx);
	stand->context = vrdma_shadow_uctx(vctx);
	stand->object = object;
	stand->id = uobj->id;
	stand->uapi_object = uobj->uapi_object;
	INIT_LIST_HEAD(&stand->list);
	kref_init(&stand->ref);
}

/**
 * vrdma_shadow_uobject_new() - a uobject of its own for a shadow object
 * @uobj: the vdevice object's uobject
 * @shadow: the shadow object
 *
 * Parents that find an object's ucontext through its uobject then find the
 * shadow ucontext.  Only the fields a driver reads are set; the core never
 * sees it.  Freed with kfree().
 *
 * Return: the uobject, or NULL when out of memory.
 */
struct ib_uobject *vrdma_shadow_uobject_new(struct ib_uobject *uobj,
					    void *shadow)
{
	struct ib_uobject *su = kmalloc(sizeof(*su), GFP_KERNEL);

	if (su)
		vrdma_fwd_stand_in(su, uobj, shadow);
	return su;
}

static struct vrdma_fwd_method *vrdma_fwd_find(struct vrdma_dev *vdev,
					       u16 object_id, u16 method_id)
{
	unsigned int i;

	for (i = 0; i < vdev->fwd.nr_methods; i++)
		if (vdev->fwd.method[i].object_id == object_id &&
		    vdev->fwd.method[i].mine->id == method_id)
			return &vdev->fwd.method[i];
	return NULL;
}

/**
 * vrdma_fwd_call() - run a parent's method with parent-side objects
 * @attrs: the core's bundle of the vdevice call
 * @object_id: the method's object
 * @method_id: the method
 *
 * Return: the parent handler's result, -EOPNOTSUPP if the method is not
 * forwarded to this parent, or the error of ib_uverbs_get_ucontext().
 */
int vrdma_fwd_call(struct uverbs_attr_bundle *attrs, u16 object_id,
		   u16 method_id)
{
	struct ib_uobject stand[VRDMA_FWD_MAX_IDR];
	struct ib_uobject *real[VRDMA_FWD_MAX_IDR];
	struct uverbs_attr *attr[VRDMA_FWD_MAX_IDR];
	bool is_new[VRDMA_FWD_MAX_IDR];
	const struct uverbs_attr_def *def;
	struct ib_ucontext *vctx, *saved_ctx;
	struct ib_uverbs_file *saved_ufile;
	struct vrdma_fwd_method *slot;
	struct ib_uobject *uobj;
	struct vrdma_dev *vdev;
	unsigned int n = 0, i;
	size_t j;
	int ret;

	vctx = ib_uverbs_get_ucontext(attrs);
	if (IS_ERR(vctx))
		return PTR_ERR(vctx);
	vdev = to_vdev(vctx->device);
	slot = vrdma_fwd_find(vdev, object_id, method_id);
	if (!slot || !slot->handler)
		return -EOPNOTSUPP;

	for (j = 0; j < slot->mine->num_attrs; j++) {
		def = (*slot->mine->attrs)[j];
		if (def->attr.type != UVERBS_ATTR_TYPE_IDR ||
		    !uverbs_attr_is_valid(attrs, def->id))
			continue;
		/* vrdma_fwd_handles_ok() bounds n */
		attr[n] = &attrs->attrs[uapi_bkey_attr(uapi_key_attr(def->id))];
		uobj = attr[n]->obj_attr.uobject;
		real[n] = uobj;
		is_new[n] = def->attr.u.obj.access == UVERBS_ACCESS_NEW;
		/*
		 * What a driver method creates (mlx5: a firmware UAR) has no
		 * bound in the parent per context: the drv-obj limit is it.
		 */
		if (is_new[n]) {
			ret = vrdma_shadow_charge(vdev, VRDMA_KIND_DRV);
			if (ret)
				goto err_uncharge;
		}
		vrdma_fwd_stand_in(&stand[n], uobj,
				   is_new[n] ? NULL :
				   vrdma_fwd_parent_obj(def->attr.u.obj.obj_type,
							uobj));
		attr[n]->obj_attr.uobject = &stand[n];
		n++;
	}
	saved_ctx = attrs->context;
	saved_ufile = attrs->ufile;
	attrs->context = vrdma_shadow_uctx(vctx);
	attrs->ufile = vrdma_fwd_ufile(vctx);

	ret = slot->handler(attrs);

	attrs->context = saved_ctx;
	attrs->ufile = saved_ufile;
	for (i = 0; i < n; i++) {
		attr[i]->obj_attr.uobject = real[i];
		if (!is_new[i])
			continue;
		/*
		 * Also on failure: a finalized object is destroyed by the
		 * core, through vrdma_fwd_destroy(), which uncharges it.
		 */
		if (stand[i].object)
			real[i]->object = stand[i].object;
		/* Nothing made: the error only gives the charge back */
		vrdma_shadow_done(vdev, VRDMA_KIND_DRV,
				  stand[i].object ? 0 : -ENOENT);
	}
	return ret;

err_uncharge:
	/* Only the attributes before the n-th were charged or swapped */
	for (i = 0; i < n; i++) {
		attr[i]->obj_attr.uobject = real[i];
		if (is_new[i])
			vrdma_shadow_done(vdev, VRDMA_KIND_DRV, ret);
	}
	return ret;
}

/**
 * vrdma_fwd_destroy() - clean up a parent-type object of a vdevice file
 * @uobj: the vdevice uobject; its object is the parent's
 * @why: passed to the parent
 * @attrs: the core's bundle, not passed on: the parent gets one that names
 *	the shadow ucontext, like the core's cleanup bundle names the file's
 * @object_id: the type
 *
 * Return: the parent's destroy_object() result.
 */
int vrdma_fwd_destroy(struct ib_uobject *uobj, enum rdma_remove_reason why,
		      struct uverbs_attr_bundle *attrs, u16 object_id)
{
	struct ib_ucontext *vctx = uobj->context;
	struct uverbs_attr_bundle parent_bundle;
	struct vrdma_fwd_type *t;
	struct ib_uobject stand;
	int ret;

	t = vrdma_fwd_find_type(&to_vdev(vctx->device)->fwd, object_id);
	/* Not offered, so never created */
	if (WARN_ON_ONCE(!t || !t->destroy))
		return 0;
	vrdma_fwd_stand_in(&stand, uobj, uobj->object);
	memset(&parent_bundle, 0, sizeof(parent_bundle));
	parent_bundle.ufile = stand.ufile;
	parent_bundle.context = stand.context;
	ret = t->destroy(&stand, why, &parent_bundle);
	if (!ret)
		vrdma_shadow_gone(to_vdev(vctx->device), VRDMA_KIND_DRV);
	return ret;
}
