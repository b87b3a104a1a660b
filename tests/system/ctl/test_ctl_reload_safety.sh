#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Reload safety: a reload that looks like an accident is refused and the
# running switch keeps every port's settings, VLAN isolation included.
#
# Three ports: p0 receives an endless VLAN 10 broadcast load (net_pcap,
# infinite_rx, untagged frames, pvid 10); p1 is in VLAN 10 and gets the
# flood; p2 is isolated in VLAN 20 (pvid 20) and must get none of it. p1
# also carries lanes, ECN and credit settings of its own.
#
# Refused, by SIGHUP and by "ibex-ctl reload", each with its reason:
# an empty file, a file of comments, a file of one global statement
# ("fdb ageing 300"), and the good file cut short in its last line (no
# newline). After each: show config, show credits/pfc and the ECN
# settings are the ones at start, and while p1's counter grows by
# another LOAD_STEP frames (the load demonstrably runs), p2 sends 0.
# Then "reload --force" of the global-only file is accepted: every port
# falls back to the defaults (VLAN 1) and p2 starts to get the
# broadcasts, which shows the check could fail. The good file, reloaded,
# isolates p2 again.
#
#   test_ctl_reload_safety.sh IBEX_SWITCH IBEX_PCAPGEN IBEX_CTL
set -euo pipefail
TEST_NAME=ctl_reload_safety
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

sw=$1 pcapgen=$2 ctl=$3
[ "$(id -u)" -eq 0 ] || skip "needs root (DPDK runtime dir under /var/run)"
require_cmds jq
# Frames p1 must receive between two looks at p2.
step=${LOAD_STEP:-20000}
# Every wait is for a condition; this only bounds a switch that is stuck.
cap=${WAIT_CAP:-60}

tmp=$(mktemp -d /tmp/ibex-reload-safety.XXXXXX)
on_exit rm -rf "$tmp"
dpdk_prefix prefix rs
conf="$tmp/switch.conf"

"$pcapgen" -o "$tmp/bc10.pcap" -n 64 -p 1 --kind udp --broadcast \
	--src 02:00:00:00:0a:01 >/dev/null
cat >"$tmp/good.conf" <<EOF
# VLAN 10: p0 (the load comes in here) and p1; p2 alone in VLAN 20
port p0 dev net_pcap0 pvid 10 vlans 10
port p1 dev net_null1 pvid 10 vlans 10 vls 4
ecn p1 vl all kmin 20KB kmax 80KB pmax 0.1
credit p1 period-us 20
port p2 dev net_null2 pvid 20 vlans 20
port p1 vlans 10,30
EOF
cp "$tmp/good.conf" "$conf"

start_bg swpid "$tmp/switch.log" "$sw" -l 0-1 --no-huge -m 1024 --no-pci \
	--file-prefix="$prefix" --log-level='lib.*:notice' \
	--vdev "net_pcap0,rx_pcap=$tmp/bc10.pcap,infinite_rx=1" \
	--vdev "net_null1,no-rx=1" --vdev "net_null2,no-rx=1" \
	-- --config "$conf"
c() { "$ctl" --file-prefix "$prefix" "$@"; }
if ! wait_until_or_dead "$cap" "$swpid" c show ports; then
	show_log "$tmp/switch.log"
	fail "the control socket did not answer"
fi

tx() { c --json show ports "$1" | jq -e '.ports[0].tx_frames'; }
tx_at_least() { [ "$(tx "$1")" -ge "$2" ]; }
# isolated LABEL: p1 gets another $step frames, p2 none meanwhile.
isolated() {
	local p1 p2

	p1=$(tx p1)
	wait_until "$cap" tx_at_least p1 $((p1 + step)) ||
		fail "$1: the load stopped (p1 at $(tx p1) frames, was $p1)"
	p2=$(tx p2)
	[ "$p2" -eq 0 ] || fail "$1: isolated p2 sent $p2 frames of VLAN 10"
	info "$1: p1 +$(($(tx p1) - p1)) frames, p2 0"
}
# (the settings only: not the meta block and time ibex-ctl puts first)
settings() {
	c show config | grep -v '^#'
	c --json show credits | jq -c 'del(.meta, .time, .time_unix)'
	c --json show pfc | jq -c 'del(.meta, .time, .time_unix)'
	c --json show ecn | jq -c '[.. | objects | select(has("kmin")) |
		{port, vl, enabled, kmin, kmax, pmax}]'
}

isolated "at start"
settings >"$tmp/settings.start"
# show ecn reads the curves the workers run (the built tables): p1's as
# configured, p0's the default for its rate (25 Gb/s: 100/400 kB, 0.2).
curve() { c --json show ecn "$1" | jq -c ".ecn[] | select(.vl == $2) |
	[.enabled, .kmin, .kmax, .pmax, .wq_log]"; }
[ "$(curve p1 3)" = '[true,20480,81920,0.1,0]' ] ||
	fail "show ecn p1 vl 3: $(curve p1 3), want the configured curve"
[ "$(curve p0 0)" = '[true,100000,400000,0.2,0]' ] ||
	fail "show ecn p0 vl 0: $(curve p0 0), want the 25G default"

log_lines=0
new_log_has() { tail -n +"$((log_lines + 1))" "$tmp/switch.log" | grep -q "$1"; }
# refused NAME WANT: install $tmp/NAME as the config file; SIGHUP and
# "reload" must both refuse it with WANT and change nothing.
refused() {
	local name=$1 want=$2 line out rc=0

	cp "$tmp/$name" "$conf"
	log_lines=$(wc -l <"$tmp/switch.log")
	kill -HUP "$swpid"
	wait_until "$cap" new_log_has "SIGHUP" || fail "$name: no SIGHUP line in the log"
	is_alive "$swpid" || fail "$name: the switch died on SIGHUP"
	line=$(tail -n +"$((log_lines + 1))" "$tmp/switch.log" | grep SIGHUP)
	case "$line" in
	*"SIGHUP: reload: $conf$want"*"running configuration is unchanged"*) ;;
	*) fail "SIGHUP with $name: '$line' lacks '$conf$want'" ;;
	esac
	isolated "after SIGHUP with $name"
	out=$(c reload 2>&1) || rc=$?
	[ "$rc" -eq 1 ] || fail "reload of $name: exit $rc, want 1 ($out)"
	case "$out" in
	*"reload: $conf$want"*"reload --force"*) ;;
	*) fail "reload of $name: '$out' lacks '$conf$want'" ;;
	esac
	isolated "after reload of $name"
	settings | cmp -s - "$tmp/settings.start" ||
		{ settings | diff "$tmp/settings.start" - >&2; fail "$name: settings changed"; }
	check_ok "refused: $name -> ${out#ibex-ctl: }"
}

: >"$tmp/empty.conf"
refused empty.conf ": holds no statement"
printf '# the file, commented out\n#port p0 dev net_pcap0\n\n   # end\n' \
	>"$tmp/comments.conf"
refused comments.conf ": holds no statement"
echo "fdb ageing 300" >"$tmp/global.conf"
refused global.conf ": names no port, so port p0 would lose its pvid, vlans"
# Cut in the middle of the last line's VLAN list: "10,30" became "10,3",
# which parses and validates; only the missing newline tells.
head -c -2 "$tmp/good.conf" >"$tmp/cut.conf"
refused cut.conf ":7: the last line has no newline"

# --force: applied; every port in VLAN 1 now, p2 gets the flood.
cp "$tmp/global.conf" "$conf"
c reload --force >/dev/null || fail "reload --force refused"
wait_until "$cap" tx_at_least p2 "$step" ||
	fail "after reload --force p2 still sends $(tx p2) frames"
check_ok "reload --force applied the global-only file: p2 got $(tx p2) broadcast frames"
c show config | grep -qx "fdb ageing 300" || fail "show config after --force"

# And the good file isolates p2 again.
cp "$tmp/good.conf" "$conf"
c reload >/dev/null || fail "reload of the good file refused"
a=$(tx p2)
p1=$(tx p1)
wait_until "$cap" tx_at_least p1 $((p1 + step)) || fail "the load stopped"
b=$(tx p2)
# Frames already queued for p2 when the change came may still leave.
[ $((b - a)) -le 1024 ] || fail "p2 still gets VLAN 10: $a -> $b"
p1=$(tx p1)
wait_until "$cap" tx_at_least p1 $((p1 + step)) || fail "the load stopped"
[ "$(tx p2)" -eq "$b" ] || fail "p2 still gets VLAN 10: $b -> $(tx p2)"
settings | cmp -s - "$tmp/settings.start" || fail "good file: settings differ from the start"
check_ok "the good file isolated p2 again"

stop_pid "$swpid" INT
[ "$WAIT_RC" -eq 0 ] || { show_log "$tmp/switch.log"; fail "switch exit status $WAIT_RC"; }
echo PASS
