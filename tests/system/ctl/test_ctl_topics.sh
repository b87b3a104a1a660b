#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# One answer per topic (docs/control.md, "Topics"): on a running
# ibex-switch with traffic (net_null ports receive all the time; p2 runs
# PFC, p3 credits, p1/p2 form an ECMP group; static FDB entries, no
# learning, so the table holds still), for every topic of the
# switch's own `help`:
#   - `ibex-ctl --json show X` and DPDK telemetry /ibex/<tel> (the
#     command whose help says "(show X --json)"; without one, /ibex/X,
#     /ibex/port_stats for ports) have the same keys at every level and
#     the same types, under the telemetry rules of DPDK 22.11 (true/false
#     are 1/0, a double is a string of its digits, a list of objects is
#     an object keyed "0".."n-1", a key's characters outside
#     [A-Za-z0-9_/] are '_'); strings are equal, integers lie between two
#     ibex-ctl reads taken before and after (counters move), latency
#     figures and FDB ages within a factor of 4;
#   - the topics without a telemetry command are the ctl-only ones named
#     here: config, rates, history, ecn;
#   - with --metrics (libmicrohttpd): each counter of the topics that
#     /metrics carries (ports with drops by reason, lanes, the fc
#     counters of credits and pfc, the residence counts of latency,
#     drops) is a sample lying between the same two ibex-ctl reads;
#   - the final --json at SIGINT holds each of its topics with the keys
#     of `show X --json` (ports with flood and every drop reason).
#
#   test_ctl_topics.sh IBEX_SWITCH IBEX_PCAPGEN IBEX_CTL IBEX_GEN
set -euo pipefail
TEST_NAME=ctl_topics
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

sw=$1 ctl=$3
require_cmds jq python3
[ "$(id -u)" -eq 0 ] || skip "needs root (EAL)"

tmp=$(mktemp -d /tmp/ibex-topics.XXXXXX)
on_exit rm -rf "$tmp"
on_exit kill_started
dpdk_prefix prefix top
sock="$tmp/ctl.sock"
telsock="/var/run/dpdk/$prefix/dpdk_telemetry.v2"

cat >"$tmp/switch.conf" <<CONF
port p0 dev net_null0
port p1 dev net_null1
port p2 dev net_null2 vls 2 fc pfc
lane p2 vl 1 lossless
port p3 dev net_null3 vls 2 fc credit
lane p3 vl 1 lossless
ecmp grp ports p1,p2
fdb learning off
fdb static 02:00:00:00:0a:01 port p1
fdb static 02:00:00:00:0a:02 ecmp grp
aggregation pool 1M
aggregation job 3 children p0,p1 parent p3 up-child 2 slots 16
CONF
metrics=()
mport=""
# /metrics when the switch was built with libmicrohttpd.
if [[ "$(ldd "$sw" 2>/dev/null)" == *libmicrohttpd* ]]; then
	mport=$(python3 -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	metrics=(--metrics "$mport")
fi
start_bg swpid "$tmp/switch.log" "$sw" -l 0-1 --no-huge -m 1024 --no-pci \
	--file-prefix="$prefix" --log-level='lib.*:notice' \
	--vdev net_null0 --vdev net_null1 --vdev "net_null2,no-rx=1" \
	--vdev "net_null3,no-rx=1" \
	-- --config "$tmp/switch.conf" --ctl-socket "$sock" \
	--json "$tmp/final.json" "${metrics[@]}"
c() { "$ctl" --socket "$sock" "$@"; }
wait_until_or_dead 120 "$swpid" c show ports ||
	{ show_log "$tmp/switch.log"; fail "the control socket did not answer"; }
rx_moves() { [ "$(c --json show ports | jq '.ports[0].rx_frames')" -gt 1000 ]; }
wait_until 120 rx_moves || fail "p0 receives nothing"
wait_until 60 test -S "$telsock" || fail "no telemetry socket"

# Every topic of the switch's help; every /ibex/ command and the topic
# its help names.
c help >"$tmp/help.txt"
topics=$(awk '$1 == "show" { gsub(/\|/, " ", $2); print $2 }' "$tmp/help.txt")
[ -n "$topics" ] || fail "no topics in the switch's help"
python3 - "$telsock" >"$tmp/telmap" <<'PY'
import json, re, socket, sys
def q(cmd):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.connect(sys.argv[1])
    info = json.loads(s.recv(65536))
    s.send(cmd.encode())
    r = json.loads(s.recv(info["max_output_len"] + 1024))
    s.close()
    return r
for cmd in q("/")["/"]:
    if not cmd.startswith("/ibex/") or cmd.count("/") != 2:
        continue
    h = q("/help," + cmd)["/help"][cmd]
    m = re.search(r"\(show (\w+) --json\)", h)
    print(cmd[len("/ibex/"):], m.group(1) if m else "-")
PY
tel_of() {
	local t
	t=$(awk -v t="$1" '$2 == t { print $1 }' "$tmp/telmap")
	if [ -n "$t" ]; then
		echo "$t"
		return 0
	fi
	case $1 in
	ports) t=port_stats ;;
	*) t=$1 ;;
	esac
	if awk -v t="$t" '$1 == t { f = 1 } END { exit !f }' "$tmp/telmap"; then
		echo "$t"
	fi
	return 0
}
tel_read() {
	python3 - "$telsock" "$1" <<'PY'
import json, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.connect(sys.argv[1])
info = json.loads(s.recv(65536))
s.send(sys.argv[2].encode())
print(json.dumps(json.loads(s.recv(info["max_output_len"] + 1024))[sys.argv[2]]))
PY
}
metrics_read() {
	python3 - "http://127.0.0.1:$mport/metrics" <<'PY'
import sys, urllib.request
sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode())
PY
}

# Per topic: ibex-ctl, telemetry, /metrics, ibex-ctl again; compare.
ctl_only=""
errors=0
for t in $topics; do
	tc=$(tel_of "$t")
	c --json show "$t" >"$tmp/$t.a.json" || fail "show $t --json"
	if [ -z "$tc" ]; then
		case " config rates history ecn " in
		*" $t "*) ctl_only="$ctl_only $t"; continue ;;
		esac
		echo "FAIL: topic $t has no telemetry command and is not ctl-only"
		errors=$((errors + 1))
		continue
	fi
	tel_read "/ibex/$tc" >"$tmp/$t.tel.json" || fail "/ibex/$tc"
	: >"$tmp/$t.prom"
	[ -z "$mport" ] || metrics_read >"$tmp/$t.prom"
	c --json show "$t" >"$tmp/$t.b.json"
	if python3 - "$t" "$tc" "$tmp/$t.a.json" "$tmp/$t.tel.json" \
		"$tmp/$t.b.json" "$tmp/$t.prom" <<'PY'
import json, re, sys
topic, tcmd = sys.argv[1], sys.argv[2]
a, t, b = (json.load(open(f)) for f in sys.argv[3:6])
# What ibex-ctl adds to every document it prints (docs/results.md): the
# meta block and the time; the topic's members are the rest.
for d in (a, b):
    for k in ("meta", "time", "time_unix"):
        d.pop(k, None)
prom = open(sys.argv[6]).read()
bad = []

def tkey(k):
    return re.sub(r"[^A-Za-z0-9_/]", "_", k)

def as_tel(v):
    """The JSON value as DPDK 22.11 telemetry can hold it."""
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, float):
        return ("float", v)
    if isinstance(v, dict):
        return {tkey(k): as_tel(x) for k, x in v.items()}
    if isinstance(v, list):
        if any(isinstance(x, (dict, list)) for x in v):
            return {str(i): as_tel(x) for i, x in enumerate(v)}
        return [as_tel(x) for x in v]
    return v

def cmp(path, x, y, z):
    """x, z: ibex-ctl before and after (telemetry form), y: telemetry."""
    if isinstance(x, tuple):                   # a double: a string
        if not isinstance(y, str):
            bad.append(f"{path}: telemetry {type(y).__name__}, want a "
                       "string of digits")
            return
        if abs(float(y) - x[1]) > 1e-6 * max(1, abs(x[1])):
            bad.append(f"{path}: {y} != {x[1]}")
        return
    if type(x) != type(y):
        bad.append(f"{path}: ibex-ctl {type(x).__name__} "
                   f"{json.dumps(x)[:60]}, telemetry {type(y).__name__} "
                   f"{json.dumps(y)[:60]}")
        return
    if isinstance(x, dict):
        if set(x) != set(y):
            bad.append(f"{path}: keys only in ibex-ctl "
                       f"{sorted(set(x) - set(y))[:10]}, only in telemetry "
                       f"{sorted(set(y) - set(x))[:10]}")
        for k in sorted(set(x) & set(y)):
            zk = z.get(k, x[k]) if isinstance(z, dict) else x[k]
            cmp(f"{path}.{k}", x[k], y[k], zk)
        return
    if isinstance(x, list):
        if len(x) != len(y):
            bad.append(f"{path}: {len(x)} items in ibex-ctl, {len(y)} in "
                       "telemetry")
            return
        for i in range(len(x)):
            zi = z[i] if isinstance(z, list) and i < len(z) else x[i]
            cmp(f"{path}[{i}]", x[i], y[i], zi)
        return
    if isinstance(x, int):
        if not isinstance(z, int):
            z = x
        lo, hi = min(x, z), max(x, z)
        if path.endswith("_ns") or path.endswith("age_ms"):
            lo, hi = lo // 4 - 1000, hi * 4 + 1000   # percentiles, ages
        if not lo - 64 <= y <= hi + 64:
            bad.append(f"{path}: telemetry {y} outside ibex-ctl [{x}, {z}]")
        return
    if x != y and y != z:
        bad.append(f"{path}: telemetry '{y}' != ibex-ctl '{x}'")

cmp(topic, as_tel(a), t, as_tel(b))

# /metrics: the counters of the topics it carries, between the reads.
n = 0
samples = {}
for line in prom.splitlines():
    m = re.match(r'^(\w+)\{(.*)\} (\S+)$', line)
    if m:
        lb = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(2)))
        samples[(m.group(1), lb.get("port"), lb.get("vl"), lb.get("reason"),
                 lb.get("path"))] = float(m.group(3))

def check(fam, port, vl, reason, path, x, z, where, need):
    global n
    for f in (fam + "_total", fam):
        k = (f, port, vl, reason, path)
        if k in samples:
            v = samples[k]
            if not min(x, z) - 64 <= v <= max(x, z) + 64:
                bad.append(f"/metrics {f} {where}: {v} outside ibex-ctl "
                           f"[{x}, {z}]")
            n += 1
            return
    if need:
        bad.append(f"/metrics: no {fam} for {where}")

def num(v):
    return isinstance(v, int) and not isinstance(v, bool)

if samples:
    ident = {"name", "dev", "ethdev_port", "admin", "link", "speed_bps",
             "flood", "drops", "dropped"}
    if topic == "ports":
        for p, q in zip(a["ports"], b["ports"]):
            for k, v in p.items():
                if k not in ident and num(v):
                    check(f"ibex_port_{k}", p["name"], None, None, None, v,
                          q[k], f"{p['name']} {k}", True)
            for r, v in p["drops"].items():
                check("ibex_port_drops", p["name"], None, r, None, v,
                      q["drops"][r], f"{p['name']} drop {r}", True)
    elif topic == "lanes":
        for p, q in zip(a["lanes"], b["lanes"]):
            for k, v in p.items():
                if k not in ("port", "vl", "class") and num(v):
                    check(f"ibex_lane_{k}", p["port"], str(p["vl"]), None,
                          None, v, q[k], f"{p['port']} vl {p['vl']} {k}",
                          True)
    elif topic in ("credits", "pfc"):
        mode = "credit" if topic == "credits" else "pfc"
        for p, q in zip(a[topic], b[topic]):
            if p["fc"] != mode:
                continue
            for k, v in p.items():
                if num(v):
                    check(f"ibex_port_{k}", p["port"], None, None, None, v,
                          q[k], f"{p['port']} {k}", False)
                    if "vl" in p:
                        check(f"ibex_lane_{k}", p["port"], str(p["vl"]),
                              None, None, v, q[k],
                              f"{p['port']} vl {p['vl']} {k}", False)
    elif topic == "latency":
        for p in a["latency"]:
            qq = [x for x in b["latency"] if (x["port"], x["vl"], x["path"])
                  == (p["port"], p["vl"], p["path"])]
            z = qq[0]["frames"] if qq else p["frames"]
            check("ibex_lane_residence_seconds_count", p["port"],
                  str(p["vl"]), None, p["path"].replace("-", "_"),
                  p["frames"], z,
                  f"{p['port']} vl {p['vl']} {p['path']} count", True)
    elif topic == "drops":
        for port, d in a["drops"].items():
            for r, v in d.items():
                check("ibex_port_drops", port, None, r, None, v,
                      b["drops"].get(port, {}).get(r, v),
                      f"{port} drop {r}", True)
for x in bad[:20]:
    print(f"FAIL: {topic} vs /ibex/{tcmd}: {x}")
if len(bad) > 20:
    print(f"FAIL: ... {len(bad) - 20} more")
print(f"{topic}: /ibex/{tcmd}, {n} /metrics samples, {len(bad)} problems")
sys.exit(1 if bad else 0)
PY
	then
		check_ok "show $t --json and /ibex/$tc agree${mport:+ (and /metrics)}"
	else
		errors=$((errors + 1))
	fi
done
[ -z "$ctl_only" ] || info "ctl-only topics:$ctl_only"

# The final --json: every topic in it as show X --json has it.
for t in $topics; do c --json show "$t" >"$tmp/$t.last.json"; done
stop_pid "$swpid" INT
[ -s "$tmp/final.json" ] || { show_log "$tmp/switch.log"; fail "no final --json"; }
# shellcheck disable=SC2086 # one argument per topic
if ! python3 - "$tmp/final.json" "$tmp" $topics <<'PY'
import json, sys
final = json.load(open(sys.argv[1]))
bad = []

def keys(v, path):
    """Key paths of a value, a list by its first item."""
    if isinstance(v, dict):
        out = set()
        for k, x in v.items():
            out |= {f"{path}.{k}"} | keys(x, f"{path}.{k}")
        return out
    if isinstance(v, list) and v:
        return keys(v[0], path + "[]")
    return set()

for t in sys.argv[3:]:
    show = json.load(open(f"{sys.argv[2]}/{t}.last.json"))
    for k in ("meta", "time", "time_unix"):
        show.pop(k, None)
    # A topic's JSON: one member, its own key, by which the final file
    # holds the topics it has (fdb, config, history and ecmp, not in it,
    # are documents of several members).
    if t not in ("fdb", "config", "history", "ecmp") and len(show) != 1:
        bad.append(f"show {t} --json: members {sorted(show)[:8]}, not "
                   "one object under its key")
    for k, v in show.items():
        # (the file's own members of that name: "workers", a count)
        if k not in final or not isinstance(final[k], (dict, list)):
            continue
        want, got = keys(v, k), keys(final[k], k)
        if want != got:
            bad.append(f"final --json {k}: only in show {t}: "
                       f"{sorted(want - got)[:8]}, only in the file: "
                       f"{sorted(got - want)[:8]}")
for k in ("ports", "lanes", "drops"):
    if k not in final:
        bad.append(f"final --json has no {k}")
if "ports" in final and "flood" not in final["ports"][0]:
    bad.append("final --json ports lack flood")
for x in bad:
    print("FAIL:", x)
sys.exit(1 if bad else 0)
PY
then
	errors=$((errors + 1))
else
	check_ok "the final --json holds its topics as show X --json does"
fi
[ "$errors" -eq 0 ] || fail "$errors checks disagree (see the FAIL lines)"
echo PASS
