/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Generated topologies (ibex_topo.h): leaf-spine, the k-ary fat tree and
 * rail-optimized groups, written in lib/fabric's format.
 *
 * One walk per shape declares the nodes and the links through an emitter
 * that either writes them or only counts them, so the sizes checked
 * against the limits are those of the file written. Port numbers are
 * fixed by the shape (docs/fabric.md, "Generated topologies"): a
 * switch's ports to ranks come first, then its ports up, then down.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibex_common.h"
#include "ibex_fabric.h"
#include "ibex_topo.h"

#define DEFAULT_RATE_BPS UINT64_C(100000000000) /* lib/fabric's default too */
#define DEFAULT_DELAY_PS UINT64_C(500000)      /* 500ns */

static const char *const lane_keys[IBEX_TOPO_LANE_KEYS] = {
	"vls", "sl-from", "pcp2sl", "dscp2sl", "sl2vl", "vlarb", "lossless",
};

static const char *const shape_names[] = {
	[IBEX_TOPO_LEAF_SPINE] = "leaf-spine",
	[IBEX_TOPO_FATTREE] = "fattree",
	[IBEX_TOPO_RAIL] = "rail",
};

static int __attribute__((format(printf, 3, 4)))
fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

void
ibex_topo_init(struct ibex_topo *t, enum ibex_topo_shape shape)
{
	memset(t, 0, sizeof(*t));
	t->shape = (uint8_t)shape;
	t->uplinks = 1;
	t->rate_bps = DEFAULT_RATE_BPS;
	t->delay_ps = DEFAULT_DELAY_PS;
}

int
ibex_topo_shape_parse(const char *s)
{
	size_t i;

	for (i = 0; i < sizeof(shape_names) / sizeof(shape_names[0]); i++)
		if (strcmp(s, shape_names[i]) == 0)
			return (int)i;
	return -1;
}

void
ibex_topo_rank_mac(uint32_t i, uint8_t mac[6])
{
	mac[0] = 0x02;
	mac[1] = 0x49;
	mac[2] = (uint8_t)(i >> 24);
	mac[3] = (uint8_t)(i >> 16);
	mac[4] = (uint8_t)(i >> 8);
	mac[5] = (uint8_t)i;
}

/* A value written inside double quotes: printable, no quote or escape. */
static bool
quotable(const char *s)
{
	for (; *s != '\0'; s++)
		if (*s < 0x20 || *s > 0x7e || *s == '"' || *s == '\\')
			return false;
	return true;
}

int
ibex_topo_lane_set(struct ibex_topo *t, const char *kv, char *err,
		   size_t errlen)
{
	const char *eq = strchr(kv, '=');
	size_t i, klen;

	if (eq == NULL)
		return fail(err, errlen, "--lanes '%s': expected KEY=VALUE, "
			    "KEY one of vls, sl-from, pcp2sl, dscp2sl, sl2vl, "
			    "vlarb, lossless", kv);
	klen = (size_t)(eq - kv);
	for (i = 0; i < IBEX_TOPO_LANE_KEYS; i++)
		if (strlen(lane_keys[i]) == klen &&
		    strncmp(kv, lane_keys[i], klen) == 0)
			break;
	if (i == IBEX_TOPO_LANE_KEYS)
		return fail(err, errlen, "--lanes '%s': unknown key (one of "
			    "vls, sl-from, pcp2sl, dscp2sl, sl2vl, vlarb, "
			    "lossless)", kv);
	if (eq[1] == '\0' || strlen(eq + 1) >= IBEX_TOPO_LANE_LEN ||
	    !quotable(eq + 1))
		return fail(err, errlen, "--lanes '%s': the value must be 1 to "
			    "%d printable characters without '\"' or '\\'", kv,
			    IBEX_TOPO_LANE_LEN - 1);
	snprintf(t->lanes[i], sizeof(t->lanes[i]), "%s", eq + 1);
	return 0;
}

static bool
lanes_given(const struct ibex_topo *t)
{
	size_t i;

	for (i = 0; i < IBEX_TOPO_LANE_KEYS; i++)
		if (t->lanes[i][0] != '\0')
			return true;
	return false;
}

static int
write_lanes(const struct ibex_topo *t, FILE *out)
{
	const char *sep = "";
	size_t i;

	if (!lanes_given(t))
		return 0;
	fputs("  lanes: {", out);
	for (i = 0; i < IBEX_TOPO_LANE_KEYS; i++) {
		if (t->lanes[i][0] == '\0')
			continue;
		fprintf(out, "%s%s: \"%s\"", sep, lane_keys[i], t->lanes[i]);
		sep = ", ";
	}
	fputs("}\n", out);
	return 0;
}

int
ibex_topo_lanes_check(const struct ibex_topo *t, char *err, size_t errlen)
{
	struct ibex_fabric f;
	char *buf = NULL;
	size_t len = 0;
	FILE *m;
	int ret;

	if (!lanes_given(t))
		return 0;
	m = open_memstream(&buf, &len);
	if (m == NULL)
		return fail(err, errlen, "out of memory");
	fputs("name: lanes\ntopology:\n", m);
	write_lanes(t, m);
	fputs("  nodes: {s: {kind: ibex}, r: {kind: rank}}\n"
	      "  links: [{endpoints: [\"r:eth0\", \"s:p0\"]}]\n", m);
	if (fclose(m) != 0) {
		free(buf);
		return fail(err, errlen, "out of memory");
	}
	ret = ibex_fabric_parse(&f, buf, len, "--lanes", err, errlen);
	if (ret == 0)
		ibex_fabric_free(&f);
	free(buf);
	return ret < 0 ? -EINVAL : 0;
}

/* ---- the emitter ---- */

struct emit {
	FILE *out;               /* NULL: count only */
	struct ibex_topo_size sz;
	char host_attr[64];      /* a host link's rate/delay lines beyond the
				  * defaults ("" : none) */
	char fabric_attr[64];    /* a switch-switch link's */
};

static unsigned int
width(uint64_t n)
{
	unsigned int w = 1;

	for (n = n > 0 ? n - 1 : 0; n >= 10; n /= 10)
		w++;
	return w;
}

/* A node name: a prefix and an index zero-padded to @p w digits. */
struct nm {
	char s[IBEX_FABRIC_NAME_LEN];
};

static struct nm
name(const char *prefix, uint32_t i, unsigned int w)
{
	struct nm n;

	snprintf(n.s, sizeof(n.s), "%s%0*" PRIu32, prefix, (int)w, i);
	return n;
}

static void
switch_node(struct emit *e, const struct nm *n, uint32_t ports)
{
	e->sz.n_switches++;
	if (ports > e->sz.max_ports)
		e->sz.max_ports = ports;
	if (e->out != NULL)
		fprintf(e->out, "    %s: {kind: ibex, ports: %" PRIu32 "}\n",
			n->s, ports);
}

static void
rank_node(struct emit *e, const struct nm *n)
{
	uint8_t m[6];

	ibex_topo_rank_mac(e->sz.n_ranks, m);
	e->sz.n_ranks++;
	if (e->out != NULL)
		fprintf(e->out, "    %s: {kind: rank, mac: \"%02x:%02x:%02x:"
			"%02x:%02x:%02x\"}\n", n->s, m[0], m[1], m[2], m[3],
			m[4], m[5]);
}

/* A rank's link: rank @p r's eth0 to switch @p s's port @p p. */
static void
host_link(struct emit *e, const struct nm *r, const struct nm *s, uint32_t p)
{
	e->sz.n_links++;
	if (e->out != NULL)
		fprintf(e->out, "    - endpoints: [\"%s:eth0\", \"%s:p%" PRIu32
			"\"]\n%s", r->s, s->s, p, e->host_attr);
}

/* A switch-switch link: lower @p a port @p pa to upper @p b port @p pb. */
static void
fabric_link(struct emit *e, const struct nm *a, uint32_t pa,
	    const struct nm *b, uint32_t pb)
{
	e->sz.n_links++;
	if (e->out != NULL)
		fprintf(e->out, "    - endpoints: [\"%s:p%" PRIu32 "\", \"%s:p%"
			PRIu32 "\"]\n%s", a->s, pa, b->s, pb, e->fabric_attr);
}

static void
nodes_begin(struct emit *e)
{
	if (e->out != NULL)
		fputs("  nodes:\n", e->out);
}

static void
links_begin(struct emit *e)
{
	if (e->out != NULL)
		fputs("  links:\n", e->out);
}

/* ---- the shapes ---- */

static uint32_t
uplinks(const struct ibex_topo *t)
{
	return t->uplinks == 0 ? 1 : t->uplinks;
}

/*
 * Leaf-spine. Leaf l: p0..p(R-1) its ranks l*R + x, then p(R + s*U + u)
 * up to spine s; spine s: p(l*U + u) down to leaf l.
 */
static void
walk_leaf_spine(const struct ibex_topo *t, struct emit *e)
{
	uint32_t L = t->leaves, S = t->spines, R = t->ranks_per_leaf;
	uint32_t U = uplinks(t), l, s, u, x;
	unsigned int wl = width(L), ws = width(S);
	unsigned int wr = width((uint64_t)L * R);
	struct nm a, b;

	nodes_begin(e);
	for (s = 0; s < S; s++) {
		a = name("spine", s, ws);
		switch_node(e, &a, L * U);
	}
	for (l = 0; l < L; l++) {
		a = name("leaf", l, wl);
		switch_node(e, &a, R + S * U);
	}
	for (x = 0; x < L * R; x++) {
		a = name("rank", x, wr);
		rank_node(e, &a);
	}
	links_begin(e);
	for (x = 0; x < L * R; x++) {
		a = name("rank", x, wr);
		b = name("leaf", x / R, wl);
		host_link(e, &a, &b, x % R);
	}
	for (l = 0; l < L; l++) {
		a = name("leaf", l, wl);
		for (s = 0; s < S; s++) {
			b = name("spine", s, ws);
			for (u = 0; u < U; u++)
				fabric_link(e, &a, R + s * U + u, &b,
					    l * U + u);
		}
	}
}

/*
 * The k-ary fat tree, h = k/2. Edge e (pod e / h, position e % h):
 * p0..p(h-1) its ranks e*h + x, p(h + j) up to its pod's aggregation
 * switch j. Aggregation a (pod a / h, position j = a % h): p(i) down to
 * its pod's edge i, p(h + c) up to core j*h + c. Core c: p(pod) down to
 * that pod's aggregation switch c / h.
 */
/* The pods a fat tree builds (--pods, else all k). */
static uint32_t
fattree_pods(const struct ibex_topo *t)
{
	return t->pods != 0 ? t->pods : t->k;
}

static void
walk_fattree(const struct ibex_topo *t, struct emit *e)
{
	uint32_t k = t->k, h = k / 2, pods = fattree_pods(t);
	uint32_t n_edge = pods * h, n_core = h * h;
	uint32_t n_rank = n_edge * h, i, j, c;
	unsigned int we = width(n_edge), wc = width(n_core);
	unsigned int wr = width(n_rank);
	struct nm a, b;

	nodes_begin(e);
	for (c = 0; c < n_core; c++) {
		a = name("core", c, wc);
		switch_node(e, &a, pods);
	}
	for (i = 0; i < n_edge; i++) {
		a = name("agg", i, we);
		switch_node(e, &a, k);
	}
	for (i = 0; i < n_edge; i++) {
		a = name("edge", i, we);
		switch_node(e, &a, k);
	}
	for (i = 0; i < n_rank; i++) {
		a = name("rank", i, wr);
		rank_node(e, &a);
	}
	links_begin(e);
	for (i = 0; i < n_rank; i++) {
		a = name("rank", i, wr);
		b = name("edge", i / h, we);
		host_link(e, &a, &b, i % h);
	}
	for (i = 0; i < n_edge; i++) {      /* edge i to its pod's aggs */
		uint32_t pod = i / h;

		a = name("edge", i, we);
		for (j = 0; j < h; j++) {
			b = name("agg", pod * h + j, we);
			fabric_link(e, &a, h + j, &b, i % h);
		}
	}
	for (i = 0; i < n_edge; i++) {      /* agg i to its cores */
		uint32_t pod = i / h;

		a = name("agg", i, we);
		for (c = 0; c < h; c++) {
			b = name("core", (i % h) * h + c, wc);
			fabric_link(e, &a, h + c, &b, pod);
		}
	}
}

/* Rail switch @p w (= group * N + rail) of a rail fabric. */
static struct nm
rail_name(const struct ibex_topo *t, uint32_t w)
{
	struct nm n;

	snprintf(n.s, sizeof(n.s), "g%0*" PRIu32 "-rail%0*" PRIu32,
		 (int)width(t->groups), w / t->rails, (int)width(t->rails),
		 w % t->rails);
	return n;
}

/*
 * Rail-optimized. Group g, server s, GPU r is rank (g*S + s)*N + r (a
 * server's GPUs consecutive). Rail switch w = g*N + r: p(s) to the rank
 * of GPU r of server s of group g, p(S + q*U + u) up to spine q; spine
 * q: p(w*U + u) down to rail switch w.
 */
static void
walk_rail(const struct ibex_topo *t, struct emit *e)
{
	uint32_t N = t->rails, G = t->groups, S = t->servers;
	uint32_t P = t->spines, U = uplinks(t), n_rail = G * N;
	uint32_t n_rank = G * S * N, w, q, u, x;
	unsigned int wp = width(P), wr = width(n_rank);
	struct nm a, b;

	nodes_begin(e);
	for (q = 0; q < P; q++) {
		a = name("spine", q, wp);
		switch_node(e, &a, n_rail * U);
	}
	for (w = 0; w < n_rail; w++) {
		a = rail_name(t, w);
		switch_node(e, &a, S + P * U);
	}
	for (x = 0; x < n_rank; x++) {
		a = name("rank", x, wr);
		rank_node(e, &a);
	}
	links_begin(e);
	for (x = 0; x < n_rank; x++) {
		uint32_t r = x % N, srv = x / N; /* server index g*S + s */

		a = name("rank", x, wr);
		b = rail_name(t, (srv / S) * N + r);
		host_link(e, &a, &b, srv % S);
	}
	for (w = 0; w < n_rail; w++) {
		a = rail_name(t, w);
		for (q = 0; q < P; q++) {
			b = name("spine", q, wp);
			for (u = 0; u < U; u++)
				fabric_link(e, &a, S + q * U + u, &b,
					    w * U + u);
		}
	}
}

/* ---- checks ---- */

static int
need(uint32_t v, const char *opt, char *err, size_t errlen)
{
	return v == 0 ? fail(err, errlen, "%s: give a count of at least 1",
			     opt) : 0;
}

/* The sizes as 64-bit products, before any 32-bit walk. */
static int
check_params(const struct ibex_topo *t, struct ibex_topo_size *sz,
	     char *err, size_t errlen)
{
	uint64_t U = uplinks(t), sw, rk, lk, up, down;
	int ret = 0;

	memset(sz, 0, sizeof(*sz));
	switch (t->shape) {
	case IBEX_TOPO_LEAF_SPINE:
		if ((ret = need(t->leaves, "--leaves", err, errlen)) != 0 ||
		    (ret = need(t->spines, "--spines", err, errlen)) != 0 ||
		    (ret = need(t->ranks_per_leaf, "--ranks-per-leaf", err,
				errlen)) != 0)
			return ret;
		down = (uint64_t)t->ranks_per_leaf + t->spines * U;
		up = t->leaves * U;
		if (down > IBEX_MAX_PORTS)
			return fail(err, errlen, "a leaf would have %" PRIu64
				    " ports (%" PRIu32 " ranks + %" PRIu32
				    " spines x %" PRIu64 " uplinks): a switch "
				    "has at most %d (IBEX_MAX_PORTS)", down,
				    t->ranks_per_leaf, t->spines, U,
				    IBEX_MAX_PORTS);
		if (up > IBEX_MAX_PORTS)
			return fail(err, errlen, "a spine would have %" PRIu64
				    " ports (%" PRIu32 " leaves x %" PRIu64
				    " uplinks): a switch has at most %d "
				    "(IBEX_MAX_PORTS)", up, t->leaves, U,
				    IBEX_MAX_PORTS);
		sw = (uint64_t)t->leaves + t->spines;
		rk = (uint64_t)t->leaves * t->ranks_per_leaf;
		lk = rk + (uint64_t)t->leaves * t->spines * U;
		break;
	case IBEX_TOPO_FATTREE:
		if (t->k < 2 || t->k % 2 != 0)
			return fail(err, errlen, "fattree K: an even number of "
				    "at least 2 (k/2 ports down, k/2 up), not "
				    "%" PRIu32, t->k);
		if (t->k > IBEX_MAX_PORTS)
			return fail(err, errlen, "fattree %" PRIu32 ": every "
				    "switch has K ports, and a switch has at "
				    "most %d (IBEX_MAX_PORTS): K is at most %d "
				    "(%d ranks)", t->k, IBEX_MAX_PORTS,
				    IBEX_MAX_PORTS, IBEX_MAX_PORTS *
				    IBEX_MAX_PORTS * IBEX_MAX_PORTS / 4);
		if (t->pods > t->k)
			return fail(err, errlen, "fattree %" PRIu32 " --pods %"
				    PRIu32 ": a fat tree of K has at most K "
				    "pods", t->k, t->pods);
		sw = (uint64_t)fattree_pods(t) * t->k + t->k * t->k / 4;
		rk = (uint64_t)fattree_pods(t) * t->k * t->k / 4;
		lk = 3 * rk;
		break;
	case IBEX_TOPO_RAIL:
		if ((ret = need(t->rails, "--rails", err, errlen)) != 0 ||
		    (ret = need(t->groups, "--groups", err, errlen)) != 0 ||
		    (ret = need(t->servers, "--servers-per-group", err,
				errlen)) != 0 ||
		    (ret = need(t->spines, "--spines", err, errlen)) != 0)
			return ret;
		down = (uint64_t)t->servers + t->spines * U;
		up = (uint64_t)t->groups * t->rails * U;
		if (down > IBEX_MAX_PORTS)
			return fail(err, errlen, "a rail switch would have %"
				    PRIu64 " ports (%" PRIu32 " servers + %"
				    PRIu32 " spines x %" PRIu64 " uplinks): a "
				    "switch has at most %d (IBEX_MAX_PORTS)",
				    down, t->servers, t->spines, U,
				    IBEX_MAX_PORTS);
		if (up > IBEX_MAX_PORTS)
			return fail(err, errlen, "a spine would have %" PRIu64
				    " ports (%" PRIu32 " groups x %" PRIu32
				    " rails x %" PRIu64 " uplinks): a switch "
				    "has at most %d (IBEX_MAX_PORTS)", up,
				    t->groups, t->rails, U, IBEX_MAX_PORTS);
		sw = (uint64_t)t->groups * t->rails + t->spines;
		rk = (uint64_t)t->groups * t->servers * t->rails;
		lk = rk + (uint64_t)t->groups * t->rails * t->spines * U;
		break;
	default:
		return fail(err, errlen, "unknown shape %u", t->shape);
	}
	if (sw + rk > IBEX_FABRIC_MAX_NODES)
		return fail(err, errlen, "%" PRIu64 " nodes (%" PRIu64
			    " switches, %" PRIu64 " ranks): a topology file "
			    "has at most %d (IBEX_FABRIC_MAX_NODES)", sw + rk,
			    sw, rk, IBEX_FABRIC_MAX_NODES);
	if (lk > IBEX_FABRIC_MAX_LINKS)
		return fail(err, errlen, "%" PRIu64 " links: a topology file "
			    "has at most %d (IBEX_FABRIC_MAX_LINKS)", lk,
			    IBEX_FABRIC_MAX_LINKS);
	if (t->name[0] != '\0' && (!quotable(t->name) ||
				   strlen(t->name) >= IBEX_FABRIC_NAME_LEN))
		return fail(err, errlen, "--name '%s': 1 to %d printable "
			    "characters without '\"' or '\\'", t->name,
			    IBEX_FABRIC_NAME_LEN - 1);
	sz->n_switches = (uint32_t)sw;
	sz->n_ranks = (uint32_t)rk;
	sz->n_links = (uint32_t)lk;
	return 0;
}

static void
walk(const struct ibex_topo *t, struct emit *e)
{
	switch (t->shape) {
	case IBEX_TOPO_LEAF_SPINE: walk_leaf_spine(t, e); break;
	case IBEX_TOPO_FATTREE: walk_fattree(t, e); break;
	default: walk_rail(t, e); break;
	}
}

int
ibex_topo_size(const struct ibex_topo *t, struct ibex_topo_size *sz,
	       char *err, size_t errlen)
{
	struct emit e = { .out = NULL };
	int ret = check_params(t, sz, err, errlen);

	if (ret != 0)
		return ret;
	walk(t, &e);
	*sz = e.sz;
	return 0;
}

/* ---- writing ---- */

static const char *
rate_text(uint64_t bps, char *buf, size_t len)
{
	if (bps % UINT64_C(1000000000000) == 0)
		snprintf(buf, len, "%" PRIu64 "T", bps / UINT64_C(1000000000000));
	else if (bps % 1000000000 == 0)
		snprintf(buf, len, "%" PRIu64 "G", bps / 1000000000);
	else if (bps % 1000000 == 0)
		snprintf(buf, len, "%" PRIu64 "M", bps / 1000000);
	else if (bps % 1000 == 0)
		snprintf(buf, len, "%" PRIu64 "K", bps / 1000);
	else
		snprintf(buf, len, "%" PRIu64, bps);
	return buf;
}

static const char *
delay_text(uint64_t ps, char *buf, size_t len)
{
	if (ps == 0)
		snprintf(buf, len, "0ns");
	else if (ps % 1000000000 == 0)
		snprintf(buf, len, "%" PRIu64 "ms", ps / 1000000000);
	else if (ps % 1000000 == 0)
		snprintf(buf, len, "%" PRIu64 "us", ps / 1000000);
	else if (ps % 1000 == 0)
		snprintf(buf, len, "%" PRIu64 "ns", ps / 1000);
	else
		snprintf(buf, len, "%" PRIu64 "ps", ps);
	return buf;
}

static void
default_name(const struct ibex_topo *t, char *buf, size_t len)
{
	switch (t->shape) {
	case IBEX_TOPO_LEAF_SPINE:
		snprintf(buf, len, "leaf-spine-%" PRIu32 "x%" PRIu32 "x%"
			 PRIu32, t->leaves, t->spines, t->ranks_per_leaf);
		break;
	case IBEX_TOPO_FATTREE:
		if (fattree_pods(t) == t->k)
			snprintf(buf, len, "fattree-%" PRIu32, t->k);
		else
			snprintf(buf, len, "fattree-%" PRIu32 "-%" PRIu32
				 "pods", t->k, t->pods);
		break;
	default:
		snprintf(buf, len, "rail-%" PRIu32 "x%" PRIu32 "x%" PRIu32,
			 t->groups, t->servers, t->rails);
		break;
	}
}

/* The comment at the top: what the file holds. */
static void
describe(const struct ibex_topo *t, const struct ibex_topo_size *sz,
	 FILE *out)
{
	uint32_t U = uplinks(t);

	switch (t->shape) {
	case IBEX_TOPO_LEAF_SPINE:
		fprintf(out, "# leaf-spine: %" PRIu32 " leaves of %" PRIu32
			" ranks, each joined to each of %" PRIu32 " spines by %"
			PRIu32 " link%s.\n", t->leaves, t->ranks_per_leaf,
			t->spines, U, U > 1 ? "s" : "");
		break;
	case IBEX_TOPO_FATTREE:
		fprintf(out, "# fattree k=%" PRIu32 ": %" PRIu32 " pods (of %"
			PRIu32 ") of %" PRIu32 " edge and %" PRIu32
			" aggregation switches, %" PRIu32 " cores.\n", t->k,
			fattree_pods(t), t->k, t->k / 2, t->k / 2,
			t->k * t->k / 4);
		break;
	default:
		fprintf(out, "# rail-optimized: %" PRIu32 " groups of %" PRIu32
			" servers with %" PRIu32 " GPUs (ranks) each;\n# GPU i "
			"of every server of a group on the group's rail switch "
			"i;\n# every rail switch joined to each of %" PRIu32
			" spines by %" PRIu32 " link%s.\n", t->groups,
			t->servers, t->rails, t->spines, U, U > 1 ? "s" : "");
		break;
	}
	fprintf(out, "# %" PRIu32 " switches (at most %" PRIu32 " ports), %"
		PRIu32 " ranks, %" PRIu32 " links.\n# Written by ibex-topo "
		"(docs/fabric.md, \"Generated topologies\").\n",
		sz->n_switches, sz->max_ports, sz->n_ranks, sz->n_links);
}

int
ibex_topo_write(const struct ibex_topo *t, FILE *out, char *err,
		size_t errlen)
{
	uint64_t rate = t->rate_bps != 0 ? t->rate_bps : DEFAULT_RATE_BPS;
	uint64_t frate = t->fabric_rate_bps != 0 ? t->fabric_rate_bps : rate;
	uint64_t delay = t->delay_ps;
	uint64_t fdelay = t->fabric_delay_set ? t->fabric_delay_ps : delay;
	struct ibex_topo_size sz;
	struct emit e = { .out = out };
	char nm[IBEX_FABRIC_NAME_LEN], r[32], d[32];
	int ret;

	ret = ibex_topo_size(t, &sz, err, errlen);
	if (ret != 0)
		return ret;
	if (frate != rate)
		snprintf(e.fabric_attr, sizeof(e.fabric_attr),
			 "      rate: %s\n", rate_text(frate, r, sizeof(r)));
	if (fdelay != delay)
		snprintf(e.fabric_attr + strlen(e.fabric_attr),
			 sizeof(e.fabric_attr) - strlen(e.fabric_attr),
			 "      delay: %s\n", delay_text(fdelay, d, sizeof(d)));
	if (t->name[0] != '\0')
		snprintf(nm, sizeof(nm), "%s", t->name);
	else
		default_name(t, nm, sizeof(nm));
	describe(t, &sz, out);
	fprintf(out, "name: \"%s\"\ntopology:\n  defaults: {rate: %s, delay: "
		"%s}\n", nm, rate_text(rate, r, sizeof(r)),
		delay_text(delay, d, sizeof(d)));
	write_lanes(t, out);
	walk(t, &e);
	if (fflush(out) != 0 || ferror(out))
		return fail(err, errlen, "write error"), -EIO;
	return 0;
}
