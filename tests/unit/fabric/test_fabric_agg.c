/* SPDX-License-Identifier: BSD-3-Clause */
/* lib/fabric's aggregation trees (ibex_fabric_agg.c) without EAL: a
 * leaf-spine job is rooted at a spine, its leaves' children its ranks in
 * rank order; a job on one leaf is that leaf; jobs spread over the spines
 * and a fat tree's cores and aggregation switches; a pod's job stays in
 * the pod; a job short of slots tries another root, then is refused with
 * the switch that was short, and takes nothing; bad requests are refused
 * with their reason; the job syntax; the printed plan. */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ibex_common.h"
#include "ibex_conf.h"
#include "ibex_fabric.h"
#include "ibex_fabric_agg.h"
#include "ibex_topo.h"

static char err[1024];

static void
load(struct ibex_fabric *f, const struct ibex_topo *t)
{
	char *buf = NULL;
	size_t len;
	FILE *m = open_memstream(&buf, &len);

	assert_non_null(m);
	assert_int_equal(ibex_topo_write(t, m, err, sizeof(err)), 0);
	assert_int_equal(fclose(m), 0);
	if (ibex_fabric_parse(f, buf, len, "t.yaml", err, sizeof(err)) != 0)
		fail_msg("parse: %s", err);
	if (ibex_fabric_rank(f, err, sizeof(err)) != 0)
		fail_msg("rank: %s", err);
	free(buf);
}

static void
leaf_spine(struct ibex_fabric *f, uint32_t leaves, uint32_t spines,
	   uint32_t per_leaf)
{
	struct ibex_topo t;

	ibex_topo_init(&t, IBEX_TOPO_LEAF_SPINE);
	t.leaves = leaves;
	t.spines = spines;
	t.ranks_per_leaf = per_leaf;
	load(f, &t);
}

static void
fattree(struct ibex_fabric *f, uint32_t k)
{
	struct ibex_topo t;

	ibex_topo_init(&t, IBEX_TOPO_FATTREE);
	t.k = k;
	load(f, &t);
}

static struct ibex_fabric_agg_req
job(const char *spec)
{
	struct ibex_fabric_agg_req r;

	if (ibex_fabric_agg_req_parse(spec, &r, err, sizeof(err)) != 0)
		fail_msg("%s: %s", spec, err);
	return r;
}

static void
jobs_free(struct ibex_fabric_agg_req *r, unsigned int n)
{
	while (n-- > 0)
		free(r[n].ranks);
}

static const char *
name(const struct ibex_fabric *f, uint32_t node)
{
	return f->nodes[node].name;
}

static const char *
port(const struct ibex_fabric *f, uint32_t node, uint16_t p)
{
	return f->nodes[node].port[p].name;
}

static char *
plan_text(const struct ibex_fabric *f, const struct ibex_fabric_agg_req *r,
	  const struct ibex_fabric_agg_plan *pl, uint32_t cap)
{
	char *buf = NULL;
	size_t len;
	FILE *m = open_memstream(&buf, &len);

	assert_non_null(m);
	assert_int_equal(ibex_fabric_agg_plan_print(f, r, pl, cap, m), 0);
	assert_int_equal(fclose(m), 0);
	return buf;
}

/* 4 leaves of 4 ranks, 2 spines: a job on all 16 at spine0, its leaves
 * in port order, each leaf's ranks in rank order; the next at spine1; a
 * job of one leaf is that leaf alone. */
static void
test_leaf_spine(void **state)
{
	struct ibex_fabric f;
	struct ibex_fabric_agg_req r[3] = { job("a:1:0-15"), job("b:2:0-15"),
					    job("c:3:4-7:8") };
	struct ibex_fabric_agg_plan pl;
	const struct ibex_fabric_agg_tree *t;
	uint32_t i, k;

	(void)state;
	leaf_spine(&f, 4, 2, 4);
	assert_int_equal(ibex_fabric_agg_plan(&f, r, 3, 256, &pl, err,
					      sizeof(err)), 0);
	t = &pl.tree[0];
	assert_false(t->refused);
	assert_int_equal(t->n_sw, 5);
	assert_int_equal(t->depth, 2);
	assert_string_equal(name(&f, t->sw[0].node), "spine0");
	assert_int_equal(t->sw[0].parent, IBEX_FABRIC_NONE);
	assert_int_equal(t->sw[0].n_children, 4);
	for (i = 1; i < 5; i++) {
		const struct ibex_fabric_agg_sw *s = &t->sw[i];
		char want[16];

		snprintf(want, sizeof(want), "leaf%u", i - 1);
		assert_string_equal(name(&f, s->node), want);
		assert_int_equal(s->parent, 0);
		assert_int_equal(s->up_child, i - 1);
		assert_int_equal(t->sw[0].child_node[i - 1], s->node);
		/* a leaf's uplinks follow its 4 rank ports */
		assert_string_equal(port(&f, s->node, s->up_port), "p4");
		assert_int_equal(s->n_children, 4);
		for (k = 0; k < 4; k++) {
			snprintf(want, sizeof(want), "rank%02u",
				 (i - 1) * 4 + k);
			assert_string_equal(name(&f, s->child_node[k]), want);
		}
	}
	/* the second job of the same ranks: the other spine */
	assert_false(pl.tree[1].refused);
	assert_string_equal(name(&f, pl.tree[1].sw[0].node), "spine1");
	assert_string_equal(port(&f, pl.tree[1].sw[1].node,
				 pl.tree[1].sw[1].up_port), "p5");
	/* a job on leaf1 only */
	t = &pl.tree[2];
	assert_false(t->refused);
	assert_int_equal(t->n_sw, 1);
	assert_int_equal(t->depth, 1);
	assert_string_equal(name(&f, t->sw[0].node), "leaf1");
	assert_int_equal(t->sw[0].n_children, 4);
	assert_string_equal(name(&f, t->sw[0].child_node[0]), "rank04");
	/* slots: 64 + 64 + 8 at leaf1, 64 at each spine */
	assert_int_equal(pl.slots_used[ibex_fabric_node_find(&f, "leaf1")],
			 136);
	assert_int_equal(pl.slots_used[ibex_fabric_node_find(&f, "spine0")],
			 64);
	ibex_fabric_agg_plan_free(&pl);
	jobs_free(r, 3);
	ibex_fabric_free(&f);
}

/* The plan as each switch's configuration: leaf1 sums its ranks' ports
 * and sends up p4 as child 1 (job 1) and p5 as child 1 (job 2); spine0
 * is job 1's root over its four leaf ports; the lines parse and validate
 * as a switch configuration of that node's ports. */
static void
test_render(void **state)
{
	struct ibex_fabric f;
	struct ibex_fabric_agg_req r[2] = { job("a:1:0-15"), job("b:2:0-15:8") };
	struct ibex_fabric_agg_plan pl;
	struct ibex_conf *c = malloc(sizeof(*c));
	uint32_t node, k;
	char *buf = NULL;
	size_t len;
	FILE *m;

	(void)state;
	assert_non_null(c);
	leaf_spine(&f, 4, 2, 4);
	assert_int_equal(ibex_fabric_agg_plan(&f, r, 2, 256, &pl, err,
					      sizeof(err)), 0);
	node = ibex_fabric_node_find(&f, "leaf1");
	m = open_memstream(&buf, &len);
	assert_non_null(m);
	assert_int_equal(ibex_fabric_agg_render(&f, r, &pl, node, 512, m), 2);
	assert_int_equal(fclose(m), 0);
	assert_string_equal(buf,
		"aggregation job 1 children p0,p1,p2,p3 parent p4 up-child 1 "
		"slots 64 elements 512\n"
		"aggregation job 2 children p0,p1,p2,p3 parent p5 up-child 1 "
		"slots 8 elements 512\n");
	ibex_conf_init(c);
	for (k = 0; k < f.nodes[node].n_ports; k++)
		assert_true(ibex_conf_port_add(c, f.nodes[node].port[k].name,
					       "") >= 0);
	assert_int_equal(ibex_conf_parse_string(c, "aggregation pool 1M\n",
						"t", err, sizeof(err)), 0);
	if (ibex_conf_parse_string(c, buf, "t", err, sizeof(err)) != 0 ||
	    ibex_conf_finish(c, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_int_equal(c->nb_agg_jobs, 2);
	free(buf);
	node = ibex_fabric_node_find(&f, "spine0");
	m = open_memstream(&buf, &len);
	assert_non_null(m);
	assert_int_equal(ibex_fabric_agg_render(&f, r, &pl, node, 512, m), 1);
	assert_int_equal(fclose(m), 0);
	assert_non_null(strstr(buf, "aggregation job 1 children "));
	assert_non_null(strstr(buf, " parent root slots 64"));
	free(buf);
	free(c);
	ibex_fabric_agg_plan_free(&pl);
	jobs_free(r, 2);
	ibex_fabric_free(&f);
}

/* fattree 4 (4 pods of 2 edge and 2 aggregation switches, 4 cores): a
 * pod's job is rooted in the pod; a job over every pod at a core, whose
 * pods it reaches through its own aggregation switches; the next such
 * job at a core reached through the others. */
static void
test_fattree(void **state)
{
	struct ibex_fabric f;
	struct ibex_fabric_agg_req r[3] = { job("pod:1:0-3"),
		job("all:2:0-15"), job("spread:3:0,5,10,15") };
	struct ibex_fabric_agg_plan pl;
	const struct ibex_fabric_agg_tree *t;
	uint32_t i;

	(void)state;
	fattree(&f, 4);
	assert_int_equal(ibex_fabric_agg_plan(&f, r, 3, 256, &pl, err,
					      sizeof(err)), 0);
	t = &pl.tree[0];
	assert_int_equal(t->depth, 2);
	assert_int_equal(t->n_sw, 3);
	assert_string_equal(name(&f, t->sw[0].node), "agg0");
	t = &pl.tree[1];
	assert_int_equal(t->depth, 3);
	assert_int_equal(t->n_sw, 1 + 4 + 8);
	/* agg0 carries the pod's job: the core whose path avoids it */
	assert_string_equal(name(&f, t->sw[0].node), "core2");
	for (i = 1; i <= 4; i++)
		assert_int_equal(f.nodes[t->sw[i].node].rank, 2);
	assert_string_equal(name(&f, t->sw[1].node), "agg1");
	t = &pl.tree[2];
	assert_int_equal(t->depth, 3);
	assert_int_equal(t->n_sw, 1 + 4 + 4);
	for (i = 0; i < t->n_sw; i++)
		assert_true(t->sw[i].n_children == (i == 0 ? 4 : 1));
	ibex_fabric_agg_plan_free(&pl);
	jobs_free(r, 3);
	ibex_fabric_free(&f);
}

/* Pools of 100 slots: the first job of 64 at spine0, the second cannot
 * have the leaves (36 left) and is refused, saying which switch was
 * short; it takes nothing. A job of 30 still fits. */
static void
test_refused(void **state)
{
	struct ibex_fabric f;
	struct ibex_fabric_agg_req r[3] = { job("a:1:0-7"), job("b:2:0-7"),
					    job("c:3:0-7:30") };
	struct ibex_fabric_agg_plan pl;
	char *txt;

	(void)state;
	leaf_spine(&f, 2, 2, 4);
	assert_int_equal(ibex_fabric_agg_plan(&f, r, 3, 100, &pl, err,
					      sizeof(err)), 0);
	assert_false(pl.tree[0].refused);
	assert_true(pl.tree[1].refused);
	assert_string_equal(pl.tree[1].why, "switch leaf0 has 36 of its 100 "
			    "slots free, the job asks for 64");
	assert_int_equal(pl.tree[1].n_sw, 0);
	assert_false(pl.tree[2].refused);
	assert_string_equal(name(&f, pl.tree[2].sw[0].node), "spine1");
	assert_int_equal(pl.slots_used[ibex_fabric_node_find(&f, "leaf0")],
			 94);
	assert_int_equal(pl.slots_used[ibex_fabric_node_find(&f, "spine1")],
			 30);
	txt = plan_text(&f, r, &pl, 100);
	assert_non_null(strstr(txt, "job b (id 2, 8 ranks, 64 slots): "
			       "refused, runs as a ring: switch leaf0 has 36 "
			       "of its 100 slots free, the job asks for 64\n"));
	assert_non_null(strstr(txt, "job c (id 3, 8 ranks, 30 slots): root "
			       "spine1, 2 levels, 3 switches\n"
			       "  spine1: root; 2 children: 0=leaf0(p0) "
			       "1=leaf1(p1)\n"));
	assert_non_null(strstr(txt, "  leaf1: up p5 to spine1 as child 1; 4 "
			       "children: 0=rank4(p0) 1=rank5(p1) "
			       "2=rank6(p2) 3=rank7(p3)\n"));
	assert_non_null(strstr(txt, "slots in use (of 100 a switch): spine0 "
			       "64 spine1 30 leaf0 94 leaf1 94\n"));
	free(txt);
	ibex_fabric_agg_plan_free(&pl);
	/* a job on one leaf that is full: refused too */
	free(r[1].ranks);
	r[1] = job("b:2:0-1:101");
	assert_int_equal(ibex_fabric_agg_plan(&f, r, 2, 100, &pl, err,
					      sizeof(err)), 0);
	assert_true(pl.tree[1].refused);
	assert_string_equal(pl.tree[1].why, "switch leaf0 has 36 of its 100 "
			    "slots free, the job asks for 101");
	ibex_fabric_agg_plan_free(&pl);
	jobs_free(r, 3);
	ibex_fabric_free(&f);
}

/* Requests wrong in themselves: refused with the reason, no plan. */
static void
test_bad_requests(void **state)
{
	struct ibex_fabric f;
	struct ibex_fabric_agg_req r[2] = { job("a:1:0-7"), job("b:1:0") };
	struct ibex_fabric_agg_plan pl;
	uint32_t keep;

	(void)state;
	leaf_spine(&f, 2, 1, 4);
	assert_int_equal(ibex_fabric_agg_plan(&f, r, 2, 100, &pl, err,
					      sizeof(err)), -EINVAL);
	assert_string_equal(err, "jobs a and b: both id 1");
	r[1].id = 2;
	r[1].ranks[0] = 8;
	assert_int_equal(ibex_fabric_agg_plan(&f, r, 2, 100, &pl, err,
					      sizeof(err)), -EINVAL);
	assert_string_equal(err, "job b: rank 8: the fabric has ranks 0..7");
	r[1].ranks[0] = 0;
	keep = r[0].ranks[3];
	r[0].ranks[3] = 2;
	assert_int_equal(ibex_fabric_agg_plan(&f, r, 2, 100, &pl, err,
					      sizeof(err)), -EINVAL);
	assert_string_equal(err, "job a: ranks must increase (2 after 2)");
	r[0].ranks[3] = keep;
	assert_int_equal(ibex_fabric_agg_plan(&f, r, IBEX_FABRIC_AGG_MAX_JOBS
					      + 1, 100, &pl, err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(ibex_fabric_agg_plan(&f, r, 2, 100, &pl, err,
					      sizeof(err)), 0);
	ibex_fabric_agg_plan_free(&pl);
	jobs_free(r, 2);
	ibex_fabric_free(&f);
}

/* "NAME:ID:RANKS[:SLOTS]". */
static void
test_parse(void **state)
{
	static const struct {
		const char *in, *why;
	} bad[] = {
		{ "a", "'a': expected NAME:ID:RANKS[:SLOTS], a name of 1..31 "
		       "characters" },
		{ ":1:0", "':1:0': expected NAME:ID:RANKS[:SLOTS], a name of "
			  "1..31 characters" },
		{ "a:x:0", "job a: id 'x': not a number" },
		{ "a:1:", "job a: ranks: no ranks" },
		{ "a:1:3-1", "job a: ranks: '3-1': not a rank or a range A-B" },
		{ "a:1:0,,2", "job a: ranks: '': not a rank or a range A-B" },
		{ "a:1:0-3:0", "job a: slots '0': 1..65535" },
		{ "a:1:0-3:70000", "job a: slots '70000': 1..65535" },
		{ "a:1:0-99999", "job a: ranks: '0-99999': not a rank or a "
				 "range A-B" },
	};
	struct ibex_fabric_agg_req r;
	unsigned int i;

	(void)state;
	r = job("grads:7:0-3,8,10-11:32");
	assert_string_equal(r.name, "grads");
	assert_int_equal(r.id, 7);
	assert_int_equal(r.n_slots, 32);
	assert_int_equal(r.n_ranks, 7);
	assert_int_equal(r.ranks[4], 8);
	assert_int_equal(r.ranks[6], 11);
	free(r.ranks);
	r = job("x:1:5");
	assert_int_equal(r.n_slots, IBEX_FABRIC_AGG_SLOTS_DEF);
	assert_int_equal(r.n_ranks, 1);
	free(r.ranks);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(ibex_fabric_agg_req_parse(bad[i].in, &r, err,
							   sizeof(err)),
				 -EINVAL);
		assert_string_equal(err, bad[i].why);
		free(r.ranks);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_leaf_spine),
		cmocka_unit_test(test_render),
		cmocka_unit_test(test_fattree),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_bad_requests),
		cmocka_unit_test(test_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
