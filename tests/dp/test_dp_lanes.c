/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Virtual lanes on the data path, with EAL (--no-huge) and net_ring ports:
 *
 *  - saturation: three ingress ports -> one shaped egress port, four lanes
 *    weighted 1:2:4:8 in the low table: delivered byte shares within 2% of
 *    the weights, and no frame of one (ingress, VL) overtakes another;
 *  - priority: a light lane in the high table keeps a low p99 residence
 *    time while the low lanes are saturated;
 *  - uncongested traffic: every frame cuts through;
 *  - management (VL15): only from trusted ports, rate-limited;
 *  - an SL that the SL->VL table maps to 15 is dropped and counted;
 *  - live SL->VL changes, many of them while the lanes still hold frames
 *    queued before the previous one: no SL's frames overtake each other.
 *
 * Each test states its configuration and applies it with
 * ibex_dp_reconfigure() while the workers are stopped, so the reload path
 * is exercised too; the SL->VL test also applies changes while the worker
 * runs. The main lcore feeds the RX rings and drains the TX ring while one
 * worker runs on lcore 1: traffic is steady, not staged.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_memcpy.h>
#include <rte_ring.h>

#include "dp_harness.h"
#include "ibex_conf.h"
#include "ibex_dp.h"
#include "ibex_pkt.h"
#include "ibex_hist.h"

#define NB_PORTS 4
#define OUT 3            /* the egress port */
#define RING_SIZE 1024
#define NB_LANES 4

/* The SL->VL test: 128-byte frames through a port shaped to 1 Mb/s
 * (820 pps, 1.2 ms a frame); SWAP_WARM frames per flow to start with,
 * after each of SWAP_MOVES live changes SWAP_BATCH more, and what tops
 * the backlog up to SWAP_TARGET frames. A change counts as overlapping
 * when at least SWAP_OVERLAP frames from before the previous change
 * still wait. */
#define SWAP_RATE UINT64_C(1000000)
#define SWAP_LEN 128
#define SWAP_WARM 64
#define SWAP_BATCH 2
#define SWAP_TARGET 160
#define SWAP_MOVES 48
#define SWAP_OVERLAP 8

static struct rte_ring *rxr[NB_PORTS], *txr[NB_PORTS];
static struct rte_mempool *test_pool;
static struct ibex_dp *dp;
static struct ibex_conf base;

static const uint8_t mac_dst[6] = { 0x02, 0, 0, 0, 0x0d, 0x01 };

/* What the sink saw. */
struct sink {
	uint64_t bytes[IBEX_VL_COUNT];
	uint64_t frames[IBEX_VL_COUNT];
	uint64_t reordered;
	uint64_t reordered_pcp[8];
	uint32_t last_psn[NB_PORTS][IBEX_VL_COUNT];
	bool seen[NB_PORTS][IBEX_VL_COUNT];
};

/* The traffic of one (ingress port, PCP) source. */
struct source {
	unsigned int port;
	unsigned int pcp;
	uint32_t len;
	uint32_t psn;
	uint32_t dest_qp;
	uint64_t gap_tsc;        /* 0: as fast as the ring takes frames */
	uint64_t next_tsc;
	uint16_t psn_off;        /* where the PSN sits in the template */
	uint8_t tmpl[2048];      /* the frame, built once */
};

static struct rte_mbuf *
frame(unsigned int in_port, unsigned int pcp, uint32_t len, uint32_t psn,
      uint32_t dest_qp)
{
	struct ibex_pkt_spec s = {
		.vlan = 1, .pcp = (uint8_t)pcp, .l3 = IBEX_L3_IPV4,
		.roce = true, .src_ip4 = 0x0a000001 + in_port,
		.dst_ip4 = 0x0a000101, .sport = 49152, .dest_qp = dest_qp,
		.psn = psn & 0xffffff, .frame_len = len, .ecn = IBEX_ECN_ECT0,
	};

	memcpy(s.dst, mac_dst, 6);
	s.src[0] = 0x02;
	s.src[4] = 0x0a;
	s.src[5] = (uint8_t)(in_port + 1);
	return dp_harness_frame(test_pool, &s);
}

/* Build each source's frame once; feeding then copies and stamps the
 * PSN, fast enough to oversubscribe every lane. */
static void
sources_prepare(struct source *src, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = frame(src[i].port, src[i].pcp, src[i].len,
					   0, src[i].dest_qp);
		struct ibex_pkt_info info;

		assert_non_null(m);
		memcpy(src[i].tmpl, rte_pktmbuf_mtod(m, void *), src[i].len);
		assert_int_equal(ibex_pkt_parse(src[i].tmpl, src[i].len, &info),
				 IBEX_R_OK);
		src[i].psn_off = (uint16_t)(info.bth_off + 9);
		rte_pktmbuf_free(m);
	}
}

static struct rte_mbuf *
source_frame(const struct source *s)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(test_pool);
	uint8_t *p;

	if (m == NULL)
		return NULL;
	p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)s->len);
	rte_memcpy(p, s->tmpl, s->len);
	p[s->psn_off] = (uint8_t)(s->psn >> 16);
	p[s->psn_off + 1] = (uint8_t)(s->psn >> 8);
	p[s->psn_off + 2] = (uint8_t)s->psn;
	return m;
}

/* Top up the RX rings from the sources, in round-robin order. */
static void
feed(struct source *src, unsigned int n, uint64_t now)
{
	unsigned int i, k;

	for (k = 0; k < 32; k++)
		for (i = 0; i < n; i++) {
			struct source *s = &src[i];
			struct rte_mbuf *m;

			if (s->gap_tsc != 0 && now < s->next_tsc)
				continue;
			if (rte_ring_free_count(rxr[s->port]) == 0)
				continue;
			m = source_frame(s);
			if (m == NULL)
				return;
			if (rte_ring_enqueue(rxr[s->port], m) != 0) {
				rte_pktmbuf_free(m);
				continue;
			}
			s->psn++;
			s->next_tsc = now + s->gap_tsc;
		}
}

/* Count what the egress port sent, by VL (= PCP mod 4 here), and check the
 * order of each (ingress, PCP) flow by its PSN. */
static void
sink_drain(struct sink *k, bool count)
{
	struct rte_mbuf *m[64];
	unsigned int n, i;

	while ((n = rte_ring_dequeue_burst(txr[OUT], (void **)m, 64,
					   NULL)) != 0) {
		for (i = 0; i < n; i++) {
			const uint8_t *eth = rte_pktmbuf_mtod(m[i], uint8_t *);
			struct ibex_pkt_info info;
			unsigned int pcp, in;
			uint32_t psn;

			assert_int_equal(ibex_pkt_parse(eth, m[i]->data_len,
							&info), IBEX_R_OK);
			pcp = eth[14] >> 5;
			in = (unsigned int)(eth[11] - 1) % NB_PORTS;
			psn = ibex_bth_psn(eth + info.bth_off);
			if (k->seen[in][pcp] &&
			    ((psn - k->last_psn[in][pcp]) & 0xffffff) >= 0x800000) {
				k->reordered++;
				k->reordered_pcp[pcp]++;
			}
			k->seen[in][pcp] = true;
			k->last_psn[in][pcp] = psn;
			if (count) {
				k->bytes[pcp % NB_LANES] += m[i]->pkt_len;
				k->frames[pcp % NB_LANES]++;
			}
		}
		rte_pktmbuf_free_bulk(m, n);
	}
}

static void
workers_start(void)
{
	dp_harness_workers_start(dp);
}

static void
workers_stop(void)
{
	dp_harness_workers_stop(dp);
}

/* Drop whatever is left on the rings between tests. */
static void
rings_flush(void)
{
	dp_harness_rings_flush(rxr, txr, NB_PORTS);
}

/*
 * Run the sources for @p ms, counting at the sink after @p warm_ms, and
 * on until VL @p vl has @p min_frames counted (a busy machine sends fewer
 * in the time; at most 20 times @p ms). The workers run for the whole
 * time.
 */
static void
run_traffic_until(struct source *src, unsigned int n, struct sink *k,
		  uint32_t warm_ms, uint32_t ms, unsigned int vl,
		  uint64_t min_frames)
{
	uint64_t hz = rte_get_tsc_hz(), t0 = rte_rdtsc();
	uint64_t warm = t0 + hz * warm_ms / 1000, end = t0 + hz * ms / 1000;
	uint64_t cap = t0 + hz * ms / 1000 * 20;
	uint64_t now;

	memset(k, 0, sizeof(*k));
	sources_prepare(src, n);
	workers_start();
	while ((now = rte_rdtsc()) < end ||
	       (k->frames[vl] < min_frames && now < cap)) {
		feed(src, n, now);
		sink_drain(k, now >= warm);
	}
	workers_stop();
	sink_drain(k, false);
	rings_flush();
}

static void
run_traffic(struct source *src, unsigned int n, struct sink *k,
	    uint32_t warm_ms, uint32_t ms)
{
	run_traffic_until(src, n, k, warm_ms, ms, 0, 0);
}

static void
apply(const struct ibex_conf *c)
{
	char err[512];

	if (dp_harness_apply(dp, c, err, sizeof(err)) < 0)
		fail_msg("reconfigure: %s", err);
}

static void
lanes_totals(unsigned int vl, struct ibex_lane_counters *c)
{
	ibex_dp_lane_totals(dp, OUT, vl, c);
}

/* What lane @p vl of the egress port counted since @p b. */
static void
lane_delta(const struct dp_harness_snap *b, unsigned int vl,
	   struct ibex_lane_counters *d)
{
	dp_harness_lane_delta(b, OUT, vl, d);
}

static int
group_setup(void **state)
{
	char err[512];
	int ret;

	(void)state;
	test_pool = dp_harness_group_start("test_dp_lanes", "512", 16384, &base, "r",
					   NB_PORTS, RING_SIZE, RING_SIZE * 4, rxr, txr);
	if (test_pool == NULL)
		return -1;
	/* The destination lives behind the egress port; learning off, so
	 * the sources' MACs never move anything. */
	ret = ibex_conf_parse_string(&base,
		"fdb static 02:00:00:00:0d:01 port r3 vlan 1\n"
		"fdb learning off\n", "test", err, sizeof(err));
	if (ret < 0 || ibex_conf_finish(&base, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	base.nb_workers = 1;
	/* Deep lanes on the egress port (512 KiB each): a saturated lane
	 * must stay backlogged through the feeder being descheduled for a
	 * few milliseconds on a shared machine; an idle lane rightly loses
	 * its turns, which would spoil the shares. */
	base.ports[OUT].vl_queue_blocks = 8192;
	if (ibex_dp_create(&dp, &base, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	return 0;
}

static int
group_teardown(void **state)
{
	(void)state;
	ibex_dp_destroy(dp);
	rte_eal_cleanup();
	return 0;
}

/* The egress port with four lanes, an arbiter and a shaper. */
static void
conf_egress(struct ibex_conf *c, uint64_t rate, const struct ibex_vlarb_conf *a)
{
	struct ibex_conf_port *p = &c->ports[OUT];

	p->nb_vls = NB_LANES;
	p->sl2vl_set = false;
	ibex_sl2vl_default(&p->sl2vl, NB_LANES);
	p->vlarb_set = true;
	p->vlarb = *a;
	p->shape_bps = rate;
}

static void
test_weighted_shares(void **state)
{
	/* Every lane saturated; frame sizes differ per lane so only a
	 * byte-accurate arbiter gets the shares right. */
	static const uint32_t len[NB_LANES] = { 1500, 256, 1024, 700 };
	static const unsigned int w[NB_LANES] = { 1, 2, 4, 8 };
	struct ibex_vlarb_conf a = { .nb_low = NB_LANES, .limit = 255 };
	struct source src[3 * NB_LANES];
	struct ibex_conf c = base;
	static struct dp_harness_snap before;
	struct sink k;
	uint64_t total = 0;
	unsigned int i, v;

	(void)state;
	dp_harness_snap(dp, &before);
	for (v = 0; v < NB_LANES; v++) {
		a.low[v].vl = (uint8_t)v;
		a.low[v].weight = (uint8_t)w[v];
	}
	/* 200 Mb/s: the feeder oversubscribes every lane many times over,
	 * and each lane's queue holds 20 ms of its share */
	conf_egress(&c, UINT64_C(200000000), &a);
	apply(&c);
	memset(src, 0, sizeof(src));
	for (i = 0; i < 3 * NB_LANES; i++) {
		src[i].port = i / NB_LANES;
		src[i].pcp = i % NB_LANES;
		src[i].len = len[i % NB_LANES];
		src[i].dest_qp = 0x100;
	}
	run_traffic(src, RTE_DIM(src), &k, 300, 2300);
	for (v = 0; v < NB_LANES; v++)
		total += k.bytes[v];
	for (v = 0; v < NB_LANES; v++) {
		struct ibex_lane_counters lc;

		lane_delta(&before, v, &lc);
		printf("lane %u: %8" PRIu64 " frames %10" PRIu64 " bytes, "
		       "share %.4f (weight %.4f), queue drops %" PRIu64 "\n",
		       v, k.frames[v], k.bytes[v],
		       (double)k.bytes[v] / (double)total, w[v] / 15.0,
		       lc.drops);
		/* Saturated: every lane overflowed its queue. */
		assert_true(lc.drops > 0);
	}
	for (v = 0; v < NB_LANES; v++) {
		double share = (double)k.bytes[v] / (double)total;
		double want = w[v] / 15.0;

		assert_true(k.frames[v] > 100);
		assert_true(share > want * 0.98 && share < want * 1.02);
	}
	assert_int_equal(k.reordered, 0);
}

/* Quantile @p q of the queued-path residence of lane @p vl, in us. */
static uint64_t
residence_us(unsigned int vl, double q)
{
	static struct ibex_hist h;

	ibex_hist_init(&h);
	assert_int_equal(ibex_dp_residence(dp, OUT, vl, true, &h), 0);
	assert_true(ibex_hist_count(&h) > 0);
	return ibex_hist_quantile(&h, q) * 1000000 / rte_get_tsc_hz();
}

static void
test_high_lane_latency(void **state)
{
	/* VL3 in the high table, unbounded priority; VL0..2 saturate. */
	struct ibex_vlarb_conf a = {
		.nb_high = 1, .high = { { 3, 8 } },
		.nb_low = 3, .low = { { 0, 1 }, { 1, 2 }, { 2, 4 } },
		.limit = 255,
	};
	struct source src[3 * 3 + 1];
	struct ibex_conf c = base;
	struct sink k;
	uint64_t p99_hi, p50_lo;
	unsigned int i;

	(void)state;
	conf_egress(&c, UINT64_C(1000000000), &a);
	apply(&c);
	memset(src, 0, sizeof(src));
	for (i = 0; i < 9; i++) {
		src[i].port = i / 3;
		src[i].pcp = i % 3;
		src[i].len = 1000;
		src[i].dest_qp = 0x100;
	}
	/* The high lane: one 256-byte frame every 200 us, from port 0. */
	src[9].port = 0;
	src[9].pcp = 3;
	src[9].len = 256;
	src[9].dest_qp = 0x100;
	src[9].gap_tsc = rte_get_tsc_hz() / 5000;
	/* 1300 ms of one frame per 200 us is 6500 frames; a p99 needs
	 * more than 1000 of them however slow the machine. */
	run_traffic_until(src, RTE_DIM(src), &k, 200, 1500, 3, 1001);
	p99_hi = residence_us(3, 0.99);
	p50_lo = residence_us(0, 0.5);
	printf("queued residence: high lane VL3 p99 %" PRIu64 " us, "
	       "low lane VL0 p50 %" PRIu64 " us\n", p99_hi, p50_lo);
	assert_true(k.frames[3] > 1000);
	/* The high lane's tail stays below the low lanes' median (the
	 * margin is wide: tens of us against tens of ms when the worker
	 * has its CPU; the bound holds through descheduling too). */
	assert_true(p99_hi < p50_lo);
	assert_int_equal(k.reordered, 0);
}

static void
test_uncongested_cut_through(void **state)
{
	struct ibex_conf c = base;
	static struct dp_harness_snap before;
	struct ibex_lane_counters d;
	struct source src[NB_LANES];
	struct ibex_vlarb_conf a;
	struct sink k;
	uint64_t sent = 0;
	unsigned int v;

	(void)state;
	ibex_vlarb_conf_default(&a, NB_LANES);
	conf_egress(&c, 0, &a);       /* unshaped: the port keeps up */
	apply(&c);
	dp_harness_snap(dp, &before);
	memset(src, 0, sizeof(src));
	for (v = 0; v < NB_LANES; v++) {
		src[v].port = 0;
		src[v].pcp = v;
		src[v].len = 128;
		src[v].dest_qp = 0x100;
		/* 100 kpps per lane: well below what the worker forwards */
		src[v].gap_tsc = rte_get_tsc_hz() / 100000;
	}
	run_traffic(src, RTE_DIM(src), &k, 0, 500);
	for (v = 0; v < NB_LANES; v++) {
		lane_delta(&before, v, &d);
		assert_int_equal(d.queued, 0);
		assert_int_equal(d.cut_through, d.tx_pkts);
		sent += d.tx_pkts;
	}
	printf("uncongested: %" PRIu64 " frames, all cut through\n", sent);
	assert_true(sent > 1000);
	assert_int_equal(k.reordered, 0);
}

/* Send @p n frames from @p port (one burst) and return how many left:
 * the workers run until the port has taken them all, and send what
 * they hold before they stop. */
static unsigned int
burst_through(unsigned int port, unsigned int pcp, uint32_t qp, unsigned int n)
{
	uint64_t want = DP_PORT_CNT(dp, port, rx_pkts) + n;
	struct rte_mbuf *m[64];
	struct sink k;
	unsigned int i, out = 0;

	memset(&k, 0, sizeof(k));
	assert_true(n <= RTE_DIM(m));
	for (i = 0; i < n; i++) {
		m[i] = frame(port, pcp, 128, i, qp);
		assert_non_null(m[i]);
	}
	assert_int_equal(dp_harness_send(rxr[port], m, n), n);
	workers_start();
	assert_int_equal(DP_UNTIL_PORT(dp, port, rx_pkts, want,
				       DP_HARNESS_WAIT_S), 0);
	workers_stop();
	sink_drain(&k, true);
	for (i = 0; i < IBEX_VL_COUNT; i++)
		out += (unsigned int)k.frames[i];
	rings_flush();
	return out;
}

static void
test_vl15_management(void **state)
{
	struct ibex_conf c = base;
	static struct dp_harness_snap b;
	struct ibex_port_counters d;

	(void)state;
	c.ports[0].trusted = true;    /* r0 trusted, r1 not */
	c.vl15_rate_pps = 10;
	apply(&c);
	dp_harness_snap(dp, &b);
	/* 20 management frames (RoCEv2 to QP0) at once from the trusted
	 * port: one passes, the rest exceed 10/s. */
	assert_int_equal(burst_through(0, 0, 0, 20), 1);
	dp_harness_port_delta(&b, 0, &d);
	assert_int_equal(d.drop[IBEX_R_VL15_RATE], 19);
	/* From the untrusted port none pass. */
	assert_int_equal(burst_through(1, 0, 0, 20), 0);
	dp_harness_port_delta(&b, 1, &d);
	assert_int_equal(d.drop[IBEX_R_VL15_UNTRUSTED], 20);
	/* Ordinary traffic from the untrusted port is not affected. */
	assert_int_equal(burst_through(1, 0, 0x100, 20), 20);
}

static void
test_sl_drop(void **state)
{
	struct ibex_conf c = base;
	static struct dp_harness_snap b;
	struct ibex_port_counters d;

	(void)state;
	/* On r0, SL 5 (PCP 5) maps to VL15: drop. */
	ibex_sl2vl_default(&c.ports[0].sl2vl, c.ports[0].nb_vls);
	c.ports[0].sl2vl.vl[5] = IBEX_VL_DROP;
	c.ports[0].sl2vl_set = true;
	apply(&c);
	dp_harness_snap(dp, &b);
	assert_int_equal(burst_through(0, 5, 0x100, 30), 0);
	assert_int_equal(burst_through(0, 4, 0x100, 30), 30);
	dp_harness_port_delta(&b, 0, &d);
	assert_int_equal(d.drop[IBEX_R_SL_DROP], 30);
	assert_int_equal(d.rx_pkts, 60);
}

/* SL1 and SL2 on lanes 1 and 2 of the egress port, or the other way round. */
static void
conf_sl_swap(struct ibex_conf *c, bool swapped)
{
	struct ibex_vlarb_conf a = { .nb_low = NB_LANES, .limit = 255 };
	struct ibex_conf_port *p = &c->ports[OUT];
	unsigned int v;

	/* Equal weights of one frame: the arbiter alternates between
	 * lanes that may both send. */
	for (v = 0; v < NB_LANES; v++) {
		a.low[v].vl = (uint8_t)v;
		a.low[v].weight = SWAP_LEN / 64;
	}
	conf_egress(c, SWAP_RATE, &a);
	p->sl2vl.vl[1] = swapped ? 2 : 1;
	p->sl2vl.vl[2] = swapped ? 1 : 2;
	p->sl2vl_set = true;
}

/* Frames waiting in lanes 1 and 2 now; with @p both, 0 unless both
 * hold some. */
static uint64_t
swap_backlog(bool both)
{
	struct ibex_lane_counters lc;
	uint64_t n = 0;
	unsigned int v;

	for (v = 1; v <= 2; v++) {
		lanes_totals(v, &lc);
		if (both && lc.qlen_pkts == 0)
			return 0;
		n += lc.qlen_pkts;
	}
	return n;
}

/* Frames the egress port took from its lanes 1 and 2 so far. */
static uint64_t
swap_lanes_sent(void)
{
	return DP_LANE_CNT(dp, OUT, 1, tx_pkts) +
	       DP_LANE_CNT(dp, OUT, 2, tx_pkts);
}

/* Frames the worker took in (and classified) from ports 0 and 1 so far. */
static uint64_t
swap_ingress_rx(void)
{
	return DP_PORT_CNT(dp, 0, rx_pkts) + DP_PORT_CNT(dp, 1, rx_pkts);
}

/* @p per frames of each source, round-robin, onto the RX rings. */
static void
swap_push(struct source *src, unsigned int n, unsigned int per)
{
	unsigned int i, j;

	for (j = 0; j < per; j++)
		for (i = 0; i < n; i++) {
			struct rte_mbuf *m = source_frame(&src[i]);

			assert_non_null(m);
			assert_int_equal(rte_ring_enqueue(rxr[src[i].port], m),
					 0);
			src[i].psn++;
		}
}

/*
 * Live SL->VL changes on a backlogged port. SL1 and SL2 swap lanes 1 and
 * 2 at every change, SWAP_MOVES times, back to back: each change comes
 * while the lanes still hold frames from before the previous one, so the
 * fences overlap. Between changes each flow sends a few frames, which
 * the worker classifies before the next change: every lane then holds
 * both SLs' frames from several tables. No flow's frames may overtake
 * each other, none may be lost.
 *
 * The port's rate sets how long the backlog lasts (SWAP_TARGET frames:
 * about 200 ms), not the feeder's pace, so a descheduled main lcore only
 * makes the changes slower; how many came with frames from before the
 * previous one still waiting is counted and checked.
 */
static void
test_sl_moves_keep_order(void **state)
{
	/* Pause before each change, in us, taken in turn. */
	static const uint32_t gap_us[] = { 0, 200, 1000, 50, 3000 };
	static struct ibex_conf c[2];
	static struct dp_harness_snap before;
	struct ibex_lane_counters lc;
	struct source src[4];
	struct sink k;
	uint64_t hz = rte_get_tsc_hz(), deadline, until;
	uint64_t fed = 0, got = 0, rx_prev = 0, backlog_max = 0;
	uint64_t sent0, rx0;
	unsigned int moves, overlapped = 0, i, v;

	(void)state;
	c[0] = base;
	conf_sl_swap(&c[0], false);
	c[1] = base;
	conf_sl_swap(&c[1], true);
	apply(&c[0]);
	dp_harness_snap(dp, &before);
	/* SL1 and SL2 from ports 0 and 1. */
	memset(src, 0, sizeof(src));
	for (i = 0; i < RTE_DIM(src); i++) {
		src[i].port = i / 2;
		src[i].pcp = 1 + i % 2;
		src[i].len = SWAP_LEN;
		src[i].dest_qp = 0x100;
	}
	memset(&k, 0, sizeof(k));
	sources_prepare(src, RTE_DIM(src));
	sent0 = swap_lanes_sent();
	rx0 = swap_ingress_rx();
	deadline = dp_harness_deadline(DP_HARNESS_WAIT_S);
	workers_start();
	/* The backlog: what the shaper's bucket lets through at once
	 * (about 100 frames), and about 180 ms more at the port's rate. */
	swap_push(src, RTE_DIM(src), SWAP_WARM);
	fed = SWAP_WARM * RTE_DIM(src);
	for (moves = 0; moves < SWAP_MOVES; moves++) {
		uint64_t sent, b;
		unsigned int per = SWAP_BATCH;

		/* Wait until the worker classified all that was fed: by
		 * the tables of the previous change. */
		while (swap_ingress_rx() - rx0 < fed &&
		       rte_rdtsc() < deadline)
			sink_drain(&k, true);
		if (swap_ingress_rx() - rx0 != fed)
			break;           /* checked below, workers stopped */
		until = rte_rdtsc() + hz * gap_us[moves % RTE_DIM(gap_us)] /
			1000000;
		while (rte_rdtsc() < until)
			sink_drain(&k, true);
		/* Frames the worker took in before the previous change (all
		 * counted then had been classified by the tables before it)
		 * and not yet sent: that change's fence still holds them. */
		sent = swap_lanes_sent() - sent0;
		if (moves > 0 && sent + SWAP_OVERLAP < rx_prev)
			overlapped++;
		backlog_max = RTE_MAX(backlog_max, swap_backlog(true));
		b = swap_backlog(false);
		if (b < SWAP_TARGET)
			per += (unsigned int)(SWAP_TARGET - b) / RTE_DIM(src);
		rx_prev = swap_ingress_rx() - rx0;
		apply(&c[(moves + 1) & 1]);
		/* After the change: classified by the new tables. */
		swap_push(src, RTE_DIM(src), per);
		fed += per * RTE_DIM(src);
	}
	/* Let the lanes drain at the shaped rate. */
	do {
		sink_drain(&k, true);
		for (got = 0, v = 0; v < NB_LANES; v++)
			got += k.frames[v];
	} while (got < fed && rte_rdtsc() < deadline);
	workers_stop();
	sink_drain(&k, true);
	rings_flush();
	for (got = 0, v = 0; v < NB_LANES; v++)
		got += k.frames[v];
	printf("sl moves: %u changes, %u while frames from before the "
	       "previous one waited, backlog up to %" PRIu64 " frames\n",
	       moves, overlapped, backlog_max);
	printf("sl moves: %" PRIu64 " frames fed, %" PRIu64 " delivered "
	       "(SL1 %" PRIu64 ", SL2 %" PRIu64 "), out of order: SL1 %"
	       PRIu64 ", SL2 %" PRIu64 "\n", fed, got, k.frames[1],
	       k.frames[2], k.reordered_pcp[1], k.reordered_pcp[2]);
	for (v = 1; v <= 2; v++) {
		lane_delta(&before, v, &lc);
		printf("sl moves: lane %u: %" PRIu64 " queued, %" PRIu64
		       " cut through, %" PRIu64 " drops\n", v,
		       lc.queued, lc.cut_through, lc.drops);
		/* Both lanes really held frames, and lost none. */
		assert_true(lc.queued > SWAP_WARM);
		assert_int_equal(lc.drops, 0);
	}
	assert_int_equal(moves, SWAP_MOVES);
	/* Most changes came while a fence still held frames. */
	assert_true(overlapped >= SWAP_MOVES / 2);
	assert_true(backlog_max >= SWAP_WARM);
	assert_int_equal(k.reordered, 0);
	assert_int_equal(got, fed);
}

static void
test_no_leak(void **state)
{
	(void)state;
	apply(&base);
	assert_int_equal(rte_mempool_in_use_count(test_pool), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_uncongested_cut_through),
		/* before the saturation test: residence histograms are
		 * cumulative, and that test queues every lane deeply */
		cmocka_unit_test(test_high_lane_latency),
		cmocka_unit_test(test_weighted_shares),
		cmocka_unit_test(test_vl15_management),
		cmocka_unit_test(test_sl_drop),
		cmocka_unit_test(test_sl_moves_keep_order),
		cmocka_unit_test(test_no_leak),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
