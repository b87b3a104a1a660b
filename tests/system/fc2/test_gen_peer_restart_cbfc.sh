#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# A generator's CBFC ranks facing a switch that restarts.
#
#   ibex-gen (memif servers)                  ibex-switch S (memif clients)
#   rank 0 <== net_memif0 ==================== K0 (shaped 200M)
#   rank 1 === net_memif1 ===================> K1      (static FDB: rank 0 -> K0)
#
# Every port runs UEC CBFC on a lossless lane 0. Rank 1 sends to rank 0
# flat out; K0's shaper holds it back through credits, so rank 1's VC
# towards K1 is at its limit most of the time. S is killed (SIGKILL) and
# started again, ROUNDS times: the new S counts from 0, and unless the
# generator's port starts its own counters again when its link goes down
# (ibex_cbfc_link_reset(), `link_resets` in its JSON), every CF_Update
# of the new S is refused and rank 1 never sends again. After each kill
# the generator must log both ports' resets, and after each restart the
# new S must forward (K0's TX count grows); at the end the generator
# stops on SIGINT, exit 0 or 3 (frames lost while S was gone), and its
# JSON counts a reset a restart on each port.
#
#   test_gen_peer_restart_cbfc.sh IBEX_GEN IBEX_SWITCH IBEX_CTL
# Environment: ROUNDS (2).
set -euo pipefail
TEST_NAME=gen_peer_restart_cbfc
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

gen=${1:?usage: test_gen_peer_restart_cbfc.sh IBEX_GEN IBEX_SWITCH IBEX_CTL}
sw=${2:?usage: test_gen_peer_restart_cbfc.sh IBEX_GEN IBEX_SWITCH IBEX_CTL}
ctl=${3:?usage: test_gen_peer_restart_cbfc.sh IBEX_GEN IBEX_SWITCH IBEX_CTL}
for b in "$gen" "$sw" "$ctl"; do [ -x "$b" ] || skip "no $b"; done
require_cmds jq
[ "$(nproc)" -ge 2 ] || skip "needs two CPUs"
rounds=${ROUNDS:-2}

tmp=$(mktemp -d /tmp/ibex-gen-restart.XXXXXX)
on_exit rm -rf "$tmp"
readonly RX_MAC=02:00:00:0e:00:00	# rank 0 (docs/generator.md)

{
	echo "switch workers 1"
	echo "fdb learning off"
	echo "port K0 dev net_memif0 vls 2 fc cbfc shape 200M"
	echo "port K1 dev net_memif1 vls 2 fc cbfc"
	for p in K0 K1; do echo "lane $p vl 0 lossless reserved 64KB"; done
	echo "fdb static $RX_MAC port K0"
} >"$tmp/s.conf"

dpdk_prefix pg g
start_bg gpid "$tmp/gen.log" "$gen" --lcores 0@0,1@1 \
	--no-huge -m 512 --no-pci --file-prefix="$pg" \
	--log-level='lib.*:notice' \
	--vdev "net_memif0,role=server,id=0,socket=$tmp/m0.sock,socket-abstract=no" \
	--vdev "net_memif1,role=server,id=0,socket=$tmp/m1.sock,socket-abstract=no" \
	-- --engine rate --ranks 2 --flow 1:0 --fc cbfc --cbfc-limit 256 \
	--size 256 --duration 3600 --json "$tmp/gen.json"

# start_s N: switch S, its N-th start.
start_s() {
	local ps

	dpdk_prefix ps "s$1"
	rm -f "$tmp/s.ctl"
	start_bg spid "$tmp/s$1.log" "$sw" --lcores 0@0,1@1 \
		--no-huge -m 512 --no-pci --file-prefix="$ps" \
		--log-level='lib.*:notice' \
		--vdev "net_memif0,role=client,id=0,socket=$tmp/m0.sock,socket-abstract=no" \
		--vdev "net_memif1,role=client,id=0,socket=$tmp/m1.sock,socket-abstract=no" \
		-- --config "$tmp/s.conf" --ctl-socket "$tmp/s.ctl"
}
# s_tx_above N: S's K0 has sent more than N frames.
s_tx_above() {
	local n

	n=$("$ctl" --socket "$tmp/s.ctl" --json show ports 2>/dev/null |
		jq -e '.ports[] | select(.name == "K0") | .tx_frames') || return 1
	[ "$n" -gt "$1" ]
}
gen_dead() {
	show_log "$tmp/gen.log" 40
	fail "$1"
}
# gen_resets N: the generator has logged at least N resets (a port's link
# seen down: it looks every 10 ms).
gen_resets() {
	[ "$(grep -c 'link down: CBFC counters start again' "$tmp/gen.log")" -ge "$1" ]
}

for ((r = 0; r <= rounds; r++)); do
	start_s "$r"
	wait_until_or_dead 120 "$gpid" s_tx_above 1000 || {
		show_log "$tmp/s$r.log" 30
		gen_dead "start $r of S: it does not forward rank 1's frames"
	}
	info "start $r of S: it forwards rank 1's frames to rank 0"
	[ "$r" -lt "$rounds" ] || break
	kill -s KILL "$spid"
	wait_exit "$spid" 60 || fail "S did not end on SIGKILL"
	# both ports seen down before S comes back
	wait_until_or_dead 120 "$gpid" gen_resets $((2 * (r + 1))) ||
		gen_dead "the generator did not see both links go down after the kill $((r + 1)) of S"
done
check_ok "the generator's ranks sent again after each of $rounds restarts of S"

stop_pid "$gpid" INT
# 3: frames were lost (those S held when it was killed)
[ "$WAIT_RC" -eq 0 ] || [ "$WAIT_RC" -eq 3 ] || gen_dead "ibex-gen exit status $WAIT_RC"
stop_pid "$spid" TERM
[ -s "$tmp/gen.json" ] || gen_dead "no JSON from ibex-gen"
cb=$(jq -c '.flow_control.cbfc' "$tmp/gen.json")
info "generator: $(jq -r '.flow_control.cbfc | "\(.link_resets) link resets, \(.cf_update_rx) CF_Updates received, \(.cf_update_bad) refused"' "$tmp/gen.json"); frames $(jq -c '.frames' "$tmp/gen.json")"
resets=$(jq -e '.flow_control.cbfc.link_resets' "$tmp/gen.json") ||
	gen_dead "no link_resets in the generator's JSON: $cb"
# both ports see each restart
[ "$resets" -ge $((2 * rounds)) ] ||
	gen_dead "the generator's counters started again $resets times in $rounds restarts (two ports): $cb"
check_ok "CBFC: the generator's ports started their counters again at each restart"
