#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Coming back after SIGKILL, and trusting only the real switch:
#   - ibex-switch with two memif server ports and a control socket is
#     killed with SIGKILL and started again with the same arguments, five
#     times in a row; every start removes the stale socket files (one log
#     line each) and forwards again within a bound;
#   - a socket a live process listens on is refused, not taken over;
#   - ibex-ctl refuses a fake server owned by another uid (SO_PEERCRED),
#     unless told that uid with --server-uid; the switch warns about a
#     --ctl-socket directory others may write;
#   - SIGTERM: exit status 0, and the control socket, the memif sockets and
#     the DPDK runtime directory are gone.
#
#   test_ctl_restart.sh IBEX_SWITCH IBEX_PCAPGEN IBEX_CTL
set -euo pipefail
TEST_NAME=ctl_restart
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

sw=$1 ctl=$3
TESTPMD=${TESTPMD:-dpdk-testpmd}
require_cmds "$TESTPMD" jq python3 setpriv
[ "$(id -u)" -eq 0 ] || skip "needs root (EAL, setpriv)"

tmp=$(mktemp -d /tmp/ibex-restart.XXXXXX)
on_exit rm -rf "$tmp"
chmod 755 "$tmp"
# A directory every user may write (as /tmp): the switch warns about it.
pub="$tmp/pub"
mkdir "$pub"
chmod 1777 "$pub"
sock="$pub/ctl.sock"
m0="$tmp/memif0.sock" m1="$tmp/memif1.sock"
dpdk_prefix prefix sw
rundir="/var/run/dpdk/$prefix"
# Forwarding again within this bound after each start, EAL start-up of
# both processes included: 5-10 s here on a quiet machine, up to 30 s
# with the CPUs shared by other builds; the bound has room for a machine
# twice as slow and busy again.
readonly FWD_BOUND_S=120

cat >"$tmp/switch.conf" <<EOF
port p0 dev net_memif0
port p1 dev net_memif1
EOF
sw_args=(-l 0-1 --no-huge -m 1024 --no-pci --file-prefix="$prefix"
	--log-level='lib.*:notice'
	--vdev "net_memif0,role=server,socket=$m0,socket-abstract=no"
	--vdev "net_memif1,role=server,socket=$m1,socket-abstract=no"
	-- --config "$tmp/switch.conf" --ctl-socket "$sock" --duration 600)
c() { "$ctl" --socket "$sock" "$@"; }

# A peer on both memif sockets: it sends a first burst out of both ports
# (--tx-first, to MACs nobody has) and then forwards what it receives
# back (io), so frames circle peer -> p0 -> p1 -> peer -> p0 and the other
# way for as long as both ends run. Started afresh each round, after the
# switch listens. Its exit status is not judged: DPDK 22.11's testpmd
# with memif clients was seen to crash (SIGSEGV in its forwarding lcore,
# inside librte_net_memif) when it is stopped after the switch, its
# server, went away; the switch is what this test is about.
start_peer() {
	dpdk_prefix pmd_prefix "pmd$1"
	start_bg pmdpid "$tmp/testpmd.$1.log" sh -c 'trap "" PIPE; exec "$@"' \
		testpmd "$TESTPMD" --lcores=0@0,1@0 --no-huge -m 512 --no-pci \
		--file-prefix="$pmd_prefix" --single-file-segments \
		--log-level='lib.*:notice' \
		--vdev "net_memif0,role=client,socket=$m0,socket-abstract=no" \
		--vdev "net_memif1,role=client,socket=$m1,socket-abstract=no" \
		-- --nb-cores=1 --total-num-mbufs=8192 --forward-mode=io \
		--tx-first --eth-peer=0,02:00:00:00:0f:01 \
		--eth-peer=1,02:00:00:00:0f:02 --stats-period 1
}

# Both ports received and sent at least N frames since this start.
forwarding() {
	c --json show ports >"$tmp/ports.json" || return 1
	jq -e --argjson n "$1" '[.ports[] | select(.rx_frames >= $n and
		.tx_frames >= $n)] | length == 2' "$tmp/ports.json" >/dev/null
}

for round in $(seq 1 "${RESTART_ROUNDS:-6}"); do
	log="$tmp/switch.$round.log"
	t0=$(date +%s.%N) t0_s=$SECONDS
	start_bg swpid "$log" "$sw" "${sw_args[@]}"
	if ! wait_until_or_dead "$FWD_BOUND_S" "$swpid" c show ports; then
		show_log "$log"
		fail "round $round: the control socket did not answer"
	fi
	if [ "$round" -gt 1 ]; then
		for f in "$sock" "$m0" "$m1"; do
			grep -q "$f: removed a stale socket" "$log" ||
				{ show_log "$log"; fail "round $round: no log line for stale $f"; }
		done
	fi
	start_peer "$round"
	if ! wait_until_or_dead "$((t0_s + FWD_BOUND_S - SECONDS))" "$swpid" \
		forwarding 1000; then
		show_log "$log"
		show_log "$tmp/testpmd.$round.log"
		cat "$tmp/ports.json" >&2 || true
		fail "round $round: not forwarding within $FWD_BOUND_S s of the start"
	fi
	took=$(echo "$(date +%s.%N) - $t0" | bc)
	check_ok "round $round: forwarding $(printf '%.1f' "$took") s after the start"
	[ "$round" -lt "${RESTART_ROUNDS:-6}" ] || break
	# SIGKILL: nothing is cleaned up; the next start must cope. The peer
	# goes after the switch: the switch is what this test restarts.
	kill -s KILL "$swpid"
	wait_exit "$swpid" 30 || fail "round $round: SIGKILL did not stop the switch"
	stop_pid "$pmdpid" INT
	[ -S "$sock" ] && [ -S "$m0" ] && [ -S "$m1" ] ||
		fail "round $round: SIGKILL left no socket files (nothing to test)"
done
check_ok "5 restarts after SIGKILL in a row, each forwarding again"

grep -q "control socket directory $pub is writable by every user" "$tmp/switch.1.log" ||
	{ show_log "$tmp/switch.1.log"; fail "no warning about the world-writable directory"; }
check_ok "the switch warns about a --ctl-socket directory others may write"

# ---- a live listener is refused, not taken over ----
rc=0
"$sw" "${sw_args[@]/--file-prefix=$prefix/--file-prefix=$prefix-2}" \
	>"$tmp/second.log" 2>&1 || rc=$?
on_exit rm -rf "$rundir-2"
[ "$rc" -ne 0 ] && grep -q "another process is listening there\|another switch is listening there" "$tmp/second.log" ||
	{ cat "$tmp/second.log"; fail "a second switch took over live sockets (rc $rc)"; }
c show ports >/dev/null || fail "the first switch lost its control socket"
check_ok "sockets a live switch holds are refused to a second one"

# ---- SIGTERM: exit 0, everything removed ----
stop_pid "$swpid" TERM
[ "$WAIT_RC" -eq 0 ] || { show_log "$log"; fail "SIGTERM: exit status $WAIT_RC, want 0"; }
stop_pid "$pmdpid" INT
for f in "$sock" "$m0" "$m1" "$rundir"; do
	[ ! -e "$f" ] || { ls -la "$f" >&2; fail "SIGTERM left $f behind"; }
done
check_ok "SIGTERM: exit status 0; control socket, memif sockets and runtime dir removed"

# ---- a fake server owned by another uid ----
fake="$pub/fake.sock"
# Started in the background only: exec makes the fake server the process
# start_bg recorded, so the cleanup that ends it ends the server (a
# function run with & is a subshell, which would leave the server behind).
as_nobody() { exec setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
# /usr/bin/python3: a python under /root (pyenv) is not for uid 65534.
start_bg fakepid "$tmp/fake.log" as_nobody /usr/bin/python3 -c '
import os, socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
os.chmod(sys.argv[1], 0o666)
s.listen(4)
while True:
    c, _ = s.accept()
    try:
        if c.recv(4096):
            # What a squatter would answer: a fake table and "OK".
            c.sendall(b"p0 up 0 0 0 0 0 0\nOK\n")
    except OSError:
        pass  # a client that checked and left
    c.close()
' "$fake"
wait_until 20 test -S "$fake" || fail "the fake server did not start"
rc=0
"$ctl" --socket "$fake" reload >"$tmp/fake.out" 2>&1 || rc=$?
[ "$rc" -eq 1 ] && grep -q "refusing $fake: the process listening there (pid [0-9]*) runs as uid 65534" "$tmp/fake.out" &&
	! grep -q "^p0 " "$tmp/fake.out" ||
	{ cat "$tmp/fake.out"; fail "ibex-ctl believed a server of uid 65534 (rc $rc)"; }
check_ok "ibex-ctl refuses a server owned by uid 65534: $(head -1 "$tmp/fake.out")"
"$ctl" --socket "$fake" --server-uid nobody show ports >"$tmp/fake.out" 2>&1 ||
	{ cat "$tmp/fake.out"; fail "--server-uid nobody did not let ibex-ctl talk to it"; }
check_ok "--server-uid names a uid the switch may run as"

# The switch itself does not take over a path another user's process holds.
rc=0
"$sw" "${sw_args[@]/$sock/$fake}" >"$tmp/third.log" 2>&1 || rc=$?
[ "$rc" -eq 1 ] && grep -q "$fake: another switch is listening there" "$tmp/third.log" ||
	{ cat "$tmp/third.log"; fail "the switch took over a live socket (rc $rc)"; }
[ -S "$fake" ] || fail "the live socket was removed"
check_ok "the switch refuses a control socket path a live process holds"
