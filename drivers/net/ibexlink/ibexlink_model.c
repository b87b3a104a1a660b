/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ibexlink wire model's out-of-line parts: parameter checks, the clock,
 * pause updates and the devargs value parsers. No DPDK here.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ibex_units.h"
#include "ibexlink_model.h"

int
ibexlink_params_check(const struct ibexlink_params *p)
{
	if (p->rate_bps == 0 || p->rate_bps > IBEXLINK_RATE_MAX)
		return -EINVAL;
	if (p->delay_ps > IBEXLINK_DELAY_MAX || p->jitter_ps > IBEXLINK_DELAY_MAX)
		return -EINVAL;
	return 0;
}

void
ibexlink_wire_init(struct ibexlink_wire *w, const struct ibexlink_params *p)
{
	memset(w, 0, sizeof(*w));
	w->p = *p;
	w->rng = p->seed;
}

int
ibexlink_clock_init(struct ibexlink_clock *c, uint64_t hz, uint64_t base)
{
	if (hz < 1000)
		return -EINVAL;
	c->base = base;
	/* 1e12 / hz in 32.32: at 1 GHz..10 GHz the error is below 1e-10. */
	c->ps_mult = (uint64_t)(((unsigned __int128)IBEXLINK_PS_PER_S << 32) /
				hz);
	c->ps_per_cycle = hz == IBEXLINK_PS_PER_S / IBEXLINK_PS_PER_NS ?
			  IBEXLINK_PS_PER_NS : 0;
	return 0;
}

uint64_t
ibexlink_clock_cycles_any(const struct ibexlink_clock *c, uint64_t ps)
{
	unsigned __int128 cyc = (((unsigned __int128)ps << 32) + c->ps_mult - 1) /
				c->ps_mult;

	/* ibexlink_clock_ps truncates: step up until it reaches ps. */
	while (ibexlink_clock_ps(c, c->base + (uint64_t)cyc) < ps)
		cyc++;
	return c->base + (uint64_t)cyc;
}

uint8_t
ibexlink_pause_apply(struct ibexlink_pause *st, uint64_t arrival_ps,
		     uint8_t cev, const uint16_t quanta[IBEXLINK_PRIOS],
		     uint64_t rate_bps)
{
	unsigned int prio;

	for (prio = 0; prio < IBEXLINK_PRIOS; prio++) {
		if ((cev & (1u << prio)) == 0)
			continue;
		/* A new frame replaces the running timer, whether it lengthens
		 * or shortens it (802.1Qbb: the latest quanta count). */
		atomic_store_explicit(&st->until_ps[prio], arrival_ps +
				      ibexlink_quanta_ps(quanta[prio], rate_bps),
				      memory_order_release);
	}
	return cev;
}

int
ibexlink_ring_init(struct ibexlink_ring *r, uint32_t cap)
{
	if (cap == 0 || (cap & (cap - 1)) != 0)
		return -EINVAL;
	atomic_init(&r->head, 0);
	atomic_init(&r->tail, 0);
	r->mask = cap - 1;
	r->prod_mask = r->cons_mask = cap - 1;
	r->tail_seen = 0;
	return 0;
}

unsigned int
ibexlink_ring_drain(struct ibexlink_ring *r, void **objs, unsigned int n)
{
	return ibexlink_ring_take(r, UINT64_MAX, objs, NULL, n, NULL);
}

/* A decimal number with an optional fraction, then a unit from @p units:
 * the value times the unit's scale, rounded to the nearest integer. */
struct unit {
	const char *name;
	double scale;
};

/* A plain non-negative decimal and one of @p units after it, scaled. */
static int
parse_scaled_value(const char *s, const struct unit *units, double *out)
{
	char *end;
	double v;
	unsigned int i;

	/* Decimal only: strtod() would also take "0x10" (hex), "inf",
	 * leading blanks and signs. */
	if (s == NULL || !(isdigit((unsigned char)s[0]) || s[0] == '.') ||
	    (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || end == s || !isfinite(v) || v < 0)
		return -EINVAL;
	for (i = 0; units[i].name != NULL; i++) {
		if (strcasecmp(end, units[i].name) == 0)
			break;
	}
	if (units[i].name == NULL)
		return -EINVAL;
	*out = v * units[i].scale;
	return 0;
}

static int
parse_scaled(const char *s, const struct unit *units, double max,
	     uint64_t *out)
{
	double v;

	if (parse_scaled_value(s, units, &v) != 0 || v > max)
		return -EINVAL;
	*out = (uint64_t)llround(v);
	return 0;
}

/* The rate syntax of all ibex (ibex_units.h), within the model's range. */
int
ibexlink_parse_rate(const char *s, uint64_t *bps)
{
	uint64_t v;

	if (ibex_parse_rate(s, &v) != 0 || v == 0 || v > IBEXLINK_RATE_MAX)
		return -EINVAL;
	*bps = v;
	return 0;
}

int
ibexlink_parse_time(const char *s, uint64_t *ps)
{
	/* A bare number is nanoseconds, as elsewhere in ibex's options. */
	static const struct unit u[] = {
		{ "", 1e3 }, { "ps", 1 }, { "ns", 1e3 }, { "us", 1e6 },
		{ "ms", 1e9 }, { "s", 1e12 }, { NULL, 0 },
	};

	return parse_scaled(s, u, (double)IBEXLINK_DELAY_MAX, ps);
}

int
ibexlink_parse_seed(const char *s, uint64_t *seed)
{
	char *end;
	uint64_t v;

	/* strtoull() would take "-1" as 2^64 - 1, and blanks and signs. */
	if (s == NULL || !isdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0')
		return -EINVAL;
	*seed = v;
	return 0;
}

int
ibexlink_parse_prob(const char *s, uint64_t *thr)
{
	static const struct unit u[] = {
		{ "", 1 }, { "%", 0.01 }, { NULL, 0 },
	};
	double v;

	if (parse_scaled_value(s, u, &v) != 0)
		return -EINVAL;
	if (v > 1)
		return -EINVAL;
	/* 2^64 itself does not fit: probability 1 is UINT64_MAX. */
	*thr = v >= 1 ? UINT64_MAX : (uint64_t)ldexp(v, 64);
	return 0;
}

char *
ibexlink_format_rate(uint64_t bps, char *buf, size_t len)
{
	static const struct {
		const char *suffix;
		uint64_t scale;
	} u[] = {
		{ "T", UINT64_C(1000000000000) }, { "G", 1000000000 },
		{ "M", 1000000 }, { "K", 1000 }, { "", 1 },
	};
	unsigned int i;

	for (i = 0; i + 1 < sizeof(u) / sizeof(u[0]); i++) {
		if (bps >= u[i].scale)
			break;
	}
	if (bps % u[i].scale == 0)
		snprintf(buf, len, "%llu%s",
			 (unsigned long long)(bps / u[i].scale), u[i].suffix);
	else
		snprintf(buf, len, "%g%s", (double)bps / (double)u[i].scale,
			 u[i].suffix);
	return buf;
}
