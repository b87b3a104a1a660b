#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# UEC link-level retry across leaf-spine-leaf on the virtual clock
# (docs/llr.md, docs/fabric.md): `ibex-topo leaf-spine --leaves 2
# --spines 1 --ranks-per-leaf 2`, 200G, 25 ns (5 m) links, the leaf1 -
# spine0 link losing LLR_LOSS of its frames (a bad FCS at the receiving
# MAC, both ways), a ring all-reduce of 1 KiB to 1 MiB over the 4 ranks
# (the ranks of leaf1 reach the others only across that link):
#
#   1. refusals (exit 2, no EAL): an --llr that is no preset, --llr with
#      --fc pfc and credit-pfc (the MAC that obeys PFC has no LLR), a
#      link's `llr:` that is no preset (exit 1, file:line);
#   2. without LLR the frames the link loses stay lost: the collective
#      fails (exit 1), the generator counts them lost;
#   3. without LLR, with the generator's --rto: it completes, by
#      end-to-end retransmissions;
#   4. --llr 200g-5m: it completes with nothing lost, out of order or
#      duplicated, no switch drop; every switch port's link end reports
#      LLR, the lossy link's ends NACKed and replayed what arrived bad,
#      nothing was given up; the ranks' ends report theirs in the rows
#      of the switch ports facing them (peer_llr_*) and a line of their
#      own;
#   5. `llr: 200g-5m` on the lossy link only (no --llr): the same, and
#      only that link's two ends report LLR, no rank's;
#   6. the rank0 - leaf0 link lossy instead, --llr: rank0's end NACKs
#      what arrived bad and replays what leaf0 NACKed, and so does
#      leaf0's; nothing lost.
#
#   test_fabric_llr.sh IBEX_FABRIC IBEX_TOPO
# Environment: LLR_LOSS (1e-3). Each run takes about 2 s of wall time
# (1.2 s of it starting the generator); the virtual clock makes every
# figure the same whatever the machine's load.
set -euo pipefail
TEST_NAME=fabric_llr
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

fab=${1:?usage: test_fabric_llr.sh IBEX_FABRIC IBEX_TOPO}
topo=${2:?usage: test_fabric_llr.sh IBEX_FABRIC IBEX_TOPO}
[ -x "$fab" ] || skip "no ibex-fabric at $fab"
[ -x "$topo" ] || skip "no ibex-topo at $topo"
require_cmds python3
loss=${LLR_LOSS:-1e-3}

tmp=$(mktemp -d /tmp/ibex-fabric-llr.XXXXXX)
on_exit rm -rf "$tmp"

"$topo" leaf-spine --leaves 2 --spines 1 --ranks-per-leaf 2 --rate 200G \
	--delay 25ns -o "$tmp/ls.yaml" || fail "ibex-topo failed"
lossy='^\(    - endpoints: \["leaf1:p2", "spine0:p1"\]\)$'
sed "s|$lossy|\1\n      loss: $loss|" "$tmp/ls.yaml" >"$tmp/lossy.yaml"
sed "s|$lossy|\1\n      loss: $loss\n      llr: 200g-5m|" "$tmp/ls.yaml" \
	>"$tmp/lossy_key.yaml"
sed "s|$lossy|\1\n      llr: 100g-5m|" "$tmp/ls.yaml" >"$tmp/bad_key.yaml"
rank_link='^\(    - endpoints: \["rank0:eth0", "leaf0:p0"\]\)$'
sed "s|$rank_link|\1\n      loss: $loss|" "$tmp/ls.yaml" >"$tmp/lossy_rank.yaml"
grep -q "loss: $loss" "$tmp/lossy_rank.yaml" || fail "no lossy rank link written"
grep -q "loss: $loss" "$tmp/lossy.yaml" || fail "no lossy link written"
grep -q "llr: 200g-5m" "$tmp/lossy_key.yaml" || fail "no llr key written"

# ---- 1. refusals ----
refused() { # RC WANT ARGS...
	local want_rc=$1 want=$2 rc=0
	shift 2
	"$fab" --check "$@" >"$tmp/ref.log" 2>&1 || rc=$?
	[ "$rc" = "$want_rc" ] && grep -qF -e "$want" "$tmp/ref.log" ||
		{ show_log "$tmp/ref.log"; fail "not refused (exit $rc): $*"; }
}
refused 2 "--llr: off, 200g-5m, 200g-40m, 400g-5m, 400g-40m or 800g-40m, not '100g'" \
	"$tmp/ls.yaml" --llr 100g
refused 2 "--llr 200g-5m with --fc pfc: not supported" \
	"$tmp/ls.yaml" --llr 200g-5m --fc pfc
refused 2 "--llr 400g-40m with --fc credit-pfc: not supported" \
	"$tmp/ls.yaml" --llr 400g-40m --fc credit-pfc
refused 1 "bad_key.yaml:22: llr '100g-5m': expected off, 200g-5m" \
	"$tmp/bad_key.yaml"
# a link's own llr: towards a rank whose switch port runs PFC: --check
# says so, with the link's line
sed 's|^\(    - endpoints: \["rank0:eth0", "leaf0:p0"\]\)$|\1\n      llr: 200g-5m|' \
	"$tmp/ls.yaml" >"$tmp/rank_key.yaml"
refused 1 "rank_key.yaml:16: link rank0:eth0 - leaf0:p0: LLR on a link whose rank obeys PFC" \
	"$tmp/rank_key.yaml" --fc pfc
"$fab" --check "$tmp/lossy.yaml" --llr 200g-5m --fc cbfc >"$tmp/ref.log" 2>&1 ||
	{ show_log "$tmp/ref.log"; fail "--llr with --fc cbfc refused"; }
check_ok "a bad --llr, --llr with PFC on the links and a bad llr: key refused"

# $1 name, $2 topology, $3 the generator's extra options, then
# ibex-fabric's; the exit status in $tmp/NAME.rc
run() {
	local name=$1 topo_file=$2 gen_extra=$3 p rc=0
	shift 3
	dpdk_prefix p "$name"
	"$fab" --lcores 0@0,1@1,2@0 --no-huge -m 2048 --no-pci \
		--log-level='lib.*:notice' --file-prefix="$p" -- "$topo_file" \
		--fc none --clock virtual --ctl-dir none --json "$tmp/$name.json" \
		"$@" --gen "--engine ring --ranks 4 -b 1K -e 1M -n 3 -w 1 \
		$gen_extra --json $tmp/$name.gen.json" >"$tmp/$name.log" 2>&1 ||
		rc=$?
	echo "$rc" >"$tmp/$name.rc"
	[ -s "$tmp/$name.gen.json" ] && [ -s "$tmp/$name.json" ] ||
		{ show_log "$tmp/$name.log"; fail "ibex-fabric failed ($name)"; }
}

run lossy "$tmp/lossy.yaml" ""
run rto "$tmp/lossy.yaml" "--rto 20"
run llr "$tmp/lossy.yaml" "" --llr 200g-5m
run key "$tmp/lossy_key.yaml" ""
run rank "$tmp/lossy_rank.yaml" "" --llr 200g-5m
grep -q "^llr: 8 switch link ends: " "$tmp/llr.log" ||
	{ show_log "$tmp/llr.log"; fail "no llr line in the per-hop report"; }
grep -q "^llr: 4 rank link ends: " "$tmp/llr.log" ||
	{ show_log "$tmp/llr.log"; fail "no ranks' llr line in the per-hop report"; }
! grep -q "rank link ends" "$tmp/key.log" ||
	{ show_log "$tmp/key.log"; fail "a ranks' llr line without LLR at a rank"; }

python3 - "$tmp" <<'PY' || fail "accounting"
import json, sys
tmp = sys.argv[1]
LOSSY = {("leaf1", "p2"), ("spine0", "p1")}

def load(name):
    g = json.load(open(f"{tmp}/{name}.gen.json"))
    f = json.load(open(f"{tmp}/{name}.json"))
    rc = int(open(f"{tmp}/{name}.rc").read())
    hops = {(s["name"], p["port"]): p for s in f["switches"] for p in s["ports"]}
    return g, f, rc, hops

def llr_sum(hops, key, ends):
    return sum(hops[e].get(key, 0) for e in ends)

g, f, rc, hops = load("lossy")
seq = g["sequence"]
print("fabric_llr: no LLR: exit %d, sent %d received %d, lost %d" %
      (rc, g["frames"]["tx"], g["frames"]["rx"], seq["lost"]))
assert rc == 1 and f["failed"], (rc, f.get("failed"))
assert seq["lost"] > 0, seq
assert not any("llr_tx_replay" in h for h in hops.values()), "LLR reported"

g, f, rc, hops = load("rto")
print("fabric_llr: no LLR, --rto 20: exit %d, lost %d, %d retransmitted "
      "after a timeout" % (rc, g["sequence"]["lost"], g["rto"]["rto_tx"]))
assert rc == 0 and g["sequence"]["lost"] == 0, (rc, g["sequence"])
assert g["rto"]["rto_tx"] > 0, g["rto"]

for name, only_lossy in (("llr", False), ("key", True)):
    g, f, rc, hops = load(name)
    ends = LOSSY if only_lossy else set(hops)
    seq, fr = g["sequence"], g["frames"]
    have = {e for e, h in hops.items() if "llr_tx_replay" in h}
    bad = llr_sum(hops, "llr_rx_bad", LOSSY)
    nack = llr_sum(hops, "llr_rx_nack_ctl_os", LOSSY)
    replay = llr_sum(hops, "llr_tx_replay", LOSSY)
    discard = llr_sum(hops, "llr_tx_discard", have)
    drops = sum(h["dropped"] for h in hops.values())
    print("fabric_llr: %s: exit %d, sent %d received %d, lost %d; LLR on "
          "%d switch link ends; the lossy link: %d frames arrived bad, %d "
          "NACKs, %d replays; %d given up; switch drops %d" % (name, rc,
          fr["tx"], fr["rx"], seq["lost"], len(have), bad, nack, replay,
          discard, drops))
    assert rc == 0 and not f["failed"], (rc, f.get("failed"))
    assert fr["tx"] == fr["rx"], fr
    assert seq["lost"] == seq["out_of_order"] == seq["duplicate"] == 0, seq
    assert drops == 0, drops
    assert have == ends, (sorted(have), sorted(ends))
    assert bad > 0 and nack > 0 and replay >= nack, (bad, nack, replay)
    assert discard == 0, discard
    # the ranks' ends: in the row of the switch port that faces each
    to_rank = {e for e, h in hops.items() if h["to"].startswith("rank")}
    have_peer = {e for e, h in hops.items() if "peer_llr_tx_replay" in h}
    assert have_peer == (set() if only_lossy else to_rank), sorted(have_peer)

# a lossy link between rank0 and leaf0, --llr on every end: the rank's
# end replays what its sends lost and NACKs what it received bad
g, f, rc, hops = load("rank")
seq, fr, h = g["sequence"], g["frames"], hops[("leaf0", "p0")]
print("fabric_llr: rank0's link lossy: exit %d, sent %d received %d, lost "
      "%d; rank0's end: %d frames arrived bad, %d NACKs from leaf0, %d "
      "replays; leaf0's end: %d bad, %d NACKs, %d replays" % (rc, fr["tx"],
      fr["rx"], seq["lost"], h["peer_llr_rx_bad"],
      h["peer_llr_rx_nack_ctl_os"], h["peer_llr_tx_replay"], h["llr_rx_bad"],
      h["llr_rx_nack_ctl_os"], h["llr_tx_replay"]))
assert rc == 0 and not f["failed"], (rc, f.get("failed"))
assert fr["tx"] == fr["rx"] and seq["lost"] == seq["out_of_order"] == 0, seq
assert h["peer_llr_rx_bad"] > 0 and h["llr_rx_nack_ctl_os"] > 0, h
assert h["llr_tx_replay"] >= h["llr_rx_nack_ctl_os"], h
assert h["llr_rx_bad"] > 0 and h["peer_llr_rx_nack_ctl_os"] > 0, h
assert h["peer_llr_tx_replay"] >= h["peer_llr_rx_nack_ctl_os"], h
assert h["peer_llr_tx_discard"] == h["llr_tx_discard"] == 0, h
PY
check_ok "a lossy link: the collective fails without LLR (or needs --rto), completes with LLR, replays > 0, nothing given up; a rank's end counts its own"
