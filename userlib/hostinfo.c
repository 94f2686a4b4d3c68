// SPDX-License-Identifier: MIT
/*
 * What user space knows about a vdevice that the kernel does not send:
 * its uverbs character device and the name of its network namespace.
 *
 * /sys/class/infiniband_verbs is not tagged by network namespace, so it
 * lists the uverbs nodes of every vdevice whatever namespace we are in;
 * each node's "ibdev" file names its ib_device and "dev" gives
 * major:minor.  Named namespaces are nsfs bind mounts under
 * /var/run/netns, matched by inode number.  Missing information is not an
 * error: the fields just stay empty.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <linux/magic.h>

#include "internal.h"

#define UVERBS_CLASS_DIR	"/sys/class/infiniband_verbs"

/* First line of a small file, without its newline */
static bool read_line(const char *dir, const char *entry, const char *file,
		      char *buf, size_t len)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s/%s", dir, entry,
			     file) >= sizeof(path))
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return true;
}

/*
 * @arr, @count items of @elem bytes in room for *@size, with room for one
 * more: @arr itself, or a larger copy (*@size updated), or NULL when it
 * cannot grow (then @arr is left as it was).
 */
static void *room_for_one(void *arr, size_t count, size_t *size, size_t elem)
{
	size_t n;

	if (count < *size)
		return arr;
	n = *size ? 2 * *size : 16;
	arr = realloc(arr, n * elem);
	if (arr)
		*size = n;
	return arr;
}

static void load_uverbs(struct vrdma_hostinfo *hi, const char *dir)
{
	struct vrdma_uverbs_node node, *grown;
	size_t size = 0;
	struct dirent *de;
	char dev[32];
	DIR *d;

	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "uverbs", 6) ||
		    strlen(de->d_name) >= sizeof(node.chardev))
			continue;
		memset(&node, 0, sizeof(node));
		if (!read_line(dir, de->d_name, "ibdev", node.ibdev,
			       sizeof(node.ibdev)) ||
		    !read_line(dir, de->d_name, "dev", dev, sizeof(dev)) ||
		    sscanf(dev, "%u:%u", &node.major, &node.minor) != 2)
			continue;
		strcpy(node.chardev, de->d_name);
		grown = room_for_one(hi->uverbs, hi->nr_uverbs, &size,
				     sizeof(*grown));
		if (!grown)
			break;
		hi->uverbs = grown;
		hi->uverbs[hi->nr_uverbs++] = node;
	}
	closedir(d);
}

static void load_netns(struct vrdma_hostinfo *hi, const char *dir,
		       bool require_nsfs)
{
	struct vrdma_netns_name *grown;
	char path[PATH_MAX];
	struct statfs sfs;
	struct dirent *de;
	size_t size = 0;
	struct stat st;
	DIR *d;

	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' ||
		    strlen(de->d_name) >= sizeof(grown->name))
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir,
				     de->d_name) >= sizeof(path))
			continue;
		if (stat(path, &st) < 0)
			continue;
		/* A file left behind by a failed "ip netns add" is no netns */
		if (require_nsfs &&
		    (statfs(path, &sfs) < 0 || sfs.f_type != NSFS_MAGIC))
			continue;
		grown = room_for_one(hi->netns, hi->nr_netns, &size,
				     sizeof(*grown));
		if (!grown)
			break;
		hi->netns = grown;
		strcpy(hi->netns[hi->nr_netns].name, de->d_name);
		hi->netns[hi->nr_netns].ino = st.st_ino;
		hi->nr_netns++;
	}
	closedir(d);
}

/**
 * vrdma_hostinfo_load() - take a snapshot of uverbs nodes and named netns
 * @hi: receives the snapshot; release with vrdma_hostinfo_free()
 * @uverbs_dir: the infiniband_verbs class directory
 * @netns_dir: the directory of named network namespaces
 * @require_nsfs: skip entries of @netns_dir that are not nsfs mounts
 */
void vrdma_hostinfo_load(struct vrdma_hostinfo *hi, const char *uverbs_dir,
			 const char *netns_dir, bool require_nsfs)
{
	memset(hi, 0, sizeof(*hi));
	load_uverbs(hi, uverbs_dir);
	load_netns(hi, netns_dir, require_nsfs);
}

/**
 * vrdma_hostinfo_fill() - fill the user-space fields of a record
 * @hi: the snapshot
 * @dev: the record
 */
void vrdma_hostinfo_fill(const struct vrdma_hostinfo *hi,
			 struct vrdma_dev *dev)
{
	size_t i;

	dev->chardev[0] = '\0';
	dev->chardev_major = 0;
	dev->chardev_minor = 0;
	dev->netns_name[0] = '\0';
	for (i = 0; i < hi->nr_uverbs; i++) {
		if (strcmp(hi->uverbs[i].ibdev, dev->name))
			continue;
		strcpy(dev->chardev, hi->uverbs[i].chardev);
		dev->chardev_major = hi->uverbs[i].major;
		dev->chardev_minor = hi->uverbs[i].minor;
		break;
	}
	if (!dev->netns_ino)
		return;
	for (i = 0; i < hi->nr_netns; i++) {
		if (hi->netns[i].ino != dev->netns_ino)
			continue;
		strcpy(dev->netns_name, hi->netns[i].name);
		break;
	}
}

/**
 * vrdma_hostinfo_free() - release a snapshot
 * @hi: the snapshot
 */
void vrdma_hostinfo_free(struct vrdma_hostinfo *hi)
{
	free(hi->uverbs);
	free(hi->netns);
	memset(hi, 0, sizeof(*hi));
}

/**
 * vrdma_dev_add_hostinfo() - fill the user-space fields of records
 * @devs: the records
 * @count: how many
 */
void vrdma_dev_add_hostinfo(struct vrdma_dev *devs, size_t count)
{
	struct vrdma_hostinfo hi;
	size_t i;

	if (!count)
		return;
	vrdma_hostinfo_load(&hi, UVERBS_CLASS_DIR, VRDMA_NETNS_RUN_DIR, true);
	for (i = 0; i < count; i++)
		vrdma_hostinfo_fill(&hi, &devs[i]);
	vrdma_hostinfo_free(&hi);
}
