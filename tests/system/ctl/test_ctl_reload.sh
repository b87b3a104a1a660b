#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# System test of config reloads, by SIGHUP and by "ibex-ctl reload":
#   - a file with a bad line, a file that is wrong as a whole, and a file
#     that changes what cannot change live are each refused with
#     file:line: reason, the switch keeps running and its config is the
#     one it had;
#   - a good file is applied: its static FDB entry appears, the port it
#     sets down is down, "show config" lists its statements.
# Also: the default socket path is the DPDK runtime dir of the file prefix,
# mode 0600 in a 0700 directory, and ibex-ctl finds it with --file-prefix.
#
#   test_ctl_reload.sh IBEX_SWITCH IBEX_PCAPGEN IBEX_CTL
set -euo pipefail
TEST_NAME=ctl_reload
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

sw=$1 ctl=$3
[ "$(id -u)" -eq 0 ] || skip "needs root (DPDK runtime dir under /var/run)"

tmp=$(mktemp -d /tmp/ibex-reload.XXXXXX)
on_exit rm -rf "$tmp"
dpdk_prefix prefix reload
conf="$tmp/switch.conf"

cat >"$conf" <<EOF
# two ports, one static station
port p0 dev net_null0 vlans 1-10
port p1 dev net_null1 vlans 1-10
fdb static 02:00:00:00:0b:00 port p1
EOF
cp "$conf" "$tmp/good1.conf"

start_bg swpid "$tmp/switch.log" "$sw" -l 0-1 --no-huge -m 1024 --no-pci \
	--file-prefix="$prefix" --log-level='lib.*:notice' \
	--vdev "net_null0,no-rx=1" --vdev "net_null1,no-rx=1" \
	-- --config "$conf"
c() { "$ctl" --file-prefix "$prefix" "$@"; }
if ! wait_until_or_dead 60 "$swpid" c show ports; then
	show_log "$tmp/switch.log"
	fail "no control socket at the default path"
fi
sock="/var/run/dpdk/$prefix/ibex-ctl.sock"
[ -S "$sock" ] || fail "$sock is not a socket"
[ "$(stat -c %a "$sock")" = 600 ] && [ "$(stat -c %a "$(dirname "$sock")")" = 700 ] ||
	fail "default socket $(stat -c %a "$sock") in dir $(stat -c %a "$(dirname "$sock")"), want 600 in 700"
check_ok "default socket $sock, 0600 in a 0700 dir, found by --file-prefix"

c show config | grep -v '^#' >"$tmp/config.start"
grep -v '^#' "$conf" >"$tmp/want"
cmp -s "$tmp/want" "$tmp/config.start" || { cat "$tmp/config.start"; fail "show config is not the file"; }

# sighup_refused FILE WANT: install FILE, SIGHUP, expect WANT in the log.
log_lines=0
new_log_has() { tail -n +"$((log_lines + 1))" "$tmp/switch.log" | grep -q "$1"; }
sighup() {
	cp "$1" "$conf"
	log_lines=$(wc -l <"$tmp/switch.log")
	kill -HUP "$swpid"
	# Re-read the log on every try: a <(...) would be read once.
	wait_until 60 new_log_has "SIGHUP" || fail "no SIGHUP line in the log"
	is_alive "$swpid" || fail "the switch died on SIGHUP"
	tail -n +"$((log_lines + 1))" "$tmp/switch.log" | grep SIGHUP
}
unchanged() {
	c show config | grep -v '^#' | cmp -s - "$tmp/config.start" ||
		fail "$1: the running config changed"
	c show ports | grep -q "^p0 .* up " || fail "$1: p0 is not up"
}
# refused FILE WANT: by SIGHUP and by "reload", same message.
refused() {
	local line out rc=0

	line=$(sighup "$1")
	case "$line" in
	*"SIGHUP: reload: $conf:$2"*"running configuration is unchanged"*) ;;
	*) fail "SIGHUP with $(basename "$1"): '$line' lacks '$conf:$2'" ;;
	esac
	unchanged "SIGHUP $(basename "$1")"
	out=$(c reload 2>&1) || rc=$?
	[ "$rc" -eq 1 ] || fail "reload of $(basename "$1"): exit $rc, want 1"
	case "$out" in
	*"reload: $conf:$2"*) ;;
	*) fail "reload of $(basename "$1"): '$out' lacks '$conf:$2'" ;;
	esac
	unchanged "reload $(basename "$1")"
	check_ok "refused: $(basename "$1") -> ${out#ibex-ctl: }"
}

# A line the grammar refuses.
sed 's/^port p1 dev net_null1 vlans 1-10$/port p1 dev net_null1 vlans 1-10 pvid 4095/' \
	"$tmp/good1.conf" >"$tmp/bad-line.conf"
refused "$tmp/bad-line.conf" "3: port p1: pvid"
# Lines that parse but do not fit together: the static entry's vlan.
sed 's/^fdb static 02:00:00:00:0b:00 port p1$/fdb static 02:00:00:00:0b:00 port p1 vlan 20/' \
	"$tmp/good1.conf" >"$tmp/bad-whole.conf"
refused "$tmp/bad-whole.conf" "4: fdb static 02:00:00:00:0b:00 vlan 20: port p1 is not a member"
# Valid, but it moves a port to another device: needs a restart.
sed 's/net_null1/net_null7/' "$tmp/good1.conf" >"$tmp/bad-live.conf"
refused "$tmp/bad-live.conf" "3: port p1: ports cannot be renamed or moved live"

# A good file: applied by SIGHUP.
cat "$tmp/good1.conf" - >"$tmp/good2.conf" <<EOF
fdb static 02:00:00:00:0b:01 port p0 vlan 5
port p0 admin down
EOF
line=$(sighup "$tmp/good2.conf")
case "$line" in *"SIGHUP: reloaded $conf"*) ;; *) fail "good file: '$line'" ;; esac
c show fdb | grep -q "^02:00:00:00:0b:01 .* 5 p0 .*static" || fail "new static entry missing"
c show ports | grep -q "^p0 .* down " || fail "p0 not down"
c show config | grep -v '^#' | cmp -s - <(grep -v '^#' "$tmp/good2.conf") ||
	fail "show config is not the new file"
check_ok "good file applied by SIGHUP (static entry, admin down, show config)"

# And back by the command.
cp "$tmp/good1.conf" "$conf"
c reload || fail "reload of the first file refused"
c show fdb | grep -q "02:00:00:00:0b:01" && fail "static entry not removed by reload"
c show ports | grep -q "^p0 .* up " || fail "p0 not up again"
check_ok "reload command applied the first file again"

stop_pid "$swpid" INT
[ "$WAIT_RC" -eq 0 ] || { show_log "$tmp/switch.log"; fail "switch exit status $WAIT_RC"; }
echo PASS
