/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ibex-topo: write a topology file ibex-fabric loads (leaf-spine, the
 * k-ary fat tree, rail-optimized groups) at sizes no one writes by hand.
 * The shapes are lib/fabric's ibex_topo.c; this is the command line.
 * No DPDK runtime. docs/fabric.md, "Generated topologies".
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ibex_fabric.h"
#include "ibex_fabric_agg.h"
#include "ibex_fabric_part.h"
#include "ibex_topo.h"
#include "ibex_units.h"
#include "ibex_version.h"

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: ibex-topo leaf-spine --leaves L --spines S "
		"--ranks-per-leaf R [options]\n"
		"       ibex-topo fattree K [options]\n"
		"       ibex-topo rail --rails N --groups G "
		"--servers-per-group S --spines P [options]\n"
		"       ibex-topo partition FILE -n N [--switch-latency T]\n"
		"       ibex-topo agg FILE --job NAME:ID:RANKS[:SLOTS]... "
		"[--slots N]\n"
		"Writes a topology file for ibex-fabric (docs/fabric.md, "
		"\"Generated topologies\").\n"
		"  -o, --output FILE   file to write (default: standard "
		"output)\n"
		"      --name NAME     the fabric's name (default from the "
		"shape and sizes)\n"
		"      --leaves L      leaf-spine: leaves\n"
		"      --spines S      leaf-spine, rail: spines\n"
		"      --ranks-per-leaf R  leaf-spine: ranks on each leaf\n"
		"      --uplinks-per-spine U  links from each leaf or rail "
		"switch to each\n"
		"                      spine (default 1)\n"
		"      --rails N       rail: GPUs (ranks) per server, rail "
		"switches per group\n"
		"      --groups G      rail: groups (scalable units)\n"
		"      --servers-per-group S  rail: servers per group (ranks "
		"on each rail switch)\n"
		"      --pods P        fattree: build the first P of its K pods "
		"(P x K^2/4\n"
		"                      ranks; each core has P ports)\n"
		"      --rate RATE     ranks' links (default 100G)\n"
		"      --fabric-rate RATE  switch-switch links (default: "
		"--rate)\n"
		"      --delay TIME    ranks' links propagation delay (default "
		"500ns)\n"
		"      --fabric-delay TIME  switch-switch links (default: "
		"--delay)\n"
		"      --lanes KEY=VALUE  topology lanes: KEY vls, sl-from, "
		"pcp2sl, dscp2sl,\n"
		"                      sl2vl, vlarb or lossless (repeat for "
		"each)\n"
		"      --check         parse and route what was written (as "
		"ibex-fabric\n"
		"                      --check, without its one-process "
		"limits); counts\n"
		"                      and time on standard error\n"
		"  -h, --help          this text\n"
		"      --version       ibex version\n"
		"partition: how a run over N processes splits FILE, and its "
		"lookahead\n"
		"  (docs/simulation.md, \"Beyond one machine\")\n"
		"  -n, --processes N   partitions (processes of the run)\n"
		"      --switch-latency T  as ibex-fabric's (default 0)\n"
		"agg: the in-network aggregation trees of jobs on FILE "
		"(docs/aggregation.md,\n"
		"  \"Trees\"), or why a job runs as a ring\n"
		"      --job NAME:ID:RANKS[:SLOTS]  a job (repeat): its id, "
		"ranks as 0-7,16,\n"
		"                      slots at each switch (default 64)\n"
		"      --slots N       each switch's pool (default 256)\n"
		"Example: ibex-topo fattree 4 -o ft4.yaml && ibex-fabric "
		"--check ft4.yaml\n");
}

static void
print_version(void)
{
	printf("ibex-topo %s (git %s)\n", IBEX_VERSION, IBEX_GIT);
}

static int
bad(const char *opt, const char *val, const char *what)
{
	fprintf(stderr, "ibex-topo: %s: bad value '%s' (%s)\n", opt, val,
		what);
	return -EINVAL;
}

static int
count(const char *opt, const char *val, uint32_t *v)
{
	uint64_t x;

	if (ibex_parse_uint(val, &x) != 0 || x == 0 || x > 1000000)
		return bad(opt, val, "a count 1..1000000");
	*v = (uint32_t)x;
	return 0;
}

struct opts {
	struct ibex_topo t;
	const char *output;
	bool check;
};

enum {
	O_NAME = 256, O_LEAVES, O_SPINES, O_RPL, O_UPLINKS, O_RAILS,
	O_GROUPS, O_SERVERS, O_RATE, O_FRATE, O_DELAY, O_FDELAY, O_LANES,
	O_CHECK, O_VERSION, O_PODS,
};

/* Options that belong to one shape only. */
static const struct {
	int opt;
	const char *name;
	uint8_t shape;
} shape_only[] = {
	{ O_LEAVES, "--leaves", IBEX_TOPO_LEAF_SPINE },
	{ O_RPL, "--ranks-per-leaf", IBEX_TOPO_LEAF_SPINE },
	{ O_RAILS, "--rails", IBEX_TOPO_RAIL },
	{ O_GROUPS, "--groups", IBEX_TOPO_RAIL },
	{ O_SERVERS, "--servers-per-group", IBEX_TOPO_RAIL },
	{ O_PODS, "--pods", IBEX_TOPO_FATTREE },
};

static int
shape_option(const struct opts *o, int c)
{
	size_t i;

	for (i = 0; i < sizeof(shape_only) / sizeof(shape_only[0]); i++)
		if (shape_only[i].opt == c && shape_only[i].shape != o->t.shape) {
			fprintf(stderr, "ibex-topo: %s is not an option of "
				"this shape\n", shape_only[i].name);
			return -EINVAL;
		}
	if ((c == O_SPINES || c == O_UPLINKS) &&
	    o->t.shape == IBEX_TOPO_FATTREE) {
		fprintf(stderr, "ibex-topo: fattree K has no %s (its shape "
			"follows from K)\n", c == O_SPINES ? "--spines" :
			"--uplinks-per-spine");
		return -EINVAL;
	}
	return 0;
}

static int
parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "name", required_argument, NULL, O_NAME },
		{ "leaves", required_argument, NULL, O_LEAVES },
		{ "spines", required_argument, NULL, O_SPINES },
		{ "ranks-per-leaf", required_argument, NULL, O_RPL },
		{ "uplinks-per-spine", required_argument, NULL, O_UPLINKS },
		{ "rails", required_argument, NULL, O_RAILS },
		{ "groups", required_argument, NULL, O_GROUPS },
		{ "servers-per-group", required_argument, NULL, O_SERVERS },
		{ "rate", required_argument, NULL, O_RATE },
		{ "fabric-rate", required_argument, NULL, O_FRATE },
		{ "delay", required_argument, NULL, O_DELAY },
		{ "fabric-delay", required_argument, NULL, O_FDELAY },
		{ "lanes", required_argument, NULL, O_LANES },
		{ "pods", required_argument, NULL, O_PODS },
		{ "check", no_argument, NULL, O_CHECK },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, O_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	char err[512];
	int c, shape, ret;

	if (argc < 2) {
		usage(stderr);
		return -EINVAL;
	}
	shape = ibex_topo_shape_parse(argv[1]);
	if (shape < 0) {
		fprintf(stderr, "ibex-topo: unknown shape '%s' (leaf-spine, "
			"fattree or rail)\nTry 'ibex-topo --help'.\n", argv[1]);
		return -EINVAL;
	}
	ibex_topo_init(&o->t, (enum ibex_topo_shape)shape);
	argc--, argv++;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", lo, NULL)) != -1) {
		ret = shape_option(o, c);
		if (ret != 0)
			return ret;
		switch (c) {
		case 'o': o->output = optarg; break;
		case O_NAME:
			if (strlen(optarg) >= sizeof(o->t.name) ||
			    optarg[0] == '\0')
				return bad("--name", optarg, "1 to 63 "
					   "characters");
			snprintf(o->t.name, sizeof(o->t.name), "%s", optarg);
			break;
		case O_LEAVES: ret = count("--leaves", optarg, &o->t.leaves); break;
		case O_SPINES: ret = count("--spines", optarg, &o->t.spines); break;
		case O_RPL:
			ret = count("--ranks-per-leaf", optarg,
				    &o->t.ranks_per_leaf);
			break;
		case O_UPLINKS:
			ret = count("--uplinks-per-spine", optarg,
				    &o->t.uplinks);
			break;
		case O_RAILS: ret = count("--rails", optarg, &o->t.rails); break;
		case O_PODS: ret = count("--pods", optarg, &o->t.pods); break;
		case O_GROUPS: ret = count("--groups", optarg, &o->t.groups); break;
		case O_SERVERS:
			ret = count("--servers-per-group", optarg,
				    &o->t.servers);
			break;
		case O_RATE:
		case O_FRATE:
			if (ibex_parse_rate(optarg, c == O_RATE ?
					    &o->t.rate_bps :
					    &o->t.fabric_rate_bps) != 0 ||
			    (c == O_RATE ? o->t.rate_bps :
			     o->t.fabric_rate_bps) == 0)
				ret = bad(c == O_RATE ? "--rate" :
					  "--fabric-rate", optarg,
					  "a rate such as 400G, 100G, 25G");
			break;
		case O_DELAY:
			if (ibex_fabric_parse_delay(optarg, &o->t.delay_ps) != 0)
				ret = bad("--delay", optarg, "a time such as "
					  "500ns, 1.5us, 2ms, at most 1s");
			break;
		case O_FDELAY:
			if (ibex_fabric_parse_delay(optarg, &o->t.fabric_delay_ps) != 0)
				ret = bad("--fabric-delay", optarg, "a time "
					  "such as 500ns, 1.5us, 2ms, at most "
					  "1s");
			o->t.fabric_delay_set = 1;
			break;
		case O_LANES:
			ret = ibex_topo_lane_set(&o->t, optarg, err,
						 sizeof(err));
			if (ret != 0)
				fprintf(stderr, "ibex-topo: %s\n", err);
			break;
		case O_CHECK: o->check = true; break;
		case 'h': usage(stdout); exit(0);
		case O_VERSION:
			print_version();
			exit(0);
		default:
			fprintf(stderr, "Try 'ibex-topo --help'.\n");
			return -EINVAL;
		}
		if (ret != 0)
			return ret;
	}
	if (o->t.shape == IBEX_TOPO_FATTREE) {
		uint32_t k;

		if (optind + 1 != argc) {
			fprintf(stderr, "ibex-topo: fattree takes one K (an "
				"even number: k pods, k-port switches)\n");
			return -EINVAL;
		}
		ret = count("fattree K", argv[optind], &k);
		if (ret != 0)
			return ret;
		o->t.k = k;
	} else if (optind != argc) {
		fprintf(stderr, "ibex-topo: unexpected argument '%s'\n",
			argv[optind]);
		return -EINVAL;
	}
	ret = ibex_topo_lanes_check(&o->t, err, sizeof(err));
	if (ret != 0) {
		fprintf(stderr, "ibex-topo: %s\n", err);
		return ret;
	}
	return 0;
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* --check: the text as ibex-fabric reads and routes it. */
static int
check(const struct opts *o, const char *text, size_t len)
{
	const char *origin = o->output != NULL ? o->output : "(stdout)";
	struct ibex_fabric_routes r;
	struct ibex_fabric f;
	char err[1024];
	double t0 = now_s(), t1, t2;
	bool legal;

	if (ibex_fabric_parse(&f, text, len, origin, err, sizeof(err)) != 0) {
		fprintf(stderr, "ibex-topo: check: %s\n", err);
		return -EINVAL;
	}
	t1 = now_s();
	if (ibex_fabric_route(&f, &r, err, sizeof(err)) != 0) {
		fprintf(stderr, "ibex-topo: check: %s\n", err);
		ibex_fabric_free(&f);
		return -EINVAL;
	}
	t2 = now_s();
	legal = r.n_ranks <= 1024 ? ibex_fabric_routes_legal(&f, &r) : true;
	fprintf(stderr, "%s: fabric %s OK: %u switches, %u ranks, %u links; "
		"parsed in %.2f s, routed in %.2f s (%zu MB of routes)%s\n",
		origin, f.name, r.n_switches, r.n_ranks, f.n_links, t1 - t0,
		t2 - t1, ((size_t)r.n_switches * r.n_ranks *
			  sizeof(*r.route)) >> 20,
		r.n_ranks <= 1024 ? ", every route up then down" : "");
	ibex_fabric_routes_free(&r);
	ibex_fabric_free(&f);
	if (!legal) {
		fprintf(stderr, "ibex-topo: check: a route breaks the up/down "
			"rule\n");
		return -EINVAL;
	}
	return 0;
}

/* ibex-topo partition FILE -n N [--switch-latency T]: the plan. */
static int
partition_main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "processes", required_argument, NULL, 'n' },
		{ "switch-latency", required_argument, NULL, 'L' },
		{ NULL, 0, NULL, 0 },
	};
	struct ibex_fabric_partition p;
	struct ibex_fabric f;
	uint64_t lat_ps = 0;
	uint32_t n = 0;
	char err[1024];
	int c, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "n:", lo, NULL)) != -1) {
		if (c == 'n' && count("--processes", optarg, &n) != 0)
			return 2;
		if (c == 'L' && ibex_parse_time_ps(optarg, &lat_ps) != 0) {
			bad("--switch-latency", optarg, "a time such as 600ns");
			return 2;
		}
		if (c == '?')
			return 2;
	}
	if (optind != argc - 1 || n == 0) {
		fprintf(stderr, "usage: ibex-topo partition FILE -n N "
			"[--switch-latency T]\n");
		return 2;
	}
	ret = ibex_fabric_load(&f, argv[optind], err, sizeof(err));
	if (ret == 0)
		ret = ibex_fabric_rank(&f, err, sizeof(err));
	if (ret != 0) {
		fprintf(stderr, "ibex-topo: %s\n", err);
		ibex_fabric_free(&f);
		return ret == -EINVAL ? 2 : 1; /* a bad file, or none */
	}
	ret = ibex_fabric_partition(&f, n, lat_ps, &p, err, sizeof(err));
	if (ret != 0) {
		fprintf(stderr, "ibex-topo: %s\n", err);
		ibex_fabric_free(&f);
		return ret == -EINVAL ? 2 : 1;
	}
	ret = ibex_fabric_partition_print(&f, &p, stdout);
	ibex_fabric_partition_free(&p);
	ibex_fabric_free(&f);
	return ret == 0 ? 0 : 1;
}

/* The jobs of an agg command, and the plan. */
struct agg_cmd {
	struct ibex_fabric_agg_req req[IBEX_FABRIC_AGG_MAX_JOBS];
	uint32_t n_jobs, capacity;
};

static int
agg_args(int argc, char **argv, struct agg_cmd *a)
{
	static const struct option lo[] = {
		{ "job", required_argument, NULL, 'j' },
		{ "slots", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	char err[256];
	int c;

	optind = 1;
	a->capacity = 256;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		if (c == 's' && count("--slots", optarg, &a->capacity) != 0)
			return 2;
		if (c == 'j') {
			if (a->n_jobs == IBEX_FABRIC_AGG_MAX_JOBS) {
				fprintf(stderr, "ibex-topo: --job: at most %u "
					"jobs\n", IBEX_FABRIC_AGG_MAX_JOBS);
				return 2;
			}
			if (ibex_fabric_agg_req_parse(optarg,
					&a->req[a->n_jobs], err,
					sizeof(err)) != 0) {
				fprintf(stderr, "ibex-topo: --job: %s\n", err);
				return 2;
			}
			a->n_jobs++;
		}
		if (c == '?')
			return 2;
	}
	if (optind != argc - 1 || a->n_jobs == 0) {
		fprintf(stderr, "usage: ibex-topo agg FILE --job "
			"NAME:ID:RANKS[:SLOTS]... [--slots N]\n");
		return 2;
	}
	return 0;
}

/* ibex-topo agg FILE --job ...: the trees. */
static int
agg_main(int argc, char **argv)
{
	struct ibex_fabric_agg_plan plan;
	struct ibex_fabric f = { 0 };
	struct agg_cmd a = { 0 };
	char err[1024] = "out of memory";
	uint32_t i;
	int ret;

	ret = agg_args(argc, argv, &a);
	if (ret == 0) {
		ret = ibex_fabric_load(&f, argv[optind], err, sizeof(err));
		if (ret == 0)
			ret = ibex_fabric_rank(&f, err, sizeof(err));
		if (ret == 0)
			ret = ibex_fabric_agg_plan(&f, a.req, a.n_jobs,
						   a.capacity, &plan, err,
						   sizeof(err));
		if (ret != 0) {
			fprintf(stderr, "ibex-topo: %s\n", err);
			ret = ret == -EINVAL ? 2 : 1; /* bad input, or none */
		} else {
			ret = ibex_fabric_agg_plan_print(&f, a.req, &plan,
					a.capacity, stdout) == 0 ? 0 : 1;
			ibex_fabric_agg_plan_free(&plan);
		}
		ibex_fabric_free(&f);
	}
	for (i = 0; i < a.n_jobs; i++)
		free(a.req[i].ranks);
	return ret;
}

int
main(int argc, char **argv)
{
	struct opts o = { 0 };
	char err[512], *buf = NULL;
	size_t len = 0;
	FILE *m, *out;
	int ret;

	if (argc >= 2 && (strcmp(argv[1], "-h") == 0 ||
			  strcmp(argv[1], "--help") == 0)) {
		usage(stdout);
		return 0;
	}
	if (argc >= 2 && strcmp(argv[1], "--version") == 0) {
		print_version();
		return 0;
	}
	if (argc >= 2 && strcmp(argv[1], "partition") == 0)
		return partition_main(argc - 1, argv + 1);
	if (argc >= 2 && strcmp(argv[1], "agg") == 0)
		return agg_main(argc - 1, argv + 1);
	if (parse_args(argc, argv, &o) != 0)
		return 2;
	m = open_memstream(&buf, &len);
	if (m == NULL) {
		perror("ibex-topo");
		return 1;
	}
	ret = ibex_topo_write(&o.t, m, err, sizeof(err));
	if (fclose(m) != 0 && ret == 0)
		ret = -EIO, snprintf(err, sizeof(err), "out of memory");
	if (ret == -EINVAL) {
		fprintf(stderr, "ibex-topo: %s\n", err);
		free(buf);
		return 2; /* a size it cannot write: a bad value */
	} else if (ret != 0) {
		fprintf(stderr, "ibex-topo: %s\n", err);
		free(buf);
		return 1;
	}
	out = o.output != NULL ? fopen(o.output, "w") : stdout;
	if (out == NULL) {
		fprintf(stderr, "ibex-topo: %s: %s\n", o.output,
			strerror(errno));
		free(buf);
		return 1;
	}
	if (fwrite(buf, 1, len, out) != len || fflush(out) != 0 ||
	    (out != stdout && fclose(out) != 0)) {
		fprintf(stderr, "ibex-topo: %s: write error: %s\n",
			o.output != NULL ? o.output : "standard output",
			strerror(errno));
		free(buf);
		return 1;
	}
	ret = o.check ? check(&o, buf, len) : 0;
	free(buf);
	return ret == 0 ? 0 : 1;
}
