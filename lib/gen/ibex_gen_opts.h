/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_GEN_OPTS_H
#define IBEX_GEN_OPTS_H

/**
 * @file
 * Everything a generator run is configured with, its defaults and its
 * parser: one table of options (name, argument, parser, help) drives both
 * getopt_long and the usage text. ibex-gen and ibex-switch --gen take the
 * same words.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ibex_gen_coll.h"
#include "ibex_gen_engine.h"
#include "ibex_gen_frame.h"
#include "ibex_gen_limits.h"

/** One open-loop flow of the rate engine. */
struct ibex_gen_rflow {
	uint16_t src;      /**< sending rank */
	uint16_t dst;      /**< receiving rank */
	double pps;        /**< its rate; 0: an equal share of --rate */
	int8_t cls;        /**< its class (@C): PCP (or DSCP: --class-by),
				PFC priority and credit VL C; -1: the run's
				(--pcp, --prio, --vl) */
};

/** What carries a flow's class to the switch (--class-by). */
enum ibex_gen_class_by {
	IBEX_GEN_CLASS_PCP = 0,  /**< the 802.1Q PCP: classes 0..7 */
	IBEX_GEN_CLASS_DSCP,     /**< the IP DSCP: classes 0..14, a lane each
				      (the switch port in `sl-from dscp`) */
};

enum ibex_gen_search_kind {
	IBEX_GEN_SEARCH_NONE = 0,
	IBEX_GEN_SEARCH_RATE,   /**< RFC 2544: NDR and PDR per frame size */
	IBEX_GEN_SEARCH_BURST,  /**< RFC 8239: largest burst without loss */
};

/** Parse a --flow list "S:D[:PPS][@C],..." into @p o. @return 0 or
 * -EINVAL. */
struct ibex_gen_opts;
int ibex_gen_flows_parse(struct ibex_gen_opts *o, const char *s);

enum ibex_gen_fc {
	IBEX_GEN_FC_NONE = 0,
	IBEX_GEN_FC_PFC,     /**< obey 802.1Qbb frames received on the port */
	IBEX_GEN_FC_CREDIT,  /**< ibex credits (EtherType 0x88B5) */
	IBEX_GEN_FC_CBFC,    /**< UEC CBFC, as a NIC (docs/cbfc.md) */
};

/** --fc cbfc: the VCs of a rank's port, the data VLs (VL0..VL14, as --vl
 * and the credit frames take them): every VL the ranks use is one, and
 * each is lossless at both ends. */
#define IBEX_GEN_CBFC_VCS 15
/** --cbfc-limit's default: 128 KiB of 128-byte credits. */
#define IBEX_GEN_CBFC_LIMIT_DEF 1024

/** Everything a run is configured with (ibex-gen options). */
struct ibex_gen_opts {
	const struct ibex_gen_engine *engine; /**< --engine (never NULL) */
	uint16_t nranks;
	uint16_t root;
	uint64_t min_bytes;      /**< -b */
	uint64_t max_bytes;      /**< -e */
	uint32_t factor;         /**< -f */
	uint32_t iters;
	uint32_t warmup;
	struct ibex_gen_straggler straggler; /**< delay in microseconds here */
	double straggler_us;
	uint64_t seed;
	double rate_pps;         /**< rate engine: total frames/s (0 = as fast as possible) */
	uint32_t burst;          /**< rate engine: frames per departure */
	bool poisson;
	double duration_s;       /**< rate engine */
	uint64_t max_frames;     /**< rate engine: stop once this many were
				      sent, all flows together (0: no limit;
				      --duration still caps the run) */
	uint32_t frame_size;     /**< rate engine: frame length */
	uint32_t mtu;            /**< largest frame, bytes without FCS */
	uint32_t qps;            /**< queue pairs per connection, 1 ..
				      IBEX_GEN_MAX_QPS: a flow's frames take
				      them in turn, each QP its own UDP source
				      port (ECMP entropy) and PSNs */
	struct ibex_gen_frame_opts frame;
	enum ibex_gen_fc fc;
	uint8_t prio;            /**< PFC priority of our traffic */
	uint8_t vl;              /**< credit VL of our traffic */
	uint8_t class_by;        /**< enum ibex_gen_class_by */
	/* --fc cbfc (ibex_gen_cbfc_conf()) */
	uint32_t cbfc_limit;     /**< S_CL of every VC, credits: the switch
				      lane's buffer */
	uint16_t cbfc_credit_size; /**< bytes a credit stands for */
	int16_t cbfc_overhead;   /**< bytes added to a frame's length */
	uint32_t cbfc_cc_timer_us; /**< CC_Update period (0: off) */
	uint32_t link_mbps;      /**< port speed for PFC quanta; at the default
				      (100000) the port's own, if it says */
	bool dcqcn;
	double dcqcn_scale;      /**< DCQCN's times (timers, CNP interval) x */
	double rto_us;           /**< --rto: a frame not received this long
				      after it was sent is sent again (0: off,
				      a loss stays lost) */
	/* --engine inc (docs/aggregation.md): the switches' job */
	uint32_t agg_job;        /**< --agg-job: its id (1) */
	uint32_t agg_slots;      /**< --agg-slots: its slots (64) */
	uint32_t agg_elements;   /**< --agg-elements: a packet's (256) */
	bool agg_int32;          /**< --agg-int: int32, not fp32 */
	/** Each rank's child index at its switch (the topology's: set by
	 * ibex-fabric from its plan); NULL: rank r is child r, as on one
	 * switch. */
	const uint16_t *agg_child;
	/** Several jobs at once (ibex-fabric's --agg jobs): each rank's job
	 * id and its job's slots (agg_slots then their largest); NULL: every
	 * rank in agg_job. */
	const uint32_t *agg_rank_job;
	const uint16_t *agg_rank_slots;
	uint32_t timeout_ms;     /**< an iteration that takes longer fails */
	uint32_t fail_stop;      /**< a sweep stops after this many failed
				      iterations in a row with no frame
				      received, or a size whose every
				      iteration failed (3; 0: never) */
	const char *json;
	const char *csv;
	const char *plot_dir;
	const char *meta;        /**< the JSON's "meta" object (text), or NULL:
				      set by the app (ibex_meta_json()) */
	bool quiet;
	bool progress;           /**< --progress: a stderr line per size/trial */
	/* open-loop flows and benchmark searches (rate engine) */
	struct ibex_gen_rflow rflow[IBEX_GEN_MAX_RFLOWS]; /**< --flow */
	uint16_t nrflows;        /**< 0: rank r -> r+1 for every rank */
	bool tx_drop;            /**< drop what the port does not take (a wire
				      into a full queue), counted as lost */
	enum ibex_gen_search_kind search;
	double trial_s;          /**< search trial length (0.25) */
	double resolution;       /**< rate search: fraction of the maximum (0.01) */
	double pdr_loss;         /**< PDR loss threshold, fraction (0.001) */
	double max_pps;          /**< rate search upper end (0: flat out, measured) */
	uint32_t burst_max;      /**< burst search upper end (4096) */
	uint32_t retries;        /**< a failed trial is run again this often
				      before it counts as failed (1) */
	uint32_t sizes[IBEX_GEN_MAX_SEARCH_SIZES]; /**< with FCS */
	uint16_t nsizes;         /**< 0: --size + 4 */
	/** Each rank's MAC (nranks of them), or NULL for 02:00:00:0e:hi:lo:
	 * no option, set by ibex-fabric from the topology's ranks. */
	const uint8_t (*rank_mac)[6];
	/** After a trial, listen until every frame arrived, or the ports were
	 * quiet this long, at most drain_max_ms (0: the defaults). No option:
	 * ibex-fabric sets them from its slowest link's longest pause, which
	 * holds frames in the ranks' own MACs where the generator cannot see
	 * them. */
	uint32_t drain_quiet_ms, drain_max_ms;
	/** No hello broadcasts before the traffic: the device under test
	 * knows every rank already (a fabric's static routes). No option:
	 * set by ibex-fabric (ibex_gen_builtin_set_no_hello()). */
	bool no_hello;
};

/** Defaults: ring, 8 ranks, 1 KiB .. 1 MiB x2, 20 iterations, 5 warm-up. */
void ibex_gen_opts_default(struct ibex_gen_opts *o);

/**
 * Parse generator options (getopt_long, from argv[0]'s next element on;
 * optind is reset). @return 0, 1 for --help (usage printed), -EINVAL with
 * a message on stderr.
 */
int ibex_gen_opts_parse(struct ibex_gen_opts *o, int argc, char **argv);
/** Print the option list. */
void ibex_gen_usage(FILE *f, const char *prog);
/** The same options as man page markdown (go-md2man): the OPTIONS of
 * ibex-gen(1), made at build time by 'ibex-gen --help-man'. */
void ibex_gen_usage_man(FILE *f);
/** Whole-run checks (ranks vs engine etc.). @return 0 or -EINVAL + message. */
int ibex_gen_opts_check(const struct ibex_gen_opts *o, char *err, size_t len);

struct ibex_cbfc_conf;

/**
 * The CBFC configuration of every rank port under --fc cbfc: SAI's
 * defaults for IBEX_GEN_CBFC_VCS VCs, each lossless at both ends with the
 * --cbfc-limit, no port limit, the --cbfc-* credit size, overhead and
 * CC_Update timer, and a receive buffer that never fills (a rank consumes
 * a frame as it arrives). @return 0, or -EINVAL with the reason
 * (ibex_cbfc_conf_check()) in @p err.
 */
int ibex_gen_cbfc_conf(const struct ibex_gen_opts *o, struct ibex_cbfc_conf *c,
		       char *err, size_t len);

#endif /* IBEX_GEN_OPTS_H */
