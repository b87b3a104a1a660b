/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_FABRIC_APP_H
#define IBEX_FABRIC_APP_H

/*
 * ibex-fabric's own state: the topology, its routes, and per switch the
 * configuration the fabric manager completed, the data path built from
 * it and its control socket. fabric_setup.c builds it, fabric_report.c
 * prints what happened, main.c runs it.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "ibex_cbfc.h"
#include "ibex_ctl.h"
#include "ibex_dp.h"
#include "ibex_fabric.h"
#include "ibex_fabric_agg.h"
#include "ibex_fabric_report.h"
#include "ibex_gen_limits.h"

struct ibex_conf;
struct ibex_gen_report;
struct rte_mempool;

/** One switch of the fabric. */
struct fabric_switch {
	uint32_t node;                  /**< index in the topology's nodes */
	const char *name;               /**< the node's name */
	struct ibex_conf *conf;         /**< its own config + the routes */
	/** Per ibex port of conf: the topology port it is (its link), or
	 * IBEX_FABRIC_NONE. */
	uint16_t topo_port[IBEX_MAX_PORTS];
	/** --fc pfc grew its buffer to fit its links' headroom. */
	bool buffer_grown;
};

struct fabric {
	struct ibex_fabric topo;
	struct ibex_fabric_routes routes;
	unsigned int n_sw;
	/** n_sw of them (fabric_load() allocates, fabric_free() frees). */
	struct fabric_switch *sw;
	/** What the control loop serves: dp and socket of each switch. */
	struct ibex_ctl_switch *ctl;
	/** Per rank (in the topology's order): the ethdev at its end of
	 * its link, and its MAC; routes.n_ranks of them (fabric_load()
	 * allocates, fabric_free() frees). */
	uint16_t *rank_port;
	uint8_t (*rank_mac)[6];
	bool links_made;
	/** The pools every switch shares (ibex_dp_shared_pools_set()):
	 * frames, flow-control frames. */
	struct rte_mempool *pool, *fc_pool;
	/** --fc: NULL (each switch's own configuration), "none", "pfc",
	 * "credit", "credit-pfc" (credits between switches, PFC towards the
	 * ranks) or "cbfc", on every port, with lane fc_vl lossless unless
	 * "none". */
	const char *fc;
	unsigned int fc_vl;
	/** --pfc-reaction-us: every PFC port's proc-ns (headroom auto
	 * covers what arrives meanwhile); 0: the switches' own. */
	uint32_t pfc_reaction_us;
	/** --pfc-watchdog: every PFC port's `pfc P watchdog SPEC`; NULL: the
	 * switches' own. */
	const char *pfc_watchdog;
	/** --cbfc: every CBFC port's `cbfc P KEYS`; NULL: the defaults. */
	const char *cbfc;
	/** --llr: UEC LLR on every link end (net_ibexlink llr=PRESET);
	 * NULL or "off": none. */
	const char *llr;
	/** --ecmp: how every ECMP group chooses, as `ecmp NAME adaptive
	 * MODE` ("packet", "flowlet 20"); NULL: the flow hash. */
	const char *ecmp;
	/** --routes: enum ibex_fabric_routing (up/down unless told). */
	unsigned int routing;
	/** --kind-map: containerlab's kinds as ibex or rank ("linux=rank,
	 * nokia_srlinux=ibex"), over the file's; NULL: the file's. */
	const char *kind_map;
	/** --clock virtual: the switches' egress MACs take a frame only
	 * when the wire is free (net_ibexlink tx_window=0). */
	bool virtual_clock;
	/** --switch-latency: added to the delay of every wire a switch
	 * sends on, picoseconds (0: none). */
	uint64_t switch_latency_ps;
	/** --agg: in-network aggregation jobs, the trees the fabric manager
	 * plans for them (docs/aggregation.md), each switch's part of them
	 * given to it as `aggregation` statements; agg_capacity slots a
	 * switch, agg_elements elements a packet. */
	const struct ibex_fabric_agg_req *agg_req;
	uint32_t n_agg;
	uint32_t agg_capacity;
	uint16_t agg_elements;
	struct ibex_fabric_agg_plan agg_plan;
	bool agg_planned;
	/** The generator's inc ranks, [routes.n_ranks] each (NULL without
	 * --agg): each rank's job id, its job's slots, and its child index
	 * in its job's tree at its leaf; agg_slots_max the largest slots. */
	uint32_t *agg_rank_job;
	uint16_t *agg_rank_slots;
	uint16_t *agg_child;
	uint16_t agg_slots_max;
};

/** The generator's part of the --agg jobs, run at once: each rank's job,
 * its slots and its child index at its leaf. @return 0 (nothing without
 * --agg), -ENOMEM, or -EINVAL when a rank is in two jobs or in none with
 * a tree (a refused job runs as a ring, which --engine inc does not; the
 * generator's ranks are the topology's). */
int fabric_agg_children(struct fabric *f, char *err, size_t errlen);

/** The name of the net_ibexlink device at end @p end (0, 1) of link @p l. */
void fabric_link_dev(uint32_t l, unsigned int end, char *buf, size_t len);

/**
 * Load and route the topology, and complete every switch's configuration
 * with the fabric manager's part (ports on their links, speeds, ECMP
 * groups, static entries), @p nb_workers workers each. Pure (no EAL):
 * also --check. @return 0 or -errno with "file:line: message" in @p err.
 */
int fabric_load(struct fabric *f, const char *path, uint16_t nb_workers,
		char *err, size_t errlen);

/** The rank index of topology node @p node, or -1 for a switch. */
int rank_of(const struct fabric *f, uint32_t node);

/** Whether port @p p of switch @p s faces a rank. */
/** --fc cbfc: the credits a rank may have in use on the lossless lane,
 * the least any switch port facing a rank holds (its auto limit), and
 * in @p c that port's CBFC configuration (the credits' unit the ranks
 * must count in); 0 when no such port runs cbfc. */
uint32_t fabric_rank_cbfc(const struct fabric *f, struct ibex_cbfc_conf *c);

bool fabric_port_faces_rank(const struct fabric *f,
			    const struct fabric_switch *s, uint16_t p);

/** Create the links' net_ibexlink pairs (EAL must run). @return 0 or -errno. */
int fabric_links_create(struct fabric *f, char *err, size_t errlen);

/**
 * Build every switch's data path and, unless @p sock_dir is NULL, its
 * control socket SOCK_DIR/ibex-NAME.sock. @return 0 or -errno.
 */
int fabric_switches_create(struct fabric *f, const char *sock_dir, char *err,
			   size_t errlen);

/** Destroy what fabric_switches_create() and fabric_links_create() made,
 * and free the topology. */
void fabric_free(struct fabric *f);

/**
 * Read, once after the run (the workers stopped), every switch port's
 * figures into @p t (lib/fabric/ibex_fabric_report.h): the one source of
 * the table and the JSON. @return 0 or -ENOMEM; fabric_hops_free() after.
 */
int fabric_hops_read(const struct fabric *f, double elapsed_s,
		     struct ibex_fabric_hops *t);
void fabric_hops_free(struct ibex_fabric_hops *t);

/**
 * Print the per-hop table (per switch and port: where frames went,
 * queued and waited, the flow control seen); when @p gen_failed, why the
 * generator's run failed (its own words from @p gen) and where frames
 * were lost; and with a generator (@p gen not NULL), how far the
 * emulation fell behind the wire.
 */
void fabric_report(FILE *out, const struct ibex_fabric_hops *t,
		   const struct ibex_gen_report *gen, bool gen_failed);

/** Per switch with an aggregation pool (--agg): its contributions,
 * duplicates, partial sums and results, and how long its slots' uses
 * waited for their last contributor (where a straggler shows). */
void fabric_agg_report(FILE *out, const struct fabric *f);

/** The same as JSON into @p path (with the aggregation figures under
 * "aggregation"). @return 0 or -errno. */
int fabric_report_json(const char *path, const struct fabric *f,
		       const struct ibex_fabric_hops *t, const char *meta,
		       const struct ibex_gen_report *gen, bool gen_failed);

/* ---- --clock virtual: the discrete-event executive (fabric_sim.c) ---- */

struct ibexlink_port;

/** An entry of the executive's calendar. */
struct fabric_sim_event {
	uint64_t t;           /**< when, ticks of the virtual clock */
	uint32_t owner;       /**< fabric_sim's owners: a port, a rank, a tick */
};

/** Executive state: the switches it steps, its calendar, its figures. */
struct fabric_sim {
	struct ibex_dp_lcore lc;   /**< every switch's workers, in order */
	unsigned int n_sw;
	unsigned int sw_workers;   /**< workers of each switch */
	/** Longest jump without an event, ticks: the housekeeping period. */
	uint64_t quantum;
	uint64_t *due;             /**< bitmap: switches due now */
	uint64_t *tick;            /**< per switch: its housekeeping wake */
	unsigned int due_words;
	/** Switch s's ports: port[port_first[s] .. port_first[s + 1]). */
	unsigned int *port_first;
	struct ibexlink_port **port;
	/** The switch of each of port[]. */
	uint32_t *port_sw;
	/** Per switch: the ports (bits) its next run receives on. */
	uint64_t *rx_ports;
	/** Owners of events: port i is i, rank r's port n_ports + r, the
	 * housekeeping tick of switch s tick_base + s. */
	uint32_t n_ports, tick_base;
	struct fabric_sim_event *heap;
	size_t heap_n, heap_cap;
	uint64_t act_round;   /**< link activity when the last step began */
	uint64_t steps;       /**< steps run */
	uint64_t advances;    /**< times time moved */
	uint64_t switch_runs; /**< switch iterations run */
	uint64_t lost_events; /**< calendar entries refused (no memory) */
	uint64_t t0, t_end;   /**< virtual start and end, ticks */
	/* wall seconds: the executive's first step (the generator's set-up
	 * done), its stop; the progress line of a long run */
	double start_wall, stop_wall, progress_wall;
	/* the executive's thread's CPU time at its first step and at the
	 * stop: what the run costs whatever else shares the CPU */
	clockid_t cpu_clock;
	double start_cpu, stop_cpu;
	uint64_t progress_hops, progress_steps;
	/** Rank i's end of its link, the generator's port i. */
	struct ibexlink_port **rank_pt;
	unsigned int n_ranks;
	/** The generator, told of its ports' events (owners n_ports + rank). */
	struct ibex_gen_builtin *gen;
	/** --model-partitions: the barrier windows a split over processes
	 * with this lookahead (ticks; 0: no model) would close. */
	uint64_t model_lookahead, model_window_end, model_windows;
};

/** For ibex_gen_run_set_rx_idle(): would a receive at rank @p i's port
 * (@p arg the struct fabric_sim) find nothing? */
bool fabric_sim_rank_rx_idle(void *arg, unsigned int i);

/** Run the switches of @p f (data paths @p dps) under the virtual clock,
 * stepped by the generator's polls (ibex_clock_poll()); the ranks' ports
 * are the generator's. @return 0, -ENOMEM or -EINVAL. */
int fabric_sim_start(struct fabric_sim *s, struct fabric *f,
		     struct ibex_dp **dps);

/** After the generator's lcore returned: detach the workers. */
void fabric_sim_stop(struct fabric_sim *s);

/** Free @p s (calloc'ed by the caller) and what it holds. */
void fabric_sim_free(struct fabric_sim *s);

/** Simulated seconds from the start to the stop (or to now). */
double fabric_sim_elapsed_s(const struct fabric_sim *s);

/** The run's speed: simulated time, the wall time of its steps (and
 * @p wall_s, the run's with the start of the generator and the
 * switches), frame-hops, steps, peak memory. */
void fabric_sim_report(FILE *out, const struct fabric_sim *s, double wall_s);

/* ---- --model-partitions: a split over processes, predicted (fabric_part.c) ---- */

struct ibex_fabric_partition;

/**
 * What a run split by @p p would have cost: @p windows barrier windows
 * (of fabric_sim's model) over @p sim_s simulated seconds, the frames and
 * bytes its crossing links carried, each partition's share of the
 * frame-hops, and the bound on the speed-up they give. Read after the
 * run, from the link ends' counters.
 */
void fabric_part_model_report(FILE *out, const struct fabric *f,
			      const struct ibex_fabric_partition *p,
			      uint64_t windows, double sim_s);

#endif /* IBEX_FABRIC_APP_H */
