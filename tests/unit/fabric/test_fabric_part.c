/* SPDX-License-Identifier: BSD-3-Clause */
/* lib/fabric's partitioning (ibex_fabric_part.c) without EAL: a fat
 * tree's pods and a leaf-spine's leaves stay whole, with their ranks; the
 * top tier is dealt evenly; the weights balance; every partition gets a
 * group; a leaf without ranks does not pass for the top tier; too many
 * partitions fall back to a switch a group and then are
 * refused; pins win and carry their ranks; the lookahead is the smallest
 * crossing delay plus the switch latency where a switch sends; a crossing
 * link without delay and a pin past the count are refused with the line;
 * the same input gives the same partitions. */

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
#include "ibex_fabric_part.h"
#include "ibex_topo.h"

static char err[1024];

struct fixture {
	struct ibex_fabric f;
	struct ibex_fabric_routes r;
};

static void
load_text(struct fixture *x, const char *text)
{
	memset(x, 0, sizeof(*x));
	if (ibex_fabric_parse(&x->f, text, strlen(text), "t.yaml", err,
			      sizeof(err)) != 0)
		fail_msg("parse: %s", err);
	if (ibex_fabric_route(&x->f, &x->r, err, sizeof(err)) != 0)
		fail_msg("route: %s", err);
}

static void
load_topo(struct fixture *x, const struct ibex_topo *t)
{
	char *buf = NULL;
	size_t len;
	FILE *m = open_memstream(&buf, &len);

	assert_non_null(m);
	assert_int_equal(ibex_topo_write(t, m, err, sizeof(err)), 0);
	assert_int_equal(fclose(m), 0);
	load_text(x, buf);
	free(buf);
}

static void
unload(struct fixture *x)
{
	ibex_fabric_routes_free(&x->r);
	ibex_fabric_free(&x->f);
}

static uint32_t
part_of(const struct fixture *x, const struct ibex_fabric_partition *p,
	const char *name)
{
	uint32_t n = ibex_fabric_node_find(&x->f, name);

	assert_int_not_equal(n, IBEX_FABRIC_NONE);
	return p->part[n];
}

/* Every rank is in its switch's partition (no pins here). */
static void
ranks_with_switches(const struct fixture *x,
		    const struct ibex_fabric_partition *p)
{
	uint32_t i;

	for (i = 0; i < x->f.n_nodes; i++) {
		const struct ibex_fabric_node *n = &x->f.nodes[i];
		struct ibex_fabric_end e = { .node = i, .port = 0 };

		if (n->kind != IBEX_FABRIC_RANK)
			continue;
		assert_int_equal(p->part[i],
				 p->part[ibex_fabric_peer(&x->f, n->port[0].link,
							  e).node]);
	}
}

/* fattree 8: 8 pods of 4 edge + 4 aggregation switches and 16 ranks, 16
 * cores. Over 4 partitions: two pods each, four cores each. */
static void
test_fattree_pods(void **state)
{
	struct fixture x;
	struct ibex_fabric_partition p;
	struct ibex_topo t;
	uint32_t k, pod;
	char name[32];

	(void)state;
	ibex_topo_init(&t, IBEX_TOPO_FATTREE);
	t.k = 8;
	load_topo(&x, &t);
	assert_int_equal(ibex_fabric_partition(&x.f, 4, 600000, &p, err,
					       sizeof(err)), 0);
	assert_int_equal(p.groups, 8);
	assert_false(p.fine);
	for (k = 0; k < 4; k++) {
		assert_int_equal(p.size[k].switches, 2 * 8 + 4);
		assert_int_equal(p.size[k].ranks, 32);
	}
	/* edge switches 0..31, pod = index / 4 */
	for (pod = 0; pod < 8; pod++) {
		snprintf(name, sizeof(name), "edge%02u", pod * 4);
		assert_int_equal(part_of(&x, &p, name), pod / 2);
		snprintf(name, sizeof(name), "agg%02u", pod * 4 + 3);
		assert_int_equal(part_of(&x, &p, name), pod / 2);
	}
	assert_int_equal(part_of(&x, &p, "core00"), 0);
	assert_int_equal(part_of(&x, &p, "core15"), 3);
	ranks_with_switches(&x, &p);
	/* 500 ns a link, 600 ns a switch: every crossing link is
	 * switch to switch */
	assert_int_equal(p.lookahead_ps, 1100000);
	/* each core has 8 links, 2 to its own partition's pods */
	assert_int_equal(p.cross_links, 16 * 6);
	ibex_fabric_partition_free(&p);

	/* one partition: nothing crosses */
	assert_int_equal(ibex_fabric_partition(&x.f, 1, 0, &p, err,
					       sizeof(err)), 0);
	assert_int_equal(p.cross_links, 0);
	assert_int_equal(p.lookahead_ps, UINT64_MAX);
	assert_int_equal(p.lookahead_link, IBEX_FABRIC_NONE);
	ibex_fabric_partition_free(&p);

	/* three partitions of eight pods: 3, 3, 2 or so, none empty */
	assert_int_equal(ibex_fabric_partition(&x.f, 3, 0, &p, err,
					       sizeof(err)), 0);
	for (k = 0; k < 3; k++) {
		assert_true(p.size[k].ranks >= 32);
		assert_true(p.size[k].ranks <= 48);
	}
	ibex_fabric_partition_free(&p);
	unload(&x);
}

/* A leaf-spine: leaves with their ranks; more partitions than leaves
 * are refused with the most it takes. */
static void
test_leaf_spine(void **state)
{
	struct fixture x;
	struct ibex_fabric_partition p, q;
	struct ibex_topo t;
	uint32_t i;

	(void)state;
	ibex_topo_init(&t, IBEX_TOPO_LEAF_SPINE);
	t.leaves = 6;
	t.spines = 2;
	t.ranks_per_leaf = 4;
	load_topo(&x, &t);
	assert_int_equal(ibex_fabric_partition(&x.f, 2, 0, &p, err,
					       sizeof(err)), 0);
	assert_int_equal(p.groups, 6);
	assert_int_equal(p.size[0].ranks, 12);
	assert_int_equal(p.size[1].ranks, 12);
	assert_int_equal(part_of(&x, &p, "spine0"), 0);
	assert_int_equal(part_of(&x, &p, "spine1"), 1);
	ranks_with_switches(&x, &p);
	/* a rank's link never crosses, so no switch latency either way */
	assert_int_equal(p.lookahead_ps, 500000);
	/* deterministic */
	assert_int_equal(ibex_fabric_partition(&x.f, 2, 0, &q, err,
					       sizeof(err)), 0);
	for (i = 0; i < x.f.n_nodes; i++)
		assert_int_equal(p.part[i], q.part[i]);
	ibex_fabric_partition_free(&q);
	ibex_fabric_partition_free(&p);

	/* 6 leaves, 6 partitions: one each, spines to 0 and 3 */
	assert_int_equal(ibex_fabric_partition(&x.f, 6, 0, &p, err,
					       sizeof(err)), 0);
	for (i = 0; i < 6; i++)
		assert_int_equal(p.size[i].ranks, 4);
	ibex_fabric_partition_free(&p);

	assert_int_equal(ibex_fabric_partition(&x.f, 7, 0, &p, err,
					       sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "at most 6"));
	assert_null(p.part);
	assert_int_equal(ibex_fabric_partition(&x.f, 0, 0, &p, err,
					       sizeof(err)), -EINVAL);
	unload(&x);
}

/* One switch or a single tier: a switch each; unequal groups still give
 * every partition one. */
static const char star[] =
	"name: two\n"
	"topology:\n"
	"  defaults: {rate: 100G, delay: 500ns}\n"
	"  nodes:\n"
	"    s1: {kind: ibex}\n"
	"    s2: {kind: ibex}\n"
	"    s3: {kind: ibex}\n"
	"    r0: {kind: rank}\n"
	"    r1: {kind: rank}\n"
	"    r2: {kind: rank}\n"
	"    r3: {kind: rank}\n"
	"    r4: {kind: rank}\n"
	"  links:\n"
	"    - endpoints: [\"r0:eth0\", \"s1:p0\"]\n"
	"    - endpoints: [\"r1:eth0\", \"s1:p1\"]\n"
	"    - endpoints: [\"r2:eth0\", \"s1:p2\"]\n"
	"    - endpoints: [\"r3:eth0\", \"s2:p0\"]\n"
	"    - endpoints: [\"r4:eth0\", \"s3:p0\"]\n"
	"    - endpoints: [\"s1:p3\", \"s2:p1\"]\n"
	"      delay: 200ns\n"
	"    - endpoints: [\"s2:p2\", \"s3:p1\"]\n";

static void
test_single_tier(void **state)
{
	struct fixture x;
	struct ibex_fabric_partition p;

	(void)state;
	load_text(&x, star);
	assert_int_equal(ibex_fabric_partition(&x.f, 3, 100000, &p, err,
					       sizeof(err)), 0);
	assert_true(p.fine);
	assert_int_equal(p.groups, 3);
	assert_int_equal(part_of(&x, &p, "s1"), 0);
	assert_int_equal(part_of(&x, &p, "s2"), 1);
	assert_int_equal(part_of(&x, &p, "s3"), 2);
	ranks_with_switches(&x, &p);
	/* the 200 ns link, plus 100 ns of switch latency */
	assert_int_equal(p.lookahead_ps, 300000);
	assert_int_equal(p.lookahead_link, 5);
	ibex_fabric_partition_free(&p);

	/* 2 partitions: the heavy s1 alone, s2 and s3 together */
	assert_int_equal(ibex_fabric_partition(&x.f, 2, 0, &p, err,
					       sizeof(err)), 0);
	assert_int_equal(part_of(&x, &p, "s1"), 0);
	assert_int_equal(part_of(&x, &p, "s2"), 1);
	assert_int_equal(part_of(&x, &p, "s3"), 1);
	assert_int_equal(p.cross_links, 1);
	ibex_fabric_partition_free(&p);
	unload(&x);
}

/* A leaf without ranks ranks above the spines (3 hops from a rank):
 * the top tier is still the spines, whose removal cuts the ranks apart,
 * and the leaves stay whole. */
static void
test_rankless_leaf(void **state)
{
	struct fixture x;
	struct ibex_fabric_partition p;

	(void)state;
	load_text(&x,
		"topology:\n"
		"  defaults: {rate: 100G, delay: 500ns}\n"
		"  nodes:\n"
		"    l1: {kind: ibex}\n"
		"    l2: {kind: ibex}\n"
		"    l3: {kind: ibex}\n"
		"    l4: {kind: ibex}\n"
		"    sp1: {kind: ibex}\n"
		"    sp2: {kind: ibex}\n"
		"    r0: {kind: rank}\n"
		"    r1: {kind: rank}\n"
		"    r2: {kind: rank}\n"
		"    r3: {kind: rank}\n"
		"    r4: {kind: rank}\n"
		"    r5: {kind: rank}\n"
		"  links:\n"
		"    - endpoints: [\"r0:eth0\", \"l1:p0\"]\n"
		"    - endpoints: [\"r1:eth0\", \"l1:p1\"]\n"
		"    - endpoints: [\"r2:eth0\", \"l2:p0\"]\n"
		"    - endpoints: [\"r3:eth0\", \"l2:p1\"]\n"
		"    - endpoints: [\"r4:eth0\", \"l3:p0\"]\n"
		"    - endpoints: [\"r5:eth0\", \"l3:p1\"]\n"
		"    - endpoints: [\"l1:p2\", \"sp1:p0\"]\n"
		"    - endpoints: [\"l1:p3\", \"sp2:p0\"]\n"
		"    - endpoints: [\"l2:p2\", \"sp1:p1\"]\n"
		"    - endpoints: [\"l2:p3\", \"sp2:p1\"]\n"
		"    - endpoints: [\"l3:p2\", \"sp1:p2\"]\n"
		"    - endpoints: [\"l3:p3\", \"sp2:p2\"]\n"
		"    - endpoints: [\"l4:p0\", \"sp1:p3\"]\n"
		"    - endpoints: [\"l4:p1\", \"sp2:p3\"]\n");
	assert_int_equal(x.f.nodes[ibex_fabric_node_find(&x.f, "l4")].rank, 3);
	assert_int_equal(ibex_fabric_partition(&x.f, 2, 0, &p, err,
					       sizeof(err)), 0);
	assert_false(p.fine);
	assert_int_equal(p.groups, 4);
	assert_int_equal(part_of(&x, &p, "l1"), 0);
	assert_int_equal(part_of(&x, &p, "l2"), 0);
	assert_int_equal(part_of(&x, &p, "l3"), 1);
	assert_int_equal(part_of(&x, &p, "l4"), 1);
	assert_int_equal(part_of(&x, &p, "sp1"), 0);
	assert_int_equal(part_of(&x, &p, "sp2"), 1);
	ranks_with_switches(&x, &p);
	ibex_fabric_partition_free(&p);
	unload(&x);
}

/* Pins: the switch and its unpinned ranks; a pinned rank alone; a pin
 * past the count refused with its line; a crossing link without delay
 * refused with its line. */
static void
test_pins(void **state)
{
	struct fixture x;
	struct ibex_fabric_partition p;

	(void)state;
	load_text(&x,
		"topology:\n"
		"  defaults: {rate: 100G, delay: 500ns}\n"
		"  nodes:\n"
		"    s1: {kind: ibex}\n"
		"    s2: {kind: ibex, partition: 0}\n"
		"    s3: {kind: ibex, partition: 1}\n"
		"    r0: {kind: rank}\n"
		"    r1: {kind: rank}\n"
		"    r2: {kind: rank, partition: 1}\n"
		"  links:\n"
		"    - endpoints: [\"r0:eth0\", \"s1:p0\"]\n"
		"    - endpoints: [\"r1:eth0\", \"s2:p0\"]\n"
		"    - endpoints: [\"r2:eth0\", \"s2:p1\"]\n"
		"    - endpoints: [\"s1:p1\", \"s3:p0\"]\n"
		"    - endpoints: [\"s2:p2\", \"s3:p1\"]\n"
		"      delay: 0\n");
	/* s3 is the top tier (rank 2); groups {s1, r0} and {s2, r1, r2};
	 * s3 pinned away from s2 puts the link without delay across */
	assert_int_equal(ibex_fabric_partition(&x.f, 2, 0, &p, err,
					       sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "t.yaml:15: the link s2 - s3 joins "
				    "partitions 0 and 1 and has no delay"));
	assert_null(p.part);
	/* s3 pinned with s2: it no longer crosses; s2 takes r1 along, not
	 * the pinned r2 */
	x.f.nodes[ibex_fabric_node_find(&x.f, "s3")].pin = 0;
	assert_int_equal(ibex_fabric_partition(&x.f, 2, 0, &p, err,
					       sizeof(err)), 0);
	assert_int_equal(part_of(&x, &p, "s1"), 0);
	assert_int_equal(part_of(&x, &p, "s2"), 0);
	assert_int_equal(part_of(&x, &p, "s3"), 0);
	assert_int_equal(part_of(&x, &p, "r1"), 0);
	assert_int_equal(part_of(&x, &p, "r2"), 1);
	assert_int_equal(p.size[1].switches, 0);
	assert_int_equal(p.size[1].ranks, 1);
	assert_int_equal(p.cross_links, 1);
	assert_int_equal(p.lookahead_ps, 500000);
	ibex_fabric_partition_free(&p);
	/* a pin past the count */
	x.f.nodes[ibex_fabric_node_find(&x.f, "r2")].pin = 2;
	assert_int_equal(ibex_fabric_partition(&x.f, 2, 0, &p, err,
					       sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "t.yaml:9: node r2: partition 2, but the "
				    "run has 2"));
	unload(&x);
}

/* The parser's side of pins. */
static void
test_pin_parse(void **state)
{
	static const char *const bad[] = { "-1", "x", "4096", "1.5", "[1]" };
	struct ibex_fabric f;
	char text[512];
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text),
			 "topology:\n  nodes:\n    s1: {kind: ibex, "
			 "partition: %s}\n    r0: {kind: rank}\n  links:\n"
			 "    - endpoints: [\"r0:eth0\", \"s1:p0\"]\n", bad[i]);
		memset(&f, 0, sizeof(f));
		assert_int_equal(ibex_fabric_parse(&f, text, strlen(text), "t",
						   err, sizeof(err)), -EINVAL);
		assert_non_null(strstr(err, "t:3:"));
		assert_non_null(strstr(err, "partition"));
	}
	snprintf(text, sizeof(text),
		 "topology:\n  nodes:\n    s1: {kind: ibex, partition: 7}\n"
		 "    r0: {kind: rank}\n  links:\n"
		 "    - endpoints: [\"r0:eth0\", \"s1:p0\"]\n");
	assert_int_equal(ibex_fabric_parse(&f, text, strlen(text), "t", err,
					   sizeof(err)), 0);
	assert_int_equal(f.nodes[0].pin, 7);
	assert_int_equal(f.nodes[1].pin, IBEX_FABRIC_NONE);
	ibex_fabric_free(&f);
}

/* The plan as printed. */
static void
test_print(void **state)
{
	struct fixture x;
	struct ibex_fabric_partition p;
	char *buf = NULL;
	size_t len;
	FILE *m;

	(void)state;
	load_text(&x, star);
	assert_int_equal(ibex_fabric_partition(&x.f, 2, 0, &p, err,
					       sizeof(err)), 0);
	m = open_memstream(&buf, &len);
	assert_non_null(m);
	assert_int_equal(ibex_fabric_partition_print(&x.f, &p, m), 0);
	assert_int_equal(fclose(m), 0);
	assert_non_null(strstr(buf, "two: 2 partitions of 3 groups (a switch "
				    "each); 1 of 7 links cross"));
	assert_non_null(strstr(buf, "lookahead: 0.200 us (the link s1 - s2, "
				    "line 19)"));
	free(buf);
	ibex_fabric_partition_free(&p);
	unload(&x);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fattree_pods),
		cmocka_unit_test(test_leaf_spine),
		cmocka_unit_test(test_single_tier),
		cmocka_unit_test(test_rankless_leaf),
		cmocka_unit_test(test_pins),
		cmocka_unit_test(test_pin_parse),
		cmocka_unit_test(test_print),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
