/* SPDX-License-Identifier: BSD-3-Clause */
/* What the data path tests share: see dp_harness.h. */

#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_mbuf.h>

#include "dp_harness.h"
#include "ibex_conf.h"
#include "ibex_dp.h"

int
dp_harness_eal(const char *prog, const char *mem_mb, const char *lcores)
{
	char prefix[96];
	char *argv[] = { (char *)prog, "--no-huge", "-m", (char *)mem_mb,
			 "--no-pci", "--lcores", (char *)lcores,
			 "--log-level", "lib.*:warning", prefix, NULL };

	snprintf(prefix, sizeof(prefix), "--file-prefix=%s_%d", prog,
		 (int)getpid());
	return rte_eal_init((int)RTE_DIM(argv) - 1, argv) < 0 ? -1 : 0;
}

struct rte_mempool *
dp_harness_group_start(const char *prog, const char *mem_mb,
		       unsigned int nb_mbufs, struct ibex_conf *base,
		       const char *tag, unsigned int nb_ports,
		       unsigned int rx_size, unsigned int tx_size,
		       struct rte_ring **rx, struct rte_ring **tx)
{
	struct rte_mempool *pool;
	unsigned int i;

	if (dp_harness_eal(prog, mem_mb, "0@0,1@1") < 0)
		return NULL;
	pool = rte_pktmbuf_pool_create("test_pool", nb_mbufs, 256, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	if (pool == NULL)
		return NULL;
	ibex_conf_init(base);
	snprintf(base->origin, sizeof(base->origin), "test");
	for (i = 0; i < nb_ports; i++)
		if (dp_harness_ring_port(base, tag, i, rx_size, tx_size,
					 &rx[i], &tx[i]) < 0)
			return NULL;
	return pool;
}

int
dp_harness_ring_port(struct ibex_conf *c, const char *tag, unsigned int i,
		     unsigned int rx_size, unsigned int tx_size,
		     struct rte_ring **rx, struct rte_ring **tx)
{
	char name[RTE_ETH_NAME_MAX_LEN], port[8];
	int pid;

	snprintf(name, sizeof(name), "%srx%u", tag, i);
	*rx = rte_ring_create(name, rx_size, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	snprintf(name, sizeof(name), "%stx%u", tag, i);
	*tx = rte_ring_create(name, tx_size, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (*rx == NULL || *tx == NULL)
		return -1;
	snprintf(name, sizeof(name), "%s%u", tag, i);
	pid = rte_eth_from_rings(name, rx, 1, tx, 1, 0);
	if (pid < 0 || rte_eth_dev_get_name_by_port((uint16_t)pid, name) != 0)
		return -1;
	snprintf(port, sizeof(port), "r%u", i);
	return ibex_conf_port_add(c, port, name) < 0 ? -1 : 0;
}

int
dp_harness_ring_port_mq(struct ibex_conf *c, const char *tag, unsigned int i,
			unsigned int nb_rxq, unsigned int nb_txq,
			unsigned int rx_size, unsigned int tx_size,
			struct rte_ring **rx, struct rte_ring **tx)
{
	struct rte_ring *txs[RTE_MAX_QUEUES_PER_PORT];
	char name[RTE_ETH_NAME_MAX_LEN], port[8];
	unsigned int q;
	int pid;

	if (nb_rxq == 0 || nb_txq == 0 || nb_txq > RTE_DIM(txs))
		return -1;
	for (q = 0; q < nb_rxq; q++) {
		snprintf(name, sizeof(name), "%srx%u_%u", tag, i, q);
		rx[q] = rte_ring_create(name, rx_size, 0,
					RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (rx[q] == NULL)
			return -1;
	}
	/* One ring behind every TX queue, several producers: a wire, in
	 * the order the queues handed their frames over. */
	snprintf(name, sizeof(name), "%stx%u", tag, i);
	*tx = rte_ring_create(name, tx_size, 0, RING_F_SC_DEQ);
	if (*tx == NULL)
		return -1;
	for (q = 0; q < nb_txq; q++)
		txs[q] = *tx;
	snprintf(name, sizeof(name), "%s%u", tag, i);
	pid = rte_eth_from_rings(name, rx, nb_rxq, txs, nb_txq, 0);
	if (pid < 0 || rte_eth_dev_get_name_by_port((uint16_t)pid, name) != 0)
		return -1;
	snprintf(port, sizeof(port), "r%u", i);
	return ibex_conf_port_add(c, port, name) < 0 ? -1 : 0;
}

void
dp_harness_rings_flush(struct rte_ring **rx, struct rte_ring **tx,
		       unsigned int n)
{
	struct rte_mbuf *m;
	unsigned int p;

	for (p = 0; p < n; p++) {
		while (rte_ring_dequeue(rx[p], (void **)&m) == 0)
			rte_pktmbuf_free(m);
		while (rte_ring_dequeue(tx[p], (void **)&m) == 0)
			rte_pktmbuf_free(m);
	}
}

void
dp_harness_workers_start(struct ibex_dp *dp)
{
	if (ibex_dp_start(dp) < 0)
		fprintf(stderr, "cannot launch the workers\n");
}

void
dp_harness_workers_stop(struct ibex_dp *dp)
{
	ibex_dp_stop(dp);
}
