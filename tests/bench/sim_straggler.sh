#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# What one late rank costs a large all-reduce, on simulated time
# (docs/simulation.md, "10,044 ranks: the motivating example"):
#
#   tests/bench/sim_straggler.sh [-b BUILD] [-k K] [-p PODS] [-s SIZE]
#                                [-d DELAYS_US] [-r RANK] [-m MB]
#                                [-S RATE] [-x REACTION_US]
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
#
# -S RATE (e.g. 25G) runs a slow receiver instead of late ranks: rank
# RANK's link at RATE, the all-reduce's frames tagged PCP 3 (the lossless
# lane of --fc pfc; untagged frames take lossy lane 0), on time at full
# rate, then slow with --fc pfc and slow with --fc none. Prints the time,
# the delay against on time, the arithmetic of the slow link alone (the
# bytes a rank sends, serialised at RATE instead of 400G) and, per run,
# tests/bench/sim_pauses.py's PFC pauses per tier. -x sets every PFC
# port's reaction time (--pfc-reaction-us, default 1); its headroom must
# also cover the link's 500 ns and the 600 ns of the switch: 3 at 16
# ports (at 36 ports 3 wants more than a switch's 8 MB).
set -euo pipefail
cd "$(dirname "$0")/../.."

build=build k=36 pods=31 size=8K delays="20 50" rank="" mb=20480 slow=""
react=1
while getopts "b:k:p:s:d:r:m:S:x:h" o; do
	case $o in
	b) build=$OPTARG ;; k) k=$OPTARG ;; p) pods=$OPTARG ;;
	s) size=$OPTARG ;; d) delays=$OPTARG ;; r) rank=$OPTARG ;;
	m) mb=$OPTARG ;; S) slow=$OPTARG ;; x) react=$OPTARG ;;
	*) sed -n '2,31p' "$0"; exit 2 ;;
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

one() { # NAME [GEN_OPTIONS [TOPOLOGY [FC]]]
	local log=$tmp/$1.log
	/usr/bin/time -f "wall %e s, peak RSS %M KB" "$fab" --lcores 0@0,1@1,2@0 \
		--no-huge -m "$mb" --no-pci --file-prefix "simstrag$$" \
		--log-level='lib.*:notice' -- "${3:-$tmp/ft.yaml}" \
		--fc "${4:-pfc}" --pfc-reaction-us "$react" \
		--switch-latency 600ns --clock virtual --ctl-dir none \
		--json "$tmp/$1.json" --gen "--engine hd --ranks $ranks \
		-b $size -e $size -n 1 -w 0 ${2:-}" >"$log" 2>&1 || {
		# without flow control a lost frame stays lost (no --rto)
		[ "${4:-pfc}" = none ] && { echo failed; return 0; }
		echo "run $1 failed: $log" >&2; tail -5 "$log" >&2; exit 1; }
	# the nccl-tests row: size count type time ...
	awk '$3 == "float" && $1 ~ /^[0-9]+$/ { print $4; exit }' "$log"
}

if [ -n "$slow" ]; then
	# rank RANK's link (the line after its endpoints) at $slow
	name=$(awk -v r="$rank" '$1 == "-" && $2 == "endpoints:" &&
		$3 ~ /^\["rank/ { if (n++ == r) { print $3; exit } }' "$tmp/ft.yaml")
	awk -v e="$name" -v s="$slow" '{ print }
		$3 == e { print "      rate: " s }' "$tmp/ft.yaml" >"$tmp/slow.yaml"
	grep -q "rate: $slow" "$tmp/slow.yaml" ||
		{ echo "no link of rank $rank in $tmp/ft.yaml" >&2; exit 1; }
	tag="--vlan 1 --pcp 3 --prio 3"
	echo "fattree $k, $pods pods: $ranks ranks at 400G; hd all-reduce of" \
		"$size on PCP 3, 600 ns a switch, PFC reaction $react us;" \
		"rank $rank's link at $slow"
	printf '%-22s %12s %12s %12s  %s\n' run "time (us)" "later (us)" \
		"arithmetic" "wall, RSS"
	for r in "plain pfc $tmp/ft.yaml" "slow pfc $tmp/slow.yaml" \
		"slow none $tmp/slow.yaml"; do
		set -- $r
		t=$(one "$1-$2" "$tag" "$3" "$2")
		[ "$1" = plain ] && base=$t
		# the arithmetic: every byte a rank sends (headers too), at
		# $slow instead of 400G, on the all-reduce's critical path
		awk -v t="$t" -v b="$base" -v s="$slow" -v n="$ranks" \
			-v name="$1, --fc $2" -v w="$(grep '^wall' \
			"$tmp/$1-$2.log")" -v f="$(grep '^# frames:' \
			"$tmp/$1-$2.log")" -v p="$(grep '^# frames:' \
			"$tmp/plain-pfc.log")" 'BEGIN {
			# the bytes of a whole all-reduce: of the plain run
			split(p, a, /[( ]+/); for (i in a) if (a[i] == "B,")
				bytes = a[i - 1] / n
			r = s; sub(/G$/, "", r)
			x = name ~ /^plain/ ? 0 : bytes * 8 * (1 / r - 1 / 400) / 1e3
			if (t == "failed") {
				split(f, l, /lost /); split(l[2], m, / /)
				printf "%-22s %12s %12s %12.2f  %s\n", name,
					"failed", "(lost " m[1] ")", x, w
			} else
				printf "%-22s %12.2f %12.2f %12.2f  %s\n",
					name, t, t - b, x, w }'
	done
	for r in plain-pfc slow-pfc slow-none; do
		python3 tests/bench/sim_pauses.py "$tmp/$r.json" |
			sed "1s|.*|PFC pauses, $r:|"
	done
	exit 0
fi

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
