// SPDX-License-Identifier: GPL-2.0
/*
 * sim_mlx5 IBDEV [revoke] - stock libmlx5 on IBDEV: rdmasim's mlx5
 * personality, or a vdevice of one.  One line per step, "NAME ok ..." or
 * "NAME err ERRNO_NAME ...":
 *
 *   provider      libibverbs bound libmlx5 to IBDEV (mlx5dv_is_supported)
 *   open          ibv_open_device(): libmlx5's alloc_ucontext
 *   dv_query      mlx5dv_query_device(): the context got CQE version 1
 *   query_device  ibv_query_device_ex(): libmlx5 formats the firmware
 *                 version from mlx5's encoding
 *   nc_uar        the NC UAR libmlx5 allocated (MLX5_IB_METHOD_UAR_OBJ_ALLOC)
 *                 and mapped at open: its page id and mmap offset, whose
 *                 command byte must name an mmap entry (9 or more)
 *   bf_uar        a BlueFlame UAR (mlx5dv_devx_alloc_uar()), which the
 *                 device's write-combining grants: a page of its own,
 *                 mapped at an mmap entry's offset
 *   uar_write     both UAR pages take a write at the doorbell register
 *                 (offset 0x800) and read it back
 *   mmap_refused  mappings at offsets the context never handed out fail
 *                 as mlx5_ib fails them: a static NC UAR page, a
 *                 static write-combining page (EINVAL: a dynamic-UAR
 *                 context has neither), the core clock, which the
 *                 context does not advertise (EOPNOTSUPP), an mmap entry
 *                 that does not exist (EINVAL)
 *   alloc_pd      a PD and its pdn (mlx5dv_init_obj())
 *   import_device ibv_import_device() on a copy of the file: QUERY_CONTEXT
 *                 with MLX5_IB_ATTR_QUERY_CONTEXT_RESP_UCTX
 *   import_pd     ibv_import_pd() of the PD there: MLX5_IB_METHOD_PD_QUERY,
 *                 which must give the same pdn
 *   create_cq     ibv_create_cq() for 15 entries: libmlx5 sizes its buffer
 *                 for 16, the device answers 15 (entries - 1 exactly) and
 *                 a CQ number; mlx5dv_init_obj() sees 16 CQEs of 64 bytes
 *   cq_too_big    ibv_create_cq() past the device's max_cqe fails EINVAL
 *
 * and "devx_open refused ERRNO_NAME" or "devx_open opened" for
 * mlx5dv_open_device() with MLX5DV_CONTEXT_FLAGS_DEVX, which the caller
 * judges.  Exit status 0 if every step is ok.
 *
 * With "revoke", for a vdevice the caller deletes: open, a BlueFlame and
 * an NC UAR written as in uar_write ("uar_mapped"), then wait for
 * IBV_EVENT_DEVICE_FATAL ("fatal") and check that the core revoked both
 * mappings: they read the zero page the core maps after
 * disassociation, not what was written ("uar_revoked").  The context is
 * left to the exit: libmlx5 cannot destroy its UARs on a dead device.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <infiniband/verbs.h>
#include <infiniband/mlx5dv.h>

#include "report.h"

/* mlx5's mmap offsets: a command in bits 8-15 of the page offset */
#define MMAP_CMD(off)		(((off) / sysconf(_SC_PAGESIZE) >> 8) & 0xff)
#define MMAP_FIRST_ENTRY_CMD	9
/* Legacy commands (enum mlx5_ib_mmap_cmd of the kernel's mlx5-abi.h) */
#define MMAP_CMD_WC_PAGE	2
#define MMAP_CMD_NC_PAGE	3
#define MMAP_CMD_CORE_CLOCK	5
/* A UAR's doorbell register: its first BlueFlame register (MLX5_BF_OFFSET) */
#define UAR_DB_OFFSET		0x800
/* What uar_write writes: never a doorbell libmlx5 would ring */
#define UAR_MARK		0x5a5aa5a5c3c33c3cULL

/* The doorbell register of @uar, as libmlx5 writes it (64-bit stores) */
static volatile uint64_t *uar_db(struct mlx5dv_devx_uar *uar)
{
	return (volatile uint64_t *)((char *)uar->base_addr + UAR_DB_OFFSET);
}

/* Write UAR_MARK to both pages and read it back */
static int uar_write(struct mlx5dv_devx_uar *bf, struct mlx5dv_devx_uar *nc,
		     char *why, size_t len)
{
	uint64_t b, n;

	*uar_db(bf) = UAR_MARK;
	*uar_db(nc) = UAR_MARK;
	b = *uar_db(bf);
	n = *uar_db(nc);
	snprintf(why, len, "read back bf 0x%llx nc 0x%llx",
		 (unsigned long long)b, (unsigned long long)n);
	return b == UAR_MARK && n == UAR_MARK ? 0 : EPROTO;
}

/* A BlueFlame UAR, checked as nc_uar checks the NC one */
static struct mlx5dv_devx_uar *bf_uar(struct ibv_context *ctx,
				      struct mlx5dv_devx_uar *nc)
{
	struct mlx5dv_devx_uar *uar;
	int err;

	errno = 0;
	uar = mlx5dv_devx_alloc_uar(ctx, MLX5_IB_UAPI_UAR_ALLOC_TYPE_BF);
	err = uar ? 0 : errno ?: EIO;
	if (uar && (!uar->base_addr ||
		    MMAP_CMD(uar->mmap_off) < MMAP_FIRST_ENTRY_CMD ||
		    (nc && (uar->base_addr == nc->base_addr ||
			    uar->page_id == nc->page_id))))
		err = EPROTO;
	report("bf_uar", err, "page %u mmap offset 0x%llx",
	       uar ? uar->page_id : 0,
	       uar ? (unsigned long long)uar->mmap_off : 0ULL);
	if (err && uar) {
		mlx5dv_devx_free_uar(uar);
		uar = NULL;
	}
	return uar;
}

/*
 * Both UAR pages of a vdevice the caller deletes: written, then, after
 * the fatal event, revoked
 */
static void uar_revoke(struct ibv_context *ctx)
{
	struct mlx5dv_devx_uar *nc, *bf;
	struct ibv_async_event ev;
	char why[128] = "";
	uint64_t b, n;
	int err, i;

	nc = mlx5dv_devx_alloc_uar(ctx, MLX5_IB_UAPI_UAR_ALLOC_TYPE_NC);
	bf = nc ? bf_uar(ctx, nc) : NULL;
	err = nc && bf ? uar_write(bf, nc, why, sizeof(why)) : errno ?: EIO;
	report("uar_mapped", err, "%s", why);
	if (err)
		return;
	do {
		err = ibv_get_async_event(ctx, &ev) ? errno ?: EIO : 0;
		if (err)
			break;
		ibv_ack_async_event(&ev);
	} while (ev.event_type != IBV_EVENT_DEVICE_FATAL);
	report("fatal", err, NULL);
	/*
	 * The fatal event can reach us before the core has zapped the
	 * context's mappings (7.3 showed it): wait for the zap, 10 s at most.
	 */
	for (i = 0; i < 100; i++) {
		b = *uar_db(bf);
		n = *uar_db(nc);
		if (!b && !n)
			break;
		usleep(100000);
	}
	report("uar_revoked", b || n ? EPROTO : 0, "read bf 0x%llx nc 0x%llx",
	       (unsigned long long)b, (unsigned long long)n);
}

static uint32_t pdn_of(struct ibv_pd *pd, int *err)
{
	struct mlx5dv_pd dvpd = {};
	struct mlx5dv_obj obj = { .pd = { .in = pd, .out = &dvpd } };

	*err = mlx5dv_init_obj(&obj, MLX5DV_OBJ_PD);
	return dvpd.pdn;
}

/* mlx5dv_open_device() asking for DEVX: the caller judges the answer */
static void devx_open(struct ibv_device *dev)
{
	struct mlx5dv_context_attr attr = {
		.flags = MLX5DV_CONTEXT_FLAGS_DEVX,
	};
	struct ibv_context *ctx;

	errno = 0;
	ctx = mlx5dv_open_device(dev, &attr);
	if (ctx) {
		printf("devx_open opened\n");
		ibv_close_device(ctx);
	} else {
		printf("devx_open refused %s\n",
		       strerrorname_np(errno) ?: "?");
	}
	fflush(stdout);
}

/* mmap of @cmd with @index on @fd fails with @want (mlx5's encoding) */
static int mmap_fails(int fd, unsigned int cmd, unsigned int index, int want,
		      char *why, size_t len)
{
	long page = sysconf(_SC_PAGESIZE);
	off_t off = (off_t)((index >> 8) << 16 | cmd << 8 | (index & 0xff)) * page;
	void *p = mmap(NULL, page, PROT_WRITE, MAP_SHARED, fd, off);

	if (p != MAP_FAILED) {
		munmap(p, page);
		snprintf(why, len, "command %u index %u mapped", cmd, index);
		return EPROTO;
	}
	if (errno != want) {
		snprintf(why, len, "command %u index %u: %s, not %s", cmd,
			 index, strerrorname_np(errno) ?: "?",
			 strerrorname_np(want) ?: "?");
		return EPROTO;
	}
	return 0;
}

/* A CQ libmlx5 creates, as mlx5dv sees it; and one too big */
static void cq_checks(struct ibv_context *ctx, struct ibv_device_attr_ex *attr)
{
	struct mlx5dv_cq dvcq = {};
	struct mlx5dv_obj obj = { .cq = { .out = &dvcq } };
	struct ibv_cq *cq;
	int err;

	cq = ibv_create_cq(ctx, 15, NULL, NULL, 0);
	if (!cq) {
		report("create_cq", errno ?: EIO, NULL);
	} else {
		obj.cq.in = cq;
		err = mlx5dv_init_obj(&obj, MLX5DV_OBJ_CQ);
		if (!err && (cq->cqe != 15 || !dvcq.cqn || dvcq.cqe_cnt != 16 ||
			     dvcq.cqe_size != 64 || !dvcq.dbrec))
			err = EPROTO;
		report("create_cq", err, "cqe %d cqn %u cqe_cnt %u cqe_size %u",
		       cq->cqe, dvcq.cqn, dvcq.cqe_cnt, dvcq.cqe_size);
		err = ibv_destroy_cq(cq);
		if (err)
			report("destroy_cq", err, NULL);
	}

	errno = 0;
	cq = ibv_create_cq(ctx, attr->orig_attr.max_cqe + 1, NULL, NULL, 0);
	err = cq ? EPROTO : errno == EINVAL ? 0 : errno ?: EIO;
	report("cq_too_big", err, "max_cqe %d: %s", attr->orig_attr.max_cqe,
	       cq ? "created" : strerrorname_np(errno) ?: "?");
	if (cq)
		ibv_destroy_cq(cq);
}

/* Everything after the open, on @ctx */
static void run(struct ibv_context *ctx)
{
	struct ibv_device_attr_ex attr = {};
	struct mlx5dv_context dv = {};
	struct mlx5dv_devx_uar *uar, *bf;
	struct ibv_context *ictx;
	struct ibv_pd *pd, *ipd;
	uint32_t pdn, ipdn;
	char why[128];
	int err, fd;

	err = mlx5dv_query_device(ctx, &dv);
	if (!err && !(dv.flags & MLX5DV_CONTEXT_FLAGS_CQE_V1))
		err = EPROTO;
	report("dv_query", err, "flags 0x%llx", (unsigned long long)dv.flags);

	err = ibv_query_device_ex(ctx, NULL, &attr);
	if (!err && strcmp(attr.orig_attr.fw_ver, "1.0.0001"))
		err = EPROTO;
	report("query_device", err, "fw_ver %s vendor 0x%x part %u",
	       attr.orig_attr.fw_ver, attr.orig_attr.vendor_id,
	       attr.orig_attr.vendor_part_id);

	uar = mlx5dv_devx_alloc_uar(ctx, MLX5_IB_UAPI_UAR_ALLOC_TYPE_NC);
	err = uar ? 0 : errno ?: EIO;
	if (uar && (!uar->base_addr || MMAP_CMD(uar->mmap_off) < MMAP_FIRST_ENTRY_CMD))
		err = EPROTO;
	report("nc_uar", err, "page %u mmap offset 0x%llx", uar ? uar->page_id : 0,
	       uar ? (unsigned long long)uar->mmap_off : 0ULL);

	bf = bf_uar(ctx, err ? NULL : uar);
	why[0] = 0;
	err = bf && uar ? uar_write(bf, uar, why, sizeof(why)) : EIO;
	report("uar_write", err, "%s", why);
	if (bf)
		mlx5dv_devx_free_uar(bf);

	why[0] = 0;
	err = mmap_fails(ctx->cmd_fd, MMAP_CMD_NC_PAGE, 0, EINVAL, why,
			 sizeof(why)) ?:
	      mmap_fails(ctx->cmd_fd, MMAP_CMD_WC_PAGE, 0, EINVAL, why,
			 sizeof(why)) ?:
	      mmap_fails(ctx->cmd_fd, MMAP_CMD_CORE_CLOCK, 0, EOPNOTSUPP,
			 why, sizeof(why)) ?:
	      mmap_fails(ctx->cmd_fd, MMAP_FIRST_ENTRY_CMD, 0xfff, EINVAL, why,
			 sizeof(why));
	report("mmap_refused", err, "%s", why);

	pd = ibv_alloc_pd(ctx);
	if (!pd) {
		report("alloc_pd", errno ?: EIO, NULL);
		return;
	}
	pdn = pdn_of(pd, &err);
	if (!err && !pdn)
		err = EPROTO;
	report("alloc_pd", err, "pdn %u handle %u", pdn, pd->handle);

	fd = dup(ctx->cmd_fd);
	ictx = fd < 0 ? NULL : ibv_import_device(fd);
	report("import_device", ictx ? 0 : errno ?: EIO, NULL);
	if (!ictx) {
		if (fd >= 0)
			close(fd);
	} else {
		ipd = ibv_import_pd(ictx, pd->handle);
		ipdn = ipd ? pdn_of(ipd, &err) : 0;
		if (!ipd)
			err = errno ?: EIO;
		else if (!err && ipdn != pdn)
			err = EPROTO;
		report("import_pd", err, "pdn %u", ipdn);
		if (ipd)
			ibv_unimport_pd(ipd);
		ibv_close_device(ictx);
	}
	ibv_dealloc_pd(pd);
	cq_checks(ctx, &attr);
}

int main(int argc, char **argv)
{
	struct ibv_device **list, *dev = NULL;
	struct ibv_context *ctx;
	int i, n;

	if (argc != 2 && (argc != 3 || strcmp(argv[2], "revoke"))) {
		fprintf(stderr, "usage: %s IBDEV [revoke]\n", argv[0]);
		return 2;
	}
	list = ibv_get_device_list(&n);
	for (i = 0; list && i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), argv[1]))
			dev = list[i];
	if (!dev) {
		report("provider", ENODEV, "%s", argv[1]);
		return 1;
	}
	report("provider", mlx5dv_is_supported(dev) ? 0 : EPROTONOSUPPORT,
	       "%s", argv[1]);
	ctx = ibv_open_device(dev);
	report("open", ctx ? 0 : errno ?: EIO, NULL);
	if (ctx && argc == 3) {
		uar_revoke(ctx);
		fflush(stdout);
		_exit(failed);
	}
	if (ctx) {
		run(ctx);
		ibv_close_device(ctx);
	}
	devx_open(dev);
	ibv_free_device_list(list);
	return failed;
}
