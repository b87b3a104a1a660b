/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the log-linear histogram: bucket layout, relative error
 * over 1 .. 2^63, exact min/max/sum/mean, quantiles of a known
 * distribution, merge, iteration, reset, and a reader merging while a
 * writer records.
 */

#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ibex_hist.h"

/* xorshift64*: deterministic test data. */
static uint64_t
rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * UINT64_C(2685821657736338717);
}

/* A value spread over all magnitudes: random bits shifted down. */
static uint64_t
rnd_log(uint64_t *s)
{
	uint64_t v = rnd(s);

	return v >> (v % 64);
}

static int
setup_hist(void **state)
{
	struct ibex_hist *h = malloc(sizeof(*h));

	if (h == NULL)
		return -1;
	ibex_hist_init(h);
	*state = h;
	return 0;
}

static int
teardown_hist(void **state)
{
	free(*state);
	return 0;
}

/* Every bucket is contiguous with the next and maps back onto itself. */
static void
test_layout(void **state)
{
	unsigned int i;
	uint64_t lo, hi;

	(void)state;
	assert_int_equal(IBEX_HIST_BUCKETS, 7424);
	assert_int_equal(ibex_hist_bucket_lo(0), 0);
	assert_true(ibex_hist_bucket_hi(IBEX_HIST_BUCKETS - 1) == UINT64_MAX);
	for (i = 0; i < IBEX_HIST_BUCKETS; i++) {
		lo = ibex_hist_bucket_lo(i);
		hi = ibex_hist_bucket_hi(i);
		assert_true(lo <= hi);
		assert_int_equal(ibex_hist_index(lo), i);
		assert_int_equal(ibex_hist_index(hi), i);
		if (i + 1 < IBEX_HIST_BUCKETS)
			assert_true(ibex_hist_bucket_lo(i + 1) == hi + 1);
		/* Width at most 1/128 of the lowest value above the exact range. */
		if (lo >= 256)
			assert_true((hi - lo + 1) * 128 <= lo);
		else
			assert_true(lo == hi);
	}
}

/* Hand-computed buckets: v >> s keeps the top 8 bits. */
static void
test_known_buckets(void **state)
{
	(void)state;
	assert_int_equal(ibex_hist_index(0), 0);
	assert_int_equal(ibex_hist_index(5), 5);
	assert_int_equal(ibex_hist_index(255), 255);
	/* 256 = 2^8: s = 1, 256 >> 1 = 128, idx = 128 + 128. */
	assert_int_equal(ibex_hist_index(256), 256);
	assert_int_equal(ibex_hist_index(257), 256);
	assert_int_equal(ibex_hist_index(258), 257);
	/* 1000: 2^9 <= v < 2^10, s = 2, 1000 >> 2 = 250, idx = 256 + 250. */
	assert_int_equal(ibex_hist_index(1000), 506);
	assert_int_equal(ibex_hist_bucket_lo(506), 1000);
	assert_int_equal(ibex_hist_bucket_hi(506), 1003);
	/* 1e10: 2^33 <= v < 2^34, s = 26, 1e10 >> 26 = 149. */
	assert_int_equal(ibex_hist_index(UINT64_C(10000000000)), 26 * 128 + 149);
	assert_true(ibex_hist_bucket_lo(3477) == UINT64_C(149) << 26);
	assert_true(ibex_hist_bucket_hi(3477) == (UINT64_C(150) << 26) - 1);
	assert_int_equal(ibex_hist_index(UINT64_MAX), 7423);
}

/*
 * Record v and UINT64_MAX: p50 has rank 1, so it reports v's bucket
 * unclamped by max; it must be >= v and within 1% of it. Alone, v comes
 * back exactly (clamped to the exact max).
 */
static void
check_one_value(struct ibex_hist *h, uint64_t v)
{
	uint64_t r;

	ibex_hist_reset(h);
	ibex_hist_record(h, v);
	assert_true(ibex_hist_quantile(h, 0.5) == v);
	ibex_hist_record(h, UINT64_MAX);
	r = ibex_hist_quantile(h, 0.5);
	assert_true(r >= v);
	assert_true((double)(r - v) <= 0.01 * (double)v);
	/* Integers: doubles round near 2^63. Exact below 256. */
	if (v < 256)
		assert_true(r == v);
	else
		assert_true(r - v < (v >> 7));
}

static void
test_error_sweep(void **state)
{
	struct ibex_hist *h = *state;
	double x;
	uint64_t v;
	unsigned int k, n = 0;

	for (v = 0; v <= 3000; v++, n++)
		check_one_value(h, v);
	for (x = 3000.0; x <= 1.2e10; x *= 1.002, n++)
		check_one_value(h, (uint64_t)x);
	for (k = 1; k < 64; k++, n += 3) {
		check_one_value(h, (UINT64_C(1) << k) - 1);
		check_one_value(h, UINT64_C(1) << k);
		check_one_value(h, (UINT64_C(1) << k) + 1);
	}
	assert_true(n > 10000);
}

static void
test_min_max_exact(void **state)
{
	struct ibex_hist *h = *state;
	uint64_t s = 42, v, lo = UINT64_MAX, hi = 0;
	int i;

	for (i = 0; i < 10000; i++) {
		v = rnd_log(&s) | 1; /* odd: never on a bucket edge by chance */
		lo = v < lo ? v : lo;
		hi = v > hi ? v : hi;
		ibex_hist_record(h, v);
	}
	assert_int_equal(ibex_hist_count(h), 10000);
	assert_true(ibex_hist_min(h) == lo);
	assert_true(ibex_hist_max(h) == hi);
	assert_true(ibex_hist_quantile(h, 0.0) == lo);
	assert_true(ibex_hist_quantile(h, -1.0) == lo);
	assert_true(ibex_hist_quantile(h, NAN) == lo);
	assert_true(ibex_hist_quantile(h, 1.0) == hi);
	assert_true(ibex_hist_quantile(h, 2.0) == hi);
	/* A rank-1 quantile is the min's bucket clamped into [min, max]. */
	assert_true(ibex_hist_quantile(h, 1e-9) >= lo);
	assert_true(ibex_hist_quantile(h, 0.99999999) <= hi);
}

static void
test_empty(void **state)
{
	struct ibex_hist *h = *state;
	struct ibex_hist_iter it;

	assert_int_equal(ibex_hist_count(h), 0);
	assert_int_equal(ibex_hist_min(h), 0);
	assert_int_equal(ibex_hist_max(h), 0);
	assert_int_equal(ibex_hist_sum(h), 0);
	assert_true(ibex_hist_mean(h) == 0.0);
	assert_int_equal(ibex_hist_quantile(h, 0.5), 0);
	ibex_hist_iter_init(&it);
	assert_false(ibex_hist_iter_next(h, &it));
}

/* ibex_hist_init_zeroed() on zeroed memory is ibex_hist_init(): the same
 * bytes empty, and the same figures after the same samples. */
static void
test_init_zeroed(void **state)
{
	struct ibex_hist *a = malloc(sizeof(*a)), *b = calloc(1, sizeof(*b));
	uint64_t v;

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	memset(a, 0xa5, sizeof(*a));
	ibex_hist_init(a);
	ibex_hist_init_zeroed(b);
	assert_memory_equal(a, b, sizeof(*a));
	for (v = 1; v < 5000000; v = v * 3 + 7) {
		ibex_hist_record(a, v);
		ibex_hist_record(b, v);
	}
	assert_int_equal(ibex_hist_min(b), ibex_hist_min(a));
	assert_int_equal(ibex_hist_quantile(b, 0.5), ibex_hist_quantile(a, 0.5));
	assert_memory_equal(a, b, sizeof(*a));
	free(a);
	free(b);
}

/* Uniform 1..1e6, each once: the k-th smallest value is k. */
static void
test_uniform(void **state)
{
	struct ibex_hist *h = *state;
	static const double qs[] = { 0.1, 0.5, 0.9, 0.99, 0.999, 0.9999 };
	uint64_t v, exact, r;
	unsigned int i;

	for (v = 1; v <= 1000000; v++)
		ibex_hist_record(h, v);
	for (i = 0; i < IBEX_ARRAY_SIZE(qs); i++) {
		exact = (uint64_t)llround(qs[i] * 1e6);
		r = ibex_hist_quantile(h, qs[i]);
		assert_true(r >= exact);
		assert_true((double)(r - exact) <= 0.01 * (double)exact);
	}
	/* 500000 lies in [244 << 11, 245 << 11): reported as 501759. */
	assert_int_equal(ibex_hist_quantile(h, 0.5), 501759);
	/* 990000 lies in [241 << 12, 242 << 12). */
	assert_int_equal(ibex_hist_quantile(h, 0.99), 991231);
	/* 999000 lies in [243 << 12, 244 << 12). */
	assert_int_equal(ibex_hist_quantile(h, 0.999), 999423);
	assert_int_equal(ibex_hist_quantile(h, 1.0), 1000000);
	assert_int_equal(ibex_hist_quantile(h, 0.0), 1);
	assert_int_equal(ibex_hist_sum(h), UINT64_C(500000500000));
	assert_true(ibex_hist_mean(h) == 500000.5);
}

/*
 * The rank is round(q x n), at least 1, and values below 256 are exact:
 * of {10, 20, 30}, q 0.5 -> rank 2 (1.5 rounded), q 0.9 -> 3 (2.7),
 * q 0.1 -> 1 (0.3 rounds to 0, raised to 1), q 0.4 -> 1 (1.2).
 */
static void
test_rank_rule(void **state)
{
	struct ibex_hist *h = *state;

	ibex_hist_record(h, 30);
	ibex_hist_record(h, 10);
	ibex_hist_record(h, 20);
	assert_int_equal(ibex_hist_quantile(h, 0.5), 20);
	assert_int_equal(ibex_hist_quantile(h, 0.9), 30);
	assert_int_equal(ibex_hist_quantile(h, 0.1), 10);
	assert_int_equal(ibex_hist_quantile(h, 0.4), 10);
	assert_int_equal(ibex_hist_quantile(h, 0.6), 20);
}

/* Four per-core histograms merged equal one that saw every sample. */
static void
test_merge(void **state)
{
	struct ibex_hist *part = malloc(4 * sizeof(*part));
	struct ibex_hist *all = malloc(sizeof(*all));
	struct ibex_hist *m = *state;
	uint64_t s = 7, v;
	int i;

	assert_non_null(part);
	assert_non_null(all);
	ibex_hist_init(all);
	for (i = 0; i < 4; i++)
		ibex_hist_init(&part[i]);
	for (i = 0; i < 40000; i++) {
		v = rnd_log(&s) % UINT64_C(100000000000);
		ibex_hist_record(&part[i % 4], v);
		ibex_hist_record(all, v);
	}
	/* Start from a non-empty dst: merge must add, not overwrite. */
	ibex_hist_merge(m, &part[0]);
	for (i = 1; i < 4; i++)
		ibex_hist_merge(m, &part[i]);
	assert_memory_equal(m, all, sizeof(*all));
	/* Merging an empty histogram changes nothing. */
	ibex_hist_init(&part[0]);
	ibex_hist_merge(m, &part[0]);
	assert_memory_equal(m, all, sizeof(*all));
	free(part);
	free(all);
}

/* The mean comes from raw samples, not from bucket values. */
static void
test_mean_raw(void **state)
{
	struct ibex_hist *h = *state;
	uint64_t v;

	/* Same bucket [1000, 1003]: a bucket mean would say 1003. */
	ibex_hist_record(h, 1000);
	ibex_hist_record(h, 1003);
	assert_true(ibex_hist_mean(h) == 1001.5);
	assert_int_equal(ibex_hist_quantile(h, 0.5), 1003);

	ibex_hist_reset(h);
	for (v = 1; v <= 1000; v++)
		ibex_hist_record(h, v);
	assert_int_equal(ibex_hist_sum(h), 500500);
	assert_true(ibex_hist_mean(h) == 500.5);

	ibex_hist_reset(h);
	ibex_hist_record(h, 3);
	ibex_hist_record(h, UINT64_C(10000000000));
	ibex_hist_record(h, 7);
	assert_true(ibex_hist_sum(h) == UINT64_C(10000000010));
	assert_true(ibex_hist_mean(h) == 10000000010.0 / 3.0);
}

static void
test_iter(void **state)
{
	struct ibex_hist *h = *state;
	struct ibex_hist_iter it;

	ibex_hist_record(h, 5);
	ibex_hist_record(h, UINT64_C(10000000000));
	ibex_hist_record(h, 5);
	ibex_hist_record(h, 1001);
	ibex_hist_record(h, 5);
	ibex_hist_record(h, 1000);
	ibex_hist_iter_init(&it);
	assert_true(ibex_hist_iter_next(h, &it));
	assert_int_equal(it.lo, 5);
	assert_int_equal(it.hi, 5);
	assert_int_equal(it.count, 3);
	assert_int_equal(it.cumulative, 3);
	assert_true(ibex_hist_iter_next(h, &it));
	assert_int_equal(it.lo, 1000);
	assert_int_equal(it.hi, 1003);
	assert_int_equal(it.count, 2);
	assert_int_equal(it.cumulative, 5);
	assert_true(ibex_hist_iter_next(h, &it));
	assert_true(it.lo == UINT64_C(9999220736));
	assert_true(it.hi == UINT64_C(10066329599));
	assert_int_equal(it.count, 1);
	assert_int_equal(it.cumulative, 6);
	assert_false(ibex_hist_iter_next(h, &it));
	assert_false(ibex_hist_iter_next(h, &it));
}

static void
test_reset(void **state)
{
	struct ibex_hist *h = *state;
	struct ibex_hist_iter it;

	ibex_hist_record(h, 17);
	ibex_hist_record(h, 123456789);
	ibex_hist_reset(h);
	assert_int_equal(ibex_hist_count(h), 0);
	assert_int_equal(ibex_hist_sum(h), 0);
	ibex_hist_iter_init(&it);
	assert_false(ibex_hist_iter_next(h, &it));
	ibex_hist_record(h, 40);
	assert_int_equal(ibex_hist_min(h), 40);
	assert_int_equal(ibex_hist_max(h), 40);
}

/* ---- a reader merging while the writer records ---- */

#define CONC_SAMPLES 2000000u

static void *
writer_main(void *arg)
{
	struct ibex_hist *h = arg;
	uint64_t i;

	/* Values 100..1099, repeating: min 100, max 1099. */
	for (i = 0; i < CONC_SAMPLES; i++)
		ibex_hist_record(h, 100 + i % 1000);
	return NULL;
}

static void
test_concurrent_merge(void **state)
{
	struct ibex_hist *live = *state;
	struct ibex_hist *snap = malloc(sizeof(*snap));
	uint64_t prev = 0, n;
	pthread_t t;
	int reads = 0;

	assert_non_null(snap);
	assert_int_equal(pthread_create(&t, NULL, writer_main, live), 0);
	do {
		ibex_hist_init(snap);
		ibex_hist_merge(snap, live);
		n = ibex_hist_count(snap);
		/* Counts only grow; what was counted lies in [min, max]. */
		assert_true(n >= prev && n <= CONC_SAMPLES);
		if (n > 0) {
			assert_int_equal(ibex_hist_min(snap), 100);
			assert_true(ibex_hist_max(snap) <= 1099);
			assert_true(ibex_hist_quantile(snap, 1.0) <=
				    ibex_hist_max(snap));
			assert_true(ibex_hist_quantile(snap, 0.5) >= 100);
		}
		prev = n;
		reads++;
	} while (n < CONC_SAMPLES && reads < 1000000);
	assert_int_equal(pthread_join(t, NULL), 0);
	ibex_hist_init(snap);
	ibex_hist_merge(snap, live);
	assert_int_equal(ibex_hist_count(snap), CONC_SAMPLES);
	assert_int_equal(ibex_hist_count(live), CONC_SAMPLES);
	/* 2000 rounds of 100..1099: 2000 x 599500. */
	assert_int_equal(ibex_hist_sum(snap), UINT64_C(1199000000));
	assert_int_equal(ibex_hist_max(snap), 1099);
	free(snap);
}

int
main(void)
{
	const struct CMUnitTest layout[] = {
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_known_buckets),
	};
	const struct CMUnitTest values[] = {
		cmocka_unit_test_setup_teardown(test_error_sweep, setup_hist, teardown_hist),
		cmocka_unit_test_setup_teardown(test_min_max_exact, setup_hist, teardown_hist),
		cmocka_unit_test_setup_teardown(test_empty, setup_hist, teardown_hist),
		cmocka_unit_test(test_init_zeroed),
		cmocka_unit_test_setup_teardown(test_uniform, setup_hist, teardown_hist),
		cmocka_unit_test_setup_teardown(test_rank_rule, setup_hist, teardown_hist),
		cmocka_unit_test_setup_teardown(test_merge, setup_hist, teardown_hist),
		cmocka_unit_test_setup_teardown(test_mean_raw, setup_hist, teardown_hist),
		cmocka_unit_test_setup_teardown(test_iter, setup_hist, teardown_hist),
		cmocka_unit_test_setup_teardown(test_reset, setup_hist, teardown_hist),
		cmocka_unit_test_setup_teardown(test_concurrent_merge, setup_hist, teardown_hist),
	};
	int fails = 0;

	fails += cmocka_run_group_tests_name("hist_layout", layout, NULL, NULL);
	fails += cmocka_run_group_tests_name("hist_values", values, NULL, NULL);
	return fails == 0 ? 0 : 1;
}
