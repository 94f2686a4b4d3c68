// SPDX-License-Identifier: GPL-2.0
/*
 * A vdevice's alias device: a bus-less device of vrdma's that is the
 * vdevice's dev.parent and whose only attribute is the modalias of the
 * parent's bus device, copied when the vdevice is created.
 *
 * libibverbs binds providers that match by PCI id alone (libhns) through
 * /sys/class/infiniband/DEV/device/modalias; a vdevice without a parent
 * device has none.  The parent's own bus device cannot be used: udev's
 * rdma_rename would then rename the vdevice after it (by its onboard index
 * or PCI address), and vrdma destroys a vdevice renamed behind its back.
 * The alias has neither, no bus (so no MODALIAS uevent variable: udev
 * loads no module for it) and no driver.  It lives in class "vrdma"
 * (/sys/devices/virtual/vrdma/NAME), is named after the vdevice and goes
 * when the vdevice is freed (vrdma_dealloc_driver()).
 */
#include <linux/device.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "vrdma.h"

struct vrdma_alias {
	struct device dev;
	char *modalias;		/* constant */
};

static struct class vrdma_alias_class = {
	.name = "vrdma",
};

/*
 * Serialises the name check with the addition and the removal of alias
 * devices: two vdevices of one name would otherwise both add an alias,
 * or one add its alias while the other's is leaving the class but not yet
 * sysfs, and sysfs warns on the second.
 */
static DEFINE_MUTEX(vrdma_alias_lock);

static ssize_t modalias_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	return sysfs_emit(buf, "%s\n",
			  container_of(dev, struct vrdma_alias, dev)->modalias);
}
static DEVICE_ATTR_RO(modalias);

static struct attribute *vrdma_alias_attrs[] = {
	&dev_attr_modalias.attr,
	NULL,
};
ATTRIBUTE_GROUPS(vrdma_alias);

static void vrdma_alias_release(struct device *dev)
{
	struct vrdma_alias *alias = container_of(dev, struct vrdma_alias, dev);

	kfree(alias->modalias);
	kfree(alias);
	vrdma_obj_dec(VRDMA_OBJ_ALIAS);
}

/*
 * The modalias of @dev as its bus announces it (MODALIAS= of its uevent,
 * what /sys/.../uevent shows and udev matches modules with), or NULL if it
 * has none.  Every bus that has modaliases puts them there (PCI, platform,
 * ACPI, OF, auxiliary...); a modalias sysfs attribute is only a convention.
 */
static char *vrdma_alias_bus_modalias(struct device *dev)
{
	struct kobj_uevent_env *env;
	char *modalias = NULL;
	int i;

	if (!dev || !dev->bus || !dev->bus->uevent)
		return NULL;
	env = kzalloc(sizeof(*env), GFP_KERNEL);
	if (!env)
		return ERR_PTR(-ENOMEM);
	if (dev->bus->uevent(dev, env))
		goto out;
	for (i = 0; i < env->envp_idx; i++) {
		const char *var = env->envp[i];

		if (str_has_prefix(var, "MODALIAS=") && var[9]) {
			modalias = kstrdup(var + 9, GFP_KERNEL);
			if (!modalias)
				modalias = ERR_PTR(-ENOMEM);
			break;
		}
	}
out:
	kfree(env);
	return modalias;
}

/**
 * vrdma_alias_add() - give a vdevice a parent device with its modalias
 * @vdev: the vdevice, not yet registered
 * @name: its name
 * @extack: where to report errors
 *
 * Does nothing when the parent's bus device has no modalias (rxe, siw,
 * rdmasim's roce variant).  Otherwise adds the alias device and makes it
 * the vdevice's dev.parent; vrdma_alias_del() removes it.
 *
 * Context: process context, may sleep.
 * Return: 0 or a negative errno, with a message in @extack.
 */
int vrdma_alias_add(struct vrdma_dev *vdev, const char *name,
		    struct netlink_ext_ack *extack)
{
	struct vrdma_alias *alias;
	struct device *other;
	char *modalias;
	int ret;

	modalias = vrdma_alias_bus_modalias(vdev->parent_ibdev->dev.parent);
	if (!modalias)
		return 0;
	if (IS_ERR(modalias))
		return PTR_ERR(modalias);

	ret = vrdma_fault(VRDMA_FAULT_ALIAS);
	if (ret) {
		kfree(modalias);
		return ret;
	}
	alias = kzalloc(sizeof(*alias), GFP_KERNEL);
	if (!alias) {
		kfree(modalias);
		return -ENOMEM;
	}
	/* From here vrdma_alias_release() frees both. */
	vrdma_obj_inc(VRDMA_OBJ_ALIAS);
	alias->modalias = modalias;
	device_initialize(&alias->dev);
	alias->dev.class = &vrdma_alias_class;
	alias->dev.groups = vrdma_alias_groups;
	alias->dev.release = vrdma_alias_release;
	ret = dev_set_name(&alias->dev, "%s", name);
	if (ret)
		goto err_put;

	mutex_lock(&vrdma_alias_lock);
	other = class_find_device_by_name(&vrdma_alias_class, name);
	if (other) {
		put_device(other);
		mutex_unlock(&vrdma_alias_lock);
		NL_SET_ERR_MSG(extack, "an RDMA device with this name exists");
		ret = -EEXIST;
		goto err_put;
	}
	ret = device_add(&alias->dev);
	mutex_unlock(&vrdma_alias_lock);
	if (ret)
		goto err_put;

	vdev->alias = &alias->dev;
	vdev->ibdev.dev.parent = &alias->dev;
	return 0;

err_put:
	put_device(&alias->dev);
	return ret;
}

/**
 * vrdma_alias_del() - remove a vdevice's alias device, if it has one
 * @vdev: the vdevice, unregistered or never registered
 *
 * The vdevice's own device is no longer in sysfs (its dev.parent is not
 * used after device_del()); the alias is freed once its last reference
 * goes.
 *
 * Context: process context, may sleep.
 */
void vrdma_alias_del(struct vrdma_dev *vdev)
{
	if (!vdev->alias)
		return;
	/* the core's printks of the vdevice read its parent's name */
	vdev->ibdev.dev.parent = NULL;
	mutex_lock(&vrdma_alias_lock);
	device_del(vdev->alias);
	mutex_unlock(&vrdma_alias_lock);
	put_device(vdev->alias);
	vdev->alias = NULL;
}

/**
 * vrdma_alias_init() - register the alias devices' class (module load)
 *
 * Return: 0 or a negative errno.
 */
int vrdma_alias_init(void)
{
	return class_register(&vrdma_alias_class);
}

/**
 * vrdma_alias_exit() - unregister the class (module unload)
 *
 * Context: every vdevice is freed.
 */
void vrdma_alias_exit(void)
{
	class_unregister(&vrdma_alias_class);
}
