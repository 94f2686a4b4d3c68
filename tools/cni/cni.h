/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vrdma CNI plugin: the map.
 *
 *   vrdma-cni.c  the CNI protocol: environment, configuration, the verbs
 *                ADD, DEL, CHECK, STATUS, GC, VERSION, errors
 *   attach.c     one attachment: its vdevice name, its state file under
 *                /run, its limits and ACLs, its rdma.max
 *   cdi.c        the CDI spec of a pod, rewritten from the pod's state
 *   record.c     where an attachment's state is, for a DEL that cannot
 *                read its configuration
 *
 * JSON is json-c's; the kernel is reached through libvrdma only.
 */
#ifndef VRDMA_CNI_H
#define VRDMA_CNI_H

#include <stdbool.h>
#include <stddef.h>
#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

#include <json-c/json.h>
#include <libvrdma.h>

/* CNI error codes (SPEC.md, "Error"); 100 and up are the plugin's own */
enum cni_code {
	CNI_ERR_VERSION		= 1,	/* incompatible CNI version */
	CNI_ERR_FIELD		= 2,	/* unsupported field in the config */
	CNI_ERR_CONTAINER	= 3,	/* container unknown or gone */
	CNI_ERR_ENV		= 4,	/* invalid necessary environment */
	CNI_ERR_IO		= 5,	/* I/O failure */
	CNI_ERR_DECODE		= 6,	/* failed to decode content */
	CNI_ERR_CONFIG		= 7,	/* invalid network configuration */
	CNI_ERR_AGAIN		= 11,	/* try again later */
	CNI_ERR_UNAVAILABLE	= 50,	/* STATUS: the plugin is not available */
	CNI_ERR_VDEV		= 100,	/* the kernel refused a vdevice change */
	CNI_ERR_LIMIT		= 101,	/* a per-pod limit above the cap */
	CNI_ERR_CGROUP		= 102,	/* rdma.max could not be set */
	CNI_ERR_CDI		= 103,	/* the CDI spec could not be written */
	CNI_ERR_CHECK		= 104,	/* CHECK found the attachment broken */
};

/* The longest CNI_CONTAINERID, network name, ifname and pod key we keep */
#define CNI_ID_MAX	256

/**
 * struct cni_error - what a failed step reports
 * @code: enum cni_code
 * @msg: short message
 * @details: longer explanation, may be empty
 */
struct cni_error {
	int code;
	char msg[256];
	char details[512];
};

/* util.c: errors and whole files, for every other file */
int cni_fail(struct cni_error *e, int code, const char *msg,
	     const char *details_fmt, ...) __attribute__((format(printf, 4, 5)));
int cni_fail0(struct cni_error *e, int code, const char *msg);
int write_file_atomic(const char *path, const char *text, mode_t mode);
int mkdir_p(const char *path);
int write_json_atomic(const char *path, struct json_object *o, int flags,
		      mode_t mode);
int save_json(struct json_object *o, const char *dir, const char *path,
	      const char *dir_msg, const char *path_msg, struct cni_error *e);

/**
 * struct cni_conf - the plugin's part of the network configuration
 * @root: the parsed configuration (owned)
 * @version: cniVersion
 * @network: the network's "name"
 * @parent: "parent", the ib_device vdevices are made on
 * @limits: "limits", for every attachment
 * @caps: "maxLimits", the highest per-pod value of each resource; a
 *	resource not in it cannot be set per pod
 * @sgids_from_prev: "acl": { "sgids": "prevResult" }
 * @peers_from_prev: "acl": { "peers": "prevResult" }
 * @sgids: "acl": { "sgids": [ ... ] }
 * @peers: "acl": { "peers": [ ... ] }
 * @cdi: "cdi" (default true): publish a CDI spec per pod
 * @cdi_dir: "cdiDir" (default /var/run/cdi)
 * @cdi_version: "cdiVersion" written into the spec (default 0.5.0)
 * @rdma_max: "rdmaMax" as a line for rdma.max, empty when not set
 * @cm: "rdmaCm": { "enabled": true }: the vdevice carries the RDMA CM
 * @ncm_ports: how many ports "rdmaCm": { "publish": [ ... ] } lists
 * @cm_ports: those ports, in the order given
 * @state_dir: "stateDir" (default /run/vrdma/cni)
 * @cgroup_root: "cgroupRoot" (default /sys/fs/cgroup)
 */
struct cni_conf {
	struct json_object *root;
	const char *version;
	const char *network;
	const char *parent;
	struct vrdma_res_values limits;
	struct vrdma_res_values caps;
	bool sgids_from_prev;
	bool peers_from_prev;
	struct vrdma_acl sgids;
	struct vrdma_acl peers;
	int gid_mode;
	bool cdi;
	const char *cdi_dir;
	const char *cdi_version;
	char rdma_max[128];
	bool cm;
	size_t ncm_ports;
	uint16_t cm_ports[VRDMA_CM_PORTS_MAX];
	const char *state_dir;
	const char *cgroup_root;
};

/**
 * struct cni_env - the CNI_ variables and what CNI_ARGS says
 * @command: CNI_COMMAND
 * @container_id: CNI_CONTAINERID
 * @netns: CNI_NETNS
 * @ifname: CNI_IFNAME
 * @pod_namespace: K8S_POD_NAMESPACE from CNI_ARGS, empty if none
 * @pod_name: K8S_POD_NAME from CNI_ARGS, empty if none
 * @pod_uid: K8S_POD_UID from CNI_ARGS, empty if none
 * @cdi_name: VRDMA_CDI_NAME from CNI_ARGS, empty if none
 * @bad_arg: the CNI_ARGS key whose value is too long, NULL if none
 */
struct cni_env {
	const char *command;
	const char *container_id;
	const char *netns;
	const char *ifname;
	char pod_namespace[CNI_ID_MAX];
	char pod_name[CNI_ID_MAX];
	char pod_uid[CNI_ID_MAX];
	char cdi_name[CNI_ID_MAX];
	const char *bad_arg;
};

/* conf.c: the network configuration */
#define CNI_LATEST_VERSION	"1.1.0"
#define CNI_DEFAULT_STATE_DIR	"/run/vrdma/cni"
#define CNI_DEFAULT_CDI_DIR	"/var/run/cdi"
/* What the CDI readers of Debian 12 (podman 4.3) still accept */
#define CNI_DEFAULT_CDI_VERSION	"0.5.0"
#define CNI_DEFAULT_CGROUP_ROOT	"/sys/fs/cgroup"
extern const char *const conf_versions[];
bool conf_version_supported(const char *v);
struct json_object *conf_get(struct json_object *o, const char *key);
int conf_parse(const char *text, struct cni_conf *c, struct cni_error *e);
int conf_pod_limits(const struct cni_conf *c, struct vrdma_res_values *out,
		    struct cni_error *e);
int conf_acl_from_prev(const struct cni_conf *c, struct vrdma_acl *sgids,
		       struct vrdma_acl *peers, struct cni_error *e);

/* env.c: stdin, the CNI_ variables, CNI_ARGS */
char *env_read_stdin(void);
void env_load(struct cni_env *env);
int env_need(const char *name, const char *val, struct cni_error *e);
int env_check_add(const struct cni_env *env, struct cni_error *e);
int env_pod_key(const struct cni_env *env, char *buf, size_t len,
		struct cni_error *e);

/**
 * struct attachment - one (container, network, ifname) and its vdevice
 * @container_id: CNI_CONTAINERID
 * @network: network name
 * @ifname: CNI_IFNAME
 * @vdev: the vdevice's name
 * @pod_key: the pod's CDI device name ("<namespace>_<name>", ...)
 * @netns: CNI_NETNS at ADD
 * @chardev: uverbs node name ("uverbs3"), empty if unknown
 * @major: its major number
 * @minor: its minor number
 * @cgroup: the cgroup whose rdma.max was set, empty if none
 */
struct attachment {
	char container_id[CNI_ID_MAX];
	char network[CNI_ID_MAX];
	char ifname[CNI_ID_MAX];
	char vdev[VRDMA_NAME_SIZE];
	char pod_key[CNI_ID_MAX];
	char netns[4096];
	char chardev[VRDMA_CHARDEV_SIZE];
	unsigned int major, minor;
	char cgroup[4096];
};

/* util.c: the fields that name an attachment, in its state and record */
void json_add_attachment(struct json_object *o, const struct attachment *a);

/**
 * struct record - where ADD put an attachment's state and CDI spec
 * @container_id: CNI_CONTAINERID
 * @network: network name
 * @ifname: CNI_IFNAME
 * @vdev: the vdevice's name
 * @state_dir: "stateDir" at ADD
 * @cdi: "cdi" at ADD
 * @cdi_dir: "cdiDir" at ADD
 * @cdi_version: "cdiVersion" at ADD
 */
struct record {
	char container_id[CNI_ID_MAX];
	char network[CNI_ID_MAX];
	char ifname[CNI_ID_MAX];
	char vdev[VRDMA_NAME_SIZE];
	char state_dir[PATH_MAX];
	bool cdi;
	char cdi_dir[PATH_MAX];
	char cdi_version[32];
};

/* attach.c */
int state_lock(const char *dir, bool create, struct cni_error *e);
void attach_init(struct attachment *a, const char *container_id,
		 const char *network, const char *ifname);
int attach_state_dir(const struct cni_conf *c, const char *network,
		     char *buf, size_t len);
int attach_save(const struct cni_conf *c, const struct attachment *a,
		struct cni_error *e);
int attach_load(const char *path, struct attachment *a);
int attach_forget(const struct cni_conf *c, const struct attachment *a);
int attach_list(const struct cni_conf *c, const char *network,
		struct attachment **out, size_t *count);
int attach_acl_add(struct vrdma_acl *acl, const char *text, bool prefix,
		   struct cni_error *e);

/* cgroup.c */
int attach_find_cgroup(const struct cni_conf *c, const struct cni_env *env,
		       char *buf, size_t len, struct cni_error *e);
int attach_set_rdma_max(const struct cni_conf *c, struct attachment *a,
			const struct cni_env *env, struct cni_error *e);

/* record.c */
int record_save(const struct cni_conf *c, const struct attachment *a,
		struct cni_error *e);
int record_forget(const char *vdev);
int record_list(const char *container_id, const char *ifname,
		const char *network, struct record **out, size_t *count);

/* cdi.c */
int cdi_sync_pod(const struct cni_conf *c, const char *pod_key,
		 struct cni_error *e);
bool cdi_name_ok(const char *s);
int cdi_spec_path(const struct cni_conf *c, const char *pod_key, char *buf,
		  size_t len);
int cdi_check_names(const struct cni_conf *c, const struct attachment *a,
		    struct cni_error *e);

#endif /* VRDMA_CNI_H */
