/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_DP_H
#define IBEX_DP_H

/**
 * @file
 * The ibex data path: worker lcores polling (port, queue) pairs and running
 * the forwarding pipeline (docs/design.md), plus the port glue over ethdev.
 *
 * Ownership: the control thread builds everything here before workers
 * start, owns the FDB (single writer) and the tables, and reads the
 * counters. Each worker writes only its own struct ibex_worker.
 */

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "ibex_bpf_ctx.h"
#include "ibex_common.h"
#include "ibex_counter.h"
#include "ibex_dp_counters.h"
#include "ibex_ecn.h"
#include "ibex_reason.h"
#include "ibex_shaper.h"
#include "ibex_vl.h"
#include "ibex_vlarb.h"
#include "ibex_vlq.h"

struct ibex_bpf_prog;
struct ibex_conf;
struct ibex_fdb;

/** Longest RX/TX burst. */
#define IBEX_BURST_MAX 256
/** Frames a worker may hold per egress port on their way to TX. */
#define IBEX_TXBUF_LEN 512
/** Frames in a TX buffer beyond which new frames queue in their lane
 * instead of cutting through (TX has no room this iteration). */
#define IBEX_CT_LIMIT 256
/** Most (port, queue) pairs one worker polls. */
#define IBEX_MAX_RXQ_PER_WORKER 64
/** Slots of a worker's MAC caches (power of two). */
#define IBEX_MAC_CACHE 256

/** Per-worker, per-port counters of an eBPF classifier's verdicts (the
 * frames it ran on are their sum). One writer (the worker). */
struct ibex_bpf_counters {
	uint64_t sl[IBEX_SL_COUNT];  /**< verdict SL s */
	uint64_t deflt;          /**< IBEX_BPF_DEFAULT: built-in classifier */
	uint64_t drops;          /**< IBEX_BPF_DROP */
	uint64_t bad;            /**< out of range: taken as default */
} __rte_cache_aligned;

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

/** Lane parameters of one egress port, as the tables carry them. */
struct ibex_dp_egress_conf {
	uint64_t shape_bps;      /**< 0 = unshaped */
	uint32_t queue_blocks;   /**< bound of each lane queue */
	uint16_t nb_vls;
	uint16_t ecn_on;         /**< bit v: marking on for lane v */
	uint16_t fecn;           /**< bit v: also BTH FECN on RoCEv2 */
	struct ibex_vlarb_conf vlarb;
	struct ibex_ecn_params ecn[IBEX_VL_COUNT];
};

/** Flow-control parameters of one port that may change live. */
struct ibex_dp_fc_conf {
	uint64_t credit_period_ns;
	uint64_t credit_min_gap_ns;
	uint64_t rate_mbps;
	uint64_t margin_ns;
	uint64_t wd_detect_ns;
	uint64_t wd_recover_ns;
	uint16_t quanta;
	uint8_t wd_action;
};

/**
 * Forwarding tables the workers read. Immutable once published: the
 * control thread builds a new one, swaps the pointer and frees the old one
 * after an RCU grace period (ibex_dp_reconfigure()).
 */
struct ibex_dp_tables {
	uint32_t gen;            /**< generation: workers rebuild per-port
				      state (arbiters, shapers) on change */
	uint64_t vlan_members[IBEX_VLAN_COUNT]; /**< per VID: member ports */
	uint16_t pvid[IBEX_MAX_PORTS];
	uint64_t tx_enabled;     /**< ports frames may be sent to (admin up) */
	uint64_t trusted;        /**< ports management (VL15) frames may enter */
	uint64_t vl15_tsc;       /**< TSC ticks per VL15 frame (rate limit) */
	uint32_t learn_refresh_ms; /**< re-post a known source this often */
	bool learning;
	/** Per ingress port; entries are SL | IBEX_CLASS_IN_DROP when the
	 * port's SL->VL table drops that SL, | IBEX_CLASS_FC on ports with
	 * flow control. */
	struct ibex_sl_class sl_class[IBEX_MAX_PORTS];
	struct ibex_sl2vl sl2vl[IBEX_MAX_PORTS];       /**< per port */
	struct ibex_dp_egress_conf eg[IBEX_MAX_PORTS];
	uint64_t fc_ports;       /**< ports with fc credit or pfc */
	struct ibex_dp_fc_conf fc[IBEX_MAX_PORTS];
	/** Per port, the longest frame it takes in or sends out (bytes,
	 * ibex_conf_port_frame_max()); frame_fast is the least of them: a
	 * frame no longer goes everywhere unchecked, a longer one takes the
	 * slow path, which checks both ends. */
	uint32_t frame_max[IBEX_MAX_PORTS];
	uint32_t frame_fast;
	/** Per ingress port, where LLDP / STP frames go (IBEX_PORT_NONE:
	 * dropped as link-local like the rest of the reserved group). */
	uint16_t lldp_to[IBEX_MAX_PORTS];
	uint16_t stp_to[IBEX_MAX_PORTS];
	/** Per ingress port: its eBPF classifier (NULL: none; a reference
	 * the tables hold) and the class entry of each verdict, SL s at [s]
	 * and drop at [IBEX_SL_COUNT] (flags as in sl_class). */
	struct ibex_bpf_prog *bpf[IBEX_MAX_PORTS];
	uint8_t bpf_class[IBEX_MAX_PORTS][IBEX_SL_COUNT + 1];
};

/** A TX buffer's note of a frame's charge: IBEX_FC_SRC() << 16 | its
 * blocks; source 0 for a frame not charged to the buffer (its blocks are
 * not released). */
#define IBEX_TXCHARGE(src, blocks) ((uint32_t)(src) << 16 | (blocks))
#define IBEX_TXCHARGE_SRC(t) ((uint16_t)((t) >> 16))
#define IBEX_TXCHARGE_BLOCKS(t) ((t) & 0xffffu)

/** Frames on their way to one egress port's TX queue, on one worker: cut
 * through this iteration or picked by the arbiter. */
struct ibex_txbuf {
	uint16_t count;
	uint16_t txq;
	uint64_t first_tsc;      /**< when the oldest waiting frame arrived */
	uint64_t bytes;          /**< bytes held: queued frames as they come,
				      cut-through ones folded in at flush */
	uint64_t ct_tsc;         /**< RX time of the first frame held */
	/** Per lane, cut-through frames held: frames << 40 | bytes. */
	uint64_t ct_sum[IBEX_VL_COUNT];
	struct rte_mbuf *pkts[IBEX_TXBUF_LEN];
	/** Per frame, IBEX_TXCHARGE(): what TX taking it gives back. */
	uint32_t charge[IBEX_TXBUF_LEN];
};

/** ibex_worker.gate bits: lanes with frames queued (bits 0-14). */
#define IBEX_GATE_BUSY 0x7fffu
/** The port is shaped: every frame takes the slow egress path. */
#define IBEX_GATE_SHAPED 0x8000u
/** Lanes paused by PFC or drained by the watchdog (bits 16-30). */
#define IBEX_GATE_BLOCKED(vl) (UINT32_C(0x10000) << (vl))
#define IBEX_GATE_BLOCKED_ALL UINT32_C(0x7fff0000)
/** The port runs credits: a lossless lane's frame needs credit to go. */
#define IBEX_GATE_CREDIT UINT32_C(0x80000000)

/** Bits of a classifier entry in the tables: the SL drops at ingress;
 * the ingress port runs flow control. */
#define IBEX_CLASS_IN_DROP 0x10
#define IBEX_CLASS_FC 0x20
/** The ingress port runs credits: count its frames in ABR. */
#define IBEX_CLASS_CREDIT 0x40
/** With IBEX_CLASS_IN_DROP: an eBPF classifier's drop verdict. */
#define IBEX_CLASS_BPF_DROP 0x80

/** A lane's residence histograms: [0] cut through, [1] queued. */
struct ibex_hist;

/**
 * One egress port as one worker sees it: its lane queues, its arbiter and
 * shaper (the worker's TX queue on that port is a link of its own), and
 * the lane counters. One writer, the worker.
 */
struct ibex_egress {
	/** Lanes holding frames queued before an SL->VL change, and where
	 * those frames end: until they are sent, only they may go, so a
	 * moved SL's new frames never overtake its old ones. */
	uint16_t fence;
	uint32_t fence_tail[IBEX_VL_COUNT];
	struct ibex_sl2vl sl2vl;  /**< the table the queued frames followed */            /**< tables generation applied */
	struct ibex_shaper shaper;
	uint32_t head_len[IBEX_VL_COUNT]; /**< bytes of each lane's head */
	struct ibex_vlq q[IBEX_VL_COUNT];
	struct ibex_vlarb arb;
	struct ibex_ecn_vars ecn_vars[IBEX_VL_COUNT];
	struct ibex_ecn_stats ecn_stats[IBEX_VL_COUNT];
	struct ibex_lane_counters lane[IBEX_VL_COUNT];
	struct ibex_hist *res[IBEX_VL_COUNT][2];
	uint32_t slots;          /**< slots of each lane queue */
	struct ibex_vlq_ent *ring; /**< all lanes' slots */
} __rte_cache_aligned;

struct ibex_rxq {
	uint16_t port;           /**< ibex port index */
	uint16_t queue;
};

/**
 * A worker's private memory of FDB answers, in front of the shared table
 * (like OVS's exact-match cache): the common case of a few busy stations
 * costs one compare instead of a lock-free probe with its re-checks. A slot
 * is trusted only while the FDB version it was filled under is current.
 */
struct ibex_mac_slot {
	uint64_t key;            /**< vid << 48 | mac; 0 = empty */
	uint32_t version;        /**< ibex_fdb_version() when filled */
	uint32_t until_ms;       /**< source slots: no re-check before this */
	uint16_t port;
};

/**
 * The worker's first-level cache: one probe answers both questions a frame
 * asks (is its source known and fresh on this port? where does its
 * destination go?) for the (dst, vid, src, in_port) it was filled for.
 */
struct ibex_flow_slot {
	uint64_t key0;           /**< header bytes 0-7: dst mac, src 0-1 */
	uint64_t key1;           /**< bytes 8-11 (src 2-5) | (vid |
				      in_port << 12 | sl << 18) << 32 */
	uint32_t until_ms;       /**< the source needs no re-check before this */
	uint32_t ans;            /**< egress port | its lane << 16 |
				      the ingress lane << 20 */
} __rte_aligned(32);         /* a probe never straddles two cache lines */

struct ibex_dp;
struct ibex_fc;

/** Management (VL15) admission of one ingress port: a frame per vl15_tsc. */
struct ibex_vl15_bucket {
	uint64_t next_tsc;       /**< earliest time the next frame may enter */
};

/** One worker lcore's private state. */
struct ibex_worker {
	struct ibex_dp *dp;
	unsigned int lcore_id;
	uint16_t index;
	uint16_t nb_rxq;
	uint16_t rxq_first;      /**< queue polled first this iteration */
	struct ibex_rxq rxq[IBEX_MAX_RXQ_PER_WORKER];
	uint64_t pending_tx;     /**< ports with frames in tx[] */
	uint64_t busy_tsc;       /**< TSC spent on iterations that moved frames */
	uint64_t iterations;
	uint64_t busy_iterations;
	uint32_t fdb_version;    /**< read once per iteration; a change
				      empties the flow cache */
	/** Per egress port: bits 0-14 lane has frames queued, bit 15 port
	 * shaped, bits 16-30 lane blocked (paused / no credit). One word so
	 * the cut-through test is one load. */
	uint32_t gate[IBEX_MAX_PORTS];
	uint32_t tables_gen;     /**< generation of the tables last applied */
	uint32_t now_ms;         /**< coarse clock: ibex_dp_clock_ms() of the
				      iteration, kept by the worker itself */
	uint64_t ms_next_tsc;    /**< TSC at which now_ms next advances */
	uint64_t tsc_per_ms;
	uint64_t rx_tsc;         /**< TSC of the burst being processed */
	struct ibex_ecn_rng rng;
	struct ibex_egress *eg[IBEX_MAX_PORTS];
	struct ibex_fc *fc;      /**< flow control, NULL when no port has it */
	struct ibex_vl15_bucket vl15[IBEX_MAX_PORTS];
	struct ibex_flow_slot flow_cache[IBEX_MAC_CACHE];
	struct ibex_mac_slot dst_cache[IBEX_MAC_CACHE];
	struct ibex_mac_slot src_cache[IBEX_MAC_CACHE];
	struct ibex_port_counters cnt[IBEX_MAX_PORTS];
	struct ibex_txbuf tx[IBEX_MAX_PORTS];
	/** The context an eBPF classifier runs on, rebuilt per frame. */
	struct ibex_bpf_ctx bpf_ctx __rte_cache_aligned;
	struct ibex_bpf_counters bpf_cnt[IBEX_MAX_PORTS];
} __rte_cache_aligned;

/** The switch as the data path sees it. */
struct ibex_dp {
	uint16_t nb_ports;
	uint16_t nb_workers;
	uint16_t nb_started;     /**< ports configured and started */
	uint16_t burst;
	uint16_t port_id[IBEX_MAX_PORTS];   /**< ethdev port id per ibex port */
	char port_name[IBEX_MAX_PORTS][IBEX_NAME_LEN];
	uint64_t tx_drain_tsc;   /**< 0: flush TX at the end of every iteration */
	struct rte_mempool *pool;
	struct rte_ring *learn_ring;
	struct ibex_fdb *fdb;
	_Atomic(struct ibex_dp_tables *) tables;
	/** The control thread sleeping with the learn ring empty: the
	 * worker that posts next clears it and writes learn_efd (see
	 * ibex_dp_learn_wake()). */
	_Atomic uint32_t learn_armed;
	int learn_efd;           /**< eventfd, valid while learn_armed is set */
	_Atomic bool stop;
	uint64_t tsc_hz;
	struct rte_rcu_qsbr *qsbr; /**< workers' quiescent states (tables) */
	struct ibex_conf *conf;  /**< the running configuration (control) */
	struct ibex_worker *workers[IBEX_MAX_WORKERS];
	/** What each port's classifier is (counters unused), written by the
	 * control thread when tables are published, read by telemetry. */
	pthread_mutex_t bpf_lock;
	struct ibex_dp_bpf_view bpf_info[IBEX_MAX_PORTS];
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

/** Worker lcore entry point (rte_eal_remote_launch); arg is a worker. */
int ibex_dp_worker_main(void *arg);

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

/** Build tables from a config (control thread). NULL on failure. */
struct ibex_dp_tables *ibex_dp_tables_build(const struct ibex_conf *conf);

/** Build tables of generation @p gen. @return 0 or -errno with @p err. */
int ibex_dp_tables_make(struct ibex_dp_tables **tp,
			const struct ibex_conf *conf, uint32_t gen,
			char *err, size_t errlen);

/**
 * Load the eBPF classifiers @p conf names into tables @p t (made by
 * ibex_dp_tables_make()), reusing those of @p prev (may be NULL) that name
 * the same file, unchanged, and section. Control thread.
 * @return 0, or -errno with "origin:line: port P: sl-from bpf: reason".
 */
int ibex_dp_tables_bpf(struct ibex_dp_tables *t, const struct ibex_conf *conf,
		       const struct ibex_dp_tables *prev, char *err,
		       size_t errlen);

/** Free tables no worker can still read: drop their programs' references
 * (the last destroys the program), then the memory. NULL is a no-op. */
void ibex_dp_tables_free(struct ibex_dp_tables *t);

/** Record what the programs of just-published tables @p t are, for
 * ibex_dp_bpf_view() (control thread). */
void ibex_dp_bpf_note(struct ibex_dp *dp, const struct ibex_dp_tables *t);

/** Read port @p port's classifier and its counters (counters are kept
 * since start, whatever program ran). @return 0 or -ENOENT. */
int ibex_dp_bpf_view(const struct ibex_dp *dp, uint16_t port,
		     struct ibex_dp_bpf_view *v);

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

/** Flow-control state of one port, as the control plane shows it. */
struct ibex_dp_fc_view {
	uint8_t mode;                  /**< enum ibex_fc_mode */
	uint16_t lossless;             /**< VL mask */
	uint16_t paused_vls;           /**< egress lanes paused now (PFC) */
	uint16_t wd_drop_vls;          /**< lanes the watchdog drains */
	uint32_t credits[IBEX_VL_COUNT];   /**< blocks we may still send */
	uint32_t buf_used[IBEX_VL_COUNT];  /**< blocks charged to (port, VL) */
	uint32_t buf_free[IBEX_VL_COUNT];  /**< credit we may advertise */
	bool xoff[IBEX_VL_COUNT];      /**< we assert XOFF for the lane */
	uint64_t fc_tx, fc_rx, fc_tx_fail;
	uint64_t pfc_tx, pfc_rx, pfc_ignored;
	uint64_t xoff_tx, xon_tx, xoff_rx, xon_rx;
	uint64_t storms, restored;
	uint64_t handoff_lost;         /**< FC frames lost on the way to the
					    port's owner worker */
	uint64_t paused_ns[8];         /**< per priority */
	uint64_t violations[IBEX_VL_COUNT];
};

/**
 * Read the flow-control state of @p port (control thread; relaxed reads
 * of the worker's words). @return 0, or -ENOENT when no port runs flow
 * control (@p v is then zeroed with mode none).
 */
int ibex_dp_fc_view(const struct ibex_dp *dp, uint16_t port,
		    struct ibex_dp_fc_view *v);

/**
 * Apply a new validated configuration while traffic runs (control thread):
 * builds new immutable tables (VLAN, SL/VL, arbiter, shaper, ECN, flow
 * control parameters, admin state), publishes them with an atomic pointer
 * swap, waits for every worker to pass a quiescent state (rte_rcu_qsbr)
 * and frees the old ones. FDB static entries are added/removed to match.
 * Ports, workers, queues and pool sizes cannot change live: a config that
 * changes them is refused with -ENOTSUP and a message. On any error
 * nothing changes. @return 0 or -errno.
 */
int ibex_dp_reconfigure(struct ibex_dp *dp, const struct ibex_conf *conf,
			char *err, size_t errlen);

/** Wait until every port reports link up, or @p timeout_ms passes.
 * @return 0, or -ETIMEDOUT naming the first port still down in @p err. */
int ibex_dp_wait_links(const struct ibex_dp *dp, uint32_t timeout_ms,
		       char *err, size_t errlen);

#endif /* IBEX_DP_H */
