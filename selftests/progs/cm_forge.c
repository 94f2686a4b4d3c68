// SPDX-License-Identifier: GPL-2.0
/*
 * cm_forge UMAD DEVICE SGID_INDEX SRC DST PORT COMM_ID [MSG [ID [QPN]]] - a
 * CM message written through umad, naming a comm ID that is not the
 * sender's.
 *
 * What a tenant with a umad node of its vdevice can do: creates an RC QP
 * on DEVICE (so that the request names a live QP of the device), registers
 * a send-only MAD agent on QP1 through UMAD (/dev/infiniband/umadN of
 * DEVICE), and writes one REQ from SRC (GID SGID_INDEX) to the RDMA CM
 * port PORT of DST (IPv4 addresses, RoCE v2), with COMM_ID (hex) as its
 * local comm ID and a valid RDMA CM header.  Anything the REQ brings back
 * is addressed to COMM_ID.  MSG rej, dreq or rtu writes that message
 * instead, on the connection whose local comm ID is COMM_ID and that has
 * no peer yet (remote comm ID 0: a request still unanswered): what
 * another tenant's connection looks like to a forger who read its ID.
 * Given a remote comm ID ID (hex), the message is one of the established
 * connection between COMM_ID and ID, as COMM_ID's side sends it: a REJ of
 * something other than a REQ (a consumer's reason, which ib_cm looks up
 * by both IDs and which ends an established connection), a DREQ naming
 * the peer's QP number QPN (hex; default the forger's RC QP), an RTU.
 * MSG sidr_req writes a SIDR_REQ to PORT of DST in the UDP port space
 * under request ID COMM_ID; sidr_rep a successful SIDR_REP answering
 * request COMM_ID with QP number QPN (hex; default the forger's RC QP, of
 * the wrong type), sidr_rep_qkey one naming a UD QP of the forger's own
 * with a privileged Q_Key.
 * The QP is kept 3 s, for the proxy to check the message.  Prints "sent"
 * or what failed; exit status 0 when the message was written, 2 for bad
 * arguments, 1 for a failure.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_mad.h>

#include "util.h"

#define MAD_SIZE	256
#define HDR		24	/* the common MAD header */
#define CM_CLASS	0x07
#define CM_REQ		0x0010
#define CM_REJ		0x0012
#define CM_RTU		0x0014
#define CM_DREQ		0x0015
#define CM_SIDR_REQ	0x0017
#define CM_SIDR_REP	0x0018
#define CM_SIDR_QKEY	0x10018	/* a SIDR_REP with a privileged Q_Key */
#define REJ_TIMEOUT	1	/* the reason ib_cm gives up a REQ with */
#define REJ_CONSUMER	28	/* a consumer's reason */
#define REJ_FOR_OTHER	2	/* a REJ of neither REQ nor REP */
#define RDMA_PS_TCP	0x0106
#define RDMA_PS_UDP	0x0111

static void put8(uint8_t *mad, int off, uint8_t v)
{
	mad[off] = v;
}

static void put16(uint8_t *mad, int off, uint16_t v)
{
	v = htobe16(v);
	memcpy(mad + off, &v, sizeof(v));
}

static void put32(uint8_t *mad, int off, uint32_t v)
{
	v = htobe32(v);
	memcpy(mad + off, &v, sizeof(v));
}

static void put64(uint8_t *mad, int off, uint64_t v)
{
	v = htobe64(v);
	memcpy(mad + off, &v, sizeof(v));
}

/* The IPv4-mapped GID of @ip at @gid */
static void v4_gid(uint8_t *gid, struct in_addr ip)
{
	memset(gid, 0, 16);
	gid[10] = 0xff;
	gid[11] = 0xff;
	memcpy(gid + 12, &ip, 4);
}

/* The common MAD header of CM message @attr, as ib_cm builds it */
static void build_hdr(uint8_t *mad, uint16_t attr)
{
	memset(mad, 0, MAD_SIZE);
	put8(mad, 0, 1);			/* base version */
	put8(mad, 1, CM_CLASS);
	put8(mad, 2, 2);			/* class version */
	put8(mad, 3, 0x03);			/* Send */
	put64(mad, 8, 0x1234);			/* TID: umad sets the top half */
	put16(mad, 16, attr);
}

/*
 * A REJ, a DREQ or an RTU (IBTA 12.6.7, 12.6.10, 12.6.9) of the connection
 * whose local comm ID is @comm_id: before its peer answered (@remote_id
 * 0), a REJ of the REQ; else of the established connection with
 * @remote_id, whose peer's QP is @qpn
 */
static void build_conn_msg(uint8_t *mad, uint16_t attr, uint32_t comm_id,
			   uint32_t remote_id, uint32_t qpn)
{
	build_hdr(mad, attr);
	put32(mad, HDR + 0, comm_id);
	put32(mad, HDR + 4, remote_id);
	if (attr == CM_REJ && !remote_id) {
		put16(mad, HDR + 10, REJ_TIMEOUT);	/* rejects the REQ */
	} else if (attr == CM_REJ) {
		put8(mad, HDR + 8, REJ_FOR_OTHER << 6);
		put16(mad, HDR + 10, REJ_CONSUMER);
	} else if (attr == CM_DREQ) {
		put32(mad, HDR + 8, qpn << 8);	/* remote QPN */
	}
}

/* cma's header at @cma: version 0, IPv4, port, source, destination */
static void build_cma_hdr(uint8_t *cma, struct in_addr src,
			  struct in_addr dst, uint16_t port)
{
	cma[1] = 4 << 4;
	put16(cma, 2, port);
	memcpy(cma + 4 + 12, &src, 4);
	memcpy(cma + 20 + 12, &dst, 4);
}

/* A SIDR_REQ (IBTA 12.6.12) as ib_cm and cma would build it */
static void build_sidr_req(uint8_t *mad, uint32_t req_id, struct in_addr src,
			   struct in_addr dst, uint16_t port)
{
	build_hdr(mad, CM_SIDR_REQ);
	put32(mad, HDR + 0, req_id);
	put16(mad, HDR + 4, 0xffff);		/* P_Key */
	put64(mad, HDR + 8, (uint64_t)RDMA_PS_UDP << 16 | port);
	build_cma_hdr(mad + HDR + 16, src, dst, port);
}

/* A successful SIDR_REP (IBTA 12.6.13) to request @req_id */
static void build_sidr_rep(uint8_t *mad, uint32_t req_id, uint32_t qpn,
			   uint32_t qkey, uint16_t port)
{
	build_hdr(mad, CM_SIDR_REP);
	put32(mad, HDR + 0, req_id);		/* status 0: success */
	put32(mad, HDR + 8, qpn << 8);
	put64(mad, HDR + 12, (uint64_t)RDMA_PS_UDP << 16 | port);
	put32(mad, HDR + 20, qkey);
}

/* A REQ (IBTA 12.6.5) as the kernel's ib_cm and cma would build it */
static void build_req(uint8_t *mad, uint32_t comm_id, uint32_t qpn,
		      struct in_addr src, struct in_addr dst, uint16_t port)
{
	uint8_t *cma = mad + HDR + 140;

	build_hdr(mad, CM_REQ);
	put32(mad, HDR + 0, comm_id);
	put64(mad, HDR + 8, (uint64_t)RDMA_PS_TCP << 16 | port);
	put64(mad, HDR + 16, 0x0200000000000001ULL);	/* CA GUID */
	put32(mad, HDR + 32, qpn << 8 | 1);	/* QPN, responder resources */
	put32(mad, HDR + 36, 1);		/* EECN, initiator depth */
	put8(mad, HDR + 43, 20 << 3);		/* response timeout, RC */
	put32(mad, HDR + 44, 0x123456 << 8 | 20 << 3 | 7);
	put16(mad, HDR + 48, 0xffff);		/* P_Key */
	put8(mad, HDR + 50, 3 << 4 | 7);	/* MTU 1024, RNR retries */
	put8(mad, HDR + 51, 2 << 4);		/* max CM retries */
	put16(mad, HDR + 52, 0xffff);		/* permissive LIDs */
	put16(mad, HDR + 54, 0xffff);
	v4_gid(mad + HDR + 56, src);
	v4_gid(mad + HDR + 72, dst);
	put8(mad, HDR + 93, 64);		/* hop limit */
	put8(mad, HDR + 95, 19 << 3);		/* local ACK timeout */
	build_cma_hdr(cma, src, dst, port);
}

int main(int argc, char **argv)
{
	struct ib_user_mad_reg_req reg = { .qpn = 1 };
	struct ibv_qp_init_attr qpa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct in_addr src, dst;
	struct ibv_context *ctx;
	struct ib_user_mad *um;
	struct ibv_qp *qp;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	static const struct {
		const char *name;
		uint32_t attr;
	} msgs[] = {
		{ "req", CM_REQ }, { "rej", CM_REJ }, { "dreq", CM_DREQ },
		{ "rtu", CM_RTU }, { "sidr_req", CM_SIDR_REQ },
		{ "sidr_rep", CM_SIDR_REP }, { "sidr_rep_qkey", CM_SIDR_QKEY },
	};
	uint32_t attr = 0, qpn = 0, remote_id = 0;
	uint32_t comm_id;
	bool conn_msg;
	int fd, sgid;
	uint16_t port;
	size_t i;
	char *end;

	for (i = 0; argc >= 9 && i < sizeof(msgs) / sizeof(msgs[0]); i++)
		if (!strcmp(argv[8], msgs[i].name))
			attr = msgs[i].attr;
	if (argc == 8)
		attr = CM_REQ;
	conn_msg = attr == CM_REJ || attr == CM_DREQ || attr == CM_RTU;
	end = NULL;
	if (argc == 10 && attr == CM_SIDR_REP) {
		qpn = strtoul(argv[9], &end, 16);
	} else if (conn_msg && argc >= 10 && argc <= 11) {
		remote_id = strtoul(argv[9], &end, 16);
		if (!*end && argc == 11 && attr == CM_DREQ)
			qpn = strtoul(argv[10], &end, 16);
		else if (argc == 11)
			attr = 0;
	} else if (argc > 9) {
		attr = 0;
	}
	if (!attr || (end && (*end || end == argv[argc - 1])) ||
	    inet_pton(AF_INET, argv[4], &src) != 1 ||
	    inet_pton(AF_INET, argv[5], &dst) != 1) {
		fprintf(stderr, "usage: cm_forge UMAD DEVICE SGID_INDEX SRC DST PORT COMM_ID [req|rej [ID]|dreq [ID [QPN]]|rtu [ID]|sidr_req|sidr_rep [QPN]|sidr_rep_qkey]\n");
		return 2;
	}
	sgid = atoi(argv[3]);
	port = atoi(argv[6]);
	comm_id = strtoul(argv[7], &end, 16);
	if (*end || sgid < 0 || sgid > 255) {
		fprintf(stderr, "cm_forge: bad SGID_INDEX or COMM_ID\n");
		return 2;
	}

	ctx = open_device_by_name(argv[2]);
	if (!ctx) {
		printf("open %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	if (attr == CM_SIDR_QKEY)
		qpa.qp_type = IBV_QPT_UD;
	qp = qp_with_pd_cq(ctx, 1, &qpa, &pd, &cq);
	if (!qp) {
		printf("QP: %s\n", strerror(errno));
		return 1;
	}
	if (!qpn)
		qpn = qp->qp_num;

	fd = open(argv[1], O_RDWR);
	if (fd < 0) {
		printf("open %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	if (ioctl(fd, IB_USER_MAD_ENABLE_PKEY) < 0 ||
	    ioctl(fd, IB_USER_MAD_REGISTER_AGENT, &reg) < 0) {
		printf("umad agent: %s\n", strerror(errno));
		return 1;
	}

	um = calloc(1, sizeof(*um) + MAD_SIZE);
	if (!um)
		return 1;
	um->hdr.id = reg.id;
	um->hdr.length = sizeof(*um) + MAD_SIZE;
	um->hdr.qpn = htobe32(1);
	um->hdr.qkey = htobe32(0x80010000);
	um->hdr.lid = htobe16(0xffff);
	um->hdr.grh_present = 1;
	um->hdr.gid_index = sgid;
	um->hdr.hop_limit = 64;
	v4_gid(um->hdr.gid, dst);
	if (attr == CM_REQ)
		build_req((uint8_t *)um->data, comm_id, qp->qp_num, src, dst,
			  port);
	else if (attr == CM_SIDR_REQ)
		build_sidr_req((uint8_t *)um->data, comm_id, src, dst, port);
	else if (attr == CM_SIDR_REP)
		build_sidr_rep((uint8_t *)um->data, comm_id, qpn, 0x01234567,
			       port);
	else if (attr == CM_SIDR_QKEY)
		build_sidr_rep((uint8_t *)um->data, comm_id, qpn, 0x80010000,
			       port);
	else
		build_conn_msg((uint8_t *)um->data, attr, comm_id, remote_id,
			       qpn);
	if (write(fd, um, sizeof(*um) + MAD_SIZE) != (ssize_t)(sizeof(*um) + MAD_SIZE)) {
		printf("write: %s\n", strerror(errno));
		return 1;
	}
	printf("sent\n");
	fflush(stdout);
	sleep(3);
	free(um);
	close(fd);
	ibv_destroy_qp(qp);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return 0;
}
