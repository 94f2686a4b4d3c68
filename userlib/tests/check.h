/* SPDX-License-Identifier: MIT */
/*
 * A very small test harness: a test is a function of CHECKs; it passes
 * when all of them hold.  Failed checks print where and what.
 */
#ifndef VRDMA_TEST_CHECK_H
#define VRDMA_TEST_CHECK_H

#include <stdbool.h>

void check_report(bool ok, const char *expr, const char *file, int line);
void check_run(const char *name, void (*fn)(void));

#define CHECK(cond) check_report(!!(cond), #cond, __FILE__, __LINE__)
#define RUN(fn) check_run(#fn, fn)

/* Suites, one per file */
void suite_parse(void);
void suite_reply(void);
void suite_handle(void);
void suite_hostinfo(void);
void suite_acl(void);
void suite_abi(void);

#endif /* VRDMA_TEST_CHECK_H */
