#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# UEC CBFC across leaf-spine-leaf on the virtual clock (docs/cbfc.md):
# `ibex-topo leaf-spine --leaves 2 --spines 1 --ranks-per-leaf 8`, 100G,
# `ibex-fabric --fc cbfc`, ranks 1..15 send 1 KiB frames flat out to
# rank 0 (the ranks of leaf1 through leaf1 - spine0 - leaf0):
#
#   1. lossless: every frame received, none dropped by any switch;
#   2. leaks repaired: the leaf1 - spine0 link loses FRAC_LOSS of its
#      frames (the receiving MAC's bad FCS, both ways: CF_Updates too).
#      The ranks lose exactly the frames the wire lost; spine0 recovers
#      the credits of every one of them with its CC_Updates (8 credits a
#      1 KiB frame); as many frames cross the spine as without losses
#      (within 2%);
#   3. without CC_Update (`--cbfc 'cc-timer-us 0'`) the same leaks starve
#      the VC: fewer than 3/4 of them cross the spine, nothing recovered;
#      the frames it still holds when the run ends are dropped then, at
#      leaf1's port (tx-full), and nothing else is.
#
#   4. every lane: the fabric's lanes 15, each lossless, classified by
#      DSCP (`lanes: {sl-from: dscp, dscp2sl: C:C}`), rank r on class
#      r - 1 (`--class-by dscp`): lossless on all fifteen VCs, the
#      senders held back by the send rule.
#
#   test_fabric_cbfc.sh IBEX_FABRIC IBEX_TOPO
# Environment: CBFC_FRAMES (4000000) frames a run sends (the fourth a
# quarter of them), CBFC_LOSS (3e-4).
# The virtual clock makes each run the same whatever the machine's load.
set -euo pipefail
TEST_NAME=fabric_cbfc
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

fab=${1:?usage: test_fabric_cbfc.sh IBEX_FABRIC IBEX_TOPO}
topo=${2:?usage: test_fabric_cbfc.sh IBEX_FABRIC IBEX_TOPO}
[ -x "$fab" ] || skip "no ibex-fabric at $fab"
[ -x "$topo" ] || skip "no ibex-topo at $topo"
require_cmds python3
frames=${CBFC_FRAMES:-4000000}
loss=${CBFC_LOSS:-3e-4}

tmp=$(mktemp -d /tmp/ibex-fabric-cbfc.XXXXXX)
on_exit rm -rf "$tmp"

"$topo" leaf-spine --leaves 2 --spines 1 --ranks-per-leaf 8 --rate 100G \
	-o "$tmp/ls.yaml" || fail "ibex-topo failed"
sed 's|^\(    - endpoints: \["leaf1:p8", "spine0:p1"\]\)$|\1\n      loss: '"$loss"'|' \
	"$tmp/ls.yaml" >"$tmp/lossy.yaml"
grep -q "loss: $loss" "$tmp/lossy.yaml" || fail "no lossy link written"

# the fifteen lanes: DSCP C is SL C is VL C, every one lossless
map="" lossless="" classes=""
for ((v = 0; v < 15; v++)); do
	map+="${map:+,}$v:$v"
	lossless+="${lossless:+,}$v"
done
"$topo" leaf-spine --leaves 2 --spines 1 --ranks-per-leaf 8 --rate 100G \
	--lanes vls=15 --lanes sl-from=dscp --lanes "dscp2sl=$map" \
	--lanes "lossless=$lossless" -o "$tmp/lanes.yaml" ||
	fail "ibex-topo failed (lanes)"

flows=""
for ((r = 1; r < 16; r++)); do
	flows+="${flows:+,}$r:0"
	classes+="${classes:+,}$r:0@$((r - 1))"
done

# $1 name, $2 topology, $3 --cbfc keys, $4 the flows and their classes,
# $5 frames
run() {
	"$fab" --lcores 0@0,1@1,2@0 --no-huge -m 2048 --no-pci \
		--log-level='lib.*:notice' -- "$2" --fc cbfc --cbfc "$3" \
		--clock virtual --ctl-dir none --json "$tmp/$1.json" \
		--gen "--engine rate --ranks 16 $4 \
		--size 1024 --frames $5 --duration 2 \
		--json $tmp/$1.gen.json" >"$tmp/$1.log" 2>&1 || {
		# the generator's exit 3 (frames lost) is judged below
		[ -s "$tmp/$1.gen.json" ] ||
			{ show_log "$tmp/$1.log"; fail "ibex-fabric failed ($1)"; }
	}
}

pcp3="--flow $flows --vlan 1 --pcp 3"
run clean "$tmp/ls.yaml" "cc-timer-us 256" "$pcp3" "$frames"
run leaky "$tmp/lossy.yaml" "cc-timer-us 256" "$pcp3" "$frames"
run starved "$tmp/lossy.yaml" "cc-timer-us 0" "$pcp3" "$frames"
run lanes "$tmp/lanes.yaml" "cc-timer-us 256" \
	"--flow $classes --class-by dscp" "$((frames / 4))"

python3 - "$tmp" "$frames" <<'PY' || fail "accounting"
import json, sys
tmp, frames = sys.argv[1], int(sys.argv[2])

def load(name):
    g = json.load(open(f"{tmp}/{name}.gen.json"))
    f = json.load(open(f"{tmp}/{name}.json"))
    ports = {(s["name"], p["port"]): p for s in f["switches"] for p in s["ports"]}
    drops = sum(p["dropped"] for p in ports.values())
    return g, ports, drops

res = {}
for name in ("clean", "leaky", "starved"):
    g, ports, drops = load(name)
    up = ports[("spine0", "p1")]      # receives leaf1's frames
    down = ports[("leaf1", "p8")]     # sends them
    res[name] = (g, up, down, drops)
    print("fabric_cbfc: %s: sent %d received %d lost %d; switch drops %d; "
          "across the spine %d of %d sent; credits recovered %d; leaf1's "
          "credits in use at most %d" % (name, g["frames"]["tx"],
          g["frames"]["rx"], g["sequence"]["lost"], drops, up["rx_frames"],
          down["tx_frames"], up["cbfc_recovered"],
          down["cbfc_used_watermark"]))

g, up, down, drops = res["clean"]
assert g["frames"]["tx"] >= frames, g["frames"]
assert g["frames"]["tx"] == g["frames"]["rx"], g["frames"]
assert g["sequence"]["lost"] == 0 and g["sequence"]["out_of_order"] == 0
assert drops == 0 and up["cbfc_recovered"] == 0, (drops, up)
assert down["cbfc_used_watermark"] > 0, down
clean_across = up["rx_frames"]

g, up, down, drops = res["leaky"]
wire_lost = down["tx_frames"] - up["rx_frames"]
assert wire_lost > 0, "the lossy link lost nothing: the test cannot fail"
assert g["sequence"]["lost"] == wire_lost, (g["sequence"], wire_lost)
assert g["sequence"]["out_of_order"] == 0 and drops == 0, (g, drops)
# 1 KiB frames: 8 credits of 128 bytes each
assert up["cbfc_recovered"] == 8 * wire_lost, (up, wire_lost)
assert up["rx_frames"] >= 0.98 * clean_across, (up, clean_across)

g, up, down, drops = res["starved"]
assert up["cbfc_recovered"] == 0, up
assert up["rx_frames"] < 0.75 * clean_across, (up, clean_across)
# What the starved VC still held when the run ended is dropped then, at
# leaf1's port, and only that.
assert drops == down["dropped"] == down["drops"].get("tx-full", 0), \
    (drops, down)

g, ports, drops = load("lanes")
cb = g["flow_control"]["cbfc"]
print("fabric_cbfc: 15 lanes: sent %d received %d lost %d; switch drops %d; "
      "senders held back %d times; leaf1's credits in use at most %d" % (
      g["frames"]["tx"], g["frames"]["rx"], g["sequence"]["lost"], drops,
      cb["stalls"], ports[("leaf1", "p8")]["cbfc_used_watermark"]))
assert g["frames"]["tx"] >= frames // 4, g["frames"]
assert g["frames"]["tx"] == g["frames"]["rx"], g["frames"]
assert g["sequence"]["lost"] == 0 and g["sequence"]["out_of_order"] == 0
assert drops == 0, drops
assert cb["stalls"] > 0 and cb["cf_update_bad"] == cb["cc_update_bad"] == 0, cb
PY
check_ok "CBFC across leaf-spine-leaf: lossless, on one lane and on all fifteen; a lossy link's leaks recovered by CC_Update, the VC starved without it"
