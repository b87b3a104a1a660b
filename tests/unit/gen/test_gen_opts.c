/* SPDX-License-Identifier: BSD-3-Clause */
/* The generator's option table: what the usage lists is what the parser
 * takes, and sizes and rates read as everywhere else in ibex. */
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

#include "ibex_cbfc.h"
#include "ibex_gen_engine.h"
#include "ibex_gen_opts.h"

static int
parse2(struct ibex_gen_opts *o, const char *a0, const char *a1)
{
	char *argv[4] = { (char *)"ibex-gen", (char *)a0, (char *)a1, NULL };

	ibex_gen_opts_default(o);
	return ibex_gen_opts_parse(o, a1 != NULL ? 3 : 2, argv);
}

/* A valid value of every option (NULL: a flag). */
static const struct {
	const char *name;
	const char *val;
} samples[] = {
	{ "engine", "alltoall" }, { "ranks", "4" }, { "root", "1" },
	{ "minbytes", "4K" }, { "maxbytes", "1M" }, { "stepfactor", "4" },
	{ "iters", "3" }, { "warmup", "0" }, { "straggler", "1:20:0.5" },
	{ "seed", "7" }, { "timeout-ms", "500" },
	{ "fail-stop", "5" }, { "flow", "0:1:1M,1:0" },
	{ "class-by", "dscp" },
	{ "rate", "1Mpps" }, { "burst", "8" }, { "poisson", NULL },
	{ "duration", "0.5" }, { "frames", "1000" }, { "size", "64" },
	{ "tx-drop", NULL },
	{ "search", "burst" }, { "sizes", "64,1518" }, { "trial", "0.1" },
	{ "resolution", "2%" }, { "pdr-loss", "0.1%" }, { "max-rate", "10M" },
	{ "burst-max", "64" }, { "retries", "2" }, { "mtu", "9000" },
	{ "qps", "4" }, { "vlan", "10" }, { "pcp", "3" }, { "dscp", "26" }, { "ecn", "ect1" },
	{ "fc", "pfc" }, { "cbfc-limit", "512" }, { "cbfc-credit-size", "256" },
	{ "cbfc-overhead", "-4" }, { "cbfc-cc-timer-us", "0" },
	{ "prio", "3" }, { "vl", "2" },
	{ "link-mbps", "25000" }, { "dcqcn", NULL }, { "dcqcn-scale", "1000" },
	{ "rto", "20000" }, { "agg-job", "7" }, { "agg-slots", "128" },
	{ "agg-elements", "512" }, { "agg-int", NULL }, { "json", "x.json" },
	{ "csv", "x.csv" }, { "plot", "dir" }, { "quiet", NULL },
	{ "progress", NULL }, { "help", NULL }, { "version", NULL },
};

static int
sample_of(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(samples) / sizeof(samples[0]); i++)
		if (strcmp(samples[i].name, name) == 0)
			return (int)i;
	return -1;
}

/* What ibex_gen_opts_parse says on stderr when "--NAME VAL" is given;
 * @return the parser's result. */
static int
parse_err(const char *name, const char *val, char *msg, size_t len)
{
	struct ibex_gen_opts o;
	char opt[64];
	FILE *tmp = tmpfile();
	int saved, ret;
	size_t n;

	assert_non_null(tmp);
	snprintf(opt, sizeof(opt), "--%s", name);
	fflush(stderr);
	saved = dup(2);
	assert_true(saved >= 0);
	assert_true(dup2(fileno(tmp), 2) >= 0);
	ret = parse2(&o, opt, val);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	n = fread(msg, 1, len - 1, tmp);
	msg[n] = '\0';
	fclose(tmp);
	return ret;
}

/* A refused value is named with what the option takes: its range in its
 * own syntax, or its words. */
static void
test_errors_say_what_is_allowed(void **state)
{
	static const struct {
		const char *name, *val, *says;
	} cases[] = {
		{ "ranks", "16385", "--ranks: bad value '16385' (2..16384)" },
		{ "ranks", "x", "(2..16384)" },
		{ "root", "16384", "(0..16383)" },
		{ "stepfactor", "1", "(2..1024)" },
		{ "iters", "0", "(1..100000)" },
		{ "warmup", "-1", "(0..1000000)" },
		{ "burst", "5000", "(1..4096)" },
		{ "retries", "101", "(0..100)" },
		{ "qps", "9", "(1..8)" },
		{ "vlan", "4096", "(0..4095)" },
		{ "pcp", "8", "(0..7)" },
		{ "dscp", "64", "(0..63)" },
		{ "prio", "8", "(0..7)" },
		{ "vl", "15", "(0..14)" },
		{ "link-mbps", "0", "(1..10000000)" },
		{ "burst-max", "1", "(2..1048576)" },
		{ "seed", "x", "(a whole number, 0 or more)" },
		{ "frames", "0", "(a whole number, 1 or more)" },
		{ "size", "59", "(60..16384 bytes (4K = 4096))" },
		{ "mtu", "100", "(128..16384 bytes" },
		{ "minbytes", "0", "(1..1T bytes" },
		{ "maxbytes", "2T", "(1..1T bytes" },
		{ "rate", "20G", "(0..10G frames/s (1M = 10^6))" },
		{ "max-rate", "0", "(1..10G frames/s" },
		{ "resolution", "0.9", "(1e-06..0.5)" },
		{ "pdr-loss", "0.9", "(1e-09..0.5)" },
		{ "dcqcn-scale", "0.5", "(1..1000000)" },
		{ "duration", "2000000", "(0.001..1000000 seconds)" },
		{ "trial", "x", "(0.001..3600 seconds)" },
		{ "timeout-ms", "0", "(1..3600000 ms)" },
		{ "rto", "0", "(1..100000000 us)" },
		{ "engine", "ringg", "(ring|hd|incast|alltoall|inc|rate)" },
		{ "agg-slots", "0", "(1..32768)" },
		{ "agg-elements", "2049", "(1..2048)" },
		{ "ecn", "ce", "(not-ect|ect0|ect1)" },
		{ "fc", "xon", "(none|pfc|credit|cbfc)" },
		{ "cbfc-limit", "0", "--cbfc-limit: bad value '0' (1..1048575)" },
		{ "cbfc-limit", "1048576", "(1..1048575)" },
		{ "cbfc-credit-size", "8", "(16..4096 bytes" },
		{ "cbfc-credit-size", "8K", "(16..4096 bytes" },
		{ "cbfc-overhead", "-17", "(-16..127 bytes)" },
		{ "cbfc-overhead", "128", "(-16..127 bytes)" },
		{ "cbfc-overhead", "--1", "(-16..127 bytes)" },
		{ "cbfc-overhead", "-", "(-16..127 bytes)" },
		{ "cbfc-cc-timer-us", "250001", "(0..250000)" },
		{ "cbfc-cc-timer-us", "-1", "(0..250000)" },
		{ "search", "ndr", "(rate|burst)" },
		{ "sizes", "64,20000", "each 64..16388 bytes" },
		{ "straggler", "16384:1:0.5", "rank R below 16384" },
		{ "flow", "0:0", "ranks below 16384, S != D" },
		{ "flow", "0:1@15", "a class @C is 0..7, or 0..14 with "
				    "--class-by dscp" },
		{ "class-by", "tos", "(pcp|dscp)" },
		{ "flow", "0:1,0:1", "a rank pair twice" },
	};
	char msg[512];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (parse_err(cases[i].name, cases[i].val, msg, sizeof(msg)) !=
		    -EINVAL)
			fail_msg("--%s %s: taken", cases[i].name, cases[i].val);
		if (strstr(msg, cases[i].says) == NULL)
			fail_msg("--%s %s: says \"%s\", not \"%s\"",
				 cases[i].name, cases[i].val, msg, cases[i].says);
	}
	/* every option with a value: a refusal says what it takes */
	for (i = 0; i < sizeof(samples) / sizeof(samples[0]); i++) {
		if (samples[i].val == NULL || strcmp(samples[i].name, "json") == 0 ||
		    strcmp(samples[i].name, "csv") == 0 ||
		    strcmp(samples[i].name, "plot") == 0)
			continue; /* flags and file names take anything */
		assert_int_equal(parse_err(samples[i].name, "?", msg,
					   sizeof(msg)), -EINVAL);
		if (strstr(msg, " (") == NULL || strlen(msg) < 2 ||
		    strcmp(msg + strlen(msg) - 2, ")\n") != 0)
			fail_msg("--%s ?: \"%s\" does not say what it takes",
				 samples[i].name, msg);
	}
}

/* The man page's OPTIONS (ibex-gen --help-man) hold every option of the
 * table, in go-md2man markup with its brackets escaped. */
static void
test_man_is_the_table(void **state)
{
	char *text = NULL, want[80];
	size_t len = 0, i;
	FILE *f = open_memstream(&text, &len);

	(void)state;
	assert_non_null(f);
	ibex_gen_usage_man(f);
	fclose(f);
	for (i = 0; i < sizeof(samples) / sizeof(samples[0]); i++) {
		snprintf(want, sizeof(want), "**--%s**", samples[i].name);
		if (strstr(text, want) == NULL)
			fail_msg("the man page's OPTIONS lack %s", want);
	}
	assert_non_null(strstr(text, "**-b**, **--minbytes** *S*\n: "));
	assert_non_null(strstr(text, "*S:D\\[:PPS\\]\\[@C\\],..*"));
	assert_non_null(strstr(text, "## Reports\n"));
	assert_non_null(strstr(text, "Allowed: 2..16384"));
	free(text);
}

/* Every option the usage prints is parsed, and nothing else is. */
static void
test_usage_is_the_parser(void **state)
{
	struct ibex_gen_opts o;
	char *text = NULL, *line, *save = NULL, opt[64];
	size_t len = 0, listed = 0;
	FILE *f = open_memstream(&text, &len);
	int k;

	(void)state;
	assert_non_null(f);
	ibex_gen_usage(f, "ibex-gen");
	fclose(f);
	for (line = strtok_r(text, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		char *p = strstr(line, "--");

		if (strncmp(line, "  -", 3) != 0 || p == NULL || p > line + 6)
			continue;
		assert_int_equal(sscanf(p + 2, "%63[a-z-]", opt), 1);
		k = sample_of(opt);
		if (k < 0)
			fail_msg("usage lists --%s, the test does not know it", opt);
		snprintf(opt, sizeof(opt), "--%s", samples[k].name);
		if (strcmp(samples[k].name, "help") == 0) {
			assert_non_null(freopen("/dev/null", "w", stdout));
			assert_int_equal(parse2(&o, opt, NULL), 1);
		} else if (strcmp(samples[k].name, "version") == 0) {
			assert_int_equal(parse2(&o, opt, NULL), -EINVAL);
		} else if (parse2(&o, opt, samples[k].val) != 0) {
			fail_msg("usage lists %s, the parser refuses '%s'", opt,
				 samples[k].val);
		}
		listed++;
	}
	free(text);
	assert_int_equal(listed, sizeof(samples) / sizeof(samples[0]));
	assert_int_equal(parse2(&o, "--no-such-option", NULL), -EINVAL);
}

/* Sizes: the syntax of ibex_units.h (binary), the same as the config's. */
static void
test_sizes(void **state)
{
	static const struct {
		const char *s;
		uint64_t v;
	} ok[] = {
		{ "64", 64 }, { "64B", 64 }, { "4K", 4096 }, { "4k", 4096 },
		{ "4KB", 4096 }, { "4KiB", 4096 }, { "64KB", 65536 },
		{ "1.5K", 1536 }, { "1M", 1048576 }, { "1G", 1073741824 },
	};
	static const char *const bad[] = {
		"0", "64b", "4Kb", "1.5", "1e3", "0x40", "-1", "4 K", "2T",
	};
	struct ibex_gen_opts o;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		if (parse2(&o, "-b", ok[i].s) != 0 || o.min_bytes != ok[i].v)
			fail_msg("-b %s", ok[i].s);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (parse2(&o, "-b", bad[i]) != -EINVAL)
			fail_msg("-b %s accepted", bad[i]);
	assert_int_equal(parse2(&o, "--size", "1K"), 0);
	assert_int_equal(o.frame_size, 1024);
	assert_int_equal(parse2(&o, "--mtu", "9KB"), 0);
	assert_int_equal(o.mtu, 9216);
	assert_int_equal(parse2(&o, "--sizes", "64,1K,1518"), 0);
	assert_int_equal(o.nsizes, 3);
	assert_int_equal(o.sizes[1], 1024);
	assert_int_equal(parse2(&o, "--sizes", "64,"), -EINVAL);
	assert_int_equal(parse2(&o, "--sizes", "63"), -EINVAL);
	/* counts are plain numbers */
	assert_int_equal(parse2(&o, "-n", "1K"), -EINVAL);
	assert_int_equal(parse2(&o, "--ranks", "8"), 0);
	assert_int_equal(o.nranks, 8);
	assert_int_equal(o.qps, 1);
	assert_int_equal(parse2(&o, "--qps", "8"), 0);
	assert_int_equal(o.qps, 8);
	assert_int_equal(parse2(&o, "--qps", "0"), -EINVAL);
	assert_int_equal(parse2(&o, "--qps", "9"), -EINVAL);
	assert_int_equal(parse2(&o, "--seed", "18446744073709551615"), 0);
	assert_true(o.seed == UINT64_MAX);
	/* a straggler late once an iteration, or at every step */
	assert_int_equal(parse2(&o, "--straggler", "9:20:once"), 0);
	assert_int_equal(o.straggler.rank, 9);
	assert_true(o.straggler.once && o.straggler.prob == 1.0);
	assert_true(o.straggler_us == 20.0);
	assert_int_equal(parse2(&o, "--straggler", "9:20:0.5"), 0);
	assert_false(o.straggler.once);
	assert_int_equal(parse2(&o, "--straggler", "9:20:twice"), -EINVAL);
	assert_int_equal(parse2(&o, "--straggler", "9:20:oncex"), -EINVAL);
}

/* Frame rates are decimal; fractions take a percentage too. */
static void
test_rates(void **state)
{
	struct ibex_gen_opts o;

	(void)state;
	assert_int_equal(parse2(&o, "--rate", "1.5M"), 0);
	assert_true(o.rate_pps == 1.5e6);
	assert_int_equal(parse2(&o, "--rate", "1600K"), 0);
	assert_true(o.rate_pps == 1.6e6);
	assert_int_equal(parse2(&o, "--rate", "200000pps"), 0);
	assert_true(o.rate_pps == 2e5);
	assert_int_equal(parse2(&o, "--rate", "1m"), -EINVAL);
	assert_int_equal(parse2(&o, "--rate", "1e6"), -EINVAL);
	assert_int_equal(parse2(&o, "--rate", "20G"), -EINVAL);
	assert_int_equal(parse2(&o, "--flow", "0:1:100k"), 0);
	assert_true(o.rflow[0].pps == 1e5);
	assert_int_equal(parse2(&o, "--flow", "0:1:0"), -EINVAL);
	assert_int_equal(parse2(&o, "--pdr-loss", "0.1%"), 0);
	assert_true(o.pdr_loss > 0.000999999 && o.pdr_loss < 0.001000001);
	assert_int_equal(parse2(&o, "--resolution", "0.02"), 0);
	assert_true(o.resolution == 0.02);
	assert_int_equal(parse2(&o, "--resolution", "60%"), -EINVAL);
	assert_int_equal(parse2(&o, "--search", "rate"), 0);
	assert_int_equal(o.search, IBEX_GEN_SEARCH_RATE);
	assert_true(o.tx_drop);
	assert_int_equal(parse2(&o, "--search", "none"), -EINVAL);
	assert_int_equal(parse2(&o, "--ecn", "not-ect"), 0);
	assert_int_equal(o.frame.ecn, IBEX_ECN_NOT_ECT);
	assert_int_equal(parse2(&o, "--vlan", "4095"), 0);
	assert_int_equal(o.frame.vlan, 4095);
	assert_int_equal(parse2(&o, "--engine", "rate"), 0);
	assert_true(ibex_gen_open_loop(o.engine));
	assert_int_equal(parse2(&o, "--timeout-ms", "250"), 0);
	assert_int_equal(o.timeout_ms, 250);
}

/* --flow S:D[:PPS][@C]: a class per flow, 0..7 and only with --vlan, or
 * 0..14 by DSCP (--class-by dscp), and then not with PFC above 7. */
static void
test_flow_classes(void **state)
{
	struct ibex_gen_opts o;
	char err[160];

	(void)state;
	assert_int_equal(parse2(&o, "--flow", "0:1:1M@4,1:0,2:3@0"), 0);
	assert_int_equal(o.nrflows, 3);
	assert_int_equal(o.rflow[0].cls, 4);
	assert_true(o.rflow[0].pps == 1e6);
	assert_int_equal(o.rflow[1].cls, -1);
	assert_int_equal(o.rflow[2].cls, 0);
	assert_int_not_equal(parse2(&o, "--flow", "0:1@15"), 0);
	assert_int_not_equal(parse2(&o, "--flow", "0:1@"), 0);
	assert_int_not_equal(parse2(&o, "--flow", "0:1@-1"), 0);
	assert_int_not_equal(parse2(&o, "--flow", "0:1:@2"), 0);
	assert_int_equal(parse2(&o, "--engine", "rate"), 0);
	assert_int_equal(ibex_gen_flows_parse(&o, "0:1@4"), 0);
	assert_int_equal(ibex_gen_opts_check(&o, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "--vlan"));
	o.frame.vlan = 1;
	assert_int_equal(ibex_gen_opts_check(&o, err, sizeof(err)), 0);
	/* classes 8..14: by DSCP, with or without a tag, and not with PFC */
	assert_int_equal(parse2(&o, "--engine", "rate"), 0);
	assert_int_equal(ibex_gen_flows_parse(&o, "0:1@14,1:0@3"), 0);
	assert_int_equal(ibex_gen_opts_check(&o, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "--flow 0:1@14: a class above 7 needs "
			    "--class-by dscp (a PCP is 0..7)");
	o.class_by = IBEX_GEN_CLASS_DSCP;
	assert_int_equal(ibex_gen_opts_check(&o, err, sizeof(err)), 0);
	o.fc = IBEX_GEN_FC_PFC;
	assert_int_equal(ibex_gen_opts_check(&o, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "--flow 0:1@14: --fc pfc has priorities "
			    "0..7");
	o.fc = IBEX_GEN_FC_CBFC;
	assert_int_equal(ibex_gen_opts_check(&o, err, sizeof(err)), 0);
	assert_int_equal(parse2(&o, "--class-by", "dscp"), 0);
	assert_int_equal(o.class_by, IBEX_GEN_CLASS_DSCP);
}

/* Beyond 64 ranks: what each engine's tables hold is checked up front,
 * with the reason. */
static void
test_rank_limits(void **state)
{
	struct ibex_gen_opts o;
	char err[256];

	(void)state;
	assert_int_equal(parse2(&o, "--ranks", "1024"), 0);
	assert_int_equal(ibex_gen_opts_check(&o, err, sizeof(err)), 0);
	assert_int_equal(parse2(&o, "--ranks", "4096"), 0);
	assert_int_equal(ibex_gen_opts_check(&o, err, sizeof(err)), 0);
	/* a ring of 4,097 ranks: 4,097 x 8,192 input counters */
	assert_int_equal(parse2(&o, "--ranks", "4097"), 0);
	assert_int_equal(ibex_gen_opts_check(&o, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "4,096"));
	assert_int_equal(parse2(&o, "--ranks", "16384"), 0);
	assert_int_equal(parse2(&o, "--engine", "hd"), 0);
	o.nranks = 16384;
	assert_int_equal(ibex_gen_opts_check(&o, err, sizeof(err)), 0);
	assert_int_equal(parse2(&o, "--engine", "alltoall"), 0);
	o.nranks = 1024;
	assert_int_equal(ibex_gen_opts_check(&o, err, sizeof(err)), 0);
	o.nranks = 1025;
	assert_int_equal(ibex_gen_opts_check(&o, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "rank pairs"));
	/* open loop: one flow per rank without --flow, 64 at most */
	assert_int_equal(parse2(&o, "--engine", "rate"), 0);
	o.nranks = 64;
	assert_int_equal(ibex_gen_opts_check(&o, err, sizeof(err)), 0);
	o.nranks = 65;
	assert_int_equal(ibex_gen_opts_check(&o, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "--flow"));
	assert_int_equal(ibex_gen_flows_parse(&o, "0:1000,1000:0"), 0);
	o.nranks = 1024;
	assert_int_equal(ibex_gen_opts_check(&o, err, sizeof(err)), 0);
}

/* Parse a NULL-terminated list of words, from the defaults. */
static int
parse_words(struct ibex_gen_opts *o, const char *const *words)
{
	char *argv[16] = { (char *)"ibex-gen" };
	int argc = 1;

	while (*words != NULL && argc < 15)
		argv[argc++] = (char *)*words++;
	argv[argc] = NULL;
	ibex_gen_opts_default(o);
	return ibex_gen_opts_parse(o, argc, argv);
}

/* --fc cbfc: SAI's defaults, every VL lossless at both ends with the
 * --cbfc-limit, and what CBFC cannot take refused with the reason. */
static void
test_cbfc_opts(void **state)
{
	static const char *const plain[] = { "--fc", "cbfc", NULL };
	static const char *const given[] = { "--fc", "cbfc", "--cbfc-limit",
		"300", "--cbfc-credit-size", "256", "--cbfc-overhead=-16",
		"--cbfc-cc-timer-us", "0", NULL };
	static const char *const zero[] = { "--fc", "cbfc", "--cbfc-limit",
		"0", NULL };
	struct ibex_gen_opts o;
	struct ibex_cbfc_conf c;
	struct ibex_cbfc_port p;
	char err[256];
	unsigned int v;

	(void)state;
	assert_int_equal(parse_words(&o, plain), 0);
	assert_int_equal(o.fc, IBEX_GEN_FC_CBFC);
	assert_int_equal(o.cbfc_limit, 1024);
	assert_int_equal(o.cbfc_credit_size, 128);
	assert_int_equal(o.cbfc_overhead, 0);
	assert_int_equal(o.cbfc_cc_timer_us, 256);
	assert_int_equal(ibex_gen_opts_check(&o, err, sizeof(err)), 0);
	assert_int_equal(ibex_gen_cbfc_conf(&o, &c, err, sizeof(err)), 0);
	assert_int_equal(c.n_vcs, IBEX_GEN_CBFC_VCS);
	assert_int_equal(c.tx_lossless, 0x7fff);
	assert_int_equal(c.rx_lossless, 0x7fff);
	assert_int_equal(c.port_limit, 0);
	assert_int_equal(c.credit_size, 128);
	assert_int_equal(c.cc_timer_us, 256);
	for (v = 0; v < IBEX_GEN_CBFC_VCS; v++)
		assert_int_equal(c.vc_limit[v], 1024);
	/* the port it makes: a 1514-byte frame costs 12 credits, and a
	 * rank's 1024 take 85 of them on a VL */
	assert_int_equal(ibex_cbfc_port_init(&p, &c, 0), 0);
	assert_int_equal(ibex_cbfc_credits(&p, 1514), 12);
	assert_true(ibex_cbfc_tx_ok(&p, 14, 1024));
	assert_false(ibex_cbfc_tx_ok(&p, 14, 1025));
	assert_int_equal(parse_words(&o, given), 0);
	assert_int_equal(o.cbfc_limit, 300);
	assert_int_equal(o.cbfc_credit_size, 256);
	assert_int_equal(o.cbfc_overhead, -16);
	assert_int_equal(o.cbfc_cc_timer_us, 0);
	assert_int_equal(ibex_gen_opts_check(&o, err, sizeof(err)), 0);
	assert_int_equal(ibex_gen_cbfc_conf(&o, &c, err, sizeof(err)), 0);
	assert_int_equal(c.overhead, -16);
	assert_int_equal(c.vc_limit[3], 300);
	assert_int_equal(parse2(&o, "--cbfc-overhead", "127"), 0);
	assert_int_equal(o.cbfc_overhead, 127);
	assert_int_equal(parse2(&o, "--cbfc-credit-size", "4K"), 0);
	assert_int_equal(o.cbfc_credit_size, 4096);
	/* refused as an option */
	assert_int_equal(parse_words(&o, zero), -EINVAL);
	assert_int_equal(parse2(&o, "--cbfc-credit-size", "8"), -EINVAL);
	assert_int_equal(parse2(&o, "--cbfc-overhead", "-17"), -EINVAL);
	/* refused as a whole (values set by a program, not parsed) */
	assert_int_equal(parse_words(&o, plain), 0);
	o.cbfc_limit = 0;
	assert_int_equal(ibex_gen_opts_check(&o, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "--fc cbfc: VC 0"));
	assert_non_null(strstr(err, "could never send"));
	o.cbfc_limit = 1024;
	o.cbfc_credit_size = 8;
	assert_int_equal(ibex_gen_opts_check(&o, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "credit size: 16..4096 bytes, not 8"));
	o.cbfc_credit_size = 128;
	o.vl = 15;
	assert_int_equal(ibex_gen_opts_check(&o, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "VLs 0..14"));
	o.vl = 14;
	assert_int_equal(ibex_gen_opts_check(&o, err, sizeof(err)), 0);
	/* a limit below the largest frame's credits could never send it:
	 * --mtu 1514 is 12 credits of 128 bytes */
	o.cbfc_limit = 11;
	assert_int_equal(ibex_gen_opts_check(&o, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "--cbfc-limit 11"));
	o.cbfc_limit = 12;
	assert_int_equal(ibex_gen_opts_check(&o, err, sizeof(err)), 0);
	/* the open loop's largest frame is --size (or --sizes) */
	o.engine = &ibex_gen_engine_rate;
	o.cbfc_limit = 1;
	assert_int_equal(ibex_gen_opts_check(&o, err, sizeof(err)), 0);
	o.frame_size = 129;
	assert_int_equal(ibex_gen_opts_check(&o, err, sizeof(err)), -EINVAL);
	/* other modes do not look at the CBFC options */
	o.fc = IBEX_GEN_FC_CREDIT;
	o.cbfc_limit = 0;
	assert_int_equal(ibex_gen_opts_check(&o, err, sizeof(err)), 0);
}

/* --rto recovers losses, which a search measures: refused together. */
static void
test_rto_checks(void **state)
{
	struct ibex_gen_opts o;
	char err[160];

	(void)state;
	assert_int_equal(parse2(&o, "--rto", "20000"), 0);
	assert_true(o.rto_us == 20000);
	assert_int_equal(ibex_gen_opts_check(&o, err, sizeof(err)), 0);
	assert_int_equal(parse2(&o, "--engine", "rate"), 0);
	o.rto_us = 20000;
	assert_int_equal(ibex_gen_opts_check(&o, err, sizeof(err)), 0);
	o.search = IBEX_GEN_SEARCH_RATE;
	assert_int_equal(ibex_gen_opts_check(&o, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "--rto"));
	assert_int_not_equal(parse2(&o, "--rto", "0"), 0);
	assert_int_not_equal(parse2(&o, "--dcqcn-scale", "0.5"), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_usage_is_the_parser),
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_rates),
		cmocka_unit_test(test_rto_checks),
		cmocka_unit_test(test_cbfc_opts),
		cmocka_unit_test(test_rank_limits),
		cmocka_unit_test(test_flow_classes),
		cmocka_unit_test(test_errors_say_what_is_allowed),
		cmocka_unit_test(test_man_is_the_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
