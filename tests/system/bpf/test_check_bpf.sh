#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# ibex-switch --check-config loads each classifier the configuration names
# (libbpf reads it, rte_bpf verifies it; no EAL, no hugepages): a good one
# passes; a missing object, one rte_bpf refuses and one with a static
# table each fail the check with the line of their sl-from.
#
#   test_check_bpf.sh IBEX_SWITCH IBEX_PCAPGEN GOOD.o OOB.o CONSTAB.o
set -euo pipefail
TEST_NAME=check_bpf
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

sw=${1:?usage: test_check_bpf.sh IBEX_SWITCH IBEX_PCAPGEN GOOD.o OOB.o CONSTAB.o}
good=${3:?} oob=${4:?} constab=${5:?}
[ -x "$sw" ] || skip "no ibex-switch at $sw"

tmp=$(mktemp -d /tmp/ibex-check-bpf.XXXXXX)
on_exit rm -rf "$tmp"

# check NAME OBJECT WANT_STATUS [WANT_MESSAGE]
check() {
	local name=$1 obj=$2 want=$3 msg=${4:-} st=0
	printf 'port p0\n# the classifier\nport p1 sl-from bpf %s\n' "$obj" \
		>"$tmp/$name.conf"
	"$sw" --check-config "$tmp/$name.conf" >"$tmp/$name.log" 2>&1 || st=$?
	[ "$st" -eq "$want" ] ||
		{ show_log "$tmp/$name.log"; fail "$name: exit $st, want $want"; }
	[ -z "$msg" ] || grep -qF "$tmp/$name.conf:3: port p1: sl-from bpf: $obj: $msg" \
		"$tmp/$name.log" ||
		{ show_log "$tmp/$name.log"; fail "$name: no '$name.conf:3: ... $msg'"; }
}

check good "$good" 0
grep -q "configuration OK (2 ports)" "$tmp/good.log" ||
	{ show_log "$tmp/good.log"; fail "good: no 'configuration OK'"; }
check missing "$tmp/none.o" 1 "No such file or directory"
check oob "$oob" 1 "ibex: rejected by rte_bpf"
check constab "$constab" 1 "has map or global data"
check_ok "--check-config loads the classifiers: good passes, missing, refused and global data fail with file:line"
