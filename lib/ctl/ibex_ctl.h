/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_CTL_H
#define IBEX_CTL_H

/**
 * @file
 * The control thread: runs on the main lcore while the workers forward.
 * It owns the FDB (applies learn requests, ages entries), publishes
 * telemetry, prints periodic and final reports, and decides when to stop.
 * It sleeps until there is work (docs/design.md, "Threads and wake-ups").
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct ibex_dp;
struct ibex_conf;
struct ibex_sock;

struct ibex_ctl_opts {
	struct ibex_sock *sock;   /**< control socket and reloads; NULL: none */
	uint32_t stats_period_ms; /**< 0: no periodic line */
	uint32_t duration_ms;     /**< 0: until SIGINT/SIGTERM */
	uint32_t idle_stop_ms;    /**< 0: off; else stop after this long with no RX */
};

/** Ask the control loop to stop and wake it (async-signal-safe; any
 * thread, e.g. the built-in generator's lcore when its scenario ends). */
void ibex_ctl_request_stop(void);

/**
 * Block SIGINT, SIGTERM and SIGHUP in the calling thread, so that the
 * control loop takes them from its signalfd. Call it before rte_eal_init()
 * so every thread EAL starts inherits the mask. @return 0 or -errno.
 */
int ibex_ctl_block_signals(void);

/** Wait for every worker lcore to return, sleeping (CTL_WAIT_LCORE_US)
 * instead of spinning as rte_eal_mp_wait_lcore() does: the main lcore
 * may share a CPU with the lcores it waits for. */
void ibex_ctl_wait_lcores(void);

/** Whether a stop was asked for, or SIGINT/SIGTERM is pending while the
 * control loop has not started yet (start-up waits such as --wait-links). */
bool ibex_ctl_stop_requested(void);

/** Run the control loop until a stop is requested or the duration ends.
 * Sets dp->stop on return so workers leave their loops. */
void ibex_ctl_run(struct ibex_dp *dp, const struct ibex_ctl_opts *opts);

/** One switch the control loop serves: its data path and its control
 * socket (NULL: none). */
struct ibex_ctl_switch {
	struct ibex_dp *dp;
	struct ibex_sock *sock;
};

/**
 * The same loop for several switches in one process (ibex-fabric): one
 * thread, one set of wake-ups (signals, one timer for every switch's jobs,
 * one eventfd all their workers write to learn), every switch's socket.
 * @p opts->sock is not used; the duration, idle stop and stats period
 * count the frames of all switches. Sets every dp->stop on return.
 */
void ibex_ctl_run_switches(const struct ibex_ctl_switch *sw, unsigned int n,
			   const struct ibex_ctl_opts *opts);

/** Print the per-port counters and drop reasons as a table. */
void ibex_ctl_print_summary(FILE *f, const struct ibex_dp *dp,
			    double elapsed_s);

/** Write the same figures as JSON. @return 0 or -errno. */
int ibex_ctl_write_json(const char *path, const struct ibex_dp *dp,
			double elapsed_s);

/**
 * The same with a "meta" object first (@p meta: JSON text, or NULL) and
 * more members last (@p extra: '"name": value' text, comma-separated, or
 * NULL): what ibex-switch --json writes. @p extra, when given, holds the
 * "ports" (ibex_sock_json_sections()); else they are written here, each
 * its name and counters. @return 0 or -errno.
 */
int ibex_ctl_write_json_ext(const char *path, const struct ibex_dp *dp,
			    double elapsed_s, const char *meta,
			    const char *extra);

/**
 * The process's meta block (ibex_meta_json(), docs/results.md): what the
 * control socket's "version --json" answers, and so the "meta" member
 * ibex-ctl -j puts first in each of its documents. @p meta is JSON text
 * the caller keeps until the sockets are gone; NULL: "version --json"
 * answers version, git, dpdk and schema only. Call before the control
 * loop runs.
 */
void ibex_ctl_set_meta(const char *meta);
/** The text given to ibex_ctl_set_meta(), or NULL. */
const char *ibex_ctl_meta(void);

/** Register the /ibex/ telemetry commands. @return 0 or -errno. */
int ibex_telemetry_register(struct ibex_dp *dp);

struct ibex_running;

/**
 * Where telemetry reads switch @p dp's running config (the topics of
 * ibex_topics.h need it): from its owner @p run, under
 * ibex_running_lock(). A NULL @p run forgets the switch (its topics then
 * answer -EINVAL). @return 0 or -ENOSPC.
 */
int ibex_telemetry_set_running(struct ibex_dp *dp, struct ibex_running *run);

/** Most switches of one process with telemetry commands of their own:
 * DPDK keeps every command in one sorted array, each insertion moves
 * the ones after it, and each command costs ~200 bytes. */
#define IBEX_TELEMETRY_SWITCHES_MAX 64

/** Register them again as /ibex/NAME/... for switch @p name of an
 * ibex-fabric process (ibex_telemetry_register() gives the first switch
 * the plain names). @return 0, -ENOSPC past IBEX_TELEMETRY_SWITCHES_MAX
 * switches, or -errno. */
int ibex_telemetry_register_switch(struct ibex_dp *dp, const char *name);

#endif /* IBEX_CTL_H */
