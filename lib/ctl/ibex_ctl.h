/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_CTL_H
#define IBEX_CTL_H

/**
 * @file
 * The control thread: runs on the main lcore while the workers forward.
 * It owns the FDB (applies learn requests, ages entries), keeps the coarse
 * clock the workers read, publishes telemetry, prints periodic and final
 * reports, and decides when to stop.
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

/** Ask the control loop to stop (async-signal-safe). */
void ibex_ctl_request_stop(void);

/** Whether a stop was asked for (a signal during start-up waits). */
bool ibex_ctl_stop_requested(void);

/** Run the control loop until a stop is requested or the duration ends.
 * Sets dp->stop on return so workers leave their loops. */
void ibex_ctl_run(struct ibex_dp *dp, const struct ibex_ctl_opts *opts);

/** Print the per-port counters and drop reasons as a table. */
void ibex_ctl_print_summary(FILE *f, const struct ibex_dp *dp,
			    double elapsed_s);

/** Write the same figures as JSON. @return 0 or -errno. */
int ibex_ctl_write_json(const char *path, const struct ibex_dp *dp,
			double elapsed_s);

/** Register the /ibex/ telemetry commands. @return 0 or -errno. */
int ibex_telemetry_register(struct ibex_dp *dp);

#endif /* IBEX_CTL_H */
