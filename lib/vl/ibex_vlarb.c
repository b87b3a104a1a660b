/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * InfiniBand VL arbitration (IBA Vol 1 §7.6.9), one arbiter per egress
 * port. The rules and ibex's choices are in ibex_vlarb.h and
 * docs/virtual-lanes.md; this file says how they are made cheap.
 *
 * Each table keeps, per VL, a 64-bit mask of the entries (weight > 0)
 * that name it. OR-ing the masks of the eligible lanes gives the entries
 * that may take a turn now; that mask is cached per eligible set, so a
 * congested port whose set of busy lanes does not change pays one compare
 * per frame. Finding the next entry is a rotate-free "first set bit at or
 * after i" on that mask, never a walk over 64 entries.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ibex_vlarb.h"

enum { TAB_HIGH = 0, TAB_LOW = 1 };

int
ibex_vlarb_conf_default(struct ibex_vlarb_conf *c, unsigned int nb_vls)
{
	unsigned int v;

	if (nb_vls < 1 || nb_vls > IBEX_VL_DATA_MAX)
		return -EINVAL;
	memset(c, 0, sizeof(*c));
	for (v = 0; v < nb_vls; v++) {
		c->low[v].vl = (uint8_t)v;
		c->low[v].weight = IBEX_VLARB_DEFAULT_WEIGHT;
	}
	c->nb_low = (uint8_t)nb_vls;
	c->limit = 0;
	c->strict = false;
	return 0;
}

static int
check_table(const struct ibex_vlarb_entry *e, unsigned int n, const char *name,
	    unsigned int nb_vls, char *err, size_t errlen)
{
	unsigned int i;

	if (n > IBEX_VLARB_MAX_ENTRIES) {
		if (err != NULL && errlen > 0)
			snprintf(err, errlen, "vlarb %s table has %u entries, at most %u",
				 name, n, IBEX_VLARB_MAX_ENTRIES);
		return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		if (e[i].vl < nb_vls)
			continue;
		if (err != NULL && errlen > 0)
			snprintf(err, errlen,
				 "vlarb %s entry %u names VL %u, not an operational data VL (0..%u)",
				 name, i, e[i].vl, nb_vls - 1);
		return -EINVAL;
	}
	return 0;
}

int
ibex_vlarb_conf_validate(const struct ibex_vlarb_conf *c, unsigned int nb_vls,
			 char *err, size_t errlen)
{
	int ret;

	if (nb_vls < 1 || nb_vls > IBEX_VL_DATA_MAX) {
		if (err != NULL && errlen > 0)
			snprintf(err, errlen, "%u operational VLs, must be 1..15", nb_vls);
		return -EINVAL;
	}
	ret = check_table(c->high, c->nb_high, "high", nb_vls, err, errlen);
	if (ret == 0)
		ret = check_table(c->low, c->nb_low, "low", nb_vls, err, errlen);
	return ret;
}

uint32_t
ibex_vlarb_conf_served(const struct ibex_vlarb_conf *c)
{
	uint32_t m = 0;
	unsigned int i;

	for (i = 0; i < c->nb_high && i < IBEX_VLARB_MAX_ENTRIES; i++)
		if (c->high[i].weight != 0)
			m |= UINT32_C(1) << (c->high[i].vl & 15);
	for (i = 0; i < c->nb_low && i < IBEX_VLARB_MAX_ENTRIES; i++)
		if (c->low[i].weight != 0)
			m |= UINT32_C(1) << (c->low[i].vl & 15);
	return m & IBEX_VL_DATA_MASK;
}

static void
table_build(struct ibex_vlarb_table *t, const struct ibex_vlarb_entry *e,
	    unsigned int n)
{
	unsigned int i;

	memset(t, 0, sizeof(*t));
	t->n = (uint8_t)n;
	/* The first turn goes to the first entry: the scan starts after idx. */
	t->idx = IBEX_VLARB_MAX_ENTRIES - 1;
	for (i = 0; i < n; i++) {
		t->vl[i] = e[i].vl;
		t->quantum[i] = (uint32_t)e[i].weight * IBEX_BLOCK_BYTES;
		if (e[i].weight == 0)
			continue;
		t->pos[e[i].vl] |= UINT64_C(1) << i;
		t->present |= (uint16_t)(1u << e[i].vl);
	}
}

int
ibex_vlarb_init(struct ibex_vlarb *a, const struct ibex_vlarb_conf *c)
{
	int ret;

	ret = ibex_vlarb_conf_validate(c, IBEX_VL_DATA_MAX, NULL, 0);
	if (ret != 0)
		return ret;
	memset(a, 0, sizeof(*a));
	table_build(&a->tab[TAB_HIGH], c->high, c->nb_high);
	table_build(&a->tab[TAB_LOW], c->low, c->nb_low);
	a->limit_bytes = (uint32_t)c->limit * IBEX_VLARB_LIMIT_UNIT;
	a->unbounded = c->limit == IBEX_VLARB_LIMIT_UNBOUNDED;
	a->carry = !c->strict;
	a->pend_vl = -1;
	return 0;
}

/* Entries of @p t whose lane is in @p el (weight > 0), cached per set. */
static inline uint64_t
table_entries(struct ibex_vlarb_table *t, uint32_t el)
{
	uint32_t v_set;
	uint64_t m = 0;

	if (el == t->elig_key)
		return t->elig_ent;
	v_set = el & t->present;
	while (v_set != 0) {
		m |= t->pos[__builtin_ctz(v_set)];
		v_set &= v_set - 1;
	}
	t->elig_key = el;
	t->elig_ent = m;
	return m;
}

/* First set bit of @p m (non-zero) at or after @p start, wrapping. */
static inline unsigned int
first_from(uint64_t m, unsigned int start)
{
	uint64_t ahead = m & (~UINT64_C(0) << start);

	return (unsigned int)__builtin_ctzll(ahead != 0 ? ahead : m);
}

/*
 * Entries of @p m each skip their turn until the first one whose carried
 * debt is below its quantum. After one silent lap every entry has paid
 * once; the number of further silent laps is the least debt/quantum over
 * the entries, so pay those laps at once instead of looping.
 */
static void
pay_silent_laps(struct ibex_vlarb_table *t, uint64_t m)
{
	uint32_t k = UINT32_MAX;
	uint64_t b;

	for (b = m; b != 0; b &= b - 1) {
		unsigned int i = (unsigned int)__builtin_ctzll(b);
		uint32_t laps = t->debt[i] / t->quantum[i];

		if (laps < k)
			k = laps;
	}
	for (b = m; b != 0; b &= b - 1) {
		unsigned int i = (unsigned int)__builtin_ctzll(b);

		t->debt[i] -= k * t->quantum[i];
	}
}

/*
 * The entry of @p t that sends next among the eligible entries @p m
 * (non-zero). Continues the current turn while it has bytes left and its
 * lane is eligible; otherwise the turn ends (what is left of it is lost,
 * as in IB: no credit builds up) and the next eligible entry in table
 * order starts one, less what it overran last time.
 */
static unsigned int
table_pick(struct ibex_vlarb_table *t, uint64_t m)
{
	unsigned int lap, n, i;

	if (t->left > 0 && ((m >> t->idx) & 1) != 0)
		return t->idx;
	t->left = 0;
	for (lap = 0; lap < 2; lap++) {
		for (n = __builtin_popcountll(m); n > 0; n--) {
			i = first_from(m, (t->idx + 1u) & (IBEX_VLARB_MAX_ENTRIES - 1));
			t->idx = (uint8_t)i;
			if (t->debt[i] < t->quantum[i]) {
				t->left = (int32_t)(t->quantum[i] - t->debt[i]);
				t->debt[i] = 0;
				return i;
			}
			t->debt[i] -= t->quantum[i];
		}
		pay_silent_laps(t, m);
	}
	/* Not reached: after the bulk payment some debt is below its quantum. */
	t->left = (int32_t)t->quantum[t->idx];
	return t->idx;
}

/* May the high table send a frame of @p len bytes now? */
static inline bool
high_may_send(const struct ibex_vlarb *a, uint32_t len)
{
	/* At least one frame per chance (limit 0 = exactly one), then only
	 * frames that keep the high table within limit x 4096 bytes. */
	return a->unbounded || a->high_sent == 0 ||
	       (uint64_t)a->high_sent + len <= a->limit_bytes;
}

int
ibex_vlarb_next(struct ibex_vlarb *a, uint32_t eligible,
		const uint32_t *head_len)
{
	struct ibex_vlarb_table *hi = &a->tab[TAB_HIGH];
	struct ibex_vlarb_table *lo = &a->tab[TAB_LOW];
	uint32_t el = eligible & IBEX_VL_DATA_MASK;
	uint64_t hm = table_entries(hi, el);
	uint64_t lm = table_entries(lo, el);
	unsigned int i;

	/* With no low lane waiting there is nobody to protect: the count
	 * restarts, and high frames sent meanwhile do not count. */
	a->pend_low_idle = lm == 0;
	if (lm == 0)
		a->high_sent = 0;
	if (hm != 0) {
		i = table_pick(hi, hm);
		if (lm == 0 || high_may_send(a, head_len[hi->vl[i]])) {
			a->pend_tab = TAB_HIGH;
			a->pend_vl = (int8_t)hi->vl[i];
			return a->pend_vl;
		}
	}
	if (lm == 0) {
		a->pend_vl = -1;
		return -1;
	}
	i = table_pick(lo, lm);
	a->pend_tab = TAB_LOW;
	a->pend_vl = (int8_t)lo->vl[i];
	return a->pend_vl;
}

int
ibex_vlarb_charge(struct ibex_vlarb *a, unsigned int vl, uint32_t len)
{
	struct ibex_vlarb_table *t;
	int64_t left;

	if (a->pend_vl < 0 || vl != (unsigned int)a->pend_vl)
		return -EINVAL;
	t = &a->tab[a->pend_tab];
	left = (int64_t)t->left - len;
	if (left <= 0) {
		/* Turn over. The overrun is owed on the entry's next turn. */
		t->debt[t->idx] = a->carry ? (uint32_t)-left : 0;
		left = 0;
	}
	t->left = (int32_t)left;
	if (a->pend_tab == TAB_LOW) {
		a->high_sent = 0;
	} else if (!a->pend_low_idle && !a->unbounded) {
		uint64_t s = (uint64_t)a->high_sent + len;

		a->high_sent = s > UINT32_MAX ? UINT32_MAX : (uint32_t)s;
	}
	a->pend_vl = -1;
	return 0;
}
