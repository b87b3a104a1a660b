/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_ECN_H
#define IBEX_ECN_H

/**
 * @file
 * ECN marking curve of an egress lane (egress port, VL): RED as used by
 * DCQCN, with explicit time and randomness.
 *
 * Sources:
 *  - Zhu et al., "Congestion Control for Large-Scale RDMA Deployments"
 *    (DCQCN), SIGCOMM 2015: RED-like ECN marking on the egress queue, no
 *    drops, marking probability rising linearly from 0 at Kmin to Pmax at
 *    Kmax and 1 above Kmax, on the instantaneous queue length.
 *  - RFC 3168: codepoints Not-ECT 00, ECT(1) 01, ECT(0) 10, CE 11; a router
 *    marks only ECT frames and never "unmarks" CE.
 *  - Floyd & Jacobson, "Random Early Detection Gateways" (1993) and Linux
 *    include/net/red.h: the EWMA of the queue, its idle-time correction and
 *    the params / vars / stats split used here.
 *
 * The curve, with q the queue measure in bytes:
 *
 *	p(q) = 0                                 q <= Kmin
 *	p(q) = Pmax * (q - Kmin) / (Kmax - Kmin)  Kmin < q <= Kmax
 *	p(q) = 1                                 q >  Kmax
 *
 * so q == Kmin gives 0, q == Kmax gives Pmax and any q > Kmax gives 1
 * (the same boundaries as the HPCC simulator's switch). Kmin == Kmax is a
 * DCTCP-style step: no marks up to K, every ECT frame above it.
 *
 * Fixed point: probabilities are thresholds in units of 2^-32, compared
 * against 32 random bits, so p = 1 is 2^32 and needs 33 bits (uint64_t).
 * The per-frame decision has no division and no floating point.
 *
 * Threading: params are immutable once published. vars and stats belong to
 * one lane and have one writer (the lcore that dequeues that lane). The
 * random state is per lcore.
 */

#include <stdint.h>

#include <ibex_common.h>
#include <ibex_counter.h>

/** RFC 3168 codepoint Not-ECT (00); same value as the packet library's. */
#define IBEX_ECN_CP_NOT_ECT 0
/** RFC 3168 codepoint CE (11). */
#define IBEX_ECN_CP_CE 3

/** Probability 1.0 in the 2^-32 fixed point of thresholds. */
#define IBEX_ECN_P_ONE (UINT64_C(1) << 32)
/** Fraction bits of ibex_ecn_params::slope. */
#define IBEX_ECN_SLOPE_SHIFT 31
/** Largest EWMA weight exponent: weight 2^-16. */
#define IBEX_ECN_WQ_MAX 16
/** Idle decay factors kept, (1 - 2^-wq)^(2^i) for i < this. */
#define IBEX_ECN_DECAY_BITS (IBEX_ECN_WQ_MAX + 8)
/** Smallest accepted Kmax, bytes: below one block it is surely KB. */
#define IBEX_ECN_KMAX_MIN IBEX_BLOCK_BYTES
/** Largest accepted Kmax, bytes (1 GiB): above it is surely bits. */
#define IBEX_ECN_KMAX_MAX (UINT32_C(1) << 30)

/** Verdict of ibex_ecn_decide() for one frame. */
enum ibex_ecn_verdict {
	IBEX_ECN_V_PASS = 0,  /**< forward unchanged */
	IBEX_ECN_V_MARK,      /**< set the ECN field to CE, then forward */
	IBEX_ECN_V_NOT_ECT,   /**< the curve chose a Not-ECT frame: forward
			       *   unchanged, counted only (never marked,
			       *   never dropped here) */
};

/** What the configuration layer gives; validated as a whole. */
struct ibex_ecn_cfg {
	uint32_t kmin;      /**< bytes; marking starts above it */
	uint32_t kmax;      /**< bytes; every ECT frame marked above it */
	double pmax;        /**< probability at Kmax, in (0, 1] */
	uint8_t wq_log;     /**< 0: instantaneous queue (DCQCN practice);
			     *   1..IBEX_ECN_WQ_MAX: EWMA weight 2^-wq_log */
	uint64_t rate_bps;  /**< egress link rate, bit/s (EWMA idle decay) */
	uint32_t avpkt;     /**< typical frame, bytes (EWMA idle decay) */
	uint64_t time_hz;   /**< ticks per second of the `now` passed in */
};

/** Precomputed, immutable parameters of one lane. */
struct ibex_ecn_params {
	/* Hot: read per frame. */
	uint32_t kmin;        /**< bytes */
	uint32_t kmax;        /**< bytes */
	uint8_t wq_log;       /**< EWMA weight 2^-wq_log; 0 = instantaneous */
	uint64_t pmax;        /**< Pmax in 2^-32 units, 1..2^32 */
	/** Pmax * 2^32 / (Kmax - Kmin) in 2^-31 units, so that
	 * p(q) * 2^32 = ((q - Kmin) * slope) >> 31 without a division. */
	uint64_t slope;
	/* Cold: EWMA idle decay only. */
	uint64_t idle_fpt;    /**< frames sendable per tick, 2^-32 units */
	uint64_t idle_flush;  /**< ticks of idleness that empty the average */
	/** (1 - 2^-wq)^(2^i) in 2^-32 units: the EWMA after 2^i empty frames. */
	uint64_t decay[IBEX_ECN_DECAY_BITS];
};

/** Running state of one lane (EWMA mode only; unused when wq_log == 0). */
struct ibex_ecn_vars {
	uint64_t qavg;        /**< average backlog, bytes << wq_log */
	uint64_t idle_since;  /**< ticks: when the lane was seen empty */
	uint8_t idle;         /**< the last sample saw an empty lane */
};

/** Counters of one lane; single writer. */
struct ibex_ecn_stats {
	/** Frames seen, indexed by RFC 3168 codepoint: [0] Not-ECT,
	 *  [1] ECT(1), [2] ECT(0), [3] CE. "ECT seen" is every ECN-capable
	 *  frame, CE included: [1] + [2] + [3] (ibex_ecn_stats_ect_seen()).
	 *  One writer (the lane's worker): written with IBEX_CNT_ADD, read
	 *  with IBEX_CNT_READ by the control thread. */
	uint64_t seen[4];
	uint64_t marked;            /**< ECT frames newly set to CE */
	uint64_t not_ect_selected;  /**< Not-ECT frames the curve chose */
	uint64_t ce_selected;       /**< CE frames the curve chose (left CE,
				     *   not counted in marked) */
};

/** Per-lcore random state (splitmix64, any seed is valid). */
struct ibex_ecn_rng {
	uint64_t s;
};

/**
 * Validate @p cfg as a whole and build @p p from it.
 *
 * @param p    Filled only on success.
 * @param cfg  Thresholds, Pmax, queue measure.
 * @param err  Set to a static message on failure (may be NULL).
 * @return 0, or -EINVAL with *err saying which rule failed.
 */
int ibex_ecn_params_set(struct ibex_ecn_params *p,
			const struct ibex_ecn_cfg *cfg, const char **err);

/** Tick rates ibex_ecn_cfg_check() vouches for: 1 MHz (coarse timers) to
 * 5 GHz (any TSC or cycle counter a data path reads). */
#define IBEX_ECN_HZ_MIN UINT64_C(1000000)
#define IBEX_ECN_HZ_MAX UINT64_C(5000000000)

/**
 * Validate @p cfg as ibex_ecn_params_set() does, without a clock: its
 * time_hz is not read, and the EWMA's idle decay is checked for every
 * tick rate from IBEX_ECN_HZ_MIN to IBEX_ECN_HZ_MAX. When it passes,
 * ibex_ecn_params_set() of @p cfg with any time_hz in that range
 * succeeds: a configuration layer checks a curve once, with no made-up
 * clock, and the data path builds it with its real one.
 *
 * @return 0, or -EINVAL with *err (may be NULL) saying which rule failed.
 */
int ibex_ecn_cfg_check(const struct ibex_ecn_cfg *cfg, const char **err);

/**
 * ibex's default curve for a port of @p rate_bps: the HPCC simulator's
 * per-speed values scaled linearly (4 kB Kmin and 16 kB Kmax per Gb/s,
 * Pmax 0.2), instantaneous queue. See docs/ecn.md for the reasoning.
 */
void ibex_ecn_cfg_default(struct ibex_ecn_cfg *cfg, uint64_t rate_bps);

/** Start a lane: empty average, not idle. */
void ibex_ecn_vars_init(struct ibex_ecn_vars *v);

/** Seed a per-lcore random state. */
static inline void
ibex_ecn_rng_seed(struct ibex_ecn_rng *r, uint64_t seed)
{
	r->s = seed;
}

/** Next 64 random bits (splitmix64, Steele, Lea & Flood 2014). */
static inline uint64_t
ibex_ecn_rng_next(struct ibex_ecn_rng *r)
{
	uint64_t z = (r->s += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/**
 * Mark threshold for a queue measure @p q (bytes), in 2^-32 units:
 * 0 .. 2^32. A frame is chosen when 32 random bits are below it.
 */
static inline uint64_t
ibex_ecn_threshold(const struct ibex_ecn_params *p, uint32_t q)
{
	if (q <= p->kmin)
		return 0;
	if (q > p->kmax)
		return IBEX_ECN_P_ONE;
	if (q == p->kmax)
		return p->pmax;
	/* q - kmin < kmax - kmin, so the product stays below 2^63. */
	return ((uint64_t)(q - p->kmin) * p->slope) >> IBEX_ECN_SLOPE_SHIFT;
}

/** The curve as a double, for tables and telemetry (not per frame). */
double ibex_ecn_prob(const struct ibex_ecn_params *p, uint32_t q);

/** Idle correction of the EWMA; called when a lane's idle period ends. */
void ibex_ecn_idle_decay(const struct ibex_ecn_params *p,
			 struct ibex_ecn_vars *v, uint64_t now);

/**
 * Update the lane's EWMA with one backlog sample and return the average in
 * bytes. avg += (q - avg) * 2^-wq, kept as avg << wq so that it is
 * qavg += q - (qavg >> wq) (red.h's red_calc_qavg_no_idle_time).
 */
static inline uint32_t
ibex_ecn_avg_update(const struct ibex_ecn_params *p, struct ibex_ecn_vars *v,
		    uint32_t qlen, uint64_t now)
{
	if (ibex_unlikely(v->idle))
		ibex_ecn_idle_decay(p, v, now);
	v->qavg = v->qavg - (v->qavg >> p->wq_log) + qlen;
	if (qlen == 0) {
		/* Empty after this frame: idle from now until the next one. */
		v->idle = 1;
		v->idle_since = now;
	}
	return (uint32_t)(v->qavg >> p->wq_log);
}

/** Above-Kmin part of ibex_ecn_decide(); not for direct use. */
enum ibex_ecn_verdict ibex_ecn_decide_slow(const struct ibex_ecn_params *p,
					   struct ibex_ecn_stats *s,
					   struct ibex_ecn_rng *rng,
					   uint32_t q, uint8_t ecn);

/**
 * Decide one frame of an egress lane, at dequeue.
 *
 * @param p     Lane parameters.
 * @param v     Lane state (EWMA mode only).
 * @param s     Lane counters.
 * @param rng   Per-lcore random state.
 * @param qlen  Bytes left in the lane, this frame excluded.
 * @param now   Time in the ticks of ibex_ecn_cfg::time_hz (EWMA only).
 * @param ecn   The frame's ECN field (two low bits of TOS / traffic class).
 * @return the verdict; only IBEX_ECN_V_MARK asks the caller to act.
 */
static inline enum ibex_ecn_verdict
ibex_ecn_decide(const struct ibex_ecn_params *p, struct ibex_ecn_vars *v,
		struct ibex_ecn_stats *s, struct ibex_ecn_rng *rng,
		uint32_t qlen, uint64_t now, uint8_t ecn)
{
	uint32_t q = qlen;

	IBEX_CNT_ADD(s->seen[ecn & 3], 1);
	if (p->wq_log != 0)
		q = ibex_ecn_avg_update(p, v, qlen, now);
	/* The common case: one compare and out. */
	if (ibex_likely(q <= p->kmin))
		return IBEX_ECN_V_PASS;
	return ibex_ecn_decide_slow(p, s, rng, q, ecn & 3);
}

/**
 * ECN-capable frames among counts by codepoint @p seen (the layout of
 * ibex_ecn_stats::seen): ECT(0), ECT(1) and CE, the last because a CE
 * frame was sent ECN-capable and marked upstream. The one definition of
 * "ECT seen" (docs/ecn.md), used by every counter view.
 */
static inline uint64_t
ibex_ecn_ect_seen(const uint64_t seen[4])
{
	return seen[1] + seen[2] + seen[3];
}

/** ECT frames seen (ECT(0), ECT(1) and CE). */
static inline uint64_t
ibex_ecn_stats_ect_seen(const struct ibex_ecn_stats *s)
{
	return ibex_ecn_ect_seen(s->seen);
}

#endif /* IBEX_ECN_H */
