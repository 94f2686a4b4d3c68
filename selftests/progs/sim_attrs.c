// SPDX-License-Identifier: GPL-2.0
/*
 * sim_attrs - what a parent driver reads of the caller's ioctl attributes
 * on core methods, on an rdmasim device or a vdevice on one: CQ create
 * (UVERBS_METHOD_CQ_CREATE by ioctl) with
 *
 *   - rdmasim's driver attribute RDMASIM_ATTR_CREATE_CQ_UAR_INDEX (as
 *     mlx5's MLX5_IB_ATTR_CREATE_CQ_UAR_INDEX), naming a doorbell page
 *     other than the one in the driver data: the driver must use it;
 *   - the core's UVERBS_ATTR_CREATE_CQ_BUF_UMEM (7.2+): a buffer the
 *     driver pins and reads through the umem;
 *
 * and QUERY_CONTEXT (UVERBS_METHOD_QUERY_CONTEXT) with rdmasim's
 * RDMASIM_ATTR_QUERY_CONTEXT_RESP (as mlx5's RESP_UCTX), which its
 * query_ucontext op fills with the number of UARs of the file's context.
 *
 *   sim_attrs IBDEV
 *
 * Prints one line per check, "CHECK ok DETAIL" or "CHECK err ERRNO DETAIL".
 * DETAIL is what the driver reported, in words that do not depend on the
 * device (page ids, handles), so that the lines of a native run and of a
 * vdevice run must be equal:
 *
 *   create_cq_uar_attr   uar=attr|ucmd|other
 *   create_cq_umem       umem=unknown (the kernel has no UMEM attributes),
 *                        umem=none (the driver got no buffer) or
 *                        umem=LENGTH:HEAD (what it read through the umem)
 *   create_cq_mandatory  the driver attribute marked mandatory (the core
 *                        refuses one it does not know: EPROTONOSUPPORT)
 *   create_cq_bad_uar    a page id the context does not own: EINVAL
 *   query_context        uars=N (the driver's count for this context: 2)
 *   query_context_no_resp  the mandatory driver attribute left out: EINVAL
 *
 * Exit status: 0 if every request got through the ABI (whatever the
 * driver saw), 1 otherwise; the caller compares the lines.
 */
#include <stdlib.h>

#include "sim_uverbs.h"

/* 7.2's UMEM attribute and buffer descriptor, absent from older headers */
#define SIM_ATTR_CREATE_CQ_BUF_UMEM	12
#define SIM_BUFFER_TYPE_VA		1
#define SIM_BUF_LEN			4096
#define SIM_BUF_HEAD			"SIMUMEM!"

struct sim_buffer_desc {
	uint32_t type;
	int32_t fd;
	uint32_t flags;
	uint32_t optional_flags;
	uint64_t addr;
	uint64_t length;
};

static void uar_destroy(int fd, uint32_t handle)
{
	struct ioctl_buf b;

	ioctl_init(&b, RDMASIM_OBJECT_UAR, RDMASIM_METHOD_UAR_DESTROY);
	ioctl_attr(&b, RDMASIM_ATTR_UAR_DESTROY_HANDLE, 0, handle);
	report("uar_destroy", ioctl_cmd(fd, &b), NULL);
}

static void cq_destroy(int fd, uint32_t handle)
{
	struct ib_uverbs_destroy_cq dcq = { .cq_handle = handle };
	struct ib_uverbs_destroy_cq_resp dcqr;

	report("destroy_cq", write_cmd(fd, IB_USER_VERBS_CMD_DESTROY_CQ, &dcq,
				       sizeof(dcq), NULL, 0, &dcqr,
				       sizeof(dcqr), NULL, 0), NULL);
}

/*
 * CQ create by ioctl: driver data naming page UCMD_PAGE; ATTR_PAGE as
 * rdmasim's attribute unless ~0U (with ATTR_FLAGS); BUF as the UMEM
 * attribute unless NULL.  The new CQ's handle in *HANDLE.
 */
static int cq_create(int fd, uint32_t ucmd_page, uint32_t attr_page,
		     uint16_t attr_flags, const struct sim_buffer_desc *buf,
		     struct rdmasim_create_cq_resp *resp, uint32_t *handle)
{
	struct rdmasim_create_cq ucmd = { .uar_page_id = ucmd_page };
	struct ib_uverbs_attr *h, *a;
	struct ioctl_buf b;
	uint64_t inl;
	uint32_t cqe_out;
	int err;

	memset(resp, 0, sizeof(*resp));
	ioctl_init(&b, UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_CREATE);
	h = ioctl_attr(&b, UVERBS_ATTR_CREATE_CQ_HANDLE, 0, 0);
	ioctl_attr(&b, UVERBS_ATTR_CREATE_CQ_CQE, sizeof(uint32_t), 16);
	ioctl_attr(&b, UVERBS_ATTR_CREATE_CQ_USER_HANDLE, sizeof(uint64_t), 0);
	ioctl_attr(&b, UVERBS_ATTR_CREATE_CQ_COMP_VECTOR, sizeof(uint32_t), 0);
	ioctl_attr(&b, UVERBS_ATTR_CREATE_CQ_RESP_CQE, sizeof(cqe_out),
		   (uintptr_t)&cqe_out);
	/* Up to 8 bytes travel inline, in the data word */
	memcpy(&inl, &ucmd, sizeof(ucmd));
	ioctl_attr(&b, UVERBS_ATTR_UHW_IN, sizeof(ucmd), inl);
	ioctl_attr(&b, UVERBS_ATTR_UHW_OUT, sizeof(*resp), (uintptr_t)resp);
	if (attr_page != ~0U) {
		a = ioctl_attr(&b, RDMASIM_ATTR_CREATE_CQ_UAR_INDEX,
			       sizeof(uint32_t), attr_page);
		a->flags = attr_flags;
	}
	if (buf)
		ioctl_attr(&b, SIM_ATTR_CREATE_CQ_BUF_UMEM, sizeof(*buf),
			   (uintptr_t)buf);
	err = ioctl_cmd(fd, &b);
	*handle = h->data;
	return err;
}

/*
 * QUERY_CONTEXT: the core's two answers, and rdmasim's in *RESP unless
 * RESP is NULL (the attribute is mandatory).  0 or the errno.
 */
static int query_context(int fd, struct rdmasim_query_ctx_resp *resp)
{
	uint64_t core_support = 0;
	uint32_t comp = 0;
	struct ioctl_buf b;

	ioctl_init(&b, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_CONTEXT);
	ioctl_attr(&b, UVERBS_ATTR_QUERY_CONTEXT_NUM_COMP_VECTORS,
		   sizeof(comp), (uintptr_t)&comp);
	ioctl_attr(&b, UVERBS_ATTR_QUERY_CONTEXT_CORE_SUPPORT,
		   sizeof(core_support), (uintptr_t)&core_support);
	if (resp) {
		memset(resp, 0, sizeof(*resp));
		ioctl_attr(&b, RDMASIM_ATTR_QUERY_CONTEXT_RESP, sizeof(*resp),
			   (uintptr_t)resp);
	}
	return ioctl_cmd(fd, &b);
}

int main(int argc, char **argv)
{
	struct rdmasim_query_ctx_resp qc;
	struct rdmasim_create_cq_resp resp;
	struct sim_buffer_desc desc = {};
	struct sim_uar uar_a, uar_b;
	uint32_t page_a, page_b, cq;
	char umem[64];
	char *buf;
	int fd, err;

	fd = main_context(argc, argv);
	err = uar_alloc(fd, &uar_a);
	page_a = uar_a.page_id;
	report("uar_alloc", err, NULL);
	if (err)
		return 1;
	err = uar_alloc(fd, &uar_b);
	page_b = uar_b.page_id;
	report("uar_alloc", err, NULL);
	if (err)
		goto out_a;

	/* The driver answers for the file's context: both pages are its */
	err = query_context(fd, &qc);
	report("query_context", err, "uars=%u magic=%s", qc.nr_uars,
	       qc.magic == RDMASIM_MAGIC ? "ok" : "bad");
	err = query_context(fd, NULL);
	report("query_context_no_resp", err == EINVAL ? 0 : (err ?: EPERM),
	       "got %s", err ? strerrorname_np(err) : "success");

	/* The driver data names page A, the driver attribute page B */
	err = cq_create(fd, page_a, page_b, 0, NULL, &resp, &cq);
	report("create_cq_uar_attr", err, "uar=%s",
	       resp.uar_page_id == page_b &&
	       (resp.flags & RDMASIM_CQ_RESP_UAR_FROM_ATTR) ? "attr" :
	       resp.uar_page_id == page_a ? "ucmd" : "other");
	if (!err)
		cq_destroy(fd, cq);

	/* The CQ buffer as the core's UMEM attribute */
	buf = aligned_alloc(SIM_BUF_LEN, SIM_BUF_LEN);
	if (!buf)
		goto out_b;
	memset(buf, 0, SIM_BUF_LEN);
	memcpy(buf, SIM_BUF_HEAD, strlen(SIM_BUF_HEAD));
	desc.type = SIM_BUFFER_TYPE_VA;
	desc.fd = -1;
	desc.addr = (uintptr_t)buf;
	desc.length = SIM_BUF_LEN;
	err = cq_create(fd, page_a, ~0U, 0, &desc, &resp, &cq);
	if (!(resp.flags & RDMASIM_CQ_RESP_UMEM_KNOWN))
		snprintf(umem, sizeof(umem), "unknown");
	else if (!resp.buf_length)
		snprintf(umem, sizeof(umem), "none");
	else
		snprintf(umem, sizeof(umem), "%llu:%.8s",
			 (unsigned long long)resp.buf_length,
			 (const char *)resp.buf_head);
	report("create_cq_umem", err, "umem=%s", umem);
	if (!err)
		cq_destroy(fd, cq);
	free(buf);

	/* Marked mandatory: refused by a core that does not know it */
	err = cq_create(fd, page_a, page_b, UVERBS_ATTR_F_MANDATORY, NULL,
			&resp, &cq);
	report("create_cq_mandatory", err, "uar=%s",
	       resp.uar_page_id == page_b ? "attr" : "other");
	if (!err)
		cq_destroy(fd, cq);

	/* Bad input in the attribute: a page this context does not own */
	err = cq_create(fd, page_a, page_b + 1000, 0, NULL, &resp, &cq);
	report("create_cq_bad_uar", err == EINVAL ? 0 : (err ?: EPERM),
	       "got %s", err ? strerrorname_np(err) : "success");
	if (!err)
		cq_destroy(fd, cq);
out_b:
	uar_destroy(fd, uar_b.handle);
out_a:
	uar_destroy(fd, uar_a.handle);
	close(fd);
	return failed;
}
