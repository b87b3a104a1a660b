#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The aggregation dissector (tests/system/ibexagg.lua) against packets the
# codec built (agg_pcap): every header field and the elements as tshark
# prints them, and the malformed packet flagged.
#
#   test_agg_dissector.sh AGG_PCAP
set -euo pipefail
TEST_NAME=agg_dissector
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

agg_pcap=$1
lua=$(cd "$(dirname "$0")/.." && pwd)/ibexagg.lua
require_cmds tshark
tmp=$(mktemp -d /tmp/ibex-agg.XXXXXX)
on_exit rm -rf "$tmp"

"$agg_pcap" "$tmp/agg.pcap" || fail "agg_pcap could not write the pcap"
tshark -X "lua_script:$lua" -r "$tmp/agg.pcap" -Y ibexagg -T fields \
	-E separator='|' -e ibexagg.version -e ibexagg.type \
	-e ibexagg.dtype -e ibexagg.count -e ibexagg.job -e ibexagg.offset \
	-e ibexagg.set -e ibexagg.slot -e ibexagg.child -e ibexagg.seq \
	-e ibexagg.retx -e ibexagg.int32 -e ibexagg.fp32 \
	>"$tmp/f" 2>"$tmp/err" || { show_log "$tmp/err"; fail "tshark failed"; }
want="1|1|1|4|0xa1b2c3d4|4096|1|5|3|7|1|1,-2,3,-4|
1|2|2|3|0x00000007|0|0|0|65535|2|0||1.5,-0.25,100000000
2|1|1|4|0xa1b2c3d4|4096|1|5|3|7|1||"
# tshark prints the job as "0x... (decimal)" with base.HEX_DEC and true
# or 1 for a boolean, by version: keep the hex, say 1 for true, 0 false
got=$(sed -e 's/ ([0-9]*)//g' -e 's/|True|/|1|/g; s/|False|/|0|/g' \
	-e 's/1e+08/100000000/g' "$tmp/f")
if [ "$got" != "$want" ]; then
	printf 'got:\n%s\nwant:\n%s\n' "$got" "$want" >&2
	fail "fields differ"
fi
check_ok "contribution and result decoded field by field"
tshark -X "lua_script:$lua" -r "$tmp/agg.pcap" -Y ibexagg.malformed \
	-T fields -e frame.number >"$tmp/bad" 2>/dev/null
[ "$(cat "$tmp/bad")" = 3 ] || fail "malformed frames: $(tr '\n' ' ' <"$tmp/bad"), want 3"
check_ok "the version-2 packet flagged malformed, no other"
