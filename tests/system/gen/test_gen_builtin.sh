#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# ibex-switch --gen: 8 ranks on 8 in-process ring port pairs, ring
# all-reduce of 8 KiB messages, 100 iterations; then the same with rank 3
# starting every step 20 us late. Checks, from the JSON reports:
#   - every iteration completed, no frame lost or duplicated, tx = rx;
#   - every rank sent 2(n-1)S/n bytes per iteration, busbw = algbw x 2(n-1)/n;
#   - the straggler adds about d per step (14 steps) to the completion p50
#     (between 0.4 and 2 x 14 d: the network hides part of it), and the idle
#     rank time grows by at least 14 d;
#   - the plots are written when gnuplot is there.
#
#   test_gen_builtin.sh IBEX_SWITCH
set -euo pipefail
TEST_NAME=gen_builtin
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

sw=${1:?usage: test_gen_builtin.sh IBEX_SWITCH}
[ -x "$sw" ] || skip "no ibex-switch at $sw"
require_cmds python3
[ "$(nproc)" -ge 2 ] || skip "needs two CPUs"

tmp=$(mktemp -d /tmp/ibex-gen-test.XXXXXX)
on_exit rm -rf "$tmp"

run() {
	local name=$1; shift
	"$sw" --lcores 0@0,1@1,2@0 --no-huge -m 1024 --no-pci \
		--log-level='lib.*:notice' --file-prefix="ibexgent$$" -- \
		--gen "--engine ring --ranks 8 -b 8K -e 8K -n 100 -w 10 $* \
		--json $tmp/$name.json --plot $tmp/$name" >"$tmp/$name.log" 2>&1 ||
		{ show_log "$tmp/$name.log"; fail "ibex-switch --gen failed ($name)"; }
	[ -s "$tmp/$name.json" ] || { show_log "$tmp/$name.log"; fail "no JSON ($name)"; }
}

run plain
run straggler --straggler 3:20:1
grep -q '^ *8192 ' "$tmp/plain.log" || { show_log "$tmp/plain.log"; fail "no table row"; }

python3 - "$tmp/plain.json" "$tmp/straggler.json" <<'PY' || fail "report check"
import json, sys
a = json.load(open(sys.argv[1]))
b = json.load(open(sys.argv[2]))
n, d, steps = 8, 20.0, 14
for r in (a, b):
    s = r["sizes"][0]
    assert s["iters"] == 100 and s["failed"] == 0, s
    assert r["sequence"]["lost"] == 0 and r["sequence"]["duplicate"] == 0
    assert r["frames"]["tx"] == r["frames"]["rx"], r["frames"]
    assert s["tx_bytes_rank0"] == 2 * (n - 1) * s["bytes"] // n, s
    assert abs(s["busbw_gbs"] - s["algbw_gbs"] * 2 * (n - 1) / n) < 1e-5
    assert len(s["step_us"]) == steps and len(s["rank_us"]) == n
sa, sb = a["sizes"][0], b["sizes"][0]
grow = sb["ct_p50_us"] - sa["ct_p50_us"]
idle = sb["idle_us"] - sa["idle_us"]
print("gen_builtin: p50 %.1f -> %.1f us (+%.1f = %.2f d per step), "
      "idle %.1f -> %.1f us, late steps %d"
      % (sa["ct_p50_us"], sb["ct_p50_us"], grow, grow / d / steps,
         sa["idle_us"], sb["idle_us"], sb["late_steps"]))
assert 0.4 * steps * d <= grow <= 2.0 * steps * d, grow
assert idle >= steps * d, idle
assert sb["late_steps"] >= 110 * steps
PY
check_ok "8-rank ring all-reduce: accounting, zero loss, straggler cost"

if command -v gnuplot >/dev/null 2>&1; then
	for f in completion_cdf.png completion_cdf.svg latency_cdf.png latency_cdf.svg; do
		[ -s "$tmp/straggler/$f" ] || fail "plot $f missing"
	done
	check_ok "plots written"
fi
