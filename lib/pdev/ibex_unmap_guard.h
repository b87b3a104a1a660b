/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_UNMAP_GUARD_H
#define IBEX_UNMAP_GUARD_H

/**
 * @file
 * Shared-memory ports that lose their peer: no unmap under a poller.
 *
 * DPDK 22.11's memif PMD disconnects on EAL's interrupt thread: it clears
 * the port's CONNECTED flag, then unmaps the shared rings and buffers
 * (memif_free_regions()). The burst functions test the flag once, on
 * entry, with no lock, so a poller preempted inside a burst touches the
 * unmapped rings when it resumes and the process dies (SIGSEGV in
 * librte_net_memif). The PMD raises no event before it unmaps.
 *
 * ibex closes the window at the one call every disconnect makes: munmap().
 * Each program defines munmap() (exported to the PMDs it loads); on the
 * interrupt thread it first waits for a grace period of every registered
 * poller domain (an rte_rcu_qsbr whose threads report a quiescent state
 * between bursts), then unmaps. A burst that was running when the flag was
 * cleared has then returned, and any later burst sees the flag clear and
 * returns before it touches a ring. munmap() from any other thread, and
 * from the interrupt thread in a program with no domain registered, goes
 * straight to the C library.
 *
 * A capture ends the same way: rte_pdump removes its RX/TX callbacks,
 * which copy frames into a secondary process's (dpdk-dumpcap's) mbuf pool
 * and ring, without waiting for a running one, and replies; dumpcap then
 * frees the pool and ring, which EAL zeroes. So each program also defines
 * rte_mp_reply() (exported, so librte_pdump binds to it), and a reply on
 * rte_pdump's channel waits for the same grace period before it goes.
 *
 * The wait sleeps between looks (never spins on a shared CPU) and gives up
 * after IBEX_UNMAP_GUARD_WAIT_MS with a warning, so a poller stuck
 * elsewhere cannot hang the interrupt thread for good. It runs once per
 * disconnect, never on the forwarding path.
 */

struct rte_rcu_qsbr;

/** Longest wait for the pollers before an unmap goes ahead anyway. */
#define IBEX_UNMAP_GUARD_WAIT_MS 2000

/**
 * Register a domain of pollers: from now on an unmap on the interrupt
 * thread waits until each of @p v's online threads passed a quiescent
 * state. @p v must stay valid until ibex_unmap_guard_del().
 * @return 0, or -ENOMEM.
 */
int ibex_unmap_guard_add(struct rte_rcu_qsbr *v);

/** Forget @p v (before it is freed); no-op if it was not registered. */
void ibex_unmap_guard_del(struct rte_rcu_qsbr *v);

/** Unmaps that waited for a grace period, and those whose wait timed out. */
void ibex_unmap_guard_stats(unsigned long *waited, unsigned long *timed_out);

#endif /* IBEX_UNMAP_GUARD_H */
