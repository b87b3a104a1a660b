/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Port devices: ethdevs through rte_ethdev, in-process devices through
 * their driver's operations. Registration and every slow-path call run on
 * the main thread (as ethdev's configuration calls do); the burst calls
 * run on the queue's one polling thread.
 */

#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_mempool.h>

#include "ibex_clock.h"
#include "ibex_pdev.h"

RTE_LOG_REGISTER(ibex_pdev_logtype, ibex.pdev, INFO);
#define RTE_LOGTYPE_IBEX_PDEV ibex_pdev_logtype

struct ibex_pdev ibex_pdevs[IBEX_PDEV_MAX];
unsigned int ibex_pdev_used;

/*
 * The devices by name: open addressing with linear probing, twice as many
 * cells as devices. A fabric registers one device per link end (tens of
 * thousands), and each registration and each switch port's lookup by name
 * would otherwise compare every name before it: minutes of strcmp() at
 * 60,000 link ends. A cell holds a device's slot + 1, NAME_FREE or
 * NAME_GONE (a closed device's, so probing goes on past it).
 */
#define NAME_CELLS (1u << 17)
#define NAME_FREE 0
#define NAME_GONE UINT16_MAX
static uint16_t name_cell[NAME_CELLS];
/* closed slots below ibex_pdev_used, to reuse before new ones */
static unsigned int pdev_closed;

static_assert(NAME_CELLS >= 2u * IBEX_PDEV_MAX, "name index too small");

static uint32_t
name_hash(const char *name)
{
	uint32_t h = 2166136261u; /* FNV-1a */

	for (; *name != '\0'; name++)
		h = (h ^ (uint8_t)*name) * 16777619u;
	return h;
}

/* The cell holding @p name (*found), or the cell where it would go: the
 * first closed device's on its probe path, else the free one that ends
 * the path. */
static uint32_t
name_find(const char *name, bool *found)
{
	uint32_t c = name_hash(name) & (NAME_CELLS - 1), gone = UINT32_MAX;
	unsigned int n;

	*found = false;
	for (n = 0; n < NAME_CELLS; n++, c = (c + 1) & (NAME_CELLS - 1)) {
		uint16_t v = name_cell[c];

		if (v == NAME_FREE)
			break;
		if (v == NAME_GONE) {
			if (gone == UINT32_MAX)
				gone = c;
		} else if (strcmp(ibex_pdevs[v - 1].name, name) == 0) {
			*found = true;
			return c;
		}
	}
	return gone != UINT32_MAX ? gone : c;
}

static struct ibex_pdev *
pdev_of(uint16_t id)
{
	struct ibex_pdev *d;

	if (ibex_pdev_is_ethdev(id) ||
	    (unsigned int)(id - IBEX_PDEV_BASE) >= ibex_pdev_used)
		return NULL;
	d = &ibex_pdevs[id - IBEX_PDEV_BASE];
	return d->name[0] != '\0' ? d : NULL;
}

/* A free slot: a closed one first, else a new one; UINT16_MAX if none. */
static uint16_t
slot_take(void)
{
	unsigned int i;

	if (pdev_closed != 0)
		for (i = 0; i < ibex_pdev_used; i++)
			if (ibex_pdevs[i].name[0] == '\0') {
				pdev_closed--;
				return (uint16_t)i;
			}
	if (ibex_pdev_used < IBEX_PDEV_MAX)
		return (uint16_t)ibex_pdev_used++;
	return UINT16_MAX;
}

int
ibex_pdev_register(const char *name, const struct ibex_pdev_ops *ops,
		   void *dev)
{
	uint16_t id, free_id;
	bool found;
	uint32_t c;

	if (name == NULL || name[0] == '\0' ||
	    strlen(name) >= IBEX_PDEV_NAME_LEN || ops == NULL ||
	    ops->rx_burst == NULL || ops->tx_burst == NULL)
		return -EINVAL;
	if (ibex_pdev_get_by_name(name, &id) == 0)
		return -EEXIST;
	free_id = slot_take();
	if (free_id == UINT16_MAX)
		return -ENOSPC;
	memset(&ibex_pdevs[free_id], 0, sizeof(ibex_pdevs[free_id]));
	ibex_pdevs[free_id].rx_burst = ops->rx_burst;
	ibex_pdevs[free_id].tx_burst = ops->tx_burst;
	ibex_pdevs[free_id].ops = ops;
	ibex_pdevs[free_id].dev = dev;
	snprintf(ibex_pdevs[free_id].name, IBEX_PDEV_NAME_LEN, "%s", name);
	c = name_find(name, &found);
	name_cell[c] = (uint16_t)(free_id + 1);
	return IBEX_PDEV_BASE + free_id;
}

int
ibex_pdev_get_by_name(const char *name, uint16_t *id)
{
	bool found;
	uint32_t c = name_find(name, &found);

	if (found) {
		*id = (uint16_t)(IBEX_PDEV_BASE + name_cell[c] - 1);
		return 0;
	}
	return rte_eth_dev_get_port_by_name(name, id);
}

int
ibex_pdev_get_name(uint16_t id, char *name)
{
	const struct ibex_pdev *d = pdev_of(id);

	if (ibex_pdev_is_ethdev(id))
		return rte_eth_dev_get_name_by_port(id, name);
	if (d == NULL)
		return -ENODEV;
	snprintf(name, IBEX_PDEV_NAME_LEN, "%s", d->name);
	return 0;
}

bool
ibex_pdev_valid(uint16_t id)
{
	return ibex_pdev_is_ethdev(id) ? rte_eth_dev_is_valid_port(id) != 0 :
					 pdev_of(id) != NULL;
}

unsigned int
ibex_pdev_count(void)
{
	unsigned int i, n = rte_eth_dev_count_total();

	for (i = 0; i < ibex_pdev_used; i++)
		n += ibex_pdevs[i].name[0] != '\0';
	return n;
}

int
ibex_pdev_info_get(uint16_t id, struct rte_eth_dev_info *info)
{
	struct ibex_pdev *d = pdev_of(id);

	if (ibex_pdev_is_ethdev(id))
		return rte_eth_dev_info_get(id, info);
	if (d == NULL)
		return -ENODEV;
	memset(info, 0, sizeof(*info));
	return d->ops->info_get(d->dev, info);
}

int
ibex_pdev_configure(uint16_t id, uint16_t nb_rxq, uint16_t nb_txq,
		    const struct rte_eth_conf *conf)
{
	struct rte_eth_dev_info info;
	struct ibex_pdev *d = pdev_of(id);
	int ret;

	if (ibex_pdev_is_ethdev(id))
		return rte_eth_dev_configure(id, nb_rxq, nb_txq, conf);
	if (d == NULL)
		return -ENODEV;
	ret = ibex_pdev_info_get(id, &info);
	if (ret != 0)
		return ret;
	if (nb_rxq == 0 || nb_rxq > info.max_rx_queues || nb_txq == 0 ||
	    nb_txq > info.max_tx_queues || nb_rxq > IBEX_PDEV_MAX_QUEUES ||
	    nb_txq > IBEX_PDEV_MAX_QUEUES)
		return -EINVAL;
	d->timestamp = conf != NULL &&
		       (conf->rxmode.offloads & RTE_ETH_RX_OFFLOAD_TIMESTAMP);
	return 0;
}

int
ibex_pdev_adjust_nb_rx_tx_desc(uint16_t id, uint16_t *nb_rxd,
			       uint16_t *nb_txd)
{
	struct rte_eth_dev_info info;
	int ret;

	if (ibex_pdev_is_ethdev(id))
		return rte_eth_dev_adjust_nb_rx_tx_desc(id, nb_rxd, nb_txd);
	ret = ibex_pdev_info_get(id, &info);
	if (ret != 0)
		return ret;
	if (*nb_rxd == 0 || *nb_rxd > info.rx_desc_lim.nb_max)
		*nb_rxd = info.default_rxportconf.ring_size;
	if (*nb_txd == 0 || *nb_txd > info.tx_desc_lim.nb_max)
		*nb_txd = info.default_txportconf.ring_size;
	return 0;
}

int
ibex_pdev_rx_queue_setup(uint16_t id, uint16_t q, uint16_t nb_desc,
			 unsigned int socket, const struct rte_eth_rxconf *conf,
			 struct rte_mempool *mp)
{
	struct ibex_pdev *d = pdev_of(id);

	if (ibex_pdev_is_ethdev(id))
		return rte_eth_rx_queue_setup(id, q, nb_desc, socket, conf, mp);
	if (d == NULL)
		return -ENODEV;
	if (q >= IBEX_PDEV_MAX_QUEUES || mp == NULL)
		return -EINVAL;
	return d->ops->rx_queue_setup(d->dev, q, nb_desc, mp, d->timestamp,
				      &d->rxq[q]);
}

int
ibex_pdev_tx_queue_setup(uint16_t id, uint16_t q, uint16_t nb_desc,
			 unsigned int socket, const struct rte_eth_txconf *conf)
{
	struct ibex_pdev *d = pdev_of(id);

	if (ibex_pdev_is_ethdev(id))
		return rte_eth_tx_queue_setup(id, q, nb_desc, socket, conf);
	if (d == NULL)
		return -ENODEV;
	if (q >= IBEX_PDEV_MAX_QUEUES)
		return -EINVAL;
	return d->ops->tx_queue_setup(d->dev, q, nb_desc, &d->txq[q]);
}

int
ibex_pdev_set_mtu(uint16_t id, uint16_t mtu)
{
	struct rte_eth_dev_info info;
	int ret;

	if (ibex_pdev_is_ethdev(id))
		return rte_eth_dev_set_mtu(id, mtu);
	ret = ibex_pdev_info_get(id, &info);
	if (ret != 0)
		return ret;
	return mtu < info.min_mtu || mtu > info.max_mtu ? -EINVAL : 0;
}

int
ibex_pdev_start(uint16_t id)
{
	struct ibex_pdev *d = pdev_of(id);

	if (ibex_pdev_is_ethdev(id))
		return rte_eth_dev_start(id);
	return d == NULL ? -ENODEV : d->ops->start(d->dev);
}

int
ibex_pdev_stop(uint16_t id)
{
	struct ibex_pdev *d = pdev_of(id);

	if (ibex_pdev_is_ethdev(id))
		return rte_eth_dev_stop(id);
	return d == NULL ? -ENODEV : d->ops->stop(d->dev);
}

int
ibex_pdev_close(uint16_t id)
{
	struct ibex_pdev *d = pdev_of(id);
	bool found;

	if (ibex_pdev_is_ethdev(id))
		return rte_eth_dev_close(id);
	if (d == NULL)
		return -ENODEV;
	d->ops->close(d->dev);
	name_cell[name_find(d->name, &found)] = NAME_GONE;
	memset(d, 0, sizeof(*d));
	pdev_closed++;
	return 0;
}

int
ibex_pdev_promiscuous_enable(uint16_t id)
{
	if (ibex_pdev_is_ethdev(id))
		return rte_eth_promiscuous_enable(id);
	return pdev_of(id) == NULL ? -ENODEV : 0;
}

int
ibex_pdev_socket_id(uint16_t id)
{
	if (ibex_pdev_is_ethdev(id))
		return rte_eth_dev_socket_id(id);
	return (int)rte_socket_id();
}

int
ibex_pdev_link_get_nowait(uint16_t id, struct rte_eth_link *link)
{
	struct ibex_pdev *d = pdev_of(id);

	if (ibex_pdev_is_ethdev(id))
		return rte_eth_link_get_nowait(id, link);
	if (d == NULL)
		return -ENODEV;
	memset(link, 0, sizeof(*link));
	d->ops->link_get(d->dev, link);
	return 0;
}

int
ibex_pdev_macaddr_get(uint16_t id, struct rte_ether_addr *mac)
{
	struct ibex_pdev *d = pdev_of(id);

	if (ibex_pdev_is_ethdev(id))
		return rte_eth_macaddr_get(id, mac);
	if (d == NULL)
		return -ENODEV;
	d->ops->macaddr_get(d->dev, mac);
	return 0;
}

int
ibex_pdev_stats_get(uint16_t id, struct rte_eth_stats *st)
{
	struct ibex_pdev *d = pdev_of(id);

	if (ibex_pdev_is_ethdev(id))
		return rte_eth_stats_get(id, st);
	if (d == NULL)
		return -ENODEV;
	memset(st, 0, sizeof(*st));
	return d->ops->stats_get(d->dev, st);
}

/* Is DPDK's "stack" mempool handler loaded (EAL loads it as a plugin)? */
static bool
stack_ops_loaded(void)
{
	uint32_t i;

	for (i = 0; i < rte_mempool_ops_table.num_ops; i++)
		if (strcmp(rte_mempool_ops_table.ops[i].name, "stack") == 0)
			return true;
	return false;
}

struct rte_mempool *
ibex_pdev_pool_create(const char *name, unsigned int n,
		      unsigned int cache_size, uint16_t data_room,
		      int socket_id)
{
	static bool told;

	/* EAL's --mbuf-pool-ops-name is the user's choice: it wins. */
	if (ibex_clock_is_virtual() && rte_eal_mbuf_user_pool_ops() == NULL) {
		if (stack_ops_loaded())
			return rte_pktmbuf_pool_create_by_ops(name, n,
							      cache_size, 0,
							      data_room,
							      socket_id,
							      "stack");
		if (!told)
			RTE_LOG(NOTICE, IBEX_PDEV, "no \"stack\" mempool handler "
				"(librte-mempool-stack23): the virtual clock's "
				"pools use the default, FIFO one, and run "
				"slower\n");
		told = true;
	}
	return rte_pktmbuf_pool_create(name, n, cache_size, 0, data_room,
				       socket_id);
}
