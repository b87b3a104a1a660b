#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The generator's inc engine through real switches (docs/aggregation.md):
#   1. ibex-switch --gen: four ranks summed at the switch, int32 and fp32,
#      8 B to 256 KiB: every iteration completes, every result comes back
#      with every element the sum (the ranks check each one), the switch
#      consumes the contributions;
#   2. the same switch with two children's ports swapped: their
#      contributions are dropped as agg-port and the run fails (exit 3);
#   3. ibex-fabric --clock virtual --agg on two leaves and two spines: the
#      fabric manager's tree (leaves, then a spine) sums 8 ranks, and two
#      runs give the same report (simulated time);
#   4. the same fabric with rank 3 a straggler 20 us late: its leaf's and
#      the spine's slots waited 20 us for their last contributor (the
#      fabric's --json), the other leaf's none, and the report counts the
#      late starts;
#   5. two jobs at once on that fabric, each over both leaves (job 1 the
#      ranks 0, 1, 4, 5 with 64 slots, job 2 the others with 32): each
#      rank gets its own job's sums, every element right, each job's tree
#      rooted at its own spine; a rank in two jobs, or in none, is
#      refused with its reason.
#
#   test_gen_inc.sh IBEX_SWITCH IBEX_FABRIC CONF_DIR
set -euo pipefail
TEST_NAME=inc_engine
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

sw=${1:?usage: test_gen_inc.sh IBEX_SWITCH IBEX_FABRIC CONF_DIR}
fab=${2:?usage}
confdir=${3:?usage}
tmp=$(mktemp -d /tmp/ibex-gen-inc.XXXXXX)
on_exit rm -rf "$tmp"
on_exit kill_started
eal=(--no-huge -m 1024 --no-pci --lcores 0@0,1@1,2@0 --log-level='lib.*:notice')

# check_inc JSON RANKS SIZES: the report's inc counters and sizes
check_inc() {
	python3 - "$@" <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))
n, nsizes = int(sys.argv[2]), int(sys.argv[3])
inc = g["inc"]
bad = []
if inc["wrong"] or inc["elems_wrong"] or inc["bad"]:
    bad.append("wrong or refused results: %s" % inc)
if inc["results"] != inc["sent"] or inc["sent"] == 0:
    bad.append("results %d for %d contributions" % (inc["results"], inc["sent"]))
sizes = g["sizes"]
if len(sizes) != nsizes:
    bad.append("%d sizes, want %d" % (len(sizes), nsizes))
for s in sizes:
    if s["failed"] or s["iters"] != g["iters"]:
        bad.append("size %d: %d of %d iterations, %d failed" %
                   (s["bytes"], s["iters"], g["iters"], s["failed"]))
if bad:
    print("\n".join(bad))
    sys.exit(1)
print("%d contributions, %d results, every element right; %d sizes" %
      (inc["sent"], inc["results"], len(sizes)))
PY
}

# ---- 1. one switch ----
conf() { # CHILDREN
	printf 'port gen%d\n' 0 1 2 3
	echo "aggregation pool 8M"
	echo "aggregation job 5 children $1 parent root slots 32 elements 256"
}
conf gen0,gen1,gen2,gen3 >"$tmp/sw.conf"
for t in "" "--agg-int"; do
	"$sw" "${eal[@]}" --file-prefix="$(basename "$tmp")s" -- \
		--config "$tmp/sw.conf" --gen-ports 4 \
		--gen "--engine inc --ranks 4 --agg-job 5 --agg-slots 32 $t -b 8 -e 256K -f 8 -n 3 -w 1 --json $tmp/sw.json" \
		>"$tmp/sw.log" 2>&1 || { show_log "$tmp/sw.log"; fail "ibex-switch --gen inc $t failed"; }
	check_inc "$tmp/sw.json" 4 6 >"$tmp/chk" ||
		{ cat "$tmp/chk"; show_log "$tmp/sw.log"; fail "inc $t: not every sum right"; }
	consumed=$(awk '$1 == "gen0" { print $NF }' "$tmp/sw.log")
	[ "${consumed:-0}" -gt 0 ] || { show_log "$tmp/sw.log"; fail "the switch consumed nothing"; }
	check_ok "ibex-switch --gen inc ${t:-fp32}: $(cat "$tmp/chk"), gen0 consumed $consumed"
done

# ---- 2. children on the wrong ports ----
conf gen1,gen0,gen2,gen3 >"$tmp/swap.conf"
rc=0
"$sw" "${eal[@]}" --file-prefix="$(basename "$tmp")w" -- \
	--config "$tmp/swap.conf" --gen-ports 4 \
	--gen "--engine inc --ranks 4 --agg-job 5 --agg-slots 32 -b 4K -e 4K -n 1 -w 0 --timeout-ms 300 --fail-stop 1" \
	>"$tmp/swap.log" 2>&1 || rc=$?
[ "$rc" = 3 ] || { show_log "$tmp/swap.log"; fail "swapped children: exit $rc, want 3"; }
grep -q "agg-port" "$tmp/swap.log" || { show_log "$tmp/swap.log"; fail "swapped children: no agg-port drop"; }
check_ok "children on each other's ports: dropped as agg-port, the run fails (exit 3)"

# ---- 3. a fabric's tree, simulated ----
for k in 1 2; do
	"$fab" "${eal[@]}" --file-prefix="$(basename "$tmp")f" -- \
		"$confdir/fabric/leaf2-spine2-8.yaml" --fc none --clock virtual \
		--ctl-dir none --agg a:1:0-7 \
		--gen "--engine inc -b 8 -e 1M -f 8 -n 2 -w 1 --json $tmp/fab$k.json" \
		>"$tmp/fab.log" 2>&1 || { show_log "$tmp/fab.log"; fail "ibex-fabric --gen inc failed"; }
done
check_inc "$tmp/fab1.json" 8 6 >"$tmp/chk" ||
	{ cat "$tmp/chk"; show_log "$tmp/fab.log"; fail "fabric: not every sum right"; }
python3 - "$tmp/fab1.json" "$tmp/fab2.json" <<'PY' || fail "fabric: two runs differ"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
for g in (a, b):
    g.pop("meta", None)
    for k in ("elapsed_s", "run_s", "emulation", "rate"):
        g.pop(k, None)
if a["sizes"] != b["sizes"] or a["inc"] != b["inc"]:
    print("sizes or inc differ")
    sys.exit(1)
PY
grep -q "^ibex-fabric: --agg a (job 1): root spine" "$tmp/fab.log" ||
	{ show_log "$tmp/fab.log"; fail "fabric: no tree planned"; }
check_ok "ibex-fabric --clock virtual --agg: 8 ranks summed by two leaves and a spine, $(cat "$tmp/chk"); two runs the same"

# ---- 4. a straggler shows in the slots' wait ----
"$fab" "${eal[@]}" --file-prefix="$(basename "$tmp")f" -- \
	"$confdir/fabric/leaf2-spine2-8.yaml" --fc none --clock virtual \
	--ctl-dir none --agg a:1:0-7 --json "$tmp/fabs.json" \
	--gen "--engine inc -b 8 -e 4K -f 8 -n 4 -w 1 --straggler 3:20:1 --json $tmp/strag.json" \
	>"$tmp/fabs.log" 2>&1 || { show_log "$tmp/fabs.log"; fail "ibex-fabric --gen inc --straggler failed"; }
check_inc "$tmp/strag.json" 8 4 >"$tmp/chk" ||
	{ cat "$tmp/chk"; show_log "$tmp/fabs.log"; fail "straggler: not every sum right"; }
python3 - "$tmp/fabs.json" "$tmp/strag.json" >"$tmp/wait" <<'PY' ||
import json, sys
agg = {a["switch"]: a for a in json.load(open(sys.argv[1]))["aggregation"]}
gen = json.load(open(sys.argv[2]))
bad = []
# rank 3 is on leaf1: its slots and the spine's wait; leaf2's do not
for sw, want in (("leaf1", 20000), ("spine1", 20000), ("leaf2", 0)):
    a = agg.get(sw)
    if a is None or a["wait_count"] == 0:
        bad.append(f"{sw}: no uses counted")
        continue
    mean = a["wait_ns_sum"] / a["wait_count"]
    # The virtual clock wakes the straggler at its instant and every
    # rank's link is the same: the wait is the delay. 1 % (the issue's
    # bound is 5 %) still catches a wake on the executive's 1 us grid.
    if abs(mean - want) > 0.01 * 20000:
        bad.append(f"{sw}: mean wait {mean:.0f} ns, want {want}")
late = sum(s["late_steps"] for s in gen["sizes"])
if late != 4 * (4 + 1):
    bad.append(f"late starts {late}, want 20 (4 sizes x 5 iterations)")
if bad:
    print("\n".join(bad))
    sys.exit(1)
print("leaf1 %.0f ns, spine1 %.0f ns, leaf2 %.0f ns" % tuple(
    agg[s]["wait_ns_sum"] / agg[s]["wait_count"]
    for s in ("leaf1", "spine1", "leaf2")))
PY
	{ cat "$tmp/wait"; show_log "$tmp/fabs.log"; fail "straggler: the slots' wait is not its delay"; }
check_ok "a straggler 20 us late: slots waited $(cat "$tmp/wait")"

# ---- 5. two jobs at once ----
"$fab" "${eal[@]}" --file-prefix="$(basename "$tmp")f" -- \
	"$confdir/fabric/leaf2-spine2-8.yaml" --fc none --clock virtual \
	--ctl-dir none --agg a:1:0,1,4,5 --agg b:2:2,3,6,7:32 \
	--json "$tmp/fab2j.json" \
	--gen "--engine inc -b 8 -e 1M -f 8 -n 2 -w 1 --json $tmp/two.json" \
	>"$tmp/two.log" 2>&1 || { show_log "$tmp/two.log"; fail "ibex-fabric --gen inc, two jobs, failed"; }
check_inc "$tmp/two.json" 8 6 >"$tmp/chk" ||
	{ cat "$tmp/chk"; show_log "$tmp/two.log"; fail "two jobs: not every sum right"; }
python3 - "$tmp/two.json" "$tmp/fab2j.json" >"$tmp/jobs" <<'PY' ||
import json, sys
inc = json.load(open(sys.argv[1]))["inc"]
agg = {a["switch"]: a for a in json.load(open(sys.argv[2]))["aggregation"]}
bad = []
jobs = sorted((j["id"], j["ranks"], j["slots"]) for j in inc["jobs"])
if jobs != [(1, 4, 64), (2, 4, 32)]:
    bad.append(f"jobs {jobs}")
# each job's root is a spine of its own: both spines summed, each
# a chunk's two partials once
for sp in ("spine1", "spine2"):
    if agg.get(sp, {}).get("contributions", 0) == 0:
        bad.append(f"{sp} summed nothing")
if sum(a["duplicates"] for a in agg.values()) != 0:
    bad.append("duplicates without loss")
if bad:
    print("\n".join(bad))
    sys.exit(1)
print("jobs %s" % jobs)
PY
	{ cat "$tmp/jobs"; show_log "$tmp/two.log"; fail "two jobs: not each on its own tree"; }
for a in "a:1:0-4 b:2:4-7|rank 4 is in two --agg jobs" "a:1:0-3|rank 4 is in no --agg job"; do
	args=() want=${a#*|}
	for j in ${a%%|*}; do args+=(--agg "$j"); done
	rc=0
	"$fab" "${eal[@]}" --file-prefix="$(basename "$tmp")f" -- \
		"$confdir/fabric/leaf2-spine2-8.yaml" --fc none --clock virtual \
		--ctl-dir none "${args[@]}" --gen "--engine inc -b 8 -e 8 -n 1 -w 0" \
		>"$tmp/bad.log" 2>&1 || rc=$?
	[ "$rc" = 1 ] && grep -q "$want" "$tmp/bad.log" ||
		{ show_log "$tmp/bad.log"; fail "${a%%|*}: exit $rc, want 1 and '$want'"; }
done
check_ok "two jobs at once, each over both leaves: $(cat "$tmp/chk"), $(cat "$tmp/jobs"); a rank in two jobs or none refused"
echo PASS
