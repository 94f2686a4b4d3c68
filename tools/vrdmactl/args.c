// SPDX-License-Identifier: GPL-2.0
/*
 * Values on the command line: object counts, byte sizes with binary
 * suffixes, and "max" for "as much as the parent has".  Strict: a value
 * is all digits (and one suffix for sizes), or it is rejected.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "vrdmactl.h"

/* Decimal digits only: no sign, no space, no hex; overflow is an error */
static int parse_digits(const char *s, const char **end, uint64_t *val)
{
	uint64_t v = 0;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	for (; isdigit((unsigned char)*s); s++) {
		unsigned int digit = *s - '0';

		if (v > (UINT64_MAX - digit) / 10)
			return -ERANGE;
		v = v * 10 + digit;
	}
	*end = s;
	*val = v;
	return 0;
}

/**
 * vctl_parse_count() - parse an object count
 * @s: "max" or a decimal number
 * @val: receives the value, VRDMA_LIMIT_MAX for "max"
 *
 * Return: 0, -EINVAL or -ERANGE.
 */
int vctl_parse_count(const char *s, uint64_t *val)
{
	const char *end;
	int ret;

	if (!strcmp(s, "max")) {
		*val = VRDMA_LIMIT_MAX;
		return 0;
	}
	ret = parse_digits(s, &end, val);
	if (ret)
		return ret;
	return *end ? -EINVAL : 0;
}

/**
 * vctl_parse_size() - parse a byte size
 * @s: "max", or a decimal number with an optional K, M, G or T suffix
 *	(either case, powers of 1024)
 * @val: receives the value in bytes, VRDMA_LIMIT_MAX for "max"
 *
 * Return: 0, -EINVAL or -ERANGE.
 */
int vctl_parse_size(const char *s, uint64_t *val)
{
	static const char suffixes[] = "KMGT";
	const char *end, *suffix;
	uint64_t v;
	int shift, ret;

	if (!strcmp(s, "max")) {
		*val = VRDMA_LIMIT_MAX;
		return 0;
	}
	ret = parse_digits(s, &end, &v);
	if (ret)
		return ret;
	if (!*end) {
		*val = v;
		return 0;
	}
	suffix = strchr(suffixes, toupper((unsigned char)*end));
	if (!suffix || end[1])
		return -EINVAL;
	shift = 10 * (int)(suffix - suffixes + 1);
	if (v > UINT64_MAX >> shift)
		return -ERANGE;
	*val = v << shift;
	return 0;
}

/**
 * vctl_parse_pid() - parse a process id
 * @s: a decimal number from 1 up
 * @pid: receives it
 *
 * Return: 0, -EINVAL or -ERANGE.
 */
int vctl_parse_pid(const char *s, int *pid)
{
	uint64_t v;
	int ret;

	ret = vctl_parse_count(s, &v);
	if (ret)
		return ret;
	if (!strcmp(s, "max") || v == 0)
		return -EINVAL;
	if (v > INT_MAX)
		return -ERANGE;
	*pid = (int)v;
	return 0;
}

/**
 * vctl_format_size() - render a byte size the way vctl_parse_size() reads it
 * @val: the size
 * @buf: output buffer
 * @len: its size
 *
 * Return: @buf, holding "max", "<n>G", "<n>M", "<n>K" when exact, or the
 * plain number.
 */
const char *vctl_format_size(uint64_t val, char *buf, size_t len)
{
	static const char suffixes[] = "TGMK";
	int i;

	if (val == VRDMA_LIMIT_MAX) {
		snprintf(buf, len, "max");
		return buf;
	}
	for (i = 0; val && suffixes[i]; i++) {
		int shift = 10 * (4 - i);

		if (!(val & ((1ULL << shift) - 1))) {
			snprintf(buf, len, "%llu%c",
				 (unsigned long long)(val >> shift), suffixes[i]);
			return buf;
		}
	}
	snprintf(buf, len, "%llu", (unsigned long long)val);
	return buf;
}
