/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Built-in mode: a generator scenario inside ibex-switch.
 *
 * For each of N port pairs two rings are made, A (generator -> switch) and
 * B (switch -> generator), and two net_ring ethdevs over them: "genI"
 * (RX A, TX B: a switch port, one TX queue per switch worker, all on B,
 * which is multi-producer) and "genI_peer" (RX B, TX A: the generator's).
 * Frames cross by pointer, so the pair costs one enqueue and one dequeue.
 * The generator runs on the last EAL worker lcore; the switch's workers
 * are the others, its control thread the main lcore. On a 2-core machine
 * give EAL three lcores on two CPUs, e.g. --lcores 0@0,1@1,2@0: the
 * control thread sleeps most of the time and shares with the generator.
 */

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_ring.h>

#include "ibex_pdev.h"
#include "ibex_cbfc.h"
#include "ibex_conf.h"
#include "ibex_gen_builtin.h"
#include "ibex_gen_opts.h"
#include "ibex_gen_run.h"

#define PAIR_RING_SIZE 4096
#define MAX_WORDS 64

struct ibex_gen_builtin {
	struct ibex_gen_opts opts;
	char *spec;                 /**< copy of the --gen words */
	char *words[MAX_WORDS];
	unsigned int nports;
	unsigned int lcore;
	/* [nports], allocated once the ports are known (ibex-fabric: one
	 * per rank, up to IBEX_GEN_MAX_PORTS) */
	uint16_t *peer_ids;
	struct rte_ring *(*rings)[2];
	struct ibex_gen_run *run;
	ibex_gen_rx_idle_fn rx_idle;
	void *rx_idle_arg;
	void (*done)(void);
	bool launched;
};

static int
split_spec(struct ibex_gen_builtin *g, const char *spec)
{
	char *save = NULL, *w;
	int n = 1;

	g->spec = strdup(spec);
	if (g->spec == NULL)
		return -ENOMEM;
	g->words[0] = (char *)"ibex-switch --gen";
	for (w = strtok_r(g->spec, " \t", &save); w != NULL;
	     w = strtok_r(NULL, " \t", &save)) {
		if (n == MAX_WORDS - 1) {
			fprintf(stderr, "ibex-switch: --gen: too many words\n");
			return -EINVAL;
		}
		g->words[n++] = w;
	}
	g->words[n] = NULL;
	return n;
}

int
ibex_gen_builtin_parse(int *argc, char **argv, struct ibex_gen_builtin **gp)
{
	struct ibex_gen_builtin *g = NULL;
	const char *spec = NULL;
	long nports = 0;
	int i, j, n, ret;

	*gp = NULL;
	for (i = 1, j = 1; i < *argc; i++) {
		if (strcmp(argv[i], "--gen") == 0 && i + 1 < *argc) {
			spec = argv[++i];
		} else if (strncmp(argv[i], "--gen=", 6) == 0) {
			spec = argv[i] + 6;
		} else if (strcmp(argv[i], "--gen-ports") == 0 && i + 1 < *argc) {
			char *end;

			nports = strtol(argv[++i], &end, 10);
			if (end == argv[i] || *end != '\0' || nports < 1 ||
			    nports > IBEX_GEN_MAX_PORTS) {
				fprintf(stderr, "ibex-switch: --gen-ports: bad value "
					"'%s' (1..%u)\n", argv[i],
					IBEX_GEN_MAX_PORTS);
				return -EINVAL;
			}
		} else {
			argv[j++] = argv[i];
		}
	}
	if (j < *argc)
		argv[j] = NULL;
	*argc = j;
	if (spec == NULL)
		return 0;
	g = calloc(1, sizeof(*g));
	if (g == NULL)
		return -ENOMEM;
	n = split_spec(g, spec);
	if (n < 0) {
		ibex_gen_builtin_free(g);
		return n;
	}
	ibex_gen_opts_default(&g->opts);
	ret = ibex_gen_opts_parse(&g->opts, n, g->words);
	if (ret == 0) {
		char err[256];

		/* options that do not go together: a usage error too */
		ret = ibex_gen_opts_check(&g->opts, err, sizeof(err));
		if (ret < 0)
			fprintf(stderr, "ibex-switch: --gen: %s\n", err);
	}
	if (ret != 0) {
		ibex_gen_builtin_free(g);
		return ret;
	}
	g->nports = nports > 0 ? (unsigned int)nports :
		    (g->opts.nranks < 8 ? g->opts.nranks : 8);
	*gp = g;
	/* the switch's own getopt pass starts afresh */
	optind = 1;
	return 0;
}

/* The per-port arrays for @p n ports. */
static int
ports_alloc(struct ibex_gen_builtin *g, unsigned int n, char *err,
	    size_t errlen)
{
	free(g->peer_ids);
	free(g->rings);
	g->peer_ids = calloc(n, sizeof(*g->peer_ids));
	g->rings = calloc(n, sizeof(*g->rings));
	if (g->peer_ids == NULL || g->rings == NULL) {
		snprintf(err, errlen, "--gen: out of memory for %u ports", n);
		return -ENOMEM;
	}
	return 0;
}

int
ibex_gen_builtin_attach(struct ibex_gen_builtin *g, struct ibex_conf *conf,
			char *err, size_t errlen)
{
	unsigned int nb_worker_lcores = rte_lcore_count() - 1, last = 0, i, w;
	unsigned int lcore, nb_workers;
	char name[RTE_ETH_NAME_MAX_LEN], dev[RTE_ETH_NAME_MAX_LEN];
	uint16_t sw_pid;
	int ret;

	if (nb_worker_lcores < 2) {
		snprintf(err, errlen, "--gen needs an lcore of its own: give EAL "
			 "at least 3 lcores (control, worker, generator), e.g. "
			 "--lcores 0@0,1@1,2@0 on two CPUs");
		return -EINVAL;
	}
	RTE_LCORE_FOREACH_WORKER(lcore)
		last = lcore;
	g->lcore = last;
	if (conf->nb_workers == 0)
		conf->nb_workers = (uint16_t)(nb_worker_lcores - 1);
	if (conf->nb_workers > nb_worker_lcores - 1) {
		snprintf(err, errlen, "--gen: %u switch workers and the generator "
			 "need %u worker lcores, EAL gave %u", conf->nb_workers,
			 conf->nb_workers + 1, nb_worker_lcores);
		return -EINVAL;
	}
	nb_workers = conf->nb_workers;
	ret = ports_alloc(g, g->nports, err, errlen);
	if (ret < 0)
		return ret;
	for (i = 0; i < g->nports; i++) {
		struct rte_ring *to_sw, *to_gen, *tx[IBEX_MAX_WORKERS];
		int pid;

		snprintf(name, sizeof(name), "gen%u_a", i);
		to_sw = rte_ring_create(name, PAIR_RING_SIZE, (int)rte_socket_id(),
					RING_F_SP_ENQ | RING_F_SC_DEQ);
		snprintf(name, sizeof(name), "gen%u_b", i);
		to_gen = rte_ring_create(name, PAIR_RING_SIZE, (int)rte_socket_id(),
					 RING_F_SC_DEQ);
		g->rings[i][0] = to_sw;
		g->rings[i][1] = to_gen;
		if (to_sw == NULL || to_gen == NULL) {
			snprintf(err, errlen, "--gen: cannot create rings: %s",
				 rte_strerror(rte_errno));
			return -ENOMEM;
		}
		for (w = 0; w < nb_workers; w++)
			tx[w] = to_gen;
		snprintf(name, sizeof(name), "gen%u", i);
		pid = rte_eth_from_rings(name, &to_sw, 1, tx, (unsigned int)nb_workers,
					 rte_socket_id());
		if (pid < 0) {
			snprintf(err, errlen, "--gen: cannot create port %s", name);
			return -ENODEV;
		}
		snprintf(name, sizeof(name), "gen%u_peer", i);
		pid = rte_eth_from_rings(name, &to_gen, 1, &to_sw, 1,
					 rte_socket_id());
		if (pid < 0) {
			snprintf(err, errlen, "--gen: cannot create port %s", name);
			return -ENODEV;
		}
		g->peer_ids[i] = (uint16_t)pid;
		/* the PMD names the switch side net_ring_genI; the switch
		 * port is genI, declared in the configuration or not */
		snprintf(name, sizeof(name), "gen%u", i);
		if (ibex_pdev_get_by_name(name, &sw_pid) != 0) {
			snprintf(dev, sizeof(dev), "net_ring_gen%u", i);
			if (ibex_pdev_get_by_name(dev, &sw_pid) != 0 ||
			    ibex_pdev_get_name(sw_pid, dev) != 0) {
				snprintf(err, errlen, "--gen: port %s vanished", name);
				return -ENODEV;
			}
		} else {
			snprintf(dev, sizeof(dev), "%s", name);
		}
		ret = ibex_conf_port_find(conf, name);
		if (ret >= 0) {
			struct ibex_conf_port *cp = &conf->ports[ret];

			if (cp->dev[0] == '\0' || strcmp(cp->dev, name) == 0)
				snprintf(cp->dev, sizeof(cp->dev), "%s", dev);
			continue;
		}
		ret = ibex_conf_port_add(conf, name, dev);
		if (ret < 0) {
			snprintf(err, errlen, "--gen: cannot add port %s: %s", name,
				 strerror(-ret));
			return ret;
		}
	}
	return ibex_conf_finish(conf, err, errlen);
}

int
ibex_gen_builtin_use_ports(struct ibex_gen_builtin *g, const uint16_t *port_ids,
			   unsigned int n, const uint8_t (*rank_mac)[6],
			   char *err, size_t errlen)
{
	unsigned int lcore, last = 0, i;

	if (rte_lcore_count() < 3) {
		snprintf(err, errlen, "--gen needs an lcore of its own: give EAL "
			 "at least 3 lcores (control, worker, generator), e.g. "
			 "--lcores 0@0,1@1,2@0 on two CPUs");
		return -EINVAL;
	}
	if (n == 0 || n > IBEX_GEN_MAX_PORTS) {
		snprintf(err, errlen, "--gen: %u ports (1..%u)", n,
			 IBEX_GEN_MAX_PORTS);
		return -EINVAL;
	}
	RTE_LCORE_FOREACH_WORKER(lcore)
		last = lcore;
	g->lcore = last;
	if (ports_alloc(g, n, err, errlen) < 0)
		return -ENOMEM;
	g->nports = n;
	for (i = 0; i < n; i++)
		g->peer_ids[i] = port_ids[i];
	g->opts.rank_mac = rank_mac;
	return 0;
}

void
ibex_gen_builtin_set_drain(struct ibex_gen_builtin *g, uint32_t quiet_ms,
			   uint32_t max_ms)
{
	g->opts.drain_quiet_ms = quiet_ms;
	g->opts.drain_max_ms = max_ms;
}

void
ibex_gen_builtin_port_wake(struct ibex_gen_builtin *g, unsigned int port)
{
	if (g->run != NULL)
		ibex_gen_run_port_wake(g->run, port);
}

double
ibex_gen_builtin_progress(const struct ibex_gen_builtin *g)
{
	return g->run != NULL ? ibex_gen_run_progress(g->run) : -1;
}

bool
ibex_gen_builtin_is_inc(const struct ibex_gen_builtin *g)
{
	return g->opts.engine->inc;
}

void
ibex_gen_builtin_set_agg(struct ibex_gen_builtin *g, uint32_t job,
			 uint32_t slots, uint32_t elements,
			 const uint16_t *child, const uint32_t *rank_job,
			 const uint16_t *rank_slots)
{
	g->opts.agg_job = job;
	g->opts.agg_slots = slots;
	g->opts.agg_elements = elements;
	g->opts.agg_child = child;
	g->opts.agg_rank_job = rank_job;
	g->opts.agg_rank_slots = rank_slots;
}

void
ibex_gen_builtin_set_no_hello(struct ibex_gen_builtin *g)
{
	g->opts.no_hello = true;
}

unsigned int
ibex_gen_builtin_ranks(const struct ibex_gen_builtin *g)
{
	return g->opts.nranks;
}

/* The --fc word of a mode, for refusals. */
static const char *
fc_name(enum ibex_gen_fc fc)
{
	switch (fc) {
	case IBEX_GEN_FC_PFC:
		return "pfc";
	case IBEX_GEN_FC_CREDIT:
		return "credit";
	case IBEX_GEN_FC_CBFC:
		return "cbfc";
	default:
		return "none";
	}
}

int
ibex_gen_builtin_credit_links(struct ibex_gen_builtin *g, bool credit,
			      unsigned int vl, char *err, size_t errlen)
{
	struct ibex_gen_opts *o = &g->opts;

	if (!credit) {
		if (o->fc != IBEX_GEN_FC_CREDIT && o->fc != IBEX_GEN_FC_CBFC)
			return 0;
		snprintf(err, errlen, "--gen has --fc %s, but the ranks' "
			 "links give no credits: leave --fc out of --gen, or "
			 "give the fabric --fc %s", fc_name(o->fc),
			 fc_name(o->fc));
		return -EINVAL;
	}
	if (o->fc == IBEX_GEN_FC_PFC || o->fc == IBEX_GEN_FC_CBFC) {
		snprintf(err, errlen, "--gen has --fc %s, but the ranks' links "
			 "speak credits (--fc credit): leave --fc out of --gen",
			 fc_name(o->fc));
		return -EINVAL;
	}
	if (o->fc == IBEX_GEN_FC_CREDIT && o->vl != vl) {
		snprintf(err, errlen, "--gen has --vl %u, but the fabric's "
			 "lossless lane is %u (--lossless-vl)", o->vl, vl);
		return -EINVAL;
	}
	o->fc = IBEX_GEN_FC_CREDIT;
	o->vl = (uint8_t)vl;
	return 0;
}

int
ibex_gen_builtin_cbfc_links(struct ibex_gen_builtin *g, unsigned int vl,
			    uint32_t limit_credits, char *err, size_t errlen)
{
	struct ibex_gen_opts *o = &g->opts;

	if (o->fc == IBEX_GEN_FC_PFC || o->fc == IBEX_GEN_FC_CREDIT) {
		snprintf(err, errlen, "--gen has --fc %s, but the ranks' links "
			 "speak UEC CBFC (--fc cbfc): leave --fc out of --gen",
			 fc_name(o->fc));
		return -EINVAL;
	}
	if (o->fc == IBEX_GEN_FC_CBFC && o->vl != vl) {
		snprintf(err, errlen, "--gen has --vl %u, but the fabric's "
			 "lossless lane is %u (--lossless-vl)", o->vl, vl);
		return -EINVAL;
	}
	if (vl >= IBEX_GEN_CBFC_VCS) {
		snprintf(err, errlen, "CBFC links on VL %u: the ranks' ports "
			 "have VLs 0..%u", vl, IBEX_GEN_CBFC_VCS - 1);
		return -EINVAL;
	}
	if (limit_credits == 0 || limit_credits > IBEX_CBFC_MASK) {
		snprintf(err, errlen, "CBFC links with a credit limit of %u: "
			 "1..%u credits", limit_credits, IBEX_CBFC_MASK);
		return -EINVAL;
	}
	o->fc = IBEX_GEN_FC_CBFC;
	o->vl = (uint8_t)vl;
	o->cbfc_limit = limit_credits;
	return 0;
}

void
ibex_gen_builtin_cbfc_units(struct ibex_gen_builtin *g, uint16_t credit_size,
			    int16_t overhead, uint32_t cc_timer_us)
{
	g->opts.cbfc_credit_size = credit_size;
	g->opts.cbfc_overhead = overhead;
	g->opts.cbfc_cc_timer_us = cc_timer_us;
}

static int
builtin_main(void *arg)
{
	struct ibex_gen_builtin *g = arg;

	ibex_gen_run_main(g->run);
	if (g->done != NULL)
		g->done();
	return 0;
}

int
ibex_gen_builtin_start(struct ibex_gen_builtin *g, void (*done)(void),
		       const _Atomic bool *stop)
{
	char err[256];
	int ret;

	ret = ibex_gen_run_create(&g->run, &g->opts, g->peer_ids, g->nports,
				  err, sizeof(err));
	if (ret < 0) {
		fprintf(stderr, "ibex-switch: --gen: %s\n", err);
		return ret;
	}
	ibex_gen_run_watch(g->run, stop);
	ibex_gen_run_set_rx_idle(g->run, g->rx_idle, g->rx_idle_arg);
	g->done = done;
	ret = rte_eal_remote_launch(builtin_main, g, g->lcore);
	if (ret < 0) {
		fprintf(stderr, "ibex-switch: --gen: cannot launch lcore %u\n",
			g->lcore);
		return ret;
	}
	g->launched = true;
	return 0;
}

void
ibex_gen_builtin_set_rx_idle(struct ibex_gen_builtin *g,
			     ibex_gen_rx_idle_fn fn, void *arg)
{
	g->rx_idle = fn;
	g->rx_idle_arg = arg;
}

void
ibex_gen_builtin_set_meta(struct ibex_gen_builtin *g, const char *meta)
{
	g->opts.meta = meta; /* ibex_gen_builtin_start() copies the opts */
}

void
ibex_gen_builtin_end(struct ibex_gen_builtin *g)
{
	if (g != NULL && g->run != NULL)
		ibex_gen_run_stop(g->run);
}

int
ibex_gen_builtin_report(struct ibex_gen_builtin *g, FILE *f)
{
	if (g->run == NULL || !g->launched)
		return 1;
	rte_eal_wait_lcore(g->lcore);
	return ibex_gen_run_report(g->run, f);
}

const struct ibex_gen_report *
ibex_gen_builtin_rep(const struct ibex_gen_builtin *g)
{
	if (g == NULL || g->run == NULL || !g->launched)
		return NULL;
	return ibex_gen_run_rep(g->run);
}

void
ibex_gen_builtin_free(struct ibex_gen_builtin *g)
{
	unsigned int i;

	if (g == NULL)
		return;
	if (g->launched)
		rte_eal_wait_lcore(g->lcore);
	ibex_gen_run_free(g->run);
	for (i = 0; g->rings != NULL && i < g->nports; i++) {
		char name[RTE_ETH_NAME_MAX_LEN];
		uint16_t pid;

		/* the switch side is closed by the data path; release both */
		snprintf(name, sizeof(name), "gen%u", i);
		if (ibex_pdev_get_by_name(name, &pid) == 0)
			ibex_pdev_close(pid);
		rte_ring_free(g->rings[i][0]);
		rte_ring_free(g->rings[i][1]);
	}
	free(g->peer_ids);
	free(g->rings);
	free(g->spec);
	free(g);
}
