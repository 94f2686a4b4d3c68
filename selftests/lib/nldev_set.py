#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Send one RDMA_NLDEV_CMD_SET to the RDMA core's own netlink (nldev).

For the forms iproute2's "rdma dev set" cannot send, such as a move to
another namespace that renames the device at the same time (7.3: both
attributes in one request; earlier kernels act on one of them).  Usage:

    nldev_set.py INDEX [netns=PATH] [name=NEWNAME]

INDEX is the device's index ("rdma -j dev show DEV": ifindex), looked up in
the caller's network namespace.  netns=PATH sends RDMA_NLDEV_NET_NS_FD, an
fd of the namespace file PATH; name=NEWNAME sends RDMA_NLDEV_ATTR_DEV_NAME.

Prints "errno=E" and, when the kernel gave one, "msg=TEXT" for the
extended ACK, then exits 0 if the kernel accepted the request, else 1.
"""

import os
import socket
import struct
import sys

NETLINK_RDMA = 20
NETLINK_CAP_ACK, NETLINK_EXT_ACK = 10, 11
SOL_NETLINK = 270
NLM_F_REQUEST, NLM_F_ACK = 1, 4
NLMSG_ERROR = 2
NLMSGERR_ATTR_MSG = 1
# uapi/rdma/rdma_netlink.h: RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_SET)
RDMA_NL_NLDEV, RDMA_NLDEV_CMD_SET = 5, 2
ATTR_DEV_INDEX, ATTR_DEV_NAME, ATTR_NET_NS_FD = 1, 2, 68


def nla(atype, payload):
    hdr = struct.pack("HH", 4 + len(payload), atype)
    return hdr + payload + b"\0" * (-len(payload) % 4)


def ack_message(data):
    """The NLMSGERR_ATTR_MSG of an extended ACK, or None."""
    # struct nlmsgerr: error, then the request's header (NETLINK_CAP_ACK:
    # without its payload), then the TLVs
    off = 4 + 16
    while len(data) - off >= 4:
        alen, atype = struct.unpack_from("HH", data, off)
        if alen < 4:
            break
        if atype & 0x3fff == NLMSGERR_ATTR_MSG:
            return data[off + 4:off + alen].rstrip(b"\0").decode()
        off += (alen + 3) & ~3
    return None


def main(argv):
    if len(argv) < 2 or not argv[1].isdigit():
        print(__doc__.strip(), file=sys.stderr)
        return 2
    attrs = nla(ATTR_DEV_INDEX, struct.pack("I", int(argv[1])))
    fds = []
    for arg in argv[2:]:
        key, _, value = arg.partition("=")
        if key == "netns":
            fd = os.open(value, os.O_RDONLY)
            fds.append(fd)
            attrs += nla(ATTR_NET_NS_FD, struct.pack("I", fd))
        elif key == "name":
            attrs += nla(ATTR_DEV_NAME, value.encode() + b"\0")
        else:
            print(f"nldev_set: unknown argument {arg}", file=sys.stderr)
            return 2

    sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_RDMA)
    sock.setsockopt(SOL_NETLINK, NETLINK_CAP_ACK, 1)
    sock.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
    mtype = (RDMA_NL_NLDEV << 10) + RDMA_NLDEV_CMD_SET
    msg = struct.pack("IHHII", 16 + len(attrs), mtype,
                      NLM_F_REQUEST | NLM_F_ACK, 1, 0) + attrs
    sock.send(msg)
    data = sock.recv(65536)
    for fd in fds:
        os.close(fd)
    _, rtype = struct.unpack_from("IH", data)
    if rtype != NLMSG_ERROR:
        print(f"nldev_set: unexpected reply type {rtype}", file=sys.stderr)
        return 1
    err = -struct.unpack_from("i", data, 16)[0]
    print(f"errno={err}")
    text = ack_message(data[16:])
    if text:
        print(f"msg={text}")
    return 0 if err == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
