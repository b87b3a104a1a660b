#!/usr/bin/env bash
# The ibex demo: build, then run ibex-switch on virtual ports without
# hugepages and print its reports.
#
#  0. an 8-rank ring all-reduce through ibex-switch: the built-in traffic
#     generator runs the ranks on its own lcore, attached to 8 switch ports
#     through in-process ring port pairs (docs/generator.md). Once as is,
#     once with rank 3 starting every step 20 us late: the nccl-tests-style
#     table, per-size latency table, latency/jitter summary and
#     completion-time / latency plots, one curve per message size (PNG and
#     SVG, in $IBEX_DEMO_OUT, default /tmp/ibex-demo), and both runs
#     overlaid on one figure each.
#  1. four net_pcap ports (conf/demo.conf): RoCEv2 conversations between
#     stations on p0 and p1, broadcasts from p2, a UDP sender on p3. ibex
#     learns every station, forwards unicast by its FDB and floods the rest;
#     the per-port counters and the FDB are printed at the end.
#  2. five seconds of 64-byte RoCEv2 frames at full speed between two
#     ports replaying pcaps in a loop: the forwarding rate, once a second.
#  3. a whole fabric on simulated time (ibex-fabric --clock virtual,
#     docs/simulation.md): a 64-rank ring all-reduce on 4 leaves x 2
#     spines at 100 Gb/s with 600 ns switches, plain and with rank 3 20 us
#     late every step: what one straggler costs the other 63, at the
#     fabric's own speed whatever this machine's, and how fast it ran.
#  4. 1,024 ranks on a generated 3-tier fat tree (ibex-topo fattree 16:
#     320 switches, 400 Gb/s), a ring all-reduce of 1 MiB on simulated
#     time: about 15 s of wall time and 1.7 GB.
#
#   app/ibex-demo.sh [--quick] [BUILD_DIR]   (IBEX_DEMO_OUT=DIR for the plots)
#
# --quick runs the same steps short (sizes up to 16 KiB, 2 iterations,
# 1 s at full speed), as the doc_commands test does (docs/testing.md).
set -euo pipefail
cd "$(dirname "$0")/.."
quick=0
if [ "${1:-}" = --quick ]; then
	quick=1
	shift
fi
build=${1:-build}

tests/deps.sh
[ -d "$build" ] || meson setup "$build" >/dev/null
ninja -C "$build" >/dev/null

sw=$build/app/ibex-switch/ibex-switch
gen=$build/app/ibex-pcapgen/ibex-pcapgen
tmp=$(mktemp -d /tmp/ibex-demo.XXXXXX)
trap 'rm -rf "$tmp" "/var/run/dpdk/ibexdemo$$" "${XDG_RUNTIME_DIR:-/nonexistent}/dpdk/ibexdemo$$"' EXIT
eal=(-l 0-1 --no-huge -m 1024 --no-pci --log-level='lib.*:notice'
     --file-prefix="ibexdemo$$")

"$gen" -o "$tmp/in0.pcap" -n 20000 -p 4 >/dev/null
"$gen" -o "$tmp/in1.pcap" -n 20000 -p 4 --reverse >/dev/null
"$gen" -o "$tmp/in2.pcap" -n 100 --kind udp --broadcast --src 02:00:00:00:0c:01 >/dev/null
"$gen" -o "$tmp/in3.pcap" -n 1000 --kind udp --src 02:00:00:00:0d:01 --dst 02:00:00:00:0a:00 >/dev/null

out=${IBEX_DEMO_OUT:-/tmp/ibex-demo}
mkdir -p "$out"
# Three lcores on two CPUs: control thread and generator share CPU 0 (the
# control thread sleeps most of the time), the switch worker has CPU 1.
gen_eal=(--lcores 0@0,1@1,2@0 --no-huge -m 1024 --no-pci
	 --log-level='lib.*:notice' --file-prefix="ibexdemo$$")
coll="--engine ring --ranks 8 -b 4K -e 1M -f 4 -n 50 -w 5"
fullspeed=5
if [ $quick = 1 ]; then
	coll="--engine ring --ranks 8 -b 4K -e 16K -f 4 -n 2 -w 1"
	fullspeed=1
fi
fabcoll="--engine ring --ranks 64 -b 64K -e 1M -f 4 -n 3 -w 1"
[ $quick = 0 ] || fabcoll="--engine ring --ranks 64 -b 64K -e 64K -n 1 -w 0"
for run in plain straggler; do
	extra=""
	if [ $run = straggler ]; then
		extra="--straggler 3:20:1"
		echo
		echo "== 0b. the same with a straggler: rank 3 starts every step 20 us late"
	else
		echo "== 0a. 8-rank ring all-reduce through ibex-switch (8 virtual ports, no hugepages)"
	fi
	"$sw" "${gen_eal[@]}" -- --gen "$coll $extra --json $out/$run.json \
		--csv $out/$run.csv --plot $out/$run" 2>&1 |
		grep -v -E '^(EAL|TELEMETRY|IBEX_WORKER):' | sed -n '/^# ibex-gen/,$p'
done
# The straggler's cost on one figure each: per message size, the
# completion-time and the per-frame latency percentiles of both runs
# (solid: plain, dashed: straggler). overlay DAT PNG XLABEL WHAT
overlay() {
	local dat=$1 png=$2 xlabel=$3 what=$4 sizes i b
	[ -s "$out/plain/$dat" ] && [ -s "$out/straggler/$dat" ] || return 0
	sizes=$(grep -c '^# size' "$out/plain/$dat")
	{
		echo "set terminal pngcairo size 1200,650"
		echo "set output '$out/$png'"
		echo "set title \"8-rank ring all-reduce, $what: plain (solid) vs straggler rank 3 +20 us every step (dashed)\""
		echo "set grid; set key outside right top; set logscale x"
		echo "set xlabel '$xlabel'; set ylabel 'percentile'"
		echo "set yrange [0:*]; set ytics ('p0' 0, 'p50' 0.301, 'p90' 1, 'p99' 2, 'p99.9' 3, 'p99.99' 4)"
		printf "plot "
		for ((i = 0; i < sizes; i++)); do
			b=$(grep '^# size' "$out/plain/$dat" | sed -n "$((i + 1))p" | awk '{print $3}' | tr -d :)
			printf "'%s' index %d using 1:3 with steps lw 2 lc %d title '%s B plain', " \
				"$out/plain/$dat" "$i" "$((i + 1))" "$b"
			printf "'%s' index %d using 1:3 with steps lw 2 dt 2 lc %d title '%s B straggler'" \
				"$out/straggler/$dat" "$i" "$((i + 1))" "$b"
			[ $i -lt $((sizes - 1)) ] && printf ", "
		done
		echo
	} >"$out/${png%.png}.gp"
	gnuplot "$out/${png%.png}.gp" || echo "$png: gnuplot failed"
}
if command -v gnuplot >/dev/null 2>&1; then
	overlay completion_cdf.dat plain_vs_straggler.png 'completion time (us)' \
		'collective completion time'
	overlay latency_size_cdf.dat plain_vs_straggler_latency.png \
		'one-way latency (ns)' 'per-frame latency'
fi
echo "plots: $out/{plain,straggler}/{completion_cdf,latency_cdf}.{png,svg}, $out/plain_vs_straggler{,_latency}.png"
echo

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
echo "== 2. 64-byte RoCEv2 at full speed, 2 ports, $fullspeed s (one worker core)"
"$gen" -o "$tmp/b0.pcap" -n 256 -p 8 >/dev/null
"$gen" -o "$tmp/b1.pcap" -n 256 -p 8 --reverse >/dev/null
"$sw" "${eal[@]}" \
	--vdev "net_pcap0,rx_pcap=$tmp/b0.pcap,infinite_rx=1" \
	--vdev "net_pcap1,rx_pcap=$tmp/b1.pcap,infinite_rx=1" \
	-- --config conf/bench.conf --duration $fullspeed --stats-period 1 2>&1 |
	grep -v -E '^(EAL|TELEMETRY|IBEX_WORKER):'

echo
echo "== 3. the fabric on simulated time: 64 ranks, 4 leaves x 2 spines, 100 Gb/s"
for run in plain straggler; do
	extra=""
	[ $run = plain ] || extra="--straggler 3:20:1"
	[ $run = plain ] || echo "-- the same with rank 3 starting every step 20 us late"
	"$build/app/ibex-fabric/ibex-fabric" "${gen_eal[@]}" -- \
		conf/fabric/leaf4-spine2-64.yaml --clock virtual --ctl-dir none \
		--switch-latency 600ns --gen "$fabcoll $extra" 2>&1 |
		grep -E '^(#|virtual clock:| +[0-9]+ +[0-9]+ +float)' |
		sed -n '/^# ibex-gen/,/^# Avg bus/p;/^virtual clock:/p'
done

echo
echo "== 4. 1,024 ranks on simulated time: a 3-tier fat tree (ibex-topo fattree 16),"
echo "   320 switches, 400 Gb/s links, a ring all-reduce of 1 MiB"
"$build/app/ibex-topo/ibex-topo" fattree 16 --rate 400G -o "$tmp/ft16.yaml"
"$build/app/ibex-fabric/ibex-fabric" --lcores 0@0,1@1,2@0 --no-huge \
	-m 12288 --no-pci --log-level='lib.*:notice' \
	--file-prefix="ibexdemo$$" -- "$tmp/ft16.yaml" --fc none \
	--clock virtual --ctl-dir none \
	--gen "--engine ring --ranks 1024 -b 1M -e 1M -n 1 -w 0" 2>&1 |
	grep -E '^(#|virtual clock:| +[0-9]+ +[0-9]+ +float|ibex-fabric: fattree)' |
	sed -n '/^ibex-fabric: fattree/p;/^# ibex-gen/,/^# Avg bus/p;/^virtual clock:/p'
