#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A CBFC credit profile bounds its VC on the data path: frames from a
# net_null port go to a CBFC port whose peer never frees a credit
# (net_null), so lossless VC 0 fills to what its profile allows (reserved
# 30 and at most 50 of pool 0, not the 512 its lane would give it) and
# stays there; show cbfc names the profile and pool and the pool's use.
#   test_cbfc_profile.sh IBEX_SWITCH IBEX_CTL
set -euo pipefail
TEST_NAME=cbfc_profile
. "$(dirname "$0")/../lib.sh"

sw=$1 ctl=$2
require_cmds jq
[ "$(id -u)" -eq 0 ] || skip "needs root (EAL)"

tmp=$(mktemp -d /tmp/ibex-cbfcpf.XXXXXX)
on_exit rm -rf "$tmp"
on_exit kill_started
dpdk_prefix prefix cbpf
sock="$tmp/ctl.sock"

cat >"$tmp/switch.conf" <<CONF
port p0 dev net_null0
port p1 dev net_null1 vls 2 fc cbfc
lane p1 vl 0 lossless reserved 64KB
cbfc p1 port-limit 1000
cbfc p1 pool 0 size 200
cbfc p1 profile 0 pool 0 reserved 30 static 50
cbfc p1 vc 0 profile 0
fdb static 00:00:00:00:00:00 port p1
CONF
eal=(-l 0-1 --no-huge -m 1024 --no-pci --log-level='lib.*:notice'
     --vdev net_null0 --vdev "net_null1,no-rx=1")
start_bg swpid "$tmp/switch.log" "$sw" "${eal[@]}" --file-prefix="$prefix" \
	-- --config "$tmp/switch.conf" --ctl-socket "$sock"
c() { "$ctl" --socket "$sock" "$@"; }
held_back() {
	c --json show cbfc >"$tmp/cbfc.json" 2>/dev/null &&
		[ "$(jq '.cbfc[0].tx_blocked' "$tmp/cbfc.json")" -gt 0 ]
}
if ! wait_until_or_dead 120 "$swpid" held_back; then
	show_log "$tmp/switch.log"
	fail "p1's send rule held nothing back"
fi
# Nothing frees a credit: once held back, the VC stays full.
jq -c '.cbfc[0] | {pools, vc: .vcs[0]}' "$tmp/cbfc.json"
jq -e '.cbfc[0].vcs[0] | .profile == 0 and .pool == "0" and
	.vc_credits_used == 80 and .vc_credit_limit == 80 and
	.vc_credits_used_watermark == 80' "$tmp/cbfc.json" >/dev/null ||
	fail "VC 0 is not held at its profile's 30 + 50 credits"
jq -e '.cbfc[0].pools == [{"pool": "0", "size": 200, "shared": 170,
	"used": 50}]' "$tmp/cbfc.json" >/dev/null ||
	fail "pool 0 does not show 50 of its 170 shared credits in use"
check_ok "VC 0 held at 80 credits by profile 0 (its lane alone: 512)"
c show cbfc >"$tmp/cbfc.txt"
grep -Eq '^p1 +0 +0 +0 ' "$tmp/cbfc.txt" ||
	{ cat "$tmp/cbfc.txt"; fail "show cbfc's text lacks the profile and pool"; }
check_ok "show cbfc names VC 0's profile and pool"
echo PASS
