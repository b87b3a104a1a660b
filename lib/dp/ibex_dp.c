/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ibex worker: one poll-mode loop per worker lcore.
 *
 *   RX burst -> parse -> VLAN/ingress checks -> learn -> FDB lookup
 *            -> per-egress TX buffer -> TX burst at the end of the iteration
 *
 * Cut-through in the software sense: a frame is handed to TX in the same
 * iteration it was received in; it waits only when the TX queue is full.
 * Nothing here locks, allocates, logs or makes a system call per frame.
 * Counters are the worker's own (one writer); the control thread reads them.
 */

#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include "ibex_dp.h"
#include "ibex_fdb.h"
#include "ibex_pkt.h"

RTE_LOG_REGISTER(ibex_worker_logtype, ibex.worker, INFO);
#define RTE_LOGTYPE_IBEX_WORKER ibex_worker_logtype

/* Frames ahead of the one being parsed whose first cache line is fetched. */
#define PREFETCH_AHEAD 4

/*
 * (vid, mac) as one 64-bit key. The MAC is read with one 8-byte load and
 * masked (dst at offset 0 and src at 6 both have 8 readable bytes inside the
 * 14-byte header): a 6-byte copy through the stack would make the next load
 * wait for two narrow stores to be forwarded.
 */
static inline uint64_t
mac_key(const uint8_t *mac, uint16_t vid)
{
	uint64_t k;

	memcpy(&k, mac, sizeof(k));
	return (k & UINT64_C(0xffffffffffff)) | (uint64_t)vid << 48;
}

static inline void
drop(struct ibex_port_counters *c, struct rte_mbuf *m, enum ibex_reason r)
{
	IBEX_CNT_ADD(c->drop[r], 1);
	rte_pktmbuf_free(m);
}

/* Send what is buffered for one port; keep what TX did not take. */
static void
txbuf_flush(struct ibex_worker *w, uint16_t port)
{
	struct ibex_txbuf *tb = &w->tx[port];
	struct ibex_port_counters *c = &w->cnt[port];
	uint16_t sent, i;
	uint64_t bytes = 0;

	sent = rte_eth_tx_burst(w->dp->port_id[port], tb->txq, tb->pkts,
				tb->count);
	for (i = 0; i < sent; i++)
		bytes += tb->pkts[i]->pkt_len;
	IBEX_CNT_ADD(c->tx_pkts, sent);
	IBEX_CNT_ADD(c->tx_bytes, bytes);
	if (likely(sent == tb->count)) {
		tb->count = 0;
		w->pending_tx &= ~(UINT64_C(1) << port);
		return;
	}
	memmove(tb->pkts, tb->pkts + sent,
		(tb->count - sent) * sizeof(tb->pkts[0]));
	tb->count -= sent;
	tb->first_tsc = rte_rdtsc();
}

static inline __rte_always_inline void
txbuf_add(struct ibex_worker *w, uint16_t port, struct rte_mbuf *m)
{
	struct ibex_txbuf *tb = &w->tx[port];

	if (unlikely(tb->count == IBEX_TXBUF_LEN)) {
		txbuf_flush(w, port);
		if (tb->count == IBEX_TXBUF_LEN) {
			drop(&w->cnt[port], m, IBEX_R_TX_FULL);
			return;
		}
	}
	if (tb->count == 0) {
		w->pending_tx |= UINT64_C(1) << port;
		if (w->dp->tx_drain_tsc != 0)
			tb->first_tsc = rte_rdtsc();
	}
	tb->pkts[tb->count++] = m;
}

/* Slot index of a key in any of the worker's caches (IBEX_MAC_CACHE slots). */
static inline uint32_t
cache_index(uint64_t key)
{
	return (key * UINT64_C(0x9E3779B97F4A7C15)) >>
	       (64 - __builtin_ctz(IBEX_MAC_CACHE));
}

static inline struct ibex_mac_slot *
mac_slot(struct ibex_mac_slot *cache, uint64_t key)
{
	return &cache[cache_index(key)];
}

static inline void
learn_post(struct ibex_worker *w, const uint8_t *mac, uint16_t vid,
	   uint16_t port)
{
	struct ibex_learn_req req;

	memcpy(req.mac, mac, 6);
	req.vid = vid;
	req.port = port;
	if (rte_ring_mp_enqueue_elem(w->dp->learn_ring, &req, sizeof(req)) == 0)
		IBEX_CNT_ADD(w->cnt[port].learn_posted, 1);
	else
		IBEX_CNT_ADD(w->cnt[port].learn_lost, 1);
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
	key = mac_key(src, vid);
	s = mac_slot(w->src_cache, key);
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
	uint64_t key = mac_key(dst, vid);
	struct ibex_mac_slot *s = mac_slot(w->dst_cache, key);
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
 * Learn the source and look up the destination, through the flow cache:
 * one probe in the common case, the two MAC caches and the FDB otherwise.
 * Only known destinations are cached; unknown ones flood every time until
 * learned, so a station that appears is used at once.
 */
static inline uint16_t
flow_lookup(struct ibex_worker *w, const struct ibex_dp_tables *t,
	    const uint8_t *eth, uint16_t vid, uint16_t in_port,
	    uint32_t now_ms)
{
	uint64_t dkey = mac_key(eth, vid);
	uint64_t skey = mac_key(eth + 6, in_port);
	struct ibex_flow_slot *f = &w->flow_cache[cache_index(dkey ^ (skey * 31))];
	uint32_t until;
	uint16_t out;

	if (likely(f->dst_key == dkey && f->src_key == skey &&
		   f->version == w->fdb_version &&
		   (int32_t)(f->until_ms - now_ms) > 0))
		return f->out;
	until = learn_check(w, t, eth + 6, vid, in_port, now_ms);
	out = dst_lookup(w, eth, vid);
	if (out != IBEX_PORT_NONE) {
		f->dst_key = dkey;
		f->src_key = skey;
		f->version = w->fdb_version;
		f->until_ms = until;
		f->out = out;
	}
	return out;
}

static void
flood(struct ibex_worker *w, const struct ibex_dp_tables *t,
      struct ibex_port_counters *c, struct rte_mbuf *m, uint16_t vid,
      uint16_t in_port)
{
	uint64_t mask = ibex_flood_mask(t->vlan_members, vid, in_port) &
			t->tx_enabled;
	unsigned int n = __builtin_popcountll(mask);

	if (unlikely(n == 0)) {
		drop(c, m, IBEX_R_NO_EGRESS);
		return;
	}
	IBEX_CNT_ADD(c->flood_pkts, 1);
	/* One mbuf, n references: every TX (or drop) releases one. */
	if (n > 1)
		rte_mbuf_refcnt_update(m, (int16_t)(n - 1));
	while (mask != 0) {
		uint16_t out = __builtin_ctzll(mask);

		mask &= mask - 1;
		txbuf_add(w, out, m);
	}
}

/* Forward one parsed frame. Kept out of line of the burst loop on purpose:
 * the loop stays small and the compiler keeps the hot state in registers. */
static inline void
forward_one(struct ibex_worker *w, const struct ibex_dp_tables *t,
	    struct ibex_port_counters *c, struct rte_mbuf *m, uint16_t in_port,
	    uint32_t now_ms)
{
	const uint8_t *eth = rte_pktmbuf_mtod(m, const uint8_t *);
	struct ibex_pkt_info info;
	enum ibex_reason r;
	uint16_t vid, out;

	r = ibex_pkt_parse(eth, m->data_len, &info);
	if (unlikely(r != IBEX_R_OK)) {
		drop(c, m, r);
		return;
	}
	if (unlikely(ibex_mac_is_group(eth + 6))) {
		drop(c, m, IBEX_R_SRC_MCAST);
		return;
	}
	/* Untagged and priority-tagged (VID 0) frames belong to the pvid. The
	 * VID is re-read from the tag rather than from info.vid: parse leaves
	 * info in memory written in narrow pieces, and the compiler's wide load
	 * of info.vid would wait ~12 cycles for store-to-load forwarding. */
	vid = (info.flags & IBEX_PKT_F_VLAN) ? (ibex_rd16(eth + 14) & 0xfff) : 0;
	if (vid == 0)
		vid = t->pvid[in_port];
	if (unlikely(!((t->vlan_members[vid] >> in_port) & 1))) {
		drop(c, m, IBEX_R_VLAN_INGRESS);
		return;
	}
	if (unlikely(info.flags & IBEX_PKT_F_DMAC_GROUP)) {
		learn_check(w, t, eth + 6, vid, in_port, now_ms);
		flood(w, t, c, m, vid, in_port);
		return;
	}
	out = flow_lookup(w, t, eth, vid, in_port, now_ms);
	if (out == IBEX_PORT_NONE) {
		flood(w, t, c, m, vid, in_port);
		return;
	}
	if (unlikely(out == in_port)) {
		drop(c, m, IBEX_R_SAME_PORT);
		return;
	}
	if (unlikely(!((t->tx_enabled >> out) & 1))) {
		drop(c, m, IBEX_R_PORT_DOWN);
		return;
	}
	txbuf_add(w, out, m);
}

static void
rx_burst_process(struct ibex_worker *w, const struct ibex_dp_tables *t,
		 uint16_t in_port, struct rte_mbuf **pkts, uint16_t n,
		 uint32_t now_ms)
{
	struct ibex_port_counters *c = &w->cnt[in_port];
	uint64_t bytes = 0;
	uint16_t i;

	for (i = 0; i < n && i < PREFETCH_AHEAD; i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));
	for (i = 0; i < n; i++) {
		if (i + PREFETCH_AHEAD < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + PREFETCH_AHEAD],
						       void *));
		bytes += pkts[i]->pkt_len;
		forward_one(w, t, c, pkts[i], in_port, now_ms);
	}
	IBEX_CNT_ADD(c->rx_pkts, n);
	IBEX_CNT_ADD(c->rx_bytes, bytes);
}

/* Hand buffered frames to TX: all of them when draining every iteration,
 * else those whose buffer is full enough or old enough. */
static void
tx_drain(struct ibex_worker *w)
{
	uint64_t pending = w->pending_tx;
	uint64_t drain = w->dp->tx_drain_tsc;
	uint64_t now = drain != 0 ? rte_rdtsc() : 0;

	while (pending != 0) {
		uint16_t port = __builtin_ctzll(pending);
		struct ibex_txbuf *tb = &w->tx[port];

		pending &= pending - 1;
		if (drain == 0 || tb->count >= w->dp->burst ||
		    now - tb->first_tsc >= drain)
			txbuf_flush(w, port);
	}
}

static void
worker_release_all(struct ibex_worker *w)
{
	uint16_t port;

	for (port = 0; port < w->dp->nb_ports; port++) {
		struct ibex_txbuf *tb = &w->tx[port];

		if (tb->count != 0)
			txbuf_flush(w, port);
		if (tb->count != 0) {
			IBEX_CNT_ADD(w->cnt[port].drop[IBEX_R_TX_FULL],
				     tb->count);
			rte_pktmbuf_free_bulk(tb->pkts, tb->count);
			tb->count = 0;
		}
	}
	w->pending_tx = 0;
}

int
ibex_dp_worker_main(void *arg)
{
	struct ibex_worker *w = arg;
	struct ibex_dp *dp = w->dp;
	struct rte_mbuf *pkts[IBEX_BURST_MAX];
	const uint16_t burst = dp->burst;

	RTE_LOG(INFO, IBEX_WORKER, "worker %u on lcore %u polls %u queue(s)\n",
		w->index, w->lcore_id, w->nb_rxq);
	while (!atomic_load_explicit(&dp->stop, memory_order_relaxed)) {
		const struct ibex_dp_tables *t =
			atomic_load_explicit(&dp->tables, memory_order_acquire);
		uint32_t now_ms = atomic_load_explicit(&dp->now_ms,
						       memory_order_relaxed);
		uint64_t start = rte_rdtsc();
		uint32_t moved = 0;
		uint16_t q;

		w->fdb_version = ibex_fdb_version(dp->fdb);

		for (q = 0; q < w->nb_rxq; q++) {
			const struct ibex_rxq *rq = &w->rxq[q];
			uint16_t n = rte_eth_rx_burst(dp->port_id[rq->port],
						      rq->queue, pkts, burst);

			if (n == 0)
				continue;
			moved += n;
			rx_burst_process(w, t, rq->port, pkts, n, now_ms);
		}
		if (w->pending_tx != 0)
			tx_drain(w);
		IBEX_CNT_ADD(w->iterations, 1);
		if (moved != 0) {
			IBEX_CNT_ADD(w->busy_iterations, 1);
			IBEX_CNT_ADD(w->busy_tsc, rte_rdtsc() - start);
		}
	}
	worker_release_all(w);
	return 0;
}
