#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# System test: DPDK's dpdk-dumpcap captures frames from a running ibex port
# (rte_pdump), and tshark reads the pcapng it wrote.
#
# dpdk-dumpcap is a DPDK secondary process: it maps the switch's memory,
# which it can do only when that memory is in hugetlbfs files. A switch
# started with --no-huge keeps its memory in anonymous mappings, and
# dumpcap (whose EAL options are fixed) then fails with "Cannot get
# hugepage information" (docs/control.md). So this test runs the switch on
# hugepages: as root, when too few are free it reserves 200 more for its
# run and gives them back at the end, and when no hugetlbfs is mounted it
# runs itself again in a private mount namespace with one mounted (nothing
# outside the test sees it). Without root it is skipped.
#
# Traffic: p0 replays a pcap of UDP frames to B forever; B is static on p1
# (net_null, no RX). dumpcap captures 50 frames of p1.
#
#   test_ctl_dumpcap.sh IBEX_SWITCH IBEX_PCAPGEN IBEX_CTL
set -euo pipefail
TEST_NAME=ctl_dumpcap
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

sw=$1 gen=$2 ctl=$3
require_cmds dpdk-dumpcap tshark
[ "$(id -u)" -eq 0 ] || skip "needs root (hugepages, DPDK runtime dir)"
if ! grep -q ' hugetlbfs ' /proc/mounts; then
	[ -z "${IBEX_DUMPCAP_NS:-}" ] || skip "cannot mount hugetlbfs"
	command -v unshare >/dev/null || skip "no hugetlbfs mounted and no unshare"
	mkdir -p /dev/hugepages
	# shellcheck disable=SC2016 # expanded by the inner shell
	exec env IBEX_DUMPCAP_NS=1 unshare -m --propagation private \
		sh -c 'mount -t hugetlbfs nodev /dev/hugepages && exec "$0" "$@"' \
		"$0" "$@"
fi
page_kb=$(awk '/^Hugepagesize:/ { print $2 }' /proc/meminfo)
free_kb() { echo $(($(awk '/^HugePages_Free:/ { print $2 }' /proc/meminfo) * page_kb)); }
if [ "$(free_kb)" -lt $((300 * 1024)) ] && [ -w /proc/sys/vm/nr_hugepages ]; then
	pages_before=$(cat /proc/sys/vm/nr_hugepages)
	echo $((pages_before + 300 * 1024 / page_kb)) >/proc/sys/vm/nr_hugepages || true
	on_exit sh -c "echo $pages_before >/proc/sys/vm/nr_hugepages"
fi
[ "$(free_kb)" -ge $((300 * 1024)) ] ||
	skip "under 300 MB of free hugepages: dpdk-dumpcap cannot attach to a --no-huge switch"

tmp=$(mktemp -d /tmp/ibex-dumpcap.XXXXXX)
on_exit rm -rf "$tmp"
dpdk_prefix prefix dumpcap

"$gen" -o "$tmp/in.pcap" -n 100 -p 1 --kind udp --dst 02:00:00:00:0b:00 >/dev/null
cat >"$tmp/switch.conf" <<EOF
port p0 dev net_pcap0
port p1 dev net_null0
fdb static 02:00:00:00:0b:00 port p1
EOF
# Hugepage memory (not --no-huge): the secondary must map it.
start_bg swpid "$tmp/switch.log" "$sw" -l 0-1 -m 256 --no-pci \
	--file-prefix="$prefix" --log-level='lib.*:notice' \
	--vdev "net_pcap0,rx_pcap=$tmp/in.pcap,infinite_rx=1" \
	--vdev "net_null0,no-rx=1" \
	-- --config "$tmp/switch.conf"
c() { "$ctl" --file-prefix "$prefix" "$@"; }
wait_until_or_dead 60 "$swpid" c show ports ||
	{ show_log "$tmp/switch.log"; fail "switch did not start"; }
grep -q "packet capture unavailable" "$tmp/switch.log" &&
	fail "rte_pdump_init failed: $(grep 'packet capture' "$tmp/switch.log")"

timeout 60 dpdk-dumpcap --file-prefix="$prefix" -D >"$tmp/ifaces" 2>"$tmp/dumpcap.err" ||
	{ cat "$tmp/dumpcap.err"; fail "dpdk-dumpcap -D failed"; }
grep -q net_null0 "$tmp/ifaces" || { cat "$tmp/ifaces"; fail "net_null0 not listed"; }
timeout 60 dpdk-dumpcap --file-prefix="$prefix" -i net_null0 -c 50 \
	-w "$tmp/p1.pcapng" -q 2>"$tmp/dumpcap.err" ||
	{ cat "$tmp/dumpcap.err"; fail "dpdk-dumpcap failed"; }
# -c stops at the first burst that reaches the count: at least 50.
n=$(tshark -r "$tmp/p1.pcapng" 2>/dev/null | wc -l)
[ "$n" -ge 50 ] || fail "tshark read $n frames, want at least 50"
m=$(tshark -r "$tmp/p1.pcapng" -Y 'eth.dst == 02:00:00:00:0b:00 && udp' 2>/dev/null | wc -l)
[ "$m" -eq "$n" ] || fail "$m of $n captured frames are the forwarded UDP frames"
check_ok "dpdk-dumpcap captured $n frames of p1; tshark reads them all as UDP to B"

# Captures that come and go while the port forwards at full speed: each
# dumpcap that leaves frees its ring and pool under the workers' pdump
# callbacks (docs/design.md, "A capture that leaves"). The switch must
# outlive them all. CAPTURES (12) of them, half on p1's TX, half on p0's RX.
for i in $(seq 1 "${CAPTURES:-12}"); do
	is_alive "$swpid" || { show_log "$tmp/switch.log"; fail "switch died after $((i - 1)) more captures"; }
	iface=net_null0; [ $((i % 2)) = 0 ] && iface=net_pcap0
	timeout 60 dpdk-dumpcap --file-prefix="$prefix" -i $iface -c 20 \
		-w "$tmp/churn.pcapng" -q 2>"$tmp/dumpcap.err" ||
		{ cat "$tmp/dumpcap.err"; show_log "$tmp/switch.log"; fail "capture $i failed"; }
done
c show ports >/dev/null || { show_log "$tmp/switch.log"; fail "switch does not answer after the captures"; }
check_ok "${CAPTURES:-12} more captures came and went; the switch forwards on"

stop_pid "$swpid" INT
[ "$WAIT_RC" -eq 0 ] || { show_log "$tmp/switch.log"; fail "switch exit status $WAIT_RC"; }
echo PASS
