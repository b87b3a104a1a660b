/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_CREDIT_H
#define IBEX_CREDIT_H

/**
 * @file
 * InfiniBand-style link-level credit flow control between ibex peers
 * (IBA Vol 1 7.9; the OMNeT++ IB flit model ibuf.cc / obuf.cc).
 *
 * One credit is one 64-byte block; a frame of len bytes costs
 * ceil(len / 64) blocks. Counters are 12 bits and wrap at 4096.
 *
 * Transmitter, per VL:
 *   FCTBS  total blocks sent, mod 4096
 *   FCCL   last credit limit received from the peer
 *   a frame of n blocks may go when n <= (FCCL - FCTBS) mod 4096 <= 2048
 *   (ibex_credit_room(): IBA's (FCCL - (FCTBS + n)) mod 4096 <= 2048 for
 *   every limit a receiver can advertise, and no credit for one it cannot)
 *
 * Receiver, per VL:
 *   ABR    adjusted blocks received: += n per data frame received,
 *          := FCTBS from every flow-control frame of the peer
 *   FCCL   advertised = (ABR + min(free, 2048)) mod 4096
 *
 * Setting ABR from the peer's FCTBS makes the scheme self-healing: a lost
 * data frame no longer holds credits once the next flow-control frame
 * arrives, and a lost flow-control frame is replaced by the next one, as
 * frames go out on every change (at least min_interval apart) and every
 * period. This relies on the link delivering data and flow-control frames
 * in order, which one Ethernet link does.
 *
 * All VLs of a port travel in one frame (struct ibex_fcf_credit, see
 * ibex_fcframe.h). Per-packet functions are static inline; the others are
 * housekeeping. Time is passed in, in nanoseconds.
 *
 * As lib/ecn: params (struct ibex_credit_params, the frame timing) are
 * immutable once built and may be shared (the data path carries them in
 * its RCU tables, so a live change swaps them); the state of a port
 * (struct ibex_credit_port: its lanes, counters and timers) has one
 * writer; its counters (struct ibex_credit_stats) too.
 */

#include <stdbool.h>
#include <stdint.h>

#include "ibex_fcframe.h"

/** Counter modulus and mask: 12-bit FCTBS / FCCL / ABR. */
#define IBEX_CREDIT_MOD   4096u
#define IBEX_CREDIT_MASK  (IBEX_CREDIT_MOD - 1)
/** Largest credit window: half the counter space. */
#define IBEX_CREDIT_WINDOW 2048u
/** Data VLs under credit flow control. */
#define IBEX_CREDIT_MAX_VLS IBEX_FCF_MAX_VLS
/** Largest frame the send rule is defined for, in blocks (16 KiB). */
#define IBEX_CREDIT_MAX_FRAME_BLOCKS 256u

/** Transmitter state of one VL. */
struct ibex_credit_tx {
	uint16_t fctbs; /**< total blocks sent, mod 4096 */
	uint16_t fccl;  /**< credit limit last received */
};

/** Receiver state of one VL. */
struct ibex_credit_rx {
	uint16_t abr;       /**< adjusted blocks received, mod 4096 */
	uint16_t fccl_sent; /**< FCCL in the last frame sent */
	uint16_t free_sent; /**< the credit it granted (free blocks, capped) */
};

/** Frame timing of a port's credit frames: immutable once built. */
struct ibex_credit_params {
	uint64_t min_interval_ns; /**< on-change frames at least this apart */
	uint64_t period_ns;     /**< a frame at least this often */
};

/** Credit flow control state of one port, both directions. The lanes
 * (n_vls, watch_vls) are fixed when it starts. */
struct ibex_credit_port {
	uint8_t n_vls;          /**< data VLs 0..n_vls-1 under credit */
	uint16_t watch_vls;     /**< VLs whose limit moving makes a frame due
				     (the lanes that take credit; all by
				     default); every frame carries all VLs */
	bool init_pending;      /**< next frame goes out with op INIT */
	/** The last frame was refused by TX: due again once the minimum gap
	 * since it has passed (ibex_credit_fc_due()), as if its limits had
	 * moved. */
	bool resend;
	uint16_t seq;           /**< frames built */
	uint64_t last_fc_ns;    /**< when the last frame was built */
	uint64_t next_look_ns;  /**< no change is looked for before this
				     (ibex_credit_fc_not_due()) */
	struct ibex_credit_tx tx[IBEX_CREDIT_MAX_VLS];
	struct ibex_credit_rx rx[IBEX_CREDIT_MAX_VLS];
};

/** Counters of one port's credit frames; one writer (the state's). */
struct ibex_credit_stats {
	uint64_t fc_rx;         /**< frames applied */
	uint64_t fc_tx;         /**< frames built */
};

/** a mod 4096. */
static inline uint16_t
ibex_credit_mod(uint32_t a)
{
	return (uint16_t)(a & IBEX_CREDIT_MASK);
}

/**
 * The IB send rule, the one definition every sender in ibex uses (a port's
 * transmitter, the workers' shared claim on a lane, the generator): with
 * limit @p fccl and @p sent blocks counted against it (FCTBS, or the
 * blocks all workers claimed; any width, only mod 4096 matters), how many
 * blocks may still go.
 *
 * IBA (7.9.4.2) states it per frame: n blocks may go when
 * (FCCL - (FCTBS + n)) mod 4096 <= 2048. A receiver advertises at most a
 * window beyond what it received (ibex_credit_rx_fccl()), and received no
 * more than was sent, so FCCL is at most 2048 blocks ahead of FCTBS; there
 * the formula is exactly n <= (FCCL - FCTBS) mod 4096. A limit further
 * ahead is really one behind FCTBS (the peer's limit went back: it
 * restarted with a smaller buffer, or sent an INIT): no credit. IBA's
 * formula would there let a frame of at least the excess go and refuse a
 * smaller one (at 2300 ahead, 252 blocks but not 1): over-sending into a
 * buffer that is not there.
 */
static inline uint32_t
ibex_credit_room(uint16_t fccl, uint32_t sent)
{
	uint32_t d = ibex_credit_mod((uint32_t)fccl - sent);

	return d <= IBEX_CREDIT_WINDOW ? d : 0;
}

/**
 * The send rule for one frame on raw counters: may @p n blocks go? True
 * when 1 <= n <= 256 and n <= ibex_credit_room(fccl, fctbs).
 */
static inline bool
ibex_credit_rule(uint16_t fccl, uint16_t fctbs, uint32_t n)
{
	if (n == 0 || n > IBEX_CREDIT_MAX_FRAME_BLOCKS)
		return false;
	return n <= ibex_credit_room(fccl, fctbs);
}

/** Blocks the transmitter of @p vl may still send (0 when none). */
static inline uint32_t
ibex_credit_tx_avail(const struct ibex_credit_port *p, unsigned int vl)
{
	return ibex_credit_room(p->tx[vl].fccl, p->tx[vl].fctbs);
}

/** Per packet: may a frame of @p n blocks go on @p vl now? */
static inline bool
ibex_credit_tx_ok(const struct ibex_credit_port *p, unsigned int vl,
		  uint32_t n)
{
	return ibex_credit_rule(p->tx[vl].fccl, p->tx[vl].fctbs, n);
}

/** Per packet: a frame of @p n blocks was handed to TX on @p vl. */
static inline void
ibex_credit_tx_sent(struct ibex_credit_port *p, unsigned int vl, uint32_t n)
{
	p->tx[vl].fctbs = ibex_credit_mod(p->tx[vl].fctbs + n);
}

/**
 * Per frame on a data path: ibex_credit_tx_take() for a frame known to be
 * 1..IBEX_CREDIT_MAX_FRAME_BLOCKS blocks (any Ethernet frame up to 16 KiB),
 * without the range check.
 */
static inline bool
ibex_credit_tx_take_frame(struct ibex_credit_port *p, unsigned int vl,
			  uint32_t n)
{
	struct ibex_credit_tx *t = &p->tx[vl];

	if (n > ibex_credit_room(t->fccl, t->fctbs))
		return false;
	t->fctbs = ibex_credit_mod(t->fctbs + n);
	return true;
}

/** Per packet: check and charge in one step. @return true when sent. */
static inline bool
ibex_credit_tx_take(struct ibex_credit_port *p, unsigned int vl, uint32_t n)
{
	if (n == 0 || n > IBEX_CREDIT_MAX_FRAME_BLOCKS)
		return false;
	return ibex_credit_tx_take_frame(p, vl, n);
}

/** Per packet: a data frame of @p n blocks arrived on @p vl (before any
 * drop decision: ABR counts what the peer sent). */
static inline void
ibex_credit_rx_data(struct ibex_credit_port *p, unsigned int vl, uint32_t n)
{
	p->rx[vl].abr = ibex_credit_mod(p->rx[vl].abr + n);
}

/** FCCL to advertise for @p vl given its free blocks (window capped). */
static inline uint16_t
ibex_credit_rx_fccl(const struct ibex_credit_port *p, unsigned int vl,
		    uint32_t free_blocks)
{
	if (free_blocks > IBEX_CREDIT_WINDOW)
		free_blocks = IBEX_CREDIT_WINDOW;
	return ibex_credit_mod(p->rx[vl].abr + free_blocks);
}

/**
 * Build the frame timing of a port.
 *
 * @return 0 (@p p filled), or -EINVAL for min_interval > period or
 *   period 0.
 */
int ibex_credit_params_set(struct ibex_credit_params *p,
			   uint64_t min_interval_ns, uint64_t period_ns);

/** Housekeeping looks for credit work at most this often (the data
 * path's IBEX_FC_HK_NS): no update leaves sooner after a change. */
#define IBEX_CREDIT_HK_NS 1000u

/**
 * The credit window (a credit lane's reserved share, in blocks) that keeps
 * a link busy at @p rate_mbps: what the sender may have sent and not yet
 * heard back of, over the credit loop
 *
 *     loop = 2 x one_way_ns + max(min_gap_ns, HK) + HK
 *
 * a frame's way to the receiver, the wait for the housekeeping tick and
 * the minimum gap before the credit frame goes (ibex_credit_fc_due()), and
 * its way back; one_way_ns is the link's delay plus what the peer adds
 * before a frame is on the wire (a switch's processing). The wire bytes
 * of the loop become blocks at worst 2 per 85 byte times (a 65-byte frame,
 * as ibex_buf_headroom_blocks()), plus two frames of @p frame_bytes (one
 * being received, one being sent when the credit arrives).
 *
 * @param need  if not NULL, the window the loop needs, uncapped
 * @return that window capped at IBEX_CREDIT_WINDOW (2048 blocks, 128 KiB:
 *   12-bit counters advertise no more), at least one frame.
 */
uint32_t ibex_credit_window_blocks(uint64_t rate_mbps, uint64_t one_way_ns,
				   uint64_t min_gap_ns, uint32_t frame_bytes,
				   uint64_t *need);

/**
 * Reset a port: all counters 0, no credit until the peer advertises, the
 * first frame goes out with op INIT.
 *
 * @return 0, or -EINVAL for n_vls outside 1..15.
 */
int ibex_credit_port_init(struct ibex_credit_port *p, unsigned int n_vls);

/**
 * Timing rule on its own: a frame is due when @p changed and at least
 * @p min_interval_ns passed since @p last_ns, or when @p period_ns passed
 * regardless.
 */
bool ibex_credit_due(uint64_t now_ns, uint64_t last_ns, bool changed,
		     uint64_t min_interval_ns, uint64_t period_ns);

/**
 * Housekeeping, before any per-VL work: can a credit frame be due at
 * @p now_ns at all? Not before the minimum gap since the last one, nor
 * before the time ibex_credit_fc_not_due() set (a clock that went back
 * further than the gap is not waited for).
 */
static inline bool
ibex_credit_fc_may_be_due(const struct ibex_credit_params *par,
			  const struct ibex_credit_port *p, uint64_t now_ns)
{
	if (now_ns < p->next_look_ns &&
	    p->next_look_ns - now_ns <= par->min_interval_ns)
		return false;
	return p->last_fc_ns == 0 || now_ns < p->last_fc_ns ||
	       now_ns - p->last_fc_ns >= par->min_interval_ns;
}

/**
 * Housekeeping found no frame due at @p now_ns: look for a change again a
 * minimum gap later. A lane with no traffic would otherwise have its limit
 * worked out at every housekeeping tick until the period; this way an
 * on-change frame leaves at most two gaps after the change, the periodic
 * one at most a gap after the period.
 */
static inline void
ibex_credit_fc_not_due(const struct ibex_credit_params *par,
		       struct ibex_credit_port *p, uint64_t now_ns)
{
	p->next_look_ns = now_ns + par->min_interval_ns;
}

/**
 * Housekeeping: should the port send a credit frame now?
 *
 * On change: when some VL's limit moved by at least a quarter of the
 * credit the last frame granted it (at least one block), i.e. the
 * receiver drained that much since: the sender hears about room in
 * steps it can use, not once per freed block, and a lane granted
 * little (a full buffer) is told of every block that frees. So is a
 * sender left with less than such a step (the limit last sent minus
 * ABR: its frames filled the buffer since the grant). Besides, a
 * frame every period, whatever changed (lost frames heal).
 *
 * @param free_blocks  per VL, the free blocks ibex_buf_credit_free() gives
 *                     (only watch_vls are read)
 */
bool ibex_credit_fc_due(const struct ibex_credit_params *par,
			const struct ibex_credit_port *p, uint64_t now_ns,
			const uint32_t *free_blocks);

/**
 * Fill the frame to send (all VLs: our FCTBS and our advertised FCCL) and
 * record it as sent at @p now_ns (counted in @p st). Build the bytes with
 * ibex_fcf_credit_build().
 */
void ibex_credit_fc_fill(struct ibex_credit_port *p,
			 struct ibex_credit_stats *st, uint64_t now_ns,
			 const uint32_t *free_blocks, struct ibex_fcf_credit *m);

/**
 * Apply a parsed credit frame from the peer: per VL, FCCL becomes our
 * transmit limit and ABR := the peer's FCTBS. VLs we do not run are
 * skipped. An INIT frame also makes our next frame due at once (the peer
 * needs our limits), by clearing last_fc_ns. Counted in @p st.
 *
 * @return the number of VLs applied.
 */
unsigned int ibex_credit_fc_apply(struct ibex_credit_port *p,
				  struct ibex_credit_stats *st,
				  const struct ibex_fcf_credit *m);

#endif /* IBEX_CREDIT_H */
