/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Flow control glue: see ibex_fc.h for the model and the per-frame calls.
 * Everything here runs on the one worker (or before it starts).
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "ibex_conf.h"
#include "ibex_dp.h"
#include "ibex_fc.h"

RTE_LOG_REGISTER(ibex_fc_logtype, ibex.fc, INFO);
#define RTE_LOGTYPE_IBEX_FC ibex_fc_logtype

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

static int
port_init(struct ibex_fc_port *fp, const struct ibex_conf_port *cp,
	  uint16_t port_id, char *err, size_t errlen)
{
	uint64_t mbps = ibex_conf_port_rate_bps(cp) / 1000000;
	struct rte_ether_addr a;
	int ret;

	fp->mode = cp->fc_mode;
	fp->lossless = cp->lossless_mask;
	port_prio_maps(fp, cp);
	if (rte_eth_macaddr_get(port_id, &a) == 0)
		memcpy(fp->mac, a.addr_bytes, 6);
	if (mbps == 0)
		mbps = 1;
	if (cp->fc_mode == IBEX_FC_CREDIT) {
		ret = ibex_credit_port_init(&fp->cp, cp->nb_vls,
					    cp->credit_min_gap_ns,
					    (uint64_t)cp->credit_period_us * 1000);
		if (ret < 0) {
			snprintf(err, errlen, "port %s: credit parameters "
				 "refused", cp->name);
			return ret;
		}
		/* Lossy lanes take no credit: their limit moving is no news
		 * worth a frame of its own (it rides along the next one). */
		fp->cp.watch_vls &= cp->lossless_mask;
	} else if (cp->fc_mode == IBEX_FC_PFC) {
		ret = ibex_pfc_tx_init(&fp->ptx, mbps, cp->pfc_quanta,
				(uint64_t)cp->pfc_refresh_margin_us * 1000);
		if (ret == 0)
			ret = ibex_pfc_rx_init(&fp->prx, mbps, cp->wd_action,
				(uint64_t)cp->wd_detect_ms * 1000000,
				(uint64_t)cp->wd_recover_ms * 1000000);
		if (ret < 0) {
			snprintf(err, errlen, "port %s: PFC parameters refused",
				 cp->name);
			return ret;
		}
	}
	return 0;
}

int
ibex_fc_create(struct ibex_fc **fcp, const struct ibex_dp *dp,
	       const struct ibex_conf *conf, char *err, size_t errlen)
{
	struct ibex_buf_conf bc;
	struct ibex_fc *fc;
	uint16_t p;
	int ret;

	*fcp = NULL;
	for (p = 0; p < conf->nb_ports; p++)
		if (conf->ports[p].fc_mode != IBEX_FC_NONE)
			break;
	if (p == conf->nb_ports)
		return 0;
	if (dp->nb_workers != 1) {
		snprintf(err, errlen, "%s:%d: port %s: flow control (fc credit|"
			 "pfc) needs one worker: set `switch workers 1`",
			 conf->origin, conf->ports[p].line, conf->ports[p].name);
		return -ENOTSUP;
	}
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
	fc->pool = rte_pktmbuf_pool_create("ibex_fc_pool", IBEX_FC_POOL, 32, 0,
					   RTE_PKTMBUF_HEADROOM + 128,
					   (int)rte_socket_id());
	if (fc->pool == NULL) {
		snprintf(err, errlen, "cannot create the flow-control pool");
		rte_free(fc);
		return -ENOMEM;
	}
	fc->ns_mult = (uint64_t)(((unsigned __int128)1000000000 << 32) /
				 rte_get_tsc_hz());
	fc->hk_tsc = rte_get_tsc_hz() / (1000000000 / IBEX_FC_HK_NS);
	for (p = 0; p < conf->nb_ports; p++) {
		const struct ibex_conf_port *cp = &conf->ports[p];

		ret = port_init(&fc->port[p], cp, dp->port_id[p], err, errlen);
		if (ret < 0) {
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
	}
	*fcp = fc;
	return 0;
}

void
ibex_fc_update(struct ibex_fc *fc, const struct ibex_dp_tables *t)
{
	uint16_t p;

	for (p = 0; p < IBEX_MAX_PORTS; p++) {
		const struct ibex_dp_fc_conf *c = &t->fc[p];
		struct ibex_fc_port *fp = &fc->port[p];
		struct ibex_pfc_tx tx;

		if (fp->mode == IBEX_FC_CREDIT) {
			fp->cp.min_interval_ns = c->credit_min_gap_ns;
			fp->cp.period_ns = c->credit_period_ns;
		} else if (fp->mode == IBEX_FC_PFC) {
			/* New quanta and margin; the pause state stays. */
			if (ibex_pfc_tx_init(&tx, c->rate_mbps, c->quanta,
					     c->margin_ns) == 0) {
				fp->ptx.quanta = tx.quanta;
				fp->ptx.pause_ns = tx.pause_ns;
				fp->ptx.margin_ns = tx.margin_ns;
			}
			fp->prx.wd_action = c->wd_action;
			fp->prx.detect_ns = c->wd_detect_ns;
			fp->prx.recover_ns = c->wd_recover_ns;
		}
	}
}

/* Send one flow-control frame ahead of the port's data. */
static void
fc_send(struct ibex_worker *w, uint16_t port, const void *frame,
	uint32_t len, struct ibex_fc_counters *c)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(w->fc->pool);
	char *p;

	if (m == NULL || (p = rte_pktmbuf_append(m, (uint16_t)len)) == NULL) {
		rte_pktmbuf_free(m);
		IBEX_CNT_ADD(c->fc_tx_fail, 1);
		return;
	}
	memcpy(p, frame, len);
	if (rte_eth_tx_burst(w->dp->port_id[port], w->tx[port].txq, &m, 1)
	    != 1) {
		rte_pktmbuf_free(m);
		IBEX_CNT_ADD(c->fc_tx_fail, 1);
	}
}

static void
pfc_frame_rx(struct ibex_fc_port *fp, const struct ibex_fcf_pfc *m,
	     uint64_t now_ns)
{
	uint8_t changed = ibex_pfc_rx_frame(&fp->prx, m, now_ns);
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

bool
ibex_fc_rx_frame(struct ibex_worker *w, uint16_t port, struct rte_mbuf *m,
		 uint64_t tsc)
{
	const uint8_t *eth = rte_pktmbuf_mtod(m, const uint8_t *);
	uint16_t et = (uint16_t)(eth[12] << 8 | eth[13]);
	struct ibex_port_counters *c = &w->cnt[port];
	struct ibex_fc *fc = w->fc;
	struct ibex_fc_port *fp;

	/* Flow control is untagged: a tagged MAC control or credit frame is
	 * malformed (the caller saw the EtherType after the tag). */
	if (et != 0x8808 && et != 0x88b5) {
		IBEX_CNT_ADD(c->drop[IBEX_R_FC_FRAME_BAD], 1);
		rte_pktmbuf_free(m);
		return true;
	}
	if (et == 0x8808) {
		struct ibex_fcf_pfc pm;
		enum ibex_fcf_err e = ibex_fcf_pfc_parse(eth, m->data_len, &pm);

		/* 802.3x PAUSE and PFC are link-local: never forwarded. A
		 * valid frame the port does not act on (PFC without fc pfc;
		 * 802.3x PAUSE, which ibex never obeys) is counted apart
		 * from malformed ones. */
		if (e == IBEX_FCF_OK && fc != NULL &&
		    (fc->pfc_ports >> port & 1)) {
			fp = &fc->port[port];
			pfc_frame_rx(fp, &pm, ibex_fc_ns(fc, tsc));
		} else if (e == IBEX_FCF_OK ||
			   (e == IBEX_FCF_OPCODE && m->data_len >= 18 &&
			    eth[14] == 0 && eth[15] == IBEX_PAUSE_OPCODE)) {
			IBEX_CNT_ADD(c->drop[IBEX_R_FC_IGNORED], 1);
		} else {
			IBEX_CNT_ADD(c->drop[IBEX_R_FC_FRAME_BAD], 1);
		}
	} else {
		struct ibex_fcf_credit cm;

		if (ibex_fcf_credit_parse(eth, m->data_len, &cm) !=
		    IBEX_FCF_OK) {
			IBEX_CNT_ADD(c->drop[IBEX_R_FC_FRAME_BAD], 1);
		} else if (fc != NULL && (fc->credit_ports >> port & 1)) {
			fp = &fc->port[port];
			ibex_credit_fc_apply(&fp->cp, &cm);
			IBEX_CNT_ADD(fp->cnt.fc_rx, 1);
		} else {
			IBEX_CNT_ADD(c->drop[IBEX_R_FC_IGNORED], 1);
		}
	}
	rte_pktmbuf_free(m);
	return true;
}

static void
credit_housekeeping(struct ibex_worker *w, uint16_t port, uint64_t now_ns)
{
	struct ibex_fc *fc = w->fc;
	struct ibex_fc_port *fp = &fc->port[port];
	uint32_t free_blocks[IBEX_CREDIT_MAX_VLS];
	struct ibex_fcf_credit m;
	uint8_t frame[IBEX_FCF_MAX_LEN + 64];
	unsigned int v, watch;
	int len;

	/* Inside the minimum gap nothing is due: spare the per-VL work. And
	 * only the lanes that take credit (lossless) can make a frame due:
	 * the rest are read when one is. */
	if (!ibex_credit_fc_may_be_due(&fp->cp, now_ns))
		return;
	for (watch = fp->cp.watch_vls; watch != 0; watch &= watch - 1) {
		v = (unsigned int)__builtin_ctz(watch);
		free_blocks[v] = ibex_buf_credit_free(&fc->buf, port, v);
	}
	if (!ibex_credit_fc_due(&fp->cp, now_ns, free_blocks)) {
		ibex_credit_fc_not_due(&fp->cp, now_ns);
		return;
	}
	for (v = 0; v < fp->cp.n_vls; v++)
		if (!(fp->cp.watch_vls >> v & 1))
			free_blocks[v] = ibex_buf_credit_free(&fc->buf, port, v);
	ibex_credit_fc_fill(&fp->cp, now_ns, free_blocks, &m);
	len = ibex_fcf_credit_build(frame, sizeof(frame), fp->mac, &m);
	if (len < 0)
		return;
	fc_send(w, port, frame, (uint32_t)len, &fp->cnt);
	IBEX_CNT_ADD(fp->cnt.fc_tx, 1);
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

/* Send the PFC frame due on @p port, if any: edges and refreshes. */
static void
pfc_send_due(struct ibex_worker *w, uint16_t port, uint64_t now_ns)
{
	struct ibex_fc_port *fp = &w->fc->port[port];
	struct ibex_fcf_pfc m;
	uint8_t frame[64];
	unsigned int p;

	if (!ibex_pfc_tx_poll(&fp->ptx, now_ns, &m))
		return;
	for (p = 0; p < IBEX_PFC_PRIOS; p++) {
		if (!(m.cev >> p & 1))
			continue;
		if (m.quanta[p] != 0)
			IBEX_CNT_ADD(fp->cnt.xoff_tx, 1);
		else
			IBEX_CNT_ADD(fp->cnt.xon_tx, 1);
	}
	if (ibex_fcf_pfc_build(frame, sizeof(frame), fp->mac, &m) > 0) {
		fc_send(w, port, frame, 60, &fp->cnt);
		IBEX_CNT_ADD(fp->cnt.pfc_tx, 1);
	}
}

/* The peer's pauses: run the watchdog, then block or drain the lanes of
 * the paused priorities (the port's gate word). */
static void
pfc_peer_lanes(struct ibex_worker *w, uint16_t port, uint64_t now_ns)
{
	struct ibex_fc_port *fp = &w->fc->port[port];
	struct ibex_pfc_event ev[IBEX_PFC_PRIOS];
	uint16_t drop_vls = 0, blocked = 0;
	unsigned int v, p, n;
	uint8_t paused = 0;

	n = ibex_pfc_rx_watchdog(&fp->prx, now_ns, ev);
	for (v = 0; v < n; v++) {
		if (ev[v].type == IBEX_PFC_EV_STORM) {
			IBEX_CNT_ADD(fp->cnt.storms, 1);
			RTE_LOG(WARNING, IBEX_FC, "port %s priority %u: PFC storm "
				"(paused %.1f ms): %s\n", w->dp->port_name[port],
				ev[v].prio, ev[v].paused_ns / 1e6,
				fp->prx.wd_action == IBEX_PFC_WD_ALARM ?
				"alarm only" : "draining the lane as lossy");
		} else {
			IBEX_CNT_ADD(fp->cnt.restored, 1);
			RTE_LOG(NOTICE, IBEX_FC, "port %s priority %u: PFC storm "
				"over, lane restored\n", w->dp->port_name[port],
				ev[v].prio);
		}
	}
	for (p = 0; p < IBEX_PFC_PRIOS; p++) {
		enum ibex_pfc_lane st = ibex_pfc_rx_lane(&fp->prx, p, now_ns);

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
	struct ibex_fc_port *fp = &w->fc->port[port];

	if (w->fc->buf.shared_used != 0)
		pfc_rescan(w->fc, port);
	if ((fp->ptx.pending | fp->ptx.asserted) != 0)
		pfc_send_due(w, port, now_ns);
	if (fp->rx_pause || fp->paused != 0 || fp->prx.stormed != 0 ||
	    fp->wd_drop != 0)
		pfc_peer_lanes(w, port, now_ns);
}

void
ibex_fc_housekeeping(struct ibex_worker *w, uint64_t tsc)
{
	struct ibex_fc *fc = w->fc;
	uint64_t now_ns, ports = fc->fc_ports;

	/* At most every IBEX_FC_HK_NS: credit updates, pause refreshes and
	 * the watchdog need microseconds, not every iteration's attention,
	 * and a scan of every port per iteration would cost more than the
	 * frames it serves. */
	if (tsc - fc->last_hk_tsc < fc->hk_tsc)
		return;
	fc->last_hk_tsc = tsc;
	now_ns = ibex_fc_ns(fc, tsc);

	while (ports != 0) {
		uint16_t port = (uint16_t)__builtin_ctzll(ports);

		ports &= ports - 1;
		if (fc->port[port].mode == IBEX_FC_CREDIT)
			credit_housekeeping(w, port, now_ns);
		else
			pfc_housekeeping(w, port, now_ns);
	}
}

int
ibex_dp_fc_view(const struct ibex_dp *dp, uint16_t port,
		struct ibex_dp_fc_view *v)
{
	const struct ibex_fc *fc = dp->workers[0]->fc;
	const struct ibex_fc_port *fp;
	const struct ibex_fc_counters *c;
	unsigned int i;

	memset(v, 0, sizeof(*v));
	if (fc == NULL || port >= dp->nb_ports)
		return -ENOENT;
	fp = &fc->port[port];
	c = &fp->cnt;
	v->mode = fp->mode;
	v->lossless = fp->lossless;
	v->paused_vls = (uint16_t)((IBEX_CNT_READ(dp->workers[0]->gate[port]) &
				    IBEX_GATE_BLOCKED_ALL) >> 16) &
			~IBEX_CNT_READ(fp->wd_drop);
	v->wd_drop_vls = IBEX_CNT_READ(fp->wd_drop);
	for (i = 0; i < IBEX_VL_COUNT; i++) {
		const struct ibex_buf_lane *l = &fc->buf.lane[port][i];
		uint32_t used = IBEX_CNT_READ(l->reserved) +
				IBEX_CNT_READ(l->shared) +
				IBEX_CNT_READ(l->headroom);

		v->buf_used[i] = used;
		v->buf_free[i] = used < l->res_cap ? l->res_cap - used : 0;
		v->xoff[i] = IBEX_CNT_READ(l->xoff);
		if (fp->mode == IBEX_FC_CREDIT && i < fp->cp.n_vls)
			v->credits[i] = ibex_credit_tx_avail(&fp->cp, i);
		v->violations[i] = IBEX_CNT_READ(c->violations[i]);
	}
	v->fc_tx = IBEX_CNT_READ(c->fc_tx);
	v->fc_rx = IBEX_CNT_READ(c->fc_rx);
	v->fc_tx_fail = IBEX_CNT_READ(c->fc_tx_fail);
	v->pfc_tx = IBEX_CNT_READ(c->pfc_tx);
	v->pfc_rx = IBEX_CNT_READ(c->pfc_rx);
	v->pfc_ignored = IBEX_CNT_READ(c->pfc_ignored);
	v->xoff_tx = IBEX_CNT_READ(c->xoff_tx);
	v->xon_tx = IBEX_CNT_READ(c->xon_tx);
	v->xoff_rx = IBEX_CNT_READ(c->xoff_rx);
	v->xon_rx = IBEX_CNT_READ(c->xon_rx);
	v->storms = IBEX_CNT_READ(c->storms);
	v->restored = IBEX_CNT_READ(c->restored);
	for (i = 0; i < IBEX_PFC_PRIOS; i++)
		v->paused_ns[i] = IBEX_CNT_READ(c->paused_ns[i]);
	return 0;
}
