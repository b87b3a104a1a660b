#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# RFC 8239 data-centre benchmarks through ibex-switch, built-in generator,
# receiver port gen0 shaped to SHAPE (its "line rate"):
#
#  incast     N senders (ranks 1..N on gen1..genN, N = 2..8) -> rank 0 on
#             gen0, together offering LOAD x gen0's rate, each an equal
#             share, for DURATION: loss, latency, and how evenly gen0's
#             rate is shared (lowest / highest sender's received rate).
#  microburst N senders burst B frames each at once, flat out, into gen0;
#             binary search for the largest B with no loss (N = 2, 4, 8):
#             the buffer the switch gives one congested egress lane.
#
#   tests/bench/rfc8239.sh [BUILD_DIR] [incast|microburst|all]
#
# Environment: SHAPE (1G), LOAD (1.5), SIZE (frame with FCS, 1518),
# DURATION (1), NS_INCAST (2 3 4 5 6 7 8), NS_BURST (2 4 8), BURST_MAX
# (4096), CONF_EXTRA (more configuration lines, e.g. "port gen0 vl-queue
# 1MB"), OUT (directory for the JSON reports).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
what=${2:-all}
sw=$build/app/ibex-switch/ibex-switch
[ -x "$sw" ] || { echo "no $sw: build first" >&2; exit 1; }
shape=${SHAPE:-1G}
load=${LOAD:-1.5}
size=${SIZE:-1518}
dur=${DURATION:-1}
ns_incast=${NS_INCAST:-2 3 4 5 6 7 8}
ns_burst=${NS_BURST:-2 4 8}
bmax=${BURST_MAX:-4096}
out=${OUT:-$(mktemp -d /tmp/ibex-rfc8239.XXXXXX)}
mkdir -p "$out"
{
	echo "# written by tests/bench/rfc8239.sh: the receiver's port"
	echo "port gen0 shape $shape"
	printf '%s\n' "${CONF_EXTRA:-}"
} >"$out/rfc8239.conf"

# gen0's rate in frames/s: shape (bit/s, K/M/G decimal) / ((size + 20) x 8)
line_pps=$(python3 -c "
import sys; s = '$shape'; m = {'K': 1e3, 'M': 1e6, 'G': 1e9}
v = float(s[:-1]) * m[s[-1]] if s[-1] in m else float(s)
print(v / (($size + 20) * 8))")

run() { # name nsenders gen-options...
	local name=$1 n=$2
	shift 2
	"$sw" --lcores 0@0,1@1,2@0 --no-huge -m 1024 --no-pci \
		--log-level='lib.*:notice' --file-prefix="rfc8239_$$" -- \
		--config "$out/rfc8239.conf" --gen-ports $((n + 1)) --gen "--engine rate \
		--ranks $((n + 1)) --size $((size - 4)) --quiet --json $out/$name.json $*" \
		>"$out/$name.log" 2>&1 || true
	[ -s "$out/$name.json" ] || { tail -20 "$out/$name.log" >&2; exit 1; }
}

flows() { # n [pps]: ranks 1..n -> rank 0
	local i f=""
	for ((i = 1; i <= $1; i++)); do
		f+="${f:+,}$i:0${2:+:$2}"
	done
	echo "$f"
}

echo "# RFC 8239 through ibex-switch: receiver gen0 shaped to $shape" \
	"($(printf '%.0f' "$line_pps") frames/s of $size B); JSON in $out"

if [ "$what" = incast ] || [ "$what" = all ]; then
	echo "## incast: N senders -> 1 receiver, together ${load} x its rate, $dur s"
	for n in $ns_incast; do
		pps=$(python3 -c "print('%.0f' % ($line_pps * $load / $n))")
		run incast$n "$n" --flow "$(flows "$n" "$pps")" --duration "$dur" --tx-drop
	done
	python3 - "$out" "$ns_incast" "$size" "$line_pps" "$load" <<'PY'
import json, sys
out, ns, size, line, load = sys.argv[1], sys.argv[2].split(), int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
print("# %2s %12s %12s %8s %8s %10s %10s %10s %10s" % ("N", "offered",
      "received", "loss", "expect", "rx/line", "p50", "p99", "fair"))
print("# %2s %12s %12s %8s %8s %10s %10s %10s %10s" % ("", "(frames)",
      "(frames)", "(%)", "(%)", "(%)", "(us)", "(us)", "(min/max)"))
for n in ns:
    d = json.load(open("%s/incast%s.json" % (out, n)))
    tx = sum(f["tx"] for f in d["flows"])
    rx = sum(f["rx"] for f in d["flows"])
    el = d["rate"]["elapsed_s"]
    rates = [f["rx_pps"] for f in d["flows"]]
    print("  %2s %12d %12d %8.3f %8.3f %10.2f %10.1f %10.1f %10.3f" % (n, tx,
          rx, (tx - rx) / tx * 100 if tx else 0,
          max(0, (1 - 1 / load) * 100), rx / el / line * 100 if el else 0,
          d["latency"]["p50_ns"] / 1e3, d["latency"]["p99_ns"] / 1e3,
          min(rates) / max(rates) if max(rates) else 0))
print("# expect = (1 - 1/load): the excess over the receiver's rate; "
      "rx/line: received rate / shaped rate; fair: lowest / highest "
      "sender's received rate")
PY
fi

if [ "$what" = microburst ] || [ "$what" = all ]; then
	echo "## microburst: N senders burst B frames each at once into gen0; largest B without loss"
	for n in $ns_burst; do
		run burst$n "$n" --flow "$(flows "$n")" --search burst --burst-max "$bmax"
	done
	python3 - "$out" "$ns_burst" "$size" <<'PY'
import json, sys
out, ns, size = sys.argv[1], sys.argv[2].split(), int(sys.argv[3])
print("# %2s %10s %10s %12s %10s %10s %10s %14s" % ("N", "B max", "N x B",
      "absorbed", "p50", "p99", "max", "loss at B+1"))
print("# %2s %10s %10s %12s %10s %10s %10s %14s" % ("", "(frames)",
      "(frames)", "(KB)", "(us)", "(us)", "(us)", "(%)"))
for n in ns:
    d = json.load(open("%s/burst%s.json" % (out, n)))
    s = d["search"]["results"][0]
    print("  %2s %10d %10d %12.1f %10.1f %10.1f %10.1f %14s" % (n,
          s["burst"], s["burst"] * int(n), s["burst"] * int(n) * size / 1024,
          s["lat_p50_ns"] / 1e3, s["lat_p99_ns"] / 1e3, s["lat_max_ns"] / 1e3,
          "%.3f" % (s["fail_loss"] * 100) if s["fail_burst"] else "-"))
print("# absorbed = N x B x size: what gen0's lane queue and the rings in "
      "front of it held (the shaper drains during the burst)")
PY
fi
