/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The "show" topics (ibex_topics.h, ibex_show.h): per topic its
 * structured output, written once through the emitter (ibex_emit.h) for
 * ibex-ctl --json, telemetry and the final --json, and its text table.
 * Runs on the control thread (ibex-ctl, the final --json) and on DPDK's
 * telemetry threads (then the caller holds the running config's lock and
 * sets ctx->shared); a topic reads only what struct ibex_topic_ctx gives.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "ibex_capture.h"
#include "ibex_capture_cmd.h"
#include "ibex_clock.h"
#include "ibex_conf.h"
#include "ibex_counters.h"
#include "ibex_dp.h"
#include "ibex_emit.h"
#include "ibex_fdb.h"
#include "ibex_hist.h"
#include "ibex_pkt.h"
#include "ibex_rates.h"
#include "ibex_running.h"
#include "ibex_show.h"

/* ---- helpers ---- */

static const char *
fmt_rate(uint64_t bps, char *buf, size_t len)
{
	static const char sfx[] = " kMGT";
	unsigned int i = 0;
	uint64_t v = bps;

	if (bps == 0)
		return "-";
	while (v >= 1000 && v % 1000 == 0 && i < 4) {
		v /= 1000;
		i++;
	}
	snprintf(buf, len, "%" PRIu64 "%.*s", v, i != 0, &sfx[i]);
	return buf;
}

static const char *
wd_name(uint8_t action)
{
	static const char *const n[] = { "off", "alarm", "forward", "drop" };

	return action < RTE_DIM(n) ? n[action] : "?";
}

static unsigned int
port_vls(const struct ibex_conf_port *cp)
{
	return cp->nb_vls != 0 ? cp->nb_vls : 1;
}

static const char *
pname(const struct ibex_topic_ctx *c, uint16_t p)
{
	return c->conf->ports[p].name;
}

static const char *
lane_class(const struct ibex_conf_port *cp, unsigned int vl)
{
	return (cp->lossless_mask >> vl) & 1 ? "lossless" : "lossy";
}

static void
port_counters(const struct ibex_topic_ctx *c, uint16_t p,
	      struct ibex_port_counters *pc)
{
	if (c->rates != NULL)
		ibex_rates_port_since_clear(c->rates, c->dp, p, pc);
	else
		ibex_dp_port_totals(c->dp, p, pc);
}

static int
emit_done(struct ibex_emit *e)
{
	return ibex_emit_finish(e);
}

/* ---- ports ---- */

int
ibex_show_ports_emit(const struct ibex_topic_ctx *c, struct ibex_emit *e)
{
	uint16_t p;

	ibex_emit_obj_begin(e, NULL);
	ibex_emit_list_begin(e, "ports");
	for (p = c->first; p < c->end; p++) {
		const struct ibex_conf_port *cp = &c->conf->ports[p];
		struct ibex_port_counters pc;

		port_counters(c, p, &pc);
		ibex_emit_obj_begin(e, NULL);
		ibex_emit_str(e, "name", cp->name);
		ibex_emit_str(e, "dev", ibex_conf_port_dev(cp));
		ibex_emit_u64(e, "ethdev_port", c->dp->port_id[p]);
		ibex_emit_str(e, "admin", cp->admin_up ? "up" : "down");
		ibex_emit_str(e, "link", ibex_dp_port_link_up(c->dp, p) ?
			      "up" : "down");
		ibex_emit_u64(e, "speed_bps", cp->speed_bps);
		ibex_emit_str(e, "flood", cp->flood ? "on" : "off");
		ibex_port_cnt_emit(e, &pc);
		ibex_emit_obj_end(e);
	}
	ibex_emit_list_end(e);
	ibex_emit_obj_end(e);
	return emit_done(e);
}

int
ibex_show_ports_text(const struct ibex_topic_ctx *c, struct ibex_out *o)
{
	uint16_t p;

	ibex_out_printf(o, "%-12s %-5s %-4s %6s", "port", "admin", "link",
			"speed");
	ibex_cnt_text_head(o, &ibex_port_cnt_set, 0);
	ibex_out_printf(o, "  %-16s %s\n", "dev", "flood");
	for (p = c->first; p < c->end; p++) {
		const struct ibex_conf_port *cp = &c->conf->ports[p];
		uint64_t v[IBEX_PORT_CNT_NB];
		struct ibex_port_counters pc;
		char rate[24];

		port_counters(c, p, &pc);
		ibex_port_cnt_values(&pc, v);
		ibex_out_printf(o, "%-12s %-5s %-4s %6s", cp->name,
				cp->admin_up ? "up" : "down",
				ibex_dp_port_link_up(c->dp, p) ? "up" : "down",
				fmt_rate(cp->speed_bps, rate, sizeof(rate)));
		ibex_cnt_text_row(o, &ibex_port_cnt_set, v, 0);
		ibex_out_printf(o, "  %-16s %s\n", ibex_conf_port_dev(cp),
				cp->flood ? "on" : "off");
	}
	return 0;
}

/* ---- lanes ---- */

int
ibex_show_lanes_emit(const struct ibex_topic_ctx *c, struct ibex_emit *e)
{
	uint16_t p;

	ibex_emit_obj_begin(e, NULL);
	ibex_emit_list_begin(e, "lanes");
	for (p = c->first; p < c->end; p++) {
		const struct ibex_conf_port *cp = &c->conf->ports[p];
		unsigned int vl;

		for (vl = 0; vl < port_vls(cp); vl++) {
			uint64_t v[IBEX_LANE_CNT_NB];
			struct ibex_lane_counters lc;

			ibex_dp_lane_totals(c->dp, p, vl, &lc);
			ibex_lane_cnt_values(&lc, v);
			ibex_emit_obj_begin(e, NULL);
			ibex_emit_str(e, "port", cp->name);
			ibex_emit_u64(e, "vl", vl);
			ibex_emit_str(e, "class", lane_class(cp, vl));
			ibex_cnt_emit(e, &ibex_lane_cnt_set, v, 0);
			ibex_emit_obj_end(e);
		}
	}
	ibex_emit_list_end(e);
	ibex_emit_obj_end(e);
	return emit_done(e);
}

int
ibex_show_lanes_text(const struct ibex_topic_ctx *c, struct ibex_out *o)
{
	uint16_t p;

	ibex_out_printf(o, "%-12s %2s %-8s", "port", "vl", "class");
	ibex_cnt_text_head(o, &ibex_lane_cnt_set, 0);
	ibex_out_printf(o, "\n");
	for (p = c->first; p < c->end; p++) {
		const struct ibex_conf_port *cp = &c->conf->ports[p];
		unsigned int vl;

		for (vl = 0; vl < port_vls(cp); vl++) {
			uint64_t v[IBEX_LANE_CNT_NB];
			struct ibex_lane_counters lc;

			ibex_dp_lane_totals(c->dp, p, vl, &lc);
			ibex_lane_cnt_values(&lc, v);
			ibex_out_printf(o, "%-12s %2u %-8s", cp->name, vl,
					lane_class(cp, vl));
			ibex_cnt_text_row(o, &ibex_lane_cnt_set, v, 0);
			ibex_out_printf(o, "\n");
		}
	}
	return 0;
}

/* ---- credits and pfc: the parameters in force (the running config) and
 * the live flow-control state (ibex_dp_fc_view); the per-lane traffic
 * counters are in lanes. ---- */

int
ibex_show_credits_emit(const struct ibex_topic_ctx *c, struct ibex_emit *e)
{
	uint16_t p;

	ibex_emit_obj_begin(e, NULL);
	ibex_emit_list_begin(e, "credits");
	for (p = c->first; p < c->end; p++) {
		const struct ibex_conf_port *cp = &c->conf->ports[p];
		uint64_t fv[IBEX_FC_CNT_NB], lv[IBEX_FC_LANE_CNT_NB];
		struct ibex_dp_fc_view v;
		unsigned int vl;

		ibex_dp_fc_view(c->dp, p, &v); /* zeroed when no fc */
		ibex_fc_cnt_values(&v, fv);
		for (vl = 0; vl < port_vls(cp); vl++) {
			ibex_fc_lane_cnt_values(&v, vl, lv);
			ibex_emit_obj_begin(e, NULL);
			ibex_emit_str(e, "port", cp->name);
			ibex_emit_str(e, "fc", ibex_fc_mode_name(cp->fc_mode));
			ibex_emit_u64(e, "vl", vl);
			ibex_emit_str(e, "class", lane_class(cp, vl));
			ibex_emit_u64(e, "reserved_blocks",
				      ibex_conf_lane_reserved_blocks(cp, vl));
			ibex_emit_u64(e, "credit_period_us",
				      cp->credit_period_us);
			ibex_emit_u64(e, "min_gap_ns", cp->credit_min_gap_ns);
			ibex_cnt_emit(e, &ibex_fc_lane_cnt_set, lv, 0);
			ibex_cnt_emit(e, &ibex_fc_cnt_set, fv,
				      IBEX_FC_CNT_CREDIT);
			ibex_emit_obj_end(e);
		}
	}
	ibex_emit_list_end(e);
	ibex_emit_obj_end(e);
	return emit_done(e);
}

int
ibex_show_credits_text(const struct ibex_topic_ctx *c, struct ibex_out *o)
{
	uint16_t p;

	ibex_out_printf(o, "%-12s %-6s %2s %-8s %15s %16s %10s", "port", "fc",
			"vl", "class", "reserved-blocks", "credit-period-us",
			"min-gap-ns");
	ibex_cnt_text_head(o, &ibex_fc_lane_cnt_set, 0);
	ibex_cnt_text_head(o, &ibex_fc_cnt_set, IBEX_FC_CNT_CREDIT);
	ibex_out_printf(o, "\n");
	for (p = c->first; p < c->end; p++) {
		const struct ibex_conf_port *cp = &c->conf->ports[p];
		uint64_t fv[IBEX_FC_CNT_NB], lv[IBEX_FC_LANE_CNT_NB];
		struct ibex_dp_fc_view v;
		unsigned int vl;

		ibex_dp_fc_view(c->dp, p, &v);
		ibex_fc_cnt_values(&v, fv);
		for (vl = 0; vl < port_vls(cp); vl++) {
			ibex_fc_lane_cnt_values(&v, vl, lv);
			ibex_out_printf(o, "%-12s %-6s %2u %-8s %15u %16u %10u",
					cp->name, ibex_fc_mode_name(cp->fc_mode), vl,
					lane_class(cp, vl),
					ibex_conf_lane_reserved_blocks(cp, vl),
					cp->credit_period_us,
					cp->credit_min_gap_ns);
			ibex_cnt_text_row(o, &ibex_fc_lane_cnt_set, lv, 0);
			ibex_cnt_text_row(o, &ibex_fc_cnt_set, fv,
					  IBEX_FC_CNT_CREDIT);
			ibex_out_printf(o, "\n");
		}
	}
	return 0;
}

/* The largest of a port's per-lane figures (its high-water marks). */
static uint32_t
view_max(const uint32_t *lane)
{
	uint32_t m = 0;
	unsigned int vl;

	for (vl = 0; vl < IBEX_VL_COUNT; vl++)
		m = RTE_MAX(m, lane[vl]);
	return m;
}

int
ibex_show_pfc_emit(const struct ibex_topic_ctx *c, struct ibex_emit *e)
{
	uint16_t p;

	ibex_emit_obj_begin(e, NULL);
	ibex_emit_list_begin(e, "pfc");
	for (p = c->first; p < c->end; p++) {
		const struct ibex_conf_port *cp = &c->conf->ports[p];
		uint64_t fv[IBEX_FC_CNT_NB];
		struct ibex_dp_fc_view v;
		unsigned int i;
		char k[24];

		ibex_dp_fc_view(c->dp, p, &v); /* zeroed when no fc */
		ibex_fc_cnt_values(&v, fv);
		ibex_emit_obj_begin(e, NULL);
		ibex_emit_str(e, "port", cp->name);
		ibex_emit_str(e, "fc", ibex_fc_mode_name(cp->fc_mode));
		ibex_emit_u64(e, "lossless_mask", cp->lossless_mask);
		ibex_emit_bool(e, "headroom_auto", cp->pfc_headroom_auto);
		ibex_emit_u64(e, "headroom_blocks", cp->pfc_headroom_blocks);
		ibex_emit_u64(e, "cable_m", cp->pfc_cable_m);
		ibex_emit_u64(e, "proc_ns", cp->pfc_proc_ns);
		ibex_emit_u64(e, "xoff_blocks", cp->pfc_xoff_blocks);
		ibex_emit_u64(e, "xon_gap_blocks", cp->pfc_xon_gap_blocks);
		ibex_emit_u64(e, "quanta", cp->pfc_quanta);
		ibex_emit_u64(e, "refresh_margin_us", cp->pfc_refresh_margin_us);
		ibex_emit_bool(e, "hw", cp->pfc_hw);
		ibex_emit_str(e, "watchdog", wd_name(cp->wd_action));
		ibex_emit_u64(e, "wd_detect_ms", cp->wd_detect_ms);
		ibex_emit_u64(e, "wd_recover_ms", cp->wd_recover_ms);
		ibex_emit_u64(e, "paused_vls", v.paused_vls);
		ibex_emit_u64(e, "wd_drop_vls", v.wd_drop_vls);
		ibex_cnt_emit(e, &ibex_fc_cnt_set, fv, IBEX_FC_CNT_PFC);
		for (i = 0; i < RTE_DIM(v.paused_ns); i++) {
			snprintf(k, sizeof(k), "paused_ns_p%u", i);
			ibex_emit_u64(e, k, v.paused_ns[i]);
		}
		ibex_emit_u64(e, "buf_peak_blocks", view_max(v.buf_peak));
		ibex_emit_u64(e, "headroom_peak_blocks", view_max(v.hr_peak));
		ibex_emit_obj_end(e);
	}
	ibex_emit_list_end(e);
	ibex_emit_obj_end(e);
	return emit_done(e);
}

int
ibex_show_pfc_text(const struct ibex_topic_ctx *c, struct ibex_out *o)
{
	uint16_t p;

	ibex_out_printf(o, "%-12s %-6s %-8s %9s %8s %8s %7s %9s %6s %-7s %9s "
			"%10s %6s", "port", "fc", "lossless", "headroom", "xoff",
			"xon-gap", "quanta", "refresh", "hw", "wd", "wd-detect",
			"wd-recover", "paused");
	ibex_cnt_text_head(o, &ibex_fc_cnt_set, IBEX_FC_CNT_PFC);
	ibex_out_printf(o, " %8s %7s\n", "buf-peak", "hr-peak");
	for (p = c->first; p < c->end; p++) {
		const struct ibex_conf_port *cp = &c->conf->ports[p];
		uint64_t fv[IBEX_FC_CNT_NB];
		struct ibex_dp_fc_view v;
		char hr[16];

		ibex_dp_fc_view(c->dp, p, &v);
		ibex_fc_cnt_values(&v, fv);
		if (cp->pfc_headroom_auto)
			snprintf(hr, sizeof(hr), "auto");
		else
			snprintf(hr, sizeof(hr), "%u", cp->pfc_headroom_blocks);
		ibex_out_printf(o, "%-12s %-6s 0x%04x   %9s %8u %8u %7u %9u "
				"%6s %-7s %9u %10u 0x%04x", cp->name,
				ibex_fc_mode_name(cp->fc_mode), cp->lossless_mask, hr,
				cp->pfc_xoff_blocks, cp->pfc_xon_gap_blocks,
				cp->pfc_quanta, cp->pfc_refresh_margin_us,
				cp->pfc_hw ? "on" : "off",
				wd_name(cp->wd_action), cp->wd_detect_ms,
				cp->wd_recover_ms, v.paused_vls);
		ibex_cnt_text_row(o, &ibex_fc_cnt_set, fv, IBEX_FC_CNT_PFC);
		ibex_out_printf(o, " %8u %7u\n", view_max(v.buf_peak),
				view_max(v.hr_peak));
	}
	return 0;
}

/* ---- cbfc: UEC CBFC ports, their settings and SAI's counters, a row
 * per lossless VC (docs/cbfc.md) ---- */

/* VC @p vc's credit profile and the pool it shares, as the `cbfc <port>`
 * statements name them ("-" without a profile), from the configuration:
 * restart-only, so what runs. */
static void
cbfc_vc_names(const struct ibex_conf_port *cp, unsigned int vc, char *pf,
	      char *pool, size_t len)
{
	const struct ibex_conf_cbfc_profile *f;

	if (cp->cbfc_vc_profile[vc] == 0) {
		snprintf(pf, len, "-");
		snprintf(pool, len, "-");
		return;
	}
	f = &cp->cbfc_profile[cp->cbfc_vc_profile[vc] - 1];
	snprintf(pf, len, "%u", cp->cbfc_vc_profile[vc] - 1u);
	if (f->pool == IBEX_CBFC_PORT_POOL)
		snprintf(pool, len, "port");
	else
		snprintf(pool, len, "%u", f->pool);
}

/* The pools the port's VCs share: each defined one, and the port's
 * credits when a profile names them. */
static void
cbfc_emit_pools(struct ibex_emit *e, const struct ibex_conf_port *cp,
		const struct ibex_dp_cbfc_view *v)
{
	unsigned int i, port = 0;
	char name[8];

	for (i = 0; i < IBEX_CBFC_MAX_PROFILES; i++)
		port |= cp->cbfc_profile[i].set &&
			cp->cbfc_profile[i].pool == IBEX_CBFC_PORT_POOL;
	ibex_emit_list_begin(e, "pools");
	for (i = 0; i <= IBEX_CBFC_MAX_POOLS; i++) {
		if (i < IBEX_CBFC_MAX_POOLS ? cp->cbfc_pool_size[i] == 0 : !port)
			continue;
		ibex_emit_obj_begin(e, NULL);
		if (i < IBEX_CBFC_MAX_POOLS)
			snprintf(name, sizeof(name), "%u", i);
		ibex_emit_str(e, "pool", i < IBEX_CBFC_MAX_POOLS ? name : "port");
		ibex_emit_u64(e, "size", i < IBEX_CBFC_MAX_POOLS ?
			      cp->cbfc_pool_size[i] : cp->cbfc_port_limit);
		ibex_emit_u64(e, "shared", v->pool_shared[i]);
		ibex_emit_u64(e, "used", v->pool_used[i]);
		ibex_emit_obj_end(e);
	}
	ibex_emit_list_end(e);
}

int
ibex_show_cbfc_emit(const struct ibex_topic_ctx *c, struct ibex_emit *e)
{
	uint16_t p;

	ibex_emit_obj_begin(e, NULL);
	ibex_emit_list_begin(e, "cbfc");
	for (p = c->first; p < c->end; p++) {
		const struct ibex_conf_port *cp = &c->conf->ports[p];
		uint64_t pv[IBEX_CBFC_CNT_NB], vv[IBEX_CBFC_VC_CNT_NB];
		struct ibex_dp_fc_view v;
		unsigned int vc;

		if (cp->fc_mode != IBEX_FC_CBFC)
			continue;
		ibex_dp_fc_view(c->dp, p, &v);
		ibex_cbfc_cnt_values(&v.cbfc, pv);
		ibex_emit_obj_begin(e, NULL);
		ibex_emit_str(e, "port", cp->name);
		ibex_emit_u64(e, "credit_size", cp->cbfc_credit_size);
		ibex_emit_i64(e, "overhead", cp->cbfc_overhead);
		ibex_emit_u64(e, "cc_timer_us", cp->cbfc_cc_timer_us);
		ibex_emit_u64(e, "cf_min_spacing", cp->cbfc_cf_min_spacing);
		ibex_emit_u64(e, "cf_max_spacing", cp->cbfc_cf_max_spacing);
		ibex_emit_u64(e, "port_limit", cp->cbfc_port_limit);
		ibex_cnt_emit(e, &ibex_cbfc_cnt_set, pv, 0);
		cbfc_emit_pools(e, cp, &v.cbfc);
		ibex_emit_list_begin(e, "vcs");
		for (vc = 0; vc < port_vls(cp); vc++) {
			char pf[8], pool[8];

			if (!(cp->lossless_mask >> vc & 1))
				continue;
			ibex_cbfc_vc_cnt_values(&v.cbfc, vc, vv);
			cbfc_vc_names(cp, vc, pf, pool, sizeof(pf));
			ibex_emit_obj_begin(e, NULL);
			ibex_emit_u64(e, "vc", vc);
			ibex_emit_i64(e, "profile", (int)cp->cbfc_vc_profile[vc] - 1);
			ibex_emit_str(e, "pool", cp->cbfc_vc_profile[vc] == 0 ?
				      "none" : pool);
			ibex_cnt_emit(e, &ibex_cbfc_vc_cnt_set, vv, 0);
			ibex_emit_obj_end(e);
		}
		ibex_emit_list_end(e);
		ibex_emit_obj_end(e);
	}
	ibex_emit_list_end(e);
	ibex_emit_obj_end(e);
	return emit_done(e);
}

int
ibex_show_cbfc_text(const struct ibex_topic_ctx *c, struct ibex_out *o)
{
	uint16_t p;

	ibex_out_printf(o, "%-12s %2s %2s %4s", "port", "vc", "pf", "pool");
	ibex_cnt_text_head(o, &ibex_cbfc_vc_cnt_set, 0);
	ibex_cnt_text_head(o, &ibex_cbfc_cnt_set, 0);
	ibex_out_printf(o, "\n");
	for (p = c->first; p < c->end; p++) {
		const struct ibex_conf_port *cp = &c->conf->ports[p];
		uint64_t pv[IBEX_CBFC_CNT_NB], vv[IBEX_CBFC_VC_CNT_NB];
		struct ibex_dp_fc_view v;
		unsigned int vc;

		if (cp->fc_mode != IBEX_FC_CBFC)
			continue;
		ibex_dp_fc_view(c->dp, p, &v);
		ibex_cbfc_cnt_values(&v.cbfc, pv);
		for (vc = 0; vc < port_vls(cp); vc++) {
			char pf[8], pool[8];

			if (!(cp->lossless_mask >> vc & 1))
				continue;
			ibex_cbfc_vc_cnt_values(&v.cbfc, vc, vv);
			cbfc_vc_names(cp, vc, pf, pool, sizeof(pf));
			ibex_out_printf(o, "%-12s %2u %2s %4s", cp->name, vc, pf,
					pool);
			ibex_cnt_text_row(o, &ibex_cbfc_vc_cnt_set, vv, 0);
			ibex_cnt_text_row(o, &ibex_cbfc_cnt_set, pv, 0);
			ibex_out_printf(o, "\n");
		}
	}
	return 0;
}

/* ---- ecn: the curves as the workers run them (the published tables),
 * with the lanes' counters ---- */

int
ibex_show_ecn_emit(const struct ibex_topic_ctx *c, struct ibex_emit *e)
{
	uint16_t p;

	ibex_emit_obj_begin(e, NULL);
	ibex_emit_list_begin(e, "ecn");
	for (p = c->first; p < c->end; p++) {
		struct ibex_dp_ecn_view ev;
		unsigned int vl;

		for (vl = 0; ibex_dp_ecn_view(c->dp, p, vl, &ev) == 0; vl++) {
			struct ibex_lane_counters lc;

			ibex_dp_lane_totals(c->dp, p, vl, &lc);
			ibex_emit_obj_begin(e, NULL);
			ibex_emit_str(e, "port", pname(c, p));
			ibex_emit_u64(e, "vl", vl);
			ibex_emit_bool(e, "enabled", ev.on);
			ibex_emit_u64(e, "kmin", ev.kmin);
			ibex_emit_u64(e, "kmax", ev.kmax);
			/* 9 digits: the curve's 2^-32 steps show as the
			 * value configured. */
			ibex_emit_double(e, "pmax", ev.pmax, 9);
			ibex_emit_u64(e, "wq_log", ev.wq_log);
			ibex_emit_bool(e, "fecn", ev.fecn);
			ibex_emit_u64(e, "not_ect_seen", lc.ecn_seen[0]);
			ibex_emit_u64(e, "ect_seen",
				      ibex_ecn_ect_seen(lc.ecn_seen));
			ibex_emit_u64(e, "ce_seen", lc.ecn_seen[3]);
			ibex_emit_u64(e, "marked", lc.ecn_marked);
			ibex_emit_u64(e, "fecn_marked", lc.fecn_marked);
			ibex_emit_obj_end(e);
		}
	}
	ibex_emit_list_end(e);
	ibex_emit_obj_end(e);
	return emit_done(e);
}

int
ibex_show_ecn_text(const struct ibex_topic_ctx *c, struct ibex_out *o)
{
	uint16_t p;

	ibex_out_printf(o, "%-12s %2s %-3s %10s %10s %6s %3s %-4s %12s %12s "
			"%10s\n", "port", "vl", "on", "kmin", "kmax", "pmax",
			"wq", "fecn", "ect-seen", "ce-seen", "marked");
	for (p = c->first; p < c->end; p++) {
		struct ibex_dp_ecn_view ev;
		unsigned int vl;

		for (vl = 0; ibex_dp_ecn_view(c->dp, p, vl, &ev) == 0; vl++) {
			struct ibex_lane_counters lc;

			ibex_dp_lane_totals(c->dp, p, vl, &lc);
			ibex_out_printf(o, "%-12s %2u %-3s %10u %10u %6.3f %3u "
				"%-4s %12" PRIu64 " %12" PRIu64 " %10" PRIu64
				"\n", pname(c, p), vl, ev.on ? "on" : "off",
				ev.kmin, ev.kmax, ev.pmax, ev.wq_log,
				ev.fecn ? "on" : "off",
				ibex_ecn_ect_seen(lc.ecn_seen), lc.ecn_seen[3],
				lc.ecn_marked);
		}
	}
	return 0;
}

/* ---- latency: residence time of each lane's frames, queued or cut
 * through, in ns ---- */

static uint64_t
tsc_to_ns(uint64_t t)
{
	return (uint64_t)((double)t * 1e9 / (double)ibex_clock_hz());
}

struct lat_row {
	uint64_t count, min, p50, p99, p999, max;
};

static bool
latency_read(const struct ibex_topic_ctx *c, uint16_t p, unsigned int vl,
	     bool queued, struct lat_row *r)
{
	struct ibex_hist *h = c->hist;

	ibex_hist_init(h);
	if (ibex_dp_residence(c->dp, p, vl, queued, h) < 0 ||
	    ibex_hist_count(h) == 0)
		return false;
	r->count = ibex_hist_count(h);
	r->min = tsc_to_ns(ibex_hist_min(h));
	r->p50 = tsc_to_ns(ibex_hist_quantile(h, 0.5));
	r->p99 = tsc_to_ns(ibex_hist_quantile(h, 0.99));
	r->p999 = tsc_to_ns(ibex_hist_quantile(h, 0.999));
	r->max = tsc_to_ns(ibex_hist_max(h));
	return true;
}

int
ibex_show_latency_emit(const struct ibex_topic_ctx *c, struct ibex_emit *e)
{
	uint16_t p;

	ibex_emit_obj_begin(e, NULL);
	ibex_emit_list_begin(e, "latency");
	for (p = c->first; p < c->end; p++) {
		unsigned int vl, q;

		for (vl = 0; vl < port_vls(&c->conf->ports[p]); vl++)
			for (q = 0; q < 2; q++) {
				struct lat_row r;

				if (!latency_read(c, p, vl, q, &r))
					continue;
				ibex_emit_obj_begin(e, NULL);
				ibex_emit_str(e, "port", pname(c, p));
				ibex_emit_u64(e, "vl", vl);
				ibex_emit_str(e, "path", q ? "queued" :
					      "cut-through");
				ibex_emit_u64(e, "frames", r.count);
				ibex_emit_dur_ns(e, "min_ns", r.min);
				ibex_emit_dur_ns(e, "p50_ns", r.p50);
				ibex_emit_dur_ns(e, "p99_ns", r.p99);
				ibex_emit_dur_ns(e, "p999_ns", r.p999);
				ibex_emit_dur_ns(e, "max_ns", r.max);
				ibex_emit_obj_end(e);
			}
	}
	ibex_emit_list_end(e);
	ibex_emit_obj_end(e);
	return emit_done(e);
}

int
ibex_show_latency_text(const struct ibex_topic_ctx *c, struct ibex_out *o)
{
	uint16_t p;

	ibex_out_printf(o, "%-12s %2s %-11s %12s %10s %10s %10s %10s %10s\n",
			"port", "vl", "path", "frames", "min-ns", "p50-ns",
			"p99-ns", "p99.9-ns", "max-ns");
	for (p = c->first; p < c->end; p++) {
		unsigned int vl, q;

		for (vl = 0; vl < port_vls(&c->conf->ports[p]); vl++)
			for (q = 0; q < 2; q++) {
				struct lat_row r;

				if (!latency_read(c, p, vl, q, &r))
					continue;
				ibex_out_printf(o, "%-12s %2u %-11s %12" PRIu64
					" %10" PRIu64 " %10" PRIu64 " %10" PRIu64
					" %10" PRIu64 " %10" PRIu64 "\n",
					pname(c, p), vl,
					q ? "queued" : "cut-through", r.count,
					r.min, r.p50, r.p99, r.p999, r.max);
			}
	}
	return 0;
}

/* ---- drops and reasons ---- */

int
ibex_show_drops_emit(const struct ibex_topic_ctx *c, struct ibex_emit *e)
{
	uint16_t p;

	ibex_emit_obj_begin(e, NULL);
	ibex_emit_obj_begin(e, "drops");
	for (p = c->first; p < c->end; p++) {
		struct ibex_port_counters pc;
		unsigned int r;

		ibex_dp_port_totals(c->dp, p, &pc);
		ibex_emit_obj_begin(e, pname(c, p));
		for (r = 1; r < IBEX_R_MAX; r++)
			if (pc.drop[r] != 0)
				ibex_emit_u64(e, ibex_reason_name(r), pc.drop[r]);
		ibex_emit_obj_end(e);
	}
	ibex_emit_obj_end(e);
	ibex_emit_obj_end(e);
	return emit_done(e);
}

int
ibex_show_drops_text(const struct ibex_topic_ctx *c, struct ibex_out *o)
{
	uint16_t p;

	ibex_out_printf(o, "%-12s %-18s %14s  %s\n", "port", "reason", "frames",
			"meaning");
	for (p = c->first; p < c->end; p++) {
		struct ibex_port_counters pc;
		unsigned int r;

		ibex_dp_port_totals(c->dp, p, &pc);
		for (r = 1; r < IBEX_R_MAX; r++)
			if (pc.drop[r] != 0)
				ibex_out_printf(o, "%-12s %-18s %14" PRIu64
						"  %s\n", pname(c, p),
						ibex_reason_name(r), pc.drop[r],
						ibex_reason_help(r));
	}
	return 0;
}

int
ibex_show_reasons_emit(const struct ibex_topic_ctx *c __rte_unused,
		       struct ibex_emit *e)
{
	unsigned int r;

	ibex_emit_obj_begin(e, NULL);
	ibex_emit_obj_begin(e, "reasons");
	for (r = 1; r < IBEX_R_MAX; r++)
		ibex_emit_str(e, ibex_reason_name(r), ibex_reason_help(r));
	ibex_emit_obj_end(e);
	ibex_emit_obj_end(e);
	return emit_done(e);
}

int
ibex_show_reasons_text(const struct ibex_topic_ctx *c __rte_unused,
		       struct ibex_out *o)
{
	unsigned int r;

	ibex_out_printf(o, "%-18s  %s\n", "reason", "meaning");
	for (r = 1; r < IBEX_R_MAX; r++)
		ibex_out_printf(o, "%-18s  %s\n", ibex_reason_name(r),
				ibex_reason_help(r));
	return 0;
}

/* ---- fdb: the counters and the entries (a page of them: telemetry's
 * replies are at most 16 kB) ---- */

struct fdb_walk {
	const struct ibex_topic_ctx *c;
	struct ibex_emit *e;     /* NULL: text into o */
	struct ibex_out *o;
	int port;                /* -1: all */
	uint32_t now_ms;
	uint32_t seen;           /* entries of the port walked */
	uint32_t listed;
};

static int
fdb_one(const struct ibex_fdb_entry *fe, void *arg)
{
	struct fdb_walk *w = arg;
	const struct ibex_topic_ctx *c = w->c;
	const char *pn = ibex_conf_egress_name(c->conf, fe->port);
	bool group = ibex_egress_is_ecmp(fe->port);
	char mac[32];

	if (w->port >= 0 && fe->port != w->port)
		return 0;
	if (w->seen++ < c->fdb_offset)
		return 0;
	if (c->fdb_count != 0 && w->listed == c->fdb_count)
		return 1; /* one past the page: there is a next one */
	w->listed++;
	ibex_mac_format(fe->mac, mac, sizeof(mac));
	if (w->e == NULL)
		return ibex_out_printf(w->o, "%-17s %5u %s%-*s %s\n", mac,
				       fe->vid, group ? "ecmp:" : "",
				       group ? 7 : 12, pn,
				       fe->is_static ? "static" : "learned")
		       < 0;
	ibex_emit_obj_begin(w->e, NULL);
	ibex_emit_str(w->e, "mac", mac);
	ibex_emit_u64(w->e, "vlan", fe->vid);
	ibex_emit_str(w->e, group ? "ecmp" : "port", pn);
	ibex_emit_bool(w->e, "static", fe->is_static);
	if (!fe->is_static)
		ibex_emit_u64(w->e, "age_ms", w->now_ms - fe->last_seen_ms);
	ibex_emit_obj_end(w->e);
	return 0;
}

static int
fdb_port(const struct ibex_topic_ctx *c)
{
	return c->end - c->first == 1 ? c->first : -1;
}

int
ibex_show_fdb_emit(const struct ibex_topic_ctx *c, struct ibex_emit *e)
{
	struct fdb_walk w = {
		.c = c, .e = e, .port = fdb_port(c),
		.now_ms = ibex_dp_clock_ms(c->dp, ibex_clock_now()),
	};
	struct ibex_fdb_stats st;
	int ret;

	ibex_fdb_get_stats(c->dp->fdb, &st);
	ibex_emit_obj_begin(e, NULL);
	ibex_fdb_cnt_emit(e, &st);
	ibex_emit_u64(e, "offset", c->fdb_offset);
	ibex_emit_list_begin(e, "table");
	ret = ibex_fdb_foreach(c->dp->fdb, fdb_one, &w);
	ibex_emit_list_end(e);
	ibex_emit_u64(e, "count", w.listed);
	ibex_emit_i64(e, "next", ret == 1 ?
		      (int64_t)c->fdb_offset + w.listed : -1);
	ibex_emit_obj_end(e);
	return ret < 0 ? ret : emit_done(e);
}

int
ibex_show_fdb_text(const struct ibex_topic_ctx *c, struct ibex_out *o)
{
	struct fdb_walk w = { .c = c, .o = o, .port = fdb_port(c) };
	struct ibex_fdb_stats st;

	ibex_fdb_get_stats(c->dp->fdb, &st);
	ibex_out_printf(o, "%-17s %5s %-12s %s\n", "mac", "vlan", "port",
			"type");
	ibex_fdb_foreach(c->dp->fdb, fdb_one, &w);
	ibex_fdb_cnt_text(o, &st);
	ibex_out_printf(o, "\n");
	return 0;
}

/* ---- config and history: what the running config's owner keeps ---- */

static const char *
running_text(const struct ibex_topic_ctx *c)
{
	return c->run != NULL ? ibex_running_text(c->run) : "";
}

int
ibex_show_config_emit(const struct ibex_topic_ctx *c, struct ibex_emit *e)
{
	const char *t = running_text(c);

	ibex_emit_obj_begin(e, NULL);
	ibex_emit_str(e, "origin", c->conf->origin);
	ibex_emit_list_begin(e, "statements");
	while (*t != '\0') {
		const char *nl = strchr(t, '\n');
		size_t n = nl != NULL ? (size_t)(nl - t) : strlen(t);
		char line[IBEX_CONF_LINE_MAX + 1];

		snprintf(line, sizeof(line), "%.*s", (int)n, t);
		ibex_emit_str(e, NULL, line);
		t += n + (nl != NULL);
	}
	ibex_emit_list_end(e);
	ibex_emit_obj_end(e);
	return emit_done(e);
}

int
ibex_show_config_text(const struct ibex_topic_ctx *c, struct ibex_out *o)
{
	ibex_out_printf(o, "# %s with the live changes applied: each statement "
			"once, as in effect (changes: show history)\n%s",
			c->conf->origin, running_text(c));
	return 0;
}

/* The newest IBEX_RUNNING_HISTORY accepted changes, oldest first. */
static uint64_t
hist_changes(const struct ibex_topic_ctx *c)
{
	return c->run != NULL ? ibex_running_changes(c->run) : 0;
}

static uint64_t
hist_first(uint64_t n)
{
	return n > IBEX_RUNNING_HISTORY ? n - IBEX_RUNNING_HISTORY : 0;
}

static const char *
hist_entry(const struct ibex_topic_ctx *c, uint64_t i, char *when, size_t len)
{
	time_t t = 0;
	const char *st = ibex_running_history(c->run, i + 1, &t);

	strftime(when, len, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
	return st != NULL ? st : "?";
}

int
ibex_show_history_emit(const struct ibex_topic_ctx *c, struct ibex_emit *e)
{
	uint64_t i, n = hist_changes(c);

	ibex_emit_obj_begin(e, NULL);
	ibex_emit_u64(e, "changes", n);
	ibex_emit_u64(e, "kept", IBEX_RUNNING_HISTORY);
	ibex_emit_list_begin(e, "history");
	for (i = hist_first(n); i < n; i++) {
		char when[32];
		const char *st = hist_entry(c, i, when, sizeof(when));

		ibex_emit_obj_begin(e, NULL);
		ibex_emit_u64(e, "seq", i + 1);
		ibex_emit_str(e, "time", when);
		ibex_emit_str(e, "statement", st);
		ibex_emit_obj_end(e);
	}
	ibex_emit_list_end(e);
	ibex_emit_obj_end(e);
	return emit_done(e);
}

int
ibex_show_history_text(const struct ibex_topic_ctx *c, struct ibex_out *o)
{
	uint64_t i, n = hist_changes(c);

	ibex_out_printf(o, "# %" PRIu64 " changes accepted; the last %u are "
			"kept\n", n, IBEX_RUNNING_HISTORY);
	for (i = hist_first(n); i < n; i++) {
		char when[32];
		const char *st = hist_entry(c, i, when, sizeof(when));

		ibex_out_printf(o, "%" PRIu64 " %s %s\n", i + 1, when, st);
	}
	return 0;
}

/* ---- workers ---- */

int
ibex_show_workers_emit(const struct ibex_topic_ctx *c, struct ibex_emit *e)
{
	uint16_t i, q;

	ibex_emit_obj_begin(e, NULL);
	ibex_emit_list_begin(e, "workers");
	for (i = 0; i < c->dp->nb_workers; i++) {
		struct ibex_dp_worker_view w;

		if (ibex_dp_worker_view(c->dp, i, &w) < 0)
			break;
		ibex_emit_obj_begin(e, NULL);
		ibex_emit_u64(e, "worker", i);
		ibex_emit_u64(e, "lcore", w.lcore);
		ibex_emit_u64(e, "iterations", w.iterations);
		ibex_emit_u64(e, "busy_iterations", w.busy_iterations);
		ibex_emit_u64(e, "busy_cycles", w.busy_tsc);
		ibex_emit_list_begin(e, "rx_queues");
		for (q = 0; q < w.nb_rxq; q++) {
			char pq[IBEX_NAME_LEN + 12];

			snprintf(pq, sizeof(pq), "%s:%u",
				 pname(c, w.rxq[q].port), w.rxq[q].queue);
			ibex_emit_str(e, NULL, pq);
		}
		ibex_emit_list_end(e);
		ibex_emit_obj_end(e);
	}
	ibex_emit_list_end(e);
	ibex_emit_obj_end(e);
	return emit_done(e);
}

int
ibex_show_workers_text(const struct ibex_topic_ctx *c, struct ibex_out *o)
{
	uint16_t i, q;

	ibex_out_printf(o, "%-6s %5s %16s %16s %18s  %s\n", "worker", "lcore",
			"iterations", "busy-iterations", "busy-cycles",
			"rx-queues");
	for (i = 0; i < c->dp->nb_workers; i++) {
		struct ibex_dp_worker_view w;

		if (ibex_dp_worker_view(c->dp, i, &w) < 0)
			break;
		ibex_out_printf(o, "%-6u %5u %16" PRIu64 " %16" PRIu64 " %18"
				PRIu64 " ", i, w.lcore, w.iterations,
				w.busy_iterations, w.busy_tsc);
		for (q = 0; q < w.nb_rxq; q++)
			ibex_out_printf(o, " %s:%u", pname(c, w.rxq[q].port),
					w.rxq[q].queue);
		ibex_out_printf(o, "\n");
	}
	return 0;
}

/* ---- rates: ibex_rates.c renders its own (control thread only: the
 * samples are its state) ---- */

int
ibex_show_rates_emit(const struct ibex_topic_ctx *c, struct ibex_emit *e)
{
	/* JSON only: the rates keep their samples on the control thread
	 * and are in no other back end (no telemetry row). */
	if (e->ops != NULL || c->rates == NULL)
		return -ENOTSUP;
	ibex_rates_show(c->rates, c->dp, c->conf, true, e->o);
	return e->o->oom ? -ENOMEM : 0;
}

int
ibex_show_rates_text(const struct ibex_topic_ctx *c, struct ibex_out *o)
{
	if (c->rates == NULL)
		return -ENOTSUP;
	ibex_rates_show(c->rates, c->dp, c->conf, false, o);
	return 0;
}

/* ---- bpf: what runs on each port and its verdicts (counters since
 * start, whatever program ran); ports without one are listed too ---- */

int
ibex_show_bpf_emit(const struct ibex_topic_ctx *c, struct ibex_emit *e)
{
	unsigned int sl;
	uint16_t p;

	ibex_emit_obj_begin(e, NULL);
	ibex_emit_obj_begin(e, "bpf");
	for (p = c->first; p < c->end; p++) {
		struct ibex_dp_bpf_view v;

		if (ibex_dp_bpf_view(c->dp, p, &v) < 0)
			continue;
		ibex_emit_obj_begin(e, pname(c, p));
		ibex_emit_bool(e, "on", v.on);
		ibex_emit_str(e, "file", v.file);
		ibex_emit_str(e, "section", v.section);
		ibex_emit_str(e, "function", v.name);
		ibex_emit_bool(e, "jit", v.jit);
		ibex_emit_bool(e, "btf", v.btf);
		ibex_emit_u64(e, "insns", v.nb_insns);
		ibex_emit_dur_ns(e, "load_ns", v.load_ns);
		ibex_emit_i64(e, "loaded_at", v.loaded_at);
		ibex_emit_u64(e, "frames", v.runs);
		ibex_emit_u64(e, "default", v.cnt.deflt);
		ibex_emit_u64(e, "drops", v.cnt.drops);
		ibex_emit_u64(e, "bad", v.cnt.bad);
		ibex_emit_list_begin(e, "sl");
		for (sl = 0; sl < IBEX_SL_COUNT; sl++)
			ibex_emit_u64(e, NULL, v.cnt.sl[sl]);
		ibex_emit_list_end(e);
		ibex_emit_obj_end(e);
	}
	ibex_emit_obj_end(e);
	ibex_emit_obj_end(e);
	return emit_done(e);
}

int
ibex_show_bpf_text(const struct ibex_topic_ctx *c, struct ibex_out *o)
{
	unsigned int sl;
	uint16_t p;

	ibex_out_printf(o, "%-12s %-8s %6s %8s %12s %10s %10s %6s  %s\n", "port",
			"mode", "insns", "load-us", "frames", "default", "drops",
			"bad", "program");
	for (p = c->first; p < c->end; p++) {
		struct ibex_dp_bpf_view v;

		if (ibex_dp_bpf_view(c->dp, p, &v) < 0)
			continue;
		ibex_out_printf(o, "%-12s %-8s %6u %8" PRIu64 " %12" PRIu64
				" %10" PRIu64 " %10" PRIu64 " %6" PRIu64
				"  %s%s%s\n", pname(c, p),
				!v.on ? "-" : v.jit ? "jit" : "interp",
				v.nb_insns, v.load_ns / 1000, v.runs,
				v.cnt.deflt, v.cnt.drops, v.cnt.bad,
				v.on ? v.file : "(built-in classifier)",
				v.on ? ":" : "", v.on ? v.section : "");
		for (sl = 0; sl < IBEX_SL_COUNT; sl++)
			if (v.cnt.sl[sl] != 0)
				ibex_out_printf(o, "%-12s   sl %-2u %46" PRIu64
						"\n", "", sl, v.cnt.sl[sl]);
	}
	return 0;
}

/* ---- capture ---- */

static void
capture_read(const struct ibex_topic_ctx *c, struct ibex_capture_view *v)
{
	if (c->shared)
		ibex_capture_view_shared(c->dp, v);
	else
		ibex_capture_view(c->dp, v);
}

static const char *
capture_port(const struct ibex_dp *dp, const struct ibex_capture_view *v)
{
	return v->state != IBEX_CAPTURE_NONE && v->port < dp->nb_ports ?
	       dp->port_name[v->port] : "";
}

/* The object is there before the first capture too, with state "none":
 * telemetry has no null. */
int
ibex_show_capture_emit(const struct ibex_topic_ctx *c, struct ibex_emit *e)
{
	struct ibex_capture_view v;

	capture_read(c, &v);
	ibex_emit_obj_begin(e, NULL);
	ibex_emit_obj_begin(e, "capture");
	ibex_capture_emit(e, &v, capture_port(c->dp, &v));
	ibex_emit_obj_end(e);
	ibex_emit_obj_end(e);
	return emit_done(e);
}

int
ibex_show_capture_text(const struct ibex_topic_ctx *c, struct ibex_out *o)
{
	ibex_capture_cmd_show(c->dp, false, o);
	return 0;
}

/* ---- ecmp: per group its counters, per member its port and frames ---- */

int
ibex_show_ecmp_emit(const struct ibex_topic_ctx *c, struct ibex_emit *e)
{
	uint16_t g, k;

	ibex_emit_obj_begin(e, NULL);
	ibex_emit_u64(e, "seed", c->conf->ecmp_seed);
	ibex_emit_obj_begin(e, "groups");
	for (g = 0; g < IBEX_MAX_ECMP_GROUPS; g++) {
		struct ibex_dp_ecmp_view v;

		if (ibex_dp_ecmp_view(c->dp, g, &v) < 0)
			break;
		ibex_emit_obj_begin(e, v.name);
		ibex_emit_str(e, "mode", ibex_ecmp_mode_name(v.mode));
		ibex_emit_u64(e, "flowlet_us", v.flowlet_us);
		ibex_emit_u64(e, "frames", v.frames);
		ibex_emit_u64(e, "none_up", v.cnt.none_up);
		ibex_emit_u64(e, "adaptive", v.cnt.adaptive);
		ibex_emit_u64(e, "moves", v.cnt.moves);
		ibex_emit_list_begin(e, "members");
		for (k = 0; k < v.n; k++) {
			ibex_emit_obj_begin(e, NULL);
			ibex_emit_str(e, "port", pname(c, v.port[k]));
			ibex_emit_u64(e, "frames", v.cnt.member[k]);
			ibex_emit_obj_end(e);
		}
		ibex_emit_list_end(e);
		ibex_emit_obj_end(e);
	}
	ibex_emit_obj_end(e);
	ibex_emit_obj_end(e);
	return emit_done(e);
}

int
ibex_show_ecmp_text(const struct ibex_topic_ctx *c, struct ibex_out *o)
{
	uint16_t g, k;

	ibex_out_printf(o, "%-12s %-12s %16s %7s\n", "group", "member",
			"frames", "share");
	for (g = 0; g < IBEX_MAX_ECMP_GROUPS; g++) {
		struct ibex_dp_ecmp_view v;

		if (ibex_dp_ecmp_view(c->dp, g, &v) < 0)
			break;
		for (k = 0; k < v.n; k++)
			ibex_out_printf(o, "%-12s %-12s %16" PRIu64 " %6.1f%%\n",
					k == 0 ? v.name : "", pname(c, v.port[k]),
					v.cnt.member[k], v.frames == 0 ? 0.0 :
					100.0 * (double)v.cnt.member[k] /
					(double)v.frames);
		if (v.cnt.none_up != 0)
			ibex_out_printf(o, "%-12s %-12s %16" PRIu64 "\n", "",
					"(none up)", v.cnt.none_up);
		if (v.mode == IBEX_ECMP_PACKET)
			ibex_out_printf(o, "%-12s adaptive per packet: %" PRIu64
					" frames chosen by load\n", "",
					v.cnt.adaptive);
		else if (v.mode == IBEX_ECMP_FLOWLET)
			ibex_out_printf(o, "%-12s adaptive per flowlet (gap %u "
					"us): %" PRIu64 " flowlets chosen by "
					"load, %" PRIu64 " moved\n", "",
					v.flowlet_us, v.cnt.adaptive,
					v.cnt.moves);
	}
	return 0;
}

/* ---- aggregation: the jobs, lib/agg's counters over the workers, the
 * wait for the last contributor (docs/aggregation.md) ---- */

/* "p0,p1,p2": a job's children. */
static void
agg_children_str(const struct ibex_topic_ctx *c, const struct ibex_dp_agg_job *j,
		 char *buf, size_t len)
{
	size_t used = 0;
	uint16_t k;

	buf[0] = '\0';
	for (k = 0; k < j->conf.n_children && used < len; k++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 k > 0 ? "," : "",
					 pname(c, j->children[k]));
}

static const char *
agg_job_state(const struct ibex_dp_agg_view *v, uint16_t k)
{
	return (v->refused >> k) & 1 ? "refused" : "running";
}

int
ibex_show_aggregation_emit(const struct ibex_topic_ctx *c, struct ibex_emit *e)
{
	struct ibex_dp_agg_view v;
	uint16_t k, b;

	/* {"aggregation": {...}}: the final --json holds it by that key */
	ibex_emit_obj_begin(e, NULL);
	ibex_emit_obj_begin(e, "aggregation");
	if (ibex_dp_agg_view(c->dp, c->conf, &v) < 0) {
		ibex_emit_bool(e, "enabled", false);
		ibex_emit_obj_end(e);
		ibex_emit_obj_end(e);
		return emit_done(e);
	}
	ibex_emit_bool(e, "enabled", true);
	ibex_emit_u64(e, "pool_bytes", v.pool_bytes);
	ibex_emit_u64(e, "workers", v.workers);
	ibex_emit_list_begin(e, "jobs");
	for (k = 0; k < v.nb_jobs; k++) {
		const struct ibex_dp_agg_job *j = &v.job[k];

		ibex_emit_obj_begin(e, NULL);
		ibex_emit_u64(e, "id", j->conf.job);
		ibex_emit_str(e, "state", agg_job_state(&v, k));
		ibex_emit_str(e, "parent", j->conf.root ? "root" :
			      pname(c, j->parent));
		ibex_emit_u64(e, "up_child", j->conf.up_child);
		ibex_emit_list_begin(e, "children");
		for (b = 0; b < j->conf.n_children; b++)
			ibex_emit_str(e, NULL, pname(c, j->children[b]));
		ibex_emit_list_end(e);
		ibex_emit_u64(e, "slots", j->conf.n_slots);
		ibex_emit_u64(e, "elements", j->conf.max_elems);
		ibex_emit_obj_end(e);
	}
	ibex_emit_list_end(e);
#define AGG_EMIT(f) ibex_emit_u64(e, #f, v.st.f);
	IBEX_AGG_STATS_FIELDS(AGG_EMIT)
#undef AGG_EMIT
	ibex_emit_u64(e, "wait_ns_max", v.st.wait_ns_max);
	ibex_emit_u64(e, "steered", v.cnt.steered);
	ibex_emit_u64(e, "not_ready", v.cnt.not_ready);
	ibex_emit_obj_begin(e, "malformed");
	for (b = 1; b < IBEX_AGG_E_MAX; b++)
		if (v.st.malformed[b] != 0)
			ibex_emit_u64(e, ibex_agg_err_name(b),
				      v.st.malformed[b]);
	ibex_emit_obj_end(e);
	/* Bucket i: waits in [2^i, 2^(i+1)) ns, the last one open. */
	ibex_emit_list_begin(e, "wait_hist");
	for (b = 0; b < IBEX_AGG_WAIT_BUCKETS; b++) {
		if (v.st.wait_hist[b] == 0)
			continue;
		ibex_emit_obj_begin(e, NULL);
		ibex_emit_u64(e, "from_ns", b == 0 ? 0 : UINT64_C(1) << b);
		ibex_emit_u64(e, "count", v.st.wait_hist[b]);
		ibex_emit_obj_end(e);
	}
	ibex_emit_list_end(e);
	ibex_emit_obj_end(e);
	ibex_emit_obj_end(e);
	return emit_done(e);
}

int
ibex_show_aggregation_text(const struct ibex_topic_ctx *c, struct ibex_out *o)
{
	struct ibex_dp_agg_view v;
	char kids[256];
	uint16_t k;

	if (ibex_dp_agg_view(c->dp, c->conf, &v) < 0) {
		ibex_out_printf(o, "no aggregation pool (aggregation pool "
				"<size>, docs/aggregation.md)\n");
		return 0;
	}
	ibex_out_printf(o, "pool %" PRIu64 " bytes on each of %u workers\n",
			v.pool_bytes, v.workers);
	ibex_out_printf(o, "%-10s %-8s %-10s %6s %8s  %s\n", "job", "state",
			"parent", "slots", "elements", "children");
	for (k = 0; k < v.nb_jobs; k++) {
		const struct ibex_dp_agg_job *j = &v.job[k];

		agg_children_str(c, j, kids, sizeof(kids));
		ibex_out_printf(o, "%-10u %-8s %-10s %6u %8u  %s\n", j->conf.job,
				agg_job_state(&v, k), j->conf.root ? "root" :
				pname(c, j->parent), j->conf.n_slots,
				j->conf.max_elems, kids);
	}
	ibex_out_printf(o, "contributions %" PRIu64 ", duplicates %" PRIu64
			", partial sums sent %" PRIu64 " (again %" PRIu64
			"), results sent %" PRIu64 " (again %" PRIu64
			"), results taken %" PRIu64 "\n", v.st.contributions,
			v.st.duplicates, v.st.partials_sent,
			v.st.partials_resent, v.st.results_sent,
			v.st.results_replied, v.st.results_rx);
	ibex_out_printf(o, "slots in use %" PRIu64 ", steered to their "
			"worker %" PRIu64 ", refused: stale %" PRIu64
			", early %" PRIu64 ", no job %" PRIu64 "\n",
			v.st.slots_in_use, v.cnt.steered, v.st.stale,
			v.st.early, v.st.no_job);
	if (v.st.wait_count != 0)
		ibex_out_printf(o, "wait for the last contributor: %" PRIu64
				" uses, mean %.2f us, max %.2f us\n",
				v.st.wait_count, (double)v.st.wait_ns_sum /
				(double)v.st.wait_count / 1e3,
				(double)v.st.wait_ns_max / 1e3);
	return 0;
}

/* ---- the table's functions ---- */

static const ibex_topic_emit_fn topic_emit[IBEX_SHOW_NB] = {
#define IBEX_TOPIC_EMIT(id, name, port, tel, final, metrics, help) \
	[IBEX_SHOW_##id] = ibex_show_##name##_emit,
	IBEX_TOPICS(IBEX_TOPIC_EMIT)
#undef IBEX_TOPIC_EMIT
};

static const ibex_topic_text_fn topic_text[IBEX_SHOW_NB] = {
#define IBEX_TOPIC_TEXT(id, name, port, tel, final, metrics, help) \
	[IBEX_SHOW_##id] = ibex_show_##name##_text,
	IBEX_TOPICS(IBEX_TOPIC_TEXT)
#undef IBEX_TOPIC_TEXT
};

ibex_topic_emit_fn
ibex_topic_emit(enum ibex_show s)
{
	return (unsigned int)s < IBEX_SHOW_NB ? topic_emit[s] : NULL;
}

ibex_topic_text_fn
ibex_topic_text(enum ibex_show s)
{
	return (unsigned int)s < IBEX_SHOW_NB ? topic_text[s] : NULL;
}

int
ibex_topic_show(const struct ibex_topic_ctx *c, enum ibex_show s, bool json,
		struct ibex_out *o)
{
	struct ibex_emit e;
	int ret;

	if ((unsigned int)s >= IBEX_SHOW_NB)
		return -EINVAL;
	if (!json) {
		ret = topic_text[s](c, o);
		return ret < 0 ? ret : o->oom ? -ENOMEM : 0;
	}
	ibex_emit_json_init(&e, o);
	ret = topic_emit[s](c, &e);
	if (ret == 0)
		ret = ibex_out_printf(o, "\n");
	return ret < 0 ? ret : o->oom ? -ENOMEM : 0;
}

int
ibex_topic_final_json(const struct ibex_topic_ctx *c, struct ibex_out *o)
{
	struct ibex_out tmp;
	unsigned int s;
	int ret = 0;

	ibex_out_init(&tmp);
	for (s = 0; s < IBEX_SHOW_NB && ret == 0; s++) {
		struct ibex_emit e;

		if (!ibex_show_in_final(s))
			continue;
		ibex_out_reset(&tmp);
		ibex_emit_json_init(&e, &tmp);
		ret = topic_emit[s](c, &e);
		if (ret < 0 || tmp.len < 2)
			break;
		/* {"lanes": [...]}: the members, inside the braces. */
		ibex_out_printf(o, "%s", o->len != 0 ? ",\n  " : "  ");
		ret = ibex_out_append(o, tmp.buf + 1, tmp.len - 2);
	}
	ibex_out_free(&tmp);
	return ret < 0 ? ret : o->oom ? -ENOMEM : 0;
}
