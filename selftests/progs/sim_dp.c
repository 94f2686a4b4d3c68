// SPDX-License-Identifier: GPL-2.0
/*
 * sim_dp - rdmasim's data path through the raw uverbs ABI and the mapped
 * rings alone (no rdma-core provider exists for rdmasim): two RC QPs of
 * one context, connected to each other, each with a registered buffer.
 *
 *   sim_dp IBDEV [-n N] [-z SIZE] [-m MARKER] [-s] [-b]
 *   sim_dp IBDEV -r send|write [-n N] [-z SIZE]
 *   sim_dp IBDEV -k
 *
 * Check mode (default): N SENDs, N RDMA WRITEs and N RDMA READs of SIZE
 * bytes (default 64 and 4096), each payload verified, all in one data
 * phase made of loads and stores on the mapped rings.  With -m, the line
 * "sim_dp data begin" is written to MARKER (tracefs's trace_marker) right
 * before the data phase and "sim_dp data end" right after, so that a test
 * can count what happens in between.  -s makes one system call inside the
 * data phase (a QUERY_PORT command: through a vdevice, a call into vrdma
 * too), to show that such a count can fail.  -b then
 * posts bad work requests (bad lkey, rkey out of bounds, no remote access,
 * bad opcode, too many SGEs, a doorbell beyond the ring) and expects an
 * error completion for each (none for the doorbell), re-arming the QP
 * between them.
 *
 * Rate mode (-r): N messages of SIZE bytes, unsignaled but every
 * sixteenth, and prints "rate OP SIZE N SECONDS MSGS_PER_SEC" (CLOCK_MONOTONIC).
 * -k: post 64 KiB RDMA WRITEs forever after printing "busy" (kill -9
 * with the device's thread busy).
 *
 * Prints "CHECK ok [detail]" or "CHECK err ERRNO_NAME [detail]" lines;
 * exit status 0 if every check passed.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

#include <rdma/ib_user_ioctl_verbs.h>

#include "sim_uverbs.h"

#define DEPTH	16		/* work requests per queue */
/*
 * Empty CQ polls between two looks at the clock, and how long without a
 * completion is a failure: the clock is read only when the device has
 * been silent for a long time, so a healthy data phase makes no call
 * (clock_gettime is a system call where the clocksource has no vDSO).
 */
#define STALL_POLLS	(1U << 26)
#define STALL_SECONDS	30
#define GID_MAX	32

/* enum ib_qp_attr_mask's bits, which no uapi header has */
enum {
	QP_STATE = 1 << 0,
	QP_ACCESS_FLAGS = 1 << 3,
	QP_PKEY_INDEX = 1 << 4,
	QP_PORT = 1 << 5,
	QP_AV = 1 << 7,
	QP_PATH_MTU = 1 << 8,
	QP_TIMEOUT = 1 << 9,
	QP_RETRY_CNT = 1 << 10,
	QP_RNR_RETRY = 1 << 11,
	QP_RQ_PSN = 1 << 12,
	QP_MAX_QP_RD_ATOMIC = 1 << 13,
	QP_MIN_RNR_TIMER = 1 << 15,
	QP_SQ_PSN = 1 << 16,
	QP_MAX_DEST_RD_ATOMIC = 1 << 17,
	QP_DEST_QPN = 1 << 20,
};

struct wq {
	uint8_t *ring;
	uint32_t n;		/* entries */
	uint32_t pi;		/* posted */
	struct rdmasim_wq_db *db;
};

struct cq {
	uint8_t *ring;
	uint32_t n;
	uint32_t ci;		/* consumed */
	struct rdmasim_cq_db *db;
};

struct qp {
	uint32_t handle, qpn;
	struct wq sq, rq;
	size_t sq_len, rq_len;
	uint8_t *buf;		/* DEPTH slots to send from, DEPTH to land in */
	size_t buf_len;
	uint32_t mr_handle, lkey, rkey;
};

struct ctx {
	int fd;
	uint32_t pd_handle, cq_handle, uar_handle;
	struct cq cq;
	size_t cq_len;
	struct qp a, b;
	uint32_t ro_handle, ro_rkey;	/* b's buffer, local access only */
	uint32_t size;
	uint8_t gid[16];
	int gid_index;
};

static uint8_t pattern(uint32_t i, uint32_t j)
{
	return (uint8_t)(i * 7 + j * 13 + 1);
}

static void fill(uint8_t *p, uint32_t i, uint32_t size)
{
	for (uint32_t j = 0; j < size; j++)
		p[j] = pattern(i, j);
}

static bool same(const uint8_t *p, uint32_t i, uint32_t size)
{
	for (uint32_t j = 0; j < size; j++)
		if (p[j] != pattern(i, j))
			return false;
	return true;
}

/* --- the rings: loads and stores only ----------------------------------- */

static uint32_t wq_room(struct wq *wq)
{
	return wq->n - (wq->pi - __atomic_load_n(&wq->db->ci, __ATOMIC_ACQUIRE));
}

static void wq_post(struct wq *wq, const struct rdmasim_wqe *wqe)
{
	memcpy(wq->ring + (wq->pi & (wq->n - 1)) * sizeof(*wqe), wqe,
	       sizeof(*wqe));
	wq->pi++;
	/* The WQE before the doorbell record that publishes it */
	__atomic_store_n(&wq->db->pi, wq->pi, __ATOMIC_RELEASE);
}

static bool cq_poll(struct cq *cq, struct rdmasim_cqe *out)
{
	struct rdmasim_cqe *cqe = (struct rdmasim_cqe *)cq->ring +
				  (cq->ci & (cq->n - 1));

	if (__atomic_load_n(&cqe->gen, __ATOMIC_ACQUIRE) != cq->ci / cq->n + 1)
		return false;
	*out = *cqe;
	cq->ci++;
	__atomic_store_n(&cq->db->ci, cq->ci, __ATOMIC_RELEASE);
	return true;
}

static struct rdmasim_wqe wqe_make(uint8_t opcode, uint64_t wr_id,
				   uint64_t addr, uint32_t len, uint32_t lkey)
{
	struct rdmasim_wqe w = {
		.wr_id = wr_id,
		.opcode = opcode,
		.flags = RDMASIM_WQE_SIGNALED,
		.num_sge = 1,
	};

	w.sge[0].addr = addr;
	w.sge[0].length = len;
	w.sge[0].lkey = lkey;
	return w;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/*
 * One data phase of N operations OP from a to b, at most DEPTH in flight.
 * Verifies each payload when @verify; with @every > 1 only every @every-th
 * send WQE is signaled (the rest complete silently, as on hardware).
 * Returns 0 or an error number, and a detail in @why.
 */
static int run(struct ctx *c, uint8_t op, uint32_t n, bool verify,
	       uint32_t every, char *why, size_t why_len)
{
	struct qp *a = &c->a, *b = &c->b;
	uint32_t size = c->size, posted = 0, done = 0, rposted = 0, rdone = 0;
	struct rdmasim_cqe cqe;
	uint32_t idle = 0;
	double stall = 0;

	while (done < n || (op == RDMASIM_OP_SEND && rdone < n)) {
		while (op == RDMASIM_OP_SEND && rposted < n &&
		       rposted - rdone < DEPTH && wq_room(&b->rq)) {
			uint32_t slot = rposted % DEPTH;
			struct rdmasim_wqe w = wqe_make(0, rposted,
				(uintptr_t)b->buf + (DEPTH + slot) * size,
				size, b->lkey);

			wq_post(&b->rq, &w);
			rposted++;
		}
		while (posted < n && posted - done < DEPTH &&
		       wq_room(&a->sq)) {
			uint32_t slot = posted % DEPTH;
			uint8_t *src = a->buf + slot * size;
			struct rdmasim_wqe w;

			if (op == RDMASIM_OP_RDMA_READ) {
				if (verify)
					fill(b->buf + slot * size, posted, size);
				w = wqe_make(op, posted,
					     (uintptr_t)a->buf + (DEPTH + slot) * size,
					     size, a->lkey);
				w.remote_addr = (uintptr_t)b->buf + slot * size;
			} else {
				if (verify)
					fill(src, posted, size);
				w = wqe_make(op, posted, (uintptr_t)src, size,
					     a->lkey);
				w.remote_addr = (uintptr_t)b->buf +
						(DEPTH + slot) * size;
			}
			w.rkey = b->rkey;
			if (every > 1 && (posted + 1) % every && posted + 1 != n)
				w.flags = 0;
			wq_post(&a->sq, &w);
			posted++;
		}
		if (!cq_poll(&c->cq, &cqe)) {
			if (++idle < STALL_POLLS)
				continue;
			idle = 0;
			if (!stall) {
				stall = now();
			} else if (now() - stall > STALL_SECONDS) {
				snprintf(why, why_len,
					 "no completion for %d s (%u of %u done)",
					 STALL_SECONDS, done, n);
				return ETIMEDOUT;
			}
			continue;
		}
		idle = 0;
		stall = 0;
		if (cqe.status != RDMASIM_WC_SUCCESS) {
			snprintf(why, why_len, "wr %llu qpn %u status %u",
				 (unsigned long long)cqe.wr_id, cqe.qpn,
				 cqe.status);
			return EIO;
		}
		if (cqe.opcode == RDMASIM_OP_RECV) {
			uint32_t slot = cqe.wr_id % DEPTH;

			if (cqe.byte_len != size ||
			    (verify && !same(b->buf + (DEPTH + slot) * size,
					     cqe.wr_id, size))) {
				snprintf(why, why_len,
					 "recv %llu: %u bytes, payload wrong",
					 (unsigned long long)cqe.wr_id,
					 cqe.byte_len);
				return EBADMSG;
			}
			rdone++;
			continue;
		}
		if (cqe.opcode != op || cqe.qpn != a->qpn) {
			snprintf(why, why_len, "opcode %u qpn %u", cqe.opcode,
				 cqe.qpn);
			return EBADMSG;
		}
		if (verify) {
			uint32_t slot = cqe.wr_id % DEPTH;
			const uint8_t *dst = op == RDMASIM_OP_RDMA_READ ?
				a->buf + (DEPTH + slot) * size :
				b->buf + (DEPTH + slot) * size;

			if (op != RDMASIM_OP_SEND && !same(dst, cqe.wr_id, size)) {
				snprintf(why, why_len, "wr %llu payload wrong",
					 (unsigned long long)cqe.wr_id);
				return EBADMSG;
			}
		}
		/* The unsignaled WQEs before it completed with it */
		done = cqe.wr_id + 1;
	}
	return 0;
}

/* --- control path: system calls ------------------------------------------ */

static int modify(struct ctx *c, struct qp *q, uint8_t state, uint32_t dest)
{
	struct ib_uverbs_modify_qp m = {
		.qp_handle = q->handle,
		.qp_state = state,
	};

	switch (state) {
	case 1:	/* INIT */
		m.attr_mask = QP_STATE | QP_PKEY_INDEX | QP_ACCESS_FLAGS |
			      QP_PORT;
		m.port_num = 1;
		m.qp_access_flags = IB_UVERBS_ACCESS_REMOTE_WRITE |
				    IB_UVERBS_ACCESS_REMOTE_READ;
		break;
	case 2:	/* RTR */
		m.attr_mask = QP_STATE | QP_AV | QP_PATH_MTU | QP_DEST_QPN |
			      QP_RQ_PSN | QP_MAX_DEST_RD_ATOMIC |
			      QP_MIN_RNR_TIMER;
		m.dest.is_global = 1;
		m.dest.port_num = 1;
		m.dest.hop_limit = 64;
		m.dest.sgid_index = c->gid_index;
		memcpy(m.dest.dgid, c->gid, 16);
		m.path_mtu = 3;	/* 1024 */
		m.dest_qp_num = dest;
		m.max_dest_rd_atomic = 1;
		m.min_rnr_timer = 1;
		break;
	case 3:	/* RTS */
		m.attr_mask = QP_STATE | QP_TIMEOUT | QP_RETRY_CNT |
			      QP_RNR_RETRY | QP_SQ_PSN | QP_MAX_QP_RD_ATOMIC;
		m.timeout = 14;
		m.retry_cnt = 7;
		m.rnr_retry = 7;
		m.max_rd_atomic = 1;
		break;
	default:	/* RESET */
		m.attr_mask = QP_STATE;
		break;
	}
	return write_cmd(c->fd, IB_USER_VERBS_CMD_MODIFY_QP, &m, sizeof(m),
			 NULL, 0, NULL, 0, NULL, 0);
}

static int connect_qp(struct ctx *c, struct qp *q, uint32_t dest)
{
	return modify(c, q, 0, 0) ?: modify(c, q, 1, 0) ?:
	       modify(c, q, 2, dest) ?: modify(c, q, 3, 0);
}

static int reg_mr(struct ctx *c, void *p, size_t len, uint32_t access,
		  uint32_t *handle, uint32_t *lkey, uint32_t *rkey)
{
	struct ib_uverbs_reg_mr r = {
		.start = (uintptr_t)p,
		.length = len,
		.hca_va = (uintptr_t)p,
		.pd_handle = c->pd_handle,
		.access_flags = access,
	};
	struct ib_uverbs_reg_mr_resp rr = {};
	int err;

	err = write_cmd(c->fd, IB_USER_VERBS_CMD_REG_MR, &r, sizeof(r), NULL, 0,
			&rr, sizeof(rr), NULL, 0);
	*handle = rr.mr_handle;
	*lkey = rr.lkey;
	if (rkey)
		*rkey = rr.rkey;
	return err;
}

/* The first non-zero GID of port 1, from sysfs; its index in c->gid_index */
static int pick_gid(struct ctx *c, const char *ibdev)
{
	char path[256], line[64];
	unsigned int w[8];

	for (int i = 0; i < GID_MAX; i++) {
		FILE *f;
		bool zero = true;

		snprintf(path, sizeof(path),
			 "/sys/class/infiniband/%s/ports/1/gids/%d", ibdev, i);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (!fgets(line, sizeof(line), f) ||
		    sscanf(line, "%x:%x:%x:%x:%x:%x:%x:%x", &w[0], &w[1], &w[2],
			   &w[3], &w[4], &w[5], &w[6], &w[7]) != 8) {
			fclose(f);
			continue;
		}
		fclose(f);
		for (int k = 0; k < 8; k++) {
			c->gid[2 * k] = w[k] >> 8;
			c->gid[2 * k + 1] = w[k] & 0xff;
			zero &= !w[k];
		}
		if (!zero) {
			c->gid_index = i;
			return 0;
		}
	}
	return ENOENT;
}

static int create_qp(struct ctx *c, uint32_t page_id, struct qp *q)
{
	struct ib_uverbs_create_qp cq = {
		.pd_handle = c->pd_handle,
		.send_cq_handle = c->cq_handle,
		.recv_cq_handle = c->cq_handle,
		.max_send_wr = DEPTH,
		.max_recv_wr = DEPTH,
		.max_send_sge = RDMASIM_WQE_MAX_SGE,
		.max_recv_sge = RDMASIM_WQE_MAX_SGE,
		.qp_type = 2,	/* IB_QPT_RC */
	};
	struct ib_uverbs_create_qp_resp r = {};
	struct rdmasim_create_qp s = { .uar_page_id = page_id };
	struct rdmasim_create_qp_resp sr = {};
	int err;

	err = write_cmd(c->fd, IB_USER_VERBS_CMD_CREATE_QP, &cq, sizeof(cq),
			&s, sizeof(s), &r, sizeof(r), &sr, sizeof(sr));
	if (err)
		return err;
	q->handle = r.qp_handle;
	q->qpn = r.qpn;
	q->sq_len = sr.sq_length;
	q->rq_len = sr.rq_length;
	q->sq.n = r.max_send_wr;
	q->rq.n = r.max_recv_wr;
	if (sr.wqe_size != sizeof(struct rdmasim_wqe) ||
	    (q->sq.n + 1) * sr.wqe_size > sr.sq_length ||
	    (q->rq.n + 1) * sr.wqe_size > sr.rq_length)
		return EPROTO;
	q->sq.ring = map(c->fd, sr.sq_mmap_offset, sr.sq_length);
	q->rq.ring = map(c->fd, sr.rq_mmap_offset, sr.rq_length);
	if (!q->sq.ring || !q->rq.ring)
		return errno;
	q->sq.db = (void *)(q->sq.ring + q->sq.n * sr.wqe_size);
	q->rq.db = (void *)(q->rq.ring + q->rq.n * sr.wqe_size);
	return 0;
}

static int setup(struct ctx *c, const char *ibdev)
{
	struct ib_uverbs_get_context gc = {};
	struct ib_uverbs_get_context_resp gcr;
	struct ib_uverbs_alloc_pd apd = {};
	struct ib_uverbs_alloc_pd_resp apdr = {};
	struct rdmasim_alloc_pd_resp sapdr;
	struct ib_uverbs_create_cq ccq = { .cqe = 4 * DEPTH, .comp_channel = -1 };
	struct ib_uverbs_create_cq_resp ccqr = {};
	struct rdmasim_create_cq sccq = {};
	struct rdmasim_create_cq_resp sccqr = {};
	uint32_t page_id = 0, full;
	struct sim_uar u;
	int err;

	c->fd = open_uverbs(ibdev);
	report("open", c->fd < 0 ? (errno ?: ENODEV) : 0, "%s", ibdev);
	if (c->fd < 0)
		return 1;
	err = pick_gid(c, ibdev);
	report("gid", err, "index %d", c->gid_index);
	if (err)
		return 1;
	err = write_cmd(c->fd, IB_USER_VERBS_CMD_GET_CONTEXT, &gc, sizeof(gc),
			NULL, 0, &gcr, sizeof(gcr), NULL, 0);
	report("get_context", err, NULL);
	if (err)
		return 1;
	err = write_cmd(c->fd, IB_USER_VERBS_CMD_ALLOC_PD, &apd, sizeof(apd),
			NULL, 0, &apdr, sizeof(apdr), &sapdr, sizeof(sapdr));
	c->pd_handle = apdr.pd_handle;
	report("alloc_pd", err, NULL);
	if (err)
		return 1;
	err = uar_alloc(c->fd, &u);
	page_id = u.page_id;
	c->uar_handle = u.handle;
	report("uar_alloc", err, "page %u", page_id);
	if (err)
		return 1;
	sccq.uar_page_id = page_id;
	err = write_cmd(c->fd, IB_USER_VERBS_CMD_CREATE_CQ, &ccq, sizeof(ccq),
			&sccq, sizeof(sccq), &ccqr, sizeof(ccqr), &sccqr,
			sizeof(sccqr));
	c->cq_handle = ccqr.cq_handle;
	if (!err && (sccqr.cqe_size != sizeof(struct rdmasim_cqe) ||
		     (sccqr.nr_cqe + 1) * sccqr.cqe_size > sccqr.ring_length))
		err = EPROTO;
	if (!err) {
		c->cq_len = sccqr.ring_length;
		c->cq.n = sccqr.nr_cqe;
		c->cq.ring = map(c->fd, sccqr.ring_mmap_offset, c->cq_len);
		if (!c->cq.ring)
			err = errno;
		else
			c->cq.db = (void *)(c->cq.ring +
					    c->cq.n * sccqr.cqe_size);
	}
	report("create_cq", err, "cqn %u entries %u", sccqr.cqn, sccqr.nr_cqe);
	if (err)
		return 1;
	err = create_qp(c, page_id, &c->a) ?: create_qp(c, page_id, &c->b);
	report("create_qps", err, "qpn %u %u", c->a.qpn, c->b.qpn);
	if (err)
		return 1;
	full = IB_UVERBS_ACCESS_LOCAL_WRITE | IB_UVERBS_ACCESS_REMOTE_WRITE |
	       IB_UVERBS_ACCESS_REMOTE_READ;
	for (struct qp *q = &c->a; q <= &c->b; q++) {
		q->buf_len = 2 * DEPTH * (size_t)c->size;
		q->buf = mmap(NULL, q->buf_len, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (q->buf == MAP_FAILED) {
			report("buffers", errno, NULL);
			return 1;
		}
		err = reg_mr(c, q->buf, q->buf_len, full, &q->mr_handle,
			     &q->lkey, &q->rkey);
		if (err)
			break;
	}
	if (!err) {
		uint32_t lkey;

		err = reg_mr(c, c->b.buf, c->b.buf_len,
			     IB_UVERBS_ACCESS_LOCAL_WRITE, &c->ro_handle,
			     &lkey, &c->ro_rkey);
	}
	report("reg_mr", err, "lkey 0x%x 0x%x", c->a.lkey, c->b.lkey);
	if (err)
		return 1;
	err = connect_qp(c, &c->a, c->b.qpn) ?: connect_qp(c, &c->b, c->a.qpn);
	report("connect", err, NULL);
	return err ? 1 : 0;
}

static void teardown(struct ctx *c)
{
	struct ib_uverbs_destroy_qp dq = {};
	struct ib_uverbs_destroy_qp_resp dqr;
	struct ib_uverbs_destroy_cq dc = { .cq_handle = c->cq_handle };
	struct ib_uverbs_destroy_cq_resp dcr;
	struct ib_uverbs_dereg_mr dm = {};
	struct ib_uverbs_dealloc_pd dp = { .pd_handle = c->pd_handle };
	struct ioctl_buf b;
	int err = 0;

	for (struct qp *q = &c->a; q <= &c->b; q++) {
		dq.qp_handle = q->handle;
		err = err ?: write_cmd(c->fd, IB_USER_VERBS_CMD_DESTROY_QP, &dq,
				       sizeof(dq), NULL, 0, &dqr, sizeof(dqr),
				       NULL, 0);
		dm.mr_handle = q->mr_handle;
		err = err ?: write_cmd(c->fd, IB_USER_VERBS_CMD_DEREG_MR, &dm,
				       sizeof(dm), NULL, 0, NULL, 0, NULL, 0);
	}
	dm.mr_handle = c->ro_handle;
	err = err ?: write_cmd(c->fd, IB_USER_VERBS_CMD_DEREG_MR, &dm,
			       sizeof(dm), NULL, 0, NULL, 0, NULL, 0);
	err = err ?: write_cmd(c->fd, IB_USER_VERBS_CMD_DESTROY_CQ, &dc,
			       sizeof(dc), NULL, 0, &dcr, sizeof(dcr), NULL, 0);
	ioctl_init(&b, RDMASIM_OBJECT_UAR, RDMASIM_METHOD_UAR_DESTROY);
	ioctl_attr(&b, RDMASIM_ATTR_UAR_DESTROY_HANDLE, 0, c->uar_handle);
	err = err ?: ioctl_cmd(c->fd, &b);
	err = err ?: write_cmd(c->fd, IB_USER_VERBS_CMD_DEALLOC_PD, &dp,
			       sizeof(dp), NULL, 0, NULL, 0, NULL, 0);
	report("teardown", err, NULL);
	close(c->fd);
}

/* Post one bad WQE on a and expect one CQE with @status; then re-arm a */
static void bad_one(struct ctx *c, const char *name, struct rdmasim_wqe *w,
		    uint8_t status)
{
	struct rdmasim_cqe cqe = {};
	struct timespec t0, t;
	int err = 0;
	bool got = false;

	wq_post(&c->a.sq, w);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		got = cq_poll(&c->cq, &cqe);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (!got && t.tv_sec - t0.tv_sec < 10);
	if (!got)
		err = ETIMEDOUT;
	else if (cqe.status != status || cqe.wr_id != w->wr_id)
		err = EBADMSG;
	report(name, err, "status %u (want %u)", cqe.status, status);
	err = connect_qp(c, &c->a, c->b.qpn);
	if (err)
		report("rearm", err, NULL);
}

static void bad_wqes(struct ctx *c)
{
	uint64_t b_end = (uintptr_t)c->b.buf + c->b.buf_len;
	struct rdmasim_wqe w;

	w = wqe_make(RDMASIM_OP_RDMA_WRITE, 1001, (uintptr_t)c->a.buf, 8,
		     c->a.lkey + 0x100000);
	w.remote_addr = (uintptr_t)c->b.buf;
	w.rkey = c->b.rkey;
	bad_one(c, "bad_lkey", &w, RDMASIM_WC_LOC_PROT_ERR);

	w = wqe_make(RDMASIM_OP_RDMA_WRITE, 1002, (uintptr_t)c->a.buf, 8,
		     c->a.lkey);
	w.remote_addr = b_end - 4;
	w.rkey = c->b.rkey;
	bad_one(c, "rkey_out_of_bounds", &w, RDMASIM_WC_REM_ACCESS_ERR);

	w.wr_id = 1003;
	w.remote_addr = (uintptr_t)c->b.buf;
	w.rkey = c->ro_rkey;
	bad_one(c, "rkey_no_remote_write", &w, RDMASIM_WC_REM_ACCESS_ERR);

	w.wr_id = 1004;
	w.opcode = RDMASIM_OP_RDMA_READ;
	bad_one(c, "rkey_no_remote_read", &w, RDMASIM_WC_REM_ACCESS_ERR);

	w = wqe_make(0x7f, 1005, (uintptr_t)c->a.buf, 8, c->a.lkey);
	bad_one(c, "bad_opcode", &w, RDMASIM_WC_BAD_WQE);

	w = wqe_make(RDMASIM_OP_RDMA_WRITE, 1006, (uintptr_t)c->a.buf, 8,
		     c->a.lkey);
	w.num_sge = 200;
	w.remote_addr = (uintptr_t)c->b.buf;
	w.rkey = c->b.rkey;
	bad_one(c, "too_many_sges", &w, RDMASIM_WC_BAD_WQE);

	/*
	 * Garbage in the doorbell: the QP goes to error, the device skips to
	 * it and completes nothing.  Wait for that, or the next WQE would be
	 * skipped with the bogus ones.
	 */
	c->a.sq.pi += 1000;
	__atomic_store_n(&c->a.sq.db->pi, c->a.sq.pi, __ATOMIC_RELEASE);
	for (double t0 = now(); wq_room(&c->a.sq) != c->a.sq.n &&
	     now() - t0 < 10;)
		;
	w = wqe_make(RDMASIM_OP_RDMA_WRITE, 1007, (uintptr_t)c->a.buf, 8,
		     c->a.lkey);
	w.remote_addr = (uintptr_t)c->b.buf;
	w.rkey = c->b.rkey;
	/* The next WQE is flushed: the thread dropped the bogus ones */
	bad_one(c, "bad_doorbell", &w, RDMASIM_WC_WR_FLUSH_ERR);
}

/*
 * One system call that reaches the device's verbs: through a vdevice, a
 * call into vrdma too (for -s, to show that the counts can fail)
 */
static void query_port(struct ctx *c)
{
	struct ib_uverbs_query_port q = { .port_num = 1 };
	struct ib_uverbs_query_port_resp r;

	if (write_cmd(c->fd, IB_USER_VERBS_CMD_QUERY_PORT, &q, sizeof(q), NULL,
		      0, &r, sizeof(r), NULL, 0))
		failed = 1;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		uint8_t op;
	} ops[] = {
		{ "send", RDMASIM_OP_SEND },
		{ "write", RDMASIM_OP_RDMA_WRITE },
		{ "read", RDMASIM_OP_RDMA_READ },
	};
	struct ctx c = { .fd = -1, .size = 4096 };
	const char *marker = NULL, *rate = NULL;
	bool syscall_in_data = false, bad = false, busy = false;
	uint32_t n = 64;
	char why[3][128] = {};
	int res[3] = {}, opt, mfd = -1;

	while ((opt = getopt(argc, argv, "n:z:m:sbr:k")) != -1) {
		switch (opt) {
		case 'n':
			n = strtoul(optarg, NULL, 0);
			break;
		case 'z':
			c.size = strtoul(optarg, NULL, 0);
			break;
		case 'm':
			marker = optarg;
			break;
		case 's':
			syscall_in_data = true;
			break;
		case 'b':
			bad = true;
			break;
		case 'r':
			rate = optarg;
			break;
		case 'k':
			busy = true;
			c.size = 65536;
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc - 1 || !n || !c.size || c.size > (1 << 20))
		goto usage;
	if (marker) {
		mfd = open(marker, O_WRONLY | O_CLOEXEC);
		report("marker", mfd < 0 ? errno : 0, "%s", marker);
		if (mfd < 0)
			return 1;
	}
	if (setup(&c, argv[optind]))
		return 1;

	if (busy) {
		printf("busy\n");
		fflush(stdout);
		for (;;)
			run(&c, RDMASIM_OP_RDMA_WRITE, 1 << 30, false, 16,
			    why[0], sizeof(why[0]));
	}
	if (rate) {
		uint8_t op = !strcmp(rate, "send") ? RDMASIM_OP_SEND :
			     !strcmp(rate, "write") ? RDMASIM_OP_RDMA_WRITE : 0;
		double t0, t1;
		int err;

		if (!op)
			goto usage;
		t0 = now();
		err = run(&c, op, n, false, 16, why[0], sizeof(why[0]));
		t1 = now();
		report("rate_run", err, "%s", why[0]);
		if (!err)
			printf("rate %s %u %u %.6f %.1f\n", rate, c.size, n,
			       t1 - t0, n / (t1 - t0));
		teardown(&c);
		return failed;
	}

	/* The data phase: loads and stores on mapped memory only */
	if (mfd >= 0 && write(mfd, "sim_dp data begin\n", 18) != 18)
		report("marker_write", errno, NULL);
	for (int i = 0; i < 3; i++) {
		res[i] = run(&c, ops[i].op, n, true, 1, why[i], sizeof(why[i]));
		if (syscall_in_data && !i)
			query_port(&c);
	}
	if (mfd >= 0 && write(mfd, "sim_dp data end\n", 16) != 16)
		report("marker_write", errno, NULL);

	for (int i = 0; i < 3; i++)
		report(ops[i].name, res[i], "%u x %u bytes %s", n, c.size,
		       res[i] ? why[i] : "payload verified");
	if (bad)
		bad_wqes(&c);
	teardown(&c);
	return failed;

usage:
	fprintf(stderr,
		"usage: %s IBDEV [-n N] [-z SIZE] [-m MARKER] [-s] [-b] | -r send|write | -k\n",
		argv[0]);
	return 2;
}
