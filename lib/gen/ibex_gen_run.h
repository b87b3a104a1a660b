/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_GEN_RUN_H
#define IBEX_GEN_RUN_H

/**
 * @file
 * The generator on DPDK: one lcore runs every emulated rank on the ethdev
 * ports it is given (any PMD), TX paced and flow-control aware, RX parsing
 * the probe trailer. The engine (a collective or the open-loop rate
 * engine) is chosen once, at create.
 *
 * Threading: a run is created and reported on by the main lcore and
 * driven by exactly one lcore (ibex_gen_run_main); the only thing shared
 * while it runs is the stop flag (C11 atomic).
 */

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ibex_gen_meas.h"
#include "ibex_gen_opts.h"
#include "ibex_gen_report.h"

struct ibex_gen_run;

/**
 * Configure and start @p nports ethdevs (one RX and one TX queue each) and
 * set up ranks (rank i on port i mod nports), templates, pool and state.
 * @return 0 or -errno with a message in @p err.
 */
int ibex_gen_run_create(struct ibex_gen_run **rp, const struct ibex_gen_opts *o,
			const uint16_t *port_ids, unsigned int nports,
			char *err, size_t errlen);

/** lcore entry point: run the whole scenario; arg is the run. Returns 0. */
int ibex_gen_run_main(void *arg);

/** Ask a running scenario to stop soon (any thread, signal-safe). */
void ibex_gen_run_stop(struct ibex_gen_run *r);

/** Also stop when *@p flag becomes true (e.g. the switch's stop flag). */
void ibex_gen_run_watch(struct ibex_gen_run *r, const _Atomic bool *flag);

/**
 * Print the report to @p f and write the JSON, CSV and plots the options
 * ask for. @return 0 when the run was clean (every iteration completed,
 * no frame lost), 1 when not, -errno when a file could not be written.
 */
int ibex_gen_run_report(struct ibex_gen_run *r, FILE *f);

/** The measurement and report objects (tests). */
const struct ibex_gen_meas *ibex_gen_run_meas(const struct ibex_gen_run *r);
const struct ibex_gen_report *ibex_gen_run_rep(const struct ibex_gen_run *r);
/** Sub-flow index of queue pair 0 of pair (@p src, @p dst) in the
 * measurement's tables (tests). @return -1: the run does not use it. */
int32_t ibex_gen_run_subflow(const struct ibex_gen_run *r, unsigned int src,
			     unsigned int dst);

/**
 * Under the virtual clock: @p fn(@p arg, i) tells whether a receive at
 * the run's port i would find nothing (no frame, nothing staged), and the
 * loop skips that port's receive; exact, so the run's results are the
 * same. NULL (the default): every port is polled every turn. Before
 * ibex_gen_run_main().
 *
 * With @p fn, a collective without credits also takes sparse turns: a
 * turn visits only the ports that have work of their own or had an event
 * since (ibex_gen_run_port_wake()), so an idle rank costs nothing. The
 * caller then tells of every event at a port: a frame's arrival, its
 * sending side able to take frames again.
 */
typedef bool (*ibex_gen_rx_idle_fn)(void *arg, unsigned int port);
void ibex_gen_run_set_rx_idle(struct ibex_gen_run *r, ibex_gen_rx_idle_fn fn,
			      void *arg);

/** Port @p port has an event now (see ibex_gen_run_set_rx_idle()); the
 * executive's thread, the run's lcore. */
void ibex_gen_run_port_wake(struct ibex_gen_run *r, unsigned int port);

/** How far a collective run got, 0 to 1: its iterations done, each
 * weighed by its bytes, and the ranks' steps in the current one; -1 for
 * other engines. The run's own lcore (e.g. the executive's progress). */
double ibex_gen_run_progress(const struct ibex_gen_run *r);

/** Stop and close the ports, free everything (after the lcore returned). */
void ibex_gen_run_free(struct ibex_gen_run *r);

/** The JSON report's "meta" object (ibex_meta_json()); kept, not copied. */
void ibex_gen_run_set_meta(struct ibex_gen_run *r, const char *meta);

#endif /* IBEX_GEN_RUN_H */
