/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_STATS_H
#define IBEX_STATS_H

/**
 * @file
 * Measurement primitives: a log-linear latency histogram, RFC 3550 jitter
 * with RFC 5481 IPDV/PDV, and a per-flow sequence checker.
 *
 * Units are the caller's: the histogram and the jitter estimator work on
 * whatever integer time unit they are given (nanoseconds, TSC ticks) and
 * report in that unit. docs/measurement.md gives every formula and source.
 *
 * Concurrency (all three): each object has ONE writer, the lcore that owns
 * it; per-packet functions never lock, allocate or divide. Any other thread
 * may read while the writer runs: every field a reader uses is a 64-bit
 * word written with a single atomic store (relaxed, or release where noted)
 * and read with atomic loads, so a reader never sees half a word. A reader
 * may see one packet's update applied to some words and not yet to others
 * (e.g. a bucket counted but the count field not yet bumped); the reader
 * functions below say how they cope. Reset and init are for the writer (or
 * while the writer is stopped).
 *
 * The GCC/Clang __atomic builtins are used on plain integers, as DPDK 22.11
 * itself does, so the structs stay ordinary, copyable and memset-able.
 */

#include <stdbool.h>
#include <stdint.h>

#include "ibex_common.h"

/** @internal Writer-side relaxed store of v into a shared word. */
#define IBEX_STATS_SET(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
/** @internal Relaxed load of a shared word. */
#define IBEX_STATS_GET(p) __atomic_load_n((p), __ATOMIC_RELAXED)
/** @internal Single-writer increment: a load and a store, no locked RMW. */
#define IBEX_STATS_ADD(p, n) IBEX_STATS_SET((p), IBEX_STATS_GET(p) + (n))

/* ==================================================================== */
/* Log-linear latency histogram (HdrHistogram layout)                   */
/* ==================================================================== */

/**
 * Sub-bucket precision: each power of two [2^e, 2^(e+1)) above 255 is cut
 * into 2^7 = 128 equal buckets, so a bucket's width is at most 1/128 of its
 * lowest value: < 0.79 % relative error. Values 0..255 have exact buckets.
 */
#define IBEX_HIST_SUB_BITS 7
/** Linear sub-buckets per power of two. */
#define IBEX_HIST_SUB_COUNT (1u << IBEX_HIST_SUB_BITS)
/**
 * Buckets covering the whole uint64_t range (0 .. 2^64-1): 58 x 128.
 * The largest index is (56 << 7) + 255; see ibex_hist_index().
 */
#define IBEX_HIST_BUCKETS ((64u - IBEX_HIST_SUB_BITS + 1u) << IBEX_HIST_SUB_BITS)

/**
 * A histogram of uint64_t samples: 7424 buckets, about 58 KiB, fixed size.
 * Place it in memory of the writer's NUMA node, cache-line aligned; call
 * ibex_hist_init() once. Fields are public for merging and dumping; use
 * the functions to read them.
 */
struct ibex_hist {
	uint64_t count; /**< samples recorded */
	uint64_t sum;   /**< sum of the raw samples (wraps after 2^64) */
	uint64_t min;   /**< exact smallest sample; UINT64_MAX when empty */
	uint64_t max;   /**< exact largest sample; 0 when empty */
	uint64_t buckets[IBEX_HIST_BUCKETS]; /**< samples per bucket */
};

/**
 * Bucket index of a value. With s = max(0, floor(log2 v) - 7) the bucket is
 * (s << 7) + (v >> s): v >> s keeps the top 8 significant bits (128..255 for
 * v >= 128), so consecutive powers of two continue each other's indices.
 * ORing 255 in makes values below 256 take s = 0 with no branch.
 */
static inline unsigned int
ibex_hist_index(uint64_t v)
{
	unsigned int s = 63u - (unsigned int)__builtin_clzll(v |
			(2u * IBEX_HIST_SUB_COUNT - 1u)) - IBEX_HIST_SUB_BITS;

	return (s << IBEX_HIST_SUB_BITS) + (unsigned int)(v >> s);
}

/** Lowest value that falls into bucket @p idx (idx < IBEX_HIST_BUCKETS). */
uint64_t ibex_hist_bucket_lo(unsigned int idx);

/**
 * Highest value that falls into bucket @p idx: the value every sample of
 * the bucket is reported as (HdrHistogram's "highest equivalent value").
 */
uint64_t ibex_hist_bucket_hi(unsigned int idx);

/** Empty the histogram (min = UINT64_MAX, everything else 0). Writer only. */
void ibex_hist_init(struct ibex_hist *h);

/** Same as ibex_hist_init(): start a new measurement. Writer only. */
void ibex_hist_reset(struct ibex_hist *h);

/**
 * Record one sample. Per packet: a bit scan, a shift, three stores (five
 * when min or max moves).
 *
 * min, max and sum are stored before the bucket, and the bucket with
 * release order, so a reader that acquires a bucket count (as
 * ibex_hist_merge() does) also sees min, max and sum covering every sample
 * it counted.
 */
static inline void
ibex_hist_record(struct ibex_hist *h, uint64_t v)
{
	uint64_t *b = &h->buckets[ibex_hist_index(v)];

	if (ibex_unlikely(v < IBEX_STATS_GET(&h->min)))
		IBEX_STATS_SET(&h->min, v);
	if (ibex_unlikely(v > IBEX_STATS_GET(&h->max)))
		IBEX_STATS_SET(&h->max, v);
	IBEX_STATS_ADD(&h->sum, v);
	__atomic_store_n(b, IBEX_STATS_GET(b) + 1, __ATOMIC_RELEASE);
	IBEX_STATS_ADD(&h->count, 1);
}

/**
 * Record @p n samples of the same value @p v (n >= 1): what a burst of
 * frames that share one timestamp costs, one update instead of n.
 */
static inline void
ibex_hist_record_n(struct ibex_hist *h, uint64_t v, uint64_t n)
{
	uint64_t *b = &h->buckets[ibex_hist_index(v)];

	if (ibex_unlikely(v < IBEX_STATS_GET(&h->min)))
		IBEX_STATS_SET(&h->min, v);
	if (ibex_unlikely(v > IBEX_STATS_GET(&h->max)))
		IBEX_STATS_SET(&h->max, v);
	IBEX_STATS_ADD(&h->sum, v * n);
	__atomic_store_n(b, IBEX_STATS_GET(b) + n, __ATOMIC_RELEASE);
	IBEX_STATS_ADD(&h->count, n);
}

/**
 * Add @p src into @p dst (e.g. sum per-core histograms). @p dst must be
 * private to the caller; @p src may be written concurrently.
 *
 * With a running writer the result is a consistent view of some set of
 * samples: dst->count is the sum of the bucket counts actually read (not
 * src->count), min/max cover every counted sample, and sum may include a
 * few samples recorded while the merge ran (mean off by those few).
 * Counts of different buckets are read at slightly different times, so a
 * sample recorded during the merge may or may not be included.
 */
void ibex_hist_merge(struct ibex_hist *dst, const struct ibex_hist *src);

/** Samples recorded. */
uint64_t ibex_hist_count(const struct ibex_hist *h);
/** Exact smallest sample, 0 when empty. */
uint64_t ibex_hist_min(const struct ibex_hist *h);
/** Exact largest sample, 0 when empty. */
uint64_t ibex_hist_max(const struct ibex_hist *h);
/** Sum of the raw samples (modulo 2^64). */
uint64_t ibex_hist_sum(const struct ibex_hist *h);
/** Mean of the raw samples (sum / count, not from buckets); 0 when empty. */
double ibex_hist_mean(const struct ibex_hist *h);

/**
 * Value at quantile @p q (0.5 = p50, 0.999 = p99.9).
 *
 * The rank is round(q x count), at least 1 (HdrHistogram's rule); the
 * result is the highest value of the bucket holding that rank, clamped to
 * [min, max]. So q <= 0 gives the exact min, q >= 1 the exact max, and any
 * other result is >= the true sample at that rank and above it by less
 * than 1/128 of it. 0 when empty. Call it on a merged snapshot, not on a
 * histogram being written.
 */
uint64_t ibex_hist_quantile(const struct ibex_hist *h, double q);

/** Cursor over the non-empty buckets, lowest first. */
struct ibex_hist_iter {
	unsigned int next;   /**< internal: next bucket index to look at */
	uint64_t lo;         /**< lowest value of the current bucket */
	uint64_t hi;         /**< highest value of the current bucket */
	uint64_t count;      /**< samples in the current bucket */
	uint64_t cumulative; /**< samples in this and all lower buckets */
};

/** Start an iteration. */
void ibex_hist_iter_init(struct ibex_hist_iter *it);

/**
 * Step to the next non-empty bucket (e.g. for CDF output:
 * cumulative / ibex_hist_count() at hi).
 * @return true with @p it filled, false when no bucket is left.
 */
bool ibex_hist_iter_next(const struct ibex_hist *h, struct ibex_hist_iter *it);

/* ==================================================================== */
/* Jitter: RFC 3550 interarrival jitter, RFC 3393/5481 IPDV             */
/* ==================================================================== */

/**
 * Jitter of one flow, fed in arrival order. Transit time is
 * T(i) = rx(i) - tx(i) as a signed number (the two clocks need not agree:
 * only differences are used), D(i-1,i) = T(i) - T(i-1) is the IPDV of
 * RFC 3393/5481 between consecutive arrivals, and
 * J(i) = J(i-1) + (|D(i-1,i)| - J(i-1)) / 16 (RFC 3550 6.4.1), kept as
 * 16 x J in an integer the way RFC 3550 A.8 does.
 */
struct ibex_jitter {
	uint64_t count;       /**< packets seen */
	uint64_t j16;         /**< RFC 3550 J scaled by 16 */
	int64_t ipdv_min;     /**< most negative IPDV; 0 before 2 packets */
	int64_t ipdv_max;     /**< most positive IPDV; 0 before 2 packets */
	int64_t prev_transit; /**< writer only: T of the previous packet */
};

/** Start a flow's jitter from nothing. Writer only. */
void ibex_jitter_init(struct ibex_jitter *j);

/**
 * Account one packet sent at @p tx and received at @p rx (any unit; the
 * difference is taken modulo 2^64 and read as signed).
 * @return the IPDV D(i-1,i) of this packet, 0 for the first packet.
 *
 * RFC 3550 A.8: jitter += d - ((jitter + 8) >> 4), with jitter = 16 x J.
 * The rounding keeps J within half a time unit of the exact recursion.
 */
static inline int64_t
ibex_jitter_update(struct ibex_jitter *j, uint64_t tx, uint64_t rx)
{
	int64_t transit = (int64_t)(rx - tx);
	uint64_t n = j->count;
	int64_t d;
	uint64_t ad;

	IBEX_STATS_SET(&j->count, n + 1);
	if (ibex_unlikely(n == 0)) {
		j->prev_transit = transit;
		return 0;
	}
	/* Subtract as unsigned: wraps instead of overflowing. */
	d = (int64_t)((uint64_t)transit - (uint64_t)j->prev_transit);
	j->prev_transit = transit;
	ad = d < 0 ? -(uint64_t)d : (uint64_t)d;
	IBEX_STATS_SET(&j->j16, j->j16 + ad - ((j->j16 + 8) >> 4));
	if (n == 1 || d < j->ipdv_min)
		IBEX_STATS_SET(&j->ipdv_min, d);
	if (n == 1 || d > j->ipdv_max)
		IBEX_STATS_SET(&j->ipdv_max, d);
	return d;
}

/** RFC 3550 interarrival jitter J, in the timestamps' unit. */
double ibex_jitter_rfc3550(const struct ibex_jitter *j);

/**
 * RFC 5481 PDV at quantile @p q from a histogram of one-way delays
 * rx - tx of the same flow: quantile(delay, q) - min(delay).
 *
 * PDV(i) = D(i) - D_min needs D_min, known only at the end; subtracting a
 * constant keeps the order of samples, so the q-quantile of PDV is the
 * q-quantile of D minus D_min. The error is the histogram's: below 1/128
 * of the delay itself (not of the PDV). 0 when empty.
 */
uint64_t ibex_pdv_quantile(const struct ibex_hist *delay, double q);

/* ==================================================================== */
/* Sequence checker (TRex semantics, exact duplicate window)            */
/* ==================================================================== */

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
	IBEX_STATS_ADD(&s->c.rx, 1);
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

#endif /* IBEX_STATS_H */
