/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Flow control glue: see ibex_fc.h for the model and the per-frame calls.
 * What every mode shares lives here (the buffer, ports' owners, the
 * frames' hand-off and dispatch, housekeeping's pace, the view); each
 * mode's own work is in its file behind struct ibex_fc_mode_ops
 * (ibex_fc_mode.h): ibex_fc_credit.c, ibex_fc_pfc.c.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "ibex_clock.h"
#include "ibex_pdev.h"
#include "ibex_conf.h"
#include "ibex_dp_private.h"
#include "ibex_fc.h"
#include "ibex_fc_mode.h"

/* ibex_credit_window_blocks() counts on this tick. */
_Static_assert(IBEX_FC_HK_NS == IBEX_CREDIT_HK_NS,
	       "credit housekeeping tick and window sizing disagree");

RTE_LOG_REGISTER(ibex_fc_logtype, ibex.fc, INFO);

static void
port_prio_maps(struct ibex_fc_port *fp, const struct ibex_conf_port *cp)
{
	unsigned int v;

	memset(fp->vl2prio, 0xff, sizeof(fp->vl2prio));
	memset(fp->prio_vls, 0, sizeof(fp->prio_vls));
	for (v = 0; v < IBEX_VL_DATA_MAX; v++) {
		int prio = ibex_conf_vl_prio(cp, v);

		if (prio < 0 || prio >= IBEX_PFC_PRIOS)
			continue;
		fp->vl2prio[v] = (uint8_t)prio;
		fp->prio_vls[prio] |= 1u << v;
	}
}

/* The priorities @p fp's lossless lanes take. */
static uint8_t
port_lossless_prios(const struct ibex_fc_port *fp)
{
	uint8_t prios = 0;
	unsigned int v;

	for (v = 0; v < IBEX_VL_DATA_MAX; v++)
		if ((fp->lossless >> v & 1) && fp->vl2prio[v] < IBEX_PFC_PRIOS)
			prios |= (uint8_t)(1u << fp->vl2prio[v]);
	return prios;
}

/* The state of a port's flow control; its params are the tables' (built
 * and checked by ibex_dp_tables_make()). */
static int
port_init(struct ibex_fc_port *fp, const struct ibex_conf_port *cp,
	  uint16_t port_id, char *err, size_t errlen)
{
	const struct ibex_fc_mode_ops *ops = ibex_fc_mode_ops_of(cp->fc_mode);
	struct rte_ether_addr a;

	fp->mode = cp->fc_mode;
	fp->lossless = cp->lossless_mask;
	port_prio_maps(fp, cp);
	fp->lossless_prios = port_lossless_prios(fp);
	if (ibex_pdev_macaddr_get(port_id, &a) == 0)
		memcpy(fp->mac, a.addr_bytes, 6);
	return ops != NULL ? ops->port_init(fp, cp, err, errlen) : 0;
}

/* What a port's mode allocated (fc cbfc's state). */
static void
fc_ports_free(struct ibex_fc *fc)
{
	unsigned int p;

	for (p = 0; p < IBEX_MAX_PORTS; p++) {
		rte_free(fc->port[p].cb);
		fc->port[p].cb = NULL;
	}
}

static int
fc_create_one(struct ibex_fc **fcp, const struct ibex_dp *dp,
	      const struct ibex_conf *conf, uint16_t index, char *err,
	      size_t errlen)
{
	struct ibex_buf_conf bc;
	struct ibex_fc *fc;
	char name[RTE_MEMPOOL_NAMESIZE], base[RTE_MEMPOOL_NAMESIZE];
	uint16_t p;
	int ret;

	*fcp = NULL;
	for (p = 0; p < conf->nb_ports; p++)
		if (conf->ports[p].fc_mode != IBEX_FC_NONE)
			break;
	if (p == conf->nb_ports)
		return 0;
	fc = rte_zmalloc("ibex_fc", sizeof(*fc), RTE_CACHE_LINE_SIZE);
	if (fc == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	ret = ibex_conf_buf_conf(conf, &bc);
	if (ret == 0)
		ret = ibex_buf_init(&fc->buf, &bc);
	if (ret < 0) {
		snprintf(err, errlen, "buffer: %s", ret == -ENOSPC ?
			 "reserved and headroom exceed `buffer total`" :
			 "invalid layout");
		rte_free(fc);
		return ret;
	}
	/* FC frames come from a small pool of their own: drawn from the big
	 * pool, each would be a cold mbuf (the peer frees them on another
	 * lcore), a cache miss or a page fault per credit frame. */
	fc->index = index;
	if (ibex_dp_shared_fc_pool != NULL &&
	    rte_pktmbuf_data_room_size(ibex_dp_shared_fc_pool) <
	    RTE_PKTMBUF_HEADROOM + 128) {
		snprintf(err, errlen, "the shared flow-control pool's mbufs "
			 "hold less than 128 bytes");
		rte_free(fc);
		return -EINVAL;
	}
	snprintf(base, sizeof(base), "ibex_fc_pool%u", index);
	fc->pool_shared = ibex_dp_shared_fc_pool != NULL;
	fc->pool = fc->pool_shared ? ibex_dp_shared_fc_pool :
		   ibex_pdev_pool_create(
		ibex_dp_obj_name(dp, name, sizeof(name), base), IBEX_FC_POOL,
		32, RTE_PKTMBUF_HEADROOM + 128, (int)rte_socket_id());
	if (fc->pool == NULL) {
		snprintf(err, errlen, "cannot create the flow-control pool");
		rte_free(fc);
		return -ENOMEM;
	}
	fc->ns_mult = (uint64_t)(((unsigned __int128)1000000000 << 32) /
				 ibex_clock_hz());
	fc->par = atomic_load_explicit(&dp->tables, memory_order_relaxed)->fc;
	fc->hk_tsc = ibex_clock_hz() / (1000000000 / IBEX_FC_HK_NS);
	for (p = 0; p < conf->nb_ports; p++) {
		const struct ibex_conf_port *cp = &conf->ports[p];

		ret = port_init(&fc->port[p], cp, dp->port_id[p], err, errlen);
		if (ret < 0) {
			fc_ports_free(fc);
			if (!fc->pool_shared)
				rte_mempool_free(fc->pool);
			rte_free(fc);
			return ret;
		}
		if (cp->fc_mode != IBEX_FC_NONE)
			fc->fc_ports |= UINT64_C(1) << p;
		if (cp->fc_mode == IBEX_FC_CREDIT)
			fc->credit_ports |= UINT64_C(1) << p;
		if (cp->fc_mode == IBEX_FC_PFC)
			fc->pfc_ports |= UINT64_C(1) << p;
		if (cp->fc_mode == IBEX_FC_CBFC)
			fc->cbfc_ports |= UINT64_C(1) << p;
	}
	fc->owned = fc->fc_ports;
	*fcp = fc;
	return 0;
}

/* The worker polling queue 0 of @p port owns its flow control: frames
 * without RSS entropy (flow-control frames among them) land there. */
static uint16_t
port_owner(const struct ibex_dp *dp, uint16_t port)
{
	uint16_t i, k;

	for (i = 0; i < dp->nb_workers; i++)
		for (k = 0; k < dp->workers[i]->nb_rxq; k++)
			if (dp->workers[i]->rxq[k].port == port &&
			    dp->workers[i]->rxq[k].queue == 0)
				return i;
	return 0;
}

/* Several workers: the shared state, the owners and the handoff rings. */
static int
fc_share(struct ibex_dp *dp, char *err, size_t errlen)
{
	struct ibex_fc *fc0 = dp->workers[0]->fc;
	struct ibex_fc_shared *sh;
	char name[RTE_RING_NAMESIZE], base[RTE_RING_NAMESIZE];
	uint16_t p, i;

	sh = rte_zmalloc("ibex_fc_shared", sizeof(*sh), RTE_CACHE_LINE_SIZE);
	if (sh == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	sh->nb_workers = dp->nb_workers;
	for (i = 0; i < dp->nb_workers; i++) {
		struct ibex_fc *fc = dp->workers[i]->fc;

		sh->wfc[i] = fc;
		fc->sh = sh;
		fc->multi = true;
		fc->owned = 0;
		fc->cr_multi = fc->credit_ports;
	}
	for (p = 0; p < dp->nb_ports; p++) {
		if (!(fc0->fc_ports >> p & 1))
			continue;
		sh->owner[p] = port_owner(dp, p);
		dp->workers[sh->owner[p]]->fc->owned |= UINT64_C(1) << p;
		/* The owner's copy as built is the port's state; the
		 * workers' own copies keep only their ABR shares and
		 * violation counts. */
		sh->port[p] = fc0->port[p];
		snprintf(base, sizeof(base), "ibex_fc_ho%u", p);
		sh->handoff[p] = rte_ring_create(
			ibex_dp_obj_name(dp, name, sizeof(name), base), IBEX_FC_HANDOFF_RING,
						 (int)rte_socket_id(),
						 RING_F_SC_DEQ);
		if (sh->handoff[p] == NULL) {
			snprintf(err, errlen, "cannot create the flow-control "
				 "ring of port %s", dp->port_name[p]);
			return -ENOMEM;
		}
	}
	return 0;
}

int
ibex_fc_create(struct ibex_dp *dp, const struct ibex_conf *conf, char *err,
	       size_t errlen)
{
	uint16_t i;
	int ret;

	for (i = 0; i < dp->nb_workers; i++) {
		ret = fc_create_one(&dp->workers[i]->fc, dp, conf, i, err,
				    errlen);
		if (ret < 0 || dp->workers[i]->fc == NULL)
			return ret;
	}
	if (dp->nb_workers == 1)
		return 0;
	if (dp->workers[0]->fc->cbfc_ports != 0) {
		snprintf(err, errlen, "fc cbfc runs on one worker (%u "
			 "workers): several workers are not implemented yet",
			 dp->nb_workers);
		return -ENOTSUP;
	}
	RTE_LOG(INFO, IBEX_FC, "flow control over %u workers: a buffer slice "
		"each, each port's flow control on one worker\n",
		dp->nb_workers);
	for (i = 0; i < dp->nb_ports; i++)
		if (dp->workers[0]->fc->fc_ports >> i & 1)
			RTE_LOG(INFO, IBEX_FC, "port %s: flow control on worker "
				"%u\n", dp->port_name[i], port_owner(dp, i));
	return fc_share(dp, err, errlen);
}

void
ibex_fc_free(struct ibex_dp *dp)
{
	struct ibex_fc_shared *sh = NULL;
	uint16_t i, p;

	for (i = 0; i < dp->nb_workers; i++) {
		struct ibex_fc *fc;

		if (dp->workers[i] == NULL || dp->workers[i]->fc == NULL)
			continue;
		fc = dp->workers[i]->fc;
		if (fc->sh != NULL)
			sh = fc->sh;
		if (!fc->pool_shared)
			rte_mempool_free(fc->pool);
		fc_ports_free(fc);
		rte_free(fc);
		dp->workers[i]->fc = NULL;
	}
	if (sh == NULL)
		return;
	for (p = 0; p < IBEX_MAX_PORTS; p++) {
		struct rte_mbuf *m;

		if (sh->handoff[p] == NULL)
			continue;
		while (rte_ring_dequeue(sh->handoff[p], (void **)&m) == 0)
			rte_pktmbuf_free(m);
		rte_ring_free(sh->handoff[p]);
	}
	rte_free(sh);
}

void
ibex_fc_update(struct ibex_fc *fc, const struct ibex_dp_tables *t)
{
	/* New quanta, margins, timers and watchdog; pauses in force, credit
	 * counters and timers of the state machines stay. */
	fc->par = t->fc;
}

bool
ibex_fc_send(struct ibex_worker *w, uint16_t port, const void *frame,
	     uint32_t len, struct ibex_fc_counters *c)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(w->fc->pool);
	uint16_t sent;
	char *p;

	if (m == NULL || (p = rte_pktmbuf_append(m, (uint16_t)len)) == NULL) {
		rte_pktmbuf_free(m);
		IBEX_CNT_ADD(c->fc_tx_fail, 1);
		return false;
	}
	memcpy(p, frame, len);
	if (unlikely((w->detached >> port) & 1)) {
		rte_pktmbuf_free(m);
		IBEX_CNT_ADD(c->fc_tx_fail, 1);
		return false;
	}
	/* A TX capture shows the flow-control frames we send too. */
	if (unlikely(w->cap != NULL))
		ibex_capture_copy(w->cap, w->index, port, w->tx[port].txq, &m,
				  1, IBEX_CAPTURE_TX, ibex_clock_now());
	sent = ibex_pdev_tx_burst(w->dp->port_id[port], w->tx[port].txq, &m, 1);
	if (unlikely(w->cap != NULL))
		ibex_capture_commit(w->cap, w->index, sent);
	if (sent != 1) {
		rte_pktmbuf_free(m);
		IBEX_CNT_ADD(c->fc_tx_fail, 1);
		return false;
	}
	return true;
}

bool
ibex_fc_send_behind(struct ibex_worker *w, uint16_t port, const void *frame,
		    uint32_t len, struct ibex_fc_counters *c)
{
	if (!ibex_dp_tx_drained(w, port)) {
		IBEX_CNT_ADD(c->fc_tx_fail, 1);
		return false;
	}
	return ibex_fc_send(w, port, frame, len, c);
}

/* Several workers: a flow-control frame on a port another worker owns
 * goes to the owner; one the ring cannot take is lost (the next one
 * repeats its news) and counted. */
static void
fc_handoff(struct ibex_worker *w, uint16_t port, struct rte_mbuf *m)
{
	if (rte_ring_mp_enqueue(w->fc->sh->handoff[port], m) == 0)
		return;
	IBEX_CNT_ADD(w->fc->port[port].cnt.handoff_lost, 1);
	rte_pktmbuf_free(m);
}

static void fc_frame_process(struct ibex_worker *w, uint16_t port,
			     struct rte_mbuf *m, uint64_t tsc);

bool
ibex_fc_rx_frame(struct ibex_worker *w, uint16_t port, struct rte_mbuf *m,
		 uint64_t tsc)
{
	const uint8_t *eth = rte_pktmbuf_mtod(m, const uint8_t *);
	uint16_t et = (uint16_t)(eth[12] << 8 | eth[13]);
	struct ibex_fc *fc = w->fc;

	/* Flow control is untagged: a tagged MAC control or credit frame is
	 * malformed (the caller saw the EtherType after the tag). */
	if (et != 0x8808 && et != 0x88b5) {
		IBEX_CNT_ADD(w->cnt[port].drop[IBEX_R_FC_FRAME_BAD], 1);
		rte_pktmbuf_free(m);
		return true;
	}
	if (fc != NULL && fc->multi && (fc->fc_ports >> port & 1) &&
	    !(fc->owned >> port & 1))
		fc_handoff(w, port, m);
	else
		fc_frame_process(w, port, m, tsc);
	return true;
}

/* The mode of @p port (none without flow control on the switch). */
static unsigned int
fc_port_mode(const struct ibex_fc *fc, uint16_t port)
{
	if (fc == NULL || !(fc->fc_ports >> port & 1))
		return IBEX_FC_NONE;
	return fc->port[port].mode;
}

/*
 * A flow-control frame, on the worker that owns its port's state. The
 * mode whose frame it is acts on it when the port runs that mode; any
 * other valid one (PFC without fc pfc, 802.3x PAUSE, which ibex never
 * obeys) is counted apart from malformed ones. Flow-control frames are
 * link-local: never forwarded.
 */
static void
fc_frame_process(struct ibex_worker *w, uint16_t port, struct rte_mbuf *m,
		 uint64_t tsc)
{
	const uint8_t *eth = rte_pktmbuf_mtod(m, const uint8_t *);
	uint16_t et = (uint16_t)(eth[12] << 8 | eth[13]);
	struct ibex_port_counters *c = &w->cnt[port];
	unsigned int mode = fc_port_mode(w->fc, port), reason, k;
	union ibex_fc_msg msg;

	reason = IBEX_R_FC_FRAME_BAD;
	for (k = 0; k < IBEX_FC_MODE_NB; k++) {
		const struct ibex_fc_mode_ops *ops = ibex_fc_mode_ops_of(k);
		enum ibex_fcf_err e;

		if (ops == NULL || ops->ethertype != et)
			continue;
		e = ops->parse(eth, m->data_len, &msg);
		if (e == IBEX_FCF_OK && mode == k) {
			ops->apply(w, port, &msg, tsc);
			IBEX_CNT_ADD(c->consumed, 1);
			rte_pktmbuf_free(m);
			return;
		}
		if (e == IBEX_FCF_OK || (ops->ignorable != NULL &&
					 ops->ignorable(eth, m->data_len, e)))
			reason = IBEX_R_FC_IGNORED;
	}
	IBEX_CNT_ADD(c->drop[reason], 1);
	rte_pktmbuf_free(m);
}

/* The owner: frames other workers received for @p port. */
static void
fc_handoff_drain(struct ibex_worker *w, uint16_t port, uint64_t tsc)
{
	struct rte_mbuf *m[32];
	unsigned int n, i;

	n = rte_ring_sc_dequeue_burst(w->fc->sh->handoff[port], (void **)m,
				      RTE_DIM(m), NULL);
	for (i = 0; i < n; i++)
		fc_frame_process(w, port, m[i], tsc);
}


/*
 * Several workers, every worker for every flow-controlled port: what its
 * mode publishes and does on each worker (ops->publish: for PFC, its own
 * slice against the dynamic threshold, XOFF and refreshes for the lanes
 * its slice pauses, at once from its own TX queue, not behind the
 * owner's scheduling; for credits, its share of the port), then the
 * lanes the ports' owners found paused or drained into its gate words
 * (bits the owner alone decides; the busy bits stay the worker's).
 */
static void
fc_worker_sync(struct ibex_worker *w, uint64_t now_ns)
{
	struct ibex_fc *fc = w->fc;
	uint64_t ports = fc->fc_ports;

	while (ports != 0) {
		uint16_t port = (uint16_t)__builtin_ctzll(ports);
		const struct ibex_fc_mode_ops *ops =
			ibex_fc_mode_ops_of(fc_port_mode(fc, port));

		ports &= ports - 1;
		if (ops->publish != NULL)
			ops->publish(w, port, now_ns);
	}
	ibex_fc_pub_update(&fc->pub.pool, fc->buf.shared_used);
	ibex_fc_pause_sync(w, atomic_load_explicit(&fc->sh->pause_gen,
						   memory_order_acquire));
}

void
ibex_fc_pause_sync(struct ibex_worker *w, uint32_t gen)
{
	struct ibex_fc *fc = w->fc;
	uint64_t ports = fc->pfc_ports;

	fc->pause_gen = gen;
	while (ports != 0) {
		uint16_t port = (uint16_t)__builtin_ctzll(ports);
		uint32_t b;

		ports &= ports - 1;
		b = atomic_load_explicit(&fc->sh->blocked[port],
					 memory_order_relaxed);
		w->gate[port] = (w->gate[port] & ~IBEX_GATE_BLOCKED_ALL) | b;
		fc->port[port].wd_drop = atomic_load_explicit(
			&fc->sh->wd_drop[port], memory_order_relaxed);
	}
}

void
ibex_fc_housekeeping(struct ibex_worker *w, uint64_t tsc)
{
	struct ibex_fc *fc = w->fc;
	uint64_t now_ns, ports = fc->owned;

	/* At most every IBEX_FC_HK_NS: credit updates, pause refreshes and
	 * the watchdog need microseconds, not every iteration's attention,
	 * and a scan of every port per iteration would cost more than the
	 * frames it serves. */
	if (tsc - fc->last_hk_tsc < fc->hk_tsc)
		return;
	fc->last_hk_tsc = tsc;
	now_ns = ibex_fc_ns(fc, tsc);
	/* The common pool's count (the lcores' caches not counted: a little
	 * low, never high), every IBEX_FC_POOL_HK housekeepings; what
	 * rte_mempool_ops_get_count() does, which 22.11 does not export. */
	if (w->dp->pool_floor != 0 &&
	    (++fc->pool_hk & (IBEX_FC_POOL_HK - 1)) == 0)
	{
		w->pool_low = rte_mempool_get_ops(w->dp->pool->ops_index)->
			      get_count(w->dp->pool) < w->dp->pool_floor;
		w->rx_slow = w->detached |
			     (w->pool_low ? ~UINT64_C(0) : 0);
	}
	if (fc->multi)
		fc_worker_sync(w, now_ns);

	while (ports != 0) {
		uint16_t port = (uint16_t)__builtin_ctzll(ports);

		ports &= ports - 1;
		if (fc->multi)
			fc_handoff_drain(w, port, tsc);
		ibex_fc_mode_ops_of(fc->port[port].mode)->housekeeping(w, port,
								      now_ns);
	}
}

bool
ibex_fc_quiet(const struct ibex_worker *w)
{
	const struct ibex_fc *fc = w->fc;
	uint64_t ports = fc->owned;

	if (fc->multi || fc->buf.shared_used != 0)
		return false;
	while (ports != 0) {
		uint16_t port = (uint16_t)__builtin_ctzll(ports);
		const struct ibex_fc_port *fp = &fc->port[port];

		ports &= ports - 1;
		if (!ibex_fc_mode_ops_of(fp->mode)->quiet(fc, port))
			return false;
	}
	return true;
}

/* Sum the counters of @p c into @p v (the view's counter fields). */
static void
view_add_counters(struct ibex_dp_fc_view *v, const struct ibex_fc_counters *c)
{
	unsigned int i;

	v->fc_tx += IBEX_CNT_READ(c->fc_tx);
	v->fc_rx += IBEX_CNT_READ(c->fc_rx);
	v->fc_tx_fail += IBEX_CNT_READ(c->fc_tx_fail);
	v->pfc_tx += IBEX_CNT_READ(c->pfc_tx);
	v->pfc_rx += IBEX_CNT_READ(c->pfc_rx);
	v->pfc_ignored += IBEX_CNT_READ(c->pfc_ignored);
	v->xoff_tx += IBEX_CNT_READ(c->xoff_tx);
	v->xon_tx += IBEX_CNT_READ(c->xon_tx);
	v->xoff_rx += IBEX_CNT_READ(c->xoff_rx);
	v->xon_rx += IBEX_CNT_READ(c->xon_rx);
	v->storms += IBEX_CNT_READ(c->storms);
	v->restored += IBEX_CNT_READ(c->restored);
	v->handoff_lost += IBEX_CNT_READ(c->handoff_lost);
	for (i = 0; i < IBEX_PFC_PRIOS; i++)
		v->paused_ns[i] += IBEX_CNT_READ(c->paused_ns[i]);
	for (i = 0; i < IBEX_VL_COUNT; i++)
		v->violations[i] += IBEX_CNT_READ(c->violations[i]);
}

/* One worker's buffer slice into the view: use summed, room the
 * smallest, XOFF if any slice asserts it (or, several workers, the
 * owner's judgement of their sum does: ibex_dp_fc_view()). */
static void
view_add_slice(struct ibex_dp_fc_view *v, const struct ibex_buf *b,
	       uint16_t port, bool first)
{
	unsigned int i;

	for (i = 0; i < IBEX_VL_COUNT; i++) {
		const struct ibex_buf_lane *l = &b->lane[port][i];
		uint32_t used = IBEX_CNT_READ(l->reserved) +
				IBEX_CNT_READ(l->shared) +
				IBEX_CNT_READ(l->headroom);
		uint32_t room = used < l->res_cap ? l->res_cap - used : 0;

		v->buf_used[i] += used;
		v->buf_peak[i] += IBEX_CNT_READ(l->peak);
		v->hr_peak[i] += IBEX_CNT_READ(l->hr_peak);
		if (first || room < v->buf_free[i])
			v->buf_free[i] = room;
		v->xoff[i] |= IBEX_CNT_READ(l->xoff);
	}
}

int
ibex_dp_fc_view(const struct ibex_dp *dp, uint16_t port,
		struct ibex_dp_fc_view *v)
{
	const struct ibex_fc_mode_ops *ops;
	struct ibex_fc *fc = dp->workers[0]->fc;
	const struct ibex_fc_port *fp;
	uint32_t gate;
	unsigned int i;

	memset(v, 0, sizeof(*v));
	if (fc == NULL || port >= dp->nb_ports)
		return -ENOENT;
	fp = ibex_fc_port_state(fc, port);
	v->mode = fp->mode;
	v->lossless = fp->lossless;
	gate = fc->multi ? atomic_load_explicit(&fc->sh->blocked[port],
						memory_order_relaxed) :
			   IBEX_CNT_READ(dp->workers[0]->gate[port]);
	v->wd_drop_vls = IBEX_CNT_READ(fp->wd_drop);
	v->paused_vls = (uint16_t)((gate & IBEX_GATE_BLOCKED_ALL) >> 16) &
			~v->wd_drop_vls;
	for (i = 0; i < dp->nb_workers; i++) {
		view_add_slice(v, &dp->workers[i]->fc->buf, port, i == 0);
		view_add_counters(v, &dp->workers[i]->fc->port[port].cnt);
	}
	if (fc->multi) {
		uint16_t sum_xoff = IBEX_CNT_READ(fc->sh->sum_xoff[port]);

		view_add_counters(v, &fc->sh->port[port].cnt);
		for (i = 0; i < IBEX_VL_COUNT; i++)
			v->xoff[i] |= sum_xoff >> i & 1;
	}
	ops = ibex_fc_mode_ops_of(fp->mode);
	if (ops != NULL && ops->view != NULL)
		ops->view(fc, fp, port, v);
	return 0;
}
