/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_CLOCK_H
#define IBEX_CLOCK_H

/**
 * @file
 * The one clock of the data path, the generator and the emulated links
 * (docs/simulation.md).
 *
 * Real clock (the default): the TSC, read with rte_rdtsc(); the test
 * below is one predictable branch on a read-mostly flag, beside the
 * ~25-cycle rdtsc, and nothing per frame.
 *
 * Virtual clock (ibex-fabric --clock virtual): time is simulated. It is
 * a counter of IBEX_CLOCK_VIRTUAL_HZ ticks (nanoseconds) that only the
 * discrete-event executive moves, between the steps it runs; a read never
 * sees it move. The components that poll (the generator's loops) call
 * ibex_clock_poll() once a turn: under the virtual clock that call runs
 * one step of the executive (every other component takes its turn at the
 * present instant, and the executive moves time to the next event when a
 * whole turn did nothing), so the same loops run unchanged under both
 * clocks.
 *
 * Threads: the executive runs on one lcore, and so do all the components
 * it steps; other threads (the control thread) may read the virtual clock
 * at any time and see some instant of the run.
 */

#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_cycles.h>

/** Ticks per second of the virtual clock: nanoseconds. */
#define IBEX_CLOCK_VIRTUAL_HZ UINT64_C(1000000000)

/** One step of the executive: run the components that have work at the
 * present instant, then perhaps move time (ibex_clock_set()). */
typedef void (*ibex_clock_step_fn)(void *arg);

/** An event for the executive: component @p owner has work at time @p t
 * (ticks), e.g. a frame's last bit arriving at one of its ports. */
typedef void (*ibex_clock_wake_fn)(void *arg, uint32_t owner, uint64_t t);

/** No component: an event nobody is told of. */
#define IBEX_CLOCK_NO_OWNER UINT32_MAX

struct ibex_clock {
	bool virt;                  /**< the virtual clock runs */
	ibex_clock_step_fn step;    /**< the executive, or NULL */
	void *step_arg;
	ibex_clock_wake_fn wake;    /**< the executive's calendar, or NULL */
	void *wake_arg;
	/** The polling component's promise for the next step (0: none);
	 * ibex_clock_idle_until(). The executive's thread only. */
	uint64_t idle_until;
	/** Virtual time, ticks; written by the executive only. */
	alignas(RTE_CACHE_LINE_SIZE) _Atomic uint64_t now;
};

/** The process's clock (ibex_clock.c). */
extern struct ibex_clock ibex_clock_g;

/** True under the virtual clock. */
static inline bool
ibex_clock_is_virtual(void)
{
	return ibex_clock_g.virt;
}

/** The present, in ticks of ibex_clock_hz(). Never steps the executive. */
static inline uint64_t
ibex_clock_now(void)
{
	if (likely(!ibex_clock_g.virt))
		return rte_rdtsc();
	return atomic_load_explicit(&ibex_clock_g.now, memory_order_relaxed);
}

/** Ticks per second of ibex_clock_now(). */
static inline uint64_t
ibex_clock_hz(void)
{
	if (likely(!ibex_clock_g.virt))
		return rte_get_tsc_hz();
	return IBEX_CLOCK_VIRTUAL_HZ;
}

/**
 * A polling loop's turn: under the virtual clock, first one step of the
 * executive (which may move time), then the present. Under the real clock
 * the same as ibex_clock_now().
 */
static inline uint64_t
ibex_clock_poll(void)
{
	if (likely(!ibex_clock_g.virt))
		return rte_rdtsc();
	if (ibex_clock_g.step != NULL)
		ibex_clock_g.step(ibex_clock_g.step_arg);
	return atomic_load_explicit(&ibex_clock_g.now, memory_order_relaxed);
}

/**
 * Switch this process to the virtual clock, at time @p start ticks. Call
 * before any component reads the clock (before the links, the switches
 * and the generator are made): they keep their time base from then on.
 */
void ibex_clock_use_virtual(uint64_t start);

/** The executive that ibex_clock_poll() steps (NULL: none, time stands). */
void ibex_clock_set_step(ibex_clock_step_fn fn, void *arg);

/** The executive's calendar (NULL: none), which the emulated links tell
 * of the events they schedule. */
void ibex_clock_set_wake(ibex_clock_wake_fn fn, void *arg);

/** Tell the executive that @p owner has work at @p t (ticks); nothing
 * without an executive or an owner. */
static inline void
ibex_clock_wake(uint32_t owner, uint64_t t)
{
	if (ibex_clock_g.wake != NULL && owner != IBEX_CLOCK_NO_OWNER)
		ibex_clock_g.wake(ibex_clock_g.wake_arg, owner, t);
}

/**
 * A polling component's promise, made in its turn: it has nothing to do
 * before @p t (ticks) unless the calendar wakes it (a frame arriving at
 * one of its ports). The executive then moves the clock to @p t, or to
 * the calendar's next event if that comes first: past its housekeeping
 * ticks, or before the next one (a wake-up at @p t, off the grid). Good
 * for the next step only, so a component that still waits says it again
 * each turn; 0 takes a promise back. Under the real clock, nothing.
 */
static inline void
ibex_clock_idle_until(uint64_t t)
{
	if (ibex_clock_g.virt)
		ibex_clock_g.idle_until = t;
}

/** The executive's: take the promise of the turn that just ended (0: the
 * component made none). */
static inline uint64_t
ibex_clock_take_idle(void)
{
	uint64_t t = ibex_clock_g.idle_until;

	ibex_clock_g.idle_until = 0;
	return t;
}

/** Move virtual time to @p t (never backwards: an earlier @p t is ignored).
 * The executive's only. */
static inline void
ibex_clock_set(uint64_t t)
{
	if (t > atomic_load_explicit(&ibex_clock_g.now, memory_order_relaxed))
		atomic_store_explicit(&ibex_clock_g.now, t,
				      memory_order_relaxed);
}

/** Seconds since @p t0 (ticks of this clock), as a double. */
static inline double
ibex_clock_since_s(uint64_t t0)
{
	return (double)(ibex_clock_now() - t0) / (double)ibex_clock_hz();
}

#endif /* IBEX_CLOCK_H */
