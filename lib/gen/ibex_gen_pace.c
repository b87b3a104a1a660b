/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Open-loop pacing and the DCQCN reaction point.
 *
 * Constant rate: an event every hz / rate_events ticks, kept exact over
 * any run length by carrying the remainder (Bresenham): with rates in
 * milli-events per second, q = hz*1000 div rate, r = hz*1000 mod rate, and
 * every event adds q ticks plus one more whenever the carried remainder
 * reaches the rate. The error is under one tick per event and does not
 * accumulate, so 1 % over 1 s holds as long as the sender polls more often
 * than the departures are due (or within max_lag of them).
 */

#include <errno.h>
#include <math.h>
#include <string.h>

#include "ibex_gen_dcqcn.h"
#include "ibex_gen_pace.h"
#include "ibex_gen_rand.h"

int
ibex_pacer_init(struct ibex_pacer *p, uint64_t hz, double pps,
		uint32_t burst, bool poisson, uint64_t seed, uint64_t now)
{
	double ev = pps / (burst == 0 ? 1 : burst);
	uint64_t mev;

	if (!(pps > 0) || hz == 0 || burst == 0 || ev * 1000.0 < 1.0 ||
	    pps > 1e10)
		return -EINVAL;
	memset(p, 0, sizeof(*p));
	mev = (uint64_t)llround(ev * 1000.0);
	p->den = mev;
	p->q = hz * 1000 / mev;
	p->r = hz * 1000 % mev;
	p->mean = (double)hz / ev;
	p->rng = seed;
	p->burst = burst;
	p->poisson = poisson;
	p->next = now;
	/* Catch up at most 10 ms or 64 events, whichever is longer: a
	 * sender descheduled for a few ms (a shared core) still keeps its
	 * mean rate, a longer stall is not followed by an endless burst. */
	p->max_lag = hz / 100;
	if (p->max_lag < 64 * p->q)
		p->max_lag = 64 * p->q;
	return 0;
}

void
ibex_pacer_advance(struct ibex_pacer *p)
{
	if (p->poisson) {
		/* Exponential gap: -ln(1 - U) x mean, 1 - U in (0, 1]. */
		double gap = -log(1.0 - ibex_gen_rand_unit(&p->rng)) * p->mean +
			     p->frac;
		uint64_t whole = (uint64_t)gap;

		p->frac = gap - (double)whole;
		p->next += whole;
		return;
	}
	p->next += p->q;
	p->acc += p->r;
	if (p->acc >= p->den) {
		p->acc -= p->den;
		p->next++;
	}
}

/* ---- DCQCN ---- */

void
ibex_dcqcn_defaults(struct ibex_dcqcn_params *p, double line_rate, uint64_t hz)
{
	memset(p, 0, sizeof(*p));
	/* DCQCN paper / Mellanox defaults: g = 1/256, 55 us timers, 10 MB
	 * byte counter, F = 5, R_AI 40 Mb/s, R_HAI 10 x R_AI (the paper
	 * uses 5 Mb/s and 50 Mb/s at 40 Gb/s; scaled here to the line). */
	p->line_rate = line_rate;
	p->min_rate = line_rate / 1000.0;
	p->rai = line_rate / 200.0;
	p->rhai = line_rate / 20.0;
	p->g = 1.0 / 256.0;
	p->alpha_period = hz * 55 / 1000000;
	p->inc_period = hz * 55 / 1000000;
	if (p->alpha_period == 0)
		p->alpha_period = 1;
	if (p->inc_period == 0)
		p->inc_period = 1;
	p->byte_counter = 10u * 1000 * 1000;
	p->f = 5;
}

void
ibex_dcqcn_init(struct ibex_dcqcn *d, const struct ibex_dcqcn_params *p,
		uint64_t now)
{
	memset(d, 0, sizeof(*d));
	d->p = *p;
	d->rc = p->line_rate;
	d->rt = p->line_rate;
	d->alpha = 1.0;
	d->alpha_at = now + p->alpha_period;
	d->inc_at = now + p->inc_period;
}

void
ibex_dcqcn_cnp(struct ibex_dcqcn *d, uint64_t now)
{
	d->cnps++;
	d->cuts++;
	d->rt = d->rc;
	d->rc = d->rc * (1.0 - d->alpha / 2.0);
	if (d->rc < d->p.min_rate)
		d->rc = d->p.min_rate;
	d->alpha = (1.0 - d->p.g) * d->alpha + d->p.g;
	d->t_count = 0;
	d->b_count = 0;
	d->bytes = 0;
	d->alpha_at = now + d->p.alpha_period;
	d->inc_at = now + d->p.inc_period;
}

static void
increase(struct ibex_dcqcn *d)
{
	uint32_t hi = d->t_count > d->b_count ? d->t_count : d->b_count;
	uint32_t lo = d->t_count > d->b_count ? d->b_count : d->t_count;

	if (hi < d->p.f) {
		/* fast recovery: towards the rate before the cut */
	} else if (lo > d->p.f) {
		d->rt += (double)(lo - d->p.f) * d->p.rhai;
	} else {
		d->rt += d->p.rai;
	}
	if (d->rt > d->p.line_rate)
		d->rt = d->p.line_rate;
	d->rc = (d->rt + d->rc) / 2.0;
}

void
ibex_dcqcn_tick(struct ibex_dcqcn *d, uint64_t now)
{
	while (now >= d->alpha_at) {
		d->alpha *= 1.0 - d->p.g;
		d->alpha_at += d->p.alpha_period;
	}
	while (now >= d->inc_at) {
		d->inc_at += d->p.inc_period;
		if (d->rc >= d->p.line_rate)
			continue;
		d->t_count++;
		increase(d);
	}
}

void
ibex_dcqcn_sent(struct ibex_dcqcn *d, uint64_t bytes)
{
	d->bytes += bytes;
	if (d->bytes >= d->p.byte_counter) {
		d->bytes -= d->p.byte_counter;
		if (d->rc < d->p.line_rate) {
			d->b_count++;
			increase(d);
		}
	}
}
