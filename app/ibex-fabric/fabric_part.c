/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ibex-fabric --model-partitions N: what a run split over N processes by
 * lib/fabric's rule would have cost, read off a run in one process
 * (docs/simulation.md, "Beyond one machine"). The windows come from the
 * executive (fabric_sim.c), the traffic from the link ends' counters.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_ethdev.h>

#include "fabric.h"
#include "ibex_fabric_part.h"
#include "ibex_pdev.h"

/* Frames and bytes a link end sent, and frames it received. */
struct end_counts {
	uint64_t tx, tx_bytes, rx;
};

static struct end_counts
end_counts(uint16_t port_id)
{
	struct end_counts c = { 0 };
	struct rte_eth_stats st;

	if (ibex_pdev_stats_get(port_id, &st) == 0) {
		c.tx = st.opackets;
		c.tx_bytes = st.obytes;
		c.rx = st.ipackets;
	}
	return c;
}

/* The partition of the node at the far end of switch @p s's port @p p,
 * or NONE for a port without a link of the topology. */
static uint32_t
far_part(const struct fabric *f, const struct fabric_switch *s, uint16_t p,
	 const struct ibex_fabric_partition *pt)
{
	const struct ibex_fabric_node *n = &f->topo.nodes[s->node];
	struct ibex_fabric_end e = { .node = s->node, .port = s->topo_port[p] };

	if (e.port == (uint16_t)IBEX_FABRIC_NONE ||
	    n->port[e.port].link == IBEX_FABRIC_NONE)
		return IBEX_FABRIC_NONE;
	e = ibex_fabric_peer(&f->topo, n->port[e.port].link, e);
	return pt->part[e.node];
}

void
fabric_part_model_report(FILE *out, const struct fabric *f,
			 const struct ibex_fabric_partition *pt,
			 uint64_t windows, double sim_s)
{
	uint64_t *hops = calloc(pt->n_parts, sizeof(*hops));
	uint64_t cross = 0, cross_bytes = 0, total = 0, most = 0;
	unsigned int i, k;
	uint16_t p;

	if (hops == NULL)
		return;
	/* a frame-hop is a frame a link end received: the work of the
	 * partition that holds the receiving end */
	for (i = 0; i < f->n_sw; i++) {
		const struct fabric_switch *s = &f->sw[i];
		const struct ibex_dp *dp = f->ctl[i].dp;
		uint32_t mine = pt->part[s->node], far;

		for (p = 0; p < dp->nb_ports; p++) {
			struct end_counts c = end_counts(dp->port_id[p]);

			hops[mine] += c.rx;
			far = far_part(f, s, p, pt);
			if (far != IBEX_FABRIC_NONE && far != mine) {
				cross += c.tx;
				cross_bytes += c.tx_bytes;
			}
		}
	}
	for (i = 0; i < f->routes.n_ranks; i++) {
		struct end_counts c = end_counts(f->rank_port[i]);
		uint32_t node = f->routes.rk[i];
		struct ibex_fabric_end e = { .node = node, .port = 0 };
		uint32_t mine = pt->part[node];

		hops[mine] += c.rx;
		e = ibex_fabric_peer(&f->topo,
				     f->topo.nodes[node].port[0].link, e);
		if (pt->part[e.node] != mine) {
			cross += c.tx;
			cross_bytes += c.tx_bytes;
		}
	}
	for (k = 0; k < pt->n_parts; k++) {
		total += hops[k];
		if (hops[k] > most)
			most = hops[k];
	}
	fprintf(out, "partitions model: %" PRIu32 " processes, lookahead "
		"%.3f us: %" PRIu64 " windows (%.3f us of simulated time "
		"each); %" PRIu64 " frames, %" PRIu64 " bytes crossed (%.1f "
		"frames a window); the busiest partition has %.1f %% of the "
		"%" PRIu64 " frame-hops (speed-up at most %.2f)\n",
		pt->n_parts, pt->lookahead_ps == UINT64_MAX ? 0 :
		(double)pt->lookahead_ps / 1e6, windows,
		windows != 0 ? sim_s * 1e6 / (double)windows : 0, cross,
		cross_bytes, windows != 0 ? (double)cross / (double)windows : 0,
		total != 0 ? 100.0 * (double)most / (double)total : 0, total,
		most != 0 ? (double)total / (double)most : 0);
	for (k = 0; k < pt->n_parts; k++)
		fprintf(out, "partitions model: partition %u: %" PRIu32
			" switches, %" PRIu32 " ranks, %" PRIu64
			" frame-hops\n", k, pt->size[k].switches,
			pt->size[k].ranks, hops[k]);
	free(hops);
}
