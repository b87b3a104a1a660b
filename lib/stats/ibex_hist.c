/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Log-linear histogram, HdrHistogram layout with 7 bits of sub-bucket
 * precision. The per-sample path is ibex_hist_record() in the header;
 * everything here runs on the control thread.
 */

#include <string.h>

#include "ibex_hist.h"

/*
 * Bucket idx = (s << 7) + m with m in 128..255 holds [m << s, (m + 1) << s).
 * Indices 0..127 have s = 0 and m = idx (values 0..127, exact).
 */
static unsigned int
bucket_shift(unsigned int idx)
{
	unsigned int e = idx >> IBEX_HIST_SUB_BITS;

	return e == 0 ? 0 : e - 1;
}

uint64_t
ibex_hist_bucket_lo(unsigned int idx)
{
	unsigned int s = bucket_shift(idx);

	if (idx < IBEX_HIST_SUB_COUNT)
		return idx;
	return (uint64_t)((idx & (IBEX_HIST_SUB_COUNT - 1)) |
			  IBEX_HIST_SUB_COUNT) << s;
}

uint64_t
ibex_hist_bucket_hi(unsigned int idx)
{
	/* The top bucket ends at 2^64 - 1: no overflow. */
	return ibex_hist_bucket_lo(idx) + ((UINT64_C(1) << bucket_shift(idx)) - 1);
}

void
ibex_hist_init(struct ibex_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

void
ibex_hist_init_zeroed(struct ibex_hist *h)
{
	h->min = UINT64_MAX;
}

void
ibex_hist_reset(struct ibex_hist *h)
{
	ibex_hist_init(h);
}

void
ibex_hist_merge(struct ibex_hist *dst, const struct ibex_hist *src)
{
	uint64_t n = 0;
	uint64_t v;
	unsigned int i;

	/*
	 * Buckets first, with acquire: the writer stores min, max and sum
	 * before releasing a bucket, so what we read of those afterwards
	 * covers every sample counted here.
	 */
	for (i = 0; i < IBEX_HIST_BUCKETS; i++) {
		v = __atomic_load_n(&src->buckets[i], __ATOMIC_ACQUIRE);
		dst->buckets[i] += v;
		n += v;
	}
	/* Count what we saw, so dst stays self-consistent. */
	dst->count += n;
	dst->sum += IBEX_CNT_READ(src->sum);
	v = IBEX_CNT_READ(src->min);
	if (v < dst->min)
		dst->min = v;
	v = IBEX_CNT_READ(src->max);
	if (v > dst->max)
		dst->max = v;
}

uint64_t
ibex_hist_count(const struct ibex_hist *h)
{
	return IBEX_CNT_READ(h->count);
}

uint64_t
ibex_hist_min(const struct ibex_hist *h)
{
	return ibex_hist_count(h) == 0 ? 0 : IBEX_CNT_READ(h->min);
}

uint64_t
ibex_hist_max(const struct ibex_hist *h)
{
	return IBEX_CNT_READ(h->max);
}

uint64_t
ibex_hist_sum(const struct ibex_hist *h)
{
	return IBEX_CNT_READ(h->sum);
}

double
ibex_hist_mean(const struct ibex_hist *h)
{
	uint64_t n = ibex_hist_count(h);

	return n == 0 ? 0.0 : (double)ibex_hist_sum(h) / (double)n;
}

/* Clamp a bucket's representative value into the exact [min, max]. */
static uint64_t
clamp_exact(const struct ibex_hist *h, uint64_t v)
{
	uint64_t lo = ibex_hist_min(h);
	uint64_t hi = ibex_hist_max(h);

	if (v > hi)
		v = hi;
	if (v < lo)
		v = lo;
	return v;
}

uint64_t
ibex_hist_quantile(const struct ibex_hist *h, double q)
{
	uint64_t n = ibex_hist_count(h);
	uint64_t rank, cum = 0;
	unsigned int i;

	if (n == 0)
		return 0;
	if (!(q > 0.0))		/* also catches NaN */
		return ibex_hist_min(h);
	if (q >= 1.0)
		return ibex_hist_max(h);
	/* Rounded, not ceil(): q x n is often just above an integer. */
	rank = (uint64_t)(q * (double)n + 0.5);
	if (rank == 0)
		rank = 1;
	if (rank > n)
		rank = n;
	for (i = 0; i < IBEX_HIST_BUCKETS; i++) {
		cum += IBEX_CNT_READ(h->buckets[i]);
		if (cum >= rank)
			return clamp_exact(h, ibex_hist_bucket_hi(i));
	}
	/* Only when the buckets lag the count field (a live histogram). */
	return ibex_hist_max(h);
}

void
ibex_hist_iter_init(struct ibex_hist_iter *it)
{
	memset(it, 0, sizeof(*it));
}

bool
ibex_hist_iter_next(const struct ibex_hist *h, struct ibex_hist_iter *it)
{
	uint64_t c;

	while (it->next < IBEX_HIST_BUCKETS) {
		unsigned int i = it->next++;

		c = IBEX_CNT_READ(h->buckets[i]);
		if (c == 0)
			continue;
		it->lo = ibex_hist_bucket_lo(i);
		it->hi = ibex_hist_bucket_hi(i);
		it->count = c;
		it->cumulative += c;
		return true;
	}
	return false;
}
