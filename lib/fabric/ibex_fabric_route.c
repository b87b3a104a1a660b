/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The fabric manager: up/down ranks, per-switch routes to every rank with
 * their ECMP groups, the flooding tree, and the routes in ibex's grammar.
 *
 * Order. A switch's rank is its distance in hops from the nearest rank
 * (host): leaves 1, spines 2. Switches are totally ordered by (rank,
 * declaration index); a hop from a lower to a higher switch in that order
 * is "up", the reverse "down". Links to ranks are down hops.
 *
 * Routes, per destination rank h on leaf L (as OpenSM's up/down engine):
 *   down[s] = switch hops from s to h using down hops only (BFS from L
 *             over down hops taken backwards); L itself is 1.
 *   hops[s] = down[s] if finite (s goes down, and so does every switch
 *             below it on the way, since down[next] = down[s] - 1 is
 *             finite too), else 1 + min hops[t] over the up neighbours t
 *             (computed from the top of the order down).
 *   The egress ports of s are every port achieving that minimum: the
 *   ECMP group.
 * A packet therefore climbs while its switch has no down path and descends
 * once it has one; it never takes an up hop after a down hop. Every channel
 * dependency goes from an up hop to a higher up hop, from an up hop to a
 * down hop, or from a down hop to a lower down hop: ordering the channels
 * as (up hops by their upper end's order, then down hops by their upper
 * end's order reversed) makes every dependency increase, so the dependency
 * graph has no cycle and buffers held by credits or PFC cannot deadlock.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibex_fabric.h"
#include "ibex_pkt.h"

#define INF UINT32_MAX

static int __attribute__((format(printf, 5, 6)))
fail(const struct ibex_fabric *f, int line, char *err, size_t errlen,
     const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(err, errlen, "%s:%d: %s", f->origin, line, msg);
	return -EINVAL;
}

/* a before b in the up/down order */
static inline bool
below(const struct ibex_fabric *f, uint32_t a, uint32_t b)
{
	return f->nodes[a].rank < f->nodes[b].rank ||
	       (f->nodes[a].rank == f->nodes[b].rank && a < b);
}

static inline bool
is_switch(const struct ibex_fabric *f, uint32_t n)
{
	return f->nodes[n].kind == IBEX_FABRIC_SWITCH;
}

/* Neighbour of node @p n through port @p p, or IBEX_FABRIC_NONE. */
static uint32_t
neighbour(const struct ibex_fabric *f, uint32_t n, uint16_t p)
{
	struct ibex_fabric_end e = { n, p };
	uint32_t l = f->nodes[n].port[p].link;

	return l == IBEX_FABRIC_NONE ? IBEX_FABRIC_NONE :
	       ibex_fabric_peer(f, l, e).node;
}

/* Multi-source BFS from the ranks: each switch's rank. */
static int
rank_switches(struct ibex_fabric *f, uint32_t *queue, char *err, size_t errlen)
{
	uint32_t head = 0, tail = 0, i;
	uint16_t p;

	for (i = 0; i < f->n_nodes; i++) {
		f->nodes[i].rank = INF;
		if (!is_switch(f, i)) {
			f->nodes[i].rank = 0;
			queue[tail++] = i;
		}
	}
	while (head < tail) {
		uint32_t n = queue[head++];

		for (p = 0; p < f->nodes[n].n_ports; p++) {
			uint32_t m = neighbour(f, n, p);

			if (m != IBEX_FABRIC_NONE && f->nodes[m].rank == INF) {
				f->nodes[m].rank = f->nodes[n].rank + 1;
				queue[tail++] = m;
			}
		}
	}
	for (i = 0; i < f->n_nodes; i++) {
		if (f->nodes[i].rank == INF)
			return fail(f, f->nodes[i].line, err, errlen,
				    "switch %s: no rank reaches it, so it has no "
				    "place in the up/down order (switches looped "
				    "or cut off without ranks)", f->nodes[i].name);
	}
	return 0;
}

int
ibex_fabric_rank(struct ibex_fabric *f, char *err, size_t errlen)
{
	uint32_t *queue = calloc(f->n_nodes + 1, sizeof(*queue));
	int ret;

	if (queue == NULL) {
		snprintf(err, errlen, "%s: out of memory", f->origin);
		return -ENOMEM;
	}
	ret = rank_switches(f, queue, err, errlen);
	free(queue);
	return ret;
}

struct work {
	uint32_t *queue;     /* n_nodes */
	uint32_t *down;      /* per node */
	uint32_t *hops;      /* per node */
	uint32_t *order;     /* switches, top of the order first */
	uint32_t *sw_index;  /* node -> switch index */
	uint32_t *load;      /* per (switch index, port): destinations routed */
};

static struct work *
work_alloc(const struct ibex_fabric *f, uint32_t n_sw)
{
	struct work *w = calloc(1, sizeof(*w));

	if (w == NULL)
		return NULL;
	w->queue = calloc(f->n_nodes + 1, sizeof(uint32_t));
	w->down = calloc(f->n_nodes, sizeof(uint32_t));
	w->hops = calloc(f->n_nodes, sizeof(uint32_t));
	w->order = calloc(n_sw + 1, sizeof(uint32_t));
	w->sw_index = calloc(f->n_nodes, sizeof(uint32_t));
	w->load = calloc((size_t)(n_sw + 1) * IBEX_MAX_PORTS, sizeof(uint32_t));
	if (w->queue == NULL || w->down == NULL || w->hops == NULL ||
	    w->order == NULL || w->sw_index == NULL || w->load == NULL) {
		free(w->queue); free(w->down); free(w->hops);
		free(w->order); free(w->sw_index); free(w->load);
		free(w);
		return NULL;
	}
	return w;
}

static void
work_free(struct work *w)
{
	free(w->queue); free(w->down); free(w->hops);
	free(w->order); free(w->sw_index); free(w->load);
	free(w);
}

static int
cmp_top_first(const void *a, const void *b, void *arg)
{
	const struct ibex_fabric *f = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return below(f, x, y) ? 1 : below(f, y, x) ? -1 : 0;
}

/* down[] for destination rank @p h: BFS from its leaf over down hops
 * taken backwards (from a switch to the switches above it); with
 * shortest-path routing over every switch link, every hop counting as
 * down. */
static void
down_bfs(const struct ibex_fabric *f, struct work *w, uint32_t leaf)
{
	bool any = f->routing == IBEX_FABRIC_SHORTEST;
	uint32_t head = 0, tail = 0, i;
	uint16_t p;

	for (i = 0; i < f->n_nodes; i++)
		w->down[i] = INF;
	w->down[leaf] = 1;
	w->queue[tail++] = leaf;
	while (head < tail) {
		uint32_t v = w->queue[head++];

		for (p = 0; p < f->nodes[v].n_ports; p++) {
			uint32_t u = neighbour(f, v, p);

			if (u == IBEX_FABRIC_NONE || !is_switch(f, u) ||
			    (!any && !below(f, v, u)) || w->down[u] != INF)
				continue;
			w->down[u] = w->down[v] + 1;
			w->queue[tail++] = u;
		}
	}
}

/* Route of switch @p s to rank @p h (attached to @p leaf by @p lport). */
static int
route_one(const struct ibex_fabric *f, struct work *w, uint32_t s,
	  uint32_t h, uint32_t leaf, uint16_t lport,
	  struct ibex_fabric_route *rt)
{
	uint32_t *load = &w->load[(size_t)w->sw_index[s] * IBEX_MAX_PORTS];
	bool any = f->routing == IBEX_FABRIC_SHORTEST;
	uint16_t p, best = 0;

	memset(rt, 0, sizeof(*rt));
	if (s == leaf) {
		rt->n_ports = 1;
		rt->port[0] = lport;
		rt->hops = 1;
	} else {
		bool go_down = w->down[s] != INF;

		for (p = 0; p < f->nodes[s].n_ports; p++) {
			uint32_t t = neighbour(f, s, p);

			if (t == IBEX_FABRIC_NONE || !is_switch(f, t))
				continue;
			if (go_down ? ((any || below(f, t, s)) &&
				       w->down[t] + 1 == w->down[s]) :
				      (below(f, s, t) && w->hops[t] != INF &&
				       w->hops[t] + 1 == w->hops[s])) {
				if (rt->n_ports < IBEX_FABRIC_MAX_ECMP)
					rt->port[rt->n_ports++] = p;
			}
		}
		if (rt->n_ports == 0)
			return -ENOENT;
		rt->hops = (uint16_t)w->hops[s];
	}
	/* Balance destinations over the group, as OpenSM spreads LIDs. */
	for (p = 1; p < rt->n_ports; p++)
		if (load[rt->port[p]] < load[rt->port[best]])
			best = p;
	rt->chosen = rt->port[best];
	load[rt->chosen]++;
	(void)h;
	return 0;
}

/* Every switch's route to rank index @p j. */
static int
routes_to(const struct ibex_fabric *f, struct ibex_fabric_routes *r,
	  struct work *w, uint32_t j, char *err, size_t errlen)
{
	uint32_t h = r->rk[j], i;
	struct ibex_fabric_end e = { h, 0 };
	struct ibex_fabric_end at = ibex_fabric_peer(f, f->nodes[h].port[0].link,
						     e);
	uint32_t leaf = at.node;

	down_bfs(f, w, leaf);
	/* hops from the top of the order down: up neighbours come first */
	for (i = 0; i < r->n_switches; i++) {
		uint32_t s = w->order[i];
		uint16_t p;

		w->hops[s] = w->down[s];
		if (w->hops[s] != INF)
			continue;
		for (p = 0; p < f->nodes[s].n_ports; p++) {
			uint32_t t = neighbour(f, s, p);

			if (t != IBEX_FABRIC_NONE && is_switch(f, t) &&
			    below(f, s, t) && w->hops[t] != INF &&
			    w->hops[t] + 1 < w->hops[s])
				w->hops[s] = w->hops[t] + 1;
		}
	}
	for (i = 0; i < r->n_switches; i++) {
		uint32_t s = r->sw[i];

		if (route_one(f, w, s, h, leaf, at.port,
			      &r->route[(size_t)i * r->n_ranks + j]) != 0)
			return fail(f, f->nodes[s].line, err, errlen,
				    "switch %s cannot reach rank %s%s",
				    f->nodes[s].name, f->nodes[h].name,
				    f->routing == IBEX_FABRIC_SHORTEST ? "" :
				    " going up then down");
	}
	return 0;
}

/* BFS tree over the switches from the top switch of the lowest index;
 * ports to ranks always flood. */
static void
flood_tree(const struct ibex_fabric *f, struct ibex_fabric_routes *r,
	   struct work *w)
{
	uint32_t head = 0, tail = 0, i, root = r->sw[0];
	bool *seen = (bool *)w->down; /* reuse: n_nodes entries suffice */
	uint16_t p;

	for (i = 0; i < r->n_switches; i++) {
		uint32_t s = r->sw[i];

		if (f->nodes[s].rank > f->nodes[root].rank)
			root = s;
	}
	r->root = root;
	memset(w->down, 0, sizeof(uint32_t) * f->n_nodes);
	seen[root] = true;
	w->queue[tail++] = root;
	while (head < tail) {
		uint32_t n = w->queue[head++];

		for (p = 0; p < f->nodes[n].n_ports; p++) {
			uint32_t m = neighbour(f, n, p);
			struct ibex_fabric_end e = { n, p }, o;

			if (m == IBEX_FABRIC_NONE)
				continue;
			if (!is_switch(f, m)) {
				r->flood[n][p] = true;
				continue;
			}
			if (seen[m])
				continue;
			seen[m] = true;
			o = ibex_fabric_peer(f, f->nodes[n].port[p].link, e);
			r->flood[n][p] = true;
			r->flood[m][o.port] = true;
			w->queue[tail++] = m;
		}
	}
}

void
ibex_fabric_routes_free(struct ibex_fabric_routes *r)
{
	free(r->sw);
	free(r->rk);
	free(r->route);
	free(r->flood);
	memset(r, 0, sizeof(*r));
}

int
ibex_fabric_route(struct ibex_fabric *f, struct ibex_fabric_routes *r,
		  char *err, size_t errlen)
{
	struct work *w = NULL;
	uint32_t i, j;
	int ret;

	memset(r, 0, sizeof(*r));
	for (i = 0; i < f->n_nodes; i++) {
		const struct ibex_fabric_node *n = &f->nodes[i];

		if (n->kind == IBEX_FABRIC_SWITCH) {
			r->n_switches++;
		} else {
			if (n->n_ports != 1 || n->port[0].link == IBEX_FABRIC_NONE)
				return fail(f, n->line, err, errlen, "rank %s "
					    "has no link", n->name);
			r->n_ranks++;
		}
	}
	if (r->n_switches == 0 || r->n_ranks == 0)
		return fail(f, 1, err, errlen, "a fabric needs at least one "
			    "ibex switch and one rank");
	r->sw = calloc(r->n_switches, sizeof(uint32_t));
	r->rk = calloc(r->n_ranks, sizeof(uint32_t));
	r->route = calloc((size_t)r->n_switches * r->n_ranks,
			  sizeof(*r->route));
	r->flood = calloc(f->n_nodes, sizeof(*r->flood));
	w = work_alloc(f, r->n_switches);
	ret = -ENOMEM;
	if (r->sw == NULL || r->rk == NULL || r->route == NULL ||
	    r->flood == NULL || w == NULL) {
		snprintf(err, errlen, "%s: out of memory", f->origin);
		goto fail;
	}
	r->n_switches = r->n_ranks = 0;
	for (i = 0; i < f->n_nodes; i++) {
		if (is_switch(f, i)) {
			w->sw_index[i] = r->n_switches;
			r->sw[r->n_switches++] = i;
		} else {
			r->rk[r->n_ranks++] = i;
		}
	}
	ret = rank_switches(f, w->queue, err, errlen);
	if (ret != 0)
		goto fail;
	memcpy(w->order, r->sw, sizeof(uint32_t) * r->n_switches);
	qsort_r(w->order, r->n_switches, sizeof(uint32_t), cmp_top_first, f);
	for (j = 0; j < r->n_ranks; j++) {
		ret = routes_to(f, r, w, j, err, errlen);
		if (ret != 0)
			goto fail;
	}
	flood_tree(f, r, w);
	work_free(w);
	return 0;
fail:
	if (w != NULL)
		work_free(w);
	ibex_fabric_routes_free(r);
	return ret;
}

/* Every ECMP member's path from @p s reaches rank @p h, up hops only
 * before the first down hop, within @p budget switch hops. */
static bool
legal_from(const struct ibex_fabric *f, const struct ibex_fabric_routes *r,
	   const uint32_t *sw_index, uint32_t s, uint32_t j, bool went_down,
	   unsigned int budget)
{
	const struct ibex_fabric_route *rt =
		ibex_fabric_route_get(r, sw_index[s], j);
	uint16_t k;

	if (budget == 0)
		return false;
	for (k = 0; k < rt->n_ports; k++) {
		uint32_t t = neighbour(f, s, rt->port[k]);

		if (t == r->rk[j])
			continue;
		if (t == IBEX_FABRIC_NONE || !is_switch(f, t))
			return false;
		if (below(f, s, t) && went_down)
			return false; /* up after down */
		if (!legal_from(f, r, sw_index, t, j,
				went_down || below(f, t, s), budget - 1))
			return false;
	}
	return rt->n_ports > 0;
}

bool
ibex_fabric_routes_legal(const struct ibex_fabric *f,
			 const struct ibex_fabric_routes *r)
{
	uint32_t *sw_index = calloc(f->n_nodes, sizeof(uint32_t));
	uint32_t i, j;
	bool ok = sw_index != NULL;

	for (i = 0; ok && i < r->n_switches; i++)
		sw_index[r->sw[i]] = i;
	for (i = 0; ok && i < r->n_switches; i++)
		for (j = 0; ok && j < r->n_ranks; j++)
			ok = legal_from(f, r, sw_index, r->sw[i], j, false,
					r->n_switches + 1);
	free(sw_index);
	return ok;
}

static const char *
rate_str(uint64_t bps, char *buf, size_t len)
{
	if (bps % 1000000000 == 0)
		snprintf(buf, len, "%" PRIu64 "G", bps / 1000000000);
	else if (bps % 1000000 == 0)
		snprintf(buf, len, "%" PRIu64 "M", bps / 1000000);
	else
		snprintf(buf, len, "%" PRIu64, bps);
	return buf;
}

/* The ECMP groups of switch @p i's routes, each set of members once, as
 * `ecmp ecmpN ports P,P` lines; @p group[j] is rank j's group, or -1 for
 * a route with one port. @return how many groups. */
static unsigned int
render_groups(const struct ibex_fabric *f, const struct ibex_fabric_routes *r,
	      uint32_t i, const struct ibex_fabric_node *n, int *group,
	      FILE *out)
{
	const struct ibex_fabric_route *first[IBEX_MAX_ECMP_GROUPS];
	unsigned int ng = 0, g;
	uint32_t j;
	uint16_t k;

	(void)f;
	for (j = 0; j < r->n_ranks; j++) {
		const struct ibex_fabric_route *rt = ibex_fabric_route_get(r, i, j);

		group[j] = -1;
		if (rt->n_ports < 2)
			continue;
		for (g = 0; g < ng; g++)
			if (first[g]->n_ports == rt->n_ports &&
			    memcmp(first[g]->port, rt->port,
				   rt->n_ports * sizeof(rt->port[0])) == 0)
				break;
		if (g == ng) {
			if (ng == IBEX_MAX_ECMP_GROUPS)
				continue; /* the chosen member's entry stays */
			first[ng++] = rt;
			fprintf(out, "ecmp ecmp%u ports ", g);
			for (k = 0; k < rt->n_ports; k++)
				fprintf(out, "%s%s", k ? "," : "",
					n->port[rt->port[k]].name);
			fprintf(out, "\n");
		}
		group[j] = (int)g;
	}
	return ng;
}

/* One arbiter table as `vlarb` writes it: "vl:weight,..." or "none". */
static void
render_arb(FILE *out, const char *part, const struct ibex_vlarb_entry *e,
	   unsigned int n)
{
	unsigned int k;

	fprintf(out, " %s %s", part, n == 0 ? "none" : "");
	for (k = 0; k < n; k++)
		fprintf(out, "%s%u:%u", k ? "," : "", e[k].vl, e[k].weight);
}

/*
 * The fabric's lane tables (topology lanes:) on port @p name: the lane
 * count, then every PCP (and DSCP, when it classifies by DSCP), every SL
 * and both arbiter tables written out in
 * full, so that they replace whatever the switch's own configuration set
 * before (the rendered part comes last, and a statement changes only
 * what it names: a partial table would keep some of the switch's).
 */
static void
render_lanes(const struct ibex_fabric_lanes *l, const char *name, FILE *out)
{
	const struct ibex_conf_port *p = &l->port;
	unsigned int i;

	fprintf(out, "port %s vls %u\npcp2sl %s ", name, p->nb_vls, name);
	for (i = 0; i < 8; i++)
		fprintf(out, "%s%u:%u", i ? "," : "", i,
			p->sl_class.map[IBEX_SL_MAP_PCP + i]);
	/* by DSCP (lanes: sl-from: dscp): the mode and its whole table */
	if (p->sl_class.mode == IBEX_SL_FROM_DSCP) {
		fprintf(out, "\nport %s sl-from dscp\ndscp2sl %s ", name, name);
		for (i = 0; i < 64; i++)
			fprintf(out, "%s%u:%u", i ? "," : "", i,
				p->sl_class.map[IBEX_SL_MAP_DSCP + i]);
	}
	fprintf(out, "\nsl2vl %s ", name);
	for (i = 0; i < IBEX_SL_COUNT; i++) {
		unsigned int vl = ibex_sl2vl(&p->sl2vl, i);

		if (ibex_vl_is_drop(vl))
			fprintf(out, "%s%u:drop", i ? "," : "", i);
		else
			fprintf(out, "%s%u:%u", i ? "," : "", i, vl);
	}
	fprintf(out, "\nvlarb %s", name);
	render_arb(out, "high", p->vlarb.high, p->vlarb.nb_high);
	render_arb(out, "low", p->vlarb.low, p->vlarb.nb_low);
	fprintf(out, " limit %u %s\n", p->vlarb.limit,
		p->vlarb.strict ? "strict" : "carry");
	if (!l->lossless_set)
		return;
	for (i = 0; i < p->nb_vls; i++)
		fprintf(out, "lane %s vl %u %s\n", name, i,
			(p->lossless_mask >> i) & 1 ? "lossless" : "lossy");
}

/* The flooding tree: a comment naming its ports, and `port P flood off`
 * for every linked port off it, so broadcast and unknown unicast cannot
 * go round a loop of switches (both ends of an off-tree link are off). */
static void
render_flood(const struct ibex_fabric_routes *r, uint32_t node,
	     const struct ibex_fabric_node *n, FILE *out)
{
	uint16_t p;

	fprintf(out, "# flooding tree:");
	for (p = 0; p < n->n_ports; p++)
		if (n->port[p].link != IBEX_FABRIC_NONE && r->flood[node][p])
			fprintf(out, " %s", n->port[p].name);
	fprintf(out, "\n");
	for (p = 0; p < n->n_ports; p++)
		if (n->port[p].link != IBEX_FABRIC_NONE && !r->flood[node][p])
			fprintf(out, "port %s flood off  # off the flooding "
				"tree\n", n->port[p].name);
}

int
ibex_fabric_render(const struct ibex_fabric *f,
		   const struct ibex_fabric_routes *r, uint32_t node, FILE *out)
{
	const struct ibex_fabric_node *n;
	uint32_t i, j;
	uint16_t p;
	char mac[24], rate[32];
	int *group;

	if (node >= f->n_nodes || !is_switch(f, node))
		return -EINVAL;
	n = &f->nodes[node];
	for (i = 0; i < r->n_switches && r->sw[i] != node; i++)
		;
	fprintf(out, "# fabric %s (%s): switch %s, up/down rank %u%s\n",
		f->name[0] ? f->name : "-", f->origin, n->name, n->rank,
		r->root == node ? ", root of the flooding tree" : "");
	fprintf(out, "# computed by ibex's fabric manager; append to %s\n",
		n->config[0] ? n->config : "the switch's configuration");
	for (p = 0; p < n->n_ports; p++) {
		if (n->port[p].link == IBEX_FABRIC_NONE)
			continue;
		fprintf(out, "port %s speed %s\n", n->port[p].name,
			rate_str(f->links[n->port[p].link].rate_bps, rate,
				 sizeof(rate)));
	}
	if (f->lanes.set)
		fprintf(out, "# lanes of the fabric (%s:%d): the same tables on "
			"every port; they replace the switch's own\n",
			f->origin, f->lanes.line);
	for (p = 0; f->lanes.set && p < n->n_ports; p++)
		if (n->port[p].link != IBEX_FABRIC_NONE)
			render_lanes(&f->lanes, n->port[p].name, out);
	group = calloc(r->n_ranks ? r->n_ranks : 1, sizeof(*group));
	if (group == NULL)
		return -ENOMEM;
	render_groups(f, r, i, n, group, out);
	for (j = 0; j < r->n_ranks; j++) {
		const struct ibex_fabric_route *rt = ibex_fabric_route_get(r, i, j);

		ibex_mac_format(f->nodes[r->rk[j]].mac, mac, sizeof(mac));
		if (group[j] >= 0)
			fprintf(out, "fdb static %s ecmp ecmp%d  # %s, %u hops\n",
				mac, group[j], f->nodes[r->rk[j]].name,
				rt->hops);
		else
			fprintf(out, "fdb static %s port %s\n", mac,
				n->port[rt->chosen].name);
	}
	free(group);
	render_flood(r, node, n, out);
	return ferror(out) ? -EIO : 0;
}
