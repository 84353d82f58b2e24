#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Send TCP GSO packets into this netns the way a VM's virtio NIC does.

  tapgso.py DEV ADDR/PLEN PEER DST COUNT
      create the tap DEV (with a virtio-net header, IFF_VNET_HDR), give it
      ADDR/PLEN, and write COUNT TCP packets of 8000 bytes from PEER (the
      "VM", an address in ADDR/PLEN) to DST, each one GSO packet
      (VIRTIO_NET_HDR_GSO_TCPV4, gso_size 1200, checksum partial). The
      kernel takes them as SKB_GSO_DODGY with gso_segs 0, as it takes a
      guest's TSO packets, and forwards them.
"""
import fcntl
import os
import socket
import struct
import subprocess
import sys
import time

TUNSETIFF = 0x400454ca
IFF_TAP = 0x0002
IFF_NO_PI = 0x1000
IFF_VNET_HDR = 0x4000
VIRTIO_NET_HDR_F_NEEDS_CSUM = 1
VIRTIO_NET_HDR_GSO_TCPV4 = 1
GSO_SIZE = 1200
PAYLOAD = 8000


def csum(data):
    if len(data) % 2:
        data += b'\0'
    s = sum(struct.unpack('!%dH' % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return s


def gso_frame(dstmac, srcmac, src, dst, seq):
    payload = os.urandom(PAYLOAD)
    tcp_len = 20 + len(payload)
    iph = bytearray(struct.pack('!BBHHHBBH4s4s', 0x45, 0, 20 + tcp_len, 1,
                                0, 64, 6, 0, socket.inet_aton(src),
                                socket.inet_aton(dst)))
    iph[10:12] = struct.pack('!H', (~csum(bytes(iph))) & 0xffff)
    # checksum partial: the field holds the pseudo-header sum, not inverted
    pseudo = socket.inet_aton(src) + socket.inet_aton(dst) + \
        struct.pack('!BBH', 0, 6, tcp_len)
    tcp = struct.pack('!HHIIBBHHH', 40000, 5001, seq, 1, 5 << 4, 0x18,
                      65535, csum(pseudo), 0)
    vnet = struct.pack('<BBHHHH', VIRTIO_NET_HDR_F_NEEDS_CSUM,
                       VIRTIO_NET_HDR_GSO_TCPV4, 14 + 20 + 20, GSO_SIZE,
                       14 + 20, 16)
    eth = dstmac + srcmac + b'\x08\x00'
    return vnet + eth + bytes(iph) + tcp + payload


def main(argv):
    if len(argv) != 6:
        raise SystemExit(__doc__)
    dev, addr, peer, dst, count = argv[1], argv[2], argv[3], argv[4], \
        int(argv[5])
    fd = os.open('/dev/net/tun', os.O_RDWR)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack('16sH', dev.encode(),
                                           IFF_TAP | IFF_NO_PI | IFF_VNET_HDR))
    subprocess.run(['ip', 'addr', 'add', addr, 'dev', dev], check=True)
    subprocess.run(['ip', 'link', 'set', dev, 'up'], check=True)
    peermac = bytes.fromhex('020000000055')
    subprocess.run(['ip', 'neigh', 'replace', peer, 'lladdr',
                    '02:00:00:00:00:55', 'dev', dev], check=True)
    # (not /sys/class/net: sysfs shows the namespace that mounted it)
    link = subprocess.run(['ip', '-br', 'link', 'show', 'dev', dev],
                          check=True, capture_output=True, text=True).stdout
    devmac = bytes.fromhex(link.split()[2].replace(':', ''))
    time.sleep(0.3)
    for i in range(count):
        os.write(fd, gso_frame(devmac, peermac, peer, dst, 1 + i * PAYLOAD))
    time.sleep(0.5)
    os.close(fd)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
