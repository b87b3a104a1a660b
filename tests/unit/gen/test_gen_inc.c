/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The inc engine's ranks against lib/agg's switches, no EAL: one switch
 * and a two-level tree, int32 and fp32, messages that do and do not fill
 * the window, packets delivered out of order and lost both ways. Every
 * rank must get every result with every element right, and no switch may
 * sum a contribution twice.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ibex_agg.h"
#include "ibex_common.h"
#include "ibex_gen_inc.h"
#include "ibex_gen_rand.h"

#define MAX_PKTS 8192
#define PKT_MAX (IBEX_AGG_HDR_LEN + 4 * IBEX_AGG_MAX_ELEMS)

/* A packet in flight: to switch @p sw from its child @p from_child, or
 * (sw < 0) to rank @p rank. */
struct pkt {
	int sw;
	uint16_t rank;
	uint16_t len;
	uint8_t data[PKT_MAX];
};

/* The fabric of a test: switches (pools), which rank is under which
 * leaf, the packets in flight, and the loss. */
struct net {
	struct ibex_agg_pool *sw[3];
	unsigned int nsw;         /* 1: one switch; 3: leaves 0, 1, root 2 */
	uint16_t nranks;
	struct pkt *q;            /* [MAX_PKTS] */
	struct pkt *b;            /* [MAX_PKTS]: the round being delivered */
	unsigned int nq;
	double loss;
	uint64_t rng;
	uint64_t lost;
	/* Per leaf (or the one switch) and job: its children's ranks. */
	uint32_t job[2];
	uint16_t nkids[2][2];
	uint16_t down[2][2][64];
};

static void
enqueue(struct net *n, int sw, uint16_t rank, const struct ibex_agg_hdr *h,
	const void *elems)
{
	struct pkt *p;
	int len;

	if (ibex_gen_rand_unit(&n->rng) < n->loss) {
		n->lost++;
		return;
	}
	assert_true(n->nq < MAX_PKTS);
	p = &n->q[n->nq++];
	p->sw = sw;
	p->rank = rank;
	len = ibex_agg_build(p->data, sizeof(p->data), h, elems);
	assert_true(len > 0);
	p->len = (uint16_t)len;
}

/* The leaf of rank @p r, and its child index there. */
static int
leaf_of(const struct net *n, uint16_t r)
{
	return n->nsw == 1 ? 0 : r < n->nranks / 2 ? 0 : 1;
}

/* What switch @p sw does with packet @p p: lib/agg's answer, routed. */
static void
switch_rx(struct net *n, int sw, const struct pkt *p, uint64_t now)
{
	struct ibex_agg_out out;
	enum ibex_agg_action a;
	uint16_t r, c;
	unsigned int j;

	a = ibex_agg_rx(n->sw[sw], p->data, p->len, now, &out);
	if (a == IBEX_AGG_NONE)
		return;
	if (a == IBEX_AGG_UP) {
		enqueue(n, 2, 0, &out.hdr, out.elems);
		return;
	}
	if (sw == 2) {
		/* the root's children are the leaves */
		for (r = 0; r < 2; r++)
			if (a == IBEX_AGG_DOWN || out.hdr.child == r)
				enqueue(n, (int)r, 0, &out.hdr, out.elems);
		return;
	}
	j = out.hdr.job != n->job[0];
	for (c = 0; c < n->nkids[sw][j]; c++)
		if (a == IBEX_AGG_DOWN || out.hdr.child == c)
			enqueue(n, -1, n->down[sw][j][c], &out.hdr, out.elems);
}

/* Run iterations until every rank is done: each round, every rank sends
 * what it may, then the packets in flight are delivered in a random
 * order. @return the rounds it took. */
static unsigned int
run(struct net *n, struct ibex_inc *x, unsigned int iters)
{
	uint8_t elems[4 * IBEX_AGG_MAX_ELEMS];
	struct ibex_agg_hdr h;
	unsigned int it, rounds = 0, i;
	uint64_t now = 1;
	uint16_t r;

	for (it = 0; it < iters; it++) {
		ibex_inc_start(x, now);
		while (!ibex_inc_done(x)) {
			assert_true(++rounds < 200000);
			for (r = 0; r < x->cfg.nranks; r++)
				while (ibex_inc_next(x, r, now, &h, elems))
					enqueue(n, leaf_of(n, r), r, &h,
						elems);
			/* Deliver everything now in flight, shuffled. */
			for (i = n->nq; i > 1; i--) {
				unsigned int j = (unsigned int)
					(ibex_gen_rand(&n->rng) % i);
				struct pkt t = n->q[i - 1];

				n->q[i - 1] = n->q[j];
				n->q[j] = t;
			}
			{
				unsigned int k = n->nq;
				struct pkt *batch = n->b;

				memcpy(batch, n->q, sizeof(*batch) * k);
				n->nq = 0;
				for (i = 0; i < k; i++) {
					if (batch[i].sw >= 0) {
						switch_rx(n, batch[i].sw,
							  &batch[i], now);
						continue;
					}
					assert_int_not_equal(
						ibex_inc_rx(x, batch[i].rank,
							    batch[i].data,
							    batch[i].len, now),
						IBEX_INC_RX_WRONG);
				}
			}
			now++;
		}
	}
	return rounds;
}

static void
net_init(struct net *n, unsigned int nsw, uint16_t nranks, uint32_t job,
	 uint16_t slots, uint16_t chunk, double loss)
{
	struct ibex_agg_pool_conf pc = { .mem_bytes = 8 << 20, .max_jobs = 4,
					 .worker = 0, .n_workers = 1 };
	char err[128];
	unsigned int s;

	memset(n, 0, sizeof(*n));
	n->nsw = nsw;
	n->nranks = nranks;
	n->loss = loss;
	n->rng = 42;
	n->q = malloc(sizeof(*n->q) * MAX_PKTS);
	n->b = malloc(sizeof(*n->b) * MAX_PKTS);
	assert_non_null(n->q);
	assert_non_null(n->b);
	n->job[0] = n->job[1] = job;
	for (s = 0; s < nranks; s++) {
		unsigned int l = (unsigned int)leaf_of(n, (uint16_t)s);

		n->down[l][0][n->nkids[l][0]++] = (uint16_t)s;
	}
	for (s = 0; s < nsw; s++) {
		struct ibex_agg_job_conf jc = {
			.job = job, .n_slots = slots, .max_elems = chunk,
			.n_children = nsw == 1 ? nranks :
				      s == 2 ? 2 : nranks / 2,
			.up_child = (uint16_t)(s == 2 ? 0 : s),
			.root = nsw == 1 || s == 2,
		};

		n->sw[s] = ibex_agg_pool_create(&pc, err, sizeof(err));
		assert_non_null(n->sw[s]);
		assert_int_equal(ibex_agg_job_add(n->sw[s], &jc, err,
						  sizeof(err)), 0);
	}
}

static void
net_fini(struct net *n)
{
	unsigned int s;

	for (s = 0; s < n->nsw; s++)
		ibex_agg_pool_free(n->sw[s]);
	free(n->q);
	free(n->b);
}

/* Every rank took every chunk's result once a iteration, none wrong;
 * each switch summed each contribution once. */
static void
check_all(struct net *n, struct ibex_inc *x, unsigned int iters)
{
	uint64_t contrib = 0;
	unsigned int s;
	uint16_t r;

	for (r = 0; r < x->cfg.nranks; r++) {
		const struct ibex_inc_rank_stats *st = ibex_inc_stats(x, r);

		assert_int_equal(st->results, (uint64_t)x->nchunks * iters);
		assert_int_equal(st->wrong, 0);
		assert_int_equal(st->elems_wrong, 0);
		assert_int_equal(st->sent, (uint64_t)x->nchunks * iters);
		if (n->loss == 0)
			assert_int_equal(st->resent, 0);
	}
	for (s = 0; s < n->nsw; s++)
		contrib += ibex_agg_stats(n->sw[s])->contributions;
	/* Leaves: every rank's chunks; root of a tree: two per chunk. */
	assert_int_equal(contrib, (uint64_t)x->nchunks * iters *
			 (x->cfg.nranks + (n->nsw == 3 ? 2 : 0)));
}

static void
one(unsigned int nsw, uint16_t nranks, uint8_t dtype, uint64_t elems,
    uint16_t chunk, uint16_t slots, double loss, unsigned int iters)
{
	uint16_t child[64];
	struct ibex_inc_cfg c = {
		.nranks = nranks, .job = 11, .dtype = dtype, .elems = elems,
		.chunk = chunk, .slots = slots, .rto = loss > 0 ? 3 : 0,
		.seed = 7, .child = child,
	};
	struct ibex_inc x;
	struct net n;
	uint16_t r;

	for (r = 0; r < nranks; r++)
		child[r] = nsw == 1 ? r : (uint16_t)(r % (nranks / 2));
	net_init(&n, nsw, nranks, 11, slots, chunk, loss);
	assert_int_equal(ibex_inc_init(&x, &c), 0);
	run(&n, &x, iters);
	check_all(&n, &x, iters);
	if (loss > 0)
		assert_true(n.lost > 0);
	ibex_inc_fini(&x);
	net_fini(&n);
}

static void
test_one_switch(void **state)
{
	(void)state;
	one(1, 2, IBEX_AGG_INT32, 1, 1, 1, 0, 3);
	one(1, 8, IBEX_AGG_INT32, 10000, 256, 16, 0, 3);
	one(1, 8, IBEX_AGG_FP32, 10000, 256, 16, 0, 3);
	/* fewer chunks than slots */
	one(1, 5, IBEX_AGG_FP32, 300, 64, 32, 0, 2);
	one(1, 64, IBEX_AGG_INT32, 2048 * 5 + 3, 2048, 4, 0, 2);
}

static void
test_tree(void **state)
{
	(void)state;
	one(3, 16, IBEX_AGG_FP32, 5000, 128, 8, 0, 3);
	one(3, 4, IBEX_AGG_INT32, 1000, 100, 3, 0, 2);
}

static void
test_loss(void **state)
{
	(void)state;
	one(1, 8, IBEX_AGG_INT32, 4000, 128, 8, 0.05, 3);
	one(1, 8, IBEX_AGG_FP32, 4000, 128, 8, 0.01, 3);
	one(3, 16, IBEX_AGG_FP32, 4000, 128, 8, 0.05, 3);
	one(3, 16, IBEX_AGG_INT32, 4000, 128, 8, 0.20, 2);
}

/* Two jobs at once on the same switches, as a fabric runs them: job 11
 * the even ranks with 8 slots, job 12 the odd ones with 5, both under
 * both leaves. Each rank's result is its own job's sum (the two differ),
 * every element right, each switch summing each contribution once; with
 * loss. */
static void
two_jobs(unsigned int nsw, uint8_t dtype, double loss)
{
	enum { NR = 16 };
	uint32_t rank_job[NR];
	uint16_t rank_slots[NR], child[NR];
	struct ibex_inc_cfg c = {
		.nranks = NR, .job = 11, .dtype = dtype, .elems = 3000,
		.chunk = 128, .slots = 8, .rto = loss > 0 ? 3 : 0, .seed = 5,
		.child = child, .rank_job = rank_job, .rank_slots = rank_slots,
	};
	struct ibex_agg_pool_conf pc = { .mem_bytes = 8 << 20, .max_jobs = 4,
					 .worker = 0, .n_workers = 1 };
	uint64_t contrib = 0;
	struct ibex_inc x;
	struct net n;
	char err[128];
	unsigned int s, j;
	uint16_t r;

	net_init(&n, nsw, NR, 11, 8, 128, loss);
	/* rebuild the children per job: the odd ranks join job 12 */
	n.job[1] = 12;
	memset(n.nkids, 0, sizeof(n.nkids));
	for (r = 0; r < NR; r++) {
		unsigned int l = (unsigned int)leaf_of(&n, r);

		j = r & 1;
		rank_job[r] = n.job[j];
		rank_slots[r] = j ? 5 : 8;
		child[r] = n.nkids[l][j];
		n.down[l][j][n.nkids[l][j]++] = r;
	}
	for (s = 0; s < nsw; s++) {
		ibex_agg_pool_free(n.sw[s]);
		n.sw[s] = ibex_agg_pool_create(&pc, err, sizeof(err));
		assert_non_null(n.sw[s]);
		for (j = 0; j < 2; j++) {
			struct ibex_agg_job_conf jc = {
				.job = n.job[j], .n_slots = j ? 5 : 8,
				.max_elems = 128,
				.n_children = s == 2 ? 2 : n.nkids[s][j],
				.up_child = (uint16_t)(s == 2 ? 0 : s),
				.root = nsw == 1 || s == 2,
			};

			assert_int_equal(ibex_agg_job_add(n.sw[s], &jc, err,
							  sizeof(err)), 0);
		}
	}
	assert_int_equal(ibex_inc_init(&x, &c), 0);
	assert_int_equal(x.njobs, 2);
	assert_int_equal(x.job[0].nranks, NR / 2);
	assert_int_equal(x.job[1].slots, 5);
	/* the two jobs' sums differ: a result of the other would fail */
	assert_true(ibex_inc_expected(&x, 0, 0, 7) !=
		    ibex_inc_expected(&x, 0, 1, 7));
	run(&n, &x, 3);
	for (r = 0; r < NR; r++) {
		const struct ibex_inc_rank_stats *st = ibex_inc_stats(&x, r);

		assert_int_equal(st->results, (uint64_t)x.nchunks * 3);
		assert_int_equal(st->wrong, 0);
		assert_int_equal(st->bad, 0);
	}
	for (s = 0; s < nsw; s++)
		contrib += ibex_agg_stats(n.sw[s])->contributions;
	/* leaves: every rank's chunks; the root: two a chunk a job */
	assert_int_equal(contrib, (uint64_t)x.nchunks * 3 *
			 (NR + (nsw == 3 ? 4 : 0)));
	ibex_inc_fini(&x);
	net_fini(&n);
}

static void
test_two_jobs(void **state)
{
	(void)state;
	two_jobs(1, IBEX_AGG_INT32, 0);
	two_jobs(3, IBEX_AGG_FP32, 0);
	two_jobs(3, IBEX_AGG_FP32, 0.05);
	two_jobs(3, IBEX_AGG_INT32, 0.20);
}

/* A straggler: rank 2 sends nothing of an iteration before its delay,
 * says when it will, and counts the late start; the others send at once.
 * A straggler beyond the ranks is refused. */
static void
test_straggler(void **state)
{
	struct ibex_inc_cfg c = {
		.nranks = 4, .job = 1, .dtype = IBEX_AGG_INT32, .elems = 10,
		.chunk = 10, .slots = 1, .seed = 1,
		.straggler = { .rank = 2, .delay = 500, .prob = 1.0 },
	};
	uint8_t elems[40];
	struct ibex_agg_hdr h;
	struct ibex_inc x;

	(void)state;
	assert_int_equal(ibex_inc_init(&x, &c), 0);
	ibex_inc_start(&x, 1000);
	assert_true(ibex_inc_next(&x, 0, 1000, &h, elems));
	assert_int_equal(ibex_inc_next_due(&x, 2), 1500);
	assert_false(ibex_inc_next(&x, 2, 1499, &h, elems));
	assert_true(ibex_inc_next(&x, 2, 1500, &h, elems));
	assert_int_equal(ibex_inc_stats(&x, 2)->late, 1);
	assert_int_equal(ibex_inc_stats(&x, 0)->late, 0);
	ibex_inc_fini(&x);
	c.straggler.rank = 4;
	assert_int_equal(ibex_inc_init(&x, &c), -EINVAL);
	/* none: rank -1 */
	c.straggler.rank = -1;
	assert_int_equal(ibex_inc_init(&x, &c), 0);
	ibex_inc_start(&x, 7);
	assert_int_equal(ibex_inc_next_due(&x, 2), 7);
	ibex_inc_fini(&x);
}

/* A job's slots are the same at every rank; no more than
 * IBEX_INC_MAX_JOBS jobs; no rank beyond cfg.slots. */
static void
test_jobs_refused(void **state)
{
	uint32_t rank_job[4] = { 1, 1, 2, 2 };
	uint16_t rank_slots[4] = { 4, 4, 2, 3 };
	struct ibex_inc_cfg c = {
		.nranks = 4, .job = 1, .dtype = IBEX_AGG_INT32, .elems = 100,
		.chunk = 10, .slots = 4, .seed = 1, .rank_job = rank_job,
		.rank_slots = rank_slots,
	};
	struct ibex_inc x;

	(void)state;
	assert_int_equal(ibex_inc_init(&x, &c), -EINVAL);
	rank_slots[3] = 2;
	rank_slots[0] = rank_slots[1] = 5;
	assert_int_equal(ibex_inc_init(&x, &c), -EINVAL);
	rank_slots[0] = rank_slots[1] = 4;
	assert_int_equal(ibex_inc_init(&x, &c), 0);
	assert_int_equal(x.njobs, 2);
	ibex_inc_fini(&x);
}

/* One job over a sweep of sizes, as the generator runs it: the slots'
 * use numbers go on from size to size (growing and shrinking, fewer
 * chunks than slots), so the switch takes every use; with loss. */
static void
test_resize(void **state)
{
	struct ibex_inc_cfg c = {
		.nranks = 8, .job = 11, .dtype = IBEX_AGG_FP32, .elems = 5000,
		.chunk = 128, .slots = 16, .rto = 3, .seed = 7,
	};
	const uint64_t sizes[] = { 5000, 300, 10000, 1, 2048 };
	uint64_t want = 0, got = 0;
	struct ibex_inc x;
	struct net n;
	unsigned int k;
	uint16_t r;

	(void)state;
	net_init(&n, 1, 8, 11, 16, 128, 0.05);
	assert_int_equal(ibex_inc_init(&x, &c), 0);
	for (k = 0; k < IBEX_ARRAY_SIZE(sizes); k++) {
		assert_int_equal(ibex_inc_resize(&x, sizes[k], 7 + k), 0);
		run(&n, &x, 2);
		want += 2ull * x.nchunks * 8;
	}
	for (r = 0; r < 8; r++) {
		assert_int_equal(ibex_inc_stats(&x, r)->wrong, 0);
		assert_int_equal(ibex_inc_stats(&x, r)->bad, 0);
		got += ibex_inc_stats(&x, r)->results;
	}
	assert_int_equal(got, want);
	assert_int_equal(ibex_agg_stats(n.sw[0])->contributions, want);
	assert_int_equal(ibex_inc_resize(&x, 0, 1), -EINVAL);
	ibex_inc_fini(&x);
	net_fini(&n);
}

/* A result with one wrong element is caught; results held already are
 * stale; other jobs and future uses are refused; bad configs too. */
static void
test_checks(void **state)
{
	struct ibex_inc_cfg c = { .nranks = 2, .job = 3,
		.dtype = IBEX_AGG_INT32, .elems = 8, .chunk = 4, .slots = 1 };
	uint8_t elems[16], pkt[64], sum[16];
	struct ibex_agg_hdr h, res;
	struct ibex_inc x;
	unsigned int e;
	int len;

	(void)state;
	assert_int_equal(ibex_inc_init(&x, &c), 0);
	ibex_inc_start(&x, 0);
	assert_true(ibex_inc_next(&x, 0, 0, &h, elems));
	assert_false(ibex_inc_next(&x, 0, 0, &h, elems));
	assert_int_equal(ibex_inc_next_due(&x, 0), UINT64_MAX);
	res = h;
	res.type = IBEX_AGG_RESULT;
	res.child = IBEX_AGG_CHILD_ALL;
	for (e = 0; e < 4; e++) {
		int32_t v = (int32_t)ibex_inc_expected(&x, 0, 0, e);

		memcpy(sum + 4 * e, &v, 4);
	}
	sum[8] ^= 1;
	len = ibex_agg_build(pkt, sizeof(pkt), &res, sum);
	assert_int_equal(ibex_inc_rx(&x, 0, pkt, (uint32_t)len, 1),
			 IBEX_INC_RX_WRONG);
	assert_int_equal(ibex_inc_stats(&x, 0)->elems_wrong, 1);
	/* the same again: held already */
	assert_int_equal(ibex_inc_rx(&x, 0, pkt, (uint32_t)len, 1),
			 IBEX_INC_RX_STALE);
	/* the next chunk is out; a result two uses ahead is refused */
	assert_true(ibex_inc_next(&x, 0, 2, &h, elems));
	assert_int_equal(h.seq, 1);
	res.seq = 3;
	res.offset = 4;
	len = ibex_agg_build(pkt, sizeof(pkt), &res, sum);
	assert_int_equal(ibex_inc_rx(&x, 0, pkt, (uint32_t)len, 3),
			 IBEX_INC_RX_BAD);
	res.seq = 1;
	res.job = 4;
	len = ibex_agg_build(pkt, sizeof(pkt), &res, sum);
	assert_int_equal(ibex_inc_rx(&x, 0, pkt, (uint32_t)len, 3),
			 IBEX_INC_RX_BAD);
	ibex_inc_fini(&x);
	c.nranks = 1;
	assert_int_equal(ibex_inc_init(&x, &c), -EINVAL);
	c.nranks = 2;
	c.chunk = IBEX_AGG_MAX_ELEMS + 1;
	assert_int_equal(ibex_inc_init(&x, &c), -EINVAL);
	c.chunk = 4;
	c.dtype = 9;
	assert_int_equal(ibex_inc_init(&x, &c), -EINVAL);
}

/* fp32 sums of 16,384 ranks' extreme values are exact. */
static void
test_fp32_exact_bound(void **state)
{
	struct ibex_inc_cfg c = { .nranks = IBEX_INC_MAX_RANKS, .job = 1,
		.dtype = IBEX_AGG_FP32, .elems = 64, .chunk = 64, .slots = 1 };
	struct ibex_inc x;
	uint64_t e;

	(void)state;
	assert_int_equal(ibex_inc_init(&x, &c), 0);
	for (e = 0; e < 64; e++) {
		int64_t v = ibex_inc_expected(&x, 0, 0, e);

		assert_true(v < (1 << 24) && v > -(1 << 24));
		assert_true((int64_t)(float)v == v);
	}
	ibex_inc_fini(&x);
	c.nranks = IBEX_INC_MAX_RANKS + 1;
	assert_int_equal(ibex_inc_init(&x, &c), -EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_switch),
		cmocka_unit_test(test_tree),
		cmocka_unit_test(test_loss),
		cmocka_unit_test(test_resize),
		cmocka_unit_test(test_two_jobs),
		cmocka_unit_test(test_jobs_refused),
		cmocka_unit_test(test_straggler),
		cmocka_unit_test(test_checks),
		cmocka_unit_test(test_fp32_exact_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
