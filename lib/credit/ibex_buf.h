/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_BUF_H
#define IBEX_BUF_H

/**
 * @file
 * Buffer accounting of the switch in 64-byte blocks.
 *
 * Every admitted frame charges ceil(len / 64) blocks to its (ingress port,
 * VL) until TX accepts it (ibex_buf_release). The buffer is split into:
 *
 *   reserved  per (port, VL): always available to that lane
 *   headroom  per (port, lossless VL) on PFC ports: absorbs what is in
 *             flight after XOFF is sent (see ibex_buf_headroom_blocks)
 *   shared    the rest, used under a dynamic threshold (Choudhury-Hahne,
 *             as in the HPCC simulator's switch_mmu):
 *                 a lane may hold up to alpha x (free shared blocks)
 *             with alpha = 2^alpha_log2 (HPCC: 1/8, alpha_log2 = -3).
 *
 * Admission tries reserved, then shared, then (lossless PFC lanes)
 * headroom. What does not fit is a tail drop on a lossy VL and a
 * flow-control violation on a lossless VL: the peer ignored credits or
 * PFC. Nothing is dropped silently: the verdict says which.
 *
 * PFC hysteresis per lossless lane (HPCC switch_mmu again):
 *   XOFF when headroom is in use or shared use >= the XOFF threshold
 *   XON  when headroom is empty and shared use + xon_gap <= that threshold
 * where the XOFF threshold is the dynamic one or a static xoff_blocks.
 *
 * Credit lanes advertise only what is guaranteed to them (reserved minus
 * use), never shared space another port could take first.
 */

#include <stdbool.h>
#include <stdint.h>

#include "ibex_common.h"

/** Lanes per port: VL0..VL15. */
#define IBEX_BUF_MAX_VLS 16

/** Per-port flow-control mode. */
enum ibex_fc_mode {
	IBEX_FC_NONE = 0,   /**< no flow control: every VL is lossy */
	IBEX_FC_CREDIT = 1, /**< ibex credits (peer is an ibex switch) */
	IBEX_FC_PFC = 2,    /**< 802.1Qbb PFC (peer is a NIC/switch) */
	IBEX_FC_CBFC = 3,   /**< UEC credit-based flow control (docs/cbfc.md) */
	IBEX_FC_MODE_NB
};

/** The modes' names, as the configuration (`fc MODE`) and every report
 * spell them, indexed by enum ibex_fc_mode and ending with NULL: the one
 * table of them. */
extern const char *const ibex_fc_mode_names[IBEX_FC_MODE_NB + 1];

/** The name of flow-control mode @p mode ("?" for none). */
static inline const char *
ibex_fc_mode_name(unsigned int mode)
{
	return mode < IBEX_FC_MODE_NB ? ibex_fc_mode_names[mode] : "?";
}

/** Where an admitted frame went, or why it did not. */
enum ibex_buf_verdict {
	IBEX_BUF_RESERVED = 0, /**< fits the lane's reserved share */
	IBEX_BUF_SHARED,       /**< partly or wholly in the shared pool */
	IBEX_BUF_HEADROOM,     /**< in PFC headroom (XOFF is on) */
	IBEX_BUF_TAIL_DROP,    /**< lossy VL full: IBEX_R_LOSSY_FULL */
	IBEX_BUF_VIOLATION,    /**< lossless VL over budget: IBEX_R_FC_VIOLATION */
};

/** PFC edge to act on after an admission or release. */
enum ibex_buf_pause {
	IBEX_BUF_PAUSE_NONE = 0,
	IBEX_BUF_PAUSE_XOFF,   /**< lane crossed XOFF: assert pause */
	IBEX_BUF_PAUSE_XON,    /**< lane fell below XON: deassert */
};

/** Result of one admission or release. */
struct ibex_buf_result {
	uint8_t verdict; /**< enum ibex_buf_verdict (admit only) */
	uint8_t pause;   /**< enum ibex_buf_pause */
};

/** Configuration of one port. */
struct ibex_buf_port_conf {
	uint8_t mode;              /**< enum ibex_fc_mode */
	uint8_t n_vls;             /**< VLs in use 0..n_vls-1 (0 = all 16);
					lanes above get no reserved/headroom */
	uint16_t lossless_mask;    /**< bit v: VL v is lossless (not with NONE) */
	uint32_t reserved_blocks;  /**< per VL */
	uint32_t headroom_blocks;  /**< per lossless VL, PFC ports only */
	uint32_t xoff_blocks;      /**< static XOFF on shared use, 0 = dynamic */
	uint32_t xon_gap_blocks;   /**< hysteresis gap below the XOFF threshold */
	/** Reserved share of each VL, used instead of reserved_blocks when
	 * reserved_per_vl is set (lanes of a port may differ). */
	bool reserved_per_vl;
	uint32_t reserved_vl[IBEX_BUF_MAX_VLS];
};

/** Configuration of the whole buffer. */
struct ibex_buf_conf {
	uint32_t total_blocks;     /**< all the buffer */
	int8_t alpha_log2;         /**< dynamic threshold alpha = 2^alpha_log2, -7..3 */
	uint8_t n_ports;
	struct ibex_buf_port_conf port[IBEX_MAX_PORTS];
};

/** Use of one (port, VL) lane. */
struct ibex_buf_lane {
	uint32_t reserved;  /**< reserved blocks in use */
	uint32_t shared;    /**< shared blocks in use */
	uint32_t headroom;  /**< headroom blocks in use */
	bool xoff;          /**< PFC asserted for this lane */
	bool lossless;
	bool pfc;           /**< lossless on a PFC port: has headroom */
	uint32_t res_cap;   /**< reserved share */
	uint32_t hr_cap;    /**< headroom, 0 unless pfc */
	uint32_t xoff_static;
	uint32_t xon_gap;
	/** res_cap - reserved while the lane is clean (nothing in shared or
	 * headroom, no XOFF), else 0: the whole inline admission test. Kept
	 * by ibex_buf_pfc_step(), which every slow change ends with. */
	uint32_t fast_room;
	/** High-water marks, kept where the slow path changes the use (a
	 * lane in the fast path is within its reserved share, so they stay
	 * exact past it and cost the fast path nothing): the most blocks
	 * charged at once once the lane left its reserved share (0 if it
	 * never did), and the most headroom blocks in use. */
	uint32_t peak;
	uint32_t hr_peak;
};

/** The buffer state: one writer (the worker owning the ports). */
struct ibex_buf {
	uint32_t shared_total;
	uint32_t shared_used;
	int8_t alpha_log2;
	uint8_t n_ports;
	struct ibex_buf_lane lane[IBEX_MAX_PORTS][IBEX_BUF_MAX_VLS];
};

/**
 * PFC headroom of one lossless (port, priority), in blocks:
 *
 *   d    = cable_m x 5 ns/m + proc_ns            (one-way delay)
 *   W    = 2 x rate x d / 8                      (bytes on the wire during
 *          the round trip: XOFF travels to the peer, in-flight data back)
 *   H    = ceil(W x 2 / 85) + 2 x ceil(mtu / 64)
 *
 * 2/85 is the most blocks wire time can carry: a 65-byte frame costs two
 * 64-byte blocks and occupies 85 byte times (with preamble and gap). The
 * two MTU terms are the frame the peer is sending when XOFF lands and the
 * one our XOFF waits behind (2 x BDP + 2 x MTU, as in IEEE 802.1Q Annex N).
 *
 * @param rate_mbps  link rate in Mb/s (10000 for 10G)
 * @param proc_ns    both ends' reaction time (PFC response + our poll loop)
 * @param mtu        largest frame in bytes
 */
uint32_t ibex_buf_headroom_blocks(uint64_t rate_mbps, uint32_t cable_m,
				  uint32_t proc_ns, uint32_t mtu);

/**
 * Lay out the buffer: reserved and headroom off the top, the rest shared.
 *
 * @return 0, -EINVAL for a bad conf, -ENOSPC when reserved and headroom
 *   exceed total_blocks.
 */
int ibex_buf_init(struct ibex_buf *b, const struct ibex_buf_conf *c);

/** XOFF threshold on shared use of @p l when the pool holds @p used. */
static inline uint32_t
ibex_buf_xoff_thresh_at(const struct ibex_buf *b,
			const struct ibex_buf_lane *l, uint64_t used)
{
	uint64_t free = used < b->shared_total ? b->shared_total - used : 0;

	if (l->xoff_static != 0)
		return l->xoff_static;
	/* alpha x free with alpha a power of two: a shift, as in HPCC. */
	free = b->alpha_log2 >= 0 ? free << b->alpha_log2 :
				    free >> -b->alpha_log2;
	return free > UINT32_MAX ? UINT32_MAX : (uint32_t)free;
}

/** XOFF threshold on shared use of @p l given the current shared use. */
static inline uint32_t
ibex_buf_xoff_thresh(const struct ibex_buf *b, const struct ibex_buf_lane *l)
{
	return ibex_buf_xoff_thresh_at(b, l, b->shared_used);
}

/* A lane's fast_room after a change of its use or pause state. */
static inline void
ibex_buf_lane_refresh(struct ibex_buf_lane *l)
{
	l->fast_room = (l->shared | l->headroom) == 0 && !l->xoff ?
		       l->res_cap - l->reserved : 0;
}

/* The lane's high-water marks after an admission past the fast path. */
static inline void
ibex_buf_lane_peak(struct ibex_buf_lane *l)
{
	uint32_t used = l->reserved + l->shared + l->headroom;

	if (used > l->peak)
		l->peak = used;
	if (l->headroom > l->hr_peak)
		l->hr_peak = l->headroom;
}

static inline uint8_t
ibex_buf_pfc_edge(const struct ibex_buf *b, struct ibex_buf_lane *l)
{
	uint32_t thr;

	if (!l->pfc)
		return IBEX_BUF_PAUSE_NONE;
	thr = ibex_buf_xoff_thresh(b, l);
	if (!l->xoff && (l->headroom > 0 || l->shared >= thr) &&
	    (l->shared > 0 || l->headroom > 0)) {
		l->xoff = true;
		return IBEX_BUF_PAUSE_XOFF;
	}
	if (l->xoff && l->headroom == 0 && l->shared + l->xon_gap <= thr) {
		l->xoff = false;
		return IBEX_BUF_PAUSE_XON;
	}
	return IBEX_BUF_PAUSE_NONE;
}

/* Hysteresis step of one lane after a change; returns the edge, if any. */
static inline uint8_t
ibex_buf_pfc_step(const struct ibex_buf *b, struct ibex_buf_lane *l)
{
	uint8_t edge = ibex_buf_pfc_edge(b, l);

	ibex_buf_lane_refresh(l);
	return edge;
}

/**
 * For a data path that sums the admissions of a burst in registers: the
 * blocks (@p port, @p vl) can admit without a check, one after another,
 * as ibex_buf_admit_reserved() would (0 when it would take none), and
 * the charge of @p n of them, 1 <= @p n <= what ibex_buf_fast_room()
 * said, the lane untouched in between.
 */
static inline uint32_t
ibex_buf_fast_room(const struct ibex_buf *b, unsigned int port,
		   unsigned int vl)
{
	return b->lane[port][vl].fast_room;
}

static inline void
ibex_buf_charge_reserved(struct ibex_buf *b, unsigned int port,
			 unsigned int vl, uint32_t n)
{
	struct ibex_buf_lane *l = &b->lane[port][vl];

	l->fast_room -= n;
	l->reserved += n;
}

/**
 * The uncongested case of ibex_buf_admit(), small enough to inline on a
 * data path: when the frame fits the reserved share of a lane that uses
 * nothing else and is not paused, charge it (no pause edge can follow,
 * see ibex_buf_pfc_step) and return true; otherwise change nothing.
 */
static inline __attribute__((always_inline)) bool
ibex_buf_admit_reserved(struct ibex_buf *b, unsigned int port,
			unsigned int vl, uint32_t n)
{
	if (ibex_likely(n <= ibex_buf_fast_room(b, port, vl))) {
		ibex_buf_charge_reserved(b, port, vl, n);
		return true;
	}
	return false;
}

/**
 * The same for ibex_buf_release(): a lane with only reserved blocks in use
 * and no pause gives @p n back; true when that was the case.
 */
static inline __attribute__((always_inline)) bool
ibex_buf_release_reserved(struct ibex_buf *b, unsigned int port,
			  unsigned int vl, uint32_t n)
{
	struct ibex_buf_lane *l = &b->lane[port][vl];

	if (ibex_likely((l->shared | l->headroom) == 0 && !l->xoff)) {
		l->reserved -= n < l->reserved ? n : l->reserved;
		l->fast_room = l->res_cap - l->reserved;
		return true;
	}
	return false;
}

/**
 * Per packet: admit @p n blocks to (@p port, @p vl). Nothing is charged
 * on TAIL_DROP / VIOLATION. The pause edge concerns this lane.
 */
static inline struct ibex_buf_result
ibex_buf_admit(struct ibex_buf *b, unsigned int port, unsigned int vl,
	       uint32_t n)
{
	struct ibex_buf_lane *l = &b->lane[port][vl];
	struct ibex_buf_result r = { IBEX_BUF_RESERVED, IBEX_BUF_PAUSE_NONE };
	uint32_t take = l->res_cap - l->reserved;
	uint32_t rest;

	if (ibex_buf_admit_reserved(b, port, vl, n))
		return r;
	if (take > n)
		take = n;
	rest = n - take;
	if (rest == 0) {
		l->reserved += take;
	} else if (l->shared + rest <= ibex_buf_xoff_thresh(b, l) &&
		   b->shared_used + rest <= b->shared_total &&
		   !(l->pfc && l->headroom > 0)) {
		/* In-order use: once a lane spills into headroom it stays
		 * there until drained, so shared space freed meanwhile by
		 * others does not let it jump the XOFF it triggered. */
		l->reserved += take;
		l->shared += rest;
		b->shared_used += rest;
		r.verdict = IBEX_BUF_SHARED;
	} else if (l->pfc && l->headroom + rest <= l->hr_cap) {
		l->reserved += take;
		l->headroom += rest;
		r.verdict = IBEX_BUF_HEADROOM;
	} else {
		r.verdict = l->lossless ? IBEX_BUF_VIOLATION : IBEX_BUF_TAIL_DROP;
		return r;
	}
	ibex_buf_lane_peak(l);
	r.pause = ibex_buf_pfc_step(b, l);
	return r;
}

/**
 * Per packet: TX accepted a frame of @p n blocks charged to (@p port,
 * @p vl). Blocks come back headroom first, then shared, then reserved, the
 * reverse of the order they were taken.
 */
static inline struct ibex_buf_result
ibex_buf_release(struct ibex_buf *b, unsigned int port, unsigned int vl,
		 uint32_t n)
{
	struct ibex_buf_lane *l = &b->lane[port][vl];
	struct ibex_buf_result r = { IBEX_BUF_RESERVED, IBEX_BUF_PAUSE_NONE };
	uint32_t k;

	if (ibex_buf_release_reserved(b, port, vl, n))
		return r;
	k = n < l->headroom ? n : l->headroom;
	l->headroom -= k;
	n -= k;
	k = n < l->shared ? n : l->shared;
	l->shared -= k;
	b->shared_used -= k;
	n -= k;
	l->reserved -= n < l->reserved ? n : l->reserved;
	r.pause = ibex_buf_pfc_step(b, l);
	return r;
}

/** Blocks charged to a lane now. */
static inline uint32_t
ibex_buf_lane_used(const struct ibex_buf *b, unsigned int port, unsigned int vl)
{
	const struct ibex_buf_lane *l = &b->lane[port][vl];

	return l->reserved + l->shared + l->headroom;
}

/**
 * Free blocks a credit receiver may advertise for (@p port, @p vl): its
 * reserved share minus its whole use, never negative.
 */
static inline uint32_t
ibex_buf_credit_free(const struct ibex_buf *b, unsigned int port,
		     unsigned int vl)
{
	const struct ibex_buf_lane *l = &b->lane[port][vl];
	uint32_t used = ibex_buf_lane_used(b, port, vl);

	return used < l->res_cap ? l->res_cap - used : 0;
}

/**
 * Housekeeping: re-evaluate XOFF/XON of every PFC lane of @p port (the
 * dynamic threshold moves with other ports' use). Bit v of *xoff / *xon is
 * set for each lane that changed to XOFF / XON.
 */
void ibex_buf_pfc_scan(struct ibex_buf *b, unsigned int port, uint16_t *xoff,
		       uint16_t *xon);

/**
 * Several slices of one buffer (one per worker, each laid out as @p b):
 * the PFC hysteresis of lane (@p port, @p vl) judged on what all of them
 * hold, as one buffer would hold it. The lane's reserved share counts
 * once; beyond it the lane holds shared space (or headroom):
 *
 *   excess = lane_used - reserved              (0 if below)
 *   XOFF when excess > 0 and excess >= the XOFF threshold at pool_used
 *   XON  when excess + xon_gap <= that threshold
 *
 * @param lane_used  the lane's blocks in every slice, summed
 * @param pool_used  shared blocks in use in every slice, summed (may
 *                   exceed one slice's pool: the threshold is then 0)
 * @param xoff       the judgement's state for this lane (the caller's),
 *                   updated
 * @return the edge (IBEX_BUF_PAUSE_NONE on a lane without PFC).
 */
uint8_t ibex_buf_pfc_judge(const struct ibex_buf *b, unsigned int port,
			   unsigned int vl, uint32_t lane_used,
			   uint64_t pool_used, bool *xoff);

#endif /* IBEX_BUF_H */
