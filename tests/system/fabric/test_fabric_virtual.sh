#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# ibex-fabric --clock virtual: the fabric on a simulated clock
# (docs/simulation.md).
#
#   1. Refusals: --clock virtual without --gen, a bad --clock, a bad
#      --switch-latency; each exits 2 with the reason.
#   2. Fidelity against the closed form: on an idle fabric the ring
#      all-reduce (leaf2-spine2-8: 2 hops in a leaf, 4 across the spines)
#      and halving-doubling (8 ranks on one switch) at 100 and 400 Gb/s,
#      with and without a 600 ns switch latency, take within 1% of what
#      the alpha-beta model below computes from the link rates, the
#      frames' overhead, the delays and the switch latency, at every size
#      from 1 KiB to 1 MiB.
#   3. Deterministic: an 8-rank ring with credits and a 7 -> 1 incast
#      with PFC, each run once on a quiet machine and once beside a CPU
#      hog per CPU: the JSON reports of ibex-fabric and of the generator
#      are the same byte for byte but for the meta block, and so are the
#      printed reports but for the closing speed line.
#
#   test_fabric_virtual.sh IBEX_FABRIC CONF_DIR
set -euo pipefail
TEST_NAME=fabric_virtual
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"
# the closed form of an all-reduce (closed_form.py, beside this file)
here=$(cd "$(dirname "$0")" && pwd)

fab=${1:?usage: test_fabric_virtual.sh IBEX_FABRIC CONF_DIR}
confdir=${2:?usage: test_fabric_virtual.sh IBEX_FABRIC CONF_DIR}
[ -x "$fab" ] || skip "no ibex-fabric at $fab"
require_cmds python3

tmp=$(mktemp -d /tmp/ibex-fabric-virtual.XXXXXX)
on_exit rm -rf "$tmp"
on_exit kill_started
eal=(--lcores 0@0,1@1,2@0 --no-huge -m 2048 --no-pci --log-level='lib.*:notice')
vt=(--clock virtual --ctl-dir none)

# ---- 1. refusals ----
refused() { # WANT ARGS...
	local want=$1 rc=0
	shift
	"$fab" "${eal[@]}" --file-prefix="$(basename "$tmp")r" -- "$@" \
		>"$tmp/ref.log" 2>&1 || rc=$?
	[ "$rc" = 2 ] && grep -qF -e "$want" "$tmp/ref.log" ||
		{ show_log "$tmp/ref.log"; fail "not refused (exit $rc): $*"; }
}
y8=$confdir/fabric/leaf2-spine2-8.yaml
refused "--clock virtual: give --gen" "$y8" "${vt[@]}"
refused "--clock: real or virtual, not 'fast'" "$y8" --clock fast
refused "--switch-latency: a time such as 600ns" "$y8" --switch-latency 6furlongs
check_ok "--clock virtual without --gen, a bad --clock and a bad --switch-latency refused (exit 2)"

# ---- 2. fidelity against the closed form ----
{
	echo "name: star8"
	echo "topology:"
	echo "  defaults: {rate: 100G, delay: 500ns}"
	echo "  nodes:"
	echo "    s1: {kind: ibex, ports: 8}"
	for i in 0 1 2 3 4 5 6 7; do echo "    rank$i: {kind: rank}"; done
	echo "  links:"
	for i in 0 1 2 3 4 5 6 7; do echo "    - endpoints: [\"rank$i:eth0\", \"s1:p$i\"]"; done
} >"$tmp/star8.yaml"
# CASE: name topology rate engine switch-latency-ns
for c in "ls100 leaf2-spine2-8 100G ring 0" "ls400 leaf2-spine2-8 400G ring 600" \
	"st100 star8 100G hd 0" "st400 star8 400G hd 600" "st400r star8 400G ring 0"; do
	read -r name topo rate engine lat <<<"$c"
	if [ "$topo" = star8 ]; then src=$tmp/star8.yaml; else src=$confdir/fabric/$topo.yaml; fi
	sed "s/rate: 100G/rate: $rate/" "$src" >"$tmp/$name.yaml"
	dpdk_prefix p "cf$name"
	"$fab" "${eal[@]}" --file-prefix="$p" -- "$tmp/$name.yaml" --fc none "${vt[@]}" \
		--switch-latency "${lat}ns" --gen "--engine $engine --ranks 8 -b 1K -e 1M \
		-n 3 -w 1 --json $tmp/$name.gen.json" >"$tmp/$name.log" 2>&1 ||
		{ show_log "$tmp/$name.log"; fail "closed form: $c: the run failed"; }
	python3 - "$tmp/$name.gen.json" "$topo" "$rate" "$lat" "$here" <<'PY' ||
import json, sys
sys.path.insert(0, sys.argv[5])
from closed_form import completion_us, hd_steps, ring_steps
g = json.load(open(sys.argv[1]))
topo, rate, lat = sys.argv[2], float(sys.argv[3][:-1]) * 1e9, float(sys.argv[4]) * 1e3

def path(a, b):         # (link, delay ps) from rank a to rank b
    if topo == "star8" or a // 4 == b // 4:
        return [(("up", a), 500e3), (("down", b), 500e3 + lat)]
    return [(("up", a), 500e3), (("l2s", a // 4), 1e6 + lat),
            (("s2l", b // 4), 1e6 + lat), (("down", b), 500e3 + lat)]
def model_us(n, S):
    steps = ring_steps if g["engine"] == "ring" else hd_steps
    return completion_us(steps(n, S), n, rate, path)
worst = 0
for s in g["sizes"]:
    m = model_us(g["ranks"], s["bytes"])
    err = (s["time_us"] - m) / m
    worst = max(worst, abs(err))
    assert s["failed"] == 0 and abs(err) < 0.01, (s["bytes"], s["time_us"], m)
print("fabric_virtual: %s %s %s, switch latency %g ns: %d sizes 1 KiB-1 MiB within %.3f%% "
      "of the closed form (1 MiB: %.3f us simulated)" % (g["engine"], topo, sys.argv[3],
      lat / 1e3, len(g["sizes"]), worst * 100, g["sizes"][-1]["time_us"]))
PY
	{ show_log "$tmp/$name.log"; fail "closed form: $c"; }
done
check_ok "ring and halving-doubling at 100 and 400 Gb/s, with and without switch latency: within 1% of the closed form"

# ---- 3. deterministic, quiet and beside a CPU hog ----
flows=$(seq -s, 1 7 | sed 's/\([0-9]*\)/\1:0/g')
scenario() { # NAME DIR
	local p
	dpdk_prefix p "det$1"
	mkdir -p "$tmp/$2"
	case $1 in
	ring)
		"$fab" "${eal[@]}" --file-prefix="$p" -- "$y8" --fc credit "${vt[@]}" \
			--json "$tmp/$2/fab.json" --gen "--engine ring --ranks 8 --vlan 1 \
			--pcp 3 -b 1K -e 256K -n 5 -w 1 --json $tmp/$2/gen.json" ;;
	incast)
		"$fab" "${eal[@]}" --file-prefix="$p" -- "$y8" --fc pfc "${vt[@]}" \
			--json "$tmp/$2/fab.json" --gen "--engine rate --ranks 8 --flow $flows \
			--pcp 3 --vlan 1 --size 128 --rate 120M --frames 100000 \
			--duration 600 --json $tmp/$2/gen.json" ;;
	esac >"$tmp/$2/$1.log" 2>&1 || { show_log "$tmp/$2/$1.log"; fail "$1 ($2) failed"; }
}
same() { # NAME
	python3 - "$tmp/quiet" "$tmp/hog" "$1" <<'PY'
import sys
q, h, name = sys.argv[1:4]
def body(path):
    # Everything but the meta block (wall-clock start, command line).
    raw = open(path).read()
    i = raw.index('"meta": {')
    depth, j = 0, raw.index("{", i)
    while True:
        depth += {"{": 1, "}": -1}.get(raw[j], 0)
        j += 1
        if depth == 0:
            break
    return raw[:i] + raw[j:]
def report(path):
    # The printed report but the closing speed line (wall time).
    return [l for l in open(path) if not l.startswith("virtual clock:")]
for f in ("fab.json", "gen.json"):
    a, b = body(f"{q}/{f}"), body(f"{h}/{f}")
    assert a == b, (name, f, len(a), len(b))
assert report(f"{q}/{name}.log") == report(f"{h}/{name}.log"), name
print("fabric_virtual: %s: the JSON reports (%d and %d bytes) and the printed report "
      "are the same quiet and beside the hog" % (name, len(body(f"{q}/fab.json")),
      len(body(f"{q}/gen.json"))))
PY
}
for s in ring incast; do
	scenario "$s" quiet
	hogs=()
	for _ in $(seq "$(nproc)"); do
		start_bg hp "$tmp/hog.log" sh -c 'while :; do :; done'
		hogs+=("$hp")
	done
	scenario "$s" hog
	for hp in "${hogs[@]}"; do stop_pid "$hp" KILL; done
	same "$s" || fail "$s: a run beside a CPU hog differs from the quiet one"
done
check_ok "deterministic: the same reports, byte for byte, quiet and beside a CPU hog"
