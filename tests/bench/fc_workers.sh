#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Forwarding rate and busy cycles per frame with 1 and 2 workers, 2 ports
# x 2 RX queues (net_pcap, 64-byte RoCEv2 frames from the forwarding
# benchmark's pcaps, static FDB), per flow-control mode: none, pfc
# (VL 0 lossless) and credit (lanes lossy: the pcap peers send no
# credit; the ingress accounting and ABR run). Rounds interleave the
# runs; medians are printed, and the median of each round's ratio to
# mode none (paired: the machine's drift between rounds cancels). Both
# the switch's figures (its summary's rx frames / elapsed and busy cycles
# per frame) come from one run.
#
#   [ROUNDS=5] [SECS=3] tests/bench/fc_workers.sh BUILD
set -euo pipefail
b=${1:?usage: fc_workers.sh BUILD}
rounds=${ROUNDS:-5} secs=${SECS:-3}
tmp=$(mktemp -d /tmp/ibex-fcw.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
"$b/app/ibex-pcapgen/ibex-pcapgen" -o "$tmp/p0.pcap" -n 256 -s 64 -p 8 >/dev/null
"$b/app/ibex-pcapgen/ibex-pcapgen" -o "$tmp/p1.pcap" -n 256 -s 64 -p 8 --reverse >/dev/null
conf() { # $1 workers $2 mode
	echo "switch workers $1"
	echo "port p0 dev net_pcap0 rx-queues 2 vls 4"
	echo "port p1 dev net_pcap1 rx-queues 2 vls 4"
	echo "fdb learning off"
	for i in 0 1 2 3 4 5 6 7; do
		printf 'fdb static 02:00:00:00:0a:%02x port p0 vlan 1\n' "$i"
		printf 'fdb static 02:00:00:00:0b:%02x port p1 vlan 1\n' "$i"
	done
	case $2 in
	pfc) echo "port p0 fc pfc"; echo "port p1 fc pfc"
	     echo "lane p0 vl 0 lossless reserved 128KB"
	     echo "lane p1 vl 0 lossless reserved 128KB" ;;
	credit) echo "port p0 fc credit"; echo "port p1 fc credit" ;;
	esac
}
for r in $(seq "$rounds"); do
	for w in 1 2; do
		for m in none pfc credit; do
			conf "$w" "$m" >"$tmp/c.conf"
			lc=0@0,1@1; [ "$w" = 2 ] && lc=0@0,1@1,2@0
			"$b/app/ibex-switch/ibex-switch" --lcores "$lc" --no-huge \
				-m 512 --no-pci --log-level='lib.*:notice' \
				--vdev "net_pcap0,rx_pcap=$tmp/p0.pcap,rx_pcap=$tmp/p0.pcap,infinite_rx=1" \
				--vdev "net_pcap1,rx_pcap=$tmp/p1.pcap,rx_pcap=$tmp/p1.pcap,infinite_rx=1" \
				--file-prefix="ibexfcw$$" -- --duration "$secs" \
				--config "$tmp/c.conf" >"$tmp/log" 2>&1
			awk -v w="$w" -v m="$m" -v r="$r" '
				/summary after/ {t = $4}
				/^p[01] / {f += $2}
				/busy cycles per frame/ {c = $NF}
				END {printf "%s %s %.0f %s %s\n", w, m, f / t, c, r}' \
				"$tmp/log" >>"$tmp/res"
		done
	done
done
python3 - "$tmp/res" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
res, per_round = {}, {}
for w, m, fps, cyc, r in rows:
    res.setdefault((w, m), []).append((float(fps), float(cyc)))
    per_round[(w, m, r)] = float(cyc)
# "vs none": medians' ratio; "paired": the median of each round's ratio
# to mode none of the same round (robust to the machine's drift).
print("%-8s %-7s %14s %12s %10s %8s" % ("workers", "mode", "frames/s",
      "cycles/fr", "vs none", "paired"))
for w in ("1", "2"):
    base = statistics.median(c for _, c in res[(w, "none")])
    for m in ("none", "pfc", "credit"):
        v = res[(w, m)]
        fps = statistics.median(f for f, _ in v)
        cyc = statistics.median(c for _, c in v)
        paired = statistics.median(
            per_round[(w, m, r)] / per_round[(w, "none", r)]
            for (w2, m2, r) in per_round if w2 == w and m2 == m)
        print("%-8s %-7s %14.0f %12.0f %10.3f %8.3f" % (w, m, fps, cyc,
              cyc / base, paired))
PY
