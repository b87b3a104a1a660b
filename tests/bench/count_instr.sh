#!/usr/bin/env bash
# Instructions per forwarded frame, counted by callgrind (deterministic,
# unlike rates on a shared machine): ibex-switch on the forwarding
# benchmark's pcaps with static FDB entries (no learning under valgrind's
# slowness), collection limited to the worker loop (PMD calls included).
# Give several build dirs to compare them (docs/performance.md). EXTRA_CONF
# names a file of config lines for ports p0 and p1 added to every run (for
# example lanes, flow control and ECN: the full pipeline). WORKERS (1)
# switch workers: each port then has one RX queue per worker, so every
# worker forwards into both ports (callgrind runs the threads one at a
# time; the count is still per frame). KEEP_CG=FILE keeps the last
# build's callgrind profile (callgrind_annotate FILE: where they go).
# SCRAPE=SECONDS starts the switch with --metrics 127.0.0.1:PORT
# (METRICS_PORT, else one from the PID) and GETs /metrics every SECONDS
# while it forwards; the count stays the worker loop's (the metrics thread
# is never inside it), so it shows whether a scrape changes what a worker
# executes per frame. (valgrind then runs with --fair-sched=yes: its
# default lock lets the polling worker starve the metrics thread, and
# the run is DURATION seconds, 20 by default against 6 without SCRAPE:
# under valgrind one scrape takes a second or more.)
#
#   [EXTRA_CONF=FILE] [WORKERS=N] [SCRAPE=SECONDS] [DURATION=S]
#     tests/bench/count_instr.sh BUILD [BUILD...]
set -euo pipefail
cd "$(dirname "$0")/../.."
[ $# -ge 1 ] || { sed -n "2,23p" "$0"; exit 2; }
command -v valgrind >/dev/null || { echo "needs valgrind" >&2; exit 2; }
margs=() vgargs=() mport=${METRICS_PORT:-$((20000 + $$ % 30000))}
if [ -n "${SCRAPE:-}" ]; then
	if ! [[ $SCRAPE =~ ^[1-9][0-9]*$ ]] || [ $((3600 % SCRAPE)) != 0 ]; then
		echo "SCRAPE: whole seconds that divide 3600" >&2
		exit 2
	fi
	command -v curl >/dev/null || { echo "SCRAPE needs curl" >&2; exit 2; }
	margs=(--metrics "127.0.0.1:$mport")
	vgargs=(--fair-sched=yes)
fi
duration=${DURATION:-$([ -n "${SCRAPE:-}" ] && echo 20 || echo 6)}
tmp=$(mktemp -d /tmp/ibex-instr.XXXXXX)
trap '[ -n "${KEEP_CG:-}" ] && cp "$tmp/cg.out" "$KEEP_CG"; rm -rf "$tmp"' EXIT
"$1/app/ibex-pcapgen/ibex-pcapgen" -o "$tmp/p0.pcap" -n 256 -s 64 -p 8 >/dev/null
"$1/app/ibex-pcapgen/ibex-pcapgen" -o "$tmp/p1.pcap" -n 256 -s 64 -p 8 --reverse >/dev/null
{
	echo "port p0 dev net_pcap0"
	echo "port p1 dev net_pcap1"
	echo "switch workers ${WORKERS:-1}"
	echo "fdb learning off"
	for i in 0 1 2 3 4 5 6 7; do
		printf 'fdb static 02:00:00:00:0a:%02x port p0 vlan 1\n' "$i"
		printf 'fdb static 02:00:00:00:0b:%02x port p1 vlan 1\n' "$i"
	done
	[ -z "${EXTRA_CONF:-}" ] || cat "$EXTRA_CONF"
} >"$tmp/st.conf"
# An RX queue per worker (each rx_pcap is one; the PMD gives as many
# dropping TX queues), spread over the workers by ibex.
# Lcores may share the CPUs (callgrind runs one thread at a time).
rxq0= rxq1= lcores=0@0
for ((i = 0; i < ${WORKERS:-1}; i++)); do
	rxq0+=",rx_pcap=$tmp/p0.pcap" rxq1+=",rx_pcap=$tmp/p1.pcap"
	lcores+=",$((i + 1))@$(((i + 1) % 2))"
done
# scrape VALGRIND-PID: once /metrics answers, one GET every $SCRAPE s on
# a kept-alive connection until the switch ends; "CODE TIME" per scrape.
scrape() {
	local url="http://127.0.0.1:$mport/metrics"
	until curl -s -f -m 10 -o /dev/null -w '%{http_code} %{time_total}\n' \
		"$url" >>"$tmp/scrapes"; do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.2
	done
	exec curl -s --rate "$((3600 / SCRAPE))/h" -w '%{stderr}%{http_code} %{time_total}\n' \
		"$url?n=[1-100000]" >/dev/null 2>>"$tmp/scrapes"
}
for b in "$@"; do
	valgrind "${vgargs[@]}" --tool=callgrind --callgrind-out-file="$tmp/cg.out" \
		--toggle-collect=ibex_dp_worker_main \
		"$b/app/ibex-switch/ibex-switch" --lcores "$lcores" --no-huge -m 512 \
		--no-pci --log-level='lib.*:notice' \
		--vdev "net_pcap0$rxq0,infinite_rx=1" \
		--vdev "net_pcap1$rxq1,infinite_rx=1" \
		--file-prefix="ibexcg$$" -- --duration "$duration" --config "$tmp/st.conf" \
		"${margs[@]}" >"$tmp/log" 2>&1 &
	vg=$!
	spid=""
	if [ -n "${SCRAPE:-}" ]; then
		: >"$tmp/scrapes"
		scrape "$vg" &
		spid=$!
	fi
	rc=0
	wait "$vg" || rc=$?
	[ -z "$spid" ] || { kill -TERM "$spid" 2>/dev/null || true; wait "$spid" 2>/dev/null || true; }
	[ $rc = 0 ] || { echo "$b: ibex-switch failed ($rc):" >&2; tail -n 5 "$tmp/log" >&2; exit 1; }
	frames=$(awk '/^p[01] / {s += $2} END {print s}' "$tmp/log")
	total=$(callgrind_annotate "$tmp/cg.out" 2>/dev/null |
		awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}')
	scraped=""
	[ -z "$spid" ] || scraped=$(printf '  (%s scrapes answered)' "$(grep -c '^200 ' "$tmp/scrapes" || true)")
	printf '%-30s %12s frames %8.1f instructions/frame%s\n' "$b" "$frames" \
		"$(echo "$total / $frames" | bc -l)" "$scraped"
done
