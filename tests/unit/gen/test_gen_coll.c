/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Collective engines on a simulated network: every rank may put one frame
 * on its link per tick, and a frame arrives DELAY ticks after it left, in
 * order. The tests check the byte and step accounting of each engine
 * against its formula, the dependency rule (a step never starts before its
 * input), the straggler's cost in completion and idle rank time, and that
 * a seed reproduces a run.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ibex_gen_coll.h"
#include "ibex_gen_engine.h"
#include "ibex_gen_report.h"

#define DELAY 50
#define QLEN (1u << 20)

struct inflight {
	uint64_t at;
	struct ibex_gen_pkt p;
	uint32_t iter;
};

/* Ranks up to which the simulation keeps a bytes-sent matrix. */
#define SENT_MAX_RANKS 4096

struct sim {
	struct ibex_coll c;
	struct inflight *q;
	size_t head, tail;
	uint64_t now;
	uint64_t delay;     /* ticks a frame takes */
	uint64_t *sent;     /* bytes [src * n + dst]; NULL: not kept */
	uint64_t frames;
	uint64_t order_violations;
};

#define SENT(s, r, d) ((s)->sent[(size_t)(r) * (s)->c.cfg.nranks + (d)])

static struct sim *
sim_new(const struct ibex_coll_cfg *cfg)
{
	struct sim *s = calloc(1, sizeof(*s));

	assert_non_null(s);
	s->q = calloc(QLEN, sizeof(*s->q));
	assert_non_null(s->q);
	s->delay = DELAY;
	assert_int_equal(ibex_coll_init(&s->c, cfg), 0);
	if (cfg->nranks <= SENT_MAX_RANKS) {
		s->sent = calloc((size_t)cfg->nranks * cfg->nranks,
				 sizeof(*s->sent));
		assert_non_null(s->sent);
	}
	return s;
}

static void
sim_free(struct sim *s)
{
	ibex_coll_fini(&s->c);
	free(s->sent);
	free(s->q);
	free(s);
}

/* Run one iteration to completion. @return its completion time. */
static uint64_t
sim_iter(struct sim *s)
{
	struct ibex_gen_pkt p;
	unsigned int r;

	ibex_coll_start(&s->c, s->now);
	while (!ibex_coll_done(&s->c)) {
		assert_true(s->now < UINT64_C(100000000));
		for (r = 0; r < s->c.cfg.nranks; r++) {
			if (!ibex_coll_tx(&s->c, r, s->now, &p))
				continue;
			/* Dependency: a frame of step k > 0 leaves only once
			 * the sender's input of step k-1 is complete. */
			if (p.step > 0 &&
			    ibex_coll_rx_got(&s->c, r, p.step - 1) <
			    ibex_coll_recv_bytes(&s->c.cfg, r, p.step - 1))
				s->order_violations++;
			if (s->sent != NULL)
				SENT(s, p.src, p.dst) += p.payload;
			s->frames++;
			assert_true(s->tail - s->head < QLEN);
			s->q[s->tail % QLEN] = (struct inflight){
				.at = s->now + s->delay, .p = p,
				.iter = s->c.iter & 0xffff };
			s->tail++;
		}
		s->now++;
		while (s->head != s->tail && s->q[s->head % QLEN].at <= s->now) {
			struct inflight *f = &s->q[s->head % QLEN];

			ibex_coll_rx(&s->c, f->p.dst, f->p.step, f->iter,
				     f->p.payload, s->now);
			s->head++;
		}
	}
	return ibex_coll_elapsed(&s->c);
}

static void
check_allreduce_bytes(struct sim *s, uint64_t S)
{
	unsigned int n = s->c.cfg.nranks, r;

	for (r = 0; r < n; r++) {
		assert_int_equal(s->c.rank[r].tx_bytes, 2 * (n - 1) * S / n);
		assert_int_equal(s->c.rank[r].rx_bytes, 2 * (n - 1) * S / n);
		assert_int_equal(s->c.rank[r].state, IBEX_COLL_DONE);
	}
}

static void
test_ring_accounting(void **state)
{
	static const unsigned int ns[] = { 2, 3, 4, 8, 16 };
	unsigned int i, r, d;

	(void)state;
	for (i = 0; i < IBEX_ARRAY_SIZE(ns); i++) {
		unsigned int n = ns[i];
		struct ibex_coll_cfg cfg = { .algo = &ibex_coll_ring,
			.nranks = (uint16_t)n, .bytes = 48 * 1024,
			.payload_max = 1000, .straggler.rank = -1 };
		struct sim *s = sim_new(&cfg);
		uint64_t S = ibex_coll_msg_bytes(&cfg);

		assert_int_equal(S % n, 0);
		assert_int_equal(s->c.nsteps, 2 * (n - 1));
		sim_iter(s);
		check_allreduce_bytes(s, S);
		/* ring: only to the right neighbour */
		for (r = 0; r < n; r++)
			for (d = 0; d < n; d++)
				assert_int_equal(SENT(s, r, d),
						 d == (r + 1) % n ?
						 2 * (n - 1) * S / n : 0);
		assert_int_equal(s->order_violations, 0);
		/* the steps completed in order */
		for (d = 1; d < s->c.nsteps; d++)
			assert_true(s->c.step_max[d] >= s->c.step_max[d - 1]);
		/* frames: ceil(S/n / 1000) per step per rank */
		assert_int_equal(s->frames, (uint64_t)n * 2 * (n - 1) *
				 ((S / n + 999) / 1000));
		sim_free(s);
	}
}

static void
test_ring_rounding(void **state)
{
	struct ibex_coll_cfg cfg = { .algo = &ibex_coll_ring, .nranks = 3,
		.bytes = 1000, .payload_max = 64, .straggler.rank = -1 };

	(void)state;
	/* nccl-tests style: S rounded up to a multiple of n */
	assert_int_equal(ibex_coll_msg_bytes(&cfg), 1002);
	cfg.bytes = 1;
	assert_int_equal(ibex_coll_msg_bytes(&cfg), 3);
}

static void
test_hd_accounting(void **state)
{
	static const unsigned int ns[] = { 2, 4, 8, 16, 32 };
	unsigned int i, r, k;

	(void)state;
	for (i = 0; i < IBEX_ARRAY_SIZE(ns); i++) {
		unsigned int n = ns[i], l = 0;
		struct ibex_coll_cfg cfg = { .algo = &ibex_coll_hd,
			.nranks = (uint16_t)n, .bytes = 64 * 1024,
			.payload_max = 1024, .straggler.rank = -1 };
		struct sim *s = sim_new(&cfg);
		uint64_t S = ibex_coll_msg_bytes(&cfg);
		uint16_t peer[64];
		uint64_t bytes[64];

		while ((1u << l) < n)
			l++;
		assert_int_equal(s->c.nsteps, 2 * l);
		/* log2 n rounds each way: halving then doubling, mirrored */
		for (k = 0; k < l; k++) {
			assert_int_equal(ibex_coll_sends(&cfg, 0, k, peer, bytes), 1);
			assert_int_equal(peer[0], n >> (k + 1));
			assert_int_equal(bytes[0], S >> (k + 1));
			assert_int_equal(ibex_coll_sends(&cfg, 0, l + k, peer,
							 bytes), 1);
			assert_int_equal(peer[0], 1u << k);
			assert_int_equal(bytes[0], (S / n) << k);
		}
		sim_iter(s);
		check_allreduce_bytes(s, S);
		assert_int_equal(s->order_violations, 0);
		for (r = 0; r < n; r++)
			for (k = 0; k < n; k++)
				if (SENT(s, r, k) != 0)
					assert_int_equal(__builtin_popcount(r ^ k), 1);
		sim_free(s);
	}
}

/* The power-of-two path as it was before halving-doubling took any rank
 * count: the transfers of rank r in step s. */
static void
hd_pow2_ref(unsigned int n, unsigned int r, unsigned int s, uint64_t msg,
	    uint16_t *peer, uint64_t *bytes)
{
	unsigned int l = 0;

	while ((1u << l) < n)
		l++;
	if (s < l) {
		*peer = (uint16_t)(r ^ (n >> (s + 1)));
		*bytes = msg >> (s + 1);
	} else {
		*peer = (uint16_t)(r ^ (1u << (s - l)));
		*bytes = (msg / n) << (s - l);
	}
}

/* A power of two moves what it did: every rank's peer and bytes in every
 * step, its input, the step count and the message size, n = 2..64. */
static void
test_hd_pow2_unchanged(void **state)
{
	static const uint64_t sizes[] = { 1, 7, 1000, 64 * 1024, 1 << 20 };
	unsigned int n, i, r, st, l;

	(void)state;
	for (n = 2, l = 1; n <= 64; n *= 2, l++) {
		for (i = 0; i < IBEX_ARRAY_SIZE(sizes); i++) {
			struct ibex_coll_cfg cfg = { .algo = &ibex_coll_hd,
				.nranks = (uint16_t)n, .bytes = sizes[i],
				.payload_max = 1024, .straggler.rank = -1 };
			uint64_t S = sizes[i] < n ? n :
				     (sizes[i] + n - 1) / n * n;

			assert_int_equal(ibex_coll_msg_bytes(&cfg), S);
			assert_int_equal(ibex_coll_nsteps(&cfg), 2 * l);
			for (r = 0; r < n; r++) {
				for (st = 0; st < 2 * l; st++) {
					uint16_t peer[1], wp;
					uint64_t bytes[1], wb;

					hd_pow2_ref(n, r, st, S, &wp, &wb);
					assert_int_equal(ibex_coll_sends(&cfg, r,
						st, peer, bytes), 1);
					assert_int_equal(peer[0], wp);
					assert_int_equal(bytes[0], wb);
					assert_int_equal(ibex_coll_recv_bytes(
						&cfg, r, st), wb);
				}
			}
		}
	}
}

/* Blocks of the message whose reduction the any-n test follows: all of
 * them up to 1,024, else these (first, last, either side of the middle)
 * and a stride. */
static bool
hd_tracked(unsigned int p, unsigned int j)
{
	return p <= 1024 || j < 2 || j + 2 >= p || j == p / 2 ||
	       j == p / 2 - 1 || j % 509 == 0;
}

/*
 * Halving-doubling of any n: follow which ranks' contributions each
 * rank's copy of a block holds through the transfers ibex_coll_hd_xfer()
 * describes (a reduction adds the sender's to the receiver's, and must
 * not add one twice; a gather or the last step replaces the receiver's
 * copy), and at the end every rank's every block holds all n. Also: the
 * step count, no transfer to self, one input a step, the bytes sent
 * match the blocks and what the receiver waits for, and each rank's total.
 */
static void
test_hd_any_n(void **state)
{
	static const unsigned int ns[] = { 3, 5, 6, 7, 12, 100, 1000, 10000 };
	unsigned int i;

	(void)state;
	for (i = 0; i < IBEX_ARRAY_SIZE(ns); i++) {
		unsigned int n = ns[i], p = 1, l = 0, x, w, r, st, j, nsteps;
		struct ibex_coll_cfg cfg = { .algo = &ibex_coll_hd,
			.nranks = (uint16_t)n, .bytes = 8192,
			.payload_max = 1024, .straggler.rank = -1 };
		uint64_t S, *in, *tx, *rx, *set;
		uint16_t *from;

		while (p * 2 <= n) {
			p *= 2;
			l++;
		}
		x = n - p;
		nsteps = 2 * l + 2;
		S = ibex_coll_msg_bytes(&cfg);
		assert_int_equal(S, (8192 + p - 1) / p * p);
		assert_int_equal(ibex_coll_nsteps(&cfg), nsteps);
		in = calloc(n, sizeof(*in));
		tx = calloc(n, sizeof(*tx));
		rx = calloc(n, sizeof(*rx));
		from = calloc(n, sizeof(*from));
		assert_non_null(in);
		assert_non_null(tx);
		assert_non_null(rx);
		assert_non_null(from);
		for (st = 0; st < nsteps; st++) {
			memset(in, 0, n * sizeof(*in));
			for (r = 0; r < n; r++) {
				uint16_t peer[1], hp;
				uint64_t bytes[1];
				unsigned int lo, hi, k;

				k = ibex_coll_sends(&cfg, r, st, peer, bytes);
				assert_int_equal(k, ibex_coll_hd_xfer(n, r, st,
						 &hp, &lo, &hi));
				if (k == 0)
					continue;
				assert_int_equal(k, 1);
				assert_int_equal(peer[0], hp);
				assert_true(peer[0] < n && peer[0] != r);
				assert_true(lo < hi && hi <= p);
				assert_int_equal(bytes[0], (hi - lo) * (S / p));
				/* one input per rank and step */
				assert_int_equal(in[peer[0]], 0);
				in[peer[0]] = bytes[0];
				tx[r] += bytes[0];
				rx[peer[0]] += bytes[0];
			}
			for (r = 0; r < n; r++)
				assert_int_equal(ibex_coll_recv_bytes(&cfg, r,
						 st), in[r]);
		}
		/* extras: S out, S back; partners that and the p ranks' */
		for (r = 0; r < n; r++) {
			uint64_t want = r < 2 * x && r % 2 == 0 ? S :
					2 * (p - 1) * S / p + (r < 2 * x ? S : 0);

			assert_int_equal(tx[r], want);
			assert_int_equal(rx[r], want);
		}

		/* the reduction, block by block: set[r] = ranks in r's copy */
		w = (n + 63) / 64;
		set = calloc((size_t)n * w, sizeof(*set));
		assert_non_null(set);
		for (j = 0; j < p; j++) {
			if (!hd_tracked(p, j))
				continue;
			memset(set, 0, (size_t)n * w * sizeof(*set));
			for (r = 0; r < n; r++)
				set[(size_t)r * w + r / 64] = UINT64_C(1) << (r % 64);
			for (st = 0; st < nsteps; st++) {
				bool reduce = st <= l; /* pre-step, halving */
				unsigned int m = 0, k, a;

				memset(in, 0, n * sizeof(*in));
				for (r = 0; r < n; r++) {
					uint16_t peer;
					unsigned int lo, hi;

					if (ibex_coll_hd_xfer(n, r, st, &peer,
							      &lo, &hi) == 0 ||
					    j < lo || j >= hi)
						continue;
					from[m++] = (uint16_t)r;
					in[peer] = 1 + r;
				}
				/* nobody sends block j and gets it in one step */
				for (k = 0; k < m; k++)
					assert_int_equal(in[from[k]], 0);
				for (r = 0; r < n; r++) {
					uint64_t *d = &set[(size_t)r * w];
					const uint64_t *sr;

					if (in[r] == 0)
						continue;
					sr = &set[(size_t)(in[r] - 1) * w];
					for (a = 0; a < w; a++) {
						if (reduce) {
							assert_int_equal(d[a] & sr[a], 0);
							d[a] |= sr[a];
						} else {
							d[a] = sr[a];
						}
					}
				}
			}
			for (r = 0; r < n; r++) {
				unsigned int cnt = 0, a;

				for (a = 0; a < w; a++)
					cnt += __builtin_popcountll(
						set[(size_t)r * w + a]);
				assert_int_equal(cnt, n);
			}
		}
		free(set);
		free(from);
		free(in);
		free(tx);
		free(rx);

		/* and the state machine runs it to the end, twice */
		if (n <= 1000) {
			struct sim *s = sim_new(&cfg);

			for (j = 0; j < 2; j++) {
				sim_iter(s);
				assert_int_equal(s->order_violations, 0);
				for (r = 0; r < n; r++) {
					assert_int_equal(s->c.rank[r].state,
							 IBEX_COLL_DONE);
					assert_int_equal(s->c.rank[r].tx_bytes,
						r < 2 * x && r % 2 == 0 ? S :
						2 * (p - 1) * S / p +
						(r < 2 * x ? S : 0));
				}
			}
			sim_free(s);
		}
	}
}

/* A straggler of halving-doubling over 6 ranks (4 + 2 extras) is late
 * only in the steps it takes part in: an extra in the first and the
 * last, a partner in all six, another rank in the four in between. */
static void
test_hd_any_n_straggler(void **state)
{
	static const struct {
		int rank;
		uint64_t late;
	} cases[] = { { 0, 2 }, { 1, 6 }, { 4, 4 }, { 5, 4 } };
	unsigned int i;
	uint64_t base;

	(void)state;
	for (i = 0; i <= IBEX_ARRAY_SIZE(cases); i++) {
		struct ibex_coll_cfg cfg = { .algo = &ibex_coll_hd,
			.nranks = 6, .bytes = 6000, .payload_max = 100,
			.straggler = { .rank = -1, .delay = 1000,
				       .prob = 1.0 }, .seed = 1 };
		struct sim *s;
		uint64_t t;

		if (i > 0)
			cfg.straggler.rank = cases[i - 1].rank;
		s = sim_new(&cfg);
		assert_int_equal(s->c.nsteps, 6);
		t = sim_iter(s);
		assert_int_equal(s->order_violations, 0);
		if (i == 0) {
			base = t;
		} else {
			assert_int_equal(s->c.rank[cases[i - 1].rank].late,
					 cases[i - 1].late);
			assert_true(t >= base + 1000);
		}
		sim_free(s);
	}
}

static void
test_incast_alltoall(void **state)
{
	struct ibex_coll_cfg cfg = { .algo = &ibex_coll_incast, .nranks = 8,
		.root = 2, .bytes = 10000, .payload_max = 1000,
		.straggler.rank = -1 };
	struct sim *s;
	unsigned int r, d;

	(void)state;
	s = sim_new(&cfg);
	sim_iter(s);
	for (r = 0; r < 8; r++) {
		assert_int_equal(s->c.rank[r].tx_bytes, r == 2 ? 0 : 10000);
		for (d = 0; d < 8; d++)
			assert_int_equal(SENT(s, r, d),
					 d == 2 && r != 2 ? 10000 : 0);
	}
	assert_int_equal(s->c.rank[2].rx_bytes, 7 * 10000);
	/* root finishes last: when the last frame of 7 x 10 arrives */
	assert_int_equal(ibex_coll_elapsed(&s->c), s->c.rank[2].done_at - s->c.t0);
	sim_free(s);

	cfg.algo = &ibex_coll_alltoall;
	cfg.bytes = 8000;
	s = sim_new(&cfg);
	sim_iter(s);
	for (r = 0; r < 8; r++) {
		assert_int_equal(s->c.rank[r].tx_bytes, 7 * 1000);
		assert_int_equal(s->c.rank[r].rx_bytes, 7 * 1000);
		for (d = 0; d < 8; d++)
			assert_int_equal(SENT(s, r, d), d == r ? 0 : 1000);
	}
	sim_free(s);
}

static void
test_busbw_factor(void **state)
{
	(void)state;
	assert_true(ibex_coll_busbw_factor(&ibex_coll_ring, 8) == 2.0 * 7 / 8);
	assert_true(ibex_coll_busbw_factor(&ibex_coll_hd, 4) == 1.5);
	assert_true(ibex_coll_busbw_factor(&ibex_coll_alltoall, 8) == 7.0 / 8);
	assert_true(ibex_coll_busbw_factor(&ibex_coll_incast, 8) == 7.0);
}

/* One rank late by d at every step: each step costs about d more, and
 * idle rank time grows by at least (n - 2) d per step. */
static void
test_straggler(void **state)
{
	const unsigned int n = 8;
	const uint64_t d = 2000;
	struct ibex_coll_cfg cfg = { .algo = &ibex_coll_ring, .nranks = n,
		.bytes = 64 * 1024, .payload_max = 1024, .straggler.rank = -1,
		.seed = 7 };
	struct sim *s;
	uint64_t base, slow, idle0, idle1, steps = 2 * (n - 1);

	(void)state;
	s = sim_new(&cfg);
	base = sim_iter(s);
	idle0 = ibex_coll_idle(&s->c);
	sim_free(s);

	cfg.straggler = (struct ibex_gen_straggler){ .rank = 3, .delay = d,
						     .prob = 1.0 };
	s = sim_new(&cfg);
	slow = sim_iter(s);
	idle1 = ibex_coll_idle(&s->c);
	assert_int_equal(s->c.rank[3].late, steps);
	print_message("straggler: base %lu slow %lu (+%lu = %.2f d per step), "
		      "idle %lu -> %lu\n", (unsigned long)base,
		      (unsigned long)slow, (unsigned long)(slow - base),
		      (double)(slow - base) / d / steps, (unsigned long)idle0,
		      (unsigned long)idle1);
	/* about d per affected step (within 10 %) */
	assert_true(slow - base >= steps * d * 9 / 10);
	assert_true(slow - base <= steps * d * 11 / 10);
	/* no straggler, symmetric ring: nobody waits for anybody */
	assert_true(idle0 < steps * n * 10);
	assert_true(idle1 >= idle0 + (n - 2) * d);
	sim_free(s);

	/* probability 0.5, same seed twice: same draws, about half late */
	cfg.straggler.prob = 0.5;
	{
		struct sim *a = sim_new(&cfg), *b = sim_new(&cfg);
		unsigned int i;

		for (i = 0; i < 20; i++) {
			assert_int_equal(sim_iter(a), sim_iter(b));
		}
		assert_int_equal(a->c.rank[3].late, b->c.rank[3].late);
		assert_true(a->c.rank[3].late > 20 * steps * 3 / 10);
		assert_true(a->c.rank[3].late < 20 * steps * 7 / 10);
		sim_free(a);
		sim_free(b);
	}
}

/* once: the straggler joins each iteration d late and is on time after:
 * one delay per iteration, the completion about d later (not one d per
 * step), and every other rank idles about d waiting for it. */
static void
test_straggler_once(void **state)
{
	const unsigned int n = 16;
	const uint64_t d = 20000;
	struct ibex_coll_cfg cfg = { .algo = &ibex_coll_hd, .nranks = n,
		.bytes = 8192, .payload_max = 1024, .straggler.rank = -1,
		.seed = 7 };
	struct sim *s;
	uint64_t base, slow, idle0, idle1;
	unsigned int it;

	(void)state;
	s = sim_new(&cfg);
	base = sim_iter(s);
	idle0 = ibex_coll_idle(&s->c);
	sim_free(s);
	cfg.straggler = (struct ibex_gen_straggler){ .rank = 5, .delay = d,
						     .prob = 1.0, .once = true };
	s = sim_new(&cfg);
	for (it = 1; it <= 3; it++) {
		slow = sim_iter(s);
		idle1 = ibex_coll_idle(&s->c);
		assert_int_equal(s->c.rank[5].late, it);
		assert_true(slow >= base + d);
		assert_true(slow <= base + d + d / 10);
		assert_true(idle1 >= idle0 + (n - 1) * d * 9 / 10);
	}
	sim_free(s);
}

/* Frames of an old iteration (e.g. retransmitted or late after a
 * timeout) never count for the current one. */
static void
test_stale_iteration(void **state)
{
	struct ibex_coll_cfg cfg = { .algo = &ibex_coll_ring, .nranks = 4,
		.bytes = 4000, .payload_max = 500, .straggler.rank = -1 };
	struct sim *s = sim_new(&cfg);

	(void)state;
	sim_iter(s);
	ibex_coll_start(&s->c, s->now);
	ibex_coll_rx(&s->c, 1, 0, (s->c.iter - 1) & 0xffff, 1000, s->now);
	assert_int_equal(s->c.stale_rx, 1);
	assert_int_equal(ibex_coll_rx_got(&s->c, 1, 0), 0);
	ibex_coll_rx(&s->c, 1, 0, s->c.iter & 0xffff, 1000, s->now);
	assert_int_equal(ibex_coll_rx_got(&s->c, 1, 0), 1000);
	sim_free(s);
}

/*
 * 1,024 ranks (a K=16 fat tree's hosts): ring, halving-doubling and
 * all-to-all run an iteration to its end under the dependency rule, each
 * rank moving what its formula says, and a second iteration does the same
 * (the per-(rank, step) counters start again from zero).
 */
static void
test_1024_ranks(void **state)
{
	const unsigned int n = 1024;
	const struct ibex_coll_algo *algos[] = { &ibex_coll_ring, &ibex_coll_hd,
						 &ibex_coll_alltoall };
	unsigned int i, r, it;

	(void)state;
	for (i = 0; i < IBEX_ARRAY_SIZE(algos); i++) {
		/* one frame per transfer: S/n = 64 bytes */
		struct ibex_coll_cfg cfg = { .algo = algos[i], .nranks = n,
			.bytes = 64 * n, .payload_max = 1 << 20,
			.straggler.rank = -1 };
		struct sim *s = sim_new(&cfg);
		uint64_t S = ibex_coll_msg_bytes(&cfg);

		s->delay = 2;
		for (it = 0; it < 2; it++) {
			sim_iter(s);
			assert_int_equal(s->order_violations, 0);
			if (algos[i] != &ibex_coll_alltoall) {
				check_allreduce_bytes(s, S);
				continue;
			}
			for (r = 0; r < n; r++) {
				assert_int_equal(s->c.rank[r].tx_bytes,
						 (n - 1) * 64);
				assert_int_equal(s->c.rank[r].rx_bytes,
						 (n - 1) * 64);
				assert_int_equal(SENT(s, r, r), 0);
				assert_int_equal(SENT(s, r, (r + 1) % n),
						 (it + 1) * 64);
			}
		}
		assert_int_equal(s->c.nsteps, algos[i] == &ibex_coll_ring ?
				 2 * (n - 1) : algos[i] == &ibex_coll_hd ?
				 20 : 1);
		print_message("%s %u ranks: %lu ticks, %lu frames\n",
			      algos[i]->name, n,
			      (unsigned long)ibex_coll_elapsed(&s->c),
			      (unsigned long)s->frames);
		sim_free(s);
	}
}

/*
 * The limits: 16,384 ranks of halving-doubling and all-to-all are set up
 * (halving-doubling even runs an iteration), a ring stops at 4,096 ranks
 * (IBEX_COLL_MAX_CELLS counters), and more ranks than IBEX_COLL_MAX_RANKS
 * are refused.
 */
static void
test_rank_limits(void **state)
{
	struct ibex_coll_cfg cfg = { .algo = &ibex_coll_hd,
		.nranks = IBEX_COLL_MAX_RANKS, .bytes = IBEX_COLL_MAX_RANKS,
		.payload_max = 1 << 20, .straggler.rank = -1 };
	struct ibex_coll c = { 0 };
	struct sim *s;

	(void)state;
	assert_int_equal(IBEX_COLL_MAX_RANKS, 16384);
	s = sim_new(&cfg);
	s->delay = 1;
	assert_int_equal(s->c.nsteps, 28);
	sim_iter(s);
	assert_int_equal(s->order_violations, 0);
	check_allreduce_bytes(s, IBEX_COLL_MAX_RANKS);
	sim_free(s);

	cfg.algo = &ibex_coll_alltoall;
	assert_int_equal(ibex_coll_init(&c, &cfg), 0);
	assert_int_equal(c.nsteps, 1);
	ibex_coll_fini(&c);
	assert_null(c.rank);
	ibex_coll_fini(&c); /* twice is fine */

	cfg.algo = &ibex_coll_ring;
	cfg.nranks = 4096;
	assert_int_equal(ibex_coll_init(&c, &cfg), 0);
	ibex_coll_fini(&c);
	cfg.nranks = 4097;
	assert_int_equal(ibex_coll_init(&c, &cfg), -E2BIG);
	cfg.nranks = IBEX_COLL_MAX_RANKS;
	assert_int_equal(ibex_coll_init(&c, &cfg), -E2BIG);

	cfg.algo = &ibex_coll_alltoall;
	cfg.nranks = IBEX_COLL_MAX_RANKS + 1;
	assert_int_equal(ibex_coll_init(&c, &cfg), -EINVAL);
}

/* Multi-iteration report: completion quantiles are exact. */
static void
test_report_quantiles(void **state)
{
	struct ibex_gen_size_res r = { 0 };
	uint64_t v[100];
	unsigned int i;

	(void)state;
	for (i = 0; i < 100; i++)
		v[i] = (uint64_t)(100 - i) * 10;
	r.ct = v;
	r.iters = 100;
	assert_int_equal(ibex_gen_ct_quantile(&r, 0.5), 500);
	assert_int_equal(ibex_gen_ct_quantile(&r, 0.99), 990);
	assert_int_equal(ibex_gen_ct_quantile(&r, 1.0), 1000);
	assert_int_equal(ibex_gen_ct_quantile(&r, 0.0), 10);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ring_accounting),
		cmocka_unit_test(test_ring_rounding),
		cmocka_unit_test(test_hd_accounting),
		cmocka_unit_test(test_hd_pow2_unchanged),
		cmocka_unit_test(test_hd_any_n),
		cmocka_unit_test(test_hd_any_n_straggler),
		cmocka_unit_test(test_incast_alltoall),
		cmocka_unit_test(test_busbw_factor),
		cmocka_unit_test(test_straggler),
		cmocka_unit_test(test_straggler_once),
		cmocka_unit_test(test_stale_iteration),
		cmocka_unit_test(test_1024_ranks),
		cmocka_unit_test(test_rank_limits),
		cmocka_unit_test(test_report_quantiles),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
