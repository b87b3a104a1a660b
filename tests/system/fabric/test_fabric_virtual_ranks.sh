#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# ibex-fabric --clock virtual beyond 64 ranks (docs/simulation.md,
# "1,024 ranks"): a ring all-reduce of 1 MiB over the 128 ranks of
# `ibex-topo fattree 8` (80 switches, 400 Gb/s links) completes with
# every frame received once, none foreign, and takes within 1% of the
# alpha-beta model of test_fabric_virtual.sh, here on the fat tree's
# paths: 2 hops under one edge switch, 4 within a pod, 6 across pods.
# Each link carries at most one flow of the ring (every edge switch,
# every pod, sends one flow out and takes one in), so the model needs
# no ECMP choice. An all-to-all over the same 128 ranks with credits
# completes with every frame of its 16,256 rank pairs received once.
# Halving-doubling over 100 ranks (not a power of two: 64 in the halving
# and doubling, 36 extras handing their vector over first and getting the
# result last) on a 100-rank leaf-spine with PFC completes twice with
# every frame the algorithm sends received once. Credits at 400 Gb/s:
# the halving-doubling of 64 KiB over the 128 ranks of `fattree 8` with a
# 600 ns switch latency takes within 2% of the same without flow control,
# within 10% on the lossless lane (ibex-fabric sizes each credit port's
# window for its link's loop; with the 4 KB default lanes it took 8 and
# 19 times as long). PFC at 400 Gb/s stays lossless: a 2 MiB
# halving-doubling on the lossless lane of the 128 ranks with 600 ns
# switches and a 1 us reaction pauses (XOFFs sent) and loses nothing, no
# frame refused for want of headroom (with the 10 m cable the formula
# assumed, 1,812 were; with the link's cable but 256 frames cut through
# past the pause, 142).
#
#   test_fabric_virtual_ranks.sh IBEX_FABRIC IBEX_TOPO
set -euo pipefail
TEST_NAME=fabric_virtual_ranks
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"
# the closed form of an all-reduce (closed_form.py, beside this file)
here=$(cd "$(dirname "$0")" && pwd)

fab=${1:?usage: test_fabric_virtual_ranks.sh IBEX_FABRIC IBEX_TOPO}
topo=${2:?usage: test_fabric_virtual_ranks.sh IBEX_FABRIC IBEX_TOPO}
[ -x "$fab" ] || skip "no ibex-fabric at $fab"
[ -x "$topo" ] || skip "no ibex-topo at $topo"
require_cmds python3

tmp=$(mktemp -d /tmp/ibex-fabric-vranks.XXXXXX)
on_exit rm -rf "$tmp"
on_exit kill_started
eal=(--lcores 0@0,1@1,2@0 --no-huge -m 4096 --no-pci --log-level='lib.*:notice')

k=8 rate=400G ranks=128
"$topo" fattree $k --rate $rate -o "$tmp/ft.yaml" ||
	fail "ibex-topo fattree $k failed"
dpdk_prefix p vranks
"$fab" "${eal[@]}" --file-prefix="$p" -- "$tmp/ft.yaml" --fc none \
	--clock virtual --ctl-dir none --gen "--engine ring --ranks $ranks \
	-b 1M -e 1M -n 1 -w 0 --json $tmp/gen.json" >"$tmp/run.log" 2>&1 ||
	{ show_log "$tmp/run.log"; fail "ring over $ranks ranks: the run failed"; }
grep -q "^virtual clock: .* frame-hops" "$tmp/run.log" ||
	{ show_log "$tmp/run.log"; fail "no closing virtual clock line"; }
python3 - "$tmp/gen.json" "$k" "$rate" "$ranks" "$here" <<'PY' ||
import json, sys
sys.path.insert(0, sys.argv[5])
from closed_form import completion_us, ring_steps
g = json.load(open(sys.argv[1]))
k, rate, want_ranks = int(sys.argv[2]), float(sys.argv[3][:-1]) * 1e9, int(sys.argv[4])
D = 500e3               # ibex-topo's default delay, every link (ps)
h = k // 2              # ranks per edge switch, edge switches per pod

def path(a, b):
    up, down = (("up", a), D), (("down", b), D)
    if a // h == b // h:
        return [up, down]
    if a // (h * h) == b // (h * h):
        return [up, (("e2a", a), D), (("a2e", a), D), down]
    return [up, (("e2a", a), D), (("a2c", a), D), (("c2a", a), D),
            (("a2e", a), D), down]
def model_us(n, S):
    return completion_us(ring_steps(n, S), n, rate, path)
assert g["ranks"] == want_ranks and g["engine"] == "ring", (g["ranks"], g["engine"])
fr, sq = g["frames"], g["sequence"]
assert fr["tx"] == fr["rx"] and fr["tx"] > 0 and fr["foreign"] == 0, fr
assert sq["lost"] == 0 and sq["duplicate"] == 0 and sq["out_of_order"] == 0, sq
s = g["sizes"][0]
m = model_us(g["ranks"], s["bytes"])
err = (s["time_us"] - m) / m
assert s["failed"] == 0 and abs(err) < 0.01, (s["bytes"], s["time_us"], m)
print("fabric_virtual_ranks: ring of %d ranks on fattree %d at %s, 1 MiB: %.3f us "
      "simulated, the closed form %.3f us (%+.3f%%); %d frames, none lost or foreign"
      % (g["ranks"], k, sys.argv[3], s["time_us"], m, err * 100, fr["tx"]))
PY
	{ show_log "$tmp/run.log"; fail "closed form: ring over $ranks ranks"; }
check_ok "ring all-reduce over 128 ranks (fattree 8, 400G): within 1% of the closed form, nothing lost"

# All-to-all uses every one of the 128 x 127 rank pairs (16,256 slots; a
# frame's slot is a binary search over 127 destinations). With credits
# (lossless: ECMP collisions on a lossy fabric drop frames) every frame
# arrives once and the collective completes. On the lossless lane (PCP 3,
# lane 3): untagged frames ride lane 0, lossy inside the fabric, and were
# kept from its drops only by the ranks' 4 KB credit windows.
dpdk_prefix p vranks2
"$fab" "${eal[@]}" --file-prefix="$p" -- "$tmp/ft.yaml" --fc credit \
	--clock virtual --ctl-dir none --gen "--engine alltoall --ranks $ranks \
	-b 256K -e 256K -n 1 -w 0 --vlan 1 --pcp 3 --json $tmp/a2a.json" \
	>"$tmp/a2a.log" 2>&1 ||
	{ show_log "$tmp/a2a.log"; fail "all-to-all over $ranks ranks: the run failed"; }
python3 - "$tmp/a2a.json" "$ranks" <<'PY' ||
import json, sys
g = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
fr, sq, s = g["frames"], g["sequence"], g["sizes"][0]
assert g["ranks"] == n and g["engine"] == "alltoall", (g["ranks"], g["engine"])
assert s["failed"] == 0 and s["time_us"] > 0, s
# 256 KiB / n = 2 KiB to each peer: 2 frames of at most 1432 B payload
assert fr["tx"] == n * (n - 1) * 2 == fr["rx"] and fr["foreign"] == 0, fr
assert sq["lost"] == 0 and sq["duplicate"] == 0, sq
print("fabric_virtual_ranks: all-to-all of %d ranks, 256 KiB: %d frames over %d rank "
      "pairs, every one received once, %.3f us simulated" % (n, fr["tx"], n * (n - 1),
      s["time_us"]))
PY
	{ show_log "$tmp/a2a.log"; fail "all-to-all over $ranks ranks"; }
check_ok "all-to-all over 128 ranks (16,256 rank pairs) with credits: every frame received once"

# Halving-doubling of a rank count that is not a power of two: 64 ranks
# halve and double, 36 extras (even ranks below 72) hand their 64 KiB to
# the odd rank above first and get the result back last, 14 steps. The
# generator takes as many ranks as the topology has: a 100-rank
# leaf-spine. On the lossless lane (--vlan 1 --pcp 3), where PFC holds
# what four spines' ECMP collisions queue: untagged, they ride lossy lane
# 0, whose 64 KB queues drop them once the switches' frames wait in their
# lanes, not in their TX buffers (docs/simulation.md).
"$topo" leaf-spine --leaves 10 --spines 4 --ranks-per-leaf 10 --rate $rate \
	-o "$tmp/ls100.yaml" || fail "ibex-topo leaf-spine of 100 ranks failed"
dpdk_prefix p vranks3
"$fab" "${eal[@]}" --file-prefix="$p" -- "$tmp/ls100.yaml" --fc pfc \
	--clock virtual --ctl-dir none --gen "--engine hd --ranks 100 --vlan 1 --pcp 3 \
	-b 64K -e 64K -n 2 -w 0 --json $tmp/hd.json" >"$tmp/hd.log" 2>&1 ||
	{ show_log "$tmp/hd.log"; fail "hd over 100 ranks: the run failed"; }
python3 - "$tmp/hd.json" <<'PY' ||
import json, math, sys
g = json.load(open(sys.argv[1]))
n, p, S, iters = 100, 64, 65536, 2
x, l = n - p, 6
PAYLOAD = 1514 - (54 + 24 + 4)
def fr(b):
    return math.ceil(b / PAYLOAD)
# extras' vectors there and back; the 64: S/2 .. S/64 each way, twice
want = 2 * x * fr(S) + p * 2 * sum(fr(S >> (k + 1)) for k in range(l))
fr_, sq, s = g["frames"], g["sequence"], g["sizes"][0]
assert g["ranks"] == n and g["engine"] == "hd", (g["ranks"], g["engine"])
assert s["failed"] == 0 and s["iters"] == iters and s["bytes"] == S, s
assert len(s["step_us"]) == 2 * l + 2, s["step_us"]
assert fr_["tx"] == fr_["rx"] == iters * want and fr_["foreign"] == 0, (fr_, want)
assert sq["lost"] == 0 and sq["duplicate"] == 0 and sq["out_of_order"] == 0, sq
print("fabric_virtual_ranks: hd of %d ranks (%d + %d extras), 64 KiB, PFC: %d frames "
      "a run as the algorithm sends, none lost, %.3f us simulated"
      % (n, p, x, want, s["time_us"]))
PY
	{ show_log "$tmp/hd.log"; fail "hd over 100 ranks"; }
check_ok "halving-doubling over 100 ranks with PFC: 14 steps, every frame received once"

# Credits at 400 Gb/s (docs/simulation.md, "Limits"): the
# halving-doubling of 64 KiB over the 128 ranks with a 600 ns switch
# latency, with credits and without flow control. Untagged, the frames
# ride lane 0 (lossy inside the fabric) and credits gate only the ranks'
# links: within 2% (measured 69.87 us against 69.82 us; with the 4 KB
# default lanes 576 us). On the lossless lane (--vlan 1 --pcp 3) every
# hop takes credit: within 10% (measured 73.57 us against 69.85 us: ECMP
# puts two flows on some aggregation-to-core links, and what waits for
# them holds its ingress lane's credit, where without flow control it
# waits in the shared buffer; 1,352 us with the default lanes, 86.5 us
# with the windows sized but credit frames overtaking the TX buffer).
hd400() { # NAME FC TAG...
	local name=$1 fc=$2 p
	shift 2
	dpdk_prefix p "vranks4$name"
	"$fab" "${eal[@]}" --file-prefix="$p" -- "$tmp/ft.yaml" --fc "$fc" \
		--clock virtual --switch-latency 600ns --ctl-dir none \
		--gen "--engine hd --ranks $ranks -b 64K -e 64K -n 3 -w 1 $* \
		--json $tmp/hd400$name.json" >"$tmp/hd400$name.log" 2>&1 ||
		{ show_log "$tmp/hd400$name.log"; fail "hd over $ranks ranks, $name: the run failed"; }
}
hd400 none none
hd400 credit credit
hd400 none3 none --vlan 1 --pcp 3
hd400 credit3 credit --vlan 1 --pcp 3
python3 - "$tmp" <<'PY' ||
import json, sys
def run(name):
    g = json.load(open("%s/hd400%s.json" % (sys.argv[1], name)))
    fr, sq, s = g["frames"], g["sequence"], g["sizes"][0]
    assert g["ranks"] == 128 and g["engine"] == "hd", (g["ranks"], g["engine"])
    assert s["failed"] == 0 and s["iters"] == 3 and s["bytes"] == 65536, s
    assert fr["tx"] == fr["rx"] > 0 and fr["foreign"] == 0, (name, fr)
    assert sq["lost"] == 0 and sq["duplicate"] == 0, (name, sq)
    return s["time_us"]
for lane, cr, no, bound in (("lane 0", "credit", "none", 1.02),
                            ("lane 3", "credit3", "none3", 1.10)):
    c, n = run(cr), run(no)
    assert c <= n * bound, ("%s: credit %.3f us against none %.3f us, bound %+.0f%%"
                            % (lane, c, n, (bound - 1) * 100))
    print("fabric_virtual_ranks: hd of 128 ranks, 64 KiB, 400G, 600 ns switches, %s: "
          "credit %.3f us, none %.3f us (%+.2f%%)" % (lane, c, n, (c / n - 1) * 100))
PY
	{ show_log "$tmp/hd400credit3.log"; fail "credits at 400G: hd over $ranks ranks"; }
check_ok "credits at 400G: halving-doubling over 128 ranks within 2% (lane 0) and 10% (lossless lane 3) of no flow control"

# PFC at 400 Gb/s: headroom for the link (docs/fabric.md, "Headroom for
# the link"), and a lossless lane's frames wait where the pause reaches
# them (docs/simulation.md, "What differs from the real clock").
dpdk_prefix p vranks5
"$fab" "${eal[@]}" --file-prefix="$p" -- "$tmp/ft.yaml" --fc pfc \
	--pfc-reaction-us 1 --clock virtual --switch-latency 600ns --ctl-dir none \
	--json "$tmp/pfc400.fab.json" --gen "--engine hd --ranks $ranks --vlan 1 \
	--pcp 3 -b 2M -e 2M -n 1 -w 0 --json $tmp/pfc400.json" >"$tmp/pfc400.log" 2>&1 ||
	{ show_log "$tmp/pfc400.log"; fail "PFC at 400G: hd of 2 MiB over $ranks ranks: the run failed"; }
python3 - "$tmp/pfc400.json" "$tmp/pfc400.fab.json" <<'PY' ||
import json, sys
g, f = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
fr, sq, s = g["frames"], g["sequence"], g["sizes"][0]
assert s["failed"] == 0 and s["iters"] == 1, s
assert fr["tx"] == fr["rx"] > 0 and sq["lost"] == 0, (fr, sq)
ports = [p for sw in f["switches"] for p in sw["ports"]]
viol = sum(p["violations"] for p in ports)
drops = sum(p["dropped"] for p in ports)
xoff = sum(p["xoff_tx"] for p in ports)
assert viol == 0 and drops == 0, ("frames refused for want of headroom", viol, drops)
assert xoff > 0, "no XOFF sent: the run did not test the headroom"
print("fabric_virtual_ranks: PFC, hd of 2 MiB over 128 ranks at 400G: %d frames, "
      "%d XOFFs, none lost or refused, %.3f us simulated" % (fr["rx"], xoff, s["time_us"]))
PY
	{ show_log "$tmp/pfc400.log"; fail "PFC at 400G: not lossless"; }
check_ok "PFC at 400G: a 2 MiB halving-doubling over 128 ranks pauses and loses nothing"
