#!/usr/bin/env bash
# System test: ibex-switch with eBPF classifiers on net_pcap ports, the
# output checked with tshark.
#
#   p0 <- in0: 300 RoCEv2 frames, 100 each to dest QP 0x150, 0x250, 0x999;
#      sl-from bpf qp_range.o: SL 2, 4, 1; sl2vl p0 drops SL 4.
#   p2 <- in2: 100 UDP frames, 50 to port 5201, 50 to 5202;
#      sl-from bpf drop_udp.o: 5201 dropped (bpf-drop), 5202 forwarded.
# Expected out of p1: the QP 0x150 and 0x999 frames and the 5202 ones,
# none of the others; drops counted as sl-drop (100) and bpf-drop (50).
#
#   test_bpf_pcap.sh IBEX_SWITCH IBEX_PCAPGEN QP_RANGE.O DROP_UDP.O
set -euo pipefail
sw=$1 qp=$3 dropudp=$4
command -v tshark >/dev/null || { echo "SKIP: tshark not installed"; exit 77; }
tmp=$(mktemp -d /tmp/ibex-bpf.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
fail() { echo "FAIL: $*" >&2; exit 1; }

# The frames, written by a builder that shares no code with ibex.
python3 - <<'PY'
import struct

def csum(b):
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff

def frame(dport, payload, src_mac, dst_mac=b"\x02\x00\x00\x00\x0b\x01"):
    udp = struct.pack("!HHHH", 49152, dport, 8 + len(payload), 0) + payload
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 26 << 2 | 2, 20 + len(udp), 0,
                     0x4000, 64, 17, 0, bytes([10, 0, 0, 1]),
                     bytes([10, 0, 1, 1]))
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    return dst_mac + src_mac + b"\x08\x00" + ip + udp

def bth(qp, psn):
    return struct.pack("!BBHI I", 0x04, 0x40, 0xffff, qp, psn & 0xffffff) + \
        bytes(64) + bytes(4)

def write(path, frames):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for i, fr in enumerate(frames):
            f.write(struct.pack("<IIII", 1, i, len(fr), len(fr)) + fr)

a = b"\x02\x00\x00\x00\x0a\x01"
c = b"\x02\x00\x00\x00\x0c\x01"
write("in0.pcap", [frame(4791, bth((0x150, 0x250, 0x999)[i % 3], i), a)
                   for i in range(300)])
write("in2.pcap", [frame((5201, 5202)[i % 2], bytes(64), c)
                   for i in range(100)])
write("empty.pcap", [])
PY

cat >switch.conf <<EOF
port p0 dev net_pcap0 vls 8 sl-from bpf $qp
port p1 dev net_pcap1 vls 8
port p2 dev net_pcap2 vls 8 sl-from bpf $dropudp:ibex
sl2vl p0 4:drop
fdb static 02:00:00:00:0b:01 port p1
EOF

"$sw" -l 0-1 --no-huge -m 512 --no-pci --file-prefix="ibexbpf$$" \
	--log-level='lib.*:notice' \
	--vdev "net_pcap0,rx_pcap=in0.pcap,tx_pcap=out0.pcap" \
	--vdev "net_pcap1,rx_pcap=empty.pcap,tx_pcap=out1.pcap" \
	--vdev "net_pcap2,rx_pcap=in2.pcap,tx_pcap=out2.pcap" \
	-- --config switch.conf --idle-stop 1 --json stats.json >switch.log 2>&1 ||
	{ cat switch.log; fail "ibex-switch exited non-zero"; }
grep "IBEX_BPF" switch.log || true
grep -q "instructions, JIT\|instructions, interpreted" switch.log ||
	fail "the switch did not say whether it JITs"

count() { tshark -r "$1" ${2:+-Y "$2"} 2>/dev/null | wc -l; }
expect() { # what got want
	[ "$2" -eq "$3" ] || fail "$1: got $2, want $3"
	echo "ok: $1 = $2"
}
expect "frames out of p1" "$(count out1.pcap)" 250
expect "QP 0x150 (SL 2)" "$(count out1.pcap 'infiniband.bth.destqp == 0x150')" 100
expect "QP 0x999 (SL 1)" "$(count out1.pcap 'infiniband.bth.destqp == 0x999')" 100
expect "QP 0x250 (SL 4, dropped)" "$(count out1.pcap 'infiniband.bth.destqp == 0x250')" 0
expect "UDP 5202" "$(count out1.pcap 'udp.dstport == 5202')" 50
expect "UDP 5201 (dropped by the program)" "$(count out1.pcap 'udp.dstport == 5201')" 0

python3 - stats.json <<'PY' || fail "JSON counters"
import json, sys
s = json.load(open(sys.argv[1]))
p = {x["name"]: x for x in s["ports"]}
def want(what, got, exp):
    if got != exp:
        print(f"{what}: got {got}, want {exp}"); sys.exit(1)
    print(f"ok: {what} = {got}")
want("p0 sl-drop", p["p0"]["drops"].get("sl-drop", 0), 100)
want("p2 bpf-drop", p["p2"]["drops"].get("bpf-drop", 0), 50)
want("p0 drops", sum(p["p0"]["drops"].values()), 100)
want("p2 drops", sum(p["p2"]["drops"].values()), 50)
PY
echo "PASS"
