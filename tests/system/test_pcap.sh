#!/usr/bin/env bash
# System test: ibex-switch on three net_pcap ports, pcaps in, pcaps out,
# checked with tshark (frame counts per port and destination) and by a
# byte-for-byte comparison (frames unchanged, in order).
#
#   p0 <- in0: 1000 RoCEv2 frames A_i -> B_i (4 pairs), every 10th malformed
#   p2 <- in2: 50 broadcast frames from C
#   B_i are static FDB entries on p1.
# Expected: out1 = the 900 good unicast frames, unchanged and in order, plus
# the 50 broadcasts; out0 = the 50 broadcasts; out2 = nothing; 100 drops
# on p0 by malformation reason; JSON counters agree.
#
#   test_pcap.sh IBEX_SWITCH IBEX_PCAPGEN
set -euo pipefail
sw=$1 gen=$2
tmp=$(mktemp -d /tmp/ibex-pcap.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
fail() { echo "FAIL: $*" >&2; exit 1; }

"$gen" -o in0.pcap -n 1000 -p 4 --kind roce --malformed >/dev/null
"$gen" -o in2.pcap -n 50 -p 1 --kind udp --broadcast --src 02:00:00:00:0c:01 >/dev/null
"$gen" -o empty.pcap -n 0 >/dev/null

cat >switch.conf <<EOF
# three pcap ports in VLAN 1; the B stations are static on p1
port p0 dev net_pcap0
port p1 dev net_pcap1
port p2 dev net_pcap2
fdb static 02:00:00:00:0b:00 port p1
fdb static 02:00:00:00:0b:01 port p1
fdb static 02:00:00:00:0b:02 port p1
fdb static 02:00:00:00:0b:03 port p1
EOF

"$sw" -l 0-1 --no-huge -m 512 --no-pci --file-prefix="ibexpcap$$" \
	--log-level='lib.*:notice' \
	--vdev "net_pcap0,rx_pcap=in0.pcap,tx_pcap=out0.pcap" \
	--vdev "net_pcap1,rx_pcap=empty.pcap,tx_pcap=out1.pcap" \
	--vdev "net_pcap2,rx_pcap=in2.pcap,tx_pcap=out2.pcap" \
	-- --config switch.conf --idle-stop 3 --json stats.json >switch.log 2>&1 ||
	{ cat switch.log; fail "ibex-switch exited non-zero"; }

count() { tshark -r "$1" ${2:+-Y "$2"} 2>/dev/null | wc -l; }
expect() { # what got want
	[ "$2" -eq "$3" ] || fail "$1: got $2, want $3"
	echo "ok: $1 = $2"
}

expect "frames out of p1" "$(count out1.pcap)" 950
expect "RoCEv2 frames to B_i out of p1" \
	"$(count out1.pcap 'infiniband && eth.dst[0:5] == 02:00:00:00:0b')" 900
expect "broadcasts out of p1" "$(count out1.pcap 'eth.dst == ff:ff:ff:ff:ff:ff')" 50
expect "frames out of p0" "$(count out0.pcap)" 50
expect "broadcasts out of p0" "$(count out0.pcap 'eth.dst == ff:ff:ff:ff:ff:ff')" 50
expect "frames out of p2 (ingress of the broadcasts)" "$(count out2.pcap)" 0
expect "IPv4 checksums bad out of p1" \
	"$(tshark -r out1.pcap -o ip.check_checksum:TRUE -Y 'ip.checksum.status == 0' 2>/dev/null | wc -l)" 0

# Bytes unchanged and order kept: the unicast frames of out1 are exactly
# the well-formed frames of in0, in order. Read with a minimal pcap reader
# that shares no code with ibex.
python3 - in0.pcap out1.pcap <<'PY' || fail "frames changed or reordered"
import struct, sys

def frames(path):
    with open(path, "rb") as f:
        data = f.read()
    off, out = 24, []
    while off + 16 <= len(data):
        incl, orig = struct.unpack_from("<II", data, off + 8)
        out.append((data[off + 16:off + 16 + incl], orig))
        off += 16 + incl
    return out

inp = [b for b, orig in frames(sys.argv[1]) if len(b) == orig and len(b) >= 60]
outp = [b for b, _ in frames(sys.argv[2]) if b[:6] != b"\xff" * 6]
good = [b for b in inp if b in set(outp)]
if outp != good or len(outp) != 900:
    print(f"out1 unicast {len(outp)} frames, expected the 900 good ones in order")
    sys.exit(1)
print("ok: 900 frames byte-identical and in order")
PY

# Counters as ibex reports them.
python3 - stats.json <<'PY' || fail "JSON counters"
import json, sys
s = json.load(open(sys.argv[1]))
p = {x["name"]: x for x in s["ports"]}
def want(what, got, exp):
    if got != exp:
        print(f"{what}: got {got}, want {exp}"); sys.exit(1)
    print(f"ok: {what} = {got}")
want("p0 rx", p["p0"]["rx_frames"], 1000)
want("p2 rx", p["p2"]["rx_frames"], 50)
want("p1 tx", p["p1"]["tx_frames"], 950)
want("p0 tx", p["p0"]["tx_frames"], 50)
want("p2 tx", p["p2"]["tx_frames"], 0)
d = p["p0"]["drops"]
want("p0 drops", sum(d.values()), 100)
for r in ("runt", "ip4-trunc", "ip4-version", "ip4-ihl", "udp-len", "bth-trunc"):
    if d.get(r, 0) == 0:
        print(f"no drop counted as {r}"); sys.exit(1)
print("ok: every malformation kind counted under its own reason")
want("p2 flooded", p["p2"]["flooded"], 50)
PY
echo "PASS"
