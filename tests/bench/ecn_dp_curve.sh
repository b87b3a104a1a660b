#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# Marked fraction on the data path vs the configured curve: run the DPDK
# test tests/dp/test_dp_ecn.c (its test_drain_curve measures the fraction
# of ECT frames set to CE at every lane backlog from 0 to 900 frames of
# 1024 bytes, by draining a full lane) with IBEX_ECN_TABLE set, keep the
# table and plot it.
#
# Usage: tests/bench/ecn_dp_curve.sh [build_dir] [out.png] [out.dat]
#   defaults: build, docs/ecn-dp-curve.png, the .dat in a temporary dir.
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
png=${2:-$root/docs/ecn-dp-curve.png}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
dat=${3:-$tmp/ecn-dp-curve.dat}

[ -x "$build/tests/dp/test_dp_ecn" ] ||
	{ echo "no $build/tests/dp/test_dp_ecn: build it first" >&2; exit 1; }
IBEX_ECN_ONLY=test_drain_curve IBEX_ECN_TABLE=$dat \
	"$build/tests/dp/test_dp_ecn" >"$tmp/run.log" 2>&1 ||
	{ cat "$tmp/run.log" >&2; exit 1; }
cat "$dat"

if ! command -v gnuplot >/dev/null 2>&1; then
	echo "gnuplot not found: no plot" >&2
	exit 0
fi
if gnuplot -e 'set terminal pngcairo' >/dev/null 2>&1; then
	term='pngcairo size 900,560 font ",11"'
else
	term='png size 900,560'
fi
# shellcheck disable=SC2046
set -- $(sed -n 's/^# kmin \([0-9]*\) kmax \([0-9]*\) pmax \([0-9.]*\).*/\1 \2 \3/p' "$dat")
kmin=$1 kmax=$2 pmax=$3

gnuplot <<PLOT
set terminal $term
set output "$png"
set termoption noenhanced
set title "ibex data path: CE fraction at dequeue (Kmin $kmin B, Kmax $kmax B, Pmax $pmax)"
set xlabel "lane backlog behind the frame (kB = 1000 bytes)"
set ylabel "fraction of ECT frames marked CE"
set key top left
set grid
set yrange [-0.02:1.05]
set samples 2000
kmin = $kmin.0; kmax = $kmax.0; pmax = $pmax
p(x) = x <= kmin/1000 ? 0 : x > kmax/1000 ? 1 : pmax * (x*1000 - kmin) / (kmax - kmin)
plot p(x) with lines lw 2 lc rgb "#1f77b4" title "configured curve", \
     "$dat" using ((\$1+\$2)/2000):3 with points pt 6 ps 1.4 lc rgb "#2ca02c" title "curve averaged over the row", \
     "$dat" using ((\$1+\$2)/2000):4 with points pt 7 ps 0.8 lc rgb "#d62728" title "measured (test_dp_ecn)"
PLOT
echo "wrote $png" >&2
