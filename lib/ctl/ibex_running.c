/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The running configuration and the one path by which it changes
 * (ibex_running.h): a change, a reload and SIGHUP all end in
 * running_commit().
 *
 * Lock: r->lock guards r->conf against readers on other threads (the
 * telemetry thread). The control thread, the only writer, takes it only
 * around the copy of an accepted candidate into r->conf, after the data
 * path took that candidate; it never holds it while calling out.
 */

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_log.h>

#include "ibex_cmd.h"
#include "ibex_conf.h"
#include "ibex_dp.h"
#include "ibex_running.h"
#include "ibex_runtext.h"

RTE_LOG_REGISTER(ibex_running_logtype, ibex.ctl.running, INFO);
#define RTE_LOGTYPE_IBEX_RUNNING ibex_running_logtype

struct ibex_running {
	struct ibex_dp *dp;
	struct ibex_conf *conf;     /* running */
	struct ibex_conf *cand;     /* scratch: the candidate of a change */
	pthread_mutex_t lock;       /* conf vs other threads' readers */
	char *config_path;          /* NULL: started without a file */
	struct ibex_runtext text;   /* conf as statements, each once */
	char *hist_stmt[IBEX_RUNNING_HISTORY]; /* ring of accepted changes */
	time_t hist_time[IBEX_RUNNING_HISTORY];
	uint64_t nb_changes;        /* changes accepted since start */
};

/* Set by the signal handler's side (ibex_ctl.c reads the signalfd), taken
 * by the next poll. */
static volatile sig_atomic_t reload_requested;

void
ibex_running_request_reload(void)
{
	reload_requested = 1;
}

bool
ibex_running_reload_pending(void)
{
	return reload_requested != 0;
}

const struct ibex_conf *
ibex_running_conf(const struct ibex_running *r)
{
	return r->conf;
}

const char *
ibex_running_config_path(const struct ibex_running *r)
{
	return r->config_path;
}

void
ibex_running_lock(struct ibex_running *r)
{
	pthread_mutex_lock(&r->lock);
}

void
ibex_running_unlock(struct ibex_running *r)
{
	pthread_mutex_unlock(&r->lock);
}

const char *
ibex_running_text(const struct ibex_running *r)
{
	return ibex_runtext_str(&r->text);
}

uint64_t
ibex_running_changes(const struct ibex_running *r)
{
	return r->nb_changes;
}

const char *
ibex_running_history(const struct ibex_running *r, uint64_t seq,
		     time_t *when)
{
	unsigned int k;

	if (seq == 0 || seq > r->nb_changes ||
	    r->nb_changes - seq >= IBEX_RUNNING_HISTORY)
		return NULL;
	k = (unsigned int)((seq - 1) % IBEX_RUNNING_HISTORY);
	*when = r->hist_time[k];
	/* Accepted, but its copy found no memory. */
	return r->hist_stmt[k] != NULL ? r->hist_stmt[k] : "?";
}

static void
history_add(struct ibex_running *r, const char *stmt)
{
	unsigned int i = (unsigned int)(r->nb_changes % IBEX_RUNNING_HISTORY);

	free(r->hist_stmt[i]);
	r->hist_stmt[i] = strdup(stmt);
	r->hist_time[i] = time(NULL);
	r->nb_changes++;
}

/* The start of "show config": the file's statements, or the ports EAL
 * probed when there is no file. */
static void
text_at_start(struct ibex_running *r)
{
	uint16_t i;

	if (r->config_path != NULL &&
	    ibex_cmd_conf_text(&r->text.text, r->config_path) == 0)
		return;
	for (i = 0; i < r->conf->nb_ports; i++)
		ibex_out_printf(&r->text.text, "port %s dev %s\n",
				r->conf->ports[i].name,
				ibex_conf_port_dev(&r->conf->ports[i]));
}

/*
 * Make r->cand the running config: the data path first (it refuses what
 * cannot change live and then nothing changed), then our copy, its text
 * and the history. @p stmt is the statement to add to the text, or NULL
 * for a reload of config_path.
 */
static int
running_commit(struct ibex_running *r, const char *stmt, const char *verb,
	       char *err, size_t errlen)
{
	char msg[IBEX_CONF_ERR_LEN];
	int ret;

	if (strcmp(r->cand->ctl_socket, r->conf->ctl_socket) != 0) {
		if (stmt != NULL) {
			snprintf(err, errlen, "%s: switch ctl-socket: cannot "
				 "move while running (restart to move it)", verb);
			return -ENOTSUP;
		}
		/* A reload keeps the socket where clients find it. */
		memcpy(r->cand->ctl_socket, r->conf->ctl_socket,
		       sizeof(r->conf->ctl_socket));
		RTE_LOG(NOTICE, IBEX_RUNNING, "reload: switch ctl-socket takes "
			"effect at restart\n");
	}
	/* A change that changes nothing needs no new tables. */
	ret = memcmp(r->cand, r->conf, sizeof(*r->conf)) == 0 ? 0 :
	      ibex_dp_reconfigure(r->dp, r->cand, msg, sizeof(msg));
	if (ret < 0) {
		snprintf(err, errlen, "%s: %s", verb, msg);
		return ret;
	}
	pthread_mutex_lock(&r->lock);
	memcpy(r->conf, r->cand, sizeof(*r->conf));
	pthread_mutex_unlock(&r->lock);
	if (stmt != NULL) {
		ibex_runtext_add(&r->text, stmt);
		history_add(r, stmt);
	} else {
		history_add(r, "reload");
		ibex_out_reset(&r->text.text);
		if (ibex_cmd_conf_text(&r->text.text, r->config_path) < 0)
			ibex_out_printf(&r->text.text, "# %s: unreadable\n",
					r->config_path);
	}
	RTE_LOG(INFO, IBEX_RUNNING, "applied: %s\n",
		stmt != NULL ? stmt : r->config_path);
	return 0;
}

int
ibex_running_change(struct ibex_running *r, const char *stmt,
		    const char *verb, char *err, size_t errlen)
{
	int ret = ibex_cmd_conf_change(r->conf, stmt, verb, r->cand, err,
				       errlen);

	return ret < 0 ? ret : running_commit(r, stmt, verb, err, errlen);
}

int
ibex_running_reload(struct ibex_running *r, bool force, char *err,
		    size_t errlen)
{
	char msg[IBEX_CONF_ERR_LEN];
	int ret;

	if (r->config_path == NULL) {
		snprintf(err, errlen, "reload: no config file (the switch "
			 "was started without --config)");
		return -ENOENT;
	}
	ret = ibex_cmd_conf_reload(r->conf, r->config_path, force, r->cand,
				   msg, sizeof(msg));
	if (ret < 0) {
		snprintf(err, errlen, "reload: %s", msg);
		return ret;
	}
	return running_commit(r, NULL, "reload", err, errlen);
}

void
ibex_running_poll(struct ibex_running *r)
{
	char err[512];

	if (!reload_requested)
		return;
	reload_requested = 0;
	/* A signal is never a --force. */
	if (ibex_running_reload(r, false, err, sizeof(err)) < 0)
		RTE_LOG(ERR, IBEX_RUNNING, "SIGHUP: %s; the running "
			"configuration is unchanged\n", err);
	else
		RTE_LOG(NOTICE, IBEX_RUNNING, "SIGHUP: reloaded %s\n",
			r->config_path);
}

int
ibex_running_create(struct ibex_running **rp, struct ibex_dp *dp,
		    const struct ibex_conf *conf, const char *config_path)
{
	struct ibex_running *r;
	int ret;

	r = calloc(1, sizeof(*r));
	if (r == NULL)
		return -ENOMEM;
	pthread_mutex_init(&r->lock, NULL);
	r->dp = dp;
	r->conf = malloc(sizeof(*r->conf));
	r->cand = malloc(sizeof(*r->cand));
	r->config_path = config_path != NULL ? strdup(config_path) : NULL;
	ret = ibex_runtext_init(&r->text);
	if (ret == 0 && (r->conf == NULL || r->cand == NULL ||
	    (config_path != NULL && r->config_path == NULL)))
		ret = -ENOMEM;
	if (ret < 0) {
		ibex_running_destroy(r);
		return ret;
	}
	memcpy(r->conf, conf, sizeof(*r->conf));
	text_at_start(r);
	*rp = r;
	return 0;
}

void
ibex_running_destroy(struct ibex_running *r)
{
	unsigned int i;

	if (r == NULL)
		return;
	ibex_runtext_free(&r->text);
	free(r->config_path);
	free(r->conf);
	free(r->cand);
	for (i = 0; i < IBEX_RUNNING_HISTORY; i++)
		free(r->hist_stmt[i]);
	pthread_mutex_destroy(&r->lock);
	free(r);
}
