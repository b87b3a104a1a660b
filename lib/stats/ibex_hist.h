/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_HIST_H
#define IBEX_HIST_H

/**
 * @file
 * Log-linear latency histogram (HdrHistogram layout). Units are the
 * caller's: it works on whatever integer time unit it is given
 * (nanoseconds, TSC ticks) and reports in that unit.
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

/** ibex_hist_init() of a histogram whose memory is zero already (from
 * calloc() or rte_zmalloc()): writes min alone, so the buckets' pages
 * stay untouched, out of the resident set, until samples land in them
 * (a switch has two per lane and port, 59 KB each, most never used). */
void ibex_hist_init_zeroed(struct ibex_hist *h);

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

	if (ibex_unlikely(v < IBEX_CNT_READ(h->min)))
		IBEX_CNT_SET(h->min, v);
	if (ibex_unlikely(v > IBEX_CNT_READ(h->max)))
		IBEX_CNT_SET(h->max, v);
	IBEX_CNT_ADD(h->sum, v);
	__atomic_store_n(b, IBEX_CNT_READ(*b) + 1, __ATOMIC_RELEASE);
	IBEX_CNT_ADD(h->count, 1);
}

/**
 * Record @p n samples of the same value @p v (n >= 1): what a burst of
 * frames that share one timestamp costs, one update instead of n.
 */
static inline void
ibex_hist_record_n(struct ibex_hist *h, uint64_t v, uint64_t n)
{
	uint64_t *b = &h->buckets[ibex_hist_index(v)];

	if (ibex_unlikely(v < IBEX_CNT_READ(h->min)))
		IBEX_CNT_SET(h->min, v);
	if (ibex_unlikely(v > IBEX_CNT_READ(h->max)))
		IBEX_CNT_SET(h->max, v);
	IBEX_CNT_ADD(h->sum, v * n);
	__atomic_store_n(b, IBEX_CNT_READ(*b) + n, __ATOMIC_RELEASE);
	IBEX_CNT_ADD(h->count, n);
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

#endif /* IBEX_HIST_H */
