#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Generator figures (docs/generator.md), one core, no hugepages:
#   1. peak TX Mpps: net_null port without RX, frames of 82/128/512/1514 B;
#   2. peak TX+RX Mpps and latency floor: one net_ring port looped to itself;
#   3. pacing error at 0.1 / 1 / 5 / 10 Mpps over 1 s (net_null);
#   4. 8-rank ring all-reduce through ibex-switch --gen (3 lcores on 2 CPUs).
# Run on a quiet machine; each figure is one 1-second run (median of
# REPEAT runs with REPEAT=N).
#
#   tests/bench/gen_peak.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
gen=$build/app/ibex-gen/ibex-gen
sw=$build/app/ibex-switch/ibex-switch
rep=${REPEAT:-1}
eal=(-l 0 --no-huge -m 1024 --no-pci --log-level='lib.*:notice')

# median Mpps of $rep runs of ibex-gen "$@"
mpps() {
	local i
	for ((i = 0; i < rep; i++)); do
		"$gen" "${eal[@]}" --file-prefix="genpeak$$" "$@" 2>/dev/null |
			sed -n 's/.*frames (\([0-9.]*\) Mpps.*/\1/p'
	done | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}

echo "== 1. peak TX, one core (net_null, no RX)"
printf '%8s %10s\n' size Mpps
for s in 82 128 512 1514; do
	printf '%8s %10s\n' "$s" "$(mpps --vdev net_null0,no-rx=1 -- --engine rate \
		--ranks 2 --size "$s" --duration 1)"
done

echo "== 2. peak TX+RX, one core (net_ring looped), 128 B, and latency floor"
"$gen" "${eal[@]}" --file-prefix="genpeak$$" --vdev net_ring0 -- --engine rate \
	--ranks 2 --size 128 --duration 1 2>/dev/null | grep -E 'rate,|latency'
"$gen" "${eal[@]}" --file-prefix="genpeak$$" --vdev net_ring0 -- --engine rate \
	--ranks 2 --size 128 --duration 1 --rate 100K 2>/dev/null | grep -E 'latency'

echo "== 3. pacing error over 1 s (net_null, 128 B)"
printf '%12s %14s %s\n' requested "frames in 1 s" "error"
for r in 100000 1000000 5000000 10000000; do
	out=$("$gen" "${eal[@]}" --file-prefix="genpeak$$" --vdev net_null0,no-rx=1 -- \
		--engine rate --ranks 2 --size 128 --duration 1 --rate "$r" 2>/dev/null)
	printf '%12s %14s %s\n' "$r" \
		"$(sed -n 's/.* s: tx \([0-9]*\) frames.*/\1/p' <<<"$out")" \
		"$(sed -n 's/^# pacing error \(.*\)/\1/p' <<<"$out")"
done

echo "== 4. 8-rank ring all-reduce through ibex-switch --gen"
"$sw" --lcores 0@0,1@1,2@0 --no-huge -m 1024 --no-pci --log-level='lib.*:notice' \
	--file-prefix="genpeak$$" -- --gen "--engine ring --ranks 8 -b 4K -e 1M -f 4 \
	-n 50 -w 5" 2>/dev/null | sed -n '/^# ibex-gen/,$p'
