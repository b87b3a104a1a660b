/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_GEN_BUILTIN_H
#define IBEX_GEN_BUILTIN_H

/**
 * @file
 * The built-in mode of ibex-switch: the generator's runner attached to
 * the switch through in-process net_ring port pairs, on an EAL lcore of
 * its own.
 */

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ibex_gen_run.h"

struct ibex_gen_builtin;
struct ibex_conf;

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
 * Instead of ibex_gen_builtin_attach(): the generator's ranks are the
 * ethdevs @p port_ids (rank i on port i mod @p n; ibex-fabric gives one per
 * rank, each the far end of a rank's link), with the MACs @p rank_mac (the
 * scenario's rank count of them, kept by the caller until the run is
 * freed; NULL: the defaults), on the last EAL worker lcore. @return 0 or
 * -errno with a message.
 */
int ibex_gen_builtin_use_ports(struct ibex_gen_builtin *g,
			       const uint16_t *port_ids, unsigned int n,
			       const uint8_t (*rank_mac)[6], char *err,
			       size_t errlen);

/** Whether the generator runs --engine inc. */
bool ibex_gen_builtin_is_inc(const struct ibex_gen_builtin *g);

/** --engine inc on a fabric: the aggregation jobs the ranks take part in,
 * at once, as the fabric manager planned them, over the generator's own
 * --agg-* options: rank 0's job id and the largest slots, the elements a
 * packet, and per rank (arrays kept by the caller) its child index at its
 * leaf, its job id and its job's slots. */
void ibex_gen_builtin_set_agg(struct ibex_gen_builtin *g, uint32_t job,
			      uint32_t slots, uint32_t elements,
			      const uint16_t *child, const uint32_t *rank_job,
			      const uint16_t *rank_slots);

/** Leave out the ranks' hello broadcasts (ibex_gen_opts.no_hello): the
 * switches route every rank statically, and at thousands of ranks the
 * hellos' floods are most of a simulated run's frames. */
void ibex_gen_builtin_set_no_hello(struct ibex_gen_builtin *g);

/** How long the end of a trial waits for frames still in the device under
 * test (ibex_gen_opts.drain_quiet_ms, drain_max_ms). */
void ibex_gen_builtin_set_drain(struct ibex_gen_builtin *g, uint32_t quiet_ms,
				uint32_t max_ms);

/**
 * Make the ranks' flow control the links' (ibex-fabric --fc): with
 * @p credit the ranks' ports speak ibex credits on VL @p vl, as if the
 * scenario said "--fc credit --vl VL"; a scenario that says otherwise
 * (--fc pfc, --fc cbfc, another --vl) is refused, and so are --fc credit
 * and --fc cbfc on links that give no credits. Call before the run is
 * created.
 * @return 0, or -EINVAL with the reason in @p err.
 */
int ibex_gen_builtin_credit_links(struct ibex_gen_builtin *g, bool credit,
				  unsigned int vl, char *err, size_t errlen);

/**
 * The same for links that speak UEC CBFC (ibex-fabric --fc cbfc; call it
 * instead of ibex_gen_builtin_credit_links()): the ranks' ports speak
 * CBFC with VL @p vl as their traffic's VC and @p limit_credits as each
 * VC's credit limit (--cbfc-limit: the switch lane's buffer, in credits of
 * --cbfc-credit-size bytes), as if the scenario said "--fc cbfc --vl VL
 * --cbfc-limit N". A scenario that says --fc pfc or --fc credit, or
 * another --vl with --fc cbfc, is refused. Call before the run is created.
 * @return 0, or -EINVAL with the reason in @p err.
 */
int ibex_gen_builtin_cbfc_links(struct ibex_gen_builtin *g, unsigned int vl,
				uint32_t limit_credits, char *err,
				size_t errlen);

/** With ibex_gen_builtin_cbfc_links(): the credits' unit, the frame
 * overhead and the CC_Update period of the switch ports the ranks face,
 * so that a rank counts a frame's credits as they do. */
void ibex_gen_builtin_cbfc_units(struct ibex_gen_builtin *g,
				 uint16_t credit_size, int16_t overhead,
				 uint32_t cc_timer_us);

/** The scenario's rank count (--ranks). */
unsigned int ibex_gen_builtin_ranks(const struct ibex_gen_builtin *g);

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

struct ibex_gen_report;

/** The generator's results (ibex_gen_report.h), after
 * ibex_gen_builtin_report(); NULL when it never ran. */
const struct ibex_gen_report *
ibex_gen_builtin_rep(const struct ibex_gen_builtin *g);

/** Free the generator and close its ports. NULL is fine. */
void ibex_gen_builtin_free(struct ibex_gen_builtin *g);

/** The same for the built-in generator, before ibex_gen_builtin_start(). */
void ibex_gen_builtin_set_meta(struct ibex_gen_builtin *g, const char *meta);

/** ibex_gen_run_set_rx_idle() for the built-in generator's run, before
 * ibex_gen_builtin_start() (ibex-fabric under the virtual clock). */
void ibex_gen_builtin_set_rx_idle(struct ibex_gen_builtin *g,
				  ibex_gen_rx_idle_fn fn, void *arg);

/** ibex_gen_run_progress() of the built-in generator's run (-1 before
 * it starts). */
double ibex_gen_builtin_progress(const struct ibex_gen_builtin *g);

/** ibex_gen_run_port_wake() for the built-in generator's run; nothing
 * before the run exists (its first turn visits every port). */
void ibex_gen_builtin_port_wake(struct ibex_gen_builtin *g, unsigned int port);

#endif /* IBEX_GEN_BUILTIN_H */
