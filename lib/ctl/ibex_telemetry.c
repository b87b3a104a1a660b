/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rte_telemetry commands under /ibex/, readable with dpdk-telemetry.py:
 *
 *   /ibex/ports              list of port names
 *   /ibex/port_stats,<port>  counters of one port (name or index)
 *   /ibex/drops              per port: non-zero drop reasons
 *   /ibex/reasons            every drop reason and what it means
 *   /ibex/workers            per worker: lcore, queues, iterations, busy cycles
 *   /ibex/fdb                FDB entries (first 1000) and its counters
 *   /ibex/credits            per credit port and VL: credits, buffer, violations
 *   /ibex/pfc                per PFC port: pauses sent/received, watchdog
 *   /ibex/bpf                per port: its eBPF classifier and verdicts
 *
 * Callbacks run on DPDK's telemetry thread: they only read counters (whole
 * 64-bit words) and the FDB through its lock-free reader side.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_telemetry.h>
#include <rte_version.h>

#include "ibex_buf.h"
#include "ibex_ctl.h"
#include "ibex_dp.h"
#include "ibex_fdb.h"
#include "ibex_pkt.h"
#include "ibex_version.h"

#define FDB_DUMP_MAX 1000

static struct ibex_dp *tel_dp;

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

/* Telemetry names allow [A-Za-z0-9_]: "ip4-trunc" becomes "ip4_trunc". */
static const char *
tel_reason_key(unsigned int r, const char *prefix, char *buf, size_t len)
{
	char *c;

	snprintf(buf, len, "%s%s", prefix, ibex_reason_name(r));
	for (c = buf; *c != '\0'; c++)
		if (*c == '-')
			*c = '_';
	return buf;
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
	unsigned int r;

	if (p < 0)
		return -EINVAL;
	ibex_dp_port_totals(tel_dp, (uint16_t)p, &c);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "name", tel_dp->port_name[p]);
	rte_tel_data_add_dict_u64(d, "ethdev_port", tel_dp->port_id[p]);
	rte_tel_data_add_dict_u64(d, "rx_frames", c.rx_pkts);
	rte_tel_data_add_dict_u64(d, "rx_bytes", c.rx_bytes);
	rte_tel_data_add_dict_u64(d, "tx_frames", c.tx_pkts);
	rte_tel_data_add_dict_u64(d, "tx_bytes", c.tx_bytes);
	rte_tel_data_add_dict_u64(d, "flooded", c.flood_pkts);
	rte_tel_data_add_dict_u64(d, "learn_posted", c.learn_posted);
	rte_tel_data_add_dict_u64(d, "learn_lost", c.learn_lost);
	for (r = 1; r < IBEX_R_MAX; r++) {
		char key[64];

		rte_tel_data_add_dict_u64(d, tel_reason_key(r, "drop_", key,
							    sizeof(key)), c.drop[r]);
	}
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
				rte_tel_data_add_dict_u64(pd, tel_reason_key(r, "",
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

		rte_tel_data_add_dict_string(d, tel_reason_key(r, "", key,
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
		const struct ibex_worker *w = tel_dp->workers[i];
		struct rte_tel_data *wd = rte_tel_data_alloc();
		char name[16];

		if (wd == NULL)
			return -ENOMEM;
		rte_tel_data_start_dict(wd);
		rte_tel_data_add_dict_u64(wd, "lcore", w->lcore_id);
		rte_tel_data_add_dict_u64(wd, "rx_queues", w->nb_rxq);
		rte_tel_data_add_dict_u64(wd, "iterations",
					  IBEX_CNT_READ(w->iterations));
		rte_tel_data_add_dict_u64(wd, "busy_iterations",
					  IBEX_CNT_READ(w->busy_iterations));
		rte_tel_data_add_dict_u64(wd, "busy_cycles",
					  IBEX_CNT_READ(w->busy_tsc));
		snprintf(name, sizeof(name), "w%u", i);
		rte_tel_data_add_dict_container(d, name, wd, 0);
	}
	return 0;
}

struct fdb_dump {
	struct rte_tel_data *list;
	unsigned int n;
};

static int
fdb_dump_one(const struct ibex_fdb_entry *e, void *arg)
{
	struct fdb_dump *fd = arg;
	char mac[32], line[96];

	if (fd->n++ == FDB_DUMP_MAX)
		return 1;
	ibex_mac_format(e->mac, mac, sizeof(mac));
	snprintf(line, sizeof(line), "%s vlan %u port %s %s", mac, e->vid,
		 e->port < tel_dp->nb_ports ? tel_dp->port_name[e->port] : "?",
		 e->is_static ? "static" : "learned");
	rte_tel_data_add_array_string(fd->list, line);
	return 0;
}

static int
tel_fdb(const char *cmd __rte_unused, const char *params __rte_unused,
	struct rte_tel_data *d)
{
	struct fdb_dump fd = { .list = rte_tel_data_alloc() };
	struct ibex_fdb_stats st;

	if (fd.list == NULL)
		return -ENOMEM;
	ibex_fdb_get_stats(tel_dp->fdb, &st);
	rte_tel_data_start_array(fd.list, RTE_TEL_STRING_VAL);
	ibex_fdb_foreach(tel_dp->fdb, fdb_dump_one, &fd);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "entries", st.entries);
	rte_tel_data_add_dict_u64(d, "static", st.static_entries);
	rte_tel_data_add_dict_u64(d, "learned", st.learned);
	rte_tel_data_add_dict_u64(d, "moved", st.moved);
	rte_tel_data_add_dict_u64(d, "aged", st.aged);
	rte_tel_data_add_dict_u64(d, "full", st.full);
	rte_tel_data_add_dict_container(d, "table", fd.list, 0);
	return 0;
}

/* /ibex/credits and /ibex/pfc: one dict per port running that mode. */
static int
tel_fc(struct rte_tel_data *d, uint8_t mode)
{
	uint16_t p;
	unsigned int vl;

	rte_tel_data_start_dict(d);
	for (p = 0; p < tel_dp->nb_ports; p++) {
		struct ibex_dp_fc_view v;
		struct rte_tel_data *pd;
		char k[24];

		if (ibex_dp_fc_view(tel_dp, p, &v) < 0 || v.mode != mode)
			continue;
		pd = rte_tel_data_alloc();
		if (pd == NULL)
			return -ENOMEM;
		rte_tel_data_start_dict(pd);
		rte_tel_data_add_dict_u64(pd, "lossless_vls", v.lossless);
		if (mode == IBEX_FC_CREDIT) {
			rte_tel_data_add_dict_u64(pd, "fc_tx", v.fc_tx);
			rte_tel_data_add_dict_u64(pd, "fc_rx", v.fc_rx);
			rte_tel_data_add_dict_u64(pd, "fc_tx_fail", v.fc_tx_fail);
		} else {
			rte_tel_data_add_dict_u64(pd, "pfc_tx", v.pfc_tx);
			rte_tel_data_add_dict_u64(pd, "pfc_rx", v.pfc_rx);
			rte_tel_data_add_dict_u64(pd, "pfc_ignored",
						  v.pfc_ignored);
			rte_tel_data_add_dict_u64(pd, "xoff_tx", v.xoff_tx);
			rte_tel_data_add_dict_u64(pd, "xon_tx", v.xon_tx);
			rte_tel_data_add_dict_u64(pd, "xoff_rx", v.xoff_rx);
			rte_tel_data_add_dict_u64(pd, "xon_rx", v.xon_rx);
			rte_tel_data_add_dict_u64(pd, "paused_vls", v.paused_vls);
			rte_tel_data_add_dict_u64(pd, "wd_drop_vls",
						  v.wd_drop_vls);
			rte_tel_data_add_dict_u64(pd, "storms", v.storms);
			rte_tel_data_add_dict_u64(pd, "restored", v.restored);
			for (vl = 0; vl < 8; vl++) {
				snprintf(k, sizeof(k), "paused_ns_p%u", vl);
				rte_tel_data_add_dict_u64(pd, k, v.paused_ns[vl]);
			}
		}
		for (vl = 0; vl < IBEX_VL_COUNT; vl++) {
			if (!(v.lossless >> vl & 1) && v.buf_used[vl] == 0 &&
			    v.violations[vl] == 0)
				continue;
			snprintf(k, sizeof(k), "vl%u_credits", vl);
			rte_tel_data_add_dict_u64(pd, k, v.credits[vl]);
			snprintf(k, sizeof(k), "vl%u_buf_used", vl);
			rte_tel_data_add_dict_u64(pd, k, v.buf_used[vl]);
			snprintf(k, sizeof(k), "vl%u_advertised", vl);
			rte_tel_data_add_dict_u64(pd, k, v.buf_free[vl]);
			snprintf(k, sizeof(k), "vl%u_violations", vl);
			rte_tel_data_add_dict_u64(pd, k, v.violations[vl]);
		}
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

int
ibex_telemetry_register(struct ibex_dp *dp)
{
	static const struct {
		const char *cmd;
		telemetry_cb fn;
		const char *help;
	} cmds[] = {
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
		{ "/ibex/fdb", tel_fdb, "FDB entries and counters. No parameters" },
		{ "/ibex/credits", tel_credits,
		  "Credit ports: credits, buffer, violations. No parameters" },
		{ "/ibex/pfc", tel_pfc,
		  "PFC ports: pauses, watchdog, buffer. No parameters" },
		{ "/ibex/bpf", tel_bpf,
		  "eBPF classifiers per port and their verdicts. No parameters" },
	};
	unsigned int i;
	int ret;

	tel_dp = dp;
	for (i = 0; i < RTE_DIM(cmds); i++) {
		ret = rte_telemetry_register_cmd(cmds[i].cmd, cmds[i].fn,
						 cmds[i].help);
		if (ret < 0)
			return ret;
	}
	return 0;
}
