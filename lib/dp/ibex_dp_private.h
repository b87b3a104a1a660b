/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_DP_PRIVATE_H
#define IBEX_DP_PRIVATE_H

/**
 * @file
 * lib/dp internals, included only by lib/dp's .c files (callers use
 * ibex_dp.h): the tables the workers read (immutable once published,
 * swapped under RCU), a worker's private state and its per-port egress
 * and TX buffers, and the table builders. Each worker writes only its own
 * struct ibex_worker; the control thread reads it through the views of
 * ibex_dp.h.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_mbuf.h>

#include "ibex_bpf_ctx.h"
#include "ibex_dp.h"
#include "ibex_credit.h"
#include "ibex_dp_cache.h"
#include "ibex_ecmp.h"
#include "ibex_ecn.h"
#include "ibex_pfc.h"
#include "ibex_shaper.h"
#include "ibex_vl.h"
#include "ibex_vlarb.h"
#include "ibex_vlq.h"

/** Frames a worker may hold per egress port on their way to TX. */
#define IBEX_TXBUF_LEN 512
/** Frames in a TX buffer beyond which new frames queue in their lane
 * instead of cutting through (TX has no room this iteration). */
#define IBEX_CT_LIMIT 256

/** UEC packet trimming of a port (`trim`): a frame its lossy lanes
 * would tail-drop leaves trimmed to len bytes, DSCP dscp, on lane vl. */
struct ibex_trim {
	uint16_t len;            /**< 0: off */
	uint8_t dscp;
	uint8_t vl;
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
	struct ibex_trim trim;   /**< packet trimming (len 0: off) */
};

/** Flow-control parameters of one port, the lib/credit params its
 * state machines run (built from the config once per change, in
 * ibex_dp_tables_make(): the one place their units are converted). A
 * live change swaps them with the tables; modes, lanes and buffer sizes
 * need a restart. Only the set of the port's fc mode is filled. */
struct ibex_dp_fc_conf {
	struct ibex_credit_params credit;
	struct ibex_pfc_tx_params pfc_tx;
	struct ibex_pfc_rx_params pfc_rx;
};

struct ibex_dp_agg_tables {
	uint16_t nb_jobs;
	struct ibex_dp_agg_job job[IBEX_MAX_AGG_JOBS];
};

struct ibex_conf;
/** The tables' entry of job @p i of @p conf. */
void ibex_dp_agg_job_of(const struct ibex_conf *conf, uint16_t i,
			struct ibex_dp_agg_job *j);

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
	/** Ports the control thread is restarting (ibex_link.c): not polled,
	 * nothing sent to them; their frames wait in the worker. */
	uint64_t detached;
	uint64_t trusted;        /**< ports management (VL15) frames may enter */
	/** Ports with flood on: a flooded frame goes only to them, and only
	 * a frame that entered by one of them is flooded (a port off the
	 * fabric's flooding tree would loop it back into the tree). */
	uint64_t flood_ports;
	uint64_t vl15_tsc;       /**< TSC ticks per VL15 frame (rate limit) */
	uint64_t tx_drain_tsc;   /**< 0: flush TX at the end of every iteration */
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
	/** ECMP groups by index (ibex_conf.ecmp), the FDB's group egresses,
	 * and the seed of their flow hash. */
	uint16_t nb_ecmp;
	uint32_t ecmp_seed;
	struct ibex_ecmp_group ecmp[IBEX_MAX_ECMP_GROUPS];
	char ecmp_name[IBEX_MAX_ECMP_GROUPS][IBEX_NAME_LEN];
	/** Adaptive routing: the members of adaptive groups (their egress
	 * keeps a virtual wire, ibex_worker.ar_busy), and each port's TSC
	 * ticks per byte at its rate, 16.16 fixed point. */
	uint64_t ar_ports;
	uint32_t ar_tpb_q16[IBEX_MAX_PORTS];
	/** In-network aggregation: the jobs this switch takes part in
	 * (ibex_dp_agg.c). */
	struct ibex_dp_agg_tables agg;
};

/** Note the groups of newly published tables @p t for the views. */
void ibex_dp_ecmp_note(struct ibex_dp *dp, const struct ibex_dp_tables *t);

/** A TX buffer's note of a frame's charge: IBEX_FC_SRC() << 16 | its
 * blocks; source 0 for a frame not charged to the buffer (its blocks are
 * not released). */
#define IBEX_TXCHARGE(src, blocks) ((uint32_t)(src) << 16 | (blocks))
#define IBEX_TXCHARGE_SRC(t) ((uint16_t)((t) >> 16))
#define IBEX_TXCHARGE_BLOCKS(t) ((t) & 0xffffu)

/** Frames on their way to one egress port's TX queue, on one worker: cut
 * through this iteration or picked by the arbiter. The first frames
 * share the header's cache line, and a flush reads the lane sums of the
 * lanes used only: a buffer of one frame touches three lines (header,
 * its charge, its lane's sum), what a hop costs where thousands of
 * ports take turns on one core (the virtual clock). */
struct ibex_txbuf {
	uint16_t count;
	uint16_t txq;
	uint16_t ct_lanes;       /**< lanes whose ct_sum is not zero */
	uint64_t first_tsc;      /**< when the oldest waiting frame arrived */
	uint64_t bytes;          /**< bytes held: queued frames as they come,
				      cut-through ones folded in at flush */
	uint64_t ct_tsc;         /**< RX time of the first frame held */
	struct rte_mbuf *pkts[IBEX_TXBUF_LEN];
	/** Per frame, IBEX_TXCHARGE(): what TX taking it gives back. */
	uint32_t charge[IBEX_TXBUF_LEN];
	/** Per lane, cut-through frames held: frames << 40 | bytes. */
	uint64_t ct_sum[IBEX_VL_COUNT];
} __rte_cache_aligned;

/** ibex_worker.gate bits: lanes with frames queued (bits 0-14). */
#define IBEX_GATE_BUSY 0x7fffu
/** The port is shaped: every frame takes the slow egress path. */
#define IBEX_GATE_SHAPED 0x8000u
/** Lanes paused by PFC or drained by the watchdog (bits 16-30). */
#define IBEX_GATE_BLOCKED(vl) (UINT32_C(0x10000) << (vl))
#define IBEX_GATE_BLOCKED_ALL UINT32_C(0x7fff0000)
/** The port runs credits (fc credit or cbfc): a lossless lane's frame
 * needs credit to go. */
#define IBEX_GATE_CREDIT UINT32_C(0x80000000)

/** Bits of a classifier entry in the tables: the SL drops at ingress;
 * the ingress port runs flow control. */
#define IBEX_CLASS_IN_DROP 0x10
#define IBEX_CLASS_FC 0x20
/** The ingress port runs credits: count its frames in ABR (fc credit)
 * or R_CC (fc cbfc). */
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
	struct ibex_sl2vl sl2vl;  /**< the table the queued frames followed */
	struct ibex_shaper shaper;
	uint32_t head_len[IBEX_VL_COUNT]; /**< bytes of each lane's head */
	struct ibex_vlq q[IBEX_VL_COUNT];
	struct ibex_vlarb arb;
	struct ibex_ecn_vars ecn_vars[IBEX_VL_COUNT];
	struct ibex_ecn_stats ecn_stats[IBEX_VL_COUNT];
	struct ibex_lane_counters lane[IBEX_VL_COUNT];
	struct ibex_trim trim;   /**< the tables' (worker_apply_tables()) */
	struct ibex_hist *res[IBEX_VL_COUNT][2];
	void *res_block;         /**< every res[][] */
	uint32_t slots;          /**< slots of each lane queue */
	struct ibex_vlq_ent *ring; /**< all lanes' slots */
	/** Bytes of res_block and ring when mapped, 0 from DPDK's heap
	 * (ibex_port.c, sparse_zalloc()). */
	size_t res_mapped, ring_mapped;
} __rte_cache_aligned;

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
	/** Frames a TX buffer may hold beyond which new frames of a
	 * lossless lane queue in it: IBEX_CT_LIMIT, or a burst under the
	 * virtual clock (ibex_dp_virtual_attach()). Past it, egress_send()
	 * takes the slow side, which lets lossy frames on to IBEX_CT_LIMIT. */
	uint16_t ct_limit;
	/** dp->capture, read once per iteration (NULL: no capture, the
	 * one test RX bursts and TX flushes make). */
	struct ibex_capture *cap;
	uint64_t detached;       /**< the tables' (worker_apply_tables()) */
	/** Free mbufs of the pool below dp->pool_floor at the last flow-
	 * control housekeeping: RX keeps flow-control frames alone. */
	bool pool_low;
	/** detached, and every port while pool_low: the ports whose RX
	 * takes the slow way (one test per RX burst for both). */
	uint64_t rx_slow;
	uint64_t tx_drain_tsc;   /**< the tables' (worker_apply_tables()) */
	uint64_t busy_tsc;       /**< TSC spent on iterations that moved frames */
	uint64_t iterations;
	uint64_t busy_iterations;
	uint32_t fdb_version;    /**< read once per iteration; a change
				      empties the flow cache */
	/** Per egress port: bits 0-14 lane has frames queued, bit 15 port
	 * shaped, bits 16-30 lane blocked (paused / no credit). One word so
	 * the cut-through test is one load. */
	uint32_t gate[IBEX_MAX_PORTS];
	/** Per egress port with IBEX_GATE_CREDIT: the lanes that take credit
	 * (lossless). A frame of another lane goes without asking. */
	uint16_t credit_lanes[IBEX_MAX_PORTS];
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
	struct ibex_ecmp_counters ecmp_cnt[IBEX_MAX_ECMP_GROUPS];
	/** The flow hash of the last frame ecmp_member() chose for, so that
	 * a choice of the ingress port is made again on it
	 * (ecmp_not_ingress()) without a second hash function. */
	uint32_t ecmp_h;
	/** Adaptive routing, per egress port of an adaptive group: when the
	 * wire would have sent what this worker gave it (TSC), were it
	 * running at the port's rate. With the lane queue, the load a choice
	 * compares: the ports' own utilisation, no reading of the NIC. */
	uint64_t ar_ports;       /**< the tables' (worker_apply_tables()) */
	uint64_t ar_busy[IBEX_MAX_PORTS];
	uint32_t ar_tpb_q16[IBEX_MAX_PORTS]; /**< the tables' */
	/** Adaptive routing per flowlet: each flow's member and last frame. */
	struct ibex_flowlet flowlet[IBEX_FLOWLET_SLOTS];
	/** In-network aggregation: NULL without an aggregation pool. */
	struct ibex_dp_agg_worker *agg;
} __rte_cache_aligned;

/*
 * In-network aggregation's worker half (ibex_dp_agg.c, docs/aggregation.md).
 */
struct ibex_dp_agg_worker;

/** Each worker's slot pool, and with several workers the rings that
 * steer a packet to the worker owning its slot, when the config has an
 * aggregation pool. @return 0 or -errno with @p err. */
int ibex_dp_agg_create(struct ibex_dp *dp, const struct ibex_conf *conf,
		       char *err, size_t errlen);
/** Free them, and the frames the rings still hold. */
void ibex_dp_agg_free(struct ibex_dp *dp);
/** Whether the jobs of @p conf fit every worker's pool (a live change).
 * @return 0, or -ENOSPC with "file:line: ..." in @p err. */
int ibex_dp_agg_check(const struct ibex_dp *dp, const struct ibex_conf *conf,
		      char *err, size_t errlen);
/** New tables: add, change and remove the worker's jobs to match. */
void ibex_dp_agg_apply(struct ibex_worker *w, const struct ibex_dp_tables *t);
/** Whether frame @p m (IBEX_PKT_F_AGG, from @p in_port) is an
 * aggregation packet of a job this switch runs: the switch takes it
 * then, else it is forwarded as any UDP frame. */
bool ibex_dp_agg_claims(const struct ibex_worker *w,
			const struct ibex_dp_tables *t,
			const struct rte_mbuf *m, bool tagged);
/** Take a claimed frame: on the worker owning its slot, sum it and send
 * what lib/agg says; elsewhere, steer it there. @p sl is its class. */
void ibex_dp_agg_rx(struct ibex_worker *w, const struct ibex_dp_tables *t,
		    struct rte_mbuf *m, uint16_t in_port, unsigned int sl);
/** Per iteration, with a pool: take the frames other workers steered. */
void ibex_dp_agg_poll(struct ibex_worker *w, const struct ibex_dp_tables *t);
/** The data path's way out for a frame the switch made (ibex_dp.c):
 * to @p out on the lane of SL @p sl, unless the port is down. */
void ibex_dp_agg_send(struct ibex_worker *w, const struct ibex_dp_tables *t,
		      uint16_t out, struct rte_mbuf *m, unsigned int sl);

/** Worker lcore entry point (rte_eal_remote_launch); arg is a worker. */
int ibex_dp_worker_main(void *arg);

/** Drop what @p port's TX buffer holds, counted under @p why, its
 * buffer charges given back (ibex_fc_cbfc.c: charged to counters that
 * are gone). */
void ibex_dp_txbuf_drop(struct ibex_worker *w, uint16_t port,
			enum ibex_reason why);

/**
 * The name of one of @p dp's DPDK objects (pools, rings): @p base, with
 * ".N" appended for the data path's instance N > 0, so that several
 * switches in one process (ibex-fabric) never ask EAL for the same name.
 * Truncated to @p len. @return @p buf.
 */
const char *ibex_dp_obj_name(const struct ibex_dp *dp, char *buf, size_t len,
			     const char *base);

/**
 * Mbufs of the pool kept for flow-control frames: below this many free,
 * workers refuse data frames (IBEX_R_POOL_LOW) so the PMDs can still
 * receive the credit and PFC frames that drain the buffer.
 */
/** ibex_dp_shared_pools_set()'s flow-control pool, or NULL. */
extern struct rte_mempool *ibex_dp_shared_fc_pool;

uint32_t ibex_dp_pool_floor(const struct ibex_conf *conf,
			    uint16_t nb_workers);

/**
 * Whether the running pool can back the lossless lanes of @p conf (their
 * reserved shares and headroom, one mbuf per block, beside rings, caches
 * and the floor). @return 0, or -ENOSPC with "file:line: ..." in @p err.
 */
int ibex_dp_pool_check(const struct ibex_dp *dp, const struct ibex_conf *conf,
		       char *err, size_t errlen);

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

/** Publish tables rebuilt from the running config with the ports of
 * dp->detached detached, and wait until no worker reads the old ones
 * (control thread). @return 0 or -errno with @p err; nothing changed then. */
int ibex_dp_tables_republish(struct ibex_dp *dp, char *err, size_t errlen);

/** Port @p p's PMD dials its peer only when started (memif client):
 * ibex_dp_links_poll() restarts it while its link is down. */
bool ibex_port_redials(uint16_t port_id);

/** Free tables no worker can still read: drop their programs' references
 * (the last destroys the program), then the memory. NULL is a no-op. */
void ibex_dp_tables_free(struct ibex_dp_tables *t);

/** Record what the programs of just-published tables @p t are, for
 * ibex_dp_bpf_view() (control thread). */
void ibex_dp_bpf_note(struct ibex_dp *dp, const struct ibex_dp_tables *t);
/*
 * Flow control's worker half (ibex_fc.c): ibex_fc.h knows nothing of the
 * worker or the data path; what runs a worker's flow control on it is
 * declared here.
 */
struct ibex_fc;
struct rte_mbuf;

/** Build every worker's state from the config (workers' fc stay NULL
 * when no port runs flow control), and with several workers what they
 * share. The workers' queues must be assigned. @return 0 or -errno with
 * @p err. */
int ibex_fc_create(struct ibex_dp *dp, const struct ibex_conf *conf,
		   char *err, size_t errlen);

/** Free what ibex_fc_create() built. */
void ibex_fc_free(struct ibex_dp *dp);

/** Take the flow-control params (timers, quanta, watchdog) of new tables:
 * a pointer swap, the state machines keep their state; modes, lanes and
 * buffer sizes need a restart. */
void ibex_fc_update(struct ibex_fc *fc, const struct ibex_dp_tables *t);

/** Hand what @p port's TX buffer holds to TX now. @return whether it is
 * empty (a flow-control frame sent next cannot pass those frames). */
bool ibex_dp_tx_drained(struct ibex_worker *w, uint16_t port);

/** Consume a frame received on @p port whose EtherType (after a tag, if
 * any: IBEX_PKT_F_FC) is flow control, 0x8808 or 0x88B5: acted on when the
 * port's fc mode uses it, else counted as fc-ignored, or as fc-frame-bad
 * when malformed or tagged. Never forwarded; it has been freed.
 * @return true. */
bool ibex_fc_rx_frame(struct ibex_worker *w, uint16_t port,
		      struct rte_mbuf *m, uint64_t tsc);

/** Per iteration: send due FC frames, run the watchdog, recompute which
 * egress lanes are paused (into the worker's gate words). */
void ibex_fc_housekeeping(struct ibex_worker *w, uint64_t tsc);
/**
 * Whether worker @p w's flow control has nothing to do until a frame
 * comes: one worker, no shared buffer in use, and every port's mode quiet
 * (struct ibex_fc_mode_ops: PFC with no pause pending, asserted,
 * received, held or stormed; credits with no limit to tell that differs
 * from the last one sent, nothing refused). A housekeeping pass would then send nothing and change
 * no state but its own timestamp, so the virtual clock's executive runs
 * such a switch only when a frame arrives (ibex_dp_virtual_run()).
 */
bool ibex_fc_quiet(const struct ibex_worker *w);

#endif /* IBEX_DP_PRIVATE_H */
