#!/usr/bin/env bash
# System test: UEC packet trimming on a lossy lane, checked with tshark.
#
#   p0 <- in0: 2000 RoCEv2 frames of 1024 bytes, DSCP 26, to B_i on p1,
#   read as fast as net_pcap reads (far above p1's rate).
#   p1 is shaped to 100 Mb/s with a 32 KB lane queue: lane 0 fills, and
#   what it would tail-drop leaves trimmed to 256 bytes, DSCP 46, on
#   lane 2, which the arbiter serves first.
# Expected: out1 holds whole frames and trimmed ones; every trimmed frame
# is a 256-byte RoCEv2 frame tshark decodes with DSCP 46, ECN-capable
# (ECT(0) kept, or CE from the trim lane's own marking), IPv4
# total length 242 and a good checksum, UDP length 222 (checksum 0) and
# its BTH; their number is the lane's `trimmed` counter; whole + trimmed
# + dropped = 2000 (a frame the full trim lane cannot take is dropped). Then `trim p1 off`: the same input only drops.
#
#   test_trim.sh IBEX_SWITCH IBEX_PCAPGEN
set -euo pipefail
sw=$1 gen=$2
command -v tshark >/dev/null || { echo "SKIP: no tshark"; exit 77; }
tmp=$(mktemp -d /tmp/ibex-trim.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
fail() { echo "FAIL: $*" >&2; exit 1; }

"$gen" -o in0.pcap -n 2000 -p 4 -s 1024 --kind roce --dscp 26 >/dev/null
"$gen" -o empty.pcap -n 0 >/dev/null

run() { # TRIM-LINE JSON OUT
	cat >switch.conf <<CONF
port p0 dev net_pcap0
port p1 dev net_pcap1 vls 4 shape 100M vl-queue 32KB
sl2vl p1 0-1:0,2:2,3-15:0
vlarb p1 high 2:255 low 0:64 limit unbounded
fdb static 02:00:00:00:0b:00 port p1
fdb static 02:00:00:00:0b:01 port p1
fdb static 02:00:00:00:0b:02 port p1
fdb static 02:00:00:00:0b:03 port p1
$1
CONF
	"$sw" -l 0-1 --no-huge -m 512 --no-pci --file-prefix="ibextrim$$" \
		--log-level='lib.*:notice' \
		--vdev "net_pcap0,rx_pcap=in0.pcap,tx_pcap=out0.pcap" \
		--vdev "net_pcap1,rx_pcap=empty.pcap,tx_pcap=$3" \
		-- --config switch.conf --idle-stop 3 --json "$2" >switch.log 2>&1 ||
		{ cat switch.log; fail "ibex-switch exited non-zero"; }
}
count() { tshark -r "$1" -o ip.check_checksum:TRUE ${2:+-Y "$2"} 2>/dev/null | wc -l; }

run "trim p1 size 256 dscp 46 vl 2" trim.json out1.pcap
whole=$(count out1.pcap 'frame.len == 1024')
trimmed=$(count out1.pcap 'frame.len == 256')
good=$(count out1.pcap 'frame.len == 256 && infiniband.bth && ip.dsfield.dscp == 46 &&
	ip.dsfield.ecn >= 2 && ip.len == 242 && ip.checksum.status == 1 &&
	udp.length == 222 && udp.checksum == 0')
echo "out1: $whole whole, $trimmed trimmed ($good as trimmed frames should be)"
[ "$trimmed" -gt 0 ] || fail "nothing was trimmed: the test cannot tell"
[ "$good" -eq "$trimmed" ] || fail "$((trimmed - good)) trimmed frames are not consistent"
python3 - trim.json "$whole" "$trimmed" <<'PY' || fail "counters disagree"
import json, sys
j = json.load(open(sys.argv[1]))
whole, trimmed = int(sys.argv[2]), int(sys.argv[3])
lanes = {(l["port"], l["vl"]): l for l in j["lanes"]}
l0, l2 = lanes[("p1", 0)], lanes[("p1", 2)]
print("lane p1/0: trimmed %d drops %d; lane p1/2: tx %d drops %d"
      % (l0["trimmed"], l0["drops"], l2["tx_frames"], l2["drops"]))
assert l0["trimmed"] == l2["tx_frames"] + l2["drops"], (l0, l2)
assert l2["tx_frames"] == trimmed, (l2, trimmed)
assert l0["tx_frames"] == whole, (l0, whole)
# every frame accounted for: whole, trimmed, or dropped (by lane 0 when
# the trim lane is full too)
assert whole + trimmed + l0["drops"] + l2["drops"] == 2000, (whole, trimmed, l0, l2)
PY
echo "ok: a full lossy lane trims instead of dropping; tshark finds every trimmed frame consistent"

run "trim p1 off" off.json out2.pcap
[ "$(count out2.pcap 'frame.len == 256')" -eq 0 ] || fail "trimmed with trim off"
python3 - off.json <<'PY' || fail "trim off"
import json, sys
j = json.load(open(sys.argv[1]))
l0 = [l for l in j["lanes"] if l["port"] == "p1" and l["vl"] == 0][0]
assert l0["trimmed"] == 0 and l0["drops"] > 0, l0
print("trim off: lane p1/0 drops %d, trimmed 0" % l0["drops"])
PY
echo "ok: trim off drops as before"
echo PASS
