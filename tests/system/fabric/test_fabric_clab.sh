#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# ibex-fabric reads containerlab's own topology files
# (conf/fabric/clos01.clab.yml: kinds with images, group, exec, prefix,
# mgmt, "node:interface" strings and `type: veth` links with
# {node, interface} endpoints, containerlab's interface names):
#
#   1. Without a kind map it is refused at the first node, naming its kind
#      and how to map it; with --kind-map it loads and routes, each
#      containerlab key it ignores named once with file:line; a bad kind
#      map, a host link, an unknown key are refused with file:line; the
#      file's own ibex: kind-map: loads it and the command line wins over
#      it.
#   2. The lab runs: a ring all-reduce over its 4 clients (ranks) through
#      its SR Linux leaves and spines (ibex switches) with PFC, every frame
#      accounted for, frames through a spine, ports named as the file
#      names them, in natural order.
#
#   test_fabric_clab.sh IBEX_FABRIC CONF_DIR
set -euo pipefail
TEST_NAME=fabric_clab
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

fab=${1:?usage: test_fabric_clab.sh IBEX_FABRIC CONF_DIR}
confdir=${2:?usage: test_fabric_clab.sh IBEX_FABRIC CONF_DIR}
[ -x "$fab" ] || skip "no ibex-fabric at $fab"
require_cmds python3
[ "$(nproc)" -ge 2 ] || skip "needs two CPUs"

tmp=$(mktemp -d /tmp/ibex-fabric-clab.XXXXXX)
on_exit rm -rf "$tmp"
on_exit kill_started
eal=(--lcores 0@0,1@1,2@0 --no-huge -m 2048 --no-pci --log-level='lib.*:notice')
y=$confdir/fabric/clos01.clab.yml
km=nokia_srlinux=ibex,linux=rank

# A refusal: the command fails and its output has the text.
refused() {
	local what=$1 want=$2

	shift 2
	if "$fab" --check "$@" >"$tmp/r.log" 2>&1 || ! grep -qF -e "$want" "$tmp/r.log"; then
		show_log "$tmp/r.log"; fail "$what: no refusal saying '$want'"
	fi
}

# ---- 1. loading ----
refused "no kind map" \
	"clos01.clab.yml:29: node leaf1: unknown kind 'nokia_srlinux': map it to ibex (a switch) or rank (a traffic endpoint): --kind-map nokia_srlinux=ibex|rank" "$y"
"$fab" --check "$y" --kind-map "$km" >"$tmp/check.log" 2>"$tmp/warn.log" ||
	{ show_log "$tmp/check.log"; show_log "$tmp/warn.log"; fail "--check with --kind-map"; }
grep -q "fabric clos01 OK: 4 switches, 4 ranks, 8 links" "$tmp/check.log" ||
	{ show_log "$tmp/check.log"; fail "clos01: not 4 switches, 4 ranks, 8 links"; }
# One warning per key, at its first line, never one per node.
for w in "15: warning: containerlab's top-level key 'prefix' ignored" \
	"16: warning: containerlab's top-level key 'mgmt' ignored" \
	"21: warning: containerlab's topology key 'kinds' ignored" \
	"30: warning: containerlab's node key 'group' ignored (and 7 more times)" \
	"43: warning: containerlab's node key 'exec' ignored (and 3 more times)"; do
	grep -qF "ibex-fabric: $y:$w" "$tmp/warn.log" ||
		{ show_log "$tmp/warn.log"; fail "no warning '$w'"; }
done
[ "$(wc -l <"$tmp/warn.log")" -eq 5 ] ||
	{ show_log "$tmp/warn.log"; fail "not one warning line per key"; }
for m in none pfc credit credit-pfc; do
	"$fab" --check "$y" --kind-map "$km" --fc "$m" >"$tmp/check.log" 2>&1 ||
		{ show_log "$tmp/check.log"; fail "--check --fc $m"; }
done
refused "--kind-map linux=host" "--kind-map: kind 'linux': 'host' is neither ibex (a switch) nor rank" \
	"$y" --kind-map linux=host
# The first veth link (line 68) made a host link.
sed '68s/type: veth/type: host/' "$y" >"$tmp/host.clab.yml"
refused "a host link" "host.clab.yml:68: link: type host joins a node to something outside the lab" \
	"$tmp/host.clab.yml" --kind-map "$km"
sed '33s/group: tier-1/colour: blue/' "$y" >"$tmp/colour.clab.yml"
refused "an unknown node key" "colour.clab.yml:33: node leaf2: unknown key 'colour'" \
	"$tmp/colour.clab.yml" --kind-map "$km"
# The file's own kind map (ibex's key: containerlab itself would refuse
# the file), and the command line over it.
{ echo "ibex: {kind-map: {nokia_srlinux: ibex, linux: rank}}"; cat "$y"; } >"$tmp/own.clab.yml"
"$fab" --check "$tmp/own.clab.yml" >"$tmp/own.log" 2>&1 ||
	{ show_log "$tmp/own.log"; fail "the file's own kind map"; }
{ echo "ibex: {kind-map: {nokia_srlinux: ibex, linux: ibex}}"; cat "$y"; } >"$tmp/own2.clab.yml"
refused "linux as switches" "a fabric needs at least one ibex switch and one rank" "$tmp/own2.clab.yml"
"$fab" --check "$tmp/own2.clab.yml" --kind-map linux=rank >"$tmp/own.log" 2>&1 ||
	{ show_log "$tmp/own.log"; fail "--kind-map over the file's kind-map"; }
check_ok "clos01.clab.yml loads with a kind map (5 warnings, one per key); refusals with file:line; the command line's map wins"

# ---- 2. it runs ----
dpdk_prefix pclab run
"$fab" "${eal[@]}" --file-prefix="$pclab" -- "$y" --kind-map "$km" --fc pfc \
	--ctl-dir none --json "$tmp/run.json" --gen "--engine ring --ranks 4 \
	-b 4K -e 16K -n 3 -w 1 --pcp 3 --vlan 1 --json $tmp/run.gen.json" \
	>"$tmp/run.log" 2>&1 || { show_log "$tmp/run.log"; fail "ring all-reduce on clos01"; }
python3 - "$tmp" <<'PY' || { show_log "$tmp/run.log"; fail "clos01 accounting"; }
import json, sys
t = sys.argv[1]
g = json.load(open(f"{t}/run.gen.json"))
f = json.load(open(f"{t}/run.json"))
fr, q = g["frames"], g["sequence"]
assert fr["tx"] > 0 and fr["tx"] == fr["rx"], fr
assert q["lost"] == 0 and q["out_of_order"] == 0 and q["duplicate"] == 0, q
sw = {s["name"]: {p["port"]: p for p in s["ports"]} for s in f["switches"]}
assert sorted(sw) == ["leaf1", "leaf2", "spine1", "spine2"], sorted(sw)
# its interfaces are its ports, in natural order (the file names the
# uplinks e1-49, e1-50 first)
order = [p["port"] for s in f["switches"] if s["name"] == "leaf1" for p in s["ports"]]
assert order == ["e1-1", "e1-2", "e1-49", "e1-50"], order
spines = sum(p["tx_frames"] for s in ("spine1", "spine2") for p in sw[s].values())
assert spines > 0, "no frame crossed a spine"
print("fabric_clab: %d frames, %d through the spines" % (fr["rx"], spines))
PY
check_ok "clos01.clab.yml runs a ring all-reduce: every frame, in order, through the spines"
