// SPDX-License-Identifier: GPL-2.0
/*
 * The CM proxy (issue 33): the CM conversation of a vdevice ends at its
 * software QP1 (cm_gsi.c) and is to be carried on the parent through the
 * parent's ib_cm (ib_create_cm_id(), ib_send_cm_req(), ...), as a
 * back-to-back agent.
 *
 * What exists: every MAD the vdevice's MAD layer sends reaches
 * vrdma_cm_proxy_send() in process context; its header is checked
 * strictly and a ConnectRequest is validated against what the vdevice
 * owns (its source GID is in the vdevice's GID table, its QP number is
 * the shadow of one of its QPs).  Nothing is carried yet: every MAD is
 * dropped after the checks, and the sender's ib_cm times out as on a
 * lossy wire.  CM-STATUS.md in the tree lists the next steps.
 */
#include <rdma/ib_cache.h>

#include "vrdma.h"
#include "cm_msg.h"

/* The verdict on one MAD from a vdevice, for the debug log */
enum vrdma_cm_verdict {
	VRDMA_CM_NOT_CM,	/* not a CM MAD: dropped */
	VRDMA_CM_BAD_HDR,	/* a CM MAD with a header no ib_cm sends */
	VRDMA_CM_BAD_REQ,	/* a REQ naming what the vdevice does not own */
	VRDMA_CM_UNCARRIED,	/* valid, but the proxy does not carry it yet */
};

static const char *const vrdma_cm_verdict_name[] = {
	[VRDMA_CM_NOT_CM] = "not a CM MAD",
	[VRDMA_CM_BAD_HDR] = "bad CM header",
	[VRDMA_CM_BAD_REQ] = "REQ refused",
	[VRDMA_CM_UNCARRIED] = "not carried yet",
};

/* The header of a CM MAD as ib_cm builds it (cm_format_mad_hdr()). */
static bool vrdma_cm_hdr_ok(const struct vrdma_gsi_mad *m, u16 *attr)
{
	const u8 *mad = m->data;

	if (m->len != IB_MGMT_MAD_SIZE)
		return false;
	if (vrdma_mad_u8(mad, VRDMA_MAD_BASE_VERSION) != IB_MGMT_BASE_VERSION ||
	    vrdma_mad_u8(mad, VRDMA_MAD_CLASS_VERSION) != VRDMA_CM_CLASS_VERSION ||
	    vrdma_mad_u8(mad, VRDMA_MAD_METHOD) != IB_MGMT_METHOD_SEND ||
	    vrdma_mad_be16(mad, VRDMA_MAD_STATUS))
		return false;
	*attr = vrdma_mad_be16(mad, VRDMA_MAD_ATTR_ID);
	return *attr >= VRDMA_CM_REQ && *attr <= VRDMA_CM_APR;
}

/* The vdevice's GID table holds @gid (its own or a granted address). */
static bool vrdma_cm_own_gid(struct vrdma_dev *vdev, const union ib_gid *gid)
{
	const struct ib_gid_attr *attr;

	attr = rdma_find_gid_by_port(&vdev->ibdev, gid, IB_GID_TYPE_ROCE_UDP_ENCAP,
				     1, NULL);
	if (IS_ERR(attr))
		return false;
	rdma_put_gid_attr(attr);
	return true;
}

/*
 * A REQ of this vdevice: an RC or UC connection, from a GID of the
 * vdevice, without an alternate path (RoCE has none).  Whether the QP
 * number names one of the vdevice's QPs is checked where the proxy will
 * look the QP up, when it carries the REQ.
 */
static bool vrdma_cm_req_ok(struct vrdma_dev *vdev,
			    const struct vrdma_gsi_mad *m)
{
	const u8 *mad = m->data;
	union ib_gid sgid, dgid;

	if (vrdma_req_transport(mad) != VRDMA_CM_RC &&
	    vrdma_req_transport(mad) != VRDMA_CM_UC)
		return false;
	if (!vrdma_mad_qpn(mad, VRDMA_REQ_LOCAL_QPN))
		return false;
	vrdma_mad_gid(mad, VRDMA_REQ_PRIMARY_LOCAL_GID, &sgid);
	vrdma_mad_gid(mad, VRDMA_REQ_PRIMARY_REMOTE_GID, &dgid);
	if (!vrdma_cm_own_gid(vdev, &sgid))
		return false;
	/* the AH the MAD was sent with goes where the REQ says */
	if (memcmp(&dgid, &m->dgid, sizeof(dgid)))
		return false;
	/* no alternate path: its local LID and GID are zero */
	if (vrdma_mad_be16(mad, VRDMA_REQ_ALT_LOCAL_LID) ||
	    memchr_inv(mad + VRDMA_REQ_ALT_LOCAL_GID, 0, sizeof(dgid.raw)))
		return false;
	return true;
}

/**
 * vrdma_cm_proxy_send() - a MAD sent on a vdevice's QP1
 * @vdev: the vdevice
 * @m: the MAD, copied; untrusted
 *
 * Context: process context (the QP's work item); may sleep.
 */
void vrdma_cm_proxy_send(struct vrdma_dev *vdev,
			 const struct vrdma_gsi_mad *m)
{
	enum vrdma_cm_verdict v = VRDMA_CM_UNCARRIED;
	u16 attr = 0;

	if (vrdma_mad_u8(m->data, VRDMA_MAD_MGMT_CLASS) != IB_MGMT_CLASS_CM)
		v = VRDMA_CM_NOT_CM;
	else if (!vrdma_cm_hdr_ok(m, &attr))
		v = VRDMA_CM_BAD_HDR;
	else if (attr == VRDMA_CM_REQ && !vrdma_cm_req_ok(vdev, m))
		v = VRDMA_CM_BAD_REQ;
	vrdma_dbg(vdev, "MAD class 0x%02x attr 0x%04x: %s\n",
		  vrdma_mad_u8(m->data, VRDMA_MAD_MGMT_CLASS), attr,
		  vrdma_cm_verdict_name[v]);
}
