#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Every view of a counter set carries the same counters: for a port,
# "ibex-ctl --json show ports", /ibex/port_stats and the final --json
# file; for a lane, "ibex-ctl --json show lanes", /ibex/lanes and the
# final --json file's "lanes". The key sets must be identical (the
# identity members each view adds, such as "name" or "dev", aside; drop
# reasons compared through telemetry's one spelling rule, "drop_" and '-'
# as '_'), and with the switch idle and then stopped, so must the values.
#
# Traffic: p0 replays a pcap of 300 frames once (every 10th malformed, so
# drop counters move); their destinations are static on p1 (net_null).
#
#   test_ctl_counters.sh IBEX_SWITCH IBEX_PCAPGEN IBEX_CTL
set -euo pipefail
TEST_NAME=ctl_counters
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

sw=$1 gen=$2 ctl=$3
require_cmds jq python3 dpdk-telemetry.py
[ "$(id -u)" -eq 0 ] || skip "needs root (EAL)"

tmp=$(mktemp -d /tmp/ibex-cnt.XXXXXX)
on_exit rm -rf "$tmp"
on_exit kill_started
dpdk_prefix prefix cnt
sock="$tmp/ctl.sock"
N=300

"$gen" -o "$tmp/in.pcap" -n "$N" -p 4 --kind roce --malformed >/dev/null
cat >"$tmp/switch.conf" <<EOF
port p0 dev net_pcap0
port p1 dev net_null0 vls 2
fdb static 02:00:00:00:0b:00 port p1
fdb static 02:00:00:00:0b:01 port p1
fdb static 02:00:00:00:0b:02 port p1
fdb static 02:00:00:00:0b:03 port p1
EOF

start_bg swpid "$tmp/switch.log" "$sw" -l 0-1 --no-huge -m 1024 --no-pci \
	--file-prefix="$prefix" --log-level='lib.*:notice' \
	--vdev "net_pcap0,rx_pcap=$tmp/in.pcap" \
	--vdev "net_null0,no-rx=1" \
	-- --config "$tmp/switch.conf" --ctl-socket "$sock" --json "$tmp/final.json"
c() { "$ctl" --socket "$sock" "$@"; }
tel() { echo "$1" | dpdk-telemetry.py -f "$prefix" 2>/dev/null | tail -1; }
if ! wait_until_or_dead 120 "$swpid" c show ports; then
	show_log "$tmp/switch.log"
	fail "the control socket did not answer"
fi
# Idle: the pcap is read once; every frame is forwarded or dropped.
rx_all() { [ "$(c --json show ports | jq '.ports[0].rx_frames')" -eq "$N" ]; }
settled() {
	c --json show ports | jq -e '.ports[0] as $a | .ports[1] as $b |
		$a.rx_frames == ($b.tx_frames + $a.dropped + $b.dropped)' >/dev/null
}
wait_until 120 rx_all || { c show ports; fail "p0 did not receive $N frames"; }
wait_until 60 settled || { c show ports; fail "the frames were not all forwarded or dropped"; }
check_ok "p0 received $N frames, all forwarded or dropped"

wait_until 60 tel /ibex/ports || fail "telemetry did not answer"
c --json show ports >"$tmp/ctl_ports.json"
c --json show lanes >"$tmp/ctl_lanes.json"
tel /ibex/port_stats,p0 >"$tmp/tel_p0.json"
tel /ibex/port_stats,p1 >"$tmp/tel_p1.json"
tel /ibex/lanes,p1 >"$tmp/tel_lanes.json"
stop_pid "$swpid" INT
[ "$WAIT_RC" -eq 0 ] || { show_log "$tmp/switch.log"; fail "the switch exited with $WAIT_RC"; }
[ -s "$tmp/final.json" ] || { show_log "$tmp/switch.log"; fail "no final --json file"; }

python3 - "$tmp" <<'PY' || fail "the counter views differ"
import json, sys
t = sys.argv[1]
def load(n):
    with open(f"{t}/{n}") as f:
        return json.load(f)
ctl_ports, ctl_lanes, final = load("ctl_ports.json"), load("ctl_lanes.json"), load("final.json")
tel = {p: load(f"tel_{p}.json")["/ibex/port_stats"] for p in ("p0", "p1")}
tel_lanes = load("tel_lanes.json")["/ibex/lanes"]
bad = []
def check(what, ok):
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        bad.append(what)

# Port: counters, then drops by reason (JSON nests them, telemetry
# spells them drop_<reason>).
def flat_json(p, ident):
    out = {k: v for k, v in p.items() if k not in ident and k != "drops"}
    out.update({"drop_" + r.replace("-", "_"): v for r, v in p["drops"].items()})
    return out
for i, name in enumerate(("p0", "p1")):
    a = flat_json(next(p for p in ctl_ports["ports"] if p["name"] == name),
                  {"name", "dev", "admin", "speed_bps"})
    b = flat_json(next(p for p in final["ports"] if p["name"] == name), {"name"})
    c = {k: v for k, v in tel[name].items() if k not in ("name", "ethdev_port")}
    check(f"{name}: {len(a)} port counters, rx_frames and drops among them",
          len(a) >= 30 and "rx_frames" in a and "dropped" in a and "drop_runt" in a)
    check(f"{name}: show ports and the final --json have the same keys",
          set(a) == set(b))
    check(f"{name}: show ports and /ibex/port_stats have the same keys",
          set(a) == set(c))
    for k in sorted(set(a) & set(b) & set(c)):
        if not a[k] == b[k] == c[k]:
            check(f"{name} {k}: show {a[k]}, final {b[k]}, telemetry {c[k]}", False)
    check(f"{name}: every counter has the same value in the three views (idle)",
          all(a.get(k) == b.get(k) == c.get(k) for k in a))
p0 = flat_json(next(p for p in final["ports"] if p["name"] == "p0"), {"name"})
check("the malformed frames are counted as drops", p0["dropped"] > 0)

# Lane: p1's two lanes.
for vl in (0, 1):
    ident = {"port", "vl", "class"}
    pick = lambda l: {k: v for k, v in next(x for x in l if x["port"] == "p1"
                      and x["vl"] == vl).items() if k not in ident}
    a, b = pick(ctl_lanes["lanes"]), pick(final["lanes"])
    c = tel_lanes[f"vl{vl}"]
    check(f"p1 vl{vl}: {len(a)} lane counters, ect_seen among them",
          len(a) >= 12 and "ect_seen" in a and "cut_through" in a)
    check(f"p1 vl{vl}: show lanes and the final --json have the same keys",
          set(a) == set(b))
    check(f"p1 vl{vl}: show lanes and /ibex/lanes have the same keys",
          set(a) == set(c))
    for k in sorted(a):
        if not a.get(k) == b.get(k) == c.get(k):
            check(f"p1 vl{vl} {k}: show {a.get(k)}, final {b.get(k)}, telemetry {c.get(k)}", False)
    check(f"p1 vl{vl}: every counter has the same value in the three views",
          all(a.get(k) == b.get(k) == c.get(k) for k in a))
lane_tx = sum(next(x for x in final["lanes"] if x["port"] == "p1" and x["vl"] == v)["tx_frames"]
              for v in (0, 1))
check("p1's lanes sent what p1 sent", lane_tx == final["ports"][1]["tx_frames"] > 0)
sys.exit(1 if bad else 0)
PY
check_ok "ports and lanes: the same counters in show --json, /ibex/ and the final --json"
echo PASS
