// SPDX-License-Identifier: MIT
/*
 * libvrdma unit tests: the parser, the reply walker and the request logic
 * on messages built in memory, through a mock transport.  No kernel needed.
 */
#include <stdio.h>

#include "check.h"

static int tests_passed, tests_failed;
static int current_failures;

void check_report(bool ok, const char *expr, const char *file, int line)
{
	if (ok)
		return;
	current_failures++;
	printf("    %s:%d: check failed: %s\n", file, line, expr);
}

void check_run(const char *name, void (*fn)(void))
{
	current_failures = 0;
	fn();
	if (current_failures) {
		tests_failed++;
		printf("FAIL %s\n", name);
	} else {
		tests_passed++;
		printf("ok   %s\n", name);
	}
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	suite_parse();
	suite_reply();
	suite_handle();
	suite_hostinfo();
	suite_acl();
	suite_abi();
	printf("%d passed, %d failed\n", tests_passed, tests_failed);
	return tests_failed ? 1 : 0;
}
