#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# ibex-fabric --metrics (docs/metrics.md): one endpoint for every switch
# of the fabric, each sample labelled switch=NAME, scraped by a real
# Prometheus. leaf2-spine1 with a rate generator across it:
#   - --metrics with --clock virtual is refused with the reason;
#   - promtool check metrics passes; every switch has its samples;
#   - a Prometheus server of the test's own (config, TSDB, port, 1 s
#     scrapes) returns sum(ibex_port_rx_frames_total{switch="leaf1"}):
#     > 0 and <= the sum of `ibex-ctl --switch leaf1 --json show ports`
#     read later.
#
#   test_fabric_metrics.sh IBEX_FABRIC IBEX_CTL CONFDIR
set -euo pipefail
TEST_NAME=fabric_metrics
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

fab=$1 ctl=$2 confdir=$3
require_cmds jq python3
command -v prometheus >/dev/null 2>&1 && command -v promtool >/dev/null 2>&1 ||
	skip "prometheus/promtool not installed (apt-get install prometheus)"
[ "$(id -u)" -eq 0 ] || skip "needs root (EAL)"

tmp=$(mktemp -d /tmp/ibex-fabmet.XXXXXX)
on_exit rm -rf "$tmp"
on_exit kill_started
topo="$confdir/fabric/leaf2-spine1.yaml"
eal=(--lcores 0@0,1@1,2@0 --no-huge -m 2048 --no-pci --log-level='lib.*:notice')

free_port() {
	python3 -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
get() {
	python3 - "$1" <<'PY'
import sys, urllib.request
with urllib.request.urlopen(sys.argv[1], timeout=10) as r:
    sys.stdout.write(r.read().decode())
PY
}

dpdk_prefix pv virt
rc=0
"$fab" "${eal[@]}" --file-prefix="$pv" -- "$topo" --clock virtual \
	--ctl-dir none --metrics 9 \
	--gen "--engine ring --ranks 4 -b 4K -e 4K -n 1" >"$tmp/virt.log" 2>&1 || rc=$?
[ "$rc" -eq 2 ] && grep -q -- "--metrics: under --clock real only" "$tmp/virt.log" ||
	{ show_log "$tmp/virt.log"; fail "--metrics with --clock virtual: exit $rc"; }
check_ok "--metrics with --clock virtual is refused with the reason"

dpdk_prefix pl live
mport=$(free_port)
start_bg fpid "$tmp/fab.log" "$fab" "${eal[@]}" --file-prefix="$pl" -- "$topo" \
	--metrics "127.0.0.1:$mport" \
	--gen "--engine rate --ranks 4 --rate 20000 --duration 600 --quiet"
url="http://127.0.0.1:$mport/metrics"
c() { "$ctl" -f "$pl" --switch leaf1 "$@"; }
wait_until_or_dead 120 "$fpid" get "$url" ||
	{ show_log "$tmp/fab.log"; fail "no /metrics"; }
rx_leaf1() { c --json show ports | jq '[.ports[].rx_frames] | add'; }
moving() { [ "$(rx_leaf1)" -gt 0 ]; }
wait_until_or_dead 120 "$fpid" moving || { show_log "$tmp/fab.log"; fail "leaf1 receives nothing"; }

get "$url" >"$tmp/prom.txt"
promtool check metrics <"$tmp/prom.txt" >"$tmp/promtool.log" 2>&1 ||
	{ show_log "$tmp/promtool.log"; fail "promtool check metrics"; }
for s in spine1 leaf1 leaf2; do
	grep -q "^ibex_port_rx_frames_total{switch=\"$s\",port=\"p0\"} " "$tmp/prom.txt" ||
		fail "no samples of $s"
done
check_ok "promtool check metrics passes; spine1, leaf1 and leaf2 each have their samples"

pport=$(free_port)
cat >"$tmp/prometheus.yml" <<EOF2
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: ibex-fabric
    static_configs:
      - targets: ['127.0.0.1:$mport']
EOF2
start_bg prompid "$tmp/prometheus.log" prometheus \
	--config.file="$tmp/prometheus.yml" \
	--storage.tsdb.path="$tmp/tsdb" \
	--web.listen-address="127.0.0.1:$pport"
q="sum(ibex_port_rx_frames_total%7Bswitch%3D%22leaf1%22%7D)"
sample() {
	get "http://127.0.0.1:$pport/api/v1/query?query=$q" |
		jq -e -r '.data.result[0].value[1]' >"$tmp/prom_rx"
}
wait_until_or_dead 120 "$prompid" sample ||
	{ show_log "$tmp/prometheus.log"; fail "no leaf1 rx_frames in Prometheus"; }
prom_rx=$(cat "$tmp/prom_rx")
ctl_rx=$(rx_leaf1)
python3 -c "import sys; v = float(sys.argv[1]); sys.exit(0 if 0 < v <= int(sys.argv[2]) else 1)" \
	"$prom_rx" "$ctl_rx" ||
	fail "Prometheus says leaf1 rx_frames $prom_rx, ibex-ctl later $ctl_rx"
check_ok "Prometheus's leaf1 rx_frames $prom_rx: > 0, <= ibex-ctl's later $ctl_rx"

stop_pid "$prompid" TERM
stop_pid "$fpid" INT
# The generator was stopped before its scenario ended: 0, or 3 if the
# interrupted scenario counts frames still in flight as lost.
[ "$WAIT_RC" -eq 0 ] || [ "$WAIT_RC" -eq 3 ] ||
	{ show_log "$tmp/fab.log"; fail "ibex-fabric exited with $WAIT_RC"; }
check_ok "ibex-fabric stops with the endpoint running"
echo PASS
