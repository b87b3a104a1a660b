#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# What the AI Ethernet fabrics add, measured on an emulated leaf-spine
# (docs/ai-ethernet.md):
#
#   tests/bench/ai_ethernet.sh [-p PART] [-b BUILD] [-t TOPOLOGY] [-R RATE]
#                              [-n ITERS] [-r ROUNDS] [-Q QPS] [-G GAP_US]
#                              [-s SIZES] [-d SECONDS] [-T RTO_US]
#
# PART adaptive (default): a ring all-reduce of every rank of TOPOLOGY (default
# conf/fabric/leaf4-spine2-64.yaml) with all links at RATE (default 100M,
# a rate these CPUs keep up with for 64 ranks; docs/fabric.md,
# "Capacity"), --fc credit, QPS queue pairs per connection (4), ITERS
# measured iterations (20, after 3) of each size in SIZES ("256K 1M"),
# each ECMP mode (hash, adaptive per packet, adaptive per flowlet with a
# gap of GAP_US, default 2 us scaled from 100G to RATE) on the plain
# fabric and with a hot spine link (leaf1-spine1 at a quarter of RATE).
# The runs interleave, ROUNDS (3) rounds of all six; the table gives per
# mode and size the medians over the rounds of each run's completion p50
# and p99, the hot run's p99 over the plain hash run's and over the same
# mode's plain run, and the reordering the receivers saw.
# PART spreading: congestion spreading on conf/fabric/leaf2-spine2-8.yaml
# at RATE: a 3 -> 1 incast (ranks 4, 5, 6 on leaf2 to rank 0 on leaf1,
# each at half the link rate) and a victim flow (rank 7 -> rank 1, 2% of
# the link) that shares no congested link with it, for SECONDS (5) each,
# ROUNDS rounds of --fc pfc, --fc credit and ECN only (--fc none, RED/ECN
# on the lane at 20-200 KB, the generator's ranks reacting DCQCN-style,
# its times scaled by 100G/RATE), and pfc-vl, credit-vl: the same with the
# victim on a lossless lane of its own (VL 4, --flow ...@4):
# the victim's latency p50/p99/max and the incast's delivery, medians over
# the rounds.
# PART trim: completion time of a 7 -> 1 incast (--engine incast, 8 ranks
# of conf/fabric/leaf2-spine2-8.yaml at RATE, --qps QPS, ITERS
# iterations of each size in SIZES) on lossy lanes with RED/ECN and
# DCQCN senders, when a full lane drops (recovered by the senders' RTO,
# RTO_US, default 20000) and when it trims (the trimmed frame a NACK; the
# RTO stays as a backstop), and on lossless lanes (--fc credit) for
# reference. Every switch port is shaped to 98% of RATE with a 64-frame
# TX ring and a 16 KB lane, so queues build where ECN and trimming act;
# DCQCN's times are scaled by 100G/RATE (--dcqcn-scale). ROUNDS rounds,
# interleaved; medians over the rounds of each run's completion p50/p99.
# PART all: all three.
set -euo pipefail
cd "$(dirname "$0")/../.."

build=build topo=conf/fabric/leaf4-spine2-64.yaml rate=100M iters=20
rounds=3 qps=4 gap="" sizes="256K 1M" part=adaptive secs=5 rto=20000
while getopts "p:b:t:R:n:r:Q:G:s:d:T:h" o; do
	case $o in
	p) part=$OPTARG ;; b) build=$OPTARG ;; t) topo=$OPTARG ;;
	R) rate=$OPTARG ;; n) iters=$OPTARG ;; r) rounds=$OPTARG ;;
	Q) qps=$OPTARG ;; G) gap=$OPTARG ;; s) sizes=$OPTARG ;;
	d) secs=$OPTARG ;; T) rto=$OPTARG ;;
	*) sed -n '2,44p' "$0"; exit 2 ;;
	esac
done
fab=$build/app/ibex-fabric/ibex-fabric
[ -x "$fab" ] || { echo "build first: ninja -C $build" >&2; exit 2; }
tmp=$(mktemp -d /tmp/ibex-ai-eth.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
eal=(--lcores 0@0,1@1,2@0 --no-huge -m 2048 --no-pci --log-level='lib.*:notice'
     --file-prefix="aieth$$")
ranks=$("$fab" --check "$topo" | sed -n 's/.*switches, \([0-9]*\) ranks.*/\1/p')
cp "$(dirname "$topo")"/*.conf "$tmp"/ 2>/dev/null || true
bps=$(python3 -c "
import re; v, u = re.match(r'([0-9.]+)([KMGT])', '$rate').groups()
print(int(float(v) * {'K': 1e3, 'M': 1e6, 'G': 1e9, 'T': 1e12}[u]))")
# A flowlet gap of 2 us at 100G (24 frame times of 1 KiB): the same
# number of frame times at RATE.
[ -n "$gap" ] || gap=$(( 2 * 100000000000 / bps ))
quarter=$(python3 -c "
q = $bps / 4
for u, d in ((\"G\", 1e9), (\"M\", 1e6), (\"K\", 1e3)):
    if q >= d and q % d == 0: print(\"%d%s\" % (q // d, u)); break
else: print(\"%dK\" % (q // 1e3))")

adaptive() {
sed "s/rate: [0-9.]*[KMGT]/rate: $rate/" "$topo" >"$tmp/plain.yaml"
awk -v r="$quarter" '/endpoints: \["leaf1:p[0-9]*", "spine1:/ {
	print; print "      rate: " r; next } {print}' "$tmp/plain.yaml" >"$tmp/hot.yaml"
min=$(echo "$sizes" | awk '{print $1}') max=$(echo "$sizes" | awk '{print $NF}')

echo "# adaptive routing: $ranks-rank ring on $(basename "$topo"), links $rate," \
	"hot link $quarter, --qps $qps, flowlet gap $gap us, $iters iterations," \
	"$rounds rounds ($(date -u +%FT%TZ))"
for ((k = 1; k <= rounds; k++)); do
	for mode in hash packet flowlet; do
		for fab_kind in plain hot; do
			ecmp=()
			[ $mode = packet ] && ecmp=(--ecmp packet)
			[ $mode = flowlet ] && ecmp=(--ecmp "flowlet $gap")
			out=$tmp/$mode.$fab_kind.$k
			"$fab" "${eal[@]}" -- "$tmp/$fab_kind.yaml" --fc credit \
				"${ecmp[@]}" --json "$out.hops.json" --gen "--engine ring \
				--ranks $ranks -b $min -e $max -f 4 -n $iters -w 3 \
				--vlan 1 --pcp 3 --fc credit --vl 3 --qps $qps \
				--timeout-ms 60000 --json $out.json" >"$out.log" 2>&1 ||
				echo "# $mode $fab_kind round $k: not clean ($(tail -1 "$out.log"))"
		done
	done
done
python3 - "$tmp" "$rounds" <<'PY'
import json, statistics, sys
t, rounds = sys.argv[1], int(sys.argv[2])
def runs(mode, kind):
    out = []
    for k in range(1, rounds + 1):
        try:
            out.append(json.load(open(f"{t}/{mode}.{kind}.{k}.json")))
        except (OSError, ValueError):
            pass
    return out
def med(rs, i, key):
    v = [r["sizes"][i][key] for r in rs if i < len(r["sizes"])]
    return statistics.median(v) / 1e3 if v else float("nan")
base = runs("hash", "plain")
print("%-8s %8s %21s %21s %9s %9s %10s %6s %9s" % ("mode", "size", "plain p50 / p99 ms",
      "hot p50 / p99 ms", "hot/hash", "hot/same", "late", "depth", "buffer B"))
for mode in ("hash", "packet", "flowlet"):
    pl, hot = runs(mode, "plain"), runs(mode, "hot")
    if not pl or not hot:
        print("%-8s (no clean run)" % mode)
        continue
    for i, s in enumerate(pl[0]["sizes"]):
        bp99 = med(base, i, "ct_p99_us")
        p50, p99 = med(pl, i, "ct_p50_us"), med(pl, i, "ct_p99_us")
        h50, h99 = med(hot, i, "ct_p50_us"), med(hot, i, "ct_p99_us")
        late = statistics.median(r["reorder"]["late"] for r in hot)
        depth = max(r["reorder"]["max_depth"] for r in hot)
        buf = max(r["reorder"]["buffer_bytes"] for r in hot)
        print("%-8s %8d %9.1f / %9.1f %9.1f / %9.1f %9.3f %9.3f %10d %6d %9d" % (
              mode, s["bytes"], p50, p99, h50, h99, h99 / bp99, h99 / p99,
              late, depth, buf))
# Where the hot link's frames went: leaf1's uplinks in the last hot runs.
import re
ups = re.findall(r'endpoints: \["leaf1:(p\d+)", "(spine\d+):', open(f"{t}/hot.yaml").read())
for mode in ("hash", "packet", "flowlet"):
    try:
        h = json.load(open(f"{t}/{mode}.hot.{rounds}.hops.json"))
    except (OSError, ValueError):
        continue
    ports = {p["port"]: p for s in h["switches"] if s["name"] == "leaf1"
             for p in s["ports"]}
    print("# %s, hot fabric: leaf1's uplinks sent %s" % (mode, ", ".join(
          "%s (to %s%s) %d frames" % (p, sp, ", the hot link" if sp == "spine1" else "",
                                      ports[p]["tx_frames"]) for p, sp in ups)))
PY
}

spreading() {
	local t8=conf/fabric/leaf2-spine2-8.yaml mode k
	local lpps vpps
	# frames of 1024 bytes (+ 24 on the wire): half the link per incast
	# sender, 2% of it for the victim
	lpps=$(( bps / (1048 * 8) / 2 )) vpps=$(( bps / (1048 * 8) / 50 ))
	# Every switch port shaped just below the link with a 64-frame TX
	# ring, so frames wait in their lanes (a switch's scheduler feeds its
	# wire at line rate), not in a TX FIFO all lanes share. ECN only adds
	# RED/ECN on VL 3; the -vl runs make VL 4 lossless as well (PCP 4 ->
	# VL 4 by the default tables) for the victim's frames (PCP 4, @4).
	local shape
	shape=$(python3 -c "print('%dK' % ($bps * 0.98 / 1e3))")
	for mode in plain ecn vl; do
		sed -e "s/rate: [0-9.]*[KMGT]/rate: $rate/" \
		    -e "s/\\(spine[0-9]*\\): {kind: ibex, ports: 2}/\\1: {kind: ibex, ports: 2, config: sp.$mode.2.conf}/" \
		    -e "s/\\(leaf[0-9]*\\): {kind: ibex, ports: 6}/\\1: {kind: ibex, ports: 6, config: sp.$mode.6.conf}/" \
			"$t8" >"$tmp/s8$mode.yaml"
		for n in 2 6; do
			{
				for ((k = 0; k < n; k++)); do
					echo "port p$k tx-desc 64 shape $shape"
				done
				for ((k = 0; k < n; k++)); do
					case $mode in
					ecn) echo "ecn p$k vl 3 kmin 20KB kmax 200KB pmax 0.2" ;;
					vl) echo "lane p$k vl 4 lossless" ;;
					esac
				done
				# PFC headroom for two lossless lanes on every port
				if [ $mode = vl ]; then echo "buffer total 32MB"; fi
			} >"$tmp/sp.$mode.$n.conf"
		done
	done
	echo "# congestion spreading: leaf2-spine2-8 at $rate, incast 4,5,6 -> 0 at" \
		"$lpps frames/s each, victim 7 -> 1 at $vpps frames/s, $secs s," \
		"$rounds rounds ($(date -u +%FT%TZ))"
	for ((k = 1; k <= rounds; k++)); do
		for mode in pfc credit ecn pfc-vl credit-vl pfc-alone credit-alone \
			    ecn-alone; do
			# MODE[-vl|-alone]: flow control, and the victim on its
			# own lane or with no incast at all (its own latency)
			local fc=${mode%%-*} kind=${mode#*-} y genfc="" extra=()
			local flows="4:0:$lpps,5:0:$lpps,6:0:$lpps,7:1:$vpps"
			[ "$kind" = "$mode" ] && kind=""
			y=$tmp/s8plain.yaml
			[ $fc = credit ] && genfc="--fc credit --vl 3"
			[ $fc = ecn ] && { y=$tmp/s8ecn.yaml fc=none
				genfc="--dcqcn --dcqcn-scale $(( 100000000000 / bps ))"; }
			[ $fc = pfc ] &&
				extra=(--pfc-reaction-us 20000 --pfc-watchdog alarm)
			[ "$kind" = vl ] && { y=$tmp/s8vl.yaml flows="$flows@4"; }
			[ "$kind" = alone ] && flows="7:1:$vpps"
			"$fab" "${eal[@]}" -- "$y" --fc $fc "${extra[@]}" \
				--json "$tmp/sp.$mode.$k.hops.json" --gen "--engine rate \
				--ranks 8 --flow $flows \
				--vlan 1 --pcp 3 --size 1024 $genfc --duration $secs \
				--json $tmp/sp.$mode.$k.json" >"$tmp/sp.$mode.$k.log" 2>&1 || true
		done
	done
	python3 - "$tmp" "$rounds" <<'PY'
import json, statistics, sys
t, rounds = sys.argv[1], int(sys.argv[2])
print("%-12s %12s %12s %12s %14s %12s %10s" % ("mode", "victim p50", "victim p99",
      "victim max", "incast rx/tx", "incast lost", "victim rx"))
print("%-12s %12s %12s %12s %14s %12s %10s" % ("", "(us)", "(us)", "(us)", "", "(frames)", "(frames)"))
for mode in ("pfc", "credit", "ecn", "pfc-vl", "credit-vl", "pfc-alone",
             "credit-alone", "ecn-alone"):
    rs = []
    for k in range(1, rounds + 1):
        try:
            rs.append(json.load(open(f"{t}/sp.{mode}.{k}.json")))
        except (OSError, ValueError):
            pass
    if not rs:
        print("%-12s (no run)" % mode)
        continue
    vic = [[f for f in r["flows"] if f["src"] == 7][0] for r in rs]
    inc = [[f for f in r["flows"] if f["src"] != 7] for r in rs]
    m = lambda v: statistics.median(v)
    if any(inc):
        deliv = "%14.3f %12d" % (
            m(sum(f["rx"] for f in i) / max(1, sum(f["tx"] for f in i)) for i in inc),
            m(sum(f["tx"] - f["rx"] for f in i) for i in inc))
    else:
        deliv = "%14s %12s" % ("-", "-")
    print("%-12s %12.1f %12.1f %12.1f %s %10d" % (mode,
          m(v["lat_p50_ns"] for v in vic) / 1e3, m(v["lat_p99_ns"] for v in vic) / 1e3,
          m(v["lat_max_ns"] for v in vic) / 1e3, deliv, m(v["rx"] for v in vic)))
PY
}

trimming() {
	local t8=conf/fabric/leaf2-spine2-8.yaml mode k n scale
	local min max
	min=$(echo "$sizes" | awk '{print $1}') max=$(echo "$sizes" | awk '{print $NF}')
	scale=$(( 100000000000 / bps ))
	# VL 2 for the trimmed frames, served first; data on VL 3.
	awk '/^  nodes:/ { print "  lanes:"; print "    vls: 4"
		print "    pcp2sl: \"0-7:0,3:3\""; print "    sl2vl: \"0-15:0,3:3\""
		print "    vlarb: \"high 2:255 low 0:32,3:32 limit 8\"" } { print }' "$t8" |
		sed -e "s/rate: [0-9.]*[KMGT]/rate: $rate/" \
		    -e 's/\(leaf[0-9]*\): {kind: ibex, ports: 6}/\1: {kind: ibex, ports: 6, config: LEAF}/' \
		    -e 's/\(spine[0-9]*\): {kind: ibex, ports: 2}/\1: {kind: ibex, ports: 2, config: SPINE}/' \
		>"$tmp/tr.yaml"
	# shaped just below the link so the queue is the lane's, not the TX
	# ring's (a switch's scheduler feeds its wire at line rate)
	local shape
	shape=$(python3 -c "print('%dK' % ($bps * 0.98 / 1e3))")
	for mode in drop trim credit; do
		for n in 2 6; do
			{
				for ((k = 0; k < n; k++)); do
					echo "port p$k tx-desc 64 vl-queue 16KB shape $shape"
				done
				if [ $mode != credit ]; then
					for ((k = 0; k < n; k++)); do
						echo "ecn p$k vl 3 kmin 4KB kmax 12KB pmax 0.2"
						[ $mode = trim ] && echo "trim p$k size 256 dscp 46 vl 2"
					done
				fi
			} >"$tmp/tr.$mode.$n.conf"
		done
		sed -e "s/config: LEAF/config: tr.$mode.6.conf/" \
		    -e "s/config: SPINE/config: tr.$mode.2.conf/" "$tmp/tr.yaml" >"$tmp/tr.$mode.yaml"
	done
	echo "# trimming vs drop-and-timeout: 7 -> 1 incast on leaf2-spine2-8 at $rate," \
		"--qps $qps, RTO $rto us, DCQCN times x $scale, $iters iterations," \
		"$rounds rounds ($(date -u +%FT%TZ))"
	for ((k = 1; k <= rounds; k++)); do
		for mode in drop trim credit; do
			local fc=none genfc="--dcqcn --dcqcn-scale $scale --rto $rto"
			[ $mode = credit ] && { fc=credit genfc="--fc credit --vl 3"; }
			"$fab" "${eal[@]}" -- "$tmp/tr.$mode.yaml" --fc $fc \
				--json "$tmp/tr.$mode.$k.hops.json" --gen "--engine incast \
				--ranks 8 -b $min -e $max -f 4 -n $iters -w 1 --qps $qps \
				--vlan 1 --pcp 3 $genfc --timeout-ms 60000 \
				--json $tmp/tr.$mode.$k.json" >"$tmp/tr.$mode.$k.log" 2>&1 ||
				echo "# $mode round $k: not clean ($(tail -1 "$tmp/tr.$mode.$k.log"))"
		done
	done
	python3 - "$tmp" "$rounds" <<'PY'
import json, statistics, sys
t, rounds = sys.argv[1], int(sys.argv[2])
def runs(mode):
    out = []
    for k in range(1, rounds + 1):
        try:
            out.append(json.load(open(f"{t}/tr.{mode}.{k}.json")))
        except (OSError, ValueError):
            pass
    return out
m = statistics.median
# per run, both sizes together: frames the RTO recovered (its copy
# arrived first), trimmed frames (NACKs), RTO retransmissions, duplicates,
# the NACKs' recovery p99 (NACK to the retransmission's arrival)
print("%-7s %8s %10s %10s %6s %9s %9s %9s %9s %9s" % ("mode", "size", "ct p50 ms",
      "ct p99 ms", "failed", "rto rec", "trimmed", "rto retx", "dups", "recov ms"))
base = runs("drop")
for mode in ("drop", "trim", "credit"):
    rs = runs(mode)
    if not rs:
        print("%-7s (no clean run)" % mode)
        continue
    for i, s in enumerate(rs[0]["sizes"]):
        print("%-7s %8d %10.1f %10.1f %6d %9d %9d %9d %9d %9.1f" % (mode, s["bytes"],
              m(r["sizes"][i]["ct_p50_us"] for r in rs) / 1e3,
              m(r["sizes"][i]["ct_p99_us"] for r in rs) / 1e3,
              sum(r["sizes"][i]["failed"] for r in rs),
              m(r["rto"]["rto_rx"] for r in rs),
              m(r["trim"]["trimmed_rx"] for r in rs), m(r["rto"]["rto_tx"] for r in rs),
              m(r["rto"]["dup_rx"] for r in rs),
              m(r["trim"]["recovery_p99_ns"] for r in rs) / 1e6))
for mode in ("trim", "credit"):
    rs = runs(mode)
    if not rs or not base:
        continue
    for i, s in enumerate(rs[0]["sizes"]):
        print("# %s / drop at %d B: p50 %.3f, p99 %.3f" % (mode, s["bytes"],
              m(r["sizes"][i]["ct_p50_us"] for r in rs) / m(r["sizes"][i]["ct_p50_us"] for r in base),
              m(r["sizes"][i]["ct_p99_us"] for r in rs) / m(r["sizes"][i]["ct_p99_us"] for r in base)))
PY
}

case $part in
adaptive) adaptive ;;
spreading) spreading ;;
trim) trimming ;;
all) adaptive; spreading; trimming ;;
*) echo "unknown part $part" >&2; exit 2 ;;
esac
