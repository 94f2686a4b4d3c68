// SPDX-License-Identifier: GPL-2.0
/*
 * The CDI (Container Device Interface) spec of a pod.
 *
 * One file per pod, CDIDIR/vrdma.io-pod-KEY.json, kind "vrdma.io/pod":
 *
 *   device KEY          every vdevice node of the pod (all its attachments)
 *   device KEY-IFNAME   the node of one attachment
 *
 * each with /dev/infiniband/rdma_cm when the host has it.  Names of one
 * kind must be unique, and "KEY-IFNAME" is not injective (pod "a" with
 * "b-c" and pod "a-b" with "c"; pod "a-net1" and pod "a" with "net1"):
 * an ADD whose names another pod already has is refused (cdi_check_names),
 * first come first served, under the state lock.  KEY is known
 * before the pod exists ("NAMESPACE_NAME" for Kubernetes), so a container
 * can ask for "vrdma.io/pod=KEY" (CDI annotation, --device) and its runtime
 * puts the node and its device-cgroup rule in.  The file is rewritten from
 * the pod's state files at every ADD, DEL and GC, and removed with the
 * pod's last attachment.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "cni.h"

#define CDI_KIND	"vrdma.io/pod"
#define RDMA_CM_PATH	"/dev/infiniband/rdma_cm"

/**
 * cdi_spec_path() - where a pod's spec lives
 * @c: the configuration
 * @pod_key: the pod's device name
 * @buf: receives the path
 * @len: size of @buf
 *
 * Return: 0 or -ENAMETOOLONG.
 */
int cdi_spec_path(const struct cni_conf *c, const char *pod_key, char *buf,
		  size_t len)
{
	if ((size_t)snprintf(buf, len, "%s/vrdma.io-pod-%s.json", c->cdi_dir,
			     pod_key) >= len)
		return -ENAMETOOLONG;
	return 0;
}

/**
 * cdi_name_ok() - may @s be a CDI device name
 * @s: the name
 *
 * Return: true for letters, digits, '_', '-', '.', ':' with a letter or
 * digit at each end, shorter than CNI_ID_MAX / 2.
 */
bool cdi_name_ok(const char *s)
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

/* The CDI device of one attachment: "KEY-IFNAME" */
static int attach_device_name(const char *pod_key, const char *ifname,
			      char *buf, size_t len)
{
	if ((size_t)snprintf(buf, len, "%s-%s", pod_key, ifname) >= len)
		return -ENAMETOOLONG;
	return 0;
}

/**
 * cdi_check_names() - refuse an attachment whose CDI names another pod has
 * @c: the configuration
 * @a: the new attachment (pod_key and ifname set)
 * @e: receives the error
 *
 * Every spec is made from the state of one stateDir, which the caller
 * holds locked, so the names of every pod of it are in the state.
 *
 * Return: 0, or -1 with @e.
 */
int cdi_check_names(const struct cni_conf *c, const struct attachment *a,
		    struct cni_error *e)
{
	char mine[2 * CNI_ID_MAX + 2], theirs[2 * CNI_ID_MAX + 2];
	struct attachment *list;
	size_t count, i;
	int ret;

	if (!c->cdi || !a->pod_key[0])
		return 0;
	if (attach_device_name(a->pod_key, a->ifname, mine, sizeof(mine)))
		return cni_fail0(e, CNI_ERR_CDI, "CDI device name too long");
	ret = attach_list(c, NULL, &list, &count);
	if (ret)
		return cni_fail(e, CNI_ERR_IO, "cannot read the state",
				"%s: %s", c->state_dir, strerror(-ret));
	for (i = 0; i < count && !ret; i++) {
		const struct attachment *o = &list[i];

		if (!o->pod_key[0] || !strcmp(o->pod_key, a->pod_key) ||
		    attach_device_name(o->pod_key, o->ifname, theirs,
				       sizeof(theirs)))
			continue;
		if (!strcmp(mine, theirs) || !strcmp(mine, o->pod_key) ||
		    !strcmp(a->pod_key, theirs))
			ret = cni_fail(e, CNI_ERR_CDI, "CDI device name taken by another pod",
				       "pod \"%s\" with \"%s\" and pod \"%s\" with \"%s\" share a device name; choose another VRDMA_CDI_NAME or ifname",
				       a->pod_key, a->ifname, o->pod_key,
				       o->ifname);
	}
	free(list);
	return ret ? -1 : 0;
}

static struct json_object *node_json(const char *path, unsigned int major,
				     unsigned int minor)
{
	struct json_object *n = json_object_new_object();

	json_object_object_add(n, "path", json_object_new_string(path));
	json_object_object_add(n, "type", json_object_new_string("c"));
	json_object_object_add(n, "major", json_object_new_int64(major));
	json_object_object_add(n, "minor", json_object_new_int64(minor));
	json_object_object_add(n, "permissions", json_object_new_string("rw"));
	/*
	 * 0666 inside the container, as rdma-core's udev rule makes them on
	 * hosts: the container's own node, reachable by any of its users
	 */
	json_object_object_add(n, "fileMode", json_object_new_int(0666));
	return n;
}

static struct json_object *device_json(const char *name,
				       struct json_object *nodes)
{
	struct json_object *d = json_object_new_object();
	struct json_object *edits = json_object_new_object();

	json_object_object_add(edits, "deviceNodes", nodes);
	json_object_object_add(d, "name", json_object_new_string(name));
	json_object_object_add(d, "containerEdits", edits);
	return d;
}

static void add_node(struct json_object *nodes, const struct attachment *a)
{
	char path[64];

	snprintf(path, sizeof(path), "/dev/infiniband/%s", a->chardev);
	json_object_array_add(nodes, node_json(path, a->major, a->minor));
}

static void add_rdma_cm(struct json_object *nodes)
{
	struct stat st;

	if (!stat(RDMA_CM_PATH, &st) && S_ISCHR(st.st_mode))
		json_object_array_add(nodes, node_json(RDMA_CM_PATH,
						       major(st.st_rdev),
						       minor(st.st_rdev)));
}

static int attach_cmp(const void *x, const void *y)
{
	const struct attachment *a = x, *b = y;

	return strcmp(a->ifname, b->ifname) ?: strcmp(a->network, b->network);
}

/**
 * cdi_sync_pod() - rewrite (or remove) the CDI spec of a pod
 * @c: the configuration
 * @pod_key: the pod
 * @e: receives the error
 *
 * Return: 0, or -1 with @e.
 */
int cdi_sync_pod(const struct cni_conf *c, const char *pod_key,
		 struct cni_error *e)
{
	struct json_object *spec, *devices, *all, *one;
	struct attachment *list;
	char path[PATH_MAX], name[2 * CNI_ID_MAX + 2];
	size_t count, i, n = 0;
	int ret;

	if (!c->cdi || !pod_key[0])
		return 0;
	if (cdi_spec_path(c, pod_key, path, sizeof(path)))
		return cni_fail0(e, CNI_ERR_CDI, "CDI spec path too long");
	ret = attach_list(c, NULL, &list, &count);
	if (ret)
		return cni_fail(e, CNI_ERR_IO, "cannot read the state",
				"%s: %s", c->state_dir, strerror(-ret));
	/* This pod's attachments with a node, in a stable order */
	for (i = 0; i < count; i++)
		if (!strcmp(list[i].pod_key, pod_key) && list[i].chardev[0])
			list[n++] = list[i];
	qsort(list, n, sizeof(*list), attach_cmp);
	if (!n) {
		free(list);
		if (unlink(path) && errno != ENOENT)
			return cni_fail(e, CNI_ERR_CDI, "cannot remove the CDI spec",
					"%s: %s", path, strerror(errno));
		return 0;
	}
	spec = json_object_new_object();
	devices = json_object_new_array();
	all = json_object_new_array();
	for (i = 0; i < n; i++)
		add_node(all, &list[i]);
	add_rdma_cm(all);
	json_object_array_add(devices, device_json(pod_key, all));
	for (i = 0; i < n; i++) {
		one = json_object_new_array();
		add_node(one, &list[i]);
		add_rdma_cm(one);
		attach_device_name(pod_key, list[i].ifname, name, sizeof(name));
		json_object_array_add(devices, device_json(name, one));
	}
	json_object_object_add(spec, "cdiVersion",
			       json_object_new_string(c->cdi_version));
	json_object_object_add(spec, "kind", json_object_new_string(CDI_KIND));
	json_object_object_add(spec, "devices", devices);
	free(list);
	ret = mkdir(c->cdi_dir, 0755) && errno != EEXIST ? -errno : 0;
	if (!ret)
		ret = write_json_atomic(path, spec, JSON_C_TO_STRING_PRETTY,
					0644);
	else
		json_object_put(spec);
	if (ret)
		return cni_fail(e, CNI_ERR_CDI, "cannot write the CDI spec",
				"%s: %s", path, strerror(-ret));
	return 0;
}
