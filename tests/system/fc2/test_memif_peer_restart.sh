#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# A memif client whose server goes away while traffic runs, and comes back.
#
#   switch A (memif servers, built-in generator)      switch B (memif clients)
#   gen1 --VLAN 10--> L1 (server) ==================> K1 (client)
#                                                        | static FDB
#   gen0 <--VLAN 20-- L2 (server) <================== K2 (client, shaped)
#
# B is started first, before any server exists: it must come up and
# connect by itself once A is there. Then, ROUNDS times: while B forwards
# (its K2 TX count grows), A is killed (SIGKILL, or SIGTERM every other
# round), B must log both links down and stay alive, and A is started
# again; B must log both links up and forward again (K2 TX grows past what
# it was). At the end B stops cleanly (exit 0) and accounts for every frame
# it took in: rx = tx + drops over its ports. Core dumps are enabled and land in the
# test's directory (when the kernel's core_pattern is a plain file name),
# and a crash prints its backtrace.
#
# With FC=cbfc every memif port runs UEC CBFC on a lossless lane 0 (the
# frames' lane): A comes back with its counters at 0, and B's K2 must
# start its own again when the link goes down (`link_resets`, one a
# round at least), else the new A's CF_Updates are refused and K2's VC
# stays full for good.
#
#   test_memif_peer_restart.sh IBEX_SWITCH IBEX_CTL
# Environment: ROUNDS (4); FC (none, or cbfc); KEEP_CORES=DIR keeps core
# files there.
set -euo pipefail
TEST_NAME=memif_peer_restart
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

sw=${1:?usage: test_memif_peer_restart.sh IBEX_SWITCH IBEX_CTL}
ctl=${2:?usage: test_memif_peer_restart.sh IBEX_SWITCH IBEX_CTL}
[ -x "$sw" ] || skip "no ibex-switch at $sw"
[ -x "$ctl" ] || skip "no ibex-ctl at $ctl"
require_cmds jq realpath
sw=$(realpath "$sw")	# the test runs in its own directory (cores)
ctl=$(realpath "$ctl")
[ "$(nproc)" -ge 2 ] || skip "needs two CPUs"
rounds=${ROUNDS:-4}
fc=${FC:-none}
case "$fc" in none | cbfc) ;; *) fail "FC=$fc: none or cbfc" ;; esac

tmp=$(mktemp -d /tmp/ibex-memif-restart.XXXXXX)
on_exit rm -rf "$tmp"
readonly RX_MAC=02:00:00:0e:00:00	# rank 0 (docs/generator.md)
s1=$tmp/l1.sock
s2=$tmp/l2.sock

# Crash evidence: a core file in $tmp when core_pattern is a plain name
# (relative to the crashing process's directory); otherwise (a pipe to
# systemd-coredump, say) only the exit status 139 tells.
ulimit -c unlimited 2>/dev/null || true
cd "$tmp"
backtraces() {
	local c

	for c in "$tmp"/core*; do
		[ -f "$c" ] || continue
		[ -z "${KEEP_CORES:-}" ] || cp "$c" "$KEEP_CORES/" || true
		if command -v gdb >/dev/null 2>&1; then
			gdb -batch -ex 'thread apply all bt 12' "$sw" "$c" >&2 2>&1 |
				grep -E '^(Thread|#)' >&2 || true
		else
			info "core file $c (no gdb to read it)"
		fi
	done
}

# cbfc_ports PORT...: with FC=cbfc, CBFC on a lossless lane 0
cbfc_ports() {
	local p

	[ "$fc" = cbfc ] || return 0
	for p in "$@"; do
		echo "port $p vls 2 fc cbfc"
		echo "lane $p vl 0 lossless reserved 64KB"
	done
}

{
	echo "switch workers 1"
	echo "fdb learning off"
	echo "port gen0 pvid 20"
	echo "port gen1 pvid 10"
	echo "port L1 dev net_memif0 pvid 10"
	echo "port L2 dev net_memif1 pvid 20"
	cbfc_ports L1 L2
	echo "fdb static $RX_MAC port L1 vlan 10"
	echo "fdb static $RX_MAC port gen0 vlan 20"
} >"$tmp/a.conf"
{
	echo "switch workers 1"
	echo "fdb learning off"
	echo "port K1 dev net_memif0"
	echo "port K2 dev net_memif1 shape 200M"
	cbfc_ports K1 K2
	echo "fdb static $RX_MAC port K2"
} >"$tmp/b.conf"

# start_a N: switch A, its generator sending until it is stopped.
start_a() {
	local pa

	dpdk_prefix pa "a$1"
	start_bg apid "$tmp/a$1.log" "$sw" --lcores 0@0,1@1,2@0 \
		--no-huge -m 512 --no-pci --file-prefix="$pa" \
		--log-level='lib.*:notice' \
		--vdev "net_memif0,role=server,id=0,socket=$s1,socket-abstract=no" \
		--vdev "net_memif1,role=server,id=0,socket=$s2,socket-abstract=no" \
		-- --config "$tmp/a.conf" --wait-links 120 \
		--gen "--engine rate --ranks 2 --flow 1:0 --size 256 \
		--duration 3600"
}

b_field() {
	"$ctl" --socket "$tmp/b.ctl" --json show ports 2>/dev/null |
		jq -e "$1"
}
# b_tx_above N: B's K2 has sent more than N frames.
b_tx_above() {
	local n

	n=$(b_field '.ports[] | select(.name == "K2") | .tx_frames') || return 1
	[ "$n" -gt "$1" ]
}
b_tx() { b_field '.ports[] | select(.name == "K2") | .tx_frames'; }
# b_logged WHAT N: B's log holds at least N lines "port K1: link WHAT" (a link
# down line goes on with the learned entries it flushed) and
# as many for K2.
b_logged() {
	local k n

	for k in K1 K2; do
		n=$(grep -cE "port $k: link $1(;|\$)" "$tmp/b.log" || true)
		[ "$n" -ge "$2" ] || return 1
	done
}
b_dead() {
	is_alive "$bpid" || { wait_exit "$bpid" 1 || true; info "B ended, exit status $WAIT_RC"; }
	show_log "$tmp/b.log" 60
	backtraces
	fail "$1"
}

# B first: no server yet.
dpdk_prefix pb b
start_bg bpid "$tmp/b.log" "$sw" --lcores 0@0,1@1 \
	--no-huge -m 512 --no-pci --file-prefix="$pb" \
	--log-level='lib.*:notice' \
	--vdev "net_memif0,role=client,id=0,socket=$s1,socket-abstract=no" \
	--vdev "net_memif1,role=client,id=0,socket=$s2,socket-abstract=no" \
	-- --config "$tmp/b.conf" --json "$tmp/b.json" \
	--ctl-socket "$tmp/b.ctl"
wait_until_or_dead 60 "$bpid" b_tx_above -1 ||
	b_dead "B did not start without its servers"
info "B runs with no server to connect to"

start_a 0
before=0
for ((r = 1; r <= rounds; r++)); do
	wait_until_or_dead 120 "$bpid" b_logged up "$r" ||
		b_dead "round $r: B's links did not come up (A: $(tail -n 3 "$tmp/a$((r - 1)).log" | tr '\n' ' '))"
	wait_until_or_dead 120 "$bpid" b_tx_above "$((before + 1000))" ||
		b_dead "round $r: B does not forward (K2 tx stays at $(b_tx))"
	before=$(b_tx)
	sig=KILL
	[ $((r % 2)) -eq 1 ] || sig=TERM
	kill -s "$sig" "$apid"
	wait_exit "$apid" 60 || fail "round $r: A did not end on SIG$sig"
	wait_until_or_dead 60 "$bpid" b_logged down "$r" ||
		b_dead "round $r: B did not see its links go down"
	is_alive "$bpid" || b_dead "round $r: B died when A went away"
	info "round $r: A ended (SIG$sig) after B sent $before frames on K2; B saw its links go down"
	start_a "$r"
done
wait_until_or_dead 120 "$bpid" b_logged up "$((rounds + 1))" ||
	b_dead "B's links did not come up after the last restart"
wait_until_or_dead 120 "$bpid" b_tx_above "$((before + 1000))" ||
	b_dead "B does not forward after the last restart"
check_ok "B reconnected and forwarded again after each of $rounds server restarts"

stop_pid "$bpid" INT
[ "$WAIT_RC" -eq 0 ] || b_dead "B exit status $WAIT_RC"
stop_pid "$apid" TERM
[ -s "$tmp/b.json" ] || b_dead "no JSON from B"
# Every frame B took in left on a port, is counted under a reason, or
# was B's own (consumed: CBFC's CF_ and CC_Updates).
sums='([.ports[].rx_frames] | add) as $rx | ([.ports[].tx_frames] | add) as $tx
	| ([.ports[].drops[]] | add // 0) as $d | ([.ports[].consumed] | add) as $own'
jq -e "$sums | \$rx == \$tx + \$d + \$own and \$rx > 0" "$tmp/b.json" >/dev/null ||
	{ jq -c '.ports[] | {name, rx_frames, tx_frames, drops: (.drops | with_entries(select(.value > 0)))}' "$tmp/b.json" >&2
	  fail "B's accounting: rx != tx + drops"; }
info "$(jq -r "$sums"' | "B: rx \($rx), tx \($tx), consumed \($own), drops \($d) (\([.ports[].drops | to_entries[] | select(.value > 0) | "\(.key) \(.value)"] | join(", ")))"' "$tmp/b.json")"
check_ok "B did not crash, stopped with exit 0 and accounted for every frame"
if [ "$fc" = cbfc ]; then
	resets=$(jq -e '.cbfc[] | select(.port == "K2") | .link_resets' "$tmp/b.json") ||
		{ jq -c '.cbfc' "$tmp/b.json" >&2; fail "no CBFC counters of K2 in B's JSON"; }
	[ "$resets" -ge "$rounds" ] || fail "K2's CBFC counters started again $resets times in $rounds restarts"
	info "$(jq -r '.cbfc[] | select(.port == "K2") | "K2: \(.link_resets) link resets, \(.cf_update_rx) CF_Updates received, \(.cf_update_bad) refused"' "$tmp/b.json")"
	check_ok "CBFC: K2 started its counters again at each restart of A and sent on"
fi
