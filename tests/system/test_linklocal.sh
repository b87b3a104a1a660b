#!/usr/bin/env bash
# System test: link-local frames as 802.1Q has them, replayed from crafted
# pcaps with exact accounting.
#
# p0 runs fc none, p1 fc pfc, p2 fc credit; station X (static) is on p3;
# p4 is an ordinary port. Each of p0..p2 receives the same 17 frames from
# its own station: a data frame to X (fills the flow cache), 802.3x PAUSE,
# PFC and ibex credit frames to X and to their group addresses, malformed
# and tagged flow-control frames, LLDP, STP, LACP, 802.1X and another
# frame to the reserved group, and a second data frame to X. Expected:
# only the 6 data frames leave (on p3); every other frame is consumed by
# its port's flow control or counted under its reason (fc-ignored,
# fc-frame-bad, link-local), so rx = forwarded + dropped + consumed holds
# per port. A second run gives p0 `lldp-to p4 stp-to p4`: its LLDP and STP
# frames, and nothing else, come out of p4 unchanged. A third run sends
# frames behind two and three VLAN tags (see there).
#
#   test_linklocal.sh IBEX_SWITCH IBEX_PCAPGEN
set -euo pipefail
sw=$1
here=$(cd "$(dirname "$0")" && pwd)
frames=$here/frames.py
tmp=$(mktemp -d /tmp/ibex-ll.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
fail() { echo "FAIL: $*" >&2; exit 1; }

X=02:00:00:00:0b:01
GRP=01:80:c2:00:00
python3 "$frames" write empty.pcap
for i in 0 1 2; do
	s=02:00:00:00:0a:0$i
	python3 "$frames" write "in$i.pcap" \
		"ip4udp:size=200,dst=$X,src=$s,seed=1$i" \
		"pause:dst=$X,src=$s" "pause:dst=$GRP:01,src=$s" \
		"pfc:dst=$X,src=$s" "pfc:dst=$GRP:01,src=$s" \
		"credit:dst=$X,src=$s" "credit:dst=03:69:62:65:78:00,src=$s" \
		"credit:dst=ff:ff:ff:ff:ff:ff,src=$s" \
		"pfc-bad:dst=$GRP:01,src=$s" "credit-bad:dst=$X,src=$s" \
		"pfc:dst=$GRP:01,src=$s,vid=1" \
		"lldp:dst=$GRP:0e,src=$s" "stp:dst=$GRP:00,src=$s" \
		"lacp:dst=$GRP:02,src=$s" "eapol:dst=$GRP:03,src=$s" \
		"raw:dst=$GRP:0f,src=$s" \
		"ip4udp:size=300,dst=$X,src=$s,seed=2$i"
done
[ "$(python3 "$frames" count in0.pcap)" -eq 17 ] || fail "crafted 17 frames"

run() { # name extra-conf-lines [input-prefix]
	local in=${3:-in}
	cat >"$1.conf" <<EOF
port p0 dev net_pcap0 fc none
port p1 dev net_pcap1 fc pfc
port p2 dev net_pcap2 fc credit
port p3 dev net_pcap3
port p4 dev net_pcap4
fdb static $X port p3
$2
EOF
	"$sw" -l 0-1 --no-huge -m 512 --no-pci --file-prefix="ibexll$$" \
		--log-level='lib.*:notice' \
		--vdev "net_pcap0,rx_pcap=${in}0.pcap,tx_pcap=$1-out0.pcap" \
		--vdev "net_pcap1,rx_pcap=${in}1.pcap,tx_pcap=$1-out1.pcap" \
		--vdev "net_pcap2,rx_pcap=${in}2.pcap,tx_pcap=$1-out2.pcap" \
		--vdev "net_pcap3,rx_pcap=empty.pcap,tx_pcap=$1-out3.pcap" \
		--vdev "net_pcap4,rx_pcap=empty.pcap,tx_pcap=$1-out4.pcap" \
		-- --config "$1.conf" --idle-stop 1 --json "$1.json" \
		>"$1.log" 2>&1 || { cat "$1.log"; fail "$1: ibex-switch failed"; }
}

# What each port must show: rx, drops by reason, and frames consumed by
# its flow control (valid PFC on p1, credit frames on p2): the rest.
check() { # name lldp-passed
	python3 - "$1.json" "$2" <<'PY' || fail "$1: accounting"
import json, sys
ports = {p["name"]: p for p in json.load(open(sys.argv[1]))["ports"]}
passed = sys.argv[2] == "1"
want = {
    # fc-ignored, fc-frame-bad, link-local, consumed by flow control
    "p0": (6, 4, 3 if passed else 5, 0),
    "p1": (5, 4, 5, 1),
    "p2": (3, 4, 5, 3),
}
ok = True
for name, (ign, bad, ll, consumed) in want.items():
    p = ports[name]
    d = {k: v for k, v in p["drops"].items() if v}
    exp = {"fc-ignored": ign, "fc-frame-bad": bad, "link-local": ll}
    fwd = 2 + (2 if passed and name == "p0" else 0)
    got_consumed = p["rx_frames"] - sum(d.values()) - fwd
    line = f"{name}: rx {p['rx_frames']} drops {d} consumed {got_consumed}"
    if p["rx_frames"] != 17 or d != exp or got_consumed != consumed:
        print("want rx 17 drops", exp, "consumed", consumed, "; got", line)
        ok = False
    else:
        print("ok:", line)
if ports["p3"]["tx_frames"] != 6:
    print("p3 sent", ports["p3"]["tx_frames"], "frames, want 6"); ok = False
if ports["p4"]["tx_frames"] != (2 if passed else 0):
    print("p4 sent", ports["p4"]["tx_frames"]); ok = False
sys.exit(0 if ok else 1)
PY
}

run plain ""
check plain 0
# (p2 sends its own credit frames to its peer: those are not relayed.)
for o in 0 1 2 4; do
	n=$(tshark -r "plain-out$o.pcap" -Y "!(eth.type == 0x88b5 && eth.src[0:5] != 02:00:00:00:0a)" \
		2>/dev/null | wc -l)
	[ "$n" -eq 0 ] || fail "plain: $n frames relayed out of p$o, want 0"
done
n=$(tshark -r plain-out3.pcap -Y "udp && eth.dst == $X" 2>/dev/null | wc -l)
[ "$n" -eq 6 ] || fail "tshark: $n data frames out of p3, want 6"
n=$(tshark -r plain-out3.pcap -Y "macc || lldp || stp || eth.type == 0x88b5" \
	2>/dev/null | wc -l)
[ "$n" -eq 0 ] || fail "tshark: $n link-local frames out of p3"
echo "ok: only the 6 data frames relayed; every other frame accounted for"

run pass "port p0 lldp-to p4 stp-to p4"
check pass 1
python3 - in0.pcap pass-out4.pcap <<'PY' || fail "pass: p4 frames"
import struct, sys
def frames(path):
    data, off, out = open(path, "rb").read(), 24, []
    while off + 16 <= len(data):
        n = struct.unpack_from("<I", data, off + 8)[0]
        out.append(data[off + 16:off + 16 + n]); off += 16 + n
    return out
inp, out = frames(sys.argv[1]), frames(sys.argv[2])
if out != [inp[11], inp[12]]:
    print("p4 sent", len(out), "frames, want p0's LLDP and STP frames as sent")
    sys.exit(1)
print("ok: p0's LLDP and STP frames out of p4, unchanged")
PY
n=$(tshark -r pass-out4.pcap -Y "lldp || stp" 2>/dev/null | wc -l)
[ "$n" -eq 2 ] || fail "tshark: $n LLDP/STP frames out of p4, want 2"

# Two tags (docs/design.md, "Two VLAN tags"): a device that pops the outer
# tag would hand the next switch what lies behind it, so flow control and
# RoCEv2 to QP 0 behind a second tag are dropped as qinq-ctl on every port
# (p1 is trusted: not admitted as management either) and a third tag as
# vlan-depth; data frames behind two tags go by the outer VID (10) as
# before. Each of p0..p2 sends 209 frames to X: S+C and C+C PFC and credit
# frames, 200 S+C RoCEv2 frames to QP 0 and a C+C one, a PFC frame behind
# three tags, and three data frames (S+C IPv4/UDP, S+C RoCEv2 to QP 0x11,
# C+C IPv4/UDP), which alone leave, on p3, unchanged.
for i in 0 1 2; do
	s=02:00:00:00:0a:0$i
	q="dst=$X,src=$s,vid=20,outer=10"
	python3 "$frames" write "qq$i.pcap" \
		"ip4udp:size=200,$q,seed=3$i" \
		"pfc:$q" "pfc:$q,otpid=0x8100" \
		"credit:$q,otpid=0x8100" "credit:$q" \
		"roce:size=128,$q,qp=0,n=200" "roce:size=128,$q,otpid=0x8100,qp=0" \
		"roce:size=128,$q,qp=0x11,seed=5$i" \
		"pfc:dst=$X,src=$s,vid=20,outer=10.30" \
		"ip4udp:size=300,$q,otpid=0x8100,seed=4$i"
done
[ "$(python3 "$frames" count qq0.pcap)" -eq 209 ] || fail "crafted 209 frames"
run qinq "port p0 vlans 1,10
port p1 vlans 1,10 trusted on
port p2 vlans 1,10
port p3 vlans 1,10
fdb static $X port p3 vlan 10" qq
python3 - "$frames" qinq.json qinq-out3.pcap qq0.pcap qq1.pcap qq2.pcap \
	<<'PY' || fail "qinq: accounting"
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("frames", sys.argv[1])
frames = importlib.util.module_from_spec(spec)
spec.loader.exec_module(frames)
ports = {p["name"]: p for p in json.load(open(sys.argv[2]))["ports"]}
ok = True
for name in ("p0", "p1", "p2"):
    p = ports[name]
    d = {k: v for k, v in p["drops"].items() if v}
    exp = {"qinq-ctl": 205, "vlan-depth": 1}
    if p["rx_frames"] != 209 or d != exp:
        print(f"{name}: want rx 209 drops {exp}; got rx {p['rx_frames']} "
              f"drops {d}")
        ok = False
    else:
        print(f"ok: {name}: rx 209 drops {d}")
out = frames.read(sys.argv[3])
want = [f for path in sys.argv[4:] for k, f in enumerate(frames.read(path))
        if k in (0, 206, 208)]
if sorted(out) != sorted(want):
    print(f"p3 sent {len(out)} frames, want the 9 data frames as sent")
    ok = False
else:
    print("ok: p3 sent the 9 data frames behind two tags, unchanged")
sys.exit(0 if ok else 1)
PY
n=$(tshark -r qinq-out3.pcap -Y "macc || vlan.etype == 0x8808 ||
	vlan.etype == 0x88b5 || infiniband.bth.destqp == 0" 2>/dev/null | wc -l)
[ "$n" -eq 0 ] || fail "tshark: $n control frames behind two tags relayed"
n=$(tshark -r qinq-out3.pcap -Y "infiniband.bth.destqp == 0x11" \
	2>/dev/null | wc -l)
[ "$n" -eq 3 ] || fail "tshark: $n RoCEv2 data frames out of p3, want 3"
echo "PASS"
