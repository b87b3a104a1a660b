/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_FABRIC_PART_H
#define IBEX_FABRIC_PART_H

/**
 * @file
 * Partitioning a fabric over processes, for a virtual-time run split
 * over MPI (docs/simulation.md, "Beyond one machine"). Pure: no DPDK,
 * no MPI; the result depends on the topology and the count alone.
 *
 * The rule, in the order it is applied:
 *  1. **Groups.** The switches of the top tier (the highest up/down rank,
 *     ibex_fabric_rank(), of 2 or more whose switches, set aside, cut the
 *     ranks apart: a leaf-spine's spines, a fat tree's cores) are set
 *     aside when the fabric has such a tier; what is left
 *     falls apart into its connected components: a leaf-spine's leaves
 *     with their ranks, a fat tree's pods, a rail fabric's rail switches.
 *     When there are fewer components than processes, each switch below
 *     the top tier is a group of its own, with the ranks linked to it.
 *  2. **Blocks.** The groups, in declaration order, are dealt to the
 *     partitions in contiguous blocks of about equal weight, a group's
 *     weight the link ends of its nodes (each is a port a switch polls or
 *     a rank the generator drives: the work of a run grows with them).
 *     Every partition gets at least one group (pins, applied after, can
 *     leave one empty; the plan shows it).
 *  3. **Top tier.** The top tier's switches, in declaration order, are
 *     dealt in contiguous blocks of equal count.
 *  4. **Pins.** A node may name its partition in the topology file
 *     (`partition: P`); a pinned switch takes the ranks linked to it
 *     unless they are pinned themselves.
 *
 * A frame that crosses from one partition to another arrives no sooner
 * than the link's propagation delay after it was sent, plus the switch
 * latency when a switch sends it (ibex-fabric --switch-latency): the
 * smallest of these over the links that cross is the **lookahead**, how
 * far a partition may run ahead of the others. A crossing link without
 * delay leaves none, and is refused.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ibex_fabric.h"

/** Most partitions (processes) of one run. */
#define IBEX_FABRIC_PART_MAX 4096

/** What one partition holds. */
struct ibex_fabric_part_size {
	uint32_t switches;
	uint32_t ranks;
	uint32_t ends;         /**< link ends of its nodes */
	uint32_t cross;        /**< of them, on links to another partition */
};

struct ibex_fabric_partition {
	uint32_t n_parts;
	uint32_t *part;        /**< [n_nodes]: each node's partition */
	/** The smallest delay (ps) from a send in one partition to its
	 * arrival in another; UINT64_MAX when no link crosses. */
	uint64_t lookahead_ps;
	uint32_t lookahead_link; /**< the link that sets it, or NONE */
	uint32_t cross_links;  /**< links whose ends are in two partitions */
	uint32_t groups;       /**< groups of the rule's step 1 */
	bool fine;             /**< step 1 fell back to a switch a group */
	struct ibex_fabric_part_size *size; /**< [n_parts] */
};

/**
 * Partition the fabric @p f, whose nodes' up/down ranks are set
 * (ibex_fabric_rank() or ibex_fabric_route()), over @p n_parts
 * processes, with @p switch_latency_ps added to every wire a switch
 * sends on.
 * @return 0, or -EINVAL with the reason in @p err ("origin:line: ..." for
 *   a pin or a link): a count of 0 or above IBEX_FABRIC_PART_MAX, more
 *   partitions than the fabric has groups, a pin beyond the count, a
 *   crossing link without delay; -ENOMEM.
 */
int ibex_fabric_partition(const struct ibex_fabric *f, uint32_t n_parts,
			  uint64_t switch_latency_ps,
			  struct ibex_fabric_partition *p, char *err,
			  size_t errlen);

void ibex_fabric_partition_free(struct ibex_fabric_partition *p);

/**
 * Write the plan: a line per partition (switches, ranks, link ends,
 * crossing ends) and the lookahead with the link that sets it.
 * @return 0 or -EIO.
 */
int ibex_fabric_partition_print(const struct ibex_fabric *f,
				const struct ibex_fabric_partition *p,
				FILE *out);

#endif /* IBEX_FABRIC_PART_H */
