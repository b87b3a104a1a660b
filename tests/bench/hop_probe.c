/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hop_probe: the latency of one hop through a forwarder, independent of
 * ibex's own generator. Port 0 sends, port 1 receives (typically two
 * net_memif servers the forwarder attaches to as clients); every frame
 * carries {magic, seq, TX TSC} in its UDP payload and the RX TSC is read
 * right after the burst that returned it.
 *
 *   hop_probe [EAL args] -- [-n PROBES] [-r PPS] [-k K] [-s SIZE]
 *                           [-w WARMUP] [-W SECONDS] [-c SECONDS]
 *                           [-l LINK_WAIT_S] [-H]
 *                           [-q RXQ]
 *
 * Without -r, one frame is in flight: the next leaves when the last came
 * back (or after a 10 ms loss timeout). With -r PPS the probe sends an open
 * loop at PPS and times every K-th frame (the tagged subset, -k, default
 * 16) while the rest is load; nothing is timed in the first -W SECONDS
 * (default 0.5: a forwarder's first touches of its buffers and queues
 * are its start, not its latency) nor in the first -w WARMUP probes.
 * -c SECONDS sends flat out for that long and
 * prints the rate that came back: the forwarder's capacity as this probe
 * sees it. The result is one line of "key value" pairs, nanoseconds:
 *   probes N lost N p50 .. p90 .. p99 .. p99.9 .. max .. rx_pps ..
 * -H holds the links up after the result until SIGTERM, so the forwarder
 * can be stopped first (a memif peer vanishing under a polling forwarder
 * is not what is being measured). -q polls RXQ queues per port, for a
 * forwarder that sends on several (default 1). Before measuring, a frame
 * from the receiver's station goes the other way so a learning switch
 * knows both stations (and unicasts).
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

/* A 64-byte frame has 22 bytes after the UDP header: 16 are ours. */
#define PROBE_MAGIC 0x1b3c5d7eu
#define PROBE_MAGIC_TAGGED 0x1b3c5d7fu
#define NB_DESC 1024
#define BURST 32
#define LOSS_TIMEOUT_MS 10

struct probe_hdr {
	uint32_t magic;          /* PROBE_MAGIC, or _TAGGED: timed */
	uint32_t seq;
	uint64_t tsc;
} __rte_packed;

struct opts {
	uint64_t probes, warmup;
	double pps, capacity_s, link_wait_s, warmup_s;
	unsigned int tag_every, size;
	bool hold;
};

static volatile sig_atomic_t quit;

static void
on_signal(int sig)
{
	(void)sig;
	quit = 1;
}

static const struct rte_ether_addr mac_a = {{ 0x02, 0, 0, 0, 0x0a, 0x01 }};
static const struct rte_ether_addr mac_b = {{ 0x02, 0, 0, 0, 0x0b, 0x01 }};
static struct rte_mempool *pool;
static uint64_t hz;
/*
 * RX queues per port (-q). A memif client may open more rings towards
 * the server than one (OVS opens a TX queue per PMD thread plus one for
 * its main thread), and the server refuses a ring it has no queue for.
 */
static uint16_t nb_rxq = 1;

static int
port_init(uint16_t port)
{
	struct rte_eth_conf conf = { 0 };
	int ret;

	uint16_t q;

	ret = rte_eth_dev_configure(port, nb_rxq, 1, &conf);
	for (q = 0; ret == 0 && q < nb_rxq; q++)
		ret = rte_eth_rx_queue_setup(port, q, NB_DESC,
					     rte_eth_dev_socket_id(port), NULL,
					     pool);
	if (ret == 0)
		ret = rte_eth_tx_queue_setup(port, 0, NB_DESC,
					     rte_eth_dev_socket_id(port), NULL);
	if (ret == 0)
		ret = rte_eth_dev_start(port);
	return ret;
}

static int
wait_links(double seconds)
{
	uint64_t end = rte_rdtsc() + (uint64_t)(seconds * (double)hz);
	struct rte_eth_link l0, l1;

	for (;;) {
		if (rte_eth_link_get_nowait(0, &l0) == 0 &&
		    rte_eth_link_get_nowait(1, &l1) == 0 &&
		    l0.link_status == RTE_ETH_LINK_UP &&
		    l1.link_status == RTE_ETH_LINK_UP)
			return 0;
		if (rte_rdtsc() > end)
			return -ETIMEDOUT;
		rte_delay_us_sleep(10000);
	}
}

static struct rte_mbuf *
build(const struct rte_ether_addr *dst, const struct rte_ether_addr *src,
      unsigned int size, uint64_t seq, bool tagged)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	struct rte_ether_hdr *eth;
	struct rte_ipv4_hdr *ip;
	struct rte_udp_hdr *udp;
	struct probe_hdr *ph;

	if (m == NULL)
		return NULL;
	eth = (struct rte_ether_hdr *)rte_pktmbuf_append(m, (uint16_t)size);
	memset(eth, 0, size);
	eth->dst_addr = *dst;
	eth->src_addr = *src;
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ip = (struct rte_ipv4_hdr *)(eth + 1);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(size - sizeof(*eth)));
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = rte_cpu_to_be_32(0x0a000001);
	ip->dst_addr = rte_cpu_to_be_32(0x0a000002);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	udp = (struct rte_udp_hdr *)(ip + 1);
	udp->src_port = rte_cpu_to_be_16(49152);
	udp->dst_port = rte_cpu_to_be_16(9);
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)(size - sizeof(*eth) -
						     sizeof(*ip)));
	ph = (struct probe_hdr *)(udp + 1);
	ph->magic = tagged ? PROBE_MAGIC_TAGGED : PROBE_MAGIC;
	ph->seq = (uint32_t)seq;
	return m;
}

static const struct probe_hdr *
probe_of(const struct rte_mbuf *m)
{
	const struct probe_hdr *ph;

	if (m->data_len < sizeof(struct rte_ether_hdr) +
	    sizeof(struct rte_ipv4_hdr) + sizeof(struct rte_udp_hdr) +
	    sizeof(*ph))
		return NULL;
	ph = rte_pktmbuf_mtod_offset(m, const struct probe_hdr *,
				     sizeof(struct rte_ether_hdr) +
				     sizeof(struct rte_ipv4_hdr) +
				     sizeof(struct rte_udp_hdr));
	return ph->magic == PROBE_MAGIC || ph->magic == PROBE_MAGIC_TAGGED ?
	       ph : NULL;
}

static void
stamp(struct rte_mbuf *m)
{
	struct probe_hdr *ph = (struct probe_hdr *)(uintptr_t)probe_of(m);

	ph->tsc = rte_rdtsc();
}

/* One burst from each of @p port's RX queues, into @p pk. */
static uint16_t
rx_all(uint16_t port, struct rte_mbuf **pk)
{
	uint16_t q, n = 0;

	for (q = 0; q < nb_rxq && n < BURST; q++)
		n += rte_eth_rx_burst(port, q, pk + n, BURST - n);
	return n;
}

/* Frames that come back on port 0 (testpmd io loops both ways): gone. */
static void
drain_port0(void)
{
	struct rte_mbuf *pk[BURST];
	uint16_t n = rx_all(0, pk);

	if (n != 0)
		rte_pktmbuf_free_bulk(pk, n);
}

/* B speaks once from port 1, so a learning forwarder knows it. */
static void
teach(unsigned int size)
{
	struct rte_mbuf *m;
	int i;

	for (i = 0; i < 3; i++) {
		m = build(&mac_a, &mac_b, size, 0, false);
		if (m != NULL && rte_eth_tx_burst(1, 0, &m, 1) == 0)
			rte_pktmbuf_free(m);
		rte_delay_us_sleep(20000);
		drain_port0();
	}
}

/*
 * A frame must make the whole trip before anything is measured: a
 * forwarder that has just started may still restart its ports (memif
 * reconnects) after the links first came up, and what it does while
 * starting is not its latency. One frame a millisecond until one returns.
 */
static int
wait_path(unsigned int size, double seconds)
{
	uint64_t end = rte_rdtsc() + (uint64_t)(seconds * (double)hz);
	struct rte_mbuf *pk[BURST];

	while (rte_rdtsc() < end && !quit) {
		struct rte_mbuf *m = build(&mac_b, &mac_a, size, 0, false);
		uint64_t until = rte_rdtsc() + hz / 1000;
		bool back = false;

		if (m == NULL)
			return -ENOMEM;
		if (rte_eth_tx_burst(0, 0, &m, 1) == 0)
			rte_pktmbuf_free(m);
		while (rte_rdtsc() < until) {
			uint16_t k, n = rx_all(1, pk);

			for (k = 0; k < n; k++)
				back |= probe_of(pk[k]) != NULL;
			if (n != 0)
				rte_pktmbuf_free_bulk(pk, n);
			drain_port0();
		}
		if (back)
			return 0;
	}
	return -ETIMEDOUT;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static double
pct(const uint64_t *v, uint64_t n, double p)
{
	uint64_t i;

	if (n == 0)
		return 0;
	i = (uint64_t)(p / 100.0 * (double)(n - 1) + 0.5);
	return (double)v[i] * 1e9 / (double)hz;
}

static void
report(uint64_t *lat, uint64_t n, uint64_t lost, double rx_pps)
{
	qsort(lat, n, sizeof(lat[0]), cmp_u64);
	printf("probes %" PRIu64 " lost %" PRIu64 " p50 %.0f p90 %.0f p99 %.0f "
	       "p99.9 %.0f max %.0f rx_pps %.0f\n", n, lost, pct(lat, n, 50),
	       pct(lat, n, 90), pct(lat, n, 99), pct(lat, n, 99.9),
	       pct(lat, n, 100), rx_pps);
}

/* One frame in flight. */
static int
run_serial(const struct opts *o, uint64_t *lat)
{
	uint64_t timeout = hz / 1000 * LOSS_TIMEOUT_MS, lost = 0, n = 0, seq;
	struct rte_mbuf *pk[BURST];

	for (seq = 1; seq <= o->warmup + o->probes; seq++) {
		struct rte_mbuf *m = build(&mac_b, &mac_a, o->size, seq, true);
		uint64_t t0, now;
		bool back = false;

		if (m == NULL)
			return -ENOMEM;
		stamp(m);
		t0 = probe_of(m)->tsc;
		if (rte_eth_tx_burst(0, 0, &m, 1) == 0) {
			rte_pktmbuf_free(m);
			lost++;
			continue;
		}
		do {
			uint16_t k, nb = rx_all(1, pk);

			now = rte_rdtsc();
			for (k = 0; k < nb; k++) {
				const struct probe_hdr *ph = probe_of(pk[k]);

				if (ph != NULL && ph->seq == (uint32_t)seq) {
					back = true;
					if (seq > o->warmup)
						lat[n++] = now - t0;
				}
			}
			if (nb != 0)
				rte_pktmbuf_free_bulk(pk, nb);
		} while (!back && now - t0 < timeout);
		if (!back && seq > o->warmup)
			lost++;
		drain_port0();
	}
	report(lat, n, lost, 0);
	return 0;
}

/*
 * Open loop at o->pps (flat out when capacity_s is set), timing every
 * tag_every-th frame.
 */
static int
run_load(const struct opts *o, uint64_t *lat)
{
	uint64_t gap = o->pps > 0 ? (uint64_t)((double)hz / o->pps) : 0;
	uint64_t end = o->capacity_s > 0 ?
		       rte_rdtsc() + (uint64_t)(o->capacity_s * (double)hz) :
		       (uint64_t)-1;
	uint64_t seq = 0, next = rte_rdtsc(), n = 0, tagged_sent = 0, rx = 0;
	uint64_t t_first = 0, t_last = 0, drain_end = 0;
	uint64_t tag_from = rte_rdtsc() + (uint64_t)(o->warmup_s * (double)hz);
	struct rte_mbuf *pk[BURST];

	for (;;) {
		uint64_t now = rte_rdtsc();
		uint16_t k, nb;

		/* The count is of timed frames: the warm-up may be longer
		 * than the whole run at a high rate. */
		if (drain_end == 0 && (now >= end ||
				       (o->capacity_s == 0 &&
					tagged_sent >= o->probes)))
			drain_end = now + hz / 1000 * 50;
		if (drain_end == 0 && now >= next) {
			struct rte_mbuf *m;
			bool tag = (seq % o->tag_every) == 0 &&
				   seq / o->tag_every >= o->warmup &&
				   now >= tag_from;

			m = build(&mac_b, &mac_a, o->size, seq, tag);
			if (m == NULL)
				return -ENOMEM;
			stamp(m);
			if (rte_eth_tx_burst(0, 0, &m, 1) == 0)
				rte_pktmbuf_free(m);
			else if (tag)
				tagged_sent++;
			seq++;
			next = gap != 0 ? next + gap : now;
			/* Fell far behind: do not burst to catch up. */
			if (gap != 0 && now > next + 64 * gap)
				next = now;
		}
		nb = rx_all(1, pk);
		now = rte_rdtsc();
		for (k = 0; k < nb; k++) {
			const struct probe_hdr *ph = probe_of(pk[k]);

			if (ph == NULL)
				continue;
			rx++;
			if (t_first == 0)
				t_first = now;
			t_last = now;
			if (ph->magic == PROBE_MAGIC_TAGGED && n < o->probes)
				lat[n++] = now - ph->tsc;
		}
		if (nb != 0)
			rte_pktmbuf_free_bulk(pk, nb);
		drain_port0();
		if (drain_end != 0 && now >= drain_end)
			break;
	}
	report(lat, n, tagged_sent > n ? tagged_sent - n : 0,
	       t_last > t_first ? (double)(rx - 1) * (double)hz /
				  (double)(t_last - t_first) : 0);
	return 0;
}

static int
parse(int argc, char **argv, struct opts *o)
{
	int c;

	while ((c = getopt(argc, argv, "n:r:k:s:w:W:c:l:q:Hh")) != -1) {
		switch (c) {
		case 'n': o->probes = strtoull(optarg, NULL, 0); break;
		case 'r': o->pps = strtod(optarg, NULL); break;
		case 'k': o->tag_every = (unsigned int)atoi(optarg); break;
		case 's': o->size = (unsigned int)atoi(optarg); break;
		case 'w': o->warmup = strtoull(optarg, NULL, 0); break;
		case 'W': o->warmup_s = strtod(optarg, NULL); break;
		case 'c': o->capacity_s = strtod(optarg, NULL); break;
		case 'l': o->link_wait_s = strtod(optarg, NULL); break;
		case 'H': o->hold = true; break;
		case 'q': nb_rxq = (uint16_t)atoi(optarg); break;
		default:
			fprintf(stderr, "usage: hop_probe [EAL] -- [-n PROBES] "
				"[-r PPS] [-k K] [-s SIZE] [-w WARMUP] [-W SECONDS] "
				"[-c SECONDS] [-l LINK_WAIT_S] [-q RXQ]\n");
			return -EINVAL;
		}
	}
	if (o->probes == 0 || o->tag_every == 0 || o->size < 64 ||
	    o->size > 1500 || nb_rxq == 0 || nb_rxq > 8) {
		fprintf(stderr, "hop_probe: bad -n, -k, -s or -q\n");
		return -EINVAL;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	struct opts o = { .probes = 100000, .warmup = 1000, .tag_every = 16,
			  .size = 64, .link_wait_s = 30,
			  .warmup_s = 0.5 };
	uint64_t *lat;
	int ret;

	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "hop_probe: EAL init failed\n");
		return 1;
	}
	if (parse(argc - ret, argv + ret, &o) < 0)
		return 2;
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	hz = rte_get_tsc_hz();
	if (rte_eth_dev_count_avail() != 2) {
		fprintf(stderr, "hop_probe: needs exactly two ports\n");
		return 1;
	}
	pool = rte_pktmbuf_pool_create("probe", 8191, 256, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE,
				       (int)rte_socket_id());
	lat = calloc(o.probes, sizeof(*lat));
	if (pool == NULL || lat == NULL || port_init(0) != 0 ||
	    port_init(1) != 0) {
		fprintf(stderr, "hop_probe: port setup failed\n");
		return 1;
	}
	if (wait_links(o.link_wait_s) < 0) {
		fprintf(stderr, "hop_probe: links not up\n");
		return 1;
	}
	teach(o.size);
	if (wait_path(o.size, o.link_wait_s) < 0) {
		fprintf(stderr, "hop_probe: no frame came back in %g s\n",
			o.link_wait_s);
		return 1;
	}
	ret = o.pps > 0 || o.capacity_s > 0 ? run_load(&o, lat) :
					      run_serial(&o, lat);
	fflush(stdout);
	while (o.hold && !quit)
		pause();
	free(lat);
	rte_eth_dev_stop(0);
	rte_eth_dev_stop(1);
	rte_eal_cleanup();
	return ret < 0 ? 1 : 0;
}
