/* SPDX-License-Identifier: GPL-2.0 */
/* An extended uverbs write() command, for the programs that build one by hand */
#ifndef VRDMA_PROGS_EX_CMD_H
#define VRDMA_PROGS_EX_CMD_H

#include <stddef.h>
#include <stdint.h>
#include <rdma/ib_user_verbs.h>

/*
 * Fill the two headers of extended command @cmd: the core parts of the
 * request and of the response are @in_len and @out_len bytes; the answer
 * goes to @resp; @drv_in_words and @drv_out_words words of driver data
 * follow the core parts.
 */
static inline void ex_cmd_hdr(struct ib_uverbs_cmd_hdr *hdr,
			      struct ib_uverbs_ex_cmd_hdr *ex, uint32_t cmd,
			      size_t in_len, size_t out_len, void *resp,
			      uint16_t drv_in_words, uint16_t drv_out_words)
{
	hdr->command = IB_USER_VERBS_CMD_FLAG_EXTENDED | cmd;
	/* Extended commands count their core parts in 8-byte words */
	hdr->in_words = in_len / 8;
	hdr->out_words = out_len / 8;
	ex->response = (uintptr_t)resp;
	ex->provider_in_words = drv_in_words;
	ex->provider_out_words = drv_out_words;
}

#endif /* VRDMA_PROGS_EX_CMD_H */
