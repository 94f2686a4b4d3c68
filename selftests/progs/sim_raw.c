// SPDX-License-Identifier: GPL-2.0
/*
 * sim_raw - drive an rdmasim device (or a vdevice on one) through the raw
 * uverbs ABI: no rdma-core provider exists for rdmasim, so libibverbs will
 * not open it.  write() commands (<rdma/ib_user_verbs.h>) for the core
 * verbs, ioctl() (<rdma/rdma_user_ioctl.h>) for the driver's own methods,
 * mmap() of the offsets the driver hands out.
 *
 *   sim_raw IBDEV [HOLD_SECONDS]
 *
 * Prints one line per check, "CHECK ok [detail]" or "CHECK err ERRNO_NAME
 * [detail]", and stops at the first error (later checks depend on it).
 * With HOLD_SECONDS, it prints "holding" once everything is mapped and
 * waits before tearing down (for tests under live mappings): until
 * SIGUSR1, which a test sends once it has looked, or HOLD_SECONDS.  A
 * fixed sleep alone raced the test's look on a slow guest.
 * Exit status: 0 if every check passed, 1 otherwise.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_ioctl.h>
#include <rdma/ib_user_ioctl_cmds.h>

#include "ex_cmd.h"
#include "sim_uverbs.h"

static volatile sig_atomic_t released;

static void release(int sig)
{
	(void)sig;
	released = 1;
}

int main(int argc, char **argv)
{
	struct ib_uverbs_get_context gc = {};
	struct ib_uverbs_get_context_resp gcr;
	struct ib_uverbs_ex_query_device qd = {};
	struct ib_uverbs_ex_query_device_resp qdr;
	struct rdmasim_query_device_resp sqdr = {};
	struct ib_uverbs_alloc_pd apd = {};
	struct ib_uverbs_alloc_pd_resp apdr;
	struct rdmasim_alloc_pd_resp sapdr = {};
	struct ib_uverbs_create_cq ccq = {};
	struct ib_uverbs_create_cq_resp ccqr;
	struct rdmasim_create_cq sccq = {};
	struct rdmasim_create_cq_resp sccqr = {};
	struct ib_uverbs_create_qp cqp = {};
	struct ib_uverbs_create_qp_resp cqpr;
	struct rdmasim_create_qp scqp = {};
	struct rdmasim_create_qp_resp scqpr = {};
	struct ib_uverbs_destroy_qp dqp = {};
	struct ib_uverbs_destroy_qp_resp dqpr;
	struct ib_uverbs_destroy_cq dcq = {};
	struct ib_uverbs_destroy_cq_resp dcqr;
	struct ib_uverbs_dealloc_pd dpd = {};
	struct ioctl_buf b;
	uint32_t uar_handle = 0;
	uint32_t page_id = 0, pdn = 0;
	struct sim_uar u = {};
	void *uar = NULL, *cqring = NULL, *sq = NULL, *rq = NULL;
	int hold = argc > 2 ? atoi(argv[2]) : 0;
	int fd, err;

	if (argc < 2) {
		fprintf(stderr, "usage: %s IBDEV [HOLD_SECONDS]\n", argv[0]);
		return 2;
	}
	signal(SIGUSR1, release);
	fd = open_uverbs(argv[1]);
	if (fd < 0) {
		report("open", errno ?: ENODEV, "%s", argv[1]);
		return 1;
	}
	report("open", 0, "%s", argv[1]);

	err = write_cmd(fd, IB_USER_VERBS_CMD_GET_CONTEXT, &gc, sizeof(gc),
			NULL, 0, &gcr, sizeof(gcr), NULL, 0);
	report("get_context", err, NULL);
	if (err)
		return 1;

	/* The extended query_device: its own header, then driver words */
	{
		struct {
			struct ib_uverbs_cmd_hdr hdr;
			struct ib_uverbs_ex_cmd_hdr ex;
			struct ib_uverbs_ex_query_device cmd;
		} in = {};
		char out[sizeof(qdr) + sizeof(sqdr)] = {};

		ex_cmd_hdr(&in.hdr, &in.ex, IB_USER_VERBS_EX_CMD_QUERY_DEVICE,
			   sizeof(in.cmd), sizeof(qdr), out, 0, sizeof(sqdr) / 8);
		in.cmd = qd;
		err = write(fd, &in, sizeof(in)) == sizeof(in) ? 0 : errno;
		memcpy(&qdr, out, sizeof(qdr));
		memcpy(&sqdr, out + sizeof(qdr), sizeof(sqdr));
		if (!err && (sqdr.magic != RDMASIM_MAGIC ||
			     sqdr.abi_version != RDMASIM_ABI_VERSION))
			err = EBADMSG;
		/* Nothing below depends on it: go on */
		report("query_device_driver_data", err,
		       "magic 0x%x abi %u max_qp %u", sqdr.magic,
		       sqdr.abi_version, qdr.base.max_qp);
	}

	err = write_cmd(fd, IB_USER_VERBS_CMD_ALLOC_PD, &apd, sizeof(apd),
			NULL, 0, &apdr, sizeof(apdr), &sapdr, sizeof(sapdr));
	report("alloc_pd", err, "pdn %u", sapdr.pdn);
	if (err)
		return 1;

	/* A driver method on the core PD object, by handle */
	err = pd_query(fd, apdr.pd_handle, &pdn, NULL);
	if (!err && pdn != sapdr.pdn)
		err = EBADMSG;
	report("pd_query_method", err, "pdn %u", pdn);
	if (err)
		goto out_pd;

	/* The UAR-like driver object: a doorbell page */
	err = uar_alloc(fd, &u);
	uar_handle = u.handle;
	page_id = u.page_id;
	report("uar_alloc", err, "page %u length %u", page_id, u.mmap_length);
	if (err)
		goto out_pd;
	uar = map_report("uar_mmap", fd, u.mmap_offset, u.mmap_length);
	if (!uar)
		goto out_uar;
	/* The doorbell is a store into the page */
	*(volatile uint32_t *)uar = 0;

	/*
	 * A parent method vrdma does not forward: natively it answers,
	 * through a vdevice it must be refused (EOPNOTSUPP, or EPROTONOSUPPORT
	 * when it is not in the vdevice's uverbs tree).  Informational: the
	 * caller knows which one to expect; nothing below depends on it.
	 */
	{
		uint32_t qpage = ~0U;

		ioctl_init(&b, RDMASIM_OBJECT_UAR, RDMASIM_METHOD_UAR_QUERY);
		ioctl_attr(&b, RDMASIM_ATTR_UAR_QUERY_HANDLE, 0, uar_handle);
		ioctl_attr(&b, RDMASIM_ATTR_UAR_QUERY_PAGE_ID, sizeof(qpage),
			   (uintptr_t)&qpage);
		err = ioctl_cmd(fd, &b);
		if (!err)
			printf("uar_query_method answered page %u%s\n", qpage,
			       qpage == page_id ? "" : " (wrong page)");
		else
			printf("uar_query_method refused %s\n",
			       strerrorname_np(err) ?: "?");
		fflush(stdout);
	}

	/* Bad input: a page id this context does not own */
	sccq.uar_page_id = page_id + 1000;
	ccq.cqe = 16;
	ccq.comp_channel = -1;
	err = write_cmd(fd, IB_USER_VERBS_CMD_CREATE_CQ, &ccq, sizeof(ccq),
			&sccq, sizeof(sccq), &ccqr, sizeof(ccqr), &sccqr,
			sizeof(sccqr));
	report("create_cq_bad_uar_refused", err == EINVAL ? 0 : (err ?: EPERM),
	       "got %s", err ? strerrorname_np(err) : "success");
	if (err != EINVAL)
		goto out_uar;

	sccq.uar_page_id = page_id;
	err = write_cmd(fd, IB_USER_VERBS_CMD_CREATE_CQ, &ccq, sizeof(ccq),
			&sccq, sizeof(sccq), &ccqr, sizeof(ccqr), &sccqr,
			sizeof(sccqr));
	report("create_cq", err, "cqn %u entries %u", sccqr.cqn, sccqr.nr_cqe);
	if (err)
		goto out_uar;
	cqring = map_report("cq_ring_mmap", fd, sccqr.ring_mmap_offset,
			    sccqr.ring_length);
	if (!cqring)
		goto out_cq;

	scqp.uar_page_id = page_id;
	cqp.pd_handle = apdr.pd_handle;
	cqp.send_cq_handle = ccqr.cq_handle;
	cqp.recv_cq_handle = ccqr.cq_handle;
	cqp.max_send_wr = 8;
	cqp.max_recv_wr = 8;
	cqp.max_send_sge = 1;
	cqp.max_recv_sge = 1;
	cqp.qp_type = 2;	/* IB_QPT_RC */
	err = write_cmd(fd, IB_USER_VERBS_CMD_CREATE_QP, &cqp, sizeof(cqp),
			&scqp, sizeof(scqp), &cqpr, sizeof(cqpr), &scqpr,
			sizeof(scqpr));
	report("create_qp", err, "qpn %u", cqpr.qpn);
	if (err)
		goto out_cq;
	sq = map(fd, scqpr.sq_mmap_offset, scqpr.sq_length);
	rq = map(fd, scqpr.rq_mmap_offset, scqpr.rq_length);
	report("qp_rings_mmap", sq && rq ? 0 : errno, NULL);

	if (hold) {
		time_t end = time(NULL) + hold;

		printf("holding\n");
		fflush(stdout);
		while (!released && time(NULL) < end)
			sleep(1);
	}

	dqp.qp_handle = cqpr.qp_handle;
	err = write_cmd(fd, IB_USER_VERBS_CMD_DESTROY_QP, &dqp, sizeof(dqp),
			NULL, 0, &dqpr, sizeof(dqpr), NULL, 0);
	report("destroy_qp", err, NULL);
out_cq:
	dcq.cq_handle = ccqr.cq_handle;
	err = write_cmd(fd, IB_USER_VERBS_CMD_DESTROY_CQ, &dcq, sizeof(dcq),
			NULL, 0, &dcqr, sizeof(dcqr), NULL, 0);
	report("destroy_cq", err, NULL);
out_uar:
	ioctl_init(&b, RDMASIM_OBJECT_UAR, RDMASIM_METHOD_UAR_DESTROY);
	ioctl_attr(&b, RDMASIM_ATTR_UAR_DESTROY_HANDLE, 0, uar_handle);
	err = ioctl_cmd(fd, &b);
	report("uar_destroy", err, NULL);
out_pd:
	dpd.pd_handle = apdr.pd_handle;
	err = write_cmd(fd, IB_USER_VERBS_CMD_DEALLOC_PD, &dpd, sizeof(dpd),
			NULL, 0, NULL, 0, NULL, 0);
	report("dealloc_pd", err, NULL);
	/* The rings outlive their objects until unmapped, as on hardware */
	if (sq)
		munmap(sq, scqpr.sq_length);
	if (rq)
		munmap(rq, scqpr.rq_length);
	if (cqring)
		munmap(cqring, sccqr.ring_length);
	if (uar)
		munmap(uar, u.mmap_length);
	close(fd);
	return failed;
}
