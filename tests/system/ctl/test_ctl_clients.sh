#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The control socket's edges, with raw clients:
#   - a command without its newline, left by a client that closes, is
#     never run (and the switch logs that it discarded it);
#   - a NUL byte in a command is refused with a reason, nothing runs;
#   - sixteen idle connections do not lock others out: a 17th client is
#     served (the longest-idle connection is closed for it);
#   - an idle connection is closed after the idle timeout
#     (IBEX_CTL_IDLE_TIMEOUT_S shortens it here);
#   - show config is the running config, each statement once: 20,000
#     identical changes add one line, changes that cancel out none; the
#     change history (show history) keeps the last 64.
#
#   test_ctl_clients.sh IBEX_SWITCH IBEX_PCAPGEN IBEX_CTL
set -euo pipefail
TEST_NAME=ctl_clients
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

sw=$1 ctl=$3
require_cmds python3
[ "$(id -u)" -eq 0 ] || skip "needs root (EAL)"
tmp=$(mktemp -d /tmp/ibex-clients.XXXXXX)
on_exit rm -rf "$tmp"
dpdk_prefix prefix cl
sock="$tmp/ctl.sock"
idle_s=3

cat >"$tmp/switch.conf" <<EOF
port p0 dev net_null0
port p1 dev net_null1
EOF
IBEX_CTL_IDLE_TIMEOUT_S=$idle_s start_bg swpid "$tmp/switch.log" "$sw" \
	-l 0-1 --no-huge -m 1024 --no-pci --file-prefix="$prefix" \
	--log-level='lib.*:notice' \
	--vdev "net_null0,no-rx=1" --vdev "net_null1,no-rx=1" \
	-- --config "$tmp/switch.conf" --ctl-socket "$sock" --duration 300
c() { "$ctl" --socket "$sock" "$@"; }
if ! wait_until_or_dead 30 "$swpid" c show ports; then
	show_log "$tmp/switch.log"
	fail "the control socket did not answer"
fi

# ---- a line cut short is never run ----
python3 - "$sock" <<'PY' || fail "partial line"
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
# A whole command, then one cut before its newline; then the client goes.
s.sendall(b"show ports\nadd fdb 02:00:00:00:0e:07 port p1")
data = b""
while b"OK\n" not in data:
    chunk = s.recv(65536)
    if not chunk:
        sys.exit("closed before the first reply")
    data += chunk
s.close()
PY
wait_until 20 grep -q "not ended by a newline: discarded" "$tmp/switch.log" ||
	{ show_log "$tmp/switch.log"; fail "no log line for the discarded partial command"; }
c show fdb | grep -q "02:00:00:00:0e:07" && fail "a command without its newline ran"
c show config | grep -q "02:00:00:00:0e:07" && fail "the partial command is in show config"
check_ok "a command cut before its newline was discarded and logged, not run"

# ---- NUL bytes ----
python3 - "$sock" <<'PY' || fail "NUL byte"
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(b"show ports\0garbage\nadd fdb 02:00:00:00:0e:08 port p1\0 junk\nhelp\n")
data, status = b"", []
while len(status) < 3:
    chunk = s.recv(65536)
    if not chunk:
        sys.exit("connection closed early")
    data += chunk
    status = [l for l in data.decode().split("\n") if l == "OK" or l.startswith("ERR")]
for st in status[:2]:
    if not st.startswith("ERR command: a NUL byte at offset"):
        sys.exit(f"a NUL byte was not refused: {status}")
if status[2] != "OK":
    sys.exit(f"the next command failed: {status}")
if "rx-frames" in data.decode():
    sys.exit("show ports ran despite its NUL byte")
print("ok: NUL bytes refused with a reason, the next command runs")
PY
c show fdb | grep -q "02:00:00:00:0e:08" && fail "a command with a NUL byte ran"
check_ok "commands with a NUL byte refused, not run"

# ---- 16 idle clients, then a 17th; then the idle timeout ----
python3 - "$sock" "$ctl" "$idle_s" <<'PY' || fail "idle clients"
import socket, subprocess, sys, time
path, ctl, idle_s = sys.argv[1], sys.argv[2], int(sys.argv[3])
idle = []
for i in range(16):
    s = socket.socket(socket.AF_UNIX)
    s.connect(path)
    # Each is served (it answers) and then sits idle.
    s.sendall(b"help\n")
    data = b""
    while b"OK\n" not in data:
        chunk = s.recv(65536)
        if not chunk:
            sys.exit(f"client {i} was not served")
        data += chunk
    idle.append(s)
r = subprocess.run([ctl, "--socket", path, "--timeout", "20", "show", "ports"],
                   capture_output=True, text=True, timeout=60)
if r.returncode != 0 or "p0" not in r.stdout:
    sys.exit(f"17th client not served: rc {r.returncode} {r.stderr}")
# Exactly one idle client was closed for it, and told why.
evicted = 0
for s in idle:
    s.setblocking(False)
    try:
        d = s.recv(4096)
    except BlockingIOError:
        continue
    if d.startswith(b"ERR closed: idle"):
        evicted += 1
if evicted != 1:
    sys.exit(f"{evicted} idle clients closed for the 17th, want 1")
print("ok: the 17th client was served, the longest-idle one closed")
# Every remaining idle client is closed once the timeout has passed:
# wait for it (bounded), not a fixed sleep.
t0 = time.monotonic()
deadline = t0 + idle_s + 30
for s in idle:
    s.setblocking(True)
    s.settimeout(max(0.1, deadline - time.monotonic()))
    try:
        while s.recv(4096):
            pass
    except socket.timeout:
        sys.exit("an idle client was not closed by the timeout")
    except ConnectionResetError:
        pass
took = time.monotonic() - t0
print(f"ok: idle clients closed {took:.1f} s later (timeout {idle_s} s)")
PY
grep -q "closed a control connection idle for" "$tmp/switch.log" ||
	fail "no log line for the idle timeout"
c show ports >/dev/null || fail "the socket stopped answering"
check_ok "17th client served with 16 idle ones; idle clients timed out"

# ---- show config: the running config, each statement once ----
c show config >"$tmp/config.0"
printf 'set fdb learning off\n%.0s' $(seq 20000) >"$tmp/changes"
c <"$tmp/changes" >/dev/null || fail "20,000 identical changes refused"
c show config >"$tmp/config.1"
[ "$(wc -l <"$tmp/config.1")" -eq $(($(wc -l <"$tmp/config.0") + 1)) ] &&
	[ "$(tail -n 1 "$tmp/config.1")" = "fdb learning off" ] ||
	{ diff "$tmp/config.0" "$tmp/config.1" | head; fail "20,000 identical changes grew show config"; }
c set fdb learning on >/dev/null
c add fdb 02:00:00:00:0e:09 port p1 >/dev/null
c set port p0 admin down >/dev/null
c set port p0 admin up >/dev/null
c del fdb 02:00:00:00:0e:09 vlan 1 >/dev/null
c show config >"$tmp/config.2"
cmp -s "$tmp/config.0" "$tmp/config.2" ||
	{ diff "$tmp/config.0" "$tmp/config.2"; fail "changes that cancel out stay in show config"; }
c show history >"$tmp/history"
[ "$(grep -vc '^#' "$tmp/history")" -eq 64 ] &&
	grep -q "^# 20005 changes accepted; the last 64 are kept" "$tmp/history" &&
	tail -n 1 "$tmp/history" | grep -q " fdb del 02:00:00:00:0e:09 vlan 1$" ||
	{ cat "$tmp/history"; fail "show history is not the last 64 changes"; }
c --json show history | python3 -c 'import json, sys; h = json.load(sys.stdin); sys.exit(not (h["changes"] == 20005 and len(h["history"]) == 64))' ||
	fail "show history --json"
check_ok "show config: 20,000 identical changes add one line, cancelling changes none; history bounded at 64"

stop_pid "$swpid" TERM
[ "$WAIT_RC" -eq 0 ] || { show_log "$tmp/switch.log"; fail "switch exit status $WAIT_RC"; }
