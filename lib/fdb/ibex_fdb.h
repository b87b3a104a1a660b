/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_FDB_H
#define IBEX_FDB_H

/**
 * @file
 * The forwarding database: (MAC, VLAN) -> port, static and learned entries,
 * ageing, a size limit, and the flood rule.
 *
 * Concurrency: one writer (the control thread) and any number of lock-free
 * readers (the workers). Workers never write the table; they post what
 * they saw with ibex_fdb_learn() called by the control thread on their
 * behalf (the data path queues learn requests on a ring). A reader that
 * races with a change sees either the old or the new entry, never a mix:
 * every slot is a (key, value) pair of 64-bit words and the reader checks
 * the key again after reading the value (see ibex_fdb.c).
 *
 * Time is passed in by the caller in milliseconds (any epoch; wrap-safe
 * 32-bit arithmetic), so the table is testable without a clock.
 */

#include <stdbool.h>
#include <stdint.h>

#include "ibex_common.h"
#include "ibex_counter.h"

struct ibex_fdb;

struct ibex_fdb_params {
	uint32_t max_entries; /**< most entries, static + learned (>= 1) */
	uint32_t ageing_ms;   /**< learned entries unseen this long are removed; 0 = never */
};

/** One entry, as the reader or the iterator sees it. */
struct ibex_fdb_entry {
	uint8_t mac[6];
	uint16_t vid;
	uint16_t port;          /**< a port, or IBEX_EGRESS_ECMP | group (static only) */
	bool is_static;
	uint32_t last_seen_ms; /**< learned entries: last time the source was seen */
};

/** Outcome of ibex_fdb_learn(). */
enum ibex_fdb_learn_result {
	IBEX_FDB_NEW = 0,      /**< entry added */
	IBEX_FDB_REFRESHED,    /**< same port, timestamp updated */
	IBEX_FDB_MOVED,        /**< entry moved to another port */
	IBEX_FDB_STATIC,       /**< a static entry exists: left as it is */
	IBEX_FDB_FULL,         /**< table full: not learned */
	IBEX_FDB_INVALID,      /**< group MAC or bad VID/port: not learned */
};

/** Counters kept by the writer. */
struct ibex_fdb_stats {
	uint32_t entries;      /**< current entries */
	uint32_t static_entries;
	uint64_t learned;      /**< NEW results */
	uint64_t moved;
	uint64_t aged;
	uint64_t flushed;      /**< learned entries removed: their port's link went down */
	uint64_t full;         /**< learn attempts refused by the size limit */
};

/**
 * The FDB's counters (struct ibex_fdb_stats), listed once for every view
 * (show fdb, /ibex/fdb, the final --json, the summary): X(key, field,
 * help). One writer, the control thread (IBEX_CNT_ADD); any thread reads
 * them through ibex_fdb_get_stats().
 */
#define IBEX_FDB_COUNTERS(X) \
	X(entries, entries,        "entries now (static and learned)") \
	X(static,  static_entries, "static entries now") \
	X(learned, learned,        "stations learned (new entries) since start") \
	X(moved,   moved,          "learned stations seen on another port since start") \
	X(aged,    aged,           "learned entries aged out since start") \
	X(flushed, flushed,        "learned entries flushed since start: their port's link went down") \
	X(full,    full,           "learn attempts refused: the table was full")

/** Allocate an empty table. @return NULL with errno set. */
struct ibex_fdb *ibex_fdb_create(const struct ibex_fdb_params *params);
void ibex_fdb_free(struct ibex_fdb *fdb);

/* ---- reader side: any thread, lock-free, no writes ---- */

/** Egress of (mac, vid): a port, an ECMP group (ibex_egress_is_ecmp()), or
 * IBEX_PORT_NONE when unknown. */
uint16_t ibex_fdb_lookup(const struct ibex_fdb *fdb, const uint8_t *mac,
			 uint16_t vid);

/** Like lookup, with the whole entry. @return true when found. */
bool ibex_fdb_get(const struct ibex_fdb *fdb, const uint8_t *mac,
		  uint16_t vid, struct ibex_fdb_entry *out);

/**
 * A number that changes whenever an entry moves to another port or is
 * removed. Readers that cache answers (the workers' MAC caches) keep an
 * answer only while the version they cached it under is current; new
 * entries do not change it, as no cached answer can be contradicted by one.
 */
uint32_t ibex_fdb_version(const struct ibex_fdb *fdb);

/* ---- writer side: one thread only ---- */

/** Add or replace a static entry (never aged, never moved by learning).
 * @p port is a port or an ECMP group (IBEX_EGRESS_ECMP | group).
 * @return 0, -ENOSPC when full, -EINVAL for a bad argument. */
int ibex_fdb_add_static(struct ibex_fdb *fdb, const uint8_t *mac,
			uint16_t vid, uint16_t port);

/** A static entry as ibex_fdb_set_statics() takes it. */
struct ibex_fdb_static {
	uint8_t mac[6];
	uint16_t vid;
	uint16_t port;          /**< a port or IBEX_EGRESS_ECMP | group */
};

/** Why ibex_fdb_set_statics() refused a change (nothing changed). */
struct ibex_fdb_refusal {
	uint32_t index;         /**< entry of @p next: the bad one (-EINVAL),
				     the first that needs room (-ENOSPC) */
	uint32_t need;          /**< entries the change adds (new keys) */
	uint32_t room;          /**< free entries, with those it removes */
	uint32_t removes;       /**< static entries the change removes */
	uint32_t max_entries;
	uint32_t static_entries; /**< now */
	uint32_t learned;       /**< now */
};

/**
 * Replace the static entries @p prev (those the table was given) with
 * @p next, whole or not at all. A key (MAC, VLAN) of @p prev that @p next
 * does not name is removed; every entry of @p next is added, or replaces
 * the entry of its key in place (a learned station, a static entry on
 * another port): it needs no room and readers never miss it. A key named
 * by both is never removed, not even for a moment.
 *
 * Everything is checked before anything is written: each entry of
 * @p next as ibex_fdb_add_static() would, and that the new keys fit in
 * the free entries plus those the change removes. Learned entries are
 * never evicted for a static one. The check and the writes are one call
 * of the one writer, and learning runs on that thread too, so nothing
 * takes the room in between; readers see each entry old or new, and the
 * removals before the additions (the room they leave is what the
 * additions use).
 *
 * @return 0; -EINVAL (a bad entry) or -ENOSPC (no room), with @p why
 * filled (may be NULL) and the table untouched.
 */
int ibex_fdb_set_statics(struct ibex_fdb *fdb,
			 const struct ibex_fdb_static *prev, uint32_t nb_prev,
			 const struct ibex_fdb_static *next, uint32_t nb_next,
			 struct ibex_fdb_refusal *why);

/** Record that @p mac was seen as a source on @p port at @p now_ms. */
enum ibex_fdb_learn_result ibex_fdb_learn(struct ibex_fdb *fdb,
					  const uint8_t *mac, uint16_t vid,
					  uint16_t port, uint32_t now_ms);

/** Remove an entry (static or learned). @return 0 or -ENOENT. */
int ibex_fdb_del(struct ibex_fdb *fdb, const uint8_t *mac, uint16_t vid);

/** Remove learned entries not seen for ageing_ms. @return how many. */
uint32_t ibex_fdb_age(struct ibex_fdb *fdb, uint32_t now_ms);

/** Remove all learned entries on @p port (link down). @return how many. */
uint32_t ibex_fdb_flush_port(struct ibex_fdb *fdb, uint16_t port);

/** Change the ageing time of a live table. */
void ibex_fdb_set_ageing(struct ibex_fdb *fdb, uint32_t ageing_ms);

/** Call @p cb for every entry; stop early when it returns non-zero. */
int ibex_fdb_foreach(const struct ibex_fdb *fdb,
		     int (*cb)(const struct ibex_fdb_entry *e, void *arg),
		     void *arg);

void ibex_fdb_get_stats(const struct ibex_fdb *fdb, struct ibex_fdb_stats *st);

/* ---- flooding ---- */

/**
 * Ports a frame of VLAN @p vid that arrived on @p in_port is flooded to:
 * every member port of the VLAN except the ingress port.
 *
 * @param members  per-VID port membership masks (IBEX_VLAN_COUNT entries)
 */
static inline uint64_t
ibex_flood_mask(const uint64_t *members, uint16_t vid, uint16_t in_port)
{
	return members[vid & (IBEX_VLAN_COUNT - 1)] & ~(UINT64_C(1) << in_port);
}

#endif /* IBEX_FDB_H */
