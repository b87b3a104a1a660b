/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * eBPF classifiers in the tables: loading them when tables are built,
 * sharing them between generations, freeing them after the grace period,
 * and the view the control plane reads.
 *
 * A live change builds a complete new table set. A port whose program is
 * named the same (file, section, JIT) and whose file is unchanged on disk
 * keeps the loaded program (one more reference); any other named program
 * is loaded anew, and a load that fails fails the whole change, which then
 * leaves the running tables, and so the running program, as they were.
 * Old tables drop their references only after rte_rcu_qsbr_synchronize(),
 * so no worker can still be inside a program rte_bpf_destroy() frees.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_malloc.h>

#include "ibex_bpf.h"
#include "ibex_conf.h"
#include "ibex_dp_private.h"

_Static_assert(IBEX_CONF_BPF_PATH_LEN == IBEX_BPF_PATH_LEN &&
	       IBEX_CONF_BPF_SEC_LEN == IBEX_BPF_SEC_LEN,
	       "conf and loader agree on name lengths");

static struct ibex_bpf_prog *
bpf_reuse(const struct ibex_dp_tables *prev, const struct ibex_conf_port *cp)
{
	uint16_t p;

	if (prev == NULL)
		return NULL;
	for (p = 0; p < IBEX_MAX_PORTS; p++)
		if (prev->bpf[p] != NULL &&
		    ibex_bpf_prog_same(prev->bpf[p], cp->bpf_file,
				       cp->bpf_section, cp->bpf_jit))
			return ibex_bpf_prog_get(prev->bpf[p]);
	return NULL;
}

/* "origin:line: port P: sl-from bpf: why", as lib/conf words its errors
 * (no line for a statement that came from a live command). */
static void
bpf_err(const struct ibex_conf *conf, const struct ibex_conf_port *cp,
	const char *msg, char *err, size_t errlen)
{
	char line[16] = "";

	if (cp->class_line > 0)
		snprintf(line, sizeof(line), ":%d", cp->class_line);
	snprintf(err, errlen, "%s%s: port %s: sl-from bpf: %s", conf->origin,
		 line, cp->name, msg);
}

int
ibex_dp_tables_bpf(struct ibex_dp_tables *t, const struct ibex_conf *conf,
		   const struct ibex_dp_tables *prev, char *err, size_t errlen)
{
	char msg[768];
	uint16_t p;
	int ret;

	for (p = 0; p < conf->nb_ports; p++) {
		const struct ibex_conf_port *cp = &conf->ports[p];
		struct ibex_bpf_prog *prog;

		if (cp->bpf_file[0] == '\0')
			continue;
		prog = bpf_reuse(prev, cp);
		if (prog == NULL) {
			ret = ibex_bpf_prog_load(&prog, cp->bpf_file,
						 cp->bpf_section, cp->bpf_jit,
						 msg, sizeof(msg));
			if (ret < 0) {
				bpf_err(conf, cp, msg, err, errlen);
				return ret;
			}
		}
		t->bpf[p] = prog;
	}
	return 0;
}

void
ibex_dp_tables_free(struct ibex_dp_tables *t)
{
	uint16_t p;

	if (t == NULL)
		return;
	for (p = 0; p < IBEX_MAX_PORTS; p++)
		ibex_bpf_prog_put(t->bpf[p]);
	rte_free(t);
}

void
ibex_dp_bpf_note(struct ibex_dp *dp, const struct ibex_dp_tables *t)
{
	uint16_t p;

	pthread_mutex_lock(&dp->bpf_lock);
	for (p = 0; p < dp->nb_ports; p++) {
		struct ibex_dp_bpf_view *v = &dp->bpf_info[p];
		const struct ibex_bpf_prog *b = t->bpf[p];

		memset(v, 0, sizeof(*v));
		if (b == NULL)
			continue;
		v->on = true;
		v->jit = b->jit != NULL;
		snprintf(v->file, sizeof(v->file), "%s", b->file);
		snprintf(v->section, sizeof(v->section), "%s", b->found);
		snprintf(v->name, sizeof(v->name), "%s", b->name);
		v->nb_insns = b->nb_insns;
		v->btf = b->btf;
		v->load_ns = b->load_ns;
		v->loaded_at = b->loaded_at;
	}
	pthread_mutex_unlock(&dp->bpf_lock);
}

int
ibex_dp_bpf_view(const struct ibex_dp *dp, uint16_t port,
		 struct ibex_dp_bpf_view *v)
{
	struct ibex_dp *mdp = (struct ibex_dp *)(uintptr_t)dp;
	unsigned int s;
	uint16_t i;

	if (port >= dp->nb_ports)
		return -ENOENT;
	pthread_mutex_lock(&mdp->bpf_lock);
	*v = dp->bpf_info[port];
	pthread_mutex_unlock(&mdp->bpf_lock);
	memset(&v->cnt, 0, sizeof(v->cnt));
	for (i = 0; i < dp->nb_workers; i++) {
		const struct ibex_bpf_counters *c =
			&dp->workers[i]->bpf_cnt[port];

		for (s = 0; s < IBEX_SL_COUNT; s++)
			v->cnt.sl[s] += IBEX_CNT_READ(c->sl[s]);
		v->cnt.deflt += IBEX_CNT_READ(c->deflt);
		v->cnt.drops += IBEX_CNT_READ(c->drops);
		v->cnt.bad += IBEX_CNT_READ(c->bad);
	}
	v->runs = v->cnt.deflt + v->cnt.drops + v->cnt.bad;
	for (s = 0; s < IBEX_SL_COUNT; s++)
		v->runs += v->cnt.sl[s];
	return 0;
}
