#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# UEC CBFC through a real ibex-switch process (docs/cbfc.md): the built-in
# generator's ranks 1..15 (ports gen1..gen15) send flat out to rank 0
# (gen0), whose port is shaped to 1 Gb/s, each on its own class: DSCP,
# SL and lane C = rank - 1 (`--class-by dscp`, `sl-from dscp`), so all
# fifteen lanes (VCs) of every port, as many as an ibex port has, are
# lossless and busy. Every port runs `fc cbfc`; the generator's ranks
# obey the send rule and return CF_Updates as a NIC would.
#
#   at least CBFC_MIN_FRAMES (10 million) frames, and from the generator's
#   and the switch's JSON: tx = rx, no sequence error, no drop of any
#   reason in the switch; the send rule held frames back both on gen0's
#   egress (rank 0 takes 64 credits a VC) and at the senders (else the
#   run did not test it), every lane of gen0 had credits in use and
#   never more than its limit, CF_Updates went both ways.
#
#   test_cbfc_incast.sh IBEX_SWITCH
# Environment: CBFC_MIN_FRAMES (10000000), CBFC_SECS (700) the longest
# the run may take.
set -euo pipefail
TEST_NAME=cbfc_incast
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

sw=${1:?usage: test_cbfc_incast.sh IBEX_SWITCH}
[ -x "$sw" ] || skip "no ibex-switch at $sw"
require_cmds python3
[ "$(nproc)" -ge 2 ] || skip "needs two CPUs"
secs=${CBFC_SECS:-700}
min_frames=${CBFC_MIN_FRAMES:-10000000}
ranks=16
lanes=15

tmp=$(mktemp -d /tmp/ibex-cbfc-test.XXXXXX)
on_exit rm -rf "$tmp"

{
	echo "buffer total 16MB"
	map=""
	for ((v = 0; v < lanes; v++)); do map+="${map:+,}$v:$v"; done
	for ((p = 0; p < ranks; p++)); do
		shape=""
		[ "$p" -eq 0 ] && shape="shape 1G"
		echo "port gen$p vls $lanes fc cbfc sl-from dscp $shape"
		# DSCP C is SL C is lane C (sl2vl's default: SL s -> VL s)
		echo "dscp2sl gen$p $map"
		for ((v = 0; v < lanes; v++)); do
			echo "lane gen$p vl $v lossless reserved 32KB"
		done
	done
	# rank 0 takes 8 KB a VC: the switch's send rule towards it holds
	# back, its lanes fill and hold back the senders in turn
	echo "cbfc gen0 limit 64"
} >"$tmp/cbfc.conf"

flows=""
for ((r = 1; r < ranks; r++)); do flows+="${flows:+,}$r:0@$((r - 1))"; done

"$sw" --lcores 0@0,1@1,2@0 --no-huge -m 2048 --no-pci \
	--log-level='lib.*:notice' --file-prefix="ibexcbfc$$" -- \
	--config "$tmp/cbfc.conf" --json "$tmp/sw.json" --gen-ports $ranks \
	--gen "--engine rate --ranks $ranks --flow $flows --class-by dscp \
	--fc cbfc --cbfc-limit 256 --size 128 --duration $secs \
	--frames $min_frames --json $tmp/gen.json" >"$tmp/log" 2>&1 || {
	# ibex-gen exits 3 when a frame was lost: judged below
	[ -s "$tmp/gen.json" ] ||
		{ show_log "$tmp/log"; fail "ibex-switch --gen failed"; }
}
[ -s "$tmp/sw.json" ] || { show_log "$tmp/log"; fail "no switch JSON"; }

python3 - "$tmp" "$min_frames" <<'PY' || { show_log "$tmp/log"; fail "accounting"; }
import json, sys
tmp, min_frames = sys.argv[1], int(sys.argv[2])
g = json.load(open(f"{tmp}/gen.json"))
s = json.load(open(f"{tmp}/sw.json"))
drops = sum(sum(p["drops"].values()) for p in s["ports"])
f, q, cb = g["frames"], g["sequence"], g["flow_control"]["cbfc"]
ports = {p["port"]: p for p in s["cbfc"]}
out = ports["gen0"]
print("cbfc_incast: sent %d received %d lost %d switch drops %d; %.0f "
      "frames/s; gen0 egress: %d send-rule refusals, credits used at most "
      "%d of %d (by VC %s); senders held back %d times; CF_Updates to "
      "ibex %d, from ibex %d; CC_Updates from ibex %d" % (
      f["tx"], f["rx"], f["tx"] - f["rx"], drops,
      f["rx"] / g["rate"]["elapsed_s"], out["tx_blocked"],
      out["sender_credits_used_watermark"],
      sum(v["vc_credit_limit"] for v in out["vcs"]),
      [v["vc_credits_used_watermark"] for v in out["vcs"]], cb["stalls"],
      cb["cf_update_tx"], cb["cf_update_rx"], cb["cc_update_rx"]))
assert f["tx"] >= min_frames, f"only {f['tx']} frames sent"
assert f["tx"] == f["rx"], f
assert q["lost"] == 0 and q["out_of_order"] == 0 and q["duplicate"] == 0, q
assert drops == 0, [p["drops"] for p in s["ports"]]
# The incast was held back by the send rule on every lane.
assert out["tx_blocked"] > 0, out
assert len(out["vcs"]) == 15, out["vcs"]
for v in out["vcs"]:
    assert v["vc_credits_used_watermark"] > 0, v
    assert v["vc_credits_used_watermark"] <= v["vc_credit_limit"], v
assert cb["stalls"] > 0, cb
assert out["cf_update_rx"] > 0 and cb["cf_update_rx"] > 0, (out, cb)
assert cb["cf_update_tx"] > 0, cb
for name, p in ports.items():
    assert p["cf_update_bad"] == 0 and p["cc_update_bad"] == 0, (name, p)
PY
check_ok "cbfc incast 15 -> 1 on 15 lossless VCs: zero loss, the send rule engaged on each"
