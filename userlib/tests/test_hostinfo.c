// SPDX-License-Identifier: MIT
/*
 * The user-space half of a record: uverbs node and netns name, found in a
 * fake sysfs class directory and a fake netns directory.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../internal.h"
#include "check.h"

#define ROOT_TEMPLATE "/tmp/vrdma-test-XXXXXX"

/* The scratch directory, made from ROOT_TEMPLATE by mkdtemp(). */
static char root[sizeof(ROOT_TEMPLATE)];

static void put_file(const char *rel, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	if (!f)
		return;
	fputs(text, f);
	fclose(f);
}

static void make_dir(const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	mkdir(path, 0755);
}

static void test_hostinfo(void)
{
	char class_dir[PATH_MAX], netns_dir[PATH_MAX], path[PATH_MAX];
	struct vrdma_hostinfo hi;
	struct vrdma_dev dev;
	struct stat st;

	memcpy(root, ROOT_TEMPLATE, sizeof(root));
	CHECK(mkdtemp(root));
	make_dir("class");
	make_dir("class/uverbs0");
	make_dir("class/uverbs3");
	make_dir("class/uverbs4");
	make_dir("netns");
	put_file("class/abi_version", "6\n");
	put_file("class/uverbs0/ibdev", "rxe0\n");
	put_file("class/uverbs0/dev", "231:192\n");
	put_file("class/uverbs3/ibdev", "vr0\n");
	put_file("class/uverbs3/dev", "231:195\n");
	put_file("class/uverbs4/ibdev", "vr9\n");	/* no dev file */
	put_file("netns/blue", "");
	put_file("netns/red", "");
	snprintf(class_dir, sizeof(class_dir), "%s/class", root);
	snprintf(netns_dir, sizeof(netns_dir), "%s/netns", root);
	snprintf(path, sizeof(path), "%s/netns/red", root);
	CHECK(stat(path, &st) == 0);

	vrdma_hostinfo_load(&hi, class_dir, netns_dir, false);
	CHECK(hi.nr_uverbs == 2 && hi.nr_netns == 2);
	memset(&dev, 0, sizeof(dev));
	strcpy(dev.name, "vr0");
	dev.netns_ino = (uint32_t)st.st_ino;
	vrdma_hostinfo_fill(&hi, &dev);
	CHECK(!strcmp(dev.chardev, "uverbs3"));
	CHECK(dev.chardev_major == 231 && dev.chardev_minor == 195);
	CHECK(!strcmp(dev.netns_name, "red"));

	strcpy(dev.name, "vr9");
	dev.netns_ino = 1;
	vrdma_hostinfo_fill(&hi, &dev);
	CHECK(dev.chardev[0] == '\0' && dev.netns_name[0] == '\0');
	vrdma_hostinfo_free(&hi);

	/* Plain files are not network namespaces */
	vrdma_hostinfo_load(&hi, class_dir, netns_dir, true);
	CHECK(hi.nr_netns == 0);
	vrdma_hostinfo_free(&hi);

	/* Missing directories are no error */
	vrdma_hostinfo_load(&hi, "/nonexistent", "/nonexistent", true);
	CHECK(hi.nr_uverbs == 0 && hi.nr_netns == 0);
	vrdma_hostinfo_free(&hi);

	snprintf(path, sizeof(path), "rm -rf '%s'", root);
	CHECK(system(path) == 0);
}

void suite_hostinfo(void)
{
	RUN(test_hostinfo);
}
