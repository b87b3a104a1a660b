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
#include <rte_mempool.h>
#include <rte_ring.h>

#include "ibex_clock.h"
#include "ibex_pdev.h"
#include "ibex_conf.h"
#include "ibex_dp_private.h"
#include "ibex_fc.h"

/* ibex_credit_window_blocks() counts on this tick. */
_Static_assert(IBEX_FC_HK_NS == IBEX_CREDIT_HK_NS,
	       "credit housekeeping tick and window sizing disagree");

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
	struct rte_ether_addr a;
	int ret;

	fp->mode = cp->fc_mode;
	fp->lossless = cp->lossless_mask;
	port_prio_maps(fp, cp);
	fp->lossless_prios = port_lossless_prios(fp);
	if (ibex_pdev_macaddr_get(port_id, &a) == 0)
		memcpy(fp->mac, a.addr_bytes, 6);
	if (cp->fc_mode == IBEX_FC_CREDIT) {
		ret = ibex_credit_port_init(&fp->cp, cp->nb_vls);
		if (ret < 0) {
			snprintf(err, errlen, "port %s: credit lanes refused",
				 cp->name);
			return ret;
		}
		/* Lossy lanes take no credit: their limit moving is no news
		 * worth a frame of its own (it rides along the next one). */
		fp->cp.watch_vls &= cp->lossless_mask;
	} else if (cp->fc_mode == IBEX_FC_PFC) {
		ibex_pfc_tx_init(&fp->ptx);
		ibex_pfc_rx_init(&fp->prx);
	}
	return 0;
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

/* Send one flow-control frame ahead of the port's data. */
static bool
fc_send(struct ibex_worker *w, uint16_t port, const void *frame,
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

/*
 * Several workers: a credit frame from the peer. FCCL is the limit every
 * worker claims against. ABR := FCTBS needs the peer's data and its credit
 * frame in one order, which RSS over several RX queues does not keep (a
 * data frame sent before the credit frame may still wait in another
 * queue: counted after the reset it would be counted twice, and the peer
 * granted credit it does not have). So ABR is reset only by an INIT
 * frame, when the peer starts afresh (credit_init_base()); otherwise it
 * is the sum of what the workers counted, which never exceeds what the
 * peer sent.
 */
/*
 * Several workers: ABR's base after the peer's INIT with FCTBS @p fctbs,
 * when the workers have counted @p counted blocks. The INIT goes to the
 * port's owner on RX queue 0, the peer's data to other queues: data the
 * peer sent after its INIT may be counted before the owner reads it.
 * Reset to FCTBS, such data would be forgotten and its blocks granted
 * again (seen at link start on a loaded machine, the owner reading the
 * peer's first INIT late: 2,597 frames over-sent into a full lane). So
 * the first INIT, at link start, keeps the workers' count (ABR never
 * exceeds what the peer sent; a frame it sent before ibex was up keeps
 * its blocks, as a lost one does); a later one, from a peer that starts
 * afresh while ibex runs, resets ABR to its FCTBS.
 */
static uint32_t
credit_init_base(bool first, uint32_t fctbs, uint32_t counted)
{
	return first ? 0 : ibex_credit_mod(fctbs - counted);
}

static void
credit_apply_multi(struct ibex_fc *fc, uint16_t port,
		   const struct ibex_fcf_credit *m)
{
	struct ibex_fc_shared *sh = fc->sh;
	struct ibex_fc_port *fp = &sh->port[port];
	unsigned int i, w;

	for (i = 0; i < m->n_vls && i < IBEX_FCF_MAX_VLS; i++) {
		unsigned int vl = m->vl[i].vl;
		uint32_t sum = 0;

		if (vl >= fp->cp.n_vls)
			continue;
		fp->cp.tx[vl].fccl = ibex_credit_mod(m->vl[i].fccl);
		atomic_store_explicit(&sh->cr[port].fccl[vl],
				      fp->cp.tx[vl].fccl, memory_order_relaxed);
		if (m->op != IBEX_FCF_OP_INIT)
			continue;
		for (w = 0; w < sh->nb_workers; w++)
			sum += __atomic_load_n(&sh->wfc[w]->abr_pub[port][vl],
					       __ATOMIC_ACQUIRE);
		sh->abr_base[port][vl] = credit_init_base(fp->cp_stats.fc_rx == 0,
			(uint32_t)m->vl[i].fctbs, sum);
	}
	if (m->op == IBEX_FCF_OP_INIT)
		fp->cp.last_fc_ns = 0;
	fp->cp_stats.fc_rx++;
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

/* A flow-control frame, on the worker that owns its port's state. */
static void
fc_frame_process(struct ibex_worker *w, uint16_t port, struct rte_mbuf *m,
		 uint64_t tsc)
{
	const uint8_t *eth = rte_pktmbuf_mtod(m, const uint8_t *);
	uint16_t et = (uint16_t)(eth[12] << 8 | eth[13]);
	struct ibex_port_counters *c = &w->cnt[port];
	struct ibex_fc *fc = w->fc;
	struct ibex_fc_port *fp;

	if (et == 0x8808) {
		struct ibex_fcf_pfc pm;
		enum ibex_fcf_err e = ibex_fcf_pfc_parse(eth, m->data_len, &pm);

		/* 802.3x PAUSE and PFC are link-local: never forwarded. A
		 * valid frame the port does not act on (PFC without fc pfc;
		 * 802.3x PAUSE, which ibex never obeys) is counted apart
		 * from malformed ones. */
		if (e == IBEX_FCF_OK && fc != NULL &&
		    (fc->pfc_ports >> port & 1)) {
			fp = ibex_fc_port_state(fc, port);
			pfc_frame_rx(fp, &fc->par[port], &pm,
				     ibex_fc_ns(fc, tsc));
			IBEX_CNT_ADD(c->consumed, 1);
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
			fp = ibex_fc_port_state(fc, port);
			if (fc->multi)
				credit_apply_multi(fc, port, &cm);
			else
				ibex_credit_fc_apply(&fp->cp, &fp->cp_stats,
						     &cm);
			IBEX_CNT_ADD(fp->cnt.fc_rx, 1);
			IBEX_CNT_ADD(c->consumed, 1);
		} else {
			IBEX_CNT_ADD(c->drop[IBEX_R_FC_IGNORED], 1);
		}
	}
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

/* The room a lane of this worker's buffer slice has for credit. */
static uint32_t
slice_credit_free(const struct ibex_buf *b, unsigned int port,
		  unsigned int vl)
{
	const struct ibex_buf_lane *l = &b->lane[port][vl];
	uint32_t used = l->reserved + l->shared + l->headroom;

	return used < l->res_cap ? l->res_cap - used : 0;
}

/* Store @p v in @p pub if it changed (the line stays shared with the
 * owner while it does not). */
static inline void
pub_set(_Atomic uint32_t *pub, uint32_t v, memory_order mo)
{
	if (atomic_load_explicit(pub, memory_order_relaxed) != v)
		atomic_store_explicit(pub, v, mo);
}

/* Several workers, every worker at its housekeeping: publish what it
 * holds of credit port @p port (struct ibex_fc_credit_pub). */
static void
credit_publish(struct ibex_fc *fc, uint16_t port)
{
	struct ibex_fc_credit_pub *pub = &fc->cr_pub[port];
	const struct ibex_credit_port *cp = &fc->port[port].cp;
	unsigned int v;

	for (v = 0; v < cp->n_vls; v++) {
		pub_set(&pub->vl[v].room, slice_credit_free(&fc->buf, port, v),
			memory_order_relaxed);
		pub_set(&pub->vl[v].abr, cp->rx[v].abr, memory_order_release);
		pub_set(&pub->vl[v].done, fc->cr_done[port][v],
			memory_order_relaxed);
	}
}

/*
 * Several workers, the owner of credit port @p port, before it looks at
 * its credit state: ABR is its base plus every worker's share; the room
 * to advertise is the smallest a slice has (RSS may put all the peer's
 * next frames on one worker); FCTBS is what the workers' TX took. Its own
 * figures it reads as they are, the others' as they published them. For
 * the lanes @p vls only: the lanes that can make a frame due first, the
 * rest when one is (as with one worker).
 */
static void
credit_gather_multi(struct ibex_fc *fc, uint16_t port, uint32_t vls,
		    uint32_t *free_blocks)
{
	struct ibex_fc_shared *sh = fc->sh;
	struct ibex_credit_port *cp = &sh->port[port].cp;
	const struct ibex_credit_port *own = &fc->port[port].cp;
	unsigned int v, w;

	for (; vls != 0; vls &= vls - 1) {
		uint32_t abr, done, room;

		v = (unsigned int)__builtin_ctz(vls);
		abr = sh->abr_base[port][v] + own->rx[v].abr;
		done = fc->cr_done[port][v];
		room = slice_credit_free(&fc->buf, port, v);
		for (w = 0; w < sh->nb_workers; w++) {
			const struct ibex_fc_credit_pub *pub;
			uint32_t r;

			if (w == fc->index)
				continue;
			pub = &sh->wfc[w]->cr_pub[port];
			/* The share first: see struct ibex_fc_credit_pub. */
			abr += atomic_load_explicit(&pub->vl[v].abr,
						    memory_order_acquire);
			r = atomic_load_explicit(&pub->vl[v].room,
						 memory_order_relaxed);
			done += atomic_load_explicit(&pub->vl[v].done,
						     memory_order_relaxed);
			room = r < room ? r : room;
		}
		cp->rx[v].abr = ibex_credit_mod(abr);
		cp->tx[v].fctbs = ibex_credit_mod(done);
		free_blocks[v] = room;
	}
}

/*
 * One worker: FCTBS counts a frame when the arbiter hands it to the TX
 * buffer, but the credit frame goes to TX at once, ahead of what the
 * buffer still holds. The peer would set ABR to a count that includes
 * frames not yet arrived, and count them again when they do: a limit
 * that many blocks too far, past the 2,048-block window a lane of
 * 128 KB reaches, which the send rule reads as a limit gone back: no
 * credit until our next frame (a period, 50 us, when our direction is
 * otherwise idle). So the frame reports FCTBS less every block the
 * buffer holds (which VL a buffered frame took is not kept: all of them
 * off each lane, a count never ahead of what arrived; the lanes' frames
 * then count a little short, never over, until our next frame).
 * Several workers count only what TX took (ibex_fc_tx_done()).
 */
static void
credit_fctbs_on_wire(const struct ibex_worker *w, uint16_t port,
		     struct ibex_fcf_credit *m)
{
	const struct ibex_txbuf *tb = &w->tx[port];
	uint32_t held = 0;
	unsigned int i;

	for (i = 0; i < tb->count; i++)
		held += IBEX_TXCHARGE_BLOCKS(tb->charge[i]);
	if (held == 0)
		return;
	for (i = 0; i < m->n_vls; i++)
		m->vl[i].fctbs = ibex_credit_mod((uint32_t)m->vl[i].fctbs -
						 held);
}

static void
credit_housekeeping(struct ibex_worker *w, uint16_t port, uint64_t now_ns)
{
	struct ibex_fc *fc = w->fc;
	struct ibex_fc_port *fp = ibex_fc_port_state(fc, port);
	const struct ibex_credit_params *par = &fc->par[port].credit;
	uint32_t free_blocks[IBEX_CREDIT_MAX_VLS];
	struct ibex_fcf_credit m;
	uint8_t frame[IBEX_FCF_MAX_LEN + 64];
	unsigned int v, watch, all;
	int len;

	/* Inside the minimum gap nothing is due: spare the per-VL work. And
	 * only the lanes that take credit (lossless) can make a frame due:
	 * the rest are read when one is. */
	if (!ibex_credit_fc_may_be_due(par, &fp->cp, now_ns))
		return;
	all = (1u << fp->cp.n_vls) - 1;
	if (fc->multi) {
		credit_gather_multi(fc, port, fp->cp.watch_vls, free_blocks);
	} else {
		for (watch = fp->cp.watch_vls; watch != 0;
		     watch &= watch - 1) {
			v = (unsigned int)__builtin_ctz(watch);
			free_blocks[v] = ibex_buf_credit_free(&fc->buf, port,
							      v);
		}
	}
	if (!ibex_credit_fc_due(par, &fp->cp, now_ns, free_blocks)) {
		ibex_credit_fc_not_due(par, &fp->cp, now_ns);
		return;
	}
	if (fc->multi)
		credit_gather_multi(fc, port, all & ~fp->cp.watch_vls,
				    free_blocks);
	else
		for (v = 0; v < fp->cp.n_vls; v++)
			if (!(fp->cp.watch_vls >> v & 1))
				free_blocks[v] = ibex_buf_credit_free(&fc->buf,
								      port, v);
	ibex_credit_fc_fill(&fp->cp, &fp->cp_stats, now_ns, free_blocks, &m);
	if (!fc->multi)
		credit_fctbs_on_wire(w, port, &m);
	len = ibex_fcf_credit_build(frame, sizeof(frame), fp->mac, &m);
	if (len < 0)
		return;
	/* A frame the TX queue refused (its ring full; a wire busy with a
	 * data frame under the virtual clock) is due again once the
	 * minimum gap has passed: recorded as sent, its limits would be
	 * news only a step or a period later, the peer idle meanwhile; due
	 * at once, a full ring would be offered one every tick. */
	IBEX_CNT_ADD(fp->cnt.fc_tx, 1);
	if (!fc_send(w, port, frame, (uint32_t)len, &fp->cnt))
		fp->cp.resend = true;
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

/* Store @p now in @p pub if it moved by a quantum from what @p pub holds,
 * or fell to zero (an idle slice reads exact). */
static void
pub_update(_Atomic uint32_t *pub, uint32_t now)
{
	uint32_t was = atomic_load_explicit(pub, memory_order_relaxed);
	uint32_t moved = now > was ? now - was : was - now;

	if (moved >= IBEX_FC_PUB_QUANTUM || (now == 0 && was != 0))
		atomic_store_explicit(pub, now, memory_order_relaxed);
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

		pub_update(&fc->pub.lane[port][v], slice_lane_used(l));
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
		fc_send(w, port, frame, 60, &fp->cnt);
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

/* "switch NAME: " before a log line of a switch that has a name. */
#define SWITCH_PREFIX(dp) (dp)->name[0] ? "switch " : "", (dp)->name, \
			  (dp)->name[0] ? ": " : ""

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

/*
 * Several workers, every worker for every flow-controlled port: its own
 * slice against the dynamic threshold, XOFF and refreshes for the lanes
 * its slice pauses (at once, from its own TX queue: not behind the
 * owner's scheduling), and the lanes the port's owner found paused or
 * drained into its gate word (bits the owner alone decides; the busy
 * bits stay the worker's).
 */
static void
fc_worker_sync(struct ibex_worker *w, uint64_t now_ns)
{
	struct ibex_fc *fc = w->fc;
	uint64_t ports = fc->pfc_ports;

	while (ports != 0) {
		uint16_t port = (uint16_t)__builtin_ctzll(ports);

		ports &= ports - 1;
		pfc_slice_sync(w, port, now_ns);
		slice_publish(fc, port);
	}
	for (ports = fc->cr_multi; ports != 0; ports &= ports - 1)
		credit_publish(fc, (uint16_t)__builtin_ctzll(ports));
	pub_update(&fc->pub.pool, fc->buf.shared_used);
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
		if (fc->port[port].mode == IBEX_FC_CREDIT)
			credit_housekeeping(w, port, now_ns);
		else
			pfc_housekeeping(w, port, now_ns);
	}
}

/*
 * A credit port owes no frame but the periodic one: its first went, none
 * was refused, and no lane that takes credit has a limit to tell that
 * differs from the one last sent. What else could make one due comes
 * with work (a frame received, a lane drained by TX), which runs the
 * switch anyway.
 */
static bool
credit_quiet(const struct ibex_fc *fc, uint16_t port)
{
	const struct ibex_credit_port *cp = &fc->port[port].cp;
	unsigned int v;
	uint32_t watch;

	if (cp->init_pending || cp->resend || cp->last_fc_ns == 0)
		return false;
	for (watch = cp->watch_vls; watch != 0; watch &= watch - 1) {
		v = (unsigned int)__builtin_ctz(watch);
		if (ibex_credit_rx_fccl(cp, v, ibex_buf_credit_free(&fc->buf,
								    port, v)) !=
		    cp->rx[v].fccl_sent)
			return false;
	}
	return true;
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
		if ((fp->mode == IBEX_FC_CREDIT && !credit_quiet(fc, port)) ||
		    (fp->ptx.pending | fp->ptx.asserted) != 0 ||
		    fp->rx_pause || fp->paused != 0 || fp->prx.stormed != 0 ||
		    fp->wd_drop != 0)
			return false;
	}
	return true;
}

void
ibex_fc_tx_done(struct ibex_fc *fc, uint16_t port, uint32_t left_blocks)
{
	unsigned int v, n = fc->port[port].cp.n_vls;

	for (v = 0; v < n; v++) {
		uint32_t pend = fc->cr_pend[port][v];
		uint32_t done = pend > left_blocks ? pend - left_blocks : 0;

		if (done == 0)
			continue;
		fc->cr_pend[port][v] = pend - done;
		__atomic_store_n(&fc->cr_done[port][v],
				 fc->cr_done[port][v] + done, __ATOMIC_RELEASE);
	}
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
	for (i = 0; fp->mode == IBEX_FC_CREDIT && i < fp->cp.n_vls; i++)
		v->credits[i] = fc->multi ?
				ibex_fc_credit_avail(fc->sh, port, i) :
				ibex_credit_tx_avail(&fp->cp, i);
	return 0;
}
