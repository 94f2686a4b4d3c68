// SPDX-License-Identifier: GPL-2.0
/*
 * vrdma: a CNI plugin (CNI spec 1.1) that gives each attachment of a pod
 * its own vdevice.  Chained after the plugin that makes the pod's network
 * interface; see vrdma-cni(8) and Documentation/containers.rst.
 *
 *   ADD      vdevice "vr<id>-<hash>" in CNI_NETNS on "parent", with the
 *            limits of the config and of the pod (within "maxLimits"), the
 *            ACLs ("acl", optionally from prevResult's addresses); rdma.max
 *            of the pod ("rdmaMax"); the state file; the pod's CDI spec;
 *            prints prevResult
 *   DEL      removes all that; succeeds when any of it is already gone,
 *            without the module, and with a configuration it cannot read
 *   CHECK    the vdevice, its namespace, its node and its CDI spec
 *   STATUS   the module is loaded and the parent is there
 *   GC       DEL for every attachment of the network not in
 *            cni.dev/valid-attachments, found in stateDir or by its
 *            record (record.c), an orphan record included
 *   VERSION  0.4.0, 1.0.0, 1.1.0
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cni.h"

static const char *const versions[] = { "0.4.0", "1.0.0", "1.1.0", NULL };
#define LATEST_VERSION	"1.1.0"

#define DEFAULT_STATE_DIR	"/run/vrdma/cni"
#define DEFAULT_CDI_DIR		"/var/run/cdi"
/* What the CDI readers of Debian 12 (podman 4.3) still accept */
#define DEFAULT_CDI_VERSION	"0.5.0"
#define DEFAULT_CGROUP_ROOT	"/sys/fs/cgroup"

static bool version_supported(const char *v)
{
	int i;

	for (i = 0; versions[i]; i++)
		if (!strcmp(versions[i], v))
			return true;
	return false;
}

static void print_json(struct json_object *o)
{
	puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
					    JSON_C_TO_STRING_NOSLASHESCAPE));
}

/* The CNI error object on stdout; the caller exits with status 1 */
static void print_error(const char *version, const struct cni_error *e)
{
	struct json_object *o = json_object_new_object();

	if (!version || !version_supported(version))
		version = LATEST_VERSION;
	json_object_object_add(o, "cniVersion", json_object_new_string(version));
	json_object_object_add(o, "code", json_object_new_int(e->code));
	json_object_object_add(o, "msg", json_object_new_string(e->msg));
	if (e->details[0])
		json_object_object_add(o, "details",
				       json_object_new_string(e->details));
	print_json(o);
	json_object_put(o);
}

static char *read_stdin(void)
{
	size_t len = 0, size = 4096;
	char *buf = malloc(size), *p;
	size_t n;

	if (!buf)
		return NULL;
	while ((n = fread(buf + len, 1, size - len - 1, stdin)) > 0) {
		len += n;
		if (len + 1 < size)
			continue;
		if (size > 16 << 20)
			break;
		p = realloc(buf, size * 2);
		if (!p) {
			free(buf);
			return NULL;
		}
		buf = p;
		size *= 2;
	}
	buf[len] = '\0';
	return buf;
}

/*
 * "K=V;K=V" of CNI_ARGS: copy the value of KEY, if there.  Return: false
 * when the value does not fit
 */
static bool cni_arg(const char *args, const char *key, char *buf, size_t len)
{
	size_t klen = strlen(key), vlen;
	const char *p = args, *end;

	buf[0] = '\0';
	while (p && *p) {
		end = strchr(p, ';');
		if (!end)
			end = p + strlen(p);
		if (!strncmp(p, key, klen) && p[klen] == '=') {
			vlen = end - (p + klen + 1);
			if (vlen >= len)
				return false;
			memcpy(buf, p + klen + 1, vlen);
			buf[vlen] = '\0';
			return true;
		}
		p = *end ? end + 1 : NULL;
	}
	return true;
}

static void env_load(struct cni_env *env)
{
	const char *args = getenv("CNI_ARGS");

	memset(env, 0, sizeof(*env));
	env->command = getenv("CNI_COMMAND");
	env->container_id = getenv("CNI_CONTAINERID");
	env->netns = getenv("CNI_NETNS");
	env->ifname = getenv("CNI_IFNAME");
	if (!args)
		return;
	if (!cni_arg(args, "K8S_POD_NAMESPACE", env->pod_namespace,
		     sizeof(env->pod_namespace)))
		env->bad_arg = "K8S_POD_NAMESPACE";
	if (!cni_arg(args, "K8S_POD_NAME", env->pod_name, sizeof(env->pod_name)))
		env->bad_arg = "K8S_POD_NAME";
	if (!cni_arg(args, "K8S_POD_UID", env->pod_uid, sizeof(env->pod_uid)))
		env->bad_arg = "K8S_POD_UID";
	if (!cni_arg(args, "VRDMA_CDI_NAME", env->cdi_name, sizeof(env->cdi_name)))
		env->bad_arg = "VRDMA_CDI_NAME";
}

static int need_env(const char *name, const char *val, struct cni_error *e)
{
	if (val && *val)
		return 0;
	return cni_fail(e, CNI_ERR_ENV, "a CNI variable is missing",
			"%s is not set", name);
}

/*
 * CNI_CONTAINERID as the CNI specification has it: a letter or digit,
 * then letters, digits, '_', '.', '-'
 */
static bool container_id_ok(const char *s)
{
	size_t i, n = strlen(s);

	if (!n || n >= CNI_ID_MAX || !isalnum((unsigned char)s[0]))
		return false;
	for (i = 1; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("_.-", s[i]))
			return false;
	return true;
}

/* CNI_IFNAME: a Linux interface name (dev_valid_name()), no ':' */
static bool ifname_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n >= 16 || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (; *s; s++)
		if (*s == '/' || *s == ':' || isspace((unsigned char)*s))
			return false;
	return true;
}

/* A Kubernetes UID: letters, digits, '-', at most 64 */
static bool uid_ok(const char *uid)
{
	size_t i, n = strlen(uid);

	if (!n || n > 64)
		return false;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)uid[i]) && uid[i] != '-')
			return false;
	return true;
}

/* What ADD needs of the CNI_ variables and CNI_ARGS */
static int env_check_add(const struct cni_env *env, struct cni_error *e)
{
	if (need_env("CNI_CONTAINERID", env->container_id, e) ||
	    need_env("CNI_NETNS", env->netns, e) ||
	    need_env("CNI_IFNAME", env->ifname, e))
		return -1;
	if (!container_id_ok(env->container_id))
		return cni_fail(e, CNI_ERR_ENV, "bad CNI_CONTAINERID",
				"\"%.64s\": letters, digits, '_', '.', '-', at most %d",
				env->container_id, CNI_ID_MAX - 1);
	if (!ifname_ok(env->ifname))
		return cni_fail(e, CNI_ERR_ENV, "bad CNI_IFNAME",
				"\"%.64s\": not an interface name", env->ifname);
	if (env->bad_arg)
		return cni_fail(e, CNI_ERR_ENV, "bad CNI_ARGS",
				"the value of %s is too long", env->bad_arg);
	if (env->pod_uid[0] && !uid_ok(env->pod_uid))
		return cni_fail(e, CNI_ERR_ENV, "bad K8S_POD_UID",
				"\"%s\": letters, digits, '-', at most 64", env->pod_uid);
	return 0;
}

/* A CDI device name: letters, digits, '_', '-', '.', ':'; alnum at the ends */
static bool cdi_name_ok(const char *s)
{
	size_t i, n = strlen(s);

	if (!n || n >= CNI_ID_MAX / 2)
		return false;
	for (i = 0; i < n; i++) {
		char ch = s[i];
		bool alnum = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
			     (ch >= '0' && ch <= '9');

		if (!alnum && ((i == 0 || i == n - 1) || !strchr("_-.:", ch)))
			return false;
	}
	return true;
}

/*
 * The pod's CDI device name: VRDMA_CDI_NAME, else NAMESPACE_NAME from the
 * Kubernetes CNI_ARGS ('_' is in neither), else K8S_POD_NAME alone (podman
 * passes the container's name), else the container ID.
 */
static int pod_key(const struct cni_env *env, char *buf, size_t len,
		   struct cni_error *e)
{
	int n;

	if (env->cdi_name[0])
		n = snprintf(buf, len, "%s", env->cdi_name);
	else if (env->pod_namespace[0] && env->pod_name[0])
		n = snprintf(buf, len, "%s_%s", env->pod_namespace, env->pod_name);
	else if (env->pod_name[0])
		n = snprintf(buf, len, "%s", env->pod_name);
	else
		n = snprintf(buf, len, "%s", env->container_id);
	if (n < 0 || (size_t)n >= len || !cdi_name_ok(buf))
		return cni_fail(e, CNI_ERR_ENV, "the pod's name is no CDI device name",
				"\"%s\" (from VRDMA_CDI_NAME, K8S_POD_NAMESPACE/K8S_POD_NAME or CNI_CONTAINERID)",
				buf);
	return 0;
}

/* --- configuration ------------------------------------------------------ */

static struct json_object *get(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!o || !json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, key, &v))
		return NULL;
	return v;
}

static int get_str(struct json_object *o, const char *key, const char **val,
		   const char *dflt, struct cni_error *e)
{
	struct json_object *v = get(o, key);

	*val = dflt;
	if (!v)
		return 0;
	if (!json_object_is_type(v, json_type_string) ||
	    !*json_object_get_string(v))
		return cni_fail(e, CNI_ERR_CONFIG, "bad value in the network configuration",
				"\"%s\" must be a non-empty string", key);
	*val = json_object_get_string(v);
	return 0;
}

static int res_by_name(const char *name)
{
	int res;

	for (res = VRDMA_RES_CTX; res <= VRDMA_RES_MAX; res++)
		if (vrdma_res_name(res) && !strcmp(vrdma_res_name(res), name))
			return res;
	return -1;
}

/*
 * { "qp": 64, "mr_bytes": 1073741824, "ctx": null }: a count per resource
 * name of vrdmactl -j; null is "no limit" (the parent's capacity)
 */
static int parse_limits(struct json_object *o, const char *what,
			struct vrdma_res_values *v, struct cni_error *e)
{
	int res;

	if (!json_object_is_type(o, json_type_object))
		return cni_fail(e, CNI_ERR_CONFIG, "bad limits",
				"\"%s\" must be an object of resource: count", what);
	json_object_object_foreach(o, key, val) {
		res = res_by_name(key);
		if (res < 0)
			return cni_fail(e, CNI_ERR_FIELD, "unsupported field",
					"%s: unknown resource \"%s\"", what, key);
		if (json_object_is_type(val, json_type_null)) {
			vrdma_res_set(v, res, VRDMA_LIMIT_MAX);
			continue;
		}
		/* json-c saturates what does not fit: 2^63 and up is refused */
		if (!json_object_is_type(val, json_type_int) ||
		    json_object_get_int64(val) < 0 ||
		    json_object_get_uint64(val) > INT64_MAX)
			return cni_fail(e, CNI_ERR_CONFIG, "bad limits",
					"%s: \"%s\" must be a count (0 to 2^63-1) or null",
					what, key);
		vrdma_res_set(v, res, json_object_get_uint64(val));
	}
	return 0;
}

static int parse_acl_list(struct json_object *v, const char *what,
			  bool *from_prev, struct vrdma_acl *acl, bool prefix,
			  struct cni_error *e)
{
	size_t i;

	if (!v)
		return 0;
	if (json_object_is_type(v, json_type_string) &&
	    !strcmp(json_object_get_string(v), "prevResult")) {
		*from_prev = true;
		return 0;
	}
	if (!json_object_is_type(v, json_type_array))
		return cni_fail(e, CNI_ERR_CONFIG, "bad ACL",
				"\"acl\": \"%s\" must be \"prevResult\" or a list of addresses",
				what);
	acl->present = true;
	for (i = 0; i < json_object_array_length(v); i++) {
		struct json_object *a = json_object_array_get_idx(v, i);

		if (!json_object_is_type(a, json_type_string))
			return cni_fail(e, CNI_ERR_CONFIG, "bad ACL",
					"\"acl\": \"%s\" entries must be strings", what);
		if (attach_acl_add(acl, json_object_get_string(a), prefix, e))
			return -1;
	}
	return 0;
}

/* "rdmaMax": { "hca_handle": N, "hca_object": M } as a line for rdma.max */
static int parse_rdma_max(struct json_object *v, struct cni_conf *c,
			  struct cni_error *e)
{
	size_t n = 0;

	if (!v)
		return 0;
	if (!json_object_is_type(v, json_type_object))
		return cni_fail0(e, CNI_ERR_CONFIG, "\"rdmaMax\" must be an object");
	json_object_object_foreach(v, key, val) {
		if (strcmp(key, "hca_handle") && strcmp(key, "hca_object"))
			return cni_fail(e, CNI_ERR_FIELD, "unsupported field",
					"rdmaMax: \"%s\" (hca_handle, hca_object)", key);
		if (!json_object_is_type(val, json_type_int) ||
		    json_object_get_int64(val) < 0 ||
		    json_object_get_int64(val) > INT32_MAX)
			return cni_fail(e, CNI_ERR_CONFIG, "bad rdmaMax",
					"\"%s\" must be a count", key);
		n += snprintf(c->rdma_max + n, sizeof(c->rdma_max) - n, "%s%s=%lld",
			      n ? " " : "", key,
			      (long long)json_object_get_int64(val));
	}
	if (!n)
		return cni_fail0(e, CNI_ERR_CONFIG, "\"rdmaMax\" is empty");
	return 0;
}

/* "1.2.3" */
static bool semver_ok(const char *s)
{
	int parts = 0;

	while (parts < 3) {
		if (!isdigit((unsigned char)*s))
			return false;
		while (isdigit((unsigned char)*s))
			s++;
		parts++;
		if (parts < 3 && *s++ != '.')
			return false;
	}
	return !*s;
}

static const char *const known_keys[] = {
	"cniVersion", "cniVersions", "name", "type", "args", "runtimeConfig",
	"capabilities", "prevResult", "ipMasq", "ipam", "dns",
	"cni.dev/valid-attachments", "cni.dev/attachments",
	"parent", "limits", "maxLimits", "acl", "gids", "cdi", "cdiDir", "cdiVersion",
	"rdmaMax", "stateDir", "cgroupRoot", NULL
};

/**
 * conf_parse() - read the plugin's configuration
 * @text: stdin
 * @c: receives it
 * @e: receives the error
 *
 * Return: 0 or -1 with @e.
 */
static int conf_parse(const char *text, struct cni_conf *c, struct cni_error *e)
{
	enum json_tokener_error jerr;
	struct json_object *v, *acl;
	int i;

	memset(c, 0, sizeof(*c));
	c->root = json_tokener_parse_verbose(text, &jerr);
	if (!c->root)
		return cni_fail(e, CNI_ERR_DECODE, "the network configuration is not JSON",
				"%s", json_tokener_error_desc(jerr));
	if (!json_object_is_type(c->root, json_type_object))
		return cni_fail0(e, CNI_ERR_DECODE,
				 "the network configuration is not a JSON object");
	json_object_object_foreach(c->root, key, val) {
		(void)val;
		for (i = 0; known_keys[i] && strcmp(known_keys[i], key); i++)
			;
		if (!known_keys[i])
			return cni_fail(e, CNI_ERR_FIELD, "unsupported field",
					"\"%s\" is not a key of the vrdma plugin", key);
	}
	if (get_str(c->root, "cniVersion", &c->version, NULL, e) ||
	    get_str(c->root, "name", &c->network, NULL, e) ||
	    get_str(c->root, "parent", &c->parent, NULL, e) ||
	    get_str(c->root, "cdiDir", &c->cdi_dir, DEFAULT_CDI_DIR, e) ||
	    get_str(c->root, "cdiVersion", &c->cdi_version, DEFAULT_CDI_VERSION, e) ||
	    get_str(c->root, "stateDir", &c->state_dir, DEFAULT_STATE_DIR, e) ||
	    get_str(c->root, "cgroupRoot", &c->cgroup_root, DEFAULT_CGROUP_ROOT, e))
		return -1;
	if (c->state_dir[0] != '/' || c->cdi_dir[0] != '/' ||
	    c->cgroup_root[0] != '/')
		return cni_fail0(e, CNI_ERR_CONFIG,
				 "\"stateDir\", \"cdiDir\" and \"cgroupRoot\" must be absolute paths");
	if (!semver_ok(c->cdi_version))
		return cni_fail(e, CNI_ERR_CONFIG, "bad \"cdiVersion\"",
				"\"%s\" (like 0.5.0)", c->cdi_version);
	if (!c->version)
		return cni_fail0(e, CNI_ERR_CONFIG, "\"cniVersion\" is missing");
	if (!version_supported(c->version))
		return cni_fail(e, CNI_ERR_VERSION, "CNI version not supported",
				"\"%s\"; supported: 0.4.0, 1.0.0, 1.1.0", c->version);
	if (!c->network)
		return cni_fail0(e, CNI_ERR_CONFIG, "\"name\" is missing");
	if (!cdi_name_ok(c->network) || strchr(c->network, ':'))
		return cni_fail(e, CNI_ERR_CONFIG, "bad network name", "\"%s\"",
				c->network);
	v = get(c->root, "limits");
	if (v && parse_limits(v, "limits", &c->limits, e))
		return -1;
	v = get(c->root, "maxLimits");
	if (v && parse_limits(v, "maxLimits", &c->caps, e))
		return -1;
	acl = get(c->root, "acl");
	if (acl) {
		if (!json_object_is_type(acl, json_type_object))
			return cni_fail0(e, CNI_ERR_CONFIG, "\"acl\" must be an object");
		json_object_object_foreach(acl, akey, aval) {
			(void)aval;
			if (strcmp(akey, "sgids") && strcmp(akey, "peers"))
				return cni_fail(e, CNI_ERR_FIELD, "unsupported field",
						"acl: \"%s\" (sgids, peers)", akey);
		}
		if (parse_acl_list(get(acl, "sgids"), "sgids", &c->sgids_from_prev,
				   &c->sgids, false, e) ||
		    parse_acl_list(get(acl, "peers"), "peers", &c->peers_from_prev,
				   &c->peers, true, e))
			return -1;
	}
	/* "gids": "tenant" (the default) or "shared" (the host's addresses) */
	c->gid_mode = VRDMA_GID_MODE_DEFAULT;
	v = get(c->root, "gids");
	if (v) {
		if (json_object_is_type(v, json_type_string) &&
		    !strcmp(json_object_get_string(v), "tenant"))
			c->gid_mode = VRDMA_GID_MODE_TENANT;
		else if (json_object_is_type(v, json_type_string) &&
			 !strcmp(json_object_get_string(v), "shared"))
			c->gid_mode = VRDMA_GID_MODE_SHARED;
		else
			return cni_fail0(e, CNI_ERR_CONFIG,
					 "\"gids\" must be \"tenant\" or \"shared\"");
	}
	v = get(c->root, "cdi");
	c->cdi = true;
	if (v) {
		if (!json_object_is_type(v, json_type_boolean))
			return cni_fail0(e, CNI_ERR_CONFIG, "\"cdi\" must be true or false");
		c->cdi = json_object_get_boolean(v);
	}
	return parse_rdma_max(get(c->root, "rdmaMax"), c, e);
}

/*
 * The pod's own limits: runtimeConfig "vrdmaLimits" (a runtime capability)
 * or args.cni "vrdmaLimits" (Multus' cni-args), each value within the
 * network's "maxLimits" for that resource
 */
static int pod_limits(const struct cni_conf *c, struct vrdma_res_values *out,
		      struct cni_error *e)
{
	struct json_object *srcs[2];
	struct vrdma_res_values pod;
	const char *names[2] = { "runtimeConfig.vrdmaLimits",
				 "args.cni.vrdmaLimits" };
	int i, res;

	*out = c->limits;
	srcs[0] = get(get(c->root, "runtimeConfig"), "vrdmaLimits");
	srcs[1] = get(get(get(c->root, "args"), "cni"), "vrdmaLimits");
	for (i = 0; i < 2; i++) {
		if (!srcs[i])
			continue;
		memset(&pod, 0, sizeof(pod));
		if (parse_limits(srcs[i], names[i], &pod, e))
			return -1;
		for (res = VRDMA_RES_CTX; res <= VRDMA_RES_MAX; res++) {
			if (!vrdma_res_has(&pod, res))
				continue;
			if (!vrdma_res_has(&c->caps, res))
				return cni_fail(e, CNI_ERR_LIMIT, "per-pod limit not allowed",
						"%s: \"%s\" has no cap in \"maxLimits\"",
						names[i], vrdma_res_name(res));
			if (pod.val[res] > c->caps.val[res])
				return cni_fail(e, CNI_ERR_LIMIT, "per-pod limit above the cap",
						"%s: \"%s\" above %llu of \"maxLimits\"",
						names[i], vrdma_res_name(res),
						(unsigned long long)c->caps.val[res]);
			vrdma_res_set(out, res, pod.val[res]);
		}
	}
	return 0;
}

/* prevResult's "ips": sources (addresses) and peers (their subnets) */
static int acl_from_prev(const struct cni_conf *c, struct vrdma_acl *sgids,
			 struct vrdma_acl *peers, struct cni_error *e)
{
	struct json_object *ips = get(get(c->root, "prevResult"), "ips");
	size_t i, n;

	if (!c->sgids_from_prev && !c->peers_from_prev)
		return 0;
	n = ips && json_object_is_type(ips, json_type_array) ?
		json_object_array_length(ips) : 0;
	if (!n)
		return cni_fail0(e, CNI_ERR_CONFIG,
				 "\"acl\" takes addresses from prevResult, which has no \"ips\"");
	if (c->sgids_from_prev)
		sgids->present = true;
	if (c->peers_from_prev)
		peers->present = true;
	for (i = 0; i < n; i++) {
		struct json_object *addr = get(json_object_array_get_idx(ips, i),
					       "address");

		if (!addr || !json_object_is_type(addr, json_type_string))
			return cni_fail0(e, CNI_ERR_DECODE,
					 "prevResult: an \"ips\" entry without \"address\"");
		if (c->sgids_from_prev &&
		    attach_acl_add(sgids, json_object_get_string(addr), false, e))
			return -1;
		if (c->peers_from_prev &&
		    attach_acl_add(peers, json_object_get_string(addr), true, e))
			return -1;
	}
	return 0;
}

/* --- the verbs ----------------------------------------------------------- */

static int open_handle(struct vrdma_handle **h, struct cni_error *e)
{
	int ret = vrdma_open(h);

	if (ret)
		return cni_fail(e, CNI_ERR_IO, "cannot open a netlink socket", "%s",
				strerror(-ret));
	return 0;
}

/* Delete a vdevice; one that is not there (or no module) is no error */
static int vdev_del(struct vrdma_handle *h, const char *name,
		    struct cni_error *e)
{
	int ret = vrdma_dev_del(h, name);

	if (!ret || ret == -ENODEV || ret == -ENOENT)
		return 0;
	return cni_fail(e, CNI_ERR_VDEV, "cannot delete the vdevice", "%s: %s",
			name, vrdma_strerror(h));
}

/* Everything of one attachment; its pod's CDI spec is rewritten */
static int teardown(const struct cni_conf *c, struct vrdma_handle *h,
		    const struct attachment *a, struct cni_error *e)
{
	int ret = 0;

	/* Its state stays while the vdevice may: DEL and GC retry from it */
	if (h && vdev_del(h, a->vdev, e))
		return -1;
	if (attach_forget(c, a))
		ret = cni_fail(e, CNI_ERR_IO, "cannot remove the state file", "%s",
			       a->vdev);
	else
		record_forget(a->vdev);
	if (cdi_sync_pod(c, a->pod_key, e))
		ret = -1;
	return ret;
}

static void print_result(const struct cni_conf *c)
{
	struct json_object *prev = get(c->root, "prevResult"), *out;

	if (prev && json_object_is_type(prev, json_type_object)) {
		out = json_object_get(prev);
	} else {
		out = json_object_new_object();
		json_object_object_add(out, "dns", json_object_new_object());
	}
	json_object_object_add(out, "cniVersion",
			       json_object_new_string(c->version));
	print_json(out);
	json_object_put(out);
}

static int cmd_add(const struct cni_conf *c, const struct cni_env *env,
		   struct cni_error *e)
{
	struct vrdma_acl sgids = c->sgids, peers = c->peers;
	struct vrdma_netns_spec ns = { .kind = VRDMA_NETNS_PATH };
	struct vrdma_res_values limits;
	struct attachment a, old;
	struct vrdma_handle *h;
	struct vrdma_dev dev;
	char path[PATH_MAX];
	bool had_state;
	struct stat st;

	if (env_check_add(env, e))
		return -1;
	if (!c->parent)
		return cni_fail0(e, CNI_ERR_CONFIG,
				 "no \"parent\" in the vrdma plugin configuration");
	if (stat(env->netns, &st))
		return cni_fail(e, CNI_ERR_CONTAINER, "the network namespace does not exist",
				"%s: %s", env->netns, strerror(errno));
	if (pod_limits(c, &limits, e) || acl_from_prev(c, &sgids, &peers, e))
		return -1;
	attach_init(&a, env->container_id, c->network, env->ifname);
	/* The pod's CDI device names, needed (and checked) only for CDI */
	if (c->cdi && pod_key(env, a.pod_key, sizeof(a.pod_key), e))
		return -1;
	if (c->cdi && !cdi_name_ok(env->ifname))
		return cni_fail(e, CNI_ERR_ENV, "CNI_IFNAME cannot be part of a CDI device name",
				"\"%s\" (letters, digits, '_', '-', '.', ':')",
				env->ifname);
	snprintf(a.netns, sizeof(a.netns), "%s", env->netns);
	/* From here on this ADD sees and changes state no other verb changes */
	if (state_lock(c->state_dir, true, e) < 0 || cdi_check_names(c, &a, e))
		return -1;
	/* A name whose state names another attachment: never take it over */
	had_state = !attach_state_dir(c, c->network, path, sizeof(path)) &&
		    (size_t)snprintf(path + strlen(path), sizeof(path) - strlen(path),
				     "/%s.json", a.vdev) < sizeof(path) &&
		    !attach_load(path, &old);
	if (had_state && (strcmp(old.container_id, a.container_id) ||
			  strcmp(old.ifname, a.ifname)))
		return cni_fail(e, CNI_ERR_VDEV, "vdevice name collision",
				"%s belongs to container %s, %s", a.vdev,
				old.container_id, old.ifname);
	/* Before the vdevice: a DEL finds it from the record alone */
	if (record_save(c, &a, e))
		return -1;
	if (open_handle(&h, e))
		goto err_record;
	ns.path = env->netns;
	if (vrdma_dev_add_gids(h, a.vdev, c->parent, &ns,
			       limits.present ? &limits : NULL, &sgids, &peers,
			       c->gid_mode)) {
		cni_fail(e, CNI_ERR_VDEV, "cannot create the vdevice", "%s on %s: %s",
			 a.vdev, c->parent, vrdma_strerror(h));
		vrdma_close(h);
		goto err_record;
	}
	if (vrdma_dev_get(h, a.vdev, &dev)) {
		cni_fail(e, CNI_ERR_VDEV, "cannot read the new vdevice", "%s: %s",
			 a.vdev, vrdma_strerror(h));
		goto err_del;
	}
	snprintf(a.chardev, sizeof(a.chardev), "%s", dev.chardev);
	a.major = dev.chardev_major;
	a.minor = dev.chardev_minor;
	if (attach_set_rdma_max(c, &a, env, e))
		goto err_del;
	if (attach_save(c, &a, e))
		goto err_del;
	if (cdi_sync_pod(c, a.pod_key, e))
		goto err_forget;
	vrdma_close(h);
	print_result(c);
	return 0;

err_forget:
	attach_forget(c, &a);
	cdi_sync_pod(c, a.pod_key, &(struct cni_error){ 0 });
err_del:
	vrdma_dev_del(h, a.vdev);
	vrdma_close(h);
err_record:
	/* An attachment that was there before keeps its record */
	if (!had_state)
		record_forget(a.vdev);
	return -1;
}

/* DEL in one stateDir: the attachments of NETWORK (NULL: of any network) */
static int del_in(const struct cni_conf *c, const char *network,
		  struct vrdma_handle *h, const struct cni_env *env,
		  struct cni_error *e)
{
	struct attachment *list = NULL;
	size_t count = 0, i;
	int ret = 0;

	attach_list(c, network, &list, &count);
	for (i = 0; i < count; i++) {
		if (strcmp(list[i].container_id, env->container_id) ||
		    strcmp(list[i].ifname, env->ifname))
			continue;
		if (teardown(c, h, &list[i], e))
			ret = -1;
	}
	free(list);
	return ret;
}

/* The configuration an ADD had, as its record tells */
static void record_conf(const struct record *r, struct cni_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->network = r->network;
	c->state_dir = r->state_dir;
	c->cdi = r->cdi;
	c->cdi_dir = r->cdi_dir;
	c->cdi_version = r->cdi_version;
}

/*
 * DEL without a configuration: every attachment with this container ID
 * and ifname in the default stateDir, and wherever a record says an ADD
 * put one (record.c)
 */
static int del_recorded(const struct cni_conf *dflt, struct vrdma_handle *h,
			const struct cni_env *env, struct cni_error *e)
{
	struct record *recs = NULL;
	struct cni_conf c;
	size_t count = 0, i;
	int fd, ret;

	/* No stateDir, nothing in it: DEL makes no directory */
	fd = state_lock(dflt->state_dir, false, e);
	if (fd == -1)
		return -1;
	ret = fd < 0 ? 0 : del_in(dflt, NULL, h, env, e);
	if (fd >= 0)
		close(fd);
	record_list(env->container_id, env->ifname, NULL, &recs, &count);
	for (i = 0; i < count; i++) {
		record_conf(&recs[i], &c);
		fd = state_lock(c.state_dir, false, e);
		if (fd == -1) {
			ret = -1;
			continue;
		}
		if (fd >= 0 && del_in(&c, c.network, h, env, e))
			ret = -1;
		/* No state (a crash between create and save): the name tells */
		else if (h && vdev_del(h, recs[i].vdev, e))
			ret = -1;
		else
			record_forget(recs[i].vdev);
		if (fd >= 0)
			close(fd);
	}
	free(recs);
	return ret;
}

/*
 * DEL: the attachment of this network, or, when the configuration cannot
 * be read, every attachment with this container ID and ifname
 */
static int cmd_del(const struct cni_conf *c, bool conf_ok,
		   const struct cni_env *env, struct cni_error *e)
{
	struct vrdma_handle *h = NULL;
	struct attachment a;
	int ret;

	if (need_env("CNI_CONTAINERID", env->container_id, e) ||
	    need_env("CNI_IFNAME", env->ifname, e))
		return -1;
	/* Without the module there is no vdevice left to delete */
	if (vrdma_open(&h))
		h = NULL;
	if (!conf_ok) {
		ret = del_recorded(c, h, env, e);
		vrdma_close(h);
		return ret;
	}
	if (state_lock(c->state_dir, false, e) == -1) {
		vrdma_close(h);
		return -1;
	}
	ret = del_in(c, c->network, h, env, e);
	/* No state (a crash between create and save): the name still tells */
	attach_init(&a, env->container_id, c->network, env->ifname);
	if (h && vdev_del(h, a.vdev, e))
		ret = -1;
	else if (!ret)
		record_forget(a.vdev);
	vrdma_close(h);
	return ret;
}

static int cmd_check(const struct cni_conf *c, const struct cni_env *env,
		     struct cni_error *e)
{
	char path[PATH_MAX], spec[PATH_MAX];
	struct attachment a, st;
	struct vrdma_handle *h;
	struct vrdma_dev dev;
	struct stat ns;
	int ret;

	if (need_env("CNI_CONTAINERID", env->container_id, e) ||
	    need_env("CNI_NETNS", env->netns, e) ||
	    need_env("CNI_IFNAME", env->ifname, e))
		return -1;
	attach_init(&a, env->container_id, c->network, env->ifname);
	if (attach_state_dir(c, c->network, path, sizeof(path)) ||
	    (size_t)snprintf(path + strlen(path), sizeof(path) - strlen(path),
			     "/%s.json", a.vdev) >= sizeof(path) ||
	    attach_load(path, &st))
		return cni_fail(e, CNI_ERR_CHECK, "no state for this attachment",
				"%s", path);
	if (stat(env->netns, &ns))
		return cni_fail(e, CNI_ERR_CONTAINER, "the network namespace does not exist",
				"%s", env->netns);
	if (open_handle(&h, e))
		return -1;
	ret = vrdma_dev_get(h, a.vdev, &dev);
	if (ret)
		cni_fail(e, CNI_ERR_CHECK, "the vdevice is missing", "%s: %s",
			 a.vdev, vrdma_strerror(h));
	vrdma_close(h);
	if (ret)
		return -1;
	if (dev.netns_ino != ns.st_ino)
		return cni_fail(e, CNI_ERR_CHECK, "the vdevice is in another namespace",
				"%s: netns inode %u, %s is %lu", a.vdev,
				dev.netns_ino, env->netns, (unsigned long)ns.st_ino);
	if (strcmp(dev.chardev, st.chardev) || dev.chardev_major != st.major ||
	    dev.chardev_minor != st.minor)
		return cni_fail(e, CNI_ERR_CHECK, "the vdevice's node changed",
				"%s: %s (%u:%u), state says %s (%u:%u)", a.vdev,
				dev.chardev, dev.chardev_major, dev.chardev_minor,
				st.chardev, st.major, st.minor);
	if (c->cdi && st.chardev[0]) {
		if (cdi_spec_path(c, st.pod_key, spec, sizeof(spec)) ||
		    access(spec, R_OK))
			return cni_fail(e, CNI_ERR_CHECK, "the pod's CDI spec is missing",
					"%s", spec);
	}
	return 0;
}

static int cmd_status(const struct cni_conf *c, struct cni_error *e)
{
	struct vrdma_parent_list *list;
	struct vrdma_handle *h;
	char version[64];
	bool found = false;
	size_t i;

	if (open_handle(&h, e))
		return -1;
	if (vrdma_version(h, version, sizeof(version))) {
		cni_fail(e, CNI_ERR_UNAVAILABLE, "the vrdma module is not available",
			 "%s", vrdma_strerror(h));
		vrdma_close(h);
		return -1;
	}
	if (c->parent && !vrdma_parent_list(h, &list)) {
		for (i = 0; i < list->count; i++)
			found |= !strcmp(list->parents[i].name, c->parent);
		vrdma_parent_list_free(list);
	}
	vrdma_close(h);
	if (c->parent && !found)
		return cni_fail(e, CNI_ERR_UNAVAILABLE, "the parent is not available",
				"no ib_device \"%s\" that vrdma can use", c->parent);
	return 0;
}

static bool attachment_valid(struct json_object *valid, const struct attachment *a)
{
	size_t i;

	for (i = 0; i < json_object_array_length(valid); i++) {
		struct json_object *v = json_object_array_get_idx(valid, i);
		struct json_object *id = get(v, "containerID"), *ifn = get(v, "ifname");

		if (!id || !json_object_is_type(id, json_type_string) ||
		    strcmp(json_object_get_string(id), a->container_id))
			continue;
		/* An entry without ifname keeps every attachment of the ID */
		if (!ifn || (json_object_is_type(ifn, json_type_string) &&
			     !strcmp(json_object_get_string(ifn), a->ifname)))
			return true;
	}
	return false;
}

/*
 * GC of one record, under the lock of its stateDir: the attachment from
 * its state file there, or, with none (an ADD that died between its
 * record and its state), the vdevice the name tells and the record
 */
static int gc_record(const struct record *r, struct vrdma_handle *h,
		     struct cni_error *e)
{
	char path[PATH_MAX];
	struct attachment a;
	struct cni_conf c;

	record_conf(r, &c);
	if (!attach_state_dir(&c, r->network, path, sizeof(path)) &&
	    (size_t)snprintf(path + strlen(path), sizeof(path) - strlen(path),
			     "/%s.json", r->vdev) < sizeof(path) &&
	    !attach_load(path, &a))
		return teardown(&c, h, &a, e);
	if (h && vdev_del(h, r->vdev, e))
		return -1;
	record_forget(r->vdev);
	return 0;
}

/*
 * GC of what the stateDir of the configuration does not show: the records
 * of the network (record.c) whose attachment is not valid.  Those left
 * are orphans (no state at all) or have their state in the stateDir an
 * earlier configuration named.  The caller holds no state lock: each is
 * taken here, so that an ADD in progress ends first.
 */
static int gc_recorded(const struct cni_conf *c, struct json_object *valid,
		       struct vrdma_handle *h, struct cni_error *e)
{
	struct cni_error first = { 0 };
	struct record *recs = NULL;
	size_t count = 0, i;
	struct attachment a;
	int fd, ret;

	ret = record_list(NULL, NULL, c->network, &recs, &count);
	if (ret)
		return cni_fail(e, CNI_ERR_IO, "cannot read the records", "%s",
				strerror(-ret));
	for (i = 0; i < count; i++) {
		attach_init(&a, recs[i].container_id, recs[i].network,
			    recs[i].ifname);
		if (attachment_valid(valid, &a))
			continue;
		/* No stateDir (-ENOENT): nothing in it to lock against */
		fd = state_lock(recs[i].state_dir, false, e);
		if ((fd == -1 || gc_record(&recs[i], h, e)) && !first.code)
			first = *e;
		if (fd >= 0)
			close(fd);
	}
	free(recs);
	if (first.code) {
		*e = first;
		return -1;
	}
	return 0;
}

static int cmd_gc(const struct cni_conf *c, struct cni_error *e)
{
	struct json_object *valid = get(c->root, "cni.dev/valid-attachments");
	struct attachment *list;
	struct vrdma_handle *h;
	struct cni_error first = { 0 };
	size_t count, i;
	int fd, ret;

	if (!valid)
		valid = get(c->root, "cni.dev/attachments");
	if (!valid || !json_object_is_type(valid, json_type_array))
		return cni_fail0(e, CNI_ERR_CONFIG,
				 "GC needs \"cni.dev/valid-attachments\" (a list)");
	fd = state_lock(c->state_dir, false, e);
	if (fd == -1)
		return -1;
	ret = attach_list(c, c->network, &list, &count);
	if (ret) {
		if (fd >= 0)
			close(fd);
		return cni_fail(e, CNI_ERR_IO, "cannot read the state", "%s: %s",
				c->state_dir, strerror(-ret));
	}
	if (vrdma_open(&h))
		h = NULL;
	/* Everything that can go goes; the first error is reported */
	for (i = 0; i < count; i++) {
		if (attachment_valid(valid, &list[i]))
			continue;
		if (teardown(c, h, &list[i], e) && !first.code)
			first = *e;
	}
	free(list);
	/* gc_recorded locks each record's stateDir, this one included */
	if (fd >= 0)
		close(fd);
	if (gc_recorded(c, valid, h, e) && !first.code)
		first = *e;
	vrdma_close(h);
	if (first.code) {
		*e = first;
		return -1;
	}
	return 0;
}

static void cmd_version(const struct cni_conf *c)
{
	struct json_object *o = json_object_new_object();
	struct json_object *list = json_object_new_array();
	const char *v = c->version;
	int i;

	for (i = 0; versions[i]; i++)
		json_object_array_add(list, json_object_new_string(versions[i]));
	if (!v || !version_supported(v))
		v = LATEST_VERSION;
	json_object_object_add(o, "cniVersion", json_object_new_string(v));
	json_object_object_add(o, "supportedVersions", list);
	print_json(o);
	json_object_put(o);
}

int main(void)
{
	struct cni_error e = { 0 };
	struct cni_conf c;
	struct cni_env env;
	bool conf_ok;
	char *text;
	int ret;

	env_load(&env);
	if (need_env("CNI_COMMAND", env.command, &e)) {
		print_error(NULL, &e);
		return 1;
	}
	text = read_stdin();
	if (!text) {
		cni_fail0(&e, CNI_ERR_IO, "cannot read the network configuration");
		print_error(NULL, &e);
		return 1;
	}
	conf_ok = !conf_parse(text, &c, &e);
	if (!strcmp(env.command, "VERSION")) {
		/* Answers whatever the configuration, as libcni expects */
		cmd_version(&c);
		ret = 0;
	} else if (!strcmp(env.command, "DEL")) {
		/* A DEL must not fail for a configuration it cannot read */
		if (!conf_ok) {
			json_object_put(c.root);
			memset(&c, 0, sizeof(c));
			c.state_dir = DEFAULT_STATE_DIR;
			c.cdi_dir = DEFAULT_CDI_DIR;
			c.cdi_version = DEFAULT_CDI_VERSION;
			c.cdi = true;
		}
		ret = cmd_del(&c, conf_ok, &env, &e);
	} else if (!conf_ok) {
		ret = -1;
	} else if (!strcmp(env.command, "ADD")) {
		ret = cmd_add(&c, &env, &e);
	} else if (!strcmp(env.command, "CHECK")) {
		ret = cmd_check(&c, &env, &e);
	} else if (!strcmp(env.command, "STATUS")) {
		ret = cmd_status(&c, &e);
	} else if (!strcmp(env.command, "GC")) {
		ret = cmd_gc(&c, &e);
	} else {
		ret = cni_fail(&e, CNI_ERR_ENV, "unknown CNI_COMMAND", "\"%s\"",
			       env.command);
	}
	if (ret)
		print_error(c.version, &e);
	json_object_put(c.root);
	free(text);
	return ret ? 1 : 0;
}
