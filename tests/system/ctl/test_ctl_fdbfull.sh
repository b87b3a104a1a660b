#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# A live change of the static FDB entries is applied whole or not at all
# (docs/control.md, "add fdb"), through ibex-ctl and reload, while
# learning keeps trying to fill the table.
#
# fdb max-entries 6, ageing never, two static entries (0a:01, 0a:02 on
# p1); p0 receives an endless load from four stations (net_pcap,
# infinite_rx) and then from more: four learned, the table full, the
# others refused by the size limit over and over. Then:
#  - "set fdb static 0a:03" needs one entry: refused, with the numbers;
#  - a reload of a file that has 0a:03 and 0a:04 instead of 0a:01 needs
#    one more than the room 0a:01 leaves: refused, with file:line;
#  - after each, show config is the old text and show fdb the old table;
#  - a file with 0a:03 instead of 0a:01 fits and is taken; so is a static
#    entry over a learned station (in place).
# Before, the reload deleted 0a:01, added 0a:03 and failed on 0a:04: the
# switch had half of each set while show config still named 0a:01.
#
#   test_ctl_fdbfull.sh IBEX_SWITCH IBEX_PCAPGEN IBEX_CTL
set -euo pipefail
TEST_NAME=ctl_fdbfull
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

sw=$1 ctl=$3
require_cmds python3
[ "$(id -u)" -eq 0 ] || skip "needs root (EAL)"
# Every wait is for a condition; this only bounds a switch that is stuck.
cap=${WAIT_CAP:-60}
tmp=$(mktemp -d /tmp/ibex-fdbfull.XXXXXX)
on_exit rm -rf "$tmp"
dpdk_prefix prefix ff
sock="$tmp/ctl.sock"

# Broadcasts from stations 02:00:00:00:1e:01..10 (EtherType 0x88b7, so
# no L3 check drops them before they are learned).
python3 - "$tmp/src.pcap" <<'PY'
import struct, sys
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    for i in range(16):
        frame = b"\xff" * 6 + bytes([2, 0, 0, 0, 0x1e, i + 1]) + \
            b"\x88\xb7" + bytes(46)
        f.write(struct.pack("<IIII", 0, i, len(frame), len(frame)) + frame)
PY
conf_with() {
	printf 'port p0 dev net_pcap0\nport p1 dev net_null1\n'
	printf 'fdb max-entries 6\nfdb ageing 0\n'
	for m in "$@"; do
		printf 'fdb static 02:00:00:00:%s port p1\n' "$m"
	done
}
conf_with 0a:01 0a:02 >"$tmp/switch.conf"
start_bg swpid "$tmp/switch.log" "$sw" -l 0-1 --no-huge -m 1024 --no-pci \
	--file-prefix="$prefix" --log-level='lib.*:notice' \
	--vdev "net_pcap0,rx_pcap=$tmp/src.pcap,infinite_rx=1" \
	--vdev "net_null1,no-rx=1" \
	-- --config "$tmp/switch.conf" --ctl-socket "$sock"
c() { "$ctl" --socket "$sock" "$@"; }
if ! wait_until_or_dead "$cap" "$swpid" c show ports; then
	show_log "$tmp/switch.log"
	fail "the control socket did not answer"
fi
# The table's entries, one a line, sorted (no counters: they move).
table() { c show fdb | grep -E '^[0-9a-f]{2}:' | sort; }
full_refused() {
	local s

	s=$(c show fdb | tail -1)
	[[ $s == "6 entries (2 static), learned 4,"* ]] || return 1
	[[ $s =~ refused\ \(full\)\ ([0-9]+) ]] && [ "${BASH_REMATCH[1]}" -gt 0 ]
}
wait_until "$cap" full_refused ||
	{ c show fdb; fail "the FDB did not fill (6 entries, 4 learned)"; }
c show config >"$tmp/config.0"
table >"$tmp/table.0"
info "full: $(c show fdb | tail -1)"

# refused WHAT CMD... -> its error text in $out; config and table kept.
refused() {
	local what=$1

	shift
	if out=$("$@" 2>&1); then
		fail "$what: taken on a full table"
	fi
	c show config | diff "$tmp/config.0" - >/dev/null ||
		fail "$what: show config changed"
	table | diff "$tmp/table.0" - ||
		fail "$what: the refused change changed the FDB"
	info "$what: refused: $out"
}
expect_in() {
	[[ $out == *"$1"* ]] || fail "reason without '$1': $out"
}

refused "set" c set fdb static 02:00:00:00:0a:03 port p1
expect_in "set: fdb static 02:00:00:00:0a:03 vlan 1: the change adds 1 new entry, the table has room for 0 (fdb max-entries 6: 2 static, 4 learned; the change removes 0); nothing changed"

# 0a:03 and 0a:04 for 0a:01: two new, room for one (the one 0a:01 leaves).
conf_with 0a:03 0a:04 0a:02 >"$tmp/switch.conf.new"
mv "$tmp/switch.conf.new" "$tmp/switch.conf"
refused "reload" c reload
expect_in "reload: $tmp/switch.conf:5: fdb static 02:00:00:00:0a:03 vlan 1: the change adds 2 new entries, the table has room for 1 (fdb max-entries 6: 2 static, 4 learned; the change removes 1); nothing changed"
check_ok "a change that does not fit is refused whole, with its reason"

# 0a:03 alone for 0a:01: fits.
conf_with 0a:03 0a:02 >"$tmp/switch.conf.new"
mv "$tmp/switch.conf.new" "$tmp/switch.conf"
c reload || fail "a reload that fits was refused"
c show config | grep -q '^fdb static 02:00:00:00:0a:03 port p1' ||
	fail "show config lacks the new entry"
table | grep -Eq '^02:00:00:00:0a:03 +1 p1 +static$' ||
	{ table; fail "0a:03 is not static on p1"; }
! table | grep -q '^02:00:00:00:0a:01' || fail "0a:01 is still in the FDB"
[[ $(c show fdb | tail -1) == "6 entries (2 static), learned 4,"* ]] ||
	fail "after the swap: $(c show fdb | tail -1)"
# A static entry over a learned station needs no room.
c set fdb static 02:00:00:00:1e:01 port p1 ||
	fail "a static entry over a learned station was refused"
table | grep -Eq '^02:00:00:00:1e:01 +1 p1 +static$' ||
	{ table; fail "1e:01 is not static on p1"; }
[[ $(c show fdb | tail -1) == "6 entries (3 static), learned 4,"* ]] ||
	fail "after static over learned: $(c show fdb | tail -1)"
check_ok "changes that fit are taken, in place where a key stays"

stop_pid "$swpid" TERM
[ "$WAIT_RC" -eq 0 ] || { show_log "$tmp/switch.log"; fail "switch exit status $WAIT_RC"; }
