/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_GEN_DCQCN_H
#define IBEX_GEN_DCQCN_H

/**
 * @file
 * DCQCN-style rate control of the generator's senders (reaction
 * point): rates in bytes/s, times in ticks passed in.
 */

#include <stdint.h>

/**
 * Reaction point of DCQCN (Zhu et al., SIGCOMM 2015), per sending rank.
 * Rates in bytes per second, times in ticks.
 *
 * On a CNP: Rt = Rc, Rc = Rc (1 - alpha/2), alpha = (1 - g) alpha + g,
 * and the increase counters restart. Every alpha period without a CNP:
 * alpha = (1 - g) alpha. Every increase period (timer) and every
 * byte_counter bytes (byte counter), one increase event: while both
 * counters are below F, fast recovery Rc = (Rt + Rc) / 2; once either
 * passed F, additive increase Rt += rai; once both did, hyper increase
 * Rt += i x rhai; then Rc = (Rt + Rc) / 2. Rates stay in [min, line].
 */
struct ibex_dcqcn_params {
	double line_rate;     /**< bytes/s; the start rate */
	double min_rate;      /**< bytes/s floor */
	double rai;           /**< additive increase, bytes/s */
	double rhai;          /**< hyper increase, bytes/s */
	double g;             /**< alpha gain (1/256) */
	uint64_t alpha_period; /**< ticks (55 us) */
	uint64_t inc_period;   /**< ticks (55 us) */
	uint64_t byte_counter; /**< bytes (10 MB) */
	uint32_t f;            /**< fast recovery steps (5) */
};

struct ibex_dcqcn {
	struct ibex_dcqcn_params p;
	double rc;            /**< current rate */
	double rt;            /**< target rate */
	double alpha;
	uint64_t alpha_at;    /**< next alpha decay */
	uint64_t inc_at;      /**< next timer increase */
	uint64_t bytes;       /**< since the last byte-counter event */
	uint32_t t_count;     /**< timer events since the last CNP */
	uint32_t b_count;     /**< byte-counter events since the last CNP */
	uint64_t cnps;
	uint64_t cuts;
};

/** Defaults for @p line_rate bytes/s at @p hz ticks/s. */
void ibex_dcqcn_defaults(struct ibex_dcqcn_params *p, double line_rate,
			 uint64_t hz);
void ibex_dcqcn_init(struct ibex_dcqcn *d, const struct ibex_dcqcn_params *p,
		     uint64_t now);
/** A CNP for this sender arrived. */
void ibex_dcqcn_cnp(struct ibex_dcqcn *d, uint64_t now);
/** Run the timers up to @p now (housekeeping, and before each send). */
void ibex_dcqcn_tick(struct ibex_dcqcn *d, uint64_t now);
/** @p bytes were sent (byte counter). */
void ibex_dcqcn_sent(struct ibex_dcqcn *d, uint64_t bytes);

#endif /* IBEX_GEN_DCQCN_H */
