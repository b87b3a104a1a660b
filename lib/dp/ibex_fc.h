/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_FC_H
#define IBEX_FC_H

/**
 * @file
 * Flow control on the data path (DESIGN.md §3 steps 5 and 8, §4 Credits
 * and PFC): buffer accounting per (ingress port, VL), ibex credits and
 * 802.1Qbb PFC, the PFC watchdog. The pure state machines live in
 * lib/credit; this is the glue that runs them on a worker.
 *
 * Ownership: flow control needs one worker (ibex_dp_create() refuses more
 * when a port runs fc credit or pfc). That worker receives every frame, so
 * it admits, releases and transmits alone: the buffer, the credit counters
 * and the pause state have one writer and need no atomics. The control
 * thread reads the counters with relaxed loads.
 *
 * Per frame (only for ports with flow control):
 *   ingress   ibex_fc_admit()    charge blocks, or count a violation/drop;
 *                                credit ports also count ABR
 *   egress    lane eligibility   credit for the head frame / not paused
 *   TX        ibex_fc_release()  give the blocks back (pause edges)
 * Every microsecond (IBEX_FC_HK_NS): ibex_fc_housekeeping() sends due
 * credit and PFC frames, refreshes pauses, runs the watchdog and
 * recomputes paused lanes.
 */

#include <stdbool.h>
#include <stdint.h>

#include "ibex_buf.h"
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
};

/** Flow control of one port on the worker. */
struct ibex_fc_port {
	uint8_t mode;            /**< enum ibex_fc_mode */
	uint16_t lossless;       /**< VL mask */
	uint8_t vl2prio[IBEX_VL_COUNT];   /**< PFC priority, 0xff: none */
	uint16_t prio_vls[IBEX_PFC_PRIOS]; /**< VLs a priority pauses */
	uint8_t mac[6];          /**< source of our FC frames */
	uint8_t paused;          /**< priorities paused at the last scan */
	uint64_t paused_since;   /**< ns, per the last scan (any priority) */
	uint16_t wd_drop;        /**< VLs the watchdog drains by dropping */
	bool rx_pause;           /**< a PFC frame came since the last scan */
	struct ibex_credit_port cp;
	struct ibex_pfc_tx ptx;
	struct ibex_pfc_rx prx;
	struct ibex_fc_counters cnt;
};

/** Flow-control housekeeping period, ns. */
#define IBEX_FC_HK_NS 1000

/** Mbufs of the flow-control frame pool. */
#define IBEX_FC_POOL 1023

/** A worker's flow-control state. */
struct rte_mempool;
struct ibex_fc {
	struct rte_mempool *pool; /**< FC frames (small, stays in cache) */
	uint64_t last_hk_tsc;    /**< last housekeeping */
	uint64_t hk_tsc;         /**< IBEX_FC_HK_NS in TSC ticks */
	uint64_t fc_ports;       /**< ports with fc credit or pfc */
	uint64_t credit_ports;
	uint64_t pfc_ports;
	uint64_t ns_mult;        /**< ns = tsc * ns_mult >> 32 */
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

	if (edge == IBEX_BUF_PAUSE_NONE || prio >= IBEX_PFC_PRIOS ||
	    fp->mode != IBEX_FC_PFC)
		return;
	ibex_pfc_tx_set(&fp->ptx, prio, edge == IBEX_BUF_PAUSE_XOFF);
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

struct ibex_dp;
struct ibex_conf;
struct ibex_worker;

/** Build a worker's state from the config (NULL @p *fcp when no port runs
 * flow control). @return 0 or -errno with @p err. */
int ibex_fc_create(struct ibex_fc **fcp, const struct ibex_dp *dp,
		   const struct ibex_conf *conf, char *err, size_t errlen);

/** Take the live-changeable parameters (timers, quanta, watchdog) of new
 * tables; modes, lanes and buffer sizes need a restart. */
struct ibex_dp_tables;
void ibex_fc_update(struct ibex_fc *fc, const struct ibex_dp_tables *t);

/** Consume a frame received on @p port whose EtherType (after a tag, if
 * any: IBEX_PKT_F_FC) is flow control, 0x8808 or 0x88B5: acted on when the
 * port's fc mode uses it, else counted as fc-ignored, or as fc-frame-bad
 * when malformed or tagged. Never forwarded; it has been freed.
 * @return true. */
struct rte_mbuf;
bool ibex_fc_rx_frame(struct ibex_worker *w, uint16_t port,
		      struct rte_mbuf *m, uint64_t tsc);

/** Per iteration: send due FC frames, run the watchdog, recompute which
 * egress lanes are paused (into the worker's gate words). */
void ibex_fc_housekeeping(struct ibex_worker *w, uint64_t tsc);

#endif /* IBEX_FC_H */
