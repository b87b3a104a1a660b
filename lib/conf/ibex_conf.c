/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ibex configuration grammar.
 *
 * A statement is a keyword followed by words; most words come in
 * <key> <value> pairs. Statements are rows of conf_stmts and keys are rows
 * of the per-statement key tables below, each with its type, field and
 * range, so a new setting is one row here and one row in
 * docs/configuration.md (the doc lists keys in the same order as these
 * tables, which is also the order of the "expected one of" hints).
 *
 * Parsing is done on a copy of each statement's target (a port, a static
 * entry) that is stored only when the whole line parsed, so a bad line
 * leaves the object as it was before that line.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ibex_conf.h"
#include "ibex_pkt.h"

/* Separators: spaces and tabs; CR and the rest so CRLF files parse too. */
#define CONF_SEPS " \t\r\n\v\f"
/* A line of n characters holds at most (n + 1) / 2 words. */
#define CONF_MAX_TOKENS (IBEX_CONF_LINE_MAX / 2 + 1)
#define CONF_VID_MIN 1
#define CONF_VID_MAX 4094

/* Where we are, for messages: "origin:line: what: message". */
struct conf_ctx {
	struct ibex_conf *c;
	const char *origin;
	int lineno;          /* <= 0: not from a line (validate of built objects) */
	char *err;
	size_t errlen;
	char what[64];       /* "port p0", "fdb static", ... or "" */
};

enum conf_type {
	CT_U32,      /* decimal integer in [min, max] */
	CT_POW2,     /* like CT_U32 and a power of two */
	CT_BOOL,     /* on | off */
	CT_ENUM,     /* one of words[]; words[i] is stored as i */
	CT_RATE,     /* bit/s, see ibex_parse_rate() */
	CT_STRING,   /* copied, at most size - 1 characters */
	CT_VLANS,    /* VLAN list into a port's membership bitmap */
	CT_PORT,     /* name of a declared port, stored as its index */
};

/* 0 in this field means "unset" and passes validation despite min. */
#define CK_ZERO_UNSET 1u

struct conf_key {
	const char *name;
	enum conf_type type;
	size_t off;                 /* field in the statement's target */
	size_t size;                /* field width, bytes */
	uint64_t min;
	uint64_t max;
	const char *const *words;   /* CT_ENUM */
	unsigned int flags;
};

#define FSIZE(T, f) sizeof(((T *)0)->f)
#define CK(n, t, T, f, lo, hi, fl) \
	{ .name = n, .type = t, .off = offsetof(T, f), .size = FSIZE(T, f), \
	  .min = lo, .max = hi, .flags = fl }
#define CK_ENUM(n, T, f, w) \
	{ .name = n, .type = CT_ENUM, .off = offsetof(T, f), \
	  .size = FSIZE(T, f), .words = w }

static const char *const conf_on_off[] = { "off", "on", NULL };
static const char *const conf_down_up[] = { "down", "up", NULL };

static const struct conf_key conf_switch_keys[] = {
	CK("workers", CT_U32, struct ibex_conf, nb_workers,
	   0, IBEX_MAX_WORKERS, 0),
	CK("burst", CT_U32, struct ibex_conf, burst, 1, 256, 0),
	CK("tx-drain-us", CT_U32, struct ibex_conf, tx_drain_us, 0, 100000, 0),
	CK("mbufs", CT_U32, struct ibex_conf, mbufs, 1024, 4194304, 0),
};

static const struct conf_key conf_port_keys[] = {
	CK("dev", CT_STRING, struct ibex_conf_port, dev, 0, 0, 0),
	CK("pvid", CT_U32, struct ibex_conf_port, pvid,
	   CONF_VID_MIN, CONF_VID_MAX, 0),
	CK("vlans", CT_VLANS, struct ibex_conf_port, vlans, 0, 0, 0),
	CK("speed", CT_RATE, struct ibex_conf_port, speed_bps,
	   0, UINT64_MAX, 0),
	CK("mtu", CT_U32, struct ibex_conf_port, mtu, 68, 9600, CK_ZERO_UNSET),
	CK("rx-desc", CT_POW2, struct ibex_conf_port, rx_desc, 64, 16384, 0),
	CK("tx-desc", CT_POW2, struct ibex_conf_port, tx_desc, 64, 16384, 0),
	CK("trusted", CT_BOOL, struct ibex_conf_port, trusted, 0, 1, 0),
	CK_ENUM("admin", struct ibex_conf_port, admin_up, conf_down_up),
};

static const struct conf_key conf_fdb_keys[] = {
	CK("ageing", CT_U32, struct ibex_conf, fdb_ageing_s, 0, 1000000, 0),
	CK("max-entries", CT_U32, struct ibex_conf, fdb_max_entries,
	   1, 16777216, 0),
	CK("learning", CT_BOOL, struct ibex_conf, fdb_learning, 0, 1, 0),
};

static const struct conf_key conf_static_keys[] = {
	CK("port", CT_PORT, struct ibex_conf_fdb_static, port, 0, 0, 0),
	CK("vlan", CT_U32, struct ibex_conf_fdb_static, vid,
	   CONF_VID_MIN, CONF_VID_MAX, 0),
};

#define KEYS(t) t, IBEX_ARRAY_SIZE(t)

/* ---- messages ---- */

static int __attribute__((format(printf, 2, 3)))
conf_err(struct conf_ctx *x, const char *fmt, ...)
{
	char msg[512];
	char where[300];
	va_list ap;

	if (x->err == NULL || x->errlen == 0)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (x->lineno > 0)
		snprintf(where, sizeof(where), "%s:%d", x->origin, x->lineno);
	else
		snprintf(where, sizeof(where), "%s", x->origin);
	snprintf(x->err, x->errlen, "%s: %s%s%s", where, x->what,
		 x->what[0] != '\0' ? ": " : "", msg);
	return -EINVAL;
}

/* "a, b, c" from a key table, for "expected one of" hints. */
static const char *
conf_key_list(const struct conf_key *keys, size_t n, char *buf, size_t len)
{
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = 0; i < n && used < len; i++)
		used += snprintf(buf + used, len - used, "%s%s",
				 i > 0 ? ", " : "", keys[i].name);
	return buf;
}

static const char *
conf_word_list(const char *const *words, char *buf, size_t len)
{
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = 0; words[i] != NULL && used < len; i++)
		used += snprintf(buf + used, len - used, "%s%s",
				 i > 0 ? ", " : "", words[i]);
	return buf;
}

static void
conf_mac_str(const uint8_t *m, char *buf, size_t len)
{
	snprintf(buf, len, "%02x:%02x:%02x:%02x:%02x:%02x",
		 m[0], m[1], m[2], m[3], m[4], m[5]);
}

/* ---- scalar parsers ---- */

/* Decimal digits only (no sign, base prefix or blanks) in s[0..n). */
static int
conf_u64n(const char *s, size_t n, uint64_t *v)
{
	uint64_t r = 0;
	size_t i;

	if (n == 0)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		unsigned int d = (unsigned char)s[i] - '0';

		if (d > 9)
			return -EINVAL;
		if (r > (UINT64_MAX - d) / 10)
			return -ERANGE;
		r = r * 10 + d;
	}
	*v = r;
	return 0;
}

static int
conf_u64(const char *s, uint64_t *v)
{
	return conf_u64n(s, strlen(s), v);
}

/* Fraction digits of a rate after the '.', as frac / scale with trailing
 * zeros removed. Digits past 10^18 can only be trailing zeros of a whole
 * rate (the largest suffix is 10^12), so they must be '0'. */
static int
rate_fraction(const char **pp, uint64_t *frac, uint64_t *scale)
{
	const char *p = *pp;
	size_t n = strspn(p, "0123456789");

	*frac = 0;
	*scale = 1;
	if (n == 0)
		return -EINVAL;
	for (; n > 0; n--, p++) {
		if (*scale >= UINT64_C(1000000000000000000)) {
			if (*p != '0')
				return -EINVAL;
			continue;
		}
		*frac = *frac * 10 + (uint64_t)(*p - '0');
		*scale *= 10;
	}
	while (*scale > 1 && *frac % 10 == 0) {
		*frac /= 10;
		*scale /= 10;
	}
	*pp = p;
	return 0;
}

/* "123" or "1.25": integer part, then an optional fraction. */
static int
rate_number(const char **pp, uint64_t *ip, uint64_t *frac, uint64_t *scale)
{
	size_t n = strspn(*pp, "0123456789");
	int ret = conf_u64n(*pp, n, ip);

	*frac = 0;
	*scale = 1;
	if (ret != 0)
		return ret;
	*pp += n;
	if (**pp != '.')
		return 0;
	(*pp)++;
	return rate_fraction(pp, frac, scale);
}

static const char *
rate_suffix(const char *p, uint64_t *mult)
{
	switch (*p) {
	case 'k': case 'K': *mult = UINT64_C(1000); p++; break;
	case 'M': *mult = UINT64_C(1000000); p++; break;
	case 'G': *mult = UINT64_C(1000000000); p++; break;
	case 'T': *mult = UINT64_C(1000000000000); p++; break;
	default: *mult = 1; break;
	}
	if (strcmp(p, "bps") == 0 || strcmp(p, "b") == 0 || *p == '\0')
		return p + strlen(p);
	return NULL;
}

int
ibex_parse_rate(const char *s, uint64_t *bps)
{
	uint64_t ip, frac, scale, mult, whole;
	const char *p = s;
	int ret;

	if (s == NULL || bps == NULL)
		return -EINVAL;
	ret = rate_number(&p, &ip, &frac, &scale);
	if (ret == 0 && rate_suffix(p, &mult) == NULL)
		ret = -EINVAL;
	if (ret != 0)
		return ret;
	/* scale and mult are powers of ten and frac has no trailing zero,
	 * so the fraction is whole in bit/s exactly when scale <= mult */
	if (scale > mult)
		return -EINVAL;
	if (__builtin_mul_overflow(ip, mult, &whole) ||
	    __builtin_add_overflow(whole, frac * (mult / scale), &whole))
		return -ERANGE;
	*bps = whole;
	return 0;
}

/* ---- key types ---- */

static void
conf_store(void *obj, const struct conf_key *k, uint64_t v)
{
	uint8_t *p = (uint8_t *)obj + k->off;
	uint8_t v8 = (uint8_t)v;
	uint16_t v16 = (uint16_t)v;
	uint32_t v32 = (uint32_t)v;

	switch (k->size) {
	case 1: memcpy(p, &v8, 1); break;
	case 2: memcpy(p, &v16, 2); break;
	case 4: memcpy(p, &v32, 4); break;
	default: memcpy(p, &v, 8); break;
	}
}

static uint64_t
conf_load(const void *obj, const struct conf_key *k)
{
	const uint8_t *p = (const uint8_t *)obj + k->off;
	uint8_t v8;
	uint16_t v16;
	uint32_t v32;
	uint64_t v;

	switch (k->size) {
	case 1: memcpy(&v8, p, 1); return v8;
	case 2: memcpy(&v16, p, 2); return v16;
	case 4: memcpy(&v32, p, 4); return v32;
	default: memcpy(&v, p, 8); return v;
	}
}

/* Range and power-of-two rules of an integer key; shared by the parser
 * and by validate, which rechecks objects built by code. */
static int
conf_check_uint(struct conf_ctx *x, const struct conf_key *k, uint64_t v,
		const char *shown)
{
	if (v < k->min || v > k->max)
		return conf_err(x, "%s: %s out of range %" PRIu64 "..%" PRIu64,
				k->name, shown, k->min, k->max);
	if (k->type == CT_POW2 && (v & (v - 1)) != 0)
		return conf_err(x, "%s: %s is not a power of two",
				k->name, shown);
	return 0;
}

static int
set_uint(struct conf_ctx *x, const struct conf_key *k, void *obj,
	 const char *val)
{
	uint64_t v;
	int ret = conf_u64(val, &v);

	if (ret == -EINVAL)
		return conf_err(x, "%s: '%s' is not a number", k->name, val);
	if (ret == -ERANGE)
		v = UINT64_MAX;
	ret = conf_check_uint(x, k, v, val);
	if (ret == 0)
		conf_store(obj, k, v);
	return ret;
}

static int
set_enum(struct conf_ctx *x, const struct conf_key *k, void *obj,
	 const char *val)
{
	const char *const *words = k->type == CT_BOOL ? conf_on_off : k->words;
	char list[128];
	size_t i;

	for (i = 0; words[i] != NULL; i++) {
		if (strcmp(words[i], val) == 0) {
			conf_store(obj, k, i);
			return 0;
		}
	}
	return conf_err(x, "%s: '%s' is not one of: %s", k->name, val,
			conf_word_list(words, list, sizeof(list)));
}

static int
set_rate(struct conf_ctx *x, const struct conf_key *k, void *obj,
	 const char *val)
{
	uint64_t v;
	int ret = ibex_parse_rate(val, &v);

	if (ret == -ERANGE)
		return conf_err(x, "%s: '%s' is too large", k->name, val);
	if (ret < 0)
		return conf_err(x, "%s: '%s' is not a rate (e.g. 25G, 100M, 1.5G)",
				k->name, val);
	ret = conf_check_uint(x, k, v, val);
	if (ret == 0)
		conf_store(obj, k, v);
	return ret;
}

static int
set_string(struct conf_ctx *x, const struct conf_key *k, void *obj,
	   const char *val)
{
	size_t n = strlen(val);

	if (n >= k->size)
		return conf_err(x, "%s: '%s' is too long (max %zu characters)",
				k->name, val, k->size - 1);
	memcpy((char *)obj + k->off, val, n + 1);
	return 0;
}

/* One VLAN id of a list, s[0..n). */
static int
vlan_id(struct conf_ctx *x, const char *s, size_t n, uint64_t *vid)
{
	int ret = conf_u64n(s, n, vid);

	if (ret == -EINVAL)
		return conf_err(x, "vlans: '%.*s' is not a VLAN id", (int)n, s);
	if (ret < 0 || *vid < CONF_VID_MIN || *vid > CONF_VID_MAX)
		return conf_err(x, "vlans: %.*s out of range %d..%d", (int)n, s,
				CONF_VID_MIN, CONF_VID_MAX);
	return 0;
}

/* "N" or "N-M" of a list, s[0..n), into bitmap bm. */
static int
vlan_elem(struct conf_ctx *x, const char *s, size_t n, uint64_t *bm)
{
	const char *dash = memchr(s, '-', n);
	uint64_t lo, hi, v;
	int ret;

	if (n == 0)
		return conf_err(x, "vlans: empty element in list");
	if (dash == NULL)
		ret = vlan_id(x, s, n, &lo);
	else
		ret = vlan_id(x, s, dash - s, &lo);
	if (ret == 0 && dash != NULL)
		ret = vlan_id(x, dash + 1, n - (dash - s) - 1, &hi);
	else
		hi = lo;
	if (ret != 0)
		return ret;
	if (lo > hi)
		return conf_err(x, "vlans: range %.*s starts above its end",
				(int)n, s);
	for (v = lo; v <= hi; v++)
		bm[v / 64] |= UINT64_C(1) << (v % 64);
	return 0;
}

/* The list replaces the port's membership (overlaps are fine). */
static int
set_vlans(struct conf_ctx *x, const struct conf_key *k, void *obj,
	  const char *val)
{
	struct ibex_conf_port *p = obj;
	uint64_t bm[IBEX_VLAN_COUNT / 64] = { 0 };
	const char *s = val;
	const char *comma;
	int ret;

	(void)k;
	for (;;) {
		comma = strchr(s, ',');
		ret = vlan_elem(x, s, comma != NULL ? (size_t)(comma - s) :
				strlen(s), bm);
		if (ret != 0)
			return ret;
		if (comma == NULL)
			break;
		s = comma + 1;
	}
	memcpy(p->vlans, bm, sizeof(bm));
	p->vlans_set = true;
	return 0;
}

static int
set_port(struct conf_ctx *x, const struct conf_key *k, void *obj,
	 const char *val)
{
	int idx = ibex_conf_port_find(x->c, val);

	if (idx < 0)
		return conf_err(x, "unknown port '%s'", val);
	conf_store(obj, k, (uint64_t)idx);
	return 0;
}

static int
conf_set(struct conf_ctx *x, const struct conf_key *k, void *obj,
	 const char *val)
{
	switch (k->type) {
	case CT_U32:
	case CT_POW2:
		return set_uint(x, k, obj, val);
	case CT_BOOL:
	case CT_ENUM:
		return set_enum(x, k, obj, val);
	case CT_RATE:
		return set_rate(x, k, obj, val);
	case CT_STRING:
		return set_string(x, k, obj, val);
	case CT_VLANS:
		return set_vlans(x, k, obj, val);
	case CT_PORT:
		return set_port(x, k, obj, val);
	}
	return -EINVAL;
}

static const struct conf_key *
conf_key_find(const struct conf_key *keys, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(keys[i].name, name) == 0)
			return &keys[i];
	return NULL;
}

/* <key> <value> pairs of tok[0..ntok) into obj. A key may appear once
 * per statement; a later statement may set it again. */
static int
conf_keys(struct conf_ctx *x, const struct conf_key *keys, size_t nkeys,
	  void *obj, char **tok, int ntok)
{
	const struct conf_key *k;
	uint64_t seen = 0;
	char list[256];
	int i, ret;

	for (i = 0; i < ntok; i += 2) {
		k = conf_key_find(keys, nkeys, tok[i]);
		if (k == NULL)
			return conf_err(x, "unknown key '%s' (expected one of: %s)",
					tok[i], conf_key_list(keys, nkeys, list,
							      sizeof(list)));
		if (seen & (UINT64_C(1) << (k - keys)))
			return conf_err(x, "duplicate key '%s'", k->name);
		seen |= UINT64_C(1) << (k - keys);
		if (i + 1 >= ntok)
			return conf_err(x, "missing value for '%s'", k->name);
		ret = conf_set(x, k, obj, tok[i + 1]);
		if (ret != 0)
			return ret;
	}
	return 0;
}

/* ---- ports ---- */

static bool
conf_name_ok(const char *s)
{
	size_t n = strlen(s);
	size_t i;

	if (n == 0 || n >= IBEX_NAME_LEN)
		return false;
	for (i = 0; i < n; i++) {
		char ch = s[i];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= '0' && ch <= '9') || ch == '_' || ch == '.' ||
		      ch == '-'))
			return false;
	}
	return true;
}

/* Without a vlans key a port is a member of its pvid only, whatever the
 * pvid became. */
static void
conf_port_fixup(struct ibex_conf_port *p)
{
	if (p->vlans_set)
		return;
	memset(p->vlans, 0, sizeof(p->vlans));
	p->vlans[p->pvid / 64] |= UINT64_C(1) << (p->pvid % 64);
}

/* Lanes, flow control and ECN as docs/virtual-lanes.md, flow-control.md
 * and ecn.md give them. Tables that depend on other keys (SL->VL on the
 * lane count, the arbiter, ECN on the rate) are filled when not set. */
static void
conf_port_lane_defaults(struct ibex_conf_port *p)
{
	unsigned int v;

	p->nb_vls = 8;
	ibex_sl_class_init(&p->sl_class, IBEX_SL_FROM_PCP);
	p->vl_queue_blocks = 4096;
	p->fc_mode = IBEX_FC_NONE;
	for (v = 0; v < IBEX_VL_COUNT; v++) {
		p->reserved_blocks[v] = 4096 / 64;
		p->ecn[v].enabled = true;
	}
	p->credit_period_us = 10;
	p->credit_min_gap_ns = 500;
	p->pfc_headroom_auto = true;
	p->pfc_cable_m = 10;
	p->pfc_proc_ns = 2000;
	p->pfc_xon_gap_blocks = 3072 / 64;
	p->pfc_quanta = 65535;
	p->wd_action = IBEX_PFC_WD_DROP;
	p->wd_detect_ms = 200;
	p->wd_recover_ms = 200;
}

/* Fill the tables a port did not set from its other keys: call after
 * parsing, before use (ibex_conf_validate() checks the result). */
void
ibex_conf_port_tables(struct ibex_conf_port *p)
{
	unsigned int v;

	if (!p->sl2vl_set)
		ibex_sl2vl_default(&p->sl2vl, p->nb_vls);
	if (!p->vlarb_set)
		ibex_vlarb_conf_default(&p->vlarb, p->nb_vls);
	for (v = 0; v < IBEX_VL_COUNT; v++)
		if (!p->ecn[v].set)
			ibex_ecn_cfg_default(&p->ecn[v].cfg,
				p->shape_bps != 0 ? p->shape_bps :
				p->speed_bps != 0 ? p->speed_bps :
				UINT64_C(25000000000));
}

/* Caller checked the lengths of name and dev. */
static void
conf_port_defaults(struct ibex_conf_port *p, const char *name,
		   const char *dev, int line)
{
	memset(p, 0, sizeof(*p));
	memcpy(p->name, name, strlen(name) + 1);
	if (dev == NULL || dev[0] == '\0')
		dev = name;
	memcpy(p->dev, dev, strlen(dev) + 1);
	p->pvid = 1;
	p->rx_desc = 1024;
	p->tx_desc = 1024;
	p->admin_up = true;
	p->line = line;
	conf_port_lane_defaults(p);
	conf_port_fixup(p);
}

int
ibex_conf_port_find(const struct ibex_conf *c, const char *name)
{
	uint16_t i;

	for (i = 0; i < c->nb_ports; i++)
		if (strcmp(c->ports[i].name, name) == 0)
			return i;
	return -1;
}

int
ibex_conf_port_add(struct ibex_conf *c, const char *name, const char *dev)
{
	if (c == NULL || name == NULL || !conf_name_ok(name) ||
	    (dev != NULL && strlen(dev) >= IBEX_DEV_LEN))
		return -EINVAL;
	if (ibex_conf_port_find(c, name) >= 0)
		return -EEXIST;
	if (c->nb_ports >= IBEX_MAX_PORTS)
		return -ENOSPC;
	conf_port_defaults(&c->ports[c->nb_ports], name, dev, 0);
	return c->nb_ports++;
}

/* ---- statements ---- */

static int
stmt_switch(struct conf_ctx *x, char **tok, int ntok)
{
	char list[256];

	if (ntok == 0)
		return conf_err(x, "missing settings (expected one of: %s)",
				conf_key_list(KEYS(conf_switch_keys), list,
					      sizeof(list)));
	return conf_keys(x, KEYS(conf_switch_keys), x->c, tok, ntok);
}

/* The first "port NAME" declares the port; later ones modify it. */
static int
stmt_port(struct conf_ctx *x, char **tok, int ntok)
{
	struct ibex_conf *c = x->c;
	struct ibex_conf_port p;
	int idx, ret;

	if (ntok == 0)
		return conf_err(x, "missing port name");
	if (!conf_name_ok(tok[0]))
		return conf_err(x, "invalid name '%s' (1..%d characters of "
				"A-Z a-z 0-9 _ . -)", tok[0], IBEX_NAME_LEN - 1);
	snprintf(x->what, sizeof(x->what), "port %s", tok[0]);
	idx = ibex_conf_port_find(c, tok[0]);
	if (idx >= 0) {
		p = c->ports[idx];
	} else if (c->nb_ports >= IBEX_MAX_PORTS) {
		return conf_err(x, "too many ports (max %d)", IBEX_MAX_PORTS);
	} else {
		idx = c->nb_ports;
		conf_port_defaults(&p, tok[0], NULL, x->lineno);
	}
	ret = conf_keys(x, KEYS(conf_port_keys), &p, tok + 1, ntok - 1);
	if (ret != 0)
		return ret;
	conf_port_fixup(&p);
	c->ports[idx] = p;
	if (idx == c->nb_ports)
		c->nb_ports++;
	return 0;
}

/* fdb static MAC port NAME [vlan VID]: the vlan defaults to the pvid the
 * port has when this line is read, so the port must come first. */
static int
stmt_fdb_static(struct conf_ctx *x, char **tok, int ntok)
{
	struct ibex_conf *c = x->c;
	struct ibex_conf_fdb_static s = {
		.port = IBEX_PORT_NONE, .line = x->lineno,
	};
	int ret;

	snprintf(x->what, sizeof(x->what), "fdb static");
	if (ntok == 0)
		return conf_err(x, "missing MAC address");
	if (ibex_mac_parse(tok[0], s.mac) != 0)
		return conf_err(x, "invalid MAC address '%s'", tok[0]);
	if (s.mac[0] & 1)
		return conf_err(x, "%s is a group (multicast) address", tok[0]);
	ret = conf_keys(x, KEYS(conf_static_keys), &s, tok + 1, ntok - 1);
	if (ret != 0)
		return ret;
	if (s.port == IBEX_PORT_NONE)
		return conf_err(x, "missing 'port <name>'");
	if (s.vid == 0)
		s.vid = c->ports[s.port].pvid;
	if (c->nb_static >= IBEX_CONF_MAX_STATIC)
		return conf_err(x, "too many static entries (max %d)",
				IBEX_CONF_MAX_STATIC);
	c->statics[c->nb_static++] = s;
	return 0;
}

static int
stmt_fdb(struct conf_ctx *x, char **tok, int ntok)
{
	char list[256];

	if (ntok > 0 && strcmp(tok[0], "static") == 0)
		return stmt_fdb_static(x, tok + 1, ntok - 1);
	conf_key_list(KEYS(conf_fdb_keys), list, sizeof(list));
	if (ntok == 0)
		return conf_err(x, "missing settings (expected one of: "
				"static, %s)", list);
	if (conf_key_find(KEYS(conf_fdb_keys), tok[0]) == NULL)
		return conf_err(x, "unknown key '%s' (expected one of: "
				"static, %s)", tok[0], list);
	return conf_keys(x, KEYS(conf_fdb_keys), x->c, tok, ntok);
}

struct conf_stmt {
	const char *name;
	int (*parse)(struct conf_ctx *x, char **tok, int ntok);
};

static const struct conf_stmt conf_stmts[] = {
	{ "switch", stmt_switch },
	{ "port", stmt_port },
	{ "fdb", stmt_fdb },
};

/* ---- lines ---- */

/* Split buf in place into words, up to a '#' comment. */
static int
conf_tokens(char *buf, char **tok)
{
	char *hash = strchr(buf, '#');
	char *save = NULL;
	char *t;
	int n = 0;

	if (hash != NULL)
		*hash = '\0';
	for (t = strtok_r(buf, CONF_SEPS, &save); t != NULL;
	     t = strtok_r(NULL, CONF_SEPS, &save))
		tok[n++] = t;
	return n;
}

static int
conf_dispatch(struct conf_ctx *x, char **tok, int ntok)
{
	size_t i;

	for (i = 0; i < IBEX_ARRAY_SIZE(conf_stmts); i++) {
		if (strcmp(conf_stmts[i].name, tok[0]) == 0) {
			snprintf(x->what, sizeof(x->what), "%s", tok[0]);
			return conf_stmts[i].parse(x, tok + 1, ntok - 1);
		}
	}
	return conf_err(x, "unknown statement '%s' (expected one of: "
			"switch, port, fdb)", tok[0]);
}

/* One statement of n characters at s (not NUL-terminated). */
static int
conf_line(struct ibex_conf *c, const char *s, size_t n, const char *origin,
	  int lineno, char *err, size_t errlen)
{
	char buf[IBEX_CONF_LINE_MAX + 1];
	char *tok[CONF_MAX_TOKENS];
	struct conf_ctx x = {
		.c = c, .origin = origin != NULL ? origin : "",
		.lineno = lineno, .err = err, .errlen = errlen,
	};
	int ntok;

	if (n > IBEX_CONF_LINE_MAX)
		return conf_err(&x, "line too long (max %d characters)",
				IBEX_CONF_LINE_MAX);
	memcpy(buf, s, n);
	buf[n] = '\0';
	ntok = conf_tokens(buf, tok);
	return ntok == 0 ? 0 : conf_dispatch(&x, tok, ntok);
}

static void
conf_set_origin(struct ibex_conf *c, const char *origin)
{
	snprintf(c->origin, sizeof(c->origin), "%s",
		 origin != NULL ? origin : "");
}

void
ibex_conf_init(struct ibex_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->nb_workers = 0;
	c->burst = 32;
	c->tx_drain_us = 0;
	c->mbufs = 16384;
	c->fdb_max_entries = 65536;
	c->fdb_ageing_s = 300;
	c->fdb_learning = true;
	c->vl15_rate_pps = 1000;
	c->buffer_blocks = (8u << 20) / 64;
	c->buffer_alpha_log2 = -3;
}

int
ibex_conf_parse_line(struct ibex_conf *c, const char *line,
		     const char *origin, int lineno, char *err, size_t errlen)
{
	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (c == NULL || line == NULL)
		return -EINVAL;
	if (c->origin[0] == '\0')
		conf_set_origin(c, origin);
	return conf_line(c, line, strlen(line), origin, lineno, err, errlen);
}

int
ibex_conf_parse_string(struct ibex_conf *c, const char *text,
		       const char *origin, char *err, size_t errlen)
{
	const char *s = text;
	const char *nl;
	int lineno = 0;
	int ret;

	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (c == NULL || text == NULL)
		return -EINVAL;
	conf_set_origin(c, origin);
	while (*s != '\0') {
		nl = strchr(s, '\n');
		ret = conf_line(c, s, nl != NULL ? (size_t)(nl - s) : strlen(s),
				origin, ++lineno, err, errlen);
		if (ret != 0 || nl == NULL)
			return ret;
		s = nl + 1;
	}
	return 0;
}

/* fgets with room for IBEX_CONF_LINE_MAX characters, the newline and one
 * more: a line that fills it without a newline is too long, and
 * conf_line says so with its number. */
int
ibex_conf_parse_file(struct ibex_conf *c, const char *path,
		     char *err, size_t errlen)
{
	char buf[IBEX_CONF_LINE_MAX + 3];
	int lineno = 0;
	int ret = 0;
	size_t n;
	FILE *f;

	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (c == NULL || path == NULL)
		return -EINVAL;
	f = fopen(path, "r");
	if (f == NULL) {
		ret = -errno;
		if (err != NULL && errlen > 0)
			snprintf(err, errlen, "%s: cannot open: %s", path,
				 strerror(-ret));
		return ret;
	}
	conf_set_origin(c, path);
	while (ret == 0 && fgets(buf, IBEX_CONF_LINE_MAX + 2, f) != NULL) {
		n = strlen(buf);
		if (n > 0 && buf[n - 1] == '\n')
			n--;
		ret = conf_line(c, buf, n, path, ++lineno, err, errlen);
	}
	if (ret == 0 && ferror(f)) {
		ret = -EIO;
		if (err != NULL && errlen > 0)
			snprintf(err, errlen, "%s: read error", path);
	}
	fclose(f);
	return ret;
}

/* ---- validate ---- */

/* Integer keys of a table hold values the parser would have accepted. */
static int
check_ranges(struct conf_ctx *x, const struct conf_key *keys, size_t n,
	     const void *obj)
{
	char shown[24];
	uint64_t v;
	size_t i;
	int ret;

	for (i = 0; i < n; i++) {
		if (keys[i].type != CT_U32 && keys[i].type != CT_POW2)
			continue;
		v = conf_load(obj, &keys[i]);
		if (v == 0 && (keys[i].flags & CK_ZERO_UNSET))
			continue;
		snprintf(shown, sizeof(shown), "%" PRIu64, v);
		ret = conf_check_uint(x, &keys[i], v, shown);
		if (ret != 0)
			return ret;
	}
	return 0;
}

static int
check_globals(struct conf_ctx *x, const struct ibex_conf *c)
{
	int ret;

	snprintf(x->what, sizeof(x->what), "switch");
	ret = check_ranges(x, KEYS(conf_switch_keys), c);
	if (ret != 0)
		return ret;
	snprintf(x->what, sizeof(x->what), "fdb");
	ret = check_ranges(x, KEYS(conf_fdb_keys), c);
	if (ret != 0)
		return ret;
	if (c->nb_ports > IBEX_MAX_PORTS)
		return conf_err(x, "%u ports, max %d", c->nb_ports,
				IBEX_MAX_PORTS);
	if (c->nb_static > IBEX_CONF_MAX_STATIC)
		return conf_err(x, "%u static entries, max %d", c->nb_static,
				IBEX_CONF_MAX_STATIC);
	return 0;
}

/* Names and devs unique: a port is checked against the ones before it. */
static int
check_port_unique(struct conf_ctx *x, const struct ibex_conf *c, uint16_t i)
{
	const struct ibex_conf_port *p = &c->ports[i];
	uint16_t j;

	for (j = 0; j < i; j++) {
		const struct ibex_conf_port *q = &c->ports[j];

		if (strcmp(p->name, q->name) == 0)
			return conf_err(x, "name is already used (line %d)",
					q->line);
		if (strcmp(ibex_conf_port_dev(p), ibex_conf_port_dev(q)) == 0)
			return conf_err(x, "dev '%s' is already used by port "
					"%s (line %d)", ibex_conf_port_dev(p),
					q->name, q->line);
	}
	return 0;
}

static int
check_port(struct conf_ctx *x, const struct ibex_conf *c, uint16_t i)
{
	const struct ibex_conf_port *p = &c->ports[i];
	int ret;

	x->lineno = p->line;
	snprintf(x->what, sizeof(x->what), "port %s", p->name);
	if (!conf_name_ok(p->name))
		return conf_err(x, "invalid name");
	ret = check_ranges(x, KEYS(conf_port_keys), p);
	if (ret == 0)
		ret = check_port_unique(x, c, i);
	if (ret != 0)
		return ret;
	if (ibex_conf_port_in_vlan(p, 0) || ibex_conf_port_in_vlan(p, 4095))
		return conf_err(x, "vlans include reserved id 0 or 4095");
	if (!ibex_conf_port_in_vlan(p, p->pvid))
		return conf_err(x, "pvid %u is not in its vlans", p->pvid);
	return 0;
}

/* A (mac, vid) may be listed twice only with the same port. */
static int
check_static_dup(struct conf_ctx *x, const struct ibex_conf *c, uint16_t i)
{
	const struct ibex_conf_fdb_static *s = &c->statics[i];
	uint16_t j;

	for (j = 0; j < i; j++) {
		const struct ibex_conf_fdb_static *t = &c->statics[j];

		if (t->vid == s->vid && memcmp(t->mac, s->mac, 6) == 0 &&
		    t->port != s->port)
			return conf_err(x, "already on port %s (line %d)",
					c->ports[t->port].name, t->line);
	}
	return 0;
}

static int
check_static(struct conf_ctx *x, const struct ibex_conf *c, uint16_t i)
{
	const struct ibex_conf_fdb_static *s = &c->statics[i];
	char mac[18];

	conf_mac_str(s->mac, mac, sizeof(mac));
	x->lineno = s->line;
	snprintf(x->what, sizeof(x->what), "fdb static %s vlan %u", mac,
		 s->vid);
	if (s->port >= c->nb_ports)
		return conf_err(x, "port %u does not exist", s->port);
	if (s->vid < CONF_VID_MIN || s->vid > CONF_VID_MAX)
		return conf_err(x, "vlan %u out of range %d..%d", s->vid,
				CONF_VID_MIN, CONF_VID_MAX);
	if (!ibex_conf_port_in_vlan(&c->ports[s->port], s->vid))
		return conf_err(x, "port %s is not a member of vlan %u",
				c->ports[s->port].name, s->vid);
	if (i >= c->fdb_max_entries)
		return conf_err(x, "more static entries than fdb "
				"max-entries %u", c->fdb_max_entries);
	return check_static_dup(x, c, i);
}

int
ibex_conf_validate(const struct ibex_conf *c, char *err, size_t errlen)
{
	struct conf_ctx x = { .err = err, .errlen = errlen };
	uint16_t i;
	int ret;

	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (c == NULL)
		return -EINVAL;
	x.origin = c->origin[0] != '\0' ? c->origin : "<config>";
	ret = check_globals(&x, c);
	for (i = 0; ret == 0 && i < c->nb_ports; i++)
		ret = check_port(&x, c, i);
	for (i = 0; ret == 0 && i < c->nb_static; i++)
		ret = check_static(&x, c, i);
	return ret;
}
