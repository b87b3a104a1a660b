/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reports: the nccl-tests-style table, the latency/jitter summary, JSON,
 * CSV and gnuplot plots. Not on the data path: runs after the measurement.
 *
 *   algbw = S / t                   (bytes per second, shown in GB/s)
 *   busbw = algbw x factor          ring/hd 2(n-1)/n, alltoall (n-1)/n,
 *                                   incast n-1
 *   time  = mean completion time of the measured iterations
 *   idle  = mean over iterations of the idle rank time (ibex_coll_idle)
 */

#include <errno.h>
#include <math.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ibex_gen_engine.h"
#include "ibex_json.h"
#include "ibex_gen_meas.h"
#include "ibex_gen_report.h"
#include "ibex_gen_inc.h"
#include "ibex_gen_search.h"

/* What kind of run a report is of, chosen once (ibex_gen_report_init()):
 * a collective's sweep over sizes, an open-loop trial, or a search. */
struct ibex_gen_report_kind {
	bool sized;              /* a row per message size (sweeps) */
	void (*print)(FILE *f, const struct ibex_gen_report *rep);
	void (*csv)(FILE *f, const struct ibex_gen_report *rep);
};

static const struct ibex_gen_report_kind *report_kind_of(
	const struct ibex_gen_opts *o);

static double
to_ns(const struct ibex_gen_report *rep, uint64_t ticks)
{
	return (double)ticks * 1e9 / (double)rep->hz;
}

int
ibex_gen_meas_init(struct ibex_gen_meas *m, uint32_t nsub)
{
	uint32_t f;

	memset(m, 0, sizeof(*m));
	if (nsub == 0)
		nsub = 1;
	m->jit = calloc(nsub, sizeof(*m->jit));
	m->seq = calloc(nsub, sizeof(*m->seq));
	m->last_cnp = calloc(nsub, sizeof(*m->last_cnp));
	m->tx_seq = calloc(nsub, sizeof(*m->tx_seq));
	m->tx_psn = calloc(nsub, sizeof(*m->tx_psn));
	if (m->jit == NULL || m->seq == NULL || m->last_cnp == NULL ||
	    m->tx_seq == NULL || m->tx_psn == NULL) {
		ibex_gen_meas_fini(m);
		return -ENOMEM;
	}
	m->nsub = nsub;
	ibex_hist_init(&m->lat);
	ibex_hist_init(&m->recovery);
	m->lat_cur = &m->lat;
	for (f = 0; f < nsub; f++) {
		ibex_jitter_init(&m->jit[f]);
		ibex_seq_init(&m->seq[f], 0);
	}
	return 0;
}

void
ibex_gen_meas_fini(struct ibex_gen_meas *m)
{
	free(m->jit);
	free(m->seq);
	free(m->last_cnp);
	free(m->tx_seq);
	free(m->tx_psn);
	m->jit = NULL;
	m->seq = NULL;
	m->last_cnp = NULL;
	m->tx_seq = NULL;
	m->tx_psn = NULL;
	m->nsub = 0;
}

void
ibex_gen_meas_reset_latency(struct ibex_gen_meas *m)
{
	unsigned int f;

	ibex_hist_reset(&m->lat);
	for (f = 0; f < m->nsizes; f++)
		ibex_hist_reset(&m->lat_size[f]);
	for (f = 0; f < m->nsub; f++)
		ibex_jitter_init(&m->jit[f]);
}

void
ibex_gen_meas_sizes(struct ibex_gen_meas *m, struct ibex_hist *h,
		    unsigned int n)
{
	unsigned int i;

	m->lat_size = n != 0 ? h : NULL;
	m->nsizes = h != NULL ? n : 0;
	for (i = 0; i < m->nsizes; i++)
		ibex_hist_init(&m->lat_size[i]);
	m->lat_cur = &m->lat;
}

void
ibex_gen_meas_size_select(struct ibex_gen_meas *m, unsigned int si)
{
	m->lat_cur = si < m->nsizes ? &m->lat_size[si] : &m->lat;
}

void
ibex_gen_meas_size_restart(struct ibex_gen_meas *m)
{
	ibex_hist_reset(m->lat_cur);
}

void
ibex_gen_meas_sizes_fold(struct ibex_gen_meas *m)
{
	unsigned int i;

	if (m->nsizes == 0)
		return;
	ibex_hist_reset(&m->lat);
	for (i = 0; i < m->nsizes; i++)
		ibex_hist_merge(&m->lat, &m->lat_size[i]);
}

const struct ibex_hist *
ibex_gen_meas_size_lat(const struct ibex_gen_meas *m, unsigned int si)
{
	return si < m->nsizes ? &m->lat_size[si] : NULL;
}

int
ibex_gen_report_init(struct ibex_gen_report *rep, const struct ibex_gen_opts *o,
		     uint64_t hz, const struct ibex_gen_meas *meas)
{
	uint64_t b;
	unsigned int i;

	memset(rep, 0, sizeof(*rep));
	rep->opts = o;
	rep->hz = hz;
	rep->meas = meas;
	rep->dcqcn_min_rate = -1;
	rep->kind = report_kind_of(o);
	if (!rep->kind->sized)
		return 0;
	for (b = o->min_bytes; b <= o->max_bytes && rep->nsizes < IBEX_GEN_MAX_SIZES;
	     b *= o->factor) {
		struct ibex_gen_size_res *s = &rep->size[rep->nsizes++];

		s->bytes = b;
		s->ct = calloc(o->iters, sizeof(*s->ct));
		if (s->ct == NULL) {
			ibex_gen_report_free(rep);
			return -ENOMEM;
		}
	}
	for (i = 0; i < rep->nsizes; i++) {
		struct ibex_coll_cfg cfg = { .algo = o->engine->coll,
			.nranks = o->nranks, .bytes = rep->size[i].bytes };

		rep->size[i].bytes = ibex_coll_msg_bytes(&cfg);
		rep->nsteps_max = ibex_coll_nsteps(&cfg);
	}
	/* per step and per rank: as many as the run has */
	for (i = 0; i < rep->nsizes; i++) {
		struct ibex_gen_size_res *s = &rep->size[i];

		s->step_ns = calloc(rep->nsteps_max, sizeof(*s->step_ns));
		s->rank_ns = calloc(o->nranks, sizeof(*s->rank_ns));
		if (s->step_ns == NULL || s->rank_ns == NULL) {
			ibex_gen_report_free(rep);
			return -ENOMEM;
		}
	}
	return 0;
}

void
ibex_gen_report_free(struct ibex_gen_report *rep)
{
	unsigned int i;

	for (i = 0; i < rep->nsizes; i++) {
		free(rep->size[i].ct);
		free(rep->size[i].step_ns);
		free(rep->size[i].rank_ns);
		rep->size[i].ct = NULL;
		rep->size[i].step_ns = NULL;
		rep->size[i].rank_ns = NULL;
	}
}

void
ibex_gen_report_iter(struct ibex_gen_report *rep, unsigned int si,
		     const struct ibex_coll *c)
{
	struct ibex_gen_size_res *s = &rep->size[si];
	unsigned int r, st;

	if (s->iters >= rep->opts->iters)
		return;
	s->ct[s->iters++] = (uint64_t)to_ns(rep, ibex_coll_elapsed(c));
	s->idle_ns += (uint64_t)to_ns(rep, ibex_coll_idle(c));
	s->tx_bytes_rank = c->rank[0].tx_bytes;
	for (st = 0; st < c->nsteps && st < rep->nsteps_max; st++)
		s->step_ns[st] += to_ns(rep, c->step_max[st] - c->t0);
	for (r = 0; r < c->cfg.nranks && r < rep->opts->nranks; r++)
		s->rank_ns[r] += to_ns(rep, c->rank[r].done_at - c->t0);
}

void
ibex_gen_report_iter_inc(struct ibex_gen_report *rep, unsigned int si,
			 const struct ibex_inc *x)
{
	struct ibex_gen_size_res *s = &rep->size[si];
	uint64_t last = x->t0, done, idle = 0;
	uint16_t r;

	if (s->iters >= rep->opts->iters)
		return;
	for (r = 0; r < x->cfg.nranks; r++) {
		ibex_inc_rank_done(x, r, &done);
		if (done > last)
			last = done;
		if (r < rep->opts->nranks)
			s->rank_ns[r] += to_ns(rep, done - x->t0);
	}
	/* idle: each rank waiting for the last one's results */
	for (r = 0; r < x->cfg.nranks; r++) {
		ibex_inc_rank_done(x, r, &done);
		idle += last - done;
	}
	s->ct[s->iters++] = (uint64_t)to_ns(rep, last - x->t0);
	s->idle_ns += (uint64_t)to_ns(rep, idle);
	s->tx_bytes_rank = x->cfg.elems * 4;
	if (rep->nsteps_max > 0)
		s->step_ns[0] += to_ns(rep, last - x->t0);
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

uint64_t
ibex_gen_ct_quantile(const struct ibex_gen_size_res *s, double q)
{
	uint64_t *v;
	uint64_t res;
	size_t k;

	if (s->iters == 0)
		return 0;
	v = malloc(s->iters * sizeof(*v));
	if (v == NULL)
		return 0;
	memcpy(v, s->ct, s->iters * sizeof(*v));
	qsort(v, s->iters, sizeof(*v), cmp_u64);
	/* nearest rank, as ibex_hist_quantile: ceil(q n), at least 1 */
	k = (size_t)(q * s->iters + 0.999999);
	if (k < 1)
		k = 1;
	if (k > s->iters)
		k = s->iters;
	res = v[k - 1];
	free(v);
	return res;
}

static double
ct_mean(const struct ibex_gen_size_res *s)
{
	double sum = 0;
	uint32_t i;

	for (i = 0; i < s->iters; i++)
		sum += (double)s->ct[i];
	return s->iters ? sum / s->iters : 0;
}

void
ibex_gen_meas_seq_total(const struct ibex_gen_meas *m,
			struct ibex_seq_counters *out)
{
	struct ibex_seq_counters c;
	unsigned int f;

	memset(out, 0, sizeof(*out));
	for (f = 0; f < m->nsub; f++) {
		if (m->seq[f].c.rx == 0 && m->seq[f].c.lost == 0)
			continue;
		ibex_seq_read(&m->seq[f], &c);
		ibex_seq_counters_add(out, &c);
	}
}

/* RFC 3550 J over the flows: mean and largest, in ns. */
static void
jitter_summary(const struct ibex_gen_report *rep, double *mean, double *max)
{
	const struct ibex_gen_meas *m = rep->meas;
	unsigned int f, n = 0;
	double sum = 0, j;

	*max = 0;
	for (f = 0; f < m->nsub; f++) {
		if (m->jit[f].count < 2)
			continue;
		j = ibex_jitter_rfc3550(&m->jit[f]) * 1e9 / (double)rep->hz;
		sum += j;
		n++;
		if (j > *max)
			*max = j;
	}
	*mean = n ? sum / n : 0;
}

struct lat_summary {
	uint64_t n;
	double min, p50, p99, p999, max, mean, pdv99, pdv999, jmean, jmax;
};

/* The latency figures of one histogram, in ns (jitter left at 0). */
static void
hist_summary(const struct ibex_gen_report *rep, const struct ibex_hist *h,
	     struct lat_summary *l)
{
	memset(l, 0, sizeof(*l));
	l->n = ibex_hist_count(h);
	l->min = to_ns(rep, ibex_hist_min(h));
	l->p50 = to_ns(rep, ibex_hist_quantile(h, 0.5));
	l->p99 = to_ns(rep, ibex_hist_quantile(h, 0.99));
	l->p999 = to_ns(rep, ibex_hist_quantile(h, 0.999));
	l->max = to_ns(rep, ibex_hist_max(h));
	l->mean = ibex_hist_mean(h) * 1e9 / (double)rep->hz;
	l->pdv99 = to_ns(rep, ibex_pdv_quantile(h, 0.99));
	l->pdv999 = to_ns(rep, ibex_pdv_quantile(h, 0.999));
}

/* Open-loop flow @p i's latency (all zero without its histogram). */
static void
flow_lat_summary(const struct ibex_gen_report *rep, unsigned int i,
		 struct lat_summary *l)
{
	if (rep->rflow_lat == NULL) {
		memset(l, 0, sizeof(*l));
		return;
	}
	hist_summary(rep, &rep->rflow_lat[i], l);
}

/* The whole run's latency and jitter. */
static void
lat_summary(const struct ibex_gen_report *rep, struct lat_summary *l)
{
	hist_summary(rep, &rep->meas->lat, l);
	jitter_summary(rep, &l->jmean, &l->jmax);
}

/* Size slot @p si's latency (all zero when it has no histogram). */
static void
size_lat_summary(const struct ibex_gen_report *rep, unsigned int si,
		 struct lat_summary *l)
{
	const struct ibex_hist *h = ibex_gen_meas_size_lat(rep->meas, si);

	if (h == NULL) {
		memset(l, 0, sizeof(*l));
		return;
	}
	hist_summary(rep, h, l);
}

/* Offered and received frames per open-loop flow (one trial). */
static void
print_flows(FILE *f, const struct ibex_gen_report *rep)
{
	unsigned int i;

	fprintf(f, "# %-9s %14s %14s %10s %12s %12s %10s %10s %10s\n", "flow",
		"offered", "received", "loss(%)", "offered", "received",
		"lat p50", "lat p99", "lat max");
	fprintf(f, "# %-9s %14s %14s %10s %12s %12s %10s %10s %10s\n",
		"(src>dst)", "(frames)", "(frames)", "", "(Mpps)", "(Mpps)",
		"(us)", "(us)", "(us)");
	for (i = 0; i < rep->nrflows; i++) {
		uint64_t tx = rep->rflow_tx[i], rx = rep->rflow_rx[i];
		struct lat_summary l;
		char name[16];

		flow_lat_summary(rep, i, &l);
		snprintf(name, sizeof(name), "%u>%u", rep->rflow[i].src,
			 rep->rflow[i].dst);
		fprintf(f, "  %-9s %14" PRIu64 " %14" PRIu64 " %10.4f %12.4f "
			"%12.4f %10.1f %10.1f %10.1f\n", name, tx, rx,
			ibex_search_loss(tx, rx) * 100.0,
			rep->elapsed_s > 0 ? tx / rep->elapsed_s / 1e6 : 0,
			rep->elapsed_s > 0 ? rx / rep->elapsed_s / 1e6 : 0,
			l.p50 / 1e3, l.p99 / 1e3, l.max / 1e3);
	}
}

/* Line rate of @p pps frames of @p size bytes (with FCS), Gb/s: L2
 * counts the frame, L1 adds preamble, SFD and inter-frame gap (20 B). */
static double
gbps(double pps, uint32_t size, bool l1)
{
	return pps * (size + (l1 ? 20 : 0)) * 8 / 1e9;
}

static void
print_search(FILE *f, const struct ibex_gen_report *rep)
{
	const struct ibex_gen_opts *o = rep->opts;
	unsigned int i;

	if (o->search == IBEX_GEN_SEARCH_RATE) {
		fprintf(f, "# RFC 2544 throughput: %u flow(s), trial %.3f s, "
			"resolution %.2f %% of max, PDR loss <= %.4f %%, "
			"retries %u\n", rep->nrflows, o->trial_s,
			o->resolution * 100, o->pdr_loss * 100, o->retries);
		fprintf(f, "# %6s %6s %9s %9s %9s %9s %9s %10s %9s %9s\n",
			"size", "trials", "max", "NDR", "NDR", "PDR", "PDR",
			"loss@PDR", "p50@NDR", "p99@NDR");
		fprintf(f, "# %6s %6s %9s %9s %9s %9s %9s %10s %9s %9s\n",
			"(B)", "", "(Mpps)", "(Mpps)", "(Gb/s)", "(Mpps)",
			"(Gb/s)", "(%)", "(us)", "(us)");
		for (i = 0; i < rep->nsearch; i++) {
			const struct ibex_gen_search_res *sr = &rep->search[i];

			fprintf(f, "  %6u %6u %9.4f %9.4f %9.3f %9.4f %9.3f "
				"%10.4f %9.2f %9.2f\n", sr->size, sr->trials,
				sr->max_pps / 1e6, sr->ndr_pps / 1e6,
				gbps(sr->ndr_pps, sr->size, false),
				sr->pdr_pps / 1e6,
				gbps(sr->pdr_pps, sr->size, false),
				sr->pdr_loss * 100, sr->lat_p50_ns / 1e3,
				sr->lat_p99_ns / 1e3);
		}
		fprintf(f, "# Gb/s = Mpps x size x 8 / 1000 (frame with FCS; "
			"add 20 B per frame for L1)\n");
		for (i = 0; i < rep->nsearch; i++)
			if (rep->search[i].short_trials != 0)
				fprintf(f, "# %u B: %u trial(s) offered below "
					"their target rate (a busy host?), run "
					"again within --retries %u; rates "
					"shown are those offered\n",
					rep->search[i].size,
					rep->search[i].short_trials,
					o->retries);
	} else {
		const struct ibex_gen_search_res *sr = &rep->search[0];

		fprintf(f, "# RFC 8239 microburst: %u flow(s) bursting together, "
			"frame %u B, up to %u frames per flow\n", rep->nrflows,
			sr->size, o->burst_max);
		fprintf(f, "# largest burst without loss: %u frames per flow "
			"(%u in all), %u trials; latency p50 %.2f p99 %.2f max "
			"%.2f us\n", sr->burst, sr->burst * rep->nrflows,
			sr->trials, sr->lat_p50_ns / 1e3, sr->lat_p99_ns / 1e3,
			sr->lat_max_ns / 1e3);
		if (sr->fail_burst)
			fprintf(f, "# smallest burst with loss: %u per flow: "
				"%" PRIu64 " of %" PRIu64 " frames arrived "
				"(loss %.3f %%)\n", sr->fail_burst, sr->fail_rx,
				sr->fail_tx, sr->fail_loss * 100);
	}
}

static unsigned int
failed_sizes(const struct ibex_gen_report *rep)
{
	unsigned int i, n = 0;

	for (i = 0; i < rep->nsizes; i++)
		n += rep->size[i].failed != 0;
	return n;
}

/* A size without a measured iteration: never started, every iteration
 * it started failed, or the run was told to stop in its warm-up. */
static const char *
size_state(const struct ibex_gen_size_res *s)
{
	if (s->tried == 0)
		return "not run";
	return s->failed + s->warm_failed != 0 ? "failed" : "stopped";
}

/* The fail column: measured iterations that failed, "-" when none ran. */
static const char *
fail_cell(const struct ibex_gen_size_res *s)
{
	static char buf[16];

	if (s->tried == 0)
		return "-";
	snprintf(buf, sizeof(buf), "%u", s->failed + s->warm_failed);
	return buf;
}

/* Under the table: why sizes have no figures, and where the sweep
 * stopped early, so that no row of dashes is left unexplained. */
static void
print_not_measured(FILE *f, const struct ibex_gen_report *rep)
{
	unsigned int i, not_run = 0, all_failed = 0;

	for (i = 0; i < rep->nsizes; i++) {
		if (rep->size[i].tried == 0)
			not_run++;
		else if (rep->size[i].iters == 0)
			all_failed++;
	}
	if (all_failed != 0)
		fprintf(f, "# no figures: %u size(s) started without one "
			"completed measured iteration (their fail column counts "
			"warm-up iterations too)\n", all_failed);
	if (not_run != 0)
		fprintf(f, "# not run: %u of %u sizes never started%s\n",
			not_run, rep->nsizes, rep->stop_reason[0] != '\0' ?
			" (the sweep stopped early)" : "");
	if (rep->stop_reason[0] != '\0')
		fprintf(f, "# STOPPED EARLY: %s\n", rep->stop_reason);
}

/* nccl-tests' closing line: the mean bus bandwidth over the sizes. */
static void
print_avg_busbw(FILE *f, const struct ibex_gen_report *rep, double factor)
{
	double sum = 0;
	unsigned int i, n = 0;

	for (i = 0; i < rep->nsizes; i++) {
		double t = ct_mean(&rep->size[i]);

		if (t > 0) {
			sum += (double)rep->size[i].bytes / t * factor;
			n++;
		}
	}
	fprintf(f, "# Out of bounds values : %u FAILED\n", failed_sizes(rep));
	fprintf(f, "# Avg bus bandwidth    : %.6f \n#\n", n ? sum / n : 0);
}

/* Per-frame one-way latency of each message size (measured iterations). */
static void
print_size_latency(FILE *f, const struct ibex_gen_report *rep)
{
	unsigned int i;

	if (rep->meas->nsizes == 0)
		return;
	fprintf(f, "# per-frame latency by message size (measured iterations)\n");
	fprintf(f, "# %10s %10s %10s %10s %10s %10s %10s %10s\n", "size",
		"frames", "min", "p50", "p99", "p99.9", "max", "mean");
	fprintf(f, "# %10s %10s %10s %10s %10s %10s %10s %10s\n", "(B)", "",
		"(us)", "(us)", "(us)", "(us)", "(us)", "(us)");
	for (i = 0; i < rep->nsizes; i++) {
		struct lat_summary l;

		size_lat_summary(rep, i, &l);
		if (l.n == 0) {
			fprintf(f, "  %10" PRIu64 " %10s %10s %10s %10s %10s "
				"%10s %10s\n", rep->size[i].bytes,
				rep->size[i].tried == 0 ? "not run" : "0", "-",
				"-", "-", "-", "-", "-");
			continue;
		}
		fprintf(f, "  %10" PRIu64 " %10" PRIu64 " %10.2f %10.2f %10.2f "
			"%10.2f %10.2f %10.2f\n", rep->size[i].bytes, l.n,
			l.min / 1e3, l.p50 / 1e3, l.p99 / 1e3, l.p999 / 1e3,
			l.max / 1e3, l.mean / 1e3);
	}
	fprintf(f, "#\n");
}

/* The first job's id and slots (the options' before any ran). */
static void
inc_first_job(const struct ibex_gen_report *rep, uint32_t *id,
	      uint32_t *slots)
{
	*id = rep->inc.njobs != 0 ? rep->inc.job[0].id : rep->opts->agg_job;
	*slots = rep->inc.njobs != 0 ? rep->inc.job[0].slots :
				       rep->opts->agg_slots;
}

/* The # inc: line: the job (or the jobs run at once) and the ranks'
 * counters summed. */
static void
inc_print(FILE *f, const struct ibex_gen_report *rep)
{
	const struct ibex_gen_opts *o = rep->opts;
	const struct ibex_gen_inc_figs *x = &rep->inc;
	uint32_t id, slots;
	unsigned int k;

	inc_first_job(rep, &id, &slots);
	if (x->njobs > 1) {
		fprintf(f, "# inc: %u jobs at once:", x->njobs);
		for (k = 0; k < x->njobs; k++)
			fprintf(f, "%s %u (%u ranks, %u slots)", k ? "," : "",
				x->job[k].id, x->job[k].ranks,
				x->job[k].slots);
		fprintf(f, ";");
	} else {
		fprintf(f, "# inc: job %u, %u slots,", id, slots);
	}
	fprintf(f, " %u elements a packet, %s; contributions sent %" PRIu64
		" (again %" PRIu64 "), results %" PRIu64 " (every element "
		"checked: %" PRIu64 " wrong in %" PRIu64 "), held already %"
		PRIu64 ", refused %" PRIu64 "\n", o->agg_elements,
		o->agg_int32 ? "int32" : "fp32", x->sent, x->resent,
		x->results, x->elems_wrong, x->wrong, x->stale, x->bad);
}

/* JSON "inc": the first job's id and slots, every job, the counters. */
static void
inc_json(FILE *f, const struct ibex_gen_report *rep)
{
	const struct ibex_gen_opts *o = rep->opts;
	const struct ibex_gen_inc_figs *x = &rep->inc;
	uint32_t id, slots;
	unsigned int k;

	inc_first_job(rep, &id, &slots);
	fprintf(f, "  \"inc\": {\"job\": %u, \"slots\": %u, \"jobs\": [",
		id, slots);
	for (k = 0; k < x->njobs; k++)
		fprintf(f, "%s{\"id\": %u, \"ranks\": %u, \"slots\": %u}",
			k ? ", " : "", x->job[k].id, x->job[k].ranks,
			x->job[k].slots);
	fprintf(f, "], \"elements\": %u, \"type\": \"%s\", \"sent\": %"
		PRIu64 ", \"resent\": %" PRIu64 ", \"results\": %" PRIu64
		", \"wrong\": %" PRIu64 ", \"elems_wrong\": %" PRIu64
		", \"stale\": %" PRIu64 ", \"bad\": %" PRIu64 "},\n",
		o->agg_elements, o->agg_int32 ? "int32" : "fp32", x->sent,
		x->resent, x->results, x->wrong, x->elems_wrong, x->stale,
		x->bad);
}

/* The busbw factor of the report's engine: with several inc jobs at
 * once, each job's all-reduce is among its own ranks, the largest's. */
static double
busbw_factor(const struct ibex_gen_report *rep)
{
	const struct ibex_gen_opts *o = rep->opts;
	unsigned int n = 0, k;

	for (k = 0; k < rep->inc.njobs; k++)
		if (rep->inc.job[k].ranks > n)
			n = rep->inc.job[k].ranks;
	return ibex_gen_busbw_factor(o->engine, n != 0 ? n : o->nranks);
}

/* The head of a sweep's report: nccl-tests' table, one row per size. */
static void
print_sweep(FILE *f, const struct ibex_gen_report *rep)
{
	const struct ibex_gen_opts *o = rep->opts;
	double factor = busbw_factor(rep);
	unsigned int i;

	fprintf(f, "#\n# ibex-gen: %s, %u ranks, %u iterations (+%u warm-up)",
		o->engine->name, o->nranks, o->iters,
		o->warmup);
	if (o->straggler.rank >= 0)
		fprintf(f, ", straggler rank %d +%.1f us %s%.2f",
			o->straggler.rank, o->straggler_us,
			o->straggler.once ? "once, p=" : "p=",
			o->straggler.prob);
	fprintf(f, "\n#\n");
	fprintf(f, "# %10s %10s %6s %10s %11s %11s %10s %10s %10s %10s %5s\n",
		"size", "count", "type", "time", "algbw", "busbw",
		"ct_p50", "ct_p99", "ct_max", "idle", "fail");
	fprintf(f, "# %10s %10s %6s %10s %11s %11s %10s %10s %10s %10s %5s\n",
		"(B)", "(elements)", "", "(us)", "(GB/s)", "(GB/s)",
		"(us)", "(us)", "(us)", "(us)", "");
	for (i = 0; i < rep->nsizes; i++) {
		const struct ibex_gen_size_res *s = &rep->size[i];
		double t = ct_mean(s), algbw = t > 0 ?
			   (double)s->bytes / t : 0; /* B/ns = GB/s */

		if (s->iters == 0) {
			/* nothing measured: no figure, not a zero that reads
			 * as instant */
			fprintf(f, "  %10" PRIu64 " %10" PRIu64 " %6s %10s "
				"%11s %11s %10s %10s %10s %10s %5s\n", s->bytes,
				s->bytes / 4, "float", size_state(s), "-", "-",
				"-", "-", "-", "-", fail_cell(s));
			continue;
		}
		fprintf(f, "  %10" PRIu64 " %10" PRIu64 " %6s %10.2f "
			"%11.3f %11.3f %10.2f %10.2f %10.2f %10.2f %5u\n",
			s->bytes, s->bytes / 4, "float", t / 1e3, algbw,
			algbw * factor,
			ibex_gen_ct_quantile(s, 0.5) / 1e3,
			ibex_gen_ct_quantile(s, 0.99) / 1e3,
			ibex_gen_ct_quantile(s, 1.0) / 1e3,
			s->iters ? (double)s->idle_ns / s->iters / 1e3 : 0,
			s->failed);
	}
	fprintf(f, "# busbw = algbw x %.4f; time = mean completion; "
		"idle = mean idle rank time per iteration\n", factor);
	print_not_measured(f, rep);
	print_avg_busbw(f, rep, factor);
	print_size_latency(f, rep);
}

/* The head of an open-loop trial's report: offered and achieved rate. */
static void
print_trial(FILE *f, const struct ibex_gen_report *rep)
{
	const struct ibex_gen_opts *o = rep->opts;
	const struct ibex_gen_meas *m = rep->meas;
	double pps = rep->elapsed_s > 0 ?
		     (double)m->tx_frames / rep->elapsed_s : 0;

	fprintf(f, "# ibex-gen: rate, %u ranks, %.3f s: tx %" PRIu64
		" frames (%.3f Mpps, requested %.3f Mpps%s), rx %" PRIu64
		" frames, %.3f Gb/s tx\n", o->nranks, rep->elapsed_s,
		m->tx_frames, pps / 1e6, o->rate_pps / 1e6,
		o->rate_pps > 0 ? "" : " = max", m->rx_frames,
		rep->elapsed_s > 0 ? (double)m->tx_bytes * 8 /
		rep->elapsed_s / 1e9 : 0);
	if (o->rate_pps > 0)
		fprintf(f, "# pacing error %+.3f %% (resyncs %" PRIu64 ")\n",
			(pps - o->rate_pps) / o->rate_pps * 100.0,
			rep->pacer_resync);
	if (rep->pacer_resync != 0)
		fprintf(f, "# the generator stalled: its pacers skipped up to "
			"%.1f ms (%" PRIu64 " resyncs; rates over the rest "
			"hold, a busy host?)\n", rep->pacer_lost_s * 1e3,
			rep->pacer_resync);
	if (o->nrflows > 0)
		print_flows(f, rep);
}

/* --fc cbfc: the ranks' CBFC messages, stalls and recovered credits. */
static void
cbfc_print(FILE *f, const struct ibex_gen_cbfc_figs *c)
{
	fprintf(f, "# CBFC: CF_Update tx %" PRIu64 " rx %" PRIu64 " (bad %"
		PRIu64 "), CC_Update tx %" PRIu64 " rx %" PRIu64 " (bad %"
		PRIu64 "), stalls %" PRIu64 ", leaked credits recovered %"
		PRIu64 "\n", c->cf_update_tx, c->cf_update_rx, c->cf_update_bad,
		c->cc_update_tx, c->cc_update_rx, c->cc_update_bad, c->stalls,
		c->leaked_recovered);
	if (c->link_resets != 0)
		fprintf(f, "# CBFC: counters started again %" PRIu64 " times: "
			"a port's link went down (its peer restarted?); %" PRIu64
			" frames held then dropped\n", c->link_resets,
			c->reset_dropped);
	if (c->tx_failed != 0)
		fprintf(f, "# CBFC: %" PRIu64 " frames not sent (no mbuf, or "
			"the port full), not retried: the next CF_Update or "
			"CC_Update carries their counts\n", c->tx_failed);
}

/* The same as the "cbfc" object of "flow_control" (SAI's names), with
 * its leading comma; "" without --fc cbfc. */
static void
cbfc_json(char *buf, size_t len, const struct ibex_gen_report *rep)
{
	const struct ibex_gen_cbfc_figs *c = &rep->cbfc;

	buf[0] = '\0';
	if (rep->opts->fc != IBEX_GEN_FC_CBFC)
		return;
	snprintf(buf, len, ", \"cbfc\": {\"cc_update_tx\": %" PRIu64
		 ", \"cc_update_rx\": %" PRIu64 ", \"cf_update_tx\": %" PRIu64
		 ", \"cf_update_rx\": %" PRIu64 ", \"stalls\": %" PRIu64
		 ", \"leaked_recovered\": %" PRIu64 ", \"cf_update_bad\": %"
		 PRIu64 ", \"cc_update_bad\": %" PRIu64 ", \"link_resets\": %"
		 PRIu64 ", \"reset_dropped\": %" PRIu64 ", \"tx_failed\": %"
		 PRIu64 "}", c->cc_update_tx, c->cc_update_rx, c->cf_update_tx,
		 c->cf_update_rx, c->stalls, c->leaked_recovered,
		 c->cf_update_bad, c->cc_update_bad, c->link_resets,
		 c->reset_dropped, c->tx_failed);
}

void
ibex_gen_report_print(FILE *f, const struct ibex_gen_report *rep)
{
	const struct ibex_gen_opts *o = rep->opts;
	const struct ibex_gen_meas *m = rep->meas;
	struct ibex_gen_emulation emu;
	struct ibex_seq_counters sc;
	struct lat_summary l;

	rep->kind->print(f, rep);
	lat_summary(rep, &l);
	fprintf(f, "# latency (ns): frames %" PRIu64 " min %.0f p50 %.0f p99 %.0f "
		"p99.9 %.0f max %.0f mean %.0f\n", l.n, l.min, l.p50, l.p99,
		l.p999, l.max, l.mean);
	fprintf(f, "# jitter (ns): RFC 3550 J mean %.1f max %.1f; RFC 5481 PDV "
		"p99 %.0f p99.9 %.0f\n", l.jmean, l.jmax, l.pdv99, l.pdv999);
	ibex_gen_meas_seq_total(m, &sc);
	fprintf(f, "# frames: tx %" PRIu64 " rx %" PRIu64 " (tx %" PRIu64
		" B, rx %" PRIu64 " B); sequence: lost %" PRIu64 " out-of-order %"
		PRIu64 " duplicate %" PRIu64 "; foreign %" PRIu64 "\n",
		m->tx_frames, m->rx_frames, m->tx_bytes, m->rx_bytes, sc.lost,
		sc.out_of_order, sc.duplicate, m->foreign);
	if (m->trimmed_rx != 0 || m->retx_tx != 0)
		fprintf(f, "# trimming: %" PRIu64 " trimmed frames received "
			"(NACKs), %" PRIu64 " retransmitted, %" PRIu64
			" arrived, %" PRIu64 " NACKs lost, %" PRIu64 " still "
			"queued at the end; recovery (NACK to arrival) p50 %.1f "
			"p99 %.1f max %.1f us\n",
			m->trimmed_rx, m->retx_tx, m->retx_rx, m->nack_lost,
			m->retx_pending,
			to_ns(rep, ibex_hist_quantile(&m->recovery, 0.5)) / 1e3,
			to_ns(rep, ibex_hist_quantile(&m->recovery, 0.99)) / 1e3,
			to_ns(rep, ibex_hist_max(&m->recovery)) / 1e3);
	if (o->rto_us > 0)
		fprintf(f, "# timeouts (--rto %.0f us): %" PRIu64 " frames sent "
			"again, %" PRIu64 " of them arrived first; %" PRIu64
			" duplicates received (not counted again), %" PRIu64
			" NACKs of frames already queued or arrived, window "
			"full %" PRIu64 " times\n", o->rto_us, m->rto_tx,
			m->rto_rx, m->dup_rx, m->nack_dup, m->window_full);
	if (sc.out_of_order != 0)
		fprintf(f, "# reorder: %" PRIu64 " frames late on their QP; at "
			"most %u frames arrived ahead of one: a NIC reorder "
			"buffer of %" PRIu64 " bytes per QP\n", sc.out_of_order,
			m->reorder_depth, m->reorder_bytes);
	fprintf(f, "# ECN: CE %" PRIu64 " ECT %" PRIu64 "; CNPs %" PRIu64
		"; flow control: PFC rx %" PRIu64 " (paused %.1f us), credit rx %"
		PRIu64 " tx %" PRIu64 " stalls %" PRIu64 "\n", m->ce, m->ect,
		m->cnps, rep->pfc_rx, to_ns(rep, rep->pfc_paused_ticks) / 1e3,
		rep->credit_rx, rep->credit_tx, rep->credit_stalls);
	if (o->fc == IBEX_GEN_FC_CBFC)
		cbfc_print(f, &rep->cbfc);
	if (o->engine->inc)
		inc_print(f, rep);
	if (o->dcqcn)
		fprintf(f, "# DCQCN: rate cuts %" PRIu64 ", lowest rate %.3f Gb/s\n",
			rep->dcqcn_cuts, rep->dcqcn_min_rate * 8 / 1e9);
	if (o->tx_drop || rep->stale_rx)
		fprintf(f, "# open loop: refused by the port (dropped) %" PRIu64
			", frames of an earlier trial %" PRIu64 "\n",
			rep->tx_dropped, rep->stale_rx);
	ibex_gen_emulation_get(rep, &emu);
	ibex_gen_emulation_print(f, "# ", &emu);
}

void
ibex_gen_emulation_get(const struct ibex_gen_report *rep,
		       struct ibex_gen_emulation *e)
{
	const struct ibex_gen_opts *o = rep->opts;
	bool trial = !rep->kind->sized && o->search == IBEX_GEN_SEARCH_NONE;

	memset(e, 0, sizeof(*e));
	/* an open-loop trial's rate is over its sending window; anything
	 * else's over the whole scenario */
	e->open_loop = trial;
	e->search = !rep->kind->sized && o->search != IBEX_GEN_SEARCH_NONE;
	e->secs = trial ? rep->elapsed_s : rep->run_s;
	e->offered_pps = trial ? rep->offered_pps : 0;
	e->achieved_pps = e->secs > 0 ? (double)rep->meas->tx_frames /
					e->secs : 0;
	e->resyncs = rep->pacer_resync;
	e->resync_skipped_us = rep->pacer_lost_s * 1e6;
	e->stalls = rep->stalls;
	e->stall_max_us = rep->hz != 0 ? to_ns(rep, rep->stall_max) / 1e3 : 0;
}

void
ibex_gen_emulation_print(FILE *f, const char *prefix,
			 const struct ibex_gen_emulation *e)
{
	fprintf(f, "%semulation: ", prefix);
	if (e->offered_pps > 0)
		fprintf(f, "offered %.0f fps, achieved %.0f fps (%.1f%%)",
			e->offered_pps, e->achieved_pps,
			100.0 * e->achieved_pps / e->offered_pps);
	else
		fprintf(f, "%s, achieved %.0f fps",
			e->open_loop ? "offered as fast as possible" :
			e->search ? "a search (its trials' rates vary)" :
			"closed loop (no offered rate)", e->achieved_pps);
	/* a simulated all-reduce lasts microseconds */
	fprintf(f, " over %.*f s, %" PRIu64 " pacer resyncs",
		e->secs < 0.1 ? 6 : 3, e->secs, e->resyncs);
	if (e->resyncs != 0)
		fprintf(f, " (a flow skipped up to %.0f us in all)",
			e->resync_skipped_us);
	fprintf(f, ", %" PRIu64 " generator stalls >= %u us, max stall %.0f "
		"us\n", e->stalls, IBEX_GEN_STALL_US, e->stall_max_us);
}

void
ibex_gen_emulation_json(FILE *f, const struct ibex_gen_emulation *e)
{
	fprintf(f, "{\"offered_fps\": ");
	if (e->offered_pps > 0)
		fprintf(f, "%.1f", e->offered_pps);
	else
		fprintf(f, "null");
	fprintf(f, ", \"achieved_fps\": %.1f, \"achieved_ratio\": ",
		e->achieved_pps);
	if (e->offered_pps > 0)
		fprintf(f, "%.6f", e->achieved_pps / e->offered_pps);
	else
		fprintf(f, "null");
	fprintf(f, ", \"seconds\": %.6f, \"pacer_resyncs\": %" PRIu64
		", \"pacer_skipped_us\": %.1f, \"stalls\": %" PRIu64
		", \"stall_min_us\": %u, \"stall_max_us\": %.1f}", e->secs,
		e->resyncs, e->resync_skipped_us, e->stalls, IBEX_GEN_STALL_US,
		e->stall_max_us);
}

/* A figure of a size, or null when it has no measured iteration. */
static void
json_fig(FILE *f, const char *key, const struct ibex_gen_size_res *s,
	 double v)
{
	if (s->iters == 0)
		fprintf(f, ", \"%s\": null", key);
	else
		fprintf(f, ", \"%s\": %.6f", key, v);
}

/* One latency object: the whole run's "latency" and each size's share
 * it, so their keys cannot drift apart; the keys of every latency
 * summary ibex writes (docs/results.md: frames, min_ns, p50_ns, p99_ns,
 * p999_ns, max_ns), with the mean the generator adds. */
static void
lat_json(FILE *f, const struct lat_summary *l)
{
	fprintf(f, "{\"frames\": %" PRIu64 ", \"min_ns\": %.1f, "
		"\"p50_ns\": %.1f, \"p99_ns\": %.1f, \"p999_ns\": %.1f, "
		"\"max_ns\": %.1f, \"mean_ns\": %.1f}", l->n, l->min, l->p50,
		l->p99, l->p999, l->max, l->mean);
}

int
ibex_gen_report_json(const struct ibex_gen_report *rep, const char *path)
{
	const struct ibex_gen_opts *o = rep->opts;
	const struct ibex_gen_meas *m = rep->meas;
	double factor = busbw_factor(rep);
	struct ibex_gen_emulation emu;
	struct ibex_seq_counters sc;
	struct lat_summary l, sl;
	unsigned int i, k, nsteps;
	char cbfc[512];
	FILE *f = fopen(path, "w");

	if (f == NULL)
		return -errno;
	lat_summary(rep, &l);
	ibex_gen_meas_seq_total(m, &sc);
	cbfc_json(cbfc, sizeof(cbfc), rep);
	fprintf(f, "{\n");
	if (o->meta != NULL)
		fprintf(f, "  \"meta\": %s,\n", o->meta);
	fprintf(f, "  \"engine\": \"%s\",\n  \"ranks\": %u,\n"
		"  \"qps\": %u,\n  \"iters\": %u,\n  \"warmup\": %u,\n"
		"  \"straggler\": {\"rank\": %d, \"delay_us\": %.3f, \"prob\": %.4f, "
		"\"once\": %s},\n"
		"  \"busbw_factor\": %.6f,\n  \"sizes\": [",
		o->engine->name, o->nranks, o->qps ? o->qps : 1, o->iters,
		o->warmup,
		o->straggler.rank, o->straggler_us, o->straggler.prob,
		o->straggler.once ? "true" : "false", factor);
	for (i = 0; i < rep->nsizes; i++) {
		const struct ibex_gen_size_res *s = &rep->size[i];
		struct ibex_coll_cfg cfg = { .algo = o->engine->coll,
			.nranks = o->nranks, .bytes = s->bytes };
		double t = ct_mean(s), algbw = t > 0 ? (double)s->bytes / t : 0;

		nsteps = ibex_coll_nsteps(&cfg);
		size_lat_summary(rep, i, &sl);
		fprintf(f, "%s\n    {\"bytes\": %" PRIu64 ", \"count\": %" PRIu64
			", \"ran\": %s, \"attempted\": %u, \"iters\": %u, "
			"\"failed\": %u, \"warmup_failed\": %u", i ? "," : "",
			s->bytes, s->bytes / 4, s->tried ? "true" : "false",
			s->tried, s->iters, s->failed, s->warm_failed);
		/* no measured iteration: null, not a 0 that reads as
		 * instant */
		json_fig(f, "time_us", s, t / 1e3);
		json_fig(f, "algbw_gbs", s, algbw);
		json_fig(f, "busbw_gbs", s, algbw * factor);
		json_fig(f, "ct_p50_us", s, ibex_gen_ct_quantile(s, 0.5) / 1e3);
		json_fig(f, "ct_p99_us", s, ibex_gen_ct_quantile(s, 0.99) / 1e3);
		json_fig(f, "ct_max_us", s, ibex_gen_ct_quantile(s, 1.0) / 1e3);
		json_fig(f, "idle_us", s, s->iters ? (double)s->idle_ns /
			 s->iters / 1e3 : 0);
		fprintf(f, ", \"tx_bytes_rank0\": %" PRIu64 ", \"late_steps\": %"
			PRIu64 ", \"ct_us\": [", s->tx_bytes_rank, s->late);
		for (k = 0; k < s->iters; k++)
			fprintf(f, "%s%.3f", k ? "," : "", s->ct[k] / 1e3);
		fprintf(f, "], \"step_us\": [");
		for (k = 0; k < nsteps; k++)
			fprintf(f, "%s%.3f", k ? "," : "",
				s->iters ? s->step_ns[k] / s->iters / 1e3 : 0);
		fprintf(f, "], \"rank_us\": [");
		for (k = 0; k < o->nranks; k++)
			fprintf(f, "%s%.3f", k ? "," : "",
				s->iters ? s->rank_ns[k] / s->iters / 1e3 : 0);
		fprintf(f, "],\n     \"latency\": ");
		lat_json(f, &sl);
		fprintf(f, "}");
	}
	fprintf(f, "\n  ],\n  \"stopped_early\": ");
	if (rep->stop_reason[0] != '\0')
		ibex_json_fputs(f, rep->stop_reason);
	else
		fprintf(f, "null");
	fprintf(f, ",\n  \"emulation\": ");
	ibex_gen_emulation_get(rep, &emu);
	ibex_gen_emulation_json(f, &emu);
	fprintf(f, ",\n  \"latency\": ");
	lat_json(f, &l);
	fprintf(f, ",\n"
		"  \"jitter\": {\"rfc3550_mean_ns\": %.2f, "
		"\"rfc3550_max_ns\": %.2f, \"pdv_p99_ns\": %.1f, "
		"\"pdv_p999_ns\": %.1f},\n",
		l.jmean, l.jmax, l.pdv99, l.pdv999);
	fprintf(f, "  \"frames\": {\"tx\": %" PRIu64 ", \"rx\": %" PRIu64
		", \"tx_bytes\": %" PRIu64 ", \"rx_bytes\": %" PRIu64
		", \"foreign\": %" PRIu64 "},\n"
		"  \"sequence\": {\"lost\": %" PRIu64 ", \"out_of_order\": %" PRIu64
		", \"duplicate\": %" PRIu64 ", \"seq_too_high\": %" PRIu64
		", \"seq_too_low\": %" PRIu64 "},\n"
		"  \"reorder\": {\"late\": %" PRIu64 ", \"max_depth\": %u"
		", \"buffer_bytes\": %" PRIu64 "},\n"
		"  \"trim\": {\"trimmed_rx\": %" PRIu64 ", \"retx_tx\": %" PRIu64
		", \"retx_rx\": %" PRIu64 ", \"nack_lost\": %" PRIu64
		", \"retx_pending\": %" PRIu64 ", \"recovery_p50_ns\": %.1f, \"recovery_p99_ns\": %.1f"
		", \"recovery_max_ns\": %.1f},\n"
		"  \"rto\": {\"rto_us\": %.1f, \"rto_tx\": %" PRIu64
		", \"rto_rx\": %" PRIu64 ", \"dup_rx\": %" PRIu64
		", \"nack_dup\": %" PRIu64 ", \"window_full\": %" PRIu64 "},\n"
		"  \"ecn\": {\"ce\": %" PRIu64 ", \"ect\": %" PRIu64
		", \"cnps\": %" PRIu64 "},\n"
		"  \"flow_control\": {\"pfc_rx\": %" PRIu64 ", \"credit_rx\": %"
		PRIu64 ", \"credit_tx\": %" PRIu64 ", \"credit_stalls\": %" PRIu64
		"%s},\n  \"rate\": {\"elapsed_s\": %.6f, \"requested_pps\": %.1f, "
		"\"achieved_pps\": %.1f, \"resyncs\": %" PRIu64
		", \"skipped_s\": %.6f},\n",
		m->tx_frames, m->rx_frames, m->tx_bytes, m->rx_bytes, m->foreign,
		sc.lost, sc.out_of_order, sc.duplicate, sc.seq_too_high,
		sc.seq_too_low, sc.out_of_order, m->reorder_depth,
		m->reorder_bytes, m->trimmed_rx, m->retx_tx, m->retx_rx,
		m->nack_lost, m->retx_pending,
		to_ns(rep, ibex_hist_quantile(&m->recovery, 0.5)),
		to_ns(rep, ibex_hist_quantile(&m->recovery, 0.99)),
		to_ns(rep, ibex_hist_max(&m->recovery)), o->rto_us, m->rto_tx,
		m->rto_rx, m->dup_rx, m->nack_dup, m->window_full, m->ce, m->ect,
		m->cnps, rep->pfc_rx,
		rep->credit_rx, rep->credit_tx, rep->credit_stalls, cbfc,
		rep->elapsed_s, o->rate_pps,
		rep->elapsed_s > 0 ? m->tx_frames / rep->elapsed_s : 0,
		rep->pacer_resync, rep->pacer_lost_s);
	if (o->engine->inc)
		inc_json(f, rep);
	fprintf(f, "  \"tx_dropped\": %" PRIu64 ",\n  \"stale_rx\": %" PRIu64
		",\n  \"flows\": [", rep->tx_dropped, rep->stale_rx);
	for (i = 0; i < rep->nrflows; i++) {
		struct lat_summary fl;

		flow_lat_summary(rep, i, &fl);
		fprintf(f, "%s\n    {\"src\": %u, \"dst\": %u, \"tx\": %" PRIu64
			", \"rx\": %" PRIu64 ", \"loss\": %.6f, "
			"\"tx_pps\": %.1f, \"rx_pps\": %.1f, "
			"\"lat_p50_ns\": %.1f, \"lat_p99_ns\": %.1f, "
			"\"lat_p999_ns\": %.1f, \"lat_max_ns\": %.1f}",
			i ? "," : "",
			rep->rflow[i].src, rep->rflow[i].dst, rep->rflow_tx[i],
			rep->rflow_rx[i],
			ibex_search_loss(rep->rflow_tx[i], rep->rflow_rx[i]),
			rep->elapsed_s > 0 ? rep->rflow_tx[i] / rep->elapsed_s : 0,
			rep->elapsed_s > 0 ? rep->rflow_rx[i] / rep->elapsed_s : 0,
			fl.p50, fl.p99, fl.p999, fl.max);
	}
	fprintf(f, "\n  ],\n  \"search\": {\"kind\": \"%s\", \"trial_s\": "
		"%.4f, \"resolution\": %.5f, \"pdr_loss\": %.6f, "
		"\"burst_max\": %u, \"retries\": %u, \"results\": [",
		o->search == IBEX_GEN_SEARCH_RATE ? "rate" :
		o->search == IBEX_GEN_SEARCH_BURST ? "burst" : "none",
		o->trial_s, o->resolution, o->pdr_loss, o->burst_max,
		o->retries);
	for (i = 0; i < rep->nsearch; i++) {
		const struct ibex_gen_search_res *sr = &rep->search[i];

		fprintf(f, "%s\n    {\"size\": %u, \"trials\": %u, "
			"\"short_trials\": %u, \"max_pps\": %.1f, \"flat_tx_pps\": %.1f, "
			"\"flat_rx_pps\": %.1f, \"ndr_pps\": %.1f, "
			"\"ndr_gbps\": %.4f, \"ndr_gbps_l1\": %.4f, "
			"\"pdr_pps\": %.1f, \"pdr_gbps\": %.4f, "
			"\"pdr_loss\": %.7f, \"lat_p50_ns\": %.1f, "
			"\"lat_p99_ns\": %.1f, \"lat_max_ns\": %.1f, "
			"\"burst\": %u, \"fail_burst\": %u, \"fail_loss\": "
			"%.6f, \"fail_tx\": %" PRIu64 ", \"fail_rx\": %" PRIu64
			"}", i ? "," : "", sr->size, sr->trials,
			sr->short_trials, sr->max_pps,
			sr->flat_tx_pps, sr->flat_rx_pps, sr->ndr_pps, gbps(sr->ndr_pps, sr->size, false),
			gbps(sr->ndr_pps, sr->size, true), sr->pdr_pps,
			gbps(sr->pdr_pps, sr->size, false), sr->pdr_loss,
			sr->lat_p50_ns, sr->lat_p99_ns, sr->lat_max_ns,
			sr->burst, sr->fail_burst, sr->fail_loss, sr->fail_tx,
			sr->fail_rx);
	}
	fprintf(f, "\n  ]}\n}\n");
	return fclose(f) == 0 ? 0 : -errno;
}

/* CSV of the rate engine: one row per flow, then the total. */
static void
csv_rate(FILE *f, const struct ibex_gen_report *rep)
{
	const struct ibex_gen_meas *m = rep->meas;
	double el = rep->elapsed_s;
	struct lat_summary l;
	unsigned int i;

	lat_summary(rep, &l);
	fprintf(f, "engine,flow,src,dst,size,elapsed_s,requested_pps,tx,rx,"
		"loss,tx_pps,rx_pps,lat_p50_ns,lat_p99_ns,lat_p999_ns,"
		"lat_max_ns\n");
	for (i = 0; i < rep->nrflows; i++) {
		struct lat_summary fl;

		flow_lat_summary(rep, i, &fl);
		fprintf(f, "rate,%u,%u,%u,%u,%.6f,%.1f,%" PRIu64 ",%" PRIu64
			",%.6f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f\n", i,
			rep->rflow[i].src, rep->rflow[i].dst,
			rep->opts->frame_size, el, rep->opts->rate_pps,
			rep->rflow_tx[i], rep->rflow_rx[i],
			ibex_search_loss(rep->rflow_tx[i], rep->rflow_rx[i]),
			el > 0 ? rep->rflow_tx[i] / el : 0,
			el > 0 ? rep->rflow_rx[i] / el : 0,
			fl.p50, fl.p99, fl.p999, fl.max);
	}
	fprintf(f, "rate,all,,,%u,%.6f,%.1f,%" PRIu64 ",%" PRIu64 ",%.6f,%.1f,"
		"%.1f,%.1f,%.1f,%.1f,%.1f\n", rep->opts->frame_size, el,
		rep->opts->rate_pps, m->tx_frames, m->rx_frames,
		ibex_search_loss(m->tx_frames, m->rx_frames),
		el > 0 ? m->tx_frames / el : 0, el > 0 ? m->rx_frames / el : 0,
		l.p50, l.p99, l.p999, l.max);
}

/* CSV of a search: one row per frame size. */
static void
csv_search(FILE *f, const struct ibex_gen_report *rep)
{
	const struct ibex_gen_opts *o = rep->opts;
	unsigned int i;

	fprintf(f, "search,size,trials,max_pps,ndr_pps,ndr_gbps,ndr_gbps_l1,"
		"pdr_pps,pdr_gbps,pdr_loss,lat_p50_ns,lat_p99_ns,lat_max_ns,"
		"burst\n");
	for (i = 0; i < rep->nsearch; i++) {
		const struct ibex_gen_search_res *sr = &rep->search[i];

		fprintf(f, "%s,%u,%u,%.1f,%.1f,%.4f,%.4f,%.1f,%.4f,%.7f,%.1f,"
			"%.1f,%.1f,%u\n",
			o->search == IBEX_GEN_SEARCH_RATE ? "rate" : "burst",
			sr->size, sr->trials, sr->max_pps, sr->ndr_pps,
			gbps(sr->ndr_pps, sr->size, false),
			gbps(sr->ndr_pps, sr->size, true), sr->pdr_pps,
			gbps(sr->pdr_pps, sr->size, false), sr->pdr_loss,
			sr->lat_p50_ns, sr->lat_p99_ns, sr->lat_max_ns,
			sr->burst);
	}
}

/* A sweep's CSV: one row per size, nccl-tests' columns. */
static void
csv_sweep(FILE *f, const struct ibex_gen_report *rep)
{
	const struct ibex_gen_opts *o = rep->opts;
	double factor = ibex_gen_busbw_factor(o->engine, o->nranks);
	unsigned int i;

	fprintf(f, "engine,ranks,bytes,count,iters,failed,time_us,algbw_gbs,"
		"busbw_gbs,ct_p50_us,ct_p99_us,ct_max_us,idle_us,lat_frames,"
		"lat_min_ns,lat_p50_ns,lat_p99_ns,lat_p999_ns,lat_max_ns\n");
	for (i = 0; i < rep->nsizes; i++) {
		const struct ibex_gen_size_res *s = &rep->size[i];
		double t = ct_mean(s), algbw = t > 0 ? (double)s->bytes / t : 0;
		struct lat_summary l;

		size_lat_summary(rep, i, &l);
		fprintf(f, "%s,%u,%" PRIu64 ",%" PRIu64 ",%u,%u,", o->engine->name,
			o->nranks, s->bytes, s->bytes / 4, s->iters, s->failed);
		if (s->iters == 0) /* no measured iteration: empty, not 0 */
			fprintf(f, ",,,,,,,");
		else
			fprintf(f, "%.3f,%.6f,%.6f,%.3f,%.3f,%.3f,%.3f,",
				t / 1e3, algbw, algbw * factor,
				ibex_gen_ct_quantile(s, 0.5) / 1e3,
				ibex_gen_ct_quantile(s, 0.99) / 1e3,
				ibex_gen_ct_quantile(s, 1.0) / 1e3,
				(double)s->idle_ns / s->iters / 1e3);
		fprintf(f, "%" PRIu64 ",%.1f,%.1f,%.1f,%.1f,%.1f\n", l.n, l.min,
			l.p50, l.p99, l.p999, l.max);
	}
}

int
ibex_gen_report_csv(const struct ibex_gen_report *rep, const char *path)
{
	FILE *f = fopen(path, "w");

	if (f == NULL)
		return -errno;
	rep->kind->csv(f, rep);
	return fclose(f) == 0 ? 0 : -errno;
}

/*
 * The "nines" of a cumulative fraction, -log10(1 - c): 1 is p90, 2 p99,
 * 3 p99.9. The last sample (c = 1) is drawn half a sample further out,
 * where its own rank would put it, instead of at infinity.
 */
static double
nines(double c, uint64_t n)
{
	double floor_c = 1.0 - 0.5 / (double)(n != 0 ? n : 1);

	return -log10(1.0 - (c < floor_c ? c : floor_c));
}

/* The scenario in words, for plot titles. */
static void
scenario(const struct ibex_gen_report *rep, char *buf, size_t len)
{
	const struct ibex_gen_opts *o = rep->opts;
	int n = snprintf(buf, len, "%s, %u ranks", o->engine->name,
			 o->nranks);

	if (n < 0 || (size_t)n >= len)
		return;
	if (o->straggler.rank >= 0)
		snprintf(buf + n, len - (size_t)n, ", straggler rank %d +%.0f us "
			 "%s%.2f", o->straggler.rank, o->straggler_us,
			 o->straggler.once ? "once, p=" : "p=",
			 o->straggler.prob);
	else if (rep->kind->sized)
		snprintf(buf + n, len - (size_t)n, ", no straggler");
}

/* Both plots' y axis: nines, labelled as percentiles. */
static const char nines_axis[] =
	"set ylabel 'percentile'\nset yrange [0:*]\n"
	"set ytics ('p0' 0, 'p90' 1, 'p99' 2, 'p99.9' 3, 'p99.99' 4, "
	"'p99.999' 5, 'p99.9999' 6)\n";

/* One histogram's CDF rows: value (ns), cumulative fraction, nines. */
static void
write_hist_cdf(FILE *f, const struct ibex_gen_report *rep,
	       const struct ibex_hist *h)
{
	struct ibex_hist_iter it;
	uint64_t total = ibex_hist_count(h);

	ibex_hist_iter_init(&it);
	while (total > 0 && ibex_hist_iter_next(h, &it)) {
		double c = (double)it.cumulative / (double)total;

		fprintf(f, "%.1f %.8f %.4f\n", to_ns(rep, it.hi), c,
			nines(c, total));
	}
}

/* The quantiles the latency plot marks on every curve. */
static const double mark_q[] = { 0.5, 0.99, 0.999 };
static const char *const mark_name[] = { "p50", "p99", "p99.9" };

/* One histogram's marks: value (ns) and nines of p50, p99, p99.9. */
static void
write_hist_marks(FILE *f, const struct ibex_gen_report *rep,
		 const struct ibex_hist *h)
{
	unsigned int q;

	for (q = 0; q < sizeof(mark_q) / sizeof(mark_q[0]) && ibex_hist_count(h) > 0; q++)
		fprintf(f, "%.1f %.4f %s\n",
			to_ns(rep, ibex_hist_quantile(h, mark_q[q])),
			-log10(1.0 - mark_q[q]), mark_name[q]);
}

/*
 * latency_cdf.dat: the whole run; latency_size_cdf.dat and
 * latency_marks.dat: one gnuplot data block per message size (two blank
 * lines between), the marks' last block being the whole run's.
 */
static int
write_latency_data(const struct ibex_gen_report *rep, const char *dir)
{
	const struct ibex_hist *h = &rep->meas->lat;
	char path[4096];
	unsigned int i;
	FILE *f, *mk;

	snprintf(path, sizeof(path), "%s/latency_cdf.dat", dir);
	f = fopen(path, "w");
	if (f == NULL)
		return -errno;
	fprintf(f, "# latency_ns cumulative_fraction nines\n");
	write_hist_cdf(f, rep, h);
	fclose(f);
	snprintf(path, sizeof(path), "%s/latency_marks.dat", dir);
	mk = fopen(path, "w");
	if (mk == NULL)
		return -errno;
	for (i = 0; i < rep->meas->nsizes; i++) {
		fprintf(mk, "# size %" PRIu64 ": latency_ns nines quantile\n",
			rep->size[i].bytes);
		write_hist_marks(mk, rep, ibex_gen_meas_size_lat(rep->meas, i));
		fprintf(mk, "\n\n");
	}
	fprintf(mk, "# whole run: latency_ns nines quantile\n");
	write_hist_marks(mk, rep, h);
	fclose(mk);
	if (rep->meas->nsizes == 0)
		return 0;
	snprintf(path, sizeof(path), "%s/latency_size_cdf.dat", dir);
	f = fopen(path, "w");
	if (f == NULL)
		return -errno;
	for (i = 0; i < rep->meas->nsizes; i++) {
		fprintf(f, "# size %" PRIu64 ": latency_ns cumulative_fraction "
			"nines\n", rep->size[i].bytes);
		write_hist_cdf(f, rep, ibex_gen_meas_size_lat(rep->meas, i));
		/* an empty block would end the file for gnuplot's index */
		if (ibex_hist_count(ibex_gen_meas_size_lat(rep->meas, i)) == 0)
			fprintf(f, "NaN NaN NaN\n");
		fprintf(f, "\n\n");
	}
	fclose(f);
	return 0;
}

static int
write_plot_data(const struct ibex_gen_report *rep, const char *dir)
{
	uint64_t *v;
	char path[4096];
	unsigned int i, k;
	FILE *f;
	int ret;

	ret = write_latency_data(rep, dir);
	if (ret < 0)
		return ret;
	snprintf(path, sizeof(path), "%s/completion_cdf.dat", dir);
	f = fopen(path, "w");
	if (f == NULL)
		return -errno;
	/* one gnuplot data block per size, separated by two blank lines */
	for (i = 0; i < rep->nsizes; i++) {
		const struct ibex_gen_size_res *s = &rep->size[i];

		fprintf(f, "# size %" PRIu64 "\n", s->bytes);
		v = malloc((s->iters + 1) * sizeof(*v));
		if (v == NULL) {
			fclose(f);
			return -ENOMEM;
		}
		memcpy(v, s->ct, s->iters * sizeof(*v));
		qsort(v, s->iters, sizeof(*v), cmp_u64);
		for (k = 0; k < s->iters; k++)
			fprintf(f, "%.3f %.6f %.4f\n", v[k] / 1e3,
				(double)(k + 1) / s->iters,
				nines((double)(k + 1) / s->iters, s->iters));
		free(v);
		fprintf(f, "\n\n");
	}
	fclose(f);
	return 0;
}

/*
 * The latency plot's body: p50/p99/p99.9 as dashed levels across the
 * plot; a sweep draws one curve per message size, its p50/p99/p99.9 as
 * points of its colour, and the whole run thin and black; without sizes
 * the whole run alone, its marks in black.
 */
static void
latency_plot(FILE *f, const struct ibex_gen_report *rep)
{
	unsigned int i, q, n = rep->meas->nsizes;

	for (q = 0; q < 3; q++)
		fprintf(f, "set arrow %u from graph 0, first %.4f to graph 1, "
			"first %.4f nohead dt 3 lc rgb 'gray50'\n"
			"set label %u '%s' at graph 0.01, first %.4f offset "
			"0,0.6 tc rgb 'gray30'\n", q + 1, -log10(1.0 - mark_q[q]),
			-log10(1.0 - mark_q[q]), q + 1, mark_name[q],
			-log10(1.0 - mark_q[q]));
	/* the curves climb from bottom left to top right: the key goes
	 * where they are not */
	fprintf(f, "set key top left\nplot ");
	for (i = 0; i < n; i++)
		fprintf(f, "'latency_size_cdf.dat' index %u using 1:3 with steps "
			"lw 2 lc %u title '%" PRIu64 " B', 'latency_marks.dat' "
			"index %u using 1:2 with points pt 7 ps 1.2 lc %u "
			"notitle, ", i, i + 1, rep->size[i].bytes, i, i + 1);
	fprintf(f, "'latency_cdf.dat' using 1:3 with steps lw %s lc rgb "
		"'black' title '%s', 'latency_marks.dat' index %u using 1:2 "
		"with points pt 6 ps 1.4 lc rgb 'black' notitle\n"
		"unset arrow\nunset label\nset key bottom right\n", n ? "1 dt 2" : "2",
		n ? "all sizes" : "every frame", n);
}

/* mkdir -p @p dir (mode 0755): 0 or -errno. */
static int
make_dirs(const char *dir)
{
	char path[4096];
	size_t n = strlen(dir), i;

	if (n == 0 || n >= sizeof(path))
		return -EINVAL;
	memcpy(path, dir, n + 1);
	for (i = 1; i <= n; i++) {
		if (path[i] != '/' && path[i] != '\0')
			continue;
		path[i] = '\0';
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			return -errno;
		if (i < n)
			path[i] = '/';
	}
	return 0;
}

int
ibex_gen_report_plot(const struct ibex_gen_report *rep, const char *dir)
{
	static const char *const terms[2][2] = {
		{ "pngcairo size 900,600", "png" },
		{ "svg size 900,600", "svg" },
	};
	char path[4096], cmd[4300], what[160];
	struct lat_summary l;
	unsigned int t, i;
	FILE *f;
	int ret;

	ret = make_dirs(dir);
	if (ret < 0)
		return ret;
	ret = write_plot_data(rep, dir);
	if (ret < 0)
		return ret;
	snprintf(path, sizeof(path), "%s/plots.gp", dir);
	f = fopen(path, "w");
	if (f == NULL)
		return -errno;
	lat_summary(rep, &l);
	scenario(rep, what, sizeof(what));
	fprintf(f, "# ibex-gen plots: gnuplot plots.gp (in this folder)\n"
		"# y: percentile as nines, -log10(1 - CDF): the tail gets the "
		"room\nset grid\nset key bottom right\n");
	for (t = 0; t < 2; t++) {
		fprintf(f, "set terminal %s\n", terms[t][0]);
		fprintf(f, "set output 'latency_cdf.%s'\n"
			"set title \"per-frame one-way latency%s (%s)\\n%" PRIu64
			" frames: p50 %.0f ns, p99 %.0f ns, p99.9 %.0f ns, max "
			"%.0f ns\"\n"
			"set xlabel 'latency (ns)'\nset logscale x\n%s",
			terms[t][1], rep->meas->nsizes ? " per message size" : "",
			what, l.n, l.p50, l.p99, l.p999, l.max, nines_axis);
		latency_plot(f, rep);
		if (rep->nsizes == 0)
			continue;
		fprintf(f, "set output 'completion_cdf.%s'\n"
			"set title 'collective completion time per message size "
			"(%s)'\nset xlabel 'completion time (us)'\n"
			"set logscale x\n%splot ", terms[t][1], what, nines_axis);
		for (i = 0; i < rep->nsizes; i++)
			fprintf(f, "%s'completion_cdf.dat' index %u using 1:3 "
				"with steps lw 2 title '%" PRIu64 " B'",
				i ? ", " : "", i, rep->size[i].bytes);
		fprintf(f, "\n");
	}
	fprintf(f, "unset output\n");
	fclose(f);
	snprintf(cmd, sizeof(cmd), "command -v gnuplot >/dev/null 2>&1 || exit 127; "
		 "cd '%s' && gnuplot plots.gp", dir);
	ret = system(cmd);
	if (ret == -1)
		return -errno;
	if (WIFEXITED(ret) && WEXITSTATUS(ret) == 127)
		return IBEX_GEN_PLOT_NO_GNUPLOT;
	return WIFEXITED(ret) && WEXITSTATUS(ret) == 0 ? 0 : -EIO;
}

static const struct ibex_gen_report_kind report_sweep = {
	.sized = true, .print = print_sweep, .csv = csv_sweep,
};
static const struct ibex_gen_report_kind report_trial = {
	.print = print_trial, .csv = csv_rate,
};
static const struct ibex_gen_report_kind report_search = {
	.print = print_search, .csv = csv_search,
};

/* Sweeps for collectives; open loop, a search or one trial. */
static const struct ibex_gen_report_kind *
report_kind_of(const struct ibex_gen_opts *o)
{
	if (!ibex_gen_open_loop(o->engine))
		return &report_sweep;
	return o->search != IBEX_GEN_SEARCH_NONE ? &report_search :
						   &report_trial;
}
