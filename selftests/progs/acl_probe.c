// SPDX-License-Identifier: GPL-2.0
/*
 * acl_probe DEVICE SRC DST - try to use one address vector on DEVICE.
 *
 * Finds the GID of address SRC (IPv4, as its IPv4-mapped GID, or IPv6) in
 * port 1's table, then with an address vector from that GID to the GID
 * of DST: moves an RC QP to RTR and creates an AH.  Prints
 *
 *	gid=INDEX rtr=RESULT ah=RESULT
 *
 * where RESULT is "ok" or the errno name (EACCES, ...).  Exit status 0
 * when both steps ran (whatever their result), 2 for bad arguments, 3
 * when SRC is not in the GID table, 1 for any other setup failure.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "rc_self.h"
#include "util.h"

static int addr_to_gid(const char *text, union ibv_gid *gid)
{
	memset(gid, 0, sizeof(*gid));
	if (inet_pton(AF_INET, text, gid->raw + 12) == 1) {
		gid->raw[10] = 0xff;
		gid->raw[11] = 0xff;
		return 0;
	}
	return inet_pton(AF_INET6, text, gid->raw) == 1 ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	/* RTR toward the QP itself: only the address vector is on trial */
	struct rc_path path = {
		.port = 1, .mtu = IBV_MTU_1024, .rd_atomic = 1,
		.min_rnr_timer = 12, .hop_limit = 64,
	};
	struct ibv_port_attr port;
	union ibv_gid src, dst, g;
	struct ibv_context *ctx;
	struct ibv_ah_attr av;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_ah *ah;
	int idx = -1, i, rtr, ahr;
	char *end;

	if (argc == 4 && argv[2][0] == '@') {
		idx = (int)strtol(argv[2] + 1, &end, 10);
		if (end == argv[2] + 1 || *end || idx < 0)
			idx = -2;
		memset(&src, 0, sizeof(src));
	}
	if (argc != 4 || idx == -2 ||
	    (idx < 0 && addr_to_gid(argv[2], &src)) ||
	    addr_to_gid(argv[3], &dst)) {
		fprintf(stderr, "usage: acl_probe DEVICE { SRC | @INDEX } DST\n");
		return 2;
	}
	ctx = open_device_by_name(argv[1]);
	if (!ctx || ibv_query_port(ctx, 1, &port)) {
		fprintf(stderr, "acl_probe: cannot open %s\n", argv[1]);
		return 1;
	}
	for (i = 0; i < port.gid_tbl_len && idx < 0; i++)
		if (!ibv_query_gid(ctx, 1, i, &g) && !memcmp(&g, &src, sizeof(g)))
			idx = i;
	if (idx < 0) {
		fprintf(stderr, "acl_probe: %s not in the GID table\n", argv[2]);
		return 3;
	}

	qp = qp_with_pd_cq(ctx, 4, &init, &pd, &cq);
	if (!qp) {
		perror("acl_probe: setup");
		return 1;
	}
	if (rc_init(qp, 1, IBV_ACCESS_REMOTE_WRITE)) {
		perror("acl_probe: INIT");
		return 1;
	}

	path.dqpn = qp->qp_num;
	path.dgid = dst;
	path.sgidx = idx;
	rtr = rc_rtr(qp, &path);

	/* The AH carries the address vector the RTR did */
	memset(&av, 0, sizeof(av));
	av.is_global = 1;
	av.port_num = path.port;
	av.grh.dgid = path.dgid;
	av.grh.sgid_index = path.sgidx;
	av.grh.hop_limit = path.hop_limit;

	ah = ibv_create_ah(pd, &av);
	ahr = ah ? 0 : errno;
	printf("gid=%d rtr=%s ah=%s\n", idx, verdict(rtr), verdict(ahr));

	if (ah)
		ibv_destroy_ah(ah);
	ibv_destroy_qp(qp);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return 0;
}
