#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Crafted frames for the system tests, written and read without ibex code.

Writes classic pcap files (microsecond timestamps, linktype Ethernet) of
frames built here from the standards (IPv4 with its header checksum, IPv6
with the UDP checksum, RoCEv2 BTH, 802.3x PAUSE, 802.1Qbb PFC, ibex credit
frames, LLDP, STP, slow protocols) with a pseudo-random payload per frame,
so a copy that carries bytes of another frame cannot compare equal.

  frames.py write OUT.pcap SPEC...   one frame per SPEC (see parse_spec)
  frames.py same A.pcap B.pcap       exit 0 when B holds A's frames, in order
  frames.py count A.pcap             number of frames

SPEC is KIND[:key=val]...; keys: n (repeat), size (frame length without
FCS), dst, src, vid (802.1Q tag), seed, qp (roce: BTH destination QP),
outer (VID[.VID...]: tags in front of vid's, outermost first) and otpid
(their TPID, 0x88a8 unless given: 802.1ad S+C; 0x8100 for C+C).
"""
import random
import struct
import sys

BCAST = "ff:ff:ff:ff:ff:ff"


def mac(s):
    return bytes(int(x, 16) for x in s.split(":"))


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s


def eth(dst, src, etype, vid, outer=(), otpid=0x88A8):
    h = mac(dst) + mac(src)
    for o in outer:
        h += struct.pack("!HH", otpid, o & 0xFFF)
    if vid is not None:
        h += struct.pack("!HH", 0x8100, vid & 0xFFF)
    return h + struct.pack("!H", etype)


def payload(rng, n):
    return rng.randbytes(max(n, 0))


def ip4(l4, proto=17):
    tot = 20 + len(l4)
    h = struct.pack("!BBHHHBBH4s4s", 0x45, 0x02, tot, 0, 0x4000, 64, proto,
                    0, bytes([10, 0, 0, 1]), bytes([10, 0, 1, 1]))
    h = h[:10] + struct.pack("!H", 0xFFFF - csum(h)) + h[12:]
    return h + l4


def ip6_udp(sport, dport, data):
    src = bytes([0xFD] + [0] * 14 + [1])
    dst = bytes([0xFD] + [0] * 14 + [2])
    ulen = 8 + len(data)
    udp = struct.pack("!HHHH", sport, dport, ulen, 0) + data
    pseudo = src + dst + struct.pack("!IxxxB", ulen, 17)
    c = 0xFFFF - csum(pseudo + udp)
    udp = udp[:6] + struct.pack("!H", c or 0xFFFF) + udp[8:]
    h = struct.pack("!IHBB", 0x60000000, ulen, 17, 64) + src + dst
    return h + udp


def udp4(sport, dport, data):
    return struct.pack("!HHHH", sport, dport, 8 + len(data), 0) + data


def bth(qp=0x11, psn=1):
    return struct.pack("!BBHI I", 0x04, 0, 0xFFFF, qp & 0xFFFFFF,
                       psn & 0xFFFFFF)


def build(kind, o, rng):
    """One frame of KIND with options @o (a dict of strings)."""
    dst = o.get("dst", BCAST)
    src = o.get("src", "02:00:00:00:0a:01")
    vid = int(o["vid"]) if "vid" in o else None
    size = int(o.get("size", 64))
    outer = [int(v) for v in o["outer"].split(".")] if "outer" in o else []
    otpid = int(o.get("otpid", "0x88a8"), 16)
    hl = 14 + (4 if vid is not None else 0) + 4 * len(outer)

    def hdr(etype):
        return eth(dst, src, etype, vid, outer, otpid)

    if kind == "raw":          # IEEE local experimental 2, random payload
        f = hdr(0x88B6) + payload(rng, size - hl)
    elif kind == "ip4udp":     # IPv4/UDP filling the frame
        f = hdr(0x0800)
        f += ip4(udp4(1000, 9, payload(rng, size - hl - 28)))
    elif kind == "ip6udp":
        f = hdr(0x86DD)
        f += ip6_udp(1000, 9, payload(rng, size - hl - 48))
    elif kind == "roce":       # RoCEv2: UDP 4791, BTH, payload, ICRC
        f = hdr(0x0800)
        n = size - hl - 20 - 8 - 12 - 4
        qp = int(o.get("qp", "0x11"), 16)
        f += ip4(udp4(49152, 4791, bth(qp) + payload(rng, n) + b"\0" * 4))
    elif kind == "pause":      # 802.3x PAUSE, quanta 0xffff
        f = hdr(0x8808) + struct.pack("!HH", 0x0001, 0xFFFF)
    elif kind == "pfc":        # 802.1Qbb: class-enable vector, 8 quanta
        f = hdr(0x8808) + struct.pack("!HH", 0x0101, 0x01)
        f += struct.pack("!8H", 0xFFFF, *([0] * 7))
    elif kind == "pfc-bad":    # MAC control with an unknown opcode
        f = hdr(0x8808) + struct.pack("!HH", 0x0777, 0)
    elif kind == "credit":     # ibex credit frame: one VL record
        f = hdr(0x88B5) + bytes([0xFC, 1, 0, 1])
        f += struct.pack("!HBBHH", 7, 0, 0, 0, 64)
    elif kind == "credit-bad":  # wrong magic
        f = hdr(0x88B5) + bytes([0xAB, 1, 0, 1])
        f += struct.pack("!HBBHH", 7, 0, 0, 0, 64)
    elif kind == "lldp":       # chassis id, port id, TTL, end TLVs
        tlv = (struct.pack("!HB", 1 << 9 | 7, 4) + mac(src) +
               struct.pack("!HB", 2 << 9 | 7, 3) + mac(src) +
               struct.pack("!HH", 3 << 9 | 2, 120) + b"\0\0")
        f = hdr(0x88CC) + tlv
    elif kind == "stp":        # 802.3 length + LLC 42 42 03 + config BPDU
        bpdu = struct.pack("!HBBB", 0, 0, 0, 0) + b"\x80\x00" + mac(src)
        bpdu += struct.pack("!I", 0) + b"\x80\x00" + mac(src)
        bpdu += struct.pack("!HHHHH", 0x8001, 0, 20 * 256, 2 * 256,
                            15 * 256)
        llc = b"\x42\x42\x03" + bpdu
        f = mac(dst) + mac(src) + struct.pack("!H", len(llc)) + llc
    elif kind == "lacp":       # slow protocols subtype 1, zero body
        f = hdr(0x8809) + b"\x01\x01" + b"\0" * 108
    elif kind == "eapol":
        f = hdr(0x888E) + b"\x02\x01\x00\x00"
    else:
        raise SystemExit("frames.py: unknown kind " + kind)
    return f + b"\0" * (60 - len(f)) if len(f) < 60 else f


def parse_spec(spec):
    kind, *kv = spec.split(":", 1)
    o = {}
    if kv:
        # values are MACs with ':' too: split on ',' between keys
        for item in kv[0].split(","):
            k, v = item.split("=", 1)
            o[k] = v
    return kind, o


def write(path, specs):
    out = [struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1)]
    t = 0
    for spec in specs:
        kind, o = parse_spec(spec)
        rng = random.Random(int(o.get("seed", 1)) + t)
        for _ in range(int(o.get("n", 1))):
            f = build(kind, o, rng)
            out.append(struct.pack("<IIII", 1704067200, t, len(f), len(f)))
            out.append(f)
            t += 1
    with open(path, "wb") as fp:
        fp.write(b"".join(out))


def read(path):
    with open(path, "rb") as fp:
        data = fp.read()
    if len(data) < 24:
        return []
    off, frames = 24, []
    while off + 16 <= len(data):
        incl, orig = struct.unpack_from("<II", data, off + 8)
        frames.append(data[off + 16:off + 16 + incl])
        off += 16 + incl
    return frames


def main(argv):
    if len(argv) >= 3 and argv[1] == "write":
        write(argv[2], argv[3:])
        return 0
    if len(argv) == 4 and argv[1] == "same":
        a, b = read(argv[2]), read(argv[3])
        if a == b:
            print("ok: %d frames byte-identical and in order" % len(a))
            return 0
        bad = sum(1 for x, y in zip(a, b) if x != y)
        print("%s: %d frames, %s: %d frames, %d differ" %
              (argv[2], len(a), argv[3], len(b), bad))
        return 1
    if len(argv) == 3 and argv[1] == "count":
        print(len(read(argv[2])))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
