// SPDX-License-Identifier: GPL-2.0
/*
 * What the runtime hands the plugin besides its configuration: stdin, the
 * CNI_ variables and the keys of CNI_ARGS, checked as the CNI
 * specification and Kubernetes define them, and the pod's CDI key made
 * from them.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cni.h"

/**
 * env_read_stdin() - the whole of stdin, the network configuration
 *
 * Return: a NUL-terminated buffer the caller frees (at most 16 MiB are
 * read), or NULL when out of memory.
 */
char *env_read_stdin(void)
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

/**
 * env_load() - read the CNI_ variables and the keys of CNI_ARGS vrdma uses
 * @env: receives them; @env->bad_arg names a value too long to keep
 */
void env_load(struct cni_env *env)
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

/**
 * env_need() - a CNI variable a command needs must be set
 * @name: the variable's name, for the error
 * @val: its value, NULL when unset
 * @e: receives the error
 *
 * Return: 0 or -1 with @e.
 */
int env_need(const char *name, const char *val, struct cni_error *e)
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

/**
 * env_check_add() - what ADD needs of the CNI_ variables and CNI_ARGS
 * @env: what env_load() read
 * @e: receives the error
 *
 * Return: 0 or -1 with @e.
 */
int env_check_add(const struct cni_env *env, struct cni_error *e)
{
	if (env_need("CNI_CONTAINERID", env->container_id, e) ||
	    env_need("CNI_NETNS", env->netns, e) ||
	    env_need("CNI_IFNAME", env->ifname, e))
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

/**
 * env_pod_key() - the pod's CDI device name
 * @env: what env_load() read
 * @buf: receives the name
 * @len: size of @buf
 * @e: receives the error
 *
 * VRDMA_CDI_NAME, else NAMESPACE_NAME from the Kubernetes CNI_ARGS ('_' is
 * in neither), else K8S_POD_NAME alone (podman passes the container's
 * name), else the container ID.
 *
 * Return: 0 or -1 with @e when the name is no CDI device name.
 */
int env_pod_key(const struct cni_env *env, char *buf, size_t len,
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
