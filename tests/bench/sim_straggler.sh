#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# What one late rank costs a large all-reduce, on simulated time
# (docs/simulation.md, "10,044 ranks: the motivating example"):
#
#   tests/bench/sim_straggler.sh [-b BUILD] [-k K] [-p PODS] [-s SIZE]
#                                [-d DELAYS_US] [-r RANK] [-m MB]
#
# Writes `ibex-topo fattree K --pods PODS --rate 400G` (default 36 and 31:
# 10,044 ranks), then runs a halving-doubling all-reduce of SIZE (8K) over
# every rank, with PFC and 600 ns per switch, once on time and once for
# each delay in DELAYS_US ("20 50") with rank RANK (the middle one) joining
# the collective that late (--straggler RANK:D:once). Prints per run the
# all-reduce's simulated time, how much later it ended than on time, what
# that costs every rank (GPU-seconds per step: ranks x the delay of the
# end) against the arithmetic (ranks - 1) x D, and the run's wall time and
# peak RSS. -k 8 -p 8 (128 ranks) runs in seconds; the default takes
# about 3 minutes a run and 12 GiB.
set -euo pipefail
cd "$(dirname "$0")/../.."

build=build k=36 pods=31 size=8K delays="20 50" rank="" mb=20480
while getopts "b:k:p:s:d:r:m:h" o; do
	case $o in
	b) build=$OPTARG ;; k) k=$OPTARG ;; p) pods=$OPTARG ;;
	s) size=$OPTARG ;; d) delays=$OPTARG ;; r) rank=$OPTARG ;;
	m) mb=$OPTARG ;;
	*) sed -n '2,19p' "$0"; exit 2 ;;
	esac
done
fab=$build/app/ibex-fabric/ibex-fabric
topo=$build/app/ibex-topo/ibex-topo
[ -x "$fab" ] && [ -x "$topo" ] || { echo "no $fab: build first" >&2; exit 2; }
tmp=$(mktemp -d /tmp/ibex-simstrag.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

"$topo" fattree "$k" --pods "$pods" --rate 400G -o "$tmp/ft.yaml"
ranks=$((pods * k * k / 4))
[ -n "$rank" ] || rank=$((ranks / 2))

one() { # NAME [STRAGGLER]
	local log=$tmp/$1.log
	/usr/bin/time -f "wall %e s, peak RSS %M KB" "$fab" --lcores 0@0,1@1,2@0 \
		--no-huge -m "$mb" --no-pci --file-prefix "simstrag$$" \
		--log-level='lib.*:notice' -- "$tmp/ft.yaml" --fc pfc \
		--pfc-reaction-us 1 --switch-latency 600ns --clock virtual \
		--ctl-dir none --gen "--engine hd --ranks $ranks -b $size -e $size \
		-n 1 -w 0 ${2:-}" >"$log" 2>&1 ||
		{ echo "run $1 failed: $log" >&2; tail -5 "$log" >&2; exit 1; }
	# the nccl-tests row: size count type time ...
	awk '$3 == "float" && $1 ~ /^[0-9]+$/ { print $4; exit }' "$log"
}

echo "fattree $k, $pods pods: $ranks ranks at 400G; hd all-reduce of $size," \
	"PFC, 600 ns a switch; late rank $rank"
base=$(one plain)
printf '%-22s %12s %12s %16s %16s  %s\n' run "time (us)" "later (us)" \
	"GPU-s per step" "arithmetic" "wall, RSS"
printf '%-22s %12s %12s %16s %16s  %s\n' "on time" "$base" 0 0 0 \
	"$(grep '^wall' "$tmp/plain.log")"
for d in $delays; do
	t=$(one "late$d" "--straggler $rank:$d:once")
	awk -v t="$t" -v b="$base" -v n="$ranks" -v d="$d" -v w="$(grep '^wall' \
		"$tmp/late$d.log")" 'BEGIN {
		printf "%-22s %12.2f %12.2f %16.4f %16.4f  %s\n",
			"rank late " d " us", t, t - b, n * (t - b) / 1e6,
			(n - 1) * d / 1e6, w }'
done
