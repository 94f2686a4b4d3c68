/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The CM messages vrdma reads from a vdevice's QP1 (IBTA Vol. 1, chapter
 * 12, "Communication Management"), by byte offset from the start of the
 * MAD.  The core's own layouts (drivers/infiniband/core/cm_msgs.h) are
 * private to it; these are vrdma's, for the fields the proxy uses only.
 *
 * Every accessor reads inside the IB_MGMT_MAD_SIZE bytes of a copied MAD
 * (struct vrdma_gsi_mad): the offsets are constants below 256, checked at
 * build time, so that no field can be read past the copy.  The content is
 * the tenant's and untrusted: callers check each value they use.
 */
#ifndef _VRDMA_CM_MSG_H
#define _VRDMA_CM_MSG_H

#include <linux/build_bug.h>
#include <linux/string.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_verbs.h>

/* The common MAD header (struct ib_mad_hdr) */
#define VRDMA_MAD_BASE_VERSION		0
#define VRDMA_MAD_MGMT_CLASS		1
#define VRDMA_MAD_CLASS_VERSION		2
#define VRDMA_MAD_METHOD		3
#define VRDMA_MAD_STATUS		4
#define VRDMA_MAD_TID			8
#define VRDMA_MAD_ATTR_ID		16
#define VRDMA_MAD_ATTR_MOD		20
#define VRDMA_MAD_HDR_LEN		24

/* The CM class */
#define VRDMA_CM_CLASS_VERSION		2
enum vrdma_cm_attr {
	VRDMA_CM_REQ = 0x0010,
	VRDMA_CM_MRA = 0x0011,
	VRDMA_CM_REJ = 0x0012,
	VRDMA_CM_REP = 0x0013,
	VRDMA_CM_RTU = 0x0014,
	VRDMA_CM_DREQ = 0x0015,
	VRDMA_CM_DREP = 0x0016,
	VRDMA_CM_SIDR_REQ = 0x0017,
	VRDMA_CM_SIDR_REP = 0x0018,
	VRDMA_CM_LAP = 0x0019,
	VRDMA_CM_APR = 0x001a,
};

/*
 * ConnectRequest (12.6.5), offsets from the start of the MAD.  QPN-sized
 * fields are the upper 24 bits of a big-endian 32-bit word.
 */
#define VRDMA_REQ_LOCAL_COMM_ID		(VRDMA_MAD_HDR_LEN + 0)
#define VRDMA_REQ_SERVICE_ID		(VRDMA_MAD_HDR_LEN + 8)
#define VRDMA_REQ_LOCAL_CA_GUID		(VRDMA_MAD_HDR_LEN + 16)
#define VRDMA_REQ_LOCAL_QKEY		(VRDMA_MAD_HDR_LEN + 28)
#define VRDMA_REQ_LOCAL_QPN		(VRDMA_MAD_HDR_LEN + 32)
#define VRDMA_REQ_STARTING_PSN		(VRDMA_MAD_HDR_LEN + 44)
/* byte 43: remote CM response timeout (5 bits), transport type (2), EEFC */
#define VRDMA_REQ_TIMEOUT_TYPE		(VRDMA_MAD_HDR_LEN + 43)
#define VRDMA_REQ_PKEY			(VRDMA_MAD_HDR_LEN + 48)
#define VRDMA_REQ_PRIMARY_LOCAL_GID	(VRDMA_MAD_HDR_LEN + 56)
#define VRDMA_REQ_PRIMARY_REMOTE_GID	(VRDMA_MAD_HDR_LEN + 72)
#define VRDMA_REQ_ALT_LOCAL_LID		(VRDMA_MAD_HDR_LEN + 96)
#define VRDMA_REQ_ALT_LOCAL_GID		(VRDMA_MAD_HDR_LEN + 100)
#define VRDMA_REQ_PRIVATE_DATA		(VRDMA_MAD_HDR_LEN + 140)
#define VRDMA_REQ_PRIVATE_DATA_LEN	92

/* The transport service types of byte 43 (bits 2..1) */
enum vrdma_cm_transport {
	VRDMA_CM_RC = 0,
	VRDMA_CM_UC = 1,
	VRDMA_CM_RD = 2,
};

/* The comm IDs every connection message but REQ and SIDR carries */
#define VRDMA_CM_LOCAL_COMM_ID		(VRDMA_MAD_HDR_LEN + 0)
#define VRDMA_CM_REMOTE_COMM_ID		(VRDMA_MAD_HDR_LEN + 4)

static_assert(VRDMA_REQ_PRIVATE_DATA + VRDMA_REQ_PRIVATE_DATA_LEN <=
	      IB_MGMT_MAD_SIZE);

static inline u8 vrdma_mad_u8(const u8 *mad, unsigned int off)
{
	return mad[off];
}

/* (memcpy: fields are not aligned for their width in the MAD) */
static inline u16 vrdma_mad_be16(const u8 *mad, unsigned int off)
{
	__be16 v;

	memcpy(&v, mad + off, sizeof(v));
	return be16_to_cpu(v);
}

static inline u32 vrdma_mad_be32(const u8 *mad, unsigned int off)
{
	__be32 v;

	memcpy(&v, mad + off, sizeof(v));
	return be32_to_cpu(v);
}

static inline u64 vrdma_mad_be64(const u8 *mad, unsigned int off)
{
	__be64 v;

	memcpy(&v, mad + off, sizeof(v));
	return be64_to_cpu(v);
}

/* A 24-bit QP number: the upper 24 bits of the word at @off */
static inline u32 vrdma_mad_qpn(const u8 *mad, unsigned int off)
{
	return vrdma_mad_be32(mad, off) >> 8;
}

static inline void vrdma_mad_gid(const u8 *mad, unsigned int off,
				 union ib_gid *gid)
{
	memcpy(gid->raw, mad + off, sizeof(gid->raw));
}

static inline enum vrdma_cm_transport vrdma_req_transport(const u8 *mad)
{
	return (vrdma_mad_u8(mad, VRDMA_REQ_TIMEOUT_TYPE) >> 1) & 0x3;
}

#endif /* _VRDMA_CM_MSG_H */
