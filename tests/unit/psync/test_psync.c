/* SPDX-License-Identifier: BSD-3-Clause */
/* lib/psync without MPI: records cross between processes (threads here)
 * in posting order and come out whole; the windows agree on the earliest
 * next event and on the extra values; an idle stretch is jumped in one
 * window; a post inside the window is counted as early; a truncated
 * record is refused; an error on one process reaches the others, which
 * do not wait for it; and the toy simulation (psync_toy.h) gives the same
 * digest over 1, 2, 3, 4 and 8 partitions as in one. */

#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ibex_psync.h"
#include "psync_toy.h"

/* ---- a transport over threads: a shared table and a barrier ---- */

#define MAX_THREADS 8

struct threads {
	unsigned int size;
	pthread_barrier_t bar;
	const struct ibex_psync_buf *out[MAX_THREADS];
	uint64_t v[MAX_THREADS][IBEX_PSYNC_AGREE_N];
	/* a corrupt exchange, for the refusal test */
	bool truncate;
};

struct thread_ctx {
	struct threads *sh;
	unsigned int rank;
};

static int
th_exchange(void *ctx, const struct ibex_psync_buf *out,
	    struct ibex_psync_buf *in)
{
	struct thread_ctx *c = ctx;
	struct threads *sh = c->sh;
	unsigned int i;

	sh->out[c->rank] = out;
	pthread_barrier_wait(&sh->bar);
	for (i = 0; i < sh->size; i++) {
		const struct ibex_psync_buf *b = &sh->out[i][c->rank];
		size_t len = b->len;

		if (i == c->rank)
			continue;
		if (sh->truncate && len != 0)
			len -= 4;
		if (ibex_psync_buf_reserve(&in[i], len) != 0)
			return -ENOMEM;
		if (len != 0)
			memcpy(in[i].data, b->data, len);
		in[i].len = len;
	}
	/* the senders empty their buffers only once every copy is done */
	pthread_barrier_wait(&sh->bar);
	return 0;
}

static int
th_min(void *ctx, uint64_t *v, unsigned int n)
{
	struct thread_ctx *c = ctx;
	struct threads *sh = c->sh;
	unsigned int i, j;

	if (n > IBEX_PSYNC_AGREE_N)
		return -EINVAL;
	memcpy(sh->v[c->rank], v, n * sizeof(*v));
	pthread_barrier_wait(&sh->bar);
	for (i = 0; i < sh->size; i++)
		for (j = 0; j < n; j++)
			if (sh->v[i][j] < v[j])
				v[j] = sh->v[i][j];
	pthread_barrier_wait(&sh->bar);
	return 0;
}

static void
th_transport(struct ibex_psync_transport *t, struct thread_ctx *c)
{
	memset(t, 0, sizeof(*t));
	t->rank = c->rank;
	t->size = c->sh->size;
	t->exchange = th_exchange;
	t->min_u64 = th_min;
	t->ctx = c;
}

/* ---- the toy over N threads ---- */

struct toy_thread {
	struct thread_ctx c;
	struct toy y;
	struct ibex_psync ps;
	int ret;
};

static void *
toy_thread_main(void *arg)
{
	struct toy_thread *tt = arg;
	struct ibex_psync_transport t;

	th_transport(&t, &tt->c);
	tt->ret = ibex_psync_init(&tt->ps, &t, TOY_LOOKAHEAD);
	if (tt->ret == 0)
		tt->ret = toy_init(&tt->y, tt->c.rank, tt->c.sh->size);
	if (tt->ret == 0)
		tt->ret = toy_run(&tt->y, &tt->ps);
	return NULL;
}

struct toy_result {
	uint64_t digest, events, last_t, windows, posted, early;
};

static struct toy_result
toy_over(unsigned int parts)
{
	struct threads sh = { .size = parts };
	struct toy_thread tt[MAX_THREADS];
	pthread_t th[MAX_THREADS];
	struct toy_result r = { 0 };
	unsigned int i;

	assert_int_equal(pthread_barrier_init(&sh.bar, NULL, parts), 0);
	for (i = 0; i < parts; i++) {
		memset(&tt[i], 0, sizeof(tt[i]));
		tt[i].c.sh = &sh;
		tt[i].c.rank = i;
		assert_int_equal(pthread_create(&th[i], NULL, toy_thread_main,
						&tt[i]), 0);
	}
	for (i = 0; i < parts; i++)
		assert_int_equal(pthread_join(th[i], NULL), 0);
	r.windows = tt[0].ps.windows;
	for (i = 0; i < parts; i++) {
		assert_int_equal(tt[i].ret, 0);
		r.digest += tt[i].y.digest;
		r.events += tt[i].y.events;
		if (tt[i].y.last_t > r.last_t)
			r.last_t = tt[i].y.last_t;
		r.posted += tt[i].ps.posted;
		r.early += tt[i].ps.early;
		/* every process closed the same windows */
		assert_int_equal(tt[i].ps.windows, r.windows);
		free(tt[i].y.heap);
		ibex_psync_fini(&tt[i].ps);
	}
	pthread_barrier_destroy(&sh.bar);
	return r;
}

/* The toy in one process, without any transport: the reference. */
static struct toy_result
toy_alone(void)
{
	struct ibex_psync_transport t;
	struct ibex_psync ps;
	struct toy_result r = { 0 };
	struct toy y;

	ibex_psync_transport_self(&t);
	assert_int_equal(ibex_psync_init(&ps, &t, TOY_LOOKAHEAD), 0);
	assert_int_equal(toy_init(&y, 0, 1), 0);
	while (y.n != 0)
		assert_int_equal(toy_run_one(&y, &ps, toy_pop(&y)), 0);
	r.digest = y.digest;
	r.events = y.events;
	r.last_t = y.last_t;
	free(y.heap);
	ibex_psync_fini(&ps);
	return r;
}

static void
test_toy_same_over_partitions(void **state)
{
	static const unsigned int counts[] = { 1, 2, 3, 4, 8 };
	struct toy_result ref = toy_alone(), r;
	unsigned int i;

	(void)state;
	assert_int_equal(ref.events, (uint64_t)TOY_TOKENS * TOY_HOPS);
	for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		r = toy_over(counts[i]);
		print_message("toy over %u partitions: %llu events, %llu "
			      "windows, %llu records crossed, last at %llu\n",
			      counts[i], (unsigned long long)r.events,
			      (unsigned long long)r.windows,
			      (unsigned long long)r.posted,
			      (unsigned long long)r.last_t);
		assert_int_equal(r.events, ref.events);
		assert_int_equal(r.digest, ref.digest);
		assert_int_equal(r.last_t, ref.last_t);
		assert_int_equal(r.early, 0);
		if (counts[i] > 1)
			assert_true(r.posted > 0);
	}
}

/* ---- the window's rules, on two threads ---- */

struct rec_seen {
	unsigned int n;
	uint64_t arrival[8];
	uint32_t key[8];
	char text[8][16];
};

static int
note_rec(void *arg, unsigned int from, uint64_t arrival, uint32_t key,
	 const void *data, uint32_t len)
{
	struct rec_seen *s = arg;

	assert_int_equal(from, 1);
	assert_true(s->n < 8);
	s->arrival[s->n] = arrival;
	s->key[s->n] = key;
	assert_true(len < sizeof(s->text[0]));
	memcpy(s->text[s->n], data, len);
	s->text[s->n][len] = '\0';
	s->n++;
	return 0;
}

struct two {
	struct thread_ctx c;
	struct ibex_psync ps;
	struct rec_seen seen;
	int ret[4];
	uint64_t start[4], end[4], extra[4];
};

static void *
two_main(void *arg)
{
	struct two *w = arg;
	struct ibex_psync_transport t;
	uint64_t ex;

	th_transport(&t, &w->c);
	assert_int_equal(ibex_psync_init(&w->ps, &t, 100), 0);
	assert_int_equal(ibex_psync_window_end(&w->ps), 100);
	if (w->c.rank == 1) {
		/* in posting order, not arrival order; sizes 0, 1, 8, 13 */
		assert_int_equal(ibex_psync_post(&w->ps, 0, 300, 7, "", 0), 0);
		assert_int_equal(ibex_psync_post(&w->ps, 0, 200, 9, "a", 1), 0);
		assert_int_equal(ibex_psync_post(&w->ps, 0, 250, 9,
						 "abcdefgh", 8), 0);
		assert_int_equal(ibex_psync_post(&w->ps, 0, 100, 2,
						 "thirteen char", 13), 0);
		/* arriving inside the window: sent, and counted */
		assert_int_equal(ibex_psync_post(&w->ps, 0, 99, 3, "e", 1), 0);
		assert_int_equal(w->ps.early, 1);
		assert_int_equal(ibex_psync_post(&w->ps, 1, 200, 0, "", 0),
				 -EINVAL);
		assert_int_equal(ibex_psync_post(&w->ps, 2, 200, 0, "", 0),
				 -EINVAL);
	}
	/* window 1: process 0's next event at 5000, 1's none; records
	 * arrive at 99 and later: the next window starts at 99 */
	ex = w->c.rank == 0 ? 1 : 0;
	w->ret[0] = ibex_psync_window(&w->ps, w->c.rank == 0 ? 5000 :
				      UINT64_MAX, note_rec, &w->seen, &ex, 1);
	w->start[0] = w->ps.window_start;
	w->end[0] = w->ps.window_end;
	w->extra[0] = ex;
	/* window 2: nothing posted, next events at 5000 and 70000: the
	 * idle stretch is one window */
	ex = 1;
	w->ret[1] = ibex_psync_window(&w->ps, w->c.rank == 0 ? 5000 : 70000,
				      note_rec, &w->seen, &ex, 1);
	w->start[1] = w->ps.window_start;
	w->end[1] = w->ps.window_end;
	w->extra[1] = ex;
	/* window 3: no events anywhere */
	w->ret[2] = ibex_psync_window(&w->ps, UINT64_MAX, note_rec, &w->seen,
				      NULL, 0);
	w->start[2] = w->ps.window_start;
	w->end[2] = w->ps.window_end;
	return NULL;
}

static void
test_window_rules(void **state)
{
	struct threads sh = { .size = 2 };
	struct two w[2];
	pthread_t th[2];
	unsigned int i;

	(void)state;
	assert_int_equal(pthread_barrier_init(&sh.bar, NULL, 2), 0);
	for (i = 0; i < 2; i++) {
		memset(&w[i], 0, sizeof(w[i]));
		w[i].c.sh = &sh;
		w[i].c.rank = i;
		assert_int_equal(pthread_create(&th[i], NULL, two_main, &w[i]),
				 0);
	}
	for (i = 0; i < 2; i++)
		assert_int_equal(pthread_join(th[i], NULL), 0);
	pthread_barrier_destroy(&sh.bar);
	for (i = 0; i < 2; i++) {
		assert_int_equal(w[i].ret[0], 0);
		assert_int_equal(w[i].ret[1], 0);
		assert_int_equal(w[i].ret[2], 0);
		/* process 0 delivered at 99: both agree */
		assert_int_equal(w[i].start[0], 99);
		assert_int_equal(w[i].end[0], 199);
		assert_int_equal(w[i].extra[0], 0); /* not all said 1 */
		assert_int_equal(w[i].start[1], 5000);
		assert_int_equal(w[i].end[1], 5100);
		assert_int_equal(w[i].extra[1], 1);
		assert_int_equal(w[i].start[2], UINT64_MAX);
		assert_int_equal(w[i].end[2], UINT64_MAX);
		assert_int_equal(w[i].ps.windows, 3);
	}
	assert_int_equal(w[0].seen.n, 5);
	assert_int_equal(w[0].seen.arrival[0], 300);
	assert_int_equal(w[0].seen.key[0], 7);
	assert_string_equal(w[0].seen.text[0], "");
	assert_string_equal(w[0].seen.text[1], "a");
	assert_string_equal(w[0].seen.text[2], "abcdefgh");
	assert_string_equal(w[0].seen.text[3], "thirteen char");
	assert_int_equal(w[0].seen.key[4], 3);
	assert_int_equal(w[0].ps.received, 5);
	assert_int_equal(w[0].ps.received_bytes, 23);
	assert_int_equal(w[1].ps.posted, 5);
	assert_int_equal(w[1].seen.n, 0);
	for (i = 0; i < 2; i++)
		ibex_psync_fini(&w[i].ps);
}

/* ---- refusals ---- */

struct bad {
	struct thread_ctx c;
	struct ibex_psync ps;
	int ret;
	unsigned int failed;
};

static int
no_rec(void *arg, unsigned int from, uint64_t arrival, uint32_t key,
       const void *data, uint32_t len)
{
	(void)arg, (void)from, (void)arrival, (void)key, (void)data, (void)len;
	return 0;
}

static void *
bad_main(void *arg)
{
	struct bad *b = arg;
	struct ibex_psync_transport t;

	th_transport(&t, &b->c);
	assert_int_equal(ibex_psync_init(&b->ps, &t, 10), 0);
	assert_int_equal(ibex_psync_post(&b->ps, 1 - b->c.rank, 50, 1,
					 "xyz", 3), 0);
	b->ret = ibex_psync_window(&b->ps, UINT64_MAX, no_rec, NULL, NULL, 0);
	ibex_psync_fini(&b->ps);
	return NULL;
}

/* Process 1 refuses what it receives: it returns its error, process 0
 * -ECANCELED, and neither waits for the other. */
static int
refuse_rec(void *arg, unsigned int from, uint64_t arrival, uint32_t key,
	   const void *data, uint32_t len)
{
	(void)arg, (void)from, (void)arrival, (void)key, (void)data, (void)len;
	return -EPROTO;
}

static void *
fail_one_main(void *arg)
{
	struct bad *b = arg;
	struct ibex_psync_transport t;

	th_transport(&t, &b->c);
	assert_int_equal(ibex_psync_init(&b->ps, &t, 10), 0);
	if (b->c.rank == 0)
		assert_int_equal(ibex_psync_post(&b->ps, 1, 50, 1, "x", 1), 0);
	b->ret = ibex_psync_window(&b->ps, UINT64_MAX, refuse_rec, NULL, NULL,
				   0);
	b->failed = b->ps.failed;
	ibex_psync_fini(&b->ps);
	return NULL;
}

/* Of three processes, 2 ends the run on its own (ibex_psync_fail()) in
 * the second window: the others learn it there, and which one it was. */
static void *
fail_api_main(void *arg)
{
	struct bad *b = arg;
	struct ibex_psync_transport t;
	uint64_t extra[2] = { 1, 1 };

	th_transport(&t, &b->c);
	assert_int_equal(ibex_psync_init(&b->ps, &t, 10), 0);
	b->ret = ibex_psync_window(&b->ps, 20, no_rec, NULL, NULL, 0);
	assert_int_equal(b->ret, 0);
	/* the others agree on extra values: the same agreement still */
	if (b->c.rank == 2)
		b->ret = ibex_psync_fail(&b->ps, -ENOMEM);
	else
		b->ret = ibex_psync_window(&b->ps, 30, no_rec, NULL, extra, 2);
	b->failed = b->ps.failed;
	ibex_psync_fini(&b->ps);
	return NULL;
}

static void
test_fail_named(void **state)
{
	struct threads sh = { .size = 3 };
	struct bad b[3];
	pthread_t th[3];
	unsigned int i;

	(void)state;
	assert_int_equal(pthread_barrier_init(&sh.bar, NULL, 3), 0);
	for (i = 0; i < 3; i++) {
		memset(&b[i], 0, sizeof(b[i]));
		b[i].c.sh = &sh;
		b[i].c.rank = i;
		assert_int_equal(pthread_create(&th[i], NULL, fail_api_main,
						&b[i]), 0);
	}
	for (i = 0; i < 3; i++)
		assert_int_equal(pthread_join(th[i], NULL), 0);
	pthread_barrier_destroy(&sh.bar);
	assert_int_equal(b[0].ret, -ECANCELED);
	assert_int_equal(b[1].ret, -ECANCELED);
	assert_int_equal(b[2].ret, -ENOMEM);
	for (i = 0; i < 3; i++)
		assert_int_equal(b[i].failed, 2);
}

static void
test_error_shared(void **state)
{
	struct threads sh = { .size = 2 };
	struct bad b[2];
	pthread_t th[2];
	unsigned int i;

	(void)state;
	assert_int_equal(pthread_barrier_init(&sh.bar, NULL, 2), 0);
	for (i = 0; i < 2; i++) {
		memset(&b[i], 0, sizeof(b[i]));
		b[i].c.sh = &sh;
		b[i].c.rank = i;
		assert_int_equal(pthread_create(&th[i], NULL, fail_one_main,
						&b[i]), 0);
	}
	for (i = 0; i < 2; i++)
		assert_int_equal(pthread_join(th[i], NULL), 0);
	pthread_barrier_destroy(&sh.bar);
	assert_int_equal(b[0].ret, -ECANCELED);
	assert_int_equal(b[1].ret, -EPROTO);
	assert_int_equal(b[0].failed, 1);
	assert_int_equal(b[1].failed, 1);
}

static void
test_refused(void **state)
{
	struct ibex_psync_transport t;
	struct ibex_psync ps;
	struct threads sh = { .size = 2, .truncate = true };
	struct bad b[2];
	pthread_t th[2];
	unsigned int i;

	(void)state;
	ibex_psync_transport_self(&t);
	assert_int_equal(ibex_psync_init(&ps, &t, 0), -EINVAL);
	t.rank = 1;
	assert_int_equal(ibex_psync_init(&ps, &t, 10), -EINVAL);
	t.rank = 0;
	assert_int_equal(ibex_psync_init(&ps, &t, 10), 0);
	assert_int_equal(ibex_psync_window(&ps, 5, no_rec, NULL, NULL,
					   IBEX_PSYNC_MAX_EXTRA + 1), -EINVAL);
	/* one process: the window is the next event's */
	assert_int_equal(ibex_psync_window(&ps, 5, no_rec, NULL, NULL, 0), 0);
	assert_int_equal(ibex_psync_window_end(&ps), 15);
	ibex_psync_fini(&ps);

	/* a record cut short by the transport: -EPROTO, not a guess */
	assert_int_equal(pthread_barrier_init(&sh.bar, NULL, 2), 0);
	for (i = 0; i < 2; i++) {
		memset(&b[i], 0, sizeof(b[i]));
		b[i].c.sh = &sh;
		b[i].c.rank = i;
		assert_int_equal(pthread_create(&th[i], NULL, bad_main, &b[i]),
				 0);
	}
	for (i = 0; i < 2; i++) {
		assert_int_equal(pthread_join(th[i], NULL), 0);
		assert_int_equal(b[i].ret, -EPROTO);
	}
	pthread_barrier_destroy(&sh.bar);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_window_rules),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_error_shared),
		cmocka_unit_test(test_fail_named),
		cmocka_unit_test(test_toy_same_over_partitions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
