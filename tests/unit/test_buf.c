/* SPDX-License-Identifier: BSD-3-Clause */
/* Buffer accounting: reserved -> shared -> headroom -> violation / tail
 * drop, the dynamic threshold, XOFF/XON hysteresis, headroom sizing. */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "ibex_buf.h"

/*
 * Port 0: PFC, VL3 lossless (headroom 20). Port 1: no flow control.
 * Port 2: credit, VL0 lossless. 8 VLs each with 10 reserved blocks:
 * 3 x 8 x 10 + 20 = 260 carved from 1060, so 800 are shared; alpha 1/8.
 */
static struct ibex_buf_conf
conf3(void)
{
	struct ibex_buf_conf c = { .total_blocks = 1060, .alpha_log2 = -3,
				   .n_ports = 3 };

	c.port[0] = (struct ibex_buf_port_conf){ .mode = IBEX_FC_PFC,
		.n_vls = 8, .lossless_mask = 1 << 3, .reserved_blocks = 10,
		.headroom_blocks = 20, .xon_gap_blocks = 4 };
	c.port[1] = (struct ibex_buf_port_conf){ .mode = IBEX_FC_NONE,
		.n_vls = 8, .lossless_mask = 0xff, .reserved_blocks = 10 };
	c.port[2] = (struct ibex_buf_port_conf){ .mode = IBEX_FC_CREDIT,
		.n_vls = 8, .lossless_mask = 1, .reserved_blocks = 10 };
	return c;
}

static int
setup(void **state)
{
	static struct ibex_buf b;
	struct ibex_buf_conf c = conf3();

	if (ibex_buf_init(&b, &c) != 0)
		return -1;
	*state = &b;
	return 0;
}

static void
test_layout(void **state)
{
	struct ibex_buf *b = *state;
	struct ibex_buf_conf c = conf3();
	static struct ibex_buf b2;

	assert_int_equal(b->shared_total, 800);
	assert_true(b->lane[0][3].pfc);
	assert_false(b->lane[0][2].lossless);
	/* lossless_mask means nothing without flow control */
	assert_false(b->lane[1][0].lossless);
	assert_true(b->lane[2][0].lossless);
	assert_false(b->lane[2][0].pfc);
	assert_int_equal(b->lane[0][8].res_cap, 0); /* beyond n_vls */
	c.total_blocks = 259;
	assert_int_equal(ibex_buf_init(&b2, &c), -ENOSPC);
	c.total_blocks = 260;
	assert_int_equal(ibex_buf_init(&b2, &c), 0);
	assert_int_equal(b2.shared_total, 0);
	c.alpha_log2 = 4;
	assert_int_equal(ibex_buf_init(&b2, &c), -EINVAL);
	c = conf3();
	c.port[0].mode = IBEX_FC_MODE_NB;
	assert_int_equal(ibex_buf_init(&b2, &c), -EINVAL);
}

static void
test_lossless_pfc_sequence(void **state)
{
	struct ibex_buf *b = *state;
	struct ibex_buf_result r;
	unsigned int i;

	r = ibex_buf_admit(b, 0, 3, 10);
	assert_int_equal(r.verdict, IBEX_BUF_RESERVED);
	assert_int_equal(r.pause, IBEX_BUF_PAUSE_NONE);
	r = ibex_buf_admit(b, 0, 3, 5);
	assert_int_equal(r.verdict, IBEX_BUF_SHARED);
	assert_int_equal(b->shared_used, 5);
	/*
	 * 1-block frames: XOFF once shared use s >= (800 - s) >> 3, first
	 * true at s = 89 (threshold 711 >> 3 = 88). From s = 5 that is the
	 * 84th frame; every one before it is silent.
	 */
	for (i = 1; i < 84; i++) {
		r = ibex_buf_admit(b, 0, 3, 1);
		assert_int_equal(r.verdict, IBEX_BUF_SHARED);
		assert_int_equal(r.pause, IBEX_BUF_PAUSE_NONE);
	}
	r = ibex_buf_admit(b, 0, 3, 1);
	assert_int_equal(r.verdict, IBEX_BUF_SHARED);
	assert_int_equal(r.pause, IBEX_BUF_PAUSE_XOFF);
	assert_int_equal(b->lane[0][3].shared, 89);
	/* Now 20 blocks of headroom absorb what is in flight. */
	for (i = 0; i < 20; i++) {
		r = ibex_buf_admit(b, 0, 3, 1);
		assert_int_equal(r.verdict, IBEX_BUF_HEADROOM);
		assert_int_equal(r.pause, IBEX_BUF_PAUSE_NONE);
	}
	/* Beyond that the peer ignored PFC: a violation, nothing charged. */
	r = ibex_buf_admit(b, 0, 3, 1);
	assert_int_equal(r.verdict, IBEX_BUF_VIOLATION);
	assert_int_equal(ibex_buf_lane_used(b, 0, 3), 10 + 89 + 20);
	/* Release: headroom first; XON needs headroom empty and
	 * s + 4 <= (800 - s) >> 3, first true at s = 85. */
	r = ibex_buf_release(b, 0, 3, 20);
	assert_int_equal(b->lane[0][3].headroom, 0);
	assert_int_equal(r.pause, IBEX_BUF_PAUSE_NONE);
	for (i = 0; i < 3; i++)
		assert_int_equal(ibex_buf_release(b, 0, 3, 1).pause,
				 IBEX_BUF_PAUSE_NONE);
	r = ibex_buf_release(b, 0, 3, 1);
	assert_int_equal(r.pause, IBEX_BUF_PAUSE_XON);
	assert_int_equal(b->lane[0][3].shared, 85);
	/* Drain it all: reserved last, the pool whole again. */
	r = ibex_buf_release(b, 0, 3, 95);
	assert_int_equal(r.pause, IBEX_BUF_PAUSE_NONE);
	assert_int_equal(ibex_buf_lane_used(b, 0, 3), 0);
	assert_int_equal(b->shared_used, 0);
}

static void
test_headroom_sticky(void **state)
{
	struct ibex_buf *b = *state;
	struct ibex_buf_result r;

	/* A frame bigger than the lane's remaining shared allowance goes to
	 * headroom at once (XOFF), and the lane stays in headroom until it
	 * drains even if shared space would fit a small frame. */
	r = ibex_buf_admit(b, 0, 3, 10);
	assert_int_equal(r.verdict, IBEX_BUF_RESERVED);
	/* Larger than shared allowance (100) and headroom (20). */
	r = ibex_buf_admit(b, 0, 3, 101);
	assert_int_equal(r.verdict, IBEX_BUF_VIOLATION);
	assert_int_equal(b->shared_used, 0);
	/* 80 <= 800 >> 3; after it the threshold is 720 >> 3 = 90. */
	r = ibex_buf_admit(b, 0, 3, 80);
	assert_int_equal(r.verdict, IBEX_BUF_SHARED);
	assert_int_equal(r.pause, IBEX_BUF_PAUSE_NONE);
	/* 80 + 20 > 90: headroom, XOFF. */
	r = ibex_buf_admit(b, 0, 3, 20);
	assert_int_equal(r.verdict, IBEX_BUF_HEADROOM);
	assert_int_equal(r.pause, IBEX_BUF_PAUSE_XOFF);
	/* 81 <= 90 would fit shared, but the lane is in headroom (full). */
	r = ibex_buf_admit(b, 0, 3, 1);
	assert_int_equal(r.verdict, IBEX_BUF_VIOLATION);
	assert_int_equal(b->lane[0][3].shared, 80);
	assert_int_equal(b->lane[0][3].headroom, 20);
}

static void
test_lossy_tail_drop(void **state)
{
	struct ibex_buf *b = *state;
	struct ibex_buf_result r;
	unsigned int i;

	for (i = 0; i < 10; i++)
		assert_int_equal(ibex_buf_admit(b, 1, 0, 1).verdict,
				 IBEX_BUF_RESERVED);
	/* shared s admitted while s + 1 <= (800 - s) >> 3: up to s = 89 */
	for (i = 0; i < 89; i++) {
		r = ibex_buf_admit(b, 1, 0, 1);
		assert_int_equal(r.verdict, IBEX_BUF_SHARED);
		assert_int_equal(r.pause, IBEX_BUF_PAUSE_NONE);
	}
	r = ibex_buf_admit(b, 1, 0, 1);
	assert_int_equal(r.verdict, IBEX_BUF_TAIL_DROP);
	assert_int_equal(r.pause, IBEX_BUF_PAUSE_NONE);
	assert_int_equal(ibex_buf_lane_used(b, 1, 0), 99);
	/* Another lossy lane: reserved is still its own. */
	assert_int_equal(ibex_buf_admit(b, 1, 1, 10).verdict, IBEX_BUF_RESERVED);
}

static void
test_credit_lane(void **state)
{
	struct ibex_buf *b = *state;

	assert_int_equal(ibex_buf_credit_free(b, 2, 0), 10);
	assert_int_equal(ibex_buf_admit(b, 2, 0, 4).verdict, IBEX_BUF_RESERVED);
	assert_int_equal(ibex_buf_credit_free(b, 2, 0), 6);
	/* 6 fit reserved, 4 spill to shared; nothing left to advertise. */
	assert_int_equal(ibex_buf_admit(b, 2, 0, 10).verdict, IBEX_BUF_SHARED);
	assert_int_equal(b->lane[2][0].reserved, 10);
	assert_int_equal(b->lane[2][0].shared, 4);
	assert_int_equal(ibex_buf_credit_free(b, 2, 0), 0);
	/* No headroom on credit lanes: past shared it is a violation. */
	assert_int_equal(ibex_buf_admit(b, 2, 0, 200).verdict,
			 IBEX_BUF_VIOLATION);
	ibex_buf_release(b, 2, 0, 7);
	assert_int_equal(b->lane[2][0].shared, 0);
	assert_int_equal(ibex_buf_credit_free(b, 2, 0), 3);
}

static void
test_scan_xon_from_other_port(void **state)
{
	struct ibex_buf *b = *state;
	uint16_t xoff, xon;
	unsigned int v, i;
	struct ibex_buf_result r;

	/* Port 1's lossy lanes take shared space... */
	for (v = 0; v < 8; v++)
		while (ibex_buf_admit(b, 1, v, 1).verdict != IBEX_BUF_TAIL_DROP)
			;
	/* ...so port 0 VL3 reaches XOFF early. */
	for (i = 0; i < 1000; i++) {
		r = ibex_buf_admit(b, 0, 3, 1);
		if (r.pause == IBEX_BUF_PAUSE_XOFF)
			break;
	}
	assert_int_equal(r.pause, IBEX_BUF_PAUSE_XOFF);
	assert_true(b->lane[0][3].shared < 89);
	ibex_buf_pfc_scan(b, 0, &xoff, &xon);
	assert_int_equal(xoff, 0);
	assert_int_equal(xon, 0);
	/* Port 1 drains: the threshold rises and the scan sends XON. */
	for (v = 0; v < 8; v++)
		ibex_buf_release(b, 1, v, ibex_buf_lane_used(b, 1, v));
	ibex_buf_pfc_scan(b, 0, &xoff, &xon);
	assert_int_equal(xoff, 0);
	assert_int_equal(xon, 1 << 3);
	assert_false(b->lane[0][3].xoff);
}

static void
test_static_xoff(void **state)
{
	static struct ibex_buf b;
	struct ibex_buf_conf c = conf3();
	unsigned int i;

	(void)state;
	c.port[0].xoff_blocks = 30;
	c.port[0].xon_gap_blocks = 10;
	assert_int_equal(ibex_buf_init(&b, &c), 0);
	ibex_buf_admit(&b, 0, 3, 10);
	for (i = 1; i < 30; i++)
		assert_int_equal(ibex_buf_admit(&b, 0, 3, 1).pause,
				 IBEX_BUF_PAUSE_NONE);
	assert_int_equal(ibex_buf_admit(&b, 0, 3, 1).pause, IBEX_BUF_PAUSE_XOFF);
	/* XON at shared <= 20 */
	for (i = 0; i < 9; i++)
		assert_int_equal(ibex_buf_release(&b, 0, 3, 1).pause,
				 IBEX_BUF_PAUSE_NONE);
	assert_int_equal(ibex_buf_release(&b, 0, 3, 1).pause, IBEX_BUF_PAUSE_XON);
	assert_int_equal(b.lane[0][3].shared, 20);
}

/* The high-water marks: untouched within the reserved share (the fast
 * path), exact past it, kept while the lane drains. */
static void
test_peak(void **state)
{
	static struct ibex_buf b;
	struct ibex_buf_conf c = conf3();
	const struct ibex_buf_lane *l = &b.lane[0][3];
	unsigned int i;

	(void)state;
	c.port[0].xoff_blocks = 30;
	c.port[0].xon_gap_blocks = 10;
	assert_int_equal(ibex_buf_init(&b, &c), 0);
	for (i = 0; i < 10; i++)
		assert_true(ibex_buf_admit_reserved(&b, 0, 3, 1));
	assert_int_equal(l->peak, 0);
	/* 30 shared (XOFF), then 7 of headroom */
	for (i = 0; i < 37; i++)
		ibex_buf_admit(&b, 0, 3, 1);
	assert_true(l->xoff);
	assert_int_equal(l->headroom, 7);
	assert_int_equal(l->peak, 10 + 30 + 7);
	assert_int_equal(l->hr_peak, 7);
	for (i = 0; i < 20; i++)
		ibex_buf_release(&b, 0, 3, 1);
	ibex_buf_admit(&b, 0, 3, 2);
	assert_int_equal(ibex_buf_lane_used(&b, 0, 3), 29);
	assert_int_equal(l->peak, 47);
	assert_int_equal(l->hr_peak, 7);
	/* another port's lane has its own marks */
	assert_int_equal(b.lane[1][3].peak, 0);
}

static void
test_headroom_formula(void **state)
{
	(void)state;
	/*
	 * 100 m (500 ns) + 1000 ns processing = 1500 ns one way, MTU 1518
	 * (24 blocks, 48 for two):
	 *  10G: 2 x 10e9 x 1.5e-6 / 8 =  3750 B -> ceil( 7500/85) =  89 -> 137
	 *  25G:                          9375 B -> ceil(18750/85) = 221 -> 269
	 * 100G:                         37500 B -> ceil(75000/85) = 883 -> 931
	 */
	assert_int_equal(ibex_buf_headroom_blocks(10000, 100, 1000, 1518), 137);
	assert_int_equal(ibex_buf_headroom_blocks(25000, 100, 1000, 1518), 269);
	assert_int_equal(ibex_buf_headroom_blocks(100000, 100, 1000, 1518), 931);
	/* 300 m of cable alone is the same 1500 ns */
	assert_int_equal(ibex_buf_headroom_blocks(100000, 300, 0, 1518), 931);
	/* no delay: just two MTUs; 9216-byte jumbo: 144 blocks each */
	assert_int_equal(ibex_buf_headroom_blocks(100000, 0, 0, 1518), 48);
	assert_int_equal(ibex_buf_headroom_blocks(10000, 0, 0, 9216), 288);
}

/*
 * The inline fast path changes nothing but speed: random admissions and
 * releases on every lane of conf3(), applied to a buffer as is and to a
 * twin whose lane is forced down the full path each time (fast_room 0),
 * give the same verdicts, edges and use; fast_room always matches its
 * definition.
 */
static void
test_fast_path_same(void **state)
{
	static struct ibex_buf a, b;
	struct ibex_buf_conf c = conf3();
	static uint32_t held[3][8];
	uint64_t x = 88172645463325252ull;
	unsigned int it, port, vl, n;

	(void)state;
	assert_int_equal(ibex_buf_init(&a, &c), 0);
	assert_int_equal(ibex_buf_init(&b, &c), 0);
	memset(held, 0, sizeof(held));
	for (it = 0; it < 200000; it++) {
		struct ibex_buf_result ra, rb;
		struct ibex_buf_lane *la, *lb;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		port = (unsigned int)(x % 3);
		vl = (unsigned int)(x >> 8) % 8;
		n = 1 + (unsigned int)(x >> 16) % 6;
		la = &a.lane[port][vl];
		lb = &b.lane[port][vl];
		lb->fast_room = 0;
		/* Admit a little more often than release: lanes fill up,
		 * cross XOFF, overflow, and drain again. */
		if ((x >> 32) % 16 < 9 || held[port][vl] < n) {
			ra = ibex_buf_admit(&a, port, vl, n);
			rb = ibex_buf_admit(&b, port, vl, n);
			if (ra.verdict < IBEX_BUF_TAIL_DROP)
				held[port][vl] += n;
		} else {
			ra = ibex_buf_release(&a, port, vl, n);
			rb = ibex_buf_release(&b, port, vl, n);
			held[port][vl] -= n;
		}
		assert_int_equal(ra.verdict, rb.verdict);
		assert_int_equal(ra.pause, rb.pause);
		assert_int_equal(la->reserved, lb->reserved);
		assert_int_equal(la->shared, lb->shared);
		assert_int_equal(la->headroom, lb->headroom);
		assert_int_equal(la->xoff, lb->xoff);
		assert_int_equal(a.shared_used, b.shared_used);
		assert_int_equal(ibex_buf_lane_used(&a, port, vl), held[port][vl]);
		assert_int_equal(la->fast_room,
				 (la->shared | la->headroom) == 0 && !la->xoff ?
				 la->res_cap - la->reserved : 0);
	}
}

/* Several slices of one buffer: a lane judged on what all of them hold,
 * its reserved share counted once, the threshold from the pool's summed
 * use (port 0 VL3: reserved 10, 800 shared, alpha 1/8, xon gap 4). */
static void
test_judge_sum(void **state)
{
	struct ibex_buf *b = *state;
	bool xoff = false;

	/* Two slices of 60 each: 50 shared in each, under a slice's own
	 * threshold ((800 - 50) / 8 = 93); together 110 beyond reserved
	 * against (800 - 100) / 8 = 87. */
	assert_int_equal(ibex_buf_pfc_judge(b, 0, 3, 120, 100, &xoff),
			 IBEX_BUF_PAUSE_XOFF);
	assert_true(xoff);
	assert_int_equal(ibex_buf_pfc_judge(b, 0, 3, 120, 100, &xoff),
			 IBEX_BUF_PAUSE_NONE);
	/* 90 beyond against 90: within the gap, still XOFF. */
	assert_int_equal(ibex_buf_pfc_judge(b, 0, 3, 100, 80, &xoff),
			 IBEX_BUF_PAUSE_NONE);
	assert_true(xoff);
	/* 70 + 4 <= 92: XON. */
	assert_int_equal(ibex_buf_pfc_judge(b, 0, 3, 80, 60, &xoff),
			 IBEX_BUF_PAUSE_XON);
	assert_false(xoff);
	/* Within the reserved share nothing is due, even with the pool
	 * full; one block beyond it with the summed pool past one slice's
	 * size (threshold 0) is. */
	assert_int_equal(ibex_buf_pfc_judge(b, 0, 3, 10, 2000, &xoff),
			 IBEX_BUF_PAUSE_NONE);
	assert_int_equal(ibex_buf_pfc_judge(b, 0, 3, 11, 2000, &xoff),
			 IBEX_BUF_PAUSE_XOFF);
	/* Lanes without PFC are never judged. */
	xoff = false;
	assert_int_equal(ibex_buf_pfc_judge(b, 0, 2, 500, 700, &xoff),
			 IBEX_BUF_PAUSE_NONE);
	assert_int_equal(ibex_buf_pfc_judge(b, 2, 0, 500, 700, &xoff),
			 IBEX_BUF_PAUSE_NONE);
	assert_false(xoff);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_layout, setup),
		cmocka_unit_test_setup(test_lossless_pfc_sequence, setup),
		cmocka_unit_test_setup(test_headroom_sticky, setup),
		cmocka_unit_test_setup(test_lossy_tail_drop, setup),
		cmocka_unit_test_setup(test_credit_lane, setup),
		cmocka_unit_test_setup(test_scan_xon_from_other_port, setup),
		cmocka_unit_test(test_static_xoff),
		cmocka_unit_test(test_peak),
		cmocka_unit_test(test_headroom_formula),
		cmocka_unit_test(test_fast_path_same),
		cmocka_unit_test_setup(test_judge_sum, setup),
	};

	return cmocka_run_group_tests_name("buf", tests, NULL, NULL);
}
