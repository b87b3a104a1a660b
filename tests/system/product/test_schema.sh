#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# One schema (docs/results.md, version 2) across every JSON ibex writes:
# the same spelling of latency percentiles ([prefix_]p50|p99|p999_ns|us;
# a latency summary is frames, min_ns, p50_ns, p99_ns, p999_ns, max_ns)
# and the same meta block first in every document (check_schema.py,
# beside this file, holds the rules):
#   1. ibex-switch with the built-in generator (rate engine) and a control
#      socket: ibex-ctl -j show latency (and show ports) while it runs,
#      each document the meta block, the time, the members; ibex-ctl -j
#      version is that meta block; ibex-ctl -j -i 0.3 -n 3 show latency is
#      JSON Lines, three objects each with its time, rising; ended by
#      SIGUSR1, the generator's file and the switch's --json file;
#   2. ibex-fabric --clock virtual on leaf2-spine1 (4 ranks, ring
#      all-reduce): its --json file and its generator's (per-size latency
#      summaries).
#
#   test_schema.sh IBEX_SWITCH IBEX_PCAPGEN IBEX_CTL IBEX_GEN IBEX_FABRIC CONF_DIR
set -euo pipefail
TEST_NAME=schema
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

sw=$1 ctl=$3 fab=$5 confdir=$6
check="$(cd "$(dirname "$0")" && pwd)/check_schema.py"
require_cmds python3
tmp=$(mktemp -d /tmp/ibex-schema.XXXXXX)
on_exit rm -rf "$tmp"
on_exit kill_started
schema() { python3 "$check" "$@" || fail "schema: $*"; }

# ---- 1. ibex-switch, its generator and ibex-ctl ----
dpdk_prefix prefix sw
sock=$tmp/ctl.sock
# a cap far beyond the test's needs: SIGUSR1 ends the load once ibex-ctl
# has read what it needs, however slow the machine
start_bg swpid "$tmp/sw.log" "$sw" --lcores 0@0,1@1,2@0 --no-huge -m 1024 \
	--no-pci --file-prefix="$prefix" --log-level='lib.*:error' -- \
	--ctl-socket "$sock" --json "$tmp/sw.json" \
	--gen "--engine rate --ranks 2 --rate 2000 --size 256 --duration 300 \
	--json $tmp/gen.json"
c() { "$ctl" -s "$sock" "$@"; }
# residence samples on both ports before judging the documents (a lane
# without samples is not listed)
has_latency() {
	c -j show latency | python3 -c 'import json, sys
sys.exit(len(json.load(sys.stdin)["latency"]) < 2)'
}
wait_until_or_dead 120 "$swpid" has_latency ||
	{ show_log "$tmp/sw.log"; fail "no residence samples in show latency"; }

c -j show latency >"$tmp/latency.json" || fail "ibex-ctl -j show latency"
# the word --json in COMMAND is the same as -j; pipelined from stdin too
c show ports --json >"$tmp/ports.json" || fail "ibex-ctl show ports --json"
printf 'show fdb\nshow workers\n' | c -j >"$tmp/piped.json" ||
	fail "ibex-ctl -j < commands"
c -j version >"$tmp/version.json" || fail "ibex-ctl -j version"
c -j -i 0.3 -n 3 show latency >"$tmp/lines.json" ||
	fail "ibex-ctl -j -i 0.3 -n 3 show latency"
schema ctl "$tmp/latency.json" ibex-switch
schema ctl "$tmp/ports.json" ibex-switch
schema ctl "$tmp/piped.json" ibex-switch
schema version "$tmp/version.json" ibex-switch
schema lines "$tmp/lines.json" ibex-switch 3
python3 - "$tmp" <<'PY' || fail "ibex-ctl's documents"
import json, sys
t = sys.argv[1]
v = json.load(open(f"{t}/version.json"))
docs = [json.loads(l) for n in ("latency", "ports", "piped", "lines")
        for l in open(f"{t}/{n}.json")]
assert len(docs) == 1 + 1 + 2 + 3, len(docs)
# one meta block: the switch's, the same in every document
assert all(d["meta"] == v for d in docs), [d["meta"] for d in docs if d["meta"] != v][:1]
assert "--ctl-socket" in v["command_line"], v
assert [list(d)[3] for d in docs] == ["latency", "ports", "entries", "workers"] + ["latency"] * 3, \
    [list(d)[:4] for d in docs]
print("schema: %d ibex-ctl documents, one meta block (%s), times %s" % (
    len(docs), v["tool"], [d["time"] for d in docs[-3:]]))
PY
check_ok "ibex-ctl -j: the switch's meta block and the time first in each document; -j -i: JSON Lines"

kill -USR1 "$swpid"
wait_exit "$swpid" 120 || { show_log "$tmp/sw.log"; fail "ibex-switch did not end"; }
[ -s "$tmp/gen.json" ] && [ -s "$tmp/sw.json" ] ||
	{ show_log "$tmp/sw.log"; fail "no generator or switch JSON"; }
schema result "$tmp/gen.json" ibex-switch
schema result "$tmp/sw.json" ibex-switch
check_ok "ibex-switch --json and its generator's --json: the meta block, one percentile spelling"

# ---- 2. ibex-fabric, virtual clock ----
dpdk_prefix fprefix fab
"$fab" --lcores 0@0,1@1,2@0 --no-huge -m 2048 --no-pci \
	--file-prefix="$fprefix" --log-level='lib.*:notice' -- \
	"$confdir/fabric/leaf2-spine1.yaml" --clock virtual --ctl-dir none \
	--json "$tmp/fab.json" --gen "--engine ring --ranks 4 -b 1K -e 4K -n 3 \
	-w 1 --json $tmp/fgen.json" >"$tmp/fab.log" 2>&1 ||
	{ show_log "$tmp/fab.log"; fail "ibex-fabric --clock virtual"; }
schema result "$tmp/fab.json" ibex-fabric
schema result "$tmp/fgen.json" ibex-fabric
python3 - "$tmp/fgen.json" <<'PY' || fail "per-size latency"
import json, sys
g = json.load(open(sys.argv[1]))
assert len(g["sizes"]) == 3 and all(s["latency"]["frames"] > 0 for s in g["sizes"]), g["sizes"]
assert g["latency"]["frames"] == sum(s["latency"]["frames"] for s in g["sizes"]), g["latency"]
PY
check_ok "ibex-fabric --json and its generator's --json: the meta block, one percentile spelling"
echo PASS
