#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# System test: a classifier of 32 rules that join again (2^33 paths for
# rte_bpf's verifier to walk, hours of the control thread before the
# bound) is answered at once, at start-up and live:
#   - at start-up: ibex-switch refuses the config with the count and the
#     limit and exits within seconds (a switch still checking it would be
#     sent SIGTERM, and must end within seconds too);
#   - live: `ibex-ctl set port ... sl-from bpf` is answered ERR within
#     seconds, `ibex-ctl show ports` sent meanwhile is answered within two
#     seconds, the running program stays, and SIGTERM right after ends the
#     switch within seconds.
#
#   test_bpf_limits.sh IBEX_SWITCH IBEX_PCAPGEN IBEX_CTL QP_RANGE.O BRANCHES.O
set -euo pipefail
TEST_NAME=bpf_limits
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

sw=$1 ctl=$3 qp=$4 br=$5
require_cmds jq timeout

tmp=$(mktemp -d /tmp/ibex-bpflim.XXXXXX)
on_exit rm -rf "$tmp"
dpdk_prefix prefix1 a
dpdk_prefix prefix2 b
sock="$tmp/ctl.sock"
now() { date +%s.%N; }
since() { echo "$(now) - $1" | bc; }
under() { [ "$(echo "$1 < $2" | bc)" -eq 1 ]; }

conf() { # program
	cat <<EOC
port p0 dev net_null0 sl-from bpf $1
port p1 dev net_null1
EOC
}
eal() { # prefix
	echo -l 0-1 --no-huge -m 512 --no-pci --file-prefix="$1" \
		--vdev net_null0,no-rx=1 --vdev net_null1,no-rx=1
}

# 1. At start-up.
conf "$br" >"$tmp/big.conf"
t0=$(now)
# shellcheck disable=SC2046
start_bg swpid "$tmp/start.log" "$sw" $(eal "$prefix1") -- \
	--config "$tmp/big.conf" --ctl-socket "$sock.1" --duration 120
if ! wait_exit "$swpid" 20; then
	t1=$(now)
	kill -s TERM "$swpid"
	wait_exit "$swpid" 10 ||
		fail "still checking after 20 s, and SIGTERM did not end it in 10 s"
	fail "still checking the program after 20 s (SIGTERM ended it in $(since "$t1") s)"
fi
took=$(since "$t0")
[ "$WAIT_RC" -ne 0 ] || { show_log "$tmp/start.log"; fail "started with it"; }
grep -q "8589934592 paths through its branches.*over ibex's limit of" \
	"$tmp/start.log" || { show_log "$tmp/start.log"; fail "no count in the refusal"; }
check_ok "start-up refused in $took s: $(grep -o 'branches.o: .*' "$tmp/start.log" | head -1)"

# 2. Live.
conf "$qp" >"$tmp/sw.conf"
# shellcheck disable=SC2046
start_bg swpid "$tmp/switch.log" "$sw" $(eal "$prefix2") -- \
	--config "$tmp/sw.conf" --ctl-socket "$sock" --duration 120
c() { "$ctl" --socket "$sock" "$@"; }
if ! wait_until_or_dead 30 "$swpid" c show ports; then
	show_log "$tmp/switch.log"
	fail "the control socket did not answer"
fi
t0=$(now)
( rc=0; timeout 60 "$ctl" --socket "$sock" set port p0 sl-from bpf "$br" \
	>"$tmp/set.out" 2>&1 || rc=$?; echo "$rc" >"$tmp/set.rc" ) &
setpid=$!
t1=$(now)
timeout 10 "$ctl" --socket "$sock" show ports >/dev/null ||
	fail "show ports not answered while the program was checked"
shown=$(since "$t1")
under "$shown" 2 || fail "show ports answered in $shown s, want < 2 s"
check_ok "show ports answered in $shown s while the load was checked"
wait "$setpid"
took=$(since "$t0")
under "$took" 10 || fail "set answered in $took s, want < 10 s"
[ "$(cat "$tmp/set.rc")" -eq 1 ] || fail "set: exit $(cat "$tmp/set.rc"): $(cat "$tmp/set.out")"
grep -q "8589934592 paths through its branches.*over ibex's limit of 2097152 steps" \
	"$tmp/set.out" || fail "set: $(cat "$tmp/set.out")"
check_ok "live load refused in $took s: $(cat "$tmp/set.out")"
[ "$(c show bpf p0 --json | jq -r .bpf.p0.function)" = qp_range ] ||
	fail "the running program changed"

# SIGTERM while a load is on its way.
( timeout 60 "$ctl" --socket "$sock" set port p0 sl-from bpf "$br" \
	>/dev/null 2>&1 || true ) &
setpid=$!
t0=$(now)
kill -s TERM "$swpid"
wait_exit "$swpid" 10 || fail "SIGTERM did not end the switch within 10 s"
check_ok "SIGTERM ended the switch in $(since "$t0") s (exit $WAIT_RC)"
[ "$WAIT_RC" -eq 0 ] || { show_log "$tmp/switch.log"; fail "switch exit status $WAIT_RC"; }
wait "$setpid" || true
echo PASS
