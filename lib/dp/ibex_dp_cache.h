/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_DP_CACHE_H
#define IBEX_DP_CACHE_H

#include <stdint.h>

#include <rte_common.h>

/** Slots of a worker's MAC caches (power of two). */
#define IBEX_MAC_CACHE 256

/**
 * A worker's private memory of FDB answers, in front of the shared table
 * (like OVS's exact-match cache): the common case of a few busy stations
 * costs one compare instead of a lock-free probe with its re-checks. A slot
 * is trusted only while the FDB version it was filled under is current.
 */
struct ibex_mac_slot {
	uint64_t key;            /**< vid << 48 | mac; 0 = empty */
	uint32_t version;        /**< ibex_fdb_version() when filled */
	uint32_t until_ms;       /**< source slots: no re-check before this */
	uint16_t port;
};

/**
 * The worker's first-level cache: one probe answers both questions a frame
 * asks (is its source known and fresh on this port? where does its
 * destination go?) for the (dst, vid, src, in_port) it was filled for.
 */
struct ibex_flow_slot {
	uint64_t key0;           /**< header bytes 0-7: dst mac, src 0-1 */
	uint64_t key1;           /**< bytes 8-11 (src 2-5) | (vid |
				      in_port << 12 | sl << 18) << 32 */
	uint32_t until_ms;       /**< the source needs no re-check before this */
	uint32_t ans;            /**< egress port | its lane << 16 |
				      the ingress lane << 20 */
} __rte_aligned(32);         /* a probe never straddles two cache lines */

#endif /* IBEX_DP_CACHE_H */
