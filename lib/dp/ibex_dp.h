/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_DP_H
#define IBEX_DP_H

/**
 * @file
 * The ibex data path as its callers (lib/ctl, the app, the tests) see it:
 * create it from a config, start and stop its workers, apply a new config
 * live, read its views (counters, lanes, flow control, workers, eBPF).
 * docs/design.md, "The lib/dp seam", says who may call what.
 *
 * Ownership: the control thread builds everything here before workers
 * start, owns the FDB (single writer) and the tables, and reads the
 * counters. Each worker writes only its own state (ibex_dp_private.h,
 * not for callers). Of struct ibex_dp, callers read the port names and
 * counts, the FDB, the running config and tsc_hz; stop is set by
 * ibex_dp_stop() (and by ibex_ctl_run() on return), read by the
 * generator; the rest is lib/dp's.
 */

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>

#include "ibex_agg.h"
#include "ibex_capture.h"
#include "ibex_cbfc.h"
#include "ibex_common.h"
#include "ibex_counter.h"
#include "ibex_dp_counters.h"
#include "ibex_reason.h"
#include "ibex_shaper.h"
#include "ibex_vl.h"

struct ibex_bpf_prog;
struct ibex_conf;
struct ibex_fdb;

/** Longest RX/TX burst. */
#define IBEX_BURST_MAX 256
/** Most (port, queue) pairs one worker polls. */
#define IBEX_MAX_RXQ_PER_WORKER 64

/** Per-worker, per-port counters of an eBPF classifier's verdicts (the
 * frames it ran on are their sum). One writer (the worker). */
struct ibex_bpf_counters {
	uint64_t sl[IBEX_SL_COUNT];  /**< verdict SL s */
	uint64_t deflt;          /**< IBEX_BPF_DEFAULT: built-in classifier */
	uint64_t drops;          /**< IBEX_BPF_DROP */
	uint64_t bad;            /**< out of range: taken as default */
} __rte_cache_aligned;

/** Per-worker counters of one ECMP group. One writer (the worker). */
struct ibex_ecmp_counters {
	uint64_t member[IBEX_ECMP_MAX_MEMBERS]; /**< frames sent to member i */
	uint64_t none_up;        /**< frames dropped: no member was up */
	uint64_t adaptive;       /**< frames whose member was chosen by load */
	uint64_t moves;          /**< flowlets that took another member than
				      their flow's previous flowlet */
};

/** An ECMP group as the control plane shows it. */
struct ibex_dp_ecmp_view {
	char name[IBEX_NAME_LEN];
	uint16_t n;              /**< members */
	uint16_t port[IBEX_ECMP_MAX_MEMBERS];
	uint8_t mode;            /**< enum ibex_ecmp_mode */
	uint32_t flowlet_us;     /**< its flowlet gap */
	uint64_t frames;         /**< frames of the group (all members) */
	struct ibex_ecmp_counters cnt; /**< summed over the workers */
};

/** An eBPF classifier of one port as the control plane shows it. */
struct ibex_dp_bpf_view {
	bool on;                 /**< the port runs a program */
	bool jit;                /**< JIT-ed, else interpreted */
	char file[256];
	char section[64];
	char name[64];
	uint32_t nb_insns;
	bool btf;
	uint64_t load_ns;
	int64_t loaded_at;
	uint64_t runs;           /**< frames it ran on (all verdicts) */
	struct ibex_bpf_counters cnt; /**< summed over the workers */
};

/** A learn request: "mac was seen as source on port in vlan". */
struct ibex_learn_req {
	uint8_t mac[6];
	uint16_t vid;
	uint16_t port;
	uint16_t pad[3];
};

struct ibex_rxq {
	uint16_t port;           /**< ibex port index */
	uint16_t queue;
};

struct ibex_dp_tables;
struct ibex_worker;

/** The switch as the data path sees it. */
struct ibex_dp {
	/** Serial of this data path in the process (0 for the first), for
	 * the names of its DPDK objects (ibex_dp_obj_name()). */
	uint32_t instance;
	uint16_t nb_ports;
	uint16_t nb_workers;
	uint16_t nb_started;     /**< ports configured and started */
	uint16_t burst;
	uint16_t port_id[IBEX_MAX_PORTS];   /**< ethdev port id per ibex port */
	char port_name[IBEX_MAX_PORTS][IBEX_NAME_LEN];
	/** The switch's name where one process runs several (a fabric: the
	 * topology's node name, "switch NAME: " before its log lines); ""
	 * alone. Set by the caller after ibex_dp_create(). */
	char name[IBEX_NAME_LEN];
	struct rte_mempool *pool;
	/** pool is the process's shared pool (ibex_dp_shared_pools_set()):
	 * not this switch's to size, check or free. */
	bool pool_shared;
	/** Free mbufs below which data frames are refused as pool-low, so
	 * RX can still take flow-control frames (ibex_dp_pool_floor()). */
	uint32_t pool_floor;
	struct rte_ring *learn_ring;
	struct ibex_fdb *fdb;
	_Atomic(struct ibex_dp_tables *) tables;
	/** The control thread sleeping with the learn ring empty: the
	 * worker that posts next clears it and writes learn_efd (see
	 * learn_wake() in ibex_dp.c and ibex_dp_learn_arm()). */
	_Atomic uint32_t learn_armed;
	int learn_efd;           /**< eventfd, valid while learn_armed is set */
	_Atomic bool stop;
	uint64_t tsc_hz;
	struct rte_rcu_qsbr *qsbr; /**< workers' quiescent states (tables) */
	struct ibex_conf *conf;  /**< the running configuration (control) */
	/* Links the control thread watches (ibex_link.c): ports that redial
	 * their peer, those taken from the workers, the ports whose link
	 * state was seen and that state, and per port when to redial next
	 * and the wait after that. */
	uint64_t redial;
	uint64_t detached;
	uint64_t link_known;
	uint64_t link_seen_up;
	/** Ports whose link was seen down, for the workers' choice of an
	 * ECMP member (stored and loaded relaxed: a port set, not a lock). */
	uint64_t links_down;
	uint64_t redial_at_ms[IBEX_MAX_PORTS];
	uint32_t redial_wait_ms[IBEX_MAX_PORTS];
	/** Per port, written by the control thread with IBEX_CNT_ADD, read
	 * by any thread (ibex_dp_port_totals()): up -> down edges seen, and
	 * restarts to reconnect. */
	uint64_t link_downs[IBEX_MAX_PORTS];
	uint64_t redials[IBEX_MAX_PORTS];
	struct ibex_worker *workers[IBEX_MAX_WORKERS];
	/** What each port's classifier is (counters unused), written by the
	 * control thread when tables are published, read by telemetry. */
	pthread_mutex_t bpf_lock;
	struct ibex_dp_bpf_view bpf_info[IBEX_MAX_PORTS];
	/* The running ECMP groups, for any thread's view (the tables are
	 * the workers' and the control thread's only): under ecmp_lock. */
	pthread_mutex_t ecmp_lock;
	uint16_t nb_ecmp;
	struct ibex_dp_ecmp_view ecmp_info[IBEX_MAX_ECMP_GROUPS];
	/** The capture the workers copy for (NULL: none), on a line of its
	 * own: read every iteration, written twice per capture. */
	_Atomic(struct ibex_capture *) capture __rte_cache_aligned;
	/* The control thread's (ibex_capture.c): the capture it runs or
	 * stops, the last one's summary, the last id given. */
	struct ibex_capture *cap_run __rte_cache_aligned;
	struct ibex_capture_view cap_last;
	uint32_t cap_ids;
	/** The capture's view as the control thread last published it
	 * (each drain, start, stop, end), for telemetry's thread:
	 * ibex_capture_view_shared(). */
	pthread_mutex_t cap_lock;
	struct ibex_capture_view cap_shared;
	/** With several workers, per port the shaper's clock every worker's
	 * TX queue claims its rate from (ibex_shaper.h): a port shaped to R
	 * sends R in all, not R per worker. Unused with one worker. */
	struct ibex_shaper_clock shape_clock[IBEX_MAX_PORTS];
};

/**
 * The coarse clock every thread uses for FDB times (learned, last seen,
 * ageing): milliseconds of the TSC, wrapping at 2^32 (compare with
 * differences). Workers keep their own copy, advanced from the TSC they
 * read anyway, so it never depends on another thread waking up.
 */
static inline uint32_t
ibex_dp_clock_ms(const struct ibex_dp *dp, uint64_t tsc)
{
	return (uint32_t)(tsc / (dp->tsc_hz / 1000));
}

/**
 * Build the data path from a validated config: mempool, ports (configured
 * and started), workers and their queue assignment, learn ring, FDB with
 * the static entries, tables. Worker lcores are the EAL worker lcores in
 * order. @return 0 or -errno with a message in @p err.
 */
int ibex_dp_create(struct ibex_dp **dpp, const struct ibex_conf *conf,
		   char *err, size_t errlen);

/** Stop and close the ports, free everything. Workers must have returned. */
void ibex_dp_destroy(struct ibex_dp *dp);

/**
 * Process-wide: the switches ibex_dp_create() makes from now on take
 * their frames' pool @p mbufs and their flow-control frames' pool @p fc
 * (either NULL: a pool of their own, the default) instead of making
 * them. For a process of many switches whose frames are another's mbufs
 * forwarded (ibex-fabric: the generator's, through in-process links): a
 * pool of its own costs a switch tens of MB it barely uses. The caller
 * sizes them and frees them after the last ibex_dp_destroy(); a switch
 * refuses a shared pool whose data room is below its `switch
 * mbuf-size` or that is not twice its pool floor (ibex_dp_pool_floor()),
 * and its lossless lanes' promise is then the frames' own pool's to keep.
 * Main thread, before ibex_dp_create().
 */
void ibex_dp_shared_pools_set(struct rte_mempool *mbufs,
			      struct rte_mempool *fc);

/** The fewest mbufs a shared pool needs for a switch of @p conf with
 * @p nb_workers workers: twice its pool floor when it has lossless
 * lanes, else one burst per port and worker. */
uint32_t ibex_dp_shared_pool_min(const struct ibex_conf *conf,
				 uint16_t nb_workers);

/** What one worker lcore runs when several switches share the lcores:
 * worker i of each switch, one iteration of each in turn. w has n
 * entries, allocated by ibex_dp_start_many() (freed by the lcore when it
 * returns) or ibex_dp_virtual_attach() (freed by ibex_dp_virtual_detach()):
 * as many switches as the process has memory for. */
struct ibex_dp_lcore {
	unsigned int n;
	struct ibex_worker **w;
};

/**
 * Start @p n switches on the same worker lcores (each created with the
 * same number of workers, hence the same lcores): lcore i runs worker i of
 * every switch. @p lcs (one per worker, the caller's, kept until the stop)
 * holds what each lcore runs. @return 0, -EINVAL (no switch, or
 * different worker lcores), -ENOMEM or -errno.
 */
int ibex_dp_start_many(struct ibex_dp *const *dps, unsigned int n,
		       struct ibex_dp_lcore *lcs);

/** Stop the switches of ibex_dp_start_many(): each drains as
 * ibex_dp_stop() says, and this returns once every lcore has. */
void ibex_dp_stop_many(struct ibex_dp *const *dps, unsigned int n);

/**
 * Under the virtual clock (ibex_clock.h): the workers of @p n switches
 * run on the caller's lcore, not their own, one iteration each per
 * ibex_dp_virtual_run(), which the discrete-event executive calls. Every
 * worker of every switch goes into @p lc (the caller's, kept until
 * ibex_dp_virtual_detach()). @return 0 or -ENOMEM.
 */
int ibex_dp_virtual_attach(struct ibex_dp *const *dps, unsigned int n,
			   struct ibex_dp_lcore *lc);

/** One iteration of worker @p w (one of @p lc's, ibex_dp_virtual_attach())
 * at the present instant, receiving only on the ports (bits of the
 * switch's port indices) in @p rx_ports: those where a frame arrived or
 * the link has work (the others would return nothing). @return true while it needs to run again as
 * time passes without an event of its ports: it holds frames it could not
 * send yet, or runs flow control (whose timers the executive does not
 * see). */
bool ibex_dp_virtual_run(struct ibex_worker *w, uint64_t rx_ports);

/** After the run (the executive's lcore returned): what
 * ibex_dp_stop_many() does at a worker's exit, for every worker of @p lc. */
void ibex_dp_virtual_detach(struct ibex_dp_lcore *lc);


/** Read port @p port's classifier and its counters (counters are kept
 * since start, whatever program ran). @return 0 or -ENOENT. */
int ibex_dp_bpf_view(const struct ibex_dp *dp, uint16_t port,
		     struct ibex_dp_bpf_view *v);

/** ECMP group @p g of the running tables, its counters summed over the
 * workers. Any thread. @return 0 or -ENOENT. */
int ibex_dp_ecmp_view(const struct ibex_dp *dp, uint16_t g,
		      struct ibex_dp_ecmp_view *v);

/** Sum one port's counters over all workers. */
void ibex_dp_port_totals(const struct ibex_dp *dp, uint16_t port,
			 struct ibex_port_counters *sum);


/** Sum the counters of lane @p vl (0..15) of egress port @p port. */
void ibex_dp_lane_totals(const struct ibex_dp *dp, uint16_t port,
			 unsigned int vl, struct ibex_lane_counters *sum);

/**
 * Merge the switch residence time histogram (RX to TX, in TSC ticks) of
 * lane @p vl of egress port @p port over the workers into @p out (which the
 * caller initialised): @p queued selects the frames that waited in the lane
 * queue, else those cut through. @return 0, or -ENOENT for a lane the port
 * does not run.
 */
struct ibex_hist;
int ibex_dp_residence(const struct ibex_dp *dp, uint16_t port, unsigned int vl,
		      bool queued, struct ibex_hist *out);

/** One lane's ECN curve as the workers run it: read from the published
 * tables, so values are the built ones (Pmax in the curve's 2^-32 steps),
 * never recomputed from the config. */
struct ibex_dp_ecn_view {
	bool on;                 /**< marking on */
	bool fecn;               /**< also BTH FECN on RoCEv2 frames */
	uint32_t kmin, kmax;     /**< bytes */
	double pmax;             /**< probability at Kmax */
	uint8_t wq_log;          /**< 0: instantaneous queue, else EWMA 2^-wq */
};

/** Read the ECN curve of lane @p vl of egress port @p port (control
 * thread). @return 0, or -ENOENT for a lane the port does not run. */
int ibex_dp_ecn_view(const struct ibex_dp *dp, uint16_t port, unsigned int vl,
		     struct ibex_dp_ecn_view *v);

/** Flow-control state of one port, as the control plane shows it. */
/** fc cbfc's part of a port's view, with SAI's counters
 * (SAI_PORT_STAT_CBFC_*, docs/cbfc.md). Credits are the port's CBFC
 * credits (credit_size bytes), VC v is VL v. */
struct ibex_dp_cbfc_view {
	uint32_t credit_size;
	uint32_t used;                 /**< SENDER_CREDITS_USED */
	uint32_t used_watermark;       /**< SENDER_CREDITS_USED_WATERMARK */
	uint64_t cc_update_tx, cc_update_rx; /**< NUM_CC_UPDATE_MESSAGES_* */
	uint64_t cf_update_tx, cf_update_rx; /**< NUM_CF_UPDATE_MESSAGES_* */
	uint64_t cf_update_bad, cc_update_bad; /**< ignored, ibex's */
	uint64_t link_resets;          /**< counters started again at 0 */
	uint64_t tx_blocked;           /**< frames the send rule held back */
	uint64_t leaked_recovered;     /**< credits CC_Updates freed */
	uint32_t vc_used[IBEX_VL_COUNT];
	uint32_t vc_limit[IBEX_VL_COUNT];
	uint32_t vc_used_watermark[IBEX_VL_COUNT];
	uint64_t vc_leaked_recovered[IBEX_VL_COUNT];
	/** Per pool (the last: the port's credits), its shared credits (size
	 * less what its VCs reserve) and how many of them are in use. */
	uint32_t pool_shared[IBEX_CBFC_MAX_POOLS + 1];
	uint32_t pool_used[IBEX_CBFC_MAX_POOLS + 1];
};

struct ibex_dp_fc_view {
	uint8_t mode;                  /**< enum ibex_fc_mode */
	uint16_t lossless;             /**< VL mask */
	uint16_t paused_vls;           /**< egress lanes paused now (PFC) */
	uint16_t wd_drop_vls;          /**< lanes the watchdog drains */
	uint32_t credits[IBEX_VL_COUNT];   /**< blocks we may still send
					       (fc cbfc: CBFC credits) */
	uint32_t buf_used[IBEX_VL_COUNT];  /**< blocks charged to (port, VL) */
	uint32_t buf_free[IBEX_VL_COUNT];  /**< credit we may advertise */
	uint32_t buf_peak[IBEX_VL_COUNT];  /**< most blocks charged at once
					       past the reserved share (0:
					       never past it; with several
					       workers, their slices' sum) */
	uint32_t hr_peak[IBEX_VL_COUNT];   /**< most headroom blocks in use
					       (slices summed) */
	bool xoff[IBEX_VL_COUNT];      /**< we assert XOFF for the lane */
	uint64_t fc_tx, fc_rx, fc_tx_fail;
	uint64_t pfc_tx, pfc_rx, pfc_ignored;
	uint64_t xoff_tx, xon_tx, xoff_rx, xon_rx;
	uint64_t storms, restored;
	uint64_t handoff_lost;         /**< FC frames lost on the way to the
					    port's owner worker */
	uint64_t paused_ns[8];         /**< per priority */
	uint64_t violations[IBEX_VL_COUNT];
	struct ibex_dp_cbfc_view cbfc; /**< fc cbfc */
};

/**
 * Read the flow-control state of @p port (control thread; relaxed reads
 * of the worker's words). @return 0, or -ENOENT when no port runs flow
 * control (@p v is then zeroed with mode none).
 */
int ibex_dp_fc_view(const struct ibex_dp *dp, uint16_t port,
		    struct ibex_dp_fc_view *v);

/** One aggregation job as the data path runs it: lib/agg's conf, and the
 * ports of its children (by child index) and of its parent. */
struct ibex_dp_agg_job {
	struct ibex_agg_job_conf conf;
	uint16_t parent;         /**< IBEX_PORT_NONE at the root */
	uint16_t children[IBEX_AGG_MAX_CHILDREN];
};

/** The aggregation glue's own counters, per worker (one writer). */
struct ibex_dp_agg_worker_counters {
	uint64_t steered;        /**< frames handed to the worker owning their
				      slot */
	uint64_t not_ready;      /**< frames of a job the worker's pool does
				      not hold (refused, or just changed) */
	uint64_t applied;        /**< table changes applied */
	uint64_t repacked;       /**< pools emptied and refilled in table
				      order: a job did not fit a gap */
};

/** In-network aggregation as a whole switch (ibex-ctl show aggregation):
 * its jobs, lib/agg's counters summed over the workers' pools (the wait
 * maximum is the largest), and the glue's. */
struct ibex_dp_agg_view {
	uint64_t pool_bytes;     /**< each worker's */
	uint16_t workers;
	uint16_t nb_jobs;
	uint32_t refused;        /**< bit k: a worker's pool refused job[k] */
	struct ibex_dp_agg_job job[IBEX_MAX_AGG_JOBS];
	struct ibex_agg_stats st;
	struct ibex_dp_agg_worker_counters cnt;
};

struct ibex_conf;
/** Fill @p v, the jobs from @p conf (the running config). @return 0, or
 * -ENOENT when the switch has no aggregation pool. Any thread. */
int ibex_dp_agg_view(const struct ibex_dp *dp, const struct ibex_conf *conf,
		     struct ibex_dp_agg_view *v);

/**
 * Apply a new validated configuration while traffic runs (control thread):
 * builds new immutable tables (VLAN, SL/VL, arbiter, shaper, ECN, flow
 * control parameters, admin state), publishes them with an atomic pointer
 * swap, waits for every worker to pass a quiescent state (rte_rcu_qsbr)
 * and frees the old ones. FDB static entries are added/removed to match,
 * whole or not at all: new entries that do not fit in the FDB's free room
 * plus the entries the change removes are refused with -ENOSPC and the
 * numbers (learned entries are not evicted). Ports, workers, queues and
 * pool sizes cannot change live: a config that changes them is refused
 * with -ENOTSUP and a message. On any error nothing changes.
 * @return 0 or -errno.
 */
int ibex_dp_reconfigure(struct ibex_dp *dp, const struct ibex_conf *conf,
			char *err, size_t errlen);

/** Whether port @p port's link is up now, as its PMD says (a memif or
 * vhost port whose peer is gone is down). Any thread. */
bool ibex_dp_port_link_up(const struct ibex_dp *dp, uint16_t port);

/** Wait until every port reports link up, or @p timeout_ms passes.
 * @return 0, or -ETIMEDOUT naming the first port still down in @p err. */
int ibex_dp_wait_links(const struct ibex_dp *dp, uint32_t timeout_ms,
		       char *err, size_t errlen);

/**
 * Watch every port's link: a link that goes down is counted
 * (link_downs) and has the learned FDB entries of its port flushed.
 * Ports whose PMD dials its peer only when started (memif clients:
 * DPDK's connects once, in rte_eth_dev_start()) are restarted while
 * their link is down, so they connect as soon as the peer is there, also
 * after the peer restarted; such a port is taken from the workers first
 * (its frames wait in them) and given back once it started. Logs each
 * link change, and a link found up at the first look at a port (which
 * counts nothing). Control thread, workers running or not. @return ms
 * until it wants to run again (0: no port).
 */
uint32_t ibex_dp_links_poll(struct ibex_dp *dp);

/**
 * After ibex_dp_stop(): wait up to @p timeout_ms until no memif port's
 * link is up, i.e. every memif peer has disconnected first. DPDK 22.11's
 * memif PMD unmaps a port's rings in EAL's interrupt thread when its peer
 * leaves, racing a worker inside a burst on them (docs/design.md); a
 * switch whose workers have stopped is safe from that, so of two chained
 * switches the one that waits here lets the other, stopped next, leave
 * safely too. @return 0, or -ETIMEDOUT with a peer still connected.
 */
int ibex_dp_wait_peers_gone(const struct ibex_dp *dp, uint32_t timeout_ms);

/**
 * Launch every worker on the lcore ibex_dp_create() gave it (control
 * thread, workers not running). @return 0, or -errno when a launch
 * failed: the workers already launched are then stopped and joined.
 */
int ibex_dp_start(struct ibex_dp *dp);

/**
 * Ask the workers to leave their loops (each first sends what it holds,
 * for at most a bounded drain time) and wait for every one to return,
 * sleeping between looks: the caller may share a CPU with them. Control
 * thread; a no-op for workers not running.
 */
void ibex_dp_stop(struct ibex_dp *dp);

/** One worker as the control plane shows it (relaxed reads). */
struct ibex_dp_worker_view {
	unsigned int lcore;      /**< EAL lcore it runs on */
	uint16_t nb_rxq;
	struct ibex_rxq rxq[IBEX_MAX_RXQ_PER_WORKER]; /**< polled, in order */
	uint64_t busy_tsc;       /**< TSC spent on iterations that moved frames */
	uint64_t iterations;
	uint64_t busy_iterations;
	uint64_t pending_tx;     /**< ports it holds frames for, to send */
};

/** Read worker @p w (0 .. nb_workers - 1). @return 0 or -ENOENT. */
int ibex_dp_worker_view(const struct ibex_dp *dp, uint16_t w,
			struct ibex_dp_worker_view *v);

/** Take up to @p n learn requests the workers posted (the control thread
 * is the ring's one consumer). @return how many. */
unsigned int ibex_dp_learn_dequeue(struct ibex_dp *dp,
				   struct ibex_learn_req *req, unsigned int n);

/** The eventfd the workers write when the control thread sleeps waiting
 * for learn requests (ibex_dp_learn_arm()); -1 disarms, after which no
 * worker writes the old one. */
void ibex_dp_learn_set_fd(struct ibex_dp *dp, int efd);

/**
 * About to sleep: ask the next worker that posts a learn request to wake
 * the control thread through its eventfd. @return true when requests are
 * already waiting (then take them instead of sleeping): with the workers'
 * side (a fence between enqueue and looking at the flag) no request is
 * left behind while the control thread sleeps.
 */
bool ibex_dp_learn_arm(struct ibex_dp *dp);

#endif /* IBEX_DP_H */
