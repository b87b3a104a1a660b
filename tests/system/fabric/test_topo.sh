#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# ibex-topo's files load in ibex-fabric (no EAL: --check parses the file,
# routes it and renders every switch's configuration):
#
#   1. leaf-spine 4 x 2 x 4, fattree 4 and rail (4 rails, 2 groups of 4
#      servers, 2 spines) with 400G/800G links and lanes: ibex-fabric
#      --check accepts each (the lossless lane with --fc pfc), with the
#      switch, rank and link counts of the shape.
#   2. The same arguments write the same bytes.
#   3. fattree 16 (1,024 ranks, 320 switches) is read and routed: ibex-topo
#      --check and ibex-fabric --check accept it (one process runs its
#      1,024 ranks: the generator's limit is 16,384).
#   4. Sizes beyond a switch's ports (64) or the parser's nodes are
#      refused (exit 2), the limit named, nothing written; fattree 36
#      (36-port switches, 11,664 ranks) is written whole.
#
#   test_topo.sh IBEX_TOPO IBEX_FABRIC
set -euo pipefail
TEST_NAME=fabric_topo
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

topo=${1:?usage: test_topo.sh IBEX_TOPO IBEX_FABRIC}
fab=${2:?usage: test_topo.sh IBEX_TOPO IBEX_FABRIC}
[ -x "$topo" ] || skip "no ibex-topo at $topo"
[ -x "$fab" ] || skip "no ibex-fabric at $fab"

tmp=$(mktemp -d /tmp/ibex-topo.XXXXXX)
on_exit rm -rf "$tmp"

# $1 file, $2 the "N switches, N ranks, N links" ibex-fabric must find,
# then ibex-topo's arguments; ibex-fabric's own in $fab_args.
fab_args=()
accepted() {
	local f=$tmp/$1 want=$2
	shift 2
	"$topo" "$@" -o "$f" || fail "ibex-topo $*"
	"$fab" --check "$f" "${fab_args[@]}" >"$tmp/out" 2>&1 ||
		{ cat "$tmp/out"; fail "ibex-fabric --check refuses ibex-topo $*"; }
	grep -q "OK: $want\$" "$tmp/out" ||
		{ cat "$tmp/out"; fail "ibex-topo $*: not $want"; }
}
accepted ls.yaml "6 switches, 16 ranks, 24 links" leaf-spine --leaves 4 \
	--spines 2 --ranks-per-leaf 4 --rate 400G --fabric-rate 800G
accepted ft4.yaml "20 switches, 16 ranks, 48 links" fattree 4 \
	--delay 250ns --fabric-delay 1us
# a lossless lane needs flow control on every port
fab_args=(--fc pfc)
accepted rail.yaml "10 switches, 32 ranks, 48 links" rail --rails 4 \
	--groups 2 --servers-per-group 4 --spines 2 --lanes vls=4 \
	--lanes lossless=3
check_ok "leaf-spine 4x2x4, fattree 4 and rail 2x4x4 pass ibex-fabric --check"

"$topo" rail --rails 4 --groups 2 --servers-per-group 4 --spines 2 \
	--lanes lossless=3 --lanes vls=4 >"$tmp/rail2.yaml"
cmp "$tmp/rail.yaml" "$tmp/rail2.yaml" || fail "same arguments, other bytes"
check_ok "same arguments, same bytes"

"$topo" fattree 16 --check -o "$tmp/ft16.yaml" 2>"$tmp/out" ||
	{ cat "$tmp/out"; fail "ibex-topo fattree 16 --check"; }
grep -q "OK: 320 switches, 1024 ranks, 3072 links" "$tmp/out" ||
	{ cat "$tmp/out"; fail "fattree 16: counts"; }
info "$(cat "$tmp/out")"
"$fab" --check "$tmp/ft16.yaml" >"$tmp/out" 2>&1 ||
	{ cat "$tmp/out"; fail "ibex-fabric --check fattree 16"; }
grep -q "OK: 320 switches, 1024 ranks, 3072 links" "$tmp/out" ||
	{ cat "$tmp/out"; fail "ibex-fabric --check fattree 16: counts"; }
check_ok "fattree 16 (1,024 ranks) reads, routes and passes ibex-fabric --check"

# Its 320 switches are not a limit: with 8 of the ranks (every 128th;
# the rank-less edge switches need --routes shortest) it passes.
awk '!/rank[0-9]/ || /rank(0000|0128|0256|0384|0512|0640|0768|0896)[^0-9]/' \
	"$tmp/ft16.yaml" >"$tmp/ft16r8.yaml"
"$fab" --check "$tmp/ft16r8.yaml" --routes shortest >"$tmp/out" 2>&1 ||
	{ cat "$tmp/out"; fail "ibex-fabric --check fattree 16 with 8 ranks"; }
grep -q "OK: 320 switches, 8 ranks, 2056 links" "$tmp/out" ||
	{ cat "$tmp/out"; fail "fattree 16 with 8 ranks: counts"; }
check_ok "fattree 16 with 8 ranks: 320 switches in one process pass --check"

rc=0
"$topo" fattree 66 -o "$tmp/ft66.yaml" 2>"$tmp/out" || rc=$?
[ "$rc" -eq 2 ] && grep -q "at most 64 (IBEX_MAX_PORTS)" "$tmp/out" &&
	[ ! -e "$tmp/ft66.yaml" ] ||
	{ cat "$tmp/out"; fail "fattree 66: exit $rc, want 2 naming IBEX_MAX_PORTS, no file"; }
check_ok "fattree 66 refused: $(cat "$tmp/out")"

# 36-port switches: past the 32 ports of before, and the first fat tree
# past 10,000 ranks (11,664 on 1,620 switches). Written and counted
# (routing it is n_switches x n_ranks routes, 0.7 GB: not here).
"$topo" fattree 36 -o "$tmp/ft36.yaml" 2>"$tmp/out" ||
	{ cat "$tmp/out"; fail "ibex-topo fattree 36"; }
[ "$(grep -c '{kind: rank' "$tmp/ft36.yaml")" -eq 11664 ] &&
	[ "$(grep -c '{kind: ibex' "$tmp/ft36.yaml")" -eq 1620 ] &&
	[ "$(grep -c 'endpoints:' "$tmp/ft36.yaml")" -eq 34992 ] ||
	fail "fattree 36: not 11,664 ranks, 1,620 switches, 34,992 links"
check_ok "fattree 36: 11,664 ranks, 1,620 switches of 36 ports, 34,992 links"
rc=0
"$topo" fattree 40 -o "$tmp/ft40.yaml" 2>"$tmp/out" || rc=$?
[ "$rc" -eq 2 ] && grep -q "IBEX_FABRIC_MAX_NODES" "$tmp/out" &&
	[ ! -e "$tmp/ft40.yaml" ] ||
	{ cat "$tmp/out"; fail "fattree 40: exit $rc, want 2 naming IBEX_FABRIC_MAX_NODES, no file"; }
check_ok "fattree 40 refused: $(cat "$tmp/out")"
