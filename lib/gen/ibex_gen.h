/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_GEN_H
#define IBEX_GEN_H

/**
 * @file
 * The ibex traffic generator, pure part (no EAL): emulated ranks and their
 * addresses, RoCEv2 frames with a probe trailer, the collective engines as
 * dependency-driven state machines, open-loop pacing, straggler injection,
 * DCQCN-style rate control, receive-side measurement and the reports.
 *
 * Time is an integer tick count passed in by the caller (the TSC in the
 * DPDK runner, a simulated clock in the unit tests) together with its
 * frequency; nothing here reads a clock, allocates per packet or logs.
 * docs/generator.md gives every formula.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ibex_common.h"
#include "ibex_pkt.h"
#include "ibex_stats.h"

/** Most emulated ranks (flows are rank pairs: n x n sequence checkers). */
#define IBEX_GEN_MAX_RANKS 64
/** Most ports one generator drives. */
#define IBEX_GEN_MAX_PORTS 16
/** Most steps of one collective (ring: 2(n-1)). */
#define IBEX_GEN_MAX_STEPS (2 * (IBEX_GEN_MAX_RANKS - 1))
/** Flows: (source rank, destination rank) pairs. */
#define IBEX_GEN_MAX_FLOWS (IBEX_GEN_MAX_RANKS * IBEX_GEN_MAX_RANKS)

/* ==================================================================== */
/* Ranks and frames                                                     */
/* ==================================================================== */

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
	uint32_t flow;  /**< src_rank * IBEX_GEN_MAX_RANKS + dst_rank */
	uint32_t seq;   /**< per-flow sequence number */
	uint32_t tag;   /**< (iteration & 0xffff) << 16 | step */
	uint64_t tsc;   /**< transmit time, sender's ticks */
};

/** Flow id of a rank pair. */
static inline uint32_t
ibex_gen_flow(unsigned int src, unsigned int dst)
{
	return src * IBEX_GEN_MAX_RANKS + dst;
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
 * trailer {magic16, flow16, seq32, tag16, tsc64}, little-endian; the tag
 * holds only the iteration (open-loop trial). Ethernet + IPv4 + UDP + 18
 * = 60 bytes, the smallest Ethernet frame.
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
	uint16_t c, magic = IBEX_GEN_SHORT_MAGIC, flow = (uint16_t)tr->flow,
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
	memcpy(tl + 2, &flow, 2);
	memcpy(tl + 4, &tr->seq, 4);
	memcpy(tl + 8, &tag, 2);
	memcpy(tl + 10, &tr->tsc, 8);
}

/**
 * Read the short trailer of a frame of @p len bytes whose UDP header is at
 * @p udp_off. @return false: not a short probe.
 */
static inline bool
ibex_gen_short_get(const uint8_t *frame, uint32_t len, uint16_t udp_off,
		   struct ibex_gen_trailer *t)
{
	const uint8_t *tl = frame + len - IBEX_GEN_SHORT_LEN;
	uint16_t magic, flow, tag;

	if (len < (uint32_t)udp_off + 8 + IBEX_GEN_SHORT_LEN ||
	    frame[udp_off + 2] != (uint8_t)(IBEX_GEN_SHORT_PORT >> 8) ||
	    frame[udp_off + 3] != (uint8_t)IBEX_GEN_SHORT_PORT)
		return false;
	memcpy(&magic, tl, 2);
	if (magic != IBEX_GEN_SHORT_MAGIC)
		return false;
	memcpy(&flow, tl + 2, 2);
	memcpy(&t->seq, tl + 4, 4);
	memcpy(&tag, tl + 8, 2);
	memcpy(&t->tsc, tl + 10, 8);
	t->magic = IBEX_GEN_MAGIC;
	t->flow = flow;
	t->tag = (uint32_t)tag << 16;
	return true;
}

/* ==================================================================== */
/* Deterministic randomness                                             */
/* ==================================================================== */

/** splitmix64: a seeded, reproducible 64-bit generator. */
static inline uint64_t
ibex_gen_rand(uint64_t *state)
{
	uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

/** Uniform double in [0, 1). */
static inline double
ibex_gen_rand_unit(uint64_t *state)
{
	return (double)(ibex_gen_rand(state) >> 11) * 0x1.0p-53;
}

/* ==================================================================== */
/* Collective engines                                                   */
/* ==================================================================== */

enum ibex_gen_engine {
	IBEX_GEN_RING = 0,   /**< ring all-reduce: 2(n-1) steps of S/n */
	IBEX_GEN_HD,         /**< halving-doubling all-reduce: 2 log2 n rounds */
	IBEX_GEN_INCAST,     /**< every rank sends S to the root */
	IBEX_GEN_ALLTOALL,   /**< every rank sends S/n to every other rank */
	IBEX_GEN_RATE,       /**< open loop: paced frames, rank r -> r+1 */
	IBEX_GEN_ENGINE_MAX,
};

/** Name of an engine ("ring", "hd", ...). */
const char *ibex_gen_engine_name(enum ibex_gen_engine e);
/** Engine by name. @return the engine or -EINVAL. */
int ibex_gen_engine_parse(const char *s);

/** Straggler injection: rank @p rank starts each step late by @p delay
 * ticks with probability @p prob (rank -1: none). */
struct ibex_gen_straggler {
	int rank;
	uint64_t delay;
	double prob;
};

/** Configuration of one collective (one message size). */
struct ibex_coll_cfg {
	enum ibex_gen_engine engine; /**< RING, HD, INCAST or ALLTOALL */
	uint16_t nranks;             /**< 2..IBEX_GEN_MAX_RANKS (HD: power of 2) */
	uint16_t root;               /**< INCAST destination */
	uint64_t bytes;              /**< S, rounded up to a multiple of nranks */
	uint32_t payload_max;        /**< application bytes per frame (>= 1) */
	struct ibex_gen_straggler straggler;
	uint64_t seed;
};

/** One frame the engine wants sent. */
struct ibex_gen_pkt {
	uint16_t src;
	uint16_t dst;
	uint16_t step;
	uint8_t opcode;     /**< IBEX_GEN_OP_* by position in the message */
	uint32_t payload;   /**< application bytes */
};

enum ibex_coll_state {
	IBEX_COLL_IDLE = 0,  /**< iteration not started */
	IBEX_COLL_DELAYED,   /**< straggler: step starts at start_at */
	IBEX_COLL_SEND,      /**< sending this step's data */
	IBEX_COLL_WAIT,      /**< sent; waiting for this step's input */
	IBEX_COLL_DONE,      /**< every step complete */
};

/** One rank's progress. */
struct ibex_coll_rank {
	uint8_t state;       /**< enum ibex_coll_state */
	uint16_t step;
	uint16_t nsend;      /**< transfers of this step */
	uint16_t send_idx;   /**< transfer being sent */
	uint16_t peer;       /**< destination of the transfer being sent */
	uint64_t send_left;  /**< its bytes not yet framed */
	uint64_t xfer_bytes; /**< size of the transfer being sent */
	uint64_t start_at;   /**< DELAYED until this tick */
	uint64_t tx_bytes;   /**< application bytes sent this iteration */
	uint64_t rx_bytes;   /**< application bytes received this iteration */
	uint64_t late;       /**< straggler delays applied (all iterations) */
	uint64_t done_at;    /**< tick the last step completed */
};

/**
 * A collective in progress: one iteration at a time. Rank r starts step
 * s + 1 only when it has sent all of step s and received all of step s's
 * input (the dependency that turns network tail latency into collective
 * tail latency). Input for a later step may arrive early and is counted
 * against that step.
 */
struct ibex_coll {
	struct ibex_coll_cfg cfg;
	uint16_t nsteps;
	uint16_t ndone;                   /**< ranks DONE */
	uint32_t iter;                    /**< iterations started */
	uint64_t t0;                      /**< start of the current iteration */
	uint64_t rng;
	uint64_t stale_rx;                /**< frames of another iteration */
	struct ibex_coll_rank rank[IBEX_GEN_MAX_RANKS];
	/** input bytes received per (rank, step) this iteration */
	uint64_t rx_got[IBEX_GEN_MAX_RANKS][IBEX_GEN_MAX_STEPS];
	/** tick each (rank, step) completed this iteration */
	uint64_t step_done[IBEX_GEN_MAX_RANKS][IBEX_GEN_MAX_STEPS];
};

/** Steps of a collective (ring 2(n-1), hd 2 log2 n, incast/alltoall 1). */
unsigned int ibex_coll_nsteps(const struct ibex_coll_cfg *cfg);

/**
 * Transfers rank @p r sends in step @p s: peers in @p peer, bytes in
 * @p bytes (room for IBEX_GEN_MAX_RANKS). @return how many.
 */
unsigned int ibex_coll_sends(const struct ibex_coll_cfg *cfg, unsigned int r,
			     unsigned int s, uint16_t *peer, uint64_t *bytes);

/** Input bytes rank @p r must receive in step @p s before it may go on. */
uint64_t ibex_coll_recv_bytes(const struct ibex_coll_cfg *cfg, unsigned int r,
			      unsigned int s);

/** Message size actually moved for @p bytes (rounded up to n). */
uint64_t ibex_coll_msg_bytes(const struct ibex_coll_cfg *cfg);

/** Check and set up. @return 0 or -EINVAL (bad rank count, hd not 2^k). */
int ibex_coll_init(struct ibex_coll *c, const struct ibex_coll_cfg *cfg);

/** Start the next iteration at @p now: every rank begins step 0. */
void ibex_coll_start(struct ibex_coll *c, uint64_t now);

/**
 * Next frame of rank @p r at @p now. The caller commits to sending it.
 * @return true with @p p filled, false when the rank has nothing to send
 *   now (delayed, waiting for input, or done).
 */
bool ibex_coll_tx(struct ibex_coll *c, unsigned int r, uint64_t now,
		  struct ibex_gen_pkt *p);

/**
 * @p payload application bytes for rank @p dst in step @p step of
 * iteration @p iter (low 16 bits) arrived at @p now. Frames of another
 * iteration are counted as stale and ignored.
 */
void ibex_coll_rx(struct ibex_coll *c, unsigned int dst, unsigned int step,
		  uint32_t iter, uint32_t payload, uint64_t now);

/** True when every rank finished the current iteration. */
static inline bool
ibex_coll_done(const struct ibex_coll *c)
{
	return c->ndone == c->cfg.nranks;
}

/** Iteration completion time: last rank's finish - start. */
uint64_t ibex_coll_elapsed(const struct ibex_coll *c);

/**
 * Idle rank time of the finished iteration: for each step, the sum over
 * ranks of (slowest rank's completion of the step - this rank's).
 */
uint64_t ibex_coll_idle(const struct ibex_coll *c);

/** Bus bandwidth factor (nccl-tests): ring/hd 2(n-1)/n, alltoall (n-1)/n,
 * incast n-1 (the root's link carries (n-1) S). */
double ibex_coll_busbw_factor(enum ibex_gen_engine e, unsigned int n);

/* ==================================================================== */
/* Pacing                                                               */
/* ==================================================================== */

/**
 * Departure times for an open-loop sender: constant rate (exact long-term
 * rate by carrying the remainder of hz / rate), bursts of @p burst frames
 * at rate / burst, or Poisson (exponential gaps). A sender that falls
 * more than max_lag behind restarts from now (counted in @p resync), so a
 * stall is not followed by an unbounded burst.
 */
struct ibex_pacer {
	uint64_t next;      /**< tick of the next departure (event) */
	uint64_t q;         /**< whole ticks per event */
	uint64_t r;         /**< remainder per event, over den */
	uint64_t den;
	uint64_t acc;       /**< remainder carried */
	double mean;        /**< Poisson: mean ticks per event */
	double frac;        /**< Poisson: fraction of a tick carried */
	uint64_t rng;
	uint64_t max_lag;
	uint64_t resync;
	uint64_t sent;
	uint32_t burst;
	uint32_t burst_left;
	bool poisson;
};

/**
 * @param hz     ticks per second
 * @param pps    frames per second (> 0)
 * @param burst  frames per departure (>= 1)
 * @return 0 or -EINVAL.
 */
int ibex_pacer_init(struct ibex_pacer *p, uint64_t hz, double pps,
		    uint32_t burst, bool poisson, uint64_t seed, uint64_t now);

/** @internal Step to the next departure event. */
void ibex_pacer_advance(struct ibex_pacer *p);

/**
 * Frames that may leave now, at most @p max (per burst of the caller).
 * Per call: a compare and an add per frame.
 */
static inline unsigned int
ibex_pacer_due(struct ibex_pacer *p, uint64_t now, unsigned int max)
{
	unsigned int n = 0;

	if (ibex_unlikely(now > p->next + p->max_lag)) {
		p->next = now;
		p->resync++;
	}
	while (n < max) {
		if (p->burst_left > 0) {
			p->burst_left--;
			n++;
			continue;
		}
		if (now < p->next)
			break;
		p->burst_left = p->burst;
		ibex_pacer_advance(p);
	}
	p->sent += n;
	return n;
}

/** Give back @p n frames ibex_pacer_due() allowed but that could not go. */
static inline void
ibex_pacer_unsend(struct ibex_pacer *p, unsigned int n)
{
	p->burst_left += n;
	p->sent -= n;
}

/* ==================================================================== */
/* DCQCN-style rate control                                             */
/* ==================================================================== */

/**
 * Reaction point of DCQCN (Zhu et al., SIGCOMM 2015), per sending rank.
 * Rates in bytes per second, times in ticks.
 *
 * On a CNP: Rt = Rc, Rc = Rc (1 - alpha/2), alpha = (1 - g) alpha + g,
 * and the increase counters restart. Every alpha period without a CNP:
 * alpha = (1 - g) alpha. Every increase period (timer) and every
 * byte_counter bytes (byte counter), one increase event: while both
 * counters are below F, fast recovery Rc = (Rt + Rc) / 2; once either
 * passed F, additive increase Rt += rai; once both did, hyper increase
 * Rt += i x rhai; then Rc = (Rt + Rc) / 2. Rates stay in [min, line].
 */
struct ibex_dcqcn_params {
	double line_rate;     /**< bytes/s; the start rate */
	double min_rate;      /**< bytes/s floor */
	double rai;           /**< additive increase, bytes/s */
	double rhai;          /**< hyper increase, bytes/s */
	double g;             /**< alpha gain (1/256) */
	uint64_t alpha_period; /**< ticks (55 us) */
	uint64_t inc_period;   /**< ticks (55 us) */
	uint64_t byte_counter; /**< bytes (10 MB) */
	uint32_t f;            /**< fast recovery steps (5) */
};

struct ibex_dcqcn {
	struct ibex_dcqcn_params p;
	double rc;            /**< current rate */
	double rt;            /**< target rate */
	double alpha;
	uint64_t alpha_at;    /**< next alpha decay */
	uint64_t inc_at;      /**< next timer increase */
	uint64_t bytes;       /**< since the last byte-counter event */
	uint32_t t_count;     /**< timer events since the last CNP */
	uint32_t b_count;     /**< byte-counter events since the last CNP */
	uint64_t cnps;
	uint64_t cuts;
};

/** Defaults for @p line_rate bytes/s at @p hz ticks/s. */
void ibex_dcqcn_defaults(struct ibex_dcqcn_params *p, double line_rate,
			 uint64_t hz);
void ibex_dcqcn_init(struct ibex_dcqcn *d, const struct ibex_dcqcn_params *p,
		     uint64_t now);
/** A CNP for this sender arrived. */
void ibex_dcqcn_cnp(struct ibex_dcqcn *d, uint64_t now);
/** Run the timers up to @p now (housekeeping, and before each send). */
void ibex_dcqcn_tick(struct ibex_dcqcn *d, uint64_t now);
/** @p bytes were sent (byte counter). */
void ibex_dcqcn_sent(struct ibex_dcqcn *d, uint64_t bytes);

/* ==================================================================== */
/* Receive-side measurement                                             */
/* ==================================================================== */

/** Interval between CNPs of one flow (DCQCN's N = 50 us), in ns. */
#define IBEX_GEN_CNP_INTERVAL_NS 50000

/** What the receivers measured (one writer: the generator lcore). */
struct ibex_gen_meas {
	struct ibex_hist lat;   /**< one-way delay, ticks */
	uint64_t rx_frames;
	uint64_t rx_bytes;      /**< frame bytes */
	uint64_t rx_payload;    /**< application bytes */
	uint64_t ce;            /**< frames with ECN CE */
	uint64_t ect;           /**< frames with ECT(0)/ECT(1) */
	uint64_t foreign;       /**< frames not for a rank of the port */
	uint64_t no_trailer;    /**< frames without a probe trailer */
	uint64_t fc_frames;     /**< PFC and credit frames received */
	uint64_t tx_frames;
	uint64_t tx_bytes;
	uint64_t tx_payload;
	uint64_t cnps;          /**< CNPs generated (CE seen, rate limited) */
	struct ibex_jitter jit[IBEX_GEN_MAX_FLOWS];
	struct ibex_seq seq[IBEX_GEN_MAX_FLOWS];
	uint64_t last_cnp[IBEX_GEN_MAX_FLOWS];
	uint32_t tx_seq[IBEX_GEN_MAX_FLOWS];
	uint32_t tx_psn[IBEX_GEN_MAX_FLOWS];
};

/** Empty everything; sequence checkers expect 0 first. */
void ibex_gen_meas_init(struct ibex_gen_meas *m);
/** Restart latency and jitter (end of warm-up); sequences go on. */
void ibex_gen_meas_reset_latency(struct ibex_gen_meas *m);

/**
 * Account one received probe frame. @return true when a CNP is due for the
 * flow's sender (CE seen and the last CNP is @p cnp_gap ticks old).
 */
static inline bool
ibex_gen_meas_rx(struct ibex_gen_meas *m, const struct ibex_gen_trailer *t,
		 uint32_t frame_len, uint8_t ecn, uint64_t now,
		 uint64_t cnp_gap)
{
	uint32_t f = t->flow;

	m->rx_frames++;
	m->rx_bytes += frame_len;
	ibex_hist_record(&m->lat, now - t->tsc);
	ibex_jitter_update(&m->jit[f], t->tsc, now);
	ibex_seq_update(&m->seq[f], t->seq);
	if (ecn == IBEX_ECN_CE) {
		m->ce++;
		if (now - m->last_cnp[f] >= cnp_gap) {
			m->last_cnp[f] = now;
			m->cnps++;
			return true;
		}
	} else if (ecn != IBEX_ECN_NOT_ECT) {
		m->ect++;
	}
	return false;
}

/* ==================================================================== */
/* Benchmark searches (RFC 2544 throughput, RFC 8239 microburst)        */
/* ==================================================================== */

/**
 * Binary search for the largest value (offered rate, burst length) whose
 * trial passes, RFC 2544 section 26.1 style: the first trial runs at the
 * maximum; if it passes, that is the answer; otherwise the value halves the
 * interval between the highest pass (lo, the minimum at first) and the
 * lowest failure (hi) until hi - lo <= resolution. A trial passes when its
 * loss (offered - received) / offered is at most loss_max (0: every
 * offered frame received).
 */
struct ibex_search {
	double min;        /**< lower end; lo starts here (never tried) */
	double max;        /**< first trial */
	double res;        /**< stop when hi - lo <= res */
	double loss_max;   /**< pass: loss fraction <= this */
	double lo;         /**< highest value that passed (min: none) */
	double hi;         /**< lowest value that failed (> max: none) */
	double cur;        /**< value of the trial in progress */
	bool integer;      /**< whole values only (burst lengths) */
	bool passed_any;
	bool done;
	unsigned int trials;
	double lo_loss;    /**< loss fraction of the trial that set lo */
	double hi_loss;    /**< loss fraction of the trial that set hi */
};

/**
 * @param min       lower end (e.g. 0 pps, or a known pass), not tried
 * @param max       upper end, tried first (> min)
 * @param res       resolution, same unit (> 0; integer searches: >= 1)
 * @param loss_max  0 for a zero-loss search, e.g. 0.001 for 0.1 %
 * @return 0 or -EINVAL.
 */
int ibex_search_init(struct ibex_search *s, double min, double max, double res,
		     double loss_max, bool integer);

/** Value of the next trial, also in s->cur. Call only while !s->done. */
double ibex_search_next(struct ibex_search *s);

/**
 * Result of the trial at s->cur: @p offered frames sent, @p received of
 * them arrived. @return true when the trial passed.
 */
bool ibex_search_record(struct ibex_search *s, uint64_t offered,
			uint64_t received);

/** Loss fraction of a trial: (offered - received) / offered, >= 0. */
static inline double
ibex_search_loss(uint64_t offered, uint64_t received)
{
	if (offered == 0 || received >= offered)
		return 0;
	return (double)(offered - received) / (double)offered;
}

/** Would a trial of @p offered / @p received frames pass @p s? */
static inline bool
ibex_search_pass(const struct ibex_search *s, uint64_t offered,
		 uint64_t received)
{
	return offered > 0 &&
	       (s->loss_max > 0 ? ibex_search_loss(offered, received) <=
				  s->loss_max : received >= offered);
}

/** Most open-loop flows (--flow). */
#define IBEX_GEN_MAX_RFLOWS 64
/** Most frame sizes of a throughput search (--sizes). */
#define IBEX_GEN_MAX_SEARCH_SIZES 16

/** One open-loop flow of the rate engine. */
struct ibex_gen_rflow {
	uint16_t src;      /**< sending rank */
	uint16_t dst;      /**< receiving rank */
	double pps;        /**< its rate; 0: an equal share of --rate */
};

enum ibex_gen_search_kind {
	IBEX_GEN_SEARCH_NONE = 0,
	IBEX_GEN_SEARCH_RATE,   /**< RFC 2544: NDR and PDR per frame size */
	IBEX_GEN_SEARCH_BURST,  /**< RFC 8239: largest burst without loss */
};

/** Parse a --flow list "S:D[:PPS],..." into @p o. @return 0 or -EINVAL. */
struct ibex_gen_opts;
int ibex_gen_flows_parse(struct ibex_gen_opts *o, const char *s);

/** Result of one search (one frame size, or the burst search). */
struct ibex_gen_search_res {
	uint32_t size;          /**< frame bytes with FCS */
	uint32_t trials;        /**< NDR and PDR trials together */
	double max_pps;         /**< upper end (see docs/benchmarks.md) */
	double flat_tx_pps;     /**< flat-out trial: offered */
	double flat_rx_pps;     /**< flat-out trial: received (capacity) */
	double ndr_pps;         /**< offered rate of the zero-loss trial */
	double pdr_pps;         /**< offered rate of the partial-drop trial */
	double pdr_loss;        /**< its loss fraction */
	double lat_p50_ns;      /**< latency of the NDR (burst: best) trial */
	double lat_p99_ns;
	double lat_max_ns;
	uint32_t burst;         /**< burst search: largest lossless burst */
	uint32_t fail_burst;    /**< smallest burst that lost (0: none) */
	double fail_loss;       /**< its loss fraction */
	uint64_t fail_rx;       /**< frames received of it */
	uint64_t fail_tx;
};

/* ==================================================================== */
/* Options and reports                                                  */
/* ==================================================================== */

enum ibex_gen_fc {
	IBEX_GEN_FC_NONE = 0,
	IBEX_GEN_FC_PFC,     /**< obey 802.1Qbb frames received on the port */
	IBEX_GEN_FC_CREDIT,  /**< ibex credits (EtherType 0x88B5) */
};

/** Everything a run is configured with (ibex-gen options). */
struct ibex_gen_opts {
	enum ibex_gen_engine engine;
	uint16_t nranks;
	uint16_t root;
	uint64_t min_bytes;      /**< -b */
	uint64_t max_bytes;      /**< -e */
	uint32_t factor;         /**< -f */
	uint32_t iters;
	uint32_t warmup;
	struct ibex_gen_straggler straggler; /**< delay in microseconds here */
	double straggler_us;
	uint64_t seed;
	double rate_pps;         /**< rate engine: total frames/s (0 = as fast as possible) */
	uint32_t burst;          /**< rate engine: frames per departure */
	bool poisson;
	double duration_s;       /**< rate engine */
	uint32_t frame_size;     /**< rate engine: frame length */
	uint32_t mtu;            /**< largest frame, bytes without FCS */
	struct ibex_gen_frame_opts frame;
	enum ibex_gen_fc fc;
	uint8_t prio;            /**< PFC priority of our traffic */
	uint8_t vl;              /**< credit VL of our traffic */
	uint32_t link_mbps;      /**< port speed for PFC quanta; at the default
				      (100000) the port's own, if it says */
	bool dcqcn;
	uint32_t timeout_ms;     /**< an iteration that takes longer fails */
	const char *json;
	const char *csv;
	const char *plot_dir;
	const char *meta;        /**< the JSON's "meta" object (text), or NULL:
				      set by the app (ibex_meta_json()) */
	bool quiet;
	bool progress;           /**< --progress: a stderr line per size/trial */
	/* open-loop flows and benchmark searches (rate engine) */
	struct ibex_gen_rflow rflow[IBEX_GEN_MAX_RFLOWS]; /**< --flow */
	uint16_t nrflows;        /**< 0: rank r -> r+1 for every rank */
	bool tx_drop;            /**< drop what the port does not take (a wire
				      into a full queue), counted as lost */
	enum ibex_gen_search_kind search;
	double trial_s;          /**< search trial length (0.25) */
	double resolution;       /**< rate search: fraction of the maximum (0.01) */
	double pdr_loss;         /**< PDR loss threshold, fraction (0.001) */
	double max_pps;          /**< rate search upper end (0: flat out, measured) */
	uint32_t burst_max;      /**< burst search upper end (4096) */
	uint32_t retries;        /**< a failed trial is run again this often
				      before it counts as failed (1) */
	uint32_t sizes[IBEX_GEN_MAX_SEARCH_SIZES]; /**< with FCS */
	uint16_t nsizes;         /**< 0: --size + 4 */
};

/** Defaults: ring, 8 ranks, 1 KiB .. 1 MiB x2, 20 iterations, 5 warm-up. */
void ibex_gen_opts_default(struct ibex_gen_opts *o);

/**
 * Parse generator options (getopt_long, from argv[0]'s next element on;
 * optind is reset). @return 0, 1 for --help (usage printed), -EINVAL with
 * a message on stderr.
 */
int ibex_gen_opts_parse(struct ibex_gen_opts *o, int argc, char **argv);
/** Print the option list. */
void ibex_gen_usage(FILE *f, const char *prog);
/** Whole-run checks (ranks vs engine etc.). @return 0 or -EINVAL + message. */
int ibex_gen_opts_check(const struct ibex_gen_opts *o, char *err, size_t len);

/** Most iterations recorded per size. */
#define IBEX_GEN_MAX_ITERS 100000
/** Most message sizes of a sweep. */
#define IBEX_GEN_MAX_SIZES 64

/** Results of one message size. */
struct ibex_gen_size_res {
	uint64_t bytes;          /**< S as moved (rounded up to n) */
	uint32_t iters;          /**< measured iterations completed */
	uint32_t failed;         /**< iterations past the timeout */
	uint64_t *ct;            /**< completion time per iteration, ns */
	uint64_t idle_ns;        /**< idle rank time, summed over iterations */
	uint64_t tx_bytes_rank;  /**< rank 0 application bytes per iteration */
	double step_ns[IBEX_GEN_MAX_STEPS]; /**< mean completion of each step
					        (slowest rank), since start */
	double rank_ns[IBEX_GEN_MAX_RANKS]; /**< mean finish time per rank */
	uint64_t late;           /**< straggler delays applied */
};

/** The whole report. */
struct ibex_gen_report {
	const struct ibex_gen_opts *opts;
	uint64_t hz;
	unsigned int nsizes;
	unsigned int nsteps_max;
	struct ibex_gen_size_res size[IBEX_GEN_MAX_SIZES];
	/* rate engine */
	double elapsed_s;
	uint64_t pacer_resync;
	/* flow control seen by the senders */
	uint64_t pfc_rx;
	uint64_t pfc_paused_ticks;
	uint64_t credit_rx;
	uint64_t credit_tx;
	uint64_t credit_stalls;
	uint64_t tx_full;        /**< TX bursts the port did not take whole */
	uint64_t dcqcn_cuts;
	double dcqcn_min_rate;   /**< lowest current rate seen (bytes/s) */
	const struct ibex_gen_meas *meas;
	/* open-loop flows: frames offered and received per --flow */
	uint16_t nrflows;
	struct ibex_gen_rflow rflow[IBEX_GEN_MAX_RFLOWS];
	uint64_t rflow_tx[IBEX_GEN_MAX_RFLOWS];
	uint64_t rflow_rx[IBEX_GEN_MAX_RFLOWS];
	uint64_t tx_dropped;     /**< frames the port refused (--tx-drop) */
	uint64_t stale_rx;       /**< frames of an earlier trial */
	/* searches */
	unsigned int nsearch;
	struct ibex_gen_search_res search[IBEX_GEN_MAX_SEARCH_SIZES];
};

/**
 * Prepare @p rep for a run (allocates the per-size iteration arrays).
 * @return 0 or -ENOMEM.
 */
int ibex_gen_report_init(struct ibex_gen_report *rep,
			 const struct ibex_gen_opts *o, uint64_t hz,
			 const struct ibex_gen_meas *meas);
void ibex_gen_report_free(struct ibex_gen_report *rep);

/** Record one finished measured iteration of size slot @p si. */
void ibex_gen_report_iter(struct ibex_gen_report *rep, unsigned int si,
			  const struct ibex_coll *c);

/** Exact quantile of a size's completion times (ns). */
uint64_t ibex_gen_ct_quantile(const struct ibex_gen_size_res *s, double q);

/** Print the tables (nccl-tests style, latency, sequence, flow control). */
void ibex_gen_report_print(FILE *f, const struct ibex_gen_report *rep);
/** Write JSON / CSV. @return 0 or -errno. */
int ibex_gen_report_json(const struct ibex_gen_report *rep, const char *path);
int ibex_gen_report_csv(const struct ibex_gen_report *rep, const char *path);
/**
 * Write the plot data and gnuplot script into @p dir and run gnuplot
 * (PNG and SVG: latency CDF, completion-time CDF per size).
 * @return 0, -ENOENT when gnuplot is not installed, or -errno.
 */
int ibex_gen_report_plot(const struct ibex_gen_report *rep, const char *dir);

/** Sequence counters summed over every flow. */
void ibex_gen_meas_seq_total(const struct ibex_gen_meas *m,
			     struct ibex_seq_counters *out);

#endif /* IBEX_GEN_H */
