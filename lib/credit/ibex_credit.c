/* SPDX-License-Identifier: BSD-3-Clause */
/* Housekeeping half of credit flow control; the per-packet half is inline
 * in ibex_credit.h. */

#include <errno.h>
#include <string.h>

#include "ibex_common.h"
#include "ibex_credit.h"

/* Worst wire bytes per block pair: a 65-byte frame costs 2 blocks and
 * 65 + 8 preamble + 12 gap byte times (as ibex_buf.c's headroom). */
#define CREDIT_WORST_BLOCKS 2u
#define CREDIT_WORST_WIRE_BYTES 85u

int
ibex_credit_params_set(struct ibex_credit_params *p, uint64_t min_interval_ns,
		       uint64_t period_ns)
{
	if (period_ns == 0 || min_interval_ns > period_ns)
		return -EINVAL;
	p->min_interval_ns = min_interval_ns;
	p->period_ns = period_ns;
	return 0;
}

uint32_t
ibex_credit_window_blocks(uint64_t rate_mbps, uint64_t one_way_ns,
			  uint64_t min_gap_ns, uint32_t frame_bytes,
			  uint64_t *need)
{
	uint64_t gap = min_gap_ns > IBEX_CREDIT_HK_NS ? min_gap_ns :
		       IBEX_CREDIT_HK_NS;
	uint64_t loop_ns = 2 * one_way_ns + gap + IBEX_CREDIT_HK_NS;
	/* Mb/s x ns = 1e-3 bits; / 8 bits per byte. Rates up to 10 Tb/s
	 * and loops up to 1 s stay far below 2^64. */
	uint64_t wire_bytes = (rate_mbps * loop_ns + 7999) / 8000;
	uint64_t blocks = (wire_bytes * CREDIT_WORST_BLOCKS +
			   CREDIT_WORST_WIRE_BYTES - 1) / CREDIT_WORST_WIRE_BYTES;

	blocks += 2 * (uint64_t)ibex_blocks(frame_bytes);
	if (need != NULL)
		*need = blocks;
	return blocks > IBEX_CREDIT_WINDOW ? IBEX_CREDIT_WINDOW :
	       (uint32_t)blocks;
}

int
ibex_credit_port_init(struct ibex_credit_port *p, unsigned int n_vls)
{
	if (n_vls == 0 || n_vls > IBEX_CREDIT_MAX_VLS)
		return -EINVAL;
	memset(p, 0, sizeof(*p));
	p->n_vls = n_vls;
	p->watch_vls = (uint16_t)((1u << n_vls) - 1);
	p->init_pending = true;
	return 0;
}

bool
ibex_credit_due(uint64_t now_ns, uint64_t last_ns, bool changed,
		uint64_t min_interval_ns, uint64_t period_ns)
{
	/* Unsigned difference: a clock that has not moved gives 0. */
	uint64_t since = now_ns >= last_ns ? now_ns - last_ns : 0;

	if (since >= period_ns)
		return true;
	return changed && since >= min_interval_ns;
}

bool
ibex_credit_fc_due(const struct ibex_credit_params *par,
		   const struct ibex_credit_port *p, uint64_t now_ns,
		   const uint32_t *free_blocks)
{
	bool changed = p->init_pending || p->resend || p->last_fc_ns == 0;
	uint32_t watch = p->watch_vls & ((1u << p->n_vls) - 1);
	uint32_t moved, step, left;
	unsigned int vl;

	while (watch != 0 && !changed) {
		const struct ibex_credit_rx *rx;

		vl = (unsigned int)__builtin_ctz(watch);
		watch &= watch - 1;
		rx = &p->rx[vl];
		moved = ibex_credit_mod(
			(uint32_t)ibex_credit_rx_fccl(p, vl, free_blocks[vl]) -
			rx->fccl_sent);
		step = rx->free_sent / 4u;
		/* The most credit the sender can still have: what the last
		 * frame granted beyond what has arrived since. Below a step
		 * it may be idle, its frames held here: every block that
		 * frees is news, or it waits for the period. */
		left = ibex_credit_room(rx->fccl_sent, rx->abr);
		if (left < step)
			step = 1;

		/* A limit that went back (more than a window) is news too. */
		changed = moved >= (step > 0 ? step : 1u);
	}
	return ibex_credit_due(now_ns, p->last_fc_ns, changed,
			       par->min_interval_ns, par->period_ns);
}

void
ibex_credit_fc_fill(struct ibex_credit_port *p, struct ibex_credit_stats *st,
		    uint64_t now_ns, const uint32_t *free_blocks,
		    struct ibex_fcf_credit *m)
{
	unsigned int vl;

	m->op = p->init_pending ? IBEX_FCF_OP_INIT : IBEX_FCF_OP_NORMAL;
	m->n_vls = p->n_vls;
	m->seq = p->seq++;
	for (vl = 0; vl < p->n_vls; vl++) {
		uint16_t fccl = ibex_credit_rx_fccl(p, vl, free_blocks[vl]);

		m->vl[vl].vl = vl;
		m->vl[vl].fctbs = p->tx[vl].fctbs;
		m->vl[vl].fccl = fccl;
		p->rx[vl].fccl_sent = fccl;
		p->rx[vl].free_sent = (uint16_t)(free_blocks[vl] <
			IBEX_CREDIT_WINDOW ? free_blocks[vl] : IBEX_CREDIT_WINDOW);
	}
	p->init_pending = false;
	p->resend = false;
	p->last_fc_ns = now_ns;
	st->fc_tx++;
}

unsigned int
ibex_credit_fc_apply(struct ibex_credit_port *p, struct ibex_credit_stats *st,
		     const struct ibex_fcf_credit *m)
{
	unsigned int i, n = 0;

	for (i = 0; i < m->n_vls && i < IBEX_FCF_MAX_VLS; i++) {
		unsigned int vl = m->vl[i].vl;

		if (vl >= p->n_vls)
			continue;
		p->tx[vl].fccl = ibex_credit_mod(m->vl[i].fccl);
		p->rx[vl].abr = ibex_credit_mod(m->vl[i].fctbs);
		n++;
	}
	if (m->op == IBEX_FCF_OP_INIT)
		p->last_fc_ns = 0;
	st->fc_rx++;
	return n;
}
