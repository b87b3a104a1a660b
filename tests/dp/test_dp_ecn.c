/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ECN marking on the data path, with EAL (--no-huge) and net_ring ports.
 *
 * A shaped egress port (200 Mb/s) is fed far faster than it sends, so its
 * lane 0 stays full: every frame the arbiter takes leaves exactly the
 * lane's bound minus one frame behind it. All frames are 1024 bytes (16
 * blocks), so a bound of 16 * (d + 1) blocks holds the backlog seen by the
 * marking decision at d frames. With one fixed curve, each depth d has a
 * known probability p(d * 1024), and the fraction of ECT frames that reach
 * the sink as CE must match it:
 *
 *  - standing backlog at several depths (below Kmin, on Kmin, between,
 *    on Kmax, above Kmax): measured CE fraction within a binomial bound of
 *    the curve; exactly 0 at or below Kmin;
 *  - a mix of IPv4 RoCEv2 ECT(0), IPv4 UDP ECT(1) with IP options, IPv4
 *    Not-ECT, IPv4 CE, IPv6 RoCEv2 ECT(0): Not-ECT frames never change,
 *    CE stays CE and is not counted as marked, IPv6 frames are marked,
 *    BTH FECN is set on exactly the RoCEv2 frames marked CE (fecn on);
 *  - every frame is byte-identical to what was sent except the ECN bits,
 *    the IPv4 checksum (which must be valid) and FECN; the frames of one
 *    run are written to a pcap and tshark must find no bad IPv4 checksum;
 *  - the lane counters (ECN seen by codepoint, marked, FECN marked) agree
 *    exactly with what the sink saw;
 *  - cut-through frames (an idle, unshaped port) never reach the decision;
 *  - a flooded frame (one mbuf shared by two egress ports) is never marked
 *    while shared, and the marked counter still equals the CE frames sent.
 *
 * The main lcore feeds the RX ring and drains the TX rings while one worker
 * runs on lcore 1. With IBEX_ECN_TABLE=FILE in the environment the depth
 * sweep also writes its table there (tests/bench/ecn_dp_curve.sh plots it).
 */

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include <cmocka.h>
#include <pcap/pcap.h>

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

#define NB_PORTS 3
#define IN 0             /* the ingress port */
#define OUT 1            /* the shaped egress port */
#define OUT2 2           /* second egress port (flooding only) */
#define RING_SIZE 1024
#define FRAME_LEN 1024   /* 16 blocks: the backlog is a whole number of frames */
#define FRAME_BLOCKS (FRAME_LEN / 64)
#define SHAPE_BPS UINT64_C(200000000)
/* Largest lane bound the tests use, given at start so it may grow live. */
#define MAX_BLOCKS 16384

/* The curve of the depth sweep: Kmin 16 frames, Kmax 96 frames, Pmax 0.5,
 * so a backlog of d frames (16 <= d <= 96) marks with 0.5 * (d - 16) / 80:
 * 0.3 at 64 frames. */
#define KMIN (16 * FRAME_LEN)
#define KMAX (96 * FRAME_LEN)
#define PMAX 0.5

static struct rte_ring *rxr[NB_PORTS], *txr[NB_PORTS];
static struct rte_mempool *test_pool;
static struct ibex_dp *dp;
static struct ibex_conf base;

static const uint8_t mac_dst[6] = { 0x02, 0, 0, 0, 0x0d, 0x01 };
static const uint8_t mac_unknown[6] = { 0x02, 0, 0, 0, 0x0d, 0x99 };

/* The traffic mix; the source is the last byte of the source MAC. */
enum src_kind {
	S_V4_ROCE_ECT0,
	S_V4_UDP_ECT1,   /* with 8 bytes of IPv4 options */
	S_V4_NOT_ECT,
	S_V4_CE,
	S_V6_ROCE_ECT0,
	S_COUNT,
};

static const char *const src_name[S_COUNT] = {
	"ipv4 rocev2 ect(0)", "ipv4 udp ect(1) +opts", "ipv4 not-ect",
	"ipv4 ce", "ipv6 rocev2 ect(0)",
};

struct source {
	uint8_t tmpl[FRAME_LEN];
	struct ibex_pkt_info info;
	uint8_t ecn;
	bool roce;
	uint32_t psn;
};

static struct source src[S_COUNT];
static uint64_t qhist[128];

/* What the sink saw, per source. */
struct tally {
	uint64_t frames[S_COUNT];
	uint64_t ce[S_COUNT];      /* arrived CE */
	uint64_t fecn[S_COUNT];    /* arrived with BTH FECN */
	uint64_t bad;              /* changed beyond ECN / checksum / FECN */
	uint64_t bad_csum;         /* IPv4 header checksum wrong */
};

struct sink {
	int last_src;              /* the frame sink_check saw last */
	bool last_ce;
	struct tally all;          /* the whole run */
	struct tally win;          /* after the warm-up */
	pcap_dumper_t *pcap;       /* NULL: no capture */
	uint64_t pcap_left;
	uint64_t pcap_frames;
	uint64_t pcap_ce;
};

static void
sources_build(bool unknown_dst)
{
	unsigned int i;

	for (i = 0; i < S_COUNT; i++) {
		struct ibex_pkt_spec s = {
			.vlan = 1, .pcp = 0, .l3 = IBEX_L3_IPV4,
			.src_ip4 = 0x0a000001 + i, .dst_ip4 = 0x0a000101,
			.sport = (uint16_t)(49152 + i), .dport = 7000,
			.udp = true, .dest_qp = 0x100,
			.frame_len = FRAME_LEN, .ttl = 64,
		};
		struct source *so = &src[i];

		memcpy(s.dst, unknown_dst ? mac_unknown : mac_dst, 6);
		s.src[0] = 0x02;
		s.src[4] = 0x0a;
		s.src[5] = (uint8_t)i;
		switch (i) {
		case S_V4_ROCE_ECT0:
			s.roce = true;
			s.ecn = IBEX_ECN_ECT0;
			break;
		case S_V4_UDP_ECT1:
			s.ecn = IBEX_ECN_ECT1;
			s.ip4_opt_words = 2;
			break;
		case S_V4_NOT_ECT:
			s.ecn = IBEX_ECN_NOT_ECT;
			break;
		case S_V4_CE:
			s.ecn = IBEX_ECN_CE;
			break;
		case S_V6_ROCE_ECT0:
			s.l3 = IBEX_L3_IPV6;
			s.roce = true;
			s.ecn = IBEX_ECN_ECT0;
			s.src_ip6[0] = 0xfd;
			s.src_ip6[15] = (uint8_t)(1 + i);
			s.dst_ip6[0] = 0xfd;
			s.dst_ip6[15] = 0x99;
			break;
		}
		/* Distinct DSCP bits around the ECN field: marking must
		 * leave them alone. */
		s.dscp = 0x2e;
		assert_int_equal(ibex_pkt_build(so->tmpl, FRAME_LEN, &s),
				 FRAME_LEN);
		assert_int_equal(ibex_pkt_parse(so->tmpl, FRAME_LEN, &so->info),
				 IBEX_R_OK);
		assert_int_equal(so->info.ecn, s.ecn);
		so->ecn = s.ecn;
		so->roce = s.roce;
		assert_true(so->roce == ((so->info.flags & IBEX_PKT_F_ROCE) != 0));
		so->psn = 0;
	}
}

static struct rte_mbuf *
source_frame(struct source *so)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(test_pool);
	uint8_t *p;

	if (m == NULL)
		return NULL;
	p = (uint8_t *)rte_pktmbuf_append(m, FRAME_LEN);
	rte_memcpy(p, so->tmpl, FRAME_LEN);
	if (so->roce) {
		uint8_t *psn = p + so->info.bth_off + 9;

		psn[0] = (uint8_t)(so->psn >> 16);
		psn[1] = (uint8_t)(so->psn >> 8);
		psn[2] = (uint8_t)so->psn;
	}
	return m;
}

/* Keep the ingress ring full, the sources in round-robin. */
static void
feed(void)
{
	static unsigned int next;
	unsigned int k;

	for (k = 0; k < 64 && rte_ring_free_count(rxr[IN]) != 0; k++) {
		struct source *so = &src[next];
		struct rte_mbuf *m = source_frame(so);

		if (m == NULL)
			return;
		if (rte_ring_enqueue(rxr[IN], m) != 0) {
			rte_pktmbuf_free(m);
			return;
		}
		so->psn = (so->psn + 1) & 0xffffff;
		next = (next + 1) % S_COUNT;
	}
}

/*
 * Check one delivered frame against its template: the ECN field may only
 * have gone from ECT to CE, the IPv4 checksum must be valid, FECN may only
 * be set on a RoCEv2 frame, and nothing else may differ.
 */
static void
sink_check(struct sink *k, const uint8_t *eth, uint32_t len, bool win)
{
	struct ibex_pkt_info info;
	uint8_t copy[FRAME_LEN];
	unsigned int s = eth[11];
	const struct source *so;
	bool ce, fecn = false;

	k->last_src = -1;
	if (s >= S_COUNT || len != FRAME_LEN ||
	    ibex_pkt_parse(eth, len, &info) != IBEX_R_OK) {
		k->all.bad++;
		return;
	}
	so = &src[s];
	ce = info.ecn == IBEX_ECN_CE;
	if (info.ecn != so->ecn && !(ce && so->ecn != IBEX_ECN_NOT_ECT))
		k->all.bad++;
	if (info.l3 == IBEX_L3_IPV4) {
		const uint8_t *ip = eth + info.l3_off;

		if (ibex_csum_fold(ip, (ip[0] & 0xfu) * 4u, 0) != 0xffff)
			k->all.bad_csum++;
	}
	memcpy(copy, eth, FRAME_LEN);
	if (so->roce) {
		uint8_t *bth = copy + info.bth_off;

		fecn = ibex_bth_fecn(bth);
		if (fecn)
			bth[4] &= 0x7f;
		/* The PSN is the only byte the feeder stamps. */
		memcpy(bth + 9, so->tmpl + so->info.bth_off + 9, 3);
	}
	/* Undo the mark the way the switch made it (incremental checksum
	 * update): the result must be the template to the byte. */
	ibex_pkt_set_ecn(copy, &info, so->ecn);
	if (memcmp(copy, so->tmpl, FRAME_LEN) != 0)
		k->all.bad++;
	k->last_src = (int)s;
	k->last_ce = ce;
	k->all.frames[s]++;
	k->all.ce[s] += ce;
	k->all.fecn[s] += fecn;
	if (win) {
		k->win.frames[s]++;
		k->win.ce[s] += ce;
		k->win.fecn[s] += fecn;
	}
}

static void
sink_drain(struct sink *k, unsigned int port, bool win)
{
	struct rte_mbuf *m[64];
	unsigned int n, i;

	while ((n = rte_ring_dequeue_burst(txr[port], (void **)m, 64,
					   NULL)) != 0) {
		for (i = 0; i < n; i++) {
			const uint8_t *eth = rte_pktmbuf_mtod(m[i], uint8_t *);

			sink_check(k, eth, m[i]->data_len, win);
			if (k->pcap != NULL && k->pcap_left != 0) {
				struct pcap_pkthdr h = {
					.caplen = m[i]->data_len,
					.len = m[i]->pkt_len,
				};

				gettimeofday(&h.ts, NULL);
				pcap_dump((u_char *)k->pcap, &h, eth);
				k->pcap_left--;
				k->pcap_frames++;
				k->pcap_ce += (eth[11] < S_COUNT &&
					       src[eth[11]].ecn != IBEX_ECN_CE &&
					       ((eth[11] == S_V6_ROCE_ECT0 ?
						 (eth[19] >> 4) :
						 eth[19]) & 3) == 3);
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
 * Feed for @p ms, counting the window after @p warm_ms. @p paced feeds one
 * frame per @p gap_us instead of keeping the ring full. The largest lane
 * backlog seen meanwhile goes to @p max_qlen; with @p until_qlen the run
 * goes on until the backlog reached it (a starved worker may not fill the
 * lane in the time; at most 20 times @p ms).
 */
static void
run_traffic_until(struct sink *k, uint32_t warm_ms, uint32_t ms,
		  uint32_t gap_us, bool both_ports, uint64_t *max_qlen,
		  uint64_t until_qlen)
{
	uint64_t hz = rte_get_tsc_hz(), t0 = rte_rdtsc();
	uint64_t warm = t0 + hz * warm_ms / 1000, end = t0 + hz * ms / 1000;
	uint64_t cap = t0 + hz * ms / 1000 * 20;
	uint64_t gap = hz * gap_us / 1000000, next = t0, now, polls = 0;

	*max_qlen = 0;
	workers_start();
	while ((now = rte_rdtsc()) < end ||
	       (*max_qlen < until_qlen && now < cap)) {
		if (gap == 0) {
			feed();
		} else if (now >= next) {
			struct rte_mbuf *m = source_frame(&src[S_V4_ROCE_ECT0]);

			assert_non_null(m);
			if (rte_ring_enqueue(rxr[IN], m) != 0)
				rte_pktmbuf_free(m);
			next += gap;
		}
		sink_drain(k, OUT, now >= warm);
		if (both_ports)
			sink_drain(k, OUT2, now >= warm);
		if ((++polls & 63) == 0 && now >= warm) {
			struct ibex_lane_counters c;

			ibex_dp_lane_totals(dp, OUT, 0, &c);
			if (c.qlen_bytes > *max_qlen)
				*max_qlen = c.qlen_bytes;
			qhist[RTE_MIN(c.qlen_bytes / FRAME_LEN, (uint64_t)127)]++;
		}
	}
	workers_stop();
	sink_drain(k, OUT, false);
	if (both_ports)
		sink_drain(k, OUT2, false);
	rings_flush();
}

static void
run_traffic(struct sink *k, uint32_t warm_ms, uint32_t ms, uint32_t gap_us,
	    bool both_ports, uint64_t *max_qlen)
{
	run_traffic_until(k, warm_ms, ms, gap_us, both_ports, max_qlen, 0);
}

static void
apply(const struct ibex_conf *c)
{
	char err[512];

	if (dp_harness_apply(dp, c, err, sizeof(err)) < 0)
		fail_msg("reconfigure: %s", err);
}

/* Lane 0 of @p port: the sweep's curve, fecn on, bound @p blocks. */
static void
conf_lane(struct ibex_conf *c, unsigned int port, uint64_t shape,
	  uint32_t blocks, uint32_t kmin, uint32_t kmax, double pmax)
{
	struct ibex_conf_port *p = &c->ports[port];
	struct ibex_conf_ecn *e = &p->ecn[0];

	p->shape_bps = shape;
	p->vl_queue_blocks = blocks;
	memset(e, 0, sizeof(*e));
	e->set = true;
	e->enabled = true;
	e->fecn = true;
	e->cfg.kmin = kmin;
	e->cfg.kmax = kmax;
	e->cfg.pmax = pmax;
	e->cfg.wq_log = 0;
	e->cfg.rate_bps = shape != 0 ? shape : UINT64_C(25000000000);
	e->cfg.avpkt = FRAME_LEN;
}

static void
lane_diff(unsigned int port, const struct ibex_lane_counters *b,
	  struct ibex_lane_counters *d)
{
	struct ibex_lane_counters a;

	ibex_dp_lane_totals(dp, (uint16_t)port, 0, &a);
	dp_harness_lane_diff(&a, b, d);
}

static int
group_setup(void **state)
{
	char err[512];
	int ret;

	(void)state;
	test_pool = dp_harness_group_start("test_dp_ecn", "1024", 16384, &base, "r",
					   NB_PORTS, RING_SIZE, RING_SIZE * 4, rxr, txr);
	if (test_pool == NULL)
		return -1;
	/* The destination lives behind r1; learning off, so the unknown
	 * destination of the flooding test stays unknown. */
	ret = ibex_conf_parse_string(&base,
		"fdb static 02:00:00:00:0d:01 port r1 vlan 1\n"
		"fdb learning off\n", "test", err, sizeof(err));
	if (ret < 0 || ibex_conf_finish(&base, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	base.nb_workers = 1;
	/* Whole-ring bursts: a preloaded ring enters the lane in four
	 * iterations (test_drain_curve relies on it). */
	base.burst = 256;
	base.ports[OUT].vl_queue_blocks = MAX_BLOCKS;
	base.ports[OUT2].vl_queue_blocks = MAX_BLOCKS;
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

/* The curve in doubles, independently of lib/ecn's fixed point. */
static double
curve(double q, double kmin, double kmax, double pmax)
{
	if (q <= kmin)
		return 0.0;
	if (q > kmax)
		return 1.0;
	return pmax * (q - kmin) / (kmax - kmin);
}

/* Run tshark over @p path: @return the number of frames that match
 * @p filter, or -1 when tshark is not there. */
static long
tshark_count(const char *path, const char *filter)
{
	char cmd[512], line[256];
	long n = 0;
	FILE *f;

	if (system("command -v tshark >/dev/null 2>&1") != 0)
		return -1;
	snprintf(cmd, sizeof(cmd),
		 "tshark -n -r '%s' -o ip.check_checksum:TRUE -Y '%s' "
		 "-T fields -e frame.number 2>/dev/null", path, filter);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f) != NULL)
		n++;
	assert_int_equal(pclose(f), 0);
	return n;
}

/*
 * One standing backlog, the way a congested port holds one: the feeder
 * keeps the ingress ring full, so the lane refills to its bound (d + 1
 * frames) before every dequeue and each decision sees d frames. Runs 1.3 s
 * (0.3 s warm-up) at a depth; frames of all kinds are checked, those of
 * the 0.3 depth also written to a pcap for tshark.
 *
 * Timing matters here, unlike in test_drain_curve: after the worker was
 * descheduled the shaper sends up to one bucket (16 frames) back to back,
 * so some decisions see up to 16 frames less; and when the feeder is
 * descheduled the lane drains. The measured fraction must therefore lie
 * between p(d - 16) and p(d) (with binomial slack), and a run is taken
 * only when the lane stood at its bound (by the queue gauge, sampled from
 * the main lcore) in at least 90% of the samples and the port sent at
 * least 90% of its shaped rate; up to four tries. When no try is clean
 * (a machine too busy to hold a queue) the fraction is not judged, only
 * the exact checks, and the output says so.
 */
#define STAND_FPS (SHAPE_BPS / 8 / (FRAME_LEN + 24))

struct stand_result {
	double got;
	uint64_t ect;
	bool clean;
};

static void
standing_run(unsigned int depth, const char *pcap_path, struct sink *k,
	     struct stand_result *r)
{
	struct ibex_conf c = base;
	struct ibex_lane_counters before, d;
	uint64_t ce = 0, max_qlen, sent_ce = 0, sent = 0, samples = 0, win = 0;
	pcap_t *pd = NULL;
	unsigned int s, b;

	conf_lane(&c, OUT, SHAPE_BPS, (depth + 1) * FRAME_BLOCKS,
		  KMIN, KMAX, PMAX);
	apply(&c);
	memset(k, 0, sizeof(*k));
	memset(r, 0, sizeof(*r));
	if (pcap_path != NULL) {
		pd = pcap_open_dead(DLT_EN10MB, 65535);
		assert_non_null(pd);
		k->pcap = pcap_dump_open(pd, pcap_path);
		assert_non_null(k->pcap);
		k->pcap_left = 20000;
	}
	memset(qhist, 0, sizeof(qhist));
	ibex_dp_lane_totals(dp, OUT, 0, &before);
	run_traffic_until(k, 300, 1300, 0, false, &max_qlen,
			  (uint64_t)(depth + 1) * FRAME_LEN);
	lane_diff(OUT, &before, &d);
	if (pd != NULL) {
		pcap_dump_close(k->pcap);
		pcap_close(pd);
		k->pcap = NULL;
	}

	/* Exact, whatever the timing. The lane never held more than its
	 * bound, and did reach it. */
	assert_int_equal(max_qlen, (uint64_t)(depth + 1) * FRAME_LEN);
	assert_int_equal(k->all.bad, 0);
	assert_int_equal(k->all.bad_csum, 0);
	/* Not-ECT untouched (also checked byte by byte); CE stays CE. */
	assert_true(k->all.frames[S_V4_NOT_ECT] > 0);
	assert_int_equal(k->all.ce[S_V4_NOT_ECT], 0);
	assert_int_equal(k->all.ce[S_V4_CE], k->all.frames[S_V4_CE]);
	for (s = 0; s < S_COUNT; s++) {
		/* FECN on exactly the RoCEv2 frames marked. */
		assert_int_equal(k->all.fecn[s],
				 src[s].roce ? k->all.ce[s] : 0);
		sent += k->all.frames[s];
		win += k->win.frames[s];
		if (src[s].ecn == IBEX_ECN_ECT0 ||
		    src[s].ecn == IBEX_ECN_ECT1) {
			r->ect += k->win.frames[s];
			ce += k->win.ce[s];
			sent_ce += k->all.ce[s];
		}
	}
	/* Counters: each frame that left the queue was decided once, by its
	 * codepoint; marked counts the CE frames the switch made. */
	assert_int_equal(d.ecn_seen[0] + d.ecn_seen[1] + d.ecn_seen[2] +
			 d.ecn_seen[3], sent - d.cut_through);
	assert_true(d.ecn_seen[0] > 0 && d.ecn_seen[1] > 0 &&
		    d.ecn_seen[2] > 0 && d.ecn_seen[3] > 0);
	assert_int_equal(d.ecn_marked, sent_ce);
	assert_int_equal(d.fecn_marked, k->all.fecn[S_V4_ROCE_ECT0] +
			 k->all.fecn[S_V6_ROCE_ECT0]);
	if (depth * FRAME_LEN <= KMIN)
		assert_int_equal(sent_ce, 0);

	for (b = 0; b < RTE_DIM(qhist); b++)
		samples += qhist[b];
	r->got = r->ect != 0 ? (double)ce / (double)r->ect : 0.0;
	r->clean = samples > 100 && qhist[depth + 1] * 10 >= samples * 9 &&
		   win * 10 >= STAND_FPS * 9;
	printf("  depth %3u: %" PRIu64 " frames/s, lane at its bound in "
	       "%.1f%% of %" PRIu64 " samples: %s\n", depth, win,
	       samples != 0 ? 100.0 * (double)qhist[depth + 1] /
	       (double)samples : 0.0, samples, r->clean ? "clean" : "disturbed");
}

static void
test_standing_backlog(void **state)
{
	/* At Kmin (never marks), 0.3 (between), beyond Kmax + one burst. */
	static const unsigned int depth[] = { 16, 64, 120 };
	char pcap_path[] = "/tmp/ibex_dp_ecn_XXXXXX.pcap";
	unsigned int i, s, t;
	int fd;

	(void)state;
	sources_build(false);
	fd = mkstemps(pcap_path, 5);
	assert_true(fd >= 0);
	close(fd);
	for (i = 0; i < RTE_DIM(depth); i++) {
		uint32_t q = depth[i] * FRAME_LEN;
		double hi = curve(q, KMIN, KMAX, PMAX);
		double lo = curve(q - 16 * FRAME_LEN, KMIN, KMAX, PMAX);
		struct stand_result r;
		struct sink k;
		double slack;
		long bad, marked_ts;

		for (t = 0; t < 4; t++) {
			standing_run(depth[i], depth[i] == 64 ? pcap_path :
				     NULL, &k, &r);
			if (r.clean)
				break;
		}
		slack = 6.0 * sqrt(0.25 / (double)RTE_MAX(r.ect, (uint64_t)1));
		printf("depth %u frames (%u bytes): p curve %.4f (%.4f at 16 "
		       "frames less), measured %.4f over %" PRIu64 " ECT "
		       "frames%s\n", depth[i], q, hi, lo, r.got, r.ect,
		       r.clean ? "" : " (no clean run: not judged)");
		if (r.clean) {
			assert_true(r.ect > 10000);
			assert_true(r.got >= lo - slack && r.got <= hi + slack);
			/* IPv6 frames are marked like IPv4 ones. */
			if (lo > 0.1) {
				double v6 = (double)k.win.ce[S_V6_ROCE_ECT0] /
					    (double)k.win.frames[S_V6_ROCE_ECT0];

				assert_true(v6 >= lo - 3 * slack &&
					    v6 <= hi + 3 * slack);
			}
		}
		if (depth[i] != 64)
			continue;
		for (s = 0; s < S_COUNT; s++)
			printf("    %-22s %8" PRIu64 " frames %8" PRIu64
			       " CE %8" PRIu64 " FECN\n", src_name[s],
			       k.win.frames[s], k.win.ce[s], k.win.fecn[s]);
		/* IPv6 and RoCEv2 frames were marked at all. */
		assert_true(k.all.ce[S_V6_ROCE_ECT0] > 100);
		assert_true(k.all.fecn[S_V4_ROCE_ECT0] > 100);
		assert_true(k.pcap_frames > 1000);
		bad = tshark_count(pcap_path, "ip.checksum.status == \"Bad\"");
		marked_ts = tshark_count(pcap_path,
			"(ip.dsfield.ecn == 3 && ip.src != 10.0.0.4) || "
			"ipv6.tclass.ecn == 3");
		if (bad < 0) {
			printf("tshark not found: pcap check skipped\n");
		} else {
			printf("tshark: %" PRIu64 " frames, %ld bad IPv4 "
			       "checksums, %ld marked CE (sink: %" PRIu64 ")\n",
			       k.pcap_frames, bad, marked_ts, k.pcap_ce);
			assert_int_equal(bad, 0);
			assert_int_equal(marked_ts, (long)k.pcap_ce);
			assert_true(marked_ts > 100);
		}
	}
	unlink(pcap_path);
}

/*
 * The curve at every backlog from 0 to 900 frames, exactly. A cycle puts
 * DRAIN_M frames into the ingress ring at once (one bulk enqueue: the
 * worker finds them all together) and waits until all have left. The first
 * ones cut through on the shaper's full bucket, the rest queue. Once all
 * are in the lane nothing more arrives, so the frame that leaves with j
 * frames after it in its cycle leaves exactly j * 1024 bytes behind: its
 * backlog is known without any timing, however the worker is scheduled.
 * Before that point the worker has run at most four iterations (bursts of
 * 256), each sending at most one shaper bucket (16 KiB, 16 frames), so
 * every frame with j < DRAIN_M - DRAIN_SKIP left after it.
 */
#define DRAIN_M 1000
#define DRAIN_SKIP 100
#define DRAIN_CYCLES 400
#define DRAIN_BIN 25             /* backlogs (frames) per table row */
#define DRAIN_KMIN 100000        /* bytes: the 25G default's Kmin and Kmax */
#define DRAIN_KMAX 400000
#define DRAIN_PMAX 0.6           /* 0.3 half-way */
#define DRAIN_J (DRAIN_M - DRAIN_SKIP)

static void
test_drain_curve(void **state)
{
	static struct rte_mbuf *burst[DRAIN_M];
	static int8_t cyc_src[DRAIN_M];
	static bool cyc_ce[DRAIN_M];
	static uint64_t n[DRAIN_J], c[DRAIN_J];
	const char *table = getenv("IBEX_ECN_TABLE");
	struct ibex_conf cf = base;
	struct ibex_lane_counters before, d;
	uint64_t sent_ce = 0, frames = 0;
	double tot_want = 0, tot_var = 0;
	uint64_t tot_got = 0;
	unsigned int cy, i, j, next = 0;
	struct sink k;
	FILE *tf = NULL;

	(void)state;
	sources_build(false);
	memset(n, 0, sizeof(n));
	memset(c, 0, sizeof(c));
	conf_lane(&cf, OUT, UINT64_C(1000000000), MAX_BLOCKS, DRAIN_KMIN,
		  DRAIN_KMAX, DRAIN_PMAX);
	apply(&cf);
	memset(&k, 0, sizeof(k));
	ibex_dp_lane_totals(dp, OUT, 0, &before);
	workers_start();
	for (cy = 0; cy < DRAIN_CYCLES; cy++) {
		uint64_t deadline = dp_harness_deadline(DP_HARNESS_WAIT_S);
		unsigned int got = 0;

		for (i = 0; i < DRAIN_M; i++) {
			burst[i] = source_frame(&src[next]);
			assert_non_null(burst[i]);
			src[next].psn = (src[next].psn + 1) & 0xffffff;
			next = (next + 1) % S_COUNT;
		}
		assert_int_equal(rte_ring_enqueue_bulk(rxr[IN], (void **)burst,
						       DRAIN_M, NULL), DRAIN_M);
		while (got < DRAIN_M && !dp_harness_expired(deadline)) {
			struct rte_mbuf *m[64];
			unsigned int nb, x;

			nb = rte_ring_dequeue_burst(txr[OUT], (void **)m, 64,
						    NULL);
			for (x = 0; x < nb && got < DRAIN_M; x++) {
				sink_check(&k, rte_pktmbuf_mtod(m[x], uint8_t *),
					   m[x]->data_len, true);
				cyc_src[got] = (int8_t)k.last_src;
				cyc_ce[got] = k.last_ce;
				got++;
			}
			rte_pktmbuf_free_bulk(m, nb);
			assert_true(x == nb);
		}
		/* No frame lost: the lane holds them all. */
		if (got != DRAIN_M) {
			struct ibex_port_counters pc;
			unsigned int r;

			lane_diff(OUT, &before, &d);
			ibex_dp_port_totals(dp, IN, &pc);
			struct ibex_lane_counters now;
			struct ibex_dp_worker_view w0, w1;

			ibex_dp_worker_view(dp, 0, &w0);

			rte_delay_ms(100);
			ibex_dp_lane_totals(dp, OUT, 0, &now);
			ibex_dp_worker_view(dp, 0, &w1);
			printf("cycle %u: %u of %u frames; lane drops %" PRIu64
			       ", queued %" PRIu64 ", cut through %" PRIu64
			       ", tx %" PRIu64 ", backlog %" PRIu64 " frames, "
			       "worker iterations in 100 ms %" PRIu64
			       ", pending %#" PRIx64 "\n", cy, got,
			       DRAIN_M, d.drops, d.queued, d.cut_through,
			       d.tx_pkts, now.qlen_pkts,
			       w1.iterations - w0.iterations, w1.pending_tx);
			for (r = 0; r < IBEX_R_MAX; r++)
				if (pc.drop[r] != 0)
					printf("  ingress drop %s: %" PRIu64
					       "\n", ibex_reason_name(r),
					       pc.drop[r]);
		}
		assert_int_equal(got, DRAIN_M);
		for (i = 0; i < DRAIN_M; i++) {
			int s = cyc_src[i];

			j = DRAIN_M - 1 - i;
			if (j >= DRAIN_J || s < 0)
				continue;
			if (src[s].ecn != IBEX_ECN_ECT0 &&
			    src[s].ecn != IBEX_ECN_ECT1)
				continue;
			n[j]++;
			c[j] += cyc_ce[i];
		}
	}
	workers_stop();
	lane_diff(OUT, &before, &d);
	assert_int_equal(k.all.bad, 0);
	assert_int_equal(k.all.bad_csum, 0);
	assert_int_equal(k.all.ce[S_V4_NOT_ECT], 0);
	assert_int_equal(k.all.ce[S_V4_CE], k.all.frames[S_V4_CE]);
	for (i = 0; i < S_COUNT; i++) {
		frames += k.all.frames[i];
		if (src[i].ecn == IBEX_ECN_ECT0 || src[i].ecn == IBEX_ECN_ECT1)
			sent_ce += k.all.ce[i];
	}
	assert_int_equal(frames, (uint64_t)DRAIN_M * DRAIN_CYCLES);
	/* Every queued frame was decided once; marked = CE made. */
	assert_int_equal(d.ecn_seen[0] + d.ecn_seen[1] + d.ecn_seen[2] +
			 d.ecn_seen[3], d.queued);
	assert_int_equal(d.queued + d.cut_through, frames);
	assert_int_equal(d.ecn_marked, sent_ce);

	if (table != NULL && table[0] != '\0') {
		tf = fopen(table, "w");
		assert_non_null(tf);
		fprintf(tf, "# kmin %u kmax %u pmax %.2f, %u-byte frames\n"
			"# backlog_from backlog_to(bytes) p_configured "
			"p_measured ect_frames\n", DRAIN_KMIN, DRAIN_KMAX,
			DRAIN_PMAX, FRAME_LEN);
	}
	printf("drain: %u cycles of %u frames, %" PRIu64 " queued\n",
	       DRAIN_CYCLES, DRAIN_M, d.queued);
	printf("%17s %10s %10s %9s %8s\n", "backlog (bytes)", "p curve",
	       "p measured", "bound", "ect");
	for (i = 0; i < DRAIN_J; i += DRAIN_BIN) {
		double want = 0, var = 0, bound;
		uint64_t nb = 0, cb = 0;

		for (j = i; j < i + DRAIN_BIN && j < DRAIN_J; j++) {
			double p = curve((double)j * FRAME_LEN, DRAIN_KMIN,
					 DRAIN_KMAX, DRAIN_PMAX);

			nb += n[j];
			cb += c[j];
			want += p * (double)n[j];
			var += p * (1.0 - p) * (double)n[j];
		}
		tot_want += want;
		tot_var += var;
		tot_got += cb;
		/* Five sigma of the sum of the draws; exact where p is
		 * 0 or 1 throughout the row. */
		bound = 5.0 * sqrt(var);
		printf("%8u-%8u %10.4f %10.4f %9.4f %8" PRIu64 "\n",
		       i * FRAME_LEN, (j - 1) * FRAME_LEN, want / (double)nb,
		       (double)cb / (double)nb, bound / (double)nb, nb);
		if (tf != NULL)
			fprintf(tf, "%u %u %.6f %.6f %" PRIu64 "\n",
				i * FRAME_LEN, (j - 1) * FRAME_LEN,
				want / (double)nb, (double)cb / (double)nb, nb);
		assert_true(nb > 1000);
		assert_true(fabs((double)cb - want) <= bound + 1e-9);
	}
	printf("all rows: %" PRIu64 " CE, expected %.1f +- %.1f\n", tot_got,
	       tot_want, sqrt(tot_var));
	assert_true(fabs((double)tot_got - tot_want) <= 5.0 * sqrt(tot_var));
	if (tf != NULL)
		fclose(tf);
	rings_flush();
}

/* An unshaped port at a light load: every frame cuts through and none
 * reaches the decision, however low the thresholds. */
static void
test_cut_through_skips_decision(void **state)
{
	struct ibex_conf c = base;
	struct ibex_lane_counters before, d;
	struct sink k;
	uint64_t max_qlen;
	unsigned int i;

	(void)state;
	sources_build(false);
	/* Kmin 0, Kmax one block, Pmax 1: any backlog at all marks. */
	conf_lane(&c, OUT, 0, MAX_BLOCKS, 0, 64, 1.0);
	apply(&c);
	memset(&k, 0, sizeof(k));
	ibex_dp_lane_totals(dp, OUT, 0, &before);
	run_traffic(&k, 0, 400, 50, false, &max_qlen);
	lane_diff(OUT, &before, &d);
	printf("cut-through: %" PRIu64 " frames, %" PRIu64 " queued, "
	       "%" PRIu64 " decided\n", d.tx_pkts, d.queued,
	       d.ecn_seen[0] + d.ecn_seen[1] + d.ecn_seen[2] + d.ecn_seen[3]);
	assert_true(d.tx_pkts > 1000);
	assert_int_equal(d.cut_through, d.tx_pkts);
	for (i = 0; i < 4; i++)
		assert_int_equal(d.ecn_seen[i], 0);
	assert_int_equal(d.ecn_marked, 0);
	assert_int_equal(k.all.ce[S_V4_ROCE_ECT0], 0);
	assert_int_equal(k.all.bad, 0);
}

/*
 * Flooding: an unknown destination goes to r1 and r2 as one mbuf with two
 * references. Both lanes are above Kmax (every ECT frame chosen). A copy
 * may be marked only once the other port is done with the mbuf; the marked
 * counter must equal the CE frames actually sent.
 */
static void
test_flood_shared_not_marked(void **state)
{
	struct ibex_conf c = base;
	struct ibex_lane_counters b1, b2, d1, d2;
	struct sink k;
	uint64_t max_qlen, sent_ce = 0;
	unsigned int s;

	(void)state;
	sources_build(true);
	/* Kmin 0, Kmax 2 frames: every frame behind 3 or more is chosen. */
	conf_lane(&c, OUT, SHAPE_BPS, 32 * FRAME_BLOCKS, 0, 2 * FRAME_LEN, 1.0);
	conf_lane(&c, OUT2, SHAPE_BPS, 32 * FRAME_BLOCKS, 0, 2 * FRAME_LEN, 1.0);
	apply(&c);
	memset(&k, 0, sizeof(k));
	ibex_dp_lane_totals(dp, OUT, 0, &b1);
	ibex_dp_lane_totals(dp, OUT2, 0, &b2);
	run_traffic(&k, 300, 1000, 0, true, &max_qlen);
	lane_diff(OUT, &b1, &d1);
	lane_diff(OUT2, &b2, &d2);
	for (s = 0; s < S_COUNT; s++)
		if (src[s].ecn == IBEX_ECN_ECT0 || src[s].ecn == IBEX_ECN_ECT1)
			sent_ce += k.all.ce[s];
	printf("flood: %" PRIu64 " + %" PRIu64 " frames sent, %" PRIu64
	       " ECT decided, %" PRIu64 " marked CE at the sinks, counters "
	       "%" PRIu64 " + %" PRIu64 "\n", d1.tx_pkts, d2.tx_pkts,
	       d1.ecn_seen[1] + d1.ecn_seen[2] + d2.ecn_seen[1] +
	       d2.ecn_seen[2], sent_ce, d1.ecn_marked, d2.ecn_marked);
	assert_true(d1.queued > 1000 && d2.queued > 1000);
	assert_int_equal(k.all.bad, 0);
	assert_int_equal(k.all.bad_csum, 0);
	assert_int_equal(k.all.ce[S_V4_NOT_ECT], 0);
	assert_int_equal(d1.ecn_marked + d2.ecn_marked, sent_ce);
	/* Only a copy that leaves last (the other sent, or dropped from a
	 * full lane) may be marked: never more than the ECT decisions. */
	assert_true(sent_ce <= d1.ecn_seen[1] + d1.ecn_seen[2] +
		    d2.ecn_seen[1] + d2.ecn_seen[2]);
}

/* After a failed assertion the worker may still run: stop it. */
static int
test_teardown(void **state)
{
	(void)state;
	workers_stop();
	rings_flush();
	return 0;
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
		cmocka_unit_test_teardown(test_cut_through_skips_decision, test_teardown),
		cmocka_unit_test_teardown(test_drain_curve, test_teardown),
		cmocka_unit_test_teardown(test_standing_backlog, test_teardown),
		cmocka_unit_test_teardown(test_flood_shared_not_marked, test_teardown),
		cmocka_unit_test(test_no_leak),
	};

	/* IBEX_ECN_ONLY=test_drain_curve runs one test (and the leak check
	 * needs the others' frames gone, so it is harmless alone). */
	if (getenv("IBEX_ECN_ONLY") != NULL)
		cmocka_set_test_filter(getenv("IBEX_ECN_ONLY"));
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
