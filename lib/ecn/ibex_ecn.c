/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ECN marking curve: validation, precomputation and the paths that are
 * not taken per frame below Kmin. Formula and sources: ibex_ecn.h.
 */

#include <errno.h>
#include <stdbool.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "ibex_ecn.h"

/* 2^32 as a double: the scale of every probability. */
#define P_ONE_D 4294967296.0

/* The first rule @p c breaks, as a message; NULL when it keeps them all. */
static const char *
ecn_check_cfg(const struct ibex_ecn_cfg *c)
{
	if (c->kmax < IBEX_ECN_KMAX_MIN)
		return "ecn: kmax below 64 bytes (thresholds are in bytes, not KB)";
	if (c->kmax > IBEX_ECN_KMAX_MAX)
		return "ecn: kmax above 1 GiB (thresholds are in bytes, not bits)";
	if (c->kmin > c->kmax)
		return "ecn: kmin above kmax";
	if (isnan(c->pmax))
		return "ecn: pmax is not a number";
	if (c->pmax <= 0.0)
		return "ecn: pmax must be above 0 (to disable marking, leave ECN off)";
	if (c->pmax > 1.0)
		return "ecn: pmax above 1 (it is a probability, not a percentage)";
	if (llround(c->pmax * P_ONE_D) == 0)
		return "ecn: pmax below 2^-32, the resolution of the curve";
	if (c->wq_log > IBEX_ECN_WQ_MAX)
		return "ecn: wq above 16 (EWMA weight below 2^-16)";
	if (c->wq_log == 0)
		return NULL;
	/* The EWMA's idle decay needs to know how many frames fit a tick. */
	if (c->rate_bps == 0)
		return "ecn: EWMA needs the link rate (rate_bps) for its idle decay";
	if (c->avpkt == 0)
		return "ecn: EWMA needs the typical frame size (avpkt) for its idle decay";
	return NULL;
}

/* Frames of avpkt bytes the link sends in one tick of a @p hz clock. */
static double
ecn_frames_per_tick(const struct ibex_ecn_cfg *c, uint64_t hz)
{
	return (double)c->rate_bps / (8.0 * (double)c->avpkt * (double)hz);
}

/* The idle decay's fixed point holds frames per tick in 2^-32 units and
 * below 2^31 frames. */
static bool
ecn_fpt_too_low(double fpt)
{
	return fpt * P_ONE_D < 1.0;
}

static bool
ecn_fpt_too_high(double fpt)
{
	return fpt >= 2147483648.0;
}

/*
 * Idle decay precomputation (red.h's red_set_parms Stab table, exact
 * rather than a log table): frames sendable per tick in 2^-32 units, the
 * idleness that empties the average, and (1 - W)^(2^i).
 */
static const char *
ecn_set_idle(struct ibex_ecn_params *n, const struct ibex_ecn_cfg *c)
{
	double fpt, w = 1.0 - ldexp(1.0, -(int)c->wq_log);
	unsigned int i;

	if (c->time_hz == 0)
		return "ecn: EWMA needs the tick rate (time_hz) for its idle decay";
	fpt = ecn_frames_per_tick(c, c->time_hz);
	if (ecn_fpt_too_low(fpt))
		return "ecn: rate_bps too low for time_hz (under 2^-32 frames a tick)";
	if (ecn_fpt_too_high(fpt))
		return "ecn: time_hz too low for rate_bps (over 2^31 frames a tick)";
	n->idle_fpt = (uint64_t)llround(fpt * P_ONE_D);
	/* m = (ticks * fpt) >> 32 stays below 2^DECAY_BITS (and the product
	 * below 2^64) while ticks < idle_flush; past it (1 - W)^m < e^-256. */
	n->idle_flush = (UINT64_C(1) << (IBEX_ECN_DECAY_BITS + 32)) /
		n->idle_fpt;
	for (i = 0; i < IBEX_ECN_DECAY_BITS; i++) {
		n->decay[i] = (uint64_t)llround(w * P_ONE_D);
		w *= w;
	}
	return NULL;
}

int
ibex_ecn_params_set(struct ibex_ecn_params *p,
		    const struct ibex_ecn_cfg *cfg, const char **err)
{
	struct ibex_ecn_params n;
	const char *msg;

	if (p == NULL || cfg == NULL) {
		msg = "ecn: no parameters";
		goto fail;
	}
	msg = ecn_check_cfg(cfg);
	if (msg != NULL)
		goto fail;

	memset(&n, 0, sizeof(n));
	n.kmin = cfg->kmin;
	n.kmax = cfg->kmax;
	n.wq_log = cfg->wq_log;
	n.pmax = (uint64_t)llround(cfg->pmax * P_ONE_D);
	/* slope = Pmax * 2^32 / (Kmax - Kmin) << 31: pmax <= 2^32 so the
	 * shifted numerator fits 64 bits. Kmin == Kmax is a step: no slope. */
	if (n.kmax > n.kmin)
		n.slope = (n.pmax << IBEX_ECN_SLOPE_SHIFT) / (n.kmax - n.kmin);
	if (n.wq_log != 0) {
		msg = ecn_set_idle(&n, cfg);
		if (msg != NULL)
			goto fail;
	}
	*p = n;
	return 0;
fail:
	if (err != NULL)
		*err = msg;
	return -EINVAL;
}

int
ibex_ecn_cfg_check(const struct ibex_ecn_cfg *cfg, const char **err)
{
	const char *msg;

	if (cfg == NULL)
		msg = "ecn: no parameters";
	else
		msg = ecn_check_cfg(cfg);
	/* Frames per tick fall as the clock gets faster: the fastest clock
	 * is the one that can leave too few, the slowest too many. */
	if (msg == NULL && cfg->wq_log != 0) {
		if (ecn_fpt_too_low(ecn_frames_per_tick(cfg, IBEX_ECN_HZ_MAX)))
			msg = "ecn: link rate too low for the EWMA's idle "
			      "decay (under 2^-32 frames a tick of a 5 GHz "
			      "clock: 9.5 kb/s at 1024-byte frames)";
		else if (ecn_fpt_too_high(ecn_frames_per_tick(cfg,
							      IBEX_ECN_HZ_MIN)))
			msg = "ecn: link rate too high for the EWMA's idle "
			      "decay (over 2^31 frames a tick of a 1 MHz clock)";
	}
	if (msg == NULL)
		return 0;
	if (err != NULL)
		*err = msg;
	return -EINVAL;
}

void
ibex_ecn_cfg_default(struct ibex_ecn_cfg *cfg, uint64_t rate_bps)
{
	/* Unknown speed: the 100G values. */
	uint64_t rate = rate_bps != 0 ? rate_bps : UINT64_C(100000000000);
	/* HPCC: 100/400 kB at 25G, 200/800 at 50G, 400/1600 at 100G, with
	 * kB = 1000 bytes: 4000 and 16000 bytes per Gb/s. */
	uint64_t kmin = rate / 250000;
	uint64_t kmax = rate / 62500;

	if (kmax < IBEX_ECN_KMAX_MIN)
		kmax = IBEX_ECN_KMAX_MIN;
	if (kmax > IBEX_ECN_KMAX_MAX)
		kmax = IBEX_ECN_KMAX_MAX;
	if (kmin > kmax / 4)
		kmin = kmax / 4;
	memset(cfg, 0, sizeof(*cfg));
	cfg->kmin = (uint32_t)kmin;
	cfg->kmax = (uint32_t)kmax;
	cfg->pmax = 0.2;
	cfg->wq_log = 0;
	cfg->rate_bps = rate;
	cfg->avpkt = 1024;
	cfg->time_hz = 0;
}

void
ibex_ecn_vars_init(struct ibex_ecn_vars *v)
{
	memset(v, 0, sizeof(*v));
}

double
ibex_ecn_prob(const struct ibex_ecn_params *p, uint32_t q)
{
	return (double)ibex_ecn_threshold(p, q) / P_ONE_D;
}

/* a * f / 2^32 for a < 2^48 and f <= 2^32, without a 128-bit product. */
static uint64_t
mul_q32(uint64_t a, uint64_t f)
{
	return (a >> 32) * f + (((a & UINT32_MAX) * f) >> 32);
}

/*
 * red.h's red_calc_qavg_from_idle_time with the time passed in: while the
 * lane sat empty it could have sent m = idle * rate / avpkt frames, each of
 * which would have pulled the average towards 0 by a factor (1 - W). So
 * qavg *= (1 - W)^m, built from the precomputed (1 - W)^(2^i): one multiply
 * per set bit of m, at most IBEX_ECN_DECAY_BITS, once per idle period.
 */
void
ibex_ecn_idle_decay(const struct ibex_ecn_params *p,
		    struct ibex_ecn_vars *v, uint64_t now)
{
	uint64_t idle = now > v->idle_since ? now - v->idle_since : 0;
	uint64_t m;
	unsigned int i;

	v->idle = 0;
	if (idle >= p->idle_flush) {
		v->qavg = 0;
		return;
	}
	m = (idle * p->idle_fpt) >> 32;
	for (i = 0; m != 0; i++, m >>= 1)
		if (m & 1)
			v->qavg = mul_q32(v->qavg, p->decay[i]);
}

/*
 * Above Kmin: draw, then sort the chosen frame by codepoint. RFC 3168: a
 * Not-ECT frame is never marked (a lossless lane does not drop it either);
 * a CE frame is already marked and stays so.
 */
enum ibex_ecn_verdict
ibex_ecn_decide_slow(const struct ibex_ecn_params *p,
		     struct ibex_ecn_stats *s, struct ibex_ecn_rng *rng,
		     uint32_t q, uint8_t ecn)
{
	uint64_t thr = ibex_ecn_threshold(p, q);

	/* Above Kmax no draw: p = 1. Else chosen when 32 random bits < thr. */
	if (thr < IBEX_ECN_P_ONE && (ibex_ecn_rng_next(rng) >> 32) >= thr)
		return IBEX_ECN_V_PASS;
	if (ecn == IBEX_ECN_CP_NOT_ECT) {
		IBEX_CNT_ADD(s->not_ect_selected, 1);
		return IBEX_ECN_V_NOT_ECT;
	}
	if (ecn == IBEX_ECN_CP_CE) {
		IBEX_CNT_ADD(s->ce_selected, 1);
		return IBEX_ECN_V_PASS;
	}
	IBEX_CNT_ADD(s->marked, 1);
	return IBEX_ECN_V_MARK;
}
