/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rte_telemetry commands under /ibex/, readable with dpdk-telemetry.py:
 *
 *   /ibex/version            ibex, git and DPDK versions, JSON schema
 *   /ibex/ports              list of port names
 *   /ibex/<tel>[,PORT]       every topic of ibex_topics.h with a telemetry
 *                            name: the object "show <topic> --json" gives,
 *                            written by the same function (ibex_show.c)
 *                            through the emitter's telemetry back end
 *                            below; PORT (name or index) for a topic that
 *                            takes a port, /ibex/fdb,OFFSET[,COUNT] a page
 *                            of the FDB (100 entries at most)
 *
 * DPDK 22.11's telemetry data has no booleans, doubles, nulls or lists
 * of objects, and keys are [A-Za-z0-9_/]; the back end writes the same
 * tree with these rules (docs/control.md, "One schema"): true/false as
 * 1/0, a double as a string of its digits, a list of objects (or lists)
 * as an object keyed "0", "1", ..., a key's other characters as '_'.
 *
 * Callbacks run on DPDK's telemetry thread: they only read counters (whole
 * 64-bit words), the FDB through its lock-free reader side, and the
 * running config under its owner's lock (ibex_running.h).
 */

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_telemetry.h>
#include <rte_version.h>

#include "ibex_clock.h"
#include "ibex_buf.h"
#include "ibex_conf.h"
#include "ibex_capture.h"
#include "ibex_counters.h"
#include "ibex_ctl.h"
#include "ibex_dp.h"
#include "ibex_emit.h"
#include "ibex_fdb.h"
#include "ibex_hist.h"
#include "ibex_pkt.h"
#include "ibex_running.h"
#include "ibex_show.h"
#include "ibex_version.h"

/* ---- the emitter's telemetry back end ---- */

struct tel_frame {
	struct rte_tel_data *d;
	bool list;               /* a list of the emitter */
	bool typed;              /* list: its rte type is chosen */
	bool as_dict;            /* list: written as a dict keyed by index */
	bool attached;           /* in its parent */
	unsigned int idx;        /* as_dict: the next item's key */
	char key[RTE_TEL_MAX_STRING_LEN];
};

struct tel_emit {
	struct tel_frame f[IBEX_EMIT_DEPTH + 1]; /* f[1]: the root */
};

static void
tel_err(struct ibex_emit *e, int ret)
{
	if (ret < 0 && e->err == 0)
		e->err = ret;
}

/* A key as telemetry allows it: [A-Za-z0-9_/], others as '_'. */
static void
tel_key(char *dst, const char *key)
{
	size_t i;

	for (i = 0; key[i] != '\0' && i < RTE_TEL_MAX_STRING_LEN - 1; i++) {
		char ch = key[i];
		bool ok = (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') ||
			  (ch >= 'A' && ch <= 'Z') || ch == '_' || ch == '/';

		dst[i] = ok ? ch : '_';
	}
	dst[i] = '\0';
}

static int tel_attach(struct ibex_emit *e, unsigned int i);

/* Make frame @p i (a list) a dict keyed by index, in its parent. */
static int
tel_as_dict(struct ibex_emit *e, unsigned int i)
{
	struct tel_frame *f = &((struct tel_emit *)e->ctx)->f[i];

	if (f->typed)
		return f->as_dict ? 0 : -EINVAL; /* an array of values */
	rte_tel_data_start_dict(f->d);
	f->typed = true;
	f->as_dict = true;
	return tel_attach(e, i);
}

/* The name of the next member of frame @p i (@p key in a dict, the index
 * in a list written as a dict). */
static int
tel_name(struct ibex_emit *e, unsigned int i, const char *key, char *name)
{
	struct tel_frame *f = &((struct tel_emit *)e->ctx)->f[i];
	int ret;

	if (!f->list) {
		tel_key(name, key != NULL ? key : "");
		return 0;
	}
	ret = tel_as_dict(e, i);
	snprintf(name, RTE_TEL_MAX_STRING_LEN, "%u", f->idx++);
	return ret;
}

/* Put frame @p i into its parent, once. */
static int
tel_attach(struct ibex_emit *e, unsigned int i)
{
	struct tel_frame *f = &((struct tel_emit *)e->ctx)->f[i];
	char name[RTE_TEL_MAX_STRING_LEN];
	int ret;

	if (f->attached || i <= 1)
		return 0;
	ret = tel_name(e, i - 1, f->key, name);
	if (ret == 0)
		ret = rte_tel_data_add_dict_container(
			((struct tel_emit *)e->ctx)->f[i - 1].d, name, f->d, 0);
	if (ret == 0)
		f->attached = true;
	return ret < 0 ? ret : 0;
}

static void
tel_open(struct ibex_emit *e, const char *key, bool list)
{
	struct tel_emit *t = e->ctx;
	struct tel_frame *f;

	if (e->err != 0)
		return;
	if (e->depth >= IBEX_EMIT_DEPTH || (e->depth == 0 && list)) {
		e->err = -EINVAL;
		return;
	}
	f = &t->f[++e->depth];
	if (e->depth == 1) {             /* the root: the reply's dict */
		rte_tel_data_start_dict(f->d);
		f->list = false;
		f->attached = true;
		return;
	}
	memset(f, 0, sizeof(*f));
	f->d = rte_tel_data_alloc();
	if (f->d == NULL) {
		e->err = -ENOMEM;
		return;
	}
	f->list = list;
	snprintf(f->key, sizeof(f->key), "%s", key != NULL ? key : "");
	if (!list) {
		rte_tel_data_start_dict(f->d);
		tel_err(e, tel_attach(e, e->depth));
	}
}

static void
tel_close(struct ibex_emit *e, bool list __rte_unused)
{
	struct tel_frame *f;

	if (e->err != 0)
		return;
	if (e->depth == 0) {
		e->err = -EINVAL;
		return;
	}
	f = &((struct tel_emit *)e->ctx)->f[e->depth];
	if (f->list && !f->typed) {      /* empty: [] */
		rte_tel_data_start_array(f->d, RTE_TEL_STRING_VAL);
		f->typed = true;
	}
	tel_err(e, tel_attach(e, e->depth));
	if (!f->attached && e->depth > 1)
		rte_tel_data_free(f->d);
	e->depth--;
}

/* The frame a value goes in, ready for a value of array type @p type
 * when it is a list; NULL (and e->err) when it cannot take it. */
static struct tel_frame *
tel_value(struct ibex_emit *e, enum rte_tel_value_type type, bool *array)
{
	struct tel_frame *f;

	if (e->err != 0 || e->depth == 0) {
		if (e->err == 0)
			e->err = -EINVAL;
		return NULL;
	}
	f = &((struct tel_emit *)e->ctx)->f[e->depth];
	*array = false;
	if (!f->list || f->as_dict)
		return f;
	if (!f->typed) {
		rte_tel_data_start_array(f->d, type);
		f->typed = true;
		tel_err(e, tel_attach(e, e->depth));
	}
	*array = true;
	return e->err == 0 ? f : NULL;
}

static void
tel_u64(struct ibex_emit *e, const char *key, uint64_t v)
{
	char name[RTE_TEL_MAX_STRING_LEN];
	struct tel_frame *f;
	bool array;

	f = tel_value(e, RTE_TEL_U64_VAL, &array);
	if (f == NULL)
		return;
	if (array) {
		tel_err(e, rte_tel_data_add_array_u64(f->d, v));
		return;
	}
	tel_err(e, tel_name(e, e->depth, key, name));
	tel_err(e, rte_tel_data_add_dict_u64(f->d, name, v));
}

static void
tel_i64(struct ibex_emit *e, const char *key, int64_t v)
{
	char name[RTE_TEL_MAX_STRING_LEN];
	struct tel_frame *f;
	bool array;

	f = tel_value(e, RTE_TEL_INT_VAL, &array);
	if (f == NULL)
		return;
	/* DPDK 22.11's ints are C ints. */
	if (array) {
		tel_err(e, rte_tel_data_add_array_int(f->d, (int)v));
		return;
	}
	tel_err(e, tel_name(e, e->depth, key, name));
	tel_err(e, rte_tel_data_add_dict_int(f->d, name, (int)v));
}

static void
tel_str(struct ibex_emit *e, const char *key, const char *s)
{
	char name[RTE_TEL_MAX_STRING_LEN];
	struct tel_frame *f;
	bool array;

	f = tel_value(e, RTE_TEL_STRING_VAL, &array);
	if (f == NULL)
		return;
	if (s == NULL)
		s = "";
	if (array) {
		tel_err(e, rte_tel_data_add_array_string(f->d, s));
		return;
	}
	tel_err(e, tel_name(e, e->depth, key, name));
	tel_err(e, rte_tel_data_add_dict_string(f->d, name, s));
}

static void
tel_bool(struct ibex_emit *e, const char *key, bool v)
{
	tel_u64(e, key, v ? 1 : 0);
}

static void
tel_dbl(struct ibex_emit *e, const char *key, double v, unsigned int decimals)
{
	char num[64];

	snprintf(num, sizeof(num), "%.*f", (int)(decimals > 17 ? 17 : decimals),
		 v);
	tel_str(e, key, num);
}

static const struct ibex_emit_ops tel_ops = {
	.open = tel_open,
	.close = tel_close,
	.u64 = tel_u64,
	.i64 = tel_i64,
	.str = tel_str,
	.boolean = tel_bool,
	.dbl = tel_dbl,
};

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

#define FDB_PAGE_MAX 100

struct fdb_page {
	uint32_t offset;
	uint32_t count;
};

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

/* ---- the topics ---- */

/* Where the telemetry thread reads a switch's running config: from its
 * owner, under its lock (ibex_telemetry_set_running()). */
static struct {
	struct ibex_dp *dp;
	struct ibex_running *run;
} tel_conf[IBEX_TELEMETRY_SWITCHES_MAX + 1];
static pthread_mutex_t tel_conf_lock = PTHREAD_MUTEX_INITIALIZER;

int
ibex_telemetry_set_running(struct ibex_dp *dp, struct ibex_running *run)
{
	unsigned int i, free_slot = RTE_DIM(tel_conf);
	int ret = -ENOSPC;

	pthread_mutex_lock(&tel_conf_lock);
	for (i = 0; i < RTE_DIM(tel_conf); i++) {
		if (tel_conf[i].dp == dp) {
			free_slot = i;
			break;
		}
		if (tel_conf[i].dp == NULL && free_slot == RTE_DIM(tel_conf))
			free_slot = i;
	}
	if (free_slot < RTE_DIM(tel_conf)) {
		tel_conf[free_slot].dp = run != NULL ? dp : NULL;
		tel_conf[free_slot].run = run;
		ret = 0;
	}
	pthread_mutex_unlock(&tel_conf_lock);
	return ret;
}

/* The topic whose telemetry name is @p name, or IBEX_SHOW_NB. */
static enum ibex_show
tel_topic(const char *name)
{
	unsigned int s;

	for (s = 0; s < IBEX_SHOW_NB; s++) {
		const char *t = ibex_show_tel_name(s);

		if (t != NULL && strcmp(t, name) == 0)
			return s;
	}
	return IBEX_SHOW_NB;
}

/* /ibex/<tel>[,PARAMS] of topic @p s: its emit function, through the
 * telemetry back end, on a copy of the running config. */
static int
tel_run_topic(enum ibex_show s, const char *params, struct rte_tel_data *d)
{
	struct ibex_topic_ctx c = {
		.dp = tel_dp, .first = 0, .end = tel_dp->nb_ports,
		.shared = true,
	};
	struct ibex_conf *conf;
	struct tel_emit *t;
	struct ibex_emit e;
	unsigned int i;
	int ret = -EINVAL;

	if (s == IBEX_SHOW_FDB) {
		struct fdb_page pg;

		if (fdb_page_params(params, &pg) < 0)
			return -EINVAL;
		c.fdb_offset = pg.offset;
		c.fdb_count = pg.count;
	} else if (params != NULL && *params != '\0') {
		int p;

		if (!ibex_show_takes_port(s))
			return -EINVAL;
		p = port_from_param(params);
		if (p < 0)
			return -EINVAL;
		c.first = (uint16_t)p;
		c.end = (uint16_t)(p + 1);
	}
	t = calloc(1, sizeof(*t));
	c.hist = malloc(sizeof(*c.hist));
	if (t == NULL || c.hist == NULL) {
		free(t);
		free(c.hist);
		return -ENOMEM;
	}
	t->f[1].d = d;
	ibex_emit_ops_init(&e, &tel_ops, t);
	/* A copy of the running config, taken under its owner's lock,
	 * which is never held across a call into the data path. */
	conf = calloc(1, sizeof(*conf));
	pthread_mutex_lock(&tel_conf_lock);
	for (i = 0; conf != NULL && i < RTE_DIM(tel_conf); i++) {
		if (tel_conf[i].dp != tel_dp)
			continue;
		ibex_running_lock(tel_conf[i].run);
		ibex_conf_copy(conf, ibex_running_conf(tel_conf[i].run));
		ibex_running_unlock(tel_conf[i].run);
		c.conf = conf;
		break;
	}
	pthread_mutex_unlock(&tel_conf_lock);
	/* A switch without an owner (ibex-fabric without control sockets)
	 * takes no change: the config it was made with stays. */
	if (conf != NULL && c.conf == NULL && tel_dp->conf != NULL) {
		ibex_conf_copy(conf, tel_dp->conf);
		c.conf = conf;
	}
	if (c.conf != NULL)
		ret = ibex_topic_emit(s)(&c, &e);
	else if (conf == NULL)
		ret = -ENOMEM;
	free(conf);
	free(c.hist);
	free(t);
	return ret;
}

static const struct {
const char *cmd;
telemetry_cb fn;
const char *help;
} tel_cmds[] = {
	{ "/ibex/version", tel_version,
	  "ibex version, git describe, DPDK version. No parameters" },
	{ "/ibex/ports", tel_ports, "List ibex ports. No parameters" },
};

/* A topic's help: its row's help line and its parameter (at most 127
 * characters). */
static const char *
tel_topic_help(enum ibex_show s, char *buf, size_t len)
{
	snprintf(buf, len, "%s (show %s --json). %s", ibex_cmd_topic_help(s),
		 ibex_show_name(s), s == IBEX_SHOW_FDB ?
		 "Parameters: OFFSET[,COUNT<=100]" :
		 ibex_show_takes_port(s) ? "Parameters: [port name or index]" :
		 "No parameters");
	return buf;
}

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
	i = tel_topic(base);
	if (i == IBEX_SHOW_NB)
		return -EINVAL;
	tel_dp = dp;
	return tel_run_topic(i, params, d);
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
	for (i = 0; i < IBEX_SHOW_NB; i++) {
		char help[RTE_TEL_MAX_STRING_LEN];

		if (ibex_show_tel_name(i) == NULL)
			continue;
		snprintf(cmd, sizeof(cmd), "%s%s", prefix, ibex_show_tel_name(i));
		ret = rte_telemetry_register_cmd(cmd, tel_dispatch,
			tel_topic_help(i, help, sizeof(help)));
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
