#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Bounded, seedable fuzzer for the vrdma generic netlink family.

Sends COUNT randomised requests (wrong types and lengths, unterminated
strings, huge values, missing, doubled and unknown attributes, deep and
malformed nesting, bogus headers and flags, several messages per datagram)
and checks that the kernel answers every request that carries NLM_F_ACK,
within a timeout, and still answers VERSION_GET every CHECK_EVERY messages.
Stops after COUNT messages or TIME_LIMIT seconds, whichever comes first.

Usage: nlfuzz.py [--count N] [--seed S] [--time-limit SECONDS]
                 [--netns-pid PID] [--parent NAME]

Vdevices it manages to create are named fz*; the caller deletes what is
left (see selftests/isolation/fuzz.sh).  Prints a summary line
"sent=N acked=N errors={errno: count} created=N answers=N ... elapsed=S"
(answers: distinct command, errno and extended ACK message) and exits 0, or
1 with a reason (no answer, family gone, time limit before COUNT).
"""

import argparse
import collections
import os
import random
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nlraw  # noqa: E402  (shared constants and the socket wrapper)

NLMSG_DONE = 3
# Seconds to wait for an answer; creating a vdevice is slow under TCG
ANSWER_TIMEOUT = 120
NLM_F_DUMP = 0x300
NLA_F_NESTED = 0x8000
NLA_F_NET_BYTEORDER = 0x4000
NLM_F_CAPPED = 0x100
NLM_F_ACK_TLVS = 0x200
NLMSGERR_ATTR_MSG = 1
NCMDS = len(nlraw.CMDS)
NATTRS = len(nlraw.ATTRS)
NRES = len(nlraw.RES)


class Fuzzer:
    def __init__(self, rnd, netns_pid, parent):
        self.r = rnd
        self.netns_pid = netns_pid
        self.parent = parent
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                                  nlraw.NETLINK_GENERIC)
        self.sock.setsockopt(nlraw.SOL_NETLINK, nlraw.NETLINK_EXT_ACK, 1)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
        self.sock.bind((0, 0))
        self.sock.settimeout(ANSWER_TIMEOUT)
        self.family = nlraw.Genl().family("vrdma")
        self.seq = 1000
        self.errors = collections.Counter()
        self.acked = 0
        self.created = 0
        self.last = b""
        self.slowest = (0.0, 0, 0)
        self.outcomes = set()
        self.cmd = 0

    # --- values ---------------------------------------------------------

    def name(self):
        r = self.r.random()
        if r < 0.6:
            return "fz%d" % self.r.randrange(3)
        if r < 0.7:
            return self.parent
        if r < 0.8:
            return ""
        if r < 0.9:
            return "x" * self.r.choice((63, 64, 255, 300, 1000))
        return "".join(chr(self.r.randrange(1, 256))
                       for _ in range(self.r.randrange(1, 20)))

    def junk(self, maxlen=40):
        return self.r.randbytes(self.r.randrange(0, maxlen))

    def num(self, size):
        choice = self.r.random()
        if choice < 0.3:
            v = self.r.choice((0, 1, 2, 7, 255))
        elif choice < 0.6:
            v = (1 << (8 * size)) - 1 - self.r.randrange(3)
        else:
            v = self.r.getrandbits(8 * size)
        return v.to_bytes(size, "little")

    def gid(self):
        if self.r.random() < 0.5:
            return b"\0" * 10 + b"\xff\xff" + self.r.randbytes(4)
        return self.r.randbytes(16)

    def acl_nest(self, depth):
        out = b""
        for _ in range(self.r.choice((0, 1, 2, 16, 17, 40))):
            choice = self.r.random()
            if choice < 0.7:
                entry = b""
                if self.r.random() < 0.9:
                    entry += nlraw.nla(2, self.gid() if self.r.random() < 0.9
                                       else self.junk(20))
                if self.r.random() < 0.7:
                    entry += nlraw.nla(3, self.num(self.r.choice((1, 1, 1, 4))))
                out += nlraw.nla(1 | self.nested(), entry)
            else:
                out += self.attr(depth + 1, self.r.randrange(0, 6))
        return out

    def res_nest(self, depth):
        out = b""
        for _ in range(self.r.randrange(0, 14)):
            t = self.r.randrange(0, NRES + 3)
            if self.r.random() < 0.8:
                out += nlraw.nla(t, self.num(8))
            else:
                out += self.attr(depth + 1, t)
        return out

    def nested(self):
        """NLA_F_NESTED, as real requests have it, most of the time"""
        return NLA_F_NESTED if self.r.random() < 0.85 else self.flag()

    def flag(self):
        r = self.r.random()
        if r < 0.1:
            return NLA_F_NESTED
        if r < 0.15:
            return NLA_F_NET_BYTEORDER
        return 0

    def payload_for(self, atype, depth):
        """A payload for attribute type @atype: mostly plausible, often not."""
        name = nlraw.ATTRS[atype] if atype < NATTRS else None
        if self.r.random() < 0.25 or depth > 8:
            return self.junk()
        if name in ("DEV_NAME", "PARENT_NAME", "VERSION"):
            s = self.name().encode("utf-8", "surrogateescape")
            return s + (b"\0" if self.r.random() < 0.85 else b"")
        if name in ("LIMITS", "USAGE"):
            return self.res_nest(depth)
        if name in ("SGIDS", "PEERS"):
            return self.acl_nest(depth)
        if name == "NETNS_PID":
            return struct.pack("I", self.r.choice(
                (self.netns_pid, 1, 0, 0x7fffffff, os.getpid())))
        if name == "NETNS_FD":
            return struct.pack("i", self.r.choice((-1, 0, 1, 2, 3, 999, 2**31 - 1)))
        if name == "PARENT_VDEVS" or self.r.random() < 0.1:
            return b"".join(self.attr(depth + 1, self.r.randrange(0, NATTRS + 2))
                            for _ in range(self.r.randrange(0, 4)))
        return self.num(self.r.choice((1, 2, 4, 8, 3)))

    def attr(self, depth, atype=None):
        if atype is None:
            atype = self.r.randrange(0, NATTRS + 3)
        payload = self.payload_for(atype, depth)
        name = nlraw.ATTRS[atype] if atype < NATTRS else None
        flag = self.nested() if name in nlraw.NESTS else self.flag()
        if self.r.random() < 0.02:
            # a length field that lies
            hdr = struct.pack("HH", self.r.choice((0, 1, 3, 5, 0xffff)),
                              atype | flag)
            return hdr + payload
        return nlraw.nla(atype | flag, payload)

    def plausible(self, cmd):
        """Attributes close to what a real request of @cmd carries."""
        attrs = [nlraw.nla(3, (self.name()).encode("utf-8", "surrogateescape")
                           + b"\0")]
        if cmd == 2:
            attrs.append(nlraw.nla(5, self.parent.encode() + b"\0"))
            attrs.append(nlraw.nla(8, struct.pack("I", self.netns_pid)))
        if self.r.random() < 0.5:
            attrs.append(nlraw.nla(11 | self.nested(), self.res_nest(1)))
        if self.r.random() < 0.5:
            attrs.append(nlraw.nla(self.r.choice((16, 17)) | self.nested(),
                                   self.acl_nest(1)))
        for _ in range(self.r.randrange(0, 3)):
            attrs.append(self.attr(1))
        self.r.shuffle(attrs)
        return b"".join(attrs)

    # --- messages -------------------------------------------------------

    def message(self):
        """(bytes, seq, expect_answer, is_dump)"""
        self.seq += 1
        cmd = self.r.randrange(0, NCMDS + 3)
        if self.r.random() < 0.15 and 2 <= cmd <= 4:
            attrs = self.plausible(cmd)
        else:
            attrs = b"".join(self.attr(0) for _ in range(self.r.randrange(0, 8)))
        version = 1 if self.r.random() < 0.9 else self.r.randrange(256)
        genl = struct.pack("BBH", cmd, version, 0)
        if self.r.random() < 0.02:
            genl = genl[:self.r.randrange(0, 4)]
            attrs = b""
        body = genl + attrs
        flags = nlraw.NLM_F_REQUEST | nlraw.NLM_F_ACK
        dump = self.r.random() < 0.1
        if dump:
            flags |= NLM_F_DUMP
        msg = struct.pack("IHHII", 16 + len(body), self.family, flags,
                          self.seq, 0) + body
        return msg, self.seq, True, dump

    def bogus_header(self):
        """A datagram the kernel may drop without an answer."""
        self.seq += 1
        body = self.junk(30)
        length = self.r.choice((0, 4, 15, 16 + len(body) + 8, 0xffffffff))
        return struct.pack("IHHII", length, self.family,
                           nlraw.NLM_F_REQUEST | nlraw.NLM_F_ACK,
                           self.seq, 0) + body

    # --- I/O ------------------------------------------------------------

    def wait_answer(self, seq, dump):
        """Read until the answer to @seq ends; return its errno (0 ok)."""
        while True:
            data = self.sock.recv(1 << 17)
            while len(data) >= 16:
                mlen, mtype, mflags, mseq, _ = struct.unpack_from("IHHII",
                                                                  data)
                if mlen < 16:
                    break
                if mseq == seq and mtype == nlraw.NLMSG_ERROR:
                    err = -struct.unpack_from("i", data, 16)[0]
                    self.outcome(data[:mlen], mflags, err)
                    return err
                if mseq == seq and mtype == NLMSG_DONE and dump:
                    return 0
                data = data[(mlen + 3) & ~3:]

    def outcome(self, ack, flags, err):
        """Count the distinct (command, errno, extended ACK message)
        answers: the variety of paths through the family's checks that
        the run reached, to size COUNT by (see selftests/isolation/fuzz.sh)."""
        text = b""
        # the request's header, and its payload unless the ACK is capped
        off = 20 + 16
        if not flags & NLM_F_CAPPED and len(ack) >= off:
            off = 20 + struct.unpack_from("I", ack, 20)[0]
        off = (off + 3) & ~3
        while flags & NLM_F_ACK_TLVS and off + 4 <= len(ack):
            alen, atype = struct.unpack_from("HH", ack, off)
            if alen < 4:
                break
            if atype == NLMSGERR_ATTR_MSG:
                text = ack[off + 4:off + alen].rstrip(b"\0")
            off += (alen + 3) & ~3
        self.outcomes.add((self.cmd, err, text))

    def drain(self):
        # Non-blocking for real: with a timeout set, Python polls first.
        self.sock.settimeout(0)
        try:
            while True:
                self.sock.recv(1 << 17)
        except BlockingIOError:
            pass
        finally:
            self.sock.settimeout(ANSWER_TIMEOUT)

    def one(self):
        if self.r.random() < 0.02:
            self.last = self.bogus_header()
            self.sock.send(self.last)
            self.drain()
            return
        msg, seq, _, dump = self.message()
        self.cmd = msg[16] if len(msg) > 16 else -1
        if self.r.random() < 0.03:
            # several messages in one datagram: wait for the last one
            more, seq, _, dump = self.message()
            self.cmd = more[16] if len(more) > 16 else -1
            msg = msg + b"\0" * (-len(msg) % 4) + more
        self.last = msg
        t0 = time.monotonic()
        self.sock.send(msg)
        err = self.wait_answer(seq, dump)
        took = time.monotonic() - t0
        if took > self.slowest[0]:
            self.slowest = (took, self.cmd, err)
        self.acked += 1
        self.errors[err] += 1
        if err == 0 and msg[16:17] == bytes([2]):
            self.created += 1

    def alive(self):
        err, msg, replies = nlraw.Genl().request(self.family, 1, b"")
        return err == 0 and replies and 2 in replies[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--count", type=int, default=100000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--time-limit", type=float, default=900)
    ap.add_argument("--netns-pid", type=int, default=1)
    ap.add_argument("--parent", default="rxe0")
    ap.add_argument("--check-every", type=int, default=2000)
    args = ap.parse_args()

    rnd = random.Random(args.seed)
    fz = Fuzzer(rnd, args.netns_pid, args.parent)
    start = time.monotonic()
    sent = 0
    while sent < args.count:
        if time.monotonic() - start > args.time_limit:
            print(f"nlfuzz: time limit {args.time_limit}s reached after "
                  f"{sent} of {args.count} messages")
            return 1
        try:
            fz.one()
        except socket.timeout:
            print(f"nlfuzz: no answer to message {sent} (seed {args.seed}) "
                  f"in {ANSWER_TIMEOUT}s: {fz.last.hex()}")
            return 1
        sent += 1
        if sent % args.check_every == 0:
            if not fz.alive():
                print(f"nlfuzz: VERSION_GET failed after {sent} messages")
                return 1
            print(f"nlfuzz: {sent} sent, {time.monotonic() - start:.0f}s, "
                  f"{len(fz.outcomes)} distinct answers", flush=True)
    errs = " ".join(f"{k}:{v}" for k, v in sorted(fz.errors.items()))
    print(f"sent={sent} acked={fz.acked} errors={{{errs}}} "
          f"created={fz.created} answers={len(fz.outcomes)} "
          f"seed={args.seed} "
          f"slowest={fz.slowest[0]:.2f}s(cmd {fz.slowest[1]}, errno {fz.slowest[2]}) "
          f"elapsed={time.monotonic() - start:.1f}")
    return 0 if fz.alive() else 1


if __name__ == "__main__":
    sys.exit(main())
