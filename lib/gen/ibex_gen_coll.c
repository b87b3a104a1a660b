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
 *   halving-doubling    Rabenseifner's algorithm over p = the largest
 *                       power of two <= n, S cut into p blocks (S rounded
 *                       up to a multiple of p, not n): log2 p reduce-scatter
 *                       rounds (round k: peer v ^ (p >> (k+1)), the half of
 *                       its segment it does not keep, S / 2^(k+1) bytes),
 *                       then log2 p all-gather rounds (round k: peer v ^ 2^k,
 *                       its 2^k blocks, (S/p) 2^k bytes). When n is not a
 *                       power of two, x = n - p ranks are extras, as
 *                       MPICH's recursive halving: of ranks 0..2x-1 each
 *                       even rank sends its whole vector to the odd one
 *                       above it in a first step and gets the result back
 *                       from it in a last step, and is idle in between;
 *                       the p others are v = r / 2 (r < 2x) or r - x.
 *                       2 log2 p steps, 2 log2 p + 2 with extras.
 *   incast N->1         one step: every rank but the root sends S to it.
 *   all-to-all          one step: every rank sends c to each other rank,
 *                       peers in the order r+1, r+2, ... so that no two
 *                       senders start on the same receiver.
 * Every rank of a ring, or of halving-doubling over a power of two, sends
 * and receives 2(n-1)S/n in all; with extras, an extra sends and receives
 * S, its partner 2(p-1)S/p + S, the others 2(p-1)S/p.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ibex_gen_coll.h"
#include "ibex_gen_frame.h"
#include "ibex_gen_rand.h"

static unsigned int
log2u(unsigned int n)
{
	unsigned int l = 0;

	while ((1u << l) < n)
		l++;
	return l;
}

/* ---- the algorithms ---- */

static unsigned int
ring_nsteps(unsigned int n)
{
	return 2u * (n - 1u);
}

static unsigned int
ring_sends(const struct ibex_coll_cfg *cfg, unsigned int r, unsigned int s,
	   unsigned int i, uint64_t msg, uint16_t *peer, uint64_t *bytes)
{
	(void)s;
	(void)i;
	*peer = (uint16_t)((r + 1) % cfg->nranks);
	*bytes = msg / cfg->nranks;
	return 1;
}

static uint64_t
ring_recv(const struct ibex_coll_cfg *cfg, unsigned int r, unsigned int s,
	  uint64_t msg)
{
	(void)r;
	(void)s;
	return msg / cfg->nranks;
}

static double
allreduce_busbw(unsigned int n)
{
	return 2.0 * (n - 1) / n;
}

static unsigned int
pow2_floor(unsigned int n)
{
	unsigned int p = 1;

	while (p * 2u <= n)
		p *= 2u;
	return p;
}

static unsigned int
hd_nsteps(unsigned int n)
{
	unsigned int p = pow2_floor(n);

	return 2u * log2u(p) + (p == n ? 0u : 2u);
}

/* Rank of virtual rank v (0..p-1) of n ranks with x extras. */
static unsigned int
hd_rank(unsigned int v, unsigned int x)
{
	return v < x ? 2u * v + 1u : v + x;
}

unsigned int
ibex_coll_hd_xfer(unsigned int n, unsigned int r, unsigned int s,
		  uint16_t *peer, unsigned int *lo, unsigned int *hi)
{
	unsigned int p = pow2_floor(n), x = n - p, l = log2u(p), v, k, m;

	if (x > 0) {
		bool extra = r < 2u * x && (r & 1u) == 0;

		if (s == 0 || s == 2u * l + 1u) {
			/* pre-step: extra -> partner; post: partner -> extra */
			if (r >= 2u * x || extra != (s == 0))
				return 0;
			*peer = (uint16_t)(s == 0 ? r + 1u : r - 1u);
			*lo = 0;
			*hi = p;
			return 1;
		}
		if (extra)
			return 0;
		s--;
	}
	if (s >= 2u * l)
		return 0;
	v = r < 2u * x ? r / 2u : r - x;
	if (s < l) {
		/* keep the half of the segment on v's side of bit m */
		m = p >> (s + 1u);
		*lo = (v & ~(2u * m - 1u)) + ((v & m) != 0 ? 0u : m);
		*hi = *lo + m;
		*peer = (uint16_t)hd_rank(v ^ m, x);
	} else {
		/* send the 2^k blocks gathered so far */
		k = s - l;
		*lo = v & ~((1u << k) - 1u);
		*hi = *lo + (1u << k);
		*peer = (uint16_t)hd_rank(v ^ (1u << k), x);
	}
	return 1;
}

/* Bytes of blocks [0, j) of a msg cut into p blocks (all the same size
 * when p divides msg, as it does: ibex_coll_msg_bytes()). */
static uint64_t
hd_off(uint64_t msg, unsigned int p, unsigned int j)
{
	return (uint64_t)j * (msg / p) + (uint64_t)j * (msg % p) / p;
}

static unsigned int
hd_sends(const struct ibex_coll_cfg *cfg, unsigned int r, unsigned int s,
	 unsigned int i, uint64_t msg, uint16_t *peer, uint64_t *bytes)
{
	unsigned int p = pow2_floor(cfg->nranks), lo, hi;

	(void)i;
	if (ibex_coll_hd_xfer(cfg->nranks, r, s, peer, &lo, &hi) == 0)
		return 0;
	*bytes = hd_off(msg, p, hi) - hd_off(msg, p, lo);
	return 1;
}

static uint64_t
hd_recv(const struct ibex_coll_cfg *cfg, unsigned int r, unsigned int s,
	uint64_t msg)
{
	unsigned int n = cfg->nranks, p = pow2_floor(n), x = n - p;
	unsigned int l = log2u(p), from, lo, hi;
	uint16_t peer;

	/* who sends to r in step s: the pairs are symmetric in the middle
	 * steps; the partner gets from r - 1 first, the extra from r + 1
	 * last */
	if (x > 0 && (s == 0 || s == 2u * l + 1u)) {
		if (r >= 2u * x)
			return 0;
		from = (r & 1u) != 0 ? r - 1u : r + 1u;
	} else if (ibex_coll_hd_xfer(n, r, s, &peer, &lo, &hi) != 0) {
		from = peer;
	} else {
		return 0;
	}
	if (ibex_coll_hd_xfer(n, from, s, &peer, &lo, &hi) == 0 || peer != r)
		return 0;
	return hd_off(msg, p, hi) - hd_off(msg, p, lo);
}

static unsigned int
one_step(unsigned int n)
{
	(void)n;
	return 1;
}

static unsigned int
incast_sends(const struct ibex_coll_cfg *cfg, unsigned int r, unsigned int s,
	     unsigned int i, uint64_t msg, uint16_t *peer, uint64_t *bytes)
{
	(void)s;
	(void)i;
	if (r == cfg->root)
		return 0;
	*peer = cfg->root;
	*bytes = msg;
	return 1;
}

static uint64_t
incast_recv(const struct ibex_coll_cfg *cfg, unsigned int r, unsigned int s,
	    uint64_t msg)
{
	(void)s;
	return r == cfg->root ? (uint64_t)(cfg->nranks - 1) * msg : 0;
}

static double
incast_busbw(unsigned int n)
{
	return (double)(n - 1);
}

static unsigned int
a2a_sends(const struct ibex_coll_cfg *cfg, unsigned int r, unsigned int s,
	  unsigned int i, uint64_t msg, uint16_t *peer, uint64_t *bytes)
{
	unsigned int n = cfg->nranks;

	(void)s;
	*peer = (uint16_t)((r + i + 1) % n);
	*bytes = msg / n;
	return n - 1;
}

static uint64_t
a2a_recv(const struct ibex_coll_cfg *cfg, unsigned int r, unsigned int s,
	 uint64_t msg)
{
	(void)r;
	(void)s;
	return (uint64_t)(cfg->nranks - 1) * (msg / cfg->nranks);
}

static double
a2a_busbw(unsigned int n)
{
	return (double)(n - 1) / n;
}

const struct ibex_coll_algo ibex_coll_ring = {
	.name = "ring", .nsteps = ring_nsteps, .sends = ring_sends,
	.recv_bytes = ring_recv, .busbw_factor = allreduce_busbw,
};
const struct ibex_coll_algo ibex_coll_hd = {
	.name = "hd", .nsteps = hd_nsteps, .sends = hd_sends,
	.recv_bytes = hd_recv, .busbw_factor = allreduce_busbw,
	.round_pow2 = true,
};
const struct ibex_coll_algo ibex_coll_incast = {
	.name = "incast", .nsteps = one_step, .sends = incast_sends,
	.recv_bytes = incast_recv, .busbw_factor = incast_busbw,
	.whole_msg = true,
};
const struct ibex_coll_algo ibex_coll_alltoall = {
	.name = "alltoall", .nsteps = one_step, .sends = a2a_sends,
	.recv_bytes = a2a_recv, .busbw_factor = a2a_busbw,
};

/* ---- the state machine ---- */

unsigned int
ibex_coll_nsteps(const struct ibex_coll_cfg *cfg)
{
	return cfg->algo->nsteps(cfg->nranks);
}

uint64_t
ibex_coll_msg_bytes(const struct ibex_coll_cfg *cfg)
{
	uint64_t n = cfg->algo->round_pow2 ? pow2_floor(cfg->nranks) :
		     cfg->nranks;

	if (cfg->algo->whole_msg)
		return cfg->bytes == 0 ? 1 : cfg->bytes;
	return cfg->bytes < n ? n : (cfg->bytes + n - 1) / n * n;
}

unsigned int
ibex_coll_sends(const struct ibex_coll_cfg *cfg, unsigned int r,
		unsigned int s, uint16_t *peer, uint64_t *bytes)
{
	uint64_t msg = ibex_coll_msg_bytes(cfg);
	unsigned int n, i;
	uint16_t p;
	uint64_t b;

	n = cfg->algo->sends(cfg, r, s, 0, msg, &p, &b);
	for (i = 0; i < n; i++)
		cfg->algo->sends(cfg, r, s, i, msg, &peer[i], &bytes[i]);
	return n;
}

/* Transfer i of rank r in step s. @return how many the step has. */
static unsigned int
coll_send(const struct ibex_coll *c, unsigned int r, unsigned int s,
	  unsigned int i, uint16_t *peer, uint64_t *bytes)
{
	*peer = 0;
	*bytes = 0;
	return c->cfg.algo->sends(&c->cfg, r, s, i, c->msg_bytes, peer,
				  bytes);
}

/* ibex_coll_recv_bytes() of the running collective. */
static inline uint64_t
coll_recv_bytes(const struct ibex_coll *c, unsigned int r, unsigned int s)
{
	return c->cfg.algo->recv_bytes(&c->cfg, r, s, c->msg_bytes);
}

uint64_t
ibex_coll_recv_bytes(const struct ibex_coll_cfg *cfg, unsigned int r,
		     unsigned int s)
{
	return cfg->algo->recv_bytes(cfg, r, s, ibex_coll_msg_bytes(cfg));
}

double
ibex_coll_busbw_factor(const struct ibex_coll_algo *a, unsigned int n)
{
	return a != NULL ? a->busbw_factor(n) : 1.0;
}

int
ibex_coll_init(struct ibex_coll *c, const struct ibex_coll_cfg *cfg)
{
	unsigned int n = cfg->nranks;

	unsigned int nsteps;

	if (n < 2 || n > IBEX_COLL_MAX_RANKS || cfg->payload_max == 0 ||
	    cfg->algo == NULL || cfg->root >= n)
		return -EINVAL;
	if (cfg->straggler.rank >= (int)n)
		return -EINVAL;
	nsteps = ibex_coll_nsteps(cfg);
	if ((uint64_t)n * nsteps > IBEX_COLL_MAX_CELLS)
		return -E2BIG;
	memset(c, 0, sizeof(*c));
	c->cfg = *cfg;
	c->msg_bytes = ibex_coll_msg_bytes(cfg);
	c->nsteps = (uint16_t)nsteps;
	c->rng = cfg->seed;
	c->rank = calloc(n, sizeof(*c->rank));
	c->rx_got = calloc((size_t)n * nsteps, sizeof(*c->rx_got));
	c->step_max = calloc(nsteps, sizeof(*c->step_max));
	c->step_sum = calloc(nsteps, sizeof(*c->step_sum));
	if (c->rank == NULL || c->rx_got == NULL || c->step_max == NULL ||
	    c->step_sum == NULL) {
		ibex_coll_fini(c);
		return -ENOMEM;
	}
	return 0;
}

void
ibex_coll_fini(struct ibex_coll *c)
{
	free(c->rank);
	free(c->rx_got);
	free(c->step_max);
	free(c->step_sum);
	c->rank = NULL;
	c->rx_got = NULL;
	c->step_max = NULL;
	c->step_sum = NULL;
}

/* Rank r becomes ready for step s at now: set up its transfers, or, when
 * the straggler draw says so, hold it back by the delay first. */
static void
step_begin(struct ibex_coll *c, unsigned int r, unsigned int s, uint64_t now,
	   bool draw)
{
	struct ibex_coll_rank *k = &c->rank[r];
	const struct ibex_gen_straggler *st = &c->cfg.straggler;
	uint16_t peer;
	uint64_t bytes;

	k->step = (uint16_t)s;
	k->nsend = (uint16_t)coll_send(c, r, s, 0, &peer, &bytes);
	/* a step in which the rank neither sends nor receives (an extra
	 * rank of halving-doubling waiting) has nothing to be late for */
	if (draw && st->rank == (int)r && st->delay > 0 &&
	    (k->nsend > 0 || coll_recv_bytes(c, r, s) > 0) &&
	    !(st->once && k->late_iter) &&
	    ibex_gen_rand_unit(&c->rng) < st->prob) {
		k->state = IBEX_COLL_DELAYED;
		k->start_at = now + st->delay;
		k->late++;
		k->late_iter = true;
		return;
	}
	/* once: a step with traffic on time is the rank's first too */
	if (draw && st->once &&
	    (k->nsend > 0 || coll_recv_bytes(c, r, s) > 0))
		k->late_iter = true;
	k->send_idx = 0;
	k->send_left = k->nsend > 0 ? bytes : 0;
	k->xfer_bytes = k->send_left;
	k->peer = peer;
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
	       ibex_coll_rx_got(c, r, k->step) >=
	       coll_recv_bytes(c, r, k->step)) {
		if (now > c->step_max[k->step])
			c->step_max[k->step] = now;
		c->step_sum[k->step] += now;
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
	memset(c->rx_got, 0, (size_t)c->cfg.nranks * c->nsteps *
	       sizeof(*c->rx_got));
	memset(c->step_max, 0, c->nsteps * sizeof(*c->step_max));
	memset(c->step_sum, 0, c->nsteps * sizeof(*c->step_sum));
	for (r = 0; r < c->cfg.nranks; r++) {
		c->rank[r].tx_bytes = 0;
		c->rank[r].rx_bytes = 0;
		c->rank[r].done_at = 0;
		c->rank[r].late_iter = false;
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
	uint16_t peer;
	uint64_t bytes;
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
			coll_send(c, r, k->step, k->send_idx, &peer, &bytes);
			k->send_left = bytes;
			k->xfer_bytes = k->send_left;
			k->peer = peer;
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
	c->rx_got[(size_t)dst * c->nsteps + step] += payload;
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
	uint64_t idle = 0;
	unsigned int s;

	/* sum over ranks of (slowest - done) = n x slowest - sum of done */
	for (s = 0; s < c->nsteps; s++)
		idle += (uint64_t)c->cfg.nranks * c->step_max[s] -
			c->step_sum[s];
	return idle;
}
