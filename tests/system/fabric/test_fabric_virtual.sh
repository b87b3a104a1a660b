#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# ibex-fabric --clock virtual: the fabric on a simulated clock
# (docs/simulation.md).
#
#   1. Refusals: --clock virtual without --gen, a bad --clock, a bad
#      --switch-latency; each exits 2 with the reason.
#   2. Fidelity against the closed form: on an idle fabric the ring
#      all-reduce (leaf2-spine2-8: 2 hops in a leaf, 4 across the spines)
#      and halving-doubling (8 ranks on one switch) at 100 and 400 Gb/s,
#      with and without a 600 ns switch latency, take within 1% of what
#      the alpha-beta model below computes from the link rates, the
#      frames' overhead, the delays and the switch latency, at every size
#      from 1 KiB to 1 MiB.
#   3. Deterministic: an 8-rank ring with credits and a 7 -> 1 incast
#      with PFC, each run once on a quiet machine and once beside a CPU
#      hog per CPU: the JSON reports of ibex-fabric and of the generator
#      are the same byte for byte but for the meta block, and so are the
#      printed reports but for the closing speed line.
#   4. PFC against the headroom arithmetic: a 7 -> 1 incast (--engine
#      incast, 2 MiB from each rank) on one switch at 100 Gb/s with a
#      static XOFF and XON: no frame lost; the congested lanes' peak use
#      (buf_peak_blocks) reached XOFF and stayed within XOFF + headroom;
#      their peak headroom use is the bytes in flight during one reaction
#      (docs/flow-control.md's headroom formula, terms below); and the
#      pause frames sent are what the XOFF/XON cycles of the arithmetic
#      predict, within the spread of that reaction.
#
#   test_fabric_virtual.sh IBEX_FABRIC CONF_DIR
set -euo pipefail
TEST_NAME=fabric_virtual
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"
# the closed form of an all-reduce (closed_form.py, beside this file)
here=$(cd "$(dirname "$0")" && pwd)

fab=${1:?usage: test_fabric_virtual.sh IBEX_FABRIC CONF_DIR}
confdir=${2:?usage: test_fabric_virtual.sh IBEX_FABRIC CONF_DIR}
[ -x "$fab" ] || skip "no ibex-fabric at $fab"
require_cmds python3

tmp=$(mktemp -d /tmp/ibex-fabric-virtual.XXXXXX)
on_exit rm -rf "$tmp"
on_exit kill_started
eal=(--lcores 0@0,1@1,2@0 --no-huge -m 2048 --no-pci --log-level='lib.*:notice')
vt=(--clock virtual --ctl-dir none)

# ---- 1. refusals ----
refused() { # WANT ARGS...
	local want=$1 rc=0
	shift
	"$fab" "${eal[@]}" --file-prefix="$(basename "$tmp")r" -- "$@" \
		>"$tmp/ref.log" 2>&1 || rc=$?
	[ "$rc" = 2 ] && grep -qF -e "$want" "$tmp/ref.log" ||
		{ show_log "$tmp/ref.log"; fail "not refused (exit $rc): $*"; }
}
y8=$confdir/fabric/leaf2-spine2-8.yaml
refused "--clock virtual: give --gen" "$y8" "${vt[@]}"
refused "--clock: real or virtual, not 'fast'" "$y8" --clock fast
refused "--switch-latency: a time such as 600ns" "$y8" --switch-latency 6furlongs
check_ok "--clock virtual without --gen, a bad --clock and a bad --switch-latency refused (exit 2)"

# star8 NAME [SWITCH_KEYS]: 8 ranks on one switch, every link 100 Gb/s
# and 500 ns, written to $tmp/NAME.yaml
star8() {
	echo "name: $1"
	echo "topology:"
	echo "  defaults: {rate: 100G, delay: 500ns}"
	echo "  nodes:"
	echo "    s1: {kind: ibex, ports: 8${2:+, $2}}"
	for i in 0 1 2 3 4 5 6 7; do echo "    rank$i: {kind: rank}"; done
	echo "  links:"
	for i in 0 1 2 3 4 5 6 7; do echo "    - endpoints: [\"rank$i:eth0\", \"s1:p$i\"]"; done
}

# ---- 2. fidelity against the closed form ----
star8 star8 >"$tmp/star8.yaml"
# CASE: name topology rate engine switch-latency-ns
for c in "ls100 leaf2-spine2-8 100G ring 0" "ls400 leaf2-spine2-8 400G ring 600" \
	"st100 star8 100G hd 0" "st400 star8 400G hd 600" "st400r star8 400G ring 0"; do
	read -r name topo rate engine lat <<<"$c"
	if [ "$topo" = star8 ]; then src=$tmp/star8.yaml; else src=$confdir/fabric/$topo.yaml; fi
	sed "s/rate: 100G/rate: $rate/" "$src" >"$tmp/$name.yaml"
	dpdk_prefix p "cf$name"
	"$fab" "${eal[@]}" --file-prefix="$p" -- "$tmp/$name.yaml" --fc none "${vt[@]}" \
		--switch-latency "${lat}ns" --gen "--engine $engine --ranks 8 -b 1K -e 1M \
		-n 3 -w 1 --json $tmp/$name.gen.json" >"$tmp/$name.log" 2>&1 ||
		{ show_log "$tmp/$name.log"; fail "closed form: $c: the run failed"; }
	python3 - "$tmp/$name.gen.json" "$topo" "$rate" "$lat" "$here" <<'PY' ||
import json, sys
sys.path.insert(0, sys.argv[5])
from closed_form import completion_us, hd_steps, ring_steps
g = json.load(open(sys.argv[1]))
topo, rate, lat = sys.argv[2], float(sys.argv[3][:-1]) * 1e9, float(sys.argv[4]) * 1e3

def path(a, b):         # (link, delay ps) from rank a to rank b
    if topo == "star8" or a // 4 == b // 4:
        return [(("up", a), 500e3), (("down", b), 500e3 + lat)]
    return [(("up", a), 500e3), (("l2s", a // 4), 1e6 + lat),
            (("s2l", b // 4), 1e6 + lat), (("down", b), 500e3 + lat)]
def model_us(n, S):
    steps = ring_steps if g["engine"] == "ring" else hd_steps
    return completion_us(steps(n, S), n, rate, path)
worst = 0
for s in g["sizes"]:
    m = model_us(g["ranks"], s["bytes"])
    err = (s["time_us"] - m) / m
    worst = max(worst, abs(err))
    assert s["failed"] == 0 and abs(err) < 0.01, (s["bytes"], s["time_us"], m)
print("fabric_virtual: %s %s %s, switch latency %g ns: %d sizes 1 KiB-1 MiB within %.3f%% "
      "of the closed form (1 MiB: %.3f us simulated)" % (g["engine"], topo, sys.argv[3],
      lat / 1e3, len(g["sizes"]), worst * 100, g["sizes"][-1]["time_us"]))
PY
	{ show_log "$tmp/$name.log"; fail "closed form: $c"; }
done
check_ok "ring and halving-doubling at 100 and 400 Gb/s, with and without switch latency: within 1% of the closed form"

# ---- 3. deterministic, quiet and beside a CPU hog ----
flows=$(seq -s, 1 7 | sed 's/\([0-9]*\)/\1:0/g')
scenario() { # NAME DIR
	local p model=()
	dpdk_prefix p "det$1"
	mkdir -p "$tmp/$2"
	# the hog's run also models a split over two processes, which must
	# change nothing of the run
	[ "$2" = hog ] && model=(--model-partitions 2)
	case $1 in
	ring)
		"$fab" "${eal[@]}" --file-prefix="$p" -- "$y8" --fc credit "${vt[@]}" \
			"${model[@]}" --json "$tmp/$2/fab.json" --gen "--engine ring --ranks 8 --vlan 1 \
			--pcp 3 -b 1K -e 256K -n 5 -w 1 --json $tmp/$2/gen.json" ;;
	incast)
		"$fab" "${eal[@]}" --file-prefix="$p" -- "$y8" --fc pfc "${vt[@]}" \
			"${model[@]}" --json "$tmp/$2/fab.json" --gen "--engine rate --ranks 8 --flow $flows \
			--pcp 3 --vlan 1 --size 128 --rate 120M --frames 100000 \
			--duration 600 --json $tmp/$2/gen.json" ;;
	esac >"$tmp/$2/$1.log" 2>&1 || { show_log "$tmp/$2/$1.log"; fail "$1 ($2) failed"; }
}
same() { # NAME
	python3 - "$tmp/quiet" "$tmp/hog" "$1" <<'PY'
import sys
q, h, name = sys.argv[1:4]
def body(path):
    # Everything but the meta block (wall-clock start, command line).
    raw = open(path).read()
    i = raw.index('"meta": {')
    depth, j = 0, raw.index("{", i)
    while True:
        depth += {"{": 1, "}": -1}.get(raw[j], 0)
        j += 1
        if depth == 0:
            break
    return raw[:i] + raw[j:]
def report(path):
    # The printed report but the closing speed line (wall time) and the
    # model of a split (the hog's run only).
    return [l for l in open(path) if not l.startswith("virtual clock:") and
            not l.startswith("partitions model:")]
def model(path):
    # The hog's run: windows, and frame-hops that add up to the run's.
    lines = open(path).read()
    import re
    m = re.search(r"^partitions model: 2 processes, lookahead ([0-9.]+) us: "
                  r"(\d+) windows .* of the (\d+) frame-hops", lines, re.M)
    assert m, "no partitions model line"
    hops = int(re.search(r"(\d+) frame-hops \(", lines).group(1))
    parts = [int(x) for x in re.findall(
        r"^partitions model: partition \d: .* (\d+) frame-hops$", lines, re.M)]
    assert float(m.group(1)) > 0 and int(m.group(2)) > 0, m.group(0)
    # the link ends' counters against the executive's count of the
    # frames its links delivered: a few frames apart at most (read at
    # different moments of the run's end)
    assert int(m.group(3)) == sum(parts) and len(parts) == 2, (m.group(0), parts)
    assert abs(sum(parts) - hops) <= hops / 1000, (m.group(0), hops, parts)
model(f"{h}/{name}.log")
for f in ("fab.json", "gen.json"):
    a, b = body(f"{q}/{f}"), body(f"{h}/{f}")
    assert a == b, (name, f, len(a), len(b))
assert report(f"{q}/{name}.log") == report(f"{h}/{name}.log"), name
print("fabric_virtual: %s: the JSON reports (%d and %d bytes) and the printed report "
      "are the same quiet and beside the hog" % (name, len(body(f"{q}/fab.json")),
      len(body(f"{q}/gen.json"))))
PY
}
for s in ring incast; do
	scenario "$s" quiet
	hogs=()
	for _ in $(seq "$(nproc)"); do
		start_bg hp "$tmp/hog.log" sh -c 'while :; do :; done'
		hogs+=("$hp")
	done
	scenario "$s" hog
	for hp in "${hogs[@]}"; do stop_pid "$hp" KILL; done
	same "$s" || fail "$s: a run beside a CPU hog differs from the quiet one"
done
check_ok "deterministic: the same reports, byte for byte, quiet and beside a CPU hog"

# ---- 4. PFC against the headroom arithmetic ----
# 7 ranks send 2 MiB each to rank 0 through one switch, every link 100 Gb/s
# and 500 ns. Each sender's lane (ingress port, VL 3) keeps 4 KB reserved,
# pauses at 24 KB of shared use (XOFF) and resumes at 6 KB (XON: an 18 KB
# gap). proc-ns 3000 is the senders' reaction under this clock: their
# MAC commits frames up to pfc_window (2 us) ahead of the present, and
# the present advances by the executive's 1 us tick at most.
star8 incast7 "config: incast7.conf" >"$tmp/incast7.yaml"
{
	echo "buffer total 8MB alpha 1/8"
	for i in 0 1 2 3 4 5 6 7; do
		echo "port p$i fc pfc"
		echo "lane p$i vl 3 lossless reserved 4KB"
		echo "pfc p$i xoff 24KB xon 6KB headroom auto cable-m 100 proc-ns 3000"
	done
} >"$tmp/incast7.conf"
dpdk_prefix p pfcarith
"$fab" "${eal[@]}" --file-prefix="$p" -- "$tmp/incast7.yaml" --fc pfc "${vt[@]}" \
	--json "$tmp/pa.fab.json" --gen "--engine incast --ranks 8 --vlan 1 --pcp 3 \
	-b 2M -e 2M -n 1 -w 0 --json $tmp/pa.gen.json" >"$tmp/pa.log" 2>&1 ||
	{ show_log "$tmp/pa.log"; fail "PFC incast: the run failed"; }
python3 - "$tmp/pa.fab.json" "$tmp/pa.gen.json" <<'PY' ||
import json, math, sys
h = json.load(open(sys.argv[1]))
g = json.load(open(sys.argv[2]))
N, R, d = 7, 100e9, 500e-9         # senders, link rate (b/s), propagation (s)
W, tick = 2e-6, 1e-6               # the senders' commit window, the clock's tick
blk = lambda n: -(-n // 64)        # bytes -> 64-byte blocks
PAYLOAD, HDR = 1432, 82 + 4        # a frame's payload; headers, trailer, ICRC, VLAN tag
frames = g["frames"]["tx"] // N    # per sender: 2 MiB in frames of at most PAYLOAD
assert frames * N == g["frames"]["tx"] and frames >= 2 * 1024 * 1024 / PAYLOAD, g["frames"]
B = blk(PAYLOAD + HDR)             # blocks of a full frame (24)
tau = (PAYLOAD + HDR + 24) * 8 / R # its wire time: preamble, FCS, gap
res, X, G = blk(4096), blk(24576), blk(24576 - 6144)

# The switch's headroom (lib/credit/ibex_buf.c, docs/flow-control.md):
# 2 x rate x (cable + reaction) in the worst blocks per wire byte, plus
# two MTU frames (the port's frame: 1500 + 22).
wire = math.ceil(2 * 100000 * (100 * 5 + 3000) / 8000)
H = math.ceil(wire * 2 / 85) + 2 * blk(1522)

# Bytes in flight after XOFF, at line rate: the frame that crossed XOFF
# started d + one frame before the switch saw it; the pause reaches the
# sender d later; the sender then still sends what its MAC committed, W
# ahead of a present that lags up to one tick; plus the frame on the wire
# when the pause lands and the one the XOFF is admitted behind (the
# formula's MTU terms). The lane takes F = that many blocks past XOFF.
F_lo = ((2 * d + W) / tau) * B
F_hi = ((2 * d + W + tick) / tau + 2) * B

# XOFF/XON cycles of one lane: its sender is paused from XOFF until the
# lane has drained F + G (headroom empty, shared at XON), and resumes a
# reaction after; the egress drains each of the N lanes at rate/N and
# never idles. Per cycle the lane takes (and gives back) N/(N-1) x (F + G)
# blocks; before the first XOFF it takes (reserved + X) x N/(N-1).
T = frames * B
def cycles(F):
    return 1 + (T - (res + X) * N / (N - 1)) / (N / (N - 1) * (F + G))
c_lo, c_hi = cycles(F_hi), cycles(F_lo)
c_mid = cycles((F_lo + F_hi) / 2)

assert g["frames"]["tx"] == g["frames"]["rx"] == N * frames, g["frames"]
assert g["sequence"]["lost"] == 0 and g["sequence"]["out_of_order"] == 0, g["sequence"]
ports = h["switches"][0]["ports"]
assert all(p["dropped"] == 0 for p in ports), [p["drops"] for p in ports]
lanes = ports[1:]
for p in lanes:
    peak, hr, xoff = p["buf_peak_blocks"], p["headroom_peak_blocks"], p["xoff_tx"]
    assert res + X <= peak <= res + X + H, (p["port"], peak, res, X, H)
    assert F_lo * (N - 1) / N <= hr <= min(F_hi, H), (p["port"], hr, F_lo, F_hi, H)
    # a pause lasts well under half the 65535 quanta: no refresh
    assert p["pfc_tx"] == xoff + p["xon_tx"] and xoff == p["xon_tx"], p
    assert c_lo - 1 <= xoff <= c_hi + 1, (p["port"], xoff, c_lo, c_hi)
total = sum(p["pfc_tx"] for p in ports)
print("fabric_virtual: 7 -> 1 PFC incast, 2 MiB each at 100G: no loss; XOFF %d + reserved %d "
      "<= peak %s <= + headroom %d blocks; headroom peak %s blocks, in flight %.0f-%.0f; "
      "XOFF per lane %s, arithmetic %.1f (%.1f-%.1f); %d pause frames" %
      (X, res, sorted({p["buf_peak_blocks"] for p in lanes}), H,
       sorted({p["headroom_peak_blocks"] for p in lanes}), F_lo, F_hi,
       sorted({p["xoff_tx"] for p in lanes}), c_mid, c_lo, c_hi, total))
PY
	{ show_log "$tmp/pa.log"; fail "PFC incast: not what the headroom arithmetic says"; }
check_ok "7 -> 1 PFC incast: no loss, peak use between XOFF and XOFF + headroom, pauses as the arithmetic predicts"
