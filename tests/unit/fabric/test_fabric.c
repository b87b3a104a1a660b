/* SPDX-License-Identifier: BSD-3-Clause */
/* lib/fabric without EAL: the example topologies parsed and routed (2x1,
 * 4x2 with 16 and 64 ranks), up/down legality, a cycle-free channel
 * dependency graph, balanced ECMP, the flooding tree (rendered as flood
 * off on the ports off it, a spanning tree of the switches), routes
 * rendered into ibex's grammar and accepted by lib/conf, broken
 * topologies refused with file:line, and containerlab's own files: its
 * keys warned about once each, its endpoint forms and interface names,
 * the kind map, its link types and unknown keys refused. */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "ibex_conf.h"
#include "ibex_fabric.h"

static char err[1024];

static void
load(struct ibex_fabric *f, struct ibex_fabric_routes *r, const char *file)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", FABRIC_CONF_DIR, file);
	if (ibex_fabric_load(f, path, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	if (ibex_fabric_route(f, r, err, sizeof(err)) != 0)
		fail_msg("%s", err);
}

static uint32_t
node(const struct ibex_fabric *f, const char *name)
{
	uint32_t n = ibex_fabric_node_find(f, name);

	assert_true(n != IBEX_FABRIC_NONE);
	return n;
}

static uint32_t
sw_idx(const struct ibex_fabric_routes *r, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < r->n_switches; i++)
		if (r->sw[i] == n)
			return i;
	fail_msg("not a switch");
	return 0;
}

static uint32_t
rk_idx(const struct ibex_fabric_routes *r, uint32_t n)
{
	uint32_t j;

	for (j = 0; j < r->n_ranks; j++)
		if (r->rk[j] == n)
			return j;
	fail_msg("not a rank");
	return 0;
}

static const char *
port_name(const struct ibex_fabric *f, uint32_t n, uint16_t p)
{
	return f->nodes[n].port[p].name;
}

/* ---- channel dependency graph: directed switch-to-switch hops ---- */

struct cdg {
	uint32_t n;        /* channels: 2 per link */
	uint8_t *edge;     /* n x n */
	uint8_t *mark;
};

static uint32_t
channel(const struct ibex_fabric *f, uint32_t s, uint16_t p)
{
	uint32_t l = f->nodes[s].port[p].link;

	return l * 2 + (f->links[l].end[0].node == s ? 0 : 1);
}

/* Follow every ECMP member from switch @p s towards rank index @p j,
 * adding an edge from the channel it came in on to each one it leaves on. */
static void
cdg_walk(const struct ibex_fabric *f, const struct ibex_fabric_routes *r,
	 struct cdg *g, uint32_t s, uint32_t j, uint32_t in, unsigned int depth)
{
	const struct ibex_fabric_route *rt =
		ibex_fabric_route_get(r, sw_idx(r, s), j);
	uint16_t k;

	assert_true(depth < 64);
	for (k = 0; k < rt->n_ports; k++) {
		struct ibex_fabric_end e = { s, rt->port[k] };
		struct ibex_fabric_end o =
			ibex_fabric_peer(f, f->nodes[s].port[rt->port[k]].link, e);
		uint32_t out;

		if (f->nodes[o.node].kind == IBEX_FABRIC_RANK) {
			assert_true(o.node == r->rk[j]);
			continue;
		}
		out = channel(f, s, rt->port[k]);
		if (in != UINT32_MAX)
			g->edge[(size_t)in * g->n + out] = 1;
		cdg_walk(f, r, g, o.node, j, out, depth + 1);
	}
}

static bool
cdg_cyclic_from(struct cdg *g, uint32_t c)
{
	uint32_t d;

	if (g->mark[c] == 1)
		return true;
	if (g->mark[c] == 2)
		return false;
	g->mark[c] = 1;
	for (d = 0; d < g->n; d++)
		if (g->edge[(size_t)c * g->n + d] && cdg_cyclic_from(g, d))
			return true;
	g->mark[c] = 2;
	return false;
}

static void
assert_deadlock_free(const struct ibex_fabric *f,
		     const struct ibex_fabric_routes *r)
{
	struct cdg g = { .n = f->n_links * 2 };
	uint32_t i, j, c;

	g.edge = calloc((size_t)g.n * g.n, 1);
	g.mark = calloc(g.n, 1);
	assert_non_null(g.edge);
	assert_non_null(g.mark);
	for (i = 0; i < r->n_switches; i++)
		for (j = 0; j < r->n_ranks; j++)
			cdg_walk(f, r, &g, r->sw[i], j, UINT32_MAX, 0);
	for (c = 0; c < g.n; c++)
		assert_false(cdg_cyclic_from(&g, c));
	free(g.edge);
	free(g.mark);
}

/* Switch node @p n's rendered part, appended to its own config (if it has
 * one), parsed and validated by lib/conf; the text in *@p text. */
static struct ibex_conf *
render_conf_own(const struct ibex_fabric *f,
		const struct ibex_fabric_routes *r, uint32_t n,
		const char *own, char **text)
{
	struct ibex_conf *c = calloc(1, sizeof(*c));
	char *buf = NULL, path[512];
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	assert_non_null(c);
	assert_non_null(out);
	assert_int_equal(ibex_fabric_render(f, r, n, out), 0);
	fclose(out);
	ibex_conf_init(c);
	if (f->nodes[n].config[0] != '\0') {
		snprintf(path, sizeof(path), "%s/%s", FABRIC_CONF_DIR,
			 f->nodes[n].config);
		if (ibex_conf_parse_file(c, path, err, sizeof(err)) != 0)
			fail_msg("%s", err);
	}
	if (own != NULL &&
	    ibex_conf_parse_string(c, own, "own", err, sizeof(err)) != 0)
		fail_msg("%s", err);
	if (ibex_conf_parse_string(c, buf, "rendered", err, sizeof(err)) != 0 ||
	    ibex_conf_validate(c, err, sizeof(err)) != 0)
		fail_msg("%s\n%s", err, buf);
	*text = buf;
	return c;
}

/* The same, the switch's own config being only its config file. */
static struct ibex_conf *
render_conf(const struct ibex_fabric *f, const struct ibex_fabric_routes *r,
	    uint32_t n, char **text)
{
	return render_conf_own(f, r, n, NULL, text);
}

/* The rendered part is accepted and validated by lib/conf. */
static void
assert_renders(const struct ibex_fabric *f, const struct ibex_fabric_routes *r,
	       uint32_t n, unsigned int want_statics)
{
	char *buf;
	struct ibex_conf *c = render_conf(f, r, n, &buf);
	uint32_t i, j, k;

	assert_int_equal(c->nb_static, want_statics);
	/* a rank with several equal-cost ports is reached through a group
	 * of exactly those ports */
	for (i = 0; i < r->n_switches && r->sw[i] != n; i++)
		;
	for (j = 0, k = 0; j < r->n_ranks; j++) {
		const struct ibex_fabric_route *rt = ibex_fabric_route_get(r, i, j);

		if (rt->n_ports < 2)
			continue;
		for (k = 0; k < c->nb_static; k++)
			if (memcmp(c->statics[k].mac, f->nodes[r->rk[j]].mac,
				   6) == 0)
				break;
		assert_true(k < c->nb_static);
		assert_true(ibex_egress_is_ecmp(c->statics[k].port));
		assert_int_equal(c->ecmp[c->statics[k].port & 0xff].n,
				 rt->n_ports);
	}
	free(buf);
	free(c);
}

static uint32_t
uf_root(uint32_t *up, uint32_t x)
{
	while (up[x] != x)
		x = up[x] = up[up[x]];
	return x;
}

/*
 * The flooding tree as the rendered configs say it: on every switch the
 * ports with flood off are exactly its linked ports off the tree, both
 * ends of a link agree, every port to a rank floods, and the switch links
 * that flood form a spanning tree of the switches (each joins two parts
 * not yet joined, so no cycle; n - 1 of them, so every switch reached).
 */
static void
assert_flood_tree(const struct ibex_fabric *f,
		  const struct ibex_fabric_routes *r)
{
	bool (*fl)[IBEX_MAX_PORTS] = calloc(f->n_nodes, sizeof(*fl));
	uint32_t *up = calloc(f->n_nodes, sizeof(uint32_t));
	uint32_t i, l, tree = 0;
	uint16_t p;

	assert_non_null(fl);
	assert_non_null(up);
	for (i = 0; i < r->n_switches; i++) {
		uint32_t n = r->sw[i];
		const struct ibex_fabric_node *nd = &f->nodes[n];
		char *buf;
		struct ibex_conf *c = render_conf(f, r, n, &buf);
		int k;

		for (k = 0; k < c->nb_ports; k++) {
			/* a port off the tree is one of the node's links */
			if (c->ports[k].flood)
				continue;
			for (p = 0; p < nd->n_ports; p++)
				if (strcmp(nd->port[p].name,
					   c->ports[k].name) == 0)
					break;
			assert_true(p < nd->n_ports);
			assert_true(nd->port[p].link != IBEX_FABRIC_NONE);
		}
		for (p = 0; p < nd->n_ports; p++) {
			if (nd->port[p].link == IBEX_FABRIC_NONE)
				continue;
			k = ibex_conf_port_find(c, nd->port[p].name);
			assert_true(k >= 0);
			fl[n][p] = c->ports[k].flood;
			if (fl[n][p] != r->flood[n][p])
				fail_msg("%s %s: flood %d, tree %d\n%s",
					 nd->name, nd->port[p].name, fl[n][p],
					 r->flood[n][p], buf);
		}
		free(buf);
		free(c);
	}
	for (i = 0; i < f->n_nodes; i++)
		up[i] = i;
	for (l = 0; l < f->n_links; l++) {
		const struct ibex_fabric_end *e = f->links[l].end;
		bool a = fl[e[0].node][e[0].port], b = fl[e[1].node][e[1].port];

		if (f->nodes[e[0].node].kind == IBEX_FABRIC_RANK ||
		    f->nodes[e[1].node].kind == IBEX_FABRIC_RANK) {
			assert_true(a || b);
			assert_true(f->nodes[e[0].node].kind ==
				    IBEX_FABRIC_RANK ? b : a);
			continue;
		}
		assert_int_equal(a, b);
		if (!a)
			continue;
		assert_true(uf_root(up, e[0].node) != uf_root(up, e[1].node));
		up[uf_root(up, e[0].node)] = uf_root(up, e[1].node);
		tree++;
	}
	assert_int_equal(tree, r->n_switches - 1);
	for (i = 1; i < r->n_switches; i++)
		assert_int_equal(uf_root(up, r->sw[i]), uf_root(up, r->sw[0]));
	free(fl);
	free(up);
}

/* Port @p p carries the fabric's lane tables: lane count, PCP -> SL,
 * SL -> VL, arbiter, and the lossless lanes when the fabric names them. */
static void
assert_port_lanes(const struct ibex_fabric_lanes *l,
		  const struct ibex_conf_port *p)
{
	const struct ibex_conf_port *w = &l->port;
	unsigned int i;

	assert_int_equal(p->nb_vls, w->nb_vls);
	assert_memory_equal(&p->sl_class.map[IBEX_SL_MAP_PCP],
			    &w->sl_class.map[IBEX_SL_MAP_PCP], 8);
	for (i = 0; i < IBEX_SL_COUNT; i++)
		assert_int_equal(ibex_sl2vl(&p->sl2vl, i),
				 ibex_sl2vl(&w->sl2vl, i));
	assert_int_equal(p->vlarb.nb_high, w->vlarb.nb_high);
	assert_int_equal(p->vlarb.nb_low, w->vlarb.nb_low);
	assert_memory_equal(p->vlarb.high, w->vlarb.high,
			    w->vlarb.nb_high * sizeof(w->vlarb.high[0]));
	assert_memory_equal(p->vlarb.low, w->vlarb.low,
			    w->vlarb.nb_low * sizeof(w->vlarb.low[0]));
	assert_int_equal(p->vlarb.limit, w->vlarb.limit);
	assert_int_equal(p->vlarb.strict, w->vlarb.strict);
	if (l->lossless_set)
		assert_int_equal(p->lossless_mask, w->lossless_mask);
	/* classified by DSCP: the mode and the whole table */
	if (w->sl_class.mode == IBEX_SL_FROM_DSCP) {
		assert_int_equal(p->sl_class.mode, IBEX_SL_FROM_DSCP);
		assert_memory_equal(&p->sl_class.map[IBEX_SL_MAP_DSCP],
				    &w->sl_class.map[IBEX_SL_MAP_DSCP], 64);
	}
}

/* Every linked port of every switch, as rendered (after the switch's own
 * config, and @p own if given), has the fabric's lane tables: each hop
 * maps an SL to the same VL. */
static void
assert_lanes_everywhere(const struct ibex_fabric *f,
			const struct ibex_fabric_routes *r, const char *own)
{
	uint32_t i;
	uint16_t p;

	assert_true(f->lanes.set);
	for (i = 0; i < r->n_switches; i++) {
		const struct ibex_fabric_node *nd = &f->nodes[r->sw[i]];
		char *buf;
		struct ibex_conf *c = render_conf_own(f, r, r->sw[i], own, &buf);

		for (p = 0; p < nd->n_ports; p++) {
			int k = ibex_conf_port_find(c, nd->port[p].name);

			if (nd->port[p].link == IBEX_FABRIC_NONE)
				continue;
			assert_true(k >= 0);
			assert_port_lanes(&f->lanes, &c->ports[k]);
		}
		free(buf);
		free(c);
	}
}

/* ---- the examples ---- */

static void
test_leaf2_spine1(void **state)
{
	struct ibex_fabric f;
	struct ibex_fabric_routes r;
	uint32_t l1, l2, sp, j;
	const struct ibex_fabric_route *rt;

	(void)state;
	load(&f, &r, "leaf2-spine1.yaml");
	assert_string_equal(f.name, "leaf2-spine1");
	assert_int_equal(r.n_switches, 3);
	assert_int_equal(r.n_ranks, 4);
	l1 = node(&f, "leaf1");
	l2 = node(&f, "leaf2");
	sp = node(&f, "spine1");
	assert_int_equal(f.nodes[l1].rank, 1);
	assert_int_equal(f.nodes[l2].rank, 1);
	assert_int_equal(f.nodes[sp].rank, 2);
	assert_true(f.links[f.nodes[l1].port[2].link].delay_ps == 1000000);
	assert_true(f.links[f.nodes[l1].port[0].link].delay_ps == 500000);
	assert_true(f.links[0].rate_bps == UINT64_C(100000000000));
	/* leaf1: its own ranks on p0/p1, the others up through p2 */
	j = rk_idx(&r, node(&f, "rank1"));
	rt = ibex_fabric_route_get(&r, sw_idx(&r, l1), j);
	assert_int_equal(rt->n_ports, 1);
	assert_string_equal(port_name(&f, l1, rt->chosen), "p1");
	assert_int_equal(rt->hops, 1);
	j = rk_idx(&r, node(&f, "rank3"));
	rt = ibex_fabric_route_get(&r, sw_idx(&r, l1), j);
	assert_string_equal(port_name(&f, l1, rt->chosen), "p2");
	assert_int_equal(rt->hops, 3);
	rt = ibex_fabric_route_get(&r, sw_idx(&r, sp), j);
	assert_string_equal(port_name(&f, sp, rt->chosen), "p1");
	assert_int_equal(rt->hops, 2);
	assert_true(ibex_fabric_routes_legal(&f, &r));
	assert_deadlock_free(&f, &r);
	/* a tree already: every port floods */
	assert_int_equal(r.root, sp);
	assert_true(r.flood[l1][2] && r.flood[l2][2] && r.flood[sp][0] &&
		    r.flood[sp][1] && r.flood[l1][0]);
	assert_renders(&f, &r, l1, 4);
	assert_renders(&f, &r, sp, 4);
	assert_flood_tree(&f, &r);
	/* lanes: PCP 3 -> SL 3 -> VL 3 lossless, the rest on VL 0 */
	assert_true(f.lanes.lossless_set);
	assert_int_equal(f.lanes.port.nb_vls, 4);
	assert_int_equal(f.lanes.port.sl_class.map[IBEX_SL_MAP_PCP + 3], 3);
	assert_int_equal(f.lanes.port.sl_class.map[IBEX_SL_MAP_PCP + 5], 0);
	assert_int_equal(ibex_sl2vl(&f.lanes.port.sl2vl, 3), 3);
	assert_int_equal(ibex_sl2vl(&f.lanes.port.sl2vl, 9), 0);
	assert_int_equal(f.lanes.port.lossless_mask, 1u << 3);
	assert_int_equal(f.lanes.port.vlarb.limit, 8);
	assert_lanes_everywhere(&f, &r, NULL);
	ibex_fabric_routes_free(&r);
	ibex_fabric_free(&f);
}

/* 4 leaves x 2 spines: every leaf-to-remote-rank route is an ECMP group of
 * both uplinks, destinations split evenly over them; one spine roots the
 * flooding tree and the other joins it by one link. */
static void
check_leaf4_spine2(const char *file, unsigned int per_leaf)
{
	struct ibex_fabric f;
	struct ibex_fabric_routes r;
	uint32_t i, j, tree_links = 0, n_sp2_tree = 0, sp1, sp2;
	uint16_t p;

	load(&f, &r, file);
	assert_int_equal(r.n_switches, 6);
	assert_int_equal(r.n_ranks, 4 * per_leaf);
	sp1 = node(&f, "spine1");
	sp2 = node(&f, "spine2");
	for (i = 0; i < r.n_switches; i++) {
		uint32_t s = r.sw[i];
		bool leaf = strncmp(f.nodes[s].name, "leaf", 4) == 0;
		unsigned int via[IBEX_MAX_PORTS] = { 0 };

		assert_int_equal(f.nodes[s].rank, leaf ? 1 : 2);
		for (j = 0; j < r.n_ranks; j++) {
			const struct ibex_fabric_route *rt =
				ibex_fabric_route_get(&r, i, j);
			struct ibex_fabric_end e = { r.rk[j], 0 };
			uint32_t home = ibex_fabric_peer(&f,
				f.nodes[r.rk[j]].port[0].link, e).node;

			if (!leaf) {
				assert_int_equal(rt->n_ports, 1);
				assert_int_equal(rt->hops, 2);
			} else if (home == s) {
				assert_int_equal(rt->n_ports, 1);
				assert_int_equal(rt->hops, 1);
			} else {
				/* both uplinks, p<per_leaf> and p<per_leaf+1> */
				assert_int_equal(rt->n_ports, 2);
				assert_int_equal(rt->port[0], per_leaf);
				assert_int_equal(rt->port[1], per_leaf + 1);
				assert_int_equal(rt->hops, 3);
				via[rt->chosen]++;
			}
		}
		if (leaf) {
			assert_int_equal(via[per_leaf], 3 * per_leaf / 2);
			assert_int_equal(via[per_leaf + 1], 3 * per_leaf / 2);
		}
		for (p = 0; p < f.nodes[s].n_ports; p++) {
			struct ibex_fabric_end e = { s, p };
			uint32_t l = f.nodes[s].port[p].link;

			if (l == IBEX_FABRIC_NONE)
				continue;
			if (f.nodes[ibex_fabric_peer(&f, l, e).node].kind ==
			    IBEX_FABRIC_RANK) {
				assert_true(r.flood[s][p]);
				continue;
			}
			if (r.flood[s][p])
				tree_links++;
			if (s == sp2 && r.flood[s][p])
				n_sp2_tree++;
		}
		assert_renders(&f, &r, s, 4 * per_leaf);
	}
	/* a spanning tree of 6 switches has 5 links (counted from both ends) */
	assert_int_equal(tree_links, 2 * 5);
	assert_int_equal(n_sp2_tree, 1);
	assert_int_equal(r.root, sp1);
	assert_flood_tree(&f, &r);
	if (f.lanes.set)
		assert_lanes_everywhere(&f, &r, NULL);
	else
		assert_int_equal(per_leaf, 16); /* the 64-rank one has none */
	assert_true(ibex_fabric_routes_legal(&f, &r));
	assert_deadlock_free(&f, &r);
	ibex_fabric_routes_free(&r);
	ibex_fabric_free(&f);
}

static void
test_leaf4_spine2_16(void **state)
{
	(void)state;
	check_leaf4_spine2("leaf4-spine2-16.yaml", 4);
}

static void
test_leaf4_spine2_64(void **state)
{
	(void)state;
	check_leaf4_spine2("leaf4-spine2-64.yaml", 16);
}

/* ---- inline topologies ---- */

static int
parse(struct ibex_fabric *f, const char *text)
{
	return ibex_fabric_parse(f, text, strlen(text), "t.yaml", err,
				 sizeof(err));
}

/* A link between two leaves (same rank): order by declaration breaks the
 * tie; routes stay legal and cycle-free, and use the direct link. */
static void
test_leaf_leaf_link(void **state)
{
	static const char *const text =
		"topology:\n"
		"  nodes:\n"
		"    s1: {kind: ibex}\n"
		"    l1: {kind: ibex}\n"
		"    l2: {kind: ibex}\n"
		"    a: {kind: rank}\n"
		"    b: {kind: rank}\n"
		"  links:\n"
		"    - endpoints: [\"a:e\", \"l1:h\"]\n"
		"    - endpoints: [\"b:e\", \"l2:h\"]\n"
		"    - endpoints: [\"l1:up\", \"s1:d1\"]\n"
		"    - endpoints: [\"l2:up\", \"s1:d2\"]\n"
		"    - endpoints: [\"l1:x\", \"l2:x\"]\n"
		"      rate: 25G\n";
	struct ibex_fabric f;
	struct ibex_fabric_routes r;
	const struct ibex_fabric_route *rt;
	uint32_t l1, l2;

	(void)state;
	if (parse(&f, text) != 0 || ibex_fabric_route(&f, &r, err, sizeof(err)))
		fail_msg("%s", err);
	l1 = node(&f, "l1");
	l2 = node(&f, "l2");
	rt = ibex_fabric_route_get(&r, sw_idx(&r, l1), rk_idx(&r, node(&f, "b")));
	assert_int_equal(rt->n_ports, 1);
	assert_string_equal(port_name(&f, l1, rt->chosen), "x");
	rt = ibex_fabric_route_get(&r, sw_idx(&r, l2), rk_idx(&r, node(&f, "a")));
	assert_string_equal(port_name(&f, l2, rt->chosen), "x");
	assert_true(f.links[4].rate_bps == UINT64_C(25000000000));
	/* a ring l1-l2-s1: the tree drops one of its links */
	assert_false(r.flood[l1][2] && r.flood[l2][2] && r.flood[l1][1] &&
		     r.flood[l2][1]);
	assert_flood_tree(&f, &r);
	assert_true(ibex_fabric_routes_legal(&f, &r));
	assert_deadlock_free(&f, &r);
	ibex_fabric_routes_free(&r);
	ibex_fabric_free(&f);
}

/* A switch whose own config sets lanes on a port: the fabric's tables,
 * rendered after it and written out in full, win entirely. */
static void
test_lanes_fabric_wins(void **state)
{
	static const char *const own =
		"port p0 vls 8\n"
		"pcp2sl p0 3:5\n"
		"sl2vl p0 3:1,5:2,7:drop\n"
		"vlarb p0 high 1:8 low 0:1,2:1 limit 2 strict\n";
	struct ibex_fabric f;
	struct ibex_fabric_routes r;

	(void)state;
	load(&f, &r, "leaf2-spine1.yaml");
	assert_lanes_everywhere(&f, &r, own);
	ibex_fabric_routes_free(&r);
	ibex_fabric_free(&f);
}

/* lanes: by DSCP, on fifteen lanes: every port of every switch gets the
 * mode and the whole DSCP table (the entries not given at their default,
 * DSCP >> 3). */
static void
test_lanes_dscp(void **state)
{
	static const char *const text =
		"topology:\n"
		"  lanes: {vls: 15, sl-from: dscp, dscp2sl: \"0:0,1:1,14:14\"}\n"
		"  nodes:\n"
		"    s1: {kind: ibex}\n"
		"    l1: {kind: ibex}\n"
		"    l2: {kind: ibex}\n"
		"    a: {kind: rank}\n"
		"    b: {kind: rank}\n"
		"  links:\n"
		"    - endpoints: [\"a:e\", \"l1:h\"]\n"
		"    - endpoints: [\"b:e\", \"l2:h\"]\n"
		"    - endpoints: [\"l1:up\", \"s1:d1\"]\n"
		"    - endpoints: [\"l2:up\", \"s1:d2\"]\n";
	struct ibex_fabric f;
	struct ibex_fabric_routes r;
	const struct ibex_conf_port *w;

	(void)state;
	if (parse(&f, text) != 0 || ibex_fabric_route(&f, &r, err, sizeof(err)))
		fail_msg("%s", err);
	w = &f.lanes.port;
	assert_int_equal(w->sl_class.mode, IBEX_SL_FROM_DSCP);
	assert_int_equal(w->sl_class.map[IBEX_SL_MAP_DSCP + 14], 14);
	assert_int_equal(w->sl_class.map[IBEX_SL_MAP_DSCP + 2], 0);  /* 2>>3 */
	assert_int_equal(w->sl_class.map[IBEX_SL_MAP_DSCP + 46], 5); /* EF */
	assert_lanes_everywhere(&f, &r, NULL);
	ibex_fabric_routes_free(&r);
	ibex_fabric_free(&f);
}

/* lanes: values refused with the line of the value that is wrong. */
static void
test_lanes_refused(void **state)
{
	static const char *const head =
		"topology:\n"
		"  lanes:\n";
	static const char *const tail =
		"  nodes:\n"
		"    l1: {kind: ibex}\n"
		"    a: {kind: rank}\n"
		"  links:\n"
		"    - endpoints: [\"a:e\", \"l1:p0\"]\n";
	static const struct { const char *lanes, *want; } bad[] = {
		{ "    vls: 3\n",
		  "t.yaml:3: lanes: vls: 3 is not one of: 1, 2, 4, 8, 15" },
		{ "    vls: 4\n    sl2vl: \"0:7\"\n",
		  "t.yaml:4: lanes: sl2vl: SL 0 maps to VL 7, which is not "
		  "operational (vls 4)" },
		{ "    vls: 4\n    sl2vl: \"0:x\"\n", "t.yaml:4: lanes: sl2vl: " },
		{ "    vls: 2\n    vlarb: \"high 5:1\"\n",
		  "t.yaml:4: lanes: vlarb high entry 0 names VL 5, not an "
		  "operational data VL (0..1)" },
		{ "    vls: 2\n    vlarb: \"low 0:0,1:1\"\n",
		  "t.yaml:4: lanes: VL 0 is in the SL->VL table but has no "
		  "vlarb entry of non-zero weight" },
		{ "    vls: 4\n    lossless: 20\n",
		  "t.yaml:4: lanes: lane: vl: 20 out of range 0..14" },
		{ "    vls: 4\n    lossless: [1, 9]\n",
		  "t.yaml:4: lanes: lane vl 9 is lossless but the port runs 4 "
		  "VLs (0..3)" },
		{ "    vls: 4\n    pcp2sl: \"9:1\"\n", "t.yaml:4: lanes: pcp2sl: " },
		{ "    sl2vl: \"0:0\"\n",
		  "t.yaml:3: lanes: vls is required" },
		{ "    vls: 4\n    sl2lv: \"0:0\"\n",
		  "t.yaml:4: lanes: unknown key 'sl2lv' (expected vls, "
		  "sl-from, pcp2sl, dscp2sl, sl2vl, vlarb, lossless)" },
		{ "    vls: 4\n    sl-from: bpf\n",
		  "t.yaml:4: lanes: sl-from 'bpf': pcp or dscp" },
		{ "    vls: 4\n    dscp2sl: \"64:1\"\n",
		  "t.yaml:4: lanes: dscp2sl: " },
		{ "    vls: {a: 1}\n", "t.yaml:3: lanes: expected a value" },
	};
	char text[1024];
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct ibex_fabric f;

		snprintf(text, sizeof(text), "%s%s%s", head, bad[i].lanes, tail);
		assert_int_equal(parse(&f, text), -EINVAL);
		if (strncmp(err, bad[i].want, strlen(bad[i].want)) != 0)
			fail_msg("case %u: got '%s', want '%s...'", i, err,
				 bad[i].want);
		printf("lanes refused, case %u: %s\n", i, err);
	}
	snprintf(text, sizeof(text), "topology:\n  lanes: 4\n%s", tail);
	{
		struct ibex_fabric f;

		assert_int_equal(parse(&f, text), -EINVAL);
		assert_non_null(strstr(err, "t.yaml:2: lanes: expected a "
				       "mapping"));
	}
}

struct bad {
	const char *text;
	const char *want;   /* "t.yaml:LINE: ..." prefix of the message */
	bool at_route;      /* parses, refused by the fabric manager */
};

static void
test_refused(void **state)
{
	static const struct bad bad[] = {
		/* a loop of switches no rank reaches: no up/down order */
		{ "topology:\n"
		  "  nodes:\n"
		  "    l1: {kind: ibex}\n"
		  "    a: {kind: rank}\n"
		  "    x1: {kind: ibex}\n"
		  "    x2: {kind: ibex}\n"
		  "    x3: {kind: ibex}\n"
		  "  links:\n"
		  "    - endpoints: [\"a:e\", \"l1:p0\"]\n"
		  "    - endpoints: [\"x1:p0\", \"x2:p0\"]\n"
		  "    - endpoints: [\"x2:p1\", \"x3:p0\"]\n"
		  "    - endpoints: [\"x3:p1\", \"x1:p1\"]\n",
		  "t.yaml:5: switch x1: no rank reaches it", true },
		/* an endpoint naming an unknown node */
		{ "topology:\n"
		  "  nodes:\n"
		  "    l1: {kind: ibex}\n"
		  "    a: {kind: rank}\n"
		  "  links:\n"
		  "    - endpoints: [\"a:e\", \"l1:p0\"]\n"
		  "    - endpoints: [\"l1:p1\", \"spine9:p0\"]\n",
		  "t.yaml:7: endpoint 'spine9:p0': unknown node 'spine9'" },
		/* an endpoint naming an unknown port */
		{ "topology:\n"
		  "  nodes:\n"
		  "    l1: {kind: ibex, ports: [p0, p1]}\n"
		  "    a: {kind: rank}\n"
		  "  links:\n"
		  "    - endpoints: [\"a:e\", \"l1:p3\"]\n",
		  "t.yaml:6: endpoint 'l1:p3': node l1 has no port 'p3'" },
		/* a duplicate link, written the other way round */
		{ "topology:\n"
		  "  nodes:\n"
		  "    l1: {kind: ibex}\n"
		  "    s1: {kind: ibex}\n"
		  "  links:\n"
		  "    - endpoints: [\"l1:p3\", \"s1:p0\"]\n"
		  "    - endpoints: [\"s1:p0\", \"l1:p3\"]\n",
		  "t.yaml:7: duplicate link s1:p0 - l1:p3 (first at line 6)" },
		/* one port, two links */
		{ "topology:\n"
		  "  nodes:\n"
		  "    l1: {kind: ibex}\n"
		  "    s1: {kind: ibex}\n"
		  "    s2: {kind: ibex}\n"
		  "  links:\n"
		  "    - endpoints: [\"l1:p3\", \"s1:p0\"]\n"
		  "    - endpoints: [\"l1:p3\", \"s2:p0\"]\n",
		  "t.yaml:8: port l1:p3 is already linked (line 7)" },
		{ "topology:\n"
		  "  nodes:\n"
		  "    l1: {kind: ibex}\n"
		  "    l1: {kind: rank}\n",
		  "t.yaml:4: duplicate key 'l1' (first at line 3)" },
		/* a key twice in one mapping: refused, never last-wins */
		{ "topology:\n"
		  "  nodes:\n"
		  "    l1: {kind: ibex, ports: 2, kind: rank}\n",
		  "t.yaml:3: duplicate key 'kind' (first at line 3)" },
		{ "topology:\n"
		  "  nodes:\n"
		  "    l1: {kind: ibex}\n"
		  "    a: {kind: rank}\n"
		  "  links:\n"
		  "    - endpoints: [\"a:e\", \"l1:p0\"]\n"
		  "      rate: 100G\n"
		  "      delay: 1us\n"
		  "      \"rate\": 10G\n",
		  "t.yaml:9: duplicate key 'rate' (first at line 7)" },
		{ "name: one\n"
		  "topology:\n"
		  "  defaults: {rate: 10G}\n"
		  "  nodes:\n"
		  "    l1: {kind: ibex}\n"
		  "  defaults: {rate: 40G}\n"
		  "name: two\n",
		  "t.yaml:6: duplicate key 'defaults' (first at line 3)" },
		/* two ranks, one MAC: given twice, or given as another's
		 * default (02:00:00:00:00:02, the 2nd node's) */
		{ "topology:\n"
		  "  nodes:\n"
		  "    l1: {kind: ibex}\n"
		  "    a: {kind: rank, mac: \"02:aa:00:00:00:01\"}\n"
		  "    b: {kind: rank}\n"
		  "    c: {kind: rank, mac: \"02:AA:00:00:00:01\"}\n"
		  "  links:\n"
		  "    - endpoints: [\"a:e\", \"l1:p0\"]\n"
		  "    - endpoints: [\"b:e\", \"l1:p1\"]\n"
		  "    - endpoints: [\"c:e\", \"l1:p2\"]\n",
		  "t.yaml:6: ranks a and c have the same MAC 02:aa:00:00:00:01 "
		  "(a at line 4)" },
		{ "topology:\n"
		  "  nodes:\n"
		  "    l1: {kind: ibex}\n"
		  "    a: {kind: rank}\n"
		  "    b: {kind: rank, mac: \"02:00:00:00:00:02\"}\n",
		  "t.yaml:5: ranks a and b have the same MAC 02:00:00:00:00:02 "
		  "(a at line 4)" },
		{ "topology:\n"
		  "  nodes:\n"
		  "    l1: {kind: linux}\n",
		  "t.yaml:3: node l1: unknown kind 'linux'" },
		{ "topology:\n"
		  "  nodes:\n"
		  "    l1: {kind: ibex, colour: blue}\n",
		  "t.yaml:3: node l1: unknown key 'colour' (expected kind, "
		  "config, mac, ports, partition, or one of containerlab's node keys)" },
		{ "topology:\n"
		  "  nodes:\n"
		  "    l1: {kind: ibex}\n"
		  "    a: {kind: rank}\n"
		  "  links:\n"
		  "    - endpoints: [\"a:e\", \"l1:p0\"]\n"
		  "      rate: fast\n",
		  "t.yaml:7: rate 'fast'" },
		{ "topology:\n"
		  "  nodes:\n"
		  "    l1: {kind: ibex}\n"
		  "    a: {kind: rank}\n"
		  "  links:\n"
		  "    - endpoints: [\"a:e\", \"l1:p0\"]\n"
		  "      delay: -5ns\n",
		  "t.yaml:7: delay '-5ns'" },
		{ "topology:\n"
		  "  nodes:\n"
		  "    l1: {kind: ibex}\n"
		  "    a: {kind: rank}\n"
		  "  links:\n"
		  "    - endpoints: [\"a:e\", \"l1:p0\"]\n"
		  "    - endpoints: [\"a:f\", \"l1:p1\"]\n",
		  "t.yaml:7: rank a has one link only" },
		{ "topology:\n"
		  "  nodes:\n"
		  "    l1: {kind: ibex}\n"
		  "    a: {kind: rank}\n"
		  "    b: {kind: rank}\n"
		  "  links:\n"
		  "    - endpoints: [\"a:e\", \"l1:p0\"]\n",
		  "t.yaml:5: rank b has no link", true },
		{ "topology:\n"
		  "  nodes:\n"
		  "    l1: {kind: ibex}\n"
		  "    l2: {kind: ibex}\n"
		  "    a: {kind: rank}\n"
		  "    b: {kind: rank}\n"
		  "  links:\n"
		  "    - endpoints: [\"a:e\", \"l1:p0\"]\n"
		  "    - endpoints: [\"b:e\", \"l2:p0\"]\n",
		  "t.yaml:4: switch l2 cannot reach rank a going up then down", true },
		{ "topology:\n"
		  "  nodes:\n"
		  "    l1: {kind: ibex}\n"
		  "  links:\n"
		  "    - endpoints: [\"l1p0\", \"l1:p1\"]\n",
		  "t.yaml:5: endpoint 'l1p0': expected NODE:PORT" },
		{ "topology:\n"
		  "  nodes:\n"
		  "    l1: {kind: ibex}\n"
		  "  links:\n"
		  "    - endpoints: [\"l1:p0\", \"l1:p1\"]\n",
		  "t.yaml:5: link l1:p0 - l1:p1 joins node l1 to itself" },
		{ "topology:\n"
		  "  nodes:\n"
		  "    l1: {kind: ibex, ports: 2}\n"
		  "    l1x: [\n",
		  "t.yaml:5: " },
		{ "nodes: {}\n", "t.yaml:1: unknown key 'nodes'" },
		{ "", "t.yaml:1: empty topology file" },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct ibex_fabric f;
		struct ibex_fabric_routes r;
		int ret = parse(&f, bad[i].text);

		if (bad[i].at_route) {
			if (ret != 0)
				fail_msg("case %u: %s", i, err);
			ret = ibex_fabric_route(&f, &r, err, sizeof(err));
			ibex_fabric_free(&f);
		}
		assert_int_equal(ret, -EINVAL);
		if (strncmp(err, bad[i].want, strlen(bad[i].want)) != 0)
			fail_msg("case %u: got '%s', want '%s...'", i, err,
				 bad[i].want);
	}
}

/* ---- containerlab's own files ---- */

static char warns[4096];

static void
warn_collect(void *arg, const char *msg)
{
	size_t n = strlen(warns);

	(*(unsigned int *)arg)++;
	snprintf(warns + n, sizeof(warns) - n, "%s\n", msg);
}

static int
parse_clab(struct ibex_fabric *f, const char *text, const char *kind_map,
	   unsigned int *n_warn)
{
	struct ibex_fabric_opts o = { .kind_map = kind_map,
				      .warn = warn_collect, .warn_arg = n_warn };

	warns[0] = '\0';
	*n_warn = 0;
	return ibex_fabric_parse_opts(f, text, strlen(text), "t.clab.yml", &o,
				      err, sizeof(err));
}

/* A clos in containerlab's shape: kinds with images, a node's kind from
 * its group and from the defaults, both endpoint forms, type: veth, and
 * containerlab's interface names. */
static const char *const clab_clos =
	"name: clos\n"                                           /* 1 */
	"prefix: lab\n"
	"mgmt: {network: m, ipv4-subnet: 172.20.20.0/24}\n"
	"topology:\n"
	"  defaults: {kind: linux, rate: 25G}\n"                 /* 5 */
	"  kinds:\n"
	"    nokia_srlinux: {image: ghcr.io/nokia/srlinux, type: ixrd3}\n"
	"    linux: {image: alpine}\n"
	"  groups:\n"
	"    spines: {kind: arista_ceos, image: ceos}\n"         /* 10 */
	"  nodes:\n"
	"    leaf1: {kind: nokia_srlinux, type: ixrd2, mgmt-ipv4: 172.20.20.2}\n"
	"    leaf2: {kind: nokia_srlinux, startup-config: l2.cfg, labels: {a: b}}\n"
	"    spine1: {group: spines}\n"
	"    h1:\n"                                              /* 15 */
	"    h2: {binds: [\"a:/a\"], env: {X: 1}, cmd: sh, ports: [\"80:8080\"]}\n"
	"  links:\n"
	"    - endpoints: [\"h1:eth1\", \"leaf1:ethernet-1/1\"]\n"
	"    - type: veth\n"
	"      mtu: 9000\n"                                      /* 20 */
	"      endpoints:\n"
	"        - {node: h2, interface: eth1, mac: \"02:00:00:00:00:99\"}\n"
	"        - {node: leaf2, interface: e1-1}\n"
	"    - endpoints: [\"leaf1:ethernet-1/49\", \"spine1:Ethernet1\"]\n"
	"      vars: {x: 1}\n"                                   /* 25 */
	"    - type: veth\n"
	"      endpoints: [{node: leaf2, interface: e1-49}, \"spine1:Ethernet2\"]\n";

static void
test_clab_clos(void **state)
{
	static const char *const want_warns =
		"t.clab.yml:2: warning: containerlab's top-level key 'prefix' ignored\n"
		"t.clab.yml:3: warning: containerlab's top-level key 'mgmt' ignored\n"
		"t.clab.yml:6: warning: containerlab's topology key 'kinds' ignored\n"
		"t.clab.yml:9: warning: containerlab's topology key 'groups' ignored\n"
		"t.clab.yml:12: warning: containerlab's node key 'type' ignored\n"
		"t.clab.yml:12: warning: containerlab's node key 'mgmt-ipv4' ignored\n"
		"t.clab.yml:13: warning: containerlab's node key 'startup-config' ignored\n"
		"t.clab.yml:13: warning: containerlab's node key 'labels' ignored\n"
		"t.clab.yml:14: warning: containerlab's node key 'group' ignored\n"
		"t.clab.yml:16: warning: containerlab's node key 'binds' ignored\n"
		"t.clab.yml:16: warning: containerlab's node key 'env' ignored\n"
		"t.clab.yml:16: warning: containerlab's node key 'cmd' ignored\n"
		"t.clab.yml:16: warning: containerlab's node key 'ports' ignored\n"
		"t.clab.yml:20: warning: containerlab's link key 'mtu' ignored\n"
		"t.clab.yml:22: warning: containerlab's endpoint key 'mac' ignored\n"
		"t.clab.yml:25: warning: containerlab's link key 'vars' ignored\n";
	struct ibex_fabric f;
	struct ibex_fabric_routes r;
	unsigned int nw;
	uint32_t n;

	(void)state;
	if (parse_clab(&f, clab_clos, "nokia_srlinux=ibex,linux=rank,"
		       "arista_ceos=ibex", &nw) != 0)
		fail_msg("%s", err);
	assert_string_equal(warns, want_warns);
	assert_int_equal(nw, 16);
	assert_string_equal(f.name, "clos");
	assert_int_equal(f.n_nodes, 5);
	assert_int_equal(f.n_links, 4);
	assert_int_equal(f.nodes[node(&f, "leaf1")].kind, IBEX_FABRIC_SWITCH);
	assert_int_equal(f.nodes[node(&f, "leaf2")].kind, IBEX_FABRIC_SWITCH);
	/* kind from its group */
	assert_int_equal(f.nodes[node(&f, "spine1")].kind, IBEX_FABRIC_SWITCH);
	/* kind from the defaults, with and without keys of its own */
	assert_int_equal(f.nodes[node(&f, "h1")].kind, IBEX_FABRIC_RANK);
	assert_int_equal(f.nodes[node(&f, "h2")].kind, IBEX_FABRIC_RANK);
	/* each interface a port, in natural order; '/' as '_' */
	n = node(&f, "leaf1");
	assert_int_equal(f.nodes[n].n_ports, 2);
	assert_string_equal(port_name(&f, n, 0), "ethernet-1_1");
	assert_string_equal(port_name(&f, n, 1), "ethernet-1_49");
	n = node(&f, "spine1");
	assert_int_equal(f.nodes[n].n_ports, 2);
	assert_string_equal(port_name(&f, n, 0), "Ethernet1");
	assert_string_equal(port_name(&f, n, 1), "Ethernet2");
	n = node(&f, "leaf2");
	assert_string_equal(port_name(&f, n, 0), "e1-1");
	assert_string_equal(port_name(&f, n, 1), "e1-49");
	assert_string_equal(port_name(&f, node(&f, "h2"), 0), "eth1");
	/* the defaults' rate for every link */
	assert_true(f.links[1].rate_bps == UINT64_C(25000000000));
	/* it routes, and the rendering is ibex's grammar */
	assert_int_equal(ibex_fabric_route(&f, &r, err, sizeof(err)), 0);
	assert_int_equal(r.n_switches, 3);
	assert_int_equal(r.n_ranks, 2);
	assert_true(ibex_fabric_routes_legal(&f, &r));
	for (n = 0; n < r.n_switches; n++)
		assert_renders(&f, &r, r.sw[n], r.n_ranks);
	ibex_fabric_routes_free(&r);
	ibex_fabric_free(&f);
}

/* A node's interfaces are its ports in their natural order, whatever
 * order the links come in, and each link's ends follow their ports. */
static void
test_clab_port_order(void **state)
{
	static const char *const text =
		"topology:\n"
		"  nodes:\n"
		"    leaf1: {kind: nokia_srlinux}\n"
		"    spine1: {kind: nokia_srlinux}\n"
		"    h1: {kind: linux}\n"
		"    h2: {kind: linux}\n"
		"    h3: {kind: linux}\n"
		"  links:\n"
		"    - endpoints: [\"leaf1:ethernet-1/49\", \"spine1:e1-1\"]\n"
		"    - endpoints: [\"h3:eth1\", \"leaf1:ethernet-1/10\"]\n"
		"    - endpoints: [\"h2:eth1\", \"leaf1:ethernet-1/2\"]\n"
		"    - endpoints: [\"h1:eth1\", \"leaf1:ethernet-1/1\"]\n";
	static const char *const want[] = {
		"ethernet-1_1", "ethernet-1_2", "ethernet-1_10", "ethernet-1_49"
	};
	static const char *const peer[] = { "h1", "h2", "h3", "spine1" };
	struct ibex_fabric f;
	struct ibex_fabric_routes r;
	struct ibex_fabric_end e, o;
	unsigned int nw;
	uint16_t p;

	(void)state;
	if (parse_clab(&f, text, "nokia_srlinux=ibex,linux=rank", &nw) != 0)
		fail_msg("%s", err);
	e.node = node(&f, "leaf1");
	assert_int_equal(f.nodes[e.node].n_ports, 4);
	for (p = 0; p < 4; p++) {
		assert_string_equal(port_name(&f, e.node, p), want[p]);
		e.port = p;
		o = ibex_fabric_peer(&f, f.nodes[e.node].port[p].link, e);
		assert_string_equal(f.nodes[o.node].name, peer[p]);
		/* and the link's other end names this port */
		o = ibex_fabric_peer(&f, f.nodes[e.node].port[p].link, o);
		assert_int_equal(o.node, e.node);
		assert_int_equal(o.port, p);
	}
	assert_int_equal(ibex_fabric_route(&f, &r, err, sizeof(err)), 0);
	assert_true(ibex_fabric_routes_legal(&f, &r));
	ibex_fabric_routes_free(&r);
	ibex_fabric_free(&f);
}

/* The file's ibex: kind-map:, and the command line's over it. */
static void
test_clab_kind_map(void **state)
{
	static const char *const text =
		"ibex:\n"
		"  kind-map: {nokia_srlinux: ibex, linux: ibex}\n"
		"topology:\n"
		"  nodes:\n"
		"    leaf1: {kind: nokia_srlinux}\n"
		"    h1: {kind: linux}\n"
		"  links:\n"
		"    - endpoints: [\"h1:eth1\", \"leaf1:e1-1\"]\n";
	struct ibex_fabric f;
	unsigned int nw;

	(void)state;
	if (parse_clab(&f, text, NULL, &nw) != 0)
		fail_msg("%s", err);
	assert_int_equal(nw, 0);
	assert_int_equal(f.nodes[node(&f, "h1")].kind, IBEX_FABRIC_SWITCH);
	ibex_fabric_free(&f);
	if (parse_clab(&f, text, "linux=rank", &nw) != 0)
		fail_msg("%s", err);
	assert_int_equal(f.nodes[node(&f, "h1")].kind, IBEX_FABRIC_RANK);
	assert_int_equal(f.nodes[node(&f, "leaf1")].kind, IBEX_FABRIC_SWITCH);
	ibex_fabric_free(&f);

	assert_int_equal(ibex_fabric_kind_map_check("linux=rank,srl=ibex", err,
						    sizeof(err)), 0);
	assert_int_equal(ibex_fabric_kind_map_check("linux", err,
						    sizeof(err)), -EINVAL);
	assert_string_equal(err, "--kind-map: 'linux': expected KIND=ibex or "
			    "KIND=rank");
	assert_int_equal(ibex_fabric_kind_map_check("linux=host", err,
						    sizeof(err)), -EINVAL);
	assert_string_equal(err, "--kind-map: kind 'linux': 'host' is neither "
			    "ibex (a switch) nor rank (a traffic endpoint)");
	assert_int_equal(ibex_fabric_kind_map_check("a=rank,a=ibex", err,
						    sizeof(err)), -EINVAL);
	assert_string_equal(err, "--kind-map: kind 'a' mapped twice");
	assert_int_equal(ibex_fabric_kind_map_check("ibex=rank", err,
						    sizeof(err)), -EINVAL);
	assert_int_equal(ibex_fabric_kind_map_check("", err, sizeof(err)),
			 -EINVAL);
	/* a bad map given to the parser: refused before the file */
	assert_int_equal(parse_clab(&f, text, "linux=", &nw), -EINVAL);
	assert_string_equal(err, "--kind-map: kind 'linux': '' is neither ibex "
			    "(a switch) nor rank (a traffic endpoint)");
}

/* What containerlab's files may hold that ibex-fabric refuses, each
 * with its line. */
static void
test_clab_refused(void **state)
{
#define CLAB_HEAD "topology:\n" \
		  "  nodes:\n" \
		  "    leaf1: {kind: nokia_srlinux}\n" \
		  "    h1: {kind: linux}\n" \
		  "  links:\n"
	static const struct bad bad[] = {
		{ CLAB_HEAD
		  "    - type: host\n"
		  "      endpoint: {node: h1, interface: eth1}\n"
		  "      host-interface: h1-eth1\n",
		  "t.clab.yml:6: link: type host joins a node to something "
		  "outside the lab (the host, a network): ibex-fabric reads "
		  "veth links only, between two nodes of the topology" },
		{ CLAB_HEAD
		  "    - endpoints: [\"h1:eth1\", \"leaf1:e1-1\"]\n"
		  "      type: mgmt-net\n",
		  "t.clab.yml:7: link: type mgmt-net joins" },
		{ CLAB_HEAD "    - {type: macvlan, endpoint: {node: h1}}\n",
		  "t.clab.yml:6: link: type macvlan joins" },
		{ CLAB_HEAD "    - {type: vxlan, endpoint: {node: h1}}\n",
		  "t.clab.yml:6: link: type vxlan joins" },
		{ CLAB_HEAD "    - {type: dummy, endpoint: {node: h1}}\n",
		  "t.clab.yml:6: link: type dummy joins" },
		{ CLAB_HEAD "    - {type: wire, endpoints: [\"h1:e\", \"leaf1:e\"]}\n",
		  "t.clab.yml:6: link: unknown type 'wire' (containerlab's are "
		  "veth," },
		{ CLAB_HEAD
		  "    - endpoints: [{node: h1, interface: eth1}, {node: leaf1}]\n",
		  "t.clab.yml:6: endpoint: both node and interface are "
		  "required" },
		{ CLAB_HEAD
		  "    - endpoints: [{node: h1, iface: eth1}, \"leaf1:e1\"]\n",
		  "t.clab.yml:6: endpoint: unknown key 'iface' (expected node, "
		  "interface)" },
		{ CLAB_HEAD
		  "    - endpoints: [{node: h9, interface: eth1}, \"leaf1:e1\"]\n",
		  "t.clab.yml:6: endpoint 'h9:eth1': unknown node 'h9'" },
		{ CLAB_HEAD
		  "    - endpoints: [\"h1:eth1\", \"leaf1:e1\"]\n"
		  "      speed: 10G\n",
		  "t.clab.yml:7: link: unknown key 'speed' (expected endpoints, "
		  "rate, delay, loss, corrupt, llr, or containerlab's type, mtu, "
		  "vars, labels)" },
		/* a link's LLR that is no preset */
		{ CLAB_HEAD
		  "    - endpoints: [\"h1:eth1\", \"leaf1:e1\"]\n"
		  "      llr: 100g-5m\n",
		  "t.clab.yml:7: llr '100g-5m': expected off, 200g-5m, 200g-40m, "
		  "400g-5m, 400g-40m or 800g-40m" },
		/* a link's fault that is no probability */
		{ CLAB_HEAD
		  "    - endpoints: [\"h1:eth1\", \"leaf1:e1\"]\n"
		  "      loss: 2\n",
		  "t.clab.yml:7: loss '2': expected a probability like 1e-4, "
		  "0.001, 0.5%" },
		/* an interface name ibex cannot take */
		{ CLAB_HEAD "    - endpoints: [\"h1:eth 1\", \"leaf1:e1\"]\n",
		  "t.clab.yml:6: node h1: port name 'eth 1'" },
		/* a kind nothing maps: direct, from the defaults, from a group */
		{ "topology:\n"
		  "  nodes:\n"
		  "    leaf1: {kind: nokia_srlinux}\n"
		  "    r1: {kind: juniper_crpd}\n",
		  "t.clab.yml:4: node r1: unknown kind 'juniper_crpd': map it to "
		  "ibex (a switch) or rank (a traffic endpoint): --kind-map "
		  "juniper_crpd=ibex|rank, or in the file ibex: {kind-map: "
		  "{juniper_crpd: ibex|rank}}" },
		{ "topology:\n"
		  "  defaults: {kind: sonic-vs}\n"
		  "  nodes:\n"
		  "    leaf1: {kind: nokia_srlinux}\n"
		  "    s1:\n",
		  "t.clab.yml:5: node s1: unknown kind 'sonic-vs' (the defaults' "
		  "kind, line 2): map it" },
		{ "topology:\n"
		  "  groups: {g: {kind: cisco_xrd}}\n"
		  "  nodes:\n"
		  "    s1: {group: g}\n",
		  "t.clab.yml:4: node s1: unknown kind 'cisco_xrd' (its group's "
		  "kind, line 2)" },
		{ "topology:\n"
		  "  nodes:\n"
		  "    s1: {image: foo}\n",
		  "t.clab.yml:3: node s1: kind is required" },
		/* keys neither ibex's nor containerlab's, where containerlab's
		 * are accepted */
		{ "name: x\nlabs: 3\n",
		  "t.clab.yml:2: unknown key 'labs' (expected name, topology, "
		  "ibex, or containerlab's prefix, mgmt, settings)" },
		{ "topology:\n  kinds: {linux: {image: a, colour: red}}\n",
		  "t.clab.yml:2: kinds: linux: unknown key 'colour' (not one of "
		  "containerlab's node keys)" },
		{ "topology:\n  groups: [a, b]\n",
		  "t.clab.yml:2: groups: expected a mapping" },
		{ "topology:\n  defaults: {kind: linux, colour: red}\n",
		  "t.clab.yml:2: defaults: unknown key 'colour'" },
		{ "topology:\n  nets: {}\n",
		  "t.clab.yml:2: topology: unknown key 'nets'" },
		{ "ibex: {kindmap: {linux: rank}}\n",
		  "t.clab.yml:1: ibex: unknown key 'kindmap' (expected "
		  "kind-map)" },
		{ "ibex:\n  kind-map: {linux: host}\n",
		  "t.clab.yml:2: ibex: kind-map: kind 'linux': 'host' is neither "
		  "ibex (a switch) nor rank" },
		{ "ibex:\n  kind-map: [linux]\n",
		  "t.clab.yml:2: ibex: kind-map: expected a mapping" },
	};
	unsigned int i, nw;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct ibex_fabric f;
		int ret = parse_clab(&f, bad[i].text, "nokia_srlinux=ibex,"
				     "linux=rank", &nw);

		assert_int_equal(ret, -EINVAL);
		if (strncmp(err, bad[i].want, strlen(bad[i].want)) != 0)
			fail_msg("case %u: got '%s', want '%s...'", i, err,
				 bad[i].want);
		/* a refused file says no warnings */
		assert_int_equal(nw, 0);
	}
#undef CLAB_HEAD
}

static void
test_missing_file(void **state)
{
	struct ibex_fabric f;

	(void)state;
	assert_int_equal(ibex_fabric_load(&f, "/nonexistent/x.yaml", err,
					  sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "/nonexistent/x.yaml"));
}

/*
 * 200 KB of nesting, three ways (flow lists on one line, block lists on
 * a line of their own, block lists one level per line): each refused at its 65th
 * level, with its line, in well under a second of CPU (the unbounded
 * parse took over a minute). 64 levels are still parsed (and refused
 * for what they are).
 */
static void
test_deep_nesting(void **state)
{
	enum { SIZE = 200 * 1024 };
	char *text = malloc(SIZE + 64);
	struct ibex_fabric f;
	struct timespec t0, t1;
	size_t n, d;
	double cpu;
	int kind;

	(void)state;
	assert_non_null(text);
	for (kind = 0; kind < 3; kind++) {
		n = (size_t)sprintf(text, "topology:\n  nodes:\n    x:%s",
				    kind == 1 ? "\n      " : " ");
		for (d = 0; n < SIZE; d++) {
			if (kind == 0) {
				text[n++] = '[';
			} else if (kind == 1) {
				text[n++] = '-';
				text[n++] = ' ';
			} else {
				/* "\n" + d spaces + "- " */
				if (n + d + 3 >= SIZE)
					break;
				text[n++] = '\n';
				memset(text + n, ' ', d + 4);
				n += d + 4;
				text[n++] = '-';
				text[n++] = ' ';
			}
		}
		memcpy(text + n, "x\n", 3);
		n += 2;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
		assert_int_equal(ibex_fabric_parse(&f, text, n, "t.yaml", err,
						   sizeof(err)), -EINVAL);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
		cpu = (double)(t1.tv_sec - t0.tv_sec) +
		      (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
		print_message("nesting kind %d: %zu bytes refused in %.3f s "
			      "CPU: %s\n", kind, n, cpu, err);
		assert_non_null(strstr(err, "nested more than 64 levels"));
		/* the 65th level (the 62nd list: three mappings hold
		 * them): on the line of the lists, or on its own */
		assert_int_equal(strncmp(err, kind == 0 ? "t.yaml:3: " :
					 kind == 1 ? "t.yaml:4: " :
					 "t.yaml:65:", 10), 0);
		assert_true(cpu < 0.5);
	}
	/* 64 levels: root, topology, nodes, then 61 lists */
	n = (size_t)sprintf(text, "topology:\n  nodes:\n    x: ");
	memset(text + n, '[', 61);
	memset(text + n + 61, ']', 61);
	n += 122;
	text[n] = '\0';
	assert_int_equal(parse(&f, text), -EINVAL);
	assert_null(strstr(err, "nested"));
	assert_non_null(strstr(err, "node x: expected a mapping"));
	free(text);
}

/* A directory opens for reading: refused as one, not as an empty read. */
static void
test_directory(void **state)
{
	struct ibex_fabric f;
	char want[600];

	(void)state;
	assert_int_equal(ibex_fabric_load(&f, FABRIC_CONF_DIR, err,
					  sizeof(err)), -EISDIR);
	snprintf(want, sizeof(want), "%s: is a directory", FABRIC_CONF_DIR);
	assert_string_equal(err, want);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_leaf2_spine1),
		cmocka_unit_test(test_leaf4_spine2_16),
		cmocka_unit_test(test_leaf4_spine2_64),
		cmocka_unit_test(test_leaf_leaf_link),
		cmocka_unit_test(test_lanes_fabric_wins),
		cmocka_unit_test(test_lanes_refused),
		cmocka_unit_test(test_lanes_dscp),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_clab_clos),
		cmocka_unit_test(test_clab_port_order),
		cmocka_unit_test(test_clab_kind_map),
		cmocka_unit_test(test_clab_refused),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_directory),
		cmocka_unit_test(test_deep_nesting),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
