/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Live reconfiguration (docs/control.md).
 *
 * The reload protocol, written out:
 *  1. The control thread has finished the new configuration (completed
 *     and validated once, ibex_conf_finish(), by lib/ctl) and checks that
 *     it changes nothing the running data path cannot: the keys lib/conf
 *     marks restart-only (ibex_conf_restart_check()) and what depends on
 *     what runs (workers, queue sizes).
 *  2. It builds a complete new table set (generation + 1) in private memory.
 *  3. It publishes it with one atomic store (release). A worker loads the
 *     pointer once per iteration (acquire) and uses that one set for the
 *     whole iteration; seeing a new generation, it first rebuilds its
 *     per-port state (arbiters, shapers, queue bounds). Frames already in
 *     lane queues stay there: nothing is dropped by a change. When a
 *     port's SL->VL table changes, the lanes holding frames are fenced:
 *     until the frames queued before the change have left, only they may
 *     send, so a moved SL's new frames never overtake its old ones.
 *  4. It waits until every worker has reported a quiescent state after the
 *     store (rte_rcu_qsbr_synchronize(); workers report at the end of each
 *     iteration, holding no table pointer) and frees the old set.
 * FDB static entries change through the FDB's own single-writer protocol,
 * before the tables are swapped, whole or not at all (reconf_fdb()): a
 * change refused there leaves the FDB, the tables and the running config
 * as they were.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_rcu_qsbr.h>

#include "ibex_conf.h"
#include "ibex_dp_private.h"
#include "ibex_fdb.h"

/* Between looks at the workers' quiescent states during a change. */
#define RECONF_GRACE_SLEEP_US 100

/* What the running data path cannot take: the restart-only keys of
 * lib/conf's key tables, and what depends on what runs. */
static int
reconf_check(const struct ibex_dp *dp, const struct ibex_conf *old,
	     const struct ibex_conf *conf, char *err, size_t errlen)
{
	uint16_t p;
	int ret;

	if (!conf->finished) {
		snprintf(err, errlen, "configuration not finished "
			 "(ibex_conf_finish())");
		return -EINVAL;
	}
	ret = ibex_conf_restart_check(old, conf, err, errlen);
	if (ret < 0)
		return ret;
	for (p = 0; p < conf->nb_ports; p++) {
		const struct ibex_conf_port *b = &conf->ports[p];

		if (b->vl_queue_blocks > dp->workers[0]->eg[p]->slots) {
			snprintf(err, errlen, "%s:%d: port %s: vl-queue can grow "
				 "live only up to %u blocks (its size at start, "
				 "rounded up to a power of two)", conf->origin,
				 b->line, b->name, dp->workers[0]->eg[p]->slots);
			return -ENOTSUP;
		}
	}
	if (conf->nb_workers != 0 && conf->nb_workers != dp->nb_workers) {
		snprintf(err, errlen, "switch workers needs a restart (%u "
			 "running)", dp->nb_workers);
		return -ENOTSUP;
	}
	/* Jobs the workers' aggregation pools cannot hold. */
	ret = ibex_dp_agg_check(dp, conf, err, errlen);
	if (ret < 0)
		return ret;
	/* A lossless promise the running pool cannot keep (live keys such
	 * as speed move an auto headroom). */
	return ibex_dp_pool_check(dp, conf, err, errlen);
}

static void
statics_of(const struct ibex_conf *c, struct ibex_fdb_static *s)
{
	uint16_t i;

	for (i = 0; i < c->nb_static; i++) {
		memcpy(s[i].mac, c->statics[i].mac, 6);
		s[i].vid = c->statics[i].vid;
		s[i].port = c->statics[i].port;
	}
}

/*
 * Make the FDB's static entries those of @p conf, whole or not at all
 * (ibex_fdb_set_statics()): a change whose new entries do not fit is
 * refused before any entry is removed, so the switch keeps the old
 * static set and the running config still describes it. Checking first
 * rather than undoing: workers read the FDB without locks, and an undo
 * would show them the half-applied state (an old station flooded, a new
 * one forwarded) before taking it back.
 */
static int
reconf_fdb(struct ibex_dp *dp, const struct ibex_conf *old,
	   const struct ibex_conf *conf, char *err, size_t errlen)
{
	struct ibex_fdb_static *prev, *next;
	struct ibex_fdb_refusal why;
	const struct ibex_conf_fdb_static *s;
	char line[16] = "", what[48];
	int ret;

	prev = malloc(sizeof(*prev) * (old->nb_static + 1u));
	next = malloc(sizeof(*next) * (conf->nb_static + 1u));
	if (prev == NULL || next == NULL) {
		snprintf(err, errlen, "fdb static: out of memory");
		ret = -ENOMEM;
		goto out;
	}
	statics_of(old, prev);
	statics_of(conf, next);
	ret = ibex_fdb_set_statics(dp->fdb, prev, old->nb_static, next,
				   conf->nb_static, &why);
	if (ret == 0)
		goto out;
	if (why.index >= conf->nb_static) {
		snprintf(err, errlen, "fdb static: %s", strerror(-ret));
		goto out;
	}
	s = &conf->statics[why.index];
	/* As lib/conf names an entry: FILE:LINE: fdb static MAC vlan VID
	 * (a statement given live has no line). */
	if (s->line > 0)
		snprintf(line, sizeof(line), ":%d: ", s->line);
	snprintf(what, sizeof(what), "fdb static %02x:%02x:%02x:%02x:%02x:%02x "
		 "vlan %u", s->mac[0], s->mac[1], s->mac[2], s->mac[3],
		 s->mac[4], s->mac[5], s->vid);
	if (ret == -ENOSPC)
		snprintf(err, errlen, "%s%s%s: the change adds %u new entr%s, "
			 "the table has room for %u (fdb max-entries %u: %u "
			 "static, %u learned; the change removes %u); nothing "
			 "changed", s->line > 0 ? conf->origin : "", line, what,
			 why.need, why.need == 1 ? "y" : "ies", why.room,
			 why.max_entries, why.static_entries, why.learned,
			 why.removes);
	else
		snprintf(err, errlen, "%s%s%s: %s; nothing changed",
			 s->line > 0 ? conf->origin : "", line, what,
			 strerror(-ret));
out:
	free(prev);
	free(next);
	return ret;
}

/*
 * Wait until every worker has passed a quiescent state since the swap.
 * rte_rcu_qsbr_synchronize() spins; a worker may share this CPU, so after
 * a first look sleep between looks (once per change, never periodic).
 */
static void
reconf_grace(struct ibex_dp *dp)
{
	uint64_t token = rte_rcu_qsbr_start(dp->qsbr);

	while (rte_rcu_qsbr_check(dp->qsbr, token, false) == 0)
		rte_delay_us_sleep(RECONF_GRACE_SLEEP_US);
}

/* Tables of the next generation after @p old_t for @p conf, with the
 * ports now detached and its eBPF programs loaded. Programs load (and
 * rte_bpf verifies them) before anything changes: a refused one leaves
 * the running one in place. On failure *tp is NULL or to be freed. */
static int
tables_build(struct ibex_dp *dp, const struct ibex_conf *conf,
	     const struct ibex_dp_tables *old_t, struct ibex_dp_tables **tp,
	     char *err, size_t errlen)
{
	int ret;

	*tp = NULL;
	ret = ibex_dp_tables_make(tp, conf, old_t->gen + 1, err, errlen);
	if (ret < 0)
		return ret;
	(*tp)->detached = dp->detached;
	return ibex_dp_tables_bpf(*tp, conf, old_t, err, errlen);
}

/* Publish @p t, wait until no worker reads @p old_t, free it. */
static void
tables_publish(struct ibex_dp *dp, struct ibex_dp_tables *t,
	       struct ibex_dp_tables *old_t)
{
	atomic_store_explicit(&dp->tables, t, memory_order_release);
	ibex_dp_bpf_note(dp, t);
	ibex_dp_ecmp_note(dp, t);
	reconf_grace(dp);
	ibex_dp_tables_free(old_t);
}

int
ibex_dp_reconfigure(struct ibex_dp *dp, const struct ibex_conf *conf,
		    char *err, size_t errlen)
{
	struct ibex_dp_tables *t, *old_t;
	int ret;

	ret = reconf_check(dp, dp->conf, conf, err, errlen);
	if (ret < 0)
		return ret;
	old_t = atomic_load_explicit(&dp->tables, memory_order_relaxed);
	ret = tables_build(dp, conf, old_t, &t, err, errlen);
	if (ret == 0)
		ret = reconf_fdb(dp, dp->conf, conf, err, errlen);
	if (ret < 0) {
		ibex_dp_tables_free(t);
		return ret;
	}
	tables_publish(dp, t, old_t);
	ibex_conf_copy(dp->conf, conf);
	return 0;
}

int
ibex_dp_tables_republish(struct ibex_dp *dp, char *err, size_t errlen)
{
	struct ibex_dp_tables *t, *old_t;
	int ret;

	old_t = atomic_load_explicit(&dp->tables, memory_order_relaxed);
	ret = tables_build(dp, dp->conf, old_t, &t, err, errlen);
	if (ret < 0) {
		ibex_dp_tables_free(t);
		return ret;
	}
	tables_publish(dp, t, old_t);
	return 0;
}
