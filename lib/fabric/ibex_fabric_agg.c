/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Aggregation trees from the fabric manager (ibex_fabric_agg.h has the
 * rule).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ibex_fabric_agg.h"

#define NONE IBEX_FABRIC_NONE

/* Scratch of one plan, per node. A BFS marks what it visits with a stamp
 * of its own, so nothing is cleared between searches. */
struct agg_ctx {
	const struct ibex_fabric *f;
	uint32_t n_ranks;
	uint32_t *rank_node;    /* [n_ranks]: rank index -> node */
	uint32_t *queue;        /* BFS order */
	uint32_t *seen;         /* stamp of the last BFS that reached it */
	uint32_t *parent;       /* in that BFS: its discoverer */
	uint16_t *down_port;    /* the discoverer's port towards it */
	uint32_t *leaf;         /* job stamp when a leaf of the job */
	uint8_t *below;         /* a leaf of the job at or below it */
	uint32_t stamp, job_stamp;
};

static int __attribute__((format(printf, 3, 4)))
agg_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static inline bool
is_switch(const struct ibex_fabric *f, uint32_t n)
{
	return n != NONE && f->nodes[n].kind == IBEX_FABRIC_SWITCH;
}

/* The switch rank node @p n hangs off (its first link), or NONE. */
static uint32_t
leaf_of(const struct ibex_fabric *f, uint32_t n, uint16_t *port_there)
{
	uint16_t p;

	for (p = 0; p < f->nodes[n].n_ports; p++) {
		uint32_t l = f->nodes[n].port[p].link;
		struct ibex_fabric_end e = { .node = n, .port = p };

		if (l == NONE)
			continue;
		e = ibex_fabric_peer(f, l, e);
		*port_there = e.port;
		return is_switch(f, e.node) ? e.node : NONE;
	}
	return NONE;
}

/*
 * Search down from @p root (to switches of a lower tier only, by port
 * order), then mark which switches have a leaf of the job at or below
 * them. @return the leaves reached; c->queue[0..*n_out) the order.
 */
static uint32_t
search_down(struct agg_ctx *c, uint32_t root, uint32_t *n_out)
{
	const struct ibex_fabric *f = c->f;
	uint32_t head = 0, tail = 0, leaves = 0, i;
	uint16_t p;

	c->stamp++;
	c->seen[root] = c->stamp;
	c->parent[root] = NONE;
	c->queue[tail++] = root;
	while (head < tail) {
		uint32_t n = c->queue[head++];

		for (p = 0; p < f->nodes[n].n_ports; p++) {
			uint32_t m = ibex_fabric_neighbour(f, n, p);

			if (!is_switch(f, m) || c->seen[m] == c->stamp ||
			    f->nodes[m].rank >= f->nodes[n].rank)
				continue;
			c->seen[m] = c->stamp;
			c->parent[m] = n;
			c->down_port[m] = p;
			c->queue[tail++] = m;
		}
	}
	for (i = tail; i-- > 0;) {
		uint32_t n = c->queue[i];

		c->below[n] = c->leaf[n] == c->job_stamp;
		leaves += c->below[n];
	}
	for (i = tail; i-- > 1;) {
		uint32_t n = c->queue[i];

		if (c->below[n])
			c->below[c->parent[n]] = 1;
	}
	*n_out = tail;
	return leaves;
}

_Static_assert(IBEX_MAX_PORTS <= IBEX_FABRIC_AGG_MAX_CHILDREN,
	       "a switch's children in a tree are at most its ports");

/* How a root would serve the job. */
struct root_eval {
	uint32_t node;
	uint32_t min_free;      /* slots left at its tightest switch */
	uint32_t tight;         /* that switch */
	uint64_t used;          /* slots the other trees take on its switches */
	uint32_t roots;         /* trees rooted there already */
};

/* The tree from @p root, after search_down(): its tightest switch and
 * what the other trees take of its switches. (Every switch can sum its
 * children: they are at most its ports.) */
static void
evaluate(const struct agg_ctx *c, const struct ibex_fabric_agg_plan *pl,
	 uint32_t capacity, uint32_t root, uint32_t n_bfs,
	 struct root_eval *ev)
{
	uint32_t i;

	memset(ev, 0, sizeof(*ev));
	ev->node = root;
	ev->min_free = UINT32_MAX;
	ev->tight = NONE;
	ev->roots = pl->roots[root];
	for (i = 0; i < n_bfs; i++) {
		uint32_t n = c->queue[i], used = pl->slots_used[n];
		uint32_t free_ = used < capacity ? capacity - used : 0;

		if (!c->below[n])
			continue;
		ev->used += used;
		if (free_ < ev->min_free) {
			ev->min_free = free_;
			ev->tight = n;
		}
	}
}

/* Whether @p a serves better than @p b (b may be unset: node NONE). */
static bool
better(const struct root_eval *a, const struct root_eval *b)
{
	if (b->node == NONE)
		return true;
	if (a->min_free != b->min_free)
		return a->min_free > b->min_free;
	if (a->used != b->used)
		return a->used < b->used;
	return a->roots < b->roots; /* then the earlier: seen first */
}

/* Write the tree of @p root (search_down() just ran from it) into @p t
 * and take its slots. */
static int
take_tree(struct agg_ctx *c, struct ibex_fabric_agg_plan *pl,
	  const struct ibex_fabric_agg_req *r, uint32_t root, uint32_t n_bfs,
	  struct ibex_fabric_agg_tree *t)
{
	const struct ibex_fabric *f = c->f;
	uint32_t i, j, n_sw = 0, *idx;
	uint16_t p, port;

	for (i = 0; i < n_bfs; i++)
		n_sw += c->below[c->queue[i]];
	t->sw = calloc(n_sw, sizeof(*t->sw));
	idx = calloc(f->n_nodes, sizeof(*idx));
	if (t->sw == NULL || idx == NULL) {
		free(idx);
		return -ENOMEM;
	}
	/* root first, then the search's order: by tier down */
	for (i = 0; i < n_bfs; i++) {
		uint32_t n = c->queue[i];
		struct ibex_fabric_agg_sw *s;

		if (!c->below[n])
			continue;
		idx[n] = t->n_sw;
		s = &t->sw[t->n_sw++];
		s->node = n;
		s->parent = n == root ? NONE : idx[c->parent[n]];
		pl->slots_used[n] += r->n_slots;
	}
	/* children: the job's ranks at a leaf, in rank order, then the
	 * switches below, in port order */
	for (j = 0; j < r->n_ranks; j++) {
		uint32_t leaf = leaf_of(f, c->rank_node[r->ranks[j]], &port);
		struct ibex_fabric_agg_sw *s = &t->sw[idx[leaf]];

		s->child_port[s->n_children] = port;
		s->child_node[s->n_children++] = c->rank_node[r->ranks[j]];
	}
	for (i = 0; i < t->n_sw; i++) {
		struct ibex_fabric_agg_sw *s = &t->sw[i];

		for (p = 0; p < f->nodes[s->node].n_ports; p++) {
			uint32_t m = ibex_fabric_neighbour(f, s->node, p);
			struct ibex_fabric_agg_sw *k;

			if (!is_switch(f, m) || c->seen[m] != c->stamp ||
			    c->parent[m] != s->node || c->down_port[m] != p ||
			    !c->below[m])
				continue;
			k = &t->sw[idx[m]];
			k->up_child = s->n_children;
			s->child_port[s->n_children] = p;
			s->child_node[s->n_children++] = m;
		}
	}
	/* each switch's port towards its parent, and the depth */
	for (i = 1; i < t->n_sw; i++) {
		struct ibex_fabric_agg_sw *s = &t->sw[i];
		const struct ibex_fabric_agg_sw *up = &t->sw[s->parent];
		struct ibex_fabric_end e = { .node = up->node,
			.port = up->child_port[s->up_child] };
		uint32_t l = f->nodes[e.node].port[e.port].link;

		s->up_port = ibex_fabric_peer(f, l, e).port;
	}
	t->depth = 1;
	for (i = 0; i < t->n_sw; i++) {
		uint32_t d = 1, k = i;

		while (t->sw[k].parent != NONE) {
			k = t->sw[k].parent;
			d++;
		}
		if (d > t->depth)
			t->depth = d;
	}
	pl->roots[root]++;
	free(idx);
	return 0;
}

/* Mark the job's leaves; the highest tier among them in @p top, one of
 * them in @p one. @return the leaves, or 0 with the reason in t->why. */
static uint32_t
mark_leaves(struct agg_ctx *c, const struct ibex_fabric_agg_req *r,
	    struct ibex_fabric_agg_tree *t, uint32_t *top, uint32_t *one)
{
	const struct ibex_fabric *f = c->f;
	uint32_t j, leaves = 0;
	uint16_t port;

	c->job_stamp++;
	*top = 0;
	for (j = 0; j < r->n_ranks; j++) {
		uint32_t n = c->rank_node[r->ranks[j]];
		uint32_t leaf = leaf_of(f, n, &port);

		if (leaf == NONE) {
			snprintf(t->why, sizeof(t->why), "rank %u (%s) is "
				 "linked to no switch", r->ranks[j],
				 f->nodes[n].name);
			return 0;
		}
		if (c->leaf[leaf] != c->job_stamp) {
			c->leaf[leaf] = c->job_stamp;
			leaves++;
			*one = leaf;
			if (f->nodes[leaf].rank > *top)
				*top = f->nodes[leaf].rank;
		}
	}
	return leaves;
}

static uint32_t
max_tier(const struct ibex_fabric *f)
{
	uint32_t i, top = 0;

	for (i = 0; i < f->n_nodes; i++)
		if (is_switch(f, i) && f->nodes[i].rank > top)
			top = f->nodes[i].rank;
	return top;
}

/* Why the best root found could not be taken. */
static void
refusal(const struct ibex_fabric *f, const struct ibex_fabric_agg_req *r,
	const struct root_eval *best, uint32_t capacity,
	struct ibex_fabric_agg_tree *t)
{
	if (best->node == NONE)
		snprintf(t->why, sizeof(t->why), "no switch reaches all %u "
			 "ranks' leaves going down", r->n_ranks);
	else
		snprintf(t->why, sizeof(t->why), "switch %s has %u of its %u "
			 "slots free, the job asks for %u",
			 f->nodes[best->tight].name, best->min_free, capacity,
			 r->n_slots);
}

/* One job: its tree, or its refusal. */
static int
plan_job(struct agg_ctx *c, struct ibex_fabric_agg_plan *pl,
	 const struct ibex_fabric_agg_req *r, uint32_t capacity,
	 struct ibex_fabric_agg_tree *t)
{
	const struct ibex_fabric *f = c->f;
	struct root_eval ev, best = { .node = NONE }, nearest = { .node = NONE };
	uint32_t top, one = NONE, leaves, tier, i, n_bfs, tiers = max_tier(f);

	leaves = mark_leaves(c, r, t, &top, &one);
	if (leaves == 0) {
		t->refused = true;
		return 0;
	}
	/* one leaf: the tree is that switch; else the lowest tier whose
	 * switches reach every leaf, the next tier up when none fits */
	for (tier = leaves == 1 ? f->nodes[one].rank : top + 1;
	     tier <= tiers; tier++) {
		best.node = NONE;
		for (i = 0; i < f->n_nodes; i++) {
			if (!is_switch(f, i) || f->nodes[i].rank != tier ||
			    (leaves == 1 && i != one) ||
			    search_down(c, i, &n_bfs) != leaves)
				continue;
			evaluate(c, pl, capacity, i, n_bfs, &ev);
			/* the refusal names the nearest miss */
			if (better(&ev, &nearest))
				nearest = ev;
			if (ev.min_free >= r->n_slots && better(&ev, &best))
				best = ev;
		}
		if (best.node != NONE) {
			search_down(c, best.node, &n_bfs);
			return take_tree(c, pl, r, best.node, n_bfs, t);
		}
		if (leaves == 1)
			break;
	}
	t->refused = true;
	refusal(f, r, &nearest, capacity, t);
	return 0;
}

static int
check_req(const struct ibex_fabric_agg_req *req, uint32_t n_jobs,
	  uint32_t n_ranks, char *err, size_t errlen)
{
	uint32_t i, j;

	if (n_jobs > IBEX_FABRIC_AGG_MAX_JOBS)
		return agg_fail(err, errlen, "%u jobs: at most %u", n_jobs,
				IBEX_FABRIC_AGG_MAX_JOBS);
	for (i = 0; i < n_jobs; i++) {
		const struct ibex_fabric_agg_req *r = &req[i];

		if (r->n_ranks == 0)
			return agg_fail(err, errlen, "job %s: no ranks",
					r->name);
		if (r->n_slots == 0)
			return agg_fail(err, errlen, "job %s: no slots",
					r->name);
		for (j = 0; j < r->n_ranks; j++) {
			if (r->ranks[j] >= n_ranks)
				return agg_fail(err, errlen, "job %s: rank %u: "
						"the fabric has ranks 0..%u",
						r->name, r->ranks[j],
						n_ranks - 1);
			if (j > 0 && r->ranks[j] <= r->ranks[j - 1])
				return agg_fail(err, errlen, "job %s: ranks "
						"must increase (%u after %u)",
						r->name, r->ranks[j],
						r->ranks[j - 1]);
		}
		for (j = 0; j < i; j++)
			if (req[j].id == r->id)
				return agg_fail(err, errlen, "jobs %s and %s: "
						"both id %u", req[j].name,
						r->name, r->id);
	}
	return 0;
}

static void
ctx_free(struct agg_ctx *c)
{
	free(c->rank_node);
	free(c->queue);
	free(c->seen);
	free(c->parent);
	free(c->down_port);
	free(c->leaf);
	free(c->below);
}

static int
ctx_init(struct agg_ctx *c, const struct ibex_fabric *f)
{
	uint32_t i, n = f->n_nodes != 0 ? f->n_nodes : 1;

	memset(c, 0, sizeof(*c));
	c->f = f;
	c->rank_node = calloc(n, sizeof(uint32_t));
	c->queue = calloc(n, sizeof(uint32_t));
	c->seen = calloc(n, sizeof(uint32_t));
	c->parent = calloc(n, sizeof(uint32_t));
	c->down_port = calloc(n, sizeof(uint16_t));
	c->leaf = calloc(n, sizeof(uint32_t));
	c->below = calloc(n, 1);
	if (c->rank_node == NULL || c->queue == NULL || c->seen == NULL ||
	    c->parent == NULL || c->down_port == NULL || c->leaf == NULL ||
	    c->below == NULL) {
		ctx_free(c);
		return -ENOMEM;
	}
	for (i = 0; i < f->n_nodes; i++)
		if (f->nodes[i].kind == IBEX_FABRIC_RANK)
			c->rank_node[c->n_ranks++] = i;
	return 0;
}

int
ibex_fabric_agg_plan(const struct ibex_fabric *f,
		     const struct ibex_fabric_agg_req *req, uint32_t n_jobs,
		     uint32_t capacity, struct ibex_fabric_agg_plan *plan,
		     char *err, size_t errlen)
{
	struct agg_ctx c;
	uint32_t i;
	int ret;

	memset(plan, 0, sizeof(*plan));
	ret = ctx_init(&c, f);
	if (ret != 0)
		return ret;
	ret = check_req(req, n_jobs, c.n_ranks, err, errlen);
	plan->slots_used = calloc(f->n_nodes + 1, sizeof(uint32_t));
	plan->roots = calloc(f->n_nodes + 1, sizeof(uint32_t));
	if (ret == 0 && (plan->slots_used == NULL || plan->roots == NULL))
		ret = -ENOMEM;
	for (i = 0; ret == 0 && i < n_jobs; i++) {
		plan->n_jobs = i + 1;
		ret = plan_job(&c, plan, &req[i], capacity, &plan->tree[i]);
	}
	ctx_free(&c);
	if (ret != 0)
		ibex_fabric_agg_plan_free(plan);
	return ret;
}

void
ibex_fabric_agg_plan_free(struct ibex_fabric_agg_plan *plan)
{
	uint32_t i;

	for (i = 0; i < plan->n_jobs; i++)
		free(plan->tree[i].sw);
	free(plan->slots_used);
	free(plan->roots);
	memset(plan, 0, sizeof(*plan));
}

/* ---- "NAME:ID:RANKS[:SLOTS]" ---- */

static int
parse_u32(const char *s, const char *end, uint32_t *v)
{
	uint64_t x = 0;

	if (s == end)
		return -EINVAL;
	for (; s < end; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		x = x * 10 + (uint64_t)(*s - '0');
		if (x > UINT32_MAX)
			return -EINVAL;
	}
	*v = (uint32_t)x;
	return 0;
}

/* "0-7,16,20-23" into r->ranks (two passes: count, then fill). */
static int
parse_ranks(const char *s, const char *end, struct ibex_fabric_agg_req *r,
	    char *err, size_t errlen)
{
	uint32_t pass, n = 0;

	for (pass = 0; pass < 2; pass++) {
		const char *p = s;

		n = 0;
		while (p < end) {
			const char *comma = memchr(p, ',', (size_t)(end - p));
			const char *e = comma != NULL ? comma : end;
			const char *dash = memchr(p, '-', (size_t)(e - p));
			uint32_t a, b, k;

			if (parse_u32(p, dash != NULL ? dash : e, &a) != 0 ||
			    parse_u32(dash != NULL ? dash + 1 : p, e, &b) != 0 ||
			    b < a || b - a >= IBEX_FABRIC_MAX_NODES)
				return agg_fail(err, errlen, "'%.*s': not a "
						"rank or a range A-B",
						(int)(e - p), p);
			for (k = a; pass == 1 && k <= b; k++)
				r->ranks[n + k - a] = k;
			n += b - a + 1;
			if (n > IBEX_FABRIC_MAX_NODES)
				return agg_fail(err, errlen, "more than %u "
						"ranks", IBEX_FABRIC_MAX_NODES);
			p = comma != NULL ? comma + 1 : end;
		}
		if (pass == 0) {
			if (n == 0)
				return agg_fail(err, errlen, "no ranks");
			r->ranks = calloc(n, sizeof(uint32_t));
			if (r->ranks == NULL)
				return -ENOMEM;
		}
	}
	r->n_ranks = n;
	return 0;
}

int
ibex_fabric_agg_req_parse(const char *s, struct ibex_fabric_agg_req *r,
			  char *err, size_t errlen)
{
	const char *c1 = strchr(s, ':'), *c2, *c3, *end = s + strlen(s);
	int ret;

	memset(r, 0, sizeof(*r));
	c2 = c1 != NULL ? strchr(c1 + 1, ':') : NULL;
	if (c1 == NULL || c2 == NULL || c1 == s ||
	    (size_t)(c1 - s) >= sizeof(r->name))
		return agg_fail(err, errlen, "'%s': expected NAME:ID:RANKS"
				"[:SLOTS], a name of 1..%zu characters", s,
				sizeof(r->name) - 1);
	memcpy(r->name, s, (size_t)(c1 - s));
	if (parse_u32(c1 + 1, c2, &r->id) != 0)
		return agg_fail(err, errlen, "job %s: id '%.*s': not a number",
				r->name, (int)(c2 - c1 - 1), c1 + 1);
	c3 = strchr(c2 + 1, ':');
	r->n_slots = IBEX_FABRIC_AGG_SLOTS_DEF;
	if (c3 != NULL && (parse_u32(c3 + 1, end, &r->n_slots) != 0 ||
			   r->n_slots == 0 || r->n_slots > UINT16_MAX))
		return agg_fail(err, errlen, "job %s: slots '%s': 1..%u",
				r->name, c3 + 1, UINT16_MAX);
	ret = parse_ranks(c2 + 1, c3 != NULL ? c3 : end, r, err, errlen);
	if (ret == -EINVAL) {
		char why[128];

		snprintf(why, sizeof(why), "%s", err);
		return agg_fail(err, errlen, "job %s: ranks: %s", r->name, why);
	}
	return ret;
}

/* ---- the plan, in words ---- */

static void
print_tree(FILE *o, const struct ibex_fabric *f,
	   const struct ibex_fabric_agg_tree *t)
{
	uint32_t i, k;

	for (i = 0; i < t->n_sw; i++) {
		const struct ibex_fabric_agg_sw *s = &t->sw[i];
		const struct ibex_fabric_node *n = &f->nodes[s->node];

		fprintf(o, "  %s:", n->name);
		if (s->parent != NONE)
			fprintf(o, " up %s to %s as child %u;",
				n->port[s->up_port].name,
				f->nodes[t->sw[s->parent].node].name,
				s->up_child);
		else
			fprintf(o, " root;");
		fprintf(o, " %u child%s:", s->n_children,
			s->n_children == 1 ? "" : "ren");
		for (k = 0; k < s->n_children; k++)
			fprintf(o, " %u=%s(%s)", k,
				f->nodes[s->child_node[k]].name,
				n->port[s->child_port[k]].name);
		fprintf(o, "\n");
	}
}

/* The slots the trees take: each switch's when few have any, else how
 * many switches and the fullest. */
static void
print_slots(FILE *o, const struct ibex_fabric *f,
	    const struct ibex_fabric_agg_plan *plan, uint32_t capacity)
{
	uint32_t i, n = 0, most = NONE;

	for (i = 0; i < f->n_nodes; i++) {
		if (plan->slots_used[i] == 0)
			continue;
		n++;
		if (most == NONE ||
		    plan->slots_used[i] > plan->slots_used[most])
			most = i;
	}
	fprintf(o, "slots in use (of %u a switch):", capacity);
	if (n > 16) {
		fprintf(o, " at %u switches, at most %u (%s)\n", n,
			plan->slots_used[most], f->nodes[most].name);
		return;
	}
	for (i = 0; i < f->n_nodes; i++)
		if (plan->slots_used[i] != 0)
			fprintf(o, " %s %u", f->nodes[i].name,
				plan->slots_used[i]);
	fprintf(o, n == 0 ? " none\n" : "\n");
}

int
ibex_fabric_agg_plan_print(const struct ibex_fabric *f,
			   const struct ibex_fabric_agg_req *req,
			   const struct ibex_fabric_agg_plan *plan,
			   uint32_t capacity, FILE *out)
{
	uint32_t i;

	for (i = 0; i < plan->n_jobs; i++) {
		const struct ibex_fabric_agg_tree *t = &plan->tree[i];
		const struct ibex_fabric_agg_req *r = &req[i];

		fprintf(out, "job %s (id %u, %u ranks, %u slots): ", r->name,
			r->id, r->n_ranks, r->n_slots);
		if (t->refused) {
			fprintf(out, "refused, runs as a ring: %s\n", t->why);
			continue;
		}
		fprintf(out, "root %s, %u level%s, %u switch%s\n",
			f->nodes[t->sw[0].node].name, t->depth,
			t->depth > 1 ? "s" : "", t->n_sw,
			t->n_sw > 1 ? "es" : "");
		print_tree(out, f, t);
	}
	print_slots(out, f, plan, capacity);
	return ferror(out) ? -EIO : 0;
}

/* One switch's line of one job's tree. */
static void
render_sw(FILE *o, const struct ibex_fabric *f,
	  const struct ibex_fabric_agg_req *r,
	  const struct ibex_fabric_agg_tree *t,
	  const struct ibex_fabric_agg_sw *s, uint16_t elements)
{
	const struct ibex_fabric_node *n = &f->nodes[s->node];
	uint32_t k;

	fprintf(o, "aggregation job %u children ", r->id);
	for (k = 0; k < s->n_children; k++)
		fprintf(o, "%s%s", k > 0 ? "," : "",
			n->port[s->child_port[k]].name);
	if (s->parent == NONE)
		fprintf(o, " parent root");
	else
		fprintf(o, " parent %s up-child %u", n->port[s->up_port].name,
			s->up_child);
	fprintf(o, " slots %u elements %u\n", r->n_slots, elements);
	(void)t;
}

int
ibex_fabric_agg_render(const struct ibex_fabric *f,
		       const struct ibex_fabric_agg_req *req,
		       const struct ibex_fabric_agg_plan *plan, uint32_t node,
		       uint16_t elements, FILE *out)
{
	uint32_t i, k;
	int n = 0;

	for (i = 0; i < plan->n_jobs; i++) {
		const struct ibex_fabric_agg_tree *t = &plan->tree[i];

		if (t->refused)
			continue;
		for (k = 0; k < t->n_sw; k++) {
			if (t->sw[k].node != node)
				continue;
			render_sw(out, f, &req[i], t, &t->sw[k], elements);
			n++;
		}
	}
	return ferror(out) ? -EIO : n;
}
