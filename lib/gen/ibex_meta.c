/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The "meta" object every JSON document of ibex starts with
 * (docs/results.md): the files of ibex-switch, ibex-gen and ibex-fabric,
 * and, through the control socket's "version --json", every document of
 * ibex-ctl -j. What ran, where, when, on which ports.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_version.h>

#include "ibex_clock.h"
#include "ibex_json.h"
#include "ibex_meta.h"
#include "ibex_version.h"

char *
ibex_meta_cmdline(int argc, char **argv)
{
	size_t len = 1;
	char *s;
	int i;

	for (i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	s = calloc(1, len);
	if (s == NULL)
		return NULL;
	for (i = 0; i < argc; i++) {
		if (i != 0)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}

char *
ibex_meta_json(const char *tool, const char *cmdline, time_t start)
{
	char host[256] = "", when[64];
	struct rte_eth_dev_info info;
	char *buf = NULL;
	size_t len = 0;
	struct tm tm;
	uint16_t pid;
	bool first = true;
	FILE *f = open_memstream(&buf, &len);

	if (f == NULL)
		return NULL;
	gethostname(host, sizeof(host) - 1);
	gmtime_r(&start, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	fprintf(f, "{\"schema\": %d, \"tool\": ", IBEX_SCHEMA_VERSION);
	ibex_json_fputs(f, tool);
	fprintf(f, ", \"version\": \"%s\", \"git\": \"%s\", \"dpdk\": \"%s\", "
		"\"command_line\": ", IBEX_VERSION, IBEX_GIT, rte_version());
	ibex_json_fputs(f, cmdline != NULL ? cmdline : "");
	fprintf(f, ", \"start_time\": \"%s\", \"start_unix\": %lld, "
		"\"host\": ", when, (long long)start);
	ibex_json_fputs(f, host);
	fprintf(f, ", \"tsc_hz\": %" PRIu64 ", \"ports\": [", ibex_clock_hz());
	RTE_ETH_FOREACH_DEV(pid) {
		char name[RTE_ETH_NAME_MAX_LEN] = "";

		rte_eth_dev_get_name_by_port(pid, name);
		if (rte_eth_dev_info_get(pid, &info) != 0)
			info.driver_name = "?";
		fprintf(f, "%s{\"port_id\": %u, \"name\": ", first ? "" : ", ",
			pid);
		ibex_json_fputs(f, name);
		fprintf(f, ", \"pmd\": ");
		ibex_json_fputs(f, info.driver_name != NULL ? info.driver_name : "?");
		fprintf(f, "}");
		first = false;
	}
	fprintf(f, "]}");
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}
