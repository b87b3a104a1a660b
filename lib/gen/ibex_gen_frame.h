/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_GEN_FRAME_H
#define IBEX_GEN_FRAME_H

/**
 * @file
 * Emulated ranks and their addresses, the RoCEv2 frames the generator
 * sends with their probe trailer, and the short probe of small frames:
 * templates built once per flow, completed per frame by static inlines
 * (no allocation, no clock). docs/generator.md gives the layout.
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "ibex_common.h"
#include "ibex_pkt.h"
#include "ibex_gen_limits.h"

/** An emulated rank: one RoCEv2 endpoint. */
struct ibex_gen_rank {
	uint8_t mac[6];  /**< 02:00:00:0e:hi:lo (locally administered) */
	uint32_t ip4;    /**< 10.14.hi.lo+1 style, host order */
	uint32_t qp;     /**< its QP number: 0x1000 + index */
	uint16_t port;   /**< generator port index it is attached to */
};

/**
 * Address of rank @p idx (0-based): MAC 02:00:00:0e:(idx>>8):(idx&255),
 * IPv4 10.14.(idx>>8).(idx&255)+... see docs/generator.md; QP 0x1000+idx.
 */
void ibex_gen_rank_addr(unsigned int idx, struct ibex_gen_rank *r);

/** Magic of the probe trailer, "IBXP" in the low-order-first bytes. */
#define IBEX_GEN_MAGIC 0x50584249u
/** Bytes of the probe trailer. */
#define IBEX_GEN_TRAILER_LEN 24

/**
 * Probe trailer: the last 24 bytes of the payload, just before the 4-byte
 * ICRC, little-endian. The tag says which iteration and step of a
 * collective the frame belongs to (iteration << 16 | step).
 */
struct ibex_gen_trailer {
	uint32_t magic;
	uint32_t flow;  /**< on the wire: qp << 28 | src << 14 | dst
			     (ibex_gen_wire_flow()); inside the runner,
			     once read, the sub-flow index */
	uint32_t seq;   /**< per-flow sequence number */
	uint32_t tag;   /**< (iteration & 0xffff) << 16 | step */
	uint64_t tsc;   /**< transmit time, sender's ticks */
};

/** Bits of a rank in the wire's flow id: ranks 0 .. 16,383. */
#define IBEX_GEN_FLOW_RANK_BITS 14
#define IBEX_GEN_FLOW_RANK_MASK ((1u << IBEX_GEN_FLOW_RANK_BITS) - 1)

/**
 * The flow id frames carry (trailer, head probe, short probe): queue pair
 * @p qp of pair (@p src, @p dst) as qp << 28 | src << 14 | dst, whatever
 * the run's rank count; the runner's tables are indexed by its own
 * sub-flow index instead (ibex_gen_subflow(), lib/gen/ibex_gen_slots.h).
 */
static inline uint32_t
ibex_gen_wire_flow(unsigned int src, unsigned int dst, unsigned int qp)
{
	return (uint32_t)qp << (2 * IBEX_GEN_FLOW_RANK_BITS) |
	       (uint32_t)(src & IBEX_GEN_FLOW_RANK_MASK) <<
	       IBEX_GEN_FLOW_RANK_BITS | (dst & IBEX_GEN_FLOW_RANK_MASK);
}

/** Source rank of wire flow id @p w. */
static inline unsigned int
ibex_gen_wire_src(uint32_t w)
{
	return (w >> IBEX_GEN_FLOW_RANK_BITS) & IBEX_GEN_FLOW_RANK_MASK;
}

/** Destination rank of wire flow id @p w. */
static inline unsigned int
ibex_gen_wire_dst(uint32_t w)
{
	return w & IBEX_GEN_FLOW_RANK_MASK;
}

/** Queue pair of wire flow id @p w. */
static inline unsigned int
ibex_gen_wire_qp(uint32_t w)
{
	return w >> (2 * IBEX_GEN_FLOW_RANK_BITS);
}

/** Read the trailer of a frame of @p len bytes. @return false: no trailer. */
static inline bool
ibex_gen_trailer_get(const uint8_t *frame, uint32_t len,
		     struct ibex_gen_trailer *t)
{
	if (len < IBEX_GEN_TRAILER_LEN + IBEX_ICRC_LEN + IBEX_ETHER_HDR_LEN)
		return false;
	memcpy(t, frame + len - IBEX_ICRC_LEN - IBEX_GEN_TRAILER_LEN,
	       IBEX_GEN_TRAILER_LEN);
	return t->magic == IBEX_GEN_MAGIC;
}

/** Write a trailer into a frame of @p len bytes. */
static inline void
ibex_gen_trailer_put(uint8_t *frame, uint32_t len,
		     const struct ibex_gen_trailer *t)
{
	memcpy(frame + len - IBEX_ICRC_LEN - IBEX_GEN_TRAILER_LEN, t,
	       IBEX_GEN_TRAILER_LEN);
}

/*
 * Head probe: a copy of the trailer right after the BTH, with what a
 * retransmission needs, so that a frame a switch trimmed (UEC packet
 * trimming keeps the headers and the first bytes: 256 at least) still
 * says which frame it was. Written in full probes with room for it
 * (ibex_gen_head_fits()); little-endian like the trailer.
 */
/** Magic of the head probe, "IBXH" low byte first. */
#define IBEX_GEN_HEAD_MAGIC 0x48584249u
/** Bytes of the head probe. */
#define IBEX_GEN_HEAD_LEN 40
/** Head probe flag: the frame is a retransmission; nack_tsc is when the
 * receiver saw its trimmed original. */
#define IBEX_GEN_HEAD_RETX 0x01
/** Head probe flag: the frame is a retransmission after a timeout (--rto);
 * nack_tsc is when it timed out. */
#define IBEX_GEN_HEAD_RTO 0x02

struct ibex_gen_head {
	struct ibex_gen_trailer t;  /**< magic IBEX_GEN_HEAD_MAGIC */
	uint32_t len;               /**< the whole frame's length */
	uint8_t opcode;
	uint8_t flags;              /**< IBEX_GEN_HEAD_* */
	uint16_t slot;              /**< its sender's in-flight slot (--rto) */
	uint64_t nack_tsc;          /**< with IBEX_GEN_HEAD_RETX or _RTO */
};

/** The offset of the head probe in a frame of template @p bth_off. */
static inline uint32_t
ibex_gen_head_off(uint16_t bth_off)
{
	return (uint32_t)bth_off + IBEX_BTH_LEN;
}

/** Read the head probe of a frame of @p len bytes. @return false: none. */
static inline bool
ibex_gen_head_get(const uint8_t *frame, uint32_t len, uint16_t bth_off,
		  struct ibex_gen_head *h)
{
	uint32_t off = ibex_gen_head_off(bth_off);

	if (len < off + IBEX_GEN_HEAD_LEN)
		return false;
	memcpy(h, frame + off, IBEX_GEN_HEAD_LEN);
	return h->t.magic == IBEX_GEN_HEAD_MAGIC;
}

/** How frames look (all ranks alike). */
struct ibex_gen_frame_opts {
	int vlan;        /**< VID, or -1 untagged */
	uint8_t pcp;     /**< with a VID */
	uint8_t dscp;
	uint8_t ecn;     /**< enum ibex_ecn; ECT(0) by default */
};

/** RC SEND opcodes by position of a frame in its message. */
#define IBEX_GEN_OP_FIRST  0x00
#define IBEX_GEN_OP_MIDDLE 0x01
#define IBEX_GEN_OP_LAST   0x02
#define IBEX_GEN_OP_ONLY   0x04

/** Prebuilt headers of one flow; ibex_gen_frame_write() completes them. */
struct ibex_gen_tmpl {
	uint8_t hdr[64];
	uint16_t hdr_len;   /**< Ethernet (+tag) + IPv4 + UDP + BTH */
	uint16_t ip_off;
	uint16_t udp_off;
	uint16_t bth_off;
};

/** Build the headers from @p src to @p dst. @return 0 or -EINVAL. */
int ibex_gen_tmpl_build(struct ibex_gen_tmpl *t, const struct ibex_gen_rank *src,
			const struct ibex_gen_rank *dst,
			const struct ibex_gen_frame_opts *o);

/** Smallest frame carrying @p payload application bytes (>= 60). */
static inline uint32_t
ibex_gen_frame_len(const struct ibex_gen_tmpl *t, uint32_t payload)
{
	uint32_t len = t->hdr_len + payload + IBEX_GEN_TRAILER_LEN +
		       IBEX_ICRC_LEN;

	return len < IBEX_ETHER_MIN_LEN ? IBEX_ETHER_MIN_LEN : len;
}

/** Application payload bytes a frame of at most @p max_frame carries. */
static inline uint32_t
ibex_gen_payload_max(const struct ibex_gen_tmpl *t, uint32_t max_frame)
{
	uint32_t over = t->hdr_len + IBEX_GEN_TRAILER_LEN + IBEX_ICRC_LEN;

	return max_frame > over ? max_frame - over : 0;
}

/**
 * Write a whole frame of @p len bytes (>= ibex_gen_frame_len(t, 0)) into
 * @p buf: headers from the template with the lengths, IPv4 checksum, BTH
 * opcode and PSN set, the payload left as it is (its content is not
 * looked at), the trailer, a zero ICRC.
 */
static inline void
ibex_gen_frame_write(uint8_t *buf, const struct ibex_gen_tmpl *t, uint32_t len,
		     uint8_t opcode, uint32_t psn,
		     const struct ibex_gen_trailer *tr)
{
	uint8_t *ip = buf + t->ip_off, *udp = buf + t->udp_off,
		*bth = buf + t->bth_off;
	uint32_t iplen = len - t->ip_off, ulen = len - t->udp_off;
	uint16_t c;

	memcpy(buf, t->hdr, t->hdr_len);
	ip[2] = (uint8_t)(iplen >> 8);
	ip[3] = (uint8_t)iplen;
	ip[10] = 0;
	ip[11] = 0;
	c = (uint16_t)~ibex_csum_fold(ip, 20, 0);
	ip[10] = (uint8_t)(c >> 8);
	ip[11] = (uint8_t)c;
	udp[4] = (uint8_t)(ulen >> 8);
	udp[5] = (uint8_t)ulen;
	bth[0] = opcode;
	bth[9] = (uint8_t)(psn >> 16);
	bth[10] = (uint8_t)(psn >> 8);
	bth[11] = (uint8_t)psn;
	ibex_gen_trailer_put(buf, len, tr);
	memset(buf + len - IBEX_ICRC_LEN, 0, IBEX_ICRC_LEN);
}

/**
 * Move a frame just written from the template onto queue pair @p qp of
 * its connection: UDP source port + qp (the entropy an ECMP hash sees:
 * a connection's QPs take consecutive ports) and, for a full probe, BTH
 * destination QP + (qp << 16). QP 0 is the template itself.
 */
static inline void
ibex_gen_frame_set_qp(uint8_t *buf, const struct ibex_gen_tmpl *t,
		      unsigned int qp, bool full)
{
	uint8_t *udp = buf + t->udp_off;
	uint16_t sport = (uint16_t)((udp[0] << 8 | udp[1]) + qp);

	udp[0] = (uint8_t)(sport >> 8);
	udp[1] = (uint8_t)sport;
	if (full)
		buf[t->bth_off + 5] = (uint8_t)(buf[t->bth_off + 5] + qp);
}

/**
 * ECN codepoint of a frame written by the generator (untagged or one tag,
 * IPv4), read at the template's IP offset. @return 0..3.
 */
static inline uint8_t
ibex_gen_frame_ecn(const uint8_t *frame, uint16_t ip_off)
{
	return frame[ip_off + 1] & 3;
}

/*
 * Short probe: frames too small for RoCEv2 headers and the full trailer
 * (RFC 2544's 64-byte frames are 60 bytes without FCS) are sent as plain
 * UDP to IBEX_GEN_SHORT_PORT, no BTH and no ICRC, ending in an 18-byte
 * trailer {magic16, flow32, seq32, tag16, tsc48}, little-endian: the
 * wire flow id of the full trailer; the tag holds only the iteration
 * (open-loop trial); the transmit time's low 48 bits, completed by the
 * receiver from its own clock (a frame is never 2^48 ticks, 26 hours
 * at 3 GHz, in flight). Ethernet + IPv4 + UDP + 18 = 60 bytes, the
 * smallest Ethernet frame.
 */
/** UDP destination port of short probes (not 4791: they carry no BTH). */
#define IBEX_GEN_SHORT_PORT 4790
/** Magic of the short trailer ("IS" low byte first). */
#define IBEX_GEN_SHORT_MAGIC 0x5349u
/** Bytes of the short trailer. */
#define IBEX_GEN_SHORT_LEN 18

/** Smallest short probe frame of a template (UDP header end + trailer). */
static inline uint32_t
ibex_gen_short_min(const struct ibex_gen_tmpl *t)
{
	uint32_t len = (uint32_t)t->bth_off + IBEX_GEN_SHORT_LEN;

	return len < IBEX_ETHER_MIN_LEN ? IBEX_ETHER_MIN_LEN : len;
}

/**
 * Write a short probe of @p len bytes (ibex_gen_short_min() .. the full
 * probe's minimum) into @p buf: the template's Ethernet, IPv4 and UDP
 * headers with the lengths, IPv4 checksum and destination port set, zero
 * padding, and the short trailer (flow, seq, tag >> 16, tsc of @p tr).
 */
static inline void
ibex_gen_short_write(uint8_t *buf, const struct ibex_gen_tmpl *t, uint32_t len,
		     const struct ibex_gen_trailer *tr)
{
	uint8_t *ip = buf + t->ip_off, *udp = buf + t->udp_off,
		*tl = buf + len - IBEX_GEN_SHORT_LEN;
	uint32_t iplen = len - t->ip_off, ulen = len - t->udp_off;
	uint16_t c, magic = IBEX_GEN_SHORT_MAGIC,
		 tag = (uint16_t)(tr->tag >> 16);

	memcpy(buf, t->hdr, t->bth_off);
	memset(buf + t->bth_off, 0, len - t->bth_off - IBEX_GEN_SHORT_LEN);
	ip[2] = (uint8_t)(iplen >> 8);
	ip[3] = (uint8_t)iplen;
	ip[10] = 0;
	ip[11] = 0;
	c = (uint16_t)~ibex_csum_fold(ip, 20, 0);
	ip[10] = (uint8_t)(c >> 8);
	ip[11] = (uint8_t)c;
	udp[2] = (uint8_t)(IBEX_GEN_SHORT_PORT >> 8);
	udp[3] = (uint8_t)IBEX_GEN_SHORT_PORT;
	udp[4] = (uint8_t)(ulen >> 8);
	udp[5] = (uint8_t)ulen;
	memcpy(tl, &magic, 2);
	memcpy(tl + 2, &tr->flow, 4);
	memcpy(tl + 6, &tr->seq, 4);
	memcpy(tl + 10, &tag, 2);
	memcpy(tl + 12, &tr->tsc, 6);   /* the low 48 bits (little-endian) */
}

/**
 * Read the short trailer of a frame of @p len bytes whose UDP header is at
 * @p udp_off, received at @p now (the transmit time's upper bits are
 * taken from it). @return false: not a short probe.
 */
static inline bool
ibex_gen_short_get(const uint8_t *frame, uint32_t len, uint16_t udp_off,
		   uint64_t now, struct ibex_gen_trailer *t)
{
	const uint8_t *tl = frame + len - IBEX_GEN_SHORT_LEN;
	const uint64_t mask = (UINT64_C(1) << 48) - 1;
	uint64_t tsc = 0;
	uint16_t magic, tag;

	if (len < (uint32_t)udp_off + 8 + IBEX_GEN_SHORT_LEN ||
	    frame[udp_off + 2] != (uint8_t)(IBEX_GEN_SHORT_PORT >> 8) ||
	    frame[udp_off + 3] != (uint8_t)IBEX_GEN_SHORT_PORT)
		return false;
	memcpy(&magic, tl, 2);
	if (magic != IBEX_GEN_SHORT_MAGIC)
		return false;
	memcpy(&t->flow, tl + 2, 4);
	memcpy(&t->seq, tl + 6, 4);
	memcpy(&tag, tl + 10, 2);
	memcpy(&tsc, tl + 12, 6);
	t->magic = IBEX_GEN_MAGIC;
	t->tsc = now - ((now - tsc) & mask);
	t->tag = (uint32_t)tag << 16;
	return true;
}

#endif /* IBEX_GEN_FRAME_H */
