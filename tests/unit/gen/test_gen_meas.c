/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Latency per message size: a frame's delay lands in the histogram of the
 * size that runs, a size's warm-up is left out, the whole run is the sum
 * of the sizes, and the report writes each size's figures (text table,
 * JSON sizes[i].latency, CSV columns) from its own histogram. A size
 * without a measured iteration shows no figure (never a 0 that reads as
 * instant), a sweep that stopped early says why, and every report says
 * how far the emulation fell behind the clock.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "ibex_gen_meas.h"
#include "ibex_gen_opts.h"
#include "ibex_gen_report.h"

/* @p n frames of flow 0 -> 1 that took @p delay ticks. */
static void
rx_n(struct ibex_gen_meas *m, unsigned int n, uint64_t delay)
{
	static uint32_t seq;
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct ibex_gen_trailer t = { .magic = IBEX_GEN_MAGIC,
			.flow = 1, .seq = seq++,
			.tsc = 1000000 };

		ibex_gen_meas_rx(m, &t, 100, IBEX_ECN_ECT0, 1000000 + delay, 50);
	}
}

static struct ibex_gen_meas *
meas_new(void)
{
	struct ibex_gen_meas *m = calloc(1, sizeof(*m));

	assert_non_null(m);
	assert_int_equal(ibex_gen_meas_init(m, 8), 0);
	return m;
}

static void
test_sizes_bookkeeping(void **state)
{
	struct ibex_gen_meas *m = meas_new();
	struct ibex_hist *h = calloc(3, sizeof(*h));
	const struct ibex_hist *s0, *s1, *s2;

	(void)state;
	assert_non_null(h);
	/* no sizes: everything goes to the whole run */
	rx_n(m, 4, 700);
	assert_int_equal(ibex_hist_count(&m->lat), 4);
	assert_null(ibex_gen_meas_size_lat(m, 0));
	ibex_gen_meas_sizes(m, h, 3);
	assert_int_equal(m->nsizes, 3);
	/* size 0: 10 warm-up frames (100 ticks) then 20 measured (1000) */
	ibex_gen_meas_size_select(m, 0);
	rx_n(m, 10, 100);
	ibex_gen_meas_size_restart(m);
	rx_n(m, 20, 1000);
	/* size 1: 30 at 2000, no warm-up */
	ibex_gen_meas_size_select(m, 1);
	ibex_gen_meas_size_restart(m);
	rx_n(m, 30, 2000);
	/* size 2: 5 at 5000, one at 9000 */
	ibex_gen_meas_size_select(m, 2);
	rx_n(m, 5, 5000);
	rx_n(m, 1, 9000);
	s0 = ibex_gen_meas_size_lat(m, 0);
	s1 = ibex_gen_meas_size_lat(m, 1);
	s2 = ibex_gen_meas_size_lat(m, 2);
	assert_non_null(s0);
	assert_non_null(s1);
	assert_non_null(s2);
	assert_null(ibex_gen_meas_size_lat(m, 3));
	assert_int_equal(ibex_hist_count(s0), 20);
	assert_int_equal(ibex_hist_min(s0), 1000);   /* warm-up left out */
	assert_int_equal(ibex_hist_max(s0), 1000);
	assert_int_equal(ibex_hist_count(s1), 30);
	assert_int_equal(ibex_hist_min(s1), 2000);
	assert_int_equal(ibex_hist_count(s2), 6);
	assert_int_equal(ibex_hist_min(s2), 5000);
	assert_int_equal(ibex_hist_max(s2), 9000);
	/* the sizes never touched the whole run's histogram */
	assert_int_equal(ibex_hist_count(&m->lat), 4);
	/* fold: the whole run is exactly the sizes together */
	ibex_gen_meas_sizes_fold(m);
	assert_int_equal(ibex_hist_count(&m->lat), 20 + 30 + 6);
	assert_int_equal(ibex_hist_min(&m->lat), 1000);
	assert_int_equal(ibex_hist_max(&m->lat), 9000);
	assert_int_equal(ibex_hist_sum(&m->lat),
			 20 * 1000 + 30 * 2000 + 5 * 5000 + 9000);
	/* rank 28 of 56 is a 2000: its bucket's highest value */
	assert_int_equal(ibex_hist_quantile(&m->lat, 0.5),
			 ibex_hist_bucket_hi(ibex_hist_index(2000)));
	/* folding again gives the same, not twice as much */
	ibex_gen_meas_sizes_fold(m);
	assert_int_equal(ibex_hist_count(&m->lat), 56);
	/* out of range: back to the whole run */
	ibex_gen_meas_size_select(m, 3);
	assert_ptr_equal(m->lat_cur, &m->lat);
	/* reset_latency empties every histogram */
	ibex_gen_meas_reset_latency(m);
	assert_int_equal(ibex_hist_count(&m->lat), 0);
	assert_int_equal(ibex_hist_count(s0), 0);
	assert_int_equal(ibex_hist_count(s2), 0);
	free(h);
	ibex_gen_meas_fini(m);
	free(m);
}

/* Without sizes attached fold keeps the whole run (open-loop engines). */
static void
test_fold_without_sizes(void **state)
{
	struct ibex_gen_meas *m = meas_new();

	(void)state;
	rx_n(m, 7, 300);
	ibex_gen_meas_size_select(m, 0);
	rx_n(m, 3, 400);
	ibex_gen_meas_sizes_fold(m);
	assert_int_equal(ibex_hist_count(&m->lat), 10);
	assert_int_equal(ibex_hist_max(&m->lat), 400);
	ibex_gen_meas_fini(m);
	free(m);
}

static char *
slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = calloc(1, (size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return buf;
}

/* The report's JSON, CSV and table carry each size's own figures. */
static void
test_report_per_size(void **state)
{
	char *argv[] = { (char *)"ibex-gen", (char *)"--engine", (char *)"ring",
			 (char *)"--ranks", (char *)"2", (char *)"-b",
			 (char *)"4K", (char *)"-e", (char *)"16K", (char *)"-f",
			 (char *)"4", NULL };
	struct ibex_gen_meas *m = meas_new();
	struct ibex_gen_report *rep = calloc(1, sizeof(*rep));
	struct ibex_hist *h = calloc(2, sizeof(*h));
	char dir[] = "/tmp/ibex_test_gen_meas.XXXXXX", path[128], *txt;
	struct ibex_gen_opts o;
	FILE *f;

	(void)state;
	assert_non_null(rep);
	assert_non_null(h);
	assert_non_null(mkdtemp(dir));
	ibex_gen_opts_default(&o);
	assert_int_equal(ibex_gen_opts_parse(&o, 11, argv), 0);
	/* 1 GHz: a tick is a nanosecond */
	assert_int_equal(ibex_gen_report_init(rep, &o, 1000000000, m), 0);
	assert_int_equal(rep->nsizes, 2);
	ibex_gen_meas_sizes(m, h, rep->nsizes);
	ibex_gen_meas_size_select(m, 0);
	rx_n(m, 100, 1000);
	ibex_gen_meas_size_select(m, 1);
	rx_n(m, 99, 4000);
	rx_n(m, 1, 20000);
	ibex_gen_meas_sizes_fold(m);

	snprintf(path, sizeof(path), "%s/r.json", dir);
	assert_int_equal(ibex_gen_report_json(rep, path), 0);
	txt = slurp(path);
	assert_non_null(strstr(txt, "\"latency\": {\"frames\": 100, \"min_ns\": "
			       "1000.0, \"p50_ns\": 1000.0, \"p99_ns\": 1000.0, "
			       "\"p999_ns\": 1000.0, \"max_ns\": 1000.0"));
	/* 4000 falls in the bucket 4000..4015 (reported as its top); the
	 * one 20000 is p99.9 and max */
	assert_int_equal(ibex_hist_bucket_hi(ibex_hist_index(4000)), 4015);
	assert_non_null(strstr(txt, "\"latency\": {\"frames\": 100, \"min_ns\": "
			       "4000.0, \"p50_ns\": 4015.0, \"p99_ns\": 4015.0, "
			       "\"p999_ns\": 20000.0, \"max_ns\": 20000.0"));
	assert_non_null(strstr(txt, "\"latency\": {\"frames\": 200, "
			       "\"min_ns\": 1000.0,"));
	free(txt);
	unlink(path);

	snprintf(path, sizeof(path), "%s/r.csv", dir);
	assert_int_equal(ibex_gen_report_csv(rep, path), 0);
	txt = slurp(path);
	assert_non_null(strstr(txt, ",lat_frames,lat_min_ns,lat_p50_ns,"
			       "lat_p99_ns,lat_p999_ns,lat_max_ns\n"));
	assert_non_null(strstr(txt, ",100,4000.0,4015.0,4015.0,20000.0,"
			       "20000.0\n"));
	free(txt);
	unlink(path);

	snprintf(path, sizeof(path), "%s/r.txt", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	ibex_gen_report_print(f, rep);
	fclose(f);
	txt = slurp(path);
	assert_non_null(strstr(txt, "# per-frame latency by message size"));
	assert_non_null(strstr(txt, "       16384        100       4.00"));
	free(txt);
	unlink(path);
	rmdir(dir);
	ibex_gen_report_free(rep);
	free(rep);
	free(h);
	ibex_gen_meas_fini(m);
	free(m);
}

/* A sweep stopped early: measured, all failed and never started sizes
 * each look like what they are, in the table, the JSON and the CSV. */
static void
test_report_not_run(void **state)
{
	char *argv[] = { (char *)"ibex-gen", (char *)"--engine", (char *)"ring",
			 (char *)"--ranks", (char *)"2", (char *)"-b",
			 (char *)"4K", (char *)"-e", (char *)"64K", (char *)"-f",
			 (char *)"4", (char *)"-n", (char *)"2", (char *)"-w",
			 (char *)"1", NULL };
	struct ibex_gen_meas *m = meas_new();
	struct ibex_gen_report *rep = calloc(1, sizeof(*rep));
	char dir[] = "/tmp/ibex_test_gen_meas.XXXXXX", path[128], *txt;
	struct ibex_gen_opts o;
	FILE *f;

	(void)state;
	assert_non_null(rep);
	assert_non_null(mkdtemp(dir));
	ibex_gen_opts_default(&o);
	assert_int_equal(ibex_gen_opts_parse(&o, 15, argv), 0);
	assert_int_equal(ibex_gen_report_init(rep, &o, 1000000000, m), 0);
	assert_int_equal(rep->nsizes, 3);
	/* 4K: two measured iterations, 1 and 3 us */
	rep->size[0].tried = 3;
	rep->size[0].iters = 2;
	rep->size[0].ct[0] = 1000;
	rep->size[0].ct[1] = 3000;
	/* 16K: every iteration past the timeout; 64K: never started */
	rep->size[1].tried = 3;
	rep->size[1].failed = 2;
	rep->size[1].warm_failed = 1;
	snprintf(rep->stop_reason, sizeof(rep->stop_reason),
		 "every iteration of 16384 B failed");
	/* 1000 frames in 2 s, the loop away twice, 5 ms at most */
	m->tx_frames = 1000;
	rep->run_s = 2.0;
	rep->stalls = 2;
	rep->stall_max = 5000000;

	snprintf(path, sizeof(path), "%s/r.txt", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	ibex_gen_report_print(f, rep);
	fclose(f);
	txt = slurp(path);
	assert_non_null(strstr(txt, "        4096       1024  float       2.00"));
	assert_non_null(strstr(txt, "       16384       4096  float     failed "
			       "          -           -          -          - "
			       "         -          -     3\n"));
	assert_non_null(strstr(txt, "       65536      16384  float    not run "
			       "          -           -          -          - "
			       "         -          -     -\n"));
	assert_non_null(strstr(txt, "# not run: 1 of 3 sizes never started "
			       "(the sweep stopped early)\n"));
	assert_non_null(strstr(txt, "# STOPPED EARLY: every iteration of "
			       "16384 B failed\n"));
	assert_non_null(strstr(txt, "# emulation: closed loop (no offered "
			       "rate), achieved 500 fps over 2.000 s, 0 pacer "
			       "resyncs, 2 generator stalls >= 1000 us, max "
			       "stall 5000 us\n"));
	/* the mean bus bandwidth is over the measured size alone */
	assert_non_null(strstr(txt, "# Out of bounds values : 1 FAILED\n"));
	free(txt);
	unlink(path);

	snprintf(path, sizeof(path), "%s/r.json", dir);
	assert_int_equal(ibex_gen_report_json(rep, path), 0);
	txt = slurp(path);
	assert_non_null(strstr(txt, "{\"bytes\": 4096, \"count\": 1024, "
			       "\"ran\": true, \"attempted\": 3, \"iters\": 2, "
			       "\"failed\": 0, \"warmup_failed\": 0, "
			       "\"time_us\": 2.000000,"));
	assert_non_null(strstr(txt, "{\"bytes\": 16384, \"count\": 4096, "
			       "\"ran\": true, \"attempted\": 3, \"iters\": 0, "
			       "\"failed\": 2, \"warmup_failed\": 1, "
			       "\"time_us\": null, \"algbw_gbs\": null, "
			       "\"busbw_gbs\": null, \"ct_p50_us\": null, "
			       "\"ct_p99_us\": null, \"ct_max_us\": null, "
			       "\"idle_us\": null,"));
	assert_non_null(strstr(txt, "{\"bytes\": 65536, \"count\": 16384, "
			       "\"ran\": false, \"attempted\": 0, "
			       "\"iters\": 0, \"failed\": 0, "
			       "\"warmup_failed\": 0, \"time_us\": null,"));
	assert_non_null(strstr(txt, "\"stopped_early\": \"every iteration of "
			       "16384 B failed\""));
	assert_non_null(strstr(txt, "\"emulation\": {\"offered_fps\": null, "
			       "\"achieved_fps\": 500.0, \"achieved_ratio\": "
			       "null, \"seconds\": 2.000000, \"pacer_resyncs\": "
			       "0, \"pacer_skipped_us\": 0.0, \"stalls\": 2, "
			       "\"stall_min_us\": 1000, \"stall_max_us\": "
			       "5000.0}"));
	free(txt);
	unlink(path);

	snprintf(path, sizeof(path), "%s/r.csv", dir);
	assert_int_equal(ibex_gen_report_csv(rep, path), 0);
	txt = slurp(path);
	assert_non_null(strstr(txt, "ring,2,65536,16384,0,0,,,,,,,,0,"));
	free(txt);
	unlink(path);
	rmdir(dir);
	ibex_gen_report_free(rep);
	free(rep);
	ibex_gen_meas_fini(m);
	free(m);
}

/* An open-loop trial: the rate asked for against the rate sent. */
static void
test_emulation_open_loop(void **state)
{
	char *argv[] = { (char *)"ibex-gen", (char *)"--engine", (char *)"rate",
			 (char *)"--rate", (char *)"1000", NULL };
	struct ibex_gen_meas *m = meas_new();
	struct ibex_gen_report *rep = calloc(1, sizeof(*rep));
	struct ibex_gen_emulation e;
	struct ibex_gen_opts o;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_non_null(rep);
	ibex_gen_opts_default(&o);
	assert_int_equal(ibex_gen_opts_parse(&o, 5, argv), 0);
	assert_int_equal(ibex_gen_report_init(rep, &o, 1000000000, m), 0);
	m->tx_frames = 1500;
	rep->elapsed_s = 2.0;
	rep->run_s = 2.5;
	rep->offered_pps = 1000;
	rep->pacer_resync = 4;
	rep->pacer_lost_s = 0.012;
	rep->stall_max = 12500000;
	rep->stalls = 9;
	ibex_gen_emulation_get(rep, &e);
	assert_true(e.open_loop);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	ibex_gen_emulation_print(f, "", &e);
	fclose(f);
	assert_string_equal(buf, "emulation: offered 1000 fps, achieved 750 "
			    "fps (75.0%) over 2.000 s, 4 pacer resyncs (a flow "
			    "skipped up to 12000 us in all), 9 generator "
			    "stalls >= 1000 "
			    "us, max stall 12500 us\n");
	free(buf);
	ibex_gen_report_free(rep);
	free(rep);
	ibex_gen_meas_fini(m);
	free(m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes_bookkeeping),
		cmocka_unit_test(test_fold_without_sizes),
		cmocka_unit_test(test_report_per_size),
		cmocka_unit_test(test_report_not_run),
		cmocka_unit_test(test_emulation_open_loop),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
