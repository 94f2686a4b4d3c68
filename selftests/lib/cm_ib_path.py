#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""cm_ib_path.py SRC DST PORT LIFE - an RDMA CM connection along a path of
the caller's.

What an unprivileged process can do through librdmacm: instead of
resolving the route, it hands the RDMA CM a path record of its own
(rdma_set_option(RDMA_OPTION_IB, RDMA_OPTION_IB_PATH)), which cma accepts
on RoCE too.  The record runs from SRC to DST (IPv4 addresses, RoCE v2
GIDs) with packet life time LIFE (0 to 63, 4.096 us x 2^LIFE; the IBA
field has 6 bits, ib_cm sends 5), which ib_cm turns into the local ACK
timeout of its REQ and, once the connection ends, into how long its
timewait lasts.  Connects an RC QP (librdmacm's default PD and CQs) to
RDMA CM port PORT of DST, disconnects once established.

Prints "established" and exits 0, or prints what happened and exits 1;
exit status 2 for bad arguments.  Uses librdmacm through ctypes: the
project's C helpers link libibverbs only, and librdmacm's headers are not
a dependency of the build.
"""

import ctypes
import errno
import socket
import struct
import sys

AF_INET = 2
RDMA_PS_TCP = 0x0106
RDMA_OPTION_IB = 1
RDMA_OPTION_IB_PATH = 1
IBV_QPT_RC = 2
IBV_PATH_FLAG_GMP = 1 << 0
IBV_PATH_FLAG_PRIMARY = 1 << 1
IBV_PATH_FLAG_BIDIRECTIONAL = (1 << 3) | (1 << 5)
SELECTOR_EXACTLY = 2 << 6
IBV_MTU_1024 = 3
IBV_RATE_10_GBPS = 3

EVENTS = ["ADDR_RESOLVED", "ADDR_ERROR", "ROUTE_RESOLVED", "ROUTE_ERROR",
          "CONNECT_REQUEST", "CONNECT_RESPONSE", "CONNECT_ERROR",
          "UNREACHABLE", "REJECTED", "ESTABLISHED", "DISCONNECTED"]


class SockaddrIn(ctypes.Structure):
    """struct sockaddr_in"""
    _fields_ = [("family", ctypes.c_uint16), ("port", ctypes.c_uint16),
                ("addr", ctypes.c_uint8 * 4), ("zero", ctypes.c_uint8 * 8)]


class CmEvent(ctypes.Structure):
    """The head of struct rdma_cm_event: all that is read of it"""
    _fields_ = [("id", ctypes.c_void_p), ("listen_id", ctypes.c_void_p),
                ("event", ctypes.c_int), ("status", ctypes.c_int)]


class QpCap(ctypes.Structure):
    """struct ibv_qp_cap"""
    _fields_ = [("max_send_wr", ctypes.c_uint32),
                ("max_recv_wr", ctypes.c_uint32),
                ("max_send_sge", ctypes.c_uint32),
                ("max_recv_sge", ctypes.c_uint32),
                ("max_inline_data", ctypes.c_uint32)]


class QpInitAttr(ctypes.Structure):
    """struct ibv_qp_init_attr"""
    _fields_ = [("qp_context", ctypes.c_void_p),
                ("send_cq", ctypes.c_void_p), ("recv_cq", ctypes.c_void_p),
                ("srq", ctypes.c_void_p), ("cap", QpCap),
                ("qp_type", ctypes.c_int), ("sq_sig_all", ctypes.c_int)]


class ConnParam(ctypes.Structure):
    """struct rdma_conn_param"""
    _fields_ = [("private_data", ctypes.c_void_p),
                ("private_data_len", ctypes.c_uint8),
                ("responder_resources", ctypes.c_uint8),
                ("initiator_depth", ctypes.c_uint8),
                ("flow_control", ctypes.c_uint8),
                ("retry_count", ctypes.c_uint8),
                ("rnr_retry_count", ctypes.c_uint8),
                ("srq", ctypes.c_uint8),
                ("qp_num", ctypes.c_uint32)]


class Failure(Exception):
    """A step that did not go as it must"""


def sockaddr(ip, port=0):
    """A struct sockaddr_in of IPv4 address @ip and @port"""
    sa = SockaddrIn()
    sa.family = AF_INET
    sa.port = socket.htons(port)
    sa.addr[:] = list(socket.inet_aton(ip))
    return sa


def roce_gid(ip):
    """The RoCE v2 GID of IPv4 address @ip: IPv4-mapped"""
    return bytes(10) + b"\xff\xff" + socket.inet_aton(ip)


def path_data(src, dst, life):
    """struct ibv_path_data: a bidirectional primary path, @life its packet
    life time"""
    record = struct.pack(">Q16s16sHHIBBHHBBBB6x",
                         0,                     # service ID: cma's own
                         roce_gid(dst), roce_gid(src),
                         0, 0,                  # no LIDs on RoCE
                         64,                    # flow label 0, hop limit
                         0,                     # traffic class
                         0x80 | 1,              # reversible, one path
                         0xffff,                # the default P_Key
                         0,                     # SL
                         SELECTOR_EXACTLY | IBV_MTU_1024,
                         SELECTOR_EXACTLY | IBV_RATE_10_GBPS,
                         SELECTOR_EXACTLY | life,
                         0)                     # preference
    flags = IBV_PATH_FLAG_GMP | IBV_PATH_FLAG_PRIMARY | \
        IBV_PATH_FLAG_BIDIRECTIONAL
    return struct.pack("=II", flags, 0) + record


class Cm:
    """librdmacm, and the one connection of this program"""

    def __init__(self):
        self.lib = ctypes.CDLL("librdmacm.so.1", use_errno=True)
        self.lib.rdma_create_event_channel.restype = ctypes.c_void_p
        self.lib.rdma_create_id.argtypes = [
            ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p),
            ctypes.c_void_p, ctypes.c_int]
        self.lib.rdma_resolve_addr.argtypes = [
            ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int]
        self.lib.rdma_get_cm_event.argtypes = [
            ctypes.c_void_p, ctypes.POINTER(ctypes.POINTER(CmEvent))]
        self.lib.rdma_ack_cm_event.argtypes = [ctypes.POINTER(CmEvent)]
        self.lib.rdma_set_option.argtypes = [
            ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_void_p,
            ctypes.c_size_t]
        self.lib.rdma_create_qp.argtypes = [
            ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(QpInitAttr)]
        self.lib.rdma_connect.argtypes = [
            ctypes.c_void_p, ctypes.POINTER(ConnParam)]
        for name in ("rdma_disconnect", "rdma_destroy_qp", "rdma_destroy_id",
                     "rdma_destroy_event_channel"):
            getattr(self.lib, name).argtypes = [ctypes.c_void_p]
        self.chan = self.lib.rdma_create_event_channel()
        if not self.chan:
            self.fail("rdma_create_event_channel")
        self.cm_id = ctypes.c_void_p()
        self.qp = False

    def fail(self, what):
        """Raise the failure of call @what, with its errno"""
        err = ctypes.get_errno()
        raise Failure(f"{what}: {err} ({errno.errorcode.get(err, '?')})")

    def call(self, what, ret):
        """Check the return value @ret of call @what"""
        if ret:
            self.fail(what)

    def expect(self, want):
        """Wait for the next event; it must be @want"""
        ev = ctypes.POINTER(CmEvent)()
        self.call("rdma_get_cm_event", self.lib.rdma_get_cm_event(
            self.chan, ctypes.byref(ev)))
        event, status = ev.contents.event, ev.contents.status
        self.lib.rdma_ack_cm_event(ev)
        name = EVENTS[event] if 0 <= event < len(EVENTS) else str(event)
        if name != want:
            raise Failure(f"waiting for {want}: {name}, status {status}")

    def connect(self, src, dst, port, life):
        """The whole conversation; raises Failure"""
        self.call("rdma_create_id", self.lib.rdma_create_id(
            self.chan, ctypes.byref(self.cm_id), None, RDMA_PS_TCP))
        s, d = sockaddr(src), sockaddr(dst, port)
        self.call("rdma_resolve_addr", self.lib.rdma_resolve_addr(
            self.cm_id, ctypes.byref(s), ctypes.byref(d), 2000))
        self.expect("ADDR_RESOLVED")
        raw = path_data(src, dst, life)
        # the kernel takes whole records only: no terminating NUL
        data = ctypes.create_string_buffer(raw, len(raw))
        self.call("rdma_set_option(RDMA_OPTION_IB_PATH)",
                  self.lib.rdma_set_option(self.cm_id, RDMA_OPTION_IB,
                                           RDMA_OPTION_IB_PATH, data,
                                           len(raw)))
        self.expect("ROUTE_RESOLVED")
        attr = QpInitAttr(qp_type=IBV_QPT_RC,
                          cap=QpCap(max_send_wr=1, max_recv_wr=1,
                                    max_send_sge=1, max_recv_sge=1))
        self.call("rdma_create_qp", self.lib.rdma_create_qp(
            self.cm_id, None, ctypes.byref(attr)))
        self.qp = True
        param = ConnParam(responder_resources=1, initiator_depth=1,
                          retry_count=7, rnr_retry_count=7)
        self.call("rdma_connect", self.lib.rdma_connect(
            self.cm_id, ctypes.byref(param)))
        self.expect("ESTABLISHED")
        print("established", flush=True)
        self.call("rdma_disconnect", self.lib.rdma_disconnect(self.cm_id))
        self.expect("DISCONNECTED")

    def close(self):
        """Undo what was made"""
        if self.qp:
            self.lib.rdma_destroy_qp(self.cm_id)
        if self.cm_id:
            self.lib.rdma_destroy_id(self.cm_id)
        self.lib.rdma_destroy_event_channel(self.chan)


def main():
    """Arguments, then the connection"""
    try:
        src, dst, port, life = sys.argv[1:]
        socket.inet_aton(src)
        socket.inet_aton(dst)
        port, life = int(port), int(life)
        if not 0 < port < 65536 or not 0 <= life < 64:
            raise ValueError
    except (ValueError, OSError):
        print(__doc__.split("\n", 1)[0], file=sys.stderr)
        return 2
    try:
        cm = Cm()
    except (OSError, Failure) as err:
        print(err, flush=True)
        return 1
    try:
        cm.connect(src, dst, port, life)
    except Failure as err:
        print(err, flush=True)
        return 1
    finally:
        cm.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
