/* SPDX-License-Identifier: BSD-3-Clause */
/* UEC credit-based flow control: the cold half (configuration checks,
 * CF_Update and CC_Update); the per-frame half is inline in ibex_cbfc.h. */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ibex_cbfc.h"
#include "ibex_require.h"

void
ibex_cbfc_conf_default(struct ibex_cbfc_conf *c, unsigned int n_vcs)
{
	unsigned int i;

	memset(c, 0, sizeof(*c));
	c->credit_size = IBEX_CBFC_CREDIT_SIZE_DEF;
	c->n_vcs = (uint8_t)n_vcs;
	c->cc_timer_us = IBEX_CBFC_CC_TIMER_US_DEF;
	c->cf_min_spacing = IBEX_CBFC_CF_MIN_SPACING_DEF;
	c->cf_max_spacing = IBEX_CBFC_CF_MAX_SPACING_DEF;
	c->rx_total = IBEX_CBFC_MASK;
	for (i = 0; i < IBEX_CBFC_MAX_VCS; i++)
		c->vc_profile[i] = IBEX_CBFC_NO_PROFILE;
	for (i = 0; i < IBEX_CBFC_MAX_TCS; i++) {
		c->tc_vc[i] = n_vcs != 0 ? (uint8_t)(i % n_vcs) : 0;
		c->queue_vc[i] = c->tc_vc[i];
	}
}

static int
check_port(const struct ibex_cbfc_conf *c, char *err, size_t errlen)
{
	uint32_t all;

	IBEX_REQUIRE(c->n_vcs >= 1 && c->n_vcs <= IBEX_CBFC_MAX_VCS,
		     "VCs: 1..%u, not %u", IBEX_CBFC_MAX_VCS, c->n_vcs);
	all = c->n_vcs == 32 ? UINT32_MAX : (UINT32_C(1) << c->n_vcs) - 1;
	IBEX_REQUIRE(c->credit_size >= IBEX_CBFC_CREDIT_SIZE_MIN &&
			     c->credit_size <= IBEX_CBFC_CREDIT_SIZE_MAX,
		     "credit size: %u..%u bytes, not %u",
		     IBEX_CBFC_CREDIT_SIZE_MIN, IBEX_CBFC_CREDIT_SIZE_MAX,
		     c->credit_size);
	IBEX_REQUIRE(c->overhead >= IBEX_CBFC_OVERHEAD_MIN &&
			     c->overhead <= IBEX_CBFC_OVERHEAD_MAX,
		     "packet overhead: %d..%d bytes, not %d",
		     IBEX_CBFC_OVERHEAD_MIN, IBEX_CBFC_OVERHEAD_MAX,
		     c->overhead);
	IBEX_REQUIRE(c->cc_timer_us <= IBEX_CBFC_CC_TIMER_US_MAX,
		     "CC_Update timer: 1..%u us (0: off), not %u",
		     IBEX_CBFC_CC_TIMER_US_MAX, c->cc_timer_us);
	IBEX_REQUIRE(c->cf_min_spacing >= IBEX_CBFC_CF_MIN_SPACING_MIN,
		     "CF_Update minimum spacing: at least %u bytes, not %u",
		     IBEX_CBFC_CF_MIN_SPACING_MIN, c->cf_min_spacing);
	IBEX_REQUIRE(
		c->cf_max_spacing >= IBEX_CBFC_CF_MAX_SPACING_MIN &&
			c->cf_max_spacing <= IBEX_CBFC_CF_MAX_SPACING_MAX &&
			c->cf_max_spacing % IBEX_CBFC_CF_MAX_SPACING_STEP == 0,
		"CF_Update maximum spacing: %u..%u bytes in steps of %u, not %u",
		IBEX_CBFC_CF_MAX_SPACING_MIN, IBEX_CBFC_CF_MAX_SPACING_MAX,
		IBEX_CBFC_CF_MAX_SPACING_STEP, c->cf_max_spacing);
	IBEX_REQUIRE(c->cf_min_spacing <= c->cf_max_spacing,
		     "CF_Update spacing: minimum %u above maximum %u",
		     c->cf_min_spacing, c->cf_max_spacing);
	IBEX_REQUIRE(c->port_limit <= IBEX_CBFC_MASK,
		     "port credit limit: 0..%u, not %u", IBEX_CBFC_MASK,
		     c->port_limit);
	IBEX_REQUIRE(c->rx_total >= 1 && c->rx_total <= IBEX_CBFC_MASK,
		     "receiver's total credits: 1..%u, not %u", IBEX_CBFC_MASK,
		     c->rx_total);
	IBEX_REQUIRE((c->tx_lossless & ~all) == 0 &&
			     (c->rx_lossless & ~all) == 0,
		     "lossless VCs 0x%x/0x%x beyond the port's %u",
		     c->tx_lossless, c->rx_lossless, c->n_vcs);
	return 0;
}

static int
check_pools(const struct ibex_cbfc_conf *c, char *err, size_t errlen)
{
	uint64_t reserved[IBEX_CBFC_MAX_POOLS + 1] = { 0 }, sizes = 0;
	unsigned int i;

	IBEX_REQUIRE(c->n_pools <= IBEX_CBFC_MAX_POOLS,
		     "credit pools: at most %u", IBEX_CBFC_MAX_POOLS);
	IBEX_REQUIRE(c->n_profiles <= IBEX_CBFC_MAX_PROFILES,
		     "credit profiles: at most %u", IBEX_CBFC_MAX_PROFILES);
	for (i = 0; i < c->n_pools; i++) {
		IBEX_REQUIRE(c->pool_size[i] >= 1 &&
				     c->pool_size[i] <= IBEX_CBFC_MASK,
			     "credit pool %u: size 1..%u, not %u", i,
			     IBEX_CBFC_MASK, c->pool_size[i]);
		sizes += c->pool_size[i];
	}
	IBEX_REQUIRE(
		c->port_limit == 0 || sizes <= c->port_limit,
		"credit pools: %llu credits in all, above the port's limit %u",
		(unsigned long long)sizes, c->port_limit);
	for (i = 0; i < c->n_profiles; i++) {
		const struct ibex_cbfc_profile *f = &c->profile[i];

		IBEX_REQUIRE(
			f->pool < c->n_pools ||
				(f->pool == IBEX_CBFC_PORT_POOL &&
				 c->port_limit != 0),
			"credit profile %u: %s", i,
			f->pool == IBEX_CBFC_PORT_POOL
				? "shares the port's credits, but the port has no limit"
				: "names a pool the port does not have");
		IBEX_REQUIRE(
			f->th_mode <= IBEX_CBFC_TH_DYNAMIC,
			"credit profile %u: threshold mode none, static or "
			"dynamic",
			i);
		IBEX_REQUIRE(
			f->th_mode != IBEX_CBFC_TH_DYNAMIC ||
				(f->dyn_th >= IBEX_CBFC_DYN_TH_MIN &&
				 f->dyn_th <= IBEX_CBFC_DYN_TH_MAX),
			"credit profile %u: dynamic threshold 2^n with n %d..%d, "
			"not %d",
			i, IBEX_CBFC_DYN_TH_MIN, IBEX_CBFC_DYN_TH_MAX,
			f->dyn_th);
		IBEX_REQUIRE(f->reserved <= IBEX_CBFC_MASK,
			     "credit profile %u: reserved 0..%u", i,
			     IBEX_CBFC_MASK);
	}
	for (i = 0; i < c->n_vcs; i++) {
		uint8_t pf = c->vc_profile[i], pool;

		if (pf == IBEX_CBFC_NO_PROFILE)
			continue;
		IBEX_REQUIRE(pf < c->n_profiles, "VC %u: no credit profile %u",
			     i, pf);
		pool = c->profile[pf].pool;
		reserved[pool == IBEX_CBFC_PORT_POOL ? IBEX_CBFC_MAX_POOLS :
			 pool] += c->profile[pf].reserved;
	}
	for (i = 0; i < c->n_pools; i++)
		IBEX_REQUIRE(
			reserved[i] <= c->pool_size[i],
			"credit pool %u: its VCs reserve %llu credits of %u", i,
			(unsigned long long)reserved[i], c->pool_size[i]);
	IBEX_REQUIRE(
		reserved[IBEX_CBFC_MAX_POOLS] + sizes <= c->port_limit ||
			reserved[IBEX_CBFC_MAX_POOLS] == 0,
		"the port's credits: its pools (%llu) and the VCs that share it "
		"directly (%llu reserved) exceed its limit %u",
		(unsigned long long)sizes,
		(unsigned long long)reserved[IBEX_CBFC_MAX_POOLS],
		c->port_limit);
	return 0;
}

static int
check_vcs(const struct ibex_cbfc_conf *c, char *err, size_t errlen)
{
	unsigned int i;

	for (i = 0; i < c->n_vcs; i++) {
		bool lossless = (c->tx_lossless >> i) & 1;

		IBEX_REQUIRE(c->vc_limit[i] <= IBEX_CBFC_MASK,
			     "VC %u: credit limit 0..%u, not %u", i,
			     IBEX_CBFC_MASK, c->vc_limit[i]);
		IBEX_REQUIRE(
			!lossless || c->vc_limit[i] != 0 ||
				c->vc_profile[i] != IBEX_CBFC_NO_PROFILE,
			"VC %u: lossless, but it has neither a credit limit nor "
			"a credit profile (it could never send)",
			i);
		IBEX_REQUIRE(!lossless ||
			     c->vc_profile[i] == IBEX_CBFC_NO_PROFILE ||
			     c->vc_profile[i] >= c->n_profiles ||
			     c->profile[c->vc_profile[i]].reserved != 0 ||
			     c->profile[c->vc_profile[i]].th_mode !=
				     IBEX_CBFC_TH_NONE,
			     "VC %u: lossless, but its credit profile reserves "
			     "nothing and shares nothing (it could never send)",
			     i);
	}
	for (i = 0; i < IBEX_CBFC_MAX_TCS; i++) {
		IBEX_REQUIRE(c->tc_vc[i] < c->n_vcs,
			     "TC %u -> VC %u: the port has "
			     "VCs 0..%u",
			     i, c->tc_vc[i], c->n_vcs - 1);
		IBEX_REQUIRE(c->queue_vc[i] < c->n_vcs,
			     "queue %u -> VC %u: the port "
			     "has VCs 0..%u",
			     i, c->queue_vc[i], c->n_vcs - 1);
	}
	return 0;
}

int
ibex_cbfc_conf_check(const struct ibex_cbfc_conf *c, char *err,
		     size_t errlen)
{
	int ret = check_port(c, err, errlen);

	if (ret == 0)
		ret = check_pools(c, err, errlen);
	if (ret == 0)
		ret = check_vcs(c, err, errlen);
	return ret;
}

/* The pools' shared parts: size less what the VCs on them reserve. */
static void
pools_init(struct ibex_cbfc_port *p, const struct ibex_cbfc_conf *c)
{
	uint32_t sizes = 0;
	unsigned int i;

	for (i = 0; i < c->n_pools; i++) {
		p->pool[i].shared = c->pool_size[i];
		sizes += c->pool_size[i];
	}
	p->pool[IBEX_CBFC_MAX_POOLS].shared = c->port_limit > sizes ?
		c->port_limit - sizes : 0;
	for (i = 0; i < c->n_vcs; i++)
		if (p->tx[i].profiled)
			p->pool[p->tx[i].pool].shared -= p->tx[i].reserved;
}

static void
tx_vc_init(struct ibex_cbfc_tx_vc *t, const struct ibex_cbfc_conf *c,
	   unsigned int vc)
{
	const struct ibex_cbfc_profile *f;

	t->limit = c->vc_limit[vc];
	if (c->vc_profile[vc] == IBEX_CBFC_NO_PROFILE)
		return;
	f = &c->profile[c->vc_profile[vc]];
	t->profiled = true;
	t->reserved = f->reserved;
	t->pool = f->pool == IBEX_CBFC_PORT_POOL ? IBEX_CBFC_MAX_POOLS :
		  f->pool;
	t->th_mode = f->th_mode;
	t->dyn_th = f->dyn_th;
	t->static_th = f->static_th;
}

int
ibex_cbfc_port_init(struct ibex_cbfc_port *p, const struct ibex_cbfc_conf *c,
		    uint64_t now_ns)
{
	char err[160];
	unsigned int i;

	if (ibex_cbfc_conf_check(c, err, sizeof(err)) != 0)
		return -EINVAL;
	memset(p, 0, sizeof(*p));
	p->n_vcs = c->n_vcs;
	p->credit_size = c->credit_size;
	p->credit_shift = 0xff;
	if ((c->credit_size & (c->credit_size - 1)) == 0)
		p->credit_shift = (uint8_t)__builtin_ctz(c->credit_size);
	p->overhead = c->overhead;
	p->tx_lossless = c->tx_lossless;
	p->rx_lossless = c->rx_lossless;
	p->port_limit = c->port_limit;
	p->rx_total = c->rx_total;
	p->cc_period_ns = (uint64_t)c->cc_timer_us * 1000;
	p->next_cc_ns = now_ns + p->cc_period_ns;
	p->cf_min_spacing = c->cf_min_spacing;
	p->cf_max_spacing = c->cf_max_spacing;
	p->cf_refreshes = c->cf_refreshes;
	for (i = 0; i < c->n_vcs; i++)
		tx_vc_init(&p->tx[i], c, i);
	pools_init(p, c);
	return 0;
}

void
ibex_cbfc_link_reset(struct ibex_cbfc_port *p, uint64_t now_ns)
{
	unsigned int i;

	for (i = 0; i < IBEX_CBFC_MAX_VCS; i++) {
		p->tx[i].cc = p->tx[i].cf = p->tx[i].cu = 0;
		memset(&p->rx[i], 0, sizeof(p->rx[i]));
	}
	for (i = 0; i <= IBEX_CBFC_MAX_POOLS; i++)
		p->pool[i].used = 0;
	p->cu = 0;
	p->next_cc_ns = now_ns + p->cc_period_ns;
	p->st.link_resets++;
}

bool
ibex_cbfc_profile_allows(const struct ibex_cbfc_port *p,
			 const struct ibex_cbfc_tx_vc *t, uint32_t n)
{
	const struct ibex_cbfc_pool *pool = &p->pool[t->pool];
	uint32_t now = ibex_cbfc_shared_of(t, t->cu);
	uint32_t after = ibex_cbfc_shared_of(t, t->cu + n);
	uint32_t free = pool->shared - pool->used;
	uint64_t cap;

	if (after == 0)
		return true;              /* within its reserved credits */
	if (after - now > free)
		return false;             /* the pool has not that many */
	switch (t->th_mode) {
	case IBEX_CBFC_TH_STATIC:
		return t->static_th == 0 || after <= t->static_th;
	case IBEX_CBFC_TH_DYNAMIC:
		/* The VC's shared use against 2^n x what the pool has free
		 * (as lib/credit's buffer and the Choudhury-Hahne rule). */
		cap = t->dyn_th >= 0 ? (uint64_t)free << t->dyn_th :
				       free >> -t->dyn_th;
		return after <= cap;
	default:
		return false;             /* no access to shared credits */
	}
}

/* Shared credits a profiled VC could take now: what its threshold leaves
 * it, at most what the pool has free (as ibex_cbfc_profile_allows()). */
static uint32_t
profile_room(const struct ibex_cbfc_port *p, const struct ibex_cbfc_tx_vc *t)
{
	const struct ibex_cbfc_pool *pool = &p->pool[t->pool];
	uint32_t now = ibex_cbfc_shared_of(t, t->cu);
	uint32_t free = pool->shared - pool->used;
	uint64_t cap;

	switch (t->th_mode) {
	case IBEX_CBFC_TH_STATIC:
		cap = t->static_th == 0 ? UINT64_MAX : t->static_th;
		break;
	case IBEX_CBFC_TH_DYNAMIC:
		cap = t->dyn_th >= 0 ? (uint64_t)free << t->dyn_th :
				       free >> -t->dyn_th;
		break;
	default:
		cap = 0;
		break;
	}
	if (cap <= now)
		return 0;
	return cap - now < free ? (uint32_t)(cap - now) : free;
}

uint32_t
ibex_cbfc_tx_room(const struct ibex_cbfc_port *p, unsigned int vc)
{
	const struct ibex_cbfc_tx_vc *t = &p->tx[vc];
	uint32_t room;

	if (!t->profiled)
		room = t->cu < t->limit ? t->limit - t->cu : 0;
	else
		room = (t->reserved > t->cu ? t->reserved - t->cu : 0) +
		       profile_room(p, t);
	if (p->port_limit != 0) {
		uint32_t left = p->cu < p->port_limit ? p->port_limit - p->cu : 0;

		if (room > left)
			room = left;
	}
	return room;
}

int
ibex_cbfc_cf_apply(struct ibex_cbfc_port *p,
		   const struct ibex_cbfc_cf_update *u)
{
	struct ibex_cbfc_tx_vc *t;
	uint32_t freed;

	p->st.cf_update_rx++;
	if (u->vc >= p->n_vcs || !ibex_cbfc_tx_gated(p, u->vc) ||
	    u->cf > IBEX_CBFC_MASK) {
		p->st.cf_update_bad++;
		return -EINVAL;
	}
	t = &p->tx[u->vc];
	freed = ibex_cbfc_mod(u->cf - t->cf);
	if (freed > t->cu) {
		p->st.cf_update_bad++;
		return -EINVAL;
	}
	if (t->profiled)
		p->pool[t->pool].used -= ibex_cbfc_shared_of(t, t->cu) -
					 ibex_cbfc_shared_of(t, t->cu - freed);
	t->cf = u->cf;
	t->cu -= freed;
	p->cu -= freed;
	p->st.vc[u->vc].sender_credits_freed += freed;
	return 0;
}

/* The next receiving VC after @p from (round robin) whose R_CF moved
 * since its last CF_Update, or (@p stale) that had none for the maximum
 * spacing and has a refresh due (cf_refreshes); -1 when none. */
static int
rx_vc_after(const struct ibex_cbfc_port *p, unsigned int from,
	    uint64_t now_bytes, bool stale)
{
	unsigned int i, vc;

	for (i = 0; i < p->n_vcs; i++) {
		vc = (from + i) % p->n_vcs;
		if (!((p->rx_lossless >> vc) & 1))
			continue;
		if (stale ? now_bytes - p->rx[vc].cf_bytes >=
				p->cf_max_spacing &&
			    (p->cf_refreshes == 0 ||
			     p->rx[vc].refreshes_left != 0) :
			    (p->rx[vc].cf != p->rx[vc].cf_sent ||
			     p->rx[vc].unsent))
			return (int)vc;
	}
	return -1;
}

bool
ibex_cbfc_tx_take_slow(struct ibex_cbfc_port *p, unsigned int vc, uint32_t n)
{
	struct ibex_cbfc_tx_vc *t = &p->tx[vc];

	if (!ibex_cbfc_tx_ok(p, vc, n)) {
		p->st.vc[vc].tx_blocked++;
		return false;
	}
	if (t->profiled)
		p->pool[t->pool].used += ibex_cbfc_shared_of(t, t->cu + n) -
					 ibex_cbfc_shared_of(t, t->cu);
	ibex_cbfc_tx_consume(p, vc, n);
	return true;
}

void
ibex_cbfc_rx_held(struct ibex_cbfc_port *p, unsigned int vc, uint32_t held)
{
	struct ibex_cbfc_rx_vc *r = &p->rx[vc];
	uint32_t want, ahead;

	if (vc >= p->n_vcs || !((p->rx_lossless >> vc) & 1))
		return;
	/* more than half the counter space held cannot be told from a
	 * count gone back: hold R_CF where it is */
	if (held >= IBEX_CBFC_MOD / 2)
		return;
	want = ibex_cbfc_mod(r->cc - held);
	ahead = ibex_cbfc_mod(want - r->cf);
	/* Half the counter space or more ahead is behind: leave it. */
	if (ahead == 0 || ahead >= IBEX_CBFC_MOD / 2)
		return;
	r->cf = want;
	p->st.vc[vc].receiver_credits_freed += ahead;
}

bool
ibex_cbfc_cf_next(struct ibex_cbfc_port *p, uint64_t now_bytes,
		  struct ibex_cbfc_cf_update *u)
{
	int vc;

	if (now_bytes - p->last_cf_bytes < p->cf_min_spacing)
		return false;
	/* A VC due for its refresh first: the others' news cannot keep
	 * it waiting (it comes once a maximum spacing). */
	vc = rx_vc_after(p, p->cf_next, now_bytes, true);
	if (vc < 0)
		vc = rx_vc_after(p, p->cf_next, now_bytes, false);
	if (vc < 0)
		return false;
	u->vc = (uint8_t)vc;
	u->cf = p->rx[vc].cf;
	/* News earns the count cf_refreshes refreshes; a refresh uses one
	 * (one sent again because it was refused used it already). */
	if (u->cf != p->rx[vc].cf_sent)
		p->rx[vc].refreshes_left = p->cf_refreshes;
	else if (p->rx[vc].refreshes_left != 0 && !p->rx[vc].unsent)
		p->rx[vc].refreshes_left--;
	p->rx[vc].cf_sent = u->cf;
	p->rx[vc].unsent = false;
	p->rx[vc].cf_bytes = now_bytes;
	p->cf_next = (uint8_t)((vc + 1) % p->n_vcs);
	p->last_cf_bytes = now_bytes;
	p->st.cf_update_tx++;
	return true;
}

void
ibex_cbfc_cf_unsent(struct ibex_cbfc_port *p,
		    const struct ibex_cbfc_cf_update *u)
{
	if (u->vc >= p->n_vcs)
		return;
	p->rx[u->vc].unsent = true;
	p->st.cf_update_tx--;
}

void
ibex_cbfc_cc_unsent(struct ibex_cbfc_port *p, uint64_t now_ns)
{
	p->next_cc_ns = now_ns;
	p->st.cc_update_tx--;
}

void
ibex_cbfc_cc_build(struct ibex_cbfc_port *p, uint64_t now_ns,
		   struct ibex_cbfc_cc_update *u)
{
	unsigned int vc;

	u->vcs = p->tx_lossless;
	for (vc = 0; vc < IBEX_CBFC_MAX_VCS; vc++)
		u->cc[vc] = p->tx[vc].cc;
	p->next_cc_ns = now_ns + p->cc_period_ns;
	p->st.cc_update_tx++;
}

uint32_t
ibex_cbfc_cc_apply(struct ibex_cbfc_port *p,
		   const struct ibex_cbfc_cc_update *u)
{
	uint32_t vcs = u->vcs & p->rx_lossless, total = 0, leaked, held;
	unsigned int vc;

	p->st.cc_update_rx++;
	for (vc = 0; vc < p->n_vcs; vc++) {
		if (!((vcs >> vc) & 1))
			continue;
		leaked = ibex_cbfc_mod(u->cc[vc] - p->rx[vc].cc);
		/* The sender's credits in use are at most the receiver's
		 * buffer: what it holds plus what leaked fits in it. Half the
		 * counter space or more is a count that went back. */
		held = ibex_cbfc_mod(p->rx[vc].cc - p->rx[vc].cf);
		if (u->cc[vc] > IBEX_CBFC_MASK || leaked >= IBEX_CBFC_MOD / 2 ||
		    (uint64_t)leaked + held > p->rx_total) {
			p->st.cc_update_bad++;
			continue;
		}
		p->rx[vc].cc = u->cc[vc];
		p->rx[vc].cf = ibex_cbfc_mod(p->rx[vc].cf + leaked);
		p->st.vc[vc].leaked_recovered += leaked;
		total += leaked;
	}
	return total;
}
