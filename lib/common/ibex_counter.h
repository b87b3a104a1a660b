/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_COUNTER_H
#define IBEX_COUNTER_H

/**
 * @file
 * Single-writer counters: one thread (a worker) writes a counter, any
 * thread may read it while it changes.
 *
 * The writer adds with a relaxed atomic store of its own plain read (it is
 * the only writer, so no read-modify-write is needed); readers use a
 * relaxed atomic load and see every 64-bit word whole, never torn. On
 * x86-64 both are ordinary mov/add instructions: no lock prefix, no fence,
 * so a per-frame counter costs what a plain `++` costs. What C11 gains is
 * that the reads on other cores are not data races (the compiler may not
 * split, cache or invent the stores), which a plain `++` does not promise.
 *
 * No ordering is implied: a reader that needs counter A and state B to
 * agree must get that elsewhere (they are statistics). Works on any
 * integer field (uint64_t counters, uint32_t queue indices and gauges).
 * Header only and free of DPDK, for the pure libraries.
 */

/** Writer side: @p field += @p n (only the owning thread may call it). */
#define IBEX_CNT_ADD(field, n) \
	__atomic_store_n(&(field), (field) + (n), __ATOMIC_RELAXED)

/** Writer side: @p field -= @p n, for gauges (queue bytes, buffer use). */
#define IBEX_CNT_SUB(field, n) \
	__atomic_store_n(&(field), (field) - (n), __ATOMIC_RELAXED)

/** Writer side: set a gauge to @p v. */
#define IBEX_CNT_SET(field, v) \
	__atomic_store_n(&(field), (v), __ATOMIC_RELAXED)

/** Reader side, any thread: the counter's current value, whole. */
#define IBEX_CNT_READ(field) __atomic_load_n(&(field), __ATOMIC_RELAXED)

#endif /* IBEX_COUNTER_H */
