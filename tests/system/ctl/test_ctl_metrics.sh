#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# ibex-switch --metrics (docs/metrics.md), scraped by a real Prometheus.
#
# A switch with traffic (net_null ports receive all the time; p2 runs
# PFC and p3 credits so their families have samples; p4 runs CBFC and the
# frames p0 and p1 receive go to it, where its peer returns no credit, so
# its VC fills and the send rule holds frames back) serves /metrics on
# a free localhost port given as a bare PORT (the default address is
# 127.0.0.1). The test checks:
#   - a bad --metrics address, and a port in use, are refused with the
#     reason;
#   - `promtool check metrics` passes on the Prometheus text;
#   - the OpenMetrics text (Accept: application/openmetrics-text) has its
#     content type and ends with "# EOF";
#   - every port counter of `ibex-ctl --json show ports`, drops by reason
#     included, is a family sample, none above the later ibex-ctl value;
#   - every counter of `ibex-ctl --json show cbfc` is an ibex_cbfc_*
#     sample of p4 (per lossless VC with a vc label), none for another
#     port, no counter above ibex-ctl's, and the values agree with what
#     the port did: its VC's credits all in use (= its limit, > 0), frames
#     held back, CC_Updates sent, no CF_Update received;
#   - a Prometheus server (its own config, TSDB and listen port, scraping
#     every second) reports the target up, and its query API returns
#     ibex_port_rx_frames_total for p0: > 0 and <= the later ibex-ctl
#     value (the counter only grows).
#
#   test_ctl_metrics.sh IBEX_SWITCH IBEX_PCAPGEN IBEX_CTL
set -euo pipefail
TEST_NAME=ctl_metrics
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

sw=$1 ctl=$3
require_cmds jq python3
# Debian's prometheus package (tests/deps.sh installs it): skip only when
# it is not there to run.
command -v prometheus >/dev/null 2>&1 && command -v promtool >/dev/null 2>&1 ||
	skip "prometheus/promtool not installed (apt-get install prometheus)"
[ "$(id -u)" -eq 0 ] || skip "needs root (EAL)"

tmp=$(mktemp -d /tmp/ibex-metrics.XXXXXX)
on_exit rm -rf "$tmp"
on_exit kill_started
dpdk_prefix prefix met
sock="$tmp/ctl.sock"

# A localhost port nobody listens on now.
free_port() {
	python3 -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
# GET URL [ACCEPT] -> body on stdout, "content-type" in $tmp/ctype.
get() {
	python3 - "$1" "${2:-}" "$tmp/ctype" <<'PY'
import sys, urllib.request
req = urllib.request.Request(sys.argv[1])
if sys.argv[2]:
    req.add_header("Accept", sys.argv[2])
with urllib.request.urlopen(req, timeout=10) as r:
    open(sys.argv[3], "w").write(r.headers.get("Content-Type", ""))
    sys.stdout.write(r.read().decode())
PY
}

cat >"$tmp/switch.conf" <<EOF
port p0 dev net_null0
port p1 dev net_null1
port p2 dev net_null2 vls 2 fc pfc
lane p2 vl 1 lossless
port p3 dev net_null3 vls 2 fc credit
lane p3 vl 1 lossless
port p4 dev net_null4 vls 2 fc cbfc
lane p4 vl 0 lossless
fdb static 00:00:00:00:00:00 port p4
EOF
eal=(-l 0-1 --no-huge -m 1024 --no-pci --log-level='lib.*:notice'
     --vdev net_null0 --vdev net_null1 --vdev "net_null2,no-rx=1"
     --vdev "net_null3,no-rx=1" --vdev "net_null4,no-rx=1")

# A bad address is refused at start, with the reason.
if "$sw" "${eal[@]}" --file-prefix="$prefix-bad" -- --config "$tmp/switch.conf" \
	--ctl-socket "$tmp/bad.sock" --metrics 127.0.0.1:70000 >"$tmp/bad.log" 2>&1; then
	fail "--metrics 127.0.0.1:70000 was accepted"
fi
rm -rf "/var/run/dpdk/$prefix-bad"
grep -q -- "--metrics '127.0.0.1:70000': expected PORT" "$tmp/bad.log" ||
	{ show_log "$tmp/bad.log"; fail "no reason for a bad --metrics address"; }
check_ok "a bad --metrics address is refused with the reason"

# A port another process listens on is refused at start, with the reason.
start_bg holdpid "$tmp/hold.log" python3 -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
open(sys.argv[1], "w").write(str(s.getsockname()[1])); time.sleep(600)' "$tmp/held"
wait_until 60 test -s "$tmp/held" || fail "no listener to collide with"
if "$sw" "${eal[@]}" --file-prefix="$prefix-busy" -- --config "$tmp/switch.conf" \
	--ctl-socket "$tmp/busy.sock" --metrics "$(cat "$tmp/held")" >"$tmp/busy.log" 2>&1; then
	fail "--metrics on a port in use was accepted"
fi
rm -rf "/var/run/dpdk/$prefix-busy"
stop_pid "$holdpid" TERM
grep -q "cannot serve HTTP there: Address already in use" "$tmp/busy.log" ||
	{ show_log "$tmp/busy.log"; fail "no reason for a port in use"; }
check_ok "a --metrics port in use is refused with the reason"

mport=$(free_port)
start_bg swpid "$tmp/switch.log" "$sw" "${eal[@]}" --file-prefix="$prefix" \
	-- --config "$tmp/switch.conf" --ctl-socket "$sock" --metrics "$mport"
c() { "$ctl" --socket "$sock" "$@"; }
url="http://127.0.0.1:$mport/metrics"
if ! wait_until_or_dead 120 "$swpid" get "$url"; then
	show_log "$tmp/switch.log"
	fail "no /metrics on 127.0.0.1:$mport"
fi
rx_moves() { [ "$(c --json show ports | jq '.ports[0].rx_frames')" -gt 0 ]; }
wait_until 120 rx_moves || fail "p0 receives nothing"
held_back() { [ "$(c --json show cbfc | jq '.cbfc[0].tx_blocked')" -gt 0 ]; }
wait_until 120 held_back || fail "p4's send rule held nothing back"

get "$url" >"$tmp/prom.txt"
grep -q '^text/plain; version=0.0.4' "$tmp/ctype" ||
	fail "Prometheus text served as '$(cat "$tmp/ctype")'"
promtool check metrics <"$tmp/prom.txt" >"$tmp/promtool.log" 2>&1 ||
	{ show_log "$tmp/promtool.log"; fail "promtool check metrics"; }
check_ok "promtool check metrics passes ($(grep -vc '^#' "$tmp/prom.txt") samples)"

get "$url" "application/openmetrics-text; version=1.0.0" >"$tmp/om.txt"
grep -q '^application/openmetrics-text; version=1.0.0' "$tmp/ctype" ||
	fail "OpenMetrics served as '$(cat "$tmp/ctype")'"
[ "$(tail -n 1 "$tmp/om.txt")" = "# EOF" ] || fail "OpenMetrics text without # EOF"
grep -q '^# TYPE ibex_port_rx_frames counter$' "$tmp/om.txt" ||
	fail "OpenMetrics counter family not named without _total"
check_ok "OpenMetrics on request, ending with # EOF"

# Key by key against ibex-ctl, scraped first: a counter never goes down.
get "$url" >"$tmp/prom.txt"
c --json show ports >"$tmp/ports.json"
python3 - "$tmp/prom.txt" "$tmp/ports.json" <<'PY' || fail "/metrics and ibex-ctl disagree"
import json, re, sys
samples = {}
for line in open(sys.argv[1]):
    m = re.match(r'^(\w+)\{(.*)\} (\S+)$', line)
    if m:
        labels = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(2)))
        samples[(m.group(1), labels.get("port"), labels.get("reason"),
                 labels.get("vl"))] = float(m.group(3))
ports = json.load(open(sys.argv[2]))["ports"]
bad = []
# Identity members, and the sums Prometheus makes itself (sum by port).
ident = {"name", "dev", "ethdev_port", "admin", "link", "speed_bps",
         "dropped", "flood", "drops"}
n = 0
for p in ports:
    name = p["name"]
    for k, v in p.items():
        if k in ident or not isinstance(v, int):
            continue
        key = (f"ibex_port_{k}_total", name, None, None)
        if key not in samples:
            key = (f"ibex_port_{k}", name, None, None)     # a gauge
        if key not in samples:
            bad.append(f"{name} {k}: no sample"); continue
        if samples[key] > v:
            bad.append(f"{name} {k}: /metrics {samples[key]} > ibex-ctl {v}")
        n += 1
    for r, v in p["drops"].items():
        key = ("ibex_port_drops_total", name, r, None)
        if key not in samples:
            bad.append(f"{name} drop {r}: no sample"); continue
        if samples[key] > v:
            bad.append(f"{name} drop {r}: /metrics {samples[key]} > {v}")
        n += 1
rx = samples[("ibex_port_rx_frames_total", "p0", None, None)]
if rx <= 0:
    bad.append("p0 rx_frames is 0 in /metrics")
if ("ibex_lane_credits", "p3", None, "1") not in samples:
    bad.append("no credits gauge for p3's lossless lane")
if ("ibex_lane_qlen_frames", "p0", None, "0") not in samples:
    bad.append("no queue depth gauge")
if not any(k[0] == "ibex_lane_residence_seconds_bucket" for k in samples):
    bad.append("no residence histogram")
print(f"{n} port counters compared; {len(bad)} problems")
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad or n < 40 else 0)
PY
check_ok "every ibex-ctl port counter is in /metrics, none ahead of ibex-ctl"

# CBFC (show cbfc's counter sets) against ibex-ctl, scraped first.
get "$url" >"$tmp/prom.txt"
c --json show cbfc >"$tmp/cbfc.json"
python3 - "$tmp/prom.txt" "$tmp/cbfc.json" <<'PY' || fail "CBFC families"
import json, re, sys
samples, types = {}, {}
for line in open(sys.argv[1]):
    m = re.match(r'^# TYPE (\w+) (\w+)$', line)
    if m:
        types[m.group(1)] = m.group(2)
    m = re.match(r'^(ibex_cbfc_\w+)\{(.*)\} (\S+)$', line)
    if m:
        labels = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(2)))
        samples[(m.group(1), labels["port"], labels.get("vc"))] = float(m.group(3))
ports = json.load(open(sys.argv[2]))["cbfc"]
bad, n = [], 0
def check(name, k, vc, v):
    global n
    for fam in (f"ibex_cbfc_{k}_total", f"ibex_cbfc_{k}"):
        if (fam, name, vc) in samples:
            break
    else:
        bad.append(f"{name} vc {vc} {k}: no sample"); return
    # a counter never goes down; a gauge may have moved either way
    if types.get(fam) == "counter" and samples[(fam, name, vc)] > v:
        bad.append(f"{name} {k}: /metrics {samples[(fam, name, vc)]} > ibex-ctl {v}")
    n += 1
ident = {"port", "credit_size", "overhead", "cc_timer_us", "cf_min_spacing",
         "cf_max_spacing", "port_limit", "pools", "vcs"}
for p in ports:
    for k, v in p.items():
        if k not in ident:
            check(p["port"], k, None, v)
    for vc in p["vcs"]:
        for k, v in vc.items():
            if k not in ("vc", "profile", "pool"):
                check(p["port"], k, str(vc["vc"]), v)
others = {k[1] for k in samples} - {p["port"] for p in ports}
if others:
    bad.append(f"CBFC samples for ports not in fc cbfc: {sorted(others)}")
s = lambda fam, vc=None: samples.get((fam, "p4", vc), -1)
limit = s("ibex_cbfc_vc_credit_limit", "0")
print("p4: VC 0 credits used %d of %d (watermark %d), port used %d; send "
      "rule held back %d times; CC_Updates sent %d; CF_Updates received %d"
      % (s("ibex_cbfc_vc_credits_used", "0"), limit,
         s("ibex_cbfc_vc_credits_used_watermark", "0"),
         s("ibex_cbfc_sender_credits_used"), s("ibex_cbfc_tx_blocked_total"),
         s("ibex_cbfc_cc_update_tx_total"), s("ibex_cbfc_cf_update_rx_total")))
# Nothing returns credits (net_null has no peer): the VC is full, stays so.
if not (limit > 0 and s("ibex_cbfc_vc_credits_used", "0") == limit ==
        s("ibex_cbfc_vc_credits_used_watermark", "0") ==
        s("ibex_cbfc_sender_credits_used")):
    bad.append("p4's VC 0 is not full to its limit")
if s("ibex_cbfc_tx_blocked_total") <= 0:
    bad.append("the send rule held nothing back")
if s("ibex_cbfc_cc_update_tx_total") <= 0:
    bad.append("no CC_Update sent while credits were in use")
if s("ibex_cbfc_cf_update_rx_total") != 0:
    bad.append("CF_Updates received from a peer that sends none")
if types.get("ibex_cbfc_vc_credit_limit") != "gauge":
    bad.append("ibex_cbfc_vc_credit_limit is not a gauge")
print(f"{n} CBFC counters compared; {len(bad)} problems")
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad or n < 14 else 0)
PY
check_ok "every ibex-ctl show cbfc counter is in /metrics, with p4's full VC"

# A real Prometheus: its own config, TSDB and port, scraping every second.
pport=$(free_port)
cat >"$tmp/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: ibex
    static_configs:
      - targets: ['127.0.0.1:$mport']
EOF
promtool check config "$tmp/prometheus.yml" >/dev/null ||
	fail "promtool rejects the test's prometheus.yml"
start_bg prompid "$tmp/prometheus.log" prometheus \
	--config.file="$tmp/prometheus.yml" \
	--storage.tsdb.path="$tmp/tsdb" \
	--web.listen-address="127.0.0.1:$pport"
api="http://127.0.0.1:$pport/api/v1"
target_up() {
	get "$api/targets" | jq -e '.data.activeTargets[0] |
		.health == "up" and .lastError == ""' >/dev/null
}
rx_sample() {
	get "$api/query?query=ibex_port_rx_frames_total%7Bport%3D%22p0%22%7D" |
		jq -e -r '.data.result[0].value[1]' >"$tmp/prom_rx"
}
if ! wait_until_or_dead 120 "$prompid" target_up; then
	show_log "$tmp/prometheus.log"
	get "$api/targets" || true
	fail "Prometheus did not scrape ibex-switch"
fi
check_ok "Prometheus scrapes the OpenMetrics endpoint (target up, no error)"
wait_until_or_dead 120 "$prompid" rx_sample ||
	{ show_log "$tmp/prometheus.log"; fail "no ibex_port_rx_frames_total in Prometheus"; }
prom_rx=$(cat "$tmp/prom_rx")
ctl_rx=$(c --json show ports | jq '.ports[] | select(.name == "p0") | .rx_frames')
python3 -c "import sys; v = float(sys.argv[1]); sys.exit(0 if 0 < v <= int(sys.argv[2]) else 1)" \
	"$prom_rx" "$ctl_rx" ||
	fail "Prometheus says p0 rx_frames $prom_rx, ibex-ctl later $ctl_rx"
check_ok "Prometheus's p0 rx_frames $prom_rx: > 0, <= ibex-ctl's later $ctl_rx"

stop_pid "$prompid" TERM
stop_pid "$swpid" INT
[ "$WAIT_RC" -eq 0 ] || { show_log "$tmp/switch.log"; fail "the switch exited with $WAIT_RC"; }
check_ok "the switch stops cleanly with the endpoint running"
echo PASS
