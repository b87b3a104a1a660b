/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Prometheus / OpenMetrics endpoint (ibex_metrics.h, docs/metrics.md).
 *
 * Families are generated from the counter sets' X-macro lists (through
 * their descriptions in ibex_counters.c), so a counter added to a set
 * appears here too: a port counter <key> is ibex_port_<key>_total, a lane
 * counter ibex_lane_<key>_total, a CBFC port or VC counter
 * ibex_cbfc_<key>_total, a counter whose unit says "gauge" is a gauge
 * without _total. The drops are one family with a reason label, the
 * residence times one histogram family in seconds.
 *
 * libmicrohttpd (Debian 12: libmicrohttpd12) serves: it is maintained
 * (GNU), packaged in Debian, and runs its own thread that sleeps in
 * epoll until a connection comes, so the endpoint costs nothing between
 * scrapes and nothing on a worker's core at any time.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#ifdef IBEX_HAVE_MHD
#include <microhttpd.h>
#endif

#include <rte_version.h>

#include "ibex_clock.h"
#include "ibex_buf.h"
#include "ibex_counters.h"
#include "ibex_dp.h"
#include "ibex_hist.h"
#include "ibex_metrics.h"
#include "ibex_reason.h"
#include "ibex_version.h"

/* What one scrape reads of one port, before any family is written (each
 * family lists every port, so the values are read once). */
struct port_snap {
	uint64_t cnt[IBEX_PORT_CNT_NB];
	uint64_t drop[IBEX_R_MAX];
	bool up;
	bool fc;                          /* the port runs flow control */
	unsigned int fc_mode;             /* IBEX_FC_CNT_CREDIT or _PFC */
	uint16_t lossless;
	uint64_t fc_cnt[IBEX_FC_CNT_NB];
	uint64_t paused_ns[8];            /* PFC: per priority */
	uint64_t fc_lane[IBEX_VL_COUNT][IBEX_FC_LANE_CNT_NB];
	unsigned int nb_lanes;            /* lanes 0..nb_lanes-1 run */
	uint64_t lane[IBEX_VL_COUNT][IBEX_LANE_CNT_NB];
	bool cbfc;                        /* fc cbfc: SAI's counters */
	uint64_t cbfc_cnt[IBEX_CBFC_CNT_NB];
	uint64_t cbfc_vc[IBEX_VL_COUNT][IBEX_CBFC_VC_CNT_NB];
};

/* Residence histogram bounds, seconds: 100 ns .. 100 ms, 1-2.5-5 steps. */
static const double res_le[] = {
	1e-7, 2.5e-7, 5e-7, 1e-6, 2.5e-6, 5e-6, 1e-5, 2.5e-5, 5e-5, 1e-4,
	2.5e-4, 5e-4, 1e-3, 2.5e-3, 5e-3, 1e-2, 2.5e-2, 5e-2, 1e-1,
};
#define RES_NB (sizeof(res_le) / sizeof(res_le[0]))

struct render {
	struct ibex_om m;
	struct ibex_dp *const *dps;
	const char *const *names;
	unsigned int n;
	struct port_snap **snap;          /* [switch][port] */
	struct ibex_hist *hist;
};

/* Labels: switch (when several), port, then up to two more. */
struct labels {
	struct ibex_om_label l[4];
	unsigned int n;
	char vl[12];
};

static void
labels_port(struct labels *lb, const struct render *r, unsigned int s,
	    uint16_t p)
{
	lb->n = 0;
	if (r->names != NULL)
		lb->l[lb->n++] = (struct ibex_om_label){ "switch", r->names[s] };
	lb->l[lb->n++] = (struct ibex_om_label){ "port",
						 r->dps[s]->port_name[p] };
}

static void
labels_add(struct labels *lb, const char *name, const char *value)
{
	lb->l[lb->n++] = (struct ibex_om_label){ name, value };
}

static void
labels_vl(struct labels *lb, unsigned int vl)
{
	snprintf(lb->vl, sizeof(lb->vl), "%u", vl);
	labels_add(lb, "vl", lb->vl);
}

static bool
is_gauge(const struct ibex_cnt_desc *d)
{
	return strstr(d->unit, "gauge") != NULL;
}

/* "<prefix><key>" as a family name, its help the set's. */
static void
family_of(struct render *r, const char *prefix, const struct ibex_cnt_desc *d)
{
	char name[96];

	snprintf(name, sizeof(name), "%s%s", prefix, d->key);
	ibex_om_family(&r->m, name, is_gauge(d) ? IBEX_OM_GAUGE :
		       IBEX_OM_COUNTER, d->help);
}

/* A CBFC port's counters and its lossless VCs' (the same view and sets
 * as ibex-ctl show cbfc). */
static void
snapshot_cbfc(struct port_snap *ps, const struct ibex_dp_fc_view *fc)
{
	unsigned int vc;

	ps->cbfc = true;
	ibex_cbfc_cnt_values(&fc->cbfc, ps->cbfc_cnt);
	for (vc = 0; vc < IBEX_VL_COUNT; vc++)
		ibex_cbfc_vc_cnt_values(&fc->cbfc, vc, ps->cbfc_vc[vc]);
}

static int
snapshot(struct render *r)
{
	unsigned int s;

	r->snap = calloc(r->n, sizeof(*r->snap));
	if (r->snap == NULL)
		return -ENOMEM;
	for (s = 0; s < r->n; s++) {
		const struct ibex_dp *dp = r->dps[s];
		uint16_t p;

		r->snap[s] = calloc(dp->nb_ports ? dp->nb_ports : 1,
				    sizeof(**r->snap));
		if (r->snap[s] == NULL)
			return -ENOMEM;
		for (p = 0; p < dp->nb_ports; p++) {
			struct port_snap *ps = &r->snap[s][p];
			struct ibex_port_counters c;
			struct ibex_dp_fc_view fc;
			unsigned int vl;

			ibex_dp_port_totals(dp, p, &c);
			ibex_port_cnt_values(&c, ps->cnt);
			memcpy(ps->drop, c.drop, sizeof(ps->drop));
			ps->up = ibex_dp_port_link_up(dp, p);
			for (vl = 0; vl < IBEX_VL_COUNT; vl++) {
				struct ibex_lane_counters lc;

				/* A lane runs when it has its histograms. */
				ibex_hist_init(r->hist);
				if (ibex_dp_residence(dp, p, vl, false,
						      r->hist) < 0)
					break;
				ibex_dp_lane_totals(dp, p, vl, &lc);
				ibex_lane_cnt_values(&lc, ps->lane[vl]);
			}
			ps->nb_lanes = vl;
			if (ibex_dp_fc_view(dp, p, &fc) != 0 ||
			    fc.mode == IBEX_FC_NONE)
				continue;
			ps->fc = true;
			ps->fc_mode = fc.mode == IBEX_FC_PFC ?
				      IBEX_FC_CNT_PFC : IBEX_FC_CNT_CREDIT;
			ps->lossless = fc.lossless;
			ibex_fc_cnt_values(&fc, ps->fc_cnt);
			memcpy(ps->paused_ns, fc.paused_ns, sizeof(ps->paused_ns));
			for (vl = 0; vl < IBEX_VL_COUNT; vl++)
				ibex_fc_lane_cnt_values(&fc, vl, ps->fc_lane[vl]);
			if (fc.mode == IBEX_FC_CBFC)
				snapshot_cbfc(ps, &fc);
		}
	}
	return 0;
}

static void
render_info(struct render *r)
{
	const struct ibex_om_label l[] = {
		{ "version", IBEX_VERSION }, { "git", IBEX_GIT },
		{ "dpdk", rte_version() } };

	ibex_om_family(&r->m, "ibex_build_info", IBEX_OM_GAUGE,
		       "ibex's version, git describe and the DPDK it runs on "
		       "(always 1)");
	ibex_om_u64(&r->m, l, 3, 1);
}

static void
render_ports(struct render *r)
{
	struct labels lb;
	unsigned int i, s, reason;
	uint16_t p;

	ibex_om_family(&r->m, "ibex_port_up", IBEX_OM_GAUGE,
		       "1 when the port's link is up, else 0");
	for (s = 0; s < r->n; s++)
		for (p = 0; p < r->dps[s]->nb_ports; p++) {
			labels_port(&lb, r, s, p);
			ibex_om_u64(&r->m, lb.l, lb.n, r->snap[s][p].up);
		}
	for (i = 0; i < ibex_port_cnt_set.n; i++) {
		/* The sum of the drops: the reason family says it better. */
		if (i == IBEX_PORT_CNT_dropped)
			continue;
		family_of(r, "ibex_port_", &ibex_port_cnt_set.desc[i]);
		for (s = 0; s < r->n; s++)
			for (p = 0; p < r->dps[s]->nb_ports; p++) {
				labels_port(&lb, r, s, p);
				ibex_om_u64(&r->m, lb.l, lb.n,
					    r->snap[s][p].cnt[i]);
			}
	}
	ibex_om_family(&r->m, "ibex_port_drops", IBEX_OM_COUNTER,
		       "frames dropped, by reason (ibex-ctl show reasons)");
	for (s = 0; s < r->n; s++)
		for (p = 0; p < r->dps[s]->nb_ports; p++)
			for (reason = 1; reason < IBEX_R_MAX; reason++) {
				labels_port(&lb, r, s, p);
				labels_add(&lb, "reason",
					   ibex_reason_name(reason));
				ibex_om_u64(&r->m, lb.l, lb.n,
					    r->snap[s][p].drop[reason]);
			}
}

static void
render_lanes(struct render *r)
{
	struct labels lb;
	unsigned int i, s, vl;
	uint16_t p;

	for (i = 0; i < ibex_lane_cnt_set.n; i++) {
		family_of(r, "ibex_lane_", &ibex_lane_cnt_set.desc[i]);
		for (s = 0; s < r->n; s++)
			for (p = 0; p < r->dps[s]->nb_ports; p++)
				for (vl = 0; vl < r->snap[s][p].nb_lanes; vl++) {
					labels_port(&lb, r, s, p);
					labels_vl(&lb, vl);
					ibex_om_u64(&r->m, lb.l, lb.n,
						    r->snap[s][p].lane[vl][i]);
				}
	}
}

/* Flow control: the port counters of its mode, the lossless lanes'
 * credits and buffer (ibex-ctl show credits / show pfc). */
static void
render_fc(struct render *r)
{
	struct labels lb;
	unsigned int i, s, vl;
	uint16_t p;

	for (i = 0; i < ibex_fc_cnt_set.n; i++) {
		const struct ibex_cnt_desc *d = &ibex_fc_cnt_set.desc[i];

		family_of(r, "ibex_port_", d);
		for (s = 0; s < r->n; s++)
			for (p = 0; p < r->dps[s]->nb_ports; p++) {
				const struct port_snap *ps = &r->snap[s][p];

				if (!ps->fc || (d->modes != 0 &&
						(d->modes & ps->fc_mode) == 0))
					continue;
				labels_port(&lb, r, s, p);
				ibex_om_u64(&r->m, lb.l, lb.n, ps->fc_cnt[i]);
			}
	}
	ibex_om_family(&r->m, "ibex_port_pfc_paused_seconds", IBEX_OM_COUNTER,
		       "time each priority's egress was paused by received "
		       "PFC (PFC ports)");
	for (s = 0; s < r->n; s++)
		for (p = 0; p < r->dps[s]->nb_ports; p++) {
			const struct port_snap *ps = &r->snap[s][p];

			if (!ps->fc || ps->fc_mode != IBEX_FC_CNT_PFC)
				continue;
			for (i = 0; i < 8; i++) {
				labels_port(&lb, r, s, p);
				snprintf(lb.vl, sizeof(lb.vl), "%u", i);
				labels_add(&lb, "priority", lb.vl);
				ibex_om_double(&r->m, lb.l, lb.n,
					       (double)ps->paused_ns[i] / 1e9);
			}
		}
	for (i = 0; i < ibex_fc_lane_cnt_set.n; i++) {
		const struct ibex_cnt_desc *d = &ibex_fc_lane_cnt_set.desc[i];

		family_of(r, "ibex_lane_", d);
		for (s = 0; s < r->n; s++)
			for (p = 0; p < r->dps[s]->nb_ports; p++) {
				const struct port_snap *ps = &r->snap[s][p];

				if (!ps->fc)
					continue;
				for (vl = 0; vl < IBEX_VL_COUNT; vl++) {
					if (((ps->lossless >> vl) & 1) == 0)
						continue;
					labels_port(&lb, r, s, p);
					labels_vl(&lb, vl);
					ibex_om_u64(&r->m, lb.l, lb.n,
						    ps->fc_lane[vl][i]);
				}
			}
	}
}

/* CBFC: ibex_cbfc_<key> per port and, per lossless VC (the port's lossless
 * lanes), ibex_cbfc_<vc key> with a vc label; only ports in fc cbfc. */
static void
render_cbfc(struct render *r)
{
	struct labels lb;
	unsigned int i, s, vc;
	uint16_t p;

	for (i = 0; i < ibex_cbfc_cnt_set.n; i++) {
		family_of(r, "ibex_cbfc_", &ibex_cbfc_cnt_set.desc[i]);
		for (s = 0; s < r->n; s++)
			for (p = 0; p < r->dps[s]->nb_ports; p++) {
				const struct port_snap *ps = &r->snap[s][p];

				if (!ps->cbfc)
					continue;
				labels_port(&lb, r, s, p);
				ibex_om_u64(&r->m, lb.l, lb.n, ps->cbfc_cnt[i]);
			}
	}
	for (i = 0; i < ibex_cbfc_vc_cnt_set.n; i++) {
		family_of(r, "ibex_cbfc_", &ibex_cbfc_vc_cnt_set.desc[i]);
		for (s = 0; s < r->n; s++)
			for (p = 0; p < r->dps[s]->nb_ports; p++) {
				const struct port_snap *ps = &r->snap[s][p];

				if (!ps->cbfc)
					continue;
				for (vc = 0; vc < IBEX_VL_COUNT; vc++) {
					if (((ps->lossless >> vc) & 1) == 0)
						continue;
					labels_port(&lb, r, s, p);
					snprintf(lb.vl, sizeof(lb.vl), "%u", vc);
					labels_add(&lb, "vc", lb.vl);
					ibex_om_u64(&r->m, lb.l, lb.n,
						    ps->cbfc_vc[vc][i]);
				}
			}
	}
}

/* One lane's residence histogram: ibex's log-linear TSC buckets (1/128
 * relative width) folded into res_le by each bucket's upper edge, so a
 * bucket's count is never placed below the values it holds. */
static void
render_res_one(struct render *r, const struct labels *lb, double hz)
{
	const struct ibex_hist *h = r->hist;
	uint64_t per[RES_NB] = { 0 }, count = ibex_hist_count(h);
	unsigned int idx, k = 0;

	for (idx = 0; idx < IBEX_HIST_BUCKETS; idx++) {
		double hi;

		if (h->buckets[idx] == 0)
			continue;
		hi = (double)ibex_hist_bucket_hi(idx) / hz;
		while (k < RES_NB && res_le[k] < hi)
			k++;
		if (k == RES_NB)
			break;                  /* the rest: +Inf only */
		per[k] += h->buckets[idx];
	}
	ibex_om_histogram(&r->m, lb->l, lb->n, res_le, per, RES_NB, count,
			  (double)ibex_hist_sum(h) / hz);
}

static void
render_residence(struct render *r)
{
	double hz = (double)ibex_clock_hz();
	struct labels lb;
	unsigned int s, vl, q;
	uint16_t p;

	ibex_om_family(&r->m, "ibex_lane_residence_seconds", IBEX_OM_HISTOGRAM,
		       "switch residence time of the lane's frames, RX to TX "
		       "(path: queued or cut_through)");
	for (s = 0; s < r->n; s++)
		for (p = 0; p < r->dps[s]->nb_ports; p++)
			for (vl = 0; vl < r->snap[s][p].nb_lanes; vl++)
				for (q = 0; q < 2; q++) {
					ibex_hist_init(r->hist);
					if (ibex_dp_residence(r->dps[s], p, vl,
							q, r->hist) < 0)
						continue;
					labels_port(&lb, r, s, p);
					labels_vl(&lb, vl);
					labels_add(&lb, "path", q ? "queued" :
						   "cut_through");
					render_res_one(r, &lb, hz);
				}
}

int
ibex_metrics_render(struct ibex_dp *const *dps, const char *const *names,
		    unsigned int n, enum ibex_om_format fmt,
		    struct ibex_out *o)
{
	struct render r = { .dps = dps, .names = names, .n = n };
	unsigned int s;
	int ret;

	ibex_om_init(&r.m, o, fmt);
	r.hist = malloc(sizeof(*r.hist));
	ret = r.hist == NULL ? -ENOMEM : snapshot(&r);
	if (ret == 0) {
		render_info(&r);
		render_ports(&r);
		render_lanes(&r);
		render_fc(&r);
		render_cbfc(&r);
		render_residence(&r);
		ret = ibex_om_finish(&r.m);
	}
	if (r.snap != NULL)
		for (s = 0; s < n; s++)
			free(r.snap[s]);
	free(r.snap);
	free(r.hist);
	return ret;
}

int
ibex_metrics_parse_addr(const char *s, struct sockaddr_storage *ss,
			char *err, size_t len)
{
	struct sockaddr_in *in4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
	char host[64] = "127.0.0.1";
	const char *port = s, *colon;
	unsigned long v;
	char *end;

	memset(ss, 0, sizeof(*ss));
	if (s[0] == '[') {
		const char *close = strchr(s, ']');

		if (close == NULL || close[1] != ':' ||
		    (size_t)(close - s - 1) >= sizeof(host))
			goto bad;
		memcpy(host, s + 1, (size_t)(close - s - 1));
		host[close - s - 1] = '\0';
		port = close + 2;
	} else if ((colon = strrchr(s, ':')) != NULL) {
		if ((size_t)(colon - s) >= sizeof(host) || colon == s)
			goto bad;
		memcpy(host, s, (size_t)(colon - s));
		host[colon - s] = '\0';
		port = colon + 1;
	}
	errno = 0;
	v = strtoul(port, &end, 10);
	if (*port == '\0' || *end != '\0' || errno != 0 || v == 0 ||
	    v > 65535)
		goto bad;
	if (inet_pton(AF_INET, host, &in4->sin_addr) == 1) {
		in4->sin_family = AF_INET;
		in4->sin_port = htons((uint16_t)v);
		return 0;
	}
	if (inet_pton(AF_INET6, host, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)v);
		return 0;
	}
bad:
	snprintf(err, len, "--metrics '%s': expected PORT, ADDR:PORT or "
		 "[ADDR6]:PORT (a numeric address, PORT 1..65535)", s);
	return -EINVAL;
}

#ifdef IBEX_HAVE_MHD

struct ibex_metrics {
	struct MHD_Daemon *d;
	struct ibex_dp **dps;
	const char **names;
	unsigned int n;
};

static enum MHD_Result
reply(struct MHD_Connection *c, unsigned int status, const char *ctype,
      const char *body, size_t n)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;

	resp = MHD_create_response_from_buffer(n, (void *)(uintptr_t)body,
					       MHD_RESPMEM_MUST_COPY);
	if (resp == NULL)
		return MHD_NO;
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
	ret = MHD_queue_response(c, status, resp);
	MHD_destroy_response(resp);
	return ret;
}

static enum MHD_Result
on_request(void *cls, struct MHD_Connection *c, const char *url,
	   const char *method, const char *version, const char *upload,
	   size_t *upload_size, void **req_cls)
{
	static const char text[] = "text/plain; charset=utf-8";
	struct ibex_metrics *m = cls;
	enum ibex_om_format fmt;
	struct ibex_out o;
	enum MHD_Result ret;

	(void)version;
	(void)upload;
	if (*req_cls == NULL) {         /* headers only so far */
		*req_cls = m;
		return MHD_YES;
	}
	if (*upload_size != 0)
		return reply(c, MHD_HTTP_BAD_REQUEST, text, "no body\n", 8);
	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, text,
			     "GET /metrics\n", 13);
	if (strcmp(url, "/metrics") != 0)
		return reply(c, MHD_HTTP_NOT_FOUND, text,
			     "ibex: the metrics are at /metrics\n", 34);
	fmt = ibex_om_accepts_openmetrics(MHD_lookup_connection_value(c,
			MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT)) ?
	      IBEX_OM_OPENMETRICS : IBEX_OM_PROMETHEUS;
	ibex_out_init(&o);
	if (ibex_metrics_render(m->dps, m->names, m->n, fmt, &o) < 0) {
		ibex_out_free(&o);
		return reply(c, MHD_HTTP_INTERNAL_SERVER_ERROR, text,
			     "ibex: out of memory\n", 20);
	}
	ret = reply(c, MHD_HTTP_OK, fmt == IBEX_OM_OPENMETRICS ?
		    IBEX_OM_CTYPE_OPENMETRICS : IBEX_OM_CTYPE_PROMETHEUS,
		    o.buf != NULL ? o.buf : "", o.len);
	ibex_out_free(&o);
	return ret;
}

static void
metrics_free(struct ibex_metrics *m)
{
	free(m->dps);
	free(m->names);
	free(m);
}

int
ibex_metrics_start(struct ibex_metrics **mp, struct ibex_dp *const *dps,
		   const char *const *names, unsigned int n, const char *addr,
		   char *err, size_t len)
{
	struct sockaddr_storage ss;
	struct ibex_metrics *m;
	unsigned int flags;
	uint16_t port;
	int ret;

	*mp = NULL;
	ret = ibex_metrics_parse_addr(addr, &ss, err, len);
	if (ret < 0)
		return ret;
	m = calloc(1, sizeof(*m));
	if (m == NULL || (m->dps = calloc(n, sizeof(*m->dps))) == NULL ||
	    (names != NULL &&
	     (m->names = calloc(n, sizeof(*m->names))) == NULL)) {
		if (m != NULL)
			metrics_free(m);
		snprintf(err, len, "--metrics: out of memory");
		return -ENOMEM;
	}
	memcpy(m->dps, dps, n * sizeof(*dps));
	if (names != NULL)
		memcpy(m->names, names, n * sizeof(*names));
	m->n = n;
	/* One thread of MHD's own, asleep in epoll between requests. */
	flags = MHD_USE_EPOLL_INTERNAL_THREAD | MHD_USE_ERROR_LOG;
	if (ss.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	/* The port again: MHD_OPTION_SOCK_ADDR binds, MHD's own messages
	 * name this one. */
	port = ss.ss_family == AF_INET6 ?
	       ntohs(((struct sockaddr_in6 *)&ss)->sin6_port) :
	       ntohs(((struct sockaddr_in *)&ss)->sin_port);
	errno = 0;
	m->d = MHD_start_daemon(flags, port, NULL, NULL, on_request, m,
			MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
			MHD_OPTION_CONNECTION_TIMEOUT, 10u,
			MHD_OPTION_CONNECTION_LIMIT, 16u,
			MHD_OPTION_END);
	if (m->d == NULL) {
		ret = errno != 0 ? -errno : -EADDRNOTAVAIL;
		snprintf(err, len, "--metrics %s: cannot serve HTTP there: %s",
			 addr, strerror(-ret));
		metrics_free(m);
		return ret;
	}
	*mp = m;
	return 0;
}

void
ibex_metrics_stop(struct ibex_metrics *m)
{
	if (m == NULL)
		return;
	MHD_stop_daemon(m->d);
	metrics_free(m);
}

#else /* !IBEX_HAVE_MHD */

int
ibex_metrics_start(struct ibex_metrics **mp, struct ibex_dp *const *dps,
		   const char *const *names, unsigned int n, const char *addr,
		   char *err, size_t len)
{
	(void)dps;
	(void)names;
	(void)n;
	*mp = NULL;
	snprintf(err, len, "--metrics %s: this ibex was built without "
		 "libmicrohttpd (install libmicrohttpd-dev and rebuild: "
		 "meson setup -Dmetrics=enabled)", addr);
	return -ENOTSUP;
}

void
ibex_metrics_stop(struct ibex_metrics *m)
{
	(void)m;
}

#endif /* IBEX_HAVE_MHD */
