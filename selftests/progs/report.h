/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The "CHECK ok DETAIL" / "CHECK err ERRNO-NAME DETAIL" lines the selftests
 * read from the test programs (sim_*), one per check, flushed at once so
 * that a program killed or hung mid-way still shows how far it got.
 */
#ifndef VRDMA_PROGS_REPORT_H
#define VRDMA_PROGS_REPORT_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Set by report() on an error: the exit status */
static int failed;

static void report(const char *check, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void report(const char *check, int err, const char *fmt, ...)
{
	char detail[256] = "";
	va_list ap;

	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(detail, sizeof(detail), fmt, ap);
		va_end(ap);
	}
	if (err) {
		printf("%s err %s %s\n", check, strerrorname_np(err) ?: "?",
		       detail);
		failed = 1;
	} else {
		printf("%s ok %s\n", check, detail);
	}
	fflush(stdout);
}

#endif /* VRDMA_PROGS_REPORT_H */
