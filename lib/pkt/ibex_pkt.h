/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_PKT_H
#define IBEX_PKT_H

/**
 * @file
 * Bounds-checked parsing and building of the headers ibex switches on:
 * Ethernet, one 802.1Q tag, IPv4 (with options), IPv6, UDP and the RoCEv2
 * Base Transport Header (UDP port 4791).
 *
 * Pure logic: works on a byte buffer, never on an mbuf, never touches the
 * payload, and uses no EAL service. The data path passes the first segment
 * of an mbuf (rte_pktmbuf_mtod, data_len); for a frame in several segments
 * it passes the whole frame's length (pkt_len) once the first
 * IBEX_PKT_HDR_MAX bytes (or the whole frame, if shorter) are in the first
 * segment: parse and check read no byte beyond that offset, whatever
 * @p len says, and compare the length fields against @p len.
 *
 * Parse never reads beyond @p len. A frame that is too short or carries an
 * inconsistent header gets a named reason from ibex_reason.h; a frame that
 * is simply of a kind ibex does not look into (ARP, IPv6 extension headers,
 * non-first IPv4 fragments, what follows a second VLAN tag) is fine and
 * just parsed less deeply. Two exceptions, frames that are well formed but
 * must not be relayed: flow control or RoCEv2 to QP 0 behind a second tag
 * (IBEX_R_QINQ_CTL) and a third tag (IBEX_R_VLAN_DEPTH), because a device
 * that pops the outer tag would hand the next switch a frame it acts on.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ibex_reason.h"

#define IBEX_ETHER_HDR_LEN   14
#define IBEX_VLAN_HDR_LEN    4
#define IBEX_ETHERTYPE_IPV4  0x0800
#define IBEX_ETHERTYPE_IPV6  0x86DD
#define IBEX_ETHERTYPE_VLAN  0x8100
#define IBEX_ETHERTYPE_QINQ  0x88A8
#define IBEX_ETHERTYPE_MACCTL 0x8808 /**< MAC control (PFC) */
#define IBEX_ETHERTYPE_IBEXFC 0x88B5 /**< ibex credit flow control */
#define IBEX_UDP_PORT_ROCEV2 4791
/** ibex in-network aggregation (lib/agg's IBEX_AGG_UDP_PORT). */
#define IBEX_UDP_PORT_AGG    0xBEF0
#define IBEX_BTH_LEN         12
#define IBEX_ICRC_LEN        4
/**
 * Parse and check read no byte at or beyond this offset of a frame: the
 * deepest header they look into is a BTH after one tag, an IPv4 header
 * with 40 bytes of options and UDP (18 + 60 + 8 + 12 = 98 bytes).
 */
#define IBEX_PKT_HDR_MAX     128
#define IBEX_ETHERTYPE_LLDP  0x88CC
/** Smallest Ethernet frame without FCS. */
#define IBEX_ETHER_MIN_LEN   60

/** ECN codepoints (RFC 3168), the low two bits of the IPv4 TOS / IPv6 TC. */
enum ibex_ecn {
	IBEX_ECN_NOT_ECT = 0,
	IBEX_ECN_ECT1 = 1,
	IBEX_ECN_ECT0 = 2,
	IBEX_ECN_CE = 3,
};

enum ibex_l3 {
	IBEX_L3_NONE = 0,
	IBEX_L3_IPV4 = 4,
	IBEX_L3_IPV6 = 6,
};

#define IBEX_PKT_F_VLAN   0x01 /**< one 802.1Q tag parsed */
#define IBEX_PKT_F_UDP    0x02 /**< UDP header present and valid */
#define IBEX_PKT_F_ROCE   0x04 /**< RoCEv2: UDP dport 4791 and a full BTH */
#define IBEX_PKT_F_FRAG   0x08 /**< IPv4 non-first fragment: no L4 */
#define IBEX_PKT_F_DMAC_GROUP 0x10 /**< destination MAC is multicast/broadcast */
/** EtherType (after a tag, if any) of flow control: MAC control 0x8808
 * (802.3x PAUSE, 802.1Qbb PFC) or the ibex credit frame 0x88B5. Such a
 * frame is link-local: consumed by the receiving port, never relayed. */
#define IBEX_PKT_F_FC     0x20
/** UDP to port IBEX_UDP_PORT_AGG: an in-network aggregation packet
 * (docs/aggregation.md), for the switch itself when it aggregates that
 * job. Its UDP header is at l4_off (ibex_pkt_check(): bits 16-31). */
#define IBEX_PKT_F_AGG    0x40

/** What parse found. Offsets are from the start of the frame. */
struct ibex_pkt_info {
	uint16_t l3_off;     /**< first byte after Ethernet (+ tag) */
	uint16_t l4_off;     /**< UDP header, valid with IBEX_PKT_F_UDP */
	uint16_t bth_off;    /**< BTH, valid with IBEX_PKT_F_ROCE */
	uint16_t ether_type; /**< host order; the inner one when tagged */
	uint16_t vid;        /**< 802.1Q VID, 0 when untagged */
	uint8_t pcp;         /**< 802.1Q PCP, 0 when untagged */
	uint8_t flags;       /**< IBEX_PKT_F_* */
	uint8_t l3;          /**< enum ibex_l3 */
	uint8_t dscp;        /**< 6-bit DSCP, 0 without IP */
	uint8_t ecn;         /**< enum ibex_ecn, 0 without IP */
	uint8_t l4_proto;    /**< IPv4 protocol / IPv6 next header */
};

/* ibex_pkt_parse(): parse the headers of one frame.
 *
 * @param frame  first byte of the Ethernet header
 * @param len    bytes readable at @p frame
 * @param info   filled on success (and partly on failure)
 * @return IBEX_R_OK (0), or the ibex_reason that makes the frame malformed.
 *
 * Inline (see ibex_pkt_parse.h): it runs once per frame. */
static inline bool ibex_mac_is_group(const uint8_t *mac);
#include "ibex_pkt_parse.h"

/** Description of a frame to build (tests, pcap generator, generator). */
struct ibex_pkt_spec {
	uint8_t dst[6];
	uint8_t src[6];
	int vlan;            /**< VID 0..4095, or -1 for untagged */
	uint8_t pcp;         /**< used when tagged */
	uint8_t l3;          /**< IBEX_L3_NONE (raw ether_type), IPV4 or IPV6 */
	uint16_t ether_type; /**< for IBEX_L3_NONE */
	uint8_t dscp;
	uint8_t ecn;
	uint8_t ttl;         /**< hop limit; 0 means 64 */
	uint32_t src_ip4;    /**< host order */
	uint32_t dst_ip4;    /**< host order */
	uint8_t src_ip6[16];
	uint8_t dst_ip6[16];
	uint8_t ip4_opt_words; /**< IPv4 option length in 32-bit words (NOPs) */
	bool udp;            /**< add a UDP header (implied by roce) */
	uint16_t sport;
	uint16_t dport;      /**< forced to 4791 with roce */
	bool roce;           /**< add a BTH after UDP and a 4-byte ICRC at the end */
	uint8_t bth_opcode;
	uint32_t dest_qp;    /**< 24 bits */
	uint32_t psn;        /**< 24 bits */
	uint16_t pkey;       /**< 0 means 0xFFFF */
	bool fecn;
	uint32_t frame_len;  /**< total length without FCS; padded up to 60 and
				  to the headers' size */
};

/**
 * Build a frame from a spec into @p buf: headers, zero payload, valid IPv4
 * header checksum, UDP checksum (required for IPv6, 0 for IPv4).
 *
 * @return the frame length, or -EINVAL (bad spec) / -ENOSPC (@p cap too small).
 */
int ibex_pkt_build(void *buf, uint32_t cap, const struct ibex_pkt_spec *spec);

/** Offset of the payload after the headers of a built spec (probe trailers). */
uint32_t ibex_pkt_spec_hdr_len(const struct ibex_pkt_spec *spec);

/** True for a multicast/broadcast MAC (I/G bit). */
static inline bool
ibex_mac_is_group(const uint8_t *mac)
{
	return (mac[0] & 1) != 0;
}

/**
 * True for the IEEE 802.1Q reserved group 01:80:C2:00:00:00-0F (STP, PFC,
 * LACP, 802.1X, LLDP...): frames to it are link-local, and an 802.1Q
 * bridge never relays them.
 */
static inline bool
ibex_mac_is_reserved(const uint8_t *mac)
{
	return mac[0] == 0x01 && mac[1] == 0x80 && mac[2] == 0xC2 &&
	       mac[3] == 0 && mac[4] == 0 && (mac[5] & 0xF0) == 0;
}

/** BTH opcode (first byte). @p bth points at info->bth_off. */
static inline uint8_t
ibex_bth_opcode(const uint8_t *bth)
{
	return bth[0];
}

/** BTH destination QP (24 bits). */
static inline uint32_t
ibex_bth_dest_qp(const uint8_t *bth)
{
	return (uint32_t)bth[5] << 16 | (uint32_t)bth[6] << 8 | bth[7];
}

/** BTH packet sequence number (24 bits). */
static inline uint32_t
ibex_bth_psn(const uint8_t *bth)
{
	return (uint32_t)bth[9] << 16 | (uint32_t)bth[10] << 8 | bth[11];
}

/** BTH FECN bit (forward congestion notification). */
static inline bool
ibex_bth_fecn(const uint8_t *bth)
{
	return (bth[4] & 0x80) != 0;
}

/**
 * Set the BTH FECN bit. The ICRC is not updated: ibex does not maintain it
 * (built frames carry a zero ICRC).
 */
static inline void
ibex_bth_set_fecn(uint8_t *bth)
{
	bth[4] |= 0x80;
}

/** Parse "02:00:00:00:00:01" into 6 bytes. @return 0 or -EINVAL. */
int ibex_mac_parse(const char *s, uint8_t mac[6]);

/** Format a MAC as "02:00:00:00:00:01" into buf (>= 18 bytes). */
char *ibex_mac_format(const uint8_t mac[6], char *buf, size_t len);

/** RFC 1071 Internet checksum over @p len bytes, folded, not inverted. */
uint16_t ibex_csum_fold(const void *buf, uint32_t len, uint32_t sum);

/**
 * Set the ECN field of an IPv4 or IPv6 frame to @p ecn, updating the IPv4
 * header checksum incrementally (RFC 1624). No-op without IP.
 */
void ibex_pkt_set_ecn(void *frame, const struct ibex_pkt_info *info,
		      uint8_t ecn);

/** BTH opcode of a RoCEv2 CNP (congestion notification packet). */
#define IBEX_BTH_OP_CNP 0x81

/** Trim sizes (UEC packet trimming, as Spectrum switches take them). */
#define IBEX_TRIM_MIN 256
#define IBEX_TRIM_MAX 1024

/**
 * May a frame be trimmed (UEC packet trimming)? IP/UDP (RoCEv2 or not),
 * not a RoCEv2 CNP: the frames a trimming switch cuts, or, when no longer
 * than the trim size, moves whole to the trimmed frames' lane.
 */
bool ibex_pkt_trim_eligible(const void *frame, const struct ibex_pkt_info *info);

/**
 * UEC packet trimming: make the frame at @p frame (@p len bytes, parsed
 * into @p info) a @p new_len byte notice of itself: headers kept, the
 * payload cut, DSCP set to @p dscp (ECN kept), IPv4 total length and
 * checksum, IPv6 payload length and UDP length matching the trimmed frame,
 * and the UDP checksum 0 (RoCEv2 sends 0 over IPv4; a trimmed frame's
 * payload is gone, so no checksum of it could hold; over IPv6 a trimmed
 * frame is a notice to its receiver, not a datagram). The RoCEv2 ICRC is
 * not recomputed: the receiver knows a trimmed frame by its length and
 * DSCP. The caller shortens the buffer.
 * @return 0, or -EINVAL when the frame is not IP/UDP, already no longer
 * than @p new_len, a CNP, or @p new_len would cut a header.
 */
int ibex_pkt_trim(void *frame, uint32_t len, const struct ibex_pkt_info *info,
		  uint32_t new_len, uint8_t dscp);

#endif /* IBEX_PKT_H */
