#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# ibex-fabric: whole fabrics of ibex switches in one process.
#
#   1. Every topology in conf/fabric loads, routes and validates with each
#      --fc mode; a broken one is refused with file:line. A 64-rank ring
#      runs on 4 leaves x 2 spines: more link ends than DPDK has ethdevs.
#   2. A ring all-reduce across leaf-spine-leaf (conf/fabric/leaf2-spine1)
#      with every frame accounted for, frames through the spine; the other
#      engines and a straggler across the same hops; and each
#      switch's own control socket (ibex-ctl --switch NAME) showing that
#      switch's ports and FDB.
#   3. A 7 -> 1 incast across leaf-spine-leaf on 2 leaves x 2 spines
#      (conf/fabric/leaf2-spine2-8 at 100 Mb/s), lossless lane VL 3:
#      with PFC everywhere (the ranks' MACs obey it), and with credits
#      everywhere (the generator speaks them), every frame arrives in order
#      and no switch drops one;
#      with flow control off the same run loses frames (the test can fail).
#      The cross-leaf flows spread over both spines.
#   4. ECMP over 2 spines: 64 flows out of each leaf (16 connections x 4
#      queue pairs, ibex-gen --qps 4) split within 10% of even over its
#      uplinks, and no queue pair's frames are reordered.
#   5. Adaptive routing (ecmp ... adaptive packet): with leaf1's link to
#      spine1 at a quarter of the rate, a ring all-reduce's frames leave
#      leaf1 mostly by the other spine (the flow hash splits them evenly),
#      none lost, and the receivers count the reordering it costs.
#   6. PFC deadlock: shortest-path routes on a ring of five switches
#      (conf/fabric/ring5.yaml, --routes shortest) close a cycle of buffer
#      dependencies; the watchdog finds each paused ring port within its
#      detection time, logs switch, port and priority, drains it and
#      traffic flows again. Up/down routes on the same ring: no storm, no
#      loss (the test can fail).
#   7. UEC trimming across the fabric: leaf ports trim what their full
#      lossy lane would drop; the generator's receivers take each trimmed
#      frame as a NACK and its sender retransmits it (and the recovery
#      time is measured); without trimming the same overload only drops.
#   8. Trimming vs drop-and-timeout: a 7 -> 1 incast (--engine incast)
#      on lossy lanes with ECN and DCQCN senders that retransmit after a
#      timeout (ibex-gen --rto). Dropping, every iteration completes
#      because the timeouts recover the lost frames; trimming, the NACKs
#      recover them, every trimmed frame is answered once, and no copy is
#      counted twice.
#
#   Parts 3 to 8 run under the virtual clock (--clock virtual,
#   docs/simulation.md) at the topologies' own 100 Gb/s: simulated time,
#   so what they show does not depend on the host's load (under the real
#   clock a busy host could not offer the overloads they need).
#
#   9. A run bound to fail (every lane maps the ranks' class to drop)
#      stops early, well before its sweep would end, exits non-zero, says
#      which switch port dropped the frames and why, and marks the sizes
#      it never ran; the per-hop table and its JSON show the same drops
#      (there and in the incasts of part 3, whose lossy run drops at the
#      lanes), and the report says how far the emulation fell behind.
#
#   test_fabric.sh IBEX_FABRIC IBEX_CTL CONF_DIR
# Environment: FAB_FRAMES (300000) frames of each incast.
set -euo pipefail
TEST_NAME=fabric
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

fab=${1:?usage: test_fabric.sh IBEX_FABRIC IBEX_CTL CONF_DIR}
ctl=${2:?usage: test_fabric.sh IBEX_FABRIC IBEX_CTL CONF_DIR}
confdir=${3:?usage: test_fabric.sh IBEX_FABRIC IBEX_CTL CONF_DIR}
[ -x "$fab" ] || skip "no ibex-fabric at $fab"
require_cmds python3
[ "$(nproc)" -ge 2 ] || skip "needs two CPUs"
frames=${FAB_FRAMES:-300000}

tmp=$(mktemp -d /tmp/ibex-fabric.XXXXXX)
on_exit rm -rf "$tmp"
on_exit kill_started
eal=(--lcores 0@0,1@1,2@0 --no-huge -m 2048 --no-pci --log-level='lib.*:notice')
# Parts 3-8: simulated time (docs/simulation.md); no control sockets.
vt=(--clock virtual --ctl-dir none)

# The per-hop table in LOG and the JSON report show the same figures:
# dropped, rx (data frames) and tx, for every switch port.
hops_agree() { # LOG JSON
	python3 - "$1" "$2" <<'PY'
import json, sys
log, js = sys.argv[1:3]
rows, head = {}, None
for line in open(log):
    w = line.split()
    if w[:3] == ["switch", "port", "to"]:
        head = w
    elif head and w and w[0] == "links:":
        break
    elif head and len(w) == len(head):
        rows[(w[0], w[1])] = dict(zip(head, w))
f = json.load(open(js))
hops = [(s["name"], p) for s in f["switches"] for p in s["ports"]]
assert len(hops) == len(rows) and hops, (len(hops), len(rows))
for name, p in hops:
    r = rows[(name, p["port"])]
    # lane_drops are a part of the drops by reason, never added to them
    assert int(r["dropped"]) == p["dropped"] == sum(p["drops"].values()), \
        ("dropped", name, p["port"], r["dropped"], p["dropped"], p["lane_drops"])
for name, p in hops:
    r = rows[(name, p["port"])]
    assert int(r["rx"]) == p["rx_frames"] and int(r["tx"]) == p["tx_frames"], (r, p)
    assert int(r["fc-rx"]) == p["fc_rx_frames"], (r, p)
PY
}

# ---- 1. loading, routing, refusals ----
for y in "$confdir"/fabric/*.yaml; do
	modes="none pfc credit credit-pfc"
	# Its lanes: key runs 2 VLs, none lossless: --fc's VL 3 is refused.
	case $y in */leaf4-spine2-16.yaml) modes=none ;; esac
	for m in "" $modes; do
		"$fab" --check "$y" ${m:+--fc "$m"} >"$tmp/check.log" 2>&1 ||
			{ show_log "$tmp/check.log"; fail "--check $y ${m:+--fc $m}"; }
	done
done
if "$fab" --check "$confdir/fabric/leaf4-spine2-16.yaml" --fc pfc >"$tmp/check.log" 2>&1 ||
	! grep -q "lane vl 3 is lossless but the port runs 2 VLs" "$tmp/check.log"; then
	show_log "$tmp/check.log"; fail "--fc pfc on a 2-VL fabric: no clear refusal"
fi
if "$fab" --check "$confdir/fabric/leaf2-spine1.yaml" --fc pfc --pfc-watchdog bogus \
	>"$tmp/check.log" 2>&1 || ! grep -q "watchdog: 'bogus' is not one of" "$tmp/check.log"; then
	show_log "$tmp/check.log"; fail "--pfc-watchdog bogus: no clear refusal"
fi
"$fab" --check "$confdir/fabric/leaf2-spine1.yaml" --fc pfc \
	--pfc-watchdog "alarm detect-ms 500" >"$tmp/check.log" 2>&1 ||
	{ show_log "$tmp/check.log"; fail "--pfc-watchdog 'alarm detect-ms 500'"; }
# The ranks' flow control follows the links': a --gen that disagrees is
# refused before anything runs (with --fc credit ibex-fabric itself gives
# the ranks "--fc credit --vl 3", as the README's command needs).
y8=$confdir/fabric/leaf2-spine2-8.yaml
for bad in "credit|--fc pfc|but the ranks' links speak credits" \
	"credit|--fc credit --vl 2|--gen has --vl 2, but the fabric's lossless lane is 3" \
	"pfc|--fc credit --vl 3|--gen has --fc credit, but the ranks' links give no credits"; do
	IFS='|' read -r m g want <<<"$bad"
	if "$fab" --check "$y8" --fc "$m" --gen "--engine ring --ranks 8 $g" \
		>"$tmp/check.log" 2>&1 || ! grep -qF -e "$want" "$tmp/check.log"; then
		show_log "$tmp/check.log"; fail "--fc $m with --gen '$g': no clear refusal"
	fi
done
"$fab" --check "$y8" --fc credit --gen "--engine ring --ranks 8 --fc credit --vl 3" \
	>"$tmp/check.log" 2>&1 || { show_log "$tmp/check.log"; fail "--fc credit with a matching --gen refused"; }
sed 's/"leaf2:p2", "spine1:p1"/"leaf2:p9", "spine1:p1"/' \
	"$confdir/fabric/leaf2-spine1.yaml" >"$tmp/bad.yaml"
if "$fab" --check "$tmp/bad.yaml" >"$tmp/bad.log" 2>&1; then
	fail "a link to an undeclared port was accepted"
fi
grep -q "bad.yaml:[0-9]*:.*p9" "$tmp/bad.log" ||
	{ show_log "$tmp/bad.log"; fail "no file:line for the bad port"; }
check_ok "topologies load and route; a bad port refused with file:line; --gen's flow control checked against the links'"

# The 4 x 2 leaf-spine with 64 ranks: 160 link ends, five times what
# DPDK's ethdev table holds (RTE_MAX_ETHPORTS 32), on in-process links.
dpdk_prefix pbig big
"$fab" "${eal[@]}" --file-prefix="$pbig" -- "$confdir/fabric/leaf4-spine2-64.yaml" \
	--json "$tmp/big.json" --gen "--engine ring --ranks 64 -b 4K -e 16K \
	-n 3 -w 1 --json $tmp/big.gen.json" >"$tmp/big.log" 2>&1 ||
	{ show_log "$tmp/big.log"; fail "64-rank ring on 4 leaves x 2 spines"; }
python3 - "$tmp" <<'PY' || { show_log "$tmp/big.log"; fail "64-rank accounting"; }
import json, sys
t = sys.argv[1]
g = json.load(open(f"{t}/big.gen.json"))
f = json.load(open(f"{t}/big.json"))
fr, q = g["frames"], g["sequence"]
assert fr["tx"] > 0 and fr["tx"] == fr["rx"], fr
assert q["lost"] == 0 and q["out_of_order"] == 0 and q["duplicate"] == 0, q
assert len(f["switches"]) == 6, [s["name"] for s in f["switches"]]
spines = sum(p["tx_frames"] for s in f["switches"] if s["name"].startswith("spine")
             for p in s["ports"])
assert spines > 0, "no frame crossed a spine"
print("fabric: 64 ranks: %d frames, %d through the spines" % (fr["rx"], spines))
PY
check_ok "64-rank ring on 4 leaves x 2 spines (160 link ends): every frame, in order"

# ---- 2. ring all-reduce across leaf-spine-leaf, per-switch sockets ----
dpdk_prefix pring ring
"$fab" "${eal[@]}" --file-prefix="$pring" -- "$confdir/fabric/leaf2-spine1.yaml" \
	--json "$tmp/ring.json" --gen "--engine ring --ranks 4 -b 4K -e 64K \
	-n 10 -w 2 --pcp 3 --vlan 1 --json $tmp/ring.gen.json" \
	>"$tmp/ring.log" 2>&1 || { show_log "$tmp/ring.log"; fail "ring all-reduce"; }
python3 - "$tmp" <<'PY' || { show_log "$tmp/ring.log"; fail "ring accounting"; }
import json, sys
t = sys.argv[1]
g = json.load(open(f"{t}/ring.gen.json"))
f = json.load(open(f"{t}/ring.json"))
fr, q = g["frames"], g["sequence"]
assert fr["tx"] > 0 and fr["tx"] == fr["rx"], fr
assert q["lost"] == 0 and q["out_of_order"] == 0 and q["duplicate"] == 0, q
sw = {s["name"]: {p["port"]: p for p in s["ports"]} for s in f["switches"]}
for p in ("p0", "p1"):
    assert sw["spine1"][p]["tx_frames"] > 0, sw["spine1"]
for s in sw.values():
    for p in s.values():
        assert p["dropped"] == 0 and p["lane_drops"] == 0, p
print("fabric: ring: %d frames, spine1 forwarded %d + %d" %
      (fr["rx"], sw["spine1"]["p0"]["tx_frames"], sw["spine1"]["p1"]["tx_frames"]))
PY
check_ok "ring all-reduce across leaf-spine-leaf: every frame, in order, through the spine"

# The other engines and a straggler, across the same hops.
for e in hd incast alltoall "ring --straggler 3:20:1"; do
	dpdk_prefix peng "eng${e%% *}"
	"$fab" "${eal[@]}" --file-prefix="$peng" -- "$confdir/fabric/leaf2-spine1.yaml" \
		--gen "--engine $e --ranks 4 -b 4K -e 64K -f 4 -n 5 -w 1 --pcp 3 \
		--vlan 1" >"$tmp/eng.log" 2>&1 ||
		{ show_log "$tmp/eng.log"; fail "--engine $e across the fabric"; }
	grep -q "sequence: lost 0 out-of-order 0 duplicate 0" "$tmp/eng.log" ||
		{ show_log "$tmp/eng.log"; fail "--engine $e: sequence errors"; }
done
check_ok "halving-doubling, incast, all-to-all and a straggler ring across the fabric, clean"

dpdk_prefix plive live
start_bg fpid "$tmp/live.log" "$fab" "${eal[@]}" --file-prefix="$plive" -- \
	"$confdir/fabric/leaf2-spine1.yaml" --duration 600
sock_of() { echo "/var/run/dpdk/$plive/ibex-ctl-$1.sock"; }
for s in spine1 leaf1 leaf2; do
	wait_until_or_dead 120 "$fpid" test -S "$(sock_of $s)" ||
		{ show_log "$tmp/live.log"; fail "no socket for $s"; }
done
wait_until_or_dead 120 "$fpid" "$ctl" -f "$plive" --switch spine1 show ports ||
	{ show_log "$tmp/live.log"; fail "spine1 does not answer"; }
"$ctl" -f "$plive" --switch spine1 --json show ports >"$tmp/spine1.ports.json"
"$ctl" -f "$plive" --switch leaf1 --json show fdb >"$tmp/leaf1.fdb.json"
"$ctl" -f "$plive" --switch leaf2 --json show ports >"$tmp/leaf2.ports.json"
python3 - "$tmp" <<'PY' || fail "per-switch views"
import json, sys
t = sys.argv[1]
def names(j):
    ports = j["ports"] if isinstance(j, dict) else j
    return sorted(p["name"] for p in ports)
assert names(json.load(open(f"{t}/spine1.ports.json"))) == ["p0", "p1"]
assert names(json.load(open(f"{t}/leaf2.ports.json"))) == ["p0", "p1", "p2"]
# leaf1 reaches its own ranks on p0/p1 and leaf2's through the spine (p2)
fdb = {e["mac"].lower(): e["port"]
       for e in json.load(open(f"{t}/leaf1.fdb.json"))["table"]}
assert fdb == {"02:00:00:00:01:01": "p0", "02:00:00:00:01:02": "p1",
               "02:00:00:00:02:01": "p2", "02:00:00:00:02:02": "p2"}, fdb
PY
if command -v dpdk-telemetry.py >/dev/null; then
	for s in spine1 leaf2; do
		echo "/ibex/$s/ports" | timeout 60 dpdk-telemetry.py -f "$plive" \
			>"$tmp/tel.$s.out" 2>&1 || true
	done
	grep -q '"/ibex/spine1/ports": \["p0", "p1"\]' "$tmp/tel.spine1.out" &&
		grep -q '"/ibex/leaf2/ports": \["p0", "p1", "p2"\]' "$tmp/tel.leaf2.out" ||
		{ cat "$tmp/tel.spine1.out" "$tmp/tel.leaf2.out" >&2; fail "per-switch telemetry"; }
	# A topic of each switch: show ports --json of that switch's own.
	echo "/ibex/leaf2/port_stats" | timeout 60 dpdk-telemetry.py -f "$plive" \
		>"$tmp/tel.leaf2.ps" 2>&1 || true
	tail -1 "$tmp/tel.leaf2.ps" | jq -e '."/ibex/leaf2/port_stats".ports |
		[.[].name] == ["p0", "p1", "p2"]' >/dev/null ||
		{ cat "$tmp/tel.leaf2.ps" >&2; fail "/ibex/leaf2/port_stats"; }
fi
stop_pid "$fpid" TERM
[ "$WAIT_RC" = 0 ] || { show_log "$tmp/live.log"; fail "SIGTERM: exit $WAIT_RC"; }
check_ok "each switch answers on its own socket and telemetry (/ibex/NAME/) with its own ports and FDB; SIGTERM exits 0"

# ---- 3. 7 -> 1 incast across leaf-spine-leaf, 2 spines ----
cp "$confdir/fabric/leaf2-spine2-8.yaml" "$tmp/t8.yaml"
flows=$(seq -s, 1 7 | sed 's/\([0-9]*\)/\1:0/g')
incast() { # MODE
	local p genfc=""
	dpdk_prefix p "inc$1"
	# Credits to the ranks too: the generator speaks them.
	[ "$1" = credit ] && genfc="--fc credit --vl 3"
	"$fab" "${eal[@]}" --file-prefix="$p" -- "$tmp/t8.yaml" --fc "$1" \
		"${vt[@]}" \
		--json "$tmp/inc.$1.json" --gen "--engine rate --ranks 8 $genfc \
		--flow $flows --pcp 3 --vlan 1 --size 128 --rate 120M \
		--frames $frames --duration 600 --json $tmp/inc.$1.gen.json" \
		>"$tmp/inc.$1.log" 2>&1 || true
	[ -s "$tmp/inc.$1.gen.json" ] && [ -s "$tmp/inc.$1.json" ] ||
		{ show_log "$tmp/inc.$1.log"; fail "incast --fc $1 did not finish"; }
}
judge() { # MODE lossless|lossy
	python3 - "$tmp" "$1" "$2" <<'PY'
import json, sys
t, mode, want = sys.argv[1:4]
g = json.load(open(f"{t}/inc.{mode}.gen.json"))
f = json.load(open(f"{t}/inc.{mode}.json"))
fr, q = g["frames"], g["sequence"]
hops = [(s["name"], p) for s in f["switches"] for p in s["ports"]]
# The ranks' hellos are broadcasts: where they arrive on a port off the
# flooding tree (flood-off), or at a spine whose only other port is off
# it (no-egress), they end, as they must: one per rank at most.
flood = ("flood-off", "no-egress")
# (a lane's drops are counted under their reason too: not added again)
drops = sum(sum(n for r, n in p["drops"].items() if r not in flood)
            for _, p in hops)
assert all(n <= 8 for _, p in hops for r, n in p["drops"].items()
           if r in flood), hops
up = {p["port"]: p["tx_frames"] for s in f["switches"] if s["name"] == "leaf2"
      for p in s["ports"] if p["port"] in ("p4", "p5")}
print("fabric: incast --fc %s: sent %d received %d lost %d out-of-order %d, "
      "switch drops %d; leaf2 uplinks p4 %d p5 %d"
      % (mode, fr["tx"], fr["rx"], q["lost"], q["out_of_order"], drops,
         up["p4"], up["p5"]))
if want == "lossless":
    assert fr["tx"] > 0 and fr["tx"] == fr["rx"], fr
    assert q["lost"] == 0 and q["out_of_order"] == 0, q
    assert drops == 0, drops
    assert up["p4"] > 0 and up["p5"] > 0, up
else:
    # A lossy incast proves something only if the ranks together offered
    # more than rank 0's 100 Gb/s link (under the virtual clock they offer
    # what they are told).
    wire = (g["rate"]["achieved_pps"] * (128 + 20) * 8) / 100e9
    print("fabric: incast --fc %s offered %.2fx rank 0's link" % (mode, wire))
    assert wire >= 1.15, wire
    assert q["lost"] > 0 or drops > 0, (q, drops)
PY
}
# The closing line and JSON: the offered 120M frames/s against the
# rate the generator achieved.
emulation() { # MODE
	grep -q "^emulation: offered 120000000 fps, achieved [0-9]* fps" "$tmp/inc.$1.log" &&
	python3 - "$tmp/inc.$1.json" <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))["emulation"]
assert e["offered_fps"] == 120000000 and e["achieved_fps"] > 0, e
assert abs(e["achieved_ratio"] - e["achieved_fps"] / 120000000) < 1e-3, e
print("fabric: emulation: offered %d fps, achieved %d (%.1f%%), %d pacer resyncs, "
      "max stall %.0f us" % (e["offered_fps"], e["achieved_fps"], 100 * e["achieved_ratio"],
      e["pacer_resyncs"], e["stall_max_us"]))
PY
}
for m in pfc credit; do
	incast "$m"
	judge "$m" lossless || { show_log "$tmp/inc.$m.log"; fail "incast --fc $m lost frames"; }
	hops_agree "$tmp/inc.$m.log" "$tmp/inc.$m.json" ||
		{ show_log "$tmp/inc.$m.log"; fail "incast --fc $m: per-hop text and JSON disagree"; }
done
emulation pfc || { show_log "$tmp/inc.pfc.log"; fail "no emulation line"; }
# Without flow control the incast must lose frames.
incast none
judge none lossy ||
	{ show_log "$tmp/inc.none.log"; fail "incast without flow control lost nothing: the test cannot fail"; }
# Its drops are lane drops (lossy-full), which the data path counts
# under their reason too: the table once added them twice.
hops_agree "$tmp/inc.none.log" "$tmp/inc.none.json" ||
	{ show_log "$tmp/inc.none.log"; fail "incast --fc none: per-hop text and JSON disagree on drops"; }
check_ok "7 -> 1 incast across leaf-spine-leaf: lossless with PFC and with credits, lossy without"

# ---- 4. ECMP: 64 flows over the 2 spines ----
dpdk_prefix pecmp ecmp
flows=$(for s in 0 1 2 3; do for d in 4 5 6 7; do echo -n "$s:$d,$d:$s,"; done; done)
"$fab" "${eal[@]}" --file-prefix="$pecmp" -- "$confdir/fabric/leaf2-spine2-8.yaml" \
	--fc pfc "${vt[@]}" --json "$tmp/ecmp.json" --gen "--engine rate --ranks 8 \
	--flow ${flows%,} --qps 4 --pcp 3 --vlan 1 --size 128 --rate 128M \
	--frames 256000 --duration 600 --json $tmp/ecmp.gen.json" \
	>"$tmp/ecmp.log" 2>&1 || true
[ -s "$tmp/ecmp.gen.json" ] && [ -s "$tmp/ecmp.json" ] ||
	{ show_log "$tmp/ecmp.log"; fail "ECMP run did not finish"; }
python3 - "$tmp" <<'PY' || { show_log "$tmp/ecmp.log"; fail "ECMP spread"; }
import json, sys
t = sys.argv[1]
g = json.load(open(f"{t}/ecmp.gen.json"))
f = json.load(open(f"{t}/ecmp.json"))
fr, q = g["frames"], g["sequence"]
assert g["qps"] == 4, g["qps"]
assert fr["tx"] >= 256000 and fr["tx"] == fr["rx"], fr
assert q["lost"] == 0 and q["out_of_order"] == 0, q
for s in f["switches"]:
    if not s["name"].startswith("leaf"):
        continue
    up = {p["port"]: p["tx_frames"] for p in s["ports"] if p["port"] in ("p4", "p5")}
    half = (up["p4"] + up["p5"]) / 2
    print("fabric: ECMP: %s's 64 flows over its uplinks: p4 %d p5 %d (%+.2f%% of even)"
          % (s["name"], up["p4"], up["p5"], (up["p4"] - half) / half * 100))
    assert all(abs(n - half) <= 0.10 * half for n in up.values()), up
PY
check_ok "ECMP: 64 flows a leaf over 2 spines within 10% of even, no QP reordered"

# ---- 5. adaptive routing around a hot spine link ----
# At 100 Mb/s (25 on the hot link) the ring is bound by the links, not
# by the credits' round trip as at 100 Gb/s: the hot link fills.
awk '/endpoints: \["leaf1:p[0-9]*", "spine1:/ {print; print "      rate: 25M"; next} {print}' \
	"$confdir/fabric/leaf2-spine2-8.yaml" | sed 's/rate: 100G/rate: 100M/' >"$tmp/hot.yaml"
for e in hash packet; do
	dpdk_prefix par "ar$e"
	"$fab" "${eal[@]}" --file-prefix="$par" -- "$tmp/hot.yaml" --fc credit \
		"${vt[@]}" --ecmp "$e" --json "$tmp/ar.$e.json" --gen "--engine ring --ranks 8 \
		-b 256K -e 256K -n 3 -w 1 --vlan 1 --pcp 3 --fc credit --vl 3 \
		--qps 4 --timeout-ms 60000 --json $tmp/ar.$e.gen.json" \
		>"$tmp/ar.$e.log" 2>&1 || true
	[ -s "$tmp/ar.$e.gen.json" ] && [ -s "$tmp/ar.$e.json" ] ||
		{ show_log "$tmp/ar.$e.log"; fail "adaptive routing run ($e) did not finish"; }
done
python3 - "$tmp" <<'PY' || { show_log "$tmp/ar.packet.log"; fail "adaptive routing"; }
import json, re, sys
t = sys.argv[1]
ups = re.findall(r'endpoints: \["leaf1:(p\d+)", "(spine\d+):', open(f"{t}/hot.yaml").read())
hot = [p for p, sp in ups if sp == "spine1"][0]
cool = [p for p, sp in ups if sp != "spine1"][0]
share = {}
for e in ("hash", "packet"):
    g = json.load(open(f"{t}/ar.{e}.gen.json"))
    h = json.load(open(f"{t}/ar.{e}.json"))
    fr, q = g["frames"], g["sequence"]
    assert fr["tx"] > 0 and fr["tx"] == fr["rx"] and q["lost"] == 0, (e, fr, q)
    assert g["sizes"][0]["failed"] == 0, g["sizes"]
    up = {p["port"]: p["tx_frames"] for s in h["switches"] if s["name"] == "leaf1"
          for p in s["ports"]}
    share[e] = up[hot] / (up[hot] + up[cool])
    print("fabric: ECMP %s, hot link: leaf1 %s (hot) %d frames, %s %d; late %d, "
          "reorder depth %d, buffer %d B" % (e, hot, up[hot], cool, up[cool],
          g["reorder"]["late"], g["reorder"]["max_depth"], g["reorder"]["buffer_bytes"]))
    if e == "hash":
        assert q["out_of_order"] == 0, q
# The hash splits QPs evenly whatever the rates; adaptive routing moves
# frames off the slow link.
assert abs(share["hash"] - 0.5) < 0.1, share
assert share["packet"] < 0.4, share
PY
check_ok "adaptive routing: frames move off a hot spine link, none lost, reordering counted"

# ---- 6. PFC deadlock on a ring with shortest-path routes ----
# At 10 Gb/s: 50 ms of traffic, watchdog periods of 5 ms. --pfc-reaction-us
# 30: a switch port's TX buffer holds up to a burst (32 frames, 27 us at
# 10 Gb/s) that passed the PFC gate before the pause came; the headroom
# covers it.
sed 's/rate: 100G/rate: 10G/' "$confdir/fabric/ring5.yaml" >"$tmp/ring5.yaml"
cp "$confdir/fabric/leaf.conf" "$tmp/"
dl_run() { # ROUTES
	local pdl
	dpdk_prefix pdl "dl$1"
	"$fab" "${eal[@]}" --file-prefix="$pdl" -- "$tmp/ring5.yaml" --fc pfc \
		--routes "$1" "${vt[@]}" --pfc-reaction-us 30 \
		--pfc-watchdog 'drop detect-ms 5 recover-ms 5' \
		--json "$tmp/dl.$1.json" --gen "--engine rate --ranks 5 \
		--flow 0:2,1:3,2:4,3:0,4:1 --pcp 3 --vlan 1 --size 1024 --rate 6M \
		--frames 300000 --duration 600 --json $tmp/dl.$1.gen.json" \
		>"$tmp/dl.$1.log" 2>&1 || true
	[ -s "$tmp/dl.$1.gen.json" ] && [ -s "$tmp/dl.$1.json" ] ||
		{ show_log "$tmp/dl.$1.log"; fail "deadlock run (--routes $1) did not finish"; }
}
dl_judge() { # ROUTES
	python3 - "$tmp" "$1" <<'PY'
import json, re, sys
t, r = sys.argv[1:3]
g = json.load(open(f"{t}/dl.{r}.gen.json"))
h = json.load(open(f"{t}/dl.{r}.json"))
fr, q = g["frames"], g["sequence"]
storms = {(s["name"], p["port"]): p["pfc_storms"] for s in h["switches"]
          for p in s["ports"] if p["pfc_storms"]}
log = open(f"{t}/dl.{r}.log").read()
lines = re.findall(r"switch (s\d): port (p\d+) priority (\d): PFC storm "
                   r"\(paused ([0-9.]+) ms\)", log)
# The cycle closes only when each ring link (two flows) is offered
# more than it carries: each flow above half a link (10 Gb/s,
# 1,024-byte frames + 24 bytes of preamble, FCS and gap): each is offered
# 6M / 5 frames/s, above the 596,000 that close the cycle.
secs = g["rate"]["elapsed_s"]
half_link = 10e9 / ((1024 + 24) * 8) / 2
flow_fps = fr["tx"] / 5 / secs if secs > 0 else 0
print("fabric: --routes %s: sent %d received %d lost %d; storms %s; "
      "each flow offered %.0f frames/s (the cycle closes above %.0f)"
      % (r, fr["tx"], fr["rx"], q["lost"], storms, flow_fps, half_link))
if r == "updown":
    assert not storms and not lines, (storms, lines)
    assert fr["tx"] >= 300000 and fr["tx"] == fr["rx"] and q["lost"] == 0, (fr, q)
    sys.exit(0)
# Deadlocked: every switch's clockwise ring port (p1) stormed, each
# found within its detection time (5 ms; the check runs every
# millisecond), logged with its switch, port and priority, and restored.
assert 6e6 / 5 > half_link
assert len(storms) >= 3 and all(p == "p1" for _, p in storms), storms
assert lines and all(pr == "3" and float(ms) < 7.5 for _, _, pr, ms in lines), lines
for sw, port, pr, ms in lines[:5]:
    print("fabric: deadlock: switch %s port %s priority %s paused %s ms: drained"
          % (sw, port, pr, ms))
assert "storm over, lane restored" in log
# broken and recovered: traffic flowed again after each break (the
# first deadlock forms within a millisecond, some 6,000 frames into the
# run; the offered load closes the cycle again after each restore, so
# most frames end in the watchdog's drains: 19 % arrived, measured)
assert fr["tx"] >= 300000 and fr["rx"] > 0.1 * fr["tx"], fr
PY
}
dl_run shortest
dl_judge shortest || { show_log "$tmp/dl.shortest.log"; fail "PFC deadlock"; }
dl_run updown
dl_judge updown || { show_log "$tmp/dl.updown.log"; fail "PFC deadlock: up/down routes stormed or lost"; }
check_ok "PFC deadlock on a routing cycle: detected, logged, broken, recovered; none with up/down"

# ---- 7. UEC trimming: NACKs and retransmissions ----
awk '/^  nodes:/ { print "  lanes:"; print "    vls: 4"; print "    pcp2sl: \"0-7:0,3:3\"";
	print "    sl2vl: \"0-15:0,3:3\""; print "    vlarb: \"high 2:255 low 0:32,3:32 limit 8\"" }
	{ print }' "$confdir/fabric/leaf2-spine2-8.yaml" |
	sed -e 's/\(leaf[0-9]*\): {kind: ibex, ports: 6}/\1: {kind: ibex, ports: 6, config: trim.conf}/' \
	>"$tmp/trim.yaml"
for m in on off; do
	{
		for k in 0 1 2 3; do echo "port p$k"; done
		for k in 0 1 2 3; do
			[ $m = on ] && echo "trim p$k size 256 dscp 46 vl 2" || echo "trim p$k off"
		done
	} >"$tmp/trim.conf"
	dpdk_prefix ptr "trim$m"
	"$fab" "${eal[@]}" --file-prefix="$ptr" -- "$tmp/trim.yaml" --fc none \
		"${vt[@]}" --json "$tmp/trim.$m.json" --gen "--engine rate --ranks 8 \
		--flow 4:0:7M,5:0:7M --vlan 1 --pcp 3 --size 1024 --frames 28000 \
		--duration 600 --json $tmp/trim.$m.gen.json" >"$tmp/trim.$m.log" 2>&1 || true
	[ -s "$tmp/trim.$m.gen.json" ] ||
		{ show_log "$tmp/trim.$m.log"; fail "trimming run ($m) did not finish"; }
done
python3 - "$tmp" <<'PY' || { show_log "$tmp/trim.on.log"; fail "trimming"; }
import json, sys
t = sys.argv[1]
on = json.load(open(f"{t}/trim.on.gen.json"))
off = json.load(open(f"{t}/trim.off.gen.json"))
tr = on["trim"]
print("fabric: trimming: %d trimmed frames (NACKs), %d retransmitted, %d arrived; "
      "recovery p50 %.1f us, max %.1f us; without trimming %d lost"
      % (tr["trimmed_rx"], tr["retx_tx"], tr["retx_rx"], tr["recovery_p50_ns"] / 1e3,
         tr["recovery_max_ns"] / 1e3, off["sequence"]["lost"]))
# Every NACK is answered, refused by a full queue (rarely: a sender's
# queue holds 1024) or still queued when the run ended.
assert tr["trimmed_rx"] > 0, tr
assert tr["retx_tx"] + tr["nack_lost"] + tr["retx_pending"] == tr["trimmed_rx"], tr
assert tr["nack_lost"] <= tr["trimmed_rx"] // 100, tr
assert tr["retx_tx"] >= 0.9 * tr["trimmed_rx"], tr
assert tr["retx_rx"] > 0 and tr["recovery_max_ns"] > 0, tr
assert off["trim"]["trimmed_rx"] == 0 and off["sequence"]["lost"] > 0, off["sequence"]
# every NACK a receiver took was trimmed by a switch port, and counted there
hops = json.load(open(f"{t}/trim.on.json"))
sw = sum(p["trimmed"] for s in hops["switches"] for p in s["ports"])
assert sw >= tr["trimmed_rx"], (sw, tr["trimmed_rx"])
PY
check_ok "UEC trimming: trimmed frames come back as NACKs and are retransmitted; without it they are lost"


# ---- 8. trimming vs drop-and-timeout: every loss recovered ----
# Ports shaped just below the link with a short TX ring, so the queue is
# the lane's (where ECN and trimming act); DCQCN at its own timers. The
# RTO (1 ms) is far above the path's delay and a NACK's round trip (9 us
# p50 measured): a timeout is a loss, not a late frame.
awk '/^  nodes:/ { print "  lanes:"; print "    vls: 4"; print "    pcp2sl: \"0-7:0,3:3\"";
	print "    sl2vl: \"0-15:0,3:3\""; print "    vlarb: \"high 2:255 low 0:32,3:32 limit 8\"" }
	{ print }' "$confdir/fabric/leaf2-spine2-8.yaml" |
	sed -e 's/\(leaf[0-9]*\): {kind: ibex, ports: 6}/\1: {kind: ibex, ports: 6, config: rto6.conf}/' \
	    -e 's/\(spine[0-9]*\): {kind: ibex, ports: 2}/\1: {kind: ibex, ports: 2, config: rto2.conf}/' \
	>"$tmp/rto.yaml"
for m in drop trim; do
	for n in 2 6; do
		{
			for ((k = 0; k < n; k++)); do
				echo "port p$k tx-desc 64 vl-queue 16KB shape 98G"
			done
			for ((k = 0; k < n; k++)); do
				echo "ecn p$k vl 3 kmin 4KB kmax 12KB pmax 0.2"
				[ $m = trim ] && echo "trim p$k size 256 dscp 46 vl 2"
			done
		} >"$tmp/rto$n.conf"
	done
	dpdk_prefix prto "rto$m"
	"$fab" "${eal[@]}" --file-prefix="$prto" -- "$tmp/rto.yaml" --fc none \
		"${vt[@]}" --json "$tmp/rto.$m.json" --gen "--engine incast --ranks 8 -b 256K \
		-e 256K -n 3 -w 0 --qps 4 --vlan 1 --pcp 3 --dcqcn \
		--rto 1000 --timeout-ms 120000 --json $tmp/rto.$m.gen.json" \
		>"$tmp/rto.$m.log" 2>&1 || true
	[ -s "$tmp/rto.$m.gen.json" ] ||
		{ show_log "$tmp/rto.$m.log"; fail "incast with --rto ($m) did not finish"; }
done
python3 - "$tmp" <<'PY' || { show_log "$tmp/rto.trim.log"; fail "trimming vs drop-and-timeout"; }
import json, sys
t = sys.argv[1]
dr = json.load(open(f"{t}/rto.drop.gen.json"))
tr = json.load(open(f"{t}/rto.trim.gen.json"))
for name, g in (("drop", dr), ("trim", tr)):
    s = g["sizes"][0]
    print("fabric: incast, %s: completion p50 %.1f ms, p99 %.1f ms; %d timeouts "
          "(%d recovered), %d trimmed, %d duplicates" % (name, s["ct_p50_us"] / 1e3,
          s["ct_p99_us"] / 1e3, g["rto"]["rto_tx"], g["rto"]["rto_rx"],
          g["trim"]["trimmed_rx"], g["rto"]["dup_rx"]))
    # every iteration completed: each lost frame was sent again and its
    # payload counted once (a duplicate counted twice would end an
    # iteration early, never fail it; the sequence checker sees them)
    assert s["iters"] == 3 and s["failed"] == 0, s
    assert g["sequence"]["lost"] == 0, g["sequence"]
# dropping: the timeouts did the recovery, and nothing was trimmed
assert dr["trim"]["trimmed_rx"] == 0 and dr["rto"]["rto_rx"] > 0, dr["rto"]
# trimming: every trimmed frame a NACK, each answered once (sent again,
# refused by a full queue and left to its timeout, or already on its way)
r = tr["trim"]
assert r["trimmed_rx"] > 0 and r["retx_rx"] > 0, r
assert r["retx_tx"] + r["nack_lost"] + r["retx_pending"] + tr["rto"]["nack_dup"] == \
    r["trimmed_rx"], (r, tr["rto"])
hops = json.load(open(f"{t}/rto.trim.json"))
sw = sum(p["trimmed"] for s in hops["switches"] for p in s["ports"])
assert sw >= r["trimmed_rx"], (sw, r["trimmed_rx"])
PY
check_ok "trimming vs drop-and-timeout: timeouts recover the dropped frames, NACKs the trimmed ones; every iteration completes"

# ---- 9. a run bound to fail stops early and says where ----
# Every port maps PCP 3 (the ranks' class) to SL 3 and SL 3 to drop (VL 3
# stays reachable from PCP 4): nothing the ranks send arrives. The sweep
# (9 sizes x 25 iterations, 2 s each to time out) would take 450 s.
sed -e 's/sl2vl: "0-15:0,3:3"/sl2vl: "0-15:0,3:drop,4:3"/' \
    -e 's/pcp2sl: "0-7:0,3:3"/pcp2sl: "0-7:0,3:3,4:4"/' \
	"$confdir/fabric/leaf2-spine1.yaml" >"$tmp/drop.yaml"
cp "$confdir"/fabric/*.conf "$tmp/"
grep -q '3:drop' "$tmp/drop.yaml" || fail "drop.yaml: no drop in its lanes"
dpdk_prefix pdrop drop
t0=$(date +%s)
rc=0
"$fab" "${eal[@]}" --file-prefix="$pdrop" -- "$tmp/drop.yaml" --json "$tmp/drop.json" \
	--gen "--engine ring --ranks 4 -b 4K -e 1M -n 20 -w 5 --pcp 3 --vlan 1 \
	--json $tmp/drop.gen.json" >"$tmp/drop.log" 2>&1 || rc=$?
secs=$(($(date +%s) - t0))
# Three timeouts (6 s) and the start: a third of the sweep is a margin
# for a busy machine, and still far from its 450 s.
[ "$rc" != 0 ] || { show_log "$tmp/drop.log"; fail "a run that lost every frame exited 0"; }
[ "$secs" -lt 150 ] || { show_log "$tmp/drop.log"; fail "a run that lost every frame took $secs s"; }
grep -q "^# STOPPED EARLY: 3 iterations in a row failed" "$tmp/drop.log" &&
	grep -Eq "^  leaf[12] p[01] \(link to rank[0-3]:eth0\): [0-9]+ sl-drop: SL maps to VL15" "$tmp/drop.log" &&
	grep -Eq "^ +1048576 +262144 +float +not run " "$tmp/drop.log" ||
	{ show_log "$tmp/drop.log"; fail "the early stop does not say why, where, or what did not run"; }
python3 - "$tmp" "$secs" <<'PY' || { show_log "$tmp/drop.log"; fail "early stop: JSON"; }
import json, sys
t, secs = sys.argv[1], sys.argv[2]
g = json.load(open(f"{t}/drop.gen.json"))
f = json.load(open(f"{t}/drop.json"))
assert g["stopped_early"] and g["frames"]["rx"] == 0, (g["stopped_early"], g["frames"])
s0, rest = g["sizes"][0], g["sizes"][1:]
assert s0["ran"] and s0["attempted"] == 3 and s0["iters"] == 0 and s0["time_us"] is None, s0
assert rest and all(not s["ran"] and s["attempted"] == 0 and s["time_us"] is None
                    and s["busbw_gbs"] is None for s in rest), rest
fl = f["failed"]
assert fl and fl["reason"] == g["stopped_early"], fl
top = fl["losses"][0]
assert top["reason"] == "sl-drop" and top["switch"].startswith("leaf") and \
    top["to"].startswith("rank"), fl["losses"]
assert f["emulation"]["offered_fps"] is None and "stall_max_us" in f["emulation"], f["emulation"]
print("fabric: a run bound to fail stopped after %s s: %s; first loss: %s %s %s x%d"
      % (secs, g["stopped_early"], top["switch"], top["port"], top["reason"], top["frames"]))
PY
hops_agree "$tmp/drop.log" "$tmp/drop.json" ||
	{ show_log "$tmp/drop.log"; fail "early stop: per-hop text and JSON disagree"; }
check_ok "a run bound to fail stops early (non-zero exit), names the port that dropped and why, marks the sizes it never ran"

