/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The process's clock (ibex_clock.h): which one runs, and the executive
 * that moves the virtual one.
 */
#include "ibex_clock.h"

struct ibex_clock ibex_clock_g;

void
ibex_clock_use_virtual(uint64_t start)
{
	atomic_store_explicit(&ibex_clock_g.now, start, memory_order_relaxed);
	ibex_clock_g.virt = true;
}

void
ibex_clock_set_step(ibex_clock_step_fn fn, void *arg)
{
	ibex_clock_g.step_arg = arg;
	ibex_clock_g.step = fn;
}

void
ibex_clock_set_wake(ibex_clock_wake_fn fn, void *arg)
{
	ibex_clock_g.wake_arg = arg;
	ibex_clock_g.wake = fn;
}
