/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * In-network aggregation on the data path, with EAL (--no-huge) and
 * net_ring ports r0..r3: ranks on r0, r1, r2, the parent switch on r3.
 *
 *   - at the root, every rank gets every slot's result, each element the
 *     exact sum, addressed back to where its contributions came from, on
 *     its own port only; int32 and fp32, slots spread over the workers;
 *   - below a parent, the sum goes up once, with this switch's child
 *     index, and the parent's result comes down to every child;
 *   - a contribution sent again after its result gets the result again,
 *     to its sender only, and is never summed twice;
 *   - a contribution on another child's port is dropped (agg-port), and
 *     one for a job the switch does not run is forwarded as plain UDP;
 *   - jobs come and go live; the view counts what happened.
 *
 *   test_dp_agg [WORKERS]     (1 or 2; default 1)
 *
 * With two workers the ports' RX queues land on both, and half the slots
 * belong to the other worker: those frames cross the steering ring.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "dp_harness.h"
#include "ibex_agg.h"
#include "ibex_conf.h"
#include "ibex_dp.h"
#include "ibex_pkt.h"

#define NB_PORTS 4
#define NB_RANKS 3
#define RING_SIZE 1024
#define PARENT 3
#define COUNT 256
#define SLOTS 8
/* Where the aggregation header starts in an untagged IPv4 frame. */
#define PAYLOAD_OFF (14 + 20 + 8)

static struct rte_ring *rxr[NB_PORTS], *txr[NB_PORTS];
static struct rte_mempool *test_pool;
static struct ibex_dp *dp;
static struct ibex_conf conf;
static unsigned int nb_workers = 1;

/* What rank r sends element e of slot s: distinct everywhere, exact in
 * fp32 (small integers). */
static int32_t
value_of(unsigned int r, unsigned int s, unsigned int e)
{
	return (int32_t)(r * 1000 + s * 10 + e % 7) - 500;
}

static void
rank_mac(unsigned int r, uint8_t *mac)
{
	const uint8_t m[6] = { 0x02, 0, 0, 0, 0x0a, (uint8_t)(r + 1) };

	memcpy(mac, m, 6);
}

/* An aggregation frame from rank (or switch) @p r: @p type, job, slot,
 * child, sequence, and values value_of(r, slot, e) (as fp32 with
 * IBEX_AGG_FP32), @p count of them. */
static struct rte_mbuf *
agg_frame(unsigned int r, uint8_t type, uint8_t dtype, uint32_t job,
	  uint16_t slot, uint16_t child, uint32_t seq, uint16_t count)
{
	struct ibex_pkt_spec s = {
		.vlan = -1, .l3 = IBEX_L3_IPV4, .udp = true,
		.src_ip4 = 0x0a000001 + r, .dst_ip4 = 0x0a0000fe,
		.sport = 49152, .dport = IBEX_UDP_PORT_AGG,
		.frame_len = PAYLOAD_OFF + ibex_agg_pkt_len(count),
	};
	struct ibex_agg_hdr h = {
		.type = type, .dtype = dtype, .count = count, .job = job,
		.offset = (uint32_t)slot * count, .slot = slot,
		.child = child, .seq = seq,
	};
	uint32_t vals[IBEX_AGG_MAX_ELEMS];
	struct rte_mbuf *m;
	unsigned int e;

	rank_mac(r, s.src);
	memcpy(s.dst, (const uint8_t[6]){ 0x02, 0, 0, 0, 0xfe, 0 }, 6);
	for (e = 0; e < count; e++) {
		int32_t v = value_of(r, slot, e);
		float f = (float)v;

		if (dtype == IBEX_AGG_FP32)
			memcpy(&vals[e], &f, 4);
		else
			memcpy(&vals[e], &v, 4);
		vals[e] = rte_cpu_to_le_32(vals[e]);
	}
	m = dp_harness_frame(test_pool, &s);
	assert_non_null(m);
	assert_int_equal(ibex_agg_build(rte_pktmbuf_mtod_offset(m, uint8_t *,
							       PAYLOAD_OFF),
					ibex_agg_pkt_len(count), &h, vals),
			 (int)ibex_agg_pkt_len(count));
	/* A sender's UDP checksum, as Linux sets one. */
	memset(rte_pktmbuf_mtod_offset(m, uint8_t *, 14 + 20 + 6), 0xab, 2);
	return m;
}

static void
inject(unsigned int port, struct rte_mbuf *m)
{
	assert_int_equal(dp_harness_send(rxr[port], &m, 1), 1);
}

/* The header of frame @p m, checked to be well formed. */
static void
parse(const struct rte_mbuf *m, struct ibex_agg_hdr *h, const void **elems)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	const struct rte_ipv4_hdr *ip =
		(const struct rte_ipv4_hdr *)(p + 14);

	assert_int_equal(m->pkt_len, m->data_len);
	/* The header's checksum is right: the sum over it all is 0xffff. */
	assert_int_equal(rte_raw_cksum(ip, 20), 0xffff);
	/* New payload, no UDP checksum (IPv4 allows none). */
	assert_int_equal(p[14 + 20 + 6] | p[14 + 20 + 7], 0);
	assert_int_equal(ibex_agg_parse(p + PAYLOAD_OFF,
					m->pkt_len - PAYLOAD_OFF, h, elems),
			 IBEX_AGG_OK);
}

/* Every element of result @p m for slot @p slot: the sum over ranks
 * @p ranks (a bit mask). */
static void
check_sum(const struct rte_mbuf *m, uint16_t slot, unsigned int ranks,
	  uint8_t dtype)
{
	struct ibex_agg_hdr h;
	const void *elems;
	unsigned int e, r;

	parse(m, &h, &elems);
	assert_int_equal(h.slot, slot);
	assert_int_equal(h.dtype, dtype);
	assert_int_equal(h.count, COUNT);
	for (e = 0; e < COUNT; e++) {
		int32_t want = 0;
		uint32_t got;

		for (r = 0; r < NB_RANKS; r++)
			if ((ranks >> r) & 1)
				want += value_of(r, slot, e);
		memcpy(&got, (const uint8_t *)elems + 4 * e, 4);
		got = rte_le_to_cpu_32(got);
		if (dtype == IBEX_AGG_FP32) {
			float f;

			memcpy(&f, &got, 4);
			assert_true(f == (float)want);
		} else {
			assert_int_equal((int32_t)got, want);
		}
	}
}

/* Take @p n frames from port @p port's TX ring (waiting for them). */
static void
expect(unsigned int port, unsigned int n, struct rte_mbuf **out)
{
	unsigned int others = 0;

	assert_int_equal(dp_harness_expect(txr[port], n, NULL, NULL, out,
					   &others, DP_HARNESS_WAIT_S), n);
	assert_int_equal(others, 0);
}

static void
free_all(struct rte_mbuf **m, unsigned int n)
{
	while (n-- > 0)
		rte_pktmbuf_free(m[n]);
}

static void
apply(const char *text)
{
	struct ibex_conf *c = malloc(sizeof(*c));
	char err[512];

	assert_non_null(c);
	memcpy(c, &conf, sizeof(*c));
	assert_int_equal(ibex_conf_parse_string(c, text, "test", err,
						sizeof(err)), 0);
	if (dp_harness_apply(dp, c, err, sizeof(err)) < 0)
		fail_msg("apply: %s", err);
	memcpy(&conf, c, sizeof(*c));
	free(c);
}

static struct ibex_dp_agg_view view;

static const struct ibex_dp_agg_view *
agg_view(void)
{
	assert_int_equal(ibex_dp_agg_view(dp, dp->conf, &view), 0);
	return &view;
}

static uint64_t
results_sent(const void *arg)
{
	(void)arg;
	return agg_view()->st.results_sent;
}

/* At the root: every slot's result to every rank, each from its own
 * contributions' address, int32 and fp32. */
static void
root_sums(uint8_t dtype, uint32_t seq)
{
	struct rte_mbuf *out[SLOTS];
	uint64_t before = results_sent(NULL);
	unsigned int r, k;
	uint16_t s;

	for (s = 0; s < SLOTS; s++)
		for (r = 0; r < NB_RANKS; r++)
			inject(r, agg_frame(r, IBEX_AGG_CONTRIB, dtype, 7, s,
					    (uint16_t)r, seq, COUNT));
	assert_int_equal(dp_harness_until(results_sent, NULL, before + SLOTS,
					  DP_HARNESS_WAIT_S, NULL), 0);
	for (r = 0; r < NB_RANKS; r++) {
		uint8_t mac[6];

		rank_mac(r, mac);
		expect(r, SLOTS, out);
		for (k = 0; k < SLOTS; k++) {
			const uint8_t *p = rte_pktmbuf_mtod(out[k],
							    const uint8_t *);
			struct ibex_agg_hdr h;
			const void *el;
			uint32_t dst;

			parse(out[k], &h, &el);
			assert_int_equal(h.type, IBEX_AGG_RESULT);
			assert_int_equal(h.child, IBEX_AGG_CHILD_ALL);
			assert_int_equal(h.seq, seq);
			check_sum(out[k], h.slot, 0x7, dtype);
			assert_memory_equal(p, mac, 6);
			memcpy(&dst, p + 14 + 16, 4);
			assert_int_equal(rte_be_to_cpu_32(dst), 0x0a000001 + r);
		}
		free_all(out, SLOTS);
	}
	assert_int_equal(rte_ring_count(txr[PARENT]), 0);
}

static void
test_root_sums(void **state)
{
	(void)state;
	apply("aggregation job 7 children r0,r1,r2 parent root slots 8 "
	      "elements 256\n");
	dp_harness_workers_start(dp);
	root_sums(IBEX_AGG_INT32, 0);
	root_sums(IBEX_AGG_FP32, 1);
	/* The slots' next uses: set 0 again. */
	root_sums(IBEX_AGG_INT32, 2);
	dp_harness_workers_stop(dp);
	assert_int_equal(agg_view()->st.contributions, 3 * NB_RANKS * SLOTS);
	assert_int_equal(view.st.duplicates, 0);
	assert_int_equal(view.st.slots_in_use, 0);
	assert_int_equal(view.st.wait_count, 3 * SLOTS);
	if (nb_workers > 1)
		assert_true(view.cnt.steered > 0);
	else
		assert_int_equal(view.cnt.steered, 0);
}

/* Below a parent: one sum up with this switch's child index, then the
 * parent's result down to both children. */
static void
test_up_and_down(void **state)
{
	struct rte_mbuf *out[2];
	struct ibex_agg_hdr h;
	const void *el;

	(void)state;
	apply("aggregation job 9 children r0,r1 parent r3 up-child 5 slots 8 "
	      "elements 256\n");
	dp_harness_workers_start(dp);
	inject(0, agg_frame(0, IBEX_AGG_CONTRIB, IBEX_AGG_INT32, 9, 3, 0, 0,
			    COUNT));
	inject(1, agg_frame(1, IBEX_AGG_CONTRIB, IBEX_AGG_INT32, 9, 3, 1, 0,
			    COUNT));
	expect(PARENT, 1, out);
	parse(out[0], &h, &el);
	assert_int_equal(h.type, IBEX_AGG_CONTRIB);
	assert_int_equal(h.child, 5);
	assert_int_equal(h.job, 9);
	check_sum(out[0], 3, 0x3, IBEX_AGG_INT32);
	rte_pktmbuf_free(out[0]);
	/* The parent's result (values of "rank" 2) comes down to both. */
	inject(PARENT, agg_frame(2, IBEX_AGG_RESULT, IBEX_AGG_INT32, 9, 3,
				 IBEX_AGG_CHILD_ALL, 0, COUNT));
	expect(0, 1, out);
	expect(1, 1, out + 1);
	check_sum(out[0], 3, 0x4, IBEX_AGG_INT32);
	check_sum(out[1], 3, 0x4, IBEX_AGG_INT32);
	free_all(out, 2);
	dp_harness_workers_stop(dp);
	assert_int_equal(rte_ring_count(txr[2]), 0);
	assert_int_equal(agg_view()->st.results_rx, 1);
}

/* A contribution sent again after its result: the result again, to the
 * sender only, never summed twice. One on another child's port: dropped.
 * One for a job the switch does not run: forwarded (flooded). */
static void
test_duplicates_and_ports(void **state)
{
	struct dp_harness_snap before;
	struct ibex_port_counters d;
	struct rte_mbuf *out[NB_RANKS];
	struct ibex_agg_hdr h;
	const void *el;
	uint64_t dups = agg_view()->st.duplicates;
	unsigned int r;

	(void)state;
	apply("aggregation job 7 children r0,r1,r2 parent root slots 8 "
	      "elements 256\n");
	dp_harness_snap(dp, &before);
	dp_harness_workers_start(dp);
	for (r = 0; r < NB_RANKS; r++)
		inject(r, agg_frame(r, IBEX_AGG_CONTRIB, IBEX_AGG_INT32, 7, 5,
				    (uint16_t)r, 4, COUNT));
	for (r = 0; r < NB_RANKS; r++)
		expect(r, 1, out + r);
	free_all(out, NB_RANKS);
	inject(1, agg_frame(1, IBEX_AGG_CONTRIB, IBEX_AGG_INT32, 7, 5, 1, 4,
			    COUNT));
	expect(1, 1, out);
	parse(out[0], &h, &el);
	assert_int_equal(h.child, 1);
	assert_true(h.flags & IBEX_AGG_F_RETX);
	check_sum(out[0], 5, 0x7, IBEX_AGG_INT32);
	rte_pktmbuf_free(out[0]);
	/* Child 2's contribution on r0. */
	inject(0, agg_frame(2, IBEX_AGG_CONTRIB, IBEX_AGG_INT32, 7, 6, 2, 0,
			    COUNT));
	assert_int_equal(DP_UNTIL_PORT(dp, 0, drop[IBEX_R_AGG_PORT],
				       before.port[0].drop[IBEX_R_AGG_PORT] + 1,
				       DP_HARNESS_WAIT_S), 0);
	/* Job 8 is not this switch's: flooded to the three other ports. */
	inject(0, agg_frame(0, IBEX_AGG_CONTRIB, IBEX_AGG_INT32, 8, 0, 0, 0,
			    COUNT));
	for (r = 1; r < NB_PORTS; r++) {
		expect(r, 1, out);
		rte_pktmbuf_free(out[0]);
	}
	dp_harness_workers_stop(dp);
	dp_harness_rings_flush(rxr, txr, NB_PORTS);
	assert_int_equal(agg_view()->st.duplicates, dups + 1);
	assert_int_equal(view.st.results_replied, 1);
	dp_harness_port_delta(&before, 0, &d);
	assert_int_equal(d.drop[IBEX_R_AGG_PORT], 1);
	/* its slot 5 contribution; the others were dropped or flooded */
	assert_int_equal(d.consumed, 1);
	assert_int_equal(d.agg_taken, 1);
	assert_int_equal(d.flood_pkts, 1);
}

/* Jobs go live: without job 7 its frames are plain UDP. */
static void
test_jobs_live(void **state)
{
	struct dp_harness_snap before;
	struct ibex_port_counters d;
	struct rte_mbuf *out[2];

	(void)state;
	apply("aggregation del 7\n");
	assert_int_equal(agg_view()->nb_jobs, 1);
	dp_harness_snap(dp, &before);
	dp_harness_workers_start(dp);
	inject(0, agg_frame(0, IBEX_AGG_CONTRIB, IBEX_AGG_INT32, 7, 0, 0, 8,
			    COUNT));
	expect(1, 1, out);
	expect(2, 1, out + 1);
	free_all(out, 2);
	dp_harness_workers_stop(dp);
	dp_harness_rings_flush(rxr, txr, NB_PORTS);
	dp_harness_port_delta(&before, 0, &d);
	assert_int_equal(d.consumed, 0);
	assert_int_equal(d.agg_taken, 0);
	assert_int_equal(d.flood_pkts, 1);
	assert_int_equal(rte_mempool_in_use_count(test_pool), 0);
}

static int
group_setup(void **state)
{
	char err[512];
	unsigned int i;

	(void)state;
	if (dp_harness_eal("test_dp_agg", "512",
			   nb_workers == 1 ? "0@0,1@1" : "0@0,1@1,2@1") < 0)
		return -1;
	test_pool = rte_pktmbuf_pool_create("test_pool", 8192, 64, 0,
					    RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	if (test_pool == NULL)
		return -1;
	ibex_conf_init(&conf);
	snprintf(conf.origin, sizeof(conf.origin), "test");
	for (i = 0; i < NB_PORTS; i++)
		if (dp_harness_ring_port_mq(&conf, "g", i, 1, nb_workers,
					    RING_SIZE, RING_SIZE, &rxr[i],
					    &txr[i]) < 0)
			return -1;
	if (ibex_conf_parse_string(&conf, "aggregation pool 4M\n"
				   "fdb learning off\n", "test", err,
				   sizeof(err)) < 0 ||
	    ibex_conf_finish(&conf, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	conf.nb_workers = (uint16_t)nb_workers;
	if (ibex_dp_create(&dp, &conf, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	return dp->nb_workers == nb_workers ? 0 : -1;
}

static int
group_teardown(void **state)
{
	(void)state;
	ibex_dp_destroy(dp);
	rte_eal_cleanup();
	return 0;
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_root_sums),
		cmocka_unit_test(test_up_and_down),
		cmocka_unit_test(test_duplicates_and_ports),
		cmocka_unit_test(test_jobs_live),
	};

	if (argc > 1)
		nb_workers = (unsigned int)atoi(argv[1]);
	if (nb_workers < 1 || nb_workers > 2) {
		fprintf(stderr, "usage: %s [1|2]\n", argv[0]);
		return 2;
	}
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
