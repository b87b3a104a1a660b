/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Generator frames and receive-side measurement: what the generator writes
 * parses as RoCEv2 with the right addresses, BTH fields, ECN and a valid
 * IPv4 checksum; the probe trailer survives the trip; sequence checking
 * catches injected loss, duplication and reordering exactly; CE marks are
 * counted and CNPs rate-limited per flow; options parse and refuse.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ibex_gen_frame.h"
#include "ibex_gen_meas.h"
#include "ibex_gen_opts.h"

static void
test_rank_addr(void **state)
{
	struct ibex_gen_rank r;
	static const uint8_t mac[6] = { 0x02, 0, 0, 0x0e, 0x01, 0x02 };

	(void)state;
	ibex_gen_rank_addr(0x102, &r);
	assert_memory_equal(r.mac, mac, 6);
	assert_int_equal(r.qp, 0x1102);
	assert_int_equal(r.ip4, 0x0a0e0103);
}

static void
check_frame(int vlan)
{
	struct ibex_gen_frame_opts fo = { .vlan = vlan, .pcp = 3, .dscp = 26,
					  .ecn = IBEX_ECN_ECT0 };
	struct ibex_gen_rank a, b;
	struct ibex_gen_tmpl t;
	struct ibex_gen_trailer tr = { .magic = IBEX_GEN_MAGIC,
		.flow = ibex_gen_wire_flow(1, 2, 0), .seq = 77, .tag = 5 << 16 | 3,
		.tsc = UINT64_C(0x1122334455667788) }, got;
	struct ibex_pkt_info info;
	uint8_t buf[2048];
	uint32_t len, pay;

	ibex_gen_rank_addr(1, &a);
	ibex_gen_rank_addr(2, &b);
	assert_int_equal(ibex_gen_tmpl_build(&t, &a, &b, &fo), 0);
	assert_int_equal(t.hdr_len, 54 + (vlan >= 0 ? 4 : 0));
	pay = ibex_gen_payload_max(&t, 1514);
	assert_int_equal(pay, 1514 - t.hdr_len - IBEX_GEN_TRAILER_LEN - 4);
	len = ibex_gen_frame_len(&t, pay);
	assert_int_equal(len, 1514);
	memset(buf, 0xa5, sizeof(buf));
	ibex_gen_frame_write(buf, &t, len, IBEX_GEN_OP_MIDDLE, 0xabcdef, &tr);
	assert_int_equal(ibex_pkt_parse(buf, len, &info), IBEX_R_OK);
	assert_true(info.flags & IBEX_PKT_F_ROCE);
	assert_int_equal(info.ecn, IBEX_ECN_ECT0);
	assert_int_equal(info.dscp, 26);
	assert_int_equal(info.vid, vlan >= 0 ? vlan : 0);
	assert_int_equal(ibex_bth_opcode(buf + info.bth_off), IBEX_GEN_OP_MIDDLE);
	assert_int_equal(ibex_bth_dest_qp(buf + info.bth_off), b.qp);
	assert_int_equal(ibex_bth_psn(buf + info.bth_off), 0xabcdef);
	assert_memory_equal(buf, b.mac, 6);
	assert_memory_equal(buf + 6, a.mac, 6);
	/* IPv4 checksum verifies (sum over the header folds to 0xffff) */
	assert_int_equal(ibex_csum_fold(buf + t.ip_off, 20, 0), 0xffff);
	/* IP total length covers up to the ICRC, UDP likewise */
	assert_int_equal(buf[t.ip_off + 2] << 8 | buf[t.ip_off + 3],
			 len - t.ip_off);
	assert_int_equal(buf[t.udp_off + 4] << 8 | buf[t.udp_off + 5],
			 len - t.udp_off);
	assert_true(ibex_gen_trailer_get(buf, len, &got));
	assert_memory_equal(&got, &tr, sizeof(tr));
	assert_int_equal(ibex_gen_frame_ecn(buf, t.ip_off), IBEX_ECN_ECT0);
	/* the smallest frame still holds headers + trailer + ICRC */
	len = ibex_gen_frame_len(&t, 0);
	assert_int_equal(len, t.hdr_len + IBEX_GEN_TRAILER_LEN + 4);
	ibex_gen_frame_write(buf, &t, len, IBEX_GEN_OP_ONLY, 1, &tr);
	assert_int_equal(ibex_pkt_parse(buf, len, &info), IBEX_R_OK);
	assert_true(ibex_gen_trailer_get(buf, len, &got));
	/* queue pair 3 of the connection: the next source ports up, the
	 * BTH names the destination's QP 3, the rest is the template's */
	ibex_gen_frame_set_qp(buf, &t, 3, true);
	assert_int_equal(ibex_pkt_parse(buf, len, &info), IBEX_R_OK);
	assert_int_equal(buf[t.udp_off] << 8 | buf[t.udp_off + 1],
			 49152 + (a.qp & 0x3fff) + 3);
	assert_int_equal(ibex_bth_dest_qp(buf + info.bth_off), b.qp + (3 << 16));
	assert_int_equal(ibex_csum_fold(buf + t.ip_off, 20, 0), 0xffff);
	/* the wire's flow id: 14-bit ranks and the QP, each read back */
	assert_int_equal(ibex_gen_wire_flow(16383, 16382, 7),
			 7u << 28 | 16383u << 14 | 16382u);
	assert_int_equal(ibex_gen_wire_src(ibex_gen_wire_flow(1234, 4321, 5)),
			 1234);
	assert_int_equal(ibex_gen_wire_dst(ibex_gen_wire_flow(1234, 4321, 5)),
			 4321);
	assert_int_equal(ibex_gen_wire_qp(ibex_gen_wire_flow(1234, 4321, 5)),
			 5);
	/* a corrupted magic is not a probe */
	buf[len - 4 - IBEX_GEN_TRAILER_LEN] ^= 1;
	assert_false(ibex_gen_trailer_get(buf, len, &got));
}

static void
test_frames(void **state)
{
	(void)state;
	check_frame(-1);
	check_frame(100);
}

static void
rx_seq(struct ibex_gen_meas *m, uint32_t flow, uint32_t seq, uint8_t ecn,
       uint64_t now)
{
	struct ibex_gen_trailer t = { .magic = IBEX_GEN_MAGIC, .flow = flow,
				      .seq = seq, .tsc = now - 1000 };

	ibex_gen_meas_rx(m, &t, 100, ecn, now, 50);
}

/* Injected loss, duplicates and reordering are counted exactly, per flow. */
static void
test_sequence_injection(void **state)
{
	struct ibex_gen_meas *m = calloc(1, sizeof(*m));
	struct ibex_seq_counters c;
	uint32_t f = 3, g = 4, s;
	uint64_t now = 10000;

	(void)state;
	assert_non_null(m);
	assert_int_equal(ibex_gen_meas_init(m, 8), 0);
	/* flow f: 0..999 with 10, 20, 30 lost, 100 and 200 duplicated,
	 * 500/501 swapped, 700 delivered after 705 */
	for (s = 0; s < 1000; s++) {
		if (s == 10 || s == 20 || s == 30 || s == 700)
			continue;
		if (s == 500) {
			rx_seq(m, f, 501, IBEX_ECN_ECT0, now++);
			rx_seq(m, f, 500, IBEX_ECN_ECT0, now++);
			s++;
			continue;
		}
		rx_seq(m, f, s, IBEX_ECN_ECT0, now++);
		if (s == 100 || s == 200)
			rx_seq(m, f, s, IBEX_ECN_ECT0, now++);
		if (s == 705)
			rx_seq(m, f, 700, IBEX_ECN_ECT0, now++);
	}
	/* flow g: clean */
	for (s = 0; s < 500; s++)
		rx_seq(m, g, s, IBEX_ECN_ECT0, now++);
	ibex_seq_read(&m->seq[f], &c);
	assert_int_equal(c.lost, 3);
	assert_int_equal(c.duplicate, 2);
	assert_int_equal(c.out_of_order, 2);
	ibex_seq_read(&m->seq[g], &c);
	assert_int_equal(c.lost, 0);
	assert_int_equal(c.duplicate, 0);
	assert_int_equal(c.out_of_order, 0);
	ibex_gen_meas_seq_total(m, &c);
	assert_int_equal(c.lost, 3);
	assert_int_equal(c.duplicate, 2);
	assert_int_equal(c.out_of_order, 2);
	/* a reorder buffer: 701..705 came ahead of 700 (5 frames of 100
	 * bytes); duplicates and gaps need none */
	assert_int_equal(m->reorder_depth, 5);
	assert_int_equal(m->reorder_bytes, 500);
	/* 1000 - 4 skipped + 2 duplicates + 700 late, and flow g */
	assert_int_equal(c.rx, 999 + 500);
	assert_int_equal(m->rx_frames, 999 + 500);
	/* latency 1000 ticks each */
	assert_int_equal(ibex_hist_min(&m->lat), 1000);
	assert_int_equal(ibex_hist_max(&m->lat), 1000);
	ibex_gen_meas_fini(m);
	free(m);
}

static void
test_ce_and_cnp(void **state)
{
	struct ibex_gen_meas *m = calloc(1, sizeof(*m));
	struct ibex_gen_trailer t = { .magic = IBEX_GEN_MAGIC,
				      .flow = 1 };
	uint64_t now = 1000000;
	unsigned int i, cnps = 0;

	(void)state;
	assert_non_null(m);
	assert_int_equal(ibex_gen_meas_init(m, 8), 0);
	/* 100 CE frames 10 ticks apart, CNP gap 50 ticks: 20 CNPs */
	for (i = 0; i < 100; i++) {
		t.seq = i;
		t.tsc = now - 5;
		cnps += ibex_gen_meas_rx(m, &t, 100, IBEX_ECN_CE, now, 50);
		now += 10;
	}
	assert_int_equal(m->ce, 100);
	assert_int_equal(cnps, 20);
	assert_int_equal(m->cnps, 20);
	t.seq = 100;
	assert_false(ibex_gen_meas_rx(m, &t, 100, IBEX_ECN_ECT0, now + 1000, 50));
	assert_int_equal(m->ect, 1);
	ibex_gen_meas_fini(m);
	free(m);
}

static int
parse(struct ibex_gen_opts *o, const char *a0, const char *a1, const char *a2,
      const char *a3)
{
	char *argv[6] = { (char *)"ibex-gen", (char *)a0, (char *)a1,
			  (char *)a2, (char *)a3, NULL };
	int argc = 1;

	while (argc < 5 && argv[argc] != NULL)
		argc++;
	ibex_gen_opts_default(o);
	return ibex_gen_opts_parse(o, argc, argv);
}

static void
test_opts(void **state)
{
	struct ibex_gen_opts o;
	char err[128];

	(void)state;
	assert_int_equal(parse(&o, "-b", "4K", "-e", "1M"), 0);
	assert_int_equal(o.min_bytes, 4096);
	assert_int_equal(o.max_bytes, 1 << 20);
	assert_int_equal(parse(&o, "--straggler", "3:20:0.5", NULL, NULL), 0);
	assert_int_equal(o.straggler.rank, 3);
	assert_true(o.straggler_us == 20.0 && o.straggler.prob == 0.5);
	/* halving-doubling takes any rank count */
	assert_int_equal(parse(&o, "--engine", "hd", "--ranks", "6"), 0);
	assert_int_equal(ibex_gen_opts_check(&o, err, sizeof(err)), 0);
	assert_int_equal(parse(&o, "--engine", "hd", "--ranks", "11664"), 0);
	assert_int_equal(ibex_gen_opts_check(&o, err, sizeof(err)), 0);
	assert_int_equal(parse(&o, "--rate", "1.5M", "--fc", "credit"), 0);
	assert_true(o.rate_pps == 1.5e6);
	assert_int_equal(o.fc, IBEX_GEN_FC_CREDIT);
	assert_int_equal(parse(&o, "--engine", "bogus", NULL, NULL), -EINVAL);
	assert_int_equal(parse(&o, "--straggler", "3:20", NULL, NULL), -EINVAL);
	assert_int_equal(parse(&o, "--ranks", "16385", NULL, NULL), -EINVAL);
	assert_int_equal(parse(&o, "-b", "2M", "-e", "1M"), 0);
	assert_int_equal(ibex_gen_opts_check(&o, err, sizeof(err)), -EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rank_addr),
		cmocka_unit_test(test_frames),
		cmocka_unit_test(test_sequence_injection),
		cmocka_unit_test(test_ce_and_cnp),
		cmocka_unit_test(test_opts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
