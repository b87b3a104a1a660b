/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A toy simulation for lib/psync's tests: tokens travel a ring of nodes
 * with chords, each hop's delay at least the lookahead and moved by the
 * state of the node it leaves, so that a run that took two arrivals in a
 * different order would end with other times. The nodes are dealt to the
 * partitions in contiguous blocks; a partition runs its events in the
 * order (time, node, token), whatever order they were queued in, as the
 * fabric's executive runs its due switches in topology order. The same
 * run over any count of partitions must give the same digest.
 */
#ifndef PSYNC_TOY_H
#define PSYNC_TOY_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ibex_psync.h"

#define TOY_NODES     64
#define TOY_TOKENS    24
#define TOY_HOPS      200
#define TOY_LOOKAHEAD 1000

struct toy_ev {
	uint64_t t;
	uint32_t node, token, hop;
};

struct toy {
	unsigned int part, parts;
	struct toy_ev *heap;
	size_t n, cap;
	uint64_t acc[TOY_NODES];
	uint64_t digest, events, last_t;
};

static inline int
toy_ev_before(const struct toy_ev *a, const struct toy_ev *b)
{
	if (a->t != b->t)
		return a->t < b->t;
	if (a->node != b->node)
		return a->node < b->node;
	return a->token < b->token;
}

static inline unsigned int
toy_part_of(const struct toy *y, uint32_t node)
{
	return (unsigned int)((uint64_t)node * y->parts / TOY_NODES);
}

static inline uint64_t
toy_mix(uint64_t x)
{
	x ^= x >> 33;
	x *= UINT64_C(0xff51afd7ed558ccd);
	x ^= x >> 33;
	x *= UINT64_C(0xc4ceb9fe1a85ec53);
	return x ^ (x >> 33);
}

static inline int
toy_push(struct toy *y, struct toy_ev e)
{
	size_t i;

	if (y->n == y->cap) {
		size_t cap = y->cap != 0 ? 2 * y->cap : 64;
		struct toy_ev *h = realloc(y->heap, cap * sizeof(*h));

		if (h == NULL)
			return -ENOMEM;
		y->heap = h;
		y->cap = cap;
	}
	i = y->n++;
	while (i > 0 && toy_ev_before(&e, &y->heap[(i - 1) / 2])) {
		y->heap[i] = y->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	y->heap[i] = e;
	return 0;
}

static inline struct toy_ev
toy_pop(struct toy *y)
{
	struct toy_ev top = y->heap[0], last = y->heap[--y->n];
	size_t i = 0, c;

	while ((c = 2 * i + 1) < y->n) {
		if (c + 1 < y->n && toy_ev_before(&y->heap[c + 1], &y->heap[c]))
			c++;
		if (!toy_ev_before(&y->heap[c], &last))
			break;
		y->heap[i] = y->heap[c];
		i = c;
	}
	if (y->n != 0)
		y->heap[i] = last;
	return top;
}

static inline int
toy_init(struct toy *y, unsigned int part, unsigned int parts)
{
	uint32_t k;
	int ret;

	memset(y, 0, sizeof(*y));
	y->part = part;
	y->parts = parts;
	for (k = 0; k < TOY_TOKENS; k++) {
		struct toy_ev e = { .t = 3 * k, .node = (k * 7) % TOY_NODES,
				    .token = k, .hop = 0 };

		if (toy_part_of(y, e.node) != part)
			continue;
		ret = toy_push(y, e);
		if (ret != 0)
			return ret;
	}
	return 0;
}

/* One arrival: fold it into the node's state and the digest, and send the
 * token on (a chord every third hop), locally or through @p ps. */
static inline int
toy_run_one(struct toy *y, struct ibex_psync *ps, struct toy_ev e)
{
	struct toy_ev n;
	uint64_t delay;
	uint32_t pl[2];

	y->acc[e.node] = y->acc[e.node] * 31 + e.token + 1;
	y->digest += toy_mix(e.t ^ ((uint64_t)e.node << 40) ^
			     ((uint64_t)e.token << 20) ^ e.hop ^
			     (y->acc[e.node] << 7));
	y->events++;
	if (e.t > y->last_t)
		y->last_t = e.t;
	if (e.hop + 1 >= TOY_HOPS)
		return 0;
	n.node = e.hop % 3 == 0 ? (e.node + TOY_NODES / 2) % TOY_NODES :
		 (e.node + 1) % TOY_NODES;
	delay = TOY_LOOKAHEAD + (toy_mix(e.node) % 5) * (TOY_LOOKAHEAD / 2) +
		(y->acc[e.node] % 7) * 10;
	n.t = e.t + delay;
	n.token = e.token;
	n.hop = e.hop + 1;
	if (toy_part_of(y, n.node) == y->part)
		return toy_push(y, n);
	pl[0] = n.token;
	pl[1] = n.hop;
	return ibex_psync_post(ps, toy_part_of(y, n.node), n.t, n.node, pl,
			       sizeof(pl));
}

static inline int
toy_deliver(void *arg, unsigned int from, uint64_t arrival, uint32_t key,
	    const void *data, uint32_t len)
{
	struct toy *y = arg;
	struct toy_ev e = { .t = arrival, .node = key };
	uint32_t pl[2];

	(void)from;
	if (len != sizeof(pl) || key >= TOY_NODES ||
	    toy_part_of(y, key) != y->part)
		return -EPROTO;
	memcpy(pl, data, sizeof(pl));
	e.token = pl[0];
	e.hop = pl[1];
	return toy_push(y, e);
}

/* The partition's run: windows until no process has an event left.
 * @p done (the minimum of every process's) ends nothing by itself here:
 * it checks that the windows' extra values agree. */
static inline int
toy_run(struct toy *y, struct ibex_psync *ps)
{
	int ret;

	for (;;) {
		uint64_t extra[2] = { y->part, UINT64_MAX - y->part };

		while (y->n != 0 && y->heap[0].t < ibex_psync_window_end(ps)) {
			ret = toy_run_one(y, ps, toy_pop(y));
			if (ret != 0)
				return ret;
		}
		ret = ibex_psync_window(ps, y->n != 0 ? y->heap[0].t :
					UINT64_MAX, toy_deliver, y, extra, 2);
		if (ret != 0)
			return ret;
		if (extra[0] != 0 || extra[1] != UINT64_MAX - (y->parts - 1))
			return -EPROTO;
		if (ps->window_start == UINT64_MAX)
			return 0;
	}
}

#endif /* PSYNC_TOY_H */
