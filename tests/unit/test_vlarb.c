/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The InfiniBand VL arbiter: worked examples with exact sequences where
 * the rules fix them, and long saturated runs checked against the
 * weights where only the shares are fixed.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ibex_vlarb.h"

/* A port whose lanes always have a head frame of size(vl, n). */
struct sim {
	struct ibex_vlarb a;
	uint32_t (*size)(unsigned int vl, uint64_t n);
	uint32_t head[16];
	uint64_t bytes[16];
	uint64_t frames[16];
};

static uint32_t
size64(unsigned int vl, uint64_t n)
{
	(void)vl;
	(void)n;
	return 64;
}

static uint32_t
size1500(unsigned int vl, uint64_t n)
{
	(void)vl;
	(void)n;
	return 1500;
}

/* Each lane its own sizes: fixed small, fixed large, a cycle, jumbo. */
static uint32_t
size_mixed(unsigned int vl, uint64_t n)
{
	static const uint32_t cyc[5] = { 64, 576, 1024, 1518, 100 };

	switch (vl % 4) {
	case 0:
		return 1500;
	case 1:
		return 64;
	case 2:
		return cyc[n % 5];
	default:
		return 9000;
	}
}

/* Pseudo-random sizes 64..1518, the same on every lane (LCG, fixed seed). */
static uint32_t
size_random(unsigned int vl, uint64_t n)
{
	uint64_t x = (n + 1) * 6364136223846793005ULL + vl * 1442695040888963407ULL;

	x ^= x >> 29;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 32;
	return 64 + (uint32_t)(x % (1518 - 64 + 1));
}

static void
sim_init(struct sim *s, const struct ibex_vlarb_conf *c,
	 uint32_t (*size)(unsigned int, uint64_t))
{
	memset(s, 0, sizeof(*s));
	assert_int_equal(ibex_vlarb_init(&s->a, c), 0);
	s->size = size;
}

/* One arbitration: send what it picks. */
static int
sim_step(struct sim *s, uint32_t elig)
{
	unsigned int v;
	int vl;

	for (v = 0; v < 16; v++)
		s->head[v] = s->size(v, s->frames[v]);
	vl = ibex_vlarb_next(&s->a, elig, s->head);
	if (vl < 0)
		return vl;
	assert_true(vl < 15);
	assert_true((elig >> vl) & 1);
	assert_int_equal(ibex_vlarb_charge(&s->a, vl, s->head[vl]), 0);
	s->bytes[vl] += s->head[vl];
	s->frames[vl]++;
	return vl;
}

static void
sim_seq(struct sim *s, uint32_t elig, const int *want, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		int got = sim_step(s, elig);

		if (got != want[i])
			fail_msg("step %u: VL %d, expected %d", i, got, want[i]);
	}
}

static void
conf_tables(struct ibex_vlarb_conf *c, const uint8_t *high, unsigned int nh,
	    const uint8_t *low, unsigned int nl, uint8_t limit)
{
	unsigned int i;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < nh; i++) {
		c->high[i].vl = high[2 * i];
		c->high[i].weight = high[2 * i + 1];
	}
	for (i = 0; i < nl; i++) {
		c->low[i].vl = low[2 * i];
		c->low[i].weight = low[2 * i + 1];
	}
	c->nb_high = (uint8_t)nh;
	c->nb_low = (uint8_t)nl;
	c->limit = limit;
}

/* Relative error of lane v's byte share against weight w of total wt. */
static void
assert_share(const struct sim *s, unsigned int v, double w, double wt,
	     double tol)
{
	uint64_t total = 0;
	unsigned int i;
	double share, want;

	for (i = 0; i < 16; i++)
		total += s->bytes[i];
	share = (double)s->bytes[v] / (double)total;
	want = w / wt;
	if (share < want * (1 - tol) || share > want * (1 + tol))
		fail_msg("VL %u share %.5f, expected %.5f +- %.1f%%", v, share,
			 want, tol * 100);
}

static void
test_equal_weights_round_robin(void **state)
{
	static const uint8_t low[] = { 0, 1, 1, 1, 2, 1 };
	static const int want[] = { 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2 };
	static const uint8_t low2[] = { 0, 2, 1, 2, 2, 2 };
	static const int want2[] = { 0, 0, 1, 1, 2, 2, 0, 0, 1, 1, 2, 2 };
	struct ibex_vlarb_conf c;
	struct sim s;

	(void)state;
	conf_tables(&c, NULL, 0, low, 3, 0);
	sim_init(&s, &c, size64);
	sim_seq(&s, 0x7, want, 12);
	/* weight 2 = 128 bytes = two 64-byte frames a turn */
	conf_tables(&c, NULL, 0, low2, 3, 0);
	sim_init(&s, &c, size64);
	sim_seq(&s, 0x7, want2, 12);
}

static void
test_weights_1_2_4_8_exact_64(void **state)
{
	static const uint8_t low[] = { 0, 1, 1, 2, 2, 4, 3, 8 };
	static const int lap[15] = { 0, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3 };
	struct ibex_vlarb_conf c;
	struct sim s;
	unsigned int i;

	(void)state;
	conf_tables(&c, NULL, 0, low, 4, 0);
	sim_init(&s, &c, size64);
	for (i = 0; i < 1000; i++)
		sim_seq(&s, 0xf, lap, 15);
	/* exact with equal frames: bytes are weights x 64 x laps */
	assert_int_equal(s.bytes[0], 1000 * 64 * 1);
	assert_int_equal(s.bytes[1], 1000 * 64 * 2);
	assert_int_equal(s.bytes[2], 1000 * 64 * 4);
	assert_int_equal(s.bytes[3], 1000 * 64 * 8);
}

static void
run_shares(uint32_t (*size)(unsigned int, uint64_t), unsigned int frames)
{
	static const uint8_t low[] = { 0, 1, 1, 2, 2, 4, 3, 8 };
	struct ibex_vlarb_conf c;
	struct sim s;
	unsigned int i;

	conf_tables(&c, NULL, 0, low, 4, 0);
	sim_init(&s, &c, size);
	for (i = 0; i < frames; i++)
		assert_true(sim_step(&s, 0xf) >= 0);
	assert_share(&s, 0, 1, 15, 0.01);
	assert_share(&s, 1, 2, 15, 0.01);
	assert_share(&s, 2, 4, 15, 0.01);
	assert_share(&s, 3, 8, 15, 0.01);
}

static void
test_weights_1_2_4_8_mixed(void **state)
{
	(void)state;
	/* lanes with different sizes, many larger than a whole turn */
	run_shares(size_mixed, 400000);
	/* every lane the same random mix */
	run_shares(size_random, 400000);
}

static void
test_strict_forgets_overrun(void **state)
{
	static const uint8_t low[] = { 0, 1, 1, 2 };
	static const int want[] = { 0, 1, 0, 1, 0, 1, 0, 1 };
	struct ibex_vlarb_conf c;
	struct sim s;
	unsigned int i;

	(void)state;
	/* IB exact: 1500-byte frames exceed both turns (64 and 128 bytes),
	 * each turn sends one frame, the weights do not show */
	conf_tables(&c, NULL, 0, low, 2, 0);
	c.strict = true;
	sim_init(&s, &c, size1500);
	sim_seq(&s, 0x3, want, 8);
	/* with the carry (default) the bytes follow the weights 1:2 */
	c.strict = false;
	sim_init(&s, &c, size1500);
	for (i = 0; i < 30000; i++)
		sim_step(&s, 0x3);
	assert_share(&s, 0, 1, 3, 0.01);
	assert_share(&s, 1, 2, 3, 0.01);
	/* one lap of carry by hand: VL0 owes 1436, VL1 owes 1372, so
	 * frames go 0,1 then both skip turns until the debt is paid */
	sim_init(&s, &c, size1500);
	assert_int_equal(sim_step(&s, 0x3), 0);
	assert_int_equal(sim_step(&s, 0x3), 1);
	/* VL1 pays 128 per lap, VL0 64: VL1 is clear after 11 laps
	 * (1372 - 10 x 128 = 92 < 128), VL0 needs 23 */
	assert_int_equal(sim_step(&s, 0x3), 1);
}

static void
test_single_lane_work_conserving(void **state)
{
	static const uint8_t low[] = { 1, 1, 3, 1 };
	struct ibex_vlarb_conf c;
	struct sim s;
	unsigned int i;

	(void)state;
	conf_tables(&c, NULL, 0, low, 2, 0);
	/* 9000-byte frames on a 64-byte turn: a lone lane still sends every
	 * time it asks (its debt is paid in whole silent laps at once) */
	sim_init(&s, &c, size_mixed);
	for (i = 0; i < 1000; i++)
		assert_int_equal(sim_step(&s, 1u << 3), 3);
	/* Next to VL1 (64-byte frames, weight 1) the debt shows. Worked by
	 * hand: VL3 sends 9000 with 64 left, owes 8936 and pays 64 a lap;
	 * it is clear when 8936 - 64 m < 64, m = 139, so VL1 sends 140
	 * frames before VL3's next one; that frame starts with 64 - 40 = 24
	 * left, owes 8976, clear after 140 payments: 141 VL1 frames. */
	sim_init(&s, &c, size_mixed);
	assert_int_equal(sim_step(&s, 0xa), 1);
	assert_int_equal(sim_step(&s, 0xa), 3);
	for (i = 0; i < 140; i++)
		assert_int_equal(sim_step(&s, 0xa), 1);
	assert_int_equal(sim_step(&s, 0xa), 3);
	for (i = 0; i < 141; i++)
		assert_int_equal(sim_step(&s, 0xa), 1);
	assert_int_equal(sim_step(&s, 0xa), 3);
	for (i = 0; i < 200000; i++)
		sim_step(&s, 0xa);
	assert_share(&s, 1, 1, 2, 0.01);
	assert_share(&s, 3, 1, 2, 0.01);
}

static void
test_weight0_skipped(void **state)
{
	static const uint8_t low[] = { 0, 1, 1, 0, 2, 1 };
	static const int want[] = { 0, 2, 0, 2, 0, 2 };
	struct ibex_vlarb_conf c;
	struct sim s;

	(void)state;
	conf_tables(&c, NULL, 0, low, 3, 0);
	assert_int_equal(ibex_vlarb_conf_served(&c), 0x5);
	sim_init(&s, &c, size64);
	sim_seq(&s, 0x7, want, 6);
	/* VL1 alone is never served: its only entry has weight 0 */
	assert_int_equal(sim_step(&s, 0x2), -1);
	assert_int_equal(s.frames[1], 0);
}

static void
test_repeated_vl(void **state)
{
	/* entries A, B, A: A gets two turns a lap */
	static const uint8_t low[] = { 4, 1, 9, 1, 4, 1 };
	static const int want[] = { 4, 9, 4, 4, 9, 4, 4, 9, 4 };
	struct ibex_vlarb_conf c;
	struct sim s;
	unsigned int i;

	(void)state;
	conf_tables(&c, NULL, 0, low, 3, 0);
	sim_init(&s, &c, size64);
	sim_seq(&s, 1u << 4 | 1u << 9, want, 9);
	sim_init(&s, &c, size_random);
	for (i = 0; i < 300000; i++)
		sim_step(&s, 1u << 4 | 1u << 9);
	assert_share(&s, 4, 2, 3, 0.01);
	assert_share(&s, 9, 1, 3, 0.01);
}

static void
test_limit0_alternates(void **state)
{
	static const uint8_t high[] = { 0, 4 };
	static const uint8_t low[] = { 1, 4 };
	static const int want[] = { 0, 1, 0, 1, 0, 1, 0, 1 };
	struct ibex_vlarb_conf c;
	struct sim s;

	(void)state;
	conf_tables(&c, high, 1, low, 1, 0);
	sim_init(&s, &c, size64);
	sim_seq(&s, 0x3, want, 8);
	/* also with frames larger than the limit in bytes (0) */
	sim_init(&s, &c, size1500);
	sim_seq(&s, 0x3, want, 8);
}

static void
test_limit1_exact(void **state)
{
	static const uint8_t high[] = { 0, 255 };
	static const uint8_t low[] = { 1, 1 };
	struct ibex_vlarb_conf c;
	struct sim s;
	unsigned int round, i;

	(void)state;
	conf_tables(&c, high, 1, low, 1, 1);
	/* 4096 bytes = 64 frames of 64 bytes, then one low frame */
	sim_init(&s, &c, size64);
	for (round = 0; round < 5; round++) {
		for (i = 0; i < 64; i++)
			assert_int_equal(sim_step(&s, 0x3), 0);
		assert_int_equal(sim_step(&s, 0x3), 1);
	}
	/* 1500-byte frames: 3000 fits, a third would make 4500 > 4096 */
	sim_init(&s, &c, size1500);
	for (round = 0; round < 5; round++) {
		assert_int_equal(sim_step(&s, 0x3), 0);
		assert_int_equal(sim_step(&s, 0x3), 0);
		assert_int_equal(sim_step(&s, 0x3), 1);
	}
	/* limit 2 with 64-byte frames: 128 high, one low */
	c.limit = 2;
	sim_init(&s, &c, size64);
	for (round = 0; round < 3; round++) {
		for (i = 0; i < 128; i++)
			assert_int_equal(sim_step(&s, 0x3), 0);
		assert_int_equal(sim_step(&s, 0x3), 1);
	}
}

static void
test_limit255_starves_low(void **state)
{
	static const uint8_t high[] = { 0, 1, 2, 1 };
	static const uint8_t low[] = { 1, 255 };
	struct ibex_vlarb_conf c;
	struct sim s;
	unsigned int i;

	(void)state;
	conf_tables(&c, high, 2, low, 1, 255);
	sim_init(&s, &c, size1500);
	for (i = 0; i < 100000; i++)
		assert_int_equal(sim_step(&s, 0x7), i % 2 ? 2 : 0);
	assert_int_equal(s.frames[1], 0);
	/* and only while high has a lane: then low goes at once */
	assert_int_equal(sim_step(&s, 0x2), 1);
	assert_int_equal(sim_step(&s, 0x6), 2);
	assert_int_equal(sim_step(&s, 0x3), 0);
}

static void
test_idle_high_never_blocks_low(void **state)
{
	static const uint8_t high[] = { 0, 255, 5, 255 };
	static const uint8_t low[] = { 1, 1, 2, 1 };
	static const int want[] = { 1, 2, 1, 2, 1, 2 };
	struct ibex_vlarb_conf c;
	struct sim s;

	(void)state;
	conf_tables(&c, high, 2, low, 2, 255);
	sim_init(&s, &c, size64);
	/* VL0 and VL5 idle: the unbounded high table does not matter */
	sim_seq(&s, 0x6, want, 6);
	/* an eligible lane in no table is ignored */
	sim_seq(&s, 0x6 | 1u << 7, want, 6);
	assert_int_equal(sim_step(&s, 1u << 7), -1);
	/* VL15 is the caller's, never arbitrated */
	assert_int_equal(sim_step(&s, 1u << 15), -1);
	assert_int_equal(sim_step(&s, 0), -1);
}

static void
test_high_count_resets_when_low_idle(void **state)
{
	static const uint8_t high[] = { 0, 255 };
	static const uint8_t low[] = { 1, 1 };
	struct ibex_vlarb_conf c;
	struct sim s;
	unsigned int i;

	(void)state;
	conf_tables(&c, high, 1, low, 1, 1);
	sim_init(&s, &c, size64);
	/* 30 high frames towards the limit, then low goes idle */
	for (i = 0; i < 30; i++)
		assert_int_equal(sim_step(&s, 0x3), 0);
	for (i = 0; i < 1000; i++)
		assert_int_equal(sim_step(&s, 0x1), 0);
	/* low is back: high gets a whole fresh 4096 bytes first */
	for (i = 0; i < 64; i++)
		assert_int_equal(sim_step(&s, 0x3), 0);
	assert_int_equal(sim_step(&s, 0x3), 1);
	/* a low frame resets the count as well */
	for (i = 0; i < 64; i++)
		assert_int_equal(sim_step(&s, 0x3), 0);
	assert_int_equal(sim_step(&s, 0x3), 1);
}

static void
test_idle_lane_earns_nothing(void **state)
{
	static const uint8_t low[] = { 0, 1, 1, 1 };
	static const int want[] = { 1, 0, 1, 0, 1, 0, 1, 0 };
	struct ibex_vlarb_conf c;
	struct sim s;
	unsigned int i;

	(void)state;
	conf_tables(&c, NULL, 0, low, 2, 0);
	sim_init(&s, &c, size64);
	for (i = 0; i < 1000; i++)
		assert_int_equal(sim_step(&s, 0x1), 0);
	/* VL1 was idle for 1000 frames: strict alternation, no catch-up */
	sim_seq(&s, 0x3, want, 8);
}

static void
test_ineligible_entry_skipped(void **state)
{
	static const uint8_t low[] = { 0, 2, 1, 2, 2, 2 };
	static const int want[] = { 0, 0, 2, 2, 0, 0, 2, 2 };
	static const uint8_t high[] = { 0, 255 };
	static const uint8_t low2[] = { 1, 1, 2, 1 };
	struct ibex_vlarb_conf c;
	struct sim s;
	unsigned int round, i;

	(void)state;
	conf_tables(&c, NULL, 0, low, 3, 0);
	sim_init(&s, &c, size64);
	sim_seq(&s, 0x5, want, 8);
	/* the limit count survives the skipped low VL1 entry */
	conf_tables(&c, high, 1, low2, 2, 1);
	sim_init(&s, &c, size64);
	for (round = 0; round < 3; round++) {
		for (i = 0; i < 64; i++)
			assert_int_equal(sim_step(&s, 0x5), 0);
		assert_int_equal(sim_step(&s, 0x5), 2);
	}
	/* a lane that empties mid-turn ends its turn (IB: the rest is lost) */
	conf_tables(&c, NULL, 0, low, 3, 0);
	sim_init(&s, &c, size64);
	assert_int_equal(sim_step(&s, 0x7), 0);
	assert_int_equal(sim_step(&s, 0x6), 1);
	assert_int_equal(sim_step(&s, 0x7), 1);
	assert_int_equal(sim_step(&s, 0x7), 2);
	assert_int_equal(sim_step(&s, 0x7), 2);
	assert_int_equal(sim_step(&s, 0x7), 0);
}

static void
test_decline_and_charge_checks(void **state)
{
	static const uint8_t low[] = { 0, 1, 1, 1 };
	struct ibex_vlarb_conf c;
	struct ibex_vlarb a;
	uint32_t head[16];
	unsigned int i;

	(void)state;
	for (i = 0; i < 16; i++)
		head[i] = 64;
	conf_tables(&c, NULL, 0, low, 2, 0);
	assert_int_equal(ibex_vlarb_init(&a, &c), 0);
	assert_int_equal(ibex_vlarb_charge(&a, 0, 64), -EINVAL);
	/* TX full: ask again and again without sending, same answer */
	for (i = 0; i < 5; i++)
		assert_int_equal(ibex_vlarb_next(&a, 0x3, head), 0);
	assert_int_equal(ibex_vlarb_charge(&a, 1, 64), -EINVAL);
	assert_int_equal(ibex_vlarb_charge(&a, 0, 64), 0);
	assert_int_equal(ibex_vlarb_charge(&a, 0, 64), -EINVAL);
	assert_int_equal(ibex_vlarb_next(&a, 0x3, head), 1);
	assert_int_equal(ibex_vlarb_next(&a, 0x3, head), 1);
	assert_int_equal(ibex_vlarb_charge(&a, 1, 64), 0);
	assert_int_equal(ibex_vlarb_next(&a, 0x3, head), 0);
	assert_int_equal(ibex_vlarb_next(&a, 0, head), -1);
	/* a -1 answer leaves nothing to charge */
	assert_int_equal(ibex_vlarb_charge(&a, 0, 64), -EINVAL);
}

static void
test_conf_default_and_validate(void **state)
{
	struct ibex_vlarb_conf c;
	struct sim s;
	char err[160] = "";
	unsigned int i;

	(void)state;
	assert_int_equal(ibex_vlarb_conf_default(&c, 4), 0);
	assert_int_equal(c.nb_high, 0);
	assert_int_equal(c.nb_low, 4);
	assert_int_equal(ibex_vlarb_conf_served(&c), 0xf);
	assert_int_equal(ibex_vlarb_conf_validate(&c, 4, err, sizeof(err)), 0);
	/* equal shares with any sizes */
	sim_init(&s, &c, size_random);
	for (i = 0; i < 200000; i++)
		sim_step(&s, 0xf);
	for (i = 0; i < 4; i++)
		assert_share(&s, i, 1, 4, 0.01);
	/* 2048 bytes a turn: 64-byte frames go 32 at a time */
	sim_init(&s, &c, size64);
	for (i = 0; i < 32; i++)
		assert_int_equal(sim_step(&s, 0xf), 0);
	assert_int_equal(sim_step(&s, 0xf), 1);

	assert_int_equal(ibex_vlarb_conf_validate(&c, 2, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "low entry 2 names VL 2"));
	c.high[0].vl = 15;
	c.high[0].weight = 1;
	c.nb_high = 1;
	assert_int_equal(ibex_vlarb_conf_validate(&c, 15, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "high entry 0 names VL 15"));
	assert_int_equal(ibex_vlarb_init(&s.a, &c), -EINVAL);
	c.high[0].vl = 3;
	c.nb_low = 65;
	assert_int_equal(ibex_vlarb_conf_validate(&c, 15, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "65 entries"));
	assert_int_equal(ibex_vlarb_conf_default(&c, 0), -EINVAL);
	assert_int_equal(ibex_vlarb_conf_default(&c, 16), -EINVAL);
	assert_int_equal(ibex_vlarb_conf_validate(&c, 16, NULL, 0), -EINVAL);
}

static void
test_full_tables(void **state)
{
	struct ibex_vlarb_conf c;
	struct sim s;
	unsigned int i;

	(void)state;
	/* 64 entries each: lane v at entries v, v+15, ... weight 1 in low;
	 * high has VL14 only in entry 63 */
	memset(&c, 0, sizeof(c));
	for (i = 0; i < 64; i++) {
		c.low[i].vl = (uint8_t)(i % 14);
		c.low[i].weight = 1;
		c.high[i].vl = 14;
		c.high[i].weight = i == 63 ? 1 : 0;
	}
	c.nb_low = 64;
	c.nb_high = 64;
	c.limit = 0;
	sim_init(&s, &c, size64);
	/* low alone: entries in order, wrap after entry 63 */
	for (i = 0; i < 128; i++)
		assert_int_equal(sim_step(&s, 0x3fff), (i % 64) % 14);
	/* high VL14 joins, limit 0: alternate, low continues in order */
	for (i = 0; i < 10; i++) {
		assert_int_equal(sim_step(&s, 0x7fff), 14);
		assert_int_equal(sim_step(&s, 0x7fff), i % 14);
	}
}

/* The worked example of docs/virtual-lanes.md. */
static void
test_doc_example(void **state)
{
	static const uint8_t high[] = { 3, 2 };
	static const uint8_t low[] = { 0, 1, 1, 2 };
	static const int both[] = { 3, 0, 3, 1, 3, 1, 3, 0, 3, 1, 3, 1 };
	static const int low_only[] = { 0, 1, 1, 0, 1, 1 };
	static const int high_only[] = { 3, 3, 3, 3 };
	struct ibex_vlarb_conf c;
	struct sim s;

	(void)state;
	conf_tables(&c, high, 1, low, 2, 0);
	sim_init(&s, &c, size64);
	sim_seq(&s, 0xb, both, 12);
	sim_seq(&s, 0x3, low_only, 6);
	sim_seq(&s, 0x8, high_only, 4);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_equal_weights_round_robin),
		cmocka_unit_test(test_weights_1_2_4_8_exact_64),
		cmocka_unit_test(test_weights_1_2_4_8_mixed),
		cmocka_unit_test(test_strict_forgets_overrun),
		cmocka_unit_test(test_single_lane_work_conserving),
		cmocka_unit_test(test_weight0_skipped),
		cmocka_unit_test(test_repeated_vl),
		cmocka_unit_test(test_limit0_alternates),
		cmocka_unit_test(test_limit1_exact),
		cmocka_unit_test(test_limit255_starves_low),
		cmocka_unit_test(test_idle_high_never_blocks_low),
		cmocka_unit_test(test_high_count_resets_when_low_idle),
		cmocka_unit_test(test_idle_lane_earns_nothing),
		cmocka_unit_test(test_ineligible_entry_skipped),
		cmocka_unit_test(test_decline_and_charge_checks),
		cmocka_unit_test(test_conf_default_and_validate),
		cmocka_unit_test(test_full_tables),
		cmocka_unit_test(test_doc_example),
	};

	return cmocka_run_group_tests_name("vlarb", tests, NULL, NULL);
}
