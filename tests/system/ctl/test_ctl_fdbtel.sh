#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# /ibex/fdb over telemetry pages its table: a 1,500-entry FDB (1,000
# static entries, 500 learned) is read in full, page by page, and every
# entry is an object (mac, vlan, port, static, and age_ms for learned ones).
# A telemetry reply has a size limit (16 kB in DPDK 22.11): the table
# listed whole used to lose its "table" field above ~340 entries.
#
#   test_ctl_fdbtel.sh IBEX_SWITCH IBEX_PCAPGEN IBEX_CTL
set -euo pipefail
TEST_NAME=ctl_fdbtel
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

sw=$1 ctl=$3
require_cmds python3
[ "$(id -u)" -eq 0 ] || skip "needs root (EAL)"
tmp=$(mktemp -d /tmp/ibex-fdbtel.XXXXXX)
on_exit rm -rf "$tmp"
dpdk_prefix prefix ft
sock="$tmp/ctl.sock"
readonly NSTATIC=1000 NLEARN=500 N=1500
# The longest port name there is: the biggest replies.
readonly LONG=a-port-with-a-31-char-name-xyz

# 500 frames from 500 source MACs to a MAC static on $LONG.
python3 - "$tmp/learn.pcap" "$NLEARN" <<'PY'
import struct, sys
path, n = sys.argv[1], int(sys.argv[2])
with open(path, "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    for i in range(n):
        dst = bytes([2, 0, 0, 0, 0, 0])
        src = bytes([2, 0, 1, 0, i >> 8, i & 255])
        frame = dst + src + b"\x12\x34" + bytes(46)
        f.write(struct.pack("<IIII", 0, i, len(frame), len(frame)) + frame)
PY
printf 'port p0 dev net_pcap0\nport %s dev net_null1\n' "$LONG" >"$tmp/switch.conf"
start_bg swpid "$tmp/switch.log" "$sw" -l 0-1 --no-huge -m 1024 --no-pci \
	--file-prefix="$prefix" --log-level='lib.*:notice' \
	--vdev "net_pcap0,rx_pcap=$tmp/learn.pcap" --vdev "net_null1,no-rx=1" \
	-- --config "$tmp/switch.conf" --ctl-socket "$sock" --duration 300
c() { "$ctl" --socket "$sock" "$@"; }
if ! wait_until_or_dead 60 "$swpid" c show ports; then
	show_log "$tmp/switch.log"
	fail "the control socket did not answer"
fi
for i in $(seq 0 $((NSTATIC - 1))); do
	port=$LONG
	[ $((i % 2)) -eq 0 ] || port=p0
	printf 'add fdb 02:00:00:00:%02x:%02x port %s\n' \
		$((i >> 8 & 255)) $((i & 255)) "$port"
done | c >/dev/null || fail "adding $NSTATIC static entries"
fdb_full() {
	c --json show fdb | python3 -c "import json, sys; sys.exit(json.load(sys.stdin)['entries'] != $N)"
}
wait_until 60 fdb_full || { c show fdb | tail -1; fail "the FDB does not reach $N entries"; }

python3 - "/var/run/dpdk/$prefix/dpdk_telemetry.v2" "$NSTATIC" "$NLEARN" <<'PY' || fail "paged read"
import json, socket, sys
path, nstatic, nlearn = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
n = nstatic + nlearn
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.connect(path)
info = json.loads(s.recv(65536))
maxlen = info["max_output_len"]
def q(cmd):
    s.send(cmd.encode())
    raw = s.recv(maxlen + 1024)
    return json.loads(raw)["/ibex/fdb"]
seen, pages, off = {}, 0, 0
while off >= 0:
    r = q(f"/ibex/fdb,{off}")
    pages += 1
    if r is None or r["entries"] != n or r["offset"] != off:
        sys.exit(f"page at {off}: {r}")
    # the table: a list of objects, in telemetry keyed "0", "1", ...
    keys = sorted(r["table"], key=int)
    if keys != [str(i) for i in range(r["count"])] or r["count"] == 0:
        sys.exit(f"page at {off}: {len(keys)} objects, count says {r['count']}")
    for k in keys:
        e = r["table"][k]
        want_keys = {"mac", "vlan", "port", "static"}
        if e.get("static") == 0:
            want_keys.add("age_ms")
        if set(e) != want_keys:
            sys.exit(f"entry {k}: {e}")
        seen[(e["mac"], e["vlan"])] = "static" if e["static"] else "learned"
    if r["next"] >= 0 and r["next"] != off + r["count"]:
        sys.exit(f"page at {off}: next {r['next']}")
    off = r["next"]
    if pages > n:
        sys.exit("pages never end")
want = {(f"02:00:00:00:{i >> 8:02x}:{i & 255:02x}", 1): "static" for i in range(nstatic)}
want.update({(f"02:00:01:00:{i >> 8:02x}:{i & 255:02x}", 1): "learned" for i in range(nlearn)})
if seen != want:
    sys.exit(f"read {len(seen)} distinct entries, {len(set(want) & set(seen))} of the {n}")
# A page size of one's own; bad parameters refused.
r = q("/ibex/fdb,10,7")
if r["count"] != 7 or r["next"] != 17:
    sys.exit(f"/ibex/fdb,10,7: count {r['count']} next {r['next']}")
for bad in ("/ibex/fdb,x", "/ibex/fdb,-1", "/ibex/fdb,0,0", "/ibex/fdb,0,101", "/ibex/fdb,0,5x"):
    if q(bad) is not None:
        sys.exit(f"{bad} accepted")
print(f"ok: {n} entries read in {pages} pages, each an object; bad parameters refused")
PY
check_ok "a $N-entry FDB read in full over telemetry, paged"
stop_pid "$swpid" TERM
[ "$WAIT_RC" -eq 0 ] || { show_log "$tmp/switch.log"; fail "switch exit status $WAIT_RC"; }
