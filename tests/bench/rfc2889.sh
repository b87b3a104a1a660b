#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# RFC 2889 section 5.5 congestion control (head-of-line blocking) through
# ibex-switch. Four ports of the built-in generator:
#
#   gen0 (port A): flow 0>2 to gen2 (uncongested) and flow 0>3 to gen3
#   gen1 (port B): flow 1>3 to gen3
#   gen3 is shaped to SHAPE (egress shaper), so A and B together offer
#   2 x RATE to it: it is congested; gen2 is not.
#
# The run is done twice: the baseline with flow 0>2 alone, then all three
# flows. Head-of-line blocking shows as loss or lost throughput on 0>2 when
# A's other flow is congested. ibex queues per egress (port, lane), so 0>2
# should not notice. Lossy lanes (the default): the congested flows are
# tail-dropped at gen3's lane queue.
#
#   tests/bench/rfc2889.sh [BUILD_DIR]
#
# Environment: SHAPE (gen3's shaper, 1G), RATE (frames/s per flow, 100K),
# SIZE (frame with FCS, 1518), DURATION (s, 1), REPEAT (runs, median, 1),
# OUT (directory for the JSON reports).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
sw=$build/app/ibex-switch/ibex-switch
[ -x "$sw" ] || { echo "no $sw: build first" >&2; exit 1; }
shape=${SHAPE:-1G}
rate=${RATE:-100K}
size=${SIZE:-1518}
dur=${DURATION:-1}
rep=${REPEAT:-1}
out=${OUT:-$(mktemp -d /tmp/ibex-rfc2889.XXXXXX)}
mkdir -p "$out"
printf '# written by tests/bench/rfc2889.sh: the congested output\nport gen3 shape %s\n' \
	"$shape" >"$out/hol.conf"

run() { # name flows
	"$sw" --lcores 0@0,1@1,2@0 --no-huge -m 1024 --no-pci \
		--log-level='lib.*:notice' --file-prefix="rfc2889_$$" -- \
		--config "$out/hol.conf" --gen-ports 4 --gen "--engine rate \
		--ranks 4 --size $((size - 4)) --flow $2 --duration $dur --tx-drop \
		--quiet --json $out/$1.json" >"$out/$1.log" 2>&1 || true
	[ -s "$out/$1.json" ] || { tail -20 "$out/$1.log" >&2; exit 1; }
}

echo "# RFC 2889 5.5 congestion control / HOL: A=gen0 -> gen2 (free) + gen3 (congested), B=gen1 -> gen3"
echo "# gen3 shaped to $shape, $rate frames/s per flow, $size B frames, $dur s, $rep run(s); JSON in $out"
for ((i = 1; i <= rep; i++)); do
	run base$i "0:2:$rate"
	run hol$i "0:2:$rate,0:3:$rate,1:3:$rate"
done

python3 - "$out" "$rep" "$size" <<'PY'
import json, statistics, sys
out, rep, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def flows(name):
    d = json.load(open("%s/%s.json" % (out, name)))
    return {"%d>%d" % (f["src"], f["dst"]): f for f in d["flows"]}
base = [flows("base%d" % i) for i in range(1, rep + 1)]
hol = [flows("hol%d" % i) for i in range(1, rep + 1)]
med = lambda runs, fl, k: statistics.median(r[fl][k] for r in runs)
print("# %-6s %-22s %12s %12s %10s %10s" % ("flow", "path", "offered",
      "received", "loss", "rx rate"))
print("# %-6s %-22s %12s %12s %10s %10s" % ("", "", "(frames)", "(frames)",
      "(%)", "(Mb/s)"))
path = {"0>2": "A -> gen2 (free)", "0>3": "A -> gen3 (congested)",
        "1>3": "B -> gen3 (congested)"}
def row(tag, runs, fl):
    print("  %-6s %-22s %12d %12d %10.4f %10.1f" % (fl, tag + path[fl],
          med(runs, fl, "tx"), med(runs, fl, "rx"),
          med(runs, fl, "loss") * 100,
          med(runs, fl, "rx_pps") * size * 8 / 1e6))
row("alone: ", base, "0>2")
for fl in ("0>2", "0>3", "1>3"):
    row("", hol, fl)
b = med(base, "0>2", "rx_pps")
h = med(hol, "0>2", "rx_pps")
loss = med(hol, "0>2", "loss")
cong = med(hol, "0>3", "rx_pps") + med(hol, "1>3", "rx_pps")
print("# uncongested flow 0>2: loss %.4f %%, throughput %.2f %% of its "
      "baseline -> %s" % (loss * 100, h / b * 100 if b else 0,
      "no head-of-line blocking" if loss == 0 and h >= 0.99 * b else
      "HEAD-OF-LINE BLOCKING"))
print("# congested output gen3 carried %.1f Mb/s (%.1f Mb/s L1) of the two "
      "flows; share A:B = %.2f : %.2f" % (cong * size * 8 / 1e6,
      cong * (size + 20) * 8 / 1e6,
      med(hol, "0>3", "rx_pps") / cong if cong else 0,
      med(hol, "1>3", "rx_pps") / cong if cong else 0))
PY
