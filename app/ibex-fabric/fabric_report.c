/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ibex-fabric's per-hop report: for every switch port (a hop's egress),
 * what it sent, how many frames waited in a lane queue and how long they
 * stayed in the switch (RX to TX, queued and cut through together), what
 * it dropped, and the flow control on its link (pauses sent and received,
 * time paused, credit frames). One table, and the same as JSON.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>

#include "fabric.h"
#include "ibex_conf.h"
#include "ibex_hist.h"
#include "ibex_pdev.h"

/* One egress port's figures. */
struct hop {
	struct ibex_port_counters pc;
	uint64_t queued, cut;           /* frames, all lanes */
	uint64_t lane_drops;
	uint64_t trimmed;               /* frames trimmed instead of dropped */
	uint64_t res_p50, res_p99, res_max; /* ns, all lanes */
	uint64_t pause_tx, pause_rx;    /* PFC frames */
	uint64_t paused_us;             /* time our TX was paused, all prios */
	uint64_t credit_tx, credit_rx;  /* credit frames */
	uint64_t violations;
	uint64_t storms, restored;      /* PFC watchdog */
};

static uint64_t
tsc_ns(uint64_t t)
{
	return (uint64_t)((double)t * 1e9 / (double)rte_get_tsc_hz());
}

/* @p h (caller's, any content) ends as the port's residence over all its
 * lanes and both paths. */
static void
hop_residence(const struct ibex_dp *dp, uint16_t p, struct hop *o,
	      struct ibex_hist *all, struct ibex_hist *one)
{
	unsigned int vl, q;

	ibex_hist_init(all);
	for (vl = 0; vl < IBEX_VL_COUNT; vl++) {
		struct ibex_lane_counters lc;

		ibex_dp_lane_totals(dp, p, vl, &lc);
		o->queued += lc.queued;
		o->cut += lc.cut_through;
		o->lane_drops += lc.drops;
		o->trimmed += lc.trimmed;
		for (q = 0; q < 2; q++) {
			ibex_hist_init(one);
			if (ibex_dp_residence(dp, p, vl, q != 0, one) == 0)
				ibex_hist_merge(all, one);
		}
	}
	o->res_p50 = tsc_ns(ibex_hist_quantile(all, 0.5));
	o->res_p99 = tsc_ns(ibex_hist_quantile(all, 0.99));
	o->res_max = tsc_ns(ibex_hist_max(all));
}

static int
hop_read(const struct ibex_dp *dp, uint16_t p, struct hop *o)
{
	struct ibex_hist *h = malloc(2 * sizeof(*h));
	struct ibex_dp_fc_view v;
	unsigned int i;

	if (h == NULL)
		return -ENOMEM;
	memset(o, 0, sizeof(*o));
	ibex_dp_port_totals(dp, p, &o->pc);
	hop_residence(dp, p, o, &h[0], &h[1]);
	free(h);
	if (ibex_dp_fc_view(dp, p, &v) != 0)
		return 0;
	o->pause_tx = v.pfc_tx;
	o->pause_rx = v.pfc_rx;
	o->storms = v.storms;
	o->restored = v.restored;
	for (i = 0; i < 8; i++)
		o->paused_us += v.paused_ns[i] / 1000;
	if (v.mode == IBEX_FC_CREDIT) {
		o->credit_tx = v.fc_tx;
		o->credit_rx = v.fc_rx;
	}
	for (i = 0; i < IBEX_VL_COUNT; i++)
		o->violations += v.violations[i];
	return 0;
}

/* Frames that reached the RX ring of a link end after it filled (the
 * poller was away): ibex_pdev_stats_get()'s imissed, beside the switch's
 * own drop counters. At this switch port's end, and at its peer's. */
static void
hop_missed(const struct fabric *f, const struct fabric_switch *s,
	   const struct ibex_dp *dp, uint16_t p, uint64_t *here,
	   uint64_t *there)
{
	const struct ibex_fabric_node *n = &f->topo.nodes[s->node];
	uint32_t l = n->port[s->topo_port[p]].link;
	char dev[RTE_DEV_NAME_MAX_LEN];
	struct rte_eth_stats st;
	uint16_t id;
	unsigned int e;

	*here = ibex_pdev_stats_get(dp->port_id[p], &st) == 0 ? st.imissed : 0;
	*there = 0;
	for (e = 0; e < 2; e++) {
		fabric_link_dev(l, e, dev, sizeof(dev));
		if (ibex_pdev_get_by_name(dev, &id) == 0 &&
		    id != dp->port_id[p] && ibex_pdev_stats_get(id, &st) == 0)
			*there = st.imissed;
	}
}

static struct ibex_fabric_end
hop_peer_end(const struct fabric *f, const struct fabric_switch *s, uint16_t p)
{
	const struct ibex_fabric_node *n = &f->topo.nodes[s->node];
	uint16_t k = s->topo_port[p];
	struct ibex_fabric_end e = { .node = s->node, .port = k };

	return ibex_fabric_peer(&f->topo, n->port[k].link, e);
}

static bool
peer_is_rank(const struct fabric *f, const struct fabric_switch *s, uint16_t p)
{
	return f->topo.nodes[hop_peer_end(f, s, p).node].kind ==
	       IBEX_FABRIC_RANK;
}

/* "node:port" at the other end of switch @p s's port @p p. */
static void
hop_peer(const struct fabric *f, const struct fabric_switch *s, uint16_t p,
	 char *buf, size_t len)
{
	struct ibex_fabric_end o = hop_peer_end(f, s, p);

	snprintf(buf, len, "%s:%s", f->topo.nodes[o.node].name,
		 f->topo.nodes[o.node].port[o.port].name);
}

void
fabric_report(FILE *out, const struct fabric *f, double elapsed_s)
{
	uint64_t missed_sw = 0, missed_rank = 0;
	unsigned int i;
	uint16_t p;

	fprintf(out, "\nfabric %s: %u switches, %u ranks, %u links, %.2f s\n"
		"per hop (each switch port's egress; residence = RX to TX in "
		"the switch, ns):\n", f->topo.name, f->n_sw, f->routes.n_ranks,
		f->topo.n_links, elapsed_s);
	fprintf(out, "%-8s %-5s %-14s %12s %12s %7s %9s %9s %10s %8s %8s "
		"%10s %9s %9s\n", "switch", "port", "to", "rx", "tx",
		"queued%", "res-p50", "res-p99", "res-max", "dropped",
		"pause-tx", "pause-rx", "paused-us", "credit-tx");
	for (i = 0; i < f->n_sw; i++) {
		const struct ibex_dp *dp = f->ctl[i].dp;

		for (p = 0; p < dp->nb_ports; p++) {
			char peer[2 * IBEX_FABRIC_NAME_LEN];
			struct hop h;
			uint64_t sent;

			uint64_t here, there;

			if (hop_read(dp, p, &h) < 0)
				continue;
			hop_peer(f, &f->sw[i], p, peer, sizeof(peer));
			hop_missed(f, &f->sw[i], dp, p, &here, &there);
			missed_sw += here;
			if (peer_is_rank(f, &f->sw[i], p))
				missed_rank += there;
			sent = h.queued + h.cut;
			fprintf(out, "%-8s %-5s %-14s %12" PRIu64 " %12" PRIu64
				" %7.2f %9" PRIu64 " %9" PRIu64 " %10" PRIu64
				" %8" PRIu64 " %8" PRIu64 " %10" PRIu64 " %9"
				PRIu64 " %9" PRIu64 "\n", f->sw[i].name,
				dp->port_name[p], peer, h.pc.rx_pkts,
				h.pc.tx_pkts, sent != 0 ? 100.0 *
				(double)h.queued / (double)sent : 0.0,
				h.res_p50, h.res_p99, h.res_max,
				ibex_port_dropped(&h.pc) + h.lane_drops,
				h.pause_tx, h.pause_rx, h.paused_us,
				h.credit_tx);
		}
	}
	fprintf(out, "links: %" PRIu64 " frames missed at a full RX ring of a "
		"switch port, %" PRIu64 " at a rank's (a poller away longer "
		"than its ring lasts)\n", missed_sw, missed_rank);
}

/* @p s as a JSON string: names come from the topology file. */
static void
json_str(FILE *o, const char *s)
{
	fputc('"', o);
	for (; *s != '\0'; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(o, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(o, "\\u%04x", (unsigned char)*s);
		else
			fputc(*s, o);
	}
	fputc('"', o);
}

/* The port's drops by reason, those that are not 0. */
static void
json_drops(FILE *o, const struct ibex_port_counters *pc)
{
	unsigned int r;
	bool first = true;

	fprintf(o, ", \"drops\": {");
	for (r = 1; r < IBEX_R_MAX; r++) {
		if (pc->drop[r] == 0)
			continue;
		fprintf(o, "%s\"%s\": %" PRIu64, first ? "" : ", ",
			ibex_reason_name(r), pc->drop[r]);
		first = false;
	}
	fprintf(o, "}");
}

static void
json_hop(FILE *o, const struct fabric *f, unsigned int i, uint16_t p)
{
	const struct ibex_dp *dp = f->ctl[i].dp;
	char peer[2 * IBEX_FABRIC_NAME_LEN];
	struct hop h;

	uint64_t here, there;

	if (hop_read(dp, p, &h) < 0)
		memset(&h, 0, sizeof(h));
	hop_peer(f, &f->sw[i], p, peer, sizeof(peer));
	hop_missed(f, &f->sw[i], dp, p, &here, &there);
	fprintf(o, "{\"port\": \"%s\", \"to\": ", dp->port_name[p]);
	json_str(o, peer);
	fprintf(o, ", \"rx_frames\": %" PRIu64
		", \"tx_frames\": %" PRIu64 ", \"queued\": %" PRIu64
		", \"cut_through\": %" PRIu64 ", \"residence_p50_ns\": %" PRIu64
		", \"residence_p99_ns\": %" PRIu64 ", \"residence_max_ns\": %"
		PRIu64 ", \"dropped\": %" PRIu64 ", \"lane_drops\": %" PRIu64
		", \"pfc_tx\": %" PRIu64 ", \"pfc_rx\": %" PRIu64
		", \"paused_us\": %" PRIu64 ", \"credit_tx\": %" PRIu64
		", \"credit_rx\": %" PRIu64 ", \"violations\": %" PRIu64,
		h.pc.rx_pkts, h.pc.tx_pkts, h.queued,
		h.cut, h.res_p50, h.res_p99, h.res_max,
		ibex_port_dropped(&h.pc), h.lane_drops, h.pause_tx,
		h.pause_rx, h.paused_us, h.credit_tx, h.credit_rx,
		h.violations);
	fprintf(o, ", \"trimmed\": %" PRIu64 ", \"pfc_storms\": %" PRIu64
		", \"pfc_restored\": %" PRIu64 ", \"rx_missed\": %" PRIu64
		", \"peer_rx_missed\": %" PRIu64, h.trimmed, h.storms, h.restored,
		here, there);
	json_drops(o, &h.pc);
	fprintf(o, "}");
}

int
fabric_report_json(const char *path, const struct fabric *f,
		   double elapsed_s, const char *meta)
{
	FILE *o = fopen(path, "w");
	unsigned int i;
	uint16_t p;

	if (o == NULL)
		return -errno;
	fprintf(o, "{");
	if (meta != NULL)
		fprintf(o, "\"meta\": %s, ", meta);
	fprintf(o, "\"fabric\": ");
	json_str(o, f->topo.name);
	fprintf(o, ", \"topology\": ");
	json_str(o, f->topo.origin);
	fprintf(o, ", \"elapsed_s\": %.6f, \"ranks\": %u, \"links\": %u, "
		"\"switches\": [", elapsed_s, f->routes.n_ranks,
		f->topo.n_links);
	for (i = 0; i < f->n_sw; i++) {
		fprintf(o, "%s{\"name\": \"%s\", \"ports\": [", i ? ", " : "",
			f->sw[i].name);
		for (p = 0; p < f->ctl[i].dp->nb_ports; p++) {
			if (p != 0)
				fprintf(o, ", ");
			json_hop(o, f, i, p);
		}
		fprintf(o, "]}");
	}
	fprintf(o, "]}\n");
	return fclose(o) == 0 ? 0 : -EIO;
}
