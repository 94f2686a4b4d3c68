// SPDX-License-Identifier: GPL-2.0
/*
 * fuse_mr DEV DIR - a tenant that keeps a verb of DEV in flight for as
 * long as it likes: it serves a FUSE file system of its own on DIR (one
 * file, "f"), maps the file privately and registers the mapping as an MR.
 * Pinning the pages faults them in, the fault reads the file, and the
 * read waits for this program's own server thread, which answers it only
 * on SIGUSR1.  Meanwhile another thread queries the device every 50 ms.
 *
 * Prints, one line each, flushed:
 *   mounted                  the file system is up
 *   stalled                  REG_MR is waiting for the read
 *   cut off errno=N          a query failed: the device is being torn down
 *   released                 SIGUSR1 came; the read is answered
 *   reg_mr ok | reg_mr errno=N
 *   done                     the file system is unmounted; exiting
 *   error WHAT errno=N       setup failed (exit status 1)
 *
 * Talks to /dev/fuse directly (linux/fuse.h), to need no library; the
 * kernel asks INIT, LOOKUP, GETATTR, OPEN, READ, FLUSH and RELEASE of it,
 * everything else is answered ENOSYS.  Run it as root.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "util.h"

#define FILE_NAME	"f"
#define FILE_INO	2
#define FILE_SIZE	(4 * 4096)

static int fuse_fd;
static int released;
static int stalled;

static void reply(const struct fuse_in_header *in, int error,
		  const void *arg, size_t len)
{
	struct fuse_out_header out = {
		.len = sizeof(out) + (error ? 0 : len),
		.error = error,
		.unique = in->unique,
	};
	struct iovec iov[2] = {
		{ .iov_base = &out, .iov_len = sizeof(out) },
		{ .iov_base = (void *)arg, .iov_len = error ? 0 : len },
	};

	/* A request interrupted meanwhile is answered ENOENT: harmless. */
	if (writev(fuse_fd, iov, 2) < 0 && errno != ENOENT)
		say("error reply errno=%d", errno);
}

static void fill_attr(struct fuse_attr *attr, uint64_t ino)
{
	memset(attr, 0, sizeof(*attr));
	attr->ino = ino;
	attr->blksize = 4096;
	if (ino == FUSE_ROOT_ID) {
		attr->mode = S_IFDIR | 0755;
		attr->nlink = 2;
	} else {
		attr->mode = S_IFREG | 0644;
		attr->nlink = 1;
		attr->size = FILE_SIZE;
		attr->blocks = FILE_SIZE / 512;
	}
}

/* Blocks SIGUSR1 until it comes: the one way to release the read. */
static void wait_release(void)
{
	sigset_t set;
	int sig;

	if (released)
		return;
	if (!stalled) {
		stalled = 1;
		say("stalled");
	}
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	while (sigwait(&set, &sig) || sig != SIGUSR1)
		;
	released = 1;
	say("released");
}

static void serve(const struct fuse_in_header *in, const void *arg)
{
	switch (in->opcode) {
	case FUSE_INIT: {
		const struct fuse_init_in *ii = arg;
		struct fuse_init_out io = {
			.major = FUSE_KERNEL_VERSION,
			.minor = FUSE_KERNEL_MINOR_VERSION,
			.max_readahead = ii->max_readahead,
			.max_write = 65536,
			.time_gran = 1,
		};

		reply(in, 0, &io, sizeof(io));
		break;
	}
	case FUSE_LOOKUP: {
		struct fuse_entry_out eo = {
			.nodeid = FILE_INO,
			.generation = 1,
			.entry_valid = 3600,
			.attr_valid = 3600,
		};

		if (in->nodeid != FUSE_ROOT_ID || strcmp(arg, FILE_NAME)) {
			reply(in, -ENOENT, NULL, 0);
			break;
		}
		fill_attr(&eo.attr, FILE_INO);
		reply(in, 0, &eo, sizeof(eo));
		break;
	}
	case FUSE_GETATTR: {
		struct fuse_attr_out ao = { .attr_valid = 3600 };

		fill_attr(&ao.attr, in->nodeid);
		reply(in, 0, &ao, sizeof(ao));
		break;
	}
	case FUSE_OPEN: {
		struct fuse_open_out oo = { .fh = 1 };

		reply(in, 0, &oo, sizeof(oo));
		break;
	}
	case FUSE_READ: {
		const struct fuse_read_in *ri = arg;
		static char data[65536];
		size_t n = 0;

		wait_release();
		if (ri->offset < FILE_SIZE)
			n = FILE_SIZE - ri->offset;
		if (n > ri->size)
			n = ri->size;
		if (n > sizeof(data))
			n = sizeof(data);
		memset(data, 'A', n);
		reply(in, 0, data, n);
		break;
	}
	case FUSE_FLUSH:
	case FUSE_RELEASE:
		reply(in, 0, NULL, 0);
		break;
	case FUSE_FORGET:
	case FUSE_BATCH_FORGET:
	case FUSE_INTERRUPT:
		break;		/* no answer expected */
	default:
		reply(in, -ENOSYS, NULL, 0);
	}
}

static void *server(void *unused)
{
	/* At least FUSE_MIN_READ_BUFFER, and room for max_write */
	static char buf[65536 + 4096];
	ssize_t n;

	(void)unused;
	for (;;) {
		n = read(fuse_fd, buf, sizeof(buf));
		if (n < 0 && (errno == EINTR || errno == ENOENT))
			continue;
		if (n < 0)	/* ENODEV: unmounted */
			return NULL;
		if ((size_t)n < sizeof(struct fuse_in_header))
			continue;
		serve((const struct fuse_in_header *)buf,
		      buf + sizeof(struct fuse_in_header));
	}
}

static void *poller(void *arg)
{
	struct ibv_context *ctx = arg;
	struct ibv_device_attr attr;
	int ret;

	for (;;) {
		ret = ibv_query_device(ctx, &attr);
		if (ret) {
			say("cut off errno=%d", ret);
			return NULL;
		}
		usleep(50000);
	}
}

int main(int argc, char **argv)
{
	pthread_t srv, poll;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	char opts[128], path[4096];
	sigset_t set;
	void *map;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: fuse_mr DEV DIR\n");
		return 2;
	}
	/* Only the server thread takes SIGUSR1, in sigwait(). */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);

	ctx = open_device_by_name(argv[1]);
	if (!ctx) {
		say("error open errno=%d", errno);
		return 1;
	}
	pd = ibv_alloc_pd(ctx);
	if (!pd) {
		say("error alloc_pd errno=%d", errno);
		return 1;
	}

	fuse_fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fuse_fd < 0) {
		say("error open_fuse errno=%d", errno);
		return 1;
	}
	snprintf(opts, sizeof(opts),
		 "fd=%d,rootmode=40000,user_id=0,group_id=0", fuse_fd);
	if (mount("fuse_mr", argv[2], "fuse", MS_NOSUID | MS_NODEV,
		  opts)) {
		say("error mount errno=%d", errno);
		return 1;
	}
	if (pthread_create(&srv, NULL, server, NULL)) {
		say("error pthread errno=%d", errno);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/%s", argv[2], FILE_NAME);
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		say("error open_file errno=%d", errno);
		return 1;
	}
	/* Private and writable: the pin writes (FOLL_WRITE) without FOLL_FORCE */
	map = mmap(NULL, FILE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		say("error mmap errno=%d", errno);
		return 1;
	}
	say("mounted");
	if (pthread_create(&poll, NULL, poller, ctx)) {
		say("error pthread errno=%d", errno);
		return 1;
	}

	mr = ibv_reg_mr(pd, map, FILE_SIZE, IBV_ACCESS_LOCAL_WRITE);
	if (mr)
		say("reg_mr ok");
	else
		say("reg_mr errno=%d", errno);

	/*
	 * Tear down while the server still answers: closing the file flushes
	 * and releases it through the server, and the last reference to the
	 * file system goes with it, after the lazy unmount.
	 */
	munmap(map, FILE_SIZE);
	close(fd);
	umount2(argv[2], MNT_DETACH);
	say("done");
	_exit(0);
}
