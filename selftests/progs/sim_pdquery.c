// SPDX-License-Identifier: GPL-2.0
/*
 * sim_pdquery IBDEV - rdmasim's PD_QUERY driver method with and without
 * the FLAGS attribute that the pdquery2 variant's ABI makes mandatory,
 * then UAR_ALLOC, another driver method, on one ucontext.  One line per
 * call: "NAME ok ..." or "NAME err ERRNO_NAME ...".  The caller judges
 * the answers: natively on a pdquery2 device, pd_query_flags is ok and
 * pd_query_plain EINVAL (a mandatory attribute is missing); through a
 * vdevice, which declares PD_QUERY without FLAGS, both are EOPNOTSUPP.
 * Everything is released when the file closes.  Exit status 0 if the
 * context and PD could be set up.
 */
#include "sim_uverbs.h"

int main(int argc, char **argv)
{
	struct ib_uverbs_get_context gc = {};
	struct ib_uverbs_get_context_resp gcr = {};
	struct ib_uverbs_alloc_pd apd = {};
	struct ib_uverbs_alloc_pd_resp apdr = {};
	struct rdmasim_alloc_pd_resp sapdr = {};
	uint32_t pdn = 0, flags = 0, page_id = 0, uar_len = 0;
	uint64_t uar_off = 0;
	struct ioctl_buf b;
	int fd, err;

	if (argc != 2) {
		fprintf(stderr, "usage: %s IBDEV\n", argv[0]);
		return 2;
	}
	fd = open_uverbs(argv[1]);
	if (fd < 0) {
		report("open", errno ?: ENODEV, "%s", argv[1]);
		return 1;
	}
	err = write_cmd(fd, IB_USER_VERBS_CMD_GET_CONTEXT, &gc, sizeof(gc),
			NULL, 0, &gcr, sizeof(gcr), NULL, 0);
	report("get_context", err, NULL);
	if (err)
		return 1;
	err = write_cmd(fd, IB_USER_VERBS_CMD_ALLOC_PD, &apd, sizeof(apd),
			NULL, 0, &apdr, sizeof(apdr), &sapdr, sizeof(sapdr));
	report("alloc_pd", err, "pdn %u", sapdr.pdn);
	if (err)
		return 1;
	failed = 0;

	ioctl_init(&b, UVERBS_OBJECT_PD, RDMASIM_METHOD_PD_QUERY);
	ioctl_attr(&b, RDMASIM_ATTR_PD_QUERY_HANDLE, 0, apdr.pd_handle);
	ioctl_attr(&b, RDMASIM_ATTR_PD_QUERY_PDN, sizeof(pdn),
		   (uintptr_t)&pdn);
	ioctl_attr(&b, RDMASIM_ATTR_PD_QUERY_FLAGS, sizeof(flags),
		   (uintptr_t)&flags);
	err = ioctl_cmd(fd, &b);
	if (!err && pdn != sapdr.pdn)
		err = EBADMSG;
	report("pd_query_flags", err, "pdn %u", pdn);

	pdn = 0;
	ioctl_init(&b, UVERBS_OBJECT_PD, RDMASIM_METHOD_PD_QUERY);
	ioctl_attr(&b, RDMASIM_ATTR_PD_QUERY_HANDLE, 0, apdr.pd_handle);
	ioctl_attr(&b, RDMASIM_ATTR_PD_QUERY_PDN, sizeof(pdn),
		   (uintptr_t)&pdn);
	err = ioctl_cmd(fd, &b);
	if (!err && pdn != sapdr.pdn)
		err = EBADMSG;
	report("pd_query_plain", err, "pdn %u", pdn);

	ioctl_init(&b, RDMASIM_OBJECT_UAR, RDMASIM_METHOD_UAR_ALLOC);
	ioctl_attr(&b, RDMASIM_ATTR_UAR_ALLOC_HANDLE, 0, 0);
	ioctl_attr(&b, RDMASIM_ATTR_UAR_ALLOC_PAGE_ID, sizeof(page_id),
		   (uintptr_t)&page_id);
	ioctl_attr(&b, RDMASIM_ATTR_UAR_ALLOC_MMAP_LENGTH, sizeof(uar_len),
		   (uintptr_t)&uar_len);
	ioctl_attr(&b, RDMASIM_ATTR_UAR_ALLOC_MMAP_OFFSET, sizeof(uar_off),
		   (uintptr_t)&uar_off);
	err = ioctl_cmd(fd, &b);
	report("uar_alloc", err, "page %u length %u", page_id, uar_len);

	close(fd);
	return 0;
}
