/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness of the control-command language (lib/ctl/ibex_cmd.c):
 * each input line as a command from the control socket, and the whole
 * input as the config file of a "reload" (with and without --force).
 *
 * Checked beyond "no crash": a refused command or reload says why; a
 * change never touches the running config (only its copy); a reload
 * accepted without --force leaves every running port as it was or names
 * it; a reply body, dot-stuffed, never holds a line a client would read
 * as the end of the reply.
 */

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ibex_cmd.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char base_text[] =
	"port p0 dev net_ring0 pvid 10 vlans 10\n"
	"port p1 dev net_ring1 pvid 10 vlans 10,20 vls 4\n"
	"port p2 dev net_ring2 pvid 20 vlans 20\n"
	"fdb static 02:00:00:00:00:01 port p1 vlan 20\n";

static struct ibex_conf *running, *saved, *out;

static void
fuzz_init(void)
{
	char err[IBEX_CONF_ERR_LEN];

	running = malloc(sizeof(*running));
	saved = malloc(sizeof(*saved));
	out = malloc(sizeof(*out));
	if (running == NULL || saved == NULL || out == NULL)
		abort();
	ibex_conf_init(running);
	if (ibex_conf_parse_string(running, base_text, "base.conf", err,
				   sizeof(err)) != 0 ||
	    ibex_conf_finish(running, err, sizeof(err)) != 0)
		abort();
	memcpy(saved, running, sizeof(*saved));
}

static void
one_command(const char *line)
{
	struct ibex_cmd_req req;
	char err[512] = "";

	if (ibex_cmd_parse(line, &req, err, sizeof(err)) != 0) {
		if (err[0] == '\0')
			abort();
		return;
	}
	if (req.kind == IBEX_CMD_CHANGE) {
		err[0] = '\0';
		if (ibex_cmd_conf_change(running, req.stmt, req.verb, out, err,
					 sizeof(err)) != 0 && err[0] == '\0')
			abort();
	}
	if (req.kind == IBEX_CMD_SHOW && ibex_show_name(req.show) == NULL)
		abort();
}

/* No line of a stuffed body may read as "OK", "ERR..." or end marker. */
static void
check_body(const char *body, size_t n)
{
	struct ibex_out o;
	const char *s, *e;

	ibex_out_init(&o);
	if (ibex_out_reply_body(&o, body, n) != 0 || o.buf == NULL) {
		ibex_out_free(&o);
		return;
	}
	for (s = o.buf; *s != '\0'; s = e + 1) {
		e = strchr(s, '\n');
		if (e == NULL)
			abort(); /* every line ends */
		if ((e - s >= 2 && memcmp(s, "OK", 2) == 0) ||
		    (e - s >= 3 && memcmp(s, "ERR", 3) == 0))
			abort();
	}
	ibex_out_reset(&o);
	if (ibex_out_json_str(&o, body) != 0 || o.buf[0] != '"')
		abort();
	ibex_out_free(&o);
}

/* Does the file, parsed on its own, declare no port? */
static bool
file_names_no_port(const uint8_t *data, size_t size)
{
	char err[IBEX_CONF_ERR_LEN];
	struct ibex_conf *c = malloc(sizeof(*c));
	char *s = fuzz_str(data, size);
	bool none = false;

	if (c != NULL && s != NULL) {
		ibex_conf_init(c);
		none = ibex_conf_parse_string(c, s, "f", err, sizeof(err)) == 0 &&
		       c->nb_ports == 0;
	}
	free(c);
	free(s);
	return none;
}

static void
reload(const uint8_t *data, size_t size, bool force)
{
	char err[IBEX_CONF_ERR_LEN] = "", path[64];
	int fd = fuzz_memfd(data, size, path, sizeof(path));
	uint16_t i;

	if (fd < 0)
		return;
	if (ibex_cmd_conf_reload(running, path, force, out, err,
				 sizeof(err)) != 0) {
		if (err[0] == '\0')
			abort();
	} else if (ibex_conf_restart_check(running, out, err,
					   sizeof(err)) == 0 &&
		   out->nb_ports != running->nb_ports) {
		/* a reload the data path would apply (the restart-only keys
		 * are checked there, once) never adds or removes ports */
		abort();
	} else if (!force && file_names_no_port(data, size)) {
		/* the carried ports must be the running ones, unchanged */
		for (i = 0; i < out->nb_ports; i++)
			if (ibex_conf_port_diff(&running->ports[i],
						&out->ports[i], NULL, 0) != 0)
				abort();
	}
	close(fd);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool ready;
	char *s, *line, *save = NULL;
	unsigned int n = 0;

	if (!ready) {
		fuzz_init();
		ready = true;
	}
	if (size > 64 * 1024)
		return 0;
	s = fuzz_str(data, size);
	if (s == NULL)
		return 0;
	for (line = strtok_r(s, "\n", &save); line != NULL && n < 64;
	     line = strtok_r(NULL, "\n", &save), n++)
		one_command(line);
	free(s);
	s = fuzz_str(data, size);
	if (s == NULL)
		return 0;
	check_body(s, strlen(s));
	free(s);
	reload(data, size, false);
	reload(data, size, true);
	/* nothing above may change the running config */
	if (memcmp(running, saved, sizeof(*running)) != 0)
		abort();
	return 0;
}
