#!/usr/bin/env bash
# The cost of virtual lanes: the forwarding benchmark (bench_fwd.sh, against
# testpmd on the same ports) with 1, 4, 8 and 15 operational VLs. Traffic is
# spread over 16 DSCP classes and each port classifies by DSCP, class d to
# SL d, so with N lanes frames use N different lanes (SL s -> VL s mod N).
# Uncongested: every frame should cut through, whatever N.
#
#   tests/bench/bench_lanes.sh [-b BUILD] [-r RUNS] [-d SECONDS] [-l "1 4 8 15"]
set -euo pipefail
cd "$(dirname "$0")/../.."

build=build runs=3 dur=5 lanes="1 4 8 15"
while getopts "b:r:d:l:h" o; do
	case $o in
	b) build=$OPTARG ;; r) runs=$OPTARG ;; d) dur=$OPTARG ;;
	l) lanes=$OPTARG ;;
	*) sed -n '2,8p' "$0"; exit 2 ;;
	esac
done
tmp=$(mktemp -d /tmp/ibex-lanes.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

map=$(seq 0 15 | awk '{printf "%s%d:%d", (NR > 1 ? "," : ""), $1, $1}')
printf '%-6s %10s %10s %10s %12s\n' vls ibex-Mpps mac-Mpps ibex/mac "vs 1 VL"
base=""
for n in $lanes; do
	{
		for p in 0 1; do
			echo "port p$p dev net_pcap$p vls $n sl-from dscp"
			echo "dscp2sl p$p $map"
		done
	} >"$tmp/lanes$n.conf"
	tests/bench/bench_fwd.sh -b "$build" -r "$runs" -d "$dur" -p 16 \
		-g "--dscp-spread 16" -c "$tmp/lanes$n.conf" >"$tmp/out$n" 2>&1
	ibex=$(awk '/^median/ {print $3}' "$tmp/out$n")
	mac=$(awk '/^median/ {print $11}' "$tmp/out$n")
	[ -z "$base" ] && base=$ibex
	printf '%-6s %10s %10s %10.2f %12.2f\n' "$n" "$ibex" "$mac" \
		"$(echo "$ibex / $mac" | bc -l)" "$(echo "$ibex / $base" | bc -l)"
done
