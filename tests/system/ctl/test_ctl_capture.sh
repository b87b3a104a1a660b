#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# System test: `ibex-ctl capture` writes pcapng from inside a --no-huge
# switch (where dpdk-dumpcap cannot attach), and tshark reads it.
#
# Traffic: p0 replays RoCEv2 frames (UDP 4791) A -> B forever, p1 replays
# plain UDP frames B -> A forever; A is static on p0, B on p1. So p0
# receives RoCEv2 and sends UDP, p1 the other way round, and tshark can
# tell each direction by its frames as well as by the pcapng direction
# flag (epb_flags: 1 inbound, 2 outbound).
#
# Checked: counts (COUNT stops the capture at exactly COUNT frames), rx /
# tx / both, a BPF filter, stop by `capture stop` and by ^C of ibex-ctl,
# the refusals (port, path, filter, a second capture), that telemetry's
# /ibex/capture is the object `show capture --json` gives (before any
# capture, while one runs, after one ended), and that the switch forwards
# on throughout.
#
#   test_ctl_capture.sh IBEX_SWITCH IBEX_PCAPGEN IBEX_CTL
set -euo pipefail
TEST_NAME=ctl_capture
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

sw=$1 gen=$2 ctl=$3
require_cmds tshark jq python3

tmp=$(mktemp -d /tmp/ibex-capture.XXXXXX)
on_exit rm -rf "$tmp"
dpdk_prefix prefix capture

A=02:00:00:00:0a:00 B=02:00:00:00:0b:00
"$gen" -o "$tmp/ab.pcap" -n 64 -p 1 --kind roce --dst $B --src $A >/dev/null
"$gen" -o "$tmp/ba.pcap" -n 64 -p 1 --kind udp --dst $A --src $B >/dev/null
cat >"$tmp/switch.conf" <<EOF
port p0 dev net_pcap0
port p1 dev net_pcap1
fdb static $A port p0
fdb static $B port p1
EOF
start_bg swpid "$tmp/switch.log" "$sw" -l 0-1 --no-huge -m 1024 --no-pci \
	--file-prefix="$prefix" --log-level='lib.*:notice' \
	--vdev "net_pcap0,rx_pcap=$tmp/ab.pcap,tx_pcap=/dev/null,infinite_rx=1" \
	--vdev "net_pcap1,rx_pcap=$tmp/ba.pcap,tx_pcap=/dev/null,infinite_rx=1" \
	-- --config "$tmp/switch.conf"
c() { "$ctl" --file-prefix "$prefix" "$@"; }
wait_until_or_dead 120 "$swpid" c show ports ||
	{ show_log "$tmp/switch.log"; fail "switch did not start"; }

tx_p1() { c show ports --json | jq -e '.ports[] | select(.name == "p1") | .tx_frames'; }
tx_p1_above() { [ "$(tx_p1)" -gt "$1" ]; }
# The switch forwards: p1's TX counter moves between two looks.
forwarding() {
	local a
	a=$(tx_p1) || return 1
	wait_until 60 tx_p1_above "$a"
}
# The capture's state is $1 and it wrote at least $2 frames.
capture_is() {
	c capture status --json |
		jq -e --arg s "$1" --argjson n "$2" \
			'.capture.state == $s and .capture.written >= $n'
}
frames() { tshark -r "$1" -Y "${2:-frame}" 2>/dev/null | wc -l; }
# Telemetry command $1's reply (the value under its name) as JSON, read
# from the switch's telemetry socket as dpdk-telemetry.py does.
tel() {
	python3 - "/var/run/dpdk/$prefix/dpdk_telemetry.v2" "$1" <<'PY'
import json, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.connect(sys.argv[1])
info = json.loads(s.recv(65536))
s.send(sys.argv[2].encode())
print(json.dumps(json.loads(s.recv(info["max_output_len"] + 1024))[sys.argv[2]]))
PY
}
# /ibex/capture and `show capture --json` agree: every key, in the same
# order, the same values (telemetry gives "seconds" as a string: DPDK
# 22.11 has no floating-point value). $1: what must hold of the object.
tel_matches_show() {
	local t j
	t=$(tel /ibex/capture) || return 1
	j=$(c show capture --json) || return 1
	python3 - "$t" "$j" "$1" <<'PY'
import json, sys
t, j = json.loads(sys.argv[1])["capture"], json.loads(sys.argv[2])["capture"]
want = sys.argv[3]
if list(t) != list(j):
    sys.exit(f"keys differ: telemetry {list(t)}, show {list(j)}")
t["seconds"] = float(t["seconds"])
if want == "none":                 # none yet: both say so
    sys.exit(0 if t == j and t["state"] == "none" and t["id"] == 0
             else f"show {j}, telemetry {t}")
if want == "done" and t != j:
    sys.exit(f"telemetry {t} != show {j}")
if want == "running":
    if t["state"] != "running" or j["state"] != "running":
        sys.exit(f"not running: telemetry {t['state']}, show {j['state']}")
    # telemetry's view is at most one ring drain older than show's
    static = ("id", "port", "dir", "file", "filter", "snaplen", "count")
    if any(t[k] != j[k] for k in static) or t["written"] > j["written"]:
        sys.exit(f"telemetry {t} vs show {j}")
if want == "done" and t["state"] != "done":
    sys.exit(f"state {t['state']}, want done")
PY
}
# Frames of one pcapng direction flag (1 in, 2 out).
dir_frames() { frames "$1" "frame.packet_flags_direction == $2"; }

# 0. telemetry before any capture: state none.
tel_matches_show none || fail "/ibex/capture before any capture"
check_ok "/ibex/capture before any capture: state none"

# 1. rx of p0, COUNT 25: blocks until 25 frames are written, then says so.
out=$(c capture p0 rx 25 "$tmp/rx.pcapng") ||
	{ show_log "$tmp/switch.log"; fail "capture p0 rx 25 failed: $out"; }
echo "$out" | grep -q "25 frames" || fail "reply does not say 25 frames: $out"
[ "$(frames "$tmp/rx.pcapng")" -eq 25 ] ||
	fail "rx: tshark reads $(frames "$tmp/rx.pcapng") frames, want 25"
[ "$(frames "$tmp/rx.pcapng" "udp.dstport == 4791 && eth.dst == $B")" -eq 25 ] ||
	fail "rx: not every frame is a RoCEv2 frame to B"
[ "$(dir_frames "$tmp/rx.pcapng" 1)" -eq 25 ] || fail "rx: frames not marked inbound"
check_ok "capture p0 rx 25: tshark reads 25 inbound RoCEv2 frames to B"
tel_matches_show done || fail "/ibex/capture after capture 1"
[ "$(tel /ibex/capture | jq -e '.capture.written')" -eq 25 ] ||
	fail "/ibex/capture: written is not 25"
check_ok "/ibex/capture after it ended: the object of show capture --json"

# 2. tx of p1: what the switch forwarded out of p1 (the RoCEv2 frames).
c capture p1 tx 30 "$tmp/tx.pcapng" >/dev/null || fail "capture p1 tx failed"
[ "$(frames "$tmp/tx.pcapng")" -eq 30 ] || fail "tx: $(frames "$tmp/tx.pcapng") frames, want 30"
[ "$(frames "$tmp/tx.pcapng" "udp.dstport == 4791 && frame.packet_flags_direction == 2")" -eq 30 ] ||
	fail "tx: not every frame is an outbound RoCEv2 frame"
check_ok "capture p1 tx 30: 30 outbound RoCEv2 frames"

# 3. both directions of p0: RoCEv2 in, UDP out, 200 frames in all.
c capture p0 both 200 "$tmp/both.pcapng" >/dev/null || fail "capture p0 both failed"
n=$(frames "$tmp/both.pcapng") in=$(dir_frames "$tmp/both.pcapng" 1)
out_n=$(dir_frames "$tmp/both.pcapng" 2)
[ "$n" -eq 200 ] || fail "both: $n frames, want 200"
[ "$in" -gt 0 ] && [ "$out_n" -gt 0 ] && [ $((in + out_n)) -eq 200 ] ||
	fail "both: $in inbound + $out_n outbound"
[ "$(frames "$tmp/both.pcapng" "frame.packet_flags_direction == 1 && udp.dstport == 4791")" -eq "$in" ] ||
	fail "both: an inbound frame is not RoCEv2"
[ "$(frames "$tmp/both.pcapng" "frame.packet_flags_direction == 2 && udp.dstport != 4791 && eth.dst == $A")" -eq "$out_n" ] ||
	fail "both: an outbound frame is not the UDP to A"
check_ok "capture p0 both 200: $in in (RoCEv2), $out_n out (UDP to A)"

# 4. a filter: of p0's both directions only RoCEv2 (i.e. inbound) frames.
c capture p0 both 40 "$tmp/filt.pcapng" filter "udp port 4791" >/dev/null ||
	fail "capture with a filter failed"
[ "$(frames "$tmp/filt.pcapng")" -eq 40 ] || fail "filter: $(frames "$tmp/filt.pcapng") frames"
[ "$(frames "$tmp/filt.pcapng" "udp.dstport == 4791 && frame.packet_flags_direction == 1")" -eq 40 ] ||
	fail "filter: a frame that is not udp port 4791 was captured"
f=$(c show capture --json | jq -e '.capture.filtered')
[ "$f" -gt 0 ] || fail "filter: show capture counts $f frames filtered out"
check_ok "filter 'udp port 4791': 40 RoCEv2 frames, $f UDP ones left out"

# 5. bad input: a clear error each time, and the switch forwards on.
refused() { # EXPECT_IN_MESSAGE CMD...
	local want=$1 msg
	shift
	if msg=$(c "$@" 2>&1); then fail "accepted: $*"; fi
	echo "$msg" | grep -qi -- "$want" || fail "'$*': message '$msg' lacks '$want'"
}
refused "no port 'p9'" capture p9 rx 5 "$tmp/x.pcapng"
refused "absolute path" capture p0 rx 5 x.pcapng
refused "cannot write" capture p0 rx 5 /nonexistent-dir-$$/x.pcapng
refused "filter 'udp portt 1'" capture p0 rx 5 "$tmp/x.pcapng" filter udp portt 1
refused "no capture runs" capture stop
refused "COUNT" capture p0 rx 0 "$tmp/x.pcapng"
[ ! -e "$tmp/x.pcapng" ] || fail "a refused capture left a file"
c capture p0 rx "$tmp/bg.pcapng" background | grep -q "started" ||
	fail "background capture not started"
refused "one at a time" capture p1 rx 5 "$tmp/y.pcapng"
wait_until 60 capture_is running 10 || fail "background capture writes nothing"
tel_written() { [ "$(tel /ibex/capture | jq -e '.capture.written')" -ge "$1" ]; }
wait_until 60 tel_written 10 || fail "/ibex/capture: the running capture writes nothing"
tel_matches_show running || fail "/ibex/capture while a capture runs"
check_ok "/ibex/capture while one runs: running, its counters moving"
out=$(c capture stop) || fail "capture stop failed"
n=$(echo "$out" | sed -n 's/.*: \([0-9]*\) frames.*/\1/p')
[ "$(frames "$tmp/bg.pcapng")" -eq "$n" ] ||
	fail "stop: says $n frames, file holds $(frames "$tmp/bg.pcapng")"
forwarding || fail "the switch stopped forwarding"
tel_matches_show done || fail "/ibex/capture after capture stop"
[ "$(tel /ibex/capture | jq -r '.capture.end')" = "capture stop" ] ||
	fail "/ibex/capture: end is not 'capture stop'"
check_ok "refusals are clear; capture stop ends a background capture ($n frames)"

# 6. ^C of a waiting ibex-ctl ends the capture, which still answers.
"$ctl" --file-prefix "$prefix" capture p1 rx "$tmp/int.pcapng" >"$tmp/int.out" 2>&1 &
cpid=$!
wait_until 60 capture_is running 5 ||
	fail "the capture of the waiting ibex-ctl does not run"
kill -INT "$cpid"
rc=0
wait "$cpid" || rc=$?
[ "$rc" -eq 0 ] || { cat "$tmp/int.out"; fail "ibex-ctl after ^C: status $rc"; }
n=$(sed -n 's/.*: \([0-9]*\) frames.*/\1/p' "$tmp/int.out")
[ -n "$n" ] && [ "$(frames "$tmp/int.pcapng")" -eq "$n" ] ||
	{ cat "$tmp/int.out"; fail "^C: reply and file disagree"; }
c show capture | grep -q "the client left" || fail "show capture lacks the reason"
check_ok "^C of ibex-ctl ends the capture: $n frames, file complete"

stop_pid "$swpid" INT
[ "$WAIT_RC" -eq 0 ] || { show_log "$tmp/switch.log"; fail "switch exit status $WAIT_RC"; }
echo PASS
