// SPDX-License-Identifier: GPL-2.0
/*
 * rdmasim: the counters debugfs shows, for the selftests' leak and
 * strictness checks.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <rdma/ib_verbs.h>

#include "sim.h"

static const char * const sim_kind_name[SIM_K_NR] = {
	[SIM_K_DEV] = "dev",
	[SIM_K_UCTX] = "ucontext",
	[SIM_K_PD] = "pd",
	[SIM_K_CQ] = "cq",
	[SIM_K_QP] = "qp",
	[SIM_K_MR] = "mr",
	[SIM_K_UAR] = "uar",
	[SIM_K_MMAP] = "mmap",
	[SIM_K_VMA] = "vma",
	[SIM_K_AH] = "ah",
};

atomic_long_t sim_count[SIM_K_NR];
atomic_long_t sim_strict_hits;

static int sim_objects_show(struct seq_file *s, void *unused)
{
	int i;

	for (i = 0; i < SIM_K_NR; i++)
		seq_printf(s, "%s %ld\n", sim_kind_name[i],
			   atomic_long_read(&sim_count[i]));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sim_objects);

static int sim_strict_show(struct seq_file *s, void *unused)
{
	seq_printf(s, "%ld\n", atomic_long_read(&sim_strict_hits));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sim_strict);

/**
 * sim_debugfs_files() - the counters' files
 * @dir: rdmasim's debugfs directory
 *
 * "objects": live objects by kind; "strict": failed strict checks.
 */
void sim_debugfs_files(struct dentry *dir)
{
	debugfs_create_file("objects", 0444, dir, NULL, &sim_objects_fops);
	debugfs_create_file("strict", 0444, dir, NULL, &sim_strict_fops);
}
