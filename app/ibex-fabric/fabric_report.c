/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ibex-fabric's per-hop report: for every switch port (a hop's egress),
 * what it received and sent, how many frames waited in a lane queue and
 * how long they stayed in the switch (RX to TX, queued and cut through
 * together), what it dropped, and the flow control on its link (pauses
 * sent and received, time paused, credit frames). This file reads the
 * figures from the data paths and links, once, into struct
 * ibex_fabric_hop; lib/fabric/ibex_fabric_report.c prints them, as a
 * table and as JSON, and says where a failed run lost its frames.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>

#include "ibex_clock.h"
#include "fabric.h"
#include "ibex_conf.h"
#include "ibex_dp.h"
#include "ibex_gen_report.h"
#include "ibex_hist.h"
#include "ibex_json.h"
#include "ibex_llr.h"
#include "ibex_pdev.h"
#include "ibexlink.h"

static uint64_t
tsc_ns(uint64_t t)
{
	return (uint64_t)((double)t * 1e9 / (double)ibex_clock_hz());
}

/* @p all and @p one (caller's, any content): scratch histograms; @p o
 * ends with the port's lane figures and its residence over all its
 * lanes and both paths. */
static void
hop_residence(const struct ibex_dp *dp, uint16_t p, struct ibex_fabric_hop *o,
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
		/* A lane that carried nothing has empty histograms: reading
		 * them would only fault in their never-touched buckets
		 * (60 KB a path and lane, gigabytes over a large fabric). */
		if (lc.queued + lc.cut_through == 0)
			continue;
		for (q = 0; q < 2; q++) {
			ibex_hist_init(one);
			if (ibex_dp_residence(dp, p, vl, q != 0, one) == 0)
				ibex_hist_merge(all, one);
		}
	}
	o->res_p50_ns = tsc_ns(ibex_hist_quantile(all, 0.5));
	o->res_p99_ns = tsc_ns(ibex_hist_quantile(all, 0.99));
	o->res_max_ns = tsc_ns(ibex_hist_max(all));
}

/* Switch port @p p's counters, lanes and flow control into @p o (its
 * names and link ends are the caller's). */
static int
hop_read(const struct ibex_dp *dp, uint16_t p, struct ibex_fabric_hop *o)
{
	struct ibex_hist *h = malloc(2 * sizeof(*h));
	struct ibex_port_counters pc;
	struct ibex_dp_fc_view v;
	unsigned int i;

	if (h == NULL)
		return -ENOMEM;
	ibex_dp_port_totals(dp, p, &pc);
	memcpy(o->drop, pc.drop, sizeof(o->drop));
	ibex_fabric_hop_rx(o, pc.rx_pkts, pc.consumed, pc.agg_taken);
	o->tx = pc.tx_pkts;
	hop_residence(dp, p, o, &h[0], &h[1]);
	free(h);
	if (ibex_dp_fc_view(dp, p, &v) != 0)
		return 0;
	o->pfc_tx = v.pfc_tx;
	o->pfc_rx = v.pfc_rx;
	o->storms = v.storms;
	o->restored = v.restored;
	for (i = 0; i < 8; i++)
		o->paused_us += v.paused_ns[i] / 1000;
	if (v.mode == IBEX_FC_CREDIT || v.mode == IBEX_FC_CBFC) {
		o->credit_tx = v.fc_tx;
		o->credit_rx = v.fc_rx;
	}
	o->cbfc_recovered = v.cbfc.leaked_recovered;
	o->cbfc_used_wm = v.cbfc.used_watermark;
	o->fc_tx = o->pfc_tx + o->credit_tx;
	o->xoff_tx = v.xoff_tx;
	o->xon_tx = v.xon_tx;
	for (i = 0; i < IBEX_VL_COUNT; i++) {
		o->violations += v.violations[i];
		o->buf_peak = RTE_MAX(o->buf_peak, (uint64_t)v.buf_peak[i]);
		o->hr_peak = RTE_MAX(o->hr_peak, (uint64_t)v.hr_peak[i]);
	}
	return 0;
}

/* The LLR counters of link end @p port_id, when it runs LLR. */
static void
end_llr(uint16_t port_id, struct ibex_fabric_llr *o)
{
	struct ibex_llr_stats st;

	if (ibexlink_llr_stats(port_id, &st) != 0)
		return;
	o->on = true;
	o->tx_replay = st.tx_replay;
	o->rx_nack = st.rx_nack_ctl_os;
	o->tx_nack = st.tx_nack_ctl_os;
	o->rx_bad = st.rx_bad;
	o->tx_discard = st.tx_discard;
}

/* The port id of the far end of switch @p s's port @p p's link; -1 when
 * it is not one of this process's ports. */
static int
far_port_id(const struct fabric *f, const struct fabric_switch *s,
	    const struct ibex_dp *dp, uint16_t p)
{
	const struct ibex_fabric_node *n = &f->topo.nodes[s->node];
	uint32_t l = n->port[s->topo_port[p]].link;
	char dev[RTE_DEV_NAME_MAX_LEN];
	uint16_t id;
	unsigned int e;

	for (e = 0; e < 2; e++) {
		fabric_link_dev(l, e, dev, sizeof(dev));
		if (ibex_pdev_get_by_name(dev, &id) == 0 &&
		    id != dp->port_id[p])
			return id;
	}
	return -1;
}

/* Frames that reached the RX ring of a link end after it filled (the
 * poller was away): ibex_pdev_stats_get()'s imissed, beside the switch's
 * own drop counters. At this switch port's end, and at the far one
 * (@p far, -1 for none). */
static void
hop_missed(const struct ibex_dp *dp, uint16_t p, int far, uint64_t *here,
	   uint64_t *there)
{
	struct rte_eth_stats st;

	*here = ibex_pdev_stats_get(dp->port_id[p], &st) == 0 ? st.imissed : 0;
	*there = far >= 0 && ibex_pdev_stats_get((uint16_t)far, &st) == 0 ?
		 st.imissed : 0;
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

int
fabric_hops_read(const struct fabric *f, double elapsed_s,
		 struct ibex_fabric_hops *t)
{
	unsigned int i, n = 0;
	uint16_t p;
	int far;

	memset(t, 0, sizeof(*t));
	t->fabric = f->topo.name;
	t->n_sw = f->n_sw;
	t->n_ranks = f->routes.n_ranks;
	t->n_links = f->topo.n_links;
	t->elapsed_s = elapsed_s;
	for (i = 0; i < f->n_sw; i++)
		n += f->ctl[i].dp->nb_ports;
	t->hop = calloc(n != 0 ? n : 1, sizeof(*t->hop));
	if (t->hop == NULL)
		return -ENOMEM;
	for (i = 0; i < f->n_sw; i++) {
		const struct ibex_dp *dp = f->ctl[i].dp;

		for (p = 0; p < dp->nb_ports; p++) {
			struct ibex_fabric_hop *h = &t->hop[t->n++];

			h->sw = f->sw[i].name;
			h->port = dp->port_name[p];
			hop_peer(f, &f->sw[i], p, h->to, sizeof(h->to));
			h->to_rank = peer_is_rank(f, &f->sw[i], p);
			/* unreadable: its row stays, with zeros */
			if (hop_read(dp, p, h) < 0)
				fprintf(stderr, "ibex-fabric: switch %s port %s: "
					"no memory for its figures\n", h->sw,
					h->port);
			far = far_port_id(f, &f->sw[i], dp, p);
			hop_missed(dp, p, far, &h->rx_missed,
				   &h->peer_rx_missed);
			end_llr(dp->port_id[p], &h->llr);
			/* a switch's end reports in its own row */
			if (h->to_rank && far >= 0)
				end_llr((uint16_t)far, &h->peer_llr);
		}
	}
	return 0;
}

void
fabric_hops_free(struct ibex_fabric_hops *t)
{
	free(t->hop);
	t->hop = NULL;
	t->n = 0;
}

/* Why the run failed, in words, or NULL when it did not. */
static const char *
failure(const struct ibex_gen_report *gen, bool gen_failed)
{
	if (!gen_failed)
		return NULL;
	if (gen != NULL && gen->stop_reason[0] != '\0')
		return gen->stop_reason;
	return "the generator's run was not clean (frames lost, iterations "
	       "failed, or it did not finish; its report above says which)";
}

void
fabric_report(FILE *out, const struct ibex_fabric_hops *t,
	      const struct ibex_gen_report *gen, bool gen_failed)
{
	const char *why = failure(gen, gen_failed);
	struct ibex_gen_emulation e;

	ibex_fabric_hops_print(out, t);
	if (why != NULL)
		ibex_fabric_diagnose_print(out, t, why);
	if (gen != NULL) {
		ibex_gen_emulation_get(gen, &e);
		ibex_gen_emulation_print(out, "", &e);
	}
}

/* ---- in-network aggregation, per switch ---- */

/* Switch @p i's aggregation figures; false when it has no pool. */
static bool
agg_view(const struct fabric *f, unsigned int i, struct ibex_dp_agg_view *v)
{
	return f->n_agg != 0 &&
	       ibex_dp_agg_view(f->ctl[i].dp, f->sw[i].conf, v) == 0;
}

static double
agg_wait_mean_us(const struct ibex_agg_stats *st)
{
	return st->wait_count != 0 ?
	       (double)st->wait_ns_sum / (double)st->wait_count / 1e3 : 0;
}

void
fabric_agg_report(FILE *out, const struct fabric *f)
{
	struct ibex_dp_agg_view v;
	bool head = false;
	unsigned int i;

	for (i = 0; i < f->n_sw; i++) {
		if (!agg_view(f, i, &v))
			continue;
		if (!head)
			fprintf(out, "# aggregation by switch: a use's wait is "
				"its first contribution to its last\n"
				"# %-12s %13s %10s %10s %10s %10s %12s %12s\n",
				"switch", "contributions", "duplicates",
				"partials", "results", "uses", "wait_mean_us",
				"wait_max_us");
		head = true;
		fprintf(out, "  %-12s %13" PRIu64 " %10" PRIu64 " %10" PRIu64
			" %10" PRIu64 " %10" PRIu64 " %12.3f %12.3f\n",
			f->sw[i].name, v.st.contributions, v.st.duplicates,
			v.st.partials_sent, v.st.results_sent, v.st.wait_count,
			agg_wait_mean_us(&v.st),
			(double)v.st.wait_ns_max / 1e3);
	}
}

/* "aggregation": [{"switch": ..., its counters}, ...] */
static void
agg_json(FILE *o, const struct fabric *f)
{
	struct ibex_dp_agg_view v;
	const char *sep = "";
	unsigned int i;

	fprintf(o, ", \"aggregation\": [");
	for (i = 0; i < f->n_sw; i++) {
		if (!agg_view(f, i, &v))
			continue;
		fprintf(o, "%s{\"switch\": ", sep);
		ibex_json_fputs(o, f->sw[i].name);
#define AGG_JSON(x) fprintf(o, ", \"" #x "\": %" PRIu64, v.st.x);
		IBEX_AGG_STATS_FIELDS(AGG_JSON)
#undef AGG_JSON
		fprintf(o, ", \"wait_ns_max\": %" PRIu64 "}",
			v.st.wait_ns_max);
		sep = ", ";
	}
	fprintf(o, "]");
}

int
fabric_report_json(const char *path, const struct fabric *f,
		   const struct ibex_fabric_hops *t, const char *meta,
		   const struct ibex_gen_report *gen, bool gen_failed)
{
	const char *why = failure(gen, gen_failed);
	FILE *o = fopen(path, "w");
	struct ibex_gen_emulation e;

	if (o == NULL)
		return -errno;
	fprintf(o, "{");
	if (meta != NULL)
		fprintf(o, "\"meta\": %s, ", meta);
	fprintf(o, "\"fabric\": ");
	ibex_json_fputs(o, f->topo.name);
	fprintf(o, ", \"topology\": ");
	ibex_json_fputs(o, f->topo.origin);
	fprintf(o, ", ");
	ibex_fabric_hops_json(o, t);
	agg_json(o, f);
	/* the run as a whole: failed (and where frames were lost), and
	 * how far the emulation fell behind the wire */
	fprintf(o, ", \"failed\": ");
	if (why != NULL)
		ibex_fabric_diagnose_json(o, t, why);
	else
		fprintf(o, "null");
	fprintf(o, ", \"emulation\": ");
	if (gen != NULL) {
		ibex_gen_emulation_get(gen, &e);
		ibex_gen_emulation_json(o, &e);
	} else {
		fprintf(o, "null");
	}
	fprintf(o, "}\n");
	return fclose(o) == 0 ? 0 : -EIO;
}
