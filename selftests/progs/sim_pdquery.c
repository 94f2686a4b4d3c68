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
	struct ib_uverbs_alloc_pd apd = {};
	struct ib_uverbs_alloc_pd_resp apdr = {};
	struct rdmasim_alloc_pd_resp sapdr = {};
	uint32_t pdn = 0, flags = 0;
	struct sim_uar uar;
	int fd, err;

	fd = main_context(argc, argv);
	err = write_cmd(fd, IB_USER_VERBS_CMD_ALLOC_PD, &apd, sizeof(apd),
			NULL, 0, &apdr, sizeof(apdr), &sapdr, sizeof(sapdr));
	report("alloc_pd", err, "pdn %u", sapdr.pdn);
	if (err)
		return 1;
	failed = 0;

	err = pd_query(fd, apdr.pd_handle, &pdn, &flags);
	if (!err && pdn != sapdr.pdn)
		err = EBADMSG;
	report("pd_query_flags", err, "pdn %u", pdn);

	pdn = 0;
	err = pd_query(fd, apdr.pd_handle, &pdn, NULL);
	if (!err && pdn != sapdr.pdn)
		err = EBADMSG;
	report("pd_query_plain", err, "pdn %u", pdn);

	err = uar_alloc(fd, &uar);
	report("uar_alloc", err, "page %u length %u", uar.page_id,
	       uar.mmap_length);

	close(fd);
	return 0;
}
