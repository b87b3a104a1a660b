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
#include <stdlib.h>
#include <string.h>

#include "ibex_gen_engine.h"
#include "ibex_gen_opts.h"
#include "ibex_time.h"

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
	o->frame.vlan = -1;
	o->frame.ecn = IBEX_ECN_ECT0;
	o->link_mbps = 100000;
	o->timeout_ms = 2000;
	o->trial_s = 0.25;
	o->resolution = 0.01;
	o->pdr_loss = 0.001;
	o->burst_max = 4096;
	o->retries = 1;
}

void
ibex_gen_usage(FILE *f, const char *prog)
{
	fprintf(f,
		"usage: %s [EAL args] -- [options]\n"
		"collectives (dependency-driven; message size sweep like nccl-tests):\n"
		"  --engine E          ring|hd|incast|alltoall|rate (default ring)\n"
		"  --ranks N           emulated ranks, 2..%d (default 8), spread over the ports\n"
		"  --root R            incast destination rank (default 0)\n"
		"  -b, --minbytes S    smallest message (default 1K; K/M/G = 2^10/2^20/2^30)\n"
		"  -e, --maxbytes S    largest message (default 1M)\n"
		"  -f, --stepfactor F  multiply the size by F each step (default 2)\n"
		"  -n, --iters N       measured iterations per size (default 20)\n"
		"  -w, --warmup N      warm-up iterations per size (default 5)\n"
		"  --straggler R:D:P   rank R starts each step D microseconds late with\n"
		"                      probability P (0..1)\n"
		"  --seed N            seed of every random draw (default 1)\n"
		"  --timeout-ms MS     an iteration slower than this fails (default 2000)\n"
		"open loop (--engine rate: rank r sends to rank r+1, or the --flow list):\n"
		"  --flow S:D[:PPS],.. flows from rank S to rank D, each at PPS or an equal\n"
		"                      share of --rate (repeatable)\n"
		"  --rate PPS          total frames per second (default: as fast as possible)\n"
		"  --burst N           frames per departure (default 1)\n"
		"  --poisson           exponential gaps instead of constant ones\n"
		"  --duration SEC      how long (default 1)\n"
		"  --size BYTES        frame length without FCS, >= 60 (default 128)\n"
		"  --tx-drop           drop frames the port does not take, counted as lost\n"
		"                      (a wire into a full queue; implied by --search)\n"
		"benchmark searches (--engine rate):\n"
		"  --search rate       RFC 2544 throughput: NDR and PDR per frame size\n"
		"  --search burst      RFC 8239 microburst: largest burst per flow without loss\n"
		"  --sizes L           frame sizes with FCS, e.g. 64,128,256,512,1024,1280,1518\n"
		"                      (default --size + 4)\n"
		"  --trial SEC         length of one trial (default 0.25)\n"
		"  --resolution F      rate search: stop at F x the maximum (default 0.01)\n"
		"  --pdr-loss F        PDR loss threshold, fraction (default 0.001)\n"
		"  --max-rate PPS      rate search upper end (default: flat out, measured)\n"
		"  --burst-max N       burst search upper end (default 4096)\n"
		"  --retries N         run a failed trial again up to N times (default 1)\n"
		"frames and flow control:\n"
		"  --mtu BYTES         largest frame without FCS (default 1514)\n"
		"  --vlan VID  --pcp P 802.1Q tag (default untagged)\n"
		"  --dscp D            DSCP (default 0)\n"
		"  --ecn E             not-ect|ect0|ect1 (default ect0)\n"
		"  --fc MODE           none|pfc|credit: obey the port's flow control (default none)\n"
		"  --prio P            PFC priority of the traffic (default 0)\n"
		"  --vl V              credit VL of the traffic (default 0)\n"
		"  --link-mbps M       port speed for PFC quanta and the DCQCN line rate\n"
		"                      (default: what the port reports, else 100000)\n"
		"  --dcqcn             cut the rate on CE marks, DCQCN-style\n"
		"reports:\n"
		"  --json FILE  --csv FILE  --plot DIR (gnuplot PNG and SVG)\n"
		"  --quiet             only the tables\n"
		"  --progress          a line on stderr as each size, search trial and\n"
		"                      frame size finishes (default: when stdout is a\n"
		"                      terminal)\n"
		"  -h, --help          this text\n"
		"  --version           ibex and DPDK versions\n"
		"--help and --version need no EAL args and no hugepages.\n",
		prog, IBEX_GEN_MAX_RANKS);
}

static int
bad(const char *opt, const char *val)
{
	fprintf(stderr, "ibex-gen: %s: bad value '%s'\n", opt, val);
	return -EINVAL;
}

/* A size with an optional K/M/G suffix (powers of two, like nccl-tests). */
static int
parse_size(const char *opt, const char *s, uint64_t min, uint64_t max,
	   uint64_t *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || end == s)
		return bad(opt, s);
	switch (*end) {
	case 'k': case 'K': v *= 1024; end++; break;
	case 'm': case 'M': v *= 1024 * 1024; end++; break;
	case 'g': case 'G': v *= 1024.0 * 1024 * 1024; end++; break;
	default: break;
	}
	if (*end == 'B' || *end == 'b')
		end++;
	/* Written so that NaN fails too: its conversion is undefined. */
	if (*end != '\0' || !(v >= (double)min && v <= (double)max))
		return bad(opt, s);
	*out = (uint64_t)v;
	return 0;
}

static int
parse_double(const char *opt, const char *s, double min, double max,
	     double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || end == s)
		return bad(opt, s);
	/* rates: 1.5M = 1.5e6 (decimal, as rates are quoted) */
	if (*end == 'k' || *end == 'K')
		v *= 1e3, end++;
	else if (*end == 'M')
		v *= 1e6, end++;
	else if (*end == 'G')
		v *= 1e9, end++;
	if (*end != '\0' || !(v >= min && v <= max))
		return bad(opt, s);
	*out = v;
	return 0;
}

/* A time option: ibex_parse_time's strict decimal, or a clear error. */
static int
parse_time(const char *opt, const char *s, const char *unit, double res,
	   double max, double *out)
{
	char err[160];

	if (ibex_parse_time(s, unit, res, max, out, err, sizeof(err)) < 0) {
		fprintf(stderr, "ibex-gen: %s: %s\n", opt, err);
		return -EINVAL;
	}
	return 0;
}

static int
parse_straggler(struct ibex_gen_opts *o, const char *s)
{
	int rank;
	double us, p;
	char tail;

	if (sscanf(s, "%d:%lf:%lf%c", &rank, &us, &p, &tail) != 3 ||
	    rank < 0 || rank >= IBEX_GEN_MAX_RANKS ||
	    !(us >= 0 && us <= 1e7) || !(p >= 0 && p <= 1))
		return bad("--straggler", s);
	o->straggler.rank = rank;
	o->straggler.prob = p;
	o->straggler_us = us;
	return 0;
}

enum {
	O_ENGINE = 256, O_RANKS, O_ROOT, O_STRAGGLER, O_SEED, O_TIMEOUT,
	O_RATE, O_BURST, O_POISSON, O_DURATION, O_SIZE, O_MTU, O_VLAN, O_PCP,
	O_DSCP, O_ECN, O_FC, O_PRIO, O_VL, O_LINK, O_DCQCN, O_JSON, O_CSV,
	O_PLOT, O_QUIET, O_PROGRESS, O_FLOW, O_TXDROP, O_SEARCH, O_SIZES, O_TRIAL, O_RES,
	O_PDR, O_MAXRATE, O_BURSTMAX, O_RETRIES,
};

int
ibex_gen_flows_parse(struct ibex_gen_opts *o, const char *s)
{
	const char *p = s;

	while (*p != '\0') {
		struct ibex_gen_rflow fl = { 0 };
		unsigned int src, dst, k;
		char *end;
		int used = 0;

		if (sscanf(p, "%u:%u%n", &src, &dst, &used) != 2 ||
		    src >= IBEX_GEN_MAX_RANKS || dst >= IBEX_GEN_MAX_RANKS ||
		    src == dst)
			return bad("--flow", s);
		p += used;
		if (*p == ':') {
			errno = 0;
			fl.pps = strtod(p + 1, &end);
			if (errno != 0 || end == p + 1 || !(fl.pps > 0))
				return bad("--flow", s);
			if (*end == 'k' || *end == 'K')
				fl.pps *= 1e3, end++;
			else if (*end == 'M')
				fl.pps *= 1e6, end++;
			else if (*end == 'G')
				fl.pps *= 1e9, end++;
			p = end;
		}
		if (*p == ',')
			p++;
		else if (*p != '\0')
			return bad("--flow", s);
		fl.src = (uint16_t)src;
		fl.dst = (uint16_t)dst;
		/* one sequence space per rank pair: a pair only once */
		for (k = 0; k < o->nrflows; k++)
			if (o->rflow[k].src == fl.src && o->rflow[k].dst == fl.dst)
				return bad("--flow (a rank pair twice)", s);
		if (o->nrflows == IBEX_GEN_MAX_RFLOWS)
			return bad("--flow (too many flows)", s);
		o->rflow[o->nrflows++] = fl;
	}
	return o->nrflows > 0 ? 0 : bad("--flow", s);
}

static int
parse_sizes(struct ibex_gen_opts *o, const char *s)
{
	const char *p = s;
	char *end;
	unsigned long v;

	o->nsizes = 0;
	while (*p != '\0') {
		errno = 0;
		v = strtoul(p, &end, 10);
		if (errno != 0 || end == p || v < 64 || v > 16388 ||
		    o->nsizes == IBEX_GEN_MAX_SEARCH_SIZES)
			return bad("--sizes", s);
		o->sizes[o->nsizes++] = (uint32_t)v;
		p = end;
		if (*p == ',')
			p++;
		else if (*p != '\0')
			return bad("--sizes", s);
	}
	return o->nsizes > 0 ? 0 : bad("--sizes", s);
}

int
ibex_gen_opts_parse(struct ibex_gen_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "engine", required_argument, NULL, O_ENGINE },
		{ "ranks", required_argument, NULL, O_RANKS },
		{ "root", required_argument, NULL, O_ROOT },
		{ "minbytes", required_argument, NULL, 'b' },
		{ "maxbytes", required_argument, NULL, 'e' },
		{ "stepfactor", required_argument, NULL, 'f' },
		{ "iters", required_argument, NULL, 'n' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "straggler", required_argument, NULL, O_STRAGGLER },
		{ "seed", required_argument, NULL, O_SEED },
		{ "timeout-ms", required_argument, NULL, O_TIMEOUT },
		{ "rate", required_argument, NULL, O_RATE },
		{ "burst", required_argument, NULL, O_BURST },
		{ "poisson", no_argument, NULL, O_POISSON },
		{ "duration", required_argument, NULL, O_DURATION },
		{ "size", required_argument, NULL, O_SIZE },
		{ "mtu", required_argument, NULL, O_MTU },
		{ "vlan", required_argument, NULL, O_VLAN },
		{ "pcp", required_argument, NULL, O_PCP },
		{ "dscp", required_argument, NULL, O_DSCP },
		{ "ecn", required_argument, NULL, O_ECN },
		{ "fc", required_argument, NULL, O_FC },
		{ "prio", required_argument, NULL, O_PRIO },
		{ "vl", required_argument, NULL, O_VL },
		{ "link-mbps", required_argument, NULL, O_LINK },
		{ "dcqcn", no_argument, NULL, O_DCQCN },
		{ "json", required_argument, NULL, O_JSON },
		{ "csv", required_argument, NULL, O_CSV },
		{ "plot", required_argument, NULL, O_PLOT },
		{ "quiet", no_argument, NULL, O_QUIET },
		{ "progress", no_argument, NULL, O_PROGRESS },
		{ "flow", required_argument, NULL, O_FLOW },
		{ "tx-drop", no_argument, NULL, O_TXDROP },
		{ "search", required_argument, NULL, O_SEARCH },
		{ "sizes", required_argument, NULL, O_SIZES },
		{ "trial", required_argument, NULL, O_TRIAL },
		{ "resolution", required_argument, NULL, O_RES },
		{ "pdr-loss", required_argument, NULL, O_PDR },
		{ "max-rate", required_argument, NULL, O_MAXRATE },
		{ "burst-max", required_argument, NULL, O_BURSTMAX },
		{ "retries", required_argument, NULL, O_RETRIES },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	double dv;
	int opt, ret = 0;

	optind = 1;
	opterr = 1;
	while ((opt = getopt_long(argc, argv, "b:e:f:n:w:h", longopts,
				  NULL)) != -1) {
		switch (opt) {
		case O_ENGINE:
			o->engine = ibex_gen_engine_find(optarg);
			if (o->engine == NULL)
				return bad("--engine", optarg);
			break;
		case O_RANKS:
			ret = parse_size("--ranks", optarg, 2, IBEX_GEN_MAX_RANKS, &v);
			o->nranks = (uint16_t)v;
			break;
		case O_ROOT:
			ret = parse_size("--root", optarg, 0, IBEX_GEN_MAX_RANKS - 1, &v);
			o->root = (uint16_t)v;
			break;
		case 'b':
			ret = parse_size("-b", optarg, 1, UINT64_C(1) << 40, &o->min_bytes);
			break;
		case 'e':
			ret = parse_size("-e", optarg, 1, UINT64_C(1) << 40, &o->max_bytes);
			break;
		case 'f':
			ret = parse_size("-f", optarg, 2, 1024, &v);
			o->factor = (uint32_t)v;
			break;
		case 'n':
			ret = parse_size("--iters", optarg, 1, IBEX_GEN_MAX_ITERS, &v);
			o->iters = (uint32_t)v;
			break;
		case 'w':
			ret = parse_size("--warmup", optarg, 0, 1000000, &v);
			o->warmup = (uint32_t)v;
			break;
		case O_STRAGGLER: ret = parse_straggler(o, optarg); break;
		case O_SEED:
			ret = parse_size("--seed", optarg, 0, UINT64_MAX, &o->seed);
			break;
		case O_TIMEOUT:
			ret = parse_time("--timeout-ms", optarg, "ms", 1, 3600000,
					 &dv);
			if (ret == 0)
				o->timeout_ms = (uint32_t)dv;
			break;
		case O_RATE:
			ret = parse_double("--rate", optarg, 0, 1e10, &o->rate_pps);
			break;
		case O_BURST:
			ret = parse_size("--burst", optarg, 1, 4096, &v);
			o->burst = (uint32_t)v;
			break;
		case O_POISSON: o->poisson = true; break;
		case O_DURATION:
			ret = parse_time("--duration", optarg, "seconds", 0.001,
					 1e6, &o->duration_s);
			break;
		case O_SIZE:
			ret = parse_size("--size", optarg, 60, 16384, &v);
			o->frame_size = (uint32_t)v;
			break;
		case O_MTU:
			ret = parse_size("--mtu", optarg, 128, 16384, &v);
			o->mtu = (uint32_t)v;
			break;
		case O_VLAN:
			ret = parse_size("--vlan", optarg, 0, 4095, &v);
			o->frame.vlan = (int)v;
			break;
		case O_PCP:
			ret = parse_size("--pcp", optarg, 0, 7, &v);
			o->frame.pcp = (uint8_t)v;
			break;
		case O_DSCP:
			ret = parse_size("--dscp", optarg, 0, 63, &v);
			o->frame.dscp = (uint8_t)v;
			break;
		case O_ECN:
			if (strcmp(optarg, "not-ect") == 0)
				o->frame.ecn = IBEX_ECN_NOT_ECT;
			else if (strcmp(optarg, "ect0") == 0)
				o->frame.ecn = IBEX_ECN_ECT0;
			else if (strcmp(optarg, "ect1") == 0)
				o->frame.ecn = IBEX_ECN_ECT1;
			else
				return bad("--ecn", optarg);
			break;
		case O_FC:
			if (strcmp(optarg, "none") == 0)
				o->fc = IBEX_GEN_FC_NONE;
			else if (strcmp(optarg, "pfc") == 0)
				o->fc = IBEX_GEN_FC_PFC;
			else if (strcmp(optarg, "credit") == 0)
				o->fc = IBEX_GEN_FC_CREDIT;
			else
				return bad("--fc", optarg);
			break;
		case O_PRIO:
			ret = parse_size("--prio", optarg, 0, 7, &v);
			o->prio = (uint8_t)v;
			break;
		case O_VL:
			ret = parse_size("--vl", optarg, 0, 14, &v);
			o->vl = (uint8_t)v;
			break;
		case O_LINK:
			ret = parse_size("--link-mbps", optarg, 1, 10000000, &v);
			o->link_mbps = (uint32_t)v;
			break;
		case O_DCQCN: o->dcqcn = true; break;
		case O_JSON: o->json = optarg; break;
		case O_CSV: o->csv = optarg; break;
		case O_PLOT: o->plot_dir = optarg; break;
		case O_QUIET: o->quiet = true; break;
		case O_PROGRESS: o->progress = true; break;
		case O_FLOW: ret = ibex_gen_flows_parse(o, optarg); break;
		case O_TXDROP: o->tx_drop = true; break;
		case O_SEARCH:
			if (strcmp(optarg, "rate") == 0)
				o->search = IBEX_GEN_SEARCH_RATE;
			else if (strcmp(optarg, "burst") == 0)
				o->search = IBEX_GEN_SEARCH_BURST;
			else
				return bad("--search", optarg);
			o->tx_drop = true;
			break;
		case O_SIZES: ret = parse_sizes(o, optarg); break;
		case O_TRIAL:
			ret = parse_time("--trial", optarg, "seconds", 0.001,
					 3600, &o->trial_s);
			break;
		case O_RES:
			ret = parse_double("--resolution", optarg, 1e-6, 0.5,
					   &o->resolution);
			break;
		case O_PDR:
			ret = parse_double("--pdr-loss", optarg, 1e-9, 0.5,
					   &o->pdr_loss);
			break;
		case O_MAXRATE:
			ret = parse_double("--max-rate", optarg, 1, 1e10, &o->max_pps);
			break;
		case O_BURSTMAX:
			ret = parse_size("--burst-max", optarg, 2, 1 << 20, &v);
			o->burst_max = (uint32_t)v;
			break;
		case O_RETRIES:
			ret = parse_size("--retries", optarg, 0, 100, &v);
			o->retries = (uint32_t)v;
			break;
		case 'h':
			ibex_gen_usage(stdout, "ibex-gen");
			return 1;
		default:
			return -EINVAL;
		}
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
ibex_gen_opts_check(const struct ibex_gen_opts *o, char *err, size_t len)
{
	unsigned int i;

	if (o->min_bytes > o->max_bytes) {
		snprintf(err, len, "-b %" PRIu64 " is above -e %" PRIu64,
			 o->min_bytes, o->max_bytes);
		return -EINVAL;
	}
	if (o->engine->coll != NULL && o->engine->coll->pow2 &&
	    (o->nranks & (o->nranks - 1)) != 0) {
		snprintf(err, len, "--engine %s needs a power-of-two rank "
			 "count, not %u", o->engine->name, o->nranks);
		return -EINVAL;
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
	if ((o->nrflows > 0 || o->search != IBEX_GEN_SEARCH_NONE ||
	     o->tx_drop) && !ibex_gen_open_loop(o->engine)) {
		snprintf(err, len, "--flow, --tx-drop and --search are for "
			 "--engine rate");
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
	return 0;
}
