/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The sender's record of frames in flight (--rto): a frame neither acked
 * nor NACKed is due again one RTO after its last transmission and only
 * then; the first copy to arrive is taken and every later one is a
 * duplicate, also after its slot was freed and taken by another frame; a
 * NACK queues a frame once and keeps its timeout from queueing it again;
 * the window closes when every slot is in flight and opens as the oldest
 * frames are acked; and a simulated lossy link with random loss ends with
 * every frame taken exactly once.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ibex_gen_inflight.h"
#include "ibex_gen_rand.h"

#define RTO 1000
#define SLOTS 16

static struct ibex_inflight_ent mem[IBEX_INFLIGHT_MAX_SLOTS];

static uint16_t
send(struct ibex_inflight *q, uint32_t seq, uint64_t now)
{
	struct ibex_inflight_ent e = { .sf = 7, .seq = seq, .len = 1024,
				       .first_tsc = now };

	assert_true(ibex_inflight_room(q));
	return ibex_inflight_push(q, &e);
}

static unsigned int
expired(struct ibex_inflight *q, uint64_t now, uint16_t *slot)
{
	return ibex_inflight_expired(q, now, slot, SLOTS, 1000);
}

static void
test_init(void **state)
{
	struct ibex_inflight q;

	(void)state;
	assert_int_equal(ibex_inflight_init(&q, mem, 12, RTO), -1);
	assert_int_equal(ibex_inflight_init(&q, mem, 1, RTO), -1);
	assert_int_equal(ibex_inflight_init(&q, mem, 2 * IBEX_INFLIGHT_MAX_SLOTS,
					    RTO), -1);
	assert_int_equal(ibex_inflight_init(&q, mem, IBEX_INFLIGHT_MAX_SLOTS,
					    RTO), 0);
	assert_int_equal(ibex_inflight_count(&q), 0);
}

static void
test_timeout_once(void **state)
{
	struct ibex_inflight q;
	uint16_t slot[SLOTS], a, b;

	(void)state;
	ibex_inflight_init(&q, mem, SLOTS, RTO);
	a = send(&q, 0, 100);
	b = send(&q, 1, 200);
	assert_int_equal(expired(&q, 100 + RTO - 1, slot), 0);
	/* the first is due, not the second */
	assert_int_equal(expired(&q, 100 + RTO, slot), 1);
	assert_int_equal(slot[0], a);
	/* queued: not due again until it is sent again */
	assert_int_equal(expired(&q, 100 + 5 * RTO, slot), 1);
	assert_int_equal(slot[0], b);
	ibex_inflight_resent(&q, a, 100 + 5 * RTO);
	assert_int_equal(expired(&q, 100 + 6 * RTO - 1, slot), 0);
	assert_int_equal(expired(&q, 100 + 6 * RTO, slot), 1);
	assert_int_equal(slot[0], a);
	/* acked: never due, freed from the head */
	assert_true(ibex_inflight_ack(&q, a, 7, 0));
	ibex_inflight_resent(&q, b, 100 + 6 * RTO);
	assert_true(ibex_inflight_ack(&q, b, 7, 1));
	assert_int_equal(expired(&q, 100 + 100 * RTO, slot), 0);
	assert_int_equal(ibex_inflight_count(&q), 0);
}

static void
test_duplicates(void **state)
{
	struct ibex_inflight q;
	uint16_t slot[SLOTS], a;
	uint32_t i;

	(void)state;
	ibex_inflight_init(&q, mem, SLOTS, RTO);
	a = send(&q, 0, 0);
	assert_int_equal(expired(&q, RTO, slot), 1);
	ibex_inflight_resent(&q, a, RTO);
	/* the original, late, is first; the retransmission a duplicate */
	assert_true(ibex_inflight_ack(&q, a, 7, 0));
	assert_false(ibex_inflight_ack(&q, a, 7, 0));
	/* a copy naming another frame of the slot: not this one's ack */
	assert_false(ibex_inflight_ack(&q, a, 8, 0));
	/* freed and taken by a later frame: an old copy is a duplicate and
	 * leaves the new frame in flight */
	expired(&q, 2 * RTO, slot);
	for (i = 1; i <= SLOTS; i++)
		send(&q, i, 2 * RTO);
	assert_false(ibex_inflight_ack(&q, a, 7, 0));
	assert_true(ibex_inflight_ack(&q, a, 7, SLOTS));
}

static void
test_nack(void **state)
{
	struct ibex_inflight q;
	uint16_t slot[SLOTS], a;

	(void)state;
	ibex_inflight_init(&q, mem, SLOTS, RTO);
	a = send(&q, 0, 0);
	assert_true(ibex_inflight_nack(&q, a, 7, 0));
	/* a second NACK (a second trimmed copy) asks for nothing */
	assert_false(ibex_inflight_nack(&q, a, 7, 0));
	/* and no timeout queues it while it waits */
	assert_int_equal(expired(&q, 10 * RTO, slot), 0);
	/* a NACK the queue could not take: the timeout recovers it */
	ibex_inflight_unqueue(&q, a);
	assert_int_equal(expired(&q, 10 * RTO, slot), 1);
	ibex_inflight_resent(&q, a, 10 * RTO);
	assert_true(ibex_inflight_ack(&q, a, 7, 0));
	assert_false(ibex_inflight_nack(&q, a, 7, 0));
}

static void
test_window(void **state)
{
	struct ibex_inflight q;
	uint16_t slot[SLOTS], first;
	uint32_t i;

	(void)state;
	ibex_inflight_init(&q, mem, SLOTS, RTO);
	first = send(&q, 0, 0);
	for (i = 1; i < SLOTS; i++)
		send(&q, i, 0);
	assert_false(ibex_inflight_room(&q));
	/* a later frame acked does not open it: the oldest holds it */
	assert_true(ibex_inflight_ack(&q, (uint16_t)(first + 1), 7, 1));
	expired(&q, 1, slot);
	assert_false(ibex_inflight_room(&q));
	assert_true(ibex_inflight_ack(&q, first, 7, 0));
	expired(&q, 1, slot);
	assert_int_equal(ibex_inflight_count(&q), SLOTS - 2);
	assert_true(ibex_inflight_room(&q));
}

/* A link that loses a third of all copies, at random: with timeouts
 * every frame arrives, each taken exactly once. */
static void
test_lossy_link(void **state)
{
	enum { N = 20000, DELAY = 300, SL = 1024 };
	static uint8_t taken[N];
	struct { uint16_t slot; uint32_t seq; uint64_t at; } wire[4096];
	struct ibex_inflight q;
	uint64_t now = 0, rng = 42;
	uint32_t next = 0, got = 0, dups = 0, head = 0, tail = 0;
	uint16_t slot[SLOTS];
	unsigned int i, n;

	(void)state;
	memset(taken, 0, sizeof(taken));
	ibex_inflight_init(&q, mem, SL, RTO);
	while (got < N && now < 100000000) {
		now += 10;
		/* arrivals */
		while (head != tail && wire[head % 4096].at <= now) {
			uint32_t s = wire[head % 4096].seq;

			if (ibex_inflight_ack(&q, wire[head % 4096].slot, 7, s)) {
				assert_int_equal(taken[s], 0);
				taken[s] = 1;
				got++;
			} else {
				assert_int_equal(taken[s], 1);
				dups++;
			}
			head++;
		}
		/* timeouts first, then one new frame */
		n = expired(&q, now, slot);
		for (i = 0; i < n; i++) {
			ibex_inflight_resent(&q, slot[i], now);
			if (ibex_gen_rand(&rng) % 3 != 0 && tail - head < 4096)
				wire[tail++ % 4096] = (typeof(wire[0])){ slot[i],
					q.ent[slot[i]].seq, now + DELAY };
		}
		if (next < N && ibex_inflight_room(&q)) {
			uint16_t s = send(&q, next, now);

			if (ibex_gen_rand(&rng) % 3 != 0 && tail - head < 4096)
				wire[tail++ % 4096] = (typeof(wire[0])){ s, next,
					now + DELAY };
			next++;
		}
	}
	assert_int_equal(got, N);
	/* the RTO is above the delay: no copy is sent before its
	 * predecessor could have arrived, so duplicates stay few */
	assert_true(dups < N / 100);
	expired(&q, now, slot);
	assert_int_equal(ibex_inflight_count(&q), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init),
		cmocka_unit_test(test_timeout_once),
		cmocka_unit_test(test_duplicates),
		cmocka_unit_test(test_nack),
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_lossy_link),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
