/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fc pfc: 802.1Qbb PFC on the data path (pauses sent and refreshed, pauses
 * received, the watchdog, the workers' slices judged together), over
 * lib/credit's ibex_pfc and ibex_buf. docs/flow-control.md, "PFC" and
 * "Many workers".
 */

#include <stdio.h>
#include <string.h>

#include <rte_mbuf.h>

#include "ibex_conf.h"
#include "ibex_dp_private.h"
#include "ibex_fc.h"
#include "ibex_fc_mode.h"

static void
pfc_frame_rx(struct ibex_fc_port *fp, const struct ibex_dp_fc_conf *par,
	     const struct ibex_fcf_pfc *m, uint64_t now_ns)
{
	uint8_t changed = ibex_pfc_rx_frame(&par->pfc_rx, &fp->prx,
					    &fp->prx_stats, m, now_ns);
	unsigned int p;

	IBEX_CNT_ADD(fp->cnt.pfc_rx, 1);
	if (m->cev == 0) {
		IBEX_CNT_ADD(fp->cnt.pfc_ignored, 1);
		return;
	}
	fp->rx_pause = true;
	for (p = 0; p < IBEX_PFC_PRIOS; p++) {
		if (!(changed >> p & 1))
			continue;
		if (m->quanta[p] != 0)
			IBEX_CNT_ADD(fp->cnt.xoff_rx, 1);
		else
			IBEX_CNT_ADD(fp->cnt.xon_rx, 1);
	}
}

/* Our lanes against the dynamic threshold, which moves with the shared
 * pool's use by every port. */
static void
pfc_rescan(struct ibex_fc *fc, uint16_t port)
{
	uint16_t xoff = 0, xon = 0;
	unsigned int v;

	ibex_buf_pfc_scan(&fc->buf, port, &xoff, &xon);
	for (v = 0; v < IBEX_VL_DATA_MAX; v++) {
		if (xoff >> v & 1)
			ibex_fc_pause_edge(fc, port, v, IBEX_BUF_PAUSE_XOFF);
		if (xon >> v & 1)
			ibex_fc_pause_edge(fc, port, v, IBEX_BUF_PAUSE_XON);
	}
}

static uint32_t
slice_lane_used(const struct ibex_buf_lane *l)
{
	return l->reserved + l->shared + l->headroom;
}

/* Several workers, every worker at its housekeeping: publish its slice's
 * use of PFC port @p port's lossless lanes (struct ibex_fc_slice_pub).
 * The XOFF bits move at each edge (ibex_fc_pause_edge()); here they are
 * only made to agree with a lane changed by other means. */
static void
slice_publish(struct ibex_fc *fc, uint16_t port)
{
	const struct ibex_fc_port *fp = &fc->port[port];
	uint16_t xoff = 0;
	uint32_t lanes;

	for (lanes = fp->lossless; lanes != 0; lanes &= lanes - 1) {
		unsigned int v = (unsigned int)__builtin_ctz(lanes);
		const struct ibex_buf_lane *l = &fc->buf.lane[port][v];

		ibex_fc_pub_update(&fc->pub.lane[port][v], slice_lane_used(l));
		xoff |= (uint16_t)(l->xoff << v);
	}
	if (xoff != atomic_load_explicit(&fc->pub.xoff[port],
					 memory_order_relaxed))
		atomic_store_explicit(&fc->pub.xoff[port], xoff,
				      memory_order_relaxed);
}

/*
 * Several workers, the owner of PFC port @p port: which lossless lanes
 * want the peer paused, judged on the sum of the slices as one buffer
 * would judge them (ibex_buf_pfc_judge(): the lane's use in every slice
 * against the threshold the pool's use in every slice leaves), or
 * because a slice asserts XOFF on its own. Its own slice it reads as it
 * is, the others as they published it (struct ibex_fc_slice_pub: each
 * within IBEX_FC_PUB_QUANTUM blocks). @return the priorities.
 */
static uint8_t
pfc_judge_sum(struct ibex_fc *fc, uint16_t port)
{
	struct ibex_fc_shared *sh = fc->sh;
	const struct ibex_fc_port *fp = &sh->port[port];
	uint64_t pool = fc->buf.shared_used;
	uint16_t slice_xoff = 0;
	uint32_t lanes;
	uint8_t want = 0;
	unsigned int w;

	for (w = 0; w < sh->nb_workers; w++) {
		if (w == fc->index)
			continue;
		pool += atomic_load_explicit(&sh->wfc[w]->pub.pool,
					     memory_order_relaxed);
		slice_xoff |= atomic_load_explicit(&sh->wfc[w]->pub.xoff[port],
						   memory_order_relaxed);
	}
	for (lanes = fp->lossless; lanes != 0; lanes &= lanes - 1) {
		unsigned int v = (unsigned int)__builtin_ctz(lanes);
		const struct ibex_buf_lane *own = &fc->buf.lane[port][v];
		uint8_t prio = fp->vl2prio[v];
		uint32_t used = slice_lane_used(own);
		bool judged;

		if (prio >= IBEX_PFC_PRIOS)
			continue;
		for (w = 0; w < sh->nb_workers; w++)
			if (w != fc->index)
				used += atomic_load_explicit(
					&sh->wfc[w]->pub.lane[port][v],
					memory_order_relaxed);
		judged = sh->sum_xoff[port] >> v & 1;
		/* Stored only when it moves: the line stays shared. */
		if (ibex_buf_pfc_judge(&fc->buf, port, v, used, pool,
				       &judged) != IBEX_BUF_PAUSE_NONE)
			sh->sum_xoff[port] ^= (uint16_t)(1u << v);
		if (judged || own->xoff || (slice_xoff >> v & 1))
			want |= (uint8_t)(1u << prio);
	}
	return want;
}

/*
 * Several workers, the owner of PFC port @p port: the port's generator
 * asserts a priority while pfc_judge_sum() wants it, and sends XON when
 * it no longer does. A slice's own XOFF may come and go between two looks
 * (its lane crossed and fell back within a microsecond, or this worker
 * was descheduled): its edge count moved, so an XON follows it all the
 * same (the slices send none).
 */
static void
pfc_gather_multi(struct ibex_fc *fc, uint16_t port)
{
	struct ibex_fc_shared *sh = fc->sh;
	struct ibex_fc_port *fp = &sh->port[port];
	uint32_t seq[IBEX_PFC_PRIOS];
	uint8_t want, used = fp->lossless_prios, prios;
	unsigned int w, p;

	/* The edge counts before the lanes: a slice sets its XOFF before it
	 * counts the edge, so an edge seen here whose XOFF still holds is
	 * seen holding below, and is not answered with an XON. */
	for (prios = used; prios != 0; prios &= (uint8_t)(prios - 1)) {
		p = (unsigned int)__builtin_ctz(prios);
		seq[p] = 0;
		for (w = 0; w < sh->nb_workers; w++)
			seq[p] += __atomic_load_n(
				&sh->wfc[w]->xoff_seq[port][p],
				__ATOMIC_ACQUIRE);
	}
	want = pfc_judge_sum(fc, port);
	for (prios = used; prios != 0; prios &= (uint8_t)(prios - 1)) {
		p = (unsigned int)__builtin_ctz(prios);
		if (want >> p & 1)
			ibex_pfc_tx_set(&fp->ptx, p, true);
		else if (fp->ptx.asserted >> p & 1)
			ibex_pfc_tx_set(&fp->ptx, p, false);
		else if (seq[p] != sh->xoff_seen[port][p])
			ibex_pfc_tx_repeat(&fp->ptx, p);
		if (seq[p] != sh->xoff_seen[port][p])
			sh->xoff_seen[port][p] = seq[p];
	}
	/* Before any XON below (xon_seq's release store): a worker that
	 * sees the XON sees the priority no longer held. Every worker reads
	 * the word every housekeeping: stored only when it changes, so that
	 * its line is not taken from their caches every microsecond. */
	if ((uint8_t)(fp->ptx.asserted & used) !=
	    atomic_load_explicit(&sh->held[port], memory_order_relaxed))
		atomic_store_explicit(&sh->held[port], fp->ptx.asserted & used,
				      memory_order_relaxed);
}

/* Send the PFC frame due on @p port, if any: edges and refreshes, from
 * @p fp's generator; without XON edges when @p no_xon. */
static void
pfc_send_due(struct ibex_worker *w, struct ibex_fc_port *fp, uint16_t port,
	     uint64_t now_ns, bool no_xon)
{
	struct ibex_fcf_pfc m;
	uint8_t frame[64];
	unsigned int p;

	if (!ibex_pfc_tx_poll(&w->fc->par[port].pfc_tx, &fp->ptx,
			      &fp->ptx_stats, now_ns, &m))
		return;
	for (p = 0; no_xon && p < IBEX_PFC_PRIOS; p++)
		if (m.quanta[p] == 0)
			m.cev &= (uint8_t)~(1u << p);
	if (m.cev == 0)
		return;
	for (p = 0; p < IBEX_PFC_PRIOS; p++) {
		if (!(m.cev >> p & 1))
			continue;
		if (m.quanta[p] != 0) {
			IBEX_CNT_ADD(fp->cnt.xoff_tx, 1);
			/* A worker's generator (not the owner's): the owner
			 * follows every XOFF it sends with an XON once nothing
			 * holds the priority, a refresh that crossed the
			 * owner's XON among them. */
			if (no_xon)
				__atomic_store_n(&w->fc->xoff_seq[port][p],
						 w->fc->xoff_seq[port][p] + 1,
						 __ATOMIC_RELEASE);
			continue;
		}
		IBEX_CNT_ADD(fp->cnt.xon_tx, 1);
		if (w->fc->multi)
			__atomic_store_n(&w->fc->sh->xon_seq[port][p],
					 w->fc->sh->xon_seq[port][p] + 1,
					 __ATOMIC_RELEASE);
	}
	if (ibex_fcf_pfc_build(frame, sizeof(frame), fp->mac, &m) > 0) {
		ibex_fc_send(w, port, frame, 60, &fp->cnt);
		IBEX_CNT_ADD(fp->cnt.pfc_tx, 1);
	}
}

/* Several workers, the owner: publish the lanes the peer's pauses block
 * and the watchdog drains, and when they changed move the generation the
 * workers check before they forward or send (after the words: release). */
static void
pfc_publish_lanes(struct ibex_fc_shared *sh, uint16_t port, uint16_t blocked,
		  uint16_t drop_vls)
{
	uint32_t b = (uint32_t)(blocked | drop_vls) << 16;

	if (b == atomic_load_explicit(&sh->blocked[port],
				      memory_order_relaxed) &&
	    drop_vls == atomic_load_explicit(&sh->wd_drop[port],
					     memory_order_relaxed))
		return;
	atomic_store_explicit(&sh->wd_drop[port], drop_vls,
			      memory_order_relaxed);
	atomic_store_explicit(&sh->blocked[port], b, memory_order_relaxed);
	atomic_fetch_add_explicit(&sh->pause_gen, 1, memory_order_release);
}

/* The peer's pauses: run the watchdog, then block or drain the lanes of
 * the paused priorities (the port's gate word; with several workers the
 * word every worker copies into its own). */
static void
pfc_peer_lanes(struct ibex_worker *w, uint16_t port, uint64_t now_ns)
{
	struct ibex_fc_port *fp = ibex_fc_port_state(w->fc, port);
	const struct ibex_pfc_rx_params *par = &w->fc->par[port].pfc_rx;
	struct ibex_pfc_event ev[IBEX_PFC_PRIOS];
	uint16_t drop_vls = 0, blocked = 0;
	unsigned int v, p, n;
	uint8_t paused = 0;

	n = ibex_pfc_rx_watchdog(par, &fp->prx, &fp->prx_stats, now_ns, ev);
	for (v = 0; v < n; v++) {
		if (ev[v].type == IBEX_PFC_EV_STORM) {
			IBEX_CNT_ADD(fp->cnt.storms, 1);
			RTE_LOG(WARNING, IBEX_FC, "%s%s%sport %s priority %u: "
				"PFC storm (paused %.1f ms): %s\n",
				SWITCH_PREFIX(w->dp), w->dp->port_name[port],
				ev[v].prio, ev[v].paused_ns / 1e6,
				par->wd_action == IBEX_PFC_WD_ALARM ?
				"alarm only" : "draining the lane as lossy");
		} else {
			IBEX_CNT_ADD(fp->cnt.restored, 1);
			RTE_LOG(NOTICE, IBEX_FC, "%s%s%sport %s priority %u: PFC "
				"storm over, lane restored\n",
				SWITCH_PREFIX(w->dp), w->dp->port_name[port],
				ev[v].prio);
		}
	}
	for (p = 0; p < IBEX_PFC_PRIOS; p++) {
		enum ibex_pfc_lane st = ibex_pfc_rx_lane(par, &fp->prx, p,
							 now_ns);

		if (st == IBEX_PFC_PAUSED) {
			blocked |= fp->prio_vls[p];
			paused |= 1u << p;
		} else if (st == IBEX_PFC_DROP) {
			drop_vls |= fp->prio_vls[p];
		}
	}
	/* Pause time per priority, in scan steps. */
	for (p = 0; p < IBEX_PFC_PRIOS; p++)
		if (fp->paused >> p & 1)
			IBEX_CNT_ADD(fp->cnt.paused_ns[p],
				     now_ns - fp->paused_since);
	fp->paused = paused;
	fp->paused_since = now_ns;
	fp->wd_drop = drop_vls;
	fp->rx_pause = false;
	if (w->fc->multi) {
		pfc_publish_lanes(w->fc->sh, port, blocked, drop_vls);
		return;
	}
	w->gate[port] = (w->gate[port] & ~IBEX_GATE_BLOCKED_ALL) |
			(uint32_t)(blocked | drop_vls) << 16;
}

/*
 * Every IBEX_FC_HK_NS, per PFC port: only what can have changed. With no
 * shared use no lane can cross the dynamic threshold; with nothing
 * asserted or pending there is nothing to send; with no pause received,
 * in force or stormed the lanes stay open.
 */
static void
pfc_housekeeping(struct ibex_worker *w, uint16_t port, uint64_t now_ns)
{
	struct ibex_fc_port *fp = ibex_fc_port_state(w->fc, port);

	if (w->fc->multi)
		pfc_gather_multi(w->fc, port);
	else if (w->fc->buf.shared_used != 0)
		pfc_rescan(w->fc, port);
	if ((fp->ptx.pending | fp->ptx.asserted) != 0)
		pfc_send_due(w, fp, port, now_ns, false);
	if (fp->rx_pause || fp->paused != 0 || fp->prx.stormed != 0 ||
	    fp->wd_drop != 0)
		pfc_peer_lanes(w, port, now_ns);
}

/* The priorities this worker's slice of @p port asserts on its own. */
static uint8_t
slice_asserts(const struct ibex_fc *fc, uint16_t port)
{
	const struct ibex_fc_port *fp = &fc->port[port];
	uint8_t prios = 0;
	uint32_t lanes;

	for (lanes = fp->lossless; lanes != 0; lanes &= lanes - 1) {
		unsigned int v = (unsigned int)__builtin_ctz(lanes);

		if (fp->vl2prio[v] < IBEX_PFC_PRIOS &&
		    fc->buf.lane[port][v].xoff)
			prios |= (uint8_t)(1u << fp->vl2prio[v]);
	}
	return prios;
}

/*
 * Several workers, every worker for PFC port @p port: its slice against
 * the dynamic threshold, then XOFF and refreshes for what it asserts and,
 * on a port it does not own, for what the owner holds paused: the pause
 * at the peer lives while any one worker runs (workers sharing CPUs are
 * each off theirs for milliseconds; a pause refreshed only by the owner
 * and the crossing slice lapsed when both were, and the peer sent into a
 * held lane). The owner's XON ends every pause at the peer: a slice still
 * asserting when one went out (the owner looked just before this slice
 * crossed) sends its XOFF again at once rather than at its refresh; an
 * XOFF this worker sent after the owner's XON (it read the owner's word
 * just before) is answered by another XON from the owner (xoff_seq).
 */
static void
pfc_slice_sync(struct ibex_worker *w, uint16_t port, uint64_t now_ns)
{
	struct ibex_fc *fc = w->fc;
	struct ibex_fc_port *fp = &fc->port[port];
	uint8_t xon_moved = 0, want, used = fp->lossless_prios, prios;
	unsigned int p;

	if (fc->buf.shared_used != 0)
		pfc_rescan(fc, port);
	/* The XONs first: held is stored before each (acquire). The owner
	 * sends XON for the lossless lanes' priorities only. */
	for (prios = used; prios != 0; prios &= (uint8_t)(prios - 1)) {
		uint32_t xon;

		p = (unsigned int)__builtin_ctz(prios);
		xon = __atomic_load_n(&fc->sh->xon_seq[port][p],
				      __ATOMIC_ACQUIRE);
		if (xon == fc->xon_seen[port][p])
			continue;
		fc->xon_seen[port][p] = xon;
		xon_moved |= (uint8_t)(1u << p);
	}
	if (!(fc->owned >> port & 1)) {
		want = atomic_load_explicit(&fc->sh->held[port],
					    memory_order_relaxed) |
		       slice_asserts(fc, port);
		/* Only what changes: the generator's state is set already. */
		if ((want & used) != (fp->ptx.asserted & used))
			for (prios = used; prios != 0;
			     prios &= (uint8_t)(prios - 1)) {
				p = (unsigned int)__builtin_ctz(prios);
				ibex_pfc_tx_set(&fp->ptx, p, want >> p & 1);
			}
	}
	for (p = 0; (fp->ptx.asserted & xon_moved) != 0 &&
		    p < IBEX_PFC_PRIOS; p++)
		if ((fp->ptx.asserted & xon_moved) >> p & 1)
			ibex_pfc_tx_repeat(&fp->ptx, p);
	if ((fp->ptx.pending | fp->ptx.asserted) != 0)
		pfc_send_due(w, fp, port, now_ns, true);
}

static int
pfc_port_init(struct ibex_fc_port *fp, const struct ibex_conf_port *cp,
	      char *err, size_t errlen)
{
	(void)cp;
	(void)err;
	(void)errlen;
	ibex_pfc_tx_init(&fp->ptx);
	ibex_pfc_rx_init(&fp->prx);
	return 0;
}

static enum ibex_fcf_err
pfc_parse(const uint8_t *eth, uint32_t len, union ibex_fc_msg *msg)
{
	return ibex_fcf_pfc_parse(eth, len, &msg->pfc);
}

/* 802.3x PAUSE: valid, and never obeyed. */
static bool
pfc_ignorable(const uint8_t *eth, uint32_t len, enum ibex_fcf_err e)
{
	return e == IBEX_FCF_OPCODE && len >= 18 && eth[14] == 0 &&
	       eth[15] == IBEX_PAUSE_OPCODE;
}

static void
pfc_apply(struct ibex_worker *w, uint16_t port, const union ibex_fc_msg *msg,
	  uint64_t tsc)
{
	struct ibex_fc *fc = w->fc;

	pfc_frame_rx(ibex_fc_port_state(fc, port), &fc->par[port], &msg->pfc,
		     ibex_fc_ns(fc, tsc));
}

static void
pfc_publish(struct ibex_worker *w, uint16_t port, uint64_t now_ns)
{
	pfc_slice_sync(w, port, now_ns);
	slice_publish(w->fc, port);
}

/* Nothing asserted or pending, no pause received, in force or stormed. */
static bool
pfc_quiet(const struct ibex_fc *fc, uint16_t port)
{
	const struct ibex_fc_port *fp = &fc->port[port];

	return (fp->ptx.pending | fp->ptx.asserted) == 0 && !fp->rx_pause &&
	       fp->paused == 0 && fp->prx.stormed == 0 && fp->wd_drop == 0;
}

const struct ibex_fc_mode_ops ibex_fc_pfc_ops = {
	.ethertype = IBEX_ETHERTYPE_MACCTL,
	.port_init = pfc_port_init,
	.parse = pfc_parse,
	.ignorable = pfc_ignorable,
	.apply = pfc_apply,
	.housekeeping = pfc_housekeeping,
	.publish = pfc_publish,
	.quiet = pfc_quiet,
};
