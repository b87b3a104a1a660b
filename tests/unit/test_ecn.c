/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the ECN marking curve: exact thresholds at the corners,
 * the mark fraction over many seeded draws, the EWMA and its idle decay,
 * validation, and the codepoint rules of RFC 3168.
 */

#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ibex_ecn.h"

#define TWO32 4294967296.0
#define ECT0 2
#define ECT1 1

struct lane {
	struct ibex_ecn_params p;
	struct ibex_ecn_vars v;
	struct ibex_ecn_stats s;
	struct ibex_ecn_rng rng;
};

static void
lane_init(struct lane *l, uint32_t kmin, uint32_t kmax, double pmax)
{
	struct ibex_ecn_cfg c = { .kmin = kmin, .kmax = kmax, .pmax = pmax };
	const char *err = NULL;

	memset(l, 0, sizeof(*l));
	assert_int_equal(ibex_ecn_params_set(&l->p, &c, &err), 0);
	ibex_ecn_vars_init(&l->v);
	ibex_ecn_rng_seed(&l->rng, 12345);
}

/* 8000 bytes/us link, 1000-byte frames, ns ticks: one frame per 100 ticks. */
static void
lane_init_ewma(struct lane *l, uint32_t kmin, uint32_t kmax, uint8_t wq)
{
	struct ibex_ecn_cfg c = {
		.kmin = kmin, .kmax = kmax, .pmax = 0.2, .wq_log = wq,
		.rate_bps = UINT64_C(80000000000), .avpkt = 1000,
		.time_hz = UINT64_C(1000000000),
	};
	const char *err = NULL;

	memset(l, 0, sizeof(*l));
	assert_int_equal(ibex_ecn_params_set(&l->p, &c, &err), 0);
	ibex_ecn_vars_init(&l->v);
	ibex_ecn_rng_seed(&l->rng, 777);
}

/* Kmin 1000, range 2^16, Pmax 1/4: every threshold is an exact integer,
 * 0.25 * 2^32 * d / 2^16 = d * 2^14. */
static void
test_curve_exact(void **state)
{
	struct lane l;
	const uint32_t kmin = 1000, kmax = 1000 + 65536;

	(void)state;
	lane_init(&l, kmin, kmax, 0.25);
	assert_int_equal(l.p.pmax, UINT64_C(1) << 30);
	assert_int_equal(ibex_ecn_threshold(&l.p, 0), 0);
	assert_int_equal(ibex_ecn_threshold(&l.p, kmin - 1), 0);
	assert_int_equal(ibex_ecn_threshold(&l.p, kmin), 0);
	assert_int_equal(ibex_ecn_threshold(&l.p, kmin + 1), 16384);
	assert_int_equal(ibex_ecn_threshold(&l.p, kmin + 32768),
			 UINT64_C(1) << 29);
	assert_int_equal(ibex_ecn_threshold(&l.p, kmax - 1),
			 UINT64_C(65535) * 16384);
	assert_int_equal(ibex_ecn_threshold(&l.p, kmax), UINT64_C(1) << 30);
	assert_int_equal(ibex_ecn_threshold(&l.p, kmax + 1), UINT64_C(1) << 32);
	assert_int_equal(ibex_ecn_threshold(&l.p, UINT32_MAX),
			 UINT64_C(1) << 32);
	assert_true(ibex_ecn_prob(&l.p, kmin + 32768) == 0.125);
	assert_true(ibex_ecn_prob(&l.p, kmax) == 0.25);
	assert_true(ibex_ecn_prob(&l.p, kmax + 1) == 1.0);
	assert_true(ibex_ecn_prob(&l.p, kmin) == 0.0);
}

/* HPCC's 25G values: within 2^-31 of the real-valued curve, exact at the
 * corners (Pmax rounds to 858993459 / 2^32). */
static void
test_curve_hpcc(void **state)
{
	const uint32_t kmin = 100000, kmax = 400000;
	const uint32_t qs[] = { kmin + 1, kmin + 2, 150000, 250000, 333333,
				kmax - 2, kmax - 1 };
	struct lane l;
	unsigned int i;

	(void)state;
	lane_init(&l, kmin, kmax, 0.2);
	assert_int_equal(ibex_ecn_threshold(&l.p, kmin - 1), 0);
	assert_int_equal(ibex_ecn_threshold(&l.p, kmin), 0);
	assert_int_equal(ibex_ecn_threshold(&l.p, kmax), 858993459);
	assert_int_equal(ibex_ecn_threshold(&l.p, kmax + 1), UINT64_C(1) << 32);
	for (i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		double want = 0.2 * (qs[i] - kmin) / (kmax - kmin) * TWO32;
		double got = (double)ibex_ecn_threshold(&l.p, qs[i]);

		assert_true(fabs(got - want) <= 2.0);
	}
	/* Midpoint: 0.1 * 2^32 = 429496729.6. */
	assert_in_range(ibex_ecn_threshold(&l.p, 250000), 429496728, 429496730);
}

/* Kmin == Kmax is a step at K (DCTCP's marking). */
static void
test_curve_step(void **state)
{
	struct lane l;

	(void)state;
	lane_init(&l, 5000, 5000, 0.5);
	assert_int_equal(ibex_ecn_threshold(&l.p, 4999), 0);
	assert_int_equal(ibex_ecn_threshold(&l.p, 5000), 0);
	assert_int_equal(ibex_ecn_threshold(&l.p, 5001), UINT64_C(1) << 32);
	assert_int_equal(ibex_ecn_decide(&l.p, &l.v, &l.s, &l.rng, 5001, 0,
					 ECT0), IBEX_ECN_V_MARK);
	assert_int_equal(ibex_ecn_decide(&l.p, &l.v, &l.s, &l.rng, 5000, 0,
					 ECT0), IBEX_ECN_V_PASS);
}

/* 10^6 draws per backlog: the marked fraction is the curve. */
static void
test_mark_fraction(void **state)
{
	const uint32_t kmin = 100000, kmax = 400000;
	const uint32_t qs[] = { kmin - 1, kmin, 130000, 175000, 250000,
				325000, kmax - 1, kmax, kmax + 1 };
	const unsigned int n = 1000000;
	unsigned int i, k;

	(void)state;
	for (i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		double want, got, sigma;
		struct lane l;

		lane_init(&l, kmin, kmax, 0.2);
		ibex_ecn_rng_seed(&l.rng, 1000 + i);
		for (k = 0; k < n; k++)
			ibex_ecn_decide(&l.p, &l.v, &l.s, &l.rng, qs[i], 0,
					k & 1 ? ECT0 : ECT1);
		want = qs[i] <= kmin ? 0.0 : qs[i] > kmax ? 1.0 :
			0.2 * (qs[i] - kmin) / (kmax - kmin);
		got = (double)l.s.marked / n;
		sigma = sqrt(want * (1.0 - want) / n);
		assert_true(fabs(got - want) < 0.01);
		/* Tighter than the 1% goal: no bias beyond 5 sigma. */
		assert_true(fabs(got - want) <= 5.0 * sigma + 1e-9);
		assert_int_equal(l.s.seen[1] + l.s.seen[2], n);
		assert_int_equal(ibex_ecn_stats_ect_seen(&l.s), n);
		if (want == 0.0)
			assert_int_equal(l.s.marked, 0);
		if (want == 1.0)
			assert_int_equal(l.s.marked, n);
	}
}

/* Not-ECT frames are counted, chosen at the curve's rate, never marked. */
static void
test_not_ect_never_marked(void **state)
{
	struct lane l;
	unsigned int k, chosen = 0;

	(void)state;
	lane_init(&l, 100000, 400000, 0.2);
	for (k = 0; k < 1000; k++)
		assert_int_equal(ibex_ecn_decide(&l.p, &l.v, &l.s, &l.rng,
						 500000, 0, 0),
				 IBEX_ECN_V_NOT_ECT);
	for (k = 0; k < 1000; k++)
		assert_int_equal(ibex_ecn_decide(&l.p, &l.v, &l.s, &l.rng,
						 50000, 0, 0),
				 IBEX_ECN_V_PASS);
	for (k = 0; k < 100000; k++) {
		enum ibex_ecn_verdict r = ibex_ecn_decide(&l.p, &l.v, &l.s,
							  &l.rng, 250000, 0, 0);

		assert_int_not_equal(r, IBEX_ECN_V_MARK);
		chosen += r == IBEX_ECN_V_NOT_ECT;
	}
	assert_int_equal(l.s.marked, 0);
	assert_int_equal(l.s.seen[0], 102000);
	assert_int_equal(ibex_ecn_stats_ect_seen(&l.s), 0);
	assert_int_equal(l.s.not_ect_selected, 1000 + chosen);
	/* p = 0.1 at 250000: 10000 +- 5 sigma (sigma ~ 95). */
	assert_in_range(chosen, 9525, 10475);
}

/* A CE frame stays CE: ECT seen, chosen, not newly marked. */
static void
test_ce_counts(void **state)
{
	struct lane l;
	unsigned int k;

	(void)state;
	lane_init(&l, 100000, 400000, 0.2);
	for (k = 0; k < 10; k++)
		assert_int_equal(ibex_ecn_decide(&l.p, &l.v, &l.s, &l.rng,
						 400001, 0, IBEX_ECN_CP_CE),
				 IBEX_ECN_V_PASS);
	for (k = 0; k < 5; k++)
		assert_int_equal(ibex_ecn_decide(&l.p, &l.v, &l.s, &l.rng,
						 1000, 0, IBEX_ECN_CP_CE),
				 IBEX_ECN_V_PASS);
	assert_int_equal(ibex_ecn_decide(&l.p, &l.v, &l.s, &l.rng, 400001, 0,
					 ECT1), IBEX_ECN_V_MARK);
	assert_int_equal(l.s.seen[IBEX_ECN_CP_CE], 15);
	assert_int_equal(ibex_ecn_stats_ect_seen(&l.s), 16);
	assert_int_equal(l.s.ce_selected, 10);
	assert_int_equal(l.s.marked, 1);
	assert_int_equal(l.s.not_ect_selected, 0);
}

/* wq = 1, steps of 1000: qavg = 1000, 1500, 1750, 1875, 1938, 1969, so
 * avg = qavg >> 1 = 500, 750, 875, 937, 969, 984. */
static void
test_ewma_step_exact(void **state)
{
	const uint32_t want[] = { 500, 750, 875, 937, 969, 984 };
	struct lane l;
	unsigned int i;

	(void)state;
	lane_init_ewma(&l, 10000, 20000, 1);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_int_equal(ibex_ecn_avg_update(&l.p, &l.v, 1000, i),
				 want[i]);
}

/* wq = 4: avg_n = q (1 - (15/16)^n) within a byte; 99% first at n = 72. */
static void
test_ewma_converges(void **state)
{
	const uint32_t q = 100000;
	struct lane l;
	unsigned int n;

	(void)state;
	lane_init_ewma(&l, 500000, 600000, 4);
	for (n = 1; n <= 200; n++) {
		uint32_t avg = ibex_ecn_avg_update(&l.p, &l.v, q, n);
		double want = q * (1.0 - pow(15.0 / 16.0, n));

		assert_true(fabs(avg - want) <= 1.0);
		if (n == 71)
			assert_true(avg < 99000);
		if (n == 72)
			assert_true(avg >= 99000);
	}
	assert_int_equal(ibex_ecn_avg_update(&l.p, &l.v, q, 201), q);
}

/* EWMA mode marks on the average, not the sample. */
static void
test_ewma_marks_on_average(void **state)
{
	struct lane l;
	unsigned int k;

	(void)state;
	lane_init_ewma(&l, 100000, 400000, 4);
	/* One burst sample far above Kmax: avg = 10^6 / 16 < Kmin. */
	assert_int_equal(ibex_ecn_decide(&l.p, &l.v, &l.s, &l.rng, 1000000, 0,
					 ECT0), IBEX_ECN_V_PASS);
	/* Sustained, the average crosses Kmax and every frame is marked. */
	for (k = 1; k < 100; k++)
		ibex_ecn_decide(&l.p, &l.v, &l.s, &l.rng, 1000000, k, ECT0);
	assert_int_equal(ibex_ecn_decide(&l.p, &l.v, &l.s, &l.rng, 1000000,
					 100, ECT0), IBEX_ECN_V_MARK);
}

/* Idle decay: 300 ticks empty at 100 ticks a frame = 3 empty frames. */
static void
test_ewma_idle_decay(void **state)
{
	struct lane l;
	unsigned int k;

	(void)state;
	lane_init_ewma(&l, 100000, 400000, 1);
	for (k = 0; k < 64; k++)
		ibex_ecn_avg_update(&l.p, &l.v, 8000, 0);
	assert_int_equal(l.v.qavg, 16000);
	/* Lane empties at t = 1000: avg 4000, idle from then. */
	assert_int_equal(ibex_ecn_avg_update(&l.p, &l.v, 0, 1000), 4000);
	assert_int_equal(l.v.idle, 1);
	/* At t = 1300: 8000 * 2^-3 = 1000, then the sample: 1000/2 -> 250. */
	assert_int_equal(ibex_ecn_avg_update(&l.p, &l.v, 0, 1300), 250);

	/* Samples above zero never start an idle period: no decay. */
	lane_init_ewma(&l, 100000, 400000, 1);
	assert_int_equal(ibex_ecn_avg_update(&l.p, &l.v, 1000, 0), 500);
	assert_int_equal(ibex_ecn_avg_update(&l.p, &l.v, 1000, 1000000), 750);
	assert_int_equal(l.v.idle, 0);

	/* wq = 4, 1000 ticks = 10 frames: (15/16)^10 via the factor table. */
	lane_init_ewma(&l, 100000, 400000, 4);
	l.v.qavg = (uint64_t)160000 << 4;
	ibex_ecn_avg_update(&l.p, &l.v, 0, 5000);  /* avg 150000, idle */
	l.v.qavg = (uint64_t)160000 << 4;
	ibex_ecn_idle_decay(&l.p, &l.v, 6000);
	assert_true(fabs((double)l.v.qavg / 16 - 160000 * pow(15.0 / 16, 10))
		    <= 1.0);
	assert_int_equal(l.v.idle, 0);

	/* 2 s idle is past idle_flush (2^56 / fpt ~ 1.68 s): average emptied,
	 * then the sample: 1600 / 16 = 100. */
	assert_true(l.p.idle_flush < UINT64_C(2000000000));
	l.v.qavg = (uint64_t)160000 << 4;
	ibex_ecn_avg_update(&l.p, &l.v, 0, 10000);
	assert_int_equal(ibex_ecn_avg_update(&l.p, &l.v, 1600, 2000010000),
			 100);
	/* 1 s idle = 10^7 empty frames through the factor table: also 0. */
	l.v.qavg = (uint64_t)160000 << 4;
	ibex_ecn_avg_update(&l.p, &l.v, 0, 10000);
	assert_true(l.p.idle_flush > UINT64_C(1000000000));
	assert_int_equal(ibex_ecn_avg_update(&l.p, &l.v, 1600, 1000010000),
			 100);
}

/* Instantaneous mode ignores time and vars. */
static void
test_instantaneous(void **state)
{
	struct lane l;

	(void)state;
	lane_init(&l, 100000, 400000, 0.2);
	assert_int_equal(ibex_ecn_decide(&l.p, &l.v, &l.s, &l.rng, 400001, 0,
					 ECT0), IBEX_ECN_V_MARK);
	assert_int_equal(ibex_ecn_decide(&l.p, &l.v, &l.s, &l.rng, 100000, 0,
					 ECT0), IBEX_ECN_V_PASS);
	assert_int_equal(l.v.qavg, 0);
	assert_int_equal(l.v.idle, 0);
}

struct bad_cfg {
	struct ibex_ecn_cfg c;
	const char *msg;
};

static void
test_params_errors(void **state)
{
	const struct ibex_ecn_cfg ok = {
		.kmin = 1000, .kmax = 2000, .pmax = 0.5, .wq_log = 4,
		.rate_bps = UINT64_C(100000000000), .avpkt = 1024,
		.time_hz = UINT64_C(1000000000),
	};
	struct bad_cfg bad[16];
	struct ibex_ecn_params p, before;
	unsigned int i, nbad = 0;
	const char *err;

	(void)state;
#define BAD(field, value, text) do { \
		bad[nbad].c = ok; \
		bad[nbad].c.field = value; \
		bad[nbad].msg = text; \
		nbad++; \
	} while (0)
	BAD(kmax, 63, "ecn: kmax below 64 bytes (thresholds are in bytes, not KB)");
	BAD(kmax, (UINT32_C(1) << 30) + 1,
	    "ecn: kmax above 1 GiB (thresholds are in bytes, not bits)");
	BAD(kmin, 2001, "ecn: kmin above kmax");
	BAD(pmax, NAN, "ecn: pmax is not a number");
	BAD(pmax, 0.0, "ecn: pmax must be above 0 (to disable marking, leave ECN off)");
	BAD(pmax, -0.1, "ecn: pmax must be above 0 (to disable marking, leave ECN off)");
	BAD(pmax, 5.0, "ecn: pmax above 1 (it is a probability, not a percentage)");
	BAD(pmax, 1e-12, "ecn: pmax below 2^-32, the resolution of the curve");
	BAD(wq_log, 17, "ecn: wq above 16 (EWMA weight below 2^-16)");
	BAD(rate_bps, 0, "ecn: EWMA needs the link rate (rate_bps) for its idle decay");
	BAD(avpkt, 0, "ecn: EWMA needs the typical frame size (avpkt) for its idle decay");
	BAD(time_hz, 0, "ecn: EWMA needs the tick rate (time_hz) for its idle decay");
	BAD(rate_bps, 1, "ecn: rate_bps too low for time_hz (under 2^-32 frames a tick)");
#undef BAD
	/* 100 Gb/s of 1-byte frames on a 1 Hz clock: 1.25e10 frames a tick. */
	bad[nbad].c = ok;
	bad[nbad].c.avpkt = 1;
	bad[nbad].c.time_hz = 1;
	bad[nbad].msg = "ecn: time_hz too low for rate_bps (over 2^31 frames a tick)";
	nbad++;
	memset(&p, 0xa5, sizeof(p));
	before = p;
	for (i = 0; i < nbad; i++) {
		err = NULL;
		assert_int_equal(ibex_ecn_params_set(&p, &bad[i].c, &err),
				 -EINVAL);
		assert_non_null(err);
		assert_string_equal(err, bad[i].msg);
		assert_memory_equal(&p, &before, sizeof(p));
	}
	assert_int_equal(ibex_ecn_params_set(&p, NULL, &err), -EINVAL);
	assert_string_equal(err, "ecn: no parameters");
	assert_int_equal(ibex_ecn_params_set(&p, &bad[0].c, NULL), -EINVAL);

	/* The edges that are allowed. */
	assert_int_equal(ibex_ecn_params_set(&p, &ok, &err), 0);
	bad[0].c = ok;
	bad[0].c.pmax = 1.0;
	bad[0].c.kmin = 0;
	bad[0].c.kmax = 64;
	assert_int_equal(ibex_ecn_params_set(&p, &bad[0].c, &err), 0);
	assert_int_equal(p.pmax, UINT64_C(1) << 32);
	/* Instantaneous mode needs no rate, frame size or clock. */
	bad[0].c.wq_log = 0;
	bad[0].c.rate_bps = 0;
	bad[0].c.avpkt = 0;
	bad[0].c.time_hz = 0;
	assert_int_equal(ibex_ecn_params_set(&p, &bad[0].c, &err), 0);
}

/* ibex_ecn_cfg_check() vouches for every clock in its range: over a grid
 * of rates, frame sizes and weights, a curve it passes builds with each
 * tick rate from IBEX_ECN_HZ_MIN to IBEX_ECN_HZ_MAX, and one it refuses
 * fails to build at one end of the range (the check is no stricter than
 * it must be). Errors that do not depend on the clock are the same as
 * ibex_ecn_params_set()'s, and time_hz is not read. */
static void
test_cfg_check_is_clock_free(void **state)
{
	static const uint64_t hz[] = {
		IBEX_ECN_HZ_MIN, UINT64_C(25000000), UINT64_C(1000000000),
		UINT64_C(2900000000), IBEX_ECN_HZ_MAX,
	};
	static const uint32_t avpkt[] = { 1, 64, 1024, 9000, 65535 };
	struct ibex_ecn_params p;
	struct ibex_ecn_cfg c = {
		.kmin = 1000, .kmax = 2000, .pmax = 0.5, .avpkt = 1024,
	};
	unsigned int a, h, wq;
	uint64_t rate;
	const char *e1, *e2;

	(void)state;
	for (a = 0; a < IBEX_ARRAY_SIZE(avpkt); a++)
	for (wq = 0; wq <= IBEX_ECN_WQ_MAX; wq += 4)
	for (rate = 1; rate < UINT64_C(1) << 62; rate = rate * 3 + 1) {
		bool fails_at_an_end = false;

		c.avpkt = avpkt[a];
		c.wq_log = (uint8_t)wq;
		c.rate_bps = rate;
		c.time_hz = 0;
		if (ibex_ecn_cfg_check(&c, &e1) == 0) {
			for (h = 0; h < IBEX_ARRAY_SIZE(hz); h++) {
				c.time_hz = hz[h];
				assert_int_equal(ibex_ecn_params_set(&p, &c,
								     &e2), 0);
			}
			continue;
		}
		c.time_hz = IBEX_ECN_HZ_MIN;
		fails_at_an_end |= ibex_ecn_params_set(&p, &c, &e2) != 0;
		c.time_hz = IBEX_ECN_HZ_MAX;
		fails_at_an_end |= ibex_ecn_params_set(&p, &c, &e2) != 0;
		assert_true(fails_at_an_end);
	}
	/* The clock-free errors are params_set's own. */
	c.wq_log = 4;
	c.rate_bps = UINT64_C(25000000000);
	c.avpkt = 1024;
	c.kmin = 3000;
	c.time_hz = 0;
	assert_int_equal(ibex_ecn_cfg_check(&c, &e1), -EINVAL);
	c.time_hz = UINT64_C(1000000000);
	assert_int_equal(ibex_ecn_params_set(&p, &c, &e2), -EINVAL);
	assert_string_equal(e1, e2);
	assert_int_equal(ibex_ecn_cfg_check(NULL, &e1), -EINVAL);
	assert_string_equal(e1, "ecn: no parameters");
	/* The bound it names: 9.5 kb/s at 1024-byte frames. */
	c.kmin = 1000;
	c.rate_bps = UINT64_C(9600);
	assert_int_equal(ibex_ecn_cfg_check(&c, NULL), 0);
	c.rate_bps = UINT64_C(9500);
	assert_int_equal(ibex_ecn_cfg_check(&c, &e1), -EINVAL);
	assert_string_equal(e1, "ecn: link rate too low for the EWMA's idle "
			    "decay (under 2^-32 frames a tick of a 5 GHz "
			    "clock: 9.5 kb/s at 1024-byte frames)");
}

/* HPCC's table, kB = 1000 bytes; 0 means 100G. */
static void
test_defaults(void **state)
{
	const struct { uint64_t bps; uint32_t kmin, kmax; } t[] = {
		{ UINT64_C(25000000000), 100000, 400000 },
		{ UINT64_C(50000000000), 200000, 800000 },
		{ UINT64_C(100000000000), 400000, 1600000 },
		{ UINT64_C(400000000000), 1600000, 6400000 },
		{ 0, 400000, 1600000 },
	};
	struct ibex_ecn_params p;
	struct ibex_ecn_cfg c;
	const char *err = NULL;
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		ibex_ecn_cfg_default(&c, t[i].bps);
		assert_int_equal(c.kmin, t[i].kmin);
		assert_int_equal(c.kmax, t[i].kmax);
		assert_true(c.pmax == 0.2);
		assert_int_equal(c.wq_log, 0);
		assert_int_equal(ibex_ecn_params_set(&p, &c, &err), 0);
	}
}

/* splitmix64 from state 0 (reference values of the published generator). */
static void
test_rng(void **state)
{
	struct ibex_ecn_rng r;

	(void)state;
	ibex_ecn_rng_seed(&r, 0);
	assert_int_equal(ibex_ecn_rng_next(&r), UINT64_C(0xe220a8397b1dcdaf));
	assert_int_equal(ibex_ecn_rng_next(&r), UINT64_C(0x6e789e6aa1b965f4));
}

int
main(void)
{
	const struct CMUnitTest curve[] = {
		cmocka_unit_test(test_curve_exact),
		cmocka_unit_test(test_curve_hpcc),
		cmocka_unit_test(test_curve_step),
		cmocka_unit_test(test_mark_fraction),
		cmocka_unit_test(test_instantaneous),
		cmocka_unit_test(test_rng),
	};
	const struct CMUnitTest codepoints[] = {
		cmocka_unit_test(test_not_ect_never_marked),
		cmocka_unit_test(test_ce_counts),
	};
	const struct CMUnitTest ewma[] = {
		cmocka_unit_test(test_ewma_step_exact),
		cmocka_unit_test(test_ewma_converges),
		cmocka_unit_test(test_ewma_marks_on_average),
		cmocka_unit_test(test_ewma_idle_decay),
	};
	const struct CMUnitTest params[] = {
		cmocka_unit_test(test_params_errors),
		cmocka_unit_test(test_cfg_check_is_clock_free),
		cmocka_unit_test(test_defaults),
	};
	int fails = 0;

	fails += cmocka_run_group_tests_name("ecn_curve", curve, NULL, NULL);
	fails += cmocka_run_group_tests_name("ecn_codepoints", codepoints,
					     NULL, NULL);
	fails += cmocka_run_group_tests_name("ecn_ewma", ewma, NULL, NULL);
	fails += cmocka_run_group_tests_name("ecn_params", params, NULL, NULL);
	return fails != 0;
}
