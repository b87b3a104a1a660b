#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Hop latency: ibex-switch, dpdk-testpmd --forward-mode=io and, when
# installed (openvswitch-switch-dpdk), OVS-DPDK, each forwarding between
# the same two net_memif links, timed by the same probe (hop_probe.c,
# built by meson). Layout: the probe on CPU 0 owns two memif servers;
# the forwarder attaches as two memif clients, forwarding lcore on CPU 1,
# main lcore on CPU 0 (--lcores 0@0,1@1 --no-huge), so whatever the
# forwarder's main lcore does preempts the probe, as it would a peer.
#
#   tests/bench/hop_latency.sh [-b BUILD] [-r RUNS] [-n PROBES] [-L LOADS]
#                              [-f FORWARDERS] [-a OTHER_BUILD] [-s SECONDS]
#
# Each run measures, per forwarder in turn (interleaved): one frame in
# flight, then open-loop load at each fraction in LOADS (default
# "0.1 0.5 0.9") of that forwarder's capacity (measured once at the start
# by the same probe sending flat out), timing every 16th frame. Prints
# p50/p90/p99/p99.9/max in microseconds per run, then the median over
# runs per forwarder and load, and the ratios ibex/testpmd.
# FORWARDERS: default "ibex testpmd ovs" (ovs skipped when absent);
# "ibexb" is the ibex-switch of OTHER_BUILD (-a), for an A/B of two builds,
# e.g. -f "ibex ibexb" -a /tmp/old/build -L "" (one frame in flight only).
# "ibexm" is ibex-switch with --metrics 127.0.0.1:PORT (METRICS_PORT, else
# one from the PID) and a curl on CPU 0 that scrapes /metrics every -s
# SECONDS (default 1) over one kept-alive connection, as Prometheus does,
# while the probe runs. -s alone means -f "ibex ibexm": runs without and
# with scraping, interleaved, and the ratios scraped/unscraped (ibexm/ibex);
# the scrapes' count and curl time_total are printed at the end.
set -euo pipefail
cd "$(dirname "$0")/../.."

build=build runs=5 probes=100000 loads="0.1 0.5 0.9" fwds="ibex testpmd ovs"
other="" scrape_s="" fwds_given=0
while getopts "b:r:n:L:f:a:s:h" o; do
	case $o in
	b) build=$OPTARG ;; r) runs=$OPTARG ;; n) probes=$OPTARG ;;
	L) loads=$OPTARG ;; f) fwds=$OPTARG fwds_given=1 ;; a) other=$OPTARG ;;
	s) scrape_s=$OPTARG ;;
	*) sed -n '2,29p' "$0"; exit 2 ;;
	esac
done
if [ -n "$scrape_s" ]; then
	# curl --rate takes whole units: scrapes an hour.
	if ! [[ $scrape_s =~ ^[1-9][0-9]*$ ]] || [ $((3600 % scrape_s)) != 0 ]; then
		echo "-s: whole seconds that divide 3600 (1, 2, 5, 10, ...)" >&2
		exit 2
	fi
	[ $fwds_given = 1 ] || fwds="ibex ibexm"
fi
scrape_s=${scrape_s:-1}
mport=${METRICS_PORT:-$((20000 + $$ % 30000))}

sw=$build/app/ibex-switch/ibex-switch
probe=$build/tests/bench/hop_probe
[ -x "$sw" ] && [ -x "$probe" ] || { echo "build first: ninja -C $build" >&2; exit 2; }
# OVS-DPDK: Debian's openvswitch-switch-dpdk installs its vswitchd beside
# the plain one and leaves the ovs-vswitchd alternative on the plain one,
# so look for a DPDK build by name first (OVS_VSWITCHD overrides).
have_ovs=0 ovs_vswitchd=""
for c in ${OVS_VSWITCHD:-} /usr/lib/openvswitch-switch-dpdk/ovs-vswitchd-dpdk \
	 "$(command -v ovs-vswitchd || true)"; do
	[ -n "$c" ] && [ -x "$c" ] && "$c" --version 2>/dev/null | grep -q DPDK &&
		{ ovs_vswitchd=$c; break; }
done
if [ -n "$ovs_vswitchd" ] && command -v ovsdb-server >/dev/null; then
	have_ovs=1
fi
list=()
for f in $fwds; do
	case $f in
	ibex) list+=(ibex) ;;
	ibexb) [ -x "$other/app/ibex-switch/ibex-switch" ] && list+=(ibexb) ||
		{ echo "ibexb: give the other build with -a" >&2; exit 2; } ;;
	ibexm) command -v curl >/dev/null ||
			{ echo "ibexm: needs curl" >&2; exit 2; }
		# bash's /dev/tcp: something answers there already.
		! (exec 3<>"/dev/tcp/127.0.0.1/$mport") 2>/dev/null ||
			{ echo "ibexm: port $mport is taken (METRICS_PORT)" >&2; exit 2; }
		list+=(ibexm) ;;
	testpmd) command -v dpdk-testpmd >/dev/null && list+=(testpmd) ||
		echo "# dpdk-testpmd not found: skipped" ;;
	ovs) [ $have_ovs = 1 ] && list+=(ovs) ||
		echo "# OVS-DPDK not installed (apt-get install openvswitch-switch-dpdk): skipped" ;;
	esac
done

tmp=$(mktemp -d /tmp/ibex-hop.XXXXXX)
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	[ -z "${ovs_dir:-}" ] || ovs_stop
	rm -rf "$tmp"
}
trap cleanup EXIT

m0="$tmp/m0.sock" m1="$tmp/m1.sock"
eal_fwd=(--lcores 0@0,1@1 --no-huge -m 1024 --no-pci --log-level='lib.*:error')
memif_client() {
	echo "--vdev net_memif$1,role=client,socket=$2,socket-abstract=no"
}

# ---- OVS-DPDK: a private ovsdb and vswitchd under $tmp ----
# OVS adds --in-memory to EAL's arguments unless --legacy-mem is given,
# and EAL refuses --in-memory with --no-huge: hence --legacy-mem.
ovs_dir=""
ovs_start() {
	ovs_dir=$tmp/ovs
	mkdir -p "$ovs_dir"
	export OVS_RUNDIR=$ovs_dir OVS_LOGDIR=$ovs_dir OVS_DBDIR=$ovs_dir
	ovsdb-tool create "$ovs_dir/conf.db" /usr/share/openvswitch/vswitch.ovsschema
	ovsdb-server "$ovs_dir/conf.db" --remote="punix:$ovs_dir/db.sock" \
		--pidfile="$ovs_dir/ovsdb.pid" --detach --log-file="$ovs_dir/ovsdb.log"
	ovs-vsctl --db="unix:$ovs_dir/db.sock" --no-wait init
	ovs-vsctl --db="unix:$ovs_dir/db.sock" --no-wait set Open_vSwitch . \
		other_config:dpdk-init=true other_config:dpdk-lcore-mask=0x1 \
		other_config:pmd-cpu-mask=0x2 \
		other_config:dpdk-extra="--no-huge --legacy-mem -m 1024 --no-pci --file-prefix=ovs$$"
}
ovs_stop() {
	local p
	for p in "$ovs_dir"/ovs-vswitchd.pid "$ovs_dir"/ovsdb.pid; do
		[ -f "$p" ] && kill -TERM "$(cat "$p")" 2>/dev/null || true
	done
	sleep 1
}

# scraper: once ibexm's endpoint answers, GET /metrics every $scrape_s
# seconds on one kept-alive connection (curl --rate, the query string
# only numbers the requests), pinned to CPU 0 beside the switch's main
# lcore and its metrics thread, off the worker's CPU. Appends
# "HTTP-CODE TIME_TOTAL BYTES" per scrape to $tmp/scrape.run.
scraper() {
	local url="http://127.0.0.1:$mport/metrics" t=0
	until taskset -c 0 curl -s -f -m 10 -o /dev/null "$url"; do
		kill -0 "$fwd_pid" 2>/dev/null || return 0
		[ $t -lt 600 ] || { echo "# ibexm: no /metrics in 60 s" >&2; return 0; }
		sleep 0.1; t=$((t + 1))
	done
	exec taskset -c 0 curl -s --rate "$((3600 / scrape_s))/h" \
		-w '%{stderr}%{http_code} %{time_total} %{size_download}\n' \
		"$url?n=[1-1000000]" >/dev/null 2>>"$tmp/scrape.run"
}

# start_fwd NAME: the forwarder attaches to the probe's memif servers.
start_fwd() {
	scr_pid=""
	case $1 in
	ibex | ibexb | ibexm)
		local bin=$sw margs=()
		[ "$1" = ibexb ] && bin=$other/app/ibex-switch/ibex-switch
		[ "$1" = ibexm ] && margs=(--metrics "127.0.0.1:$mport")
		# shellcheck disable=SC2046
		"$bin" "${eal_fwd[@]}" --file-prefix="hopi$$" $(memif_client 0 "$m0") \
			$(memif_client 1 "$m1") -- --ctl-socket none "${margs[@]}" \
			>"$tmp/fwd.log" 2>&1 &
		pids+=($!); fwd_pid=$!
		if [ "$1" = ibexm ]; then
			: >"$tmp/scrape.run"
			scraper &
			pids+=($!); scr_pid=$!
		fi ;;
	testpmd)
		# shellcheck disable=SC2046
		dpdk-testpmd "${eal_fwd[@]}" --file-prefix="hopt$$" \
			$(memif_client 0 "$m0") $(memif_client 1 "$m1") -- \
			--forward-mode=io --stats-period 1 </dev/null \
			>"$tmp/fwd.log" 2>&1 &
		pids+=($!); fwd_pid=$! ;;
	ovs)
		"$ovs_vswitchd" "unix:$ovs_dir/db.sock" --pidfile="$ovs_dir/ovs-vswitchd.pid" \
			--log-file="$ovs_dir/vswitchd.log" >"$tmp/fwd.log" 2>&1 &
		pids+=($!); fwd_pid=$!
		local v="ovs-vsctl --db=unix:$ovs_dir/db.sock --timeout=30"
		$v --may-exist add-br br0 -- set bridge br0 datapath_type=netdev
		$v --may-exist add-port br0 m0 -- set Interface m0 type=dpdk \
			"options:dpdk-devargs=net_memif0,role=client,socket=$m0,socket-abstract=no" \
			ofport_request=1
		$v --may-exist add-port br0 m1 -- set Interface m1 type=dpdk \
			"options:dpdk-devargs=net_memif1,role=client,socket=$m1,socket-abstract=no" \
			ofport_request=2
		ovs-ofctl del-flows br0
		ovs-ofctl add-flow br0 in_port=1,actions=output:2
		ovs-ofctl add-flow br0 in_port=2,actions=output:1 ;;
	esac
}

stop_fwd() {
	if [ -n "$scr_pid" ]; then
		kill -TERM "$scr_pid" 2>/dev/null || true
		wait "$scr_pid" 2>/dev/null || true
		cat "$tmp/scrape.run" >>"$tmp/scrape.all"
	fi
	kill -TERM "$fwd_pid" 2>/dev/null || true
	wait "$fwd_pid" 2>/dev/null || true
	rm -f "$m0" "$m1"
}

# The probe's RX queues per port for forwarder NAME: OVS's memif clients
# open a TX ring per PMD thread plus one for the main thread (2 here); the
# others send on one, and the probe polls only that, as for every run.
probe_rxq() { [ "$1" = ovs ] && echo 2 || echo 1; }

# measure NAME PROBE-ARGS...: one probe run against a fresh forwarder;
# prints the probe's result line.
measure() {
	local name=$1 out
	shift
	rm -f "$m0" "$m1"
	"$probe" --lcores 0@0 --no-huge -m 1024 --no-pci --log-level='lib.*:error' \
		--file-prefix="hopp$$" \
		--vdev "net_memif0,role=server,socket=$m0,socket-abstract=no" \
		--vdev "net_memif1,role=server,socket=$m1,socket-abstract=no" \
		-- -H -l 120 -q "$(probe_rxq "$name")" "$@" >"$tmp/probe.out" 2>"$tmp/probe.err" &
	local ppid=$!
	pids+=($ppid)
	while ! [ -S "$m0" ] || ! [ -S "$m1" ]; do
		kill -0 "$ppid" 2>/dev/null || break
		sleep 0.1
	done
	start_fwd "$name"
	# The probe holds its links up after the result: stop the forwarder
	# first, then the probe.
	while ! grep -q '^probes' "$tmp/probe.out" && kill -0 "$ppid" 2>/dev/null; do
		sleep 0.1
	done
	stop_fwd
	kill -TERM "$ppid" 2>/dev/null || true
	wait "$ppid" || true
	out=$(grep '^probes' "$tmp/probe.out" || true)
	if [ -z "$out" ]; then
		echo "# $name: probe failed:" >&2
		tail -n 5 "$tmp/probe.err" "$tmp/fwd.log" >&2
		return 1
	fi
	[ "$name" != ibexm ] || out+=" scrapes $(grep -c '^200 ' "$tmp/scrape.run" || true)"
	echo "$out"
}

field() { awk -v k="$1" '{for (i = 1; i < NF; i++) if ($i == k) print $(i+1)}'; }
us() { awk '{printf "%.2f\n", $1 / 1000}'; }
median() { sort -g | awk '{v[NR]=$1} END {if (NR) print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }

# The private ovsdb starts here, in this shell: measure() runs in a
# command substitution (a subshell), so a server started there would be
# unknown to cleanup() and left running, one per measurement.
for f in "${list[@]}"; do
	[ "$f" = ovs ] && { ovs_start; break; }
done

declare -A cap
for f in "${list[@]}"; do
	[ -n "$loads" ] || break
	c=$(measure "$f" -n 1000000 -c 2 -w 0 | field rx_pps)
	cap[$f]=${c%.*}
	echo "# capacity $f: ${cap[$f]} frames/s (probe flat out, 64 B)"
done

printf '%-4s %-8s %-6s %9s %9s %9s %9s %9s %8s %7s\n' run fwd load p50-us p90-us \
	p99-us p99.9-us max-us lost scrapes
: >"$tmp/res"
: >"$tmp/scrape.all"
for r in $(seq 1 "$runs"); do
	for f in "${list[@]}"; do
		for l in 0 $loads; do
			if [ "$l" = 0 ]; then
				line=$(measure "$f" -n "$probes") || continue
				lname=1-in-flight
			else
				pps=$(awk -v c="${cap[$f]}" -v l="$l" 'BEGIN {printf "%d", c * l}')
				line=$(measure "$f" -n "$((probes / 4))" -r "$pps" -k 16 -w 100) || continue
				lname=$l
			fi
			set -- $(for k in p50 p90 p99 p99.9 max; do echo "$line" | field "$k" | us; done)
			lost=$(echo "$line" | field lost)
			scr=$(echo "$line" | field scrapes)
			printf '%-4s %-8s %-6s %9s %9s %9s %9s %9s %8s %7s\n' "$r" "$f" "$lname" \
				"$1" "$2" "$3" "$4" "$5" "$lost" "${scr:--}"
			echo "$f $lname $1 $2 $3 $4 $5" >>"$tmp/res"
		done
	done
done

echo
echo "median over $runs run(s), microseconds:"
printf '%-8s %-11s %9s %9s %9s %9s %9s\n' fwd load p50 p90 p99 p99.9 max
declare -A med
for f in "${list[@]}"; do
	for l in 1-in-flight $loads; do
		row=()
		for col in 3 4 5 6 7; do
			m=$(awk -v f="$f" -v l="$l" -v c="$col" '$1 == f && $2 == l {print $c}' \
				"$tmp/res" | median)
			row+=("${m:-nan}")
			med[$f,$l,$col]=${m:-0}
		done
		printf '%-8s %-11s %9s %9s %9s %9s %9s\n' "$f" "$l" "${row[@]}"
	done
done
# The medians of forwarder $1 over those of $2, per load, p50 .. max.
print_ratio() {
	local l col
	for l in 1-in-flight $loads; do
		printf '%-11s' "$l"
		for col in 3 4 5 6 7; do
			awk -v a="${med[$1,$l,$col]}" -v b="${med[$2,$l,$col]}" \
				'BEGIN {printf " %9.2f", (b > 0 ? a / b : 0)}'
		done
		echo
	done
}
if [[ " ${list[*]} " == *" ibex "* && " ${list[*]} " == *" testpmd "* ]]; then
	echo
	echo "ratio ibex/testpmd:"
	print_ratio ibex testpmd
fi
if [[ " ${list[*]} " == *" ibex "* && " ${list[*]} " == *" ibexm "* ]]; then
	echo
	echo "ratio scraped/unscraped (ibexm/ibex), p50 p90 p99 p99.9 max:"
	print_ratio ibexm ibex
fi
if [[ " ${list[*]} " == *" ibexm "* ]]; then
	echo
	ok=$(grep -c '^200 ' "$tmp/scrape.all" || true)
	bad=$(grep -vc '^200 ' "$tmp/scrape.all" || true)
	if [ "$ok" = 0 ]; then
		echo "# ibexm: no scrape answered"
	else
		t50=$(awk '$1 == 200 {print $2 * 1000}' "$tmp/scrape.all" | median)
		tmax=$(awk '$1 == 200 {print $2 * 1000}' "$tmp/scrape.all" | sort -g | tail -n 1)
		bytes=$(awk '$1 == 200 {b += $3; n++} END {printf "%.0f", b / n}' "$tmp/scrape.all")
		printf 'scrapes (every %s s): %s answered 200, %s not; curl time_total median %.2f ms, max %.2f ms; %s bytes each\n' \
			"$scrape_s" "$ok" "$bad" "$t50" "$tmax" "$bytes"
	fi
fi
