#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# RFC 2544 section 26.1 throughput through ibex-switch: for each frame size
# a binary search for the highest offered rate with no loss (NDR) and with
# loss <= PDR_LOSS (PDR), both directions between two ports, with the
# latency at NDR. The built-in generator drives ports gen0 and gen1 over
# in-process ring pairs (3 lcores on 2 CPUs, no hugepages); docs/benchmarks.md
# has the method and the figures.
#
#   tests/bench/rfc2544.sh [BUILD_DIR]
#
# Environment: SIZES (64,128,256,512,1024,1280,1518, with FCS), TRIAL
# (seconds per trial, 0.25), RES (search resolution, fraction of the upper
# end, 0.01), PDR_LOSS (0.001), RETRIES (1), REPEAT (runs, median, 1),
# CONF (switch configuration, none), OUT (directory for the JSON reports).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
sw=$build/app/ibex-switch/ibex-switch
[ -x "$sw" ] || { echo "no $sw: build first (meson setup $build && ninja -C $build)" >&2; exit 1; }
sizes=${SIZES:-64,128,256,512,1024,1280,1518}
trial=${TRIAL:-0.25}
res=${RES:-0.01}
pdr=${PDR_LOSS:-0.001}
retries=${RETRIES:-1}
rep=${REPEAT:-1}
out=${OUT:-$(mktemp -d /tmp/ibex-rfc2544.XXXXXX)}
mkdir -p "$out"
conf=()
[ -n "${CONF:-}" ] && conf=(--config "$CONF")

echo "# RFC 2544 throughput through ibex-switch (built-in generator, 2 ports, both directions)"
echo "# sizes $sizes, trial $trial s, resolution $res, PDR loss <= $pdr, retries $retries, $rep run(s); JSON in $out"
for ((i = 1; i <= rep; i++)); do
	"$sw" --lcores 0@0,1@1,2@0 --no-huge -m 1024 --no-pci \
		--log-level='lib.*:notice' --file-prefix="rfc2544_$$" -- "${conf[@]}" \
		--gen-ports 2 --gen "--engine rate --ranks 2 --search rate \
		--sizes $sizes --trial $trial --resolution $res --pdr-loss $pdr \
		--retries $retries --quiet --json $out/run$i.json" \
		>"$out/run$i.log" 2>&1 || { tail -20 "$out/run$i.log" >&2; exit 1; }
done

python3 - "$out" "$rep" <<'PY'
import json, statistics, sys
out, rep = sys.argv[1], int(sys.argv[2])
runs = [json.load(open("%s/run%d.json" % (out, i)))["search"]["results"]
        for i in range(1, rep + 1)]
med = lambda k, j: statistics.median(r[j][k] for r in runs)
print("# %6s %9s %9s %9s %9s %9s %10s %9s %9s %7s" % ("size", "max", "NDR",
      "NDR", "PDR", "PDR", "loss@PDR", "p50@NDR", "p99@NDR", "trials"))
print("# %6s %9s %9s %9s %9s %9s %10s %9s %9s %7s" % ("(B)", "(Mpps)",
      "(Mpps)", "(Gb/s)", "(Mpps)", "(Gb/s)", "(%)", "(us)", "(us)", ""))
for j, s in enumerate(runs[0]):
    print("  %6d %9.3f %9.3f %9.3f %9.3f %9.3f %10.4f %9.1f %9.1f %7d" % (
        s["size"], med("max_pps", j) / 1e6, med("ndr_pps", j) / 1e6,
        med("ndr_gbps", j), med("pdr_pps", j) / 1e6, med("pdr_gbps", j),
        med("pdr_loss", j) * 100, med("lat_p50_ns", j) / 1e3,
        med("lat_p99_ns", j) / 1e3, med("trials", j)))
print("# median of %d run(s); max = min(offered flat out, 1.05 x received "
      "flat out); Gb/s = Mpps x size x 8 (L2 with FCS)" % rep)
if rep > 1:
    print("# NDR Mpps per run: " + "; ".join(
        "%d: %s" % (s["size"], " ".join("%.3f" % (r[j]["ndr_pps"] / 1e6)
                                        for r in runs))
        for j, s in enumerate(runs[0])))
PY
