/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_GEN_ENGINE_H
#define IBEX_GEN_ENGINE_H

/**
 * @file
 * The generator's engines as the user names them (--engine): each
 * collective (its algorithm, struct ibex_coll_algo) and the open-loop rate
 * engine. A run looks its engine up once; the runner then drives a
 * collective or the open loop through its own ops (lib/gen/ibex_gen_run.c),
 * so nothing per frame asks which engine it is.
 */

#include <stdbool.h>

#include "ibex_gen_coll.h"

/** One engine. */
struct ibex_gen_engine {
	const char *name;
	const char *help;                  /**< one line for the usage */
	const struct ibex_coll_algo *coll; /**< NULL: the open-loop rate engine */
	/** In-network all-reduce (lib/gen/ibex_gen_inc.h): coll only
	 * describes its schedule to the tables and reports. */
	bool inc;
};

extern const struct ibex_gen_engine ibex_gen_engine_ring;
extern const struct ibex_gen_engine ibex_gen_engine_hd;
extern const struct ibex_gen_engine ibex_gen_engine_incast;
extern const struct ibex_gen_engine ibex_gen_engine_alltoall;
extern const struct ibex_gen_engine ibex_gen_engine_inc;
/** Open loop: paced frames, rank r -> r+1 or the --flow list. */
extern const struct ibex_gen_engine ibex_gen_engine_rate;

/** Every engine, NULL-terminated, in the order the usage lists them. */
extern const struct ibex_gen_engine *const ibex_gen_engines[];

/** Engine by name. @return it, or NULL. */
const struct ibex_gen_engine *ibex_gen_engine_find(const char *name);

/** The open-loop rate engine (no collective)? */
static inline bool
ibex_gen_open_loop(const struct ibex_gen_engine *e)
{
	return e->coll == NULL;
}

/** Bus bandwidth factor of the engine for @p n ranks (open loop: 1). */
static inline double
ibex_gen_busbw_factor(const struct ibex_gen_engine *e, unsigned int n)
{
	return ibex_coll_busbw_factor(e->coll, n);
}

#endif /* IBEX_GEN_ENGINE_H */
