#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# ECMP as the control plane shows it: 64 RoCEv2 flows (pcapgen pairs, one
# destination MAC) reach a static entry through group "up" (p1, p2). Every
# frame leaves on one member; "show ecmp" (text and JSON) and /ibex/ecmp
# count per member exactly what each member port sent; "show fdb" names
# the group; removing a group in use is refused with its reason and the
# group stays.
#
#   test_ctl_ecmp.sh IBEX_SWITCH IBEX_PCAPGEN IBEX_CTL
set -euo pipefail
TEST_NAME=ctl_ecmp
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

sw=$1 gen=$2 ctl=$3
require_cmds jq dpdk-telemetry.py
[ "$(id -u)" -eq 0 ] || skip "needs root (EAL)"

tmp=$(mktemp -d /tmp/ibex-ecmp.XXXXXX)
on_exit rm -rf "$tmp"
on_exit kill_started
dpdk_prefix prefix ecmp
sock="$tmp/ctl.sock"
N=640 dst=02:00:00:00:0f:01

"$gen" -o "$tmp/in.pcap" -n "$N" -p 64 --kind roce --dst "$dst" >/dev/null
cat >"$tmp/switch.conf" <<CONF
port p0 dev net_pcap0
port p1 dev net_null0
port p2 dev net_null1
fdb learning off
ecmp up ports p1,p2
fdb static $dst ecmp up
CONF
start_bg swpid "$tmp/switch.log" "$sw" -l 0-1 --no-huge -m 1024 --no-pci \
	--file-prefix="$prefix" --log-level='lib.*:notice' \
	--vdev "net_pcap0,rx_pcap=$tmp/in.pcap" \
	--vdev "net_null0,no-rx=1" --vdev "net_null1,no-rx=1" \
	-- --config "$tmp/switch.conf" --ctl-socket "$sock"
c() { "$ctl" --socket "$sock" "$@"; }
tel() { echo "$1" | dpdk-telemetry.py -f "$prefix" 2>/dev/null | tail -1; }
wait_until_or_dead 120 "$swpid" c show ports ||
	{ show_log "$tmp/switch.log"; fail "the control socket did not answer"; }
sent_all() {
	c --json show ports | jq -e --argjson n "$N" \
		'.ports[1].tx_frames + .ports[2].tx_frames == $n' >/dev/null
}
wait_until 120 sent_all || { c show ports; fail "p1 + p2 did not send $N frames"; }

c --json show ports >"$tmp/ports.json"
c --json show ecmp >"$tmp/ecmp.json"
t1=$(jq '.ports[1].tx_frames' "$tmp/ports.json")
t2=$(jq '.ports[2].tx_frames' "$tmp/ports.json")
[ "$t1" -gt 0 ] && [ "$t2" -gt 0 ] || fail "a member sent nothing (p1 $t1, p2 $t2)"
jq -e --argjson n "$N" --argjson a "$t1" --argjson b "$t2" '
	.groups.up.frames == $n and .groups.up.none_up == 0 and
	(.groups.up.members | length) == 2 and
	.groups.up.members[0] == {"port": "p1", "frames": $a} and
	.groups.up.members[1] == {"port": "p2", "frames": $b}' "$tmp/ecmp.json" >/dev/null ||
	{ cat "$tmp/ecmp.json"; fail "show ecmp --json does not match the ports (p1 $t1, p2 $t2)"; }
check_ok "64 flows over group up: p1 $t1, p2 $t2 frames, as show ecmp counts them"

c show ecmp >"$tmp/ecmp.txt"
grep -Eq "^up +p1 +$t1 " "$tmp/ecmp.txt" && grep -Eq "^ +p2 +$t2 " "$tmp/ecmp.txt" ||
	{ cat "$tmp/ecmp.txt"; fail "show ecmp text"; }
tel /ibex/ecmp >"$tmp/tel.json"
jq -e --argjson n "$N" --argjson a "$t1" --argjson b "$t2" '
	."/ibex/ecmp".groups.up.frames == $n and
	."/ibex/ecmp".groups.up.none_up == 0 and
	."/ibex/ecmp".groups.up.members == {"0": {"port": "p1", "frames": $a},
					    "1": {"port": "p2", "frames": $b}}' \
	"$tmp/tel.json" >/dev/null ||
	{ cat "$tmp/tel.json"; fail "/ibex/ecmp does not match"; }
check_ok "show ecmp text and /ibex/ecmp agree"

c show fdb | grep -Eq "^$dst +1 ecmp:up +static" ||
	{ c show fdb; fail "show fdb does not name the group"; }
c --json show fdb | jq -e --arg m "$dst" \
	'.table[] | select(.mac == $m) | .ecmp == "up" and (has("port") | not)' >/dev/null ||
	{ c --json show fdb; fail "show fdb --json does not name the group"; }
check_ok "show fdb names the group"

rc=0
c ecmp del up >"$tmp/del.out" 2>&1 || rc=$?
[ "$rc" -ne 0 ] && grep -q "group up is in use by the fdb static entry" "$tmp/del.out" ||
	{ cat "$tmp/del.out"; fail "removing a group in use was not refused (rc $rc)"; }
c --json show ecmp | jq -e '.groups.up.frames > 0' >/dev/null ||
	fail "the refused removal changed the running groups"
check_ok "ecmp del of a group in use refused: $(head -1 "$tmp/del.out")"
