/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_DP_HARNESS_H
#define IBEX_DP_HARNESS_H

/*
 * What the data path tests share: EAL without hugepages, ports made of two
 * rings (the test enqueues on RX and reads what ibex sent from TX), and
 * starting and stopping the workers around a run.
 */

#include <stddef.h>

#include <rte_ring.h>

struct ibex_conf;
struct ibex_dp;

/** rte_eal_init with --no-huge -m @p mem_mb --no-pci --lcores @p lcores and
 * a file prefix unique to this process. @return 0 or -1. */
int dp_harness_eal(const char *prog, const char *mem_mb, const char *lcores);

/**
 * Create rings "<tag>rx<i>" (@p rx_size) and "<tag>tx<i>" (@p tx_size), an
 * ethdev over them named "<tag><i>", and add it to @p c as port "r<i>".
 * @return 0 or -1.
 */
int dp_harness_ring_port(struct ibex_conf *c, const char *tag, unsigned int i,
			 unsigned int rx_size, unsigned int tx_size,
			 struct rte_ring **rx, struct rte_ring **tx);

/**
 * The same with @p nb_rxq RX rings "<tag>rx<i>_<q>" (in @p rx[0..]) and
 * one multi-producer TX ring behind all @p nb_txq TX queues (one per
 * worker): what the workers send arrives on one ring, as on a wire.
 * @return 0 or -1.
 */
int dp_harness_ring_port_mq(struct ibex_conf *c, const char *tag,
			    unsigned int i, unsigned int nb_rxq,
			    unsigned int nb_txq, unsigned int rx_size,
			    unsigned int tx_size, struct rte_ring **rx,
			    struct rte_ring **tx);

/**
 * What every dp test group starts with: EAL (dp_harness_eal), a pool
 * "test_pool" of @p nb_mbufs default-size mbufs, and @p base initialised
 * (origin "test") with @p nb_ports ring ports (dp_harness_ring_port).
 * @return the pool, or NULL.
 */
struct rte_mempool *dp_harness_group_start(const char *prog,
		const char *mem_mb, unsigned int nb_mbufs,
		struct ibex_conf *base, const char *tag, unsigned int nb_ports,
		unsigned int rx_size, unsigned int tx_size,
		struct rte_ring **rx, struct rte_ring **tx);

/** Free every mbuf left on the rings of @p n ports. */
void dp_harness_rings_flush(struct rte_ring **rx, struct rte_ring **tx,
			    unsigned int n);

/** Launch the data path's workers on their lcores. */
void dp_harness_workers_start(struct ibex_dp *dp);

/** Ask them to stop and wait until they have. */
void dp_harness_workers_stop(struct ibex_dp *dp);

#endif /* IBEX_DP_HARNESS_H */
