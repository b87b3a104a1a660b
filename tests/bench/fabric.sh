#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Fabric figures with ibex-fabric (docs/fabric.md, "Measured"):
#
#   tests/bench/fabric.sh [-b BUILD] [-p PART] [-t TOPOLOGY] [-n ITERS]
#                         [-F FRAMES] [-r RATES] [-L VL] [-Q QPS]
#
# PART allreduce: a ring all-reduce across the topology (default
#   conf/fabric/leaf2-spine2-8.yaml, 100G links), --fc credit (a PFC
#   worker would have to react within microseconds at 100G), three
#   scenarios in turn: plain, rank 3 a straggler (20 us late every step),
#   and a hot spine (leaf1's link to spine1 at a quarter of the rate).
#   Prints each nccl-tests table and the completion p50/p99 per size side
#   by side, and the per-hop table of the hot-spine run. -Q: queue pairs
#   per connection (ibex-gen --qps, default 1), each its own ECMP flow.
# PART incast: an N-1 -> 1 incast (ranks 1..N-1 to rank 0, N the
#   topology's ranks; PCP 3 on lossless lane VL (-L, default 3; 1 for
#   conf/fabric/leaf4-spine2-16.yaml, whose PCP 3 rides VL 1), 128 B
#   frames) across leaf-spine-leaf at 100M, FRAMES (10^7) frames, with
#   --fc pfc, --fc credit and --fc none: sent, received, lost, switch drops.
# PART capacity: ring flows (rank r -> r+1, half of them across a spine)
#   of 1024-byte frames at half of each link's rate, --fc credit (a fabric
#   that cannot keep up slows its senders instead of dropping), for each
#   rate in RATES
#   (default "100M 1G 10G 100G"): offered and received frames/s, their
#   ratio, and the slowdown (offered / received) once the CPUs cannot keep
#   the emulated rate.
# PART all (default): the three.
set -euo pipefail
cd "$(dirname "$0")/../.."

build=build part=all topo=conf/fabric/leaf2-spine2-8.yaml iters=20
frames=10000000 rates="100M 1G 10G 100G" lvl=3 qps=1
while getopts "b:p:t:n:F:r:L:Q:h" o; do
	case $o in
	b) build=$OPTARG ;; p) part=$OPTARG ;; t) topo=$OPTARG ;;
	n) iters=$OPTARG ;; F) frames=$OPTARG ;; r) rates=$OPTARG ;;
	L) lvl=$OPTARG ;; Q) qps=$OPTARG ;;
	*) sed -n '2,30p' "$0"; exit 2 ;;
	esac
done
fab=$build/app/ibex-fabric/ibex-fabric
[ -x "$fab" ] || { echo "build first: ninja -C $build" >&2; exit 2; }
tmp=$(mktemp -d /tmp/ibex-fabric-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
eal=(--lcores 0@0,1@1,2@0 --no-huge -m 2048 --no-pci --log-level='lib.*:notice'
     --file-prefix="fabb$$")
ranks=$("$fab" --check "$topo" | sed -n 's/.*switches, \([0-9]*\) ranks.*/\1/p')
# The variants written below name the switches' files as the original does.
cp "$(dirname "$topo")"/*.conf "$tmp"/ 2>/dev/null || true

# with_rate FILE RATE: the topology with every link at RATE.
with_rate() { sed "s/rate: [0-9.]*[KMGT]/rate: $2/" "$topo" >"$1"; }

allreduce() {
	local name out
	cp "$topo" "$tmp/plain.yaml"
	cp "$topo" "$tmp/straggler.yaml"
	# The hot spine: leaf1's first uplink at a quarter of the rate.
	awk '/endpoints: \["leaf1:p[0-9]*", "spine1:/ {print; print "      rate: 25G"; next} {print}' \
		"$topo" >"$tmp/hot.yaml"
	for name in plain straggler hot; do
		local extra=""
		[ $name = straggler ] && extra="--straggler 3:20:1"
		echo "### all-reduce, $name ($(date -u +%FT%TZ))"
		"$fab" "${eal[@]}" -- "$tmp/$name.yaml" --fc credit \
			--json "$tmp/$name.hops.json" --gen "--engine ring \
			--ranks $ranks -b 4K -e 1M -f 4 -n $iters -w 5 --vlan 1 \
			--pcp 3 --fc credit --vl 3 --qps $qps $extra --json $tmp/$name.json" \
			>"$tmp/$name.log" 2>&1 ||
			echo "# $name: run not clean (see below)"
		sed -n '/^# ibex-gen/,/^# Avg bus/p' "$tmp/$name.log"
		[ $name = hot ] && sed -n '/^fabric /,$p' "$tmp/$name.log"
	done
	echo "### completion time per size, us (p50 / p99)"
	python3 - "$tmp" <<'PY'
import json, sys
t = sys.argv[1]
runs = {n: json.load(open(f"{t}/{n}.json")) for n in ("plain", "straggler", "hot")}
print("%10s %22s %22s %22s" % ("size", "plain", "straggler", "hot spine"))
for i, s in enumerate(runs["plain"]["sizes"]):
    row = []
    for n in ("plain", "straggler", "hot"):
        z = runs[n]["sizes"][i]
        row.append("%9.1f / %9.1f" % (z["ct_p50_us"], z["ct_p99_us"]))
    print("%10d %22s %22s %22s" % (s["bytes"], *row))
PY
}

incast() {
	local m flows
	flows=$(seq -s, 1 $((ranks - 1)) | sed 's/\([0-9]*\)/\1:0/g')
	with_rate "$tmp/inc.yaml" 100M
	for m in pfc credit none; do
		local genfc=""
		[ $m = credit ] && genfc="--fc credit --vl $lvl"
		# A 15 -> 1 incast holds upstream ports paused for longer than the
		# watchdog's 200 ms: it would call that a storm and drop.
		local wd=""
		[ $m = pfc ] && wd="--pfc-watchdog alarm"
		echo "### incast $((ranks - 1)) -> 1, --fc $m, $frames frames ($(date -u +%FT%TZ))"
		"$fab" "${eal[@]}" -- "$tmp/inc.yaml" --fc $m --lossless-vl $lvl \
			--pfc-reaction-us 20000 $wd \
			--json "$tmp/inc.$m.hops.json" \
			--gen "--engine rate --ranks $ranks --flow $flows --vlan 1 $genfc \
			--pcp 3 --size 128 --rate 120K --frames $frames --duration 3600 \
			--json $tmp/inc.$m.json" >"$tmp/inc.$m.log" 2>&1 || true
		python3 - "$tmp" "$m" <<'PY'
import json, sys
t, m = sys.argv[1:3]
g = json.load(open(f"{t}/inc.{m}.json"))
h = json.load(open(f"{t}/inc.{m}.hops.json"))
fr, q = g["frames"], g["sequence"]
# The ranks' hello broadcasts end off the flooding tree: not losses.
flood = ("flood-off", "no-egress")
ports = [p for s in h["switches"] for p in s["ports"]]
# (a lane's drops are counted under their reason too: lane_drops is a part)
drops = sum(sum(n for r, n in p["drops"].items() if r not in flood)
            for p in ports)
hellos = sum(n for p in ports for r, n in p["drops"].items() if r in flood)
pauses = sum(p["pfc_tx"] for s in h["switches"] for p in s["ports"])
credits = sum(p["credit_tx"] for s in h["switches"] for p in s["ports"])
print("fc %-6s sent %10d received %10d lost %8d out-of-order %d switch drops %8d "
      "(hellos ended off the tree %d) PFC frames %8d credit frames %8d %.1f s"
      % (m, fr["tx"], fr["rx"], q["lost"], q["out_of_order"], drops, hellos,
         pauses, credits, g["rate"]["elapsed_s"]))
PY
	done
}

capacity() {
	local r pps flows i
	flows=""
	for ((i = 0; i < ranks; i++)); do
		flows+="${flows:+,}$i:$(((i + 1) % ranks))"
	done
	echo "### capacity: ring flows of 1024-byte frames at half the link rate"
	printf '%-6s %14s %14s %8s %9s\n' rate offered-fps received-fps ratio slowdown
	for r in $rates; do
		with_rate "$tmp/cap.yaml" "$r"
		# half the link's frame rate per flow (1024 B + 24 B FCS,
		# preamble and gap), all flows together
		pps=$(python3 -c "
import re; v, u = re.match(r'([0-9.]+)([KMGT])', '$r').groups()
bps = float(v) * {'K': 1e3, 'M': 1e6, 'G': 1e9, 'T': 1e12}[u]
print(int(bps / (1048 * 8) / 2 * $ranks))")
		"$fab" "${eal[@]}" -- "$tmp/cap.yaml" --fc credit --gen "--engine rate \
			--ranks $ranks --flow $flows --vlan 1 --pcp 3 --size 1024 \
			--fc credit --vl 3 \
			--rate $pps --duration 3 --json $tmp/cap.json" >"$tmp/cap.log" 2>&1 || true
		python3 - "$tmp" "$r" "$pps" <<'PY'
import json, sys
t, r, pps = sys.argv[1], sys.argv[2], float(sys.argv[3])
g = json.load(open(f"{t}/cap.json"))
rx = g["frames"]["rx"] / g["rate"]["elapsed_s"]
print("%-6s %14.0f %14.0f %8.3f %9.2f" % (r, pps, rx, rx / pps, pps / rx if rx else 0))
PY
	done
}

case $part in
allreduce) allreduce ;;
incast) incast ;;
capacity) capacity ;;
all) allreduce; incast; capacity ;;
*) echo "unknown part $part" >&2; exit 2 ;;
esac
