/* SPDX-License-Identifier: MIT */
/*
 * The builds of tests/abi/consumer.c, one set of functions each; the unit
 * tests (tests/test_handle.c) run them on the mock kernel.
 */
#ifndef VRDMA_TEST_ABI_CONSUMERS_H
#define VRDMA_TEST_ABI_CONSUMERS_H

#include <stddef.h>

struct vrdma_handle;
struct vrdma_monitor;

size_t abi_v1_0_dev_size(void);
int abi_v1_0_dev_get(struct vrdma_handle *h);
int abi_v1_0_dev_list(struct vrdma_handle *h);
int abi_v1_0_parent_list(struct vrdma_handle *h);
int abi_v1_0_monitor(struct vrdma_monitor *m);

size_t abi_future_dev_size(void);
int abi_future_dev_get(struct vrdma_handle *h);
int abi_future_dev_list(struct vrdma_handle *h);
int abi_future_parent_list(struct vrdma_handle *h);
int abi_future_monitor(struct vrdma_monitor *m);

#endif /* VRDMA_TEST_ABI_CONSUMERS_H */
