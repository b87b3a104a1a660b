/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The benchmark searches and the pieces they need, without EAL: the binary
 * search against simulated devices (a capacity, a loss curve, a buffer),
 * short probes for 64-byte frames, the --flow and search options.
 */

#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ibex_gen_frame.h"
#include "ibex_gen_opts.h"
#include "ibex_gen_search.h"

/* A device that forwards everything up to cap pps and drops the excess:
 * received = offered x min(1, cap / rate). */
static unsigned int
run_capacity(struct ibex_search *s, double cap, double *last_pass)
{
	unsigned int n = 0;

	*last_pass = -1;
	while (!s->done) {
		double v = ibex_search_next(s);
		uint64_t tx = 1000000, rx = v <= cap ? tx :
			      (uint64_t)(tx * cap / v);

		if (ibex_search_record(s, tx, rx))
			*last_pass = v;
		n++;
		assert_true(n < 100);
	}
	return n;
}

static void
test_ndr_converges(void **state)
{
	static const double caps[] = { 1e5, 2.5e6, 7.77e6, 9.99e6 };
	struct ibex_search s;
	double pass;
	unsigned int i, n;

	(void)state;
	for (i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		assert_int_equal(ibex_search_init(&s, 0, 1e7, 1e5, 0, false), 0);
		n = run_capacity(&s, caps[i], &pass);
		/* the answer is below the capacity and within resolution */
		assert_true(s.lo <= caps[i]);
		assert_true(caps[i] - s.lo <= 1e5);
		assert_true(s.hi - s.lo <= 1e5);
		assert_true(pass == s.lo);
		/* log2(max / res) = 6.6: at most 8 trials */
		assert_true(n <= 8);
		assert_int_equal(s.trials, n);
	}
}

static void
test_ndr_first_trial_at_max(void **state)
{
	struct ibex_search s;
	double pass;

	(void)state;
	assert_int_equal(ibex_search_init(&s, 0, 5e6, 5e4, 0, false), 0);
	assert_true(ibex_search_next(&s) == 5e6);
	/* a device faster than the maximum: one trial, answer = max */
	assert_int_equal(run_capacity(&s, 8e6, &pass) + 1, 2);
	assert_true(s.done && s.lo == 5e6 && s.passed_any);
	/* nothing passes: answer = min, hi close to it */
	assert_int_equal(ibex_search_init(&s, 0, 5e6, 5e4, 0, false), 0);
	run_capacity(&s, 0, &pass);
	assert_true(s.lo == 0 && !s.passed_any && s.hi <= 5e4);
}

static void
test_zero_loss_is_strict(void **state)
{
	struct ibex_search s;

	(void)state;
	assert_int_equal(ibex_search_init(&s, 0, 100, 1, 0, false), 0);
	ibex_search_next(&s);
	/* one frame in a million lost fails a no-drop trial */
	assert_false(ibex_search_record(&s, 1000000, 999999));
	assert_true(s.hi == 100);
	ibex_search_next(&s);
	assert_true(s.cur == 50);
	assert_true(ibex_search_record(&s, 1000, 1000));
	assert_true(s.lo == 50);
	/* nothing offered is no pass */
	ibex_search_next(&s);
	assert_false(ibex_search_record(&s, 0, 0));
	assert_true(ibex_search_loss(10, 12) == 0);
	assert_true(fabs(ibex_search_loss(1000, 999) - 0.001) < 1e-12);
}

/* PDR: loss = max(0, (rate - cap) / rate); threshold 1 %. */
static void
test_pdr(void **state)
{
	const double cap = 4e6, thr = 0.01;
	struct ibex_search s;
	unsigned int n = 0;

	(void)state;
	/* lo starts at an NDR known to pass */
	assert_int_equal(ibex_search_init(&s, 3.9e6, 1e7, 1e4, thr, false), 0);
	while (!s.done) {
		double v = ibex_search_next(&s);
		uint64_t tx = 10000000, rx = v <= cap ? tx :
			      (uint64_t)(tx * cap / v);

		ibex_search_record(&s, tx, rx);
		assert_true(++n < 100);
	}
	/* loss <= 1 % up to cap / 0.99 */
	assert_true(s.lo <= cap / (1 - thr) + 1);
	assert_true(cap / (1 - thr) - s.lo <= 1e4);
	assert_true(s.lo_loss <= thr && s.lo_loss > 0.005);
	assert_true(s.hi_loss > thr);
}

/* Burst search: a buffer of 1000 frames absorbs bursts up to 1000. */
static void
test_burst_integer(void **state)
{
	static const unsigned int bufs[] = { 0, 1, 2, 999, 1000, 4095, 5000 };
	struct ibex_search s;
	unsigned int i, n;

	(void)state;
	for (i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++) {
		assert_int_equal(ibex_search_init(&s, 0, 4096, 1, 0, true), 0);
		n = 0;
		while (!s.done) {
			double v = ibex_search_next(&s);

			assert_true(v == floor(v) && v >= 1 && v <= 4096);
			ibex_search_record(&s, (uint64_t)v, v <= bufs[i] ?
					   (uint64_t)v : bufs[i]);
			assert_true(++n <= 14);
		}
		assert_true(s.lo == (bufs[i] < 4096 ? bufs[i] : 4096));
		if (bufs[i] < 4096)
			assert_true(s.hi == bufs[i] + 1);
	}
	assert_int_equal(ibex_search_init(&s, 0, 10, 0.5, 0, true), -EINVAL);
	assert_int_equal(ibex_search_init(&s, 5, 5, 1, 0, false), -EINVAL);
	assert_int_equal(ibex_search_init(&s, 0, 5, 1, 1.0, false), -EINVAL);
}

static void
short_probe(int vlan)
{
	struct ibex_gen_frame_opts fo = { .vlan = vlan, .ecn = IBEX_ECN_ECT0 };
	struct ibex_gen_trailer tr = { .magic = IBEX_GEN_MAGIC,
		/* the widest wire flow id: ranks of 14 bits, QP 7 */
		.flow = ibex_gen_wire_flow(16383, 9, 7), .seq = 0xdeadbeef,
		.tag = 0x4321 << 16, .tsc = UINT64_C(0x0102030405060708) }, got;
	/* received 1,000 ticks later; the 48-bit time wraps in between */
	const uint64_t now = tr.tsc + 1000,
		       wtsc = UINT64_C(0x0005ffffffffff00),
		       wnow = UINT64_C(0x0006000000000100);
	struct ibex_gen_rank a, b;
	struct ibex_gen_tmpl t;
	struct ibex_pkt_info info;
	uint8_t buf[256];
	uint32_t len, min;

	ibex_gen_rank_addr(3, &a);
	ibex_gen_rank_addr(9, &b);
	assert_int_equal(ibex_gen_tmpl_build(&t, &a, &b, &fo), 0);
	min = ibex_gen_short_min(&t);
	/* 64-byte frames (60 without FCS) fit untagged */
	assert_int_equal(min, vlan >= 0 ? 64 : 60);
	for (len = min; len < ibex_gen_frame_len(&t, 0); len++) {
		memset(buf, 0x5a, sizeof(buf));
		ibex_gen_short_write(buf, &t, len, &tr);
		assert_int_equal(ibex_pkt_parse(buf, len, &info), IBEX_R_OK);
		assert_true(info.flags & IBEX_PKT_F_UDP);
		assert_false(info.flags & IBEX_PKT_F_ROCE);
		assert_int_equal(info.ecn, IBEX_ECN_ECT0);
		assert_int_equal(info.vid, vlan >= 0 ? vlan : 0);
		assert_int_equal(ibex_csum_fold(buf + t.ip_off, 20, 0), 0xffff);
		assert_int_equal(buf[t.ip_off + 2] << 8 | buf[t.ip_off + 3],
				 len - t.ip_off);
		assert_int_equal(buf[t.udp_off + 4] << 8 | buf[t.udp_off + 5],
				 len - t.udp_off);
		assert_memory_equal(buf, b.mac, 6);
		/* not mistaken for a full probe, read back as a short one */
		assert_false(ibex_gen_trailer_get(buf, len, &got));
		memset(&got, 0, sizeof(got));
		assert_true(ibex_gen_short_get(buf, len, t.udp_off, now, &got));
		assert_int_equal(got.flow, tr.flow);
		assert_int_equal(ibex_gen_wire_src(got.flow), 16383);
		assert_int_equal(ibex_gen_wire_dst(got.flow), 9);
		assert_int_equal(ibex_gen_wire_qp(got.flow), 7);
		assert_int_equal(got.seq, tr.seq);
		assert_int_equal(got.tag, tr.tag);
		assert_true(got.tsc == tr.tsc);
		tr.tsc = wtsc;
		ibex_gen_short_write(buf, &t, len, &tr);
		assert_true(ibex_gen_short_get(buf, len, t.udp_off, wnow,
					       &got));
		assert_true(got.tsc == wtsc);
		tr.tsc = now - 1000;
		/* a corrupted magic or another UDP port is no short probe */
		buf[len - IBEX_GEN_SHORT_LEN] ^= 1;
		assert_false(ibex_gen_short_get(buf, len, t.udp_off, now, &got));
		buf[len - IBEX_GEN_SHORT_LEN] ^= 1;
		buf[t.udp_off + 3] ^= 1;
		assert_false(ibex_gen_short_get(buf, len, t.udp_off, now, &got));
	}
	/* a full RoCEv2 probe is no short probe */
	len = ibex_gen_frame_len(&t, 100);
	ibex_gen_frame_write(buf, &t, len, IBEX_GEN_OP_ONLY, 1, &tr);
	assert_false(ibex_gen_short_get(buf, len, t.udp_off, now, &got));
}

static void
test_short_probe(void **state)
{
	(void)state;
	short_probe(-1);
	short_probe(100);
}

static int
parse(struct ibex_gen_opts *o, const char *a, const char *b, const char *c)
{
	char *argv[] = { (char *)"ibex-gen", (char *)a, (char *)b, (char *)c,
			 NULL };
	int argc = c != NULL ? 4 : b != NULL ? 3 : 2;

	ibex_gen_opts_default(o);
	return ibex_gen_opts_parse(o, argc, argv);
}

static void
test_options(void **state)
{
	struct ibex_gen_opts o;
	char err[256];

	(void)state;
	assert_int_equal(parse(&o, "--flow", "0:2:1.5M,0:3,1:3:250K", NULL), 0);
	assert_int_equal(o.nrflows, 3);
	assert_int_equal(o.rflow[0].src, 0);
	assert_int_equal(o.rflow[0].dst, 2);
	assert_true(o.rflow[0].pps == 1.5e6);
	assert_true(o.rflow[1].pps == 0);
	assert_true(o.rflow[2].pps == 250e3);
	/* repeatable */
	assert_int_equal(parse(&o, "--flow=1:0", "--flow=2:0", NULL), 0);
	assert_int_equal(o.nrflows, 2);
	assert_int_equal(parse(&o, "--flow", "1:1", NULL), -EINVAL);
	assert_int_equal(parse(&o, "--flow", "1:2,1:2", NULL), -EINVAL);
	assert_int_equal(parse(&o, "--flow", "1:2:0", NULL), -EINVAL);
	assert_int_equal(parse(&o, "--flow", "1:2x", NULL), -EINVAL);
	assert_int_equal(parse(&o, "--flow", "1:16384", NULL), -EINVAL);
	/* flows name ranks that exist; they are for the rate engine */
	assert_int_equal(parse(&o, "--engine=rate", "--ranks=4", "--flow=1:5"), 0);
	assert_int_equal(ibex_gen_opts_check(&o, err, sizeof(err)), -EINVAL);
	assert_int_equal(parse(&o, "--ranks=4", "--flow=1:2", NULL), 0);
	assert_int_equal(ibex_gen_opts_check(&o, err, sizeof(err)), -EINVAL);

	assert_int_equal(parse(&o, "--search", "rate", "--sizes=64,128,1518"), 0);
	assert_int_equal(o.search, IBEX_GEN_SEARCH_RATE);
	assert_true(o.tx_drop);
	assert_int_equal(o.nsizes, 3);
	assert_int_equal(o.sizes[2], 1518);
	assert_true(o.trial_s == 0.25 && o.resolution == 0.01 &&
		    o.pdr_loss == 0.001 && o.retries == 1);
	assert_int_equal(parse(&o, "--sizes", "63", NULL), -EINVAL);
	assert_int_equal(parse(&o, "--sizes", "64,,128", NULL), -EINVAL);
	assert_int_equal(parse(&o, "--search", "fast", NULL), -EINVAL);
	assert_int_equal(parse(&o, "--engine=rate", "--sizes=1522", NULL), 0);
	assert_int_equal(ibex_gen_opts_check(&o, err, sizeof(err)), -EINVAL);
	assert_int_equal(parse(&o, "--search=burst", "--burst-max=100",
			       "--retries=0"), 0);
	assert_int_equal(o.search, IBEX_GEN_SEARCH_BURST);
	assert_int_equal(o.burst_max, 100);
	assert_int_equal(o.retries, 0);
	assert_int_equal(parse(&o, "--pdr-loss", "0.6", NULL), -EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ndr_converges),
		cmocka_unit_test(test_ndr_first_trial_at_max),
		cmocka_unit_test(test_zero_loss_is_strict),
		cmocka_unit_test(test_pdr),
		cmocka_unit_test(test_burst_integer),
		cmocka_unit_test(test_short_probe),
		cmocka_unit_test(test_options),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
