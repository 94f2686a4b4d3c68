// SPDX-License-Identifier: GPL-2.0
/*
 * window - the wall-clock window in which a packet counter moved.
 *
 *   window COUNTER_FILE [POLL_US]
 *
 * Polls COUNTER_FILE (the parent's sysfs hw_counters/sent_pkts) every
 * POLL_US microseconds (default 5000) until SIGTERM or SIGINT, then prints
 *
 *   window=SECONDS pkts=N polls=P period=SECONDS
 *
 * The traffic started between the last poll that saw the counter unchanged
 * and the first that saw it move, and ended between the poll before the
 * last one that saw it move and that one; both ends are taken at the
 * middle of their interval, so the error is at most half a poll period at
 * each end and has no bias.  bench.sh divides what a run is known to move
 * (iterations x size, fixed on perftest's command line) by this window: a
 * figure that owes nothing to perftest's own clock, which is not
 * trustworthy under TCG (DESIGN.md).  Native and vdevice runs both move
 * the parent's counter, so both are measured the same way.
 *
 * It is C, and sleeps between two pread()s of an open file, so that its
 * polling steals as little CPU as possible from the two busy-polling
 * perftest processes it watches (a Python poller at 2 ms stretched
 * latency runs several-fold on a 2-CPU TCG guest).  It prints "ready" once
 * it has its baseline.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static long long read_counter(int fd, long long prev)
{
	char buf[64];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n == 0)	/* only a regular file being rewritten (a test) */
		return prev;
	if (n < 0) {
		perror("window: pread");
		exit(1);
	}
	buf[n] = '\0';
	return strtoll(buf, NULL, 10);
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	double t, prev_t, start_lo = 0, start_hi = 0, end_lo = 0, end_hi = 0;
	long long base, val, last_val;
	long polls = 0, poll_us = 5000;
	struct timespec ts;
	int fd, moved = 0;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: window COUNTER_FILE [POLL_US]\n");
		return 2;
	}
	if (argc == 3)
		poll_us = atol(argv[2]);
	if (poll_us < 100)
		poll_us = 100;
	fd = open(argv[1], O_RDONLY);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	base = last_val = read_counter(fd, 0);
	prev_t = now_s();
	printf("ready\n");
	fflush(stdout);
	ts.tv_sec = poll_us / 1000000;
	ts.tv_nsec = (poll_us % 1000000) * 1000;
	while (!stop) {
		nanosleep(&ts, NULL);
		val = read_counter(fd, last_val);
		t = now_s();
		polls++;
		if (val != last_val) {
			if (!moved) {
				start_lo = prev_t;
				start_hi = t;
				moved = 1;
			}
			end_lo = prev_t;
			end_hi = t;
			last_val = val;
		}
		prev_t = t;
	}
	if (!moved) {
		printf("window=0 pkts=0 polls=%ld period=0\n", polls);
		return 0;
	}
	printf("window=%.6f pkts=%lld polls=%ld period=%.6f\n",
	       (end_lo + end_hi) / 2 - (start_lo + start_hi) / 2,
	       last_val - base, polls, start_hi - start_lo);
	return 0;
}
