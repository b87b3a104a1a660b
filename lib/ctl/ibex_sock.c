/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control socket and the commands it runs.
 *
 * Everything runs on the control thread, from ibex_sock_poll() once per
 * control-loop tick: accept, read whole lines, run each through
 * ibex_sock_exec() and write the reply. Sockets are non-blocking; a client
 * whose reply is not yet written gets no further command run until it has
 * read it, so a slow reader holds back only itself. The running config,
 * its text and history, its lock and the one path by which a change, a
 * reload or SIGHUP commits belong to ibex_running.c: a change or a reload
 * here is a call to it.
 */

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_log.h>
#include <rte_telemetry.h>
#include <rte_version.h>

#include "ibex_capture_cmd.h"
#include "ibex_clock.h"
#include "ibex_cmd.h"
#include "ibex_conf.h"
#include "ibex_counters.h"
#include "ibex_ctl.h"
#include "ibex_dp.h"
#include "ibex_fdb.h"
#include "ibex_pkt.h"
#include "ibex_rates.h"
#include "ibex_running.h"
#include "ibex_sock.h"
#include "ibex_stale.h"
#include "ibex_hist.h"
#include "ibex_version.h"

RTE_LOG_REGISTER(ibex_sock_logtype, ibex.ctl.sock, INFO);
#define RTE_LOGTYPE_IBEX_SOCK ibex_sock_logtype

#define SOCK_MAX_CLIENTS 16
#define SOCK_BACKLOG 16
/* A client that sent nothing and was sent nothing for this long is
 * closed (docs/control.md): a forgotten connection frees its slot. */
#define SOCK_IDLE_TIMEOUT_MS (300 * 1000)
/* Commands one client may run per tick: the loop has other work too. */
#define SOCK_CMDS_PER_TICK 64
#define SOCK_ERR_LEN 512

struct sock_client {
	int fd;                  /* -1: free slot */
	bool eof;                /* peer closed its side: finish, then close */
	bool discard;            /* inside an overlong line: skip to newline */
	uint64_t active_ms;      /* last byte read or reply written */
	uint32_t cap_wait;       /* capture whose end this client waits for
				    (its reply comes then), 0: none */
	bool cap_json;           /* that reply in JSON */
	size_t in_len;
	char in[IBEX_CMD_LINE_MAX + 2];
	struct ibex_out out;     /* reply bytes not yet written */
};

struct ibex_sock {
	struct ibex_dp *dp;
	struct ibex_running *run; /* the running config's owner */
	const struct ibex_conf *conf; /* ibex_running_conf(run): the same
					 pointer for run's life */
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	int lfd;                 /* listening socket or -1 */
	struct ibex_out body;    /* a reply's output, before stuffing */
	struct ibex_cmd_req req;
	struct ibex_hist hist;   /* scratch for "show latency" */
	struct ibex_rates *rates; /* "show rates", "clear counters" */
	uint64_t idle_timeout_ms; /* SOCK_IDLE_TIMEOUT_MS, or the test's */
	uint64_t last_reap_ms;
	struct sock_client *exec_client; /* the client of the running line,
					    NULL for other callers */
	uint32_t exec_wait;      /* the line's reply waits for this capture */
	struct sock_client cl[SOCK_MAX_CLIENTS];
};

/* For the telemetry callbacks, which get no argument of ours. */
static struct ibex_sock *tel_sock;

const char *
ibex_sock_path(const struct ibex_sock *s)
{
	return s->lfd >= 0 ? s->path : "";
}

int
ibex_sock_default_path(char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/%s", rte_eal_get_runtime_dir(),
			 IBEX_CTL_SOCK_NAME);

	return n > 0 && (size_t)n < len ? 0 : -ENAMETOOLONG;
}

/* ---- show: small helpers ---- */

/* First and end port of a "show X [PORT]". */
static int
show_ports_range(const struct ibex_sock *s, const struct ibex_cmd_req *req,
		 uint16_t *first, uint16_t *end, char *err, size_t errlen)
{
	int p;

	*first = 0;
	*end = s->dp->nb_ports;
	if (req->port[0] == '\0')
		return 0;
	p = ibex_conf_port_find(s->conf, req->port);
	if (p < 0 || p >= s->dp->nb_ports) {
		snprintf(err, errlen, "show: no port '%s'", req->port);
		return -ENOENT;
	}
	*first = (uint16_t)p;
	*end = (uint16_t)(p + 1);
	return 0;
}

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
fc_name(uint8_t mode)
{
	static const char *const n[] = { "none", "credit", "pfc" };

	return mode < RTE_DIM(n) ? n[mode] : "?";
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

/* JSON: ', ' before every member but the first. */
static const char *
sep(bool *first)
{
	bool f = *first;

	*first = false;
	return f ? "" : ", ";
}

/* ---- show: one function per topic ---- */

static int
show_ports(struct ibex_sock *s, const struct ibex_cmd_req *req,
	   struct ibex_out *o, uint16_t first, uint16_t end)
{
	bool f1 = true;
	uint16_t p;

	if (req->json) {
		ibex_out_printf(o, "{\"ports\": [");
	} else {
		ibex_out_printf(o, "%-12s %-5s %-4s %6s", "port", "admin",
				"link", "speed");
		ibex_cnt_text_head(o, &ibex_port_cnt_set, 0);
		ibex_out_printf(o, "  %-16s %s\n", "dev", "flood");
	}
	for (p = first; p < end; p++) {
		const struct ibex_conf_port *cp = &s->conf->ports[p];
		uint64_t v[IBEX_PORT_CNT_NB];
		const char *link = ibex_dp_port_link_up(s->dp, p) ? "up" : "down";
		struct ibex_port_counters c;
		char rate[24];

		ibex_rates_port_since_clear(s->rates, s->dp, p, &c);
		if (!req->json) {
			ibex_port_cnt_values(&c, v);
			ibex_out_printf(o, "%-12s %-5s %-4s %6s", cp->name,
					cp->admin_up ? "up" : "down", link,
					fmt_rate(cp->speed_bps, rate, sizeof(rate)));
			ibex_cnt_text_row(o, &ibex_port_cnt_set, v, 0);
			ibex_out_printf(o, "  %-16s %s\n",
					ibex_conf_port_dev(cp),
					cp->flood ? "on" : "off");
			continue;
		}
		ibex_out_printf(o, "%s{\"name\": ", sep(&f1));
		ibex_out_json_str(o, cp->name);
		ibex_out_printf(o, ", \"dev\": ");
		ibex_out_json_str(o, ibex_conf_port_dev(cp));
		ibex_out_printf(o, ", \"admin\": \"%s\", \"link\": \"%s\", "
				"\"speed_bps\": %" PRIu64 ", \"flood\": \"%s\", ",
				cp->admin_up ? "up" : "down", link,
				cp->speed_bps, cp->flood ? "on" : "off");
		ibex_port_cnt_json(o, &c);
		ibex_out_printf(o, "}");
	}
	if (req->json)
		ibex_out_printf(o, "]}\n");
	return 0;
}

static int
show_lanes(struct ibex_sock *s, const struct ibex_cmd_req *req,
	   struct ibex_out *o, uint16_t first, uint16_t end)
{
	bool f1 = true;
	uint16_t p;

	if (req->json) {
		ibex_out_printf(o, "{\"lanes\": [");
	} else {
		ibex_out_printf(o, "%-12s %2s %-8s", "port", "vl", "class");
		ibex_cnt_text_head(o, &ibex_lane_cnt_set, 0);
		ibex_out_printf(o, "\n");
	}
	for (p = first; p < end; p++) {
		const struct ibex_conf_port *cp = &s->conf->ports[p];
		unsigned int vl;

		for (vl = 0; vl < port_vls(cp); vl++) {
			const char *cls = (cp->lossless_mask >> vl) & 1 ?
					  "lossless" : "lossy";
			uint64_t v[IBEX_LANE_CNT_NB];
			struct ibex_lane_counters c;

			ibex_dp_lane_totals(s->dp, p, vl, &c);
			if (!req->json) {
				ibex_lane_cnt_values(&c, v);
				ibex_out_printf(o, "%-12s %2u %-8s", cp->name, vl,
						cls);
				ibex_cnt_text_row(o, &ibex_lane_cnt_set, v, 0);
				ibex_out_printf(o, "\n");
				continue;
			}
			ibex_out_printf(o, "%s{\"port\": ", sep(&f1));
			ibex_out_json_str(o, cp->name);
			ibex_out_printf(o, ", \"vl\": %u, \"class\": \"%s\", ",
					vl, cls);
			ibex_lane_cnt_json(o, &c);
			ibex_out_printf(o, "}");
		}
	}
	if (req->json)
		ibex_out_printf(o, "]}\n");
	return 0;
}

/* The credit and PFC shows print the parameters in force (the running
 * config) and the live flow-control state of the worker
 * (ibex_dp_fc_view); the per-lane traffic counters are in "show lanes". */
static int
show_credits(struct ibex_sock *s, const struct ibex_cmd_req *req,
	     struct ibex_out *o, uint16_t first, uint16_t end)
{
	bool f1 = true;
	uint16_t p;

	if (req->json) {
		ibex_out_printf(o, "{\"credits\": [");
	} else {
		ibex_out_printf(o, "%-12s %-6s %2s %-8s %15s %16s %10s", "port",
				"fc", "vl", "class", "reserved-blocks",
				"credit-period-us", "min-gap-ns");
		ibex_cnt_text_head(o, &ibex_fc_lane_cnt_set, 0);
		ibex_cnt_text_head(o, &ibex_fc_cnt_set, IBEX_FC_CNT_CREDIT);
		ibex_out_printf(o, "\n");
	}
	for (p = first; p < end; p++) {
		const struct ibex_conf_port *cp = &s->conf->ports[p];
		uint64_t fv[IBEX_FC_CNT_NB], lv[IBEX_FC_LANE_CNT_NB];
		struct ibex_dp_fc_view v;
		unsigned int vl;

		ibex_dp_fc_view(s->dp, p, &v); /* zeroed when no fc */
		ibex_fc_cnt_values(&v, fv);
		for (vl = 0; vl < port_vls(cp); vl++) {
			const char *cls = (cp->lossless_mask >> vl) & 1 ?
					  "lossless" : "lossy";

			ibex_fc_lane_cnt_values(&v, vl, lv);
			if (!req->json) {
				ibex_out_printf(o, "%-12s %-6s %2u %-8s %15u "
					"%16u %10u", cp->name,
					fc_name(cp->fc_mode), vl, cls,
					cp->reserved_blocks[vl],
					cp->credit_period_us,
					cp->credit_min_gap_ns);
				ibex_cnt_text_row(o, &ibex_fc_lane_cnt_set, lv, 0);
				ibex_cnt_text_row(o, &ibex_fc_cnt_set, fv,
						  IBEX_FC_CNT_CREDIT);
				ibex_out_printf(o, "\n");
				continue;
			}
			ibex_out_printf(o, "%s{\"port\": ", sep(&f1));
			ibex_out_json_str(o, cp->name);
			ibex_out_printf(o, ", \"fc\": \"%s\", \"vl\": %u, "
				"\"class\": \"%s\", \"reserved_blocks\": %u, "
				"\"credit_period_us\": %u, \"min_gap_ns\": %u, ",
				fc_name(cp->fc_mode), vl, cls,
				cp->reserved_blocks[vl], cp->credit_period_us,
				cp->credit_min_gap_ns);
			ibex_cnt_json(o, &ibex_fc_lane_cnt_set, lv, 0);
			ibex_out_printf(o, ", ");
			ibex_fc_credit_cnt_json(o, &v);
			ibex_out_printf(o, "}");
		}
	}
	if (req->json)
		ibex_out_printf(o, "]}\n");
	return 0;
}

static int
show_pfc(struct ibex_sock *s, const struct ibex_cmd_req *req,
	 struct ibex_out *o, uint16_t first, uint16_t end)
{
	bool f1 = true;
	uint16_t p;

	if (req->json) {
		ibex_out_printf(o, "{\"pfc\": [");
	} else {
		ibex_out_printf(o, "%-12s %-6s %-8s %9s %8s %8s %7s %9s %6s "
				"%-7s %9s %10s %6s", "port", "fc", "lossless",
				"headroom", "xoff", "xon-gap", "quanta",
				"refresh", "hw", "wd", "wd-detect", "wd-recover",
				"paused");
		ibex_cnt_text_head(o, &ibex_fc_cnt_set, IBEX_FC_CNT_PFC);
		ibex_out_printf(o, "\n");
	}
	for (p = first; p < end; p++) {
		const struct ibex_conf_port *cp = &s->conf->ports[p];
		uint64_t fv[IBEX_FC_CNT_NB];
		struct ibex_dp_fc_view v;
		char hr[16];

		ibex_dp_fc_view(s->dp, p, &v); /* zeroed when no fc */
		ibex_fc_cnt_values(&v, fv);
		if (cp->pfc_headroom_auto)
			snprintf(hr, sizeof(hr), "auto");
		else
			snprintf(hr, sizeof(hr), "%u", cp->pfc_headroom_blocks);
		if (!req->json) {
			ibex_out_printf(o, "%-12s %-6s 0x%04x   %9s %8u %8u %7u "
				"%9u %6s %-7s %9u %10u 0x%04x", cp->name,
				fc_name(cp->fc_mode), cp->lossless_mask, hr,
				cp->pfc_xoff_blocks, cp->pfc_xon_gap_blocks,
				cp->pfc_quanta, cp->pfc_refresh_margin_us,
				cp->pfc_hw ? "on" : "off",
				wd_name(cp->wd_action), cp->wd_detect_ms,
				cp->wd_recover_ms, v.paused_vls);
			ibex_cnt_text_row(o, &ibex_fc_cnt_set, fv,
					  IBEX_FC_CNT_PFC);
			ibex_out_printf(o, "\n");
			continue;
		}
		ibex_out_printf(o, "%s{\"port\": ", sep(&f1));
		ibex_out_json_str(o, cp->name);
		ibex_out_printf(o, ", \"fc\": \"%s\", \"lossless_mask\": %u, "
			"\"headroom_auto\": %s, \"headroom_blocks\": %u, "
			"\"cable_m\": %u, \"proc_ns\": %u, \"xoff_blocks\": %u, "
			"\"xon_gap_blocks\": %u, \"quanta\": %u, "
			"\"refresh_margin_us\": %u, \"hw\": %s, "
			"\"watchdog\": \"%s\", \"wd_detect_ms\": %u, "
			"\"wd_recover_ms\": %u, \"paused_vls\": %u, "
			"\"wd_drop_vls\": %u, ",
			fc_name(cp->fc_mode),
			cp->lossless_mask,
			cp->pfc_headroom_auto ? "true" : "false",
			cp->pfc_headroom_blocks, cp->pfc_cable_m,
			cp->pfc_proc_ns, cp->pfc_xoff_blocks,
			cp->pfc_xon_gap_blocks, cp->pfc_quanta,
			cp->pfc_refresh_margin_us,
			cp->pfc_hw ? "true" : "false", wd_name(cp->wd_action),
			cp->wd_detect_ms, cp->wd_recover_ms, v.paused_vls,
			v.wd_drop_vls);
		ibex_fc_pfc_cnt_json(o, &v);
		ibex_out_printf(o, "}");
	}
	if (req->json)
		ibex_out_printf(o, "]}\n");
	return 0;
}

/* The curves as the workers run them (the published tables), with the
 * lanes' counters. */
static int
show_ecn(struct ibex_sock *s, const struct ibex_cmd_req *req,
	 struct ibex_out *o, uint16_t first, uint16_t end)
{
	bool f1 = true;
	uint16_t p;

	if (req->json)
		ibex_out_printf(o, "{\"ecn\": [");
	else
		ibex_out_printf(o, "%-12s %2s %-3s %10s %10s %6s %3s %-4s %12s "
				"%12s %10s\n", "port", "vl", "on", "kmin", "kmax",
				"pmax", "wq", "fecn", "ect-seen", "ce-seen",
				"marked");
	for (p = first; p < end; p++) {
		const char *name = s->conf->ports[p].name;
		struct ibex_dp_ecn_view e;
		unsigned int vl;

		for (vl = 0; ibex_dp_ecn_view(s->dp, p, vl, &e) == 0; vl++) {
			struct ibex_lane_counters c;
			uint64_t ect;

			ibex_dp_lane_totals(s->dp, p, vl, &c);
			ect = ibex_ecn_ect_seen(c.ecn_seen);
			if (!req->json) {
				ibex_out_printf(o, "%-12s %2u %-3s %10u %10u "
					"%6.3f %3u %-4s %12" PRIu64 " %12" PRIu64
					" %10" PRIu64 "\n", name, vl,
					e.on ? "on" : "off", e.kmin, e.kmax,
					e.pmax, e.wq_log, e.fecn ? "on" : "off",
					ect, c.ecn_seen[3], c.ecn_marked);
				continue;
			}
			ibex_out_printf(o, "%s{\"port\": ", sep(&f1));
			ibex_out_json_str(o, name);
			/* Pmax to 9 digits: the curve's 2^-32 steps show
			 * as the value configured (0.2, not 0.2000000000). */
			ibex_out_printf(o, ", \"vl\": %u, \"enabled\": %s, "
				"\"kmin\": %u, \"kmax\": %u, \"pmax\": %.9g, "
				"\"wq_log\": %u, \"fecn\": %s, \"not_ect_seen\": %"
				PRIu64 ", \"ect_seen\": %" PRIu64 ", \"ce_seen\": %"
				PRIu64 ", \"marked\": %" PRIu64
				", \"fecn_marked\": %" PRIu64 "}", vl,
				e.on ? "true" : "false", e.kmin, e.kmax,
				e.pmax, e.wq_log, e.fecn ? "true" : "false",
				c.ecn_seen[0], ect, c.ecn_seen[3], c.ecn_marked,
				c.fecn_marked);
		}
	}
	if (req->json)
		ibex_out_printf(o, "]}\n");
	return 0;
}

static uint64_t
tsc_to_ns(uint64_t t)
{
	return (uint64_t)((double)t * 1e9 / (double)ibex_clock_hz());
}

/* Residence time of one lane's frames (queued or cut through), in ns. */
static void
latency_row(struct ibex_sock *s, const struct ibex_cmd_req *req,
	    struct ibex_out *o, uint16_t p, unsigned int vl, bool queued,
	    bool *f1)
{
	const struct ibex_hist *h = &s->hist;
	const char *path = queued ? "queued" : "cut-through";

	ibex_hist_init(&s->hist);
	if (ibex_dp_residence(s->dp, p, vl, queued, &s->hist) < 0 ||
	    ibex_hist_count(h) == 0)
		return;
	if (!req->json) {
		ibex_out_printf(o, "%-12s %2u %-11s %12" PRIu64 " %10" PRIu64
			" %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %10" PRIu64
			"\n", s->conf->ports[p].name, vl, path,
			ibex_hist_count(h), tsc_to_ns(ibex_hist_min(h)),
			tsc_to_ns(ibex_hist_quantile(h, 0.5)),
			tsc_to_ns(ibex_hist_quantile(h, 0.99)),
			tsc_to_ns(ibex_hist_quantile(h, 0.999)),
			tsc_to_ns(ibex_hist_max(h)));
		return;
	}
	ibex_out_printf(o, "%s{\"port\": ", sep(f1));
	ibex_out_json_str(o, s->conf->ports[p].name);
	ibex_out_printf(o, ", \"vl\": %u, \"path\": \"%s\", \"frames\": %" PRIu64
		", \"min_ns\": %" PRIu64 ", \"p50_ns\": %" PRIu64
		", \"p99_ns\": %" PRIu64 ", \"p999_ns\": %" PRIu64
		", \"max_ns\": %" PRIu64 "}", vl, path, ibex_hist_count(h),
		tsc_to_ns(ibex_hist_min(h)),
		tsc_to_ns(ibex_hist_quantile(h, 0.5)),
		tsc_to_ns(ibex_hist_quantile(h, 0.99)),
		tsc_to_ns(ibex_hist_quantile(h, 0.999)),
		tsc_to_ns(ibex_hist_max(h)));
}

static int
show_latency(struct ibex_sock *s, const struct ibex_cmd_req *req,
	     struct ibex_out *o, uint16_t first, uint16_t end)
{
	bool f1 = true;
	uint16_t p;

	if (req->json)
		ibex_out_printf(o, "{\"latency\": [");
	else
		ibex_out_printf(o, "%-12s %2s %-11s %12s %10s %10s %10s %10s "
				"%10s\n", "port", "vl", "path", "frames",
				"min-ns", "p50-ns", "p99-ns", "p99.9-ns",
				"max-ns");
	for (p = first; p < end; p++) {
		unsigned int vl;

		for (vl = 0; vl < port_vls(&s->conf->ports[p]); vl++) {
			latency_row(s, req, o, p, vl, false, &f1);
			latency_row(s, req, o, p, vl, true, &f1);
		}
	}
	if (req->json)
		ibex_out_printf(o, "]}\n");
	return 0;
}

static int
show_drops(struct ibex_sock *s, const struct ibex_cmd_req *req,
	   struct ibex_out *o, uint16_t first, uint16_t end)
{
	bool f1 = true;
	uint16_t p;

	if (req->json)
		ibex_out_printf(o, "{\"drops\": {");
	else
		ibex_out_printf(o, "%-12s %-18s %14s  %s\n", "port", "reason",
				"frames", "meaning");
	for (p = first; p < end; p++) {
		struct ibex_port_counters c;
		unsigned int r;
		bool f2 = true;

		ibex_dp_port_totals(s->dp, p, &c);
		if (req->json) {
			ibex_out_printf(o, "%s", sep(&f1));
			ibex_out_json_str(o, s->conf->ports[p].name);
			ibex_out_printf(o, ": {");
		}
		for (r = 1; r < IBEX_R_MAX; r++) {
			if (c.drop[r] == 0)
				continue;
			if (req->json)
				ibex_out_printf(o, "%s\"%s\": %" PRIu64, sep(&f2),
						ibex_reason_name(r), c.drop[r]);
			else
				ibex_out_printf(o, "%-12s %-18s %14" PRIu64
						"  %s\n", s->conf->ports[p].name,
						ibex_reason_name(r), c.drop[r],
						ibex_reason_help(r));
		}
		if (req->json)
			ibex_out_printf(o, "}");
	}
	if (req->json)
		ibex_out_printf(o, "}}\n");
	return 0;
}

static int
show_reasons(struct ibex_sock *s __rte_unused,
	     const struct ibex_cmd_req *req, struct ibex_out *o,
	     uint16_t first __rte_unused, uint16_t end __rte_unused)
{
	bool f1 = true;
	unsigned int r;

	ibex_out_printf(o, req->json ? "{\"reasons\": {" : "%-18s  %s\n",
			"reason", "meaning");
	for (r = 1; r < IBEX_R_MAX; r++) {
		if (!req->json) {
			ibex_out_printf(o, "%-18s  %s\n", ibex_reason_name(r),
					ibex_reason_help(r));
			continue;
		}
		ibex_out_printf(o, "%s\"%s\": ", sep(&f1), ibex_reason_name(r));
		ibex_out_json_str(o, ibex_reason_help(r));
	}
	if (req->json)
		ibex_out_printf(o, "}}\n");
	return 0;
}

struct fdb_show {
	const struct ibex_sock *s;
	struct ibex_out *o;
	bool json;
	bool first;
	int port;                /* -1: all */
};

static int
fdb_show_one(const struct ibex_fdb_entry *e, void *arg)
{
	struct fdb_show *fs = arg;
	const char *pn = ibex_conf_egress_name(fs->s->conf, e->port);
	bool group = ibex_egress_is_ecmp(e->port);
	char mac[32];

	if (fs->port >= 0 && e->port != fs->port)
		return 0;
	ibex_mac_format(e->mac, mac, sizeof(mac));
	if (!fs->json)
		return ibex_out_printf(fs->o, "%-17s %5u %s%-*s %s\n", mac,
				       e->vid, group ? "ecmp:" : "",
				       group ? 7 : 12, pn,
				       e->is_static ? "static" : "learned")
		       < 0;
	ibex_out_printf(fs->o, "%s{\"mac\": \"%s\", \"vlan\": %u, \"%s\": ",
			sep(&fs->first), mac, e->vid, group ? "ecmp" : "port");
	ibex_out_json_str(fs->o, pn);
	return ibex_out_printf(fs->o, ", \"static\": %s}",
			       e->is_static ? "true" : "false") < 0;
}

/* ECMP groups: per member its port, frames and share of the group's. */
static int
show_ecmp(struct ibex_sock *s, const struct ibex_cmd_req *req,
	  struct ibex_out *o, uint16_t first __rte_unused,
	  uint16_t end __rte_unused)
{
	bool f1 = true;
	uint16_t g, k;

	if (req->json)
		ibex_out_printf(o, "{\"seed\": %u, \"groups\": {",
				s->conf->ecmp_seed);
	else
		ibex_out_printf(o, "%-12s %-12s %16s %7s\n", "group", "member",
				"frames", "share");
	for (g = 0; g < IBEX_MAX_ECMP_GROUPS; g++) {
		struct ibex_dp_ecmp_view v;
		const char *gn = v.name;
		bool f2 = true;

		if (ibex_dp_ecmp_view(s->dp, g, &v) < 0)
			break;
		if (req->json) {
			ibex_out_printf(o, "%s", sep(&f1));
			ibex_out_json_str(o, gn);
			ibex_out_printf(o, ": {\"mode\": \"%s\", "
					"\"flowlet_us\": %u, \"frames\": %"
					PRIu64 ", \"none_up\": %" PRIu64
					", \"adaptive\": %" PRIu64
					", \"moves\": %" PRIu64
					", \"members\": [",
					ibex_ecmp_mode_name(v.mode), v.flowlet_us,
					v.frames, v.cnt.none_up,
					v.cnt.adaptive, v.cnt.moves);
		}
		for (k = 0; k < v.n; k++) {
			const char *pn = s->conf->ports[v.port[k]].name;

			if (!req->json) {
				ibex_out_printf(o, "%-12s %-12s %16" PRIu64
						" %6.1f%%\n", k == 0 ? gn : "",
						pn, v.cnt.member[k],
						v.frames == 0 ? 0.0 :
						100.0 * (double)v.cnt.member[k] /
						(double)v.frames);
				continue;
			}
			ibex_out_printf(o, "%s{\"port\": ", sep(&f2));
			ibex_out_json_str(o, pn);
			ibex_out_printf(o, ", \"frames\": %" PRIu64 "}",
					v.cnt.member[k]);
		}
		if (req->json)
			ibex_out_printf(o, "]}");
		else if (v.cnt.none_up != 0)
			ibex_out_printf(o, "%-12s %-12s %16" PRIu64 "\n", "",
					"(none up)", v.cnt.none_up);
		if (!req->json && v.mode == IBEX_ECMP_PACKET)
			ibex_out_printf(o, "%-12s adaptive per packet: %" PRIu64
					" frames chosen by load\n", "",
					v.cnt.adaptive);
		else if (!req->json && v.mode == IBEX_ECMP_FLOWLET)
			ibex_out_printf(o, "%-12s adaptive per flowlet (gap %u "
					"us): %" PRIu64 " flowlets chosen by "
					"load, %" PRIu64 " moved\n", "",
					v.flowlet_us, v.cnt.adaptive,
					v.cnt.moves);
	}
	ibex_out_printf(o, req->json ? "}}\n" : "");
	return 0;
}

static int
show_fdb(struct ibex_sock *s, const struct ibex_cmd_req *req,
	 struct ibex_out *o, uint16_t first, uint16_t end)
{
	struct fdb_show fs = {
		.s = s, .o = o, .json = req->json, .first = true,
		.port = end - first == 1 ? first : -1,
	};
	struct ibex_fdb_stats st;

	ibex_fdb_get_stats(s->dp->fdb, &st);
	if (req->json) {
		ibex_out_printf(o, "{");
		ibex_fdb_cnt_json(o, &st);
		ibex_out_printf(o, ", \"table\": [");
	} else {
		ibex_out_printf(o, "%-17s %5s %-12s %s\n", "mac", "vlan", "port",
				"type");
	}
	ibex_fdb_foreach(s->dp->fdb, fdb_show_one, &fs);
	if (req->json) {
		ibex_out_printf(o, "]}\n");
	} else {
		ibex_fdb_cnt_text(o, &st);
		ibex_out_printf(o, "\n");
	}
	return 0;
}

static int
show_config(struct ibex_sock *s, const struct ibex_cmd_req *req,
	    struct ibex_out *o, uint16_t first __rte_unused,
	    uint16_t end __rte_unused)
{
	const char *t = ibex_running_text(s->run);
	bool f1 = true;

	if (!req->json) {
		ibex_out_printf(o, "# %s with the live changes applied: each "
				"statement once, as in effect (changes: show "
				"history)\n%s", s->conf->origin, t);
		return 0;
	}
	ibex_out_printf(o, "{\"origin\": ");
	ibex_out_json_str(o, s->conf->origin);
	ibex_out_printf(o, ", \"statements\": [");
	while (*t != '\0') {
		const char *nl = strchr(t, '\n');
		size_t n = nl != NULL ? (size_t)(nl - t) : strlen(t);
		char line[IBEX_CONF_LINE_MAX + 1];

		snprintf(line, sizeof(line), "%.*s", (int)n, t);
		ibex_out_printf(o, "%s", sep(&f1));
		ibex_out_json_str(o, line);
		t += n + (nl != NULL);
	}
	ibex_out_printf(o, "]}\n");
	return 0;
}

static int
show_workers(struct ibex_sock *s, const struct ibex_cmd_req *req,
	     struct ibex_out *o, uint16_t first __rte_unused,
	     uint16_t end __rte_unused)
{
	bool f1 = true;
	uint16_t i, q;

	if (req->json)
		ibex_out_printf(o, "{\"workers\": [");
	else
		ibex_out_printf(o, "%-6s %5s %16s %16s %18s  %s\n", "worker",
				"lcore", "iterations", "busy-iterations",
				"busy-cycles", "rx-queues");
	for (i = 0; i < s->dp->nb_workers; i++) {
		struct ibex_dp_worker_view wv, *w = &wv;
		bool f2 = true;

		if (ibex_dp_worker_view(s->dp, i, &wv) < 0)
			break;
		if (req->json)
			ibex_out_printf(o, "%s{\"worker\": %u, \"lcore\": %u, "
				"\"iterations\": %" PRIu64 ", \"busy_iterations\": %"
				PRIu64 ", \"busy_cycles\": %" PRIu64
				", \"rx_queues\": [", sep(&f1), i, w->lcore,
				w->iterations, w->busy_iterations, w->busy_tsc);
		else
			ibex_out_printf(o, "%-6u %5u %16" PRIu64 " %16" PRIu64
				" %18" PRIu64 " ", i, w->lcore,
				w->iterations, w->busy_iterations, w->busy_tsc);
		for (q = 0; q < w->nb_rxq; q++) {
			const char *pn = s->conf->ports[w->rxq[q].port].name;

			if (req->json)
				ibex_out_printf(o, "%s\"%s:%u\"", sep(&f2), pn,
						w->rxq[q].queue);
			else
				ibex_out_printf(o, " %s:%u", pn, w->rxq[q].queue);
		}
		ibex_out_printf(o, req->json ? "]}" : "\n");
	}
	if (req->json)
		ibex_out_printf(o, "]}\n");
	return 0;
}

static int
show_rates(struct ibex_sock *s, const struct ibex_cmd_req *req,
	   struct ibex_out *o, uint16_t first __rte_unused,
	   uint16_t end __rte_unused)
{
	ibex_rates_show(s->rates, s->dp, s->conf, req->json, o);
	return 0;
}

/* The newest IBEX_RUNNING_HISTORY accepted changes, oldest first. */
static int
show_history(struct ibex_sock *s, const struct ibex_cmd_req *req,
	     struct ibex_out *o, uint16_t first __rte_unused,
	     uint16_t end __rte_unused)
{
	uint64_t n = ibex_running_changes(s->run);
	uint64_t i = n > IBEX_RUNNING_HISTORY ? n - IBEX_RUNNING_HISTORY : 0;
	bool f1 = true;

	if (req->json)
		ibex_out_printf(o, "{\"changes\": %" PRIu64 ", \"kept\": %u, "
				"\"history\": [", n, IBEX_RUNNING_HISTORY);
	else
		ibex_out_printf(o, "# %" PRIu64 " changes accepted; the last "
				"%u are kept\n", n, IBEX_RUNNING_HISTORY);
	for (; i < n; i++) {
		time_t t = 0;
		const char *st = ibex_running_history(s->run, i + 1, &t);
		char when[32];

		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
		if (!req->json) {
			ibex_out_printf(o, "%" PRIu64 " %s %s\n", i + 1, when, st);
			continue;
		}
		ibex_out_printf(o, "%s{\"seq\": %" PRIu64 ", \"time\": \"%s\", "
				"\"statement\": ", sep(&f1), i + 1, when);
		ibex_out_json_str(o, st);
		ibex_out_printf(o, "}");
	}
	if (req->json)
		ibex_out_printf(o, "]}\n");
	return 0;
}

/* eBPF classifiers: what runs on each port and its verdicts (counters
 * since start, whatever program ran). Ports without one are listed with
 * "-" so the table shows every port's classifier. */
static int
show_bpf(struct ibex_sock *s, const struct ibex_cmd_req *req,
	 struct ibex_out *o, uint16_t first, uint16_t end)
{
	bool f1 = true;
	uint16_t p;
	unsigned int sl;

	if (req->json)
		ibex_out_printf(o, "{\"bpf\": {");
	else
		ibex_out_printf(o, "%-12s %-8s %6s %8s %12s %10s %10s %6s  %s\n",
				"port", "mode", "insns", "load-us", "frames",
				"default", "drops", "bad", "program");
	for (p = first; p < end; p++) {
		struct ibex_dp_bpf_view v;
		bool f2 = true;

		if (ibex_dp_bpf_view(s->dp, p, &v) < 0)
			continue;
		if (req->json) {
			ibex_out_printf(o, "%s", sep(&f1));
			ibex_out_json_str(o, s->conf->ports[p].name);
			ibex_out_printf(o, ": {\"on\": %s, \"file\": ",
					v.on ? "true" : "false");
			ibex_out_json_str(o, v.file);
			ibex_out_printf(o, ", \"section\": ");
			ibex_out_json_str(o, v.section);
			ibex_out_printf(o, ", \"function\": ");
			ibex_out_json_str(o, v.name);
			ibex_out_printf(o, ", \"jit\": %s, \"btf\": %s, "
					"\"insns\": %u, \"load_ns\": %" PRIu64
					", \"loaded_at\": %" PRId64 ", "
					"\"frames\": %" PRIu64 ", \"default\": %"
					PRIu64 ", \"drops\": %" PRIu64 ", "
					"\"bad\": %" PRIu64 ", \"sl\": [",
					v.jit ? "true" : "false",
					v.btf ? "true" : "false", v.nb_insns,
					v.load_ns, v.loaded_at, v.runs,
					v.cnt.deflt, v.cnt.drops, v.cnt.bad);
			for (sl = 0; sl < IBEX_SL_COUNT; sl++)
				ibex_out_printf(o, "%s%" PRIu64, sep(&f2),
						v.cnt.sl[sl]);
			ibex_out_printf(o, "]}");
			continue;
		}
		ibex_out_printf(o, "%-12s %-8s %6u %8" PRIu64 " %12" PRIu64
				" %10" PRIu64 " %10" PRIu64 " %6" PRIu64
				"  %s%s%s\n", s->conf->ports[p].name,
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
	if (req->json)
		ibex_out_printf(o, "}}\n");
	return 0;
}

typedef int (*show_fn)(struct ibex_sock *s, const struct ibex_cmd_req *req,
		       struct ibex_out *o, uint16_t first, uint16_t end);

/* ---- capture: ibex_capture_cmd.c ---- */

static int
show_capture(struct ibex_sock *s, const struct ibex_cmd_req *req,
	     struct ibex_out *o, uint16_t first __rte_unused,
	     uint16_t end __rte_unused)
{
	ibex_capture_cmd_show(s->dp, req->json, o);
	return 0;
}

static int
ctl_show(struct ibex_sock *s, const struct ibex_cmd_req *req,
	 struct ibex_out *o, char *err, size_t errlen)
{
	static const show_fn fns[IBEX_SHOW_NB] = {
		[IBEX_SHOW_PORTS] = show_ports,
		[IBEX_SHOW_LANES] = show_lanes,
		[IBEX_SHOW_CREDITS] = show_credits,
		[IBEX_SHOW_PFC] = show_pfc,
		[IBEX_SHOW_ECN] = show_ecn,
		[IBEX_SHOW_LATENCY] = show_latency,
		[IBEX_SHOW_DROPS] = show_drops,
		[IBEX_SHOW_REASONS] = show_reasons,
		[IBEX_SHOW_FDB] = show_fdb,
		[IBEX_SHOW_CONFIG] = show_config,
		[IBEX_SHOW_WORKERS] = show_workers,
		[IBEX_SHOW_RATES] = show_rates,
		[IBEX_SHOW_HISTORY] = show_history,
		[IBEX_SHOW_BPF] = show_bpf,
		[IBEX_SHOW_CAPTURE] = show_capture,
		[IBEX_SHOW_ECMP] = show_ecmp,
	};
	uint16_t first, end;
	int ret;

	ret = show_ports_range(s, req, &first, &end, err, errlen);
	if (ret < 0)
		return ret;
	ret = fns[req->show](s, req, o, first, end);
	if (ret == 0 && o->oom) {
		snprintf(err, errlen, "show: out of memory");
		ret = -ENOMEM;
	}
	return ret;
}

int
ibex_sock_json_sections(struct ibex_sock *s, struct ibex_out *o)
{
	/* What the final --json holds besides the ports and the FDB: the
	 * same renderers as "show X --json", so the two never differ. */
	static const enum ibex_show topics[] = { IBEX_SHOW_LANES,
		IBEX_SHOW_LATENCY, IBEX_SHOW_ECN, IBEX_SHOW_PFC,
		IBEX_SHOW_CREDITS, IBEX_SHOW_DROPS };
	struct ibex_cmd_req req = { .kind = IBEX_CMD_SHOW, .json = true };
	struct ibex_out tmp;
	char err[SOCK_ERR_LEN];
	unsigned int i;
	int ret = 0;

	ibex_out_init(&tmp);
	for (i = 0; i < RTE_DIM(topics) && ret == 0; i++) {
		const char *a, *b;

		ibex_out_reset(&tmp);
		req.show = topics[i];
		ret = ctl_show(s, &req, &tmp, err, sizeof(err));
		if (ret < 0 || tmp.buf == NULL)
			break;
		/* {"lanes": [...]}: keep what is inside the braces. */
		a = strchr(tmp.buf, '{');
		b = strrchr(tmp.buf, '}');
		if (a == NULL || b == NULL || b <= a + 1)
			continue;
		ibex_out_printf(o, "%s", o->len != 0 ? ",\n  " : "  ");
		ret = ibex_out_append(o, a + 1, (size_t)(b - a - 1));
	}
	ibex_out_free(&tmp);
	return ret < 0 ? ret : o->oom ? -ENOMEM : 0;
}

/* ---- one command ---- */

static void
ctl_version(const struct ibex_cmd_req *req, struct ibex_out *o)
{
	if (req->json && ibex_ctl_meta() != NULL) {
		/* the meta block: version, git, dpdk and schema among it */
		ibex_out_printf(o, "%s\n", ibex_ctl_meta());
		return;
	}
	if (req->json) {
		ibex_out_printf(o, "{\"version\": \"%s\", \"git\": \"%s\", "
				"\"dpdk\": \"%s\", \"schema\": %d}\n",
				IBEX_VERSION, IBEX_GIT, rte_version(),
				IBEX_SCHEMA_VERSION);
		return;
	}
	ibex_out_printf(o, "ibex-switch %s (git %s)\n%s\n", IBEX_VERSION,
			IBEX_GIT, rte_version());
}

/* "set log-level TYPE LEVEL": DPDK's own log types and ours (ibex.*). */
static int
ctl_log_level(const struct ibex_cmd_req *req, char *err, size_t errlen)
{
	if (rte_log_set_level_pattern(req->stmt, (uint32_t)req->level) < 0) {
		snprintf(err, errlen, "log-level: cannot set '%.200s'", req->stmt);
		return -EINVAL;
	}
	RTE_LOG(NOTICE, IBEX_SOCK, "log level of %s set to %d\n", req->stmt,
		req->level);
	return 0;
}

int
ibex_sock_exec(struct ibex_sock *s, const char *line, struct ibex_out *reply)
{
	struct ibex_cmd_req *req = &s->req;
	char err[SOCK_ERR_LEN];
	char *c;
	int ret;

	ibex_out_reset(&s->body);
	err[0] = '\0';
	ret = ibex_cmd_parse(line, req, err, sizeof(err));
	if (ret == 0) {
		switch (req->kind) {
		case IBEX_CMD_EMPTY:
			break;
		case IBEX_CMD_HELP:
			ibex_out_printf(&s->body, "%s", ibex_cmd_help());
			break;
		case IBEX_CMD_SHOW:
			ret = ctl_show(s, req, &s->body, err, sizeof(err));
			break;
		case IBEX_CMD_CHANGE:
			ret = ibex_running_change(s->run, req->stmt,
						  req->verb, err, sizeof(err));
			break;
		case IBEX_CMD_RELOAD:
			ret = ibex_running_reload(s->run, req->force, err,
						  sizeof(err));
			break;
		case IBEX_CMD_VERSION:
			ctl_version(req, &s->body);
			break;
		case IBEX_CMD_LOG_LEVEL:
			ret = ctl_log_level(req, err, sizeof(err));
			break;
		case IBEX_CMD_CLEAR:
			ibex_rates_clear(s->rates, s->dp);
			break;
		case IBEX_CMD_CAPTURE:
			ret = ibex_capture_cmd_run(s->dp, s->conf, req,
						   s->exec_client != NULL,
						   &s->exec_wait, &s->body,
						   err, sizeof(err));
			/* The reply comes when the capture ends. */
			if (ret == 0 && s->exec_wait != 0)
				return 0;
			break;
		}
	}
	if (ret == 0 && s->body.len != 0)
		ibex_out_reply_body(reply, s->body.buf, s->body.len);
	if (ret == 0)
		return ibex_out_printf(reply, "OK\n");
	/* The status is one line whatever the message holds. */
	for (c = err; *c != '\0'; c++)
		if (*c == '\n' || *c == '\r')
			*c = ' ';
	if (err[0] == '\0')
		snprintf(err, sizeof(err), "%s: %s", req->verb, strerror(-ret));
	ibex_out_printf(reply, "ERR %s\n", err);
	return ret;
}

/* ---- the socket ---- */

/*
 * A socket file at @p path: replaced when nobody listens on it (a switch
 * that was killed left it), refused when a live process does.
 */
static int
sock_clear_stale(const char *path, char *err, size_t errlen)
{
	char msg[SOCK_ERR_LEN];
	int ret = ibex_stale_socket_clear(path, true, msg, sizeof(msg));

	if (ret == 1)
		RTE_LOG(NOTICE, IBEX_SOCK, "control socket %s\n", msg);
	if (ret == -EADDRINUSE)
		snprintf(err, errlen, "%s: another switch is listening there",
			 path);
	else if (ret < 0 && msg[0] != '\0')
		snprintf(err, errlen, "control socket %s", msg);
	return ret < 0 ? ret : 0;
}

/*
 * Another user who may write the socket's directory may put a socket of
 * their own there before we start, or in place of ours: say so. ibex-ctl
 * checks who answers (SO_PEERCRED), but a private directory is better.
 */
static void
sock_check_dir(const char *path)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct stat st;
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash == NULL)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	if (stat(dir, &st) < 0 || (st.st_mode & (S_IWGRP | S_IWOTH)) == 0)
		return;
	RTE_LOG(WARNING, IBEX_SOCK, "control socket directory %s is writable "
		"by %s (mode %04o): another user could listen on %s before "
		"the switch; prefer a directory only this user can write\n",
		dir, st.st_mode & S_IWOTH ? "every user" : "its group",
		(unsigned int)(st.st_mode & 07777), path);
}

static int
sock_listen(struct ibex_sock *s, char *err, size_t errlen)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	mode_t old;
	int fd, ret;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", s->path);
	sock_check_dir(s->path);
	ret = sock_clear_stale(s->path, err, errlen);
	if (ret < 0)
		goto fail;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		ret = -errno;
		goto fail;
	}
	/* Never visible with wider permissions, not even between bind and
	 * chmod. */
	old = umask(0177);
	ret = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	if (ret == 0)
		ret = chmod(s->path, 0600);
	if (ret == 0)
		ret = listen(fd, SOCK_BACKLOG);
	if (ret < 0) {
		ret = -errno;
		close(fd);
		goto fail;
	}
	s->lfd = fd;
	return 0;
fail:
	if (err[0] == '\0')
		snprintf(err, errlen, "control socket %s: %s", s->path,
			 strerror(-ret));
	return ret;
}

static uint64_t
sock_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void
client_close(struct sock_client *c)
{
	close(c->fd);
	c->fd = -1;
	ibex_out_free(&c->out);
}

/* Write what we can; false when the peer is gone. */
static bool
client_flush(struct sock_client *c)
{
	while (c->out.len > 0) {
		ssize_t n = send(c->fd, c->out.buf, c->out.len,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK ||
			       errno == EINTR;
		ibex_out_consume(&c->out, (size_t)n);
		c->active_ms = sock_now_ms();
	}
	return true;
}

/* Only our own uid and root may talk to us, whatever the file mode. */
static bool
peer_allowed(int fd)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0)
		return false;
	if (cr.uid == 0 || cr.uid == geteuid())
		return true;
	RTE_LOG(WARNING, IBEX_SOCK, "refused a connection from uid %u "
		"(pid %d)\n", (unsigned int)cr.uid, (int)cr.pid);
	return false;
}

/*
 * Every slot taken: make room for a new client by closing the one idle
 * longest, i.e. with no reply pending (a client half-way through reading
 * a reply keeps its slot). -1 when every client is mid-reply.
 */
static int
sock_evict_idle(struct ibex_sock *s)
{
	static const char bye[] = "ERR closed: idle, and a new client needed "
				  "the slot\n";
	struct sock_client *c, *old = NULL;
	unsigned int i;

	for (i = 0; i < SOCK_MAX_CLIENTS; i++) {
		c = &s->cl[i];
		if (c->out.len == 0 && c->cap_wait == 0 && (old == NULL ||
					c->active_ms < old->active_ms))
			old = c;
	}
	if (old == NULL)
		return -1;
	RTE_LOG(NOTICE, IBEX_SOCK, "%u control connections: closed the one "
		"idle for %" PRIu64 " ms to serve a new one\n",
		SOCK_MAX_CLIENTS, sock_now_ms() - old->active_ms);
	(void)!send(old->fd, bye, sizeof(bye) - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
	client_close(old);
	return (int)(old - s->cl);
}

static void
sock_accept(struct ibex_sock *s)
{
	static const char refused[] = "ERR permission denied: this uid may "
				      "not use the control socket\n";
	static const char busy[] = "ERR too many control connections, all "
				   "of them busy\n";
	unsigned int i;
	int fd;

	while ((fd = accept4(s->lfd, NULL, NULL,
			     SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
		if (!peer_allowed(fd)) {
			(void)!send(fd, refused, sizeof(refused) - 1,
				    MSG_NOSIGNAL | MSG_DONTWAIT);
			close(fd);
			continue;
		}
		for (i = 0; i < SOCK_MAX_CLIENTS && s->cl[i].fd >= 0; i++)
			;
		if (i == SOCK_MAX_CLIENTS)
			i = (unsigned int)sock_evict_idle(s);
		if (i >= SOCK_MAX_CLIENTS) {
			(void)!send(fd, busy, sizeof(busy) - 1,
				    MSG_NOSIGNAL | MSG_DONTWAIT);
			close(fd);
			continue;
		}
		memset(&s->cl[i], 0, sizeof(s->cl[i]));
		s->cl[i].fd = fd;
		s->cl[i].active_ms = sock_now_ms();
		ibex_out_init(&s->cl[i].out);
	}
}

/* Read more input; false when the connection failed. */
static bool
client_read(struct sock_client *c)
{
	size_t room = sizeof(c->in) - 1 - c->in_len;
	ssize_t n;

	if (c->eof || room == 0)
		return true;
	n = recv(c->fd, c->in + c->in_len, room, MSG_DONTWAIT);
	if (n == 0) {
		c->eof = true;
	} else if (n > 0) {
		c->in_len += (size_t)n;
		c->active_ms = sock_now_ms();
	}
	else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
		return false;
	return true;
}

/*
 * The next whole line in c->in, NUL-terminated, with its length including
 * the newline in *used; NULL when there is none yet. A line longer than
 * the buffer is answered with ERR and skipped. Only a newline ends a
 * command: bytes left without one when the client closes are a command
 * cut short (a client that died mid-write) and never run.
 */
static char *
client_line(struct sock_client *c, size_t *used)
{
	char *nl;

	for (;;) {
		nl = memchr(c->in, '\n', c->in_len);
		if (nl == NULL && c->in_len == sizeof(c->in) - 1) {
			if (!c->discard)
				ibex_out_printf(&c->out, "ERR command: line "
						"too long (max %d characters)\n",
						IBEX_CMD_LINE_MAX);
			c->discard = true;
			c->in_len = 0;
			return NULL;
		}
		if (nl == NULL)
			return NULL;
		*nl = '\0';
		*used = (size_t)(nl - c->in) + 1;
		if (!c->discard)
			return c->in;
		/* The tail of an overlong line. */
		c->discard = false;
		memmove(c->in, c->in + *used, c->in_len - *used);
		c->in_len -= *used;
	}
}

/* Run one whole line, unless a NUL byte in it would cut it short. */
static void
client_exec(struct ibex_sock *s, struct sock_client *c, const char *line,
	    size_t len)
{
	const char *nul = memchr(line, '\0', len);

	if (nul == NULL) {
		s->exec_client = c;
		s->exec_wait = 0;
		ibex_sock_exec(s, line, &c->out);
		c->cap_wait = s->exec_wait;
		c->cap_json = s->req.json;
		s->exec_client = NULL;
		s->exec_wait = 0;
		return;
	}
	ibex_out_printf(&c->out, "ERR command: a NUL byte at offset %zu: "
			"refused, not run\n", (size_t)(nul - line));
}

/* The client closed: what is left without a newline is never run. */
static void
client_eof_close(struct sock_client *c)
{
	if (c->in_len > 0 && !c->discard)
		RTE_LOG(WARNING, IBEX_SOCK, "a client closed with %zu bytes of "
			"a command not ended by a newline: discarded, not "
			"run\n", c->in_len);
	client_close(c);
}

/*
 * A client waiting for capture c->cap_wait to end: its reply once it has
 * (then its next lines run), a stop when it closed its side (ibex-ctl on
 * ^C, or killed). @return true when the wait is over.
 */
static bool
client_capture_wait(struct ibex_sock *s, struct sock_client *c)
{
	struct ibex_capture_view v;

	ibex_capture_view(s->dp, &v);
	if (v.id == c->cap_wait && v.state == IBEX_CAPTURE_RUNNING &&
	    c->eof)
		ibex_capture_stop(s->dp, "the client left");
	if (v.id == c->cap_wait && v.state != IBEX_CAPTURE_DONE)
		return false;
	c->cap_wait = 0;
	c->active_ms = sock_now_ms();
	ibex_out_reset(&s->body);
	ibex_capture_cmd_render(s->dp, &v, c->cap_json, &s->body);
	if (c->cap_json)
		ibex_out_printf(&s->body, "\n");
	ibex_out_reply_body(&c->out, s->body.buf, s->body.len);
	if (v.error != 0)
		ibex_out_printf(&c->out, "ERR capture: writing %s: %s\n",
				v.path, strerror(-v.error));
	else
		ibex_out_printf(&c->out, "OK\n");
	return client_flush(c);
}

static void
client_service(struct ibex_sock *s, struct sock_client *c)
{
	unsigned int budget = SOCK_CMDS_PER_TICK;
	size_t used;
	char *line;

	if (!client_flush(c) || !client_read(c)) {
		if (c->cap_wait != 0)
			ibex_capture_stop(s->dp, "the client left");
		client_close(c);
		return;
	}
	if (c->cap_wait != 0 && !client_capture_wait(s, c))
		return;
	while (c->out.len == 0 && budget-- > 0) {
		line = client_line(c, &used);
		if (line == NULL)
			break;
		client_exec(s, c, line, used - 1);
		memmove(c->in, c->in + used, c->in_len - used);
		c->in_len -= used;
		if (!client_flush(c)) {
			client_close(c);
			return;
		}
		if (c->out.len == 0 && !client_read(c)) {
			client_close(c);
			return;
		}
	}
	/* At EOF with no whole line left, nothing more will run. */
	if (c->eof && c->out.len == 0 &&
	    (c->in_len == 0 || memchr(c->in, '\n', c->in_len) == NULL))
		client_eof_close(c);
}

/* Close the clients idle for SOCK_IDLE_TIMEOUT_MS: at most once a second. */
static void
sock_reap_idle(struct ibex_sock *s)
{
	static const char bye[] = "ERR closed: idle for too long\n";
	uint64_t now = sock_now_ms();
	unsigned int i;

	if (now - s->last_reap_ms < 1000)
		return;
	s->last_reap_ms = now;
	for (i = 0; i < SOCK_MAX_CLIENTS; i++) {
		struct sock_client *c = &s->cl[i];

		if (c->fd < 0 || c->cap_wait != 0 ||
		    now - c->active_ms < s->idle_timeout_ms)
			continue;
		RTE_LOG(NOTICE, IBEX_SOCK, "closed a control connection idle "
			"for %" PRIu64 " s\n", (now - c->active_ms) / 1000);
		(void)!send(c->fd, bye, sizeof(bye) - 1,
			    MSG_NOSIGNAL | MSG_DONTWAIT);
		client_close(c);
	}
}

void
ibex_sock_poll(struct ibex_sock *s)
{
	unsigned int i;

	ibex_running_poll(s->run);
	if (s->lfd < 0)
		return;
	sock_accept(s);
	for (i = 0; i < SOCK_MAX_CLIENTS; i++)
		if (s->cl[i].fd >= 0)
			client_service(s, &s->cl[i]);
	sock_reap_idle(s);
}

unsigned int
ibex_sock_fds(const struct ibex_sock *s, struct pollfd *pfd, unsigned int max,
	      bool *more)
{
	unsigned int i, n = 0;

	*more = ibex_running_reload_pending();
	if (s->lfd < 0 || max == 0)
		return 0;
	pfd[n++] = (struct pollfd){ .fd = s->lfd, .events = POLLIN };
	for (i = 0; i < SOCK_MAX_CLIENTS && n < max; i++) {
		const struct sock_client *c = &s->cl[i];

		if (c->fd < 0)
			continue;
		/* Waiting for a capture: only its end (the timer) or the
		 * client leaving matter; once it left, or with its buffer
		 * full, its fd would only spin the loop. */
		if (c->cap_wait != 0) {
			bool full = c->in_len == sizeof(c->in) - 1;

			pfd[n++] = (struct pollfd){
				.fd = c->eof || full ? -1 : c->fd,
				.events = POLLIN };
			continue;
		}
		/* A whole line already read (a client past its per-tick
		 * budget, or one whose last line has no newline) is work
		 * no fd will announce. */
		if (c->out.len == 0 && (c->eof ||
		    memchr(c->in, '\n', c->in_len) != NULL))
			*more = true;
		pfd[n++] = (struct pollfd){ .fd = c->fd,
			.events = c->out.len > 0 ? POLLOUT : POLLIN };
	}
	return n;
}

/* ---- telemetry: /ibex/lanes and /ibex/latency ---- */

/* The port named or numbered by @p params and its lane count, read from
 * the running config under the lock. */
static int
tel_port(const char *params, unsigned int *nb_vls)
{
	char *end;
	long v;
	int p;

	if (tel_sock == NULL || params == NULL || *params == '\0')
		return -EINVAL;
	ibex_running_lock(tel_sock->run);
	p = ibex_conf_port_find(tel_sock->conf, params);
	if (p < 0) {
		v = strtol(params, &end, 10);
		p = *end == '\0' && v >= 0 && v < IBEX_MAX_PORTS ? (int)v : -1;
	}
	if (p >= tel_sock->dp->nb_ports)
		p = -1;
	if (p >= 0)
		*nb_vls = port_vls(&tel_sock->conf->ports[p]);
	ibex_running_unlock(tel_sock->run);
	return p >= 0 ? p : -EINVAL;
}

static int
tel_lanes(const char *cmd __rte_unused, const char *params,
	  struct rte_tel_data *d)
{
	unsigned int vl, n;
	int p = tel_port(params, &n);

	if (p < 0)
		return -EINVAL;
	rte_tel_data_start_dict(d);
	for (vl = 0; vl < n; vl++) {
		struct rte_tel_data *ld = rte_tel_data_alloc();
		struct ibex_lane_counters c;
		char name[16];

		if (ld == NULL)
			return -ENOMEM;
		ibex_dp_lane_totals(tel_sock->dp, (uint16_t)p, vl, &c);
		rte_tel_data_start_dict(ld);
		ibex_lane_cnt_tel(ld, &c);
		snprintf(name, sizeof(name), "vl%u", vl);
		rte_tel_data_add_dict_container(d, name, ld, 0);
	}
	return 0;
}

static int
tel_latency(const char *cmd __rte_unused, const char *params,
	    struct rte_tel_data *d)
{
	struct ibex_hist *h;
	unsigned int vl, n, q;
	int p = tel_port(params, &n);

	if (p < 0)
		return -EINVAL;
	h = malloc(sizeof(*h));
	if (h == NULL)
		return -ENOMEM;
	rte_tel_data_start_dict(d);
	for (vl = 0; vl < n; vl++) {
		for (q = 0; q < 2; q++) {
			struct rte_tel_data *ld;
			char name[32];

			ibex_hist_init(h);
			if (ibex_dp_residence(tel_sock->dp, (uint16_t)p, vl, q,
					      h) < 0 || ibex_hist_count(h) == 0)
				continue;
			ld = rte_tel_data_alloc();
			if (ld == NULL)
				break;
			rte_tel_data_start_dict(ld);
			rte_tel_data_add_dict_u64(ld, "frames", ibex_hist_count(h));
			rte_tel_data_add_dict_u64(ld, "min_ns",
						  tsc_to_ns(ibex_hist_min(h)));
			rte_tel_data_add_dict_u64(ld, "p50_ns",
				tsc_to_ns(ibex_hist_quantile(h, 0.5)));
			rte_tel_data_add_dict_u64(ld, "p99_ns",
				tsc_to_ns(ibex_hist_quantile(h, 0.99)));
			rte_tel_data_add_dict_u64(ld, "p999_ns",
				tsc_to_ns(ibex_hist_quantile(h, 0.999)));
			rte_tel_data_add_dict_u64(ld, "max_ns",
						  tsc_to_ns(ibex_hist_max(h)));
			snprintf(name, sizeof(name), "vl%u_%s", vl,
				 q ? "queued" : "cut_through");
			rte_tel_data_add_dict_container(d, name, ld, 0);
		}
	}
	free(h);
	return 0;
}

static int
sock_telemetry_register(struct ibex_sock *s)
{
	int ret;

	/* Several switches in one process (ibex-fabric): the first one's
	 * socket answers, as the first one's data path does /ibex/ports. */
	if (tel_sock != NULL)
		return 0;
	tel_sock = s;
	ret = rte_telemetry_register_cmd("/ibex/lanes", tel_lanes,
		"Counters of each lane (VL) of a port. Parameters: port name "
		"or index");
	if (ret == 0)
		ret = rte_telemetry_register_cmd("/ibex/latency", tel_latency,
			"Residence time of a port's lanes, ns. Parameters: port "
			"name or index");
	return ret;
}

/* ---- life cycle ---- */

static int
sock_choose_path(struct ibex_sock *s, const struct ibex_sock_params *p)
{
	const char *path = p->path != NULL ? p->path : p->conf->ctl_socket;

	/* --ctl-socket "" or none: no socket. In the config "" is "not
	 * given", so the default; a literal "none" is none there too. */
	if ((p->path != NULL && path[0] == '\0') || strcmp(path, "none") == 0) {
		s->path[0] = '\0';
		return 0;
	}
	if (path[0] == '\0')
		return ibex_sock_default_path(s->path, sizeof(s->path));
	if (strlen(path) >= sizeof(s->path))
		return -ENAMETOOLONG;
	snprintf(s->path, sizeof(s->path), "%s", path);
	return 0;
}

/* IBEX_CTL_IDLE_TIMEOUT_S shortens the idle timeout for tests. */
static uint64_t
sock_idle_timeout(void)
{
	const char *e = getenv("IBEX_CTL_IDLE_TIMEOUT_S");
	char *end;
	long v;

	if (e == NULL || *e == '\0')
		return SOCK_IDLE_TIMEOUT_MS;
	v = strtol(e, &end, 10);
	if (*end != '\0' || v <= 0 || v > 86400) {
		RTE_LOG(WARNING, IBEX_SOCK, "IBEX_CTL_IDLE_TIMEOUT_S='%s' is not "
			"a number of seconds (1-86400): ignored\n", e);
		return SOCK_IDLE_TIMEOUT_MS;
	}
	return (uint64_t)v * 1000;
}

int
ibex_sock_create(struct ibex_sock **sp, const struct ibex_sock_params *p,
		 char *err, size_t errlen)
{
	struct ibex_sock *s;
	unsigned int i;
	int ret;

	err[0] = '\0';
	s = calloc(1, sizeof(*s));
	if (s == NULL)
		return -ENOMEM;
	s->lfd = -1;
	s->idle_timeout_ms = sock_idle_timeout();
	for (i = 0; i < SOCK_MAX_CLIENTS; i++)
		s->cl[i].fd = -1;
	s->dp = p->dp;
	ret = ibex_running_create(&s->run, s->dp, p->conf, p->config_path);
	if (ret < 0)
		goto fail;
	s->conf = ibex_running_conf(s->run);
	ret = ibex_rates_create(&s->rates, s->dp);
	if (ret < 0)
		goto fail;
	ret = sock_choose_path(s, p);
	if (ret < 0) {
		snprintf(err, errlen, "control socket path too long (max %zu "
			 "characters)", sizeof(s->path) - 1);
		goto fail;
	}
	if (s->path[0] != '\0') {
		ret = sock_listen(s, err, errlen);
		if (ret < 0)
			goto fail;
		/* Scripts and units wait for this line (or the notify
		 * readiness) rather than polling for the file. */
		RTE_LOG(NOTICE, IBEX_SOCK, "listening on %s\n", s->path);
	}
	ret = sock_telemetry_register(s);
	if (ret < 0)
		RTE_LOG(WARNING, IBEX_SOCK, "/ibex/lanes, /ibex/latency: "
			"telemetry refused them (%d)\n", ret);
	*sp = s;
	return 0;
fail:
	ibex_sock_destroy(s);
	return ret;
}

void
ibex_sock_destroy(struct ibex_sock *s)
{
	unsigned int i;

	if (s == NULL)
		return;
	for (i = 0; i < SOCK_MAX_CLIENTS; i++)
		if (s->cl[i].fd >= 0)
			client_close(&s->cl[i]);
	if (s->lfd >= 0) {
		close(s->lfd);
		unlink(s->path);
	}
	/* Telemetry keeps its commands: they must find nothing freed. */
	if (tel_sock == s)
		tel_sock = NULL;
	ibex_out_free(&s->body);
	ibex_rates_free(s->rates);
	ibex_running_destroy(s->run);
	free(s);
}
