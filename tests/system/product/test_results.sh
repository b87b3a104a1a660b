#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# One result schema (docs/results.md): the switch's final --json holds
# the meta block and the lanes, latency, ECN, PFC, credit and drop
# sections that "show X --json" renders; the generator's JSON (built in
# and ibex-gen) carries the same meta block; --csv of a rate run has one
# row per flow and a total; the collective table ends with nccl-tests'
# "# Avg bus bandwidth" line; --progress prints a line per finished size.
#
#   test_results.sh IBEX_SWITCH IBEX_PCAPGEN IBEX_CTL IBEX_GEN
set -euo pipefail
TEST_NAME=results
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

sw=$1 gen=$4
require_cmds python3
tmp=$(mktemp -d /tmp/ibex-results.XXXXXX)
on_exit rm -rf "$tmp"
dpdk_prefix prefix sw

eal=(--lcores 0@0,1@1,2@0 --no-huge -m 1024 --no-pci
     --file-prefix="$prefix" --log-level='lib.*:error')
"$sw" "${eal[@]}" -- --json "$tmp/sw.json" \
	--gen "--engine ring --ranks 2 -b 1K -e 4K -n 5 -w 1 --progress --json $tmp/coll.json" \
	>"$tmp/coll.log" 2>&1 || { cat "$tmp/coll.log"; fail "ring run"; }
grep -Eq '^# Avg bus bandwidth    : [0-9]+\.[0-9]+' "$tmp/coll.log" ||
	{ cat "$tmp/coll.log"; fail "no '# Avg bus bandwidth' line"; }
check_ok "the table ends with '# Avg bus bandwidth'"
[ "$(grep -Ec '^# \[[1-3]/3\] +[0-9]+ B: time' "$tmp/coll.log")" -eq 3 ] ||
	{ cat "$tmp/coll.log"; fail "--progress: not one line per size"; }
check_ok "--progress: a line as each of the 3 sizes finishes"
"$sw" "${eal[@]}" -- --gen "--engine rate --ranks 2 --rate 5000 \
	--duration 0.5 --csv $tmp/rate.csv --json $tmp/rate.json" \
	>"$tmp/rate.log" 2>&1 || { cat "$tmp/rate.log"; fail "rate run"; }

python3 - "$tmp" <<'PY' || fail "schema"
import csv, json, sys
d = sys.argv[1]
def meta_ok(m, tool):
    for k in ("schema", "tool", "version", "git", "dpdk", "command_line",
              "start_time", "host", "tsc_hz", "ports"):
        assert k in m, f"meta lacks {k}"
    assert m["tool"] == tool and m["schema"] == 2 and m["tsc_hz"] > 0, m
    assert m["ports"] and all("pmd" in p and "name" in p for p in m["ports"]), m
    assert "--gen" in m["command_line"] or tool == "ibex-gen", m
sw = json.load(open(f"{d}/sw.json"))
meta_ok(sw["meta"], "ibex-switch")
for k in ("ports", "fdb", "lanes", "latency", "ecn", "pfc", "credits", "drops"):
    assert k in sw, f"switch JSON lacks {k}"
assert sw["lanes"] and "tx_frames" in sw["lanes"][0], sw["lanes"][:1]
assert any(l["frames"] > 0 for l in sw["latency"]), sw["latency"]
print("switch JSON:", ", ".join(sw))
for f in ("coll.json", "rate.json"):
    meta_ok(json.load(open(f"{d}/{f}"))["meta"], "ibex-switch")
rows = list(csv.DictReader(open(f"{d}/rate.csv")))
assert len(rows) == 3, rows            # two flows and the total
tot = rows[-1]
# rx may miss the last frames on a loaded machine: the rows, not loss, are judged
assert tot["flow"] == "all" and int(tot["tx"]) > 0 and 0 < int(tot["rx"]) <= int(tot["tx"]), tot
assert float(tot["lat_p99_ns"]) > 0, tot
assert sum(int(r["tx"]) for r in rows[:-1]) == int(tot["tx"]), rows
PY
check_ok "switch JSON: meta, lanes, latency, ECN, PFC, credits, drops; gen JSON meta; rate CSV rows"

# ibex-gen on its own: the same meta block, tool ibex-gen, its PMDs.
"$gen" -l 0 --no-huge -m 512 --no-pci --file-prefix="$prefix-gen" \
	--log-level='lib.*:error' --vdev "net_pcap0,tx_pcap=$tmp/p0.pcap" \
	--vdev "net_pcap1,tx_pcap=$tmp/p1.pcap" -- --engine rate --ranks 2 \
	--rate 1000 --duration 0.1 --json "$tmp/gen.json" --quiet \
	>"$tmp/gen.log" 2>&1 || true   # nothing answers: exit 3
on_exit rm -rf "/var/run/dpdk/$prefix-gen"
python3 - "$tmp/gen.json" <<'PY' || { cat "$tmp/gen.log"; fail "ibex-gen meta"; }
import json, sys
m = json.load(open(sys.argv[1]))["meta"]
assert m["tool"] == "ibex-gen" and [p["pmd"] for p in m["ports"]] == ["net_pcap"] * 2, m
PY
check_ok "ibex-gen JSON: meta with tool and PMDs"
