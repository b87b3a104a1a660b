#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# A memif peer that leaves, again and again, while frames run at full
# speed: the switch must survive every exit (issue: DPDK 22.11's memif PMD
# unmaps the rings on EAL's interrupt thread while a worker may be inside
# a burst on them; ibex_unmap_guard.h).
#
#   ibex-switch: M0 (memif server) <====> dpdk-testpmd (2 memif clients,
#                M1 (memif server) <====>  io forwarding, --tx-first)
#
# No config: ibex is a learning switch; testpmd's frames go out of its
# port 0, in at M0, are flooded (their destination never speaks) to M1,
# into testpmd's port 1 and out of its port 0 again: a loop at full speed.
# PEERS times (40): wait until the switch forwards again (its M1 TX count
# grows), stop testpmd (SIGTERM; SIGKILL every fourth), start a new one.
# A busy loop shares the worker's CPU throughout, so the worker is
# preempted inside bursts, as on a shared host. At the end the switch must
# still run, stop with exit 0, and account for every frame it took in.
#
#   test_memif_churn.sh IBEX_SWITCH IBEX_CTL
# Environment: PEERS (40); TESTPMD (dpdk-testpmd); HOG=0 runs without
# the busy loop.
set -euo pipefail
TEST_NAME=memif_churn
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

sw=${1:?usage: test_memif_churn.sh IBEX_SWITCH IBEX_CTL}
ctl=${2:?usage: test_memif_churn.sh IBEX_SWITCH IBEX_CTL}
[ -x "$sw" ] || skip "no ibex-switch at $sw"
[ -x "$ctl" ] || skip "no ibex-ctl at $ctl"
TESTPMD=${TESTPMD:-dpdk-testpmd}
require_cmds jq "$TESTPMD" taskset
[ "$(nproc)" -ge 2 ] || skip "needs two CPUs"
peers=${PEERS:-40}

tmp=$(mktemp -d /tmp/ibex-memif-churn.XXXXXX)
on_exit rm -rf "$tmp"
s0=$tmp/m0.sock
s1=$tmp/m1.sock
ulimit -c 0 2>/dev/null || true

# The busy loop on the worker's CPU (1): preemption inside a burst is
# what exposes the race; the test ends it (on_exit runs kill_started).
if [ "${HOG:-1}" != 0 ]; then
	start_bg hogpid /dev/null taskset -c 1 sh -c 'while :; do :; done'
	info "busy loop on CPU 1 (pid $hogpid)"
fi

dpdk_prefix psw sw
start_bg swpid "$tmp/sw.log" "$sw" --lcores 0@0,1@1 \
	--no-huge -m 512 --no-pci --file-prefix="$psw" \
	--log-level='lib.*:notice' \
	--vdev "net_memif0,role=server,id=0,socket=$s0,socket-abstract=no" \
	--vdev "net_memif1,role=server,id=0,socket=$s1,socket-abstract=no" \
	-- --json "$tmp/sw.json" --ctl-socket "$tmp/sw.ctl"

sw_dead() {
	is_alive "$swpid" || { wait_exit "$swpid" 1 || true
		info "the switch ended, exit status $WAIT_RC"; }
	show_log "$tmp/sw.log" 60
	[ -z "${pmdlog:-}" ] || show_log "$pmdlog" 20
	fail "$1"
}
# m1_tx: frames the switch sent on its second memif port.
m1_tx() {
	"$ctl" --socket "$tmp/sw.ctl" --json show ports 2>/dev/null |
		jq -e '[.ports[] | .tx_frames] | add'
}
tx_above() {
	local n

	n=$(m1_tx) || return 1
	[ "$n" -gt "$1" ]
}
wait_until_or_dead 60 "$swpid" m1_tx || sw_dead "the switch did not start"

# start_pmd N: a testpmd client on both sockets, forwarding what arrives.
start_pmd() {
	local p

	dpdk_prefix p "pmd$1"
	pmdlog=$tmp/pmd$1.log
	start_bg pmdpid "$pmdlog" sh -c 'trap "" PIPE; exec "$@"' testpmd \
		"$TESTPMD" --lcores=0@0,1@0 --no-huge -m 512 --no-pci \
		--file-prefix="$p" --single-file-segments \
		--log-level='lib.*:notice' \
		--vdev "net_memif0,role=client,id=0,socket=$s0,socket-abstract=no" \
		--vdev "net_memif1,role=client,id=0,socket=$s1,socket-abstract=no" \
		-- --nb-cores=1 --total-num-mbufs=8192 --forward-mode=io \
		--tx-first --stats-period 5
}

before=0
for ((i = 1; i <= peers; i++)); do
	start_pmd "$i"
	wait_until_or_dead 120 "$swpid" tx_above "$((before + 2000))" ||
		sw_dead "peer $i: the switch does not forward (tx stays at $(m1_tx || echo '?'))"
	before=$(m1_tx)
	sig=TERM
	[ $((i % 4)) -ne 0 ] || sig=KILL
	kill -s "$sig" "$pmdpid"
	wait_exit "$pmdpid" 60 || fail "peer $i: testpmd did not end on SIG$sig"
	is_alive "$swpid" || sw_dead "peer $i: the switch died when its peer left (SIG$sig)"
	[ $((i % 10)) -ne 0 ] || info "$i peers came and left; the switch sent $before frames on its memif ports"
done
check_ok "the switch forwarded with each of $peers peers and survived every exit"

stop_pid "$swpid" INT
[ "$WAIT_RC" -eq 0 ] || sw_dead "switch exit status $WAIT_RC"
[ -s "$tmp/sw.json" ] || sw_dead "no JSON from the switch"
sums='([.ports[].rx_frames] | add) as $rx | ([.ports[].tx_frames] | add) as $tx
	| ([.ports[].drops[]] | add // 0) as $d'
jq -e "$sums | \$rx == \$tx + \$d and \$rx > 0" "$tmp/sw.json" >/dev/null ||
	{ jq -c '.ports[] | {name, rx_frames, tx_frames, drops: (.drops | with_entries(select(.value > 0)))}' "$tmp/sw.json" >&2
	  fail "accounting: rx != tx + drops"; }
info "$(jq -r "$sums"' | "rx \($rx), tx \($tx), drops \($d)"' "$tmp/sw.json")"
grep -q "released anyway" "$tmp/sw.log" &&
	info "warning: an unmap did not wait for the workers ($(grep -c "released anyway" "$tmp/sw.log") times)"
check_ok "the switch stopped with exit 0 and accounted for every frame"
