/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_AGG_H
#define IBEX_AGG_H

/**
 * @file
 * In-network aggregation (all-reduce) in a switch: the slots of one
 * worker lcore, their state machine, sums, duplicate detection and reuse
 * rule. Pure C, no EAL; time is passed in. docs/aggregation.md has the
 * semantics.
 *
 * A job is a tree: hosts at the leaves, switches inside, one root. At
 * each switch a job has n_slots slot indices, each with two sets (shadow
 * copies, as SwitchML's); a (slot, set) holds one use at a time, numbered
 * by the packet's sequence (use u is in set u & 1). A use sums one chunk
 * from each of the switch's n_children children; when all have
 * contributed, the sum goes up to the parent, or at the root down to
 * every child as the result. A non-root switch passes the parent's result
 * down. A contribution already counted is never summed again: answered
 * with the result once there is one, with the partial sum sent up again
 * while the parent's result is awaited, dropped otherwise. A (slot, set)
 * takes its next use (u + 2) only once it holds use u's result: a child
 * cannot start u + 2 before it got u + 1's result, which needs every
 * leaf's u + 1, which each sent only after it got u's result; so no one
 * can still want u's.
 *
 * fp32 sums are reproducible: a use keeps each child's values until the
 * last arrives and then adds them in child-index order, whatever order
 * they came in (memory: n_children chunks a (slot, set), the first holding
 * child 0's values and then the sum). int32 sums
 * are exact (wrapping) in any order and are added as they come.
 *
 * Sharding: a pool belongs to one worker lcore and holds only the slots
 * ibex_agg_worker_of() gives that worker, so no slot is ever touched by
 * two. Nothing is allocated per packet: ibex_agg_pool_create() allocates
 * the pool's memory, ibex_agg_job_add() carves a job's slots from it.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ibex_agg_proto.h"

/** Children of one switch in one job at most (the bitmap's width). */
#define IBEX_AGG_MAX_CHILDREN 64
/** Buckets of the last-contributor wait histogram: [2^i, 2^(i+1)) ns,
 * the last one open. */
#define IBEX_AGG_WAIT_BUCKETS 32

/** A pool: one worker's shard. */
struct ibex_agg_pool_conf {
	uint64_t mem_bytes;   /**< slot memory (headers and values) */
	uint32_t max_jobs;    /**< jobs at most */
	uint16_t worker;      /**< this pool's worker, 0..n_workers - 1 */
	uint16_t n_workers;   /**< workers the slots are sharded over */
};

/** A job at this switch. */
struct ibex_agg_job_conf {
	uint32_t job;         /**< id, as in the packets */
	uint16_t n_slots;     /**< slot indices 0..n_slots - 1 (all workers) */
	uint16_t n_children;  /**< 1..IBEX_AGG_MAX_CHILDREN */
	uint16_t max_elems;   /**< elements a packet carries at most */
	uint16_t up_child;    /**< this switch's child index at its parent */
	bool root;            /**< the tree's root: results go down from here */
};

/** The counters of a pool; one writer (its worker), read with
 * IBEX_CNT_READ() from any thread. */
struct ibex_agg_stats {
	uint64_t contributions;   /**< summed (each child's chunk once) */
	uint64_t duplicates;      /**< contributions already counted */
	uint64_t partials_sent;   /**< sums sent up (first time) */
	uint64_t partials_resent; /**< sent up again: a child retransmitted */
	uint64_t results_sent;    /**< results sent down to all children */
	uint64_t results_replied; /**< a result sent again to one child */
	uint64_t results_rx;      /**< results from the parent taken */
	uint64_t results_dup;     /**< results from the parent again */
	uint64_t malformed[IBEX_AGG_E_MAX]; /**< refused by the codec */
	uint64_t no_job;          /**< job not on this switch */
	uint64_t not_mine;        /**< slot of another worker */
	uint64_t bad_slot;        /**< slot index beyond the job's */
	uint64_t bad_child;       /**< child index beyond the job's */
	uint64_t too_long;        /**< more elements than the job's max */
	uint64_t mismatch;        /**< offset, count or type differ in a use */
	uint64_t stale;           /**< for a use already replaced */
	uint64_t early;           /**< for a use the slot cannot take yet */
	uint64_t result_unexpected; /**< a result no slot waits for */
	uint64_t jobs_refused;    /**< ibex_agg_job_add() said no */
	uint64_t slots_in_use;    /**< gauge: (slot, set)s in a use */
	/** The wait of a use for its last contributor (first to last
	 * arrival): count, sum, max and histogram. */
	uint64_t wait_count, wait_ns_sum, wait_ns_max;
	uint64_t wait_hist[IBEX_AGG_WAIT_BUCKETS];
};

/** The scalar counters of struct ibex_agg_stats that add up over pools,
 * X(field), for code that goes over all of them (sums across workers);
 * malformed[], wait_ns_max and wait_hist[] are not in it. */
#define IBEX_AGG_STATS_FIELDS(X) \
	X(contributions) X(duplicates) X(partials_sent) X(partials_resent) \
	X(results_sent) X(results_replied) X(results_rx) X(results_dup) \
	X(no_job) X(not_mine) X(bad_slot) X(bad_child) X(too_long) \
	X(mismatch) X(stale) X(early) X(result_unexpected) X(jobs_refused) \
	X(slots_in_use) X(wait_count) X(wait_ns_sum)

/** What to send after a packet (ibex_agg_rx()). */
enum ibex_agg_action {
	IBEX_AGG_NONE = 0,    /**< nothing (a partial use, or refused) */
	IBEX_AGG_UP,          /**< out->hdr and out->elems to the parent */
	IBEX_AGG_DOWN,        /**< to every child (out->hdr.child ALL) */
	IBEX_AGG_REPLY,       /**< to child out->hdr.child only */
};

/** A packet to send: build it with ibex_agg_build(buf, cap, &hdr, elems).
 * elems points into the slot: valid until the next ibex_agg_rx(). */
struct ibex_agg_out {
	struct ibex_agg_hdr hdr;
	const void *elems;
};

struct ibex_agg_pool;

/** The worker of slot @p slot of job @p job among @p n_workers: both sets
 * of a slot, and so every use of it, on one worker; a job's consecutive
 * slots on consecutive workers, starting at a worker the job id picks. */
uint16_t ibex_agg_worker_of(uint32_t job, uint16_t slot, uint16_t n_workers);

/** A pool as @p c says, its memory allocated. @return NULL on a bad
 * conf (reason in @p err) or without memory. */
struct ibex_agg_pool *ibex_agg_pool_create(const struct ibex_agg_pool_conf *c,
					   char *err, size_t errlen);
void ibex_agg_pool_free(struct ibex_agg_pool *p);

/** Bytes of pool memory job @p c takes on worker @p worker of
 * @p n_workers. */
uint64_t ibex_agg_job_bytes(const struct ibex_agg_job_conf *c,
			    uint16_t worker, uint16_t n_workers);

/** Add job @p c, every slot idle. @return 0; -EINVAL (bad conf), -EEXIST,
 * -ENOSPC (no job entry or memory left: the pool is exhausted), the
 * reason in @p err, counted in jobs_refused. */
int ibex_agg_job_add(struct ibex_agg_pool *p, const struct ibex_agg_job_conf *c,
		     char *err, size_t errlen);
/** Remove job @p job and give its memory back. @return 0 or -ENOENT. */
int ibex_agg_job_del(struct ibex_agg_pool *p, uint32_t job);

/** A packet (the UDP payload, @p len bytes) at @p now_ns: it is parsed,
 * checked and applied; what to send goes to @p out. Never fails: a packet
 * refused is counted under its reason. */
enum ibex_agg_action ibex_agg_rx(struct ibex_agg_pool *p, const void *pkt,
				 uint32_t len, uint64_t now_ns,
				 struct ibex_agg_out *out);

/** The pool's counters. */
const struct ibex_agg_stats *ibex_agg_stats(const struct ibex_agg_pool *p);

#endif /* IBEX_AGG_H */
