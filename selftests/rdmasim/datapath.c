// SPDX-License-Identifier: GPL-2.0
/*
 * rdmasim's data path: the "hardware".  One kernel thread polls the
 * doorbell records of every user QP in RTS (the word after the last WQE of
 * its mapped send ring, see rdmasim-abi.h), executes SEND, RDMA WRITE and
 * RDMA READ between QPs of the same sim device, and writes completions into
 * the mapped CQ rings.  User space posts and polls with plain loads and
 * stores: no system call, no call into the kernel per work request.  A
 * personality with formats of its own (mlx5_wqe.c) adds pollers that the
 * thread runs in the same pass, under the same lock, and builds on the
 * same MR checks and copies (simdp_seg_get(), simdp_copy()).
 *
 * Memory is reached only through MRs registered with reg_user_mr (pinned
 * ib_umem pages), found by key and checked for PD, bounds and access as an
 * HCA checks them; a WQE that fails a check completes in error and moves
 * its QP to the error state.  Everything read from a ring is copied before
 * it is checked.
 *
 * Lifetime: every object the thread touches is reached under simdp_lock,
 * and the verbs that destroy a QP, CQ or MR remove it under that lock
 * before the ring memory or the umem can go, so the thread never sees a
 * freed ring.  When no QP has work the thread yields for a few passes,
 * then sleeps (backing off from tens of microseconds to a few
 * milliseconds), and it waits without a timeout
 * when no user QP exists at all.
 */
#include <linux/kthread.h>
#include <linux/wait.h>
#include <linux/delay.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/sizes.h>
#include <linux/scatterlist.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <rdma/ib_umem.h>

#include <rdma/rdmasim-abi.h>
#include "sim-dp.h"

/* WQEs one QP may execute in one pass, so that no QP starves the others */
#define SIMDP_BUDGET		16
/*
 * Idle passes: the first SIMDP_SPIN_POLLS only yield the CPU (a process
 * refilling its ring is usually that quick), the next up to
 * SIMDP_IDLE_POLLS sleep SIMDP_POLL_US, then each sleeps SIMDP_IDLE_MS
 */
#define SIMDP_SPIN_POLLS	64
#define SIMDP_IDLE_POLLS	256
#define SIMDP_POLL_US		50
#define SIMDP_IDLE_MS		4
/* The bounce buffer: one 64 KiB message moves in one step */
#define SIMDP_BOUNCE_LEN	SZ_64K

struct simdp_cq {
	u8 *ring;			/* nr CQEs, then the rdmasim_cq_db */
	u32 nr;				/* a power of two */
	u32 pi;				/* CQEs written, free-running */
	u32 cqn;
};

struct simdp_qp {
	struct list_head node;		/* in simdp_qps */
	struct simdp_dev *dev;
	struct ib_pd *pd;
	u32 qpn;
	u32 dest_qpn;
	enum ib_qp_state state;		/* the verbs' state, or ERR by a WQE */
	u8 *sq, *rq;			/* nsq (nrq) WQEs, then rdmasim_wq_db */
	u32 nsq, nrq;			/* powers of two */
	u32 sq_ci, rq_ci;		/* WQEs consumed, free-running */
	struct simdp_cq *scq, *rcq;
};

struct simdp_mr {
	u32 key;
	struct ib_umem *umem;
	u64 iova;
	u64 length;
	int access;			/* IB_ACCESS_* given at registration */
	struct ib_pd *pd;
	struct simdp_dev *dev;
};

/*
 * Protects every simdp_dev's xarrays, simdp_qps and every simdp_* object's
 * fields.  Held by the thread for one pass over the QPs, and by the verbs
 * that add, change or remove an object.
 */
static DEFINE_MUTEX(simdp_lock);
/* Every user QP, in RTS or not; under simdp_lock */
static LIST_HEAD(simdp_qps);
/* How many entries simdp_qps has; written under simdp_lock */
static unsigned int simdp_nr_qps;
/* A personality's hardware objects (simdp_poller_add()); under simdp_lock */
static LIST_HEAD(simdp_pollers);
/* How many entries simdp_pollers has; written under simdp_lock */
static unsigned int simdp_nr_pollers;
static DECLARE_WAIT_QUEUE_HEAD(simdp_wq);
static struct task_struct *simdp_task;
/* The thread's bounce buffer, SIMDP_BOUNCE_LEN bytes, used under simdp_lock */
static void *simdp_bounce;

/* Counters for debugfs (rdmasim/datapath) */
static atomic_long_t simdp_wqes, simdp_errors, simdp_bad_db, simdp_sleeps;

static struct rdmasim_wq_db *simdp_wq_db(u8 *ring, u32 nr)
{
	return (struct rdmasim_wq_db *)(ring + nr * sizeof(struct rdmasim_wqe));
}

static struct rdmasim_cq_db *simdp_cq_db(struct simdp_cq *cq)
{
	return (struct rdmasim_cq_db *)(cq->ring +
					cq->nr * sizeof(struct rdmasim_cqe));
}

/* Free CQEs in @cq's ring, by the consumer index user space published */
static u32 simdp_cq_room(struct simdp_cq *cq)
{
	/* Pairs with user space's release: it read the CQEs before */
	u32 used = cq->pi - smp_load_acquire(&simdp_cq_db(cq)->ci);

	return used >= cq->nr ? 0 : cq->nr - used;
}

static void simdp_cqe_post(struct simdp_cq *cq, u64 wr_id, u32 qpn,
			   u8 opcode, u8 status, u32 byte_len)
{
	struct rdmasim_cqe *cqe = (struct rdmasim_cqe *)cq->ring +
				  (cq->pi & (cq->nr - 1));

	WRITE_ONCE(cqe->wr_id, wr_id);
	WRITE_ONCE(cqe->byte_len, byte_len);
	WRITE_ONCE(cqe->qpn, qpn);
	WRITE_ONCE(cqe->opcode, opcode);
	WRITE_ONCE(cqe->status, status);
	/* The fields before the generation that makes them valid */
	smp_store_release(&cqe->gen, cq->pi / cq->nr + 1);
	cq->pi++;
	if (status != RDMASIM_WC_SUCCESS)
		atomic_long_inc(&simdp_errors);
}

/* A copy of the WQE at @idx of a ring: user space may rewrite it any time */
static void simdp_wqe_read(struct rdmasim_wqe *wqe, u8 *ring, u32 nr, u32 idx)
{
	memcpy(wqe, ring + (idx & (nr - 1)) * sizeof(*wqe), sizeof(*wqe));
}

static struct simdp_mr *simdp_mr_find(struct simdp_dev *dev, u32 key)
{
	struct simdp_mr *mr = xa_load(&dev->mrs, key >> 8);

	return mr && mr->key == key ? mr : NULL;
}

/**
 * simdp_seg_get() - check a piece of memory a work request names
 * @dev: the device whose MRs are searched
 * @pd: the protection domain the MR must be in
 * @key: the MR's lkey or rkey
 * @addr: the first byte, in the MR's iova space
 * @len: the length
 * @access: every IB_ACCESS_* flag the MR must have (0: a local read,
 *	always allowed)
 * @seg: filled in on success
 *
 * Called under simdp_lock.
 *
 * Return: false if any check fails.
 */
bool simdp_seg_get(struct simdp_dev *dev, struct ib_pd *pd, u32 key,
		   u64 addr, u64 len, int access, struct simdp_seg *seg)
{
	struct simdp_mr *mr;

	lockdep_assert_held(&simdp_lock);
	mr = simdp_mr_find(dev, key);
	if (!mr || mr->pd != pd || (mr->access & access) != access)
		return false;
	if (addr < mr->iova || len > mr->length ||
	    addr - mr->iova > mr->length - len)
		return false;
	seg->mr = mr;
	seg->off = addr - mr->iova;
	seg->len = len;
	return true;
}

/* Copy @len bytes between the MR at @off and the bounce buffer */
static void simdp_umem_copy(struct simdp_mr *mr, u64 off, size_t len,
			    bool to_mr)
{
	struct sg_table *sgt = &mr->umem->sgt_append.sgt;
	u64 skip = off + ib_umem_offset(mr->umem);

	if (to_mr)
		sg_pcopy_from_buffer(sgt->sgl, sgt->orig_nents, simdp_bounce,
				     len, skip);
	else
		sg_pcopy_to_buffer(sgt->sgl, sgt->orig_nents, simdp_bounce,
				   len, skip);
}

/**
 * simdp_copy() - move bytes between checked pieces of MRs
 * @dst: the destination pieces
 * @nd: how many
 * @src: the source pieces
 * @ns: how many
 * @len: the bytes to move; @src holds exactly @len bytes and @dst at
 *	least @len, as the caller checked
 *
 * Called under simdp_lock, whose bounce buffer it uses.
 */
void simdp_copy(const struct simdp_seg *dst, int nd,
		const struct simdp_seg *src, int ns, u64 len)
{
	u64 doff = 0, soff = 0;
	int d = 0, s = 0;
	size_t n;

	lockdep_assert_held(&simdp_lock);

	while (len) {
		while (s < ns && soff == src[s].len) {
			s++;
			soff = 0;
		}
		while (d < nd && doff == dst[d].len) {
			d++;
			doff = 0;
		}
		if (WARN_ON_ONCE(s == ns || d == nd))
			return;
		n = min3(len, src[s].len - soff, dst[d].len - doff);
		n = min_t(size_t, n, SIMDP_BOUNCE_LEN);
		simdp_umem_copy(src[s].mr, src[s].off + soff, n, false);
		simdp_umem_copy(dst[d].mr, dst[d].off + doff, n, true);
		soff += n;
		doff += n;
		len -= n;
		cond_resched();
	}
}

/**
 * simdp_copy_from_buf() - write a kernel buffer into checked pieces of MRs
 * @dst: the destination pieces, holding at least @len bytes
 * @nd: how many
 * @buf: the source (inline data a WQE carried, a header)
 * @len: its length
 *
 * Called under simdp_lock.
 */
void simdp_copy_from_buf(const struct simdp_seg *dst, int nd,
			 const void *buf, u64 len)
{
	struct sg_table *sgt;
	int d;
	u64 n;

	lockdep_assert_held(&simdp_lock);
	for (d = 0; d < nd && len; d++) {
		n = min_t(u64, len, dst[d].len);
		sgt = &dst[d].mr->umem->sgt_append.sgt;
		sg_pcopy_from_buffer(sgt->sgl, sgt->orig_nents, buf, n,
				     dst[d].off + ib_umem_offset(dst[d].mr->umem));
		buf += n;
		len -= n;
	}
	WARN_ON_ONCE(len);
}

/**
 * simdp_copy_to_buf() - read one checked piece of an MR into a kernel buffer
 * @buf: the destination (the operand of an atomic)
 * @src: the piece, holding exactly @len bytes
 * @len: the length
 *
 * Called under simdp_lock.
 */
void simdp_copy_to_buf(void *buf, const struct simdp_seg *src, u64 len)
{
	struct sg_table *sgt = &src->mr->umem->sgt_append.sgt;

	lockdep_assert_held(&simdp_lock);
	WARN_ON_ONCE(len > src->len);
	sg_pcopy_to_buffer(sgt->sgl, sgt->orig_nents, buf, len,
			   src->off + ib_umem_offset(src->mr->umem));
}

/*
 * simdp_send - deliver a SEND of the @n segments @src (@len bytes) into the
 * next receive WQE of @dqp.  -EAGAIN when @dqp has no receive WQE posted or
 * no room in its receive CQ (the sender waits, as on RNR with infinite
 * retries), else the sender's completion status.
 */
static int simdp_send(struct simdp_qp *qp, struct simdp_qp *dqp,
		      const struct simdp_seg *src, int n, u64 len)
{
	struct rdmasim_wq_db *rdb = simdp_wq_db(dqp->rq, dqp->nrq);
	struct simdp_seg dst[RDMASIM_WQE_MAX_SGE];
	struct rdmasim_wqe rwqe;
	u8 status = RDMASIM_WC_SUCCESS;
	u64 room = 0;
	int i;

	/* Pairs with user space's release: the WQE was written before */
	if (smp_load_acquire(&rdb->pi) == dqp->rq_ci)
		return -EAGAIN;
	/* The sender's CQE too, if both go to one CQ */
	if (simdp_cq_room(dqp->rcq) < (dqp->rcq == qp->scq ? 2 : 1))
		return -EAGAIN;
	simdp_wqe_read(&rwqe, dqp->rq, dqp->nrq, dqp->rq_ci);
	if (rwqe.num_sge > RDMASIM_WQE_MAX_SGE)
		status = RDMASIM_WC_BAD_WQE;
	for (i = 0; status == RDMASIM_WC_SUCCESS && i < rwqe.num_sge; i++) {
		if (!simdp_seg_get(dqp->dev, dqp->pd, rwqe.sge[i].lkey,
				   rwqe.sge[i].addr, rwqe.sge[i].length,
				   IB_ACCESS_LOCAL_WRITE, &dst[i]))
			status = RDMASIM_WC_LOC_PROT_ERR;
		room += rwqe.sge[i].length;
	}
	if (status == RDMASIM_WC_SUCCESS && len > room)
		status = RDMASIM_WC_LOC_LEN_ERR;
	if (status == RDMASIM_WC_SUCCESS)
		simdp_copy(dst, rwqe.num_sge, src, n, len);
	dqp->rq_ci++;
	/* The WQE was copied before its slot is handed back */
	smp_store_release(&rdb->ci, dqp->rq_ci);
	simdp_cqe_post(dqp->rcq, rwqe.wr_id, dqp->qpn, RDMASIM_OP_RECV, status,
		       status == RDMASIM_WC_SUCCESS ? len : 0);
	if (status == RDMASIM_WC_SUCCESS)
		return RDMASIM_WC_SUCCESS;
	dqp->state = IB_QPS_ERR;
	return RDMASIM_WC_REM_INV_REQ_ERR;
}

/*
 * simdp_execute - carry out the send WQE @wqe of @qp; its byte count in
 * @byte_len.  Return: the completion status, or -EAGAIN to retry later.
 */
static int simdp_execute(struct simdp_qp *qp, const struct rdmasim_wqe *wqe,
			 u32 *byte_len)
{
	struct simdp_seg local[RDMASIM_WQE_MAX_SGE], remote;
	struct simdp_qp *dqp;
	int access, i;
	u64 len = 0;

	if (wqe->num_sge > RDMASIM_WQE_MAX_SGE ||
	    wqe->opcode < RDMASIM_OP_SEND || wqe->opcode > RDMASIM_OP_RDMA_READ)
		return RDMASIM_WC_BAD_WQE;
	/* A READ writes its local buffers; the other two only read them */
	access = wqe->opcode == RDMASIM_OP_RDMA_READ ? IB_ACCESS_LOCAL_WRITE : 0;
	for (i = 0; i < wqe->num_sge; i++) {
		if (!simdp_seg_get(qp->dev, qp->pd, wqe->sge[i].lkey,
				   wqe->sge[i].addr, wqe->sge[i].length, access,
				   &local[i]))
			return RDMASIM_WC_LOC_PROT_ERR;
		len += wqe->sge[i].length;
	}
	dqp = xa_load(&qp->dev->qps, qp->dest_qpn);
	if (!dqp || (dqp->state != IB_QPS_RTR && dqp->state != IB_QPS_RTS))
		return RDMASIM_WC_RETRY_EXC_ERR;
	*byte_len = len;
	switch (wqe->opcode) {
	case RDMASIM_OP_SEND:
		return simdp_send(qp, dqp, local, wqe->num_sge, len);
	case RDMASIM_OP_RDMA_WRITE:
		if (!simdp_seg_get(dqp->dev, dqp->pd, wqe->rkey,
				   wqe->remote_addr, len,
				   IB_ACCESS_REMOTE_WRITE, &remote))
			return RDMASIM_WC_REM_ACCESS_ERR;
		simdp_copy(&remote, 1, local, wqe->num_sge, len);
		return RDMASIM_WC_SUCCESS;
	default:
		if (!simdp_seg_get(dqp->dev, dqp->pd, wqe->rkey,
				   wqe->remote_addr, len,
				   IB_ACCESS_REMOTE_READ, &remote))
			return RDMASIM_WC_REM_ACCESS_ERR;
		simdp_copy(local, wqe->num_sge, &remote, 1, len);
		return RDMASIM_WC_SUCCESS;
	}
}

/* Execute up to SIMDP_BUDGET WQEs of @qp's send queue; true if any */
static bool simdp_qp_run(struct simdp_qp *qp)
{
	struct rdmasim_wq_db *db = simdp_wq_db(qp->sq, qp->nsq);
	struct rdmasim_wqe wqe;
	int budget = SIMDP_BUDGET;
	bool busy = false;
	u32 pi, byte_len;
	int status;

	if (qp->state != IB_QPS_RTS && qp->state != IB_QPS_ERR)
		return false;
	while (budget--) {
		/* Pairs with user space's release: the WQE was written before */
		pi = smp_load_acquire(&db->pi);
		if (pi == qp->sq_ci)
			break;
		if (pi - qp->sq_ci > qp->nsq) {
			/* More than the ring holds: nothing to complete */
			if (qp->state != IB_QPS_ERR)
				atomic_long_inc(&simdp_bad_db);
			qp->state = IB_QPS_ERR;
			qp->sq_ci = pi;
			/* Tells user space where the device stands now */
			smp_store_release(&db->ci, qp->sq_ci);
			break;
		}
		if (!simdp_cq_room(qp->scq))
			break;
		simdp_wqe_read(&wqe, qp->sq, qp->nsq, qp->sq_ci);
		byte_len = 0;
		if (qp->state == IB_QPS_ERR) {
			status = RDMASIM_WC_WR_FLUSH_ERR;
		} else {
			status = simdp_execute(qp, &wqe, &byte_len);
			if (status == -EAGAIN)
				break;
		}
		qp->sq_ci++;
		/* The slot is free once the copy above is done */
		smp_store_release(&db->ci, qp->sq_ci);
		if (status != RDMASIM_WC_SUCCESS ||
		    (wqe.flags & RDMASIM_WQE_SIGNALED))
			simdp_cqe_post(qp->scq, wqe.wr_id, qp->qpn, wqe.opcode,
				       status, byte_len);
		if (status != RDMASIM_WC_SUCCESS)
			qp->state = IB_QPS_ERR;
		atomic_long_inc(&simdp_wqes);
		busy = true;
	}
	return busy;
}

/* Whether the thread has anything to poll */
static bool simdp_anything(void)
{
	return READ_ONCE(simdp_nr_qps) || READ_ONCE(simdp_nr_pollers);
}

static int simdp_thread(void *unused)
{
	struct simdp_poller *p;
	unsigned int idle = 0;
	struct simdp_qp *qp;
	bool busy;

	while (!kthread_should_stop()) {
		busy = false;
		mutex_lock(&simdp_lock);
		list_for_each_entry(qp, &simdp_qps, node)
			busy |= simdp_qp_run(qp);
		list_for_each_entry(p, &simdp_pollers, node)
			busy |= p->poll(p);
		mutex_unlock(&simdp_lock);
		if (busy) {
			idle = 0;
			cond_resched();
		} else if (!simdp_anything()) {
			idle = 0;
			atomic_long_inc(&simdp_sleeps);
			wait_event_idle(simdp_wq, kthread_should_stop() ||
					simdp_anything());
		} else if (idle < SIMDP_SPIN_POLLS) {
			idle++;
			cond_resched();
		} else if (idle < SIMDP_IDLE_POLLS) {
			idle++;
			usleep_range(SIMDP_POLL_US, 2 * SIMDP_POLL_US);
		} else {
			atomic_long_inc(&simdp_sleeps);
			wait_event_idle_timeout(simdp_wq, kthread_should_stop(),
						msecs_to_jiffies(SIMDP_IDLE_MS));
		}
	}
	return 0;
}

/**
 * simdp_dev_init() - set up a sim device's data path tables
 * @dp: the device's part
 */
void simdp_dev_init(struct simdp_dev *dp)
{
	xa_init(&dp->qps);
	xa_init(&dp->mrs);
}

/**
 * simdp_dev_fini() - undo simdp_dev_init(); every QP and MR is gone
 * @dp: the device's part
 */
void simdp_dev_fini(struct simdp_dev *dp)
{
	WARN_ON(!xa_empty(&dp->qps) || !xa_empty(&dp->mrs));
	xa_destroy(&dp->qps);
	xa_destroy(&dp->mrs);
}

/**
 * simdp_cq_add() - the data path's view of a user CQ
 * @ring: the kernel address of its mapped ring, @nr CQEs and a doorbell
 * @nr: the number of CQEs, a power of two
 * @cqn: its number
 *
 * Return: the object, or ERR_PTR(-ENOMEM).
 */
struct simdp_cq *simdp_cq_add(void *ring, u32 nr, u32 cqn)
{
	struct simdp_cq *cq = kzalloc(sizeof(*cq), GFP_KERNEL);

	if (!cq)
		return ERR_PTR(-ENOMEM);
	cq->ring = ring;
	cq->nr = nr;
	cq->cqn = cqn;
	return cq;
}

/**
 * simdp_cq_del() - forget a CQ; no QP of the data path uses it any more
 * @cq: from simdp_cq_add()
 */
void simdp_cq_del(struct simdp_cq *cq)
{
	mutex_lock(&simdp_lock);
	kfree(cq);
	mutex_unlock(&simdp_lock);
}

/**
 * simdp_qp_add() - hand a user QP to the data path, in RESET
 * @dp: its device's part
 * @ibqp: the QP, with its number and PD
 * @sq: the kernel address of the mapped send ring: @nsq WQEs and a doorbell
 * @nsq: a power of two
 * @rq: the receive ring, as @sq
 * @nrq: a power of two
 * @scq: the send CQ's data path object
 * @rcq: the receive CQ's
 *
 * Return: the object, or an ERR_PTR.
 */
struct simdp_qp *simdp_qp_add(struct simdp_dev *dp, struct ib_qp *ibqp,
			      void *sq, u32 nsq, void *rq, u32 nrq,
			      struct simdp_cq *scq, struct simdp_cq *rcq)
{
	struct simdp_qp *qp;
	int ret;

	if (!scq || !rcq)
		return ERR_PTR(-EINVAL);
	qp = kzalloc(sizeof(*qp), GFP_KERNEL);
	if (!qp)
		return ERR_PTR(-ENOMEM);
	qp->dev = dp;
	qp->pd = ibqp->pd;
	qp->qpn = ibqp->qp_num;
	qp->state = IB_QPS_RESET;
	qp->sq = sq;
	qp->nsq = nsq;
	qp->rq = rq;
	qp->nrq = nrq;
	qp->scq = scq;
	qp->rcq = rcq;
	mutex_lock(&simdp_lock);
	ret = xa_insert(&dp->qps, qp->qpn, qp, GFP_KERNEL);
	if (ret) {
		mutex_unlock(&simdp_lock);
		kfree(qp);
		return ERR_PTR(ret);
	}
	list_add_tail(&qp->node, &simdp_qps);
	WRITE_ONCE(simdp_nr_qps, simdp_nr_qps + 1);
	mutex_unlock(&simdp_lock);
	wake_up(&simdp_wq);
	return qp;
}

/**
 * simdp_qp_modify() - a QP's new state and peer, after modify_qp
 * @qp: from simdp_qp_add()
 * @state: the state modify_qp set
 * @dest_qpn: the peer's QP number, on the same device
 */
void simdp_qp_modify(struct simdp_qp *qp, enum ib_qp_state state,
		     u32 dest_qpn)
{
	mutex_lock(&simdp_lock);
	qp->state = state;
	qp->dest_qpn = dest_qpn;
	mutex_unlock(&simdp_lock);
	wake_up(&simdp_wq);
}

/**
 * simdp_qp_del() - take a QP out of the data path; on return the thread
 *	no longer touches its rings
 * @qp: from simdp_qp_add()
 */
void simdp_qp_del(struct simdp_qp *qp)
{
	mutex_lock(&simdp_lock);
	xa_erase(&qp->dev->qps, qp->qpn);
	list_del(&qp->node);
	WRITE_ONCE(simdp_nr_qps, simdp_nr_qps - 1);
	mutex_unlock(&simdp_lock);
	kfree(qp);
}

/**
 * simdp_mr_add() - make a user MR reachable by its key
 * @dp: its device's part
 * @key: its lkey and rkey; key >> 8 is unique on the device
 * @umem: its pinned pages
 * @iova: the address work requests name its first byte by
 * @length: its length
 * @access: its IB_ACCESS_* flags
 * @pd: its protection domain
 *
 * Return: the object, or an ERR_PTR.
 */
struct simdp_mr *simdp_mr_add(struct simdp_dev *dp, u32 key,
			      struct ib_umem *umem, u64 iova, u64 length,
			      int access, struct ib_pd *pd)
{
	struct simdp_mr *mr;
	int ret;

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->key = key;
	mr->umem = umem;
	mr->iova = iova;
	mr->length = length;
	mr->access = access;
	mr->pd = pd;
	mr->dev = dp;
	mutex_lock(&simdp_lock);
	ret = xa_insert(&dp->mrs, key >> 8, mr, GFP_KERNEL);
	mutex_unlock(&simdp_lock);
	if (ret) {
		kfree(mr);
		return ERR_PTR(ret);
	}
	return mr;
}

/**
 * simdp_mr_del() - make an MR unreachable; on return the thread no longer
 *	touches its pages
 * @mr: from simdp_mr_add()
 */
void simdp_mr_del(struct simdp_mr *mr)
{
	mutex_lock(&simdp_lock);
	xa_erase(&mr->dev->mrs, mr->key >> 8);
	mutex_unlock(&simdp_lock);
	kfree(mr);
}

/**
 * simdp_poller_add() - have the thread poll a personality's object
 * @p: its poller, with poll set; poll runs under simdp_lock, returns
 *	whether it found work, and must neither sleep for long nor take
 *	simdp_lock
 *
 * Called under simdp_lock.
 */
void simdp_poller_add(struct simdp_poller *p)
{
	lockdep_assert_held(&simdp_lock);
	list_add_tail(&p->node, &simdp_pollers);
	WRITE_ONCE(simdp_nr_pollers, simdp_nr_pollers + 1);
	wake_up(&simdp_wq);
}

/**
 * simdp_poller_del() - stop polling an object; once simdp_lock is released
 *	the thread no longer touches it
 * @p: from simdp_poller_add()
 *
 * Called under simdp_lock.
 */
void simdp_poller_del(struct simdp_poller *p)
{
	lockdep_assert_held(&simdp_lock);
	list_del(&p->node);
	WRITE_ONCE(simdp_nr_pollers, simdp_nr_pollers - 1);
}

/**
 * simdp_hw_lock() - take the lock the thread holds for a pass over its work
 *
 * A personality takes it to change what its pollers read.
 */
void simdp_hw_lock(void)
{
	mutex_lock(&simdp_lock);
}

/**
 * simdp_hw_unlock() - release simdp_hw_lock() and let the thread look again
 */
void simdp_hw_unlock(void)
{
	mutex_unlock(&simdp_lock);
	wake_up(&simdp_wq);
}

/**
 * simdp_assert_locked() - lockdep: the caller holds simdp_hw_lock()
 */
void simdp_assert_locked(void)
{
	lockdep_assert_held(&simdp_lock);
}

static int simdp_stats_show(struct seq_file *s, void *unused)
{
	seq_printf(s, "qps %u\n", READ_ONCE(simdp_nr_qps));
	seq_printf(s, "wqes %ld\n", atomic_long_read(&simdp_wqes));
	seq_printf(s, "errors %ld\n", atomic_long_read(&simdp_errors));
	seq_printf(s, "bad_doorbells %ld\n", atomic_long_read(&simdp_bad_db));
	seq_printf(s, "sleeps %ld\n", atomic_long_read(&simdp_sleeps));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(simdp_stats);

/**
 * simdp_init() - start the data path thread
 * @debugfs: the module's debugfs directory, for rdmasim/datapath
 *
 * Return: 0 or a negative errno.
 */
int simdp_init(struct dentry *debugfs)
{
	int ret;

	BUILD_BUG_ON(sizeof(struct rdmasim_wqe) != 64);
	BUILD_BUG_ON(sizeof(struct rdmasim_cqe) != 32);
	simdp_bounce = kvmalloc(SIMDP_BOUNCE_LEN, GFP_KERNEL);
	if (!simdp_bounce)
		return -ENOMEM;
	simdp_task = kthread_run(simdp_thread, NULL, "rdmasim_dp");
	if (IS_ERR(simdp_task)) {
		ret = PTR_ERR(simdp_task);
		goto err_free_bounce;
	}
	debugfs_create_file("datapath", 0444, debugfs, NULL,
			    &simdp_stats_fops);
	return 0;

err_free_bounce:
	kvfree(simdp_bounce);
	return ret;
}

/**
 * simdp_exit() - stop the thread; every sim device is gone
 */
void simdp_exit(void)
{
	kthread_stop(simdp_task);
	kvfree(simdp_bounce);
}
