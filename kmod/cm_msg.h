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
#include <rdma/ib_cm.h>
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
#define VRDMA_REQ_PRIMARY_LOCAL_LID	(VRDMA_MAD_HDR_LEN + 52)
#define VRDMA_REQ_PRIMARY_REMOTE_LID	(VRDMA_MAD_HDR_LEN + 54)
#define VRDMA_REQ_STARTING_PSN		(VRDMA_MAD_HDR_LEN + 44)
/* byte 43: remote CM response timeout (5 bits), transport type (2), EEFC */
#define VRDMA_REQ_TIMEOUT_TYPE		(VRDMA_MAD_HDR_LEN + 43)
#define VRDMA_REQ_VENDOR_ID		(VRDMA_MAD_HDR_LEN + 4)	/* low 24 bits */
#define VRDMA_REQ_RESP_RESOURCES	(VRDMA_MAD_HDR_LEN + 35)
#define VRDMA_REQ_INIT_DEPTH		(VRDMA_MAD_HDR_LEN + 39)
/* byte 47: local CM response timeout (5 bits), retry count (3) */
#define VRDMA_REQ_LTIMEOUT_RETRY	(VRDMA_MAD_HDR_LEN + 47)
#define VRDMA_REQ_PKEY			(VRDMA_MAD_HDR_LEN + 48)
/* byte 50: path MTU (4 bits), RDC exists (1), RNR retry count (3) */
#define VRDMA_REQ_MTU_RNR		(VRDMA_MAD_HDR_LEN + 50)
/* byte 51: max CM retries (4 bits), SRQ (1), extended transport (3) */
#define VRDMA_REQ_MAXRETRY_SRQ		(VRDMA_MAD_HDR_LEN + 51)
#define VRDMA_REQ_FLOW_LABEL		(VRDMA_MAD_HDR_LEN + 88)	/* top 20 */
#define VRDMA_REQ_RATE			(VRDMA_MAD_HDR_LEN + 91)	/* low 6 */
#define VRDMA_REQ_TCLASS		(VRDMA_MAD_HDR_LEN + 92)
#define VRDMA_REQ_HOP_LIMIT		(VRDMA_MAD_HDR_LEN + 93)
/* byte 94: SL (4 bits), subnet local (1) */
#define VRDMA_REQ_SL			(VRDMA_MAD_HDR_LEN + 94)
#define VRDMA_REQ_ACK_TIMEOUT		(VRDMA_MAD_HDR_LEN + 95)	/* top 5 */
#define VRDMA_REQ_PRIMARY_LOCAL_GID	(VRDMA_MAD_HDR_LEN + 56)
#define VRDMA_REQ_PRIMARY_REMOTE_GID	(VRDMA_MAD_HDR_LEN + 72)
#define VRDMA_REQ_ALT_LOCAL_LID		(VRDMA_MAD_HDR_LEN + 96)
#define VRDMA_REQ_ALT_LOCAL_GID		(VRDMA_MAD_HDR_LEN + 100)
#define VRDMA_REQ_PRIVATE_DATA		(VRDMA_MAD_HDR_LEN + 140)
#define VRDMA_REQ_PRIVATE_DATA_LEN	92

/*
 * The RDMA CM's header at the start of a REQ's private data (cma.c's
 * struct cma_hdr): version 0, IP version in the upper nibble, port, then
 * source and destination addresses of 16 bytes each, an IPv4 address in
 * the last 4 of them.
 */
#define VRDMA_CMA_VERSION		0
#define VRDMA_CMA_HDR_IP_VERSION	1
#define VRDMA_CMA_HDR_SRC		4
#define VRDMA_CMA_HDR_DST		20

/* The transport service types of byte 43 (bits 2..1) */
enum vrdma_cm_transport {
	VRDMA_CM_RC = 0,
	VRDMA_CM_UC = 1,
	VRDMA_CM_RD = 2,
};

/* The comm IDs every connection message but REQ and SIDR carries */
#define VRDMA_CM_LOCAL_COMM_ID		(VRDMA_MAD_HDR_LEN + 0)
#define VRDMA_CM_REMOTE_COMM_ID		(VRDMA_MAD_HDR_LEN + 4)

/* ConnectReply (12.6.8) */
#define VRDMA_REP_LOCAL_QKEY		(VRDMA_MAD_HDR_LEN + 8)
#define VRDMA_REP_LOCAL_QPN		(VRDMA_MAD_HDR_LEN + 12)
/* the ECE vendor ID, in the bytes after three 24-bit fields */
#define VRDMA_REP_VENDOR_ID_H		(VRDMA_MAD_HDR_LEN + 15)
#define VRDMA_REP_VENDOR_ID_M		(VRDMA_MAD_HDR_LEN + 19)
#define VRDMA_REP_VENDOR_ID_L		(VRDMA_MAD_HDR_LEN + 23)
#define VRDMA_REP_STARTING_PSN		(VRDMA_MAD_HDR_LEN + 20)
#define VRDMA_REP_RESP_RESOURCES	(VRDMA_MAD_HDR_LEN + 24)
#define VRDMA_REP_INIT_DEPTH		(VRDMA_MAD_HDR_LEN + 25)
/* byte 26: target ACK delay (5 bits), failover accepted (2), EEFC (1) */
#define VRDMA_REP_ACKDELAY_FO_FC	(VRDMA_MAD_HDR_LEN + 26)
/* byte 27: RNR retry count (3 bits), SRQ (1) */
#define VRDMA_REP_RNR_SRQ		(VRDMA_MAD_HDR_LEN + 27)
#define VRDMA_REP_LOCAL_CA_GUID		(VRDMA_MAD_HDR_LEN + 28)
#define VRDMA_REP_PRIVATE_DATA		(VRDMA_MAD_HDR_LEN + 36)

/* ConnectReject (12.6.7) */
#define VRDMA_REJ_MSG_REJECTED		(VRDMA_MAD_HDR_LEN + 8)	/* top 2 */
#define VRDMA_REJ_INFO_LEN		(VRDMA_MAD_HDR_LEN + 9)	/* top 7 */
#define VRDMA_REJ_REASON		(VRDMA_MAD_HDR_LEN + 10)
#define VRDMA_REJ_ARI			(VRDMA_MAD_HDR_LEN + 12)
#define VRDMA_REJ_PRIVATE_DATA		(VRDMA_MAD_HDR_LEN + 84)
/* which message a REJ answers */
#define VRDMA_REJ_FOR_REQ		0
#define VRDMA_REJ_FOR_REP		1
#define VRDMA_REJ_FOR_OTHER		2

/* ServiceIDResolutionRequest (12.6.12) */
#define VRDMA_SIDR_REQ_REQUEST_ID	(VRDMA_MAD_HDR_LEN + 0)
#define VRDMA_SIDR_REQ_PKEY		(VRDMA_MAD_HDR_LEN + 4)
#define VRDMA_SIDR_REQ_SERVICE_ID	(VRDMA_MAD_HDR_LEN + 8)
#define VRDMA_SIDR_REQ_PRIVATE_DATA	(VRDMA_MAD_HDR_LEN + 16)

/*
 * ServiceIDResolutionResponse (12.6.13); the QPN is 24 bits, followed by
 * the low byte of the ECE vendor ID (its high bytes at offset 6)
 */
#define VRDMA_SIDR_REP_REQUEST_ID	(VRDMA_MAD_HDR_LEN + 0)
#define VRDMA_SIDR_REP_STATUS		(VRDMA_MAD_HDR_LEN + 4)
#define VRDMA_SIDR_REP_INFO_LEN		(VRDMA_MAD_HDR_LEN + 5)
#define VRDMA_SIDR_REP_VENDOR_ID_H	(VRDMA_MAD_HDR_LEN + 6)
#define VRDMA_SIDR_REP_QPN		(VRDMA_MAD_HDR_LEN + 8)
#define VRDMA_SIDR_REP_VENDOR_ID_L	(VRDMA_MAD_HDR_LEN + 11)
#define VRDMA_SIDR_REP_SERVICE_ID	(VRDMA_MAD_HDR_LEN + 12)
#define VRDMA_SIDR_REP_QKEY		(VRDMA_MAD_HDR_LEN + 20)
#define VRDMA_SIDR_REP_INFO		(VRDMA_MAD_HDR_LEN + 24)
#define VRDMA_SIDR_REP_PRIVATE_DATA	(VRDMA_MAD_HDR_LEN + 96)

/* ReadyToUse, DisconnectRequest, DisconnectReply (12.6.9-12.6.11) */
#define VRDMA_RTU_PRIVATE_DATA		(VRDMA_MAD_HDR_LEN + 8)
#define VRDMA_DREQ_REMOTE_QPN		(VRDMA_MAD_HDR_LEN + 8)
#define VRDMA_DREQ_PRIVATE_DATA		(VRDMA_MAD_HDR_LEN + 12)
#define VRDMA_DREP_PRIVATE_DATA		(VRDMA_MAD_HDR_LEN + 8)

static_assert(VRDMA_REQ_PRIVATE_DATA + VRDMA_REQ_PRIVATE_DATA_LEN <=
	      IB_MGMT_MAD_SIZE);
static_assert(VRDMA_REP_PRIVATE_DATA + 196 <= IB_MGMT_MAD_SIZE);
static_assert(VRDMA_REJ_ARI + 72 == VRDMA_REJ_PRIVATE_DATA);
static_assert(VRDMA_REJ_PRIVATE_DATA + 148 <= IB_MGMT_MAD_SIZE);
static_assert(VRDMA_RTU_PRIVATE_DATA + 224 <= IB_MGMT_MAD_SIZE);
static_assert(VRDMA_DREQ_PRIVATE_DATA + 220 <= IB_MGMT_MAD_SIZE);
static_assert(VRDMA_SIDR_REQ_PRIVATE_DATA + IB_CM_SIDR_REQ_PRIVATE_DATA_SIZE <=
	      IB_MGMT_MAD_SIZE);
static_assert(VRDMA_SIDR_REP_INFO + IB_CM_SIDR_REP_INFO_LENGTH ==
	      VRDMA_SIDR_REP_PRIVATE_DATA);
static_assert(VRDMA_SIDR_REP_PRIVATE_DATA + IB_CM_SIDR_REP_PRIVATE_DATA_SIZE <=
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

static inline void vrdma_mad_put_be16(u8 *mad, unsigned int off, u16 v)
{
	__be16 b = cpu_to_be16(v);

	memcpy(mad + off, &b, sizeof(b));
}

static inline void vrdma_mad_put_be32(u8 *mad, unsigned int off, u32 v)
{
	__be32 b = cpu_to_be32(v);

	memcpy(mad + off, &b, sizeof(b));
}

static inline void vrdma_mad_put_be64(u8 *mad, unsigned int off, u64 v)
{
	__be64 b = cpu_to_be64(v);

	memcpy(mad + off, &b, sizeof(b));
}

/* A 24-bit QP number or PSN into the upper 24 bits of the word at @off */
static inline void vrdma_mad_put_qpn(u8 *mad, unsigned int off, u32 qpn)
{
	vrdma_mad_put_be32(mad, off,
			   (qpn & 0xffffff) << 8 | (vrdma_mad_be32(mad, off) & 0xff));
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
