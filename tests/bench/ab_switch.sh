#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Two builds of ibex-switch on the forwarding benchmark's ports (two
# net_pcap ports replaying 64-byte RoCEv2 frames, as bench_fwd.sh), runs
# interleaved A, B, A, B... so that the shared machine's drift falls on
# both alike. Per run the median of ibex's one-second rates and its busy
# cycles per frame; then the medians per build.
#
#   tests/bench/ab_switch.sh [-r RUNS] [-d SECONDS] [-c IBEX_CONF] BUILD_A BUILD_B
#
# -c runs both with a config whose ports are dev net_pcap0 and net_pcap1
# (e.g. tests/bench/full_pipeline.conf).
set -euo pipefail
cd "$(dirname "$0")/../.."

runs=5 dur=5 conf=""
while getopts "r:d:c:h" o; do
	case $o in
	r) runs=$OPTARG ;; d) dur=$OPTARG ;; c) conf=$OPTARG ;;
	*) sed -n '3,13p' "$0"; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 2 ] || { sed -n '3,13p' "$0"; exit 2; }
for b in "$1" "$2"; do
	[ -x "$b/app/ibex-switch/ibex-switch" ] ||
		{ echo "no ibex-switch in $b: ninja -C $b" >&2; exit 2; }
done
gen=$1/app/ibex-pcapgen/ibex-pcapgen

tmp=$(mktemp -d /tmp/ibex-ab.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
"$gen" -o "$tmp/p0.pcap" -n 256 -s 64 -p 8 >/dev/null
"$gen" -o "$tmp/p1.pcap" -n 256 -s 64 -p 8 --reverse >/dev/null
confargs=()
[ -n "$conf" ] && confargs=(--config "$conf")

median() { sort -g | awk '{a[NR]=$1} END {if (NR==0) print "nan"; else if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

# One run of build $1: "<Mpps> <busy cycles per frame>".
one() {
	"$1/app/ibex-switch/ibex-switch" -l 0-1 --no-huge -m 1024 --no-pci \
		--log-level='lib.*:notice' --file-prefix="ibexab$$_$RANDOM" \
		--vdev "net_pcap0,rx_pcap=$tmp/p0.pcap,infinite_rx=1" \
		--vdev "net_pcap1,rx_pcap=$tmp/p1.pcap,infinite_rx=1" \
		-- --duration "$dur" --stats-period 1 "${confargs[@]}" \
		>"$tmp/log" 2>&1
	echo "$(grep -o '[0-9.]* Mpps' "$tmp/log" | awk 'NR>1 {print $1}' | median)" \
		"$(awk '/busy cycles per frame/ {print $NF}' "$tmp/log")"
}

printf '%-4s %10s %8s %10s %8s\n' run A-Mpps A-cyc B-Mpps B-cyc
: >"$tmp/res"
for r in $(seq 1 "$runs"); do
	a=$(one "$1")
	b=$(one "$2")
	# shellcheck disable=SC2086 # two fields each
	printf '%-4s %10s %8s %10s %8s\n' "$r" $a $b
	echo "$a $b" >>"$tmp/res"
done
col() { awk -v c="$1" '{print $c}' "$tmp/res" | median; }
printf '%-4s %10s %8s %10s %8s\n' median "$(col 1)" "$(col 2)" "$(col 3)" "$(col 4)"
