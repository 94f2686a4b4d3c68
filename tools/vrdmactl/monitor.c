// SPDX-License-Identifier: GPL-2.0
/*
 * vrdmactl monitor: print vdevice events as they happen.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "vrdmactl.h"

static void monitor_usage(FILE *f)
{
	fputs("Usage: " VCTL_NAME " monitor\n"
	      "       " VCTL_NAME " monitor help\n", f);
}

/*
 * Once subscribed, one line: "[LISTENING]", or {"event": "listening"}.
 * Every event from then on reaches the monitor, so a script that waits
 * for this line before it acts misses none of the events it causes.
 */
static void print_listening(void)
{
	out_obj_begin(NULL);
	out_str("event", NULL, "listening");
	out_text("[LISTENING]");
	out_obj_end();
	out_line_end();
	fflush(stdout);
}

/*
 * Text: "[NEW] <dev show line>" or "[DEL reason] <dev show line>".
 * JSON: {"event": "new"|"del", "reason": "...", "dev": {<dev show>}}
 */
static void print_event(const struct vrdma_event *ev)
{
	const char *reason = vrdma_del_reason_name(ev->reason);
	bool is_new = ev->kind == VRDMA_EVENT_NEW;

	out_obj_begin(NULL);
	out_str("event", NULL, is_new ? "new" : "del");
	out_text("[%s", is_new ? "NEW" : "DEL");
	if (ev->reason >= 0) {
		if (reason)
			out_str("reason", " %s", reason);
		else
			out_uint("reason", " %s", (unsigned int)ev->reason);
	}
	out_text("] ");
	vctl_print_dev("dev", &ev->dev);
	out_obj_end();
	fflush(stdout);
}

/**
 * vctl_monitor() - the monitor object
 * @c: the tool state
 * @argc: number of words after "monitor"
 * @argv: the words
 *
 * Runs until killed or until the socket fails.
 *
 * Return: -1 (it only returns on failure).
 */
int vctl_monitor(struct vctl *c, int argc, char **argv)
{
	struct vrdma_monitor *m;
	struct vrdma_event ev;
	int ret;

	if (argc && vctl_is_help(argv[0]))
		return vctl_help("monitor help", argc - 1, argv + 1,
				 monitor_usage);
	if (vctl_no_more_words("monitor", argc, argv))
		return -1;
	if (vctl_open(c) || vrdma_monitor_open(c->h, &m))
		return vctl_kernel_error(c, "monitor");
	/* One object per line: -p would break that */
	out_init(c->json, false);
	print_listening();
	for (;;) {
		ret = vrdma_monitor_next(m, &ev);
		if (ret == -ENOBUFS) {
			vctl_error("monitor: events were lost (receive buffer overflow)");
			continue;
		}
		if (ret == -EPROTO) {
			vctl_error("monitor: skipped a malformed event");
			continue;
		}
		if (ret)
			break;
		print_event(&ev);
	}
	vctl_error("monitor: %s", strerror(-ret));
	vrdma_monitor_close(m);
	return VCTL_EFAIL;
}
