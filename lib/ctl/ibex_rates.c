/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * "show rates" and "clear counters" (ibex_rates.h). Runs on the control
 * thread only, like every command.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_common.h>

#include "ibex_cmd.h"
#include "ibex_conf.h"
#include "ibex_dp.h"
#include "ibex_rates.h"
#include "ibex_reason.h"

/* The counters a rate is computed from, for one port. */
struct rate_port {
	struct ibex_port_counters c;
	struct ibex_lane_counters lane[IBEX_VL_COUNT];
	uint64_t paused_ns;       /* over every priority */
};

struct rate_sample {
	uint64_t t_ns;
	struct rate_port port[IBEX_MAX_PORTS];
};

struct ibex_rates {
	struct rate_sample prev;  /* start of the current interval */
	struct rate_sample base;  /* at the last "clear counters" */
	struct rate_sample cur;   /* scratch */
};

static uint64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void
sample(const struct ibex_dp *dp, struct rate_sample *s)
{
	struct ibex_dp_fc_view fc;
	uint16_t p;
	unsigned int v, i;

	s->t_ns = mono_ns();
	for (p = 0; p < dp->nb_ports; p++) {
		struct rate_port *rp = &s->port[p];

		ibex_dp_port_totals(dp, p, &rp->c);
		for (v = 0; v < IBEX_VL_COUNT; v++)
			ibex_dp_lane_totals(dp, p, v, &rp->lane[v]);
		rp->paused_ns = 0;
		if (ibex_dp_fc_view(dp, p, &fc) == 0)
			for (i = 0; i < RTE_DIM(fc.paused_ns); i++)
				rp->paused_ns += fc.paused_ns[i];
	}
}

int
ibex_rates_create(struct ibex_rates **rp, const struct ibex_dp *dp)
{
	struct ibex_rates *r = calloc(1, sizeof(*r));

	*rp = r;
	if (r == NULL)
		return -ENOMEM;
	ibex_rates_clear(r, dp);
	return 0;
}

void
ibex_rates_free(struct ibex_rates *r)
{
	free(r);
}

void
ibex_rates_clear(struct ibex_rates *r, const struct ibex_dp *dp)
{
	sample(dp, &r->base);
	r->prev = r->base;
}

void
ibex_rates_port_since_clear(const struct ibex_rates *r,
			    const struct ibex_dp *dp, uint16_t port,
			    struct ibex_port_counters *c)
{
	ibex_dp_port_totals(dp, port, c);
	ibex_port_counters_sub(c, &r->base.port[port].c);
}

/* Per second, over dt seconds. */
static double
per_s(uint64_t now, uint64_t then, double dt)
{
	return dt > 0 ? (double)(now - then) / dt : 0;
}

static uint64_t
drops_sum(const struct ibex_port_counters *c)
{
	uint64_t sum = 0;
	unsigned int r;

	for (r = 1; r < IBEX_R_MAX; r++)
		sum += c->drop[r];
	return sum;
}

static uint64_t
marks(const struct rate_port *rp, unsigned int nb_vls)
{
	uint64_t sum = 0;
	unsigned int v;

	for (v = 0; v < nb_vls; v++)
		sum += rp->lane[v].ecn_marked;
	return sum;
}

/* Frames waiting in the port's lane queues now (a gauge). */
static uint64_t
backlog(const struct rate_port *rp, unsigned int nb_vls, bool bytes)
{
	uint64_t sum = 0;
	unsigned int v;

	for (v = 0; v < nb_vls; v++)
		sum += bytes ? rp->lane[v].qlen_bytes : rp->lane[v].qlen_pkts;
	return sum;
}

static unsigned int
nb_vls_of(const struct ibex_conf *conf, uint16_t p)
{
	return conf->ports[p].nb_vls != 0 ? conf->ports[p].nb_vls : 1;
}

static void
show_text(const struct ibex_rates *r, const struct ibex_dp *dp,
	  const struct ibex_conf *conf, double dt, struct ibex_out *o)
{
	uint16_t p;
	unsigned int v, i;

	ibex_out_printf(o, "interval %.3f s\n", dt);
	ibex_out_printf(o, "%-12s %12s %12s %12s %12s %10s %10s %9s %9s\n",
			"port/lane", "rx-fps", "rx-bps", "tx-fps", "tx-bps",
			"drops/s", "marks/s", "pause-%", "backlog");
	for (p = 0; p < dp->nb_ports; p++) {
		const struct rate_port *a = &r->prev.port[p];
		const struct rate_port *b = &r->cur.port[p];
		unsigned int nv = nb_vls_of(conf, p);

		ibex_out_printf(o, "%-12s %12.0f %12.0f %12.0f %12.0f %10.0f "
				"%10.0f %9.2f %9" PRIu64 "\n", conf->ports[p].name,
				per_s(b->c.rx_pkts, a->c.rx_pkts, dt),
				8 * per_s(b->c.rx_bytes, a->c.rx_bytes, dt),
				per_s(b->c.tx_pkts, a->c.tx_pkts, dt),
				8 * per_s(b->c.tx_bytes, a->c.tx_bytes, dt),
				per_s(drops_sum(&b->c), drops_sum(&a->c), dt),
				per_s(marks(b, nv), marks(a, nv), dt),
				100 * per_s(b->paused_ns, a->paused_ns, dt) / 1e9,
				backlog(b, nv, false));
		for (v = 0; v < nv && nv > 1; v++) {
			const struct ibex_lane_counters *la = &a->lane[v];
			const struct ibex_lane_counters *lb = &b->lane[v];
			char name[16];

			snprintf(name, sizeof(name), "  vl%u", v);
			ibex_out_printf(o, "%-12s %12s %12s %12.0f %12.0f %10.0f "
					"%10.0f %9s %9" PRIu64 "\n", name, "", "",
					per_s(lb->tx_pkts, la->tx_pkts, dt),
					8 * per_s(lb->tx_bytes, la->tx_bytes, dt),
					per_s(lb->drops, la->drops, dt),
					per_s(lb->ecn_marked, la->ecn_marked, dt),
					"", lb->qlen_pkts);
		}
		for (i = 1; i < IBEX_R_MAX; i++)
			if (b->c.drop[i] != a->c.drop[i])
				ibex_out_printf(o, "%-12s   drops/s %s %.0f\n", "",
						ibex_reason_name(i),
						per_s(b->c.drop[i], a->c.drop[i],
						      dt));
	}
}

static void
show_json(const struct ibex_rates *r, const struct ibex_dp *dp,
	  const struct ibex_conf *conf, double dt, struct ibex_out *o)
{
	uint16_t p;
	unsigned int v, i;

	ibex_out_printf(o, "{\"rates\": {\"interval_s\": %.6f, \"ports\": [",
			dt);
	for (p = 0; p < dp->nb_ports; p++) {
		const struct rate_port *a = &r->prev.port[p];
		const struct rate_port *b = &r->cur.port[p];
		unsigned int nv = nb_vls_of(conf, p);
		bool first = true;

		ibex_out_printf(o, "%s{\"name\": ", p != 0 ? ", " : "");
		ibex_out_json_str(o, conf->ports[p].name);
		ibex_out_printf(o, ", \"rx_fps\": %.1f, \"rx_bps\": %.1f, "
				"\"tx_fps\": %.1f, \"tx_bps\": %.1f, "
				"\"drops_ps\": %.1f, \"marks_ps\": %.1f, "
				"\"pause_fraction\": %.6f, \"backlog_frames\": %"
				PRIu64 ", \"backlog_bytes\": %" PRIu64
				", \"drops_ps_by_reason\": {",
				per_s(b->c.rx_pkts, a->c.rx_pkts, dt),
				8 * per_s(b->c.rx_bytes, a->c.rx_bytes, dt),
				per_s(b->c.tx_pkts, a->c.tx_pkts, dt),
				8 * per_s(b->c.tx_bytes, a->c.tx_bytes, dt),
				per_s(drops_sum(&b->c), drops_sum(&a->c), dt),
				per_s(marks(b, nv), marks(a, nv), dt),
				per_s(b->paused_ns, a->paused_ns, dt) / 1e9,
				backlog(b, nv, false), backlog(b, nv, true));
		for (i = 1; i < IBEX_R_MAX; i++) {
			ibex_out_printf(o, "%s\"%s\": %.1f", first ? "" : ", ",
					ibex_reason_name(i),
					per_s(b->c.drop[i], a->c.drop[i], dt));
			first = false;
		}
		ibex_out_printf(o, "}, \"lanes\": [");
		for (v = 0; v < nv; v++) {
			const struct ibex_lane_counters *la = &a->lane[v];
			const struct ibex_lane_counters *lb = &b->lane[v];

			ibex_out_printf(o, "%s{\"vl\": %u, \"tx_fps\": %.1f, "
					"\"tx_bps\": %.1f, \"drops_ps\": %.1f, "
					"\"marks_ps\": %.1f, \"backlog_frames\": %"
					PRIu64 ", \"backlog_bytes\": %" PRIu64 "}",
					v != 0 ? ", " : "", v,
					per_s(lb->tx_pkts, la->tx_pkts, dt),
					8 * per_s(lb->tx_bytes, la->tx_bytes, dt),
					per_s(lb->drops, la->drops, dt),
					per_s(lb->ecn_marked, la->ecn_marked, dt),
					lb->qlen_pkts, lb->qlen_bytes);
		}
		ibex_out_printf(o, "]}");
	}
	ibex_out_printf(o, "]}}\n");
}

void
ibex_rates_show(struct ibex_rates *r, const struct ibex_dp *dp,
		const struct ibex_conf *conf, bool json, struct ibex_out *o)
{
	double dt;

	sample(dp, &r->cur);
	dt = (double)(r->cur.t_ns - r->prev.t_ns) / 1e9;
	if (json)
		show_json(r, dp, conf, dt, o);
	else
		show_text(r, dp, conf, dt, o);
	r->prev = r->cur;
}
