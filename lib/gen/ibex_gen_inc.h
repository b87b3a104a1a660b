/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_GEN_INC_H
#define IBEX_GEN_INC_H

/**
 * @file
 * In-network all-reduce as its ranks see it (the generator's `inc`
 * engine, docs/aggregation.md): each rank sends its vector once, in
 * chunks, to the switch above it, and takes every chunk's sum back. Pure
 * C, no EAL; time is a tick count passed in.
 *
 * The window is the job's slots at the switch, as SwitchML's: chunk c
 * goes in slot c % slots, and a slot's next chunk (c + slots) is sent
 * once the rank holds the result of c. A slot's uses are numbered on
 * across iterations (sequence = the switch's use number, its low bit the
 * shadow copy). A contribution whose result has not come back after the
 * RTO is sent again, flagged as a retransmission; the switch answers it
 * with the result, or with the partial sum sent up again, never summing
 * it twice.
 *
 * The values are rank-seeded: element e of rank r in iteration i is
 * f(i, e) + g(r), both integers in [-512, 512), so every element of every
 * result must equal n f(i, e) + sum g. Every partial sum is an integer
 * below 2^24 in magnitude for up to 16,384 ranks, exact in binary32 in
 * any order: an fp32 result is checked bit for bit whatever tree summed
 * it. A rank checks every element of every result it takes.
 */

#include <stdbool.h>
#include <stdint.h>

#include "ibex_agg_proto.h"
#include "ibex_gen_coll.h"

/** The schedule as the generator's tables and reports see it: one step,
 * each rank's S bytes out and S back, busbw as NCCL's all-reduce
 * (2(n-1)/n). Not a collective of ibex_coll's state machine. */
extern const struct ibex_coll_algo ibex_coll_inc;

/** Most ranks an fp32 job's exact check holds for (2^24 / 1024). */
#define IBEX_INC_MAX_RANKS 16384

/** Most jobs run at once (as many as ibex-fabric plans). */
#define IBEX_INC_MAX_JOBS 64

struct ibex_inc_cfg {
	uint16_t nranks;      /**< 2..IBEX_INC_MAX_RANKS */
	uint32_t job;         /**< the switches' job id (every rank's, unless
				   rank_job gives each its own) */
	uint8_t dtype;        /**< IBEX_AGG_INT32 or IBEX_AGG_FP32 */
	uint64_t elems;       /**< elements of the message, >= 1 */
	uint16_t chunk;       /**< elements a packet, 1..IBEX_AGG_MAX_ELEMS */
	uint16_t slots;       /**< the job's slots: chunks in flight a rank
				   (with rank_slots: at least the largest) */
	uint64_t rto;         /**< ticks before a contribution is sent again;
				   0: never */
	uint64_t seed;
	/** A rank that joins late (ibex_gen_coll.h; delay in ticks; rank
	 * -1: none): with probability prob it sends nothing of an iteration
	 * until delay after its start, as a rank whose compute ended late.
	 * An iteration is one step, so `once` changes nothing. */
	struct ibex_gen_straggler straggler;
	/** Each rank's child index at its switch (its place among the
	 * switch's children, the topology's business); NULL: rank r is
	 * child r, as on one switch. Copied by ibex_inc_init(). */
	const uint16_t *child;
	/** Several jobs at once, each its own tree, slots and sum: each
	 * rank's job id and its job's slots (1..slots); NULL: every rank in
	 * cfg.job with cfg.slots. At most IBEX_INC_MAX_JOBS ids. Copied by
	 * ibex_inc_init(). */
	const uint32_t *rank_job;
	const uint16_t *rank_slots;
};

/** One job of a run: its ranks sum among themselves. */
struct ibex_inc_job {
	uint32_t id;
	uint16_t nranks;
	uint16_t slots;
	int64_t g_sum;        /**< sum over its ranks of g(r) */
};

/** What a rank did with a result (ibex_inc_rx()). */
enum ibex_inc_rx {
	IBEX_INC_RX_OK = 0,   /**< a chunk's result, every element right */
	IBEX_INC_RX_WRONG,    /**< a chunk's result with wrong elements */
	IBEX_INC_RX_STALE,    /**< a result the rank already holds */
	IBEX_INC_RX_BAD,      /**< not a result of this job for this rank's
				   window (malformed, other job, future use) */
};

/** One rank's counters (all iterations). */
struct ibex_inc_rank_stats {
	uint64_t sent;        /**< contributions sent, first time */
	uint64_t resent;      /**< sent again after the RTO */
	uint64_t results;     /**< results taken */
	uint64_t wrong;       /**< of them with a wrong element */
	uint64_t elems_wrong; /**< elements that were not the sum */
	uint64_t stale;       /**< results held already */
	uint64_t bad;         /**< refused (enum ibex_inc_rx BAD) */
	uint64_t late;        /**< iterations it joined late (straggler) */
};

struct ibex_inc_slot;
struct ibex_inc_rank;

/** A job in progress: one iteration at a time. */
struct ibex_inc {
	struct ibex_inc_cfg cfg;
	uint32_t nchunks;     /**< ceil(elems / chunk) */
	uint32_t iter;        /**< iterations started */
	uint64_t t0;          /**< start of the current iteration */
	uint16_t ndone;       /**< ranks holding every result */
	uint16_t njobs;
	struct ibex_inc_job job[IBEX_INC_MAX_JOBS];
	uint64_t rng;         /**< the straggler's draws (seeded by cfg) */
	struct ibex_inc_rank *rank;   /**< [nranks] */
	struct ibex_inc_slot *slot;   /**< [nranks * slots] */
	uint16_t *pending;            /**< [nranks * slots]: each rank's
					   slots to send, a ring */
	uint16_t *child;              /**< [nranks] (cfg.child) */
};

/** Check and set up @p x (zeroed, or emptied by ibex_inc_fini()).
 * @return 0, -EINVAL (a bad cfg) or -ENOMEM. */
int ibex_inc_init(struct ibex_inc *x, const struct ibex_inc_cfg *cfg);
void ibex_inc_fini(struct ibex_inc *x);

/** A new message of @p elems elements and values of @p seed, between
 * iterations: the slots' use numbers go on, as the switches' do (a job
 * that started again at 0 would meet slots holding later uses).
 * @return 0, or -EINVAL (the cfg would be refused). */
int ibex_inc_resize(struct ibex_inc *x, uint64_t elems, uint64_t seed);

/** Start the next iteration at @p now: each rank has its first chunks
 * (one a slot) to send, the straggler perhaps only after its delay. */
void ibex_inc_start(struct ibex_inc *x, uint64_t now);

/**
 * Rank @p r's next contribution at @p now, if it has one to send (a new
 * chunk, or one past its RTO): its header in @p h and its @p h->count
 * elements, little-endian, in @p elems (room for cfg.chunk). The rank
 * counts it sent at @p now. @return false when the rank has nothing to
 * send now.
 */
bool ibex_inc_next(struct ibex_inc *x, uint16_t r, uint64_t now,
		   struct ibex_agg_hdr *h, void *elems);

/** A packet (the UDP payload, @p len bytes) for rank @p r at @p now:
 * checked element by element when it is a result the rank waits for. */
enum ibex_inc_rx ibex_inc_rx(struct ibex_inc *x, uint16_t r, const void *pkt,
			     uint32_t len, uint64_t now);

/** Whether rank @p r holds every result of this iteration, and when it
 * took the last (ticks). */
bool ibex_inc_rank_done(const struct ibex_inc *x, uint16_t r,
			uint64_t *done_at);

/** Whether every rank does. */
static inline bool
ibex_inc_done(const struct ibex_inc *x)
{
	return x->ndone == x->cfg.nranks;
}

/** The earliest tick at which rank @p r has something to send (now or a
 * retransmission falling due); UINT64_MAX for nothing until a result. */
uint64_t ibex_inc_next_due(const struct ibex_inc *x, uint16_t r);

/** Rank @p r's counters. */
const struct ibex_inc_rank_stats *ibex_inc_stats(const struct ibex_inc *x,
						 uint16_t r);

/** The element rank @p r sends at @p e in iteration @p iter, and the sum
 * rank @p r must get back there, its job's (int32: wrapping; fp32:
 * exact). */
int32_t ibex_inc_value(const struct ibex_inc *x, uint32_t iter, uint16_t r,
		       uint64_t e);
int64_t ibex_inc_expected(const struct ibex_inc *x, uint32_t iter,
			  uint16_t r, uint64_t e);

#endif /* IBEX_GEN_INC_H */
