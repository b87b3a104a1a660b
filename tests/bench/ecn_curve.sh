#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# ECN curve bench: compile ecn_curve_main.c against lib/ecn, run it, keep
# its table as a gnuplot .dat and draw the configured and measured curve.
#
# Usage: tests/bench/ecn_curve.sh [rate_bps] [out.png] [out.dat]
#   defaults: 25e9 (HPCC 100/400 kB, Pmax 0.2), docs/ecn-curve.png,
#   the .dat in a temporary directory (printed on stdout either way).
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
rate=${1:-25000000000}
png=${2:-$root/docs/ecn-curve.png}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
dat=${3:-$tmp/ecn-curve.dat}

${CC:-gcc} -O2 -march=corei7 -Wall -Wextra -Werror \
	-I"$root/lib/common" -I"$root/lib/ecn" \
	-o "$tmp/ecn_curve" \
	"$root/tests/bench/ecn_curve_main.c" "$root/lib/ecn/ibex_ecn.c" -lm
"$tmp/ecn_curve" "$rate" > "$dat"
cat "$dat"

if ! command -v gnuplot >/dev/null 2>&1; then
	echo "gnuplot not found: no plot" >&2
	exit 0
fi
# pngcairo draws nicer; plain png (libgd) is the fallback.
if gnuplot -e 'set terminal pngcairo' >/dev/null 2>&1; then
	term='pngcairo size 900,560 font ",11"'
else
	term='png size 900,560'
fi
kmin=$(sed -n 's/^# kmin \([0-9]*\) B, kmax \([0-9]*\) B, pmax \([0-9.]*\).*/\1/p' "$dat")
kmax=$(sed -n 's/^# kmin \([0-9]*\) B, kmax \([0-9]*\) B, pmax \([0-9.]*\).*/\2/p' "$dat")
pmax=$(sed -n 's/^# kmin \([0-9]*\) B, kmax \([0-9]*\) B, pmax \([0-9.]*\).*/\3/p' "$dat")

gnuplot <<EOF
set terminal $term
set output "$png"
set title "ibex ECN mark probability: Kmin $kmin B, Kmax $kmax B, Pmax $pmax (10^6 decisions a point)"
set xlabel "lane backlog (kB = 1000 bytes)"
set ylabel "mark probability"
set key top left
set grid
set yrange [-0.02:1.05]
set samples 2000
kmin = $kmin.0; kmax = $kmax.0; pmax = $pmax
p(x) = x <= kmin/1000 ? 0 : x > kmax/1000 ? 1 : pmax * (x*1000 - kmin) / (kmax - kmin)
set arrow from kmin/1000, graph 0 to kmin/1000, graph 1 nohead dt 2 lc rgb "gray50"
set arrow from kmax/1000, graph 0 to kmax/1000, graph 1 nohead dt 2 lc rgb "gray50"
set label "Kmin" at kmin/1000, graph 0.55 offset 0.5,0
set label "Kmax" at kmax/1000, graph 0.55 offset 0.5,0
plot p(x) with lines lw 2 lc rgb "#1f77b4" title "configured", \
     "$dat" using (\$1/1000):3 with points pt 7 ps 1 lc rgb "#d62728" title "measured"
EOF
echo "wrote $png" >&2
