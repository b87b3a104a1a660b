/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fc credit: ibex's InfiniBand-style credits on the data path (the frames,
 * their timing, the workers' shares of a port), over lib/credit's
 * ibex_credit. docs/flow-control.md, "Credit flow control" and "Many
 * workers".
 */

#include <stdio.h>
#include <string.h>

#include <rte_mbuf.h>

#include "ibex_conf.h"
#include "ibex_dp_private.h"
#include "ibex_fc.h"
#include "ibex_fc_mode.h"

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

/* The room a lane of this worker's buffer slice has for credit. */
static uint32_t
slice_credit_free(const struct ibex_buf *b, unsigned int port,
		  unsigned int vl)
{
	const struct ibex_buf_lane *l = &b->lane[port][vl];
	uint32_t used = l->reserved + l->shared + l->headroom;

	return used < l->res_cap ? l->res_cap - used : 0;
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
		ibex_fc_pub_set(&pub->vl[v].room, slice_credit_free(&fc->buf, port, v),
			memory_order_relaxed);
		ibex_fc_pub_set(&pub->vl[v].abr, cp->rx[v].abr, memory_order_release);
		ibex_fc_pub_set(&pub->vl[v].done, fc->cr_done[port][v],
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
	if (!ibex_fc_send(w, port, frame, (uint32_t)len, &fp->cnt))
		fp->cp.resend = true;
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

static int
credit_port_init(struct ibex_fc_port *fp, const struct ibex_conf_port *cp,
		 char *err, size_t errlen)
{
	int ret = ibex_credit_port_init(&fp->cp, cp->nb_vls);

	if (ret < 0) {
		snprintf(err, errlen, "port %s: credit lanes refused",
			 cp->name);
		return ret;
	}
	/* Lossy lanes take no credit: their limit moving is no news worth a
	 * frame of its own (it rides along the next one). */
	fp->cp.watch_vls &= cp->lossless_mask;
	return 0;
}

static enum ibex_fcf_err
credit_parse(const uint8_t *eth, uint32_t len, union ibex_fc_msg *msg)
{
	return ibex_fcf_credit_parse(eth, len, &msg->credit);
}

static void
credit_apply(struct ibex_worker *w, uint16_t port,
	     const union ibex_fc_msg *msg, uint64_t tsc)
{
	struct ibex_fc *fc = w->fc;
	struct ibex_fc_port *fp = ibex_fc_port_state(fc, port);

	(void)tsc;
	if (fc->multi)
		credit_apply_multi(fc, port, &msg->credit);
	else
		ibex_credit_fc_apply(&fp->cp, &fp->cp_stats, &msg->credit);
	IBEX_CNT_ADD(fp->cnt.fc_rx, 1);
}

static void
credit_publish_op(struct ibex_worker *w, uint16_t port, uint64_t now_ns)
{
	(void)now_ns;
	credit_publish(w->fc, port);
}

/* The credit each lane may still send. */
static void
credit_view(const struct ibex_fc *fc, const struct ibex_fc_port *fp,
	    uint16_t port, struct ibex_dp_fc_view *v)
{
	unsigned int i;

	for (i = 0; i < fp->cp.n_vls; i++)
		v->credits[i] = fc->multi ?
				ibex_fc_credit_avail(fc->sh, port, i) :
				ibex_credit_tx_avail(&fp->cp, i);
}

const struct ibex_fc_mode_ops ibex_fc_credit_ops = {
	.ethertype = IBEX_ETHERTYPE_IBEXFC,
	.port_init = credit_port_init,
	.parse = credit_parse,
	.apply = credit_apply,
	.housekeeping = credit_housekeeping,
	.publish = credit_publish_op,
	.quiet = credit_quiet,
	.view = credit_view,
};
