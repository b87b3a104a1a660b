/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Building the data path: mempool, ethdev ports, worker queue assignment,
 * learn ring, FDB, the first tables (ibex_dp_tables.c builds them) and
 * the wait for links.
 *
 * Queue layout: every worker has its own TX queue on every port (queue id =
 * worker index), so TX needs no lock. A port's RX queues are spread over
 * the workers round-robin: with W workers and a port that offers R RX
 * queues, it gets min(W, R) queues and queue q is polled by worker
 * (port + q) mod W, so single-queue ports land on different workers.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_rcu_qsbr.h>

#include "ibex_clock.h"
#include "ibex_pdev.h"
#include "ibex_unmap_guard.h"
#include "ibex_conf.h"
#include "ibex_dp_private.h"
#include "ibex_fc.h"
#include "ibex_fdb.h"
#include "ibex_hist.h"

RTE_LOG_REGISTER(ibex_port_logtype, ibex.port, INFO);
#define RTE_LOGTYPE_IBEX_PORT ibex_port_logtype

#define LEARN_RING_SIZE 4096
#define MEMPOOL_CACHE 256
/* Most mbufs the pool gets for frames waiting in lane queues. */
#define IBEX_QUEUE_MBUFS_MAX 16384
/* Most mbufs a pool sized from the config gets (`switch mbufs`' bound). */
#define IBEX_POOL_MBUFS_MAX 4194304u

/* Mbufs in RX and TX rings, TX buffers and per-lcore caches: never free
 * for a frame the buffer admits. */
static uint32_t
mbufs_rings(const struct ibex_conf *conf, uint16_t nb_workers)
{
	uint32_t n = 0;
	uint16_t p;

	for (p = 0; p < conf->nb_ports; p++)
		n += (conf->ports[p].rx_desc + conf->ports[p].tx_desc) *
		     nb_workers;
	n += nb_workers * conf->nb_ports * IBEX_TXBUF_LEN / 4;
	n += (nb_workers + 1) * (MEMPOOL_CACHE + IBEX_BURST_MAX);
	return n;
}

uint32_t
ibex_dp_pool_floor(const struct ibex_conf *conf, uint16_t nb_workers)
{
	/* Two RX bursts of every port per worker: what the workers may take
	 * between two looks at the pool (ibex_fc_housekeeping()). */
	return 2u * IBEX_BURST_MAX * conf->nb_ports * nb_workers;
}

/* Lossless frames the buffer may hold: every slice's lossless blocks
 * (ibex_conf_port_lossless_blocks()), one frame per block at most. When
 * @p line is not NULL, the line of the lossless lane where rings +
 * floor + the lanes so far first exceed @p pool (or the last lane's). */
static uint64_t
mbufs_lossless(const struct ibex_conf *conf, uint16_t nb_workers,
	       uint64_t fixed, uint64_t pool, int *line, const char **port)
{
	uint64_t sum = 0;
	uint16_t p;
	unsigned int v;
	bool over = false;

	for (p = 0; p < conf->nb_ports; p++) {
		const struct ibex_conf_port *cp = &conf->ports[p];
		uint64_t b = ibex_conf_port_lossless_blocks(cp);

		if (b == 0)
			continue;
		sum += b * nb_workers;
		if (line == NULL || over)
			continue;
		*port = cp->name;
		*line = cp->line;
		for (v = 0; v < IBEX_VL_COUNT; v++)
			if ((cp->lossless_mask >> v & 1) && cp->lane_line[v] > 0)
				*line = cp->lane_line[v];
		over = fixed + sum > pool;
	}
	return sum;
}

static uint32_t
mbufs_needed(const struct ibex_conf *conf, uint16_t nb_workers)
{
	uint32_t n = mbufs_rings(conf, nb_workers);
	uint64_t q;
	uint16_t p;

	/* Frames waiting in lane queues: the queues' bound (a frame is at
	 * least one block), at most the shared buffer, and at most
	 * IBEX_QUEUE_MBUFS_MAX: deep buffers of small frames need `switch
	 * mbufs` raised (docs/configuration.md). */
	q = 0;
	for (p = 0; p < conf->nb_ports; p++)
		q += (uint64_t)conf->ports[p].nb_vls *
		     conf->ports[p].vl_queue_blocks * nb_workers;
	/* Each worker has a slice of the whole buffer's size
	 * (docs/flow-control.md, "Many workers"). */
	q = RTE_MIN(q, (uint64_t)conf->buffer_blocks * nb_workers);
	n += (uint32_t)RTE_MIN(q, (uint64_t)IBEX_QUEUE_MBUFS_MAX);
	return n;
}

/*
 * The pool's size (docs/configuration.md, "The mbuf pool"). A lossless
 * lane's promise needs an mbuf for every frame its reserved share and
 * headroom may hold: with fewer, the pool runs dry before the buffer
 * does, the PMDs cannot receive the credit or PFC frames that would
 * drain it, and the switch stops. Without `switch mbufs` the pool is
 * sized to the promise; a `switch mbufs` that cannot keep it is refused.
 */
static int
pool_size(const struct ibex_conf *conf, uint16_t nb_workers, uint32_t *size,
	  char *err, size_t errlen)
{
	uint64_t rings = mbufs_rings(conf, nb_workers);
	uint64_t floor = ibex_dp_pool_floor(conf, nb_workers);
	uint64_t need = mbufs_needed(conf, nb_workers);
	const char *port = NULL;
	int line = 0;
	uint64_t ll = mbufs_lossless(conf, nb_workers, rings + floor,
				     conf->mbufs, &line, &port);

	if (ll == 0) {
		*size = (uint32_t)RTE_MAX((uint64_t)conf->mbufs, need);
		return 0;
	}
	if (conf->mbufs_line == 0) {
		/* the default, or what the promise and the queues need */
		need = RTE_MAX((uint64_t)conf->mbufs, need + ll + floor);
		if (need > IBEX_POOL_MBUFS_MAX) {
			snprintf(err, errlen, "%s:%d: port %s: the lossless "
				 "lanes need a pool of %" PRIu64 " mbufs (%"
				 PRIu64 " frames of reserved and headroom, "
				 "%" PRIu64 " for rings and caches, %" PRIu64
				 " kept for flow-control frames), above the "
				 "%u a pool may have: lower `reserved`",
				 conf->origin, line, port, need, ll, rings,
				 floor, IBEX_POOL_MBUFS_MAX);
			return -ENOSPC;
		}
		*size = (uint32_t)need;
		return 0;
	}
	if (rings + ll + floor > conf->mbufs) {
		snprintf(err, errlen, "%s:%d: switch mbufs %u cannot back the "
			 "lossless lanes: they need %" PRIu64 " mbufs (%" PRIu64
			 " frames of reserved and headroom, one per 64-byte "
			 "block, %" PRIu64 " for rings and caches, %" PRIu64
			 " kept for flow-control frames); raise it or leave it "
			 "out to size the pool from the config",
			 conf->origin, conf->mbufs_line, conf->mbufs,
			 rings + ll + floor, ll, rings, floor);
		return -ENOSPC;
	}
	*size = (uint32_t)RTE_MAX((uint64_t)conf->mbufs, need);
	return 0;
}

int
ibex_dp_pool_check(const struct ibex_dp *dp, const struct ibex_conf *conf,
		   char *err, size_t errlen)
{
	uint64_t rings = mbufs_rings(conf, dp->nb_workers);
	uint64_t floor = ibex_dp_pool_floor(conf, dp->nb_workers);
	const char *port = NULL;
	int line = 0;
	uint64_t ll = mbufs_lossless(conf, dp->nb_workers, rings + floor,
				     dp->pool->size, &line, &port);

	/* a shared pool is its owner's to size */
	if (dp->pool_shared || ll == 0 || rings + ll + floor <= dp->pool->size)
		return 0;
	snprintf(err, errlen, "%s:%d: port %s: the lossless lanes would "
		 "need %" PRIu64 " mbufs (%" PRIu64 " frames of reserved and "
		 "headroom, %" PRIu64 " for rings and caches, %" PRIu64
		 " kept for flow-control frames), the running pool has %u "
		 "(its size needs a restart)", conf->origin, line, port,
		 rings + ll + floor, ll, rings, floor, dp->pool->size);
	return -ENOSPC;
}

/*
 * RSS for a port with several RX queues: over IPv4/IPv6 and UDP ports, so
 * RoCEv2 flows (UDP 4791) spread by their source port, as much of it as
 * the device offers. A device without RSS leaves the choice of queue to
 * itself (net_ring and memif: to whoever fills each queue).
 */
static void
port_rss(struct rte_eth_conf *econf, const struct ibex_dp *dp, uint16_t p,
	 const struct rte_eth_dev_info *info, uint16_t nb_rxq)
{
	uint64_t want = RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP;
	uint64_t hf = want & info->flow_type_rss_offloads;

	if (nb_rxq < 2)
		return;
	if (hf == 0) {
		RTE_LOG(NOTICE, IBEX_PORT, "port %s (%s): %u RX queues, but the "
			"PMD offers no RSS over IP/UDP: the device decides "
			"which queue a frame takes\n", dp->port_name[p],
			info->driver_name, nb_rxq);
		return;
	}
	econf->rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
	econf->rx_adv_conf.rss_conf.rss_key = NULL; /* the PMD's default */
	econf->rx_adv_conf.rss_conf.rss_hf = hf;
	RTE_LOG(INFO, IBEX_PORT, "port %s (%s): RSS over %u RX queues on%s%s%s"
		"%s (hash functions 0x%" PRIx64 "%s)\n", dp->port_name[p],
		info->driver_name, nb_rxq,
		hf & RTE_ETH_RSS_IPV4 ? " IPv4" : "",
		hf & RTE_ETH_RSS_IPV6 ? " IPv6" : "",
		hf & RTE_ETH_RSS_NONFRAG_IPV4_UDP ? " IPv4/UDP" : "",
		hf & RTE_ETH_RSS_NONFRAG_IPV6_UDP ? " IPv6/UDP" : "",
		hf, hf == want ? "" : ", all the PMD offers of IP/UDP");
}

/* RX queues of a port: rx-queues when given (the device must offer
 * them), else one per worker, as many as the device offers. */
static int
port_rx_queues(const struct ibex_dp *dp, const struct ibex_conf_port *cp,
	       const struct rte_eth_dev_info *info, uint16_t *nb_rxq,
	       char *err, size_t errlen)
{
	if (cp->rx_queues == 0) {
		*nb_rxq = RTE_MIN(dp->nb_workers, info->max_rx_queues);
		return 0;
	}
	if (cp->rx_queues > info->max_rx_queues) {
		snprintf(err, errlen, "port %s: rx-queues %u, but its device "
			 "(%s) offers %u", cp->name, cp->rx_queues,
			 info->driver_name, info->max_rx_queues);
		return -EINVAL;
	}
	*nb_rxq = cp->rx_queues;
	return 0;
}

/* Priorities of a port's lossless lanes (PFC), as a bit mask. */
static uint8_t
port_pfc_prios(const struct ibex_conf_port *cp)
{
	uint8_t prios = 0;
	unsigned int v;

	for (v = 0; v < IBEX_VL_DATA_MAX; v++) {
		int prio = ibex_conf_vl_prio(cp, v);

		if ((cp->lossless_mask >> v & 1) && prio >= 0 && prio < 8)
			prios |= 1u << prio;
	}
	return prios;
}

/* Queue-based PFC where the device has it: each RX queue pauses the peer
 * for the priority, each TX queue obeys it. */
static int
port_pfc_hw_queues(struct ibex_dp *dp, uint16_t p, uint8_t prios,
		   uint16_t quanta, uint16_t nb_rxq)
{
	struct rte_eth_pfc_queue_info qi;
	struct rte_eth_pfc_queue_conf qc;
	uint16_t pid = dp->port_id[p], q;
	unsigned int prio;
	int ret;

	memset(&qi, 0, sizeof(qi));
	ret = rte_eth_dev_priority_flow_ctrl_queue_info_get(pid, &qi);
	if (ret < 0)
		return ret;
	if (qi.mode_capa != RTE_ETH_FC_FULL)
		return -ENOTSUP;
	for (prio = 0; prio < 8; prio++) {
		if (!(prios >> prio & 1))
			continue;
		if (prio >= qi.tc_max)
			return -ENOTSUP;
		for (q = 0; q < RTE_MAX(nb_rxq, dp->nb_workers); q++) {
			memset(&qc, 0, sizeof(qc));
			qc.mode = RTE_ETH_FC_FULL;
			qc.rx_pause.tx_qid = q % dp->nb_workers;
			qc.rx_pause.tc = (uint8_t)prio;
			qc.tx_pause.rx_qid = q % nb_rxq;
			qc.tx_pause.tc = (uint8_t)prio;
			qc.tx_pause.pause_time = quanta;
			ret = rte_eth_dev_priority_flow_ctrl_queue_configure(pid,
									&qc);
			if (ret < 0)
				return ret;
		}
	}
	return 0;
}

/* Port-wide PFC, one call per priority. */
static int
port_pfc_hw_port(uint16_t pid, uint8_t prios, uint16_t quanta)
{
	struct rte_eth_pfc_conf pc;
	unsigned int prio;
	int ret;

	for (prio = 0; prio < 8; prio++) {
		if (!(prios >> prio & 1))
			continue;
		memset(&pc, 0, sizeof(pc));
		pc.fc.mode = RTE_ETH_FC_FULL;
		pc.fc.pause_time = quanta;
		pc.fc.send_xon = 1;
		pc.priority = (uint8_t)prio;
		ret = rte_eth_dev_priority_flow_ctrl_set(pid, &pc);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/*
 * `pfc PORT hw on`: the NIC sends and obeys 802.1Qbb for the priorities
 * of the port's lossless lanes (queue-based where the PMD has it, else
 * per priority), or the switch does not start: a lossless lane must not
 * silently run without the flow control it was configured with.
 */
static int
port_pfc_hw(struct ibex_dp *dp, uint16_t p, const struct ibex_conf_port *cp,
	    const struct rte_eth_dev_info *info, uint16_t nb_rxq, char *err,
	    size_t errlen)
{
	uint8_t prios = port_pfc_prios(cp);
	int ret;

	if (!cp->pfc_hw || cp->fc_mode != IBEX_FC_PFC)
		return 0;
	/* An in-process device has no MAC to configure. */
	ret = -ENOTSUP;
	if (ibex_pdev_is_ethdev(dp->port_id[p]))
		ret = port_pfc_hw_queues(dp, p, prios, cp->pfc_quanta, nb_rxq);
	if (ret < 0 && ibex_pdev_is_ethdev(dp->port_id[p]))
		ret = port_pfc_hw_port(dp->port_id[p], prios, cp->pfc_quanta);
	if (ret < 0) {
		snprintf(err, errlen, "port %s (ethdev %s, PMD %s): hardware PFC "
			 "(`pfc %s hw on`) refused by the device: %s; leave hw "
			 "off for ibex's own PFC", cp->name,
			 ibex_conf_port_dev(cp), info->driver_name, cp->name,
			 ret == -ENOTSUP ? "not supported" : rte_strerror(-ret));
		return ret;
	}
	RTE_LOG(INFO, IBEX_PORT, "port %s (%s): hardware PFC on priorities "
		"0x%02x, %u quanta\n", cp->name, info->driver_name, prios,
		cp->pfc_quanta);
	return 0;
}

/*
 * Frame sizes of a port's ethdev: its MTU, scatter RX for frames that
 * outgrow one mbuf (the PMD chains segments) and multi-segment TX where
 * the switch can hold chained frames (a port's limit above the data room:
 * any of them may egress anywhere). Without `mtu` the device keeps its
 * own. A port whose frames need scatter on a device without it is refused
 * unless rx-scatter is auto: vdevs such as net_pcap chain frames without
 * offering the offload.
 */
static int
port_frames_conf(const struct ibex_dp *dp, uint16_t pid,
		 const struct ibex_conf_port *cp, struct rte_eth_conf *econf,
		 char *err, size_t errlen)
{
	const struct ibex_conf *conf = dp->conf;
	uint32_t room = rte_pktmbuf_data_room_size(dp->pool) -
			RTE_PKTMBUF_HEADROOM;
	uint32_t frame = ibex_conf_port_frame_max(cp), chains = 0;
	struct rte_eth_dev_info info;
	bool need;
	uint16_t p;
	int ret;

	ret = ibex_pdev_info_get(pid, &info);
	if (ret < 0)
		return ret;
	if (cp->mtu != 0)
		econf->rxmode.mtu = cp->mtu;
	need = cp->mtu != 0 && frame > room;
	if (cp->rx_scatter == IBEX_RX_SCATTER_ON || need) {
		if (info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_SCATTER) {
			if (cp->rx_scatter != IBEX_RX_SCATTER_OFF)
				econf->rxmode.offloads |=
					RTE_ETH_RX_OFFLOAD_SCATTER;
		} else if (cp->rx_scatter == IBEX_RX_SCATTER_ON) {
			snprintf(err, errlen, "port %s: rx-scatter on, but the "
				 "device has no scatter RX", cp->name);
			return -ENOTSUP;
		}
		if (need && cp->rx_scatter == IBEX_RX_SCATTER_OFF) {
			snprintf(err, errlen, "port %s: mtu %u takes frames of "
				 "%u bytes, above an mbuf's %u with rx-scatter "
				 "off (raise switch mbuf-size or allow "
				 "rx-scatter)", cp->name, cp->mtu, frame, room);
			return -EINVAL;
		}
	}
	for (p = 0; p < conf->nb_ports; p++)
		chains |= ibex_conf_port_frame_max(&conf->ports[p]) > room;
	if (chains && (info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS))
		econf->txmode.offloads |= RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	return 0;
}

static int
port_configure(struct ibex_dp *dp, uint16_t p, const struct ibex_conf_port *cp,
	       const struct rte_eth_dev_info *info, uint16_t nb_rxq,
	       char *err, size_t errlen)
{
	uint16_t pid = dp->port_id[p], q, nb_rxd = cp->rx_desc,
		 nb_txd = cp->tx_desc;
	struct rte_eth_conf econf;
	int ret, socket = ibex_pdev_socket_id(pid);

	if (socket < 0)
		socket = (int)rte_socket_id();
	memset(&econf, 0, sizeof(econf));
	port_rss(&econf, dp, p, info, nb_rxq);
	ret = port_frames_conf(dp, pid, cp, &econf, err, errlen);
	if (ret < 0)
		return ret;
	ret = ibex_pdev_configure(pid, nb_rxq, dp->nb_workers, &econf);
	if (ret < 0)
		goto fail;
	ret = ibex_pdev_adjust_nb_rx_tx_desc(pid, &nb_rxd, &nb_txd);
	if (ret < 0)
		goto fail;
	for (q = 0; q < nb_rxq; q++) {
		ret = ibex_pdev_rx_queue_setup(pid, q, nb_rxd, socket, NULL,
					     dp->pool);
		if (ret < 0)
			goto fail;
	}
	for (q = 0; q < dp->nb_workers; q++) {
		ret = ibex_pdev_tx_queue_setup(pid, q, nb_txd, socket, NULL);
		if (ret < 0)
			goto fail;
	}
	if (cp->mtu != 0) {
		ret = ibex_pdev_set_mtu(pid, cp->mtu);
		if (ret < 0 && ret != -ENOTSUP)
			goto fail;
	}
	if (ibex_port_redials(pid))
		dp->redial |= UINT64_C(1) << p;
	ret = ibex_pdev_start(pid);
	if (ret < 0 && (dp->redial >> p & 1)) {
		/* Its server is not there yet: ibex_dp_links_poll() dials
		 * again; until then the workers leave the port alone. */
		RTE_LOG(NOTICE, IBEX_PORT, "port %s (%s): no server to connect "
			"to yet; connecting when there is one\n", cp->name,
			cp->dev[0] != '\0' ? cp->dev : cp->name);
		dp->detached |= UINT64_C(1) << p;
		return 0;
	}
	if (ret < 0)
		goto fail;
	/* A switch port sees every frame; PMDs without a filter say ENOTSUP. */
	ret = ibex_pdev_promiscuous_enable(pid);
	if (ret < 0 && ret != -ENOTSUP)
		goto fail;
	return 0;
fail:
	snprintf(err, errlen, "port %s (ethdev %s): setup failed: %s",
		 cp->name, cp->dev[0] != '\0' ? cp->dev : cp->name,
		 rte_strerror(-ret));
	return ret;
}

static int
ports_resolve(struct ibex_dp *dp, const struct ibex_conf *conf, char *err,
	      size_t errlen)
{
	uint16_t p;

	for (p = 0; p < conf->nb_ports; p++) {
		const struct ibex_conf_port *cp = &conf->ports[p];
		const char *dev = cp->dev[0] != '\0' ? cp->dev : cp->name;
		struct rte_eth_dev_info info;
		uint16_t pid;
		int ret;

		ret = ibex_pdev_get_by_name(dev, &pid);
		if (ret < 0) {
			snprintf(err, errlen, "%s:%d: port %s: no ethdev named '%s' "
				 "(give it to EAL with --vdev or -a)", conf->origin,
				 cp->line, cp->name, dev);
			return -ENODEV;
		}
		ret = ibex_pdev_info_get(pid, &info);
		if (ret < 0) {
			snprintf(err, errlen, "port %s: %s", cp->name,
				 rte_strerror(-ret));
			return ret;
		}
		if (info.max_tx_queues < dp->nb_workers) {
			snprintf(err, errlen, "%s:%d: port %s (%s) has %u TX queue(s) "
				 "but %u workers need one each; use fewer workers",
				 conf->origin, cp->line, cp->name, dev,
				 info.max_tx_queues, dp->nb_workers);
			return -EINVAL;
		}
		dp->port_id[p] = pid;
		snprintf(dp->port_name[p], IBEX_NAME_LEN, "%s", cp->name);
	}
	return 0;
}

/*
 * A lossless frame is admitted by the buffer of its ingress lane, not by
 * the egress queue's bound (ibex_vlq_push_admitted), so the queue of a
 * lossless VL needs a slot for every frame the buffer may hold: at most
 * one per block of the buffer, and no more than there are mbufs. With
 * only vl-queue slots, an incast (or a pause from downstream) dropped
 * lossless frames as fc-violation although every peer obeyed.
 */
static uint32_t
lossless_slots(const struct ibex_conf *conf, uint16_t nb_workers,
	       uint16_t *vls)
{
	uint32_t pool = conf->mbufs;
	char err[8];
	uint16_t p;

	*vls = 0;
	for (p = 0; p < conf->nb_ports; p++)
		if (conf->ports[p].fc_mode != IBEX_FC_NONE)
			*vls |= conf->ports[p].lossless_mask;
	/* A size the pool cannot have is refused when it is made. */
	if (pool_size(conf, nb_workers, &pool, err, sizeof(err)) < 0)
		pool = conf->mbufs;
	return ibex_vlq_slots(RTE_MIN(conf->buffer_blocks, pool));
}

/* A histogram's stride in its block: whole cache lines, so no two share
 * one. */
#define RES_STRIDE RTE_ALIGN_CEIL(sizeof(struct ibex_hist), RTE_CACHE_LINE_SIZE)

/*
 * Zeroed memory a worker owns but mostly never touches: a lane queue's
 * slots beyond its deepest backlog, a residence histogram's 7,424 buckets
 * of which a run fills a few dozen. From DPDK's heap where it has
 * hugepages: fewer TLB misses on the per-frame path. Mapped from the
 * kernel where it has none (--no-huge: 4 KiB pages either way), and
 * *@p mapped says so: rte_free() zeroes every byte it frees (and calloc()
 * zeroes reused memory), which for a simulated fabric's untouched slots
 * and buckets wrote 3 GB and took 15 s of a 36 s run of 62 switches;
 * munmap() writes nothing.
 */
static void *
sparse_zalloc(const char *name, size_t len, int socket, size_t *mapped)
{
	void *b;

	*mapped = 0;
	if (rte_eal_has_hugepages())
		return rte_zmalloc_socket(name, len, RTE_CACHE_LINE_SIZE,
					  socket);
	len = RTE_ALIGN_CEIL(len, (size_t)getpagesize());
	b = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (b == MAP_FAILED)
		return NULL;
	*mapped = len;
	return b;
}

static void
sparse_free(void *b, size_t mapped)
{
	if (mapped != 0)
		munmap(b, mapped);
	else
		rte_free(b);
}

/* Residence histograms exist for the lanes a port can run (data lanes
 * below its VL count, and VL15); others stay NULL and are not recorded.
 * The lanes in @p ll_vls get at least @p ll_slots slots. */
static int
egress_alloc(struct ibex_egress **ep, const struct ibex_conf_port *cp,
	     uint16_t ll_vls, uint32_t ll_slots, int socket)
{
	struct ibex_egress *e;
	uint32_t slots = ibex_vlq_slots(cp->vl_queue_blocks);
	size_t total = 0, off = 0;
	unsigned int v, k, nres = 0;

	e = rte_zmalloc_socket("ibex_egress", sizeof(*e), RTE_CACHE_LINE_SIZE,
			       socket);
	if (e == NULL)
		return -ENOMEM;
	*ep = e;
	e->slots = slots;
	for (v = 0; v < IBEX_VL_COUNT; v++)
		total += ll_vls >> v & 1 ? RTE_MAX(slots, ll_slots) : slots;
	e->ring = sparse_zalloc("ibex_lanes", sizeof(e->ring[0]) * total,
				socket, &e->ring_mapped);
	if (e->ring == NULL)
		return -ENOMEM;
	for (v = 0; v < IBEX_VL_COUNT; v++) {
		uint32_t n = ll_vls >> v & 1 ? RTE_MAX(slots, ll_slots) : slots;

		ibex_vlq_init(&e->q[v], e->ring + off, n, cp->vl_queue_blocks);
		off += n;
		ibex_ecn_vars_init(&e->ecn_vars[v]);
		if (v < cp->nb_vls || v == IBEX_VL_MGMT)
			nres += 2;
	}
	e->res_block = sparse_zalloc("ibex_res", (size_t)nres * RES_STRIDE,
				     socket, &e->res_mapped);
	if (e->res_block == NULL)
		return -ENOMEM;
	nres = 0;
	for (v = 0; v < IBEX_VL_COUNT; v++) {
		if (v >= cp->nb_vls && v != IBEX_VL_MGMT)
			continue;
		for (k = 0; k < 2; k++) {
			/* zeroed: a lane that never queues keeps its
			 * buckets out of memory */
			e->res[v][k] = RTE_PTR_ADD(e->res_block,
						   (size_t)nres++ * RES_STRIDE);
			ibex_hist_init_zeroed(e->res[v][k]);
		}
	}
	return 0;
}

static void
egress_free(struct ibex_egress *e)
{
	if (e == NULL)
		return;
	if (e->res_block != NULL)
		sparse_free(e->res_block, e->res_mapped);
	if (e->ring != NULL)
		sparse_free(e->ring, e->ring_mapped);
	rte_free(e);
}

static int
workers_create(struct ibex_dp *dp, const struct ibex_conf *conf)
{
	unsigned int lcore;
	uint16_t i = 0, ll_vls;
	uint32_t ll_slots = lossless_slots(conf, dp->nb_workers, &ll_vls);

	RTE_LCORE_FOREACH_WORKER(lcore) {
		struct ibex_worker *w;
		uint16_t p;

		if (i == dp->nb_workers)
			break;
		w = rte_zmalloc("ibex_worker", sizeof(*w), RTE_CACHE_LINE_SIZE);
		if (w == NULL)
			return -ENOMEM;
		w->dp = dp;
		w->lcore_id = lcore;
		w->index = i;
		w->ct_limit = IBEX_CT_LIMIT;
		ibex_ecn_rng_seed(&w->rng, UINT64_C(0x1bec5eed) + i);
		/* The switch's ports only: a TX buffer is 6 KB, and the
		 * zeroed pages of the ports beyond stay untouched (not
		 * resident), so a switch of few ports costs no more for
		 * IBEX_MAX_PORTS 64 (docs/fabric.md, "How big a fabric"). */
		for (p = 0; p < dp->nb_ports; p++)
			w->tx[p].txq = i;
		dp->workers[i++] = w;
		for (p = 0; p < dp->nb_ports; p++) {
			int ret = egress_alloc(&w->eg[p], &conf->ports[p],
				ll_vls, ll_slots,
				(int)rte_lcore_to_socket_id(lcore));

			if (ret < 0)
				return ret;
		}
	}
	return i == dp->nb_workers ? 0 : -EINVAL;
}

/* RCU over the tables: one reader thread per worker. */
static int
qsbr_create(struct ibex_dp *dp)
{
	size_t sz = rte_rcu_qsbr_get_memsize(dp->nb_workers);
	uint16_t i;

	dp->qsbr = rte_zmalloc("ibex_qsbr", sz, RTE_CACHE_LINE_SIZE);
	if (dp->qsbr == NULL)
		return -ENOMEM;
	if (rte_rcu_qsbr_init(dp->qsbr, dp->nb_workers) != 0)
		return -EINVAL;
	for (i = 0; i < dp->nb_workers; i++)
		if (rte_rcu_qsbr_thread_register(dp->qsbr, i) != 0)
			return -EINVAL;
	/* The same quiescent states keep a memif peer's disconnect from
	 * unmapping rings under a worker, and a capture's end from freeing
	 * its pool under one (ibex_unmap_guard.h). */
	return ibex_unmap_guard_add(dp->qsbr);
}

static int
queues_assign(struct ibex_dp *dp, uint16_t p, uint16_t nb_rxq)
{
	uint16_t q;

	for (q = 0; q < nb_rxq; q++) {
		struct ibex_worker *w = dp->workers[(p + q) % dp->nb_workers];

		if (w->nb_rxq == IBEX_MAX_RXQ_PER_WORKER)
			return -ENOSPC;
		w->rxq[w->nb_rxq].port = p;
		w->rxq[w->nb_rxq].queue = q;
		w->nb_rxq++;
	}
	return 0;
}

static int
fdb_load(struct ibex_dp *dp, const struct ibex_conf *conf, char *err,
	 size_t errlen)
{
	struct ibex_fdb_params fp = {
		.max_entries = conf->fdb_max_entries,
		.ageing_ms = conf->fdb_ageing_s * 1000u,
	};
	uint16_t i;

	dp->fdb = ibex_fdb_create(&fp);
	if (dp->fdb == NULL) {
		snprintf(err, errlen, "cannot allocate the FDB (%u entries)",
			 fp.max_entries);
		return -ENOMEM;
	}
	for (i = 0; i < conf->nb_static; i++) {
		const struct ibex_conf_fdb_static *s = &conf->statics[i];
		int ret = ibex_fdb_add_static(dp->fdb, s->mac, s->vid, s->port);

		if (ret < 0) {
			snprintf(err, errlen, "%s:%d: fdb static: %s",
				 conf->origin, s->line, strerror(-ret));
			return ret;
		}
	}
	return 0;
}

/* Data paths created so far in this process: the next one's instance. */
static atomic_uint dp_instances;

const char *
ibex_dp_obj_name(const struct ibex_dp *dp, char *buf, size_t len,
		 const char *base)
{
	if (dp->instance == 0)
		snprintf(buf, len, "%s", base);
	else
		snprintf(buf, len, "%s.%u", base, dp->instance);
	return buf;
}

/* ibex_dp_shared_pools_set()'s: NULL, each switch its own. */
static struct rte_mempool *shared_mbufs;
struct rte_mempool *ibex_dp_shared_fc_pool;

void
ibex_dp_shared_pools_set(struct rte_mempool *mbufs, struct rte_mempool *fc)
{
	shared_mbufs = mbufs;
	ibex_dp_shared_fc_pool = fc;
}

uint32_t
ibex_dp_shared_pool_min(const struct ibex_conf *conf, uint16_t nb_workers)
{
	uint16_t nw = RTE_MAX(nb_workers, (uint16_t)1);

	if (mbufs_lossless(conf, nw, 0, 0, NULL, NULL) != 0)
		return 2 * ibex_dp_pool_floor(conf, nw);
	return (uint32_t)IBEX_BURST_MAX * RTE_MAX(conf->nb_ports, 1) * nw;
}

/* The process's shared pool, if it suits this switch. */
static int
pool_share(struct ibex_dp *dp, const struct ibex_conf *conf, char *err,
	   size_t errlen)
{
	uint32_t room = rte_pktmbuf_data_room_size(shared_mbufs);
	uint32_t need = ibex_dp_shared_pool_min(conf, dp->nb_workers);

	if (room < (uint32_t)conf->mbuf_size + RTE_PKTMBUF_HEADROOM ||
	    shared_mbufs->size < need) {
		snprintf(err, errlen, "the shared pool (%u mbufs of %u bytes) "
			 "is below this switch's mbuf-size %u or the %u mbufs "
			 "it needs (twice its pool floor)", shared_mbufs->size,
			 room - RTE_PKTMBUF_HEADROOM, conf->mbuf_size, need);
		return -EINVAL;
	}
	dp->pool = shared_mbufs;
	dp->pool_shared = true;
	return 0;
}

static int
pool_create(struct ibex_dp *dp, const struct ibex_conf *conf, char *err,
	    size_t errlen)
{
	char name[RTE_MEMPOOL_NAMESIZE];
	uint32_t n;
	int ret;

	/* The floor matters where flow-control frames must get through: in
	 * a shared pool too, each switch keeps RX for them below its own. */
	dp->pool_floor = mbufs_lossless(conf, dp->nb_workers, 0, 0, NULL,
					NULL) != 0 ?
			 ibex_dp_pool_floor(conf, dp->nb_workers) : 0;
	if (shared_mbufs != NULL)
		return pool_share(dp, conf, err, errlen);
	ret = pool_size(conf, dp->nb_workers, &n, err, errlen);
	if (ret < 0)
		return ret;

	/* switch mbuf-size: the data room; frames longer are chained. */
	dp->pool = ibex_pdev_pool_create(
		ibex_dp_obj_name(dp, name, sizeof(name), "ibex_mbufs"), n,
		MEMPOOL_CACHE,
		(uint16_t)(conf->mbuf_size + RTE_PKTMBUF_HEADROOM),
		(int)rte_socket_id());
	if (dp->pool == NULL) {
		snprintf(err, errlen, "cannot create a pool of %u mbufs: %s "
			 "(give EAL more memory with -m)", n,
			 rte_strerror(rte_errno));
		return -ENOMEM;
	}
	return 0;
}

static int
ports_start(struct ibex_dp *dp, const struct ibex_conf *conf, char *err,
	    size_t errlen)
{
	uint16_t p;
	int ret;

	for (p = 0; p < dp->nb_ports; p++) {
		struct rte_eth_dev_info info;
		uint16_t nb_rxq;

		ret = ibex_pdev_info_get(dp->port_id[p], &info);
		if (ret < 0)
			return ret;
		ret = port_rx_queues(dp, &conf->ports[p], &info, &nb_rxq, err,
				     errlen);
		if (ret < 0)
			return ret;
		ret = port_configure(dp, p, &conf->ports[p], &info, nb_rxq, err,
				     errlen);
		if (ret < 0)
			return ret;
		dp->nb_started++;
		ret = port_pfc_hw(dp, p, &conf->ports[p], &info, nb_rxq, err,
				  errlen);
		if (ret < 0)
			return ret;
		ret = queues_assign(dp, p, nb_rxq);
		if (ret < 0) {
			snprintf(err, errlen, "too many queues for one worker");
			return ret;
		}
	}
	return 0;
}

int
ibex_dp_create(struct ibex_dp **dpp, const struct ibex_conf *conf, char *err,
	       size_t errlen)
{
	struct ibex_dp *dp;
	unsigned int nb_lcores = rte_lcore_count() - 1;
	char name[RTE_RING_NAMESIZE];
	int ret;

	dp = rte_zmalloc("ibex_dp", sizeof(*dp), RTE_CACHE_LINE_SIZE);
	if (dp == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	*dpp = dp;
	dp->instance = atomic_fetch_add(&dp_instances, 1);
	pthread_mutex_init(&dp->bpf_lock, NULL);
	pthread_mutex_init(&dp->cap_lock, NULL);
	pthread_mutex_init(&dp->ecmp_lock, NULL);
	dp->nb_ports = conf->nb_ports;
	dp->burst = conf->burst;
	dp->nb_workers = conf->nb_workers != 0 ? conf->nb_workers : nb_lcores;
	if (dp->nb_workers == 0 || dp->nb_workers > nb_lcores ||
	    dp->nb_workers > IBEX_MAX_WORKERS) {
		snprintf(err, errlen, "%u worker(s) wanted, EAL gave %u worker "
			 "lcore(s) (use -l with one lcore more than workers; "
			 "the first is the control thread)",
			 dp->nb_workers, nb_lcores);
		return -EINVAL;
	}
	if (conf->nb_ports == 0) {
		snprintf(err, errlen, "%s: no ports: a switch needs at least "
			 "one", conf->origin);
		return -EINVAL;
	}
	if (!conf->finished) {
		snprintf(err, errlen, "%s: configuration not finished "
			 "(ibex_conf_finish())", conf->origin);
		return -EINVAL;
	}
	ret = ports_resolve(dp, conf, err, errlen);
	if (ret < 0)
		return ret;
	dp->tsc_hz = ibex_clock_hz();
	/* Zeroed, and copied port by port: the ports a switch does not
	 * have stay untouched pages (ibex_conf_copy()). */
	dp->conf = rte_zmalloc("ibex_conf", sizeof(*conf), 0);
	if (dp->conf == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	ibex_conf_copy(dp->conf, conf);
	ret = workers_create(dp, conf);
	if (ret < 0) {
		snprintf(err, errlen, "cannot create workers (out of memory "
			 "for lane queues? give EAL more with -m)");
		return ret;
	}
	ret = qsbr_create(dp);
	if (ret < 0) {
		snprintf(err, errlen, "cannot create the RCU state");
		return ret;
	}
	dp->learn_ring = rte_ring_create_elem(
		ibex_dp_obj_name(dp, name, sizeof(name), "ibex_learn"),
					      sizeof(struct ibex_learn_req),
					      LEARN_RING_SIZE, (int)rte_socket_id(),
					      RING_F_SC_DEQ);
	if (dp->learn_ring == NULL) {
		snprintf(err, errlen, "cannot create the learn ring");
		return -ENOMEM;
	}
	ret = fdb_load(dp, conf, err, errlen);
	if (ret < 0)
		return ret;
	{
		struct ibex_dp_tables *t;

		ret = ibex_dp_tables_make(&t, conf, 1, err, errlen);
		if (ret < 0)
			return ret;
		ret = ibex_dp_tables_bpf(t, conf, NULL, err, errlen);
		if (ret < 0) {
			ibex_dp_tables_free(t);
			return ret;
		}
		atomic_store(&dp->tables, t);
		ibex_dp_bpf_note(dp, t);
		ibex_dp_ecmp_note(dp, t);
	}
	ret = pool_create(dp, conf, err, errlen);
	if (ret < 0)
		return ret;
	ret = ports_start(dp, conf, err, errlen);
	if (ret < 0)
		return ret;
	if (dp->detached != 0) {
		ret = ibex_dp_tables_republish(dp, err, errlen);
		if (ret < 0)
			return ret;
	}
	ret = ibex_fc_create(dp, conf, err, errlen);
	if (ret < 0)
		return ret;
	return ibex_dp_agg_create(dp, conf, err, errlen);
}

void
ibex_dp_destroy(struct ibex_dp *dp)
{
	uint16_t p, i;

	if (dp == NULL)
		return;
	ibex_capture_shutdown(dp);
	for (p = 0; p < dp->nb_started; p++) {
		ibex_pdev_stop(dp->port_id[p]);
		ibex_pdev_close(dp->port_id[p]);
	}
	ibex_fc_free(dp);
	ibex_dp_agg_free(dp);
	for (i = 0; i < dp->nb_workers; i++) {
		if (dp->workers[i] == NULL)
			continue;
		for (p = 0; p < dp->nb_ports; p++)
			egress_free(dp->workers[i]->eg[p]);
		rte_free(dp->workers[i]);
	}
	if (dp->qsbr != NULL)
		ibex_unmap_guard_del(dp->qsbr);
	rte_free(dp->qsbr);
	rte_free(dp->conf);
	ibex_dp_tables_free(atomic_load(&dp->tables));
	pthread_mutex_destroy(&dp->bpf_lock);
	pthread_mutex_destroy(&dp->cap_lock);
	pthread_mutex_destroy(&dp->ecmp_lock);
	ibex_fdb_free(dp->fdb);
	rte_ring_free(dp->learn_ring);
	if (!dp->pool_shared)
		rte_mempool_free(dp->pool);
	rte_free(dp);
}

int
ibex_dp_wait_links(const struct ibex_dp *dp, uint32_t timeout_ms, char *err,
		   size_t errlen)
{
	uint64_t deadline = rte_get_timer_cycles() +
			    (uint64_t)timeout_ms * rte_get_timer_hz() / 1000;
	uint16_t p = 0;

	while (p < dp->nb_ports) {
		if (ibex_dp_port_link_up(dp, p)) {
			p++;
			continue;
		}
		if (rte_get_timer_cycles() > deadline) {
			snprintf(err, errlen, "port %s: link still down after %u ms",
				 dp->port_name[p], timeout_ms);
			return -ETIMEDOUT;
		}
		/* rte_delay_ms() spins: sleep, the CPU may be shared. */
		rte_delay_us_sleep(10 * 1000);
	}
	return 0;
}
