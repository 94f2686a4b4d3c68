/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * vrdma: virtual RDMA devices, one per network namespace, on top of a real
 * ib_device (the "parent").
 *
 * This header is the reference for the generic netlink protocol between
 * user space (libvrdma, vrdmactl) and the vrdma kernel module.
 *
 * Family name: VRDMA_GENL_NAME ("vrdma"), version VRDMA_GENL_VERSION.
 * Multicast group: VRDMA_GENL_MCGRP_EVENTS ("events").
 *
 * Commands that change state (DEV_NEW, DEV_DEL, DEV_SET) need CAP_NET_ADMIN
 * in the initial user namespace and must come from a socket in the initial
 * network namespace (EPERM otherwise).  Read commands (VERSION_GET, DEV_GET,
 * PARENT_GET) are open to everybody; DEV_GET and PARENT_GET issued from a
 * network namespace other than the initial one only see vdevices living in
 * the caller's namespace.  Every error comes with an extended ACK message.
 *
 * VRDMA_CMD_VERSION_GET (doit)
 *   request:  no attributes
 *   reply:    VRDMA_ATTR_VERSION           NLA_NUL_STRING  module version
 *
 * VRDMA_CMD_DEV_NEW (doit)
 *   Creates a vdevice on a parent and registers it directly inside the
 *   target network namespace.  Exactly one of NETNS_FD and NETNS_PID.
 *   request:  VRDMA_ATTR_DEV_NAME          NLA_NUL_STRING  required, 1..63
 *                                          chars of [A-Za-z0-9_.-], must not
 *                                          contain '%'
 *             VRDMA_ATTR_PARENT_NAME       NLA_NUL_STRING  required
 *             VRDMA_ATTR_NETNS_FD          NLA_S32   fd of a netns file
 *             VRDMA_ATTR_NETNS_PID         NLA_U32   pid whose netns to use
 *             VRDMA_ATTR_LIMITS            NLA_NESTED optional, see LIMITS
 *             VRDMA_ATTR_SGIDS             NLA_NESTED optional, see ACL
 *             VRDMA_ATTR_PEERS             NLA_NESTED optional, see ACL
 *             VRDMA_ATTR_GID_MODE          NLA_U8    optional, enum
 *                                          vrdma_gid_mode, default
 *                                          VRDMA_GID_MODE_TENANT; fixed
 *                                          for the vdevice's life
 *             VRDMA_ATTR_DEV_FLAGS         NLA_U32   optional, VRDMA_DEV_F_*
 *                                          (unknown bits: EOPNOTSUPP),
 *                                          default 0; fixed for the
 *                                          vdevice's life
 *   reply:    none (NLMSG_ERROR ack); an event is multicast on success
 *
 * VRDMA_CMD_DEV_DEL (doit)
 *   request:  VRDMA_ATTR_DEV_NAME          required
 *
 * VRDMA_CMD_DEV_SET (doit)
 *   Changes the limits or address ACLs of a live vdevice.  Only the
 *   resources present in the LIMITS nest change; an ACL nest present
 *   replaces that ACL as a whole (an empty nest allows everything again).
 *   At least one of LIMITS, SGIDS, PEERS and CM_PORTS is required;
 *   GID_MODE and DEV_FLAGS are refused (EINVAL): they are chosen at
 *   creation.  A limit below the current use keeps existing objects; new
 *   ones fail with EDQUOT until the use is below the limit.  The request
 *   changes everything it names or nothing.
 *   request:  VRDMA_ATTR_DEV_NAME          required
 *             VRDMA_ATTR_LIMITS            optional, see LIMITS
 *             VRDMA_ATTR_SGIDS             optional, see ACL
 *             VRDMA_ATTR_PEERS             optional, see ACL
 *             VRDMA_ATTR_CM_PORTS          optional, see CM_PORTS
 *
 * VRDMA_CMD_DEV_GET (doit with DEV_NAME, or dump)
 *   reply, one VRDMA_CMD_DEV_GET message per vdevice:
 *             VRDMA_ATTR_DEV_NAME          NLA_NUL_STRING
 *             VRDMA_ATTR_DEV_INDEX         NLA_U32   ib_device index
 *             VRDMA_ATTR_PARENT_NAME       NLA_NUL_STRING
 *             VRDMA_ATTR_DRIVER_ID         NLA_U32   enum rdma_driver_id
 *             VRDMA_ATTR_NETNS_INO         NLA_U32   inode of the netns
 *             VRDMA_ATTR_PORT_STATE        NLA_U8    enum ib_port_state
 *                                                    of port 1
 *             VRDMA_ATTR_LIMITS            NLA_NESTED
 *             VRDMA_ATTR_USAGE             NLA_NESTED (same layout)
 *             VRDMA_ATTR_SGIDS             NLA_NESTED, only when restricted
 *             VRDMA_ATTR_PEERS             NLA_NESTED, only when restricted
 *             VRDMA_ATTR_GID_MODE          NLA_U8    enum vrdma_gid_mode
 *             VRDMA_ATTR_DEV_FLAGS         NLA_U32   VRDMA_DEV_F_*
 *             VRDMA_ATTR_CM_PORTS          NLA_NESTED, only when ports
 *                                          are published
 *   Dumps are consistent: when the set of vdevices changes during a dump,
 *   the dump is flagged NLM_F_DUMP_INTR and should be restarted.
 *
 * VRDMA_CMD_PARENT_GET (dump)
 *   Every registered ib_device that can be a parent (not a vdevice).
 *   reply, one VRDMA_CMD_PARENT_GET message per parent:
 *             VRDMA_ATTR_PARENT_NAME       NLA_NUL_STRING
 *             VRDMA_ATTR_DRIVER_ID         NLA_U32
 *             VRDMA_ATTR_VDEV_COUNT        NLA_U32  vdevices on it that the
 *                                                   caller may see
 *             VRDMA_ATTR_PARENT_VDEVS      NLA_NESTED of VRDMA_ATTR_DEV_NAME;
 *                                          left out when the names do not
 *                                          fit in one message (VDEV_COUNT
 *                                          is authoritative)
 *
 * Events (multicast group "events"):
 *   VRDMA_CMD_DEV_NEW and VRDMA_CMD_DEV_DEL messages carrying the same
 *   attributes as a DEV_GET reply, plus VRDMA_ATTR_REASON (NLA_U8, enum
 *   vrdma_del_reason) on DEV_DEL.  Every event is sent to listeners in the
 *   initial network namespace and to those in the vdevice's own namespace;
 *   a container hears only about its own vdevices.  Joining the group
 *   needs no privilege, like the read commands.  Limit changes (DEV_SET)
 *   are not announced.
 *
 * LIMITS / USAGE nest (VRDMA_ATTR_LIMITS, VRDMA_ATTR_USAGE):
 *             VRDMA_RES_CTX .. VRDMA_RES_AH NLA_U64  object counts
 *             VRDMA_RES_MR_BYTES           NLA_U64  pinned MR bytes
 *             VRDMA_RES_DRV_OBJ            NLA_U64  objects of the parent
 *                                                   driver's own methods
 *                                                   (mlx5's UARs)
 *   In a request, VRDMA_LIMIT_MAX means "the parent's capacity".  In a
 *   reply, LIMITS carries the effective limit (never above the parent's
 *   capacity) and USAGE the current use.
 *   An allocation past a limit fails with EDQUOT.  The effective limits
 *   are also the vdevice's max_* device attributes (MR_BYTES caps
 *   max_mr_size).
 *
 * ACL nests (VRDMA_ATTR_SGIDS, VRDMA_ATTR_PEERS): a list of at most
 * VRDMA_ACL_MAX_ENTRIES entries, in the order given:
 *             VRDMA_ACL_ENTRY              NLA_NESTED, one per address:
 *                 VRDMA_ACL_ADDR           NLA_BINARY, exactly 16 bytes:
 *                                          an IPv6 address, or an IPv4
 *                                          address as ::ffff:a.b.c.d (the
 *                                          form of a RoCE GID)
 *                 VRDMA_ACL_PREFIX_LEN     NLA_U8, 0..128, default 128;
 *                                          at least 96 for an IPv4-mapped
 *                                          address; bits past it are
 *                                          cleared
 *   SGIDS restricts the source GIDs (by address) the vdevice's QPs and
 *   AHs may use to the listed ones, those of netdevs in the vdevice's own
 *   namespace included: a prefix length other than 128 is refused.  PEERS
 *   restricts the destination GIDs to the listed prefixes.  Both are
 *   checked when a QP is modified with an address vector (RC/UC connect)
 *   and when an AH is created; a refused address vector fails with
 *   EACCES.  Without the attribute (the default) every destination is
 *   allowed, and the sources are those GID_MODE gives.  Changing an ACL
 *   does not affect QPs and AHs already set up.
 *
 * GID mode (VRDMA_ATTR_GID_MODE): which of the parent's RoCE GIDs appear
 * in the vdevice's GID table and may be used as a source.  With SGIDS,
 * in either mode, only the addresses it lists, whichever namespace their
 * netdev is in.  Without SGIDS:
 *   VRDMA_GID_MODE_TENANT  the GIDs of netdevs in the vdevice's own
 *                          network namespace (a macvlan, ipvlan or VLAN
 *                          of the parent's netdev moved there); the
 *                          default
 *   VRDMA_GID_MODE_SHARED  every GID of the parent (the host's addresses
 *                          and other tenants')
 * A vdevice that is not SHARED, or that has an ACL, cannot create UD QPs
 * or attach to multicast groups (EACCES): UD work requests carry GID
 * indices and destinations that no ACL can check.
 *
 * Device flags (VRDMA_ATTR_DEV_FLAGS), chosen at creation:
 *   VRDMA_DEV_F_CM  the vdevice offers the kernel verbs the RDMA core's
 *                   connection manager needs (a software GSI QP on port 1,
 *                   its PD, CQ and AHs), so that cma, ib_cm and the MAD
 *                   layer attach to it and librdmacm works in its
 *                   namespace; every other kernel consumer is refused.
 *                   Off by default: cma keeps an internal listener on
 *                   every attached device for every wildcard listen of
 *                   every namespace.
 *
 * CM_PORTS nest (VRDMA_ATTR_CM_PORTS): the RDMA CM ports of the TCP port
 * space (service ID RDMA_IB_IP_PS_TCP | port, as cma forms it) the
 * operator publishes on a vdevice with VRDMA_DEV_F_CM, at most
 * VRDMA_CM_PORTS_MAX, in the order given; a present nest replaces the
 * published set as a whole (an empty one publishes none):
 *             VRDMA_CM_PORT                NLA_U16, 1..65535, each once
 *   vrdma listens on each port on the parent, one listener per parent and
 *   port shared by the vdevices that publish it.  Delivering the requests
 *   that arrive there to the vdevice whose address they name is not done
 *   yet: each is rejected on the parent and counted.  Refused,
 *   with the set unchanged:
 *     EINVAL      the vdevice has no VRDMA_DEV_F_CM, a port is 0 or listed
 *                 twice, more than VRDMA_CM_PORTS_MAX ports
 *     EADDRINUSE  the host already listens on the port on the parent, or
 *                 another vdevice that shares a GID with this one
 *                 publishes it
 *   A port published on a parent is no longer available to the host's own
 *   listeners there.  Only VRDMA_CMD_DEV_SET publishes.
 */
#ifndef _UAPI_LINUX_VRDMA_H
#define _UAPI_LINUX_VRDMA_H

#define VRDMA_GENL_NAME		"vrdma"
#define VRDMA_GENL_VERSION	1
#define VRDMA_GENL_MCGRP_EVENTS	"events"

/* Longest vdevice name, without the terminating NUL (IB_DEVICE_NAME_MAX - 1) */
#define VRDMA_DEV_NAME_MAX	63

/* "No limit beyond the parent's capacity" */
#define VRDMA_LIMIT_MAX		(~0ULL)

enum vrdma_cmd {
	VRDMA_CMD_UNSPEC,
	VRDMA_CMD_VERSION_GET,
	VRDMA_CMD_DEV_NEW,
	VRDMA_CMD_DEV_DEL,
	VRDMA_CMD_DEV_SET,
	VRDMA_CMD_DEV_GET,
	VRDMA_CMD_PARENT_GET,

	__VRDMA_CMD_MAX
};

#define VRDMA_CMD_MAX (__VRDMA_CMD_MAX - 1)

enum vrdma_attr {
	VRDMA_ATTR_UNSPEC,
	VRDMA_ATTR_PAD,
	VRDMA_ATTR_VERSION,
	VRDMA_ATTR_DEV_NAME,
	VRDMA_ATTR_DEV_INDEX,
	VRDMA_ATTR_PARENT_NAME,
	VRDMA_ATTR_DRIVER_ID,
	VRDMA_ATTR_NETNS_FD,
	VRDMA_ATTR_NETNS_PID,
	VRDMA_ATTR_NETNS_INO,
	VRDMA_ATTR_PORT_STATE,
	VRDMA_ATTR_LIMITS,
	VRDMA_ATTR_USAGE,
	VRDMA_ATTR_VDEV_COUNT,
	VRDMA_ATTR_PARENT_VDEVS,
	VRDMA_ATTR_REASON,
	VRDMA_ATTR_SGIDS,
	VRDMA_ATTR_PEERS,
	VRDMA_ATTR_GID_MODE,
	VRDMA_ATTR_DEV_FLAGS,
	VRDMA_ATTR_CM_PORTS,

	__VRDMA_ATTR_MAX
};

#define VRDMA_ATTR_MAX (__VRDMA_ATTR_MAX - 1)

enum vrdma_res {
	VRDMA_RES_UNSPEC,
	VRDMA_RES_PAD,
	VRDMA_RES_CTX,
	VRDMA_RES_PD,
	VRDMA_RES_CQ,
	VRDMA_RES_QP,
	VRDMA_RES_SRQ,
	VRDMA_RES_MR,
	VRDMA_RES_MW,
	VRDMA_RES_AH,
	VRDMA_RES_MR_BYTES,
	VRDMA_RES_DRV_OBJ,

	__VRDMA_RES_MAX
};

#define VRDMA_RES_MAX (__VRDMA_RES_MAX - 1)

/*
 * The resources' names, as libvrdma gives them (vrdma_res_name(): the keys
 * of vrdmactl's JSON) and vrdma's debug messages print them: an
 * initializer of an array of __VRDMA_RES_MAX strings indexed by enum
 * vrdma_res
 */
#define VRDMA_RES_NAMES {				\
	[VRDMA_RES_CTX]		= "ctx",		\
	[VRDMA_RES_PD]		= "pd",			\
	[VRDMA_RES_CQ]		= "cq",			\
	[VRDMA_RES_QP]		= "qp",			\
	[VRDMA_RES_SRQ]		= "srq",		\
	[VRDMA_RES_MR]		= "mr",			\
	[VRDMA_RES_MW]		= "mw",			\
	[VRDMA_RES_AH]		= "ah",			\
	[VRDMA_RES_MR_BYTES]	= "mr_bytes",		\
	[VRDMA_RES_DRV_OBJ]	= "drv_obj",		\
}

/* Most entries in one address ACL (VRDMA_ATTR_SGIDS, VRDMA_ATTR_PEERS) */
#define VRDMA_ACL_MAX_ENTRIES	16

enum vrdma_acl_attr {
	VRDMA_ACL_UNSPEC,
	VRDMA_ACL_ENTRY,
	VRDMA_ACL_ADDR,
	VRDMA_ACL_PREFIX_LEN,

	__VRDMA_ACL_MAX
};

#define VRDMA_ACL_ATTR_MAX (__VRDMA_ACL_MAX - 1)

/* Which GIDs of its parent a vdevice sees (VRDMA_ATTR_GID_MODE) */
enum vrdma_gid_mode {
	VRDMA_GID_MODE_TENANT,	/* its own namespace's (or SGIDS) */
	VRDMA_GID_MODE_SHARED,	/* every GID of the parent (or SGIDS) */

	__VRDMA_GID_MODE_MAX
};

#define VRDMA_GID_MODE_MAX (__VRDMA_GID_MODE_MAX - 1)

/* Device flags (VRDMA_ATTR_DEV_FLAGS) */
enum vrdma_dev_flags {
	VRDMA_DEV_F_CM = 1U << 0,	/* carries the RDMA CM */

	__VRDMA_DEV_F_ALL = VRDMA_DEV_F_CM
};

/* Most RDMA CM ports published on one vdevice (VRDMA_ATTR_CM_PORTS) */
#define VRDMA_CM_PORTS_MAX	16

enum vrdma_cm_port_attr {
	VRDMA_CM_PORT_UNSPEC,
	VRDMA_CM_PORT,

	__VRDMA_CM_PORT_MAX
};

#define VRDMA_CM_PORT_ATTR_MAX (__VRDMA_CM_PORT_MAX - 1)

/* Why a vdevice went away (VRDMA_ATTR_REASON on a DEV_DEL event) */
enum vrdma_del_reason {
	VRDMA_DEL_USER,		/* VRDMA_CMD_DEV_DEL */
	VRDMA_DEL_NETNS,	/* its network namespace was destroyed */
	VRDMA_DEL_PARENT,	/* its parent device was removed */
	VRDMA_DEL_UNLOAD,	/* the vrdma module was unloaded */
	VRDMA_DEL_MOVED,	/* the RDMA core renamed it or moved it to
				 * another network namespace
				 */

	__VRDMA_DEL_MAX
};

#endif /* _UAPI_LINUX_VRDMA_H */
