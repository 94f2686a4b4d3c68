/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The mlx5 personality's hardware (mlx5_wqe.c) and what its verbs
 * (mlx5.c, mlx5_qp.c, mlx5_srq.c) tell it.  Private to the module.
 *
 * The layouts below are mlx5's, as libmlx5 writes and reads them (rdma-core
 * providers/mlx5/mlx5dv.h): big-endian fields, 64-byte send basic blocks,
 * 16-byte segments, 64-byte CQEs whose last byte is written last.
 */
#ifndef RDMASIM_MLX5_H
#define RDMASIM_MLX5_H

#include <linux/types.h>
#include <linux/seq_file.h>
#include <rdma/ib_verbs.h>

#include "sim-dp.h"

struct sim_mlx5_queue;
struct sim_dev;

/* Send queue basic block, and the largest WQE the context allows */
#define SIM_MLX5_SEND_WQE_BB	64
#define SIM_MLX5_MAX_DESC_SZ	512
/* Terminates a receive WQE's scatter list (libmlx5's MLX5_INVALID_LKEY) */
#define SIM_MLX5_INVALID_LKEY	0x100
/* Doorbell record slots: QPs' receive and send counters, CQs' */
#define SIM_MLX5_RCV_DBR	0
#define SIM_MLX5_SND_DBR	1
#define SIM_MLX5_CQ_SET_CI	0
#define SIM_MLX5_CQ_ARM_DB	1
/*
 * What the hardware writes into a CQ's arm record at creation, a value
 * libmlx5 never writes (command bits 2-3 are unused): the first arm, with
 * sequence number, command and consumer index all 0, then shows as a
 * change.  mlx5 hardware learns of an arm from the UAR store, which a
 * double cannot see; libmlx5 never reads the record back.
 */
#define SIM_MLX5_ARM_IDLE	0x02000000

/* Send WQE opcodes (the low byte of opmod_idx_opcode) */
enum {
	SIM_MLX5_OPCODE_RDMA_WRITE = 0x08,
	SIM_MLX5_OPCODE_RDMA_WRITE_IMM = 0x09,
	SIM_MLX5_OPCODE_SEND = 0x0a,
	SIM_MLX5_OPCODE_SEND_IMM = 0x0b,
	SIM_MLX5_OPCODE_RDMA_READ = 0x10,
	SIM_MLX5_OPCODE_ATOMIC_CS = 0x11,
	SIM_MLX5_OPCODE_ATOMIC_FA = 0x12,
};

/* The one operand size of an atomic: 8 bytes, naturally aligned */
#define SIM_MLX5_ATOMIC_SIZE	8

/* CQE opcodes (op_own >> 4) */
enum {
	SIM_MLX5_CQE_REQ = 0,
	SIM_MLX5_CQE_RESP_WR_IMM = 1,
	SIM_MLX5_CQE_RESP_SEND = 2,
	SIM_MLX5_CQE_RESP_SEND_IMM = 3,
	SIM_MLX5_CQE_REQ_ERR = 13,
	SIM_MLX5_CQE_RESP_ERR = 14,
};

/* Error CQE syndromes */
enum {
	SIM_MLX5_SYND_OK = 0,
	SIM_MLX5_SYND_LOCAL_LENGTH = 0x01,
	SIM_MLX5_SYND_LOCAL_QP_OP = 0x02,
	SIM_MLX5_SYND_LOCAL_PROT = 0x04,
	SIM_MLX5_SYND_WR_FLUSH = 0x05,
	SIM_MLX5_SYND_REMOTE_INVAL_REQ = 0x12,
	SIM_MLX5_SYND_REMOTE_ACCESS = 0x13,
	SIM_MLX5_SYND_TRANSPORT_RETRY = 0x15,
};

/* fm_ce_se of the control segment */
#define SIM_MLX5_WQE_CTRL_CQ_UPDATE	0x08
#define SIM_MLX5_WQE_CTRL_SOLICITED	0x02
#define SIM_MLX5_INLINE_SEG		0x80000000U
/* A CQ arm record's command: solicited completions only */
#define SIM_MLX5_CQ_DB_REQ_NOT_SOL	0x01000000U

struct sim_mlx5_ctrl_seg {
	__be32 opmod_idx_opcode;
	__be32 qpn_ds;
	u8 signature;
	u8 rsvd[2];
	u8 fm_ce_se;
	__be32 imm;
};

struct sim_mlx5_raddr_seg {
	__be64 raddr;
	__be32 rkey;
	__be32 reserved;
};

/* After the remote address segment of an atomic (mlx5_wqe_atomic_seg) */
struct sim_mlx5_atomic_seg {
	__be64 swap_add;		/* the swap value, or what to add */
	__be64 compare;			/* compare and swap only */
};

struct sim_mlx5_data_seg {
	__be32 byte_count;
	__be32 lkey;
	__be64 addr;
};

/* The address vector a UD WQE carries (mlx5_wqe_av), 48 bytes */
/* An SRQ WQE's first segment: the link to the next free WQE */
struct sim_mlx5_srq_next_seg {
	u8 rsvd0[2];
	__be16 next_wqe_index;
	u8 signature;
	u8 rsvd1[11];
};

struct sim_mlx5_av {
	__be32 qkey;
	__be32 reserved;
	__be32 dqp_dct;
	u8 stat_rate_sl;
	u8 fl_mlid;
	__be16 rlid;
	u8 reserved0[4];
	u8 rmac[6];
	u8 tclass;
	u8 hop_limit;
	__be32 grh_gid_fl;
	u8 rgid[16];
};

struct sim_mlx5_cqe64 {
	u8 rsvd0[17];
	u8 ml_path;
	u8 rsvd20[4];
	__be16 slid;
	__be32 flags_rqpn;
	u8 hds_ip_ext;
	u8 l4_hdr_type_etc;
	__be16 vlan_info;
	__be32 srqn_uidx;
	__be32 imm_inval_pkey;
	u8 rsvd40[4];
	__be32 byte_cnt;
	__be64 timestamp;
	__be32 sop_drop_qpn;
	__be16 wqe_counter;
	u8 signature;
	u8 op_own;
};

/* An error CQE's view of the same 64 bytes */
struct sim_mlx5_err_cqe {
	u8 rsvd0[32];
	__be32 srqn;
	u8 rsvd1[18];
	u8 vendor_err_synd;
	u8 syndrome;
	__be32 s_wqe_opcode_qpn;
	__be16 wqe_counter;
	u8 signature;
	u8 op_own;
};

/*
 * The hardware's view of a user CQ: its buffer and doorbell record mapped
 * into the kernel, the CQEs written so far and the arm state.  Every field
 * after creation under simdp_hw_lock().
 */
struct sim_mlx5_hcq {
	struct simdp_poller poller;	/* acts on arms (the arm record) */
	struct ib_cq *ibcq;
	u8 *buf;			/* nent CQEs of cqe_size bytes */
	__be32 *db;			/* [0] consumer index, [1] arm */
	u32 nent;			/* a power of two */
	u32 cqe_size;			/* 64 or 128 */
	u32 pi;				/* CQEs written, free-running */
	u32 arm_seen;			/* the arm record last acted on */
	bool armed;			/* an event is due at the next CQE */
	bool armed_sol;			/* ... a solicited or error CQE only */
};

/*
 * The hardware's view of a user SRQ: WQEs linked by next_wqe_index, taken
 * from head as the doorbell record's counter allows.  Every field after
 * creation under simdp_hw_lock().
 */
struct sim_mlx5_hsrq {
	struct ib_srq *ibsrq;		/* for the limit event */
	struct ib_pd *pd;		/* the receive buffers' MRs are its */
	u8 *buf;			/* max WQEs of 1 << wqe_shift bytes */
	__be32 *db;			/* [0] WQEs posted, free-running */
	u32 max;			/* a power of two */
	u32 wqe_shift;
	u16 head;			/* the WQE taken next */
	u16 ci;				/* WQEs taken, as the 16-bit record */
	u32 limit;			/* armed limit (modify_srq), or 0 */
};

/*
 * The hardware's view of a user QP (mlx5_wqe.c).  Every field after
 * creation under simdp_hw_lock().
 */
struct sim_mlx5_hqp {
	struct simdp_poller poller;	/* executes the send queue */
	struct sim_dev *sdev;
	struct ib_pd *pd;
	enum ib_qp_type type;
	enum ib_qp_state state;		/* modify_qp's, or ERR by a WQE */
	u32 qpn;
	u32 uidx;			/* the user index CQEs carry */
	u32 dest_qpn;			/* RC and UC */
	u32 qkey;			/* UD */
	int access;			/* RC, UC: the IB_ACCESS_REMOTE_* it takes */
	unsigned int ack_ms;		/* RC: retransmission budget */
	unsigned long ack_deadline;	/* RC: when the unacked WQE fails */
	u8 *rq, *sq;			/* RQ at the buffer's start, SQ after */
	__be32 *db;			/* [0] RQ counter, [1] SQ counter */
	u32 rq_cnt, rq_shift;		/* receive WQEs, log2 of their size */
	u32 sq_cnt;			/* send basic blocks */
	u16 rq_ci, sq_ci;		/* consumed, as the 16-bit records */
	struct sim_mlx5_hcq *scq, *rcq;
	struct sim_mlx5_hsrq *srq;	/* receives from it if set, not rq */
};

/* mlx5_wqe.c */
int sim_mlx5_queue_get(struct sim_mlx5_queue *q, struct ib_device *ibdev,
		       u64 buf_addr, size_t len, int buf_access, u64 db_addr,
		       int db_access);
void sim_mlx5_queue_put(struct sim_mlx5_queue *q);
struct sim_mlx5_hcq *sim_mlx5_hcq_new(struct ib_cq *ibcq,
				      const struct sim_mlx5_queue *q,
				      u32 nent, u32 cqe_size);
void sim_mlx5_hcq_del(struct sim_mlx5_hcq *cq);
int sim_mlx5_hqp_start(struct sim_mlx5_hqp *qp);
void sim_mlx5_hqp_stop(struct sim_mlx5_hqp *qp);
void sim_mlx5_hqp_modify(struct sim_mlx5_hqp *qp, enum ib_qp_state state,
			 u32 dest_qpn, u32 qkey, int access,
			 unsigned int ack_ms);
struct sim_mlx5_hsrq *sim_mlx5_hsrq_new(struct ib_srq *ibsrq,
					const struct sim_mlx5_queue *q,
					u32 max, u32 wqe_shift);
void sim_mlx5_hsrq_del(struct sim_mlx5_hsrq *srq);
void sim_mlx5_hsrq_arm(struct sim_mlx5_hsrq *srq, u32 limit);
u32 sim_mlx5_hsrq_limit(struct sim_mlx5_hsrq *srq);
void sim_mlx5_wqe_debugfs_show(struct seq_file *s);

/* mlx5_qp.c: the QP verbs */
int sim_mlx5_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		       struct ib_udata *udata);
int sim_mlx5_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
		       int mask, struct ib_udata *udata);
int sim_mlx5_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		      struct ib_qp_init_attr *init);
int sim_mlx5_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);

/* mlx5_srq.c: the SRQ verbs */
int sim_mlx5_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
			struct ib_udata *udata);
int sim_mlx5_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
			enum ib_srq_attr_mask mask, struct ib_udata *udata);
int sim_mlx5_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int sim_mlx5_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);

#endif /* RDMASIM_MLX5_H */
