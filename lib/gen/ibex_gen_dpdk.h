/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_GEN_DPDK_H
#define IBEX_GEN_DPDK_H

/**
 * @file
 * The generator on DPDK: one lcore runs every emulated rank on the ethdev
 * ports it is given (any PMD), TX paced and flow-control aware, RX parsing
 * the probe trailer; and the built-in mode of ibex-switch, where the same
 * runner attaches to the switch through in-process net_ring port pairs.
 *
 * Threading: a run is created and reported on by the main lcore and
 * driven by exactly one lcore (ibex_gen_run_main); the only thing shared
 * while it runs is the stop flag (C11 atomic).
 */

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "ibex_gen.h"

struct ibex_gen_run;
struct ibex_conf;

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

/** Stop and close the ports, free everything (after the lcore returned). */
void ibex_gen_run_free(struct ibex_gen_run *r);

/* ---- built-in mode of ibex-switch ---- */

struct ibex_gen_builtin;

/**
 * Take the generator's options out of the switch's: "--gen SPEC" or
 * "--gen=SPEC", SPEC being ibex-gen options in one word separated by
 * spaces (e.g. --gen "--engine ring --ranks 8 -b 64K -e 1M"), plus
 * "--gen-ports N" (ring port pairs, default min(ranks, 8)). The words are
 * removed from argv and *argc lowered.
 * @return 0 (*gp NULL when no --gen was given), 1 after --gen --help, or
 *   -EINVAL with a message on stderr.
 */
int ibex_gen_builtin_parse(int *argc, char **argv, struct ibex_gen_builtin **gp);

/**
 * Create the in-process port pairs (net_ring: "genI" for the switch,
 * "genI_peer" for the generator) and add the switch sides to @p conf as
 * ports genI (unless the configuration names them already); reserve the
 * last EAL worker lcore for the generator (conf->nb_workers = worker
 * lcores - 1 when it was 0). Call after the config is loaded and before
 * the data path is created. @return 0 or -errno with a message.
 */
int ibex_gen_builtin_attach(struct ibex_gen_builtin *g, struct ibex_conf *conf,
			    char *err, size_t errlen);

/**
 * Start the generator on its lcore; @p done is called from that lcore when
 * the scenario ends (e.g. ibex_ctl_request_stop), and the scenario stops
 * early when *@p stop becomes true. @return 0 or -errno.
 */
int ibex_gen_builtin_start(struct ibex_gen_builtin *g, void (*done)(void),
			   const _Atomic bool *stop);

/**
 * End the scenario now, as if its time were up (ibex-switch's SIGUSR1): the
 * senders stop, the frames in flight are still received (the rate engine
 * listens until the switch is empty), then @p done runs as at a normal
 * end. For tests whose load must last exactly as long as their work.
 * Async-signal-safe (one atomic store); a no-op before ibex_gen_builtin_start().
 */
void ibex_gen_builtin_end(struct ibex_gen_builtin *g);

/** Print the generator's report and write its files (after the lcore
 * returned). @return as ibex_gen_run_report(). */
int ibex_gen_builtin_report(struct ibex_gen_builtin *g, FILE *f);

/** Free the generator and close its ports. NULL is fine. */
void ibex_gen_builtin_free(struct ibex_gen_builtin *g);

/** The JSON report's "meta" object (ibex_meta_json()); kept, not copied. */
void ibex_gen_run_set_meta(struct ibex_gen_run *r, const char *meta);
/** The same for the built-in generator, before ibex_gen_builtin_start(). */
void ibex_gen_builtin_set_meta(struct ibex_gen_builtin *g, const char *meta);

/**
 * @p argv joined with spaces (the command line as given, before EAL
 * reorders it): malloc'ed, or NULL.
 */
char *ibex_meta_cmdline(int argc, char **argv);

/**
 * The "meta" object of every JSON ibex-switch and ibex-gen write
 * (docs/results.md): schema version, @p tool, ibex version and git
 * describe, DPDK version, @p cmdline, @p start (UTC), host, TSC Hz and
 * every ethdev with its PMD. Call after EAL probed the ports.
 * @return malloc'ed JSON text, or NULL (out of memory).
 */
char *ibex_meta_json(const char *tool, const char *cmdline, time_t start);

#endif /* IBEX_GEN_DPDK_H */
