/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_GEN_LIMITS_H
#define IBEX_GEN_LIMITS_H

/**
 * @file
 * Sizes of the generator's fixed tables (ranks, ports, flows, steps,
 * open-loop flows, sweeps). Nothing else: every module of lib/gen may
 * include it without pulling another.
 */

#include <stdint.h>

/**
 * Most ranks of a collective's state machine (lib/gen/ibex_gen_coll.c),
 * whose arrays are allocated by the rank and step counts: 2^14, what the
 * probe's 14-bit rank fields of a wider flow id would carry.
 */
#define IBEX_COLL_MAX_RANKS 16384
/**
 * Most emulated ranks of a run: a collective's. The run's tables hold
 * only the (source, destination) pairs it uses (lib/gen/ibex_gen_slots.h),
 * allocated at create: nothing is sized by this bound.
 */
#define IBEX_GEN_MAX_RANKS IBEX_COLL_MAX_RANKS
/** Most ports one generator drives (ibex-fabric: one per rank). */
#define IBEX_GEN_MAX_PORTS IBEX_GEN_MAX_RANKS
/**
 * Most (rank, step) input counters of a collective, 8 bytes each: 2^25
 * is 256 MiB. Halving-doubling at 16,384 ranks needs 16,384 x 28; a ring
 * 2(n-1) per rank, so a ring stops at 4,096 ranks (4,096 x 8,190).
 */
#define IBEX_COLL_MAX_CELLS (UINT32_C(1) << 25)
/** Queue pairs per connection (--qps), as NCCL_IB_QPS_PER_CONNECTION. */
#define IBEX_GEN_MAX_QPS 8
/** Most open-loop flows (--flow). */
#define IBEX_GEN_MAX_RFLOWS 64
/** Most frame sizes of a throughput search (--sizes). */
#define IBEX_GEN_MAX_SEARCH_SIZES 16

/** Most iterations recorded per size. */
#define IBEX_GEN_MAX_ITERS 100000
/** Most message sizes of a sweep. */
#define IBEX_GEN_MAX_SIZES 64

#endif /* IBEX_GEN_LIMITS_H */
