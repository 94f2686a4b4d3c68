// SPDX-License-Identifier: GPL-2.0
/*
 * The mlx5 personality's hardware: it executes what stock libmlx5 posts,
 * in mlx5's formats, on the data path thread of datapath.c (one poller
 * per user QP and per user CQ), with no system call per work request.
 *
 *  - A QP's buffer (receive queue first, send queue after) and doorbell
 *    record are pinned user memory that the kernel maps with vmap().
 *    Like mlx5 hardware after a doorbell, the thread reads the send
 *    counter in the record (slot 1, written by libmlx5 before its store
 *    to the UAR page, which the double never reads: the page is shared by
 *    many QPs and CQs and overwritten), then the WQEs up to it.
 *  - A send WQE is a control segment (opcode, WQE index, QP number and
 *    size in 16-byte units, completion flags, immediate), a remote address
 *    segment (RDMA), a datagram segment (UD: the address vector libmlx5
 *    built), then data segments or one inline segment; it spans 64-byte
 *    basic blocks and may wrap at the end of the send queue.  The WQE is
 *    copied before it is checked.  SEND, SEND with immediate, RDMA WRITE
 *    (with immediate), RDMA READ and the RC atomics run between QPs of
 *    one sim device, found by QP number, as rdmasim's own data path
 *    routes; UD delivers
 *    a 40-byte GRH before the payload and drops what no QP with that
 *    number and Q_Key takes, as a fabric would.
 *  - An atomic (compare and swap, fetch and add) carries an atomic
 *    segment after the remote address segment, its operands big-endian,
 *    and one 8-byte data segment for the original value.  The target must
 *    be 8-byte aligned in an MR with remote atomic access.  The target and
 *    the value returned are in host order, as mlx5 hardware treats them
 *    once mlx5_core has set its atomic endianness mode to the host's (the
 *    condition for mlx5_ib's IB_ATOMIC_HCA).  One thread executes every
 *    WQE under one lock, so atomics on one address are serialised, as
 *    IB_ATOMIC_HCA promises (not against the CPU's own accesses).
 *  - A receive WQE is a scatter list of data segments, ended by the
 *    invalid lkey or the WQE's size.  With no receive WQE posted an RC
 *    sender waits (RNR retried forever); UC and UD messages are dropped.
 *  - A QP created with an SRQ takes its receive WQEs from the SRQ: as
 *    many as the SRQ's doorbell record counts, each the one its
 *    predecessor's next_wqe_index names (libmlx5 links the free WQEs and
 *    relinks each one it has polled), starting at WQE 0.  Its CQEs carry
 *    the SRQ WQE's index; libmlx5 finds the SRQ through the QP's user
 *    index.  An armed SRQ limit raises IB_EVENT_SRQ_LIMIT_REACHED once,
 *    when fewer WQEs than the limit remain, and disarms.
 *  - CQEs are 64 bytes (in the second half of a 128-byte entry), opcode
 *    and owner bit in the last byte, written last.  Requester CQEs carry
 *    the WQE index, from which libmlx5 retires the unsignalled WQEs
 *    before; every CQE carries the QP's user index (CQE version 1).  A
 *    failed WQE completes with an error CQE and moves its QP to the
 *    error state, where every outstanding WQE, send and receive, is
 *    flushed with an error CQE.  A full CQ makes the thread wait for
 *    room instead of overrunning it.
 *  - Events: libmlx5 arms a CQ by writing sequence number, command and
 *    consumer index into the CQ's arm record (then the UAR).  The thread
 *    acts on every change of the record; the CQ's completion handler runs
 *    once per arm, at the first CQE past the armed consumer index (at
 *    once if there is one), or the first solicited or error CQE for a
 *    solicited-only arm.
 *
 * Not modelled: masked and extended atomics, memory windows, XRC, BlueFlame copies,
 * scatter-to-CQE (which mlx5_ib drops without the capability), CQ
 * overrun errors, the wire (no packet exists; a GRH is synthesised).
 */
#include <linux/debugfs.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_umem.h>

#include "sim.h"
#include "sim-mlx5.h"

static_assert(sizeof(struct sim_mlx5_cqe64) == 64);
static_assert(sizeof(struct sim_mlx5_err_cqe) == 64);
static_assert(sizeof(struct sim_mlx5_ctrl_seg) == 16);
static_assert(sizeof(struct sim_mlx5_av) == 48);

/* WQEs one QP may execute in one pass, so that no QP starves the others */
#define SIM_MLX5_BUDGET		16
/* The GRH a UD receive buffer starts with */
#define SIM_MLX5_GRH_LEN	40
/* The most data segments a WQE can hold */
#define SIM_MLX5_MAX_SEGS	(SIM_MLX5_MAX_DESC_SZ / 16)
/* A CQ's indices are 24-bit in its doorbell record */
#define SIM_MLX5_CI_MASK	0xffffff
/* The longest message: mlx5's 2 GiB */
#define SIM_MLX5_MAX_MSG	BIT_ULL(31)

/* What debugfs rdmasim/mlx5 counts since the module loaded; atomic */
static atomic_long_t sim_mlx5_wqes;	/* send WQEs executed */
static atomic_long_t sim_mlx5_err_cqes;	/* error CQEs but flushes */
static atomic_long_t sim_mlx5_flush_cqes;
static atomic_long_t sim_mlx5_bad_wqes;	/* WQEs libmlx5 never writes */
static atomic_long_t sim_mlx5_events;	/* completion events */
static atomic_long_t sim_mlx5_ud_dropped;
static atomic_long_t sim_mlx5_srqs;	/* live SRQs */
static atomic_long_t sim_mlx5_srq_limit_events;

/*
 * The WQE being executed, copied out of its ring, and its checked local
 * and remote pieces of memory: used under simdp_hw_lock() only
 */
static u8 sim_mlx5_wqe_buf[SIM_MLX5_MAX_DESC_SZ];
static struct simdp_seg sim_mlx5_lsegs[SIM_MLX5_MAX_SEGS];
static struct simdp_seg sim_mlx5_rsegs[SIM_MLX5_MAX_SEGS];

/* A parsed send WQE */
struct sim_mlx5_wqe {
	u16 idx;			/* its index, as the control segment says */
	u8 opcode;
	u8 flags;			/* fm_ce_se */
	__be32 imm;
	u32 nbb;			/* basic blocks */
	const struct sim_mlx5_raddr_seg *raddr;
	const struct sim_mlx5_av *av;
	const struct sim_mlx5_atomic_seg *atomic;	/* atomics only */
	const u8 *inl;			/* inline data, or NULL */
	int nsegs;			/* checked in sim_mlx5_lsegs otherwise */
	u64 len;
};

/*
 * Map pinned user memory, pinned for as long as the mapping lives, into the
 * kernel; *@map is set to what vunmap() takes.  Return: the kernel address
 * of the umem's first byte, or an ERR_PTR().
 */
static void *sim_mlx5_umem_vmap(struct ib_umem *umem, void **map)
{
	size_t npages = ib_umem_num_pages(umem), n = 0;
	struct sg_page_iter it;
	struct page **pages;
	void *va = NULL;

	pages = kvmalloc_array(npages, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return ERR_PTR(-ENOMEM);
	for_each_sgtable_page(&umem->sgt_append.sgt, &it, 0) {
		if (n == npages)
			break;
		pages[n++] = sg_page_iter_page(&it);
	}
	if (n == npages)
		va = vmap(pages, npages, VM_MAP, PAGE_KERNEL);
	kvfree(pages);
	if (!va)
		return ERR_PTR(-ENOMEM);
	*map = va;
	return va + ib_umem_offset(umem);
}

/* WQEs posted to @srq and not taken */
static u16 sim_mlx5_srq_posted(struct sim_mlx5_hsrq *srq)
{
	/* Pairs with libmlx5's barrier: the WQEs were written before */
	u32 pi = be32_to_cpu(smp_load_acquire(&srq->db[0]));

	return pi - srq->ci;
}

/* Receive WQEs posted to @qp, or to its SRQ, and not consumed */
static u16 sim_mlx5_rq_posted(struct sim_mlx5_hqp *qp)
{
	u32 pi;

	if (qp->srq)
		return sim_mlx5_srq_posted(qp->srq);
	/* Pairs with libmlx5's barrier: the WQEs were written before */
	pi = be32_to_cpu(smp_load_acquire(&qp->db[SIM_MLX5_RCV_DBR]));
	return pi - qp->rq_ci;
}

/* The SRQ's limit is reached: one event, and the limit is disarmed */
static void sim_mlx5_srq_limit_event(struct sim_mlx5_hsrq *srq)
{
	struct ib_srq *ibsrq = srq->ibsrq;
	struct ib_event ev = {
		.device = ibsrq->device,
		.element.srq = ibsrq,
		.event = IB_EVENT_SRQ_LIMIT_REACHED,
	};

	srq->limit = 0;
	atomic_long_inc(&sim_mlx5_srq_limit_events);
	if (ibsrq->event_handler)
		ibsrq->event_handler(&ev, ibsrq->srq_context);
}

/*
 * sim_mlx5_recv_take - consume the receive WQE @qp takes next, from its
 * receive queue or its SRQ.  Return: the WQE's index for the CQE.
 */
static u16 sim_mlx5_recv_take(struct sim_mlx5_hqp *qp)
{
	struct sim_mlx5_hsrq *srq = qp->srq;
	const struct sim_mlx5_srq_next_seg *next;
	u16 idx;

	if (!srq)
		return qp->rq_ci++;
	idx = srq->head;
	next = (void *)(srq->buf + ((u32)idx << srq->wqe_shift));
	srq->head = be16_to_cpu(READ_ONCE(next->next_wqe_index)) &
		    (srq->max - 1);
	srq->ci++;
	if (srq->limit && sim_mlx5_srq_posted(srq) < srq->limit)
		sim_mlx5_srq_limit_event(srq);
	return idx;
}

/* Send basic blocks posted to @qp and not consumed */
static u16 sim_mlx5_sq_posted(struct sim_mlx5_hqp *qp)
{
	/* Pairs with libmlx5's barrier: the WQEs were written before */
	u32 pi = be32_to_cpu(smp_load_acquire(&qp->db[SIM_MLX5_SND_DBR]));

	return pi - qp->sq_ci;
}

/* --- CQ ----------------------------------------------------------------- */

static void sim_mlx5_cq_event(struct sim_mlx5_hcq *cq)
{
	struct ib_cq *ibcq = cq->ibcq;

	cq->armed = false;
	atomic_long_inc(&sim_mlx5_events);
	if (ibcq->comp_handler)
		ibcq->comp_handler(ibcq, ibcq->cq_context);
}

static u32 sim_mlx5_cq_ci(struct sim_mlx5_hcq *cq)
{
	/* Pairs with libmlx5's barrier: it read the CQEs before */
	return be32_to_cpu(smp_load_acquire(&cq->db[SIM_MLX5_CQ_SET_CI])) &
	       SIM_MLX5_CI_MASK;
}

/* Whether @cq can take @n more CQEs, by the index libmlx5 published */
static bool sim_mlx5_cq_room(struct sim_mlx5_hcq *cq, u32 n)
{
	u32 used = (cq->pi - sim_mlx5_cq_ci(cq)) & SIM_MLX5_CI_MASK;

	return used + n <= cq->nent;
}

/* The arm record: a change is an arm; due events fire */
static bool sim_mlx5_hcq_poll(struct simdp_poller *p)
{
	struct sim_mlx5_hcq *cq = container_of(p, struct sim_mlx5_hcq, poller);
	u32 arm = be32_to_cpu(READ_ONCE(cq->db[SIM_MLX5_CQ_ARM_DB]));

	if (arm == cq->arm_seen)
		return false;
	cq->arm_seen = arm;
	cq->armed = true;
	cq->armed_sol = arm & SIM_MLX5_CQ_DB_REQ_NOT_SOL;
	/* CQEs past the consumer index the arm names: the event is due */
	if (!cq->armed_sol &&
	    ((cq->pi - (arm & SIM_MLX5_CI_MASK)) & SIM_MLX5_CI_MASK))
		sim_mlx5_cq_event(cq);
	return true;
}

/* The next CQE of @cq, cleared but for its last byte */
static struct sim_mlx5_cqe64 *sim_mlx5_cqe_begin(struct sim_mlx5_hcq *cq)
{
	u8 *cqe = cq->buf + (cq->pi & (cq->nent - 1)) * cq->cqe_size;
	struct sim_mlx5_cqe64 *c = (void *)(cqe + cq->cqe_size - 64);

	simdp_assert_locked();
	memset(c, 0, offsetof(struct sim_mlx5_cqe64, op_own));
	return c;
}

/* Make the CQE valid: opcode and owner bit last */
static void sim_mlx5_cqe_end(struct sim_mlx5_hcq *cq,
			     struct sim_mlx5_cqe64 *c, u8 opcode,
			     bool solicited)
{
	u8 owner = !!(cq->pi & cq->nent);

	/* The fields before the byte that makes them valid */
	smp_store_release(&c->op_own, opcode << 4 | owner);
	cq->pi++;
	if (cq->armed && (!cq->armed_sol || solicited))
		sim_mlx5_cq_event(cq);
}

/* A requester CQE for the WQE at @idx; an error CQE if @synd */
static void sim_mlx5_req_cqe(struct sim_mlx5_hqp *qp, u16 idx, u8 opcode,
			     u8 synd, u32 byte_len)
{
	struct sim_mlx5_cqe64 *c = sim_mlx5_cqe_begin(qp->scq);
	struct sim_mlx5_err_cqe *e = (void *)c;

	c->srqn_uidx = cpu_to_be32(qp->uidx & SIM_MLX5_CI_MASK);
	c->sop_drop_qpn = cpu_to_be32((u32)opcode << 24 | qp->qpn);
	c->wqe_counter = cpu_to_be16(idx);
	if (synd == SIM_MLX5_SYND_OK) {
		c->byte_cnt = cpu_to_be32(byte_len);
		sim_mlx5_cqe_end(qp->scq, c, SIM_MLX5_CQE_REQ, false);
		return;
	}
	e->syndrome = synd;
	if (synd == SIM_MLX5_SYND_WR_FLUSH)
		atomic_long_inc(&sim_mlx5_flush_cqes);
	else
		atomic_long_inc(&sim_mlx5_err_cqes);
	sim_mlx5_cqe_end(qp->scq, c, SIM_MLX5_CQE_REQ_ERR, true);
}

/* A responder CQE for the receive WQE @qp consumes now */
static void sim_mlx5_resp_cqe(struct sim_mlx5_hqp *qp, u8 opcode, u8 synd,
			      u32 byte_len, u32 src_qpn, __be32 imm,
			      bool solicited)
{
	struct sim_mlx5_cqe64 *c = sim_mlx5_cqe_begin(qp->rcq);
	struct sim_mlx5_err_cqe *e = (void *)c;

	c->srqn_uidx = cpu_to_be32(qp->uidx & SIM_MLX5_CI_MASK);
	c->sop_drop_qpn = cpu_to_be32(qp->qpn);
	c->wqe_counter = cpu_to_be16(sim_mlx5_recv_take(qp));
	if (synd == SIM_MLX5_SYND_OK) {
		c->byte_cnt = cpu_to_be32(byte_len);
		c->imm_inval_pkey = imm;
		/* A GRH on UD (libmlx5 reads bits 28-29 as "GRH present") */
		c->flags_rqpn = cpu_to_be32((qp->type == IB_QPT_UD ? 1U << 28 :
					     0) | src_qpn);
		sim_mlx5_cqe_end(qp->rcq, c, opcode, solicited);
		return;
	}
	e->syndrome = synd;
	if (synd == SIM_MLX5_SYND_WR_FLUSH)
		atomic_long_inc(&sim_mlx5_flush_cqes);
	else
		atomic_long_inc(&sim_mlx5_err_cqes);
	sim_mlx5_cqe_end(qp->rcq, c, SIM_MLX5_CQE_RESP_ERR, true);
}

/**
 * sim_mlx5_queue_get() - pin and map a user queue's buffer and doorbell
 *	record, as the hardware of every mlx5 queue reads them
 * @q: filled in; left empty on failure
 * @ibdev: the device
 * @buf_addr: the buffer's user address
 * @len: its length
 * @buf_access: IB_ACCESS_LOCAL_WRITE if the hardware writes the buffer
 * @db_addr: the doorbell record's user address
 * @db_access: IB_ACCESS_LOCAL_WRITE if the hardware writes the record
 *
 * Return: 0 or a negative errno.
 */
int sim_mlx5_queue_get(struct sim_mlx5_queue *q, struct ib_device *ibdev,
		       u64 buf_addr, size_t len, int buf_access, u64 db_addr,
		       int db_access)
{
	struct ib_umem *umem;
	void *va;
	int ret;

	umem = sim_umem_get(ibdev, buf_addr, len, buf_access);
	if (IS_ERR(umem))
		return PTR_ERR(umem);
	q->buf_umem = umem;
	umem = sim_umem_get(ibdev, db_addr & PAGE_MASK, PAGE_SIZE, db_access);
	if (IS_ERR(umem)) {
		ret = PTR_ERR(umem);
		goto err_put;
	}
	q->db_umem = umem;
	va = sim_mlx5_umem_vmap(q->buf_umem, &q->buf_map);
	if (IS_ERR(va)) {
		ret = PTR_ERR(va);
		goto err_put;
	}
	q->buf = va;
	va = sim_mlx5_umem_vmap(q->db_umem, &q->db_map);
	if (IS_ERR(va)) {
		ret = PTR_ERR(va);
		goto err_put;
	}
	q->db = va + offset_in_page(db_addr);
	return 0;

err_put:
	sim_mlx5_queue_put(q);
	return ret;
}

/**
 * sim_mlx5_queue_put() - unmap and unpin a queue, once the hardware no
 *	longer reads it
 * @q: from sim_mlx5_queue_get(), or empty; emptied
 */
void sim_mlx5_queue_put(struct sim_mlx5_queue *q)
{
	vunmap(q->db_map);
	vunmap(q->buf_map);
	ib_umem_release(q->db_umem);
	ib_umem_release(q->buf_umem);
	memset(q, 0, sizeof(*q));
}

/**
 * sim_mlx5_hcq_new() - the hardware's view of a user CQ
 * @ibcq: the CQ, whose completion handler events call
 * @q: its CQE buffer and doorbell record, pinned for write
 * @nent: CQEs, a power of two
 * @cqe_size: 64 or 128
 *
 * The hardware writes SIM_MLX5_ARM_IDLE into the arm record, which libmlx5
 * zeroed: its first arm is then a change.
 *
 * Return: the object, or an ERR_PTR().
 */
struct sim_mlx5_hcq *sim_mlx5_hcq_new(struct ib_cq *ibcq,
				      const struct sim_mlx5_queue *q,
				      u32 nent, u32 cqe_size)
{
	struct sim_mlx5_hcq *cq;

	cq = kzalloc(sizeof(*cq), GFP_KERNEL);
	if (!cq)
		return ERR_PTR(-ENOMEM);
	cq->ibcq = ibcq;
	cq->buf = q->buf;
	cq->db = q->db;
	cq->nent = nent;
	cq->cqe_size = cqe_size;
	cq->arm_seen = SIM_MLX5_ARM_IDLE;
	WRITE_ONCE(cq->db[SIM_MLX5_CQ_ARM_DB], cpu_to_be32(SIM_MLX5_ARM_IDLE));
	cq->poller.poll = sim_mlx5_hcq_poll;
	simdp_hw_lock();
	simdp_poller_add(&cq->poller);
	simdp_hw_unlock();
	return cq;
}

/**
 * sim_mlx5_hcq_del() - forget a CQ; no QP uses it any more.  On return the
 *	thread no longer touches its memory, which the caller then puts.
 * @cq: from sim_mlx5_hcq_new()
 */
void sim_mlx5_hcq_del(struct sim_mlx5_hcq *cq)
{
	simdp_hw_lock();
	simdp_poller_del(&cq->poller);
	simdp_hw_unlock();
	kfree(cq);
}

/* --- receive side ------------------------------------------------------- */

/*
 * sim_mlx5_recv_segs - check the receive WQE @qp consumes next, for @need
 * bytes; fill sim_mlx5_rsegs.  Return: the syndrome.
 */
static u8 sim_mlx5_recv_segs(struct sim_mlx5_hqp *qp, u64 need, int *nsegs)
{
	struct sim_mlx5_hsrq *srq = qp->srq;
	const struct sim_mlx5_data_seg *ds;
	struct ib_pd *pd = qp->pd;
	u64 room = 0;
	u32 lkey, len;
	int max, i;

	if (srq) {
		/* After the link segment; the SRQ's PD owns the buffers */
		ds = (void *)(srq->buf + ((u32)srq->head << srq->wqe_shift) +
			      sizeof(struct sim_mlx5_srq_next_seg));
		max = (1 << srq->wqe_shift) / sizeof(*ds) - 1;
		pd = srq->pd;
	} else {
		ds = (void *)(qp->rq +
			      ((qp->rq_ci & (qp->rq_cnt - 1)) << qp->rq_shift));
		max = (1 << qp->rq_shift) / sizeof(*ds);
	}
	max = min_t(int, max, SIM_MLX5_MAX_SEGS);
	for (i = 0; i < max; i++) {
		lkey = be32_to_cpu(READ_ONCE(ds[i].lkey));
		if (lkey == SIM_MLX5_INVALID_LKEY)
			break;
		len = be32_to_cpu(READ_ONCE(ds[i].byte_count));
		if (!simdp_seg_get(&qp->sdev->dp, pd, lkey,
				   be64_to_cpu(READ_ONCE(ds[i].addr)), len,
				   IB_ACCESS_LOCAL_WRITE, &sim_mlx5_rsegs[i]))
			return SIM_MLX5_SYND_LOCAL_PROT;
		room += len;
	}
	*nsegs = i;
	return need > room ? SIM_MLX5_SYND_LOCAL_LENGTH : SIM_MLX5_SYND_OK;
}

/* Drop the first @skip bytes of the @n pieces in @segs */
static void sim_mlx5_segs_skip(struct simdp_seg *segs, int n, u32 skip)
{
	int i;
	u32 k;

	for (i = 0; i < n && skip; i++) {
		k = min(skip, segs[i].len);
		segs[i].off += k;
		segs[i].len -= k;
		skip -= k;
	}
}

/* Copy the payload of @w into the @nd pieces @dst */
static void sim_mlx5_put(const struct simdp_seg *dst, int nd,
			 const struct sim_mlx5_wqe *w)
{
	if (w->inl)
		simdp_copy_from_buf(dst, nd, w->inl, w->len);
	else
		simdp_copy(dst, nd, sim_mlx5_lsegs, w->nsegs, w->len);
}

/* A RoCE GRH for a UD message from @qp to @av */
static void sim_mlx5_grh(struct sim_mlx5_hqp *qp,
			 const struct sim_mlx5_av *av, u64 len, u8 *grh)
{
	u8 sgid_index = (be32_to_cpu(av->grh_gid_fl) >> 20) & 0xff;
	union ib_gid sgid = {};

	memset(grh, 0, SIM_MLX5_GRH_LEN);
	grh[0] = 0x60;
	*(__be16 *)(grh + 4) = cpu_to_be16(len);
	grh[6] = 0x1b;			/* next header: IB BTH */
	grh[7] = av->hop_limit;
	rdma_query_gid(&qp->sdev->ibdev, 1, sgid_index, &sgid);
	memcpy(grh + 8, sgid.raw, sizeof(sgid.raw));
	memcpy(grh + 24, av->rgid, sizeof(av->rgid));
}

/*
 * sim_mlx5_deliver - a SEND (@w) or the immediate of an RDMA WRITE from
 * @qp into the next receive WQE of @dqp.  Return: the sender's syndrome,
 * or -EAGAIN to retry later (RC without a receive WQE, or no CQ room).
 */
static int sim_mlx5_deliver(struct sim_mlx5_hqp *qp, struct sim_mlx5_hqp *dqp,
			    const struct sim_mlx5_wqe *w)
{
	bool ud = qp->type == IB_QPT_UD;
	bool payload = w->opcode == SIM_MLX5_OPCODE_SEND ||
		       w->opcode == SIM_MLX5_OPCODE_SEND_IMM;
	u64 need = payload ? w->len + (ud ? SIM_MLX5_GRH_LEN : 0) : 0;
	u8 grh[SIM_MLX5_GRH_LEN];
	u8 synd, opcode;
	int nsegs = 0;

	if (!sim_mlx5_rq_posted(dqp)) {
		if (qp->type == IB_QPT_RC)
			return -EAGAIN;
		atomic_long_inc(&sim_mlx5_ud_dropped);
		return SIM_MLX5_SYND_OK;
	}
	if (!sim_mlx5_cq_room(dqp->rcq, dqp->rcq == qp->scq ? 2 : 1))
		return -EAGAIN;
	synd = payload ? sim_mlx5_recv_segs(dqp, need, &nsegs) :
			 SIM_MLX5_SYND_OK;
	if (synd != SIM_MLX5_SYND_OK) {
		sim_mlx5_resp_cqe(dqp, 0, synd, 0, qp->qpn, 0, true);
		if (!ud)
			dqp->state = IB_QPS_ERR;
		return ud ? SIM_MLX5_SYND_OK : SIM_MLX5_SYND_REMOTE_INVAL_REQ;
	}
	if (payload && ud) {
		sim_mlx5_grh(qp, w->av, w->len, grh);
		simdp_copy_from_buf(sim_mlx5_rsegs, nsegs, grh, sizeof(grh));
		sim_mlx5_segs_skip(sim_mlx5_rsegs, nsegs, sizeof(grh));
	}
	if (payload)
		sim_mlx5_put(sim_mlx5_rsegs, nsegs, w);
	switch (w->opcode) {
	case SIM_MLX5_OPCODE_SEND_IMM:
		opcode = SIM_MLX5_CQE_RESP_SEND_IMM;
		break;
	case SIM_MLX5_OPCODE_RDMA_WRITE_IMM:
		opcode = SIM_MLX5_CQE_RESP_WR_IMM;
		need = w->len;
		break;
	default:
		opcode = SIM_MLX5_CQE_RESP_SEND;
	}
	sim_mlx5_resp_cqe(dqp, opcode, SIM_MLX5_SYND_OK, need, qp->qpn, w->imm,
			  w->flags & SIM_MLX5_WQE_CTRL_SOLICITED);
	return SIM_MLX5_SYND_OK;
}

/* --- send side ---------------------------------------------------------- */

/*
 * sim_mlx5_parse - parse the copied WQE of @qp into @w and check its
 * local memory.  Return: a syndrome, or -EINVAL for a WQE libmlx5 never
 * writes.
 */
static int sim_mlx5_parse(struct sim_mlx5_hqp *qp, struct sim_mlx5_wqe *w,
			  u32 size)
{
	const struct sim_mlx5_ctrl_seg *ctrl = (void *)sim_mlx5_wqe_buf;
	const u8 *p = sim_mlx5_wqe_buf + sizeof(*ctrl);
	const u8 *end = sim_mlx5_wqe_buf + size;
	const struct sim_mlx5_data_seg *ds;
	bool rdma, read, atomic;
	u32 bc, access;

	w->opcode = be32_to_cpu(ctrl->opmod_idx_opcode) & 0xff;
	w->idx = be32_to_cpu(ctrl->opmod_idx_opcode) >> 8;
	w->flags = ctrl->fm_ce_se;
	w->imm = ctrl->imm;
	if (w->idx != qp->sq_ci || be32_to_cpu(ctrl->qpn_ds) >> 8 != qp->qpn)
		return -EINVAL;
	read = w->opcode == SIM_MLX5_OPCODE_RDMA_READ;
	rdma = read || w->opcode == SIM_MLX5_OPCODE_RDMA_WRITE ||
	       w->opcode == SIM_MLX5_OPCODE_RDMA_WRITE_IMM;
	atomic = w->opcode == SIM_MLX5_OPCODE_ATOMIC_CS ||
		 w->opcode == SIM_MLX5_OPCODE_ATOMIC_FA;
	if (!rdma && !atomic && w->opcode != SIM_MLX5_OPCODE_SEND &&
	    w->opcode != SIM_MLX5_OPCODE_SEND_IMM)
		return -EINVAL;
	if ((qp->type == IB_QPT_UD && rdma) || (qp->type == IB_QPT_UC && read) ||
	    (qp->type != IB_QPT_RC && atomic))
		return -EINVAL;
	if (rdma || atomic) {
		if (end - p < sizeof(*w->raddr))
			return -EINVAL;
		w->raddr = (void *)p;
		p += sizeof(*w->raddr);
	}
	if (atomic) {
		if (end - p < sizeof(*w->atomic))
			return -EINVAL;
		w->atomic = (void *)p;
		p += sizeof(*w->atomic);
	}
	if (qp->type == IB_QPT_UD) {
		if (end - p < sizeof(*w->av))
			return -EINVAL;
		w->av = (void *)p;
		p += sizeof(*w->av);
	}
	if (end - p >= 4 &&
	    (be32_to_cpup((const __be32 *)p) & SIM_MLX5_INLINE_SEG)) {
		bc = be32_to_cpup((const __be32 *)p) & ~SIM_MLX5_INLINE_SEG;
		if (read || atomic || ALIGN(4 + bc, 16) != end - p)
			return -EINVAL;
		w->inl = p + 4;
		w->len = bc;
		return SIM_MLX5_SYND_OK;
	}
	/*
	 * A READ writes its local buffers, an atomic the original value;
	 * the others only read them
	 */
	access = read || atomic ? IB_ACCESS_LOCAL_WRITE : 0;
	for (ds = (void *)p; (u8 *)ds < end; ds++) {
		bc = be32_to_cpu(ds->byte_count);
		if (!bc || bc & SIM_MLX5_INLINE_SEG)
			return -EINVAL;
		if (!simdp_seg_get(&qp->sdev->dp, qp->pd,
				   be32_to_cpu(ds->lkey),
				   be64_to_cpu(ds->addr), bc, access,
				   &sim_mlx5_lsegs[w->nsegs]))
			return SIM_MLX5_SYND_LOCAL_PROT;
		w->nsegs++;
		w->len += bc;
	}
	if (atomic && w->len != SIM_MLX5_ATOMIC_SIZE)
		return SIM_MLX5_SYND_LOCAL_LENGTH;
	return w->len > SIM_MLX5_MAX_MSG ? SIM_MLX5_SYND_LOCAL_LENGTH :
					   SIM_MLX5_SYND_OK;
}

/*
 * An RC WQE no QP answers: a NIC retransmits it for the QP's budget
 * (sim_mlx5_hqp_modify()) and only then completes it in error, retry
 * exceeded.  Holding it as long matters at the end of a test: the peer may
 * destroy its QPs while the sender's last WQEs are in flight, and the
 * sender then destroys its own before the budget runs out, with no error.
 */
static int sim_mlx5_unacked(struct sim_mlx5_hqp *qp)
{
	if (!qp->ack_deadline) {
		qp->ack_deadline = jiffies + msecs_to_jiffies(qp->ack_ms) ?: 1;
		return -EAGAIN;
	}
	if (time_before(jiffies, qp->ack_deadline))
		return -EAGAIN;
	qp->ack_deadline = 0;
	return SIM_MLX5_SYND_TRANSPORT_RETRY;
}

/*
 * sim_mlx5_atomic - the atomic @w of @qp on @dqp's memory: the original
 * value into @w's local buffer.  Return: the syndrome.
 */
static int sim_mlx5_atomic(struct sim_mlx5_hqp *qp, struct sim_mlx5_hqp *dqp,
			   const struct sim_mlx5_wqe *w)
{
	u64 raddr = be64_to_cpu(w->raddr->raddr);
	struct simdp_seg remote;
	u64 old, val;

	/* A responder NAKs a misaligned atomic as an invalid request */
	if (!IS_ALIGNED(raddr, SIM_MLX5_ATOMIC_SIZE))
		return SIM_MLX5_SYND_REMOTE_INVAL_REQ;
	if (!simdp_seg_get(&qp->sdev->dp, dqp->pd, be32_to_cpu(w->raddr->rkey),
			   raddr, SIM_MLX5_ATOMIC_SIZE, IB_ACCESS_REMOTE_ATOMIC,
			   &remote))
		return SIM_MLX5_SYND_REMOTE_ACCESS;
	simdp_copy_to_buf(&old, &remote, sizeof(old));
	val = be64_to_cpu(w->atomic->swap_add);
	if (w->opcode == SIM_MLX5_OPCODE_ATOMIC_FA)
		val += old;
	else if (old != be64_to_cpu(w->atomic->compare))
		val = old;
	simdp_copy_from_buf(&remote, 1, &val, sizeof(val));
	simdp_copy_from_buf(sim_mlx5_lsegs, w->nsegs, &old, sizeof(old));
	return SIM_MLX5_SYND_OK;
}

/* Carry out the parsed WQE @w; a syndrome, or -EAGAIN */
static int sim_mlx5_execute(struct sim_mlx5_hqp *qp,
			    const struct sim_mlx5_wqe *w)
{
	struct simdp_seg remote;
	struct sim_mlx5_hqp *dqp;
	u32 dqpn = qp->dest_qpn;
	int access;

	if (qp->type == IB_QPT_UD)
		dqpn = be32_to_cpu(w->av->dqp_dct) & SIM_MLX5_CI_MASK;
	dqp = xa_load(&qp->sdev->mlx5_qps, dqpn);
	if (!dqp || dqp->type != qp->type ||
	    (dqp->state != IB_QPS_RTR && dqp->state != IB_QPS_RTS) ||
	    (qp->type == IB_QPT_UD &&
	     be32_to_cpu(w->av->qkey) != dqp->qkey)) {
		if (qp->type == IB_QPT_RC)
			return sim_mlx5_unacked(qp);
		/* Nobody takes it: lost on the wire */
		atomic_long_inc(&sim_mlx5_ud_dropped);
		return SIM_MLX5_SYND_OK;
	}
	qp->ack_deadline = 0;
	if (w->opcode == SIM_MLX5_OPCODE_SEND ||
	    w->opcode == SIM_MLX5_OPCODE_SEND_IMM)
		return sim_mlx5_deliver(qp, dqp, w);
	access = w->atomic ? IB_ACCESS_REMOTE_ATOMIC :
		 w->opcode == SIM_MLX5_OPCODE_RDMA_READ ?
		 IB_ACCESS_REMOTE_READ : IB_ACCESS_REMOTE_WRITE;
	/*
	 * The responder's QP must take the operation, or it NAKs it as an
	 * invalid request (IBTA), before any MR is looked at
	 */
	if (!(dqp->access & access))
		return qp->type == IB_QPT_RC ? SIM_MLX5_SYND_REMOTE_INVAL_REQ :
					       SIM_MLX5_SYND_OK;
	if (w->atomic)
		return sim_mlx5_atomic(qp, dqp, w);
	/* WRITE with immediate needs a receive WQE: before any copy */
	if (w->opcode == SIM_MLX5_OPCODE_RDMA_WRITE_IMM &&
	    (!sim_mlx5_rq_posted(dqp) ||
	     !sim_mlx5_cq_room(dqp->rcq, dqp->rcq == qp->scq ? 2 : 1)))
		return qp->type == IB_QPT_RC ? -EAGAIN : SIM_MLX5_SYND_OK;
	if (!simdp_seg_get(&qp->sdev->dp, dqp->pd, be32_to_cpu(w->raddr->rkey),
			   be64_to_cpu(w->raddr->raddr), w->len, access,
			   &remote))
		return qp->type == IB_QPT_RC ? SIM_MLX5_SYND_REMOTE_ACCESS :
					       SIM_MLX5_SYND_OK;
	if (w->opcode == SIM_MLX5_OPCODE_RDMA_READ) {
		simdp_copy(sim_mlx5_lsegs, w->nsegs, &remote, 1, w->len);
		return SIM_MLX5_SYND_OK;
	}
	sim_mlx5_put(&remote, 1, w);
	if (w->opcode == SIM_MLX5_OPCODE_RDMA_WRITE_IMM)
		return sim_mlx5_deliver(qp, dqp, w);
	return SIM_MLX5_SYND_OK;
}

/* The size of the WQE at @qp's send consumer index, in basic blocks; 0 if
 * its control segment is not one libmlx5 writes
 */
static u32 sim_mlx5_wqe_size(struct sim_mlx5_hqp *qp, u32 *bytes)
{
	const struct sim_mlx5_ctrl_seg *ctrl = (void *)(qp->sq +
		(qp->sq_ci & (qp->sq_cnt - 1)) * SIM_MLX5_SEND_WQE_BB);
	u32 ds = be32_to_cpu(READ_ONCE(ctrl->qpn_ds)) & 0x3f;

	*bytes = ds * 16;
	if (!ds || *bytes > SIM_MLX5_MAX_DESC_SZ)
		return 0;
	return DIV_ROUND_UP(*bytes, SIM_MLX5_SEND_WQE_BB);
}

/* Copy @nbb basic blocks from @qp's send consumer index, wrapping */
static void sim_mlx5_wqe_copy(struct sim_mlx5_hqp *qp, u32 nbb)
{
	u32 b;

	for (b = 0; b < nbb; b++)
		memcpy(sim_mlx5_wqe_buf + b * SIM_MLX5_SEND_WQE_BB,
		       qp->sq + ((qp->sq_ci + b) & (qp->sq_cnt - 1)) *
				SIM_MLX5_SEND_WQE_BB,
		       SIM_MLX5_SEND_WQE_BB);
}

/*
 * sim_mlx5_send_one - execute the WQE at @qp's send consumer index; @avail
 * basic blocks are posted.  Return: -EAGAIN to retry it later, else 0.
 */
static int sim_mlx5_send_one(struct sim_mlx5_hqp *qp, u16 avail)
{
	struct sim_mlx5_wqe w = {};
	u32 size, nbb;
	int synd;

	nbb = sim_mlx5_wqe_size(qp, &size);
	if (!nbb || nbb > avail) {
		/* Not a WQE: complete what the record names, in error */
		atomic_long_inc(&sim_mlx5_bad_wqes);
		sim_mlx5_req_cqe(qp, qp->sq_ci, 0, SIM_MLX5_SYND_LOCAL_QP_OP, 0);
		qp->sq_ci += avail;
		qp->state = IB_QPS_ERR;
		return 0;
	}
	sim_mlx5_wqe_copy(qp, nbb);
	synd = sim_mlx5_parse(qp, &w, size);
	if (synd == -EINVAL) {
		atomic_long_inc(&sim_mlx5_bad_wqes);
		synd = SIM_MLX5_SYND_LOCAL_QP_OP;
	}
	if (synd == SIM_MLX5_SYND_OK) {
		synd = sim_mlx5_execute(qp, &w);
		if (synd == -EAGAIN)
			return -EAGAIN;
	}
	if (synd != SIM_MLX5_SYND_OK ||
	    (w.flags & SIM_MLX5_WQE_CTRL_CQ_UPDATE))
		sim_mlx5_req_cqe(qp, qp->sq_ci, w.opcode, synd,
				 w.opcode == SIM_MLX5_OPCODE_RDMA_READ ||
				 w.atomic ? w.len : 0);
	if (synd != SIM_MLX5_SYND_OK)
		qp->state = IB_QPS_ERR;
	qp->sq_ci += nbb;
	atomic_long_inc(&sim_mlx5_wqes);
	return 0;
}

/* In the error state: a flush CQE for every outstanding WQE */
static bool sim_mlx5_flush(struct sim_mlx5_hqp *qp)
{
	int budget = SIM_MLX5_BUDGET;
	bool busy = false;
	u32 size, nbb;
	u16 posted;

	while (budget-- > 0 && sim_mlx5_cq_room(qp->scq, 1)) {
		posted = sim_mlx5_sq_posted(qp);
		if (!posted)
			break;
		nbb = sim_mlx5_wqe_size(qp, &size);
		if (!nbb || nbb > posted)
			nbb = posted;
		sim_mlx5_req_cqe(qp, qp->sq_ci, 0, SIM_MLX5_SYND_WR_FLUSH, 0);
		qp->sq_ci += nbb;
		busy = true;
	}
	/* An SRQ's WQEs are the SRQ's: they stay posted */
	while (!qp->srq && qp->rq_cnt && budget-- > 0 &&
	       sim_mlx5_cq_room(qp->rcq, 1)) {
		if (!sim_mlx5_rq_posted(qp))
			break;
		sim_mlx5_resp_cqe(qp, 0, SIM_MLX5_SYND_WR_FLUSH, 0, 0, 0, true);
		busy = true;
	}
	return busy;
}

/* Execute up to SIM_MLX5_BUDGET WQEs of a QP's send queue */
static bool sim_mlx5_hqp_poll(struct simdp_poller *p)
{
	struct sim_mlx5_hqp *qp = container_of(p, struct sim_mlx5_hqp, poller);
	int budget = SIM_MLX5_BUDGET;
	bool busy = false;
	u16 posted;

	if (qp->state == IB_QPS_ERR)
		return sim_mlx5_flush(qp);
	if (qp->state != IB_QPS_RTS || !qp->sq_cnt)
		return false;
	while (budget-- > 0 && qp->state == IB_QPS_RTS) {
		posted = sim_mlx5_sq_posted(qp);
		if (!posted || !sim_mlx5_cq_room(qp->scq, 1))
			break;
		if (sim_mlx5_send_one(qp, posted))
			break;
		busy = true;
	}
	return busy;
}

/**
 * sim_mlx5_hqp_start() - hand a new QP to the hardware, in RESET
 * @qp: filled in by the caller
 *
 * Return: 0, or -EBUSY if its number is taken.
 */
int sim_mlx5_hqp_start(struct sim_mlx5_hqp *qp)
{
	int ret;

	qp->state = IB_QPS_RESET;
	qp->poller.poll = sim_mlx5_hqp_poll;
	simdp_hw_lock();
	ret = xa_insert(&qp->sdev->mlx5_qps, qp->qpn, qp, GFP_KERNEL);
	if (!ret)
		simdp_poller_add(&qp->poller);
	simdp_hw_unlock();
	return ret;
}

/**
 * sim_mlx5_hqp_stop() - take a QP out of the hardware; on return the
 *	thread no longer touches its memory
 * @qp: from sim_mlx5_hqp_start()
 */
void sim_mlx5_hqp_stop(struct sim_mlx5_hqp *qp)
{
	simdp_hw_lock();
	simdp_poller_del(&qp->poller);
	xa_erase(&qp->sdev->mlx5_qps, qp->qpn);
	simdp_hw_unlock();
}

/**
 * sim_mlx5_hqp_modify() - a QP's new state, after modify_qp
 * @qp: from sim_mlx5_hqp_start()
 * @state: the new state; RESET empties the queues, as libmlx5 then zeroes
 *	its indices and doorbell record
 * @dest_qpn: the peer's QP number (RC, UC)
 * @qkey: the Q_Key (UD)
 * @access: the IB_ACCESS_REMOTE_* operations the QP takes as a responder
 *	(RC, UC)
 * @ack_ms: how long an unacknowledged WQE is retransmitted (RC)
 */
void sim_mlx5_hqp_modify(struct sim_mlx5_hqp *qp, enum ib_qp_state state,
			 u32 dest_qpn, u32 qkey, int access,
			 unsigned int ack_ms)
{
	simdp_hw_lock();
	if (state == IB_QPS_RESET) {
		qp->sq_ci = 0;
		qp->rq_ci = 0;
	}
	qp->state = state;
	qp->dest_qpn = dest_qpn;
	qp->qkey = qkey;
	qp->access = access;
	qp->ack_ms = ack_ms;
	qp->ack_deadline = 0;
	simdp_hw_unlock();
}

/**
 * sim_mlx5_hsrq_new() - the hardware's view of a user SRQ
 * @ibsrq: the SRQ, whose event handler the limit event calls
 * @q: its WQE buffer and doorbell record
 * @max: WQEs, a power of two
 * @wqe_shift: log2 of a WQE's size
 *
 * Return: the object, or an ERR_PTR().
 */
struct sim_mlx5_hsrq *sim_mlx5_hsrq_new(struct ib_srq *ibsrq,
					const struct sim_mlx5_queue *q,
					u32 max, u32 wqe_shift)
{
	struct sim_mlx5_hsrq *srq;

	srq = kzalloc(sizeof(*srq), GFP_KERNEL);
	if (!srq)
		return ERR_PTR(-ENOMEM);
	srq->ibsrq = ibsrq;
	srq->buf = q->buf;
	srq->db = q->db;
	srq->pd = ibsrq->pd;
	srq->max = max;
	srq->wqe_shift = wqe_shift;
	atomic_long_inc(&sim_mlx5_srqs);
	return srq;
}

/**
 * sim_mlx5_hsrq_del() - forget an SRQ; no QP uses it any more, so the
 *	thread no longer reaches it.  The caller then puts its memory.
 * @srq: from sim_mlx5_hsrq_new()
 */
void sim_mlx5_hsrq_del(struct sim_mlx5_hsrq *srq)
{
	kfree(srq);
	atomic_long_dec(&sim_mlx5_srqs);
}

/**
 * sim_mlx5_hsrq_arm() - arm an SRQ's limit event (modify_srq)
 * @srq: from sim_mlx5_hsrq_new()
 * @limit: the event fires once fewer WQEs than this remain; 0 disarms
 */
void sim_mlx5_hsrq_arm(struct sim_mlx5_hsrq *srq, u32 limit)
{
	simdp_hw_lock();
	srq->limit = limit;
	simdp_hw_unlock();
}

/**
 * sim_mlx5_hsrq_limit() - an SRQ's armed limit (query_srq)
 * @srq: from sim_mlx5_hsrq_new()
 *
 * Return: the limit, 0 once the event fired.
 */
u32 sim_mlx5_hsrq_limit(struct sim_mlx5_hsrq *srq)
{
	u32 limit;

	simdp_hw_lock();
	limit = srq->limit;
	simdp_hw_unlock();
	return limit;
}

/**
 * sim_mlx5_wqe_debugfs_show() - the hardware's counters, for debugfs
 * @s: rdmasim/mlx5
 */
void sim_mlx5_wqe_debugfs_show(struct seq_file *s)
{
	seq_printf(s, "wqes %ld\n", atomic_long_read(&sim_mlx5_wqes));
	seq_printf(s, "bad_wqes %ld\n", atomic_long_read(&sim_mlx5_bad_wqes));
	seq_printf(s, "err_cqes %ld\n", atomic_long_read(&sim_mlx5_err_cqes));
	seq_printf(s, "flush_cqes %ld\n",
		   atomic_long_read(&sim_mlx5_flush_cqes));
	seq_printf(s, "events %ld\n", atomic_long_read(&sim_mlx5_events));
	seq_printf(s, "ud_dropped %ld\n",
		   atomic_long_read(&sim_mlx5_ud_dropped));
	seq_printf(s, "srqs %ld\n", atomic_long_read(&sim_mlx5_srqs));
	seq_printf(s, "srq_limit_events %ld\n",
		   atomic_long_read(&sim_mlx5_srq_limit_events));
}
