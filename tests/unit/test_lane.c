/* SPDX-License-Identifier: BSD-3-Clause */
/* Lane queue (block-bounded FIFO) and egress shaper (token bucket). */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "ibex_shaper.h"
#include "ibex_hist.h"
#include "ibex_vlq.h"

static void
test_vlq_fifo_and_gauges(void **state)
{
	struct ibex_vlq_ent ent[8];
	struct ibex_vlq q;
	struct ibex_vlq_ent e;
	uintptr_t i;

	(void)state;
	assert_int_equal(ibex_vlq_slots(5), 8);
	assert_int_equal(ibex_vlq_slots(8), 8);
	ibex_vlq_init(&q, ent, 8, 0);
	/* Wrap the free-running indices several times: order is kept. */
	for (i = 0; i < 100; i++) {
		assert_true(ibex_vlq_push(&q, (void *)(i + 1), 65, i, 0, 0));
		assert_true(ibex_vlq_push(&q, (void *)(i + 1000), 64, i, 3, 0));
		assert_int_equal(q.blocks, 3);
		assert_int_equal(q.bytes, 129);
		assert_ptr_equal(ibex_vlq_head(&q)->frame, (void *)(i + 1));
		ibex_vlq_pop(&q, &e);
		assert_ptr_equal(e.frame, (void *)(i + 1));
		assert_int_equal(e.len, 65);
		ibex_vlq_pop(&q, &e);
		assert_ptr_equal(e.frame, (void *)(i + 1000));
		assert_int_equal(e.meta, 3);
		assert_true(ibex_vlq_empty(&q));
		assert_int_equal(q.blocks, 0);
		assert_int_equal(q.bytes, 0);
	}
}

static void
test_vlq_block_bound(void **state)
{
	struct ibex_vlq_ent ent[16];
	struct ibex_vlq q;

	(void)state;
	/* 10 blocks: a 1500-byte frame is 24 blocks and never fits; 64-byte
	 * frames fit ten times, the eleventh is refused and nothing changes. */
	ibex_vlq_init(&q, ent, 16, 10);
	assert_false(ibex_vlq_push(&q, (void *)1, 1500, 0, 0, 0));
	assert_int_equal(ibex_vlq_count(&q), 0);
	for (int i = 0; i < 10; i++)
		assert_true(ibex_vlq_push(&q, (void *)1, 64, 0, 0, 0));
	assert_false(ibex_vlq_push(&q, (void *)1, 64, 0, 0, 0));
	assert_int_equal(ibex_vlq_count(&q), 10);
	assert_int_equal(q.blocks, 10);
	/* Slots bound too when there is no block bound. */
	ibex_vlq_init(&q, ent, 4, 0);
	for (int i = 0; i < 4; i++)
		assert_true(ibex_vlq_push(&q, (void *)1, 64, 0, 0, 0));
	assert_false(ibex_vlq_push(&q, (void *)1, 64, 0, 0, 0));
}

static void
test_wire_bytes(void **state)
{
	(void)state;
	/* 64-byte frame on the wire (60 + FCS): 84 byte times. */
	assert_int_equal(ibex_wire_bytes(60), 84);
	assert_int_equal(ibex_wire_bytes(14), 84);  /* padded */
	assert_int_equal(ibex_wire_bytes(1514), 1538);
}

/* Send as fast as the shaper allows for one simulated second and count
 * the bytes: the rate must come out within 0.1%. */
static uint64_t
shaped_bytes(uint64_t rate_bps, uint32_t len, uint64_t hz, uint64_t step)
{
	struct ibex_shaper s;
	uint64_t now, wire = 0;

	ibex_shaper_init(&s, rate_bps, hz, 0);
	/* Start from an empty bucket so the burst does not count. */
	s.tokens_fp = 0;
	for (now = 0; now < hz; now += step) {
		ibex_shaper_refill(&s, now);
		while (ibex_shaper_ready(&s)) {
			ibex_shaper_take(&s, len);
			wire += ibex_wire_bytes(len);
		}
	}
	return wire;
}

static void
test_shaper_rate(void **state)
{
	static const uint64_t rates[] = {
		UINT64_C(1000000000), UINT64_C(10000000000),
		UINT64_C(25000000000), UINT64_C(100000000000),
		UINT64_C(400000000000),
	};
	static const uint32_t lens[] = { 60, 1000, 1514, 9000 };
	const uint64_t hz = UINT64_C(2600000000);

	(void)state;
	for (size_t r = 0; r < sizeof(rates) / sizeof(rates[0]); r++)
		for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
			double want = rates[r] / 8.0;
			/* poll every 2 us of TSC */
			double got = shaped_bytes(rates[r], lens[l], hz, 5200);

			assert_true(got > want * 0.999);
			assert_true(got < want * 1.001 + 9024);
		}
}

static void
test_shaper_bucket_caps_idle_credit(void **state)
{
	struct ibex_shaper s;
	const uint64_t hz = 1000000000; /* 1 tick = 1 ns */
	unsigned int n = 0;

	(void)state;
	/* 10G: bucket = max(16 KiB, 10 us x 1.25 GB/s = 12500 B) = 16384 B.
	 * After a long idle period at most one bucket (+ one frame) goes. */
	ibex_shaper_init(&s, UINT64_C(10000000000), hz, 0);
	ibex_shaper_refill(&s, UINT64_C(5000000000));
	while (ibex_shaper_ready(&s)) {
		ibex_shaper_take(&s, 1514);
		n++;
	}
	assert_int_equal(n, (16384 + 1537) / 1538);
	/* Off: rate 0 means unshaped. */
	ibex_shaper_init(&s, 0, hz, 0);
	assert_false(ibex_shaper_on(&s));
}

/* What the data path does before a frame: refill, and with an empty
 * bucket claim from the shared clock. */
static bool
may_send(struct ibex_shaper *s, uint64_t now)
{
	ibex_shaper_refill(s, now);
	return ibex_shaper_ready(s) || ibex_shaper_reclaim(s, now);
}

/* @p n queues share one port clock, polling every @p step in turn (queue
 * k offset by k x step / n) for one simulated second; @p busy of them
 * have frames. @return the wire bytes all sent. */
static uint64_t
shared_bytes(unsigned int n, unsigned int busy, uint64_t rate_bps,
	     uint32_t len, uint64_t hz, uint64_t step)
{
	struct ibex_shaper_clock clock = { .next = 0 };
	struct ibex_shaper s[4];
	uint64_t now, wire = 0;
	unsigned int k;

	for (k = 0; k < n; k++) {
		ibex_shaper_init(&s[k], rate_bps, hz, 0);
		ibex_shaper_share(&s[k], &clock);
		assert_true(ibex_shaper_on(&s[k]));
		assert_false(ibex_shaper_ready(&s[k]));
	}
	for (now = 0; now < hz; now += step)
		for (k = 0; k < busy; k++) {
			uint64_t t = now + k * step / n;

			while (may_send(&s[k], t)) {
				ibex_shaper_take(&s[k], len);
				wire += ibex_wire_bytes(len);
			}
		}
	return wire;
}

/* A port shaped by 1, 2 or 4 workers sends its rate in all, whether one
 * of them has frames or all do: within 0.1%, plus at most one grant per
 * worker (a quarter bucket) and a frame. */
static void
test_shaper_shared_port_rate(void **state)
{
	static const uint64_t rates[] = {
		UINT64_C(1000000000), UINT64_C(10000000000),
		UINT64_C(100000000000),
	};
	static const uint32_t lens[] = { 60, 1514, 9000 };
	const uint64_t hz = UINT64_C(2600000000);

	(void)state;
	for (size_t r = 0; r < sizeof(rates) / sizeof(rates[0]); r++)
		for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++)
			for (unsigned int n = 1; n <= 4; n *= 2)
				for (unsigned int b = 1; b <= n; b = b * 2) {
					double want = rates[r] / 8.0;
					double got = shared_bytes(n, b,
						rates[r], lens[l], hz, 5200);
					double slack = n * (want * 10e-6 / 4 +
							    16384 / 4) + 9024;

					assert_true(got > want * 0.999);
					assert_true(got < want * 1.001 + slack);
				}
}

/* The shared clock saves at most one bucket while the port idles, and a
 * clock far ahead of now (left behind by a wrap of the 48-bit clock) is
 * read as long past, not as a port that may not send for hours. */
static void
test_shaper_shared_idle_and_wrap(void **state)
{
	const uint64_t hz = 1000000000; /* 1 tick = 1 ns */
	struct ibex_shaper_clock clock = { .next = 0 };
	struct ibex_shaper a, b;
	unsigned int n = 0;

	(void)state;
	ibex_shaper_init(&a, UINT64_C(10000000000), hz, 0);
	ibex_shaper_init(&b, UINT64_C(10000000000), hz, 0);
	ibex_shaper_share(&a, &clock);
	ibex_shaper_share(&b, &clock);
	/* 5 s idle at 10G: one bucket (16384 B) and a grant's rounding. */
	for (;;) {
		struct ibex_shaper *q = n % 2 ? &a : &b;

		if (!may_send(q, UINT64_C(5000000000)))
			break;
		do {
			ibex_shaper_take(q, 1514);
			n++;
		} while (ibex_shaper_ready(q));
	}
	assert_true(n >= 16384 / 1538 && n <= (16384 + 2 * 4096) / 1538 + 2);
	/* Wrapped: next 2^62 units ahead of now. */
	clock.next = (UINT64_C(6000000000) << IBEX_SHAPER_CLOCK_SHIFT) +
		     (UINT64_C(1) << 62);
	a.tokens_fp = 0;
	assert_true(may_send(&a, UINT64_C(6000000000)));
	/* Init again: the queue shapes alone, with a full bucket. */
	ibex_shaper_init(&a, UINT64_C(10000000000), hz, 0);
	assert_true(ibex_shaper_ready(&a));
	assert_true(a.clock == NULL);
}

static void
test_hist_record_n(void **state)
{
	static struct ibex_hist a, b;

	(void)state;
	ibex_hist_init(&a);
	ibex_hist_init(&b);
	for (int i = 0; i < 7; i++)
		ibex_hist_record(&a, 1234);
	ibex_hist_record(&a, 5);
	ibex_hist_record_n(&b, 1234, 7);
	ibex_hist_record_n(&b, 5, 1);
	assert_memory_equal(&a, &b, sizeof(a));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vlq_fifo_and_gauges),
		cmocka_unit_test(test_vlq_block_bound),
		cmocka_unit_test(test_wire_bytes),
		cmocka_unit_test(test_shaper_rate),
		cmocka_unit_test(test_shaper_bucket_caps_idle_credit),
		cmocka_unit_test(test_shaper_shared_port_rate),
		cmocka_unit_test(test_shaper_shared_idle_and_wrap),
		cmocka_unit_test(test_hist_record_n),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
