/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_ECMP_H
#define IBEX_ECMP_H

/**
 * @file
 * Equal-cost multipath: an FDB entry may name a group of egress ports
 * (`ecmp NAME ports p2,p3`, `fdb static MAC ecmp NAME`), and each frame
 * takes one member, chosen per flow so that a flow's frames stay in order.
 *
 * The choice, as a switch ASIC makes it: a hash of the frame's flow fields
 * indexes a table of IBEX_ECMP_BUCKETS buckets, each naming a member
 * (filled round robin, so members share the buckets evenly). The flow
 * fields are the IP addresses, the IP protocol and, for UDP, the ports:
 * RoCEv2 NICs vary the UDP source port per queue pair (the entropy field),
 * so it is added to the hash last and unmixed, and queue pairs with
 * consecutive source ports land in consecutive buckets: exactly even over
 * the members. Frames without IP hash their MAC addresses, VLAN and
 * EtherType. A per-switch seed changes the hash, so that switches of one
 * fabric do not all pick alike (polarisation).
 *
 * A member whose link is down is skipped: its flows spread over the
 * members that are up (the bucket's number picks one of them), and the
 * flows of the other members keep theirs.
 *
 * Adaptive groups (enum ibex_ecmp_mode) choose by load instead: the
 * data path measures it, ibex_ecmp_pick_least() and the flowlet table
 * below decide.
 *
 * Pure logic: no EAL. The data path builds groups from the configuration
 * in its tables and calls ibex_ecmp_pick() only for frames whose FDB entry
 * names a group.
 */

#include <stdbool.h>
#include <stdint.h>

#include "ibex_common.h"

#define IBEX_ECMP_BUCKETS 256

/**
 * How a group chooses (`ecmp NAME ... adaptive packet|flowlet GAP`):
 * by the flow hash, or adaptively, as Spectrum-X does: the member whose
 * egress would send the frame soonest (ibex_ecmp_pick_least()), for
 * every frame (packet: the receiver restores order) or for the first
 * frame of each flowlet (a flow's frames after a gap of more than the
 * group's flowlet gap: earlier frames have left, so a new path cannot
 * overtake them).
 */
enum ibex_ecmp_mode {
	IBEX_ECMP_HASH = 0,
	IBEX_ECMP_PACKET,
	IBEX_ECMP_FLOWLET,
};

/** "hash", "packet" or "flowlet": the grammar's and the views' name. */
const char *ibex_ecmp_mode_name(unsigned int mode);

struct ibex_ecmp_group {
	uint16_t n;                              /**< members (0: no group) */
	uint16_t port[IBEX_ECMP_MAX_MEMBERS];    /**< member ports */
	uint8_t mode;                            /**< enum ibex_ecmp_mode */
	uint64_t flowlet_tsc;                    /**< FLOWLET: the gap, ticks */
	uint64_t mask;                           /**< the members, as a port set */
	uint8_t bucket[IBEX_ECMP_BUCKETS];       /**< bucket -> member index */
};

/**
 * Build @p g from @p n distinct ports.
 * @return 0, or -EINVAL (no member, too many, a repeated or bad port).
 */
int ibex_ecmp_group_build(struct ibex_ecmp_group *g, const uint16_t *ports,
			  unsigned int n);

/**
 * The flow hash of the frame at @p frame (@p len bytes readable). It reads
 * the few fields it needs itself (one 802.1Q tag, IPv4 or IPv6, UDP),
 * never beyond @p len, so it costs less than a parse; a frame too short
 * for a header hashes what comes before it.
 */
uint32_t ibex_ecmp_hash(const uint8_t *frame, uint32_t len, uint32_t seed);

/**
 * The member of @p g for hash @p h, among the ports in @p up (a port set:
 * the ports that may send now).
 * @return the member's index in g->port[], or -1 when no member is up.
 * Always inlined: the data path calls it for every ECMP frame, and with
 * a second caller (the rare re-choice without the ingress port) GCC
 * would otherwise make it a call (+12 instructions per frame).
 */
static inline __attribute__((always_inline)) int
ibex_ecmp_pick(const struct ibex_ecmp_group *g, uint32_t h, uint64_t up)
{
	unsigned int b = h % IBEX_ECMP_BUCKETS, idx = g->bucket[b];
	uint64_t live;
	unsigned int i, k, rank;

	if (ibex_likely((up >> g->port[idx]) & 1))
		return (int)idx;
	live = g->mask & up;
	if (live == 0)
		return -1;
	/* The bucket's member is down: the (bucket mod live)-th member up,
	 * so its flows spread over the others. */
	rank = b % (unsigned int)__builtin_popcountll(live);
	for (i = 0, k = 0; i < g->n; i++)
		if (((live >> g->port[i]) & 1) && k++ == rank)
			return (int)i;
	return -1;
}

/** Load of a member that may not send now (paused, down): never chosen
 * while another may. */
#define IBEX_ECMP_LOAD_FULL UINT64_MAX

/**
 * Adaptive choice: the member with the least @p load (indexed like
 * g->port[]; any unit, e.g. the ticks its egress needs to send what it
 * holds), among those up in @p up. Ties go to the first in the order the
 * hash's bucket starts, so equal members still share flows.
 * @return the member's index, or -1 when no member is up.
 */
static inline int
ibex_ecmp_pick_least(const struct ibex_ecmp_group *g, uint32_t h, uint64_t up,
		     const uint64_t *load)
{
	unsigned int i, k, start = g->bucket[h % IBEX_ECMP_BUCKETS];
	uint64_t best = 0;
	int pick = -1;

	for (k = 0; k < g->n; k++) {
		i = start + k < g->n ? start + k : start + k - g->n;
		if (!((up >> g->port[i]) & 1))
			continue;
		if (pick < 0 || load[i] < best) {
			pick = (int)i;
			best = load[i];
		}
	}
	return pick;
}

/** Slots of a worker's flowlet table (a power of two). */
#define IBEX_FLOWLET_SLOTS 4096

/**
 * One flowlet: the flow (hash and group) that last used the slot, its
 * member and when its last frame went. A slot another flow takes over
 * starts a new flowlet for both: a collision costs a path choice, never
 * a reorder beyond the gap's guarantee.
 */
struct ibex_flowlet {
	uint32_t hash;
	uint8_t group;
	uint8_t member;
	uint64_t last_tsc;
};

/** The slot of flow hash @p h in group @p group. */
static inline struct ibex_flowlet *
ibex_flowlet_slot(struct ibex_flowlet *tab, uint32_t h, unsigned int group)
{
	return &tab[(h ^ ((group * UINT32_C(0x9e3779b1)) >> 16)) &
		    (IBEX_FLOWLET_SLOTS - 1)];
}

/**
 * The member of flow @p h's current flowlet, kept when its previous frame
 * went less than @p gap ticks before @p now and the member is in @p up.
 * @return the member index, or -1: a new flowlet (choose, then
 * ibex_flowlet_start()).
 */
static inline int
ibex_flowlet_member(const struct ibex_flowlet *f, uint32_t h,
		    unsigned int group, const struct ibex_ecmp_group *g,
		    uint64_t up, uint64_t now, uint64_t gap)
{
	if (f->hash == h && f->group == group && f->last_tsc != 0 &&
	    now - f->last_tsc <= gap && f->member < g->n &&
	    ((up >> g->port[f->member]) & 1))
		return f->member;
	return -1;
}

/** Note a frame of flow @p h sent on @p member at @p now. @return true
 * when the flow's previous flowlet took another member (a path change). */
static inline bool
ibex_flowlet_note(struct ibex_flowlet *f, uint32_t h, unsigned int group,
		  unsigned int member, uint64_t now)
{
	bool moved = f->hash == h && f->group == group && f->last_tsc != 0 &&
		     f->member != member;

	f->hash = h;
	f->group = (uint8_t)group;
	f->member = (uint8_t)member;
	f->last_tsc = now;
	return moved;
}

#endif /* IBEX_ECMP_H */
