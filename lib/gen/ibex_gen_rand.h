/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_GEN_RAND_H
#define IBEX_GEN_RAND_H

/**
 * @file
 * Seeded, reproducible randomness of the generator (straggler draws,
 * Poisson gaps): the same seed gives the same run.
 */

#include <stdint.h>

/** splitmix64: a seeded, reproducible 64-bit generator. */
static inline uint64_t
ibex_gen_rand(uint64_t *state)
{
	uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

/** Uniform double in [0, 1). */
static inline double
ibex_gen_rand_unit(uint64_t *state)
{
	return (double)(ibex_gen_rand(state) >> 11) * 0x1.0p-53;
}

#endif /* IBEX_GEN_RAND_H */
