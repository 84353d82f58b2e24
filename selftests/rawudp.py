#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Send UDP datagrams with wrong and right checksums, through a raw socket.

  rawudp.py SRC DST PORT COUNT TAG
      send COUNT datagrams "TAGbad<i>" (i = 1..COUNT) from SRC to DST:PORT
      with a wrong UDP checksum (one off), then COUNT "TAGgood<i>" with the
      right one, routed as any locally sent packet (the kernel leaves a raw
      socket's UDP header alone: nothing on the way fixes the checksum)
"""
import socket
import struct
import sys


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def datagram(src, dst, sport, dport, payload, bad):
    ulen = 8 + len(payload)
    pseudo = socket.inet_aton(src) + socket.inet_aton(dst) + \
        struct.pack("!BBH", 0, socket.IPPROTO_UDP, ulen)
    c = csum(pseudo + struct.pack("!HHHH", sport, dport, ulen, 0) + payload)
    c = c or 0xffff		# 0 means "no checksum" (RFC 768)
    if bad:
        # one off, and never 0 or its equal 0xffff
        c = c - 1 if c > 1 else 2
    return struct.pack("!HHHH", sport, dport, ulen, c) + payload


def main():
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    src, dst, port, count, tag = sys.argv[1:]
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_UDP)
    s.bind((src, 0))
    for kind in ("bad", "good"):
        for i in range(1, int(count) + 1):
            payload = ("%s%s%d\n" % (tag, kind, i)).encode()
            s.sendto(datagram(src, dst, 40000, int(port), payload,
                              kind == "bad"), (dst, 0))


if __name__ == "__main__":
    main()
