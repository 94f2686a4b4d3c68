// SPDX-License-Identifier: GPL-2.0
/*
 * async_events DEVICE STOPFILE - count a device's asynchronous events.
 *
 * Opens DEVICE, prints "listening" once its async event file is open, then
 * reads every asynchronous event until STOPFILE exists (at most 120 s)
 * and prints
 *
 *	gid_change=N other=M
 *
 * Exit status 0 when it ran, 2 for bad arguments, 1 for a failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "util.h"

int main(int argc, char **argv)
{
	struct ibv_async_event ev;
	unsigned int gid = 0, other = 0;
	struct ibv_context *ctx;
	struct pollfd pfd;
	int i, flags, stop;

	if (argc != 3) {
		fprintf(stderr, "usage: %s DEVICE STOPFILE\n", argv[0]);
		return 2;
	}
	ctx = open_device_by_name(argv[1]);
	if (!ctx) {
		perror("async_events: open");
		return 1;
	}
	flags = fcntl(ctx->async_fd, F_GETFL);
	if (flags < 0 || fcntl(ctx->async_fd, F_SETFL, flags | O_NONBLOCK)) {
		perror("async_events: fcntl");
		return 1;
	}
	printf("listening\n");
	fflush(stdout);

	pfd.fd = ctx->async_fd;
	pfd.events = POLLIN;
	/* One last pass after STOPFILE appears reads what came before it */
	for (i = 0; i < 1200; i++) {
		stop = !access(argv[2], F_OK);
		if (poll(&pfd, 1, stop ? 0 : 100) > 0) {
			while (!ibv_get_async_event(ctx, &ev)) {
				if (ev.event_type == IBV_EVENT_GID_CHANGE)
					gid++;
				else
					other++;
				ibv_ack_async_event(&ev);
			}
		}
		if (stop)
			break;
	}
	printf("gid_change=%u other=%u\n", gid, other);
	ibv_close_device(ctx);
	return 0;
}
