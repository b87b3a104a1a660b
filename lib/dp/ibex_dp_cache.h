/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_DP_CACHE_H
#define IBEX_DP_CACHE_H

/**
 * @file
 * A worker's caches in front of the FDB (lib/dp internal, like OVS's
 * dpif-netdev-private-dfc.h): the flow cache, one probe per frame in the
 * common case, and the source and destination MAC caches behind it. All
 * per frame, so all static inline; one writer, the worker owning them.
 * What fills a slot on a miss (learning, the FDB lookup) is ibex_dp.c's.
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>

#include "ibex_common.h"

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

/*
 * (vid, mac) as one 64-bit key. The MAC is read with one 8-byte load and
 * masked (dst at offset 0 and src at 6 both have 8 readable bytes inside the
 * 14-byte header): a 6-byte copy through the stack would make the next load
 * wait for two narrow stores to be forwarded.
 */
static inline uint64_t
ibex_mac_key(const uint8_t *mac, uint16_t vid)
{
	uint64_t k;

	memcpy(&k, mac, sizeof(k));
	return (k & UINT64_C(0xffffffffffff)) | (uint64_t)vid << 48;
}

/* Slot index of a key in any of the worker's caches (IBEX_MAC_CACHE slots). */
static inline uint32_t
ibex_cache_index(uint64_t key)
{
	return (key * UINT64_C(0x9E3779B97F4A7C15)) >>
	       (64 - __builtin_ctz(IBEX_MAC_CACHE));
}

static inline struct ibex_mac_slot *
ibex_mac_cache_slot(struct ibex_mac_slot *cache, uint64_t key)
{
	return &cache[ibex_cache_index(key)];
}

/* A flow slot's answer (see flow_lookup() in ibex_dp.c). */
#define IBEX_FLOW_OUT(a) ((uint16_t)(a))
#define IBEX_FLOW_VL(a) (((a) >> 16) & 0xfu)
#define IBEX_FLOW_IN_VL(a) (((a) >> 20) & 0xfu) /* lane charged at ingress */
#define IBEX_FLOW_CHECK 0x80000000u /* not from the cache: check it all */

/*
 * A flow's key in two words: the header's first 8 bytes (destination MAC
 * and the source's first two) and its next 4 (the rest of the source)
 * with VLAN, ingress port and SL above them: two loads, no masking.
 */
struct ibex_flow_key {
	uint64_t k0, k1;
};

/* The part of the key that is not in the header (k1's upper half): the
 * same for all frames of a burst but tagged ones in PCP mode. */
static inline __rte_always_inline uint64_t
ibex_flow_key_tag(uint16_t vid, uint16_t in_port, unsigned int sl)
{
	RTE_BUILD_BUG_ON(IBEX_MAX_PORTS > 64);
	return (uint64_t)(vid | (uint32_t)in_port << 12 | sl << 18) << 32;
}

/* A key bit above the tag's fields: an ECMP flow's slot (flow_lookup()). */
#define IBEX_FLOW_KEY_ECMP (UINT64_C(1) << 54)

static inline __rte_always_inline struct ibex_flow_key
ibex_flow_key_make(const uint8_t *eth, uint64_t tag)
{
	struct ibex_flow_key k;
	uint32_t src_tail;

	memcpy(&k.k0, eth, sizeof(k.k0));
	memcpy(&src_tail, eth + 8, sizeof(src_tail));
	k.k1 = src_tail | tag;
	return k;
}

static inline __rte_always_inline struct ibex_flow_slot *
ibex_flow_cache_slot(struct ibex_flow_slot *cache, struct ibex_flow_key k)
{
	return &cache[ibex_cache_index(k.k0 ^ (k.k1 * 31))];
}

static inline __rte_always_inline bool
ibex_flow_hit(const struct ibex_flow_slot *f, struct ibex_flow_key k,
	      uint32_t now_ms)
{
	return f->key0 == k.k0 && f->key1 == k.k1 &&
	       (int32_t)(f->until_ms - now_ms) > 0;
}

/* The flow cache alone: whether it holds the answer (then in @p ans). */
static inline __rte_always_inline bool
ibex_flow_probe(struct ibex_flow_slot *cache, const uint8_t *eth,
		uint64_t tag, uint32_t now_ms, uint32_t *ans)
{
	struct ibex_flow_key k = ibex_flow_key_make(eth, tag);
	const struct ibex_flow_slot *f = ibex_flow_cache_slot(cache, k);

	if (likely(ibex_flow_hit(f, k, now_ms))) {
		*ans = f->ans;
		return true;
	}
	return false;
}

#endif /* IBEX_DP_CACHE_H */
