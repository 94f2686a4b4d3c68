// SPDX-License-Identifier: GPL-2.0
/*
 * vrdmactl: manage vrdma virtual RDMA devices.
 *
 *   vrdmactl [-j] [-p] [-n NETNS] [-b FILE] [-V] OBJECT { COMMAND | help }
 *
 * Options, the batch mode, the version, and the table of objects.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vrdmactl.h"

#ifndef VRDMA_VERSION
#define VRDMA_VERSION "unknown"
#endif

#define TOP_HELP	VCTL_NAME " help"
#define BATCH_MAX_WORDS	256

static void usage(FILE *f)
{
	fputs("Usage: " VCTL_NAME " [ OPTIONS ] OBJECT { COMMAND | help }\n"
	      "       " VCTL_NAME " [ OPTIONS ] -b FILE\n"
	      "       " VCTL_NAME " -V\n"
	      "where  OBJECT := { dev | parent | monitor | help }\n"
	      "       OPTIONS := { -j[son] | -p[retty] | -n[etns] NETNS }\n"
	      "See " VCTL_NAME "(8); " VCTL_NAME " OBJECT help for each object.\n",
	      f);
}

static int top_help(struct vctl *c, int argc, char **argv)
{
	(void)c;
	return vctl_help("help", argc, argv, usage);
}

static const struct vctl_cmd objects[] = {
	{ "dev",	vctl_dev },
	{ "parent",	vctl_parent },
	{ "monitor",	vctl_monitor },
	{ "help",	top_help },
	{ NULL }
};

/**
 * vctl_open() - open the libvrdma handle @c->h on first use
 * @c: the tool state
 *
 * Return: 0, or VCTL_EFAIL after printing why not (@c->h stays NULL).
 */
int vctl_open(struct vctl *c)
{
	int ret;

	if (c->h)
		return 0;
	ret = vrdma_open_netns(&c->h, c->netns_path);
	if (!ret)
		return 0;
	if (c->netns_path)
		vctl_error("cannot act in network namespace \"%s\": %s",
			   c->netns_path, strerror(-ret));
	else
		vctl_error("cannot open a netlink socket: %s", strerror(-ret));
	return VCTL_EFAIL;
}

/**
 * vctl_kernel_error() - report a failed vctl_open() or libvrdma call
 * @c: the tool state, whose handle holds the error
 * @what: the command ("dev add")
 *
 * Prints "vrdmactl: <what>: <extack> (<strerror>)" for a failed call; a
 * handle that did not open was reported by vctl_open() already.  So a
 * command opens the handle and calls the library under one condition.
 *
 * Return: VCTL_EFAIL.
 */
int vctl_kernel_error(struct vctl *c, const char *what)
{
	if (c->h)
		vctl_error("%s: %s", what, vrdma_strerror(c->h));
	return VCTL_EFAIL;
}

static int run_words(struct vctl *c, int argc, char **argv)
{
	out_init(c->json, c->pretty);
	return vctl_dispatch(c, objects, "object", TOP_HELP, argc, argv);
}

/*
 * Split a batch line into words: blanks separate, '...' and "..." quote,
 * a word starting with '#' starts a comment.  Works in place.
 */
static int split_words(char *line, char **words, int max)
{
	int n = 0;
	char *out;

	while (*line) {
		char quote = 0;

		while (*line == ' ' || *line == '\t' || *line == '\n' ||
		       *line == '\r')
			line++;
		if (!*line || *line == '#')
			break;
		if (n == max)
			return -E2BIG;
		out = line;
		words[n++] = out;
		for (; *line && (quote || !strchr(" \t\r\n", *line)); line++) {
			if (quote && *line == quote)
				quote = 0;
			else if (quote)
				*out++ = *line;
			else if (*line == '\'' || *line == '"')
				quote = *line;
			else
				*out++ = *line;
		}
		if (quote)
			return -EINVAL;
		/* Step over the blank that ended the word, then terminate it */
		if (*line)
			line++;
		*out = '\0';
	}
	return n;
}

static int run_batch(struct vctl *c, const char *file)
{
	char *words[BATCH_MAX_WORDS];
	bool from_stdin = !strcmp(file, "-");
	unsigned int lineno = 0;
	size_t size = 0;
	char *line = NULL;
	int ret = 0;
	FILE *f;
	int n;

	f = from_stdin ? stdin : fopen(file, "r");
	if (!f) {
		vctl_error("cannot open batch file \"%s\": %s", file,
			   strerror(errno));
		return VCTL_EFAIL;
	}
	while (getline(&line, &size, f) >= 0) {
		lineno++;
		n = split_words(line, words, BATCH_MAX_WORDS);
		if (n == 0)
			continue;
		if (n < 0) {
			vctl_error("%s:%u: %s", file, lineno, n == -E2BIG ?
				   "too many words" : "unterminated quote");
			ret = VCTL_EUSAGE;
			break;
		}
		ret = run_words(c, n, words);
		if (ret) {
			vctl_error("%s:%u: command failed", file, lineno);
			break;
		}
	}
	if (!ret && ferror(f)) {
		vctl_error("cannot read batch file \"%s\"", file);
		ret = VCTL_EFAIL;
	}
	free(line);
	if (!from_stdin)
		fclose(f);
	return ret;
}

static int print_version(struct vctl *c)
{
	char version[128];
	int ret;

	printf("%s %s\n", VCTL_NAME, VRDMA_VERSION);
	if (vctl_open(c))
		return VCTL_EFAIL;
	ret = vrdma_version(c->h, version, sizeof(version));
	if (!ret) {
		printf("vrdma module %s\n", version);
		return 0;
	}
	/* Not an error: the tool's own version is what was asked first */
	if (ret == -ENOENT) {
		printf("vrdma module: not loaded\n");
		return 0;
	}
	return vctl_kernel_error(c, "module version");
}

/* -n NAME is a name under /var/run/netns, like ip -n; with a '/' a path */
static const char *netns_arg(const char *arg, char *buf, size_t len)
{
	if (strchr(arg, '/'))
		return arg;
	if ((size_t)snprintf(buf, len, "%s/%s", VRDMA_NETNS_RUN_DIR, arg) >= len)
		return NULL;
	return buf;
}

int main(int argc, char **argv)
{
	static const struct option long_options[] = {
		{ "json",	no_argument,		NULL, 'j' },
		{ "pretty",	no_argument,		NULL, 'p' },
		{ "netns",	required_argument,	NULL, 'n' },
		{ "batch",	required_argument,	NULL, 'b' },
		{ "version",	no_argument,		NULL, 'V' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL }
	};
	struct vctl c = { 0 };
	const char *batch = NULL;
	char netns_buf[4096];
	bool version = false;
	int opt, ret;

	/* '+': stop at the first word, the rest is the command's */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:jpn:b:Vh", long_options,
				  NULL)) != -1) {
		switch (opt) {
		case 'j':
			c.json = true;
			break;
		case 'p':
			c.pretty = true;
			break;
		case 'n':
			c.netns_path = netns_arg(optarg, netns_buf,
						 sizeof(netns_buf));
			if (!c.netns_path || !*optarg) {
				vctl_error("bad network namespace \"%s\"",
					   optarg);
				return VCTL_EXIT_USAGE;
			}
			break;
		case 'b':
			batch = optarg;
			break;
		case 'V':
			version = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case ':':
			vctl_error("option \"%s\" needs a value; try \"%s\"",
				   argv[optind - 1], TOP_HELP);
			return VCTL_EXIT_USAGE;
		default:
			if (optopt)
				vctl_error("unknown option \"-%c\"; try \"%s\"",
					   optopt, TOP_HELP);
			else
				vctl_error("unknown option \"%s\"; try \"%s\"",
					   argv[optind - 1], TOP_HELP);
			return VCTL_EXIT_USAGE;
		}
	}
	argc -= optind;
	argv += optind;

	if (version) {
		ret = print_version(&c);
	} else if (batch) {
		ret = vctl_no_more_words("-b", argc, argv);
		if (!ret)
			ret = run_batch(&c, batch);
	} else if (argc < 1) {
		vctl_error("missing OBJECT");
		usage(stderr);
		ret = -1;
	} else {
		ret = run_words(&c, argc, argv);
	}
	vrdma_close(c.h);
	if (ret == VCTL_EFAIL)
		return VCTL_EXIT_FAIL;
	return ret ? VCTL_EXIT_USAGE : 0;
}
