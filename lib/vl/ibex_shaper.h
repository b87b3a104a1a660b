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

/** Shaper state of one egress port (one TX queue). */
struct ibex_shaper {
	uint64_t rate_fp;    /**< bytes per tick, 32.32; 0 = unshaped */
	int64_t tokens_fp;   /**< bytes, 32.32 */
	int64_t bucket_fp;   /**< depth, 32.32 */
	uint64_t max_dt;     /**< ticks that fill an empty bucket */
	uint64_t last;       /**< tick of the last refill */
	uint64_t rate_bps;   /**< as configured */
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
 * caller passes as @p now (rte_get_tsc_hz()). The bucket starts full.
 */
static inline void
ibex_shaper_init(struct ibex_shaper *s, uint64_t rate_bps, uint64_t hz,
		 uint64_t now)
{
	uint64_t bytes_per_s = rate_bps / 8;
	uint64_t bucket;

	s->rate_bps = rate_bps;
	s->last = now;
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
}

static inline bool
ibex_shaper_on(const struct ibex_shaper *s)
{
	return s->rate_fp != 0;
}

/** Earn the tokens of the time since the last refill. */
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
