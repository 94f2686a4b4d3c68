// SPDX-License-Identifier: GPL-2.0
/*
 * One attachment (container, network, ifname): the name of its vdevice,
 * its state file and the lock of the state directory; the ACL entries of
 * its configuration.
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

	if (attach_state_dir(c, a->network, dir, sizeof(dir)) ||
	    state_path(c, a, path, sizeof(path)))
		return cni_fail0(e, CNI_ERR_IO, "state path too long");
	o = json_object_new_object();
	json_add_attachment(o, a);
	json_object_object_add(o, "podKey", json_object_new_string(a->pod_key));
	json_object_object_add(o, "netns", json_object_new_string(a->netns));
	json_object_object_add(o, "chardev", json_object_new_string(a->chardev));
	json_object_object_add(o, "major", json_object_new_int64(a->major));
	json_object_object_add(o, "minor", json_object_new_int64(a->minor));
	json_object_object_add(o, "cgroup", json_object_new_string(a->cgroup));
	if (c->cm) {
		struct json_object *cm = json_object_new_object();
		struct json_object *ports = json_object_new_array();
		size_t i;

		for (i = 0; i < c->ncm_ports; i++)
			json_object_array_add(ports, json_object_new_int(c->cm_ports[i]));
		json_object_object_add(cm, "enabled", json_object_new_boolean(true));
		json_object_object_add(cm, "publish", ports);
		json_object_object_add(o, "rdmaCm", cm);
	}
	return save_json(o, dir, path, "cannot make the state directory",
			 "cannot write the state file", e);
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
