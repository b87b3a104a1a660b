/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of RFC 3550 jitter, IPDV and RFC 5481 PDV, against values
 * worked out by hand from the formulas.
 */

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ibex_jitter.h"

/* Constant delay: every D(i-1,i) is 0, so J and IPDV stay 0. */
static void
test_constant_delay(void **state)
{
	struct ibex_jitter j;
	uint64_t i;

	(void)state;
	ibex_jitter_init(&j);
	for (i = 0; i < 1000; i++)
		assert_int_equal(ibex_jitter_update(&j, i * 1000, i * 1000 + 5000), 0);
	assert_int_equal(j.count, 1000);
	assert_int_equal(j.j16, 0);
	assert_true(ibex_jitter_rfc3550(&j) == 0.0);
	assert_int_equal(j.ipdv_min, 0);
	assert_int_equal(j.ipdv_max, 0);
}

/* The receiver's clock behind the sender's: transit < 0, still constant. */
static void
test_clock_offset(void **state)
{
	struct ibex_jitter j;
	uint64_t i;

	(void)state;
	ibex_jitter_init(&j);
	for (i = 0; i < 100; i++)
		ibex_jitter_update(&j, UINT64_C(1000000000) + i * 77, i * 77 + 3);
	assert_int_equal(j.j16, 0);
}

/*
 * Delays alternate 100, 200, 100, ...: |D| = 100 from the 2nd packet on.
 * RFC 3550 A.8 in 16 x J: j += 100 - ((j + 8) >> 4):
 *   pkt 2: 0 + 100 - 0 = 100 (J 6.25)
 *   pkt 3: 100 + 100 - (108 >> 4 = 6) = 194 (J 12.125)
 *   pkt 4: 194 + 100 - (202 >> 4 = 12) = 282 (J 17.625)
 *   pkt 5: 282 + 100 - (290 >> 4 = 18) = 364 (J 22.75)
 * It stops where (j + 8) >> 4 = 100 first holds: j = 1592, J = 99.5; the
 * exact recursion J += (100 - J) / 16 tends to 100, within half a unit.
 */
static void
test_alternating(void **state)
{
	static const uint64_t first[] = { 0, 100, 194, 282, 364 };
	struct ibex_jitter j;
	double exact = 0.0;
	uint64_t i, tx;
	int64_t d;

	(void)state;
	ibex_jitter_init(&j);
	for (i = 0; i < 2000; i++) {
		tx = 1000 + i * 10000;
		d = ibex_jitter_update(&j, tx, tx + (i % 2 ? 200 : 100));
		if (i == 0) {
			assert_int_equal(d, 0);
		} else {
			assert_int_equal(d, i % 2 ? 100 : -100);
			exact += (100.0 - exact) / 16.0;
		}
		if (i < IBEX_ARRAY_SIZE(first))
			assert_int_equal(j.j16, first[i]);
		assert_true(fabs(ibex_jitter_rfc3550(&j) - exact) <= 0.5);
	}
	assert_int_equal(j.j16, 1592);
	assert_true(ibex_jitter_rfc3550(&j) == 99.5);
	assert_int_equal(j.ipdv_min, -100);
	assert_int_equal(j.ipdv_max, 100);
}

/*
 * One spike: delays 1000, 1000, 1800, 1000, 1000 (ns).
 * D: -, 0, +800, -800, 0. j: 0, 0, 800, 800 + 800 - 50 = 1550,
 * 1550 + 0 - (1558 >> 4 = 97) = 1453. J = 1453 / 16 = 90.8125.
 */
static void
test_spike(void **state)
{
	static const uint64_t delay[] = { 1000, 1000, 1800, 1000, 1000 };
	static const int64_t ipdv[] = { 0, 0, 800, -800, 0 };
	static const uint64_t j16[] = { 0, 0, 800, 1550, 1453 };
	struct ibex_jitter j;
	unsigned int i;

	(void)state;
	ibex_jitter_init(&j);
	for (i = 0; i < IBEX_ARRAY_SIZE(delay); i++) {
		assert_int_equal(ibex_jitter_update(&j, i * 5000,
						    i * 5000 + delay[i]), ipdv[i]);
		assert_int_equal(j.j16, j16[i]);
	}
	assert_true(ibex_jitter_rfc3550(&j) == 90.8125);
	assert_int_equal(j.ipdv_min, -800);
	assert_int_equal(j.ipdv_max, 800);
}

/* Only rising delays: the IPDV minimum is positive, not a stale 0. */
static void
test_ipdv_range(void **state)
{
	struct ibex_jitter j;

	(void)state;
	ibex_jitter_init(&j);
	ibex_jitter_update(&j, 0, 10);
	assert_int_equal(j.ipdv_min, 0);
	ibex_jitter_update(&j, 100, 130);  /* D = +20 */
	ibex_jitter_update(&j, 200, 260);  /* D = +30 */
	assert_int_equal(j.ipdv_min, 20);
	assert_int_equal(j.ipdv_max, 30);
}

/*
 * PDV = D - D_min. Delays 1000..1099 once each: the p50 rank is 50, delay
 * 1049, in bucket [1048, 1055] -> 1055 - 1000 = 55. p99: rank 99, delay
 * 1098, bucket [1096, 1103] clamped to max 1099 -> 99.
 */
static void
test_pdv(void **state)
{
	struct ibex_hist *h = malloc(sizeof(*h));
	uint64_t i, exact;
	double q;

	(void)state;
	assert_non_null(h);
	ibex_hist_init(h);
	assert_int_equal(ibex_pdv_quantile(h, 0.5), 0);
	for (i = 0; i < 100; i++)
		ibex_hist_record(h, 1099 - i);
	assert_int_equal(ibex_pdv_quantile(h, 0.0), 0);
	assert_int_equal(ibex_pdv_quantile(h, 0.5), 55);
	assert_int_equal(ibex_pdv_quantile(h, 0.99), 99);
	assert_int_equal(ibex_pdv_quantile(h, 1.0), 99);
	/* Every quantile: >= the exact PDV, above it by < D / 128. */
	for (q = 0.01; q < 1.0; q += 0.01) {
		exact = (uint64_t)llround(q * 100.0) - 1; /* rank - 1 */
		assert_true(ibex_pdv_quantile(h, q) >= exact);
		assert_true(ibex_pdv_quantile(h, q) - exact < (1000 + exact) / 128);
	}

	/* Equal delays: PDV 0 at every quantile, thanks to the exact max. */
	ibex_hist_reset(h);
	for (i = 0; i < 50; i++)
		ibex_hist_record(h, 123456789);
	assert_int_equal(ibex_pdv_quantile(h, 0.5), 0);
	assert_int_equal(ibex_pdv_quantile(h, 0.999), 0);
	free(h);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_constant_delay),
		cmocka_unit_test(test_clock_offset),
		cmocka_unit_test(test_alternating),
		cmocka_unit_test(test_spike),
		cmocka_unit_test(test_ipdv_range),
		cmocka_unit_test(test_pdv),
	};

	return cmocka_run_group_tests_name("jitter", tests, NULL, NULL);
}
