/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_FABRIC_AGG_H
#define IBEX_FABRIC_AGG_H

/**
 * @file
 * Aggregation trees for in-network all-reduce (docs/aggregation.md,
 * "Trees"), computed by the fabric manager beside the routes, as
 * InfiniBand's SHARP Aggregation Manager computes them beside the subnet
 * manager. Pure: no DPDK; the result depends on the topology, the jobs
 * and their order alone.
 *
 * The rule, for each job in the order given:
 *  1. **Leaves.** Each rank of the job hangs off one switch (its leaf);
 *     a leaf's children are its ranks of the job, in rank order, child
 *     index 0, 1, ... (the index each rank puts in its packets).
 *  2. **Root.** One leaf holds every rank: it is the root, the tree one
 *     switch. Otherwise the root is a switch of the lowest up/down tier
 *     (ibex_fabric_rank()) from which every leaf of the job is reached
 *     going down only (a spine of a leaf-spine, a core of a fat tree, or
 *     a pod's aggregation switch when the job fits in a pod). Among
 *     those, the one whose switches would have the most free slots left
 *     at the tightest of them, then the fewest slots the other trees
 *     take on its switches, then the fewest jobs rooted there, then
 *     declaration order: jobs spread over the spines, cores and a pod's
 *     aggregation switches.
 *  3. **Branches.** From the root down, each switch's parent is the first
 *     switch of the tier above, in the root's breadth-first search by
 *     port order, that reaches it: the down-paths of up/down routing. A
 *     switch is in the tree when leaves of the job lie below it; its
 *     children are, in port order, those switches, or at a leaf its
 *     ranks.
 *  4. **Slots.** Every switch of the tree gives the job its n_slots from
 *     its pool (capacity, a count per switch). A tree that would take
 *     more than a switch has left is not taken; the next root is tried.
 *     A job no root can serve is refused, and runs as a ring: the plan
 *     says so and why (the switch that was shortest of slots). A switch
 *     has at most as many children as ports, which lib/agg's bitmap
 *     holds (IBEX_FABRIC_AGG_MAX_CHILDREN).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ibex_fabric.h"

/** Most jobs one plan holds. */
#define IBEX_FABRIC_AGG_MAX_JOBS 64
/** Most children of one switch in one tree (lib/agg's bitmap). */
#define IBEX_FABRIC_AGG_MAX_CHILDREN 64
/** Longest job name, with its NUL. */
#define IBEX_FABRIC_AGG_NAME_LEN 32

/** What a job asks for. */
struct ibex_fabric_agg_req {
	char name[IBEX_FABRIC_AGG_NAME_LEN];
	uint32_t id;          /**< the job id its packets carry */
	uint32_t n_ranks;
	uint32_t *ranks;      /**< rank indexes (the file's rank nodes in
				   order, as the generator numbers them),
				   increasing */
	uint32_t n_slots;     /**< slots it takes at each switch of its tree */
};

/** One switch of a job's tree. */
struct ibex_fabric_agg_sw {
	uint32_t node;        /**< its node index */
	uint32_t parent;      /**< index in the tree's sw[], or NONE: root */
	uint16_t up_port;     /**< its port towards the parent */
	uint16_t up_child;    /**< its child index at the parent */
	uint16_t n_children;
	/** child i: the port it is reached by, and the node there */
	uint16_t child_port[IBEX_FABRIC_AGG_MAX_CHILDREN];
	uint32_t child_node[IBEX_FABRIC_AGG_MAX_CHILDREN];
};

/** A job's place in the plan. */
struct ibex_fabric_agg_tree {
	bool refused;         /**< no tree: the job runs as a ring */
	char why[192];        /**< refused: the reason, in words */
	uint32_t n_sw;
	struct ibex_fabric_agg_sw *sw;   /**< root first, then by tier down */
	uint32_t depth;       /**< switch levels, 1 for a single switch */
};

struct ibex_fabric_agg_plan {
	uint32_t n_jobs;
	struct ibex_fabric_agg_tree tree[IBEX_FABRIC_AGG_MAX_JOBS];
	uint32_t *slots_used; /**< [n_nodes]: slots the trees take there */
	uint32_t *roots;      /**< [n_nodes]: trees rooted there */
};

/**
 * Plan trees for @p n_jobs jobs @p req on fabric @p f (its nodes' up/down
 * ranks set: ibex_fabric_rank()), every switch's pool holding
 * @p capacity slots. A job that cannot have a tree is refused in the
 * plan (tree.refused, tree.why), not an error.
 * @return 0; -EINVAL with the reason in @p err for a request that is
 *   wrong in itself (no ranks, a rank beyond the fabric's, ranks not
 *   increasing, no slots, two jobs of one id, too many jobs); -ENOMEM.
 */
int ibex_fabric_agg_plan(const struct ibex_fabric *f,
			 const struct ibex_fabric_agg_req *req,
			 uint32_t n_jobs, uint32_t capacity,
			 struct ibex_fabric_agg_plan *plan, char *err,
			 size_t errlen);

void ibex_fabric_agg_plan_free(struct ibex_fabric_agg_plan *plan);

/**
 * Parse "NAME:ID:RANKS[:SLOTS]" (RANKS as "0-7,16,20-23"; SLOTS 64 when
 * not given) into @p req, its ranks allocated (free them).
 * @return 0, or -EINVAL with the reason in @p err; -ENOMEM.
 */
int ibex_fabric_agg_req_parse(const char *s, struct ibex_fabric_agg_req *req,
			      char *err, size_t errlen);

/** The slots a job takes at each switch when it does not say. */
#define IBEX_FABRIC_AGG_SLOTS_DEF 64

/**
 * Write the plan: per job its root, levels and switches, each with its
 * parent (port, child index) and children; a refused job with why; then
 * the slots in use at each switch that has any. @return 0 or -EIO.
 */
int ibex_fabric_agg_plan_print(const struct ibex_fabric *f,
			       const struct ibex_fabric_agg_req *req,
			       const struct ibex_fabric_agg_plan *plan,
			       uint32_t capacity, FILE *out);

/**
 * Switch @p node's part of the plan in ibex's configuration grammar: an
 * `aggregation job ID children P,P,... parent P|root up-child N slots S
 * elements E` line for each tree it is in (docs/aggregation.md), the
 * ports by their names at @p node, @p elements elements a packet.
 * @return the lines written, or -EIO.
 */
int ibex_fabric_agg_render(const struct ibex_fabric *f,
			   const struct ibex_fabric_agg_req *req,
			   const struct ibex_fabric_agg_plan *plan,
			   uint32_t node, uint16_t elements, FILE *out);

#endif /* IBEX_FABRIC_AGG_H */
