/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_FC_H
#define IBEX_FC_H

/**
 * @file
 * Flow control on the data path (docs/flow-control.md: admission, credits
 * and PFC): buffer accounting per (ingress port, VL), ibex credits and
 * 802.1Qbb PFC, the PFC watchdog. The pure state machines live in
 * lib/credit; this is the glue that runs them on a worker.
 *
 * Ownership with any number of workers (docs/flow-control.md, "Many
 * workers"). A frame never changes worker: the worker that receives it
 * admits it, queues it, transmits it on its own TX queue and releases its
 * blocks. So:
 *
 *   buffer    each worker owns a slice (struct ibex_buf, one writer): the
 *             configured buffer, reserved shares, headroom and shared pool
 *             with its dynamic threshold, for the frames it receives;
 *   per port  one owner (the worker polling the port's RX queue 0) runs
 *             the port's flow control: credit frames, PFC generation and
 *             refresh, received pauses and the watchdog. Flow-control
 *             frames another worker receives reach the owner over an
 *             MP/SC ring (a few thousand a second, never data);
 *   ingress   credit: each worker counts the blocks it receives (its ABR
 *             share, one writer); the owner advertises ABR (the sum) plus
 *             the smallest free share among the slices, which every slice
 *             can hold whichever queue RSS puts the frames on. PFC: the
 *             owner judges each lossless lane on the sum of the slices
 *             (its use in all of them against the threshold the pool's
 *             summed use leaves, ibex_buf_pfc_judge()) and asserts XOFF
 *             while that sum or any slice wants it, XON when neither
 *             does. A slice still sends XOFF (and refreshes) from its own
 *             worker the moment its own lane crosses, never XON: that
 *             keeps its headroom enough for what is in flight. It counts
 *             its XOFF edges (xoff_seq, one writer) so the owner follows
 *             even one it never saw asserted with an XON; the owner counts
 *             its XONs (xon_seq) so a slice that crossed just after the
 *             owner looked sends its XOFF again at once. Cost: the
 *             owner's housekeeping reads N x (the lane's and the pool's
 *             use, published by each worker in a line of its own when
 *             they move, + a count per priority); nothing per frame;
 *   egress    credit: one atomic counter of blocks claimed per lane, taken
 *             once per RX burst (a chunk, the unused part given back at
 *             the burst's end) or per frame on the queued path, compared
 *             with the peer's limit by the IB rule: the workers together
 *             never send beyond FCCL. Each worker counts the blocks TX
 *             accepted; their sum is the FCTBS the owner reports. Paused
 *             and drained lanes are published by the owner in a word the
 *             workers copy into their gate words every housekeeping, and
 *             after an RX burst or before a TX drain when the owner's
 *             generation moved (ibex_fc_pause_check()).
 *
 * With one worker every state is that worker's and nothing above costs
 * anything: the shared part is absent (ibex_fc.multi false).
 *
 * Per frame (only for ports with flow control), in ibex_dp.c over the
 * state here (fc_ingress*(), egress_may_send() and the credit_*() there):
 *   ingress   admission          charge blocks (struct ibex_buf), or count
 *                                a violation/drop; credit ports count ABR
 *   egress    lane eligibility   credit for the head frame / not paused
 *   TX        ibex_fc_release()  give the blocks back (pause edges)
 * fc cbfc (one worker) adds the send rule at the egress gate and R_CC at
 * ingress; R_CF follows what the buffer holds (ibex_fc_cbfc.c).
 * Every microsecond (IBEX_FC_HK_NS): ibex_fc_housekeeping() sends due
 * credit and PFC frames, refreshes pauses, runs the watchdog and
 * recomputes paused lanes.
 */

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>

#include "ibex_buf.h"
#include "ibex_cbfc.h"
#include "ibex_credit.h"
#include "ibex_fcframe.h"
#include "ibex_pfc.h"
#include "ibex_vl.h"

/** Per-port flow-control counters (one writer: the worker). */
struct ibex_fc_counters {
	uint64_t fc_tx;          /**< credit frames sent */
	uint64_t fc_rx;          /**< credit frames applied */
	uint64_t fc_tx_fail;     /**< FC frames TX did not take */
	uint64_t pfc_tx;         /**< PFC frames sent */
	uint64_t pfc_rx;         /**< PFC frames received (incl. ignored) */
	uint64_t pfc_ignored;    /**< zero class-enable vector */
	uint64_t xoff_tx;        /**< XOFF edges sent, all priorities */
	uint64_t xon_tx;
	uint64_t xoff_rx;        /**< priorities paused by received frames */
	uint64_t xon_rx;
	uint64_t storms;         /**< watchdog: storms detected */
	uint64_t restored;       /**< watchdog: lanes recovered */
	uint64_t paused_ns[IBEX_PFC_PRIOS]; /**< egress time spent paused */
	uint64_t violations[IBEX_VL_COUNT]; /**< lossless frames with no room */
	uint64_t handoff_lost;   /**< FC frames the owner's ring could not take */
};

/** Flow control of one port on the worker. */
struct ibex_fc_port {
	uint8_t mode;            /**< enum ibex_fc_mode */
	uint16_t lossless;       /**< VL mask */
	uint8_t vl2prio[IBEX_VL_COUNT];   /**< PFC priority, 0xff: none */
	uint16_t prio_vls[IBEX_PFC_PRIOS]; /**< VLs a priority pauses */
	uint8_t lossless_prios;  /**< priorities of the lossless lanes */
	uint8_t mac[6];          /**< source of our FC frames */
	uint8_t paused;          /**< priorities paused at the last scan */
	uint64_t paused_since;   /**< ns, per the last scan (any priority) */
	uint16_t wd_drop;        /**< VLs the watchdog drains by dropping */
	bool rx_pause;           /**< a PFC frame came since the last scan */
	/* State of the lib/credit machines; their params are the tables'
	 * (struct ibex_fc::par). */
	struct ibex_credit_port cp;
	struct ibex_pfc_tx ptx;
	struct ibex_pfc_rx prx;
	struct ibex_credit_stats cp_stats;
	struct ibex_pfc_tx_stats ptx_stats;
	struct ibex_pfc_rx_stats prx_stats;
	struct ibex_fc_counters cnt;
	/* fc cbfc: its state machines (ibex_fc_cbfc.c), apart because they
	 * are large and few ports run them; and the link's rate in bytes
	 * per microsecond, for CF_Update's byte times. */
	struct ibex_cbfc_port *cb;
	uint64_t cb_bytes_per_us;
	/* the port's link-down edges (ibex_dp's link_downs) at the last
	 * look; UINT64_MAX before the first */
	uint64_t cb_link_downs;
};

/** Flow-control housekeeping period, ns. */
#define IBEX_FC_HK_NS 1000
/* Housekeepings between two looks at the pool's free count (a power of
 * two): 8 us, while the floor holds two bursts per port and worker. */
#define IBEX_FC_POOL_HK 8

/** Blocks a slice's published lane or pool use may lag its real use by
 * (struct ibex_fc_slice_pub): 4 KiB, a burst of 32 frames of 128 bytes. */
#define IBEX_FC_PUB_QUANTUM 64u

/**
 * Several workers: what one worker's buffer slice holds of each PFC port's
 * lossless lanes, for the owners' summed judgement (pfc_judge_sum() in
 * ibex_fc_pfc.c). The worker writes it at its own housekeeping, a value only
 * when it moved by IBEX_FC_PUB_QUANTUM blocks or fell to zero; the owners
 * read it every housekeeping. So the owners never read the lane words the
 * frame path writes: a read there took the line from the writer's cache,
 * and its next frame paid a miss for it, every microsecond and lane.
 */
struct ibex_fc_slice_pub {
	_Atomic uint32_t pool;                            /**< shared pool use */
	_Atomic uint16_t xoff[IBEX_MAX_PORTS];            /**< VLs asserting */
	_Atomic uint32_t lane[IBEX_MAX_PORTS][IBEX_VL_DATA_MAX]; /**< blocks */
} __rte_cache_aligned;

/**
 * Several workers: what one worker holds of a credit port's lanes, for
 * the owner's credit frames (credit_gather_multi() in ibex_fc_credit.c):
 * its ABR share, the blocks its TX took (its part of FCTBS) and the room its
 * slice has. The worker writes it at its own housekeeping, a word only
 * when it changed, the room before the share (the share's release): the
 * owner, reading the share first (acquire), sees room at least as new as
 * the share, so no frame counts both as received and as room. Stale
 * figures only grant less. The owner reads these few lines instead of
 * the buffer's lanes, the ABR and FCTBS words the frame path writes
 * (each read of those took the line from the writer's cache).
 */
struct ibex_fc_credit_pub {
	struct {
		_Atomic uint32_t abr;
		_Atomic uint32_t done;
		_Atomic uint32_t room;
	} vl[IBEX_CREDIT_MAX_VLS];
} __rte_cache_aligned;

/** Mbufs of the flow-control frame pool. */
#define IBEX_FC_POOL 1023

/** Blocks a burst claims at once on a credit lane shared by workers: a
 * burst of 32 frames of 512 bytes; the unused part goes back at its end. */
#define IBEX_FC_CLAIM_BLOCKS 256u

/** Flow-control frames on their way to a port's owner (per port). */
#define IBEX_FC_HANDOFF_RING 1024

/** Egress credit of one port shared by the workers (several workers only). */
struct ibex_fc_credit_lanes {
	/** Blocks claimed by all workers, not masked (the IB rule compares it
	 * mod 4096): a worker claims with a compare-and-swap, gives back with
	 * a subtraction. */
	_Atomic uint32_t claimed[IBEX_CREDIT_MAX_VLS];
	/** FCCL the peer last sent (the owner stores it). */
	_Atomic uint16_t fccl[IBEX_CREDIT_MAX_VLS];
} __rte_cache_aligned;

struct ibex_fc;
struct rte_ring;

/** What the workers share when there are several (see the file comment). */
struct ibex_fc_shared {
	uint16_t nb_workers;
	uint16_t owner[IBEX_MAX_PORTS];          /**< worker index per port */
	struct ibex_fc *wfc[IBEX_MAX_WORKERS];   /**< every worker's state */
	struct rte_ring *handoff[IBEX_MAX_PORTS]; /**< FC frames to the owner */
	/* Written by a port's owner, read by every worker each housekeeping:
	 * each stored only when it changes, and apart from the owner's own
	 * words below, so that the workers' copies of these lines stay valid
	 * (one miss per change, not one per microsecond). */
	/** Gate bits 16-30 (paused or drained lanes) and the drained lanes,
	 * per port, published by the owner. */
	_Atomic uint32_t blocked[IBEX_MAX_PORTS] __rte_cache_aligned;
	_Atomic uint16_t wd_drop[IBEX_MAX_PORTS];
	/** XONs the owner sent per (port, priority): a slice that still
	 * asserts XOFF when this moves sends its XOFF again. */
	uint32_t xon_seq[IBEX_MAX_PORTS][IBEX_PFC_PRIOS];
	/** Per PFC port, the priorities the owner holds paused (written by
	 * the owner before the XON that ends one, xon_seq's release): every
	 * other worker keeps them asserted in its own generator, so that
	 * the pause is refreshed while any one worker runs, not only while
	 * the owner or the crossing slice's worker does. */
	_Atomic uint8_t held[IBEX_MAX_PORTS];
	/* The owners' own (no other worker reads them). */
	/** PFC judged on the sum of the slices: per port the lanes whose
	 * summed use is past XOFF (ibex_buf_pfc_judge()), and per (port,
	 * priority) the sum of the workers' xoff_seq seen. */
	uint16_t sum_xoff[IBEX_MAX_PORTS] __rte_cache_aligned;
	uint32_t xoff_seen[IBEX_MAX_PORTS][IBEX_PFC_PRIOS];
	/** ABR = abr_base + the workers' shares. */
	uint16_t abr_base[IBEX_MAX_PORTS][IBEX_CREDIT_MAX_VLS];
	/** Moves (release) each time an owner changes a PFC port's blocked
	 * word, after the store: a worker compares it with what it last
	 * copied after every RX burst and before it drains its TX buffers
	 * (ibex_fc_pause_check()), so one that was off its CPU when a pause
	 * came does not forward or send with the gate of before. Read by
	 * every worker per burst, written per pause edge: a line of its own. */
	_Atomic uint32_t pause_gen __rte_cache_aligned;
	struct ibex_fc_credit_lanes cr[IBEX_MAX_PORTS];
	/** The ports' flow control as one worker would run it: credit frame
	 * timing, PFC generator, received pauses, watchdog, counters. Only a
	 * port's owner writes its entry. */
	struct ibex_fc_port port[IBEX_MAX_PORTS];
};

/** A worker's flow-control state. */
struct rte_mempool;
struct ibex_fc {
	struct rte_mempool *pool; /**< FC frames (small, stays in cache) */
	bool pool_shared;         /**< the process's (ibex_dp_shared_pools_set()) */
	bool multi;              /**< several workers: sh is set */
	uint16_t index;          /**< the worker's */
	struct ibex_fc_shared *sh;
	uint64_t owned;          /**< fc ports whose owner this worker is */
	uint64_t cr_multi;       /**< credit ports whose TX blocks are counted
				      for the owner (multi only, else 0) */
	/** Per credit port and VL (multi): blocks claimed whose frames TX has
	 * not taken yet, and blocks TX took (published, one writer). */
	uint32_t cr_pend[IBEX_MAX_PORTS][IBEX_CREDIT_MAX_VLS];
	uint32_t cr_done[IBEX_MAX_PORTS][IBEX_CREDIT_MAX_VLS];
	/** Per credit port and VL (multi): this worker's ABR share as of the
	 * end of its last RX burst from the port (release store; read by the
	 * owner at an INIT, see ibex_fc_abr_publish). */
	uint32_t abr_pub[IBEX_MAX_PORTS][IBEX_CREDIT_MAX_VLS];
	/** Per PFC port and priority: XOFF edges this worker's slice
	 * asserted and XOFF frames its generator sent (one writer, release
	 * store; several workers: the port's owner follows each with an XON
	 * once nothing asserts any more), and the owner's xon_seq as this
	 * worker last acted on it. */
	uint32_t xoff_seq[IBEX_MAX_PORTS][IBEX_PFC_PRIOS];
	uint32_t xon_seen[IBEX_MAX_PORTS][IBEX_PFC_PRIOS];
	uint32_t pause_gen;      /**< sh->pause_gen as last copied */
	uint64_t last_hk_tsc;    /**< last housekeeping */
	uint32_t pool_hk;            /* housekeepings, for IBEX_FC_POOL_HK */
	uint64_t hk_tsc;         /**< IBEX_FC_HK_NS in TSC ticks */
	uint64_t fc_ports;       /**< ports with fc credit or pfc */
	uint64_t credit_ports;
	uint64_t pfc_ports;
	uint64_t cbfc_ports;
	uint64_t ns_mult;        /**< ns = tsc * ns_mult >> 32 */
	/** Per port, the flow-control params of the tables the worker runs
	 * (ibex_dp_tables::fc): set by ibex_fc_update() when it takes new
	 * tables, read only inside an iteration (RCU). */
	const struct ibex_dp_fc_conf *par;
	struct ibex_fc_slice_pub pub;  /**< several workers: the slice, for
					    the owners */
	/** Several workers: per credit port, for its owner. */
	struct ibex_fc_credit_pub cr_pub[IBEX_MAX_PORTS];
	struct ibex_buf buf;
	struct ibex_fc_port port[IBEX_MAX_PORTS];
};

/** Marks a TX buffer / lane queue entry whose blocks are charged. */
#define IBEX_FC_SRC_CHARGED 0x8000u
#define IBEX_FC_SRC(port, vl) (IBEX_FC_SRC_CHARGED | (port) << 4 | (vl))
#define IBEX_FC_SRC_PORT(s) (((s) >> 4) & 0x3f)
#define IBEX_FC_SRC_VL(s) ((s) & 0xf)

static inline uint64_t
ibex_fc_ns(const struct ibex_fc *fc, uint64_t tsc)
{
	return (uint64_t)(((unsigned __int128)tsc * fc->ns_mult) >> 32);
}

/** Pause edge from the buffer: tell the ingress port's PFC generator. */
static inline void
ibex_fc_pause_edge(struct ibex_fc *fc, unsigned int port, unsigned int vl,
		   uint8_t edge)
{
	struct ibex_fc_port *fp = &fc->port[port];
	uint8_t prio = fp->vl2prio[vl];

	/* Several workers: this is the slice's own generator, which sends
	 * XOFF and its refreshes but never XON (the owner's, which sums the
	 * slices, does). */
	if (edge == IBEX_BUF_PAUSE_NONE || prio >= IBEX_PFC_PRIOS ||
	    fp->mode != IBEX_FC_PFC)
		return;
	ibex_pfc_tx_set(&fp->ptx, prio, edge == IBEX_BUF_PAUSE_XOFF);
	/* Published before the edge is counted (the count's release), so an
	 * owner that sees the count sees the slice asserting and answers no
	 * XON while it does. */
	if (fc->multi)
		atomic_store_explicit(&fc->pub.xoff[port], (uint16_t)
			((atomic_load_explicit(&fc->pub.xoff[port],
					       memory_order_relaxed) &
			  ~(1u << vl)) |
			 (uint32_t)(edge == IBEX_BUF_PAUSE_XOFF) << vl),
			memory_order_relaxed);
	/* An edge, not a frame: the owner learns of every XOFF, however
	 * short, and sends the XON that ends it. */
	if (edge == IBEX_BUF_PAUSE_XOFF)
		__atomic_store_n(&fc->xoff_seq[port][prio],
				 fc->xoff_seq[port][prio] + 1,
				 __ATOMIC_RELEASE);
}

/** Give back the blocks of a charged frame (TX took it, or it was
 * dropped after admission). */
static inline void
ibex_fc_release(struct ibex_fc *fc, uint16_t src, uint32_t len)
{
	unsigned int port = IBEX_FC_SRC_PORT(src), vl = IBEX_FC_SRC_VL(src);
	struct ibex_buf_result r;

	r = ibex_buf_release(&fc->buf, port, vl, ibex_blocks(len));
	ibex_fc_pause_edge(fc, port, vl, r.pause);
}

/**
 * Several workers: claim credit on egress lane (@p port, @p vl) for at
 * least @p need blocks (1..256, a frame) and at most @p want, by the IB
 * rule (ibex_credit_room()) against the peer's FCCL, the workers' claims
 * standing for FCTBS. @return the blocks claimed, 0 when @p need does not
 * fit.
 */
static inline uint32_t
ibex_fc_credit_claim(struct ibex_fc_shared *sh, unsigned int port,
		     unsigned int vl, uint32_t need, uint32_t want)
{
	struct ibex_fc_credit_lanes *cl = &sh->cr[port];
	uint32_t cur = atomic_load_explicit(&cl->claimed[vl],
					    memory_order_relaxed);
	uint16_t fccl = atomic_load_explicit(&cl->fccl[vl],
					     memory_order_relaxed);
	uint32_t avail, take;

	do {
		avail = ibex_credit_room(fccl, cur);
		if (avail < need)
			return 0;
		take = avail < want ? avail : want;
	} while (!atomic_compare_exchange_weak_explicit(&cl->claimed[vl],
			&cur, cur + take, memory_order_relaxed,
			memory_order_relaxed));
	return take;
}

/** Give back @p n claimed blocks no frame used. */
static inline void
ibex_fc_credit_unclaim(struct ibex_fc_shared *sh, unsigned int port,
		       unsigned int vl, uint32_t n)
{
	if (n != 0)
		atomic_fetch_sub_explicit(&sh->cr[port].claimed[vl], n,
					  memory_order_relaxed);
}

/** Blocks the workers may still send on a shared lane. */
static inline uint32_t
ibex_fc_credit_avail(const struct ibex_fc_shared *sh, unsigned int port,
		     unsigned int vl)
{
	const struct ibex_fc_credit_lanes *cl = &sh->cr[port];

	return ibex_credit_room(atomic_load_explicit(&cl->fccl[vl],
						     memory_order_relaxed),
				atomic_load_explicit(&cl->claimed[vl],
						     memory_order_relaxed));
}

/**
 * Several workers, after an RX burst from credit port @p port: publish
 * this worker's ABR share as of the burst's end, when every frame counted
 * in it is charged (or dropped). The owner reads it when the peer's INIT
 * resets ABR to the peer's FCTBS (credit_apply_multi()): the base is that
 * FCTBS less the shares, so a share behind by a burst would count that
 * burst twice. Its credit frames read the housekeeping figures instead
 * (struct ibex_fc_credit_pub).
 */
static inline void
ibex_fc_abr_publish(struct ibex_fc *fc, uint16_t port, unsigned int n_vls)
{
	unsigned int v;

	for (v = 0; v < n_vls; v++)
		__atomic_store_n(&fc->abr_pub[port][v],
				 fc->port[port].cp.rx[v].abr,
				 __ATOMIC_RELEASE);
}

/**
 * Several workers: TX took the first @p sent of a credit port's buffered
 * frames (@p left were not taken, @p left_blocks their blocks). What was
 * claimed for them now counts in the FCTBS the owner reports: all of it
 * when nothing is left, else what cannot belong to the frames left.
 */
void ibex_fc_tx_done(struct ibex_fc *fc, uint16_t port, uint32_t left_blocks);

struct ibex_worker;

/** Copy the paused and drained lanes the owners publish into the worker's
 * gate words (several workers); @p gen is sh->pause_gen, just read. */
void ibex_fc_pause_sync(struct ibex_worker *w, uint32_t gen);

/**
 * Several workers, after an RX burst and before the TX drain: has an
 * owner paused or resumed a lane since this worker copied the gates? A
 * worker copies them at its housekeeping, but one descheduled between
 * that and its next RX burst (milliseconds when workers share CPUs) would
 * forward the burst into a lane paused meanwhile. One load of a line the
 * owners write only at pause edges.
 */
static inline void
ibex_fc_pause_check(struct ibex_worker *w, struct ibex_fc *fc)
{
	uint32_t gen = atomic_load_explicit(&fc->sh->pause_gen,
					    memory_order_acquire);

	if (unlikely(gen != fc->pause_gen))
		ibex_fc_pause_sync(w, gen);
}

/** The per-port state of @p port's flow control (timers, pauses,
 * counters): the shared one with several workers. */
static inline struct ibex_fc_port *
ibex_fc_port_state(struct ibex_fc *fc, uint16_t port)
{
	return fc->multi ? &fc->sh->port[port] : &fc->port[port];
}


#endif /* IBEX_FC_H */
