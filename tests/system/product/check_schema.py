#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The rules every JSON ibex writes keeps (docs/results.md, schema 2).

  check_schema.py result FILE TOOL     a result file (ibex-switch, ibex-gen,
                                       ibex-fabric --json): a JSON document
                                       whose first member is the meta block
                                       of TOOL
  check_schema.py ctl FILE TOOL        ibex-ctl -j output: one document per
                                       line, each {"meta", "time",
                                       "time_unix", ...}
  check_schema.py version FILE TOOL    ibex-ctl -j version: the meta block
  check_schema.py lines FILE TOOL N    ibex-ctl -j -i: N lines (JSON Lines),
                                       each a ctl document, times rising

In every document, at any depth:
  - a key that names a percentile is [PREFIX_]p50|p99|p999_ns|us (never
    p99_9, p99.9, p50 without its unit);
  - an object with the bare key p50_ns is a latency summary: frames,
    min_ns, p50_ns, p99_ns, p999_ns, max_ns, all numbers, in order
    min <= p50 <= p99 <= p999 <= max when it has frames.
Exits 1 with every broken rule on stderr.
"""

import json
import re
import sys

SCHEMA = 2
META_KEYS = ("schema", "tool", "version", "git", "dpdk", "command_line",
             "start_time", "start_unix", "host", "tsc_hz", "ports")
SUMMARY = ("frames", "min_ns", "p50_ns", "p99_ns", "p999_ns", "max_ns")
# a word of the key that is a quantile: p50, p90, p99, p99_9, p999 ...
# (not a priority's p0..p7, as in paused_ns_p3)
PCT_WORD = re.compile(r"(^|_)p(50|9[0-9]*)(_[0-9]+)?(?=_|$)")
PCT_KEY = re.compile(r"^([a-z0-9]+_)*p(50|99|999)_(ns|us)$")
ISO_MS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")

errors = []


def bad(where, what):
    errors.append(f"{where}: {what}")


def walk(v, where, counts):
    if isinstance(v, dict):
        for k, x in v.items():
            if PCT_WORD.search(k) and not PCT_KEY.match(k):
                bad(f"{where}.{k}", "a percentile spelled other than "
                    "[prefix_]p50|p99|p999_ns|us")
            walk(x, f"{where}.{k}", counts)
        if "p50_ns" in v:
            counts["summaries"] += 1
            missing = [k for k in SUMMARY if k not in v]
            if missing:
                bad(where, f"a latency summary without {missing}: {sorted(v)}")
            elif v["frames"]:
                q = [v[k] for k in SUMMARY[1:]]
                if q != sorted(q):
                    bad(where, f"min <= p50 <= p99 <= p999 <= max fails: {q}")
    elif isinstance(v, list):
        for i, x in enumerate(v):
            walk(x, f"{where}[{i}]", counts)


def meta_ok(m, where, tool):
    if not isinstance(m, dict):
        bad(where, f"no meta block: {m!r:.80}")
        return
    if tuple(m)[:len(META_KEYS)] != META_KEYS:
        bad(where, f"meta keys {list(m)}, want {list(META_KEYS)}")
        return
    if m["schema"] != SCHEMA:
        bad(where, f"meta.schema {m['schema']}, want {SCHEMA}")
    if m["tool"] != tool:
        bad(where, f"meta.tool {m['tool']}, want {tool}")
    if not (isinstance(m["tsc_hz"], int) and m["tsc_hz"] > 0):
        bad(where, f"meta.tsc_hz {m['tsc_hz']}")
    if not all({"port_id", "name", "pmd"} <= set(p) for p in m["ports"]):
        bad(where, f"meta.ports {m['ports']}")


def document(d, where, tool, counts):
    if not isinstance(d, dict) or not d:
        bad(where, "not a JSON object")
        return
    if next(iter(d)) != "meta":
        bad(where, f"the first member is {next(iter(d))!r}, not meta")
    meta_ok(d.get("meta"), f"{where}.meta", tool)
    walk(d, where, counts)


def ctl_document(d, where, tool, counts):
    document(d, where, tool, counts)
    if isinstance(d, dict):
        if list(d)[1:3] != ["time", "time_unix"]:
            bad(where, f"keys {list(d)[:4]}...: want meta, time, time_unix first")
        elif not ISO_MS.match(d["time"]) or not isinstance(d["time_unix"],
                                                           (int, float)):
            bad(where, f"time {d['time']!r}, time_unix {d['time_unix']!r}")


def load_lines(path):
    out = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            try:
                out.append(json.loads(line))
            except ValueError as e:
                bad(f"{path}:{n}", f"not one JSON object a line ({e}): "
                    f"{line.strip()[:80]!r}")
    return out


def main(argv):
    kind, path, tool = argv[1], argv[2], argv[3]
    counts = {"summaries": 0}
    if kind == "result":
        with open(path) as f:
            document(json.load(f), path, tool, counts)
    elif kind == "version":
        with open(path) as f:
            meta_ok(json.load(f), path, tool)
    elif kind in ("ctl", "lines"):
        docs = load_lines(path)
        for i, d in enumerate(docs):
            ctl_document(d, f"{path}:{i + 1}", tool, counts)
        if kind == "lines":
            want = int(argv[4])
            if len(docs) != want:
                bad(path, f"{len(docs)} lines, want {want}")
            t = [d.get("time_unix", 0) for d in docs if isinstance(d, dict)]
            if t != sorted(t) or len(set(t)) != len(t):
                bad(path, f"times not rising: {t}")
    else:
        sys.exit(f"unknown kind {kind}")
    for e in errors:
        print("schema: " + e, file=sys.stderr)
    if not errors:
        print(f"schema: {path}: ok ({kind}, {counts['summaries']} latency "
              "summaries)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
