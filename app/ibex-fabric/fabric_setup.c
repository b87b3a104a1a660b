/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ibex-fabric's set-up: the topology's switches become ibex configurations
 * (each switch's own file plus what the fabric manager computed, parsed
 * and validated by lib/conf as any configuration is), its links become
 * net_ibexlink pairs, and each switch gets a data path and a socket.
 */

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "fabric.h"
#include "ibex_cbfc.h"
#include "ibex_conf.h"
#include "ibex_credit.h"
#include "ibex_pdev.h"
#include "ibexlink.h"
#include "ibex_sock.h"

void
fabric_link_dev(uint32_t l, unsigned int end, char *buf, size_t len)
{
	snprintf(buf, len, "net_ibexlink%" PRIu32, 2 * l + end);
}

/* Which end of link @p l is port @p port of node @p node. */
static unsigned int
link_end(const struct ibex_fabric *t, uint32_t l, uint32_t node, uint16_t port)
{
	const struct ibex_fabric_end *e = &t->links[l].end[0];

	return e->node == node && e->port == port ? 0 : 1;
}

/* The switch's own file, relative to the topology's directory. */
static int
switch_conf_file(struct ibex_conf *c, const struct ibex_fabric *t,
		 const struct ibex_fabric_node *n, char *err, size_t errlen)
{
	char dir[PATH_MAX], path[PATH_MAX];

	if (n->config[0] == '\0')
		return 0;
	snprintf(dir, sizeof(dir), "%s", t->origin);
	if (n->config[0] == '/')
		snprintf(path, sizeof(path), "%s", n->config);
	else if (snprintf(path, sizeof(path), "%s/%s", dirname(dir),
			  n->config) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	return ibex_conf_parse_file(c, path, err, errlen);
}

/* What the fabric manager computed for the switch, in ibex's grammar. */
static int
switch_conf_routes(struct ibex_conf *c, const struct fabric *f, uint32_t node,
		   char *err, size_t errlen)
{
	char origin[IBEX_FABRIC_PATH_LEN + IBEX_FABRIC_NAME_LEN + 32];
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	int ret;

	if (m == NULL)
		return -ENOMEM;
	ret = ibex_fabric_render(&f->topo, &f->routes, node, m);
	if (fclose(m) != 0 && ret == 0)
		ret = -EIO;
	if (ret == 0) {
		snprintf(origin, sizeof(origin), "%s (routes of %s)",
			 f->topo.origin, f->topo.nodes[node].name);
		ret = ibex_conf_parse_string(c, text, origin, err, errlen);
	} else {
		snprintf(err, errlen, "%s: cannot render the routes of %s",
			 f->topo.origin, f->topo.nodes[node].name);
	}
	free(text);
	return ret;
}

/* Every linked port of the node on its end of the link's device; a port
 * of the configuration that the topology does not link is refused. */
static int
switch_conf_ports(struct fabric_switch *s, const struct ibex_fabric *t,
		  char *err, size_t errlen)
{
	const struct ibex_fabric_node *n = &t->nodes[s->node];
	struct ibex_conf *c = s->conf;
	char dev[RTE_DEV_NAME_MAX_LEN];
	uint16_t k;
	int p;

	for (p = 0; p < IBEX_MAX_PORTS; p++)
		s->topo_port[p] = UINT16_MAX;
	for (k = 0; k < n->n_ports; k++) {
		uint32_t l = n->port[k].link;

		if (l == IBEX_FABRIC_NONE)
			continue;
		fabric_link_dev(l, link_end(t, l, s->node, k), dev, sizeof(dev));
		p = ibex_conf_port_find(c, n->port[k].name);
		if (p < 0)
			p = ibex_conf_port_add(c, n->port[k].name, dev);
		if (p < 0) {
			snprintf(err, errlen, "%s: switch %s: cannot add port "
				 "%s: %s", t->origin, n->name, n->port[k].name,
				 strerror(-p));
			return p;
		}
		snprintf(c->ports[p].dev, sizeof(c->ports[p].dev), "%s", dev);
		s->topo_port[p] = k;
	}
	for (p = 0; p < c->nb_ports; p++)
		if (s->topo_port[p] == UINT16_MAX) {
			snprintf(err, errlen, "%s:%d: switch %s: port %s of its "
				 "configuration has no link in the topology",
				 t->origin, n->line, n->name, c->ports[p].name);
			return -EINVAL;
		}
	return 0;
}

/* The switch's part of the aggregation trees (--agg): its jobs, and a
 * pool that holds them on every worker. */
static int
switch_conf_agg(struct fabric *f, struct fabric_switch *s, uint16_t nb_workers,
		char *err, size_t errlen)
{
	char origin[IBEX_FABRIC_PATH_LEN + IBEX_FABRIC_NAME_LEN + 32];
	char *text = NULL, line[64];
	size_t len = 0;
	FILE *m;
	uint64_t most = 0;
	uint16_t w, j;
	int ret;

	if (!f->agg_planned)
		return 0;
	m = open_memstream(&text, &len);
	if (m == NULL)
		return -ENOMEM;
	ret = ibex_fabric_agg_render(&f->topo, f->agg_req, &f->agg_plan,
				     s->node, f->agg_elements, m);
	if (fclose(m) != 0 && ret >= 0)
		ret = -EIO;
	snprintf(origin, sizeof(origin), "%s (aggregation of %s)",
		 f->topo.origin, s->name);
	if (ret > 0)
		ret = ibex_conf_parse_string(s->conf, text, origin, err,
					     errlen);
	free(text);
	if (ret < 0 || s->conf->nb_agg_jobs == 0)
		return ret < 0 ? ret : 0;
	/* The fullest worker's share, rounded up to 64 KiB. */
	for (w = 0; w < nb_workers; w++) {
		uint64_t sum = 0;

		for (j = 0; j < s->conf->nb_agg_jobs; j++) {
			const struct ibex_conf_agg_job *c = &s->conf->agg_jobs[j];
			struct ibex_agg_job_conf jc = {
				.job = c->id, .n_slots = c->slots,
				.n_children = c->n_children,
				.max_elems = c->elements,
			};

			sum += ibex_agg_job_bytes(&jc, w, nb_workers);
		}
		most = RTE_MAX(most, sum);
	}
	if (s->conf->agg_pool_bytes >= most)
		return 0;
	snprintf(line, sizeof(line), "aggregation pool %" PRIu64,
		 RTE_ALIGN_CEIL(most, (uint64_t)64 << 10));
	return ibex_conf_parse_string(s->conf, line, origin, err, errlen);
}

/* One statement of --fc, parsed as a configuration line. */
static int
fc_line(struct ibex_conf *c, const char *origin, char *err, size_t errlen,
	const char *fmt, const char *port, const char *arg)
{
	char line[128];

	snprintf(line, sizeof(line), fmt, port, arg);
	return ibex_conf_parse_string(c, line, origin, err, errlen);
}

/* A credit port's window and cadence from its link: the credit loop is
 * the link's delay and the switch's processing (its egress wire's extra
 * delay) each way, and the updates leave at the housekeeping tick, not a
 * 2 us gap later (ibex_credit_window_blocks(); docs/flow-control.md,
 * "Sizing the window"). Without it every lane had its 4 KB default, a
 * twentieth of a 100G link's loop (64 of 1,284 blocks). */
static int
credit_window_line(const struct fabric *f, const struct fabric_switch *s,
		   uint16_t p, const char *origin, char *err, size_t errlen)
{
	const struct ibex_fabric_node *n = &f->topo.nodes[s->node];
	const struct ibex_fabric_link *lk =
		&f->topo.links[n->port[s->topo_port[p]].link];
	uint64_t ps = lk->delay_ps + f->switch_latency_ps;
	char line[160];

	snprintf(line, sizeof(line), "credit %s window auto delay-ns %" PRIu64
		 " rate %" PRIu64 " min-gap-ns %u", s->conf->ports[p].name,
		 (ps + 999) / 1000, lk->rate_bps, IBEX_CREDIT_HK_NS);
	return ibex_conf_parse_string(s->conf, line, origin, err, errlen);
}

/* A PFC port's headroom covers its link: what the peer sends while a
 * pause is on its way and comes back, over the link's delay and the
 * switch's processing (its egress wire's extra delay) each way, as a
 * cable of that many metres (5 ns each). Unless the switch's file chose
 * a cable or a headroom of its own. Without it every port had the
 * default 10 m (50 ns): a 400G link of 500 ns with 600 ns switches lost
 * lossless frames (fc-violation) under a 2 MiB halving-doubling. */
static int
pfc_cable_line(const struct fabric *f, const struct fabric_switch *s,
	       uint16_t p, const char *origin, char *err, size_t errlen)
{
	const struct ibex_conf_port *cp = &s->conf->ports[p];
	const struct ibex_fabric_node *n = &f->topo.nodes[s->node];
	const struct ibex_fabric_link *lk =
		&f->topo.links[n->port[s->topo_port[p]].link];
	uint64_t ps = lk->delay_ps + f->switch_latency_ps;

	char m[24];

	if (!cp->pfc_headroom_auto || cp->pfc_cable_m != IBEX_CONF_PFC_CABLE_M)
		return 0;
	/* (the grammar's longest cable: a link of over 500 us) */
	snprintf(m, sizeof(m), "%" PRIu64,
		 RTE_MIN(RTE_MAX((ps + 4999) / 5000, (uint64_t)1),
			 (uint64_t)IBEX_CONF_PFC_CABLE_M_MAX));
	return fc_line(s->conf, origin, err, errlen, "pfc %s cable-m %s",
		       cp->name, m);
}

/* The switch's buffer holds its ports' reserved shares and headroom and
 * keeps the shared pool at least half the size the file gave it (the
 * headroom of many long fast links does not fit 8 MB: 36 ports at 400G
 * need 11 MB); else it grows, as a deeper-buffered switch of the same
 * ports would. @return 0, or what parsing the line returned. */
static int
switch_conf_buffer_fit(struct fabric_switch *s, const char *origin,
		       char *err, size_t errlen)
{
	uint64_t carved, total = s->conf->buffer_blocks;
	char kb[24];
	uint16_t p;

	for (p = 0; p < s->conf->nb_ports; p++)
		ibex_conf_port_tables(&s->conf->ports[p]);
	carved = ibex_conf_buffer_carved_blocks(s->conf);
	if (carved <= total / 2)
		return 0;
	s->buffer_grown = true;
	snprintf(kb, sizeof(kb), "%" PRIu64, ((carved + total / 2) * 64 + 1023) /
					      1024);
	return fc_line(s->conf, origin, err, errlen, "buffer total %s%s", kb,
		       "KB");
}

/* --fc: the same flow control on every switch port, after the switch's
 * own lines (a later statement overrides an earlier one). With none,
 * the lanes the switch's file made lossless become lossy. */
static int
switch_conf_fc(const struct fabric *f, struct fabric_switch *s, char *err,
	       size_t errlen)
{
	char origin[64], vl[8];
	unsigned int v;
	uint16_t p;
	int ret;

	if (f->fc == NULL)
		return 0;
	snprintf(origin, sizeof(origin), "--fc %s", f->fc);
	snprintf(vl, sizeof(vl), "%u", f->fc_vl);
	for (p = 0; p < s->conf->nb_ports; p++) {
		const struct ibex_conf_port *cp = &s->conf->ports[p];
		const char *mode = f->fc;

		if (strcmp(mode, "credit-pfc") == 0)
			mode = fabric_port_faces_rank(f, s, p) ? "pfc" : "credit";
		for (v = 0, ret = 0; strcmp(mode, "none") == 0 &&
		     v < IBEX_VL_COUNT && ret == 0; v++) {
			snprintf(vl, sizeof(vl), "%u", v);
			if (cp->lossless_mask >> v & 1)
				ret = fc_line(s->conf, origin, err, errlen,
					      "lane %s vl %s lossy", cp->name, vl);
		}
		if (ret == 0)
			ret = fc_line(s->conf, origin, err, errlen,
				      "port %s fc %s", cp->name, mode);
		snprintf(vl, sizeof(vl), "%u", f->fc_vl);
		if (ret == 0 && strcmp(mode, "none") != 0)
			ret = fc_line(s->conf, origin, err, errlen,
				      "lane %s vl %s lossless", cp->name, vl);
		/* A CBFC lane's buffer is sized as a credit lane's window:
		 * the loop of its CF_Updates is the same link and switch. */
		if (ret == 0 && (strcmp(mode, "credit") == 0 ||
				 strcmp(mode, "cbfc") == 0))
			ret = credit_window_line(f, s, p, origin, err, errlen);
		if (ret == 0 && strcmp(mode, "cbfc") == 0 && f->cbfc)
			ret = fc_line(s->conf, origin, err, errlen,
				      "cbfc %s %s", cp->name, f->cbfc);
		if (ret == 0 && strcmp(mode, "pfc") == 0 && f->pfc_reaction_us) {
			char ns[24];

			snprintf(ns, sizeof(ns), "%" PRIu64,
				 (uint64_t)f->pfc_reaction_us * 1000);
			ret = fc_line(s->conf, origin, err, errlen,
				      "pfc %s proc-ns %s", cp->name, ns);
		}
		if (ret == 0 && strcmp(mode, "pfc") == 0)
			ret = pfc_cable_line(f, s, p, origin, err, errlen);
		if (ret == 0 && strcmp(mode, "pfc") == 0 && f->pfc_watchdog)
			ret = fc_line(s->conf, origin, err, errlen,
				      "pfc %s watchdog %s", cp->name,
				      f->pfc_watchdog);
		if (ret < 0)
			return ret;
	}
	/* PFC's headroom is what grows with the links; a credit lane's
	 * window is capped (2,048 blocks) and the switch's file sized it */
	if (strcmp(f->fc, "pfc") != 0 && strcmp(f->fc, "credit-pfc") != 0)
		return 0;
	return switch_conf_buffer_fit(s, origin, err, errlen);
}

uint32_t
fabric_rank_cbfc(const struct fabric *f, struct ibex_cbfc_conf *c)
{
	uint32_t limit = 0;
	unsigned int i;
	uint16_t p;

	for (i = 0; i < f->n_sw; i++) {
		const struct fabric_switch *s = &f->sw[i];

		for (p = 0; p < s->conf->nb_ports; p++) {
			const struct ibex_conf_port *cp = &s->conf->ports[p];
			struct ibex_cbfc_conf cc;
			char why[160];

			if (cp->fc_mode != IBEX_FC_CBFC ||
			    !fabric_port_faces_rank(f, s, p) ||
			    ibex_conf_port_cbfc(cp, &cc, why, sizeof(why)) < 0 ||
			    f->fc_vl >= cc.n_vcs)
				continue;
			if (limit == 0 || cc.vc_limit[f->fc_vl] < limit) {
				limit = cc.vc_limit[f->fc_vl];
				*c = cc;
			}
		}
	}
	return limit;
}

/* --ecmp: how every ECMP group of the switch chooses. */
static int
switch_conf_ecmp(const struct fabric *f, struct fabric_switch *s, char *err,
		 size_t errlen)
{
	char origin[96];
	uint16_t g;
	int ret;

	if (f->ecmp == NULL)
		return 0;
	snprintf(origin, sizeof(origin), "--ecmp %s", f->ecmp);
	for (g = 0; g < s->conf->nb_ecmp; g++) {
		ret = fc_line(s->conf, origin, err, errlen, "ecmp %s adaptive %s",
			      s->conf->ecmp[g].name, f->ecmp);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* A switch's name names its socket file and telemetry commands. */
static int
switch_name_check(const struct ibex_fabric *t, const struct ibex_fabric_node *n,
		  char *err, size_t errlen)
{
	size_t i, len = strlen(n->name);

	for (i = 0; i < len; i++)
		if (!isalnum((unsigned char)n->name[i]) && n->name[i] != '_' &&
		    n->name[i] != '-' && n->name[i] != '.')
			break;
	if (i == len && len < IBEX_NAME_LEN)
		return 0;
	snprintf(err, errlen, "%s:%d: switch '%s': ibex-fabric needs switch "
		 "names of letters, digits, '_', '-' and '.', at most %u (they "
		 "name its socket and telemetry)", t->origin, n->line, n->name,
		 IBEX_NAME_LEN - 1);
	return -EINVAL;
}

/* A switch's sending ring under the virtual clock: it commits a frame
 * only when the wire is free (tx_window=0), and its receiver is stepped
 * with it, so the ring holds what is in flight and what arrived since
 * the receiver's last poll, not the 8,192 frames a NIC's descriptors may
 * commit (net_ibexlink ring_slack): 2,048 slots (32 KB) on a 100G 500ns
 * link instead of 16,384 (256 KB). An overflow would show in the per-hop
 * report's "frames missed at a full RX ring". */
#define FABRIC_RING_SLACK 1024

/* ibex_conf_init()'s `fdb max-entries`, and the fewest a fabric switch
 * gets (docs/fabric.md, "How big a fabric one machine holds"). */
#define FABRIC_FDB_DEFAULT 65536u
#define FABRIC_FDB_MIN 1024u

static int
switch_conf(struct fabric *f, unsigned int i, uint16_t nb_workers, char *err,
	    size_t errlen)
{
	struct fabric_switch *s = &f->sw[i];
	const struct ibex_fabric_node *n;
	int ret;

	s->node = f->routes.sw[i];
	n = &f->topo.nodes[s->node];
	s->name = n->name;
	ret = switch_name_check(&f->topo, n, err, errlen);
	if (ret < 0)
		return ret;
	/* calloc's zero pages: a switch writes only the ports it has. */
	s->conf = calloc(1, sizeof(*s->conf));
	if (s->conf == NULL)
		return -ENOMEM;
	ibex_conf_init_zeroed(s->conf);
	ret = switch_conf_file(s->conf, &f->topo, n, err, errlen);
	if (ret == 0)
		ret = switch_conf_routes(s->conf, f, s->node, err, errlen);
	if (ret == 0)
		ret = switch_conf_ports(s, &f->topo, err, errlen);
	if (ret == 0)
		ret = switch_conf_fc(f, s, err, errlen);
	if (ret == 0)
		ret = switch_conf_ecmp(f, s, err, errlen);
	if (ret == 0)
		ret = switch_conf_agg(f, s, nb_workers, err, errlen);
	if (ret < 0)
		return ret;
	/* A fabric switch learns at most the ranks' MACs (the routes made
	 * them static entries): an FDB for them and FABRIC_FDB_MIN more,
	 * not the 65,536 entries (2 MB, every slot written at creation) a
	 * switch gets by default, unless the switch's own file chose a
	 * size. The FDB keeps its load under 1/2 by itself; at 10,000 ranks
	 * four entries a rank were 4 MB on each of 1,440 switches. */
	if (s->conf->fdb_max_entries == FABRIC_FDB_DEFAULT)
		s->conf->fdb_max_entries = f->routes.n_ranks + FABRIC_FDB_MIN;
	s->conf->nb_workers = nb_workers;
	return ibex_conf_finish(s->conf, err, errlen);
}

/* A warning about the topology (containerlab's keys it ignores). */
static void
topo_warn(void *arg, const char *msg)
{
	(void)arg;
	fprintf(stderr, "ibex-fabric: %s\n", msg);
}

/* Say once that --fc pfc grew switches' buffers, and to what. */
static void
buffer_grown_note(const struct fabric *f)
{
	uint64_t most = 0;
	unsigned int i, n = 0;

	for (i = 0; i < f->n_sw; i++) {
		if (!f->sw[i].buffer_grown)
			continue;
		n++;
		most = RTE_MAX(most, (uint64_t)f->sw[i].conf->buffer_blocks);
	}
	if (n != 0)
		fprintf(stderr, "ibex-fabric: --fc pfc: the buffer of %u of %u "
			"switches grew (to at most %.1f MB) so that their links' "
			"PFC headroom leaves half of it shared "
			"(docs/fabric.md, \"Flow control\")\n", n, f->n_sw,
			(double)most * 64 / (1 << 20));
}

static int links_llr_check(const struct fabric *f, char *err,
			   size_t errlen);

/* Job @p i's ranks into the generator's maps. @return 0, or -EINVAL
 * when one of them is in an earlier job already. */
static int
agg_job_ranks(struct fabric *f, uint32_t i, char *err, size_t errlen)
{
	const struct ibex_fabric_agg_req *q = &f->agg_req[i];
	const struct ibex_fabric_agg_tree *t = &f->agg_plan.tree[i];
	uint32_t j, k;
	int rk;

	for (j = 0; j < q->n_ranks; j++) {
		uint32_t r = q->ranks[j];

		if (f->agg_rank_slots[r] != 0) {
			snprintf(err, errlen, "--gen --engine inc: rank %u is "
				 "in two --agg jobs (job %u and job %u); a rank "
				 "of the generator runs one", r,
				 f->agg_rank_job[r], q->id);
			return -EINVAL;
		}
		f->agg_rank_job[r] = q->id;
		f->agg_rank_slots[r] = (uint16_t)q->n_slots;
	}
	if (q->n_slots > f->agg_slots_max)
		f->agg_slots_max = (uint16_t)q->n_slots;
	/* a leaf's children in the job's tree are its ranks there */
	for (j = 0; j < t->n_sw; j++)
		for (k = 0; k < t->sw[j].n_children; k++) {
			rk = rank_of(f, t->sw[j].child_node[k]);
			if (rk >= 0)
				f->agg_child[rk] = (uint16_t)k;
		}
	return 0;
}

int
fabric_agg_children(struct fabric *f, char *err, size_t errlen)
{
	uint32_t i, n = f->routes.n_ranks;
	int ret;

	if (!f->agg_planned || f->n_agg == 0)
		return 0;
	f->agg_child = calloc(n + 1, sizeof(*f->agg_child));
	f->agg_rank_job = calloc(n + 1, sizeof(*f->agg_rank_job));
	f->agg_rank_slots = calloc(n + 1, sizeof(*f->agg_rank_slots));
	if (f->agg_child == NULL || f->agg_rank_job == NULL ||
	    f->agg_rank_slots == NULL)
		return -ENOMEM;
	for (i = 0; i < f->n_agg; i++) {
		if (f->agg_plan.tree[i].refused)
			continue;
		ret = agg_job_ranks(f, i, err, errlen);
		if (ret < 0)
			return ret;
	}
	for (i = 0; i < n; i++)
		if (f->agg_rank_slots[i] == 0) {
			snprintf(err, errlen, "--gen --engine inc: rank %u is "
				 "in no --agg job with a tree (a refused job "
				 "runs as a ring, which --engine inc does not)",
				 i);
			return -EINVAL;
		}
	return 0;
}

/* --agg: plan the trees; a job no tree holds runs as a ring, said once. */
static int
fabric_agg_plan(struct fabric *f, char *err, size_t errlen)
{
	uint32_t i;
	int ret;

	if (f->n_agg == 0)
		return 0;
	ret = ibex_fabric_agg_plan(&f->topo, f->agg_req, f->n_agg,
				   f->agg_capacity, &f->agg_plan, err, errlen);
	if (ret < 0)
		return ret;
	f->agg_planned = true;
	for (i = 0; i < f->n_agg; i++) {
		const struct ibex_fabric_agg_tree *t = &f->agg_plan.tree[i];

		if (t->refused)
			fprintf(stderr, "ibex-fabric: --agg %s: refused, runs "
				"as a ring: %s\n", f->agg_req[i].name, t->why);
		else
			fprintf(stderr, "ibex-fabric: --agg %s (job %u): root "
				"%s, %u level%s, %u switch%s\n",
				f->agg_req[i].name, f->agg_req[i].id,
				f->topo.nodes[t->sw[0].node].name, t->depth,
				t->depth > 1 ? "s" : "", t->n_sw,
				t->n_sw > 1 ? "es" : "");
	}
	return 0;
}

int
fabric_load(struct fabric *f, const char *path, uint16_t nb_workers,
	    char *err, size_t errlen)
{
	const struct ibex_fabric_opts topts = {
		.kind_map = f->kind_map, .warn = topo_warn,
	};
	unsigned int i;
	int ret;

	ret = ibex_fabric_load_opts(&f->topo, path, &topts, err, errlen);
	if (ret < 0)
		return ret;
	f->topo.routing = (uint8_t)f->routing;
	ret = ibex_fabric_route(&f->topo, &f->routes, err, errlen);
	if (ret < 0)
		return ret;
	if (f->routes.n_ranks > IBEX_GEN_MAX_RANKS) {
		snprintf(err, errlen, "%s: %u ranks: one process runs at most "
			 "%u ranks", path, f->routes.n_ranks,
			 IBEX_GEN_MAX_RANKS);
		return -E2BIG;
	}
	f->rank_port = calloc(f->routes.n_ranks + 1, sizeof(*f->rank_port));
	f->rank_mac = calloc(f->routes.n_ranks + 1, sizeof(*f->rank_mac));
	if (f->rank_port == NULL || f->rank_mac == NULL) {
		snprintf(err, errlen, "%s: no memory for %u ranks", path,
			 f->routes.n_ranks);
		return -ENOMEM;
	}
	for (i = 0; i < f->routes.n_ranks; i++)
		memcpy(f->rank_mac[i], f->topo.nodes[f->routes.rk[i]].mac, 6);
	/* as many switches as the topology has */
	f->sw = calloc(f->routes.n_switches + 1, sizeof(*f->sw));
	f->ctl = calloc(f->routes.n_switches + 1, sizeof(*f->ctl));
	if (f->sw == NULL || f->ctl == NULL) {
		snprintf(err, errlen, "%s: no memory for %u switches", path,
			 f->routes.n_switches);
		return -ENOMEM;
	}
	f->n_sw = f->routes.n_switches;
	ret = fabric_agg_plan(f, err, errlen);
	if (ret < 0)
		return ret;
	for (i = 0; i < f->n_sw; i++) {
		ret = switch_conf(f, i, nb_workers, err, errlen);
		if (ret < 0)
			return ret;
	}
	buffer_grown_note(f);
	return links_llr_check(f, err, errlen);
}

/* The rank index of node @p node, or -1 for a switch. */
int
rank_of(const struct fabric *f, uint32_t node)
{
	uint32_t j;

	for (j = 0; j < f->routes.n_ranks; j++)
		if (f->routes.rk[j] == node)
			return (int)j;
	return -1;
}

bool
fabric_port_faces_rank(const struct fabric *f, const struct fabric_switch *s,
		       uint16_t p)
{
	const struct ibex_fabric_node *n = &f->topo.nodes[s->node];
	struct ibex_fabric_end e = { .node = s->node, .port = s->topo_port[p] };

	e = ibex_fabric_peer(&f->topo, n->port[e.port].link, e);
	return rank_of(f, e.node) >= 0;
}

/* Whether the switch end @p e of a link runs PFC on its port. */
static bool
end_runs_pfc(const struct fabric *f, struct ibex_fabric_end e)
{
	unsigned int i;
	int p;

	for (i = 0; i < f->n_sw; i++) {
		if (f->sw[i].node != e.node)
			continue;
		p = ibex_conf_port_find(f->sw[i].conf,
					f->topo.nodes[e.node].port[e.port].name);
		return p >= 0 && f->sw[i].conf->ports[p].fc_mode == IBEX_FC_PFC;
	}
	return false;
}

/* "node:port" of end @p e of link @p lk, for messages. */
static void
link_end_name(const struct fabric *f, const struct ibex_fabric_link *lk,
	      unsigned int e, char *buf, size_t len)
{
	const struct ibex_fabric_node *n = &f->topo.nodes[lk->end[e].node];

	snprintf(buf, len, "%s:%s", n->name, n->port[lk->end[e].port].name);
}

/* The LLR preset of link @p lk: its own `llr:`, else --llr's; NULL for
 * none. */
static const char *
link_llr(const struct fabric *f, const struct ibex_fabric_link *lk)
{
	const char *p = lk->llr[0] != '\0' ? lk->llr : f->llr;

	return p != NULL && strcmp(p, "off") != 0 ? p : NULL;
}

/* The MAC that obeys PFC has no LLR (net_ibexlink): a link with LLR whose
 * rank faces a switch port running PFC is refused, with its line, when
 * the fabric is loaded (so --check says it too). */
static int
links_llr_check(const struct fabric *f, char *err, size_t errlen)
{
	uint32_t l;
	unsigned int e;

	for (l = 0; l < f->topo.n_links; l++) {
		const struct ibex_fabric_link *lk = &f->topo.links[l];
		char name[2][IBEX_FABRIC_HOP_TO_LEN];

		if (link_llr(f, lk) == NULL)
			continue;
		for (e = 0; e < 2; e++) {
			if (rank_of(f, lk->end[e].node) < 0 ||
			    !end_runs_pfc(f, lk->end[1 - e]))
				continue;
			link_end_name(f, lk, 0, name[0], sizeof(name[0]));
			link_end_name(f, lk, 1, name[1], sizeof(name[1]));
			snprintf(err, errlen, "%s:%d: link %s - %s: LLR on a "
				 "link whose rank obeys PFC (%s runs fc pfc): "
				 "not supported, net_ibexlink has no LLR with "
				 "pfc=on", f->topo.origin, lk->line, name[0],
				 name[1], name[1 - e]);
			return -ENOTSUP;
		}
	}
	return 0;
}

/* One link: its first end with the wire's rate and delay, the second
 * naming the first; a rank's end obeys PFC as a NIC's MAC would when the
 * switch port it faces runs PFC. With LLR both ends get its profile: it
 * protects both directions whichever end asks. */
static int
link_create(struct fabric *f, uint32_t l, char *err, size_t errlen)
{
	const struct ibex_fabric_link *lk = &f->topo.links[l];
	char dev[2][RTE_DEV_NAME_MAX_LEN], args[2][224], llr[32] = "";
	char name[2][IBEX_FABRIC_HOP_TO_LEN];
	uint16_t ids[2];
	unsigned int e;
	int ret;

	for (e = 0; e < 2; e++)
		link_end_name(f, lk, e, name[e], sizeof(name[e]));
	if (link_llr(f, lk) != NULL)
		snprintf(llr, sizeof(llr), ",llr=%s", link_llr(f, lk));
	for (e = 0; e < 2; e++) {
		bool rank = rank_of(f, lk->end[e].node) >= 0;
		bool pfc = rank && end_runs_pfc(f, lk->end[1 - e]);

		fabric_link_dev(l, e, dev[e], sizeof(dev[e]));
		/* A switch's processing time is its egress wire's extra
		 * delay (--switch-latency); under the virtual clock its
		 * egress takes a frame only when the wire is free, as a
		 * switch's scheduler does, so its frames wait in its lanes
		 * where flow control and arbitration reach them. */
		snprintf(args[e], sizeof(args[e]), "rate=%" PRIu64 ",delay=%"
			 PRIu64 "ps,pfc=%s,loss=%.9g,corrupt=%.9g%s%s",
			 lk->rate_bps,
			 lk->delay_ps + (rank ? 0 : f->switch_latency_ps),
			 pfc ? "on" : "off", lk->loss, lk->corrupt,
			 !rank && f->virtual_clock ? ",tx_window=1ns,ring_slack="
			 RTE_STR(FABRIC_RING_SLACK) : "", llr);
	}
	/* In-process devices, not ethdevs: a fabric has more link ends than
	 * DPDK's RTE_MAX_ETHPORTS. */
	ret = ibexlink_pair_create(dev[0], args[0], dev[1], args[1], ids);
	if (ret < 0) {
		snprintf(err, errlen, "%s:%d: link %s - %s: cannot create "
			 "%s,%s / %s,%s: %s", f->topo.origin, lk->line,
			 name[0], name[1], dev[0], args[0], dev[1], args[1],
			 ret == -ENOSPC ? "more link ends than one process holds "
			 "(IBEX_PDEV_MAX)" : strerror(-ret));
		return ret;
	}
	for (e = 0; e < 2; e++) {
		int j = rank_of(f, lk->end[e].node);

		if (j >= 0)
			f->rank_port[j] = ids[e];
	}
	return 0;
}

int
fabric_links_create(struct fabric *f, char *err, size_t errlen)
{
	uint32_t l;
	int ret;

	if (2 * f->topo.n_links > IBEX_PDEV_MAX) {
		snprintf(err, errlen, "%s: %u links have %u ends; one process "
			 "holds %u (IBEX_PDEV_MAX): docs/fabric.md, \"How big a "
			 "fabric\"", f->topo.origin, f->topo.n_links,
			 2 * f->topo.n_links, IBEX_PDEV_MAX);
		return -E2BIG;
	}
	f->links_made = true;
	for (l = 0; l < f->topo.n_links; l++) {
		ret = link_create(f, l, err, errlen);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/*
 * One frame pool and one flow-control pool for all the switches: their
 * frames are the generator's mbufs, forwarded without a copy over the
 * in-process links, under either clock, so a pool of each switch's own
 * (>= 16,384 mbufs, tens of MB) would sit unused. Sized for the switch
 * that needs most (ibex_dp_shared_pool_min()) and the aggregation
 * results' copies; flow-control frames: the 1,023 one switch has, plus
 * FC_POOL_PER_PORT per switch port.
 */
#define FC_POOL_PER_PORT 8
#define FC_POOL_BASE 1023

/*
 * The mbufs the switches' aggregation results take: a result goes down
 * to every child as a copy, and each rank may hold a result of every slot
 * of its job at once (all of them arrive together under the virtual
 * clock): a job's ranks x its slots. Without them a 10,044-rank job's
 * results ran the pool dry (agg-nobuf) and the ranks waited out an RTO.
 */
static uint64_t
agg_pool_extra(const struct fabric *f)
{
	uint64_t n = 0;
	uint32_t i;

	if (!f->agg_planned)
		return 0;
	for (i = 0; i < f->n_agg; i++)
		if (!f->agg_plan.tree[i].refused)
			n += (uint64_t)f->agg_req[i].n_ranks *
			     f->agg_req[i].n_slots;
	return n;
}

static int
shared_pools_create(struct fabric *f, char *err, size_t errlen)
{
	uint32_t n = 0, room = 0, ports = 0;
	unsigned int i;
	char name[RTE_MEMPOOL_NAMESIZE];

	for (i = 0; i < f->n_sw; i++) {
		const struct ibex_conf *c = f->sw[i].conf;

		n = RTE_MAX(n, ibex_dp_shared_pool_min(c, c->nb_workers));
		room = RTE_MAX(room, c->mbuf_size);
		ports += c->nb_ports;
	}
	n = (uint32_t)RTE_MIN((uint64_t)n + agg_pool_extra(f), UINT32_MAX / 2);
	snprintf(name, sizeof(name), "fabric_mbufs");
	f->pool = ibex_pdev_pool_create(name, n, 256,
					(uint16_t)(room + RTE_PKTMBUF_HEADROOM),
					(int)rte_socket_id());
	snprintf(name, sizeof(name), "fabric_fc");
	f->fc_pool = f->pool == NULL ? NULL :
		     ibex_pdev_pool_create(name, FC_POOL_BASE +
					   FC_POOL_PER_PORT * ports, 32,
					   RTE_PKTMBUF_HEADROOM + 128,
					   (int)rte_socket_id());
	if (f->fc_pool == NULL) {
		snprintf(err, errlen, "cannot create the switches' pool of %u "
			 "mbufs: %s (give EAL more memory with -m)", n,
			 rte_strerror(rte_errno));
		return -ENOMEM;
	}
	ibex_dp_shared_pools_set(f->pool, f->fc_pool);
	return 0;
}

int
fabric_switches_create(struct fabric *f, const char *sock_dir, char *err,
		       size_t errlen)
{
	char msg[512], path[PATH_MAX];
	unsigned int i;
	int ret;

	ret = shared_pools_create(f, err, errlen);
	if (ret < 0)
		return ret;
	for (i = 0; i < f->n_sw; i++) {
		struct ibex_ctl_switch *c = &f->ctl[i];

		ret = ibex_dp_create(&c->dp, f->sw[i].conf, msg, sizeof(msg));
		if (ret == 0)
			snprintf(c->dp->name, sizeof(c->dp->name), "%s",
				 f->sw[i].name);
		if (ret == 0 && sock_dir != NULL) {
			snprintf(path, sizeof(path), "%s/" IBEX_CTL_SOCK_SWITCH_FMT,
				 sock_dir, f->sw[i].name);
			ret = ibex_sock_create(&c->sock, &(struct ibex_sock_params){
				.dp = c->dp, .conf = f->sw[i].conf,
				.path = path }, msg, sizeof(msg));
		}
		if (ret < 0) {
			snprintf(err, errlen, "switch %s: %s", f->sw[i].name, msg);
			return ret;
		}
	}
	return 0;
}

void
fabric_free(struct fabric *f)
{
	char dev[RTE_DEV_NAME_MAX_LEN];
	unsigned int i;
	uint32_t l;

	for (i = 0; i < f->n_sw; i++) {
		ibex_sock_destroy(f->ctl[i].sock);
		ibex_dp_destroy(f->ctl[i].dp);
		free(f->sw[i].conf);
	}
	if (f->agg_planned)
		ibex_fabric_agg_plan_free(&f->agg_plan);
	f->agg_planned = false;
	free(f->agg_child);
	free(f->agg_rank_job);
	free(f->agg_rank_slots);
	f->agg_child = NULL;
	f->agg_rank_job = NULL;
	f->agg_rank_slots = NULL;
	/* The ranks' ends (the switches closed theirs). */
	for (l = 0; f->links_made && l < f->topo.n_links; l++) {
		unsigned int e;

		for (e = 0; e < 2; e++) {
			uint16_t pid;

			fabric_link_dev(l, e, dev, sizeof(dev));
			if (ibex_pdev_get_by_name(dev, &pid) == 0)
				ibex_pdev_close(pid);
		}
	}
	ibex_dp_shared_pools_set(NULL, NULL);
	rte_mempool_free(f->fc_pool);
	rte_mempool_free(f->pool);
	f->pool = f->fc_pool = NULL;
	free(f->sw);
	free(f->ctl);
	free(f->rank_port);
	free(f->rank_mac);
	f->rank_port = NULL;
	f->rank_mac = NULL;
	f->sw = NULL;
	f->ctl = NULL;
	f->n_sw = 0;
	ibex_fabric_routes_free(&f->routes);
	ibex_fabric_free(&f->topo);
}
