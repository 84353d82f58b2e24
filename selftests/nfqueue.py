#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""nfqueue.py QUEUE SECONDS [STOPFILE] - accept every packet of an NFQUEUE, over netlink.

Binds queue QUEUE (metadata only, NFQA_CFG_F_GSO left unset, so the kernel segments
GSO packets before queueing them, as a listener that does not know GSO asks), answers
NF_ACCEPT to each packet for SECONDS or until STOPFILE exists, then prints how many
packets it saw.
"""
import os
import socket
import struct
import sys
import time

NETLINK_NETFILTER = 12
NFNL_SUBSYS_QUEUE = 3
NFQNL_MSG_PACKET, NFQNL_MSG_VERDICT, NFQNL_MSG_CONFIG = 0, 1, 2
NFQA_CFG_CMD, NFQA_CFG_PARAMS = 1, 2
NFQA_PACKET_HDR, NFQA_VERDICT_HDR = 1, 2
NFQNL_CFG_CMD_BIND = 1
NFQNL_COPY_META = 1
NF_ACCEPT = 1
NLM_F_REQUEST, NLM_F_ACK = 1, 4
NLMSG_ERROR = 2


def attr(kind, payload):
    n = 4 + len(payload)
    return struct.pack("=HH", n, kind) + payload + b"\0" * (-n % 4)


def message(kind, queue, attrs, flags=NLM_F_REQUEST):
    body = struct.pack("!BBH", socket.AF_UNSPEC, 0, queue) + b"".join(attrs)
    return struct.pack("=IHHII", 16 + len(body), NFNL_SUBSYS_QUEUE << 8 | kind,
                       flags, 0, 0) + body


def attrs_of(data):
    out = {}
    while len(data) >= 4:
        n, kind = struct.unpack_from("=HH", data)
        if n < 4:
            break
        out[kind & 0x7fff] = data[4:n]
        data = data[(n + 3) & ~3:]
    return out


def main():
    queue, secs = int(sys.argv[1]), float(sys.argv[2])
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_NETFILTER)
    s.bind((0, 0))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    s.send(message(NFQNL_MSG_CONFIG, queue, [
        attr(NFQA_CFG_CMD, struct.pack("!BBH", NFQNL_CFG_CMD_BIND, 0, 0))],
        NLM_F_REQUEST | NLM_F_ACK))
    s.send(message(NFQNL_MSG_CONFIG, queue, [
        attr(NFQA_CFG_PARAMS, struct.pack("!IB", 0, NFQNL_COPY_META))],
        NLM_F_REQUEST | NLM_F_ACK))
    print("bound", flush=True)
    seen = 0
    stopfile = sys.argv[3] if len(sys.argv) > 3 else None
    end = time.monotonic() + secs
    s.settimeout(0.2)
    while time.monotonic() < end:
        if stopfile and os.path.exists(stopfile):
            break
        try:
            buf = s.recv(1 << 20)
        except socket.timeout:
            continue
        while len(buf) >= 16:
            n, kind = struct.unpack_from("=IH", buf)
            if kind == NLMSG_ERROR:
                err = struct.unpack_from("=i", buf, 16)[0]
                if err:
                    sys.exit("nfqueue: netlink error %d" % err)
            elif kind == NFNL_SUBSYS_QUEUE << 8 | NFQNL_MSG_PACKET:
                hdr = attrs_of(buf[20:n]).get(NFQA_PACKET_HDR)
                if hdr:
                    pid = struct.unpack_from("!I", hdr)[0]
                    s.send(message(NFQNL_MSG_VERDICT, queue, [
                        attr(NFQA_VERDICT_HDR, struct.pack("!II", NF_ACCEPT, pid))]))
                    seen += 1
            buf = buf[(n + 3) & ~3:]
    print(seen)


if __name__ == "__main__":
    main()
