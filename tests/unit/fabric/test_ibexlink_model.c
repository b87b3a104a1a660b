/* SPDX-License-Identifier: BSD-3-Clause */
/* The ibexlink wire model without EAL: line rate from 1G to 400G over 64 to
 * 9000-byte frames, propagation delay, jitter, seeded loss and corruption,
 * pause timing, the cycle clock, the SPSC ring and the devargs values. */

#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ibexlink_model.h"

#define G UINT64_C(1000000000)

static struct ibexlink_params
params(uint64_t rate, uint64_t delay_ps)
{
	struct ibexlink_params p = { .rate_bps = rate, .delay_ps = delay_ps,
				     .seed = 1 };

	assert_int_equal(ibexlink_params_check(&p), 0);
	return p;
}

/* Ethernet frame sizes (with FCS) as the rate test's figures: the model
 * gets DPDK lengths, 4 bytes shorter. */
static const uint32_t sizes[] = { 64, 65, 128, 256, 512, 1024, 1500, 1518,
				  4096, 9000 };
static const uint64_t rates[] = { 1 * G, 10 * G, 25 * G, 40 * G, 50 * G,
				  100 * G, 200 * G, 400 * G, 37 * G,
				  2500000000 };

/* Back-to-back frames: the spacing of the arrivals of their last bits is
 * the line rate, preamble and IFG included, within 0.5% (in fact exact to
 * a picosecond over the run, since remainders are carried). */
static void
test_rate(void **state)
{
	unsigned int r, s, i, n = 20000;

	(void)state;
	for (r = 0; r < sizeof(rates) / sizeof(rates[0]); r++) {
		for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
			struct ibexlink_params p = params(rates[r], 500000);
			struct ibexlink_wire w;
			struct ibexlink_tx tx;
			uint64_t first = 0, bits = 0;
			uint32_t len = sizes[s] - IBEXLINK_FCS;
			double got, err;

			ibexlink_wire_init(&w, &p);
			for (i = 0; i < n; i++) {
				/* handed over all at once, as a full TX ring */
				ibexlink_wire_send(&w, 0, len, &tx);
				if (i == 0)
					first = tx.arrival_ps;
				else
					bits += (uint64_t)(sizes[s] + 20) * 8;
			}
			got = (double)bits * 1e12 /
			      (double)(tx.arrival_ps - first);
			err = fabs(got - (double)rates[r]) / (double)rates[r];
			assert_true(err < 0.005);
			/* and to the picosecond: the last arrival is n frames'
			 * exact time after the start */
			assert_true(llabs((long long)(tx.end_ps -
				(uint64_t)((double)n * (sizes[s] + 20) * 8 *
					   1e12 / (double)rates[r]))) <= 1);
		}
	}
}

/* Short frames are padded to 64 bytes on the wire. */
static void
test_padding(void **state)
{
	(void)state;
	assert_int_equal(ibexlink_wire_bytes(14), 84);
	assert_int_equal(ibexlink_wire_bytes(60), 84);
	assert_int_equal(ibexlink_wire_bytes(61), 85);
	assert_int_equal(ibexlink_wire_bytes(1514), 1538);
}

/* At low load a frame's last bit arrives one delay after it left: the
 * delay is exact (well within 100 ns) at any rate and size. */
static void
test_delay(void **state)
{
	static const uint64_t delays[] = { 0, 100000, 500000, 1000000,
					   2000000000 / 1000, 10000000 };
	unsigned int d, r, s;

	(void)state;
	for (d = 0; d < sizeof(delays) / sizeof(delays[0]); d++) {
		for (r = 0; r < sizeof(rates) / sizeof(rates[0]); r++) {
			for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
				struct ibexlink_params p = params(rates[r],
								  delays[d]);
				struct ibexlink_wire w;
				struct ibexlink_tx tx;
				uint64_t t = 1000000, ser_no_ifg;
				int64_t err;

				ibexlink_wire_init(&w, &p);
				/* two frames far apart: both see an idle wire */
				ibexlink_wire_send(&w, t, sizes[s] - 4, &tx);
				t += 100000000;
				ibexlink_wire_send(&w, t, sizes[s] - 4, &tx);
				assert_int_equal(tx.start_ps, t);
				ser_no_ifg = (uint64_t)(sizes[s] + 8) * 8 *
					     IBEXLINK_PS_PER_S / rates[r];
				err = (int64_t)(tx.arrival_ps - t - ser_no_ifg) -
				      (int64_t)delays[d];
				assert_true(llabs(err) < 100000);
				assert_true(llabs(err) <= 2);
			}
		}
	}
}

/* A frame handed over while the wire is busy starts when it frees. */
static void
test_queueing(void **state)
{
	struct ibexlink_params p = params(10 * G, 0);
	struct ibexlink_wire w;
	struct ibexlink_tx a, b, c;

	(void)state;
	ibexlink_wire_init(&w, &p);
	ibexlink_wire_send(&w, 1000, 1496, &a);     /* 1520 on the wire */
	assert_int_equal(a.end_ps - a.start_ps, 1520 * 800);
	ibexlink_wire_send(&w, 2000, 60, &b);
	assert_int_equal(b.start_ps, a.end_ps);
	ibexlink_wire_send(&w, b.end_ps + 5000, 60, &c);
	assert_int_equal(c.start_ps, b.end_ps + 5000);
}

/* Jitter: delays spread over [delay, delay + jitter], never reorder or
 * squeeze frames below the line rate; one seed gives one sequence. */
static void
test_jitter(void **state)
{
	struct ibexlink_params p = params(100 * G, 1000000);
	struct ibexlink_wire w, w2;
	struct ibexlink_tx tx, tx2;
	uint64_t t, prev = 0, ser, lo = UINT64_MAX, hi = 0;
	double sum = 0;
	unsigned int i, n = 100000;

	(void)state;
	p.jitter_ps = 200000;
	p.seed = 42;
	ibexlink_wire_init(&w, &p);
	ibexlink_wire_init(&w2, &p);
	ser = (uint64_t)(1500 + 24) * 8 * 10; /* ps at 100G */
	for (i = 0; i < n; i++) {
		/* frames 1 us apart: jitter never collides */
		t = (uint64_t)i * 1000000;
		ibexlink_wire_send(&w, t, 1500, &tx);
		ibexlink_wire_send(&w2, t, 1500, &tx2);
		assert_int_equal(tx.arrival_ps, tx2.arrival_ps);
		uint64_t extra = tx.arrival_ps - t - (ser - 12 * 80) - 1000000;

		assert_true(extra <= 200000);
		lo = extra < lo ? extra : lo;
		hi = extra > hi ? extra : hi;
		sum += (double)extra;
		assert_true(tx.arrival_ps >= prev + ser || i == 0);
		prev = tx.arrival_ps;
	}
	assert_true(lo < 2000 && hi > 198000);
	assert_true(fabs(sum / n - 100000) < 2000);
	/* back to back with jitter: still in order, still at most line rate */
	ibexlink_wire_init(&w, &p);
	prev = 0;
	for (i = 0; i < 10000; i++) {
		ibexlink_wire_send(&w, 0, 1500, &tx);
		assert_true(i == 0 || tx.arrival_ps >= prev + ser);
		prev = tx.arrival_ps;
	}
}

/* Loss and corruption rates over 10^6 frames within 5 sigma of their
 * setting, reproducible for a seed and different for another. */
static void
fault_count(uint64_t seed, double loss, double corrupt, unsigned int n,
	    unsigned int *lost, unsigned int *bad, uint64_t *hash)
{
	struct ibexlink_params p = params(100 * G, 0);
	struct ibexlink_wire w;
	struct ibexlink_tx tx;
	unsigned int i;

	p.seed = seed;
	assert_int_equal(ibexlink_parse_prob("0", &p.loss_thr), 0);
	p.loss_thr = (uint64_t)ldexp(loss, 64);
	p.corrupt_thr = (uint64_t)ldexp(corrupt, 64);
	ibexlink_wire_init(&w, &p);
	*lost = *bad = 0;
	*hash = 0;
	for (i = 0; i < n; i++) {
		ibexlink_wire_send(&w, 0, 100, &tx);
		if (tx.fate == IBEXLINK_LOST) {
			(*lost)++;
			*hash = *hash * 31 + i;
		} else if (tx.fate == IBEXLINK_CORRUPT) {
			assert_true(tx.flip_bit < 800);
			(*bad)++;
			*hash = *hash * 37 + i + tx.flip_bit;
		}
	}
}

static void
test_faults(void **state)
{
	static const double probs[] = { 1e-4, 1e-3, 0.01, 0.1, 0.5 };
	unsigned int i, n = 1000000, lost, bad, lost2, bad2;
	uint64_t h1, h2, h3;

	(void)state;
	for (i = 0; i < sizeof(probs) / sizeof(probs[0]); i++) {
		double pl = probs[i], pc = probs[i] / 2;
		/* corruption is drawn among frames not lost */
		double ec = n * (1 - pl) * pc;
		double sl = sqrt(n * pl * (1 - pl));
		double sc = sqrt(ec * (1 - pc));

		fault_count(7, pl, pc, n, &lost, &bad, &h1);
		assert_true(fabs(lost - n * pl) < 5 * sl + 1);
		assert_true(fabs(bad - ec) < 5 * sc + 1);
		fault_count(7, pl, pc, n, &lost2, &bad2, &h2);
		assert_int_equal(lost, lost2);
		assert_int_equal(bad, bad2);
		assert_true(h1 == h2);
		fault_count(8, pl, pc, n, &lost2, &bad2, &h3);
		assert_true(h1 != h3);
	}
	fault_count(7, 0, 0, 1000, &lost, &bad, &h1);
	assert_int_equal(lost + bad, 0);
}

/* Pause quanta: 512 bit times each, rounded up; XON resumes; a zero
 * class-enable vector changes nothing. */
static void
test_pause(void **state)
{
	struct ibexlink_pause st;
	uint16_t q[IBEXLINK_PRIOS] = { 0 };
	unsigned int i;

	(void)state;
	assert_int_equal(ibexlink_quanta_ps(1, 100 * G), 5120);
	assert_int_equal(ibexlink_quanta_ps(65535, 100 * G), 335539200);
	assert_int_equal(ibexlink_quanta_ps(1, 400 * G), 1280);
	assert_int_equal(ibexlink_quanta_ps(1, 1 * G), 512000);
	assert_int_equal(ibexlink_quanta_ps(3, 37 * G), 41514); /* 41513.5 up */
	for (i = 0; i < IBEXLINK_PRIOS; i++)
		atomic_init(&st.until_ps[i], 0);
	q[3] = 1000;
	q[5] = 10;
	assert_int_equal(ibexlink_pause_apply(&st, 1000000, 0x28, q, 100 * G),
			 0x28);
	assert_false(ibexlink_pause_open(&st, 3, 1000000));
	assert_false(ibexlink_pause_open(&st, 3, 1000000 + 5120000 - 1));
	assert_true(ibexlink_pause_open(&st, 3, 1000000 + 5120000));
	assert_true(ibexlink_pause_open(&st, 5, 1000000 + 51200));
	assert_true(ibexlink_pause_open(&st, 0, 1000000));
	/* zero vector: nothing */
	ibexlink_pause_apply(&st, 2000000, 0, q, 100 * G);
	assert_false(ibexlink_pause_open(&st, 3, 2000000));
	/* XON (quanta 0) for prio 3 */
	q[3] = 0;
	ibexlink_pause_apply(&st, 2000000, 0x08, q, 100 * G);
	assert_true(ibexlink_pause_open(&st, 3, 2000000));
	/* a later frame replaces the timer, shorter or longer */
	q[3] = 100;
	ibexlink_pause_apply(&st, 3000000, 0x08, q, 100 * G);
	q[3] = 1;
	ibexlink_pause_apply(&st, 3000001, 0x08, q, 100 * G);
	assert_true(ibexlink_pause_open(&st, 3, 3000001 + 5120));
}

static void
test_clock(void **state)
{
	static const uint64_t hzs[] = { 1000000000, 2100000000, 2999999999,
					3700123456 };
	struct ibexlink_clock c;
	unsigned int i;

	(void)state;
	assert_int_equal(ibexlink_clock_init(&c, 0, 0), -EINVAL);
	for (i = 0; i < sizeof(hzs) / sizeof(hzs[0]); i++) {
		uint64_t base = UINT64_C(123456789012);
		uint64_t ps, cyc;

		assert_int_equal(ibexlink_clock_init(&c, hzs[i], base), 0);
		assert_int_equal(ibexlink_clock_ps(&c, base), 0);
		/* one hour of cycles: within 10 ns (the 32.32 multiplier is
		 * off by at most 2^-32 ps per cycle) */
		ps = ibexlink_clock_ps(&c, base + hzs[i] * 3600);
		assert_true(llabs((long long)(ps - 3600 * IBEXLINK_PS_PER_S)) <
			    10000);
		/* cycles_for inverts, rounding up */
		cyc = ibexlink_clock_cycles(&c, 5000000);
		assert_true(ibexlink_clock_ps(&c, cyc) >= 5000000);
		assert_true(ibexlink_clock_ps(&c, cyc - 1) < 5000000);
		/* and between two cycles (1 GHz: the nanosecond path) */
		cyc = ibexlink_clock_cycles(&c, 5000001);
		assert_true(ibexlink_clock_ps(&c, cyc) >= 5000001);
		assert_true(ibexlink_clock_ps(&c, cyc - 1) < 5000001);
	}
}

static void
test_ring(void **state)
{
	uint32_t cap = 8;
	struct ibexlink_ring *r = calloc(1, ibexlink_ring_size(cap));
	void *objs[16];
	uint64_t arr[16], next;
	uintptr_t i;

	(void)state;
	assert_non_null(r);
	assert_int_equal(ibexlink_ring_init(r, 6), -EINVAL);
	assert_int_equal(ibexlink_ring_init(r, cap), 0);
	for (i = 0; i < cap; i++)
		assert_true(ibexlink_ring_put(r, (void *)(i + 1), 100 * i));
	assert_false(ibexlink_ring_put(r, (void *)99, 1000));
	assert_int_equal(ibexlink_ring_free(r), 0);
	assert_int_equal(ibexlink_ring_count(r), cap);
	/* only what has arrived by 250 */
	assert_int_equal(ibexlink_ring_take(r, 250, objs, arr, 16, &next), 3);
	assert_ptr_equal(objs[0], (void *)1);
	assert_ptr_equal(objs[2], (void *)3);
	assert_int_equal(arr[2], 200);
	assert_int_equal(next, 300);
	/* the limit on n holds */
	assert_int_equal(ibexlink_ring_take(r, 10000, objs, NULL, 2, NULL), 2);
	assert_ptr_equal(objs[0], (void *)4);
	/* wraps */
	assert_true(ibexlink_ring_put(r, (void *)50, 5000));
	assert_int_equal(ibexlink_ring_drain(r, objs, 16), 4);
	assert_ptr_equal(objs[3], (void *)50);
	assert_int_equal(ibexlink_ring_take(r, UINT64_MAX, objs, NULL, 16,
					    &next), 0);
	assert_true(next == UINT64_MAX);
	free(r);
}

static void
test_parse(void **state)
{
	uint64_t v;
	char buf[32];

	(void)state;
	assert_int_equal(ibexlink_parse_rate("100G", &v), 0);
	assert_true(v == 100 * G);
	assert_int_equal(ibexlink_parse_rate("2.5g", &v), 0);
	assert_true(v == 2500000000);
	assert_int_equal(ibexlink_parse_rate("400M", &v), 0);
	assert_true(v == 400000000);
	assert_int_equal(ibexlink_parse_rate("25Gbps", &v), 0);
	assert_true(v == 25 * G);
	assert_int_equal(ibexlink_parse_rate("1000000", &v), 0);
	assert_true(v == 1000000);
	assert_int_equal(ibexlink_parse_rate("1.6T", &v), 0);
	assert_int_equal(ibexlink_parse_rate("2T", &v), -EINVAL);
	assert_int_equal(ibexlink_parse_rate("0", &v), -EINVAL);
	assert_int_equal(ibexlink_parse_rate("-1G", &v), -EINVAL);
	assert_int_equal(ibexlink_parse_rate("10X", &v), -EINVAL);
	assert_int_equal(ibexlink_parse_rate("", &v), -EINVAL);
	assert_int_equal(ibexlink_parse_rate("G", &v), -EINVAL);

	assert_int_equal(ibexlink_parse_time("500ns", &v), 0);
	assert_true(v == 500000);
	assert_int_equal(ibexlink_parse_time("1.5us", &v), 0);
	assert_true(v == 1500000);
	assert_int_equal(ibexlink_parse_time("2ms", &v), 0);
	assert_true(v == 2000000000);
	assert_int_equal(ibexlink_parse_time("250ps", &v), 0);
	assert_true(v == 250);
	assert_int_equal(ibexlink_parse_time("0", &v), 0);
	assert_true(v == 0);
	assert_int_equal(ibexlink_parse_time("700", &v), 0);
	assert_true(v == 700000);
	assert_int_equal(ibexlink_parse_time("1s", &v), 0);
	assert_int_equal(ibexlink_parse_time("2s", &v), -EINVAL);
	assert_int_equal(ibexlink_parse_time("5 ns", &v), -EINVAL);
	assert_int_equal(ibexlink_parse_time("5min", &v), -EINVAL);
	assert_int_equal(ibexlink_parse_time("nan", &v), -EINVAL);
	/* decimal only: no hex, no blanks, no sign */
	assert_int_equal(ibexlink_parse_time("0x10", &v), -EINVAL);
	assert_int_equal(ibexlink_parse_time("0X10ns", &v), -EINVAL);
	assert_int_equal(ibexlink_parse_time(" 5ns", &v), -EINVAL);
	assert_int_equal(ibexlink_parse_time("-0", &v), -EINVAL);
	assert_int_equal(ibexlink_parse_time(".5us", &v), 0);
	assert_true(v == 500000);
	assert_int_equal(ibexlink_parse_prob("0x1p-4", &v), -EINVAL);

	assert_int_equal(ibexlink_parse_seed("0", &v), 0);
	assert_true(v == 0);
	assert_int_equal(ibexlink_parse_seed("18446744073709551615", &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(ibexlink_parse_seed("18446744073709551616", &v),
			 -EINVAL);
	assert_int_equal(ibexlink_parse_seed("-1", &v), -EINVAL);
	assert_int_equal(ibexlink_parse_seed("+1", &v), -EINVAL);
	assert_int_equal(ibexlink_parse_seed(" 1", &v), -EINVAL);
	assert_int_equal(ibexlink_parse_seed("1x", &v), -EINVAL);
	assert_int_equal(ibexlink_parse_seed("", &v), -EINVAL);

	assert_int_equal(ibexlink_parse_prob("0.5", &v), 0);
	assert_true(v == UINT64_C(1) << 63);
	assert_int_equal(ibexlink_parse_prob("1e-4", &v), 0);
	assert_true(fabs(ldexp((double)v, -64) - 1e-4) < 1e-12);
	assert_int_equal(ibexlink_parse_prob("1%", &v), 0);
	assert_true(fabs(ldexp((double)v, -64) - 0.01) < 1e-12);
	assert_int_equal(ibexlink_parse_prob("1", &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(ibexlink_parse_prob("0", &v), 0);
	assert_true(v == 0);
	assert_int_equal(ibexlink_parse_prob("1.5", &v), -EINVAL);
	assert_int_equal(ibexlink_parse_prob("x", &v), -EINVAL);
	assert_int_equal(ibexlink_parse_prob("0.1%x", &v), -EINVAL);

	assert_string_equal(ibexlink_format_rate(100 * G, buf, sizeof(buf)),
			    "100G");
	assert_string_equal(ibexlink_format_rate(2500000000, buf, sizeof(buf)),
			    "2.5G");
	assert_string_equal(ibexlink_format_rate(400000000, buf, sizeof(buf)),
			    "400M");

	struct ibexlink_params p = { .rate_bps = 0 };

	assert_int_equal(ibexlink_params_check(&p), -EINVAL);
	p.rate_bps = G;
	p.delay_ps = 2 * IBEXLINK_PS_PER_S;
	assert_int_equal(ibexlink_params_check(&p), -EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rate),
		cmocka_unit_test(test_padding),
		cmocka_unit_test(test_delay),
		cmocka_unit_test(test_queueing),
		cmocka_unit_test(test_jitter),
		cmocka_unit_test(test_faults),
		cmocka_unit_test(test_pause),
		cmocka_unit_test(test_clock),
		cmocka_unit_test(test_ring),
		cmocka_unit_test(test_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
