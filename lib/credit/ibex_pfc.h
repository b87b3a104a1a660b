/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_PFC_H
#define IBEX_PFC_H

/**
 * @file
 * IEEE 802.1Qbb priority flow control state.
 *
 * Sending side, per (ingress port, priority): ibex_buf decides XOFF/XON
 * edges with hysteresis; struct ibex_pfc_tx turns them into frames and
 * refreshes an asserted pause before the peer's timer runs out (a pause
 * lasts quanta x 512 bit times; we re-send when it would expire within
 * refresh_margin_ns).
 *
 * Receiving side, per (egress port, priority): struct ibex_pfc_rx keeps the
 * time until which the priority is paused. Quanta 0 resumes at once; a
 * frame with a zero class-enable vector is ignored.
 *
 * Watchdog (as SONiC's PFC watchdog): a priority paused without a break
 * for longer than detect_ns is a storm. Then per config the lane keeps
 * obeying (alarm only), transmits ignoring pause (forward) or discards its
 * frames (drop, IBEX_R_WATCHDOG): either way it drains as a lossy lane.
 * It recovers by itself once no pause has been received for recover_ns.
 * Storm and recovery come back as events for the caller to log.
 *
 * Time is nanoseconds passed in; rates are Mb/s.
 *
 * As lib/ecn, each side comes in three parts: params (rate, quanta,
 * watchdog times; immutable once built, carried by the data path's RCU
 * tables so that a live change swaps them), state (pauses in force; one
 * writer) and stats (counters; the state's writer).
 */

#include <stdbool.h>
#include <stdint.h>

#include "ibex_fcframe.h"

/** Bit times in one pause quantum. */
#define IBEX_PFC_QUANTUM_BITS 512
/** Longest pause a frame can ask for. */
#define IBEX_PFC_QUANTA_MAX 0xffff

/**
 * Pause time of @p quanta at @p rate_mbps, in picoseconds: exact at 10,
 * 25, 40, 50, 100 (and any rate dividing 512e6) Gb/s.
 */
static inline uint64_t
ibex_pfc_quanta_to_ps(uint32_t quanta, uint64_t rate_mbps)
{
	/* bits / (Mb/s) = us; x 1e6 for ps. */
	return rate_mbps == 0 ? 0 :
	       (uint64_t)quanta * IBEX_PFC_QUANTUM_BITS * 1000000 / rate_mbps;
}

/** Pause time in nanoseconds, rounded up (a pause is never cut short). */
static inline uint64_t
ibex_pfc_quanta_to_ns(uint32_t quanta, uint64_t rate_mbps)
{
	return (ibex_pfc_quanta_to_ps(quanta, rate_mbps) + 999) / 1000;
}

/** Quanta covering at least @p ns at @p rate_mbps, capped at 65535. */
uint32_t ibex_pfc_ns_to_quanta(uint64_t ns, uint64_t rate_mbps);

/* ---- sending PFC (we are congested) ---- */

/** PFC generation parameters of one ingress port: immutable once built. */
struct ibex_pfc_tx_params {
	uint64_t rate_mbps;
	uint16_t quanta;          /**< pause asked for in each XOFF */
	uint64_t pause_ns;        /**< quanta at rate */
	uint64_t margin_ns;       /**< refresh when expiry is this close */
};

/** PFC generation state of one ingress port. */
struct ibex_pfc_tx {
	uint8_t asserted;         /**< bit p: XOFF in force for priority p */
	uint8_t pending;          /**< bit p: edge not yet sent */
	uint64_t expires_ns[IBEX_PFC_PRIOS]; /**< peer's pause ends */
};

/** PFC generation counters, per priority-frame. */
struct ibex_pfc_tx_stats {
	uint64_t xoff_tx, xon_tx, refresh_tx;
};

/**
 * Build the generation parameters: the pause time of @p quanta at
 * @p rate_mbps and the refresh margin.
 *
 * @param quanta     pause per XOFF, 1..65535 (65535 is customary)
 * @param margin_ns  refresh margin; 0 picks half the pause time
 * @return 0 (@p p filled), or -EINVAL (rate 0, quanta 0, margin >= pause
 *   time).
 */
int ibex_pfc_tx_params_set(struct ibex_pfc_tx_params *p, uint64_t rate_mbps,
			   uint16_t quanta, uint64_t margin_ns);

/** Start a generator: nothing asserted. */
void ibex_pfc_tx_init(struct ibex_pfc_tx *t);

/** An XOFF (@p xoff true) or XON edge for @p prio; sent by ibex_pfc_tx_poll. */
static inline void
ibex_pfc_tx_set(struct ibex_pfc_tx *t, unsigned int prio, bool xoff)
{
	uint8_t bit = 1u << prio;

	if (!!(t->asserted & bit) == xoff)
		return;
	t->asserted ^= bit;
	t->pending ^= bit; /* an XOFF then XON before a poll sends nothing */
}

/**
 * Send @p prio's state again at the next poll: its XOFF (with the quanta)
 * while asserted, else an XON. For a generator that shares a port with
 * others (ibex with several workers): the XON that follows an XOFF another
 * generator sent, or an XOFF again after another's XON. An
 * ibex_pfc_tx_set() edge before the poll cancels it with the edge.
 */
static inline void
ibex_pfc_tx_repeat(struct ibex_pfc_tx *t, unsigned int prio)
{
	t->pending |= (uint8_t)(1u << prio);
}

/**
 * Build the PFC message due now: pending XOFF (quanta) and XON (0) edges
 * and refreshes of asserted pauses that expire within the margin.
 *
 * @return true when @p m has a non-zero class-enable vector to send.
 */
bool ibex_pfc_tx_poll(const struct ibex_pfc_tx_params *par,
		      struct ibex_pfc_tx *t, struct ibex_pfc_tx_stats *st,
		      uint64_t now_ns, struct ibex_fcf_pfc *m);

/* ---- receiving PFC (the peer is congested) ---- */

/** Watchdog action once a storm is detected. */
enum ibex_pfc_wd_action {
	IBEX_PFC_WD_OFF = 0,    /**< no watchdog */
	IBEX_PFC_WD_ALARM,      /**< report only, keep obeying */
	IBEX_PFC_WD_FORWARD,    /**< ignore pause: transmit (lossy drain) */
	IBEX_PFC_WD_DROP,       /**< discard the lane's frames (lossy drain) */
};

/** What a lane may do now. */
enum ibex_pfc_lane {
	IBEX_PFC_OPEN = 0,  /**< transmit */
	IBEX_PFC_PAUSED,    /**< hold */
	IBEX_PFC_DROP,      /**< watchdog drop: discard, IBEX_R_WATCHDOG */
};

enum ibex_pfc_ev_type {
	IBEX_PFC_EV_STORM = 1,   /**< paused longer than detect_ns */
	IBEX_PFC_EV_RESTORED,    /**< no pause for recover_ns */
};

/** A watchdog event to log. */
struct ibex_pfc_event {
	uint8_t type;  /**< enum ibex_pfc_ev_type */
	uint8_t prio;
	uint64_t time_ns;
	uint64_t paused_ns; /**< STORM: how long it had been paused */
};

/** Received-PFC parameters of one egress port: immutable once built. */
struct ibex_pfc_rx_params {
	uint64_t rate_mbps;  /**< converts the quanta received */
	uint8_t wd_action;   /**< enum ibex_pfc_wd_action */
	uint64_t detect_ns;
	uint64_t recover_ns;
};

/** Received-PFC state of one egress port. */
struct ibex_pfc_rx {
	uint8_t stormed;     /**< bit p: watchdog fired on priority p */
	uint64_t until_ns[IBEX_PFC_PRIOS];   /**< paused while now < until */
	uint64_t since_ns[IBEX_PFC_PRIOS];   /**< start of the current pause */
	uint64_t last_xoff_ns[IBEX_PFC_PRIOS]; /**< last non-zero quanta */
};

/** Received-PFC counters of one egress port. */
struct ibex_pfc_rx_stats {
	uint64_t frames;     /**< frames applied */
	uint64_t ignored;    /**< zero class-enable vector */
	uint64_t storms;     /**< watchdog storms */
};

/**
 * Build the received-PFC parameters.
 *
 * @return 0 (@p p filled), or -EINVAL (rate 0; watchdog on with detect_ns
 *   or recover_ns 0).
 */
int ibex_pfc_rx_params_set(struct ibex_pfc_rx_params *p, uint64_t rate_mbps,
			   enum ibex_pfc_wd_action action, uint64_t detect_ns,
			   uint64_t recover_ns);

/** Start a port: nothing paused, no storm. */
void ibex_pfc_rx_init(struct ibex_pfc_rx *r);

/**
 * Apply a parsed PFC frame received at @p now_ns.
 *
 * @return bit p set for each priority the frame paused or resumed; 0 for
 *   an ignored frame (zero class-enable vector).
 */
uint8_t ibex_pfc_rx_frame(const struct ibex_pfc_rx_params *par,
			  struct ibex_pfc_rx *r, struct ibex_pfc_rx_stats *st,
			  const struct ibex_fcf_pfc *m, uint64_t now_ns);

/** Per packet: may priority @p prio of this port transmit now? */
static inline enum ibex_pfc_lane
ibex_pfc_rx_lane(const struct ibex_pfc_rx_params *par,
		 const struct ibex_pfc_rx *r, unsigned int prio,
		 uint64_t now_ns)
{
	if (r->stormed >> prio & 1) {
		if (par->wd_action == IBEX_PFC_WD_DROP)
			return IBEX_PFC_DROP;
		if (par->wd_action == IBEX_PFC_WD_FORWARD)
			return IBEX_PFC_OPEN;
	}
	return now_ns < r->until_ns[prio] ? IBEX_PFC_PAUSED : IBEX_PFC_OPEN;
}

/**
 * Housekeeping: run the watchdog at @p now_ns.
 *
 * @param ev  room for IBEX_PFC_PRIOS events
 * @return events written.
 */
unsigned int ibex_pfc_rx_watchdog(const struct ibex_pfc_rx_params *par,
				  struct ibex_pfc_rx *r,
				  struct ibex_pfc_rx_stats *st, uint64_t now_ns,
				  struct ibex_pfc_event *ev);

#endif /* IBEX_PFC_H */
