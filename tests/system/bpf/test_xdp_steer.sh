#!/usr/bin/env bash
# System test: XDP steering on a net_af_xdp port (conf/bpf/xdp_steer.c).
# ibex shares the "host" namespace S's only interface vx with the kernel:
#
#   ns A  va 10.77.0.1 ==veth== vx 10.77.0.2  ns S (kernel + ibex af_xdp)
#                                   ibex-switch: x = af_xdp on vx
#                                                y = af_packet on vy
#   ns B  vb 10.77.0.3 ==veth== vy
#
# While A sends RoCEv2 (UDP 4791) frames to B and UDP to port 9999, it
# pings S: the pings are answered by S's kernel (XDP_PASS), the RoCEv2
# frames cross ibex to B (XDP_REDIRECT to the AF_XDP socket), the 9999
# ones do not (the kernel of S gets them, and S does not route). B's frames
# are captured by a raw socket and decoded with tshark.
# Skips (77) where the kernel or DPDK lacks what it needs.
#
#   test_xdp_steer.sh IBEX_SWITCH IBEX_PCAPGEN XDP_STEER.O
set -uo pipefail
sw=$1 prog=$3
N=200
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; [ -f "$tmp/switch.log" ] && tail -20 "$tmp/switch.log" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || skip "needs root (network namespaces)"
command -v tshark >/dev/null || skip "tshark not installed"
ls /usr/lib/*/dpdk/pmds-*/librte_net_af_xdp.so* >/dev/null 2>&1 ||
	skip "DPDK's net_af_xdp PMD is not installed"
tmp=$(mktemp -d /tmp/ibex-xdp.XXXXXX)
A=ixa$$ S=ixs$$ B=ixb$$
swpid=""
cleanup() {
	[ -n "$swpid" ] && kill -INT "$swpid" 2>/dev/null && wait "$swpid" 2>/dev/null
	ip netns del "$A" 2>/dev/null
	ip netns del "$S" 2>/dev/null
	ip netns del "$B" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
ip netns add "$A" && ip netns add "$S" && ip netns add "$B" ||
	skip "cannot create network namespaces"
ip link add vx netns "$S" type veth peer name va netns "$A" &&
	ip link add vy netns "$S" type veth peer name vb netns "$B" ||
	skip "cannot create veth pairs"
for x in "$A va 10.77.0.1" "$S vx 10.77.0.2" "$B vb 10.77.0.3"; do
	set -- $x
	ip -n "$1" addr add "$3/24" dev "$2"
	ip -n "$1" link set "$2" up
	ip -n "$1" link set lo up
done
ip -n "$S" link set vy up
# A and B are on one segment through ibex, which steers no ARP: static
# neighbours.
mac() { ip -n "$1" -br link show "$2" | awk '{print $3}'; }
ip -n "$A" neigh replace 10.77.0.3 lladdr "$(mac "$B" vb)" dev va
ip -n "$B" neigh replace 10.77.0.1 lladdr "$(mac "$A" va)" dev vb
ip netns exec "$S" sysctl -qw net.ipv4.ip_forward=0

cat >"$tmp/switch.conf" <<EOF
port x dev net_af_xdp0
port y dev net_af_packet0
EOF
ip netns exec "$S" "$sw" -l 0-1 --no-huge -m 512 --no-pci \
	--file-prefix="ibexxdp$$" --log-level='lib.*:notice' \
	--vdev "net_af_xdp0,iface=vx,xdp_prog=$prog" \
	--vdev "net_af_packet0,iface=vy" \
	-- --config "$tmp/switch.conf" --duration 600 >"$tmp/switch.log" 2>&1 &
swpid=$!
# Up when the program is attached and the worker polls.
for _ in $(seq 1 120); do
	if ! kill -0 "$swpid" 2>/dev/null; then
		wait "$swpid"; swpid=""
		grep -qiE "xdp|xsk|af_xdp|bpf" "$tmp/switch.log" &&
			{ tail -5 "$tmp/switch.log"; skip "af_xdp/XDP not usable here (kernel or driver support)"; }
		fail "ibex-switch exited"
	fi
	ip -n "$S" link show vx | grep -q "prog/xdp" &&
		grep -q "polls" "$tmp/switch.log" && break
	sleep 0.5
done
ip -n "$S" link show vx | grep -q "prog/xdp" || fail "no XDP program on vx"
ip -n "$S" link show vx | grep "prog/xdp"

# B: capture what arrives (a raw socket, ready before A sends).
ip netns exec "$B" python3 - "$tmp/b.pcap" "$N" >"$tmp/rx.log" 2>&1 <<'PY' &
import socket, struct, sys, time
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
s.bind(("vb", 0))
s.settimeout(0.5)
open(sys.argv[1] + ".ready", "w").close()
out = open(sys.argv[1], "wb")
out.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
want, got, end = int(sys.argv[2]), 0, time.time() + 60
while got < want and time.time() < end:
    try:
        fr, addr = s.recvfrom(65535)
    except socket.timeout:
        continue
    if addr[2] == socket.PACKET_OUTGOING:
        continue
    out.write(struct.pack("<IIII", int(time.time()), 0, len(fr), len(fr)) + fr)
    if len(fr) >= 42 and fr[12:14] == b"\x08\x00" and fr[36:38] == b"\x12\xb7":
        got += 1
out.close()
PY
rxpid=$!
for _ in $(seq 1 60); do [ -f "$tmp/b.pcap.ready" ] && break; sleep 0.5; done

# A: RoCEv2 (a BTH: SEND ONLY, dest QP 0x150) and UDP 9999, and pings to S.
ip netns exec "$A" python3 - "$N" <<'PY' || fail "sender"
import socket, struct, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(int(sys.argv[1])):
    bth = struct.pack("!BBHII", 0x04, 0x40, 0xffff, 0x150, i) + bytes(36)
    s.sendto(bth, ("10.77.0.3", 4791))
    s.sendto(bytes(48), ("10.77.0.3", 9999))
    time.sleep(0.001)
PY
ip netns exec "$A" ping -c 5 -i 0.2 -W 2 10.77.0.2 >"$tmp/ping.log" 2>&1 ||
	{ cat "$tmp/ping.log"; fail "S's kernel did not answer ICMP with ibex on its interface"; }
echo "ok: $(grep -o '[0-9]* received' "$tmp/ping.log") of 5 pings answered by the host's stack"
wait "$rxpid"
roce=$(tshark -r "$tmp/b.pcap" -Y 'udp.dstport == 4791 && infiniband.bth.destqp == 0x150' 2>/dev/null | wc -l)
other=$(tshark -r "$tmp/b.pcap" -Y 'udp.dstport == 9999' 2>/dev/null | wc -l)
icmp=$(tshark -r "$tmp/b.pcap" -Y 'icmp' 2>/dev/null | wc -l)
[ "$roce" -eq "$N" ] || fail "B got $roce RoCEv2 frames through ibex, want $N"
echo "ok: B got all $N RoCEv2 frames through ibex (tshark: infiniband)"
[ "$other" -eq 0 ] || fail "B got $other UDP 9999 frames: they should stay with S's kernel"
[ "$icmp" -eq 0 ] || fail "B saw $icmp ICMP frames: they should stay with S's kernel"
echo "ok: UDP 9999 and ICMP stayed with the host's kernel"
kill -INT "$swpid"; wait "$swpid"; swpid=""
grep -A3 "^port" "$tmp/switch.log"
echo "PASS"
