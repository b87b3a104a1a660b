#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# --help, --version and --check-config of every tool answer without EAL:
# no hugepages, no --no-huge, no devices (nothing from EAL in the output),
# before or after '--'. The usage lists every option (--gen, --gen-ports);
# an ibex-switch option given before '--' gets a hint of a few lines, not
# EAL's usage; a bad config is refused with file:line.
#
#   test_help.sh IBEX_SWITCH IBEX_PCAPGEN IBEX_CTL IBEX_GEN
set -euo pipefail
TEST_NAME=help
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

sw=$1 pcapgen=$2 ctl=$3 gen=$4
tmp=$(mktemp -d /tmp/ibex-help.XXXXXX)
on_exit rm -rf "$tmp"

# $1 label, then the command: exit 0 and no EAL line in the output.
no_eal() {
	local label=$1 rc=0
	shift
	"$@" >"$tmp/out" 2>&1 || rc=$?
	[ "$rc" -eq 0 ] || { cat "$tmp/out"; fail "$label: exit $rc"; }
	! grep -q "EAL:" "$tmp/out" || { cat "$tmp/out"; fail "$label: EAL ran"; }
	check_ok "$label: exit 0 without EAL"
}

for a in --help -h "-- --help" "-- -h"; do
	# shellcheck disable=SC2086
	no_eal "ibex-switch $a" "$sw" $a
	for o in --config --check-config --duration --idle-stop --stats-period \
		--wait-links --json --ctl-socket --metrics --gen --gen-ports --version; do
		grep -q -- "$o" "$tmp/out" || fail "ibex-switch $a: usage lacks $o"
	done
done
check_ok "the usage lists every option"

ver_re='^ibex-[a-z]+ [0-9]+\.[0-9]+\.[0-9]+ \(git [0-9a-f]'
for t in "$sw --version" "$sw -- --version" "$gen --version" \
	"$gen -- --version" "$ctl --version" "$pcapgen --version"; do
	# shellcheck disable=SC2086
	no_eal "$t" $t
	head -1 "$tmp/out" | grep -Eq "$ver_re" ||
		{ cat "$tmp/out"; fail "$t: no version line"; }
done
grep -q "22\.11\|DPDK [0-9]" "$tmp/out" || fail "no DPDK version"
no_eal "ibex-gen -- --help" "$gen" -- --help
grep -q -- "--engine" "$tmp/out" || fail "ibex-gen usage lacks --engine"
no_eal "ibex-pcapgen --help" "$pcapgen" --help

conf=$(dirname "$0")/../../../conf/lanes.conf
no_eal "--check-config FILE" "$sw" --check-config "$conf"
grep -q "configuration OK" "$tmp/out" || fail "--check-config: no OK"
no_eal "-- --config F --check-config" "$sw" -- --config "$conf" --check-config
no_eal "-- --check-config --gen" "$sw" -- --config "$conf" --check-config \
	--gen "--engine ring --ranks 2"
printf 'port p0 dev net_null0\nport p1 dev net_null1 speed fast\n' >"$tmp/bad.conf"
rc=0
"$sw" --check-config "$tmp/bad.conf" >"$tmp/out" 2>&1 || rc=$?
[ "$rc" -ne 0 ] && grep -q "bad.conf:2:" "$tmp/out" && ! grep -q "EAL:" "$tmp/out" ||
	{ cat "$tmp/out"; fail "bad config: rc $rc"; }
check_ok "a bad config is refused with file:line, without EAL"

rc=0
"$sw" --config "$conf" >"$tmp/out" 2>&1 || rc=$?
[ "$rc" -eq 2 ] && grep -q "goes after '--'" "$tmp/out" &&
	[ "$(wc -l <"$tmp/out")" -le 3 ] && ! grep -q "EAL:" "$tmp/out" ||
	{ cat "$tmp/out"; fail "forgotten '--': rc $rc"; }
check_ok "a forgotten '--' gets a short hint"
