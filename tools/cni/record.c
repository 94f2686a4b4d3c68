// SPDX-License-Identifier: GPL-2.0
/*
 * Records: where an attachment's state and CDI spec are, in a place that
 * does not depend on the network configuration.
 *
 * A DEL must succeed, and clean up, even when it cannot read its network
 * configuration, so it cannot learn "stateDir" and "cdiDir" from it.  ADD
 * therefore writes RECORDS/VDEV.json before it makes the vdevice, with the
 * container ID, ifname, network, vdevice and the directories it used;
 * every teardown removes it.  RECORDS is /run/vrdma/cni/.records (a dot
 * name, which no network can have), or $VRDMA_CNI_RECORDS for tests.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cni.h"

#define DEFAULT_RECORD_DIR	"/run/vrdma/cni/.records"

static const char *record_dir(void)
{
	const char *dir = getenv("VRDMA_CNI_RECORDS");

	return dir && dir[0] == '/' ? dir : DEFAULT_RECORD_DIR;
}

static int record_path(const char *vdev, char *buf, size_t len)
{
	if ((size_t)snprintf(buf, len, "%s/%s.json", record_dir(), vdev) >= len)
		return -ENAMETOOLONG;
	return 0;
}

/**
 * record_save() - write the record of an attachment
 * @c: the configuration with its directories
 * @a: the attachment
 * @e: receives the error
 *
 * Return: 0 or -1 with @e.
 */
int record_save(const struct cni_conf *c, const struct attachment *a,
		struct cni_error *e)
{
	char path[PATH_MAX], dir[PATH_MAX], *slash;
	struct json_object *o;

	if (record_path(a->vdev, path, sizeof(path)))
		return cni_fail0(e, CNI_ERR_IO, "record path too long");
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	*slash = '\0';
	o = json_object_new_object();
	json_add_attachment(o, a);
	json_object_object_add(o, "stateDir", json_object_new_string(c->state_dir));
	json_object_object_add(o, "cdi", json_object_new_boolean(c->cdi));
	json_object_object_add(o, "cdiDir", json_object_new_string(c->cdi_dir));
	json_object_object_add(o, "cdiVersion",
			       json_object_new_string(c->cdi_version));
	return save_json(o, dir, path, "cannot make the record directory",
			 "cannot write the record", e);
}

/**
 * record_forget() - remove the record of a vdevice
 * @vdev: the vdevice's name
 *
 * Return: 0 (also when there was none) or a negative errno.
 */
int record_forget(const char *vdev)
{
	char path[PATH_MAX];

	if (record_path(vdev, path, sizeof(path)))
		return -ENAMETOOLONG;
	if (unlink(path) && errno != ENOENT)
		return -errno;
	return 0;
}

static bool copy_str(struct json_object *o, const char *key, char *buf,
		     size_t len)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string) ||
	    (size_t)snprintf(buf, len, "%s", json_object_get_string(v)) >= len)
		return false;
	return buf[0] != '\0';
}

static int record_load(const char *path, struct record *r)
{
	struct json_object *o, *v;
	bool ok;

	memset(r, 0, sizeof(*r));
	o = json_object_from_file(path);
	if (!o)
		return -EINVAL;
	ok = json_object_is_type(o, json_type_object) &&
	     copy_str(o, "containerID", r->container_id, sizeof(r->container_id)) &&
	     copy_str(o, "network", r->network, sizeof(r->network)) &&
	     copy_str(o, "ifname", r->ifname, sizeof(r->ifname)) &&
	     copy_str(o, "vdevice", r->vdev, sizeof(r->vdev)) &&
	     copy_str(o, "stateDir", r->state_dir, sizeof(r->state_dir)) &&
	     copy_str(o, "cdiDir", r->cdi_dir, sizeof(r->cdi_dir)) &&
	     copy_str(o, "cdiVersion", r->cdi_version, sizeof(r->cdi_version)) &&
	     r->state_dir[0] == '/' && r->cdi_dir[0] == '/' &&
	     !strchr(r->network, '/') && !strchr(r->vdev, '/');
	r->cdi = json_object_object_get_ex(o, "cdi", &v) &&
		 json_object_get_boolean(v);
	json_object_put(o);
	return ok ? 0 : -EINVAL;
}

/* NULL matches anything */
static bool field_is(const char *field, const char *want)
{
	return !want || !strcmp(field, want);
}

/**
 * record_list() - the records of an attachment, or of a network
 * @container_id: CNI_CONTAINERID, NULL for any
 * @ifname: CNI_IFNAME, NULL for any
 * @network: the network's name, NULL for any
 * @out: receives a malloc'ed array (NULL when empty); free() it
 * @count: receives its length
 *
 * Files that are no records are left out.
 *
 * Return: 0 or a negative errno.
 */
int record_list(const char *container_id, const char *ifname,
		const char *network, struct record **out, size_t *count)
{
	char path[PATH_MAX];
	struct record r, *arr;
	struct dirent *de;
	size_t len;
	DIR *d;

	*out = NULL;
	*count = 0;
	d = opendir(record_dir());
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		len = strlen(de->d_name);
		if (len < 6 || strcmp(de->d_name + len - 5, ".json") ||
		    (size_t)snprintf(path, sizeof(path), "%s/%s", record_dir(),
				     de->d_name) >= sizeof(path) ||
		    record_load(path, &r) ||
		    !field_is(r.container_id, container_id) ||
		    !field_is(r.ifname, ifname) || !field_is(r.network, network))
			continue;
		arr = realloc(*out, (*count + 1) * sizeof(**out));
		if (!arr) {
			closedir(d);
			return -ENOMEM;
		}
		*out = arr;
		arr[(*count)++] = r;
	}
	closedir(d);
	return 0;
}
