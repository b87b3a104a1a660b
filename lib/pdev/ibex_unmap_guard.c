/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * munmap() that waits for the pollers when a shared-memory port's peer
 * leaves: see ibex_unmap_guard.h for the race it closes.
 *
 * The registry of poller domains is changed on the main thread (a data
 * path or a generator created or freed) and read on the interrupt thread;
 * one mutex covers both, held across the wait so a domain cannot be freed
 * under it. Lock order: this mutex is a leaf (nothing else is taken while
 * it is held, and nothing held while taking it waits for the interrupt
 * thread).
 */

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_interrupts.h>
#include <rte_log.h>
#include <rte_rcu_qsbr.h>

#include "ibex_unmap_guard.h"

RTE_LOG_REGISTER(ibex_unmap_guard_logtype, ibex.pdev, NOTICE);

/* Between two looks at the pollers' quiescent states. */
#define GUARD_SLEEP_US 100

static pthread_mutex_t guard_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rte_rcu_qsbr **guard_domains;
static unsigned int guard_nb, guard_cap;
static atomic_ulong guard_waited, guard_timed_out;

typedef int (*munmap_fn)(void *, size_t);
static munmap_fn real_munmap;

/* The next munmap() after ours: the C library's, or a sanitizer's. */
static int
next_munmap(void *addr, size_t len)
{
	munmap_fn f = __atomic_load_n(&real_munmap, __ATOMIC_ACQUIRE);

	if (f == NULL) {
		f = (munmap_fn)(uintptr_t)dlsym(RTLD_NEXT, "munmap");
		if (f != NULL)
			__atomic_store_n(&real_munmap, f, __ATOMIC_RELEASE);
	}
	if (f != NULL)
		return f(addr, len);
	return (int)syscall(SYS_munmap, addr, len);
}

int
ibex_unmap_guard_add(struct rte_rcu_qsbr *v)
{
	int ret = 0;

	pthread_mutex_lock(&guard_lock);
	if (guard_nb == guard_cap) {
		unsigned int cap = guard_cap != 0 ? guard_cap * 2 : 8;
		struct rte_rcu_qsbr **d;

		d = realloc(guard_domains, cap * sizeof(*d));
		if (d == NULL) {
			ret = -ENOMEM;
			goto out;
		}
		guard_domains = d;
		guard_cap = cap;
	}
	guard_domains[guard_nb++] = v;
out:
	pthread_mutex_unlock(&guard_lock);
	return ret;
}

void
ibex_unmap_guard_del(struct rte_rcu_qsbr *v)
{
	unsigned int i;

	pthread_mutex_lock(&guard_lock);
	for (i = 0; i < guard_nb; i++)
		if (guard_domains[i] == v) {
			guard_domains[i] = guard_domains[--guard_nb];
			break;
		}
	pthread_mutex_unlock(&guard_lock);
}

void
ibex_unmap_guard_stats(unsigned long *waited, unsigned long *timed_out)
{
	*waited = atomic_load_explicit(&guard_waited, memory_order_relaxed);
	*timed_out = atomic_load_explicit(&guard_timed_out,
					  memory_order_relaxed);
}

/* One grace period over every domain, sleeping between looks; more
 * domains than the token array (a fabric of many switches) in groups. */
static void
guard_wait(void)
{
	uint64_t tokens[64];
	uint64_t deadline;
	unsigned int i;

	pthread_mutex_lock(&guard_lock);
	if (guard_nb == 0) {
		pthread_mutex_unlock(&guard_lock);
		return;
	}
	deadline = rte_get_timer_cycles() +
		   rte_get_timer_hz() / 1000 * IBEX_UNMAP_GUARD_WAIT_MS;
	for (i = 0; i < guard_nb; i += RTE_DIM(tokens)) {
		unsigned int n = RTE_MIN(guard_nb - i, RTE_DIM(tokens)), k;
		bool quiet = false;

		for (k = 0; k < n; k++)
			tokens[k] = rte_rcu_qsbr_start(guard_domains[i + k]);
		while (!quiet && rte_get_timer_cycles() < deadline) {
			quiet = true;
			for (k = 0; k < n && quiet; k++)
				quiet = rte_rcu_qsbr_check(guard_domains[i + k],
							   tokens[k],
							   false) != 0;
			if (!quiet)
				rte_delay_us_sleep(GUARD_SLEEP_US);
		}
		if (!quiet) {
			atomic_fetch_add_explicit(&guard_timed_out, 1,
						  memory_order_relaxed);
			rte_log(RTE_LOG_WARNING, ibex_unmap_guard_logtype,
				"IBEX_PDEV: a port's peer or a capture left, "
				"and a poller passed no quiescent state in %u "
				"ms: its shared memory is released anyway\n",
				IBEX_UNMAP_GUARD_WAIT_MS);
			break;
		}
	}
	atomic_fetch_add_explicit(&guard_waited, 1, memory_order_relaxed);
	pthread_mutex_unlock(&guard_lock);
}

/*
 * Every munmap() of the program (and of the PMDs it loads, through the
 * dynamic symbol table: see lib/pdev/meson.build) comes here. Only the
 * interrupt thread waits; that is where a peer's disconnect unmaps.
 */
int munmap(void *addr, size_t len);

int
munmap(void *addr, size_t len)
{
	if (rte_thread_is_intr())
		guard_wait();
	return next_munmap(addr, len);
}

typedef int (*mp_reply_fn)(struct rte_mp_msg *, const char *);
static mp_reply_fn real_mp_reply;

/*
 * A capture's end has the same race as a peer's exit. dpdk-dumpcap, a
 * secondary process, asks the switch (over EAL's multi-process channel)
 * to stop capturing; rte_pdump removes its RX/TX callbacks, which copy
 * frames into dumpcap's mbuf pool and ring, and replies at once, without
 * waiting for a worker inside one. dumpcap then frees the pool and ring,
 * and EAL's allocator zeroes freed memory, so a worker preempted in the
 * copy resumes on a zeroed pool and takes an mbuf whose buffer is NULL
 * (SIGSEGV in rte_pktmbuf_copy()). Every reply of rte_pdump's ("mp_pdump",
 * the name DPDK 22.11's rte_pdump.c gives its channel) comes through here
 * and waits for a grace period first: once dumpcap reads it, no worker
 * is in a removed callback. (Enable replies wait too, harmlessly.)
 */
int
rte_mp_reply(struct rte_mp_msg *msg, const char *peer)
{
	mp_reply_fn f = __atomic_load_n(&real_mp_reply, __ATOMIC_ACQUIRE);

	if (f == NULL) {
		f = (mp_reply_fn)(uintptr_t)dlsym(RTLD_NEXT, "rte_mp_reply");
		if (f == NULL)
			return -ENOSYS;
		__atomic_store_n(&real_mp_reply, f, __ATOMIC_RELEASE);
	}
	if (msg != NULL && strncmp(msg->name, "mp_pdump",
				   sizeof(msg->name)) == 0)
		guard_wait();
	return f(msg, peer);
}
