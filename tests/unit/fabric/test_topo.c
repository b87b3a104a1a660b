/* SPDX-License-Identifier: BSD-3-Clause */
/* lib/fabric's generated topologies (ibex_topo.c) without EAL: for each
 * shape and several sizes the file written parses with ibex_fabric_parse
 * into the node, link and port counts the shape says, every rank has one
 * link on the switch the shape puts it, small ones route up/down
 * (ibex_fabric_routes_legal), the same parameters give the same bytes,
 * rank MACs follow the rank index past 65,536, rates and delays land on
 * the right tier, and sizes beyond a switch's ports or the parser's
 * limits are refused with the limit named. */

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
#include "ibex_fabric.h"
#include "ibex_topo.h"

static char err[1024];

/* The text of @p t (asserting it is written). Free it. */
static char *
text_of(const struct ibex_topo *t, size_t *len)
{
	char *buf = NULL;
	FILE *m = open_memstream(&buf, len);

	assert_non_null(m);
	if (ibex_topo_write(t, m, err, sizeof(err)) != 0)
		fail_msg("ibex_topo_write: %s", err);
	assert_int_equal(fclose(m), 0);
	return buf;
}

/* Write @p t and parse it back; the sizes ibex_topo_size gives must be
 * what the parser finds. */
static void
gen(const struct ibex_topo *t, struct ibex_fabric *f)
{
	struct ibex_topo_size sz;
	size_t len;
	char *buf = text_of(t, &len);
	uint32_t i, sw = 0, rk = 0, maxp = 0;

	if (ibex_fabric_parse(f, buf, len, "gen", err, sizeof(err)) != 0)
		fail_msg("%s\n%s", err, buf);
	free(buf);
	assert_int_equal(ibex_topo_size(t, &sz, err, sizeof(err)), 0);
	for (i = 0; i < f->n_nodes; i++) {
		const struct ibex_fabric_node *n = &f->nodes[i];

		if (n->kind == IBEX_FABRIC_SWITCH) {
			sw++;
			if (n->n_ports > maxp)
				maxp = n->n_ports;
		} else {
			/* every rank: one port, linked */
			assert_int_equal(n->n_ports, 1);
			assert_int_not_equal(n->port[0].link, IBEX_FABRIC_NONE);
			rk++;
		}
	}
	assert_int_equal(sw, sz.n_switches);
	assert_int_equal(rk, sz.n_ranks);
	assert_int_equal(f->n_links, sz.n_links);
	assert_int_equal(maxp, sz.max_ports);
}

/* Switches whose name starts with @p prefix, each with @p ports ports,
 * all linked. @return how many. */
static uint32_t
switches(const struct ibex_fabric *f, const char *prefix, uint16_t ports)
{
	uint32_t i, n = 0;
	uint16_t p;

	for (i = 0; i < f->n_nodes; i++) {
		const struct ibex_fabric_node *s = &f->nodes[i];

		if (strncmp(s->name, prefix, strlen(prefix)) != 0 ||
		    s->kind != IBEX_FABRIC_SWITCH)
			continue;
		n++;
		assert_int_equal(s->n_ports, ports);
		for (p = 0; p < s->n_ports; p++)
			assert_int_not_equal(s->port[p].link, IBEX_FABRIC_NONE);
	}
	return n;
}

/* The node at the other end of @p node's port @p p. */
static const struct ibex_fabric_node *
peer(const struct ibex_fabric *f, uint32_t node, uint16_t p)
{
	struct ibex_fabric_end e = { node, p };

	e = ibex_fabric_peer(f, f->nodes[node].port[p].link, e);
	return &f->nodes[e.node];
}

/* The switch rank @p j (0-based, declaration order) hangs on. */
static const char *
rank_switch(const struct ibex_fabric *f, uint32_t j)
{
	uint32_t i, k = 0;

	for (i = 0; i < f->n_nodes; i++)
		if (f->nodes[i].kind == IBEX_FABRIC_RANK && k++ == j)
			return peer(f, i, 0)->name;
	fail_msg("no rank %u", j);
	return NULL;
}

static void
route_legal(struct ibex_fabric *f)
{
	struct ibex_fabric_routes r;

	if (ibex_fabric_route(f, &r, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_true(ibex_fabric_routes_legal(f, &r));
	ibex_fabric_routes_free(&r);
}

static void
leaf_spine(struct ibex_topo *t, uint32_t l, uint32_t s, uint32_t r,
	   uint32_t u)
{
	ibex_topo_init(t, IBEX_TOPO_LEAF_SPINE);
	t->leaves = l;
	t->spines = s;
	t->ranks_per_leaf = r;
	t->uplinks = u;
}

static void
fattree(struct ibex_topo *t, uint32_t k)
{
	ibex_topo_init(t, IBEX_TOPO_FATTREE);
	t->k = k;
}

static void
rail(struct ibex_topo *t, uint32_t n, uint32_t g, uint32_t s, uint32_t p)
{
	ibex_topo_init(t, IBEX_TOPO_RAIL);
	t->rails = n;
	t->groups = g;
	t->servers = s;
	t->spines = p;
}

static void
test_leaf_spine(void **state)
{
	static const uint32_t sizes[][4] = {
		{ 4, 2, 4, 1 }, { 2, 1, 2, 1 }, { 1, 1, 1, 1 },
		{ 16, 8, 16, 2 }, { 32, 16, 16, 1 }, { 8, 2, 16, 4 },
	};
	struct ibex_topo t;
	struct ibex_fabric f;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint32_t L = sizes[i][0], S = sizes[i][1], R = sizes[i][2];
		uint32_t U = sizes[i][3], x;

		leaf_spine(&t, L, S, R, U);
		gen(&t, &f);
		assert_int_equal(f.n_nodes, L + S + L * R);
		assert_int_equal(f.n_links, L * R + L * S * U);
		assert_int_equal(switches(&f, "leaf", (uint16_t)(R + S * U)), L);
		assert_int_equal(switches(&f, "spine", (uint16_t)(L * U)), S);
		for (x = 0; x < L * R; x++) {
			char want[32];

			snprintf(want, sizeof(want), "leaf%0*u",
				 L > 10 ? 2 : 1, x / R);
			assert_string_equal(rank_switch(&f, x), want);
		}
		if (L * R <= 64)
			route_legal(&f);
		ibex_fabric_free(&f);
	}
}

static void
test_fattree(void **state)
{
	static const uint32_t ks[] = { 2, 4, 6, 8, 16 };
	struct ibex_topo t;
	struct ibex_fabric f;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ks) / sizeof(ks[0]); i++) {
		uint32_t k = ks[i], h = k / 2, n, pods[IBEX_MAX_PORTS];
		uint16_t p;

		fattree(&t, k);
		gen(&t, &f);
		assert_int_equal(switches(&f, "core", (uint16_t)k), h * h);
		assert_int_equal(switches(&f, "agg", (uint16_t)k), k * h);
		assert_int_equal(switches(&f, "edge", (uint16_t)k), k * h);
		assert_int_equal(f.n_nodes - 5 * k * k / 4, k * k * k / 4);
		assert_int_equal(f.n_links, 3 * k * k * k / 4);
		for (n = 0; n < f.n_nodes; n++) {
			const struct ibex_fabric_node *s = &f.nodes[n];

			if (strncmp(s->name, "edge", 4) == 0) {
				/* h ranks down, then the h aggs of its pod */
				unsigned int e = (unsigned int)atoi(s->name + 4);

				for (p = 0; p < k; p++) {
					const struct ibex_fabric_node *o =
						peer(&f, n, p);

					if (p < h) {
						assert_int_equal(o->kind,
							IBEX_FABRIC_RANK);
						continue;
					}
					assert_memory_equal(o->name, "agg", 3);
					assert_int_equal(atoi(o->name + 3) /
							 (int)h, e / h);
				}
			} else if (strncmp(s->name, "core", 4) == 0) {
				/* one aggregation switch of every pod */
				memset(pods, 0, sizeof(pods));
				for (p = 0; p < k; p++) {
					const struct ibex_fabric_node *o =
						peer(&f, n, p);

					assert_memory_equal(o->name, "agg", 3);
					pods[atoi(o->name + 3) / (int)h]++;
				}
				for (p = 0; p < k; p++)
					assert_int_equal(pods[p], 1);
			}
		}
		if (k <= 8)
			route_legal(&f);
		ibex_fabric_free(&f);
	}
}

/* --pods P: the first P pods of a fat tree of K, every core with P ports,
 * one to each pod built; the counts of ibex_topo_size() are the file's. */
static void
test_fattree_pods(void **state)
{
	struct ibex_topo t;
	struct ibex_topo_size sz;
	struct ibex_fabric f;
	uint32_t n, k = 8, h = 4, P = 3;
	uint16_t p;

	(void)state;
	fattree(&t, k);
	t.pods = P;
	assert_int_equal(ibex_topo_size(&t, &sz, err, sizeof(err)), 0);
	gen(&t, &f);
	assert_int_equal(switches(&f, "core", (uint16_t)P), h * h);
	assert_int_equal(switches(&f, "agg", (uint16_t)k), P * h);
	assert_int_equal(switches(&f, "edge", (uint16_t)k), P * h);
	assert_int_equal(sz.n_ranks, P * h * h);
	assert_int_equal(sz.n_switches, P * k + h * h);
	assert_int_equal(f.n_links, 3 * P * h * h);
	assert_int_equal(sz.n_links, f.n_links);
	for (n = 0; n < f.n_nodes; n++)
		if (strncmp(f.nodes[n].name, "core", 4) == 0)
			for (p = 0; p < P; p++)
				assert_int_equal(atoi(peer(&f, n, p)->name + 3) /
						 (int)h, p);
	assert_string_equal(f.name, "fattree-8-3pods");
	route_legal(&f);
	ibex_fabric_free(&f);
	t.pods = k + 2;
	assert_int_not_equal(ibex_topo_size(&t, &sz, err, sizeof(err)), 0);
	assert_non_null(strstr(err, "at most K pods"));
	/* 31 of fattree 36's pods: the 10,000-rank example's fabric */
	fattree(&t, 36);
	t.pods = 31;
	assert_int_equal(ibex_topo_size(&t, &sz, err, sizeof(err)), 0);
	assert_int_equal(sz.n_ranks, 10044);
	assert_int_equal(sz.n_links, 30132);
}

static void
test_rail(void **state)
{
	static const uint32_t sizes[][4] = {
		/* rails, groups, servers per group, spines */
		{ 4, 2, 4, 2 }, { 8, 2, 16, 16 }, { 2, 1, 3, 1 },
		{ 8, 4, 16, 8 },
	};
	struct ibex_topo t;
	struct ibex_fabric f;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint32_t N = sizes[i][0], G = sizes[i][1], S = sizes[i][2];
		uint32_t P = sizes[i][3], x;

		rail(&t, N, G, S, P);
		gen(&t, &f);
		assert_int_equal(f.n_links, G * S * N + G * N * P);
		assert_int_equal(switches(&f, "spine", (uint16_t)(G * N)), P);
		assert_int_equal(switches(&f, "g", (uint16_t)(S + P)), G * N);
		/* rank (g*S + s)*N + r: GPU r of server s of group g, on
		 * the group's rail switch r */
		for (x = 0; x < G * S * N; x++) {
			char want[32];

			snprintf(want, sizeof(want), "g%u-rail%u",
				 x / N / S, x % N);
			assert_string_equal(rank_switch(&f, x), want);
		}
		if (G * S * N <= 128)
			route_legal(&f);
		ibex_fabric_free(&f);
	}
}

/* Same parameters, same bytes; the text does not depend on anything
 * else (run twice, and in a different order with others between). */
static void
test_deterministic(void **state)
{
	struct ibex_topo a, b;
	size_t la, lb, lc;
	char *x, *y, *z;

	(void)state;
	rail(&a, 4, 2, 4, 2);
	a.fabric_rate_bps = 400000000000ull;
	x = text_of(&a, &la);
	fattree(&b, 8);
	z = text_of(&b, &lc);
	y = text_of(&a, &lb);
	assert_int_equal(la, lb);
	assert_memory_equal(x, y, la);
	assert_true(la != lc || memcmp(x, z, la) != 0);
	free(x);
	free(y);
	free(z);
}

static void
test_mac(void **state)
{
	struct ibex_topo t;
	struct ibex_fabric f;
	uint8_t m[6], n[6];
	uint32_t i, j = 0;

	(void)state;
	ibex_topo_rank_mac(0, m);
	assert_memory_equal(m, ((uint8_t[]){ 2, 0x49, 0, 0, 0, 0 }), 6);
	ibex_topo_rank_mac(65536, n);
	assert_memory_equal(n, ((uint8_t[]){ 2, 0x49, 0, 1, 0, 0 }), 6);
	ibex_topo_rank_mac(0x01020304, n);
	assert_memory_equal(n, ((uint8_t[]){ 2, 0x49, 1, 2, 3, 4 }), 6);
	/* the file's MACs are the rank indexes' */
	leaf_spine(&t, 4, 2, 4, 1);
	gen(&t, &f);
	for (i = 0; i < f.n_nodes; i++) {
		if (f.nodes[i].kind != IBEX_FABRIC_RANK)
			continue;
		ibex_topo_rank_mac(j++, m);
		assert_memory_equal(f.nodes[i].mac, m, 6);
	}
	ibex_fabric_free(&f);
}

static void
test_rates_delays(void **state)
{
	struct ibex_topo t;
	struct ibex_fabric f;
	uint32_t l;

	(void)state;
	leaf_spine(&t, 2, 2, 2, 1);
	t.rate_bps = 400000000000ull;
	t.fabric_rate_bps = 800000000000ull;
	t.delay_ps = 250;
	t.fabric_delay_ps = 1500000;
	t.fabric_delay_set = 1;
	snprintf(t.name, sizeof(t.name), "my fabric");
	gen(&t, &f);
	assert_string_equal(f.name, "my fabric");
	for (l = 0; l < f.n_links; l++) {
		const struct ibex_fabric_link *k = &f.links[l];
		bool host = f.nodes[k->end[0].node].kind == IBEX_FABRIC_RANK ||
			    f.nodes[k->end[1].node].kind == IBEX_FABRIC_RANK;

		assert_int_equal(k->rate_bps, host ? 400000000000ull :
				 800000000000ull);
		assert_int_equal(k->delay_ps, host ? 250 : 1500000);
	}
	ibex_fabric_free(&f);
	/* defaults: 100G, 500ns everywhere */
	fattree(&t, 2);
	gen(&t, &f);
	for (l = 0; l < f.n_links; l++) {
		assert_int_equal(f.links[l].rate_bps, 100000000000ull);
		assert_int_equal(f.links[l].delay_ps, 500000);
	}
	ibex_fabric_free(&f);
}

static void
test_lanes(void **state)
{
	struct ibex_topo t;
	struct ibex_fabric f;

	(void)state;
	fattree(&t, 4);
	assert_int_equal(ibex_topo_lane_set(&t, "vls=4", err, sizeof(err)), 0);
	assert_int_equal(ibex_topo_lane_set(&t, "sl2vl=0-2:0,3:3,4-15:1", err,
					    sizeof(err)), 0);
	assert_int_equal(ibex_topo_lane_set(&t, "lossless=3", err,
					    sizeof(err)), 0);
	assert_int_equal(ibex_topo_lanes_check(&t, err, sizeof(err)), 0);
	gen(&t, &f);
	assert_true(f.lanes.set);
	assert_int_equal(f.lanes.port.nb_vls, 4);
	ibex_fabric_free(&f);
	assert_int_equal(ibex_topo_lane_set(&t, "vls", err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "KEY=VALUE"));
	assert_int_equal(ibex_topo_lane_set(&t, "fc=pfc", err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "unknown key"));
	assert_int_equal(ibex_topo_lane_set(&t, "vls=\"4", err, sizeof(err)),
			 -EINVAL);
	/* a value lib/fabric refuses is refused before anything is
	 * written, with lib/fabric's reason */
	assert_int_equal(ibex_topo_lane_set(&t, "vls=99", err, sizeof(err)),
			 0);
	assert_int_equal(ibex_topo_lanes_check(&t, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "--lanes"));
}

static void
refused(const struct ibex_topo *t, const char *why)
{
	struct ibex_topo_size sz;
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	assert_int_equal(ibex_topo_size(t, &sz, err, sizeof(err)), -EINVAL);
	if (strstr(err, why) == NULL)
		fail_msg("'%s' does not say '%s'", err, why);
	assert_int_equal(ibex_topo_write(t, m, err, sizeof(err)), -EINVAL);
	fclose(m);
	assert_int_equal(len, 0); /* nothing half-written */
	free(buf);
}

static void
test_limits(void **state)
{
	struct ibex_topo t;
	struct ibex_topo_size sz;

	(void)state;
	leaf_spine(&t, 4, 2, 63, 1);
	refused(&t, "a leaf would have 65 ports");
	refused(&t, "IBEX_MAX_PORTS");
	leaf_spine(&t, 65, 1, 1, 1);
	refused(&t, "a spine would have 65 ports");
	leaf_spine(&t, 32, 2, 4, 2);   /* spines 32 x 2 = 64: fits */
	assert_int_equal(ibex_topo_size(&t, &sz, err, sizeof(err)), 0);
	assert_int_equal(sz.max_ports, 64);
	leaf_spine(&t, 4, 2, 36, 1);   /* a leaf of 38 ports: past 32 */
	assert_int_equal(ibex_topo_size(&t, &sz, err, sizeof(err)), 0);
	assert_int_equal(sz.max_ports, 38);
	leaf_spine(&t, 0, 2, 4, 1);
	refused(&t, "--leaves");
	fattree(&t, 5);
	refused(&t, "even");
	fattree(&t, 0);
	refused(&t, "even");
	fattree(&t, 66);
	refused(&t, "at most 64 (IBEX_MAX_PORTS)");
	rail(&t, 8, 9, 16, 8);          /* spine: 9 x 8 = 72 ports */
	refused(&t, "a spine would have 72 ports");
	rail(&t, 8, 2, 62, 4);          /* rail switch: 62 + 4 */
	refused(&t, "a rail switch would have 66 ports");
	rail(&t, 8, 2, 0, 4);
	refused(&t, "--servers-per-group");
	leaf_spine(&t, 2, 2, 2, 1);
	snprintf(t.name, sizeof(t.name), "a\"b");
	refused(&t, "--name");
	/* fat trees past 32-port switches: 36 (the first past 10,000
	 * ranks) and 38 (the largest the parser's nodes allow) fit the
	 * parser's limits; 40 is refused by them, the limit named */
	fattree(&t, 36);
	assert_int_equal(ibex_topo_size(&t, &sz, err, sizeof(err)), 0);
	assert_int_equal(sz.n_ranks, 11664);
	assert_int_equal(sz.n_switches, 1620);
	assert_int_equal(sz.n_links, 34992);
	assert_int_equal(sz.max_ports, 36);
	assert_true(sz.n_ranks + sz.n_switches <= IBEX_FABRIC_MAX_NODES);
	assert_true(sz.n_links <= IBEX_FABRIC_MAX_LINKS);
	fattree(&t, 38);
	assert_int_equal(ibex_topo_size(&t, &sz, err, sizeof(err)), 0);
	assert_int_equal(sz.n_ranks + sz.n_switches, 15523);
	fattree(&t, 40);
	refused(&t, "18000 nodes (2000 switches, 16000 ranks)");
	refused(&t, "IBEX_FABRIC_MAX_NODES");
	fattree(&t, 64);
	refused(&t, "IBEX_FABRIC_MAX_NODES");
}

/* fattree 16 (1,024 ranks), 32 (8,192 ranks, 9,472 nodes: beyond
 * the parser's old 4,096) and 36 (11,664 ranks on 36-port switches, past
 * the old 32 ports) parse; 16 routes up/down too. */
static void
test_large(void **state)
{
	struct ibex_topo t;
	struct ibex_fabric f;
	struct ibex_fabric_routes r;

	(void)state;
	fattree(&t, 16);
	gen(&t, &f);
	assert_int_equal(f.n_nodes, 320 + 1024);
	if (ibex_fabric_route(&f, &r, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_int_equal(r.n_ranks, 1024);
	assert_int_equal(r.n_switches, 320);
	ibex_fabric_routes_free(&r);
	ibex_fabric_free(&f);
	fattree(&t, 32);
	gen(&t, &f);
	assert_int_equal(f.n_nodes, 1280 + 8192);
	assert_int_equal(f.n_links, 24576);
	ibex_fabric_free(&f);
	fattree(&t, 36);
	gen(&t, &f);
	assert_int_equal(f.n_nodes, 1620 + 11664);
	assert_int_equal(f.n_links, 34992);
	assert_int_equal(switches(&f, "core", 36), 18 * 18);
	assert_int_equal(switches(&f, "agg", 36), 36 * 18);
	assert_int_equal(switches(&f, "edge", 36), 36 * 18);
	ibex_fabric_free(&f);
}

/* A bad link after the arrays have grown (fattree 8: 208 nodes, 384
 * links, past the first 64 of each): refused with its line, the fabric
 * left empty (and nothing leaked, under ASan). */
static void
test_refused_after_growth(void **state)
{
	struct ibex_topo t;
	struct ibex_fabric f;
	size_t len, lines = 0, i;
	char *buf, *bad;
	char where[32];

	(void)state;
	fattree(&t, 8);
	buf = text_of(&t, &len);
	for (i = 0; i < len; i++)
		lines += buf[i] == '\n';
	bad = malloc(len + 128);
	assert_non_null(bad);
	len = (size_t)sprintf(bad, "%s    - endpoints: [\"rank000:eth0\", "
			      "\"nosuch:p0\"]\n", buf);
	assert_int_equal(ibex_fabric_parse(&f, bad, len, "big", err,
					   sizeof(err)), -EINVAL);
	snprintf(where, sizeof(where), "big:%zu:", lines + 1);
	if (strstr(err, where) == NULL || strstr(err, "nosuch") == NULL)
		fail_msg("'%s': not at %s", err, where);
	assert_int_equal(f.n_nodes, 0);
	assert_null(f.nodes);
	free(bad);
	free(buf);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_leaf_spine),
		cmocka_unit_test(test_fattree),
		cmocka_unit_test(test_fattree_pods),
		cmocka_unit_test(test_rail),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_mac),
		cmocka_unit_test(test_rates_delays),
		cmocka_unit_test(test_lanes),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_large),
		cmocka_unit_test(test_refused_after_growth),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
