/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fc cbfc: UEC credit-based flow control on the data path (docs/cbfc.md),
 * over lib/credit's ibex_cbfc. A VC is a lane (VC v is VL v).
 *
 * Sender: the send rule at the egress gate, per frame (ibex_dp.c), and
 * a CC_Update every cc-timer-us while the port has credits in use.
 * Receiver: R_CC counts each data frame as it arrives (ibex_dp.c);
 * R_CF is what R_CC leaves beside what the lane's buffer holds, read at
 * housekeeping (ibex_cbfc_rx_held()), so a frame dropped before it was
 * stored frees its credits with the next CF_Update as one sent on does,
 * and the release path costs nothing. The buffer counts 64-byte blocks:
 * what it holds as credits is rounded up, so R_CF never runs ahead of
 * the room there is. CF_Updates go one VC at a time, at least
 * cf-min-spacing byte times of the link apart (the link's rate, busy or
 * idle), as shim frames (ibex_fcframe.h) on every port kind.
 *
 * One worker: several are refused (the configuration and here).
 */

#include <stdio.h>
#include <string.h>

#include <rte_malloc.h>

#include "ibex_conf.h"
#include "ibex_dp_private.h"
#include "ibex_fc.h"
#include "ibex_fc_mode.h"

static int
cbfc_port_init(struct ibex_fc_port *fp, const struct ibex_conf_port *cp,
	       char *err, size_t errlen)
{
	struct ibex_cbfc_conf c;
	char why[160];

	if (ibex_conf_port_cbfc(cp, &c, why, sizeof(why)) < 0) {
		snprintf(err, errlen, "port %s: cbfc: %s", cp->name, why);
		return -EINVAL;
	}
	fp->cb = rte_zmalloc("ibex_cbfc", sizeof(*fp->cb), RTE_CACHE_LINE_SIZE);
	if (fp->cb == NULL) {
		snprintf(err, errlen, "port %s: cbfc: out of memory", cp->name);
		return -ENOMEM;
	}
	/* The first CC_Update a period after the first housekeeping. */
	ibex_cbfc_port_init(fp->cb, &c, UINT64_MAX / 2);
	fp->cb->next_cc_ns = 0;
	fp->cb_link_downs = UINT64_MAX;
	fp->cb_bytes_per_us = ibex_conf_port_rate_bps(cp) / 8000000;
	if (fp->cb_bytes_per_us == 0)
		fp->cb_bytes_per_us = 1;
	return 0;
}

static enum ibex_fcf_err
cbfc_parse(const uint8_t *eth, uint32_t len, union ibex_fc_msg *msg)
{
	memset(&msg->cbfc, 0, sizeof(msg->cbfc));
	return ibex_fcf_cbfc_parse(eth, len, &msg->cbfc);
}

static void
cbfc_apply(struct ibex_worker *w, uint16_t port,
	   const union ibex_fc_msg *msg, uint64_t tsc)
{
	struct ibex_fc_port *fp = ibex_fc_port_state(w->fc, port);
	const struct ibex_fcf_cbfc *m = &msg->cbfc;
	struct ibex_cbfc_port *cb = fp->cb;
	uint32_t vcs;

	(void)tsc;
	if (m->type == IBEX_FCF_CBFC_CC) {
		struct ibex_cbfc_cc_update u = { .vcs = m->vcs };

		memcpy(u.cc, m->count, sizeof(u.cc));
		ibex_cbfc_cc_apply(cb, &u);
	} else {
		for (vcs = m->vcs; vcs != 0; vcs &= vcs - 1) {
			struct ibex_cbfc_cf_update u;

			u.vc = (uint8_t)__builtin_ctz(vcs);
			u.cf = m->count[u.vc];
			ibex_cbfc_cf_apply(cb, &u);
		}
	}
	IBEX_CNT_ADD(fp->cnt.fc_rx, 1);
}

/* Send CBFC message @p m (as many frames as its VCs take): a CF_Update
 * at once, ahead of the data (it counts what was received); a CC_Update
 * behind the frames the TX buffer holds, which go to TX first (it counts
 * them: ahead of them the receiver would free their credits as leaked,
 * then count them again as they arrive). @return false when a frame did
 * not go (TX refused it: a full ring, or a wire busy with a data frame
 * under the virtual clock): the message is due again at the next
 * housekeeping. */
static bool
cbfc_send(struct ibex_worker *w, uint16_t port, struct ibex_fc_port *fp,
	  const struct ibex_fcf_cbfc *m)
{
	uint8_t frame[IBEX_FCF_MAX_LEN + 64];
	uint32_t left = m->vcs;
	int len;

	while (left != 0) {
		len = ibex_fcf_cbfc_build(frame, sizeof(frame), fp->mac, m,
					  &left);
		if (len < 0)
			return false;
		if (!(m->type == IBEX_FCF_CBFC_CC ?
		      ibex_fc_send_behind(w, port, frame, (uint32_t)len,
					  &fp->cnt) :
		      ibex_fc_send(w, port, frame, (uint32_t)len, &fp->cnt)))
			return false;
		IBEX_CNT_ADD(fp->cnt.fc_tx, 1);
	}
	return true;
}

/* Blocks lane @p vl of @p port holds in the worker's buffer. */
static uint32_t
lane_held_blocks(const struct ibex_buf *b, unsigned int port, unsigned int vl)
{
	const struct ibex_buf_lane *l = &b->lane[port][vl];

	return l->reserved + l->shared + l->headroom;
}

/* R_CF of every lossless VC from what its lane holds, in credits
 * rounded up. */
static void
cbfc_rx_refresh(const struct ibex_fc *fc, uint16_t port,
		struct ibex_cbfc_port *cb)
{
	uint32_t vcs;

	for (vcs = cb->rx_lossless; vcs != 0; vcs &= vcs - 1) {
		unsigned int v = (unsigned int)__builtin_ctz(vcs);
		uint64_t bytes = (uint64_t)lane_held_blocks(&fc->buf, port, v) *
				 IBEX_BLOCK_BYTES;

		ibex_cbfc_rx_held(cb, v, (uint32_t)((bytes + cb->credit_size -
						     1) / cb->credit_size));
	}
}

/* The link's byte times at @p now_ns (no overflow for centuries). */
static uint64_t
link_bytes(const struct ibex_fc_port *fp, uint64_t now_ns)
{
	return now_ns / 1000 * fp->cb_bytes_per_us +
	       now_ns % 1000 * fp->cb_bytes_per_us / 1000;
}

/* The control thread counts the port's link going down (ibex_link.c):
 * UE starts the counters again at link up, and the peer, restarted or
 * reconnected, does; so the port does too, at its next housekeeping,
 * before a memif port's redial (an RCU grace period and a handshake)
 * brings the link back; what its TX buffer still holds is dropped. A
 * link that went down and up between two of the control thread's looks
 * (a second apart) is not seen (docs/cbfc.md, "A peer that restarts"). */
static void
cbfc_link_check(struct ibex_worker *w, uint16_t port,
		struct ibex_fc_port *fp, uint64_t now_ns)
{
	uint64_t downs = IBEX_CNT_READ(w->dp->link_downs[port]);

	if (likely(downs == fp->cb_link_downs))
		return;
	if (fp->cb_link_downs != UINT64_MAX) {
		ibex_cbfc_link_reset(fp->cb, now_ns);
		/* charged to the counters just gone: the new peer would
		 * count them, the port not */
		ibex_dp_txbuf_drop(w, port, IBEX_R_LINK_RESET);
	}
	fp->cb_link_downs = downs;
}

static void
cbfc_housekeeping(struct ibex_worker *w, uint16_t port, uint64_t now_ns)
{
	struct ibex_fc_port *fp = ibex_fc_port_state(w->fc, port);
	struct ibex_cbfc_port *cb = fp->cb;
	struct ibex_cbfc_cf_update cf;
	struct ibex_fcf_cbfc m;

	if (cb->next_cc_ns == 0)
		cb->next_cc_ns = now_ns + cb->cc_period_ns;
	cbfc_link_check(w, port, fp, now_ns);
	/* CC_Update only while something is in use: an idle sender has
	 * nothing a receiver could have lost. */
	if (ibex_cbfc_cc_due(cb, now_ns)) {
		struct ibex_cbfc_cc_update u;

		if (cb->cu == 0) {
			cb->next_cc_ns = now_ns + cb->cc_period_ns;
		} else {
			ibex_cbfc_cc_build(cb, now_ns, &u);
			m.type = IBEX_FCF_CBFC_CC;
			m.vcs = u.vcs;
			memcpy(m.count, u.cc, sizeof(m.count));
			if (!cbfc_send(w, port, fp, &m))
				ibex_cbfc_cc_unsent(cb, now_ns);
		}
	}
	cbfc_rx_refresh(w->fc, port, cb);
	if (ibex_cbfc_cf_next(cb, link_bytes(fp, now_ns), &cf)) {
		memset(&m, 0, sizeof(m));
		m.type = IBEX_FCF_CBFC_CF;
		m.vcs = UINT32_C(1) << cf.vc;
		m.count[cf.vc] = cf.cf;
		if (!cbfc_send(w, port, fp, &m))
			ibex_cbfc_cf_unsent(cb, &cf);
	}
}

/*
 * A CBFC port owes nothing when no credit it sent is in use (no
 * CC_Update could recover anything) and every lossless VC's R_CF went
 * out as it stands, none refused and its refreshes done (a lost one is
 * what they are for). Anything else that makes one due comes with work
 * (a frame received, a lane drained by TX).
 */
static bool
cbfc_quiet(const struct ibex_fc *fc, uint16_t port)
{
	const struct ibex_cbfc_port *cb = fc->port[port].cb;
	uint32_t vcs;

	if (cb->cu != 0)
		return false;
	for (vcs = cb->rx_lossless; vcs != 0; vcs &= vcs - 1) {
		unsigned int v = (unsigned int)__builtin_ctz(vcs);
		const struct ibex_cbfc_rx_vc *r = &cb->rx[v];

		/* a CF_Update refused or a refresh due: not yet */
		if (lane_held_blocks(&fc->buf, port, v) != 0 ||
		    r->cc != r->cf_sent || r->unsent ||
		    (r->refreshes_left != 0 && cb->cf_refreshes != 0))
			return false;
	}
	return true;
}

static void
cbfc_view(const struct ibex_fc *fc, const struct ibex_fc_port *fp,
	  uint16_t port, struct ibex_dp_fc_view *v)
{
	const struct ibex_cbfc_port *cb = fp->cb;
	struct ibex_dp_cbfc_view *c = &v->cbfc;
	unsigned int i;

	(void)fc;
	(void)port;
	c->credit_size = cb->credit_size;
	c->used = cb->cu;
	c->used_watermark = cb->st.sender_credits_used_watermark;
	c->cc_update_tx = cb->st.cc_update_tx;
	c->cc_update_rx = cb->st.cc_update_rx;
	c->cf_update_tx = cb->st.cf_update_tx;
	c->cf_update_rx = cb->st.cf_update_rx;
	c->cf_update_bad = cb->st.cf_update_bad;
	c->cc_update_bad = cb->st.cc_update_bad;
	c->link_resets = cb->st.link_resets;
	for (i = 0; i < cb->n_vcs && i < IBEX_VL_COUNT; i++) {
		const struct ibex_cbfc_vc_stats *s = &cb->st.vc[i];

		c->vc_used[i] = cb->tx[i].cu;
		/* With a profile, the limit moves with the pool: what the VC
		 * may hold now. */
		c->vc_limit[i] = cb->tx[i].profiled ?
				 cb->tx[i].cu + ibex_cbfc_tx_room(cb, i) :
				 cb->tx[i].limit;
		c->vc_used_watermark[i] = s->sender_credits_used_watermark;
		c->tx_blocked += s->tx_blocked;
		c->leaked_recovered += s->leaked_recovered;
		c->vc_leaked_recovered[i] = s->leaked_recovered;
		v->credits[i] = ibex_cbfc_tx_gated(cb, i) ?
				ibex_cbfc_tx_room(cb, i) : 0;
	}
	for (i = 0; i <= IBEX_CBFC_MAX_POOLS; i++) {
		c->pool_shared[i] = cb->pool[i].shared;
		c->pool_used[i] = cb->pool[i].used;
	}
}

const struct ibex_fc_mode_ops ibex_fc_cbfc_ops = {
	.ethertype = IBEX_ETHERTYPE_IBEXFC,
	.port_init = cbfc_port_init,
	.parse = cbfc_parse,
	.apply = cbfc_apply,
	.housekeeping = cbfc_housekeeping,
	.quiet = cbfc_quiet,
	.view = cbfc_view,
};
