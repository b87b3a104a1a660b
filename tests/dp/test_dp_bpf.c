/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * eBPF classifiers on the data path, with EAL (--no-huge) and net_ring
 * ports, a worker running throughout (every change is live):
 *
 *  - each example of conf/bpf gives the expected SL (seen as the egress
 *    lane, SL s -> VL s) on crafted frames: good, truncated, VLAN-tagged,
 *    IPv6, not IP; drop verdicts are counted under bpf-drop;
 *  - JIT and interpreter agree;
 *  - a program that reads out of its context is refused at load by
 *    rte_bpf's verifier; a non-ELF file, an unknown section and an object
 *    with global data are refused with the loader's reason; each time the
 *    running program keeps classifying;
 *  - live replace under load: programs swapped many times while a flow
 *    runs on a lossless lane: every frame arrives, in order;
 *  - valid jumbo frames (9000-byte IPv4/UDP, RoCEv2 with a 4096-byte
 *    payload, 8062-byte IPv6/UDP) as chains of 2048-byte segments through
 *    a port with mtu 9000 and a classifier: forwarded, none dropped.
 *
 *  - 32 rules that join again (2^33 paths for rte_bpf's verifier to walk)
 *    are refused at once with the figure and the limit; the same rules
 *    written first-match load in milliseconds;
 *  - an interpreted division by zero: 10000 frames, each a bad verdict,
 *    and no log line.
 *
 * Arguments: qp_range.o dscp_cnp.o drop_udp.o oob.o global.o badret.o
 * rawtos.o sl0.o, a file that is not ELF, branches.o rules.o div0.o.
 */

#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "dp_harness.h"
#include "ibex_conf.h"
#include "ibex_dp.h"
#include "ibex_pkt.h"

#define NB_PORTS 2
#define IN 0
#define OUT 1
#define RING_SIZE 1024

enum { A_QP, A_DSCP, A_DROP, A_OOB, A_GLOBAL, A_BADRET, A_RAW, A_SL0,
       A_NOTELF, A_BRANCHES, A_RULES, A_DIV0, A_NB };

static const char *obj[A_NB];
static struct rte_ring *rxr[NB_PORTS], *txr[NB_PORTS];
static struct rte_mempool *test_pool;
static struct ibex_dp *dp;
static struct ibex_conf base;

static const uint8_t mac_dst[6] = { 0x02, 0, 0, 0, 0x0d, 0x01 };

/* A frame as the tests vary it. */
struct fr {
	int vlan;            /* -1 untagged */
	uint8_t pcp;
	uint8_t l3;          /* IBEX_L3_* */
	uint16_t ether_type; /* with IBEX_L3_NONE */
	uint8_t dscp;
	bool roce;
	bool udp;
	uint16_t dport;
	uint8_t opcode;
	uint32_t qp;
	uint32_t psn;
	uint8_t ecn;
	uint32_t len;
	uint32_t cut;        /* > 0: keep only this many bytes */
};

static struct rte_mbuf *
fr_build(const struct fr *f)
{
	struct ibex_pkt_spec s = {
		.vlan = f->vlan, .pcp = f->pcp, .l3 = f->l3,
		.ether_type = f->ether_type, .dscp = f->dscp,
		.ecn = f->ecn, .roce = f->roce, .udp = f->udp || f->roce, .sport = 49152,
		.dport = f->dport, .bth_opcode = f->opcode,
		.dest_qp = f->qp, .psn = f->psn & 0xffffff,
		.src_ip4 = 0x0a000001, .dst_ip4 = 0x0a000101,
		.frame_len = f->len != 0 ? f->len : 128,
	};
	struct rte_mbuf *m;

	memcpy(s.dst, mac_dst, 6);
	s.src[0] = 0x02;
	s.src[5] = 0x01;
	s.src_ip6[15] = 1;
	s.dst_ip6[15] = 2;
	m = dp_harness_frame(test_pool, &s);
	assert_non_null(m);
	if (f->cut != 0)
		assert_int_equal(rte_pktmbuf_trim(m, (uint16_t)(s.frame_len -
								f->cut)), 0);
	return m;
}

static void
drain_tx(void)
{
	struct rte_mbuf *m[64];
	unsigned int n;

	while ((n = rte_ring_dequeue_burst(txr[OUT], (void **)m, 64,
					   NULL)) != 0)
		rte_pktmbuf_free_bulk(m, n);
}

/*
 * Send one frame on port IN and wait until it left on a lane of OUT or was
 * dropped. @return its lane, or -reason when dropped.
 */
static int
send_mbuf(struct rte_mbuf *m)
{
	static struct dp_harness_snap b;
	struct ibex_lane_counters lc;
	struct ibex_port_counters pc;
	uint64_t deadline;
	unsigned int v, r;

	dp_harness_snap(dp, &b);
	assert_int_equal(dp_harness_send(rxr[IN], &m, 1), 1);
	deadline = dp_harness_deadline(DP_HARNESS_WAIT_S);
	while (!dp_harness_expired(deadline)) {
		drain_tx();
		for (v = 0; v < IBEX_VL_COUNT; v++) {
			dp_harness_lane_delta(&b, OUT, v, &lc);
			if (lc.tx_pkts != 0) {
				drain_tx();      /* counted means on the ring */
				return (int)v;
			}
		}
		dp_harness_port_delta(&b, IN, &pc);
		for (r = IBEX_R_OK + 1; r < IBEX_R_MAX; r++)
			if (pc.drop[r] != 0)
				return -(int)r;
	}
	fail_msg("frame neither sent nor dropped in %d s", DP_HARNESS_WAIT_S);
	return 0;
}

static int
send_one(const struct fr *f)
{
	return send_mbuf(fr_build(f));
}

/* Apply "port r0 <keys>" to a copy of the base config, live. */
static int
set_port(const char *keys, char *err, size_t errlen)
{
	static struct ibex_conf c;
	char line[1024];

	c = *dp->conf;
	snprintf(line, sizeof(line), "port r0 %s", keys);
	if (ibex_conf_parse_line(&c, line, "ctl", 1, err, errlen) < 0 ||
	    ibex_conf_finish(&c, err, errlen) < 0)
		return -1;
	return ibex_dp_reconfigure(dp, &c, err, errlen) < 0 ? -1 : 0;
}

static void
use(const char *keys)
{
	char err[1024];

	if (set_port(keys, err, sizeof(err)) < 0)
		fail_msg("%s: %s", keys, err);
}

static void
use_prog(unsigned int a, const char *section, const char *more)
{
	char keys[768];

	/* Keys given before stay: state the defaults unless told. */
	if (more == NULL)
		more = "bpf-fallback pcp bpf-jit on";
	snprintf(keys, sizeof(keys), "sl-from bpf %s%s%s %s", obj[a],
		 section != NULL ? ":" : "", section != NULL ? section : "",
		 more != NULL ? more : "");
	use(keys);
}

/* Dest QP 0 would make it a management (VL15) frame. */
static const struct fr roce4 = { .vlan = -1, .l3 = IBEX_L3_IPV4,
				 .roce = true, .opcode = 0x04, .qp = 0x999 };

static void
check_qp_range(void)
{
	struct fr f = roce4;

	f.qp = 0x150;
	assert_int_equal(send_one(&f), 2);
	f.qp = 0x250;
	assert_int_equal(send_one(&f), 4);
	f.qp = 0x999;
	assert_int_equal(send_one(&f), 1);
	/* VLAN-tagged, PCP 5: the QP decides, not the PCP. */
	f.vlan = 1;
	f.pcp = 5;
	f.qp = 0x1ff;
	assert_int_equal(send_one(&f), 2);
	/* IPv6 */
	f.vlan = -1;
	f.l3 = IBEX_L3_IPV6;
	f.qp = 0x200;
	assert_int_equal(send_one(&f), 4);
	/* Not RoCE: the built-in classifier (pcp mode: untagged -> SL 0,
	 * tagged -> its PCP). */
	f = roce4;
	f.roce = false;
	f.udp = true;
	f.dport = 9000;
	assert_int_equal(send_one(&f), 0);
	f.vlan = 1;
	f.pcp = 3;
	assert_int_equal(send_one(&f), 3);
}

static void
test_qp_range(void **state)
{
	struct ibex_dp_bpf_view v0, v;
	struct fr f = roce4;

	(void)state;
	use_prog(A_QP, NULL, NULL);
	assert_int_equal(ibex_dp_bpf_view(dp, IN, &v0), 0);
	assert_true(v0.on);
	assert_string_equal(v0.section, "ibex");
	assert_string_equal(v0.name, "qp_range");
	assert_true(v0.btf);
	check_qp_range();
	assert_int_equal(ibex_dp_bpf_view(dp, IN, &v), 0);
	assert_int_equal(v.runs - v0.runs, 7);
	assert_int_equal(v.cnt.sl[2] - v0.cnt.sl[2], 2);
	assert_int_equal(v.cnt.sl[4] - v0.cnt.sl[4], 2);
	assert_int_equal(v.cnt.deflt - v0.cnt.deflt, 2);
	/* Truncated: malformed, dropped by the parse, never run. */
	f.qp = 0x150;
	f.cut = 50;
	assert_int_equal(send_one(&f), -IBEX_R_IP4_TOTLEN);
	f.cut = 16;
	f.vlan = 1;
	assert_int_equal(send_one(&f), -IBEX_R_VLAN_TRUNC);
	f.cut = 30;
	assert_int_equal(send_one(&f), -IBEX_R_IP4_TRUNC);
	assert_int_equal(ibex_dp_bpf_view(dp, IN, &v0), 0);
	assert_int_equal(v0.runs, v.runs);
}

static void
test_interpreter(void **state)
{
	struct ibex_dp_bpf_view v;

	(void)state;
	use_prog(A_QP, NULL, "bpf-jit off bpf-fallback pcp");
	assert_int_equal(ibex_dp_bpf_view(dp, IN, &v), 0);
	assert_false(v.jit);
	check_qp_range();
	use_prog(A_QP, NULL, "bpf-jit on");
	assert_int_equal(ibex_dp_bpf_view(dp, IN, &v), 0);
	printf("qp_range: %s, %u instructions, loaded in %" PRIu64 " us\n",
	       v.jit ? "JIT" : "interpreted (no JIT here)", v.nb_insns,
	       v.load_ns / 1000);
}

static void
test_dscp_cnp(void **state)
{
	struct fr f = { .vlan = -1, .l3 = IBEX_L3_IPV4, .udp = true,
			.dport = 7000 };

	(void)state;
	use_prog(A_DSCP, "ibex/dscp_cnp", NULL);
	f.dscp = 26;
	assert_int_equal(send_one(&f), 3);
	f.dscp = 48;
	assert_int_equal(send_one(&f), 6);
	/* A RoCEv2 CNP on the data DSCP still goes to the strict lane. */
	f = roce4;
	f.dscp = 26;
	f.opcode = 0x81;
	assert_int_equal(send_one(&f), 6);
	f.opcode = 0x0a;
	assert_int_equal(send_one(&f), 3);
	/* IPv6 and tagged IPv4. */
	f.l3 = IBEX_L3_IPV6;
	f.dscp = 10;
	assert_int_equal(send_one(&f), 1);
	f.l3 = IBEX_L3_IPV4;
	f.vlan = 1;
	f.pcp = 0;
	f.dscp = 46;
	assert_int_equal(send_one(&f), 5);
	/* Not IP: the built-in classifier, here the DSCP fallback whose
	 * tagged non-IP frames use the PCP table. */
	use_prog(A_DSCP, "ibex/dscp_cnp", "bpf-fallback dscp bpf-jit on");
	f = (struct fr){ .vlan = 1, .pcp = 7, .l3 = IBEX_L3_NONE,
			 .ether_type = 0x0806, .len = 60 };
	assert_int_equal(send_one(&f), 7);
	/* The plain DSCP program of the same object. */
	use_prog(A_DSCP, "ibex/dscp", NULL);
	f = (struct fr){ .vlan = -1, .l3 = IBEX_L3_IPV4, .udp = true,
			 .dport = 7000, .dscp = 48 };
	assert_int_equal(send_one(&f), 6);
	f.dscp = 8;
	assert_int_equal(send_one(&f), 1);
}

/*
 * Programs that read different parts of the context one after the other
 * on the same worker: each part a program reads is filled for each frame
 * (the frame's bytes in data[] too), whatever the previous program left.
 */
static void
test_ctx_parts(void **state)
{
	struct fr f = { .vlan = -1, .l3 = IBEX_L3_IPV4, .udp = true,
			.dport = 7000, .dscp = 26 };

	(void)state;
	use_prog(A_RAW, NULL, NULL);
	assert_int_equal(send_one(&f), 3);
	f.vlan = 1;
	f.dscp = 46;
	assert_int_equal(send_one(&f), 5);
	use_prog(A_DSCP, "ibex/dscp", NULL);
	f = roce4;
	f.dscp = 16;
	assert_int_equal(send_one(&f), 2);
	use_prog(A_RAW, NULL, NULL);
	f.dscp = 56;
	assert_int_equal(send_one(&f), 7);
	use_prog(A_QP, NULL, NULL);
	f.qp = 0x250;
	assert_int_equal(send_one(&f), 4);
	use_prog(A_RAW, NULL, "bpf-jit off");
	f.dscp = 8;
	assert_int_equal(send_one(&f), 1);
}

static void
test_drop_udp(void **state)
{
	struct ibex_dp_bpf_view v0, v;
	struct fr f = { .vlan = -1, .l3 = IBEX_L3_IPV4, .udp = true,
			.dport = 5201 };

	(void)state;
	use_prog(A_DROP, NULL, NULL);
	assert_int_equal(ibex_dp_bpf_view(dp, IN, &v0), 0);
	assert_int_equal(send_one(&f), -IBEX_R_BPF_DROP);
	f.vlan = 1;
	f.pcp = 4;
	assert_int_equal(send_one(&f), -IBEX_R_BPF_DROP);
	f.dport = 5202;
	assert_int_equal(send_one(&f), 4);
	assert_int_equal(ibex_dp_bpf_view(dp, IN, &v), 0);
	assert_int_equal(v.cnt.drops - v0.cnt.drops, 2);
	assert_int_equal(v.cnt.deflt - v0.cnt.deflt, 1);
}

static void
test_bad_verdict(void **state)
{
	struct ibex_dp_bpf_view v0, v;
	struct fr f = roce4;

	(void)state;
	use_prog(A_BADRET, NULL, NULL);
	assert_int_equal(ibex_dp_bpf_view(dp, IN, &v0), 0);
	f.vlan = 1;
	f.pcp = 2;
	assert_int_equal(send_one(&f), 2);
	assert_int_equal(ibex_dp_bpf_view(dp, IN, &v), 0);
	assert_int_equal(v.cnt.bad - v0.cnt.bad, 1);
}

/* A refused program: the message names the reason, and the running one
 * (qp_range) still classifies. */
static void
refused(unsigned int a, const char *section, const char *want)
{
	struct ibex_dp_bpf_view v;
	char keys[768], err[1024];

	snprintf(keys, sizeof(keys), "sl-from bpf %s%s%s", obj[a],
		 section != NULL ? ":" : "", section != NULL ? section : "");
	assert_int_equal(set_port(keys, err, sizeof(err)), -1);
	printf("refused: %s\n", err);
	if (strstr(err, want) == NULL)
		fail_msg("'%s' does not say '%s'", err, want);
	assert_non_null(strstr(err, "test:1: port r0: sl-from bpf: "));
	assert_int_equal(ibex_dp_bpf_view(dp, IN, &v), 0);
	assert_string_equal(v.name, "qp_range");
	check_qp_range();
}

static void
test_refused(void **state)
{
	char err[1024];

	(void)state;
	use_prog(A_QP, NULL, NULL);
	refused(A_OOB, NULL, "rejected by rte_bpf");
	refused(A_NOTELF, NULL, obj[A_NOTELF]);
	refused(A_DSCP, "nope", "no section 'nope' (sections: ibex/dscp_cnp, "
		"ibex/dscp)");
	refused(A_DSCP, NULL, "2 programs: name one with FILE:SECTION");
	refused(A_GLOBAL, NULL, "map or global data");
	refused(A_QP, "ibex/../x", "no section");
	assert_int_equal(set_port("sl-from bpf /nonexistent/x.o", err,
				  sizeof(err)), -1);
	assert_non_null(strstr(err, "No such file"));
	/* The grammar's own errors. */
	assert_int_equal(set_port("sl-from bpf", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "missing FILE[:SECTION]"));
	assert_int_equal(set_port("sl-from bpf x.o: ", err, sizeof(err)), -1);
	assert_int_equal(set_port("sl-from bpf x.o sl-from pcp", err,
				  sizeof(err)), -1);
	assert_non_null(strstr(err, "duplicate key 'sl-from'"));
}

/* 32 rules that each join the next: refused before rte_bpf's verifier
 * spends hours on them, in a moment, with the count and the limit. */
static void
test_paths(void **state)
{
	struct ibex_dp_bpf_view v0, v;
	char keys[768], err[1024];
	struct fr f = roce4;
	uint64_t t0;
	double s;

	(void)state;
	use_prog(A_QP, NULL, NULL);
	snprintf(keys, sizeof(keys), "sl-from bpf %s", obj[A_BRANCHES]);
	t0 = rte_get_timer_cycles();
	assert_int_equal(set_port(keys, err, sizeof(err)), -1);
	s = (double)(rte_get_timer_cycles() - t0) / rte_get_timer_hz();
	printf("32 joined rules refused in %.3f s\n", s);
	assert_true(s < 10);
	refused(A_BRANCHES, NULL, "8589934592 paths through its branches");
	refused(A_BRANCHES, NULL, "over ibex's limit of 2097152 steps");
	/* First-match: 33 paths, loads. */
	t0 = rte_get_timer_cycles();
	use_prog(A_RULES, NULL, NULL);
	s = (double)(rte_get_timer_cycles() - t0) / rte_get_timer_hz();
	printf("32 first-match rules loaded in %.3f s\n", s);
	assert_true(s < 10);
	assert_int_equal(ibex_dp_bpf_view(dp, IN, &v0), 0);
	assert_string_equal(v0.name, "rules");
	send_one(&f);
	assert_int_equal(ibex_dp_bpf_view(dp, IN, &v), 0);
	assert_int_equal(v.runs - v0.runs, 1);
}

/* Send @p n copies of @p f and wait until the program ran on all. */
static void
send_many(const struct fr *f, unsigned int n)
{
	struct ibex_dp_bpf_view v0, v;
	struct rte_mbuf *m[64];
	uint64_t deadline;
	unsigned int i, k, sent = 0;

	assert_int_equal(ibex_dp_bpf_view(dp, IN, &v0), 0);
	while (sent < n) {
		k = RTE_MIN(64u, n - sent);
		for (i = 0; i < k; i++)
			m[i] = fr_build(f);
		assert_int_equal(dp_harness_send(rxr[IN], m, k), k);
		sent += k;
		drain_tx();
	}
	deadline = dp_harness_deadline(DP_HARNESS_WAIT_S);
	do {
		drain_tx();
		assert_int_equal(ibex_dp_bpf_view(dp, IN, &v), 0);
		if (v.runs - v0.runs >= n)
			return;
	} while (!dp_harness_expired(deadline));
	fail_msg("the program ran on %" PRIu64 " of %u frames",
		 v.runs - v0.runs, n);
}

/* An interpreted division by ctx->ecn, on 10000 frames that are not
 * ECN-capable: 10000 bad verdicts, fallback classification, no log. */
static void
test_div0(void **state)
{
	struct ibex_dp_bpf_view v0, v;
	struct fr f = roce4;
	FILE *prev = rte_log_get_stream(), *log;
	char line[512];
	unsigned int lines = 0;

	(void)state;
	use_prog(A_DIV0, NULL, "bpf-jit off bpf-fallback pcp");
	assert_int_equal(ibex_dp_bpf_view(dp, IN, &v), 0);
	assert_false(v.jit);
	f.ecn = 1;
	assert_int_equal(send_one(&f), 6);
	f.ecn = 2;
	assert_int_equal(send_one(&f), 3);
	log = tmpfile();
	assert_non_null(log);
	rte_openlog_stream(log);
	assert_int_equal(ibex_dp_bpf_view(dp, IN, &v0), 0);
	f.ecn = 0;
	f.vlan = 1;
	f.pcp = 5;
	send_many(&f, 10000);
	assert_int_equal(ibex_dp_bpf_view(dp, IN, &v), 0);
	rte_openlog_stream(prev);
	rewind(log);
	while (fgets(line, sizeof(line), log) != NULL) {
		if (lines++ < 3)
			printf("log: %s", line);
	}
	fclose(log);
	printf("10000 not-ECT frames: bad %" PRIu64 ", sl 0 %" PRIu64
	       ", %u log lines\n", v.cnt.bad - v0.cnt.bad,
	       v.cnt.sl[0] - v0.cnt.sl[0], lines);
	assert_int_equal(v.cnt.bad - v0.cnt.bad, 10000);
	assert_true(lines <= 2);
	/* The fallback classified them: tagged PCP 5 -> SL 5. */
	assert_int_equal(send_one(&f), 5);
	/* JIT-ed, the same verdict. */
	use_prog(A_DIV0, NULL, "bpf-jit on");
	assert_int_equal(ibex_dp_bpf_view(dp, IN, &v0), 0);
	assert_int_equal(send_one(&f), 5);
	assert_int_equal(ibex_dp_bpf_view(dp, IN, &v), 0);
	assert_int_equal(v.cnt.bad - v0.cnt.bad, 1);
}

/* Removing the program: back to the built-in classifier. */
static void
test_remove(void **state)
{
	struct ibex_dp_bpf_view v;
	struct fr f = roce4;

	(void)state;
	use_prog(A_QP, NULL, NULL);
	f.qp = 0x150;
	assert_int_equal(send_one(&f), 2);
	use("sl-from pcp");
	assert_int_equal(ibex_dp_bpf_view(dp, IN, &v), 0);
	assert_false(v.on);
	assert_int_equal(send_one(&f), 0);
	f.vlan = 1;
	f.pcp = 5;
	assert_int_equal(send_one(&f), 5);
}

/* Live replace under load: SWAPS changes among three programs that all put
 * the flow on lossless SL 2 (and, in between, refused ones) while frames
 * keep coming; every frame arrives, in PSN order, and nothing is dropped. */
#define SWAPS 40
#define SWAP_FRAMES 200000

static void
test_live_swap(void **state)
{
	static struct dp_harness_snap b;
	struct ibex_lane_counters l;
	struct ibex_port_counters pc;
	struct fr f = roce4;
	uint8_t tmpl[256];
	struct rte_mbuf *m;
	uint64_t fed = 0, got = 0, reordered = 0, deadline;
	uint32_t last = 0, psn_off;
	struct ibex_pkt_info info;
	unsigned int swaps = 0, r;
	char err[1024];

	(void)state;
	use_prog(A_QP, NULL, NULL);
	drain_tx();
	dp_harness_snap(dp, &b);
	f.qp = 0x150;
	f.dscp = 16;
	m = fr_build(&f);
	memcpy(tmpl, rte_pktmbuf_mtod(m, void *), m->data_len);
	assert_int_equal(ibex_pkt_parse(tmpl, m->data_len, &info), IBEX_R_OK);
	psn_off = info.bth_off + 9u;
	rte_pktmbuf_free(m);
	deadline = rte_rdtsc() + 120 * rte_get_tsc_hz();
	while ((got < SWAP_FRAMES) && rte_rdtsc() < deadline) {
		struct rte_mbuf *out[64];
		unsigned int n, i;

		while (fed < SWAP_FRAMES && fed - got < RING_SIZE / 2) {
			uint8_t *p;

			m = rte_pktmbuf_alloc(test_pool);
			if (m == NULL)
				break;
			p = (uint8_t *)rte_pktmbuf_append(m, 128);
			memcpy(p, tmpl, 128);
			p[psn_off] = (uint8_t)(fed >> 16);
			p[psn_off + 1] = (uint8_t)(fed >> 8);
			p[psn_off + 2] = (uint8_t)fed;
			if (rte_ring_enqueue(rxr[IN], m) != 0) {
				rte_pktmbuf_free(m);
				break;
			}
			fed++;
		}
		n = rte_ring_dequeue_burst(txr[OUT], (void **)out, 64, NULL);
		for (i = 0; i < n; i++) {
			const uint8_t *e = rte_pktmbuf_mtod(out[i], uint8_t *);
			uint32_t psn = ibex_bth_psn(e + info.bth_off);

			if (e[12] == 0x88) {       /* PFC from ibex */
				continue;
			}
			if (got > 0 && psn != ((last + 1) & 0xffffff))
				reordered++;
			last = psn;
			got++;
		}
		rte_pktmbuf_free_bulk(out, n);
		/* A change every SWAP_FRAMES / SWAPS frames, some refused. */
		if (swaps < SWAPS && got >= (swaps + 1) *
		    (uint64_t)(SWAP_FRAMES / (SWAPS + 1))) {
			switch (swaps % 4) {
			case 0:
				use_prog(A_DSCP, "ibex/dscp_cnp", NULL);
				break;
			case 1:
				use_prog(A_QP, NULL, "bpf-jit off bpf-fallback pcp");
				break;
			case 2:
				snprintf(err, sizeof(err), "sl-from bpf %s",
					 obj[A_OOB]);
				assert_int_equal(set_port(err, err,
							  sizeof(err)), -1);
				break;
			default:
				use_prog(A_QP, NULL, "bpf-jit on");
				break;
			}
			swaps++;
		}
	}
	dp_harness_lane_delta(&b, OUT, 2, &l);
	dp_harness_port_delta(&b, IN, &pc);
	printf("live swap: %u changes, %" PRIu64 " fed, %" PRIu64
	       " delivered, %" PRIu64 " out of order, lane 2: %" PRIu64
	       " cut through, %" PRIu64 " queued\n", swaps, fed, got,
	       reordered, l.cut_through, l.queued);
	assert_int_equal(swaps, SWAPS);
	assert_int_equal(got, fed);
	assert_int_equal(reordered, 0);
	assert_int_equal(l.drops, 0);
	assert_int_equal(l.tx_pkts, fed);
	for (r = 1; r < IBEX_R_MAX; r++)
		assert_int_equal(pc.drop[r], 0);
}

/* The frame of @p s, @p len bytes, as a chain of 2048-byte segments (as
 * net_pcap and NICs with scatter RX deliver a jumbo frame). */
static struct rte_mbuf *
chain_build(struct ibex_pkt_spec *s, uint32_t len)
{
	static uint8_t buf[9216];
	struct rte_mbuf *head = NULL;
	uint32_t off = 0;

	s->frame_len = len;
	assert_int_equal(ibex_pkt_build(buf, sizeof(buf), s), (int)len);
	while (off < len) {
		uint32_t n = RTE_MIN(2048u, len - off);
		struct rte_mbuf *m = rte_pktmbuf_alloc(test_pool);
		char *p;

		assert_non_null(m);
		p = rte_pktmbuf_append(m, (uint16_t)n);
		assert_non_null(p);
		memcpy(p, buf + off, n);
		off += n;
		if (head == NULL)
			head = m;
		else
			assert_int_equal(rte_pktmbuf_chain(head, m), 0);
	}
	assert_true(head->nb_segs > 1);
	return head;
}

/*
 * Valid jumbo frames through a classifier port: each leaves on lane 0 (the
 * program's SL 0), none is dropped. The classifier's parse once read only
 * the first segment and dropped them as ip4-totlen / ip6-paylen.
 */
static void
test_jumbo_chained(void **state)
{
	struct ibex_pkt_spec s = {
		.vlan = -1, .udp = true, .sport = 49152, .dport = 9,
		.src_ip4 = 0x0a000001, .dst_ip4 = 0x0a000101,
		.bth_opcode = 0x04, .dest_qp = 0x999,
	};
	struct ibex_dp_bpf_view v0, v;

	(void)state;
	use_prog(A_SL0, NULL, NULL);
	assert_int_equal(ibex_dp_bpf_view(dp, IN, &v0), 0);
	memcpy(s.dst, mac_dst, 6);
	s.src[0] = 0x02;
	s.src[5] = 0x01;
	s.src_ip6[15] = 1;
	s.dst_ip6[15] = 2;
	s.l3 = IBEX_L3_IPV4;
	assert_int_equal(send_mbuf(chain_build(&s, 9000)), 0);
	s.roce = true;
	s.dport = IBEX_UDP_PORT_ROCEV2;
	assert_int_equal(send_mbuf(chain_build(&s, 14 + 20 + 8 + 12 + 4096 +
						  4)), 0);
	s.roce = false;
	s.dport = 9;
	s.l3 = IBEX_L3_IPV6;
	assert_int_equal(send_mbuf(chain_build(&s, 8062)), 0);
	assert_int_equal(ibex_dp_bpf_view(dp, IN, &v), 0);
	assert_int_equal(v.cnt.sl[0] - v0.cnt.sl[0], 3);
}

static int
group_setup(void **state)
{
	char err[512];
	int ret;

	(void)state;
	test_pool = dp_harness_group_start("test_dp_bpf", "512", 8192, &base, "b",
					   NB_PORTS, RING_SIZE, RING_SIZE * 4, rxr, txr);
	if (test_pool == NULL)
		return -1;
	ret = ibex_conf_parse_string(&base,
		"port r0 vls 15 fc pfc mtu 9000\n"
		"port r1 vls 15 fc pfc mtu 9000\n"
		"lane r0 vl 2 lossless\n"
		"lane r1 vl 2 lossless\n"
		"fdb static 02:00:00:00:0d:01 port r1 vlan 1\n"
		"fdb learning off\n", "test", err, sizeof(err));
	if (ret < 0 || ibex_conf_finish(&base, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	base.nb_workers = 1;
	if (ibex_dp_create(&dp, &base, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		ibex_dp_destroy(dp);
		dp = NULL;
		return -1;
	}
	dp_harness_workers_start(dp);
	return 0;
}

static int
group_teardown(void **state)
{
	(void)state;
	if (dp != NULL) {
		dp_harness_workers_stop(dp);
		dp_harness_rings_flush(rxr, txr, NB_PORTS);
		ibex_dp_destroy(dp);
	}
	rte_eal_cleanup();
	return 0;
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_qp_range),
		cmocka_unit_test(test_interpreter),
		cmocka_unit_test(test_dscp_cnp),
		cmocka_unit_test(test_ctx_parts),
		cmocka_unit_test(test_drop_udp),
		cmocka_unit_test(test_bad_verdict),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_div0),
		cmocka_unit_test(test_remove),
		cmocka_unit_test(test_live_swap),
		cmocka_unit_test(test_jumbo_chained),
	};
	int i;

	if (argc != 1 + A_NB) {
		fprintf(stderr, "usage: %s qp_range.o dscp_cnp.o drop_udp.o "
			"oob.o global.o badret.o rawtos.o sl0.o not-elf "
			"branches.o rules.o div0.o\n", argv[0]);
		return 2;
	}
	for (i = 0; i < A_NB; i++)
		obj[i] = argv[1 + i];
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
