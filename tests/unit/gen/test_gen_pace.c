/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Pacing on a simulated clock: over one simulated second the pacer lets
 * through the requested rate to within 1 % (constant, bursts, Poisson) at
 * rates from 0.1 to 50 Mpps, however irregularly the sender polls; a
 * stalled sender resynchronises instead of bursting without bound. And
 * the DCQCN reaction point: cut on CNP, alpha decay, recovery to line rate.
 */

#include <math.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "ibex_gen_dcqcn.h"
#include "ibex_gen_pace.h"
#include "ibex_gen_rand.h"

#define HZ UINT64_C(2500000000) /* a 2.5 GHz TSC */

/* Poll at random gaps of 0..max_gap ticks for one second; take up to 32
 * frames per poll. @return frames let through. */
static uint64_t
run_second(struct ibex_pacer *p, uint64_t t0, uint64_t max_gap, uint64_t seed)
{
	uint64_t now = t0, n = 0, rng = seed;

	while (now < t0 + HZ) {
		n += ibex_pacer_due(p, now, 32);
		now += 1 + ibex_gen_rand(&rng) % max_gap;
	}
	return n;
}

static void
test_constant_rates(void **state)
{
	static const double rates[] = { 1e5, 1e6, 5e6, 10e6, 25e6, 50e6 };
	unsigned int i;

	(void)state;
	print_message("%12s %14s %10s\n", "rate (pps)", "sent in 1 s", "error %");
	for (i = 0; i < IBEX_ARRAY_SIZE(rates); i++) {
		struct ibex_pacer p;
		uint64_t n;
		double err;

		assert_int_equal(ibex_pacer_init(&p, HZ, rates[i], 1, false, 1,
						 1000), 0);
		/* polls at up to 2000 ticks (0.8 us) apart, 32 per poll */
		n = run_second(&p, 1000, 2000, 42);
		err = ((double)n - rates[i]) / rates[i] * 100.0;
		print_message("%12.0f %14lu %+10.4f\n", rates[i],
			      (unsigned long)n, err);
		assert_true(fabs(err) < 1.0);
		assert_int_equal(p.resync, 0);
	}
}

static void
test_fractional_rate_exact(void **state)
{
	struct ibex_pacer p;
	uint64_t now, n = 0;

	(void)state;
	/* 3 frames per 7 ticks' worth of rate: hz/rate not an integer;
	 * the carried remainder keeps the long-run count exact. */
	assert_int_equal(ibex_pacer_init(&p, 7000, 3000, 1, false, 1, 0), 0);
	for (now = 0; now < 7000 * 100; now++)
		n += ibex_pacer_due(&p, now, 64);
	assert_true(n >= 300000 - 1 && n <= 300000 + 1);
}

static void
test_bursts(void **state)
{
	struct ibex_pacer p;
	uint64_t now, n, total = 0, groups = 0;

	(void)state;
	assert_int_equal(ibex_pacer_init(&p, HZ, 1e6, 16, false, 1, 0), 0);
	/* poll every 100 ticks: frames come 16 at a time */
	for (now = 0; now < HZ; now += 100) {
		n = ibex_pacer_due(&p, now, 64);
		if (n == 0)
			continue;
		assert_int_equal(n, 16);
		total += n;
		groups++;
	}
	assert_true(fabs((double)total - 1e6) / 1e6 < 0.01);
	assert_int_equal(groups * 16, total);
}

static void
test_poisson(void **state)
{
	struct ibex_pacer p;
	uint64_t n;

	(void)state;
	assert_int_equal(ibex_pacer_init(&p, HZ, 1e6, 1, true, 99, 0), 0);
	n = run_second(&p, 0, 100, 5);
	print_message("poisson 1 Mpps: %lu in 1 s\n", (unsigned long)n);
	/* 1e6 exponential gaps: the count's sd is ~0.1 % */
	assert_true(fabs((double)n - 1e6) / 1e6 < 0.01);
}

static void
test_stall_resync(void **state)
{
	struct ibex_pacer p;
	unsigned int n;

	(void)state;
	assert_int_equal(ibex_pacer_init(&p, HZ, 1e6, 1, false, 1, 0), 0);
	/* the sender stalls for 50 ms: no 50000-frame burst afterwards */
	n = ibex_pacer_due(&p, HZ / 20, 100000);
	assert_true(n <= 2);
	assert_int_equal(p.resync, 1);
	/* the 50 ms it skipped are counted: the rate over the rest holds */
	assert_true(p.lost >= HZ / 20 - HZ / 1000000 && p.lost <= HZ / 20);
	/* a short lag (under max_lag) is caught up: 100 us -> 100 frames */
	n = ibex_pacer_due(&p, HZ / 20 + HZ / 10000, 100000);
	assert_true(n >= 99 && n <= 101);
	assert_int_equal(p.resync, 1);
	assert_true(p.lost <= HZ / 20);
}

static void
test_bad_args(void **state)
{
	struct ibex_pacer p;

	(void)state;
	assert_int_equal(ibex_pacer_init(&p, HZ, 0, 1, false, 1, 0), -EINVAL);
	assert_int_equal(ibex_pacer_init(&p, HZ, 1e6, 0, false, 1, 0), -EINVAL);
	assert_int_equal(ibex_pacer_init(&p, 0, 1e6, 1, false, 1, 0), -EINVAL);
}

static void
test_dcqcn(void **state)
{
	struct ibex_dcqcn_params prm;
	struct ibex_dcqcn d;
	const double line = 12.5e9; /* 100 Gb/s */
	uint64_t now = 0, us = HZ / 1000000;
	double prev;
	unsigned int i;

	(void)state;
	ibex_dcqcn_defaults(&prm, line, HZ);
	ibex_dcqcn_init(&d, &prm, now);
	assert_true(d.rc == line);
	/* first CNP: alpha = 1, so the rate halves; alpha stays 1
	 * ((1 - g) 1 + g) */
	ibex_dcqcn_cnp(&d, now);
	assert_true(fabs(d.rc - line / 2) < 1);
	assert_true(d.rt == line);
	assert_true(d.alpha == 1.0);
	/* a second CNP at once cuts by alpha/2 again */
	prev = d.rc;
	ibex_dcqcn_cnp(&d, now);
	assert_true(d.rc < prev * 0.51 && d.rc > prev * 0.49);
	assert_int_equal(d.cuts, 2);
	/* alpha decays without CNPs */
	prev = d.alpha;
	ibex_dcqcn_tick(&d, now + 550 * us);
	assert_true(d.alpha < prev * 0.97);
	/* recovery: monotone, back to line rate within 100 ms */
	prev = d.rc;
	for (i = 1; i <= 100000; i++) {
		ibex_dcqcn_tick(&d, now + 550 * us + i * us);
		assert_true(d.rc >= prev);
		prev = d.rc;
	}
	assert_true(d.rc > line * 0.999);
	assert_true(d.rc <= line);
	/* never below the floor */
	for (i = 0; i < 100; i++)
		ibex_dcqcn_cnp(&d, now);
	assert_true(d.rc >= prm.min_rate);
	/* the byte counter also raises the rate */
	ibex_dcqcn_init(&d, &prm, 0);
	ibex_dcqcn_cnp(&d, 0);
	prev = d.rc;
	ibex_dcqcn_sent(&d, prm.byte_counter);
	assert_true(d.rc > prev);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_constant_rates),
		cmocka_unit_test(test_fractional_rate_exact),
		cmocka_unit_test(test_bursts),
		cmocka_unit_test(test_poisson),
		cmocka_unit_test(test_stall_resync),
		cmocka_unit_test(test_bad_args),
		cmocka_unit_test(test_dcqcn),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
