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
#   - a sweep of three sizes (4, 16, 64 KiB) reports a latency object per
#     size (JSON sizes[i].latency, CSV lat_* columns, the text table):
#     min <= p50 <= p99 <= p99.9 <= max, more frames for a bigger message,
#     the sizes' frames summing to the whole run's;
#   - the plots are written when gnuplot is there, the latency plot with
#     one curve per size.
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
		--gen "--engine ring --ranks 8 ${SIZES:--b 8K -e 8K -n 100 -w 10} $* \
		--json $tmp/$name.json --csv $tmp/$name.csv --plot $tmp/$name" \
		>"$tmp/$name.log" 2>&1 ||
		{ show_log "$tmp/$name.log"; fail "ibex-switch --gen failed ($name)"; }
	[ -s "$tmp/$name.json" ] || { show_log "$tmp/$name.log"; fail "no JSON ($name)"; }
}

run plain
run straggler --straggler 3:20:1
SIZES="-b 4K -e 64K -f 4 -n 20 -w 3" run sweep
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

python3 - "$tmp/sweep.json" "$tmp/sweep.csv" <<'PY' || { show_log "$tmp/sweep.log"; fail "per-size latency check"; }
import csv, json, sys
r = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[2])))
sizes = r["sizes"]
assert [s["bytes"] for s in sizes] == [4096, 16384, 65536], sizes
assert len(rows) == len(sizes), rows
total, prev = 0, 0
for s, row in zip(sizes, rows):
    assert s["iters"] == 20 and s["failed"] == 0, s
    l = s["latency"]
    assert set(l) >= {"frames", "min_ns", "p50_ns", "p99_ns", "p999_ns", "max_ns", "mean_ns"}, l
    assert l["frames"] > prev, (prev, l)        # a bigger message, more frames
    assert 0 < l["min_ns"] <= l["p50_ns"] <= l["p99_ns"] <= l["p999_ns"] <= l["max_ns"], l
    assert l["min_ns"] <= l["mean_ns"] <= l["max_ns"], l
    assert int(row["lat_frames"]) == l["frames"], (row, l)
    assert abs(float(row["lat_p99_ns"]) - l["p99_ns"]) < 0.11, (row, l)
    prev = l["frames"]
    total += l["frames"]
w = r["latency"]
assert total == w["frames"], (total, w)
assert w["frames"] <= r["frames"]["rx"], (w, r["frames"])
assert min(s["latency"]["min_ns"] for s in sizes) == w["min_ns"], w
assert max(s["latency"]["max_ns"] for s in sizes) == w["max_ns"], w
print("gen_builtin: per-size latency frames %s = %d, p99 %s ns"
      % ([s["latency"]["frames"] for s in sizes], total,
         [s["latency"]["p99_ns"] for s in sizes]))
PY
grep -q '^# per-frame latency by message size' "$tmp/sweep.log" ||
	{ show_log "$tmp/sweep.log"; fail "no per-size latency table"; }
[ "$(grep -c -E '^ +(4096|16384|65536) +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+$' \
	"$tmp/sweep.log")" -eq 3 ] || { show_log "$tmp/sweep.log"; fail "per-size latency rows"; }
check_ok "sweep: a latency object per message size, summing to the whole run"

if command -v gnuplot >/dev/null 2>&1; then
	for f in completion_cdf.png completion_cdf.svg latency_cdf.png latency_cdf.svg; do
		[ -s "$tmp/straggler/$f" ] || fail "plot $f missing"
	done
	[ -s "$tmp/sweep/latency_cdf.png" ] || fail "sweep: latency plot missing"
	[ "$(grep -c '^# size' "$tmp/sweep/latency_size_cdf.dat")" -eq 3 ] ||
		fail "sweep: latency_size_cdf.dat has not one block per size"
	for i in 0 1 2; do
		grep -q "'latency_size_cdf.dat' index $i using" "$tmp/sweep/plots.gp" ||
			fail "sweep: no latency curve for size $i"
	done
	check_ok "plots written, latency one curve per size"
fi
