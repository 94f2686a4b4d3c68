/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Raw uverbs helpers for the programs that drive rdmasim (sim_raw, sim_dp):
 * no rdma-core provider exists for it, so libibverbs will not open it.
 * write() commands (<rdma/ib_user_verbs.h>) for the core verbs, ioctl()
 * (<rdma/rdma_user_ioctl.h>) for the driver's own methods, mmap() of the
 * offsets the driver hands out.
 */
#ifndef SIM_UVERBS_H
#define SIM_UVERBS_H

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_ioctl.h>
#include <rdma/ib_user_ioctl_cmds.h>

#include <rdma/rdmasim-abi.h>

#include "report.h"

/* The uverbs character device of IBDEV, from sysfs */
static int open_uverbs(const char *ibdev)
{
	const char *base = "/sys/class/infiniband_verbs";
	char path[512], name[128], dev[300];
	struct dirent *de;
	DIR *d;
	FILE *f;
	int fd = -1;

	d = opendir(base);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "uverbs", 6))
			continue;
		snprintf(path, sizeof(path), "%s/%s/ibdev", base, de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(name, sizeof(name), f)) {
			name[strcspn(name, "\n")] = 0;
			if (!strcmp(name, ibdev)) {
				snprintf(dev, sizeof(dev), "/dev/infiniband/%s",
					 de->d_name);
				fd = open(dev, O_RDWR | O_CLOEXEC);
			}
		}
		fclose(f);
		if (fd >= 0)
			break;
	}
	closedir(d);
	return fd;
}

/*
 * A legacy write() command: header, CMD (whose first field is the
 * response pointer, filled here), DRV driver data in; RESP then DRESP out.
 */
static int write_cmd(int fd, uint32_t command, void *cmd, size_t cmd_len,
		     const void *drv, size_t drv_len, void *resp,
		     size_t resp_len, void *dresp, size_t dresp_len)
{
	char in[512], out[512];
	struct ib_uverbs_cmd_hdr hdr = {
		.command = command,
		.in_words = (sizeof(hdr) + cmd_len + drv_len) / 4,
		.out_words = (resp_len + dresp_len) / 4,
	};
	uint64_t rp = (uintptr_t)out;
	size_t len = sizeof(hdr) + cmd_len + drv_len;

	if (resp_len)
		memcpy(cmd, &rp, sizeof(rp));
	memcpy(in, &hdr, sizeof(hdr));
	memcpy(in + sizeof(hdr), cmd, cmd_len);
	if (drv_len)
		memcpy(in + sizeof(hdr) + cmd_len, drv, drv_len);
	memset(out, 0, sizeof(out));
	if (write(fd, in, len) != (ssize_t)len)
		return errno;
	if (resp_len)
		memcpy(resp, out, resp_len);
	if (dresp_len)
		memcpy(dresp, out + resp_len, dresp_len);
	return 0;
}

struct ioctl_buf {
	struct ib_uverbs_ioctl_hdr hdr;
	struct ib_uverbs_attr attrs[10];
};

static void ioctl_init(struct ioctl_buf *b, uint16_t object, uint16_t method)
{
	memset(b, 0, sizeof(*b));
	b->hdr.object_id = object;
	b->hdr.method_id = method;
	b->hdr.driver_id = RDMASIM_DRIVER_ID;
}

static struct ib_uverbs_attr *ioctl_attr(struct ioctl_buf *b, uint16_t id,
					 uint16_t len, uint64_t data)
{
	struct ib_uverbs_attr *a = &b->attrs[b->hdr.num_attrs++];

	a->attr_id = id;
	a->len = len;
	a->data = data;
	return a;
}

static int ioctl_cmd(int fd, struct ioctl_buf *b)
{
	b->hdr.length = sizeof(b->hdr) +
			b->hdr.num_attrs * sizeof(struct ib_uverbs_attr);
	return ioctl(fd, RDMA_VERBS_IOCTL, b) ? errno : 0;
}

/* inline: not every program maps */
static inline void *map(int fd, uint64_t offset, size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		       offset);

	return p == MAP_FAILED ? NULL : p;
}

/* map(), reported as CHECK */
static inline void *map_report(const char *check, int fd, uint64_t offset,
			       size_t len)
{
	void *p = map(fd, offset, len);

	report(check, p ? 0 : errno, NULL);
	return p;
}

/*
 * open_context() - IBDEV's uverbs file with a ucontext on it, or -1; the
 * steps are reported as "open" and "get_context".  inline: not every
 * program starts this way.
 */
static inline int open_context(const char *ibdev)
{
	struct ib_uverbs_get_context gc = {};
	struct ib_uverbs_get_context_resp gcr;
	int fd, err;

	fd = open_uverbs(ibdev);
	report("open", fd < 0 ? errno ?: ENODEV : 0, "%s", ibdev);
	if (fd < 0)
		return -1;
	err = write_cmd(fd, IB_USER_VERBS_CMD_GET_CONTEXT, &gc, sizeof(gc),
			NULL, 0, &gcr, sizeof(gcr), NULL, 0);
	report("get_context", err, NULL);
	if (err) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * main_context() - open_context() on IBDEV, a program's one argument: the
 * fd; a bad command line exits 2 with the usage, a failure to open 1.
 */
static inline int main_context(int argc, char **argv)
{
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: %s IBDEV\n", argv[0]);
		exit(2);
	}
	fd = open_context(argv[1]);
	if (fd < 0)
		exit(1);
	return fd;
}

/* A doorbell page: rdmasim's UAR-like driver object, as allocated */
struct sim_uar {
	uint32_t handle;
	uint32_t page_id;
	uint32_t mmap_length;
	uint64_t mmap_offset;
};

/* uar_alloc() - allocate a doorbell page; 0 or the errno */
static inline int uar_alloc(int fd, struct sim_uar *u)
{
	struct ib_uverbs_attr *h;
	struct ioctl_buf b;
	int err;

	memset(u, 0, sizeof(*u));
	ioctl_init(&b, RDMASIM_OBJECT_UAR, RDMASIM_METHOD_UAR_ALLOC);
	h = ioctl_attr(&b, RDMASIM_ATTR_UAR_ALLOC_HANDLE, 0, 0);
	ioctl_attr(&b, RDMASIM_ATTR_UAR_ALLOC_PAGE_ID, sizeof(u->page_id),
		   (uintptr_t)&u->page_id);
	ioctl_attr(&b, RDMASIM_ATTR_UAR_ALLOC_MMAP_LENGTH,
		   sizeof(u->mmap_length), (uintptr_t)&u->mmap_length);
	ioctl_attr(&b, RDMASIM_ATTR_UAR_ALLOC_MMAP_OFFSET,
		   sizeof(u->mmap_offset), (uintptr_t)&u->mmap_offset);
	err = ioctl_cmd(fd, &b);
	u->handle = h->data;
	return err;
}

/*
 * pd_query() - rdmasim's PD_QUERY driver method on the PD of PD_HANDLE:
 * its number in *PDN; with FLAGS, the attribute that the pdquery2
 * variant's ABI requires too.  0 or the errno.
 */
static inline int pd_query(int fd, uint32_t pd_handle, uint32_t *pdn,
			   uint32_t *flags)
{
	struct ioctl_buf b;

	ioctl_init(&b, UVERBS_OBJECT_PD, RDMASIM_METHOD_PD_QUERY);
	ioctl_attr(&b, RDMASIM_ATTR_PD_QUERY_HANDLE, 0, pd_handle);
	ioctl_attr(&b, RDMASIM_ATTR_PD_QUERY_PDN, sizeof(*pdn),
		   (uintptr_t)pdn);
	if (flags)
		ioctl_attr(&b, RDMASIM_ATTR_PD_QUERY_FLAGS, sizeof(*flags),
			   (uintptr_t)flags);
	return ioctl_cmd(fd, &b);
}

#endif /* SIM_UVERBS_H */
