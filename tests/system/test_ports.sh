#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Ports from the devices EAL was given:
#   1. without --config every ethdev becomes a port with a valid name, a
#      vdev whose name holds ':' too (p<N>), printed with its device;
#   2. no ethdev and no config: refused with a clear error, not a worker
#      polling nothing;
#   3. `pfc PORT hw on` on devices without hardware PFC (net_null,
#      net_ring, af_packet, memif): the switch does not start and names the
#      port and the PMD;
#   4. a --vdev its driver refuses (a missing pcap file): the switch does
#      not start without it (exit 1, the device named).
#
#   test_ports.sh IBEX_SWITCH IBEX_PCAPGEN
set -euo pipefail
TEST_NAME=ports
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

sw=${1:?usage: test_ports.sh IBEX_SWITCH IBEX_PCAPGEN}
[ -x "$sw" ] || skip "no ibex-switch at $sw"

tmp=$(mktemp -d /tmp/ibex-ports.XXXXXX)
on_exit rm -rf "$tmp"

# $1 log, then EAL arguments, --, switch arguments
run_sw() {
	local log=$1 prefix
	shift
	dpdk_prefix prefix ports
	timeout 60 "$sw" --no-huge -m 256 --no-pci --lcores "${LCORES:-0@0,1@1}" \
		--log-level='lib.*:notice' --file-prefix="$prefix" "$@" \
		>"$log" 2>&1
}

# ---- 1. no config, a vdev named with ':' ----
run_sw "$tmp/noconf.log" --vdev 'net_null:a' --vdev net_null1 -- \
	--duration 1 || { show_log "$tmp/noconf.log"; fail "no-config start"; }
grep -q "port p0 = ethdev 0 (net_null:a)" "$tmp/noconf.log" ||
	{ show_log "$tmp/noconf.log"; fail "net_null:a did not become p0"; }
grep -q "port net_null1 = ethdev 1 (net_null1)" "$tmp/noconf.log" ||
	{ show_log "$tmp/noconf.log"; fail "net_null1 not kept as its name"; }
grep -Eq "^p0 +[1-9]" "$tmp/noconf.log" ||
	{ show_log "$tmp/noconf.log"; fail "p0 forwarded nothing"; }
check_ok "no --config: 'net_null:a' runs as p0, net_null1 as itself"

# ---- 2. zero ports ----
if run_sw "$tmp/none.log" -- --duration 1; then
	show_log "$tmp/none.log"; fail "started with no port"
fi
grep -q "no ports: the configuration declares none and EAL found no ethdev" \
	"$tmp/none.log" || { show_log "$tmp/none.log"; fail "no clear error"; }
check_ok "no ethdev and no config: refused"

# ---- 3. hardware PFC refused ----
# $1 PMD, $2 --vdev argument
hw_refused() {
	local pmd=$1 vdev=$2 dev=${2%%,*}
	printf 'port x dev %s vls 2 fc pfc\nlane x vl 1 lossless\npfc x hw on\n' \
		"$dev" >"$tmp/$pmd.conf"
	if run_sw "$tmp/$pmd.log" --vdev "$vdev" -- --config "$tmp/$pmd.conf" \
		--duration 1; then
		show_log "$tmp/$pmd.log"; fail "$pmd: started with hw PFC"
	fi
	grep -q "port x (ethdev $dev, PMD $pmd): hardware PFC (\`pfc x hw on\`) refused" \
		"$tmp/$pmd.log" || { show_log "$tmp/$pmd.log"; fail "$pmd: no clear error"; }
	# Software PFC (the default) on the same device starts.
	sed -i '/hw on/d' "$tmp/$pmd.conf"
	run_sw "$tmp/$pmd.sw.log" --vdev "$vdev" -- --config "$tmp/$pmd.conf" \
		--duration 1 || { show_log "$tmp/$pmd.sw.log"; fail "$pmd: software PFC"; }
	check_ok "$pmd: hardware PFC refused, naming port and PMD; software PFC runs"
}
hw_refused net_null net_null0
hw_refused net_ring net_ring0
hw_refused net_memif "net_memif0,role=server,socket=$tmp/memif.sock"
if ip link show lo >/dev/null 2>&1; then
	hw_refused net_af_packet net_af_packet0,iface=lo
fi

# ---- 4. rx-queues: RSS where the PMD has it, a message where not ----
printf 'switch workers 2\nport a dev net_null0 rx-queues 2\n' >"$tmp/rss.conf"
LCORES=0@0,1@1,2@0 run_sw "$tmp/rss.log" --vdev net_null0 -- \
	--config "$tmp/rss.conf" --duration 1 ||
	{ show_log "$tmp/rss.log"; fail "rx-queues 2 on net_null"; }
grep -q "port a (net_null): RSS over 2 RX queues on IPv4 IPv6 IPv4/UDP IPv6/UDP" \
	"$tmp/rss.log" || { show_log "$tmp/rss.log"; fail "no RSS line"; }
grep -q "worker 1 on lcore 2 polls 1 queue" "$tmp/rss.log" ||
	{ show_log "$tmp/rss.log"; fail "queue 1 not on worker 1"; }
check_ok "rx-queues 2 on net_null: RSS over IP/UDP, said at start; a queue per worker"
if ip link show lo >/dev/null 2>&1; then
	printf 'switch workers 2\nport a dev net_af_packet0 rx-queues 2\n' \
		>"$tmp/norss.conf"
	LCORES=0@0,1@1,2@0 run_sw "$tmp/norss.log" \
		--vdev net_af_packet0,iface=lo,qpairs=2 -- \
		--config "$tmp/norss.conf" --duration 1 ||
		{ show_log "$tmp/norss.log"; fail "rx-queues 2 on af_packet"; }
	grep -q "port a (net_af_packet): 2 RX queues, but the PMD offers no RSS" \
		"$tmp/norss.log" || { show_log "$tmp/norss.log"; fail "no no-RSS message"; }
	check_ok "rx-queues 2 on af_packet: no RSS, said at start"
fi
printf 'port a dev net_ring0 rx-queues 64\n' >"$tmp/rxq.conf"
if run_sw "$tmp/rxq.log" --vdev net_ring0 -- --config "$tmp/rxq.conf" \
	--duration 1; then
	show_log "$tmp/rxq.log"; fail "rx-queues beyond the device started"
fi
grep -Eq "port a: rx-queues 64, but its device \(net_ring\) offers [0-9]+" "$tmp/rxq.log" ||
	{ show_log "$tmp/rxq.log"; fail "rx-queues: no clear error"; }
check_ok "rx-queues beyond what the device offers: refused"

# ---- a vdev its driver refuses: no start without it ----
# (--duration only caps the run should the switch start without it)
st=0
run_sw "$tmp/badvdev.log" --vdev net_null0 \
	--vdev "net_pcap1,rx_pcap=$tmp/none.pcap,tx_pcap=$tmp/out.pcap" -- \
	--duration 5 || st=$?
[ "$st" -eq 1 ] || { show_log "$tmp/badvdev.log"; fail "a vdev that failed to probe: exit $st, want 1"; }
grep -q "ibex-switch: --vdev net_pcap1 did not become a port" "$tmp/badvdev.log" ||
	{ show_log "$tmp/badvdev.log"; fail "the refused vdev is not named"; }
! grep -q "summary after" "$tmp/badvdev.log" ||
	{ show_log "$tmp/badvdev.log"; fail "the switch ran without the vdev"; }
check_ok "a --vdev its driver refused: the switch does not start, exit 1, the device named"
