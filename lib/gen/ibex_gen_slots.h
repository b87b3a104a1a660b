/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_GEN_SLOTS_H
#define IBEX_GEN_SLOTS_H

/**
 * @file
 * Compact flow slots: one slot per (source, destination) rank pair a run
 * uses, numbered source by source and, within a source, by destination
 * (slot = base[src] + the destination's index in src's sorted list). The
 * runner's per-flow tables (frame templates, QP cursors, classes) and the
 * measurement's per-sub-flow arrays are to be sized and indexed by it
 * instead of a dense src x ranks + dst: a ring of n ranks uses n pairs,
 * halving-doubling n log2 n, incast n - 1, all-to-all n (n - 1).
 * Built once at create; looked up per frame (a binary search over one
 * source's destinations: one compare for a ring, 10 for all-to-all of
 * 1,024 ranks). Pure: no EAL.
 */

#include <stdint.h>

#include "ibex_gen_coll.h"

/**
 * Most pairs of one run: 2^20, all-to-all of 1,024 ranks (1,047,552
 * pairs) and halving-doubling of 16,384 (229,376) fit; all-to-all of
 * 1,025 ranks and more is refused (docs/generator.md, "Limits and
 * memory").
 */
#define IBEX_GEN_MAX_PAIRS (UINT32_C(1) << 20)

struct ibex_gen_slots {
	uint32_t nranks;
	uint32_t npairs;
	uint32_t *base;  /**< [nranks + 1]: src's first slot; base[n] = npairs */
	uint16_t *dst;   /**< [npairs]: each source's destinations, ascending */
};

/**
 * The pairs of collective @p cfg (its algorithm's transfers over every
 * rank and step), at most @p max_pairs.
 * @return 0, -EINVAL (no ranks, or a peer out of range), -E2BIG (more
 * pairs than @p max_pairs) or -ENOMEM; on error @p sl holds nothing.
 */
int ibex_gen_slots_coll(struct ibex_gen_slots *sl,
			const struct ibex_coll_cfg *cfg, uint32_t max_pairs);

/**
 * The pairs listed in @p pairs (src << 16 | dst each, any order, repeats
 * allowed) over @p nranks ranks, at most @p max_pairs.
 * @return as ibex_gen_slots_coll().
 */
int ibex_gen_slots_pairs(struct ibex_gen_slots *sl, uint32_t nranks,
			 const uint32_t *pairs, uint32_t count,
			 uint32_t max_pairs);

/** Free what a builder allocated (a zeroed @p sl too). */
void ibex_gen_slots_free(struct ibex_gen_slots *sl);

/** Bytes the slot index itself takes. */
static inline uint64_t
ibex_gen_slots_bytes(const struct ibex_gen_slots *sl)
{
	return (uint64_t)(sl->nranks + 1) * sizeof(*sl->base) +
	       (uint64_t)sl->npairs * sizeof(*sl->dst);
}

/**
 * Slot of pair (@p src, @p dst). @return 0 .. npairs - 1, or -1 when the
 * run does not use that pair (a stray frame).
 */
static inline int32_t
ibex_gen_slot(const struct ibex_gen_slots *sl, uint32_t src, uint32_t dst)
{
	uint32_t lo, hi;

	if (src >= sl->nranks)
		return -1;
	lo = sl->base[src];
	hi = sl->base[src + 1];
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (sl->dst[mid] < dst)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < sl->base[src + 1] && sl->dst[lo] == dst ? (int32_t)lo : -1;
}

/**
 * Sub-flow of queue pair @p qp of slot @p slot: the index of the
 * measurement's per-QP tables (a QP has its own sequence and PSN space),
 * qp x npairs + slot. With one QP per connection it is the slot.
 */
static inline uint32_t
ibex_gen_subflow(const struct ibex_gen_slots *sl, uint32_t slot,
		 unsigned int qp)
{
	return qp * sl->npairs + slot;
}

/** The slot (rank pair) of sub-flow @p sf. */
static inline uint32_t
ibex_gen_subflow_slot(const struct ibex_gen_slots *sl, uint32_t sf)
{
	return sf % sl->npairs;
}

/** The queue pair of sub-flow @p sf. */
static inline unsigned int
ibex_gen_subflow_qp(const struct ibex_gen_slots *sl, uint32_t sf)
{
	return sf / sl->npairs;
}

/** Destination rank of slot @p slot. */
static inline unsigned int
ibex_gen_slot_dst(const struct ibex_gen_slots *sl, uint32_t slot)
{
	return sl->dst[slot];
}

#endif /* IBEX_GEN_SLOTS_H */
