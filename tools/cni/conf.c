// SPDX-License-Identifier: GPL-2.0
/*
 * The plugin's network configuration (stdin): every key checked, unknown
 * keys refused, defaults filled in; the pod's own limits within
 * "maxLimits"; ACL entries taken from prevResult.  The keys are listed in
 * vrdma-cni(8).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cni.h"

const char *const conf_versions[] = { "0.4.0", "1.0.0", "1.1.0", NULL };

/**
 * conf_version_supported() - is @v one of conf_versions
 * @v: a cniVersion
 *
 * Return: true if the plugin speaks it.
 */
bool conf_version_supported(const char *v)
{
	int i;

	for (i = 0; conf_versions[i]; i++)
		if (!strcmp(conf_versions[i], v))
			return true;
	return false;
}

/**
 * conf_get() - member @key of object @o
 * @o: a JSON object, or NULL or another type (then there is no member)
 * @key: the member's name
 *
 * Return: the member (borrowed from @o), or NULL.
 */
struct json_object *conf_get(struct json_object *o, const char *key)
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
	struct json_object *v = conf_get(o, key);

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

/*
 * @v, the value of key @what, is an object whose members are among @a and
 * @b: those that take a few named settings
 */
static int check_object(struct json_object *v, const char *what,
			const char *a, const char *b, struct cni_error *e)
{
	char msg[64];

	if (!json_object_is_type(v, json_type_object)) {
		snprintf(msg, sizeof(msg), "\"%s\" must be an object", what);
		return cni_fail0(e, CNI_ERR_CONFIG, msg);
	}
	json_object_object_foreach(v, key, val) {
		(void)val;
		if (strcmp(key, a) && strcmp(key, b))
			return cni_fail(e, CNI_ERR_FIELD, "unsupported field",
					"%s: \"%s\" (%s, %s)", what, key, a, b);
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

/*
 * "rdmaCm": { "enabled": true, "publish": [ 7471, 18515 ] }: the vdevice
 * carries the RDMA CM and takes the incoming connections to these ports
 * of the TCP port space (vrdmactl's "cm on" and "cm-publish")
 */
static int parse_rdma_cm(struct json_object *v, struct cni_conf *c,
			 struct cni_error *e)
{
	struct json_object *en, *pub, *p;
	size_t i, j, n;
	int64_t port;

	if (!v)
		return 0;
	if (check_object(v, "rdmaCm", "enabled", "publish", e))
		return -1;
	en = conf_get(v, "enabled");
	if (en) {
		if (!json_object_is_type(en, json_type_boolean))
			return cni_fail0(e, CNI_ERR_CONFIG,
					 "\"rdmaCm\": \"enabled\" must be true or false");
		c->cm = json_object_get_boolean(en);
	}
	pub = conf_get(v, "publish");
	if (!pub)
		return 0;
	if (!json_object_is_type(pub, json_type_array))
		return cni_fail0(e, CNI_ERR_CONFIG,
				 "\"rdmaCm\": \"publish\" must be a list of ports");
	n = json_object_array_length(pub);
	if (n > VRDMA_CM_PORTS_MAX)
		return cni_fail(e, CNI_ERR_CONFIG, "too many RDMA CM ports",
				"rdmaCm: %zu in \"publish\", at most %d", n,
				VRDMA_CM_PORTS_MAX);
	/* The kernel takes incoming connections only on a vdevice with the CM */
	if (n && !c->cm)
		return cni_fail0(e, CNI_ERR_CONFIG,
				 "\"rdmaCm\": \"publish\" needs \"enabled\": true");
	for (i = 0; i < n; i++) {
		p = json_object_array_get_idx(pub, i);
		port = json_object_get_int64(p);
		if (!json_object_is_type(p, json_type_int) || port < 1 ||
		    port > UINT16_MAX)
			return cni_fail(e, CNI_ERR_CONFIG, "bad RDMA CM port",
					"rdmaCm: \"publish\" entry %zu must be a port (1 to 65535)",
					i);
		for (j = 0; j < i; j++)
			if (c->cm_ports[j] == port)
				return cni_fail(e, CNI_ERR_CONFIG, "bad RDMA CM port",
						"rdmaCm: port %lld listed twice",
						(long long)port);
		c->cm_ports[i] = (uint16_t)port;
	}
	c->ncm_ports = n;
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
	"rdmaMax", "rdmaCm", "stateDir", "cgroupRoot", NULL
};

/**
 * conf_parse() - read the plugin's configuration
 * @text: stdin
 * @c: receives it
 * @e: receives the error
 *
 * Return: 0 or -1 with @e.
 */
int conf_parse(const char *text, struct cni_conf *c, struct cni_error *e)
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
	    get_str(c->root, "cdiDir", &c->cdi_dir, CNI_DEFAULT_CDI_DIR, e) ||
	    get_str(c->root, "cdiVersion", &c->cdi_version, CNI_DEFAULT_CDI_VERSION, e) ||
	    get_str(c->root, "stateDir", &c->state_dir, CNI_DEFAULT_STATE_DIR, e) ||
	    get_str(c->root, "cgroupRoot", &c->cgroup_root, CNI_DEFAULT_CGROUP_ROOT, e))
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
	if (!conf_version_supported(c->version))
		return cni_fail(e, CNI_ERR_VERSION, "CNI version not supported",
				"\"%s\"; supported: 0.4.0, 1.0.0, 1.1.0", c->version);
	if (!c->network)
		return cni_fail0(e, CNI_ERR_CONFIG, "\"name\" is missing");
	if (!cdi_name_ok(c->network) || strchr(c->network, ':'))
		return cni_fail(e, CNI_ERR_CONFIG, "bad network name", "\"%s\"",
				c->network);
	v = conf_get(c->root, "limits");
	if (v && parse_limits(v, "limits", &c->limits, e))
		return -1;
	v = conf_get(c->root, "maxLimits");
	if (v && parse_limits(v, "maxLimits", &c->caps, e))
		return -1;
	acl = conf_get(c->root, "acl");
	if (acl) {
		if (check_object(acl, "acl", "sgids", "peers", e))
			return -1;
		if (parse_acl_list(conf_get(acl, "sgids"), "sgids", &c->sgids_from_prev,
				   &c->sgids, false, e) ||
		    parse_acl_list(conf_get(acl, "peers"), "peers", &c->peers_from_prev,
				   &c->peers, true, e))
			return -1;
	}
	/* "gids": "tenant" (the default) or "shared" (the host's addresses) */
	c->gid_mode = VRDMA_GID_MODE_DEFAULT;
	v = conf_get(c->root, "gids");
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
	v = conf_get(c->root, "cdi");
	c->cdi = true;
	if (v) {
		if (!json_object_is_type(v, json_type_boolean))
			return cni_fail0(e, CNI_ERR_CONFIG, "\"cdi\" must be true or false");
		c->cdi = json_object_get_boolean(v);
	}
	if (parse_rdma_cm(conf_get(c->root, "rdmaCm"), c, e))
		return -1;
	return parse_rdma_max(conf_get(c->root, "rdmaMax"), c, e);
}

/**
 * conf_pod_limits() - the limits of one attachment
 * @c: the configuration
 * @out: receives "limits" with the pod's own values over them
 * @e: receives the error
 *
 * The pod's own limits come from runtimeConfig "vrdmaLimits" (a runtime
 * capability) or args.cni "vrdmaLimits" (Multus' cni-args), each value
 * within the network's "maxLimits" for that resource.
 *
 * Return: 0 or -1 with @e.
 */
int conf_pod_limits(const struct cni_conf *c, struct vrdma_res_values *out,
		    struct cni_error *e)
{
	struct json_object *srcs[2];
	struct vrdma_res_values pod;
	const char *names[2] = { "runtimeConfig.vrdmaLimits",
				 "args.cni.vrdmaLimits" };
	int i, res;

	*out = c->limits;
	srcs[0] = conf_get(conf_get(c->root, "runtimeConfig"), "vrdmaLimits");
	srcs[1] = conf_get(conf_get(conf_get(c->root, "args"), "cni"), "vrdmaLimits");
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

/**
 * conf_acl_from_prev() - the ACL entries "acl" takes from prevResult
 * @c: the configuration
 * @sgids: receives the sources, prevResult's addresses
 * @peers: receives the peers, their subnets
 * @e: receives the error
 *
 * Return: 0 (also when "acl" takes nothing from prevResult) or -1 with @e.
 */
int conf_acl_from_prev(const struct cni_conf *c, struct vrdma_acl *sgids,
		       struct vrdma_acl *peers, struct cni_error *e)
{
	struct json_object *ips = conf_get(conf_get(c->root, "prevResult"), "ips");
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
		struct json_object *addr = conf_get(json_object_array_get_idx(ips, i),
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
