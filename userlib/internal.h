/* SPDX-License-Identifier: MIT */
/*
 * libvrdma internals: the handle, the transport under it, and the parser
 * split from the socket so the tests and the fuzzer can drive it with
 * messages built in memory.
 *
 * Layers, bottom up:
 *   error.c      a handle's last error, which every layer records
 *   transport.c  the only code that touches a socket (a mock in tests)
 *   parse.c      validates and decodes one netlink message, no I/O
 *   reply.c      walks a received datagram: sequence, errors, extack, dumps
 *   handle.c     open/close, family lookup, request/ack and dump loops
 *   dev.c, parent.c, monitor.c, version.c   one object each
 *   hostinfo.c   what user space adds to a record: uverbs node, netns name
 */
#ifndef LIBVRDMA_INTERNAL_H
#define LIBVRDMA_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>

#include "libvrdma.h"

/* Largest datagram we accept; the kernel never sends more than 32 KiB */
#define VRDMA_RECV_SIZE		32768
/* Largest request we build; names are bounded well below this */
#define VRDMA_SEND_SIZE		4096
/* Longest name we will put in a request; the kernel enforces the real limit */
#define VRDMA_REQ_NAME_MAX	1024
/* How often an interrupted dump is restarted before giving up */
#define VRDMA_DUMP_ATTEMPTS	8
/* Room for an error explanation */
#define VRDMA_ERRMSG_SIZE	512

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

/* A request being built, aligned as a netlink message must be */
union vrdma_msgbuf {
	struct nlmsghdr nlh;
	char buf[VRDMA_SEND_SIZE];
};

struct vrdma_handle;

/*
 * libmnl's mnl_nlmsg_ok() compares nlmsg_len as an int, so a length of
 * 2 GiB or more passes as fitting any buffer (found by the fuzzer).  These
 * two do the same job with unsigned arithmetic.
 */
static inline bool vrdma_nlmsg_ok(const struct nlmsghdr *nlh, size_t len)
{
	return len >= sizeof(*nlh) && nlh->nlmsg_len >= sizeof(*nlh) &&
	       nlh->nlmsg_len <= len;
}

/* Step over a message that passed vrdma_nlmsg_ok() */
static inline const struct nlmsghdr *
vrdma_nlmsg_next(const struct nlmsghdr *nlh, size_t *len)
{
	size_t step = MNL_ALIGN(nlh->nlmsg_len);

	/* The last message of a datagram may lack its padding */
	if (step > *len)
		step = *len;
	*len -= step;
	return (const struct nlmsghdr *)((const char *)nlh + step);
}

/**
 * struct vrdma_transport - how a handle reaches the kernel
 * @send: send one request; return 0 or a negative errno
 * @recv: receive one datagram into @buf; return its length or a negative
 *	errno
 * @portid: our netlink port id, 0 if unknown (replies are then not
 *	checked against it)
 * @close: release the transport
 */
struct vrdma_transport {
	int (*send)(struct vrdma_handle *h, const void *buf, size_t len);
	ssize_t (*recv)(struct vrdma_handle *h, void *buf, size_t len);
	uint32_t (*portid)(struct vrdma_handle *h);
	void (*close)(struct vrdma_handle *h);
};

/**
 * struct vrdma_handle - state behind the opaque handle
 * @tp: transport
 * @tp_priv: transport state (the mnl socket, or the test mock)
 * @netns_fd: namespace the handle acts in, -1 for the caller's own
 * @family: generic netlink family id, 0 until looked up
 * @family_version: protocol version the module announced
 * @events_group: multicast group id of "events", 0 until looked up
 * @seq: sequence number of the last request
 * @err: last error, 0 after success
 * @errmsg: details of @err, empty if none
 * @errline: vrdma_strerror() output buffer
 * @rxbuf: receive buffer, VRDMA_RECV_SIZE bytes
 */
struct vrdma_handle {
	const struct vrdma_transport *tp;
	void *tp_priv;
	int netns_fd;
	uint16_t family;
	uint32_t family_version;
	uint32_t events_group;
	uint32_t seq;
	int err;
	char errmsg[VRDMA_ERRMSG_SIZE];
	char errline[VRDMA_ERRMSG_SIZE + 64];
	char *rxbuf;
};

/* transport.c */
extern const struct vrdma_transport vrdma_mnl_transport;
int vrdma_mnl_socket_open(struct vrdma_handle *h, int netns_fd,
			  struct mnl_socket **nlp);

/* collect.c */

/**
 * struct vrdma_collect - the records of a dump, in a growing array
 * @items: @count records of @elem bytes, room for @size
 * @elem: sizeof one record at the library's layout
 * @count: records gathered
 * @size: records the array has room for
 * @parse: fills one record from one message; 0 or a negative errno
 * @clear: releases what one record owns, or NULL if it owns nothing
 */
struct vrdma_collect {
	void *items;
	size_t elem;
	size_t count;
	size_t size;
	int (*parse)(const struct nlmsghdr *nlh, void *item);
	void (*clear)(void *item);
};

#define VRDMA_COLLECT_INIT(type, parse_fn, clear_fn) \
	{ .elem = sizeof(type), .parse = (parse_fn), .clear = (clear_fn) }

int vrdma_collect_dump(struct vrdma_handle *h, uint8_t cmd,
		       struct vrdma_collect *c);
int vrdma_collect_list(struct vrdma_handle *h, uint8_t cmd, const char *type,
		       size_t size, size_t min, struct vrdma_collect *c);
int vrdma_collect_nomem(struct vrdma_handle *h, struct vrdma_collect *c);
void vrdma_collect_free(struct vrdma_collect *c);
void *vrdma_collect_copy(const struct vrdma_collect *c, size_t stride);
int vrdma_check_struct_size(struct vrdma_handle *h, const char *type,
			    size_t size, size_t min);

/* error.c */
int vrdma_set_error(struct vrdma_handle *h, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int vrdma_ok(struct vrdma_handle *h);

/* handle.c */
struct vrdma_handle *vrdma_handle_alloc(const struct vrdma_transport *tp,
					void *tp_priv);
int vrdma_resolve_family(struct vrdma_handle *h);
struct nlmsghdr *vrdma_msg_start(struct vrdma_handle *h, void *buf,
				 uint8_t cmd, uint16_t flags);
int vrdma_request(struct vrdma_handle *h, struct nlmsghdr *nlh,
		  int (*cb)(const struct nlmsghdr *nlh, void *data),
		  void *data);
int vrdma_dump(struct vrdma_handle *h, uint8_t cmd,
	       int (*cb)(const struct nlmsghdr *nlh, void *data),
	       void (*reset)(void *data), void *data);

/* monitor.c */
struct vrdma_monitor *vrdma_monitor_wrap(struct vrdma_handle *h);

/* reply.c */

/**
 * struct vrdma_reply - progress through the answer to one request
 * @seq: sequence number of the request
 * @portid: our port id, 0 to accept any
 * @family: nlmsg_type of data messages
 * @cb: called for each data message; returns 0 or a negative errno
 * @data: passed to @cb
 * @done: the answer is complete (ACK, error or end of dump)
 * @dump_intr: some message carried NLM_F_DUMP_INTR
 * @cb_err: first error returned by @cb
 * @err: error the kernel reported, 0 for success
 * @ext_msg: the kernel's extended ACK text, empty if none
 */
struct vrdma_reply {
	uint32_t seq;
	uint32_t portid;
	uint16_t family;
	int (*cb)(const struct nlmsghdr *nlh, void *data);
	void *data;
	bool done;
	bool dump_intr;
	int cb_err;
	int err;
	char ext_msg[VRDMA_ERRMSG_SIZE];
};

void vrdma_reply_init(struct vrdma_reply *r, uint32_t seq, uint32_t portid,
		      uint16_t family,
		      int (*cb)(const struct nlmsghdr *nlh, void *data),
		      void *data);
int vrdma_reply_feed(struct vrdma_reply *r, const void *buf, size_t len);
int vrdma_parse_error(const struct nlmsghdr *nlh, int *err,
		      char *msg, size_t msglen);

/* parse.c */
int vrdma_parse_family(const struct nlmsghdr *nlh, uint16_t *family,
		       uint32_t *version, uint32_t *events_group);
int vrdma_parse_version(const struct nlmsghdr *nlh, char *buf, size_t len);
int vrdma_parse_dev(const struct nlmsghdr *nlh, struct vrdma_dev *dev);
int vrdma_parse_parent(const struct nlmsghdr *nlh, struct vrdma_parent *p);
int vrdma_parse_event(const struct nlmsghdr *nlh, struct vrdma_event *ev);
void vrdma_parent_clear(struct vrdma_parent *p);
int vrdma_parse_acl(const struct nlattr *nest, struct vrdma_acl *acl);
int vrdma_put_acl(struct vrdma_handle *h, struct nlmsghdr *nlh, int type,
		  const struct vrdma_acl *acl);

/* abi: the structs of the first libvrdma.so.1, the least a caller passes */
#define VRDMA_DEV_SIZE_1_0	(offsetof(struct vrdma_dev, netns_name) + \
				 VRDMA_NETNS_NAME_SIZE)
#define VRDMA_PARENT_SIZE_1_0	(offsetof(struct vrdma_parent, vdevs) + \
				 sizeof(char (*)[VRDMA_NAME_SIZE]))
#define VRDMA_EVENT_SIZE_1_0	(offsetof(struct vrdma_event, dev) + \
				 VRDMA_DEV_SIZE_1_0)

_Static_assert(__VRDMA_RES_MAX <= VRDMA_RES_SLOTS,
	       "enum vrdma_res outgrew struct vrdma_res_values");
_Static_assert(VRDMA_ACL_MAX_ENTRIES <= VRDMA_ACL_SLOTS,
	       "VRDMA_ACL_MAX_ENTRIES outgrew struct vrdma_acl");
_Static_assert(offsetof(struct vrdma_event, dev) +
	       sizeof(struct vrdma_dev) == sizeof(struct vrdma_event),
	       "struct vrdma_event must end with its struct vrdma_dev");

void vrdma_copy_sized(void *dst, size_t dst_size, const void *src,
		      size_t src_size);

/* hostinfo.c */

/**
 * struct vrdma_hostinfo - snapshot of what user space knows about devices
 * @uverbs: one entry per uverbs node found in sysfs
 * @nr_uverbs: number of entries in @uverbs
 * @netns: one entry per named network namespace
 * @nr_netns: number of entries in @netns
 *
 * Taken once per list so that a dump of many devices scans each
 * directory once.
 */
struct vrdma_hostinfo {
	struct vrdma_uverbs_node {
		char ibdev[VRDMA_NAME_SIZE];
		char chardev[VRDMA_CHARDEV_SIZE];
		unsigned int major, minor;
	} *uverbs;
	size_t nr_uverbs;
	struct vrdma_netns_name {
		char name[VRDMA_NETNS_NAME_SIZE];
		uint64_t ino;
	} *netns;
	size_t nr_netns;
};

void vrdma_hostinfo_load(struct vrdma_hostinfo *hi, const char *uverbs_dir,
			 const char *netns_dir, bool require_nsfs);
void vrdma_hostinfo_fill(const struct vrdma_hostinfo *hi,
			 struct vrdma_dev *dev);
void vrdma_hostinfo_free(struct vrdma_hostinfo *hi);
void vrdma_dev_add_hostinfo(struct vrdma_dev *devs, size_t count);

#endif /* LIBVRDMA_INTERNAL_H */
