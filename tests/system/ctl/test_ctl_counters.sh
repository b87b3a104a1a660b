#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Every view of a counter set carries the same counters: for a port,
# "ibex-ctl --json show ports", /ibex/port_stats and the final --json
# file; for a lane, "ibex-ctl --json show lanes", /ibex/lanes and the
# final --json file's "lanes"; for flow control, "show pfc" and "show
# credits", /ibex/pfc and /ibex/credits, and the final --json file. The key sets must be identical (the
# identity members each view adds, such as "name" or "dev", aside; drop
# reasons compared through telemetry's one spelling rule, "drop_" and '-'
# as '_'), and with the switch idle and then stopped, so must the values.
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
                  {"name", "dev", "admin", "link", "speed_bps", "flood"})
    b = flat_json(next(p for p in final["ports"] if p["name"] == name), {"name"})
    c = {k: v for k, v in tel[name].items() if k not in ("name", "ethdev_port", "link")}
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

# Flow control: the counters of a PFC port (p2) and of a credit port (p3)
# and the per-lane state of a credit lane (p3 VL 1). Parameters from the
# config (show's) and the lane masks (telemetry's) are not counters.
pfc_conf = {"port", "fc", "lossless_mask", "headroom_auto", "headroom_blocks",
            "cable_m", "proc_ns", "xoff_blocks", "xon_gap_blocks", "quanta",
            "refresh_margin_us", "hw", "watchdog", "wd_detect_ms", "wd_recover_ms"}
cr_conf = {"port", "fc", "vl", "class", "reserved_blocks", "credit_period_us",
           "min_gap_ns"}
lane_keys = {"credits", "buf_used", "advertised_free", "violations"}
def tel_split(d):
    port = {k: v for k, v in d.items() if not k.startswith("vl") and k != "lossless_vls"}
    vl1 = {k[4:]: v for k, v in d.items() if k.startswith("vl1_")}
    return port, vl1
ctl_pfc, ctl_cr = load("ctl_pfc.json"), load("ctl_credits.json")
tp2, _ = tel_split(load("tel_pfc.json")["/ibex/pfc"]["p2"])
tp3, tl3 = tel_split(load("tel_credits.json")["/ibex/credits"]["p3"])
pick = lambda l: next(x for x in l if x["port"] == "p2")
a = {k: v for k, v in pick(ctl_pfc["pfc"]).items() if k not in pfc_conf}
b = {k: v for k, v in pick(final["pfc"]).items() if k not in pfc_conf}
check(f"PFC port: {len(a)} counters, pfc_tx and paused_ns_p0 among them",
      "pfc_tx" in a and "paused_ns_p0" in a and "pfc_ignored" in a)
check("PFC port: show pfc, /ibex/pfc and the final --json have the same keys",
      set(a) == set(b) == set(tp2))
check("PFC port: the same values in the three views (idle)",
      all(a[k] == b[k] == tp2[k] for k in a))
row = lambda l: next(x for x in l if x["port"] == "p3" and x["vl"] == 1)
for what, r in (("show credits", row(ctl_cr["credits"])), ("final", row(final["credits"]))):
    port = {k for k in r if k not in cr_conf and k not in lane_keys}
    lane = {k for k in r if k in lane_keys}
    check(f"credit port: {what} and /ibex/credits have the same port keys",
          port == set(tp3) and "fc_tx" in port)
    check(f"credit lane: {what} and /ibex/credits vl1_ have the same keys",
          lane == set(tl3) == lane_keys)

# The FDB's counters (the page of entries and its cursor aside, and what
# ibex-ctl adds to every document: the meta block and the time).
a = {k: v for k, v in load("ctl_fdb.json").items()
     if k not in ("table", "meta", "time", "time_unix")}
c = {k: v for k, v in load("tel_fdb.json")["/ibex/fdb"].items()
     if k not in ("offset", "count", "next") and not k.isdigit()}
check("FDB: show fdb, /ibex/fdb and the final --json have the same keys and values",
      a == c == final["fdb"] and a["static"] == 4)
sys.exit(1 if bad else 0)
PY
check_ok "ports, lanes, flow control: the same counters in show --json, /ibex/ and the final --json"
echo PASS
