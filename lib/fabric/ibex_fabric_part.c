/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Partitioning a fabric over the processes of a run (ibex_fabric_part.h
 * has the rule). Pure: the same topology and count give the same
 * partitions, on any host.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ibex_fabric_part.h"

static int __attribute__((format(printf, 5, 6)))
part_fail(const struct ibex_fabric *f, int line, char *err, size_t errlen,
	  const char *fmt, ...)
{
	char msg[448];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (line > 0)
		snprintf(err, errlen, "%s:%d: %s", f->origin, line, msg);
	else
		snprintf(err, errlen, "%s", msg);
	return -EINVAL;
}

static inline bool
is_switch(const struct ibex_fabric *f, uint32_t i)
{
	return f->nodes[i].kind == IBEX_FABRIC_SWITCH;
}

/* Link ends of node @p n. */
static uint32_t
ends_of(const struct ibex_fabric *f, uint32_t n)
{
	uint32_t e = 0;
	uint16_t p;

	for (p = 0; p < f->nodes[n].n_ports; p++)
		e += f->nodes[n].port[p].link != IBEX_FABRIC_NONE;
	return e;
}

static inline bool
in_top(const struct ibex_fabric *f, uint32_t top, uint32_t i)
{
	return top != 0 && is_switch(f, i) && f->nodes[i].rank == top;
}

/*
 * Step 1, coarse: the connected components of the fabric without its top
 * tier, numbered in the order of their first node. @p group[i] for every
 * node below the top; @return how many.
 */
static uint32_t
groups_coarse(const struct ibex_fabric *f, uint32_t top, uint32_t *group,
	      uint32_t *queue)
{
	uint32_t i, n = 0;

	for (i = 0; i < f->n_nodes; i++)
		group[i] = IBEX_FABRIC_NONE;
	for (i = 0; i < f->n_nodes; i++) {
		uint32_t head = 0, tail = 0;

		if (group[i] != IBEX_FABRIC_NONE || in_top(f, top, i))
			continue;
		group[i] = n;
		queue[tail++] = i;
		while (head < tail) {
			uint32_t a = queue[head++];
			uint16_t p;

			for (p = 0; p < f->nodes[a].n_ports; p++) {
				uint32_t b = ibex_fabric_neighbour(f, a, p);

				if (b == IBEX_FABRIC_NONE ||
				    group[b] != IBEX_FABRIC_NONE ||
				    in_top(f, top, b))
					continue;
				group[b] = n;
				queue[tail++] = b;
			}
		}
		n++;
	}
	return n;
}

/* How many of the groups left without tier @p top hold a rank. */
static uint32_t
groups_with_ranks(const struct ibex_fabric *f, uint32_t top, uint32_t *group,
		  uint32_t *queue)
{
	uint32_t n = groups_coarse(f, top, group, queue), i, k = 0;
	uint8_t *has = calloc(n + 1, 1);

	if (has == NULL)
		return 0;
	for (i = 0; i < f->n_nodes; i++)
		if (!is_switch(f, i) && group[i] != IBEX_FABRIC_NONE)
			has[group[i]] = 1;
	for (i = 0; i < n; i++)
		k += has[i];
	free(has);
	return k;
}

/*
 * The top tier: the highest up/down rank (2 or more) whose switches,
 * set aside, cut the ranks apart: a leaf-spine's spines, a fat tree's
 * cores. Not merely the highest rank: a switch without ranks of its own
 * hung below the spines (a leaf not yet cabled to hosts) ranks above
 * them, and setting it aside cuts nothing. 0 when no tier does (a single
 * tier): nothing is set aside.
 */
static uint32_t
top_tier(const struct ibex_fabric *f, uint32_t *group, uint32_t *queue)
{
	uint32_t i, top = 0, t;

	for (i = 0; i < f->n_nodes; i++)
		if (is_switch(f, i) && f->nodes[i].rank > top)
			top = f->nodes[i].rank;
	for (t = top; t >= 2; t--)
		if (groups_with_ranks(f, t, group, queue) >= 2)
			return t;
	return 0;
}

/* Step 1, fine: each switch below the top a group, each rank in its
 * switch's (a rank has one link; one without stays alone). */
static uint32_t
groups_fine(const struct ibex_fabric *f, uint32_t top, uint32_t *group)
{
	uint32_t i, n = 0;

	for (i = 0; i < f->n_nodes; i++)
		group[i] = IBEX_FABRIC_NONE;
	for (i = 0; i < f->n_nodes; i++)
		if (is_switch(f, i) && !in_top(f, top, i))
			group[i] = n++;
	for (i = 0; i < f->n_nodes; i++) {
		uint32_t sw;

		if (is_switch(f, i))
			continue;
		sw = f->nodes[i].n_ports != 0 ? ibex_fabric_neighbour(f, i, 0) :
		     IBEX_FABRIC_NONE;
		if (sw != IBEX_FABRIC_NONE && group[sw] != IBEX_FABRIC_NONE)
			group[i] = group[sw];
		else
			group[i] = n++;
	}
	return n;
}

/*
 * Step 2: groups to partitions in contiguous blocks. Group g goes past
 * partition k when its middle lies past k's share of the weight, and no
 * later than where every partition left can still get one.
 */
static void
deal_groups(const struct ibex_fabric *f, const uint32_t *group,
	    uint32_t n_groups, uint32_t n_parts, uint32_t *gpart,
	    uint64_t *weight)
{
	uint64_t total = 0, acc = 0;
	uint32_t i, g, k = 0, in_k = 0;

	memset(weight, 0, n_groups * sizeof(*weight));
	for (i = 0; i < f->n_nodes; i++)
		if (group[i] != IBEX_FABRIC_NONE)
			weight[group[i]] += ends_of(f, i) + 1;
	for (g = 0; g < n_groups; g++)
		total += weight[g];
	for (g = 0; g < n_groups; g++) {
		bool must = n_groups - g == n_parts - 1 - k;
		bool past = (2 * acc + weight[g]) * n_parts >
			    2 * (uint64_t)(k + 1) * total;

		if (k + 1 < n_parts && in_k > 0 && (must || past)) {
			k++;
			in_k = 0;
		}
		gpart[g] = k;
		in_k++;
		acc += weight[g];
	}
}

/* Step 3: the top tier in contiguous blocks of equal count. */
static void
deal_top(const struct ibex_fabric *f, uint32_t top, uint32_t n_parts,
	 uint32_t *part)
{
	uint32_t i, n_top = 0, j = 0;

	for (i = 0; i < f->n_nodes; i++)
		n_top += in_top(f, top, i);
	for (i = 0; i < f->n_nodes; i++)
		if (in_top(f, top, i))
			part[i] = (uint32_t)((uint64_t)j++ * n_parts / n_top);
}

/* Step 4: pins; a pinned switch takes its unpinned ranks along. */
static int
apply_pins(const struct ibex_fabric *f, uint32_t n_parts, uint32_t *part,
	   char *err, size_t errlen)
{
	uint32_t i;

	for (i = 0; i < f->n_nodes; i++) {
		const struct ibex_fabric_node *n = &f->nodes[i];
		uint16_t p;

		if (n->pin == IBEX_FABRIC_NONE)
			continue;
		if (n->pin >= n_parts)
			return part_fail(f, n->line, err, errlen, "node %s: "
					 "partition %" PRIu32 ", but the run "
					 "has %" PRIu32 " (0..%" PRIu32 ")",
					 n->name, n->pin, n_parts,
					 n_parts - 1);
		part[i] = n->pin;
		if (!is_switch(f, i))
			continue;
		for (p = 0; p < n->n_ports; p++) {
			uint32_t b = ibex_fabric_neighbour(f, i, p);

			if (b != IBEX_FABRIC_NONE && !is_switch(f, b) &&
			    f->nodes[b].pin == IBEX_FABRIC_NONE)
				part[b] = n->pin;
		}
	}
	return 0;
}

/* The nodes' counts per partition, the crossing links, the lookahead. */
static int
measure(const struct ibex_fabric *f, uint64_t switch_latency_ps,
	struct ibex_fabric_partition *p, char *err, size_t errlen)
{
	uint32_t i, l;

	p->lookahead_ps = UINT64_MAX;
	p->lookahead_link = IBEX_FABRIC_NONE;
	for (i = 0; i < f->n_nodes; i++) {
		struct ibex_fabric_part_size *z = &p->size[p->part[i]];

		if (is_switch(f, i))
			z->switches++;
		else
			z->ranks++;
		z->ends += ends_of(f, i);
	}
	for (l = 0; l < f->n_links; l++) {
		const struct ibex_fabric_link *k = &f->links[l];
		uint32_t a = k->end[0].node, b = k->end[1].node;
		uint64_t la;

		if (p->part[a] == p->part[b])
			continue;
		p->cross_links++;
		p->size[p->part[a]].cross++;
		p->size[p->part[b]].cross++;
		/* the sooner of the two directions: a switch's wire carries
		 * its latency too, a rank's does not */
		la = k->delay_ps + (is_switch(f, a) && is_switch(f, b) ?
				    switch_latency_ps : 0);
		if (la == 0)
			return part_fail(f, k->line, err, errlen, "the link "
					 "%s - %s joins partitions %" PRIu32
					 " and %" PRIu32 " and has no delay: "
					 "a partition could not run ahead of "
					 "the other at all (give it a delay, "
					 "or pin both ends to one partition)",
					 f->nodes[a].name, f->nodes[b].name,
					 p->part[a], p->part[b]);
		if (la < p->lookahead_ps) {
			p->lookahead_ps = la;
			p->lookahead_link = l;
		}
	}
	return 0;
}

int
ibex_fabric_partition(const struct ibex_fabric *f, uint32_t n_parts,
		      uint64_t switch_latency_ps,
		      struct ibex_fabric_partition *p, char *err,
		      size_t errlen)
{
	uint32_t *group = NULL, *queue = NULL, *gpart = NULL, i, top;
	uint64_t *weight = NULL;
	int ret = -ENOMEM;

	memset(p, 0, sizeof(*p));
	if (n_parts == 0 || n_parts > IBEX_FABRIC_PART_MAX)
		return part_fail(f, 0, err, errlen, "partitions: 1..%d, not "
				 "%" PRIu32, IBEX_FABRIC_PART_MAX, n_parts);
	p->n_parts = n_parts;
	p->part = calloc(f->n_nodes + 1, sizeof(*p->part));
	p->size = calloc(n_parts, sizeof(*p->size));
	group = calloc(f->n_nodes + 1, sizeof(*group));
	queue = calloc(f->n_nodes + 1, sizeof(*queue));
	if (p->part == NULL || p->size == NULL || group == NULL ||
	    queue == NULL)
		goto out;
	top = top_tier(f, group, queue);
	p->groups = groups_coarse(f, top, group, queue);
	if (p->groups < n_parts) {
		p->fine = true;
		p->groups = groups_fine(f, top, group);
	}
	if (p->groups < n_parts) {
		ret = part_fail(f, 0, err, errlen, "%" PRIu32 " partitions, "
				"but %s has %" PRIu32 " groups to deal (a "
				"switch below the top tier and its ranks "
				"each): at most %" PRIu32 " processes",
				n_parts, f->origin, p->groups, p->groups);
		goto out;
	}
	gpart = calloc(p->groups, sizeof(*gpart));
	weight = calloc(p->groups, sizeof(*weight));
	if (gpart == NULL || weight == NULL)
		goto out;
	deal_groups(f, group, p->groups, n_parts, gpart, weight);
	for (i = 0; i < f->n_nodes; i++)
		if (group[i] != IBEX_FABRIC_NONE)
			p->part[i] = gpart[group[i]];
	deal_top(f, top, n_parts, p->part);
	ret = apply_pins(f, n_parts, p->part, err, errlen);
	if (ret == 0)
		ret = measure(f, switch_latency_ps, p, err, errlen);
out:
	free(group);
	free(queue);
	free(gpart);
	free(weight);
	if (ret != 0)
		ibex_fabric_partition_free(p);
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	return ret;
}

void
ibex_fabric_partition_free(struct ibex_fabric_partition *p)
{
	free(p->part);
	free(p->size);
	memset(p, 0, sizeof(*p));
}

int
ibex_fabric_partition_print(const struct ibex_fabric *f,
			    const struct ibex_fabric_partition *p, FILE *out)
{
	uint32_t k;

	fprintf(out, "%s: %" PRIu32 " partitions of %" PRIu32 " groups%s; "
		"%" PRIu32 " of %" PRIu32 " links cross\n",
		f->name[0] != '\0' ? f->name : f->origin, p->n_parts,
		p->groups, p->fine ? " (a switch each)" : "",
		p->cross_links, f->n_links);
	fprintf(out, "partition  switches     ranks  link ends  crossing\n");
	for (k = 0; k < p->n_parts; k++)
		fprintf(out, "%9" PRIu32 " %9" PRIu32 " %9" PRIu32 " %10"
			PRIu32 " %9" PRIu32 "\n", k, p->size[k].switches,
			p->size[k].ranks, p->size[k].ends, p->size[k].cross);
	if (p->lookahead_link == IBEX_FABRIC_NONE) {
		fprintf(out, "lookahead: none needed (no link crosses)\n");
	} else {
		const struct ibex_fabric_link *l = &f->links[p->lookahead_link];

		fprintf(out, "lookahead: %.3f us (the link %s - %s, line %d)\n",
			(double)p->lookahead_ps / 1e6,
			f->nodes[l->end[0].node].name,
			f->nodes[l->end[1].node].name, l->line);
	}
	return ferror(out) ? -EIO : 0;
}
