/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the control socket's command language (lib/ctl/ibex_cmd.c):
 * reply buffers and their status-line escaping, command parsing into show /
 * change / reload requests, and configuration changes that must either
 * produce a validated copy or leave the running config untouched with a
 * "command: reason" or "file:line: reason" message.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "ibex_cmd.h"

/* ---- text buffers ---- */

static void
test_out_grows_and_consumes(void **state)
{
	struct ibex_out o;
	int i;

	(void)state;
	ibex_out_init(&o);
	for (i = 0; i < 2000; i++)
		assert_int_equal(ibex_out_printf(&o, "%04d|", i), 0);
	assert_int_equal(o.len, 10000);
	assert_memory_equal(o.buf, "0000|0001|", 10);
	assert_string_equal(o.buf + 9995, "1999|");
	ibex_out_consume(&o, 9995);
	assert_int_equal(o.len, 5);
	assert_string_equal(o.buf, "1999|");
	ibex_out_consume(&o, 100);
	assert_int_equal(o.len, 0);
	assert_false(o.oom);
	ibex_out_free(&o);
	assert_null(o.buf);
}

static void
test_out_json_str_escapes(void **state)
{
	struct ibex_out o;

	(void)state;
	ibex_out_init(&o);
	assert_int_equal(ibex_out_json_str(&o, "a\"b\\c\nd\x01"), 0);
	assert_string_equal(o.buf, "\"a\\\"b\\\\c\\u000ad\\u0001\"");
	ibex_out_free(&o);
}

/* Output lines that look like a status line get one leading '.'. */
static void
test_out_reply_body_stuffing(void **state)
{
	static const char body[] = "OK\nERR x\n.dot\nfine\nOKAY\nlast";
	struct ibex_out o;

	(void)state;
	ibex_out_init(&o);
	assert_int_equal(ibex_out_reply_body(&o, body, strlen(body)), 0);
	assert_string_equal(o.buf,
			    ".OK\n.ERR x\n..dot\nfine\n.OKAY\nlast\n");
	ibex_out_free(&o);
}

/* ---- parsing ---- */

static void
parse_ok(const char *line, struct ibex_cmd_req *r)
{
	char err[256] = "";

	if (ibex_cmd_parse(line, r, err, sizeof(err)) != 0)
		fail_msg("'%s' refused: %s", line, err);
}

static void
parse_err(const char *line, const char *want)
{
	struct ibex_cmd_req r;
	char err[256] = "";

	assert_int_equal(ibex_cmd_parse(line, &r, err, sizeof(err)), -EINVAL);
	if (strstr(err, want) == NULL)
		fail_msg("'%s': message '%s' lacks '%s'", line, err, want);
}

static void
test_parse_show(void **state)
{
	struct ibex_cmd_req r;
	unsigned int s;

	(void)state;
	parse_ok("show ports", &r);
	assert_int_equal(r.kind, IBEX_CMD_SHOW);
	assert_int_equal(r.show, IBEX_SHOW_PORTS);
	assert_string_equal(r.port, "");
	assert_false(r.json);
	parse_ok("  show lanes p0 --json ", &r);
	assert_int_equal(r.show, IBEX_SHOW_LANES);
	assert_string_equal(r.port, "p0");
	assert_true(r.json);
	parse_ok("--json show fdb", &r);
	assert_int_equal(r.show, IBEX_SHOW_FDB);
	assert_true(r.json);
	for (s = 0; s < IBEX_SHOW_NB; s++) {
		char line[64];

		snprintf(line, sizeof(line), "show %s", ibex_show_name(s));
		parse_ok(line, &r);
		assert_int_equal(r.show, s);
	}
	assert_null(ibex_show_name(IBEX_SHOW_NB));
	parse_err("show", "show: what? (expected one of: ports, lanes,");
	parse_err("show colours", "show: unknown topic 'colours'");
	parse_err("show config p0", "show: unexpected 'p0' after 'config'");
	parse_err("show ports p0 p1", "show: unexpected 'p1'");
}

static void
test_parse_misc(void **state)
{
	struct ibex_cmd_req r;
	char longline[IBEX_CMD_LINE_MAX + 8];

	(void)state;
	parse_ok("", &r);
	assert_int_equal(r.kind, IBEX_CMD_EMPTY);
	parse_ok("   # a comment", &r);
	assert_int_equal(r.kind, IBEX_CMD_EMPTY);
	parse_ok("help", &r);
	assert_int_equal(r.kind, IBEX_CMD_HELP);
	assert_non_null(strstr(ibex_cmd_help(), "reload"));
	parse_ok("reload", &r);
	assert_int_equal(r.kind, IBEX_CMD_RELOAD);
	assert_false(r.force);
	parse_ok("reload --force", &r);
	assert_int_equal(r.kind, IBEX_CMD_RELOAD);
	assert_true(r.force);
	parse_err("reload now", "reload: unexpected 'now'");
	parse_err("reload --force now", "reload: unexpected 'now'");
	parse_err("reload now --force", "reload: unexpected '--force'");
	memset(longline, 'x', sizeof(longline) - 1);
	longline[sizeof(longline) - 1] = '\0';
	parse_err(longline, "command: line too long");
}

/* version, clear counters, set log-level, show rates */
static void
test_parse_product(void **state)
{
	struct ibex_cmd_req r;

	(void)state;
	parse_ok("version --json", &r);
	assert_int_equal(r.kind, IBEX_CMD_VERSION);
	assert_true(r.json);
	parse_err("version 2", "version: takes no arguments");
	parse_ok("clear counters", &r);
	assert_int_equal(r.kind, IBEX_CMD_CLEAR);
	parse_err("clear", "clear: expected 'clear counters'");
	parse_err("clear fdb", "clear: expected 'clear counters'");
	parse_ok("set log-level ibex.* debug", &r);
	assert_int_equal(r.kind, IBEX_CMD_LOG_LEVEL);
	assert_string_equal(r.stmt, "ibex.*");
	assert_int_equal(r.level, 8);
	parse_ok("set log-level lib.eal 4", &r);
	assert_int_equal(r.level, 4);
	parse_err("set log-level lib.eal loud", "log-level: 'loud' is not a level");
	parse_err("set log-level lib.eal 9", "log-level: '9' is not a level");
	parse_err("set log-level lib.eal", "log-level: expected TYPE LEVEL");
	assert_int_equal(ibex_cmd_log_level("emergency"), 1);
	assert_int_equal(ibex_cmd_log_level("warning"), 5);
	assert_int_equal(ibex_cmd_log_level("0"), -EINVAL);
	parse_ok("show rates --json", &r);
	assert_int_equal(r.kind, IBEX_CMD_SHOW);
	assert_int_equal(r.show, IBEX_SHOW_RATES);
	parse_err("show rates p0", "show: unexpected 'p0' after 'rates'");
	assert_non_null(strstr(ibex_cmd_help(), "clear counters"));
	assert_non_null(strstr(ibex_cmd_help(), "set log-level"));
}

/* capture PORT [rx|tx|both] [COUNT] FILE [snaplen N] [background]
 * [filter EXPR], capture stop, capture status */
static void
test_parse_capture(void **state)
{
	struct ibex_cmd_req r;

	(void)state;
	parse_ok("capture p0 /tmp/a.pcapng", &r);
	assert_int_equal(r.kind, IBEX_CMD_CAPTURE);
	assert_string_equal(r.port, "p0");
	assert_int_equal(r.cap.dir, 3);
	assert_true(r.cap.count == 0);
	assert_string_equal(r.cap.file, "/tmp/a.pcapng");
	assert_false(r.cap.background);
	parse_ok("capture p1 tx 100 /tmp/b snaplen 128 background "
		 "filter \"udp port 4791\"", &r);
	assert_int_equal(r.cap.dir, 2);
	assert_true(r.cap.count == 100);
	assert_int_equal(r.cap.snaplen, 128);
	assert_true(r.cap.background);
	assert_string_equal(r.cap.filter, "udp port 4791");
	/* A lone number is the FILE (refused later as relative). */
	parse_ok("capture p0 rx 100", &r);
	assert_true(r.cap.count == 0);
	assert_string_equal(r.cap.file, "100");
	parse_ok("capture stop", &r);
	assert_true(r.cap.stop);
	parse_ok("capture status --json", &r);
	assert_int_equal(r.kind, IBEX_CMD_SHOW);
	assert_int_equal(r.show, IBEX_SHOW_CAPTURE);
	assert_true(r.json);
	parse_err("capture", "capture: expected 'capture PORT");
	parse_err("capture p0 rx", "capture: missing FILE");
	parse_err("capture p0 rx 0 /tmp/x", "capture: COUNT '0'");
	parse_err("capture p0 rx 12x /tmp/x", "capture: COUNT '12x'");
	parse_err("capture p0 /tmp/x snaplen 8", "capture: snaplen: expected");
	parse_err("capture p0 /tmp/x filter", "capture: filter: expected");
	parse_err("capture p0 /tmp/x loud", "capture: unexpected 'loud'");
	assert_non_null(strstr(ibex_cmd_help(), "capture PORT"));
}

static void
test_parse_changes(void **state)
{
	struct ibex_cmd_req r;

	(void)state;
	parse_ok("set port p0  pvid\t5", &r);
	assert_int_equal(r.kind, IBEX_CMD_CHANGE);
	assert_string_equal(r.verb, "set");
	assert_string_equal(r.stmt, "port p0 pvid 5");
	parse_ok("port p0 pvid 5", &r);
	assert_int_equal(r.kind, IBEX_CMD_CHANGE);
	assert_string_equal(r.verb, "set");
	assert_string_equal(r.stmt, "port p0 pvid 5");
	parse_err("set", "set: missing statement");
	parse_ok("add fdb 02:00:00:00:00:01 port p0 vlan 3", &r);
	assert_int_equal(r.kind, IBEX_CMD_CHANGE);
	assert_string_equal(r.verb, "add");
	assert_string_equal(r.stmt, "fdb static 02:00:00:00:00:01 port p0 vlan 3");
	parse_ok("add fdb static 02:00:00:00:00:01 port p0", &r);
	assert_string_equal(r.stmt, "fdb static 02:00:00:00:00:01 port p0");
	parse_ok("del fdb 02:00:00:00:00:01 vlan 3", &r);
	assert_string_equal(r.verb, "del");
	assert_string_equal(r.stmt, "fdb del 02:00:00:00:00:01 vlan 3");
	parse_err("add vlan 3", "add: unknown object 'vlan'");
	parse_err("del", "del: unknown object ''");
	parse_err("add fdb", "add: missing MAC address");
	parse_err("del fdb static", "del: missing MAC address");
}

/* ---- configuration changes ---- */

#define BASE_CONF \
	"port p0 dev net_null0 vlans 1-10\n" \
	"port p1 dev net_null1\n" \
	"fdb static 02:00:00:00:00:01 port p1\n"

struct confs {
	struct ibex_conf *running;
	struct ibex_conf *saved;
	struct ibex_conf *out;
};

static int
setup(void **state)
{
	struct confs *c = calloc(1, sizeof(*c));
	char err[IBEX_CONF_ERR_LEN] = "";

	if (c == NULL)
		return -1;
	c->running = malloc(sizeof(*c->running));
	c->saved = malloc(sizeof(*c->saved));
	c->out = malloc(sizeof(*c->out));
	if (c->running == NULL || c->saved == NULL || c->out == NULL)
		return -1;
	ibex_conf_init(c->running);
	if (ibex_conf_parse_string(c->running, BASE_CONF, "base.conf", err,
				   sizeof(err)) != 0 ||
	    ibex_conf_validate(c->running, err, sizeof(err)) != 0) {
		fprintf(stderr, "base config: %s\n", err);
		return -1;
	}
	memcpy(c->saved, c->running, sizeof(*c->saved));
	*state = c;
	return 0;
}

static int
teardown(void **state)
{
	struct confs *c = *state;

	free(c->running);
	free(c->saved);
	free(c->out);
	free(c);
	return 0;
}

static void
change_err(struct confs *c, const char *stmt, const char *verb,
	   const char *prefix, const char *want)
{
	char err[IBEX_CONF_ERR_LEN] = "";

	assert_int_equal(ibex_cmd_conf_change(c->running, stmt, verb, c->out,
					      err, sizeof(err)), -EINVAL);
	if (strncmp(err, prefix, strlen(prefix)) != 0 ||
	    strstr(err, want) == NULL)
		fail_msg("'%s': message '%s' lacks '%s' ... '%s'", stmt, err,
			 prefix, want);
	/* Refused: the running config is exactly what it was. */
	assert_memory_equal(c->running, c->saved, sizeof(*c->running));
}

static void
test_change_applies_to_copy(void **state)
{
	struct confs *c = *state;
	char err[IBEX_CONF_ERR_LEN] = "";

	assert_int_equal(ibex_cmd_conf_change(c->running, "port p0 pvid 7",
					      "set", c->out, err, sizeof(err)),
			 0);
	assert_string_equal(err, "");
	assert_int_equal(c->out->ports[0].pvid, 7);
	assert_string_equal(c->out->origin, "base.conf");
	assert_memory_equal(c->running, c->saved, sizeof(*c->running));
	assert_int_equal(ibex_cmd_conf_change(c->running,
			 "fdb static 02:00:00:00:00:02 port p0 vlan 3", "add",
			 c->out, err, sizeof(err)), 0);
	assert_int_equal(c->out->nb_static, 2);
	assert_int_equal(c->out->statics[1].vid, 3);
	assert_int_equal(c->out->statics[1].port, 0);
}

/* The four kinds of bad command the control socket must refuse. */
static void
test_change_refusals(void **state)
{
	struct confs *c = *state;

	/* unknown key */
	change_err(c, "port p0 colour blue", "set", "set: port p0: ",
		   "unknown key 'colour'");
	/* value out of range */
	change_err(c, "port p0 pvid 5000", "set", "set: port p0: ", "5000");
	/* wrong type */
	change_err(c, "port p0 trusted maybe", "set", "set: port p0: ",
		   "maybe");
	change_err(c, "fdb ageing soon", "set", "set: fdb: ", "soon");
	/* dangling reference */
	change_err(c, "fdb static 02:00:00:00:00:03 port p9", "add",
		   "add: fdb static: ", "p9");
	/* whole-object validation: pvid outside the port's vlans */
	change_err(c, "port p0 pvid 20", "set", "set: base.conf:1: port p0: ",
		   "pvid 20 is not in its vlans");
	/* ... and a reference the change leaves dangling: p1 leaves vlan 1,
	 * where its static entry is */
	change_err(c, "port p1 pvid 20", "set",
		   "set: base.conf:3: fdb static 02:00:00:00:00:01 vlan 1: ",
		   "not a member of vlan 1");
	/* static entry on a port outside its vlan */
	change_err(c, "fdb static 02:00:00:00:00:04 port p1 vlan 5", "add",
		   "add: ", "not a member of vlan 5");
	/* unknown statement */
	change_err(c, "colour p0 blue", "set", "set: ",
		   "unknown statement 'colour'");
}

static void
write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void
test_reload(void **state)
{
	struct confs *c = *state;
	char path[] = "/tmp/ibex-test-ctl-XXXXXX";
	char err[IBEX_CONF_ERR_LEN] = "";
	char want[300];
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	write_file(path, BASE_CONF "port p0 pvid 9\n");
	assert_int_equal(ibex_cmd_conf_reload(c->running, path, false, c->out, err,
					      sizeof(err)), 0);
	assert_int_equal(c->out->ports[0].pvid, 9);
	assert_string_equal(c->out->origin, path);

	/* A bad line: file:line: reason, and nothing else happens. */
	write_file(path, BASE_CONF "\n# comment\nport p0 pvid 0\n");
	assert_int_equal(ibex_cmd_conf_reload(c->running, path, false, c->out, err,
					      sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "%s:6: port p0: ", path);
	assert_memory_equal(err, want, strlen(want));
	assert_memory_equal(c->running, c->saved, sizeof(*c->running));

	/* Whole-object errors name their line too. */
	write_file(path, "port p0 dev net_null0\nport p1 dev net_null0\n");
	assert_int_equal(ibex_cmd_conf_reload(c->running, path, false, c->out, err,
					      sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "%s:2: port p1: dev 'net_null0'", path);
	assert_memory_equal(err, want, strlen(want));

	/* No ports in the file: the running ones carry over, with their
	 * defaults, which --force accepts (reload_safety: not without). */
	write_file(path, "fdb learning off\n");
	assert_int_equal(ibex_cmd_conf_reload(c->running, path, true, c->out,
					      err, sizeof(err)), 0);
	assert_int_equal(c->out->nb_ports, 2);
	assert_string_equal(c->out->ports[1].name, "p1");
	assert_string_equal(c->out->ports[1].dev, "net_null1");
	assert_false(c->out->fdb_learning);
	assert_false(ibex_conf_port_in_vlan(&c->out->ports[0], 10));
	assert_int_equal(c->out->nb_static, 0);

	unlink(path);
	assert_int_equal(ibex_cmd_conf_reload(c->running, path, false, c->out, err,
					      sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "cannot open"));
}

/* reload_refused(c, path, force, text, ret, want...): write text, reload
 * it, expect ret and every want string in the message; the running
 * config is untouched. */
static void
reload_refused(struct confs *c, const char *path, bool force,
	       const char *text, size_t len, int ret, const char *want1,
	       const char *want2)
{
	char err[IBEX_CONF_ERR_LEN] = "";
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(ibex_cmd_conf_reload(c->running, path, force, c->out,
					      err, sizeof(err)), ret);
	if (strstr(err, want1) == NULL ||
	    (want2 != NULL && strstr(err, want2) == NULL))
		fail_msg("'%s' lacks '%s' / '%s'", err, want1,
			 want2 != NULL ? want2 : "");
	assert_memory_equal(c->running, c->saved, sizeof(*c->running));
}
#define REFUSED(c, path, force, lit, ret, w1, w2) \
	reload_refused(c, path, force, lit, sizeof(lit) - 1, ret, w1, w2)

static void
test_reload_safety(void **state)
{
	struct confs *c = *state;
	char path[] = "/tmp/ibex-test-ctl-XXXXXX";
	char err[IBEX_CONF_ERR_LEN] = "";
	char want[300];
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	/* Empty, comments only, global only: refused, every time. */
	REFUSED(c, path, false, "", -EPERM, "holds no statement",
		"reload --force");
	REFUSED(c, path, false, "# all gone\n\n   # really\n\t\n", -EPERM,
		"holds no statement", "running configuration stays");
	REFUSED(c, path, false, "fdb ageing 300\n", -EPERM,
		"names no port, so port p0 would lose its vlans to the defaults",
		"reload --force");
	/* p0 as it runs by default, but p1 has a static entry. */
	snprintf(want, sizeof(want), "port p1 would lose its 1 static fdb "
		 "entry");
	c->running->ports[0] = c->running->ports[1];
	snprintf(c->running->ports[0].name, IBEX_NAME_LEN, "p0");
	snprintf(c->running->ports[0].dev, IBEX_DEV_LEN, "net_null0");
	memcpy(c->saved, c->running, sizeof(*c->saved));
	REFUSED(c, path, false, "fdb learning off\n", -EPERM, want, NULL);
	/* Cut short: the last line has no newline. A line the grammar
	 * refuses says so first. */
	REFUSED(c, path, false, BASE_CONF "port p0 pvid 9", -EPERM,
		":4: the last line has no newline", "cut short");
	REFUSED(c, path, false, BASE_CONF "port p0 vlans 1-", -EINVAL,
		":4: port p0: vlans", NULL);
	/* A NUL byte would cut a line unseen. */
	REFUSED(c, path, false, "port p0 dev net_null0\0 vlans 20\n", -EINVAL,
		":1: NUL byte in the line", NULL);
	REFUSED(c, path, true, BASE_CONF "\0\n", -EINVAL,
		":4: NUL byte in the line", NULL);
	/* Leaving a running port out is never a reload, force or not. */
	REFUSED(c, path, true, "port p0 dev net_null0 vlans 1-10\n", -ENOTSUP,
		"does not name running port p1", "restart");
	/* Not a file: the read error with its place. */
	assert_int_equal(ibex_cmd_conf_reload(c->running, "/tmp", false,
					      c->out, err, sizeof(err)),
			 -EISDIR);
	assert_non_null(strstr(err, "/tmp:1: read error: Is a directory"));

	/* --force takes what the checks refuse. */
	write_file(path, BASE_CONF "port p0 pvid 9");
	assert_int_equal(ibex_cmd_conf_reload(c->running, path, true, c->out,
					      err, sizeof(err)), 0);
	assert_int_equal(c->out->ports[0].pvid, 9);
	write_file(path, "");
	assert_int_equal(ibex_cmd_conf_reload(c->running, path, true, c->out,
					      err, sizeof(err)), 0);
	assert_int_equal(c->out->nb_ports, 2);
	unlink(path);
}

/* A switch started on probed ethdevs (or a file of default ports): a file
 * of globals changes no port and is a normal reload. */
static void
test_reload_globals_on_default_ports(void **state)
{
	struct confs *c = *state;
	char path[] = "/tmp/ibex-test-ctl-XXXXXX";
	char err[IBEX_CONF_ERR_LEN] = "";
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	ibex_conf_init(c->running);
	assert_int_equal(ibex_conf_port_add(c->running, "p0", "net_null0"), 0);
	assert_int_equal(ibex_conf_port_add(c->running, "p1", "net_null1"), 1);
	write_file(path, "fdb ageing 300\nfdb learning off\n");
	assert_int_equal(ibex_cmd_conf_reload(c->running, path, false, c->out,
					      err, sizeof(err)), 0);
	assert_false(c->out->fdb_learning);
	/* The same ports declared by a file, every setting its default. */
	ibex_conf_init(c->running);
	assert_int_equal(ibex_conf_parse_string(c->running,
		"port p0 dev net_null0 pvid 1 vls 8 fc none\n"
		"port p1 dev net_null1 admin up\necn p1 vl all on\n",
		"s.conf", err, sizeof(err)), 0);
	assert_int_equal(ibex_cmd_conf_reload(c->running, path, false, c->out,
					      err, sizeof(err)), 0);
	unlink(path);
}

static void
test_conf_text(void **state)
{
	char path[] = "/tmp/ibex-test-ctl-XXXXXX";
	struct ibex_out o;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	write_file(path, "# head\n\n  port p0   # trailing\nfdb ageing 5\r\n\t\n");
	ibex_out_init(&o);
	assert_int_equal(ibex_cmd_conf_text(&o, path), 0);
	assert_string_equal(o.buf, "port p0\nfdb ageing 5\n");
	ibex_out_free(&o);
	unlink(path);
	ibex_out_init(&o);
	assert_int_equal(ibex_cmd_conf_text(&o, path), -ENOENT);
	ibex_out_free(&o);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_out_grows_and_consumes),
		cmocka_unit_test(test_out_json_str_escapes),
		cmocka_unit_test(test_out_reply_body_stuffing),
		cmocka_unit_test(test_parse_show),
		cmocka_unit_test(test_parse_misc),
		cmocka_unit_test(test_parse_product),
		cmocka_unit_test(test_parse_changes),
		cmocka_unit_test_setup_teardown(test_change_applies_to_copy,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_change_refusals,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_reload, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reload_safety, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			test_reload_globals_on_default_ports, setup, teardown),
		cmocka_unit_test(test_conf_text),
		cmocka_unit_test(test_parse_capture),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
