// SPDX-License-Identifier: GPL-2.0
/*
 * The CM proxy: the CM conversation of a vdevice ends at its
 * software QP1 (cm_gsi.c) and is carried on the parent through the
 * parent's ib_cm, as a back-to-back agent.  One struct vrdma_cm_conn per
 * connection the vdevice opens:
 *
 *   vdevice's ib_cm            vrdma                    parent's ib_cm
 *   REQ (QP1 send)   ----->  checks, ib_create_cm_id(), ib_send_cm_req()
 *   REP (QP1 recv)   <-----  IB_CM_REP_RECEIVED, rewritten
 *   RTU              ----->  ib_send_cm_rtu()
 *   DREQ / DREP      <---->  ib_send_cm_dreq() / _drep(), or the events
 *   REJ              <---->  ib_send_cm_rej(), or IB_CM_REJ_RECEIVED
 *
 * ib_cm keeps one set of tables for every device (cm.c: remote_id_table,
 * remote_qp_table, keyed by the peer's comm ID, QPN and CA GUID): both
 * halves of a connection land there.  Towards the vdevice the proxy speaks
 * for the peer with a comm ID and a CA GUID of its own (@xid, @xguid), so
 * that the vdevice's half never looks like the parent's stale twin.  The
 * peer's QP number is passed unchanged: the data path is the parent's.
 *
 * Every MAD from the vdevice is untrusted: its header is checked strictly,
 * a REQ must name the vdevice's own source GID, a live RC or UC QP of the
 * vdevice and the destination of the AH it was sent with; every other
 * message must name a connection of this vdevice by both comm IDs.
 * Anything else is dropped (the sender's ib_cm times out, as on a lossy
 * wire).
 *
 * Incoming connections take the same way back.  A REQ on one of vrdma's
 * listeners on the parent (cm_publish.c) that names a vdevice publishing
 * its port is handed to vrdma_cm_proxy_accept(), which synthesises the
 * REQ into the vdevice's QP1 under the proxy's own comm ID and CA GUID:
 *
 *   REQ (QP1 recv)   <-----  IB_CM_REQ_RECEIVED on a listener, rewritten
 *   REP (QP1 send)   ----->  checked, ib_send_cm_rep()
 *   RTU (QP1 recv)   <-----  IB_CM_RTU_RECEIVED
 *
 * The vdevice's comm ID is learnt from its answer (REP or REJ), which must
 * name the proxy's; its REP must name a live RC or UC QP of its own.
 *
 * A REQ must also come from the vdevice's ib_cm, not from umad: its local
 * comm ID comes back in the REP and REJ the proxy writes into the QP1, and
 * ib_cm looks those up by that ID alone, in one table for every device,
 * so a REQ written through umad could name, and end, a connection of
 * another vdevice or of the host.  What tells them apart is the upper half
 * of the TID: ib_cm puts its port's MAD agent's number there
 * (cm_form_tid()), umad overwrites it with its own agent's in every
 * request (ib_umad_write()), and the MAD layer numbers its live agents
 * uniquely.  The proxy learns ib_cm's number for the vdevice exactly, by
 * making ib_cm send a SIDR request of its own on the vdevice (a probe, with
 * a random service ID nobody else knows, caught in QP1's post_send and
 * never carried), before it carries the vdevice's first REQ; it cannot
 * change while the vdevice lives (ib_cm registers the agent when the
 * device is added and cannot be unloaded under vrdma, which links to it).
 * A REQ under another number is dropped and counted (forged).
 *
 * SIDR (rdma_cm over UD: RDMA_PS_UDP) takes the same ways, one request
 * and its reply, each a struct vrdma_cm_conn (@sidr) while pending:
 *
 *   SIDR_REQ (QP1 send)  ----->  checked as a REQ, ib_send_cm_sidr_req()
 *   SIDR_REP (QP1 recv)  <-----  IB_CM_SIDR_REP_RECEIVED, for its request ID
 *   SIDR_REQ (QP1 recv)  <-----  IB_CM_SIDR_REQ_RECEIVED on a published
 *                                port, under the proxy's request ID
 *   SIDR_REP (QP1 send)  ----->  a live UD QP of the vdevice, a Q_Key that
 *                                is not privileged: ib_send_cm_sidr_rep()
 *
 * A SIDR_REQ names no GID: its source is that of the AH it was sent with,
 * its destination the AH's.  ib_cm finds the cm_id a SIDR_REP answers by
 * its request ID alone, in the table of every device, so the vdevice's
 * SIDR_REQ must be its ib_cm's, by the TID, as a REQ.  The proxy's own
 * probe never gets that far.  Tested on rxe with Linux 7.3 only.
 */
#include <linux/completion.h>
#include <linux/debugfs.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/random.h>
#include <linux/refcount.h>
#include <linux/seq_file.h>
#include <linux/wait_bit.h>
#include <linux/xarray.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_sa.h>
#include <rdma/restrack.h>

#include "vrdma.h"
#include "cm_msg.h"

/**
 * struct vrdma_cm_conn - one connection of a vdevice, carried on the parent
 * @node: entry in vdev->cm.conns (vdev->cm.conn_lock)
 * @vdev: the vdevice
 * @pid: the parent's cm_id; destroyed by returning non-zero from its
 *	handler, or by vrdma_cm_proxy_stop()
 * @handle: @pid's context: the connection's index in vrdma_cm_handles
 * @ref: one for the connection while it is linked or being ended, one per
 *	handler running on it (vrdma_cm_get())
 * @vid: the vdevice's comm ID for the connection (its ib_cm's local ID)
 * @xid: the comm ID the proxy shows the vdevice for the peer
 * @xguid: the CA GUID it shows the vdevice for the peer
 * @vqpn: the vdevice's QP number (the shadow's)
 * @sgid: the vdevice's GID
 * @dgid: the peer's GID
 * @incoming: the peer asked for it (a REQ on a published port)
 * @answered: @vid and @vqpn are known; false only for an incoming
 *	connection the vdevice has not answered yet
 * @sidr: not a connection but one service ID resolution (SIDR_REQ,
 *	SIDR_REP) in flight: @vid is the vdevice's request ID when it asked,
 *	@xid the proxy's when the peer did (@incoming)
 * @since: when the proxy offered an incoming SIDR request (jiffies)
 */
struct vrdma_cm_conn {
	struct list_head node;
	struct vrdma_dev *vdev;
	struct ib_cm_id *pid;
	u32 handle;
	refcount_t ref;
	u32 vid;
	u32 xid;
	u64 xguid;
	u32 vqpn;
	union ib_gid sgid;
	union ib_gid dgid;
	bool incoming;
	bool answered;
	bool sidr;
	unsigned long since;
};

/* The verdict on one MAD from a vdevice, for the debug log */
enum vrdma_cm_verdict {
	VRDMA_CM_CARRIED,	/* sent on the parent */
	VRDMA_CM_NOT_CM,	/* not a CM MAD: dropped */
	VRDMA_CM_BAD_HDR,	/* a CM MAD with a header no ib_cm sends */
	VRDMA_CM_BAD_REQ,	/* a REQ naming what the vdevice does not own */
	VRDMA_CM_NO_CONN,	/* names no connection of this vdevice */
	VRDMA_CM_DUP,		/* a retry of a message already carried */
	VRDMA_CM_UNCARRIED,	/* valid, not carried (MRA, LAP, SIDR, ...) */
	VRDMA_CM_FAILED,	/* the parent's ib_cm refused it */
	VRDMA_CM_QUOTA,		/* too many connections */
	VRDMA_CM_LONG_LIFE,	/* a REQ's path lives too long */
	VRDMA_CM_FORGED,	/* a REQ not of the vdevice's ib_cm */
	VRDMA_CM_UNPROVEN,	/* a REQ while ib_cm's agent is not known */
	VRDMA_CM_BAD_REP,	/* a REP naming what the vdevice does not own */
	VRDMA_CM_BAD_SIDR_REP,	/* a SIDR_REP naming what it does not own */
};

static const char *const vrdma_cm_verdict_name[] = {
	[VRDMA_CM_CARRIED] = "carried",
	[VRDMA_CM_NOT_CM] = "not a CM MAD",
	[VRDMA_CM_BAD_HDR] = "bad CM header",
	[VRDMA_CM_BAD_REQ] = "REQ refused",
	[VRDMA_CM_NO_CONN] = "no such connection",
	[VRDMA_CM_DUP] = "duplicate",
	[VRDMA_CM_UNCARRIED] = "not carried",
	[VRDMA_CM_FAILED] = "refused by the parent's CM",
	[VRDMA_CM_QUOTA] = "connection quota",
	[VRDMA_CM_LONG_LIFE] = "packet life time too long",
	[VRDMA_CM_FORGED] = "forged: not the vdevice's CM",
	[VRDMA_CM_UNPROVEN] = "refused: the vdevice's CM is not known",
	[VRDMA_CM_BAD_REP] = "REP refused",
	[VRDMA_CM_BAD_SIDR_REP] = "SIDR REP refused",
};

/* REQs dropped as forged or unproven, for debugfs */
static atomic_t vrdma_cm_forged = ATOMIC_INIT(0);

/* The most CM retries a REQ can ask for (a 4-bit field) */
#define VRDMA_CM_MAX_RETRIES	15

/*
 * The most retries of a vdevice's REQ the proxy sends on the parent
 * (debugfs cm_max_retries; the REQ's own number when lower).  A test sets
 * it to reach the end of a request no peer answers (IB_CM_REQ_ERROR) in
 * seconds, not after cma's 15 retries of some 4 s each.
 */
static u8 vrdma_cm_max_retries = VRDMA_CM_MAX_RETRIES;

/*
 * The SIDR retries of the proxy's own requests on the parent, as cma asks
 * of ib_cm for its own (cma_resolve_ib_udp(): CMA_CM_RESPONSE_TIMEOUT,
 * CMA_MAX_CM_RETRIES): the vdevice's retries of the same request are
 * dropped as duplicates meanwhile.
 */
#define VRDMA_CM_SIDR_TIMEOUT_MS	4096
#define VRDMA_CM_SIDR_RETRIES		15

/*
 * Incoming SIDR requests a vdevice may hold unanswered, of its
 * VRDMA_CM_CONN_MAX: a peer cannot fill them all.  ib_cm keeps such a
 * request until it is answered or destroyed, and the peer gives up after
 * its last retry (cma's 16 tries of 4096 ms), so one unanswered for
 * longer is answered "rejected" and its slot freed when the next one
 * comes or the vdevice answers any.
 */
#define VRDMA_CM_SIDR_IN_MAX		16
#define VRDMA_CM_SIDR_IN_TTL		(70 * HZ)

/*
 * The packet life times of a vdevice's REQ.  ib_cm keeps every connection
 * that ended in timewait, outside the quota, for about twice the life time
 * before it frees it, on the vdevice and on the parent, and a tenant
 * chooses the value: its path record (rdma_set_option(RDMA_OPTION_IB_PATH))
 * may say 31, hours.  cma asks for 16 on RoCE, or for the ACK timeout a
 * caller set less one (RDMA_OPTION_ID_ACK_TIMEOUT, for its QP's
 * retransmissions).  The parent's ib_cm is given 18 at most (4.096 us x
 * 2^18, about 1 s); a REQ asking for more than 23 (34 s, an ACK timeout of
 * 24) is refused.
 */
#define VRDMA_CM_PACKET_LIFE_MAX	18
#define VRDMA_CM_REQ_LIFE_MAX		23

/* The Q_Keys with the high bit set are privileged (IBTA 10.2.5) */
#define VRDMA_CM_QKEY_PRIVILEGED	0x80000000U

/* How long the proxy waits for its probe of ib_cm's agent to be sent */
#define VRDMA_CM_PROBE_WAIT	(2 * HZ)

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

/*
 * The vdevice's GID table holds @sgid (its own or a granted address), and
 * its ACLs let it reach @dgid from there, as for a QP's address vector.
 */
static bool vrdma_cm_path_ok(struct vrdma_dev *vdev, const union ib_gid *sgid,
			     const union ib_gid *dgid)
{
	struct rdma_ah_attr av = {};
	const struct ib_gid_attr *attr;
	int ret;

	attr = rdma_find_gid_by_port(&vdev->ibdev, sgid,
				     IB_GID_TYPE_ROCE_UDP_ENCAP, 1, NULL);
	if (IS_ERR(attr))
		return false;
	av.type = RDMA_AH_ATTR_TYPE_ROCE;
	av.ah_flags = IB_AH_GRH;
	av.grh.dgid = *dgid;
	av.grh.sgid_attr = attr;
	ret = vrdma_acl_check_av(vdev, &av);
	rdma_put_gid_attr(attr);
	return !ret;
}

/*
 * The address at @off (VRDMA_CMA_HDR_SRC or _DST) of the RDMA CM's header
 * at @hdr, as a GID: IPv4-mapped for IPv4.  False if it is no header of
 * cma's.
 */
static bool vrdma_cm_cma_addr(const u8 *hdr, unsigned int off,
			      union ib_gid *gid)
{
	u8 ipv = hdr[VRDMA_CMA_HDR_IP_VERSION] >> 4;

	if (hdr[0] != VRDMA_CMA_VERSION)
		return false;
	if (ipv == 4) {
		__be32 a;

		memcpy(&a, hdr + off + 12, sizeof(a));
		ipv6_addr_set_v4mapped(a, (struct in6_addr *)gid->raw);
		return true;
	}
	if (ipv == 6) {
		memcpy(gid->raw, hdr + off, sizeof(gid->raw));
		return true;
	}
	return false;
}

/*
 * The RDMA CM's header @hdr in a request's private data names the
 * request's own source address: the peer's cma reports it to the
 * application as the caller.
 */
static bool vrdma_cm_cma_hdr_ok(const u8 *hdr, const union ib_gid *sgid)
{
	union ib_gid src;

	return vrdma_cm_cma_addr(hdr, VRDMA_CMA_HDR_SRC, &src) &&
	       !memcmp(&src, sgid, sizeof(src));
}

/*
 * @qpn is a live QP of the vdevice (the core's QP table): a UD QP for a
 * SIDR reply (@ud), else an RC or UC QP.
 */
static bool vrdma_cm_own_qp(struct vrdma_dev *vdev, u32 qpn, bool ud)
{
	struct rdma_restrack_entry *res;
	struct ib_qp *qp;
	bool ok;

	res = rdma_restrack_get_byid(&vdev->ibdev, RDMA_RESTRACK_QP, qpn);
	if (IS_ERR(res))
		return false;
	qp = container_of(res, struct ib_qp, res);
	if (ud)
		ok = qp->qp_type == IB_QPT_UD;
	else
		ok = qp->qp_type == IB_QPT_RC || qp->qp_type == IB_QPT_UC;
	rdma_restrack_put(res);
	return ok;
}

/*
 * A REQ of this vdevice: an RC or UC connection of one of its QPs, from a
 * GID of the vdevice, to where its ACLs allow and the AH it was sent with
 * goes, without an alternate path (RoCE has none), with an RDMA CM header
 * naming the same source address.
 */
static bool vrdma_cm_req_ok(struct vrdma_dev *vdev,
			    const struct vrdma_gsi_mad *m)
{
	const u8 *mad = m->data;
	union ib_gid sgid, dgid;

	if (vrdma_req_transport(mad) != VRDMA_CM_RC &&
	    vrdma_req_transport(mad) != VRDMA_CM_UC)
		return false;
	vrdma_mad_gid(mad, VRDMA_REQ_PRIMARY_LOCAL_GID, &sgid);
	vrdma_mad_gid(mad, VRDMA_REQ_PRIMARY_REMOTE_GID, &dgid);
	if (!vrdma_cm_path_ok(vdev, &sgid, &dgid))
		return false;
	if (memcmp(&dgid, &m->dgid, sizeof(dgid)))
		return false;
	if (!vrdma_cm_cma_hdr_ok(mad + VRDMA_REQ_PRIVATE_DATA, &sgid))
		return false;
	if (vrdma_mad_be16(mad, VRDMA_REQ_ALT_LOCAL_LID) ||
	    memchr_inv(mad + VRDMA_REQ_ALT_LOCAL_GID, 0, sizeof(dgid.raw)))
		return false;
	return vrdma_cm_own_qp(vdev, vrdma_mad_qpn(mad, VRDMA_REQ_LOCAL_QPN),
			       false);
}

/*
 * The connections by handle, for the parent's ib_cm handlers.  ib_cm
 * reports a failed send (IB_CM_REQ_ERROR, IB_CM_DREQ_ERROR) from its MAD
 * send completion without a reference on the cm_id, so ib_destroy_cm_id()
 * does not wait for that handler: it may run after its connection was
 * ended and freed, and after its vdevice was.  A cm_id's context is
 * therefore a handle, looked up under the xarray's lock, and a handler
 * holds the connection (@ref) while it runs; whoever ends a connection
 * removes its handle first (vrdma_cm_unlink()) and waits for those
 * handlers before freeing it (vrdma_cm_free()).  The xarray's own lock
 * protects the mapping and the references taken under it.
 */
static DEFINE_XARRAY_ALLOC1(vrdma_cm_handles);
static u32 vrdma_cm_handle_next;	/* the next handle (the xarray's lock) */

/* The connection of @pid, held; NULL once it is being ended. */
static struct vrdma_cm_conn *vrdma_cm_get(struct ib_cm_id *pid)
{
	struct vrdma_cm_conn *c;

	xa_lock(&vrdma_cm_handles);
	c = xa_load(&vrdma_cm_handles, (unsigned long)pid->context);
	if (c)
		refcount_inc(&c->ref);
	xa_unlock(&vrdma_cm_handles);
	return c;
}

/*
 * Drops a handler's reference.  Never the last one (the connection's own
 * stays until vrdma_cm_free()), so @c may be freed as soon as it is
 * dropped: wake_up_var() uses the address only.
 */
static void vrdma_cm_put(struct vrdma_cm_conn *c)
{
	refcount_dec(&c->ref);
	wake_up_var(&c->ref);
}

/*
 * Frees an unlinked connection once no handler but the caller's (@held:
 * 1 from a handler, else 0) holds it.
 */
static void vrdma_cm_free(struct vrdma_cm_conn *c, unsigned int held)
{
	wait_var_event(&c->ref, refcount_read(&c->ref) == 1 + held);
	kfree(c);
}

static struct vrdma_cm_conn *vrdma_cm_find(struct vrdma_dev *vdev, u32 vid)
{
	struct vrdma_cm_conn *c;

	lockdep_assert_held(&vdev->cm.conn_lock);
	list_for_each_entry(c, &vdev->cm.conns, node)
		if (!c->sidr && c->answered && c->vid == vid)
			return c;
	return NULL;
}

/* The incoming connection the proxy offered as @xid, not yet answered */
static struct vrdma_cm_conn *vrdma_cm_find_offer(struct vrdma_dev *vdev,
						 u32 xid)
{
	struct vrdma_cm_conn *c;

	lockdep_assert_held(&vdev->cm.conn_lock);
	list_for_each_entry(c, &vdev->cm.conns, node)
		if (!c->sidr && !c->answered && c->xid == xid)
			return c;
	return NULL;
}

/*
 * The SIDR request in flight under request ID @id: the vdevice's own
 * (@incoming false), or one the proxy offered it
 */
static struct vrdma_cm_conn *vrdma_cm_find_sidr(struct vrdma_dev *vdev,
						u32 id, bool incoming)
{
	struct vrdma_cm_conn *c;

	lockdep_assert_held(&vdev->cm.conn_lock);
	list_for_each_entry(c, &vdev->cm.conns, node)
		if (c->sidr && c->incoming == incoming &&
		    (incoming ? c->xid : c->vid) == id)
			return c;
	return NULL;
}

static int vrdma_cm_link(struct vrdma_cm_conn *c)
{
	struct vrdma_dev *vdev = c->vdev;
	int ret;

	lockdep_assert_held(&vdev->cm.conn_lock);
	refcount_set(&c->ref, 1);
	ret = xa_alloc_cyclic(&vrdma_cm_handles, &c->handle, c, xa_limit_32b,
			      &vrdma_cm_handle_next, GFP_KERNEL);
	if (ret < 0)
		return ret;
	list_add_tail(&c->node, &vdev->cm.conns);
	vdev->cm.nconns++;
	vrdma_obj_inc(VRDMA_OBJ_CMCONN);
	return 0;
}

static void vrdma_cm_unlink(struct vrdma_cm_conn *c)
{
	struct vrdma_dev *vdev = c->vdev;

	lockdep_assert_held(&vdev->cm.conn_lock);
	/* no handler finds it from now on */
	xa_erase(&vrdma_cm_handles, c->handle);
	list_del_init(&c->node);
	vdev->cm.nconns--;
	vrdma_obj_dec(VRDMA_OBJ_CMCONN);
}

/*
 * A RoCE v2 path from @sgid to @dgid, for the parent's ib_cm: the
 * selectors ib_cm wants and the destination MAC of the vdevice's AH @m
 * (the address it resolved, checked against @dgid by the caller).
 */
static void vrdma_cm_roce_path(const struct vrdma_gsi_mad *m,
			       const union ib_gid *sgid,
			       const union ib_gid *dgid,
			       struct sa_path_rec *path)
{
	memset(path, 0, sizeof(*path));
	path->rec_type = SA_PATH_REC_TYPE_ROCE_V2;
	path->sgid = *sgid;
	path->dgid = *dgid;
	path->reversible = 1;
	path->pkey = cpu_to_be16(0xffff);
	path->mtu_selector = IB_SA_EQ;
	path->rate_selector = IB_SA_EQ;
	path->packet_life_time_selector = IB_SA_EQ;
	sa_path_set_dmac(path, (u8 *)m->dmac);
	path->roce.route_resolved = true;
}

/* The RoCE v2 path of a REQ, for the parent's ib_cm */
static void vrdma_cm_req_path(const struct vrdma_gsi_mad *m,
			      struct sa_path_rec *path)
{
	const u8 *mad = m->data;
	u8 ack = vrdma_mad_u8(mad, VRDMA_REQ_ACK_TIMEOUT) >> 3;
	union ib_gid sgid, dgid;

	vrdma_mad_gid(mad, VRDMA_REQ_PRIMARY_LOCAL_GID, &sgid);
	vrdma_mad_gid(mad, VRDMA_REQ_PRIMARY_REMOTE_GID, &dgid);
	vrdma_cm_roce_path(m, &sgid, &dgid, path);
	path->flow_label = cpu_to_be32(vrdma_mad_be32(mad, VRDMA_REQ_FLOW_LABEL) >> 12);
	path->hop_limit = vrdma_mad_u8(mad, VRDMA_REQ_HOP_LIMIT);
	path->traffic_class = vrdma_mad_u8(mad, VRDMA_REQ_TCLASS);
	path->pkey = cpu_to_be16(vrdma_mad_be16(mad, VRDMA_REQ_PKEY));
	path->sl = vrdma_mad_u8(mad, VRDMA_REQ_SL) >> 4;
	path->mtu = vrdma_mad_u8(mad, VRDMA_REQ_MTU_RNR) >> 4;
	path->rate = vrdma_mad_u8(mad, VRDMA_REQ_RATE) & 0x3f;
	/* ib_cm sends the packet life time + 1 as the local ACK timeout */
	path->packet_life_time = min_t(u8, ack ? ack - 1 : 0,
				       VRDMA_CM_PACKET_LIFE_MAX);
}

/* The probe's cm_id is destroyed by its maker; nothing to do. */
static int vrdma_cm_probe_handler(struct ib_cm_id *id,
				  const struct ib_cm_event *ev)
{
	return 0;
}

/*
 * Learns the number of the vdevice's ib_cm's MAD agent: a SIDR request
 * from a cm_id of the vdevice, along @from, the path of a request that
 * passed the checks (its source GID is the vdevice's), with a random
 * service ID.  ib_cm posts it on the vdevice's QP1 at once (or from
 * the MAD layer's overflow queue when a send completes, which this QP does
 * at once too); vrdma_cm_probe_sent() catches it there.
 * Context: the QP1's work item (one at a time per vdevice); sleeps.
 */
static int vrdma_cm_learn_tid(struct vrdma_dev *vdev,
			      const struct sa_path_rec *from)
{
	struct ib_cm_sidr_req_param param = {};
	DECLARE_COMPLETION_ONSTACK(done);
	struct sa_path_rec path = *from;
	const struct ib_gid_attr *attr;
	struct ib_cm_id *id;
	int ret;

	path.pkey = cpu_to_be16(0xffff);
	attr = rdma_find_gid_by_port(&vdev->ibdev, &path.sgid,
				     IB_GID_TYPE_ROCE_UDP_ENCAP, 1, NULL);
	if (IS_ERR(attr))
		return PTR_ERR(attr);
	id = ib_create_cm_id(&vdev->ibdev, vrdma_cm_probe_handler, NULL);
	if (IS_ERR(id)) {
		ret = PTR_ERR(id);
		goto err_put_attr;
	}
	spin_lock_irq(&vdev->cm.lock);
	vdev->cm.probe_id = be32_to_cpu(id->local_id);
	vdev->cm.probe_sid = get_random_u64();
	vdev->cm.probe_done = &done;
	param.service_id = cpu_to_be64(vdev->cm.probe_sid);
	spin_unlock_irq(&vdev->cm.lock);
	param.path = &path;
	param.sgid_attr = attr;
	param.timeout_ms = 1000;
	ret = ib_send_cm_sidr_req(id, &param);
	if (!ret && !wait_for_completion_timeout(&done, VRDMA_CM_PROBE_WAIT))
		ret = -ETIMEDOUT;
	spin_lock_irq(&vdev->cm.lock);
	vdev->cm.probe_done = NULL;
	if (!ret && !vdev->cm.tid_known)
		ret = -ENXIO;
	spin_unlock_irq(&vdev->cm.lock);
	/* cancels the probe, which waits for a SIDR reply that never comes */
	ib_destroy_cm_id(id);
err_put_attr:
	rdma_put_gid_attr(attr);
	return ret;
}

/*
 * vrdma_cm_probe_sent() - catch the proxy's probe of ib_cm's MAD agent
 * @vdev: the vdevice
 * @m: a MAD sent on its QP1
 *
 * Records the upper half of the probe's TID as ib_cm's agent's number.
 *
 * Context: any (QP1's post_send, under ib_cm's and the MAD layer's
 * spinlocks); does not sleep.
 * Return: true if @m is the probe, which the caller drops.
 */
static bool vrdma_cm_probe_sent(struct vrdma_dev *vdev,
				const struct vrdma_gsi_mad *m)
{
	const u8 *mad = m->data;
	unsigned long flags;
	bool probe = false;

	if (m->len != IB_MGMT_MAD_SIZE ||
	    vrdma_mad_u8(mad, VRDMA_MAD_MGMT_CLASS) != IB_MGMT_CLASS_CM ||
	    vrdma_mad_be16(mad, VRDMA_MAD_ATTR_ID) != VRDMA_CM_SIDR_REQ)
		return false;
	spin_lock_irqsave(&vdev->cm.lock, flags);
	if (vdev->cm.probe_done &&
	    vrdma_mad_be32(mad, VRDMA_SIDR_REQ_REQUEST_ID) == vdev->cm.probe_id &&
	    vrdma_mad_be64(mad, VRDMA_SIDR_REQ_SERVICE_ID) == vdev->cm.probe_sid) {
		vdev->cm.hi_tid = vrdma_mad_be64(mad, VRDMA_MAD_TID) >> 32;
		/*
		 * The MAD layer numbers agents from 1; ib_cm sends 0 when its
		 * port's agent is already gone, which proves nothing.
		 */
		vdev->cm.tid_known = vdev->cm.hi_tid != 0;
		complete(vdev->cm.probe_done);
		vdev->cm.probe_done = NULL;
		probe = true;
	}
	spin_unlock_irqrestore(&vdev->cm.lock, flags);
	return probe;
}

/*
 * A request @m (REQ or SIDR_REQ, along @path) sent by the vdevice's ib_cm,
 * learning its agent's number first
 */
static enum vrdma_cm_verdict vrdma_cm_req_sender(struct vrdma_dev *vdev,
						 const struct vrdma_gsi_mad *m,
						 const struct sa_path_rec *path)
{
	u32 hi = vrdma_mad_be64(m->data, VRDMA_MAD_TID) >> 32;
	bool known;
	u32 tid;
	int ret;

	spin_lock_irq(&vdev->cm.lock);
	known = vdev->cm.tid_known;
	spin_unlock_irq(&vdev->cm.lock);
	if (!known) {
		ret = vrdma_cm_learn_tid(vdev, path);
		if (ret) {
			vrdma_dbg(vdev, "ib_cm's MAD agent not learnt: %d\n", ret);
			return VRDMA_CM_UNPROVEN;
		}
	}
	spin_lock_irq(&vdev->cm.lock);
	tid = vdev->cm.hi_tid;
	spin_unlock_irq(&vdev->cm.lock);
	return hi == tid ? VRDMA_CM_CARRIED : VRDMA_CM_FORGED;
}

/* The identity the proxy shows the vdevice for the peer */
static void vrdma_cm_new_peer_id(struct vrdma_cm_conn *c)
{
	get_random_bytes(&c->xid, sizeof(c->xid));
	c->xid |= 1;
	/* a locally administered EUI-64 */
	get_random_bytes(&c->xguid, sizeof(c->xguid));
	c->xguid = (c->xguid & ~(1ULL << 56)) | (1ULL << 57);
}

static int vrdma_cm_handler(struct ib_cm_id *pid,
			    const struct ib_cm_event *ev);
static void vrdma_cm_refuse(struct vrdma_dev *vdev,
			    const struct vrdma_gsi_mad *m, bool sidr,
			    u16 reason);

/*
 * Does @m, a REQ of the vdevice, ask for a packet life time beyond
 * VRDMA_CM_REQ_LIFE_MAX?  It names the time by its local ACK timeout,
 * which ib_cm (cm_ack_timeout()) makes the life time + 1 when the
 * vdevice's ACK delay is smaller, and at most the delay + 2 otherwise:
 * no life time up to the limit is refused, whatever the delay.
 */
static bool vrdma_cm_life_too_long(struct vrdma_dev *vdev,
				   const struct vrdma_gsi_mad *m)
{
	u8 ack = vrdma_mad_u8(m->data, VRDMA_REQ_ACK_TIMEOUT) >> 3;
	u8 delay = vdev->ibdev.attrs.local_ca_ack_delay;

	return ack > max_t(u8, delay + 2, VRDMA_CM_REQ_LIFE_MAX + 1);
}

/*
 * Starts @c, a request of the vdevice to carry (@dup: a retry of one
 * carried already): a slot of the vdevice's quota and the parent's cm_id
 * it goes out on (@c->pid).  On failure @c is not linked.
 */
static enum vrdma_cm_verdict vrdma_cm_start(struct vrdma_cm_conn *c, bool dup)
{
	struct vrdma_dev *vdev = c->vdev;
	struct ib_cm_id *pid;

	lockdep_assert_held(&vdev->cm.conn_lock);
	if (dup)
		return VRDMA_CM_DUP;
	if (vdev->cm.nconns >= VRDMA_CM_CONN_MAX)
		return VRDMA_CM_QUOTA;
	if (vrdma_cm_link(c))
		return VRDMA_CM_FAILED;
	pid = ib_create_cm_id(vdev->parent_ibdev, vrdma_cm_handler,
			      (void *)(unsigned long)c->handle);
	if (IS_ERR(pid)) {
		vrdma_cm_unlink(c);
		return VRDMA_CM_FAILED;
	}
	c->pid = pid;
	return VRDMA_CM_CARRIED;
}

/*
 * The end of vrdma_cm_start(): @ret is what sending @c's request on the
 * parent (@what) returned.  Called with the vdevice's conn_lock held,
 * which it releases.
 */
static enum vrdma_cm_verdict vrdma_cm_sent(struct vrdma_cm_conn *c, int ret,
					   const char *what)
{
	struct vrdma_dev *vdev = c->vdev;

	if (!ret) {
		mutex_unlock(&vdev->cm.conn_lock);
		return VRDMA_CM_CARRIED;
	}
	vrdma_cm_unlink(c);
	mutex_unlock(&vdev->cm.conn_lock);
	/* no handler runs for an ID that sent nothing */
	ib_destroy_cm_id(c->pid);
	vrdma_cm_free(c, 0);
	vrdma_dbg(vdev, "%s: %d\n", what, ret);
	return VRDMA_CM_FAILED;
}

/*
 * The parent's GID entry a request of the vdevice leaves from: the one of
 * @sgid, the request's source GID, on the netdev of the vdevice's entry
 * that the QP1 sent @m from.  The GID alone is not enough: a parent lists
 * one address once for each netdev that holds it (another namespace's
 * VLAN or macvlan on the same link, a tenant with an overlapping range),
 * and the first of them may be another tenant's link.
 * Return: the entry, held (rdma_put_gid_attr()), or an ERR_PTR.
 */
static const struct ib_gid_attr *
vrdma_cm_parent_sgid(struct vrdma_dev *vdev, const struct vrdma_gsi_mad *m,
		     const union ib_gid *sgid)
{
	const struct ib_gid_attr *vattr, *attr;

	vattr = rdma_get_gid_attr(&vdev->ibdev, 1, m->sgid_index);
	if (IS_ERR(vattr))
		return vattr;
	/* the entry changed since the send, or the path names another GID */
	if (vattr->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP ||
	    memcmp(vattr->gid.raw, sgid->raw, sizeof(sgid->raw)))
		attr = ERR_PTR(-EINVAL);
	else
		attr = vrdma_gid_to_parent(vdev, vattr);
	rdma_put_gid_attr(vattr);
	return attr;
}

/*
 * Begins carrying a request of the vdevice that passed the caller's
 * checks: @m, a REQ or a SIDR_REQ (@sidr) whose ID is @vid, along @path.
 * Proves it the vdevice's ib_cm's, makes its connection and starts it
 * (vrdma_cm_start()).  On VRDMA_CM_CARRIED the connection is in *@cp, the
 * vdevice's conn_lock is held (vrdma_cm_sent() releases it) and *@attr is
 * the parent's source GID, which the caller puts.  Any other verdict
 * leaves nothing behind; a request past the quota, or a REQ whose path
 * lives too long, is refused in the QP1.
 */
static enum vrdma_cm_verdict
vrdma_cm_req_begin(struct vrdma_dev *vdev, const struct vrdma_gsi_mad *m,
		   const struct sa_path_rec *path, bool sidr, u32 vid,
		   struct vrdma_cm_conn **cp, const struct ib_gid_attr **attr)
{
	const struct ib_gid_attr *sgid_attr;
	enum vrdma_cm_verdict v;
	struct vrdma_cm_conn *c;
	bool dup;

	v = vrdma_cm_req_sender(vdev, m, path);
	if (v != VRDMA_CM_CARRIED) {
		atomic_inc(&vrdma_cm_forged);
		return v;
	}
	/* after the proof: the REJ names the request's ID to the vdevice */
	if (!sidr && vrdma_cm_life_too_long(vdev, m)) {
		vrdma_cm_refuse(vdev, m, false, IB_CM_REJ_UNSUPPORTED);
		return VRDMA_CM_LONG_LIFE;
	}
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return VRDMA_CM_FAILED;
	INIT_LIST_HEAD(&c->node);
	c->vdev = vdev;
	c->vid = vid;
	c->sidr = sidr;
	c->answered = true;
	c->sgid = path->sgid;
	c->dgid = path->dgid;

	sgid_attr = vrdma_cm_parent_sgid(vdev, m, &path->sgid);
	if (IS_ERR(sgid_attr)) {
		v = VRDMA_CM_BAD_REQ;
		goto err_free;
	}

	mutex_lock(&vdev->cm.conn_lock);
	dup = sidr ? !!vrdma_cm_find_sidr(vdev, vid, false) :
		     !!vrdma_cm_find(vdev, vid);
	v = vrdma_cm_start(c, dup);
	if (v != VRDMA_CM_CARRIED)
		goto err_unlock;
	*cp = c;
	*attr = sgid_attr;
	return VRDMA_CM_CARRIED;

err_unlock:
	mutex_unlock(&vdev->cm.conn_lock);
	rdma_put_gid_attr(sgid_attr);
err_free:
	kfree(c);
	if (v == VRDMA_CM_QUOTA)
		vrdma_cm_refuse(vdev, m, sidr, IB_CM_REJ_NO_RESOURCES);
	return v;
}

/* Carries a REQ of the vdevice on the parent. */
static enum vrdma_cm_verdict vrdma_cm_req(struct vrdma_dev *vdev,
					  const struct vrdma_gsi_mad *m)
{
	const u8 *mad = m->data;
	const struct ib_gid_attr *sgid_attr;
	struct ib_cm_req_param req = {};
	enum vrdma_cm_verdict v;
	struct sa_path_rec path;
	struct vrdma_cm_conn *c;
	int ret;

	if (!vrdma_cm_req_ok(vdev, m))
		return VRDMA_CM_BAD_REQ;
	vrdma_cm_req_path(m, &path);
	v = vrdma_cm_req_begin(vdev, m, &path, false,
			       vrdma_mad_be32(mad, VRDMA_REQ_LOCAL_COMM_ID),
			       &c, &sgid_attr);
	if (v != VRDMA_CM_CARRIED)
		return v;
	/* every lookup that could see them takes the conn_lock, held */
	c->vqpn = vrdma_mad_qpn(mad, VRDMA_REQ_LOCAL_QPN);
	vrdma_cm_new_peer_id(c);

	req.primary_path = &path;
	req.ppath_sgid_attr = sgid_attr;
	req.service_id = cpu_to_be64(vrdma_mad_be64(mad, VRDMA_REQ_SERVICE_ID));
	req.qp_num = c->vqpn;
	req.qp_type = vrdma_req_transport(mad) == VRDMA_CM_RC ? IB_QPT_RC :
								 IB_QPT_UC;
	req.starting_psn = vrdma_mad_qpn(mad, VRDMA_REQ_STARTING_PSN);
	req.private_data = mad + VRDMA_REQ_PRIVATE_DATA;
	req.private_data_len = VRDMA_REQ_PRIVATE_DATA_LEN;
	req.responder_resources = vrdma_mad_u8(mad, VRDMA_REQ_RESP_RESOURCES);
	req.initiator_depth = vrdma_mad_u8(mad, VRDMA_REQ_INIT_DEPTH);
	req.remote_cm_response_timeout =
		vrdma_mad_u8(mad, VRDMA_REQ_TIMEOUT_TYPE) >> 3;
	req.flow_control = vrdma_mad_u8(mad, VRDMA_REQ_TIMEOUT_TYPE) & 1;
	req.local_cm_response_timeout =
		vrdma_mad_u8(mad, VRDMA_REQ_LTIMEOUT_RETRY) >> 3;
	req.retry_count = vrdma_mad_u8(mad, VRDMA_REQ_LTIMEOUT_RETRY) & 7;
	req.rnr_retry_count = vrdma_mad_u8(mad, VRDMA_REQ_MTU_RNR) & 7;
	req.max_cm_retries = min_t(u8,
				   vrdma_mad_u8(mad, VRDMA_REQ_MAXRETRY_SRQ) >> 4,
				   READ_ONCE(vrdma_cm_max_retries));
	req.srq = (vrdma_mad_u8(mad, VRDMA_REQ_MAXRETRY_SRQ) >> 3) & 1;
	req.ece.vendor_id = vrdma_mad_be32(mad, VRDMA_REQ_VENDOR_ID) & 0xffffff;
	req.ece.attr_mod = vrdma_mad_be32(mad, VRDMA_MAD_ATTR_MOD);
	ret = ib_send_cm_req(c->pid, &req);
	rdma_put_gid_attr(sgid_attr);
	return vrdma_cm_sent(c, ret, "ib_send_cm_req");
}

/*
 * Carries a SIDR_REQ of the vdevice on the parent.  The message names no
 * GID and no QP: what it asks of is where the AH it was sent with goes,
 * from that AH's source GID (the core checked it is the vdevice's), which
 * the vdevice's ACLs must allow, as for a REQ.  Its request ID comes back
 * in the SIDR_REP the proxy writes into the QP1, and ib_cm looks that up
 * by that ID alone (cm_sidr_rep_handler()), in the table of every device:
 * the request must be proven the vdevice's ib_cm's as a REQ is.  The
 * proxy's own probe of ib_cm's agent never gets here (dropped when it is
 * posted); a late retry of it is recognised by its service ID.
 */
static enum vrdma_cm_verdict vrdma_cm_sidr_req(struct vrdma_dev *vdev,
					       const struct vrdma_gsi_mad *m)
{
	struct ib_cm_sidr_req_param req = {};
	const struct ib_gid_attr *sgid_attr;
	const u8 *mad = m->data;
	enum vrdma_cm_verdict v;
	struct sa_path_rec path;
	struct vrdma_cm_conn *c;
	u64 sid = vrdma_mad_be64(mad, VRDMA_SIDR_REQ_SERVICE_ID);
	bool probe;
	int ret;

	spin_lock_irq(&vdev->cm.lock);
	probe = vdev->cm.tid_known && sid == vdev->cm.probe_sid;
	spin_unlock_irq(&vdev->cm.lock);
	if (probe)
		return VRDMA_CM_UNCARRIED;
	if (!vrdma_cm_path_ok(vdev, &m->sgid, &m->dgid) ||
	    !vrdma_cm_cma_hdr_ok(mad + VRDMA_SIDR_REQ_PRIVATE_DATA, &m->sgid))
		return VRDMA_CM_BAD_REQ;
	vrdma_cm_roce_path(m, &m->sgid, &m->dgid, &path);
	path.pkey = cpu_to_be16(vrdma_mad_be16(mad, VRDMA_SIDR_REQ_PKEY));
	/*
	 * The GRH the vdevice's ib_cm made from its route (tenant's TOS,
	 * TTL).  The label is cut to its 20 bits: a parent may OR it with
	 * the rest of its AH's word (mlx5: the source GID index above them).
	 */
	path.flow_label = cpu_to_be32(m->flow_label & IB_GRH_FLOWLABEL_MASK);
	path.hop_limit = m->hop_limit;
	path.traffic_class = m->tclass;
	v = vrdma_cm_req_begin(vdev, m, &path, true,
			       vrdma_mad_be32(mad, VRDMA_SIDR_REQ_REQUEST_ID),
			       &c, &sgid_attr);
	if (v != VRDMA_CM_CARRIED)
		return v;

	req.path = &path;
	req.sgid_attr = sgid_attr;
	req.service_id = cpu_to_be64(sid);
	req.timeout_ms = VRDMA_CM_SIDR_TIMEOUT_MS;
	req.max_cm_retries = VRDMA_CM_SIDR_RETRIES;
	req.private_data = mad + VRDMA_SIDR_REQ_PRIVATE_DATA;
	req.private_data_len = IB_CM_SIDR_REQ_PRIVATE_DATA_SIZE;
	ret = ib_send_cm_sidr_req(c->pid, &req);
	rdma_put_gid_attr(sgid_attr);
	return vrdma_cm_sent(c, ret, "ib_send_cm_sidr_req");
}

/*
 * Ends the incoming SIDR requests of @vdev offered longer ago than the
 * peer retries (VRDMA_CM_SIDR_IN_TTL): destroying the parent's cm_id
 * answers the peer "rejected", and the vdevice's late answer finds none.
 * Context: process, without the vdevice's conn_lock; sleeps.
 */
static void vrdma_cm_sidr_expire(struct vrdma_dev *vdev)
{
	struct vrdma_cm_conn *c, *next;
	LIST_HEAD(gone);

	mutex_lock(&vdev->cm.conn_lock);
	list_for_each_entry_safe(c, next, &vdev->cm.conns, node) {
		if (!c->sidr || !c->incoming ||
		    time_before(jiffies, c->since + VRDMA_CM_SIDR_IN_TTL))
			continue;
		vrdma_cm_unlink(c);
		list_add_tail(&c->node, &gone);
	}
	mutex_unlock(&vdev->cm.conn_lock);
	list_for_each_entry_safe(c, next, &gone, node) {
		list_del(&c->node);
		/* no event comes on a SIDR request received */
		ib_destroy_cm_id(c->pid);
		vrdma_cm_free(c, 0);
	}
}

/* The incoming SIDR requests @vdev holds unanswered */
static unsigned int vrdma_cm_sidr_offered(struct vrdma_dev *vdev)
{
	struct vrdma_cm_conn *c;
	unsigned int n = 0;

	lockdep_assert_held(&vdev->cm.conn_lock);
	list_for_each_entry(c, &vdev->cm.conns, node)
		n += c->sidr && c->incoming;
	return n;
}

/*
 * The vdevice answers a SIDR request the proxy offered it (@m names the
 * proxy's request ID).  A success must name a live UD QP of its own and a
 * Q_Key that is not privileged; any other status is passed on without
 * either.  The request ends here either way: the parent's ib_cm expects
 * nothing more on it.
 */
static enum vrdma_cm_verdict vrdma_cm_sidr_rep(struct vrdma_dev *vdev,
					       const struct vrdma_gsi_mad *m)
{
	struct ib_cm_sidr_rep_param rep = {};
	const u8 *mad = m->data;
	u32 xid = vrdma_mad_be32(mad, VRDMA_SIDR_REP_REQUEST_ID);
	enum vrdma_cm_verdict v = VRDMA_CM_CARRIED;
	struct vrdma_cm_conn *c;
	int ret = 0;

	vrdma_cm_sidr_expire(vdev);
	rep.status = vrdma_mad_u8(mad, VRDMA_SIDR_REP_STATUS);
	rep.qp_num = vrdma_mad_qpn(mad, VRDMA_SIDR_REP_QPN);
	rep.qkey = vrdma_mad_be32(mad, VRDMA_SIDR_REP_QKEY);
	rep.private_data = mad + VRDMA_SIDR_REP_PRIVATE_DATA;
	rep.private_data_len = IB_CM_SIDR_REP_PRIVATE_DATA_SIZE;
	if (rep.status > IB_SIDR_UNSUPPORTED_VERSION) {
		v = VRDMA_CM_BAD_SIDR_REP;
	} else if (rep.status == IB_SIDR_SUCCESS) {
		if (rep.qkey & VRDMA_CM_QKEY_PRIVILEGED ||
		    !vrdma_cm_own_qp(vdev, rep.qp_num, true))
			v = VRDMA_CM_BAD_SIDR_REP;
		rep.ece.vendor_id =
			vrdma_mad_be16(mad, VRDMA_SIDR_REP_VENDOR_ID_H) << 8 |
			vrdma_mad_u8(mad, VRDMA_SIDR_REP_VENDOR_ID_L);
		rep.ece.attr_mod = vrdma_mad_be32(mad, VRDMA_MAD_ATTR_MOD);
	} else {
		/* a refusal: nothing of the vdevice's to name */
		rep.qp_num = 0;
		rep.qkey = 0;
	}

	mutex_lock(&vdev->cm.conn_lock);
	c = vrdma_cm_find_sidr(vdev, xid, true);
	if (!c) {
		mutex_unlock(&vdev->cm.conn_lock);
		return v == VRDMA_CM_CARRIED ? VRDMA_CM_NO_CONN : v;
	}
	/*
	 * A bad answer ends the request too: the vdevice's ib_cm sends no
	 * other, and the destruction below answers the peer "rejected".
	 */
	if (v == VRDMA_CM_CARRIED)
		ret = ib_send_cm_sidr_rep(c->pid, &rep);
	vrdma_cm_unlink(c);
	mutex_unlock(&vdev->cm.conn_lock);
	/* no event comes on a SIDR request received: no handler to wait for */
	ib_destroy_cm_id(c->pid);
	vrdma_cm_free(c, 0);
	if (ret) {
		vrdma_dbg(vdev, "ib_send_cm_sidr_rep: %d\n", ret);
		return VRDMA_CM_FAILED;
	}
	return v;
}

/*
 * The vdevice accepts an incoming connection: its REP @m names the
 * proxy's comm ID (checked by the caller) and must name a live RC or UC
 * QP of its own, of the REQ's transport.  Its QP number is the parent's
 * (the shadow's), which the parent's REP carries unchanged.
 */
static enum vrdma_cm_verdict vrdma_cm_accept_rep(struct vrdma_cm_conn *c,
						 const struct vrdma_gsi_mad *m)
{
	struct ib_cm_rep_param rep = {};
	const u8 *mad = m->data;
	u32 qpn = vrdma_mad_qpn(mad, VRDMA_REP_LOCAL_QPN);
	u8 b26 = vrdma_mad_u8(mad, VRDMA_REP_ACKDELAY_FO_FC);
	u8 b27 = vrdma_mad_u8(mad, VRDMA_REP_RNR_SRQ);
	int ret;

	lockdep_assert_held(&c->vdev->cm.conn_lock);
	if (!vrdma_cm_own_qp(c->vdev, qpn, false))
		return VRDMA_CM_BAD_REP;
	rep.qp_num = qpn;
	rep.starting_psn = vrdma_mad_qpn(mad, VRDMA_REP_STARTING_PSN);
	rep.private_data = mad + VRDMA_REP_PRIVATE_DATA;
	rep.private_data_len = IB_CM_REP_PRIVATE_DATA_SIZE;
	rep.responder_resources = vrdma_mad_u8(mad, VRDMA_REP_RESP_RESOURCES);
	rep.initiator_depth = vrdma_mad_u8(mad, VRDMA_REP_INIT_DEPTH);
	rep.failover_accepted = (b26 >> 1) & 3;
	rep.flow_control = b26 & 1;
	rep.rnr_retry_count = b27 >> 5;
	rep.srq = (b27 >> 4) & 1;
	rep.ece.vendor_id = vrdma_mad_u8(mad, VRDMA_REP_VENDOR_ID_H) << 16 |
			    vrdma_mad_u8(mad, VRDMA_REP_VENDOR_ID_M) << 8 |
			    vrdma_mad_u8(mad, VRDMA_REP_VENDOR_ID_L);
	rep.ece.attr_mod = vrdma_mad_be32(mad, VRDMA_MAD_ATTR_MOD);
	ret = ib_send_cm_rep(c->pid, &rep);
	if (ret) {
		vrdma_dbg(c->vdev, "ib_send_cm_rep: %d\n", ret);
		return VRDMA_CM_FAILED;
	}
	c->vid = vrdma_mad_be32(mad, VRDMA_CM_LOCAL_COMM_ID);
	c->vqpn = qpn;
	c->answered = true;
	return VRDMA_CM_CARRIED;
}

/* A message of the vdevice on one of its connections. */
static enum vrdma_cm_verdict vrdma_cm_conn_msg(struct vrdma_dev *vdev,
					       const struct vrdma_gsi_mad *m,
					       u16 attr)
{
	const u8 *mad = m->data;
	u32 vid = vrdma_mad_be32(mad, VRDMA_CM_LOCAL_COMM_ID);
	u32 xid = vrdma_mad_be32(mad, VRDMA_CM_REMOTE_COMM_ID);
	struct vrdma_cm_conn *c;
	int ret;

	mutex_lock(&vdev->cm.conn_lock);
	c = vrdma_cm_find(vdev, vid);
	/* the answer to an incoming REQ: the vdevice's ID is not known yet */
	if (!c && (attr == VRDMA_CM_REP || attr == VRDMA_CM_REJ))
		c = vrdma_cm_find_offer(vdev, xid);
	/* a REJ of a REQ names no peer ID yet; every other message does */
	if (!c || (xid != c->xid && !(attr == VRDMA_CM_REJ && !xid))) {
		mutex_unlock(&vdev->cm.conn_lock);
		return VRDMA_CM_NO_CONN;
	}
	if (attr == VRDMA_CM_REP && !c->answered) {
		enum vrdma_cm_verdict v = vrdma_cm_accept_rep(c, m);

		mutex_unlock(&vdev->cm.conn_lock);
		return v;
	}
	switch (attr) {
	case VRDMA_CM_REP:
		if (!c->incoming) {
			mutex_unlock(&vdev->cm.conn_lock);
			return VRDMA_CM_UNCARRIED;
		}
		/* a retry of a REP already carried */
		ret = -EALREADY;
		break;
	case VRDMA_CM_RTU:
		ret = ib_send_cm_rtu(c->pid, mad + VRDMA_RTU_PRIVATE_DATA,
				     IB_CM_RTU_PRIVATE_DATA_SIZE);
		break;
	case VRDMA_CM_DREQ:
		ret = ib_send_cm_dreq(c->pid, mad + VRDMA_DREQ_PRIVATE_DATA,
				      IB_CM_DREQ_PRIVATE_DATA_SIZE);
		break;
	case VRDMA_CM_DREP:
		ret = ib_send_cm_drep(c->pid, mad + VRDMA_DREP_PRIVATE_DATA,
				      IB_CM_DREP_PRIVATE_DATA_SIZE);
		break;
	case VRDMA_CM_REJ:
		/*
		 * The vdevice's half is gone, and the parent's ib_cm reports
		 * nothing more after a REJ: the connection ends here.  A REJ
		 * of the vdevice's own REQ (no peer ID yet) is left to
		 * ib_destroy_cm_id(), which also cancels the parent's REQ
		 * (ib_send_cm_rej() leaves it retrying, and the destruction
		 * would wait for its last retry) and sends the timeout REJ
		 * with the parent's CA GUID, as ib_cm does for its own.
		 */
		ret = 0;
		if (xid)
			ret = ib_send_cm_rej(c->pid,
					     vrdma_mad_be16(mad, VRDMA_REJ_REASON),
					     NULL, 0,
					     mad + VRDMA_REJ_PRIVATE_DATA,
					     IB_CM_REJ_PRIVATE_DATA_SIZE);
		vrdma_cm_unlink(c);
		break;
	default:
		mutex_unlock(&vdev->cm.conn_lock);
		return VRDMA_CM_UNCARRIED;
	}
	mutex_unlock(&vdev->cm.conn_lock);
	if (attr == VRDMA_CM_REJ) {
		/* a handler, if running, finds it unlinked and leaves it */
		ib_destroy_cm_id(c->pid);
		vrdma_cm_free(c, 0);
	}
	/* a retry of a message the parent's CM already sent: its state moved */
	return ret ? VRDMA_CM_DUP : VRDMA_CM_CARRIED;
}

/*
 * vrdma_cm_proxy_send() - a MAD sent on a vdevice's QP1
 * @vdev: the vdevice
 * @m: the MAD, copied; untrusted
 *
 * Context: process context (the QP's work item); may sleep.
 */
static void vrdma_cm_proxy_send(struct vrdma_dev *vdev,
				const struct vrdma_gsi_mad *m)
{
	enum vrdma_cm_verdict v;
	u16 attr = 0;

	if (vrdma_mad_u8(m->data, VRDMA_MAD_MGMT_CLASS) != IB_MGMT_CLASS_CM)
		v = VRDMA_CM_NOT_CM;
	else if (!vrdma_cm_hdr_ok(m, &attr))
		v = VRDMA_CM_BAD_HDR;
	else if (attr == VRDMA_CM_REQ)
		v = vrdma_cm_req(vdev, m);
	else if (attr == VRDMA_CM_SIDR_REQ)
		v = vrdma_cm_sidr_req(vdev, m);
	else if (attr == VRDMA_CM_SIDR_REP)
		v = vrdma_cm_sidr_rep(vdev, m);
	else
		v = vrdma_cm_conn_msg(vdev, m, attr);
	vrdma_dbg(vdev, "MAD class 0x%02x attr 0x%04x: %s\n",
		  vrdma_mad_u8(m->data, VRDMA_MAD_MGMT_CLASS), attr,
		  vrdma_cm_verdict_name[v]);
}

/* --- from the parent to the vdevice -------------------------------------- */

/*
 * The network header the vdevice's MAD layer sees: RoCE v2 over IPv4
 * (the IPv4 header in the last 20 bytes of the GRH) for IPv4-mapped GIDs,
 * a GRH for the others.
 */
static u8 vrdma_cm_grh(const struct vrdma_cm_conn *c, struct ib_grh *grh)
{
	struct iphdr *ip;

	memset(grh, 0, sizeof(*grh));
	if (ipv6_addr_v4mapped((const struct in6_addr *)c->dgid.raw) &&
	    ipv6_addr_v4mapped((const struct in6_addr *)c->sgid.raw)) {
		ip = (struct iphdr *)((u8 *)grh + sizeof(*grh) - sizeof(*ip));
		ip->version = 4;
		ip->ihl = 5;
		ip->ttl = 64;
		ip->protocol = IPPROTO_UDP;
		ip->tot_len = htons(sizeof(*ip) + 8 + 12 + IB_MGMT_MAD_SIZE + 4);
		memcpy(&ip->saddr, &c->dgid.raw[12], 4);
		memcpy(&ip->daddr, &c->sgid.raw[12], 4);
		ip->check = ip_fast_csum((u8 *)ip, ip->ihl);
		return RDMA_NETWORK_IPV4;
	}
	grh->version_tclass_flow = cpu_to_be32(6 << 28);
	grh->paylen = cpu_to_be16(IB_MGMT_MAD_SIZE);
	grh->next_hdr = 0x1b;
	grh->hop_limit = 64;
	grh->sgid = c->dgid;
	grh->dgid = c->sgid;
	return RDMA_NETWORK_IPV6;
}

/* A CM MAD header as ib_cm builds it, with @attr */
static void vrdma_cm_mad_hdr(u8 *mad, u16 attr)
{
	mad[VRDMA_MAD_BASE_VERSION] = IB_MGMT_BASE_VERSION;
	mad[VRDMA_MAD_MGMT_CLASS] = IB_MGMT_CLASS_CM;
	mad[VRDMA_MAD_CLASS_VERSION] = VRDMA_CM_CLASS_VERSION;
	mad[VRDMA_MAD_METHOD] = IB_MGMT_METHOD_SEND;
	vrdma_mad_put_be64(mad, VRDMA_MAD_TID, get_random_u64());
	vrdma_mad_put_be16(mad, VRDMA_MAD_ATTR_ID, attr);
}

/*
 * The header of a message on a connection the proxy carries, as the peer's
 * ib_cm would send it to the vdevice: from the proxy's comm ID to the
 * vdevice's
 */
static void vrdma_cm_conn_hdr(const struct vrdma_cm_conn *c, u8 *mad,
			      u16 attr)
{
	vrdma_cm_mad_hdr(mad, attr);
	vrdma_mad_put_be32(mad, VRDMA_CM_LOCAL_COMM_ID, c->xid);
	vrdma_mad_put_be32(mad, VRDMA_CM_REMOTE_COMM_ID, c->vid);
}

/*
 * The private data the peer sent with @ev, at @off; an event without any
 * leaves the field zero, as the peer's ib_cm sent it
 */
static void vrdma_cm_put_private(u8 *mad, unsigned int off,
				 const struct ib_cm_event *ev, size_t len)
{
	if (ev->private_data)
		memcpy(mad + off, ev->private_data, len);
}

static int vrdma_cm_deliver(struct vrdma_cm_conn *c, const u8 *mad)
{
	struct ib_grh grh;
	u8 net_type;
	int ret;

	net_type = vrdma_cm_grh(c, &grh);
	ret = vrdma_gsi_deliver(c->vdev, &grh, mad, IB_MGMT_MAD_SIZE, net_type);
	if (ret)
		vrdma_dbg(c->vdev, "MAD attr 0x%04x not delivered: %d\n",
			  vrdma_mad_be16(mad, VRDMA_MAD_ATTR_ID), ret);
	return ret;
}

static void vrdma_cm_to_vdev_rep(struct vrdma_cm_conn *c,
				 const struct ib_cm_event *ev, u8 *mad)
{
	const struct ib_cm_rep_event_param *rep = &ev->param.rep_rcvd;

	vrdma_cm_conn_hdr(c, mad, VRDMA_CM_REP);
	vrdma_mad_put_be32(mad, VRDMA_REP_LOCAL_QKEY, rep->remote_qkey);
	vrdma_mad_put_qpn(mad, VRDMA_REP_LOCAL_QPN, rep->remote_qpn);
	vrdma_mad_put_qpn(mad, VRDMA_REP_STARTING_PSN, rep->starting_psn);
	mad[VRDMA_REP_RESP_RESOURCES] = rep->responder_resources;
	mad[VRDMA_REP_INIT_DEPTH] = rep->initiator_depth;
	mad[VRDMA_REP_ACKDELAY_FO_FC] = rep->target_ack_delay << 3 |
					rep->failover_accepted << 1 |
					rep->flow_control;
	mad[VRDMA_REP_RNR_SRQ] = rep->rnr_retry_count << 5 | rep->srq << 4;
	vrdma_mad_put_be64(mad, VRDMA_REP_LOCAL_CA_GUID, c->xguid);
	vrdma_cm_put_private(mad, VRDMA_REP_PRIVATE_DATA, ev,
			     IB_CM_REP_PRIVATE_DATA_SIZE);
}

static void vrdma_cm_to_vdev_rej(struct vrdma_cm_conn *c,
				 const struct ib_cm_event *ev, u8 *mad)
{
	const struct ib_cm_rej_event_param *rej = &ev->param.rej_rcvd;
	u8 ari_len = min_t(u8, rej->ari_length, IB_CM_REJ_ARI_LENGTH);

	vrdma_cm_conn_hdr(c, mad, VRDMA_CM_REJ);
	/*
	 * What the peer rejects is the vdevice's REQ, or the REP it answered
	 * an incoming one with.
	 */
	mad[VRDMA_REJ_MSG_REJECTED] = (c->incoming ? VRDMA_REJ_FOR_REP :
						     VRDMA_REJ_FOR_REQ) << 6;
	mad[VRDMA_REJ_INFO_LEN] = ari_len << 1;
	vrdma_mad_put_be16(mad, VRDMA_REJ_REASON, rej->reason);
	if (rej->ari && ari_len)
		memcpy(mad + VRDMA_REJ_ARI, rej->ari, ari_len);
	vrdma_cm_put_private(mad, VRDMA_REJ_PRIVATE_DATA, ev,
			     IB_CM_REJ_PRIVATE_DATA_SIZE);
}

/*
 * The peer gave up an incoming connection the vdevice has not answered:
 * its REQ timed out, or its cm_id was destroyed.  Whatever the peer's
 * REJ said, the vdevice's comm ID is not known yet, so the proxy says what
 * ib_cm itself says then (cm_destroy_id() in REQ_SENT): reason "timeout",
 * with the sender's CA GUID as its additional information, and no
 * receiver's comm ID.  ib_cm finds such a REJ by the sender's comm ID and
 * CA GUID (cm_acquire_rejected_id()), both the proxy's own here.
 */
static void vrdma_cm_to_vdev_withdraw(struct vrdma_cm_conn *c, u8 *mad)
{
	vrdma_cm_mad_hdr(mad, VRDMA_CM_REJ);
	vrdma_mad_put_be32(mad, VRDMA_CM_LOCAL_COMM_ID, c->xid);
	mad[VRDMA_REJ_MSG_REJECTED] = VRDMA_REJ_FOR_OTHER << 6;
	mad[VRDMA_REJ_INFO_LEN] = sizeof(c->xguid) << 1;
	vrdma_mad_put_be16(mad, VRDMA_REJ_REASON, IB_CM_REJ_TIMEOUT);
	vrdma_mad_put_be64(mad, VRDMA_REJ_ARI, c->xguid);
}

static void vrdma_cm_to_vdev_rtu(struct vrdma_cm_conn *c,
				 const struct ib_cm_event *ev, u8 *mad)
{
	vrdma_cm_conn_hdr(c, mad, VRDMA_CM_RTU);
	vrdma_cm_put_private(mad, VRDMA_RTU_PRIVATE_DATA, ev,
			     IB_CM_RTU_PRIVATE_DATA_SIZE);
}

static void vrdma_cm_to_vdev_dreq(struct vrdma_cm_conn *c,
				  const struct ib_cm_event *ev, u8 *mad)
{
	vrdma_cm_conn_hdr(c, mad, VRDMA_CM_DREQ);
	vrdma_mad_put_qpn(mad, VRDMA_DREQ_REMOTE_QPN, c->vqpn);
	vrdma_cm_put_private(mad, VRDMA_DREQ_PRIVATE_DATA, ev,
			     IB_CM_DREQ_PRIVATE_DATA_SIZE);
}

static void vrdma_cm_to_vdev_drep(struct vrdma_cm_conn *c,
				  const struct ib_cm_event *ev, u8 *mad)
{
	vrdma_cm_conn_hdr(c, mad, VRDMA_CM_DREP);
	vrdma_cm_put_private(mad, VRDMA_DREP_PRIVATE_DATA, ev,
			     IB_CM_DREP_PRIVATE_DATA_SIZE);
}

/*
 * The peer's SIDR_REP to a request of the vdevice, as the peer's ib_cm
 * sent it (cm_format_sidr_rep()), for the vdevice's request ID: ib_cm
 * finds its cm_id by that ID alone.  The peer's QP number and Q_Key are
 * passed unchanged: the data path is the parent's.
 */
static void vrdma_cm_to_vdev_sidr_rep(struct vrdma_cm_conn *c,
				      const struct ib_cm_event *ev, u8 *mad)
{
	const struct ib_cm_sidr_rep_event_param *rep = &ev->param.sidr_rep_rcvd;
	u8 info_len = min_t(u8, rep->info_len, IB_CM_SIDR_REP_INFO_LENGTH);

	vrdma_cm_mad_hdr(mad, VRDMA_CM_SIDR_REP);
	vrdma_mad_put_be32(mad, VRDMA_SIDR_REP_REQUEST_ID, c->vid);
	mad[VRDMA_SIDR_REP_STATUS] = rep->status;
	mad[VRDMA_SIDR_REP_INFO_LEN] = info_len;
	vrdma_mad_put_qpn(mad, VRDMA_SIDR_REP_QPN, rep->qpn);
	vrdma_mad_put_be64(mad, VRDMA_SIDR_REP_SERVICE_ID,
			   be64_to_cpu(c->pid->service_id));
	vrdma_mad_put_be32(mad, VRDMA_SIDR_REP_QKEY, rep->qkey);
	if (rep->info && info_len)
		memcpy(mad + VRDMA_SIDR_REP_INFO, rep->info, info_len);
	vrdma_cm_put_private(mad, VRDMA_SIDR_REP_PRIVATE_DATA, ev,
			     IB_CM_SIDR_REP_PRIVATE_DATA_SIZE);
}

/*
 * Refuses a request of the vdevice at once (past its quota, or a REQ
 * whose path lives too long), as a peer that cannot take it would, so that
 * the caller learns now, not after every retry of its ib_cm: a REJ with
 * @reason for a REQ, a SIDR_REP "rejected" for a SIDR_REQ (@sidr), into
 * its QP1.  The request passed the checks (vrdma_cm_req_ok(),
 * vrdma_cm_sidr_req()) and the proof that it is the vdevice's ib_cm's:
 * the GIDs are the vdevice's and its peer's, the ID its own.
 */
static void vrdma_cm_refuse(struct vrdma_dev *vdev,
			    const struct vrdma_gsi_mad *m, bool sidr,
			    u16 reason)
{
	struct vrdma_cm_conn c = { .vdev = vdev };
	u8 *mad;

	mad = kzalloc(IB_MGMT_MAD_SIZE, GFP_KERNEL);
	if (!mad)
		return;
	if (sidr) {
		c.sgid = m->sgid;
		c.dgid = m->dgid;
		vrdma_cm_mad_hdr(mad, VRDMA_CM_SIDR_REP);
		vrdma_mad_put_be32(mad, VRDMA_SIDR_REP_REQUEST_ID,
				   vrdma_mad_be32(m->data,
						  VRDMA_SIDR_REQ_REQUEST_ID));
		mad[VRDMA_SIDR_REP_STATUS] = IB_SIDR_REJECT;
		vrdma_mad_put_be64(mad, VRDMA_SIDR_REP_SERVICE_ID,
				   vrdma_mad_be64(m->data,
						  VRDMA_SIDR_REQ_SERVICE_ID));
	} else {
		vrdma_mad_gid(m->data, VRDMA_REQ_PRIMARY_LOCAL_GID, &c.sgid);
		vrdma_mad_gid(m->data, VRDMA_REQ_PRIMARY_REMOTE_GID, &c.dgid);
		vrdma_cm_mad_hdr(mad, VRDMA_CM_REJ);
		vrdma_mad_put_be32(mad, VRDMA_CM_REMOTE_COMM_ID,
				   vrdma_mad_be32(m->data,
						  VRDMA_REQ_LOCAL_COMM_ID));
		mad[VRDMA_REJ_MSG_REJECTED] = VRDMA_REJ_FOR_REQ << 6;
		vrdma_mad_put_be16(mad, VRDMA_REJ_REASON, reason);
	}
	vrdma_cm_deliver(&c, mad);
	kfree(mad);
}

/*
 * The parent's ib_cm reports on a connection.  Returning non-zero makes
 * ib_cm destroy @pid; the connection is unlinked and freed first.  The
 * connection is held while the handler runs: the vdevice outlives it
 * (vrdma_cm_proxy_stop() waits).
 * Context: ib_cm's work queue, or the parent's MAD send completion for a
 * failed send; may sleep.
 */
static int vrdma_cm_handler(struct ib_cm_id *pid, const struct ib_cm_event *ev)
{
	struct vrdma_cm_conn *c;
	struct vrdma_dev *vdev;
	bool done = false;
	u8 *mad;

	c = vrdma_cm_get(pid);
	if (!c)
		return 0;	/* being ended: its owner destroys @pid */
	vdev = c->vdev;
	vrdma_delay(VRDMA_DELAY_CM_EVENT);
	mad = kzalloc(IB_MGMT_MAD_SIZE, GFP_KERNEL);
	mutex_lock(&vdev->cm.conn_lock);
	if (list_empty(&c->node)) {
		/* ended meanwhile: its owner destroys @pid */
		mutex_unlock(&vdev->cm.conn_lock);
		kfree(mad);
		vrdma_cm_put(c);
		return 0;
	}
	switch (ev->event) {
	case IB_CM_REP_RECEIVED:
		if (mad) {
			vrdma_cm_to_vdev_rep(c, ev, mad);
			vrdma_cm_deliver(c, mad);
		}
		break;
	case IB_CM_REJ_RECEIVED:
		vrdma_dbg(vdev, "connection %08x rejected by the peer, reason %d\n",
			  c->vid, ev->param.rej_rcvd.reason);
		if (mad) {
			if (c->answered)
				vrdma_cm_to_vdev_rej(c, ev, mad);
			else
				vrdma_cm_to_vdev_withdraw(c, mad);
			vrdma_cm_deliver(c, mad);
		}
		done = true;
		break;
	case IB_CM_RTU_RECEIVED:
		if (mad && c->incoming) {
			vrdma_cm_to_vdev_rtu(c, ev, mad);
			vrdma_cm_deliver(c, mad);
		}
		break;
	case IB_CM_DREQ_RECEIVED:
		if (mad) {
			vrdma_cm_to_vdev_dreq(c, ev, mad);
			vrdma_cm_deliver(c, mad);
		}
		break;
	case IB_CM_DREP_RECEIVED:
		if (mad) {
			vrdma_cm_to_vdev_drep(c, ev, mad);
			vrdma_cm_deliver(c, mad);
		}
		break;
	case IB_CM_SIDR_REP_RECEIVED:
		if (mad) {
			vrdma_cm_to_vdev_sidr_rep(c, ev, mad);
			vrdma_cm_deliver(c, mad);
		}
		done = true;
		break;
	case IB_CM_SIDR_REQ_ERROR:
	case IB_CM_REQ_ERROR:
	case IB_CM_REP_ERROR:
	case IB_CM_TIMEWAIT_EXIT:
		/* the vdevice's ib_cm times out or leaves timewait on its own */
		done = true;
		break;
	default:
		break;
	}
	vrdma_dbg(vdev, "parent CM event %d on connection %08x\n", ev->event,
		  c->vid);
	if (done)
		vrdma_cm_unlink(c);
	mutex_unlock(&vdev->cm.conn_lock);
	kfree(mad);
	if (done) {
		vrdma_cm_free(c, 1);
		return 1;
	}
	vrdma_cm_put(c);
	return 0;
}

/*
 * The REQ of an incoming connection as the peer's ib_cm would send it to
 * the vdevice (cm_format_req()), from what the parent's ib_cm parsed of it
 * (cm_format_req_event(): its path as the receiver sees it), under the
 * proxy's comm ID and CA GUID.  The peer's QP number is passed unchanged.
 */
static void vrdma_cm_to_vdev_req(struct vrdma_cm_conn *c,
				 const struct ib_cm_id *pid,
				 const struct ib_cm_event *ev, u8 *mad)
{
	const struct ib_cm_req_event_param *req = &ev->param.req_rcvd;
	const struct sa_path_rec *path = req->primary_path;
	u8 type = req->qp_type == IB_QPT_UC ? VRDMA_CM_UC : VRDMA_CM_RC;

	vrdma_cm_mad_hdr(mad, VRDMA_CM_REQ);
	vrdma_mad_put_be32(mad, VRDMA_MAD_ATTR_MOD, req->ece.attr_mod);
	vrdma_mad_put_be32(mad, VRDMA_REQ_LOCAL_COMM_ID, c->xid);
	vrdma_mad_put_be32(mad, VRDMA_REQ_VENDOR_ID,
			   req->ece.vendor_id & 0xffffff);
	vrdma_mad_put_be64(mad, VRDMA_REQ_SERVICE_ID,
			   be64_to_cpu(pid->service_id));
	vrdma_mad_put_be64(mad, VRDMA_REQ_LOCAL_CA_GUID, c->xguid);
	vrdma_mad_put_be32(mad, VRDMA_REQ_LOCAL_QKEY, req->remote_qkey);
	vrdma_mad_put_qpn(mad, VRDMA_REQ_LOCAL_QPN, req->remote_qpn);
	mad[VRDMA_REQ_RESP_RESOURCES] = req->responder_resources;
	mad[VRDMA_REQ_INIT_DEPTH] = req->initiator_depth;
	mad[VRDMA_REQ_TIMEOUT_TYPE] = req->remote_cm_response_timeout << 3 |
				      type << 1 | req->flow_control;
	vrdma_mad_put_qpn(mad, VRDMA_REQ_STARTING_PSN, req->starting_psn);
	mad[VRDMA_REQ_LTIMEOUT_RETRY] = req->local_cm_response_timeout << 3 |
					req->retry_count;
	vrdma_mad_put_be16(mad, VRDMA_REQ_PKEY, be16_to_cpu(path->pkey));
	mad[VRDMA_REQ_MTU_RNR] = path->mtu << 4 | req->rnr_retry_count;
	/*
	 * The peer's count is not in the event: the vdevice's REP is retried
	 * as often as cma asks for (CMA_MAX_CM_RETRIES), at most.
	 */
	mad[VRDMA_REQ_MAXRETRY_SRQ] = VRDMA_CM_MAX_RETRIES << 4 | req->srq << 3;
	/* as ib_cm does for a routed RoCE path: no LIDs */
	vrdma_mad_put_be16(mad, VRDMA_REQ_PRIMARY_LOCAL_LID,
			   be16_to_cpu(IB_LID_PERMISSIVE));
	vrdma_mad_put_be16(mad, VRDMA_REQ_PRIMARY_REMOTE_LID,
			   be16_to_cpu(IB_LID_PERMISSIVE));
	memcpy(mad + VRDMA_REQ_PRIMARY_LOCAL_GID, c->dgid.raw,
	       sizeof(c->dgid.raw));
	memcpy(mad + VRDMA_REQ_PRIMARY_REMOTE_GID, c->sgid.raw,
	       sizeof(c->sgid.raw));
	vrdma_mad_put_be32(mad, VRDMA_REQ_FLOW_LABEL,
			   (be32_to_cpu(path->flow_label) & 0xfffff) << 12 |
			   (path->rate & 0x3f));
	mad[VRDMA_REQ_TCLASS] = path->traffic_class;
	mad[VRDMA_REQ_HOP_LIMIT] = path->hop_limit;
	mad[VRDMA_REQ_SL] = path->sl << 4 | (path->hop_limit <= 1) << 3;
	/* the receiver took one off the local ACK timeout */
	mad[VRDMA_REQ_ACK_TIMEOUT] = min_t(u8, path->packet_life_time + 1,
					   0x1f) << 3;
	vrdma_cm_put_private(mad, VRDMA_REQ_PRIVATE_DATA, ev,
			     VRDMA_REQ_PRIVATE_DATA_LEN);
}

/*
 * The SIDR_REQ of the peer as its ib_cm sent it (cm_format_sidr_req()),
 * under the proxy's request ID.
 */
static void vrdma_cm_to_vdev_sidr_req(struct vrdma_cm_conn *c,
				      const struct ib_cm_id *pid,
				      const struct ib_cm_event *ev, u8 *mad)
{
	const struct ib_cm_sidr_req_event_param *req = &ev->param.sidr_req_rcvd;

	vrdma_cm_mad_hdr(mad, VRDMA_CM_SIDR_REQ);
	vrdma_mad_put_be32(mad, VRDMA_SIDR_REQ_REQUEST_ID, c->xid);
	vrdma_mad_put_be16(mad, VRDMA_SIDR_REQ_PKEY, req->pkey);
	vrdma_mad_put_be64(mad, VRDMA_SIDR_REQ_SERVICE_ID,
			   be64_to_cpu(req->service_id));
	vrdma_cm_put_private(mad, VRDMA_SIDR_REQ_PRIVATE_DATA, ev,
			     IB_CM_SIDR_REQ_PRIVATE_DATA_SIZE);
}

/*
 * Makes @pid, new on a listener, the proxy's: @c (allocated and named by
 * the caller, freed by it on failure) joins the vdevice's connections
 * within its quota, and @to_vdev writes the request the vdevice is
 * offered into its QP1.
 */
static int vrdma_cm_offer(struct vrdma_cm_conn *c, struct ib_cm_id *pid,
			  const struct ib_cm_event *ev,
			  void (*to_vdev)(struct vrdma_cm_conn *c,
					  const struct ib_cm_id *pid,
					  const struct ib_cm_event *ev, u8 *mad))
{
	struct vrdma_dev *vdev = c->vdev;
	u8 *mad;
	int ret;

	mad = kzalloc(IB_MGMT_MAD_SIZE, GFP_KERNEL);
	if (!mad)
		return -ENOMEM;
	INIT_LIST_HEAD(&c->node);
	c->incoming = true;
	c->since = jiffies;
	vrdma_cm_new_peer_id(c);
	if (c->sidr)
		vrdma_cm_sidr_expire(vdev);

	mutex_lock(&vdev->cm.conn_lock);
	if (vdev->cm.nconns >= VRDMA_CM_CONN_MAX ||
	    (c->sidr && vrdma_cm_sidr_offered(vdev) >= VRDMA_CM_SIDR_IN_MAX)) {
		ret = -ENOSPC;
		goto out_unlock;
	}
	ret = vrdma_cm_link(c);
	if (ret)
		goto out_unlock;
	c->pid = pid;
	to_vdev(c, pid, ev, mad);
	ret = vrdma_cm_deliver(c, mad);
	if (ret) {
		/* nobody found it meanwhile: the lock was held throughout */
		vrdma_cm_unlink(c);
		goto out_unlock;
	}
	/*
	 * No event of @pid comes before this handler returns (none at all on
	 * a SIDR request), and the vdevice's answer waits for the lock.
	 */
	pid->context = (void *)(unsigned long)c->handle;
	pid->cm_handler = vrdma_cm_handler;
out_unlock:
	mutex_unlock(&vdev->cm.conn_lock);
	kfree(mad);
	return ret;
}

/**
 * vrdma_cm_proxy_accept() - offer an incoming connection to a vdevice
 * @vdev: the vdevice that publishes the port of @pid's service ID and
 *	holds the GID the REQ is addressed to, registered and linked
 * @pid: the parent's new cm_id, in its REQ handler
 * @ev: its IB_CM_REQ_RECEIVED event
 *
 * Checks the request against the vdevice's ACLs and connection quota,
 * makes @pid a connection of the proxy (its handler and context become
 * the proxy's) and delivers the REQ into the vdevice's QP1.
 *
 * Context: process context (ib_cm's work queue), vrdma_mutex held, so
 * that @vdev outlives the call and vrdma_cm_proxy_stop() comes after.
 * Return: 0 if the connection is the proxy's, or a negative errno: the
 * caller's handler returns it, and ib_cm rejects and destroys @pid.
 */
int vrdma_cm_proxy_accept(struct vrdma_dev *vdev, struct ib_cm_id *pid,
			  const struct ib_cm_event *ev)
{
	const struct ib_cm_req_event_param *req = &ev->param.req_rcvd;
	struct vrdma_cm_conn *c;
	int ret;

	lockdep_assert_held(&vrdma_mutex);
	if (req->qp_type != IB_QPT_RC && req->qp_type != IB_QPT_UC)
		return -EPROTONOSUPPORT;
	if (req->alternate_path)
		return -EINVAL;
	/* the receiver's view: the source GID is the vdevice's */
	if (!vrdma_cm_path_ok(vdev, &req->primary_path->sgid,
			      &req->primary_path->dgid))
		return -EACCES;
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	c->vdev = vdev;
	c->sgid = req->primary_path->sgid;
	c->dgid = req->primary_path->dgid;
	ret = vrdma_cm_offer(c, pid, ev, vrdma_cm_to_vdev_req);
	if (ret)
		kfree(c);
	return ret;
}

/**
 * vrdma_cm_proxy_sidr_accept() - offer an incoming SIDR request to a vdevice
 * @vdev: the vdevice that publishes the port of @pid's service ID and
 *	holds the GID the request is addressed to, registered and linked
 * @pid: the parent's new cm_id, in its SIDR_REQ handler
 * @ev: its IB_CM_SIDR_REQ_RECEIVED event
 *
 * As vrdma_cm_proxy_accept() for a REQ.  ib_cm does not report the
 * sender's GID of a SIDR request: the peer is the source address of the
 * RDMA CM's header in its private data, which the vdevice's cma reads as
 * the caller's address too; the SIDR_REP goes where the request came
 * from whatever it says (the parent's cm_id keeps that address).
 *
 * Context: process context (ib_cm's work queue), vrdma_mutex held.
 * Return: 0 if the request is the proxy's, or a negative errno: the
 * caller's handler returns it, and ib_cm answers "rejected" and destroys
 * @pid.
 */
int vrdma_cm_proxy_sidr_accept(struct vrdma_dev *vdev, struct ib_cm_id *pid,
			       const struct ib_cm_event *ev)
{
	const struct ib_cm_sidr_req_event_param *req = &ev->param.sidr_req_rcvd;
	union ib_gid peer, dst;
	struct vrdma_cm_conn *c;
	int ret;

	lockdep_assert_held(&vrdma_mutex);
	/*
	 * A restricted vdevice has no UD QP to answer with (ACLs cannot
	 * check UD), and the peer's address below is only what it claims.
	 */
	if (vrdma_acl_restricted(vdev))
		return -EACCES;
	if (!req->sgid_attr || !ev->private_data ||
	    !vrdma_cm_cma_addr(ev->private_data, VRDMA_CMA_HDR_SRC, &peer) ||
	    !vrdma_cm_cma_addr(ev->private_data, VRDMA_CMA_HDR_DST, &dst))
		return -EPROTONOSUPPORT;
	/* the header names the GID the request came to */
	if (memcmp(&dst, &req->sgid_attr->gid, sizeof(dst)))
		return -EINVAL;
	if (!vrdma_cm_path_ok(vdev, &req->sgid_attr->gid, &peer))
		return -EACCES;
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	c->vdev = vdev;
	c->sidr = true;
	c->sgid = req->sgid_attr->gid;
	c->dgid = peer;
	ret = vrdma_cm_offer(c, pid, ev, vrdma_cm_to_vdev_sidr_req);
	if (ret)
		kfree(c);
	return ret;
}

/*
 * vrdma_cm_show() - the connections the CM proxy carries, for debugfs
 * @m: the seq_file
 * @unused: the file's private data, none
 *
 * "forged N": the REQs dropped as not sent by a vdevice's ib_cm (or
 * while its agent was not known).  Then one line per connection: "conn
 * VDEV VID PID XID", the vdevice, its comm ID
 * for the connection and the parent's (the local IDs of the two ib_cm
 * halves), and the comm ID the proxy shows the vdevice for the peer, in
 * hex.  Tests read the IDs from here to aim a forged message.
 * Every entry of the handle table is alive while its lock is held.
 * Context: process context.
 */
static int vrdma_cm_show(struct seq_file *m, void *unused)
{
	struct vrdma_cm_conn *c;
	struct ib_cm_id *pid;
	unsigned long i;

	seq_printf(m, "forged %d\n", atomic_read(&vrdma_cm_forged));
	xa_lock(&vrdma_cm_handles);
	xa_for_each(&vrdma_cm_handles, i, c) {
		pid = READ_ONCE(c->pid);
		seq_printf(m, "conn %s %08x %08x %08x\n",
			   dev_name(&c->vdev->ibdev.dev), c->vid,
			   pid ? be32_to_cpu(pid->local_id) : 0, c->xid);
	}
	xa_unlock(&vrdma_cm_handles);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(vrdma_cm);

/**
 * vrdma_cm_debugfs_init() - create /sys/kernel/debug/vrdma/cm and
 * cm_max_retries
 *
 * After vrdma_debugfs_init(), whose removal of the directory removes them.
 */
void vrdma_cm_debugfs_init(void)
{
	debugfs_create_file("cm", 0400, vrdma_debugfs_root, NULL,
			    &vrdma_cm_fops);
	debugfs_create_u8("cm_max_retries", 0600, vrdma_debugfs_root,
			  &vrdma_cm_max_retries);
}

static const struct vrdma_gsi_ops vrdma_cm_gsi_ops = {
	.sent = vrdma_cm_probe_sent,
	.send = vrdma_cm_proxy_send,
};

/**
 * vrdma_cm_proxy_init() - set up a vdevice's proxy state
 * @vdev: the vdevice, before registration
 *
 * Installs the proxy as the layer its software QP1 hands its sends to.
 */
void vrdma_cm_proxy_init(struct vrdma_dev *vdev)
{
	vdev->cm.ops = &vrdma_cm_gsi_ops;
	mutex_init(&vdev->cm.conn_lock);
	INIT_LIST_HEAD(&vdev->cm.conns);
	vdev->cm.nconns = 0;
	vdev->cm.tid_known = false;
	vdev->cm.probe_done = NULL;
}

/**
 * vrdma_cm_proxy_stop() - end every connection of a vdevice on the parent
 * @vdev: the vdevice, unregistered (its QP1 is gone: nothing new comes)
 *
 * ib_destroy_cm_id() sends what the state needs (DREQ, REJ) and waits for
 * the ID's handlers that ib_cm runs from its work queue: it is called
 * without the lock the handler takes.  A handler of a failed send, which
 * ib_destroy_cm_id() does not wait for, is waited for by vrdma_cm_free():
 * when this returns, no handler uses the vdevice.
 * Context: process context; sleeps.
 */
void vrdma_cm_proxy_stop(struct vrdma_dev *vdev)
{
	struct vrdma_cm_conn *c;

	for (;;) {
		mutex_lock(&vdev->cm.conn_lock);
		c = list_first_entry_or_null(&vdev->cm.conns,
					     struct vrdma_cm_conn, node);
		if (c)
			vrdma_cm_unlink(c);
		mutex_unlock(&vdev->cm.conn_lock);
		if (!c)
			break;
		ib_destroy_cm_id(c->pid);
		vrdma_cm_free(c, 0);
	}
	mutex_destroy(&vdev->cm.conn_lock);
}
