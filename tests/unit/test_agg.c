/* SPDX-License-Identifier: BSD-3-Clause */
/* In-network aggregation: the packet codec and its refusals, int32 sums
 * exact and wrapping, fp32 sums bit-identical whatever the arrival order,
 * duplicates never summed twice, a retransmission after the result
 * answered with it, the reuse rule, a non-root switch's way up and down,
 * pool exhaustion, sharding, the wait counter, the vector adds against
 * the scalar ones, and a randomized two-level tree over a network that
 * loses, duplicates and reorders packets. */

#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "test_rnd.h"

#include "ibex_agg.h"
#include "ibex_agg_sum.h"

#define BUF (IBEX_AGG_HDR_LEN + 4 * IBEX_AGG_MAX_ELEMS)

static uint8_t buf[BUF];

static struct ibex_agg_pool *
pool_new(uint64_t mem, uint32_t jobs, uint16_t worker, uint16_t workers)
{
	struct ibex_agg_pool_conf c = { mem, jobs, worker, workers };
	char err[128];
	struct ibex_agg_pool *p = ibex_agg_pool_create(&c, err, sizeof(err));

	assert_non_null(p);
	return p;
}

static struct ibex_agg_pool *
pool1(void)
{
	return pool_new(1 << 20, 8, 0, 1);
}

static void
job_add(struct ibex_agg_pool *p, uint32_t id, uint16_t slots,
	uint16_t children, bool root, uint16_t up)
{
	struct ibex_agg_job_conf c = { id, slots, children, 64, up, root };
	char err[128];

	assert_int_equal(ibex_agg_job_add(p, &c, err, sizeof(err)), 0);
}

/* A packet into buf: @p vals has @p count elements. */
static uint32_t
mk(uint8_t type, uint8_t dtype, uint32_t job, uint16_t slot, uint32_t seq,
   uint16_t child, uint32_t offset, uint16_t count, const void *vals)
{
	struct ibex_agg_hdr h = { type, dtype, count, job, offset, slot,
				  child, seq, 0 };
	int n = ibex_agg_build(buf, sizeof(buf), &h, vals);

	assert_true(n > 0);
	return (uint32_t)n;
}

/* Child @p child's int32 contribution to (job 7, slot, seq). */
static enum ibex_agg_action
give_i32(struct ibex_agg_pool *p, uint16_t slot, uint32_t seq,
	 uint16_t child, const int32_t *v, uint16_t n, uint64_t now,
	 struct ibex_agg_out *o)
{
	uint32_t len = mk(IBEX_AGG_CONTRIB, IBEX_AGG_INT32, 7, slot, seq,
			  child, 0, n, v);

	return ibex_agg_rx(p, buf, len, now, o);
}

static enum ibex_agg_action
give_f32(struct ibex_agg_pool *p, uint16_t slot, uint32_t seq,
	 uint16_t child, const float *v, uint16_t n, struct ibex_agg_out *o)
{
	uint32_t len = mk(IBEX_AGG_CONTRIB, IBEX_AGG_FP32, 7, slot, seq,
			  child, 0, n, v);

	return ibex_agg_rx(p, buf, len, 0, o);
}

static void
test_codec(void **state)
{
	int32_t v[3] = { 1, -2, 0x01020304 }, w[3];
	struct ibex_agg_hdr h = { IBEX_AGG_CONTRIB, IBEX_AGG_INT32, 3,
				  0xA1B2C3D4, 0x10203040, 0x1234, 5, 7,
				  IBEX_AGG_F_RETX }, g;
	const void *el;
	int n;

	(void)state;
	n = ibex_agg_build(buf, sizeof(buf), &h, v);
	assert_int_equal(n, 22 + 12);
	/* the byte table of docs/aggregation.md */
	assert_int_equal(buf[0], 0x11);
	assert_int_equal(buf[1], 1);
	assert_int_equal(buf[2] << 8 | buf[3], 3);
	assert_int_equal(buf[4], 0xA1);
	assert_int_equal(buf[7], 0xD4);
	assert_int_equal(buf[8], 0x10);
	assert_int_equal(buf[12], 0x92);   /* set 1 (seq 7 is odd) | 0x12 */
	assert_int_equal(buf[13], 0x34);
	assert_int_equal(buf[15], 5);
	assert_int_equal(buf[19], 7);
	assert_int_equal(buf[20], IBEX_AGG_F_RETX);
	assert_int_equal(buf[21], 0);
	assert_int_equal(buf[22 + 8], 0x04);  /* elements little-endian */
	assert_int_equal(ibex_agg_parse(buf, (uint32_t)n, &g, &el),
			 IBEX_AGG_OK);
	assert_int_equal(g.type, h.type);
	assert_int_equal(g.dtype, h.dtype);
	assert_int_equal(g.count, 3);
	assert_int_equal(g.job, h.job);
	assert_int_equal(g.offset, h.offset);
	assert_int_equal(g.slot, 0x1234);
	assert_int_equal(g.child, 5);
	assert_int_equal(g.seq, 7);
	assert_int_equal(g.flags, IBEX_AGG_F_RETX);
	memcpy(w, el, sizeof(w));
	assert_memory_equal(v, w, sizeof(v));
	assert_ptr_equal(el, buf + 22);
	/* a buffer one byte short */
	assert_int_equal(ibex_agg_build(buf, 33, &h, v), -IBEX_AGG_E_SPACE);
	h.count = 0;
	assert_int_equal(ibex_agg_build(buf, sizeof(buf), &h, v),
			 -IBEX_AGG_E_COUNT);
	h.count = 3;
	h.slot = IBEX_AGG_MAX_SLOTS;
	assert_int_equal(ibex_agg_build(buf, sizeof(buf), &h, v),
			 -IBEX_AGG_E_SLOT);
	assert_string_equal(ibex_agg_err_name(IBEX_AGG_E_SET), "set");
	assert_string_equal(ibex_agg_err_name(IBEX_AGG_E_MAX), "unknown");
}

/* Set byte @p at of a good 4-element packet to @p v: refused with @p e. */
static void
refused(uint32_t at, uint8_t v, enum ibex_agg_err e)
{
	int32_t vals[4] = { 0 };
	struct ibex_agg_hdr g;
	const void *el;
	uint32_t len = mk(IBEX_AGG_CONTRIB, IBEX_AGG_INT32, 7, 1, 2, 0, 0, 4,
			  vals);

	buf[at] = v;
	assert_int_equal(ibex_agg_parse(buf, len, &g, &el), e);
}

static void
test_malformed(void **state)
{
	struct ibex_agg_pool *p = pool1();
	int32_t vals[4] = { 0 };
	struct ibex_agg_out o;
	struct ibex_agg_hdr g;
	const void *el;
	uint32_t len, n;

	(void)state;
	job_add(p, 7, 4, 2, true, 0);
	refused(0, 0x21, IBEX_AGG_E_VERSION);
	refused(0, 0x10, IBEX_AGG_E_TYPE);
	refused(0, 0x13, IBEX_AGG_E_TYPE);
	refused(1, 0, IBEX_AGG_E_DTYPE);
	refused(1, 3, IBEX_AGG_E_DTYPE);
	refused(2, 0x08, IBEX_AGG_E_COUNT);      /* 2052 elements */
	refused(3, 0, IBEX_AGG_E_COUNT);
	refused(3, 5, IBEX_AGG_E_LENGTH);
	refused(12, 0x80, IBEX_AGG_E_SET);       /* set 1, seq 2 */
	refused(20, 0x02, IBEX_AGG_E_RESERVED);
	refused(21, 0x01, IBEX_AGG_E_RESERVED);
	/* every truncation of a good packet, and one byte too many */
	len = mk(IBEX_AGG_CONTRIB, IBEX_AGG_INT32, 7, 1, 2, 0, 0, 4, vals);
	for (n = 0; n < len; n++)
		assert_int_equal(ibex_agg_parse(buf, n, &g, &el),
				 n < 22 ? IBEX_AGG_E_SHORT : IBEX_AGG_E_LENGTH);
	assert_int_equal(ibex_agg_parse(buf, len + 1, &g, &el),
			 IBEX_AGG_E_LENGTH);
	/* the pool counts them and nothing changes */
	for (n = 0; n < len; n++)
		assert_int_equal(ibex_agg_rx(p, buf, n, 0, &o), IBEX_AGG_NONE);
	assert_int_equal(ibex_agg_stats(p)->malformed[IBEX_AGG_E_SHORT], 22);
	assert_int_equal(ibex_agg_stats(p)->malformed[IBEX_AGG_E_LENGTH],
			 len - 22);
	assert_int_equal(ibex_agg_stats(p)->contributions, 0);
	assert_int_equal(ibex_agg_stats(p)->slots_in_use, 0);
	ibex_agg_pool_free(p);
}

static void
test_int32_exact(void **state)
{
	struct ibex_agg_pool *p = pool1();
	int32_t v[4][5] = {
		{ INT32_MAX, 1, -5, 0, 100 },
		{ 1, INT32_MIN, -7, 0, -100 },
		{ 0, -2, 12, 0, 1 << 30 },
		{ 0, 0, 0, 1, 1 << 30 },
	};
	/* wrapped two's complement */
	int32_t want[5] = { INT32_MIN, INT32_MAX, 0, 1, INT32_MIN };
	struct ibex_agg_out o;
	int c;

	(void)state;
	job_add(p, 7, 4, 4, true, 0);
	for (c = 0; c < 3; c++)
		assert_int_equal(give_i32(p, 3, 0, (uint16_t)c, v[c], 5, 0, &o),
				 IBEX_AGG_NONE);
	assert_int_equal(ibex_agg_stats(p)->slots_in_use, 1);
	assert_int_equal(give_i32(p, 3, 0, 3, v[3], 5, 0, &o), IBEX_AGG_DOWN);
	assert_int_equal(o.hdr.type, IBEX_AGG_RESULT);
	assert_int_equal(o.hdr.slot, 3);
	assert_int_equal(o.hdr.seq, 0);
	assert_int_equal(o.hdr.count, 5);
	assert_int_equal(o.hdr.child, IBEX_AGG_CHILD_ALL);
	assert_memory_equal(o.elems, want, sizeof(want));
	assert_int_equal(ibex_agg_stats(p)->contributions, 4);
	assert_int_equal(ibex_agg_stats(p)->results_sent, 1);
	assert_int_equal(ibex_agg_stats(p)->slots_in_use, 0);
	ibex_agg_pool_free(p);
}

#define NCH 6
#define NEL 37

static void
ref_f32(float vals[][NEL], int n, float *out)
{
	int c, i;

	for (i = 0; i < NEL; i++) {
		out[i] = vals[0][i];
		for (c = 1; c < n; c++)
			out[i] += vals[c][i];
	}
}

/* Every order of 6 arrivals (720), each a use of one slot in turn: the
 * same bits each time, those of the sum in child order; the sums in
 * arrival order are not all the same (so the test could fail). */
static void
test_fp32_order(void **state)
{
	struct ibex_agg_pool *p = pool1();
	float v[NCH][NEL], want[NEL], naive[NEL], first_naive[NEL];
	int perm[NCH], cnt[NCH] = { 0 }, c, i, k, j, t;
	uint64_t rnd = 42;
	struct ibex_agg_out o;
	bool naive_differs = false;
	uint32_t seq = 0, uses = 0;

	(void)state;
	job_add(p, 7, 1, NCH, true, 0);
	for (c = 0; c < NCH; c++)
		for (i = 0; i < NEL; i++)
			v[c][i] = ldexpf((float)(test_rnd(&rnd) * 2 - 1),
					 (int)(test_rnd(&rnd) * 60) - 30);
	v[0][0] = 1e8f, v[1][0] = 1.0f, v[2][0] = -1e8f, v[3][0] = 1.0f;
	ref_f32(v, NCH, want);
	for (c = 0; c < NCH; c++)
		perm[c] = c;
	/* Heap's algorithm, iteratively */
	for (k = 0;;) {
		enum ibex_agg_action a = IBEX_AGG_NONE;

		for (c = 0; c < NCH; c++) {
			assert_int_equal(a, IBEX_AGG_NONE);
			a = give_f32(p, 0, seq, (uint16_t)perm[c], v[perm[c]],
				     NEL, &o);
		}
		assert_int_equal(a, IBEX_AGG_DOWN);
		assert_memory_equal(o.elems, want, sizeof(want));
		for (i = 0; i < NEL; i++) {
			naive[i] = v[perm[0]][i];
			for (c = 1; c < NCH; c++)
				naive[i] += v[perm[c]][i];
		}
		if (uses == 0)
			memcpy(first_naive, naive, sizeof(naive));
		else if (memcmp(first_naive, naive, sizeof(naive)) != 0)
			naive_differs = true;
		uses++;
		seq += 2;   /* the next use of set 0 */
		/* next permutation */
		while (k < NCH && cnt[k] >= k) {
			cnt[k] = 0;
			k++;
		}
		if (k == NCH)
			break;
		j = k % 2 ? cnt[k] : 0;
		t = perm[j], perm[j] = perm[k], perm[k] = t;
		cnt[k]++;
		k = 0;
	}
	assert_int_equal(uses, 720);
	assert_true(naive_differs);
	assert_int_equal(ibex_agg_stats(p)->contributions, 720 * NCH);
	ibex_agg_pool_free(p);
}

static void
test_duplicates(void **state)
{
	struct ibex_agg_pool *p = pool1();
	int32_t a[2] = { 10, 20 }, b[2] = { 1, 2 }, c[2] = { 100, 200 };
	int32_t want[2] = { 111, 222 };
	float fa[2] = { 0.5f, 1 }, fb[2] = { 0.25f, 2 };
	float fwant[2] = { 0.75f, 3 };
	struct ibex_agg_out o;

	(void)state;
	job_add(p, 7, 2, 3, true, 0);
	assert_int_equal(give_i32(p, 0, 0, 1, b, 2, 0, &o), IBEX_AGG_NONE);
	assert_int_equal(give_i32(p, 0, 0, 1, b, 2, 0, &o), IBEX_AGG_NONE);
	assert_int_equal(give_i32(p, 0, 0, 0, a, 2, 0, &o), IBEX_AGG_NONE);
	assert_int_equal(give_i32(p, 0, 0, 0, c, 2, 0, &o), IBEX_AGG_NONE);
	assert_int_equal(give_i32(p, 0, 0, 2, c, 2, 0, &o), IBEX_AGG_DOWN);
	assert_memory_equal(o.elems, want, sizeof(want));
	assert_int_equal(ibex_agg_stats(p)->duplicates, 2);
	assert_int_equal(ibex_agg_stats(p)->contributions, 3);
	/* fp32, in the other set of slot 1 */
	assert_int_equal(give_f32(p, 1, 1, 0, fa, 2, &o), IBEX_AGG_NONE);
	assert_int_equal(give_f32(p, 1, 1, 0, fb, 2, &o), IBEX_AGG_NONE);
	assert_int_equal(give_f32(p, 1, 1, 1, fb, 2, &o), IBEX_AGG_NONE);
	assert_int_equal(give_f32(p, 1, 1, 1, fb, 2, &o), IBEX_AGG_NONE);
	fb[0] = 0, fb[1] = 0;
	assert_int_equal(give_f32(p, 1, 1, 2, fb, 2, &o), IBEX_AGG_DOWN);
	assert_memory_equal(o.elems, fwant, sizeof(fwant));
	assert_int_equal(ibex_agg_stats(p)->duplicates, 4);
	ibex_agg_pool_free(p);
}

/* A child that missed the result sends its contribution again: it gets
 * the result (SwitchML's answer) and the slot's next use is not touched. */
static void
test_retx_after_result(void **state)
{
	struct ibex_agg_pool *p = pool1();
	int32_t a[2] = { 1, 2 }, b[2] = { 3, 4 }, r0[2] = { 4, 6 };
	int32_t x[2] = { 10, 20 }, r1[2] = { 13, 24 };
	struct ibex_agg_out o;

	(void)state;
	job_add(p, 7, 1, 2, true, 0);
	give_i32(p, 0, 0, 0, a, 2, 0, &o);
	assert_int_equal(give_i32(p, 0, 0, 1, b, 2, 0, &o), IBEX_AGG_DOWN);
	/* child 1 got the result, child 0 did not; 1 starts use 1 (set 1) */
	assert_int_equal(give_i32(p, 0, 1, 1, x, 2, 0, &o), IBEX_AGG_NONE);
	/* child 0 retransmits use 0, whatever values it sends */
	assert_int_equal(give_i32(p, 0, 0, 0, x, 2, 0, &o), IBEX_AGG_REPLY);
	assert_int_equal(o.hdr.child, 0);
	assert_int_equal(o.hdr.seq, 0);
	assert_int_equal(o.hdr.flags, IBEX_AGG_F_RETX);
	assert_memory_equal(o.elems, r0, sizeof(r0));
	assert_int_equal(give_i32(p, 0, 0, 0, a, 2, 0, &o), IBEX_AGG_REPLY);
	assert_int_equal(ibex_agg_stats(p)->results_replied, 2);
	/* use 1 is intact */
	assert_int_equal(give_i32(p, 0, 1, 0, b, 2, 0, &o), IBEX_AGG_DOWN);
	assert_int_equal(o.hdr.seq, 1);
	assert_memory_equal(o.elems, r1, sizeof(r1));
	assert_int_equal(ibex_agg_stats(p)->contributions, 4);
	ibex_agg_pool_free(p);
}

/* Use u + 2 of a (slot, set) waits for use u's result; older uses are
 * stale. */
static void
test_reuse_rule(void **state)
{
	struct ibex_agg_pool *p = pool1();
	int32_t a[1] = { 1 }, b[1] = { 2 }, c[1] = { 3 };
	struct ibex_agg_out o;

	(void)state;
	job_add(p, 7, 1, 2, true, 0);
	/* an idle slot takes use 0 (set 0) or 1 (set 1), not 2 or -2 */
	assert_int_equal(give_i32(p, 0, 2, 0, a, 1, 0, &o), IBEX_AGG_NONE);
	assert_int_equal(ibex_agg_stats(p)->early, 1);
	assert_int_equal(give_i32(p, 0, UINT32_MAX - 1, 0, a, 1, 0, &o),
			 IBEX_AGG_NONE);
	assert_int_equal(ibex_agg_stats(p)->stale, 1);
	give_i32(p, 0, 0, 0, a, 1, 0, &o);
	/* use 2 while use 0 still fills: refused, not summed */
	assert_int_equal(give_i32(p, 0, 2, 1, c, 1, 0, &o), IBEX_AGG_NONE);
	assert_int_equal(ibex_agg_stats(p)->early, 2);
	assert_int_equal(give_i32(p, 0, 0, 1, b, 1, 0, &o), IBEX_AGG_DOWN);
	assert_int_equal(*(const int32_t *)o.elems, 3);
	/* now use 2 takes the set; use 0 is gone: stale */
	assert_int_equal(give_i32(p, 0, 2, 1, c, 1, 0, &o), IBEX_AGG_NONE);
	assert_int_equal(give_i32(p, 0, 0, 0, a, 1, 0, &o), IBEX_AGG_NONE);
	assert_int_equal(ibex_agg_stats(p)->stale, 2);
	/* more than a use ahead, and the other parity is the other set */
	assert_int_equal(give_i32(p, 0, 6, 0, a, 1, 0, &o), IBEX_AGG_NONE);
	assert_int_equal(ibex_agg_stats(p)->early, 3);
	assert_int_equal(give_i32(p, 0, 2, 0, c, 1, 0, &o), IBEX_AGG_DOWN);
	assert_int_equal(*(const int32_t *)o.elems, 6);
	ibex_agg_pool_free(p);
}

static enum ibex_agg_action
result_i32(struct ibex_agg_pool *p, uint32_t seq, const int32_t *v,
	   struct ibex_agg_out *o)
{
	uint32_t len = mk(IBEX_AGG_RESULT, IBEX_AGG_INT32, 7, 0, seq,
			  IBEX_AGG_CHILD_ALL, 0, 2, v);

	return ibex_agg_rx(p, buf, len, 0, o);
}

/* A switch below the root: the sum goes up with its own child index,
 * the parent's result comes down to every child. */
static void
test_nonroot(void **state)
{
	struct ibex_agg_pool *p = pool1();
	int32_t a[2] = { 1, 2 }, b[2] = { 3, 4 }, part[2] = { 4, 6 };
	int32_t res[2] = { 40, 60 };
	struct ibex_agg_out o;

	(void)state;
	job_add(p, 7, 1, 2, false, 9);
	/* no result before the sum went up */
	assert_int_equal(result_i32(p, 0, res, &o), IBEX_AGG_NONE);
	give_i32(p, 0, 0, 0, a, 2, 0, &o);
	assert_int_equal(result_i32(p, 0, res, &o), IBEX_AGG_NONE);
	assert_int_equal(ibex_agg_stats(p)->result_unexpected, 2);
	assert_int_equal(give_i32(p, 0, 0, 1, b, 2, 0, &o), IBEX_AGG_UP);
	assert_int_equal(o.hdr.type, IBEX_AGG_CONTRIB);
	assert_int_equal(o.hdr.child, 9);
	assert_int_equal(o.hdr.flags, 0);
	assert_memory_equal(o.elems, part, sizeof(part));
	assert_int_equal(ibex_agg_stats(p)->slots_in_use, 1);
	/* a child asks again while the parent's answer is due: up again */
	assert_int_equal(give_i32(p, 0, 0, 1, b, 2, 0, &o), IBEX_AGG_UP);
	assert_int_equal(o.hdr.flags, IBEX_AGG_F_RETX);
	assert_memory_equal(o.elems, part, sizeof(part));
	/* use 2 cannot start before the result */
	assert_int_equal(give_i32(p, 0, 2, 1, b, 2, 0, &o), IBEX_AGG_NONE);
	assert_int_equal(ibex_agg_stats(p)->early, 1);
	/* results for another use, and one of another length */
	assert_int_equal(result_i32(p, 2, res, &o), IBEX_AGG_NONE);
	assert_int_equal(ibex_agg_rx(p, buf, mk(IBEX_AGG_RESULT,
		IBEX_AGG_INT32, 7, 0, 0, IBEX_AGG_CHILD_ALL, 0, 1, res), 0, &o),
		IBEX_AGG_NONE);
	assert_int_equal(ibex_agg_stats(p)->mismatch, 1);
	assert_int_equal(result_i32(p, 0, res, &o), IBEX_AGG_DOWN);
	assert_int_equal(o.hdr.type, IBEX_AGG_RESULT);
	assert_int_equal(o.hdr.child, IBEX_AGG_CHILD_ALL);
	assert_memory_equal(o.elems, res, sizeof(res));
	assert_int_equal(ibex_agg_stats(p)->slots_in_use, 0);
	/* the parent's result again (it answered a retransmission): down */
	assert_int_equal(result_i32(p, 0, res, &o), IBEX_AGG_DOWN);
	assert_int_equal(ibex_agg_stats(p)->results_dup, 1);
	assert_int_equal(ibex_agg_stats(p)->results_rx, 1);
	/* a child that missed it asks: the result, not the partial sum */
	assert_int_equal(give_i32(p, 0, 0, 0, a, 2, 0, &o), IBEX_AGG_REPLY);
	assert_memory_equal(o.elems, res, sizeof(res));
	/* a root takes no result */
	job_add(p, 8, 1, 2, true, 0);
	assert_int_equal(ibex_agg_rx(p, buf, mk(IBEX_AGG_RESULT,
		IBEX_AGG_INT32, 8, 0, 0, 0, 0, 2, res), 0, &o), IBEX_AGG_NONE);
	assert_int_equal(ibex_agg_stats(p)->result_unexpected, 4);
	ibex_agg_pool_free(p);
}

static void
test_refusals(void **state)
{
	struct ibex_agg_pool *p = pool1();
	int32_t v[65] = { 0 };
	struct ibex_agg_out o;
	const struct ibex_agg_stats *st = ibex_agg_stats(p);

	(void)state;
	job_add(p, 7, 4, 2, true, 0);
	ibex_agg_rx(p, buf, mk(IBEX_AGG_CONTRIB, IBEX_AGG_INT32, 8, 0, 0, 0,
			       0, 1, v), 0, &o);
	assert_int_equal(st->no_job, 1);
	give_i32(p, 4, 0, 0, v, 1, 0, &o);
	assert_int_equal(st->bad_slot, 1);
	give_i32(p, 0, 0, 2, v, 1, 0, &o);
	assert_int_equal(st->bad_child, 1);
	give_i32(p, 0, 0, 0, v, 65, 0, &o);    /* the job's max is 64 */
	assert_int_equal(st->too_long, 1);
	give_i32(p, 0, 0, 0, v, 2, 0, &o);
	give_i32(p, 0, 0, 1, v, 3, 0, &o);     /* another length */
	ibex_agg_rx(p, buf, mk(IBEX_AGG_CONTRIB, IBEX_AGG_INT32, 7, 0, 0, 1,
			       64, 2, v), 0, &o); /* another offset */
	ibex_agg_rx(p, buf, mk(IBEX_AGG_CONTRIB, IBEX_AGG_FP32, 7, 0, 0, 1,
			       0, 2, v), 0, &o);  /* another type */
	assert_int_equal(st->mismatch, 3);
	assert_int_equal(st->contributions, 1);
	ibex_agg_pool_free(p);
}

static void
test_pool_exhaustion(void **state)
{
	struct ibex_agg_pool_conf pc = { 1 << 16, 2, 0, 1 };
	struct ibex_agg_job_conf c = { 1, 4, 2, 64, 0, true };
	struct ibex_agg_pool *p;
	uint64_t need = ibex_agg_job_bytes(&c, 0, 1);
	char err[128];

	(void)state;
	pc.worker = 1;
	assert_null(ibex_agg_pool_create(&pc, err, sizeof(err)));
	pc.worker = 0;
	pc.max_jobs = 0;
	assert_null(ibex_agg_pool_create(&pc, err, sizeof(err)));
	pc.max_jobs = 2;
	pc.mem_bytes = 2 * need + need / 2;
	p = ibex_agg_pool_create(&pc, err, sizeof(err));
	assert_non_null(p);
	assert_int_equal(ibex_agg_job_add(p, &c, err, sizeof(err)), 0);
	assert_int_equal(ibex_agg_job_add(p, &c, err, sizeof(err)), -EEXIST);
	c.job = 2;
	c.n_children = 0;
	assert_int_equal(ibex_agg_job_add(p, &c, err, sizeof(err)), -EINVAL);
	c.n_children = 65;
	assert_int_equal(ibex_agg_job_add(p, &c, err, sizeof(err)), -EINVAL);
	c.n_children = 2;
	c.root = false;
	c.up_child = IBEX_AGG_CHILD_ALL;
	assert_int_equal(ibex_agg_job_add(p, &c, err, sizeof(err)), -EINVAL);
	c.root = true;
	/* memory for one more of the size, not of twice it */
	c.n_slots = 8;
	assert_int_equal(ibex_agg_job_add(p, &c, err, sizeof(err)), -ENOSPC);
	assert_non_null(strstr(err, "exhausted"));
	c.n_slots = 4;
	assert_int_equal(ibex_agg_job_add(p, &c, err, sizeof(err)), 0);
	c.job = 3;
	c.n_slots = 1;
	assert_int_equal(ibex_agg_job_add(p, &c, err, sizeof(err)), -ENOSPC);
	assert_int_equal(ibex_agg_stats(p)->jobs_refused, 6);
	/* a job removed gives its entry and memory back */
	assert_int_equal(ibex_agg_job_del(p, 1), 0);
	assert_int_equal(ibex_agg_job_del(p, 1), -ENOENT);
	c.n_slots = 4;
	assert_int_equal(ibex_agg_job_add(p, &c, err, sizeof(err)), 0);
	ibex_agg_pool_free(p);
}

/* Each slot belongs to exactly one of the workers, whatever their
 * number, and the others refuse it. */
static void
test_sharding(void **state)
{
	struct ibex_agg_pool *p[5];
	int32_t v[1] = { 1 };
	struct ibex_agg_out o;
	uint64_t mine, others, per[5];
	uint16_t nw, w, s;
	uint32_t job, len;

	(void)state;
	for (nw = 1; nw <= 5; nw++) {
		for (job = 7; job < 10; job++) {
			for (w = 0; w < nw; w++) {
				p[w] = pool_new(1 << 20, 4, w, nw);
				job_add(p[w], job, 23, 2, true, 0);
			}
			for (s = 0; s < 23; s++) {
				len = mk(IBEX_AGG_CONTRIB, IBEX_AGG_INT32, job,
					 s, 0, 0, 0, 1, v);
				for (w = 0; w < nw; w++)
					ibex_agg_rx(p[w], buf, len, 0, &o);
			}
			mine = others = 0;
			for (w = 0; w < nw; w++) {
				per[w] = ibex_agg_stats(p[w])->contributions;
				mine += per[w];
				others += ibex_agg_stats(p[w])->not_mine;
				assert_int_equal(
					ibex_agg_stats(p[w])->slots_in_use,
					per[w]);
				/* spread: 23 slots, at most one apart */
				assert_true(per[w] >= 23u / nw &&
					    per[w] <= (23u + nw - 1) / nw);
				ibex_agg_pool_free(p[w]);
			}
			assert_int_equal(mine, 23);
			assert_int_equal(others, 23 * (nw - 1));
			for (s = 0; s < 23; s++)
				assert_true(ibex_agg_worker_of(job, s, nw) <
					    nw);
		}
	}
}

static void
test_wait_counter(void **state)
{
	struct ibex_agg_pool *p = pool1();
	int32_t v[1] = { 1 };
	struct ibex_agg_out o;
	const struct ibex_agg_stats *st = ibex_agg_stats(p);

	(void)state;
	job_add(p, 7, 1, 3, true, 0);
	give_i32(p, 0, 0, 0, v, 1, 100, &o);
	give_i32(p, 0, 0, 2, v, 1, 600, &o);
	give_i32(p, 0, 0, 1, v, 1, 1100, &o);
	assert_int_equal(st->wait_count, 1);
	assert_int_equal(st->wait_ns_sum, 1000);
	assert_int_equal(st->wait_ns_max, 1000);
	assert_int_equal(st->wait_hist[9], 1);   /* 512..1023 ns */
	give_i32(p, 0, 1, 0, v, 1, 5000, &o);
	give_i32(p, 0, 1, 1, v, 1, 5000, &o);
	give_i32(p, 0, 1, 2, v, 1, 5000, &o);
	assert_int_equal(st->wait_count, 2);
	assert_int_equal(st->wait_ns_max, 1000);
	assert_int_equal(st->wait_hist[0], 1);
	/* a clock that went back: no wait, not 2^64 ns */
	give_i32(p, 0, 2, 0, v, 1, 9000, &o);
	give_i32(p, 0, 2, 1, v, 1, 8000, &o);
	give_i32(p, 0, 2, 2, v, 1, 8000, &o);
	assert_int_equal(st->wait_count, 3);
	assert_int_equal(st->wait_ns_max, 1000);
	assert_int_equal(st->wait_hist[0], 2);
	ibex_agg_pool_free(p);
}

/* The vector paths give the scalar loop's bits: every length up to 70,
 * sources off alignment. */
static void
test_add_kernels(void **state)
{
	static int32_t ia[80], ib[80];
	static float fa[80], fb[80];
	static uint8_t src[4 * 80 + 3];
	uint64_t rnd = 7;
	uint32_t n, i, off;

	(void)state;
	for (n = 0; n <= 70; n++) {
		for (off = 0; off < 4; off++) {
			for (i = 0; i < 80; i++) {
				uint32_t r = (uint32_t)(test_rnd(&rnd) *
							4294967296.0);
				float f = ldexpf((float)test_rnd(&rnd) - 0.5f,
					(int)(test_rnd(&rnd) * 40) - 20);

				memcpy(&ia[i], &r, 4);
				fa[i] = f;
			}
			memcpy(ib, ia, sizeof(ib));
			memcpy(fb, fa, sizeof(fb));
			for (i = 0; i < sizeof(src); i++)
				src[i] = (uint8_t)(test_rnd(&rnd) * 256);
			ibex_agg_add_i32(ia, src + off, n);
			ibex_agg_add_i32_scalar(ib, src + off, n);
			assert_memory_equal(ia, ib, sizeof(ia));
			/* fp32 sources as bytes would be NaNs and infinities
			 * too: fine, the bits must agree all the same */
			ibex_agg_add_f32(fa, src + off, n);
			ibex_agg_add_f32_scalar(fb, src + off, n);
			assert_memory_equal(fa, fb, sizeof(fa));
		}
	}
	assert_non_null(ibex_agg_add_path());
}

/* ---- the randomized tree ---- */

#define T_LEAVES 3
#define T_HOSTS_MAX 4
#define T_SLOTS 2
#define T_USES 6
#define T_EL 19
#define T_BAG 512

/* nodes: 0 root, 1..T_LEAVES leaves, then hosts */
struct t_pkt {
	int dst;
	uint32_t len;
	uint8_t b[IBEX_AGG_HDR_LEN + 4 * T_EL];
};

struct t_host {
	int leaf;
	uint16_t child;
	uint32_t use[T_SLOTS];   /* the use outstanding, T_USES: done */
};

struct t_net {
	struct t_pkt bag[T_BAG];
	int n;
	uint64_t rnd;
	double loss, dup;
	struct ibex_agg_pool *sw[1 + T_LEAVES];
	int hosts_of[T_LEAVES];
	struct t_host host[T_LEAVES * T_HOSTS_MAX];
	int n_hosts;
	uint8_t dtype;
};

static void
t_send(struct t_net *t, int dst, const void *b, uint32_t len)
{
	int k = (test_rnd(&t->rnd) < t->dup) ? 2 : 1;

	while (k-- > 0) {
		if (t->n == T_BAG || test_rnd(&t->rnd) < t->loss)
			continue;
		t->bag[t->n].dst = dst;
		t->bag[t->n].len = len;
		memcpy(t->bag[t->n].b, b, len);
		t->n++;
	}
}

/* host h's values of chunk (slot, use) */
static void
t_vals(const struct t_net *t, int h, uint32_t slot, uint32_t use, void *out)
{
	uint64_t s = (uint64_t)h * 1000003 + slot * 7919 + use * 104729 + 1;
	uint32_t i;

	for (i = 0; i < T_EL; i++) {
		double r = test_rnd(&s);

		if (t->dtype == IBEX_AGG_INT32) {
			uint32_t u = (uint32_t)(r * 4294967296.0);

			memcpy((uint8_t *)out + 4 * i, &u, 4);
		} else {
			float f = ldexpf((float)r - 0.5f,
					 (int)(test_rnd(&s) * 50) - 25);

			memcpy((uint8_t *)out + 4 * i, &f, 4);
		}
	}
}

/* the sum the tree must give: hosts in child order at each leaf, the
 * leaves in order at the root */
static void
t_want(const struct t_net *t, uint32_t slot, uint32_t use, void *out)
{
	uint8_t leaf[T_EL * 4], v[T_EL * 4];
	int l, h, first = 1;

	for (l = 0; l < T_LEAVES; l++) {
		int lf = 1;

		for (h = 0; h < t->n_hosts; h++) {
			if (t->host[h].leaf != l)
				continue;
			t_vals(t, h, slot, use, v);
			if (lf)
				memcpy(leaf, v, sizeof(v));
			else if (t->dtype == IBEX_AGG_INT32)
				ibex_agg_add_i32_scalar((int32_t *)leaf, v,
							T_EL);
			else
				ibex_agg_add_f32_scalar((float *)leaf, v, T_EL);
			lf = 0;
		}
		if (first)
			memcpy(out, leaf, sizeof(leaf));
		else if (t->dtype == IBEX_AGG_INT32)
			ibex_agg_add_i32_scalar(out, leaf, T_EL);
		else
			ibex_agg_add_f32_scalar(out, leaf, T_EL);
		first = 0;
	}
}

static void
t_host_send(struct t_net *t, int h, uint32_t slot)
{
	struct t_host *ho = &t->host[h];
	uint8_t v[4 * T_EL], b[sizeof(t->bag[0].b)];
	uint32_t use = ho->use[slot];
	struct ibex_agg_hdr hd = { IBEX_AGG_CONTRIB, t->dtype, T_EL, 7,
				   (use * T_SLOTS + slot) * T_EL,
				   (uint16_t)slot, ho->child, use, 0 };

	if (use >= T_USES)
		return;
	t_vals(t, h, slot, use, v);
	assert_int_equal(ibex_agg_build(b, sizeof(b), &hd, v), sizeof(b));
	t_send(t, 1 + ho->leaf, b, sizeof(b));
}

static void
t_host_rx(struct t_net *t, int h, const uint8_t *b, uint32_t len)
{
	struct t_host *ho = &t->host[h];
	uint8_t want[4 * T_EL];
	struct ibex_agg_hdr hd;
	const void *el;

	assert_int_equal(ibex_agg_parse(b, len, &hd, &el), IBEX_AGG_OK);
	assert_int_equal(hd.type, IBEX_AGG_RESULT);
	if (hd.seq != ho->use[hd.slot])
		return;   /* a copy of one it has */
	t_want(t, hd.slot, hd.seq, want);
	assert_memory_equal(el, want, sizeof(want));
	assert_int_equal(hd.offset, (hd.seq * T_SLOTS + hd.slot) * T_EL);
	ho->use[hd.slot]++;
	t_host_send(t, h, hd.slot);
}

/* a switch's answer to a packet */
static void
t_switch_rx(struct t_net *t, int sw, const uint8_t *b, uint32_t len)
{
	uint8_t o[sizeof(t->bag[0].b)];
	struct ibex_agg_out out;
	enum ibex_agg_action a;
	int n, h, l;

	a = ibex_agg_rx(t->sw[sw], b, len, 0, &out);
	if (a == IBEX_AGG_NONE)
		return;
	n = ibex_agg_build(o, sizeof(o), &out.hdr, out.elems);
	assert_int_equal(n, sizeof(o));
	if (a == IBEX_AGG_UP) {
		assert_int_not_equal(sw, 0);
		t_send(t, 0, o, (uint32_t)n);
		return;
	}
	for (l = 0; sw == 0 && l < T_LEAVES; l++)
		if (a == IBEX_AGG_DOWN || out.hdr.child == l)
			t_send(t, 1 + l, o, (uint32_t)n);
	for (h = 0; sw != 0 && h < t->n_hosts; h++)
		if (t->host[h].leaf == sw - 1 &&
		    (a == IBEX_AGG_DOWN || out.hdr.child == t->host[h].child))
			t_send(t, 1 + T_LEAVES + h, o, (uint32_t)n);
}

static bool
t_done(const struct t_net *t)
{
	int h, s;

	for (h = 0; h < t->n_hosts; h++)
		for (s = 0; s < T_SLOTS; s++)
			if (t->host[h].use[s] < T_USES)
				return false;
	return true;
}

/* what the runs went through, summed over switches and runs */
static uint64_t t_dups, t_replied, t_resent, t_stale;

static void
t_run(uint64_t seed, uint8_t dtype)
{
	static struct t_net t;
	int l, h, s, k, steps = 0;

	memset(&t, 0, sizeof(t));
	t.rnd = seed;
	t.dtype = dtype;
	t.loss = test_rnd(&t.rnd) * 0.2;
	t.dup = test_rnd(&t.rnd) * 0.1;
	t.sw[0] = pool_new(1 << 20, 2, 0, 1);
	job_add(t.sw[0], 7, T_SLOTS, T_LEAVES, true, 0);
	for (l = 0; l < T_LEAVES; l++) {
		t.hosts_of[l] = 1 + (int)(test_rnd(&t.rnd) * T_HOSTS_MAX);
		t.sw[1 + l] = pool_new(1 << 20, 2, 0, 1);
		job_add(t.sw[1 + l], 7, T_SLOTS, (uint16_t)t.hosts_of[l],
			false, (uint16_t)l);
		for (h = 0; h < t.hosts_of[l]; h++) {
			t.host[t.n_hosts].leaf = l;
			t.host[t.n_hosts].child = (uint16_t)h;
			t.n_hosts++;
		}
	}
	for (h = 0; h < t.n_hosts; h++)
		for (s = 0; s < T_SLOTS; s++)
			t_host_send(&t, h, (uint32_t)s);
	while (!t_done(&t)) {
		struct t_pkt p;

		assert_true(++steps < 200000);
		/* a quiet network or a timer: every host retransmits */
		if (t.n == 0 || test_rnd(&t.rnd) < 0.01) {
			for (h = 0; h < t.n_hosts; h++)
				for (s = 0; s < T_SLOTS; s++)
					t_host_send(&t, h, (uint32_t)s);
			continue;
		}
		k = (int)(test_rnd(&t.rnd) * t.n);
		p = t.bag[k];
		t.bag[k] = t.bag[--t.n];
		if (p.dst > T_LEAVES)
			t_host_rx(&t, p.dst - 1 - T_LEAVES, p.b, p.len);
		else
			t_switch_rx(&t, p.dst, p.b, p.len);
	}
	/* each chunk summed once at each switch, no protocol breach */
	assert_int_equal(ibex_agg_stats(t.sw[0])->contributions,
			 T_SLOTS * T_USES * T_LEAVES);
	for (l = 0; l < T_LEAVES; l++)
		assert_int_equal(ibex_agg_stats(t.sw[1 + l])->contributions,
				 T_SLOTS * T_USES * t.hosts_of[l]);
	for (l = 0; l <= T_LEAVES; l++) {
		const struct ibex_agg_stats *st = ibex_agg_stats(t.sw[l]);
		int e;

		t_dups += st->duplicates;
		t_replied += st->results_replied;
		t_resent += st->partials_resent;
		t_stale += st->stale;
		assert_int_equal(st->early, 0);
		assert_int_equal(st->mismatch, 0);
		assert_int_equal(st->bad_child, 0);
		for (e = 0; e < IBEX_AGG_E_MAX; e++)
			assert_int_equal(st->malformed[e], 0);
		ibex_agg_pool_free(t.sw[l]);
	}
}

static void
test_random_tree(void **state)
{
	uint64_t seed;

	(void)state;
	for (seed = 1; seed <= 60; seed++)
		t_run(seed * 0x9E3779B97F4A7C15ULL,
		      seed % 2 ? IBEX_AGG_INT32 : IBEX_AGG_FP32);
	/* the network did its worst: every recovery path was taken */
	assert_true(t_dups > 0 && t_replied > 0 && t_resent > 0 &&
		    t_stale > 0);
	print_message("random tree: %llu duplicates, %llu replies, %llu "
		      "partials resent, %llu stale\n",
		      (unsigned long long)t_dups,
		      (unsigned long long)t_replied,
		      (unsigned long long)t_resent,
		      (unsigned long long)t_stale);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_codec),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_int32_exact),
		cmocka_unit_test(test_fp32_order),
		cmocka_unit_test(test_duplicates),
		cmocka_unit_test(test_retx_after_result),
		cmocka_unit_test(test_reuse_rule),
		cmocka_unit_test(test_nonroot),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_pool_exhaustion),
		cmocka_unit_test(test_sharding),
		cmocka_unit_test(test_wait_counter),
		cmocka_unit_test(test_add_kernels),
		cmocka_unit_test(test_random_tree),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
