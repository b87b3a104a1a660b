#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# System test: a memif server port given the way the docs give it
# (`--vdev net_memif0,role=server`, no socket=) is closed to other local
# users. ibex-switch runs as root; an unprivileged client (uid nobody)
# tries DPDK's default abstract socket (the name /run/memif.sock, which
# DPDK 22.11 used for such a port) and the socket file ibex now makes
# (IBEX_MEMIF_DIR/net_memif0.sock, in a directory of mode 0700): both must fail
# to connect, and the switch must have received no frame on the port. A
# second memif server with socket-abstract=yes (an explicit opt-in) must
# draw a WARNING. The test runs in a network namespace of its own, which
# scopes abstract socket names, so no other run on the machine is reached.
#
#   test_memif_perm.sh IBEX_SWITCH IBEX_PCAPGEN
set -euo pipefail
if [ -z "${IBEX_MEMIF_PERM_NETNS:-}" ]; then
	[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root"; exit 77; }
	command -v unshare >/dev/null || { echo "SKIP: needs unshare"; exit 77; }
	IBEX_MEMIF_PERM_NETNS=1 exec unshare --net -- "$0" "$@"
fi
TEST_NAME=memif_perm
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

IBEX=${1:?usage: $0 IBEX_SWITCH IBEX_PCAPGEN}
require_cmds setpriv python3 jq
id nobody >/dev/null 2>&1 || skip "no user nobody"

WORK=$(mktemp -d /tmp/ibex-mp.XXXXXX) || fail "mktemp"
on_exit rm -rf "$WORK"
# Others may enter WORK: only the memif directory's own mode keeps them out.
chmod 755 "$WORK"
export IBEX_MEMIF_DIR="$WORK/memif"
SOCK="$IBEX_MEMIF_DIR/net_memif0.sock"
ABS_OPT="/ibex-mp-$$.sock"	# the explicitly abstract server's name

cat >"$WORK/ibex.conf" <<CONF
port m0 dev net_memif0
port m1 dev net_memif1
port p0 dev net_null0
CONF
dpdk_prefix PREFIX sw
LOG="$WORK/ibex.log"
JSON="$WORK/ibex.json"
start_bg PID "$LOG" "$IBEX" -l 0-1 --no-huge -m 512 --no-pci \
	--file-prefix="$PREFIX" --log-level='lib.*:notice' \
	--vdev net_memif0,role=server \
	--vdev "net_memif1,role=server,socket=$ABS_OPT,socket-abstract=yes" \
	--vdev net_null0 \
	-- --config "$WORK/ibex.conf" --ctl-socket none --json "$JSON"
info "ibex-switch started (pid $PID)"
# The ports are probed (their sockets bound) before the workers start.
forwarding() { grep -q "worker 0 on lcore" "$LOG"; }
case $(wait_until_or_dead 60 "$PID" forwarding; echo $?) in
0) ;;
2) wait_exit "$PID" 1; show_log "$LOG"
   fail "ibex-switch exited ($WAIT_RC) before forwarding" ;;
*) show_log "$LOG"; fail "ibex-switch not forwarding within 60 s" ;;
esac

# The unprivileged client: one connect per address, nothing sent; exit 0
# when it connected (an attached peer), 3 when refused. A system python:
# the invoking user's may be out of nobody's reach.
PY3=/usr/bin/python3
[ -x "$PY3" ] || skip "no $PY3"
attach() { # ADDRESS ('@NAME' for an abstract name)
	local rc=0

	setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$PY3" - "$1" <<'PY' || rc=$?
import errno, os, socket, sys
a = sys.argv[1]
assert os.geteuid() != 0
addr = "\0" + a[1:] if a.startswith("@") else a
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
try:
    s.connect(addr)
except OSError as e:
    print(f"uid {os.geteuid()}: {a}: refused: "
          f"{errno.errorcode.get(e.errno, e.errno)}")
    sys.exit(3)
print(f"uid {os.geteuid()}: {a}: connected")
PY
	case $rc in
	0) stop_pid "$PID"; show_log "$LOG"
	   fail "uid nobody attached to the memif server at $1" ;;
	3) ;;
	*) fail "the unprivileged client did not run (exit $rc)" ;;
	esac
}
attach @/run/memif.sock
attach "$SOCK"
check_ok "uid nobody cannot attach: not at DPDK's default abstract name, not at $SOCK"
is_alive "$PID" || { show_log "$LOG"; fail "ibex-switch died"; }
[ -S "$SOCK" ] || { show_log "$LOG"; fail "no memif socket file $SOCK"; }
mode=$(stat -c %a "$IBEX_MEMIF_DIR")
[ "$mode" = 700 ] || fail "$IBEX_MEMIF_DIR has mode $mode, want 700"
check_ok "memif server listens on $SOCK, in a directory of mode 700"
grep -q "WARNING: --vdev net_memif1.*abstract" "$LOG" ||
	{ show_log "$LOG"; fail "no WARNING for the abstract server socket"; }
check_ok "socket-abstract=yes drew a WARNING"

stop_pid "$PID"
[ "$WAIT_RC" -eq 0 ] || { show_log "$LOG"; fail "ibex-switch exit $WAIT_RC"; }
rx=$(jq -e '[.ports[] | select(.name == "m0") | .rx_frames] | add' "$JSON") ||
	fail "no m0 in $JSON"
[ "$rx" -eq 0 ] || fail "m0 received $rx frames, want 0"
[ ! -e "$SOCK" ] || fail "$SOCK left behind after a clean stop"
check_ok "m0 received nothing; the socket file is removed at stop"
echo "PASS"
