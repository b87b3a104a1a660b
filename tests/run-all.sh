#!/usr/bin/env bash
# Build ibex and run every test: unit, dp, system and mpi suites in a release
# build, then unit and dp again under ASan/UBSan, then each libFuzzer
# harness for FUZZ_SECONDS (30) in a clang build (suite fuzz,
# docs/testing.md). Prints one closing line "tests: N passed, M failed" and
# exits non-zero if anything failed.
set -uo pipefail
cd "$(dirname "$0")/.."

tests/deps.sh || { echo "tests: 0 passed, 1 failed"; exit 1; }

run_suites() { # build-dir meson-setup-args... -- suites...
	local dir=$1; shift
	local setup=() suites=()
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do setup+=("$1"); shift; done
	shift
	for s in "$@"; do suites+=(--suite "$s"); done
	if [ ! -d "$dir" ]; then
		meson setup "$dir" "${setup[@]}" >/dev/null || return 1
	fi
	ninja -C "$dir" || return 1
	meson test -C "$dir" "${suites[@]}" --print-errorlogs --num-processes 1
}

count() { # build-dir -> "passed failed"
	python3 - "$1/meson-logs/testlog.json" <<'PY'
import json, sys
ok = bad = 0
try:
    for n, line in enumerate(open(sys.argv[1], "rb"), 1):
        # a line that is not a result: the log was written over while
        # the suite ran (a meson test run inside a test), so the count
        # cannot be trusted; say so and count it failed
        try:
            r = json.loads(line)["result"]
        except (ValueError, KeyError):
            print("tests: %s:%d: not a test result" % (sys.argv[1], n),
                  file=sys.stderr)
            bad += 1
            continue
        if r in ("OK", "EXPECTEDFAIL", "SKIP"):
            ok += r != "SKIP"
        else:
            bad += 1
except FileNotFoundError:
    bad = 1
print(ok, bad)
PY
}

rc=0
run_suites build -- unit dp system mpi || rc=1
read -r p1 f1 < <(count build)
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
run_suites build-asan -Db_sanitize=address,undefined -Db_lundef=false \
	-Dbuildtype=debugoptimized -Db_lto=false -- unit dp || rc=1
read -r p2 f2 < <(count build-asan)
# The harnesses only: the rest of a fuzz build is not run.
run_fuzz() {
	local dir=build-fuzz t targets=()

	if [ ! -d "$dir" ]; then
		CC=clang meson setup "$dir" -Dfuzz=true -Dtests=false \
			-Db_lto=false -Dbuildtype=debugoptimized >/dev/null || return 1
	fi
	for t in tests/fuzz/fuzz_*.c; do
		targets+=("tests/fuzz/$(basename "$t" .c)")
	done
	ninja -C "$dir" "${targets[@]}" || return 1
	# libFuzzer finds leaks too: not the ASan stage's options.
	ASAN_OPTIONS= UBSAN_OPTIONS= meson test -C "$dir" --suite fuzz \
		--no-rebuild --print-errorlogs --num-processes 1
}
run_fuzz || rc=1
read -r p3 f3 < <(count build-fuzz)
passed=$((p1 + p2 + p3)); failed=$((f1 + f2 + f3))
[ "$failed" -ne 0 ] && rc=1
echo "tests: $passed passed, $failed failed"
exit $rc
