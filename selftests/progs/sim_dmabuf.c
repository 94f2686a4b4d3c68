// SPDX-License-Identifier: GPL-2.0
/*
 * sim_dmabuf - register DMA-BUF memory regions on an rdmasim device (or a
 * vdevice on one) through the raw uverbs ABI (no rdma-core provider
 * exists for rdmasim).  The DMA-BUF comes from a real exporter: udmabuf
 * (a memfd's pages) or simbuf, rdmasim's test double for kernels without
 * udmabuf.
 *
 *   sim_dmabuf IBDEV udmabuf|simbuf SIZE SECOND [HOLD_SECONDS]
 *
 * Exports a SIZE-byte DMA-BUF, tries bad registrations (fd -1, an fd that
 * is not a DMA-BUF, a region past the buffer's end), which must fail with
 * EBADF, EINVAL, EINVAL; registers the whole buffer; registers it a second
 * time, which must give SECOND ("ok" or an errno name such as EDQUOT);
 * with HOLD_SECONDS prints "holding" and sleeps with the MRs registered
 * (for kill tests); then deregisters everything.
 *
 * Prints one line per check, "CHECK ok [detail]" or "CHECK err ERRNO_NAME
 * [detail]", and stops at the first error.  Exit status: 0 if every check
 * passed, 1 otherwise.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <linux/udmabuf.h>
#include <rdma/ib_user_ioctl_verbs.h>

#include "sim_uverbs.h"
#include "../rdmasim/simbuf-abi.h"

/* expect CHECK WANT GOT - report GOT (an errno, 0) against WANT */
static int expect(const char *check, int want, int got)
{
	if (got == want) {
		report(check, 0, "%s", want ? strerrorname_np(want) : "");
		return 0;
	}
	report(check, got ?: EPERM, "want %s",
	       want ? strerrorname_np(want) : "success");
	return -1;
}

/*
 * reg_dmabuf - UVERBS_METHOD_REG_DMABUF_MR, as libibverbs' ibv_reg_dmabuf_mr
 * issues it.  Return: 0 with the MR's handle in @handle, or an errno.
 */
static int reg_dmabuf(int fd, uint32_t pd, uint64_t offset, uint64_t length,
		      int dmabuf, uint32_t *handle, uint32_t *lkey)
{
	uint64_t access = IB_UVERBS_ACCESS_LOCAL_WRITE |
			  IB_UVERBS_ACCESS_REMOTE_READ;
	uint32_t ufd = dmabuf, rkey;
	struct ib_uverbs_attr *h;
	struct ioctl_buf b;
	int err;

	ioctl_init(&b, UVERBS_OBJECT_MR, UVERBS_METHOD_REG_DMABUF_MR);
	h = ioctl_attr(&b, UVERBS_ATTR_REG_DMABUF_MR_HANDLE, 0, 0);
	ioctl_attr(&b, UVERBS_ATTR_REG_DMABUF_MR_PD_HANDLE, 0, pd);
	ioctl_attr(&b, UVERBS_ATTR_REG_DMABUF_MR_OFFSET, 8, offset);
	ioctl_attr(&b, UVERBS_ATTR_REG_DMABUF_MR_LENGTH, 8, length);
	/* The iova must share the offset's place in its page */
	ioctl_attr(&b, UVERBS_ATTR_REG_DMABUF_MR_IOVA, 8, offset);
	ioctl_attr(&b, UVERBS_ATTR_REG_DMABUF_MR_FD, 4, ufd);
	ioctl_attr(&b, UVERBS_ATTR_REG_DMABUF_MR_ACCESS_FLAGS, 8, access);
	ioctl_attr(&b, UVERBS_ATTR_REG_DMABUF_MR_RESP_LKEY, 4,
		   (uintptr_t)lkey);
	ioctl_attr(&b, UVERBS_ATTR_REG_DMABUF_MR_RESP_RKEY, 4,
		   (uintptr_t)&rkey);
	err = ioctl_cmd(fd, &b);
	if (err)
		return err;
	*handle = h->data;
	return 0;
}

static int dereg(int fd, uint32_t handle)
{
	struct ib_uverbs_dereg_mr cmd = { .mr_handle = handle };

	return write_cmd(fd, IB_USER_VERBS_CMD_DEREG_MR, &cmd, sizeof(cmd),
			 NULL, 0, NULL, 0, NULL, 0);
}

/* A DMA-BUF of @size bytes from @exporter; -1 with errno on failure */
static int export(const char *exporter, uint64_t size)
{
	int dev, memfd, buf = -1, err;

	if (!strcmp(exporter, "simbuf")) {
		struct simbuf_create c = { .size = size };

		dev = open("/dev/simbuf", O_RDWR | O_CLOEXEC);
		if (dev < 0)
			return -1;
		buf = ioctl(dev, SIMBUF_IOCTL_CREATE, &c);
		err = errno;
		close(dev);
		errno = err;
		return buf;
	}
	if (strcmp(exporter, "udmabuf")) {
		errno = EINVAL;
		return -1;
	}
	dev = open("/dev/udmabuf", O_RDWR | O_CLOEXEC);
	if (dev < 0)
		return -1;
	memfd = memfd_create("sim_dmabuf", MFD_ALLOW_SEALING | MFD_CLOEXEC);
	if (memfd >= 0 && !ftruncate(memfd, size) &&
	    !fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK)) {
		struct udmabuf_create c = {
			.memfd = memfd,
			.flags = UDMABUF_FLAGS_CLOEXEC,
			.size = size,
		};

		buf = ioctl(dev, UDMABUF_CREATE, &c);
	}
	err = errno;
	if (memfd >= 0)
		close(memfd);
	close(dev);
	errno = err;
	return buf;
}

int main(int argc, char **argv)
{
	struct ib_uverbs_alloc_pd apd = {};
	struct ib_uverbs_alloc_pd_resp apdr;
	struct ib_uverbs_dealloc_pd dpd = {};
	uint32_t mr1 = 0, mr2 = 0, lkey = 0, lkey2 = 0;
	long page = sysconf(_SC_PAGESIZE);
	int fd, buf, notbuf, err, want2 = 0;
	bool have1 = false, have2 = false;
	uint64_t size;
	int hold;

	if (argc < 5) {
		fprintf(stderr,
			"usage: %s IBDEV udmabuf|simbuf SIZE SECOND [HOLD_SECONDS]\n",
			argv[0]);
		return 2;
	}
	size = strtoull(argv[3], NULL, 0);
	if (strcmp(argv[4], "ok")) {
		for (want2 = 1; want2 < 200; want2++)
			if (strerrorname_np(want2) &&
			    !strcmp(strerrorname_np(want2), argv[4]))
				break;
		if (want2 == 200) {
			fprintf(stderr, "%s: unknown errno name\n", argv[4]);
			return 2;
		}
	}
	hold = argc > 5 ? atoi(argv[5]) : 0;

	fd = open_context(argv[1]);
	if (fd < 0)
		return 1;
	err = write_cmd(fd, IB_USER_VERBS_CMD_ALLOC_PD, &apd, sizeof(apd),
			NULL, 0, &apdr, sizeof(apdr), NULL, 0);
	report("alloc_pd", err, NULL);
	if (err)
		return 1;

	buf = export(argv[2], size);
	report("export", buf < 0 ? errno : 0, "%s %llu bytes", argv[2],
	       (unsigned long long)size);
	if (buf < 0)
		goto out_pd;

	/* Bad input: each fails, and leaves nothing behind (the caller checks) */
	if (expect("reg_bad_fd", EBADF,
		   reg_dmabuf(fd, apdr.pd_handle, 0, page, -1, &mr1, &lkey)))
		goto out_buf;
	notbuf = open("/dev/null", O_RDWR | O_CLOEXEC);
	err = reg_dmabuf(fd, apdr.pd_handle, 0, page, notbuf, &mr1, &lkey);
	close(notbuf);
	if (expect("reg_not_dmabuf", EINVAL, err))
		goto out_buf;
	if (expect("reg_past_end", EINVAL,
		   reg_dmabuf(fd, apdr.pd_handle, page, size, buf, &mr1,
			      &lkey)))
		goto out_buf;
	if (expect("reg_offset_past_end", EINVAL,
		   reg_dmabuf(fd, apdr.pd_handle, size, page, buf, &mr1,
			      &lkey)))
		goto out_buf;

	err = reg_dmabuf(fd, apdr.pd_handle, 0, size, buf, &mr1, &lkey);
	report("reg", err, "lkey 0x%x", lkey);
	if (err)
		goto out_buf;
	have1 = true;
	err = reg_dmabuf(fd, apdr.pd_handle, 0, size, buf, &mr2, &lkey2);
	have2 = !err;
	if (expect("reg_second", want2, err))
		goto out_mr;

	if (hold) {
		printf("holding\n");
		fflush(stdout);
		sleep(hold);
	}

out_mr:
	if (have2)
		report("dereg_second", dereg(fd, mr2), NULL);
	if (have1)
		report("dereg", dereg(fd, mr1), NULL);
out_buf:
	close(buf);
out_pd:
	dpd.pd_handle = apdr.pd_handle;
	err = write_cmd(fd, IB_USER_VERBS_CMD_DEALLOC_PD, &dpd, sizeof(dpd),
			NULL, 0, NULL, 0, NULL, 0);
	report("dealloc_pd", err, NULL);
	close(fd);
	return failed;
}
