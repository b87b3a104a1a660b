#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# How fast the virtual clock simulates, and what the real clock shows of
# the same scenario (docs/simulation.md, "Speed"):
#
#   tests/bench/sim_speed.sh [-b BUILD] [-r ROUNDS] [-t TOPOLOGY] [-n RANKS]
#                            [-s SIZE] [-e ENGINE] [-c CLOCKS] [-m MB]
#
# Runs ENGINE (ring) all-reduce of SIZE (1M) on TOPOLOGY
# (conf/fabric/leaf4-spine2-64.yaml, RANKS 64), 3 iterations after 1
# warm-up, ROUNDS (3) times under each clock, interleaved, and prints per
# run: the collective's time (simulated or wall), the simulated seconds
# per wall second, frame-hops per wall second, peak RSS and the process's
# wall time (setup included); then the medians. The real clock runs the
# file's rates against the wall clock on the shared CPUs: its collective
# time is what a loaded host makes of it. CLOCKS ("virtual real") picks
# the clocks, MB (4096) DPDK's memory: the 1,024-rank ring of
# docs/simulation.md is
#   ibex-topo fattree 16 --rate 400G -o ft16.yaml
#   tests/bench/sim_speed.sh -t ft16.yaml -n 1024 -c virtual -m 12288
set -euo pipefail
cd "$(dirname "$0")/../.."

build=build rounds=3 topo=conf/fabric/leaf4-spine2-64.yaml ranks=64 size=1M
engine=ring clocks="virtual real" mem=4096
while getopts "b:r:t:n:s:e:c:m:h" o; do
	case $o in
	b) build=$OPTARG ;; r) rounds=$OPTARG ;; t) topo=$OPTARG ;;
	n) ranks=$OPTARG ;; s) size=$OPTARG ;; e) engine=$OPTARG ;;
	c) clocks=$OPTARG ;; m) mem=$OPTARG ;;
	*) sed -n '2,22p' "$0"; exit 2 ;;
	esac
done
for c in $clocks; do
	case $c in virtual | real) ;; *) echo "-c: virtual, real, not $c" >&2; exit 2 ;; esac
done
fab=$build/app/ibex-fabric/ibex-fabric
[ -x "$fab" ] || { echo "no $fab: build first" >&2; exit 2; }
tmp=$(mktemp -d /tmp/ibex-simspeed.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

one() { # CLOCK ROUND
	local log=$tmp/$1.$2.log
	/usr/bin/time -f "wall %e s" "$fab" --lcores 0@0,1@1,2@0 --no-huge \
		-m "$mem" --no-pci --file-prefix "simspeed$$" \
		--log-level='lib.*:notice' -- "$topo" --clock "$1" --ctl-dir none \
		--gen "--engine $engine --ranks $ranks -b $size -e $size -n 3 -w 1 \
		--json $tmp/$1.$2.json" >"$log" 2>&1 || true
	python3 - "$1" "$tmp/$1.$2.json" "$log" <<'PY'
import json, re, sys
clock, js, log = sys.argv[1:4]
text = open(log).read()
try:
    t = json.load(open(js))["sizes"][0]["time_us"]
except Exception:
    t = None
m = re.search(r"virtual clock: ([0-9.]+) s simulated in ([0-9.]+) s .*?(\d+) frame-hops "
              r"\(([0-9.e+]+) per wall s\).*peak RSS (\d+) MiB", text)
wall = re.search(r"wall ([0-9.]+) s", text)
print("%-7s %s collective %s us; %s; process %s s" % (
    clock, "simulated" if clock == "virtual" else "wall     ",
    "%.2f" % t if t else "FAILED",
    "%s simulated s per wall s, %s frame-hops per wall s, peak RSS %s MiB" %
    ("%.4g" % (float(m.group(1)) / float(m.group(2))), m.group(4), m.group(5))
    if m else "-", wall.group(1) if wall else "?"))
PY
}
echo "# $engine all-reduce of $size, $ranks ranks, $topo; $rounds rounds, interleaved"
for ((r = 1; r <= rounds; r++)); do
	for c in $clocks; do
		one "$c" "$r"
	done
done | tee "$tmp/all.txt"
python3 - "$tmp/all.txt" <<'PY'
import re, statistics, sys
rows = open(sys.argv[1]).read().splitlines()
for clock in ("virtual", "real"):
    t = [float(m.group(1)) for l in rows if l.startswith(clock)
         for m in [re.search(r"collective ([0-9.]+) us", l)] if m]
    h = [float(m.group(1)) for l in rows if l.startswith(clock)
         for m in [re.search(r"([0-9.e+]+) frame-hops", l)] if m]
    print("median %-7s collective %s us%s" % (clock,
          "%.2f" % statistics.median(t) if t else "-",
          ", %.3g frame-hops per wall s" % statistics.median(h) if h else ""))
PY
