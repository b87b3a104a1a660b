#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# A run's frame accounting closes, for every flow-control mode (none, pfc,
# credit): flow-control frames the switch takes (PFC on a PFC port, credit
# on a credit port) are counted as "consumed" per port in --json, so every
# frame received is forwarded, dropped or consumed. With three ports a
# flooded frame makes two copies, so over the ports
#
#   sum(rx) = sum(consumed) + sum(dropped) + sum(tx) - sum(flooded)
#
# (each copy is sent or dropped at its egress port; a unicast frame makes
# one). Per port, the incast's receiver gen0 sends nothing but flow control
# and one learning frame: its rx is consumed + flooded + its ingress drops
# exactly.
# Traffic: the built-in generator, ranks 1 and 2 sending to rank 0 through
# a 1G-shaped gen0, so the lossless lanes are pushed back.
#
#   test_ctl_accounting.sh IBEX_SWITCH IBEX_PCAPGEN IBEX_CTL
set -euo pipefail
TEST_NAME=ctl_accounting
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

sw=$1
require_cmds jq
[ "$(id -u)" -eq 0 ] || skip "needs root (EAL)"
[ "$(nproc)" -ge 2 ] || skip "needs two CPUs"
tmp=$(mktemp -d /tmp/ibex-acct.XXXXXX)
on_exit rm -rf "$tmp"
dpdk_prefix prefix acct

for fc in none pfc credit; do
	{
		echo "switch workers 1"
		echo "buffer total 8MB"
		if [ "$fc" = none ]; then
			printf 'port gen0 shape 1G\nport gen1\nport gen2\n'
		else
			echo "port gen0 vls 2 fc $fc shape 1G"
			echo "port gen1 vls 2 fc $fc"
			echo "port gen2 vls 2 fc $fc"
			for p in 0 1 2; do echo "lane gen$p vl 1 lossless"; done
		fi
	} >"$tmp/$fc.conf"
	rc=0
	timeout 300 "$sw" --lcores 0@0,1@1,2@0 --no-huge -m 1024 --no-pci \
		--log-level='lib.*:notice' --file-prefix="$prefix" -- \
		--config "$tmp/$fc.conf" --json "$tmp/$fc.json" \
		--gen "--engine rate --ranks 3 --flow 1:0,2:0 --fc $fc --vl 1 \
		--pcp 1 --vlan 1 --size 128 --duration 2" \
		>"$tmp/$fc.log" 2>&1 || rc=$?
	# ibex-gen's verdict (frames lost in the lossy mode) is not this
	# test's concern: the switch's JSON is.
	[ -s "$tmp/$fc.json" ] || { show_log "$tmp/$fc.log"; fail "$fc: no JSON (rc $rc)"; }
	j=$tmp/$fc.json
	jq -e '[.ports[] | .consumed | numbers] | length == 3' "$j" >/dev/null ||
		{ cat "$j"; fail "$fc: no per-port consumed counter in --json"; }
	read -r rx tx fl dr co < <(jq -r '[([.ports[].rx_frames] | add),
		([.ports[].tx_frames] | add), ([.ports[].flooded] | add),
		([.ports[].drops[]] | add), ([.ports[].consumed] | add)] | @tsv' "$j")
	[ "$rx" -gt 10000 ] || { cat "$j"; fail "$fc: only $rx frames received"; }
	[ "$rx" -eq $((co + dr + tx - fl)) ] ||
		{ cat "$j"; fail "$fc: rx $rx != consumed $co + dropped $dr + tx $tx - flooded $fl"; }
	# gen0's own (ingress) drops: the egress reasons count frames of
	# the other ports sent towards gen0.
	read -r rx0 co0 fl0 dr0 < <(jq -r '.ports[0] | [.rx_frames, .consumed,
		.flooded, ([.drops | del(."tx-full", ."lossy-full", ."watchdog",
		."port-down")[]] | add)] | @tsv' "$j")
	[ "$rx0" -eq $((co0 + fl0 + dr0)) ] ||
		{ cat "$j"; fail "$fc: gen0 rx $rx0 != consumed $co0 + flooded $fl0 + dropped $dr0"; }
	case $fc in
	none) [ "$co" -eq 0 ] || fail "none: $co frames consumed" ;;
	credit) [ "$co0" -gt 0 ] || { cat "$j"; fail "credit: gen0's credit frames not counted"; } ;;
	esac
	grep -q "consumed" "$tmp/$fc.log" || fail "$fc: the exit summary has no consumed column"
	check_ok "$fc: rx $rx = consumed $co + dropped $dr + tx $tx - flooded $fl; gen0 rx $rx0 = consumed $co0 + flooded $fl0 + dropped $dr0"
done
