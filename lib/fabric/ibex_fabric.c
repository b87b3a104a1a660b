/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Topology files: containerlab's shape, read with libyaml's document API
 * (every node keeps its line for messages), checked as it is read.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <yaml.h>

#include "ibex_conf.h"
#include "ibex_fabric.h"
#include "ibex_fabric_part.h"
#include "ibex_llr.h"
#include "ibex_pkt.h"
#include "ibex_units.h"

#define DEF_RATE UINT64_C(100000000000)

/* A kind and what it is in ibex. */
struct kind_role {
	char kind[IBEX_FABRIC_NAME_LEN];
	uint8_t role;            /* enum ibex_fabric_kind */
};

/* A containerlab key ibex-fabric does not use: one warning per key and
 * place, at its first line, with how often it came. */
struct clab_warn {
	const char *where;       /* "node", "link", ... */
	char key[IBEX_NAME_LEN];
	size_t line;
	unsigned int count;
};

#define CLAB_WARN_MAX 64

struct ctx {
	struct ibex_fabric *f;
	yaml_document_t *doc;
	char *err;
	size_t errlen;
	uint64_t def_rate, def_delay;
	uint32_t nodes_cap, links_cap; /* f->nodes, f->links allocated */
	const struct ibex_fabric_opts *opts;
	/* the kind maps: the command line's (wins), the file's */
	struct kind_role cli[IBEX_FABRIC_KIND_MAP_MAX];
	struct kind_role file[IBEX_FABRIC_KIND_MAP_MAX];
	unsigned int n_cli, n_file;
	const yaml_node_t *def_kind; /* topology: defaults: kind: */
	const yaml_node_t *groups;   /* topology: groups: */
	struct clab_warn warn[CLAB_WARN_MAX];
	unsigned int n_warn;
	unsigned int warn_more;      /* keys past CLAB_WARN_MAX */
};

static int __attribute__((format(printf, 3, 4)))
fail(struct ctx *c, const yaml_node_t *at, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(c->err, c->errlen, "%s:%zu: %s", c->f->origin,
		 at != NULL ? at->start_mark.line + 1 : 1, msg);
	return -EINVAL;
}

static int
line_of(const yaml_node_t *n)
{
	return (int)n->start_mark.line + 1;
}

static yaml_node_t *
get(struct ctx *c, int idx)
{
	return yaml_document_get_node(c->doc, idx);
}

static const char *
scalar(const yaml_node_t *n)
{
	return n != NULL && n->type == YAML_SCALAR_NODE ?
	       (const char *)n->data.scalar.value : NULL;
}

/* The value as a string, or an error naming @p what. */
static int
want_scalar(struct ctx *c, const yaml_node_t *n, const char *what,
	    const char **out)
{
	*out = scalar(n);
	if (*out == NULL)
		return fail(c, n, "%s: expected a value, not a %s", what,
			    n->type == YAML_MAPPING_NODE ? "mapping" :
			    "list");
	return 0;
}

static int
copy_name(struct ctx *c, const yaml_node_t *at, char *dst, size_t len,
	  const char *s, const char *what)
{
	if (s[0] == '\0' || strlen(s) >= len)
		return fail(c, at, "%s '%s': 1 to %zu characters", what, s,
			    len - 1);
	memcpy(dst, s, strlen(s) + 1);
	return 0;
}

int
ibex_fabric_parse_delay(const char *s, uint64_t *ps)
{
	uint64_t v;

	/* a second is already absurd */
	if (ibex_parse_time_ps(s, &v) != 0 || v > UINT64_C(1000000000000))
		return -EINVAL;
	*ps = v;
	return 0;
}

static int
rate_of(struct ctx *c, const yaml_node_t *n, uint64_t *bps)
{
	const char *s;
	int ret = want_scalar(c, n, "rate", &s);

	if (ret != 0)
		return ret;
	if (ibex_parse_rate(s, bps) != 0 || *bps == 0)
		return fail(c, n, "rate '%s': expected a rate like 100G, 25G, "
			    "400M", s);
	return 0;
}

static int
delay_of(struct ctx *c, const yaml_node_t *n, uint64_t *ps)
{
	const char *s;
	int ret = want_scalar(c, n, "delay", &s);

	if (ret != 0)
		return ret;
	if (ibex_fabric_parse_delay(s, ps) != 0)
		return fail(c, n, "delay '%s': expected a time like 500ns, "
			    "1.5us, 2ms (at most 1s)", s);
	return 0;
}

/* A probability, as net_ibexlink's loss= and corrupt= take it: 1e-4,
 * 0.001, 0.5%. */
static int
prob_of(struct ctx *c, const yaml_node_t *n, const char *what, double *p)
{
	const char *s;
	char *end;
	int ret = want_scalar(c, n, what, &s);
	double v;

	if (ret != 0)
		return ret;
	errno = 0;
	v = strtod(s, &end);
	if (end != s && *end == '%' && end[1] == '\0') {
		v /= 100;
		end++;
	}
	if (errno != 0 || end == s || *end != '\0' || !(v >= 0 && v <= 1))
		return fail(c, n, "%s '%s': expected a probability like "
			    "1e-4, 0.001, 0.5%%", what, s);
	*p = v;
	return 0;
}

/* A link's LLR: off or a preset net_ibexlink's llr= takes. */
static int
llr_of(struct ctx *c, const yaml_node_t *n, char *llr)
{
	const char *s;
	int ret = want_scalar(c, n, "llr", &s);

	if (ret != 0)
		return ret;
	if (strcmp(s, "off") != 0 && ibex_llr_preset(s) == NULL)
		return fail(c, n, "llr '%s': expected off, 200g-5m, 200g-40m, "
			    "400g-5m, 400g-40m or 800g-40m", s);
	snprintf(llr, IBEX_FABRIC_LLR_LEN, "%s", s);
	return 0;
}

/* ---- containerlab's keys ---- */

/*
 * A node's keys in containerlab's files that mean nothing to ibex-fabric
 * (containers, images, management network). `kind`, `config`, `ports`
 * are handled where they are read.
 */
static const char *const clab_node_keys[] = {
	"image", "image-pull-policy", "restart-policy", "type", "group",
	"license", "startup-config", "startup-delay", "enforce-startup-config",
	"suppress-startup-config", "auto-remove", "exec", "binds", "env",
	"env-files", "user", "entrypoint", "cmd", "publish", "labels",
	"runtime", "mgmt-ipv4", "mgmt-ipv6", "mgmt_ipv4", "mgmt_ipv6",
	"network-mode", "cpu", "memory", "cpu-set", "sandbox", "kernel",
	"extras", "wait-for", "dns", "certificate", "healthcheck", "aliases",
	"devices", "cap-add", "shm-size", "stages", "components", "SANs",
	"sysctls", NULL
};

static const char *const clab_link_keys[] = {
	"mtu", "vars", "labels", NULL
};

static const char *const clab_endpoint_keys[] = {
	"mac", "vars", NULL
};

static const char *const clab_top_keys[] = {
	"prefix", "mgmt", "settings", NULL
};

static bool
in_list(const char *const *list, const char *s)
{
	for (; *list != NULL; list++)
		if (strcmp(*list, s) == 0)
			return true;
	return false;
}

/* Remember a containerlab key that is ignored, for the warnings. */
static void
clab_ignored(struct ctx *c, const char *where, const yaml_node_t *key,
	     const char *ks)
{
	unsigned int i;

	for (i = 0; i < c->n_warn; i++)
		if (c->warn[i].where == where &&
		    strcmp(c->warn[i].key, ks) == 0) {
			c->warn[i].count++;
			return;
		}
	if (c->n_warn == CLAB_WARN_MAX) {
		c->warn_more++;
		return;
	}
	c->warn[c->n_warn].where = where;
	snprintf(c->warn[c->n_warn].key, sizeof(c->warn[c->n_warn].key), "%s",
		 ks);
	c->warn[c->n_warn].line = key->start_mark.line + 1;
	c->warn[c->n_warn].count = 1;
	c->n_warn++;
}

static void
warn_out(struct ctx *c, const char *msg)
{
	if (c->opts != NULL && c->opts->warn != NULL)
		c->opts->warn(c->opts->warn_arg, msg);
	else
		fprintf(stderr, "%s\n", msg);
}

/* The warnings, in the order their keys first came. */
static void
clab_warnings(struct ctx *c)
{
	char msg[512], more[48];
	unsigned int i;

	for (i = 0; i < c->n_warn; i++) {
		const struct clab_warn *w = &c->warn[i];

		more[0] = '\0';
		if (w->count > 1)
			snprintf(more, sizeof(more), " (and %u more times)",
				 w->count - 1);
		snprintf(msg, sizeof(msg), "%s:%zu: warning: containerlab's %s "
			 "key '%s' ignored%s", c->f->origin, w->line, w->where,
			 w->key, more);
		warn_out(c, msg);
	}
	if (c->warn_more > 0) {
		snprintf(msg, sizeof(msg), "%s: warning: %u more of "
			 "containerlab's keys ignored", c->f->origin,
			 c->warn_more);
		warn_out(c, msg);
	}
}

/* ---- kind maps ---- */

static const struct kind_role *
kind_find(const struct kind_role *m, unsigned int n, const char *kind)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (strcmp(m[i].kind, kind) == 0)
			return &m[i];
	return NULL;
}

/* One entry KIND -> ROLE, or -EINVAL with the reason in @p msg. */
static int
kind_add(struct kind_role *m, unsigned int *n, const char *kind,
	 const char *role, char *msg, size_t len)
{
	uint8_t r;

	if (kind[0] == '\0' || strlen(kind) >= IBEX_FABRIC_NAME_LEN) {
		snprintf(msg, len, "kind '%s': 1 to %d characters", kind,
			 IBEX_FABRIC_NAME_LEN - 1);
		return -EINVAL;
	}
	if (strcmp(kind, "ibex") == 0 || strcmp(kind, "rank") == 0) {
		snprintf(msg, len, "kind '%s' is ibex's own: it needs no "
			 "mapping", kind);
		return -EINVAL;
	}
	if (strcmp(role, "ibex") == 0) {
		r = IBEX_FABRIC_SWITCH;
	} else if (strcmp(role, "rank") == 0) {
		r = IBEX_FABRIC_RANK;
	} else {
		snprintf(msg, len, "kind '%s': '%s' is neither ibex (a switch) "
			 "nor rank (a traffic endpoint)", kind, role);
		return -EINVAL;
	}
	if (kind_find(m, *n, kind) != NULL) {
		snprintf(msg, len, "kind '%s' mapped twice", kind);
		return -EINVAL;
	}
	if (*n >= IBEX_FABRIC_KIND_MAP_MAX) {
		snprintf(msg, len, "more than %d kinds",
			 IBEX_FABRIC_KIND_MAP_MAX);
		return -EINVAL;
	}
	snprintf(m[*n].kind, sizeof(m[*n].kind), "%s", kind);
	m[*n].role = r;
	(*n)++;
	return 0;
}

/* "KIND=ROLE,KIND=ROLE" into @p m. */
static int
kind_map_parse(const char *spec, struct kind_role *m, unsigned int *n,
	       char *err, size_t errlen)
{
	char buf[1024], msg[256], *tok, *save = NULL, *eq;

	*n = 0;
	if (strlen(spec) >= sizeof(buf)) {
		snprintf(err, errlen, "--kind-map: over %zu characters",
			 sizeof(buf) - 1);
		return -EINVAL;
	}
	snprintf(buf, sizeof(buf), "%s", spec);
	for (tok = strtok_r(buf, ",", &save); tok != NULL;
	     tok = strtok_r(NULL, ",", &save)) {
		eq = strchr(tok, '=');
		if (eq == NULL) {
			snprintf(err, errlen, "--kind-map: '%s': expected "
				 "KIND=ibex or KIND=rank", tok);
			return -EINVAL;
		}
		*eq = '\0';
		if (kind_add(m, n, tok, eq + 1, msg, sizeof(msg)) != 0) {
			snprintf(err, errlen, "--kind-map: %s", msg);
			return -EINVAL;
		}
	}
	if (*n == 0) {
		snprintf(err, errlen, "--kind-map: expected KIND=ibex or "
			 "KIND=rank, comma-separated");
		return -EINVAL;
	}
	return 0;
}

int
ibex_fabric_kind_map_check(const char *spec, char *err, size_t errlen)
{
	struct kind_role *m = malloc(IBEX_FABRIC_KIND_MAP_MAX * sizeof(*m));
	unsigned int n;
	int ret;

	if (m == NULL) {
		snprintf(err, errlen, "--kind-map: out of memory");
		return -ENOMEM;
	}
	ret = kind_map_parse(spec, m, &n, err, errlen);
	free(m);
	return ret;
}

uint32_t
ibex_fabric_node_find(const struct ibex_fabric *f, const char *name)
{
	uint32_t i;

	for (i = 0; i < f->n_nodes; i++)
		if (strcmp(f->nodes[i].name, name) == 0)
			return i;
	return IBEX_FABRIC_NONE;
}

static int
port_name_ok(const char *s)
{
	size_t i;

	for (i = 0; s[i] != '\0'; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' &&
		    s[i] != '.' && s[i] != '-')
			return 0;
	return i > 0 && i < IBEX_NAME_LEN;
}

static int
port_find(const struct ibex_fabric_node *n, const char *name)
{
	uint16_t i;

	for (i = 0; i < n->n_ports; i++)
		if (strcmp(n->port[i].name, name) == 0)
			return i;
	return -1;
}

static int
port_add(struct ctx *c, const yaml_node_t *at, struct ibex_fabric_node *n,
	 const char *name)
{
	if (port_find(n, name) >= 0)
		return fail(c, at, "node %s: port '%s' declared twice", n->name,
			    name);
	if (!port_name_ok(name))
		return fail(c, at, "node %s: port name '%s': 1 to 31 "
			    "characters of A-Z a-z 0-9 _ . -", n->name, name);
	if (n->n_ports >= IBEX_MAX_PORTS)
		return fail(c, at, "node %s: more than %d ports (ibex's limit)",
			    n->name, IBEX_MAX_PORTS);
	memcpy(n->port[n->n_ports].name, name, strlen(name) + 1);
	n->port[n->n_ports].link = IBEX_FABRIC_NONE;
	return n->n_ports++;
}

/*
 * An interface name as ibex names the port: containerlab's names
 * (eth1, e1-1, Ethernet1, ethernet-1/1, GigabitEthernet0/0/0/0) with each
 * '/' as '_', since ibex's port names are letters, digits, '_', '.' and
 * '-'. Anything else is left for port_add to refuse.
 */
static void
port_name_of(const char *ifname, char *out, size_t len)
{
	size_t i;

	for (i = 0; ifname[i] != '\0' && i + 1 < len; i++)
		out[i] = ifname[i] == '/' ? '_' : ifname[i];
	out[i] = '\0'; /* cut at len - 1: longer than port_add allows */
}

/* Room for a name port_add refuses as too long. */
#define PORT_NAME_BUF 128

/* partition: P, the process of a partitioned run the node goes to
 * (ibex_fabric_part.h); whether P is below the run's count is known only
 * when it is partitioned. */
static int
node_pin(struct ctx *c, struct ibex_fabric_node *n, const yaml_node_t *v)
{
	const char *s = scalar(v);
	unsigned long pin;
	char *end;

	if (s == NULL)
		return fail(c, v, "node %s: partition: a number", n->name);
	errno = 0;
	pin = strtoul(s, &end, 10);
	if (*end != '\0' || end == s || s[0] == '-' || errno != 0 ||
	    pin >= IBEX_FABRIC_PART_MAX)
		return fail(c, v, "node %s: partition: a number 0..%d, not "
			    "'%s'", n->name, IBEX_FABRIC_PART_MAX - 1, s);
	n->pin = (uint32_t)pin;
	return 0;
}

/* ports: [p0, p1] or ports: 18 (p0..p17). */
static int
node_ports(struct ctx *c, struct ibex_fabric_node *n, const yaml_node_t *v)
{
	yaml_node_item_t *it;
	const char *s = scalar(v);
	int ret;

	n->ports_declared = true;
	if (s != NULL) {
		char *end, name[16];
		unsigned long k, count = strtoul(s, &end, 10);

		if (*end != '\0' || end == s || count == 0 ||
		    count > IBEX_MAX_PORTS)
			return fail(c, v, "node %s: ports: a list of names or "
				    "a count 1..%d", n->name, IBEX_MAX_PORTS);
		for (k = 0; k < count; k++) {
			snprintf(name, sizeof(name), "p%lu", k);
			ret = port_add(c, v, n, name);
			if (ret < 0)
				return ret;
		}
		return 0;
	}
	if (v->type != YAML_SEQUENCE_NODE)
		return fail(c, v, "node %s: ports: a list of names or a count",
			    n->name);
	for (it = v->data.sequence.items.start;
	     it < v->data.sequence.items.top; it++) {
		yaml_node_t *p = get(c, *it);

		char pn[PORT_NAME_BUF];

		ret = want_scalar(c, p, "ports", &s);
		if (ret == 0) {
			port_name_of(s, pn, sizeof(pn));
			ret = port_add(c, p, n, pn);
		}
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* A value with nothing in it: containerlab's `node1:` takes all it has
 * from the defaults and its group. */
static bool
is_null(const yaml_node_t *v)
{
	const char *s = scalar(v);

	return s != NULL && v->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	       (s[0] == '\0' || strcmp(s, "~") == 0 || strcmp(s, "null") == 0);
}

/* The value of key @p name in mapping @p m, or NULL. */
static const yaml_node_t *
map_get(struct ctx *c, const yaml_node_t *m, const char *name)
{
	yaml_node_pair_t *pr;

	if (m == NULL || m->type != YAML_MAPPING_NODE)
		return NULL;
	for (pr = m->data.mapping.pairs.start; pr < m->data.mapping.pairs.top;
	     pr++) {
		const char *ks = scalar(get(c, pr->key));

		if (ks != NULL && strcmp(ks, name) == 0)
			return get(c, pr->value);
	}
	return NULL;
}

/*
 * A node's kind as containerlab resolves it: its own `kind`, else its
 * group's (`group: G` and topology: groups: G: kind:), else topology:
 * defaults: kind:. @p from says which ("" for its own).
 */
static const yaml_node_t *
node_kind(struct ctx *c, const yaml_node_t *v, const char **from)
{
	const yaml_node_t *k = map_get(c, v, "kind"), *g;

	*from = "";
	if (k != NULL)
		return k;
	g = map_get(c, v, "group");
	if (g != NULL && scalar(g) != NULL) {
		k = map_get(c, map_get(c, c->groups, scalar(g)), "kind");
		*from = "its group's";
		if (k != NULL)
			return k;
	}
	*from = "the defaults'";
	return c->def_kind;
}

/*
 * What the node is in ibex: kind ibex or rank (@p native), or a kind the
 * command line's kind map or else the file's maps to one of them.
 */
static int
node_role(struct ctx *c, const char *name, const yaml_node_t *at,
	  const yaml_node_t *v, struct ibex_fabric_node *n, bool *native)
{
	const struct kind_role *m;
	const yaml_node_t *k;
	const char *from, *s;
	int ret;

	k = node_kind(c, v, &from);
	if (k == NULL)
		return fail(c, at, "node %s: kind is required (ibex or rank, or "
			    "a kind the kind map maps)", name);
	ret = want_scalar(c, k, "kind", &s);
	if (ret != 0)
		return ret;
	*native = true;
	if (strcmp(s, "ibex") == 0) {
		n->kind = IBEX_FABRIC_SWITCH;
		return 0;
	}
	if (strcmp(s, "rank") == 0) {
		n->kind = IBEX_FABRIC_RANK;
		return 0;
	}
	*native = false;
	m = kind_find(c->cli, c->n_cli, s);
	if (m == NULL)
		m = kind_find(c->file, c->n_file, s);
	if (m != NULL) {
		n->kind = m->role;
		return 0;
	}
	if (from[0] == '\0')
		return fail(c, k, "node %s: unknown kind '%s': map it to ibex "
			    "(a switch) or rank (a traffic endpoint): "
			    "--kind-map %s=ibex|rank, or in the file ibex: "
			    "{kind-map: {%s: ibex|rank}}", name, s, s, s);
	return fail(c, at, "node %s: unknown kind '%s' (%s kind, line %d): "
		    "map it to ibex (a switch) or rank (a traffic endpoint): "
		    "--kind-map %s=ibex|rank, or in the file ibex: {kind-map: "
		    "{%s: ibex|rank}}", name, s, from, line_of(k), s, s);
}

/* Room in an array of @p cap elements of @p size bytes, @p n used, for
 * one more: doubled, the new part zeroed. The arrays grow with the file,
 * so a small fabric costs little and a large one (ibex-topo fattree 32:
 * 9,472 nodes) only what it holds. */
static int
grow(struct ctx *c, void **arr, uint32_t *cap, uint32_t n, size_t size)
{
	uint32_t ncap;
	void *p;

	if (n < *cap)
		return 0;
	ncap = *cap < 64 ? 64 : *cap * 2;
	p = realloc(*arr, (size_t)ncap * size);
	if (p == NULL) {
		snprintf(c->err, c->errlen, "%s: out of memory", c->f->origin);
		return -ENOMEM;
	}
	memset((char *)p + (size_t)*cap * size, 0,
	       (size_t)(ncap - *cap) * size);
	*arr = p;
	*cap = ncap;
	return 0;
}

static int
node_one(struct ctx *c, const yaml_node_t *key, const yaml_node_t *v)
{
	struct ibex_fabric *f = c->f;
	struct ibex_fabric_node *n;
	yaml_node_pair_t *pr;
	const char *name = scalar(key), *s;
	const yaml_node_t *mac = NULL;
	bool native;
	void *arr;
	int ret;

	if (name == NULL)
		return fail(c, key, "a node's name must be a plain value");
	if (ibex_fabric_node_find(f, name) != IBEX_FABRIC_NONE)
		return fail(c, key, "node %s declared twice (line %d)", name,
			    f->nodes[ibex_fabric_node_find(f, name)].line);
	if (f->n_nodes >= IBEX_FABRIC_MAX_NODES)
		return fail(c, key, "more than %d nodes",
			    IBEX_FABRIC_MAX_NODES);
	if (v->type != YAML_MAPPING_NODE && !is_null(v))
		return fail(c, v, "node %s: expected a mapping such as "
			    "{kind: ibex}", name);
	arr = f->nodes;
	ret = grow(c, &arr, &c->nodes_cap, f->n_nodes, sizeof(*f->nodes));
	f->nodes = arr;
	if (ret != 0)
		return ret;
	n = &f->nodes[f->n_nodes];
	memset(n, 0, sizeof(*n));
	if (strchr(name, ':') != NULL)
		return fail(c, key, "node name '%s' may not contain ':'", name);
	ret = copy_name(c, key, n->name, sizeof(n->name), name, "node name");
	if (ret != 0)
		return ret;
	n->line = line_of(key);
	n->pin = IBEX_FABRIC_NONE;
	ret = node_role(c, name, key, v, n, &native);
	if (ret != 0)
		return ret;
	for (pr = v->data.mapping.pairs.start;
	     v->type == YAML_MAPPING_NODE && pr < v->data.mapping.pairs.top;
	     pr++) {
		yaml_node_t *k = get(c, pr->key), *val = get(c, pr->value);
		const char *ks = scalar(k);

		if (ks == NULL)
			return fail(c, k, "node %s: keys are plain words", name);
		if (strcmp(ks, "kind") == 0) {
			continue; /* node_role's */
		} else if (strcmp(ks, "config") == 0 && !native &&
			   val->type == YAML_MAPPING_NODE) {
			clab_ignored(c, "node", k, ks); /* its config: vars: */
		} else if (strcmp(ks, "config") == 0) {
			ret = want_scalar(c, val, "config", &s);
			if (ret == 0)
				ret = copy_name(c, val, n->config,
						sizeof(n->config), s, "config");
			if (ret != 0)
				return ret;
		} else if (strcmp(ks, "mac") == 0) {
			mac = val;
		} else if (strcmp(ks, "partition") == 0) {
			ret = node_pin(c, n, val);
			if (ret != 0)
				return ret;
		} else if (strcmp(ks, "ports") == 0 && !native) {
			/* containerlab's: published container ports */
			clab_ignored(c, "node", k, ks);
		} else if (strcmp(ks, "ports") == 0) {
			ret = node_ports(c, n, val);
			if (ret != 0)
				return ret;
		} else if (in_list(clab_node_keys, ks)) {
			clab_ignored(c, "node", k, ks);
		} else {
			return fail(c, k, "node %s: unknown key '%s' (expected "
				    "kind, config, mac, ports, partition, or "
				    "one of "
				    "containerlab's node keys)", name, ks);
		}
	}
	if (n->kind == IBEX_FABRIC_SWITCH && mac != NULL)
		return fail(c, mac, "node %s: mac is for ranks (a switch's "
			    "ports have their own)", name);
	if (n->kind == IBEX_FABRIC_RANK && n->config[0] != '\0')
		return fail(c, v, "node %s: config is for ibex switches", name);
	if (mac != NULL) {
		ret = want_scalar(c, mac, "mac", &s);
		if (ret != 0)
			return ret;
		if (ibex_mac_parse(s, n->mac) != 0 || ibex_mac_is_group(n->mac))
			return fail(c, mac, "node %s: mac '%s' is not a unicast "
				    "MAC address", name, s);
	} else if (n->kind == IBEX_FABRIC_RANK) {
		/* 02:00:00:00:NN:NN by declaration order: unique, locally
		 * administered. */
		uint32_t k = f->n_nodes + 1;

		memcpy(n->mac, (uint8_t[]){ 0x02, 0, 0, 0, 0, 0 }, 6);
		n->mac[3] = (uint8_t)(k >> 16);
		n->mac[4] = (uint8_t)(k >> 8);
		n->mac[5] = (uint8_t)k;
	}
	f->n_nodes++;
	return 0;
}

/* NODE and its interface IFNAME (as written, for messages @p what): the
 * node must exist; the port must be declared if the node declares its
 * ports, else it is declared here. */
static int
endpoint_at(struct ctx *c, const yaml_node_t *v, const char *what,
	    const char *node, const char *ifname, struct ibex_fabric_end *e)
{
	struct ibex_fabric *f = c->f;
	struct ibex_fabric_node *n;
	char pn[PORT_NAME_BUF];
	int p;

	e->node = ibex_fabric_node_find(f, node);
	if (e->node == IBEX_FABRIC_NONE)
		return fail(c, v, "endpoint '%s': unknown node '%s'", what,
			    node);
	n = &f->nodes[e->node];
	port_name_of(ifname, pn, sizeof(pn));
	p = port_find(n, pn);
	if (p < 0 && n->ports_declared)
		return fail(c, v, "endpoint '%s': node %s has no port '%s'",
			    what, n->name, pn);
	if (p < 0) {
		p = port_add(c, v, n, pn);
		if (p < 0)
			return p;
	}
	e->port = (uint16_t)p;
	return 0;
}

/* containerlab's endpoint mapping: {node: NODE, interface: IFNAME}. */
static int
endpoint_map(struct ctx *c, const yaml_node_t *v, struct ibex_fabric_end *e)
{
	const char *node = NULL, *ifname = NULL;
	char what[IBEX_FABRIC_NAME_LEN + PORT_NAME_BUF + 2];
	yaml_node_pair_t *pr;
	int ret;

	for (pr = v->data.mapping.pairs.start; pr < v->data.mapping.pairs.top;
	     pr++) {
		yaml_node_t *key = get(c, pr->key), *val = get(c, pr->value);
		const char *ks = scalar(key);

		if (ks != NULL && strcmp(ks, "node") == 0)
			ret = want_scalar(c, val, "endpoint: node", &node);
		else if (ks != NULL && strcmp(ks, "interface") == 0)
			ret = want_scalar(c, val, "endpoint: interface",
					  &ifname);
		else if (ks != NULL && in_list(clab_endpoint_keys, ks))
			clab_ignored(c, "endpoint", key, ks), ret = 0;
		else
			return fail(c, key, "endpoint: unknown key '%s' "
				    "(expected node, interface)",
				    ks != NULL ? ks : "?");
		if (ret != 0)
			return ret;
	}
	if (node == NULL || ifname == NULL)
		return fail(c, v, "endpoint: both node and interface are "
			    "required, as {node: leaf1, interface: e1-1}");
	snprintf(what, sizeof(what), "%s:%s", node, ifname);
	return endpoint_at(c, v, what, node, ifname, e);
}

/* "node:port" (a port name may hold ':' after the first) or a mapping. */
static int
endpoint(struct ctx *c, const yaml_node_t *v, struct ibex_fabric_end *e)
{
	char buf[IBEX_FABRIC_NAME_LEN + PORT_NAME_BUF + 2];
	const char *s;
	char *colon;
	int ret;

	if (v->type == YAML_MAPPING_NODE)
		return endpoint_map(c, v, e);
	ret = want_scalar(c, v, "endpoint", &s);
	if (ret != 0)
		return ret;
	if (strlen(s) >= sizeof(buf))
		return fail(c, v, "endpoint '%s' is too long", s);
	memcpy(buf, s, strlen(s) + 1);
	colon = strchr(buf, ':');
	if (colon == NULL || colon == buf || colon[1] == '\0')
		return fail(c, v, "endpoint '%s': expected NODE:PORT", s);
	*colon = '\0';
	return endpoint_at(c, v, s, buf, colon + 1, e);
}

static const char *
end_str(const struct ibex_fabric *f, struct ibex_fabric_end e, char *buf,
	size_t len)
{
	snprintf(buf, len, "%s:%s", f->nodes[e.node].name,
		 f->nodes[e.node].port[e.port].name);
	return buf;
}

/*
 * containerlab's link `type:`: veth (a wire between two nodes' ports) is
 * what every ibex link is; its others join a node to the host or to a
 * network outside the lab, which a fabric in one process has not.
 */
static int
link_type(struct ctx *c, const yaml_node_t *v)
{
	static const char *const other[] = {
		"host", "mgmt-net", "macvlan", "vxlan", "vxlan-stitch",
		"dummy", NULL
	};
	const yaml_node_t *t = map_get(c, v, "type");
	const char *s;
	int ret;

	if (t == NULL)
		return 0;
	ret = want_scalar(c, t, "link: type", &s);
	if (ret != 0)
		return ret;
	if (strcmp(s, "veth") == 0)
		return 0;
	if (in_list(other, s))
		return fail(c, t, "link: type %s joins a node to something "
			    "outside the lab (the host, a network): "
			    "ibex-fabric reads veth links only, between two "
			    "nodes of the topology", s);
	return fail(c, t, "link: unknown type '%s' (containerlab's are veth, "
		    "host, mgmt-net, macvlan, vxlan, vxlan-stitch, dummy; "
		    "ibex-fabric reads veth)", s);
}

static int
link_one(struct ctx *c, const yaml_node_t *v)
{
	struct ibex_fabric *f = c->f;
	struct ibex_fabric_link *l;
	const yaml_node_t *eps = NULL;
	void *arr;
	yaml_node_pair_t *pr;
	char a[128], b[128];
	uint32_t i, k;
	int ret = 0;

	if (f->n_links >= IBEX_FABRIC_MAX_LINKS)
		return fail(c, v, "more than %d links", IBEX_FABRIC_MAX_LINKS);
	if (v->type != YAML_MAPPING_NODE)
		return fail(c, v, "a link is a mapping: {endpoints: [\"a:p0\", "
			    "\"b:p0\"]}");
	arr = f->links;
	ret = grow(c, &arr, &c->links_cap, f->n_links, sizeof(*f->links));
	f->links = arr;
	if (ret != 0)
		return ret;
	l = &f->links[f->n_links];
	memset(l, 0, sizeof(*l));
	l->rate_bps = c->def_rate;
	l->delay_ps = c->def_delay;
	l->line = line_of(v);
	ret = link_type(c, v);
	if (ret != 0)
		return ret;
	for (pr = v->data.mapping.pairs.start; pr < v->data.mapping.pairs.top;
	     pr++) {
		yaml_node_t *key = get(c, pr->key), *val = get(c, pr->value);
		const char *ks = scalar(key);

		if (ks != NULL && strcmp(ks, "endpoints") == 0)
			eps = val;
		else if (ks != NULL && strcmp(ks, "rate") == 0)
			ret = rate_of(c, val, &l->rate_bps);
		else if (ks != NULL && strcmp(ks, "delay") == 0)
			ret = delay_of(c, val, &l->delay_ps);
		else if (ks != NULL && strcmp(ks, "loss") == 0)
			ret = prob_of(c, val, "loss", &l->loss);
		else if (ks != NULL && strcmp(ks, "corrupt") == 0)
			ret = prob_of(c, val, "corrupt", &l->corrupt);
		else if (ks != NULL && strcmp(ks, "llr") == 0)
			ret = llr_of(c, val, l->llr);
		else if (ks != NULL && strcmp(ks, "type") == 0)
			ret = 0; /* veth: link_type's */
		else if (ks != NULL && in_list(clab_link_keys, ks))
			clab_ignored(c, "link", key, ks);
		else
			return fail(c, key, "link: unknown key '%s' (expected "
				    "endpoints, rate, delay, loss, corrupt, llr, "
				    "or containerlab's type, mtu, vars, labels)",
				    ks != NULL ? ks : "?");
		if (eps != val && ret != 0)
			return ret;
	}
	if (eps == NULL || eps->type != YAML_SEQUENCE_NODE ||
	    eps->data.sequence.items.top - eps->data.sequence.items.start != 2)
		return fail(c, eps != NULL ? eps : v, "link: endpoints must be "
			    "a list of two NODE:PORT or {node: NODE, "
			    "interface: PORT}");
	for (k = 0; k < 2; k++) {
		ret = endpoint(c, get(c, eps->data.sequence.items.start[k]),
			       &l->end[k]);
		if (ret != 0)
			return ret;
	}
	if (l->end[0].node == l->end[1].node)
		return fail(c, v, "link %s - %s joins node %s to itself",
			    end_str(f, l->end[0], a, sizeof(a)),
			    end_str(f, l->end[1], b, sizeof(b)),
			    f->nodes[l->end[0].node].name);
	for (i = 0; i < f->n_links; i++) {
		const struct ibex_fabric_link *o = &f->links[i];
		bool same = (memcmp(&o->end[0], &l->end[0], sizeof(l->end[0])) == 0 &&
			     memcmp(&o->end[1], &l->end[1], sizeof(l->end[1])) == 0) ||
			    (memcmp(&o->end[0], &l->end[1], sizeof(l->end[0])) == 0 &&
			     memcmp(&o->end[1], &l->end[0], sizeof(l->end[1])) == 0);

		if (same)
			return fail(c, v, "duplicate link %s - %s (first at "
				    "line %d)",
				    end_str(f, l->end[0], a, sizeof(a)),
				    end_str(f, l->end[1], b, sizeof(b)),
				    o->line);
	}
	for (k = 0; k < 2; k++) {
		struct ibex_fabric_node *n = &f->nodes[l->end[k].node];
		struct ibex_fabric_port *p = &n->port[l->end[k].port];
		uint16_t q, used = 0;

		if (p->link != IBEX_FABRIC_NONE)
			return fail(c, v, "port %s is already linked (line %d)",
				    end_str(f, l->end[k], a, sizeof(a)),
				    f->links[p->link].line);
		for (q = 0; q < n->n_ports; q++)
			used += n->port[q].link != IBEX_FABRIC_NONE;
		if (n->kind == IBEX_FABRIC_RANK && used > 0)
			return fail(c, v, "rank %s has one link only", n->name);
	}
	if (f->nodes[l->end[0].node].kind == IBEX_FABRIC_RANK &&
	    f->nodes[l->end[1].node].kind == IBEX_FABRIC_RANK)
		return fail(c, v, "link %s - %s joins two ranks: a rank plugs "
			    "into a switch",
			    end_str(f, l->end[0], a, sizeof(a)),
			    end_str(f, l->end[1], b, sizeof(b)));
	for (k = 0; k < 2; k++)
		f->nodes[l->end[k].node].port[l->end[k].port].link = f->n_links;
	f->n_links++;
	return 0;
}

static int
defaults(struct ctx *c, const yaml_node_t *v)
{
	yaml_node_pair_t *pr;
	int ret;

	if (v->type != YAML_MAPPING_NODE)
		return fail(c, v, "defaults: expected a mapping");
	for (pr = v->data.mapping.pairs.start; pr < v->data.mapping.pairs.top;
	     pr++) {
		yaml_node_t *key = get(c, pr->key), *val = get(c, pr->value);
		const char *ks = scalar(key);

		if (ks != NULL && strcmp(ks, "rate") == 0) {
			ret = rate_of(c, val, &c->def_rate);
		} else if (ks != NULL && strcmp(ks, "delay") == 0) {
			ret = delay_of(c, val, &c->def_delay);
		} else if (ks != NULL && strcmp(ks, "kind") == 0) {
			/* containerlab's: the kind of nodes that give none */
			ret = want_scalar(c, val, "defaults: kind", &ks);
			c->def_kind = val;
		} else if (ks != NULL && in_list(clab_node_keys, ks)) {
			clab_ignored(c, "defaults", key, ks);
			ret = 0;
		} else {
			return fail(c, key, "defaults: unknown key '%s' "
				    "(expected rate, delay, kind, or one of "
				    "containerlab's node keys)",
				    ks != NULL ? ks : "?");
		}
		if (ret != 0)
			return ret;
	}
	return 0;
}

/*
 * topology: kinds: or groups: (@p what), containerlab's settings of nodes
 * by kind or by group: NAME: {node keys} each. A group's kind is read
 * (node_kind); the rest is ignored, with one warning for the section.
 */
static int
clab_settings(struct ctx *c, const yaml_node_t *key, const yaml_node_t *v,
	      const char *what)
{
	yaml_node_pair_t *pr, *q;

	if (is_null(v))
		return 0;
	if (v->type != YAML_MAPPING_NODE)
		return fail(c, v, "%s: expected a mapping of names to node "
			    "settings", what);
	for (pr = v->data.mapping.pairs.start; pr < v->data.mapping.pairs.top;
	     pr++) {
		const yaml_node_t *k = get(c, pr->key), *val = get(c, pr->value);
		const char *name = scalar(k);

		if (name == NULL)
			return fail(c, k, "%s: names are plain words", what);
		if (is_null(val))
			continue;
		if (val->type != YAML_MAPPING_NODE)
			return fail(c, val, "%s: %s: expected a mapping of node "
				    "settings", what, name);
		for (q = val->data.mapping.pairs.start;
		     q < val->data.mapping.pairs.top; q++) {
			const yaml_node_t *ik = get(c, q->key);
			const char *is = scalar(ik);

			if (is != NULL && (strcmp(is, "kind") == 0 ||
					   strcmp(is, "config") == 0 ||
					   strcmp(is, "ports") == 0 ||
					   in_list(clab_node_keys, is)))
				continue;
			return fail(c, ik, "%s: %s: unknown key '%s' (not one "
				    "of containerlab's node keys)", what, name,
				    is != NULL ? is : "?");
		}
	}
	clab_ignored(c, "topology", key, what);
	return 0;
}

/* ---- lanes: the fabric's lane tables ---- */

/* The scratch port lanes: are checked on. */
#define LANES_PORT "lanes"

/*
 * A lib/conf error about the scratch port ("t.yaml:7: sl2vl lanes: ...",
 * "t.yaml:7: port lanes: ...") said of the lanes: key ("t.yaml:7: lanes:
 * sl2vl: ...", "t.yaml:7: lanes: ...").
 */
static int
lanes_err(struct ctx *c, const char *conf_err)
{
	const char *msg = strstr(conf_err, ": "), *sp, *at;
	size_t pre;

	if (msg == NULL) {
		snprintf(c->err, c->errlen, "%s", conf_err);
		return -EINVAL;
	}
	msg += 2;
	pre = (size_t)(msg - conf_err);
	sp = strchr(msg, ' ');
	at = strstr(msg, " " LANES_PORT ": ");
	if (sp == NULL || at != sp)
		snprintf(c->err, c->errlen, "%.*slanes: %s", (int)pre, conf_err,
			 msg);
	else if (strncmp(msg, "port ", 5) == 0)
		snprintf(c->err, c->errlen, "%.*slanes: %s", (int)pre, conf_err,
			 at + sizeof(LANES_PORT) + 2);
	else
		snprintf(c->err, c->errlen, "%.*slanes: %.*s: %s", (int)pre,
			 conf_err, (int)(sp - msg), msg,
			 at + sizeof(LANES_PORT) + 2);
	return -EINVAL;
}

/* One statement about the scratch port, at the line of @p at. */
static int
lanes_stmt(struct ctx *c, struct ibex_conf *cf, const yaml_node_t *at,
	   const char *fmt, ...)
{
	char line[IBEX_CONF_LINE_MAX + 1], e[IBEX_CONF_ERR_LEN + 64];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(line))
		return fail(c, at, "lanes: value too long");
	if (ibex_conf_parse_line(cf, line, c->f->origin, line_of(at), e,
				 sizeof(e)) != 0)
		return lanes_err(c, e);
	return 0;
}

/* lossless: a VL, "1,3", or a list of VLs: `lane lanes vl V lossless`. */
static int
lanes_lossless(struct ctx *c, struct ibex_conf *cf, const yaml_node_t *v)
{
	yaml_node_item_t *it;
	char buf[256], *tok, *save = NULL;
	const char *s;
	int ret;

	if (v->type == YAML_SEQUENCE_NODE) {
		for (it = v->data.sequence.items.start;
		     it < v->data.sequence.items.top; it++) {
			ret = want_scalar(c, get(c, *it), "lanes: lossless", &s);
			if (ret == 0)
				ret = lanes_stmt(c, cf, get(c, *it), "lane "
						 LANES_PORT " vl %s lossless", s);
			if (ret != 0)
				return ret;
		}
		return 0;
	}
	ret = want_scalar(c, v, "lanes: lossless", &s);
	if (ret != 0)
		return ret;
	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ",", &save); tok != NULL;
	     tok = strtok_r(NULL, ",", &save)) {
		ret = lanes_stmt(c, cf, v, "lane " LANES_PORT " vl %s lossless",
				 tok);
		if (ret != 0)
			return ret;
	}
	return 0;
}

/* One key of lanes: as the statement of ibex's grammar it stands for. */
static int
lanes_key(struct ctx *c, struct ibex_conf *cf, const char *ks,
	  const yaml_node_t *key, const yaml_node_t *val)
{
	static const char *const stmt[] = { "pcp2sl", "dscp2sl", "sl2vl",
					    "vlarb" };
	const char *s;
	unsigned int i;
	int ret;

	if (strcmp(ks, "lossless") == 0) {
		c->f->lanes.lossless_set = true;
		return lanes_lossless(c, cf, val);
	}
	for (i = 0; i < sizeof(stmt) / sizeof(stmt[0]); i++)
		if (strcmp(ks, stmt[i]) == 0)
			break;
	if (i == sizeof(stmt) / sizeof(stmt[0]) && strcmp(ks, "vls") != 0 &&
	    strcmp(ks, "sl-from") != 0)
		return fail(c, key, "lanes: unknown key '%s' (expected vls, "
			    "sl-from, pcp2sl, dscp2sl, sl2vl, vlarb, lossless)",
			    ks);
	ret = want_scalar(c, val, "lanes", &s);
	if (ret != 0)
		return ret;
	/* sl-from: pcp or dscp (a classifier program is a switch's own) */
	if (strcmp(ks, "sl-from") == 0)
		return strcmp(s, "pcp") != 0 && strcmp(s, "dscp") != 0 ?
		       fail(c, val, "lanes: sl-from '%s': pcp or dscp", s) :
		       lanes_stmt(c, cf, val, "port " LANES_PORT " sl-from %s",
				  s);
	if (i == sizeof(stmt) / sizeof(stmt[0]))
		return lanes_stmt(c, cf, val, "port " LANES_PORT " vls %s", s);
	return lanes_stmt(c, cf, val, "%s " LANES_PORT " %s", stmt[i], s);
}

/*
 * topology: lanes: {vls: N, sl-from: pcp|dscp, pcp2sl: MAP, dscp2sl: MAP,
 * sl2vl: MAP, vlarb: TABLES, lossless: VLS}: read as the statements of ibex's grammar on a scratch
 * port (with flow control, so lossless lanes are allowed), completed and
 * validated by lib/conf; its tables are what every switch port gets.
 */
static int
lanes(struct ctx *c, const yaml_node_t *v)
{
	struct ibex_fabric_lanes *l = &c->f->lanes;
	struct ibex_conf *cf;
	yaml_node_pair_t *pr;
	char e[IBEX_CONF_ERR_LEN + 64];
	bool vls = false;
	int ret = 0;

	if (v->type != YAML_MAPPING_NODE)
		return fail(c, v, "lanes: expected a mapping such as {vls: 4, "
			    "sl2vl: \"0-2:0,3:3\"}");
	cf = malloc(sizeof(*cf));
	if (cf == NULL)
		return fail(c, v, "out of memory");
	ibex_conf_init(cf);
	snprintf(cf->origin, sizeof(cf->origin), "%s", c->f->origin);
	ret = lanes_stmt(c, cf, v, "port " LANES_PORT " fc credit");
	for (pr = v->data.mapping.pairs.start;
	     ret == 0 && pr < v->data.mapping.pairs.top; pr++) {
		yaml_node_t *key = get(c, pr->key), *val = get(c, pr->value);
		const char *ks = scalar(key);

		if (ks == NULL)
			ret = fail(c, key, "lanes: keys are plain words");
		else
			ret = lanes_key(c, cf, ks, key, val);
		vls = vls || (ks != NULL && strcmp(ks, "vls") == 0);
	}
	if (ret == 0 && !vls)
		ret = fail(c, v, "lanes: vls is required (the tables' defaults "
			   "follow the lane count)");
	if (ret == 0 && ibex_conf_finish(cf, e, sizeof(e)) != 0)
		ret = lanes_err(c, e);
	if (ret == 0) {
		l->set = true;
		l->line = line_of(v);
		l->port = cf->ports[0];
	} else {
		memset(l, 0, sizeof(*l));
	}
	free(cf);
	return ret;
}

static int
rank_mac_cmp(const void *a, const void *b, void *arg)
{
	const struct ibex_fabric_node *nodes = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int r = memcmp(nodes[x].mac, nodes[y].mac, 6);

	return r != 0 ? r : (x > y) - (x < y);
}

/*
 * Two ranks with one MAC: each switch would learn and route it to one of
 * them, so refuse it here, naming both (the later one's line). A default
 * MAC (by position) can meet a given one.
 */
static int
rank_macs_unique(struct ctx *c)
{
	struct ibex_fabric *f = c->f;
	uint32_t *idx, n = 0, i, a = 0, b = IBEX_FABRIC_NONE;
	char mac[24];

	idx = malloc(f->n_nodes * sizeof(*idx) + 1);
	if (idx == NULL) {
		snprintf(c->err, c->errlen, "%s: out of memory", f->origin);
		return -ENOMEM;
	}
	for (i = 0; i < f->n_nodes; i++)
		if (f->nodes[i].kind == IBEX_FABRIC_RANK)
			idx[n++] = i;
	qsort_r(idx, n, sizeof(*idx), rank_mac_cmp, f->nodes);
	/* Sorted by MAC, then declaration: the earliest second holder. */
	for (i = 1; i < n; i++)
		if (memcmp(f->nodes[idx[i - 1]].mac, f->nodes[idx[i]].mac,
			   6) == 0 && (b == IBEX_FABRIC_NONE || idx[i] < b)) {
			a = idx[i - 1];
			b = idx[i];
		}
	free(idx);
	if (b == IBEX_FABRIC_NONE)
		return 0;
	ibex_mac_format(f->nodes[b].mac, mac, sizeof(mac));
	snprintf(c->err, c->errlen, "%s:%d: ranks %s and %s have the same MAC "
		 "%s (%s at line %d)", f->origin, f->nodes[b].line,
		 f->nodes[a].name, f->nodes[b].name, mac, f->nodes[a].name,
		 f->nodes[a].line);
	return -EINVAL;
}

/* Interface names in their natural order: runs of digits compare as
 * numbers (e1-2 before e1-10, eth9 before eth10), then byte by byte. */
static int
natural_cmp(const char *a, const char *b)
{
	const char *x = a, *y = b;

	while (*x != '\0' && *y != '\0') {
		if (isdigit((unsigned char)*x) && isdigit((unsigned char)*y)) {
			const char *xe, *ye;
			size_t xl, yl;
			int r;

			while (*x == '0' && isdigit((unsigned char)x[1]))
				x++;
			while (*y == '0' && isdigit((unsigned char)y[1]))
				y++;
			for (xe = x; isdigit((unsigned char)*xe); xe++)
				;
			for (ye = y; isdigit((unsigned char)*ye); ye++)
				;
			xl = (size_t)(xe - x);
			yl = (size_t)(ye - y);
			if (xl != yl)
				return xl < yl ? -1 : 1;
			r = memcmp(x, y, xl);
			if (r != 0)
				return r;
			x = xe;
			y = ye;
			continue;
		}
		if (*x != *y)
			return (unsigned char)*x < (unsigned char)*y ? -1 : 1;
		x++;
		y++;
	}
	if (*x != *y)
		return *x == '\0' ? -1 : 1;
	return strcmp(a, b); /* eth01 and eth1: still an order */
}

static int
port_natural_cmp(const void *a, const void *b)
{
	const struct ibex_fabric_port *x = a, *y = b;

	return natural_cmp(x->name, y->name);
}

/*
 * The ports a node's links declared (it has no ports:), in their natural
 * order rather than the order the links came in: leaf1's e1-1, e1-2,
 * e1-49, e1-50 however the file lists its links. The links' ends follow
 * their ports.
 */
static void
ports_natural_order(struct ibex_fabric *f)
{
	struct ibex_fabric_port sorted[IBEX_MAX_PORTS];
	uint32_t i, l;
	uint16_t p;
	unsigned int k;

	for (i = 0; i < f->n_nodes; i++) {
		struct ibex_fabric_node *n = &f->nodes[i];

		if (n->ports_declared || n->n_ports < 2)
			continue;
		memcpy(sorted, n->port, n->n_ports * sizeof(sorted[0]));
		qsort(sorted, n->n_ports, sizeof(sorted[0]), port_natural_cmp);
		for (p = 0; p < n->n_ports; p++) {
			l = sorted[p].link;
			if (l == IBEX_FABRIC_NONE)
				continue;
			for (k = 0; k < 2; k++)
				if (f->links[l].end[k].node == i &&
				    strcmp(n->port[f->links[l].end[k].port].name,
					   sorted[p].name) == 0)
					f->links[l].end[k].port = p;
		}
		memcpy(n->port, sorted, n->n_ports * sizeof(sorted[0]));
	}
}

static int
topology(struct ctx *c, const yaml_node_t *v)
{
	const yaml_node_t *nodes = NULL, *links = NULL;
	yaml_node_pair_t *pr;
	yaml_node_item_t *it;
	int ret;

	if (v->type != YAML_MAPPING_NODE)
		return fail(c, v, "topology: expected a mapping with nodes and "
			    "links");
	for (pr = v->data.mapping.pairs.start; pr < v->data.mapping.pairs.top;
	     pr++) {
		yaml_node_t *key = get(c, pr->key), *val = get(c, pr->value);
		const char *ks = scalar(key);

		if (ks != NULL && strcmp(ks, "nodes") == 0) {
			nodes = val;
		} else if (ks != NULL && strcmp(ks, "links") == 0) {
			links = val;
		} else if (ks != NULL && strcmp(ks, "defaults") == 0) {
			ret = defaults(c, val);
			if (ret != 0)
				return ret;
		} else if (ks != NULL && strcmp(ks, "lanes") == 0) {
			ret = lanes(c, val);
			if (ret != 0)
				return ret;
		} else if (ks != NULL && (strcmp(ks, "kinds") == 0 ||
					  strcmp(ks, "groups") == 0)) {
			ret = clab_settings(c, key, val, ks);
			if (ret != 0)
				return ret;
			if (strcmp(ks, "groups") == 0)
				c->groups = val;
		} else {
			return fail(c, key, "topology: unknown key '%s' "
				    "(expected defaults, lanes, nodes, links, "
				    "or containerlab's kinds, groups)",
				    ks != NULL ? ks : "?");
		}
	}
	if (nodes == NULL || nodes->type != YAML_MAPPING_NODE)
		return fail(c, nodes != NULL ? nodes : v, "topology: nodes must "
			    "be a mapping of node names");
	for (pr = nodes->data.mapping.pairs.start;
	     pr < nodes->data.mapping.pairs.top; pr++) {
		ret = node_one(c, get(c, pr->key), get(c, pr->value));
		if (ret != 0)
			return ret;
	}
	ret = rank_macs_unique(c);
	if (ret != 0)
		return ret;
	if (links == NULL)
		return 0;
	if (links->type != YAML_SEQUENCE_NODE)
		return fail(c, links, "topology: links must be a list");
	for (it = links->data.sequence.items.start;
	     it < links->data.sequence.items.top; it++) {
		ret = link_one(c, get(c, *it));
		if (ret != 0)
			return ret;
	}
	ports_natural_order(c->f);
	return 0;
}

/* ibex: {kind-map: {KIND: ibex|rank, ...}}: ibex's own settings in a
 * containerlab-shaped file. */
static int
ibex_section(struct ctx *c, const yaml_node_t *v)
{
	yaml_node_pair_t *pr, *q;
	char msg[256];

	if (v->type != YAML_MAPPING_NODE)
		return fail(c, v, "ibex: expected a mapping such as {kind-map: "
			    "{linux: rank}}");
	for (pr = v->data.mapping.pairs.start; pr < v->data.mapping.pairs.top;
	     pr++) {
		const yaml_node_t *key = get(c, pr->key), *val = get(c, pr->value);
		const char *ks = scalar(key);

		if (ks == NULL || strcmp(ks, "kind-map") != 0)
			return fail(c, key, "ibex: unknown key '%s' (expected "
				    "kind-map)", ks != NULL ? ks : "?");
		if (val->type != YAML_MAPPING_NODE)
			return fail(c, val, "ibex: kind-map: expected a mapping "
				    "such as {linux: rank, nokia_srlinux: ibex}");
		for (q = val->data.mapping.pairs.start;
		     q < val->data.mapping.pairs.top; q++) {
			const yaml_node_t *k = get(c, q->key);
			const yaml_node_t *r = get(c, q->value);

			if (scalar(k) == NULL || scalar(r) == NULL)
				return fail(c, k, "ibex: kind-map: KIND: ibex "
					    "or KIND: rank");
			if (kind_add(c->file, &c->n_file, scalar(k), scalar(r),
				     msg, sizeof(msg)) != 0)
				return fail(c, k, "ibex: kind-map: %s", msg);
		}
	}
	return 0;
}

static int
document(struct ctx *c, const yaml_node_t *root)
{
	const yaml_node_t *topo = NULL;
	yaml_node_pair_t *pr;
	int ret;

	if (root == NULL)
		return fail(c, NULL, "empty topology file");
	if (root->type != YAML_MAPPING_NODE)
		return fail(c, root, "expected a mapping with name and topology");
	for (pr = root->data.mapping.pairs.start;
	     pr < root->data.mapping.pairs.top; pr++) {
		yaml_node_t *key = get(c, pr->key), *val = get(c, pr->value);
		const char *ks = scalar(key), *s;

		if (ks != NULL && strcmp(ks, "name") == 0) {
			ret = want_scalar(c, val, "name", &s);
			if (ret == 0)
				ret = copy_name(c, val, c->f->name,
						sizeof(c->f->name), s, "name");
			if (ret != 0)
				return ret;
		} else if (ks != NULL && strcmp(ks, "topology") == 0) {
			topo = val;
		} else if (ks != NULL && strcmp(ks, "ibex") == 0) {
			ret = ibex_section(c, val);
			if (ret != 0)
				return ret;
		} else if (ks != NULL && in_list(clab_top_keys, ks)) {
			clab_ignored(c, "top-level", key, ks);
		} else {
			return fail(c, key, "unknown key '%s' (expected name, "
				    "topology, ibex, or containerlab's prefix, "
				    "mgmt, settings)", ks != NULL ? ks : "?");
		}
	}
	if (topo == NULL)
		return fail(c, root, "no topology: section");
	return topology(c, topo);
}

/*
 * Refuse nesting deeper than IBEX_FABRIC_MAX_DEPTH before the document is
 * built: libyaml has no bound of its own, and its scanner's cost per
 * token grows with the depth (a 200 KB file of nested lists took over a
 * minute). The events come as the scanner reads, so a deep file is
 * refused after its first IBEX_FABRIC_MAX_DEPTH + 1 levels.
 * @return 0 (a syntax error too: the loader then says it), -EINVAL with
 * the message, or -ENOMEM.
 */
static int
depth_check(const char *text, size_t len, const char *origin, char *err,
	    size_t errlen)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	unsigned int depth = 0;
	bool done = false;
	int ret = 0;

	if (!yaml_parser_initialize(&parser)) {
		snprintf(err, errlen, "%s: out of memory", origin);
		return -ENOMEM;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	while (!done && yaml_parser_parse(&parser, &ev)) {
		switch (ev.type) {
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			if (++depth > IBEX_FABRIC_MAX_DEPTH) {
				snprintf(err, errlen, "%s:%zu: nested more "
					 "than %d levels deep", origin,
					 ev.start_mark.line + 1,
					 IBEX_FABRIC_MAX_DEPTH);
				ret = -EINVAL;
				done = true;
			}
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			depth--;
			break;
		case YAML_STREAM_END_EVENT:
			done = true;
			break;
		default:
			break;
		}
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&parser);
	return ret;
}

struct key_at {
	const yaml_node_t *key;
	size_t pos;             /* its place in the mapping */
};

static int
key_cmp(const void *a, const void *b)
{
	const struct key_at *x = a, *y = b;
	size_t lx = x->key->data.scalar.length, ly = y->key->data.scalar.length;
	int c = memcmp(x->key->data.scalar.value, y->key->data.scalar.value,
		       lx < ly ? lx : ly);

	if (c != 0)
		return c;
	if (lx != ly)
		return lx < ly ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/*
 * A mapping key given twice: YAML forbids it, libyaml keeps both pairs,
 * and a reader that takes the last one would drop the first without a
 * word. Every mapping of the document is checked (its scalar keys sorted,
 * so a big mapping costs n log n); the first repeat in the file is named.
 */
static int
dup_check(struct ctx *c)
{
	const yaml_node_t *dup = NULL, *first = NULL, *n;
	struct key_at *keys = NULL;
	size_t cap = 0, nk, i;

	for (n = c->doc->nodes.start; n < c->doc->nodes.top; n++) {
		yaml_node_pair_t *pr;

		if (n->type != YAML_MAPPING_NODE)
			continue;
		nk = (size_t)(n->data.mapping.pairs.top -
			      n->data.mapping.pairs.start);
		if (nk < 2)
			continue;
		if (nk > cap) {
			struct key_at *k = realloc(keys, nk * sizeof(*keys));

			if (k == NULL) {
				free(keys);
				snprintf(c->err, c->errlen, "%s: out of memory",
					 c->f->origin);
				return -ENOMEM;
			}
			keys = k;
			cap = nk;
		}
		nk = 0;
		for (pr = n->data.mapping.pairs.start;
		     pr < n->data.mapping.pairs.top; pr++) {
			const yaml_node_t *k = get(c, pr->key);

			if (k != NULL && k->type == YAML_SCALAR_NODE) {
				keys[nk].key = k;
				keys[nk].pos = nk;
				nk++;
			}
		}
		qsort(keys, nk, sizeof(*keys), key_cmp);
		/* Sorted by key, then place: a run of equal keys starts with
		 * the first and goes on with its first repeat. */
		for (i = 0; i + 1 < nk; i++) {
			const yaml_node_t *a = keys[i].key, *b = keys[i + 1].key;

			if (a->data.scalar.length != b->data.scalar.length ||
			    memcmp(a->data.scalar.value, b->data.scalar.value,
				   a->data.scalar.length) != 0)
				continue;
			if (dup == NULL ||
			    b->start_mark.index < dup->start_mark.index) {
				dup = b;
				first = a;
			}
			while (i + 1 < nk &&
			       keys[i + 1].key->data.scalar.length ==
			       a->data.scalar.length &&
			       memcmp(keys[i + 1].key->data.scalar.value,
				      a->data.scalar.value,
				      a->data.scalar.length) == 0)
				i++;
		}
	}
	free(keys);
	if (dup == NULL)
		return 0;
	return fail(c, dup, "duplicate key '%.*s' (first at line %d)",
		    (int)(dup->data.scalar.length > 64 ? 64 :
			  dup->data.scalar.length),
		    (const char *)dup->data.scalar.value, line_of(first));
}

void
ibex_fabric_free(struct ibex_fabric *f)
{
	free(f->nodes);
	free(f->links);
	f->nodes = NULL;
	f->links = NULL;
	f->n_nodes = f->n_links = 0;
}

/* Parse into c->f, whose origin is set; c is filled but for the doc. */
static int
parse_ctx(struct ctx *c, const char *text, size_t len)
{
	struct ibex_fabric *f = c->f;
	const char *origin = f->origin;
	yaml_parser_t parser;
	yaml_document_t doc;
	int ret;

	c->nodes_cap = c->links_cap = 64; /* grown by grow() */
	f->nodes = calloc(c->nodes_cap, sizeof(*f->nodes));
	f->links = calloc(c->links_cap, sizeof(*f->links));
	if (f->nodes == NULL || f->links == NULL) {
		snprintf(c->err, c->errlen, "%s: out of memory", origin);
		return -ENOMEM;
	}
	ret = depth_check(text, len, origin, c->err, c->errlen);
	if (ret != 0)
		return ret;
	if (!yaml_parser_initialize(&parser)) {
		snprintf(c->err, c->errlen, "%s: out of memory", origin);
		return -ENOMEM;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		snprintf(c->err, c->errlen, "%s:%zu: %s%s%s", origin,
			 parser.problem_mark.line + 1,
			 parser.problem != NULL ? parser.problem : "bad YAML",
			 parser.context != NULL ? " " : "",
			 parser.context != NULL ? parser.context : "");
		yaml_parser_delete(&parser);
		return -EINVAL;
	}
	c->doc = &doc;
	ret = dup_check(c);
	if (ret == 0)
		ret = document(c, yaml_document_get_root_node(&doc));
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	return ret;
}

int
ibex_fabric_parse(struct ibex_fabric *f, const char *text, size_t len,
		  const char *origin, char *err, size_t errlen)
{
	return ibex_fabric_parse_opts(f, text, len, origin, NULL, err, errlen);
}

int
ibex_fabric_parse_opts(struct ibex_fabric *f, const char *text, size_t len,
		       const char *origin, const struct ibex_fabric_opts *o,
		       char *err, size_t errlen)
{
	/* on the heap: the kind maps and the warnings are a few KB */
	struct ctx *c = calloc(1, sizeof(*c));
	int ret;

	memset(f, 0, sizeof(*f));
	snprintf(f->origin, sizeof(f->origin), "%s", origin);
	if (c == NULL) {
		snprintf(err, errlen, "%s: out of memory", origin);
		return -ENOMEM;
	}
	c->f = f;
	c->err = err;
	c->errlen = errlen;
	c->def_rate = DEF_RATE;
	c->opts = o;
	ret = 0;
	if (o != NULL && o->kind_map != NULL)
		ret = kind_map_parse(o->kind_map, c->cli, &c->n_cli, err,
				     errlen);
	if (ret == 0)
		ret = parse_ctx(c, text, len);
	if (ret == 0)
		clab_warnings(c);
	else
		ibex_fabric_free(f);
	free(c);
	return ret;
}

int
ibex_fabric_load(struct ibex_fabric *f, const char *path, char *err,
		 size_t errlen)
{
	return ibex_fabric_load_opts(f, path, NULL, err, errlen);
}

int
ibex_fabric_load_opts(struct ibex_fabric *f, const char *path,
		      const struct ibex_fabric_opts *o, char *err,
		      size_t errlen)
{
	FILE *fp = fopen(path, "r");
	char *text = NULL;
	struct stat st;
	long len;
	int ret;

	memset(f, 0, sizeof(*f));
	if (fp == NULL) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return ret;
	}
	/* fopen() opens a directory for reading; its size is no file's. */
	if (fstat(fileno(fp), &st) == 0 && S_ISDIR(st.st_mode)) {
		ret = -EISDIR;
		snprintf(err, errlen, "%s: is a directory", path);
		goto out;
	}
	if (fseek(fp, 0, SEEK_END) != 0 || (len = ftell(fp)) < 0 ||
	    fseek(fp, 0, SEEK_SET) != 0) {
		ret = -EIO;
		snprintf(err, errlen, "%s: cannot read", path);
		goto out;
	}
	text = malloc((size_t)len + 1);
	if (text == NULL) {
		ret = -ENOMEM;
		snprintf(err, errlen, "%s: out of memory (%ld bytes)", path,
			 len);
		goto out;
	}
	if (fread(text, 1, (size_t)len, fp) != (size_t)len) {
		ret = -EIO;
		snprintf(err, errlen, "%s: cannot read", path);
		goto out;
	}
	text[len] = '\0';
	ret = ibex_fabric_parse_opts(f, text, (size_t)len, path, o, err,
				     errlen);
out:
	free(text);
	fclose(fp);
	return ret;
}

struct ibex_fabric_end
ibex_fabric_peer(const struct ibex_fabric *f, uint32_t l,
		 struct ibex_fabric_end e)
{
	const struct ibex_fabric_link *k = &f->links[l];

	return k->end[0].node == e.node && k->end[0].port == e.port ?
	       k->end[1] : k->end[0];
}
