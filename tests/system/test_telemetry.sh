#!/usr/bin/env bash
# System test: DPDK's own dpdk-telemetry.py reads /ibex/ from a running
# ibex-switch (two net_null ports, so counters move).
#   test_telemetry.sh IBEX_SWITCH IBEX_PCAPGEN
set -euo pipefail
sw=$1
command -v dpdk-telemetry.py >/dev/null || { echo "SKIP: no dpdk-telemetry.py"; exit 77; }
prefix="ibextel$$"
log=$(mktemp /tmp/ibex-tel.XXXXXX)
"$sw" -l 0-1 --no-huge -m 1024 --no-pci --file-prefix="$prefix" \
	--log-level='lib.*:notice' --vdev net_null0 --vdev net_null1 \
	-- >"$log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -f "$log"' EXIT

query() { echo "$1" | dpdk-telemetry.py -f "$prefix" 2>/dev/null | tail -1; }
# Until telemetry answers (the switch runs until the SIGINT below).
deadline=$((SECONDS + 60))
until query /ibex/ports | grep -q net_null1; do
	[ $SECONDS -lt $deadline ] || { cat "$log"; echo "FAIL: no telemetry"; exit 1; }
	sleep 0.2
done
python3 - "$(query /ibex/ports)" "$(query /ibex/port_stats,net_null0)" \
	"$(query /ibex/port_stats,1)" "$(query /ibex/reasons)" \
	"$(query /ibex/workers)" "$(query /ibex/fdb)" "$(query /ibex/drops)" <<'PY'
import json, sys
ports, s0, s1, reasons, workers, fdb, drops = (json.loads(a) for a in sys.argv[1:8])
def check(what, ok):
    if not ok:
        print(f"FAIL: {what}"); sys.exit(1)
    print(f"ok: {what}")
check("/ibex/ports lists both ports", ports["/ibex/ports"] == ["net_null0", "net_null1"])
# /ibex/<topic> is the object of "show <topic> --json" (a list of objects
# as an object keyed by index: docs/control.md, "One schema").
s0 = s0["/ibex/port_stats"]["ports"]; s1 = s1["/ibex/port_stats"]["ports"]
check("port_stats by name: one port, frames received",
      list(s0) == ["0"] and s0["0"]["rx_frames"] > 0)
check("port_stats by index names the port", s1["0"]["name"] == "net_null1")
r = reasons["/ibex/reasons"]["reasons"]
check(f"every drop reason is exported ({len(r)})",
      len(r) >= 20 and set(s0["0"]["drops"]) == set(r))
w0 = workers["/ibex/workers"]["workers"]["0"]
check("/ibex/workers has worker 0 and its queues",
      w0["worker"] == 0 and w0["rx_queues"] == ["net_null0:0", "net_null1:0"])
check("/ibex/fdb answers", "entries" in fdb["/ibex/fdb"])
check("/ibex/drops has both ports", set(drops["/ibex/drops"]["drops"]) == {"net_null0", "net_null1"})
PY
kill -INT "$pid"
wait "$pid"
grep -q "ibex-switch summary" "$log" || { echo "FAIL: no summary after SIGINT"; exit 1; }
echo "ok: SIGINT stops the switch with a summary"
echo PASS
