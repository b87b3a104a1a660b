/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A link split between processes (ibexlink_carry_out/in, docs/simulation.md,
 * "Beyond one machine"), in one process on the virtual clock, with EAL
 * (--no-huge). Three pairs of the same link: ra -> rb, the reference; xa
 * -> xb, whose sender xa stands for one process's end (xb is never
 * polled); ya -> yb, whose ya stands in for xa in the far process. What xa
 * sends is carried out of its wire and into ya's, as the executive does
 * at a window's end; yb must then receive what rb receives, byte for byte
 * (frames the wire corrupted too) and at the same arrival times, and be
 * woken at them. Jumbo frames into an RX pool of 2 KB mbufs arrive
 * chained. LLR is refused.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <rte_bus_vdev.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>

#include "ibex_clock.h"
#include "ibexlink.h"

#define NB_MBUF    8191
#define BIG_BUF    (10240 + RTE_PKTMBUF_HEADROOM)
#define SMALL_BUF  (2048 + RTE_PKTMBUF_HEADROOM)
#define FRAMES     300
/* the senders' wire: lossy enough that some frames arrive damaged */
#define SEND_ARGS  "rate=100G,delay=500ns,jitter=20ns,corrupt=0.05,seed=7"

static struct rte_mempool *big_pool, *small_pool;
static int ts_off = -1;
static uint64_t ts_flag;

/* owners of wakes: the two receivers polled */
enum { OWN_RB = 0, OWN_YB = 1, OWN_N };

static uint64_t wakes[OWN_N][4 * FRAMES];
static unsigned int n_wakes[OWN_N];

static void
on_wake(void *arg, uint32_t owner, uint64_t t)
{
	(void)arg;
	if (owner < OWN_N && n_wakes[owner] < RTE_DIM(wakes[0]))
		wakes[owner][n_wakes[owner]++] = t;
}

static uint16_t
dev(const char *name, const char *args)
{
	uint16_t id;

	assert_int_equal(rte_vdev_init(name, args), 0);
	assert_int_equal(rte_eth_dev_get_port_by_name(name, &id), 0);
	return id;
}

static void
up(uint16_t pid, struct rte_mempool *rx_pool)
{
	struct rte_eth_conf conf = { 0 };

	conf.rxmode.offloads = RTE_ETH_RX_OFFLOAD_TIMESTAMP;
	assert_int_equal(rte_eth_dev_configure(pid, 1, 1, &conf), 0);
	assert_int_equal(rte_eth_rx_queue_setup(pid, 0, 1024, 0, NULL,
						rx_pool), 0);
	assert_int_equal(rte_eth_tx_queue_setup(pid, 0, 1024, 0, NULL), 0);
	assert_int_equal(rte_eth_dev_start(pid), 0);
}

/* Frame i: sizes from 64 bytes to a 9,000-byte jumbo, a pattern of i. */
static struct rte_mbuf *
frame(uint32_t i)
{
	static const uint32_t sizes[] = { 64, 1500, 9000, 128, 4096, 1000 };
	uint32_t len = sizes[i % RTE_DIM(sizes)], k;
	struct rte_mbuf *m = rte_pktmbuf_alloc(big_pool);
	uint8_t *d;

	assert_non_null(m);
	d = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)len);
	assert_non_null(d);
	memset(d, 0x02, 12);
	d[12] = 0x88;
	d[13] = 0xb6;
	for (k = 14; k < len; k++)
		d[k] = (uint8_t)(k * 7 + i);
	return m;
}

struct got {
	uint32_t len;
	uint64_t arrival_ps;
	uint64_t hash;
	uint16_t segs;
};

static uint64_t
bytes_hash(const struct rte_mbuf *m)
{
	static uint8_t buf[16384];
	const uint8_t *d = rte_pktmbuf_read(m, 0, rte_pktmbuf_pkt_len(m), buf);
	uint64_t h = 1469598103934665603ULL;
	uint32_t k;

	for (k = 0; k < rte_pktmbuf_pkt_len(m); k++)
		h = (h ^ d[k]) * 1099511628211ULL;
	return h;
}

/* Everything @p pid has received by now, appended to @p g. */
static unsigned int
take(uint16_t pid, struct got *g, unsigned int n)
{
	struct rte_mbuf *mb[32];
	uint16_t k, i;

	while ((k = rte_eth_rx_burst(pid, 0, mb, RTE_DIM(mb))) != 0) {
		for (i = 0; i < k; i++) {
			assert_true(n < FRAMES);
			assert_true(mb[i]->ol_flags & ts_flag);
			g[n].len = rte_pktmbuf_pkt_len(mb[i]);
			g[n].arrival_ps = *RTE_MBUF_DYNFIELD(mb[i], ts_off,
						rte_mbuf_timestamp_t *);
			g[n].hash = bytes_hash(mb[i]);
			g[n].segs = mb[i]->nb_segs;
			n++;
			rte_pktmbuf_free(mb[i]);
		}
	}
	return n;
}

struct carry {
	struct ibexlink_port *to;
	unsigned int n;
};

static int
carry_one(void *arg, uint64_t arrival_ps, const void *data, uint32_t len)
{
	struct carry *c = arg;

	c->n++;
	return ibexlink_carry_in(c->to, arrival_ps, data, len);
}

static int
carry_refuse(void *arg, uint64_t arrival_ps, const void *data, uint32_t len)
{
	(void)arg, (void)arrival_ps, (void)data, (void)len;
	return -ECANCELED;
}

static void
test_carry(void **state)
{
	static struct got ref[FRAMES], split[FRAMES];
	struct rte_mbuf *mb[FRAMES], *mx[FRAMES];
	uint16_t ra, rb, xa, xb, ya, yb;
	unsigned int i, nr = 0, ns = 0, w, damaged;
	struct carry c;
	uint64_t t, last = 0;
	int n;

	(void)state;
	ra = dev("net_ibexlink0", SEND_ARGS);
	rb = dev("net_ibexlink1", "peer=net_ibexlink0");
	xa = dev("net_ibexlink2", SEND_ARGS);
	xb = dev("net_ibexlink3", "peer=net_ibexlink2");
	ya = dev("net_ibexlink4", SEND_ARGS);
	yb = dev("net_ibexlink5", "peer=net_ibexlink4");
	ibexlink_port_set_owner(ibexlink_port_of(rb), OWN_RB);
	ibexlink_port_set_owner(ibexlink_port_of(yb), OWN_YB);
	up(ra, big_pool);
	up(rb, big_pool);
	up(xa, big_pool);
	up(xb, big_pool);
	up(ya, big_pool);
	up(yb, small_pool); /* the jumbo frames arrive chained */

	for (i = 0; i < FRAMES; i++) {
		mb[i] = frame(i);
		mx[i] = frame(i);
	}
	/* a microsecond in: the links' time base is their probe's instant,
	 * and a MAC takes a frame only after its last one started */
	ibex_clock_set(1000);
	assert_int_equal(rte_eth_tx_burst(ra, 0, mb, FRAMES), FRAMES);
	assert_int_equal(rte_eth_tx_burst(xa, 0, mx, FRAMES), FRAMES);

	/* the window's end: xa's frames leave for the far process */
	c.to = ibexlink_port_of(ya);
	c.n = 0;
	n = ibexlink_carry_out(ibexlink_port_of(xa), carry_one, &c);
	assert_int_equal(n, FRAMES);
	assert_int_equal(c.n, FRAMES);
	assert_int_equal(ibexlink_carry_out(ibexlink_port_of(xa), carry_one,
					    &c), 0);
	/* the far receiver was told of every arrival, as the near one */
	assert_int_equal(n_wakes[OWN_YB], FRAMES);

	/* time runs to each wake; both receivers are polled there */
	for (w = 0; w < n_wakes[OWN_YB]; w++) {
		t = wakes[OWN_YB][w];
		assert_true(t >= last);
		last = t;
		ibex_clock_set(t);
		nr = take(rb, ref, nr);
		ns = take(yb, split, ns);
	}
	assert_int_equal(nr, FRAMES);
	assert_int_equal(ns, FRAMES);
	for (i = 0; i < FRAMES; i++) {
		assert_int_equal(split[i].len, ref[i].len);
		assert_int_equal(split[i].arrival_ps, ref[i].arrival_ps);
		assert_int_equal(split[i].hash, ref[i].hash);
		if (split[i].len > SMALL_BUF - RTE_PKTMBUF_HEADROOM)
			assert_true(split[i].segs > 1);
	}
	/* the wire did damage some: carried as they were */
	for (i = 0, damaged = 0; i < FRAMES; i++) {
		struct rte_mbuf *m = frame(i);

		damaged += bytes_hash(m) != ref[i].hash;
		rte_pktmbuf_free(m);
	}
	assert_true(damaged > 0);
	assert_int_equal(n_wakes[OWN_RB], FRAMES);
	print_message("carry: %u frames (%u damaged by the wire), the last at "
		      "%.3f us, byte for byte and at the same times as on one "
		      "link\n", FRAMES, damaged,
		      (double)ref[FRAMES - 1].arrival_ps / 1e6);

	/* an error of the carrier ends the carry; the frames are freed */
	mx[0] = frame(0);
	assert_int_equal(rte_eth_tx_burst(xa, 0, mx, 1), 1);
	assert_int_equal(ibexlink_carry_out(ibexlink_port_of(xa),
					    carry_refuse, NULL), -ECANCELED);
	assert_int_equal(ibexlink_carry_out(ibexlink_port_of(xa), carry_one,
					    &c), 0);
	(void)xb;
}

/* LLR's control ordered sets do not cross: refused both ways. */
static void
test_llr_refused(void **state)
{
	uint16_t a, b;

	(void)state;
	a = dev("net_ibexlink6", "rate=200G,delay=25ns,llr=200g-5m");
	b = dev("net_ibexlink7", "peer=net_ibexlink6");
	up(a, big_pool);
	up(b, big_pool);
	assert_int_equal(ibexlink_carry_out(ibexlink_port_of(a), carry_refuse,
					    NULL), -ENOTSUP);
	assert_int_equal(ibexlink_carry_in(ibexlink_port_of(a), 1000, "x", 1),
			 -ENOTSUP);
}

int
main(int argc, char **argv)
{
	char prefix[64];
	char *eal[] = { argv[0], "--no-huge", "-m", "512", "--no-pci", "-l",
			"0", prefix, "--log-level=pmd.net.ibexlink:warning",
			NULL };
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_carry),
		cmocka_unit_test(test_llr_refused),
	};

	(void)argc;
	snprintf(prefix, sizeof(prefix), "--file-prefix=ibexlink_carry_%d",
		 (int)getpid());
	if (rte_eal_init((int)RTE_DIM(eal) - 1, eal) < 0)
		return 1;
	/* before any link reads the clock */
	ibex_clock_use_virtual(1);
	ibex_clock_set_wake(on_wake, NULL);
	big_pool = rte_pktmbuf_pool_create("carry_big", NB_MBUF, 256, 0,
					   BIG_BUF, 0);
	small_pool = rte_pktmbuf_pool_create("carry_small", NB_MBUF, 256, 0,
					     SMALL_BUF, 0);
	if (big_pool == NULL || small_pool == NULL ||
	    rte_mbuf_dyn_rx_timestamp_register(&ts_off, &ts_flag) != 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
