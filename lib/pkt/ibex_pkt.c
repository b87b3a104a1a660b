/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Header parsing and frame building for ibex.
 *
 * Parse runs once per received frame, so it is written as straight-line
 * code: every check is a compare against a length already in a register,
 * error exits are marked unlikely so the compiler lays out the valid
 * RoCEv2/IPv4 path as one fall-through sequence, and only header bytes are
 * read. All multi-byte fields are read byte by byte in network order, which
 * needs no alignment and compiles to a load plus a byte swap.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ibex_common.h"
#include "ibex_pkt.h"

#define IP4_HDR_LEN	20
#define IP6_HDR_LEN	40
#define UDP_HDR_LEN	8
#define IPPROTO_UDP_	17
/* IANA "use for experimentation and testing" (RFC 3692): the protocol of
 * built IP frames that carry no UDP header. */
#define IPPROTO_EXP_	253
#define IP4_DF		0x4000
#define IP4_MF		0x2000
#define IP4_FRAG_OFF	0x1fff
#define IP4_MAX_OPT_WORDS 10

static inline uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

static inline void
wr16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

static inline void
wr24(uint8_t *p, uint32_t v)
{
	p[0] = (v >> 16) & 0xff;
	p[1] = (v >> 8) & 0xff;
	p[2] = v & 0xff;
}


uint16_t
ibex_csum_fold(const void *buf, uint32_t len, uint32_t sum)
{
	const uint8_t *p = buf;
	uint64_t s = sum;
	uint32_t i;

	for (i = 0; i + 1 < len; i += 2)
		s += rd16(p + i);
	if (len & 1)
		s += (uint32_t)p[len - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

void
ibex_pkt_set_ecn(void *frame, const struct ibex_pkt_info *info, uint8_t ecn)
{
	uint8_t *ip = (uint8_t *)frame + info->l3_off;
	uint16_t old, new;
	uint32_t sum;

	ecn &= 3;
	if (info->l3 == IBEX_L3_IPV4) {
		old = rd16(ip);
		ip[1] = (ip[1] & ~3) | ecn;
		new = rd16(ip);
		/* RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m') */
		sum = (uint16_t)~rd16(ip + 10) + (uint16_t)~old + new;
		sum = (sum & 0xffff) + (sum >> 16);
		sum = (sum & 0xffff) + (sum >> 16);
		wr16(ip + 10, (uint16_t)~sum);
	} else if (info->l3 == IBEX_L3_IPV6) {
		/* Traffic class bits 1..0 are bits 5..4 of the second byte. */
		ip[1] = (ip[1] & ~0x30) | (ecn << 4);
	}
}

bool
ibex_pkt_trim_eligible(const void *frame, const struct ibex_pkt_info *info)
{
	const uint8_t *f = frame;

	if (!(info->flags & IBEX_PKT_F_UDP) ||
	    (info->l3 != IBEX_L3_IPV4 && info->l3 != IBEX_L3_IPV6))
		return false;
	return !(info->flags & IBEX_PKT_F_ROCE) ||
	       f[info->bth_off] != IBEX_BTH_OP_CNP;
}

int
ibex_pkt_trim(void *frame, uint32_t len, const struct ibex_pkt_info *info,
	      uint32_t new_len, uint8_t dscp)
{
	uint8_t *f = frame, *ip = f + info->l3_off, *udp = f + info->l4_off;
	uint32_t hdr_end = (uint32_t)info->l4_off + UDP_HDR_LEN;

	if (!ibex_pkt_trim_eligible(frame, info) || len <= new_len)
		return -EINVAL;
	if (info->flags & IBEX_PKT_F_ROCE)
		hdr_end = (uint32_t)info->bth_off + IBEX_BTH_LEN;
	if (new_len < hdr_end)
		return -EINVAL;
	if (info->l3 == IBEX_L3_IPV4) {
		ip[1] = (uint8_t)(dscp << 2 | (ip[1] & 3));
		wr16(ip + 2, (uint16_t)(new_len - info->l3_off));
		wr16(ip + 10, 0);
		wr16(ip + 10, (uint16_t)~ibex_csum_fold(ip, (ip[0] & 0xfu) * 4u,
							0));
	} else if (info->l3 == IBEX_L3_IPV6) {
		/* Traffic class: DSCP in bits 7..2 of the class, which spans
		 * the low nibble of byte 0 and the high one of byte 1. */
		ip[0] = (uint8_t)((ip[0] & 0xf0) | dscp >> 2);
		ip[1] = (uint8_t)((ip[1] & 0x3f) | (dscp & 3) << 6);
		wr16(ip + 4, (uint16_t)(new_len - info->l3_off - IP6_HDR_LEN));
	} else {
		return -EINVAL;
	}
	wr16(udp + 4, (uint16_t)(new_len - info->l4_off));
	wr16(udp + 6, 0);
	return 0;
}

uint32_t
ibex_pkt_spec_hdr_len(const struct ibex_pkt_spec *spec)
{
	uint32_t n = IBEX_ETHER_HDR_LEN;

	if (spec->vlan >= 0)
		n += IBEX_VLAN_HDR_LEN;
	if (spec->l3 == IBEX_L3_IPV4)
		n += IP4_HDR_LEN + 4u * spec->ip4_opt_words;
	else if (spec->l3 == IBEX_L3_IPV6)
		n += IP6_HDR_LEN;
	else
		return n;
	if (spec->udp || spec->roce)
		n += UDP_HDR_LEN;
	if (spec->roce)
		n += IBEX_BTH_LEN;
	return n;
}

static bool
spec_valid(const struct ibex_pkt_spec *s)
{
	if (s->vlan < -1 || s->vlan > 4095 || s->pcp > 7)
		return false;
	if (s->l3 != IBEX_L3_NONE && s->l3 != IBEX_L3_IPV4 &&
	    s->l3 != IBEX_L3_IPV6)
		return false;
	if (s->l3 == IBEX_L3_NONE && (s->udp || s->roce))
		return false;
	if (s->dscp > 63 || s->ecn > 3 || s->ip4_opt_words > IP4_MAX_OPT_WORDS)
		return false;
	return s->dest_qp <= 0xffffff && s->psn <= 0xffffff;
}

static uint8_t *
build_ip4(uint8_t *ip, const struct ibex_pkt_spec *s, uint32_t totlen,
	  uint8_t proto)
{
	uint32_t hlen = IP4_HDR_LEN + 4u * s->ip4_opt_words;

	ip[0] = 0x40 | (hlen / 4);
	ip[1] = (uint8_t)(s->dscp << 2 | s->ecn);
	wr16(ip + 2, (uint16_t)totlen);
	wr16(ip + 4, 0);	/* ID: unused with DF (RFC 6864) */
	wr16(ip + 6, IP4_DF);
	ip[8] = s->ttl != 0 ? s->ttl : 64;
	ip[9] = proto;
	wr16(ip + 10, 0);
	wr16(ip + 12, s->src_ip4 >> 16);
	wr16(ip + 14, s->src_ip4 & 0xffff);
	wr16(ip + 16, s->dst_ip4 >> 16);
	wr16(ip + 18, s->dst_ip4 & 0xffff);
	memset(ip + IP4_HDR_LEN, 1, hlen - IP4_HDR_LEN); /* option NOP = 1 */
	wr16(ip + 10, (uint16_t)~ibex_csum_fold(ip, hlen, 0));
	return ip + hlen;
}

static uint8_t *
build_ip6(uint8_t *ip, const struct ibex_pkt_spec *s, uint32_t paylen,
	  uint8_t proto)
{
	uint8_t tc = (uint8_t)(s->dscp << 2 | s->ecn);

	ip[0] = 0x60 | (tc >> 4);
	ip[1] = (uint8_t)(tc << 4);	/* flow label 0 */
	ip[2] = 0;
	ip[3] = 0;
	wr16(ip + 4, (uint16_t)paylen);
	ip[6] = proto;
	ip[7] = s->ttl != 0 ? s->ttl : 64;
	memcpy(ip + 8, s->src_ip6, 16);
	memcpy(ip + 24, s->dst_ip6, 16);
	return ip + IP6_HDR_LEN;
}

static void
build_bth(uint8_t *b, const struct ibex_pkt_spec *s)
{
	memset(b, 0, IBEX_BTH_LEN);	/* SE, M, PadCnt, TVer, AckReq = 0 */
	b[0] = s->bth_opcode;
	wr16(b + 2, s->pkey != 0 ? s->pkey : 0xffff);
	b[4] = s->fecn ? 0x80 : 0;
	wr24(b + 5, s->dest_qp);
	wr24(b + 9, s->psn);
}

/* UDP checksum over the IPv6 pseudo-header (RFC 8200 §8.1). */
static void
udp6_csum(uint8_t *ip, uint8_t *udp, uint32_t ulen)
{
	uint32_t sum;
	uint16_t c;

	sum = ibex_csum_fold(ip + 8, 32, 0);	/* source and destination */
	sum += (ulen >> 16) + (ulen & 0xffff) + IPPROTO_UDP_;
	c = (uint16_t)~ibex_csum_fold(udp, ulen, sum);
	wr16(udp + 6, c != 0 ? c : 0xffff);
}

int
ibex_pkt_build(void *buf, uint32_t cap, const struct ibex_pkt_spec *s)
{
	uint8_t *f = buf, *ip, *p;
	uint32_t hdr, len, l3len;
	bool udp = s->udp || s->roce;
	uint8_t proto = udp ? IPPROTO_UDP_ : IPPROTO_EXP_;

	if (!spec_valid(s))
		return -EINVAL;
	hdr = ibex_pkt_spec_hdr_len(s);
	len = hdr + (s->roce ? IBEX_ICRC_LEN : 0);
	if (len < IBEX_ETHER_MIN_LEN)
		len = IBEX_ETHER_MIN_LEN;
	if (len < s->frame_len)
		len = s->frame_len;
	if (len > cap)
		return -ENOSPC;

	memset(f, 0, len);
	memcpy(f, s->dst, 6);
	memcpy(f + 6, s->src, 6);
	p = f + 12;
	if (s->vlan >= 0) {
		wr16(p, IBEX_ETHERTYPE_VLAN);
		wr16(p + 2, (uint16_t)(s->pcp << 13 | s->vlan));
		p += IBEX_VLAN_HDR_LEN;
	}
	ip = p + 2;
	/* IP covers the whole frame: padding to 60 is zero payload. */
	l3len = len - (uint32_t)(ip - f);
	if (s->l3 == IBEX_L3_IPV4) {
		wr16(p, IBEX_ETHERTYPE_IPV4);
		if (l3len > UINT16_MAX)
			return -EINVAL;
		p = build_ip4(ip, s, l3len, proto);
	} else if (s->l3 == IBEX_L3_IPV6) {
		wr16(p, IBEX_ETHERTYPE_IPV6);
		if (l3len - IP6_HDR_LEN > UINT16_MAX)
			return -EINVAL;
		p = build_ip6(ip, s, l3len - IP6_HDR_LEN, proto);
	} else {
		wr16(p, s->ether_type);
		return (int)len;
	}
	if (!udp)
		return (int)len;

	wr16(p, s->sport);
	wr16(p + 2, s->roce ? IBEX_UDP_PORT_ROCEV2 : s->dport);
	wr16(p + 4, (uint16_t)(f + len - p));
	/* IPv4 UDP checksum 0 = none (RFC 768). */
	if (s->roce)
		build_bth(p + UDP_HDR_LEN, s);
	/*
	 * The ICRC (last 4 bytes, after the zero payload) is left as zeros:
	 * ibex never checks it, and a real ICRC would have to be recomputed
	 * by every hop that marks FECN anyway.
	 */
	if (s->l3 == IBEX_L3_IPV6)
		udp6_csum(ip, p, (uint32_t)(f + len - p));
	return (int)len;
}

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int
ibex_mac_parse(const char *s, uint8_t mac[6])
{
	uint8_t out[6];
	int i, hi, lo;

	if (s == NULL)
		return -EINVAL;
	for (i = 0; i < 6; i++, s += 3) {
		hi = hexval(s[0]);
		lo = hi < 0 ? -1 : hexval(s[1]);
		if (lo < 0 || s[2] != (i == 5 ? '\0' : ':'))
			return -EINVAL;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	memcpy(mac, out, 6);
	return 0;
}

char *
ibex_mac_format(const uint8_t mac[6], char *buf, size_t len)
{
	snprintf(buf, len, "%02x:%02x:%02x:%02x:%02x:%02x",
		 mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
	return buf;
}
