/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ibex worker: one poll-mode loop per worker lcore (docs/design.md,
 * "One iteration of a worker").
 *
 *   RX burst -> parse -> SL/VL classification -> VLAN/ingress checks
 *     -> learn + FDB lookup -> egress: cut through or queue on the lane
 *     -> end of iteration: VL arbiter + shaper fill the TX burst -> TX
 *
 * Cut-through: a frame whose egress port has no frame queued on any lane,
 * whose lane may send and whose shaper has tokens goes into this
 * iteration's TX burst directly, touching nothing but its headers. Only
 * under contention does it wait in its (egress port, VL) queue, and then
 * every later frame for that port queues too until the queues drain, so
 * frames of one (ingress, VL, egress) never overtake each other.
 *
 * Nothing here locks, allocates, logs or makes a system call per frame (the
 * one write() is learn_wake(): at most once per sleep of the control thread).
 * Counters are the worker's own (one writer); the control thread reads them.
 */

#include <string.h>
#include <unistd.h>

#include <rte_branch_prediction.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_memcpy.h>
#include <rte_prefetch.h>

#include <rte_rcu_qsbr.h>

#include "ibex_clock.h"
#include "ibex_pdev.h"
#include "ibex_bpf.h"
#include "ibex_dp_private.h"
#include "ibex_fc.h"
#include "ibex_fdb.h"
#include "ibex_pkt.h"
#include "ibex_hist.h"

RTE_LOG_REGISTER(ibex_worker_logtype, ibex.worker, INFO);
#define RTE_LOGTYPE_IBEX_WORKER ibex_worker_logtype

/* Longest a stopping worker keeps sending what it holds. */
#define IBEX_DRAIN_MS 200

/* How often a stopping control thread looks whether a worker returned. */
#define STOP_POLL_US 1000

/* Frames ahead of the one being parsed whose first cache line is fetched. */
#define PREFETCH_AHEAD 4

static inline void
drop(struct ibex_port_counters *c, struct rte_mbuf *m, enum ibex_reason r)
{
	IBEX_CNT_ADD(c->drop[r], 1);
	rte_pktmbuf_free(m);
}

/*
 * Accounting after TX costs almost nothing per frame on the cut-through
 * path: a frame handed to the TX buffer adds (1 << 40 | bytes) to its
 * lane's sum for this flush, one add, and the flush folds each lane's sum
 * into its counters and one residence sample for its cut-through frames
 * (received in the same iteration or two). Queued frames are counted and
 * their residence recorded one by one as the arbiter hands them over (the
 * slow path; they leave in the same iteration). Lane counters thus count
 * frames handed to the TX queue; the port's tx counters count what TX
 * accepted. Every frame has its charge noted beside it (one store, no
 * load, no branch; source 0 when it is not charged): the release is the
 * flush's work, four notes at a time when one lane (or none) has them
 * all. Nothing reads an mbuf TX has taken.
 */

/* Four 32-bit lanes (GCC/clang vector extension: SSE2, NEON or scalar). */
typedef uint32_t u32x4 __attribute__((vector_size(16)));

#define CT_SUM_SHIFT 40
#define CT_SUM_BYTES ((UINT64_C(1) << CT_SUM_SHIFT) - 1)

/* Fold the lane sums of the cut-through frames into the lanes. */
static void
txbuf_account(struct ibex_egress *e, struct ibex_txbuf *tb, uint64_t now)
{
	unsigned int lanes = tb->ct_lanes;

	tb->ct_lanes = 0;
	while (lanes != 0) {
		unsigned int vl = (unsigned int)__builtin_ctz(lanes);
		uint64_t sum = tb->ct_sum[vl];
		struct ibex_lane_counters *lc;
		uint32_t n;

		lanes &= lanes - 1;
		n = (uint32_t)(sum >> CT_SUM_SHIFT);
		lc = &e->lane[vl];
		IBEX_CNT_ADD(lc->tx_pkts, n);
		IBEX_CNT_ADD(lc->tx_bytes, sum & CT_SUM_BYTES);
		IBEX_CNT_ADD(lc->cut_through, n);
		tb->bytes += sum & CT_SUM_BYTES;
		if (e->res[vl][0] != NULL)
			ibex_hist_record_n(e->res[vl][0], now - tb->ct_tsc, n);
		tb->ct_sum[vl] = 0;
	}
}

/* Give @p blocks back to the lane a run was charged to. */
static inline void
charge_release(struct ibex_worker *w, uint16_t src, uint32_t blocks)
{
	unsigned int port = IBEX_FC_SRC_PORT(src), vl = IBEX_FC_SRC_VL(src);
	struct ibex_buf_result r;

	if (likely(ibex_buf_release_reserved(&w->fc->buf, port, vl, blocks)))
		return;
	r = ibex_buf_release(&w->fc->buf, port, vl, blocks);
	ibex_fc_pause_edge(w->fc, port, vl, r.pause);
}

/*
 * TX took the first @p sent frames: their charges go back to the buffer,
 * one release per run of frames charged to the same lane (nearly always
 * one run: a burst's frames share their ingress lane).
 */
static void
txbuf_release(struct ibex_worker *w, const struct ibex_txbuf *tb,
	      uint16_t sent)
{
	uint16_t src = IBEX_TXCHARGE_SRC(tb->charge[0]), i;
	uint32_t blocks, other, src_bits = src;
	u32x4 v_other = { 0 }, v_blocks = { 0 };
	unsigned int k;

	/* The common case, one lane for all, four notes at a time and no
	 * branch per frame. */
	for (k = 0; k + 4 <= sent; k += 4) {
		u32x4 c;

		memcpy(&c, &tb->charge[k], sizeof(c));
		v_other |= (c >> 16) ^ src_bits;
		v_blocks += c & 0xffff;
	}
	other = v_other[0] | v_other[1] | v_other[2] | v_other[3];
	blocks = v_blocks[0] + v_blocks[1] + v_blocks[2] + v_blocks[3];
	for (; k < sent; k++) {
		other |= IBEX_TXCHARGE_SRC(tb->charge[k]) ^ src_bits;
		blocks += IBEX_TXCHARGE_BLOCKS(tb->charge[k]);
	}
	if (likely(other == 0)) {
		if (src != 0 && blocks != 0)
			charge_release(w, src, blocks);
		return;
	}
	blocks = 0;
	for (i = 0; i < sent; i++) {
		uint32_t t = tb->charge[i];

		if (unlikely(IBEX_TXCHARGE_SRC(t) != src)) {
			if (src != 0)
				charge_release(w, src, blocks);
			src = IBEX_TXCHARGE_SRC(t);
			blocks = 0;
		}
		blocks += IBEX_TXCHARGE_BLOCKS(t);
	}
	if (src != 0 && blocks != 0)
		charge_release(w, src, blocks);
}

/* Several workers, a credit port: the credit claimed for what TX took
 * now counts in the FCTBS the port's owner reports (a bound from below
 * while frames are left: their lanes are not noted). */
static __rte_noinline void
txbuf_credit_done(struct ibex_worker *w, const struct ibex_txbuf *tb,
		  uint16_t port, uint16_t sent)
{
	uint32_t left_blocks = 0;
	uint16_t i;

	for (i = sent; i < tb->count; i++)
		left_blocks += ibex_blocks(tb->pkts[i]->pkt_len);
	ibex_fc_tx_done(w->fc, port, left_blocks);
}

/*
 * Adaptive routing's view of a member's wire: what this worker gave TX
 * is on the wire until (at the port's rate, preamble and IFG counted)
 * ar_busy. Once per flush of a member port, never per frame.
 */
static void
ar_sent(struct ibex_worker *w, uint16_t port, uint64_t bytes, uint16_t frames,
	uint64_t now)
{
	uint64_t start = RTE_MAX(w->ar_busy[port], now);

	w->ar_busy[port] = start + (((bytes + (uint64_t)frames *
				      IBEX_WIRE_OVERHEAD) *
				     w->ar_tpb_q16[port]) >> 16);
}

/* Send what is buffered for one port; keep what TX did not take. */
static void
txbuf_flush(struct ibex_worker *w, uint16_t port, uint64_t now)
{
	struct ibex_txbuf *tb = &w->tx[port];
	struct ibex_port_counters *c = &w->cnt[port];
	uint16_t sent, i;
	uint64_t left = 0;

	/* Being restarted: its frames wait (ibex_link.c). */
	if (unlikely((w->detached >> port) & 1))
		return;
	if (unlikely(w->cap != NULL))
		ibex_capture_copy(w->cap, w->index, port, tb->txq, tb->pkts,
				  tb->count, IBEX_CAPTURE_TX, now);
	sent = ibex_pdev_tx_burst(w->dp->port_id[port], tb->txq, tb->pkts,
				tb->count);
	if (unlikely(w->cap != NULL))
		ibex_capture_commit(w->cap, w->index, sent);
	txbuf_account(w->eg[port], tb, now);
	txbuf_release(w, tb, sent);
	/* What TX did not take is still ours to read. */
	for (i = sent; i < tb->count; i++)
		left += tb->pkts[i]->pkt_len;
	IBEX_CNT_ADD(c->tx_pkts, sent);
	IBEX_CNT_ADD(c->tx_bytes, tb->bytes - left);
	if (unlikely((w->ar_ports >> port) & 1))
		ar_sent(w, port, tb->bytes - left, sent, now);
	tb->bytes = left;
	if (unlikely(w->fc != NULL && (w->fc->cr_multi >> port & 1)))
		txbuf_credit_done(w, tb, port, sent);
	if (likely(sent == tb->count)) {
		tb->count = 0;
		return;
	}
	tb->count -= sent;
	memmove(tb->pkts, tb->pkts + sent, tb->count * sizeof(tb->pkts[0]));
	memmove(tb->charge, tb->charge + sent,
		tb->count * sizeof(tb->charge[0]));
	tb->first_tsc = now;
}

void
ibex_dp_txbuf_drop(struct ibex_worker *w, uint16_t port, enum ibex_reason why)
{
	struct ibex_txbuf *tb = &w->tx[port];

	if (tb->count == 0)
		return;
	/* never sent: its cut-through frames are not counted as sent */
	memset(tb->ct_sum, 0, sizeof(tb->ct_sum));
	tb->ct_lanes = 0;
	txbuf_release(w, tb, tb->count);
	IBEX_CNT_ADD(w->cnt[port].drop[why], tb->count);
	rte_pktmbuf_free_bulk(tb->pkts, tb->count);
	tb->count = 0;
	tb->bytes = 0;
	w->pending_tx &= ~(UINT64_C(1) << port);
}

/*
 * The TX buffer of @p port as one base pointer. Left to itself the
 * compiler folds &w->tx[port] into each access to the buffer's arrays (a
 * multiply of the port per array, several per frame); the empty asm makes
 * the pointer opaque, so every access is base + offset.
 */
static inline __rte_always_inline struct ibex_txbuf *
txbuf_of(struct ibex_worker *w, uint16_t port)
{
	struct ibex_txbuf *tb = &w->tx[port];

	__asm__("" : "+r"(tb));
	return tb;
}

/* Append a frame and its charge note (IBEX_TXCHARGE()) to @p tb, port
 * @p port's; the caller checked there is room. */
static inline __rte_always_inline void
txbuf_append(struct ibex_worker *w, struct ibex_txbuf *tb, uint16_t port,
	     struct rte_mbuf *m, uint32_t charge)
{
	uint16_t i = tb->count;

	if (i == 0) {
		w->pending_tx |= UINT64_C(1) << port;
		tb->ct_tsc = w->rx_tsc;
		if (w->tx_drain_tsc != 0)
			tb->first_tsc = ibex_clock_now();
	}
	tb->pkts[i] = m;
	tb->charge[i] = charge;
	tb->count = i + 1;
}

/* A frame cut through (or a management frame) on lane @p vl. */
static inline __rte_always_inline void
txbuf_put(struct ibex_worker *w, struct ibex_txbuf *tb, uint16_t port,
	  struct rte_mbuf *m, unsigned int vl, uint32_t charge)
{
	tb->ct_sum[vl] += UINT64_C(1) << CT_SUM_SHIFT | m->pkt_len;
	tb->ct_lanes |= (uint16_t)(1u << vl);
	txbuf_append(w, tb, port, m, charge);
}

/* Same, for a frame charged to the buffer (@p src = IBEX_FC_SRC()). */
static void
txbuf_put_charged(struct ibex_worker *w, uint16_t port, struct rte_mbuf *m,
		  unsigned int vl, uint16_t src)
{
	txbuf_put(w, txbuf_of(w, port), port, m, vl,
		  IBEX_TXCHARGE(src, ibex_blocks(m->pkt_len)));
}

/* A frame the arbiter took from lane @p vl at @p now. */
static void
txbuf_put_queued(struct ibex_worker *w, uint16_t port,
		 const struct ibex_vlq_ent *ent, unsigned int vl, uint64_t now)
{
	struct ibex_egress *e = w->eg[port];
	struct ibex_lane_counters *lc = &e->lane[vl];

	IBEX_CNT_ADD(lc->tx_pkts, 1);
	IBEX_CNT_ADD(lc->tx_bytes, ent->len);
	w->tx[port].bytes += ent->len;
	if (e->res[vl][1] != NULL)
		ibex_hist_record(e->res[vl][1], now - ent->rx_tsc);
	txbuf_append(w, txbuf_of(w, port), port, ent->frame,
		     IBEX_TXCHARGE(ent->src, ibex_blocks(ent->len)));
}

/*
 * Wake the control thread if it sleeps with the learn ring empty. It sets
 * learn_armed, then (seq_cst fence) looks at the ring once more before it
 * blocks; we enqueued, then (fence) look at learn_armed: one of the two
 * sees the other, so a request is never left in the ring while it sleeps.
 * Only the worker that clears the flag writes the eventfd: at most one
 * syscall per time the control thread went to sleep, never per frame.
 */
static void
learn_wake(struct ibex_dp *dp)
{
	uint64_t one = 1;

	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_load_explicit(&dp->learn_armed, memory_order_relaxed) == 0 ||
	    atomic_exchange_explicit(&dp->learn_armed, 0,
				     memory_order_acquire) == 0)
		return;
	(void)!write(dp->learn_efd, &one, sizeof(one));
}

unsigned int
ibex_dp_learn_dequeue(struct ibex_dp *dp, struct ibex_learn_req *req,
		      unsigned int n)
{
	return rte_ring_sc_dequeue_burst_elem(dp->learn_ring, req,
					      sizeof(req[0]), n, NULL);
}

void
ibex_dp_learn_set_fd(struct ibex_dp *dp, int efd)
{
	if (efd < 0) {
		/* No worker may write the eventfd once it is closed. */
		atomic_store_explicit(&dp->learn_armed, 0, memory_order_seq_cst);
		return;
	}
	dp->learn_efd = efd;
}

/* The control thread's half of learn_wake(). */
bool
ibex_dp_learn_arm(struct ibex_dp *dp)
{
	atomic_store_explicit(&dp->learn_armed, 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_seq_cst);
	return rte_ring_count(dp->learn_ring) != 0;
}

static inline void
learn_post(struct ibex_worker *w, const uint8_t *mac, uint16_t vid,
	   uint16_t port)
{
	struct ibex_learn_req req;

	memcpy(req.mac, mac, 6);
	req.vid = vid;
	req.port = port;
	if (rte_ring_mp_enqueue_elem(w->dp->learn_ring, &req, sizeof(req)) == 0) {
		IBEX_CNT_ADD(w->cnt[port].learn_posted, 1);
		learn_wake(w->dp);
	} else {
		IBEX_CNT_ADD(w->cnt[port].learn_lost, 1);
	}
}

/*
 * Make sure the control thread knows @p src is on @p in_port and keeps the
 * entry fresh. The source cache remembers, per station, until when nothing
 * needs doing: a fresh FDB entry is good until it is refresh_ms old; a
 * posted request is given 10 ms to be applied before it is posted again,
 * so a new station at line rate costs one request, not one per frame.
 */
static uint32_t
learn_check_slow(struct ibex_worker *w, const struct ibex_dp_tables *t,
		 struct ibex_mac_slot *s, uint64_t key, const uint8_t *src,
		 uint16_t vid, uint16_t in_port, uint32_t now_ms)
{
	struct ibex_fdb_entry e;

	s->key = key;
	s->version = w->fdb_version;
	s->port = in_port;
	if (ibex_fdb_get(w->dp->fdb, src, vid, &e) &&
	    (e.is_static || (e.port == in_port &&
	     (uint32_t)(now_ms - e.last_seen_ms) < t->learn_refresh_ms))) {
		/* Static entries are never learned over: stop asking. */
		s->until_ms = e.is_static ? now_ms + t->learn_refresh_ms :
			      e.last_seen_ms + t->learn_refresh_ms;
		return s->until_ms;
	}
	s->until_ms = now_ms + 10;
	learn_post(w, src, vid, in_port);
	return s->until_ms;
}

/* @return until when the source needs no re-check. */
static inline uint32_t
learn_check(struct ibex_worker *w, const struct ibex_dp_tables *t,
	    const uint8_t *src, uint16_t vid, uint16_t in_port,
	    uint32_t now_ms)
{
	uint64_t key;
	struct ibex_mac_slot *s;

	if (!t->learning)
		return now_ms + 1000;
	key = ibex_mac_key(src, vid);
	s = ibex_mac_cache_slot(w->src_cache, key);
	if (likely(s->key == key && s->port == in_port &&
		   s->version == w->fdb_version &&
		   (int32_t)(s->until_ms - now_ms) > 0))
		return s->until_ms;
	return learn_check_slow(w, t, s, key, src, vid, in_port, now_ms);
}

/* FDB lookup through the worker's destination cache. */
static inline uint16_t
dst_lookup(struct ibex_worker *w, const uint8_t *dst, uint16_t vid)
{
	uint64_t key = ibex_mac_key(dst, vid);
	struct ibex_mac_slot *s = ibex_mac_cache_slot(w->dst_cache, key);
	uint16_t port;

	if (likely(s->key == key && s->version == w->fdb_version))
		return s->port;
	port = ibex_fdb_lookup(w->dp->fdb, dst, vid);
	if (port != IBEX_PORT_NONE) {
		s->key = key;
		s->version = w->fdb_version;
		s->port = port;
	}
	return port;
}

/*
 * The member of ECMP group @p egress (an FDB answer) for frame @p m:
 * chosen by its flow hash among the members that are up, counted per
 * member. @return the port, or IBEX_PORT_NONE when no member is up (or
 * the FDB names a group newer tables no longer have).
 */
/*
 * Adaptive routing's load of member port @p port for a frame of lane
 * @p vl, in TSC ticks: how long until this worker's egress would have
 * sent what it holds, on the wire (ar_sent()), in its TX buffer and in the
 * lane's queue, at the port's rate. A paused lane (or one the watchdog drains) is full.
 */
static inline uint64_t
ar_load(const struct ibex_worker *w, uint16_t port, unsigned int vl,
	uint64_t now)
{
	const struct ibex_egress *e = w->eg[port];
	const struct ibex_txbuf *tb = &w->tx[port];
	uint64_t wire = w->ar_busy[port] > now ? w->ar_busy[port] - now : 0,
		 held = tb->bytes + e->q[vl].bytes;
	unsigned int v;

	if (w->gate[port] & IBEX_GATE_BLOCKED(vl))
		return IBEX_ECMP_LOAD_FULL;
	/* The TX buffer's cut-through frames: chosen this burst, not yet
	 * flushed, so that a burst's frames do not all take one member. */
	for (v = tb->ct_lanes; v != 0; v &= v - 1)
		held += tb->ct_sum[__builtin_ctz(v)] & CT_SUM_BYTES;
	return wire + ((held * w->ar_tpb_q16[port]) >> 16);
}

/* The member of adaptive group @p g (index @p gi) for flow hash @p h on
 * lane @p vl: the flowlet's, or the least loaded. */
static __rte_noinline int
ecmp_adaptive(struct ibex_worker *w, const struct ibex_ecmp_group *g,
	      unsigned int gi, uint32_t h, unsigned int vl, uint64_t up)
{
	uint64_t now = w->rx_tsc, load[IBEX_ECMP_MAX_MEMBERS];
	struct ibex_flowlet *f = NULL;
	unsigned int k;
	int i;

	if (g->mode == IBEX_ECMP_FLOWLET) {
		f = ibex_flowlet_slot(w->flowlet, h, gi);
		i = ibex_flowlet_member(f, h, gi, g, up, now, g->flowlet_tsc);
		if (i >= 0) {
			f->last_tsc = now;
			return i;
		}
	}
	for (k = 0; k < g->n; k++)
		load[k] = ar_load(w, g->port[k], vl, now);
	i = ibex_ecmp_pick_least(g, h, up, load);
	IBEX_CNT_ADD(w->ecmp_cnt[gi].adaptive, 1);
	if (f != NULL && i >= 0 && ibex_flowlet_note(f, h, gi, (unsigned)i, now))
		IBEX_CNT_ADD(w->ecmp_cnt[gi].moves, 1);
	return i;
}

static __rte_noinline uint16_t
ecmp_member(struct ibex_worker *w, const struct ibex_dp_tables *t,
	    const struct rte_mbuf *m, uint16_t egress, unsigned int vl)
{
	const uint8_t *eth = rte_pktmbuf_mtod(m, const uint8_t *);
	unsigned int g = egress & 0xff;
	uint64_t up;
	uint32_t h;
	int i;

	if (unlikely(g >= t->nb_ecmp))
		return IBEX_PORT_NONE;
	up = t->tx_enabled & ~t->detached &
	     ~__atomic_load_n(&w->dp->links_down, __ATOMIC_RELAXED);
	/* The headers are in the first segment (IBEX_PKT_HDR_MAX of it, or
	 * the whole frame), as for the check. */
	h = ibex_ecmp_hash(eth, m->data_len, t->ecmp_seed);
	w->ecmp_h = h;
	i = t->ecmp[g].mode == IBEX_ECMP_HASH ?
	    ibex_ecmp_pick(&t->ecmp[g], h, up) :
	    ecmp_adaptive(w, &t->ecmp[g], g, h, vl, up);
	if (unlikely(i < 0)) {
		IBEX_CNT_ADD(w->ecmp_cnt[g].none_up, 1);
		return IBEX_PORT_NONE;
	}
	IBEX_CNT_ADD(w->ecmp_cnt[g].member[i], 1);
	return t->ecmp[g].port[i];
}

/*
 * ecmp_member() chose the port its frame came in on (@p in_port) from
 * group @p egress (any other answer: returned as is), by flow hash
 * w->ecmp_h. The ingress port is
 * never a member for its own frames, as a subnet manager never routes a
 * frame back out of the port it came in on: choose again with it counted
 * as down, so the flows its buckets hold spread over the other members
 * (the others' flows keep theirs). Such a group's answers always carry
 * IBEX_FLOW_CHECK (ecmp_flow_answer()), so only the check pays for this,
 * never a cached flow. @return the member, or @p in_port when it is the
 * only member up (dropped as same-port).
 */
static __rte_noinline uint16_t
ecmp_not_ingress(struct ibex_worker *w, const struct ibex_dp_tables *t,
		 uint16_t egress, unsigned int vl, uint16_t in_port)
{
	uint64_t up, load[IBEX_ECMP_MAX_MEMBERS];
	const struct ibex_ecmp_group *grp;
	unsigned int g = egress & 0xff, k;
	uint32_t h;
	int i;

	if (!ibex_egress_is_ecmp(egress) || g >= t->nb_ecmp)
		return in_port;
	grp = &t->ecmp[g];
	up = t->tx_enabled & ~t->detached &
	     ~__atomic_load_n(&w->dp->links_down, __ATOMIC_RELAXED) &
	     ~(UINT64_C(1) << in_port);
	h = w->ecmp_h;
	if (grp->mode == IBEX_ECMP_HASH) {
		i = ibex_ecmp_pick(grp, h, up);
	} else {
		for (k = 0; k < grp->n; k++)
			load[k] = ar_load(w, grp->port[k], vl, w->rx_tsc);
		i = ibex_ecmp_pick_least(grp, h, up, load);
		/* the flowlet goes on on this member (not a move: the
		 * ingress port never carried it) */
		if (grp->mode == IBEX_ECMP_FLOWLET && i >= 0)
			ibex_flowlet_note(ibex_flowlet_slot(w->flowlet, h, g),
					  h, g, (unsigned int)i, w->rx_tsc);
	}
	if (i < 0)
		return in_port;
	/* ecmp_member() counted the frame for the ingress port's member */
	for (k = 0; k < grp->n; k++)
		if (grp->port[k] == in_port)
			IBEX_CNT_SUB(w->ecmp_cnt[g].member[k], 1);
	IBEX_CNT_ADD(w->ecmp_cnt[g].member[i], 1);
	return grp->port[i];
}

/*
 * The flow cache's answer for ECMP group @p egress: the group (its member
 * is chosen per frame, ecmp_member()) with the lane every member gives
 * the SL. Cached (in slot @p f under key @p k, the flow's key with
 * IBEX_FLOW_KEY_ECMP: only the slow side finds it, so the fast path pays
 * nothing for ECMP) when it needs no further check: the members agree on
 * the lane, are all up, none is the ingress port, the lane is not a drop;
 * otherwise each frame's member is checked.
 */
static uint32_t
ecmp_flow_answer(const struct ibex_dp_tables *t, uint16_t egress,
		 uint16_t in_port, unsigned int sl, uint32_t until,
		 struct ibex_flow_slot *f, struct ibex_flow_key k)
{
	const struct ibex_ecmp_group *g;
	unsigned int i, vl;
	uint32_t ans;

	if ((egress & 0xff) >= t->nb_ecmp)
		return IBEX_FLOW_CHECK | egress;
	g = &t->ecmp[egress & 0xff];
	vl = ibex_sl2vl(&t->sl2vl[g->port[0]], sl);
	ans = egress | (uint32_t)vl << 16 |
	      (uint32_t)ibex_sl2vl(&t->sl2vl[in_port], sl) << 20;
	if (((g->mask >> in_port) & 1) || (g->mask & ~t->tx_enabled) ||
	    ibex_vl_is_drop(vl))
		return ans | IBEX_FLOW_CHECK;
	for (i = 1; i < g->n; i++)
		if (ibex_sl2vl(&t->sl2vl[g->port[i]], sl) != vl)
			return ans | IBEX_FLOW_CHECK;
	f->key0 = k.k0;
	f->key1 = k.k1;
	f->until_ms = until;
	f->ans = ans;
	return ans;
}


/*
 * Learn the source and look up the destination, through the flow cache:
 * one probe in the common case, the two MAC caches and the FDB otherwise.
 * The answer is the egress port, its lane for the frame's SL (the SL is
 * part of the key) and the ingress lane flow control charges, cached
 * only when it needs no further check: known destination, not the
 * ingress port, port up, lane not a drop. Unknown destinations flood
 * every time until learned, so a station that appears is used at once.
 * New tables empty the cache (worker_apply_tables()).
 */
static inline uint32_t
flow_lookup(struct ibex_worker *w, const struct ibex_dp_tables *t,
	    const uint8_t *eth, uint16_t vid, uint16_t in_port,
	    unsigned int sl, uint32_t now_ms)
{
	struct ibex_flow_key k = ibex_flow_key_make(eth,
			ibex_flow_key_tag(vid, in_port, sl));
	struct ibex_flow_slot *f = ibex_flow_cache_slot(w->flow_cache, k);
	uint32_t until, ans;
	uint16_t out;

	struct ibex_flow_key ke;
	struct ibex_flow_slot *fe;

	if (likely(ibex_flow_hit(f, k, now_ms)))
		return f->ans;
	/* An ECMP flow is cached under its key with IBEX_FLOW_KEY_ECMP,
	 * which the fast path's probe never matches. */
	ke = (struct ibex_flow_key){ k.k0, k.k1 | IBEX_FLOW_KEY_ECMP };
	fe = ibex_flow_cache_slot(w->flow_cache, ke);
	if (ibex_flow_hit(fe, ke, now_ms))
		return fe->ans;
	until = learn_check(w, t, eth + 6, vid, in_port, now_ms);
	out = dst_lookup(w, eth, vid);
	if (out == IBEX_PORT_NONE)
		return IBEX_FLOW_CHECK | IBEX_PORT_NONE;
	if (unlikely(ibex_egress_is_ecmp(out)))
		return ecmp_flow_answer(t, out, in_port, sl, until, fe, ke);
	ans = out | (uint32_t)ibex_sl2vl(&t->sl2vl[out], sl) << 16 |
	      (uint32_t)ibex_sl2vl(&t->sl2vl[in_port], sl) << 20;
	if (out == in_port || !((t->tx_enabled >> out) & 1) ||
	    ibex_vl_is_drop(IBEX_FLOW_VL(ans)))
		return ans | IBEX_FLOW_CHECK;
	f->key0 = k.k0;
	f->key1 = k.k1;
	f->until_ms = until;
	f->ans = ans;
	return ans;
}

/* ---- Egress: lanes, cut-through, arbiter, shaper ---------------------- */

/* meta of a queued frame: its ECN codepoint, so the dequeue decision needs
 * no access to the frame unless it marks. */
#define QM_IP 0x4

static void
lane_drop(struct ibex_worker *w, struct ibex_egress *e, uint16_t out,
	  unsigned int vl, struct rte_mbuf *m, enum ibex_reason r)
{
	IBEX_CNT_ADD(e->lane[vl].drops, 1);
	drop(&w->cnt[out], m, r);
}

/* The TOS / traffic-class byte of an IP frame with @p tagged one tag;
 * false (and 0) for other frames. */
static inline bool
frame_tos(const uint8_t *eth, bool tagged, unsigned int *tos)
{
	const uint8_t *l3 = eth + (tagged ? 18 : 14);
	uint16_t et = ibex_rd16(l3 - 2);

	if (et == 0x0800) {
		*tos = l3[1];
		return true;
	}
	if (et == 0x86dd) {
		*tos = (ibex_rd16(l3) >> 4) & 0xff;
		return true;
	}
	*tos = 0;
	return false;
}

/* The ECN codepoint of a frame about to wait in a lane (| QM_IP for IP
 * frames), for the decision at dequeue. Read here, on the queueing path,
 * so the cut-through path never looks past the Ethernet header for it. */
static uint8_t
frame_qmeta(const struct rte_mbuf *m)
{
	const uint8_t *eth = rte_pktmbuf_mtod(m, const uint8_t *);
	uint16_t et = ibex_rd16(eth + 12);
	unsigned int tos;

	/* One tag, 802.1Q or 802.1ad, as ibex_pkt_parse() takes it. */
	if (!frame_tos(eth, et == 0x8100 || et == 0x88a8, &tos))
		return 0;
	return (tos & 3) | QM_IP;
}

/* A frame leaves after its blocks were charged: give them back. */
static inline void
uncharge(struct ibex_worker *w, uint16_t src, uint32_t len)
{
	if (unlikely(src & IBEX_FC_SRC_CHARGED))
		ibex_fc_release(w->fc, src, len);
}

/* Was the frame charged to a lossless (ingress port, VL)? Then its room
 * was granted by the buffer and the egress queue bound does not apply. */
static inline bool
src_lossless(const struct ibex_worker *w, uint16_t src)
{
	return (src & IBEX_FC_SRC_CHARGED) &&
	       (w->fc->port[IBEX_FC_SRC_PORT(src)].lossless >>
		IBEX_FC_SRC_VL(src) & 1);
}

/*
 * UEC packet trimming: lane @p vl of @p out is full and would tail-drop
 * @p m (no longer charged to the buffer). Cut it to the port's trim
 * length, re-mark its DSCP and queue it on the trim lane, which the
 * arbiter serves ahead: the receiver learns of the loss at once. Unicast
 * IP/UDP frames only, not multicast, CNPs, frames shared by several ports
 * or chained in segments. @return false: drop it.
 */
static bool
lane_trim(struct ibex_worker *w, struct ibex_egress *e, uint16_t out,
	  struct rte_mbuf *m, unsigned int vl)
{
	uint8_t *eth = rte_pktmbuf_mtod(m, uint8_t *);
	struct ibex_vlq *tq = &e->q[e->trim.vl];
	struct ibex_pkt_info info;
	unsigned int tv = e->trim.vl;

	if (m->nb_segs != 1 || rte_mbuf_refcnt_read(m) != 1 ||
	    ibex_mac_is_group(eth) ||
	    ibex_pkt_parse(eth, m->data_len, &info) != IBEX_R_OK ||
	    !ibex_pkt_trim_eligible(eth, &info))
		return false;
	/* A frame no longer than a notice goes whole, unchanged, on the
	 * notices' lane (as Spectrum forwards it at the trimmed frames'
	 * priority): cutting it would save nothing. */
	if (m->pkt_len > e->trim.len) {
		if (ibex_pkt_trim(eth, m->pkt_len, &info, e->trim.len,
				  e->trim.dscp) != 0)
			return false;
		rte_pktmbuf_trim(m, (uint16_t)(m->pkt_len - e->trim.len));
	}
	if (!ibex_vlq_push(tq, m, m->pkt_len, w->rx_tsc, frame_qmeta(m), 0))
		return false;
	IBEX_CNT_ADD(e->lane[vl].trimmed, 1);
	IBEX_CNT_ADD(e->lane[tv].queued, 1);
	if (!(w->gate[out] >> tv & 1)) {
		w->gate[out] |= 1u << tv;
		e->head_len[tv] = m->pkt_len;
	}
	w->pending_tx |= UINT64_C(1) << out;
	return true;
}

/* The frame could not cut through: wait in the lane queue. */
static void
lane_enqueue(struct ibex_worker *w, struct ibex_egress *e, uint16_t out,
	     struct rte_mbuf *m, unsigned int vl, uint16_t src)
{
	struct ibex_vlq *q = &e->q[vl];
	uint32_t len = m->pkt_len;
	uint8_t qmeta = frame_qmeta(m);
	bool ok;

	if (likely(!src_lossless(w, src)))
		ok = ibex_vlq_push(q, m, len, w->rx_tsc, qmeta, src);
	else
		ok = ibex_vlq_push_admitted(q, m, len, w->rx_tsc, qmeta, src);
	if (unlikely(!ok)) {
		uncharge(w, src, len);
		if (src_lossless(w, src)) {
			lane_drop(w, e, out, vl, m, IBEX_R_FC_VIOLATION);
			return;
		}
		if (e->trim.len == 0 || vl == e->trim.vl ||
		    !lane_trim(w, e, out, m, vl))
			lane_drop(w, e, out, vl, m, IBEX_R_LOSSY_FULL);
		return;
	}
	IBEX_CNT_ADD(e->lane[vl].queued, 1);
	if (!(w->gate[out] >> vl & 1)) {
		w->gate[out] |= 1u << vl;
		e->head_len[vl] = len;
	}
	w->pending_tx |= UINT64_C(1) << out;
}

/* Flow control of an egress lane: the port's state, or NULL. */
static inline struct ibex_fc_port *
egress_fc(struct ibex_worker *w, uint16_t out)
{
	struct ibex_fc *fc = w->fc;

	return fc != NULL && (fc->fc_ports >> out & 1) ? &fc->port[out] : NULL;
}

/* Does lane @p vl of a credit port need credit for its frames? Lossless
 * lanes do; lossy lanes go and may be dropped downstream. */
static inline bool
needs_credit(const struct ibex_fc_port *fp, unsigned int vl)
{
	return fp != NULL && fp->mode == IBEX_FC_CREDIT &&
	       (fp->lossless >> vl & 1);
}

/* Does lane @p vl of a CBFC port obey the send rule? */
static inline bool
needs_cbfc(const struct ibex_fc_port *fp, unsigned int vl)
{
	return fp != NULL && fp->mode == IBEX_FC_CBFC &&
	       (fp->lossless >> vl & 1);
}

/*
 * What flow control adds up over one RX burst: a burst comes from one
 * port and its frames are mostly of one lane and go mostly to one egress
 * lane, so the blocks its frames charge to their ingress lane (on credit
 * ports also their ABR) and the credit they take on a credit egress lane
 * are summed and written once. A frame of another lane, or one that
 * leaves the fast path (which may admit, release or parse a credit frame:
 * ABR := FCTBS must not be followed by blocks the peer already counted,
 * nor a credit frame carry an FCTBS short of what was sent), writes the
 * sums first (burst_flush()).
 */
#define ACC_NONE 0xffu
#define CR_NONE UINT32_MAX
/* An egress lane: its port and VL in one word. */
#define CR_LANE(out, vl) ((uint32_t)(out) | (uint32_t)(vl) << 16)
#define CR_LANE_PORT(l) ((uint16_t)(l))
#define CR_LANE_VL(l) ((l) >> 16)

struct burst_acc {
	uint32_t in_port;
	unsigned int ch_vl;      /* lane being charged, ACC_NONE for none */
	uint32_t ch_room;        /* blocks it may still take unchecked */
	uint32_t ch_room0;       /* ch_room when the lane was taken up */
	uint16_t ch_src;         /* IBEX_FC_SRC(in_port, ch_vl) */
	bool ch_abr;             /* a credit port: ABR counts them too */
	uint32_t cr_lane;        /* CR_LANE() of the egress lane whose credit
				    is being taken, CR_NONE for none */
	uint32_t cr_stop;        /* the gate bits that stop that lane */
	uint32_t cr_avail;       /* blocks it may still send */
	uint32_t cr_avail0;      /* cr_avail when the lane was taken up */
};

/* Several workers: of a claim, @p used blocks went to TX (they count in
 * FCTBS once TX takes them), @p unused go back to the lane. */
static __rte_noinline void
credit_flush_multi(struct ibex_fc *fc, uint16_t out, unsigned int vl,
		   uint32_t used, uint32_t unused)
{
	fc->cr_pend[out][vl] += used;
	ibex_fc_credit_unclaim(fc->sh, out, vl, unused);
}

/* Several workers: claim @p n blocks for one frame. */
static __rte_noinline bool
credit_take_multi(struct ibex_fc *fc, uint16_t out, unsigned int vl,
		  uint32_t n)
{
	if (ibex_fc_credit_claim(fc->sh, out, vl, n, n) == 0)
		return false;
	fc->cr_pend[out][vl] += n;
	return true;
}

/* Add the credit the burst took on one egress lane to its FCTBS. */
static inline void
burst_flush_credit(struct ibex_worker *w, struct burst_acc *a)
{
	uint16_t out = CR_LANE_PORT(a->cr_lane);
	struct ibex_fc_port *fp = &w->fc->port[out];

	if (unlikely(w->fc->multi))
		credit_flush_multi(w->fc, out, CR_LANE_VL(a->cr_lane),
				   a->cr_avail0 - a->cr_avail, a->cr_avail);
	else
		ibex_credit_tx_sent(&fp->cp, CR_LANE_VL(a->cr_lane),
				    a->cr_avail0 - a->cr_avail);
	a->cr_lane = CR_NONE;
}

/* Charge the blocks the burst's frames took on their ingress lane and, on
 * a credit port, count them in its ABR: the same blocks, as every frame
 * that reaches the fast path is both charged and counted. */
static inline void
burst_flush_charge(struct ibex_worker *w, struct burst_acc *a)
{
	uint32_t blocks = a->ch_room0 - a->ch_room;
	struct ibex_fc_port *fp = &w->fc->port[a->in_port];

	ibex_buf_charge_reserved(&w->fc->buf, a->in_port, a->ch_vl, blocks);
	if (a->ch_abr && a->ch_vl < fp->cp.n_vls)
		ibex_credit_rx_data(&fp->cp, a->ch_vl, blocks);
	a->ch_vl = ACC_NONE;
}

static inline void
burst_flush(struct ibex_worker *w, struct burst_acc *a)
{
	if (a->ch_vl != ACC_NONE)
		burst_flush_charge(w, a);
	if (a->cr_lane != CR_NONE)
		burst_flush_credit(w, a);
}

/* Frames a TX buffer may hold before a frame of lane @p vl queues: the
 * worker's ct_limit on a lossless lane (a burst under the virtual clock,
 * so that a pause holds the rest), IBEX_CT_LIMIT on the others. */
static inline uint16_t
ct_limit_of(const struct ibex_worker *w, const struct ibex_fc_port *fp,
	    unsigned int vl)
{
	return fp != NULL && (fp->lossless >> vl & 1) ? w->ct_limit :
							 IBEX_CT_LIMIT;
}

/* The send rule for a CBFC frame of @p n credits, a refusal counted. */
static bool
cbfc_may_send(const struct ibex_fc_port *fp, unsigned int vl, uint32_t n)
{
	if (ibex_cbfc_tx_ok(fp->cb, vl, n))
		return true;
	fp->cb->st.vc[vl].tx_blocked++;
	return false;
}

/* The slow side of egress_send(): a shaped or flow-controlled port, lanes
 * in use, a frame charged to the buffer, or a TX buffer past ct_limit. */
static void
egress_send_slow(struct ibex_worker *w, uint16_t out, struct rte_mbuf *m,
		 unsigned int vl, uint16_t src)
{
	struct ibex_egress *e = w->eg[out];
	struct ibex_fc_port *fp = egress_fc(w, out);
	uint32_t g = w->gate[out];
	bool credit = needs_credit(fp, vl), cbfc = needs_cbfc(fp, vl);
	uint32_t cbfc_n = cbfc ? ibex_cbfc_credits(fp->cb, m->pkt_len) : 0;

	if (unlikely(fp != NULL && (fp->wd_drop >> vl & 1))) {
		uncharge(w, src, m->pkt_len);
		lane_drop(w, e, out, vl, m, IBEX_R_WATCHDOG);
		return;
	}
	if ((g & (IBEX_GATE_BUSY | IBEX_GATE_BLOCKED(vl))) != 0 ||
	    w->tx[out].count >= ct_limit_of(w, fp, vl) ||
	    (credit && !w->fc->multi &&
	     !ibex_credit_tx_ok(&fp->cp, vl, ibex_blocks(m->pkt_len))) ||
	    (cbfc && !cbfc_may_send(fp, vl, cbfc_n)))
		goto queue;
	if (ibex_shaper_on(&e->shaper)) {
		ibex_shaper_refill(&e->shaper, w->rx_tsc);
		if (!ibex_shaper_ready(&e->shaper) &&
		    !ibex_shaper_reclaim(&e->shaper, w->rx_tsc))
			goto queue;
	}
	/* Several workers take the lane's credit in one step. */
	if (credit && w->fc->multi &&
	    !credit_take_multi(w->fc, out, vl, ibex_blocks(m->pkt_len)))
		goto queue;
	if (ibex_shaper_on(&e->shaper))
		ibex_shaper_take(&e->shaper, m->pkt_len);
	if (credit && !w->fc->multi)
		ibex_credit_tx_sent(&fp->cp, vl, ibex_blocks(m->pkt_len));
	if (cbfc)
		ibex_cbfc_tx_take(fp->cb, vl, cbfc_n);
	txbuf_put_charged(w, out, m, vl, src);
	return;
queue:
	lane_enqueue(w, e, out, m, vl, src);
}

/* credit_take_lane() with several workers: the burst claims a chunk of
 * the lane's shared credit; what it leaves goes back at its end. Out of
 * line, so that the one-worker path keeps its registers. */
static __rte_noinline bool
credit_take_lane_multi(struct ibex_worker *w, uint16_t out, unsigned int vl,
		       uint32_t n, struct burst_acc *a)
{
	uint32_t avail;

	if (a == NULL)
		return credit_take_multi(w->fc, out, vl, n);
	if (a->cr_lane != CR_NONE)
		burst_flush_credit(w, a);
	avail = ibex_fc_credit_claim(w->fc->sh, out, vl, n,
				     IBEX_FC_CLAIM_BLOCKS);
	if (avail == 0)
		return false;
	a->cr_lane = CR_LANE(out, vl);
	a->cr_stop = IBEX_GATE_BUSY | IBEX_GATE_SHAPED | IBEX_GATE_BLOCKED(vl);
	a->cr_avail0 = avail;
	a->cr_avail = avail - n;
	return true;
}

/* egress_may_send() beyond the lane the burst takes credit on: a lossy
 * lane needs none; a lossless one starts the burst's sum afresh with what
 * the peer granted it, as blocks. A CBFC lane takes the credits of its
 * frame @p m, each frame on its own. */
static bool
credit_take_lane(struct ibex_worker *w, uint16_t out, unsigned int vl,
		 uint32_t n, const struct rte_mbuf *m, struct burst_acc *a)
{
	struct ibex_fc_port *fp = &w->fc->port[out];
	uint32_t avail;

	if (!(fp->lossless >> vl & 1))
		return true;
	if (fp->mode == IBEX_FC_CBFC) {
		uint32_t c = ibex_cbfc_credits(fp->cb, m->pkt_len);

		/* A refusal is counted where the frame then waits
		 * (cbfc_may_send(), cbfc_blocked()), once. */
		return ibex_cbfc_tx_ok(fp->cb, vl, c) &&
		       ibex_cbfc_tx_take(fp->cb, vl, c);
	}
	if (unlikely(w->fc->multi))
		return credit_take_lane_multi(w, out, vl, n, a);
	if (a == NULL)
		return ibex_credit_tx_take_frame(&fp->cp, vl, n);
	if (a->cr_lane != CR_NONE)
		burst_flush_credit(w, a);
	avail = ibex_credit_tx_avail(&fp->cp, vl);
	if (n > avail)
		return false;
	a->cr_lane = CR_LANE(out, vl);
	a->cr_stop = IBEX_GATE_BUSY | IBEX_GATE_SHAPED | IBEX_GATE_BLOCKED(vl);
	a->cr_avail0 = avail;
	a->cr_avail = avail - n;
	return true;
}

/*
 * The flow control of a port whose gate word is not zero: the lane may
 * send if no frame waits on the port, it is not shaped, the lane is not
 * paused and, on a lossless lane of a credit port, the peer granted the
 * frame's credit. Over a burst the credit left on one lane is kept in @p a
 * as blocks (for a frame of 1..256 blocks, n <= left is the IB send rule)
 * with the gate bits that stop the lane, and FCTBS moves once, in
 * burst_flush(): the common case is a compare of the lane, a test of the
 * gate and the credit compare.
 */
static inline __rte_always_inline bool
egress_may_send(struct ibex_worker *w, uint16_t out, unsigned int vl,
		uint32_t g, uint32_t n, const struct rte_mbuf *m,
		struct burst_acc *a)
{
	if (likely(a != NULL && CR_LANE(out, vl) == a->cr_lane &&
		   !(g & a->cr_stop) && n <= a->cr_avail)) {
		a->cr_avail -= n;
		return true;
	}
	if (g & (IBEX_GATE_BUSY | IBEX_GATE_SHAPED | IBEX_GATE_BLOCKED(vl)))
		return false;
	return !(g & IBEX_GATE_CREDIT) || !(w->credit_lanes[out] >> vl & 1) ||
	       credit_take_lane(w, out, vl, n, m, a);
}

/*
 * Per frame: send @p m to port @p out on lane @p vl. Cut through when no
 * lane of the port has a frame waiting, the lane may send (not paused,
 * credit), TX has room this iteration and the port is not shaped;
 * otherwise take the slow side. The common case is one load of the
 * port's gate word and one compare.
 */
static inline __rte_always_inline void
egress_send(struct ibex_worker *w, uint16_t out, struct rte_mbuf *m,
	    unsigned int vl, uint16_t src, uint32_t blocks,
	    struct burst_acc *acc)
{
	struct ibex_txbuf *tb = txbuf_of(w, out);
	uint32_t g = w->gate[out];

	/* A gate word of zero sends at once. */
	if (likely(tb->count < w->ct_limit &&
		   (g == 0 ||
		    egress_may_send(w, out, vl, g, blocks, m, acc)))) {
		txbuf_put(w, tb, out, m, vl, IBEX_TXCHARGE(src, blocks));
		return;
	}
	if (acc != NULL)
		burst_flush(w, acc);
	egress_send_slow(w, out, m, vl, src);
}

/* The length to parse a frame with: a chained frame whose headers are
 * in its first segment (IBEX_PKT_HDR_MAX, as the ingress check left it)
 * parses as a whole; headers and the bytes marking writes are there. */
static inline uint32_t
frame_parse_len(const struct rte_mbuf *m)
{
	if (likely(m->nb_segs == 1) ||
	    m->data_len < RTE_MIN(m->pkt_len, (uint32_t)IBEX_PKT_HDR_MAX))
		return m->data_len;
	return m->pkt_len;
}

/* ECN at dequeue (docs/ecn.md): decide on the backlog the frame leaves
 * behind; parse the frame again only to mark it. */
static void
lane_ecn(struct ibex_worker *w, const struct ibex_dp_egress_conf *ec,
	 struct ibex_egress *e, unsigned int vl,
	 const struct ibex_vlq_ent *ent, uint64_t now)
{
	struct rte_mbuf *m = ent->frame;
	struct ibex_pkt_info info;
	uint8_t *eth;

	if (ibex_ecn_decide(&ec->ecn[vl], &e->ecn_vars[vl], &e->ecn_stats[vl],
			    &w->rng, (uint32_t)e->q[vl].bytes, now,
			    ent->meta & 3) != IBEX_ECN_V_MARK)
		return;
	eth = rte_pktmbuf_mtod(m, uint8_t *);
	/* A flooded frame is shared by several ports: marking it for one
	 * would mark it for all, so shared frames are left as they are.
	 * The decision counted the frame as marked: take that back, so
	 * that marked is the number of frames that left as CE. */
	if (unlikely(rte_mbuf_refcnt_read(m) != 1 ||
		     ibex_pkt_parse(eth, frame_parse_len(m), &info) !=
		     IBEX_R_OK)) {
		e->ecn_stats[vl].marked--;
		return;
	}
	ibex_pkt_set_ecn(eth, &info, IBEX_ECN_CE);
	if ((ec->fecn >> vl & 1) && (info.flags & IBEX_PKT_F_ROCE)) {
		ibex_bth_set_fecn(eth + info.bth_off);
		IBEX_CNT_ADD(e->lane[vl].fecn_marked, 1);
	}
}

/* Lanes of a credit port whose head frame has no credit yet. */
static uint32_t
credit_blocked(const struct ibex_fc_port *fp, const struct ibex_egress *e,
	       uint32_t lanes, const struct ibex_fc_shared *sh, uint16_t port)
{
	uint32_t out = 0, v_set = lanes & fp->lossless;

	while (v_set != 0) {
		unsigned int v = __builtin_ctz(v_set);

		v_set &= v_set - 1;
		if (sh != NULL ?
		    ibex_fc_credit_avail(sh, port, v) <
			ibex_blocks(e->head_len[v]) :
		    !ibex_credit_tx_ok(&fp->cp, v, ibex_blocks(e->head_len[v])))
			out |= 1u << v;
	}
	return out;
}

/* Lanes of a CBFC port whose head frame the send rule holds back (each
 * refusal counted, as ibex_cbfc_tx_take() counts them). */
static uint32_t
cbfc_blocked(const struct ibex_fc_port *fp, const struct ibex_egress *e,
	     uint32_t lanes)
{
	uint32_t out = 0, v_set = lanes & fp->lossless;

	while (v_set != 0) {
		unsigned int v = __builtin_ctz(v_set);

		v_set &= v_set - 1;
		if (!ibex_cbfc_tx_ok(fp->cb, v,
				     ibex_cbfc_credits(fp->cb, e->head_len[v]))) {
			out |= 1u << v;
			fp->cb->st.vc[v].tx_blocked++;
		}
	}
	return out;
}

/* Pop the head of lane @p vl, keeping the gate and head length right. */
static inline void
lane_pop(struct ibex_worker *w, struct ibex_egress *e, uint16_t port,
	 unsigned int vl, struct ibex_vlq_ent *ent)
{
	ibex_vlq_pop(&e->q[vl], ent);
	if (ibex_vlq_empty(&e->q[vl]))
		w->gate[port] &= ~(1u << vl);
	else
		e->head_len[vl] = ibex_vlq_head(&e->q[vl])->len;
}

/*
 * After an SL->VL change: the lanes that still hold frames queued before
 * it (the latest change, when several came while frames waited). Until
 * they are gone, the port sends in arrival order (fence_pick()).
 */
static uint32_t
fence_lanes(struct ibex_egress *e)
{
	uint32_t live = 0, v_set = e->fence;

	while (v_set != 0) {
		unsigned int v = __builtin_ctz(v_set);

		v_set &= v_set - 1;
		if ((int32_t)(e->fence_tail[v] - e->q[v].head) > 0)
			live |= 1u << v;
	}
	e->fence = (uint16_t)live;
	return live;
}

/*
 * While fenced: the lane whose head frame arrived first, among all lanes
 * with frames; -1 when that lane may not send now (paused, no credit):
 * then nothing goes. Later frames of a moved SL sit in another lane than
 * its earlier ones; arrival order keeps every SL in order however many
 * changes overlap (frames of one iteration share one table, so an SL's
 * frames with equal times are in one lane).
 */
static int
fence_pick(const struct ibex_egress *e, uint32_t busy, uint32_t elig)
{
	uint64_t oldest = UINT64_MAX;
	int pick = -1;

	while (busy != 0) {
		unsigned int v = __builtin_ctz(busy);
		uint64_t t = ibex_vlq_head(&e->q[v])->rx_tsc;

		busy &= busy - 1;
		if (t < oldest) {
			oldest = t;
			pick = (int)v;
		}
	}
	return pick >= 0 && (elig >> pick & 1) ? pick : -1;
}

/* PFC watchdog, action drop: discard what a stormed lane holds. */
static void
lanes_watchdog_drain(struct ibex_worker *w, struct ibex_egress *e,
		     uint16_t port, uint32_t lanes)
{
	struct ibex_vlq_ent ent;

	while (lanes != 0) {
		unsigned int v = __builtin_ctz(lanes);

		lanes &= lanes - 1;
		while (!ibex_vlq_empty(&e->q[v])) {
			lane_pop(w, e, port, v, &ent);
			uncharge(w, ent.src, ent.len);
			lane_drop(w, e, port, v, ent.frame, IBEX_R_WATCHDOG);
		}
	}
}

/*
 * End of iteration, for a port with frames queued: let the VL arbiter and
 * the shaper move up to one burst from the eligible lanes (frames
 * waiting, downstream credit, not paused) into the TX buffer.
 */
static void
egress_arbitrate(struct ibex_worker *w, const struct ibex_dp_tables *t,
		 uint16_t port, uint64_t now)
{
	struct ibex_egress *e = w->eg[port];
	struct ibex_txbuf *tb = &w->tx[port];
	const struct ibex_dp_egress_conf *ec = &t->eg[port];
	struct ibex_fc_port *fp = egress_fc(w, port);
	const uint16_t room = w->dp->burst;
	bool shaped = ibex_shaper_on(&e->shaper);

	if (shaped)
		ibex_shaper_refill(&e->shaper, now);
	if (unlikely(fp != NULL && (fp->wd_drop & w->gate[port])))
		lanes_watchdog_drain(w, e, port, fp->wd_drop & w->gate[port]);
	while (tb->count < room) {
		uint32_t g = w->gate[port];
		uint32_t elig = g & ~(g >> 16) & IBEX_GATE_BUSY;
		struct ibex_vlq_ent ent;
		int vl;

		if (fp != NULL && fp->mode == IBEX_FC_CREDIT)
			elig &= ~credit_blocked(fp, e, elig,
				w->fc->multi ? w->fc->sh : NULL, port);
		else if (fp != NULL && fp->mode == IBEX_FC_CBFC)
			elig &= ~cbfc_blocked(fp, e, elig);
		/* An empty bucket: a port shaped by several workers may still
		 * have a grant to claim. */
		if (elig == 0 || (shaped && !ibex_shaper_ready(&e->shaper) &&
				  !ibex_shaper_reclaim(&e->shaper, now)))
			break;
		if (unlikely(e->fence != 0) && fence_lanes(e) != 0) {
			vl = fence_pick(e, g & IBEX_GATE_BUSY, elig);
			if (vl < 0)
				break;
			goto pop;
		}
		vl = ibex_vlarb_next(&e->arb, elig, e->head_len);
		/* A lane no table serves (a live change removed it) still
		 * drains, lowest first, rather than holding frames forever. */
		if (vl < 0)
			vl = __builtin_ctz(elig);
		else
			ibex_vlarb_charge(&e->arb, (unsigned int)vl,
					  e->head_len[vl]);
pop:
		/* Several workers: the credit seen above may have gone to
		 * another; the head waits for the next round. */
		if (unlikely(w->fc != NULL && w->fc->multi) &&
		    needs_credit(fp, (unsigned int)vl) &&
		    !credit_take_multi(w->fc, port, (unsigned int)vl,
				       ibex_blocks(e->head_len[vl])))
			break;
		/* The head's credits, before it leaves its lane
		 * (cbfc_blocked() saw they are there). */
		if (needs_cbfc(fp, (unsigned int)vl) &&
		    !ibex_cbfc_tx_take(fp->cb, (unsigned int)vl,
				       ibex_cbfc_credits(fp->cb,
							 e->head_len[vl])))
			break;
		lane_pop(w, e, port, (unsigned int)vl, &ent);
		if ((ec->ecn_on >> vl & 1) && (ent.meta & QM_IP))
			lane_ecn(w, ec, e, (unsigned int)vl, &ent, now);
		if (shaped)
			ibex_shaper_take(&e->shaper, ent.len);
		if (needs_credit(fp, (unsigned int)vl) && !w->fc->multi)
			ibex_credit_tx_sent(&fp->cp, (unsigned int)vl,
					    ibex_blocks(ent.len));

		txbuf_put_queued(w, port, &ent, (unsigned int)vl, now);
	}
}

/* ---- Ingress ----------------------------------------------------------- */

/*
 * Management frames (VL15): RoCEv2 frames to QP0, the queue pair IB
 * reserves for subnet management (its SMPs always travel on VL15) and
 * which RoCE traffic never uses. They bypass arbitration and flow control,
 * enter only on trusted ports, at most one per vl15_tsc ticks per port.
 */
static inline __rte_always_inline bool
is_mgmt(const uint8_t *eth, uint32_t chk)
{
	uint32_t w;

	if (!(IBEX_PKT_CHECK_FLAGS(chk) & IBEX_PKT_F_ROCE))
		return false;
	/* Bytes 4-7 of the BTH: reserved/FECN/BECN, then the 24-bit dest
	 * QP: zero in bytes 5-7, whatever the byte order of the load. */
	memcpy(&w, eth + IBEX_PKT_CHECK_BTH(chk) + 4, sizeof(w));
	return (w & rte_cpu_to_be_32(0xffffff)) == 0;
}

static bool
mgmt_admit(struct ibex_worker *w, const struct ibex_dp_tables *t,
	   struct ibex_port_counters *c, struct rte_mbuf *m, uint16_t in_port)
{
	struct ibex_vl15_bucket *b = &w->vl15[in_port];

	if (!(t->trusted >> in_port & 1)) {
		drop(c, m, IBEX_R_VL15_UNTRUSTED);
		return false;
	}
	if ((int64_t)(w->rx_tsc - b->next_tsc) < 0) {
		drop(c, m, IBEX_R_VL15_RATE);
		return false;
	}
	/* Strictly one frame per interval: management never bursts. */
	b->next_tsc = w->rx_tsc + t->vl15_tsc;
	return true;
}

/* A management frame goes straight to TX, ahead of every lane. */
static void
mgmt_send(struct ibex_worker *w, uint16_t out, struct rte_mbuf *m)
{
	if (unlikely(w->tx[out].count >= IBEX_TXBUF_LEN)) {
		lane_drop(w, w->eg[out], out, IBEX_VL_MGMT, m, IBEX_R_TX_FULL);
		return;
	}
	txbuf_put(w, txbuf_of(w, out), out, m, IBEX_VL_MGMT, 0);
}

bool
ibex_dp_tx_drained(struct ibex_worker *w, uint16_t port)
{
	if (w->tx[port].count != 0)
		txbuf_flush(w, port, ibex_clock_now());
	return w->tx[port].count == 0;
}

/*
 * A frame's class word ("cls"): what it carries from ingress to its egress
 * ports, packed in one register. Bits 0-3 its SL and 4-7 the flags of the
 * classifier entry it came from (IBEX_CLASS_*, ibex_dp_private.h), as the
 * tables hold them; bit 16 CLS_MGMT for a management frame; on a port with
 * flow control, bit 17 CLS_CHARGE with the ingress lane in bits 18-21 and
 * the ingress port in bits 22-27. A struct on the stack would be written in
 * narrow pieces and read back whole: a store-forwarding stall.
 */
#define CLS_SL(cls) ((cls) & 0xfu)
#define CLS_MGMT 0x10000u
/* The ingress port runs flow control: charge the frame's blocks to
 * (CLS_IN_PORT, CLS_IN_VL). */
#define CLS_CHARGE 0x20000u
#define CLS_IN_VL(cls) (((cls) >> 18) & 0xfu)
#define CLS_IN_PORT(cls) (((cls) >> 22) & 0x3fu)

/*
 * Buffer admission of one egress copy (docs/flow-control.md §2). A lossy lane
 * that is full tail-drops; a lossless lane that is full means the peer
 * ignored our credits or pauses: a protocol violation, counted as such.
 * @return the frame's charge tag, or 0 when it was dropped.
 */
static uint16_t
fc_admit_slow(struct ibex_worker *w, struct rte_mbuf *m, unsigned int in,
	      unsigned int vl)
{
	struct ibex_fc *f = w->fc;
	struct ibex_buf_result r;

	r = ibex_buf_admit(&f->buf, in, vl, ibex_blocks(m->pkt_len));
	if (unlikely(r.verdict == IBEX_BUF_TAIL_DROP)) {
		drop(&w->cnt[in], m, IBEX_R_LOSSY_FULL);
		return 0;
	}
	if (unlikely(r.verdict == IBEX_BUF_VIOLATION)) {
		IBEX_CNT_ADD(f->port[in].cnt.violations[vl], 1);
		drop(&w->cnt[in], m, IBEX_R_FC_VIOLATION);
		return 0;
	}
	ibex_fc_pause_edge(f, in, vl, r.pause);
	return (uint16_t)IBEX_FC_SRC(in, vl);
}

/* The common case inline: the frame fits its lane's reserved share. */
static inline __rte_always_inline uint16_t
fc_admit_lane(struct ibex_worker *w, struct rte_mbuf *m, unsigned int in,
	      unsigned int vl)
{
	if (likely(ibex_buf_admit_reserved(&w->fc->buf, in, vl,
					   ibex_blocks(m->pkt_len))))
		return (uint16_t)IBEX_FC_SRC(in, vl);
	return fc_admit_slow(w, m, in, vl);
}

/* A data frame from a credit port: ABR counts what the peer sent, before
 * any drop decision of the buffer. */
static inline void
fc_count_abr(struct ibex_worker *w, const struct rte_mbuf *m,
	     uint16_t in_port, unsigned int vl)
{
	struct ibex_fc_port *fp = &w->fc->port[in_port];

	if (fp->mode == IBEX_FC_CREDIT && vl < fp->cp.n_vls)
		ibex_credit_rx_data(&fp->cp, vl, ibex_blocks(m->pkt_len));
}

/* A data frame from a CBFC port: R_CC counts what the peer sent, as it
 * arrives, before any drop decision; what the lane's buffer does not hold
 * of it is freed with the next CF_Update (ibex_fc_cbfc.c). */
static inline void
fc_count_cbfc(struct ibex_worker *w, const struct rte_mbuf *m,
	      uint16_t in_port, unsigned int vl)
{
	struct ibex_fc_port *fp = &w->fc->port[in_port];

	ibex_cbfc_rx_stored(fp->cb, vl, ibex_cbfc_credits(fp->cb, m->pkt_len));
}

/*
 * Ingress flow control of a flow-cache hit: its charge (and on a credit
 * port its ABR, the same blocks) summed in @p a while its lane can take
 * it unchecked. @return whether it could; then a->ch_src is the frame's
 * charge tag.
 */
static inline __rte_always_inline bool
fc_ingress_fast(unsigned int vl, uint32_t n, struct burst_acc *a)
{
	if (likely(vl == a->ch_vl && n <= a->ch_room)) {
		a->ch_room -= n;
		return true;
	}
	return false;
}

/* fc_ingress_fast() failed: the burst takes up lane @p vl, if the frame
 * fits its reserved share, else the frame is admitted on its own.
 * @return the charge tag, 0 when the frame was dropped. */
static uint16_t
fc_ingress_lane(struct ibex_worker *w, struct rte_mbuf *m, unsigned int vl,
		uint32_t n, uint32_t cls, struct burst_acc *a)
{
	uint16_t in = a->in_port;

	if (a->ch_vl != ACC_NONE)
		burst_flush_charge(w, a);
	/* A CBFC port counts each frame's own credits: no burst sum. */
	if (unlikely(cls & IBEX_CLASS_CREDIT) &&
	    w->fc->port[in].mode == IBEX_FC_CBFC) {
		fc_count_cbfc(w, m, in, vl);
		return fc_admit_lane(w, m, in, vl);
	}
	a->ch_room = ibex_buf_fast_room(&w->fc->buf, in, vl);
	if (likely(n <= a->ch_room)) {
		a->ch_vl = vl;
		a->ch_src = (uint16_t)IBEX_FC_SRC(in, vl);
		a->ch_abr = (cls & IBEX_CLASS_CREDIT) != 0;
		a->ch_room0 = a->ch_room;
		a->ch_room -= n;
		return a->ch_src;
	}
	burst_flush(w, a);
	if (cls & IBEX_CLASS_CREDIT)
		fc_count_abr(w, m, in, vl);
	return fc_admit_slow(w, m, in, vl);
}

static uint16_t
fc_admit(struct ibex_worker *w, struct rte_mbuf *m, uint32_t cls)
{
	return fc_admit_lane(w, m, CLS_IN_PORT(cls), CLS_IN_VL(cls));
}

/* Hand a frame to egress port @p out on lane @p vl (not a drop lane).
 * The slow side's way out: a frame longer than the shortest port's limit
 * (t->frame_fast) comes only this way, so here it meets the egress
 * port's. */
static inline __rte_always_inline void
egress_vl(struct ibex_worker *w, const struct ibex_dp_tables *t,
	  uint16_t out, struct rte_mbuf *m, uint32_t cls, unsigned int vl)
{
	uint16_t src = 0;

	if (unlikely(m->pkt_len > t->frame_max[out])) {
		drop(&w->cnt[out], m, IBEX_R_MTU);
		return;
	}
	if (unlikely(cls & (CLS_MGMT | CLS_CHARGE))) {
		/* Management bypasses flow control and the lanes. */
		if (cls & CLS_MGMT) {
			mgmt_send(w, out, m);
			return;
		}
		src = fc_admit(w, m, cls);
		if (src == 0)
			return;
	}
	egress_send(w, out, m, vl, src, ibex_blocks(m->pkt_len), NULL);
}

/* Same, finding the lane from the port's SL->VL table. */
static inline void
egress_one(struct ibex_worker *w, const struct ibex_dp_tables *t,
	   uint16_t out, struct rte_mbuf *m, uint32_t cls)
{
	unsigned int vl = ibex_sl2vl(&t->sl2vl[out], CLS_SL(cls));

	if (unlikely(ibex_vl_is_drop(vl) && !(cls & CLS_MGMT))) {
		lane_drop(w, w->eg[out], out, IBEX_VL_MGMT, m, IBEX_R_SL_DROP);
		return;
	}
	egress_vl(w, t, out, m, cls, vl);
}

/* Ingress side of flow control for a data frame: credit ports count what
 * the peer sent (ABR, before any drop decision); the frame will be
 * charged to its ingress lane. */
static uint32_t
fc_ingress(struct ibex_worker *w, const struct ibex_dp_tables *t,
	   struct rte_mbuf *m, uint16_t in_port, uint32_t cls)
{
	unsigned int vl = ibex_sl2vl(&t->sl2vl[in_port], CLS_SL(cls));

	fc_count_abr(w, m, in_port, vl);
	return cls | CLS_CHARGE | (uint32_t)vl << 18 | (uint32_t)in_port << 22;
}

/*
 * Take @p k more references on a frame, for the copies of a flood. The
 * segments of a chained frame (scatter RX) each carry their own count:
 * rte_pktmbuf_free() walks the chain and frees a segment when its own
 * count reaches zero. So every segment takes the references, and no copy
 * that leaves (TX, drop) frees a segment another copy still holds while
 * it waits in a TX buffer or lane queue. nb_segs is in the mbuf's first
 * cache line: a one-segment frame never touches the second.
 */
static inline void
frame_ref(struct rte_mbuf *m, int16_t k)
{
	rte_mbuf_refcnt_update(m, k);
	if (unlikely(m->nb_segs > 1))
		for (m = m->next; m != NULL; m = m->next)
			rte_mbuf_refcnt_update(m, k);
}

/*
 * Send a broadcast, multicast or unknown unicast frame to every other
 * port of its VLAN that is up and has flood on. A frame that came in by a
 * port with flood off is not flooded at all: that link is off the
 * fabric's flooding tree, and flooding it would send it round a loop.
 */
static void
flood(struct ibex_worker *w, const struct ibex_dp_tables *t,
      struct ibex_port_counters *c, struct rte_mbuf *m, uint16_t vid,
      uint16_t in_port, uint32_t cls)
{
	uint64_t mask = ibex_flood_mask(t->vlan_members, vid, in_port) &
			t->tx_enabled & t->flood_ports;
	unsigned int n = __builtin_popcountll(mask);

	if (unlikely(!((t->flood_ports >> in_port) & 1))) {
		drop(c, m, IBEX_R_FLOOD_OFF);
		return;
	}
	if (unlikely(n == 0)) {
		drop(c, m, IBEX_R_NO_EGRESS);
		return;
	}
	IBEX_CNT_ADD(c->flood_pkts, 1);
	/* One mbuf, n references: every TX (or drop) releases one. */
	if (n > 1)
		frame_ref(m, (int16_t)(n - 1));
	while (mask != 0) {
		uint16_t out = __builtin_ctzll(mask);

		mask &= mask - 1;
		egress_one(w, t, out, m, cls);
	}
}

/* rx_burst.untagged in DSCP mode: every frame is classified. */
#define CLASS_PER_FRAME UINT32_MAX

/*
 * What the frames of one RX burst share, looked up once per burst: the
 * tables, the ingress port and its entries in them, and what flow control
 * sums over the burst.
 */
struct rx_burst {
	const struct ibex_dp_tables *t;
	struct ibex_port_counters *cnt;
	const struct ibex_sl_class *cls;  /* the port's SL classifier */
	const struct ibex_bpf_prog *bpf;  /* its eBPF classifier, or NULL */
	uint32_t untagged;   /* class of an untagged frame in PCP mode (all
				of them), else CLASS_PER_FRAME */
	uint64_t untagged_tag;  /* and its ibex_flow_key_tag() */
	uint32_t now_ms;
	uint32_t frame_fast;     /* t->frame_fast */
	/* Check flags that send a frame the slow way: flow control, and
	 * aggregation packets where this worker aggregates. */
	uint32_t slow_flags;
	uint16_t pvid;
	struct burst_acc acc;    /* and its in_port, the burst's */
};

/*
 * Class (SL and flags) of a frame that does not take the burst's: a tagged
 * one in PCP mode reads its PCP; DSCP mode reads the TOS / traffic class
 * byte from the frame (in L1 since the check).
 */
static inline __rte_always_inline uint32_t
classify(const struct ibex_sl_class *c, const uint8_t *eth, bool tagged)
{
	unsigned int tos;
	bool ip;

	if (c->mode == IBEX_SL_FROM_PCP)
		return c->map[IBEX_SL_MAP_PCP + (eth[14] >> 5)];
	ip = frame_tos(eth, tagged, &tos);
	return ibex_sl_classify(c, tagged, eth[14] >> 5, ip, tos >> 2);
}

/* An STP BPDU: to the bridge group address, 802.3 length and LLC with
 * DSAP = SSAP = 0x42. */
static inline bool
is_stp(const struct rte_mbuf *m, const uint8_t *eth)
{
	return eth[5] == 0 && m->data_len >= 17 && ibex_rd16(eth + 12) < 0x600 &&
	       eth[14] == 0x42 && eth[15] == 0x42;
}

/*
 * A frame to the 802.1Q reserved group (01:80:C2:00:00:00-0F): an 802.1Q
 * bridge never relays it. LLDP (EtherType 0x88CC) and STP BPDUs go to the
 * port `lldp-to` / `stp-to` names for the ingress port, if any; the rest
 * are dropped as link-local.
 */
static void
link_local(struct ibex_worker *w, const struct ibex_dp_tables *t,
	   struct ibex_port_counters *c, struct rte_mbuf *m,
	   const uint8_t *eth, uint16_t in_port, uint32_t cls)
{
	uint16_t out = IBEX_PORT_NONE;

	if (t->lldp_to[in_port] != IBEX_PORT_NONE &&
	    ibex_rd16(eth + 12) == IBEX_ETHERTYPE_LLDP)
		out = t->lldp_to[in_port];
	else if (t->stp_to[in_port] != IBEX_PORT_NONE && is_stp(m, eth))
		out = t->stp_to[in_port];
	if (out == IBEX_PORT_NONE) {
		drop(c, m, IBEX_R_LINK_LOCAL);
		return;
	}
	if (!((t->tx_enabled >> out) & 1)) {
		drop(c, m, IBEX_R_PORT_DOWN);
		return;
	}
	if (cls & IBEX_CLASS_FC)
		cls = fc_ingress(w, t, m, in_port, cls);
	egress_one(w, t, out, m, cls);
}

/* An aggregation packet the switch takes: a credit port counts it as
 * any data frame (the buffer never holds it, so its credits come back
 * with the next update), then lib/agg has it. */
static void
agg_ingress(struct ibex_worker *w, const struct ibex_dp_tables *t,
	    struct rte_mbuf *m, uint16_t in_port, uint32_t cls)
{
	if (cls & IBEX_CLASS_FC)
		fc_count_abr(w, m, in_port,
			     ibex_sl2vl(&t->sl2vl[in_port], CLS_SL(cls)));
	ibex_dp_agg_rx(w, t, m, in_port, CLS_SL(cls));
}

void
ibex_dp_agg_send(struct ibex_worker *w, const struct ibex_dp_tables *t,
		 uint16_t out, struct rte_mbuf *m, unsigned int sl)
{
	if (unlikely(!((t->tx_enabled >> out) & 1))) {
		drop(&w->cnt[out], m, IBEX_R_PORT_DOWN);
		return;
	}
	egress_one(w, t, out, m, sl);
}

/*
 * Everything but the common case: source and VLAN checks, management,
 * SL drops, flow control, group and unknown destinations, and the flow
 * cache misses (which fill it).
 */
static void
forward_slow(struct ibex_worker *w, const struct ibex_dp_tables *t,
	     struct ibex_port_counters *c, struct rte_mbuf *m,
	     const uint8_t *eth, uint8_t pkt_flags, uint16_t vid,
	     uint16_t in_port, uint32_t cls, uint32_t now_ms)
{
	uint32_t ans;
	uint16_t out;

	/* A CBFC port counts every data frame as it arrives, whatever
	 * befalls it next (a frame dropped here frees its credits with the
	 * next CF_Update, not a CC_Update later). */
	if (unlikely((cls & IBEX_CLASS_CREDIT) &&
		     !(pkt_flags & IBEX_PKT_F_FC)) &&
	    w->fc->port[in_port].mode == IBEX_FC_CBFC) {
		unsigned int vl = ibex_sl2vl(&t->sl2vl[in_port], CLS_SL(cls));

		if (vl < IBEX_VL_COUNT)
			fc_count_cbfc(w, m, in_port, vl);
	}
	if (unlikely(m->pkt_len > t->frame_max[in_port])) {
		drop(c, m, IBEX_R_MTU);
		return;
	}
	/* MAC control (PAUSE, PFC) and credit frames are link-local whatever
	 * their destination: consumed (forward_checked() sends them here,
	 * flow cache or not). */
	if (unlikely(pkt_flags & IBEX_PKT_F_FC)) {
		ibex_fc_rx_frame(w, in_port, m, w->rx_tsc);
		return;
	}
	if (unlikely((pkt_flags & IBEX_PKT_F_DMAC_GROUP) &&
		     ibex_mac_is_reserved(eth))) {
		link_local(w, t, c, m, eth, in_port, cls);
		return;
	}
	if (unlikely(ibex_mac_is_group(eth + 6))) {
		drop(c, m, IBEX_R_SRC_MCAST);
		return;
	}
	if (unlikely(!((t->vlan_members[vid] >> in_port) & 1))) {
		drop(c, m, IBEX_R_VLAN_INGRESS);
		return;
	}
	/* An aggregation packet of a job this switch runs: summed here,
	 * never forwarded (ibex_dp_agg.c). */
	if (unlikely(pkt_flags & IBEX_PKT_F_AGG) &&
	    !(cls & (CLS_MGMT | IBEX_CLASS_IN_DROP)) &&
	    ibex_dp_agg_claims(w, t, m, (pkt_flags & IBEX_PKT_F_VLAN) != 0)) {
		agg_ingress(w, t, m, in_port, cls);
		return;
	}
	/* The three rare cases: management, an SL the port drops, a
	 * flow-controlled ingress port (the class map says the last two). */
	if (cls & (CLS_MGMT | IBEX_CLASS_IN_DROP | IBEX_CLASS_FC)) {
		if (cls & CLS_MGMT) {
			if (!mgmt_admit(w, t, c, m, in_port))
				return;
		} else if (cls & IBEX_CLASS_IN_DROP) {
			drop(c, m, (cls & IBEX_CLASS_BPF_DROP) ?
				   IBEX_R_BPF_DROP : IBEX_R_SL_DROP);
			return;
		} else {
			cls = fc_ingress(w, t, m, in_port, cls);
		}
	}
	if (pkt_flags & IBEX_PKT_F_DMAC_GROUP) {
		learn_check(w, t, eth + 6, vid, in_port, now_ms);
		flood(w, t, c, m, vid, in_port, cls);
		return;
	}
	ans = flow_lookup(w, t, eth, vid, in_port, CLS_SL(cls), now_ms);
	out = IBEX_FLOW_OUT(ans);
	if (out == IBEX_PORT_NONE) {
		flood(w, t, c, m, vid, in_port, cls);
		return;
	}
	if (unlikely(ibex_egress_is_ecmp(out))) {
		out = ecmp_member(w, t, m, out, IBEX_FLOW_VL(ans));
		if (out == IBEX_PORT_NONE) {
			drop(c, m, IBEX_R_PORT_DOWN);
			return;
		}
	}
	if (ans & IBEX_FLOW_CHECK) {
		if (out == in_port)
			out = ecmp_not_ingress(w, t, IBEX_FLOW_OUT(ans),
					       IBEX_FLOW_VL(ans), in_port);
		if (out == in_port) {
			drop(c, m, IBEX_R_SAME_PORT);
			return;
		}
		if (!((t->tx_enabled >> out) & 1)) {
			drop(c, m, IBEX_R_PORT_DOWN);
			return;
		}
		egress_one(w, t, out, m, cls);
		return;
	}
	egress_vl(w, t, out, m, cls, IBEX_FLOW_VL(ans));
}

/*
 * Forward one checked frame (@p chk, ibex_pkt_check()'s answer): classify,
 * look up, hand to the egress. A flow cache hit stands for every check its
 * fill passed (unicast source, VLAN membership of the ingress port, known
 * unicast destination, port up, lane not dropped; new tables empty the
 * cache), so the common case is classification and one probe. @p slow:
 * the check flags that leave the fast path, b->slow_flags; the RoCEv2
 * shape's callers pass IBEX_PKT_F_FC, a constant that folds (UDP port
 * 4791 is never an aggregation frame's).
 */
static inline __rte_always_inline void
forward_checked(struct ibex_worker *w, struct rx_burst *b,
		struct rte_mbuf *m, uint32_t chk, uint32_t given,
		uint32_t slow)
{
	const uint8_t *eth = rte_pktmbuf_mtod(m, const uint8_t *);
	bool tagged = (IBEX_PKT_CHECK_FLAGS(chk) & IBEX_PKT_F_VLAN) != 0;
	uint32_t cls, ans;
	uint64_t tag;
	uint16_t vid;

	/* @p given: the class an eBPF classifier chose; a constant
	 * CLASS_PER_FRAME everywhere else, so this test folds away. */
	if (given != CLASS_PER_FRAME) {
		vid = tagged ? (ibex_rd16(eth + 14) & 0xfff) : 0;
		if (vid == 0)
			vid = b->pvid;
		cls = given;
		tag = ibex_flow_key_tag(vid, b->acc.in_port, CLS_SL(cls));
	} else if (likely(!tagged && b->untagged != CLASS_PER_FRAME)) {
		/* PCP mode: an untagged frame is the burst's all through. */
		vid = b->pvid;
		cls = b->untagged;
		tag = b->untagged_tag;
	} else {
		/* Priority-tagged (VID 0) frames belong to the pvid too. */
		vid = tagged ? (ibex_rd16(eth + 14) & 0xfff) : 0;
		if (vid == 0)
			vid = b->pvid;
		cls = classify(b->cls, eth, tagged);
		tag = ibex_flow_key_tag(vid, b->acc.in_port, CLS_SL(cls));
	}
	if (unlikely(is_mgmt(eth, chk)))
		cls |= CLS_MGMT;
	/* A flow-control frame is consumed on the slow side, whatever its
	 * destination and whatever the port's fc mode: never forwarded. A
	 * frame longer than the shortest port's limit meets the limits of
	 * its ingress and egress ports there. */
	if (likely(!(cls & (CLS_MGMT | IBEX_CLASS_IN_DROP)) &&
		   !(IBEX_PKT_CHECK_FLAGS(chk) & slow) &&
		   m->pkt_len <= b->frame_fast)) {
		if (likely(ibex_flow_probe(w->flow_cache, eth, tag, b->now_ms,
					   &ans))) {
			/* Its buffer and credit blocks, once for both. */
			uint32_t blocks = ibex_blocks(m->pkt_len);
			uint16_t src = 0;

			/* A flow-controlled ingress port: count and charge
			 * the frame on its ingress lane. */
			if (unlikely(cls & IBEX_CLASS_FC)) {
				if (likely(fc_ingress_fast(IBEX_FLOW_IN_VL(ans),
							   blocks, &b->acc))) {
					src = b->acc.ch_src;
				} else {
					src = fc_ingress_lane(w, m,
							      IBEX_FLOW_IN_VL(ans),
							      blocks, cls,
							      &b->acc);
					if (src == 0)
						return;
				}
			}
			egress_send(w, IBEX_FLOW_OUT(ans), m, IBEX_FLOW_VL(ans), src,
				    blocks, &b->acc);
			return;
		}
	}
	/* The slow side admits and takes credit directly: the burst's sums
	 * go first, whatever the ingress port (the egress credit is summed
	 * for frames of any port). */
	burst_flush(w, &b->acc);
	forward_slow(w, b->t, b->cnt, m, eth,
		     (uint8_t)IBEX_PKT_CHECK_FLAGS(chk), vid,
		     (uint16_t)b->acc.in_port, cls, b->now_ms);
}

/*
 * Move the first @p want bytes of a chained frame into its first segment
 * (it has the tailroom: RX fills segments from the front), taking them
 * from the segments after it and freeing those left empty. Only for a
 * frame fresh from RX that nothing else holds.
 * @return 0, or -1 when the frame cannot be changed so.
 */
static int
frame_pull_headers(struct rte_mbuf *m, uint32_t want)
{
	if (rte_mbuf_refcnt_read(m) != 1 || !RTE_MBUF_DIRECT(m) ||
	    rte_pktmbuf_tailroom(m) < want - m->data_len)
		return -1;
	while (m->data_len < want) {
		struct rte_mbuf *s = m->next;
		uint16_t k;

		if (s == NULL || rte_mbuf_refcnt_read(s) != 1 ||
		    !RTE_MBUF_DIRECT(s))
			return -1;
		k = (uint16_t)RTE_MIN(want - m->data_len, s->data_len);
		memcpy(rte_pktmbuf_mtod_offset(m, uint8_t *, m->data_len),
		       rte_pktmbuf_mtod(s, uint8_t *), k);
		m->data_len += k;
		s->data_off += k;
		s->data_len -= k;
		if (s->data_len == 0) {
			m->next = s->next;
			m->nb_segs--;
			s->next = NULL;
			s->nb_segs = 1;
			rte_pktmbuf_free_seg(s);
		}
	}
	return 0;
}

/*
 * ibex_pkt_check() of any frame. A frame whose first segment holds it all
 * is checked against its data_len. For a chained frame that check stands
 * when it passes (a longer length only relaxes the checks); when it fails,
 * the frame is checked again against pkt_len with its headers in the
 * first segment, where parse reads them (IBEX_PKT_HDR_MAX).
 */
static inline uint32_t
frame_check(struct rte_mbuf *m)
{
	uint32_t chk = ibex_pkt_check_l2(rte_pktmbuf_mtod(m, uint8_t *),
					 m->data_len);

	if (likely(IBEX_PKT_CHECK_REASON(chk) == IBEX_R_OK || m->nb_segs == 1))
		return chk;
	if (m->data_len < RTE_MIN(m->pkt_len, (uint32_t)IBEX_PKT_HDR_MAX) &&
	    frame_pull_headers(m, RTE_MIN(m->pkt_len,
					  (uint32_t)IBEX_PKT_HDR_MAX)) < 0)
		return IBEX_R_SEG_HDR;
	return ibex_pkt_check_l2(rte_pktmbuf_mtod(m, uint8_t *), m->pkt_len);
}

/*
 * ibex_pkt_parse() of any frame, as frame_check() has the check: against
 * data_len, and for a chained frame that fails so, again against pkt_len
 * with its headers moved into the first segment. The first segment's
 * start does not move: a pointer to it stays good.
 */
static inline enum ibex_reason
frame_parse(struct rte_mbuf *m, struct ibex_pkt_info *info)
{
	const uint8_t *eth = rte_pktmbuf_mtod(m, const uint8_t *);
	enum ibex_reason r = ibex_pkt_parse(eth, m->data_len, info);

	if (likely(r == IBEX_R_OK || m->nb_segs == 1))
		return r;
	if (m->data_len < RTE_MIN(m->pkt_len, (uint32_t)IBEX_PKT_HDR_MAX) &&
	    frame_pull_headers(m, RTE_MIN(m->pkt_len,
					  (uint32_t)IBEX_PKT_HDR_MAX)) < 0)
		return IBEX_R_SEG_HDR;
	return ibex_pkt_parse(eth, m->pkt_len, info);
}

/* Any frame but the untagged RoCEv2 one: the general checks, then the
 * same forwarding, out of the loop. Malformed frames are counted and
 * dropped. */
static __rte_noinline void
forward_general(struct ibex_worker *w, struct rx_burst *b, struct rte_mbuf *m)
{
	uint32_t chk = frame_check(m);

	if (unlikely(IBEX_PKT_CHECK_REASON(chk) != IBEX_R_OK)) {
		drop(b->cnt, m, IBEX_PKT_CHECK_REASON(chk));
		return;
	}
	forward_checked(w, b, m, chk, CLASS_PER_FRAME, b->slow_flags);
}


/*
 * Forward one frame. The shape nearly every frame on a RoCE fabric has
 * (untagged IPv4 / UDP / RoCEv2) gets its own copy of the forwarding
 * code, inline: there the check's answer is a constant but for the group
 * bit, so the VLAN, classification and management tests fold. The check
 * leaves what forwarding needs in a register, not in a struct in memory.
 */
static inline __rte_always_inline void
forward_one(struct ibex_worker *w, struct rx_burst *b, struct rte_mbuf *m)
{
	uint32_t chk = ibex_pkt_check_roce4_untagged(
		rte_pktmbuf_mtod(m, uint8_t *), m->data_len);

	if (unlikely(chk == UINT32_MAX)) {
		forward_general(w, b, m);
		return;
	}
	forward_checked(w, b, m, chk, CLASS_PER_FRAME, IBEX_PKT_F_FC);
}

/*
 * The context of an eBPF classifier from the parse: fields in host order,
 * then the frame's first bytes; only the parts @p use (IBEX_BPF_USE_*, a
 * constant in each copy of the loop) the program reads. The copy is of a
 * constant size (the buffer nearly always has the room): bytes past
 * data_len are unspecified.
 */
static inline __rte_always_inline void
bpf_ctx_fill(struct ibex_bpf_ctx *x, const struct rte_mbuf *m,
	     const uint8_t *eth, const struct ibex_pkt_info *in,
	     uint16_t in_port, const uint32_t use)
{
	uint32_t room = (uint32_t)m->buf_len - m->data_off;

	/* The parse's flags below IBEX_BPF_F_IP4 are the classifier's;
	 * FC and AGG, above them, are the data path's own. */
	x->flags = (in->flags & (IBEX_BPF_F_IP4 - 1)) |
		   (in->l3 == IBEX_L3_IPV4 ? IBEX_BPF_F_IP4 :
		    in->l3 == IBEX_L3_IPV6 ? IBEX_BPF_F_IP6 : 0);
	x->dscp = in->dscp;
	x->ecn = in->ecn;
	if (use & IBEX_BPF_USE_FIELDS) {
		x->frame_len = m->pkt_len;
		x->data_len = RTE_MIN(m->data_len, IBEX_BPF_DATA_LEN);
		x->in_port = in_port;
		x->ether_type = in->ether_type;
		x->vid = in->vid;
		x->pcp = in->pcp;
		x->l4_proto = in->l4_proto;
		x->l3_off = in->l3_off;
		x->l4_off = in->l4_off;
		x->bth_off = in->bth_off;
		x->sport = (in->flags & IBEX_PKT_F_UDP) ?
			   ibex_rd16(eth + in->l4_off) : 0;
		x->dport = (in->flags & IBEX_PKT_F_UDP) ?
			   ibex_rd16(eth + in->l4_off + 2) : 0;
		x->bth_opcode = (in->flags & IBEX_PKT_F_ROCE) ?
				eth[in->bth_off] : 0;
		x->dest_qp = (in->flags & IBEX_PKT_F_ROCE) ?
			     ibex_bth_dest_qp(eth + in->bth_off) : 0;
	}
	if (!(use & IBEX_BPF_USE_DATA))
		return;
	if (likely(room >= IBEX_BPF_DATA_LEN))
		rte_mov64(x->data, eth);
	else
		memcpy(x->data, eth, RTE_MIN(m->data_len, IBEX_BPF_DATA_LEN));
}

/* The same for the untagged IPv4 RoCEv2 shape (ibex_pkt_check_roce4_
 * untagged() passed): every offset is a constant. */
static inline __rte_always_inline void
bpf_ctx_fill_roce4(struct ibex_bpf_ctx *x, const struct rte_mbuf *m,
		   const uint8_t *eth, uint32_t chk, uint16_t in_port,
		   const uint32_t use)
{
	uint8_t tos = eth[15]; /* once: the stores may alias the frame */

	x->flags = (uint8_t)(IBEX_PKT_CHECK_FLAGS(chk) & (IBEX_BPF_F_IP4 - 1)) |
		   IBEX_BPF_F_IP4;
	x->dscp = tos >> 2;
	x->ecn = tos & 3;
	if (use & IBEX_BPF_USE_FIELDS) {
		x->frame_len = m->pkt_len;
		x->data_len = RTE_MIN(m->data_len, IBEX_BPF_DATA_LEN);
		x->in_port = in_port;
		x->ether_type = IBEX_ETHERTYPE_IPV4;
		x->vid = 0;
		x->pcp = 0;
		x->l4_proto = 17;
		x->l3_off = IBEX_ETHER_HDR_LEN;
		x->l4_off = IBEX_ETHER_HDR_LEN + 20;
		x->bth_off = IBEX_ETHER_HDR_LEN + 28;
		x->sport = ibex_rd16(eth + IBEX_ETHER_HDR_LEN + 20);
		x->dport = IBEX_UDP_PORT_ROCEV2;
		x->bth_opcode = eth[IBEX_ETHER_HDR_LEN + 28];
		x->dest_qp = ibex_bth_dest_qp(eth + IBEX_ETHER_HDR_LEN + 28);
	}
	if (!(use & IBEX_BPF_USE_DATA))
		return;
	/* The shape's check read 62 bytes: 64 are in the first segment or
	 * in its buffer's room. */
	if (likely((uint32_t)m->buf_len - m->data_off >= IBEX_BPF_DATA_LEN))
		rte_mov64(x->data, eth);
	else
		memcpy(x->data, eth, RTE_MIN(m->data_len, IBEX_BPF_DATA_LEN));
}

_Static_assert(IBEX_BPF_F_VLAN == IBEX_PKT_F_VLAN &&
	       IBEX_BPF_F_UDP == IBEX_PKT_F_UDP &&
	       IBEX_BPF_F_ROCE == IBEX_PKT_F_ROCE &&
	       IBEX_BPF_F_FRAG == IBEX_PKT_F_FRAG &&
	       IBEX_BPF_F_GROUP == IBEX_PKT_F_DMAC_GROUP,
	       "context flags are the parse's");
_Static_assert(IBEX_PKT_F_FC >= IBEX_BPF_F_IP4 &&
	       IBEX_PKT_F_AGG >= IBEX_BPF_F_IP4,
	       "the data path's own flags are masked off the context's");

/* What the frames of a bpf port's burst share beyond struct rx_burst,
 * looked up once per burst and kept in registers across the program's
 * call. */
struct bpf_burst {
	uint64_t (*jit)(void *ctx);         /* or NULL: interpreted */
	const struct ibex_bpf_prog *prog;
	struct ibex_bpf_counters *bc;       /* the port's verdict counters */
	const uint8_t *cls;                 /* t->bpf_class[in_port] */
};

static inline __rte_always_inline uint64_t
bpf_run(const struct bpf_burst *bb, struct ibex_bpf_ctx *x)
{
	if (likely(bb->jit != NULL))
		return bb->jit(x);
	return ibex_bpf_prog_interp(bb->prog, x);
}

/* The class of a verdict, counted: an SL, drop, or the port's built-in
 * classifier for IBEX_BPF_DEFAULT and values out of range. */
static inline __rte_always_inline uint32_t
bpf_verdict(const struct rx_burst *b, const struct bpf_burst *bb,
	    uint64_t v, const uint8_t *eth, bool tagged)
{
	if (likely(v < IBEX_SL_COUNT)) {
		IBEX_CNT_ADD(bb->bc->sl[v], 1);
		return bb->cls[v];
	}
	if (v == IBEX_BPF_DROP) {
		IBEX_CNT_ADD(bb->bc->drops, 1);
		return bb->cls[IBEX_SL_COUNT];
	}
	if (v == IBEX_BPF_DEFAULT)
		IBEX_CNT_ADD(bb->bc->deflt, 1);
	else
		IBEX_CNT_ADD(bb->bc->bad, 1);
	/* classify() leaves untagged frames in PCP mode to the burst's. */
	if (!tagged && b->untagged != CLASS_PER_FRAME)
		return b->untagged;
	return classify(b->cls, eth, tagged);
}

/* One frame of a port with an eBPF classifier: the full parse (the
 * program sees every header), the program, then the common forwarding
 * with the class it chose. */
static inline __rte_always_inline void
forward_bpf(struct ibex_worker *w, struct rx_burst *b,
	    const struct bpf_burst *bb, struct rte_mbuf *m, const uint32_t use)
{
	const uint8_t *eth = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t chk = ibex_pkt_check_roce4_untagged(eth, m->data_len);
	struct ibex_pkt_info info;
	enum ibex_reason r;
	uint64_t v;

	/* The RoCEv2 shape, as forward_one() has it: constant offsets. */
	if (likely(chk != UINT32_MAX)) {
		bpf_ctx_fill_roce4(&w->bpf_ctx, m, eth, chk,
				   (uint16_t)b->acc.in_port, use);
		v = bpf_run(bb, &w->bpf_ctx);
		forward_checked(w, b, m, chk,
				bpf_verdict(b, bb, v, eth, false),
				IBEX_PKT_F_FC);
		return;
	}
	r = frame_parse(m, &info);
	if (unlikely(r != IBEX_R_OK)) {
		drop(b->cnt, m, r);
		return;
	}
	bpf_ctx_fill(&w->bpf_ctx, m, eth, &info, (uint16_t)b->acc.in_port,
		     use);
	v = bpf_run(bb, &w->bpf_ctx);
	forward_checked(w, b, m, (uint32_t)info.flags << 8 |
			(uint32_t)info.bth_off << 16,
			bpf_verdict(b, bb, v, eth,
				    (info.flags & IBEX_PKT_F_VLAN) != 0),
			b->slow_flags);
}

/* The frames of a burst through forward_bpf() with @p use a constant. */
static inline __rte_always_inline uint64_t
rx_burst_bpf_loop(struct ibex_worker *w, struct rx_burst *b,
		  struct rte_mbuf **pkts, uint16_t n, const uint32_t use)
{
	const struct bpf_burst bb = {
		.jit = b->bpf->jit,
		.prog = b->bpf,
		.bc = &w->bpf_cnt[b->acc.in_port],
		.cls = b->t->bpf_class[b->acc.in_port],
	};
	uint64_t bytes = 0;
	uint16_t i;

	for (i = 0; i < n; i++) {
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i + PREFETCH_AHEAD],
					       void *));
		bytes += pkts[i]->pkt_len;
		forward_bpf(w, b, &bb, pkts[i], use);
	}
	return bytes;
}

/*
 * The burst of a port with an eBPF classifier, out of line: ports without
 * one pay a single branch per burst for it. One copy of the loop per
 * context fill, chosen per burst by what the program reads (found at
 * load, ibex_bpf_ctx_use()): a program of DSCP or flags alone gets three
 * fields, not the whole context and 64 bytes of frame.
 */
static __rte_noinline uint64_t
rx_burst_bpf(struct ibex_worker *w, struct rx_burst *b,
	     struct rte_mbuf **pkts, uint16_t n)
{
	uint32_t use = b->bpf->ctx_use;

	if (!(use & ~IBEX_BPF_USE_IP))
		return rx_burst_bpf_loop(w, b, pkts, n, IBEX_BPF_USE_IP);
	if (!(use & IBEX_BPF_USE_DATA))
		return rx_burst_bpf_loop(w, b, pkts, n,
					 IBEX_BPF_USE_IP | IBEX_BPF_USE_FIELDS);
	return rx_burst_bpf_loop(w, b, pkts, n, IBEX_BPF_USE_ALL);
}

/*
 * Field by field, each at its own width: an initializer that zeroes the
 * rest is a byte-wise `rep stos`, slow to start, and the burst's first
 * loads of the fields then wait for those narrow stores (a store-forwarding
 * stall, several a burst in a profile of credit mode).
 */
static inline void
rx_burst_init(struct rx_burst *b, struct ibex_worker *w,
	      const struct ibex_dp_tables *t, uint16_t in_port,
	      uint32_t now_ms)
{
	const struct ibex_sl_class *cls = &t->sl_class[in_port];
	uint32_t untagged = cls->map[IBEX_SL_MAP_DEFAULT];

	b->t = t;
	b->cnt = &w->cnt[in_port];
	b->cls = cls;
	b->bpf = t->bpf[in_port];
	b->untagged = cls->mode == IBEX_SL_FROM_PCP ? untagged :
						     CLASS_PER_FRAME;
	b->untagged_tag = ibex_flow_key_tag(t->pvid[in_port], in_port,
				       CLS_SL(untagged));
	b->now_ms = now_ms;
	b->frame_fast = t->frame_fast;
	b->slow_flags = IBEX_PKT_F_FC |
			(w->agg != NULL && t->agg.nb_jobs != 0 ?
			 IBEX_PKT_F_AGG : 0);
	b->pvid = t->pvid[in_port];
	b->acc.in_port = in_port;
	b->acc.ch_vl = ACC_NONE;
	b->acc.ch_room = 0;
	b->acc.ch_room0 = 0;
	b->acc.ch_src = 0;
	b->acc.ch_abr = false;
	b->acc.cr_lane = CR_NONE;
	b->acc.cr_stop = 0;
	b->acc.cr_avail = 0;
	b->acc.cr_avail0 = 0;
}

static void
rx_burst_process(struct ibex_worker *w, const struct ibex_dp_tables *t,
		 uint16_t in_port, struct rte_mbuf **pkts, uint16_t n,
		 uint32_t now_ms)
{
	struct rx_burst b;
	uint64_t bytes = 0;
	uint16_t i;

	rx_burst_init(&b, w, t, in_port, now_ms);
	/* The array has room for PREFETCH_AHEAD more: filled with the last
	 * frame, the look-ahead needs no bounds test per frame (fetching a
	 * line twice is harmless). */
	for (i = 0; i < PREFETCH_AHEAD; i++)
		pkts[n + i] = pkts[n - 1];
	for (i = 0; i < n && i < PREFETCH_AHEAD; i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));
	if (unlikely(b.bpf != NULL))
		bytes = rx_burst_bpf(w, &b, pkts, n);
	else
		for (i = 0; i < n; i++) {
			rte_prefetch0(rte_pktmbuf_mtod(
				pkts[i + PREFETCH_AHEAD], void *));
			bytes += pkts[i]->pkt_len;
			forward_one(w, &b, pkts[i]);
		}
	if (b.acc.ch_vl != ACC_NONE || b.acc.cr_lane != CR_NONE)
		burst_flush(w, &b.acc);
	if (unlikely(w->fc != NULL && (w->fc->cr_multi >> in_port & 1)))
		ibex_fc_abr_publish(w->fc, in_port,
				    w->fc->port[in_port].cp.n_vls);
	IBEX_CNT_ADD(b.cnt->rx_pkts, n);
	IBEX_CNT_ADD(b.cnt->rx_bytes, bytes);
}

/* Bursts the arbiter may move from a port's lanes in one iteration. */
#define ARB_ROUNDS 4

/*
 * The arbiter's turn for a port with frames queued. At one burst out per
 * iteration against up to one burst in, a queue formed in a transient (a
 * late credit frame, a pause, a descheduled lcore) would never drain, and
 * every later frame for the port would queue behind it instead of cutting
 * through. So while the lanes fill whole bursts and TX takes them all, the
 * arbiter goes again, up to ARB_ROUNDS bursts.
 * @return whether frames are still queued.
 */
static bool
egress_drain_queues(struct ibex_worker *w, const struct ibex_dp_tables *t,
		    uint16_t port, uint64_t now)
{
	struct ibex_txbuf *tb = &w->tx[port];
	unsigned int round;

	for (round = 0; round < ARB_ROUNDS; round++) {
		egress_arbitrate(w, t, port, now);
		if (!(w->gate[port] & IBEX_GATE_BUSY))
			return false;
		/* Short of a burst: the lanes wait for credit, a pause or
		 * the shaper; a full TX waits for the wire. */
		if (tb->count < w->dp->burst || round + 1 == ARB_ROUNDS)
			break;
		txbuf_flush(w, port, now);
		if (tb->count != 0)
			break;
	}
	return true;
}

/* Hand buffered frames to TX: the arbiter first tops up ports with queued
 * frames; then all buffers when draining every iteration, else those full
 * enough or old enough. A port stays pending while anything is left. */
static void
tx_drain(struct ibex_worker *w, const struct ibex_dp_tables *t, uint64_t now)
{
	uint64_t pending = w->pending_tx;
	uint64_t drain = w->tx_drain_tsc;

	while (pending != 0) {
		uint16_t port = __builtin_ctzll(pending);
		struct ibex_txbuf *tb = &w->tx[port];
		bool busy = (w->gate[port] & IBEX_GATE_BUSY) != 0;

		pending &= pending - 1;
		if (busy)
			busy = egress_drain_queues(w, t, port, now);
		if (tb->count != 0 &&
		    (drain == 0 || tb->count >= w->dp->burst ||
		     now - tb->first_tsc >= drain))
			txbuf_flush(w, port, now);
		if (tb->count == 0 && !busy)
			w->pending_tx &= ~(UINT64_C(1) << port);
	}
}

/* New tables: rebuild what the worker derives from them per port. The
 * queues keep their frames; the arbiter starts its tables afresh. */
static void
worker_apply_tables(struct ibex_worker *w, const struct ibex_dp_tables *t)
{
	uint16_t p;
	unsigned int v;

	for (p = 0; p < w->dp->nb_ports; p++) {
		struct ibex_egress *e = w->eg[p];
		const struct ibex_dp_egress_conf *ec = &t->eg[p];

		ibex_vlarb_init(&e->arb, &ec->vlarb);
		/* A new SL->VL table with frames queued: fence them. */
		if (memcmp(&e->sl2vl, &t->sl2vl[p], sizeof(e->sl2vl)) != 0) {
			e->fence = (uint16_t)(w->gate[p] & IBEX_GATE_BUSY);
			for (v = 0; v < IBEX_VL_COUNT; v++)
				e->fence_tail[v] = e->q[v].tail;
			e->sl2vl = t->sl2vl[p];
		}
		/* Several workers shape a port together, from one clock. */
		if (ec->shape_bps != e->shaper.rate_bps) {
			ibex_shaper_init(&e->shaper, ec->shape_bps,
					 w->dp->tsc_hz, ibex_clock_now());
			if (w->dp->nb_workers > 1)
				ibex_shaper_share(&e->shaper,
						  &w->dp->shape_clock[p]);
		}
		e->trim = ec->trim;
		if (ibex_shaper_on(&e->shaper))
			w->gate[p] |= IBEX_GATE_SHAPED;
		else
			w->gate[p] &= ~IBEX_GATE_SHAPED;
		if (w->fc != NULL &&
		    ((w->fc->credit_ports | w->fc->cbfc_ports) >> p & 1)) {
			w->gate[p] |= IBEX_GATE_CREDIT;
			w->credit_lanes[p] = w->fc->port[p].lossless;
		} else {
			w->gate[p] &= ~IBEX_GATE_CREDIT;
			w->credit_lanes[p] = 0;
		}
		for (v = 0; v < IBEX_VL_COUNT; v++)
			e->q[v].max_blocks = RTE_MIN(ec->queue_blocks, e->slots);
	}
	if (w->fc != NULL)
		ibex_fc_update(w->fc, t);
	ibex_dp_agg_apply(w, t);
	w->tx_drain_tsc = t->tx_drain_tsc;
	w->detached = t->detached;
	w->rx_slow = w->detached | (w->pool_low ? ~UINT64_C(0) : 0);
	w->ar_ports = t->ar_ports;
	memcpy(w->ar_tpb_q16, t->ar_tpb_q16, sizeof(w->ar_tpb_q16));
	/* Cached answers hold lanes and port state of the old tables. */
	memset(w->flow_cache, 0, sizeof(w->flow_cache));
	w->tables_gen = t->gen;
}

/* Stopping: a pending port whose link went down ends the drain. */
static bool
pending_port_down(const struct ibex_worker *w)
{
	uint64_t pending = w->pending_tx;

	while (pending != 0) {
		uint16_t port = (uint16_t)__builtin_ctzll(pending);

		pending &= pending - 1;
		/* A memif or vhost port whose peer left: its PMD may be
		 * tearing its rings down, not to be touched again. */
		if (!ibex_dp_port_link_up(w->dp, port))
			return true;
	}
	return false;
}

static void
worker_release_all(struct ibex_worker *w)
{
	uint16_t port;
	unsigned int v;

	for (port = 0; port < w->dp->nb_ports; port++) {
		struct ibex_txbuf *tb = &w->tx[port];
		struct ibex_egress *e = w->eg[port];
		struct ibex_vlq_ent ent;

		if (tb->count != 0 && ibex_dp_port_link_up(w->dp, port))
			txbuf_flush(w, port, ibex_clock_now());
		if (tb->count != 0) {
			IBEX_CNT_ADD(w->cnt[port].drop[IBEX_R_TX_FULL],
				     tb->count);
			rte_pktmbuf_free_bulk(tb->pkts, tb->count);
			tb->count = 0;
			tb->bytes = 0;
			memset(tb->ct_sum, 0, sizeof(tb->ct_sum));
			tb->ct_lanes = 0;
		}
		for (v = 0; v < IBEX_VL_COUNT; v++)
			while (!ibex_vlq_empty(&e->q[v])) {
				ibex_vlq_pop(&e->q[v], &ent);
				lane_drop(w, e, port, v, ent.frame,
					  IBEX_R_TX_FULL);
			}
		w->gate[port] &= ~IBEX_GATE_BUSY;
	}
	w->pending_tx = 0;
}

/* A captured port's RX burst, as it came (before parsing or marking). */
static __rte_noinline void
capture_rx(struct ibex_worker *w, const struct ibex_rxq *rq,
	   struct rte_mbuf **pkts, uint16_t n)
{
	ibex_capture_copy(w->cap, w->index, rq->port, rq->queue, pkts, n,
			  IBEX_CAPTURE_RX, w->rx_tsc);
	ibex_capture_commit(w->cap, w->index, n);
}

/*
 * The pool is nearly empty (below dp->pool_floor): keep the flow-control
 * frames of a burst (ibex credits, PAUSE and PFC) and refuse the rest as
 * pool-low, their mbufs back to the pool at once, so the PMDs can still
 * receive the frames that drain the buffer. @return the frames kept.
 */
static __rte_noinline uint16_t
pool_low_filter(struct ibex_worker *w, uint16_t port, struct rte_mbuf **pkts,
		uint16_t n)
{
	uint16_t i, k = 0;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint16_t et = m->data_len >= IBEX_ETHER_HDR_LEN ?
			ibex_rd16(rte_pktmbuf_mtod(m, uint8_t *) + 12) : 0;

		if (et == IBEX_ETHERTYPE_IBEXFC || et == IBEX_ETHERTYPE_MACCTL)
			pkts[k++] = m;
		else
			drop(&w->cnt[port], m, IBEX_R_POOL_LOW);
	}
	return k;
}

/* Several workers: the lanes paused since the gates were copied, before
 * frames are forwarded or sent (ibex_fc_pause_check()). */
static inline __rte_always_inline void
worker_pause_check(struct ibex_worker *w)
{
	if (unlikely(w->fc != NULL && w->fc->multi))
		ibex_fc_pause_check(w, w->fc);
}

/* A queue's RX while the pool is low: pool_low_filter() between RX and
 * the forwarding. @return the frames received. */
static __rte_noinline uint16_t
rx_pool_low(struct ibex_worker *w, const struct ibex_dp_tables *t,
	    const struct ibex_rxq *rq, struct rte_mbuf **pkts, uint32_t now_ms)
{
	uint16_t n, k;

	n = ibex_pdev_rx_burst(w->dp->port_id[rq->port], rq->queue, pkts,
			       w->dp->burst);
	if (n == 0)
		return 0;
	worker_pause_check(w);
	if (w->cap != NULL)
		capture_rx(w, rq, pkts, n);
	k = pool_low_filter(w, rq->port, pkts, n);
	if (k != 0)
		rx_burst_process(w, t, rq->port, pkts, k, now_ms);
	return n;
}

/* One pass of the poll loop: RX, forward, arbitrate, TX, housekeeping.
 * RX polls the queues of the ports in @p rx_ports: every port (a constant
 * the compiler folds away) but under the virtual clock, whose executive
 * knows which ports have frames arriving. */
static inline __rte_always_inline void
worker_iteration(struct ibex_worker *w, struct rte_mbuf **pkts,
		 uint64_t rx_ports)
{
	struct ibex_dp *dp = w->dp;
	const uint16_t burst = dp->burst;
	const struct ibex_dp_tables *t =
		atomic_load_explicit(&dp->tables, memory_order_acquire);
	uint64_t start = ibex_clock_now(), now;
	uint32_t moved = 0, now_ms;
	unsigned int q, k;

	/* The coarse clock, from our own TSC: a division once a ms. */
	if (unlikely(start >= w->ms_next_tsc)) {
		w->now_ms = ibex_dp_clock_ms(dp, start);
		w->ms_next_tsc = ((uint64_t)(start / w->tsc_per_ms) + 1) *
				 w->tsc_per_ms;
	}
	now_ms = w->now_ms;

	/* One RX time for the iteration: its bursts are polled back
	 * to back, and every rdtsc costs ~25 cycles. */
	w->rx_tsc = start;
	/* The flow cache holds answers of one FDB version: a station that
	 * moved or left (rare: learning new ones keeps the version) empties
	 * it, so a probe need not compare versions. */
	if (unlikely(ibex_fdb_version(dp->fdb) != w->fdb_version)) {
		w->fdb_version = ibex_fdb_version(dp->fdb);
		memset(w->flow_cache, 0, sizeof(w->flow_cache));
	}
	if (unlikely(t->gen != w->tables_gen))
		worker_apply_tables(w, t);
	w->cap = atomic_load_explicit(&dp->capture, memory_order_acquire);

	/* Start polling one queue further each iteration: with a
	 * fixed order the first port would always find room in a
	 * congested lane and the last would take every tail drop. */
	q = w->rxq_first;
	if (++w->rxq_first == w->nb_rxq)
		w->rxq_first = 0;
	for (k = 0; k < w->nb_rxq; k++) {
		const struct ibex_rxq *rq = &w->rxq[q];
		uint16_t n;

		if (++q == w->nb_rxq)
			q = 0;
		if (!((rx_ports >> rq->port) & 1))
			continue;
		/* Detached ports, and every port while the pool is low: one
		 * test for both (rx_slow). */
		if (unlikely((w->rx_slow >> rq->port) & 1)) {
			if (!((w->detached >> rq->port) & 1))
				moved += rx_pool_low(w, t, rq, pkts, now_ms);
			continue;
		}
		n = ibex_pdev_rx_burst(dp->port_id[rq->port], rq->queue, pkts,
				     burst);
		if (n == 0)
			continue;
		moved += n;
		worker_pause_check(w);
		if (unlikely(w->cap != NULL))
			capture_rx(w, rq, pkts, n);
		rx_burst_process(w, t, rq->port, pkts, n, now_ms);
	}
	if (unlikely(w->agg != NULL))
		ibex_dp_agg_poll(w, t);
	now = 0;
	if (w->pending_tx != 0) {
		now = ibex_clock_now();
		worker_pause_check(w);
		tx_drain(w, t, now);
	}
	if (unlikely(w->fc != NULL))
		ibex_fc_housekeeping(w, now != 0 ? now : start);
	/* Nothing of t is held past this point. */
	if (dp->qsbr != NULL)
		rte_rcu_qsbr_quiescent(dp->qsbr, w->index);
	IBEX_CNT_ADD(w->iterations, 1);
	if (moved != 0) {
		IBEX_CNT_ADD(w->busy_iterations, 1);
		IBEX_CNT_ADD(w->busy_tsc, ibex_clock_now() - start);
	}
}

static void
worker_online(struct ibex_worker *w)
{
	struct ibex_dp *dp = w->dp;

	RTE_LOG(INFO, IBEX_WORKER, "worker %u on lcore %u polls %u queue(s)\n",
		w->index, w->lcore_id, w->nb_rxq);
	if (dp->qsbr != NULL)
		rte_rcu_qsbr_thread_online(dp->qsbr, w->index);
	w->tsc_per_ms = dp->tsc_hz / 1000;
	w->ms_next_tsc = 0;
}

/*
 * Asked to stop: keep going (RX too: credits and pauses still arrive)
 * until nothing waits to be sent or IBEX_DRAIN_MS passed, so frames held
 * back by flow control or a shaper leave instead of being dropped at
 * exit. @return true once the worker may leave (*drain_until: 0 before
 * the stop was seen).
 */
static inline bool
worker_done(struct ibex_worker *w, uint64_t *drain_until)
{
	struct ibex_dp *dp = w->dp;

	if (likely(!atomic_load_explicit(&dp->stop, memory_order_relaxed)))
		return false;
	if (*drain_until == 0)
		*drain_until = ibex_clock_now() + dp->tsc_hz / 1000 * IBEX_DRAIN_MS;
	return w->pending_tx == 0 || ibex_clock_now() >= *drain_until ||
	       pending_port_down(w);
}

static void
worker_offline(struct ibex_worker *w)
{
	struct ibex_dp *dp = w->dp;

	/* Past our last quiescent state: the capture may be gone. */
	w->cap = NULL;
	worker_release_all(w);
	if (dp->qsbr != NULL)
		rte_rcu_qsbr_thread_offline(dp->qsbr, w->index);
}

int
ibex_dp_worker_main(void *arg)
{
	struct ibex_worker *w = arg;
	/* PREFETCH_AHEAD more: see rx_burst_process(). */
	struct rte_mbuf *pkts[IBEX_BURST_MAX + PREFETCH_AHEAD];
	uint64_t drain_until = 0;

	worker_online(w);
	while (!worker_done(w, &drain_until))
		worker_iteration(w, pkts, UINT64_MAX);
	worker_offline(w);
	return 0;
}

/* Free what ibex_dp_start_many() or ibex_dp_virtual_attach() allocated. */
static void
dp_lcore_release(struct ibex_dp_lcore *lc)
{
	free(lc->w);
	lc->w = NULL;
	lc->n = 0;
}

/*
 * Several switches on one lcore (ibex-fabric): one iteration of each
 * switch's worker in turn, as OVS's PMD thread polls the queues of all
 * its bridges. A switch that stopped and drained leaves the turn; the
 * lcore returns when all have.
 */
static int
dp_lcore_main(void *arg)
{
	struct ibex_dp_lcore *lc = arg;
	struct rte_mbuf *pkts[IBEX_BURST_MAX + PREFETCH_AHEAD];
	/* one allocation at the lcore's start, none in the loop */
	uint64_t *drain_until = calloc(lc->n, sizeof(*drain_until));
	bool *done = calloc(lc->n, sizeof(*done));
	unsigned int i, left = lc->n;

	if (drain_until == NULL || done == NULL) {
		RTE_LOG(ERR, IBEX_WORKER, "lcore %u: no memory for %u switches\n",
			rte_lcore_id(), lc->n);
		free(drain_until);
		free(done);
		dp_lcore_release(lc);
		return -ENOMEM;
	}
	for (i = 0; i < lc->n; i++)
		worker_online(lc->w[i]);
	while (left != 0) {
		for (i = 0; i < lc->n; i++) {
			if (unlikely(done[i]))
				continue;
			if (unlikely(worker_done(lc->w[i], &drain_until[i]))) {
				worker_offline(lc->w[i]);
				done[i] = true;
				left--;
				continue;
			}
			worker_iteration(lc->w[i], pkts, UINT64_MAX);
		}
	}
	free(drain_until);
	free(done);
	dp_lcore_release(lc);
	return 0;
}

int
ibex_dp_start_many(struct ibex_dp *const *dps, unsigned int n,
		   struct ibex_dp_lcore *lcs)
{
	uint16_t nb_workers = n != 0 ? dps[0]->nb_workers : 0, i, j;
	unsigned int s;
	int ret;

	if (n == 0)
		return -EINVAL;
	for (s = 0; s < n; s++) {
		if (dps[s]->nb_workers != nb_workers)
			return -EINVAL;
		for (i = 0; i < nb_workers; i++)
			if (dps[s]->workers[i]->lcore_id !=
			    dps[0]->workers[i]->lcore_id)
				return -EINVAL;
	}
	for (i = 0; i < nb_workers; i++) {
		lcs[i].w = calloc(n, sizeof(*lcs[i].w));
		if (lcs[i].w == NULL) {
			for (j = 0; j < i; j++)
				dp_lcore_release(&lcs[j]);
			return -ENOMEM;
		}
		lcs[i].n = n;
		for (s = 0; s < n; s++)
			lcs[i].w[s] = dps[s]->workers[i];
	}
	for (s = 0; s < n; s++)
		atomic_store_explicit(&dps[s]->stop, false,
				      memory_order_relaxed);
	for (i = 0; i < nb_workers; i++) {
		ret = rte_eal_remote_launch(dp_lcore_main, &lcs[i],
					    dps[0]->workers[i]->lcore_id);
		if (ret < 0) {
			RTE_LOG(ERR, IBEX_WORKER, "cannot launch lcore %u: %s\n",
				dps[0]->workers[i]->lcore_id, strerror(-ret));
			/* the launched ones free theirs as they return */
			for (j = i; j < nb_workers; j++)
				dp_lcore_release(&lcs[j]);
			ibex_dp_stop_many(dps, n);
			return ret;
		}
	}
	return 0;
}

int
ibex_dp_virtual_attach(struct ibex_dp *const *dps, unsigned int n,
		       struct ibex_dp_lcore *lc)
{
	unsigned int s, i, nw = 0;

	lc->n = 0;
	for (s = 0; s < n; s++)
		nw += dps[s]->nb_workers;
	lc->w = calloc(nw != 0 ? nw : 1, sizeof(*lc->w));
	if (lc->w == NULL)
		return -ENOMEM;
	for (s = 0; s < n; s++) {
		atomic_store_explicit(&dps[s]->stop, false,
				      memory_order_relaxed);
		for (i = 0; i < dps[s]->nb_workers; i++) {
			struct ibex_worker *w = dps[s]->workers[i];

			/* A switch's scheduler picks a frame when its wire
			 * is free, where a pause reaches it; under the real
			 * clock frames cut through a burst ahead (TX must
			 * never wait for the poll loop). On simulated time
			 * the egress takes a frame only at the wire
			 * (net_ibexlink tx_window), so a lossless lane's
			 * frames beyond a burst wait in the lane: a pause then
			 * holds all but a burst, as the headroom formula
			 * assumes. (Lossy lanes keep IBEX_CT_LIMIT: their
			 * static vl-queue bound would drop what a shared
			 * buffer holds.) */
			w->ct_limit = dps[s]->burst;
			lc->w[lc->n++] = w;
		}
	}
	for (i = 0; i < lc->n; i++)
		worker_online(lc->w[i]);
	return 0;
}

bool
ibex_dp_virtual_run(struct ibex_worker *w, uint64_t rx_ports)
{
	struct rte_mbuf *pkts[IBEX_BURST_MAX + PREFETCH_AHEAD];

	worker_iteration(w, pkts, rx_ports);
	return w->pending_tx != 0 || (w->fc != NULL && !ibex_fc_quiet(w));
}

void
ibex_dp_virtual_detach(struct ibex_dp_lcore *lc)
{
	unsigned int i;

	for (i = 0; i < lc->n; i++)
		worker_offline(lc->w[i]);
	dp_lcore_release(lc);
}

void
ibex_dp_stop_many(struct ibex_dp *const *dps, unsigned int n)
{
	unsigned int s;

	for (s = 0; s < n; s++)
		atomic_store_explicit(&dps[s]->stop, true, memory_order_relaxed);
	if (n != 0)
		ibex_dp_stop(dps[0]);
}

int
ibex_dp_start(struct ibex_dp *dp)
{
	uint16_t i;
	int ret;

	atomic_store_explicit(&dp->stop, false, memory_order_relaxed);
	for (i = 0; i < dp->nb_workers; i++) {
		ret = rte_eal_remote_launch(ibex_dp_worker_main, dp->workers[i],
					    dp->workers[i]->lcore_id);
		if (ret < 0) {
			RTE_LOG(ERR, IBEX_WORKER,
				"cannot launch worker %u on lcore %u: %s\n", i,
				dp->workers[i]->lcore_id, strerror(-ret));
			ibex_dp_stop(dp);
			return ret;
		}
	}
	return 0;
}

void
ibex_dp_stop(struct ibex_dp *dp)
{
	uint16_t i;

	atomic_store_explicit(&dp->stop, true, memory_order_relaxed);
	for (i = 0; i < dp->nb_workers; i++) {
		unsigned int lc = dp->workers[i]->lcore_id;

		/* rte_eal_wait_lcore() spins: sleep while the worker
		 * drains, the caller may share its CPU. */
		while (rte_eal_get_lcore_state(lc) == RUNNING)
			rte_delay_us_sleep(STOP_POLL_US);
		rte_eal_wait_lcore(lc);
	}
}
