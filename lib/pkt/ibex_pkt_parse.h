/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_PKT_PARSE_H
#define IBEX_PKT_PARSE_H

/*
 * ibex_pkt_parse() and its helpers, inline: parse runs once per received
 * frame, and inlined into the worker loop its result stays in registers
 * instead of making a round trip through a struct on the stack (whose
 * narrow stores and wide loads stall store-to-load forwarding).
 * Included by ibex_pkt.h; not a public header of its own.
 *
 * Written as straight-line code: every check is a compare against a length
 * already in a register, error exits are marked unlikely so the valid
 * RoCEv2/IPv4 path is one fall-through sequence, and only header bytes are
 * read. Multi-byte fields are read byte by byte in network order, which
 * needs no alignment and compiles to a load plus a byte swap.
 */

#include <string.h>

#include "ibex_common.h"

#define IBEX_PP_IP4_HDR_LEN	20
#define IBEX_PP_IP6_HDR_LEN	40
#define IBEX_PP_UDP_HDR_LEN	8
#define IBEX_PP_IPPROTO_UDP	17
#define IBEX_PP_IP4_MF	0x2000
#define IBEX_PP_IP4_FRAG_OFF	0x1fff

/* A big-endian 16-bit field: one unaligned load and a byte swap (two
 * instructions) rather than two byte loads, a shift and an or. */
static inline __attribute__((always_inline)) uint16_t
ibex_rd16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	v = __builtin_bswap16(v);
#endif
	return v;
}

/*
 * The checks, shared by ibex_pkt_parse() and ibex_pkt_check(), which differ
 * only in what they keep.
 *
 * UDP at @p off and, on port 4791, the BTH. @p end is where the IP payload
 * ends (never beyond the frame). @p udp_max bounds the UDP length field:
 * the IP payload, except for a first fragment, whose UDP length covers the
 * whole datagram. *@p bth is the BTH's offset on port 4791 (set before the
 * BTH is checked), else 0.
 */
static inline __attribute__((always_inline)) enum ibex_reason
ibex_pp_udp(const uint8_t *p, uint32_t off, uint32_t end, uint32_t udp_max,
	    uint32_t *bth)
{
	uint32_t ulen, lim;

	*bth = 0;
	if (ibex_unlikely(off + IBEX_PP_UDP_HDR_LEN > end))
		return IBEX_R_UDP_TRUNC;
	ulen = ibex_rd16(p + off + 4);
	if (ibex_unlikely(ulen < IBEX_PP_UDP_HDR_LEN || ulen > udp_max))
		return IBEX_R_UDP_LEN;
	if (ibex_rd16(p + off + 2) != IBEX_UDP_PORT_ROCEV2)
		return IBEX_R_OK;
	/* The BTH must lie inside both the UDP datagram and the frame. */
	lim = off + ulen < end ? off + ulen : end;
	*bth = off + IBEX_PP_UDP_HDR_LEN;
	if (ibex_unlikely(*bth + IBEX_BTH_LEN > lim))
		return IBEX_R_BTH_TRUNC;
	return IBEX_R_OK;
}

/* The IPv4 header at @p ip with @p avail bytes: its length and the
 * datagram's. A plain header (0x45) costs one compare for both version
 * and length. Ethernet pads short frames: bytes beyond totlen are fine. */
static inline __attribute__((always_inline)) enum ibex_reason
ibex_pp_ip4(const uint8_t *ip, uint32_t avail, uint32_t *hlen,
	    uint32_t *totlen)
{
	*hlen = IBEX_PP_IP4_HDR_LEN;
	if (ibex_unlikely(avail < IBEX_PP_IP4_HDR_LEN))
		return IBEX_R_IP4_TRUNC;
	if (ibex_unlikely(ip[0] != 0x45)) {
		if ((ip[0] >> 4) != 4)
			return IBEX_R_IP4_VERSION;
		*hlen = (ip[0] & 0xf) * 4u;
		if (*hlen < IBEX_PP_IP4_HDR_LEN || *hlen > avail)
			return IBEX_R_IP4_IHL;
	}
	*totlen = ibex_rd16(ip + 2);
	if (ibex_unlikely(*totlen < *hlen || *totlen > avail))
		return IBEX_R_IP4_TOTLEN;
	return IBEX_R_OK;
}

/* The IPv6 header at @p ip with @p avail bytes and its payload length. */
static inline __attribute__((always_inline)) enum ibex_reason
ibex_pp_ip6(const uint8_t *ip, uint32_t avail, uint32_t *paylen)
{
	if (ibex_unlikely(avail < IBEX_PP_IP6_HDR_LEN))
		return IBEX_R_IP6_TRUNC;
	if (ibex_unlikely((ip[0] >> 4) != 6))
		return IBEX_R_IP6_VERSION;
	*paylen = ibex_rd16(ip + 4);
	if (ibex_unlikely(*paylen > avail - IBEX_PP_IP6_HDR_LEN))
		return IBEX_R_IP6_PAYLEN;
	return IBEX_R_OK;
}

/* Where L3 would start behind two tags. */
#define IBEX_PP_QINQ_L3 (IBEX_ETHER_HDR_LEN + 2 * IBEX_VLAN_HDR_LEN)

/*
 * A frame with a second tag: the EtherType after the first one is 0x8100
 * or 0x88A8 (802.1ad S+C, or C+C). ibex forwards it by its outer tag and
 * carries the rest as payload; but a device that pops the outer tag hands
 * the next switch what lies behind it, so what must never be relayed is
 * looked for there too:
 *
 *   - flow control (MAC control 0x8808, credit 0x88B5) and RoCEv2 to
 *     QP 0 (management) behind the second tag: IBEX_R_QINQ_CTL;
 *   - a third tag (nothing is looked into beyond it): IBEX_R_VLAN_DEPTH;
 *   - the second tag cut short: IBEX_R_VLAN_TRUNC.
 *
 * IBEX_R_OK for anything else, inner IP that fails ibex's checks included
 * (payload here; a switch checking it the same way after a pop drops it).
 * Out of line and cold (unused where nothing parses): only doubly tagged
 * frames come here, so the untagged and singly tagged paths pay two
 * compares at most.
 */
static __attribute__((noinline, cold, unused)) enum ibex_reason
ibex_pp_qinq(const uint8_t *p, uint32_t len)
{
	const uint32_t l3 = IBEX_PP_QINQ_L3;
	const uint8_t *ip = p + l3;
	uint32_t hlen, totlen = 0, paylen = 0, off, end, udp_max, bth;
	uint16_t et, frag;

	if (len < l3)
		return IBEX_R_VLAN_TRUNC;
	et = ibex_rd16(p + l3 - 2);
	if (et == IBEX_ETHERTYPE_VLAN || et == IBEX_ETHERTYPE_QINQ)
		return IBEX_R_VLAN_DEPTH;
	if (et == IBEX_ETHERTYPE_MACCTL || et == IBEX_ETHERTYPE_IBEXFC)
		return IBEX_R_QINQ_CTL;
	if (et == IBEX_ETHERTYPE_IPV4) {
		if (ibex_pp_ip4(ip, len - l3, &hlen, &totlen) != IBEX_R_OK)
			return IBEX_R_OK;
		frag = ibex_rd16(ip + 6);
		if ((frag & IBEX_PP_IP4_FRAG_OFF) != 0 ||
		    ip[9] != IBEX_PP_IPPROTO_UDP)
			return IBEX_R_OK;
		off = l3 + hlen;
		end = l3 + totlen;
		udp_max = (frag & IBEX_PP_IP4_MF) ? UINT16_MAX : totlen - hlen;
	} else if (et == IBEX_ETHERTYPE_IPV6) {
		if (ibex_pp_ip6(ip, len - l3, &paylen) != IBEX_R_OK ||
		    ip[6] != IBEX_PP_IPPROTO_UDP)
			return IBEX_R_OK;
		off = l3 + IBEX_PP_IP6_HDR_LEN;
		end = off + paylen;
		udp_max = paylen;
	} else {
		return IBEX_R_OK;
	}
	if (ibex_pp_udp(p, off, end, udp_max, &bth) != IBEX_R_OK || bth == 0)
		return IBEX_R_OK;
	/* BTH bytes 5-7: the 24-bit destination QP. */
	if ((p[bth + 5] | p[bth + 6] | p[bth + 7]) == 0)
		return IBEX_R_QINQ_CTL;
	return IBEX_R_OK;
}

static inline __attribute__((always_inline)) enum ibex_reason
ibex_parse_udp(const uint8_t *p, uint32_t off, uint32_t end, uint32_t udp_max,
	  struct ibex_pkt_info *info)
{
	uint32_t bth;
	enum ibex_reason r;

	info->l4_off = off;
	r = ibex_pp_udp(p, off, end, udp_max, &bth);
	if (r == IBEX_R_UDP_TRUNC || r == IBEX_R_UDP_LEN)
		return r;
	info->flags |= IBEX_PKT_F_UDP;
	if (bth == 0) {
		if (ibex_rd16(p + off + 2) == IBEX_UDP_PORT_AGG)
			info->flags |= IBEX_PKT_F_AGG;
		return IBEX_R_OK;
	}
	info->bth_off = bth;
	if (r != IBEX_R_OK)
		return r;
	info->flags |= IBEX_PKT_F_ROCE;
	return IBEX_R_OK;
}

static inline __attribute__((always_inline)) enum ibex_reason
ibex_parse_ip4(const uint8_t *p, uint32_t len, struct ibex_pkt_info *info)
{
	const uint8_t *ip = p + info->l3_off;
	uint32_t hlen, totlen = 0, end;
	enum ibex_reason r;
	uint16_t frag;

	info->l3 = IBEX_L3_IPV4;
	r = ibex_pp_ip4(ip, len - info->l3_off, &hlen, &totlen);
	if (r != IBEX_R_OK)
		return r;
	info->dscp = ip[1] >> 2;
	info->ecn = ip[1] & 3;
	info->l4_proto = ip[9];
	frag = ibex_rd16(ip + 6);
	if (ibex_unlikely((frag & IBEX_PP_IP4_FRAG_OFF) != 0)) {
		info->flags |= IBEX_PKT_F_FRAG;
		return IBEX_R_OK;
	}
	if (ip[9] != IBEX_PP_IPPROTO_UDP)
		return IBEX_R_OK;
	end = info->l3_off + totlen;
	return ibex_parse_udp(p, info->l3_off + hlen, end,
			 (frag & IBEX_PP_IP4_MF) ? UINT16_MAX : totlen - hlen, info);
}

static inline __attribute__((always_inline)) enum ibex_reason
ibex_parse_ip6(const uint8_t *p, uint32_t len, struct ibex_pkt_info *info)
{
	const uint8_t *ip = p + info->l3_off;
	uint32_t paylen = 0;
	enum ibex_reason r;
	uint8_t tc;

	info->l3 = IBEX_L3_IPV6;
	r = ibex_pp_ip6(ip, len - info->l3_off, &paylen);
	if (r != IBEX_R_OK)
		return r;
	tc = (uint8_t)((ip[0] << 4) | (ip[1] >> 4));
	info->dscp = tc >> 2;
	info->ecn = tc & 3;
	info->l4_proto = ip[6];
	/* Extension headers are not walked: such a frame just has no L4. */
	if (ip[6] != IBEX_PP_IPPROTO_UDP)
		return IBEX_R_OK;
	return ibex_parse_udp(p, info->l3_off + IBEX_PP_IP6_HDR_LEN,
			 info->l3_off + IBEX_PP_IP6_HDR_LEN + paylen, paylen, info);
}

static inline __attribute__((always_inline)) enum ibex_reason
ibex_pkt_parse(const void *frame, uint32_t len, struct ibex_pkt_info *info)
{
	const uint8_t *p = frame;
	uint16_t et, tci;

	memset(info, 0, sizeof(*info));
	if (ibex_unlikely(len < IBEX_ETHER_HDR_LEN))
		return IBEX_R_RUNT;
	info->flags = ibex_mac_is_group(p) ? IBEX_PKT_F_DMAC_GROUP : 0;
	info->l3_off = IBEX_ETHER_HDR_LEN;
	et = ibex_rd16(p + 12);
	/*
	 * One tag: 802.1Q, or an 802.1ad outer tag. Behind a second tag only
	 * ibex_pp_qinq() looks, for what must not be relayed; otherwise the
	 * frame is the outer tag's payload (ether_type says which tag it was).
	 */
	if (et == IBEX_ETHERTYPE_VLAN || et == IBEX_ETHERTYPE_QINQ) {
		if (ibex_unlikely(len < IBEX_ETHER_HDR_LEN + IBEX_VLAN_HDR_LEN))
			return IBEX_R_VLAN_TRUNC;
		tci = ibex_rd16(p + 14);
		et = ibex_rd16(p + 16);
		info->vid = tci & 0xfff;
		info->pcp = tci >> 13;
		info->flags |= IBEX_PKT_F_VLAN;
		info->l3_off += IBEX_VLAN_HDR_LEN;
		if (ibex_unlikely(et == IBEX_ETHERTYPE_VLAN ||
				  et == IBEX_ETHERTYPE_QINQ)) {
			enum ibex_reason r = ibex_pp_qinq(p, len);

			if (r != IBEX_R_OK)
				return r;
		}
	}
	info->ether_type = et;
	if (ibex_likely(et == IBEX_ETHERTYPE_IPV4))
		return ibex_parse_ip4(p, len, info);
	if (et == IBEX_ETHERTYPE_IPV6)
		return ibex_parse_ip6(p, len, info);
	if (et == IBEX_ETHERTYPE_MACCTL || et == IBEX_ETHERTYPE_IBEXFC)
		info->flags |= IBEX_PKT_F_FC;
	return IBEX_R_OK;
}

/*
 * The data path's check of a frame: the same verdict as ibex_pkt_parse()
 * (unit tests compare the two over every truncation and thousands of
 * corruptions) but only what forwarding needs, packed in one register
 * instead of a struct written in narrow stores:
 *
 *   bits 0-7    enum ibex_reason (IBEX_R_OK = 0)
 *   bits 8-15   IBEX_PKT_F_* (valid with IBEX_R_OK)
 *   bits 16-31  BTH offset (valid with IBEX_PKT_F_ROCE), UDP header
 *               offset (valid with IBEX_PKT_F_AGG)
 */
#define IBEX_PKT_CHECK_REASON(c) ((enum ibex_reason)((c) & 0xff))
#define IBEX_PKT_CHECK_FLAGS(c) (((c) >> 8) & 0xff)
#define IBEX_PKT_CHECK_BTH(c) ((c) >> 16)

static inline __attribute__((always_inline)) uint32_t
ibex_pkt_check_udp(const uint8_t *p, uint32_t off, uint32_t end,
		   uint32_t udp_max, uint32_t flags)
{
	uint32_t bth;
	enum ibex_reason r = ibex_pp_udp(p, off, end, udp_max, &bth);

	if (ibex_unlikely(r != IBEX_R_OK))
		return r;
	flags |= IBEX_PKT_F_UDP;
	if (bth != 0)
		flags |= IBEX_PKT_F_ROCE;
	else if (ibex_unlikely(ibex_rd16(p + off + 2) == IBEX_UDP_PORT_AGG))
		return (flags | IBEX_PKT_F_AGG) << 8 | off << 16;
	return flags << 8 | bth << 16;
}

static inline __attribute__((always_inline)) uint32_t
ibex_pkt_check_ip4(const uint8_t *p, uint32_t len, uint32_t l3,
		   uint32_t flags)
{
	const uint8_t *ip = p + l3;
	uint32_t hlen, totlen = 0;
	enum ibex_reason r = ibex_pp_ip4(ip, len - l3, &hlen, &totlen);
	uint16_t frag;

	if (ibex_unlikely(r != IBEX_R_OK))
		return r;
	frag = ibex_rd16(ip + 6);
	if (ibex_unlikely((frag & IBEX_PP_IP4_FRAG_OFF) != 0))
		return (flags | IBEX_PKT_F_FRAG) << 8;
	if (ip[9] != IBEX_PP_IPPROTO_UDP)
		return flags << 8;
	return ibex_pkt_check_udp(p, l3 + hlen, l3 + totlen,
				  (frag & IBEX_PP_IP4_MF) ? UINT16_MAX :
							    totlen - hlen,
				  flags);
}

static inline __attribute__((always_inline)) uint32_t
ibex_pkt_check_ip6(const uint8_t *p, uint32_t len, uint32_t l3,
		   uint32_t flags)
{
	const uint8_t *ip = p + l3;
	uint32_t paylen = 0;
	enum ibex_reason r = ibex_pp_ip6(ip, len - l3, &paylen);

	if (ibex_unlikely(r != IBEX_R_OK))
		return r;
	if (ip[6] != IBEX_PP_IPPROTO_UDP)
		return flags << 8;
	return ibex_pkt_check_udp(p, l3 + IBEX_PP_IP6_HDR_LEN,
				  l3 + IBEX_PP_IP6_HDR_LEN + paylen, paylen,
				  flags);
}

/* The shortest IPv4 packet the short cut takes: headers and a BTH. */
#define IBEX_PP_ROCE4_MIN \
	(IBEX_PP_IP4_HDR_LEN + IBEX_PP_UDP_HDR_LEN + IBEX_BTH_LEN)

/*
 * The shape nearly every frame on a RoCE fabric has: IPv4 with a 20-byte
 * header, not a fragment, UDP to port 4791 and a whole BTH, checked with
 * three 8-byte loads, three field compares and two range compares of the
 * lengths. Its answer is the one the general checks give for such a frame
 * (the unit tests compare them over every truncation and corruption and a
 * sweep around the shape); for any other frame it says UINT32_MAX and the
 * general checks decide.
 */
static inline __attribute__((always_inline)) uint32_t
ibex_pkt_check_roce4(const uint8_t *p, uint32_t len, uint32_t l3,
		     uint32_t flags)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* ip[0] = 0x45; ip[6..7] (flags, offset) without MF and offset. */
	const uint64_t ip_mask = UINT64_C(0xff3f0000000000ff);
	const uint32_t min_ip = IBEX_PP_ROCE4_MIN;
	const uint8_t *ip = p + l3;
	uint64_t w0, w1, udp;
	uint32_t totlen, ulen;

	if (ibex_unlikely(len < l3 + min_ip))
		return UINT32_MAX;
	memcpy(&w0, ip, sizeof(w0));
	memcpy(&w1, ip + 8, sizeof(w1));
	memcpy(&udp, ip + IBEX_PP_IP4_HDR_LEN, sizeof(udp));
	if (ibex_unlikely((w0 & ip_mask) != 0x45 ||
			  (uint8_t)(w1 >> 8) != IBEX_PP_IPPROTO_UDP ||
			  (uint16_t)(udp >> 16) !=
				  __builtin_bswap16(IBEX_UDP_PORT_ROCEV2)))
		return UINT32_MAX;
	totlen = __builtin_bswap16((uint16_t)(w0 >> 16));
	ulen = __builtin_bswap16((uint16_t)(udp >> 32));
	/* min_ip <= totlen <= what the frame holds, and the UDP length
	 * covers header and BTH yet stays inside the IP payload. */
	if (ibex_unlikely(totlen - min_ip > len - l3 - min_ip ||
			  ulen - (min_ip - IBEX_PP_IP4_HDR_LEN) >
				  totlen - min_ip))
		return UINT32_MAX;
	flags |= IBEX_PKT_F_UDP | IBEX_PKT_F_ROCE;
	return flags << 8 |
	       (l3 + IBEX_PP_IP4_HDR_LEN + IBEX_PP_UDP_HDR_LEN) << 16;
#else
	(void)p; (void)len; (void)l3; (void)flags;
	return UINT32_MAX;
#endif
}

/* ibex_pkt_check() for any frame: the general checks, after the short
 * cut for an untagged frame (tried by the caller) and for a tagged one. */
static inline __attribute__((always_inline)) uint32_t
ibex_pkt_check_l2(const uint8_t *p, uint32_t len)
{
	uint32_t flags, l3 = IBEX_ETHER_HDR_LEN;
	uint16_t et;

	if (ibex_unlikely(len < IBEX_ETHER_HDR_LEN))
		return IBEX_R_RUNT;
	flags = ibex_mac_is_group(p) ? IBEX_PKT_F_DMAC_GROUP : 0;
	et = ibex_rd16(p + 12);
	if (et == IBEX_ETHERTYPE_VLAN || et == IBEX_ETHERTYPE_QINQ) {
		if (ibex_unlikely(len < IBEX_ETHER_HDR_LEN + IBEX_VLAN_HDR_LEN))
			return IBEX_R_VLAN_TRUNC;
		et = ibex_rd16(p + 16);
		flags |= IBEX_PKT_F_VLAN;
		l3 += IBEX_VLAN_HDR_LEN;
		if (ibex_likely(et == IBEX_ETHERTYPE_IPV4)) {
			uint32_t r = ibex_pkt_check_roce4(p, len, l3, flags);

			if (ibex_likely(r != UINT32_MAX))
				return r;
		} else if (ibex_unlikely(et == IBEX_ETHERTYPE_VLAN ||
					 et == IBEX_ETHERTYPE_QINQ)) {
			enum ibex_reason r = ibex_pp_qinq(p, len);

			if (r != IBEX_R_OK)
				return r;
		}
	}
	if (et == IBEX_ETHERTYPE_IPV4)
		return ibex_pkt_check_ip4(p, len, l3, flags);
	if (et == IBEX_ETHERTYPE_IPV6)
		return ibex_pkt_check_ip6(p, len, l3, flags);
	if (et == IBEX_ETHERTYPE_MACCTL || et == IBEX_ETHERTYPE_IBEXFC)
		flags |= IBEX_PKT_F_FC;
	return flags << 8;
}

/*
 * The short cut for an untagged frame, whose L3 offset is a constant: the
 * length and offset arithmetic folds away. UINT32_MAX for any other frame.
 * A caller that branches on it knows the flags and BTH offset of the
 * frames that pass (all but the group bit): the data path keeps a copy of
 * its forwarding code for them alone.
 */
static inline __attribute__((always_inline)) uint32_t
ibex_pkt_check_roce4_untagged(const uint8_t *p, uint32_t len)
{
	/* One length test for both: shorter frames are not the shape. */
	if (ibex_likely(len >= IBEX_ETHER_HDR_LEN + IBEX_PP_ROCE4_MIN &&
			ibex_rd16(p + 12) == IBEX_ETHERTYPE_IPV4))
		return ibex_pkt_check_roce4(p, len, IBEX_ETHER_HDR_LEN,
					    ibex_mac_is_group(p) ?
					    IBEX_PKT_F_DMAC_GROUP : 0);
	return UINT32_MAX;
}

static inline __attribute__((always_inline)) uint32_t
ibex_pkt_check(const void *frame, uint32_t len)
{
	uint32_t r = ibex_pkt_check_roce4_untagged(frame, len);

	if (ibex_likely(r != UINT32_MAX))
		return r;
	return ibex_pkt_check_l2(frame, len);
}

#endif /* IBEX_PKT_PARSE_H */
