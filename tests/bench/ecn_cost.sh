#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# Cost of the ECN decision per frame below Kmin, as the data path calls it
# at dequeue: compile ecn_cost_main.c against lib/ecn (rte_rdtsc from the
# DPDK headers, no EAL) and run it once. Meson does not build it.
#
# Usage: tests/bench/ecn_cost.sh [frames_per_run]
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# shellcheck disable=SC2046
${CC:-gcc} -O3 -march=corei7 -Wall -Wextra -Werror -include rte_config.h \
	$(pkg-config --cflags libdpdk) \
	-I"$root/lib/common" -I"$root/lib/ecn" \
	-o "$tmp/ecn_cost" \
	"$root/tests/bench/ecn_cost_main.c" "$root/lib/ecn/ibex_ecn.c" -lm
"$tmp/ecn_cost" "$@"
