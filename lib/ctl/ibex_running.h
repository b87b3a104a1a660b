/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_RUNNING_H
#define IBEX_RUNNING_H

/**
 * @file
 * The running configuration of one switch and its only owner: the config
 * itself, its text ("show config"), the history of accepted changes
 * ("show history"), the lock that guards it against the telemetry thread,
 * and the one path by which it changes.
 *
 * Every change takes that path, whoever asks for it: a statement from the
 * control socket (ibex_running_change()), the "reload" command and SIGHUP
 * (ibex_running_reload()). The candidate is built in a scratch copy and
 * validated as a whole (ibex_cmd.h), handed to the data path
 * (ibex_dp_reconfigure(): new tables, pointer swap, RCU grace period),
 * and only when the data path took it is it copied into the running
 * config, under the lock, and written to the text and the history. A
 * change refused at any step leaves all three as they were.
 *
 * Threads: the control thread is the only writer, and reads the config
 * (ibex_running_conf()) without the lock. Another thread that reads it
 * (the telemetry thread, for /ibex/lanes) holds ibex_running_lock() while
 * it does; the control thread holds it only while it copies an accepted
 * change in. The text and the history are the control thread's alone.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct ibex_conf;
struct ibex_dp;
struct ibex_running;

/** Accepted changes the history keeps (the newest). */
#define IBEX_RUNNING_HISTORY 64

/**
 * Take over @p conf (copied) as the running config of @p dp. The text
 * starts as the statements of @p config_path, or, without a file (or when
 * it cannot be read), one "port NAME dev DEV" per port.
 * @param config_path the file "reload" re-reads; NULL: none.
 * @return 0 or -ENOMEM.
 */
int ibex_running_create(struct ibex_running **rp, struct ibex_dp *dp,
			const struct ibex_conf *conf, const char *config_path);

/** Free everything (NULL: nothing). */
void ibex_running_destroy(struct ibex_running *r);

/**
 * The running config. The pointer stays the same for the life of @p r
 * (accepted changes are copied into it); the control thread reads it
 * freely, any other thread only under ibex_running_lock().
 */
const struct ibex_conf *ibex_running_conf(const struct ibex_running *r);

/** The config file "reload" re-reads, or NULL. */
const char *ibex_running_config_path(const struct ibex_running *r);

/** Hold the running config still (for a thread other than the control
 * thread); held briefly, never across a call into the data path. */
void ibex_running_lock(struct ibex_running *r);
void ibex_running_unlock(struct ibex_running *r);

/**
 * Apply one statement live: parse @p stmt into a copy of the running
 * config, validate it, reconfigure the data path, commit. Messages start
 * with @p verb ("set: port p9: ..."). @return 0 or -errno with the reason
 * in @p err; then nothing changed.
 */
int ibex_running_change(struct ibex_running *r, const char *stmt,
			const char *verb, char *err, size_t errlen);

/**
 * Re-read the config file and apply it whole (ibex_cmd_conf_reload():
 * what looks like an accident is refused unless @p force). The text
 * becomes the file's statements. @return 0 or -errno with the reason in
 * @p err ("reload: file:line: reason"); then nothing changed.
 */
int ibex_running_reload(struct ibex_running *r, bool force, char *err,
			size_t errlen);

/** Ask for a reload at the next ibex_running_poll() (async-signal-safe:
 * for SIGHUP). One request for the process: the first poll takes it. */
void ibex_running_request_reload(void);

/** Whether a reload request waits for ibex_running_poll(). */
bool ibex_running_reload_pending(void);

/**
 * Act on a pending reload request: reload (never forced) and log the
 * result ("SIGHUP: reloaded FILE" or "SIGHUP: REASON; the running
 * configuration is unchanged"). Called from the control loop.
 */
void ibex_running_poll(struct ibex_running *r);

/** The running config as statements, each once (ibex_runtext.h): never
 * NULL. */
const char *ibex_running_text(const struct ibex_running *r);

/** Changes accepted since the start (reloads included). */
uint64_t ibex_running_changes(const struct ibex_running *r);

/**
 * The accepted change number @p seq (1 is the first), and when it was
 * accepted in *@p when: "reload" for a reload, otherwise its statement.
 * @return NULL when @p seq is 0, not yet accepted or older than the
 * newest IBEX_RUNNING_HISTORY.
 */
const char *ibex_running_history(const struct ibex_running *r, uint64_t seq,
				 time_t *when);

#endif /* IBEX_RUNNING_H */
