/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of ECMP groups (lib/fdb/ibex_ecmp.h): the bucket table, the
 * flow hash over IPv4, IPv6, UDP and non-IP frames, the even spread of
 * RoCEv2 queue pairs with consecutive UDP source ports, and the choice
 * among the members that are up.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ibex_ecmp.h"
#include "ibex_pkt.h"

/* A RoCEv2 frame from 10.0.0.1 to 10.0.1.1 with UDP source port @p sport
 * (IPv6 with @p v6), and its hash under @p seed. */
static uint32_t
roce_hash(uint16_t sport, bool v6, uint32_t seed)
{
	struct ibex_pkt_spec sp = {
		.dst = { 0x02, 0, 0, 0, 0x01, 0x01 },
		.src = { 0x02, 0, 0, 0, 0x00, 0x01 },
		.vlan = -1, .l3 = v6 ? IBEX_L3_IPV6 : IBEX_L3_IPV4,
		.src_ip4 = 0x0a000001, .dst_ip4 = 0x0a000101,
		.src_ip6 = { 0xfd, [15] = 1 }, .dst_ip6 = { 0xfd, [14] = 1, [15] = 1 },
		.roce = true, .sport = sport, .dest_qp = 0x11, .frame_len = 128,
	};
	uint8_t buf[256];
	struct ibex_pkt_info info;
	int len = ibex_pkt_build(buf, sizeof(buf), &sp);

	assert_true(len > 0);
	assert_int_equal(ibex_pkt_parse(buf, (uint32_t)len, &info), IBEX_R_OK);
	assert_true(info.flags & IBEX_PKT_F_ROCE);
	return ibex_ecmp_hash(buf, (uint32_t)len, seed);
}

static void
test_group_build(void **state)
{
	struct ibex_ecmp_group g;
	const uint16_t two[] = { 3, 5 }, dup[] = { 3, 3 };
	const uint16_t bad[] = { 3, IBEX_MAX_PORTS };
	uint16_t many[IBEX_ECMP_MAX_MEMBERS + 1];
	unsigned int i, count[2] = { 0, 0 };

	(void)state;
	assert_int_equal(ibex_ecmp_group_build(&g, two, 2), 0);
	assert_int_equal(g.n, 2);
	assert_true(g.mask == ((UINT64_C(1) << 3) | (UINT64_C(1) << 5)));
	for (i = 0; i < IBEX_ECMP_BUCKETS; i++)
		count[g.bucket[i]]++;
	assert_int_equal(count[0], IBEX_ECMP_BUCKETS / 2);
	assert_int_equal(count[1], IBEX_ECMP_BUCKETS / 2);
	assert_int_equal(ibex_ecmp_group_build(&g, two, 0), -EINVAL);
	assert_int_equal(ibex_ecmp_group_build(&g, dup, 2), -EINVAL);
	assert_int_equal(ibex_ecmp_group_build(&g, bad, 2), -EINVAL);
	for (i = 0; i < IBEX_ECMP_MAX_MEMBERS + 1; i++)
		many[i] = (uint16_t)i;
	assert_int_equal(ibex_ecmp_group_build(&g, many,
					       IBEX_ECMP_MAX_MEMBERS + 1),
			 -EINVAL);
	assert_int_equal(ibex_ecmp_group_build(&g, many,
					       IBEX_ECMP_MAX_MEMBERS), 0);
}

/* Members above port 31 (IBEX_MAX_PORTS 64): the group's port set holds
 * them, and the choice among the members up reads their bits. */
static void
test_high_ports(void **state)
{
	struct ibex_ecmp_group g;
	const uint16_t high[] = { 31, 32, 63 };
	uint64_t all = (UINT64_C(1) << 31) | (UINT64_C(1) << 32) |
		       (UINT64_C(1) << 63);
	unsigned int i, seen[3] = { 0, 0, 0 };

	(void)state;
	assert_int_equal(ibex_ecmp_group_build(&g, high, 3), 0);
	assert_true(g.mask == all);
	for (i = 0; i < IBEX_ECMP_BUCKETS; i++) {
		int m = ibex_ecmp_pick(&g, i, all);

		assert_true(m >= 0 && m < 3);
		seen[m]++;
	}
	assert_true(seen[0] > 0 && seen[1] > 0 && seen[2] > 0);
	/* 63 down: its flows go to 31 and 32, never to 63 */
	for (i = 0; i < IBEX_ECMP_BUCKETS; i++) {
		int m = ibex_ecmp_pick(&g, i, all & ~(UINT64_C(1) << 63));

		assert_true(m == 0 || m == 1);
	}
	/* only 63 up: every flow on it */
	for (i = 0; i < IBEX_ECMP_BUCKETS; i++)
		assert_int_equal(ibex_ecmp_pick(&g, i, UINT64_C(1) << 63), 2);
}

/* Queue pairs with consecutive UDP source ports spread exactly evenly,
 * over 2, 3 and 4 members, IPv4 and IPv6, whatever the seed. */
static void
test_consecutive_ports_even(void **state)
{
	const uint16_t ports[] = { 0, 1, 2, 3 };
	const uint32_t seeds[] = { 0, 1, 0xdeadbeef };
	struct ibex_ecmp_group g;
	unsigned int n, s, v6, q, count[4];

	(void)state;
	for (n = 2; n <= 4; n++) {
		assert_int_equal(ibex_ecmp_group_build(&g, ports, n), 0);
		for (s = 0; s < 3; s++) {
			for (v6 = 0; v6 < 2; v6++) {
				memset(count, 0, sizeof(count));
				for (q = 0; q < 64; q++) {
					int i = ibex_ecmp_pick(&g,
						roce_hash((uint16_t)(49152 + q),
							  v6, seeds[s]),
						UINT64_MAX);

					assert_true(i >= 0 && i < (int)n);
					count[i]++;
				}
				for (q = 0; q < n; q++)
					assert_true(count[q] >= 64 / n &&
						    count[q] <= 64 / n + 1);
			}
		}
	}
}

/* One flow, one hash; the fields of the flow each change it. */
static void
test_hash_fields(void **state)
{
	struct ibex_pkt_spec sp = {
		.dst = { 0x02, 0, 0, 0, 0x01, 0x01 },
		.src = { 0x02, 0, 0, 0, 0x00, 0x01 },
		.vlan = 7, .l3 = IBEX_L3_IPV4,
		.src_ip4 = 0x0a000001, .dst_ip4 = 0x0a000101,
		.udp = true, .sport = 1000, .dport = 2000, .frame_len = 100,
	};
	struct ibex_pkt_info info;
	uint8_t buf[256];
	uint32_t h0, h;
	int len;

	(void)state;
	assert_int_equal(roce_hash(50000, false, 0), roce_hash(50000, false, 0));
	assert_int_not_equal(roce_hash(50000, false, 0),
			     roce_hash(50000, false, 1));
	assert_int_not_equal(roce_hash(50000, false, 0),
			     roce_hash(50000, true, 0));
	len = ibex_pkt_build(buf, sizeof(buf), &sp);
	assert_int_equal(ibex_pkt_parse(buf, (uint32_t)len, &info), IBEX_R_OK);
	h0 = ibex_ecmp_hash(buf, (uint32_t)len, 0);
	/* The payload and the MACs of an IP frame are not flow fields. */
	buf[len - 1] ^= 0xff;
	buf[5] ^= 0x10;
	assert_int_equal(ibex_ecmp_hash(buf, (uint32_t)len, 0), h0);
	sp.dst_ip4++;
	len = ibex_pkt_build(buf, sizeof(buf), &sp);
	assert_int_equal(ibex_pkt_parse(buf, (uint32_t)len, &info), IBEX_R_OK);
	h = ibex_ecmp_hash(buf, (uint32_t)len, 0);
	assert_int_not_equal(h, h0);
	sp.dst_ip4--;
	sp.dport++;
	len = ibex_pkt_build(buf, sizeof(buf), &sp);
	assert_int_equal(ibex_pkt_parse(buf, (uint32_t)len, &info), IBEX_R_OK);
	assert_int_not_equal(ibex_ecmp_hash(buf, (uint32_t)len, 0), h0);
	/* Without IP: the MACs, VLAN and EtherType. */
	memset(&sp, 0, sizeof(sp));
	sp.dst[0] = 0x02;
	sp.src[0] = 0x02;
	sp.vlan = -1;
	sp.ether_type = 0x88b6;
	sp.frame_len = 60;
	len = ibex_pkt_build(buf, sizeof(buf), &sp);
	assert_int_equal(ibex_pkt_parse(buf, (uint32_t)len, &info), IBEX_R_OK);
	h0 = ibex_ecmp_hash(buf, (uint32_t)len, 0);
	buf[11] ^= 1;
	assert_int_not_equal(ibex_ecmp_hash(buf, (uint32_t)len, 0), h0);
	buf[11] ^= 1;
	buf[30] ^= 1;
	assert_int_equal(ibex_ecmp_hash(buf, (uint32_t)len, 0), h0);
}

/* A member that is down gives its flows to the others; the flows of the
 * members that are up stay where they were. */
static void
test_member_down(void **state)
{
	const uint16_t ports[] = { 4, 6, 9 };
	struct ibex_ecmp_group g;
	uint64_t all = UINT64_MAX, no6 = ~(UINT64_C(1) << 6);
	unsigned int q, moved = 0, to[3] = { 0, 0, 0 };

	(void)state;
	assert_int_equal(ibex_ecmp_group_build(&g, ports, 3), 0);
	for (q = 0; q < 300; q++) {
		uint32_t h = roce_hash((uint16_t)(1000 + q), false, 7);
		int before = ibex_ecmp_pick(&g, h, all);
		int after = ibex_ecmp_pick(&g, h, no6);

		assert_true(after >= 0 && g.port[after] != 6);
		if (g.port[before] != 6)
			assert_int_equal(after, before);
		else
			moved++, to[after]++;
	}
	/* a third of them, give or take the wrap of the 256 buckets */
	assert_true(moved >= 99 && moved <= 101);
	/* the moved flows spread over both remaining members */
	assert_true(to[0] > 30 && to[2] > 30);
	assert_int_equal(ibex_ecmp_pick(&g, 0, 0), -1);
	assert_int_equal(ibex_ecmp_pick(&g, 12345,
					UINT64_C(1) << 9), 2);
}

/* Adaptive: the least loaded member that is up; ties go round from the
 * bucket's member, so equal members still share the flows. */
static void
test_pick_least(void **state)
{
	const uint16_t ports[] = { 4, 6 };
	struct ibex_ecmp_group g;
	uint64_t load[2] = { 100, 50 }, even[2] = { 7, 7 };
	unsigned int h, on[2] = { 0, 0 };

	(void)state;
	assert_int_equal(ibex_ecmp_group_build(&g, ports, 2), 0);
	assert_int_equal(ibex_ecmp_pick_least(&g, 0, UINT64_MAX, load), 1);
	assert_int_equal(ibex_ecmp_pick_least(&g, 1, UINT64_MAX, load), 1);
	/* the lighter one is down */
	assert_int_equal(ibex_ecmp_pick_least(&g, 0, UINT64_C(1) << 4, load), 0);
	load[0] = IBEX_ECMP_LOAD_FULL;
	assert_int_equal(ibex_ecmp_pick_least(&g, 0, UINT64_MAX, load), 1);
	assert_int_equal(ibex_ecmp_pick_least(&g, 0, 0, load), -1);
	for (h = 0; h < 256; h++)
		on[ibex_ecmp_pick_least(&g, h, UINT64_MAX, even)]++;
	assert_int_equal(on[0], 128);
	assert_int_equal(on[1], 128);
}

/* Flowlets: a flow keeps its member within the gap, chooses again after
 * it (or when the member goes down), and a move is counted. */
static void
test_flowlet(void **state)
{
	const uint16_t ports[] = { 4, 6 };
	static struct ibex_flowlet tab[IBEX_FLOWLET_SLOTS];
	struct ibex_ecmp_group g;
	struct ibex_flowlet *f;
	uint64_t all = UINT64_MAX, gap = 1000;

	(void)state;
	assert_int_equal(ibex_ecmp_group_build(&g, ports, 2), 0);
	f = ibex_flowlet_slot(tab, 0xabcd, 3);
	assert_int_equal(ibex_flowlet_member(f, 0xabcd, 3, &g, all, 10, gap), -1);
	assert_false(ibex_flowlet_note(f, 0xabcd, 3, 1, 10));
	assert_int_equal(ibex_flowlet_member(f, 0xabcd, 3, &g, all, 1010, gap), 1);
	/* another group's or another flow's frame is not this flowlet */
	assert_int_equal(ibex_flowlet_member(f, 0xabcd, 4, &g, all, 20, gap), -1);
	assert_int_equal(ibex_flowlet_member(f, 0xabce, 3, &g, all, 20, gap), -1);
	/* its member down: a new flowlet at once */
	assert_int_equal(ibex_flowlet_member(f, 0xabcd, 3, &g,
					     UINT64_C(1) << 4, 20, gap), -1);
	/* after the gap: a new flowlet, and taking the other member moves */
	assert_int_equal(ibex_flowlet_member(f, 0xabcd, 3, &g, all, 1011, gap), -1);
	assert_true(ibex_flowlet_note(f, 0xabcd, 3, 0, 1011));
	assert_false(ibex_flowlet_note(f, 0xabcd, 3, 0, 1012));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_group_build),
		cmocka_unit_test(test_consecutive_ports_even),
		cmocka_unit_test(test_hash_fields),
		cmocka_unit_test(test_member_down),
		cmocka_unit_test(test_pick_least),
		cmocka_unit_test(test_flowlet),
		cmocka_unit_test(test_high_ports),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
