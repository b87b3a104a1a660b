#!/usr/bin/env bash
# The ibex demo: build, then run ibex-switch on virtual ports without
# hugepages and print its report.
#
#  1. four net_pcap ports (conf/demo.conf): RoCEv2 conversations between
#     stations on p0 and p1, broadcasts from p2, a UDP sender on p3. ibex
#     learns every station, forwards unicast by its FDB and floods the rest;
#     the per-port counters and the FDB are printed at the end.
#  2. five seconds of 64-byte RoCEv2 frames at full speed between two
#     ports replaying pcaps in a loop: the forwarding rate, once a second.
#
#   app/ibex-demo.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}

tests/deps.sh
[ -d "$build" ] || meson setup "$build" >/dev/null
ninja -C "$build" >/dev/null

sw=$build/app/ibex-switch/ibex-switch
gen=$build/app/ibex-pcapgen/ibex-pcapgen
tmp=$(mktemp -d /tmp/ibex-demo.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
eal=(-l 0-1 --no-huge -m 1024 --no-pci --log-level='lib.*:notice'
     --file-prefix="ibexdemo$$")

"$gen" -o "$tmp/in0.pcap" -n 20000 -p 4 >/dev/null
"$gen" -o "$tmp/in1.pcap" -n 20000 -p 4 --reverse >/dev/null
"$gen" -o "$tmp/in2.pcap" -n 100 --kind udp --broadcast --src 02:00:00:00:0c:01 >/dev/null
"$gen" -o "$tmp/in3.pcap" -n 1000 --kind udp --src 02:00:00:00:0d:01 --dst 02:00:00:00:0a:00 >/dev/null

echo "== 1. learning switch, 4 virtual ports (net_pcap), 41100 frames in"
"$sw" "${eal[@]}" \
	--vdev "net_pcap0,rx_pcap=$tmp/in0.pcap,tx_pcap=$tmp/out0.pcap" \
	--vdev "net_pcap1,rx_pcap=$tmp/in1.pcap,tx_pcap=$tmp/out1.pcap" \
	--vdev "net_pcap2,rx_pcap=$tmp/in2.pcap,tx_pcap=$tmp/out2.pcap" \
	--vdev "net_pcap3,rx_pcap=$tmp/in3.pcap,tx_pcap=$tmp/out3.pcap" \
	-- --config conf/demo.conf --idle-stop 1 2>&1 | grep -v -E '^(EAL|TELEMETRY|IBEX_WORKER):'
for p in 0 1 2 3; do
	printf 'out%d.pcap: %s frames\n' $p "$(tshark -r "$tmp/out$p.pcap" 2>/dev/null | wc -l)"
done

echo
echo "== 2. 64-byte RoCEv2 at full speed, 2 ports, 5 s (one worker core)"
"$gen" -o "$tmp/b0.pcap" -n 256 -p 8 >/dev/null
"$gen" -o "$tmp/b1.pcap" -n 256 -p 8 --reverse >/dev/null
"$sw" "${eal[@]}" \
	--vdev "net_pcap0,rx_pcap=$tmp/b0.pcap,infinite_rx=1" \
	--vdev "net_pcap1,rx_pcap=$tmp/b1.pcap,infinite_rx=1" \
	-- --config conf/bench.conf --duration 5 --stats-period 1 2>&1 |
	grep -v -E '^(EAL|TELEMETRY|IBEX_WORKER):'
