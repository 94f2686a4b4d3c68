// SPDX-License-Identifier: GPL-2.0
/*
 * vrdmactl unit tests, no kernel needed: value parsing (counts, sizes,
 * pids) and what dev/parent records look like as text and as JSON.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vrdmactl.h"

static int passed, failed;

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define CHECK(cond) check(!!(cond), #cond, __LINE__)

/* Whether @got is the concatenation of the strings of @want, up to NULL. */
static int same_text(const char *got, const char *const *want)
{
	size_t len;

	for (; *want; want++) {
		len = strlen(*want);
		if (strncmp(got, *want, len))
			return 0;
		got += len;
	}
	return !*got;
}

static void check(bool ok, const char *expr, int line)
{
	if (ok) {
		passed++;
		return;
	}
	failed++;
	printf("FAIL tests/unit.c:%d: %s\n", line, expr);
}

/* The printers are reached without a handle; these are never called */
int vctl_open(struct vctl *c)
{
	(void)c;
	abort();
}

int vctl_kernel_error(struct vctl *c, const char *what)
{
	(void)c;
	(void)what;
	abort();
}

/* What a parser must make of one text: @ret, and @val when @ret is 0 */
struct parse_case {
	const char *text;
	int ret;
	uint64_t val;
};

static const struct parse_case count_cases[] = {
	{ "0", 0, 0 },
	{ "128", 0, 128 },
	{ "max", 0, VRDMA_LIMIT_MAX },
	{ "18446744073709551615", 0, UINT64_MAX },
	{ "18446744073709551616", -ERANGE, 0 },
	{ "", -EINVAL, 0 },
	{ "-1", -EINVAL, 0 },
	{ "+1", -EINVAL, 0 },
	{ " 1", -EINVAL, 0 },
	{ "1 ", -EINVAL, 0 },
	{ "0x10", -EINVAL, 0 },
	{ "12K", -EINVAL, 0 },
	{ "MAX", -EINVAL, 0 },
	{ "maximum", -EINVAL, 0 },
};

static const struct parse_case size_cases[] = {
	{ "4096", 0, 4096 },
	{ "4K", 0, 4096 },
	{ "4k", 0, 4096 },
	{ "3M", 0, 3ULL << 20 },
	{ "2G", 0, 2ULL << 30 },
	{ "1T", 0, 1ULL << 40 },
	{ "0G", 0, 0 },
	{ "max", 0, VRDMA_LIMIT_MAX },
	{ "16777215T", 0, 16777215ULL << 40 },
	{ "16777216T", -ERANGE, 0 },
	{ "1KB", -EINVAL, 0 },
	{ "1KiB", -EINVAL, 0 },
	{ "1P", -EINVAL, 0 },
	{ "K", -EINVAL, 0 },
	{ "1.5G", -EINVAL, 0 },
	{ "-1G", -EINVAL, 0 },
	{ "", -EINVAL, 0 },
};

static const struct parse_case pid_cases[] = {
	{ "1", 0, 1 },
	{ "2147483647", 0, 2147483647 },
	{ "2147483648", -ERANGE, 0 },
	{ "0", -EINVAL, 0 },
	{ "max", -EINVAL, 0 },
	{ "self", -EINVAL, 0 },
};

/* The @n cases of @cases through @parse (@name in a failure's line) */
static void check_parse(const char *name,
			int (*parse)(const char *s, uint64_t *val),
			const struct parse_case *cases, size_t n)
{
	const struct parse_case *end = cases + n;
	uint64_t val;
	int ret;

	for (; cases < end; cases++) {
		val = 0;
		ret = parse(cases->text, &val);
		if (ret == cases->ret && (ret || val == cases->val)) {
			passed++;
			continue;
		}
		failed++;
		printf("FAIL %s(\"%s\"): %d, %llu; want %d, %llu\n", name,
		       cases->text, ret, (unsigned long long)val, cases->ret,
		       (unsigned long long)cases->val);
	}
}

/* vctl_parse_pid() with check_parse()'s type */
static int parse_pid(const char *s, uint64_t *val)
{
	int pid, ret;

	ret = vctl_parse_pid(s, &pid);
	if (!ret)
		*val = (uint64_t)pid;
	return ret;
}

static void test_parse(void)
{
	check_parse("vctl_parse_count", vctl_parse_count, count_cases,
		    ARRAY_SIZE(count_cases));
	check_parse("vctl_parse_size", vctl_parse_size, size_cases,
		    ARRAY_SIZE(size_cases));
	check_parse("vctl_parse_pid", parse_pid, pid_cases,
		    ARRAY_SIZE(pid_cases));
}

static void test_format_size(void)
{
	char buf[32];

	CHECK(!strcmp(vctl_format_size(0, buf, sizeof(buf)), "0"));
	CHECK(!strcmp(vctl_format_size(1000, buf, sizeof(buf)), "1000"));
	CHECK(!strcmp(vctl_format_size(4096, buf, sizeof(buf)), "4K"));
	CHECK(!strcmp(vctl_format_size(3ULL << 20, buf, sizeof(buf)), "3M"));
	CHECK(!strcmp(vctl_format_size(1536ULL << 20, buf, sizeof(buf)),
		      "1536M"));
	CHECK(!strcmp(vctl_format_size(1ULL << 40, buf, sizeof(buf)), "1T"));
	CHECK(!strcmp(vctl_format_size(VRDMA_LIMIT_MAX, buf, sizeof(buf)),
		      "max"));
}

/* Run @print with stdout going to a buffer */
static char *capture(void (*print)(void))
{
	static char buf[8192];
	FILE *tmp = tmpfile();
	int saved;
	size_t n;

	if (!tmp)
		return strcpy(buf, "(tmpfile failed)");
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	dup2(fileno(tmp), STDOUT_FILENO);
	print();
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	rewind(tmp);
	n = fread(buf, 1, sizeof(buf) - 1, tmp);
	buf[n] = '\0';
	fclose(tmp);
	return buf;
}

/*
 * @print's output with -j (@json) and -p (@pretty) must be the strings of
 * @want, up to NULL, one after the other; a different one is shown.
 */
static void check_output(bool json, bool pretty, void (*print)(void),
			 const char *const *want, int line)
{
	char *s;

	out_init(json, pretty);
	s = capture(print);
	check(same_text(s, want), "same_text(output, want)", line);
	if (!same_text(s, want))
		printf("%s", s);
}

#define CHECK_OUTPUT(json, pretty, print, ...) \
	check_output(json, pretty, print, \
		     (const char *const[]){ __VA_ARGS__, NULL }, __LINE__)

static struct vrdma_dev sample_dev(void)
{
	struct vrdma_dev d = { 0 };

	strcpy(d.name, "vr0");
	d.index = 7;
	strcpy(d.parent, "rxe0");
	d.driver_id = 14;
	d.netns_ino = 4026532301u;
	d.port_state = 4;
	vrdma_res_set(&d.limits, VRDMA_RES_CTX, 16);
	vrdma_res_set(&d.limits, VRDMA_RES_PD, VRDMA_LIMIT_MAX);
	vrdma_res_set(&d.limits, VRDMA_RES_MR_BYTES, 1ULL << 30);
	vrdma_res_set(&d.usage, VRDMA_RES_CTX, 1);
	vrdma_res_set(&d.usage, VRDMA_RES_PD, 2);
	vrdma_res_set(&d.usage, VRDMA_RES_MR_BYTES, 8192);
	strcpy(d.chardev, "uverbs3");
	d.chardev_major = 231;
	d.chardev_minor = 195;
	strcpy(d.netns_name, "blue");
	d.gid_mode = -1;	/* not reported: a kernel before GID modes */
	return d;
}

static void print_two_devs(void)
{
	struct vrdma_dev d = sample_dev();

	out_list_begin();
	vctl_print_dev(NULL, &d);
	/* Nothing user-space found, unknown driver and state */
	d.chardev[0] = '\0';
	d.netns_name[0] = '\0';
	d.driver_id = 99;
	d.port_state = 9;
	strcpy(d.name, "vr\"1");
	memset(&d.limits, 0, sizeof(d.limits));
	memset(&d.usage, 0, sizeof(d.usage));
	vctl_print_dev(NULL, &d);
	out_list_end();
}

static void print_empty_list(void)
{
	out_list_begin();
	out_list_end();
}

static void test_dev_text(void)
{
	CHECK_OUTPUT(false, false, print_two_devs,
		     "7: vr0: parent rxe0 driver rxe state ACTIVE cm off netns blue chardev uverbs3 (231:195)\n",
		     "    ctx 1/16 pd 2/max mr-bytes 8K/1G\n",
		     "7: vr\"1: parent rxe0 driver 99 state UNKNOWN cm off netns-inode 4026532301\n");
	CHECK_OUTPUT(false, false, print_empty_list, "");
}

static void print_acl_dev(void)
{
	struct vrdma_dev d = sample_dev();

	memset(&d.limits, 0, sizeof(d.limits));
	memset(&d.usage, 0, sizeof(d.usage));
	d.chardev[0] = '\0';
	d.peers.present = true;
	d.peers.count = 2;
	vrdma_acl_entry_parse("10.1.0.0/24", &d.peers.entry[0]);
	vrdma_acl_entry_parse("fd00:1::/64", &d.peers.entry[1]);
	vctl_print_dev(NULL, &d);
	d.sgids.present = true;
	d.sgids.count = 1;
	vrdma_acl_entry_parse("10.1.0.5", &d.sgids.entry[0]);
	d.gid_mode = VRDMA_GID_MODE_SHARED;
	d.flags |= VRDMA_DEV_F_CM;
	vctl_print_dev(NULL, &d);
}

static void test_dev_acl(void)
{
	char *s;

	CHECK_OUTPUT(false, false, print_acl_dev,
		     "7: vr0: parent rxe0 driver rxe state ACTIVE cm off netns blue\n",
		     "    sgid any peer 10.1.0.0/24 peer fd00:1::/64\n",
		     "7: vr0: parent rxe0 driver rxe state ACTIVE gids shared cm on netns blue\n",
		     "    sgid 10.1.0.5 peer 10.1.0.0/24 peer fd00:1::/64\n");
	out_init(true, false);
	s = capture(print_acl_dev);
	CHECK(strstr(s, "\"usage\":{},\"peers\":[\"10.1.0.0/24\",\"fd00:1::/64\"]}"));
	CHECK(strstr(s, "\"sgids\":[\"10.1.0.5\"],\"peers\":["));
	CHECK(strstr(s, "\"state\":\"ACTIVE\",\"gids\":\"shared\",\"cm\":\"on\","));
}

static void test_dev_json(void)
{
	CHECK_OUTPUT(true, false, print_two_devs,
		     "[{\"index\":7,\"name\":\"vr0\",\"parent\":\"rxe0\",\"driver_id\":14,",
		     "\"driver\":\"rxe\",\"state\":\"ACTIVE\",\"cm\":\"off\",",
		     "\"netns\":{\"inode\":4026532301,\"name\":\"blue\"},",
		     "\"chardev\":\"uverbs3\",\"chardev_dev\":\"231:195\",",
		     "\"limits\":{\"ctx\":16,\"pd\":null,\"mr_bytes\":1073741824},",
		     "\"usage\":{\"ctx\":1,\"pd\":2,\"mr_bytes\":8192}},",
		     "{\"index\":7,\"name\":\"vr\\\"1\",\"parent\":\"rxe0\",\"driver_id\":99,",
		     "\"state\":\"UNKNOWN\",\"cm\":\"off\",",
		     "\"netns\":{\"inode\":4026532301},",
		     "\"limits\":{},\"usage\":{}}]\n");
	CHECK_OUTPUT(true, false, print_empty_list, "[]\n");
}

static void print_one_dev(void)
{
	struct vrdma_dev d = sample_dev();

	memset(&d.usage, 0, sizeof(d.usage));
	memset(&d.limits, 0, sizeof(d.limits));
	vrdma_res_set(&d.limits, VRDMA_RES_QP, 4);
	out_list_begin();
	vctl_print_dev(NULL, &d);
	out_list_end();
}

static void test_dev_json_pretty(void)
{
	CHECK_OUTPUT(true, true, print_one_dev,
		     "[\n",
		     "    {\n",
		     "        \"index\": 7,\n",
		     "        \"name\": \"vr0\",\n",
		     "        \"parent\": \"rxe0\",\n",
		     "        \"driver_id\": 14,\n",
		     "        \"driver\": \"rxe\",\n",
		     "        \"state\": \"ACTIVE\",\n",
		     "        \"cm\": \"off\",\n",
		     "        \"netns\": {\n",
		     "            \"inode\": 4026532301,\n",
		     "            \"name\": \"blue\"\n",
		     "        },\n",
		     "        \"chardev\": \"uverbs3\",\n",
		     "        \"chardev_dev\": \"231:195\",\n",
		     "        \"limits\": {\n",
		     "            \"qp\": 4\n",
		     "        },\n",
		     "        \"usage\": {}\n",
		     "    }\n",
		     "]\n");
}

int main(void)
{
	test_parse();
	test_format_size();
	test_dev_text();
	test_dev_json();
	test_dev_json_pretty();
	test_dev_acl();
	printf("vrdmactl unit: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
