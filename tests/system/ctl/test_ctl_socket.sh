#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# System test of the control socket while the switch forwards:
#   - the socket is mode 0600; another uid cannot open it, and when the file
#     mode is widened by mistake the switch itself still refuses that uid
#     (SO_PEERCRED);
#   - the protocol: one status line per command, pipelined, output lines
#     that look like status lines escaped;
#   - bad commands (unknown key, value out of range, wrong type, dangling
#     reference, unknown statement, a change that cannot be made live) are
#     refused with "command: reason", the running config stays as it was,
#     and forwarding goes on with no drop;
#   - good live changes show in "show config" and "show fdb";
#   - dpdk-telemetry.py reads /ibex/ports, /ibex/lanes and /ibex/latency.
#
# Traffic: p0 replays a pcap of 200 frames A_i -> B_i forever
# (net_pcap infinite_rx); the B_i are static on p1 (net_null, no RX).
#
#   test_ctl_socket.sh IBEX_SWITCH IBEX_PCAPGEN IBEX_CTL
set -euo pipefail
TEST_NAME=ctl_socket
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

sw=$1 gen=$2 ctl=$3
require_cmds jq python3 setpriv
[ "$(id -u)" -eq 0 ] || skip "needs root (setpriv to another uid)"

tmp=$(mktemp -d /tmp/ibex-ctl.XXXXXX)
on_exit rm -rf "$tmp"
# Others may traverse the directory: only the socket's own mode and the
# switch's uid check stand between them and the socket.
chmod 755 "$tmp"
dpdk_prefix prefix sock
sock="$tmp/ctl.sock"

"$gen" -o "$tmp/in.pcap" -n 200 -p 4 --kind roce >/dev/null
cat >"$tmp/switch.conf" <<EOF
port p0 dev net_pcap0
port p1 dev net_null0
fdb static 02:00:00:00:0b:00 port p1
fdb static 02:00:00:00:0b:01 port p1
fdb static 02:00:00:00:0b:02 port p1
fdb static 02:00:00:00:0b:03 port p1
EOF

start_bg swpid "$tmp/switch.log" "$sw" -l 0-1 --no-huge -m 1024 --no-pci \
	--file-prefix="$prefix" --log-level='lib.*:notice' \
	--vdev "net_pcap0,rx_pcap=$tmp/in.pcap,infinite_rx=1" \
	--vdev "net_null0,no-rx=1" \
	-- --config "$tmp/switch.conf" --ctl-socket "$sock"
c() { "$ctl" --socket "$sock" "$@"; }
if ! wait_until_or_dead 60 "$swpid" c show ports; then
	show_log "$tmp/switch.log"
	fail "the control socket did not answer"
fi
check_ok "ibex-ctl talks to the switch"

# ---- permissions ----
mode=$(stat -c %a "$sock")
[ "$mode" = 600 ] || fail "socket mode is $mode, want 600"
check_ok "socket mode 0600"
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
rc=0
as_nobody "$ctl" --socket "$sock" show ports >"$tmp/nobody.out" 2>&1 || rc=$?
[ "$rc" -eq 1 ] && grep -q "Permission denied" "$tmp/nobody.out" ||
	{ cat "$tmp/nobody.out"; fail "uid 65534 opened the socket (rc $rc)"; }
check_ok "uid 65534 cannot open the socket (file mode)"
chmod 666 "$sock"
rc=0
as_nobody "$ctl" --socket "$sock" show ports >"$tmp/nobody.out" 2>&1 || rc=$?
chmod 600 "$sock"
# The switch answers "permission denied" and closes: the client sees the
# refusal (rc 1) or, when the close wins the race with its write, a broken
# pipe after it (rc 2). Either way nothing is shown.
[ "$rc" -ne 0 ] && grep -q "permission denied" "$tmp/nobody.out" &&
	! grep -q "rx-frames" "$tmp/nobody.out" ||
	{ cat "$tmp/nobody.out"; fail "a world-writable socket let uid 65534 in (rc $rc)"; }
grep -q "refused a connection from uid 65534" "$tmp/switch.log" ||
	fail "no log line for the refused uid"
check_ok "uid 65534 refused by the switch itself (SO_PEERCRED)"

# ---- the protocol, raw ----
python3 - "$sock" <<'PY' || fail "raw protocol"
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
# Three commands in one write: three status lines, in order.
s.sendall(b"show config\nno-such-statement\nhelp\n")
data, status = b"", []
while len(status) < 3:
    chunk = s.recv(65536)
    if not chunk:
        sys.exit("connection closed early")
    data += chunk
    status = [l for l in data.decode().split("\n") if l == "OK" or l.startswith("ERR")]
if status[0] != "OK" or not status[1].startswith("ERR set: unknown statement 'no-such-statement'") or status[2] != "OK":
    sys.exit(f"status lines {status}")
if "port p0 dev net_pcap0" not in data.decode():
    sys.exit("show config lacks the file's statements")
print("ok: pipelined commands get their status lines in order")
PY

# ---- counters before ----
snap() { c --json show ports >"$tmp/$1.json"; }
field() { jq -e ".ports[] | select(.name == \"$2\") | .$3" "$tmp/$1.json"; }
c show config >"$tmp/config.before"
c show fdb >"$tmp/fdb.before"
snap before
[ "$(field before p1 tx_frames)" -gt 0 ] || fail "p1 forwards nothing"

# ---- bad commands ----
# bad "command" "text the reply must hold"
bad() {
	local out rc=0

	out=$(c "$1" 2>&1) || rc=$?
	[ "$rc" -eq 1 ] || fail "'$1' exit status $rc, want 1 ($out)"
	case "$out" in
	*"$2"*) check_ok "refused: $1 -> ${out#ibex-ctl: }" ;;
	*) fail "'$1': '$out' lacks '$2'" ;;
	esac
}
bad "set port p0 colour blue" "set: port p0: unknown key 'colour'"
bad "set port p0 pvid 5000" "set: port p0: pvid: 5000 out of range"
bad "set port p0 trusted maybe" "set: port p0: trusted"
bad "set fdb ageing soon" "set: fdb: ageing"
bad "add fdb 02:00:00:00:0e:01 port p7" "add: fdb static: unknown port 'p7'"
bad "set port p1 pvid 20" "not a member of vlan 1"
# An unknown first word on the command line is a usage error, told by
# ibex-ctl before it connects (exit 2); read from stdin, it reaches the
# switch, which refuses it (exit 1).
rc=0
out=$(c "frobnicate p0" 2>&1) || rc=$?
[ "$rc" -eq 2 ] && [[ $out == *"unknown command 'frobnicate' (one of: show"* ]] ||
	fail "'frobnicate p0': exit $rc, want 2 ($out)"
rc=0
out=$(echo "frobnicate p0" | c 2>&1) || rc=$?
[ "$rc" -eq 1 ] && [[ $out == *"set: unknown statement 'frobnicate'"* ]] ||
	fail "'frobnicate p0' from stdin: exit $rc, want 1 ($out)"
check_ok "unknown command: exit 2 from ibex-ctl, exit 1 from the switch (stdin)"
bad "show lanes p9" "show: no port 'p9'"
bad "show colours" "show: unknown topic 'colours'"
bad "set port p0 dev net_null9" "ports cannot be renamed or moved live"
bad "set switch mbufs 65536" "switch mbufs needs a restart"

# The same refusals pipelined through one connection: one error each.
printf '%s\n' "set port p0 pvid 0" "show ports" "set port p0 speed fast" \
	"add fdb 01:00:5e:00:00:01 port p1" "show drops" >"$tmp/batch"
rc=0
c <"$tmp/batch" >"$tmp/batch.out" 2>"$tmp/batch.err" || rc=$?
[ "$rc" -eq 1 ] || fail "batch exit status $rc, want 1"
[ "$(wc -l <"$tmp/batch.err")" -eq 3 ] || { cat "$tmp/batch.err"; fail "batch: want 3 errors"; }
grep -q "^ibex-ctl: command 1: set: port p0: pvid" "$tmp/batch.err" &&
	grep -q "^ibex-ctl: command 3: set: port p0: speed" "$tmp/batch.err" &&
	grep -q "^ibex-ctl: command 4: add: fdb static: .*group" "$tmp/batch.err" ||
	{ cat "$tmp/batch.err"; fail "batch errors do not name their commands"; }
grep -q "^p1 " "$tmp/batch.out" || fail "batch: the shows between errors printed nothing"
check_ok "pipelined batch: 3 errors named by position, shows in between ran"

c show config >"$tmp/config.after"
cmp -s "$tmp/config.before" "$tmp/config.after" ||
	{ diff "$tmp/config.before" "$tmp/config.after"; fail "a refused command changed the config"; }
c show fdb >"$tmp/fdb.after"
[ "$(grep -c ' static$' "$tmp/fdb.after")" -eq 4 ] &&
	cmp -s "$tmp/fdb.before" "$tmp/fdb.after" ||
	{ diff "$tmp/fdb.before" "$tmp/fdb.after"; fail "the FDB changed"; }
check_ok "running config and static FDB unchanged after 15 refused commands"

# Forwarding goes on: wait for both counters to move past the snapshot.
moved() {
	snap after
	[ "$(field after p1 tx_frames)" -gt "$(field before p1 tx_frames)" ] &&
		[ "$(field after p0 rx_frames)" -gt "$(field before p0 rx_frames)" ]
}
wait_until 60 moved || true
snap after
for p in p0 p1; do
	[ "$(jq -e ".ports[] | select(.name == \"$p\") | .dropped" "$tmp/after.json")" -eq 0 ] ||
		{ cat "$tmp/after.json"; fail "$p dropped frames"; }
done
b=$(field before p1 tx_frames) a=$(field after p1 tx_frames)
[ "$a" -gt "$b" ] || fail "p1 stopped forwarding ($b -> $a)"
b=$(field before p0 rx_frames) a=$(field after p0 rx_frames)
[ "$a" -gt "$b" ] || fail "p0 stopped receiving ($b -> $a)"
check_ok "forwarding went on: p1 tx $(field before p1 tx_frames) -> $(field after p1 tx_frames), no drop"

# ---- good live changes ----
c add fdb 02:00:00:00:0e:01 port p1 || fail "add fdb refused"
c set fdb learning off || fail "set fdb learning off refused"
c show fdb | grep -q "^02:00:00:00:0e:01 .* p1 .*static" || fail "new static entry not shown"
tail -n 2 <(c show config) | tr '\n' '|' | grep -qx \
	"fdb static 02:00:00:00:0e:01 port p1|fdb learning off|" ||
	{ c show config; fail "show config lacks the live changes"; }
c --json show config | jq -e '.statements[-1] == "fdb learning off"' >/dev/null ||
	fail "show config --json"
c del fdb 02:00:00:00:0e:01 vlan 1 || fail "del fdb refused"
c show fdb | grep -q "^02:00:00:00:0e:01 " && fail "deleted static entry still shown"
# The static entry and its removal cancel out: neither is in effect.
c show config | grep -q "02:00:00:00:0e:01" &&
	{ c show config; fail "show config still lists the removed static entry"; }
c show config | tail -n 1 | grep -qx "fdb learning off" ||
	fail "show config lost the change still in effect"
bad "del fdb 02:00:00:00:0e:01 vlan 1" "del: fdb del: 02:00:00:00:0e:01 vlan 1 is not a static entry"
check_ok "live changes applied and listed by show config"

# Every show answers, in both forms, with valid JSON.
for t in ports lanes credits pfc ecn latency drops reasons fdb config workers; do
	c show "$t" >/dev/null || fail "show $t"
	c --json show "$t" | jq -e . >/dev/null || fail "show $t --json is not JSON"
done
c --json show lanes p1 | jq -e '[.lanes[].tx_frames] | add > 0' >/dev/null ||
	fail "show lanes p1: no frames counted"
check_ok "every show topic answers, JSON parses"

# ---- telemetry ----
if command -v dpdk-telemetry.py >/dev/null; then
	tq() { echo "$1" | dpdk-telemetry.py -f "$prefix" 2>/dev/null | tail -1; }
	tq /ibex/ports | jq -e '."/ibex/ports" == ["p0", "p1"]' >/dev/null ||
		fail "/ibex/ports: $(tq /ibex/ports)"
	tq /ibex/lanes,p1 | jq -e '."/ibex/lanes".lanes."0".tx_frames > 0' >/dev/null ||
		fail "/ibex/lanes,p1: $(tq /ibex/lanes,p1)"
	tq /ibex/latency,1 | jq -e '."/ibex/latency".latency | type == "object"' >/dev/null ||
		fail "/ibex/latency,1: $(tq /ibex/latency,1)"
	check_ok "dpdk-telemetry.py reads /ibex/ports, /ibex/lanes, /ibex/latency"
else
	info "dpdk-telemetry.py not installed: telemetry not checked"
fi

stop_pid "$swpid" INT
[ "$WAIT_RC" -eq 0 ] || { show_log "$tmp/switch.log"; fail "switch exit status $WAIT_RC"; }
[ ! -e "$sock" ] || fail "socket file left behind"
check_ok "switch stopped cleanly and removed its socket"
echo PASS
