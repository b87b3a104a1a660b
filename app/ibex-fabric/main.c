/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ibex-fabric: a whole fabric of ibex switches in one process.
 *
 *   ibex-fabric [EAL args] -- TOPOLOGY [--gen 'SCENARIO'] [options]
 *
 * The topology (docs/fabric.md) names the switches, each with its own
 * ibex configuration, the links between their ports, and the ranks. Each
 * link becomes a net_ibexlink pair; each switch its own data path (FDB,
 * tables, counters, control socket) with the routes the fabric manager
 * computed. Worker lcore i runs worker i of every switch; the main lcore
 * is the one control thread of all of them; with --gen the generator's
 * ranks sit at the far ends of the ranks' links, on the last lcore.
 */

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_version.h>

#include "fabric.h"
#include "ibex_clock.h"
#include "ibex_conf.h"
#include "ibex_ctl.h"
#include "ibex_fabric_part.h"
#include "ibex_gen_builtin.h"
#include "ibex_gen_report.h"
#include "ibex_llr.h"
#include "ibex_memif_sock.h"
#include "ibex_meta.h"
#include "ibex_metrics.h"
#include "ibex_sock.h"
#include "ibex_time.h"
#include "ibex_version.h"
#include "ibexlink_model.h"

static struct ibex_gen_builtin *gen;

/* --clock virtual: the longest jump of the simulated clock without an
 * event, the period of the data path's and the generator's housekeeping
 * (IBEX_FC_HK_NS, the generator's HK_NS): their timers fall due on it. */
#define SIM_QUANTUM_US 1

struct app_opts {
	const char *topology;
	const char *json;
	const char *ctl_dir;     /* NULL: the runtime dir; "none": no sockets */
	const char *metrics;     /* --metrics [ADDR:]PORT, NULL: none */
	double duration_s;
	double idle_stop_s;
	double stats_period_s;
	double wait_links_s;
	bool check_only;
	bool summary;            /* --summary: every switch's own report */
	const char *fc;          /* --fc, NULL: the switches' own */
	uint32_t fc_vl;
	uint32_t pfc_reaction_us;
	const char *pfc_watchdog; /* --pfc-watchdog, NULL: the default */
	const char *cbfc;        /* --cbfc, NULL: the defaults */
	const char *llr;         /* --llr, NULL: none */
	const char *ecmp;        /* --ecmp, NULL: the flow hash */
	unsigned int routing;    /* --routes */
	const char *kind_map;    /* --kind-map, NULL: the file's */
	bool virtual_clock;      /* --clock virtual */
	uint64_t switch_latency_ps; /* --switch-latency */
	uint32_t model_parts;    /* --model-partitions, 0: none */
	uint32_t agg_capacity;   /* --agg-capacity */
	uint32_t agg_elements;   /* --agg-elements */
};

/* --agg: the jobs (their ranks allocated, freed at exit). */
static struct ibex_fabric_agg_req agg_req[IBEX_FABRIC_AGG_MAX_JOBS];
static uint32_t n_agg;

#define AGG_CAPACITY_DEF 4096

/* What --agg gives the fabric. */
static void
agg_opts(struct fabric *f, const struct app_opts *o)
{
	f->agg_req = agg_req;
	f->n_agg = n_agg;
	f->agg_capacity = o->agg_capacity != 0 ? o->agg_capacity :
			  AGG_CAPACITY_DEF;
	f->agg_elements = (uint16_t)(o->agg_elements != 0 ? o->agg_elements :
				     IBEX_CONF_AGG_ELEMENTS);
}

static void
agg_req_free(void)
{
	while (n_agg > 0)
		free(agg_req[--n_agg].ranks);
}

/* --model-partitions: the split the run is measured against. */
static struct ibex_fabric_partition model_part;

static void
usage(const char *prog)
{
	printf("usage: %s [EAL args] -- TOPOLOGY [options]\n"
	       "       %s --check TOPOLOGY | --help | --version   (no EAL)\n"
	       "Runs every switch of TOPOLOGY (docs/fabric.md) in this process,\n"
	       "joined by emulated links (net_ibexlink), with the routes the fabric\n"
	       "manager computes. Options (after '--'):\n"
	       "  --check              load, route and validate every switch's\n"
	       "                       configuration, then exit (no EAL)\n"
	       "  --gen 'SCENARIO'     the generator's ranks are the topology's ranks,\n"
	       "                       in its order (ibex-gen options in one word,\n"
	       "                       --ranks = the topology's); the run ends with it\n"
	       "  --fc none|pfc|credit|credit-pfc|cbfc the same flow control on\n"
	       "                       every switch port, over each switch's\n"
	       "                       configuration (credit-pfc: credits between\n"
	       "                       switches, PFC towards the ranks, whose\n"
	       "                       links' MACs obey it; cbfc: UEC CBFC\n"
	       "                       everywhere, the ranks speak it too)\n"
	       "  --lossless-vl V      with --fc: the lossless lane (3)\n"
	       "  --agg NAME:ID:RANKS[:SLOTS]  an in-network aggregation job\n"
	       "                       (repeatable): the fabric manager plans its\n"
	       "                       tree and gives each switch its part, or\n"
	       "                       says why it runs as a ring\n"
	       "                       (docs/aggregation.md)\n"
	       "  --agg-capacity N     slots of each switch's pool (4096)\n"
	       "  --agg-elements N     elements a packet (256)\n"
	       "  --pfc-reaction-us N  with --fc: every PFC port's reaction time, so\n"
	       "                       its headroom covers a worker that is away for\n"
	       "                       N us (the lcores are shared; docs/fabric.md)\n"
	       "  --cbfc 'KEYS'        with --fc cbfc: every port's `cbfc PORT KEYS`\n"
	       "                       (e.g. 'cc-timer-us 0', 'credit-size 256')\n"
	       "  --llr PRESET         UEC link-level retry on every link end:\n"
	       "                       off, 200g-5m, 200g-40m, 400g-5m, 400g-40m\n"
	       "                       or 800g-40m (net_ibexlink llr=; docs/llr.md);\n"
	       "                       not with --fc pfc or credit-pfc\n"
	       "  --pfc-watchdog 'SPEC' with --fc: every PFC port's watchdog, as\n"
	       "                       `pfc PORT watchdog SPEC` (e.g. 'alarm',\n"
	       "                       'drop detect-ms 2000')\n"
	       "  --ecmp 'MODE'        how every ECMP group chooses its member:\n"
	       "                       hash (the default), packet (adaptive, per\n"
	       "                       frame) or 'flowlet [GAP_US]' (adaptive, per\n"
	       "                       flowlet), as `ecmp NAME adaptive MODE`\n"
	       "  --routes updown|shortest  up/down routes (the default: no cycle\n"
	       "                       of buffer dependencies on any topology) or\n"
	       "                       shortest paths over every link (on a cycle of\n"
	       "                       switches lossless lanes can deadlock)\n"
	       "  --kind-map KIND=ROLE,...  what containerlab's kinds are: ibex (a\n"
	       "                       switch) or rank (a traffic endpoint), e.g.\n"
	       "                       linux=rank,nokia_srlinux=ibex; over the file's\n"
	       "                       ibex: {kind-map: ...}\n"
	       "  --clock real|virtual  real: the switches and the generator run\n"
	       "                       against the wall clock (the default);\n"
	       "                       virtual: on a simulated clock, one lcore,\n"
	       "                       deterministic (needs --gen; docs/simulation.md)\n"
	       "  --switch-latency T   a switch's processing time, added to every\n"
	       "                       wire it sends on: 600ns, 1us (default 0;\n"
	       "                       the real clock adds the host's own)\n"
	       "  --model-partitions N with --clock virtual: what a run split over\n"
	       "                       N processes would cost (windows, frames\n"
	       "                       crossing, each partition's share;\n"
	       "                       docs/simulation.md)\n"
	       "  --duration SEC       stop after SEC seconds\n"
	       "  --idle-stop SEC      stop once no switch received a frame for SEC s\n"
	       "  --stats-period SEC   a throughput line (all switches) every SEC s\n"
	       "  --wait-links SEC     wait up to SEC s for every link (default 5)\n"
	       "  --json FILE          the per-hop figures as JSON\n"
	       "  --summary            also each switch's own report (ports, drop\n"
	       "                       reasons, FDB), as ibex-switch prints it\n"
	       "  --ctl-dir DIR        each switch's control socket DIR/ibex-ctl-NAME.sock\n"
	       "                       (default: the DPDK runtime dir, so that\n"
	       "                       'ibex-ctl --switch NAME' finds it; 'none': none)\n"
	       "  --metrics [ADDR:]PORT  every switch's counters for Prometheus at\n"
	       "                       http://ADDR:PORT/metrics, labelled switch=NAME\n"
	       "                       (ADDR default 127.0.0.1; --clock real only;\n"
	       "                       docs/metrics.md)\n"
	       "  -h, --help, --version\n"
	       "Example (2 CPUs: control and generator share CPU 0, one worker):\n"
	       "  %s --lcores 0@0,1@1,2@0 --no-huge -m 2048 --no-pci -- \\\n"
	       "    conf/fabric/leaf2-spine1.yaml --gen '--engine ring --ranks 4'\n"
	       "Exit status: 0 clean, 1 a failure (topology, EAL, a link, --gen not\n"
	       "  clean), 2 a usage error (bad option or value).\n"
	       "man ibex-fabric(1); docs/fabric.md.\n", prog, prog, prog);
}

static void
print_version(void)
{
	printf("ibex-fabric %s (git %s)\n%s (built against DPDK %s)\n",
	       IBEX_VERSION, IBEX_GIT, rte_version(), IBEX_DPDK_BUILT);
}

static int
parse_seconds(const char *name, const char *s, double *out)
{
	return ibex_parse_seconds_opt("ibex-fabric", name, s, out);
}

/* An integer option in [lo, hi]; @p what says what it is when refused. */
static int
parse_uint(const char *name, const char *s, long lo, long hi,
	   const char *what, uint32_t *out)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (end == s || *end != '\0' || v < lo || v > hi) {
		fprintf(stderr, "ibex-fabric: --%s: %s%ld..%ld, not '%s'\n",
			name, what, lo, hi, s);
		return -EINVAL;
	}
	*out = (uint32_t)v;
	return 0;
}

/* LLR is the MAC's, and net_ibexlink's MAC that obeys PFC has none:
 * --llr with a --fc that puts PFC on a link is refused here, before the
 * links are made, rather than by the first link the driver refuses. */
static int
llr_fc_check(const struct app_opts *o)
{
	if (o->llr == NULL || strcmp(o->llr, "off") == 0 || o->fc == NULL ||
	    (strcmp(o->fc, "pfc") != 0 && strcmp(o->fc, "credit-pfc") != 0))
		return 0;
	fprintf(stderr, "ibex-fabric: --llr %s with --fc %s: not supported "
		"(net_ibexlink has no LLR on a MAC that obeys PFC); take --fc "
		"none, credit or cbfc, or --llr off\n", o->llr, o->fc);
	return -EINVAL;
}

static int
parse_args(int argc, char **argv, struct app_opts *o)
{
	static const struct option longopts[] = {
		{ "check", no_argument, NULL, 'k' },
		{ "agg", required_argument, NULL, 'A' },
		{ "agg-capacity", required_argument, NULL, 'c' },
		{ "agg-elements", required_argument, NULL, 'e' },
		{ "summary", no_argument, NULL, 'm' },
		{ "fc", required_argument, NULL, 'f' },
		{ "lossless-vl", required_argument, NULL, 'v' },
		{ "pfc-reaction-us", required_argument, NULL, 'r' },
		{ "pfc-watchdog", required_argument, NULL, 'W' },
		{ "cbfc", required_argument, NULL, 'B' },
		{ "llr", required_argument, NULL, 'l' },
		{ "ecmp", required_argument, NULL, 'E' },
		{ "routes", required_argument, NULL, 'R' },
		{ "kind-map", required_argument, NULL, 'K' },
		{ "clock", required_argument, NULL, 'C' },
		{ "switch-latency", required_argument, NULL, 'L' },
		{ "model-partitions", required_argument, NULL, 'Q' },
		{ "duration", required_argument, NULL, 'd' },
		{ "idle-stop", required_argument, NULL, 'i' },
		{ "stats-period", required_argument, NULL, 's' },
		{ "wait-links", required_argument, NULL, 'w' },
		{ "json", required_argument, NULL, 'j' },
		{ "ctl-dir", required_argument, NULL, 'S' },
		{ "metrics", required_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int opt, ret = 0;

	optind = 1;
	o->wait_links_s = 5;
	o->fc_vl = 3;
	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'k': o->check_only = true; break;
		case 'A': {
			char e[256];

			if (n_agg >= IBEX_FABRIC_AGG_MAX_JOBS) {
				fprintf(stderr, "ibex-fabric: --agg: at most "
					"%d jobs\n", IBEX_FABRIC_AGG_MAX_JOBS);
				return -EINVAL;
			}
			if (ibex_fabric_agg_req_parse(optarg, &agg_req[n_agg],
						      e, sizeof(e)) != 0) {
				fprintf(stderr, "ibex-fabric: --agg %s: %s\n",
					optarg, e);
				return -EINVAL;
			}
			n_agg++;
			break;
		}
		case 'c':
			ret = parse_uint("agg-capacity", optarg, 1,
					 IBEX_AGG_MAX_SLOTS, "", &o->agg_capacity);
			break;
		case 'e':
			ret = parse_uint("agg-elements", optarg, 1,
					 IBEX_AGG_MAX_ELEMS, "", &o->agg_elements);
			break;
		case 'm': o->summary = true; break;
		case 'f':
			if (strcmp(optarg, "none") != 0 &&
			    strcmp(optarg, "pfc") != 0 &&
			    strcmp(optarg, "credit") != 0 &&
			    strcmp(optarg, "credit-pfc") != 0 &&
			    strcmp(optarg, "cbfc") != 0) {
				fprintf(stderr, "ibex-fabric: --fc: none, pfc, "
					"credit, credit-pfc or cbfc, not '%s'\n",
					optarg);
				return -EINVAL;
			}
			o->fc = optarg;
			break;
		case 'r':
			ret = parse_uint("pfc-reaction-us", optarg, 1, 100000,
					 "", &o->pfc_reaction_us);
			break;
		case 'W':
			/* One configuration line holds it (fc_line). */
			if (strlen(optarg) > 64) {
				fprintf(stderr, "ibex-fabric: --pfc-watchdog: "
					"over 64 characters\n");
				return -EINVAL;
			}
			o->pfc_watchdog = optarg;
			break;
		case 'B':
			if (strlen(optarg) > 96) {
				fprintf(stderr, "ibex-fabric: --cbfc: over 96 "
					"characters\n");
				return -EINVAL;
			}
			o->cbfc = optarg;
			break;
		case 'l':
			if (strcmp(optarg, "off") != 0 &&
			    ibex_llr_preset(optarg) == NULL) {
				fprintf(stderr, "ibex-fabric: --llr: off, "
					"200g-5m, 200g-40m, 400g-5m, 400g-40m or "
					"800g-40m, not '%s'\n", optarg);
				return -EINVAL;
			}
			o->llr = optarg;
			break;
		case 'R':
			if (strcmp(optarg, "updown") == 0) {
				o->routing = IBEX_FABRIC_UPDOWN;
			} else if (strcmp(optarg, "shortest") == 0) {
				o->routing = IBEX_FABRIC_SHORTEST;
			} else {
				fprintf(stderr, "ibex-fabric: --routes: updown "
					"or shortest, not '%s'\n", optarg);
				return -EINVAL;
			}
			break;
		case 'K': {
			char msg[256];

			ret = ibex_fabric_kind_map_check(optarg, msg,
							 sizeof(msg));
			if (ret < 0)
				fprintf(stderr, "ibex-fabric: %s\n", msg);
			o->kind_map = optarg;
			break;
		}
		case 'E':
			if (strlen(optarg) > 64) {
				fprintf(stderr, "ibex-fabric: --ecmp: over 64 "
					"characters\n");
				return -EINVAL;
			}
			o->ecmp = optarg;
			break;
		case 'C':
			if (strcmp(optarg, "real") != 0 &&
			    strcmp(optarg, "virtual") != 0) {
				fprintf(stderr, "ibex-fabric: --clock: real or "
					"virtual, not '%s'\n", optarg);
				return -EINVAL;
			}
			o->virtual_clock = strcmp(optarg, "virtual") == 0;
			break;
		case 'L':
			if (ibexlink_parse_time(optarg, &o->switch_latency_ps) <
			    0) {
				fprintf(stderr, "ibex-fabric: --switch-latency: "
					"a time such as 600ns or 1us, up to 1s, "
					"not '%s'\n", optarg);
				return -EINVAL;
			}
			break;
		case 'Q':
			ret = parse_uint("model-partitions", optarg, 1,
					 IBEX_FABRIC_PART_MAX, "a count ",
					 &o->model_parts);
			break;
		case 'v':
			ret = parse_uint("lossless-vl", optarg, 0, 14,
					 "a data lane ", &o->fc_vl);
			break;
		case 'd': ret = parse_seconds("duration", optarg, &o->duration_s); break;
		case 'i': ret = parse_seconds("idle-stop", optarg, &o->idle_stop_s); break;
		case 's': ret = parse_seconds("stats-period", optarg, &o->stats_period_s); break;
		case 'w': ret = parse_seconds("wait-links", optarg, &o->wait_links_s); break;
		case 'j': o->json = optarg; break;
		case 'S': o->ctl_dir = optarg; break;
		case 'M': o->metrics = optarg; break;
		case 'h': usage("ibex-fabric"); exit(0);
		case 'V': print_version(); exit(0);
		default:
			fprintf(stderr, "Try 'ibex-fabric --help'.\n");
			return -EINVAL;
		}
		if (ret < 0)
			return ret;
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "ibex-fabric: give one TOPOLOGY file%s\n",
			optind < argc ? " (and options)" : "");
		return -EINVAL;
	}
	o->topology = argv[optind];
	return llr_fc_check(o);
}

/* Worker lcores the switches get: all but the generator's. */
static uint16_t
nb_switch_workers(void)
{
	unsigned int n = rte_lcore_count() - 1;

	return (uint16_t)(gen != NULL ? n - 1 : n);
}

/* --fc credit or cbfc gives the ranks' links credits: the ranks must
 * speak them on the lossless lane, or they never get any and nothing
 * moves. A CBFC rank may send what the switch port facing it holds. */
static int
ranks_flow_control(const struct fabric *f, char *err, size_t errlen)
{
	if (gen == NULL || f->fc == NULL)
		return 0; /* the switches' own files: theirs to match */
	if (strcmp(f->fc, "cbfc") == 0) {
		struct ibex_cbfc_conf cc = { .credit_size = 0 };
		uint32_t limit = fabric_rank_cbfc(f, &cc);
		int ret = ibex_gen_builtin_cbfc_links(gen, f->fc_vl, limit,
						      err, errlen);

		if (ret == 0)
			ibex_gen_builtin_cbfc_units(gen, cc.credit_size,
						    cc.overhead,
						    cc.cc_timer_us);
		return ret;
	}
	return ibex_gen_builtin_credit_links(gen, strcmp(f->fc, "credit") == 0,
					     f->fc_vl, err, errlen);
}

/* --check: everything that needs no EAL. */
static int
check_only(int argc, char **argv)
{
	struct app_opts o = { 0 };
	struct fabric *f = calloc(1, sizeof(*f));
	char err[1024];
	int ret = 1;

	if (f == NULL)
		return 1;
	if (ibex_gen_builtin_parse(&argc, argv, &gen) != 0 ||
	    parse_args(argc, argv, &o) != 0) {
		ret = 2; /* a usage error */
	} else {
		f->fc = o.fc;
		f->fc_vl = o.fc_vl;
		f->pfc_reaction_us = o.pfc_reaction_us;
		f->pfc_watchdog = o.pfc_watchdog;
		f->cbfc = o.cbfc;
		f->llr = o.llr;
		f->ecmp = o.ecmp;
		f->routing = o.routing;
		f->kind_map = o.kind_map;
		agg_opts(f, &o);
		if (fabric_load(f, o.topology, 1, err, sizeof(err)) < 0 ||
		    ranks_flow_control(f, err, sizeof(err)) < 0) {
			fprintf(stderr, "ibex-fabric: %s\n", err);
		} else {
			printf("%s: fabric %s OK: %u switches, %u ranks, %u "
			       "links\n", o.topology, f->topo.name, f->n_sw,
			       f->routes.n_ranks, f->topo.n_links);
			ret = 0;
		}
	}
	fabric_free(f);
	ibex_gen_builtin_free(gen);
	gen = NULL;
	free(f);
	agg_req_free();
	return ret;
}

/* Answered before EAL: --help, --version, --check. @return an exit
 * status, or -1 to go on. */
static int
pre_eal(int argc, char **argv)
{
	int dd, i;

	for (dd = 1; dd < argc && strcmp(argv[dd], "--") != 0; dd++)
		;
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--version") == 0) {
			print_version();
			return 0;
		}
		if (i > dd && (strcmp(argv[i], "-h") == 0 ||
			       strcmp(argv[i], "--help") == 0)) {
			usage("ibex-fabric");
			return 0;
		}
	}
	if (dd == 2 && (strcmp(argv[1], "-h") == 0 ||
			strcmp(argv[1], "--help") == 0)) {
		usage("ibex-fabric");
		return 0;
	}
	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "--check") == 0)
			return i > dd ? check_only(argc - dd, argv + dd) :
					check_only(argc, argv);
	return -1;
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
on_usr1(int sig)
{
	(void)sig;
	ibex_gen_builtin_end(gen);
}

/* The links between switches, up before the workers start (a rank's
 * link comes up when the generator starts its end). */
static int
wait_links(const struct fabric *f, double wait_s)
{
	double deadline = now_s() + wait_s;
	unsigned int i;
	uint16_t p;

	for (i = 0; i < f->n_sw; i++)
		for (p = 0; p < f->ctl[i].dp->nb_ports; p++) {
			if (fabric_port_faces_rank(f, &f->sw[i], p))
				continue;
			while (!ibex_dp_port_link_up(f->ctl[i].dp, p)) {
				if (now_s() > deadline) {
					fprintf(stderr, "ibex-fabric: switch %s: "
						"port %s: link still down after "
						"%g s\n", f->sw[i].name,
						f->ctl[i].dp->port_name[p],
						wait_s);
					return -ETIMEDOUT;
				}
				/* a sleep: the CPU may be shared */
				rte_delay_us_sleep(10 * 1000);
			}
		}
	return 0;
}

static int
run(struct fabric *f, const struct app_opts *o, const char *meta)
{
	struct ibex_ctl_opts copts = {
		.stats_period_ms = (uint32_t)(o->stats_period_s * 1000),
		.duration_ms = (uint32_t)(o->duration_s * 1000),
		.idle_stop_ms = (uint32_t)(o->idle_stop_s * 1000),
	};
	struct ibex_dp **dps;
	const struct ibex_gen_report *gen_rep = NULL;
	struct ibex_fabric_hops hops;
	struct ibex_dp_lcore *lcs;
	struct fabric_sim *sim = NULL;
	bool gen_failed = false;
	unsigned int i;
	double t0, elapsed;
	int ret = 0, jret = 0;

	if (wait_links(f, o->wait_links_s) < 0)
		return -ETIMEDOUT;
	dps = calloc(f->n_sw, sizeof(*dps));
	lcs = calloc(f->ctl[0].dp->nb_workers, sizeof(*lcs));
	sim = o->virtual_clock ? calloc(1, sizeof(*sim)) : NULL;
	if (dps == NULL || lcs == NULL || (o->virtual_clock && sim == NULL)) {
		free(dps);
		free(lcs);
		free(sim);
		return -ENOMEM;
	}
	for (i = 0; i < f->n_sw; i++)
		dps[i] = f->ctl[i].dp;
	t0 = now_s();
	if (sim != NULL) {
		/* the switches run on the generator's lcore, stepped */
		sim->quantum = IBEX_CLOCK_VIRTUAL_HZ / 1000000 *
			       SIM_QUANTUM_US;
		/* no crossing link: one window for the whole run */
		if (o->model_parts != 0)
			sim->model_lookahead =
				model_part.lookahead_ps == UINT64_MAX ?
				UINT64_MAX / 4 : model_part.lookahead_ps / 1000;
		ret = fabric_sim_start(sim, f, dps);
	} else {
		ret = ibex_dp_start_many(dps, f->n_sw, lcs);
	}
	if (ret < 0) {
		fprintf(stderr, "ibex-fabric: cannot launch the workers\n");
		free(dps);
		free(lcs);
		if (sim != NULL)
			fabric_sim_free(sim);
		return -EINVAL;
	}
	ret = 0;
	/* the generator skips the receives of its ports that have nothing,
	 * and its hellos: every switch routes every rank statically, and
	 * 10,000 ranks' hellos flooded to 10,000 ranks are 10^8 frames */
	if (gen != NULL && sim != NULL) {
		ibex_gen_builtin_set_rx_idle(gen, fabric_sim_rank_rx_idle, sim);
		ibex_gen_builtin_set_no_hello(gen);
		sim->gen = gen;
	}
	if (gen != NULL && ibex_gen_builtin_start(gen, ibex_ctl_request_stop,
						  &dps[0]->stop) < 0)
		ibex_ctl_request_stop();
	else if (gen != NULL)
		signal(SIGUSR1, on_usr1);
	ibex_ctl_run_switches(f->ctl, f->n_sw, &copts);
	ibex_dp_stop_many(dps, f->n_sw);
	ibex_ctl_wait_lcores();
	free(lcs);
	elapsed = now_s() - t0;
	if (sim != NULL) {
		fabric_sim_stop(sim);
		fabric_sim_report(stdout, sim, elapsed);
		if (o->model_parts != 0)
			fabric_part_model_report(stdout, f, &model_part,
						 sim->model_windows,
						 fabric_sim_elapsed_s(sim));
		/* the figures are per simulated second */
		elapsed = fabric_sim_elapsed_s(sim);
		fabric_sim_free(sim);
	}
	if (gen != NULL && ibex_gen_builtin_report(gen, stdout) != 0) {
		fprintf(stderr, "ibex-fabric: --gen: run not clean (frames lost "
			"or iterations failed): where, below the per-hop table\n");
		gen_failed = true;
		ret = 1;
	}
	if (gen != NULL)
		gen_rep = ibex_gen_builtin_rep(gen);
	if (o->summary)
		for (i = 0; i < f->n_sw; i++) {
			printf("\n=== switch %s ===\n", f->sw[i].name);
			ibex_ctl_print_summary(stdout, dps[i], elapsed);
		}
	free(dps);
	/* read once: the table and the JSON show the same figures */
	if (fabric_hops_read(f, elapsed, &hops) < 0) {
		fprintf(stderr, "ibex-fabric: no memory for the report\n");
		return 1;
	}
	fabric_report(stdout, &hops, gen_rep, gen_failed);
	fabric_agg_report(stdout, f);
	if (o->json != NULL)
		jret = fabric_report_json(o->json, f, &hops, meta, gen_rep,
					  gen_failed);
	if (jret < 0) {
		fprintf(stderr, "ibex-fabric: %s: %s\n", o->json,
			strerror(-jret));
		ret = 1;
	}
	fabric_hops_free(&hops);
	return ret;
}

/* The slowest link's rate, bit/s. */
static uint64_t
fabric_min_rate(const struct fabric *f)
{
	uint64_t r = UINT64_MAX;
	uint32_t l;

	for (l = 0; l < f->topo.n_links; l++)
		r = RTE_MIN(r, f->topo.links[l].rate_bps);
	return r;
}

/* /ibex/NAME/... for every switch (the first IBEX_TELEMETRY_SWITCHES_MAX
 * of a bigger fabric), /ibex/... for the first. */
static void
register_telemetry(const struct fabric *f)
{
	unsigned int i;
	int ret = ibex_telemetry_register(f->ctl[0].dp);

	for (i = 0; i < f->n_sw && ret == 0; i++)
		ret = ibex_telemetry_register_switch(f->ctl[i].dp, f->sw[i].name);
	if (ret == -ENOSPC)
		fprintf(stderr, "ibex-fabric: telemetry: /ibex/NAME/ for the "
			"first %u of the %u switches only (the others through "
			"their control sockets)\n", i - 1, f->n_sw);
	else if (ret < 0)
		fprintf(stderr, "ibex-fabric: telemetry unavailable: %s\n",
			strerror(-ret));
}

/* One /metrics for every switch, each sample labelled switch=NAME. */
static int
start_metrics(const struct fabric *f, const char *addr,
	      struct ibex_metrics **mp, char *err, size_t errlen)
{
	struct ibex_dp **dps = calloc(f->n_sw, sizeof(*dps));
	const char **names = calloc(f->n_sw, sizeof(*names));
	unsigned int i;
	int ret = -ENOMEM;

	if (dps == NULL || names == NULL) {
		snprintf(err, errlen, "--metrics: out of memory");
		goto out;
	}
	for (i = 0; i < f->n_sw; i++) {
		dps[i] = f->ctl[i].dp;
		names[i] = f->sw[i].name;
	}
	ret = ibex_metrics_start(mp, dps, names, f->n_sw, addr, err, errlen);
	if (ret == 0)
		printf("ibex-fabric: metrics of %u switches at "
		       "http://%s/metrics\n", f->n_sw, addr);
out:
	free(dps);
	free(names);
	return ret;
}

/* Links, switches, the generator's ports: everything before the run. */
static int
setup(struct fabric *f, const struct app_opts *o, char *err, size_t errlen)
{
	char dir[512];
	const char *sock_dir = dir;
	int ret;

	if (gen != NULL && rte_lcore_count() < 3) {
		snprintf(err, errlen, "--gen needs an lcore of its own: give EAL "
			 "at least 3 lcores, e.g. --lcores 0@0,1@1,2@0");
		return -EINVAL;
	}
	if (rte_lcore_count() < 2) {
		snprintf(err, errlen, "no worker lcore: give EAL at least 2 "
			 "(-l 0-1, or --lcores 0@0,1@1)");
		return -EINVAL;
	}
	f->fc = o->fc;
	f->fc_vl = o->fc_vl;
	f->pfc_reaction_us = o->pfc_reaction_us;
	f->pfc_watchdog = o->pfc_watchdog;
	f->cbfc = o->cbfc;
	f->llr = o->llr;
	f->ecmp = o->ecmp;
	f->routing = o->routing;
	f->kind_map = o->kind_map;
	f->virtual_clock = o->virtual_clock;
	f->switch_latency_ps = o->switch_latency_ps;
	agg_opts(f, o);
	ret = fabric_load(f, o->topology, nb_switch_workers(), err, errlen);
	if (ret < 0)
		return ret;
	if (o->model_parts != 0) {
		ret = ibex_fabric_partition(&f->topo, o->model_parts,
					    f->switch_latency_ps, &model_part,
					    err, errlen);
		if (ret < 0)
			return ret;
		if (model_part.lookahead_ps < 1000) {
			snprintf(err, errlen, "--model-partitions: a lookahead "
				 "below the virtual clock's 1 ns");
			return -EINVAL;
		}
	}
	if (gen != NULL && ibex_gen_builtin_ranks(gen) != f->routes.n_ranks) {
		snprintf(err, errlen, "--gen: the scenario has %u ranks, the "
			 "topology %u: give --ranks %u", ibex_gen_builtin_ranks(gen),
			 f->routes.n_ranks, f->routes.n_ranks);
		return -EINVAL;
	}
	ret = ranks_flow_control(f, err, errlen);
	if (ret < 0)
		return ret;
	ret = fabric_links_create(f, err, errlen);
	if (ret < 0)
		return ret;
	if (o->ctl_dir == NULL)
		snprintf(dir, sizeof(dir), "%s", rte_eal_get_runtime_dir());
	else if (strcmp(o->ctl_dir, "none") == 0)
		sock_dir = NULL;
	else
		snprintf(dir, sizeof(dir), "%s", o->ctl_dir);
	ret = fabric_switches_create(f, sock_dir, err, errlen);
	if (ret < 0)
		return ret;
	if (gen == NULL)
		return 0;
	ret = ibex_gen_builtin_use_ports(gen, f->rank_port, f->routes.n_ranks,
					 (const uint8_t (*)[6])f->rank_mac,
					 err, errlen);
	if (ret == 0 && f->n_agg == 0 && ibex_gen_builtin_is_inc(gen)) {
		snprintf(err, errlen, "--gen --engine inc: give --agg "
			 "NAME:ID:RANKS, the job the switches aggregate");
		ret = -EINVAL;
	}
	if (ret == 0 && f->n_agg != 0 && ibex_gen_builtin_is_inc(gen)) {
		ret = fabric_agg_children(f, err, errlen);
		if (ret == 0)
			ibex_gen_builtin_set_agg(gen, f->agg_rank_job[0],
						 f->agg_slots_max,
						 f->agg_elements, f->agg_child,
						 f->agg_rank_job,
						 f->agg_rank_slots);
	}
	if (ret == 0) {
		/* A rank's MAC may hold frames for a whole pause (65535
		 * quanta of 512 bit times at the slowest link's rate):
		 * listen for twice that before calling the fabric empty. */
		uint32_t quiet = RTE_MAX(200u, (uint32_t)(2 * 65535.0 * 512 *
					 1e3 / (double)fabric_min_rate(f)));

		ibex_gen_builtin_set_drain(gen, quiet, 10 * quiet);
	}
	return ret;
}

/*
 * Whether to leave a finished fabric's memory to the process's exit rather
 * than free it switch by switch: DPDK's heap keeps free memory zeroed, so
 * rte_free() writes every byte it frees. Without hugepages the switches'
 * largest, mostly untouched blocks are mapped and unmapped instead
 * (lib/dp, sparse_zalloc()), but the rest still took 2.7 s for 62
 * switches on a loaded machine: a thousand would take most of a minute.
 * Small fabrics are freed as ever, so the tests that run them still see
 * their teardown.
 */
#define FABRIC_FREE_MAX_SWITCHES 64

static bool
leave_to_exit(const struct fabric *f)
{
	return f->virtual_clock && f->n_sw > FABRIC_FREE_MAX_SWITCHES;
}

int
main(int argc, char **argv)
{
	struct app_opts opts = { 0 };
	time_t start = time(NULL);
	struct fabric *f = NULL;
	struct ibex_metrics *metrics = NULL;
	char *cmdline, *meta = NULL, err[1024];
	int ret;

	/* A line at a time: under systemd stdout is a pipe to the journal,
	 * block-buffered by default, so start-up lines would show at exit. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	ret = pre_eal(argc, argv);
	if (ret >= 0)
		return ret;
	cmdline = ibex_meta_cmdline(argc, argv);
	if (ibex_ctl_block_signals() < 0)
		fprintf(stderr, "ibex-fabric: cannot block signals\n");
	/* memif: a socket file only this user may open (ibex_memif_sock.h). */
	if (ibex_memif_fix_argv(argc, argv, "ibex-fabric") < 0) {
		free(cmdline);
		return 1;
	}
	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		/* (a lock EAL could not take leaves rte_errno 0) */
		fprintf(stderr, "ibex-fabric: EAL init failed: %s\n",
			rte_errno != 0 ? rte_strerror(rte_errno) :
			"see the EAL lines above");
		free(cmdline);
		return 1;
	}
	argc -= ret;
	argv += ret;
	f = calloc(1, sizeof(*f));
	if (f == NULL) {
		ret = 1;
		goto out;
	}
	if (ibex_gen_builtin_parse(&argc, argv, &gen) != 0 ||
	    parse_args(argc, argv, &opts) < 0) {
		ret = 2; /* a usage error */
		goto out;
	}
	if (opts.model_parts != 0 && !opts.virtual_clock) {
		fprintf(stderr, "ibex-fabric: --model-partitions: with --clock "
			"virtual only (its windows are simulated time)\n");
		ret = 2;
		goto out;
	}
	if (opts.virtual_clock && gen == NULL) {
		fprintf(stderr, "ibex-fabric: --clock virtual: give --gen (the "
			"generator's turns move the simulated clock)\n");
		ret = 2;
		goto out;
	}
	/* A scrape is stamped with the wall clock: samples of a simulated
	 * run (seconds of simulated time in moments of wall time) would
	 * mislead every rate() over them. */
	if (opts.virtual_clock && opts.metrics != NULL) {
		fprintf(stderr, "ibex-fabric: --metrics: under --clock real "
			"only (Prometheus stamps samples with the wall "
			"clock); read a simulated run's --json report\n");
		ret = 2;
		goto out;
	}
	if (opts.virtual_clock)
		ibex_clock_use_virtual(IBEX_CLOCK_VIRTUAL_HZ);
	ret = setup(f, &opts, err, sizeof(err));
	if (ret < 0) {
		fprintf(stderr, "ibex-fabric: %s\n", err);
		ret = 1;
		goto out;
	}
	register_telemetry(f);
	if (opts.metrics != NULL && start_metrics(f, opts.metrics, &metrics,
						  err, sizeof(err)) < 0) {
		fprintf(stderr, "ibex-fabric: %s\n", err);
		ret = 1;
		goto out;
	}
	meta = ibex_meta_json("ibex-fabric", cmdline, start);
	ibex_ctl_set_meta(meta);
	if (gen != NULL)
		ibex_gen_builtin_set_meta(gen, meta);
	printf("ibex-fabric: %s: %u switches, %u ranks, %u links, %u worker "
	       "lcore(s)%s\n", f->topo.name, f->n_sw, f->routes.n_ranks,
	       f->topo.n_links, nb_switch_workers(),
	       gen != NULL ? ", generator on its own lcore" : "");
	ret = run(f, &opts, meta) != 0 ? 1 : 0;
	if (leave_to_exit(f)) {
		rte_eal_cleanup();
		return ret;
	}
out:
	/* Before the switches go: a scrape reads their counters. */
	ibex_metrics_stop(metrics);
	ibex_gen_builtin_free(gen);
	if (f != NULL)
		fabric_free(f);
	free(f);
	free(meta);
	free(cmdline);
	agg_req_free();
	rte_eal_cleanup();
	return ret;
}
