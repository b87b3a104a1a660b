/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEXLINK_SDK_H
#define IBEXLINK_SDK_H

/**
 * @file
 * The part of DPDK's driver interface the ibexlink PMD uses.
 *
 * A PMD needs DPDK's driver headers (ethdev_driver.h, bus_vdev_driver.h),
 * which DPDK installs only when built with enable_driver_sdk. Debian 12's
 * libdpdk-dev (22.11) does not ship them, so when they are missing this
 * file declares what the PMD touches, for DPDK 22.11 (ABI 23) only:
 *
 * - the leading members of struct rte_eth_dev and struct rte_eth_dev_data
 *   up to the last one the PMD reads or writes (both structures live in
 *   ethdev's own arrays; the PMD only ever holds pointers to them);
 * - struct eth_dev_ops in full length, with the unused entries as one
 *   reserved array, since ethdev reads any entry of the PMD's table;
 * - struct rte_vdev_driver, which the PMD owns and the vdev bus reads.
 *
 * The offsets are checked below against the figures of DPDK 22.11's own
 * headers (x86-64); where the real headers are installed they are used
 * instead and this file only adds the two accessors the PMD needs.
 * Any other DPDK ABI is refused at build time.
 */

#include <stddef.h>
#include <stdint.h>

#include <rte_config.h>
#include <rte_common.h>
#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_ethdev.h>
#include <rte_version.h>

#if defined(__has_include) && __has_include(<ethdev_driver.h>) && \
	__has_include(<bus_vdev_driver.h>)
#define IBEXLINK_HAVE_SDK 1
#include <ethdev_driver.h>
#include <bus_vdev_driver.h>

static inline struct rte_device *
ibexlink_vdev_rte_device(struct rte_vdev_device *vdev)
{
	return &vdev->device;
}

#else /* no driver SDK installed: DPDK 22.11 declarations */

#if RTE_VER_YEAR != 22 || RTE_VER_MONTH != 11
#error "ibexlink: without DPDK's driver headers only DPDK 22.11 is supported"
#endif

struct rte_eth_dev;

/* struct rte_driver and struct rte_device are opaque to applications since
 * 22.11; the vdev bus embeds them by value. */
struct ibexlink_rte_driver {
	RTE_TAILQ_ENTRY(ibexlink_rte_driver) next;
	const char *name;
	const char *alias;
};

/* The vdev bus's device: a list link, then the core struct rte_device. */
struct rte_vdev_device {
	RTE_TAILQ_ENTRY(rte_vdev_device) next;
	/* struct rte_device follows (pointer aligned) */
};

static inline struct rte_device *
ibexlink_vdev_rte_device(struct rte_vdev_device *vdev)
{
	return (struct rte_device *)(void *)(vdev + 1);
}

static inline const char *
rte_vdev_device_name(struct rte_vdev_device *vdev)
{
	return rte_dev_name(ibexlink_vdev_rte_device(vdev));
}

static inline const char *
rte_vdev_device_args(struct rte_vdev_device *vdev)
{
	const struct rte_devargs *da =
		rte_dev_devargs(ibexlink_vdev_rte_device(vdev));

	return da != NULL && da->args != NULL ? da->args : "";
}

struct rte_vdev_driver {
	RTE_TAILQ_ENTRY(rte_vdev_driver) next;
	struct ibexlink_rte_driver driver;
	int (*probe)(struct rte_vdev_device *dev);
	int (*remove)(struct rte_vdev_device *dev);
	void *dma_map;
	void *dma_unmap;
	uint32_t drv_flags;
};

void rte_vdev_register(struct rte_vdev_driver *driver);
void rte_vdev_unregister(struct rte_vdev_driver *driver);

/* As the vdev bus's own macro: name the driver, register it from a
 * constructor, and export the name for dpdk-pmdinfo. */
#define RTE_PMD_REGISTER_VDEV(nm, vdrv) \
RTE_INIT(vdrvinitfn_ ## vdrv) \
{ \
	(vdrv).driver.name = RTE_STR(nm); \
	(vdrv).driver.alias = NULL; \
	rte_vdev_register(&(vdrv)); \
} \
RTE_PMD_EXPORT_NAME(nm, __COUNTER__)

/* Leading members only; the structure lives in ethdev's rte_eth_devices. */
struct rte_eth_dev {
	eth_rx_burst_t rx_pkt_burst;
	eth_tx_burst_t tx_pkt_burst;
	void *ibexlink_fp_unused[4];  /* prepare, queue count, descriptor status */
	struct rte_eth_dev_data *data;
	void *process_private;
	const struct eth_dev_ops *dev_ops;
	struct rte_device *device;
	struct rte_intr_handle *intr_handle;
	/* callbacks, state, ... follow */
};

/* Leading members only, up to port_id; lives in ethdev's shared memzone. */
struct rte_eth_dev_data {
	char name[RTE_ETH_NAME_MAX_LEN];
	void **rx_queues;
	void **tx_queues;
	uint16_t nb_rx_queues;
	uint16_t nb_tx_queues;
	struct rte_eth_dev_sriov sriov;
	void *dev_private;
	struct rte_eth_link dev_link;
	struct rte_eth_conf dev_conf;
	uint16_t mtu;
	uint32_t min_rx_buf_size;
	uint64_t rx_mbuf_alloc_failed;
	struct rte_ether_addr *mac_addrs;
	uint64_t mac_pool_sel[RTE_ETH_NUM_RECEIVE_MAC_ADDR];
	struct rte_ether_addr *hash_mac_addrs;
	uint16_t port_id;
	/* flags, queue states, dev_flags, numa_node, ... follow */
};

#define IBEXLINK_OPS_TOTAL 113 /* entries of struct eth_dev_ops in 22.11 */
#define IBEXLINK_OPS_NAMED 47  /* dev_configure .. tx_queue_release */
#define IBEXLINK_OPS_CLOCK 79  /* read_clock */

struct eth_dev_ops {
	int (*dev_configure)(struct rte_eth_dev *dev);
	int (*dev_start)(struct rte_eth_dev *dev);
	int (*dev_stop)(struct rte_eth_dev *dev);
	int (*dev_set_link_up)(struct rte_eth_dev *dev);
	int (*dev_set_link_down)(struct rte_eth_dev *dev);
	int (*dev_close)(struct rte_eth_dev *dev);
	int (*dev_reset)(struct rte_eth_dev *dev);
	int (*link_update)(struct rte_eth_dev *dev, int wait_to_complete);
	int (*is_removed)(struct rte_eth_dev *dev);
	int (*promiscuous_enable)(struct rte_eth_dev *dev);
	int (*promiscuous_disable)(struct rte_eth_dev *dev);
	int (*allmulticast_enable)(struct rte_eth_dev *dev);
	int (*allmulticast_disable)(struct rte_eth_dev *dev);
	void (*mac_addr_remove)(struct rte_eth_dev *dev, uint32_t index);
	int (*mac_addr_add)(struct rte_eth_dev *dev, struct rte_ether_addr *a,
			    uint32_t index, uint32_t vmdq);
	int (*mac_addr_set)(struct rte_eth_dev *dev, struct rte_ether_addr *a);
	int (*set_mc_addr_list)(struct rte_eth_dev *dev,
				struct rte_ether_addr *list, uint32_t nb);
	int (*mtu_set)(struct rte_eth_dev *dev, uint16_t mtu);
	int (*stats_get)(struct rte_eth_dev *dev, struct rte_eth_stats *st);
	int (*stats_reset)(struct rte_eth_dev *dev);
	int (*xstats_get)(struct rte_eth_dev *dev, struct rte_eth_xstat *xs,
			  unsigned int n);
	int (*xstats_reset)(struct rte_eth_dev *dev);
	int (*xstats_get_names)(struct rte_eth_dev *dev,
				struct rte_eth_xstat_name *names,
				unsigned int size);
	void *queue_stats_mapping_set;
	int (*dev_infos_get)(struct rte_eth_dev *dev,
			     struct rte_eth_dev_info *info);
	void *ibexlink_unused_a[16]; /* rxq_info_get .. rx_queue_stop, tx q start/stop */
	int (*rx_queue_setup)(struct rte_eth_dev *dev, uint16_t qid,
			      uint16_t nb_desc, unsigned int socket_id,
			      const struct rte_eth_rxconf *conf,
			      struct rte_mempool *mp);
	void (*rx_queue_release)(struct rte_eth_dev *dev, uint16_t qid);
	void *ibexlink_unused_b[2]; /* rx interrupt enable/disable */
	int (*tx_queue_setup)(struct rte_eth_dev *dev, uint16_t qid,
			      uint16_t nb_desc, unsigned int socket_id,
			      const struct rte_eth_txconf *conf);
	void (*tx_queue_release)(struct rte_eth_dev *dev, uint16_t qid);
	void *ibexlink_unused_c[IBEXLINK_OPS_CLOCK - IBEXLINK_OPS_NAMED];
	int (*read_clock)(struct rte_eth_dev *dev, uint64_t *timestamp);
	void *ibexlink_unused_d[IBEXLINK_OPS_TOTAL - IBEXLINK_OPS_CLOCK - 1];
};

struct rte_eth_dev *rte_eth_dev_allocate(const char *name);
struct rte_eth_dev *rte_eth_dev_allocated(const char *name);
int rte_eth_dev_release_port(struct rte_eth_dev *eth_dev);
void rte_eth_dev_probing_finish(struct rte_eth_dev *dev);

/* Figures of DPDK 22.11's headers on x86-64 (offsetof/sizeof printed from
 * them): any difference means another ABI, so refuse to build. */
#if defined(__x86_64__)
_Static_assert(offsetof(struct rte_eth_dev, data) == 48, "rte_eth_dev ABI");
_Static_assert(offsetof(struct rte_eth_dev, dev_ops) == 64, "rte_eth_dev ABI");
_Static_assert(offsetof(struct rte_eth_dev, device) == 72, "rte_eth_dev ABI");
_Static_assert(offsetof(struct rte_eth_dev_data, nb_rx_queues) == 80,
	       "rte_eth_dev_data ABI");
_Static_assert(offsetof(struct rte_eth_dev_data, dev_private) == 96,
	       "rte_eth_dev_data ABI");
_Static_assert(offsetof(struct rte_eth_dev_data, dev_link) == 104,
	       "rte_eth_dev_data ABI");
_Static_assert(offsetof(struct rte_eth_dev_data, mtu) == 2384,
	       "rte_eth_dev_data ABI");
_Static_assert(offsetof(struct rte_eth_dev_data, mac_addrs) == 2400,
	       "rte_eth_dev_data ABI");
_Static_assert(offsetof(struct rte_eth_dev_data, port_id) == 3440,
	       "rte_eth_dev_data ABI");
_Static_assert(sizeof(struct eth_dev_ops) == 904, "eth_dev_ops ABI");
_Static_assert(offsetof(struct eth_dev_ops, xstats_get) == 160,
	       "eth_dev_ops ABI");
_Static_assert(offsetof(struct eth_dev_ops, xstats_get_names) == 176,
	       "eth_dev_ops ABI");
_Static_assert(offsetof(struct eth_dev_ops, tx_queue_release) == 368,
	       "eth_dev_ops ABI");
_Static_assert(offsetof(struct eth_dev_ops, read_clock) == 632,
	       "eth_dev_ops ABI");
_Static_assert(offsetof(struct rte_vdev_driver, probe) == 48,
	       "rte_vdev_driver ABI");
_Static_assert(sizeof(struct rte_vdev_driver) == 88, "rte_vdev_driver ABI");
#else
#error "ibexlink: the driver interface figures are checked on x86-64 only"
#endif

#endif /* IBEXLINK_HAVE_SDK */

#endif /* IBEXLINK_SDK_H */
