#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Send one hand-built request to the vrdma generic netlink family.

For tests that need messages vrdmactl would never send (missing, doubled or
malformed attributes).  Usage:

    nlraw.py CMD [ATTR=VALUE ...]

CMD is a command name from uapi/linux/vrdma.h without the prefix (DEV_NEW,
DEV_DEL, ...).  Each ATTR=VALUE adds an attribute: ATTR is an attribute name
without the VRDMA_ATTR_ prefix, or a number; VALUE is "str:TEXT" (NUL
terminated), "u8:N", "u32:N", "s32:N", "u64:N", "fd:PATH" (opens PATH, sends
the fd as s32), "hex:BYTES", "limits:RES=N,RES=N" (a nest of u64) or
"acl:ADDR/LEN,ADDR" (a nest of VRDMA_ACL_ENTRY nests, ADDR an IPv4 or IPv6
address, LEN the raw prefix length sent as u8; "acl:" is an empty list).
LIMITS, SGIDS and PEERS are sent with NLA_F_NESTED set, as libmnl does.

Prints "errno=E" and, when the kernel gave one, "msg=TEXT" for the
extended ACK, then exits 0 if the kernel accepted the request, else 1.
"""

import os
import socket
import struct
import sys

NETLINK_GENERIC = 16
NETLINK_EXT_ACK = 11
SOL_NETLINK = 270
NLM_F_REQUEST, NLM_F_ACK = 1, 4
NLMSG_ERROR = 2
NLMSGERR_ATTR_MSG = 1
GENL_ID_CTRL, CTRL_CMD_GETFAMILY = 0x10, 3
CTRL_ATTR_FAMILY_ID, CTRL_ATTR_FAMILY_NAME = 1, 2

CMDS = ["UNSPEC", "VERSION_GET", "DEV_NEW", "DEV_DEL", "DEV_SET", "DEV_GET",
        "PARENT_GET"]
ATTRS = ["UNSPEC", "PAD", "VERSION", "DEV_NAME", "DEV_INDEX", "PARENT_NAME",
         "DRIVER_ID", "NETNS_FD", "NETNS_PID", "NETNS_INO", "PORT_STATE",
         "LIMITS", "USAGE", "VDEV_COUNT", "PARENT_VDEVS", "REASON", "SGIDS",
         "PEERS", "GID_MODE"]
ACL_ENTRY, ACL_ADDR, ACL_PREFIX_LEN = 1, 2, 3
NLA_F_NESTED = 0x8000
NESTS = ("LIMITS", "SGIDS", "PEERS")
RES = ["UNSPEC", "PAD", "CTX", "PD", "CQ", "QP", "SRQ", "MR", "MW", "AH",
       "MR_BYTES"]


def nla(atype, payload):
    hdr = struct.pack("HH", 4 + len(payload), atype)
    return hdr + payload + b"\0" * (-len(payload) % 4)


def parse_attrs(data):
    attrs = {}
    while len(data) >= 4:
        alen, atype = struct.unpack_from("HH", data)
        if alen < 4:
            break
        attrs[atype & 0x3FFF] = data[4:alen]
        data = data[(alen + 3) & ~3:]
    return attrs


def value(spec):
    kind, _, text = spec.partition(":")
    if kind == "str":
        return text.encode() + b"\0"
    if kind in ("u8", "u32", "s32", "u64"):
        fmt = {"u8": "B", "u32": "I", "s32": "i", "u64": "Q"}[kind]
        return struct.pack(fmt, int(text, 0))
    if kind == "fd":
        return struct.pack("i", os.open(text, os.O_RDONLY))
    if kind == "hex":
        return bytes.fromhex(text)
    if kind == "limits":
        nest = b""
        for item in filter(None, text.split(",")):
            res, _, num = item.partition("=")
            nest += nla(RES.index(res.upper()), struct.pack("Q", int(num, 0)))
        return nest
    if kind == "acl":
        nest = b""
        for item in filter(None, text.split(",")):
            addr, _, plen = item.partition("/")
            if ":" in addr:
                raw = socket.inet_pton(socket.AF_INET6, addr)
            else:
                raw = b"\0" * 10 + b"\xff\xff" + \
                    socket.inet_pton(socket.AF_INET, addr)
            entry = nla(ACL_ADDR, raw)
            if plen:
                entry += nla(ACL_PREFIX_LEN, struct.pack("B", int(plen)))
            nest += nla(ACL_ENTRY | NLA_F_NESTED, entry)
        return nest
    raise SystemExit(f"nlraw: bad value '{spec}'")


class Genl:
    def __init__(self):
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                                  NETLINK_GENERIC)
        self.sock.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
        self.sock.bind((0, 0))
        self.seq = 0

    def request(self, family, cmd, attrs):
        """Send, and return (errno, extack message, reply attribute dicts)."""
        self.seq += 1
        body = struct.pack("BBH", cmd, 1, 0) + attrs
        self.sock.send(struct.pack("IHHII", 16 + len(body), family,
                                   NLM_F_REQUEST | NLM_F_ACK, self.seq, 0) +
                       body)
        replies = []
        while True:
            data = self.sock.recv(1 << 16)
            while len(data) >= 16:
                mlen, mtype, mflags, _, _ = struct.unpack_from("IHHII", data)
                if mtype == NLMSG_ERROR:
                    err = -struct.unpack_from("i", data, 16)[0]
                    # The request comes back whole unless NLM_F_CAPPED.
                    inner = 16
                    if not mflags & 0x100:
                        inner = struct.unpack_from("I", data, 20)[0]
                    ext = parse_attrs(data[20 + inner:mlen])
                    msg = ext.get(NLMSGERR_ATTR_MSG, b"").rstrip(b"\0")
                    return err, msg.decode(errors="replace"), replies
                replies.append(parse_attrs(data[20:mlen]))
                data = data[(mlen + 3) & ~3:]

    def family(self, name):
        err, msg, replies = self.request(
            GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
            nla(CTRL_ATTR_FAMILY_NAME, name.encode() + b"\0"))
        if err or not replies:
            raise SystemExit(f"nlraw: no family {name}: {msg or err}")
        return struct.unpack("H", replies[0][CTRL_ATTR_FAMILY_ID][:2])[0]


def main(argv):
    if len(argv) < 2:
        raise SystemExit(__doc__)
    genl = Genl()
    fam = genl.family("vrdma")
    cmd = CMDS.index(argv[1].upper())
    payload = b""
    for arg in argv[2:]:
        name, _, spec = arg.partition("=")
        atype = int(name) if name.isdigit() else ATTRS.index(name.upper())
        if not name.isdigit() and name.upper() in NESTS:
            atype |= NLA_F_NESTED
        payload += nla(atype, value(spec))
    err, msg, _ = genl.request(fam, cmd, payload)
    print(f"errno={err}")
    if msg:
        print(f"msg={msg}")
    return 0 if err == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
