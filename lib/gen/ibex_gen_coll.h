/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_GEN_COLL_H
#define IBEX_GEN_COLL_H

/**
 * @file
 * The collective engines as dependency-driven state machines: which
 * rank sends what to whom in each step, and when a rank may go on. Time
 * is a tick count passed in; nothing here reads a clock or allocates.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ibex_gen_limits.h"

struct ibex_coll_cfg;

/**
 * One collective algorithm (ops, as DPDK testpmd's struct fwd_engine): its
 * step count and, per rank and step, what it sends and what it must
 * receive before it may go on. The state machine (ibex_coll_*) is the
 * same for all; it calls these once per step, never per frame.
 */
struct ibex_coll_algo {
	const char *name;
	/** Steps for @p n ranks. */
	unsigned int (*nsteps)(unsigned int n);
	/** Transfers of rank @p r in step @p s. @return how many; transfer
	 * @p i (when below that) in @p peer and @p bytes. One transfer at a
	 * time: an all-to-all rank has n - 1 of them. */
	unsigned int (*sends)(const struct ibex_coll_cfg *cfg, unsigned int r,
			      unsigned int s, unsigned int i, uint64_t msg,
			      uint16_t *peer, uint64_t *bytes);
	/** Input bytes rank @p r needs in step @p s of a @p msg message. */
	uint64_t (*recv_bytes)(const struct ibex_coll_cfg *cfg, unsigned int r,
			       unsigned int s, uint64_t msg);
	/** Bus bandwidth factor (nccl-tests) for @p n ranks. */
	double (*busbw_factor)(unsigned int n);
	bool whole_msg;   /**< S is moved as it is (not rounded up to n) */
	/** S is rounded up to a multiple of the largest power of two <= n
	 * (halving-doubling's blocks), not of n */
	bool round_pow2;
};

/** ring all-reduce: 2(n-1) steps of S/n */
extern const struct ibex_coll_algo ibex_coll_ring;
/** halving-doubling all-reduce: 2 log2 p rounds, p the largest power of
 * two <= n, and a step before and after them when p < n */
extern const struct ibex_coll_algo ibex_coll_hd;
/** every rank sends S to the root */
extern const struct ibex_coll_algo ibex_coll_incast;
/** every rank sends S/n to every other rank */
extern const struct ibex_coll_algo ibex_coll_alltoall;

/** Straggler injection: rank @p rank starts each step late by @p delay
 * ticks with probability @p prob (rank -1: none); with @p once, only its
 * first step of each iteration that has traffic: a rank whose compute
 * ended late joins the collective late, and is on time after. */
struct ibex_gen_straggler {
	int rank;
	uint64_t delay;
	double prob;
	bool once;
};

/** Configuration of one collective (one message size). */
struct ibex_coll_cfg {
	const struct ibex_coll_algo *algo; /**< ibex_coll_ring, ... */
	uint16_t nranks;             /**< 2..IBEX_COLL_MAX_RANKS (ranks x
					  steps at most IBEX_COLL_MAX_CELLS) */
	uint16_t root;               /**< INCAST destination */
	uint64_t bytes;              /**< S, rounded up to a multiple of nranks
					  (hd: of the largest power of two
					  <= nranks) */
	uint32_t payload_max;        /**< application bytes per frame (>= 1) */
	struct ibex_gen_straggler straggler;
	uint64_t seed;
};

/** One frame the engine wants sent. */
struct ibex_gen_pkt {
	uint16_t src;
	uint16_t dst;
	uint16_t step;
	uint8_t opcode;     /**< IBEX_GEN_OP_* by position in the message */
	uint32_t payload;   /**< application bytes */
};

enum ibex_coll_state {
	IBEX_COLL_IDLE = 0,  /**< iteration not started */
	IBEX_COLL_DELAYED,   /**< straggler: step starts at start_at */
	IBEX_COLL_SEND,      /**< sending this step's data */
	IBEX_COLL_WAIT,      /**< sent; waiting for this step's input */
	IBEX_COLL_DONE,      /**< every step complete */
};

/** One rank's progress. */
struct ibex_coll_rank {
	uint8_t state;       /**< enum ibex_coll_state */
	uint16_t step;
	uint16_t nsend;      /**< transfers of this step */
	uint16_t send_idx;   /**< transfer being sent */
	uint16_t peer;       /**< destination of the transfer being sent */
	uint64_t send_left;  /**< its bytes not yet framed */
	uint64_t xfer_bytes; /**< size of the transfer being sent */
	uint64_t start_at;   /**< DELAYED until this tick */
	uint64_t tx_bytes;   /**< application bytes sent this iteration */
	uint64_t rx_bytes;   /**< application bytes received this iteration */
	uint64_t late;       /**< straggler delays applied (all iterations) */
	bool late_iter;      /**< a delay applied in this iteration */
	uint64_t done_at;    /**< tick the last step completed */
};

/**
 * A collective in progress: one iteration at a time. Rank r starts step
 * s + 1 only when it has sent all of step s and received all of step s's
 * input (the dependency that turns network tail latency into collective
 * tail latency). Input for a later step may arrive early and is counted
 * against that step.
 */
struct ibex_coll {
	struct ibex_coll_cfg cfg;
	/** ibex_coll_msg_bytes(&cfg), kept: a frame's turn asks for it
	 * several times, and it costs a 64-bit division each */
	uint64_t msg_bytes;
	uint16_t nsteps;
	uint16_t ndone;                   /**< ranks DONE */
	uint32_t iter;                    /**< iterations started */
	uint64_t t0;                      /**< start of the current iteration */
	uint64_t rng;
	uint64_t stale_rx;                /**< frames of another iteration */
	/* Allocated by ibex_coll_init() for cfg.nranks and nsteps. */
	struct ibex_coll_rank *rank;      /**< [nranks] */
	/** input bytes received per (rank, step) this iteration:
	 * [rank * nsteps + step] (ibex_coll_rx_got()) */
	uint64_t *rx_got;
	/** per step, this iteration: the tick its slowest rank completed
	 * it, and the sum over ranks of the ticks they did (mod 2^64: only
	 * differences are used), for the idle rank time */
	uint64_t *step_max;
	uint64_t *step_sum;
};

/** Input bytes rank @p r received for step @p s this iteration. */
static inline uint64_t
ibex_coll_rx_got(const struct ibex_coll *c, unsigned int r, unsigned int s)
{
	return c->rx_got[(size_t)r * c->nsteps + s];
}

/**
 * Halving-doubling's transfer of rank @p r (of @p n) in step @p s: to
 * @p peer, blocks [@p lo, @p hi) of the message cut into p blocks, p the
 * largest power of two <= n (the whole message: [0, p) in the step
 * before and after the halving and doubling, when p < n). Each rank
 * sends at most one transfer a step and receives at most one.
 * @return 1, or 0 when rank @p r sends nothing in step @p s.
 */
unsigned int ibex_coll_hd_xfer(unsigned int n, unsigned int r, unsigned int s,
			       uint16_t *peer, unsigned int *lo,
			       unsigned int *hi);

/** Steps of a collective (ring 2(n-1), hd 2 log2 n for a power of two,
 * else 2 log2 p + 2, incast/alltoall 1). */
unsigned int ibex_coll_nsteps(const struct ibex_coll_cfg *cfg);

/**
 * Transfers rank @p r sends in step @p s: peers in @p peer, bytes in
 * @p bytes (room for nranks - 1). @return how many.
 */
unsigned int ibex_coll_sends(const struct ibex_coll_cfg *cfg, unsigned int r,
			     unsigned int s, uint16_t *peer, uint64_t *bytes);

/** Input bytes rank @p r must receive in step @p s before it may go on. */
uint64_t ibex_coll_recv_bytes(const struct ibex_coll_cfg *cfg, unsigned int r,
			      unsigned int s);

/** Message size actually moved for @p bytes (rounded up to n; hd: to the
 * largest power of two <= n). */
uint64_t ibex_coll_msg_bytes(const struct ibex_coll_cfg *cfg);

/**
 * Check and set up @p c (zeroed, or emptied by ibex_coll_fini()): its
 * per-rank and per-(rank, step) arrays are allocated for cfg->nranks and
 * the algorithm's step count.
 * @return 0, -EINVAL (bad rank count, root or straggler out
 *   of range), -E2BIG (nranks x steps above IBEX_COLL_MAX_CELLS: a ring
 *   beyond 4,096 ranks) or -ENOMEM.
 */
int ibex_coll_init(struct ibex_coll *c, const struct ibex_coll_cfg *cfg);

/** Free what ibex_coll_init() allocated; @p c may be initialised again.
 * A zeroed @p c is fine. */
void ibex_coll_fini(struct ibex_coll *c);

/** Start the next iteration at @p now: every rank begins step 0. */
void ibex_coll_start(struct ibex_coll *c, uint64_t now);

/**
 * Next frame of rank @p r at @p now. The caller commits to sending it.
 * @return true with @p p filled, false when the rank has nothing to send
 *   now (delayed, waiting for input, or done).
 */
bool ibex_coll_tx(struct ibex_coll *c, unsigned int r, uint64_t now,
		  struct ibex_gen_pkt *p);

/**
 * Whether ibex_coll_tx() of rank @p r at @p now could return a frame:
 * false means it would return false and change nothing, so a caller may
 * skip it (and the mbuf it would need).
 */
static inline bool
ibex_coll_may_tx(const struct ibex_coll *c, unsigned int r, uint64_t now)
{
	const struct ibex_coll_rank *k = &c->rank[r];

	return k->state == IBEX_COLL_SEND ||
	       (k->state == IBEX_COLL_DELAYED && now >= k->start_at);
}

/**
 * @p payload application bytes for rank @p dst in step @p step of
 * iteration @p iter (low 16 bits) arrived at @p now. Frames of another
 * iteration are counted as stale and ignored.
 */
void ibex_coll_rx(struct ibex_coll *c, unsigned int dst, unsigned int step,
		  uint32_t iter, uint32_t payload, uint64_t now);

/** True when every rank finished the current iteration. */
static inline bool
ibex_coll_done(const struct ibex_coll *c)
{
	return c->ndone == c->cfg.nranks;
}

/** Iteration completion time: last rank's finish - start. */
uint64_t ibex_coll_elapsed(const struct ibex_coll *c);

/**
 * Idle rank time of the finished iteration: for each step, the sum over
 * ranks of (slowest rank's completion of the step - this rank's).
 */
uint64_t ibex_coll_idle(const struct ibex_coll *c);

/** Bus bandwidth factor (nccl-tests): ring/hd 2(n-1)/n, alltoall (n-1)/n,
 * incast n-1 (the root's link carries (n-1) S). */
double ibex_coll_busbw_factor(const struct ibex_coll_algo *a, unsigned int n);

#endif /* IBEX_GEN_COLL_H */
