/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rte_telemetry commands under /ibex/, readable with dpdk-telemetry.py:
 *
 *   /ibex/ports              list of port names
 *   /ibex/port_stats,<port>  counters of one port (name or index)
 *   /ibex/drops              per port: non-zero drop reasons
 *   /ibex/reasons            every drop reason and what it means
 *   /ibex/workers            per worker: lcore, queues, iterations, busy cycles
 *   /ibex/fdb[,OFF[,N]]      FDB counters and a page of entries (100 at most)
 *   /ibex/credits            per credit port and VL: credits, buffer, violations
 *   /ibex/pfc                per PFC port: pauses sent/received, watchdog
 *   /ibex/bpf                per port: its eBPF classifier and verdicts
 *   /ibex/capture            the running or last ibex-ctl capture (the
 *                            object of show capture --json)
 *
 * Callbacks run on DPDK's telemetry thread: they only read counters (whole
 * 64-bit words) and the FDB through its lock-free reader side.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_telemetry.h>
#include <rte_version.h>

#include "ibex_clock.h"
#include "ibex_buf.h"
#include "ibex_capture.h"
#include "ibex_counters.h"
#include "ibex_ctl.h"
#include "ibex_dp.h"
#include "ibex_fdb.h"
#include "ibex_pkt.h"
#include "ibex_version.h"

/* The switch the running command is about (tel_dispatch()). */
static __thread struct ibex_dp *tel_dp;

static int
port_from_param(const char *params)
{
	char *end;
	long v;
	uint16_t p;

	if (params == NULL || *params == '\0')
		return -EINVAL;
	for (p = 0; p < tel_dp->nb_ports; p++)
		if (strcmp(params, tel_dp->port_name[p]) == 0)
			return p;
	v = strtol(params, &end, 10);
	if (*end != '\0' || v < 0 || v >= tel_dp->nb_ports)
		return -EINVAL;
	return (int)v;
}

static int
tel_ports(const char *cmd __rte_unused, const char *params __rte_unused,
	  struct rte_tel_data *d)
{
	uint16_t p;

	rte_tel_data_start_array(d, RTE_TEL_STRING_VAL);
	for (p = 0; p < tel_dp->nb_ports; p++)
		rte_tel_data_add_array_string(d, tel_dp->port_name[p]);
	return 0;
}

static int
tel_port_stats(const char *cmd __rte_unused, const char *params,
	       struct rte_tel_data *d)
{
	struct ibex_port_counters c;
	int p = port_from_param(params);

	if (p < 0)
		return -EINVAL;
	ibex_dp_port_totals(tel_dp, (uint16_t)p, &c);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "name", tel_dp->port_name[p]);
	rte_tel_data_add_dict_u64(d, "ethdev_port", tel_dp->port_id[p]);
	rte_tel_data_add_dict_string(d, "link",
		ibex_dp_port_link_up(tel_dp, (uint16_t)p) ? "up" : "down");
	ibex_port_cnt_tel(d, &c);
	return 0;
}

static int
tel_drops(const char *cmd __rte_unused, const char *params __rte_unused,
	  struct rte_tel_data *d)
{
	uint16_t p;

	rte_tel_data_start_dict(d);
	for (p = 0; p < tel_dp->nb_ports; p++) {
		struct rte_tel_data *pd = rte_tel_data_alloc();
		struct ibex_port_counters c;
		unsigned int r;

		if (pd == NULL)
			return -ENOMEM;
		ibex_dp_port_totals(tel_dp, p, &c);
		rte_tel_data_start_dict(pd);
		for (r = 1; r < IBEX_R_MAX; r++) {
			char key[64];

			if (c.drop[r] != 0)
				rte_tel_data_add_dict_u64(pd, ibex_tel_reason_key(r, "",
						key, sizeof(key)), c.drop[r]);
		}
		rte_tel_data_add_dict_container(d, tel_dp->port_name[p], pd, 0);
	}
	return 0;
}

static int
tel_reasons(const char *cmd __rte_unused, const char *params __rte_unused,
	    struct rte_tel_data *d)
{
	unsigned int r;

	rte_tel_data_start_dict(d);
	for (r = 1; r < IBEX_R_MAX; r++) {
		char key[64];

		rte_tel_data_add_dict_string(d, ibex_tel_reason_key(r, "", key,
							       sizeof(key)),
					     ibex_reason_help(r));
	}
	return 0;
}

static int
tel_workers(const char *cmd __rte_unused, const char *params __rte_unused,
	    struct rte_tel_data *d)
{
	uint16_t i;

	rte_tel_data_start_dict(d);
	for (i = 0; i < tel_dp->nb_workers; i++) {
		struct ibex_dp_worker_view wv, *w = &wv;
		struct rte_tel_data *wd;
		char name[16];

		if (ibex_dp_worker_view(tel_dp, i, &wv) < 0)
			break;
		wd = rte_tel_data_alloc();
		if (wd == NULL)
			return -ENOMEM;
		rte_tel_data_start_dict(wd);
		rte_tel_data_add_dict_u64(wd, "lcore", w->lcore);
		rte_tel_data_add_dict_u64(wd, "rx_queues", w->nb_rxq);
		rte_tel_data_add_dict_u64(wd, "iterations", w->iterations);
		rte_tel_data_add_dict_u64(wd, "busy_iterations",
					  w->busy_iterations);
		rte_tel_data_add_dict_u64(wd, "busy_cycles", w->busy_tsc);
		snprintf(name, sizeof(name), "w%u", i);
		rte_tel_data_add_dict_container(d, name, wd, 0);
	}
	return 0;
}

/*
 * /ibex/fdb,[OFFSET[,COUNT]]: one page of the table. A telemetry reply is
 * at most 16 kB and a dict 256 members (DPDK 22.11): a page holds up to
 * FDB_PAGE_MAX entries, which fit with the longest port names. Each entry
 * is an object keyed by its index in the walk; "next" is the OFFSET of
 * the next page, -1 after the last. Pages are cut from a walk of a live
 * table: an entry learned or aged between two pages may be missed or
 * seen twice ("entries" says how many there were at this page).
 */
#define FDB_PAGE_MAX 100

struct fdb_page {
	struct rte_tel_data *d;
	uint32_t offset;
	uint32_t count;          /* asked for */
	uint32_t seen;           /* entries walked */
	uint32_t listed;
	uint32_t now_ms;
};

static int
fdb_page_one(const struct ibex_fdb_entry *e, void *arg)
{
	struct fdb_page *pg = arg;
	struct rte_tel_data *ed;
	char mac[32], key[16];

	if (pg->seen++ < pg->offset)
		return 0;
	if (pg->listed == pg->count)
		return 1; /* one past the page: there is a next one */
	ed = rte_tel_data_alloc();
	if (ed == NULL)
		return -ENOMEM;
	ibex_mac_format(e->mac, mac, sizeof(mac));
	rte_tel_data_start_dict(ed);
	rte_tel_data_add_dict_string(ed, "mac", mac);
	rte_tel_data_add_dict_u64(ed, "vlan", e->vid);
	if (ibex_egress_is_ecmp(e->port)) {
		struct ibex_dp_ecmp_view v;

		rte_tel_data_add_dict_string(ed, "ecmp",
			ibex_dp_ecmp_view(tel_dp, e->port & 0xff, &v) == 0 ?
			v.name : "?");
	} else {
		rte_tel_data_add_dict_string(ed, "port",
			e->port < tel_dp->nb_ports ?
			tel_dp->port_name[e->port] : "?");
	}
	rte_tel_data_add_dict_string(ed, "type",
				     e->is_static ? "static" : "learned");
	if (!e->is_static)
		rte_tel_data_add_dict_u64(ed, "age_ms",
					  pg->now_ms - e->last_seen_ms);
	snprintf(key, sizeof(key), "%u", pg->seen - 1);
	rte_tel_data_add_dict_container(pg->d, key, ed, 0);
	pg->listed++;
	return 0;
}

/* "OFFSET[,COUNT]", both optional. */
static int
fdb_page_params(const char *params, struct fdb_page *pg)
{
	unsigned long v;
	char *end;

	pg->offset = 0;
	pg->count = FDB_PAGE_MAX;
	if (params == NULL || *params == '\0')
		return 0;
	errno = 0;
	v = strtoul(params, &end, 10);
	if (errno != 0 || end == params || v > UINT32_MAX || *params == '-')
		return -EINVAL;
	pg->offset = (uint32_t)v;
	if (*end == '\0')
		return 0;
	if (*end != ',')
		return -EINVAL;
	params = end + 1;
	v = strtoul(params, &end, 10);
	if (errno != 0 || end == params || *end != '\0' || *params == '-' ||
	    v == 0 || v > FDB_PAGE_MAX)
		return -EINVAL;
	pg->count = (uint32_t)v;
	return 0;
}

static int
tel_fdb(const char *cmd __rte_unused, const char *params,
	struct rte_tel_data *d)
{
	struct fdb_page pg = { .d = d };
	struct ibex_fdb_stats st;
	int ret;

	if (fdb_page_params(params, &pg) < 0)
		return -EINVAL;
	pg.now_ms = ibex_dp_clock_ms(tel_dp, ibex_clock_now());
	ibex_fdb_get_stats(tel_dp->fdb, &st);
	rte_tel_data_start_dict(d);
	ibex_fdb_cnt_tel(d, &st);
	rte_tel_data_add_dict_u64(d, "offset", pg.offset);
	ret = ibex_fdb_foreach(tel_dp->fdb, fdb_page_one, &pg);
	if (ret < 0)
		return ret;
	rte_tel_data_add_dict_u64(d, "count", pg.listed);
	rte_tel_data_add_dict_int(d, "next", ret == 1 ?
				  (int)(pg.offset + pg.listed) : -1);
	return 0;
}

/* /ibex/credits and /ibex/pfc: one dict per port running that mode; the
 * lanes that are lossless or hold anything. */
static int
tel_fc(struct rte_tel_data *d, uint8_t mode)
{
	uint16_t p;
	unsigned int vl;

	rte_tel_data_start_dict(d);
	for (p = 0; p < tel_dp->nb_ports; p++) {
		struct ibex_dp_fc_view v;
		struct rte_tel_data *pd;
		uint16_t lanes = 0;

		if (ibex_dp_fc_view(tel_dp, p, &v) < 0 || v.mode != mode)
			continue;
		pd = rte_tel_data_alloc();
		if (pd == NULL)
			return -ENOMEM;
		for (vl = 0; vl < IBEX_VL_COUNT; vl++)
			if ((v.lossless >> vl & 1) || v.buf_used[vl] != 0 ||
			    v.violations[vl] != 0)
				lanes |= (uint16_t)(1u << vl);
		rte_tel_data_start_dict(pd);
		rte_tel_data_add_dict_u64(pd, "lossless_vls", v.lossless);
		if (mode == IBEX_FC_PFC) {
			rte_tel_data_add_dict_u64(pd, "paused_vls", v.paused_vls);
			rte_tel_data_add_dict_u64(pd, "wd_drop_vls",
						  v.wd_drop_vls);
		}
		ibex_fc_cnt_tel(pd, &v, mode == IBEX_FC_CREDIT ?
				IBEX_FC_CNT_CREDIT : IBEX_FC_CNT_PFC, lanes);
		rte_tel_data_add_dict_container(d, tel_dp->port_name[p], pd, 0);
	}
	return 0;
}

static int
tel_credits(const char *cmd __rte_unused, const char *params __rte_unused,
	    struct rte_tel_data *d)
{
	return tel_fc(d, IBEX_FC_CREDIT);
}

static int
tel_pfc(const char *cmd __rte_unused, const char *params __rte_unused,
	struct rte_tel_data *d)
{
	return tel_fc(d, IBEX_FC_PFC);
}

static int
tel_version(const char *cmd __rte_unused, const char *params __rte_unused,
	    struct rte_tel_data *d)
{
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "version", IBEX_VERSION);
	rte_tel_data_add_dict_string(d, "git", IBEX_GIT);
	rte_tel_data_add_dict_string(d, "dpdk", rte_version());
	rte_tel_data_add_dict_int(d, "schema", IBEX_SCHEMA_VERSION);
	return 0;
}

/* ECMP groups: per group its frames, drops with no member up, and per
 * member (port name) its frames. */
static int
tel_ecmp(const char *cmd __rte_unused, const char *params __rte_unused,
	 struct rte_tel_data *d)
{
	struct ibex_dp_ecmp_view v;
	uint16_t g, k;

	rte_tel_data_start_dict(d);
	for (g = 0; ibex_dp_ecmp_view(tel_dp, g, &v) == 0; g++) {
		struct rte_tel_data *gd = rte_tel_data_alloc();
		struct rte_tel_data *md = rte_tel_data_alloc();

		if (gd == NULL || md == NULL) {
			rte_tel_data_free(gd);
			rte_tel_data_free(md);
			return -ENOMEM;
		}
		rte_tel_data_start_dict(gd);
		rte_tel_data_start_dict(md);
		rte_tel_data_add_dict_u64(gd, "frames", v.frames);
		rte_tel_data_add_dict_u64(gd, "none_up", v.cnt.none_up);
		rte_tel_data_add_dict_string(gd, "mode",
					     ibex_ecmp_mode_name(v.mode));
		rte_tel_data_add_dict_u64(gd, "flowlet_us", v.flowlet_us);
		rte_tel_data_add_dict_u64(gd, "adaptive", v.cnt.adaptive);
		rte_tel_data_add_dict_u64(gd, "moves", v.cnt.moves);
		for (k = 0; k < v.n; k++)
			rte_tel_data_add_dict_u64(md,
						  tel_dp->port_name[v.port[k]],
						  v.cnt.member[k]);
		rte_tel_data_add_dict_container(gd, "members", md, 0);
		rte_tel_data_add_dict_container(d, v.name, gd, 0);
	}
	return 0;
}

static int
tel_bpf(const char *cmd __rte_unused, const char *params __rte_unused,
	struct rte_tel_data *d)
{
	char k[16];
	unsigned int sl;
	uint16_t p;

	rte_tel_data_start_dict(d);
	for (p = 0; p < tel_dp->nb_ports; p++) {
		struct ibex_dp_bpf_view v;
		struct rte_tel_data *pd;

		if (ibex_dp_bpf_view(tel_dp, p, &v) < 0)
			continue;
		pd = rte_tel_data_alloc();
		if (pd == NULL)
			return -ENOMEM;
		rte_tel_data_start_dict(pd);
		rte_tel_data_add_dict_int(pd, "on", v.on);
		rte_tel_data_add_dict_string(pd, "file", v.file);
		rte_tel_data_add_dict_string(pd, "section", v.section);
		rte_tel_data_add_dict_string(pd, "jit",
					     !v.on ? "-" : v.jit ? "jit" :
					     "interpreted");
		rte_tel_data_add_dict_u64(pd, "insns", v.nb_insns);
		rte_tel_data_add_dict_u64(pd, "load_ns", v.load_ns);
		rte_tel_data_add_dict_u64(pd, "frames", v.runs);
		rte_tel_data_add_dict_u64(pd, "default", v.cnt.deflt);
		rte_tel_data_add_dict_u64(pd, "drops", v.cnt.drops);
		rte_tel_data_add_dict_u64(pd, "bad", v.cnt.bad);
		for (sl = 0; sl < IBEX_SL_COUNT; sl++) {
			snprintf(k, sizeof(k), "sl%u", sl);
			rte_tel_data_add_dict_u64(pd, k, v.cnt.sl[sl]);
		}
		rte_tel_data_add_dict_container(d, tel_dp->port_name[p], pd, 0);
	}
	return 0;
}

/* The capture's status as the control thread last published it (at most
 * one ring drain old while it runs); state "none" before the first. */
static int
tel_capture(const char *cmd __rte_unused, const char *params __rte_unused,
	    struct rte_tel_data *d)
{
	struct ibex_capture_view v;

	ibex_capture_view_shared(tel_dp, &v);
	rte_tel_data_start_dict(d);
	ibex_capture_tel(d, &v, v.state != IBEX_CAPTURE_NONE &&
			 v.port < tel_dp->nb_ports ?
			 tel_dp->port_name[v.port] : "");
	return 0;
}

static const struct {
const char *cmd;
telemetry_cb fn;
const char *help;
} tel_cmds[] = {
	{ "/ibex/version", tel_version,
	  "ibex version, git describe, DPDK version. No parameters" },
	{ "/ibex/ports", tel_ports, "List ibex ports. No parameters" },
	{ "/ibex/port_stats", tel_port_stats,
	  "Counters of one port. Parameters: port name or index" },
	{ "/ibex/drops", tel_drops,
	  "Non-zero drop counters by port and reason. No parameters" },
	{ "/ibex/reasons", tel_reasons,
	  "Every drop reason and its meaning. No parameters" },
	{ "/ibex/workers", tel_workers,
	  "Worker lcores and their busy cycles. No parameters" },
	/* Help texts are at most 127 characters. */
	{ "/ibex/fdb", tel_fdb, "FDB counters and a page of entries. "
	  "Parameters: OFFSET[,COUNT<=100]; next: the next page's "
	  "OFFSET, -1 after the last" },
	{ "/ibex/credits", tel_credits,
	  "Credit ports: credits, buffer, violations. No parameters" },
	{ "/ibex/pfc", tel_pfc,
	  "PFC ports: pauses, watchdog, buffer. No parameters" },
	{ "/ibex/ecmp", tel_ecmp,
	  "ECMP groups: frames per member. No parameters" },
	{ "/ibex/bpf", tel_bpf,
	  "eBPF classifiers per port and their verdicts. No parameters" },
	{ "/ibex/capture", tel_capture,
	  "The running or last ibex-ctl capture: state, file, frames "
	  "written and dropped. No parameters" },
};

/* Several switches in one process (ibex-fabric): /ibex/NAME/CMD is CMD of
 * switch NAME, /ibex/CMD that of the first. */
static struct {
	char name[IBEX_NAME_LEN];
	struct ibex_dp *dp;
} tel_switch[IBEX_TELEMETRY_SWITCHES_MAX];
static unsigned int tel_nb_switches;
static struct ibex_dp *tel_first;

/*
 * Every command goes through here: find the switch the command names and
 * the callback of its last part, then run it with tel_dp set to that
 * switch. tel_dp is per thread: DPDK's telemetry serves each client from
 * a thread of its own.
 */
static int
tel_dispatch(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const char *base = cmd + strlen("/ibex/"), *slash = strchr(base, '/');
	struct ibex_dp *dp = tel_first;
	unsigned int i;

	if (slash != NULL) {
		dp = NULL;
		for (i = 0; i < tel_nb_switches; i++)
			if (strlen(tel_switch[i].name) == (size_t)(slash - base) &&
			    strncmp(tel_switch[i].name, base, slash - base) == 0)
				dp = tel_switch[i].dp;
		base = slash + 1;
	}
	if (dp == NULL)
		return -EINVAL;
	for (i = 0; i < RTE_DIM(tel_cmds); i++)
		if (strcmp(tel_cmds[i].cmd + strlen("/ibex/"), base) == 0) {
			tel_dp = dp;
			return tel_cmds[i].fn(cmd, params, d);
		}
	return -EINVAL;
}

/* Register every command under @p prefix ("/ibex/" or "/ibex/NAME/"). */
static int
tel_register_all(const char *prefix)
{
	char cmd[128];
	unsigned int i;
	int ret;

	for (i = 0; i < RTE_DIM(tel_cmds); i++) {
		snprintf(cmd, sizeof(cmd), "%s%s", prefix,
			 tel_cmds[i].cmd + strlen("/ibex/"));
		ret = rte_telemetry_register_cmd(cmd, tel_dispatch,
						 tel_cmds[i].help);
		if (ret < 0)
			return ret;
	}
	return 0;
}

int
ibex_telemetry_register(struct ibex_dp *dp)
{
	tel_first = dp;
	return tel_register_all("/ibex/");
}

int
ibex_telemetry_register_switch(struct ibex_dp *dp, const char *name)
{
	char prefix[IBEX_NAME_LEN + 8];

	if (tel_nb_switches == RTE_DIM(tel_switch))
		return -ENOSPC;
	snprintf(tel_switch[tel_nb_switches].name,
		 sizeof(tel_switch[0].name), "%s", name);
	tel_switch[tel_nb_switches++].dp = dp;
	snprintf(prefix, sizeof(prefix), "/ibex/%s/", name);
	return tel_register_all(prefix);
}
