// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs: live object counters, so that tests can prove every vdevice,
 * shadow object and wrapped mapping is gone (a leak audit).
 *
 *   /sys/kernel/debug/vrdma/objects    "name count" per line
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "vrdma.h"

atomic_t vrdma_obj_count[VRDMA_NR_OBJ];

static const char * const vrdma_obj_names[VRDMA_NR_OBJ] = {
	[VRDMA_OBJ_VDEV] = "vdev",
	[VRDMA_OBJ_UCTX] = "ucontext",
	[VRDMA_OBJ_PD] = "pd",
	[VRDMA_OBJ_CQ] = "cq",
	[VRDMA_OBJ_QP] = "qp",
	[VRDMA_OBJ_SRQ] = "srq",
	[VRDMA_OBJ_MR] = "mr",
	[VRDMA_OBJ_MW] = "mw",
	[VRDMA_OBJ_AH] = "ah",
	[VRDMA_OBJ_MMAP] = "mmap",
};

static struct dentry *vrdma_debugfs_root;

static int vrdma_objects_show(struct seq_file *m, void *unused)
{
	int i;

	for (i = 0; i < VRDMA_NR_OBJ; i++)
		seq_printf(m, "%s %d\n", vrdma_obj_names[i],
			   atomic_read(&vrdma_obj_count[i]));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(vrdma_objects);

/**
 * vrdma_debugfs_init() - create /sys/kernel/debug/vrdma
 *
 * debugfs failures are not fatal and not reported, as usual.
 */
void vrdma_debugfs_init(void)
{
	vrdma_debugfs_root = debugfs_create_dir("vrdma", NULL);
	debugfs_create_file("objects", 0444, vrdma_debugfs_root, NULL,
			    &vrdma_objects_fops);
}

/**
 * vrdma_debugfs_exit() - remove /sys/kernel/debug/vrdma
 */
void vrdma_debugfs_exit(void)
{
	debugfs_remove_recursive(vrdma_debugfs_root);
}
