/* SPDX-License-Identifier: BSD-3-Clause */
/* Buffer layout and housekeeping; per-packet admission is in ibex_buf.h. */

#include <errno.h>
#include <string.h>

#include "ibex_buf.h"

const char *const ibex_fc_mode_names[IBEX_FC_MODE_NB + 1] = {
	[IBEX_FC_NONE] = "none",
	[IBEX_FC_CREDIT] = "credit",
	[IBEX_FC_PFC] = "pfc",
	[IBEX_FC_CBFC] = "cbfc",
	[IBEX_FC_MODE_NB] = NULL,
};

/* Propagation in copper and fibre, about 2/3 c: 5 ns per metre. */
#define IBEX_NS_PER_METRE 5
/* Worst block cost per wire byte: a 65-byte frame is 2 blocks in 85 byte
 * times (frame + 8 preamble + 12 inter-frame gap). */
#define IBEX_WORST_BLOCKS 2
#define IBEX_WORST_WIRE_BYTES 85

uint32_t
ibex_buf_headroom_blocks(uint64_t rate_mbps, uint32_t cable_m,
			 uint32_t proc_ns, uint32_t mtu)
{
	uint64_t one_way_ns = (uint64_t)cable_m * IBEX_NS_PER_METRE + proc_ns;
	/* Mb/s x ns = 1e-3 bits; 2 x (one way) / 8 bits per byte. */
	uint64_t wire_bytes = (2 * rate_mbps * one_way_ns + 7999) / 8000;
	uint64_t blocks = (wire_bytes * IBEX_WORST_BLOCKS +
			   IBEX_WORST_WIRE_BYTES - 1) / IBEX_WORST_WIRE_BYTES;

	blocks += 2 * (uint64_t)ibex_blocks(mtu);
	return blocks > UINT32_MAX ? UINT32_MAX : (uint32_t)blocks;
}

int
ibex_buf_init(struct ibex_buf *b, const struct ibex_buf_conf *c)
{
	uint64_t carved = 0;
	unsigned int p, v;

	if (c->n_ports == 0 || c->n_ports > IBEX_MAX_PORTS ||
	    c->alpha_log2 < -7 || c->alpha_log2 > 3)
		return -EINVAL;
	memset(b, 0, sizeof(*b));
	for (p = 0; p < c->n_ports; p++) {
		const struct ibex_buf_port_conf *pc = &c->port[p];

		if (pc->mode >= IBEX_FC_MODE_NB)
			return -EINVAL;
		unsigned int n_vls = pc->n_vls ? pc->n_vls : IBEX_BUF_MAX_VLS;

		if (n_vls > IBEX_BUF_MAX_VLS)
			return -EINVAL;
		for (v = 0; v < n_vls; v++) {
			struct ibex_buf_lane *l = &b->lane[p][v];

			l->lossless = pc->mode != IBEX_FC_NONE &&
				      (pc->lossless_mask >> v & 1);
			l->pfc = l->lossless && pc->mode == IBEX_FC_PFC;
			l->res_cap = pc->reserved_per_vl ? pc->reserved_vl[v] :
						       pc->reserved_blocks;
			l->hr_cap = l->pfc ? pc->headroom_blocks : 0;
			l->xoff_static = pc->xoff_blocks;
			l->xon_gap = pc->xon_gap_blocks;
			ibex_buf_lane_refresh(l);
			carved += l->res_cap + l->hr_cap;
		}
	}
	if (carved > c->total_blocks)
		return -ENOSPC;
	b->shared_total = c->total_blocks - carved;
	b->alpha_log2 = c->alpha_log2;
	b->n_ports = c->n_ports;
	return 0;
}

void
ibex_buf_pfc_scan(struct ibex_buf *b, unsigned int port, uint16_t *xoff,
		  uint16_t *xon)
{
	unsigned int v;

	*xoff = 0;
	*xon = 0;
	for (v = 0; v < IBEX_BUF_MAX_VLS; v++) {
		uint8_t e = ibex_buf_pfc_step(b, &b->lane[port][v]);

		if (e == IBEX_BUF_PAUSE_XOFF)
			*xoff |= 1u << v;
		else if (e == IBEX_BUF_PAUSE_XON)
			*xon |= 1u << v;
	}
}

uint8_t
ibex_buf_pfc_judge(const struct ibex_buf *b, unsigned int port,
		   unsigned int vl, uint32_t lane_used, uint64_t pool_used,
		   bool *xoff)
{
	const struct ibex_buf_lane *l = &b->lane[port][vl];
	uint32_t excess = lane_used > l->res_cap ? lane_used - l->res_cap : 0;
	uint32_t thr;

	if (!l->pfc)
		return IBEX_BUF_PAUSE_NONE;
	thr = ibex_buf_xoff_thresh_at(b, l, pool_used);
	if (!*xoff && excess > 0 && excess >= thr) {
		*xoff = true;
		return IBEX_BUF_PAUSE_XOFF;
	}
	if (*xoff && (uint64_t)excess + l->xon_gap <= thr) {
		*xoff = false;
		return IBEX_BUF_PAUSE_XON;
	}
	return IBEX_BUF_PAUSE_NONE;
}
