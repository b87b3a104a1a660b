/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Generator options, in the spirit of nccl-tests (-b/-e/-f sweep, -n
 * iterations, -w warm-up). One parser for ibex-gen and for the scenario of
 * ibex-switch --gen, so both take the same words.
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "ibex_cbfc.h"
#include "ibex_gen_engine.h"
#include "ibex_gen_inc.h"
#include "ibex_gen_opts.h"
#include "ibex_gen_slots.h"
#include "ibex_time.h"
#include "ibex_units.h"

void
ibex_gen_opts_default(struct ibex_gen_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->engine = &ibex_gen_engine_ring;
	o->nranks = 8;
	o->min_bytes = 1024;
	o->max_bytes = 1024 * 1024;
	o->factor = 2;
	o->iters = 20;
	o->warmup = 5;
	o->straggler.rank = -1;
	o->seed = 1;
	o->burst = 1;
	o->duration_s = 1.0;
	o->frame_size = 128;
	o->mtu = 1514;
	o->qps = 1;
	o->agg_job = 1;
	o->agg_slots = 64;
	o->agg_elements = 256;
	o->frame.vlan = -1;
	o->frame.ecn = IBEX_ECN_ECT0;
	o->link_mbps = 100000;
	o->cbfc_limit = IBEX_GEN_CBFC_LIMIT_DEF;
	o->cbfc_credit_size = IBEX_CBFC_CREDIT_SIZE_DEF;
	o->cbfc_cc_timer_us = IBEX_CBFC_CC_TIMER_US_DEF;
	o->dcqcn_scale = 1;
	o->timeout_ms = 2000;
	o->fail_stop = 3;
	o->trial_s = 0.25;
	o->resolution = 0.01;
	o->pdr_loss = 0.001;
	o->burst_max = 4096;
	o->retries = 1;
}

/* What --flow takes, said with every refusal of it. */
#define FLOW_ALLOWED "S:D[:PPS][@C],..: ranks below " \
	STR(IBEX_GEN_MAX_RANKS) ", S != D, PPS up to 10G, class C 0..7 (0..14 " \
	"with --class-by dscp), up to " \
	STR(IBEX_GEN_MAX_RFLOWS) " flows, a rank pair once"
#define STR_(x) #x
#define STR(x) STR_(x)

/* A refused value, with what would have been taken. */
static int
bad(const char *opt, const char *val, const char *allowed)
{
	fprintf(stderr, "ibex-gen: %s: bad value '%s' (%s)\n", opt, val,
		allowed);
	return -EINVAL;
}

/* ---- the option table ---- */

struct gen_opt;
typedef int (*gen_opt_parse)(struct ibex_gen_opts *o, const struct gen_opt *d,
			     const char *val);

/*
 * One option: its names, the argument the usage shows (NULL: a flag), the
 * parser with the field and range it fills, and the help text (lines after
 * a '\n' are continued under it). getopt_long's table and the usage text
 * are both made from this list, so they cannot disagree.
 */
struct gen_opt {
	const char *section;   /* heading printed before it, or NULL */
	const char *name;
	char short_name;       /* 0: none */
	const char *arg;
	gen_opt_parse parse;
	size_t off;            /* field in struct ibex_gen_opts */
	size_t size;           /* its width, bytes (integers) */
	double min, max;       /* range, in the field's unit */
	const char *unit;      /* time options: ibex_parse_time's unit */
	const char *allowed;   /* what a refusal says is taken (NULL: the
				  range, from min and max) */
	const char *help;
};

static int p_size(struct ibex_gen_opts *o, const struct gen_opt *d,
		  const char *val);
static int p_pps(struct ibex_gen_opts *o, const struct gen_opt *d,
		 const char *val);

/* A number as the option's syntax writes it: @p k is 1024 for sizes
 * (4K = 4096), 1000 for rates (1M = 10^6), 0 for plain numbers. */
static void
fmt_num(char *buf, size_t len, double v, unsigned int k)
{
	static const char sfx[] = "KMGT";
	unsigned int i = 0;

	if (k != 0 && v >= (double)k * k)
		while (i < 4 && v >= k && v / k == (double)(uint64_t)(v / k)) {
			v /= k;
			i++;
		}
	if (v == (double)(uint64_t)v && v < 1e15)
		snprintf(buf, len, "%" PRIu64 "%.*s", (uint64_t)v, i != 0,
			 &sfx[i != 0 ? i - 1 : 0]);
	else
		snprintf(buf, len, "%g%.*s", v, i != 0, &sfx[i != 0 ? i - 1 : 0]);
}

/*
 * What option @p d takes, for its error message: the table's words, or
 * the range from min and max in the option's own syntax.
 */
static void
allowed_text(const struct gen_opt *d, char *buf, size_t len)
{
	char lo[32], hi[32];
	unsigned int k = d->parse == p_size ? 1024 :
			 d->parse == p_pps ? 1000 : 0;

	if (d->allowed != NULL) {
		snprintf(buf, len, "%s", d->allowed);
		return;
	}
	fmt_num(lo, sizeof(lo), d->min, k);
	fmt_num(hi, sizeof(hi), d->max, k);
	if (d->max >= 1.8e19)
		snprintf(buf, len, "a whole number, %s or more", lo);
	else
		snprintf(buf, len, "%s..%s%s%s", lo, hi,
			 d->parse == p_size ? " bytes (4K = 4096)" :
			 d->parse == p_pps ? " frames/s (1M = 10^6)" :
			 d->unit != NULL ? " " : "",
			 d->unit != NULL ? d->unit : "");
}

/* A bad value of a table option, named as a user types it, with what
 * the option takes. */
static int
bad_opt(const struct gen_opt *d, const char *val)
{
	char allowed[200];

	allowed_text(d, allowed, sizeof(allowed));
	fprintf(stderr, "ibex-gen: --%s: bad value '%s' (%s)\n", d->name, val,
		allowed);
	return -EINVAL;
}

#define OFF(f) offsetof(struct ibex_gen_opts, f), \
	sizeof(((struct ibex_gen_opts *)0)->f)

static void
store_uint(struct ibex_gen_opts *o, const struct gen_opt *d, uint64_t v)
{
	char *f = (char *)o + d->off;

	switch (d->size) {
	case 1: *(uint8_t *)f = (uint8_t)v; break;
	case 2: *(uint16_t *)f = (uint16_t)v; break;
	case 4: *(uint32_t *)f = (uint32_t)v; break;
	default: *(uint64_t *)f = v; break;
	}
}

static int
range_ok(const struct gen_opt *d, double v)
{
	/* written so that NaN fails too */
	return v >= d->min && v <= d->max;
}

/* A count: plain decimal digits. */
static int
p_uint(struct ibex_gen_opts *o, const struct gen_opt *d, const char *val)
{
	uint64_t v;

	if (ibex_parse_uint(val, &v) != 0 || !range_ok(d, (double)v))
		return bad_opt(d, val);
	store_uint(o, d, v);
	return 0;
}

/* A signed count: plain decimal digits after an optional '-'. The range
 * is checked before the value is stored, so any width takes it. */
static int
p_int(struct ibex_gen_opts *o, const struct gen_opt *d, const char *val)
{
	bool neg = val[0] == '-';
	uint64_t v;

	if (ibex_parse_uint(val + neg, &v) != 0 ||
	    !range_ok(d, neg ? -(double)v : (double)v))
		return bad_opt(d, val);
	store_uint(o, d, neg ? -v : v);
	return 0;
}

/* A size (ibex_units.h: 4K = 4KB = 4KiB = 4096). */
static int
p_size(struct ibex_gen_opts *o, const struct gen_opt *d, const char *val)
{
	uint64_t v;

	if (ibex_parse_size(val, &v) != 0 || !range_ok(d, (double)v))
		return bad_opt(d, val);
	store_uint(o, d, v);
	return 0;
}

/* A frame rate (1M = 10^6 frames/s). */
static int
p_pps(struct ibex_gen_opts *o, const struct gen_opt *d, const char *val)
{
	double v;

	if (ibex_parse_pps(val, &v) != 0 || !range_ok(d, v))
		return bad_opt(d, val);
	memcpy((char *)o + d->off, &v, sizeof(v));
	return 0;
}

/* A fraction: 0.001 or 0.1%. */
static int
p_share(struct ibex_gen_opts *o, const struct gen_opt *d, const char *val)
{
	double v;

	if (ibex_parse_share(val, &v) != 0 || !range_ok(d, v))
		return bad_opt(d, val);
	memcpy((char *)o + d->off, &v, sizeof(v));
	return 0;
}

/* A time: ibex_parse_time's strict decimal, or a clear error. Stored as
 * a double, or as an integer of the unit when the field is one. */
static int
p_time(struct ibex_gen_opts *o, const struct gen_opt *d, const char *val)
{
	char err[160];
	double v;

	if (ibex_parse_time(val, d->unit, d->min, d->max, &v, err,
			    sizeof(err)) < 0) {
		char allowed[200];

		allowed_text(d, allowed, sizeof(allowed));
		fprintf(stderr, "ibex-gen: --%s: %s (%s)\n", d->name, err,
			allowed);
		return -EINVAL;
	}
	if (d->size == sizeof(double))
		memcpy((char *)o + d->off, &v, sizeof(v));
	else
		store_uint(o, d, (uint64_t)v);
	return 0;
}

static int
p_flag(struct ibex_gen_opts *o, const struct gen_opt *d, const char *val)
{
	(void)val;
	*(bool *)((char *)o + d->off) = true;
	return 0;
}

static int
p_str(struct ibex_gen_opts *o, const struct gen_opt *d, const char *val)
{
	memcpy((char *)o + d->off, &val, sizeof(val));
	return 0;
}

static int
p_engine(struct ibex_gen_opts *o, const struct gen_opt *d, const char *val)
{
	const struct ibex_gen_engine *e = ibex_gen_engine_find(val);
	char names[160] = "";
	unsigned int i;

	if (e != NULL) {
		o->engine = e;
		return 0;
	}
	for (i = 0; ibex_gen_engines[i] != NULL; i++)
		snprintf(names + strlen(names), sizeof(names) - strlen(names),
			 "%s%s", i != 0 ? "|" : "", ibex_gen_engines[i]->name);
	fprintf(stderr, "ibex-gen: --%s: bad value '%s' (%s)\n", d->name, val,
		names);
	return -EINVAL;
}

static int
p_straggler(struct ibex_gen_opts *o, const struct gen_opt *d, const char *val)
{
	int rank;
	double us, p;
	char tail;

	char word[8];
	bool once = false;

	/* R:D:once: late at its first step of each iteration only */
	if (sscanf(val, "%d:%lf:%7[a-z]%c", &rank, &us, word, &tail) == 3 &&
	    strcmp(word, "once") == 0) {
		once = true;
		p = 1;
	} else if (sscanf(val, "%d:%lf:%lf%c", &rank, &us, &p, &tail) != 3) {
		return bad_opt(d, val);
	}
	if (rank < 0 || rank >= IBEX_GEN_MAX_RANKS ||
	    !(us >= 0 && us <= 1e7) || !(p >= 0 && p <= 1))
		return bad_opt(d, val);
	o->straggler.rank = rank;
	o->straggler.prob = p;
	o->straggler.once = once;
	o->straggler_us = us;
	return 0;
}

/* A word of @p words (NULL-terminated); its index in the field. */
static int
p_word(struct ibex_gen_opts *o, const struct gen_opt *d, const char *val,
       const char *const *words)
{
	unsigned int i;

	for (i = 0; words[i] != NULL; i++)
		if (strcmp(val, words[i]) == 0) {
			store_uint(o, d, i);
			return 0;
		}
	return bad_opt(d, val);
}

static int
p_ecn(struct ibex_gen_opts *o, const struct gen_opt *d, const char *val)
{
	/* in the order of enum ibex_ecn */
	static const char *const w[] = { "not-ect", "ect1", "ect0", NULL };

	return p_word(o, d, val, w);
}

static int
p_fc(struct ibex_gen_opts *o, const struct gen_opt *d, const char *val)
{
	/* in the order of enum ibex_gen_fc */
	static const char *const w[] = { "none", "pfc", "credit", "cbfc",
					 NULL };

	return p_word(o, d, val, w);
}

static int
p_class_by(struct ibex_gen_opts *o, const struct gen_opt *d, const char *val)
{
	/* in the order of enum ibex_gen_class_by */
	static const char *const w[] = { "pcp", "dscp", NULL };

	return p_word(o, d, val, w);
}

static int
p_search(struct ibex_gen_opts *o, const struct gen_opt *d, const char *val)
{
	if (strcmp(val, "rate") == 0)
		o->search = IBEX_GEN_SEARCH_RATE;
	else if (strcmp(val, "burst") == 0)
		o->search = IBEX_GEN_SEARCH_BURST;
	else
		return bad_opt(d, val);
	o->tx_drop = true;
	return 0;
}

static int
p_flows(struct ibex_gen_opts *o, const struct gen_opt *d, const char *val)
{
	(void)d;
	return ibex_gen_flows_parse(o, val);
}

static int
p_sizes(struct ibex_gen_opts *o, const struct gen_opt *d, const char *val)
{
	const char *p = val;
	char word[32];
	uint64_t v;

	o->nsizes = 0;
	while (*p != '\0') {
		size_t n = strcspn(p, ",");

		if (n == 0 || n >= sizeof(word) ||
		    o->nsizes == IBEX_GEN_MAX_SEARCH_SIZES)
			return bad_opt(d, val);
		memcpy(word, p, n);
		word[n] = '\0';
		if (ibex_parse_size(word, &v) != 0 || !range_ok(d, (double)v))
			return bad_opt(d, val);
		o->sizes[o->nsizes++] = (uint32_t)v;
		p += n;
		if (*p == ',' && *++p == '\0')
			return bad_opt(d, val);
	}
	return o->nsizes > 0 ? 0 : bad_opt(d, val);
}

#define SEC(s) .section = s
static const struct gen_opt gen_opts[] = {
	{ SEC("collectives (dependency-driven; message size sweep like nccl-tests):"),
	  .name = "engine", .arg = "E", .parse = p_engine,
	  .help = "ring|hd|incast|alltoall|rate (default ring)" },
	{ .name = "ranks", .arg = "N", .parse = p_uint, OFF(nranks), .min = 2,
	  .max = IBEX_GEN_MAX_RANKS,
	  .help = "emulated ranks, 2.." STR(IBEX_GEN_MAX_RANKS)
		  " (default 8), spread over the ports;\n"
		  "alltoall up to 1024 (2^20 rank pairs), ring up to 4096,\n"
		  "rate without --flow up to " STR(IBEX_GEN_MAX_RFLOWS) },
	{ .name = "root", .arg = "R", .parse = p_uint, OFF(root),
	  .max = IBEX_GEN_MAX_RANKS - 1,
	  .help = "incast destination rank (default 0)" },
	{ .name = "minbytes", .short_name = 'b', .arg = "S", .parse = p_size,
	  OFF(min_bytes), .min = 1, .max = 1099511627776.0,
	  .help = "smallest message (default 1K; a size: K/M/G = 2^10/2^20/2^30)" },
	{ .name = "maxbytes", .short_name = 'e', .arg = "S", .parse = p_size,
	  OFF(max_bytes), .min = 1, .max = 1099511627776.0,
	  .help = "largest message (default 1M)" },
	{ .name = "stepfactor", .short_name = 'f', .arg = "F", .parse = p_uint,
	  OFF(factor), .min = 2, .max = 1024,
	  .help = "multiply the size by F each step (default 2)" },
	{ .name = "iters", .short_name = 'n', .arg = "N", .parse = p_uint,
	  OFF(iters), .min = 1, .max = IBEX_GEN_MAX_ITERS,
	  .help = "measured iterations per size (default 20)" },
	{ .name = "warmup", .short_name = 'w', .arg = "N", .parse = p_uint,
	  OFF(warmup), .max = 1000000,
	  .help = "warm-up iterations per size (default 5)" },
	{ .name = "straggler", .arg = "R:D:P", .parse = p_straggler,
	  .allowed = "R:D:P: rank R below " STR(IBEX_GEN_MAX_RANKS)
		     ", delay D 0..10000000 us, probability P 0..1 or once",
	  .help = "rank R starts each step D microseconds late with\n"
		  "probability P (0..1); P once: its first step of each\n"
		  "iteration only (it joins the collective D us late)" },
	{ .name = "seed", .arg = "N", .parse = p_uint, OFF(seed),
	  .max = 18446744073709551615.0,
	  .help = "seed of every random draw (default 1)" },
	{ .name = "timeout-ms", .arg = "MS", .parse = p_time, OFF(timeout_ms),
	  .unit = "ms", .min = 1, .max = 3600000,
	  .help = "an iteration slower than this fails (default 2000)" },
	{ .name = "fail-stop", .arg = "N", .parse = p_uint, OFF(fail_stop),
	  .max = 1000000,
	  .help = "stop the sweep, saying why, after N failed iterations\n"
		  "in a row that received no frame, or once every\n"
		  "iteration of a size failed (default 3; 0: never)" },
	{ SEC("open loop (--engine rate: rank r sends to rank r+1, or the --flow list):"),
	  .name = "flow", .arg = "S:D[:PPS][@C],..", .parse = p_flows,
	  .allowed = FLOW_ALLOWED,
	  .help = "flows from rank S to rank D, each at PPS or an equal\n"
		  "share of --rate, in class C (PCP, PFC priority and\n"
		  "credit VL C; needs --vlan) or the run's (repeatable)" },
	{ .name = "class-by", .arg = "pcp|dscp", .parse = p_class_by,
	  OFF(class_by), .allowed = "pcp|dscp",
	  .help = "what carries a --flow class C: the PCP (0..7, needs\n"
		  "--vlan; default) or the DSCP (0..14, tagged or not: a\n"
		  "lane each where the switch classifies by DSCP)" },
	{ .name = "rate", .arg = "PPS", .parse = p_pps, OFF(rate_pps),
	  .max = 1e10,
	  .help = "total frames per second, e.g. 1M = 10^6 (default: as fast\n"
		  "as possible)" },
	{ .name = "burst", .arg = "N", .parse = p_uint, OFF(burst), .min = 1,
	  .max = 4096, .help = "frames per departure (default 1)" },
	{ .name = "poisson", .parse = p_flag, OFF(poisson),
	  .help = "exponential gaps instead of constant ones" },
	{ .name = "duration", .arg = "SEC", .parse = p_time, OFF(duration_s),
	  .unit = "seconds", .min = 0.001, .max = 1e6,
	  .help = "how long (default 1)" },
	{ .name = "frames", .arg = "N", .parse = p_uint, OFF(max_frames),
	  .min = 1, .max = 18446744073709551615.0,
	  .help = "stop once N frames were sent, all flows together, or at\n"
		  "--duration, whichever comes first (a busy host: the work\n"
		  "done, not the time)" },
	{ .name = "size", .arg = "BYTES", .parse = p_size, OFF(frame_size),
	  .min = 60, .max = 16384,
	  .help = "frame length without FCS, >= 60 (default 128)" },
	{ .name = "tx-drop", .parse = p_flag, OFF(tx_drop),
	  .help = "drop frames the port does not take, counted as lost\n"
		  "(a wire into a full queue; implied by --search)" },
	{ SEC("benchmark searches (--engine rate):"),
	  .name = "search", .arg = "rate|burst", .parse = p_search,
	  .allowed = "rate|burst",
	  .help = "rate: RFC 2544 throughput, NDR and PDR per frame size;\n"
		  "burst: RFC 8239 microburst, largest burst per flow\n"
		  "without loss" },
	{ .name = "sizes", .arg = "L", .parse = p_sizes, .min = 64,
	  .max = 16388, .allowed = "a comma list of up to "
	  STR(IBEX_GEN_MAX_SEARCH_SIZES) " sizes, each 64..16388 bytes",
	  .help = "frame sizes with FCS, e.g. 64,128,256,512,1024,1280,1518\n"
		  "(default --size + 4)" },
	{ .name = "trial", .arg = "SEC", .parse = p_time, OFF(trial_s),
	  .unit = "seconds", .min = 0.001, .max = 3600,
	  .help = "length of one trial (default 0.25)" },
	{ .name = "resolution", .arg = "F", .parse = p_share, OFF(resolution),
	  .min = 1e-6, .max = 0.5,
	  .help = "rate search: stop at F x the maximum (default 0.01 = 1%)" },
	{ .name = "pdr-loss", .arg = "F", .parse = p_share, OFF(pdr_loss),
	  .min = 1e-9, .max = 0.5,
	  .help = "PDR loss threshold, fraction (default 0.001 = 0.1%)" },
	{ .name = "max-rate", .arg = "PPS", .parse = p_pps, OFF(max_pps),
	  .min = 1, .max = 1e10,
	  .help = "rate search upper end (default: flat out, measured)" },
	{ .name = "burst-max", .arg = "N", .parse = p_uint, OFF(burst_max),
	  .min = 2, .max = 1 << 20,
	  .help = "burst search upper end (default 4096)" },
	{ .name = "retries", .arg = "N", .parse = p_uint, OFF(retries),
	  .max = 100, .help = "run a failed trial again up to N times (default 1)" },
	{ SEC("frames and flow control:"),
	  .name = "mtu", .arg = "BYTES", .parse = p_size, OFF(mtu), .min = 128,
	  .max = 16384, .help = "largest frame without FCS (default 1514)" },
	{ .name = "qps", .arg = "N", .parse = p_uint, OFF(qps), .min = 1,
	  .max = IBEX_GEN_MAX_QPS,
	  .help = "queue pairs per connection, 1.." STR(IBEX_GEN_MAX_QPS)
		  " (default 1): a flow's frames\n"
		  "take them in turn, each QP its own UDP source port (ECMP\n"
		  "entropy) and PSNs, as NCCL_IB_QPS_PER_CONNECTION" },
	{ .name = "vlan", .arg = "VID", .parse = p_uint, OFF(frame.vlan),
	  .max = 4095, .help = "802.1Q tag (default untagged)" },
	{ .name = "pcp", .arg = "P", .parse = p_uint, OFF(frame.pcp), .max = 7,
	  .help = "its priority (default 0)" },
	{ .name = "dscp", .arg = "D", .parse = p_uint, OFF(frame.dscp),
	  .max = 63, .help = "DSCP (default 0)" },
	{ .name = "ecn", .arg = "E", .parse = p_ecn, OFF(frame.ecn),
	  .allowed = "not-ect|ect0|ect1",
	  .help = "not-ect|ect0|ect1 (default ect0)" },
	{ .name = "fc", .arg = "MODE", .parse = p_fc, OFF(fc),
	  .allowed = "none|pfc|credit|cbfc",
	  .help = "none|pfc|credit|cbfc: obey the port's flow control\n"
		  "(default none); cbfc: UEC credit-based flow control on\n"
		  "every VL, as a NIC (docs/cbfc.md)" },
	{ .name = "cbfc-limit", .arg = "CREDITS", .parse = p_uint,
	  OFF(cbfc_limit), .min = 1, .max = IBEX_CBFC_MASK,
	  .help = "cbfc: credits a rank's port may have in use per VL\n"
		  "(S_CL: the switch lane's buffer; default "
		  STR(IBEX_GEN_CBFC_LIMIT_DEF) " = 128 KiB\n"
		  "of 128-byte credits)" },
	{ .name = "cbfc-credit-size", .arg = "BYTES", .parse = p_size,
	  OFF(cbfc_credit_size), .min = IBEX_CBFC_CREDIT_SIZE_MIN,
	  .max = IBEX_CBFC_CREDIT_SIZE_MAX,
	  .help = "cbfc: bytes of buffer a credit stands for\n"
		  "(default " STR(IBEX_CBFC_CREDIT_SIZE_DEF) ")" },
	{ .name = "cbfc-overhead", .arg = "BYTES", .parse = p_int,
	  OFF(cbfc_overhead), .min = IBEX_CBFC_OVERHEAD_MIN,
	  .max = IBEX_CBFC_OVERHEAD_MAX, .allowed = "-16..127 bytes",
	  .help = "cbfc: bytes added to a frame's length before it is\n"
		  "counted in credits (default 0)" },
	{ .name = "cbfc-cc-timer-us", .arg = "US", .parse = p_uint,
	  OFF(cbfc_cc_timer_us), .max = IBEX_CBFC_CC_TIMER_US_MAX,
	  .help = "cbfc: CC_Update period, which recovers the credits of\n"
		  "frames lost on the link (default "
		  STR(IBEX_CBFC_CC_TIMER_US_DEF) "; 0: off)" },
	{ .name = "prio", .arg = "P", .parse = p_uint, OFF(prio), .max = 7,
	  .help = "PFC priority of the traffic (default 0)" },
	{ .name = "vl", .arg = "V", .parse = p_uint, OFF(vl), .max = 14,
	  .help = "credit VL of the traffic (default 0)" },
	{ .name = "link-mbps", .arg = "M", .parse = p_uint, OFF(link_mbps),
	  .min = 1, .max = 10000000,
	  .help = "port speed for PFC quanta and the DCQCN line rate\n"
		  "(default: what the port reports, else 100000)" },
	{ .name = "dcqcn", .parse = p_flag, OFF(dcqcn),
	  .help = "cut the rate on CE marks, DCQCN-style" },
	{ .name = "dcqcn-scale", .arg = "X", .parse = p_share, OFF(dcqcn_scale),
	  .min = 1, .max = 1e6,
	  .help = "multiply DCQCN's times (55 us timers, 50 us between\n"
		  "CNPs) by X, for a fabric emulated X times slower than\n"
		  "it is (100G links run at 100M: 1000; default 1)" },
	{ .name = "rto", .arg = "US", .parse = p_time, OFF(rto_us),
	  .unit = "us", .min = 1, .max = 1e8,
	  .help = "send a frame again when it has not arrived US\n"
		  "microseconds after it was sent, as a RoCE NIC's ACK\n"
		  "timeout (default off: a lost frame stays lost)" },
	{ .name = "agg-job", .arg = "ID", .parse = p_uint, OFF(agg_job),
	  .max = UINT32_MAX,
	  .help = "inc: the aggregation job id the switches run (default 1)" },
	{ .name = "agg-slots", .arg = "N", .parse = p_uint, OFF(agg_slots),
	  .min = 1, .max = IBEX_AGG_MAX_SLOTS,
	  .help = "inc: the job's slots at the switches, a rank's chunks\n"
		  "in flight (default 64)" },
	{ .name = "agg-elements", .arg = "N", .parse = p_uint,
	  OFF(agg_elements), .min = 1, .max = IBEX_AGG_MAX_ELEMS,
	  .help = "inc: elements a packet (default 256, at most the\n"
		  "switches' `elements`)" },
	{ .name = "agg-int", .parse = p_flag, OFF(agg_int32),
	  .help = "inc: sum int32 elements (default fp32)" },
	{ SEC("reports:"),
	  .name = "json", .arg = "FILE", .parse = p_str, OFF(json),
	  .help = "the whole report as JSON (docs/results.md)" },
	{ .name = "csv", .arg = "FILE", .parse = p_str, OFF(csv),
	  .help = "one line per size, search trial or frame size" },
	{ .name = "plot", .arg = "DIR", .parse = p_str, OFF(plot_dir),
	  .help = "plot data, gnuplot script, PNG and SVG" },
	{ .name = "quiet", .parse = p_flag, OFF(quiet),
	  .help = "only the tables" },
	{ .name = "progress", .parse = p_flag, OFF(progress),
	  .help = "a line on stderr as each size, search trial and\n"
		  "frame size finishes (default: when stdout is a\n"
		  "terminal)" },
	{ .name = "help", .short_name = 'h',
	  .help = "this usage (needs no EAL args and no hugepages)" },
	{ .name = "version", .help = "ibex and DPDK versions (ibex-gen)" },
};

#define GEN_NOPTS (sizeof(gen_opts) / sizeof(gen_opts[0]))
/* Column of the help text in the usage. */
#define HELP_COL 22

static void
usage_opt(FILE *f, const struct gen_opt *d)
{
	const char *h = d->help, *nl;
	int n;

	n = d->short_name != 0 ?
	    fprintf(f, "  -%c, --%s", d->short_name, d->name) :
	    fprintf(f, "  --%s", d->name);
	if (d->arg != NULL)
		n += fprintf(f, " %s", d->arg);
	for (;;) {
		nl = strchr(h, '\n');
		fprintf(f, "%*s%.*s\n", n < HELP_COL ? HELP_COL - n : 1, "",
			nl != NULL ? (int)(nl - h) : (int)strlen(h), h);
		if (nl == NULL)
			break;
		h = nl + 1;
		n = 0;
	}
}

void
ibex_gen_usage(FILE *f, const char *prog)
{
	size_t i;

	fprintf(f, "usage: %s [EAL args] -- [options]\n", prog);
	for (i = 0; i < GEN_NOPTS; i++) {
		if (gen_opts[i].section != NULL)
			fprintf(f, "%s\n", gen_opts[i].section);
		usage_opt(f, &gen_opts[i]);
	}
	fprintf(f, "Sizes and rates: docs/configuration.md (4K = 4KB = 4KiB = "
		"4096 bytes; 1M\nframes/s = 10^6). --help and --version need no "
		"EAL args and no hugepages.\nExit status: 0 clean, 1 a failure "
		"(EAL, the ports), 2 a usage error (bad\noption or value), 3 "
		"frames lost or duplicated or an iteration failed.\n");
}

/* @p s as man page markdown text (go-md2man): its markup characters
 * escaped, a '\n' of the usage's layout a space. */
static void
md_text(FILE *f, const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s == '\n')
			fputc(' ', f);
		else if (strchr("\\`*_[]<>#", *s) != NULL)
			fprintf(f, "\\%c", *s);
		else
			fputc(*s, f);
	}
}

void
ibex_gen_usage_man(FILE *f)
{
	const struct gen_opt *d;
	char allowed[200];
	size_t i;

	for (i = 0; i < GEN_NOPTS; i++) {
		d = &gen_opts[i];
		if (d->section != NULL) {
			size_t n = strlen(d->section);

			/* "reports:" -> "## Reports" */
			fprintf(f, "## %c", d->section[0] - 'a' + 'A');
			fprintf(f, "%.*s", (int)(n - 2), d->section + 1);
			md_text(f, n > 1 && d->section[n - 1] == ':' ? "" :
				d->section + n - 1);
			fprintf(f, "\n\n");
		}
		if (d->short_name != 0)
			fprintf(f, "**-%c**, ", d->short_name);
		fprintf(f, "**--%s**", d->name);
		if (d->arg != NULL) {
			fprintf(f, " *");
			md_text(f, d->arg);
			fprintf(f, "*");
		}
		fprintf(f, "\n: ");
		md_text(f, d->help);
		if (d->parse != NULL && d->arg != NULL && d->parse != p_str &&
		    d->parse != p_flows) {
			allowed_text(d, allowed, sizeof(allowed));
			if (d->parse != p_engine || d->allowed != NULL) {
				fprintf(f, ". Allowed: ");
				md_text(f, allowed);
			}
		}
		fprintf(f, "\n\n");
	}
}

int
ibex_gen_flows_parse(struct ibex_gen_opts *o, const char *s)
{
	const char *p = s;

	while (*p != '\0') {
		struct ibex_gen_rflow fl = { .cls = -1 };
		unsigned int src, dst, k;
		int used = 0;

		if (sscanf(p, "%u:%u%n", &src, &dst, &used) != 2 ||
		    src >= IBEX_GEN_MAX_RANKS || dst >= IBEX_GEN_MAX_RANKS ||
		    src == dst)
			return bad("--flow", s, FLOW_ALLOWED);
		p += used;
		if (*p == ':') {
			char word[32];
			size_t n = strcspn(p + 1, ",@");

			if (n == 0 || n >= sizeof(word))
				return bad("--flow", s, FLOW_ALLOWED);
			memcpy(word, p + 1, n);
			word[n] = '\0';
			if (ibex_parse_pps(word, &fl.pps) != 0 ||
			    !(fl.pps > 0 && fl.pps <= 1e10))
				return bad("--flow", s, FLOW_ALLOWED);
			p += 1 + n;
		}
		if (*p == '@') {
			unsigned int c;

			if (sscanf(p + 1, "%u%n", &c, &used) != 1 || c > 14 ||
			    p[1] < '0' || p[1] > '9')
				return bad("--flow", s, "a class @C is 0..7, or "
					   "0..14 with --class-by dscp");
			fl.cls = (int8_t)c;
			p += 1 + used;
		}
		if (*p == ',')
			p++;
		else if (*p != '\0')
			return bad("--flow", s, FLOW_ALLOWED);
		fl.src = (uint16_t)src;
		fl.dst = (uint16_t)dst;
		/* one sequence space per rank pair: a pair only once */
		for (k = 0; k < o->nrflows; k++)
			if (o->rflow[k].src == fl.src && o->rflow[k].dst == fl.dst)
				return bad("--flow", s, "a rank pair twice: one flow "
					   "per pair");
		if (o->nrflows == IBEX_GEN_MAX_RFLOWS)
			return bad("--flow", s, "more than "
				   STR(IBEX_GEN_MAX_RFLOWS) " flows");
		o->rflow[o->nrflows++] = fl;
	}
	return o->nrflows > 0 ? 0 : bad("--flow", s, FLOW_ALLOWED);
}

/* getopt_long's table from gen_opts (val: the index + 256). */
static void
getopt_table(struct option *lo, char *shorts)
{
	size_t i, ns = 0;

	for (i = 0; i < GEN_NOPTS; i++) {
		const struct gen_opt *d = &gen_opts[i];

		lo[i] = (struct option){ .name = d->name,
			.has_arg = d->arg != NULL ? required_argument :
				   no_argument,
			.val = (int)i + 256 };
		if (d->short_name != 0) {
			shorts[ns++] = d->short_name;
			if (d->arg != NULL)
				shorts[ns++] = ':';
		}
	}
	lo[GEN_NOPTS] = (struct option){ 0 };
	shorts[ns] = '\0';
}

static const struct gen_opt *
short_opt(int c)
{
	size_t i;

	for (i = 0; i < GEN_NOPTS; i++)
		if (gen_opts[i].short_name == c)
			return &gen_opts[i];
	return NULL;
}

int
ibex_gen_opts_parse(struct ibex_gen_opts *o, int argc, char **argv)
{
	struct option lo[GEN_NOPTS + 1];
	char shorts[2 * GEN_NOPTS + 1];
	const struct gen_opt *d;
	int c, ret;

	getopt_table(lo, shorts);
	optind = 1;
	opterr = 1;
	while ((c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
		d = c >= 256 && c < 256 + (int)GEN_NOPTS ? &gen_opts[c - 256] :
		    short_opt(c);
		if (d == NULL)
			return -EINVAL;
		if (d->parse == NULL && d->short_name != 'h') {
			fprintf(stderr, "ibex-gen: --%s is answered by ibex-gen "
				"itself, before EAL\n", d->name);
			return -EINVAL;
		}
		if (d->short_name == 'h') {
			ibex_gen_usage(stdout, "ibex-gen");
			return 1;
		}
		ret = d->parse(o, d, optarg);
		if (ret < 0)
			return ret;
	}
	if (optind < argc) {
		fprintf(stderr, "ibex-gen: unexpected argument '%s'\n",
			argv[optind]);
		return -EINVAL;
	}
	return 0;
}

int
ibex_gen_cbfc_conf(const struct ibex_gen_opts *o, struct ibex_cbfc_conf *c,
		   char *err, size_t len)
{
	unsigned int v;

	ibex_cbfc_conf_default(c, IBEX_GEN_CBFC_VCS);
	c->credit_size = o->cbfc_credit_size;
	c->overhead = o->cbfc_overhead;
	c->cc_timer_us = o->cbfc_cc_timer_us;
	/* CF_Updates are shim frames: refresh a still count a few times,
	 * not every maximum spacing on every VC forever. */
	c->cf_refreshes = IBEX_CBFC_CF_REFRESHES_SHIM;
	c->tx_lossless = (UINT32_C(1) << IBEX_GEN_CBFC_VCS) - 1;
	c->rx_lossless = c->tx_lossless;
	for (v = 0; v < IBEX_GEN_CBFC_VCS; v++)
		c->vc_limit[v] = o->cbfc_limit;
	/* A rank frees a frame's credits as it arrives, so its buffer never
	 * holds any: what a CC_Update may free is bounded only by the
	 * counters' half range. */
	c->rx_total = IBEX_CBFC_MASK / 2;
	return ibex_cbfc_conf_check(c, err, len);
}

/* The largest frame the run sends: --mtu for a collective, the frame
 * sizes of the open loop. */
static uint32_t
largest_frame(const struct ibex_gen_opts *o)
{
	uint32_t len = o->frame_size;
	unsigned int i;

	if (!ibex_gen_open_loop(o->engine))
		return o->mtu;
	for (i = 0; i < o->nsizes; i++)
		if (o->sizes[i] - 4 > len)
			len = o->sizes[i] - 4;
	return len;
}

/* --fc cbfc: a configuration CBFC takes, on a VL it has, whose largest
 * frame fits in the limit (a frame that costs more could never go). */
static int
cbfc_check(const struct ibex_gen_opts *o, char *err, size_t len)
{
	struct ibex_cbfc_conf c;
	struct ibex_cbfc_port p;
	char why[200];
	uint32_t frame = largest_frame(o), credits;

	if (ibex_gen_cbfc_conf(o, &c, why, sizeof(why)) < 0) {
		snprintf(err, len, "--fc cbfc: %s", why);
		return -EINVAL;
	}
	if (o->vl >= IBEX_GEN_CBFC_VCS) {
		snprintf(err, len, "--fc cbfc: --vl %u, the ports have VLs "
			 "0..%u", o->vl, IBEX_GEN_CBFC_VCS - 1);
		return -EINVAL;
	}
	/* the ranks' own rule for a frame's credits */
	if (ibex_cbfc_port_init(&p, &c, 0) < 0)
		return -EINVAL;
	credits = ibex_cbfc_credits(&p, frame);
	if (credits > o->cbfc_limit) {
		snprintf(err, len, "--cbfc-limit %u: a frame of %u bytes costs "
			 "%u credits of %u bytes, more than the limit (it could "
			 "never be sent)", o->cbfc_limit, frame, credits,
			 o->cbfc_credit_size);
		return -EINVAL;
	}
	return 0;
}

int
ibex_gen_opts_check(const struct ibex_gen_opts *o, char *err, size_t len)
{
	unsigned int i;

	if (o->min_bytes > o->max_bytes) {
		snprintf(err, len, "-b %" PRIu64 " is above -e %" PRIu64,
			 o->min_bytes, o->max_bytes);
		return -EINVAL;
	}
	if (ibex_gen_open_loop(o->engine) && o->nrflows == 0 &&
	    o->nranks > IBEX_GEN_MAX_RFLOWS) {
		snprintf(err, len, "--engine rate over %u ranks: without --flow "
			 "each rank sends to the next, at most %u flows; give "
			 "--flow", o->nranks, IBEX_GEN_MAX_RFLOWS);
		return -EINVAL;
	}
	if (o->engine->coll == &ibex_coll_alltoall &&
	    (uint64_t)o->nranks * (o->nranks - 1) > IBEX_GEN_MAX_PAIRS) {
		snprintf(err, len, "--engine alltoall over %u ranks: %" PRIu64
			 " rank pairs, at most %u (1,024 ranks)", o->nranks,
			 (uint64_t)o->nranks * (o->nranks - 1),
			 IBEX_GEN_MAX_PAIRS);
		return -EINVAL;
	}
	if (o->engine->coll != NULL &&
	    (uint64_t)o->nranks * o->engine->coll->nsteps(o->nranks) >
	    IBEX_COLL_MAX_CELLS) {
		snprintf(err, len, "--engine %s over %u ranks: %u steps of "
			 "%u ranks, more than the %u input counters a collective "
			 "holds (ring: up to 4,096 ranks)", o->engine->name,
			 o->nranks, o->engine->coll->nsteps(o->nranks),
			 o->nranks, IBEX_COLL_MAX_CELLS);
		return -EINVAL;
	}
	if (o->engine->inc) {
		uint32_t frame = IBEX_ETHER_HDR_LEN +
				 (o->frame.vlan >= 0 ? IBEX_VLAN_HDR_LEN : 0) +
				 20 + 8 + ibex_agg_pkt_len(o->agg_elements);

		if (frame > o->mtu) {
			snprintf(err, len, "--agg-elements %u: a packet takes "
				 "%u bytes, more than --mtu %u", o->agg_elements,
				 frame, o->mtu);
			return -EINVAL;
		}
		if (o->nranks > IBEX_INC_MAX_RANKS) {
			snprintf(err, len, "--engine inc: at most %u ranks",
				 IBEX_INC_MAX_RANKS);
			return -EINVAL;
		}
	}
	if (o->root >= o->nranks) {
		snprintf(err, len, "--root %u: only %u ranks", o->root, o->nranks);
		return -EINVAL;
	}
	if (o->straggler.rank >= (int)o->nranks) {
		snprintf(err, len, "--straggler: rank %d of %u ranks",
			 o->straggler.rank, o->nranks);
		return -EINVAL;
	}
	for (i = 0; i < o->nrflows; i++)
		if (o->rflow[i].src >= o->nranks || o->rflow[i].dst >= o->nranks) {
			snprintf(err, len, "--flow %u:%u: only %u ranks",
				 o->rflow[i].src, o->rflow[i].dst, o->nranks);
			return -EINVAL;
		}
	for (i = 0; i < o->nrflows; i++) {
		const struct ibex_gen_rflow *fl = &o->rflow[i];
		const char *why = NULL;

		if (fl->cls < 0)
			continue;
		if (o->class_by == IBEX_GEN_CLASS_PCP && fl->cls > 7)
			why = "a class above 7 needs --class-by dscp (a PCP is "
			      "0..7)";
		else if (o->class_by == IBEX_GEN_CLASS_PCP && o->frame.vlan < 0)
			why = "a class needs --vlan (it is the frames' PCP), or "
			      "--class-by dscp";
		else if (o->fc == IBEX_GEN_FC_PFC && fl->cls > 7)
			why = "--fc pfc has priorities 0..7";
		if (why != NULL) {
			snprintf(err, len, "--flow %u:%u@%d: %s", fl->src,
				 fl->dst, fl->cls, why);
			return -EINVAL;
		}
	}
	if ((o->nrflows > 0 || o->search != IBEX_GEN_SEARCH_NONE ||
	     o->tx_drop) && !ibex_gen_open_loop(o->engine)) {
		snprintf(err, len, "--flow, --tx-drop and --search are for "
			 "--engine rate");
		return -EINVAL;
	}
	if (o->rto_us > 0 && o->search != IBEX_GEN_SEARCH_NONE) {
		snprintf(err, len, "--rto and --search: a search measures "
			 "loss, which retransmissions would hide");
		return -EINVAL;
	}
	for (i = 0; i < o->nsizes; i++)
		if (o->sizes[i] - 4 > o->mtu) {
			snprintf(err, len, "--sizes: %u (with FCS) is above --mtu "
				 "%u + 4", o->sizes[i], o->mtu);
			return -EINVAL;
		}
	if (o->frame_size > o->mtu) {
		snprintf(err, len, "--size %u is above --mtu %u", o->frame_size,
			 o->mtu);
		return -EINVAL;
	}
	if (o->fc == IBEX_GEN_FC_CBFC)
		return cbfc_check(o, err, len);
	return 0;
}
