// SPDX-License-Identifier: GPL-2.0
/*
 * One attachment (container, network, ifname): the name of its vdevice,
 * its state file, its rdma.max.
 *
 * State: STATEDIR/NETWORK/VDEV.json, one file per attachment, written
 * after the vdevice exists and removed after it is gone, so that GC can
 * find every vdevice this plugin made for a network and DEL can find the
 * pod's CDI spec.  Files are replaced by rename(2), never half written.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cni.h"

/* FNV-1a, 64 bits, over the three parts of an attachment with NULs between */
static uint64_t attach_hash(const char *id, const char *net, const char *ifn)
{
	const char *const parts[] = { id, net, ifn };
	uint64_t h = 0xcbf29ce484222325ULL;
	unsigned int i;
	const char *s;

	for (i = 0; i < 3; i++) {
		for (s = parts[i]; ; s++) {
			h ^= (unsigned char)*s;
			h *= 0x100000001b3ULL;
			if (!*s)
				break;
		}
	}
	return h;
}

/**
 * attach_init() - an attachment and the name of its vdevice
 * @a: the attachment
 * @container_id: CNI_CONTAINERID
 * @network: network name
 * @ifname: CNI_IFNAME
 *
 * The name is "vr" + the first 12 characters of the container ID that a
 * device name may hold + "-" + 12 hex digits of a hash of all three parts:
 * 27 characters at most, well within IB_DEVICE_NAME_MAX, the same on every
 * call, and different for each attachment of a pod.  Two attachments would
 * need the same 12-character ID prefix and the same 48-bit hash to meet;
 * ADD refuses a name whose state belongs to another attachment anyway.
 */
void attach_init(struct attachment *a, const char *container_id,
		 const char *network, const char *ifname)
{
	char prefix[13];
	size_t n = 0;
	const char *s;

	memset(a, 0, sizeof(*a));
	snprintf(a->container_id, sizeof(a->container_id), "%s", container_id);
	snprintf(a->network, sizeof(a->network), "%s", network);
	snprintf(a->ifname, sizeof(a->ifname), "%s", ifname);
	for (s = container_id; *s && n < sizeof(prefix) - 1; s++)
		if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		    (*s >= '0' && *s <= '9'))
			prefix[n++] = *s;
	prefix[n] = '\0';
	snprintf(a->vdev, sizeof(a->vdev), "vr%s-%012llx", prefix,
		 (unsigned long long)(attach_hash(container_id, network,
						  ifname) >> 16));
}

/**
 * attach_state_dir() - the state directory of a network
 * @c: the configuration
 * @network: the network name
 * @buf: receives the path
 * @len: size of @buf
 *
 * Return: 0, or -ENAMETOOLONG.
 */
int attach_state_dir(const struct cni_conf *c, const char *network,
		     char *buf, size_t len)
{
	if ((size_t)snprintf(buf, len, "%s/%s", c->state_dir, network) >= len)
		return -ENAMETOOLONG;
	return 0;
}

static int state_path(const struct cni_conf *c, const struct attachment *a,
		      char *buf, size_t len)
{
	if ((size_t)snprintf(buf, len, "%s/%s/%s.json", c->state_dir,
			     a->network, a->vdev) >= len)
		return -ENAMETOOLONG;
	return 0;
}

/**
 * mkdir_p() - make a directory and its parents (0700)
 * @path: the directory
 *
 * Return: 0 (also when it exists) or a negative errno.
 */
int mkdir_p(const char *path)
{
	char buf[PATH_MAX];
	char *p;

	if ((size_t)snprintf(buf, sizeof(buf), "%s", path) >= sizeof(buf))
		return -ENAMETOOLONG;
	for (p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0700) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, 0700) && errno != EEXIST)
		return -errno;
	return 0;
}

/**
 * write_file_atomic() - replace a file with new contents
 * @path: the file
 * @text: its contents
 * @mode: its mode
 *
 * Writes a new file of a unique name next to @path (PATH.XXXXXX, which
 * ends in neither ".json" nor ".yaml", so no reader takes it for a state
 * file or a CDI spec) and renames it over @path: readers see the old or
 * the new file, and two writers never write into one temporary file.
 *
 * Return: 0 or a negative errno.
 */
int write_file_atomic(const char *path, const char *text, mode_t mode)
{
	char tmp[PATH_MAX];
	size_t len = strlen(text);
	ssize_t n;
	int fd, ret = 0;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= sizeof(tmp))
		return -ENAMETOOLONG;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fchmod(fd, mode))
		ret = -errno;
	n = ret ? 0 : write(fd, text, len);
	if (!ret && (n < 0 || (size_t)n != len))
		ret = n < 0 ? -errno : -EIO;
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret)
		unlink(tmp);
	return ret;
}

/**
 * state_lock() - take the lock of a state directory
 * @dir: the state directory ("stateDir")
 * @create: make @dir if it is missing; otherwise a missing @dir (where
 *	there is nothing to lock against) returns -ENOENT without an error
 * @e: receives the error
 *
 * Every verb that reads or changes state files or CDI specs holds an
 * exclusive flock(2) of DIR/.lock until the plugin exits (the kernel
 * drops it then, also after a crash): two ADDs or DELs of one pod, or an
 * ADD and a GC, would otherwise each rewrite the pod's CDI spec from the
 * state they saw, and the last writer would drop the other's change.
 *
 * Return: the locked descriptor, -ENOENT (see @create), or -1 with @e.
 */
int state_lock(const char *dir, bool create, struct cni_error *e)
{
	char path[PATH_MAX];
	int fd, ret;

	if ((size_t)snprintf(path, sizeof(path), "%s/.lock", dir) >= sizeof(path))
		return cni_fail0(e, CNI_ERR_IO, "state path too long");
	ret = create ? mkdir_p(dir) : 0;
	if (ret)
		return cni_fail(e, CNI_ERR_IO, "cannot make the state directory",
				"%s: %s", dir, strerror(-ret));
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0 && !create && errno == ENOENT)
		return -ENOENT;
	if (fd < 0)
		return cni_fail(e, CNI_ERR_IO, "cannot open the state lock",
				"%s: %s", path, strerror(errno));
	while (flock(fd, LOCK_EX)) {
		if (errno == EINTR)
			continue;
		ret = errno;
		close(fd);
		return cni_fail(e, CNI_ERR_IO, "cannot lock the state",
				"%s: %s", path, strerror(ret));
	}
	return fd;
}

/**
 * attach_save() - write an attachment's state file
 * @c: the configuration
 * @a: the attachment
 * @e: receives the error
 *
 * Return: 0 or -1 with @e filled in.
 */
int attach_save(const struct cni_conf *c, const struct attachment *a,
		struct cni_error *e)
{
	char dir[PATH_MAX], path[PATH_MAX];
	struct json_object *o;
	const char *text;
	int ret;

	if (attach_state_dir(c, a->network, dir, sizeof(dir)) ||
	    state_path(c, a, path, sizeof(path)))
		return cni_fail0(e, CNI_ERR_IO, "state path too long");
	ret = mkdir_p(dir);
	if (ret)
		return cni_fail(e, CNI_ERR_IO, "cannot make the state directory",
				"%s: %s", dir, strerror(-ret));
	o = json_object_new_object();
	json_object_object_add(o, "containerID",
			       json_object_new_string(a->container_id));
	json_object_object_add(o, "network", json_object_new_string(a->network));
	json_object_object_add(o, "ifname", json_object_new_string(a->ifname));
	json_object_object_add(o, "vdevice", json_object_new_string(a->vdev));
	json_object_object_add(o, "podKey", json_object_new_string(a->pod_key));
	json_object_object_add(o, "netns", json_object_new_string(a->netns));
	json_object_object_add(o, "chardev", json_object_new_string(a->chardev));
	json_object_object_add(o, "major", json_object_new_int64(a->major));
	json_object_object_add(o, "minor", json_object_new_int64(a->minor));
	json_object_object_add(o, "cgroup", json_object_new_string(a->cgroup));
	text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
					      JSON_C_TO_STRING_NOSLASHESCAPE);
	ret = write_file_atomic(path, text, 0600);
	json_object_put(o);
	if (ret)
		return cni_fail(e, CNI_ERR_IO, "cannot write the state file",
				"%s: %s", path, strerror(-ret));
	return 0;
}

static void copy_str(struct json_object *o, const char *key, char *buf,
		     size_t len)
{
	struct json_object *v;

	if (json_object_object_get_ex(o, key, &v) &&
	    json_object_is_type(v, json_type_string))
		snprintf(buf, len, "%s", json_object_get_string(v));
}

/**
 * attach_load() - read a state file
 * @path: the file
 * @a: receives the attachment
 *
 * Return: 0, or -ENOENT, -EINVAL for a file that is not a state file.
 */
int attach_load(const char *path, struct attachment *a)
{
	struct json_object *o, *v;

	memset(a, 0, sizeof(*a));
	o = json_object_from_file(path);
	if (!o)
		return access(path, F_OK) ? -ENOENT : -EINVAL;
	if (!json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		return -EINVAL;
	}
	copy_str(o, "containerID", a->container_id, sizeof(a->container_id));
	copy_str(o, "network", a->network, sizeof(a->network));
	copy_str(o, "ifname", a->ifname, sizeof(a->ifname));
	copy_str(o, "vdevice", a->vdev, sizeof(a->vdev));
	copy_str(o, "podKey", a->pod_key, sizeof(a->pod_key));
	copy_str(o, "netns", a->netns, sizeof(a->netns));
	copy_str(o, "chardev", a->chardev, sizeof(a->chardev));
	copy_str(o, "cgroup", a->cgroup, sizeof(a->cgroup));
	if (json_object_object_get_ex(o, "major", &v))
		a->major = (unsigned int)json_object_get_int64(v);
	if (json_object_object_get_ex(o, "minor", &v))
		a->minor = (unsigned int)json_object_get_int64(v);
	json_object_put(o);
	return a->vdev[0] && a->container_id[0] ? 0 : -EINVAL;
}

/**
 * attach_forget() - remove an attachment's state file
 * @c: the configuration
 * @a: the attachment
 *
 * Return: 0 (also when there was none) or a negative errno.
 */
int attach_forget(const struct cni_conf *c, const struct attachment *a)
{
	char path[PATH_MAX];

	if (state_path(c, a, path, sizeof(path)))
		return -ENAMETOOLONG;
	if (unlink(path) && errno != ENOENT)
		return -errno;
	return 0;
}

static int list_dir(const char *dir, struct attachment **out, size_t *count)
{
	char path[PATH_MAX];
	struct attachment *arr;
	struct dirent *de;
	size_t len;
	DIR *d;

	d = opendir(dir);
	if (!d)
		return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
	while ((de = readdir(d))) {
		len = strlen(de->d_name);
		if (len < 6 || strcmp(de->d_name + len - 5, ".json"))
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir,
				     de->d_name) >= sizeof(path))
			continue;
		arr = realloc(*out, (*count + 1) * sizeof(**out));
		if (!arr) {
			closedir(d);
			return -ENOMEM;
		}
		*out = arr;
		if (!attach_load(path, &arr[*count]))
			(*count)++;
	}
	closedir(d);
	return 0;
}

/**
 * attach_list() - the attachments with state
 * @c: the configuration
 * @network: one network, or NULL for all of them
 * @out: receives a malloc'ed array (NULL when empty); free() it
 * @count: receives its length
 *
 * Files that are not state files are left out.
 *
 * Return: 0 or a negative errno.
 */
int attach_list(const struct cni_conf *c, const char *network,
		struct attachment **out, size_t *count)
{
	char dir[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int ret = 0;

	*out = NULL;
	*count = 0;
	if (network) {
		if (attach_state_dir(c, network, dir, sizeof(dir)))
			return -ENAMETOOLONG;
		return list_dir(dir, out, count);
	}
	d = opendir(c->state_dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while (!ret && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (attach_state_dir(c, de->d_name, dir, sizeof(dir)))
			continue;
		ret = list_dir(dir, out, count);
	}
	closedir(d);
	return ret;
}

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

/**
 * attach_acl_add() - add an address or prefix to an ACL
 * @acl: the ACL
 * @text: "10.1.0.5", "10.1.0.5/24", IPv6 likewise
 * @prefix: keep the prefix (a peer); false keeps the address (a source)
 * @e: receives the error
 *
 * Return: 0 or -1 with @e.
 */
int attach_acl_add(struct vrdma_acl *acl, const char *text, bool prefix,
		   struct cni_error *e)
{
	char addr[64];
	const char *slash = strchr(text, '/');
	struct vrdma_acl_entry ent;
	unsigned int i;

	if (!prefix && slash) {
		if ((size_t)(slash - text) >= sizeof(addr))
			return cni_fail(e, CNI_ERR_CONFIG, "not an address", "\"%s\"", text);
		memcpy(addr, text, slash - text);
		addr[slash - text] = '\0';
		text = addr;
	}
	if (vrdma_acl_entry_parse(text, &ent))
		return cni_fail(e, CNI_ERR_CONFIG, "not an address or prefix", "\"%s\"", text);
	for (i = 0; i < acl->count; i++)
		if (!memcmp(&acl->entry[i], &ent, sizeof(ent)))
			return 0;
	if (acl->count >= VRDMA_ACL_MAX_ENTRIES)
		return cni_fail(e, CNI_ERR_CONFIG, "too many ACL entries",
				"at most %d", VRDMA_ACL_MAX_ENTRIES);
	acl->entry[acl->count++] = ent;
	acl->present = true;
	return 0;
}
