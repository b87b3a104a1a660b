/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Link-level retry on net_ibexlink (llr=, docs/llr.md), with EAL
 * (--no-huge): pairs made with rte_vdev_init, frames numbered in their
 * payload, sent and received by this test on the main lcore.
 *
 *   test_dp_ibexlink_llr real     devargs; the lossless and dead links on
 *                                 the TSC, as the apps run them
 *   test_dp_ibexlink_llr virtual  the same links on the virtual clock,
 *                                 driven by the test's own executive:
 *                                 exact figures (goodput against the
 *                                 same link without LLR), the 19-bit
 *                                 sequence's wrap, and no stall (every
 *                                 event the links need is on the
 *                                 calendar)
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
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>

#include "dp_harness.h"
#include "ibex_clock.h"
#include "ibex_llr.h"
#include "ibexlink.h"

#define NB_MBUF   16383
#define BUF_SIZE  (2048 + RTE_PKTMBUF_HEADROOM)
#define MAGIC     0x11e7
#define BURST     32
/* The links of the runs: SONiC's 200G profile over 5 m of fibre. */
#define LINK      "rate=200G,delay=25ns"
#define RATE      200e9
#define FRAME_LEN 1000   /* DPDK's count: 1,024 bytes on the wire */
/*
 * On the TSC the LLR timers run in wall time while the ends are polled by
 * threads of a shared machine, tens of us apart: past the data age
 * (20 us) or after 3 replay timers (5 us) without an ACK the sender would
 * give up (counted, not lost silently, but not the lossless runs these
 * tests check). So the TSC runs take the preset with no data age, SAI's
 * longest replay timer and most replays; the virtual clock runs the
 * preset as it is.
 */
#define TSC_LLR   ",llr_data_age=0,llr_replay_timer=65535,llr_replay_count=255"
/* The dead link on the TSC: the preset's 3 replays, 65.5 us apart. */
#define TSC_DEAD  ",llr_data_age=0,llr_replay_timer=65535"

static struct rte_mempool *pool;
static int ts_off = -1;
static uint64_t ts_flag;
static unsigned int pair_seq;
static bool virt;

struct pair {
	char a[32], b[32];
	uint16_t pa, pb;
};

/* After Ethernet: the frame's number, then a pattern of it. */
struct probe {
	uint16_t magic;
	uint32_t seq;
} __attribute__((packed));

/*
 * ---- the virtual clock's executive ----
 *
 * As ibex-fabric's: a port is polled only when its owner was woken (a
 * frame or a CtlOS arriving, a timer of its own, its TX able to take
 * more), or when the sender has frames and was not refused; when a round
 * did nothing, time moves to the next wake. A wake the links fail to ask
 * for leaves a port unpolled, and the run stalls: the tests fail.
 */
struct wake {
	uint64_t t;
	uint32_t owner;
};

static struct wake *cal;
static size_t cal_n, cal_cap;
static bool due[2];             /* by owner: a's and b's ends */

static void
cal_push(uint64_t t, uint32_t owner)
{
	size_t i;

	if (cal_n == cal_cap) {
		cal_cap = cal_cap != 0 ? 2 * cal_cap : 4096;
		cal = realloc(cal, cal_cap * sizeof(*cal));
		if (cal == NULL)
			abort();
	}
	for (i = cal_n++; i > 0 && cal[(i - 1) / 2].t > t; i = (i - 1) / 2)
		cal[i] = cal[(i - 1) / 2];
	cal[i] = (struct wake){ t, owner };
}

static struct wake
cal_pop(void)
{
	struct wake top = cal[0], last = cal[--cal_n];
	size_t i = 0, c;

	while ((c = 2 * i + 1) < cal_n) {
		if (c + 1 < cal_n && cal[c + 1].t < cal[c].t)
			c++;
		if (cal[c].t >= last.t)
			break;
		cal[i] = cal[c];
		i = c;
	}
	if (cal_n != 0)
		cal[i] = last;
	return top;
}

static void
cal_wake(void *arg, uint32_t owner, uint64_t t)
{
	(void)arg;
	if (owner < RTE_DIM(due))
		cal_push(t, owner);
}

/* The owners woken by now are due. */
static void
cal_due(void)
{
	uint64_t now = ibex_clock_now();

	while (cal_n != 0 && cal[0].t <= now)
		due[cal_pop().owner] = true;
}

/* A round did nothing: time moves to the next wake. @return false when
 * there is none (nothing will ever happen again). */
static bool
cal_advance(void)
{
	if (cal_n == 0)
		return false;
	ibex_clock_set(cal[0].t);
	cal_due();
	return true;
}

/* ---- frames and pairs ---- */

static inline uint8_t
pattern(uint32_t i, uint32_t seq)
{
	return (uint8_t)(i ^ seq ^ (seq >> 8) ^ (seq >> 16) ^ (seq >> 24));
}

static struct rte_mbuf *
frame(uint32_t len, uint32_t seq)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	struct probe pr = { MAGIC, seq };
	uint8_t *d;
	uint32_t i;

	if (m == NULL)
		abort();
	d = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)len);
	if (d == NULL)
		abort();
	memset(d, 0x02, 6);
	memset(d + 6, 0x04, 6);
	d[12] = 0x88;
	d[13] = 0xb6;
	memcpy(d + 14, &pr, sizeof(pr));
	for (i = 14 + sizeof(pr); i < len; i++)
		d[i] = pattern(i, seq);
	return m;
}

/* The frame's number, or -1 when any byte of it is damaged. */
static int64_t
frame_seq(const struct rte_mbuf *m)
{
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
	struct probe pr;
	uint32_t i;

	memcpy(&pr, d + 14, sizeof(pr));
	if (memcmp(d, "\x02\x02\x02\x02\x02\x02\x04\x04\x04\x04\x04\x04",
		   12) != 0 || d[12] != 0x88 || d[13] != 0xb6 ||
	    pr.magic != MAGIC)
		return -1;
	for (i = 14 + sizeof(pr); i < rte_pktmbuf_data_len(m); i++)
		if (d[i] != pattern(i, pr.seq))
			return -1;
	return pr.seq;
}

static int
port_up(uint16_t pid, uint16_t nb_txq)
{
	struct rte_eth_conf conf = { 0 };
	uint16_t q;

	conf.rxmode.offloads = RTE_ETH_RX_OFFLOAD_TIMESTAMP;
	if (rte_eth_dev_configure(pid, 1, nb_txq, &conf) != 0 ||
	    rte_eth_rx_queue_setup(pid, 0, 1024, 0, NULL, pool) != 0)
		return -1;
	for (q = 0; q < nb_txq; q++)
		if (rte_eth_tx_queue_setup(pid, q, 512, 0, NULL) != 0)
			return -1;
	return rte_eth_dev_start(pid);
}

/* A pair: "a" with @p args_a and @p nb_txq TX queues, "b" naming it as
 * peer plus @p args_b; under the virtual clock each end its own owner of
 * wakes. */
static void
pair_open_mq(struct pair *p, const char *args_a, const char *args_b,
	     uint16_t nb_txq)
{
	char bargs[256];

	snprintf(p->a, sizeof(p->a), "net_ibexlink%u", pair_seq++);
	snprintf(p->b, sizeof(p->b), "net_ibexlink%u", pair_seq++);
	snprintf(bargs, sizeof(bargs), "peer=%s%s%s", p->a,
		 args_b[0] ? "," : "", args_b);
	assert_int_equal(rte_vdev_init(p->a, args_a), 0);
	assert_int_equal(rte_vdev_init(p->b, bargs), 0);
	assert_int_equal(rte_eth_dev_get_port_by_name(p->a, &p->pa), 0);
	assert_int_equal(rte_eth_dev_get_port_by_name(p->b, &p->pb), 0);
	if (virt) {
		ibexlink_port_set_owner(ibexlink_port_of(p->pa), 0);
		ibexlink_port_set_owner(ibexlink_port_of(p->pb), 1);
		due[0] = due[1] = true;
	}
	assert_int_equal(port_up(p->pa, nb_txq), 0);
	assert_int_equal(port_up(p->pb, 1), 0);
	if (ts_off < 0)
		assert_int_equal(rte_mbuf_dyn_rx_timestamp_register(&ts_off,
								    &ts_flag),
				 0);
}

static void
pair_open(struct pair *p, const char *args_a, const char *args_b)
{
	pair_open_mq(p, args_a, args_b, 1);
}

static void
pair_close(struct pair *p)
{
	assert_int_equal(rte_eth_dev_stop(p->pa), 0);
	assert_int_equal(rte_eth_dev_stop(p->pb), 0);
	assert_int_equal(rte_vdev_uninit(p->a), 0);
	assert_int_equal(rte_vdev_uninit(p->b), 0);
}

static uint64_t
xstat(uint16_t pid, const char *name)
{
	uint64_t id, v;

	if (rte_eth_xstats_get_id_by_name(pid, name, &id) != 0)
		fail_msg("port %u has no xstat %s", pid, name);
	assert_int_equal(rte_eth_xstats_get_by_id(pid, &id, &v, 1), 1);
	return v;
}

static bool
has_xstat(uint16_t pid, const char *name)
{
	uint64_t id;

	return rte_eth_xstats_get_id_by_name(pid, name, &id) == 0;
}

/* ---- a stream of numbered frames from a to b ---- */

struct stream {
	uint16_t pa, pb;
	uint64_t n;             /* frames to offer */
	uint64_t offered;       /* taken by a's tx_burst */
	uint64_t next[2];       /* next number b should see, per lane */
	uint64_t split;         /* numbers from here on: lane 1 */
	uint64_t delivered;     /* in order and intact */
	uint64_t gaps;          /* numbers skipped (frames missing) */
	uint64_t behind;        /* a number seen again or late */
	uint64_t damaged;       /* delivered with a byte changed */
	uint64_t t_last;        /* arrival of the last frame, ps */
	uint64_t refused;       /* tx_burst calls that took none */
	bool ready;             /* a took all it was offered: it goes on */
	struct rte_mbuf *pend[BURST];
	unsigned int npend;
};

static void
stream_rx(struct stream *s, struct rte_mbuf **b, uint16_t k)
{
	uint16_t i;

	for (i = 0; i < k; i++) {
		int64_t q = frame_seq(b[i]);

		s->t_last = *RTE_MBUF_DYNFIELD(b[i], ts_off,
					       rte_mbuf_timestamp_t *);
		if (q < 0) {
			s->damaged++;
		} else {
			uint64_t *nx = &s->next[(uint64_t)q >= s->split];

			if ((uint64_t)q >= *nx) {
				s->gaps += (uint64_t)q - *nx;
				*nx = (uint64_t)q + 1;
				s->delivered++;
			} else {
				s->behind++;
			}
		}
	}
	rte_pktmbuf_free_bulk(b, k);
}

/* a offers what it has not yet taken. @return whether it took any. */
static bool
stream_send(struct stream *s)
{
	uint16_t k, i;
	unsigned int want;

	while (s->npend < BURST && s->offered + s->npend < s->n) {
		s->pend[s->npend] = frame(FRAME_LEN,
					  (uint32_t)(s->offered + s->npend));
		s->npend++;
	}
	if (s->npend == 0)
		return false;
	want = s->npend;
	k = rte_eth_tx_burst(s->pa, 0, s->pend, (uint16_t)s->npend);
	for (i = k; i < s->npend; i++)
		s->pend[i - k] = s->pend[i];
	s->npend -= k;
	s->offered += k;
	s->refused += k == 0;
	/* refused: wait for a wake of a (virtual clock) */
	s->ready = k == want && s->offered < s->n;
	return k != 0;
}

/* @p pid receives: b checks, a frees (its CtlOS are the MAC's). @return
 * frames received. */
static uint16_t
stream_recv(struct stream *s, uint16_t pid)
{
	struct rte_mbuf *b[64];
	uint16_t k = rte_eth_rx_burst(pid, 0, b, RTE_DIM(b));

	if (pid == s->pb)
		stream_rx(s, b, k);
	else
		rte_pktmbuf_free_bulk(b, k);
	return k;
}

/* One round on the TSC: a offers, b receives, a receives. @return
 * whether a frame moved. */
static bool
stream_step(struct stream *s)
{
	bool moved = stream_send(s);

	moved |= stream_recv(s, s->pb) != 0;
	moved |= stream_recv(s, s->pa) != 0;
	return moved;
}

/* One round on the virtual clock: the ends that are due (a frame left
 * in a full burst keeps its end due, as ibex-fabric's does). */
static bool
stream_step_virtual(struct stream *s)
{
	bool moved = false;
	uint16_t k;

	cal_due();
	if (due[0] || s->ready) {
		due[0] = false;
		moved |= stream_send(s);
		k = stream_recv(s, s->pa);
		due[0] |= k == 64;
		moved |= k != 0;
	}
	if (due[1]) {
		due[1] = false;
		k = stream_recv(s, s->pb);
		due[1] |= k == 64;
		moved |= k != 0;
	}
	return moved;
}

/* One round, and under the virtual clock time moves when it did nothing.
 * @return false when nothing will ever happen again. */
static bool
stream_turn(struct stream *s)
{
	uint64_t act = ibexlink_activity();

	if (!virt) {
		stream_step(s);
		return true;
	}
	if (stream_step_virtual(s) || ibexlink_activity() != act)
		return true;
	return cal_advance();
}

static void
stream_init(struct stream *s, const struct pair *p, uint64_t n)
{
	memset(s, 0, sizeof(*s));
	s->pa = p->pa;
	s->pb = p->pb;
	s->n = n;
	s->split = UINT64_MAX;
	s->ready = n != 0;
}

static void
stream_free(struct stream *s)
{
	rte_pktmbuf_free_bulk(s->pend, s->npend);
	s->npend = 0;
}

/* Run until @p done says so, nothing can happen any more (virtual), or
 * @p secs of wall time. */
static void
stream_run(struct stream *s, bool (*done)(const struct stream *),
	   double secs)
{
	uint64_t end = dp_harness_deadline(secs);

	while (!done(s) && !dp_harness_expired(end))
		if (!stream_turn(s))
			break;
}

/* Until the simulated time reaches @p t_ps (virtual clock only). */
static void
stream_until(struct stream *s, uint64_t t_ps, double secs)
{
	uint64_t end = dp_harness_deadline(secs), now;

	for (;;) {
		assert_int_equal(rte_eth_read_clock(s->pa, &now), 0);
		if (now >= t_ps || dp_harness_expired(end))
			return;
		assert_true(stream_turn(s));
	}
}

static bool
all_delivered(const struct stream *s)
{
	return s->delivered == s->n;
}

/* The last frame arrived (frames before it may be missing). */
static bool
last_arrived(const struct stream *s)
{
	return s->next[0] == s->n;
}

/* Without LLR: every frame arrived or was lost on the wire. */
static bool
all_accounted(const struct stream *s)
{
	return s->offered == s->n &&
	       s->delivered + s->damaged + s->behind +
	       xstat(s->pb, "rx_wire_lost") >= s->n;
}

/* LLR in step both ways that have it: a's INIT echoed (and b's if b
 * sends protected frames). CtlOS may be lost: INIT is repeated. */
static void
llr_wait_up(const struct pair *p, bool both)
{
	struct stream s;
	uint64_t end = dp_harness_deadline(20);

	stream_init(&s, p, 0);
	while (!dp_harness_expired(end) &&
	       (xstat(p->pa, "llr_rx_init_echo_ctl_os") == 0 ||
		(both && xstat(p->pb, "llr_rx_init_echo_ctl_os") == 0)))
		assert_true(stream_turn(&s));
	assert_true(xstat(p->pa, "llr_rx_init_echo_ctl_os") >= 1);
}

/* ---- devargs ---- */

/* vdev @p name with @p args is refused, the log saying @p what. */
static void
refused(const char *name, const char *args, const char *what)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	uint16_t pid;

	assert_non_null(f);
	rte_openlog_stream(f);
	assert_int_not_equal(rte_vdev_init(name, args), 0);
	rte_openlog_stream(NULL);
	fclose(f);
	assert_int_not_equal(rte_eth_dev_get_port_by_name(name, &pid), 0);
	if (strstr(buf, what) == NULL)
		fail_msg("'%s': the refusal does not say %s: %s", args, what,
			 buf);
	free(buf);
}

/* Good keys make LLR both ways (a key left out taken from the peer) or
 * one way (llr=off on one end); LLR off shows no LLR xstats; bad values
 * are refused with the key named; LLR with pfc=on, and overrides with
 * LLR on neither end, are refused. */
static void
test_devargs(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	struct stream s;
	struct pair p;
	FILE *f;

	(void)state;
	refused("net_ibexlink900", "llr=fast", "'llr'");
	refused("net_ibexlink900", "llr=200G-5m", "'llr'");
	refused("net_ibexlink900", "llr_max_frames=0", "'llr_max_frames'");
	refused("net_ibexlink900", "llr_max_frames=262145",
		"'llr_max_frames'");
	refused("net_ibexlink900", "llr_max_frames=-1", "'llr_max_frames'");
	refused("net_ibexlink900", "llr_max_bytes=63", "'llr_max_bytes'");
	refused("net_ibexlink900", "llr_replay_timer=0", "'llr_replay_timer'");
	refused("net_ibexlink900", "llr_replay_timer=70us",
		"'llr_replay_timer'");
	refused("net_ibexlink900", "llr_replay_timer=1500ps",
		"'llr_replay_timer'");
	refused("net_ibexlink900", "llr_replay_count=256",
		"'llr_replay_count'");
	refused("net_ibexlink900", "llr_data_age=2s", "'llr_data_age'");
	refused("net_ibexlink900", "llr_ctlos_spacing=399",
		"'llr_ctlos_spacing'");
	refused("net_ibexlink900", "llr_init_action=drop",
		"'llr_init_action'");
	refused("net_ibexlink900", "llr_flush_action=", "'llr_flush_action'");
	refused("net_ibexlink900", "llr=200g-5m,pfc=on", "pfc=on");
	/* refused at pairing: the second device */
	assert_int_equal(rte_vdev_init("net_ibexlink901", "llr=200g-5m"), 0);
	refused("net_ibexlink902", "peer=net_ibexlink901,pfc=on", "pfc=on");
	assert_int_equal(rte_vdev_uninit("net_ibexlink901"), 0);
	assert_int_equal(rte_vdev_init("net_ibexlink903",
				       "llr_replay_timer=10us"), 0);
	refused("net_ibexlink904", "peer=net_ibexlink903", "llr=PRESET");
	assert_int_equal(rte_vdev_uninit("net_ibexlink903"), 0);

	/* No LLR: no LLR xstats. */
	pair_open(&p, LINK, "");
	assert_false(has_xstat(p.pa, "llr_tx_ok"));
	assert_true(has_xstat(p.pa, "rx_wire_lost"));
	pair_close(&p);

	/* b takes llr= and the overrides from a: its own direction says so
	 * when it pairs (the INFO line of b -> a). */
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	rte_log_set_level_pattern("pmd.net.ibexlink", RTE_LOG_INFO);
	rte_openlog_stream(f);
	pair_open(&p, LINK ",llr=400g-40m,llr_replay_timer=10us,"
		  "llr_data_age=0,llr_flush_action=block", "");
	rte_openlog_stream(NULL);
	rte_log_set_level_pattern("pmd.net.ibexlink", RTE_LOG_WARNING);
	fclose(f);
	if (strstr(buf, "-> net_ibexlink") == NULL ||
	    strstr(strstr(buf, "-> net_ibexlink") + 1,
		   "133 frames, 67760 bytes, replay timer 10000 ns x 3, "
		   "data age 0 ns, init best_effort, flush block") == NULL)
		fail_msg("b did not take a's LLR: %s", buf);
	free(buf);
	llr_wait_up(&p, true);
	assert_true(xstat(p.pb, "llr_tx_init_ctl_os") >= 1);
	assert_int_equal(xstat(p.pa, "llr_tx_poisoned"), 0);
	pair_close(&p);

	/* One way: b's frames are not protected, b sends no INIT, a's
	 * receiver does not look at them; a's are. */
	pair_open(&p, LINK ",llr=200g-5m" TSC_LLR, "llr=off");
	llr_wait_up(&p, false);
	stream_init(&s, &p, 100);
	stream_run(&s, all_delivered, 20);
	assert_int_equal(s.delivered, 100);
	assert_int_equal(xstat(p.pa, "llr_tx_ok"), 100);
	assert_int_equal(xstat(p.pb, "llr_rx_expected_seq_good"), 100);
	assert_int_equal(xstat(p.pb, "llr_tx_init_ctl_os"), 0);
	assert_int_equal(xstat(p.pb, "llr_tx_ok"), 0);
	assert_true(xstat(p.pb, "llr_tx_ack_ctl_os") >= 1);
	stream_free(&s);
	stream_init(&s, &p, 100);
	s.pa = p.pb;
	s.pb = p.pa;
	stream_run(&s, all_delivered, 20);
	assert_int_equal(s.delivered, 100);
	assert_int_equal(xstat(p.pa, "llr_rx_ok"), 0);
	assert_int_equal(xstat(p.pb, "llr_tx_unprotected"), 0);
	stream_free(&s);
	pair_close(&p);
}

/* IBEX_LLR_DEBUG=1: every xstat of a run's ends that is not 0. */
static void
dump_xstats(uint16_t pid)
{
	struct rte_eth_xstat_name names[64];
	struct rte_eth_xstat xs[64];
	int n = rte_eth_xstats_get_names(pid, names, 64), i;

	if (n < 0 || n > 64 || rte_eth_xstats_get(pid, xs, 64) != n)
		return;
	for (i = 0; i < n; i++)
		if (xs[i].value != 0)
			print_message("  port %u %s %" PRIu64 "\n", pid,
				      names[i].name, xs[i].value);
}

/* ---- runs over a faulty link ---- */

struct fig {
	uint64_t n, delivered, gaps, behind, damaged;
	uint64_t faults, replays, nacks, rx_bad, discard, flushes;
	uint64_t unprotected;
	double goodput;         /* of the line, intact frames in order */
};

/* LLR as the runs set it: off, on (frames numbered as the MAC takes
 * them, up to a TX ring ahead of the wire), and on with tx_window=0 (the
 * MAC takes a frame as the wire frees: numbered as it goes out, as a
 * PCS does). */
static const char *const modes[] = { "", ",llr=200g-5m",
				     ",llr=200g-5m,tx_window=0" };
static const char *const mode_names[] = { "off", "llr", "llr,tx_window=0" };

/* @p n frames from a to b over @p link in mode @p mode. Under the
 * virtual clock the goodput is the intact frames' wire time over the
 * time from the first offer to the last arrival. */
static void
run(const char *link, unsigned int mode, uint64_t n, struct fig *f)
{
	bool llr = mode != 0;
	char args[256];
	struct stream s;
	struct pair p;
	uint64_t t0;

	snprintf(args, sizeof(args), "%s%s%s", link, modes[mode],
		 llr && !virt ? TSC_LLR : "");
	pair_open(&p, args, "");
	if (llr)
		llr_wait_up(&p, true);
	stream_init(&s, &p, n);
	assert_int_equal(rte_eth_read_clock(p.pa, &t0), 0);
	stream_run(&s, llr ? all_delivered : all_accounted, 60);
	memset(f, 0, sizeof(*f));
	f->n = n;
	f->delivered = s.delivered;
	f->gaps = s.gaps;
	f->behind = s.behind;
	f->damaged = s.damaged;
	f->faults = xstat(p.pb, "rx_wire_lost") +
		    xstat(p.pb, "rx_wire_corrupted");
	f->goodput = (double)s.delivered * (FRAME_LEN + 24) * 8 /
		     RATE / ((double)(s.t_last - t0) * 1e-12);
	if (llr) {
		f->replays = xstat(p.pa, "llr_tx_replay");
		f->nacks = xstat(p.pb, "llr_tx_nack_ctl_os");
		f->rx_bad = xstat(p.pb, "llr_rx_bad");
		f->discard = xstat(p.pa, "llr_tx_discard");
		f->flushes = xstat(p.pa, "llr_flushes");
		f->unprotected = xstat(p.pa, "llr_tx_unprotected");
		assert_true(xstat(p.pa, "llr_tx_ok") >= n);
	}
	assert_int_equal(s.offered, n);
	if (getenv("IBEX_LLR_DEBUG") != NULL) {
		dump_xstats(p.pa);
		dump_xstats(p.pb);
	}
	stream_free(&s);
	pair_close(&p);
}

static void
fig_print(const char *link, unsigned int mode, const struct fig *f)
{
	print_message("%s %s: %" PRIu64 " frames, %" PRIu64 " delivered, %"
		      PRIu64 " missing, %" PRIu64 " damaged, %" PRIu64
		      " out of order; %" PRIu64 " faults, %" PRIu64
		      " replayed, %" PRIu64 " NACKs, %" PRIu64
		      " given up; goodput %.4f%s\n", link, mode_names[mode],
		      f->n, f->delivered, f->n - f->delivered, f->damaged,
		      f->behind, f->faults, f->replays, f->nacks, f->discard,
		      f->goodput, virt ? "" : " (TSC: not a figure)");
}

/* The link repairs what the wire does: nothing lost, duplicated or out
 * of order, every fault a bad FCS replayed; the same link without LLR
 * loses frames (or delivers them damaged). Goodput bounds (virtual
 * clock): 2x margins on the cost measured (docs/llr.md). */
static void
lossless(const char *link, uint64_t n, bool nonzero, const double cost[3])
{
	struct fig f[3];
	unsigned int m;

	for (m = 0; m < 3; m++) {
		run(link, m, n, &f[m]);
		fig_print(link, m, &f[m]);
	}
	for (m = 1; m < 3; m++) {
		assert_int_equal(f[m].delivered, n);
		assert_int_equal(f[m].gaps, 0);
		assert_int_equal(f[m].behind, 0);
		assert_int_equal(f[m].damaged, 0);
		assert_int_equal(f[m].discard, 0);
		assert_int_equal(f[m].flushes, 0);
		assert_int_equal(f[m].unprotected, 0);
		/* every frame the wire spoilt was caught by its FCS */
		assert_int_equal(f[m].rx_bad, f[m].faults);
		if (nonzero) {
			assert_true(f[m].faults > 0);
			assert_true(f[m].replays >= f[m].faults);
			assert_true(f[m].nacks > 0);
		}
	}
	if (nonzero)
		assert_true(f[0].delivered < n);
	assert_int_equal(f[0].behind, 0);
	for (m = 0; virt && m < 3; m++) {
		assert_true(f[m].goodput > 1 - 2 * cost[m]);
		assert_true(f[m].goodput <= 1.0001);
	}
}

/* (a) corrupt 1e-3 over more than 2^19 frames: (b) the sequence wraps */
static void
test_corrupt(void **state)
{
	(void)state;
	/* measured: 0.0010, 0.0285, 0.0043 */
	static const double cost[3] = { 0.001, 0.03, 0.005 };

	lossless(LINK ",corrupt=1e-3,seed=7", virt ? 600000 : 200000, true,
		 cost);
}

static void
test_loss(void **state)
{
	(void)state;
	/* measured: 0, 0.0003, 0.0010 (the virtual clock's ns: a frame
	 * taken as the wire frees starts at the next whole ns) */
	static const double cost5[3] = { 0.001, 0.001, 0.001 };
	/* measured: 0.0009, 0.0269, 0.0041 */
	static const double cost3[3] = { 0.001, 0.03, 0.005 };

	lossless(LINK ",loss=1e-5,seed=11", virt ? 300000 : 100000, false,
		 cost5);
	lossless(LINK ",loss=1e-3,seed=13", virt ? 300000 : 200000, true,
		 cost3);
}

/*
 * (c) A dead link: the cable goes bad (loss=1, CtlOS too) while frames
 * flow. The sender replays replay_count times, then gives up: what it
 * kept is counted in tx_discard, and it starts INIT again (lost too).
 * Then 200g-5m (flush_action block) holds new frames in the TX queue
 * (tx_burst takes none, the port answers), 400g-40m (discard) drops
 * them, counted. When the cable comes back INIT gets through and frames
 * flow again. Every frame offered and not delivered is among those
 * counted in tx_discard; nothing arrives twice or out of order.
 */
static void
dead_link(const char *preset, bool block)
{
	char args[128];
	struct stream s;
	struct pair p;
	uint64_t t, held0, refused0, disc, offered_dead, echo, end;

	snprintf(args, sizeof(args), LINK ",llr=%s%s", preset,
		 virt ? "" : TSC_DEAD);
	pair_open(&p, args, "");
	llr_wait_up(&p, true);
	stream_init(&s, &p, 5000);
	stream_run(&s, all_delivered, 20);
	assert_int_equal(s.delivered, 5000);

	assert_int_equal(ibexlink_set_faults(p.pa, "loss=1"), 0);
	held0 = xstat(p.pa, "llr_tx_held");
	refused0 = s.refused;
	s.n = 8000;
	s.ready = true;
	if (virt) {
		assert_int_equal(rte_eth_read_clock(p.pa, &t), 0);
		stream_until(&s, t + 200 * UINT64_C(1000000), 20);
	} else {
		end = dp_harness_deadline(20);
		while (xstat(p.pa, "llr_flushes") == 0 &&
		       !dp_harness_expired(end))
			stream_turn(&s);
		/* and a while of trying in the FLUSH state */
		end = dp_harness_deadline(0.05);
		while (!dp_harness_expired(end))
			stream_turn(&s);
	}
	disc = xstat(p.pa, "llr_tx_discard");
	offered_dead = s.offered - 5000;
	print_message("%s dead: %" PRIu64 " frames offered, %" PRIu64
		      " given up in %" PRIu64 " flushes, %" PRIu64
		      " replayed, %" PRIu64 " INITs, %" PRIu64 " offers held, "
		      "%" PRIu64 " bursts refused\n", preset, offered_dead,
		      disc, xstat(p.pa, "llr_flushes"),
		      xstat(p.pa, "llr_tx_replay"),
		      xstat(p.pa, "llr_tx_init_ctl_os"),
		      xstat(p.pa, "llr_tx_held") - held0, s.refused - refused0);
	assert_true(xstat(p.pa, "llr_flushes") >= 1);
	assert_true(disc >= 1);
	assert_int_equal(s.delivered, 5000);
	if (block) {
		/* held: at most a buffer's worth went before the flush */
		assert_true(offered_dead <= 61);
		assert_true(xstat(p.pa, "llr_tx_held") > held0);
		assert_true(s.refused > refused0);
	} else {
		/* all but what was acknowledged before the flush */
		assert_true(disc + 133 >= offered_dead);
	}

	/* back: INIT gets through; then 3,000 more frames */
	assert_int_equal(ibexlink_set_faults(p.pa, "loss=0"), 0);
	echo = xstat(p.pa, "llr_rx_init_echo_ctl_os");
	end = dp_harness_deadline(20);
	while (xstat(p.pa, "llr_rx_init_echo_ctl_os") == echo &&
	       !dp_harness_expired(end))
		assert_true(stream_turn(&s));
	assert_true(xstat(p.pa, "llr_rx_init_echo_ctl_os") > echo);
	s.n = 11000;
	s.ready = true;
	stream_run(&s, last_arrived, 30);
	print_message("%s back: %" PRIu64 " offered, %" PRIu64 " delivered, "
		      "%" PRIu64 " given up, %" PRIu64 " missing\n", preset,
		      s.offered, s.delivered, xstat(p.pa, "llr_tx_discard"),
		      s.gaps);
	assert_int_equal(s.offered, s.n);
	assert_int_equal(s.behind, 0);
	assert_int_equal(s.damaged, 0);
	/* not lost silently: what did not arrive was given up, counted */
	assert_true(s.offered - s.delivered <= xstat(p.pa, "llr_tx_discard"));
	assert_true(s.delivered >= 5000 + 3000);
	assert_int_equal(s.next[0], s.n);
	stream_free(&s);
	pair_close(&p);
}

static void
test_dead_link(void **state)
{
	(void)state;
	dead_link("200g-5m", true);
	dead_link("400g-40m", false);
}

/* b stops and starts again while a's frames are protected: b's receiver
 * waits for an INIT, and a sends one (the restart reaches it); frames
 * flow again, none twice or out of order. */
static void
test_restart(void **state)
{
	struct stream s;
	struct pair p;
	uint64_t echo, end;

	(void)state;
	pair_open(&p, virt ? LINK ",llr=200g-5m" : LINK ",llr=200g-5m" TSC_LLR,
		  "");
	llr_wait_up(&p, true);
	stream_init(&s, &p, 1000);
	stream_run(&s, all_delivered, 20);
	assert_int_equal(s.delivered, 1000);
	echo = xstat(p.pa, "llr_rx_init_echo_ctl_os");
	assert_int_equal(rte_eth_dev_stop(p.pb), 0);
	assert_int_equal(rte_eth_dev_start(p.pb), 0);
	end = dp_harness_deadline(20);
	while (xstat(p.pa, "llr_rx_init_echo_ctl_os") == echo &&
	       !dp_harness_expired(end))
		assert_true(stream_turn(&s));
	assert_true(xstat(p.pa, "llr_rx_init_echo_ctl_os") > echo);
	s.n = 2000;
	s.ready = true;
	stream_run(&s, all_delivered, 20);
	assert_int_equal(s.delivered, 2000);
	assert_int_equal(s.gaps, 0);
	assert_int_equal(s.behind, 0);
	/* (on the TSC a replay timer may fire between this thread's turns:
	 * duplicates, dropped) */
	if (virt)
		assert_int_equal(xstat(p.pb, "llr_rx_duplicate_seq") +
				 xstat(p.pb, "llr_rx_missing_seq"), 0);
	stream_free(&s);
	pair_close(&p);
}

/* Two threads on two TX queues of one LLR port at once: frames parked
 * while the other queue holds the MAC are offered to the sender from
 * their staging ring (a frame it holds stays first there), the receiving
 * side takes nothing while the MAC is busy; nothing is lost, duplicated
 * or reordered within a queue over a corrupting wire. */
struct sender {
	uint16_t pid, qid;
	uint32_t seq0, n;
};

static int
sender_main(void *arg)
{
	struct sender *sd = arg;
	struct rte_mbuf *b[BURST];
	uint32_t sent = 0, built = 0, i;
	uint64_t end = dp_harness_deadline(60);
	uint16_t k;

	while (sent < sd->n && !dp_harness_expired(end)) {
		while (built < RTE_MIN((uint32_t)BURST, sd->n - sent))
			b[built] = frame(200, sd->seq0 + sent + built),
			built++;
		k = rte_eth_tx_burst(sd->pid, sd->qid, b, (uint16_t)built);
		for (i = k; i < built; i++)
			b[i - k] = b[i];
		built -= k;
		sent += k;
	}
	rte_pktmbuf_free_bulk(b, built);
	return sent == sd->n ? 0 : -1;
}

static void
test_two_threads(void **state)
{
	enum { N = 50000 };
	unsigned int lcore = rte_get_next_lcore(-1, 1, 0);
	struct sender s1;
	struct stream s;
	struct pair p;
	uint64_t end;

	(void)state;
	if (lcore >= RTE_MAX_LCORE)
		skip();
	pair_open_mq(&p, LINK ",corrupt=1e-3,llr=200g-5m" TSC_LLR, "", 2);
	llr_wait_up(&p, true);
	s1 = (struct sender){ p.pa, 1, N, N };
	assert_int_equal(rte_eal_remote_launch(sender_main, &s1, lcore), 0);
	/* this thread: queue 0's frames 0..N-1, and both receivers */
	stream_init(&s, &p, N);
	s.split = N;
	s.next[1] = N;
	end = dp_harness_deadline(90);
	while (s.delivered + s.behind + s.damaged < 2 * N &&
	       !dp_harness_expired(end))
		stream_step(&s);
	assert_int_equal(rte_eal_wait_lcore(lcore), 0);
	assert_int_equal(s.delivered, 2 * N);
	assert_int_equal(s.gaps, 0);
	assert_int_equal(s.behind, 0);
	assert_int_equal(s.damaged, 0);
	assert_true(xstat(p.pb, "llr_rx_bad") > 0);
	print_message("two threads: %" PRIu64 " frames parked, %" PRIu64
		      " replayed, %" PRIu64 " bad FCS\n",
		      xstat(p.pa, "tx_parked"), xstat(p.pa, "llr_tx_replay"),
		      xstat(p.pb, "llr_rx_bad"));
	stream_free(&s);
	pair_close(&p);
}

int
main(int argc, char **argv)
{
	char prefix[64];
	char *eal[] = { argv[0], "--no-huge", "-m", "512", "--no-pci", "-l",
			"0-1", prefix, "--log-level=pmd.net.ibexlink:warning",
			NULL };
	const struct CMUnitTest real_tests[] = {
		cmocka_unit_test(test_devargs),
		cmocka_unit_test(test_corrupt),
		cmocka_unit_test(test_loss),
		cmocka_unit_test(test_dead_link),
		cmocka_unit_test(test_restart),
		cmocka_unit_test(test_two_threads),
	};
	const struct CMUnitTest virt_tests[] = {
		cmocka_unit_test(test_corrupt),
		cmocka_unit_test(test_loss),
		cmocka_unit_test(test_dead_link),
		cmocka_unit_test(test_restart),
	};

	if (argc != 2 || (strcmp(argv[1], "real") != 0 &&
			  strcmp(argv[1], "virtual") != 0)) {
		fprintf(stderr, "usage: %s real|virtual\n", argv[0]);
		return 2;
	}
	virt = strcmp(argv[1], "virtual") == 0;
	snprintf(prefix, sizeof(prefix), "--file-prefix=ibexlink_llr_%d",
		 (int)getpid());
	if (rte_eal_init((int)RTE_DIM(eal) - 1, eal) < 0)
		return 1;
	if (virt) {
		/* before any link reads the clock */
		ibex_clock_use_virtual(1);
		ibex_clock_set_wake(cal_wake, NULL);
	}
	pool = rte_pktmbuf_pool_create("ibexlink_llr", NB_MBUF, 256, 0,
				       BUF_SIZE, 0);
	if (pool == NULL)
		return 1;
	return virt ? cmocka_run_group_tests(virt_tests, NULL, NULL) :
		      cmocka_run_group_tests(real_tests, NULL, NULL);
}
