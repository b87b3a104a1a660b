#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Run one libFuzzer harness for a while (the suite's 'fuzz' tests):
#   run_fuzz.sh HARNESS SEED_DIR WORK_DIR [libFuzzer options...]
# FUZZ_SECONDS (30) bounds the run. New inputs go to WORK_DIR/corpus (the
# seeds in the repo are only read), a crash or leak to WORK_DIR/crashes/
# as crash-<sha1> (or leak-, timeout-, oom-); the exit status is non-zero
# then. docs/testing.md: longer campaigns, reproducing, minimising.
set -euo pipefail
harness=$1 seeds=$2 work=$3
shift 3
mkdir -p "$work/corpus" "$work/crashes"
# libFuzzer's own exit status for a crash is 77, which meson reads as a
# skipped test: a finding must fail it.
exec "$harness" -max_total_time="${FUZZ_SECONDS:-30}" -timeout=20 \
	-error_exitcode=1 -timeout_exitcode=1 \
	-rss_limit_mb=2048 -print_final_stats=1 \
	-artifact_prefix="$work/crashes/" "$@" "$work/corpus" "$seeds"
