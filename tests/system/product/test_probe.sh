#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The probe-trailer dissector (tests/system/ibexprobe.lua) against frames
# ibex-gen really sent: full probes (128-byte RoCEv2) and short probes
# (60-byte UDP 4790) written by net_pcap; every frame tshark reads carries
# a probe with rank 0 -> 1 and sequence numbers 0, 1, 2, ...
#
#   test_probe.sh IBEX_SWITCH IBEX_PCAPGEN IBEX_CTL IBEX_GEN
set -euo pipefail
TEST_NAME=probe
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

gen=$4
lua=$(cd "$(dirname "$0")/.." && pwd)/ibexprobe.lua
require_cmds tshark
tmp=$(mktemp -d /tmp/ibex-probe.XXXXXX)
on_exit rm -rf "$tmp"
dpdk_prefix prefix gen

for size in 128 60; do
	# No port answers: every frame is lost and ibex-gen exits 3.
	"$gen" -l 0 --no-huge -m 512 --no-pci --file-prefix="$prefix" \
		--log-level='lib.*:error' \
		--vdev "net_pcap0,tx_pcap=$tmp/p0.pcap" \
		--vdev "net_pcap1,tx_pcap=$tmp/p1.pcap" \
		-- --engine rate --ranks 2 --rate 2000 --duration 0.1 \
		--size $size --quiet >"$tmp/gen.log" 2>&1 || true
	# All but the learning broadcast (EtherType 0x88B6) are probes.
	n=$(tshark -r "$tmp/p0.pcap" -Y "not eth.type == 0x88b6" 2>/dev/null | wc -l)
	[ "$n" -ge 50 ] || { cat "$tmp/gen.log"; fail "$size B: $n frames in the pcap"; }
	tshark -X "lua_script:$lua" -r "$tmp/p0.pcap" -Y ibexprobe -T fields \
		-e ibexprobe.kind -e ibexprobe.src -e ibexprobe.dst \
		-e ibexprobe.seq >"$tmp/f" 2>/dev/null
	want=full
	[ "$size" -lt 82 ] && want=short
	awk -v n="$n" -v k="$want" '
		$1 != k || $2 != 0 || $3 != 1 || $4 != NR - 1 { bad++ }
		END { exit !(NR == n && bad == 0) }' "$tmp/f" ||
		{ head "$tmp/f"; fail "$size B: $(wc -l <"$tmp/f") of $n frames decoded right"; }
	check_ok "$size B: $n $want probes, rank 0 -> 1, seq 0..$((n - 1))"
done
