// SPDX-License-Identifier: GPL-2.0
/*
 * vrdmactl dev: show, add, set and delete vdevices.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vrdmactl.h"

#define DEV_HELP	VCTL_NAME " dev help"

static void dev_usage(FILE *f)
{
	fputs("Usage: " VCTL_NAME " dev show [ NAME ]\n"
	      "       " VCTL_NAME " dev add NAME parent PARENT\n"
	      "                    { netns NSNAME | netns-pid PID | netns-path PATH }\n"
	      "                    [ LIMITS ]\n"
	      "                    [ ACL ]\n"
	      "                    [ gids { tenant | shared } ] [ cm { on | off } ]\n"
	      "       " VCTL_NAME " dev set NAME { LIMITS | ACL }...\n"
	      "       " VCTL_NAME " dev set NAME cm-publish { PORT[,PORT]... | none }\n"
	      "       " VCTL_NAME " dev del NAME\n"
	      "       " VCTL_NAME " dev help\n"
	      "LIMITS := [ ctx N ] [ pd N ] [ cq N ] [ qp N ] [ srq N ] [ mr N ]\n"
	      "          [ mw N ] [ ah N ] [ mr-bytes SIZE ] [ drv-obj N ]\n"
	      "ACL := [ sgid { ADDR | any } ]... [ peer { PREFIX | any } ]...\n"
	      "ADDR := { IPV4 | IPV6 }   PREFIX := { ADDR | ADDR/LEN }\n"
	      "N := { NUMBER | max }\n"
	      "SIZE := { NUMBER[K|M|G|T] | max }\n", f);
}

static int dev_help(struct vctl *c, int argc, char **argv)
{
	(void)c;
	return vctl_help("dev help", argc, argv, dev_usage);
}

enum dev_kw_kind {
	KW_PARENT,
	KW_NETNS,
	KW_NETNS_PID,
	KW_NETNS_PATH,
	KW_GIDS,
	KW_CM,
	KW_LIMIT,
	KW_SGID,
	KW_PEER,
};

/**
 * struct dev_keyword - a keyword of dev add / dev set, always with a value
 * @name: the word
 * @kind: what it sets
 * @res: for KW_LIMIT, the resource
 */
struct dev_keyword {
	const char *name;
	enum dev_kw_kind kind;
	enum vrdma_res res;
};

/*
 * dev add takes every keyword; dev set takes the limits and ACLs only,
 * which are the tail of the same table, so both match the same words the
 * same way.
 */
static const struct dev_keyword add_keywords[] = {
	{ "parent",	KW_PARENT,	VRDMA_RES_UNSPEC },
	{ "netns",	KW_NETNS,	VRDMA_RES_UNSPEC },
	{ "netns-pid",	KW_NETNS_PID,	VRDMA_RES_UNSPEC },
	{ "netns-path",	KW_NETNS_PATH,	VRDMA_RES_UNSPEC },
	{ "gids",	KW_GIDS,	VRDMA_RES_UNSPEC },
	{ "cm",		KW_CM,		VRDMA_RES_UNSPEC },
#define FIRST_LIMIT_KEYWORD 6
	{ "ctx",	KW_LIMIT,	VRDMA_RES_CTX },
	{ "pd",		KW_LIMIT,	VRDMA_RES_PD },
	{ "cq",		KW_LIMIT,	VRDMA_RES_CQ },
	{ "qp",		KW_LIMIT,	VRDMA_RES_QP },
	{ "srq",	KW_LIMIT,	VRDMA_RES_SRQ },
	{ "mr",		KW_LIMIT,	VRDMA_RES_MR },
	{ "mw",		KW_LIMIT,	VRDMA_RES_MW },
	{ "ah",		KW_LIMIT,	VRDMA_RES_AH },
	{ "mr-bytes",	KW_LIMIT,	VRDMA_RES_MR_BYTES },
	{ "drv-obj",	KW_LIMIT,	VRDMA_RES_DRV_OBJ },
	{ "sgid",	KW_SGID,	VRDMA_RES_UNSPEC },
	{ "peer",	KW_PEER,	VRDMA_RES_UNSPEC },
	{ NULL }
};

static const struct dev_keyword *const limit_keywords =
	&add_keywords[FIRST_LIMIT_KEYWORD];

/* Resource -> command-line word, for text output */
static const char *res_word(enum vrdma_res res)
{
	const struct dev_keyword *k;

	for (k = limit_keywords; k->name; k++)
		if (k->res == res)
			return k->name;
	return NULL;
}

/**
 * struct dev_args - what dev add / dev set were told
 * @parent: parent name
 * @have_netns: @netns is set
 * @netns: target namespace
 * @netns_path: storage for a path built from a netns name
 * @limits: the limits given
 * @sgids: the source addresses given ("sgid" may repeat)
 * @peers: the peer prefixes given ("peer" may repeat)
 * @sgid_any: "sgid any" was given
 * @peer_any: "peer any" was given
 * @gid_mode: enum vrdma_gid_mode given with "gids", or
 *	VRDMA_GID_MODE_DEFAULT
 * @cm: "cm" was given
 * @flags: VRDMA_DEV_F_* given ("cm on")
 */
struct dev_args {
	const char *parent;
	bool have_netns;
	struct vrdma_netns_spec netns;
	char netns_path[4096];
	struct vrdma_res_values limits;
	struct vrdma_acl sgids;
	struct vrdma_acl peers;
	bool sgid_any;
	bool peer_any;
	int gid_mode;
	bool cm;
	uint32_t flags;
};

/*
 * "sgid ADDR" and "peer PREFIX" add to a list; "any" stands for the
 * default, everything allowed, and cannot be mixed with addresses.
 */
/* The keyword setters' refusals: each returns -1 */
static int given_twice(const char *what, const struct dev_keyword *k)
{
	vctl_error("%s: \"%s\" given twice", what, k->name);
	return -1;
}

static int bad_value(const char *what, const struct dev_keyword *k,
		     const char *val, const char *hint)
{
	vctl_error("%s: bad value \"%s\" for \"%s\"%s", what, val, k->name,
		   hint);
	return -1;
}

static int add_acl(const char *what, const struct dev_keyword *k,
		   const char *val, struct dev_args *a)
{
	bool sgid = k->kind == KW_SGID;
	struct vrdma_acl *acl = sgid ? &a->sgids : &a->peers;
	bool *any = sgid ? &a->sgid_any : &a->peer_any;
	struct vrdma_acl_entry e;

	acl->present = true;
	if (!strcmp(val, "any")) {
		if (acl->count || *any)
			goto mixed;
		*any = true;
		return 0;
	}
	if (*any)
		goto mixed;
	if (vrdma_acl_entry_parse(val, &e) ||
	    (sgid && strchr(val, '/'))) {
		return bad_value(what, k, val,
				 sgid ? " (an IPv4 or IPv6 address)" :
				 " (an IPv4 or IPv6 address or prefix)");
	}
	if (acl->count == VRDMA_ACL_MAX_ENTRIES) {
		vctl_error("%s: too many \"%s\": at most %d", what, k->name,
			   VRDMA_ACL_MAX_ENTRIES);
		return -1;
	}
	acl->entry[acl->count++] = e;
	return 0;

mixed:
	vctl_error("%s: \"%s any\" cannot be combined with other \"%s\" values",
		   what, k->name, k->name);
	return -1;
}

static int set_netns(const char *what, const struct dev_keyword *k,
		     const char *val, struct dev_args *a)
{
	if (a->have_netns) {
		vctl_error("%s: only one of netns, netns-pid, netns-path may be given",
			   what);
		return -1;
	}
	a->have_netns = true;
	switch (k->kind) {
	case KW_NETNS:
		/* A name as ip-netns(8) makes them: one path component */
		if (!*val || strchr(val, '/') || !strcmp(val, ".") ||
		    !strcmp(val, "..") ||
		    (size_t)snprintf(a->netns_path, sizeof(a->netns_path),
				     "%s/%s", VRDMA_NETNS_RUN_DIR, val) >=
		    sizeof(a->netns_path))
			goto err_value;
		a->netns.kind = VRDMA_NETNS_PATH;
		a->netns.path = a->netns_path;
		return 0;
	case KW_NETNS_PID:
		a->netns.kind = VRDMA_NETNS_PID;
		if (vctl_parse_pid(val, &a->netns.pid))
			goto err_value;
		return 0;
	default:
		if (!*val)
			goto err_value;
		a->netns.kind = VRDMA_NETNS_PATH;
		a->netns.path = val;
		return 0;
	}

err_value:
	return bad_value(what, k, val, "");
}

static int set_gid_mode(const char *what, const struct dev_keyword *k,
			const char *val, struct dev_args *a)
{
	int mode;

	if (a->gid_mode != VRDMA_GID_MODE_DEFAULT)
		return given_twice(what, k);
	for (mode = 0; mode <= VRDMA_GID_MODE_MAX; mode++)
		if (!strcmp(val, vrdma_gid_mode_name(mode))) {
			a->gid_mode = mode;
			return 0;
		}
	return bad_value(what, k, val, " (tenant or shared)");
}

static int set_cm(const char *what, const struct dev_keyword *k,
		  const char *val, struct dev_args *a)
{
	if (a->cm)
		return given_twice(what, k);
	a->cm = true;
	if (!strcmp(val, "on")) {
		a->flags |= VRDMA_DEV_F_CM;
		return 0;
	}
	if (!strcmp(val, "off"))
		return 0;
	return bad_value(what, k, val, " (on or off)");
}

static int set_limit(const char *what, const struct dev_keyword *k,
		     const char *val, struct dev_args *a)
{
	uint64_t v;
	int ret;

	if (vrdma_res_has(&a->limits, k->res))
		return given_twice(what, k);
	if (k->res == VRDMA_RES_MR_BYTES)
		ret = vctl_parse_size(val, &v);
	else
		ret = vctl_parse_count(val, &v);
	if (ret)
		return bad_value(what, k, val, "");
	vrdma_res_set(&a->limits, k->res, v);
	return 0;
}

static int set_parent(const char *what, const struct dev_keyword *k,
		      const char *val, struct dev_args *a)
{
	if (a->parent)
		return given_twice(what, k);
	a->parent = val;
	return 0;
}

/* What each kind of keyword does with its value: 0 or -1 */
static int (*const set_keyword[])(const char *what,
				  const struct dev_keyword *k,
				  const char *val, struct dev_args *a) = {
	[KW_PARENT]	= set_parent,
	[KW_NETNS]	= set_netns,
	[KW_NETNS_PID]	= set_netns,
	[KW_NETNS_PATH]	= set_netns,
	[KW_GIDS]	= set_gid_mode,
	[KW_CM]		= set_cm,
	[KW_LIMIT]	= set_limit,
	[KW_SGID]	= add_acl,
	[KW_PEER]	= add_acl,
};

/* KEYWORD VALUE pairs, in any order, each keyword at most once */
static int parse_keywords(const char *what, const struct dev_keyword *table,
			  int argc, char **argv, struct dev_args *a)
{
	const struct dev_keyword *k;
	char kind[32];
	int i, ret;

	snprintf(kind, sizeof(kind), "%s keyword", what);
	for (i = 0; i < argc; i += 2) {
		ret = vctl_lookup(table, sizeof(*table), argv[i], kind,
				  DEV_HELP);
		if (ret < 0)
			return -1;
		k = &table[ret];
		if (i + 1 >= argc) {
			vctl_error("%s: \"%s\" needs a value", what, k->name);
			return -1;
		}
		if (set_keyword[k->kind](what, k, argv[i + 1], a))
			return -1;
	}
	return 0;
}

/*
 * The words of add/set/del: the vdevice name, or a request for help, then
 * the keywords of @table, or none when @table is NULL.  Any other first
 * word is a name, also one that is a prefix of a keyword.
 *
 * Return: 0, 1 after printing help, or -1.
 */
static int dev_words(const char *what, const struct dev_keyword *table,
		     int argc, char **argv, const char **name,
		     struct dev_args *a)
{
	if (argc < 1) {
		vctl_error("%s: missing device NAME; try \"%s\"", what,
			   DEV_HELP);
		return -1;
	}
	if (vctl_is_help_exact(argv[0])) {
		dev_usage(stdout);
		return 1;
	}
	*name = argv[0];
	if (!table)
		return vctl_no_more_words(what, argc - 1, argv + 1);
	return parse_keywords(what, table, argc - 1, argv + 1, a);
}

static int dev_add(struct vctl *c, int argc, char **argv)
{
	struct dev_args a = { .gid_mode = VRDMA_GID_MODE_DEFAULT };
	const char *name;
	int ret;

	ret = dev_words("dev add", add_keywords, argc, argv, &name, &a);
	if (ret)
		return ret < 0 ? -1 : 0;
	if (!a.parent) {
		vctl_error("dev add: \"parent PARENT\" is required");
		return -1;
	}
	if (!a.have_netns) {
		vctl_error("dev add: one of netns, netns-pid, netns-path is required");
		return -1;
	}
	if (vctl_open(c) ||
	    vrdma_dev_add_flags(c->h, name, a.parent, &a.netns,
				a.limits.present ? &a.limits : NULL,
				&a.sgids, &a.peers, a.gid_mode, a.flags))
		return vctl_kernel_error(c, "dev add");
	return 0;
}

/* "P1,P2,..." or "none" into @ports; their number, or -1 */
static int parse_ports(const char *text, uint16_t *ports)
{
	const char *p = text;
	unsigned long v;
	char *end;
	int n = 0;

	if (!strcmp(text, "none"))
		return 0;
	for (;;) {
		if (*p < '0' || *p > '9')
			return -1;
		errno = 0;
		v = strtoul(p, &end, 10);
		if (errno || !v || v > 65535 || n == VRDMA_CM_PORT_SLOTS)
			return -1;
		ports[n++] = (uint16_t)v;
		if (!*end)
			return n;
		if (*end != ',')
			return -1;
		p = end + 1;
	}
}

/* dev set NAME cm-publish LIST: a request of its own */
static int dev_set_cm_ports(struct vctl *c, const char *name, int argc,
			    char **argv)
{
	uint16_t ports[VRDMA_CM_PORT_SLOTS];
	int n;

	if (argc < 2) {
		vctl_error("dev set: \"cm-publish\" needs a value");
		return -1;
	}
	if (vctl_no_more_words("dev set", argc - 2, argv + 2))
		return -1;
	n = parse_ports(argv[1], ports);
	if (n < 0) {
		vctl_error("dev set: bad port list \"%s\" for \"cm-publish\"",
			   argv[1]);
		return -1;
	}
	if (vctl_open(c) ||
	    vrdma_dev_set_cm_ports(c->h, name, ports, (size_t)n))
		return vctl_kernel_error(c, "dev set");
	return 0;
}

static int dev_set(struct vctl *c, int argc, char **argv)
{
	struct dev_args a = { 0 };
	const char *name;
	int ret;

	if (argc > 1 && !strcmp(argv[1], "cm-publish"))
		return dev_set_cm_ports(c, argv[0], argc - 1, argv + 1);
	ret = dev_words("dev set", limit_keywords, argc, argv, &name, &a);
	if (ret)
		return ret < 0 ? -1 : 0;
	if (!a.limits.present && !a.sgids.present && !a.peers.present) {
		vctl_error("dev set: no limit given; try \"%s\"", DEV_HELP);
		return -1;
	}
	if (vctl_open(c) ||
	    vrdma_dev_set_acl(c->h, name, &a.limits, &a.sgids, &a.peers))
		return vctl_kernel_error(c, "dev set");
	return 0;
}

static int dev_del(struct vctl *c, int argc, char **argv)
{
	const char *name;
	int ret;

	ret = dev_words("dev del", NULL, argc, argv, &name, NULL);
	if (ret)
		return ret < 0 ? -1 : 0;
	if (vctl_open(c) || vrdma_dev_del(c->h, name))
		return vctl_kernel_error(c, "dev del");
	return 0;
}

static void print_res_json(const char *key, const struct vrdma_res_values *v)
{
	int res;

	out_obj_begin(key);
	for (res = VRDMA_RES_CTX; res <= VRDMA_RES_MAX; res++) {
		if (!vrdma_res_has(v, res))
			continue;
		/* Every value a number; null for "no limit" */
		if (v->val[res] == VRDMA_LIMIT_MAX)
			out_null(vrdma_res_name(res));
		else
			out_uint(vrdma_res_name(res), NULL, v->val[res]);
	}
	out_obj_end();
}

static const char *res_value(const struct vrdma_res_values *v, int res,
			     char *buf, size_t len)
{
	if (!vrdma_res_has(v, res))
		return "-";
	if (res == VRDMA_RES_MR_BYTES)
		return vctl_format_size(v->val[res], buf, len);
	if (v->val[res] == VRDMA_LIMIT_MAX)
		return "max";
	snprintf(buf, len, "%llu", (unsigned long long)v->val[res]);
	return buf;
}

/* "    ctx 1/16 pd 0/max ...": use/limit per resource, on a line of its own */
static void print_res_text(const struct vrdma_dev *d)
{
	char used[24], limit[24];
	bool any = false;
	int res;

	for (res = VRDMA_RES_CTX; res <= VRDMA_RES_MAX; res++) {
		if (!vrdma_res_has(&d->limits, res) &&
		    !vrdma_res_has(&d->usage, res))
			continue;
		out_text("%s%s %s/%s", any ? " " : "    ", res_word(res),
			 res_value(&d->usage, res, used, sizeof(used)),
			 res_value(&d->limits, res, limit, sizeof(limit)));
		any = true;
	}
	if (any)
		out_line_end();
}

/*
 * JSON: "sgids": [ "10.1.0.5", ... ] and "peers": [ "10.1.0.0/24", ... ],
 * left out when unrestricted.  Text: a line "    sgid ADDR
 * sgid ADDR peer PREFIX ..." in the words dev add takes ("sgid any" for
 * an unrestricted list), left out when neither list is restricted.
 */
static void print_acl(const char *key, const char *word,
		      const struct vrdma_acl *acl, bool first)
{
	char buf[64];
	unsigned int i;

	if (!acl->present) {
		if (!out_is_json())
			out_text("%s%s any", first ? "    " : " ", word);
		return;
	}
	if (out_is_json()) {
		out_array_begin(key);
		for (i = 0; i < acl->count; i++)
			out_str(NULL, NULL, vrdma_acl_entry_format(&acl->entry[i],
								   buf, sizeof(buf)));
		out_array_end();
		return;
	}
	if (!acl->count)
		out_text("%s%s none", first ? "    " : " ", word);
	for (i = 0; i < acl->count; i++, first = false)
		out_text("%s%s %s", first ? "    " : " ", word,
			 vrdma_acl_entry_format(&acl->entry[i], buf,
						sizeof(buf)));
}

/**
 * vctl_print_dev() - print one vdevice, as text lines or a JSON object
 * @key: the object's JSON key, NULL inside a list
 * @d: the vdevice
 */
void vctl_print_dev(const char *key, const struct vrdma_dev *d)
{
	const char *state = vrdma_port_state_name(d->port_state);
	const char *driver = vrdma_driver_name(d->driver_id);
	const char *gids = vrdma_gid_mode_name(d->gid_mode);
	char buf[32];
	size_t i;

	out_obj_begin(key);
	out_uint("index", "%s:", d->index);
	out_str("name", " %s:", d->name);
	out_str("parent", " parent %s", d->parent);
	out_uint("driver_id", driver ? NULL : " driver %s", d->driver_id);
	if (driver)
		out_str("driver", " driver %s", driver);
	out_str("state", " state %s", state ? state : "UNKNOWN");
	if (gids)
		out_str("gids", " gids %s", gids);
	out_str("cm", " cm %s", d->flags & VRDMA_DEV_F_CM ? "on" : "off");
	if (d->ncm_ports) {
		out_text(" cm-publish");
		out_array_begin("cm_ports");
		for (i = 0; i < d->ncm_ports; i++)
			out_uint(NULL, i ? ",%s" : " %s", d->cm_ports[i]);
		out_array_end();
	}
	if (d->netns_ino) {
		out_obj_begin("netns");
		out_uint("inode", d->netns_name[0] ? NULL : " netns-inode %s",
			 d->netns_ino);
		if (d->netns_name[0])
			out_str("name", " netns %s", d->netns_name);
		out_obj_end();
	}
	if (d->chardev[0]) {
		out_str("chardev", " chardev %s", d->chardev);
		snprintf(buf, sizeof(buf), "%u:%u", d->chardev_major,
			 d->chardev_minor);
		out_str("chardev_dev", " (%s)", buf);
	}
	out_line_end();
	if (out_is_json()) {
		print_res_json("limits", &d->limits);
		print_res_json("usage", &d->usage);
	} else {
		print_res_text(d);
	}
	/* Only for a restricted vdevice; JSON leaves out an unrestricted list */
	if (d->sgids.present || d->peers.present) {
		print_acl("sgids", "sgid", &d->sgids, true);
		print_acl("peers", "peer", &d->peers, false);
		if (!out_is_json())
			out_line_end();
	}
	out_obj_end();
}

static int dev_show(struct vctl *c, int argc, char **argv)
{
	struct vrdma_dev_list *list;
	struct vrdma_dev dev;
	size_t i;

	if (argc && vctl_is_help_exact(argv[0])) {
		dev_usage(stdout);
		return 0;
	}
	if (argc && vctl_no_more_words("dev show", argc - 1, argv + 1))
		return -1;
	if (vctl_open(c))
		return VCTL_EFAIL;
	/* Fetch everything first: an error must not leave half a JSON list */
	if (argc) {
		if (vrdma_dev_get(c->h, argv[0], &dev))
			return vctl_kernel_error(c, "dev show");
		out_list_begin();
		vctl_print_dev(NULL, &dev);
		out_list_end();
		return 0;
	}
	if (vrdma_dev_list(c->h, &list))
		return vctl_kernel_error(c, "dev show");
	out_list_begin();
	for (i = 0; i < list->count; i++)
		vctl_print_dev(NULL, &list->devs[i]);
	out_list_end();
	vrdma_dev_list_free(list);
	return 0;
}

static const struct vctl_cmd dev_cmds[] = {
	{ "show",	dev_show },
	{ "add",	dev_add },
	{ "set",	dev_set },
	{ "del",	dev_del },
	{ "help",	dev_help },
	{ NULL }
};

/**
 * vctl_dev() - the dev object
 * @c: the tool state
 * @argc: number of words after "dev"
 * @argv: the words
 *
 * Return: 0 or -1.
 */
int vctl_dev(struct vctl *c, int argc, char **argv)
{
	return vctl_dispatch(c, dev_cmds, "dev command", DEV_HELP, argc, argv);
}
