#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# ibex towards a container-style peer: a vhost-user port and a memif port,
# with a second DPDK process (dpdk-testpmd) on the other side of both.
#
#   in0.pcap -> p0 (net_pcap0)            (net_pcap1) p3 -> out3.pcap
#   out0.pcap <-                                         <- in3.pcap
#               p1 (net_vhost0)  <==>  virtio_user0  \
#                                                     testpmd, mac mode
#               p2 (net_memif0)  <==>  net_memif0    /
#
# Static FDB: MAC_V -> p1, MAC_M -> p2, MAC_O0 -> p0, MAC_O3 -> p3.
# in0 frames (dst MAC_V) go p0 -> p1 -> testpmd port 0 (virtio) -> out of
# testpmd port 1 (memif) with dst = eth-peer 1 = MAC_O3 -> p2 -> p3.
# in3 frames (dst MAC_M) go p3 -> p2 -> testpmd port 1 (memif) -> out of
# port 0 (virtio) with dst MAC_O0 -> p1 -> p0. So frames cross virtio and
# memif in both directions. testpmd writes its port's MAC as the source, and
# those MACs are MAC_V and MAC_M, which the static entries already hold.
#
# Checks (tshark): out3 holds exactly N frames, all to MAC_O3 from MAC_M;
# out0 exactly N, all to MAC_O0 from MAC_V; every frame's bytes after the
# two MAC addresses equal its input frame's, in order. Then the switch's
# JSON counters: N frames and N * SIZE bytes each way on every port, no
# flood, no drop.
#
# Usage: test_vhost_memif.sh IBEX_SWITCH IBEX_PCAPGEN

# Helpers passed to wait_until* by name look unreachable to shellcheck.
# shellcheck disable=SC2317
TEST_NAME=vhost_memif
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

IBEX=${1:?usage: $0 IBEX_SWITCH IBEX_PCAPGEN}
PCAPGEN=${2:?usage: $0 IBEX_SWITCH IBEX_PCAPGEN}
[ -x "$IBEX" ] || fail "ibex-switch not executable: $IBEX"
[ -x "$PCAPGEN" ] || fail "ibex-pcapgen not executable: $PCAPGEN"
TESTPMD=${TESTPMD:-dpdk-testpmd}
require_cmds "$TESTPMD" tshark jq

# Frames per direction. Below the 256-entry virtio ring: ibex may send
# them all before testpmd's forwarding core starts polling.
readonly N=200
readonly SIZE=128

readonly MAC_O0=02:00:00:00:e0:00	# behind p0 (pcap)
readonly MAC_V=02:00:00:00:e0:01	# testpmd's virtio_user port, behind p1
readonly MAC_M=02:00:00:00:e0:02	# testpmd's memif port, behind p2
readonly MAC_O3=02:00:00:00:e0:03	# behind p3 (pcap)

WORK=$(mktemp -d /tmp/ibex-vm.XXXXXX) || fail "mktemp"
on_exit rm -rf "$WORK"
VHOST_SOCK="$WORK/vhost.sock"
MEMIF_SOCK="$WORK/memif.sock"

# --- inputs ---------------------------------------------------------------

"$PCAPGEN" -o "$WORK/in0.pcap" -n $N -s $SIZE -p 1 --kind roce \
	--src $MAC_O0 --dst $MAC_V >/dev/null || fail "ibex-pcapgen in0"
"$PCAPGEN" -o "$WORK/in3.pcap" -n $N -s $SIZE -p 4 --kind roce --seed 7 \
	--reverse --src $MAC_O3 --dst $MAC_M >/dev/null || fail "ibex-pcapgen in3"

cat >"$WORK/ibex.conf" <<EOF
# written by test_vhost_memif.sh
port p0 dev net_pcap0
port p1 dev net_vhost0
port p2 dev net_memif0
port p3 dev net_pcap1
fdb static $MAC_O0 port p0
fdb static $MAC_V port p1
fdb static $MAC_M port p2
fdb static $MAC_O3 port p3
EOF

# --- switch ---------------------------------------------------------------

# ibex is the vhost-user backend (it creates the socket) and the memif
# server. --wait-links holds the workers, and so the pcap inputs, until
# testpmd has attached to both; --idle-stop ends the run once the frames
# have come back.
dpdk_prefix IBEX_PREFIX sw
JSON="$WORK/ibex.json"
IBEX_LOG="$WORK/ibex.log"
start_bg IBEX_PID "$IBEX_LOG" "$IBEX" -l 0-1 --no-huge -m 1024 --no-pci \
	--file-prefix="$IBEX_PREFIX" --log-level='lib.*:notice' \
	--vdev "net_pcap0,rx_pcap=$WORK/in0.pcap,tx_pcap=$WORK/out0.pcap" \
	--vdev "net_vhost0,iface=$VHOST_SOCK,queues=1" \
	--vdev "net_memif0,role=server,socket=$MEMIF_SOCK,socket-abstract=no" \
	--vdev "net_pcap1,rx_pcap=$WORK/in3.pcap,tx_pcap=$WORK/out3.pcap" \
	-- --config "$WORK/ibex.conf" --wait-links 60 --idle-stop 4 --json "$JSON"
info "ibex-switch started (pid $IBEX_PID)"

sockets_ready() {
	[ -S "$VHOST_SOCK" ] && [ -S "$MEMIF_SOCK" ]
}
case $(wait_until_or_dead 60 "$IBEX_PID" sockets_ready; echo $?) in
0) ;;
2) wait_exit "$IBEX_PID" 1; show_log "$IBEX_LOG"
   fail "ibex-switch exited ($WAIT_RC) before creating its sockets" ;;
*) show_log "$IBEX_LOG"; fail "vhost/memif sockets not created within 30 s" ;;
esac
check_ok "ibex listens on $VHOST_SOCK (vhost-user) and $MEMIF_SOCK (memif)"

# --- peer -----------------------------------------------------------------

# Non-interactive testpmd with --stats-period runs until signalled (without
# it, it would read stdin and quit at once). --no-flush-rx: frames ibex sent
# before forwarding started must not be thrown away. When ibex exits first,
# virtio_user writes to a closed socket: SIGPIPE is ignored so testpmd can
# still shut down in order. testpmd's forwarding lcore runs on CPU 0, with
# the two main threads that mostly sleep: CPU 1 is ibex's worker's alone,
# so two busy-polling threads never share a CPU.
dpdk_prefix PMD_PREFIX pmd
PMD_LOG="$WORK/testpmd.log"
start_bg PMD_PID "$PMD_LOG" sh -c 'trap "" PIPE; exec "$@"' testpmd \
	"$TESTPMD" --lcores=0@0,1@0 --no-huge -m 512 --no-pci \
	--file-prefix="$PMD_PREFIX" --single-file-segments \
	--log-level='lib.*:notice' \
	--vdev "virtio_user0,path=$VHOST_SOCK,queues=1,mac=$MAC_V" \
	--vdev "net_memif0,role=client,socket=$MEMIF_SOCK,socket-abstract=no,mac=$MAC_M" \
	-- --nb-cores=1 --total-num-mbufs=8192 --forward-mode=mac \
	--eth-peer=0,$MAC_O0 --eth-peer=1,$MAC_O3 --no-flush-rx --stats-period 1
info "dpdk-testpmd started (pid $PMD_PID)"

t0=$SECONDS
if ! wait_exit "$IBEX_PID" 180; then
	show_log "$IBEX_LOG"
	show_log "$PMD_LOG"
	fail "ibex-switch still running after 90 s (frames never stopped?)"
fi
ibex_rc=$WAIT_RC
stop_pid "$PMD_PID" INT
info "ibex-switch exited ($ibex_rc) after $((SECONDS - t0)) s; testpmd stopped ($WAIT_RC)"
if [ "$ibex_rc" != 0 ]; then
	show_log "$IBEX_LOG"
	show_log "$PMD_LOG" 60
	fail "ibex-switch exited with $ibex_rc"
fi
sed -n '/summary/,$p' "$IBEX_LOG"
grep -q 'RX-packets' "$PMD_LOG" ||
	{ show_log "$PMD_LOG" 60; fail "testpmd printed no statistics (did it start?)"; }

# --- frames ---------------------------------------------------------------

TSHARK=(tshark -n -d "udp.port==4791,infiniband"
	--disable-heuristic rpcrdma_infiniband)

# count_frames PCAP [DISPLAY_FILTER]
count_frames() {
	local filter=()

	[ -z "$2" ] || filter=(-Y "$2")
	"${TSHARK[@]}" -r "$1" "${filter[@]}" -T fields -e frame.number 2>/dev/null | wc -l
}

# Each frame's bytes from offset 12 (after dst and src MAC), one hex line
# per frame, in file order.
frame_tails() {
	"${TSHARK[@]}" -r "$1" -T json -x 2>/dev/null |
		jq -r '.[]._source.layers.frame_raw[0][24:]'
}

# check_out IN OUT DST SRC: OUT holds exactly N frames, to DST from SRC,
# with IN's bytes after the MACs.
check_out() {
	local in=$1 out=$2 dst=$3 src=$4 total match

	[ -s "$WORK/$out" ] || fail "$out missing or empty"
	total=$(count_frames "$WORK/$out")
	match=$(count_frames "$WORK/$out" "eth.dst == $dst && eth.src == $src")
	[ "$total" -eq $N ] || fail "$out holds $total frames, expected $N"
	[ "$match" -eq $N ] ||
		fail "$out: $match of $N frames have eth.dst $dst and eth.src $src"
	frame_tails "$WORK/$in" >"$WORK/$in.tails"
	frame_tails "$WORK/$out" >"$WORK/$out.tails"
	[ "$(wc -l <"$WORK/$in.tails")" -eq $N ] || fail "cannot read $in with tshark"
	if ! cmp -s "$WORK/$in.tails" "$WORK/$out.tails"; then
		diff "$WORK/$in.tails" "$WORK/$out.tails" | head -5 >&2
		fail "$out: frame bytes after the MACs differ from $in (or order changed)"
	fi
	check_ok "$out: exactly $N frames, eth.dst $dst, eth.src $src, bytes after MACs equal to $in, same order"
}

check_out in0.pcap out3.pcap $MAC_O3 $MAC_M	# p0 -> vhost -> memif -> p3
check_out in3.pcap out0.pcap $MAC_O0 $MAC_V	# p3 -> memif -> vhost -> p0

# --- counters -------------------------------------------------------------

[ -s "$JSON" ] || fail "ibex-switch wrote no JSON summary"
[ "$(jq '.ports | length' "$JSON")" = 4 ] || fail "JSON: expected 4 ports"
for p in 0 1 2 3; do
	name=$(jq -r ".ports[$p].name" "$JSON")
	for f in rx_frames tx_frames; do
		v=$(json_port_field "$JSON" $p $f) || fail "JSON: no .ports[$p].$f"
		[ "$v" -eq $N ] || fail "port $name: $f $v, expected $N"
	done
	for f in rx_bytes tx_bytes; do
		v=$(json_port_field "$JSON" $p $f) || fail "JSON: no .ports[$p].$f"
		[ "$v" -eq $((N * SIZE)) ] ||
			fail "port $name: $f $v, expected $((N * SIZE))"
	done
	v=$(json_port_field "$JSON" $p flooded) || fail "JSON: no flooded"
	[ "$v" -eq 0 ] || fail "port $name: $v frames flooded, expected 0"
	v=$(json_port_drops "$JSON" $p) || fail "JSON: no drops"
	[ "$v" -eq 0 ] || fail "port $name: $v drops: $(jq -c ".ports[$p].drops | with_entries(select(.value > 0))" "$JSON")"
done
check_ok "JSON: every port rx = tx = $N frames, $((N * SIZE)) bytes; nothing flooded or dropped"

info "PASS"
exit 0
