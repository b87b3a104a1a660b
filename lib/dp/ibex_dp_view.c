/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control plane's read views of the data path (ibex_dp.h): counters
 * summed over the workers, residence histograms, workers, and what the
 * published tables hold. Control thread only; the workers' words are
 * read relaxed (IBEX_CNT_READ), the tables directly (the control thread
 * is their one writer). The flow-control view is in ibex_fc.c, beside
 * the state it reads; the eBPF one in ibex_dp_bpf.c. The ECMP view is
 * also the telemetry thread's: it reads a copy of the groups kept under
 * ecmp_lock, never the tables.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ibex_clock.h"
#include "ibex_dp_private.h"
#include "ibex_hist.h"

void
ibex_dp_port_totals(const struct ibex_dp *dp, uint16_t port,
		    struct ibex_port_counters *sum)
{
	uint16_t i;
	unsigned int r;

	memset(sum, 0, sizeof(*sum));
	for (i = 0; i < dp->nb_workers; i++) {
		const struct ibex_port_counters *c = &dp->workers[i]->cnt[port];

#define PORT_FIELD_ADD(f) sum->f += IBEX_CNT_READ(c->f);
		IBEX_PORT_FIELDS(PORT_FIELD_ADD)
#undef PORT_FIELD_ADD
		for (r = 0; r < IBEX_R_MAX; r++)
			sum->drop[r] += IBEX_CNT_READ(c->drop[r]);
	}
	/* The control thread's, in struct ibex_dp (ibex_link.c). */
	sum->link_downs = IBEX_CNT_READ(dp->link_downs[port]);
	sum->redials = IBEX_CNT_READ(dp->redials[port]);
}

void
ibex_dp_lane_totals(const struct ibex_dp *dp, uint16_t port, unsigned int vl,
		    struct ibex_lane_counters *sum)
{
	uint16_t i;
	unsigned int k;

	memset(sum, 0, sizeof(*sum));
	if (port >= dp->nb_ports || vl >= IBEX_VL_COUNT)
		return;
	for (i = 0; i < dp->nb_workers; i++) {
		const struct ibex_egress *e = dp->workers[i]->eg[port];
		const struct ibex_lane_counters *c = &e->lane[vl];
		const struct ibex_ecn_stats *es = &e->ecn_stats[vl];

		sum->cut_through += IBEX_CNT_READ(c->cut_through);
		sum->queued += IBEX_CNT_READ(c->queued);
		sum->tx_pkts += IBEX_CNT_READ(c->tx_pkts);
		sum->tx_bytes += IBEX_CNT_READ(c->tx_bytes);
		sum->drops += IBEX_CNT_READ(c->drops);
		sum->fecn_marked += IBEX_CNT_READ(c->fecn_marked);
		sum->trimmed += IBEX_CNT_READ(c->trimmed);
		sum->qlen_pkts += (uint32_t)(IBEX_CNT_READ(e->q[vl].tail) -
					     IBEX_CNT_READ(e->q[vl].head));
		sum->qlen_bytes += IBEX_CNT_READ(e->q[vl].bytes);
		for (k = 0; k < 4; k++)
			sum->ecn_seen[k] += IBEX_CNT_READ(es->seen[k]);
		sum->ecn_marked += IBEX_CNT_READ(es->marked);
	}
}

int
ibex_dp_residence(const struct ibex_dp *dp, uint16_t port, unsigned int vl,
		  bool queued, struct ibex_hist *out)
{
	uint16_t i;

	if (port >= dp->nb_ports || vl >= IBEX_VL_COUNT ||
	    dp->workers[0]->eg[port]->res[vl][queued] == NULL)
		return -ENOENT;
	for (i = 0; i < dp->nb_workers; i++)
		ibex_hist_merge(out, dp->workers[i]->eg[port]->res[vl][queued]);
	return 0;
}

int
ibex_dp_worker_view(const struct ibex_dp *dp, uint16_t i,
		    struct ibex_dp_worker_view *v)
{
	const struct ibex_worker *w;

	if (i >= dp->nb_workers)
		return -ENOENT;
	w = dp->workers[i];
	v->lcore = w->lcore_id;
	v->nb_rxq = w->nb_rxq;
	memcpy(v->rxq, w->rxq, sizeof(v->rxq[0]) * w->nb_rxq);
	v->busy_tsc = IBEX_CNT_READ(w->busy_tsc);
	v->iterations = IBEX_CNT_READ(w->iterations);
	v->busy_iterations = IBEX_CNT_READ(w->busy_iterations);
	v->pending_tx = IBEX_CNT_READ(w->pending_tx);
	return 0;
}

int
ibex_dp_ecn_view(const struct ibex_dp *dp, uint16_t port, unsigned int vl,
		 struct ibex_dp_ecn_view *v)
{
	const struct ibex_dp_tables *t = atomic_load_explicit(&dp->tables,
						memory_order_relaxed);
	const struct ibex_dp_egress_conf *ec;
	const struct ibex_ecn_params *e;

	if (port >= dp->nb_ports || t == NULL)
		return -ENOENT;
	ec = &t->eg[port];
	if (vl >= ec->nb_vls)
		return -ENOENT;
	e = &ec->ecn[vl];
	v->on = ec->ecn_on >> vl & 1;
	v->fecn = ec->fecn >> vl & 1;
	v->kmin = e->kmin;
	v->kmax = e->kmax;
	v->pmax = (double)e->pmax / (double)IBEX_ECN_P_ONE;
	v->wq_log = e->wq_log;
	return 0;
}

void
ibex_dp_ecmp_note(struct ibex_dp *dp, const struct ibex_dp_tables *t)
{
	uint16_t g;

	pthread_mutex_lock(&dp->ecmp_lock);
	for (g = 0; g < t->nb_ecmp; g++) {
		struct ibex_dp_ecmp_view *v = &dp->ecmp_info[g];

		memset(v, 0, sizeof(*v));
		snprintf(v->name, sizeof(v->name), "%s", t->ecmp_name[g]);
		v->n = t->ecmp[g].n;
		memcpy(v->port, t->ecmp[g].port, sizeof(v->port));
		v->mode = t->ecmp[g].mode;
		v->flowlet_us = (uint32_t)((t->ecmp[g].flowlet_tsc * 1000000 +
					    ibex_clock_hz() / 2) /
					   ibex_clock_hz());
	}
	dp->nb_ecmp = t->nb_ecmp;
	pthread_mutex_unlock(&dp->ecmp_lock);
}

int
ibex_dp_ecmp_view(const struct ibex_dp *dp, uint16_t g,
		  struct ibex_dp_ecmp_view *v)
{
	struct ibex_dp *mdp = (struct ibex_dp *)(uintptr_t)dp;
	uint16_t i, k;

	pthread_mutex_lock(&mdp->ecmp_lock);
	if (g >= dp->nb_ecmp) {
		pthread_mutex_unlock(&mdp->ecmp_lock);
		return -ENOENT;
	}
	*v = dp->ecmp_info[g];
	pthread_mutex_unlock(&mdp->ecmp_lock);
	for (i = 0; i < dp->nb_workers; i++) {
		const struct ibex_ecmp_counters *c = &dp->workers[i]->ecmp_cnt[g];

		for (k = 0; k < v->n; k++)
			v->cnt.member[k] += IBEX_CNT_READ(c->member[k]);
		v->cnt.none_up += IBEX_CNT_READ(c->none_up);
		v->cnt.adaptive += IBEX_CNT_READ(c->adaptive);
		v->cnt.moves += IBEX_CNT_READ(c->moves);
	}
	for (k = 0; k < v->n; k++)
		v->frames += v->cnt.member[k];
	return 0;
}
