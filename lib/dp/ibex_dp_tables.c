/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The compiler from a finished configuration to the tables the workers
 * read (struct ibex_dp_tables, ibex_dp_private.h): the one place the
 * config's units become the data path's (TSC ticks, ns, blocks) and the
 * lib/ecn and lib/credit params are built. Called at start
 * (ibex_dp_create()) and for every live change (ibex_dp_reconfigure());
 * what it builds is immutable once published.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_malloc.h>

#include "ibex_clock.h"
#include "ibex_conf.h"
#include "ibex_dp_private.h"
#include "ibex_fc.h"

/* Lane parameters of one port from its (completed) configuration. */
static int
egress_conf_build(struct ibex_dp_egress_conf *ec,
		  const struct ibex_conf_port *cp, uint64_t tsc_hz,
		  char *err, size_t errlen)
{
	unsigned int v;

	ec->shape_bps = cp->shape_bps;
	ec->queue_blocks = cp->vl_queue_blocks;
	ec->nb_vls = cp->nb_vls;
	ec->vlarb = cp->vlarb;
	ec->trim = (struct ibex_trim){ .len = (uint16_t)cp->trim_size,
		.dscp = (uint8_t)cp->trim_dscp, .vl = (uint8_t)cp->trim_vl };
	ec->ecn_on = 0;
	ec->fecn = 0;
	for (v = 0; v < IBEX_VL_COUNT; v++) {
		struct ibex_ecn_cfg cfg = cp->ecn[v].cfg;
		const char *msg = NULL;

		cfg.time_hz = tsc_hz;
		if (ibex_ecn_params_set(&ec->ecn[v], &cfg, &msg) < 0) {
			snprintf(err, errlen, "port %s: ecn vl %u: %s", cp->name,
				 v, msg != NULL ? msg : "invalid");
			return -EINVAL;
		}
		if (cp->ecn[v].enabled)
			ec->ecn_on |= 1u << v;
		if (cp->ecn[v].fecn)
			ec->fecn |= 1u << v;
	}
	return 0;
}

/* The flow-control params of one port, from the config's units (us, ms,
 * bit/s) to the state machines' (ns, Mb/s): the one place they are
 * converted. */
static int
fc_conf_build(struct ibex_dp_tables *t, uint16_t p,
	      const struct ibex_conf_port *cp, char *err, size_t errlen)
{
	struct ibex_dp_fc_conf *f = &t->fc[p];
	uint64_t mbps = RTE_MAX(ibex_conf_port_rate_bps(cp) / 1000000, 1u);
	int ret = 0;

	if (cp->fc_mode == IBEX_FC_CREDIT)
		ret = ibex_credit_params_set(&f->credit, cp->credit_min_gap_ns,
				(uint64_t)cp->credit_period_us * 1000);
	else if (cp->fc_mode == IBEX_FC_PFC)
		ret = ibex_pfc_tx_params_set(&f->pfc_tx, mbps, cp->pfc_quanta,
				(uint64_t)cp->pfc_refresh_margin_us * 1000);
	if (ret == 0 && cp->fc_mode == IBEX_FC_PFC)
		ret = ibex_pfc_rx_params_set(&f->pfc_rx, mbps, cp->wd_action,
				(uint64_t)cp->wd_detect_ms * 1000000,
				(uint64_t)cp->wd_recover_ms * 1000000);
	if (ret < 0) {
		snprintf(err, errlen, "port %s: fc %s parameters refused",
			 cp->name, ibex_fc_mode_name(cp->fc_mode));
		return ret;
	}
	if (cp->fc_mode != IBEX_FC_NONE)
		t->fc_ports |= UINT64_C(1) << p;
	return 0;
}

/* Frame length limits and link-local forwarding of one port. */
static void
link_conf_build(struct ibex_dp_tables *t, uint16_t p,
		const struct ibex_conf_port *cp)
{
	t->frame_max[p] = ibex_conf_port_frame_max(cp);
	t->frame_fast = RTE_MIN(t->frame_fast, t->frame_max[p]);
	t->lldp_to[p] = cp->lldp_to;
	t->stp_to[p] = cp->stp_to;
}

/* The class entry of SL @p sl on ingress port @p cp: the SL with the
 * port's flags (dropped by its SL->VL table, flow control, credit). */
static uint8_t
class_entry(const struct ibex_conf_port *cp, uint8_t sl)
{
	uint8_t e = sl;

	if (ibex_vl_is_drop(ibex_sl2vl(&cp->sl2vl, sl)))
		e |= IBEX_CLASS_IN_DROP;
	if (cp->fc_mode != IBEX_FC_NONE)
		e |= IBEX_CLASS_FC;
	if (cp->fc_mode == IBEX_FC_CREDIT || cp->fc_mode == IBEX_FC_CBFC)
		e |= IBEX_CLASS_CREDIT;
	return e;
}

/* The class entry of each eBPF verdict: an SL with its port's flags, or
 * the drop verdict. */
static void
bpf_class_build(struct ibex_dp_tables *t, uint16_t p,
		const struct ibex_conf_port *cp)
{
	unsigned int s;

	for (s = 0; s < IBEX_SL_COUNT; s++)
		t->bpf_class[p][s] = class_entry(cp, (uint8_t)s);
	t->bpf_class[p][IBEX_SL_COUNT] = IBEX_CLASS_IN_DROP |
					 IBEX_CLASS_BPF_DROP;
}

int
ibex_dp_tables_make(struct ibex_dp_tables **tp, const struct ibex_conf *conf,
	     uint32_t gen, char *err, size_t errlen)
{
	struct ibex_dp_tables *t;
	uint64_t hz = ibex_clock_hz();
	uint16_t p;
	uint32_t vid, i;
	int ret;

	t = rte_zmalloc("ibex_tables", sizeof(*t), RTE_CACHE_LINE_SIZE);
	if (t == NULL) {
		snprintf(err, errlen, "out of memory for tables");
		return -ENOMEM;
	}
	t->gen = gen;
	t->frame_fast = UINT32_MAX;
	for (p = 0; p < conf->nb_ports; p++) {
		/* Finished: its tables are complete (ibex_conf_finish()). */
		const struct ibex_conf_port *cp = &conf->ports[p];

		link_conf_build(t, p, cp);
		t->pvid[p] = cp->pvid;
		if (cp->admin_up)
			t->tx_enabled |= UINT64_C(1) << p;
		if (cp->trusted)
			t->trusted |= UINT64_C(1) << p;
		if (cp->flood)
			t->flood_ports |= UINT64_C(1) << p;
		for (vid = 0; vid < IBEX_VLAN_COUNT; vid++)
			if (ibex_conf_port_in_vlan(cp, vid))
				t->vlan_members[vid] |= UINT64_C(1) << p;
		t->sl_class[p] = cp->sl_class;
		for (i = 0; i < IBEX_SL_MAP_LEN; i++)
			t->sl_class[p].map[i] = class_entry(cp,
						cp->sl_class.map[i]);
		t->sl2vl[p] = cp->sl2vl;
		bpf_class_build(t, p, cp);
		ret = fc_conf_build(t, p, cp, err, errlen);
		if (ret == 0)
			ret = egress_conf_build(&t->eg[p], cp, hz, err,
						errlen);
		if (ret < 0) {
			rte_free(t);
			return ret;
		}
	}
	t->agg.nb_jobs = conf->nb_agg_jobs;
	for (i = 0; i < conf->nb_agg_jobs; i++)
		ibex_dp_agg_job_of(conf, i, &t->agg.job[i]);
	for (i = 0; i < conf->nb_ecmp; i++) {
		/* lib/conf checked the members: this cannot fail. */
		ret = ibex_ecmp_group_build(&t->ecmp[i], conf->ecmp[i].ports,
					    conf->ecmp[i].n);
		if (ret < 0) {
			snprintf(err, errlen, "ecmp %s: bad members",
				 conf->ecmp[i].name);
			rte_free(t);
			return ret;
		}
		snprintf(t->ecmp_name[i], sizeof(t->ecmp_name[i]), "%s",
			 conf->ecmp[i].name);
		t->ecmp[i].mode = conf->ecmp[i].mode;
		t->ecmp[i].flowlet_tsc = (uint64_t)conf->ecmp[i].flowlet_us *
					 hz / 1000000;
		if (conf->ecmp[i].mode != IBEX_ECMP_HASH)
			t->ar_ports |= t->ecmp[i].mask;
	}
	for (p = 0; p < conf->nb_ports; p++)
		t->ar_tpb_q16[p] = (uint32_t)RTE_MIN((double)UINT32_MAX,
			(double)hz * 8 * 65536 /
			(double)ibex_conf_port_rate_bps(&conf->ports[p]));
	t->nb_ecmp = conf->nb_ecmp;
	t->ecmp_seed = conf->ecmp_seed;
	t->vl15_tsc = conf->vl15_rate_pps == 0 ? 0 : hz / conf->vl15_rate_pps;
	t->tx_drain_tsc = (uint64_t)conf->tx_drain_us * hz / 1000000;
	t->learning = conf->fdb_learning;
	/* Refresh a quarter of the ageing time so an active source never
	 * ages out; at least once a second, at most every 100 ms. */
	t->learn_refresh_ms = conf->fdb_ageing_s == 0 ? 1000 :
		RTE_MAX(100u, RTE_MIN(1000u, conf->fdb_ageing_s * 250u));
	*tp = t;
	return 0;
}
