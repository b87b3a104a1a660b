/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control socket's command language: parsing a command line, applying
 * a statement to a copy of the running config, and the text buffers the
 * replies are built in. Pure C: the socket and the data path are in
 * ibex_sock.c.
 */

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibex_cmd.h"
#include "ibex_emit.h"
#include "ibex_json.h"

#define CMD_SEPS " \t\r\n\v\f"
#define CMD_MAX_WORDS (IBEX_CMD_LINE_MAX / 2 + 1)

/* ---- text buffers ---- */

void
ibex_out_init(struct ibex_out *o)
{
	memset(o, 0, sizeof(*o));
}

void
ibex_out_free(struct ibex_out *o)
{
	free(o->buf);
	ibex_out_init(o);
}

void
ibex_out_reset(struct ibex_out *o)
{
	o->len = 0;
	o->oom = false;
	if (o->buf != NULL)
		o->buf[0] = '\0';
}

/* Room for @p more bytes plus the NUL. */
static int
out_reserve(struct ibex_out *o, size_t more)
{
	size_t cap = o->cap != 0 ? o->cap : 256;
	char *b;

	if (o->len + more + 1 <= o->cap)
		return 0;
	while (cap < o->len + more + 1)
		cap *= 2;
	b = realloc(o->buf, cap);
	if (b == NULL) {
		o->oom = true;
		return -ENOMEM;
	}
	o->buf = b;
	o->cap = cap;
	return 0;
}

int
ibex_out_append(struct ibex_out *o, const char *s, size_t n)
{
	if (out_reserve(o, n) < 0)
		return -ENOMEM;
	memcpy(o->buf + o->len, s, n);
	o->len += n;
	o->buf[o->len] = '\0';
	return 0;
}

int
ibex_out_printf(struct ibex_out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || out_reserve(o, (size_t)n) < 0)
		return -ENOMEM;
	va_start(ap, fmt);
	vsnprintf(o->buf + o->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	o->len += (size_t)n;
	return 0;
}

void
ibex_out_consume(struct ibex_out *o, size_t n)
{
	if (n >= o->len) {
		ibex_out_reset(o);
		return;
	}
	memmove(o->buf, o->buf + n, o->len - n + 1);
	o->len -= n;
}

static int
out_put(void *ctx, const char *bytes, size_t n)
{
	return ibex_out_append(ctx, bytes, n);
}

int
ibex_out_json_str(struct ibex_out *o, const char *s)
{
	return ibex_json_escape(s, out_put, o);
}

/* Could the client read this line as the end of the reply? */
static bool
line_needs_stuffing(const char *s, size_t n)
{
	return (n >= 2 && memcmp(s, "OK", 2) == 0) ||
	       (n >= 3 && memcmp(s, "ERR", 3) == 0) ||
	       (n >= 1 && s[0] == '.');
}

int
ibex_out_reply_body(struct ibex_out *o, const char *body, size_t n)
{
	size_t i = 0;
	int ret = 0;

	while (ret == 0 && i < n) {
		const char *nl = memchr(body + i, '\n', n - i);
		size_t len = nl != NULL ? (size_t)(nl - (body + i)) : n - i;

		if (line_needs_stuffing(body + i, len))
			ret = ibex_out_append(o, ".", 1);
		if (ret == 0)
			ret = ibex_out_append(o, body + i, len);
		if (ret == 0)
			ret = ibex_out_append(o, "\n", 1);
		i += len + 1;
	}
	return ret;
}

/* ---- command lines ---- */

/* The columns of ibex_topics.h, one array each. */
static const char *const show_names[IBEX_SHOW_NB] = {
#define IBEX_TOPIC_NAME(id, name, port, tel, final, metrics, help) \
	[IBEX_SHOW_##id] = #name,
	IBEX_TOPICS(IBEX_TOPIC_NAME)
#undef IBEX_TOPIC_NAME
};

static const struct {
	bool port, final, metrics;
	const char *tel;
	const char *help;
} show_rows[IBEX_SHOW_NB] = {
#define IBEX_TOPIC_ROW(id, name, port_, tel_, final_, metrics_, help_) \
	[IBEX_SHOW_##id] = { .port = port_, .final = final_, \
			     .metrics = metrics_, .tel = tel_, .help = help_ },
	IBEX_TOPICS(IBEX_TOPIC_ROW)
#undef IBEX_TOPIC_ROW
};

bool
ibex_show_takes_port(enum ibex_show s)
{
	return (unsigned int)s < IBEX_SHOW_NB && show_rows[s].port;
}

const char *
ibex_show_name(enum ibex_show s)
{
	return (unsigned int)s < IBEX_SHOW_NB ? show_names[s] : NULL;
}

const char *
ibex_show_tel_name(enum ibex_show s)
{
	if ((unsigned int)s >= IBEX_SHOW_NB || show_rows[s].tel[0] == '\0')
		return NULL;
	return show_rows[s].tel;
}

bool
ibex_show_in_final(enum ibex_show s)
{
	return (unsigned int)s < IBEX_SHOW_NB && show_rows[s].final;
}

const char *
ibex_cmd_topic_help(enum ibex_show s)
{
	return (unsigned int)s < IBEX_SHOW_NB ? show_rows[s].help : "";
}

bool
ibex_show_in_metrics(enum ibex_show s)
{
	return (unsigned int)s < IBEX_SHOW_NB && show_rows[s].metrics;
}

static int __attribute__((format(printf, 4, 5)))
cmd_err(char *err, size_t errlen, const char *verb, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (err != NULL && errlen > 0)
		snprintf(err, errlen, "%s: %s", verb, msg);
	return -EINVAL;
}

/* Join words[0..n) with single spaces, after an optional prefix. */
static int
cmd_join(char *dst, size_t len, const char *prefix, char **w, int n)
{
	size_t used = (size_t)snprintf(dst, len, "%s", prefix);
	int i;

	for (i = 0; i < n && used < len; i++)
		used += (size_t)snprintf(dst + used, len - used, "%s%s",
					 used > 0 ? " " : "", w[i]);
	return used < len ? 0 : -E2BIG;
}

static int
parse_show(struct ibex_cmd_req *req, char **w, int n, char *err,
	   size_t errlen)
{
	char list[160] = "";
	unsigned int s;

	for (s = 0; s < IBEX_SHOW_NB; s++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list),
			 "%s%s", s != 0 ? ", " : "", show_names[s]);
	if (n == 0)
		return cmd_err(err, errlen, "show", "what? (expected one of: %s)",
			       list);
	for (s = 0; s < IBEX_SHOW_NB; s++)
		if (strcmp(w[0], show_names[s]) == 0)
			break;
	if (s == IBEX_SHOW_NB)
		return cmd_err(err, errlen, "show", "unknown topic '%s' "
			       "(expected one of: %s)", w[0], list);
	req->show = (enum ibex_show)s;
	if (n > 2 || (n == 2 && !ibex_show_takes_port(req->show)))
		return cmd_err(err, errlen, "show", "unexpected '%s' after '%s'",
			       w[n - 1], w[0]);
	if (n == 2) {
		if (strlen(w[1]) >= sizeof(req->port))
			return cmd_err(err, errlen, "show", "no port '%s'", w[1]);
		snprintf(req->port, sizeof(req->port), "%s", w[1]);
	}
	req->kind = IBEX_CMD_SHOW;
	return 0;
}

int
ibex_cmd_log_level(const char *s)
{
	/* Index + 1 is the RTE_LOG_* value (RTE_LOG_EMERG is 1). */
	static const char *const names[] = { "emergency", "alert",
		"critical", "error", "warning", "notice", "info", "debug" };
	char *end;
	long v;
	unsigned int i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(s, names[i]) == 0)
			return (int)i + 1;
	v = strtol(s, &end, 10);
	if (end != s && *end == '\0' && v >= 1 && v <= 8)
		return (int)v;
	return -EINVAL;
}

/* set log-level TYPE LEVEL */
static int
parse_log_level(struct ibex_cmd_req *req, char **w, int n, char *err,
		size_t errlen)
{
	snprintf(req->verb, sizeof(req->verb), "log-level");
	if (n != 2)
		return cmd_err(err, errlen, "log-level", "expected TYPE LEVEL "
			       "(e.g. 'set log-level ibex.* debug', 'set "
			       "log-level lib.eal 4')");
	req->level = ibex_cmd_log_level(w[1]);
	if (req->level < 0)
		return cmd_err(err, errlen, "log-level", "'%s' is not a level "
			       "(emergency alert critical error warning notice "
			       "info debug, or 1..8)", w[1]);
	if (strlen(w[0]) >= sizeof(req->stmt))
		return cmd_err(err, errlen, "log-level", "type too long");
	snprintf(req->stmt, sizeof(req->stmt), "%s", w[0]);
	req->kind = IBEX_CMD_LOG_LEVEL;
	return 0;
}

/* add fdb [static] MAC port P [vlan N]  ->  fdb static MAC port P ...
 * del fdb [static] MAC vlan N           ->  fdb del MAC vlan N */
static int
parse_fdb_edit(struct ibex_cmd_req *req, char **w, int n, char *err,
	       size_t errlen)
{
	bool add = strcmp(req->verb, "add") == 0;

	if (n == 0 || strcmp(w[0], "fdb") != 0)
		return cmd_err(err, errlen, req->verb, "unknown object '%s' "
			       "(expected: %s fdb MAC%s)",
			       n == 0 ? "" : w[0], req->verb,
			       add ? " port NAME [vlan N]" : " vlan N");
	w++;
	n--;
	if (n > 0 && strcmp(w[0], "static") == 0) {
		w++;
		n--;
	}
	if (n == 0)
		return cmd_err(err, errlen, req->verb, "missing MAC address");
	req->kind = IBEX_CMD_CHANGE;
	if (cmd_join(req->stmt, sizeof(req->stmt),
		     add ? "fdb static" : "fdb del", w, n) < 0)
		return cmd_err(err, errlen, req->verb, "line too long");
	return 0;
}

#define CAPTURE_USAGE "expected 'capture PORT [rx|tx|both] [COUNT] FILE " \
	"[snaplen N] [background] [filter EXPR]', 'capture stop' or " \
	"'capture status'"

/* A decimal number in [min, max], the whole word. */
static bool
cmd_number(const char *w, unsigned long long min, unsigned long long max,
	   unsigned long long *v)
{
	char *end;

	if (w[0] < '0' || w[0] > '9')
		return false;
	errno = 0;
	*v = strtoull(w, &end, 10);
	return errno == 0 && *end == '\0' && *v >= min && *v <= max;
}

/* What follows FILE: snaplen N, background, filter EXPR (the rest of the
 * line, one pair of quotes around it dropped). */
static int
parse_capture_opts(struct ibex_cmd_capture *c, char **w, int n, char *err,
		   size_t errlen)
{
	unsigned long long v;
	size_t len;
	int i;

	for (i = 0; i < n; i++) {
		if (strcmp(w[i], "background") == 0) {
			c->background = true;
		} else if (strcmp(w[i], "snaplen") == 0) {
			if (i + 1 == n || !cmd_number(w[i + 1], 16, 65000, &v))
				return cmd_err(err, errlen, "capture", "snaplen: "
					       "expected 16..65000 bytes");
			c->snaplen = (unsigned int)v;
			i++;
		} else if (strcmp(w[i], "filter") == 0) {
			if (i + 1 == n)
				return cmd_err(err, errlen, "capture", "filter: "
					       "expected an expression (pcap-"
					       "filter(7), e.g. 'udp port 4791')");
			if (cmd_join(c->filter, sizeof(c->filter), "", w + i + 1,
				     n - i - 1) < 0)
				return cmd_err(err, errlen, "capture", "filter "
					       "too long");
			len = strlen(c->filter);
			if (len >= 2 && (c->filter[0] == '"' ||
					 c->filter[0] == '\'') &&
			    c->filter[len - 1] == c->filter[0]) {
				memmove(c->filter, c->filter + 1, len - 2);
				c->filter[len - 2] = '\0';
			}
			return 0;
		} else {
			return cmd_err(err, errlen, "capture", "unexpected '%s' "
				       "(%s)", w[i], CAPTURE_USAGE);
		}
	}
	return 0;
}

static int
parse_capture(struct ibex_cmd_req *req, char **w, int n, char *err,
	      size_t errlen)
{
	struct ibex_cmd_capture *c = &req->cap;
	unsigned long long v;
	int i = 1;

	if (n == 0)
		return cmd_err(err, errlen, "capture", CAPTURE_USAGE);
	if (n == 1 && strcmp(w[0], "status") == 0) {
		req->kind = IBEX_CMD_SHOW;
		req->show = IBEX_SHOW_CAPTURE;
		return 0;
	}
	req->kind = IBEX_CMD_CAPTURE;
	if (n == 1 && strcmp(w[0], "stop") == 0) {
		c->stop = true;
		return 0;
	}
	if (strlen(w[0]) >= sizeof(req->port))
		return cmd_err(err, errlen, "capture", "no port '%s'", w[0]);
	snprintf(req->port, sizeof(req->port), "%s", w[0]);
	c->dir = 3;
	if (i < n && strcmp(w[i], "rx") == 0)
		c->dir = 1, i++;
	else if (i < n && strcmp(w[i], "tx") == 0)
		c->dir = 2, i++;
	else if (i < n && strcmp(w[i], "both") == 0)
		i++;
	/* A number with a word after it is COUNT; the last word is FILE. */
	if (i + 1 < n && w[i][0] >= '0' && w[i][0] <= '9') {
		if (!cmd_number(w[i], 1, UINT64_MAX, &v))
			return cmd_err(err, errlen, "capture", "COUNT '%s': "
				       "expected a number of frames, 1 or "
				       "more", w[i]);
		c->count = v;
		i++;
	}
	if (i == n)
		return cmd_err(err, errlen, "capture", "missing FILE (%s)",
			       CAPTURE_USAGE);
	if (strlen(w[i]) >= sizeof(c->file))
		return cmd_err(err, errlen, "capture", "FILE too long");
	snprintf(c->file, sizeof(c->file), "%s", w[i]);
	return parse_capture_opts(c, w + i + 1, n - i - 1, err, errlen);
}

int
ibex_cmd_parse(const char *line, struct ibex_cmd_req *req, char *err,
	       size_t errlen)
{
	char buf[IBEX_CMD_LINE_MAX + 1];
	char *w[CMD_MAX_WORDS];
	char *save = NULL, *t;
	int n = 0, i, j;

	memset(req, 0, sizeof(*req));
	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (strlen(line) > IBEX_CMD_LINE_MAX)
		return cmd_err(err, errlen, "command", "line too long (max %d "
			       "characters)", IBEX_CMD_LINE_MAX);
	snprintf(buf, sizeof(buf), "%s", line);
	for (t = strtok_r(buf, CMD_SEPS, &save); t != NULL;
	     t = strtok_r(NULL, CMD_SEPS, &save))
		w[n++] = t;
	/* --json may be anywhere; it is not part of the command. */
	for (i = 0, j = 0; i < n; i++) {
		if (strcmp(w[i], "--json") == 0)
			req->json = true;
		else
			w[j++] = w[i];
	}
	n = j;
	if (n == 0 || w[0][0] == '#') {
		req->kind = IBEX_CMD_EMPTY;
		return 0;
	}
	snprintf(req->verb, sizeof(req->verb), "%s", w[0]);
	if (strcmp(w[0], "help") == 0) {
		req->kind = IBEX_CMD_HELP;
		return 0;
	}
	if (strcmp(w[0], "show") == 0)
		return parse_show(req, w + 1, n - 1, err, errlen);
	if (strcmp(w[0], "reload") == 0) {
		req->force = n == 2 && strcmp(w[1], "--force") == 0;
		if (n > 1 + req->force)
			return cmd_err(err, errlen, "reload", "unexpected '%s' "
				       "(reload [--force] re-reads the file the "
				       "switch was started with)", w[n - 1]);
		req->kind = IBEX_CMD_RELOAD;
		return 0;
	}
	if (strcmp(w[0], "add") == 0 || strcmp(w[0], "del") == 0)
		return parse_fdb_edit(req, w + 1, n - 1, err, errlen);
	if (strcmp(w[0], "version") == 0) {
		if (n > 1)
			return cmd_err(err, errlen, "version", "takes no arguments");
		req->kind = IBEX_CMD_VERSION;
		return 0;
	}
	if (strcmp(w[0], "clear") == 0) {
		if (n != 2 || strcmp(w[1], "counters") != 0)
			return cmd_err(err, errlen, "clear", "expected 'clear "
				       "counters'");
		req->kind = IBEX_CMD_CLEAR;
		return 0;
	}
	if (strcmp(w[0], "capture") == 0)
		return parse_capture(req, w + 1, n - 1, err, errlen);
	if (strcmp(w[0], "set") == 0 && n >= 2 &&
	    strcmp(w[1], "log-level") == 0)
		return parse_log_level(req, w + 2, n - 2, err, errlen);
	/* "set STATEMENT" or the bare statement: the grammar judges it. */
	snprintf(req->verb, sizeof(req->verb), "set");
	i = 0;
	if (strcmp(w[0], "set") == 0) {
		if (n == 1)
			return cmd_err(err, errlen, "set", "missing statement "
				       "(see docs/configuration.md)");
		i = 1;
	}
	req->kind = IBEX_CMD_CHANGE;
	if (cmd_join(req->stmt, sizeof(req->stmt), "", w + i, n - i) < 0)
		return cmd_err(err, errlen, "set", "line too long");
	return 0;
}

/* ---- configuration changes ---- */

int
ibex_cmd_conf_change(const struct ibex_conf *running, const char *stmt,
		     const char *verb, struct ibex_conf *out,
		     char *err, size_t errlen)
{
	char msg[IBEX_CONF_ERR_LEN];
	int ret;

	memcpy(out, running, sizeof(*out));
	/* lineno 0: messages read "<verb>: <what>: <reason>". */
	ret = ibex_conf_parse_line(out, stmt, verb, 0, err, errlen);
	if (ret < 0)
		return ret;
	ret = ibex_conf_finish(out, msg, sizeof(msg));
	if (ret < 0 && err != NULL && errlen > 0)
		snprintf(err, errlen, "%s: %s", verb, msg);
	return ret;
}

/* The hint every refusal a --force overrides ends with. */
#define RELOAD_FORCE_HINT "; the running configuration stays " \
	"(reload --force applies it anyway)"

/* Static entries of running port @p p that @p out does not hold. */
static unsigned int
reload_statics_lost(const struct ibex_conf *running,
		    const struct ibex_conf *out, uint16_t p)
{
	unsigned int lost = 0;
	uint16_t i, j;

	for (i = 0; i < running->nb_static; i++) {
		const struct ibex_conf_fdb_static *s = &running->statics[i];

		if (s->port != p)
			continue;
		for (j = 0; j < out->nb_static; j++)
			if (memcmp(out->statics[j].mac, s->mac, 6) == 0 &&
			    out->statics[j].vid == s->vid &&
			    out->statics[j].port == p)
				break;
		lost += j == out->nb_static;
	}
	return lost;
}

/* A file that names no port: every running port falls back to its
 * defaults. Refused when that changes one of them. */
static int
reload_check_unnamed(const struct ibex_conf *running,
		     const struct ibex_conf *out, const char *path,
		     char *err, size_t errlen)
{
	char what[160];
	unsigned int n, lost;
	uint16_t i;

	for (i = 0; i < out->nb_ports && i < running->nb_ports; i++) {
		n = ibex_conf_port_diff(&running->ports[i], &out->ports[i],
					what, sizeof(what));
		lost = reload_statics_lost(running, out, i);
		if (n == 0 && lost == 0)
			continue;
		if (lost != 0)
			snprintf(what + strlen(what),
				 sizeof(what) - strlen(what), "%s%u static "
				 "fdb entr%s", n > 0 ? ", " : "", lost,
				 lost == 1 ? "y" : "ies");
		snprintf(err, errlen, "%s: names no port, so port %s would "
			 "lose its %s to the defaults" RELOAD_FORCE_HINT, path,
			 running->ports[i].name, what);
		return -EPERM;
	}
	return 0;
}

int
ibex_cmd_conf_reload(const struct ibex_conf *running, const char *path,
		     bool force, struct ibex_conf *out, char *err,
		     size_t errlen)
{
	struct ibex_conf_file_stat st;
	uint16_t i, carry;
	int ret;

	ibex_conf_init(out);
	ret = ibex_conf_parse_file_stat(out, path, &st, err, errlen);
	if (ret < 0)
		return ret;
	if (!force && st.statements == 0) {
		snprintf(err, errlen, "%s: holds no statement (empty, or only "
			 "comments): every port would fall back to its "
			 "defaults" RELOAD_FORCE_HINT, path);
		return -EPERM;
	}
	if (!force && st.unterminated) {
		snprintf(err, errlen, "%s:%u: the last line has no newline: the "
			 "file looks cut short (still being written?)"
			 RELOAD_FORCE_HINT, path, st.lines);
		return -EPERM;
	}
	/* Ports are removed only by a restart: name the one left out. */
	for (i = 0; out->nb_ports != 0 && i < running->nb_ports; i++) {
		if (ibex_conf_port_find(out, running->ports[i].name) >= 0)
			continue;
		snprintf(err, errlen, "%s: does not name running port %s (a "
			 "reload cannot remove a port: restart for that)", path,
			 running->ports[i].name);
		return -ENOTSUP;
	}
	/* A file without ports ran on every probed ethdev: same ports. */
	carry = out->nb_ports == 0 ? running->nb_ports : 0;
	for (i = 0; i < carry; i++) {
		ret = ibex_conf_port_add(out, running->ports[i].name,
					 running->ports[i].dev);
		if (ret < 0)
			break;
	}
	if (ret < 0) {
		snprintf(err, errlen, "%s: cannot carry port %s over",
			 path, running->ports[i].name);
		return ret;
	}
	ret = ibex_conf_finish(out, err, errlen);
	if (ret < 0 || force || carry == 0)
		return ret;
	return reload_check_unnamed(running, out, path, err, errlen);
}

int
ibex_cmd_conf_text(struct ibex_out *text, const char *path)
{
	char buf[IBEX_CONF_LINE_MAX + 3];
	FILE *f = fopen(path, "r");
	int ret = 0;

	if (f == NULL)
		return -errno;
	while (ret == 0 && fgets(buf, sizeof(buf), f) != NULL) {
		char *s = buf, *e;

		e = strchr(s, '#');
		if (e != NULL)
			*e = '\0';
		s += strspn(s, CMD_SEPS);
		e = s + strlen(s);
		while (e > s && strchr(CMD_SEPS, e[-1]) != NULL)
			e--;
		if (e > s)
			ret = ibex_out_printf(text, "%.*s\n", (int)(e - s), s);
	}
	fclose(f);
	return ret;
}

/* The two "show" lines (topics with a port, then without), one line
 * per topic, then the other commands: made once from ibex_topics.h. */
static char cmd_help_text[4096];

const char *
ibex_cmd_help(void)
{
	static const char rest[] =
	"set STATEMENT             any configuration statement, applied live\n"
	"STATEMENT                 the same without 'set'\n"
	"add fdb MAC port NAME [vlan N]   static FDB entry\n"
	"del fdb MAC vlan N               remove a static FDB entry\n"
	"reload [--force]          re-read the configuration file\n"
	"clear counters            rates and 'show ports' count from now\n"
	"set log-level TYPE LEVEL  DPDK log level of the types matching TYPE\n"
	"capture PORT [rx|tx|both] [COUNT] FILE [snaplen N] [background] [filter EXPR]\n"
	"                          write pcapng; waits for COUNT or a stop\n"
	"capture stop|status       end the capture / show it\n"
	"version                   ibex and DPDK versions of the switch\n"
	"help                      this text\n";
	size_t n = 0, len = sizeof(cmd_help_text);
	char *t = cmd_help_text;
	unsigned int s, pass;

	if (t[0] != '\0')
		return t;
	for (pass = 0; pass < 2; pass++) {
		bool first = true;

		for (s = 0; s < IBEX_SHOW_NB; s++) {
			if (show_rows[s].port != (pass == 0))
				continue;
			n += (size_t)snprintf(t + n, len - n, "%s%s",
					      first ? "show " : "|",
					      show_names[s]);
			first = false;
		}
		n += (size_t)snprintf(t + n, len - n, "%s [--json]\n",
				      pass == 0 ? " [PORT]" : "");
	}
	for (s = 0; s < IBEX_SHOW_NB; s++)
		n += (size_t)snprintf(t + n, len - n, "  %-23s %s\n",
				      show_names[s], show_rows[s].help);
	snprintf(t + n, len - n, "%s", rest);
	return t;
}
