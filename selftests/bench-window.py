#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Wall-clock traffic window of one benchmark run, for bench.sh.

    bench-window.py COUNTER_FILE

Polls a packet counter (the parent's sysfs hw_counters/sent_pkts) every
POLL seconds until SIGTERM, then prints one line

    first=T0 last=T1 window=SECONDS pkts=N polls=P

where T0 is the first poll that saw the counter move and T1 the last one.
The window is T1 - T0 plus one poll period (the traffic started somewhere in
the period before T0).  bench.sh divides the bytes a run is known to move
(iterations x size, fixed on perftest's command line) by this window: a
bandwidth figure that owes nothing to perftest's own clock, which is not
trustworthy under TCG (DESIGN.md).  Every run on the parent moves this
counter, native or vdevice alike, so both are measured the same way.
"""

import signal
import sys
import time

POLL = 0.002


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: bench-window.py COUNTER_FILE")
    path = sys.argv[1]
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))

    def read():
        with open(path) as f:
            return int(f.read())

    base = last_val = read()
    first = last = None
    polls = 0
    start = time.monotonic()
    # Tell bench.sh the baseline is taken (it starts the traffic after).
    print("ready", flush=True)
    while not stop:
        time.sleep(POLL)
        now = time.monotonic()
        val = read()
        polls += 1
        if val != last_val:
            if first is None:
                first = now
            last = now
            last_val = val
    if first is None:
        print("first=0 last=0 window=0 pkts=0 polls=%d" % polls)
        return
    # The period each poll stands for is the real interval between polls,
    # which a loaded guest stretches beyond POLL.
    period = max(POLL, (time.monotonic() - start) / max(polls, 1))
    print("first=%.6f last=%.6f window=%.6f pkts=%d polls=%d" %
          (first, last, last - first + period, last_val - base, polls))


if __name__ == "__main__":
    main()
