#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Instantiate or delete a crypto algorithm through the crypto_user netlink API.

  cryptouser.py add DRIVER_NAME      e.g. "pcrypt(seqiv(rfc4106-gcm-aesni))"
  cryptouser.py del DRIVER_NAME

This is what `crconf add driver ... type 3` does: the kernel instantiates the
template (pcrypt, cryptd, ...) at a priority above the algorithm it wraps, so
SAs created afterwards get the asynchronous implementation.
"""
import errno
import os
import socket
import struct
import sys

NETLINK_CRYPTO = 21
CRYPTO_MSG_NEWALG = 0x10
CRYPTO_MSG_DELALG = 0x11
NLM_F_REQUEST = 1
NLM_F_ACK = 4
NLMSG_ERROR = 2
CRYPTO_ALG_TYPE_AEAD = 0x3
CRYPTO_ALG_TYPE_MASK = 0xf


def request(msg_type, driver):
    alg = struct.pack('64s64s64sIIII', b'', driver.encode(), b'',
                      CRYPTO_ALG_TYPE_AEAD, CRYPTO_ALG_TYPE_MASK, 0, 0)
    hdr = struct.pack('=IHHII', 16 + len(alg), msg_type,
                      NLM_F_REQUEST | NLM_F_ACK, 1, 0)
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_CRYPTO)
    s.bind((0, 0))
    s.send(hdr + alg)
    reply = s.recv(65536)
    _, rtype, _, _, _ = struct.unpack('=IHHII', reply[:16])
    if rtype != NLMSG_ERROR:
        return 0
    err = -struct.unpack('=i', reply[16:20])[0]
    return err


def main(argv):
    if len(argv) != 3 or argv[1] not in ('add', 'del'):
        raise SystemExit(__doc__)
    err = request(CRYPTO_MSG_NEWALG if argv[1] == 'add' else CRYPTO_MSG_DELALG,
                  argv[2])
    if err and not (argv[1] == 'add' and err == errno.EEXIST):
        print('%s %s: %s' % (argv[1], argv[2], os.strerror(err)), file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
