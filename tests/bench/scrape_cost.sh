#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# What one GET /metrics costs ibex-switch: per port count in PORTS
# (default "2 8"), a switch of that many net_null ports (forwarding what
# they receive, flat out, on the worker: CPU 1; main lcore and the metrics
# thread on CPU 0) with --metrics 127.0.0.1:PORT (METRICS_PORT, else one
# from the PID), scraped K times (default 100) by one curl at RATE scrapes
# a second (default 5) on one kept-alive connection. Prints per port count:
# the page's lines and bytes, curl's time_total (p50, p90, max: the wait
# for an answer, CPU queueing included) and the CPU time the metrics
# thread (libmicrohttpd's MHD-single) spent per scrape, from
# /proc/PID/task/TID/schedstat (nanoseconds on CPU) around the scrapes.
#
#   tests/bench/scrape_cost.sh [-b BUILD] [-p "PORTS..."] [-k K] [-r RATE]
set -euo pipefail
cd "$(dirname "$0")/../.."

build=build counts="2 8" k=100 rate=5
while getopts "b:p:k:r:h" o; do
	case $o in
	b) build=$OPTARG ;; p) counts=$OPTARG ;; k) k=$OPTARG ;; r) rate=$OPTARG ;;
	*) sed -n '2,15p' "$0"; exit 2 ;;
	esac
done
sw=$build/app/ibex-switch/ibex-switch
[ -x "$sw" ] || { echo "build first: ninja -C $build" >&2; exit 2; }
command -v curl >/dev/null || { echo "needs curl" >&2; exit 2; }
[ -r /proc/self/schedstat ] || { echo "needs /proc/*/schedstat (CONFIG_SCHEDSTATS)" >&2; exit 2; }
mport=${METRICS_PORT:-$((20000 + $$ % 30000))}
url=http://127.0.0.1:$mport/metrics

tmp=$(mktemp -d /tmp/ibex-scrape.XXXXXX)
sw_pid=""
cleanup() {
	if [ -n "$sw_pid" ]; then
		kill -TERM "$sw_pid" 2>/dev/null || true
		wait "$sw_pid" 2>/dev/null || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

pct() { sort -g | awk -v q="$1" '{v[NR] = $1} END {i = int(NR * q + 0.999); if (i < 1) i = 1; print v[i]}'; }

printf '%-6s %7s %8s %7s %10s %10s %10s %12s\n' ports scrapes lines bytes \
	p50-ms p90-ms max-ms cpu-ms/scrape
for n in $counts; do
	vdevs=()
	for ((i = 0; i < n; i++)); do vdevs+=(--vdev "net_null$i"); done
	"$sw" --lcores 0@0,1@1 --no-huge -m 1024 --no-pci --log-level='lib.*:error' \
		--file-prefix="scrc$$" "${vdevs[@]}" -- --ctl-socket none \
		--metrics "127.0.0.1:$mport" >"$tmp/sw.log" 2>&1 &
	sw_pid=$!
	t=0
	until curl -s -f -m 10 -o "$tmp/page" "$url"; do
		kill -0 "$sw_pid" 2>/dev/null || { cat "$tmp/sw.log" >&2; exit 1; }
		[ $t -lt 300 ] || { echo "no /metrics in 30 s" >&2; exit 1; }
		sleep 0.1; t=$((t + 1))
	done
	tid=""
	for d in /proc/"$sw_pid"/task/*; do
		[ "$(cat "$d/comm")" = MHD-single ] && tid=${d##*/}
	done
	[ -n "$tid" ] || { echo "no MHD-single thread in $sw_pid" >&2; exit 1; }
	ns0=$(cut -d' ' -f1 "/proc/$sw_pid/task/$tid/schedstat")
	curl -s --rate "$rate/s" -w '%{stderr}%{http_code} %{time_total}\n' \
		"$url?n=[1-$k]" >/dev/null 2>"$tmp/times"
	ns1=$(cut -d' ' -f1 "/proc/$sw_pid/task/$tid/schedstat")
	kill -TERM "$sw_pid" 2>/dev/null || true
	wait "$sw_pid" 2>/dev/null || true
	sw_pid=""
	ok=$(grep -c '^200 ' "$tmp/times" || true)
	[ "$ok" = "$k" ] || echo "# $n ports: $ok of $k scrapes answered 200" >&2
	[ "$ok" -gt 0 ] || exit 1
	awk '$1 == 200 {print $2 * 1000}' "$tmp/times" >"$tmp/ms"
	printf '%-6s %7s %8s %7s %10.2f %10.2f %10.2f %12.2f\n' "$n" "$ok" \
		"$(wc -l <"$tmp/page")" "$(wc -c <"$tmp/page")" \
		"$(pct 0.5 <"$tmp/ms")" "$(pct 0.9 <"$tmp/ms")" "$(pct 1 <"$tmp/ms")" \
		"$(echo "($ns1 - $ns0) / $ok / 1000000" | bc -l)"
done
