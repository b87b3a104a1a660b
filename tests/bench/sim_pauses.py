#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""PFC pauses per tier of a generated fabric, from ibex-fabric's --json.

    tests/bench/sim_pauses.py RUN.json [RUN.json ...]

For each switch tier (the name's prefix: edge, agg, core, leaf, spine, ...)
and each direction its ports face (towards a rank, a lower or a higher
tier), prints the switches and ports that sent a PFC XOFF, the XOFF frames
sent (pfc_tx), the time its ports' egress was held paused (paused_us, the
peer's pauses obeyed) and the frames dropped: the spread of a congestion
tree from the congested port up the tree (docs/simulation.md, "10,044
ranks: the motivating example")."""
import json
import re
import sys

ORDER = ["rank", "edge", "leaf", "agg", "spine", "core"]


def tier(name):
    m = re.match(r"[a-z]+", name or "")
    return m.group(0) if m else "?"


def rank_of(t):
    return ORDER.index(t) if t in ORDER else len(ORDER)


def switches(doc):
    if isinstance(doc, dict):
        if isinstance(doc.get("switches"), list):
            return doc["switches"]
        for v in doc.values():
            s = switches(v)
            if s is not None:
                return s
    return None


def main(paths):
    for path in paths:
        with open(path) as f:
            sw = switches(json.load(f)) or []
        rows = {}
        for s in sw:
            t = tier(s["name"])
            for p in s["ports"]:
                peer = tier(p.get("to", "").split(":")[0])
                d = ("down" if rank_of(peer) < rank_of(t) else
                     "up" if rank_of(peer) > rank_of(t) else "side")
                r = rows.setdefault((t, d, peer), {
                    "sw": set(), "ports": 0, "xoff_ports": 0,
                    "pfc_tx": 0, "paused_ports": 0, "paused_us": 0,
                    "dropped": 0})
                r["ports"] += 1
                r["dropped"] += p.get("dropped", 0)
                if p.get("pfc_tx", 0):
                    r["sw"].add(s["name"])
                    r["xoff_ports"] += 1
                    r["pfc_tx"] += p["pfc_tx"]
                if p.get("paused_us", 0) or p.get("pfc_rx", 0):
                    r["paused_ports"] += 1
                    r["paused_us"] += p.get("paused_us", 0)
        print(path)
        print("%-6s %-12s %6s %13s %8s %15s %10s %8s" % (
            "tier", "ports to", "ports", "sw sent XOFF", "XOFFs",
            "ports paused", "paused us", "dropped"))
        for (t, d, peer), r in sorted(rows.items(),
                                      key=lambda kv: (rank_of(kv[0][0]),
                                                      rank_of(kv[0][2]))):
            print("%-6s %-12s %6d %6d (%4d p) %8d %15d %10d %8d" % (
                t, "%s (%s)" % (peer, d), r["ports"], len(r["sw"]),
                r["xoff_ports"], r["pfc_tx"], r["paused_ports"],
                r["paused_us"], r["dropped"]))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
