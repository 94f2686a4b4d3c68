// SPDX-License-Identifier: MIT
/*
 * Address ACLs: text form, request attributes and reply decoding.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static const uint8_t v4mapped_prefix[12] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff
};

static bool is_v4mapped(const uint8_t *addr)
{
	return !memcmp(addr, v4mapped_prefix, sizeof(v4mapped_prefix));
}

static void clear_host_bits(struct vrdma_acl_entry *e)
{
	unsigned int i;

	for (i = 0; i < 16; i++) {
		if (8 * i >= e->prefix_len)
			e->addr[i] = 0;
		else if (8 * (i + 1) > e->prefix_len)
			e->addr[i] &= (uint8_t)(0xff00 >> (e->prefix_len - 8 * i));
	}
}

int vrdma_acl_entry_parse(const char *text, struct vrdma_acl_entry *entry)
{
	char addr[INET6_ADDRSTRLEN + 1];
	const char *slash;
	unsigned long plen;
	unsigned int max;
	size_t alen;
	char *end;

	memset(entry, 0, sizeof(*entry));
	if (!text)
		return -EINVAL;
	slash = strchr(text, '/');
	alen = slash ? (size_t)(slash - text) : strlen(text);
	if (!alen || alen >= sizeof(addr))
		return -EINVAL;
	memcpy(addr, text, alen);
	addr[alen] = '\0';

	if (inet_pton(AF_INET, addr, entry->addr + 12) == 1) {
		memcpy(entry->addr, v4mapped_prefix, sizeof(v4mapped_prefix));
		max = 32;
	} else if (inet_pton(AF_INET6, addr, entry->addr) == 1) {
		max = 128;
	} else {
		return -EINVAL;
	}
	plen = max;
	if (slash) {
		if (slash[1] < '0' || slash[1] > '9')
			return -EINVAL;
		errno = 0;
		plen = strtoul(slash + 1, &end, 10);
		if (errno || *end || plen > max)
			return -EINVAL;
	}
	entry->prefix_len = (uint8_t)(plen + 128 - max);
	clear_host_bits(entry);
	return 0;
}

const char *vrdma_acl_entry_format(const struct vrdma_acl_entry *entry,
				   char *buf, size_t len)
{
	char addr[INET6_ADDRSTRLEN];
	bool v4 = is_v4mapped(entry->addr) && entry->prefix_len >= 96;
	unsigned int plen = entry->prefix_len;

	if (v4) {
		inet_ntop(AF_INET, entry->addr + 12, addr, sizeof(addr));
		plen -= 96;
	} else {
		inet_ntop(AF_INET6, entry->addr, addr, sizeof(addr));
	}
	if (entry->prefix_len == 128)
		snprintf(buf, len, "%s", addr);
	else
		snprintf(buf, len, "%s/%u", addr, plen);
	return buf;
}

/**
 * vrdma_put_acl() - add an ACL nest to a request
 * @h: the handle, for errors
 * @nlh: the request
 * @type: VRDMA_ATTR_SGIDS or VRDMA_ATTR_PEERS
 * @acl: the ACL; nothing is added when NULL or not present
 *
 * Return: 0 or -EINVAL for too many entries.
 */
int vrdma_put_acl(struct vrdma_handle *h, struct nlmsghdr *nlh, int type,
		  const struct vrdma_acl *acl)
{
	struct nlattr *list, *entry;
	unsigned int i;

	if (!acl || !acl->present)
		return 0;
	if (acl->count > VRDMA_ACL_MAX_ENTRIES)
		return vrdma_set_error(h, -EINVAL,
				       "too many addresses: at most %d",
				       VRDMA_ACL_MAX_ENTRIES);
	list = mnl_attr_nest_start(nlh, type);
	for (i = 0; i < acl->count; i++) {
		entry = mnl_attr_nest_start(nlh, VRDMA_ACL_ENTRY);
		mnl_attr_put(nlh, VRDMA_ACL_ADDR, sizeof(acl->entry[i].addr),
			     acl->entry[i].addr);
		mnl_attr_put_u8(nlh, VRDMA_ACL_PREFIX_LEN,
				acl->entry[i].prefix_len);
		mnl_attr_nest_end(nlh, entry);
	}
	mnl_attr_nest_end(nlh, list);
	return 0;
}

/*
 * One VRDMA_ACL_ENTRY: an address of exactly 16 bytes and an optional u8
 * prefix length of at most 128; unknown attributes are skipped.
 */
static int parse_entry(const struct nlattr *nest, struct vrdma_acl_entry *e)
{
	const struct nlattr *attr;
	bool have_addr = false;
	const char *end;

	if (mnl_attr_get_type(nest) != VRDMA_ACL_ENTRY)
		return -EPROTO;
	e->prefix_len = 128;
	end = (const char *)mnl_attr_get_payload(nest) +
	      mnl_attr_get_payload_len(nest);
	for (attr = mnl_attr_get_payload(nest);
	     mnl_attr_ok(attr, (int)(end - (const char *)attr));
	     attr = mnl_attr_next(attr)) {
		switch (mnl_attr_get_type(attr)) {
		case VRDMA_ACL_ADDR:
			if (mnl_attr_get_payload_len(attr) != sizeof(e->addr))
				return -EPROTO;
			memcpy(e->addr, mnl_attr_get_payload(attr),
			       sizeof(e->addr));
			have_addr = true;
			break;
		case VRDMA_ACL_PREFIX_LEN:
			if (mnl_attr_validate(attr, MNL_TYPE_U8) < 0 ||
			    mnl_attr_get_u8(attr) > 128)
				return -EPROTO;
			e->prefix_len = mnl_attr_get_u8(attr);
			break;
		default:
			break;
		}
	}
	if ((const char *)attr < end || !have_addr)
		return -EPROTO;
	return 0;
}

/**
 * vrdma_parse_acl() - decode a VRDMA_ATTR_SGIDS or VRDMA_ATTR_PEERS nest
 * @nest: the nest, validated as MNL_TYPE_NESTED
 * @acl: receives the ACL, marked present; cleared on failure
 *
 * Return: 0 or -EPROTO (a malformed entry, trailing bytes, or more
 * entries than VRDMA_ACL_MAX_ENTRIES).
 */
int vrdma_parse_acl(const struct nlattr *nest, struct vrdma_acl *acl)
{
	const struct nlattr *attr;
	const char *end;
	int ret;

	memset(acl, 0, sizeof(*acl));
	end = (const char *)mnl_attr_get_payload(nest) +
	      mnl_attr_get_payload_len(nest);
	for (attr = mnl_attr_get_payload(nest);
	     mnl_attr_ok(attr, (int)(end - (const char *)attr));
	     attr = mnl_attr_next(attr)) {
		if (acl->count == VRDMA_ACL_MAX_ENTRIES) {
			ret = -EPROTO;
			goto err_clear;
		}
		ret = parse_entry(attr, &acl->entry[acl->count]);
		if (ret)
			goto err_clear;
		acl->count++;
	}
	if ((const char *)attr < end) {
		ret = -EPROTO;
		goto err_clear;
	}
	acl->present = true;
	return 0;

err_clear:
	memset(acl, 0, sizeof(*acl));
	return ret;
}
