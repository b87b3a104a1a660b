#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# A switch of 64 ports (IBEX_MAX_PORTS; it was 32) forwards to every one
# of them, the ports above 31 included: one switch with 64 ranks on p0..p63
# (in-process links: DPDK's ethdev table stops at RTE_MAX_ETHPORTS 32) runs
# a ring all-reduce under the virtual clock, so each rank's port receives
# its left neighbour's frames. With flow control none and credit (the
# per-port credit state and the TX charge's 6-bit port field), every size
# completes with none failed, and the switch's report counts frames sent
# on p32..p63 as on the others. Under the real clock, the ranks' hellos
# (broadcasts) are flooded to all 63 other ports. With IBEX_MAX_PORTS 32
# the file was refused ("ports: a list of names or a count 1..32").
#
#   test_ports64.sh IBEX_FABRIC
set -euo pipefail
TEST_NAME=fabric_ports64
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

fab=${1:?usage: test_ports64.sh IBEX_FABRIC}
[ -x "$fab" ] || skip "no ibex-fabric at $fab"
require_cmds python3

tmp=$(mktemp -d /tmp/ibex-ports64.XXXXXX)
on_exit rm -rf "$tmp"
on_exit kill_started
eal=(--lcores 0@0,1@1,2@0 --no-huge -m 2048 --no-pci --log-level='lib.*:notice')

{
	echo "name: star64"
	echo "topology:"
	echo "  defaults: {rate: 100G, delay: 500ns}"
	echo "  nodes:"
	echo "    s1: {kind: ibex, ports: 64}"
	for i in $(seq 0 63); do echo "    rank$i: {kind: rank}"; done
	echo "  links:"
	for i in $(seq 0 63); do
		echo "    - endpoints: [\"rank$i:eth0\", \"s1:p$i\"]"
	done
} >"$tmp/star64.yaml"

for fc in none credit; do
	dpdk_prefix p "p64$fc"
	"$fab" "${eal[@]}" --file-prefix="$p" -- "$tmp/star64.yaml" --fc "$fc" \
		--clock virtual --ctl-dir none --json "$tmp/$fc.fab.json" \
		--gen "--engine ring --ranks 64 -b 64K -e 256K -n 1 -w 0 \
		--json $tmp/$fc.gen.json" >"$tmp/$fc.log" 2>&1 ||
		{ show_log "$tmp/$fc.log"; fail "--fc $fc: the run failed"; }
	python3 - "$tmp/$fc.gen.json" "$tmp/$fc.fab.json" "$fc" <<'PY' ||
import json, sys
g = json.load(open(sys.argv[1]))
f = json.load(open(sys.argv[2]))
assert g["ranks"] == 64, g["ranks"]
assert len(g["sizes"]) == 3, g["sizes"]
for s in g["sizes"]:
    assert s["failed"] == 0 and s["time_us"] > 0, s
# every port of s1 took its rank's frames in and sent its right
# neighbour's out, p32..p63 as p0..p31, none dropped
sw = [x for x in f["switches"] if x["name"] == "s1"]
assert len(sw) == 1, f["switches"]
ports = {x["port"]: x for x in sw[0]["ports"]}
assert sorted(ports) == sorted("p%d" % i for i in range(64)), sorted(ports)
for name, x in ports.items():
    assert x["rx_frames"] > 0 and x["tx_frames"] > 0, x
    assert x["dropped"] == 0, x
lo = sum(ports["p%d" % i]["tx_frames"] for i in range(32))
hi = sum(ports["p%d" % i]["tx_frames"] for i in range(32, 64))
assert hi == lo, (lo, hi)
if sys.argv[3] == "credit":
    assert all(ports["p%d" % i]["credit_tx"] > 0 for i in range(64)), ports
print("fabric_ports64: --fc %s: %d sizes on 64 ranks, none failed; frames "
      "sent on p0..p31 %d, on p32..p63 %d" % (sys.argv[3], len(g["sizes"]), lo, hi))
PY
		{ show_log "$tmp/$fc.log"; fail "--fc $fc: not every size completed"; }
done
check_ok "a 64-port switch: ring all-reduce over p0..p63, --fc none and credit, none failed"

# Floods: under the real clock every rank first says hello by broadcast
# (lib/gen), which the switch floods to the 63 other ports. So each port
# sends the other 63 ranks' hellos besides the ring's frames: tx - rx is
# 62 on every port (its own hello in, 63 out), p63 as p0.
dpdk_prefix p "p64real"
"$fab" "${eal[@]}" --file-prefix="$p" -- "$tmp/star64.yaml" --fc credit \
	--ctl-dir none --json "$tmp/real.fab.json" \
	--gen "--engine ring --ranks 64 -b 64K -e 64K -n 1 -w 0" \
	>"$tmp/real.log" 2>&1 ||
	{ show_log "$tmp/real.log"; fail "real clock: the run failed"; }
python3 - "$tmp/real.fab.json" <<'PY' ||
import json, sys
f = json.load(open(sys.argv[1]))
ports = {x["port"]: x for x in f["switches"][0]["ports"]}
assert len(ports) == 64, sorted(ports)
for name, x in ports.items():
    assert x["tx_frames"] - x["rx_frames"] == 62 and x["dropped"] == 0, x
assert len({x["tx_frames"] for x in ports.values()}) == 1, ports
print("fabric_ports64: real clock: every port of 64 sent %d frames, 63 of them "
      "the other ranks' flooded hellos" % ports["p63"]["tx_frames"])
PY
	{ show_log "$tmp/real.log"; fail "real clock: a flood missed a port"; }
check_ok "a 64-port switch floods to every other port, p32..p63 included"
