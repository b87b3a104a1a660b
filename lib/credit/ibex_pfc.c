/* SPDX-License-Identifier: BSD-3-Clause */
/* PFC generation, obedience and watchdog; see ibex_pfc.h. */

#include <errno.h>
#include <string.h>

#include "ibex_pfc.h"

uint32_t
ibex_pfc_ns_to_quanta(uint64_t ns, uint64_t rate_mbps)
{
	/* quanta = ns x rate / (512 x 1000), rounded up. */
	uint64_t q = (ns * rate_mbps + IBEX_PFC_QUANTUM_BITS * 1000 - 1) /
		     (IBEX_PFC_QUANTUM_BITS * 1000);

	return q > IBEX_PFC_QUANTA_MAX ? IBEX_PFC_QUANTA_MAX : (uint32_t)q;
}

int
ibex_pfc_tx_params_set(struct ibex_pfc_tx_params *t, uint64_t rate_mbps,
		       uint16_t quanta, uint64_t margin_ns)
{
	uint64_t pause;

	if (rate_mbps == 0 || quanta == 0)
		return -EINVAL;
	/* Round the pause down for refresh timing: the peer may count it
	 * from a little earlier than we do. */
	pause = ibex_pfc_quanta_to_ps(quanta, rate_mbps) / 1000;
	if (margin_ns == 0)
		margin_ns = pause / 2;
	if (margin_ns >= pause)
		return -EINVAL;
	t->rate_mbps = rate_mbps;
	t->quanta = quanta;
	t->pause_ns = pause;
	t->margin_ns = margin_ns;
	return 0;
}

void
ibex_pfc_tx_init(struct ibex_pfc_tx *t)
{
	memset(t, 0, sizeof(*t));
}

bool
ibex_pfc_tx_poll(const struct ibex_pfc_tx_params *par, struct ibex_pfc_tx *t,
		 struct ibex_pfc_tx_stats *st, uint64_t now_ns,
		 struct ibex_fcf_pfc *m)
{
	unsigned int p;

	memset(m, 0, sizeof(*m));
	for (p = 0; p < IBEX_PFC_PRIOS; p++) {
		uint8_t bit = 1u << p;
		bool on = t->asserted & bit;

		if (t->pending & bit) {
			m->cev |= bit;
			if (on)
				st->xoff_tx++;
			else
				st->xon_tx++;
		} else if (on && now_ns + par->margin_ns >= t->expires_ns[p]) {
			m->cev |= bit;
			st->refresh_tx++;
		} else {
			continue;
		}
		m->quanta[p] = on ? par->quanta : 0;
		t->expires_ns[p] = on ? now_ns + par->pause_ns : 0;
	}
	t->pending = 0;
	return m->cev != 0;
}

int
ibex_pfc_rx_params_set(struct ibex_pfc_rx_params *r, uint64_t rate_mbps,
		       enum ibex_pfc_wd_action action, uint64_t detect_ns,
		       uint64_t recover_ns)
{
	if (rate_mbps == 0 || action > IBEX_PFC_WD_DROP ||
	    (action != IBEX_PFC_WD_OFF && (detect_ns == 0 || recover_ns == 0)))
		return -EINVAL;
	r->rate_mbps = rate_mbps;
	r->wd_action = action;
	r->detect_ns = detect_ns;
	r->recover_ns = recover_ns;
	return 0;
}

void
ibex_pfc_rx_init(struct ibex_pfc_rx *r)
{
	memset(r, 0, sizeof(*r));
}

uint8_t
ibex_pfc_rx_frame(const struct ibex_pfc_rx_params *par, struct ibex_pfc_rx *r,
		  struct ibex_pfc_rx_stats *st, const struct ibex_fcf_pfc *m,
		  uint64_t now_ns)
{
	unsigned int p;

	if (m->cev == 0) {
		st->ignored++;
		return 0;
	}
	st->frames++;
	for (p = 0; p < IBEX_PFC_PRIOS; p++) {
		if (!(m->cev >> p & 1))
			continue;
		if (m->quanta[p] == 0) {
			r->until_ns[p] = now_ns;
			continue;
		}
		/* A pause that extends one still running keeps its start:
		 * the watchdog measures unbroken pauses. */
		if (now_ns >= r->until_ns[p])
			r->since_ns[p] = now_ns;
		r->until_ns[p] = now_ns +
				 ibex_pfc_quanta_to_ns(m->quanta[p], par->rate_mbps);
		r->last_xoff_ns[p] = now_ns;
	}
	return m->cev;
}

unsigned int
ibex_pfc_rx_watchdog(const struct ibex_pfc_rx_params *par,
		     struct ibex_pfc_rx *r, struct ibex_pfc_rx_stats *st,
		     uint64_t now_ns, struct ibex_pfc_event *ev)
{
	unsigned int p, n = 0;

	if (par->wd_action == IBEX_PFC_WD_OFF)
		return 0;
	for (p = 0; p < IBEX_PFC_PRIOS; p++) {
		uint8_t bit = 1u << p;

		if (!(r->stormed & bit)) {
			if (now_ns >= r->until_ns[p] ||
			    now_ns - r->since_ns[p] < par->detect_ns)
				continue;
			r->stormed |= bit;
			st->storms++;
			ev[n++] = (struct ibex_pfc_event){ IBEX_PFC_EV_STORM, p,
				now_ns, now_ns - r->since_ns[p] };
		} else if (now_ns - r->last_xoff_ns[p] >= par->recover_ns) {
			r->stormed &= ~bit;
			/* Whatever pause is left is stale: start clean. */
			r->until_ns[p] = now_ns;
			ev[n++] = (struct ibex_pfc_event){ IBEX_PFC_EV_RESTORED, p,
				now_ns, 0 };
		}
	}
	return n;
}
