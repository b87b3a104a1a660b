#!/usr/bin/env bash
# What classification costs per frame, side by side in one run: the
# built-in PCP and DSCP classifiers against the DSCP example program
# (conf/bpf/dscp_cnp.o:ibex/dscp, the same answer as sl-from dscp) JIT-ed
# and interpreted, and the CNP-override program JIT-ed. Instructions per
# frame from count_instr.sh (callgrind), then, unless -n, rates from
# bench_fwd.sh with each config (noisy on a shared machine). -k names the
# kinds to run (default all five), -R skips the instruction counts (rates
# only, e.g. -R -k "dscp bpf-jit" -r 7 for the cycle target's median).
#
#   tests/bench/bpf_cost.sh [-b BUILD] [-n] [-R] [-r RUNS] [-k KINDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=build rates=1 runs=3 instr=1 kinds="pcp dscp bpf-jit bpf-interp bpf-cnp-jit"
while getopts "b:nRr:k:h" o; do
	case $o in
	b) build=$OPTARG ;; n) rates=0 ;; R) instr=0 ;; r) runs=$OPTARG ;;
	k) kinds=$OPTARG ;;
	*) sed -n '2,11p' "$0"; exit 2 ;;
	esac
done
obj=$(realpath "$build/conf/bpf/dscp_cnp.o")
[ -f "$obj" ] || { echo "no $obj: build with clang present" >&2; exit 2; }
tmp=$(mktemp -d /tmp/ibex-bpfcost.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
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
[ "$instr" = 1 ] && echo "== instructions per frame (callgrind, tests/bench/count_instr.sh)"
for k in $kinds; do
	[ "$instr" = 1 ] || break
	printf '%-12s ' "$k"
	EXTRA_CONF="$tmp/$k.extra" tests/bench/count_instr.sh "$build" |
		awk '{print $2, $3, $4, $5}'
done
[ "$rates" = 1 ] || exit 0
echo "== forwarding (tests/bench/bench_fwd.sh -r 1 per kind, kinds interleaved, $runs rounds)"
median() { sort -g | awk '{a[NR]=$1} END {if (NR==0) print "nan"; else if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
for k in $kinds; do
	{
		echo "port p0 dev net_pcap0"
		echo "port p1 dev net_pcap1"
		cat "$tmp/$k.extra"
	} >"$tmp/$k.conf"
done
printf '%-6s %-12s %10s %10s %12s\n' round kind ibex-Mpps io-Mpps cyc/frame
for r in $(seq 1 "$runs"); do
	for k in $kinds; do
		tests/bench/bench_fwd.sh -b "$build" -r 1 -c "$tmp/$k.conf" \
			>"$tmp/out" 2>&1 || { cat "$tmp/out"; exit 1; }
		mpps=$(awk '/^median/ {print $3}' "$tmp/out")
		io=$(awk '/^median/ {print $7}' "$tmp/out")
		cyc=$(awk '/busy cycles per frame/ {print $7}' "$tmp/out")
		printf '%-6s %-12s %10s %10s %12s\n' "$r" "$k" "$mpps" "$io" "$cyc"
		echo "$mpps $io $cyc" >>"$tmp/$k.res"
	done
done
echo
printf '%-12s %10s %10s %12s %16s\n' kind ibex-Mpps ratio-io cyc/frame "cyc - dscp"
dc=$(awk '{print $3}' "$tmp/dscp.res" | median)
for k in $kinds; do
	m=$(awk '{print $1}' "$tmp/$k.res" | median)
	io=$(awk '{print $2}' "$tmp/$k.res" | median)
	c=$(awk '{print $3}' "$tmp/$k.res" | median)
	printf '%-12s %10s %10.3f %12s %16s\n' "$k" "$m" \
		"$(echo "$m / $io" | bc -l)" "$c" "$(echo "$c - $dc" | bc -l)"
done
