// SPDX-License-Identifier: GPL-2.0
/*
 * The pod's cgroup and its rdma.max ("rdmaMax"): the cgroup v2 directory
 * of the pod whose network namespace the attachment is in, found through
 * a process of that namespace or by the pod's UID under "cgroupRoot", and
 * the vdevice's line in its rdma.max.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cni.h"

/* The cgroup v2 path of a process, from /proc/PID/cgroup ("0::/PATH") */
static int proc_cgroup(const char *pid, char *buf, size_t len)
{
	char path[PATH_MAX], line[4096];
	int ret = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/cgroup", pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "0::", 3))
			continue;
		line[strcspn(line, "\n")] = '\0';
		if ((size_t)snprintf(buf, len, "%s", line + 3) < len)
			ret = 0;
		break;
	}
	fclose(f);
	return ret;
}

/* NAME ends in SUFFIX */
static bool ends_with(const char *name, const char *suffix)
{
	size_t n = strlen(name), k = strlen(suffix);

	return n >= k && !strcmp(name + n - k, suffix);
}

/*
 * A cgroup under ROOT named for the pod: "pod<UID>" (cgroupfs driver) or
 * "...-pod<UID with '_' for '-'>.slice" (systemd driver)
 */
static int find_pod_cgroup(const char *root, const char *uid, int depth,
			   char *buf, size_t len)
{
	char path[PATH_MAX], want[CNI_ID_MAX + 8], want_sd[CNI_ID_MAX + 16];
	struct dirent *de;
	int ret = -ENOENT;
	char *p;
	DIR *d;

	snprintf(want, sizeof(want), "pod%s", uid);
	snprintf(want_sd, sizeof(want_sd), "-pod%s.slice", uid);
	for (p = want_sd + 1; *p; p++)
		if (*p == '-')
			*p = '_';
	d = opendir(root);
	if (!d)
		return -ENOENT;
	while (ret && (de = readdir(d))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", root,
				     de->d_name) >= sizeof(path))
			continue;
		if (!strcmp(de->d_name, want) || ends_with(de->d_name, want_sd)) {
			if ((size_t)snprintf(buf, len, "%s", path) < len)
				ret = 0;
			break;
		}
		if (depth > 0)
			ret = find_pod_cgroup(path, uid, depth - 1, buf, len);
	}
	closedir(d);
	return ret;
}

/* The cgroup of every process in the namespace: one, or none, or several */
static int netns_cgroup(const struct cni_conf *c, const char *netns,
			char *buf, size_t len, char *other, size_t olen)
{
	char path[PATH_MAX], cg[PATH_MAX];
	struct stat want, st;
	struct dirent *de;
	int ret = -ENOENT;
	DIR *d;

	if (!netns || stat(netns, &want))
		return -ENOENT;
	d = opendir("/proc");
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/ns/net", de->d_name);
		if (stat(path, &st) || st.st_ino != want.st_ino ||
		    st.st_dev != want.st_dev)
			continue;
		if (proc_cgroup(de->d_name, cg, sizeof(cg)))
			continue;
		if (ret) {
			if ((size_t)snprintf(buf, len, "%s%s", c->cgroup_root,
					     cg) < len)
				ret = 0;
			continue;
		}
		/* Another cgroup in the same namespace: which is the pod's? */
		if (strcmp(buf + strlen(c->cgroup_root), cg)) {
			snprintf(other, olen, "%s%s", c->cgroup_root, cg);
			ret = -ENOTUNIQ;
			break;
		}
	}
	closedir(d);
	return ret;
}

/**
 * attach_find_cgroup() - the cgroup of the pod behind a network namespace
 * @c: the configuration (cgroupRoot)
 * @env: the CNI_ variables: K8S_POD_UID and CNI_NETNS
 * @buf: receives the cgroup's directory
 * @len: size of @buf
 * @e: receives the error
 *
 * With K8S_POD_UID (kubelet's runtimes pass it) the pod's cgroup is the
 * directory named after the UID under the kubepods hierarchy, whichever
 * cgroup driver made it; its limits hold for every container of the pod.
 * Kubelet makes the pod's cgroup before the sandbox, so this works at ADD.
 * Without a UID, the processes already in the namespace must all be in
 * one cgroup, which is taken; when they are in several (a sandbox and a
 * process someone entered the namespace with, or containers in cgroups of
 * their own), nothing says which one is the pod's, and ADD is refused.
 * A runtime that starts the sandbox's first process only after ADD and
 * passes no UID (podman) leaves nothing to find.
 *
 * Return: 0, or -1 with @e.
 */
int attach_find_cgroup(const struct cni_conf *c, const struct cni_env *env,
		       char *buf, size_t len, struct cni_error *e)
{
	char other[PATH_MAX];
	int ret;

	/* ADD checked the UID: letters, digits and '-' */
	if (env->pod_uid[0]) {
		if (find_pod_cgroup(c->cgroup_root, env->pod_uid, 3, buf, len))
			return cni_fail(e, CNI_ERR_CGROUP,
					"\"rdmaMax\" is set but the pod's cgroup was not found",
					"no cgroup of K8S_POD_UID %s under %s",
					env->pod_uid, c->cgroup_root);
		return 0;
	}
	ret = netns_cgroup(c, env->netns, buf, len, other, sizeof(other));
	if (ret == -ENOTUNIQ)
		return cni_fail(e, CNI_ERR_CGROUP,
				"\"rdmaMax\" is set but the pod's cgroup is ambiguous",
				"processes of %s and of %s share %s; pass K8S_POD_UID",
				buf, other, env->netns);
	if (ret)
		return cni_fail(e, CNI_ERR_CGROUP,
				"\"rdmaMax\" is set but the pod's cgroup was not found",
				"%s", "no K8S_POD_UID and no process in the namespace");
	return 0;
}

/**
 * attach_set_rdma_max() - set the pod's rdma.max for its vdevice
 * @c: the configuration ("rdmaMax")
 * @a: the attachment; its cgroup is recorded
 * @env: where to look for the cgroup
 * @e: receives the error
 *
 * Writes "VDEV hca_handle=N hca_object=M" to the pod cgroup's rdma.max.
 * The rdma controller must be enabled for that cgroup (its parent's
 * cgroup.subtree_control lists "rdma"); the plugin does not change the
 * hierarchy.
 *
 * Return: 0 (also when no "rdmaMax" is configured) or -1 with @e.
 */
int attach_set_rdma_max(const struct cni_conf *c, struct attachment *a,
			const struct cni_env *env, struct cni_error *e)
{
	char path[PATH_MAX], line[256];
	FILE *f;
	int ret;

	if (!c->rdma_max[0])
		return 0;
	if (attach_find_cgroup(c, env, a->cgroup, sizeof(a->cgroup), e))
		return -1;
	if ((size_t)snprintf(path, sizeof(path), "%s/rdma.max", a->cgroup) >=
	    sizeof(path))
		return cni_fail0(e, CNI_ERR_CGROUP, "cgroup path too long");
	snprintf(line, sizeof(line), "%s %s\n", a->vdev, c->rdma_max);
	f = fopen(path, "we");
	if (!f)
		return cni_fail(e, CNI_ERR_CGROUP, "cannot open rdma.max",
				"%s: %s (is the rdma controller enabled?)", path,
				strerror(errno));
	ret = fputs(line, f) < 0 ? errno : 0;
	if (fclose(f) && !ret)
		ret = errno;
	if (ret)
		return cni_fail(e, CNI_ERR_CGROUP, "cannot set rdma.max",
				"%s: %s", path, strerror(ret));
	return 0;
}
