#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Cost of flow control (docs/flow-control.md, "Measurements"), measured
# where ibex is the bottleneck: two ibex-switch processes, each worker on a
# CPU of its own, joined by a memif link that runs the flow-control mode
# under test on both ends:
#
#   pcap (64 B RoCEv2, as fast as it reads) -> A: p0 ==memif==> B: m0 -> n0
#                                                  (net_null sink)
#
#   none    no flow control (the baseline)
#   credit  fc credit on p0 and the link, VL 0 lossless: A charges every
#           frame to (p0, VL 0), takes B's credit for it on the link and
#           counts ABR for p0's credit frames; B charges and grants
#   pfc     fc pfc on the same ports: buffer accounting and PFC
#
# The pcap side ignores credits and pauses: a frame A cannot forward
# would be a violation, so the run shows that uncongested traffic never
# waits. Modes are interleaved, REPEAT (5) rounds of SECS (5) seconds.
# Per mode the median of: the frames/s A hands to the link (memif TX), the
# busy cycles per frame of A and of B, the credit frames per second each
# way on the link, and the frames lost anywhere.
#
#   tests/bench/fc_cost.sh [BUILD_DIR]
#
# Environment: REPEAT, SECS; MODES (none credit pfc); CREDIT_PERIOD_US,
# the credit runs' period; A_WRAP, a command to run switch A under. The
# instruction counts in docs/flow-control.md §9 (the credit period raised
# so that time-based credit frames do not distort a slowed-down A):
#
#   MODES=credit REPEAT=1 SECS=8 CREDIT_PERIOD_US=1000000 \
#   A_WRAP="valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.credit \
#           --toggle-collect=ibex_dp_worker_main" tests/bench/fc_cost.sh
#   (then MODES=pfc and /tmp/cg.pfc; instructions per frame: the
#   PROGRAM TOTALS of callgrind_annotate / the "A frames" it prints)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
sw=$build/app/ibex-switch/ibex-switch
gen=$build/app/ibex-pcapgen/ibex-pcapgen
rep=${REPEAT:-5}
secs=${SECS:-5}
modes=${MODES:-none credit pfc}
period=${CREDIT_PERIOD_US:-}  # credit period-us of the credit runs
A_WRAP=${A_WRAP:-}            # a command to run switch A under
[ -x "$sw" ] && [ -x "$gen" ] || { echo "build first: ninja -C $build" >&2; exit 2; }
tmp=$(mktemp -d /tmp/ibex-fc-cost.XXXXXX)
bpid=
cleanup() {
	[ -z "$bpid" ] || kill -INT "$bpid" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

"$gen" -o "$tmp/p0.pcap" -n 256 -s 64 -p 8 >/dev/null

# Config lines both switches share: one worker, the pcap's 8 destinations
# sent to port $1, and for the modes with flow control a lossless VL 0
# with a full credit window on each flow-controlled port ($3...).
common() {
	local mode=$1 out=$2 i p
	shift 2
	echo "switch workers 1"
	echo "fdb learning off"
	for i in 0 1 2 3 4 5 6 7; do
		printf 'fdb static 02:00:00:00:0b:%02x port %s vlan 1\n' "$i" "$out"
	done
	[ "$mode" != none ] || return 0
	for p in "$@"; do
		echo "lane $p vl 0 lossless reserved 128KB"
		[ "$mode" != credit ] || [ -z "$period" ] ||
			echo "credit $p period-us $period"
	done
}

confs() {
	local mode=$1
	{
		echo "port p0 dev net_pcap0 fc $mode"
		echo "port m0 dev net_memif0 fc $mode"
		common "$mode" m0 p0 m0
	} >"$tmp/a.conf"
	{
		echo "port m0 dev net_memif0 fc $mode"
		echo "port n0 dev net_null0"
		common "$mode" n0 m0
	} >"$tmp/b.conf"
}

# One run: "<link frames/s> <A cycles/frame> <B cycles/frame>
#           <credit frames/s A->B> <B->A> <lost>"
one() {
	local mode=$1 sock=$tmp/link.sock
	confs "$mode"
	rm -f "$sock" "$tmp"/*.json
	# shellcheck disable=SC2086 # A_WRAP is a command line
	$A_WRAP "$sw" --lcores 0@0,1@1 --no-huge -m 1024 --no-pci \
		--log-level='lib.*:notice' --file-prefix="fccA$$" \
		--vdev "net_pcap0,rx_pcap=$tmp/p0.pcap,infinite_rx=1" \
		--vdev "net_memif0,role=server,id=0,rsize=12,socket=$sock,socket-abstract=no" \
		-- --config "$tmp/a.conf" --json "$tmp/a.json" --wait-links 30 \
		--duration "$secs" >"$tmp/a.log" 2>&1 &
	local apid=$! t
	for ((t = 0; t < 300; t++)); do [ -S "$sock" ] && break; sleep 0.1; done
	"$sw" --lcores 0@1,1@0 --no-huge -m 1024 --no-pci \
		--single-file-segments --log-level='lib.*:notice' \
		--file-prefix="fccB$$" --vdev net_null0,no-rx=1 \
		--vdev "net_memif0,role=client,id=0,rsize=12,socket=$sock,socket-abstract=no" \
		-- --config "$tmp/b.conf" --json "$tmp/b.json" \
		--duration $((secs + 60)) >"$tmp/b.log" 2>&1 &
	bpid=$!
	wait "$apid" || true
	sleep 0.5
	kill -INT "$bpid" 2>/dev/null || true
	wait "$bpid" || true
	bpid=
	python3 - "$tmp" <<'PY'
import json, sys
t = sys.argv[1]
a = json.load(open(t + "/a.json"))
b = json.load(open(t + "/b.json"))
pa = {p["name"]: p for p in a["ports"]}
pb = {p["name"]: p for p in b["ports"]}
el = a["elapsed_s"]
data = pa["m0"]["tx_frames"]
# Credit frames travel on the link both ways; A's m0 receives B's.
fc_ab = pb["m0"]["rx_frames"] - data
fc_ba = pa["m0"]["rx_frames"]
lost = sum(sum(p["drops"].values()) for p in a["ports"] + b["ports"])
if __import__("os").environ.get("A_WRAP"):
    print("A frames: %d" % data, file=sys.stderr)
if "FC_COST_DEBUG" in __import__("os").environ:
    print({s + p["name"]: {k: v for k, v in p["drops"].items() if v} for s, j in (("A.", a), ("B.", b)) for p in j["ports"]}, file=sys.stderr)
print("%.0f %d %d %.0f %.0f %d" % (data / el, a["busy_cycles_per_frame"],
      b["busy_cycles_per_frame"], max(fc_ab, 0) / el, fc_ba / el, lost))
PY
}

med() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

for mode in $modes; do : >"$tmp/$mode.runs"; done
for ((i = 0; i < rep; i++)); do
	for mode in $modes; do
		# One retry: DPDK 22.11's memif PMD now and then fails to
		# connect or crashes as the peer leaves.
		one "$mode" >>"$tmp/$mode.runs" ||
			one "$mode" >>"$tmp/$mode.runs" ||
			{ cat "$tmp/a.log" "$tmp/b.log" >&2; exit 1; }
	done
done
# The ratio to the first mode twice: of the medians, and the median of
# each round's ratio (rounds run back to back, so the second is the less
# moved by the shared machine's drift).
printf '%-7s %12s %9s %9s %12s %12s %6s  %s\n' mode link-fps A-cyc/fr \
	B-cyc/fr fc-A-to-B/s fc-B-to-A/s lost "x first: medians, per round"
first=
for mode in $modes; do
	col() { cut -d' ' -f"$1" "$tmp/$mode.runs" | med; }
	fps=$(col 1)
	[ -n "$first" ] || first=$mode
	rr=$(paste -d' ' "$tmp/$first.runs" "$tmp/$mode.runs" |
		awk '{print $7 / $1}' | med)
	printf '%-7s %12s %9s %9s %12s %12s %6s  %.3f  %.3f\n' "$mode" \
		"$fps" "$(col 2)" "$(col 3)" "$(col 4)" "$(col 5)" "$(col 6)" \
		"$(echo "$fps / $(cut -d' ' -f1 "$tmp/$first.runs" | med)" | bc -l)" \
		"$rr"
done
