#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Live changes under full load on lossless lanes. The built-in generator's
# ranks 1..4 (ports gen1..gen4) send flat out to rank 0 (gen0), whose port
# is shaped to 50 Mb/s; every port runs `fc credit`. gen1 and gen2 are
# classified to SL 1, gen3 and gen4 to SL 2 (pcp2sl per ingress port: the
# generator tags every frame with PCP 1), and gen0 puts SL 1 on VL 1 and
# SL 2 on VL 2, both lossless. While the load runs, ibex-ctl sends 100
# live changes, pipelined in batches of 10, cycling through
#   sl2vl gen0: SL 1 -> VL 1, SL 2 -> VL 2 and the swap (both lanes lossless)
#   ecn gen0 vl all: two sets of kmin/kmax/pmax
#   vlarb gen0 low: VL 1 : VL 2 weights 64:16 and 16:64
# After four of the batches the tx bytes of VL 1 and VL 2 on gen0 are
# sampled over 1 s (`show lanes gen0 --json`): the lane with weight 64
# must get more than LIVE_MIN_SHARE of them (tried 3 times: the VM is
# noisy). The load lasts until the changes are done: the generator runs
# with a cap (LIVE_SECS) and is ended by SIGUSR1 once the last change is
# answered; the switch still running then proves the load ran throughout.
# At the end, from the generator's and the switch's JSON: tx = rx,
# no lost, reordered or duplicated frame, no switch drop of any reason,
# and `show history` counts exactly 100 more accepted changes than at start
# (`show config` shows the running config, so changes that undo each
# other do not add to it).
#
#   test_live_changes.sh IBEX_SWITCH IBEX_PCAPGEN IBEX_CTL
# Environment: LIVE_SECS (600) cap of the load, LIVE_MIN_SHARE (0.6),
# LIVE_SL2VL (swap): `idle` makes the sl2vl changes move SL 5, which
# carries no traffic, between VL 1 and VL 2 instead of swapping the lanes
# of the two loaded SLs (to tell a reordering by the swap from others).
set -euo pipefail
TEST_NAME=live_changes
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

sw=${1:?usage: test_live_changes.sh IBEX_SWITCH IBEX_PCAPGEN IBEX_CTL}
ctl=${3:?usage: test_live_changes.sh IBEX_SWITCH IBEX_PCAPGEN IBEX_CTL}
[ -x "$sw" ] || skip "no ibex-switch at $sw"
[ -x "$ctl" ] || skip "no ibex-ctl at $ctl"
require_cmds python3
[ "$(nproc)" -ge 2 ] || skip "needs two CPUs"
secs=${LIVE_SECS:-600}
min_share=${LIVE_MIN_SHARE:-0.6}
sl2vl_mode=${LIVE_SL2VL:-swap}
case $sl2vl_mode in swap | idle) ;; *) fail "LIVE_SL2VL: swap or idle" ;; esac
nchanges=100

tmp=$(mktemp -d /tmp/ibex-live-test.XXXXXX)
on_exit rm -rf "$tmp"
dpdk_prefix prefix sw
sock=$tmp/ctl.sock

{
	echo "switch workers 1"
	echo "buffer total 8MB"
	# 50 Mb/s: below what the senders reach even on a busy machine (at
	# load 15-20 they got ~165 Mb/s through in all, short of 1 Gb/s, so
	# gen0's lanes never backlogged and the weights could not be judged).
	echo "port gen0 vls 4 fc credit shape 50M"
	for p in 1 2 3 4; do echo "port gen$p vls 4 fc credit"; done
	# Class by ingress port: PCP 1 is SL 1 on gen1/gen2, SL 2 on gen3/gen4.
	for p in 1 2; do echo "pcp2sl gen$p 1:1"; done
	for p in 3 4; do echo "pcp2sl gen$p 1:2"; done
	# The generator has one credit VL (--vl 3): its senders use VL 3 and
	# its receiver counts every frame it gets on VL 3. So the ingress ports
	# charge both SLs to VL 3, and gen0 delivers on VL 1 and VL 2, whose
	# credit the receiver then grants from ibex's FCTBS alone (ABR :=
	# FCTBS, full window). Were VL 2 both the generator's VL and a lane
	# of gen0, VL 1's frames would be counted on VL 2 and its grant would
	# run past FCTBS + 2048, which the IB rule reads as no credit.
	for p in 1 2 3 4; do echo "sl2vl gen$p 1:3,2:3"; done
	echo "sl2vl gen0 1:1,2:2"
	echo "vlarb gen0 low 0:32,1:32,2:32,3:32"
	# 32 KB per sender keeps ibex's queue near 1 ms at 1 Gb/s.
	for p in 1 2 3 4; do echo "lane gen$p vl 3 lossless reserved 32KB"; done
	for p in 0 1 2 3 4; do
		echo "lane gen$p vl 1 lossless reserved 32KB"
		echo "lane gen$p vl 2 lossless reserved 32KB"
	done
} >"$tmp/sw.conf"

# --lcores: control thread and generator share CPU 0, the worker has CPU 1.
start_bg swpid "$tmp/sw.log" "$sw" --lcores 0@0,1@1,2@0 --no-huge -m 1024 \
	--no-pci --log-level='lib.*:notice' --file-prefix="$prefix" -- \
	--config "$tmp/sw.conf" --json "$tmp/sw.json" --ctl-socket "$sock" \
	--gen "--engine rate --ranks 5 --flow 1:0,2:0,3:0,4:0 --fc credit \
	--vl 3 --pcp 1 --vlan 1 --size 128 --duration $secs \
	--json $tmp/gen.json"

c() { "$ctl" --socket "$sock" --timeout 60 "$@"; }

wait_until_or_dead 60 "$swpid" c show workers ||
	{ show_log "$tmp/sw.log"; fail "the control socket did not answer"; }
t0=$SECONDS

# Per-lane tx bytes of VL 1 and VL 2 on gen0.
lane_bytes() {
	c --json show lanes gen0 | python3 -c '
import json, sys
l = {l["vl"]: l for l in json.load(sys.stdin)["lanes"]}
print(*(l[v][k] for k in ("tx_bytes", "queued", "cut_through")
        for v in (1, 2)))'
}

# Let the senders get their first credits and fill the lanes: gen0 has
# sent frames on both loaded lanes.
lanes_busy() {
	local b1 b2

	read -r b1 b2 _ < <(lane_bytes)
	[ "$b1" -gt 0 ] && [ "$b2" -gt 0 ]
}
wait_until_or_dead 60 "$swpid" lanes_busy ||
	{ show_log "$tmp/sw.log"; fail "no traffic on gen0's VL 1 and VL 2"; }
nstmt0=$(c --json show history | python3 -c \
	'import json,sys; print(json.load(sys.stdin)["changes"])')

# share HEAVY_VL: VL HEAVY_VL's share of gen0's VL 1 + VL 2 bytes over 1 s
# must exceed min_share; three tries. Weights show only while gen0 is
# congested: a sample in which fewer than 90% of gen0's frames waited in
# its lanes (the others were cut through: no lane was backlogged) is not
# judged, which happens when a busy machine starves the generator. Up to
# LIVE_SHARE_SAMPLES (12) samples per check; at least one check of four
# must have been judged.
shares=() unjudged=0
share_samples=${LIVE_SHARE_SAMPLES:-12}
check_share() {
	local heavy=$1 try judged=0 a b s

	for try in $(seq "$share_samples"); do
		is_alive "$swpid" ||
			fail "the load ended (cap LIVE_SECS $secs s) before the changes did, after $((SECONDS - t0)) s"
		sleep 0.3
		a=$(lane_bytes)
		sleep 1
		b=$(lane_bytes)
		read -r s q d1 d2 < <(python3 -c "
a, b = [int(x) for x in '$a'.split()], [int(x) for x in '$b'.split()]
d = [y - x for x, y in zip(a, b)]
heavy = d[0] if $heavy == 1 else d[1]
print('%.3f %.3f %d %d' % (heavy / max(d[0] + d[1], 1),
      (d[2] + d[3]) / max(d[2] + d[3] + d[4] + d[5], 1), d[0], d[1]))")
		if python3 -c "import sys; sys.exit(0 if $q < 0.9 else 1)"; then
			info "VL $heavy: gen0 not congested (${q} of its frames queued): not judged (VL 1 $d1 B, VL 2 $d2 B, sample $try)"
			continue
		fi
		judged=$((judged + 1))
		info "weights favour VL $heavy: its share ${s} (VL 1 $d1 B, VL 2 $d2 B, ${q} queued, sample $try)"
		if python3 -c "import sys; sys.exit(0 if $s > $min_share else 1)"; then
			shares+=("VL$heavy:$s")
			return 0
		fi
		[ $judged -lt 3 ] ||
			fail "VL $heavy got ${s} of the bytes under weights 64:16 (> $min_share expected)"
	done
	info "VL $heavy: gen0 not congested in $share_samples samples: share not judged"
	unjudged=$((unjudged + 1))
}

# The changes, in order; heavy = the VL the last vlarb favours.
i=0 heavy=0
next_change() {
	case $((i % 3)) in
	0)
		if [ "$sl2vl_mode" = idle ]; then
			echo "sl2vl gen0 5:$((1 + i / 3 % 2))"
		elif [ $((i / 3 % 2)) -eq 0 ]; then echo "sl2vl gen0 1:2,2:1"
		else echo "sl2vl gen0 1:1,2:2"; fi ;;
	1)
		if [ $((i / 3 % 2)) -eq 0 ]; then
			echo "ecn gen0 vl all kmin 20KB kmax 80KB pmax 0.1"
		else
			echo "ecn gen0 vl all kmin 40KB kmax 160KB pmax 0.2"
		fi ;;
	2)
		if [ $((i / 3 % 2)) -eq 0 ]; then
			heavy=1; echo "vlarb gen0 low 0:16,1:64,2:16,3:16"
		else
			heavy=2; echo "vlarb gen0 low 0:16,1:16,2:64,3:16"
		fi ;;
	esac
	i=$((i + 1))
}

for batch in 0 1 2 3 4 5 6 7 8 9; do
	: >"$tmp/batch"
	for _ in 1 2 3 4 5 6 7 8 9 10; do next_change >>"$tmp/batch"; done
	is_alive "$swpid" || { show_log "$tmp/sw.log"; fail "the switch ended during the changes"; }
	c <"$tmp/batch" >"$tmp/batch.out" 2>&1 || {
		cat "$tmp/batch.out" >&2
		is_alive "$swpid" ||
			fail "the load ended (cap LIVE_SECS $secs s) during batch $batch, after $((SECONDS - t0)) s"
		fail "batch $batch: a change was refused"
	}
	case $batch in
	2 | 3 | 6 | 7) check_share "$heavy" ;;
	*) sleep 0.3 ;;
	esac
done
[ $i -eq $nchanges ] || fail "sent $i changes, not $nchanges"
changed_s=$((SECONDS - t0))
# The switch stops when the generator's scenario ends: still running, the
# load was on for every change.
is_alive "$swpid" ||
	fail "the load ended (cap LIVE_SECS $secs s) before the changes did, after ${changed_s} s"
nstmt1=$(c --json show history | python3 -c \
	'import json,sys; print(json.load(sys.stdin)["changes"])')
[ $((nstmt1 - nstmt0)) -eq $nchanges ] ||
	fail "show history: $((nstmt1 - nstmt0)) live changes accepted, not $nchanges"
[ ${#shares[@]} -gt 0 ] ||
	fail "gen0 was never congested in a share sample: the weights were not judged"
check_ok "$nchanges live changes answered OK and applied under load, in ${changed_s} s; shares ${shares[*]} ($unjudged of 4 checks not judged: gen0 not congested)"

# End the load now; the frames in flight are still received and counted.
kill -USR1 "$swpid"
if ! wait_exit "$swpid" 120; then
	show_log "$tmp/sw.log"
	fail "ibex-switch did not end"
fi
[ -s "$tmp/gen.json" ] && [ -s "$tmp/sw.json" ] ||
	{ show_log "$tmp/sw.log"; fail "no generator or switch JSON (exit $WAIT_RC)"; }

python3 - "$tmp" <<'PY' || { show_log "$tmp/sw.log"; fail "accounting"; }
import json, sys
tmp = sys.argv[1]
g = json.load(open(f"{tmp}/gen.json"))
s = json.load(open(f"{tmp}/sw.json"))
f, q = g["frames"], g["sequence"]
drops = {p["name"]: {r: n for r, n in p["drops"].items() if n}
         for p in s["ports"] if any(p["drops"].values())}
print("live_changes: sent %d received %d lost %d out-of-order %d "
      "duplicate %d; switch drops %s; %.0f frames/s" % (
      f["tx"], f["rx"], q["lost"], q["out_of_order"], q["duplicate"],
      drops or 0, f["rx"] / g["rate"]["elapsed_s"]))
assert f["tx"] > 0 and f["tx"] == f["rx"], f
assert q["lost"] == 0 and q["out_of_order"] == 0 and q["duplicate"] == 0, q
assert not drops, drops
PY
check_ok "zero loss, zero reordering, zero switch drops under $nchanges live changes"
