/* SPDX-License-Identifier: MIT */
/*
 * Building netlink datagrams in memory for the tests: what the kernel
 * would send, and ways to break it.
 */
#ifndef VRDMA_TEST_BUILD_H
#define VRDMA_TEST_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libmnl/libmnl.h>

#define TEST_FAMILY	0x1c
#define TEST_EVENTS_GRP	9
#define TEST_PORTID	4242

/* One datagram: messages appended one after another */
struct dgram {
	union {
		struct nlmsghdr first;	/* for alignment */
		char buf[16384];
	};
	size_t len;
};

void dg_init(struct dgram *dg);
/* Start a message at the end of the datagram; close it with dg_end() */
struct nlmsghdr *dg_genl(struct dgram *dg, uint16_t type, uint16_t flags,
			 uint32_t seq, uint8_t cmd);
void dg_end(struct dgram *dg, struct nlmsghdr *nlh);

/* A complete, valid vdevice record (index 7, parent rxe0, rxe, ACTIVE) */
void put_dev_attrs(struct nlmsghdr *nlh, const char *name);
struct nlmsghdr *dg_dev(struct dgram *dg, uint32_t seq, uint16_t flags,
			const char *name);
/* NLMSG_DONE with a status and optional extack message */
void dg_done(struct dgram *dg, uint32_t seq, int err, const char *extack);
/* NLMSG_ERROR / ACK; @orig is echoed unless @capped */
void dg_error(struct dgram *dg, uint32_t seq, int err, const char *extack,
	      bool capped, const struct nlmsghdr *orig);
/* A CTRL_CMD_GETFAMILY reply for "vrdma" */
void dg_family(struct dgram *dg, uint32_t seq, bool with_events);

#endif /* VRDMA_TEST_BUILD_H */
