// SPDX-License-Identifier: GPL-2.0
/*
 * vrdma: a CNI plugin (CNI spec 1.1) that gives each attachment of a pod
 * its own vdevice.  Chained after the plugin that makes the pod's network
 * interface; see vrdma-cni(8) and Documentation/containers.rst.
 *
 *   ADD      vdevice "vr<id>-<hash>" in CNI_NETNS on "parent", with the
 *            limits of the config and of the pod (within "maxLimits"), the
 *            ACLs ("acl", optionally from prevResult's addresses), the
 *            RDMA CM and its published ports ("rdmaCm"); rdma.max of the
 *            pod ("rdmaMax"); the state file; the pod's CDI spec; prints
 *            prevResult
 *   DEL      removes all that; succeeds when any of it is already gone,
 *            without the module, and with a configuration it cannot read
 *   CHECK    the vdevice, its namespace, its node, its RDMA CM and
 *            published ports, and its CDI spec
 *   STATUS   the module is loaded and the parent is there
 *   GC       DEL for every attachment of the network not in
 *            cni.dev/valid-attachments, found in stateDir or by its
 *            record (record.c), an orphan record included
 *   VERSION  0.4.0, 1.0.0, 1.1.0
 *
 * This file runs the commands.  What they read: conf.c (the network
 * configuration), env.c (the CNI_ variables); what they keep: attach.c
 * (state files), record.c (records), cdi.c (CDI specs), cgroup.c
 * (rdma.max).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cni.h"

static void print_json(struct json_object *o)
{
	puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
					    JSON_C_TO_STRING_NOSLASHESCAPE));
}

/* The CNI error object on stdout; the caller exits with status 1 */
static void print_error(const char *version, const struct cni_error *e)
{
	struct json_object *o = json_object_new_object();

	if (!version || !conf_version_supported(version))
		version = CNI_LATEST_VERSION;
	json_object_object_add(o, "cniVersion", json_object_new_string(version));
	json_object_object_add(o, "code", json_object_new_int(e->code));
	json_object_object_add(o, "msg", json_object_new_string(e->msg));
	if (e->details[0])
		json_object_object_add(o, "details",
				       json_object_new_string(e->details));
	print_json(o);
	json_object_put(o);
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
	struct json_object *prev = conf_get(c->root, "prevResult"), *out;

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
	if (conf_pod_limits(c, &limits, e) || conf_acl_from_prev(c, &sgids, &peers, e))
		return -1;
	attach_init(&a, env->container_id, c->network, env->ifname);
	/* The pod's CDI device names, needed (and checked) only for CDI */
	if (c->cdi && env_pod_key(env, a.pod_key, sizeof(a.pod_key), e))
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
	if (vrdma_dev_add_flags(h, a.vdev, c->parent, &ns,
				limits.present ? &limits : NULL, &sgids, &peers,
				c->gid_mode, c->cm ? VRDMA_DEV_F_CM : 0)) {
		cni_fail(e, CNI_ERR_VDEV, "cannot create the vdevice", "%s on %s: %s",
			 a.vdev, c->parent, vrdma_strerror(h));
		vrdma_close(h);
		goto err_record;
	}
	/* Only a vdevice that exists can publish: a refusal takes it back */
	if (c->ncm_ports &&
	    vrdma_dev_set_cm_ports(h, a.vdev, c->cm_ports, c->ncm_ports)) {
		cni_fail(e, CNI_ERR_VDEV, "cannot publish the RDMA CM ports",
			 "%s: %s", a.vdev, vrdma_strerror(h));
		goto err_del;
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

	if (env_need("CNI_CONTAINERID", env->container_id, e) ||
	    env_need("CNI_IFNAME", env->ifname, e))
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

/* The vdevice carries the RDMA CM as "rdmaCm" says, on exactly its ports */
static int check_cm(const struct cni_conf *c, const struct vrdma_dev *dev,
		    struct cni_error *e)
{
	bool cm = dev->flags & VRDMA_DEV_F_CM;
	size_t i, j;

	if (cm != c->cm)
		return cni_fail(e, CNI_ERR_CHECK, "the vdevice's RDMA CM is not as configured",
				"%s: cm %s, \"rdmaCm\" says %s", dev->name,
				cm ? "on" : "off", c->cm ? "on" : "off");
	for (i = 0; i < c->ncm_ports; i++) {
		for (j = 0; j < dev->ncm_ports; j++)
			if (dev->cm_ports[j] == c->cm_ports[i])
				break;
		if (j == dev->ncm_ports)
			break;
	}
	/* Each list has every port once: same length and all found is equal */
	if (i < c->ncm_ports || dev->ncm_ports != c->ncm_ports)
		return cni_fail(e, CNI_ERR_CHECK,
				"the vdevice's published RDMA CM ports are not as configured",
				"%s: %zu published, \"rdmaCm\" lists %zu%s", dev->name,
				dev->ncm_ports, c->ncm_ports,
				i < c->ncm_ports ? " (one of them missing)" : "");
	return 0;
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

	if (env_need("CNI_CONTAINERID", env->container_id, e) ||
	    env_need("CNI_NETNS", env->netns, e) ||
	    env_need("CNI_IFNAME", env->ifname, e))
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
	if (check_cm(c, &dev, e))
		return -1;
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
		struct json_object *id = conf_get(v, "containerID"), *ifn = conf_get(v, "ifname");

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
	struct json_object *valid = conf_get(c->root, "cni.dev/valid-attachments");
	struct attachment *list;
	struct vrdma_handle *h;
	struct cni_error first = { 0 };
	size_t count, i;
	int fd, ret;

	if (!valid)
		valid = conf_get(c->root, "cni.dev/attachments");
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

	for (i = 0; conf_versions[i]; i++)
		json_object_array_add(list, json_object_new_string(conf_versions[i]));
	if (!v || !conf_version_supported(v))
		v = CNI_LATEST_VERSION;
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
	if (env_need("CNI_COMMAND", env.command, &e)) {
		print_error(NULL, &e);
		return 1;
	}
	text = env_read_stdin();
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
			c.state_dir = CNI_DEFAULT_STATE_DIR;
			c.cdi_dir = CNI_DEFAULT_CDI_DIR;
			c.cdi_version = CNI_DEFAULT_CDI_VERSION;
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
