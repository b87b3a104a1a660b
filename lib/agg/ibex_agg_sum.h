/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_AGG_SUM_H
#define IBEX_AGG_SUM_H

/**
 * @file
 * Element-wise adds of the aggregation slots: acc[i] += src[i] for n
 * elements, src unaligned (a packet's payload). int32 wraps (two's
 * complement, no overflow check); fp32 is one IEEE 754 add per element,
 * round to nearest, no fused or reassociated operations, so the vector
 * and scalar paths give the same bits for every sum that is not a NaN:
 * vectors run across elements, never along one element's sum. (Two NaN
 * operands: the scalar add keeps acc's payload, the vector add src's; a
 * NaN stays a NaN.)
 *
 * The vector path is AVX2 when the CPU has it (checked once, at run time:
 * DPDK's -march=corei7 does not promise it), SSE2 otherwise on x86_64,
 * and the scalar loop elsewhere.
 */

#include <stdint.h>

/** acc[i] += src[i], wrapping. */
void ibex_agg_add_i32(int32_t *acc, const void *src, uint32_t n);
/** acc[i] += src[i], IEEE 754 binary32. */
void ibex_agg_add_f32(float *acc, const void *src, uint32_t n);

/** The scalar loops, for tests and the benchmark. */
void ibex_agg_add_i32_scalar(int32_t *acc, const void *src, uint32_t n);
void ibex_agg_add_f32_scalar(float *acc, const void *src, uint32_t n);

/** Which path ibex_agg_add_*() take: "avx2", "sse2" or "scalar". */
const char *ibex_agg_add_path(void);

#endif /* IBEX_AGG_SUM_H */
