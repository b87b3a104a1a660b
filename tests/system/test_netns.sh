#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# ibex as a learning switch between two Linux network namespaces.
#
#   ns A (10.99.0.1) --veth-- [net_af_packet0  ibex  net_af_packet1] --veth-- ns B (10.99.0.2)
#
# Checks: ping A -> B, a TCP transfer A -> B arrives byte-exact, and the
# switch's JSON counters agree with what crossed it.
#
# Usage: test_netns.sh IBEX_SWITCH [IBEX_PCAPGEN]
# Needs root (namespaces, veth); exits 77 (skipped) without that.

# Helpers passed to wait_until* by name look unreachable to shellcheck.
# shellcheck disable=SC2317
TEST_NAME=netns
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

IBEX=${1:?usage: $0 IBEX_SWITCH}
[ -x "$IBEX" ] || fail "ibex-switch not executable: $IBEX"
require_cmds ip ethtool nc ping sha256sum jq ss

# Bytes sent over TCP from A to B.
readonly XFER_BYTES=$((4 * 1024 * 1024))
readonly TCP_PORT=5999

NS_A="ibex-a-$$"
NS_B="ibex-b-$$"
# Interface names are at most 15 characters.
V_A="ibx$$a"	# root end, ibex port 0
V_B="ibx$$b"	# root end, ibex port 1
V_AN="ibx$$an"	# namespace A end
V_BN="ibx$$bn"	# namespace B end

WORK=$(mktemp -d /tmp/ibex-netns.XXXXXX) || fail "mktemp"
on_exit rm -rf "$WORK"

# --- topology -------------------------------------------------------------

if ! ip netns add "$NS_A" 2>"$WORK/netns.err"; then
	skip "cannot create network namespaces: $(cat "$WORK/netns.err")"
fi
on_exit ip netns del "$NS_A"
ip netns add "$NS_B" || fail "ip netns add $NS_B"
on_exit ip netns del "$NS_B"

# Deleting one end of a veth removes its peer too; the namespace ends go
# with their namespaces in any case.
ip link add "$V_A" type veth peer name "$V_AN" || fail "ip link add $V_A"
on_exit ip link del "$V_A"
ip link add "$V_B" type veth peer name "$V_BN" || fail "ip link add $V_B"
on_exit ip link del "$V_B"
ip link set "$V_AN" netns "$NS_A" || fail "move $V_AN"
ip link set "$V_BN" netns "$NS_B" || fail "move $V_BN"

# af_packet hands ibex whatever the kernel queued: with offloads on, that
# includes 64 KB GSO/GRO super-frames and frames with unfinished checksums.
# Turn them off on all four ends so every frame is a real, <= 1514-byte one.
# IPv6 is off on the root ends so the host adds no traffic of its own.
# offloads_off IF [NETNS]
offloads_off() {
	local in_ns=()

	[ -z "$2" ] || in_ns=(ip netns exec "$2")
	"${in_ns[@]}" ethtool -K "$1" tx off rx off tso off gso off gro off \
		>/dev/null 2>&1 || fail "ethtool -K $1${2:+ in $2}"
}
for if in "$V_A" "$V_B"; do
	offloads_off "$if"
	sysctl -qw "net.ipv6.conf.$if.disable_ipv6=1" 2>/dev/null
	ip link set "$if" mtu 1500 up || fail "ip link set $if up"
done
offloads_off "$V_AN" "$NS_A"
offloads_off "$V_BN" "$NS_B"
ip -n "$NS_A" link set lo up
ip -n "$NS_B" link set lo up
ip -n "$NS_A" link set "$V_AN" mtu 1500 up || fail "link up in $NS_A"
ip -n "$NS_B" link set "$V_BN" mtu 1500 up || fail "link up in $NS_B"
ip -n "$NS_A" addr add 10.99.0.1/24 dev "$V_AN" || fail "addr in $NS_A"
ip -n "$NS_B" addr add 10.99.0.2/24 dev "$V_BN" || fail "addr in $NS_B"
info "namespaces $NS_A (10.99.0.1, $V_AN) and $NS_B (10.99.0.2, $V_BN); ibex on $V_A, $V_B"

# --- switch ---------------------------------------------------------------

dpdk_prefix PREFIX sw
JSON="$WORK/ibex.json"
LOG="$WORK/ibex.log"
start_bg IBEX_PID "$LOG" "$IBEX" -l 0-1 --no-huge -m 1024 --no-pci \
	--file-prefix="$PREFIX" --log-level='lib.*:notice' \
	--vdev "net_af_packet0,iface=$V_A,qpairs=1" \
	--vdev "net_af_packet1,iface=$V_B,qpairs=1" \
	-- --wait-links 30 --json "$JSON"
info "ibex-switch started (pid $IBEX_PID)"

ping_once() {
	ip netns exec "$NS_A" ping -c 1 -W 1 10.99.0.2
}
case $(wait_until_or_dead 60 "$IBEX_PID" ping_once; echo $?) in
0) ;;
2) wait_exit "$IBEX_PID" 1; show_log "$LOG"
   fail "ibex-switch exited ($WAIT_RC) before forwarding" ;;
*) show_log "$LOG"; fail "no ping reply through ibex within 30 s" ;;
esac
check_ok "ibex forwards (first ping answered)"

# --- ping -----------------------------------------------------------------

if ! ip netns exec "$NS_A" ping -c 5 -i 0.2 -W 2 10.99.0.2 >"$WORK/ping.log" 2>&1; then
	show_log "$WORK/ping.log"
	fail "ping -c 5 10.99.0.1 -> 10.99.0.2 lost replies"
fi
check_ok "ping -c 5 10.99.0.1 -> 10.99.0.2: $(grep -o '[0-9]* received' "$WORK/ping.log")"

# --- TCP transfer ---------------------------------------------------------

head -c "$XFER_BYTES" /dev/urandom >"$WORK/sent" || fail "cannot make test data"
# The server writes what it receives and exits when the client closes
# (-d: it does not read its own stdin).
start_bg NC_SRV "$WORK/nc-srv.log" ip netns exec "$NS_B" \
	sh -c "exec nc -d -l 10.99.0.2 $TCP_PORT >'$WORK/received'"
listening() {
	ip netns exec "$NS_B" ss -Hltn "sport = :$TCP_PORT" | grep -q .
}
wait_until_or_dead 30 "$NC_SRV" listening ||
	{ show_log "$WORK/nc-srv.log"; fail "nc server did not listen"; }

# -N: half-close after the file so the server sees the end of the data.
start_bg NC_CLI "$WORK/nc-cli.log" ip netns exec "$NS_A" \
	sh -c "exec nc -N 10.99.0.2 $TCP_PORT <'$WORK/sent'"
t0=$SECONDS
wait_exit "$NC_CLI" 120 || fail "TCP transfer did not finish within 120 s"
[ "$WAIT_RC" = 0 ] || { show_log "$WORK/nc-cli.log"; fail "nc client exited with $WAIT_RC"; }
wait_exit "$NC_SRV" 30 || fail "nc server still running after the client closed"
[ "$WAIT_RC" = 0 ] || { show_log "$WORK/nc-srv.log"; fail "nc server exited with $WAIT_RC"; }

sum_sent=$(sha256sum <"$WORK/sent" | cut -d' ' -f1)
sum_recv=$(sha256sum <"$WORK/received" | cut -d' ' -f1)
size_recv=$(stat -c %s "$WORK/received")
[ "$sum_sent" = "$sum_recv" ] ||
	fail "TCP data differs: sent $XFER_BYTES bytes sha256 $sum_sent, received $size_recv bytes sha256 $sum_recv"
check_ok "TCP transfer of $XFER_BYTES bytes A -> B byte-exact (sha256 $sum_sent, $((SECONDS - t0)) s)"

# --- stop and check counters ----------------------------------------------

stop_pid "$IBEX_PID" TERM
[ "$WAIT_RC" = 0 ] || { show_log "$LOG"; fail "ibex-switch exited with $WAIT_RC after SIGTERM"; }
[ -s "$JSON" ] || { show_log "$LOG"; fail "ibex-switch wrote no JSON summary"; }
check_ok "ibex-switch stopped cleanly on SIGTERM"
sed -n '/summary/,$p' "$LOG"

j() {
	json_port_field "$JSON" "$1" "$2" || fail "JSON: no .ports[$1].$2"
}
jdrops() {
	json_port_drops "$JSON" "$1" || fail "JSON: no .ports[$1].drops"
}
txfull() {
	jq -e ".ports[$1].drops[\"tx-full\"] // 0" "$JSON" || fail "JSON: no tx-full"
}

[ "$(jq '.ports | length' "$JSON")" = 2 ] || fail "JSON: expected 2 ports"
for p in 0 1; do
	for f in rx_frames tx_frames rx_bytes tx_bytes; do
		[ "$(j $p $f)" -gt 0 ] || fail "port $p: $f is 0"
	done
done
check_ok "rx/tx frames and bytes non-zero on both ports"

# With two ports every frame received on one either leaves the other
# (a flood has exactly one copy) or is counted as a drop: on the ingress
# port for the parse/forwarding reasons, on the egress port for tx-full.
for a in 0 1; do
	b=$((1 - a))
	rx=$(j $a rx_frames)
	in_drops=$(($(jdrops $a) - $(txfull $a)))
	out=$(($(j $b tx_frames) + $(txfull $b)))
	[ "$out" -eq $((rx - in_drops)) ] ||
		fail "port $a rx $rx - drops $in_drops != port $b tx + tx-full $out"
	if [ "$(jdrops $a)" -eq 0 ] && [ "$(jdrops $b)" -eq 0 ]; then
		[ "$(j $a rx_bytes)" -eq "$(j $b tx_bytes)" ] ||
			fail "port $a rx_bytes $(j $a rx_bytes) != port $b tx_bytes $(j $b tx_bytes)"
	fi
done
check_ok "counters consistent: rx of each port = tx of the other + drops"

# The data went A -> B: port 0 received at least the payload bytes, in at
# least one frame per 1460-byte segment.
[ "$(j 0 rx_bytes)" -ge "$XFER_BYTES" ] ||
	fail "port 0 rx_bytes $(j 0 rx_bytes) < $XFER_BYTES transferred"
[ "$(j 0 rx_frames)" -ge $((XFER_BYTES / 1460)) ] ||
	fail "port 0 rx_frames $(j 0 rx_frames) < $((XFER_BYTES / 1460)) segments"
total_drops=$(($(jdrops 0) + $(jdrops 1)))
check_ok "port 0 rx $(j 0 rx_frames) frames / $(j 0 rx_bytes) bytes >= transfer; drops $total_drops"

info "PASS"
exit 0
