#!/usr/bin/env bash
# What classification costs per frame, side by side in one run: the
# built-in PCP and DSCP classifiers against the DSCP example program
# (conf/bpf/dscp_cnp.o:ibex/dscp, the same answer as sl-from dscp) JIT-ed
# and interpreted, and the CNP-override program JIT-ed. Instructions per
# frame from count_instr.sh (callgrind), then, unless -n, rates from
# bench_fwd.sh with each config (noisy on a shared machine).
#
#   tests/bench/bpf_cost.sh [-b BUILD] [-n] [-r RUNS]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=build rates=1 runs=3
while getopts "b:nr:h" o; do
	case $o in
	b) build=$OPTARG ;; n) rates=0 ;; r) runs=$OPTARG ;;
	*) sed -n '2,9p' "$0"; exit 2 ;;
	esac
done
obj=$(realpath "$build/conf/bpf/dscp_cnp.o")
[ -f "$obj" ] || { echo "no $obj: build with clang present" >&2; exit 2; }
tmp=$(mktemp -d /tmp/ibex-bpfcost.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
kinds="pcp dscp bpf-jit bpf-interp bpf-cnp-jit"
conf_of() { # kind -> config lines for p0 and p1
	local p
	for p in p0 p1; do
		case $1 in
		pcp) echo "port $p sl-from pcp" ;;
		dscp) echo "port $p sl-from dscp" ;;
		bpf-jit) echo "port $p sl-from bpf $obj:ibex/dscp" ;;
		bpf-interp) echo "port $p sl-from bpf $obj:ibex/dscp bpf-jit off" ;;
		bpf-cnp-jit) echo "port $p sl-from bpf $obj:ibex/dscp_cnp" ;;
		esac
	done
}
for k in $kinds; do
	conf_of "$k" >"$tmp/$k.extra"
done
echo "== instructions per frame (callgrind, tests/bench/count_instr.sh)"
for k in $kinds; do
	printf '%-12s ' "$k"
	EXTRA_CONF="$tmp/$k.extra" tests/bench/count_instr.sh "$build" |
		awk '{print $2, $3, $4, $5}'
done
[ "$rates" = 1 ] || exit 0
echo "== forwarding rate (tests/bench/bench_fwd.sh, $runs runs each)"
for k in $kinds; do
	{
		echo "port p0 dev net_pcap0"
		echo "port p1 dev net_pcap1"
		cat "$tmp/$k.extra"
	} >"$tmp/$k.conf"
	echo "-- $k"
	tests/bench/bench_fwd.sh -b "$build" -r "$runs" -c "$tmp/$k.conf" | tail -4
done
