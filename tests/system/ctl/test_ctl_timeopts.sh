#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Time options that are not finite positive decimals are refused with a
# clear error before anything runs, by ibex-switch (--duration,
# --idle-stop, --stats-period, --wait-links) and ibex-gen (--duration,
# --trial, --timeout-ms): nan, inf, hex, exponents, negative, zero,
# garbage, and a value below the resolution.
#
#   test_ctl_timeopts.sh IBEX_SWITCH IBEX_PCAPGEN IBEX_CTL IBEX_GEN
set -euo pipefail
TEST_NAME=ctl_timeopts
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

sw=$1 ibexgen=$4
[ "$(id -u)" -eq 0 ] || skip "needs root (EAL)"
tmp=$(mktemp -d /tmp/ibex-timeopts.XXXXXX)
on_exit rm -rf "$tmp"
dpdk_prefix prefix t

bad_values=(nan NaN inf -inf 0x10 1e-9 1e3 -1 0 abc 1s "" 0.0001)
# Every option goes through the same parser: the whole list on one
# option per program, a few on the others (each run starts EAL).
some_values=(nan 0x10 1e-9)

# refused PROG_LABEL OPTION VALUE CMD...: exit status 1 (or EINVAL's
# usage status), the option and the value named, and no run.
refused() {
	local label=$1 opt=$2 val=$3 rc=0

	shift 3
	timeout 20 "$@" >"$tmp/out" 2>&1 || rc=$?
	[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] ||
		{ cat "$tmp/out"; fail "$label $opt '$val' accepted (rc $rc)"; }
	grep -qF -- "$opt: '$val'" "$tmp/out" ||
		{ cat "$tmp/out"; fail "$label $opt '$val': no clear error"; }
}

eal=(--no-huge -m 256 --no-pci --file-prefix="$prefix" --log-level='.*:error')
for v in "${bad_values[@]}"; do
	refused ibex-switch --duration "$v" "$sw" "${eal[@]}" -- --duration "$v"
done
for opt in --idle-stop --stats-period --wait-links; do
	for v in "${some_values[@]}"; do
		refused ibex-switch "$opt" "$v" "$sw" "${eal[@]}" -- "$opt" "$v"
	done
done
check_ok "ibex-switch refuses bad values of its 4 time options"

# A good value still runs, and stops when it says.
"$sw" "${eal[@]}" --vdev net_null0 -- --duration 0.5 >"$tmp/out" 2>&1 ||
	{ cat "$tmp/out"; fail "--duration 0.5 refused"; }
grep -q "summary after 0\.[5-9]\|summary after [1-9]" "$tmp/out" ||
	{ cat "$tmp/out"; fail "--duration 0.5 did not stop at 0.5 s"; }
check_ok "--duration 0.5 runs and stops"

if [ -n "$ibexgen" ]; then
	for v in "${bad_values[@]}"; do
		refused ibex-gen --duration "$v" "$ibexgen" "${eal[@]}" \
			-- --duration "$v"
	done
	for opt in --trial --timeout-ms; do
		for v in "${some_values[@]}"; do
			refused ibex-gen "$opt" "$v" "$ibexgen" "${eal[@]}" \
				-- "$opt" "$v"
		done
	done
	check_ok "ibex-gen refuses bad values of its 3 time options"
fi
