#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Credit flow control through a real ibex-switch process: the built-in
# generator's ranks 1..4 (ports gen1..gen4) send flat out to rank 0 (gen0),
# whose port is shaped to 1 Gb/s, on the lossless VL 1 (PCP 1). Every port
# runs `fc credit`; the generator's senders obey ibex's credits and its
# receiver grants credit to ibex as it takes frames.
#
#   1. credit: at least FC_MIN_FRAMES (10 million) frames, and from the
#      generator's and the switch's JSON: tx = rx, no sequence error, no
#      drop of any reason in the switch;
#   2. the same incast with `fc none` and lossy lanes must lose frames, and
#      every lost frame is a counted drop in the switch (tx = rx + drops).
#
#   test_fc_incast.sh IBEX_SWITCH
# Environment: FC_MIN_FRAMES (10000000) frames the lossless run sends (it
# ends once they are sent: ~12 s on a quiet machine, minutes on a busy
# one), FC_SECS (700) the longest it may take, FC_WORKERS (1) switch
# workers (2: two workers forward into
# gen0 and share its credit; the generator's ports spread over them).
set -euo pipefail
TEST_NAME=fc_incast
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

sw=${1:?usage: test_fc_incast.sh IBEX_SWITCH}
[ -x "$sw" ] || skip "no ibex-switch at $sw"
require_cmds python3
[ "$(nproc)" -ge 2 ] || skip "needs two CPUs"
secs=${FC_SECS:-700}
min_frames=${FC_MIN_FRAMES:-10000000}
workers=${FC_WORKERS:-1}
# The control thread, the workers, then the generator, alternating CPUs.
lcores=0@0
for ((i = 1; i <= workers + 1; i++)); do lcores+=",$i@$((i % 2))"; done

tmp=$(mktemp -d /tmp/ibex-fc-test.XXXXXX)
on_exit rm -rf "$tmp"

# $1 name, $2 fc mode, $3 lane statement per port (or empty)
write_conf() {
	local f=$tmp/$1.conf p
	{
		echo "switch workers $workers"
		echo "buffer total 8MB"
		echo "port gen0 vls 2 fc $2 shape 1G"
		for p in 1 2 3 4; do echo "port gen$p vls 2 fc $2"; done
		if [ -n "$3" ]; then
			for p in 0 1 2 3 4; do echo "lane gen$p vl 1 $3"; done
		fi
	} >"$f"
}

# $1 name, $2 fc mode, $3 seconds at most, $4 frames to send (none: run
# for $3)
run() {
	local name=$1 fc=$2 secs=$3 frames=${4:-0} budget=""
	[ "$frames" -eq 0 ] || budget="--frames $frames"
	"$sw" --lcores "$lcores" --no-huge -m 1024 --no-pci \
		--log-level='lib.*:notice' --file-prefix="ibexfct$$" -- \
		--config "$tmp/$name.conf" --json "$tmp/$name.sw.json" \
		--gen "--engine rate --ranks 5 --flow 1:0,2:0,3:0,4:0 \
		--fc $fc --vl 1 --pcp 1 --vlan 1 --size 128 --duration $secs $budget \
		--json $tmp/$name.gen.json" >"$tmp/$name.log" 2>&1 || {
		# ibex-gen exits 3 when a frame was lost: judged below
		[ -s "$tmp/$name.gen.json" ] ||
			{ show_log "$tmp/$name.log"; fail "ibex-switch --gen failed ($name)"; }
	}
	[ -s "$tmp/$name.sw.json" ] || { show_log "$tmp/$name.log"; fail "no switch JSON ($name)"; }
}

# The reserved share of a lossless lane is all a credit peer may send
# ahead: 32 KB per sender keeps ibex's queue near 1 ms at 1 Gb/s.
# Two workers time-share the CPUs with the generator (a round trip of
# a scheduler slice, milliseconds): the largest window the 12-bit credit
# counters allow (2048 blocks) keeps the senders busy across it.
if [ "$workers" -gt 1 ]; then reserved=128KB; else reserved=32KB; fi
write_conf credit credit "lossless reserved $reserved"
run credit credit "$secs" "$min_frames"
write_conf off none ""
run off none 3

python3 - "$tmp" "$min_frames" <<'PY' || { show_log "$tmp/credit.log"; show_log "$tmp/off.log"; fail "accounting"; }
import json, sys
tmp, min_frames = sys.argv[1], int(sys.argv[2])

def load(name):
    g = json.load(open(f"{tmp}/{name}.gen.json"))
    s = json.load(open(f"{tmp}/{name}.sw.json"))
    drops = sum(sum(p["drops"].values()) for p in s["ports"])
    return g, s, drops

g, s, drops = load("credit")
f, q, fc = g["frames"], g["sequence"], g["flow_control"]
print("fc_incast: credit: sent %d received %d lost %d switch drops %d "
      "(fc-violation %d); %.0f frames/s; credit frames from ibex %d, "
      "to ibex %d" % (f["tx"], f["rx"], f["tx"] - f["rx"], drops,
      sum(p["drops"]["fc-violation"] for p in s["ports"]),
      f["rx"] / g["rate"]["elapsed_s"],
      fc["credit_rx"], fc["credit_tx"]))
assert f["tx"] >= min_frames, f"only {f['tx']} frames sent"
assert f["tx"] == f["rx"], f
assert q["lost"] == 0 and q["out_of_order"] == 0 and q["duplicate"] == 0, q
assert drops == 0, [p["drops"] for p in s["ports"]]
assert fc["credit_rx"] > 0 and fc["credit_tx"] > 0, fc

g, s, drops = load("off")
f = g["frames"]
# Every frame is for rank 0 (gen0): what did not reach it was dropped on
# the way there. Frames sent before ibex learned rank 0 were also flooded
# to the other ranks (foreign frames there, or dropped on their ports):
# those copies are not lost frames, so only gen0's drops count.
to_rank0 = sum(sum(p["drops"].values()) for p in s["ports"]
               if p["name"] == "gen0")
print("fc_incast: fc none: sent %d received %d lost %d switch drops %d "
      "(on the way to rank 0 %d; flood copies %d)"
      % (f["tx"], f["rx"], f["tx"] - f["rx"], drops, to_rank0,
         drops - to_rank0))
assert f["rx"] < f["tx"], "flow control off lost nothing: the test cannot fail"
assert f["tx"] - f["rx"] == to_rank0, (f, to_rank0, drops)
PY
check_ok "credit incast 4 -> 1 ($workers worker(s)): zero loss; with fc none frames are lost and counted"
