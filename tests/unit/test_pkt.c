/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of lib/pkt: parse of every supported frame kind and every
 * malformed case, build -> parse round trips, ECN rewrite, checksums, and
 * a bounds test over every truncation of several frames.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ibex_common.h"
#include "ibex_pkt.h"

#define BUF_LEN 2048

static const uint8_t mac_a[6] = { 0x02, 0, 0, 0, 0x0a, 0x01 };
static const uint8_t mac_b[6] = { 0x02, 0, 0, 0, 0x0b, 0x01 };
static const uint8_t ip6_a[16] = { 0xfd, 0, [13] = 0x0a, [15] = 0x01 };
static const uint8_t ip6_b[16] = { 0xfd, 0, [13] = 0x0b, [15] = 0x01 };

static uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

/*
 * Reference one's complement sum written independently of ibex_csum_fold:
 * a 32-bit accumulator folded after every add.
 */
static uint16_t
ref_sum(const uint8_t *p, size_t n, uint32_t s)
{
	size_t i;

	for (i = 0; i < n; i++) {
		s += (i & 1) ? p[i] : (uint32_t)p[i] << 8;
		s = (s & 0xffff) + (s >> 16);
	}
	return (uint16_t)s;
}

/* Rewrite the IPv4 header checksum from scratch. */
static void
fix_ip4_csum(uint8_t *ip)
{
	unsigned int hlen = (ip[0] & 0xf) * 4;

	put16(ip + 10, 0);
	put16(ip + 10, (uint16_t)~ref_sum(ip, hlen, 0));
}

static struct ibex_pkt_spec
spec_of(uint8_t l3, int vlan, bool udp, bool roce)
{
	struct ibex_pkt_spec s;

	memset(&s, 0, sizeof(s));
	memcpy(s.dst, mac_b, 6);
	memcpy(s.src, mac_a, 6);
	s.vlan = vlan;
	s.pcp = vlan >= 0 ? 5 : 0;
	s.l3 = l3;
	s.ether_type = 0x0806;
	s.dscp = 26;
	s.ecn = IBEX_ECN_ECT0;
	s.src_ip4 = 0x0a000001;
	s.dst_ip4 = 0x0a000101;
	memcpy(s.src_ip6, ip6_a, 16);
	memcpy(s.dst_ip6, ip6_b, 16);
	s.udp = udp;
	s.sport = 49152;
	s.dport = 5000;
	s.roce = roce;
	s.bth_opcode = 0x04;	/* RC SEND Only */
	s.dest_qp = 0x000100;
	s.psn = 0x123456;
	return s;
}

static uint32_t
build(uint8_t *buf, const struct ibex_pkt_spec *s)
{
	int n = ibex_pkt_build(buf, BUF_LEN, s);

	assert_true(n > 0);
	return (uint32_t)n;
}

/* --- MAC and checksum helpers ------------------------------------------ */

static void
test_mac_parse_format(void **state)
{
	uint8_t m[6] = { 0 };
	const uint8_t want[6] = { 0x02, 0x00, 0xab, 0xCD, 0x0e, 0xff };
	char buf[18];

	(void)state;
	assert_int_equal(ibex_mac_parse("02:00:ab:CD:0e:ff", m), 0);
	assert_memory_equal(m, want, 6);
	assert_string_equal(ibex_mac_format(want, buf, sizeof(buf)),
			    "02:00:ab:cd:0e:ff");
	memset(m, 0x77, 6);
	assert_int_equal(ibex_mac_parse("02:00:ab:cd:0e", m), -EINVAL);
	assert_int_equal(ibex_mac_parse("02:00:ab:cd:0e:ff:", m), -EINVAL);
	assert_int_equal(ibex_mac_parse("02:00:ab:cd:0e:f", m), -EINVAL);
	assert_int_equal(ibex_mac_parse("02-00-ab-cd-0e-ff", m), -EINVAL);
	assert_int_equal(ibex_mac_parse("02:00:ab:cd:0g:ff", m), -EINVAL);
	assert_int_equal(ibex_mac_parse("", m), -EINVAL);
	assert_int_equal(ibex_mac_parse(NULL, m), -EINVAL);
	/* A failed parse leaves the output alone. */
	assert_int_equal(m[0], 0x77);
	assert_true(ibex_mac_is_group((const uint8_t[6]){ 0x01, 0x80, 0xc2 }));
	assert_false(ibex_mac_is_group(mac_a));
}

static void
test_csum_fold(void **state)
{
	/* RFC 1071 §3 worked example: sum 0x2ddf0 folds to 0xddf2. */
	const uint8_t rfc[8] = { 0x00, 0x01, 0xf2, 0x03,
				 0xf4, 0xf5, 0xf6, 0xf7 };
	/* IPv4 header with its well-known checksum 0xb861. */
	uint8_t ip[20] = { 0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00,
			   0x40, 0x11, 0x00, 0x00, 0xc0, 0xa8, 0x00, 0x01,
			   0xc0, 0xa8, 0x00, 0xc7 };
	const uint8_t odd[3] = { 0x01, 0x02, 0x03 };

	(void)state;
	assert_int_equal(ibex_csum_fold(rfc, 8, 0), 0xddf2);
	assert_int_equal((uint16_t)~ibex_csum_fold(ip, 20, 0), 0xb861);
	put16(ip + 10, 0xb861);
	assert_int_equal(ibex_csum_fold(ip, 20, 0), 0xffff);
	/* Odd length: the last byte is the high half of a word. */
	assert_int_equal(ibex_csum_fold(odd, 3, 0), 0x0402);
	/* Initial sum carries into the fold. */
	/* 0x0100 + 0xffff = 0x100ff -> 0x00ff + 1 */
	assert_int_equal(ibex_csum_fold(odd, 1, 0xffff), 0x0100);
	assert_int_equal(ibex_csum_fold(NULL, 0, 0x12345), 0x2346);
}

/* Every length and alignment against the reference, on pseudo-random
 * bytes and starting sums (the fold reads four bytes at a time). */
static void
test_csum_fold_lengths(void **state)
{
	uint8_t buf[72];
	uint32_t x = 12345, len, off, k;

	(void)state;
	for (k = 0; k < 64; k++)
		for (len = 0; len <= 67; len++)
			for (off = 0; off < 4; off++) {
				uint32_t s0, i;

				for (i = 0; i < sizeof(buf); i++) {
					x = x * 1103515245u + 12345u;
					buf[i] = (uint8_t)(x >> 16);
				}
				/* all-ones and zero runs: the fold's edges */
				if (k == 0)
					memset(buf, 0xff, sizeof(buf));
				if (k == 1)
					memset(buf, 0, sizeof(buf));
				s0 = (x >> 8) & 0xffff;
				assert_int_equal(ibex_csum_fold(buf + off, len, s0),
						 ref_sum(buf + off, len, s0));
			}
}

/* --- Good frames -------------------------------------------------------- */

static void
test_parse_raw_untagged(void **state)
{
	uint8_t f[BUF_LEN];
	struct ibex_pkt_spec s = spec_of(IBEX_L3_NONE, -1, false, false);
	struct ibex_pkt_info i;
	uint32_t n = build(f, &s);

	(void)state;
	assert_int_equal(n, 60);
	assert_int_equal(get16(f + 12), 0x0806);
	assert_int_equal(ibex_pkt_parse(f, n, &i), IBEX_R_OK);
	assert_int_equal(i.ether_type, 0x0806);
	assert_int_equal(i.l3_off, 14);
	assert_int_equal(i.l3, IBEX_L3_NONE);
	assert_int_equal(i.flags, 0);
	assert_int_equal(i.vid, 0);
	assert_int_equal(i.pcp, 0);
	assert_int_equal(i.dscp, 0);
	assert_int_equal(i.ecn, 0);
	/* Exactly an Ethernet header is enough for a raw frame. */
	assert_int_equal(ibex_pkt_parse(f, 14, &i), IBEX_R_OK);
}

static void
test_parse_raw_tagged_broadcast(void **state)
{
	uint8_t f[BUF_LEN];
	struct ibex_pkt_spec s = spec_of(IBEX_L3_NONE, 100, false, false);
	struct ibex_pkt_info i;
	uint32_t n;

	(void)state;
	memset(s.dst, 0xff, 6);
	s.pcp = 3;
	n = build(f, &s);
	assert_int_equal(get16(f + 12), 0x8100);
	assert_int_equal(get16(f + 14), 3 << 13 | 100);
	assert_int_equal(ibex_pkt_parse(f, n, &i), IBEX_R_OK);
	assert_int_equal(i.flags, IBEX_PKT_F_VLAN | IBEX_PKT_F_DMAC_GROUP);
	assert_int_equal(i.vid, 100);
	assert_int_equal(i.pcp, 3);
	assert_int_equal(i.ether_type, 0x0806);
	assert_int_equal(i.l3_off, 18);
	assert_int_equal(i.l3, IBEX_L3_NONE);
}

static void
test_parse_qinq(void **state)
{
	uint8_t f[BUF_LEN];
	struct ibex_pkt_spec s = spec_of(IBEX_L3_IPV4, 7, true, true);
	struct ibex_pkt_info i;
	uint32_t n = build(f, &s);

	(void)state;
	/* An 802.1ad outer tag is taken like an 802.1Q tag. */
	put16(f + 12, IBEX_ETHERTYPE_QINQ);
	assert_int_equal(ibex_pkt_parse(f, n, &i), IBEX_R_OK);
	assert_int_equal(i.flags, IBEX_PKT_F_VLAN | IBEX_PKT_F_UDP |
			 IBEX_PKT_F_ROCE);
	assert_int_equal(i.vid, 7);
	assert_int_equal(i.l3, IBEX_L3_IPV4);

	/* Two stacked tags: the outer one is parsed, nothing beyond it. */
	memmove(f + 16, f + 12, n - 12);
	put16(f + 16, IBEX_ETHERTYPE_VLAN);
	put16(f + 12, IBEX_ETHERTYPE_QINQ);
	put16(f + 14, 2 << 13 | 300);
	assert_int_equal(ibex_pkt_parse(f, n + 4, &i), IBEX_R_OK);
	assert_int_equal(i.flags, IBEX_PKT_F_VLAN);
	assert_int_equal(i.vid, 300);
	assert_int_equal(i.pcp, 2);
	assert_int_equal(i.ether_type, IBEX_ETHERTYPE_VLAN);
	assert_int_equal(i.l3_off, 18);
	assert_int_equal(i.l3, IBEX_L3_NONE);
}

/* Put a second tag (TPID @p tpid, VID @p vid) behind the first tag of the
 * tagged frame @p f of @p n bytes (the first tag's TPID set to @p outer).
 * @return the new length. */
static uint32_t
push_inner_tag(uint8_t *f, uint32_t n, uint16_t outer, uint16_t tpid,
	       uint16_t vid)
{
	memmove(f + 20, f + 16, n - 16);
	put16(f + 12, outer);
	put16(f + 16, tpid);
	put16(f + 18, vid);
	return n + 4;
}

static enum ibex_reason parse_exact(const uint8_t *f, uint32_t n,
				    struct ibex_pkt_info *i);

/*
 * Behind a second tag (802.1ad S+C and 802.1Q C+C alike) flow control
 * (0x8808, 0x88B5) and RoCEv2 to QP 0 are refused as qinq-ctl, a third tag
 * as vlan-depth; the same frames behind one tag, and other frames behind
 * two, parse as before. ibex_pkt_check() agrees (parse_exact()).
 */
static void
test_parse_qinq_ctl(void **state)
{
	static const uint16_t outer[] = { IBEX_ETHERTYPE_QINQ,
					  IBEX_ETHERTYPE_VLAN };
	static const uint16_t ctl[] = { IBEX_ETHERTYPE_MACCTL,
					IBEX_ETHERTYPE_IBEXFC };
	static const uint8_t l3s[] = { IBEX_L3_IPV4, IBEX_L3_IPV6 };
	uint8_t f[BUF_LEN];
	struct ibex_pkt_spec s;
	struct ibex_pkt_info i;
	unsigned int o, k;
	uint32_t n, l;

	(void)state;
	for (o = 0; o < IBEX_ARRAY_SIZE(outer); o++) {
		/* PFC and credit frames (raw EtherType, padded). */
		for (k = 0; k < IBEX_ARRAY_SIZE(ctl); k++) {
			s = spec_of(IBEX_L3_NONE, 10, false, false);
			s.ether_type = ctl[k];
			n = build(f, &s);
			/* One tag: the data path's fc code takes it. */
			assert_int_equal(parse_exact(f, n, &i), IBEX_R_OK);
			assert_true(i.flags & IBEX_PKT_F_FC);
			n = push_inner_tag(f, n, outer[o], IBEX_ETHERTYPE_VLAN,
					   20);
			assert_int_equal(parse_exact(f, n, &i),
					 IBEX_R_QINQ_CTL);
		}
		/* RoCEv2 to QP 0, IPv4 and IPv6, and to QP 1 (data). */
		for (k = 0; k < IBEX_ARRAY_SIZE(l3s); k++) {
			s = spec_of(l3s[k], 10, true, true);
			s.dest_qp = 0;
			n = build(f, &s);
			assert_int_equal(parse_exact(f, n, &i), IBEX_R_OK);
			assert_true(i.flags & IBEX_PKT_F_ROCE);
			n = push_inner_tag(f, n, outer[o], IBEX_ETHERTYPE_VLAN,
					   20);
			assert_int_equal(parse_exact(f, n, &i),
					 IBEX_R_QINQ_CTL);
			/* Any destination QP bit set: a data frame. */
			s.dest_qp = 1;
			n = build(f, &s);
			n = push_inner_tag(f, n, outer[o], IBEX_ETHERTYPE_VLAN,
					   20);
			assert_int_equal(parse_exact(f, n, &i), IBEX_R_OK);
			assert_int_equal(i.flags, IBEX_PKT_F_VLAN);
			assert_int_equal(i.ether_type, IBEX_ETHERTYPE_VLAN);
			s.dest_qp = 0x800000;
			n = build(f, &s);
			n = push_inner_tag(f, n, outer[o], IBEX_ETHERTYPE_VLAN,
					   20);
			assert_int_equal(parse_exact(f, n, &i), IBEX_R_OK);
		}
		/* A third tag, whatever follows it. */
		s = spec_of(IBEX_L3_IPV4, 10, true, true);
		n = build(f, &s);
		n = push_inner_tag(f, n, outer[o], IBEX_ETHERTYPE_VLAN, 20);
		n = push_inner_tag(f, n, outer[o], IBEX_ETHERTYPE_QINQ, 30);
		assert_int_equal(parse_exact(f, n, &i), IBEX_R_VLAN_DEPTH);
	}
	/* A second tag cut short; one whole, followed by nothing. */
	s = spec_of(IBEX_L3_NONE, 10, false, false);
	n = build(f, &s);
	n = push_inner_tag(f, n, IBEX_ETHERTYPE_QINQ, IBEX_ETHERTYPE_VLAN, 20);
	for (l = 18; l < 22; l++)
		assert_int_equal(parse_exact(f, l, &i), IBEX_R_VLAN_TRUNC);
	assert_int_equal(parse_exact(f, 22, &i), IBEX_R_OK);
}

static void
test_parse_ip4_plain(void **state)
{
	uint8_t f[BUF_LEN];
	struct ibex_pkt_spec s = spec_of(IBEX_L3_IPV4, -1, false, false);
	struct ibex_pkt_info i;
	uint32_t n = build(f, &s);

	(void)state;
	assert_int_equal(n, 60);
	assert_int_equal(ibex_pkt_parse(f, n, &i), IBEX_R_OK);
	assert_int_equal(i.l3, IBEX_L3_IPV4);
	assert_int_equal(i.ether_type, 0x0800);
	assert_int_equal(i.l4_proto, 253);
	assert_int_equal(i.flags, 0);
	assert_int_equal(i.dscp, 26);
	assert_int_equal(i.ecn, IBEX_ECN_ECT0);
}

static void
test_parse_ip4_options_udp(void **state)
{
	uint8_t f[BUF_LEN];
	struct ibex_pkt_spec s = spec_of(IBEX_L3_IPV4, -1, true, false);
	struct ibex_pkt_info i;
	uint32_t n;

	(void)state;
	s.ip4_opt_words = 3;
	n = build(f, &s);
	assert_int_equal(f[14], 0x48);
	assert_memory_equal(f + 34, "\x01\x01\x01\x01\x01\x01\x01\x01\x01"
			    "\x01\x01\x01", 12);
	assert_int_equal(ref_sum(f + 14, 32, 0), 0xffff);
	assert_int_equal(ibex_pkt_parse(f, n, &i), IBEX_R_OK);
	assert_int_equal(i.flags, IBEX_PKT_F_UDP);
	assert_int_equal(i.l4_off, 14 + 32);
	assert_int_equal(i.l4_proto, 17);

	/* Maximum IHL (15 words) in a frame long enough. */
	s.ip4_opt_words = 10;
	n = build(f, &s);
	assert_int_equal(ibex_pkt_parse(f, n, &i), IBEX_R_OK);
	assert_int_equal(i.l4_off, 14 + 60);
	s.ip4_opt_words = 11;
	assert_int_equal(ibex_pkt_build(f, BUF_LEN, &s), -EINVAL);
}

static void
test_parse_ip4_padding(void **state)
{
	uint8_t f[BUF_LEN];
	struct ibex_pkt_spec s = spec_of(IBEX_L3_IPV4, -1, true, false);
	struct ibex_pkt_info i;
	uint32_t n = build(f, &s);

	(void)state;
	/* 28-byte datagram in a 60-byte frame: the rest is Ethernet pad. */
	put16(f + 16, 28);
	put16(f + 38, 8);
	fix_ip4_csum(f + 14);
	assert_int_equal(ibex_pkt_parse(f, n, &i), IBEX_R_OK);
	assert_int_equal(i.flags, IBEX_PKT_F_UDP);
	/* UDP length is checked against the IP payload, not the frame. */
	put16(f + 38, 9);
	assert_int_equal(ibex_pkt_parse(f, n, &i), IBEX_R_UDP_LEN);
}

static void
test_parse_ip4_fragments(void **state)
{
	uint8_t f[BUF_LEN];
	struct ibex_pkt_spec s = spec_of(IBEX_L3_IPV4, -1, true, true);
	struct ibex_pkt_info i;
	uint32_t n = build(f, &s);

	(void)state;
	/* Non-first fragment: no UDP parse, even with garbage there. */
	put16(f + 20, 0x0001 | 0x2000);
	put16(f + 38, 3);
	assert_int_equal(ibex_pkt_parse(f, n, &i), IBEX_R_OK);
	assert_int_equal(i.flags, IBEX_PKT_F_FRAG);
	assert_int_equal(i.l4_proto, 17);
	assert_int_equal(i.dscp, 26);
	put16(f + 20, 0x1fff);
	assert_int_equal(ibex_pkt_parse(f, n, &i), IBEX_R_OK);
	assert_int_equal(i.flags, IBEX_PKT_F_FRAG);

	/* First fragment (MF, offset 0): UDP length covers the datagram. */
	put16(f + 20, 0x2000);
	put16(f + 38, 1400);
	assert_int_equal(ibex_pkt_parse(f, n, &i), IBEX_R_OK);
	assert_int_equal(i.flags, IBEX_PKT_F_UDP | IBEX_PKT_F_ROCE);
	assert_int_equal(i.bth_off, 42);
	put16(f + 38, 7);
	assert_int_equal(ibex_pkt_parse(f, n, &i), IBEX_R_UDP_LEN);
}

static void
test_parse_ip6_udp(void **state)
{
	uint8_t f[BUF_LEN];
	struct ibex_pkt_spec s = spec_of(IBEX_L3_IPV6, -1, true, false);
	struct ibex_pkt_info i;
	uint32_t n;

	(void)state;
	s.dscp = 46;
	s.ecn = IBEX_ECN_CE;
	n = build(f, &s);
	assert_int_equal(n, 14 + 40 + 8);
	/* TC 0xbb = DSCP 46, CE: version 6 | 0xb, 0xb | flow label 0. */
	assert_int_equal(f[14], 0x6b);
	assert_int_equal(f[15], 0xb0);
	assert_int_equal(ibex_pkt_parse(f, n, &i), IBEX_R_OK);
	assert_int_equal(i.l3, IBEX_L3_IPV6);
	assert_int_equal(i.ether_type, 0x86dd);
	assert_int_equal(i.flags, IBEX_PKT_F_UDP);
	assert_int_equal(i.l4_off, 54);
	assert_int_equal(i.dscp, 46);
	assert_int_equal(i.ecn, IBEX_ECN_CE);
	assert_int_equal(i.l4_proto, 17);
}

static void
test_parse_ip6_ext_header(void **state)
{
	uint8_t f[BUF_LEN];
	struct ibex_pkt_spec s = spec_of(IBEX_L3_IPV6, 9, true, true);
	struct ibex_pkt_info i;
	uint32_t n = build(f, &s);

	(void)state;
	f[18 + 6] = 0;	/* hop-by-hop options: not walked */
	assert_int_equal(ibex_pkt_parse(f, n, &i), IBEX_R_OK);
	assert_int_equal(i.flags, IBEX_PKT_F_VLAN);
	assert_int_equal(i.l3, IBEX_L3_IPV6);
	assert_int_equal(i.l4_proto, 0);
}

static void
test_parse_bth_exact(void **state)
{
	uint8_t f[BUF_LEN];
	struct ibex_pkt_spec s = spec_of(IBEX_L3_IPV4, -1, true, true);
	struct ibex_pkt_info i;

	(void)state;
	build(f, &s);
	/* A datagram that ends right after the BTH still holds it. */
	put16(f + 16, 20 + 8 + 12);
	put16(f + 38, 8 + 12);
	fix_ip4_csum(f + 14);
	assert_int_equal(ibex_pkt_parse(f, 54, &i), IBEX_R_OK);
	assert_int_equal(i.flags, IBEX_PKT_F_UDP | IBEX_PKT_F_ROCE);
	assert_int_equal(i.bth_off, 42);
	/* Other UDP ports are not RoCEv2, whatever follows. */
	put16(f + 36, 4792);
	assert_int_equal(ibex_pkt_parse(f, 54, &i), IBEX_R_OK);
	assert_int_equal(i.flags, IBEX_PKT_F_UDP);
}

/* UEC trimming: a 1024-byte RoCEv2 frame becomes a 256-byte notice of
 * itself that parses as one, with lengths and IPv4 checksum to match, the
 * new DSCP, its ECN kept; CNPs and non-UDP frames are not eligible, and
 * frames no longer than the size are not cut. */
static void
test_trim(void **state)
{
	uint8_t f[BUF_LEN];
	struct ibex_pkt_spec s = spec_of(IBEX_L3_IPV4, 7, true, true);
	struct ibex_pkt_info i, t;

	(void)state;
	s.frame_len = 1024;
	s.dscp = 26;
	s.ecn = IBEX_ECN_ECT0;
	build(f, &s);
	assert_int_equal(ibex_pkt_parse(f, 1024, &i), IBEX_R_OK);
	assert_true(ibex_pkt_trim_eligible(f, &i));
	assert_int_equal(ibex_pkt_trim(f, 1024, &i, 1024, 46), -EINVAL);
	assert_int_equal(ibex_pkt_trim(f, 1024, &i, 56, 46), -EINVAL);
	assert_int_equal(ibex_pkt_trim(f, 1024, &i, 256, 46), 0);
	assert_int_equal(ibex_pkt_parse(f, 256, &t), IBEX_R_OK);
	assert_true(t.flags & IBEX_PKT_F_ROCE);
	assert_int_equal(t.dscp, 46);
	assert_int_equal(t.ecn, IBEX_ECN_ECT0);
	assert_int_equal(f[i.l3_off + 2] << 8 | f[i.l3_off + 3], 256 - i.l3_off);
	assert_int_equal(ibex_csum_fold(f + i.l3_off, 20, 0), 0xffff);
	assert_int_equal(f[i.l4_off + 4] << 8 | f[i.l4_off + 5], 256 - i.l4_off);
	assert_int_equal(f[i.l4_off + 6] << 8 | f[i.l4_off + 7], 0);
	/* a CNP is never trimmed */
	s.bth_opcode = IBEX_BTH_OP_CNP;
	build(f, &s);
	assert_int_equal(ibex_pkt_parse(f, 1024, &i), IBEX_R_OK);
	assert_false(ibex_pkt_trim_eligible(f, &i));
	assert_int_equal(ibex_pkt_trim(f, 1024, &i, 256, 46), -EINVAL);
	/* IPv6: payload length and traffic class */
	s = spec_of(IBEX_L3_IPV6, -1, true, true);
	s.frame_len = 1024;
	build(f, &s);
	assert_int_equal(ibex_pkt_parse(f, 1024, &i), IBEX_R_OK);
	assert_int_equal(ibex_pkt_trim(f, 1024, &i, 512, 46), 0);
	assert_int_equal(ibex_pkt_parse(f, 512, &t), IBEX_R_OK);
	assert_int_equal(t.dscp, 46);
	assert_int_equal(f[i.l3_off + 4] << 8 | f[i.l3_off + 5], 512 - 14 - 40);
	/* no UDP: nothing to trim */
	s = spec_of(IBEX_L3_IPV4, -1, false, false);
	s.frame_len = 1024;
	build(f, &s);
	assert_int_equal(ibex_pkt_parse(f, 1024, &i), IBEX_R_OK);
	assert_false(ibex_pkt_trim_eligible(f, &i));
	assert_int_equal(ibex_pkt_trim(f, 1024, &i, 256, 46), -EINVAL);
}

/* --- Round trips -------------------------------------------------------- */

/* Check the bytes build wrote against the spec, then parse them. */
static void
check_round_trip(const struct ibex_pkt_spec *s)
{
	uint8_t f[BUF_LEN];
	struct ibex_pkt_info i;
	uint32_t n = build(f, s);
	uint32_t l3 = s->vlan >= 0 ? 18 : 14;
	uint32_t ip4h = 20 + 4u * s->ip4_opt_words;
	uint32_t l4 = l3 + (s->l3 == IBEX_L3_IPV4 ? ip4h : 40);
	bool udp = s->udp || s->roce;
	uint32_t hdr = udp ? l4 + 8 + (s->roce ? 12 : 0) :
		       s->l3 == IBEX_L3_NONE ? l3 : l4;
	uint32_t want_len = hdr + (s->roce ? 4 : 0);
	uint8_t want_flags = 0;
	const uint8_t *b;

	if (want_len < 60)
		want_len = 60;
	if (want_len < s->frame_len)
		want_len = s->frame_len;
	assert_int_equal(n, want_len);
	assert_int_equal(ibex_pkt_spec_hdr_len(s), hdr);
	assert_memory_equal(f, s->dst, 6);
	assert_memory_equal(f + 6, s->src, 6);

	assert_int_equal(ibex_pkt_parse(f, n, &i), IBEX_R_OK);
	assert_int_equal(i.l3_off, l3);
	assert_int_equal(i.l3, s->l3);
	if (s->vlan >= 0) {
		want_flags |= IBEX_PKT_F_VLAN;
		assert_int_equal(i.vid, s->vlan);
		assert_int_equal(i.pcp, s->pcp);
	} else {
		assert_int_equal(i.vid, 0);
		assert_int_equal(i.pcp, 0);
	}
	if (s->dst[0] & 1)
		want_flags |= IBEX_PKT_F_DMAC_GROUP;
	if (udp)
		want_flags |= IBEX_PKT_F_UDP;
	if (s->roce)
		want_flags |= IBEX_PKT_F_ROCE;
	assert_int_equal(i.flags, want_flags);

	if (s->l3 == IBEX_L3_NONE) {
		assert_int_equal(i.ether_type, s->ether_type);
		assert_int_equal(i.dscp, 0);
		assert_int_equal(i.ecn, 0);
		return;
	}
	assert_int_equal(i.dscp, s->dscp);
	assert_int_equal(i.ecn, s->ecn);
	assert_int_equal(i.l4_proto, udp ? 17 : 253);
	if (s->l3 == IBEX_L3_IPV4) {
		assert_int_equal(i.ether_type, 0x0800);
		assert_int_equal(f[l3] >> 4, 4);
		assert_int_equal(get16(f + l3 + 2), n - l3);
		assert_int_equal(get16(f + l3 + 6), 0x4000); /* DF */
		assert_int_equal(f[l3 + 8], s->ttl ? s->ttl : 64);
		assert_int_equal(ref_sum(f + l3, ip4h, 0), 0xffff);
		assert_int_equal(get16(f + l3 + 12), s->src_ip4 >> 16);
		assert_int_equal(get16(f + l3 + 14), s->src_ip4 & 0xffff);
		assert_int_equal(get16(f + l3 + 16), s->dst_ip4 >> 16);
		assert_int_equal(get16(f + l3 + 18), s->dst_ip4 & 0xffff);
	} else {
		assert_int_equal(i.ether_type, 0x86dd);
		assert_int_equal(get16(f + l3 + 4), n - l3 - 40);
		assert_int_equal(f[l3 + 7], s->ttl ? s->ttl : 64);
		assert_memory_equal(f + l3 + 8, s->src_ip6, 16);
		assert_memory_equal(f + l3 + 24, s->dst_ip6, 16);
	}
	if (!udp)
		return;
	assert_int_equal(i.l4_off, l4);
	assert_int_equal(get16(f + l4), s->sport);
	assert_int_equal(get16(f + l4 + 2), s->roce ? 4791 : s->dport);
	assert_int_equal(get16(f + l4 + 4), n - l4);
	if (s->l3 == IBEX_L3_IPV4) {
		assert_int_equal(get16(f + l4 + 6), 0);
	} else {
		/* Pseudo-header: addresses, UDP length, next header 17. */
		uint16_t ps = ref_sum(f + l3 + 8, 32, 17 + (n - l4));

		assert_int_not_equal(get16(f + l4 + 6), 0);
		assert_int_equal(ref_sum(f + l4, n - l4, ps), 0xffff);
	}
	if (!s->roce)
		return;
	assert_int_equal(i.bth_off, l4 + 8);
	b = f + i.bth_off;
	assert_int_equal(ibex_bth_opcode(b), s->bth_opcode);
	assert_int_equal(b[1], 0);	/* SE, M, PadCnt, TVer */
	assert_int_equal(get16(b + 2), s->pkey ? s->pkey : 0xffff);
	assert_int_equal(b[4], s->fecn ? 0x80 : 0);
	assert_int_equal(ibex_bth_fecn(b), s->fecn);
	assert_int_equal(ibex_bth_dest_qp(b), s->dest_qp);
	assert_int_equal(b[8], 0);	/* AckReq */
	assert_int_equal(ibex_bth_psn(b), s->psn);
	assert_memory_equal(f + n - 4, "\0\0\0\0", 4);	/* ICRC */
}

static void
test_round_trip(void **state)
{
	static const uint8_t l3s[] = { IBEX_L3_NONE, IBEX_L3_IPV4,
				       IBEX_L3_IPV6 };
	static const int vlans[] = { -1, 0, 1, 4095 };
	static const uint32_t lens[] = { 0, 61, 128, 1518 };
	struct ibex_pkt_spec s;
	unsigned int a, v, k, l, cnt = 0;

	(void)state;
	for (a = 0; a < 3; a++)
	for (v = 0; v < 4; v++)
	for (k = 0; k < 3; k++)	/* no L4, UDP, RoCEv2 */
	for (l = 0; l < 4; l++) {
		if (l3s[a] == IBEX_L3_NONE && k != 0)
			continue;
		s = spec_of(l3s[a], vlans[v], k >= 1, k == 2);
		s.frame_len = lens[l];
		s.pcp = (uint8_t)(v + l) & 7;
		s.dscp = (uint8_t)(cnt * 7) & 63;
		s.ecn = (uint8_t)cnt & 3;
		s.ttl = (uint8_t)(l * 60);
		s.ip4_opt_words = (uint8_t)(v * 3);
		s.pkey = l & 1 ? 0x8001 : 0;
		s.fecn = v & 1;
		s.dest_qp = 0xabcdef - cnt;
		s.psn = 0xffffff - cnt;
		s.bth_opcode = (uint8_t)(0x81 - cnt);
		if (l == 3)
			s.dst[0] = 0x01;
		check_round_trip(&s);
		cnt++;
	}
	assert_int_equal(cnt, 4 * 4 + 2 * 4 * 3 * 4);
}

static void
test_spec_hdr_len(void **state)
{
	struct ibex_pkt_spec s;

	(void)state;
	s = spec_of(IBEX_L3_IPV4, -1, false, true);
	assert_int_equal(ibex_pkt_spec_hdr_len(&s), 54);
	s = spec_of(IBEX_L3_IPV6, 5, false, true);
	assert_int_equal(ibex_pkt_spec_hdr_len(&s), 78);
	s = spec_of(IBEX_L3_IPV4, -1, true, false);
	s.ip4_opt_words = 2;
	assert_int_equal(ibex_pkt_spec_hdr_len(&s), 50);
	s = spec_of(IBEX_L3_NONE, 1, false, false);
	assert_int_equal(ibex_pkt_spec_hdr_len(&s), 18);
}

static void
test_build_sizes_and_errors(void **state)
{
	uint8_t f[BUF_LEN];
	struct ibex_pkt_spec s = spec_of(IBEX_L3_IPV6, 5, true, true);

	(void)state;
	/* 14 + 4 + 40 + 8 + 12 + 4 = 82 > 60: headers and ICRC win. */
	assert_int_equal(ibex_pkt_build(f, BUF_LEN, &s), 82);
	assert_int_equal(ibex_pkt_build(f, 81, &s), -ENOSPC);
	assert_int_equal(ibex_pkt_build(f, 82, &s), 82);
	s.frame_len = 100;
	assert_int_equal(ibex_pkt_build(f, 99, &s), -ENOSPC);
	assert_int_equal(ibex_pkt_build(f, 100, &s), 100);

	s = spec_of(IBEX_L3_IPV4, 4096, false, false);
	assert_int_equal(ibex_pkt_build(f, BUF_LEN, &s), -EINVAL);
	s = spec_of(IBEX_L3_IPV4, -2, false, false);
	assert_int_equal(ibex_pkt_build(f, BUF_LEN, &s), -EINVAL);
	s = spec_of(IBEX_L3_IPV4, 1, false, false);
	s.pcp = 8;
	assert_int_equal(ibex_pkt_build(f, BUF_LEN, &s), -EINVAL);
	s = spec_of(IBEX_L3_IPV4, -1, false, false);
	s.dscp = 64;
	assert_int_equal(ibex_pkt_build(f, BUF_LEN, &s), -EINVAL);
	s = spec_of(IBEX_L3_IPV4, -1, false, false);
	s.ecn = 4;
	assert_int_equal(ibex_pkt_build(f, BUF_LEN, &s), -EINVAL);
	s = spec_of(IBEX_L3_NONE, -1, true, false);
	assert_int_equal(ibex_pkt_build(f, BUF_LEN, &s), -EINVAL);
	s = spec_of(5, -1, false, false);
	assert_int_equal(ibex_pkt_build(f, BUF_LEN, &s), -EINVAL);
	s = spec_of(IBEX_L3_IPV4, -1, false, true);
	s.dest_qp = 0x1000000;
	assert_int_equal(ibex_pkt_build(f, BUF_LEN, &s), -EINVAL);
	s = spec_of(IBEX_L3_IPV4, -1, false, true);
	s.psn = 0x1000000;
	assert_int_equal(ibex_pkt_build(f, BUF_LEN, &s), -EINVAL);
}

static void
test_bth_set_fecn(void **state)
{
	uint8_t f[BUF_LEN];
	struct ibex_pkt_spec s = spec_of(IBEX_L3_IPV4, -1, false, true);
	struct ibex_pkt_info i;
	uint8_t before[BUF_LEN];
	uint32_t n = build(f, &s);

	(void)state;
	memcpy(before, f, n);
	assert_int_equal(ibex_pkt_parse(f, n, &i), IBEX_R_OK);
	assert_false(ibex_bth_fecn(f + i.bth_off));
	ibex_bth_set_fecn(f + i.bth_off);
	assert_true(ibex_bth_fecn(f + i.bth_off));
	assert_int_equal(f[i.bth_off + 4], 0x80);
	f[i.bth_off + 4] = 0;
	assert_memory_equal(f, before, n);
}

/* --- Malformed frames --------------------------------------------------- */

static enum ibex_reason
parse_n(const uint8_t *f, uint32_t n)
{
	struct ibex_pkt_info i;

	return ibex_pkt_parse(f, n, &i);
}

static void
test_bad_runt_vlan(void **state)
{
	uint8_t f[BUF_LEN];
	struct ibex_pkt_spec s = spec_of(IBEX_L3_IPV4, 10, false, false);

	(void)state;
	build(f, &s);
	assert_int_equal(parse_n(f, 0), IBEX_R_RUNT);
	assert_int_equal(parse_n(f, 13), IBEX_R_RUNT);
	assert_int_equal(parse_n(f, 14), IBEX_R_VLAN_TRUNC);
	assert_int_equal(parse_n(f, 17), IBEX_R_VLAN_TRUNC);
	assert_int_equal(parse_n(f, 18), IBEX_R_IP4_TRUNC);
}

static void
test_bad_ip4(void **state)
{
	uint8_t f[BUF_LEN];
	struct ibex_pkt_spec s = spec_of(IBEX_L3_IPV4, -1, true, false);
	uint8_t *ip = f + 14;
	uint32_t n;

	(void)state;
	n = build(f, &s);
	assert_int_equal(parse_n(f, 14 + 19), IBEX_R_IP4_TRUNC);
	assert_int_equal(parse_n(f, 14), IBEX_R_IP4_TRUNC);

	ip[0] = 0x65;
	assert_int_equal(parse_n(f, n), IBEX_R_IP4_VERSION);
	ip[0] = 0x05;
	assert_int_equal(parse_n(f, n), IBEX_R_IP4_VERSION);
	ip[0] = 0x44;
	assert_int_equal(parse_n(f, n), IBEX_R_IP4_IHL);
	ip[0] = 0x40;
	assert_int_equal(parse_n(f, n), IBEX_R_IP4_IHL);
	/* IHL 15 = 60 bytes, but only 46 follow the Ethernet header. */
	ip[0] = 0x4f;
	assert_int_equal(parse_n(f, n), IBEX_R_IP4_IHL);
	ip[0] = 0x45;
	assert_int_equal(parse_n(f, n), IBEX_R_OK);

	put16(ip + 2, 19);
	assert_int_equal(parse_n(f, n), IBEX_R_IP4_TOTLEN);
	put16(ip + 2, n - 14 + 1);
	assert_int_equal(parse_n(f, n), IBEX_R_IP4_TOTLEN);
	put16(ip + 2, n - 14);
	assert_int_equal(parse_n(f, n - 1), IBEX_R_IP4_TOTLEN);
	/* With options, totlen must cover them too. */
	ip[0] = 0x46;
	put16(ip + 2, 23);
	assert_int_equal(parse_n(f, n), IBEX_R_IP4_TOTLEN);
	put16(ip + 2, 24);
	assert_int_equal(parse_n(f, n), IBEX_R_UDP_TRUNC);
}

static void
test_bad_ip6(void **state)
{
	uint8_t f[BUF_LEN];
	struct ibex_pkt_spec s = spec_of(IBEX_L3_IPV6, -1, true, true);
	uint8_t *ip = f + 14;
	uint32_t n;

	(void)state;
	n = build(f, &s);
	assert_int_equal(parse_n(f, 14 + 39), IBEX_R_IP6_TRUNC);
	assert_int_equal(parse_n(f, 14), IBEX_R_IP6_TRUNC);
	assert_int_equal(parse_n(f, n - 1), IBEX_R_IP6_PAYLEN);
	ip[0] = 0x40 | (ip[0] & 0xf);
	assert_int_equal(parse_n(f, n), IBEX_R_IP6_VERSION);
	ip[0] = 0x60 | (ip[0] & 0xf);
	put16(ip + 4, n - 54 + 1);
	assert_int_equal(parse_n(f, n), IBEX_R_IP6_PAYLEN);
	put16(ip + 4, 7);
	assert_int_equal(parse_n(f, n), IBEX_R_UDP_TRUNC);
	put16(ip + 4, 8);
	assert_int_equal(parse_n(f, n), IBEX_R_UDP_LEN);
	put16(ip + 4, 19);
	put16(f + 54 + 4, 19);
	assert_int_equal(parse_n(f, n), IBEX_R_BTH_TRUNC);
	put16(ip + 4, 20);
	put16(f + 54 + 4, 20);
	assert_int_equal(parse_n(f, n), IBEX_R_OK);
}

static void
test_bad_udp_bth(void **state)
{
	uint8_t f[BUF_LEN];
	struct ibex_pkt_spec s = spec_of(IBEX_L3_IPV4, 3, true, true);
	uint8_t *ip = f + 18, *udp = f + 38;
	uint32_t n;

	(void)state;
	n = build(f, &s);
	assert_int_equal(parse_n(f, n), IBEX_R_OK);
	/* IP payload of 7 bytes cannot hold a UDP header. */
	put16(ip + 2, 27);
	assert_int_equal(parse_n(f, n), IBEX_R_UDP_TRUNC);
	put16(ip + 2, n - 18);
	put16(udp + 4, 7);
	assert_int_equal(parse_n(f, n), IBEX_R_UDP_LEN);
	put16(udp + 4, 0);
	assert_int_equal(parse_n(f, n), IBEX_R_UDP_LEN);
	put16(udp + 4, n - 38 + 1);
	assert_int_equal(parse_n(f, n), IBEX_R_UDP_LEN);
	/* UDP length leaves 11 bytes of BTH. */
	put16(udp + 4, 8 + 11);
	assert_int_equal(parse_n(f, n), IBEX_R_BTH_TRUNC);
	/* The IP datagram leaves 11 bytes of BTH. */
	put16(ip + 2, 20 + 8 + 11);
	assert_int_equal(parse_n(f, n), IBEX_R_BTH_TRUNC);
	put16(ip + 2, 20 + 8 + 12);
	put16(udp + 4, 8 + 12);
	assert_int_equal(parse_n(f, n), IBEX_R_OK);
}

/* --- ECN rewrite -------------------------------------------------------- */

static void
test_set_ecn_ip4(void **state)
{
	static const uint8_t tos[] = { 0x00, 0x02, 0x68, 0xb9, 0xff, 0xfc };
	uint8_t f[BUF_LEN], before[BUF_LEN];
	struct ibex_pkt_spec s = spec_of(IBEX_L3_IPV4, -1, true, true);
	struct ibex_pkt_info i;
	uint32_t n, t, e, opt;
	uint16_t want;

	(void)state;
	for (opt = 0; opt <= 2; opt += 2)
	for (t = 0; t < IBEX_ARRAY_SIZE(tos); t++)
	for (e = 0; e < 4; e++) {
		s.ip4_opt_words = (uint8_t)opt;
		s.dscp = tos[t] >> 2;
		s.ecn = tos[t] & 3;
		s.src_ip4 = 0xc0a80001 + t * 977;
		n = build(f, &s);
		assert_int_equal(ibex_pkt_parse(f, n, &i), IBEX_R_OK);
		memcpy(before, f, n);
		ibex_pkt_set_ecn(f, &i, (uint8_t)e);
		assert_int_equal(f[15], (tos[t] & 0xfc) | e);
		/* The incremental result equals a checksum from scratch. */
		want = get16(f + 24);
		fix_ip4_csum(f + 14);
		assert_int_equal(get16(f + 24), want);
		assert_int_equal(ref_sum(f + 14, 20 + 4 * opt, 0), 0xffff);
		before[15] = f[15];
		before[24] = f[24];
		before[25] = f[25];
		assert_memory_equal(f, before, n);
		assert_int_equal(ibex_pkt_parse(f, n, &i), IBEX_R_OK);
		assert_int_equal(i.ecn, e);
		assert_int_equal(i.dscp, tos[t] >> 2);
	}
}

static void
test_set_ecn_ip4_csum_edge(void **state)
{
	uint8_t f[BUF_LEN];
	struct ibex_pkt_spec s = spec_of(IBEX_L3_IPV4, -1, false, false);
	struct ibex_pkt_info i;
	uint32_t n, src;
	uint16_t want;
	unsigned int hits = 0;

	(void)state;
	/*
	 * Walk source addresses until the stored checksum is 0x0000 or
	 * 0xffff before or after the rewrite: the cases where a naive
	 * incremental update goes wrong (RFC 1624 §3).
	 */
	s.dscp = 0;
	s.ecn = IBEX_ECN_NOT_ECT;
	for (src = 0; src < 0x30000 && hits < 8; src++) {
		s.src_ip4 = src;
		n = build(f, &s);
		assert_int_equal(ibex_pkt_parse(f, n, &i), IBEX_R_OK);
		if (get16(f + 24) > 0x0004 && get16(f + 24) < 0xfffb)
			continue;
		hits++;
		ibex_pkt_set_ecn(f, &i, IBEX_ECN_CE);
		want = get16(f + 24);
		fix_ip4_csum(f + 14);
		assert_int_equal(get16(f + 24), want);
	}
	assert_true(hits > 0);
}

static void
test_set_ecn_ip6_and_raw(void **state)
{
	uint8_t f[BUF_LEN], before[BUF_LEN];
	struct ibex_pkt_spec s = spec_of(IBEX_L3_IPV6, 20, true, true);
	struct ibex_pkt_info i;
	uint32_t n, e, d;

	(void)state;
	for (d = 0; d < 64; d += 21)
	for (e = 0; e < 4; e++) {
		s.dscp = (uint8_t)d;
		s.ecn = (uint8_t)(3 - e);
		n = build(f, &s);
		assert_int_equal(ibex_pkt_parse(f, n, &i), IBEX_R_OK);
		memcpy(before, f, n);
		ibex_pkt_set_ecn(f, &i, (uint8_t)e);
		/* Only TC bits 1..0, i.e. bits 5..4 of byte 1, change. */
		assert_int_equal(f[19], (before[19] & 0xcf) | e << 4);
		before[19] = f[19];
		assert_memory_equal(f, before, n);
		assert_int_equal(ibex_pkt_parse(f, n, &i), IBEX_R_OK);
		assert_int_equal(i.ecn, e);
		assert_int_equal(i.dscp, d);
	}

	s = spec_of(IBEX_L3_NONE, -1, false, false);
	n = build(f, &s);
	memset(f + 14, 0x45, n - 14);
	memcpy(before, f, n);
	assert_int_equal(ibex_pkt_parse(f, n, &i), IBEX_R_OK);
	ibex_pkt_set_ecn(f, &i, IBEX_ECN_CE);
	assert_memory_equal(f, before, n);
}

/* --- Bounds ------------------------------------------------------------- */

/*
 * Parse one frame from a heap buffer of exactly @p n bytes so that the
 * sanitizer build reports any read beyond it, check that every offset
 * parse reports lies inside the frame and that ibex_pkt_check() (the
 * data path's lean check) gives the same verdict, flags and BTH offset.
 */
static enum ibex_reason
parse_exact(const uint8_t *f, uint32_t n, struct ibex_pkt_info *i)
{
	uint8_t *copy = malloc(n > 0 ? n : 1);
	enum ibex_reason r;
	uint32_t c;

	assert_non_null(copy);
	memcpy(copy, f, n);
	r = ibex_pkt_parse(n > 0 ? copy : copy + 1, n, i);
	/* The data path's check agrees with the full parse. */
	c = ibex_pkt_check(n > 0 ? copy : copy + 1, n);
	free(copy);
	assert_int_equal(IBEX_PKT_CHECK_REASON(c), r);
	if (r == IBEX_R_OK) {
		assert_int_equal(IBEX_PKT_CHECK_FLAGS(c), i->flags);
		if (i->flags & IBEX_PKT_F_ROCE)
			assert_int_equal(IBEX_PKT_CHECK_BTH(c), i->bth_off);
		if (i->flags & IBEX_PKT_F_AGG)
			assert_int_equal(IBEX_PKT_CHECK_BTH(c), i->l4_off);
	}
	assert_true(r < IBEX_R_SRC_MCAST);
	if (r != IBEX_R_OK)
		return r;
	assert_true(i->l3_off <= n);
	if (i->flags & IBEX_PKT_F_UDP)
		assert_true(i->l4_off + 8u <= n);
	if (i->flags & IBEX_PKT_F_ROCE)
		assert_true(i->bth_off + 12u <= n);
	return r;
}

static void
test_bounds_truncation(void **state)
{
	struct ibex_pkt_spec specs[] = {
		spec_of(IBEX_L3_NONE, -1, false, false),
		spec_of(IBEX_L3_NONE, 2, false, false),
		spec_of(IBEX_L3_IPV4, -1, false, true),
		spec_of(IBEX_L3_IPV4, 4, true, false),
		spec_of(IBEX_L3_IPV4, 4, false, true),
		spec_of(IBEX_L3_IPV6, -1, true, true),
		spec_of(IBEX_L3_IPV6, 6, true, false),
	};
	uint8_t f[BUF_LEN];
	struct ibex_pkt_info i;
	unsigned int k;
	uint32_t n, l;
	enum ibex_reason r;

	(void)state;
	specs[4].ip4_opt_words = 10;
	specs[5].frame_len = 300;
	for (k = 0; k < IBEX_ARRAY_SIZE(specs); k++) {
		n = build(f, &specs[k]);
		for (l = 0; l <= n; l++) {
			r = parse_exact(f, l, &i);
			if (l < 14)
				assert_int_equal(r, IBEX_R_RUNT);
			else if (specs[k].l3 == IBEX_L3_NONE &&
				 (specs[k].vlan < 0 || l >= 18))
				assert_int_equal(r, IBEX_R_OK);
			/* IP covers the frame: any cut is malformed. */
			else if (l < n)
				assert_int_not_equal(r, IBEX_R_OK);
			else
				assert_int_equal(r, IBEX_R_OK);
		}
	}
}

/* UDP to the aggregation port: flagged by parse and check alike, with the
 * UDP header's offset (the switch reads the job from its payload), in
 * every shape the data path meets; other ports and truncations are not. */
static void
test_parse_agg(void **state)
{
	struct ibex_pkt_spec specs[] = {
		spec_of(IBEX_L3_IPV4, -1, true, false),
		spec_of(IBEX_L3_IPV4, 7, true, false),
		spec_of(IBEX_L3_IPV6, -1, true, false),
	};
	uint8_t f[BUF_LEN];
	struct ibex_pkt_info i;
	unsigned int k;
	uint32_t n, c;

	(void)state;
	for (k = 0; k < IBEX_ARRAY_SIZE(specs); k++) {
		specs[k].dport = IBEX_UDP_PORT_AGG;
		specs[k].frame_len = 200;
		n = build(f, &specs[k]);
		assert_int_equal(parse_exact(f, n, &i), IBEX_R_OK);
		assert_int_equal(i.flags & (IBEX_PKT_F_AGG | IBEX_PKT_F_ROCE),
				 IBEX_PKT_F_AGG);
		c = ibex_pkt_check(f, n);
		assert_int_equal(IBEX_PKT_CHECK_BTH(c), i.l4_off);
		assert_int_equal(get16(f + i.l4_off + 2), 0xBEF0);
		/* One port below: plain UDP. */
		specs[k].dport = IBEX_UDP_PORT_AGG - 1;
		n = build(f, &specs[k]);
		assert_int_equal(parse_exact(f, n, &i), IBEX_R_OK);
		assert_false(i.flags & IBEX_PKT_F_AGG);
	}
}

/* Random header corruption of valid frames, each parsed at its exact size. */
static void
test_bounds_corruption(void **state)
{
	struct ibex_pkt_spec specs[] = {
		spec_of(IBEX_L3_IPV4, -1, false, true),
		spec_of(IBEX_L3_IPV4, 1, true, false),
		spec_of(IBEX_L3_IPV6, -1, true, true),
		spec_of(IBEX_L3_IPV6, 1, false, true),
	};
	uint8_t f[BUF_LEN];
	struct ibex_pkt_info i;
	uint64_t x = 88172645463325252ull;	/* xorshift64 state */
	unsigned int it, k, c;
	uint32_t n, l, seen = 0;

	(void)state;
	for (it = 0; it < 40000; it++) {
		k = it % IBEX_ARRAY_SIZE(specs);
		n = build(f, &specs[k]);
		for (c = 0; c < 3; c++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			/* Corrupt the header area, length fields included. */
			f[(x >> 8) % 80] = (uint8_t)x;
		}
		l = (uint32_t)(x >> 32) % (n + 1);
		if (parse_exact(f, l, &i) != IBEX_R_OK)
			seen++;
	}
	/* Corruption and truncation must yield malformed verdicts. */
	assert_true(seen > 1000);
}

/*
 * The data path's short cut for IPv4/UDP/RoCEv2 frames agrees with the
 * general checks at every edge of its shape: each IP total length and UDP
 * length around the frame's, the fragment bits, the protocol, the port
 * and the header length, tagged and untagged, at exact frame sizes.
 */
static void
test_check_roce4_edges(void **state)
{
	static const uint16_t frag[] = { 0x0000, 0x4000, 0x2000, 0x0001,
					 0x1fff, 0x6000, 0x8000 };
	static const int vlans[] = { -1, 7 };
	uint8_t f[BUF_LEN], g[BUF_LEN];
	struct ibex_pkt_info i;
	uint32_t n, l3, tl, ul, k, v, ok = 0, bad = 0;
	struct ibex_pkt_spec sp;

	(void)state;
	for (v = 0; v < IBEX_ARRAY_SIZE(vlans); v++) {
		sp = spec_of(IBEX_L3_IPV4, vlans[v], true, true);
		sp.frame_len = 96;
		n = build(f, &sp);
		l3 = vlans[v] < 0 ? 14 : 18;
		/* The frame has the short cut's shape. */
		assert_int_not_equal(ibex_pkt_check_roce4(f, n, l3, 0),
				     UINT32_MAX);
		for (tl = 0; tl <= n - l3 + 2; tl++)
			for (ul = 0; ul <= n - l3 + 2; ul++) {
				memcpy(g, f, n);
				g[l3 + 2] = (uint8_t)(tl >> 8);
				g[l3 + 3] = (uint8_t)tl;
				g[l3 + 24] = (uint8_t)(ul >> 8);
				g[l3 + 25] = (uint8_t)ul;
				if (parse_exact(g, n, &i) == IBEX_R_OK)
					ok++;
				else
					bad++;
			}
		for (k = 0; k < IBEX_ARRAY_SIZE(frag); k++) {
			memcpy(g, f, n);
			g[l3 + 6] = (uint8_t)(frag[k] >> 8);
			g[l3 + 7] = (uint8_t)frag[k];
			parse_exact(g, n, &i);
		}
		for (k = 0; k < 256; k++) {
			memcpy(g, f, n);
			g[l3] = (uint8_t)k;	/* version and IHL */
			parse_exact(g, n, &i);
			memcpy(g, f, n);
			g[l3 + 9] = (uint8_t)k;	/* protocol */
			parse_exact(g, n, &i);
			memcpy(g, f, n);
			g[l3 + 22 + (k & 1)] ^= (uint8_t)(k | 1); /* port */
			parse_exact(g, n, &i);
		}
		for (k = 0; k <= n; k++)
			parse_exact(f, k, &i);
	}
	/* Both verdicts were reached, many times each. */
	assert_true(ok > 1000);
	assert_true(bad > 1000);
}

int
main(void)
{
	const struct CMUnitTest helpers[] = {
		cmocka_unit_test(test_mac_parse_format),
		cmocka_unit_test(test_csum_fold),
		cmocka_unit_test(test_csum_fold_lengths),
		cmocka_unit_test(test_bth_set_fecn),
	};
	const struct CMUnitTest good[] = {
		cmocka_unit_test(test_parse_raw_untagged),
		cmocka_unit_test(test_parse_raw_tagged_broadcast),
		cmocka_unit_test(test_parse_qinq),
		cmocka_unit_test(test_parse_qinq_ctl),
		cmocka_unit_test(test_parse_ip4_plain),
		cmocka_unit_test(test_parse_ip4_options_udp),
		cmocka_unit_test(test_parse_ip4_padding),
		cmocka_unit_test(test_parse_ip4_fragments),
		cmocka_unit_test(test_parse_ip6_udp),
		cmocka_unit_test(test_parse_ip6_ext_header),
		cmocka_unit_test(test_parse_bth_exact),
	};
	const struct CMUnitTest build_tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_spec_hdr_len),
		cmocka_unit_test(test_build_sizes_and_errors),
		cmocka_unit_test(test_trim),
	};
	const struct CMUnitTest bad[] = {
		cmocka_unit_test(test_bad_runt_vlan),
		cmocka_unit_test(test_bad_ip4),
		cmocka_unit_test(test_bad_ip6),
		cmocka_unit_test(test_bad_udp_bth),
	};
	const struct CMUnitTest ecn[] = {
		cmocka_unit_test(test_set_ecn_ip4),
		cmocka_unit_test(test_set_ecn_ip4_csum_edge),
		cmocka_unit_test(test_set_ecn_ip6_and_raw),
	};
	const struct CMUnitTest bounds[] = {
		cmocka_unit_test(test_bounds_truncation),
		cmocka_unit_test(test_parse_agg),
		cmocka_unit_test(test_bounds_corruption),
		cmocka_unit_test(test_check_roce4_edges),
	};
	int fails = 0;

	fails += cmocka_run_group_tests_name("pkt_helpers", helpers,
					     NULL, NULL);
	fails += cmocka_run_group_tests_name("pkt_parse_good", good,
					     NULL, NULL);
	fails += cmocka_run_group_tests_name("pkt_build", build_tests,
					     NULL, NULL);
	fails += cmocka_run_group_tests_name("pkt_parse_bad", bad,
					     NULL, NULL);
	fails += cmocka_run_group_tests_name("pkt_ecn", ecn, NULL, NULL);
	fails += cmocka_run_group_tests_name("pkt_bounds", bounds,
					     NULL, NULL);
	return fails != 0;
}
