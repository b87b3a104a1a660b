#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# 802.1Qbb PFC through a real ibex-switch process.
#
#   1. incast: the built-in generator's ranks 1..4 (ports gen1..gen4) send
#      1.6 Mfps in all to rank 0 (gen0, shaped to 1 Gb/s: about 0.85 Mfps)
#      on priority 1 (PCP 1, VL 1, lossless on the senders' ports); every
#      port runs `fc pfc` and the generator obeys the PFC frames ibex sends
#      (--fc pfc). From the generator's and the switch's JSON: tx = rx, no
#      sequence error, no drop of any reason, and the senders did receive
#      PFC frames.
#   2. capture: p0 is a net_pcap port replaying a pcap of PCP 1 frames as
#      fast as it can read them (a peer that does not obey PFC: violations
#      are expected) into p1, shaped to 100 Mb/s. Everything ibex sends out
#      of p0 is written to a pcap that tshark decodes as 802.1Qbb ("CBFC"):
#      at least one XOFF with exactly priority 1 enabled and the configured
#      quanta, every PFC frame to 01:80:c2:00:00:01, and, once the pcap has
#      been replayed and the queue drained, an XON (quanta 0) as the last.
#
#   test_fc_pfc.sh IBEX_SWITCH IBEX_PCAPGEN
# Environment: FC_SECS (6) length of the incast, or with FC_FRAMES its
# bound; FC_FRAMES (none) frames the incast sends, however long that
# takes (it must send them all); FC_WORKERS (1) switch workers;
# FC_INCAST_ONLY=1 stops after part 1 (the incast).
set -euo pipefail
TEST_NAME=fc_pfc
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

sw=${1:?usage: test_fc_pfc.sh IBEX_SWITCH IBEX_PCAPGEN}
pcapgen=${2:?usage: test_fc_pfc.sh IBEX_SWITCH IBEX_PCAPGEN}
[ -x "$sw" ] || skip "no ibex-switch at $sw"
[ -x "$pcapgen" ] || skip "no ibex-pcapgen at $pcapgen"
require_cmds python3 tshark
[ "$(nproc)" -ge 2 ] || skip "needs two CPUs"
secs=${FC_SECS:-6}
frames=${FC_FRAMES:-0} budget=""
[ "$frames" -eq 0 ] || budget="--frames $frames"
workers=${FC_WORKERS:-1}
lcores=0@0
for ((i = 1; i <= workers + 1; i++)); do lcores+=",$i@$((i % 2))"; done

tmp=$(mktemp -d /tmp/ibex-fc-pfc.XXXXXX)
on_exit rm -rf "$tmp"

# ---- 1. incast, generator obeying PFC ----

# What a sender may still put into a lane after ibex decides to pause it is
# what sits in the in-process ring between its port and the switch (the
# "cable" and the switch's receive queue: 4095 frames, 512 KB of 128-byte
# frames); frames the generator built but did not hand over wait while
# paused, as in a NIC. A pause also runs out when ibex's worker lcore is
# descheduled longer than the pause (it cannot refresh then): the sender
# resumes and fills the ring once more. On this shared 2-CPU machine the
# worker is preempted for up to ~70 ms, while 65535 quanta at the ring
# ports' reported 10 Gb/s last only 3.4 ms: up to hundreds of pauses per
# sender ran out in a run and the lanes overran their headroom. So the links are 1 Gb/s on both
# sides (`speed 1G`, generator --link-mbps 1000; gen0 is shaped to 1G as
# well): a pause lasts 33.5 ms, ibex refreshes it once less than 33 ms is
# left (every ~0.55 ms), and the 2 MB headroom per sender holds four rings:
# the one behind the XOFF and three pauses run out before the lane drains.
# The pool must hold every frame the lossless lanes may admit: ibex sizes
# it from the config (reserved and headroom of each lane, one frame per
# 64-byte block, per worker: about 146K mbufs with one worker, 291K with
# two, hence -m 2048).
{
	echo "switch workers $workers"
	echo "buffer total 12MB"
	echo "port gen0 vls 2 fc pfc shape 1G"
	for p in 1 2 3 4; do
		echo "port gen$p vls 2 fc pfc speed 1G"
		echo "lane gen$p vl 1 lossless"
		echo "pfc gen$p quanta 65535 headroom 2MB refresh-margin-us 33000"
	done
} >"$tmp/incast.conf"

dpdk_prefix prefix incast
"$sw" --lcores "$lcores" --no-huge -m 2048 --no-pci \
	--log-level='lib.*:notice' --file-prefix="$prefix" -- \
	--config "$tmp/incast.conf" --json "$tmp/incast.sw.json" \
	--gen "--engine rate --ranks 5 --flow 1:0,2:0,3:0,4:0 \
	--fc pfc --prio 1 --pcp 1 --vlan 1 --link-mbps 1000 --size 128 \
	--rate 1600K --duration $secs $budget --json $tmp/incast.gen.json" \
	>"$tmp/incast.log" 2>&1 || {
	# ibex-gen exits 3 when a frame was lost: judged below
	[ -s "$tmp/incast.gen.json" ] ||
		{ show_log "$tmp/incast.log"; fail "ibex-switch --gen failed"; }
}
[ -s "$tmp/incast.sw.json" ] || { show_log "$tmp/incast.log"; fail "no switch JSON"; }

python3 - "$tmp" "$frames" <<'PY' || { show_log "$tmp/incast.log"; fail "PFC incast accounting"; }
import json, sys
tmp, want = sys.argv[1], int(sys.argv[2])
g = json.load(open(f"{tmp}/incast.gen.json"))
s = json.load(open(f"{tmp}/incast.sw.json"))
f, q, fc = g["frames"], g["sequence"], g["flow_control"]
drops = {p["name"]: {k: v for k, v in p["drops"].items() if v}
         for p in s["ports"]}
ndrops = sum(sum(d.values()) for d in drops.values())
viol = sum(p["drops"]["fc-violation"] for p in s["ports"])
print("fc_pfc: incast: sent %d received %d lost %d switch drops %d "
      "(fc-violation %d); %.0f frames/s; PFC frames to the senders %d"
      % (f["tx"], f["rx"], f["tx"] - f["rx"], ndrops, viol,
         f["rx"] / g["rate"]["elapsed_s"], fc["pfc_rx"]))
assert f["tx"] > 0 and f["tx"] == f["rx"], f
assert f["tx"] >= want, "sent %d of the %d frames asked" % (f["tx"], want)
assert q["lost"] == 0 and q["out_of_order"] == 0 and q["duplicate"] == 0, q
assert ndrops == 0, drops
# The egress is shaped far below the offered load: without pauses the
# senders would have overrun it, so PFC must have been at work.
assert fc["pfc_rx"] > 0, fc
PY
check_ok "PFC incast 4 -> 1 on priority 1 ($workers worker(s)): zero loss, no drop, senders paused"
[ "${FC_INCAST_ONLY:-0}" = 1 ] && exit 0

# ---- 2. the PFC frames ibex sends, decoded by tshark ----

readonly QUANTA=4000
"$pcapgen" -o "$tmp/in.pcap" -n 3000 -s 128 -p 1 --vlan 1 --pcp 1 \
	--dst 02:00:00:00:0b:00 >/dev/null || fail "ibex-pcapgen"
# A small buffer so that 3000 frames cross the XOFF threshold; p1 drains
# them at 100 Mb/s in about 40 ms, well inside the idle time, so the lane
# ends below XON.
cat >"$tmp/cap.conf" <<EOCONF
buffer total 256KB
port p0 dev net_pcap0 vls 2 fc pfc
port p1 dev net_null0 vls 2 shape 100M
lane p0 vl 1 lossless
pfc p0 quanta $QUANTA
fdb static 02:00:00:00:0b:00 port p1
EOCONF
dpdk_prefix prefix2 cap
"$sw" -l 0-1 --no-huge -m 1024 --no-pci --file-prefix="$prefix2" \
	--log-level='lib.*:notice' \
	--vdev "net_pcap0,rx_pcap=$tmp/in.pcap,tx_pcap=$tmp/out.pcap" \
	--vdev "net_null0,no-rx=1" \
	-- --config "$tmp/cap.conf" --idle-stop 3 --json "$tmp/cap.json" \
	>"$tmp/cap.log" 2>&1 || { show_log "$tmp/cap.log"; fail "ibex-switch (capture run)"; }
[ -s "$tmp/out.pcap" ] || { show_log "$tmp/cap.log"; fail "ibex wrote nothing out of p0"; }

# One line per frame ibex sent on p0: DA, opcode, class-enable vector,
# quanta of priorities 0..7.
tshark -n -r "$tmp/out.pcap" -T fields -E separator=' ' \
	-e eth.dst -e eth.type -e macc.opcode -e macc.cbfc.enbv \
	-e macc.cbfc.pause_time.c0 -e macc.cbfc.pause_time.c1 \
	-e macc.cbfc.pause_time.c2 -e macc.cbfc.pause_time.c3 \
	-e macc.cbfc.pause_time.c4 -e macc.cbfc.pause_time.c5 \
	-e macc.cbfc.pause_time.c6 -e macc.cbfc.pause_time.c7 \
	>"$tmp/pfc.txt" 2>"$tmp/tshark.err" || { cat "$tmp/tshark.err" >&2; fail "tshark"; }
tshark -n -r "$tmp/out.pcap" -c 1 -V 2>/dev/null |
	grep -q 'Class Based Flow Control \[CBFC\] Pause' ||
	fail "tshark does not show ibex's first frame as a CBFC (802.1Qbb) pause"

python3 - "$tmp" "$QUANTA" <<'PY' || { head -5 "$tmp/pfc.txt" >&2; show_log "$tmp/cap.log"; fail "PFC frames"; }
import json, sys
tmp, quanta = sys.argv[1], int(sys.argv[2])
rows = [l.split() for l in open(f"{tmp}/pfc.txt") if l.strip()]
assert rows, "no frame in the capture"
xoff = xon = 0
for r in rows:
    dst, etype, op, enbv = r[0], r[1], r[2], int(r[3], 16)
    pt = [int(x) for x in r[4:12]]
    assert dst == "01:80:c2:00:00:01" and etype == "0x8808" and op == "0x0101", r
    # priority 1 only: its bit, and no quanta for the others
    assert enbv == 0x02, r
    assert pt[0] == 0 and all(p == 0 for p in pt[2:]), r
    if pt[1] == quanta:
        xoff += 1
    elif pt[1] == 0:
        xon += 1
    else:
        raise AssertionError(f"quanta {pt[1]}, configured {quanta}: {r}")
last = int(rows[-1][5])
s = json.load(open(f"{tmp}/cap.json"))
p0 = s["ports"][0]
print("fc_pfc: capture: %d PFC frames from ibex (XOFF %d quanta %d, XON %d); "
      "p0 received %d, fc-violation %d (the pcap peer ignores PFC); p1 sent %d"
      % (len(rows), xoff, quanta, xon, p0["rx_frames"],
         p0["drops"]["fc-violation"], s["ports"][1]["tx_frames"]))
assert xoff >= 1, "no XOFF"
assert xon >= 1 and last == 0, "no XON after the queue drained"
PY
check_ok "tshark: ibex's PFC frames are 802.1Qbb, priority 1 only, XOFF quanta $QUANTA, XON 0"
