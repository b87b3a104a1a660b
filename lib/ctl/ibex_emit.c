/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The structured emitter (ibex_emit.h): JSON into a growable buffer and
 * the OpenMetrics / Prometheus text exposition. Pure C, no EAL.
 *
 * OpenMetrics 1.0: https://github.com/OpenObservability/OpenMetrics
 * (specification/OpenMetrics.md); Prometheus text format 0.0.4:
 * https://prometheus.io/docs/instrumenting/exposition_formats/
 */

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibex_emit.h"

/*
 * JSON.
 */

static int
out_put(void *ctx, const char *bytes, size_t n)
{
	return ibex_out_append(ctx, bytes, n);
}

static void
set_err(int *err, int ret)
{
	if (*err == 0 && ret != 0)
		*err = ret;
}

void
ibex_emit_json_init(struct ibex_emit *e, struct ibex_out *o)
{
	memset(e, 0, sizeof(*e));
	e->o = o;
	e->first[0] = true;
}

void
ibex_emit_ops_init(struct ibex_emit *e, const struct ibex_emit_ops *ops,
		   void *ctx)
{
	memset(e, 0, sizeof(*e));
	e->ops = ops;
	e->ctx = ctx;
}

/* The separator and key before a value at the current level. */
static bool
emit_key(struct ibex_emit *e, const char *key)
{
	if (e->err != 0)
		return false;
	if (!e->first[e->depth])
		set_err(&e->err, ibex_out_append(e->o, ", ", 2));
	e->first[e->depth] = false;
	if (key != NULL) {
		set_err(&e->err, ibex_json_escape(key, out_put, e->o));
		set_err(&e->err, ibex_out_append(e->o, ": ", 2));
	}
	return e->err == 0;
}

static void
emit_open(struct ibex_emit *e, const char *key, const char *bracket)
{
	if (!emit_key(e, key))
		return;
	if (e->depth >= IBEX_EMIT_DEPTH) {
		e->err = -EINVAL;
		return;
	}
	set_err(&e->err, ibex_out_append(e->o, bracket, 1));
	e->first[++e->depth] = true;
}

static void
emit_close(struct ibex_emit *e, const char *bracket)
{
	if (e->err != 0)
		return;
	if (e->depth == 0) {
		e->err = -EINVAL;
		return;
	}
	e->depth--;
	set_err(&e->err, ibex_out_append(e->o, bracket, 1));
}

void
ibex_emit_obj_begin(struct ibex_emit *e, const char *key)
{
	if (e->ops != NULL) {
		e->ops->open(e, key, false);
		return;
	}
	emit_open(e, key, "{");
}

void
ibex_emit_obj_end(struct ibex_emit *e)
{
	if (e->ops != NULL) {
		e->ops->close(e, false);
		return;
	}
	emit_close(e, "}");
}

void
ibex_emit_list_begin(struct ibex_emit *e, const char *key)
{
	if (e->ops != NULL) {
		e->ops->open(e, key, true);
		return;
	}
	emit_open(e, key, "[");
}

void
ibex_emit_list_end(struct ibex_emit *e)
{
	if (e->ops != NULL) {
		e->ops->close(e, true);
		return;
	}
	emit_close(e, "]");
}

void
ibex_emit_u64(struct ibex_emit *e, const char *key, uint64_t v)
{
	if (e->ops != NULL) {
		e->ops->u64(e, key, v);
		return;
	}
	if (emit_key(e, key))
		set_err(&e->err, ibex_out_printf(e->o, "%" PRIu64, v));
}

void
ibex_emit_i64(struct ibex_emit *e, const char *key, int64_t v)
{
	if (e->ops != NULL) {
		e->ops->i64(e, key, v);
		return;
	}
	if (emit_key(e, key))
		set_err(&e->err, ibex_out_printf(e->o, "%" PRId64, v));
}

void
ibex_emit_str(struct ibex_emit *e, const char *key, const char *s)
{
	if (e->ops != NULL) {
		e->ops->str(e, key, s);
		return;
	}
	if (!emit_key(e, key))
		return;
	if (s == NULL)
		set_err(&e->err, ibex_out_append(e->o, "null", 4));
	else
		set_err(&e->err, ibex_json_escape(s, out_put, e->o));
}

void
ibex_emit_bool(struct ibex_emit *e, const char *key, bool v)
{
	if (e->ops != NULL) {
		e->ops->boolean(e, key, v);
		return;
	}
	if (emit_key(e, key))
		set_err(&e->err, ibex_out_append(e->o, v ? "true" : "false",
						  v ? 4 : 5));
}

void
ibex_emit_dur_ns(struct ibex_emit *e, const char *key, uint64_t ns)
{
	ibex_emit_u64(e, key, ns);
}

void
ibex_emit_double(struct ibex_emit *e, const char *key, double v,
		 unsigned int decimals)
{
	if (e->ops != NULL) {
		e->ops->dbl(e, key, v, decimals);
		return;
	}
	if (!emit_key(e, key))
		return;
	if (!isfinite(v))
		set_err(&e->err, ibex_out_append(e->o, "null", 4));
	else
		set_err(&e->err, ibex_out_printf(e->o, "%.*f",
				(int)(decimals > 17 ? 17 : decimals), v));
}

int
ibex_emit_finish(const struct ibex_emit *e)
{
	if (e->err != 0)
		return e->err;
	if (e->ops != NULL)
		return e->depth == 0 ? 0 : -EINPROGRESS;
	if (e->o->oom)
		return -ENOMEM;
	return e->depth == 0 ? 0 : -EINPROGRESS;
}

/*
 * OpenMetrics / Prometheus text.
 */

void
ibex_om_init(struct ibex_om *m, struct ibex_out *o, enum ibex_om_format fmt)
{
	memset(m, 0, sizeof(*m));
	m->o = o;
	m->fmt = fmt;
}

bool
ibex_om_accepts_openmetrics(const char *accept)
{
	return accept != NULL &&
	       strstr(accept, "application/openmetrics-text") != NULL;
}

static bool
om_name_ok(const char *s, bool colon)
{
	const char *p;

	if (*s == '\0' || (*s >= '0' && *s <= '9'))
		return false;
	for (p = s; *p != '\0'; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '_' ||
		      (colon && *p == ':')))
			return false;
	return true;
}

/* @p s with '\\' and '\n' escaped, and '"' too when @p quote (a label
 * value; # HELP text leaves '"' alone). */
static int
om_escape(struct ibex_out *o, const char *s, bool quote)
{
	const char *run = s;
	int ret = 0;

	for (; ret == 0 && *s != '\0'; s++) {
		const char *esc;

		if (*s == '\\')
			esc = "\\\\";
		else if (*s == '\n')
			esc = "\\n";
		else if (*s == '"' && quote)
			esc = "\\\"";
		else
			continue;
		if (s > run)
			ret = ibex_out_append(o, run, (size_t)(s - run));
		if (ret == 0)
			ret = ibex_out_append(o, esc, 2);
		run = s + 1;
	}
	if (ret == 0 && s > run)
		ret = ibex_out_append(o, run, (size_t)(s - run));
	return ret;
}

static const char *
om_type_name(enum ibex_om_type t)
{
	switch (t) {
	case IBEX_OM_COUNTER:
		return "counter";
	case IBEX_OM_GAUGE:
		return "gauge";
	case IBEX_OM_HISTOGRAM:
		return "histogram";
	}
	return "unknown";
}

void
ibex_om_family(struct ibex_om *m, const char *name, enum ibex_om_type type,
	       const char *help)
{
	/* Prometheus 0.0.4 names a counter family by its sample. */
	const char *total = type == IBEX_OM_COUNTER &&
			    m->fmt == IBEX_OM_PROMETHEUS ? "_total" : "";

	if (m->err != 0)
		return;
	if (!om_name_ok(name, true) ||
	    strlen(name) + 1 > sizeof(m->family)) {
		m->err = -EINVAL;
		return;
	}
	strcpy(m->family, name);
	m->type = type;
	set_err(&m->err, ibex_out_printf(m->o, "# HELP %s%s ", name, total));
	set_err(&m->err, om_escape(m->o, help, false));
	set_err(&m->err, ibex_out_printf(m->o, "\n# TYPE %s%s %s\n", name,
					 total, om_type_name(type)));
}

/* "<family><suffix>{labels[,le=..]} " */
static void
om_series(struct ibex_om *m, const char *suffix,
	  const struct ibex_om_label *labels, unsigned int nb_labels,
	  const char *le)
{
	unsigned int i;

	set_err(&m->err, ibex_out_printf(m->o, "%s%s", m->family, suffix));
	if (nb_labels == 0 && le == NULL) {
		set_err(&m->err, ibex_out_append(m->o, " ", 1));
		return;
	}
	set_err(&m->err, ibex_out_append(m->o, "{", 1));
	for (i = 0; i < nb_labels; i++) {
		if (!om_name_ok(labels[i].name, false) ||
		    strcmp(labels[i].name, "le") == 0) {
			m->err = -EINVAL;
			return;
		}
		set_err(&m->err, ibex_out_printf(m->o, "%s%s=\"",
				i > 0 ? "," : "", labels[i].name));
		set_err(&m->err, om_escape(m->o, labels[i].value, true));
		set_err(&m->err, ibex_out_append(m->o, "\"", 1));
	}
	if (le != NULL)
		set_err(&m->err, ibex_out_printf(m->o, "%sle=\"%s\"",
				nb_labels > 0 ? "," : "", le));
	set_err(&m->err, ibex_out_append(m->o, "} ", 2));
}

/* A double as both formats read it: shortest round-trip digits. */
static void
om_double_text(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "NaN");
	else if (isinf(v))
		snprintf(buf, len, v > 0 ? "+Inf" : "-Inf");
	else {
		int prec;

		for (prec = 15; prec < 17; prec++) {
			snprintf(buf, len, "%.*g", prec, v);
			if (strtod(buf, NULL) == v)
				return;
		}
		snprintf(buf, len, "%.17g", v);
	}
}

static bool
om_sample_ok(struct ibex_om *m, bool histogram)
{
	if (m->err != 0)
		return false;
	if (m->family[0] == '\0' ||
	    (m->type == IBEX_OM_HISTOGRAM) != histogram) {
		m->err = -EINVAL;
		return false;
	}
	return true;
}

void
ibex_om_u64(struct ibex_om *m, const struct ibex_om_label *labels,
	    unsigned int nb_labels, uint64_t v)
{
	if (!om_sample_ok(m, false))
		return;
	om_series(m, m->type == IBEX_OM_COUNTER ? "_total" : "", labels,
		  nb_labels, NULL);
	set_err(&m->err, ibex_out_printf(m->o, "%" PRIu64 "\n", v));
}

void
ibex_om_double(struct ibex_om *m, const struct ibex_om_label *labels,
	       unsigned int nb_labels, double v)
{
	char num[64];

	if (!om_sample_ok(m, false))
		return;
	om_double_text(num, sizeof(num), v);
	om_series(m, m->type == IBEX_OM_COUNTER ? "_total" : "", labels,
		  nb_labels, NULL);
	set_err(&m->err, ibex_out_printf(m->o, "%s\n", num));
}

void
ibex_om_histogram(struct ibex_om *m, const struct ibex_om_label *labels,
		  unsigned int nb_labels, const double *le,
		  const uint64_t *per_bucket, unsigned int nb,
		  uint64_t count, double sum)
{
	uint64_t cum = 0;
	char num[64];
	unsigned int i;

	if (!om_sample_ok(m, true))
		return;
	for (i = 0; i < nb && m->err == 0; i++) {
		if (!isfinite(le[i]) || (i > 0 && le[i] <= le[i - 1])) {
			m->err = -EINVAL;
			return;
		}
		cum += per_bucket[i];
		om_double_text(num, sizeof(num), le[i]);
		om_series(m, "_bucket", labels, nb_labels, num);
		set_err(&m->err, ibex_out_printf(m->o, "%" PRIu64 "\n", cum));
	}
	if (cum > count) {
		m->err = -EINVAL;
		return;
	}
	om_series(m, "_bucket", labels, nb_labels, "+Inf");
	set_err(&m->err, ibex_out_printf(m->o, "%" PRIu64 "\n", count));
	om_double_text(num, sizeof(num), sum);
	om_series(m, "_sum", labels, nb_labels, NULL);
	set_err(&m->err, ibex_out_printf(m->o, "%s\n", num));
	om_series(m, "_count", labels, nb_labels, NULL);
	set_err(&m->err, ibex_out_printf(m->o, "%" PRIu64 "\n", count));
}

int
ibex_om_finish(struct ibex_om *m)
{
	if (m->err == 0 && m->fmt == IBEX_OM_OPENMETRICS)
		set_err(&m->err, ibex_out_append(m->o, "# EOF\n", 6));
	if (m->err == 0 && m->o->oom)
		m->err = -ENOMEM;
	return m->err;
}
