/* SPDX-License-Identifier: MIT */
/*
 * libvrdma: C API for the vrdma generic netlink family.
 *
 * vrdma registers virtual RDMA devices ("vdevices") on top of a real
 * ib_device (the "parent"), one per network namespace.  This library
 * creates, changes, lists and watches them; the protocol itself is
 * documented in <linux/vrdma.h>.
 *
 * Conventions:
 *  - Every function that can fail returns 0 or a negative errno.  The
 *    handle keeps the last error; vrdma_strerror() renders it together
 *    with the kernel's extended ACK message when there was one.
 *  - A handle is not thread safe; use one per thread.
 *  - Everything a function returns through a pointer is owned by the
 *    caller and released with the matching *_free() function.
 *
 * ABI: the structs the library fills in (struct vrdma_dev, struct
 * vrdma_parent, struct vrdma_event) only ever grow at their end.  The calls
 * that fill them take the caller's idea of their size: vrdma_dev_get() and
 * the other names without "_sz" are macros passing sizeof of the caller's
 * struct to the *_sz function, in the manner of libibverbs' _ex calls.  The
 * library fills in what both sides know and zeroes the rest, so a program
 * built against an older header keeps working with a newer library and the
 * other way round.  The arrays inside the structs have fixed sizes of their
 * own (VRDMA_RES_SLOTS, VRDMA_ACL_SLOTS), independent of the enums of
 * <linux/vrdma.h> that grow with the kernel.  libvrdma.so.1 exports its
 * symbols with the version VRDMA_1.0; a later addition gets a new version
 * node, a changed call a new name.
 */
#ifndef LIBVRDMA_H
#define LIBVRDMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/vrdma.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Room for a vdevice or parent name and its NUL */
#define VRDMA_NAME_SIZE		(VRDMA_DEV_NAME_MAX + 1)
/* Room for a uverbs character device name ("uverbs123") and its NUL */
#define VRDMA_CHARDEV_SIZE	32
/* Room for a name under /var/run/netns and its NUL */
#define VRDMA_NETNS_NAME_SIZE	256
/* Directory holding named network namespaces, as used by ip-netns(8) */
#define VRDMA_NETNS_RUN_DIR	"/var/run/netns"

/*
 * Room for one value per resource type: enum vrdma_res may grow up to it
 * without changing struct vrdma_res_values (the present mask has 32 bits)
 */
#define VRDMA_RES_SLOTS		32
/* Room for published RDMA CM ports; VRDMA_CM_PORTS_MAX may grow to it */
#define VRDMA_CM_PORT_SLOTS	64

/* Room for ACL entries; VRDMA_ACL_MAX_ENTRIES of the uapi may grow to it */
#define VRDMA_ACL_SLOTS		64

struct vrdma_handle;
struct vrdma_monitor;

/**
 * struct vrdma_res_values - one value per resource type
 * @val: values indexed by enum vrdma_res; VRDMA_LIMIT_MAX means "max"
 * @present: bit (1 << res) is set when @val[res] is meaningful: reported
 *	by the kernel in a reply, or to be sent in a request
 */
struct vrdma_res_values {
	uint64_t val[VRDMA_RES_SLOTS];
	uint32_t present;
};

/**
 * struct vrdma_acl_entry - one address or prefix of an address ACL
 * @addr: IPv6 address, network byte order; an IPv4 address is stored as
 *	::ffff:a.b.c.d, the form of a RoCE GID
 * @prefix_len: prefix length in bits, 0..128 (96 + n for IPv4 /n)
 */
struct vrdma_acl_entry {
	uint8_t addr[16];
	uint8_t prefix_len;
};

/**
 * struct vrdma_acl - an address ACL (source GIDs or peers)
 * @present: in a reply, the vdevice is restricted (false: everything is
 *	allowed, the default); in a request, the ACL is to be set (false:
 *	left as it is)
 * @count: number of entries; 0 with @present in a request allows
 *	everything again
 * @entry: the addresses or prefixes
 */
struct vrdma_acl {
	bool present;
	unsigned int count;
	struct vrdma_acl_entry entry[VRDMA_ACL_SLOTS];
};

/**
 * struct vrdma_dev - one vdevice
 * @name: vdevice name
 * @index: ib_device index
 * @parent: name of the parent ib_device
 * @driver_id: enum rdma_driver_id of the parent, see vrdma_driver_name()
 * @netns_ino: inode number of the vdevice's network namespace, 0 if unknown
 * @port_state: enum ib_port_state of port 1, see vrdma_port_state_name()
 * @limits: effective limits
 * @usage: current use
 * @sgids: source addresses the vdevice may send from
 * @peers: destination prefixes the vdevice may reach
 * @chardev: uverbs character device ("uverbs3"), empty when not found
 * @chardev_major: major number of @chardev
 * @chardev_minor: minor number of @chardev
 * @netns_name: name under /var/run/netns of the namespace, empty if none
 * @gid_mode: enum vrdma_gid_mode, which GIDs of the parent the vdevice
 *	sees; -1 when the kernel does not say (a module without GID modes
 *	shares them all), see vrdma_gid_mode_name()
 * @flags: VRDMA_DEV_F_* chosen at creation (VRDMA_DEV_F_CM: it carries
 *	the RDMA CM); 0 from a module without device flags
 * @ncm_ports: how many RDMA CM ports the operator publishes on it
 * @cm_ports: those ports, in the order given (since VRDMA_1.3)
 *
 * @chardev* and @netns_name are not part of the protocol: the library fills
 * them in from /sys/class/infiniband_verbs and /var/run/netns.
 *
 * New members are only ever added at the end (see ABI above).
 */
struct vrdma_dev {
	char name[VRDMA_NAME_SIZE];
	uint32_t index;
	char parent[VRDMA_NAME_SIZE];
	uint32_t driver_id;
	uint32_t netns_ino;
	uint8_t port_state;
	struct vrdma_res_values limits;
	struct vrdma_res_values usage;
	struct vrdma_acl sgids;
	struct vrdma_acl peers;

	char chardev[VRDMA_CHARDEV_SIZE];
	unsigned int chardev_major;
	unsigned int chardev_minor;
	char netns_name[VRDMA_NETNS_NAME_SIZE];
	int gid_mode;
	uint32_t flags;
	size_t ncm_ports;
	uint16_t cm_ports[VRDMA_CM_PORT_SLOTS];
};

/**
 * struct vrdma_dev_list - the vdevices of one dump
 * @count: number of entries in @devs
 * @devs: the vdevices, in the kernel's order
 */
struct vrdma_dev_list {
	size_t count;
	struct vrdma_dev *devs;
};

/**
 * struct vrdma_parent - an ib_device that can carry vdevices
 * @name: ib_device name
 * @driver_id: enum rdma_driver_id
 * @vdev_count: number of vdevices on it, as counted by the kernel
 * @nr_vdevs: number of entries in @vdevs
 * @vdevs: names of the vdevices on it that the kernel listed
 *
 * New members are only ever added at the end.
 */
struct vrdma_parent {
	char name[VRDMA_NAME_SIZE];
	uint32_t driver_id;
	uint32_t vdev_count;
	size_t nr_vdevs;
	char (*vdevs)[VRDMA_NAME_SIZE];
};

/**
 * struct vrdma_parent_list - the parents of one dump
 * @count: number of entries in @parents
 * @parents: the parents, in the kernel's order
 */
struct vrdma_parent_list {
	size_t count;
	struct vrdma_parent *parents;
};

/**
 * enum vrdma_netns_kind - how a request names a network namespace
 * @VRDMA_NETNS_FD: an open file of the namespace (/proc/PID/ns/net, a
 *	bind mount under /var/run/netns, ...)
 * @VRDMA_NETNS_PID: the namespace of a process, as seen from the
 *	caller's pid namespace
 * @VRDMA_NETNS_PATH: a path the library opens and passes as a file
 */
enum vrdma_netns_kind {
	VRDMA_NETNS_FD,
	VRDMA_NETNS_PID,
	VRDMA_NETNS_PATH,
};

/**
 * struct vrdma_netns_spec - target network namespace of a new vdevice
 * @kind: which member of the union is valid
 * @fd: for VRDMA_NETNS_FD
 * @pid: for VRDMA_NETNS_PID
 * @path: for VRDMA_NETNS_PATH
 */
struct vrdma_netns_spec {
	enum vrdma_netns_kind kind;
	union {
		int fd;
		pid_t pid;
		const char *path;
	};
};

/**
 * enum vrdma_event_kind - what happened to a vdevice
 * @VRDMA_EVENT_NEW: it was created
 * @VRDMA_EVENT_DEL: it was removed; see vrdma_event.reason
 */
enum vrdma_event_kind {
	VRDMA_EVENT_NEW = 1,
	VRDMA_EVENT_DEL,
};

/**
 * struct vrdma_event - one notification from the "events" group
 * @kind: creation or removal
 * @reason: enum vrdma_del_reason for a removal, -1 when not reported
 * @dev: the vdevice as it was at the time of the event
 *
 * @dev stays the last member: the struct grows only with struct vrdma_dev.
 */
struct vrdma_event {
	enum vrdma_event_kind kind;
	int reason;
	struct vrdma_dev dev;
};

/**
 * vrdma_open() - open a handle in the caller's network namespace
 * @hp: receives the handle
 *
 * Opens a generic netlink socket.  The "vrdma" family is looked up on first
 * use, so opening succeeds even when the module is not loaded; the calls
 * then fail with -ENOENT until it is.
 *
 * Return: 0 or a negative errno.
 */
int vrdma_open(struct vrdma_handle **hp);

/**
 * vrdma_open_netns() - open a handle acting inside another network namespace
 * @hp: receives the handle
 * @path: a network namespace file, e.g. "/var/run/netns/blue"; NULL means
 *	the caller's namespace, like vrdma_open()
 *
 * Enters the namespace just long enough to create the socket (setns(2)
 * needs CAP_SYS_ADMIN) and returns to the caller's namespace; everything
 * done through the handle then happens as if from inside it, like
 * "ip -n".  Monitors opened from the handle listen in it too.
 *
 * Return: 0 or a negative errno.
 */
int vrdma_open_netns(struct vrdma_handle **hp, const char *path);

/**
 * vrdma_close() - close a handle and free it
 * @h: the handle; NULL is allowed and does nothing
 */
void vrdma_close(struct vrdma_handle *h);

/**
 * vrdma_errno() - the error of the last failed call on a handle
 * @h: the handle
 *
 * Return: a negative errno, or 0 when the last call succeeded.
 */
int vrdma_errno(const struct vrdma_handle *h);

/**
 * vrdma_error_message() - details of the last error
 * @h: the handle
 *
 * Return: the kernel's extended ACK message, or the library's own
 * explanation (e.g. that the module is not loaded), or NULL when the last
 * call succeeded or the error has no more to say than its errno.  Valid
 * until the next call on @h.
 */
const char *vrdma_error_message(const struct vrdma_handle *h);

/**
 * vrdma_strerror() - the last error of a handle as a printable line
 * @h: the handle
 *
 * Return: "<details> (<strerror>)" when there are details, otherwise
 * "<strerror>", and "Success" after a successful call.  Valid until the
 * next call on @h.
 */
const char *vrdma_strerror(struct vrdma_handle *h);

/**
 * vrdma_version() - version of the loaded vrdma module
 * @h: the handle
 * @buf: receives the NUL-terminated version string
 * @len: size of @buf
 *
 * Return: 0, -ENOENT if the module is not loaded, -ENOSPC if @buf is too
 * small, or another negative errno.
 */
int vrdma_version(struct vrdma_handle *h, char *buf, size_t len);

/**
 * vrdma_dev_list_sz() - list the vdevices visible from the handle's namespace
 * @h: the handle
 * @listp: receives the list; free with vrdma_dev_list_free()
 * @dev_size: sizeof(struct vrdma_dev) as the caller knows it; the entries
 *	of the list are that far apart
 *
 * Call it as vrdma_dev_list(h, listp), which passes @dev_size.  The list
 * is consistent: a dump that the kernel flags as interrupted by a
 * concurrent change is thrown away and restarted, a bounded number of
 * times, after which the call fails with -EAGAIN.
 *
 * Return: 0, -EINVAL for a @dev_size smaller than the first struct
 * vrdma_dev of libvrdma.so.1, or another negative errno.
 */
int vrdma_dev_list_sz(struct vrdma_handle *h, struct vrdma_dev_list **listp,
		      size_t dev_size);
#define vrdma_dev_list(h, listp) \
	vrdma_dev_list_sz((h), (listp), sizeof(struct vrdma_dev))

/**
 * vrdma_dev_list_free() - free a list returned by vrdma_dev_list()
 * @list: the list; NULL is allowed
 */
void vrdma_dev_list_free(struct vrdma_dev_list *list);

/**
 * vrdma_dev_get_sz() - look up one vdevice by name
 * @h: the handle
 * @name: vdevice name
 * @dev: receives the vdevice
 * @dev_size: the size of *@dev as the caller knows it
 *
 * Call it as vrdma_dev_get(h, name, dev), which passes @dev_size.
 *
 * Return: 0, -ENODEV if there is no such vdevice in sight, -EINVAL for a
 * @dev_size smaller than the first struct vrdma_dev of libvrdma.so.1, or
 * another negative errno.
 */
int vrdma_dev_get_sz(struct vrdma_handle *h, const char *name,
		     struct vrdma_dev *dev, size_t dev_size);
#define vrdma_dev_get(h, name, dev) \
	vrdma_dev_get_sz((h), (name), (dev), sizeof(struct vrdma_dev))

/**
 * vrdma_dev_add() - create a vdevice
 * @h: the handle
 * @name: name of the new vdevice
 * @parent: name of the parent ib_device
 * @netns: the namespace the vdevice is born in
 * @limits: limits to set (only the resources marked present), or NULL for
 *	the module's defaults
 *
 * Needs CAP_NET_ADMIN.  The kernel validates the name and says what is
 * wrong with it through vrdma_strerror().
 *
 * Return: 0 or a negative errno.
 */
int vrdma_dev_add(struct vrdma_handle *h, const char *name, const char *parent,
		  const struct vrdma_netns_spec *netns,
		  const struct vrdma_res_values *limits);

/**
 * vrdma_dev_del() - remove a vdevice
 * @h: the handle
 * @name: vdevice name
 *
 * Processes using the vdevice lose it: they see a fatal device event.
 *
 * Return: 0 or a negative errno.
 */
int vrdma_dev_del(struct vrdma_handle *h, const char *name);

/**
 * vrdma_dev_set() - change limits of a live vdevice
 * @h: the handle
 * @name: vdevice name
 * @limits: the new limits; only resources marked present change, and at
 *	least one must be
 *
 * Return: 0 or a negative errno (-EINVAL when @limits is empty).
 */
int vrdma_dev_set(struct vrdma_handle *h, const char *name,
		  const struct vrdma_res_values *limits);

/**
 * vrdma_parent_list_sz() - list the ib_devices that can be parents
 * @h: the handle
 * @listp: receives the list; free with vrdma_parent_list_free()
 * @parent_size: sizeof(struct vrdma_parent) as the caller knows it
 *
 * Call it as vrdma_parent_list(h, listp), which passes @parent_size.
 *
 * Return: 0, -EINVAL for a @parent_size smaller than the first struct
 * vrdma_parent of libvrdma.so.1, or another negative errno.
 */
int vrdma_parent_list_sz(struct vrdma_handle *h,
			 struct vrdma_parent_list **listp, size_t parent_size);
#define vrdma_parent_list(h, listp) \
	vrdma_parent_list_sz((h), (listp), sizeof(struct vrdma_parent))

/**
 * vrdma_parent_list_free() - free a list returned by vrdma_parent_list()
 * @list: the list; NULL is allowed
 *
 * Frees what the library keeps for the list; it does not read the entries
 * of @list->parents, which are the caller's to reorder or change.
 */
void vrdma_parent_list_free(struct vrdma_parent_list *list);

/**
 * vrdma_monitor_open() - subscribe to vdevice events
 * @h: the handle; the monitor listens in the handle's namespace
 * @mp: receives the monitor
 *
 * The monitor has its own socket, so @h stays usable for requests.
 * Errors are reported on @h.
 *
 * Return: 0 or a negative errno.
 */
int vrdma_monitor_open(struct vrdma_handle *h, struct vrdma_monitor **mp);

/**
 * vrdma_monitor_fd() - file descriptor to poll for events
 * @m: the monitor
 *
 * Return: a descriptor that becomes readable when an event is waiting.
 * Call vrdma_monitor_next() then.
 */
int vrdma_monitor_fd(const struct vrdma_monitor *m);

/**
 * vrdma_monitor_next_sz() - wait for the next event and parse it
 * @m: the monitor
 * @ev: receives the event
 * @ev_size: the size of *@ev as the caller knows it
 *
 * Call it as vrdma_monitor_next(m, ev), which passes @ev_size.  Blocks
 * until an event arrives.  Notifications the library does not know are
 * skipped.
 *
 * Return: 0, -ENOBUFS when the socket overflowed and events were lost
 * (the monitor stays usable; re-read the device list to resync), -EPROTO
 * for a malformed notification (skipped; the monitor stays usable),
 * -EINVAL for an @ev_size smaller than the first struct vrdma_event of
 * libvrdma.so.1, or another negative errno.
 */
int vrdma_monitor_next_sz(struct vrdma_monitor *m, struct vrdma_event *ev,
			  size_t ev_size);
#define vrdma_monitor_next(m, ev) \
	vrdma_monitor_next_sz((m), (ev), sizeof(struct vrdma_event))

/**
 * vrdma_monitor_close() - unsubscribe and free a monitor
 * @m: the monitor; NULL is allowed
 */
void vrdma_monitor_close(struct vrdma_monitor *m);

/**
 * vrdma_res_set() - give a resource a value in a value set
 * @v: the set
 * @res: the resource
 * @val: its value; VRDMA_LIMIT_MAX for "max"
 */
void vrdma_res_set(struct vrdma_res_values *v, enum vrdma_res res,
		   uint64_t val);

/**
 * vrdma_res_has() - whether a value set holds a resource
 * @v: the set
 * @res: the resource
 *
 * Return: true when @v->val[@res] is meaningful.
 */
bool vrdma_res_has(const struct vrdma_res_values *v, enum vrdma_res res);

/**
 * vrdma_res_name() - stable short name of a resource type
 * @res: the resource
 *
 * Return: "ctx", "pd", "cq", "qp", "srq", "mr", "mw", "ah", "mr_bytes" or
 * "drv_obj",
 * or NULL for a value that is not a resource.
 */
const char *vrdma_res_name(enum vrdma_res res);

/**
 * vrdma_port_state_name() - name of an ib_port_state
 * @state: the state
 *
 * Return: "NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER", or
 * NULL for a value the library does not know.
 */
const char *vrdma_port_state_name(uint8_t state);

/**
 * vrdma_driver_name() - short name of an rdma_driver_id, as in rdma(8)
 * @driver_id: the id
 *
 * Return: e.g. "mlx5" or "rxe", or NULL for an id the library does not
 * know.
 */
const char *vrdma_driver_name(uint32_t driver_id);

/**
 * vrdma_del_reason_name() - name of an enum vrdma_del_reason
 * @reason: the reason
 *
 * Return: "user", "netns", "parent" or "unload", or NULL for a value the
 * library does not know.
 */
const char *vrdma_del_reason_name(int reason);

/**
 * vrdma_dev_add_acl() - create a vdevice with address ACLs
 * @h: the handle
 * @name: name of the new vdevice
 * @parent: name of the parent ib_device
 * @netns: the namespace the vdevice is born in
 * @limits: limits to set, or NULL
 * @sgids: source addresses it may use (single addresses), or NULL (or
 *	not present) for every GID of the parent
 * @peers: destination prefixes it may reach, or NULL (or not present)
 *	for every destination
 *
 * Like vrdma_dev_add(); the ACLs are in place before the vdevice is
 * visible to anybody.
 *
 * Return: 0 or a negative errno.
 */
int vrdma_dev_add_acl(struct vrdma_handle *h, const char *name,
		      const char *parent, const struct vrdma_netns_spec *netns,
		      const struct vrdma_res_values *limits,
		      const struct vrdma_acl *sgids,
		      const struct vrdma_acl *peers);

/* "Leave the GID mode to the kernel's default" (vrdma_dev_add_gids()) */
#define VRDMA_GID_MODE_DEFAULT	(-1)

/**
 * vrdma_dev_add_gids() - create a vdevice, choosing which GIDs it sees
 * @h: the handle
 * @name: name of the new vdevice
 * @parent: name of the parent ib_device
 * @netns: the namespace the vdevice is born in
 * @limits: limits to set, or NULL
 * @sgids: as for vrdma_dev_add_acl()
 * @peers: as for vrdma_dev_add_acl()
 * @gid_mode: VRDMA_GID_MODE_TENANT (the addresses of its own namespace
 *	and @sgids), VRDMA_GID_MODE_SHARED (every GID of the parent, needed
 *	with rxe parents before Linux 7.1, whose RoCE traffic uses the host's
 *	addresses) or VRDMA_GID_MODE_DEFAULT (not sent; the kernel's default
 *	is VRDMA_GID_MODE_TENANT)
 *
 * Like vrdma_dev_add_acl().  The mode is fixed for the vdevice's life.
 * Since VRDMA_1.1.
 *
 * Return: 0 or a negative errno.
 */
int vrdma_dev_add_gids(struct vrdma_handle *h, const char *name,
		       const char *parent, const struct vrdma_netns_spec *netns,
		       const struct vrdma_res_values *limits,
		       const struct vrdma_acl *sgids,
		       const struct vrdma_acl *peers, int gid_mode);

/**
 * vrdma_dev_add_flags() - create a vdevice with device flags
 * @h: the handle
 * @name: name of the new vdevice
 * @parent: name of the parent ib_device
 * @netns: the namespace the vdevice is born in
 * @limits: limits to set, or NULL
 * @sgids: as for vrdma_dev_add_acl()
 * @peers: as for vrdma_dev_add_acl()
 * @gid_mode: as for vrdma_dev_add_gids()
 * @flags: VRDMA_DEV_F_* (uapi/linux/vrdma.h), fixed for the vdevice's
 *	life; 0 sends none
 *
 * Like vrdma_dev_add_gids().  Since VRDMA_1.2.
 *
 * Return: 0 or a negative errno; -EOPNOTSUPP for flags the module does
 * not know.
 */
int vrdma_dev_add_flags(struct vrdma_handle *h, const char *name,
			const char *parent,
			const struct vrdma_netns_spec *netns,
			const struct vrdma_res_values *limits,
			const struct vrdma_acl *sgids,
			const struct vrdma_acl *peers, int gid_mode,
			uint32_t flags);

/**
 * vrdma_gid_mode_name() - name of an enum vrdma_gid_mode
 * @mode: the mode
 *
 * Return: "tenant" or "shared", or NULL for a value the library does not
 * know (-1: the kernel did not say).  Since VRDMA_1.1.
 */
const char *vrdma_gid_mode_name(int mode);

/**
 * vrdma_dev_set_acl() - change limits and address ACLs of a live vdevice
 * @h: the handle
 * @name: vdevice name
 * @limits: limits to change (only those present), or NULL
 * @sgids: new source address list when present, else unchanged
 * @peers: new peer prefix list when present, else unchanged
 *
 * A present ACL replaces the old one as a whole; with no entries it allows
 * everything again.  QPs and AHs already set up are not affected.
 *
 * Return: 0 or a negative errno (-EINVAL when there is nothing to change).
 */
int vrdma_dev_set_acl(struct vrdma_handle *h, const char *name,
		      const struct vrdma_res_values *limits,
		      const struct vrdma_acl *sgids,
		      const struct vrdma_acl *peers);

/**
 * vrdma_dev_set_cm_ports() - publish RDMA CM ports on a vdevice
 * @h: the handle
 * @name: vdevice name, with "cm on"
 * @ports: the ports (TCP port space), each once and not 0
 * @n: how many; 0 publishes none
 *
 * Replaces the published set as a whole.  Since VRDMA_1.3.
 *
 * Return: 0 or a negative errno: -EINVAL for a vdevice without "cm on" or
 * a bad list, -EADDRINUSE for a port the host listens on or a vdevice
 * sharing an address with this one publishes.
 */
int vrdma_dev_set_cm_ports(struct vrdma_handle *h, const char *name,
			   const uint16_t *ports, size_t n);

/**
 * vrdma_acl_entry_parse() - parse an address or prefix
 * @text: "a.b.c.d", "a.b.c.d/N", an IPv6 address, or "IPV6/N"
 * @entry: receives it, with the bits past the prefix cleared
 *
 * Without "/N" the entry is a single address (/32 or /128).
 *
 * Return: 0, or -EINVAL for text that is not an address or prefix.
 */
int vrdma_acl_entry_parse(const char *text, struct vrdma_acl_entry *entry);

/**
 * vrdma_acl_entry_format() - render an entry as text
 * @entry: the entry
 * @buf: receives "a.b.c.d[/N]" for IPv4-mapped entries, "IPV6[/N]"
 *	otherwise; the length is left out for a single address
 * @len: size of @buf; 64 bytes are always enough
 *
 * Return: @buf.
 */
const char *vrdma_acl_entry_format(const struct vrdma_acl_entry *entry,
				   char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* LIBVRDMA_H */
