/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * XDP steering for an ibex port on net_af_xdp: only what ibex switches
 * goes to its AF_XDP socket, everything else to the kernel, so ibex can
 * share a host's only NIC (SSH, ARP, ICMP keep working).
 *
 * Redirected to ibex (the xsks_map entry of the receive queue):
 *   - RoCEv2: UDP destination port 4791, over IPv4 or IPv6;
 *   - 802.3x / 802.1Qbb MAC control (PFC), EtherType 0x8808;
 *   - ibex credit flow control, EtherType 0x88B5;
 *   - the UDP ports and EtherTypes named at build time:
 *       clang ... -DIBEX_XDP_UDP_PORTS=5201,9000 -DIBEX_XDP_ETHERTYPES=0x9000
 * each behind at most one 802.1Q / 802.1ad tag. Everything else passes.
 *
 * The af_xdp PMD of DPDK 22.11 loads it with the devarg xdp_prog=FILE and
 * fills the map it requires, "xsks_map" (BPF_MAP_TYPE_XSKMAP, key: queue
 * index), with its sockets (docs/bpf.md):
 *   --vdev net_af_xdp0,iface=eth0,xdp_prog=/usr/share/ibex/bpf/xdp_steer.o
 * A queue without a socket in the map passes its frames to the kernel too
 * (bpf_redirect_map()'s fallback), so nothing is lost to a missing entry.
 */

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#ifndef IBEX_XDP_UDP_PORTS
#define IBEX_XDP_UDP_PORTS 4791
#else
#define IBEX_XDP_UDP_PORTS_ALL 4791, IBEX_XDP_UDP_PORTS
#endif
#ifndef IBEX_XDP_UDP_PORTS_ALL
#define IBEX_XDP_UDP_PORTS_ALL IBEX_XDP_UDP_PORTS
#endif
#ifndef IBEX_XDP_ETHERTYPES
#define IBEX_XDP_ETHERTYPES_ALL 0x8808, 0x88B5
#else
#define IBEX_XDP_ETHERTYPES_ALL 0x8808, 0x88B5, IBEX_XDP_ETHERTYPES
#endif

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u32);
} xsks_map SEC(".maps");

struct vlan_hdr {
	__be16 tci;
	__be16 proto;
};

static __always_inline int
listed(__u16 v, const __u16 *list, int n)
{
	int i;

#pragma unroll
	for (i = 0; i < n; i++)
		if (v == list[i])
			return 1;
	return 0;
}

static __always_inline int
udp_steered(const struct udphdr *udp)
{
	const __u16 ports[] = { IBEX_XDP_UDP_PORTS_ALL };

	return listed(bpf_ntohs(udp->dest), ports,
		      sizeof(ports) / sizeof(ports[0]));
}

static __always_inline int
steered(void *data, void *end)
{
	const __u16 types[] = { IBEX_XDP_ETHERTYPES_ALL };
	struct ethhdr *eth = data;
	void *l3 = eth + 1;
	__u16 proto;

	if (l3 > end)
		return 0;
	proto = bpf_ntohs(eth->h_proto);
	if (proto == ETH_P_8021Q || proto == ETH_P_8021AD) {
		struct vlan_hdr *vh = l3;

		if ((void *)(vh + 1) > end)
			return 0;
		proto = bpf_ntohs(vh->proto);
		l3 = vh + 1;
	}
	if (listed(proto, types, sizeof(types) / sizeof(types[0])))
		return 1;
	if (proto == ETH_P_IP) {
		struct iphdr *ip = l3;
		struct udphdr *udp;

		if ((void *)(ip + 1) > end || ip->protocol != IPPROTO_UDP ||
		    (ip->frag_off & bpf_htons(0x1fff)) != 0 || ip->ihl < 5)
			return 0;
		udp = (void *)ip + ip->ihl * 4;
		if ((void *)(udp + 1) > end)
			return 0;
		return udp_steered(udp);
	}
	if (proto == ETH_P_IPV6) {
		struct ipv6hdr *ip6 = l3;
		struct udphdr *udp = (void *)(ip6 + 1);

		if ((void *)(udp + 1) > end || ip6->nexthdr != IPPROTO_UDP)
			return 0;
		return udp_steered(udp);
	}
	return 0;
}

SEC("xdp")
int
xdp_steer(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;

	if (!steered(data, end))
		return XDP_PASS;
	return bpf_redirect_map(&xsks_map, ctx->rx_queue_index, XDP_PASS);
}

char _license[] SEC("license") = "Dual BSD/GPL";
