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
#                              [-f FORWARDERS] [-a OTHER_BUILD]
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
set -euo pipefail
cd "$(dirname "$0")/../.."

build=build runs=5 probes=100000 loads="0.1 0.5 0.9" fwds="ibex testpmd ovs"
other=""
while getopts "b:r:n:L:f:a:h" o; do
	case $o in
	b) build=$OPTARG ;; r) runs=$OPTARG ;; n) probes=$OPTARG ;;
	L) loads=$OPTARG ;; f) fwds=$OPTARG ;; a) other=$OPTARG ;;
	*) sed -n '2,24p' "$0"; exit 2 ;;
	esac
done

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

# start_fwd NAME: the forwarder attaches to the probe's memif servers.
start_fwd() {
	case $1 in
	ibex | ibexb)
		local bin=$sw
		[ "$1" = ibex ] || bin=$other/app/ibex-switch/ibex-switch
		# shellcheck disable=SC2046
		"$bin" "${eal_fwd[@]}" --file-prefix="hopi$$" $(memif_client 0 "$m0") \
			$(memif_client 1 "$m1") -- --ctl-socket none \
			>"$tmp/fwd.log" 2>&1 &
		pids+=($!); fwd_pid=$! ;;
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

printf '%-4s %-8s %-6s %9s %9s %9s %9s %9s %8s\n' run fwd load p50-us p90-us \
	p99-us p99.9-us max-us lost
: >"$tmp/res"
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
			printf '%-4s %-8s %-6s %9s %9s %9s %9s %9s %8s\n' "$r" "$f" "$lname" \
				"$1" "$2" "$3" "$4" "$5" "$lost"
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
if [[ " ${list[*]} " == *" ibex "* && " ${list[*]} " == *" testpmd "* ]]; then
	echo
	echo "ratio ibex/testpmd:"
	for l in 1-in-flight $loads; do
		printf '%-11s' "$l"
		for col in 3 4 5 6 7; do
			awk -v a="${med[ibex,$l,$col]}" -v b="${med[testpmd,$l,$col]}" \
				'BEGIN {printf " %9.2f", (b > 0 ? a / b : 0)}'
		done
		echo
	done
fi
