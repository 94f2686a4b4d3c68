// SPDX-License-Identifier: GPL-2.0
/*
 * verbs_fuzz - random verbs sequences with malformed driver data, through
 * the uverbs write() ABI, against one RDMA device.
 *
 *	verbs_fuzz [-s SEED] [-n SEQUENCES] [-t SECONDS] [-r N] [-p] [-v] DEVICE
 *
 * Sequences run on a user context of DEVICE (libibverbs allocates it),
 * reopened every N sequences (-r, default 10; closing it destroys whatever
 * is left).  Each sequence issues 1..24 random commands on the context's command file with random
 * fields, handles taken from the objects the sequence created (or made
 * up), random driver input of random length and random response lengths;
 * half of them start with a well-formed PD, CQ, QP, AH, modify and post.
 * -p keeps to the QP types vrdma proxies (RC, UC, UD): a vdevice refuses
 * the others with EOPNOTSUPP where the parent has its own errors, so only
 * -p runs can be compared with the parent's.  Sequence i is
 * seeded with SEED and i alone, so two devices given the same arguments
 * see the same sequences as long as they answer alike.
 *
 * Output: one line per command kind, "CMD ok=N E1=N E2=N ..." (counts of
 * results, errno names as numbers), then "sequences=N commands=N".  Two
 * runs on devices that behave alike print the same tallies.  Exit status
 * 0, or 1 when DEVICE cannot be opened or the time limit cut the run
 * short.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>

#define MAX_OBJ		8
#define BUF_SIZE	(64 * 1024)
#define MR_SIZE		(1024 * 1024)
#define MAX_ERRNO	140

enum kind { NONE, PD, CQ, QP, AH, MR, NR_KIND };

static uint64_t rng;
static unsigned char resp[BUF_SIZE] __attribute__((aligned(8)));
static unsigned char req[BUF_SIZE] __attribute__((aligned(8)));
static unsigned char *mrbuf;
static uint32_t handles[NR_KIND][MAX_OBJ];
static unsigned int nr[NR_KIND];
static int verbose;
/* This command is well formed but for its values: exact sizes, no driver data */
static int good;
/* Only what vrdma proxies (RC, UC, UD QPs), for comparisons with a parent */
static int portable;
/* For a well-formed MODIFY_QP: 0 INIT, 1 RTR, 2 RTS; -1 picks one */
static int modify_step = -1;

static uint64_t rnd(void)
{
	/* xorshift64* */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ULL;
}

static uint32_t below(uint32_t n)
{
	return n ? (uint32_t)(rnd() % n) : 0;
}

static void fill_random(void *p, size_t len)
{
	unsigned char *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		b[i] = (unsigned char)rnd();
}

/* A handle of @k: mostly a live one, sometimes made up */
static uint32_t handle(enum kind k)
{
	if (nr[k] && (good || below(10) < 8))
		return handles[k][below(nr[k])];
	return below(4) ? below(16) : (uint32_t)rnd();
}

static void add_handle(enum kind k, uint32_t h)
{
	if (nr[k] < MAX_OBJ)
		handles[k][nr[k]++] = h;
}

static void drop_handle(enum kind k, uint32_t h)
{
	unsigned int i;

	for (i = 0; i < nr[k]; i++)
		if (handles[k][i] == h) {
			handles[k][i] = handles[k][--nr[k]];
			return;
		}
}

/* An IPv4-mapped GID of the guest's parent, or noise */
static void gid(uint8_t *g)
{
	static const uint8_t local[16] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 99, 0, 1
	};

	if (below(4))
		memcpy(g, local, 16);
	else
		fill_random(g, 16);
}

enum cmd_id {
	C_QUERY_DEVICE, C_QUERY_PORT, C_ALLOC_PD, C_DEALLOC_PD, C_CREATE_CQ,
	C_RESIZE_CQ, C_POLL_CQ, C_REQ_NOTIFY_CQ, C_DESTROY_CQ, C_CREATE_QP,
	C_MODIFY_QP, C_QUERY_QP, C_DESTROY_QP, C_CREATE_AH, C_DESTROY_AH,
	C_REG_MR, C_DEREG_MR, C_POST_SEND, C_POST_RECV, NR_CMD
};

/*
 * One row per command.  A command whose request names one object and
 * nothing else has that object's kind in @handle (its handle at
 * @handle_at); build() fills such a request without a case of its own.
 * What a success creates (@makes: the new handle leads the response) or
 * destroys (@destroys: the object of @handle) keeps handles[] current.
 */
static const struct {
	const char *name;
	uint32_t uverbs;
	size_t core_in;		/* core request size */
	size_t core_out;	/* core response size */
	int has_response;
	enum kind makes;
	enum kind handle;
	size_t handle_at;
	bool destroys;
} cmds[NR_CMD] = {
#define RESP(id, name, ...)						\
	[C_##id] = { #name, IB_USER_VERBS_CMD_##id,			\
		     sizeof(struct ib_uverbs_##name),			\
		     sizeof(struct ib_uverbs_##name##_resp), 1, __VA_ARGS__ }
#define NORESP(id, name, ...)						\
	[C_##id] = { #name, IB_USER_VERBS_CMD_##id,			\
		     sizeof(struct ib_uverbs_##name), 0, 0, __VA_ARGS__ }
#define HANDLE(name, field, k)	\
	.handle = k, .handle_at = offsetof(struct ib_uverbs_##name, field)
	RESP(QUERY_DEVICE, query_device),
	RESP(QUERY_PORT, query_port),
	RESP(ALLOC_PD, alloc_pd, .makes = PD),
	NORESP(DEALLOC_PD, dealloc_pd, HANDLE(dealloc_pd, pd_handle, PD),
	       .destroys = true),
	RESP(CREATE_CQ, create_cq, .makes = CQ),
	RESP(RESIZE_CQ, resize_cq),
	RESP(POLL_CQ, poll_cq),
	NORESP(REQ_NOTIFY_CQ, req_notify_cq,
	       HANDLE(req_notify_cq, cq_handle, CQ)),
	RESP(DESTROY_CQ, destroy_cq, HANDLE(destroy_cq, cq_handle, CQ),
	     .destroys = true),
	RESP(CREATE_QP, create_qp, .makes = QP),
	NORESP(MODIFY_QP, modify_qp),
	RESP(QUERY_QP, query_qp, HANDLE(query_qp, qp_handle, QP)),
	RESP(DESTROY_QP, destroy_qp, HANDLE(destroy_qp, qp_handle, QP),
	     .destroys = true),
	RESP(CREATE_AH, create_ah, .makes = AH),
	NORESP(DESTROY_AH, destroy_ah, HANDLE(destroy_ah, ah_handle, AH),
	       .destroys = true),
	RESP(REG_MR, reg_mr, .makes = MR),
	NORESP(DEREG_MR, dereg_mr, HANDLE(dereg_mr, mr_handle, MR),
	       .destroys = true),
	RESP(POST_SEND, post_send),
	RESP(POST_RECV, post_recv),
#undef HANDLE
#undef NORESP
#undef RESP
};

static unsigned long tally[NR_CMD][MAX_ERRNO + 1];

/* @n scatter entries in the MR's buffer, after a request's work requests */
static void fill_sges(struct ib_uverbs_sge *sge, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		sge[i].addr = (uintptr_t)mrbuf;
		sge[i].length = below(64);
		sge[i].lkey = (uint32_t)rnd();
	}
}

/* Fill the core request of @c; returns bytes of work requests appended */
static size_t build(enum cmd_id c, void *core)
{
	union {
		struct ib_uverbs_query_port *qport;
		struct ib_uverbs_create_cq *ccq;
		struct ib_uverbs_resize_cq *rcq;
		struct ib_uverbs_poll_cq *pcq;
		struct ib_uverbs_create_qp *cqp;
		struct ib_uverbs_modify_qp *mqp;
		struct ib_uverbs_create_ah *cah;
		struct ib_uverbs_reg_mr *rmr;
		struct ib_uverbs_post_send *ps;
		struct ib_uverbs_post_recv *pr;
		void *p;
	} u = { .p = core };
	struct ib_uverbs_send_wr *swr;
	struct ib_uverbs_recv_wr *rwr;
	uint32_t i, n;

	if (cmds[c].handle != NONE) {
		n = handle(cmds[c].handle);
		memcpy((char *)core + cmds[c].handle_at, &n, sizeof(n));
		return 0;
	}
	switch (c) {
	case C_QUERY_PORT:
		u.qport->port_num = below(4) ? 1 : (uint8_t)rnd();
		break;
	case C_CREATE_CQ:
		u.ccq->cqe = below(4) ? 1 + below(64) : (uint32_t)rnd();
		u.ccq->comp_vector = below(4) ? 0 : (uint32_t)rnd();
		u.ccq->comp_channel = below(4) ? -1 : (int32_t)below(64);
		if (good) {
			u.ccq->cqe = 1 + below(64);
			u.ccq->comp_vector = 0;
			u.ccq->comp_channel = -1;
		}
		break;
	case C_RESIZE_CQ:
		u.rcq->cq_handle = handle(CQ);
		u.rcq->cqe = below(4) ? 1 + below(128) : (uint32_t)rnd();
		break;
	case C_POLL_CQ:
		u.pcq->cq_handle = handle(CQ);
		u.pcq->ne = below(8) ? below(16) : (uint32_t)rnd();
		break;
	case C_CREATE_QP:
		u.cqp->pd_handle = handle(PD);
		u.cqp->send_cq_handle = handle(CQ);
		u.cqp->recv_cq_handle = below(4) ? u.cqp->send_cq_handle : handle(CQ);
		u.cqp->is_srq = !below(8);
		u.cqp->max_send_wr = below(4) ? 1 + below(16) : (uint32_t)rnd();
		u.cqp->max_recv_wr = below(4) ? 1 + below(16) : (uint32_t)rnd();
		u.cqp->max_send_sge = below(4) ? 1 + below(2) : (uint32_t)rnd();
		u.cqp->max_recv_sge = below(4) ? 1 + below(2) : (uint32_t)rnd();
		u.cqp->max_inline_data = below(2) ? 0 : below(512);
		u.cqp->qp_type = below(4) ? (below(2) ? IBV_QPT_UD : IBV_QPT_RC) :
					    (uint8_t)below(12);
		if (good) {
			u.cqp->srq_handle = 0;
			u.cqp->is_srq = 0;
			u.cqp->max_send_wr = 1 + below(16);
			u.cqp->max_recv_wr = 1 + below(16);
			u.cqp->max_send_sge = 1;
			u.cqp->max_recv_sge = 1;
			u.cqp->max_inline_data = 0;
			u.cqp->qp_type = below(2) ? IBV_QPT_UD : IBV_QPT_RC;
		}
		if (portable && (u.cqp->qp_type < IBV_QPT_RC ||
				 u.cqp->qp_type > IBV_QPT_UD))
			u.cqp->qp_type = IBV_QPT_RC + below(3);
		break;
	case C_MODIFY_QP:
		if (good)
			memset(u.mqp, 0, sizeof(*u.mqp));
		u.mqp->qp_handle = handle(QP);
		u.mqp->attr_mask = below(2) ? (uint32_t)rnd() & 0x1fffff :
				   (uint32_t)rnd();
		u.mqp->qp_state = below(8);
		if (good) {
			/* the UD path: INIT, RTR, RTS */
			static const uint32_t masks[] = {
				IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
					IBV_QP_QKEY,
				IBV_QP_STATE,
				IBV_QP_STATE | IBV_QP_SQ_PSN,
			};
			n = modify_step >= 0 ? (uint32_t)modify_step : below(3);
			u.mqp->attr_mask = masks[n];
			u.mqp->qp_state = IBV_QPS_INIT + n;
			u.mqp->pkey_index = 0;
		}
		u.mqp->cur_qp_state = below(8);
		u.mqp->port_num = below(4) ? 1 : (uint8_t)rnd();
		u.mqp->dest.port_num = u.mqp->port_num;
		u.mqp->dest.is_global = !!below(4);
		u.mqp->dest.sgid_index = below(4);
		gid(u.mqp->dest.dgid);
		u.mqp->alt_dest.sgid_index = below(4);
		break;
	case C_CREATE_AH:
		u.cah->pd_handle = handle(PD);
		u.cah->attr.is_global = !!below(8);
		u.cah->attr.port_num = below(4) ? 1 : (uint8_t)rnd();
		u.cah->attr.grh.sgid_index = below(4);
		gid(u.cah->attr.grh.dgid);
		if (good) {
			u.cah->attr.is_global = 1;
			u.cah->attr.port_num = 1;
			u.cah->attr.grh.sgid_index = 1;
			u.cah->attr.grh.hop_limit = 64;
		}
		break;
	case C_REG_MR:
		u.rmr->pd_handle = handle(PD);
		u.rmr->start = below(4) ? (uintptr_t)mrbuf + 4096 * below(16) :
					  rnd();
		u.rmr->length = below(4) ? 1 + below(MR_SIZE / 2) : rnd();
		u.rmr->hca_va = below(2) ? u.rmr->start : rnd();
		u.rmr->access_flags = below(2) ? below(16) : (uint32_t)rnd();
		if (good) {
			u.rmr->start = (uintptr_t)mrbuf;
			u.rmr->length = 4096 * (1 + below(16));
			u.rmr->hca_va = u.rmr->start;
			u.rmr->access_flags = IBV_ACCESS_LOCAL_WRITE;
		}
		break;
	case C_POST_SEND:
		/* UD requests name AHs: the path that rewrites them */
		n = good ? 1 + below(3) : below(4);
		u.ps->qp_handle = handle(QP);
		u.ps->wr_count = good || below(16) ? n : (uint32_t)rnd();
		u.ps->wqe_size = good || below(8) ? sizeof(*swr) : below(256);
		u.ps->sge_count = good || below(8) ? n : below(8);
		swr = (void *)(u.ps + 1);
		for (i = 0; i < n; i++) {
			memset(&swr[i], 0, sizeof(swr[i]));
			swr[i].num_sge = 1;
			swr[i].opcode = below(4) ? IB_UVERBS_WR_SEND : below(16);
			swr[i].wr.ud.ah = handle(AH);
			swr[i].wr.ud.remote_qpn = below(64);
		}
		fill_sges((void *)&swr[n], n);
		return n * (sizeof(*swr) + sizeof(struct ib_uverbs_sge));
	case C_POST_RECV:
		n = below(4);
		u.pr->qp_handle = handle(QP);
		u.pr->wr_count = below(16) ? n : (uint32_t)rnd();
		u.pr->wqe_size = below(8) ? sizeof(*rwr) : below(64);
		u.pr->sge_count = n;
		rwr = (void *)(u.pr + 1);
		for (i = 0; i < n; i++) {
			memset(&rwr[i], 0, sizeof(rwr[i]));
			rwr[i].num_sge = 1;
		}
		fill_sges((void *)&rwr[n], n);
		return n * (sizeof(*rwr) + sizeof(struct ib_uverbs_sge));
	default:
		break;
	}
	return 0;
}

static void record(enum cmd_id c, int err)
{
	tally[c][err > MAX_ERRNO ? MAX_ERRNO : err]++;
}

/* Remember what a successful command created or destroyed */
static void track(enum cmd_id c, const void *core)
{
	uint32_t h;

	if (cmds[c].makes != NONE) {
		memcpy(&h, resp, sizeof(h));
		add_handle(cmds[c].makes, h);
	} else if (cmds[c].destroys) {
		memcpy(&h, (const char *)core + cmds[c].handle_at, sizeof(h));
		drop_handle(cmds[c].handle, h);
	}
}

/* Creation commands come more often, so that objects exist to abuse */
static enum cmd_id pick(void)
{
	static const enum cmd_id creators[] = {
		C_ALLOC_PD, C_CREATE_CQ, C_CREATE_QP, C_CREATE_QP, C_CREATE_AH,
		C_REG_MR, C_MODIFY_QP, C_POST_SEND
	};

	if (below(2))
		return creators[below(sizeof(creators) / sizeof(creators[0]))];
	return below(NR_CMD);
}

static void one_command(int fd, int forced)
{
	struct ib_uverbs_cmd_hdr *hdr = (void *)req;
	enum cmd_id c = forced >= 0 ? (enum cmd_id)forced : pick();
	size_t extra, in_len, out_len, wrs, drv_in;
	void *core = hdr + 1;
	ssize_t ret;

	good = forced >= 0 || !below(3);
	memset(req, 0, 512);
	fill_random(core, cmds[c].core_in);
	if (cmds[c].has_response)
		*(uint64_t *)core = (uintptr_t)resp;
	wrs = build(c, core);

	/* Driver data: none, a little, a lot, or an odd size */
	switch (good ? 0 : below(4)) {
	case 0:
		drv_in = 0;
		break;
	case 1:
		drv_in = 8 * below(8);
		break;
	case 2:
		drv_in = 4 * below(64);
		break;
	default:
		drv_in = below(16);
		break;
	}
	extra = wrs ? wrs : drv_in;
	if (!wrs)
		fill_random((char *)core + cmds[c].core_in, drv_in);
	in_len = sizeof(*hdr) + cmds[c].core_in + extra;
	if (!good && !below(16))
		in_len = sizeof(*hdr) + below(cmds[c].core_in + 64);
	in_len &= ~(size_t)3;	/* in_words counts 32-bit words */
	if (in_len < sizeof(*hdr))
		in_len = sizeof(*hdr);

	switch (good ? 3 : below(4)) {
	case 0:
		out_len = cmds[c].core_out;
		break;
	case 1:
		out_len = below(cmds[c].core_out + 1);
		break;
	case 2:
		out_len = cmds[c].core_out + 4 * below(64);
		break;
	default:
		out_len = cmds[c].core_out + 256;
		break;
	}
	if (c == C_POLL_CQ)
		out_len += 64 * below(16);
	out_len &= ~(size_t)3;

	hdr->command = cmds[c].uverbs;
	hdr->in_words = in_len / 4;
	hdr->out_words = out_len / 4;
	memset(resp, 0, 64);
	ret = write(fd, req, in_len);
	record(c, ret < 0 ? errno : 0);
	if (verbose)
		fprintf(stderr, "  %s in=%zu out=%zu -> %zd %s\n", cmds[c].name,
			in_len, out_len, ret, ret < 0 ? strerror(errno) : "");
	if (ret >= 0)
		track(c, core);
}

static struct ibv_device *find_device(struct ibv_device **list,
				      const char *name)
{
	int i;

	for (i = 0; list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			return list[i];
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long seed = 1, count = 10000, commands = 0, reopen = 10;
	unsigned long i, j, n;
	double limit = 900;
	struct ibv_device **list, *dev;
	struct ibv_context *ctx = NULL;
	struct timespec t0, t;
	int opt, c, e;

	while ((opt = getopt(argc, argv, "s:n:t:r:pv")) != -1) {
		switch (opt) {
		case 's':
			seed = strtoul(optarg, NULL, 0);
			break;
		case 'n':
			count = strtoul(optarg, NULL, 0);
			break;
		case 't':
			limit = strtod(optarg, NULL);
			break;
		case 'r':
			reopen = strtoul(optarg, NULL, 0);
			break;
		case 'p':
			portable = 1;
			break;
		case 'v':
			verbose = 1;
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc - 1)
		goto usage;

	mrbuf = mmap(NULL, MR_SIZE, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	list = ibv_get_device_list(NULL);
	dev = list ? find_device(list, argv[optind]) : NULL;
	if (mrbuf == MAP_FAILED || !dev) {
		fprintf(stderr, "verbs_fuzz: no device %s\n", argv[optind]);
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < count; i++) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > limit) {
			fprintf(stderr, "verbs_fuzz: time limit after %lu of %lu sequences\n",
				i, count);
			return 1;
		}
		rng = (seed * 1000003ULL + i) * 0x9E3779B97F4A7C15ULL | 1;
		memset(nr, 0, sizeof(nr));
		if (!ctx) {
			ctx = ibv_open_device(dev);
			if (!ctx) {
				perror("verbs_fuzz: ibv_open_device");
				return 1;
			}
		}
		n = 1 + below(24);
		if (verbose)
			fprintf(stderr, "sequence %lu: %lu commands\n", i, n);
		/*
		 * Half the sequences start with a well-formed PD, CQ, QP and
		 * AH, so that the commands after them reach the drivers.
		 */
		if (below(2)) {
			static const enum cmd_id prologue[] = {
				C_ALLOC_PD, C_CREATE_CQ, C_CREATE_QP, C_CREATE_AH,
				C_MODIFY_QP, C_MODIFY_QP, C_MODIFY_QP, C_POST_SEND,
			};

			for (j = 0; j < sizeof(prologue) / sizeof(prologue[0]); j++) {
				modify_step = j >= 4 && j <= 6 ? (int)j - 4 : -1;
				one_command(ctx->cmd_fd, prologue[j]);
			}
			modify_step = -1;
			commands += j;
		}
		for (j = 0; j < n; j++)
			one_command(ctx->cmd_fd, -1);
		commands += n;
		if ((i + 1) % (reopen ? reopen : 1) && i + 1 < count)
			continue;
		if (ibv_close_device(ctx)) {
			perror("verbs_fuzz: ibv_close_device");
			return 1;
		}
		ctx = NULL;
	}
	ibv_free_device_list(list);

	for (c = 0; c < NR_CMD; c++) {
		printf("%s", cmds[c].name);
		for (e = 0; e <= MAX_ERRNO; e++)
			if (tally[c][e] && !e)
				printf(" ok=%lu", tally[c][e]);
			else if (tally[c][e])
				printf(" E%d=%lu", e, tally[c][e]);
		printf("\n");
	}
	printf("sequences=%lu commands=%lu seed=%lu\n", count, commands, seed);
	return 0;

usage:
	fprintf(stderr, "usage: verbs_fuzz [-s SEED] [-n SEQUENCES] [-t SECONDS] [-r N] [-p] [-v] DEVICE\n");
	return 1;
}
