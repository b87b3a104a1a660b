#!/usr/bin/env bash
# System test: jumbo frames through net_pcap ports. net_pcap delivers a
# frame longer than an mbuf's 2048-byte data room as a chain of segments,
# so every frame here is a multi-segment mbuf inside ibex.
#
#   1. A learning switch on three ports (no config): 20 broadcasts of 9000
#      bytes into p0 and 5 each of valid IPv4/UDP 9000-byte, IPv6/UDP
#      8000-byte and RoCEv2 frames with a 4096-byte payload to an unknown
#      station (flooded): p1 and p2 send exactly p0's frames, byte for
#      byte and in order; nothing is dropped.
#   2. 3000-byte broadcasts flooded to one shaped and one unshaped port
#      (the shaped copies wait in a lane queue while the others leave):
#      both outputs equal the input.
# Frames are crafted by frames.py with a random payload per frame and
# compared by it, a reader that shares no code with ibex; tshark decodes
# the IP/RoCEv2 frames that came out.
#
#   test_jumbo.sh IBEX_SWITCH IBEX_PCAPGEN
set -euo pipefail
sw=$1
here=$(cd "$(dirname "$0")" && pwd)
frames=$here/frames.py
tmp=$(mktemp -d /tmp/ibex-jumbo.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v tshark >/dev/null || { echo "SKIP: no tshark"; exit 77; }

run_switch() { # name conf-or-empty: three pcap ports, in0 into p0
	local name=$1 conf=$2 args=()
	[ -z "$conf" ] || args=(--config "$conf")
	"$sw" -l 0-1 --no-huge -m 512 --no-pci --file-prefix="ibexjumbo$$" \
		--log-level='lib.*:notice' \
		--vdev "net_pcap0,rx_pcap=in0.pcap,tx_pcap=$name-out0.pcap" \
		--vdev "net_pcap1,rx_pcap=empty.pcap,tx_pcap=$name-out1.pcap" \
		--vdev "net_pcap2,rx_pcap=empty.pcap,tx_pcap=$name-out2.pcap" \
		-- "${args[@]}" --idle-stop 1 --json "$name.json" \
		>"$name.log" 2>&1 ||
		{ cat "$name.log"; fail "$name: ibex-switch exited non-zero"; }
}

drops() { # json port-index -> total drops, rx and tx frames
	python3 -c 'import json,sys
p = json.load(open(sys.argv[1]))["ports"][int(sys.argv[2])]
print(sum(p["drops"].values()), p["rx_frames"], p["tx_frames"])' "$1" "$2"
}

python3 "$frames" write empty.pcap
# 1: broadcasts and valid jumbo IP frames, flooded.
python3 "$frames" write in0.pcap raw:n=20,size=9000,seed=1 \
	ip4udp:n=5,size=9000,dst=02:00:00:00:0b:01,seed=2 \
	ip6udp:n=5,size=8000,dst=02:00:00:00:0b:01,seed=3 \
	roce:n=5,size=4154,dst=02:00:00:00:0b:01,seed=4
run_switch flood ""
for o in 1 2; do
	python3 "$frames" same in0.pcap "flood-out$o.pcap" ||
		fail "flood: p$o did not send p0's 35 frames unchanged"
done
[ "$(python3 "$frames" count flood-out0.pcap)" -eq 0 ] ||
	fail "flood: frames went back out of p0"
read -r d rx tx < <(drops flood.json 0)
[ "$d" -eq 0 ] && [ "$rx" -eq 35 ] ||
	fail "flood: p0 rx $rx (want 35), drops $d (want 0)"
read -r d rx tx < <(drops flood.json 1)
[ "$tx" -eq 35 ] || fail "flood: p1 tx $tx, want 35"
echo "ok: 35 jumbo frames flooded to p1 and p2 byte-identical"
n=$(tshark -r flood-out1.pcap -Y 'ip.len == 8986 && udp' 2>/dev/null | wc -l)
[ "$n" -eq 5 ] || fail "tshark: $n 9000-byte IPv4/UDP frames, want 5"
n=$(tshark -r flood-out1.pcap -Y 'ipv6.plen == 7946 && udp' 2>/dev/null | wc -l)
[ "$n" -eq 5 ] || fail "tshark: $n 8000-byte IPv6/UDP frames, want 5"
n=$(tshark -r flood-out2.pcap -Y 'infiniband.bth.opcode == 4 && ip.len == 4140' \
	2>/dev/null | wc -l)
[ "$n" -eq 5 ] || fail "tshark: $n RoCEv2 frames with 4096-byte payloads, want 5"
echo "ok: tshark decodes the jumbo IPv4, IPv6 and RoCEv2 frames"

# 2: 3000-byte broadcasts, p1 shaped (its copies queue), p2 not.
python3 "$frames" write in0.pcap raw:n=300,size=3000,seed=5
cat >shaped.conf <<EOF
port p0 dev net_pcap0
port p1 dev net_pcap1 shape 1G vl-queue 2MB
port p2 dev net_pcap2
EOF
run_switch shaped shaped.conf
for o in 1 2; do
	python3 "$frames" same in0.pcap "shaped-out$o.pcap" ||
		fail "shaped: p$o did not send p0's 300 frames unchanged"
done
read -r d rx tx < <(drops shaped.json 1)
[ "$d" -eq 0 ] || fail "shaped: p1 dropped $d"
echo "ok: 300 3000-byte floods byte-identical on the shaped and the unshaped port"

# 3: the built-in generator's ring all-reduce in jumbo frames (--mtu 9000:
# one mbuf per frame, sized to the MTU): nothing lost, frames above 8 KB.
"$sw" --lcores 0@0,1@1,2@0 --no-huge -m 1024 --no-pci \
	--file-prefix="ibexjumbo$$" --log-level='lib.*:notice' -- \
	--gen "--engine ring --ranks 4 -b 64K -e 64K -f 2 -n 3 -w 1 --mtu 9000" \
	>gen.log 2>&1 || { cat gen.log; fail "gen: ibex-switch exited non-zero"; }
line=$(grep '^# frames: tx' gen.log) || { cat gen.log; fail "gen: no frames line"; }
read -r tx rx txb < <(echo "$line" |
	sed -E 's/.*tx ([0-9]+) rx ([0-9]+) \(tx ([0-9]+) B.*/\1 \2 \3/')
echo "$line" | grep -q 'lost 0 out-of-order 0 duplicate 0' ||
	fail "gen: $line"
[ "$tx" -gt 0 ] && [ "$tx" -eq "$rx" ] && [ $((txb / tx)) -gt 8192 ] ||
	fail "gen: tx $tx rx $rx, $((txb / tx)) bytes a frame"
echo "ok: generator all-reduce in $((txb / tx))-byte frames, $rx of $tx received in order"
echo "PASS"
