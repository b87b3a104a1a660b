/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Collective engines as dependency-driven state machines.
 *
 * A collective is a list of steps per rank; in step s rank r sends some
 * transfers (peer, bytes) and expects some input bytes. Rank r begins step
 * s + 1 only when both its sends and its input of step s are complete, as
 * a GPU does when step s + 1 reduces or forwards the data step s brought.
 *
 * With S the message rounded up to a multiple of n and c = S / n:
 *   ring all-reduce     2(n-1) steps, r sends c to r+1 and receives c from
 *                       r-1 in each: reduce-scatter then all-gather.
 *   halving-doubling    log2 n reduce-scatter rounds (round k: peer
 *                       r ^ (n >> (k+1)), S / 2^(k+1) bytes each way), then
 *                       log2 n all-gather rounds (round k: peer r ^ 2^k,
 *                       c 2^k bytes each way). Rabenseifner's algorithm.
 *   incast N->1         one step: every rank but the root sends S to it.
 *   all-to-all          one step: every rank sends c to each other rank,
 *                       peers in the order r+1, r+2, ... so that no two
 *                       senders start on the same receiver.
 * Every rank of an all-reduce sends and receives 2(n-1)S/n in all.
 */

#include <errno.h>
#include <string.h>

#include "ibex_gen.h"

static const char *const engine_names[IBEX_GEN_ENGINE_MAX] = {
	[IBEX_GEN_RING] = "ring", [IBEX_GEN_HD] = "hd",
	[IBEX_GEN_INCAST] = "incast", [IBEX_GEN_ALLTOALL] = "alltoall",
	[IBEX_GEN_RATE] = "rate",
};

const char *
ibex_gen_engine_name(enum ibex_gen_engine e)
{
	return (unsigned int)e < IBEX_GEN_ENGINE_MAX ? engine_names[e] : "?";
}

int
ibex_gen_engine_parse(const char *s)
{
	unsigned int i;

	for (i = 0; i < IBEX_GEN_ENGINE_MAX; i++)
		if (strcmp(s, engine_names[i]) == 0)
			return (int)i;
	return -EINVAL;
}

static unsigned int
log2u(unsigned int n)
{
	unsigned int l = 0;

	while ((1u << l) < n)
		l++;
	return l;
}

unsigned int
ibex_coll_nsteps(const struct ibex_coll_cfg *cfg)
{
	switch (cfg->engine) {
	case IBEX_GEN_RING:
		return 2u * (cfg->nranks - 1u);
	case IBEX_GEN_HD:
		return 2u * log2u(cfg->nranks);
	default:
		return 1;
	}
}

uint64_t
ibex_coll_msg_bytes(const struct ibex_coll_cfg *cfg)
{
	uint64_t n = cfg->nranks;

	if (cfg->engine == IBEX_GEN_INCAST)
		return cfg->bytes == 0 ? 1 : cfg->bytes;
	return cfg->bytes < n ? n : (cfg->bytes + n - 1) / n * n;
}

unsigned int
ibex_coll_sends(const struct ibex_coll_cfg *cfg, unsigned int r,
		unsigned int s, uint16_t *peer, uint64_t *bytes)
{
	unsigned int n = cfg->nranks, l, k;
	uint64_t S = ibex_coll_msg_bytes(cfg), c = S / n;

	switch (cfg->engine) {
	case IBEX_GEN_RING:
		peer[0] = (uint16_t)((r + 1) % n);
		bytes[0] = c;
		return 1;
	case IBEX_GEN_HD:
		l = log2u(n);
		if (s < l) {
			peer[0] = (uint16_t)(r ^ (n >> (s + 1)));
			bytes[0] = S >> (s + 1);
		} else {
			peer[0] = (uint16_t)(r ^ (1u << (s - l)));
			bytes[0] = c << (s - l);
		}
		return 1;
	case IBEX_GEN_INCAST:
		if (r == cfg->root)
			return 0;
		peer[0] = cfg->root;
		bytes[0] = S;
		return 1;
	case IBEX_GEN_ALLTOALL:
		for (k = 1; k < n; k++) {
			peer[k - 1] = (uint16_t)((r + k) % n);
			bytes[k - 1] = c;
		}
		return n - 1;
	default:
		return 0;
	}
}

uint64_t
ibex_coll_recv_bytes(const struct ibex_coll_cfg *cfg, unsigned int r,
		     unsigned int s)
{
	unsigned int n = cfg->nranks, l;
	uint64_t S = ibex_coll_msg_bytes(cfg), c = S / n;

	switch (cfg->engine) {
	case IBEX_GEN_RING:
		return c;
	case IBEX_GEN_HD:
		l = log2u(n);
		return s < l ? S >> (s + 1) : c << (s - l);
	case IBEX_GEN_INCAST:
		return r == cfg->root ? (uint64_t)(n - 1) * S : 0;
	case IBEX_GEN_ALLTOALL:
		return (uint64_t)(n - 1) * c;
	default:
		return 0;
	}
}

double
ibex_coll_busbw_factor(enum ibex_gen_engine e, unsigned int n)
{
	switch (e) {
	case IBEX_GEN_RING:
	case IBEX_GEN_HD:
		return 2.0 * (n - 1) / n;
	case IBEX_GEN_ALLTOALL:
		return (double)(n - 1) / n;
	case IBEX_GEN_INCAST:
		return (double)(n - 1);
	default:
		return 1.0;
	}
}

int
ibex_coll_init(struct ibex_coll *c, const struct ibex_coll_cfg *cfg)
{
	unsigned int n = cfg->nranks;

	if (n < 2 || n > IBEX_GEN_MAX_RANKS || cfg->payload_max == 0 ||
	    cfg->engine >= IBEX_GEN_RATE || cfg->root >= n)
		return -EINVAL;
	if (cfg->engine == IBEX_GEN_HD && (n & (n - 1)) != 0)
		return -EINVAL;
	if (cfg->straggler.rank >= (int)n)
		return -EINVAL;
	memset(c, 0, sizeof(*c));
	c->cfg = *cfg;
	c->nsteps = (uint16_t)ibex_coll_nsteps(cfg);
	c->rng = cfg->seed;
	return 0;
}

/* Rank r becomes ready for step s at now: set up its transfers, or, when
 * the straggler draw says so, hold it back by the delay first. */
static void
step_begin(struct ibex_coll *c, unsigned int r, unsigned int s, uint64_t now,
	   bool draw)
{
	struct ibex_coll_rank *k = &c->rank[r];
	const struct ibex_gen_straggler *st = &c->cfg.straggler;
	uint16_t peer[IBEX_GEN_MAX_RANKS];
	uint64_t bytes[IBEX_GEN_MAX_RANKS];

	k->step = (uint16_t)s;
	if (draw && st->rank == (int)r && st->delay > 0 &&
	    ibex_gen_rand_unit(&c->rng) < st->prob) {
		k->state = IBEX_COLL_DELAYED;
		k->start_at = now + st->delay;
		k->late++;
		return;
	}
	k->nsend = (uint16_t)ibex_coll_sends(&c->cfg, r, s, peer, bytes);
	k->send_idx = 0;
	k->send_left = k->nsend > 0 ? bytes[0] : 0;
	k->xfer_bytes = k->send_left;
	k->peer = peer[0];
	k->state = k->nsend > 0 ? IBEX_COLL_SEND : IBEX_COLL_WAIT;
}

/* Rank r has sent everything of its step, or input arrived: if both are
 * complete, the step is done; go on to the next (perhaps several, when
 * later steps need nothing more). */
static void
step_check(struct ibex_coll *c, unsigned int r, uint64_t now)
{
	struct ibex_coll_rank *k = &c->rank[r];

	while (k->state == IBEX_COLL_WAIT &&
	       c->rx_got[r][k->step] >= ibex_coll_recv_bytes(&c->cfg, r, k->step)) {
		c->step_done[r][k->step] = now;
		if (k->step + 1u == c->nsteps) {
			k->state = IBEX_COLL_DONE;
			k->done_at = now;
			c->ndone++;
			return;
		}
		step_begin(c, r, k->step + 1u, now, true);
	}
}

void
ibex_coll_start(struct ibex_coll *c, uint64_t now)
{
	unsigned int r;

	c->iter++;
	c->t0 = now;
	c->ndone = 0;
	memset(c->rx_got, 0, sizeof(c->rx_got));
	memset(c->step_done, 0, sizeof(c->step_done));
	for (r = 0; r < c->cfg.nranks; r++) {
		c->rank[r].tx_bytes = 0;
		c->rank[r].rx_bytes = 0;
		c->rank[r].done_at = 0;
		step_begin(c, r, 0, now, true);
	}
	for (r = 0; r < c->cfg.nranks; r++)
		step_check(c, r, now);
}

bool
ibex_coll_tx(struct ibex_coll *c, unsigned int r, uint64_t now,
	     struct ibex_gen_pkt *p)
{
	struct ibex_coll_rank *k = &c->rank[r];
	uint16_t peer[IBEX_GEN_MAX_RANKS];
	uint64_t bytes[IBEX_GEN_MAX_RANKS];
	uint32_t pay;
	bool first;

	if (k->state == IBEX_COLL_DELAYED) {
		if (now < k->start_at)
			return false;
		step_begin(c, r, k->step, now, false);
		if (k->state == IBEX_COLL_WAIT)
			step_check(c, r, now);
	}
	if (k->state != IBEX_COLL_SEND)
		return false;
	first = k->send_left == k->xfer_bytes;
	pay = k->send_left > c->cfg.payload_max ? c->cfg.payload_max :
	      (uint32_t)k->send_left;
	k->send_left -= pay;
	p->src = (uint16_t)r;
	p->dst = k->peer;
	p->step = k->step;
	p->payload = pay;
	p->opcode = first ? (k->send_left == 0 ? IBEX_GEN_OP_ONLY :
			     IBEX_GEN_OP_FIRST) :
		    (k->send_left == 0 ? IBEX_GEN_OP_LAST : IBEX_GEN_OP_MIDDLE);
	k->tx_bytes += pay;
	if (k->send_left == 0) {
		k->send_idx++;
		if (k->send_idx < k->nsend) {
			/* Off the per-frame path: once per transfer. */
			ibex_coll_sends(&c->cfg, r, k->step, peer, bytes);
			k->send_left = bytes[k->send_idx];
			k->xfer_bytes = k->send_left;
			k->peer = peer[k->send_idx];
		} else {
			k->state = IBEX_COLL_WAIT;
			step_check(c, r, now);
		}
	}
	return true;
}

void
ibex_coll_rx(struct ibex_coll *c, unsigned int dst, unsigned int step,
	     uint32_t iter, uint32_t payload, uint64_t now)
{
	if (ibex_unlikely(dst >= c->cfg.nranks || step >= c->nsteps ||
			  iter != (c->iter & 0xffff))) {
		c->stale_rx++;
		return;
	}
	c->rx_got[dst][step] += payload;
	c->rank[dst].rx_bytes += payload;
	if (c->rank[dst].step == step)
		step_check(c, dst, now);
}

uint64_t
ibex_coll_elapsed(const struct ibex_coll *c)
{
	uint64_t last = c->t0;
	unsigned int r;

	for (r = 0; r < c->cfg.nranks; r++)
		if (c->rank[r].done_at > last)
			last = c->rank[r].done_at;
	return last - c->t0;
}

uint64_t
ibex_coll_idle(const struct ibex_coll *c)
{
	uint64_t idle = 0, slowest;
	unsigned int r, s;

	for (s = 0; s < c->nsteps; s++) {
		slowest = 0;
		for (r = 0; r < c->cfg.nranks; r++)
			if (c->step_done[r][s] > slowest)
				slowest = c->step_done[r][s];
		for (r = 0; r < c->cfg.nranks; r++)
			idle += slowest - c->step_done[r][s];
	}
	return idle;
}
