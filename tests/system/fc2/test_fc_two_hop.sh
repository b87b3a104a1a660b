#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Credit flow control across two hops: two ibex-switch processes chained by
# two memif links, both running `fc credit` on the links.
#
#   switch A (built-in generator)                 switch B
#   gen1..gen4 --VLAN 10--> L1 (memif server) ==> K1 (memif client)
#                                                   | static FDB
#   gen0 <--VLAN 20------- L2 (memif server) <== K2 (memif client, shaped)
#
# The generator's ranks 1..4 send untagged frames (DSCP 8: SL 1, VL 1,
# lossless) to rank 0. A's sender ports and L1 have pvid 10, L2 and gen0
# pvid 20; B's ports pvid 1. Learning is off: A sends rank 0's MAC to L1 in
# VLAN 10 and to gen0 in VLAN 20, B sends it from K1 to K2. So every frame
# crosses two credit links and a second ibex, and B's K2 (shaped to 1 Gb/s,
# far below the offered load) can only hold the traffic back through
# credits: B's buffer -> credits to A's L1 -> A's buffer -> credits to the
# generator's senders.
#
#   1. credit: tx = rx, no sequence error, no drop of any reason in either
#      switch; both switches' link ports sent and applied credit frames
#      (ibex-ctl show credits --json while the run goes on);
#   2. the same with `fc none` on every port: frames are lost.
#
#   test_fc_two_hop.sh IBEX_SWITCH IBEX_CTL
# Environment: FC_SECS (10) length of the credit run.
set -euo pipefail
TEST_NAME=fc_two_hop
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

sw=${1:?usage: test_fc_two_hop.sh IBEX_SWITCH IBEX_CTL}
ctl=${2:?usage: test_fc_two_hop.sh IBEX_SWITCH IBEX_CTL}
[ -x "$sw" ] || skip "no ibex-switch at $sw"
[ -x "$ctl" ] || skip "no ibex-ctl at $ctl"
require_cmds python3
[ "$(nproc)" -ge 2 ] || skip "needs two CPUs"
secs=${FC_SECS:-10}

tmp=$(mktemp -d /tmp/ibex-fc-2hop.XXXXXX)
on_exit rm -rf "$tmp"
readonly RX_MAC=02:00:00:0e:00:00	# rank 0 (docs/generator.md)

# $1 name, $2 fc mode, $3 lane statement (or empty)
write_confs() {
	local a=$tmp/$1.a.conf b=$tmp/$1.b.conf p
	{
		echo "switch workers 1"
		echo "buffer total 8MB"
		echo "fdb learning off"
		echo "port gen0 vls 2 fc $2 sl-from dscp pvid 20"
		for p in 1 2 3 4; do
			echo "port gen$p vls 2 fc $2 sl-from dscp pvid 10"
		done
		echo "port L1 dev net_memif0 vls 2 fc $2 sl-from dscp pvid 10"
		echo "port L2 dev net_memif1 vls 2 fc $2 sl-from dscp pvid 20"
		if [ -n "$3" ]; then
			for p in gen0 gen1 gen2 gen3 gen4 L1 L2; do
				echo "lane $p vl 1 $3"
			done
		fi
		echo "fdb static $RX_MAC port L1 vlan 10"
		echo "fdb static $RX_MAC port gen0 vlan 20"
	} >"$a"
	{
		echo "switch workers 1"
		echo "buffer total 8MB"
		echo "fdb learning off"
		echo "port K1 dev net_memif0 vls 2 fc $2 sl-from dscp"
		echo "port K2 dev net_memif1 vls 2 fc $2 sl-from dscp shape 20M"
		if [ -n "$3" ]; then
			for p in K1 K2; do echo "lane $p vl 1 $3"; done
		fi
		echo "fdb static $RX_MAC port K2"
	} >"$b"
}

# credits_seen NAME: save both switches' "show credits"; true once every
# link port has sent and received credit frames on VL 1.
credits_seen() {
	local k

	for k in a b; do
		"$ctl" --socket "$tmp/$1.$k.ctl" show credits --json \
			>"$tmp/$1.$k.credits.json" 2>/dev/null || return 1
	done
	python3 - "$tmp/$1" <<'PY'
import json, sys
for k, names in (("a", ("L1", "L2")), ("b", ("K1", "K2"))):
    c = json.load(open(f"{sys.argv[1]}.{k}.credits.json"))
    r = {x["port"]: x for x in c["credits"] if x["vl"] == 1}
    if not all(n in r and r[n]["fc_tx"] > 0 and r[n]["fc_rx"] > 0
               for n in names):
        sys.exit(1)
PY
}

# run NAME FC SECS: A (server side of both links, with the generator) and
# B (client side); B is stopped once A's scenario has ended, before A
# closes its ports.
run() {
	local name=$1 fc=$2 secs=$3 pa pb apid bpid
	local s1=$tmp/$name.l1.sock s2=$tmp/$name.l2.sock

	dpdk_prefix pa "$name-a"
	dpdk_prefix pb "$name-b"
	start_bg apid "$tmp/$name.a.log" "$sw" --lcores 0@0,1@1,2@0 \
		--no-huge -m 1024 --no-pci --file-prefix="$pa" \
		--log-level='lib.*:notice' \
		--vdev "net_memif0,role=server,id=0,socket=$s1,socket-abstract=no" \
		--vdev "net_memif1,role=server,id=0,socket=$s2,socket-abstract=no" \
		-- --config "$tmp/$name.a.conf" --json "$tmp/$name.a.json" \
		--wait-links 90 --wait-peers 120 --ctl-socket "$tmp/$name.a.ctl" \
		--gen "--engine rate --ranks 5 --flow 1:0,2:0,3:0,4:0 \
		--fc $fc --vl 1 --dscp 8 --size 128 --duration $secs \
		--json $tmp/$name.gen.json"
	sockets() { [ -S "$s1" ] && [ -S "$s2" ]; }
	wait_until_or_dead 60 "$apid" sockets ||
		{ show_log "$tmp/$name.a.log"; fail "A did not create its memif sockets ($name)"; }
	start_bg bpid "$tmp/$name.b.log" "$sw" --lcores 0@0,1@1 \
		--no-huge -m 1024 --no-pci --file-prefix="$pb" \
		--single-file-segments --log-level='lib.*:notice' \
		--vdev "net_memif0,role=client,id=0,socket=$s1,socket-abstract=no" \
		--vdev "net_memif1,role=client,id=0,socket=$s2,socket-abstract=no" \
		-- --config "$tmp/$name.b.conf" --json "$tmp/$name.b.json" \
		--ctl-socket "$tmp/$name.b.ctl"
	# B dials A's servers again until A's ports are started (ibex.link
	# logs each link up); A waits for its links with --wait-links.
	b_links() { [ "$(grep -c ': link up$' "$tmp/$name.b.log")" -ge 2 ]; }
	wait_until_or_dead 120 "$bpid" b_links ||
		{ show_log "$tmp/$name.a.log"; show_log "$tmp/$name.b.log"; fail "B's memif links did not come up ($name)"; }
	if [ "$fc" = credit ]; then
		# While traffic flows: until both ends of both links have sent
		# and applied credit frames (judged again below), or A ends.
		wait_until_or_dead $((secs + 90)) "$apid" credits_seen "$name" ||
			info "credit frames not yet seen on every link port ($name)"
	fi
	# Stop order: A's workers stop when its scenario ends and A waits
	# (--wait-peers) for B to leave; B stops next, then A closes. So
	# neither switch has a worker polling a memif port when its peer
	# disconnects (DPDK 22.11's memif race, docs/design.md).
	a_waits() { grep -q 'waiting up to .* for the memif peers' "$tmp/$name.a.log"; }
	wait_until_or_dead $((secs + 90)) "$apid" a_waits ||
		{ is_alive "$apid" && { show_log "$tmp/$name.a.log"; fail "A's scenario did not end ($name)"; }; }
	stop_pid "$bpid" INT
	[ "$WAIT_RC" -eq 0 ] ||
		{ show_log "$tmp/$name.b.log"; fail "B exit status $WAIT_RC ($name)"; }
	wait_exit "$apid" 180 ||
		{ show_log "$tmp/$name.a.log"; fail "A still running ($name)"; }
	# (A exits 1 when its generator lost frames: judged below; a signal
	# is a crash.)
	[ "$WAIT_RC" -lt 128 ] ||
		{ show_log "$tmp/$name.a.log"; fail "A exit status $WAIT_RC ($name)"; }
	# ibex-gen exits 3 when a frame was lost: judged below
	[ -s "$tmp/$name.gen.json" ] && [ -s "$tmp/$name.a.json" ] ||
		{ show_log "$tmp/$name.a.log"; show_log "$tmp/$name.b.log"; fail "A failed ($name)"; }
	[ -s "$tmp/$name.b.json" ] ||
		{ show_log "$tmp/$name.b.log"; fail "no JSON from B ($name)"; }
}

write_confs credit credit "lossless reserved 16KB"
run credit credit "$secs"
write_confs off none ""
run off none 3

python3 - "$tmp" <<'PY' || { for f in "$tmp"/*.log "$tmp"/*.credits.json; do show_log "$f"; done; fail "two-hop accounting"; }
import json, sys
tmp = sys.argv[1]

def load(name):
    g = json.load(open(f"{tmp}/{name}.gen.json"))
    sws = {k: json.load(open(f"{tmp}/{name}.{k}.json")) for k in "ab"}
    drops = {k: {p["name"]: {r: v for r, v in p["drops"].items() if v}
                 for p in s["ports"]} for k, s in sws.items()}
    nd = sum(sum(d.values()) for s in drops.values() for d in s.values())
    return g, sws, drops, nd

g, sws, drops, nd = load("credit")
f, q, fc = g["frames"], g["sequence"], g["flow_control"]
port = {k: {p["name"]: p for p in s["ports"]} for k, s in sws.items()}
print("fc_two_hop: credit: sent %d received %d lost %d drops in A+B %d; "
      "%.0f frames/s; L1 tx %d, K1 rx %d, K2 tx %d, L2 rx %d; credit frames "
      "from A to the generator %d, to A %d"
      % (f["tx"], f["rx"], f["tx"] - f["rx"], nd,
         f["rx"] / g["rate"]["elapsed_s"], port["a"]["L1"]["tx_frames"],
         port["b"]["K1"]["rx_frames"], port["b"]["K2"]["tx_frames"],
         port["a"]["L2"]["rx_frames"], fc["credit_rx"], fc["credit_tx"]))
assert f["tx"] > 0 and f["tx"] == f["rx"], f
assert q["lost"] == 0 and q["out_of_order"] == 0 and q["duplicate"] == 0, q
assert nd == 0, drops
# every data frame crossed both hops
assert port["b"]["K2"]["tx_frames"] >= f["rx"], port["b"]["K2"]
assert port["a"]["L1"]["tx_frames"] >= f["rx"], port["a"]["L1"]

def fc_frames(k, pname):
    c = json.load(open(f"{tmp}/credit.{k}.credits.json"))
    for r in c["credits"]:
        if r["port"] == pname and r["vl"] == 1:
            return r
    raise AssertionError(f"{k}: no port {pname} VL 1 in show credits: {c}")

# Credit frames sent and received (applied) on both ends of both links.
for k, names in (("a", ("L1", "L2")), ("b", ("K1", "K2"))):
    for n in names:
        r = fc_frames(k, n)
        print("fc_two_hop: %s %s: credit frames sent %d received %d, "
              "violations %d" % (k.upper(), n, r["fc_tx"], r["fc_rx"],
                                 r["violations"]))
        assert r["fc_tx"] > 0 and r["fc_rx"] > 0 and r["violations"] == 0, r

g, sws, drops, nd = load("off")
f = g["frames"]
print("fc_two_hop: fc none: sent %d received %d lost %d drops in A+B %d"
      % (f["tx"], f["rx"], f["tx"] - f["rx"], nd))
assert f["rx"] < f["tx"], "flow control off lost nothing: the test cannot fail"
PY
check_ok "two hops with credits: zero loss, credit frames on both links; with fc none frames are lost"
