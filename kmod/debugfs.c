// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs: live object counters, so that tests can prove every vdevice,
 * shadow object and wrapped mapping is gone (a leak audit).
 *
 *   /sys/kernel/debug/vrdma/objects    "name count" per line; the last two,
 *                                       "uctx_holder" and "mmap", are
 *                                       vrdma_vma.ko's, and may be non-zero
 *                                       across an unload and reload
 *   /sys/kernel/debug/vrdma/cm         the CM proxy: its connections
 *                                       (cm_proxy.c adds it)
 *   /sys/kernel/debug/vrdma/cm_max_retries  the most retries of a REQ the
 *                                       proxy carries (cm_proxy.c)
 *   /sys/kernel/debug/vrdma/fail/POINT  how many of the next passes through
 *                                       POINT fail (fault injection)
 *   /sys/kernel/debug/vrdma/delay/POINT how long, in ms, the next pass
 *                                       through POINT sleeps
 */
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/seq_file.h>

#include "vrdma.h"

atomic_t vrdma_obj_count[VRDMA_NR_OBJ];

/* The counters of the kinds are named by vrdma_kinds[] */
static const char * const vrdma_obj_names[VRDMA_NR_OBJ] = {
	[VRDMA_OBJ_VDEV] = "vdev",
	[VRDMA_OBJ_ALIAS] = "alias",
	[VRDMA_OBJ_KOBJ] = "kobj",
	[VRDMA_OBJ_CMCONN] = "cmconn",
};

/* What vrdma_vma.ko counts, under the names of the objects file */
static const char * const vrdma_vma_obj_names[VRDMA_VMA_NR_OBJ] = {
	[VRDMA_VMA_OBJ_HOLDER] = "uctx_holder",
	[VRDMA_VMA_OBJ_MAPPING] = "mmap",
};

/* /sys/kernel/debug/vrdma: the other files add theirs under it */
struct dentry *vrdma_debugfs_root;

/* Pending injected failures per point; lock-free (atomic). */
static atomic_t vrdma_fault_count[VRDMA_NR_FAULT];

/* The fault points of the kinds are named by vrdma_kinds[] */
static const char * const vrdma_fault_names[VRDMA_NR_FAULT] = {
	[VRDMA_FAULT_REGISTER] = "register",
	[VRDMA_FAULT_NETNS] = "netns",
	[VRDMA_FAULT_ALIAS] = "alias",
};

/* Pending delays per point, in ms; lock-free (atomic_xchg). */
static atomic_t vrdma_delay_ms[VRDMA_NR_DELAY];

static const char * const vrdma_delay_names[VRDMA_NR_DELAY] = {
	[VRDMA_DELAY_REGISTERED] = "registered",
	[VRDMA_DELAY_HOME] = "home",
	[VRDMA_DELAY_QP_AV] = "qp_av",
	[VRDMA_DELAY_CM_EVENT] = "cm_event",
	[VRDMA_DELAY_RELEASED] = "released",
	[VRDMA_DELAY_CM_LISTEN] = "cm_listen",
};

static const char *vrdma_obj_name(int i)
{
	if (i >= VRDMA_OBJ_KIND && i < VRDMA_OBJ_KIND + VRDMA_NR_KIND)
		return vrdma_kinds[i - VRDMA_OBJ_KIND].name;
	return vrdma_obj_names[i];
}

static const char *vrdma_fault_name(int i)
{
	if (i >= VRDMA_FAULT_KIND && i < VRDMA_FAULT_KIND + VRDMA_NR_FAULT_KIND)
		return vrdma_kinds[i - VRDMA_FAULT_KIND].name;
	return vrdma_fault_names[i];
}

/* Bounds a test's mistake: the windows are in syscalls that hold nothing */
#define VRDMA_DELAY_MAX_MS	10000

/**
 * vrdma_delay() - sleep at a race window if a test asked for it
 * @point: the window
 *
 * Consumes the pending delay of @point, if there is one.
 *
 * Context: process context, no locks held.
 */
void vrdma_delay(enum vrdma_delay point)
{
	int ms = atomic_xchg(&vrdma_delay_ms[point], 0);

	if (ms > 0)
		msleep(min(ms, VRDMA_DELAY_MAX_MS));
}

/**
 * vrdma_fault() - whether to fail this pass through a fault point
 * @point: the fault point
 *
 * Consumes one pending injected failure of @point, if there is one.
 *
 * Context: any context.
 * Return: -ENOMEM when the caller must fail, else 0.
 */
int vrdma_fault(enum vrdma_fault point)
{
	if (atomic_dec_if_positive(&vrdma_fault_count[point]) < 0)
		return 0;
	pr_debug("vrdma: injected failure at %s\n", vrdma_fault_name(point));
	return -ENOMEM;
}

static int vrdma_objects_show(struct seq_file *m, void *unused)
{
	int i;

	for (i = 0; i < VRDMA_NR_OBJ; i++)
		seq_printf(m, "%s %d\n", vrdma_obj_name(i),
			   atomic_read(&vrdma_obj_count[i]));
	for (i = 0; i < VRDMA_VMA_NR_OBJ; i++)
		seq_printf(m, "%s %d\n", vrdma_vma_obj_names[i],
			   vrdma_vma_obj_count(i));
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
	struct dentry *fail, *delay;
	int i;

	vrdma_debugfs_root = debugfs_create_dir("vrdma", NULL);
	debugfs_create_file("objects", 0444, vrdma_debugfs_root, NULL,
			    &vrdma_objects_fops);
	fail = debugfs_create_dir("fail", vrdma_debugfs_root);
	for (i = 0; i < VRDMA_NR_FAULT; i++)
		debugfs_create_atomic_t(vrdma_fault_name(i), 0600, fail,
					&vrdma_fault_count[i]);
	delay = debugfs_create_dir("delay", vrdma_debugfs_root);
	for (i = 0; i < VRDMA_NR_DELAY; i++)
		debugfs_create_atomic_t(vrdma_delay_names[i], 0600, delay,
					&vrdma_delay_ms[i]);
}

/**
 * vrdma_debugfs_exit() - remove /sys/kernel/debug/vrdma
 *
 * Called last at module unload: warns about every object still counted.
 * Wrapped mappings (and the holders they keep) may legitimately outlive
 * the module; vrdma_vma.ko audits those when it is unloaded.
 */
void vrdma_debugfs_exit(void)
{
	int i;

	debugfs_remove_recursive(vrdma_debugfs_root);
	for (i = 0; i < VRDMA_NR_FAULT; i++)
		atomic_set(&vrdma_fault_count[i], 0);
	for (i = 0; i < VRDMA_NR_DELAY; i++)
		atomic_set(&vrdma_delay_ms[i], 0);
	/* The leak audit of an unload: everything must be gone by now. */
	for (i = 0; i < VRDMA_NR_OBJ; i++)
		WARN(atomic_read(&vrdma_obj_count[i]),
		     "vrdma: %d %s object(s) leaked\n",
		     atomic_read(&vrdma_obj_count[i]), vrdma_obj_name(i));
}
