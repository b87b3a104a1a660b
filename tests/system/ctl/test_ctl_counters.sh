#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Every view of a counter set carries the same counters: for a port,
# "ibex-ctl --json show ports", /ibex/port_stats and the final --json
# file; for a lane, "ibex-ctl --json show lanes", /ibex/lanes and the
# final --json file's "lanes"; for flow control, "show pfc" and "show
# credits", /ibex/pfc and /ibex/credits, and the final --json file; the
# FDB's "show fdb" and /ibex/fdb. Each is written by one function
# (lib/ctl/ibex_show.c), so with the switch idle every view holds the same
# object, telemetry in DPDK 22.11's terms (docs/control.md, "One schema");
# the final --json the same (a port's link aside: it is written after the
# ports stopped).
#
# Traffic: p0 replays a pcap of 300 frames once (every 10th malformed, so
# drop counters move); their destinations are static on p1 (net_null).
# p2 runs PFC and p3 credits (net_null ports, no traffic of their own).
#
#   test_ctl_counters.sh IBEX_SWITCH IBEX_PCAPGEN IBEX_CTL
set -euo pipefail
TEST_NAME=ctl_counters
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

sw=$1 gen=$2 ctl=$3
require_cmds jq python3 dpdk-telemetry.py

# The users' list is the source's: every key of every counter list is in
# docs/control.md's Counters tables.
root=$(cd "$(dirname "$0")/../../.." && pwd)
python3 - "$root" <<'PY' || fail "docs/control.md misses counters"
import re, sys
root = sys.argv[1]
src = open(f"{root}/lib/dp/ibex_dp_counters.h").read() + open(f"{root}/lib/fdb/ibex_fdb.h").read()
doc = open(f"{root}/docs/control.md").read()
doc = doc[doc.index("### Counters"):]
keys = []
for m in re.finditer(r"#define (IBEX_\w+_COUNTERS)\(X\) \\\n((?:.*\\\n)*.*)", src):
    keys += [(m.group(1), k) for k in re.findall(r"\bX\((\w+),", m.group(2))]
missing = [f"{l}: {k}" for l, k in keys if f"| `{k}` |" not in doc]
print(f"{len(keys)} counters in {len(set(l for l, _ in keys))} lists; not in the docs: {missing}")
sys.exit(1 if missing or len(keys) < 40 else 0)
PY
check_ok "docs/control.md lists every counter of the source's lists"

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
port p2 dev net_null1 vls 2 fc pfc
lane p2 vl 1 lossless
port p3 dev net_null2 vls 2 fc credit
lane p3 vl 1 lossless
EOF

start_bg swpid "$tmp/switch.log" "$sw" -l 0-1 --no-huge -m 1024 --no-pci \
	--file-prefix="$prefix" --log-level='lib.*:notice' \
	--vdev "net_pcap0,rx_pcap=$tmp/in.pcap" \
	--vdev "net_null0,no-rx=1" --vdev "net_null1,no-rx=1" \
	--vdev "net_null2,no-rx=1" \
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
c --json show pfc >"$tmp/ctl_pfc.json"
c --json show credits >"$tmp/ctl_credits.json"
tel /ibex/pfc >"$tmp/tel_pfc.json"
tel /ibex/credits >"$tmp/tel_credits.json"
c --json show fdb >"$tmp/ctl_fdb.json"
tel /ibex/fdb >"$tmp/tel_fdb.json"
stop_pid "$swpid" INT
[ "$WAIT_RC" -eq 0 ] || { show_log "$tmp/switch.log"; fail "the switch exited with $WAIT_RC"; }
[ -s "$tmp/final.json" ] || { show_log "$tmp/switch.log"; fail "no final --json file"; }

python3 - "$tmp" <<'PY' || fail "the counter views differ"
import json, re, sys
t = sys.argv[1]
def load(n):
    with open(f"{t}/{n}") as f:
        d = json.load(f)
    # what ibex-ctl adds to every document: the meta block and the time
    if n.startswith("ctl_"):
        for k in ("meta", "time", "time_unix"):
            d.pop(k, None)
    return d
ctl_ports, ctl_lanes, final = load("ctl_ports.json"), load("ctl_lanes.json"), load("final.json")
bad = []
def check(what, ok):
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        bad.append(what)

# Telemetry holds what show X --json holds, in DPDK 22.11's terms
# (docs/control.md, "One schema"): booleans 1/0, a list of objects as an
# object keyed by index, keys with '_' for other characters.
def as_tel(v):
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, float):
        return v
    if isinstance(v, dict):
        return {re.sub(r"[^A-Za-z0-9_/]", "_", k): as_tel(x) for k, x in v.items()}
    if isinstance(v, list):
        if any(isinstance(x, (dict, list)) for x in v):
            return {str(i): as_tel(x) for i, x in enumerate(v)}
        return [as_tel(x) for x in v]
    return v
def shape(v):
    """The keys and types, not the values."""
    if isinstance(v, dict):
        return {k: shape(x) for k, x in v.items()}
    if isinstance(v, list):
        return [shape(x) for x in v]
    return type(v).__name__
def one(doc, key, **want):
    return next(x for x in doc[key] if all(x[k] == v for k, v in want.items()))

# Port: counters and drops by reason, the same in the three views (idle).
for i, name in enumerate(("p0", "p1")):
    a = one(ctl_ports, "ports", name=name)
    b = one(final, "ports", name=name)
    c = load(f"tel_{name}.json")["/ibex/port_stats"]["ports"]["0"]
    check(f"{name}: {len(a)} port members, rx_frames and drops among them",
          len(a) >= 15 and "rx_frames" in a and "dropped" in a and
          "runt" in a["drops"] and "flood" in a)
    check(f"{name}: show ports and the final --json agree",
          {**a, "link": ""} == {**b, "link": ""})
    check(f"{name}: show ports and /ibex/port_stats agree", as_tel(a) == c)
p0 = one(final, "ports", name="p0")
check("the malformed frames are counted as drops", p0["dropped"] > 0)

# Lane: p1's two lanes.
tel_lanes = load("tel_lanes.json")["/ibex/lanes"]["lanes"]
for vl in (0, 1):
    a = one(ctl_lanes, "lanes", port="p1", vl=vl)
    b = one(final, "lanes", port="p1", vl=vl)
    c = tel_lanes[str(vl)]
    check(f"p1 vl{vl}: {len(a)} lane members, ect_seen among them",
          len(a) >= 15 and "ect_seen" in a and "cut_through" in a)
    check(f"p1 vl{vl}: show lanes, the final --json and /ibex/lanes agree",
          a == b and as_tel(a) == c)
lane_tx = sum(one(final, "lanes", port="p1", vl=v)["tx_frames"] for v in (0, 1))
check("p1's lanes sent what p1 sent", lane_tx == final["ports"][1]["tx_frames"] > 0)

# Flow control: a PFC port (p2) and a credit port (p3), every member.
ctl_pfc, ctl_cr = load("ctl_pfc.json"), load("ctl_credits.json")
a = one(ctl_pfc, "pfc", port="p2")
check("PFC port: pfc_tx, paused_ns_p0 and pfc_ignored among its members",
      "pfc_tx" in a and "paused_ns_p0" in a and "pfc_ignored" in a)
check("PFC: show pfc, /ibex/pfc and the final --json agree",
      ctl_pfc["pfc"] == final["pfc"] and
      as_tel(ctl_pfc) == load("tel_pfc.json")["/ibex/pfc"])
a = one(ctl_cr, "credits", port="p3", vl=1)
check("credit lane: fc_tx and credits among its members",
      "fc_tx" in a and "credits" in a)
# (credit frames go out every credit period, idle or not: their counters
# move, so the key sets and types are compared)
check("credits: show credits, /ibex/credits and the final --json have the "
      "same members", shape(ctl_cr["credits"]) == shape(final["credits"]) and
      shape(as_tel(ctl_cr)) == shape(load("tel_credits.json")["/ibex/credits"]))

# The FDB: counters and the entries (one page holds them all).
a = load("ctl_fdb.json")
c = load("tel_fdb.json")["/ibex/fdb"]
# (a learned entry's age_ms moves between the reads)
check("FDB: show fdb and /ibex/fdb agree", shape(as_tel(a)) == shape(c) and
      {k: v for k, v in as_tel(a).items() if k != "table"} ==
      {k: v for k, v in c.items() if k != "table"} and a["static"] == 4)
check("FDB: its counters in the final --json",
      {k: v for k, v in a.items() if k in final["fdb"]} == final["fdb"])
sys.exit(1 if bad else 0)
PY
check_ok "ports, lanes, flow control: the same counters in show --json, /ibex/ and the final --json"
echo PASS
