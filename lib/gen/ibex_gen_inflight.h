/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_GEN_INFLIGHT_H
#define IBEX_GEN_INFLIGHT_H

/**
 * @file
 * A sender's frames in flight, for loss recovery by timeout (--rto), as a
 * RoCE NIC keeps its unacknowledged PSNs: the frames a port sent that no
 * receiver has taken yet, in sending order. Each frame's slot travels in
 * its head probe; its receiver (in the same process) acks the slot, a
 * trimmed copy of it NACKs the slot, and a frame neither acked nor
 * NACKed within the RTO of its last transmission is due again. A
 * retransmission keeps its slot, so whichever copy arrives first,
 * original or retransmission, is taken and every later copy is a
 * duplicate: the receiver counts each frame's payload once.
 *
 * Time is a tick count passed in; nothing here reads a clock or
 * allocates (the entries are the caller's memory). One writer.
 */

#include <stdbool.h>
#include <stdint.h>

/** Most slots a port may have: the head probe carries 16 bits. */
#define IBEX_INFLIGHT_MAX_SLOTS 65536u

enum ibex_inflight_state {
	IBEX_INFLIGHT_FREE = 0,
	IBEX_INFLIGHT_SENT,      /**< on its way, due again at `due` */
	IBEX_INFLIGHT_QUEUED,    /**< NACKed or timed out: to be sent again */
	IBEX_INFLIGHT_ACKED,     /**< arrived; freed once it is the oldest */
};

/** One frame in flight: what rebuilding it takes, and its state. */
struct ibex_inflight_ent {
	uint32_t sf;             /**< sub-flow (flow and QP) */
	uint32_t seq;            /**< its sequence number there */
	uint32_t psn, tag;
	uint16_t len;
	uint8_t opcode;
	uint8_t state;           /**< enum ibex_inflight_state */
	uint64_t first_tsc;      /**< first transmission: the latency's start */
	uint64_t due;            /**< last transmission + RTO */
};

struct ibex_inflight {
	struct ibex_inflight_ent *ent;
	uint32_t mask;           /**< slots - 1 */
	uint32_t head, tail;     /**< free-running: tail - head in flight */
	uint32_t scan;           /**< where the timeout scan goes on */
	uint64_t rto;            /**< ticks */
};

/**
 * Set up @p q over @p ent, @p slots entries (a power of two, at most
 * IBEX_INFLIGHT_MAX_SLOTS), with a timeout of @p rto ticks.
 * @return 0, or -1 when @p slots is not a power of two in range.
 */
int ibex_inflight_init(struct ibex_inflight *q, struct ibex_inflight_ent *ent,
		       uint32_t slots, uint64_t rto);

/** Frames in flight, acked ones not yet freed included. */
static inline uint32_t
ibex_inflight_count(const struct ibex_inflight *q)
{
	return q->tail - q->head;
}

/** May one more frame be sent? (The window is every slot.) */
static inline bool
ibex_inflight_room(const struct ibex_inflight *q)
{
	return ibex_inflight_count(q) <= q->mask;
}

/**
 * Record a frame first sent at @p e->first_tsc (its state and deadline
 * are set here). The caller checked ibex_inflight_room().
 * @return its slot, for the head probe.
 */
static inline uint16_t
ibex_inflight_push(struct ibex_inflight *q, const struct ibex_inflight_ent *e)
{
	struct ibex_inflight_ent *s = &q->ent[q->tail & q->mask];

	*s = *e;
	s->state = IBEX_INFLIGHT_SENT;
	s->due = e->first_tsc + q->rto;
	return (uint16_t)(q->tail++ & q->mask);
}

/** A copy of frame (@p sf, @p seq) carrying @p slot arrived.
 * @return true when it is the first copy to, false for a duplicate. */
static inline bool
ibex_inflight_ack(struct ibex_inflight *q, uint16_t slot, uint32_t sf,
		  uint32_t seq)
{
	struct ibex_inflight_ent *s = &q->ent[slot & q->mask];

	/* A freed slot, or one a later frame took: that frame arrived
	 * before (only acked frames are freed). */
	if (s->state == IBEX_INFLIGHT_FREE || s->state == IBEX_INFLIGHT_ACKED ||
	    s->sf != sf || s->seq != seq)
		return false;
	s->state = IBEX_INFLIGHT_ACKED;
	return true;
}

/**
 * A trimmed copy of frame (@p sf, @p seq) came back as a NACK.
 * @return true when the frame is to be sent again (it was on its way:
 *   now it is queued, and no timeout will queue it twice); false when it
 *   already arrived, is queued, or is not this port's.
 */
static inline bool
ibex_inflight_nack(struct ibex_inflight *q, uint16_t slot, uint32_t sf,
		   uint32_t seq)
{
	struct ibex_inflight_ent *s = &q->ent[slot & q->mask];

	if (s->state != IBEX_INFLIGHT_SENT || s->sf != sf || s->seq != seq)
		return false;
	s->state = IBEX_INFLIGHT_QUEUED;
	return true;
}

/** A NACK for @p slot could not be queued: let its timeout recover it. */
static inline void
ibex_inflight_unqueue(struct ibex_inflight *q, uint16_t slot)
{
	struct ibex_inflight_ent *s = &q->ent[slot & q->mask];

	if (s->state == IBEX_INFLIGHT_QUEUED)
		s->state = IBEX_INFLIGHT_SENT;
}

/** The frame of @p slot was sent again at @p now. */
static inline void
ibex_inflight_resent(struct ibex_inflight *q, uint16_t slot, uint64_t now)
{
	struct ibex_inflight_ent *s = &q->ent[slot & q->mask];

	if (s->state == IBEX_INFLIGHT_QUEUED)
		s->state = IBEX_INFLIGHT_SENT;
	s->due = now + q->rto;
}

/**
 * The timeout scan: free the acked frames at the head, then look at up
 * to @p budget frames from where the last call stopped, and return (in
 * @p slot, at most @p max) those whose deadline passed at @p now, marked
 * queued. It starts over at the oldest frame when it reaches one first
 * sent less than an RTO ago (nothing after it can be due but frames sent
 * again, which it then finds on its next turn).
 * @return how many slots it put in @p slot.
 */
unsigned int ibex_inflight_expired(struct ibex_inflight *q, uint64_t now,
				   uint16_t *slot, unsigned int max,
				   unsigned int budget);

#endif /* IBEX_GEN_INFLIGHT_H */
