/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ibex forwarding database.
 *
 * Layout
 * ------
 * Open addressing with linear probing over a power-of-two array of slots,
 * at least twice max_entries, so a live load factor stays <= 1/2. A slot is
 * two 64-bit C11 atomics:
 *
 *   key   = 0                                  empty (never used)
 *         = FDB_TOMB (1)                       deleted
 *         = 1 << 63 | vid << 48 | mac (48 bit) live entry
 *   value = port << 48 | flags << 32 | last_seen_ms
 *
 * A live key always has bit 63 set, so it can equal neither marker. The
 * home slot is the top bits of key * 2^64/phi (Fibonacci hashing): one
 * multiply, and every key bit reaches the bits we keep.
 *
 * Invariant (P): for a live key K at slot j with home slot h, every slot of
 * [h, j) is non-empty. Lookups therefore stop at the first empty slot and
 * skip tombstones.
 *
 * Writer protocol (one control thread)
 * ------------------------------------
 *  - insert into an empty or tombstone slot: fence(release); value
 *    (relaxed); key (release). The fence orders the earlier store that
 *    retired the slot's previous key before the new value, see below.
 *  - update of a live entry (refresh, move, static over learned): value
 *    only. The key does not change, so any value a reader sees is one this
 *    key had.
 *  - delete: key := TOMB (release). If the next slot is empty, no live key
 *    can probe through this slot (P), so it and the tombstones right before
 *    it become empty again: tombstones do not pile up at cluster ends.
 *  - compaction, when tombstones exceed slots/4 after deletes: one pass in
 *    probe order starting after an empty slot moves every live entry to the
 *    first tombstone on its probe path (copy to the new slot, then
 *    tombstone the old one), after which no probe path crosses a tombstone
 *    and every tombstone becomes empty. Each move is bracketed by the
 *    generation counter (odd while moving), seqlock style.
 *
 * Reader protocol (workers, lock-free, no stores)
 * -----------------------------------------------
 *   g1 = gen (acquire)
 *   probe: k = key (acquire); on k == K: v = value (relaxed);
 *          fence(acquire); k2 = key (relaxed); k2 == K -> return v,
 *          otherwise the slot changed under us: probe again.
 *   miss:  fence(acquire); g2 = gen; g1 odd or g1 != g2 -> probe again.
 *   Probing again is bounded (FDB_READ_TRIES); then the answer is "none".
 *
 * Why a hit is never wrong: v is returned only if the key read before and
 * after v is K. If v was written for another key K' reusing the slot, the
 * writer stored TOMB (or empty) over K before its release fence and then
 * v; the reader read v, so by fence-fence synchronisation it reads the key
 * after that TOMB in modification order and k2 != K, unless K itself was
 * written again, in which case v belongs to K anyway. 64-bit atomics are
 * never torn, so the (port, flags, time) triple is always consistent.
 *
 * Why a miss is not spurious for an entry that stays in the table: plain
 * deletes and the empty-slot reclaim keep (P), so the entry's path never
 * shows an empty slot. Only a compaction move briefly has the entry in two
 * slots and could let a reader pass both; any store of a move or of the
 * tombstone-to-empty pass that follows it is after an odd generation
 * (release), so such a reader sees g1 != g2 and probes again. A miss for
 * an entry being deleted, added or moved by the user is a legal outcome
 * (the frame is flooded).
 *
 * On x86 (TSO) every fence and acquire/release here compiles to nothing
 * but a compiler barrier: a hit costs two key loads and one value load.
 */

#include <errno.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "ibex_fdb.h"

#define FDB_EMPTY	UINT64_C(0)
#define FDB_TOMB	UINT64_C(1)
#define FDB_K_VALID	(UINT64_C(1) << 63)
#define FDB_MAC_MASK	((UINT64_C(1) << 48) - 1)

#define FDB_V_PORT_SHIFT 48
#define FDB_V_STATIC	(UINT64_C(1) << 32)

#define FDB_HASH_MUL	UINT64_C(0x9E3779B97F4A7C15)
#define FDB_MIN_SLOTS	16u
/** Keeps the slot array below 2 GiB. */
#define FDB_MAX_ENTRIES	(UINT32_C(1) << 26)
/** Probe attempts of a reader before it answers "none". */
#define FDB_READ_TRIES	8

struct ibex_fdb_slot {
	_Atomic uint64_t key;
	_Atomic uint64_t val;
};

struct ibex_fdb {
	/* Read by every worker; written only at create and by compaction. */
	struct ibex_fdb_slot *slots;
	uint32_t mask;
	uint32_t shift;
	_Atomic uint32_t gen; /**< odd while a compaction move is visible */
	_Atomic uint32_t version; /**< bumped when an entry moves or goes */

	/* Writer only, kept off the readers' cache line. */
	alignas(64) uint32_t max_entries;
	uint32_t ageing_ms;
	uint32_t tombs;
	struct ibex_fdb_stats st;
};

static inline uint64_t
fdb_key(const uint8_t *mac, uint16_t vid)
{
	uint64_t m = (uint64_t)mac[0] << 40 | (uint64_t)mac[1] << 32 |
		(uint64_t)mac[2] << 24 | (uint64_t)mac[3] << 16 |
		(uint64_t)mac[4] << 8 | mac[5];

	return FDB_K_VALID | (uint64_t)vid << 48 | m;
}

static inline uint32_t
fdb_home(const struct ibex_fdb *fdb, uint64_t key)
{
	return (uint32_t)((key * FDB_HASH_MUL) >> fdb->shift);
}

static inline bool
fdb_live(uint64_t key)
{
	return (key & FDB_K_VALID) != 0;
}

static inline uint16_t
fdb_v_port(uint64_t v)
{
	return (uint16_t)(v >> FDB_V_PORT_SHIFT);
}

static inline uint64_t
fdb_value(uint16_t port, bool is_static, uint32_t now_ms)
{
	return (uint64_t)port << FDB_V_PORT_SHIFT |
		(is_static ? FDB_V_STATIC : 0) | now_ms;
}

static void
fdb_entry(uint64_t key, uint64_t v, struct ibex_fdb_entry *e)
{
	int i;

	for (i = 0; i < 6; i++)
		e->mac[i] = (uint8_t)(key >> (40 - 8 * i));
	e->vid = (uint16_t)((key >> 48) & (IBEX_VLAN_COUNT - 1));
	e->port = fdb_v_port(v);
	e->is_static = (v & FDB_V_STATIC) != 0;
	e->last_seen_ms = (uint32_t)v;
}

/* ---- reader side ---- */

/* One probe: 1 found (*val set), 0 not found, -1 the slot changed. */
static inline int
fdb_probe(const struct ibex_fdb *fdb, uint64_t key, uint64_t *val)
{
	const struct ibex_fdb_slot *s;
	uint32_t i = fdb_home(fdb, key);
	uint32_t n;
	uint64_t k, v;

	for (n = 0; n <= fdb->mask; n++, i = (i + 1) & fdb->mask) {
		s = &fdb->slots[i];
		k = atomic_load_explicit(&s->key, memory_order_acquire);
		if (k == key) {
			v = atomic_load_explicit(&s->val, memory_order_relaxed);
			atomic_thread_fence(memory_order_acquire);
			if (atomic_load_explicit(&s->key,
						 memory_order_relaxed) != key)
				return -1;
			*val = v;
			return 1;
		}
		if (k == FDB_EMPTY)
			break;
	}
	return 0;
}

static inline bool
fdb_find(const struct ibex_fdb *fdb, uint64_t key, uint64_t *val)
{
	uint32_t g1, g2;
	int tries, r;

	for (tries = 0; tries < FDB_READ_TRIES; tries++) {
		g1 = atomic_load_explicit(&fdb->gen, memory_order_acquire);
		r = fdb_probe(fdb, key, val);
		if (r > 0)
			return true;
		if (r < 0)
			continue;
		atomic_thread_fence(memory_order_acquire);
		g2 = atomic_load_explicit(&fdb->gen, memory_order_relaxed);
		if (g1 == g2 && (g1 & 1) == 0)
			return false;
	}
	return false;
}

uint16_t
ibex_fdb_lookup(const struct ibex_fdb *fdb, const uint8_t *mac, uint16_t vid)
{
	uint64_t v;

	if (ibex_unlikely(vid >= IBEX_VLAN_COUNT))
		return IBEX_PORT_NONE;
	if (!fdb_find(fdb, fdb_key(mac, vid), &v))
		return IBEX_PORT_NONE;
	return fdb_v_port(v);
}

bool
ibex_fdb_get(const struct ibex_fdb *fdb, const uint8_t *mac, uint16_t vid,
	     struct ibex_fdb_entry *out)
{
	uint64_t key, v;

	if (vid >= IBEX_VLAN_COUNT)
		return false;
	key = fdb_key(mac, vid);
	if (!fdb_find(fdb, key, &v))
		return false;
	fdb_entry(key, v, out);
	return true;
}

/* ---- writer side ---- */

/*
 * Slot of @p key, or UINT32_MAX. *ins receives the slot an insert would
 * take: the first tombstone on the path, else the empty slot ending it.
 * Only the writer calls this, so relaxed loads see its own latest stores.
 */
static uint32_t
fdb_wfind(const struct ibex_fdb *fdb, uint64_t key, uint32_t *ins)
{
	uint32_t i = fdb_home(fdb, key);
	uint32_t n;
	uint64_t k;

	*ins = UINT32_MAX;
	for (n = 0; n <= fdb->mask; n++, i = (i + 1) & fdb->mask) {
		k = atomic_load_explicit(&fdb->slots[i].key,
					 memory_order_relaxed);
		if (k == key)
			return i;
		if (k == FDB_TOMB && *ins == UINT32_MAX)
			*ins = i;
		if (k == FDB_EMPTY) {
			if (*ins == UINT32_MAX)
				*ins = i;
			break;
		}
	}
	return UINT32_MAX;
}

static inline uint64_t
fdb_wkey(const struct ibex_fdb *fdb, uint32_t i)
{
	return atomic_load_explicit(&fdb->slots[i].key, memory_order_relaxed);
}

static inline uint64_t
fdb_wval(const struct ibex_fdb *fdb, uint32_t i)
{
	return atomic_load_explicit(&fdb->slots[i].val, memory_order_relaxed);
}

static inline void
fdb_set_val(struct ibex_fdb *fdb, uint32_t i, uint64_t v)
{
	atomic_store_explicit(&fdb->slots[i].val, v, memory_order_relaxed);
}

static inline void
fdb_set_key(struct ibex_fdb *fdb, uint32_t i, uint64_t k)
{
	atomic_store_explicit(&fdb->slots[i].key, k, memory_order_release);
}

/* Publish (key, v) in slot i, which is empty or a tombstone. */
static void
fdb_publish(struct ibex_fdb *fdb, uint32_t i, uint64_t key, uint64_t v)
{
	/* The slot's old key was retired before this fence: a reader that
	 * sees the new value sees the old key gone on its second check. */
	atomic_thread_fence(memory_order_release);
	fdb_set_val(fdb, i, v);
	fdb_set_key(fdb, i, key);
}

static void
fdb_insert(struct ibex_fdb *fdb, uint32_t ins, uint64_t key, uint64_t v)
{
	if (fdb_wkey(fdb, ins) == FDB_TOMB)
		fdb->tombs--;
	fdb_publish(fdb, ins, key, v);
	IBEX_CNT_ADD(fdb->st.entries, 1);
	if (v & FDB_V_STATIC)
		IBEX_CNT_ADD(fdb->st.static_entries, 1);
}

/* Tell readers' caches that an answer they hold may be stale. */
static inline void
fdb_bump_version(struct ibex_fdb *fdb)
{
	atomic_fetch_add_explicit(&fdb->version, 1, memory_order_release);
}

/* Delete the live entry in slot i; compaction is left to the caller. */
static void
fdb_remove(struct ibex_fdb *fdb, uint32_t i)
{
	uint32_t j;

	if (fdb_wval(fdb, i) & FDB_V_STATIC)
		IBEX_CNT_SUB(fdb->st.static_entries, 1);
	IBEX_CNT_SUB(fdb->st.entries, 1);
	fdb_set_key(fdb, i, FDB_TOMB);
	fdb->tombs++;
	fdb_bump_version(fdb);

	/* Followed by an empty slot, no probe path crosses slot i (P), nor
	 * the tombstones just before it: they may all become empty. */
	if (fdb_wkey(fdb, (i + 1) & fdb->mask) != FDB_EMPTY)
		return;
	for (j = i; fdb_wkey(fdb, j) == FDB_TOMB; j = (j - 1) & fdb->mask) {
		fdb_set_key(fdb, j, FDB_EMPTY);
		fdb->tombs--;
	}
}

/* Move the live entry of slot j to the tombstone slot i on its path. */
static void
fdb_move(struct ibex_fdb *fdb, uint32_t j, uint32_t i)
{
	uint32_t g = atomic_load_explicit(&fdb->gen, memory_order_relaxed);

	atomic_store_explicit(&fdb->gen, g + 1, memory_order_relaxed);
	/* Readers that see any store below see the odd generation. */
	atomic_thread_fence(memory_order_release);
	fdb_publish(fdb, i, fdb_wkey(fdb, j), fdb_wval(fdb, j));
	fdb_set_key(fdb, j, FDB_TOMB);
	atomic_store_explicit(&fdb->gen, g + 2, memory_order_release);
}

/*
 * Remove every tombstone without rehashing into a new array (readers may
 * be probing this one). See the protocol at the top of the file.
 */
static void
fdb_compact(struct ibex_fdb *fdb)
{
	uint32_t e, s, n, j, i;
	uint64_t k;

	for (e = 0; e <= fdb->mask; e++)
		if (fdb_wkey(fdb, e) == FDB_EMPTY)
			break;
	if (e > fdb->mask)
		return; /* cannot happen: live + tombstones <= 3/4 of slots */

	/* Start after an empty slot so no probe path wraps the pass. */
	s = e + 1;
	for (n = 0; n < fdb->mask; n++) {
		j = (s + n) & fdb->mask;
		k = fdb_wkey(fdb, j);
		if (!fdb_live(k))
			continue;
		for (i = fdb_home(fdb, k); i != j; i = (i + 1) & fdb->mask) {
			if (fdb_wkey(fdb, i) == FDB_TOMB) {
				fdb_move(fdb, j, i);
				break;
			}
		}
	}
	/* No live probe path crosses a tombstone any more. */
	for (j = 0; j <= fdb->mask; j++)
		if (fdb_wkey(fdb, j) == FDB_TOMB)
			fdb_set_key(fdb, j, FDB_EMPTY);
	fdb->tombs = 0;
}

static void
fdb_maybe_compact(struct ibex_fdb *fdb)
{
	if (fdb->tombs > (fdb->mask + 1) / 4)
		fdb_compact(fdb);
}

struct ibex_fdb *
ibex_fdb_create(const struct ibex_fdb_params *params)
{
	struct ibex_fdb *fdb;
	uint32_t nslots = FDB_MIN_SLOTS, i;

	if (params == NULL || params->max_entries == 0 ||
	    params->max_entries > FDB_MAX_ENTRIES) {
		errno = EINVAL;
		return NULL;
	}
	while (nslots < 2 * params->max_entries)
		nslots <<= 1;

	fdb = aligned_alloc(alignof(struct ibex_fdb), sizeof(*fdb));
	if (fdb == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	memset(fdb, 0, sizeof(*fdb));
	/* nslots * 16 is a multiple of 64, as aligned_alloc wants. */
	fdb->slots = aligned_alloc(64, (size_t)nslots * sizeof(*fdb->slots));
	if (fdb->slots == NULL) {
		free(fdb);
		errno = ENOMEM;
		return NULL;
	}
	for (i = 0; i < nslots; i++) {
		atomic_init(&fdb->slots[i].key, FDB_EMPTY);
		atomic_init(&fdb->slots[i].val, 0);
	}
	fdb->mask = nslots - 1;
	fdb->shift = 64 - (uint32_t)__builtin_ctz(nslots);
	atomic_init(&fdb->gen, 0);
	fdb->max_entries = params->max_entries;
	fdb->ageing_ms = params->ageing_ms;
	return fdb;
}

void
ibex_fdb_free(struct ibex_fdb *fdb)
{
	if (fdb == NULL)
		return;
	free(fdb->slots);
	free(fdb);
}

static bool
fdb_static_ok(const uint8_t *mac, uint16_t vid, uint16_t port)
{
	return mac != NULL && vid < IBEX_VLAN_COUNT &&
	       (port < IBEX_MAX_PORTS || (ibex_egress_is_ecmp(port) &&
					  (port & 0xff) < IBEX_MAX_ECMP_GROUPS));
}

int
ibex_fdb_add_static(struct ibex_fdb *fdb, const uint8_t *mac, uint16_t vid,
		    uint16_t port)
{
	uint64_t key, v;
	uint32_t i, ins;

	if (fdb == NULL || !fdb_static_ok(mac, vid, port))
		return -EINVAL;
	key = fdb_key(mac, vid);
	v = fdb_value(port, true, 0);
	i = fdb_wfind(fdb, key, &ins);
	if (i != UINT32_MAX) {
		uint64_t old = fdb_wval(fdb, i);

		if ((old & FDB_V_STATIC) == 0)
			IBEX_CNT_ADD(fdb->st.static_entries, 1);
		fdb_set_val(fdb, i, v);
		if (fdb_v_port(old) != port)
			fdb_bump_version(fdb);
		return 0;
	}
	if (fdb->st.entries >= fdb->max_entries || ins == UINT32_MAX)
		return -ENOSPC;
	fdb_insert(fdb, ins, key, v);
	return 0;
}

/* Whether one of the first @p n entries of @p s has the key @p key. */
static bool
fdb_key_in(const struct ibex_fdb_static *s, uint32_t n, uint64_t key)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (s[i].vid < IBEX_VLAN_COUNT &&
		    fdb_key(s[i].mac, s[i].vid) == key)
			return true;
	return false;
}

/* Slot of the static entry @p prev[i] that @p next drops, or UINT32_MAX
 * (kept by @p next, named earlier in @p prev, absent, or not static). */
static uint32_t
fdb_dropped(const struct ibex_fdb *fdb, const struct ibex_fdb_static *prev,
	    uint32_t i, const struct ibex_fdb_static *next, uint32_t nb_next)
{
	uint32_t slot, ins;
	uint64_t key;

	if (prev[i].vid >= IBEX_VLAN_COUNT)
		return UINT32_MAX;
	key = fdb_key(prev[i].mac, prev[i].vid);
	if (fdb_key_in(prev, i, key) || fdb_key_in(next, nb_next, key))
		return UINT32_MAX;
	slot = fdb_wfind(fdb, key, &ins);
	if (slot == UINT32_MAX || (fdb_wval(fdb, slot) & FDB_V_STATIC) == 0)
		return UINT32_MAX;
	return slot;
}

/*
 * Check first, write after: n x m key comparisons (at most 1024 static
 * entries each side, once per change, on the control thread) buy a
 * change that never needs undoing while workers read.
 */
int
ibex_fdb_set_statics(struct ibex_fdb *fdb, const struct ibex_fdb_static *prev,
		     uint32_t nb_prev, const struct ibex_fdb_static *next,
		     uint32_t nb_next, struct ibex_fdb_refusal *why)
{
	struct ibex_fdb_refusal r = { .index = UINT32_MAX };
	uint32_t i, slot, ins, room;
	uint64_t key;
	int ret;

	if (fdb == NULL || (prev == NULL && nb_prev != 0) ||
	    (next == NULL && nb_next != 0))
		return -EINVAL;
	for (i = 0; i < nb_next; i++) {
		if (!fdb_static_ok(next[i].mac, next[i].vid, next[i].port)) {
			r.index = i;
			ret = -EINVAL;
			goto refused;
		}
		key = fdb_key(next[i].mac, next[i].vid);
		if (fdb_key_in(next, i, key) ||
		    fdb_wfind(fdb, key, &ins) != UINT32_MAX)
			continue;
		if (r.need++ == 0)
			r.index = i;
	}
	for (i = 0; i < nb_prev; i++)
		if (fdb_dropped(fdb, prev, i, next, nb_next) != UINT32_MAX)
			r.removes++;
	room = fdb->max_entries - fdb->st.entries + r.removes;
	if (r.need > room) {
		ret = -ENOSPC;
		goto refused;
	}

	/* Nothing below can fail: the removals first, then the rest. */
	for (i = 0; i < nb_prev; i++) {
		slot = fdb_dropped(fdb, prev, i, next, nb_next);
		if (slot == UINT32_MAX)
			continue;
		fdb_remove(fdb, slot);
		fdb_maybe_compact(fdb);
	}
	for (i = 0; i < nb_next; i++) {
		ret = ibex_fdb_add_static(fdb, next[i].mac, next[i].vid,
					  next[i].port);
		if (ret < 0)
			return ret; /* not reached: checked above */
	}
	return 0;

refused:
	r.room = fdb->max_entries - fdb->st.entries + r.removes;
	r.max_entries = fdb->max_entries;
	r.static_entries = fdb->st.static_entries;
	r.learned = fdb->st.entries - fdb->st.static_entries;
	if (why != NULL)
		*why = r;
	return ret;
}

enum ibex_fdb_learn_result
ibex_fdb_learn(struct ibex_fdb *fdb, const uint8_t *mac, uint16_t vid,
	       uint16_t port, uint32_t now_ms)
{
	uint64_t key, v;
	uint32_t i, ins;

	/* A group address is never a source; ports index 64-bit masks. */
	if (mac == NULL || (mac[0] & 1) != 0 || vid >= IBEX_VLAN_COUNT ||
	    port >= IBEX_MAX_PORTS)
		return IBEX_FDB_INVALID;
	key = fdb_key(mac, vid);
	i = fdb_wfind(fdb, key, &ins);
	if (i != UINT32_MAX) {
		v = fdb_wval(fdb, i);
		if (v & FDB_V_STATIC)
			return IBEX_FDB_STATIC;
		fdb_set_val(fdb, i, fdb_value(port, false, now_ms));
		if (fdb_v_port(v) == port)
			return IBEX_FDB_REFRESHED;
		fdb_bump_version(fdb);
		IBEX_CNT_ADD(fdb->st.moved, 1);
		return IBEX_FDB_MOVED;
	}
	if (fdb->st.entries >= fdb->max_entries || ins == UINT32_MAX) {
		IBEX_CNT_ADD(fdb->st.full, 1);
		return IBEX_FDB_FULL;
	}
	fdb_insert(fdb, ins, key, fdb_value(port, false, now_ms));
	IBEX_CNT_ADD(fdb->st.learned, 1);
	return IBEX_FDB_NEW;
}

int
ibex_fdb_del(struct ibex_fdb *fdb, const uint8_t *mac, uint16_t vid)
{
	uint32_t i, ins;

	if (mac == NULL || vid >= IBEX_VLAN_COUNT)
		return -ENOENT;
	i = fdb_wfind(fdb, fdb_key(mac, vid), &ins);
	if (i == UINT32_MAX)
		return -ENOENT;
	fdb_remove(fdb, i);
	fdb_maybe_compact(fdb);
	return 0;
}

uint32_t
ibex_fdb_age(struct ibex_fdb *fdb, uint32_t now_ms)
{
	uint32_t i, n = 0;
	uint64_t v;

	if (fdb->ageing_ms == 0)
		return 0;
	for (i = 0; i <= fdb->mask; i++) {
		if (!fdb_live(fdb_wkey(fdb, i)))
			continue;
		v = fdb_wval(fdb, i);
		/* Unsigned difference: right across the 2^32 ms wrap. */
		if ((v & FDB_V_STATIC) == 0 &&
		    (uint32_t)(now_ms - (uint32_t)v) >= fdb->ageing_ms) {
			fdb_remove(fdb, i);
			n++;
		}
	}
	IBEX_CNT_ADD(fdb->st.aged, n);
	fdb_maybe_compact(fdb);
	return n;
}

uint32_t
ibex_fdb_flush_port(struct ibex_fdb *fdb, uint16_t port)
{
	uint32_t i, n = 0;
	uint64_t v;

	for (i = 0; i <= fdb->mask; i++) {
		if (!fdb_live(fdb_wkey(fdb, i)))
			continue;
		v = fdb_wval(fdb, i);
		if ((v & FDB_V_STATIC) == 0 && fdb_v_port(v) == port) {
			fdb_remove(fdb, i);
			n++;
		}
	}
	IBEX_CNT_ADD(fdb->st.flushed, n);
	fdb_maybe_compact(fdb);
	return n;
}

uint32_t
ibex_fdb_version(const struct ibex_fdb *fdb)
{
	return atomic_load_explicit(&fdb->version, memory_order_acquire);
}

void
ibex_fdb_set_ageing(struct ibex_fdb *fdb, uint32_t ageing_ms)
{
	fdb->ageing_ms = ageing_ms;
}

int
ibex_fdb_foreach(const struct ibex_fdb *fdb,
		 int (*cb)(const struct ibex_fdb_entry *e, void *arg),
		 void *arg)
{
	const struct ibex_fdb_slot *s;
	struct ibex_fdb_entry e;
	uint64_t k, v;
	uint32_t i;
	int ret;

	/* Reader protocol per slot, so a thread other than the writer may
	 * walk the table too; an entry changing under it is skipped. */
	for (i = 0; i <= fdb->mask; i++) {
		s = &fdb->slots[i];
		k = atomic_load_explicit(&s->key, memory_order_acquire);
		if (!fdb_live(k))
			continue;
		v = atomic_load_explicit(&s->val, memory_order_relaxed);
		atomic_thread_fence(memory_order_acquire);
		if (atomic_load_explicit(&s->key, memory_order_relaxed) != k)
			continue;
		fdb_entry(k, v, &e);
		ret = cb(&e, arg);
		if (ret != 0)
			return ret;
	}
	return 0;
}

void
ibex_fdb_get_stats(const struct ibex_fdb *fdb, struct ibex_fdb_stats *st)
{
	/* The telemetry thread asks while the control thread (the only
	 * writer) learns and ages: each word whole, no lock. */
#define FDB_STAT_READ(key, field, help) st->field = IBEX_CNT_READ(fdb->st.field);
	IBEX_FDB_COUNTERS(FDB_STAT_READ)
#undef FDB_STAT_READ
}
