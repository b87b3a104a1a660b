/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Links that come back: ports whose PMD dials its peer only when started.
 *
 * DPDK 22.11's memif client connects once, in rte_eth_dev_start(). When
 * its server is not there yet, or is there but its port not yet started
 * (the server answers "ID not found" and hangs up), or goes away later,
 * the port stays down for good. So the control thread watches such ports
 * and restarts one while its link is down:
 *  1. it takes the port from the workers: tables with the port's bit in
 *     `detached`, then an RCU grace period, after which no worker is in
 *     an RX or TX call on it (ethdev's stop and start swap the port's
 *     burst functions and queues under a caller, and must not race one);
 *     frames for it wait in the workers, lanes fill and flow control
 *     holds back or tail-drops as for any port that does not send;
 *  2. stops and starts it: start dials the server;
 *  3. gives it back once it started (a stopped port stays detached:
 *     ethdev's stand-in burst functions would complain).
 * Every other port's link is watched too, on the control loop's second
 * tick: a port whose link goes down has its learned FDB entries flushed
 * (as an 802.1Q bridge does), so frames to its stations flood until they
 * are learned again wherever they reappear, and the edge is counted.
 * A start that fails made no connection (nobody listens): retry after
 * REDIAL_MIN_MS. A start that connected leaves the handshake to EAL's
 * interrupt thread; the next restart waits REDIAL_FIRST_MS, doubling up
 * to REDIAL_MAX_MS, so a slow handshake on a busy machine is not cut
 * short (closing a connection before the server took it makes DPDK
 * 22.11's memif server free state it still uses).
 */

#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_ethdev.h>
#include <rte_log.h>

#include "ibex_clock.h"
#include "ibex_pdev.h"
#include "ibex_dp_private.h"
#include "ibex_fdb.h"

RTE_LOG_REGISTER(ibex_link_logtype, ibex.link, INFO);
#define RTE_LOGTYPE_IBEX_LINK ibex_link_logtype

#define REDIAL_MIN_MS 250
#define REDIAL_FIRST_MS 2000
#define REDIAL_MAX_MS 8000
/* Between looks at links that are up: the control loop's second tick. */
#define LINKS_IDLE_MS 1000

static bool
is_memif(uint16_t port_id)
{
	struct rte_eth_dev_info info;

	return ibex_pdev_info_get(port_id, &info) == 0 &&
	       info.driver_name != NULL &&
	       strcmp(info.driver_name, "net_memif") == 0;
}

bool
ibex_port_redials(uint16_t port_id)
{
	struct rte_eth_dev_info info;
	const struct rte_devargs *da;

	if (ibex_pdev_info_get(port_id, &info) != 0 ||
	    info.driver_name == NULL ||
	    strcmp(info.driver_name, "net_memif") != 0 || info.device == NULL)
		return false;
	da = rte_dev_devargs(info.device);
	/* The PMD's own test of its role= value (strstr), client or slave. */
	return da != NULL && da->args != NULL &&
	       (strstr(da->args, "role=client") != NULL ||
		strstr(da->args, "role=slave") != NULL);
}

static uint64_t
now_ms(void)
{
	return ibex_clock_now() / (ibex_clock_hz() / 1000);
}

bool
ibex_dp_port_link_up(const struct ibex_dp *dp, uint16_t port)
{
	struct rte_eth_link link;

	return ibex_pdev_link_get_nowait(dp->port_id[port], &link) == 0 &&
	       link.link_status == RTE_ETH_LINK_UP;
}

/* Publish dp->detached; on failure (out of memory) put @p bit back as it
 * was in the tables. @return 0 or -errno. */
static int
detached_publish(struct ibex_dp *dp, uint16_t p, uint64_t was)
{
	char err[256];
	int ret = ibex_dp_tables_republish(dp, err, sizeof(err));

	if (ret < 0) {
		dp->detached = (dp->detached & ~(UINT64_C(1) << p)) | was;
		RTE_LOG(WARNING, IBEX_LINK, "port %s: cannot %s the workers "
			"to reconnect it: %s\n", dp->port_name[p],
			was != 0 ? "give it back to" : "take it from", err);
	}
	return ret;
}

/* Steps 1-3 of the comment above for port @p p, whose link is down. */
static void
port_redial(struct ibex_dp *dp, uint16_t p, uint64_t now)
{
	uint64_t bit = UINT64_C(1) << p;
	uint16_t pid = dp->port_id[p];
	int ret;

	dp->redial_at_ms[p] = now + REDIAL_MIN_MS;
	if (!(dp->detached & bit)) {
		dp->detached |= bit;
		if (detached_publish(dp, p, 0) < 0)
			return;
	}
	ibex_pdev_stop(pid);
	IBEX_CNT_ADD(dp->redials[p], 1);
	ret = ibex_pdev_start(pid);
	if (ret < 0)
		return;
	ret = ibex_pdev_promiscuous_enable(pid);
	if (ret < 0 && ret != -ENOTSUP)
		RTE_LOG(WARNING, IBEX_LINK, "port %s: promiscuous mode: %s\n",
			dp->port_name[p], rte_strerror(-ret));
	dp->redial_at_ms[p] = now + dp->redial_wait_ms[p];
	dp->redial_wait_ms[p] = RTE_MIN(2 * dp->redial_wait_ms[p],
					(uint32_t)REDIAL_MAX_MS);
	dp->detached &= ~bit;
	detached_publish(dp, p, bit);
}

/* Port @p p's link is now @p up, and was not; @p first: the first look
 * at the port, which logs a link that is up and counts nothing. */
static void
link_edge(struct ibex_dp *dp, uint16_t p, bool up, bool first)
{
	uint32_t flushed;

	if (first && !up)
		return;
	if (up) {
		RTE_LOG(INFO, IBEX_LINK, "port %s: link up\n", dp->port_name[p]);
		return;
	}
	IBEX_CNT_ADD(dp->link_downs[p], 1);
	flushed = ibex_fdb_flush_port(dp->fdb, p);
	RTE_LOG(INFO, IBEX_LINK, "port %s: link down; %u learned FDB "
		"entr%s flushed\n", dp->port_name[p], flushed,
		flushed == 1 ? "y" : "ies");
}

uint32_t
ibex_dp_links_poll(struct ibex_dp *dp)
{
	uint64_t all = dp->nb_ports >= 64 ? UINT64_MAX :
		       (UINT64_C(1) << dp->nb_ports) - 1;
	uint64_t watch = all, now = now_ms();
	uint32_t next = 0;

	while (watch != 0) {
		uint16_t p = (uint16_t)__builtin_ctzll(watch);
		uint64_t bit = UINT64_C(1) << p;
		bool up = !(dp->detached & bit) && ibex_dp_port_link_up(dp, p);

		watch &= watch - 1;
		if (!(dp->link_known & bit) ||
		    up != ((dp->link_seen_up & bit) != 0)) {
			link_edge(dp, p, up, !(dp->link_known & bit));
			dp->link_known |= bit;
			dp->link_seen_up = (dp->link_seen_up & ~bit) |
					   (up ? bit : 0);
			__atomic_store_n(&dp->links_down,
					 dp->link_known & ~dp->link_seen_up,
					 __ATOMIC_RELAXED);
		}
		if (!(dp->redial & bit) || up) {
			dp->redial_wait_ms[p] = REDIAL_FIRST_MS;
			next = next == 0 ? LINKS_IDLE_MS : next;
			continue;
		}
		if (dp->redial_wait_ms[p] == 0)
			dp->redial_wait_ms[p] = REDIAL_FIRST_MS;
		if (now >= dp->redial_at_ms[p])
			port_redial(dp, p, now);
		next = REDIAL_MIN_MS;
	}
	return next;
}

int
ibex_dp_wait_peers_gone(const struct ibex_dp *dp, uint32_t timeout_ms)
{
	uint64_t deadline = now_ms() + timeout_ms;
	uint16_t p = 0;

	while (p < dp->nb_ports) {
		if (!is_memif(dp->port_id[p]) || !ibex_dp_port_link_up(dp, p)) {
			p++;
			continue;
		}
		if (now_ms() >= deadline)
			return -ETIMEDOUT;
		/* Sleep: the caller may share its CPU. */
		rte_delay_us_sleep(10 * 1000);
	}
	return 0;
}
