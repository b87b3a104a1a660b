/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_GEN_REPORT_H
#define IBEX_GEN_REPORT_H

/**
 * @file
 * The generator's results and their reports: tables (nccl-tests
 * style), JSON, CSV and gnuplot plots. Called between runs, never per frame.
 */

#include <stdint.h>
#include <stdio.h>

#include "ibex_gen_coll.h"
#include "ibex_gen_inc.h"
#include "ibex_gen_meas.h"
#include "ibex_gen_opts.h"
#include "ibex_gen_limits.h"

/** Result of one search (one frame size, or the burst search). */
struct ibex_gen_search_res {
	uint32_t size;          /**< frame bytes with FCS */
	uint32_t trials;        /**< NDR and PDR trials together */
	uint32_t short_trials;  /**< of them, trials the generator could not
				     offer at their target rate (a busy
				     host): run again, within --retries */
	double max_pps;         /**< upper end (see docs/benchmarks.md) */
	double flat_tx_pps;     /**< flat-out trial: offered */
	double flat_rx_pps;     /**< flat-out trial: received (capacity) */
	double ndr_pps;         /**< offered rate of the zero-loss trial */
	double pdr_pps;         /**< offered rate of the partial-drop trial */
	double pdr_loss;        /**< its loss fraction */
	double lat_p50_ns;      /**< latency of the NDR (burst: best) trial */
	double lat_p99_ns;
	double lat_max_ns;
	uint32_t burst;         /**< burst search: largest lossless burst */
	uint32_t fail_burst;    /**< smallest burst that lost (0: none) */
	double fail_loss;       /**< its loss fraction */
	uint64_t fail_rx;       /**< frames received of it */
	uint64_t fail_tx;
};

/** Results of one message size. */
struct ibex_gen_size_res {
	uint64_t bytes;          /**< S as moved (rounded up to n) */
	uint32_t iters;          /**< measured iterations completed */
	uint32_t failed;         /**< measured iterations past the timeout */
	uint32_t tried;          /**< iterations started, warm-up included:
				      0 when the size never ran (the sweep
				      stopped before it) */
	uint32_t warm_failed;    /**< warm-up iterations past the timeout */
	uint64_t *ct;            /**< completion time per iteration, ns */
	uint64_t idle_ns;        /**< idle rank time, summed over iterations */
	uint64_t tx_bytes_rank;  /**< rank 0 application bytes per iteration */
	double *step_ns;         /**< [nsteps_max]: completion of each step
				      (slowest rank) since start, summed
				      over iterations */
	double *rank_ns;         /**< [nranks]: finish time per rank,
				      summed over iterations */
	uint64_t late;           /**< straggler delays applied */
};

struct ibex_gen_report_kind;
struct ibex_inc;

/** --fc cbfc: the ranks' ports' CBFC counters, summed (SAI's names,
 * struct ibex_cbfc_stats), and the generator's own. */
struct ibex_gen_cbfc_figs {
	uint64_t cc_update_tx, cc_update_rx; /**< messages (a CC_Update of
						  more than 12 VCs is
						  received as its frames) */
	uint64_t cf_update_tx, cf_update_rx;
	uint64_t stalls;           /**< frames the send rule held back, as
				        credit_stalls */
	uint64_t leaked_recovered; /**< credits CC_Updates freed */
	uint64_t cf_update_bad, cc_update_bad; /**< ignored */
	uint64_t link_resets;      /**< counters started again at 0: a
				        port's link went down */
	uint64_t reset_dropped;    /**< frames a port held then, dropped */
	uint64_t tx_failed;        /**< CBFC frames the pool or the port
				        refused (their messages are in
				        the _tx counts) */
};

/** --engine inc: what the ranks of the in-network all-reduce saw, summed
 * over them (struct ibex_inc_rank_stats). */
struct ibex_gen_inc_figs {
	uint64_t sent;           /**< contributions, first time */
	uint64_t resent;         /**< sent again after --rto */
	uint64_t results;        /**< results taken, every element checked */
	uint64_t wrong;          /**< results with a wrong element */
	uint64_t elems_wrong;    /**< elements that were not the sum */
	uint64_t stale;          /**< results held already */
	uint64_t bad;            /**< refused: not this job's or window's */
	uint16_t njobs;          /**< the jobs run at once (0: not yet) */
	struct {
		uint32_t id;
		uint16_t ranks;
		uint16_t slots;
	} job[IBEX_INC_MAX_JOBS];
};

/** The whole report. */
struct ibex_gen_report {
	const struct ibex_gen_opts *opts;
	/** Sweep, open-loop trial or search: how it prints (set by
	 * ibex_gen_report_init(), private to ibex_gen_report.c). */
	const struct ibex_gen_report_kind *kind;
	uint64_t hz;
	unsigned int nsizes;
	unsigned int nsteps_max;
	struct ibex_gen_size_res size[IBEX_GEN_MAX_SIZES];
	/** Why the sweep stopped before its end (--fail-stop), in words;
	 * "" when it ran to its end or was told to stop. */
	char stop_reason[256];
	/* rate engine */
	double elapsed_s;
	double offered_pps;      /**< what the paced flows were asked for
				      together, last trial (0: none paced) */
	uint64_t pacer_resync;
	double pacer_lost_s;     /**< the longest time a flow's pacer skipped
				      (the generator stalled), last trial */
	/* how well the generator kept up with the clock (every engine) */
	double run_s;            /**< the whole scenario, wall clock */
	uint64_t stall_max;      /**< the longest its loop was away between
				      two housekeeping passes, ticks */
	uint64_t stalls;         /**< times it was away IBEX_GEN_STALL_US or
				      longer */
	/* flow control seen by the senders */
	uint64_t pfc_rx;
	uint64_t pfc_paused_ticks;
	uint64_t credit_rx;
	uint64_t credit_tx;
	uint64_t credit_stalls;
	struct ibex_gen_cbfc_figs cbfc; /**< --fc cbfc */
	struct ibex_gen_inc_figs inc;   /**< --engine inc */
	uint64_t tx_full;        /**< TX bursts the port did not take whole */
	uint64_t dcqcn_cuts;
	double dcqcn_min_rate;   /**< lowest current rate seen (bytes/s) */
	const struct ibex_gen_meas *meas;
	/* open-loop flows: frames offered and received per --flow */
	uint16_t nrflows;
	struct ibex_gen_rflow rflow[IBEX_GEN_MAX_RFLOWS];
	uint64_t rflow_tx[IBEX_GEN_MAX_RFLOWS];
	uint64_t rflow_rx[IBEX_GEN_MAX_RFLOWS];
	/** Per --flow one-way delay, ticks (nrflows of them; NULL: none),
	 * so a victim flow's latency stands apart from the others'. */
	struct ibex_hist *rflow_lat;
	uint64_t tx_dropped;     /**< frames the port refused (--tx-drop) */
	uint64_t stale_rx;       /**< frames of an earlier trial */
	/* searches */
	unsigned int nsearch;
	struct ibex_gen_search_res search[IBEX_GEN_MAX_SEARCH_SIZES];
};

/** A gap in the generator's loop this long (us) or longer is a stall. */
#define IBEX_GEN_STALL_US 1000

/**
 * How far an emulation under the real clock fell behind the wire: the
 * rate the senders were asked for against the rate they sent at, and how
 * often and how long the generator was kept from running (a shared CPU).
 */
struct ibex_gen_emulation {
	bool open_loop;          /**< a paced trial: offered_pps means it */
	bool search;             /**< a search: its trials' rates vary */
	double offered_pps;      /**< frames/s asked for (0: no fixed rate:
				      closed loop, flat out or a search) */
	double achieved_pps;     /**< frames/s sent */
	double secs;             /**< over this time */
	uint64_t resyncs;        /**< pacer resyncs (a flow fell 10 ms
				      behind and skipped ahead) */
	double resync_skipped_us; /**< the most one flow's pacer skipped in
				       all its resyncs */
	uint64_t stalls;         /**< loop gaps >= IBEX_GEN_STALL_US */
	double stall_max_us;     /**< the longest loop gap */
};

/** The emulation figures of a finished run. */
void ibex_gen_emulation_get(const struct ibex_gen_report *rep,
			    struct ibex_gen_emulation *e);
/** One line, "emulation: offered X fps, achieved Y fps (Z%), ...", after
 * @p prefix ("# " in ibex-gen's report, "" in ibex-fabric's). */
void ibex_gen_emulation_print(FILE *f, const char *prefix,
			      const struct ibex_gen_emulation *e);
/** The same as one JSON object (no key, no newline). */
void ibex_gen_emulation_json(FILE *f, const struct ibex_gen_emulation *e);

/**
 * Prepare @p rep for a run (allocates the per-size iteration arrays).
 * @return 0 or -ENOMEM.
 */
int ibex_gen_report_init(struct ibex_gen_report *rep,
			 const struct ibex_gen_opts *o, uint64_t hz,
			 const struct ibex_gen_meas *meas);
void ibex_gen_report_free(struct ibex_gen_report *rep);

/** Record one finished measured iteration of size slot @p si. */
void ibex_gen_report_iter(struct ibex_gen_report *rep, unsigned int si,
			  const struct ibex_coll *c);

/** The same for --engine inc: from its ranks' completion times. */
void ibex_gen_report_iter_inc(struct ibex_gen_report *rep, unsigned int si,
			      const struct ibex_inc *x);

/** Exact quantile of a size's completion times (ns). */
uint64_t ibex_gen_ct_quantile(const struct ibex_gen_size_res *s, double q);

/** Print the tables (nccl-tests style, latency, sequence, flow control). */
void ibex_gen_report_print(FILE *f, const struct ibex_gen_report *rep);
/** Write JSON / CSV. @return 0 or -errno. */
int ibex_gen_report_json(const struct ibex_gen_report *rep, const char *path);
int ibex_gen_report_csv(const struct ibex_gen_report *rep, const char *path);
/** ibex_gen_report_plot(): data and script written, gnuplot not installed. */
#define IBEX_GEN_PLOT_NO_GNUPLOT 1
/**
 * Write the plot data and gnuplot script into @p dir, made with its
 * parents if missing, and run gnuplot (PNG and SVG: latency CDF,
 * completion-time CDF per size).
 * @return 0, IBEX_GEN_PLOT_NO_GNUPLOT, or -errno (a directory or file
 * that cannot be written, gnuplot failing: -EIO).
 */
int ibex_gen_report_plot(const struct ibex_gen_report *rep, const char *dir);

#endif /* IBEX_GEN_REPORT_H */
