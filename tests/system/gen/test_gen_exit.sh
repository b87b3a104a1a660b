#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# ibex-switch --gen exits with the generator's status, as ibex-gen does
# (docs/generator.md): 0 after a clean run, 3 when frames were lost.
#   - a 2-rank ring all-reduce, 20 iterations of 8 KiB: exit 0 (its
#     --duration of 120 s only a cap);
#   - the same with every SL of gen0 mapped to drop (sl2vl gen0
#     0-15:drop): no iteration completes before its --duration of 2 s
#     ends the scenario, exit 3.
#
#   test_gen_exit.sh IBEX_SWITCH
set -euo pipefail
TEST_NAME=gen_exit
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

sw=${1:?usage: test_gen_exit.sh IBEX_SWITCH}
[ -x "$sw" ] || skip "no ibex-switch at $sw"
[ "$(nproc)" -ge 2 ] || skip "needs two CPUs"

tmp=$(mktemp -d /tmp/ibex-gen-exit.XXXXXX)
on_exit rm -rf "$tmp"

# run NAME CONFIG GEN_OPTS: the exit status in $st, the output in NAME.log
run() {
	local name=$1 conf=$2; shift 2
	st=0
	"$sw" --lcores 0@0,1@1,2@0 --no-huge -m 1024 --no-pci \
		--log-level='lib.*:notice' --file-prefix="ibexgenx$$" -- \
		${conf:+--config "$conf"} --ctl-socket "$tmp/ctl.sock" \
		--gen "--engine ring --ranks 2 -b 8K -e 8K -n 20 -w 2 \
		--duration $dur --quiet $*" >"$tmp/$name.log" 2>&1 || st=$?
}

dur=120 run clean ""
[ "$st" -eq 0 ] || { show_log "$tmp/clean.log"; fail "clean run: exit $st, want 0"; }
check_ok "clean --gen run exits 0"

printf 'port gen0\nport gen1\nsl2vl gen0 0-15:drop\n' >"$tmp/drop.conf"
dur=2 run lossy "$tmp/drop.conf"
[ "$st" -eq 3 ] || { show_log "$tmp/lossy.log"; fail "lossy run: exit $st, want 3"; }
grep -q 'run not clean' "$tmp/lossy.log" ||
	{ show_log "$tmp/lossy.log"; fail "lossy run: no 'run not clean'"; }
check_ok "--gen run that lost frames exits 3"
