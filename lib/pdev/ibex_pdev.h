/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_PDEV_H
#define IBEX_PDEV_H

/**
 * @file
 * Port devices: what a switch port or a generator port sends and receives
 * through. A port device is either an ethdev or an in-process device.
 *
 * DPDK sizes its ethdev tables at build time (RTE_MAX_ETHPORTS, 32 in
 * Debian's DPDK), and every end of an emulated fabric link is a port: a
 * leaf-spine of 4 x 2 with 64 ranks has 160 link ends. In-process devices
 * lift that bound. They are registered by a driver (net_ibexlink's
 * ibexlink_pair_create()) with the burst functions and the few slow-path
 * operations a port needs, and get ids above the ethdev range, so one
 * uint16_t names either kind and the data path keeps one field per port.
 *
 * The ibex_pdev_* calls take that id: an ethdev id goes straight to
 * rte_ethdev (the burst calls cost one compare more than rte_eth_*_burst),
 * an in-process id to its device's operations. In-process devices have no
 * RSS, offloads, MTU or hardware PFC: what they accept is what
 * ibex_pdev_info_get() says, in the ethdev's own terms.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

/** First id of an in-process device; ethdev ids are below it. */
#define IBEX_PDEV_BASE     RTE_MAX_ETHPORTS
/** In-process devices one process holds: every id above the ethdevs'
 * that a uint16_t holds, UINT16_MAX left as "no device" (65,503 with
 * RTE_MAX_ETHPORTS 32). A slot costs sizeof(struct ibex_pdev), 384
 * bytes; the table is zero until used and every scan stops at the
 * highest slot used, so memory and time follow the devices made. */
#define IBEX_PDEV_MAX      (UINT16_MAX - IBEX_PDEV_BASE)
/** Queues per direction of an in-process device. */
#define IBEX_PDEV_MAX_QUEUES 16
#define IBEX_PDEV_NAME_LEN RTE_ETH_NAME_MAX_LEN

typedef uint16_t (*ibex_pdev_burst_t)(void *queue, struct rte_mbuf **pkts,
				      uint16_t n);

/** What a driver of in-process devices provides. @p dev is its own. */
struct ibex_pdev_ops {
	ibex_pdev_burst_t rx_burst;
	ibex_pdev_burst_t tx_burst;
	int (*info_get)(void *dev, struct rte_eth_dev_info *info);
	/** Set up RX queue @p q; returns the queue for rx_burst in *rxq. */
	int (*rx_queue_setup)(void *dev, uint16_t q, uint16_t nb_desc,
			      struct rte_mempool *mp, bool timestamp,
			      void **rxq);
	int (*tx_queue_setup)(void *dev, uint16_t q, uint16_t nb_desc,
			      void **txq);
	int (*start)(void *dev);
	int (*stop)(void *dev);
	void (*link_get)(void *dev, struct rte_eth_link *link);
	void (*macaddr_get)(void *dev, struct rte_ether_addr *mac);
	int (*stats_get)(void *dev, struct rte_eth_stats *st);
	/** Release the device; after it the id is free again. */
	void (*close)(void *dev);
};

/** One in-process device. The burst path reads rx_burst..txq only. */
struct ibex_pdev {
	ibex_pdev_burst_t rx_burst;
	ibex_pdev_burst_t tx_burst;
	void *rxq[IBEX_PDEV_MAX_QUEUES];
	void *txq[IBEX_PDEV_MAX_QUEUES];
	const struct ibex_pdev_ops *ops;
	void *dev;
	bool timestamp;           /**< RX timestamp offload configured */
	char name[IBEX_PDEV_NAME_LEN];
} __rte_cache_aligned;

/** Every in-process device, by id - IBEX_PDEV_BASE; name[0] 0 if free. */
extern struct ibex_pdev ibex_pdevs[IBEX_PDEV_MAX];
/** Slots of ibex_pdevs ever used: the ones at and past it are free. */
extern unsigned int ibex_pdev_used;

/** True if @p id is an ethdev id (then every rte_eth_* call takes it). */
static inline bool
ibex_pdev_is_ethdev(uint16_t id)
{
	return id < IBEX_PDEV_BASE;
}

/**
 * Register an in-process device named @p name (unique among ethdevs and
 * devices). Returns its id, or -EEXIST, -ENOSPC, -EINVAL.
 */
int ibex_pdev_register(const char *name, const struct ibex_pdev_ops *ops,
		       void *dev);

/** The id of the port device named @p name, ethdev or in-process. */
int ibex_pdev_get_by_name(const char *name, uint16_t *id);

/** The name of port device @p id into @p name (IBEX_PDEV_NAME_LEN). */
int ibex_pdev_get_name(uint16_t id, char *name);

/** True if @p id names a port device of either kind. */
bool ibex_pdev_valid(uint16_t id);

/** Ethdevs and in-process devices, all of them. */
unsigned int ibex_pdev_count(void);

/**
 * rte_pktmbuf_pool_create(), with the order that suits the clock. Under
 * the real clock: DPDK's default handler. Under the virtual clock one
 * thread allocates and frees every mbuf, and the default ring is FIFO:
 * once the per-lcore cache overflows, each allocation takes the coldest
 * mbuf of the pool, a cache miss on its header and first data line. The
 * "stack" handler (LIFO) gives back the ones just freed, still in cache;
 * where it is missing, the default serves (and a notice says so, once).
 * EAL's --mbuf-pool-ops-name, when given, wins under either clock.
 */
struct rte_mempool *ibex_pdev_pool_create(const char *name, unsigned int n,
					  unsigned int cache_size,
					  uint16_t data_room, int socket_id);

/* The slow path, as the rte_eth_* call of the same name. On an in-process
 * device configure only checks the queue counts against info_get(),
 * promiscuous_enable and set_mtu are no-ops (a wire takes every frame
 * up to info.max_rx_pktlen), and socket_id is the caller's socket. */
int ibex_pdev_info_get(uint16_t id, struct rte_eth_dev_info *info);
int ibex_pdev_configure(uint16_t id, uint16_t nb_rxq, uint16_t nb_txq,
			const struct rte_eth_conf *conf);
int ibex_pdev_adjust_nb_rx_tx_desc(uint16_t id, uint16_t *nb_rxd,
				   uint16_t *nb_txd);
int ibex_pdev_rx_queue_setup(uint16_t id, uint16_t q, uint16_t nb_desc,
			     unsigned int socket,
			     const struct rte_eth_rxconf *conf,
			     struct rte_mempool *mp);
int ibex_pdev_tx_queue_setup(uint16_t id, uint16_t q, uint16_t nb_desc,
			     unsigned int socket,
			     const struct rte_eth_txconf *conf);
int ibex_pdev_set_mtu(uint16_t id, uint16_t mtu);
int ibex_pdev_start(uint16_t id);
int ibex_pdev_stop(uint16_t id);
int ibex_pdev_close(uint16_t id);
int ibex_pdev_promiscuous_enable(uint16_t id);
int ibex_pdev_socket_id(uint16_t id);
int ibex_pdev_link_get_nowait(uint16_t id, struct rte_eth_link *link);
int ibex_pdev_macaddr_get(uint16_t id, struct rte_ether_addr *mac);
int ibex_pdev_stats_get(uint16_t id, struct rte_eth_stats *st);

static inline uint16_t
ibex_pdev_rx_burst(uint16_t id, uint16_t q, struct rte_mbuf **pkts,
		   uint16_t n)
{
	const struct ibex_pdev *d;

	if (likely(ibex_pdev_is_ethdev(id)))
		return rte_eth_rx_burst(id, q, pkts, n);
	d = &ibex_pdevs[id - IBEX_PDEV_BASE];
	return d->rx_burst(d->rxq[q], pkts, n);
}

static inline uint16_t
ibex_pdev_tx_burst(uint16_t id, uint16_t q, struct rte_mbuf **pkts,
		   uint16_t n)
{
	const struct ibex_pdev *d;

	if (likely(ibex_pdev_is_ethdev(id)))
		return rte_eth_tx_burst(id, q, pkts, n);
	d = &ibex_pdevs[id - IBEX_PDEV_BASE];
	return d->tx_burst(d->txq[q], pkts, n);
}

#endif /* IBEX_PDEV_H */
