// SPDX-License-Identifier: GPL-2.0
/*
 * vrdmactl parent: the ib_devices vdevices can be created on.
 */
#include <stdio.h>

#include "vrdmactl.h"

#define PARENT_HELP	VCTL_NAME " parent help"

static void parent_usage(FILE *f)
{
	fputs("Usage: " VCTL_NAME " parent show\n"
	      "       " VCTL_NAME " parent help\n", f);
}

static int parent_help(struct vctl *c, int argc, char **argv)
{
	(void)c;
	return vctl_help("parent help", argc, argv, parent_usage);
}

static void print_parent(const struct vrdma_parent *p)
{
	const char *driver = vrdma_driver_name(p->driver_id);
	size_t i;

	out_obj_begin(NULL);
	out_str("name", "%s:", p->name);
	out_uint("driver_id", driver ? NULL : " driver %s", p->driver_id);
	if (driver)
		out_str("driver", " driver %s", driver);
	out_uint("vdev_count", " vdevs %s", p->vdev_count);
	if (p->nr_vdevs)
		out_text(":");
	out_array_begin("vdevs");
	for (i = 0; i < p->nr_vdevs; i++)
		out_str(NULL, " %s", p->vdevs[i]);
	out_array_end();
	out_line_end();
	out_obj_end();
}

static int parent_show(struct vctl *c, int argc, char **argv)
{
	struct vrdma_parent_list *list;
	size_t i;

	if (argc && vctl_is_help(argv[0]))
		return parent_help(c, argc - 1, argv + 1);
	if (vctl_no_more_words("parent show", argc, argv))
		return -1;
	if (vctl_open(c) || vrdma_parent_list(c->h, &list))
		return vctl_kernel_error(c, "parent show");
	out_list_begin();
	for (i = 0; i < list->count; i++)
		print_parent(&list->parents[i]);
	out_list_end();
	vrdma_parent_list_free(list);
	return 0;
}

static const struct vctl_cmd parent_cmds[] = {
	{ "show",	parent_show },
	{ "help",	parent_help },
	{ NULL }
};

/**
 * vctl_parent() - the parent object
 * @c: the tool state
 * @argc: number of words after "parent"
 * @argv: the words
 *
 * Return: 0 or -1.
 */
int vctl_parent(struct vctl *c, int argc, char **argv)
{
	return vctl_dispatch(c, parent_cmds, "parent command", PARENT_HELP,
			     argc, argv);
}
