/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Barrier windows for a simulation split over processes (ibex_psync.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ibex_psync.h"

#define REC_ALIGN 8

static inline size_t
rec_size(uint32_t len)
{
	return sizeof(struct ibex_psync_rec) +
	       (((size_t)len + REC_ALIGN - 1) & ~(size_t)(REC_ALIGN - 1));
}

int
ibex_psync_buf_reserve(struct ibex_psync_buf *b, size_t more)
{
	size_t cap = b->cap != 0 ? b->cap : 4096;
	uint8_t *d;

	if (b->len + more <= b->cap)
		return 0;
	while (cap < b->len + more)
		cap *= 2;
	d = realloc(b->data, cap);
	if (d == NULL)
		return -ENOMEM;
	b->data = d;
	b->cap = cap;
	return 0;
}

int
ibex_psync_init(struct ibex_psync *ps, const struct ibex_psync_transport *t,
		uint64_t lookahead)
{
	memset(ps, 0, sizeof(*ps));
	if (t->size == 0 || t->rank >= t->size || lookahead == 0 ||
	    t->exchange == NULL || t->min_u64 == NULL)
		return -EINVAL;
	ps->t = *t;
	ps->lookahead = lookahead;
	ps->window_end = lookahead;
	ps->out = calloc(t->size, sizeof(*ps->out));
	ps->in = calloc(t->size, sizeof(*ps->in));
	if (ps->out == NULL || ps->in == NULL) {
		ibex_psync_fini(ps);
		return -ENOMEM;
	}
	return 0;
}

void
ibex_psync_fini(struct ibex_psync *ps)
{
	unsigned int i;

	for (i = 0; ps->out != NULL && i < ps->t.size; i++)
		free(ps->out[i].data);
	for (i = 0; ps->in != NULL && i < ps->t.size; i++)
		free(ps->in[i].data);
	free(ps->out);
	free(ps->in);
	memset(ps, 0, sizeof(*ps));
}

int
ibex_psync_post(struct ibex_psync *ps, unsigned int dest, uint64_t arrival,
		uint32_t key, const void *data, uint32_t len)
{
	struct ibex_psync_buf *b;
	struct ibex_psync_rec h = { .arrival = arrival, .key = key,
				    .len = len };
	size_t sz = rec_size(len);

	if (dest >= ps->t.size || dest == ps->t.rank)
		return -EINVAL;
	b = &ps->out[dest];
	if (ibex_psync_buf_reserve(b, sz) != 0)
		return -ENOMEM;
	memcpy(b->data + b->len, &h, sizeof(h));
	if (len != 0)
		memcpy(b->data + b->len + sizeof(h), data, len);
	memset(b->data + b->len + sizeof(h) + len, 0,
	       sz - sizeof(h) - len);
	b->len += sz;
	ps->posted++;
	ps->posted_bytes += len;
	if (arrival < ps->window_end)
		ps->early++;
	return 0;
}

/* Hand what process @p from sent to @p fn; the earliest arrival in
 * @p first. A record that runs past the buffer is an error of the
 * transport, not a thing to guess about. */
static int
deliver_from(struct ibex_psync *ps, unsigned int from,
	     ibex_psync_deliver_fn fn, void *arg, uint64_t *first)
{
	const struct ibex_psync_buf *b = &ps->in[from];
	size_t off = 0;
	int ret;

	while (off < b->len) {
		struct ibex_psync_rec h;

		if (b->len - off < sizeof(h))
			return -EPROTO;
		memcpy(&h, b->data + off, sizeof(h));
		if (rec_size(h.len) > b->len - off)
			return -EPROTO;
		ret = fn(arg, from, h.arrival, h.key,
			 b->data + off + sizeof(h), h.len);
		if (ret != 0)
			return ret;
		if (h.arrival < *first)
			*first = h.arrival;
		ps->received++;
		ps->received_bytes += h.len;
		off += rec_size(h.len);
	}
	return 0;
}

/*
 * Close the window with @p err, this process's own error (0 for none):
 * the exchange, the deliveries, and the agreement, which also carries
 * whether any process failed and the lowest that failed on its own (not
 * one that only learned of another's failure from the transport), so
 * that every process can name it.
 */
static int
window_close(struct ibex_psync *ps, uint64_t next, ibex_psync_deliver_fn fn,
	     void *arg, uint64_t *extra, unsigned int n_extra, int err)
{
	uint64_t v[IBEX_PSYNC_AGREE_N];
	unsigned int i;
	bool own;
	int ret;

	if (n_extra > IBEX_PSYNC_MAX_EXTRA)
		return -EINVAL;
	for (i = 0; i < ps->t.size; i++)
		ps->in[i].len = 0;
	ret = ps->t.exchange(ps->t.ctx, ps->out, ps->in);
	if (err == 0)
		err = ret;
	for (i = 0; i < ps->t.size; i++)
		ps->out[i].len = 0;
	for (i = 0; i < ps->t.size && err == 0; i++)
		if (i != ps->t.rank)
			err = deliver_from(ps, i, fn, arg, &next);
	/* An exchange or a delivery that failed here still joins the
	 * agreement, so that the others learn of it instead of waiting for
	 * this process in the next collective. */
	own = err != 0 && err != -ECANCELED;
	v[0] = next;
	v[1] = err == 0;
	v[2] = own ? ps->t.rank : UINT64_MAX;
	for (i = 0; i < IBEX_PSYNC_MAX_EXTRA; i++)
		v[3 + i] = i < n_extra ? extra[i] : UINT64_MAX;
	ret = ps->t.min_u64(ps->t.ctx, v, IBEX_PSYNC_AGREE_N);
	if (ret != 0)
		return ret;
	if (v[1] == 0) {
		ps->failed = v[2] == UINT64_MAX ? UINT32_MAX :
			     (unsigned int)v[2];
		return err != 0 ? err : -ECANCELED; /* another one failed */
	}
	for (i = 0; i < n_extra; i++)
		extra[i] = v[3 + i];
	ps->windows++;
	ps->window_start = v[0];
	ps->window_end = v[0] > UINT64_MAX - ps->lookahead ? UINT64_MAX :
			 v[0] + ps->lookahead;
	return 0;
}

int
ibex_psync_window(struct ibex_psync *ps, uint64_t next,
		  ibex_psync_deliver_fn fn, void *arg, uint64_t *extra,
		  unsigned int n_extra)
{
	return window_close(ps, next, fn, arg, extra, n_extra, 0);
}

static int
deliver_none(void *arg, unsigned int from, uint64_t arrival, uint32_t key,
	     const void *data, uint32_t len)
{
	(void)arg, (void)from, (void)arrival, (void)key, (void)data, (void)len;
	return 0;
}

int
ibex_psync_fail(struct ibex_psync *ps, int err)
{
	if (err >= 0)
		err = -EINVAL;
	return window_close(ps, UINT64_MAX, deliver_none, NULL, NULL, 0, err);
}

/* ---- one process ---- */

static int
self_exchange(void *ctx, const struct ibex_psync_buf *out,
	      struct ibex_psync_buf *in)
{
	(void)ctx;
	(void)out;
	(void)in;
	return 0; /* no other process to post to */
}

static int
self_min(void *ctx, uint64_t *v, unsigned int n)
{
	(void)ctx;
	(void)v;
	(void)n;
	return 0;
}

void
ibex_psync_transport_self(struct ibex_psync_transport *t)
{
	memset(t, 0, sizeof(*t));
	t->size = 1;
	t->exchange = self_exchange;
	t->min_u64 = self_min;
}
