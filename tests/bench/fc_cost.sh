#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Cost of flow-control accounting (docs/flow-control.md, "Measurements"):
# ibex-switch with its built-in generator (3 lcores on 2 CPUs), rank 1 ->
# rank 0 flat out, 128-byte frames on PCP 1, two ports, nothing shaped
# (uncongested: every frame cuts through). Modes, same traffic:
#   none    no flow control (the baseline)
#   credit  fc credit on both ports, VL 1 lossless (credits, buffer
#           accounting, credit frames both ways; the generator obeys)
#   pfc     fc pfc on both ports, VL 1 lossless (buffer accounting, PFC)
# Prints per mode the median over REPEAT runs (3) of the frames/s received
# and the switch's busy cycles per frame, and the ratio to `none`.
#
#   tests/bench/fc_cost.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
sw=$build/app/ibex-switch/ibex-switch
rep=${REPEAT:-3}
secs=${SECS:-2}
tmp=$(mktemp -d /tmp/ibex-fc-cost.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

conf() {
	local mode=$1
	{
		echo "switch workers 1"
		echo "port gen0 vls 2 fc $mode"
		echo "port gen1 vls 2 fc $mode"
		if [ "$mode" != none ]; then
			echo "lane gen0 vl 1 lossless reserved 128KB"
			echo "lane gen1 vl 1 lossless reserved 128KB"
		fi
	} >"$tmp/$mode.conf"
}

# one run: "<rx frames/s> <busy cycles per frame> <fc frames from ibex/s>"
one() {
	local mode=$1
	"$sw" --lcores 0@0,1@1,2@0 --no-huge -m 1024 --no-pci \
		--log-level='lib.*:notice' --file-prefix="fccost$$" -- \
		--config "$tmp/$mode.conf" --json "$tmp/sw.json" \
		--gen "--engine rate --ranks 2 --flow 1:0 --fc $mode --vl 1 \
		--prio 1 --pcp 1 --vlan 1 --size 128 --duration $secs \
		--json $tmp/gen.json --quiet" >"$tmp/log" 2>&1 || true
	python3 - "$tmp" <<'PY'
import json, sys
t = sys.argv[1]
g = json.load(open(t + "/gen.json"))
s = json.load(open(t + "/sw.json"))
el = g["rate"]["elapsed_s"]
fc = g["flow_control"]["credit_rx"] + g["flow_control"]["pfc_rx"]
print("%.0f %d %.0f %d" % (g["frames"]["rx"] / el, s["busy_cycles_per_frame"],
                           fc / el, g["frames"]["tx"] - g["frames"]["rx"]))
PY
}

med() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

printf '%-7s %12s %8s %14s %6s\n' mode rx-fps cyc/frame fc-frames/s lost
base=
for mode in none credit pfc; do
	conf "$mode"
	: >"$tmp/runs"
	for ((i = 0; i < rep; i++)); do one "$mode" >>"$tmp/runs"; done
	fps=$(cut -d' ' -f1 "$tmp/runs" | med)
	cyc=$(cut -d' ' -f2 "$tmp/runs" | med)
	fcr=$(cut -d' ' -f3 "$tmp/runs" | med)
	lost=$(cut -d' ' -f4 "$tmp/runs" | med)
	[ -n "$base" ] || base=$fps
	printf '%-7s %12s %8s %14s %6s  (%.3f x none)\n' "$mode" "$fps" "$cyc" \
		"$fcr" "$lost" "$(echo "$fps / $base" | bc -l)"
done
