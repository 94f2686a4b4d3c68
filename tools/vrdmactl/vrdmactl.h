/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vrdmactl: the map of the tool.
 *
 *   vrdmactl.c   options, batch mode, version, the table of objects
 *   dispatch.c   word matching (unique prefixes) and the dispatcher
 *   args.c       values: counts, sizes, "max"
 *   output.c     one call per field, text or JSON
 *   dev.c, parent.c, monitor.c   one object each
 *
 * Every command parses its whole command line before it talks to the
 * kernel, so a bad word never leaves a half-done change behind, and the
 * kernel is only reached through libvrdma.
 */
#ifndef VRDMACTL_H
#define VRDMACTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <libvrdma.h>

#define VCTL_NAME	"vrdmactl"

/*
 * What a command returns: 0, VCTL_EUSAGE when the command line is not
 * understood (nothing was done), VCTL_EFAIL when it was understood but
 * failed (the kernel refused, the module is not loaded, a file or namespace
 * cannot be opened).  main() turns them into the exit statuses 2 and 1.
 */
#define VCTL_EUSAGE	(-1)
#define VCTL_EFAIL	(-2)
#define VCTL_EXIT_FAIL	1
#define VCTL_EXIT_USAGE	2

/**
 * struct vctl - what every command gets
 * @json: -j, print JSON
 * @pretty: -p, indent the JSON
 * @netns_path: -n, act inside this network namespace; NULL for our own
 * @h: libvrdma handle, opened on first use by vctl_open()
 */
struct vctl {
	bool json;
	bool pretty;
	const char *netns_path;
	struct vrdma_handle *h;
};

/**
 * struct vctl_cmd - one word of a dispatch table
 * @name: the word
 * @run: what it does with the words after it; returns 0, VCTL_EUSAGE
 *	or VCTL_EFAIL
 *
 * Tables end with a NULL @name; the first entry runs when no word is given.
 */
struct vctl_cmd {
	const char *name;
	int (*run)(struct vctl *c, int argc, char **argv);
};

/* vrdmactl.c */
int vctl_open(struct vctl *c);
int vctl_kernel_error(struct vctl *c, const char *what);

/* dispatch.c */
void vctl_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int vctl_lookup(const void *table, size_t stride, const char *word,
		const char *kind, const char *help);
int vctl_dispatch(struct vctl *c, const struct vctl_cmd *cmds,
		  const char *kind, const char *help, int argc, char **argv);
bool vctl_is_help(const char *word);
bool vctl_is_help_exact(const char *word);
int vctl_no_more_words(const char *what, int argc, char **argv);
int vctl_help(const char *what, int argc, char **argv,
	      void (*usage)(FILE *f));

/* args.c */
int vctl_parse_count(const char *s, uint64_t *val);
int vctl_parse_size(const char *s, uint64_t *val);
int vctl_parse_pid(const char *s, int *pid);
const char *vctl_format_size(uint64_t val, char *buf, size_t len);

/* output.c */
void out_init(bool json, bool pretty);
void out_list_begin(void);
void out_list_end(void);
void out_obj_begin(const char *key);
void out_obj_end(void);
void out_array_begin(const char *key);
void out_array_end(void);
void out_str(const char *key, const char *fmt, const char *val);
void out_uint(const char *key, const char *fmt, uint64_t val);
void out_null(const char *key);
void out_text(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void out_line_end(void);
bool out_is_json(void);

/* dev.c, parent.c, monitor.c */
int vctl_dev(struct vctl *c, int argc, char **argv);
int vctl_parent(struct vctl *c, int argc, char **argv);
int vctl_monitor(struct vctl *c, int argc, char **argv);
void vctl_print_dev(const char *key, const struct vrdma_dev *dev);

#endif /* VRDMACTL_H */
