/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_SEQ_H
#define IBEX_SEQ_H

/**
 * @file
 * Per-flow sequence checker (TRex semantics, exact duplicate window).
 *
 * Concurrency: one writer, the lcore that owns the object; per-packet
 * functions never lock, allocate or divide. Any other thread may read
 * while the writer runs: every field a reader uses is a word written with
 * the single-writer idiom of ibex_counter.h (IBEX_CNT_*, release where
 * noted) and read whole. A reader may see one packet's update applied to
 * some words and not yet to others; the reader functions say how they
 * cope. Reset and init are for the writer (or while it is stopped).
 *
 * docs/measurement.md gives every formula and source.
 */

#include <stdbool.h>
#include <stdint.h>

#include "ibex_common.h"
#include "ibex_counter.h"

/**
 * Sequence numbers recently below the highest one seen that are tracked
 * exactly (one bit each). A frame further behind than this is "stale":
 * see struct ibex_seq_counters. A power of two >= 64, so that n % WINDOW
 * stays consistent when n wraps at 2^32.
 */
#define IBEX_SEQ_WINDOW 128

/** Error counters of a flow, TRex names in brackets. */
struct ibex_seq_counters {
	uint64_t rx;           /**< frames received, duplicates included */
	uint64_t lost;         /**< sequence numbers skipped and not (yet) seen [dropped] */
	uint64_t out_of_order; /**< frames that arrived after a higher one [out_of_order] */
	uint64_t duplicate;    /**< frames seen before, within the window [dup] */
	uint64_t seq_too_high; /**< events: a frame ahead of the expected one [seq_too_high] */
	uint64_t seq_too_low;  /**< events: a frame behind the expected one [seq_too_low] */
	uint64_t stale;        /**< frames behind by more than the window (also
				    counted in seq_too_low and out_of_order) */
};

/**
 * Per-flow checker of 32-bit sequence numbers, compared wrap-safely (a
 * number up to 2^31 - 1 ahead of the expected one is ahead, otherwise it
 * is behind), so a flow may run through 2^32 and on.
 */
struct ibex_seq {
	struct ibex_seq_counters c; /**< read with ibex_seq_read() */
	uint32_t expected;  /**< next in-order sequence number */
	uint32_t span;      /**< numbers below expected tracked in seen[] */
	bool learn;         /**< take expected from the first frame */
	/** bit (n % WINDOW) = n seen, for n in [expected - span, expected) */
	uint64_t seen[IBEX_SEQ_WINDOW / 64];
};

/** Start a flow whose first frame carries @p first. Writer only. */
void ibex_seq_init(struct ibex_seq *s, uint32_t first);

/** Start a flow that takes its first frame's number as the start. */
void ibex_seq_init_learn(struct ibex_seq *s);

/** @internal Everything but the in-order case. */
void ibex_seq_update_slow(struct ibex_seq *s, uint32_t seq);

/**
 * Account one received frame carrying @p seq. In order: one bit set, three
 * stores. Anything else goes to the out-of-line slow path.
 *
 * - seq == expected: in order.
 * - seq ahead by g: seq_too_high += 1, lost += g (the skipped numbers).
 * - seq behind by d <= span (inside the window): seq_too_low += 1, then
 *   seen before -> duplicate += 1; not seen -> a late frame: lost -= 1,
 *   out_of_order += 1 (TRex moves the count from dropped to out-of-order).
 * - seq behind by more: seq_too_low, stale and out_of_order += 1, and
 *   lost -= 1 unless lost is 0, i.e. it is assumed late, not a duplicate.
 *   Counts stay exact as long as no frame is that late.
 */
static inline void
ibex_seq_update(struct ibex_seq *s, uint32_t seq)
{
	IBEX_CNT_ADD(s->c.rx, 1);
	if (ibex_unlikely(s->learn)) {
		s->learn = false;
		s->expected = seq;
	}
	if (ibex_likely(seq == s->expected)) {
		s->seen[(seq % IBEX_SEQ_WINDOW) / 64] |=
			UINT64_C(1) << (seq % 64);
		s->expected = seq + 1;
		if (s->span < IBEX_SEQ_WINDOW)
			s->span++;
		return;
	}
	ibex_seq_update_slow(s, seq);
}

/** Copy a flow's counters (any thread; each word read atomically). */
void ibex_seq_read(const struct ibex_seq *s, struct ibex_seq_counters *out);

/** Add counters (e.g. sum flows or cores): dst += src. */
void ibex_seq_counters_add(struct ibex_seq_counters *dst,
			   const struct ibex_seq_counters *src);

#endif /* IBEX_SEQ_H */
