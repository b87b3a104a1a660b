/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the structured emitter (lib/ctl/ibex_emit.c): the one JSON
 * string escaper (lib/common/ibex_json.c) and its stdio front door, the JSON back end (separators, nesting, every value
 * kind, errors) and the OpenMetrics / Prometheus text back end (families,
 * _total, label escaping, histograms, # EOF), and the hook another back
 * end (telemetry's) takes every call through.
 */

#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ibex_emit.h"

static int
put_out(void *ctx, const char *b, size_t n)
{
	return ibex_out_append(ctx, b, n);
}

static void
test_escape(void **state)
{
	struct ibex_out o;

	(void)state;
	ibex_out_init(&o);
	assert_int_equal(ibex_json_escape("a\"b\\c\n\x01\x1f d\xc3\xa9",
					  put_out, &o), 0);
	assert_string_equal(o.buf,
		"\"a\\\"b\\\\c\\u000a\\u0001\\u001f d\xc3\xa9\"");
	ibex_out_reset(&o);
	assert_int_equal(ibex_json_escape("", put_out, &o), 0);
	assert_string_equal(o.buf, "\"\"");
	/* ibex_out_json_str is the same escaper. */
	ibex_out_reset(&o);
	assert_int_equal(ibex_out_json_str(&o, "x\ty\""), 0);
	assert_string_equal(o.buf, "\"x\\u0009y\\\"\"");
	ibex_out_free(&o);
}

/* The result files (lib/gen, lib/fabric) write through a FILE: the same
 * bytes as the control socket's replies. */
static void
test_escape_file(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	assert_int_equal(ibex_json_fputs(f, "a\"b\\c\n\x01 d\xc3\xa9"), 0);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(buf, "\"a\\\"b\\\\c\\u000a\\u0001 d\xc3\xa9\"");
	free(buf);
}

static int
put_fail_after(void *ctx, const char *b, size_t n)
{
	int *left = ctx;

	(void)b;
	(void)n;
	return (*left)-- > 0 ? 0 : -ENOSPC;
}

static void
test_escape_stops_on_error(void **state)
{
	int left = 1;

	(void)state;
	assert_int_equal(ibex_json_escape("ab\"cd", put_fail_after, &left),
			 -ENOSPC);
}

static void
test_json_values(void **state)
{
	struct ibex_emit e;
	struct ibex_out o;

	(void)state;
	ibex_out_init(&o);
	ibex_emit_json_init(&e, &o);
	ibex_emit_obj_begin(&e, NULL);
	ibex_emit_u64(&e, "u", UINT64_MAX);
	ibex_emit_i64(&e, "i", INT64_MIN);
	ibex_emit_str(&e, "s", "p\"0");
	ibex_emit_str(&e, "n", NULL);
	ibex_emit_bool(&e, "t", true);
	ibex_emit_bool(&e, "f", false);
	ibex_emit_dur_ns(&e, "wait_ns", 1500);
	ibex_emit_double(&e, "d", 1.23456, 3);
	ibex_emit_double(&e, "nan", NAN, 3);
	ibex_emit_list_begin(&e, "l");
	ibex_emit_u64(&e, NULL, 1);
	ibex_emit_obj_begin(&e, NULL);
	ibex_emit_obj_end(&e);
	ibex_emit_list_begin(&e, NULL);
	ibex_emit_list_end(&e);
	ibex_emit_str(&e, NULL, "x");
	ibex_emit_list_end(&e);
	ibex_emit_obj_begin(&e, "o");
	ibex_emit_u64(&e, "a", 0);
	ibex_emit_obj_end(&e);
	ibex_emit_obj_end(&e);
	assert_int_equal(ibex_emit_finish(&e), 0);
	assert_string_equal(o.buf,
		"{\"u\": 18446744073709551615, \"i\": -9223372036854775808, "
		"\"s\": \"p\\\"0\", \"n\": null, \"t\": true, \"f\": false, "
		"\"wait_ns\": 1500, \"d\": 1.235, \"nan\": null, "
		"\"l\": [1, {}, [], \"x\"], \"o\": {\"a\": 0}}");
	ibex_out_free(&o);
}

static void
test_json_errors(void **state)
{
	struct ibex_emit e;
	struct ibex_out o;
	unsigned int i;

	(void)state;
	ibex_out_init(&o);
	/* An unclosed object is reported, an extra end is an error. */
	ibex_emit_json_init(&e, &o);
	ibex_emit_obj_begin(&e, NULL);
	assert_int_equal(ibex_emit_finish(&e), -EINPROGRESS);
	ibex_emit_obj_end(&e);
	assert_int_equal(ibex_emit_finish(&e), 0);
	ibex_emit_obj_end(&e);
	assert_int_equal(ibex_emit_finish(&e), -EINVAL);
	/* Nesting deeper than IBEX_EMIT_DEPTH is refused, never overruns. */
	ibex_out_reset(&o);
	ibex_emit_json_init(&e, &o);
	for (i = 0; i < IBEX_EMIT_DEPTH + 4; i++)
		ibex_emit_list_begin(&e, NULL);
	assert_int_equal(ibex_emit_finish(&e), -EINVAL);
	assert_int_equal(strlen(o.buf), IBEX_EMIT_DEPTH);
	/* Writes after an error change nothing. */
	ibex_emit_u64(&e, NULL, 7);
	assert_int_equal(strlen(o.buf), IBEX_EMIT_DEPTH);
	ibex_out_free(&o);
}

/* A JSON document emitted piecewise appends to what the buffer holds. */
static void
test_json_appends(void **state)
{
	struct ibex_emit e;
	struct ibex_out o;

	(void)state;
	ibex_out_init(&o);
	ibex_out_printf(&o, "OK\n");
	ibex_emit_json_init(&e, &o);
	ibex_emit_list_begin(&e, NULL);
	ibex_emit_u64(&e, NULL, 1);
	ibex_emit_u64(&e, NULL, 2);
	ibex_emit_list_end(&e);
	assert_int_equal(ibex_emit_finish(&e), 0);
	assert_string_equal(o.buf, "OK\n[1, 2]");
	ibex_out_free(&o);
}

static void
test_om_counter_gauge(void **state)
{
	const struct ibex_om_label l[] = {
		{ "port", "p\"0\\x\ny" }, { "reason", "no-route" } };
	struct ibex_om m;
	struct ibex_out o;

	(void)state;
	ibex_out_init(&o);
	ibex_om_init(&m, &o, IBEX_OM_OPENMETRICS);
	ibex_om_family(&m, "ibex_port_drops", IBEX_OM_COUNTER,
		       "frames dropped \\ by \"reason\"\nsecond line");
	ibex_om_u64(&m, l, 2, 5);
	ibex_om_family(&m, "ibex_up", IBEX_OM_GAUGE, "up");
	ibex_om_u64(&m, NULL, 0, 1);
	ibex_om_double(&m, l, 1, 0.5);
	assert_int_equal(ibex_om_finish(&m), 0);
	assert_string_equal(o.buf,
		"# HELP ibex_port_drops frames dropped \\\\ by \"reason\"\\nsecond line\n"
		"# TYPE ibex_port_drops counter\n"
		"ibex_port_drops_total{port=\"p\\\"0\\\\x\\ny\",reason=\"no-route\"} 5\n"
		"# HELP ibex_up up\n"
		"# TYPE ibex_up gauge\n"
		"ibex_up 1\n"
		"ibex_up{port=\"p\\\"0\\\\x\\ny\"} 0.5\n"
		"# EOF\n");
	/* Prometheus 0.0.4: the family is the _total sample's, no # EOF. */
	ibex_out_reset(&o);
	ibex_om_init(&m, &o, IBEX_OM_PROMETHEUS);
	ibex_om_family(&m, "ibex_port_rx_frames", IBEX_OM_COUNTER, "rx");
	ibex_om_u64(&m, l, 1, 7);
	assert_int_equal(ibex_om_finish(&m), 0);
	assert_string_equal(o.buf,
		"# HELP ibex_port_rx_frames_total rx\n"
		"# TYPE ibex_port_rx_frames_total counter\n"
		"ibex_port_rx_frames_total{port=\"p\\\"0\\\\x\\ny\"} 7\n");
	ibex_out_free(&o);
}

static void
test_om_histogram(void **state)
{
	const struct ibex_om_label l[] = { { "port", "p1" }, { "vl", "0" } };
	const double le[] = { 1e-6, 1e-5, 0.001 };
	const uint64_t n[] = { 3, 0, 2 };
	struct ibex_om m;
	struct ibex_out o;

	(void)state;
	ibex_out_init(&o);
	ibex_om_init(&m, &o, IBEX_OM_OPENMETRICS);
	ibex_om_family(&m, "ibex_residence_seconds", IBEX_OM_HISTOGRAM,
		       "residence");
	ibex_om_histogram(&m, l, 2, le, n, 3, 6, 0.0125);
	assert_int_equal(ibex_om_finish(&m), 0);
	assert_string_equal(o.buf,
		"# HELP ibex_residence_seconds residence\n"
		"# TYPE ibex_residence_seconds histogram\n"
		"ibex_residence_seconds_bucket{port=\"p1\",vl=\"0\",le=\"1e-06\"} 3\n"
		"ibex_residence_seconds_bucket{port=\"p1\",vl=\"0\",le=\"1e-05\"} 3\n"
		"ibex_residence_seconds_bucket{port=\"p1\",vl=\"0\",le=\"0.001\"} 5\n"
		"ibex_residence_seconds_bucket{port=\"p1\",vl=\"0\",le=\"+Inf\"} 6\n"
		"ibex_residence_seconds_sum{port=\"p1\",vl=\"0\"} 0.0125\n"
		"ibex_residence_seconds_count{port=\"p1\",vl=\"0\"} 6\n"
		"# EOF\n");
	ibex_out_free(&o);
}

static void
test_om_errors(void **state)
{
	const struct ibex_om_label bad[] = { { "1port", "x" } };
	const struct ibex_om_label le[] = { { "le", "x" } };
	const double bounds[] = { 2.0, 1.0 };
	const uint64_t n[] = { 1, 1 };
	struct ibex_om m;
	struct ibex_out o;

	(void)state;
	ibex_out_init(&o);
	ibex_om_init(&m, &o, IBEX_OM_OPENMETRICS);
	ibex_om_family(&m, "bad-name", IBEX_OM_GAUGE, "x");
	assert_int_equal(ibex_om_finish(&m), -EINVAL);
	assert_null(o.buf);

	ibex_om_init(&m, &o, IBEX_OM_OPENMETRICS);
	ibex_om_u64(&m, NULL, 0, 1);            /* no family */
	assert_int_equal(ibex_om_finish(&m), -EINVAL);

	ibex_om_init(&m, &o, IBEX_OM_OPENMETRICS);
	ibex_om_family(&m, "g", IBEX_OM_GAUGE, "x");
	ibex_om_u64(&m, bad, 1, 1);
	assert_int_equal(ibex_om_finish(&m), -EINVAL);

	ibex_om_init(&m, &o, IBEX_OM_OPENMETRICS);
	ibex_om_family(&m, "g", IBEX_OM_GAUGE, "x");
	ibex_om_u64(&m, le, 1, 1);              /* le is the histogram's */
	assert_int_equal(ibex_om_finish(&m), -EINVAL);

	ibex_om_init(&m, &o, IBEX_OM_OPENMETRICS);
	ibex_om_family(&m, "h", IBEX_OM_HISTOGRAM, "x");
	ibex_om_histogram(&m, NULL, 0, bounds, n, 2, 2, 3.0); /* descending */
	assert_int_equal(ibex_om_finish(&m), -EINVAL);

	ibex_om_init(&m, &o, IBEX_OM_OPENMETRICS);
	ibex_om_family(&m, "h", IBEX_OM_HISTOGRAM, "x");
	ibex_om_histogram(&m, NULL, 0, bounds, n, 1, 0, 0.0); /* count < sum */
	assert_int_equal(ibex_om_finish(&m), -EINVAL);

	ibex_om_init(&m, &o, IBEX_OM_OPENMETRICS);
	ibex_om_family(&m, "h", IBEX_OM_HISTOGRAM, "x");
	ibex_om_u64(&m, NULL, 0, 1);            /* a histogram has no u64 */
	assert_int_equal(ibex_om_finish(&m), -EINVAL);
	ibex_out_free(&o);
}

static void
test_om_accept(void **state)
{
	(void)state;
	assert_true(ibex_om_accepts_openmetrics(
		"application/openmetrics-text;version=1.0.0,application/"
		"openmetrics-text;version=0.0.1;q=0.75,text/plain;"
		"version=0.0.4;q=0.5,*/*;q=0.1"));
	assert_false(ibex_om_accepts_openmetrics("*/*"));
	assert_false(ibex_om_accepts_openmetrics(NULL));
}

/* A back end that logs each call as one word: what telemetry's gets. */
static void
log_call(struct ibex_emit *e, const char *what, const char *key)
{
	ibex_out_printf(e->ctx, "%s%s:%s", ((struct ibex_out *)e->ctx)->len ?
			" " : "", what, key != NULL ? key : "-");
}

static void
rec_open(struct ibex_emit *e, const char *key, bool list)
{
	log_call(e, list ? "list" : "obj", key);
	e->depth++;
}

static void
rec_close(struct ibex_emit *e, bool list)
{
	log_call(e, list ? "/list" : "/obj", NULL);
	e->depth--;
}

static void
rec_u64(struct ibex_emit *e, const char *key, uint64_t v)
{
	log_call(e, "u64", key);
	ibex_out_printf(e->ctx, "=%llu", (unsigned long long)v);
}

static void
rec_i64(struct ibex_emit *e, const char *key, int64_t v)
{
	log_call(e, "i64", key);
	ibex_out_printf(e->ctx, "=%lld", (long long)v);
}

static void
rec_str(struct ibex_emit *e, const char *key, const char *v)
{
	log_call(e, "str", key);
	ibex_out_printf(e->ctx, "=%s", v != NULL ? v : "(null)");
}

static void
rec_bool(struct ibex_emit *e, const char *key, bool v)
{
	log_call(e, "bool", key);
	ibex_out_printf(e->ctx, "=%d", v);
}

static void
rec_dbl(struct ibex_emit *e, const char *key, double v, unsigned int d)
{
	log_call(e, "dbl", key);
	ibex_out_printf(e->ctx, "=%.*f", (int)d, v);
}

static const struct ibex_emit_ops rec_ops = {
	.open = rec_open, .close = rec_close, .u64 = rec_u64, .i64 = rec_i64,
	.str = rec_str, .boolean = rec_bool, .dbl = rec_dbl,
};

static void
test_ops_hook(void **state)
{
	struct ibex_out log;
	struct ibex_emit e;

	(void)state;
	ibex_out_init(&log);
	ibex_emit_ops_init(&e, &rec_ops, &log);
	ibex_emit_obj_begin(&e, NULL);
	ibex_emit_u64(&e, "a", 1);
	ibex_emit_i64(&e, "b", -2);
	ibex_emit_list_begin(&e, "l");
	ibex_emit_str(&e, NULL, "x");
	ibex_emit_list_end(&e);
	ibex_emit_bool(&e, "t", true);
	ibex_emit_dur_ns(&e, "d_ns", 5);
	ibex_emit_double(&e, "p", 0.25, 2);
	ibex_emit_obj_end(&e);
	assert_int_equal(ibex_emit_finish(&e), 0);
	assert_string_equal(log.buf, "obj:- u64:a=1 i64:b=-2 list:l str:-=x "
			    "/list:- bool:t=1 u64:d_ns=5 dbl:p=0.25 /obj:-");
	/* An open object is reported as such, as by the JSON back end. */
	ibex_emit_obj_begin(&e, NULL);
	assert_int_equal(ibex_emit_finish(&e), -EINPROGRESS);
	ibex_out_free(&log);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_escape_file),
		cmocka_unit_test(test_escape_stops_on_error),
		cmocka_unit_test(test_json_values),
		cmocka_unit_test(test_json_errors),
		cmocka_unit_test(test_json_appends),
		cmocka_unit_test(test_om_counter_gauge),
		cmocka_unit_test(test_om_histogram),
		cmocka_unit_test(test_om_errors),
		cmocka_unit_test(test_om_accept),
		cmocka_unit_test(test_ops_hook),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
