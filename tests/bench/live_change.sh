#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# How long a live change takes under load, as a client sees it: ibex-switch
# with the built-in generator (rate engine, 2 ranks, gen1 -> gen0) on
# --lcores 0@0,1@1,2@0, so the control thread shares CPU 0 with the
# generator as in the live_changes test; a client on the control socket
# sends N changes (`ecn gen0 vl all kmin K kmax 160KB pmax 0.1`, K
# alternating) one at a time and times each reply, then N `show reasons`
# (a command that changes nothing: the client's and the scheduler's own
# share of the time). Prints median, p90, p99 and max in milliseconds.
#
#   tests/bench/live_change.sh [-b BUILD] [-n N] [-r RATE]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=build n=200 rate=1M
while getopts "b:n:r:h" o; do
	case $o in
	b) build=$OPTARG ;; n) n=$OPTARG ;; r) rate=$OPTARG ;;
	*) sed -n '2,13p' "$0"; exit 2 ;;
	esac
done
sw=$build/app/ibex-switch/ibex-switch
[ -x "$sw" ] || { echo "build first: ninja -C $build" >&2; exit 2; }
tmp=$(mktemp -d /tmp/ibex-live.XXXXXX)
pid=""
cleanup() {
	[ -z "$pid" ] || { kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; }
	rm -rf "$tmp"
}
trap cleanup EXIT
sock=$tmp/ctl.sock
"$sw" --lcores 0@0,1@1,2@0 --no-huge -m 1024 --no-pci \
	--log-level='lib.*:notice' --file-prefix="live$$" -- --ctl-socket "$sock" \
	--gen "--engine rate --ranks 2 --flow 1:0 --size 128 --rate $rate \
	--duration 3600" >"$tmp/sw.log" 2>&1 &
pid=$!
for _ in $(seq 300); do [ -S "$sock" ] && break; sleep 0.1; done
[ -S "$sock" ] || { cat "$tmp/sw.log" >&2; exit 1; }
sleep 1 # the load is running
python3 - "$sock" "$n" <<'PY'
import socket, sys, time
path, n = sys.argv[1], int(sys.argv[2])
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(path)
f = s.makefile("rwb", buffering=0)
def cmd(line):
    t0 = time.perf_counter()
    f.write((line + "\n").encode())
    while True:
        l = f.readline().decode()
        if l.startswith("OK") or l.startswith("ERR"):
            if l.startswith("ERR"):
                raise SystemExit("switch: " + l.strip())
            return (time.perf_counter() - t0) * 1e3
def stats(name, v):
    v = sorted(v)
    q = lambda p: v[min(len(v) - 1, int(p * len(v)))]
    print("%-14s n %4d  median %7.3f  p90 %7.3f  p99 %7.3f  max %7.3f ms"
          % (name, len(v), q(0.5), q(0.9), q(0.99), v[-1]))
ch = [cmd("ecn gen0 vl all kmin %dKB kmax 160KB pmax 0.1" % (20 + 20 * (i % 2)))
      for i in range(n)]
rd = [cmd("show reasons") for _ in range(n)]
stats("live change", ch)
stats("show reasons", rd)
PY
