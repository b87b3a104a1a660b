/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_REASON_H
#define IBEX_REASON_H

/**
 * @file
 * Every reason ibex drops or diverts a frame, in one list.
 *
 * The list is an X-macro so the enum, the counter arrays, the telemetry
 * names and the help text can never disagree: adding a reason is one line
 * here. Each entry is X(NAME, "short-name", "what it means"). The ones
 * before SRC_MCAST are ibex_pkt_parse()'s verdicts (lib/pkt).
 */

#define IBEX_REASONS(X) \
	X(RUNT,         "runt",          "frame shorter than an Ethernet header") \
	X(VLAN_TRUNC,   "vlan-trunc",    "802.1Q/802.1ad tag truncated") \
	X(IP4_TRUNC,    "ip4-trunc",     "IPv4 header truncated") \
	X(IP4_VERSION,  "ip4-version",   "IPv4 EtherType with version != 4") \
	X(IP4_IHL,      "ip4-ihl",       "IPv4 header length < 20 or beyond the frame") \
	X(IP4_TOTLEN,   "ip4-totlen",    "IPv4 total length < header or beyond the frame") \
	X(IP6_TRUNC,    "ip6-trunc",     "IPv6 header truncated") \
	X(IP6_VERSION,  "ip6-version",   "IPv6 EtherType with version != 6") \
	X(IP6_PAYLEN,   "ip6-paylen",    "IPv6 payload length beyond the frame") \
	X(UDP_TRUNC,    "udp-trunc",     "UDP header truncated") \
	X(UDP_LEN,      "udp-len",       "UDP length < 8 or beyond the IP payload") \
	X(BTH_TRUNC,    "bth-trunc",     "RoCEv2 BTH truncated") \
	X(QINQ_CTL,     "qinq-ctl",      "flow-control (0x8808, 0x88B5) or management (RoCEv2 QP 0) frame behind two VLAN tags (never relayed)") \
	X(VLAN_DEPTH,   "vlan-depth",    "more than two VLAN tags") \
	X(SRC_MCAST,    "src-mcast",     "source MAC is multicast or broadcast") \
	X(VLAN_INGRESS, "vlan-ingress",  "VLAN is not allowed on the ingress port") \
	X(SAME_PORT,    "same-port",     "destination is on the ingress port (filtered)") \
	X(NO_EGRESS,    "no-egress",     "flood domain has no other port") \
	X(PORT_DOWN,    "port-down",     "egress port is administratively down") \
	X(TX_FULL,      "tx-full",       "egress TX queue and buffer full") \
	X(SL_DROP,      "sl-drop",       "SL maps to VL15 in the SL->VL table") \
	X(VL15_UNTRUSTED, "vl15-untrusted", "management VL15 frame on an untrusted port") \
	X(VL15_RATE,    "vl15-rate",     "management VL15 frame over the rate limit") \
	X(LOSSY_FULL,   "lossy-full",    "lossy VL buffer full (tail drop)") \
	X(FC_VIOLATION, "fc-violation",  "lossless frame beyond the flow-control budget (peer violated credits/PFC)") \
	X(FC_FRAME_BAD, "fc-frame-bad",  "malformed flow-control (credit or PFC) frame") \
	X(WATCHDOG,     "watchdog",      "dropped by the PFC watchdog while a lane was stormed") \
	X(MTU,          "mtu",           "frame longer than the port's MTU allows (ingress or egress port)") \
	X(SEG_HDR,      "seg-hdr",       "headers split over mbuf segments and not movable into the first") \
	X(FC_IGNORED,   "fc-ignored",    "valid PAUSE/PFC/credit frame the port's fc mode does not act on (consumed)") \
	X(LINK_LOCAL,   "link-local",    "frame to the 802.1Q reserved group 01:80:C2:00:00:0X (never relayed)") \
	X(BPF_DROP,     "bpf-drop",      "the port's eBPF classifier returned drop") \
	X(FLOOD_OFF,    "flood-off",     "frame to flood (broadcast, multicast, unknown unicast) arrived on a port with flood off") \
	X(POOL_LOW,     "pool-low",      "data frame refused while the mbuf pool was nearly empty, to keep mbufs for flow-control frames") \
	X(LINK_RESET,   "link-reset",    "frame TX had not taken when the link went down, dropped as CBFC started its counters again") \
	X(AGG_PORT,     "agg-port",      "aggregation packet on a port that is not its child's (contribution) or the parent's (result)") \
	X(AGG_SHAPE,    "agg-shape",     "aggregation packet the switch cannot take: IPv4 options or more than one mbuf segment") \
	X(AGG_STEER,    "agg-steer",     "aggregation packet lost: the ring to the worker that owns its slot was full") \
	X(AGG_NOBUF,    "agg-nobuf",     "aggregation result not sent to a child: no mbuf for its copy")

enum ibex_reason {
	IBEX_R_OK = 0,
#define IBEX_REASON_ENUM(name, str, help) IBEX_R_##name,
	IBEX_REASONS(IBEX_REASON_ENUM)
#undef IBEX_REASON_ENUM
	IBEX_R_MAX
};

/** Short name of a reason ("runt", ...), for telemetry and tables. */
static inline const char *
ibex_reason_name(unsigned int r)
{
	static const char *const names[IBEX_R_MAX] = {
		[IBEX_R_OK] = "ok",
#define IBEX_REASON_NAME(name, str, help) [IBEX_R_##name] = str,
		IBEX_REASONS(IBEX_REASON_NAME)
#undef IBEX_REASON_NAME
	};
	return r < IBEX_R_MAX ? names[r] : "?";
}

/** One-line explanation of a reason. */
static inline const char *
ibex_reason_help(unsigned int r)
{
	static const char *const help[IBEX_R_MAX] = {
		[IBEX_R_OK] = "not dropped",
#define IBEX_REASON_HELP(name, str, h) [IBEX_R_##name] = h,
		IBEX_REASONS(IBEX_REASON_HELP)
#undef IBEX_REASON_HELP
	};
	return r < IBEX_R_MAX ? help[r] : "?";
}

#endif /* IBEX_REASON_H */
