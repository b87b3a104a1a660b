/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Compact flow slots (lib/gen/ibex_gen_slots.h): the pairs each engine
 * uses, one slot each, and nothing else. A 1,024-rank ring and a
 * 4,096-rank halving-doubling run an iteration on a simulated network
 * (every rank one frame per tick, DELAY ticks per link) with a frame
 * template built for every slot: every frame the engine sends finds its
 * pair's slot, is written from that slot's template (its MACs and IPs
 * are its ranks') and every slot carries frames. All-to-all of 1,024
 * ranks fits IBEX_GEN_MAX_PAIRS, of 1,025 is refused.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ibex_gen_coll.h"
#include "ibex_gen_frame.h"
#include "ibex_gen_slots.h"

#define DELAY 2
#define QLEN (1u << 18)

struct inflight {
	uint64_t at;
	struct ibex_gen_pkt p;
	uint32_t iter;
};

/* Templates for every slot of @p sl; each checked against its ranks. */
static struct ibex_gen_tmpl *
tmpl_all(const struct ibex_gen_slots *sl)
{
	struct ibex_gen_frame_opts fo = { .vlan = -1, .ecn = IBEX_ECN_ECT0 };
	struct ibex_gen_tmpl *t = calloc(sl->npairs, sizeof(*t));
	struct ibex_gen_rank a, b;
	uint32_t s, k;

	assert_non_null(t);
	for (s = 0; s < sl->nranks; s++) {
		ibex_gen_rank_addr(s, &a);
		for (k = sl->base[s]; k < sl->base[s + 1]; k++) {
			ibex_gen_rank_addr(sl->dst[k], &b);
			assert_int_equal(ibex_gen_tmpl_build(&t[k], &a, &b, &fo),
					 0);
			assert_memory_equal(t[k].hdr, b.mac, 6);
			assert_memory_equal(t[k].hdr + 6, a.mac, 6);
		}
	}
	return t;
}

/* One iteration of @p cfg; every frame built from its slot's template.
 * @return frames sent. */
static uint64_t
run_iter(const struct ibex_coll_cfg *cfg, const struct ibex_gen_slots *sl,
	 const struct ibex_gen_tmpl *tmpl, uint32_t *per_slot)
{
	struct inflight *q = calloc(QLEN, sizeof(*q));
	uint8_t buf[2048];
	struct ibex_coll c;
	struct ibex_gen_pkt p;
	size_t head = 0, tail = 0;
	uint64_t now = 0, frames = 0;
	unsigned int r;

	assert_non_null(q);
	assert_int_equal(ibex_coll_init(&c, cfg), 0);
	ibex_coll_start(&c, now);
	while (!ibex_coll_done(&c)) {
		assert_true(now < UINT64_C(10000000));
		for (r = 0; r < cfg->nranks; r++) {
			struct ibex_gen_trailer t = { .magic = IBEX_GEN_MAGIC };
			struct ibex_gen_rank d;
			uint32_t len;
			int32_t k;

			if (!ibex_coll_tx(&c, r, now, &p))
				continue;
			k = ibex_gen_slot(sl, p.src, p.dst);
			assert_true(k >= 0);
			len = ibex_gen_frame_len(&tmpl[k], p.payload);
			assert_true(len <= sizeof(buf));
			t.seq = per_slot[k]++;
			ibex_gen_frame_write(buf, &tmpl[k], len, p.opcode,
					     t.seq, &t);
			ibex_gen_rank_addr(p.dst, &d);
			assert_memory_equal(buf, d.mac, 6);
			assert_true(ibex_gen_trailer_get(buf, len, &t));
			assert_int_equal(t.seq, per_slot[k] - 1);
			frames++;
			assert_true(tail - head < QLEN);
			q[tail++ % QLEN] = (struct inflight){ .at = now + DELAY,
				.p = p, .iter = c.iter & 0xffff };
		}
		now++;
		while (head != tail && q[head % QLEN].at <= now) {
			struct inflight *f = &q[head++ % QLEN];

			ibex_coll_rx(&c, f->p.dst, f->p.step, f->iter,
				     f->p.payload, now);
		}
	}
	ibex_coll_fini(&c);
	free(q);
	return frames;
}

static void
check_run(const struct ibex_coll_algo *algo, unsigned int n,
	  uint32_t want_pairs)
{
	/* S/n = 64 bytes in frames of up to 1 KiB of payload: a ring's
	 * transfer is one frame, halving-doubling's first S/2 is 128 */
	struct ibex_coll_cfg cfg = { .algo = algo, .nranks = (uint16_t)n,
		.bytes = 64 * (uint64_t)n, .payload_max = 1024,
		.straggler.rank = -1 };
	struct ibex_gen_slots sl;
	struct ibex_gen_tmpl *tmpl;
	uint32_t *per_slot, k;
	uint64_t frames;

	assert_int_equal(ibex_gen_slots_coll(&sl, &cfg, IBEX_GEN_MAX_PAIRS), 0);
	assert_int_equal(sl.npairs, want_pairs);
	tmpl = tmpl_all(&sl);
	per_slot = calloc(sl.npairs, sizeof(*per_slot));
	assert_non_null(per_slot);
	frames = run_iter(&cfg, &sl, tmpl, per_slot);
	for (k = 0; k < sl.npairs; k++)
		assert_true(per_slot[k] > 0);
	print_message("%s %u ranks: %u pairs, %lu frames, index %lu B, "
		      "templates %lu B\n", algo->name, n, sl.npairs,
		      (unsigned long)frames,
		      (unsigned long)ibex_gen_slots_bytes(&sl),
		      (unsigned long)sl.npairs * sizeof(*tmpl));
	free(per_slot);
	free(tmpl);
	ibex_gen_slots_free(&sl);
}

static void
test_ring_1024(void **state)
{
	(void)state;
	check_run(&ibex_coll_ring, 1024, 1024);
}

static void
test_hd_4096(void **state)
{
	(void)state;
	check_run(&ibex_coll_hd, 4096, 4096 * 12);
}

/* 10,000 ranks: 8,192 in 13 rounds each way, 1,808 extras with their
 * partners, each pair both ways */
static void
test_hd_10000(void **state)
{
	(void)state;
	check_run(&ibex_coll_hd, 10000, 8192 * 13 + 2 * 1808);
}

/* Slots of a small run, by hand: ring 0->1 1->2 2->3 3->0; hd of 4:
 * r^2 then r^1; incast to root 2; every pair not used: -1. */
static void
test_lookup(void **state)
{
	struct ibex_coll_cfg cfg = { .algo = &ibex_coll_ring, .nranks = 4,
		.bytes = 4096, .payload_max = 1024, .straggler.rank = -1 };
	struct ibex_gen_slots sl;
	unsigned int s, d;

	(void)state;
	assert_int_equal(ibex_gen_slots_coll(&sl, &cfg, 16), 0);
	assert_int_equal(sl.npairs, 4);
	for (s = 0; s < 4; s++)
		for (d = 0; d < 4; d++)
			assert_int_equal(ibex_gen_slot(&sl, s, d),
					 d == (s + 1) % 4 ? (int32_t)s : -1);
	assert_int_equal(ibex_gen_slot(&sl, 4, 0), -1);
	ibex_gen_slots_free(&sl);

	cfg.algo = &ibex_coll_hd;
	assert_int_equal(ibex_gen_slots_coll(&sl, &cfg, 16), 0);
	assert_int_equal(sl.npairs, 8);
	/* rank 1: destinations 0 (1^1) and 3 (1^2), ascending */
	assert_int_equal(ibex_gen_slot(&sl, 1, 0), 2);
	assert_int_equal(ibex_gen_slot(&sl, 1, 3), 3);
	assert_int_equal(ibex_gen_slot(&sl, 1, 2), -1);
	ibex_gen_slots_free(&sl);

	/* hd of 6: extras 0 and 2 hand to 1 and 3 and get it back; 1, 3,
	 * 4, 5 are 4 ranks (1^2 = 4 in their numbering 0..3) */
	cfg.nranks = 6;
	cfg.bytes = 6144;
	assert_int_equal(ibex_gen_slots_coll(&sl, &cfg, 16), 0);
	assert_int_equal(sl.npairs, 12);
	assert_true(ibex_gen_slot(&sl, 0, 1) >= 0);
	assert_true(ibex_gen_slot(&sl, 1, 0) >= 0);
	assert_true(ibex_gen_slot(&sl, 1, 3) >= 0);
	assert_true(ibex_gen_slot(&sl, 1, 4) >= 0);
	assert_int_equal(ibex_gen_slot(&sl, 0, 3), -1);
	assert_int_equal(ibex_gen_slot(&sl, 1, 5), -1);
	assert_true(ibex_gen_slot(&sl, 4, 5) >= 0);
	assert_true(ibex_gen_slot(&sl, 3, 2) >= 0);
	ibex_gen_slots_free(&sl);
	cfg.nranks = 4;
	cfg.bytes = 4096;

	cfg.algo = &ibex_coll_incast;
	cfg.root = 2;
	assert_int_equal(ibex_gen_slots_coll(&sl, &cfg, 16), 0);
	assert_int_equal(sl.npairs, 3);
	assert_int_equal(ibex_gen_slot(&sl, 0, 2), 0);
	assert_int_equal(ibex_gen_slot(&sl, 1, 2), 1);
	assert_int_equal(ibex_gen_slot(&sl, 2, 2), -1);
	assert_int_equal(ibex_gen_slot(&sl, 3, 2), 2);
	ibex_gen_slots_free(&sl);

	/* a bound below the run's pairs */
	cfg.algo = &ibex_coll_ring;
	assert_int_equal(ibex_gen_slots_coll(&sl, &cfg, 3), -E2BIG);
	assert_null(sl.base);
	ibex_gen_slots_free(&sl); /* freeing nothing is fine */
}

/* All-to-all: n (n - 1) pairs; 1,024 ranks fit IBEX_GEN_MAX_PAIRS,
 * 1,025 do not. */
static void
test_alltoall_bound(void **state)
{
	struct ibex_coll_cfg cfg = { .algo = &ibex_coll_alltoall,
		.nranks = 1024, .bytes = 64 * 1024, .payload_max = 1 << 20,
		.straggler.rank = -1 };
	struct ibex_gen_slots sl;
	unsigned int s;

	(void)state;
	assert_int_equal(ibex_gen_slots_coll(&sl, &cfg, IBEX_GEN_MAX_PAIRS), 0);
	assert_int_equal(sl.npairs, 1024 * 1023);
	for (s = 0; s < 1024; s += 97) {
		unsigned int d = (s * 7 + 3) % 1024;

		assert_int_equal(ibex_gen_slot(&sl, s, s), -1);
		if (d != s)
			assert_int_equal(ibex_gen_slot(&sl, s, d),
					 (int32_t)(s * 1023 + (d < s ? d :
								d - 1)));
	}
	print_message("alltoall 1024 ranks: %u pairs, index %lu B\n",
		      sl.npairs, (unsigned long)ibex_gen_slots_bytes(&sl));
	ibex_gen_slots_free(&sl);
	cfg.nranks = 1025;
	cfg.bytes = 64 * 1025;
	assert_int_equal(ibex_gen_slots_coll(&sl, &cfg, IBEX_GEN_MAX_PAIRS),
			 -E2BIG);
}

/* Open-loop flows: a list with repeats, in any order. */
static void
test_pairs(void **state)
{
	const uint32_t pairs[] = { 5u << 16 | 1, 0u << 16 | 7, 5u << 16 | 0,
				   0u << 16 | 7, 3u << 16 | 3 };
	const uint32_t bad[] = { 8u << 16 | 0 };
	struct ibex_gen_slots sl;

	(void)state;
	assert_int_equal(ibex_gen_slots_pairs(&sl, 8, pairs, 5, 16), 0);
	assert_int_equal(sl.npairs, 4);
	assert_int_equal(ibex_gen_slot(&sl, 0, 7), 0);
	assert_int_equal(ibex_gen_slot(&sl, 3, 3), 1);
	assert_int_equal(ibex_gen_slot(&sl, 5, 0), 2);
	assert_int_equal(ibex_gen_slot(&sl, 5, 1), 3);
	assert_int_equal(ibex_gen_slot(&sl, 5, 2), -1);
	assert_int_equal(ibex_gen_slot(&sl, 7, 0), -1);
	ibex_gen_slots_free(&sl);
	assert_int_equal(ibex_gen_slots_pairs(&sl, 8, bad, 1, 16), -EINVAL);
	assert_int_equal(ibex_gen_slots_pairs(&sl, 8, pairs, 5, 3), -E2BIG);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lookup),
		cmocka_unit_test(test_pairs),
		cmocka_unit_test(test_ring_1024),
		cmocka_unit_test(test_hd_4096),
		cmocka_unit_test(test_hd_10000),
		cmocka_unit_test(test_alltoall_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
