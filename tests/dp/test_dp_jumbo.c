/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Multi-segment (chained) frames on the data path, with EAL (--no-huge)
 * and net_ring ports. Frames are built as chains of 2048-byte segments,
 * the way net_pcap and NICs with scatter RX deliver them, each with a
 * random payload, and every copy that comes out is read back whole and
 * compared with what went in:
 *
 *  - 9000-byte broadcasts flooded from r0 to r1 and r2 while r3 (mtu
 *    1500) drops its copies as mtu. The r1 copies are freed, and the
 *    freed mbufs are scribbled over, before the r2 copies are read: a
 *    copy that shared a freed segment would show it;
 *  - 3000-byte broadcasts with r1 shaped (its copies wait in a lane queue
 *    while the r2 copies leave and are freed and scribbled over);
 *  - valid jumbo IPv4/UDP (9000), IPv6/UDP (8000) and RoCEv2 (4096-byte
 *    payload) frames to a known station: forwarded unchanged, no drop;
 *  - ECN on chained frames: ECT(0) jumbo frames queued on a shaped lane
 *    whose curve marks everything leave as CE with a valid IPv4 header
 *    checksum and the payload unchanged;
 *  - a frame into r3 above its MTU is dropped as mtu; headers split over
 *    segments are moved into the first and the frame forwarded;
 *  - no mbuf leaks.
 *
 * Run under ASan/UBSan too (tests/run-all.sh).
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "dp_harness.h"
#include "ibex_conf.h"
#include "ibex_dp.h"
#include "ibex_pkt.h"

#define NB_PORTS 4
#define RING_SIZE 1024
#define SEG 2048
#define MAXF 9216
#define SMALL_MTU_PORT 3

static struct rte_ring *rxr[NB_PORTS], *txr[NB_PORTS];
static struct rte_mempool *test_pool;
static struct ibex_dp *dp;
static struct ibex_conf base;
static uint32_t seed = 12345;

static const uint8_t mac_a[6] = { 0x02, 0, 0, 0, 0x0a, 0x01 };
static const uint8_t mac_b[6] = { 0x02, 0, 0, 0, 0x0b, 0x01 };

/* A frame kept for comparison. */
struct ref {
	uint32_t len;
	uint8_t b[MAXF];
};

static uint8_t
rnd(void)
{
	seed = seed * 1103515245u + 12345u;
	return (uint8_t)(seed >> 16);
}

/* A frame of @p len bytes: headers from @p s, random payload. */
static void
ref_build(struct ref *r, struct ibex_pkt_spec *s, uint32_t len)
{
	uint32_t i, hdr;

	s->frame_len = len;
	assert_int_equal(ibex_pkt_build(r->b, sizeof(r->b), s), (int)len);
	hdr = ibex_pkt_spec_hdr_len(s);
	for (i = hdr; i < len; i++)
		r->b[i] = rnd();
	r->len = len;
}

/* @p r as a chain of @p seg-byte segments (the first @p first bytes). */
static struct rte_mbuf *
chain_of(const struct ref *r, uint32_t first, uint32_t seg)
{
	struct rte_mbuf *head = NULL;
	uint32_t off = 0;

	while (off < r->len) {
		uint32_t n = RTE_MIN(off == 0 ? first : seg, r->len - off);
		struct rte_mbuf *m = rte_pktmbuf_alloc(test_pool);
		char *p;

		assert_non_null(m);
		p = rte_pktmbuf_append(m, (uint16_t)n);
		assert_non_null(p);
		memcpy(p, r->b + off, n);
		off += n;
		if (head == NULL)
			head = m;
		else
			assert_int_equal(rte_pktmbuf_chain(head, m), 0);
	}
	return head;
}

static void
send_to(unsigned int port, struct rte_mbuf *m)
{
	assert_int_equal(dp_harness_send(rxr[port], &m, 1), 1);
}

/* Wait until @p port has sent @p n frames, take them. */
static void
collect(unsigned int port, struct rte_mbuf **out, unsigned int n)
{
	unsigned int got;

	got = dp_harness_expect(txr[port], n, NULL, NULL, out, NULL,
				DP_HARNESS_WAIT_S);
	if (got < n) {
		dp_harness_drops_show(dp);
		fail_msg("port r%u sent %u of %u frames", port, got, n);
	}
}

static bool
same(const struct rte_mbuf *m, const struct ref *r)
{
	static uint8_t tmp[MAXF];
	const void *p;

	if (m->pkt_len != r->len)
		return false;
	p = rte_pktmbuf_read(m, 0, r->len, tmp);
	return p != NULL && memcmp(p, r->b, r->len) == 0;
}

/* Take every free mbuf of the pool, overwrite its data room, give them
 * back: a segment a copy still points to but that went back to the pool
 * now holds garbage. */
static void
scribble(void)
{
	static struct rte_mbuf *all[32768];
	unsigned int n = 0, i;

	while (n < RTE_DIM(all) && (all[n] = rte_pktmbuf_alloc(test_pool)) != NULL)
		n++;
	for (i = 0; i < n; i++)
		memset(rte_pktmbuf_mtod(all[i], void *), 0xa5,
		       rte_pktmbuf_tailroom(all[i]));
	rte_pktmbuf_free_bulk(all, n);
}

static void
apply(const struct ibex_conf *c)
{
	char err[512];

	if (dp_harness_apply(dp, c, err, sizeof(err)) < 0)
		fail_msg("reconfigure: %s", err);
}

static uint64_t
drops(unsigned int port, enum ibex_reason r)
{
	return DP_PORT_CNT(dp, port, drop[r]);
}

static uint64_t
drops_all(unsigned int port)
{
	struct ibex_port_counters c;

	ibex_dp_port_totals(dp, (uint16_t)port, &c);
	return dp_harness_drops(&c);
}

static void
spec_bcast(struct ibex_pkt_spec *s)
{
	memset(s, 0, sizeof(*s));
	memset(s->dst, 0xff, 6);
	memcpy(s->src, mac_a, 6);
	s->vlan = -1;
	s->l3 = IBEX_L3_NONE;
	s->ether_type = 0x88B6;
}

/* Flood @p n broadcasts of @p len bytes from r0; r1's copies are taken
 * @p r1_first (before r2's, as when r1 is the faster port) or after. */
static void
flood_check(unsigned int n, uint32_t len, bool r1_first)
{
	static struct ref refs[64];
	struct rte_mbuf *o1[64], *o2[64];
	struct ibex_pkt_spec s;
	uint64_t mtu0 = drops(SMALL_MTU_PORT, IBEX_R_MTU);
	unsigned int i, bad = 0;

	assert_true(n <= RTE_DIM(refs));
	spec_bcast(&s);
	for (i = 0; i < n; i++)
		ref_build(&refs[i], &s, len);
	for (i = 0; i < n; i++)
		send_to(0, chain_of(&refs[i], SEG, SEG));
	if (r1_first) {
		collect(1, o1, n);
		for (i = 0; i < n; i++)
			bad += !same(o1[i], &refs[i]);
		rte_pktmbuf_free_bulk(o1, n);
		scribble();
		collect(2, o2, n);
	} else {
		collect(2, o2, n);
		for (i = 0; i < n; i++)
			bad += !same(o2[i], &refs[i]);
		rte_pktmbuf_free_bulk(o2, n);
		scribble();
		collect(1, o1, n);
	}
	for (i = 0; i < n; i++)
		bad += !same(r1_first ? o2[i] : o1[i], &refs[i]);
	rte_pktmbuf_free_bulk(r1_first ? o2 : o1, n);
	assert_int_equal(bad, 0);
	if (len > 1518) {
		assert_int_equal(DP_UNTIL_PORT(dp, SMALL_MTU_PORT,
					       drop[IBEX_R_MTU], mtu0 + n,
					       DP_HARNESS_WAIT_S), 0);
		assert_int_equal(drops(SMALL_MTU_PORT, IBEX_R_MTU) - mtu0, n);
	}
	assert_int_equal(rte_ring_count(txr[SMALL_MTU_PORT]), 0);
}

static void
test_flood_9000(void **state)
{
	(void)state;
	apply(&base);
	dp_harness_workers_start(dp);
	flood_check(20, 9000, true);
	dp_harness_workers_stop(dp);
	assert_int_equal(drops_all(0), 0);
}

static void
test_flood_3000_shaped(void **state)
{
	struct ibex_conf c = base;

	(void)state;
	c.ports[1].shape_bps = UINT64_C(1000000000);
	apply(&c);
	dp_harness_workers_start(dp);
	/* r2's copies leave at once and are freed while r1's wait. */
	flood_check(60, 3000, false);
	dp_harness_workers_stop(dp);
	assert_int_equal(drops_all(1), 0);
	assert_int_equal(drops_all(2), 0);
}

/* B is static on r2: unicast jumbo frames of every kind go there. */
static void
spec_to_b(struct ibex_pkt_spec *s, uint8_t l3, bool roce)
{
	memset(s, 0, sizeof(*s));
	memcpy(s->dst, mac_b, 6);
	memcpy(s->src, mac_a, 6);
	s->vlan = -1;
	s->l3 = l3;
	s->udp = true;
	s->roce = roce;
	s->sport = 1000;
	s->dport = 9;
	s->src_ip4 = 0x0a000001;
	s->dst_ip4 = 0x0a000101;
	s->src_ip6[0] = 0xfd;
	s->dst_ip6[0] = 0xfd;
	s->src_ip6[15] = 1;
	s->dst_ip6[15] = 2;
	s->dest_qp = 0x11;	/* not QP0: that is management */
	s->ecn = IBEX_ECN_ECT0;
}

static void
test_jumbo_ip_forwarded(void **state)
{
	static struct ref refs[3];
	struct rte_mbuf *o[3];
	struct ibex_pkt_spec s;
	unsigned int i;

	(void)state;
	apply(&base);
	spec_to_b(&s, IBEX_L3_IPV4, false);
	ref_build(&refs[0], &s, 9000);
	spec_to_b(&s, IBEX_L3_IPV6, false);
	ref_build(&refs[1], &s, 8000);
	spec_to_b(&s, IBEX_L3_IPV4, true);
	ref_build(&refs[2], &s, 14 + 20 + 8 + 12 + 4096 + 4);
	dp_harness_workers_start(dp);
	for (i = 0; i < 3; i++)
		send_to(0, chain_of(&refs[i], SEG, SEG));
	collect(2, o, 3);
	dp_harness_workers_stop(dp);
	for (i = 0; i < 3; i++)
		assert_true(same(o[i], &refs[i]));
	rte_pktmbuf_free_bulk(o, 3);
	assert_int_equal(drops_all(0), 0);
}

/* ECN on chained frames: r2 shaped, its lane 0 marks every ECT frame. */
static void
test_ecn_chained(void **state)
{
	enum { N = 40 };
	static struct ref refs[N];
	struct ibex_conf c = base;
	struct ibex_conf_ecn *e = &c.ports[2].ecn[0];
	struct rte_mbuf *o[N];
	struct ibex_pkt_spec s;
	unsigned int i, ce = 0;

	(void)state;
	c.ports[2].shape_bps = UINT64_C(1000000000);
	memset(e, 0, sizeof(*e));
	e->set = true;
	e->enabled = true;
	e->cfg.kmin = 0;
	e->cfg.kmax = 64;
	e->cfg.pmax = 1.0;
	e->cfg.wq_log = 0;
	e->cfg.rate_bps = c.ports[2].shape_bps;
	e->cfg.avpkt = 9000;
	apply(&c);
	spec_to_b(&s, IBEX_L3_IPV4, true);
	for (i = 0; i < N; i++)
		ref_build(&refs[i], &s, 9000);
	dp_harness_workers_start(dp);
	for (i = 0; i < N; i++)
		send_to(0, chain_of(&refs[i], SEG, SEG));
	collect(2, o, N);
	dp_harness_workers_stop(dp);
	for (i = 0; i < N; i++) {
		static uint8_t tmp[MAXF];
		const uint8_t *p = rte_pktmbuf_read(o[i], 0, 9000, tmp);
		struct ibex_pkt_info info;

		assert_non_null(p);
		assert_int_equal(ibex_pkt_parse(p, 9000, &info), IBEX_R_OK);
		/* a valid header checksum, marked or not */
		assert_int_equal(ibex_csum_fold(p + 14, 20, 0), 0xffff);
		/* all but the TOS byte, the checksum and FECN unchanged */
		assert_memory_equal(p + 14 + 20, refs[i].b + 14 + 20,
				    28 - 20 + 4);
		assert_memory_equal(p + info.bth_off + 5,
				    refs[i].b + info.bth_off + 5,
				    9000 - info.bth_off - 5);
		ce += info.ecn == IBEX_ECN_CE;
	}
	rte_pktmbuf_free_bulk(o, N);
	/* The first frame or two find the lane empty; the rest queue. */
	print_message("%u of %u chained frames marked CE\n", ce, N);
	assert_true(ce >= N / 2);
}

static void
test_mtu_and_split_headers(void **state)
{
	static struct ref r;
	struct rte_mbuf *o[1];
	struct ibex_pkt_spec s;
	uint64_t mtu0 = drops(SMALL_MTU_PORT, IBEX_R_MTU);

	(void)state;
	apply(&base);
	dp_harness_workers_start(dp);
	/* 2000 bytes into r3 (mtu 1500): dropped at ingress. */
	spec_to_b(&s, IBEX_L3_IPV4, false);
	ref_build(&r, &s, 2000);
	send_to(SMALL_MTU_PORT, chain_of(&r, SEG, SEG));
	/* 1518 bytes (1500 + header + tag) pass. */
	ref_build(&r, &s, 1518);
	send_to(SMALL_MTU_PORT, chain_of(&r, SEG, SEG));
	collect(2, o, 1);
	assert_true(same(o[0], &r));
	rte_pktmbuf_free(o[0]);
	assert_int_equal(drops(SMALL_MTU_PORT, IBEX_R_MTU) - mtu0, 1);
	/* Headers split after 20 bytes, then 100-byte segments: moved into
	 * the first segment, checked on the whole frame, forwarded. */
	spec_to_b(&s, IBEX_L3_IPV4, true);
	ref_build(&r, &s, 4154);
	send_to(0, chain_of(&r, 20, 100));
	collect(2, o, 1);
	dp_harness_workers_stop(dp);
	assert_true(same(o[0], &r));
	rte_pktmbuf_free(o[0]);
	assert_int_equal(drops_all(0), 0);
}

static void
test_no_leak(void **state)
{
	(void)state;
	apply(&base);
	dp_harness_rings_flush(rxr, txr, NB_PORTS);
	assert_int_equal(rte_mempool_in_use_count(test_pool), 0);
}

static int
group_setup(void **state)
{
	char err[512];
	int ret;

	(void)state;
	/* 2048-byte data rooms, as net_pcap's chains have. */
	test_pool = dp_harness_group_start("test_dp_jumbo", "1024", 16384, &base, "j",
					   NB_PORTS, RING_SIZE, RING_SIZE, rxr, txr);
	if (test_pool == NULL)
		return -1;
	ret = ibex_conf_parse_string(&base,
		"fdb static 02:00:00:00:0b:01 port r2 vlan 1\n"
		"fdb learning off\n"
		"port r1 vl-queue 1MB\n"
		"port r2 vl-queue 1MB\n"
		"port r3 mtu 1500\n", "test", err, sizeof(err));
	if (ret < 0 || ibex_conf_finish(&base, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	base.nb_workers = 1;
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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flood_9000),
		cmocka_unit_test(test_flood_3000_shaped),
		cmocka_unit_test(test_jumbo_ip_forwarded),
		cmocka_unit_test(test_ecn_chained),
		cmocka_unit_test(test_mtu_and_split_headers),
		cmocka_unit_test(test_no_leak),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
