#!/usr/bin/env bash
# Residence time in the switch, cut through against queued: ibex-switch on
# the forwarding benchmark's two pcap ports (bench_fwd.sh), p1 shaped to
# 5 Gb/s so its lane queues while p0 cuts through; after SECONDS-1 s,
# `ibex-ctl show latency` prints min/p50/p99/p99.9/max per port, lane and
# path (docs/performance.md, "Residence time").
#
#   tests/bench/bench_residence.sh [-b BUILD] [-d SECONDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=build dur=5
while getopts "b:d:h" o; do
	case $o in
	b) build=$OPTARG ;; d) dur=$OPTARG ;;
	*) sed -n '2,8p' "$0"; exit 2 ;;
	esac
done
sw=$build/app/ibex-switch/ibex-switch
gen=$build/app/ibex-pcapgen/ibex-pcapgen
ctl=$build/app/ibex-ctl/ibex-ctl
[ -x "$sw" ] && [ -x "$ctl" ] || { echo "build first: ninja -C $build" >&2; exit 2; }
tmp=$(mktemp -d /tmp/ibex-res.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
"$gen" -o "$tmp/p0.pcap" -n 256 -s 64 -p 8 >/dev/null
"$gen" -o "$tmp/p1.pcap" -n 256 -s 64 -p 8 --reverse >/dev/null
printf 'port p0 dev net_pcap0\nport p1 dev net_pcap1 shape 5G\n' >"$tmp/res.conf"
prefix=ibexres$$
"$sw" -l 0-1 --no-huge -m 1024 --no-pci --log-level='lib.*:notice' \
	--vdev "net_pcap0,rx_pcap=$tmp/p0.pcap,infinite_rx=1" \
	--vdev "net_pcap1,rx_pcap=$tmp/p1.pcap,infinite_rx=1" \
	--file-prefix=$prefix -- --config "$tmp/res.conf" --duration "$dur" \
	>"$tmp/sw.log" 2>&1 &
pid=$!
sleep $((dur - 1))
"$ctl" --file-prefix=$prefix show latency
wait "$pid"
