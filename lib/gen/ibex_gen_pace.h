/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_GEN_PACE_H
#define IBEX_GEN_PACE_H

/**
 * @file
 * Open-loop pacing: departure times at a constant rate, in bursts or
 * Poisson, exact over the long term; one compare and add per frame.
 */

#include <stdbool.h>
#include <stdint.h>

#include "ibex_common.h"

/**
 * Departure times for an open-loop sender: constant rate (exact long-term
 * rate by carrying the remainder of hz / rate), bursts of @p burst frames
 * at rate / burst, or Poisson (exponential gaps). A sender that falls
 * more than max_lag behind restarts from now (counted in @p resync, the
 * time skipped in @p lost), so a stall is not followed by an unbounded
 * burst; its rate over the time it was not stalled stays exact.
 */
struct ibex_pacer {
	uint64_t next;      /**< tick of the next departure (event) */
	uint64_t q;         /**< whole ticks per event */
	uint64_t r;         /**< remainder per event, over den */
	uint64_t den;
	uint64_t acc;       /**< remainder carried */
	double mean;        /**< Poisson: mean ticks per event */
	double frac;        /**< Poisson: fraction of a tick carried */
	uint64_t rng;
	uint64_t max_lag;
	uint64_t resync;
	uint64_t lost;      /**< ticks resyncs skipped: the sender stalled,
			     *   nothing was due to go in them any more */
	uint64_t sent;
	uint32_t burst;
	uint32_t burst_left;
	bool poisson;
};

/**
 * @param hz     ticks per second
 * @param pps    frames per second (> 0)
 * @param burst  frames per departure (>= 1)
 * @return 0 or -EINVAL.
 */
int ibex_pacer_init(struct ibex_pacer *p, uint64_t hz, double pps,
		    uint32_t burst, bool poisson, uint64_t seed, uint64_t now);

/** @internal Step to the next departure event. */
void ibex_pacer_advance(struct ibex_pacer *p);

/**
 * Frames that may leave now, at most @p max (per burst of the caller).
 * Per call: a compare and an add per frame.
 */
static inline unsigned int
ibex_pacer_due(struct ibex_pacer *p, uint64_t now, unsigned int max)
{
	unsigned int n = 0;

	if (ibex_unlikely(now > p->next + p->max_lag)) {
		p->lost += now - p->next;
		p->next = now;
		p->resync++;
	}
	while (n < max) {
		if (p->burst_left > 0) {
			p->burst_left--;
			n++;
			continue;
		}
		if (now < p->next)
			break;
		p->burst_left = p->burst;
		ibex_pacer_advance(p);
	}
	p->sent += n;
	return n;
}

/** Give back @p n frames ibex_pacer_due() allowed but that could not go. */
static inline void
ibex_pacer_unsend(struct ibex_pacer *p, unsigned int n)
{
	p->burst_left += n;
	p->sent -= n;
}

#endif /* IBEX_GEN_PACE_H */
