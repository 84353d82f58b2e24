#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Capture, mangle and inject ESP frames on a veth for the bad-input selftests.

  espinject.py capture DEV FILE COUNT CMD...
      run CMD, save the first COUNT outgoing ESP frames seen on DEV to FILE
  espinject.py inject DEV FILE INDEX MANGLE [ARG] [MANGLE [ARG]]...
      send frame INDEX of FILE out of DEV after applying each MANGLE:
        replay            unchanged
        seq N             set the ESP sequence number to N (ICV no longer matches)
        flip              flip one bit of the last byte (the ICV)
        truncate N        keep only N bytes after the ESP header's start
        spi N             set the SPI to N
        trailer N         append N garbage bytes after the IP packet
        garbage N         replace everything after SPI+seq with N random bytes
  espinject.py flood DEV FILE INDEX N SEQ
      send N copies of frame INDEX, each with sequence number SEQ+i and
      0..1400 random bytes after the sequence number
  espinject.py null DEV SRCMAC DSTMAC SRC DST SPI SEQ DPORT TEXT [trailer N]
                    [csum good|bad]
      build a valid ESP-null (no auth) transport packet carrying one UDP
      datagram TEXT to DPORT, optionally with N garbage bytes after the IP
      packet (as Ethernet padding would be), and send it out of DEV. The
      UDP checksum is 0 (none) unless csum asks for a right or wrong one.
  espinject.py nested DEV SRCMAC DSTMAC SRC DST SPI SEQ KIND INNER_SPI
      build an ESP-null packet whose payload is another transform: KIND esp,
      ah or comp (that header, with INNER_SPI, after a transport-mode SA) or
      ipip-esp (an IPv4 packet SRC -> DST carrying ESP with INNER_SPI, after
      a tunnel-mode SA), and send it out of DEV
  espinject.py gcm-nested DEV SRCMAC DSTMAC SRC DST SPI SEQ KEY KIND INNER_SPI
      the same inside an rfc4106(gcm(aes)) packet sealed with KEY (hex: the
      AES key followed by the 4-byte salt, as ip xfrm takes it)
  espinject.py gcm-udp DEV SRCMAC DSTMAC SRC DST SPI SEQ KEY INNER_SRC INNER_DST
                       DPORT TEXT good|bad
      a tunnel-mode rfc4106(gcm(aes)) packet sealed with KEY carrying an IPv4
      UDP datagram INNER_SRC -> INNER_DST:DPORT with TEXT and a right or wrong
      (by one) UDP checksum, as a host behind the peer would have sent it
  espinject.py chacha-esn DEV SRCMAC DSTMAC SRC DST SPI KEY SEQ_HI DPORT
                          SEQ:TEXT...
      for each SEQ:TEXT in turn, a transport-mode rfc7539esp(chacha20,poly1305)
      packet of an ESN SA, sealed with KEY and high sequence half SEQ_HI,
      carrying a UDP datagram TEXT to DPORT, all through one socket
"""
import os
import select
import socket
import struct
import subprocess
import sys
import time

ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4


def ip_csum(hdr):
    s = 0
    for i in range(0, len(hdr), 2):
        s += (hdr[i] << 8) + hdr[i + 1]
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return (~s) & 0xffff


def esp_offset(frame):
    """(offset of the ESP header, is_ipv6) or None if frame is not ESP."""
    etype = struct.unpack('!H', frame[12:14])[0]
    if etype == 0x0800 and frame[23] == 50:
        return 14 + (frame[14] & 0xf) * 4, False
    if etype == 0x86dd and frame[20] == 50:
        return 14 + 40, True
    return None


def fix_len(frame, ip6, iplen):
    """Set the IP length field to iplen bytes of IP packet (v4: incl. header)."""
    f = bytearray(frame)
    if ip6:
        f[18:20] = struct.pack('!H', iplen - 40)
    else:
        f[16:18] = struct.pack('!H', iplen)
        f[24:26] = b'\0\0'
        ihl = (f[14] & 0xf) * 4
        f[24:26] = struct.pack('!H', ip_csum(f[14:14 + ihl]))
    return bytes(f)


def capture(dev, path, count, cmd):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    s.bind((dev, 0))
    proc = subprocess.Popen(cmd)
    frames = []
    deadline = time.time() + 30
    while len(frames) < count and time.time() < deadline:
        r, _, _ = select.select([s], [], [], 0.5)
        if not r:
            if proc.poll() is not None and not select.select([s], [], [], 1)[0]:
                break
            continue
        data, addr = s.recvfrom(65535)
        if addr[2] == PACKET_OUTGOING and esp_offset(data):
            frames.append(data)
    proc.wait()
    with open(path, 'wb') as fh:
        for f in frames:
            fh.write(struct.pack('!I', len(f)) + f)
    print(len(frames))
    return 0 if len(frames) == count else 1


def load(path):
    frames = []
    with open(path, 'rb') as fh:
        data = fh.read()
    i = 0
    while i < len(data):
        n = struct.unpack('!I', data[i:i + 4])[0]
        frames.append(data[i + 4:i + 4 + n])
        i += 4 + n
    return frames


def mangle(frame, how, arg):
    off, ip6 = esp_offset(frame)
    f = bytearray(frame)
    if how == 'replay':
        pass
    elif how == 'seq':
        f[off + 4:off + 8] = struct.pack('!I', int(arg, 0))
    elif how == 'flip':
        f[-1] ^= 0x01
    elif how == 'truncate':
        f = f[:off + int(arg, 0)]
        f = bytearray(fix_len(bytes(f), ip6, len(f) - 14))
    elif how == 'spi':
        f[off:off + 4] = struct.pack('!I', int(arg, 0))
    elif how == 'trailer':
        f += os.urandom(int(arg, 0))
    elif how == 'garbage':
        f = f[:off + 8] + bytearray(os.urandom(int(arg, 0)))
        f = bytearray(fix_len(bytes(f), ip6, len(f) - 14))
    else:
        raise SystemExit('unknown mangle ' + how)
    return bytes(f)


def send(dev, frame):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((dev, 0))
    s.send(frame)


def udp_csum(src, dst, udp):
    """The UDP checksum of udp (checksum field zero) from src to dst."""
    pseudo = socket.inet_aton(src) + socket.inet_aton(dst) + \
        struct.pack('!BBH', 0, 17, len(udp))
    data = pseudo + udp + (b'\0' if len(udp) % 2 else b'')
    return ip_csum(data) or 0xffff


def ipv4_header(src, dst, proto, payload_len):
    iph = bytearray(struct.pack('!BBHHHBBH4s4s', 0x45, 0, 20 + payload_len, 1,
                                0x4000, 64, proto, 0, socket.inet_aton(src),
                                socket.inet_aton(dst)))
    iph[10:12] = struct.pack('!H', ip_csum(iph))
    return bytes(iph)


def null_esp(srcmac, dstmac, src, dst, spi, seq, nexthdr, payload, trailer=0):
    """An IPv4 frame with an ESP-null (no auth) packet carrying payload."""
    padlen = (-(len(payload) + 2)) % 4
    pad = bytes(range(1, padlen + 1))
    esp = struct.pack('!II', spi, seq) + payload + pad + bytes([padlen, nexthdr])
    eth = bytes.fromhex(dstmac.replace(':', '')) + \
        bytes.fromhex(srcmac.replace(':', '')) + b'\x08\x00'
    return eth + ipv4_header(src, dst, 50, len(esp)) + esp + \
        os.urandom(trailer)


def udp_datagram(src, dst, dport, text, csum=None):
    """A UDP datagram src -> dst:dport carrying text; checksum 0 (none), or
    csum 'good' or 'bad' (present, non-zero and wrong by one)."""
    payload = text.encode()
    udp = struct.pack('!HHHH', 40000, dport, 8 + len(payload), 0) + payload
    if csum:
        good = udp_csum(src, dst, udp)
        value = good if csum == 'good' else good % 0xfffe + 1
        udp = udp[:6] + struct.pack('!H', value) + udp[8:]
    return udp


def null_packet(srcmac, dstmac, src, dst, spi, seq, dport, text, trailer,
                csum=None):
    udp = udp_datagram(src, dst, dport, text, csum)
    return null_esp(srcmac, dstmac, src, dst, spi, seq, 17, udp, trailer)


def aead_esp(srcmac, dstmac, src, dst, spi, seq, key, nexthdr, payload,
             cipher='gcm', seq_hi=None):
    """An IPv4 frame with an ESP packet carrying payload, sealed with key (the
    cipher's key followed by the 4-byte salt, as ip xfrm takes it) by
    rfc4106(gcm(aes)) or rfc7539esp(chacha20,poly1305); with seq_hi, an ESN
    SA's (the high half goes into the associated data, RFC 4303 2.2.1)."""
    from cryptography.hazmat.primitives.ciphers.aead import (
        AESGCM, ChaCha20Poly1305)
    aead = {'gcm': AESGCM, 'chacha': ChaCha20Poly1305}[cipher]
    iv = os.urandom(8)
    padlen = (-(len(payload) + 2)) % 4
    plain = payload + bytes(range(1, padlen + 1)) + bytes([padlen, nexthdr])
    hdr = struct.pack('!II', spi, seq)
    aad = hdr if seq_hi is None else struct.pack('!III', spi, seq_hi, seq)
    sealed = aead(key[:-4]).encrypt(key[-4:] + iv, plain, aad)
    esp = hdr + iv + sealed
    eth = bytes.fromhex(dstmac.replace(':', '')) + \
        bytes.fromhex(srcmac.replace(':', '')) + b'\x08\x00'
    return eth + ipv4_header(src, dst, 50, len(esp)) + esp


def nested_payload(src, dst, kind, inner_spi):
    """(next header, payload): another transform's header (no SA for it need
    exist): kind esp, ah or comp after a transport SA, or ipip-esp, an inner
    IPv4 packet src -> dst carrying ESP, after a tunnel SA."""
    tail = bytes(16)
    if kind == 'esp':
        nexthdr, payload = 50, struct.pack('!II', inner_spi, 1) + tail
    elif kind == 'ah':
        # next header UDP, length 4 (6 words: 12-byte ICV), SPI, seq, ICV
        nexthdr = 51
        payload = struct.pack('!BBHII', 17, 4, 0, inner_spi, 1) + bytes(12)
    elif kind == 'comp':
        nexthdr = 108
        payload = struct.pack('!BBH', 17, 0, inner_spi & 0xffff) + tail
    elif kind == 'ipip-esp':
        inner = struct.pack('!II', inner_spi, 1) + tail
        nexthdr, payload = 4, ipv4_header(src, dst, 50, len(inner)) + inner
    else:
        raise SystemExit(__doc__)
    return nexthdr, payload


def main(argv):
    if argv[1] == 'capture':
        return capture(argv[2], argv[3], int(argv[4]), argv[5:])
    if argv[1] == 'inject':
        frame = load(argv[3])[int(argv[4])]
        ops = argv[5:]
        while ops:
            how = ops.pop(0)
            arg = None if how in ('replay', 'flip') else ops.pop(0)
            frame = mangle(frame, how, arg)
        send(argv[2], frame)
        return 0
    if argv[1] == 'flood':
        frame = load(argv[3])[int(argv[4])]
        rnd = os.urandom(2 * int(argv[5]))
        for i in range(int(argv[5])):
            n = (rnd[2 * i] << 8 | rnd[2 * i + 1]) % 1401
            f = mangle(frame, 'seq', str(int(argv[6], 0) + i))
            send(argv[2], mangle(f, 'garbage', str(n)))
        return 0
    if argv[1] == 'null':
        trailer, csum, opts = 0, None, argv[11:]
        while opts:
            opt = opts.pop(0)
            if opt == 'trailer':
                trailer = int(opts.pop(0))
            elif opt == 'csum' and opts and opts[0] in ('good', 'bad'):
                csum = opts.pop(0)
            else:
                raise SystemExit(__doc__)
        send(argv[2], null_packet(argv[3], argv[4], argv[5], argv[6],
                                  int(argv[7], 0), int(argv[8], 0),
                                  int(argv[9]), argv[10], trailer, csum))
        return 0
    if argv[1] in ('nested', 'gcm-nested'):
        dev, smac, dmac, src, dst = argv[2:7]
        spi, seq = int(argv[7], 0), int(argv[8], 0)
        nexthdr, payload = nested_payload(src, dst, argv[-2],
                                          int(argv[-1], 0))
        if argv[1] == 'nested':
            frame = null_esp(smac, dmac, src, dst, spi, seq, nexthdr, payload)
        else:
            key = bytes.fromhex(argv[9].removeprefix('0x'))
            frame = aead_esp(smac, dmac, src, dst, spi, seq, key, nexthdr,
                             payload)
        send(dev, frame)
        return 0
    if argv[1] == 'gcm-udp' and len(argv) == 15 and argv[14] in ('good', 'bad'):
        dev, smac, dmac, src, dst = argv[2:7]
        isrc, idst = argv[10], argv[11]
        udp = udp_datagram(isrc, idst, int(argv[12]), argv[13], argv[14])
        inner = ipv4_header(isrc, idst, 17, len(udp)) + udp
        key = bytes.fromhex(argv[9].removeprefix('0x'))
        send(dev, aead_esp(smac, dmac, src, dst, int(argv[7], 0),
                           int(argv[8], 0), key, 4, inner))
        return 0
    if argv[1] == 'chacha-esn' and len(argv) > 11:
        dev, smac, dmac, src, dst = argv[2:7]
        spi, key = int(argv[7], 0), bytes.fromhex(argv[8].removeprefix('0x'))
        seq_hi, dport = int(argv[9], 0), int(argv[10])
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
        s.bind((dev, 0))
        for arg in argv[11:]:
            seq, text = arg.split(':', 1)
            udp = udp_datagram(src, dst, dport, text)
            s.send(aead_esp(smac, dmac, src, dst, spi, int(seq, 0), key, 17,
                            udp, 'chacha', seq_hi))
        return 0
    raise SystemExit(__doc__)


if __name__ == '__main__':
    sys.exit(main(sys.argv))
