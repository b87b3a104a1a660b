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
 * Pure logic: no EAL. The data path builds groups from the configuration
 * in its tables and calls ibex_ecmp_pick() only for frames whose FDB entry
 * names a group.
 */

#include <stdbool.h>
#include <stdint.h>

#include "ibex_common.h"

#define IBEX_ECMP_BUCKETS 256

struct ibex_ecmp_group {
	uint16_t n;                              /**< members (0: no group) */
	uint16_t port[IBEX_ECMP_MAX_MEMBERS];    /**< member ports */
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
 */
static inline int
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

#endif /* IBEX_ECMP_H */
