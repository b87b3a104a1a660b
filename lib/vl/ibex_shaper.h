/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_SHAPER_H
#define IBEX_SHAPER_H

/**
 * @file
 * Egress shaper: a token bucket that makes a port send no faster than a
 * configured line rate, counting every byte a real link spends on a frame,
 * so that a virtual port (ring, memif, pcap) stands in for a 10/25/100/400G
 * link and congests where that link would.
 *
 *   wire bytes of a frame = max(len, 60) + 4 FCS + 8 preamble/SFD + 12 IFG
 *
 * (len is the frame without FCS, as DPDK counts it; 60 is the shortest
 * frame without FCS.) At 10 Gb/s a 64-byte frame (60 + FCS) takes 84 byte
 * times: 14.88 Mpps, the figure every NIC datasheet quotes.
 *
 * Tokens are bytes in 32.32 fixed point, earned at rate/8 bytes per second
 * of the caller's clock (TSC ticks). A frame may go while the bucket is
 * positive and takes its whole wire size (the bucket may go negative by one
 * frame: a deficit bucket, exact on average and never splitting a frame).
 * Depth: the larger of 16 KiB and 10 us at the rate, so a worker that polls
 * every few microseconds keeps the link busy while bursts stay short.
 *
 * Pure: time is passed in. One writer.
 *
 * Several writers, one port: each worker sends on a TX queue of its own,
 * and a bucket per queue would let N workers send N times the rate. A
 * port shaped by several workers has one ibex_shaper_clock, shared by
 * them: a virtual clock (GCRA) of when the port's bucket runs dry,
 *
 *   tokens(now) = rate x (now - next), at most the bucket's depth,
 *
 * so "tokens >= 0" is "next <= now", and taking B bytes moves next by B /
 * rate. A worker does not touch it per frame: when its own bucket is
 * empty it claims a grant (a quarter of the depth, plus the deficit its
 * last frame left) with one compare-and-swap, then spends it frame by
 * frame as a single writer would. The port's rate is exact on average;
 * it may burst by the bucket plus one grant per worker (a worker holds at
 * most one grant, and spends it later if it claimed it just before its
 * lanes emptied). With a clock, refill earns nothing from time and
 * ibex_shaper_reclaim() claims.
 */

#include <stdbool.h>
#include <stdint.h>

/** Per-frame overhead on the wire beyond the frame's bytes: FCS,
 * preamble + SFD, inter-frame gap. */
#define IBEX_WIRE_OVERHEAD (4 + 8 + 12)
/** Shortest frame without FCS. */
#define IBEX_WIRE_MIN_LEN 60
/** Smallest bucket, bytes. */
#define IBEX_SHAPER_MIN_BUCKET (16 * 1024)
/** Bucket depth in time at the rate, nanoseconds. */
#define IBEX_SHAPER_BUCKET_NS 10000

/** Fixed point of the shared clock: ticks << 16 (wraps every 2^48
 * ticks; compared by signed difference). */
#define IBEX_SHAPER_CLOCK_SHIFT 16

/**
 * The shared clock of a port shaped by several workers: when the port's
 * bucket runs dry (ticks << IBEX_SHAPER_CLOCK_SHIFT). Zero is a full
 * bucket (as any time long past is). On a cache line of its own: every
 * worker sending into the port claims on it, once per grant.
 */
struct ibex_shaper_clock {
	uint64_t next;
} __attribute__((aligned(64)));

/** Shaper state of one egress port (one TX queue). */
struct ibex_shaper {
	uint64_t rate_fp;    /**< bytes per tick, 32.32; 0 = unshaped */
	int64_t tokens_fp;   /**< bytes, 32.32 */
	int64_t bucket_fp;   /**< depth, 32.32 */
	uint64_t max_dt;     /**< ticks that fill an empty bucket */
	uint64_t last;       /**< tick of the last refill */
	uint64_t rate_bps;   /**< as configured */
	/** The port's shared clock, NULL when this queue shapes alone. */
	struct ibex_shaper_clock *clock;
	uint64_t tpb;        /**< clock units per byte, 16 fraction bits */
	uint64_t depth;      /**< the bucket, clock units */
	uint64_t lead_max;   /**< a next further ahead of now is stale */
	int64_t grant_fp;    /**< bytes claimed at once, 32.32 */
};

/** Bytes a frame of @p len occupies on the wire. */
static inline uint32_t
ibex_wire_bytes(uint32_t len)
{
	return (len < IBEX_WIRE_MIN_LEN ? IBEX_WIRE_MIN_LEN : len) +
	       IBEX_WIRE_OVERHEAD;
}

/**
 * Set the rate. @p rate_bps 0 turns shaping off. @p hz is the clock the
 * caller passes as @p now (rte_get_tsc_hz()). The bucket starts full, and
 * the queue shapes alone until ibex_shaper_share().
 */
static inline void
ibex_shaper_init(struct ibex_shaper *s, uint64_t rate_bps, uint64_t hz,
		 uint64_t now)
{
	uint64_t bytes_per_s = rate_bps / 8;
	unsigned __int128 lead;
	uint64_t bucket;

	s->rate_bps = rate_bps;
	s->last = now;
	s->clock = NULL;
	if (rate_bps == 0 || hz == 0) {
		s->rate_fp = 0;
		s->tokens_fp = s->bucket_fp = 0;
		s->max_dt = 0;
		return;
	}
	s->rate_fp = (uint64_t)(((unsigned __int128)bytes_per_s << 32) / hz);
	if (s->rate_fp == 0)
		s->rate_fp = 1;
	bucket = (uint64_t)((unsigned __int128)bytes_per_s *
			    IBEX_SHAPER_BUCKET_NS / 1000000000u);
	if (bucket < IBEX_SHAPER_MIN_BUCKET)
		bucket = IBEX_SHAPER_MIN_BUCKET;
	s->bucket_fp = (int64_t)(bucket << 32);
	s->tokens_fp = s->bucket_fp;
	s->max_dt = (uint64_t)(((unsigned __int128)bucket << 32) / s->rate_fp)
		    + 1;
	/* For a shared clock: clock units per byte (16 fraction bits),
	 * and what a grant is. */
	s->tpb = (uint64_t)(((unsigned __int128)hz <<
			     (16 + IBEX_SHAPER_CLOCK_SHIFT)) /
			    (bytes_per_s != 0 ? bytes_per_s : 1));
	s->depth = (uint64_t)(((unsigned __int128)bucket * s->tpb) >> 16);
	s->grant_fp = s->bucket_fp / 4;
	/* A worker's claim moves next at most a grant and a jumbo frame's
	 * deficit ahead; far more than any number of workers can is a clock
	 * left behind by a wrap (2^47 ticks idle), read as long past. */
	lead = 256 * ((unsigned __int128)s->depth +
		      (((unsigned __int128)(16 * 1024) * s->tpb) >> 16));
	s->lead_max = lead > INT64_MAX / 2 ? (uint64_t)(INT64_MAX / 2) :
					      (uint64_t)lead;
}

/**
 * After ibex_shaper_init(): share @p clock (NULL: shape alone) from now
 * on. With a clock the bucket starts empty and claims from the clock at
 * the next refill (N workers starting with full buckets of their own
 * would burst N buckets).
 */
static inline void
ibex_shaper_share(struct ibex_shaper *s, struct ibex_shaper_clock *clock)
{
	s->clock = clock;
	if (clock != NULL && s->rate_fp != 0) {
		s->tokens_fp = 0;
		s->max_dt = 0; /* time earns this queue nothing */
	}
}

static inline bool
ibex_shaper_on(const struct ibex_shaper *s)
{
	return s->rate_fp != 0;
}

/**
 * A shared clock: when this queue's bucket is empty, claim a grant (and
 * the deficit) for it if the port has tokens at @p now. One compare-and-
 * swap, retried only when another worker claimed in between. Out of line,
 * off the path of a queue that shapes alone.
 */
static __attribute__((noinline, unused)) void
ibex_shaper_claim(struct ibex_shaper *s, uint64_t now)
{
	struct ibex_shaper_clock *c = s->clock;
	uint64_t t = now << IBEX_SHAPER_CLOCK_SHIFT;
	uint64_t want_fp, cost, next, base;

	if (s->tokens_fp > 0)
		return;
	want_fp = (uint64_t)(s->grant_fp - s->tokens_fp);
	cost = (uint64_t)(((unsigned __int128)want_fp * s->tpb) >> 48);
	next = __atomic_load_n(&c->next, __ATOMIC_RELAXED);
	do {
		base = next;
		/* A full bucket is all the port may save; a next far ahead
		 * is a clock left behind by a wrap. */
		if ((int64_t)(t - s->depth - base) > 0 ||
		    (int64_t)(base - t) > (int64_t)s->lead_max)
			base = t - s->depth;
		if ((int64_t)(base - t) > 0)
			return; /* dry: the port sent its rate */
	} while (!__atomic_compare_exchange_n(&c->next, &next, base + cost,
					      true, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	s->tokens_fp = s->grant_fp;
}

/** Earn the tokens of the time since the last refill (with a shared
 * clock none: max_dt is 0, and ibex_shaper_reclaim() claims them). */
static inline void
ibex_shaper_refill(struct ibex_shaper *s, uint64_t now)
{
	uint64_t dt = now - s->last;

	s->last = now;
	if (dt > s->max_dt)
		dt = s->max_dt;
	s->tokens_fp += (int64_t)(dt * s->rate_fp);
	if (s->tokens_fp > s->bucket_fp)
		s->tokens_fp = s->bucket_fp;
}

/**
 * After a refill left the bucket empty: with a shared clock, claim a
 * grant from it at @p now. A queue that shapes alone pays one test, only
 * when its bucket is empty.
 * @return whether a frame may go now.
 */
static inline bool
ibex_shaper_reclaim(struct ibex_shaper *s, uint64_t now)
{
	if (s->clock == NULL)
		return false;
	ibex_shaper_claim(s, now);
	return s->tokens_fp > 0;
}

/** May a frame go now (tokens left)? Refill first. */
static inline bool
ibex_shaper_ready(const struct ibex_shaper *s)
{
	return s->tokens_fp > 0;
}

/** Take a frame of @p len bytes (its wire size) from the bucket. */
static inline void
ibex_shaper_take(struct ibex_shaper *s, uint32_t len)
{
	s->tokens_fp -= (int64_t)((uint64_t)ibex_wire_bytes(len) << 32);
}

#endif /* IBEX_SHAPER_H */
