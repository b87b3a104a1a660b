/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_GEN_SEARCH_H
#define IBEX_GEN_SEARCH_H

/**
 * @file
 * Benchmark searches: the binary search of RFC 2544 throughput and of
 * RFC 8239 microbursts, over trial results the caller runs.
 */

#include <stdbool.h>
#include <stdint.h>

/**
 * Binary search for the largest value (offered rate, burst length) whose
 * trial passes, RFC 2544 section 26.1 style: the first trial runs at the
 * maximum; if it passes, that is the answer; otherwise the value halves the
 * interval between the highest pass (lo, the minimum at first) and the
 * lowest failure (hi) until hi - lo <= resolution. A trial passes when its
 * loss (offered - received) / offered is at most loss_max (0: every
 * offered frame received).
 */
struct ibex_search {
	double min;        /**< lower end; lo starts here (never tried) */
	double max;        /**< first trial */
	double res;        /**< stop when hi - lo <= res */
	double loss_max;   /**< pass: loss fraction <= this */
	double lo;         /**< highest value that passed (min: none) */
	double hi;         /**< lowest value that failed (> max: none) */
	double cur;        /**< value of the trial in progress */
	bool integer;      /**< whole values only (burst lengths) */
	bool passed_any;
	bool done;
	unsigned int trials;
	double lo_loss;    /**< loss fraction of the trial that set lo */
	double hi_loss;    /**< loss fraction of the trial that set hi */
};

/**
 * @param min       lower end (e.g. 0 pps, or a known pass), not tried
 * @param max       upper end, tried first (> min)
 * @param res       resolution, same unit (> 0; integer searches: >= 1)
 * @param loss_max  0 for a zero-loss search, e.g. 0.001 for 0.1 %
 * @return 0 or -EINVAL.
 */
int ibex_search_init(struct ibex_search *s, double min, double max, double res,
		     double loss_max, bool integer);

/** Value of the next trial, also in s->cur. Call only while !s->done. */
double ibex_search_next(struct ibex_search *s);

/**
 * Result of the trial at s->cur: @p offered frames sent, @p received of
 * them arrived. @return true when the trial passed.
 */
bool ibex_search_record(struct ibex_search *s, uint64_t offered,
			uint64_t received);

/** Loss fraction of a trial: (offered - received) / offered, >= 0. */
static inline double
ibex_search_loss(uint64_t offered, uint64_t received)
{
	if (offered == 0 || received >= offered)
		return 0;
	return (double)(offered - received) / (double)offered;
}

/** Would a trial of @p offered / @p received frames pass @p s? */
static inline bool
ibex_search_pass(const struct ibex_search *s, uint64_t offered,
		 uint64_t received)
{
	return offered > 0 &&
	       (s->loss_max > 0 ? ibex_search_loss(offered, received) <=
				  s->loss_max : received >= offered);
}

#endif /* IBEX_GEN_SEARCH_H */
