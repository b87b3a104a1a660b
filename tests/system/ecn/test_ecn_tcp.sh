#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# ECN marking with a real TCP stack: Linux TCP (ECN negotiated, RFC 3168)
# through ibex, whose egress port towards the receiver is shaped.
#
#   ns A 10.97.0.1 --veth-- [p0 af_packet  ibex  af_packet p1, shape 100M] --veth-- ns B 10.97.0.2
#
# Two bulk transfers A -> B, the same but for the marking on p1:
#
#  1. marking on (kmin 64KB kmax 192KB pmax 0.2, a 512 KB lossy lane): the
#     receiving kernel counts CE-marked packets (IpExtInCEPkts), the sender
#     counts ECE-acknowledged deliveries (TcpExtTCPDeliveredCE), ibex's
#     marked counter agrees, the lane never drops a frame and TCP loses no
#     segment (a retransmission is only allowed of a segment the receiver
#     had, which it reports by D-SACK): the sender kept the queue below
#     512 KB by backing off on the marks, at close to the shaped rate;
#  2. marking off (the control): the same transfer overflows the same lane
#     (tail drops at ibex, retransmissions at the sender): the clean run 1
#     is the marks' doing, not a lane too deep to fill.
#
# DCTCP is used instead of the default congestion control where the kernel
# offers it (or `modprobe tcp_dctcp` works); otherwise the test says so and
# runs with the default (classic ECN halves the window once per marked
# round trip).
#
# Usage: test_ecn_tcp.sh IBEX_SWITCH IBEX_PCAPGEN IBEX_CTL
# Needs root (namespaces, veth); exits 77 (skipped) without that.

# Helpers passed to wait_until* by name look unreachable to shellcheck.
# shellcheck disable=SC2317
TEST_NAME=ecn_tcp
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

IBEX=${1:?usage: $0 IBEX_SWITCH IBEX_PCAPGEN IBEX_CTL}
CTL=${3:?usage: $0 IBEX_SWITCH IBEX_PCAPGEN IBEX_CTL}
[ -x "$IBEX" ] || fail "ibex-switch not executable: $IBEX"
[ -x "$CTL" ] || fail "ibex-ctl not executable: $CTL"
require_cmds ip ethtool nc ping jq ss nstat sysctl
[ "$(id -u)" -eq 0 ] || skip "needs root (network namespaces)"

# Bytes per transfer: ~2.5 s at 100 Mb/s.
readonly XFER_BYTES=$((30 * 1024 * 1024))
readonly TCP_PORT=5998
readonly SHAPE_MBPS=100

NS_A="ibex-ecna-$$"
NS_B="ibex-ecnb-$$"
V_A="iex$$a"
V_B="iex$$b"
V_AN="iex$$an"
V_BN="iex$$bn"

WORK=$(mktemp -d /tmp/ibex-ecn.XXXXXX) || fail "mktemp"
on_exit rm -rf "$WORK"

# --- topology -------------------------------------------------------------

if ! ip netns add "$NS_A" 2>"$WORK/netns.err"; then
	skip "cannot create network namespaces: $(cat "$WORK/netns.err")"
fi
on_exit ip netns del "$NS_A"
ip netns add "$NS_B" || fail "ip netns add $NS_B"
on_exit ip netns del "$NS_B"
ip link add "$V_A" type veth peer name "$V_AN" || fail "ip link add $V_A"
on_exit ip link del "$V_A"
ip link add "$V_B" type veth peer name "$V_BN" || fail "ip link add $V_B"
on_exit ip link del "$V_B"
ip link set "$V_AN" netns "$NS_A" || fail "move $V_AN"
ip link set "$V_BN" netns "$NS_B" || fail "move $V_BN"

# Real <= 1514-byte frames only (see test_netns.sh): no GSO/GRO/TSO.
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
for ns in "$NS_A" "$NS_B"; do
	ip -n "$ns" link set lo up
	# ECN requested and accepted by both ends (per namespace).
	ip netns exec "$ns" sysctl -qw net.ipv4.tcp_ecn=1 ||
		fail "sysctl net.ipv4.tcp_ecn=1 in $ns"
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 2>/dev/null
done
ip -n "$NS_A" link set "$V_AN" mtu 1500 up || fail "link up in $NS_A"
ip -n "$NS_B" link set "$V_BN" mtu 1500 up || fail "link up in $NS_B"
ip -n "$NS_A" addr add 10.97.0.1/24 dev "$V_AN" || fail "addr in $NS_A"
ip -n "$NS_B" addr add 10.97.0.2/24 dev "$V_BN" || fail "addr in $NS_B"

# DCTCP where the kernel has it; else cubic, else reno: a congestion control
# that halves its window on ECE, never the machine's default as such, which
# may be BBR (it ignores ECN). The choice is per namespace, and a namespace
# other than the initial one may only pick one of
# net.ipv4.tcp_allowed_congestion_control: the first the sysctl accepts wins.
sysctl -n net.ipv4.tcp_available_congestion_control | grep -qw dctcp ||
	modprobe tcp_dctcp >/dev/null 2>&1 || true
avail=$(sysctl -n net.ipv4.tcp_available_congestion_control)
CC=
for cc in dctcp cubic reno; do
	if ip netns exec "$NS_A" sysctl -qw "net.ipv4.tcp_congestion_control=$cc" \
		2>/dev/null; then
		ip netns exec "$NS_B" sysctl -qw "net.ipv4.tcp_congestion_control=$cc" ||
			fail "cannot select $cc in $NS_B"
		CC=$cc
		break
	fi
done
[ -n "$CC" ] || skip "no ECN-reacting congestion control can be selected in a namespace (available: $avail)"
if [ "$CC" = dctcp ]; then
	info "congestion control: dctcp"
else
	info "DCTCP not usable here (kernel $(uname -r): available $avail, allowed in namespaces $(sysctl -n net.ipv4.tcp_allowed_congestion_control)); using $CC with classic ECN (RFC 3168)"
fi

# --- switch ---------------------------------------------------------------

cat >"$WORK/switch.conf" <<EOF
port p0 dev net_af_packet0
port p1 dev net_af_packet1
port p1 shape ${SHAPE_MBPS}M vl-queue 512KB
ecn p1 vl all kmin 64KB kmax 192KB pmax 0.2 on
EOF
dpdk_prefix PREFIX sw
SOCK="$WORK/ctl.sock"
LOG="$WORK/ibex.log"
start_bg IBEX_PID "$LOG" "$IBEX" -l 0-1 --no-huge -m 1024 --no-pci \
	--file-prefix="$PREFIX" --log-level='lib.*:notice' \
	--vdev "net_af_packet0,iface=$V_A,qpairs=1" \
	--vdev "net_af_packet1,iface=$V_B,qpairs=1" \
	-- --config "$WORK/switch.conf" --ctl-socket "$SOCK" --wait-links 30
ctl() { "$CTL" --socket "$SOCK" "$@"; }

ping_once() {
	ip netns exec "$NS_A" ping -c 1 -W 1 10.97.0.2
}
case $(wait_until_or_dead 60 "$IBEX_PID" ping_once; echo $?) in
0) ;;
2) wait_exit "$IBEX_PID" 1; show_log "$LOG"
   fail "ibex-switch exited ($WAIT_RC) before forwarding" ;;
*) show_log "$LOG"; fail "no ping reply through ibex within 30 s" ;;
esac
check_ok "ibex forwards A -> B"

# --- helpers --------------------------------------------------------------

# One nstat counter of a namespace (absolute; the namespaces are new).
counter() {
	ip netns exec "$1" nstat -saz "$2" | awk -v k="$2" '$1 == k { print $2 }'
}
# A field of lane 0 of p1 (the lane the untagged TCP frames use).
lane() {
	ctl show lanes p1 --json | jq -e ".lanes[] | select(.vl == 0) | .$1"
}
ecn_field() {
	ctl show ecn p1 --json | jq -e ".ecn[] | select(.vl == 0) | .$1"
}

head -c "$XFER_BYTES" /dev/urandom >"$WORK/sent" || fail "cannot make test data"
SUM_SENT=$(sha256sum <"$WORK/sent" | cut -d' ' -f1)

# transfer TAG: one bulk transfer A -> B, the lane's gauge sampled while
# it runs. Sets T_MS (duration), MAX_Q (largest backlog seen, bytes).
transfer() {
	local tag=$1 t0 t1 q srv cli

	start_bg srv "$WORK/srv-$tag.log" ip netns exec "$NS_B" \
		sh -c "exec nc -d -l 10.97.0.2 $TCP_PORT >'$WORK/recv-$tag'"
	listening() {
		ip netns exec "$NS_B" ss -Hltn "sport = :$TCP_PORT" | grep -q .
	}
	wait_until_or_dead 30 "$srv" listening ||
		{ show_log "$WORK/srv-$tag.log"; fail "$tag: nc server did not listen"; }
	t0=$(date +%s%N)
	start_bg cli "$WORK/cli-$tag.log" ip netns exec "$NS_A" \
		sh -c "exec nc -N 10.97.0.2 $TCP_PORT <'$WORK/sent'"
	MAX_Q=0
	while is_alive "$cli"; do
		# The sender's socket while it runs: ECN negotiated?
		ip netns exec "$NS_A" ss -Htin state established \
			>>"$WORK/ss-$tag.log" 2>/dev/null
		q=$(lane qlen_bytes 2>/dev/null || echo 0)
		[ "$q" -le "$MAX_Q" ] || MAX_Q=$q
		[ $(( ($(date +%s%N) - t0) / 1000000000 )) -lt 120 ] ||
			fail "$tag: transfer did not finish within 120 s"
		sleep 0.05
	done
	t1=$(date +%s%N)
	T_MS=$(( (t1 - t0) / 1000000 ))
	wait_exit "$cli" 15 || fail "$tag: nc client did not exit"
	[ "$WAIT_RC" = 0 ] || { show_log "$WORK/cli-$tag.log"; fail "$tag: nc client exited with $WAIT_RC"; }
	wait_exit "$srv" 30 || fail "$tag: nc server still running"
	[ "$(sha256sum <"$WORK/recv-$tag" | cut -d' ' -f1)" = "$SUM_SENT" ] ||
		fail "$tag: received data differs from what was sent"
}

# snapshot VAR_PREFIX: the counters the test compares, before/after.
snapshot() {
	local p=$1

	printf -v "${p}_ce_rx" '%s' "$(counter "$NS_B" IpExtInCEPkts)"
	printf -v "${p}_ce_ack" '%s' "$(counter "$NS_A" TcpExtTCPDeliveredCE)"
	printf -v "${p}_retrans" '%s' "$(counter "$NS_A" TcpRetransSegs)"
	printf -v "${p}_dsack" '%s' "$(counter "$NS_A" TcpExtTCPDSACKRecvSegs)"
	printf -v "${p}_drops" '%s' "$(lane drops)"
	printf -v "${p}_marked" '%s' "$(ecn_field marked)"
	printf -v "${p}_ect" '%s' "$(ecn_field ect_seen)"
	printf -v "${p}_tx" '%s' "$(lane tx_frames)"
}

# --- run 1: marking on ----------------------------------------------------

snapshot b1
transfer ecn
snapshot a1
ce_rx=$((a1_ce_rx - b1_ce_rx))
ce_ack=$((a1_ce_ack - b1_ce_ack))
retrans=$((a1_retrans - b1_retrans))
# A retransmission of a segment that had arrived (a tail loss probe or a
# timeout while a descheduled switch sat on the ACKs) comes back as a
# duplicate, reported by D-SACK: only the others are losses.
dsack=$((a1_dsack - b1_dsack))
lost=$((retrans > dsack ? retrans - dsack : 0))
drops=$((a1_drops - b1_drops))
marked=$((a1_marked - b1_marked))
ect=$((a1_ect - b1_ect))
tx=$((a1_tx - b1_tx))
mbps=$((XFER_BYTES * 8 / 1000 / T_MS))
info "marking on: $XFER_BYTES bytes in $T_MS ms = $mbps Mb/s goodput (shaped ${SHAPE_MBPS}M), lane tx $tx frames, ECT decided $ect, ibex marked $marked, lane drops $drops, largest backlog seen $MAX_Q bytes"
info "marking on: receiver IpExtInCEPkts $ce_rx, sender TcpExtTCPDeliveredCE $ce_ack, TcpRetransSegs $retrans, D-SACKed $dsack ($CC)"
# The sender's socket itself (ss -ti): ECE-acknowledged deliveries, the
# window it kept. (Not the "ecn" option flag: ss and the kernel's tcp_info
# need not agree on its bits.)
ss_ce=$(grep -o 'delivered_ce:[0-9]*' "$WORK/ss-ecn.log" | tail -1 | cut -d: -f2)
[ "${ss_ce:-0}" -gt 0 ] ||
	{ show_log "$WORK/ss-ecn.log"; fail "the sender's socket reports no CE delivery (ss -ti delivered_ce)"; }
cwnd_med=$(grep -o ' cwnd:[0-9]*' "$WORK/ss-ecn.log" | cut -d: -f2 | sort -n |
	awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
check_ok "sender socket: delivered_ce $ss_ce, median cwnd $cwnd_med segments while sending"
[ "$marked" -gt 0 ] || fail "ibex marked no frame"
[ "$ce_rx" -gt 0 ] || fail "the receiver saw no CE-marked packet"
# Every frame ibex marked reached the receiver (no drops on the way).
[ "$ce_rx" -eq "$marked" ] ||
	fail "the receiver counted $ce_rx CE packets, ibex marked $marked"
check_ok "receiver got $ce_rx CE-marked packets = ibex's marked counter"
[ "$ce_ack" -gt 0 ] || fail "the sender saw no ECE (TcpExtTCPDeliveredCE 0)"
check_ok "sender was told: TcpExtTCPDeliveredCE $ce_ack"
[ "$drops" -eq 0 ] || fail "lane p1/0 dropped $drops frames with marking on"
[ "$lost" -eq 0 ] ||
	fail "the sender retransmitted $lost segments the receiver had not got with marking on (TcpRetransSegs $retrans, D-SACKed $dsack)"
check_ok "no drop on the lane, no lost segment: the sender backed off on marks, not losses"
# Goodput near the shaped rate: wire overhead is 1538 bytes per 1448 of
# payload (94%); the bound is loose for a busy 2-core machine, where the
# switch's own lcore is descheduled at times and the shaper's 16 KB bucket
# cannot make up for it.
[ "$mbps" -ge $((SHAPE_MBPS * 10 / 100)) ] ||
	fail "goodput $mbps Mb/s is below 10% of the shaped ${SHAPE_MBPS} Mb/s"
[ "$mbps" -le "$SHAPE_MBPS" ] ||
	fail "goodput $mbps Mb/s is above the shaped ${SHAPE_MBPS} Mb/s: shaper not in the path"
check_ok "goodput $mbps Mb/s at a ${SHAPE_MBPS} Mb/s shaper"

# --- run 2: marking off (control) -----------------------------------------

ctl set ecn p1 vl all off >/dev/null || fail "ibex-ctl set ecn p1 vl all off"
[ "$(ecn_field enabled)" = false ] || fail "marking still on after 'set ecn ... off'"
snapshot b2
transfer noecn
snapshot a2
drops2=$((a2_drops - b2_drops))
retrans2=$((a2_retrans - b2_retrans))
marked2=$((a2_marked - b2_marked))
ce_rx2=$((a2_ce_rx - b2_ce_rx))
mbps2=$((XFER_BYTES * 8 / 1000 / T_MS))
info "marking off: $mbps2 Mb/s, lane drops $drops2, TcpRetransSegs $retrans2, ibex marked $marked2, receiver CE $ce_rx2, largest backlog seen $MAX_Q bytes"
[ "$marked2" -eq 0 ] && [ "$ce_rx2" -eq 0 ] || fail "frames were marked with marking off"
[ "$drops2" -gt 0 ] && [ "$retrans2" -gt 0 ] ||
	fail "without marks the same transfer did not overflow the lane (drops $drops2, retransmissions $retrans2): run 1 proves nothing"
check_ok "control: without marks the lane overflowed ($drops2 drops, $retrans2 retransmissions)"

stop_pid "$IBEX_PID" TERM
[ "$WAIT_RC" = 0 ] || { show_log "$LOG"; fail "ibex-switch exited with $WAIT_RC after SIGTERM"; }
info "PASS"
exit 0
