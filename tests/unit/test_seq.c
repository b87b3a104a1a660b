/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the sequence checker: each error kind alone, mixed
 * sequences worked out by hand, 32-bit wrap, the window edge, and a
 * randomized comparison with a reference model (a set of seen numbers).
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ibex_seq.h"

/* Expected counters, in struct order. */
struct want {
	uint64_t rx, lost, ooo, dup, high, low, stale;
};

static void
check(const struct ibex_seq *s, const struct want *w)
{
	struct ibex_seq_counters c;

	ibex_seq_read(s, &c);
	assert_int_equal(c.rx, w->rx);
	assert_int_equal(c.lost, w->lost);
	assert_int_equal(c.out_of_order, w->ooo);
	assert_int_equal(c.duplicate, w->dup);
	assert_int_equal(c.seq_too_high, w->high);
	assert_int_equal(c.seq_too_low, w->low);
	assert_int_equal(c.stale, w->stale);
}

static void
feed(struct ibex_seq *s, const uint32_t *seq, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		ibex_seq_update(s, seq[i]);
}

static void
test_in_order(void **state)
{
	struct ibex_seq s;
	uint32_t i;

	(void)state;
	ibex_seq_init(&s, 0);
	for (i = 0; i < 1000; i++)
		ibex_seq_update(&s, i);
	check(&s, &(struct want){ .rx = 1000 });
	assert_int_equal(s.expected, 1000);
}

/* 0..9 without 3, 4 and 7: two gaps, three numbers lost. */
static void
test_loss(void **state)
{
	static const uint32_t seq[] = { 0, 1, 2, 5, 6, 8, 9 };
	struct ibex_seq s;

	(void)state;
	ibex_seq_init(&s, 0);
	feed(&s, seq, IBEX_ARRAY_SIZE(seq));
	check(&s, &(struct want){ .rx = 7, .lost = 3, .high = 2 });
}

/* The first frames lost: counted against the announced start. */
static void
test_loss_at_start(void **state)
{
	static const uint32_t seq[] = { 4, 5, 6 };
	struct ibex_seq s;

	(void)state;
	ibex_seq_init(&s, 0);
	feed(&s, seq, IBEX_ARRAY_SIZE(seq));
	check(&s, &(struct want){ .rx = 3, .lost = 4, .high = 1 });
}

static void
test_duplicate(void **state)
{
	static const uint32_t seq[] = { 0, 1, 2, 2, 3, 1, 0 };
	struct ibex_seq s;

	(void)state;
	ibex_seq_init(&s, 0);
	feed(&s, seq, IBEX_ARRAY_SIZE(seq));
	check(&s, &(struct want){ .rx = 7, .dup = 3, .low = 3 });
}

/* 2 and 3 swapped: 3 opens a gap (lost 1), 2 closes it (late). */
static void
test_reorder(void **state)
{
	static const uint32_t seq[] = { 0, 1, 3, 2, 4 };
	struct ibex_seq s;

	(void)state;
	ibex_seq_init(&s, 0);
	feed(&s, seq, IBEX_ARRAY_SIZE(seq));
	check(&s, &(struct want){ .rx = 5, .ooo = 1, .high = 1, .low = 1 });
}

/*
 * Step by step (exp = expected before the frame):
 *   0  exp 0  in order
 *   2  exp 1  ahead by 1: high 1, lost 1
 *   1  exp 3  late: low 1, ooo 1, lost 0
 *   1  exp 3  dup: low 2, dup 1
 *   5  exp 3  ahead by 2 (3, 4): high 2, lost 2
 *   3  exp 6  late: low 3, ooo 2, lost 1
 *   9  exp 6  ahead by 3 (6, 7, 8): high 3, lost 4
 *   4  exp 10 late: low 4, ooo 3, lost 3
 *   4  exp 10 dup: low 5, dup 2
 *   8  exp 10 late: low 6, ooo 4, lost 2 (6 and 7 never came)
 */
static void
test_mixed(void **state)
{
	static const uint32_t seq[] = { 0, 2, 1, 1, 5, 3, 9, 4, 4, 8 };
	struct ibex_seq s;

	(void)state;
	ibex_seq_init(&s, 0);
	feed(&s, seq, IBEX_ARRAY_SIZE(seq));
	check(&s, &(struct want){ .rx = 10, .lost = 2, .ooo = 4, .dup = 2,
				  .high = 3, .low = 6 });
}

static void
test_wrap_in_order(void **state)
{
	struct ibex_seq s;
	uint32_t i, n = UINT32_MAX - 300;

	(void)state;
	ibex_seq_init(&s, n);
	for (i = 0; i < 1000; i++)
		ibex_seq_update(&s, n++);
	check(&s, &(struct want){ .rx = 1000 });
	assert_int_equal(s.expected, 699);
}

/*
 * Across the wrap: fffffffe, then 1 (skips ffffffff and 0), then both
 * late, then ffffffff again (duplicate), then 2 in order.
 */
static void
test_wrap_errors(void **state)
{
	static const uint32_t seq[] = {
		0xfffffffe, 1, 0, 0xffffffff, 0xffffffff, 2,
	};
	struct ibex_seq s;

	(void)state;
	ibex_seq_init(&s, 0xfffffffe);
	feed(&s, seq, IBEX_ARRAY_SIZE(seq));
	check(&s, &(struct want){ .rx = 6, .ooo = 2, .dup = 1, .high = 1,
				  .low = 3 });
}

/*
 * Window edge: after 0 and 1000 the window holds 873..1000. 999 is late;
 * 873 (1001 - 128) is still inside, late; 872 and 500 are beyond: stale,
 * assumed late. lost: 999 after the gap, minus four.
 */
static void
test_window_edge(void **state)
{
	static const uint32_t seq[] = { 0, 1000, 999, 873, 872, 500, 873 };
	struct ibex_seq s;

	(void)state;
	ibex_seq_init(&s, 0);
	feed(&s, seq, IBEX_ARRAY_SIZE(seq));
	check(&s, &(struct want){ .rx = 7, .lost = 995, .ooo = 4, .dup = 1,
				  .high = 1, .low = 5, .stale = 2 });
}

/*
 * The same edge reached in order: after 0..299 the window is 172..299.
 * 172 is a duplicate, 171 is stale (assumed late; lost stays 0).
 */
static void
test_window_edge_in_order(void **state)
{
	struct ibex_seq s;
	uint32_t i;

	(void)state;
	ibex_seq_init(&s, 0);
	for (i = 0; i < 300; i++)
		ibex_seq_update(&s, i);
	ibex_seq_update(&s, 172);
	check(&s, &(struct want){ .rx = 301, .dup = 1, .low = 1 });
	ibex_seq_update(&s, 171);
	check(&s, &(struct want){ .rx = 302, .dup = 1, .ooo = 1, .low = 2,
				  .stale = 1 });
}

/* A stale frame with nothing lost leaves lost at 0 (TRex clamps too). */
static void
test_stale_no_loss(void **state)
{
	struct ibex_seq s;
	uint32_t i;

	(void)state;
	ibex_seq_init(&s, 100);
	ibex_seq_update(&s, 99);	/* before the start: untracked */
	for (i = 100; i < 400; i++)
		ibex_seq_update(&s, i);
	ibex_seq_update(&s, 150);	/* 250 behind */
	check(&s, &(struct want){ .rx = 302, .ooo = 2, .low = 2, .stale = 2 });
}

static void
test_learn(void **state)
{
	static const uint32_t seq[] = { 500, 501, 503, 502 };
	struct ibex_seq s;

	(void)state;
	ibex_seq_init_learn(&s);
	feed(&s, seq, IBEX_ARRAY_SIZE(seq));
	check(&s, &(struct want){ .rx = 4, .ooo = 1, .high = 1, .low = 1 });
}

static void
test_counters_add(void **state)
{
	struct ibex_seq_counters a = { 1, 2, 3, 4, 5, 6, 7 };
	struct ibex_seq_counters b = { 10, 20, 30, 40, 50, 60, 70 };

	(void)state;
	ibex_seq_counters_add(&a, &b);
	assert_int_equal(a.rx, 11);
	assert_int_equal(a.lost, 22);
	assert_int_equal(a.out_of_order, 33);
	assert_int_equal(a.duplicate, 44);
	assert_int_equal(a.seq_too_high, 55);
	assert_int_equal(a.seq_too_low, 66);
	assert_int_equal(a.stale, 77);
}

/* ---- randomized: loss + duplication + reordering vs a reference ---- */

static uint64_t
rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * UINT64_C(2685821657736338717);
}

#define MODEL_N 20000u

/*
 * The reference knows every number it has seen (unwrapped, 64-bit) and
 * counts lost ones at the end by enumeration, so it has no window and no
 * incremental lost count to get wrong.
 */
static void
model_run(const uint64_t *arr, size_t n, uint64_t first, uint8_t *seen,
	  struct want *w)
{
	uint64_t next = first, u;
	size_t i;

	memset(w, 0, sizeof(*w));
	for (i = 0; i < n; i++) {
		u = arr[i];
		w->rx++;
		if (u > next)
			w->high++;
		if (u < next) {
			w->low++;
			/* The stream is built to stay inside the window. */
			assert_true(next - u <= IBEX_SEQ_WINDOW);
			if (seen[u - first])
				w->dup++;
			else
				w->ooo++;
		}
		seen[u - first] = 1;
		if (u >= next)
			next = u + 1;
	}
	for (u = first; u < next; u++)
		w->lost += !seen[u - first];
}

static void
random_run(uint64_t seed, uint64_t first)
{
	uint64_t *arr = malloc(2 * MODEL_N * sizeof(*arr));
	uint8_t *seen = calloc(MODEL_N, 1);
	uint64_t s = seed, u, t;
	size_t n = 0, i, k;
	struct ibex_seq q;
	struct want w;

	assert_non_null(arr);
	assert_non_null(seen);
	/* Loss: 3% single frames, sometimes a burst of up to 5. Every
	 * number stays below first + MODEL_N, the size of seen[]. */
	for (u = first; u < first + MODEL_N; u++) {
		if (rnd(&s) % 100 < 3) {
			if (rnd(&s) % 4 == 0)
				u += rnd(&s) % 5;
			continue;
		}
		arr[n++] = u;
	}
	/* Duplication: 2% of frames again, 0..6 frames later. */
	for (i = 0; i < n; i++) {
		if (rnd(&s) % 100 >= 2 || n >= 2 * MODEL_N - 1)
			continue;
		k = i + 1 + rnd(&s) % 7;
		if (k > n)
			k = n;
		memmove(&arr[k + 1], &arr[k], (n - k) * sizeof(*arr));
		arr[k] = arr[i];
		n++;
		i++;
	}
	/* Reordering: 5% of frames swapped with one up to 8 later. */
	for (i = 0; i + 8 < n; i++) {
		if (rnd(&s) % 100 >= 5)
			continue;
		k = i + 1 + rnd(&s) % 8;
		t = arr[i];
		arr[i] = arr[k];
		arr[k] = t;
	}

	model_run(arr, n, first, seen, &w);
	/* Enough of each kind happened for the test to mean something. */
	assert_true(w.lost > 100 && w.dup > 100 && w.ooo > 100);

	ibex_seq_init(&q, (uint32_t)first);
	for (i = 0; i < n; i++)
		ibex_seq_update(&q, (uint32_t)arr[i]);
	check(&q, &w);
	free(arr);
	free(seen);
}

static void
test_random_vs_model(void **state)
{
	uint64_t seed;

	(void)state;
	for (seed = 1; seed <= 20; seed++) {
		/* Half the runs cross 2^32, half start at 0. */
		random_run(seed * 0x9e3779b97f4a7c15ull,
			   seed % 2 ? UINT64_C(0x100000000) - MODEL_N / 2 : 0);
	}
}

int
main(void)
{
	const struct CMUnitTest alone[] = {
		cmocka_unit_test(test_in_order),
		cmocka_unit_test(test_loss),
		cmocka_unit_test(test_loss_at_start),
		cmocka_unit_test(test_duplicate),
		cmocka_unit_test(test_reorder),
		cmocka_unit_test(test_learn),
		cmocka_unit_test(test_counters_add),
	};
	const struct CMUnitTest mixed[] = {
		cmocka_unit_test(test_mixed),
		cmocka_unit_test(test_wrap_in_order),
		cmocka_unit_test(test_wrap_errors),
		cmocka_unit_test(test_window_edge),
		cmocka_unit_test(test_window_edge_in_order),
		cmocka_unit_test(test_stale_no_loss),
		cmocka_unit_test(test_random_vs_model),
	};
	int fails = 0;

	fails += cmocka_run_group_tests_name("seq_alone", alone, NULL, NULL);
	fails += cmocka_run_group_tests_name("seq_mixed", mixed, NULL, NULL);
	return fails == 0 ? 0 : 1;
}
