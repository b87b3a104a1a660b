/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness of the configuration grammar (lib/conf): the input as
 * a whole file (as a string and as a real file, through the reader that
 * refuses NUL bytes and counts statements), and each of its lines as a
 * live statement applied to a copy of a running configuration, as the
 * control socket does.
 *
 * Checked beyond "no crash": an accepted config validates or says why with
 * a message; every port of it has complete tables (ibex_conf_port_tables()
 * is idempotent: calling it again changes nothing), its buffer layout
 * builds, and a port compares equal to itself (ibex_conf_port_diff()).
 */

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ibex_conf.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A running config the live lines apply to, parsed once. */
static const char base_text[] =
	"port p0 dev net_ring0 speed 25G vls 4 fc pfc pvid 10 vlans 1,10\n"
	"port p1 dev net_ring1 speed 25G vls 4 fc credit\n"
	"port p2 dev net_ring2 shape 1G\n"
	"lane p0 vl 3 lossless\n"
	"lane p1 vl 1 lossless reserved 32KB\n"
	"ecn p2 vl all kmin 20KB kmax 80KB pmax 0.1\n"
	"fdb static 02:00:00:00:00:01 port p2\n";

static struct ibex_conf *base, *work;
static struct ibex_buf_conf *bufc;

static int
fuzz_init(void)
{
	char err[IBEX_CONF_ERR_LEN];

	base = malloc(sizeof(*base));
	work = malloc(sizeof(*work));
	bufc = malloc(sizeof(*bufc));
	if (base == NULL || work == NULL || bufc == NULL)
		abort();
	ibex_conf_init(base);
	if (ibex_conf_parse_string(base, base_text, "base.conf", err,
				   sizeof(err)) != 0 ||
	    ibex_conf_validate(base, err, sizeof(err)) != 0)
		abort();
	return 0;
}

/* What every accepted config must allow. */
static void
check_conf(struct ibex_conf *c)
{
	char err[IBEX_CONF_ERR_LEN] = "";
	struct ibex_conf_port *p;
	uint16_t i;
	unsigned int v;

	if (c->nb_ports > IBEX_MAX_PORTS || c->nb_static > IBEX_CONF_MAX_STATIC)
		abort();
	if (ibex_conf_validate(c, err, sizeof(err)) != 0) {
		if (err[0] == '\0')
			abort(); /* a refusal always says why */
		return;
	}
	for (i = 0; i < c->nb_ports; i++) {
		p = malloc(sizeof(*p));
		if (p == NULL)
			return;
		memcpy(p, &c->ports[i], sizeof(*p));
		ibex_conf_port_tables(p);
		if (ibex_conf_port_diff(&c->ports[i], p, NULL, 0) != 0)
			abort();
		free(p);
		for (v = 0; v < IBEX_VL_COUNT; v++)
			(void)ibex_conf_vl_prio(&c->ports[i], v);
		(void)ibex_conf_port_headroom_blocks(&c->ports[i]);
	}
	if (ibex_conf_buf_conf(c, bufc) != 0)
		abort();
}

static void
whole_text(const uint8_t *data, size_t size)
{
	char err[IBEX_CONF_ERR_LEN] = "";
	char *s = fuzz_str(data, size);

	if (s == NULL)
		return;
	ibex_conf_init(work);
	if (ibex_conf_parse_string(work, s, "fuzz.conf", err, sizeof(err)) == 0)
		check_conf(work);
	else if (err[0] == '\0')
		abort();
	free(s);
}

static void
whole_file(const uint8_t *data, size_t size)
{
	struct ibex_conf_file_stat st;
	char err[IBEX_CONF_ERR_LEN] = "", path[64];
	int fd = fuzz_memfd(data, size, path, sizeof(path));

	if (fd < 0)
		return;
	ibex_conf_init(work);
	if (ibex_conf_parse_file_stat(work, path, &st, err, sizeof(err)) == 0) {
		if (st.statements > st.lines ||
		    memchr(data, '\0', size) != NULL)
			abort(); /* a NUL byte is always refused */
		check_conf(work);
	} else if (err[0] == '\0') {
		abort();
	}
	close(fd);
}

/* Each line as "set <line>": on a copy, then validated as a whole. */
static void
live_lines(const uint8_t *data, size_t size)
{
	char err[IBEX_CONF_ERR_LEN];
	char *s = fuzz_str(data, size), *line, *save = NULL;
	unsigned int n = 0;

	if (s == NULL)
		return;
	for (line = strtok_r(s, "\n", &save); line != NULL && n < 64;
	     line = strtok_r(NULL, "\n", &save), n++) {
		memcpy(work, base, sizeof(*work));
		err[0] = '\0';
		if (ibex_conf_parse_line(work, line, "set", 0, err,
					 sizeof(err)) == 0)
			check_conf(work);
		else if (err[0] == '\0')
			abort();
	}
	/* rates and sizes, as the grammar reads them */
	if (size < 64) {
		uint64_t v;

		(void)ibex_parse_rate(s, &v);
		(void)ibex_parse_size(s, &v);
	}
	free(s);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;

	if (!ready)
		ready = fuzz_init() == 0;
	if (size > 256 * 1024)
		return 0;
	whole_text(data, size);
	whole_file(data, size);
	live_lines(data, size);
	return 0;
}
