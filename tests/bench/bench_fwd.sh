#!/usr/bin/env bash
# Forwarding benchmark: ibex-switch against dpdk-testpmd (io and mac) on the
# same two net_pcap ports, same EAL flags, same cores, runs interleaved.
#
#   tests/bench/bench_fwd.sh [-b BUILD] [-r RUNS] [-d SECONDS] [-s SIZE] [-p PAIRS]
#                            [-c IBEX_CONF] [-g "IBEX-PCAPGEN OPTIONS"]
#
# -c runs ibex-switch with a config (its ports must be dev net_pcap0 and
# net_pcap1); -g adds options to the pcaps both tools replay (e.g.
# "--dscp-spread 16" to spread the traffic over classes).
# Each port replays (infinite_rx=1) a pcap of 64-byte RoCEv2 frames between
# PAIRS MAC pairs: port 0 carries A_i -> B_i, port 1 B_i -> A_i, so ibex
# learns every station on its real port and forwards by FDB lookup. Rates are
# the median of the one-second samples each tool prints (RX, both ports
# summed); the figure per tool is the median over runs.
set -euo pipefail
cd "$(dirname "$0")/../.."

build=build runs=5 dur=6 size=64 pairs=8 conf="" genopts=""
while getopts "b:r:d:s:p:c:g:h" o; do
	case $o in
	b) build=$OPTARG ;; r) runs=$OPTARG ;; d) dur=$OPTARG ;;
	s) size=$OPTARG ;; p) pairs=$OPTARG ;;
	c) conf=$OPTARG ;; g) genopts=$OPTARG ;;
	*) sed -n '2,17p' "$0"; exit 2 ;;
	esac
done

sw=$build/app/ibex-switch/ibex-switch
gen=$build/app/ibex-pcapgen/ibex-pcapgen
[ -x "$sw" ] && [ -x "$gen" ] || { echo "build first: ninja -C $build" >&2; exit 2; }
command -v dpdk-testpmd >/dev/null || { echo "dpdk-testpmd not found (apt-get install dpdk)" >&2; exit 2; }

tmp=$(mktemp -d /tmp/ibex-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# shellcheck disable=SC2086 # genopts is a list of options
"$gen" -o "$tmp/p0.pcap" -n 256 -s "$size" -p "$pairs" $genopts >/dev/null
# shellcheck disable=SC2086
"$gen" -o "$tmp/p1.pcap" -n 256 -s "$size" -p "$pairs" --reverse $genopts >/dev/null
confargs=()
[ -n "$conf" ] && confargs=(--config "$conf")

eal=(-l 0-1 --no-huge -m 1024 --no-pci --log-level=lib.*:notice
     --vdev "net_pcap0,rx_pcap=$tmp/p0.pcap,infinite_rx=1"
     --vdev "net_pcap1,rx_pcap=$tmp/p1.pcap,infinite_rx=1")

median() { sort -g | awk '{a[NR]=$1} END {if (NR==0) print "nan"; else if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

# Median Mpps of ibex's per-second lines, dropping the first (warm-up).
run_ibex() {
	"$sw" "${eal[@]}" --file-prefix="ibexb$$_$RANDOM" -- --duration "$dur" \
		--stats-period 1 "${confargs[@]}" >"$tmp/ibex.log" 2>&1
	grep -o '[0-9.]* Mpps' "$tmp/ibex.log" | awk 'NR>1 {print $1}' | median
}

ibex_cycles() { awk '/busy cycles per frame/ {print $NF}' "$tmp/ibex.log"; }

# testpmd prints Rx-pps per port every period: sum the two ports, drop the
# first two periods (start-up), median of the rest.
run_testpmd() {
	timeout -s TERM "$dur" dpdk-testpmd "${eal[@]}" --file-prefix="tpb$$_$RANDOM" -- \
		--forward-mode="$1" --stats-period 1 --total-num-mbufs=16384 \
		</dev/null >"$tmp/tp.log" 2>&1 || true
	awk '/Rx-pps:/ {v[n++]=$2} END {for (i=0;i+1<n;i+=2) print (v[i]+v[i+1])/1e6}' \
		"$tmp/tp.log" | awk 'NR>2' | median
}

printf '%-4s %12s %12s %12s %14s\n' run ibex-Mpps io-Mpps mac-Mpps ibex-cyc/frame
: >"$tmp/res"
for r in $(seq 1 "$runs"); do
	i=$(run_ibex); c=$(ibex_cycles)
	io=$(run_testpmd io)
	mac=$(run_testpmd mac)
	printf '%-4s %12.2f %12.2f %12.2f %14s\n' "$r" "$i" "$io" "$mac" "$c"
	echo "$i $io $mac $c" >>"$tmp/res"
done
mi=$(awk '{print $1}' "$tmp/res" | median)
mio=$(awk '{print $2}' "$tmp/res" | median)
mmac=$(awk '{print $3}' "$tmp/res" | median)
mc=$(awk '{print $4}' "$tmp/res" | median)
echo
printf 'median  ibex %.2f Mpps, testpmd io %.2f Mpps, testpmd mac %.2f Mpps\n' "$mi" "$mio" "$mmac"
printf 'ratio   ibex/testpmd-io %.2f, ibex/testpmd-mac %.2f\n' \
	"$(echo "$mi / $mio" | bc -l)" "$(echo "$mi / $mmac" | bc -l)"
printf 'ibex busy cycles per frame (median): %s (TSC %s MHz)\n' "$mc" \
	"$(awk '/cpu MHz/ {printf "%.0f", $4; exit}' /proc/cpuinfo)"
